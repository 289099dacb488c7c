/* SPDX-License-Identifier: BSD-3-Clause
 * Lab features (benchmarks and diagnostics, never for production traffic),
 * each reaching the fast path through one narrow hook: --slow-path (the
 * workers' slow_up / slow_down rings, gw_slowpath.c), [sa-gen] (SAs
 * installed by the control lcore into the tables, gw_sagen_install.c) and
 * [mbox-gen] (middlebox flows, gw_mboxgen_install.c).
 */
#ifndef HIPGW_LAB_H
#define HIPGW_LAB_H

#include <stddef.h>
#include "gw_ctx.h"

/* --slow-path on the control lcore (gw_slowpath.c): init once before the
 * workers start; poll from the control loop (frames handled this call). */
void gw_slow_init(struct gw_ctx *ctx);
unsigned gw_slow_poll(struct gw_ctx *ctx);

/* [sa-gen] (gw_sagen_install.c). Setup: the generated SAs' tables, before the
 * workers start (0, or -1 with a message). Step: install the next batch
 * (control lcore, workers running); returns how many SA indexes it did, 0
 * when there is nothing (left) to do. */
int gw_sagen_setup(struct gw_ctx *ctx, char *err, size_t errlen);
unsigned gw_sagen_step(struct gw_ctx *ctx);

/* [mbox-gen] (gw_mboxgen_install.c): every generated flow into
 * ctx->mbox_flows, before the workers start. 0, or -1 with a message naming
 * the config line. */
int gw_mboxgen_install(struct gw_ctx *ctx, char *err, size_t errlen);

#endif
