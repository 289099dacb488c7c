/* SPDX-License-Identifier: BSD-3-Clause
 * The control lcore's part of L2 bridging: it is the only writer of the
 * bridges' MAC tables (gw_mac.h). It applies the workers' learn requests
 * (struct gw_l2_learn from ctx->l2_learn[w]: a source MAC new to the table or
 * seen at another place) and ages and reclaims the tables every tick.
 */
#include <rte_ring.h>

#include "ctrl_internal.h"
#include "gw_mac.h"

#define LEARN_BURST 32u            /* requests dequeued at once */
/* Ageing visits per tick: at least the table's default, and enough that a
 * whole table is visited within half its age (an entry lives at most 1.5 x
 * mac-age unheard). */
#define AGE_SWEEPS_PER_AGE 2u

unsigned
ctrl_l2_learn_drain(struct gw_ctrl *c, unsigned w)
{
	struct gw_ctx *ctx = c->ctx;
	struct rte_ring *r = ctx->l2_learn[w];
	struct gw_l2_learn ev[LEARN_BURST];
	unsigned total = 0, n;
	uint64_t now_ns;

	if (r == NULL || rte_ring_empty(r))
		return 0;
	now_ns = gw_mac_now_ns();
	/* the whole ring, bounded by its size: what was there before the punted
	 * packets just dequeued is all applied */
	do {
		n = rte_ring_sc_dequeue_burst_elem(r, ev, sizeof(ev[0]), LEARN_BURST, NULL);
		for (unsigned i = 0; i < n; i++) {
			const struct gw_l2_learn *e = &ev[i];
			struct gw_bridge *br;

			if (e->bridge >= ctx->n_bridges)
				continue;
			br = &ctx->bridges[e->bridge];
			if (e->where != GW_MAC_LOCAL && e->where >= br->n_remotes)
				continue;
			gw_mac_learn(br->mac, e->mac, e->vlan, e->where, now_ns);
		}
		total += n;
	} while (n == LEARN_BURST && total < GW_L2_LEARN_RING);
	return total;
}

void
ctrl_l2_tick(struct gw_ctrl *c)
{
	struct gw_ctx *ctx = c->ctx;
	uint64_t now_ns;

	if (ctx->n_bridges == 0)
		return;
	now_ns = gw_mac_now_ns();
	for (unsigned b = 0; b < ctx->n_bridges; b++) {
		const struct gw_conf_bridge *cb = &ctx->cfg->bridges[b];
		uint64_t ticks = (uint64_t)cb->mac_age_s * 1000 / GW_CTRL_TICK_MS /
				 AGE_SWEEPS_PER_AGE;
		uint64_t visits = ticks == 0 ? cb->mac_table_size : cb->mac_table_size / ticks + 1;

		gw_mac_age(ctx->bridges[b].mac, now_ns,
			   (unsigned)RTE_MAX(visits, (uint64_t)GW_MAC_AGE_VISITS_DEFAULT));
		gw_mac_reclaim(ctx->bridges[b].mac);
	}
}
