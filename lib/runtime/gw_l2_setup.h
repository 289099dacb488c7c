/* SPDX-License-Identifier: BSD-3-Clause
 * L2 mode's part of gw_create / gw_destroy (lib/runtime only): which SAs
 * carry a bridge's frames, and each bridge's MAC table and remotes' out
 * slots in struct gw_ctx.
 */
#ifndef HIPGW_L2_SETUP_H
#define HIPGW_L2_SETUP_H

#include <stddef.h>
#include "gw_ctx.h"

/* 1 + the index of the bridge whose `sas` list SA sa_idx (into cfg->sas), 0: none. */
uint8_t gw_l2_sa_bridge(const struct gw_config *cfg, unsigned sa_idx);

/* The remote index (into gw_bridge.remote_slot) of a bridge's manual SA
 * sa_idx: the bridge's remotes are its peers (remote r: the r-th of its
 * `peers`), then the distinct remote addresses of its out SAs, in the order
 * of its `sas` list; an in SA belongs to the remote its packets come from.
 * 0 when the SA is in no bridge. */
uint8_t gw_l2_sa_remote(const struct gw_config *cfg, unsigned sa_idx);

/* After the SAs are installed: per bridge its MAC table (gw_mac_create on the
 * SA tables' RCU variable, static entries added), its manual remotes' out
 * slots, its port's ctx->port_bridge entry, and the port in promiscuous
 * mode. Returns 0, or -1 with a message in err. */
int gw_l2_setup(struct gw_ctx *ctx, const struct gw_config *cfg, char *err, size_t errlen);

/* After gw_hip_create (hip: NULL without [peer]) and before any worker runs:
 * each bridge peer's out slot (gw_hip_peer_slot) as its remote's
 * remote_slot. Returns 0, or -1 with "FILE:LINE: [bridge NAME]: ..." in err. */
struct gw_hip;
int gw_l2_setup_peers(struct gw_ctx *ctx, const struct gw_hip *hip, char *err, size_t errlen);

/* Free the bridges' MAC tables (the workers stopped). */
void gw_l2_free(struct gw_ctx *ctx);

#endif
