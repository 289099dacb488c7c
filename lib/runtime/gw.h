/* SPDX-License-Identifier: BSD-3-Clause
 * The gateway runtime: built from a config (ports, routes, neighbours, SAs,
 * rings, mempool), run (workers on their lcores, control on the main lcore),
 * stopped and reported (stats JSON, DPDK telemetry /hipgw/stats).
 */
#ifndef HIPGW_GW_H
#define HIPGW_GW_H

#include <stdio.h>
#include "gw_ctx.h"

struct gw_run_opts {
	const char *stats_json;        /* path or NULL */
	uint64_t idle_exit_ms;         /* 0 = never */
	volatile int *signalled;       /* set non-zero by SIGINT / SIGTERM */
	FILE *keylog;                  /* --keylog: one tshark esp_sa line per new HIP SA, or NULL */
	bool slow_path;                /* --slow-path: the control lcore looks up every data
	                                * frame's SA (a diagnostic; gw_slowpath.c) */
	uint32_t test_pmtu_age_s;      /* --test-pmtu-age: seconds a lowered path MTU lasts,
	                                * instead of the config's pmtu-age (tests: below RFC
	                                * 8201 section 4's 5 minutes); 0 = the config's */
};

/* Build everything from cfg after rte_eal_init (opts: only slow_path and
 * test_pmtu_age_s are read here; NULL = defaults). Returns 0, or -1 with a one-line message in err. On
 * failure, gw_destroy() still cleans up. */
int gw_create(struct gw_ctx *ctx, const struct gw_config *cfg, const struct gw_run_opts *opts,
	      char *err, size_t errlen);

/* Launch workers, run the control loop on this (main) lcore until a signal or
 * idle exit, stop workers and ports, write the stats file. Returns 0 or -1. */
int gw_run(struct gw_ctx *ctx, const struct gw_run_opts *opts);

/* Close ports, free tables and SAs (keys wiped). */
void gw_destroy(struct gw_ctx *ctx);

#endif
