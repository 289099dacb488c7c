/* SPDX-License-Identifier: BSD-3-Clause
 * L2 mode at start and exit: the bridges of struct gw_ctx built from the
 * [bridge] sections (gw_l2_setup.h).
 */
#include <stdio.h>
#include <string.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "gw_l2_setup.h"
#include "gw_keying.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

uint8_t
gw_l2_sa_bridge(const struct gw_config *cfg, unsigned sa_idx)
{
	for (unsigned b = 0; b < cfg->n_bridges; b++)
		for (unsigned k = 0; k < cfg->bridges[b].n_sas; k++)
			if (cfg->bridges[b].sas[k] == sa_idx)
				return (uint8_t)(b + 1);
	return 0;
}

/* The remote index of manual SA sa_idx in bridge b: the bridge's peers come
 * first (remote r: its r-th peer), then the distinct remote addresses of its
 * out SAs, in the order of its `sas` list. Returns -1 when no out SA of the
 * bridge goes to that SA's remote. */
static int
remote_of(const struct gw_config *cfg, unsigned b, unsigned sa_idx)
{
	const struct gw_conf_bridge *br = &cfg->bridges[b];
	const struct gw_addr *want = &cfg->sas[sa_idx].remote;
	int n = (int)br->n_peers;

	for (unsigned k = 0; k < br->n_sas; k++) {
		const struct gw_conf_sa *c = &cfg->sas[br->sas[k]];
		bool seen = false;

		if (c->dir != GW_DIR_OUT)
			continue;
		for (unsigned j = 0; j < k && !seen; j++) {
			const struct gw_conf_sa *o = &cfg->sas[br->sas[j]];

			seen = o->dir == GW_DIR_OUT && gw_addr_eq(&o->remote, &c->remote);
		}
		if (seen)
			continue;
		if (gw_addr_eq(&c->remote, want))
			return n;
		n++;
	}
	return -1;
}

uint8_t
gw_l2_sa_remote(const struct gw_config *cfg, unsigned sa_idx)
{
	uint8_t b = gw_l2_sa_bridge(cfg, sa_idx);
	int r = b != 0 ? remote_of(cfg, b - 1u, sa_idx) : -1;

	return r < 0 ? 0 : (uint8_t)r;
}

/* The out slot whose (manual, never replaced) SA is named `name`, or -1. */
static int
slot_of(const struct gw_sadb *db, const char *name)
{
	for (unsigned s = 0; s < db->n_slots; s++)
		if (db->out[s] != NULL && strcmp(db->out[s]->name, name) == 0)
			return (int)s;
	return -1;
}

/* Bridge b: MAC table with its static entries, the out slots of its manual
 * remotes (those of its peers: gw_l2_setup_peers). */
static int
bridge_setup(struct gw_ctx *ctx, const struct gw_config *cfg, unsigned b, char *err,
	     size_t errlen)
{
	const struct gw_conf_bridge *br = &cfg->bridges[b];
	struct gw_bridge *g = &ctx->bridges[b];
	char name[64];
	struct gw_mac_params mp = {
		.name = name, .max_entries = br->mac_table_size,
		.age_ns = (uint64_t)br->mac_age_s * NS_PER_S,
		.rcu = ctx->sadb.rcu, .socket = SOCKET_ID_ANY,
	};

	snprintf(name, sizeof(name), "hipgw_mac%u", b);
	g->port = br->port;
	g->link_local_pass = br->link_local_pass;
	g->n_remotes = br->n_peers;
	for (unsigned k = 0; k < br->n_sas; k++) {
		const struct gw_conf_sa *c = &cfg->sas[br->sas[k]];
		int r = remote_of(cfg, b, br->sas[k]);
		int slot;

		if (r < 0) {
			snprintf(err, errlen, "%s:%u: [bridge %s]: SA %s: no out SA of the bridge "
				 "goes to its remote", cfg->path, br->line, br->name, c->name);
			return -1;
		}
		if (c->dir != GW_DIR_OUT || (unsigned)r < g->n_remotes)
			continue;
		if (r >= GW_BRIDGE_REMOTES_MAX) {
			snprintf(err, errlen, "%s:%u: [bridge %s]: out SA %s: more than %u remotes "
				 "(peers and the remotes of sas)", cfg->path, br->line, br->name,
				 c->name, GW_BRIDGE_REMOTES_MAX);
			return -1;
		}
		slot = slot_of(&ctx->sadb, c->name);
		if (slot < 0) {
			snprintf(err, errlen, "%s:%u: [bridge %s]: out SA %s not installed",
				 cfg->path, br->line, br->name, c->name);
			return -1;
		}
		g->remote_slot[g->n_remotes++] = (uint32_t)slot;
	}
	if (g->n_remotes == 0) {
		snprintf(err, errlen, "%s:%u: [bridge %s]: no out SA installed", cfg->path,
			 br->line, br->name);
		return -1;
	}
	g->mac = gw_mac_create(&mp);
	if (g->mac == NULL) {
		snprintf(err, errlen, "%s:%u: [bridge %s]: cannot create its MAC table (%s)",
			 cfg->path, br->line, br->name, rte_strerror(rte_errno));
		return -1;
	}
	for (unsigned i = 0; i < br->n_statics; i++) {
		const struct gw_conf_bridge_static *st = &br->statics[i];
		uint32_t where = GW_MAC_LOCAL;

		if (st->dest == GW_BRIDGE_DEST_SA) {
			int r = remote_of(cfg, b, st->dest_idx);

			if (r < 0) {
				snprintf(err, errlen, "%s:%u: [bridge %s]: static entry %u: its SA "
					 "has no remote of the bridge", cfg->path, br->line,
					 br->name, i + 1);
				return -1;
			}
			where = (uint32_t)r;
		} else if (st->dest == GW_BRIDGE_DEST_PEER) {
			where = cfg->peers[st->dest_idx].bridge_remote;   /* a peer of this bridge */
		}

		if (gw_mac_add_static(g->mac, st->mac, st->vlan, where) != 0) {
			snprintf(err, errlen, "%s:%u: [bridge %s]: cannot add static entry %u",
				 cfg->path, br->line, br->name, i + 1);
			return -1;
		}
	}
	ctx->port_bridge[br->port] = (uint8_t)(b + 1);
	if (rte_eth_promiscuous_enable(ctx->ports[br->port].port_id) != 0)
		LOG(WARNING, "bridge %s: port %s: cannot enable promiscuous mode\n", br->name,
		    ctx->ports[br->port].name);
	LOG(INFO, "bridge %s: port %s, %u remote(s), MAC table of %u entries\n", br->name,
	    ctx->ports[br->port].name, g->n_remotes, br->mac_table_size);
	return 0;
}

int
gw_l2_setup(struct gw_ctx *ctx, const struct gw_config *cfg, char *err, size_t errlen)
{
	for (unsigned b = 0; b < cfg->n_bridges; b++) {
		if (bridge_setup(ctx, cfg, b, err, errlen) != 0)
			return -1;
		ctx->n_bridges++;
	}
	return 0;
}

int
gw_l2_setup_peers(struct gw_ctx *ctx, const struct gw_hip *hip, char *err, size_t errlen)
{
	const struct gw_config *cfg = ctx->cfg;

	for (unsigned b = 0; b < ctx->n_bridges; b++) {
		const struct gw_conf_bridge *br = &cfg->bridges[b];

		for (unsigned r = 0; r < br->n_peers; r++) {
			int slot = gw_hip_peer_slot(hip, br->peers[r]);

			if (slot < 0) {
				snprintf(err, errlen, "%s:%u: [bridge %s]: peer %s has no out slot",
					 cfg->path, br->line, br->name, br->peer_names[r]);
				return -1;
			}
			ctx->bridges[b].remote_slot[r] = (uint32_t)slot;
		}
	}
	return 0;
}

void
gw_l2_free(struct gw_ctx *ctx)
{
	for (unsigned b = 0; b < GW_CONF_MAX_BRIDGES; b++) {
		gw_mac_free(ctx->bridges[b].mac);
		ctx->bridges[b].mac = NULL;
	}
	ctx->n_bridges = 0;
}
