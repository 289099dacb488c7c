/* SPDX-License-Identifier: BSD-3-Clause
 * Per-mbuf metadata carried between workers and the control lcore through
 * rte_ring (DESIGN.md "rings"). Lives in an mbuf dynamic field.
 */
#ifndef HIPGW_META_H
#define HIPGW_META_H

#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

enum gw_meta_kind {
	/* worker -> control */
	GW_PUNT_LOCAL = 1,     /* ARP, ND, ICMP, HIP...: for the gateway itself (Ethernet frame) */
	GW_PUNT_NEIGH,         /* ready frame whose next hop (ip) is unresolved on port */
	GW_PUNT_TTL,           /* inner TTL expired: send ICMP time exceeded (Ethernet frame) */
	GW_PUNT_TOO_BIG,       /* needs ICMP frag-needed / packet-too-big with mtu (Ethernet frame) */
	GW_PUNT_FRAGMENT,      /* IPv4 without DF, too big: fragment to mtu, then re-inject */
	GW_PUNT_NO_SA,         /* out slot `slot` has no SA yet (HIP peer before BEX): stage it */
	GW_PUNT_BEET,          /* decrypted BEET packet (RFC 7402 3.1): IPv6 HIT -> our HIT, no L2 */
	/* control -> worker */
	GW_CTRL_TX,            /* complete Ethernet frame: send on port as is */
	GW_CTRL_OUTBOUND,      /* Ethernet frame as received on inner port `port`: run the outbound path */
};

struct gw_meta {
	uint8_t kind;          /* enum gw_meta_kind */
	uint8_t port;          /* gateway port index (not DPDK port id) */
	uint16_t mtu;          /* GW_PUNT_TOO_BIG / GW_PUNT_FRAGMENT: bytes of inner packet that fit */
	uint8_t family;        /* GW_PUNT_NEIGH: 4 or 6 */
	uint8_t pad;
	uint16_t slot;         /* GW_PUNT_NO_SA: SPD out slot */
	uint8_t ip[16];        /* GW_PUNT_NEIGH: next hop address */
};

extern int gw_meta_offset;

/* Register the dynamic field; call once after rte_eal_init. Returns 0 or -1. */
int gw_meta_register(void);

static inline struct gw_meta *
gw_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, gw_meta_offset, struct gw_meta *);
}

#endif
