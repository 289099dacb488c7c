/* SPDX-License-Identifier: BSD-3-Clause
 * HIP keying's counters out: the "hip" object of the --stats-json file and
 * of telemetry /hipgw/stats, /hipgw/hip and /hipgw/hip_peer
 * (docs/counters.md), and the BEX times of the log line.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <rte_common.h>
#include <rte_telemetry.h>

#include "gw_hip_internal.h"
#include "hip_hit.h"

/* The BEX steps in order, with the name the log and the stats JSON give them. */
static const struct {
	const char *log, *json;
	size_t off;
} bex_steps[] = {
	{ "I1->R1", "i1_to_r1", offsetof(struct hip_bex_times, i1_to_r1) },
	{ "R1->I2", "r1_to_i2", offsetof(struct hip_bex_times, r1_to_i2) },
	{ "I2->R2", "i2_to_r2", offsetof(struct hip_bex_times, i2_to_r2) },
	{ "R2->ESP", "r2_to_esp", offsetof(struct hip_bex_times, r2_to_esp) },
	{ "Tbe", "tbe", offsetof(struct hip_bex_times, tbe) },
};

/* Step i of t in ns; 0: this side did not time it (each side times its own). */
static uint64_t
bex_step_ns(const struct hip_bex_times *t, unsigned i)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)t + bex_steps[i].off, sizeof(v));
	return v;
}

void
gw_hip_bex_times_text(const struct hip_bex_times *t, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < RTE_DIM(bex_steps) && n < len; i++) {
		uint64_t v = bex_step_ns(t, i);
		int w;

		if (v == 0)
			continue;
		w = snprintf(buf + n, len - n, "%s %s %.3f ms", n ? "," : "", bex_steps[i].log,
			     v / 1e6);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (buf[0] == '\0')
		snprintf(buf, len, " no step timed");
}

/* One peer's counters and last BEX times (us) into the dict pd. */
static void
peer_tel(const struct gw_peer *p, struct rte_tel_data *pd)
{
	rte_tel_data_start_dict(pd);
	rte_tel_data_add_dict_u64(pd, "bex_ok", p->bex_ok);
	rte_tel_data_add_dict_u64(pd, "bex_failed", p->bex_failed);
	rte_tel_data_add_dict_u64(pd, "rekeys", p->rekeys);
	rte_tel_data_add_dict_u64(pd, "in_spi", p->in_spi);
	rte_tel_data_add_dict_u64(pd, "tbe_us", p->last.tbe / 1000);
	rte_tel_data_add_dict_u64(pd, "i1_to_r1_us", p->last.i1_to_r1 / 1000);
	rte_tel_data_add_dict_u64(pd, "r1_to_i2_us", p->last.r1_to_i2 / 1000);
	rte_tel_data_add_dict_u64(pd, "i2_to_r2_us", p->last.i2_to_r2 / 1000);
	rte_tel_data_add_dict_u64(pd, "r2_to_esp_us", p->last.r2_to_esp / 1000);
	rte_tel_data_add_dict_u64(pd, "hit_echo_tx", p->hit_echo_tx);
	rte_tel_data_add_dict_u64(pd, "hit_echo_rx", p->hit_echo_rx);
	rte_tel_data_add_dict_u64(pd, "hit_echo_answered", p->hit_echo_answered);
	rte_tel_data_add_dict_u64(pd, "unknown_spi_bex", p->unknown_spi_bex);
}

/* ESP for an unknown SPI from the peers' locators (struct gw_lcore_stats),
 * summed over the lcores, in the order of unknown_spi_names. */
static const char *const unknown_spi_names[] = {
	"unknown_spi_bex", "unknown_spi_ratelimit", "unknown_spi_ignored",
};

static void
unknown_spi_totals(uint64_t v[RTE_DIM(unknown_spi_names)])
{
	v[0] = gw_stats_total(offsetof(struct gw_lcore_stats, unknown_spi_bex));
	v[1] = gw_stats_total(offsetof(struct gw_lcore_stats, unknown_spi_ratelimit));
	v[2] = gw_stats_total(offsetof(struct gw_lcore_stats, unknown_spi_ignored));
}

void
gw_hip_stats_tel(struct gw_hip *g, struct rte_tel_data *d, bool with_peers)
{
	struct hip_host_stats s;
	struct rte_tel_data *peers;
	char hit[64], nb[GW_CONF_NAME_MAX];
	uint64_t us[RTE_DIM(unknown_spi_names)];

	hip_host_stats(g->host, &s);
	unknown_spi_totals(us);
	hip_hit_to_str(g->hi.hit, hit, sizeof(hit));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "hit", hit);
	rte_tel_data_add_dict_u64(d, "puzzle_k", s.puzzle_k);
	rte_tel_data_add_dict_u64(d, "rx", s.rx);
	rte_tel_data_add_dict_u64(d, "tx", s.tx);
	rte_tel_data_add_dict_u64(d, "dropped", s.dropped);
	rte_tel_data_add_dict_u64(d, "bex_ok", s.bex_ok);
	rte_tel_data_add_dict_u64(d, "bex_failed", s.bex_failed);
	rte_tel_data_add_dict_u64(d, "updates", s.updates);
	rte_tel_data_add_dict_u64(d, "i1_rx", s.i1_rx);
	rte_tel_data_add_dict_u64(d, "r1_tx", s.r1_tx);
	rte_tel_data_add_dict_u64(d, "i2_rx", s.i2_rx);
	rte_tel_data_add_dict_u64(d, "r2_tx", s.r2_tx);
	rte_tel_data_add_dict_u64(d, "unknown_peer", s.drop_unknown_peer);
	rte_tel_data_add_dict_u64(d, "r1_rate", s.r1_rate);
	rte_tel_data_add_dict_u64(d, "r1_ratelimit", s.drop_r1_ratelimit);
	rte_tel_data_add_dict_u64(d, "critical", s.drop_critical);
	rte_tel_data_add_dict_u64(d, "notify_tx", s.notify_tx);
	rte_tel_data_add_dict_u64(d, "notify_rx", s.notify_rx);
	for (unsigned k = 0; k < RTE_DIM(unknown_spi_names); k++)
		rte_tel_data_add_dict_u64(d, unknown_spi_names[k], us[k]);
	if (!with_peers || (peers = rte_tel_data_alloc()) == NULL)
		return;
	rte_tel_data_start_dict(peers);
	for (unsigned i = 0; i < g->n_peers && i < RTE_TEL_MAX_DICT_ENTRIES; i++) {
		const struct gw_peer *p = &g->peers[i];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		size_t k;
		if (pd == NULL)
			break;
		peer_tel(p, pd);
		for (k = 0; p->conf->name[k] && k + 1 < sizeof(nb); k++)
			nb[k] = isalnum((unsigned char)p->conf->name[k]) ? p->conf->name[k] : '_';
		nb[k] = 0;
		rte_tel_data_add_dict_container(peers, nb, pd, 0);
	}
	rte_tel_data_add_dict_container(d, "peers", peers, 0);
}

int
gw_hip_peer_tel(struct gw_hip *g, const char *name, struct rte_tel_data *d)
{
	for (unsigned i = 0; i < g->n_peers; i++) {
		if (strcmp(g->peers[i].conf->name, name) == 0) {
			peer_tel(&g->peers[i], d);
			return 0;
		}
	}
	return -1;
}

void
gw_hip_stats_json(struct gw_hip *g, FILE *f)
{
	struct hip_host_stats s;
	char hit[64];
	uint64_t us[RTE_DIM(unknown_spi_names)];

	hip_host_stats(g->host, &s);
	unknown_spi_totals(us);
	hip_hit_to_str(g->hi.hit, hit, sizeof(hit));
	fprintf(f, "{\"hit\": \"%s\", \"puzzle_k\": %u, \"r1_rate\": %u, \"rx\": %" PRIu64
		", \"tx\": %" PRIu64
		", \"dropped\": %" PRIu64 ", \"bex_ok\": %" PRIu64 ", \"bex_failed\": %" PRIu64
		", \"updates\": %" PRIu64 ", \"i1_rx\": %" PRIu64 ", \"r1_tx\": %" PRIu64
		", \"i2_rx\": %" PRIu64 ", \"r2_tx\": %" PRIu64 ", \"drops\": {\"malformed\": %" PRIu64
		", \"checksum\": %" PRIu64 ", \"unknown_peer\": %" PRIu64 ", \"not_for_us\": %" PRIu64
		", \"state\": %" PRIu64 ", \"critical\": %" PRIu64 ", \"puzzle\": %" PRIu64
		", \"r1_gen\": %" PRIu64 ", \"r1_ratelimit\": %" PRIu64 ", \"policy\": %" PRIu64
		", \"hit_mismatch\": %" PRIu64
		", \"mac\": %" PRIu64 ", \"sig\": %" PRIu64 ", \"replay\": %" PRIu64
		", \"internal\": %" PRIu64 "}, \"retransmits\": %" PRIu64 ", \"i2_dup\": %" PRIu64
		", \"notify_tx\": %" PRIu64 ", \"notify_rx\": %" PRIu64,
		hit, s.puzzle_k, s.r1_rate, s.rx, s.tx, s.dropped, s.bex_ok, s.bex_failed, s.updates,
		s.i1_rx, s.r1_tx, s.i2_rx, s.r2_tx, s.drop_malformed, s.drop_checksum, s.drop_unknown_peer, s.drop_not_for_us,
		s.drop_state, s.drop_critical, s.drop_puzzle, s.drop_r1_gen, s.drop_r1_ratelimit,
		s.drop_policy,
		s.drop_hit_mismatch, s.drop_mac, s.drop_sig, s.drop_replay, s.drop_internal,
		s.retransmits, s.i2_dup, s.notify_tx, s.notify_rx);
	for (unsigned k = 0; k < RTE_DIM(unknown_spi_names); k++)
		fprintf(f, ", \"%s\": %" PRIu64, unknown_spi_names[k], us[k]);
	fputs(", \"peers\": {", f);
	for (unsigned i = 0; i < g->n_peers; i++) {
		const struct gw_peer *p = &g->peers[i];
		const struct hip_bex_times *t = &p->last;
		fprintf(f, "%s\n      \"%s\": {\"bex_ok\": %u, \"bex_failed\": %u, \"rekeys\": %u, "
			"\"in_spi\": %u, \"bex_ms\": {", i ? "," : "", p->conf->name, p->bex_ok,
			p->bex_failed, p->rekeys, p->in_spi);
		for (unsigned k = 0; k < RTE_DIM(bex_steps); k++) {
			uint64_t v = bex_step_ns(t, k);

			fprintf(f, "%s\"%s\": ", k ? ", " : "", bex_steps[k].json);
			if (v == 0)
				fputs("null", f);         /* the other side's step */
			else
				fprintf(f, "%.3f", v / 1e6);
		}
		fprintf(f, "}, \"hit_echo_tx\": %" PRIu64 ", \"hit_echo_rx\": %" PRIu64
			", \"hit_echo_answered\": %" PRIu64 ", \"unknown_spi_bex\": %" PRIu64 "}",
			p->hit_echo_tx, p->hit_echo_rx, p->hit_echo_answered, p->unknown_spi_bex);
	}
	fputs("}}", f);
}
