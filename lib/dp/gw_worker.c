/* SPDX-License-Identifier: BSD-3-Clause
 * Worker lcore fast path: the main loop. Per loop: RX bursts of every port
 * run to completion (gw_outbound.c for inner ports, gw_inbound.c for outer
 * ones, gw_l2.c for bridged l2 ports, gw_mbox.c for a middlebox's pair), then the handoff rings, the --slow-path returns and the control
 * lcore's packets, then TX. No locks, no syscalls, no allocation per packet;
 * each lcore counts into its own stats slot.
 */
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "gw_worker_internal.h"

#define FRAG_TIMEOUT_MS 2000
/* Reassembly table of each worker (rte_ip_frag): buckets x entries per bucket,
 * and the datagrams it may hold at once. Each held datagram keeps up to
 * RTE_LIBRTE_IP_FRAG_MAX_FRAG mbufs, so the bound is sized from the pool: all
 * workers together hold at most 1 / FRAG_POOL_SHARE_DIV of it, and a flood
 * of fragments that never complete cannot take the mbufs the tunnel needs. */
#define FRAG_BUCKETS          256
#define FRAG_BUCKET_ENTRIES   16
#define FRAG_DATAGRAMS_MIN    64
#define FRAG_DATAGRAMS_MAX    (FRAG_BUCKETS * FRAG_BUCKET_ENTRIES)
#define FRAG_POOL_SHARE_DIV   4

void
wk_tx_flush(struct worker *w, unsigned p)
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

struct rte_mbuf *
wk_flatten(struct worker *w, struct rte_mbuf *m)
{
	struct rte_mbuf *big;
	uint32_t sum = 0, nseg = 0;
	uint8_t *dst;

	for (const struct rte_mbuf *s = m; s != NULL && nseg <= m->nb_segs; s = s->next, nseg++)
		sum += s->data_len;
	if (sum != m->pkt_len || nseg != m->nb_segs || m->pkt_len > GW_BIG_MBUF_ROOM) {
		drop(w, m, GW_DROP_MALFORMED);
		return NULL;
	}
	if (rte_pktmbuf_linearize(m) == 0)
		return m;                      /* the first buffer had the room */
	big = rte_pktmbuf_alloc(w->ctx->pool_big);
	if (big == NULL) {
		drop(w, m, GW_DROP_NO_MBUF);
		return NULL;
	}
	dst = (uint8_t *)rte_pktmbuf_append(big, (uint16_t)m->pkt_len);
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		memcpy(dst, rte_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		dst += s->data_len;
	}
	big->port = m->port;
	big->ol_flags = m->ol_flags & ~(RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL);
	big->packet_type = m->packet_type;
	big->tx_offload = m->tx_offload;
	big->hash = m->hash;
	rte_mbuf_dynfield_copy(big, m);
	rte_pktmbuf_free(m);
	return big;
}

/* Enqueue m[0 .. n) on the single-producer ring r, in order; what it has no
 * room for is freed and counted as ring_full. Returns how many went. */
unsigned
wk_ring_send(struct worker *w, struct rte_ring *r, struct rte_mbuf **m, unsigned n)
{
	unsigned k = rte_ring_sp_enqueue_burst(r, (void **)m, n, NULL);

	if (k < n) {
		w->st->drops[GW_DROP_RING_FULL] += n - k;
		rte_pktmbuf_free_bulk(&m[k], n - k);
	}
	return k;
}

/* Enqueue the packets waiting for the control lcore. */
void
wk_punt_flush(struct worker *w)
{
	struct punt_q *q = &w->pq;

	if (q->n == 0)
		return;
	w->st->punted += wk_ring_send(w, w->ctx->to_ctrl[w->idx], q->m, q->n);
	q->n = 0;
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
	w->st->slow_sent += wk_ring_send(w, w->ctx->slow_up[w->idx], pkts, n);
}

/* --slow-path: frames the control lcore stamped: run them with its lookups,
 * then count them done (after which the control lcore may let their SAs go). */
static unsigned
drain_slow(struct worker *w)
{
	struct rte_mbuf *pkts[GW_BURST_PACKETS];
	unsigned n = rte_ring_sc_dequeue_burst(w->ctx->slow_down[w->idx], (void **)pkts,
					       GW_BURST_PACKETS, NULL);
	unsigned i = 0;
	while (i < n) {                    /* runs of the same port */
		unsigned j = i + 1, port = gw_meta(pkts[i])->port;
		while (j < n && gw_meta(pkts[j])->port == port)
			j++;
		if (w->ctx->mbox_peer[port] != 0)
			wk_mbox_burst_slow(w, port, &pkts[i], j - i);
		else if (w->ctx->ports[port].role == GW_ROLE_INNER)
			wk_outbound_burst_slow(w, port, &pkts[i], j - i);
		else
			wk_inbound_burst_slow(w, port, &pkts[i], j - i);
		i = j;
	}
	if (n)
		__atomic_store_n(&w->st->slow_done, w->st->slow_done + n, __ATOMIC_RELEASE);
	return n;
}

/* Packets from the control lcore: frames to send, frames to run outbound, or
 * bridge frames for one remote's SA. */
static unsigned
drain_ctrl(struct worker *w)
{
	struct rte_mbuf *pkts[GW_BURST_PACKETS];
	unsigned n = rte_ring_sc_dequeue_burst(w->ctx->from_ctrl[w->idx], (void **)pkts,
					       GW_BURST_PACKETS, NULL);
	struct rte_mbuf *out[GW_BURST_PACKETS], *l2[GW_BURST_PACKETS];
	unsigned no = 0, out_port = 0, nl = 0;

	for (unsigned i = 0; i < n; i++) {
		struct gw_meta *md = gw_meta(pkts[i]);
		if (md->kind == GW_CTRL_OUTBOUND) {
			out_port = md->port;
			out[no++] = pkts[i];
		} else if (md->kind == GW_CTRL_L2_OUT) {
			l2[nl++] = pkts[i];
		} else {
			tx_enqueue(w, md->port, pkts[i]);
		}
	}
	if (no > 0)
		wk_outbound_burst(w, out_port, out, no);
	if (nl > 0)
		wk_l2_slot_send(w, l2, (uint16_t)nl);
	return n;
}

/* Datagrams one worker's reassembly table may hold (see FRAG_POOL_SHARE_DIV). */
static uint32_t
frag_datagrams_max(const struct gw_ctx *ctx)
{
	uint32_t n = ctx->pool->size /
		     (FRAG_POOL_SHARE_DIV * ctx->n_workers * RTE_LIBRTE_IP_FRAG_MAX_FRAG);

	return RTE_MIN(RTE_MAX(n, (uint32_t)FRAG_DATAGRAMS_MIN), (uint32_t)FRAG_DATAGRAMS_MAX);
}

/* A worker's state for worker index idx on the calling lcore: its stats
 * slot, fragment table, RCU reader registration (online). NULL: no memory. */
static struct worker *
worker_new(struct gw_ctx *ctx, unsigned idx)
{
	uint64_t hz = rte_get_tsc_hz();
	struct worker *w;

	w = rte_zmalloc_socket("hipgw_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (w == NULL)
		return NULL;
	w->ctx = ctx;
	w->idx = idx;
	w->handoff = ctx->handoff;
	w->slow = ctx->slow_path;
	w->st = &gw_stats[rte_lcore_id()];
	w->frag = rte_ip_frag_table_create(FRAG_BUCKETS, FRAG_BUCKET_ENTRIES,
					   frag_datagrams_max(ctx), hz / 1000 * FRAG_TIMEOUT_MS,
					   rte_socket_id());
	if (w->frag == NULL) {
		rte_free(w);
		return NULL;
	}
	wk_l2_init(w);
	if (wk_mbox_init(w) != 0) {
		rte_ip_frag_table_destroy(w->frag);
		rte_free(w);
		return NULL;
	}
	rte_rcu_qsbr_thread_register(ctx->sadb.rcu, w->idx);
	rte_rcu_qsbr_thread_online(ctx->sadb.rcu, w->idx);
	return w;
}

static void
worker_delete(struct worker *w)
{
	rte_rcu_qsbr_thread_offline(w->ctx->sadb.rcu, w->idx);
	rte_rcu_qsbr_thread_unregister(w->ctx->sadb.rcu, w->idx);
	rte_ip_frag_free_death_row(&w->dr, 0);
	rte_ip_frag_table_destroy(w->frag);
	wk_mbox_fini(w);
	rte_free(w);
}

/* A received burst of port p to its path. */
static void
worker_rx(struct worker *w, unsigned p, struct rte_mbuf **pkts, uint16_t n)
{
	w->st->port_rx[p] += n;
	if (w->ctx->port_bridge[p] != 0) {       /* L2 mode: frames whole, no slow path */
		wk_l2_outbound_burst(w, p, pkts, n);
		return;
	}
	if (unlikely(w->slow)) {
		slow_send(w, p, pkts, n);
		return;
	}
	if (w->ctx->mbox_peer[p] != 0) {         /* middlebox: a bridged pair */
		wk_mbox_burst(w, p, pkts, n);
		return;
	}
	if (w->ctx->ports[p].role == GW_ROLE_INNER)
		wk_outbound_burst(w, p, pkts, n);
	else
		wk_inbound_burst(w, p, pkts, n);
}

/* The end of each loop: the other workers', the slow path's and the control
 * lcore's packets, then the rings up, the TX queues and the reassemblies that
 * timed out. Returns how many packets came from those rings. */
static unsigned
worker_tail(struct worker *w)
{
	struct gw_ctx *ctx = w->ctx;
	unsigned got = 0;

	if (unlikely(w->handoff))
		got += wk_drain_handoff(w);
	if (unlikely(w->slow))
		got += drain_slow(w);
	got += drain_ctrl(w);
	wk_punt_flush(w);
	for (unsigned p = 0; p < ctx->n_ports; p++)
		wk_tx_flush(w, p);
	rte_rcu_qsbr_quiescent(ctx->sadb.rcu, w->idx);
	wk_frag_expire(w);
	if (w->dr.cnt)
		rte_ip_frag_free_death_row(&w->dr, 0);
	return got;
}

int
gw_worker_main(void *arg)
{
	const struct gw_worker_arg *a = arg;
	struct gw_ctx *ctx = a->ctx;
	struct worker *w = worker_new(ctx, a->idx);
	unsigned idle = 0;

	if (w == NULL)
		return -1;
	while (!__atomic_load_n(&ctx->stop, __ATOMIC_RELAXED)) {
		unsigned got = 0;
		for (unsigned p = 0; p < ctx->n_ports; p++) {
			struct rte_mbuf *pkts[GW_BURST_PACKETS];
			uint16_t n = rte_eth_rx_burst(ctx->ports[p].port_id, w->idx, pkts,
						      GW_BURST_PACKETS);
			if (n == 0)
				continue;
			got += n;
			worker_rx(w, p, pkts, n);
		}
		if (got)
			ctx->last_rx_tsc = rte_rdtsc();
		got += worker_tail(w);
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
	worker_delete(w);
	return 0;
}

/* ---------- test entry (tests/fuzz/fuzz_worker.c) ---------- */

struct gw_worker_test *
gw_worker_test_create(struct gw_ctx *ctx, unsigned idx)
{
	return (struct gw_worker_test *)worker_new(ctx, idx);
}

unsigned
gw_worker_test_run(struct gw_worker_test *t, unsigned port, struct rte_mbuf **pkts, uint16_t n)
{
	struct worker *w = (struct worker *)t;

	if (n > 0)
		worker_rx(w, port, pkts, n);
	return n + worker_tail(w);
}

void
gw_worker_test_reset(struct gw_worker_test *t)
{
	struct worker *w = (struct worker *)t;

	rte_ip_frag_table_del_expired_entries(w->frag, &w->dr, UINT64_MAX);
	rte_ip_frag_free_death_row(&w->dr, 0);
	memset(w->l2_filter, 0, sizeof(w->l2_filter));
	wk_l2_init(w);
	wk_mbox_reset(w);
}

void
gw_worker_test_free(struct gw_worker_test *t)
{
	if (t != NULL)
		worker_delete((struct worker *)t);
}
