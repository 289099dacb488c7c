/* SPDX-License-Identifier: BSD-3-Clause
 * Counters out: the --stats-json file and DPDK telemetry /hipgw/stats, both
 * from one snapshot, in the shape
 *   {"drops": {reason: n...}, "ports": {name: {"mac","rx","tx","imissed",
 *    "rx_nombuf","oerrors"}}, "sa": {name: {"spi","packets","bytes"}},
 *    "workers": [{"lcore","rx","tx","punted","handoff_out","handoff_in",
 *    "handoff_drops","slow_sent","slow_done"}, ...one per worker]}
 * (telemetry: "workers" is a dict "w0", "w1", ...)
 * Totals over all lcores; SA bytes count inner packets.
 */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "gw.h"
#include "gw_internal.h"

struct snap_port {
	const char *name;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	uint64_t rx, tx, imissed, rx_nombuf, oerrors;
};

struct snap_sa {
	char name[GW_CONF_NAME_MAX];    /* copied: the SA may be retired after the snapshot */
	uint32_t spi;
	uint64_t packets, bytes;
};

/* One worker's own counters (gw_lcore_stats): packets received and sent on
 * all ports, punted to control, inbound handoffs between workers, slow path. */
struct snap_worker {
	unsigned lcore;
	uint64_t rx, tx, punted, handoff_out, handoff_in, handoff_drops, slow_sent, slow_done;
};

#define SNAP_WORKER_FIELDS(X) X(rx) X(tx) X(punted) X(handoff_out) X(handoff_in) \
	X(handoff_drops) X(slow_sent) X(slow_done)

struct snap {
	uint64_t drops[GW_DROP_MAX];
	struct snap_worker workers[GW_MAX_WORKERS];
	unsigned n_workers;
	struct snap_port ports[GW_CONF_MAX_PORTS];
	unsigned n_ports;
	struct snap_sa sa[2 * GW_SPD_MAX_SA];
	unsigned n_sa;
};

static struct gw_ctx *tel_ctx;
static struct gw_hip *volatile tel_hip;

void
gw_telemetry_set_hip(struct gw_hip *g)
{
	tel_hip = g;
}

/* DPDK telemetry accepts only [A-Za-z0-9_/] in names: section names such as
 * "a-to-b" appear there as "a_to_b" (the stats file keeps them as written). */
static const char *
tel_name(const char *name, char *buf, size_t len)
{
	size_t i;
	for (i = 0; name[i] && i + 1 < len; i++)
		buf[i] = (isalnum((unsigned char)name[i]) || name[i] == '_') ? name[i] : '_';
	buf[i] = 0;
	return buf;
}

/* The telemetry thread (one per connected client) reads SA pointers that the
 * control lcore may retire: under the SA tables' RCU as their one non-lcore
 * reader, one client at a time. */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;

static void
snapshot(struct gw_ctx *ctx, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned r = GW_DROP_NONE + 1; r < GW_DROP_MAX; r++)
		s->drops[r] = gw_stats_drop_total(r);
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		const struct gw_lcore_stats *st = &gw_stats[ctx->worker_lcore[w]];
		struct snap_worker *o = &s->workers[s->n_workers++];
		o->lcore = ctx->worker_lcore[w];
		for (unsigned p = 0; p < GW_MAX_PORTS; p++) {
			o->rx += st->port_rx[p];
			o->tx += st->port_tx[p];
		}
		o->punted = st->punted;
		o->handoff_out = st->handoff_out;
		o->handoff_in = st->handoff_in;
		o->handoff_drops = st->handoff_drops;
		o->slow_sent = st->slow_sent;
		o->slow_done = st->slow_done;
	}
	for (unsigned i = 0; i < ctx->n_ports; i++) {
		const struct gw_port *p = &ctx->ports[i];
		struct snap_port *o = &s->ports[s->n_ports++];
		struct rte_eth_stats es;
		o->name = p->name;
		rte_ether_format_addr(o->mac, sizeof(o->mac), &p->mac);
		if (rte_eth_stats_get(p->port_id, &es) == 0) {
			o->rx = es.ipackets;
			o->tx = es.opackets;
			o->imissed = es.imissed;
			o->rx_nombuf = es.rx_nombuf;
			o->oerrors = es.oerrors;
		}
		o->oerrors += __atomic_load_n(&p->tx_dropped, __ATOMIC_RELAXED);
	}
	for (unsigned d = 0; d < 2; d++) {
		unsigned n = d == 0 ? ctx->sadb.n_slots : ctx->sadb.n_in;
		for (unsigned i = 0; i < n && s->n_sa < RTE_DIM(s->sa); i++) {
			const struct gw_sa *sa = d == 0 ? gw_sadb_out(&ctx->sadb, i) : ctx->sadb.in[i];
			struct snap_sa *o;
			if (sa == NULL)
				continue;
			o = &s->sa[s->n_sa++];
			snprintf(o->name, sizeof(o->name), "%s", sa->name);
			o->spi = sa->spi;
			esp_sa_stats(sa->esp, &o->packets, &o->bytes);
		}
	}
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void
gw_stats_write_json(struct gw_ctx *ctx, FILE *f)
{
	gw_stats_write_json_hip(ctx, NULL, f);
}

void
gw_stats_write_json_hip(struct gw_ctx *ctx, struct gw_hip *hip, FILE *f)
{
	static struct snap s;
	snapshot(ctx, &s);
	fputs("{\n  \"drops\": {", f);
	for (unsigned r = GW_DROP_NONE + 1; r < GW_DROP_MAX; r++)
		fprintf(f, "%s\"%s\": %" PRIu64, r == 1 ? "" : ", ", gw_drop_name(r), s.drops[r]);
	fputs("},\n  \"ports\": {", f);
	for (unsigned i = 0; i < s.n_ports; i++) {
		const struct snap_port *p = &s.ports[i];
		fputs(i ? ",\n    " : "\n    ", f);
		json_str(f, p->name);
		fprintf(f, ": {\"mac\": \"%s\", \"rx\": %" PRIu64 ", \"tx\": %" PRIu64
			", \"imissed\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64 ", \"oerrors\": %" PRIu64 "}",
			p->mac, p->rx, p->tx, p->imissed, p->rx_nombuf, p->oerrors);
	}
	fputs("},\n  \"sa\": {", f);
	for (unsigned i = 0; i < s.n_sa; i++) {
		const struct snap_sa *a = &s.sa[i];
		fputs(i ? ",\n    " : "\n    ", f);
		json_str(f, a->name);
		fprintf(f, ": {\"spi\": %" PRIu32 ", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
			a->spi, a->packets, a->bytes);
	}
	fputs("},\n  \"workers\": [", f);
	for (unsigned w = 0; w < s.n_workers; w++) {
		const struct snap_worker *o = &s.workers[w];
		fprintf(f, "%s{\"lcore\": %u", w ? ",\n    " : "\n    ", o->lcore);
#define X(name) fprintf(f, ", \"" #name "\": %" PRIu64, o->name);
		SNAP_WORKER_FIELDS(X)
#undef X
		fputs("}", f);
	}
	fputs("]", f);
	if (hip != NULL) {
		fputs(",\n  \"hip\": ", f);
		gw_hip_stats_json(hip, f);
	}
	fputs("\n}\n", f);
}

/* Telemetry /hipgw/stats: the same document as the stats file, as nested dicts. */
static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	static struct snap s;
	struct rte_tel_data *drops, *ports, *sas;
	char nb[GW_CONF_NAME_MAX];

	if (tel_ctx == NULL)
		return -1;
	pthread_mutex_lock(&tel_lock);
	gw_sadb_ext_read_begin(&tel_ctx->sadb);
	snapshot(tel_ctx, &s);
	gw_sadb_ext_read_end(&tel_ctx->sadb);
	rte_tel_data_start_dict(d);
	drops = rte_tel_data_alloc();
	rte_tel_data_start_dict(drops);
	for (unsigned r = GW_DROP_NONE + 1; r < GW_DROP_MAX; r++)
		rte_tel_data_add_dict_u64(drops, gw_drop_name(r), s.drops[r]);
	rte_tel_data_add_dict_container(d, "drops", drops, 0);

	ports = rte_tel_data_alloc();
	rte_tel_data_start_dict(ports);
	for (unsigned i = 0; i < s.n_ports; i++) {
		const struct snap_port *p = &s.ports[i];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_string(pd, "mac", p->mac);
		rte_tel_data_add_dict_u64(pd, "rx", p->rx);
		rte_tel_data_add_dict_u64(pd, "tx", p->tx);
		rte_tel_data_add_dict_u64(pd, "imissed", p->imissed);
		rte_tel_data_add_dict_u64(pd, "rx_nombuf", p->rx_nombuf);
		rte_tel_data_add_dict_u64(pd, "oerrors", p->oerrors);
		rte_tel_data_add_dict_container(ports, tel_name(p->name, nb, sizeof(nb)), pd, 0);
	}
	rte_tel_data_add_dict_container(d, "ports", ports, 0);

	sas = rte_tel_data_alloc();
	rte_tel_data_start_dict(sas);
	for (unsigned i = 0; i < s.n_sa && i < RTE_TEL_MAX_DICT_ENTRIES; i++) {
		const struct snap_sa *a = &s.sa[i];
		struct rte_tel_data *sd = rte_tel_data_alloc();
		rte_tel_data_start_dict(sd);
		rte_tel_data_add_dict_u64(sd, "spi", a->spi);
		rte_tel_data_add_dict_u64(sd, "packets", a->packets);
		rte_tel_data_add_dict_u64(sd, "bytes", a->bytes);
		rte_tel_data_add_dict_container(sas, tel_name(a->name, nb, sizeof(nb)), sd, 0);
	}
	rte_tel_data_add_dict_container(d, "sa", sas, 0);
	{
		struct rte_tel_data *ws = rte_tel_data_alloc();
		rte_tel_data_start_dict(ws);
		for (unsigned w = 0; w < s.n_workers; w++) {
			const struct snap_worker *o = &s.workers[w];
			struct rte_tel_data *wd = rte_tel_data_alloc();
			rte_tel_data_start_dict(wd);
			rte_tel_data_add_dict_u64(wd, "lcore", o->lcore);
#define X(name) rte_tel_data_add_dict_u64(wd, #name, o->name);
			SNAP_WORKER_FIELDS(X)
#undef X
			snprintf(nb, sizeof(nb), "w%u", w);
			rte_tel_data_add_dict_container(ws, nb, wd, 0);
		}
		rte_tel_data_add_dict_container(d, "workers", ws, 0);
	}
	if (tel_hip != NULL) {
		struct rte_tel_data *hd = rte_tel_data_alloc();
		if (hd != NULL) {
			gw_hip_stats_tel(tel_hip, hd, true);
			rte_tel_data_add_dict_container(d, "hip", hd, 0);
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

/* /hipgw/hit_ping,PEER: one ICMPv6 echo request from our HIT to the HIT of
 * [peer] PEER, sent in BEET by the control lcore; replies are counted in the
 * stats (hip.peers.PEER.hit_echo_rx). */
static int
tel_hit_ping(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gw_hip *g = tel_hip;

	(void)cmd;
	if (g == NULL || params == NULL || params[0] == '\0' || gw_hip_hit_ping(g, params) != 0)
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "peer", params);
	rte_tel_data_add_dict_u64(d, "queued", 1);
	return 0;
}

/* /hipgw/hip: the "hip" object of /hipgw/stats without "peers" (small at any
 * number of peers: /hipgw/stats can outgrow telemetry's 16 KB reply). */
static int
tel_hip_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	if (tel_hip == NULL)
		return -1;
	gw_hip_stats_tel(tel_hip, d, false);
	return 0;
}

/* /hipgw/hip_peer,PEER: hip.peers.PEER of /hipgw/stats, for one [peer]. */
static int
tel_hip_peer(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	if (tel_hip == NULL || params == NULL || params[0] == '\0')
		return -1;
	return gw_hip_peer_tel(tel_hip, params, d);
}

int
gw_telemetry_register(struct gw_ctx *ctx)
{
	tel_ctx = ctx;
	if (rte_telemetry_register_cmd("/hipgw/hip", tel_hip_counters,
		"HIP counters of /hipgw/stats without the per-peer part. No parameters.") != 0 ||
	    rte_telemetry_register_cmd("/hipgw/hip_peer", tel_hip_peer,
		"HIP counters and last BEX times of one peer. Parameter: the [peer] name.") != 0)
		return -1;
	if (rte_telemetry_register_cmd("/hipgw/hit_ping", tel_hit_ping,
		"HIP: send one ICMPv6 echo request from our HIT to a peer's HIT (BEET). "
		"Parameter: the [peer] name.") != 0)
		return -1;
	return rte_telemetry_register_cmd("/hipgw/stats", tel_stats,
		"hipgw counters: drops by reason, ports, SAs. No parameters.");
}
