/* SPDX-License-Identifier: BSD-3-Clause
 * HIP keying's counters out: the lists of gw_hip_counters.h walked into a
 * counter sink (the "hip" object of the --stats-json file and of telemetry
 * /hipgw/stats, /hipgw/hip and /hipgw/hip_peer: docs/counters.md), and the
 * BEX times of the log line.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <rte_common.h>

#include "gw_hip_counters.h"
#include "gw_hip_internal.h"
#include "hip_hit.h"

/* The BEX steps in order: their names in the stats and in the log. */
static const char *const bex_step_names[] = {
#define X(name, field, log, doc) name,
	GW_HIP_BEX_STEPS(X)
#undef X
};
static const char *const bex_step_log[] = {
#define X(name, field, log, doc) log,
	GW_HIP_BEX_STEPS(X)
#undef X
};

/* The steps of t in ns, in that order; 0: this side did not time it (each
 * side times its own). */
static void
bex_steps_ns(const struct hip_bex_times *t, uint64_t ns[RTE_DIM(bex_step_names)])
{
	unsigned k = 0;

#define X(name, field, log, doc) ns[k++] = t->field;
	GW_HIP_BEX_STEPS(X)
#undef X
}

void
gw_hip_bex_times_text(const struct hip_bex_times *t, char *buf, size_t len)
{
	uint64_t ns[RTE_DIM(bex_step_names)];
	size_t n = 0;

	bex_steps_ns(t, ns);
	buf[0] = '\0';
	for (unsigned i = 0; i < RTE_DIM(ns) && n < len; i++) {
		int w;

		if (ns[i] == 0)
			continue;
		w = snprintf(buf + n, len - n, "%s %s %.3f ms", n ? "," : "", bex_step_log[i],
			     ns[i] / 1e6);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (buf[0] == '\0')
		snprintf(buf, len, " no step timed");
}

/* What GW_HIP_COUNTERS and GW_HIP_DROPS read: the engine's counters and the
 * ESP for an unknown SPI from the peers' locators (struct gw_lcore_stats),
 * summed over the lcores. */
struct gw_hip_snap {
	struct hip_host_stats e;
	uint64_t unknown_spi_bex, unknown_spi_ratelimit, unknown_spi_ignored;
	uint64_t locator_changes;
	uint64_t nat_rebinds, nat_rebind_stale;
};

static void
hip_snapshot(const struct gw_hip *g, struct gw_hip_snap *v)
{
	hip_host_stats(g->host, &v->e);
	v->locator_changes = g->locator_changes;
	v->nat_rebinds = g->nat_rebinds;
	v->nat_rebind_stale = g->nat_rebind_stale;
	v->unknown_spi_bex = gw_stats_total(offsetof(struct gw_lcore_stats, unknown_spi_bex));
	v->unknown_spi_ratelimit =
		gw_stats_total(offsetof(struct gw_lcore_stats, unknown_spi_ratelimit));
	v->unknown_spi_ignored =
		gw_stats_total(offsetof(struct gw_lcore_stats, unknown_spi_ignored));
}

/* One peer's counters and last BEX times into the current object of s. */
static void
peer_emit(const struct gw_peer *p, struct gw_stat_sink *s)
{
	uint64_t ns[RTE_DIM(bex_step_names)];

#define X(name, field, doc) s->u64(s, name, p->field);
	GW_HIP_PEER_COUNTERS(X)
#undef X
	bex_steps_ns(&p->last, ns);
	s->times_ns(s, "bex", bex_step_names, ns, RTE_DIM(ns));
	gw_hip_locs_emit(p, s);
	gw_hip_mh_emit(p, s);
}

void
gw_hip_stats_emit(struct gw_hip *g, struct gw_stat_sink *s, bool with_peers)
{
	struct gw_hip_snap v;
	char hit[64];

	hip_snapshot(g, &v);
	hip_hit_to_str(g->hi.hit, hit, sizeof(hit));
	s->str(s, "hit", hit);
#define X(name, field, doc) s->u64(s, name, v.field);
	GW_HIP_COUNTERS(X)
	s->begin(s, "drops");
	GW_HIP_DROPS(X)
	s->end(s);
#undef X
	if (!with_peers)
		return;
	s->begin(s, "peers");
	for (unsigned i = 0; i < g->n_peers; i++) {
		s->begin(s, g->peers[i].conf->name);
		peer_emit(&g->peers[i], s);
		s->end(s);
	}
	s->end(s);
}

int
gw_hip_peer_emit(struct gw_hip *g, const char *name, struct gw_stat_sink *s)
{
	for (unsigned i = 0; i < g->n_peers; i++) {
		if (strcmp(g->peers[i].conf->name, name) == 0) {
			peer_emit(&g->peers[i], s);
			return 0;
		}
	}
	return -1;
}
