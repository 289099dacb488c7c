/* SPDX-License-Identifier: BSD-3-Clause
 * Middlebox mode's part of gw_create / gw_run / gw_destroy (lib/runtime
 * only; docs/middlebox.md): the pair of bridged ports, the flow table, the
 * [mbox-gen] lab flows, and the control lcore's glue to the tracker
 * (gw_mbox_glue.c: HIP to lib/mbox, out of the other port or dropped).
 */
#ifndef HIPGW_MBOX_SETUP_H
#define HIPGW_MBOX_SETUP_H

#include <stddef.h>
#include "gw_ctx.h"
#include "gw_ctrl.h"
#include "gw_statsink.h"

/* After the ports and the SA tables (whose RCU variable the flow table
 * shares): the flow table (GW_MBOX_FLOWS_PER_ASSOC flows per association of
 * max-associations, plus the [mbox-gen] count), each port's pair
 * (ctx->mbox_peer), the [mbox-gen] flows. Nothing in gateway mode. Returns
 * 0, or -1 with a message in err. */
int gw_mbox_setup(struct gw_ctx *ctx, const struct gw_config *cfg, char *err, size_t errlen);

/* Free the flow table (the workers stopped). */
void gw_mbox_free(struct gw_ctx *ctx);

/* The control lcore's glue to the tracker (gw_mbox_glue.c). create: the
 * tracker (mbox_create with the config's rules, [host] Host Identities and
 * [middlebox] parameters, ctx->mbox_flows), and c's mbox_hip hook; NULL with
 * a message in err. tick: the tracker's timers (mbox_tick) and the flow
 * table's reclaim, every GW_MBOX_TICK_MS. free: the tracker (NULL: nothing). */
struct gw_mbox_glue;
struct gw_mbox_glue *gw_mbox_glue_create(struct gw_ctx *ctx, struct gw_ctrl *c, char *err,
					 size_t errlen);
void gw_mbox_glue_tick(struct gw_mbox_glue *g);
/* The tracker's figures for the "middlebox" stats object (a gw_mbox_emit_fn,
 * arg the glue; any thread): its mbox_stats as of the last tick:
 * "associations" {"now", "pending", "i1_sources"}, "hip" (MBOX_COUNTER_LIST),
 * "hip_drops" (HIP the tracker dropped, by its reason: MBOX_DROP_LIST). */
void gw_mbox_glue_emit(void *arg, struct gw_stat_sink *s);
/* Write the tracker's state file if it changed since its last write (an
 * error logged), then free the glue and the tracker. Control lcore, at
 * shutdown (the workers stopped); NULL: nothing. */
void gw_mbox_glue_free(struct gw_mbox_glue *g);
#define GW_MBOX_TICK_MS 10   /* ms between tracker ticks: idle ageing, rekey grace, state file */

#endif
