/* SPDX-License-Identifier: BSD-3-Clause
 * HIP keying on the control lcore: the glue between the protocol engine
 * (lib/hip) and the gateway's tables (SPD slots, SAD, staging of packets
 * that wait for a Base Exchange, retiring replaced SAs, the --keylog, BEET
 * packets of the HITs). Its counters out for the stats file and telemetry.
 */
#ifndef HIPGW_KEYING_H
#define HIPGW_KEYING_H

#include <stdbool.h>
#include <stdio.h>
#include "gw_ctrl.h"
#include "gw_statsink.h"

/* HIP keying on the control lcore (gw_hip.c; its counters out: gw_hip_stats.c).
 * NULL when the config has no [peer]. */
struct gw_hip;
/* keylog: NULL, or a stream that gets one line per new SA in the field order
 * of tshark's esp_sa UAT table (--keylog; it holds the ESP keys in clear). */
struct gw_hip *gw_hip_create(struct gw_ctx *ctx, struct gw_ctrl *ctrl, FILE *keylog, char *err,
			     size_t errlen);
/* The SPD out slot (gw_sadb) of [peer] index `peer` (into cfg->peers), -1
 * when g is NULL or there is no such peer. */
int gw_hip_peer_slot(const struct gw_hip *g, unsigned peer);
void gw_hip_tick(struct gw_hip *g);
void gw_hip_close_all(struct gw_hip *g);
void gw_hip_free(struct gw_hip *g);
/* Ask the control lcore to send one ICMPv6 echo request from our HIT to the
 * HIT of [peer] `peer`, in BEET (any thread: telemetry). 0, or -1 when there
 * is no such peer. */
int gw_hip_hit_ping(struct gw_hip *g, const char *peer);
/* The hip object's members into the current object of sink s: "hit", the
 * engine-wide counters and "drops" of gw_hip_counters.h; with_peers adds
 * "peers", one object per [peer] (with many peers a telemetry reply can
 * exceed DPDK telemetry's 16 KB). Both outputs (the --stats-json file and
 * telemetry) take the same walk (docs/counters.md). */
void gw_hip_stats_emit(struct gw_hip *g, struct gw_stat_sink *s, bool with_peers);
/* One [peer]'s counters and last BEX times (hip.peers.NAME; telemetry
 * /hipgw/hip_peer,NAME) into the current object of s. 0, or -1 when no
 * [peer] has that name. */
int gw_hip_peer_emit(struct gw_hip *g, const char *name, struct gw_stat_sink *s);
#endif
