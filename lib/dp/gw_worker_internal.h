/* SPDX-License-Identifier: BSD-3-Clause
 * Worker lcore internals shared by its files: gw_worker.c (the main loop, TX
 * queues, rings to the control lcore), gw_outbound.c (inner RX -> SPD -> ESP
 * -> outer TX), gw_inbound.c (outer RX -> SAD -> ESP -> inner TX, reassembly,
 * handoff to the SA's owner), gw_l2.c (L2 bridges), gw_frag_out.c (outer
 * fragments) and gw_mbox.c (middlebox mode). Not for use outside lib/dp.
 */
#ifndef HIPGW_WORKER_INTERNAL_H
#define HIPGW_WORKER_INTERNAL_H

#include <string.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>

#include "gw_worker.h"
#include "gw_meta.h"
#include "gw_neigh.h"
#include "gw_pkt.h"

#define TXQ_MAX (GW_BURST_PACKETS * 4)

struct txq {
	uint16_t n;
	struct rte_mbuf *m[TXQ_MAX];
};

/* ESP packets waiting to be handed to the worker owning their SA */
struct handoff_q {
	uint16_t n;
	struct rte_mbuf *m[GW_BURST_PACKETS];
};

/* Packets for the control lcore, enqueued once per loop (one ring update per
 * burst, not per packet: under an I1 flood every I1 goes this way) */
struct punt_q {
	uint16_t n;
	struct rte_mbuf *m[GW_BURST_PACKETS * 2];
};

/* L2 mode (gw_l2.c): one slot of the filter of source MACs this worker
 * asked the control lcore to learn lately (direct-mapped by a hash of key),
 * and one bridge's flood token bucket (credit in TSC cycles x frames: a
 * frame costs hz, a cycle earns `rate`). */
#define L2_LEARN_FILTER_BITS 6
struct l2_learn_slot {
	uint64_t key;                   /* MAC (48 bits) | VLAN << 48 | bridge << 60 */
	uint32_t where;
	uint64_t until_tsc;             /* asked again from this TSC on */
};
struct l2_flood_bucket {
	uint64_t rate;                  /* frames per s, this worker's share; 0: no limit */
	uint64_t cap, credit, last_tsc;
};

struct worker {
	struct gw_ctx *ctx;
	struct gw_neigh_cache ncache;   /* next-hop MACs (gw_neigh.h), this lcore's */
	unsigned idx;
	bool handoff;                   /* several workers: inbound SAs have owners */
	bool slow;                      /* --slow-path: the control lcore looks SAs up */
	struct gw_lcore_stats *st;
	struct txq tx[GW_PORTS_MAX];
	struct rte_ip_frag_tbl *frag;
	struct rte_ip_frag_death_row dr;
	struct handoff_q ho[GW_WORKERS_MAX];
	struct punt_q pq;
	uint64_t hz;                    /* TSC cycles per s */
	struct l2_learn_slot l2_filter[1u << L2_LEARN_FILTER_BITS];
	struct l2_flood_bucket l2_flood[GW_CONF_MAX_BRIDGES];
	uint32_t frag6_id;              /* IPv6 Identification of the next outer fragments
	                                 * (gw_frag_out.c) */
	uint16_t frag4_id;              /* IPv4 packets this worker fragmented (their IDs) */
	/* middlebox mode (gw_mbox.c): this worker's flow counters, and its table
	 * of first fragments that passed; NULL in gateway mode */
	struct gw_mbox_flow_wk *mbox_wk;
	struct mbox_frags *mbox_frag;
};

static inline void
drop(struct worker *w, struct rte_mbuf *m, enum gw_drop reason)
{
	w->st->drops[reason]++;
	rte_pktmbuf_free(m);
}

/* m's IP packet after the header check: tl, its total length (bytes) from
 * gw_ipv4_check / gw_ipv6_check, 0 for a bad header; len, the bytes the frame
 * holds after its Ethernet header. A bad header is dropped as malformed
 * (false); otherwise the frame's padding past tl is cut off (true). */
static __rte_always_inline bool
wk_ip_fit(struct worker *w, struct rte_mbuf *m, uint32_t tl, uint32_t len)
{
	if (tl == 0) {
		drop(w, m, GW_DROP_MALFORMED);
		return false;
	}
	if (tl < len)
		rte_pktmbuf_trim(m, len - tl);
	return true;
}

/* A multi-segment packet (a chained jumbo frame, a reassembled datagram) in
 * one segment, Ethernet (or IP) header first: linearised in place when its
 * first buffer has the room, else copied into a large mbuf (ctx->pool_big,
 * up to GW_BIG_MBUF_ROOM bytes) and m freed. Returns the packet, or NULL
 * when it was dropped: malformed (longer than a large mbuf, or segment
 * lengths that disagree with pkt_len / nb_segs), no_mbuf (pool empty). */
struct rte_mbuf *wk_flatten(struct worker *w, struct rte_mbuf *m);

/* Send TX queue p of this worker (gw_worker.c). */
void wk_tx_flush(struct worker *w, unsigned p);
/* Enqueue m[0 .. n) on the single-producer ring r, in order; what it has no
 * room for is freed and counted as ring_full. Returns how many went. */
unsigned wk_ring_send(struct worker *w, struct rte_ring *r, struct rte_mbuf **m, unsigned n);
/* Enqueue the packets waiting for the control lcore. */
void wk_punt_flush(struct worker *w);

/* Queue m on TX queue p of this worker (sent when full, and once per loop). */
static __rte_always_inline void
tx_enqueue(struct worker *w, unsigned p, struct rte_mbuf *m)
{
	struct txq *q = &w->tx[p];
	if (q->n == TXQ_MAX)
		wk_tx_flush(w, p);
	q->m[q->n++] = m;
}

/* Hand a packet to the control lcore (queued; wk_punt_flush sends). */
static void
punt(struct worker *w, struct rte_mbuf *m, enum gw_meta_kind kind, unsigned port, uint16_t mtu)
{
	struct gw_meta *md = gw_meta(m);
	md->kind = kind;
	md->port = port;
	md->mtu = mtu;
	md->udp_sport = 0;
	if (w->pq.n == RTE_DIM(w->pq.m))
		wk_punt_flush(w);
	w->pq.m[w->pq.n++] = m;
}


/* m holds an IP packet (no L2). Add Ethernet towards next hop `nh` for
 * destination (family, dst) and queue it on the next hop's port. */
static __rte_always_inline void
send_ip(struct worker *w, struct rte_mbuf *m, const struct gw_nexthop *nh,
	uint8_t family, const uint8_t *dst)
{
	struct gw_port *port = &w->ctx->ports[nh->port];
	const uint8_t *hop = nh->on_link ? dst : nh->via.addr;
	struct rte_ether_hdr *eth;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eth));
	if (eth == NULL) {
		drop(w, m, GW_DROP_MALFORMED);
		return;
	}
	eth->ether_type = rte_cpu_to_be_16(family == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	rte_ether_addr_copy(&port->mac, &eth->src_addr);
	if (gw_neigh_cache_get(&w->ncache, w->ctx->neigh,
			       __atomic_load_n(&w->ctx->neigh_gen, __ATOMIC_ACQUIRE),
			       nh->port, family, hop, &eth->dst_addr)) {
		tx_enqueue(w, nh->port, m);
		return;
	}
	{
		struct gw_meta *md = gw_meta(m);
		md->family = family;
		memcpy(md->ip, hop, family == 4 ? 4 : 16);
		punt(w, m, GW_PUNT_NEIGH, nh->port, 0);
	}
}

static inline bool
for_this_port(const struct gw_port *p, const struct rte_ether_hdr *eth)
{
	return rte_is_same_ether_addr(&eth->dst_addr, &p->mac);
}

/* Ethernet stage of both paths: a frame for this port's MAC goes on (0, *et
 * set; a chained one is first put in one segment by wk_flatten, and *mp
 * updated), and so does a broadcast IPv4 frame on a DHCP port (RFC 2131 4.1:
 * a server broadcasts its DHCPNAK; outer_ip4 punts DHCP replies and drops
 * the rest as not for this port); broadcast/multicast ARP and IPv6 (ND) go to
 * the control lcore; anything else is dropped (-1: the frame consumed either way). On a port where
 * the control lcore sends through its own packet socket, a frame from the
 * port's own MAC is the kernel's copy of one of those (packet(7): a socket
 * bound to the interface with ETH_P_ALL, as the af_packet PMD's are, sees the
 * interface's outgoing frames too): freed first, counted as ctrl_looped. */
static inline int
l2_accept(struct worker *w, struct rte_mbuf **mp, const struct gw_port *port, unsigned pidx,
	  uint16_t *et)
{
	struct rte_mbuf *m = *mp;
	struct rte_ether_hdr *eth;

	if (unlikely(m->nb_segs != 1)) {
		*mp = m = wk_flatten(w, m);
		if (m == NULL)
			return -1;
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (rte_pktmbuf_data_len(m) < sizeof(*eth)) {
		drop(w, m, GW_DROP_MALFORMED);
		return -1;
	}
	if (port->ctrl_fd >= 0 && rte_is_same_ether_addr(&eth->src_addr, &port->mac)) {
		w->st->ctrl_looped[pidx]++;
		rte_pktmbuf_free(m);
		return -1;
	}
	*et = rte_be_to_cpu_16(eth->ether_type);
	if (for_this_port(port, eth))
		return 0;
	if (unlikely(port->dhcp) && *et == RTE_ETHER_TYPE_IPV4 &&
	    rte_is_broadcast_ether_addr(&eth->dst_addr))
		return 0;
	if (rte_is_multicast_ether_addr(&eth->dst_addr) &&
	    (*et == RTE_ETHER_TYPE_ARP || *et == RTE_ETHER_TYPE_IPV6))
		punt(w, m, GW_PUNT_LOCAL, pidx, 0);
	else
		drop(w, m, GW_DROP_POLICY);
	return -1;
}

static inline bool
is_own_addr(const struct gw_ctx *ctx, uint8_t family, const uint8_t *ip)
{
	for (unsigned i = 0; i < ctx->n_ports; i++)
		if (gw_port_owns(&ctx->ports[i], family, ip))
			return true;
	return false;
}

/* The next hop towards destination dst (family 4 or 6), or NULL. */
static __rte_always_inline const struct gw_nexthop *
route_lookup(struct worker *w, uint8_t family, const uint8_t *dst)
{
	if (family == 4) {
		uint32_t d;
		memcpy(&d, dst, 4);
		return gw_route4(&w->ctx->routes, d);
	}
	return gw_route6(&w->ctx->routes, dst);
}

/* Route an IP packet (no L2) by its destination and send it. */
static __rte_always_inline void
route_and_send(struct worker *w, struct rte_mbuf *m, uint8_t family, const uint8_t *dst)
{
	const struct gw_nexthop *nh = route_lookup(w, family, dst);

	if (nh == NULL) {
		drop(w, m, GW_DROP_NO_ROUTE);
		return;
	}
	send_ip(w, m, nh, family, dst);
}

/* Route an outer IP packet m (no L2; IPv4 or IPv6, as lib/esp built it) by
 * its destination and send it. */
static __rte_always_inline void
wk_send_outer(struct worker *w, struct rte_mbuf *m)
{
	const uint8_t *o = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t family = gw_ip_version(o), dst[16];

	memcpy(dst, o + (family == 4 ? offsetof(struct rte_ipv4_hdr, dst_addr) :
			 offsetof(struct rte_ipv6_hdr, dst_addr)), family == 4 ? 4 : 16);
	route_and_send(w, m, family, dst);
}

/* The burst stages, one per direction; _slow: --slow-path, the control
 * lcore stamped each frame with its lookup (gw_outbound.c, gw_inbound.c). */
void wk_outbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n);
void wk_outbound_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n);
void wk_inbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n);
void wk_inbound_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n);
/* After an ESP outbound burst: each enc[i] with res[i] GW_DROP_NONE routed by
 * its outer destination and sent, the others dropped for res[i] (gw_outbound.c). */
void wk_esp_route_send(struct worker *w, struct rte_mbuf **enc, const uint8_t *res, uint16_t ne);
/* After an ESP outbound burst of bridge SAs (gw_frag_out.c): as
 * wk_esp_route_send, but an outer packet enc[i] longer than mtu[i] bytes
 * (gw_sa_frag_mtu of its SA; 0: never) is first cut into outer fragments of
 * at most mtu[i] bytes, each routed and sent. */
void wk_esp_frag_route_send(struct worker *w, struct rte_mbuf **enc, const uint8_t *res,
			    const uint16_t *mtu, uint16_t ne);
/* L2 mode (gw_l2.c): a burst of l2 port pidx, bridged to its bridge's
 * remotes by the MAC table (flooded, to one remote, dropped); and EtherIP
 * payloads pkts[i] (esp_pkt_is_etherip) decrypted by in SA sas[i], each to
 * its SA's bridge's port. Both take n <= GW_BURST_PACKETS, look up the
 * burst's MACs in bulk and ask the control lcore to learn source MACs
 * (ctx->l2_learn). */
void wk_l2_outbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n);
void wk_l2_inbound(struct worker *w, struct rte_mbuf **pkts, struct gw_sa *const *sas,
			 uint16_t n);
/* ESP payloads (EtherIP + frame) the control lcore handed back for one
 * remote each (GW_CTRL_L2_OUT: staged while that out slot had no SA;
 * n <= GW_BURST_PACKETS): ESP through the SA of each one's slot, no_sa when
 * it has none (gw_l2.c). */
void wk_l2_slot_send(struct worker *w, struct rte_mbuf **pkts, uint16_t n);
/* L2 state of a new worker: its bridges' flood buckets full. */
void wk_l2_init(struct worker *w);
/* Middlebox mode (gw_mbox.c): a burst of bridged port pidx (n <=
 * GW_BURST_PACKETS), each frame out of the pair's other port unchanged or
 * dropped, HIP punted; _slow: --slow-path, the control lcore stamped each ESP
 * packet's flow. wk_mbox_init: a new worker's state (0, or -1: no memory);
 * wk_mbox_fini frees it; wk_mbox_reset forgets the fragments that passed. */
void wk_mbox_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n);
void wk_mbox_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n);
int wk_mbox_init(struct worker *w);
void wk_mbox_fini(struct worker *w);
void wk_mbox_reset(struct worker *w);
/* ESP packets other workers handed to this one; returns how many. */
unsigned wk_drain_handoff(struct worker *w);
/* Reassemblies older than the fragment table's timeout: their fragments onto
 * death row, counted as malformed (gw_inbound.c). */
void wk_frag_expire(struct worker *w);

/* NAT rebinding (gw_nat.c, RFC 5770): what wk_nat_note keeps of one ESP
 * packet of a watched in SA before the ESP stage (outer source, UDP source
 * port, host order, 0 for plain ESP; its sequence number and the SA's
 * highest so far, low 32 bits). wk_nat_note fills np[0..n) for the packets
 * m[] of SAs sas[] (this worker owns them); wk_nat_check, after the ESP
 * stage gave res[], posts the rebindings to gw_ctx.nat_ring. */
struct wk_nat_pkt {
	bool watch;
	uint8_t family;
	uint16_t sport;
	uint32_t seq, top0;
	uint8_t src[16];
};
void wk_nat_note(struct gw_sa *const *sas, struct rte_mbuf *const *m, uint16_t n,
		 struct wk_nat_pkt *np);
void wk_nat_check(struct worker *w, struct gw_sa *const *sas, const uint8_t *res, uint16_t n,
		  const struct wk_nat_pkt *np);

#endif
