/* SPDX-License-Identifier: BSD-3-Clause
 * Middlebox mode in the stats output (gw_mbox_stats.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_mbox_stats.h"

#define NS_PER_SEC 1000000000ull

void
gw_mbox_emit(const struct gw_ctx *ctx, struct gw_stat_sink *s, gw_mbox_emit_fn *extra, void *arg)
{
	const struct gw_mbox_flows *f = ctx->mbox_flows;
	const struct gw_conf_mbox *m = &ctx->cfg->mbox;

	s->begin(s, "ports");
	s->str(s, "a", ctx->ports[m->ports[0]].name);
	s->str(s, "b", ctx->ports[m->ports[1]].name);
	s->end(s);
	s->u64(s, "flows", gw_mbox_flows_count(f));
	s->u64(s, "lab_flows", f != NULL ? gw_mbox_flows_lab_count(f) : 0);
	s->u64(s, "capacity", f != NULL ? gw_mbox_flows_capacity(f) : 0);
	s->u64(s, "pending", f != NULL ? gw_mbox_flows_pending(f) : 0);
	s->u64(s, "bytes_per_flow", f != NULL ? gw_mbox_flows_bytes_per_flow(f) : 0);
#define X(name, field, doc) \
	s->u64(s, #name, gw_stats_total(offsetof(struct gw_lcore_stats, field)));
	GW_MBOX_COUNTERS(X)
#undef X
	if (extra != NULL)
		extra(arg, s);
}

/* CURSOR of "[CURSOR]" into *cursor (none: 0); -1 when it is no number below 2^32. */
static int
parse_cursor(const char *params, uint32_t *cursor)
{
	unsigned long long v;
	char *end;

	*cursor = 0;
	if (params == NULL || params[0] == '\0')
		return 0;
	errno = 0;
	v = strtoull(params, &end, 10);
	if (params[0] < '0' || params[0] > '9' || *end != '\0' || errno != 0 || v > UINT32_MAX)
		return -1;
	*cursor = (uint32_t)v;
	return 0;
}

/* One flow as a dict. */
static struct rte_tel_data *
flow_tel(const struct gw_mbox_flow *fl, const struct gw_mbox_flow_stats *st, uint64_t now_ns)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	char a[INET6_ADDRSTRLEN];

	if (d == NULL)
		return NULL;
	inet_ntop(fl->key.family == 4 ? AF_INET : AF_INET6, fl->key.dst, a, sizeof(a));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "dst", a);
	rte_tel_data_add_dict_u64(d, "spi", fl->key.spi);
	rte_tel_data_add_dict_u64(d, "assoc", fl->assoc);
	rte_tel_data_add_dict_u64(d, "lab", fl->lab);
	rte_tel_data_add_dict_u64(d, "packets", st->packets);
	rte_tel_data_add_dict_u64(d, "bytes", st->bytes);
	if (st->last_seen_ns != 0)
		rte_tel_data_add_dict_u64(d, "age_s", now_ns > st->last_seen_ns ?
					  (now_ns - st->last_seen_ns) / NS_PER_SEC : 0);
	return d;
}

int
gw_mbox_flows_tel(struct gw_ctx *ctx, const char *params, uint64_t now_ns, struct rte_tel_data *d)
{
	const struct gw_mbox_flows *f = ctx->mbox_flows;
	struct gw_mbox_flow_stats st;
	struct rte_tel_data *entries;
	struct gw_mbox_flow fl;
	uint32_t cursor, start;
	unsigned n = 0;
	bool end = false;

	if (f == NULL || parse_cursor(params, &cursor) != 0)
		return -1;
	start = cursor;
	entries = rte_tel_data_alloc();
	if (entries == NULL)
		return -1;
	rte_tel_data_start_dict(entries);
	while (n < GW_MBOX_FLOWS_PAGE) {
		struct rte_tel_data *e;
		char key[16];

		if (gw_mbox_flow_iterate(f, &cursor, &fl, &st) != 0) {
			end = true;
			break;
		}
		e = flow_tel(&fl, &st, now_ns);
		snprintf(key, sizeof(key), "f%u", n++);
		if (e != NULL)
			rte_tel_data_add_dict_container(entries, key, e, 0);
	}
	/* a full page that took the last flow: the next one is empty */
	if (!end && gw_mbox_flow_iterate(f, &(uint32_t){ cursor }, &fl, NULL) != 0)
		end = true;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "flows", gw_mbox_flows_count(f));
	rte_tel_data_add_dict_u64(d, "capacity", gw_mbox_flows_capacity(f));
	rte_tel_data_add_dict_u64(d, "cursor", start);
	rte_tel_data_add_dict_u64(d, "next", end ? 0 : cursor);
	rte_tel_data_add_dict_container(d, "entries", entries, 0);
	return 0;
}

static const char *
hit_str(bool any, const uint8_t *hit, char *buf)
{
	return any ? "any" : inet_ntop(AF_INET6, hit, buf, INET6_ADDRSTRLEN);
}

int
gw_mbox_rules_tel(const struct gw_ctx *ctx, struct rte_tel_data *d)
{
	const struct gw_config *cfg = ctx->cfg;
	struct rte_tel_data *rules;

	if (cfg->mode != GW_MODE_MIDDLEBOX || (rules = rte_tel_data_alloc()) == NULL)
		return -1;
	rte_tel_data_start_dict(rules);
	for (unsigned i = 0; i < cfg->n_rules && i < RTE_TEL_MAX_DICT_ENTRIES; i++) {
		const struct gw_conf_rule *r = &cfg->rules[i];
		struct rte_tel_data *rd = rte_tel_data_alloc();
		char a[INET6_ADDRSTRLEN], key[16];

		if (rd == NULL)
			continue;
		rte_tel_data_start_dict(rd);
		rte_tel_data_add_dict_string(rd, "name", r->name);
		rte_tel_data_add_dict_string(rd, "initiator", hit_str(r->any_initiator, r->initiator, a));
		rte_tel_data_add_dict_string(rd, "responder", hit_str(r->any_responder, r->responder, a));
		rte_tel_data_add_dict_string(rd, "action", r->action == GW_RULE_ALLOW ? "allow" : "deny");
		snprintf(key, sizeof(key), "r%u", i);
		rte_tel_data_add_dict_container(rules, key, rd, 0);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "default", "deny");
	rte_tel_data_add_dict_u64(d, "count", cfg->n_rules);
	rte_tel_data_add_dict_container(d, "rules", rules, 0);
	return 0;
}
