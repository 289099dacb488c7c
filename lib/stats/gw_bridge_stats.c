/* SPDX-License-Identifier: BSD-3-Clause
 * The L2 bridges' MAC tables in the stats output (gw_bridge_stats.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_ether.h>

#include "gw_bridge_stats.h"
#include "gw_sinks.h"

void
gw_bridges_emit(const struct gw_ctx *ctx, struct gw_stat_sink *s)
{
	for (unsigned b = 0; b < ctx->n_bridges; b++) {
		const struct gw_bridge *br = &ctx->bridges[b];
		const struct gw_mac_counters *c = gw_mac_counters(br->mac);

		s->begin(s, ctx->cfg->bridges[b].name);
		s->str(s, "port", ctx->ports[br->port].name);
		s->u64(s, "remotes", br->n_remotes);
		s->u64(s, "entries", gw_mac_count(br->mac));
		s->u64(s, "capacity", gw_mac_capacity(br->mac));
		s->u64(s, "pending", gw_mac_pending(br->mac));
		s->u64(s, "bytes_per_entry", gw_mac_bytes_per_entry(br->mac));
#define X(name, doc) s->u64(s, #name, __atomic_load_n(&c->name, __ATOMIC_RELAXED));
		GW_BRIDGE_MAC_COUNTERS(X)
#undef X
		s->end(s);
	}
}

/* The name of entry place `where` of bridge b: "local", the remote's [peer]
 * (a bridge with peers) or the name of the out SA in its slot. */
static const char *
where_name(struct gw_ctx *ctx, unsigned b, uint32_t where, char *buf, size_t len)
{
	const struct gw_conf_bridge *cb = &ctx->cfg->bridges[b];
	const struct gw_bridge *br = &ctx->bridges[b];
	const struct gw_sa *sa;

	if (where == GW_MAC_LOCAL)
		return "local";
	if (where < cb->n_peers)
		return ctx->cfg->peers[cb->peers[where]].name;
	if (where < br->n_remotes) {
		sa = gw_sadb_out(&ctx->sadb, br->remote_slot[where]);
		if (sa != NULL) {
			snprintf(buf, len, "%s", sa->name);
			return buf;
		}
	}
	snprintf(buf, len, "remote%" PRIu32, where);   /* no SA in the slot now */
	return buf;
}

/* Bridge NAME of "NAME[,CURSOR]" into *b and the cursor; -1 when there is
 * no such bridge or CURSOR is not a number below 2^32. */
static int
parse_params(const struct gw_ctx *ctx, const char *params, unsigned *b, uint32_t *cursor)
{
	const char *comma;
	size_t n;

	if (params == NULL)
		return -1;
	comma = strchr(params, ',');
	n = comma != NULL ? (size_t)(comma - params) : strlen(params);
	*cursor = 0;
	if (comma != NULL) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(comma + 1, &end, 10);
		if (comma[1] < '0' || comma[1] > '9' || *end != '\0' || errno != 0 ||
		    v > UINT32_MAX)
			return -1;
		*cursor = (uint32_t)v;
	}
	for (*b = 0; *b < ctx->n_bridges; (*b)++) {
		const char *name = ctx->cfg->bridges[*b].name;

		if (strlen(name) == n && memcmp(name, params, n) == 0)
			return 0;
	}
	return -1;
}

/* One entry as a dict. */
static struct rte_tel_data *
entry_tel(struct gw_ctx *ctx, unsigned b, const struct gw_mac_entry *e, uint64_t now_ns)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	char mac[RTE_ETHER_ADDR_FMT_SIZE], where[GW_CONF_NAME_MAX];
	struct rte_ether_addr a;

	if (d == NULL)
		return NULL;
	memcpy(a.addr_bytes, e->key.mac, GW_MAC_ADDR_BYTES);
	rte_ether_format_addr(mac, sizeof(mac), &a);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mac", mac);
	rte_tel_data_add_dict_u64(d, "vlan", e->key.vlan);
	rte_tel_data_add_dict_string(d, "where", where_name(ctx, b, e->where, where, sizeof(where)));
	rte_tel_data_add_dict_u64(d, "static", e->is_static);
	if (e->last_seen_ns != 0)
		rte_tel_data_add_dict_u64(d, "age_s", now_ns > e->last_seen_ns ?
					  (now_ns - e->last_seen_ns) / NS_PER_S : 0);
	return d;
}

int
gw_bridge_macs_tel(struct gw_ctx *ctx, const char *params, uint64_t now_ns,
		   struct rte_tel_data *d)
{
	struct rte_tel_data *macs;
	struct gw_mac_entry e;
	uint32_t cursor, start;
	unsigned b, n = 0;
	bool end = false;

	if (parse_params(ctx, params, &b, &cursor) != 0)
		return -1;
	start = cursor;
	macs = rte_tel_data_alloc();
	if (macs == NULL)
		return -1;
	rte_tel_data_start_dict(macs);
	while (n < GW_BRIDGE_MACS_PAGE) {
		struct rte_tel_data *ed;
		char key[16];

		if (gw_mac_iterate(ctx->bridges[b].mac, &cursor, &e) != 0) {
			end = true;
			break;
		}
		ed = entry_tel(ctx, b, &e, now_ns);
		snprintf(key, sizeof(key), "e%u", n++);
		if (ed != NULL)
			rte_tel_data_add_dict_container(macs, key, ed, 0);
	}
	/* a full page that took the last entry: the next one is empty */
	if (!end && gw_mac_iterate(ctx->bridges[b].mac, &(uint32_t){ cursor }, &e) != 0)
		end = true;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "bridge", ctx->cfg->bridges[b].name);
	rte_tel_data_add_dict_u64(d, "entries", gw_mac_count(ctx->bridges[b].mac));
	rte_tel_data_add_dict_u64(d, "capacity", gw_mac_capacity(ctx->bridges[b].mac));
	rte_tel_data_add_dict_u64(d, "cursor", start);
	rte_tel_data_add_dict_u64(d, "next", end ? 0 : cursor);
	rte_tel_data_add_dict_container(d, "macs", macs, 0);
	return 0;
}
