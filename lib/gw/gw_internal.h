/* SPDX-License-Identifier: BSD-3-Clause
 * Shared between lib/gw's files only.
 */
#ifndef HIPGW_GW_INTERNAL_H
#define HIPGW_GW_INTERNAL_H

#include "gw.h"
#include "gw_ctrl.h"

/* In SA: accept inner destinations in the inner ports' networks and routes
 * (RFC 4301 section 5.2 default). */
void gw_sa_default_dst(const struct gw_config *cfg, struct gw_sa *sa);

/* The control lcore's own send-only AF_PACKET socket on a net_af_packet port
 * (gw_ctrlsock.c): bound to the port's interface (info->if_index, else the
 * iface= devarg of pc->device), PACKET_QDISC_BYPASS as the PMD's qdisc_bypass
 * devarg (default 1). Returns the fd (non-blocking, close-on-exec), or -1 with
 * the reason in why. packet(7). */
struct rte_eth_dev_info;
int gw_ctrlsock_open(const struct gw_conf_port *pc, const struct rte_eth_dev_info *info,
		     char *why, size_t whylen);

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

/* HIP keying on the control lcore (gw_hip.c; its counters out: gw_hip_stats.c).
 * NULL when the config has no [peer]. */
struct gw_hip;
/* keylog: NULL, or a stream that gets one line per new SA in the field order
 * of tshark's esp_sa UAT table (--keylog; it holds the ESP keys in clear). */
struct gw_hip *gw_hip_create(struct gw_ctx *ctx, struct gw_ctrl *ctrl, FILE *keylog, char *err,
			     size_t errlen);
void gw_hip_tick(struct gw_hip *g);
void gw_hip_close_all(struct gw_hip *g);
void gw_hip_free(struct gw_hip *g);
void gw_hip_stats_json(struct gw_hip *g, FILE *f);
/* The stats document of gw_stats_write_json, with the "hip" object when hip is set. */
void gw_stats_write_json_hip(struct gw_ctx *ctx, struct gw_hip *hip, FILE *f);
/* Ask the control lcore to send one ICMPv6 echo request from our HIT to the
 * HIT of [peer] `peer`, in BEET (any thread: telemetry). 0, or -1 when there
 * is no such peer. */
int gw_hip_hit_ping(struct gw_hip *g, const char *peer);
struct rte_tel_data;
/* The same figures for DPDK telemetry (times in us: telemetry has no floats here). */
/* The hip counters as a telemetry dict; with_peers adds "peers" (one dict per
 * [peer]: with many peers the whole reply can exceed DPDK telemetry's 16 KB). */
void gw_hip_stats_tel(struct gw_hip *g, struct rte_tel_data *d, bool with_peers);
/* One [peer]'s counters and last BEX times (telemetry /hipgw/hip_peer,NAME).
 * 0, or -1 when no [peer] has that name. */
int gw_hip_peer_tel(struct gw_hip *g, const char *name, struct rte_tel_data *d);
/* Telemetry /hipgw/stats gains a "hip" object while g is set (NULL: none). */
void gw_telemetry_set_hip(struct gw_hip *g);
/* Before the tables go: telemetry requests from now on answer nothing (waits
 * for a request being answered). */
void gw_telemetry_stop(void);

#endif
