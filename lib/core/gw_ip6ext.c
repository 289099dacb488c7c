/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 extension header chain of packets for the gateway (RFC 8200 section 4).
 */
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ip.h>

#include "gw_ip6ext.h"

/* Options of a Hop-by-Hop or Destination Options header h of hl bytes
 * (RFC 8200 4.2): type, length, data; Pad1 is one byte. */
static enum gw_drop
options_check(const uint8_t *h, uint32_t hl)
{
	uint32_t o = 2;

	while (o < hl) {
		uint8_t type = h[o];

		if (type == GW_IPV6_OPT_PAD1) {
			o++;
			continue;
		}
		if (o + 2 > hl || o + 2 + h[o + 1] > hl)
			return GW_DROP_MALFORMED;
		/* PadN and every option the gateway does not act on (Router Alert,
		 * Tunnel Encapsulation Limit ...) have action bits 00: skipped */
		if ((type & GW_IPV6_OPT_ACTION_MASK) != 0)
			return GW_DROP_POLICY;
		o += 2 + h[o + 1];
	}
	return GW_DROP_NONE;
}

enum gw_drop
gw_ip6ext_walk(const uint8_t *ip6, uint32_t tl, struct gw_ip6ext *x)
{
	uint32_t off = GW_IPV6_HDR_LEN;
	uint8_t nh = ((const struct rte_ipv6_hdr *)ip6)->proto;

	for (unsigned n = 0; gw_ip6ext_is(nh); n++) {
		const uint8_t *h = ip6 + off;
		uint32_t hl;

		if (n == GW_IP6EXT_MAX_HDRS || off + GW_IPV6_EXT_UNIT > tl)
			return GW_DROP_MALFORMED;
		if (nh == GW_IPPROTO_HOPOPTS && n != 0)
			return GW_DROP_MALFORMED;       /* RFC 8200 4.1: right after the fixed header */
		if (nh == GW_IPPROTO_FRAGMENT) {
			uint16_t fo;

			memcpy(&fo, h + 2, sizeof(fo));
			if (rte_be_to_cpu_16(fo) & (GW_IPV6_FRAG_OFFSET_MASK | GW_IPV6_FRAG_M))
				break;                  /* a real fragment: reassembly's business */
			hl = GW_IPV6_FRAG_HDR_LEN;
		} else {
			hl = (h[1] + 1u) * GW_IPV6_EXT_UNIT;
		}
		if (off + hl > tl || off + hl - GW_IPV6_HDR_LEN > GW_IP6EXT_MAX_BYTES)
			return GW_DROP_MALFORMED;
		if (nh == GW_IPPROTO_HOPOPTS || nh == GW_IPPROTO_DSTOPTS) {
			enum gw_drop r = options_check(h, hl);
			if (r != GW_DROP_NONE)
				return r;
		}
		if (nh == GW_IPPROTO_ROUTING && h[GW_IPV6_RH_SEGLEFT_OFF] != 0)
			return GW_DROP_POLICY;
		nh = h[0];
		off += hl;
	}
	x->len = off - GW_IPV6_HDR_LEN;
	x->proto = nh;
	return GW_DROP_NONE;
}

enum gw_drop
gw_ip6ext_remove(struct rte_mbuf *m, uint32_t l3_off, uint32_t tl, uint8_t *proto)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + l3_off);
	struct gw_ip6ext x;
	enum gw_drop r = gw_ip6ext_walk((const uint8_t *)ip, tl, &x);

	if (r != GW_DROP_NONE)
		return r;
	*proto = x.proto;
	if (x.len == 0)
		return GW_DROP_NONE;
	ip->proto = x.proto;
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->payload_len) - x.len));
	memmove(p + x.len, p, l3_off + GW_IPV6_HDR_LEN);
	rte_pktmbuf_adj(m, (uint16_t)x.len);
	return GW_DROP_NONE;
}
