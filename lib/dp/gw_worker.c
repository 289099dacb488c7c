/* SPDX-License-Identifier: BSD-3-Clause
 * Worker lcore fast path. Per burst: classify (prepare), ESP (process), route
 * and transmit (finish). No locks, no syscalls, no allocation per packet; each
 * lcore counts into its own stats slot.
 */
#include <string.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include "gw_worker.h"
#include "gw_meta.h"
#include "gw_neigh.h"
#include "gw_pkt.h"

#define TXQ_MAX (GW_BURST * 4)
#define FRAG_TIMEOUT_MS 2000

struct txq {
	uint16_t n;
	struct rte_mbuf *m[TXQ_MAX];
};

/* ESP packets waiting to be handed to the worker owning their SA */
struct handoff_q {
	uint16_t n;
	struct rte_mbuf *m[GW_BURST];
};

/* Packets for the control lcore, enqueued once per loop (one ring update per
 * burst, not per packet: under an I1 flood every I1 goes this way) */
struct punt_q {
	uint16_t n;
	struct rte_mbuf *m[GW_BURST * 2];
};

struct worker {
	struct gw_ctx *ctx;
	struct gw_neigh_cache ncache;   /* next-hop MACs (gw_neigh.h), this lcore's */
	unsigned idx;
	bool handoff;                   /* several workers: inbound SAs have owners */
	bool slow;                      /* --slow-path: the control lcore looks SAs up */
	struct gw_lcore_stats *st;
	struct txq tx[GW_CONF_MAX_PORTS];
	struct rte_ip_frag_tbl *frag;
	struct rte_ip_frag_death_row dr;
	struct handoff_q ho[GW_MAX_WORKERS];
	struct punt_q pq;
};

static inline void
drop(struct worker *w, struct rte_mbuf *m, enum gw_drop reason)
{
	w->st->drops[reason]++;
	rte_pktmbuf_free(m);
}

static void
tx_flush(struct worker *w, unsigned p)
{
	struct txq *q = &w->tx[p];
	uint16_t sent = 0;
	if (q->n == 0)
		return;
	sent = rte_eth_tx_burst(w->ctx->ports[p].port_id, w->idx, q->m, q->n);
	w->st->port_tx[p] += sent;
	if (sent < q->n) {
		__atomic_fetch_add(&w->ctx->ports[p].tx_dropped, q->n - sent, __ATOMIC_RELAXED);
		rte_pktmbuf_free_bulk(&q->m[sent], q->n - sent);
	}
	q->n = 0;
}

static inline void
tx_enqueue(struct worker *w, unsigned p, struct rte_mbuf *m)
{
	struct txq *q = &w->tx[p];
	if (q->n == TXQ_MAX)
		tx_flush(w, p);
	q->m[q->n++] = m;
}

/* Enqueue m[0 .. n) on the single-producer ring r, in order; what it has no
 * room for is freed and counted as ring_full. Returns how many went. */
static unsigned
ring_send(struct worker *w, struct rte_ring *r, struct rte_mbuf **m, unsigned n)
{
	unsigned k = rte_ring_sp_enqueue_burst(r, (void **)m, n, NULL);

	if (k < n) {
		w->st->drops[GW_DROP_RING_FULL] += n - k;
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
	return k;
}

/* Enqueue the packets waiting for the control lcore. */
static void
punt_flush(struct worker *w)
{
	struct punt_q *q = &w->pq;

	if (q->n == 0)
		return;
	w->st->punted += ring_send(w, w->ctx->to_ctrl[w->idx], q->m, q->n);
	q->n = 0;
}

/* Hand a packet to the control lcore (queued; punt_flush sends). */
static void
punt(struct worker *w, struct rte_mbuf *m, enum gw_meta_kind kind, unsigned port, uint16_t mtu)
{
	struct gw_meta *md = gw_meta(m);
	md->kind = kind;
	md->port = port;
	md->mtu = mtu;
	if (w->pq.n == RTE_DIM(w->pq.m))
		punt_flush(w);
	w->pq.m[w->pq.n++] = m;
}

/* No SA yet for an out slot (a HIP peer before its BEX): the control lcore
 * stages the frame and starts the exchange. Nothing leaves in clear. */
static void
punt_no_sa(struct worker *w, struct rte_mbuf *m, unsigned port, uint32_t slot)
{
	gw_meta(m)->slot = slot;
	punt(w, m, GW_PUNT_NO_SA, port, 0);
}

/* Act on an SPD result: 0 with *sa set (PROTECT) or NULL (BYPASS) to go on;
 * -1 when m was consumed (DISCARD: dropped as policy; no SA yet: punted). */
static __rte_always_inline int
spd_resolve(struct worker *w, struct rte_mbuf *m, unsigned pidx, enum gw_spd_action act,
	    uint32_t slot, const struct gw_sa **sa, const bool slow)
{
	*sa = NULL;
	if (act == GW_SPD_BYPASS_ACT)
		return 0;
	if (act == GW_SPD_DISCARD) {
		drop(w, m, GW_DROP_POLICY);
		return -1;
	}
	if (slow && gw_meta(m)->lk.stamp == GW_STAMP_OUT)
		*sa = gw_meta_sa(gw_meta(m));      /* held by the control lcore's RCU reader id */
	else
		*sa = gw_sadb_out(&w->ctx->sadb, slot);
	if (*sa == NULL) {
		punt_no_sa(w, m, pidx, slot);
		return -1;
	}
	return 0;
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

/* Ethernet stage of both paths: a single-segment frame for this port's MAC
 * goes on (0, *et set); broadcast/multicast ARP and IPv6 (ND) go to the control
 * lcore; anything else is dropped (-1: m consumed either way). On a port where
 * the control lcore sends through its own packet socket, a frame from the
 * port's own MAC is the kernel's copy of one of those (packet(7): a socket
 * bound to the interface with ETH_P_ALL, as the af_packet PMD's are, sees the
 * interface's outgoing frames too): freed first, counted as ctrl_looped. */
static inline int
l2_accept(struct worker *w, struct rte_mbuf *m, const struct gw_port *port, unsigned pidx,
	  uint16_t *et)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	if (rte_pktmbuf_data_len(m) < sizeof(*eth) || m->nb_segs != 1) {
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

/* Route an IP packet (no L2) by its destination and send it. */
static __rte_always_inline void
route_and_send(struct worker *w, struct rte_mbuf *m, uint8_t family, const uint8_t *dst)
{
	const struct gw_nexthop *nh;
	if (family == 4) {
		uint32_t d;
		memcpy(&d, dst, 4);
		nh = gw_route4(&w->ctx->routes, d);
	} else {
		nh = gw_route6(&w->ctx->routes, dst);
	}
	if (nh == NULL) {
		drop(w, m, GW_DROP_NO_ROUTE);
		return;
	}
	send_ip(w, m, nh, family, dst);
}

/* ---------- outbound: inner RX -> ESP -> outer TX ---------- */

/* [sa-gen]: a first pass over the burst reads the block's table for IPv4
 * destinations in the generated block and prefetches their SAs' ESP lines, so
 * that the ESP stage finds them in cache (with a million SAs they are in DRAM). */
static void
gen_prefetch(const struct gw_sadb *db, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
		const struct gw_sa *sa;
		struct esp_sa *e;

		if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		    rte_pktmbuf_data_len(pkts[i]) < sizeof(*eth) + sizeof(*ip))
			continue;
		if (gw_sadb_gen_out4(db, ip->dst_addr, &sa, &e) && e != NULL)
			esp_sa_prefetch(e, true, rte_be_to_cpu_16(ip->total_length));
	}
}

/* SPD lookup, or (slow path) what the control lcore stamped into the mbuf. */
static __rte_always_inline enum gw_spd_action
spd4(struct worker *w, struct rte_mbuf *m, uint32_t dst_be, uint32_t *slot, const bool slow)
{
	const struct gw_meta *md = gw_meta(m);
	if (slow && md->lk.stamp == GW_STAMP_OUT) {
		*slot = md->slot;
		return md->lk.act;
	}
	return gw_spd_lookup4(&w->ctx->sadb, dst_be, slot);
}

static __rte_always_inline enum gw_spd_action
spd6(struct worker *w, struct rte_mbuf *m, const uint8_t *dst, uint32_t *slot, const bool slow)
{
	const struct gw_meta *md = gw_meta(m);
	if (slow && md->lk.stamp == GW_STAMP_OUT) {
		*slot = md->slot;
		return md->lk.act;
	}
	return gw_spd_lookup6(&w->ctx->sadb, dst, slot);
}

static __rte_always_inline void
outbound_common(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n,
		const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	const struct gw_port *port = &ctx->ports[pidx];
	struct esp_sa *esp[GW_BURST * 2];
	struct rte_mbuf *enc[GW_BURST * 2];
	uint8_t res[GW_BURST * 2];
	uint16_t ne = 0;

	struct esp_sa *last = NULL;

	for (uint16_t i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	if (ctx->sadb.gen.idx != NULL)
		gen_prefetch(&ctx->sadb, pkts, n);

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		uint32_t len = rte_pktmbuf_data_len(m);
		const struct gw_sa *sa;
		struct esp_sa *e = NULL;
		enum gw_spd_action act;
		uint32_t slot;
		bool bypass;
		uint16_t et;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		if (l2_accept(w, m, port, pidx, &et) != 0)
			continue;
		len -= sizeof(*eth);
		if (et == RTE_ETHER_TYPE_IPV4) {
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
			uint16_t tl = gw_ipv4_check(ip, len);
			if (tl == 0) {
				drop(w, m, GW_DROP_MALFORMED);
				continue;
			}
			if (tl < len)
				rte_pktmbuf_trim(m, len - tl);
			if (is_own_addr(ctx, 4, (uint8_t *)&ip->dst_addr)) {
				punt(w, m, GW_PUNT_LOCAL, pidx, 0);
				continue;
			}
			if (!slow && gw_sadb_gen_out4(&ctx->sadb, ip->dst_addr, &sa, &e)) {
				if (sa == NULL) {            /* [sa-gen] SA not installed yet */
					drop(w, m, GW_DROP_NO_SA);
					continue;
				}                            /* gen_prefetch warmed it */
			} else {
				act = spd4(w, m, ip->dst_addr, &slot, slow);
				if (spd_resolve(w, m, pidx, act, slot, &sa, slow) != 0)
					continue;
				if (sa != NULL && sa->esp != last) {  /* its ESP lines, well before the burst */
					e = last = sa->esp;
					esp_sa_prefetch(e, true, tl);
				}
			}
			bypass = sa == NULL;
			if (ip->time_to_live <= 1) {
				w->st->drops[GW_DROP_TTL]++;
				punt(w, m, GW_PUNT_TTL, pidx, 0);
				continue;
			}
			if (sa != NULL && tl > sa->max_inner) {
				if (ip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_DF)) {
					w->st->drops[GW_DROP_MTU]++;
					punt(w, m, GW_PUNT_TOO_BIG, pidx, sa->max_inner);
				} else {
					punt(w, m, GW_PUNT_FRAGMENT, pidx, sa->max_inner);
				}
				continue;
			}
			gw_ipv4_dec_ttl(ip);
			if (ip->next_proto_id == GW_IPPROTO_TCP && sa != NULL &&
			    !(ip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_OFFSET_MASK))) {
				uint32_t hl = (ip->version_ihl & 0xf) * 4u;
				gw_tcp_clamp_mss((uint8_t *)ip + hl, tl - hl, sa->mss4);
			}
			rte_pktmbuf_adj(m, sizeof(*eth));
			if (bypass) {
				route_and_send(w, m, 4, (uint8_t *)&ip->dst_addr);
				continue;
			}
		} else if (et == RTE_ETHER_TYPE_IPV6) {
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
			uint32_t tl = gw_ipv6_check(ip, len);
			if (tl == 0) {
				drop(w, m, GW_DROP_MALFORMED);
				continue;
			}
			if (tl < len)
				rte_pktmbuf_trim(m, len - tl);
			if (ip->dst_addr[0] == 0xff || is_own_addr(ctx, 6, ip->dst_addr)) {
				punt(w, m, GW_PUNT_LOCAL, pidx, 0);
				continue;
			}
			act = spd6(w, m, ip->dst_addr, &slot, slow);
			if (spd_resolve(w, m, pidx, act, slot, &sa, slow) != 0)
				continue;
			bypass = sa == NULL;
			if (ip->hop_limits <= 1) {
				w->st->drops[GW_DROP_TTL]++;
				punt(w, m, GW_PUNT_TTL, pidx, 0);
				continue;
			}
			if (sa != NULL && tl > sa->max_inner) {
				w->st->drops[GW_DROP_MTU]++;
				punt(w, m, GW_PUNT_TOO_BIG, pidx, sa->max_inner);
				continue;
			}
			ip->hop_limits--;
			if (ip->proto == GW_IPPROTO_TCP && sa != NULL)
				gw_tcp_clamp_mss((uint8_t *)(ip + 1), tl - GW_IPV6_HDR_LEN, sa->mss6);
			rte_pktmbuf_adj(m, sizeof(*eth));
			if (bypass) {
				route_and_send(w, m, 6, ip->dst_addr);
				continue;
			}
		} else if (et == RTE_ETHER_TYPE_ARP) {
			punt(w, m, GW_PUNT_LOCAL, pidx, 0);
			continue;
		} else {
			drop(w, m, GW_DROP_POLICY);
			continue;
		}
		esp[ne] = sa->esp != NULL ? sa->esp : e;   /* generated: the shared policy has none */
		enc[ne++] = m;
	}
	if (ne == 0)
		return;
	esp_outbound_burst(esp, enc, res, ne);
	for (uint16_t i = 0; i < ne; i++) {
		const uint8_t *o = rte_pktmbuf_mtod(enc[i], const uint8_t *);
		uint8_t family, dst[16];

		if (res[i] != GW_DROP_NONE) {
			drop(w, enc[i], res[i]);
			continue;
		}
		/* routed by the outer header's destination (the SA's remote), which
		 * the ESP stage just wrote: no other line of the SA */
		family = o[0] >> 4;
		memcpy(dst, family == 4 ? o + 16 : o + 24, family == 4 ? 4 : 16);
		route_and_send(w, enc[i], family, dst);
	}
}

static void
outbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	outbound_common(w, pidx, pkts, n, false);
}

static void
outbound_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	outbound_common(w, pidx, pkts, n, true);
}

/* ---------- inbound: outer RX -> ESP -> inner TX ---------- */

/* Reassemble an ESP fragment. Returns the whole packet (Ethernet at data
 * start, single segment) or NULL when it is held or was dropped. */
static struct rte_mbuf *
reassemble(struct worker *w, struct rte_mbuf *m, uint8_t family, void *l3)
{
	uint64_t tsc = rte_rdtsc();
	uint32_t before = w->dr.cnt;
	struct rte_mbuf *r;

	m->l2_len = sizeof(struct rte_ether_hdr);
	if (family == 4) {
		m->l3_len = rte_ipv4_hdr_len(l3);
		r = rte_ipv4_frag_reassemble_packet(w->frag, &w->dr, m, tsc, l3);
	} else {
		struct rte_ipv6_hdr *ip6 = l3;
		struct rte_ipv6_fragment_ext *fh = (struct rte_ipv6_fragment_ext *)(ip6 + 1);
		m->l3_len = sizeof(*ip6) + sizeof(*fh);
		r = rte_ipv6_frag_reassemble_packet(w->frag, &w->dr, m, tsc, ip6, fh);
	}
	/* fragments put on death row: overlaps, bad lengths, timeouts, table full */
	w->st->drops[GW_DROP_MALFORMED] += w->dr.cnt - before;
	if (w->dr.cnt > RTE_IP_FRAG_DEATH_ROW_LEN / 2)
		rte_ip_frag_free_death_row(&w->dr, 0);
	if (r == NULL)
		return NULL;
	if (r->nb_segs > 1 && rte_pktmbuf_linearize(r) != 0) {
		drop(w, r, GW_DROP_MALFORMED);
		return NULL;
	}
	return r;
}

/* ---------- inbound single writer: handoff between workers ---------- */

static void
handoff_flush(struct worker *w)
{
	for (unsigned o = 0; o < w->ctx->n_workers; o++) {
		struct handoff_q *q = &w->ho[o];
		unsigned k;
		if (q->n == 0)
			continue;
		k = ring_send(w, w->ctx->handoff_ring[o][w->idx], q->m, q->n);
		w->st->handoff_out += k;
		w->st->handoff_drops += q->n - k;
		q->n = 0;
	}
}

/* Queue an ESP packet (IP header first) for worker `owner`. */
static void
handoff(struct worker *w, unsigned owner, struct rte_mbuf *m, uint32_t spi, unsigned pidx)
{
	struct handoff_q *q = &w->ho[owner];
	struct gw_meta *md = gw_meta(m);
	md->kind = GW_HANDOFF;
	md->port = pidx;
	md->lk.spi = spi;
	md->lk.stamp = GW_STAMP_NONE;
	if (q->n == GW_BURST)
		handoff_flush(w);
	q->m[q->n++] = m;
}

/* Several workers: true when this worker owns sa (claiming it when it has no
 * owner yet); otherwise *owner is the worker that does. */
static inline bool
sa_is_mine(struct worker *w, struct gw_sa *sa, unsigned *owner)
{
	int32_t o = __atomic_load_n(&sa->owner, __ATOMIC_RELAXED);
	if (o == (int32_t)w->idx)
		return true;
	if (o < 0 && __atomic_compare_exchange_n(&sa->owner, &o, (int32_t)w->idx, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	*owner = (unsigned)o;
	return false;
}

static __rte_always_inline void inbound_esp(struct worker *w, unsigned pidx, struct rte_mbuf **dec,
			const uint32_t *spi, uint16_t nk, const bool slow);

/* ESP packets other workers handed to this one (it owns their SAs): up to
 * HANDOFF_ROUNDS bursts per sender and loop, since a sender may hand over
 * more than one burst per loop (one per port). */
#define HANDOFF_ROUNDS 4

static unsigned
drain_handoff(struct worker *w)
{
	unsigned total = 0;
	for (unsigned k = 0; k < w->ctx->n_workers * HANDOFF_ROUNDS; k++) {
		unsigned from = k % w->ctx->n_workers;
		struct rte_mbuf *pkts[GW_BURST];
		uint32_t spi[GW_BURST];
		unsigned n, i = 0;
		if (from == w->idx)
			continue;
		n = rte_ring_sc_dequeue_burst(w->ctx->handoff_ring[w->idx][from], (void **)pkts,
					      GW_BURST, NULL);
		if (n == 0)
			continue;
		w->st->handoff_in += n;
		total += n;
		for (unsigned k = 0; k < n; k++)
			spi[k] = gw_meta(pkts[k])->lk.spi;
		while (i < n) {            /* runs of the same outer port */
			unsigned j = i + 1, port = gw_meta(pkts[i])->port;
			while (j < n && gw_meta(pkts[j])->port == port)
				j++;
			inbound_esp(w, port, &pkts[i], &spi[i], j - i, false);
			i = j;
		}
	}
	return total;
}

/* ---------- inbound: outer RX -> ESP -> inner TX ---------- */

static __rte_always_inline void
inbound_common(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n,
	       const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	const struct gw_port *port = &ctx->ports[pidx];
	struct rte_mbuf *dec[GW_BURST];
	uint32_t spi[GW_BURST];
	uint16_t nk = 0;

	for (uint16_t i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		uint32_t len = rte_pktmbuf_data_len(m), hl;
		uint8_t proto, family;
		uint8_t *l3;
		uint16_t et;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		if (l2_accept(w, m, port, pidx, &et) != 0)
			continue;
		len -= sizeof(*eth);
		l3 = (uint8_t *)(eth + 1);
		if (et == RTE_ETHER_TYPE_IPV4) {
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
			uint16_t tl = gw_ipv4_check(ip, len);
			if (tl == 0) {
				drop(w, m, GW_DROP_MALFORMED);
				continue;
			}
			if (tl < len)
				rte_pktmbuf_trim(m, len - tl);
			if (!gw_port_owns(port, 4, (uint8_t *)&ip->dst_addr)) {
				drop(w, m, GW_DROP_POLICY);   /* clear traffic never goes inward */
				continue;
			}
			/* gw_ipv4_check verified the header checksum: ESP need not again */
			m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_RX_IP_CKSUM_MASK) |
				      RTE_MBUF_F_RX_IP_CKSUM_GOOD;
			proto = ip->next_proto_id;
			family = 4;
			hl = rte_ipv4_hdr_len(ip);
			if (proto == GW_IPPROTO_ESP && rte_ipv4_frag_pkt_is_fragmented(ip)) {
				m = reassemble(w, m, 4, ip);
				if (m == NULL)
					continue;
				eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
				l3 = (uint8_t *)(eth + 1);
				ip = (struct rte_ipv4_hdr *)l3;
				ip->hdr_checksum = 0;
				ip->hdr_checksum = rte_ipv4_cksum(ip);
				len = rte_pktmbuf_data_len(m) - sizeof(*eth);
			}
		} else if (et == RTE_ETHER_TYPE_IPV6) {
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
			uint32_t tl = gw_ipv6_check(ip, len);
			if (tl == 0) {
				drop(w, m, GW_DROP_MALFORMED);
				continue;
			}
			if (tl < len)
				rte_pktmbuf_trim(m, len - tl);
			if (ip->dst_addr[0] == 0xff) {
				punt(w, m, GW_PUNT_LOCAL, pidx, 0);
				continue;
			}
			if (!gw_port_owns(port, 6, ip->dst_addr)) {
				drop(w, m, GW_DROP_POLICY);
				continue;
			}
			proto = ip->proto;
			family = 6;
			hl = sizeof(*ip);
			if (proto == IPPROTO_FRAGMENT && tl >= hl + 8 && l3[hl] == GW_IPPROTO_ESP) {
				m = reassemble(w, m, 6, ip);
				if (m == NULL)
					continue;
				eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
				l3 = (uint8_t *)(eth + 1);
				proto = GW_IPPROTO_ESP;
				len = rte_pktmbuf_data_len(m) - sizeof(*eth);
			}
		} else if (et == RTE_ETHER_TYPE_ARP) {
			punt(w, m, GW_PUNT_LOCAL, pidx, 0);
			continue;
		} else {
			drop(w, m, GW_DROP_POLICY);
			continue;
		}
		if (proto != GW_IPPROTO_ESP) {
			/* ICMP, ICMPv6 (ND), HIP to the gateway itself */
			if (proto == GW_IPPROTO_ICMP || proto == GW_IPPROTO_ICMPV6 ||
			    proto == GW_IPPROTO_HIP)
				punt(w, m, GW_PUNT_LOCAL, pidx, 0);
			else
				drop(w, m, GW_DROP_POLICY);
			continue;
		}
		(void)family;
		if (len < hl + GW_ESP_HDR_LEN) {
			drop(w, m, GW_DROP_MALFORMED);
			continue;
		}
		memcpy(&spi[nk], l3 + hl, 4);
		spi[nk] = rte_be_to_cpu_32(spi[nk]);
		if (spi[nk] == 0) {
			drop(w, m, GW_DROP_NO_SA);
			continue;
		}
		rte_pktmbuf_adj(m, sizeof(*eth));
		dec[nk++] = m;
	}
	if (nk > 0)
		inbound_esp(w, pidx, dec, spi, nk, slow);
}

static void
inbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	inbound_common(w, pidx, pkts, n, false);
}

static void
inbound_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	inbound_common(w, pidx, pkts, n, true);
}

/* dec[0..nk-1]: ESP packets (IP header first) received on outer port pidx with
 * SPIs spi[] (host order, non-zero), nk <= GW_BURST: SAD lookup (or the slow
 * path's stamp), handoff to the SA's owner when several workers run, ESP
 * inbound, policy checks, route and send. */
static __rte_always_inline void
inbound_esp(struct worker *w, unsigned pidx, struct rte_mbuf **dec, const uint32_t *spi,
	    uint16_t nk, const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	const void *keys[GW_BURST];
	void *data[GW_BURST];
	struct esp_sa *esp[GW_BURST];
	struct gw_sa *sas[GW_BURST];
	uint8_t res[GW_BURST];
	uint64_t hits = 0;
	uint16_t nd = 0;

	if (slow) {
		for (uint16_t i = 0; i < nk; i++) {
			const struct gw_meta *md = gw_meta(dec[i]);
			if (md->lk.stamp == GW_STAMP_IN)
				data[i] = gw_meta_sa(md);
			else if (rte_hash_lookup_data(ctx->sadb.sad, &spi[i], &data[i]) < 0)
				data[i] = NULL;
			if (data[i] != NULL)
				hits |= 1ULL << i;
		}
	} else {
		/* one key per run of equal SPIs (usually the whole burst is one SA) */
		uint8_t run[GW_BURST];
		uint64_t rhits = 0;
		uint16_t nu = 0;
		for (uint16_t i = 0; i < nk; i++) {
			if (i == 0 || spi[i] != spi[i - 1])
				keys[nu++] = &spi[i];
			run[i] = nu - 1;
		}
		rte_hash_lookup_bulk_data(ctx->sadb.sad, keys, nu, &rhits, data);
		for (uint16_t i = nk; i-- > 0;) {   /* back to one entry per packet; run[i] <= i */
			data[i] = data[run[i]];
			hits |= ((rhits >> run[i]) & 1) << i;
		}
	}
	for (uint16_t i = 0; i < nk; i++)     /* the SAs, before the pass that reads them */
		if (hits & (1ULL << i))
			gw_sadb_prefetch_in(&ctx->sadb, data[i]);   /* ok[] for the spoof check below */
	for (uint16_t i = 0; i < nk; i++) {
		unsigned owner;
		if (!(hits & (1ULL << i))) {
			drop(w, dec[i], GW_DROP_NO_SA);
			continue;
		}
		if (unlikely(w->handoff) && !sa_is_mine(w, data[i], &owner)) {
			handoff(w, owner, dec[i], spi[i], pidx);
			continue;
		}
		sas[nd] = data[i];
		esp[nd] = sas[nd]->esp;
		if (nd == 0 || esp[nd] != esp[nd - 1])   /* its ESP lines, before the ESP stage */
			esp_sa_prefetch(esp[nd], false, rte_pktmbuf_data_len(dec[i]));
		dec[nd++] = dec[i];
	}
	if (unlikely(w->handoff))
		handoff_flush(w);
	if (nd == 0)
		return;
	esp_inbound_burst(esp, dec, res, nd);
	for (uint16_t i = 0; i < nd; i++) {  /* inner route entries, before the pass below */
		const uint8_t *l3 = rte_pktmbuf_mtod(dec[i], const uint8_t *);

		if (res[i] == GW_DROP_NONE && (l3[0] >> 4) == 4 && !esp_pkt_is_beet(dec[i]))
			gw_route4_prefetch(&ctx->routes,
					   ((const struct rte_ipv4_hdr *)l3)->dst_addr);
	}
	for (uint16_t i = 0; i < nd; i++) {
		struct rte_mbuf *m = dec[i];
		struct gw_sa *sa = sas[i];
		uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
		uint8_t *src, *dst;
		uint8_t family;

		if (i + 2 < nd)
			rte_prefetch0(rte_pktmbuf_mtod(dec[i + 2], void *));
		if (res[i] != GW_DROP_NONE) {
			drop(w, m, res[i]);
			continue;
		}
		if (esp_pkt_is_beet(m)) {
			/* HIT-to-HIT (BEET): for the gateway itself, never the inner port */
			punt(w, m, GW_PUNT_BEET, pidx, 0);
			continue;
		}
		if ((l3[0] >> 4) == 4) {
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
			family = 4;
			src = (uint8_t *)&ip->src_addr;
			dst = (uint8_t *)&ip->dst_addr;
			if (!gw_prefixes_match(gw_sa_src_ok(sa), sa->n_src, 4, src) ||
			    !gw_prefixes_match(gw_sa_dst_ok(sa), sa->n_dst, 4, dst)) {
				esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
				drop(w, m, GW_DROP_SPOOF);
				continue;
			}
			if (ip->time_to_live <= 1) {
				esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
				drop(w, m, GW_DROP_TTL);
				continue;
			}
			gw_ipv4_dec_ttl(ip);
			if (ip->next_proto_id == GW_IPPROTO_TCP &&
			    !(ip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_OFFSET_MASK))) {
				uint32_t ihl = rte_ipv4_hdr_len(ip);
				gw_tcp_clamp_mss(l3 + ihl, rte_pktmbuf_data_len(m) - ihl, sa->mss4);
			}
		} else {
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
			family = 6;
			src = ip->src_addr;
			dst = ip->dst_addr;
			if (!gw_prefixes_match(gw_sa_src_ok(sa), sa->n_src, 6, src) ||
			    !gw_prefixes_match(gw_sa_dst_ok(sa), sa->n_dst, 6, dst)) {
				esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
				drop(w, m, GW_DROP_SPOOF);
				continue;
			}
			if (ip->hop_limits <= 1) {
				esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
				drop(w, m, GW_DROP_TTL);
				continue;
			}
			ip->hop_limits--;
			if (ip->proto == GW_IPPROTO_TCP)
				gw_tcp_clamp_mss(l3 + sizeof(*ip), rte_pktmbuf_data_len(m) - sizeof(*ip),
						 sa->mss6);
		}
		route_and_send(w, m, family, dst);
	}
}

/* --slow-path: every received frame goes to the control lcore for its lookup. */
static void
slow_send(struct worker *w, unsigned p, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct gw_meta *md = gw_meta(pkts[i]);
		md->kind = GW_SLOW_LOOKUP;
		md->port = p;
		md->lk.stamp = GW_STAMP_NONE;
	}
	w->st->slow_sent += ring_send(w, w->ctx->slow_up[w->idx], pkts, n);
}

/* --slow-path: frames the control lcore stamped: run them with its lookups,
 * then count them done (after which the control lcore may let their SAs go). */
static unsigned
drain_slow(struct worker *w)
{
	struct rte_mbuf *pkts[GW_BURST];
	unsigned n = rte_ring_sc_dequeue_burst(w->ctx->slow_down[w->idx], (void **)pkts,
					       GW_BURST, NULL);
	unsigned i = 0;
	while (i < n) {                    /* runs of the same port */
		unsigned j = i + 1, port = gw_meta(pkts[i])->port;
		while (j < n && gw_meta(pkts[j])->port == port)
			j++;
		if (w->ctx->ports[port].role == GW_ROLE_INNER)
			outbound_burst_slow(w, port, &pkts[i], j - i);
		else
			inbound_burst_slow(w, port, &pkts[i], j - i);
		i = j;
	}
	if (n)
		__atomic_store_n(&w->st->slow_done, w->st->slow_done + n, __ATOMIC_RELEASE);
	return n;
}

/* Packets from the control lcore: frames to send, or frames to run outbound. */
static unsigned
drain_ctrl(struct worker *w)
{
	struct rte_mbuf *pkts[GW_BURST];
	unsigned n = rte_ring_sc_dequeue_burst(w->ctx->from_ctrl[w->idx], (void **)pkts,
					       GW_BURST, NULL);
	struct rte_mbuf *out[GW_BURST];
	unsigned no = 0, out_port = 0;

	for (unsigned i = 0; i < n; i++) {
		struct gw_meta *md = gw_meta(pkts[i]);
		if (md->kind == GW_CTRL_OUTBOUND) {
			out_port = md->port;
			out[no++] = pkts[i];
		} else {
			tx_enqueue(w, md->port, pkts[i]);
		}
	}
	if (no > 0)
		outbound_burst(w, out_port, out, no);
	return n;
}

int
gw_worker_main(void *arg)
{
	const struct gw_worker_arg *a = arg;
	struct gw_ctx *ctx = a->ctx;
	struct worker *w;
	uint64_t hz = rte_get_tsc_hz();
	unsigned idle = 0;

	w = rte_zmalloc_socket("hipgw_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (w == NULL)
		return -1;
	w->ctx = ctx;
	w->idx = a->idx;
	w->handoff = ctx->handoff;
	w->slow = ctx->slow_path;
	w->st = &gw_stats[rte_lcore_id()];
	w->frag = rte_ip_frag_table_create(256, 16, 4096, hz / 1000 * FRAG_TIMEOUT_MS,
					   rte_socket_id());
	if (w->frag == NULL) {
		rte_free(w);
		return -1;
	}
	rte_rcu_qsbr_thread_register(ctx->sadb.rcu, w->idx);
	rte_rcu_qsbr_thread_online(ctx->sadb.rcu, w->idx);

	while (!__atomic_load_n(&ctx->stop, __ATOMIC_RELAXED)) {
		unsigned got = 0;
		for (unsigned p = 0; p < ctx->n_ports; p++) {
			struct rte_mbuf *pkts[GW_BURST];
			uint16_t n = rte_eth_rx_burst(ctx->ports[p].port_id, w->idx, pkts, GW_BURST);
			if (n == 0)
				continue;
			got += n;
			w->st->port_rx[p] += n;
			if (unlikely(w->slow)) {
				slow_send(w, p, pkts, n);
				continue;
			}
			if (ctx->ports[p].role == GW_ROLE_INNER)
				outbound_burst(w, p, pkts, n);
			else
				inbound_burst(w, p, pkts, n);
		}
		if (got)
			ctx->last_rx_tsc = rte_rdtsc();
		if (unlikely(w->handoff))
			got += drain_handoff(w);
		if (unlikely(w->slow))
			got += drain_slow(w);
		got += drain_ctrl(w);
		punt_flush(w);
		for (unsigned p = 0; p < ctx->n_ports; p++)
			tx_flush(w, p);
		rte_rcu_qsbr_quiescent(ctx->sadb.rcu, w->idx);
		if (w->dr.cnt)
			rte_ip_frag_free_death_row(&w->dr, 0);
		if (got || ctx->idle == GW_IDLE_BUSY) {
			idle = 0;
			continue;
		}
		/* adaptive idle: sleep when there is no traffic, for shared CPUs */
		if (++idle > 256) {
			rte_rcu_qsbr_thread_offline(ctx->sadb.rcu, w->idx);
			rte_delay_us_sleep(idle > 4096 ? 200 : 20);
			rte_rcu_qsbr_thread_online(ctx->sadb.rcu, w->idx);
		}
	}
	rte_rcu_qsbr_thread_offline(ctx->sadb.rcu, w->idx);
	rte_rcu_qsbr_thread_unregister(ctx->sadb.rcu, w->idx);
	rte_ip_frag_free_death_row(&w->dr, 0);
	rte_ip_frag_table_destroy(w->frag);
	rte_free(w);
	return 0;
}
