/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness for lib/esp/esp_udp.c, the demultiplexing of UDP to the
 * HIP NAT traversal port, and its inline common case (esp_udp_fast.h, which
 * must agree with it on every input: verdict, source port and bytes) (RFC 3948 ESP in UDP, NAT-keepalives, RFC 5770's
 * non-ESP marker). Input: one flags byte, then an IP packet (IPv4 or IPv6
 * header, UDP header, payload). Flags: bit 0 IPv6 (else IPv4), bit 1 the IP
 * length field made to fit the input (else taken as it is, cut to the
 * input), bit 2 the UDP length made right, bit 3 the UDP checksum computed
 * (else as it is), bit 4 an Ethernet-sized gap before the IP header; the
 * IPv4 header checksum is always made right, as lib/dp checks it first. The
 * verdict must hold against the bytes: a keepalive is one byte 0xFF, HIP has
 * its 4-byte zero marker, ESP comes back as the same IP header (length,
 * protocol 50 and IPv4 checksum rewritten) over the bytes after UDP; any
 * other verdict leaves the packet untouched; two runs on copies agree.
 */
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "esp.h"
#include "esp_udp_fast.h"
#include "fuzz_common.h"
#include "hipgw_wire.h"

#define GAP 14   /* bytes before the IP header with flag bit 4: an Ethernet header */

static struct rte_mempool *pool;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_esp_udp", "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
			"--no-telemetry", "--file-prefix", prefix, "-l", "0", "--log-level",
			"error", NULL };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "fuzz_esp_udp_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fz_udp", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL)
		abort();
	return 0;
}

/* The IP packet from the input with the flags' repairs: *hl its header bytes,
 * *len its IP length (never over n). */
static void
shape(uint8_t *ip, uint32_t n, uint8_t flags, uint32_t *hl, uint32_t *len)
{
	bool v6 = flags & 1;
	struct rte_udp_hdr *u;

	*hl = v6 ? GW_IPV6_HDR_LEN : (uint32_t)(ip[0] & 15) * 4;
	if (!v6 && *hl < GW_IPV4_HDR_LEN)
		*hl = GW_IPV4_HDR_LEN;
	ip[0] = (uint8_t)((v6 ? 0x60 : 0x40) | (v6 ? ip[0] & 15 : *hl / 4));
	if (v6) {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)ip;

		h->proto = GW_IPPROTO_UDP;
		if (flags & 2)
			h->payload_len = rte_cpu_to_be_16((uint16_t)(n - GW_IPV6_HDR_LEN));
		*len = RTE_MIN(n, GW_IPV6_HDR_LEN + (uint32_t)rte_be_to_cpu_16(h->payload_len));
	} else {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		h->next_proto_id = GW_IPPROTO_UDP;
		if (flags & 2)
			h->total_length = rte_cpu_to_be_16((uint16_t)n);
		*len = RTE_MIN(n, (uint32_t)rte_be_to_cpu_16(h->total_length));
	}
	if (!v6 && *hl <= n) {
		/* the caller verified the IPv4 header checksum (lib/dp outer_ip4) */
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	if (*len < *hl + GW_UDP_HDR_LEN)
		return;
	u = (struct rte_udp_hdr *)(ip + *hl);
	if (flags & 4)
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(*len - *hl));
	if ((flags & 8) && (flags & 2) && (flags & 4)) {
		u->dgram_cksum = 0;
		u->dgram_cksum = v6 ? rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)ip, u) :
				      rte_ipv4_udptcp_cksum((struct rte_ipv4_hdr *)ip, u);
	}
}

static struct rte_mbuf *
mk(const uint8_t *ip, uint32_t len, uint32_t gap)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	if (m == NULL)
		abort();
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(gap + len));
	if (p == NULL)
		abort();
	memset(p, 0xee, gap);
	memcpy(p + gap, ip, len);
	return m;
}

static void
check_esp(const uint8_t *ip, uint32_t hl, uint32_t len, const struct rte_mbuf *m)
{
	const uint8_t *o = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t spi;

	if (rte_pktmbuf_data_len(m) != len - GW_UDP_HDR_LEN || rte_pktmbuf_pkt_len(m) != len - 8)
		FUZZ_FAIL("ESP of %u bytes from %u", rte_pktmbuf_data_len(m), len);
	if (memcmp(o + hl, ip + hl + GW_UDP_HDR_LEN, len - hl - GW_UDP_HDR_LEN) != 0)
		FUZZ_FAIL("ESP bytes differ from the datagram's payload");
	memcpy(&spi, o + hl, 4);
	if (spi == 0 || len - hl - GW_UDP_HDR_LEN < GW_ESP_HDR_LEN)
		FUZZ_FAIL("ESP with SPI 0 or shorter than its header");
	if ((ip[0] >> 4) == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)o;

		if (h->next_proto_id != GW_IPPROTO_ESP ||
		    rte_be_to_cpu_16(h->total_length) != len - GW_UDP_HDR_LEN ||
		    rte_ipv4_cksum(h) != 0 || memcmp(o + 12, ip + 12, hl - 12) != 0 ||
		    memcmp(o, ip, 2) != 0 || memcmp(o + 4, ip + 4, 5) != 0)
			FUZZ_FAIL("IPv4 header not carried over");
	} else {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)o;

		if (h->proto != GW_IPPROTO_ESP ||
		    rte_be_to_cpu_16(h->payload_len) != len - GW_UDP_HDR_LEN - hl ||
		    memcmp(o, ip, 4) != 0 || memcmp(o + 7, ip + 7, 33) != 0)
			FUZZ_FAIL("IPv6 header not carried over");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t n, hl, len, gap, plen;
	enum esp_udp_kind k1, k2;
	struct rte_mbuf *m1, *m2;
	uint16_t s1 = 0, s2 = 0;
	uint8_t flags, *ip;

	if (size < 1 + GW_IPV4_HDR_LEN || size > 1 + 1500)
		return 0;
	flags = data[0];
	n = (uint32_t)size - 1;
	if ((flags & 1) && n < GW_IPV6_HDR_LEN)
		return 0;
	ip = fuzz_copy(data + 1, n);
	shape(ip, n, flags, &hl, &len);
	gap = (flags & 16) ? GAP : 0;
	if (hl > len) {
		free(ip);
		return 0;
	}
	m1 = mk(ip, len, gap);
	m2 = mk(ip, len, gap);
	k1 = esp_udp_demux(m1, gap, hl, len, &s1);
	k2 = esp_udp_demux_fast(m2, gap, hl, len, &s2);   /* the workers' inline case */
	if (k1 != k2 || s1 != s2)
		FUZZ_FAIL("esp_udp_demux and its fast case disagree: %d/%u and %d/%u", k1, s1, k2,
			  s2);
	if (rte_pktmbuf_data_len(m1) != rte_pktmbuf_data_len(m2) ||
	    memcmp(rte_pktmbuf_mtod(m1, uint8_t *), rte_pktmbuf_mtod(m2, uint8_t *),
		   rte_pktmbuf_data_len(m1)) != 0)
		FUZZ_FAIL("esp_udp_demux and its fast case left different packets");
	plen = len - hl >= GW_UDP_HDR_LEN ? len - hl - GW_UDP_HDR_LEN : 0;
	switch (k1) {
	case ESP_UDP_ESP:
		check_esp(ip, hl, len, m1);
		break;
	case ESP_UDP_KEEPALIVE:
		if (plen != 1 || ip[hl + GW_UDP_HDR_LEN] != 0xff)
			FUZZ_FAIL("keepalive of %u bytes", plen);
		break;
	case ESP_UDP_HIP:
		if (plen < 4 || !fuzz_all_zero(ip + hl + GW_UDP_HDR_LEN, 4))
			FUZZ_FAIL("HIP without the zero marker");
		break;
	case ESP_UDP_BAD:
	case ESP_UDP_CKSUM:
		break;
	default:
		FUZZ_FAIL("verdict %d", k1);
	}
	if (k1 != ESP_UDP_ESP &&
	    (rte_pktmbuf_data_len(m1) != gap + len ||
	     memcmp(rte_pktmbuf_mtod_offset(m1, uint8_t *, gap), ip, len) != 0))
		FUZZ_FAIL("verdict %d changed the packet", k1);
	if (k1 != ESP_UDP_BAD && k1 != ESP_UDP_CKSUM &&
	    s1 != (uint16_t)(ip[hl] << 8 | ip[hl + 1]))
		FUZZ_FAIL("source port %u", s1);
	rte_pktmbuf_free(m1);
	rte_pktmbuf_free(m2);
	free(ip);
	return 0;
}
