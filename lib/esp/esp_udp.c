/* SPDX-License-Identifier: BSD-3-Clause
 * UDP-encapsulated ESP, inbound (RFC 3948 section 3.5 step 1): what a UDP
 * datagram to the HIP NAT traversal port carries (ESP, a HIP control packet
 * behind the non-ESP marker, a NAT-keepalive: RFC 3948 2.1 / 2.3, RFC 5770),
 * and the UDP header taken off an ESP one so that esp_inbound_burst sees
 * plain ESP. The outbound side is esp_out.c (the path's UDP header).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "esp_internal.h"
#include "esp_udp_fast.h"

/* The UDP checksum of the datagram at u (RFC 768): IPv4 0 = none (RFC 3948
 * 2.1 asks senders for 0; a non-zero one is verified, as any UDP receiver
 * does); IPv6 0 is not allowed (RFC 8200 8.1: receivers discard it; the RFC
 * 6936 exception needs a per-port configuration we do not offer). The PMD's
 * verdict stands in for our own when it gave one. */
static bool
udp_cksum_ok(const struct rte_mbuf *m, const uint8_t *l3, const struct rte_udp_hdr *u,
	     uint8_t family)
{
	uint64_t l4 = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;

	if (u->dgram_cksum == 0)
		return family == 4;
	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return true;
	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return false;
	if (family == 4)
		return rte_ipv4_udptcp_cksum_verify((const struct rte_ipv4_hdr *)l3, u) == 0;
	return rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)l3, u) == 0;
}

/* The n-byte IP header at l3 (n a constant) GW_UDP_HDR_LEN bytes up, over
 * the UDP header: through registers (memmove of a constant size stays a
 * library call). */
static __rte_always_inline void
hdr_up(uint8_t *l3, const size_t n)
{
	uint8_t h[GW_IPV6_HDR_LEN];

	memcpy(h, l3, n);
	memcpy(l3 + GW_UDP_HDR_LEN, h, n);
}

enum esp_udp_kind
esp_udp_demux(struct rte_mbuf *m, uint32_t l3_off, uint32_t hl, uint32_t len,
	      uint16_t *sport)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	const struct rte_udp_hdr *u;
	uint32_t plen, spi;
	uint8_t family;

	if (len < hl || len - hl < GW_UDP_HDR_LEN || l3_off + len > rte_pktmbuf_data_len(m))
		return ESP_UDP_BAD;
	family = gw_ip_version(l3);
	/* the checksum functions read the lengths from the IP header: they must
	 * be the ones the caller checked */
	if (family == 4 ? hl != gw_ipv4_hdr_bytes(l3) ||
			  rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)l3)->total_length) != len :
	    family != 6 || hl != GW_IPV6_HDR_LEN ||
	    rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)l3)->payload_len) + hl != len)
		return ESP_UDP_BAD;
	u = (const struct rte_udp_hdr *)(l3 + hl);
	/* the UDP length covers the IP payload exactly (the IP length was
	 * checked and trimmed to by the caller) */
	if (rte_be_to_cpu_16(u->dgram_len) != len - hl)
		return ESP_UDP_BAD;
	if (!udp_cksum_ok(m, l3, u, family))
		return ESP_UDP_CKSUM;
	*sport = rte_be_to_cpu_16(u->src_port);
	plen = len - hl - GW_UDP_HDR_LEN;
	if (plen == GW_NAT_KEEPALIVE_LEN && l3[hl + GW_UDP_HDR_LEN] == GW_NAT_KEEPALIVE_BYTE)
		return ESP_UDP_KEEPALIVE;
	if (plen < GW_UDP_NON_ESP_MARKER_LEN)
		return ESP_UDP_BAD;
	memcpy(&spi, l3 + hl + GW_UDP_HDR_LEN, 4);
	if (spi == 0)
		return ESP_UDP_HIP;           /* non-ESP marker: a HIP control packet follows */
	if (plen < GW_ESP_HDR_LEN)
		return ESP_UDP_BAD;
	/* ESP: the IP header moves up over the UDP header, now carrying ESP */
	if (family == 4) {
		esp_udp_v4_up(m, l3_off, l3, hl, len);
	} else {
		uint16_t new_len = rte_cpu_to_be_16((uint16_t)(len - GW_UDP_HDR_LEN - hl));
		struct rte_ipv6_hdr *ip;

		hdr_up(l3, GW_IPV6_HDR_LEN);
		rte_pktmbuf_adj(m, (uint16_t)(l3_off + GW_UDP_HDR_LEN));
		ip = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
		ip->payload_len = new_len;
		ip->proto = GW_IPPROTO_ESP;
	}
	return ESP_UDP_ESP;
}
