/* SPDX-License-Identifier: BSD-3-Clause
 * --slow-path (a diagnostic, never for production): the control lcore does the
 * SA / SPD lookup of every data frame, as HIPL's firewall hipfw does in
 * userspace (docs/published-figures.json). Workers send every received frame
 * through slow_up[w]; here each frame's SPD (inner port) or SAD (outer port,
 * ESP) entry, or in middlebox mode an ESP packet's flow (gw_mbox_flow.h), is
 * looked up and stamped into its gw_meta (lk.stamp, lk.sa, lk.act, slot), then the frame goes down slow_down[] to a worker, which runs
 * the usual fast path with these results instead of its own lookups
 * (gw_worker.c).
 *
 * SA lifetime: a stamped SA (or flow) pointer outlives the lookup, so the control lcore
 * is an RCU reader of the SA tables (and the flow table, on the same RCU) (reader id sadb.ctrl_reader) from the
 * first stamp until every stamped frame was finished by a worker (the workers'
 * slow_done counters reach what was sent down); only then does it go offline,
 * which ends its part of any grace period. So that a grace period always ends,
 * it stops stamping after SLOW_HOLD_US online and lets the rings drain.
 */
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>

#include "gw_lab.h"
#include "gw_mbox.h"
#include "gw_meta.h"
#include "hipgw_wire.h"

#define SLOW_HOLD_US 1000

struct slow_state {
	bool online;
	uint64_t online_since;   /* TSC */
	uint64_t sent;           /* frames stamped and sent down (all workers) */
};

static struct slow_state slow;

static uint64_t
done_total(const struct gw_ctx *ctx)
{
	uint64_t d = 0;
	for (unsigned w = 0; w < ctx->n_workers; w++)
		d += __atomic_load_n(&gw_stats[ctx->worker_lcore[w]].slow_done, __ATOMIC_ACQUIRE);
	return d;
}

/* Go offline once no stamped frame is in flight. Returns true when offline. */
static bool
try_offline(struct gw_ctx *ctx)
{
	if (!slow.online)
		return true;
	if (done_total(ctx) != slow.sent)
		return false;
	rte_rcu_qsbr_thread_offline(ctx->sadb.rcu, ctx->sadb.ctrl_reader);
	slow.online = false;
	return true;
}

/* sadb.ctrl_release: the control lcore is about to wait for a grace period
 * itself; the workers finish what it stamped (it stamps nothing meanwhile). */
static void
slow_release(void *arg)
{
	struct gw_ctx *ctx = arg;
	while (!try_offline(ctx) && !__atomic_load_n(&ctx->stop, __ATOMIC_RELAXED))
		rte_pause();
}

void
gw_slow_init(struct gw_ctx *ctx)
{
	memset(&slow, 0, sizeof(slow));
	ctx->sadb.ctrl_release = slow_release;
	ctx->sadb.ctrl_release_arg = ctx;
}

/* Look the frame's SA up as the worker would and stamp the result; returns
 * the worker that should run it (the in SA's owner when it has one). */
static unsigned
stamp(struct gw_ctx *ctx, struct rte_mbuf *m, unsigned origin)
{
	struct gw_meta *md = gw_meta(m);
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), slot = 0;
	const struct rte_ether_hdr *eth = (const void *)f;
	uint16_t et;

	md->lk.stamp = GW_STAMP_NONE;
	if (md->port >= ctx->n_ports || len < sizeof(*eth) || m->nb_segs != 1)
		return origin;
	if (ctx->mbox_peer[md->port] != 0) {
		/* middlebox: an ESP packet's flow (hipfw's lookup in userspace) */
		struct gw_mbox_flow_key k;

		if (gw_mbox_esp_key(f, len, &k)) {
			gw_meta_set_sa(md, (void *)(uintptr_t)gw_mbox_flow_lookup(ctx->mbox_flows, &k));
			md->lk.stamp = GW_STAMP_MBOX;
		}
		return origin;
	}
	et = rte_be_to_cpu_16(eth->ether_type);
	f += sizeof(*eth);
	len -= sizeof(*eth);
	if (ctx->ports[md->port].role == GW_ROLE_INNER) {
		enum gw_spd_action act;
		if (et == RTE_ETHER_TYPE_IPV4 && len >= sizeof(struct rte_ipv4_hdr)) {
			const struct rte_ipv4_hdr *ip = (const void *)f;
			act = gw_spd_lookup4(&ctx->sadb, ip->dst_addr, &slot);
		} else if (et == RTE_ETHER_TYPE_IPV6 && len >= sizeof(struct rte_ipv6_hdr)) {
			const struct rte_ipv6_hdr *ip = (const void *)f;
			act = gw_spd_lookup6(&ctx->sadb, ip->dst_addr, &slot);
		} else {
			return origin;
		}
		md->lk.act = act;
		md->slot = act == GW_SPD_PROTECT ? slot : 0;
		gw_meta_set_sa(md, act == GW_SPD_PROTECT ? gw_sadb_out(&ctx->sadb, slot) : NULL);
		md->lk.stamp = GW_STAMP_OUT;
		return origin;
	} else {
		uint32_t hl, spi;
		void *sa = NULL;
		if (et == RTE_ETHER_TYPE_IPV4 && len >= sizeof(struct rte_ipv4_hdr)) {
			const struct rte_ipv4_hdr *ip = (const void *)f;
			if (ip->next_proto_id != GW_IPPROTO_ESP || rte_ipv4_frag_pkt_is_fragmented(ip))
				return origin;
			hl = rte_ipv4_hdr_len(ip);
		} else if (et == RTE_ETHER_TYPE_IPV6 && len >= sizeof(struct rte_ipv6_hdr)) {
			const struct rte_ipv6_hdr *ip = (const void *)f;
			if (ip->proto != GW_IPPROTO_ESP)
				return origin;
			hl = sizeof(*ip);
		} else {
			return origin;
		}
		if (len < hl + GW_ESP_HDR_LEN)
			return origin;
		memcpy(&spi, f + hl, 4);
		spi = rte_be_to_cpu_32(spi);
		if (rte_hash_lookup_data(ctx->sadb.sad, &spi, &sa) < 0)
			sa = NULL;
		gw_meta_set_sa(md, sa);
		md->lk.stamp = GW_STAMP_IN;
		if (sa != NULL && ((struct gw_sa *)sa)->owner >= 0)
			return (unsigned)((struct gw_sa *)sa)->owner;
		return origin;
	}
}

unsigned
gw_slow_poll(struct gw_ctx *ctx)
{
	static struct rte_mbuf *down[GW_WORKERS_MAX][GW_BURST_PACKETS];
	unsigned nd[GW_WORKERS_MAX] = { 0 };
	uint64_t now = rte_rdtsc();
	unsigned total = 0;

	if (try_offline(ctx))
		;
	else if (now - slow.online_since > rte_get_tsc_hz() / 1000000 * SLOW_HOLD_US)
		return 0;     /* let the workers drain so that a grace period can end */
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		struct rte_mbuf *pkts[GW_BURST_PACKETS];
		unsigned n = rte_ring_sc_dequeue_burst(ctx->slow_up[w], (void **)pkts,
						       GW_BURST_PACKETS, NULL);
		if (n == 0)
			continue;
		if (!slow.online) {
			rte_rcu_qsbr_thread_online(ctx->sadb.rcu, ctx->sadb.ctrl_reader);
			slow.online = true;
			slow.online_since = now;
		}
		for (unsigned i = 0; i < n; i++) {
			unsigned to = stamp(ctx, pkts[i], w);
			down[to][nd[to]++] = pkts[i];
		}
		for (unsigned to = 0; to < ctx->n_workers; to++) {
			unsigned k;
			if (nd[to] == 0)
				continue;
			k = rte_ring_sp_enqueue_burst(ctx->slow_down[to], (void **)down[to], nd[to], NULL);
			slow.sent += k;
			if (k < nd[to]) {
				gw_stats[rte_lcore_id()].drops[GW_DROP_RING_FULL] += nd[to] - k;
				rte_pktmbuf_free_bulk(&down[to][k], nd[to] - k);
			}
			nd[to] = 0;
		}
		total += n;
	}
	return total;
}
