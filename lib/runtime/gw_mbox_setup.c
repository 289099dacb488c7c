/* SPDX-License-Identifier: BSD-3-Clause
 * Middlebox mode's part of gw_create and gw_destroy (gw_mbox_setup.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "gw_lab.h"
#include "gw_mbox_setup.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

int
gw_mbox_setup(struct gw_ctx *ctx, const struct gw_config *cfg, char *err, size_t errlen)
{
	const struct gw_conf_mbox *m = &cfg->mbox;
	uint64_t max = (uint64_t)m->max_assocs * GW_MBOX_FLOWS_PER_ASSOC + cfg->mboxgen.count;
	unsigned a = m->ports[0], b = m->ports[1];

	if (cfg->mode != GW_MODE_MIDDLEBOX)
		return 0;
	/* the config check bounds both: never more than a table holds */
	if (max > GW_MBOX_FLOWS_MAX)
		max = GW_MBOX_FLOWS_MAX;
	ctx->mbox_flows = gw_mbox_flows_create("hipgw_mbox_flows", (uint32_t)max, ctx->n_workers,
					       ctx->sadb.rcu, rte_socket_id());
	if (ctx->mbox_flows == NULL) {
		snprintf(err, errlen, "%s:%u: [middlebox]: cannot create a flow table of %" PRIu64
			 " flows (%s; lower max-associations, or give EAL more memory with -m)",
			 cfg->path, m->line, max, rte_strerror(rte_errno));
		return -1;
	}
	ctx->mbox_peer[a] = (uint8_t)(b + 1);
	ctx->mbox_peer[b] = (uint8_t)(a + 1);
	LOG(INFO, "middlebox: ports %s and %s bridged; flow table of %" PRIu64 " flows, %zu bytes "
	    "each\n", ctx->ports[a].name, ctx->ports[b].name, max,
	    gw_mbox_flows_bytes_per_flow(ctx->mbox_flows));
	return gw_mboxgen_install(ctx, err, errlen);
}

void
gw_mbox_free(struct gw_ctx *ctx)
{
	gw_mbox_flows_free(ctx->mbox_flows);
	ctx->mbox_flows = NULL;
	memset(ctx->mbox_peer, 0, sizeof(ctx->mbox_peer));
}
