/* SPDX-License-Identifier: BSD-3-Clause
 * Per-mbuf metadata carried between workers and the control lcore through
 * rte_ring. Lives in an mbuf dynamic field.
 */
#ifndef HIPGW_META_H
#define HIPGW_META_H

#include <stdint.h>
#include <string.h>
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
	GW_PUNT_TOO_BIG_IN,    /* decapsulated packet (no L2) over inner port `port`'s mtu, DF or
	                        * IPv6: ICMP error back through the tunnel, announcing mtu */
	GW_PUNT_FRAGMENT_IN,   /* decapsulated IPv4 (no L2) without DF over `port`'s mtu, TTL
	                        * decremented: fragment to mtu, send each to its destination */
	GW_PUNT_UNKNOWN_SPI,   /* ESP packet (IP header first) whose SPI the SAD does not know,
	                        * from a locator of peer index `slot` (gw_peerloc.h): the peer
	                        * may need a new BEX; the packet itself is dropped (no_sa) */
	GW_PUNT_MBOX_HIP,      /* middlebox: a HIP packet (Ethernet frame, unchanged) received on
	                        * `port` of a pair, its IP header at byte `l3_off`: to the
	                        * tracker, then out of the other port or dropped */
	GW_PUNT_DHCP,          /* an `address = dhcp` port: IPv4 UDP 67 -> 68 (a DHCP server's
	                        * reply, RFC 2131 4.1) to any address (Ethernet frame): to the
	                        * port's DHCP client */
	/* control -> worker */
	GW_CTRL_TX,            /* complete Ethernet frame: send on port as is */
	GW_CTRL_OUTBOUND,      /* Ethernet frame as received on inner port `port`: run the outbound path */
	GW_CTRL_L2_OUT,        /* frame of a bridge port, staged for out slot `slot`: EtherIP and
	                        * ESP through that slot's SA (no MAC table, no flooding) */
	/* worker -> worker (inbound single writer) and --slow-path round trips */
	GW_HANDOFF,            /* ESP packet (IP header first) of SPI lk.spi received on outer port
	                        * `port` by a worker that does not own its SA: the owner runs it */
	GW_SLOW_LOOKUP,        /* --slow-path: frame as received on `port`; the control lcore
	                        * looks its SA up, stamps lk and hands it back to a worker */
};

/* lk.stamp: what the control lcore found for a GW_SLOW_LOOKUP frame */
enum gw_meta_stamp {
	GW_STAMP_NONE = 0,     /* not looked up (not IP / ESP, fragment...): the worker looks up itself */
	GW_STAMP_OUT,          /* lk.act = enum gw_spd_action, slot, lk.sa = the slot's out SA or NULL */
	GW_STAMP_IN,           /* lk.sa = the in SA of the packet's SPI, or NULL (no SA) */
	GW_STAMP_MBOX,         /* middlebox: lk.sa = the flow (struct gw_mbox_flow) of the ESP
	                        * packet's (destination, SPI), or NULL (no flow) */
};

struct gw_meta {
	uint8_t kind;          /* enum gw_meta_kind */
	uint8_t port;          /* gateway port index (not DPDK port id) */
	uint16_t mtu;          /* GW_PUNT_TOO_BIG / GW_PUNT_FRAGMENT (and _IN): bytes of inner packet
	                        * that fit */
	uint8_t family;        /* GW_PUNT_NEIGH: 4 or 6 */
	uint8_t l3_off;        /* GW_PUNT_MBOX_HIP: bytes before the IP header (Ethernet, tags) */
	uint16_t udp_sport;    /* GW_PUNT_LOCAL: 0, or a HIP control packet that came over UDP
	                        * (RFC 5770) from this source port (host order) and the IP
	                        * source address: frame unchanged (Ethernet, IP, UDP, the
	                        * 4-byte zero non-ESP marker, HIP); answers go back there.
	                        * ESP from the outer RX on: its UDP source port when it
	                        * came in UDP, 0 for plain ESP (NAT rebinding, gw_nat.c) */
	uint16_t slot;         /* GW_PUNT_NO_SA, GW_CTRL_L2_OUT, GW_STAMP_OUT: SPD out slot;
	                        * GW_PUNT_UNKNOWN_SPI:
	                        * peer index */
	union {
		uint8_t ip[16];        /* GW_PUNT_NEIGH: next hop address */
		struct {
			uint8_t sa[sizeof(void *)];  /* struct gw_sa * (gw_meta_sa); bytes keep
			                              * the field's alignment at 2 */
			uint32_t spi;        /* GW_HANDOFF: SPI, host order */
			uint8_t stamp;       /* enum gw_meta_stamp */
			uint8_t act;         /* GW_STAMP_OUT: enum gw_spd_action */
		} lk;
	};
};

extern int gw_meta_offset;

/* Register the dynamic field; call once after rte_eal_init. Returns 0 or -1. */
int gw_meta_register(void);

static inline struct gw_meta *
gw_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, gw_meta_offset, struct gw_meta *);
}

/* The SA pointer of lk (slow path stamp). */
static inline void *
gw_meta_sa(const struct gw_meta *md)
{
	void *p;
	memcpy(&p, md->lk.sa, sizeof(p));
	return p;
}

static inline void
gw_meta_set_sa(struct gw_meta *md, void *p)
{
	memcpy(md->lk.sa, &p, sizeof(p));
}

#endif
