/* SPDX-License-Identifier: BSD-3-Clause
 * The wire side of path MTU discovery for our ESP (RFC 4301 section 8.2):
 * ICMP "fragmentation needed" (RFC 792, RFC 1191 section 4) and ICMPv6
 * Packet Too Big (RFC 4443 section 3.2, RFC 8201) messages that quote one of
 * the ESP packets this gateway sent. Plain byte parsing, no state: the
 * control lcore matches the result against its out SAs (gw_icmp.c).
 */
#ifndef HIPGW_PMTU_ICMP_H
#define HIPGW_PMTU_ICMP_H

#include <stdbool.h>
#include <stdint.h>
#include "gw_types.h"
#include "gw_stats.h"

/* What an ICMP error says about one of our ESP packets. */
struct gw_icmp_ptb {
	struct gw_addr to;             /* the ICMP's own destination (should be ours) */
	struct gw_addr local, remote;  /* the quoted packet's source and destination */
	uint32_t spi, seq;             /* its ESP header, host order (seq: low 32 bits) */
	uint32_t mtu;                  /* the next-hop MTU reported, bytes */
	uint32_t quoted_len;           /* the quoted packet's total length, bytes */
};

/* True when the IP packet at ip (len bytes, no L2 header) is ICMP type 3 code 4
 * or ICMPv6 type 2 (only type and code looked at; nothing else is checked). */
bool gw_icmp_is_ptb(const uint8_t *ip, uint32_t len);

/* Parse and check such a packet strictly: outer header (IPv4 header checksum,
 * no fragment, ICMP directly after it), lengths, the ICMP / ICMPv6 checksum,
 * a quote holding a whole IPv4/IPv6 header and the 8-byte ESP header, the
 * quoted header as we send ESP (protocol 50, no extension header, IPv4: DF
 * set and no fragment; IPv6 also the first fragment of a bridge SA's ESP: a
 * Fragment header of offset 0 with next header 50, the ESP header after
 * it, RFC 8200 4.5), and the MTU: not 0 and below the quoted packet's
 * length; for IPv6 at least 1280 (RFC 8201 section 4: such a message is
 * discarded). IPv4 MTUs below 576 pass: the caller raises them to 576.
 * Returns 0 with *out filled, or -1 with *why GW_PMTU_REFUSED_MALFORMED or
 * GW_PMTU_REFUSED_MTU. Reads only ip[0 .. len). */
int gw_icmp_ptb_parse(const uint8_t *ip, uint32_t len, struct gw_icmp_ptb *out,
		      enum gw_pmtu_event *why);

#endif
