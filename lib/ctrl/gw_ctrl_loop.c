/* SPDX-License-Identifier: BSD-3-Clause
 * The control lcore's loop: poll the workers' rings (gw_ctrl_poll) and the
 * tasks of the layers above (HIP keying, lab features), run their timers,
 * and at the end the shutdown sequence: announce it (HIP CLOSE), let the rings
 * drain, stop the workers and answer what they punted last.
 */
#include <inttypes.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "gw_ctrl.h"
#include "gw_seqstate.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

#define IDLE_PASSES_SPIN 64  /* empty passes before the loop starts to sleep */
#define IDLE_PASSES_LONG 1024
#define IDLE_SLEEP_US 50     /* sleep of an idle pass, then of a long idle one */
#define IDLE_SLEEP_LONG_US 500
/* At shutdown, after the tasks' close (HIP CLOSE), their ticks keep running
 * this long (ms) so that what they sent can leave and be answered. */
#define CLOSE_GRACE_MS 200
/* At shutdown the control lcore keeps polling until the rings between it and
 * the workers are empty, for at most this long (ms): on shared CPUs a worker
 * may not run for milliseconds, and what the control lcore queued last (ICMP
 * errors, staged packets, CLOSE) would otherwise be dropped unsent. */
#define SHUTDOWN_DRAIN_MS 500
#define LAST_FLUSH_US 2000   /* the workers' last TX flush after their last dequeue */

/* True when no packet waits in a ring between the workers and the control
 * lcore, or between workers. */
static bool
rings_idle(const struct gw_ctx *ctx)
{
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		if (!rte_ring_empty(ctx->to_ctrl[w]) || !rte_ring_empty(ctx->from_ctrl[w]))
			return false;
		for (unsigned from = 0; from < ctx->n_workers; from++)
			if (ctx->handoff_ring[w][from] != NULL &&
			    !rte_ring_empty(ctx->handoff_ring[w][from]))
				return false;
	}
	return true;
}

/* The GW_CTRL_TICK_MS work: ARP/ND, GCM sequence state of manual out SAs, SA reclaim. */
static void
ctrl_tick_all(struct gw_ctrl *c, struct gw_ctx *ctx)
{
	gw_ctrl_tick(c);
	for (unsigned i = 0; i < ctx->sadb.n_slots; i++)
		if (ctx->sadb.owner[i] == NULL && ctx->sadb.out[i] != NULL)
			gw_seqstate_tick(ctx->sadb.out[i]);
	gw_sadb_reclaim(&ctx->sadb);
}

/* Stop: the tasks' close and grace ticks, the rings' drain, the workers. */
static void
ctrl_shutdown(struct gw_ctrl *c, struct gw_ctx *ctx, const struct gw_ctrl_task *t, unsigned n)
{
	uint64_t hz = rte_get_tsc_hz(), until;
	bool closing = false;

	for (unsigned i = 0; i < n; i++)
		if (t[i].close != NULL) {
			t[i].close(t[i].arg);
			closing = true;
		}
	until = rte_rdtsc() + hz / 1000 * CLOSE_GRACE_MS;
	while (closing && rte_rdtsc() < until) {
		gw_ctrl_poll(c);
		for (unsigned i = 0; i < n; i++)
			if (t[i].close != NULL && t[i].tick != NULL)
				t[i].tick(t[i].arg);
		rte_delay_us_sleep(1000);
	}
	until = rte_rdtsc() + hz / 1000 * SHUTDOWN_DRAIN_MS;
	do {
		gw_ctrl_poll(c);
		rte_delay_us_sleep(1000);
	} while (!rings_idle(ctx) && rte_rdtsc() < until);
	rte_delay_us_sleep(LAST_FLUSH_US);
	__atomic_store_n(&ctx->stop, true, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	gw_ctrl_poll(c);   /* drain punted packets */
}

void
gw_ctrl_run(struct gw_ctrl *c, struct gw_ctx *ctx, const struct gw_ctrl_task *t, unsigned n,
	    volatile int *signalled, uint64_t idle_exit_ms)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc(), next_tick = start;
	uint64_t next[GW_CTRL_TASKS_MAX];
	unsigned idle = 0;

	n = RTE_MIN(n, (unsigned)GW_CTRL_TASKS_MAX);
	for (unsigned i = 0; i < n; i++)
		next[i] = start;
	while (!*signalled) {
		uint64_t now;
		unsigned work = gw_ctrl_poll(c) + gw_ctrl_request_poll(c);

		for (unsigned i = 0; i < n; i++)
			if (t[i].poll != NULL)
				work += t[i].poll(t[i].arg);
		now = rte_rdtsc();
		for (unsigned i = 0; i < n; i++)
			if (t[i].tick != NULL && now >= next[i]) {
				next[i] = now + hz / 1000 * t[i].tick_ms;
				t[i].tick(t[i].arg);
			}
		if (now >= next_tick) {
			uint64_t last = ctx->last_rx_tsc ? ctx->last_rx_tsc : start;

			next_tick = now + hz / 1000 * GW_CTRL_TICK_MS;
			ctrl_tick_all(c, ctx);
			if (idle_exit_ms && now > last && (now - last) / (hz / 1000) >= idle_exit_ms) {
				LOG(NOTICE, "no packet for %" PRIu64 " ms: stopping\n", idle_exit_ms);
				break;
			}
		}
		if (work)
			idle = 0;
		else if (++idle > IDLE_PASSES_SPIN)
			rte_delay_us_sleep(idle > IDLE_PASSES_LONG ? IDLE_SLEEP_LONG_US : IDLE_SLEEP_US);
	}
	ctrl_shutdown(c, ctx, t, n);
}
