/* SPDX-License-Identifier: BSD-3-Clause
 * The IPv6 extension header chain (RFC 8200 section 4) of a packet addressed
 * to the gateway: walked to its upper-layer header (ESP, RFC 4303 3.1.2; HIP;
 * ICMPv6) within fixed bounds, and removed, so that what follows (ESP inbound,
 * the control lcore's ND, ICMPv6 and HIP code) finds the upper-layer header
 * right after the 40-byte fixed header. Shared by the workers (lib/dp) and the
 * control lcore (lib/ctrl); used only when the fixed header's next header is
 * an extension header, so packets without any pay one compare.
 */
#ifndef HIPGW_IP6EXT_H
#define HIPGW_IP6EXT_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_mbuf.h>
#include "gw_drop.h"
#include "hipgw_wire.h"

#define GW_IP6EXT_MAX_HDRS  4     /* extension headers in one chain at most */
#define GW_IP6EXT_MAX_BYTES 256   /* bytes of extension headers at most */

/* True when next header value nh is an extension header the walk handles:
 * Hop-by-Hop, Routing, Fragment, Destination Options. */
static inline bool
gw_ip6ext_is(uint8_t nh)
{
	/* one test of a 64-bit set: all four are below 64 */
	const uint64_t set = 1ull << GW_IPPROTO_HOPOPTS | 1ull << GW_IPPROTO_ROUTING |
			     1ull << GW_IPPROTO_FRAGMENT | 1ull << GW_IPPROTO_DSTOPTS;
	return nh < 64 && ((set >> nh) & 1);
}

struct gw_ip6ext {
	uint32_t len;       /* bytes of extension headers before the terminal header */
	uint8_t proto;      /* the terminal header: the upper layer, or GW_IPPROTO_FRAGMENT
	                     * for the Fragment header of a real (not atomic) fragment */
};

/* Walk the chain of the IPv6 packet at ip6 (tl bytes: the fixed header's 40
 * plus its Payload Length, all readable) as its destination does (RFC 8200
 * 4.1-4.6): Hop-by-Hop only first; in Hop-by-Hop and Destination Options every
 * option's length must fit and an unrecognised option (all but the padding)
 * whose action bits (RFC 8200 4.2) are not 00 discards the packet; a Routing
 * header with Segments Left > 0 discards it (the gateway is the destination,
 * it forwards no source-routed packet; RFC 8200 4.4); an atomic fragment
 * (offset 0, M 0; RFC 6946) is a whole packet and its Fragment header is
 * walked over; a real fragment ends the walk at its Fragment header. No ICMP
 * Parameter Problem is sent (the outer side gets no answers in clear but echo,
 * ND and HIP). Reads nothing past ip6 + tl.
 * Returns GW_DROP_NONE with *x set; GW_DROP_MALFORMED for a header or option
 * past tl, more than GW_IP6EXT_MAX_HDRS headers or GW_IP6EXT_MAX_BYTES bytes,
 * Hop-by-Hop not first; GW_DROP_POLICY for the discards above. */
enum gw_drop gw_ip6ext_walk(const uint8_t *ip6, uint32_t tl, struct gw_ip6ext *x);

/* Walk (gw_ip6ext_walk) the chain of the IPv6 packet at byte l3_off of m's
 * first segment (tl bytes there) and remove it: the bytes before the fixed
 * header (l3_off: the Ethernet header, or 0) and the fixed header move up over
 * the extension headers, whose Next Header becomes *proto and whose Payload
 * Length loses their bytes (RFC 8200 4: upper-layer checksums do not cover the
 * extension headers, ESP's ICV not the outer header). A real fragment keeps its
 * Fragment header, now right after the fixed header, as rte_ip_frag expects.
 * Returns GW_DROP_NONE (*proto: the terminal header) or the walk's reason, m
 * untouched. */
enum gw_drop gw_ip6ext_remove(struct rte_mbuf *m, uint32_t l3_off, uint32_t tl, uint8_t *proto);

#endif
