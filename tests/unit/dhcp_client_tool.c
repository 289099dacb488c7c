/* SPDX-License-Identifier: BSD-3-Clause
 * lib/dhcp's client on a real interface, for tests/component/test_dhcp_dnsmasq.py:
 * frames out and in through an AF_PACKET socket (dhcp_frame_build /
 * dhcp_frame_parse), CLOCK_MONOTONIC as the clock, ARP requests for the
 * leased address answered (a server renewing unicast ARPs for it).
 *   dhcp_client_tool IFNAME EVENTS TIMEOUT_S
 * prints one line per lease event ("bound addr=192.0.2.50 prefix=24
 * router=192.0.2.1 server=192.0.2.1 lease=120 t1=60 t2=105"), per loss
 * ("lost REASON") and per refusal ("reject TEXT"), and exits 0 after EVENTS
 * lease events, 1 at TIMEOUT_S, 2 on a usage or socket error; the counters
 * go to stderr at the end.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dhcp_client.h"
#include "dhcp_frame.h"

#define ARP_LEN      28        /* bytes: Ethernet / IPv4 ARP (RFC 826) */
#define ETH_P_ARP_ID 0x0806
#define FRAME_MAX    2048

static struct {
	int fd, ifindex;
	uint8_t mac[6], server_mac[6];
	uint32_t server_ip;
	int events;
	struct dhcp_client *c;
} t;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * DHCP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static const char *
ip_str(uint32_t a, char *buf)
{
	struct in_addr in = { .s_addr = htonl(a) };

	return inet_ntop(AF_INET, &in, buf, INET_ADDRSTRLEN);
}

static void
tx(const uint8_t *f, size_t n)
{
	if (send(t.fd, f, n, 0) != (ssize_t)n)
		perror("send");
}

static void
on_send(void *ctx, const uint8_t *msg, size_t len, uint32_t src, uint32_t dst)
{
	uint8_t f[FRAME_MAX];
	bool uni = dst != DHCP_ADDR_BROADCAST && dst == t.server_ip;
	size_t n = dhcp_frame_build(f, sizeof(f), t.mac, uni ? t.server_mac : NULL, src, dst, msg, len);

	(void)ctx;
	if (n != 0)
		tx(f, n);
}

static void
on_lease(void *ctx, enum dhcp_lease_event ev, const struct dhcp_lease *l,
	 const struct dhcp_lease *old)
{
	static const char *const names[] = { "bound", "renewed", "changed" };
	char a[INET_ADDRSTRLEN], r[INET_ADDRSTRLEN], s[INET_ADDRSTRLEN];

	(void)ctx;
	(void)old;
	printf("%s addr=%s prefix=%u router=%s server=%s lease=%u t1=%u t2=%u\n", names[ev],
	       ip_str(l->addr, a), l->prefix_len, ip_str(l->router, r), ip_str(l->server_id, s),
	       l->lease_s, l->t1_s, l->t2_s);
	fflush(stdout);
	t.events++;
}

static void
on_lost(void *ctx, enum dhcp_lost_reason why, const struct dhcp_lease *old)
{
	(void)ctx;
	(void)old;
	printf("lost %s\n", dhcp_lost_reason_name(why));
	fflush(stdout);
}

static void
on_reject(void *ctx, enum dhcp_reject r, const char *text)
{
	(void)ctx;
	(void)r;
	printf("reject %s\n", text);
	fflush(stdout);
}

/* An ARP request for the leased address: answer it (RFC 826) */
static void
arp(const uint8_t *f, size_t n)
{
	const struct dhcp_lease *l = dhcp_client_lease(t.c);
	const uint8_t *a = f + GW_ETH_HDR_BYTES;
	uint8_t r[GW_ETH_HDR_BYTES + ARP_LEN];
	uint32_t tpa;

	if (l == NULL || n < sizeof(r) || a[7] != 1)   /* opcode 1: request */
		return;
	tpa = (uint32_t)a[24] << 24 | (uint32_t)a[25] << 16 | (uint32_t)a[26] << 8 | a[27];
	if (tpa != l->addr)
		return;
	memcpy(r, f + 6, 6);
	memcpy(r + 6, t.mac, 6);
	r[12] = ETH_P_ARP_ID >> 8;
	r[13] = ETH_P_ARP_ID & 0xff;
	memcpy(r + GW_ETH_HDR_BYTES, a, 6);           /* htype, ptype, hlen, plen */
	r[GW_ETH_HDR_BYTES + 6] = 0;
	r[GW_ETH_HDR_BYTES + 7] = 2;                  /* reply */
	memcpy(r + GW_ETH_HDR_BYTES + 8, t.mac, 6);
	memcpy(r + GW_ETH_HDR_BYTES + 14, a + 24, 4); /* spa: the leased address */
	memcpy(r + GW_ETH_HDR_BYTES + 18, a + 8, 10); /* tha, tpa: the asker */
	tx(r, sizeof(r));
}

static void
rx(void)
{
	uint8_t f[FRAME_MAX];
	struct dhcp_frame_in in;
	ssize_t n = recv(t.fd, f, sizeof(f), MSG_DONTWAIT);

	if (n < GW_ETH_HDR_BYTES || memcmp(f + 6, t.mac, 6) == 0)
		return;
	if (f[12] == ETH_P_ARP_ID >> 8 && f[13] == (ETH_P_ARP_ID & 0xff)) {
		arp(f, (size_t)n);
		return;
	}
	if (dhcp_frame_parse(f, (size_t)n, &in) != 0)
		return;
	t.server_ip = in.src_ip;
	memcpy(t.server_mac, in.src_mac, 6);
	dhcp_client_input(t.c, in.msg, in.len, now_ns());
}

static int
open_socket(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr;

	t.fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (t.fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(t.fd, SIOCGIFHWADDR, &ifr) != 0)
		return -1;
	memcpy(t.mac, ifr.ifr_hwaddr.sa_data, 6);
	t.ifindex = (int)if_nametoindex(ifname);
	sll.sll_ifindex = t.ifindex;
	return t.ifindex == 0 ? -1 : bind(t.fd, (struct sockaddr *)&sll, sizeof(sll));
}

int
main(int argc, char **argv)
{
	struct dhcp_client_cfg cfg = {
		.no_startup_delay = true,
		.io = { .send = on_send, .lease = on_lease, .lost = on_lost, .reject = on_reject },
	};
	uint64_t end;
	int want;

	if (argc != 4) {
		fprintf(stderr, "usage: dhcp_client_tool IFNAME EVENTS TIMEOUT_S\n");
		return 2;
	}
	if (open_socket(argv[1]) != 0) {
		perror(argv[1]);
		return 2;
	}
	want = atoi(argv[2]);
	memcpy(cfg.mac, t.mac, 6);
	snprintf(cfg.host_name, sizeof(cfg.host_name), "hgw-dhcp-test");
	t.c = dhcp_client_create(&cfg, now_ns());
	end = now_ns() + (uint64_t)atoi(argv[3]) * DHCP_NS_PER_S;
	while (t.c != NULL && t.events < want && now_ns() < end) {
		struct pollfd p = { .fd = t.fd, .events = POLLIN };
		uint64_t next = dhcp_client_next_ns(t.c), now = now_ns();
		int ms = next <= now ? 0 : next - now > 1000 * 1000000ull ? 1000 : (int)((next - now) / 1000000);

		if (poll(&p, 1, ms) > 0)
			rx();
		dhcp_client_tick(t.c, now_ns());
	}
	for (unsigned i = 0; t.c != NULL && i < DHCP_CNT_COUNT; i++)
		if (dhcp_client_counter(t.c, i) != 0)
			fprintf(stderr, "%s %llu\n", dhcp_counter_name(i),
				(unsigned long long)dhcp_client_counter(t.c, i));
	if (t.c != NULL)
		fprintf(stderr, "state %s\n", dhcp_state_name(dhcp_client_state(t.c)));
	dhcp_client_destroy(t.c);
	close(t.fd);
	return t.events >= want ? 0 : 1;
}
