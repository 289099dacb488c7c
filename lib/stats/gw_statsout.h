/* SPDX-License-Identifier: BSD-3-Clause
 * Counters out: the --stats-json file and DPDK telemetry (/hipgw/stats,
 * /hipgw/hip, /hipgw/hip_peer, /hipgw/hit_ping, /hipgw/set_address, /hipgw/sagen, /hipgw/bridges,
 * /hipgw/bridge_macs, /hipgw/mbox, /hipgw/mbox_flows, /hipgw/mbox_rules), both from one
 * snapshot of the per-lcore counters, the tables and HIP keying.
 */
#ifndef HIPGW_STATSOUT_H
#define HIPGW_STATSOUT_H

#include <stdio.h>
#include "gw_ctx.h"
#include "gw_keying.h"
#include "gw_mbox_stats.h"

/* Write all counters as JSON (the shape docs/counters.md gives) to f. */
void gw_stats_write_json(struct gw_ctx *ctx, FILE *f);
/* The stats document of gw_stats_write_json, with the "hip" object when hip is set. */
void gw_stats_write_json_hip(struct gw_ctx *ctx, struct gw_hip *hip, FILE *f);

/* Register /hipgw/stats (and the HIP, [sa-gen] and bridge commands) with DPDK
 * telemetry. 0, or -1 when DPDK refuses a command. */
int gw_telemetry_register(struct gw_ctx *ctx);

/* Telemetry /hipgw/stats gains a "hip" object while g is set (NULL: none). */
void gw_telemetry_set_hip(struct gw_hip *g);
/* Middlebox mode: the "middlebox" object (file and telemetry) ends with what
 * fn(arg) writes, the tracker's figures, while fn is set (NULL: none). */
void gw_telemetry_set_mbox(gw_mbox_emit_fn *fn, void *arg);
/* /hipgw/set_address (gw_addr_tel.c) takes requests for the control lcore c
 * while it is set (NULL: answered with an error); registered by
 * gw_telemetry_register. */
struct gw_ctrl;
void gw_telemetry_set_ctrl(struct gw_ctrl *c);
int gw_addr_tel_register(void);
/* Before the tables go: telemetry requests from now on answer nothing (waits
 * for a request being answered). */
void gw_telemetry_stop(void);

#endif
