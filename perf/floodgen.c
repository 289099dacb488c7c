/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw-floodgen: floods one interface with Ethernet frames through an
 * AF_PACKET socket (PACKET_QDISC_BYPASS, sendmmsg bursts), for perf/soak's
 * overload runs. Frames are built before the clock starts (--variants of
 * them, random fields drawn once) and sent round-robin, so the sending loop
 * only copies pointers: fast enough to outrun a gateway sharing the CPUs.
 *
 *   hipgw-floodgen --iface IF --mode esp|esp6-frag|arp|i1|critical --dst-mac MAC
 *                  --src-mac MAC (--dst IP [--src IP | --src-net A.B.C.D/LEN] |
 *                  --dst6 IP6 for esp6-frag)
 *                  [--dst-hit HIT] [--hit HIT] [--size B] [--variants N]
 *                  [--rate PPS] [--duration S] [--count N]
 *
 *   esp       IPv4 / ESP (RFC 4303) with a random SPI (0x40000000 and up) and
 *             sequence number, --size bytes a frame: for a gateway with no such
 *             SA, an unknown SPI (the worker drops it, no_sa).
 *   esp6-frag IPv6 to --dst6 from random sources in 2001:2::/48 (RFC 5180's
 *             benchmarking prefix): the first fragment (offset 0, M set, RFC 8200
 *             4.5) of an ESP packet as esp's, whose other fragments never come.
 *             Each variant is its own reassembly key (source, identification),
 *             so the receiver holds each until its reassembly times out (give
 *             --variants 65536). About --size bytes: the fragment's data is a
 *             multiple of 8 bytes. (IPv6: an af_packet receiver's kernel
 *             reassembles IPv4 fragments for its fanout before the reader sees
 *             them, IPv6 ones it passes on.)
 *   arp       ARP requests (RFC 826) who-has --dst from random sender IPs in
 *             --src-net and random locally administered sender MACs; Ethernet
 *             destination --dst-mac (ff:ff:ff:ff:ff:ff for broadcast).
 *   i1        HIP I1s (RFC 7401 5.3.1: DH_GROUP_LIST 7, 4) to --dst-hit from
 *             random ORCHIDv2 sender HITs (no declared peer: dropped on the
 *             control lcore as unknown_peer) and random sources in --src-net.
 *   critical  HIP I1s from --hit (a declared peer's HIT, spoofed) to --dst-hit
 *             with one unknown critical parameter (odd type, RFC 7401 5.2.1):
 *             each earns a NOTIFY UNSUPPORTED_CRITICAL_PARAMETER_TYPE, which
 *             costs the receiver a signature (rate-limited, lib/hip/hip_notify.c).
 *
 * HIP checksums (RFC 7401 5.1.1) and IPv4 header checksums are right, so the
 * gateway gets to the costly part. --rate 0 (default): as fast as the socket
 * takes them; --duration S and/or --count N end the run (the first reached).
 * One JSON line at the end: {"mode", "sent", "send_errors", "seconds",
 * "sent_per_s", "rate_asked"}. Exit 0, 1 when it cannot run, 2 on a bad
 * command line. Root only (packet socket).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hip_packet.h"
#define PERF_PROG "hipgw-floodgen"
#include "perf_util.h"
#include "hip_wire.h"

#define ETH_HDR_LEN       14
#define IPV4_HDR_LEN      20
#define ESP_HDR_LEN       8          /* SPI + sequence number (RFC 4303 2) */
#define IPV6_HDR_LEN      40
#define IPV6_FRAG_HDR_LEN 8          /* RFC 8200 4.5 */
#define IPPROTO_FRAGMENT_ 44
#define FRAG_UNIT         8          /* fragment data of a non-last fragment: multiple of, bytes */
#define IPPROTO_HIP_      139        /* RFC 7401 5 */
#define IPPROTO_ESP_      50
#define FRAME_MIN         60         /* Ethernet minimum without FCS, bytes */
#define FRAME_MAX         1514       /* bytes, no FCS */
#define BURST             64         /* frames a sendmmsg */
#define VARIANTS_DEFAULT  1024
#define VARIANTS_MAX      65536
#define SPI_FLOOD_BASE    0x40000000u   /* random SPIs from here up */
#define UNKNOWN_CRITICAL  1021       /* odd (critical), no parameter of RFC 7401's registry */
#define ORCHID_PREFIX0    0x20       /* ORCHIDv2 2001:20::/28 (RFC 7343), OGA 2 */
#define ORCHID_PREFIX1    0x01
#define ORCHID_PREFIX2    0x00
#define ORCHID_PREFIX3    0x22
#define DH_GROUP_P256     7          /* RFC 7401 5.2.7: NIST P-256 */
#define DH_GROUP_MODP3072 4          /* 3072-bit MODP */

static struct {
	const char *iface, *mode;
	uint8_t src_mac[6], dst_mac[6], hit[16], dst_hit[16];
	struct in_addr src, dst;
	struct in6_addr dst6;
	uint32_t src_net, src_mask;
	unsigned size, variants;
	double rate, duration;
	uint64_t count;
	bool have_src_mac, have_dst_mac, have_dst, have_dst6, have_src, have_hit, have_dst_hit;
} O = { .size = 128, .variants = VARIANTS_DEFAULT };

static uint16_t
ipv4_cksum(const uint8_t *h)
{
	uint32_t sum = 0;
	for (unsigned i = 0; i < IPV4_HDR_LEN; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet header into f; returns the bytes written. */
static size_t
put_eth(uint8_t *f, uint16_t ethertype, const uint8_t *src_mac)
{
	memcpy(f, O.dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	f[12] = (uint8_t)(ethertype >> 8);
	f[13] = (uint8_t)ethertype;
	return ETH_HDR_LEN;
}

/* IPv4 header (no options, DF clear, TTL 64) of total_len bytes at h. */
static void
put_ipv4(uint8_t *h, uint8_t proto, uint32_t src_be, size_t total_len, uint16_t id)
{
	uint16_t c;

	memset(h, 0, IPV4_HDR_LEN);
	h[0] = 0x45;
	h[2] = (uint8_t)(total_len >> 8);
	h[3] = (uint8_t)total_len;
	h[4] = (uint8_t)(id >> 8);
	h[5] = (uint8_t)id;
	h[8] = 64;
	h[9] = proto;
	memcpy(h + 12, &src_be, 4);
	memcpy(h + 16, &O.dst, 4);
	c = ipv4_cksum(h);
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
}

static uint32_t
pick_src(uint64_t r)
{
	if (O.have_src)
		return O.src.s_addr;
	return htonl(O.src_net | ((uint32_t)r & ~O.src_mask));
}

/* HIP I1 (random sender HIT, or --hit with the unknown critical parameter)
 * after the IPv4 header; returns the frame length. */
static size_t
build_i1(uint8_t *f, uint64_t *rnd, bool critical)
{
	static const uint8_t groups[2] = { DH_GROUP_P256, DH_GROUP_MODP3072 };
	uint8_t sender[16], crit[4] = { 0 };
	struct hip_builder b;
	uint8_t *ip = f + ETH_HDR_LEN, *hip = ip + IPV4_HDR_LEN;
	uint32_t src = pick_src(xorshift(rnd));
	int len;

	if (critical) {
		memcpy(sender, O.hit, 16);
	} else {
		uint64_t a = xorshift(rnd), c = xorshift(rnd);
		sender[0] = ORCHID_PREFIX0;
		sender[1] = ORCHID_PREFIX1;
		sender[2] = ORCHID_PREFIX2;
		sender[3] = ORCHID_PREFIX3;
		memcpy(sender + 4, &a, 8);
		memcpy(sender + 12, &c, 4);
	}
	put_eth(f, ETHERTYPE_IP, O.src_mac);
	if (hip_build_init(&b, hip, FRAME_MAX - ETH_HDR_LEN - IPV4_HDR_LEN, HIP_I1, sender,
			   O.dst_hit) != 0 ||
	    hip_build_param(&b, HIP_PARAM_DH_GROUP_LIST, groups, sizeof(groups)) != 0 ||
	    (critical && hip_build_param(&b, UNKNOWN_CRITICAL, crit, sizeof(crit)) != 0))
		die(1, "cannot build the I1");
	len = hip_build_finish(&b);
	if (len < 0)
		die(1, "cannot build the I1");
	put_ipv4(ip, IPPROTO_HIP_, src, IPV4_HDR_LEN + (size_t)len, (uint16_t)xorshift(rnd));
	hip_checksum_set_ipv4(hip, (size_t)len, ip + 12, ip + 16);
	return ETH_HDR_LEN + IPV4_HDR_LEN + (size_t)len;
}

/* ESP of len bytes at esp: a random unknown SPI and sequence number, then
 * random bytes that look like ciphertext. */
static void
put_esp(uint8_t *esp, size_t len, uint64_t *rnd)
{
	uint64_t r = xorshift(rnd);
	uint32_t spi = htonl(SPI_FLOOD_BASE | ((uint32_t)r & 0x3fffffff)), seq = htonl((uint32_t)(r >> 32) | 1);

	memcpy(esp, &spi, 4);
	memcpy(esp + 4, &seq, 4);
	for (size_t i = ESP_HDR_LEN; i < len; i++)
		esp[i] = (uint8_t)xorshift(rnd);
}

static size_t
build_esp(uint8_t *f, uint64_t *rnd)
{
	uint8_t *ip = f + ETH_HDR_LEN;

	put_eth(f, ETHERTYPE_IP, O.src_mac);
	put_esp(ip + IPV4_HDR_LEN, O.size - ETH_HDR_LEN - IPV4_HDR_LEN, rnd);
	put_ipv4(ip, IPPROTO_ESP_, pick_src(xorshift(rnd)), O.size - ETH_HDR_LEN,
		 (uint16_t)xorshift(rnd));
	return O.size;
}

/* IPv6 first fragment of an ESP packet (esp6-frag); returns the frame length. */
static size_t
build_esp6_frag(uint8_t *f, uint64_t *rnd)
{
	static const uint8_t src_prefix[6] = { 0x20, 0x01, 0x00, 0x02, 0x00, 0x00 };  /* 2001:2::/48 */
	uint8_t *ip = f + ETH_HDR_LEN, *fh = ip + IPV6_HDR_LEN, *esp = fh + IPV6_FRAG_HDR_LEN;
	size_t data = (O.size - ETH_HDR_LEN - IPV6_HDR_LEN - IPV6_FRAG_HDR_LEN) / FRAG_UNIT * FRAG_UNIT;
	size_t plen = IPV6_FRAG_HDR_LEN + data;
	uint64_t a = xorshift(rnd), b = xorshift(rnd);
	uint32_t id = (uint32_t)xorshift(rnd);

	put_eth(f, ETHERTYPE_IPV6, O.src_mac);
	memset(ip, 0, IPV6_HDR_LEN + IPV6_FRAG_HDR_LEN);
	ip[0] = 0x60;                         /* version 6 */
	ip[4] = (uint8_t)(plen >> 8);
	ip[5] = (uint8_t)plen;
	ip[6] = IPPROTO_FRAGMENT_;
	ip[7] = 64;                           /* hop limit */
	memcpy(ip + 8, src_prefix, sizeof(src_prefix));
	memcpy(ip + 14, &a, 2);
	memcpy(ip + 16, &b, 8);
	memcpy(ip + 24, &O.dst6, 16);
	fh[0] = IPPROTO_ESP_;
	fh[3] = 1;                            /* offset 0, M (more fragments) set */
	memcpy(fh + 4, &id, 4);
	put_esp(esp, data, rnd);
	return ETH_HDR_LEN + IPV6_HDR_LEN + plen;
}

static size_t
build_arp(uint8_t *f, uint64_t *rnd)
{
	uint8_t mac[6], *a = f + ETH_HDR_LEN;
	uint64_t r = xorshift(rnd);
	uint32_t sip = pick_src(xorshift(rnd));

	memcpy(mac, &r, 6);
	mac[0] = (uint8_t)((mac[0] & 0xfc) | 0x02);   /* unicast, locally administered */
	put_eth(f, ETHERTYPE_ARP, mac);
	memset(a, 0, FRAME_MIN - ETH_HDR_LEN);   /* the 28-byte ARP body, zero padded */
	a[1] = 1;                 /* hardware type Ethernet */
	a[2] = 0x08;              /* protocol IPv4 */
	a[4] = 6;
	a[5] = 4;
	a[7] = 1;                 /* request */
	memcpy(a + 8, mac, 6);
	memcpy(a + 14, &sip, 4);
	memcpy(a + 24, &O.dst, 4);
	return FRAME_MIN;
}

static void
parse_mac(const char *opt, const char *s, uint8_t m[6])
{
	unsigned v[6];
	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		die(2, opt);
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
}

static void
parse_hit(const char *opt, const char *s, uint8_t h[16])
{
	if (inet_pton(AF_INET6, s, h) != 1)
		die(2, opt);
}

static void
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "iface", 1, 0, 'i' }, { "mode", 1, 0, 'm' }, { "src-mac", 1, 0, 'S' },
		{ "dst-mac", 1, 0, 'D' }, { "src", 1, 0, 's' }, { "src-net", 1, 0, 'n' },
		{ "dst", 1, 0, 'd' }, { "dst6", 1, 0, '6' }, { "hit", 1, 0, 'h' }, { "dst-hit", 1, 0, 'H' },
		{ "size", 1, 0, 'z' }, { "variants", 1, 0, 'v' }, { "rate", 1, 0, 'r' },
		{ "duration", 1, 0, 't' }, { "count", 1, 0, 'c' }, { 0, 0, 0, 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i': O.iface = optarg; break;
		case 'm': O.mode = optarg; break;
		case 'S': parse_mac("--src-mac: aa:bb:cc:dd:ee:ff", optarg, O.src_mac); O.have_src_mac = true; break;
		case 'D': parse_mac("--dst-mac: aa:bb:cc:dd:ee:ff", optarg, O.dst_mac); O.have_dst_mac = true; break;
		case 's':
			if (inet_pton(AF_INET, optarg, &O.src) != 1)
				die(2, "--src: an IPv4 address");
			O.have_src = true;
			break;
		case 'n': {
			char net[32];
			unsigned len;
			struct in_addr a;
			if (sscanf(optarg, "%31[0-9.]/%u", net, &len) != 2 || len < 1 || len > 32 ||
			    inet_pton(AF_INET, net, &a) != 1)
				die(2, "--src-net: A.B.C.D/LEN");
			O.src_mask = len == 32 ? 0xffffffffu : ~(0xffffffffu >> len);
			O.src_net = ntohl(a.s_addr) & O.src_mask;
			break;
		}
		case 'd':
			if (inet_pton(AF_INET, optarg, &O.dst) != 1)
				die(2, "--dst: an IPv4 address");
			O.have_dst = true;
			break;
		case '6':
			if (inet_pton(AF_INET6, optarg, &O.dst6) != 1)
				die(2, "--dst6: an IPv6 address");
			O.have_dst6 = true;
			break;
		case 'h': parse_hit("--hit: a HIT (IPv6 form)", optarg, O.hit); O.have_hit = true; break;
		case 'H': parse_hit("--dst-hit: a HIT (IPv6 form)", optarg, O.dst_hit); O.have_dst_hit = true; break;
		case 'z': O.size = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'v': O.variants = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'r': O.rate = strtod(optarg, NULL); break;
		case 't': O.duration = strtod(optarg, NULL); break;
		case 'c': O.count = strtoull(optarg, NULL, 0); break;
		default: die(2, "usage: see the header of perf/floodgen.c");
		}
	}
	if (O.iface == NULL || O.mode == NULL || !O.have_src_mac || !O.have_dst_mac)
		die(2, "needs --iface, --mode, --src-mac and --dst-mac");
	if (strcmp(O.mode, "esp6-frag") == 0) {
		if (!O.have_dst6)
			die(2, "esp6-frag needs --dst6");
	} else if (!O.have_dst) {
		die(2, "needs --dst");
	} else if (!O.have_src && O.src_mask == 0) {
		die(2, "needs --src or --src-net");
	}
	if (O.duration <= 0 && O.count == 0)
		die(2, "needs --duration or --count");
	if (O.size < FRAME_MIN || O.size > FRAME_MAX)
		die(2, "--size: 60..1514 bytes");
	if (strcmp(O.mode, "esp6-frag") == 0 &&
	    O.size < ETH_HDR_LEN + IPV6_HDR_LEN + IPV6_FRAG_HDR_LEN + ESP_HDR_LEN)
		die(2, "--size: esp6-frag needs 70 bytes or more");
	if (O.variants == 0 || O.variants > VARIANTS_MAX)
		die(2, "--variants: 1..65536");
	if ((strcmp(O.mode, "i1") == 0 || strcmp(O.mode, "critical") == 0) && !O.have_dst_hit)
		die(2, "i1 and critical need --dst-hit");
	if (strcmp(O.mode, "critical") == 0 && !O.have_hit)
		die(2, "critical needs --hit");
}

int
main(int argc, char **argv)
{
	static uint8_t (*frames)[FRAME_MAX];
	static size_t *lens;
	struct mmsghdr msgs[BURST];
	struct iovec iov[BURST];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	uint64_t rnd = 0x9e3779b97f4a7c15ull ^ mono_ns(), sent = 0, errors = 0, t0, end, now;
	int fd, one = 1, sndbuf = 4 << 20;
	unsigned next = 0;
	double secs;

	parse_args(argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	frames = calloc(O.variants, sizeof(*frames));
	lens = calloc(O.variants, sizeof(*lens));
	if (frames == NULL || lens == NULL)
		die(1, "out of memory");
	for (unsigned i = 0; i < O.variants; i++) {
		if (strcmp(O.mode, "esp") == 0)
			lens[i] = build_esp(frames[i], &rnd);
		else if (strcmp(O.mode, "esp6-frag") == 0)
			lens[i] = build_esp6_frag(frames[i], &rnd);
		else if (strcmp(O.mode, "arp") == 0)
			lens[i] = build_arp(frames[i], &rnd);
		else if (strcmp(O.mode, "i1") == 0)
			lens[i] = build_i1(frames[i], &rnd, false);
		else if (strcmp(O.mode, "critical") == 0)
			lens[i] = build_i1(frames[i], &rnd, true);
		else
			die(2, "--mode: esp, esp6-frag, arp, i1 or critical");
		if (lens[i] < FRAME_MIN)
			lens[i] = FRAME_MIN;          /* zero padding from calloc */
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0)
		die(1, "packet socket (root?)");
	sll.sll_ifindex = (int)if_nametoindex(O.iface);
	if (sll.sll_ifindex == 0)
		die(1, "--iface: no such interface");
	/* bypass the qdisc: no copy to the interface's own packet taps, so the
	 * gateway that owns that interface does not see the flood */
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) != 0)
		die(1, "PACKET_QDISC_BYPASS");
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0)
		die(1, "bind to --iface");

	t0 = mono_ns();
	end = O.duration > 0 ? t0 + (uint64_t)(O.duration * 1e9) : UINT64_MAX;
	while (!stop_flag && (now = mono_ns()) < end && (O.count == 0 || sent < O.count)) {
		unsigned burst = BURST;
		int n;

		if (O.rate > 0) {
			double due = (now - t0) / 1e9 * O.rate - (double)sent;
			if (due < 1) {
				struct timespec ts = { 0, 50000 };
				nanosleep(&ts, NULL);
				continue;
			}
			burst = due < BURST ? (unsigned)due : BURST;
		}
		if (O.count != 0 && O.count - sent < burst)
			burst = (unsigned)(O.count - sent);
		for (unsigned i = 0; i < burst; i++) {
			iov[i] = (struct iovec){ frames[next], lens[next] };
			msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
			next = next + 1 == O.variants ? 0 : next + 1;
		}
		n = sendmmsg(fd, msgs, burst, 0);
		if (n > 0)
			sent += (unsigned)n;
		else if (errno != EINTR)
			errors++;
	}
	secs = (mono_ns() - t0) / 1e9;
	printf("{\"mode\": \"%s\", \"sent\": %" PRIu64 ", \"send_errors\": %" PRIu64
	       ", \"seconds\": %.3f, \"sent_per_s\": %.0f, \"rate_asked\": %.0f}\n",
	       O.mode, sent, errors, secs, secs > 0 ? sent / secs : 0.0, O.rate);
	close(fd);
	free(frames);
	free(lens);
	return 0;
}
