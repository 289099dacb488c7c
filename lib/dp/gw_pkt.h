/* SPDX-License-Identifier: BSD-3-Clause
 * Small packet helpers shared by the worker and control lcores: header
 * validation, TTL decrement (RFC 1812 5.3.1, incremental checksum RFC 1624),
 * TCP MSS clamping on SYNs; the forwarding checks once for both families
 * (gw_ip_ttl ... gw_ip_clamp_mss).
 */
#ifndef HIPGW_PKT_H
#define HIPGW_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_mbuf.h>
#include "gw_cksum.h"
#include "gw_ip6ext.h"
#include "hipgw_wire.h"

/* True when the IPv4 header of hl bytes (20..60) has a valid header checksum
 * (RFC 791; RFC 1071 sum). The usual 20-byte header is summed as five 32-bit
 * words, folded (rte_raw_cksum goes 16 bits at a time). */
static inline bool
gw_ipv4_cksum_ok(const struct rte_ipv4_hdr *ip, uint32_t hl)
{
	if (likely(hl == GW_IPV4_HDR_LEN))
		return gw_ipv4_sum20(ip) == 0xffff;
	return rte_raw_cksum(ip, hl) == 0xffff;
}

/* Validate the IPv4 header at the start of l3 (len bytes available). Returns the
 * IP total length (bytes) or 0 when malformed (version, IHL, lengths, checksum). */
static inline uint16_t
gw_ipv4_check(const struct rte_ipv4_hdr *ip, uint32_t len)
{
	uint32_t hl, tl;
	if (len < GW_IPV4_HDR_LEN || gw_ip_version((const uint8_t *)ip) != 4)
		return 0;
	hl = gw_ipv4_hdr_bytes((const uint8_t *)ip);
	tl = rte_be_to_cpu_16(ip->total_length);
	if (hl < GW_IPV4_HDR_LEN || tl < hl || tl > len)
		return 0;
	if (!gw_ipv4_cksum_ok(ip, hl))
		return 0;
	return (uint16_t)tl;
}

/* Validate an IPv6 header; returns the packet length (40 + payload) or 0. */
static inline uint32_t
gw_ipv6_check(const struct rte_ipv6_hdr *ip, uint32_t len)
{
	uint32_t tl;
	if (len < GW_IPV6_HDR_LEN || gw_ip_version((const uint8_t *)ip) != 6)
		return 0;
	tl = GW_IPV6_HDR_LEN + rte_be_to_cpu_16(ip->payload_len);
	return tl <= len ? tl : 0;
}

/* Decrement the TTL, updating the checksum incrementally (RFC 1624). */
static inline void
gw_ipv4_dec_ttl(struct rte_ipv4_hdr *ip)
{
	uint32_t c = ip->hdr_checksum;
	c += rte_cpu_to_be_16(0x0100);
	ip->hdr_checksum = (uint16_t)(c + (c >> 16));
	ip->time_to_live--;
}

/* Replace a 16-bit field in a checksummed header (RFC 1624 eqn. 3). */
static inline uint16_t
gw_cksum_replace16(uint16_t cksum, uint16_t old_be, uint16_t new_be)
{
	uint32_t s = (uint16_t)~cksum;
	s += (uint16_t)~old_be;
	s += new_be;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Clamp the MSS option of a TCP SYN (l4 points at the TCP header, l4_len bytes
 * available) to mss bytes. Returns true when the option was lowered. */
static inline bool
gw_tcp_clamp_mss(uint8_t *l4, uint32_t l4_len, uint16_t mss)
{
	struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)l4;
	uint32_t off, end;

	if (mss == 0 || l4_len < sizeof(*tcp) || !(tcp->tcp_flags & GW_TCP_FLAG_SYN))
		return false;
	end = (tcp->data_off >> 4) * 4u;
	if (end > l4_len)
		return false;
	for (off = sizeof(*tcp); off < end;) {
		uint8_t kind = l4[off];
		if (kind == GW_TCP_OPT_EOL)
			break;
		if (kind == GW_TCP_OPT_NOP) {
			off++;
			continue;
		}
		if (off + 1 >= end || l4[off + 1] < 2 || off + l4[off + 1] > end)
			break;
		if (kind == GW_TCP_OPT_MSS && l4[off + 1] == 4) {
			uint16_t old_be, new_be = rte_cpu_to_be_16(mss);
			memcpy(&old_be, &l4[off + 2], 2);
			if (rte_be_to_cpu_16(old_be) <= mss)
				return false;
			memcpy(&l4[off + 2], &new_be, 2);
			tcp->cksum = gw_cksum_replace16(tcp->cksum, old_be, new_be);
			return true;
		}
		off += l4[off + 1];
	}
	return false;
}

/* Clamp the MSS of a TCP SYN in the IPv6 packet ip (tl bytes, validated) to
 * mss bytes (0: off): its TCP header right after the fixed header, or at the
 * end of an extension header chain gw_ip6ext_walk accepts (an atomic fragment,
 * Destination Options; RFC 6946 asks atomic fragments be handled as whole
 * packets). A real fragment, or a chain the walk refuses, is left alone.
 * Returns true when the option was lowered. */
static inline bool
gw_ipv6_clamp_mss(struct rte_ipv6_hdr *ip, uint32_t tl, uint16_t mss)
{
	uint8_t *l3 = (uint8_t *)ip;
	struct gw_ip6ext x;

	if (ip->proto == GW_IPPROTO_TCP)
		return gw_tcp_clamp_mss(l3 + GW_IPV6_HDR_LEN, tl - GW_IPV6_HDR_LEN, mss);
	if (likely(!gw_ip6ext_is(ip->proto)) || mss == 0 ||
	    gw_ip6ext_walk(l3, tl, &x) != GW_DROP_NONE || x.proto != GW_IPPROTO_TCP)
		return false;
	return gw_tcp_clamp_mss(l3 + GW_IPV6_HDR_LEN + x.len, tl - GW_IPV6_HDR_LEN - x.len, mss);
}

/* The forwarding checks for both families, on the IP header at l3: family is
 * 4 or 6 and a constant where the worker inlines them (called inside its
 * family test), so their own test folds away. */

/* The source / destination address of the IP header at l3 (4 or 16 bytes,
 * network order). */
static __rte_always_inline uint8_t *
gw_ip_src(uint8_t *l3, uint8_t family)
{
	return family == 4 ? (uint8_t *)&((struct rte_ipv4_hdr *)l3)->src_addr
			   : ((struct rte_ipv6_hdr *)l3)->src_addr;
}

static __rte_always_inline uint8_t *
gw_ip_dst(uint8_t *l3, uint8_t family)
{
	return family == 4 ? (uint8_t *)&((struct rte_ipv4_hdr *)l3)->dst_addr
			   : ((struct rte_ipv6_hdr *)l3)->dst_addr;
}

/* The TTL (IPv4, RFC 791) or hop limit (IPv6, RFC 8200 section 3): a router
 * forwards a packet only when it is above 1 (RFC 1812 5.3.1). */
static __rte_always_inline uint8_t
gw_ip_ttl(const uint8_t *l3, uint8_t family)
{
	return family == 4 ? ((const struct rte_ipv4_hdr *)l3)->time_to_live
			   : ((const struct rte_ipv6_hdr *)l3)->hop_limits;
}

/* Decrement it; IPv4 with its header checksum updated (gw_ipv4_dec_ttl). */
static __rte_always_inline void
gw_ip_dec_ttl(uint8_t *l3, uint8_t family)
{
	if (family == 4)
		gw_ipv4_dec_ttl((struct rte_ipv4_hdr *)l3);
	else
		((struct rte_ipv6_hdr *)l3)->hop_limits--;
}

/* True when a packet too big for the next link may be fragmented on the way:
 * IPv4 without DF (RFC 791 2.3); never IPv6, which routers do not fragment
 * (RFC 8200 section 5): ICMP too big (RFC 1191, RFC 4443 3.2) instead. */
static __rte_always_inline bool
gw_ip_may_fragment(const uint8_t *l3, uint8_t family)
{
	return family == 4 &&
	       !(((const struct rte_ipv4_hdr *)l3)->fragment_offset & rte_cpu_to_be_16(GW_IPV4_DF));
}

/* Clamp the MSS of a TCP SYN in the IP packet at l3 (tl bytes, header
 * validated) to mss bytes (0: off). IPv4: the TCP header after the IP header
 * of a packet at fragment offset 0 (a first fragment carries it too). IPv6:
 * the TCP header right after the fixed header, or, with ip6_ext, also at the
 * end of an extension header chain (gw_ipv6_clamp_mss). */
static __rte_always_inline void
gw_ip_clamp_mss(uint8_t *l3, uint8_t family, uint32_t tl, uint16_t mss, const bool ip6_ext)
{
	if (family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		if (ip->next_proto_id == GW_IPPROTO_TCP &&
		    !(ip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_OFFSET_MASK))) {
			uint32_t hl = rte_ipv4_hdr_len(ip);
			gw_tcp_clamp_mss(l3 + hl, tl - hl, mss);
		}
	} else if (ip6_ext) {
		gw_ipv6_clamp_mss((struct rte_ipv6_hdr *)l3, tl, mss);
	} else if (((struct rte_ipv6_hdr *)l3)->proto == GW_IPPROTO_TCP) {
		gw_tcp_clamp_mss(l3 + GW_IPV6_HDR_LEN, tl - GW_IPV6_HDR_LEN, mss);
	}
}

#endif
