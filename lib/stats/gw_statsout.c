/* SPDX-License-Identifier: BSD-3-Clause
 * Counters out: the --stats-json file and DPDK telemetry /hipgw/stats, both
 * from one snapshot, in the shape
 *   {"drops": {reason: n...}, "ports": {name: {"mac","rx","tx","imissed",
 *    "rx_nombuf","oerrors","ctrl_tx","ctrl_looped","addresses": ["ADDR/LEN"...]}},
 *    "sa": {name: {"spi",
 *    "packets","bytes"[,"max_inner": out SAs]}}, "workers": [{"lcore","rx","tx",
 *    "punted","handoff_out","handoff_in","handoff_drops","slow_sent",
 *    "slow_done","ctrl_looped","inner_fragmented","l2_flooded","l2_learn_sent",
 *    "l2_learn_ring_full","esp_fragmented","esp_fragments","udp_esp","udp_hip","udp_keepalive",
 *    "nat_rebind_posted","nat_ring_full","nat_rebind_old"},
 *    ...one per worker],
 *    "pmtu": {event: n...}, "mbufs": {"size","in_use"}}
 * (telemetry: "workers" is a dict "w0", "w1", ...)
 * and after "mbufs", when there are any: "sa_gen", "bridges" (gw_bridge_stats.h),
 * "middlebox" (gw_mbox_stats.h), "hip".
 * Totals over all lcores; SA bytes count inner packets. A port's tx includes
 * ctrl_tx, the frames the control lcore sent on its own packet socket
 * (af_packet); its rx and a worker's rx leave out ctrl_looped, the kernel's
 * loop-back copies of those that the workers freed (gw_worker.c l2_accept).
 * mbufs: the packet pool's size and the mbufs out of it (held in rings, PMD
 * queues, pending-neighbour queues...; those in the lcores' pool caches count
 * as free), so that a leak or an exhausted pool shows.
 */
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "gw_bridge_stats.h"
#include "gw_mbox_stats.h"
#include "gw_sinks.h"
#include "gw_statsout.h"

#define SNAP_ADDR_TEXT (GW_ADDR_TEXT_MAX + 4)   /* "ADDRESS/LEN" with its NUL, bytes */

struct snap_port {
	const char *name;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	char addrs[GW_PORT_ADDRS_MAX][SNAP_ADDR_TEXT];   /* live and deprecated, slot order */
	unsigned n_addrs;
	uint64_t rx, tx, imissed, rx_nombuf, oerrors, ctrl_tx, ctrl_looped;
};

struct snap_sa {
	char name[GW_CONF_NAME_MAX];    /* copied: the SA may be retired after the snapshot */
	uint32_t spi;
	uint64_t packets, bytes;
	uint16_t max_inner;             /* out SAs: bytes (path MTU); 0 = in SA */
};

/* One worker's own counters (gw_lcore_stats): packets received and sent on
 * all ports, punted to control, inbound handoffs between workers, slow path,
 * loop-back copies of the control lcore's frames freed, fragmented. */
struct snap_worker {
	unsigned lcore;
	uint64_t rx, tx, punted, handoff_out, handoff_in, handoff_drops, slow_sent, slow_done,
		 ctrl_looped, inner_fragmented, l2_flooded, l2_learn_sent, l2_learn_ring_full,
		 esp_fragmented, esp_fragments, udp_esp, udp_hip, udp_keepalive,
		 nat_rebind_posted, nat_ring_full, nat_rebind_old;
};

#define SNAP_WORKER_FIELDS(X) X(rx) X(tx) X(punted) X(handoff_out) X(handoff_in) \
	X(handoff_drops) X(slow_sent) X(slow_done) X(ctrl_looped) X(inner_fragmented) \
	X(l2_flooded) X(l2_learn_sent) X(l2_learn_ring_full) \
	X(esp_fragmented) X(esp_fragments) X(udp_esp) X(udp_hip) X(udp_keepalive) \
	X(nat_rebind_posted) X(nat_ring_full) X(nat_rebind_old)

struct snap {
	uint64_t drops[GW_DROP_MAX];
	uint64_t pmtu[GW_PMTU_MAX];
	struct snap_worker workers[GW_WORKERS_MAX];
	unsigned n_workers;
	struct snap_port ports[GW_PORTS_MAX];
	unsigned n_ports;
	struct snap_sa sa[2 * GW_SPD_MAX_SA];
	unsigned n_sa;
	uint64_t mbufs_size, mbufs_in_use;    /* packet pool: mbufs in it, mbufs taken */
};

static struct gw_ctx *tel_ctx;

/* [sa-gen] figures (control lcore writes the progress, we read it). */
struct sagen_snap {
	uint32_t count, installed, dirs;
	bool done, failed;
	uint64_t elapsed_ns, sas_per_s;
	uint64_t tables_bytes, sad_bytes, heap_bytes, bytes_per_sa;
};

static void
sagen_snapshot(const struct gw_ctx *ctx, struct sagen_snap *s)
{
	const struct gw_conf_sagen *g = &ctx->cfg->sagen;
	const struct gw_sagen_progress *pr = &ctx->sagen;
	const struct gw_sadb_gen *t = &ctx->sadb.gen;
	uint64_t hz = rte_get_tsc_hz(), t1, sas;

	memset(s, 0, sizeof(*s));
	s->count = g->count;
	s->dirs = (unsigned)g->out + (unsigned)g->in;
	s->installed = __atomic_load_n(&pr->next, __ATOMIC_ACQUIRE);
	s->done = __atomic_load_n(&pr->done, __ATOMIC_ACQUIRE) != 0;
	s->failed = __atomic_load_n(&pr->failed, __ATOMIC_ACQUIRE) != 0;
	if (pr->tsc_start != 0) {
		t1 = s->done ? pr->tsc_end : rte_rdtsc();
		s->elapsed_ns = (t1 - pr->tsc_start) * 1000000000ull / hz;
	}
	sas = (uint64_t)s->installed * s->dirs;
	if (s->elapsed_ns > 0)
		s->sas_per_s = sas * 1000000000ull / s->elapsed_ns;
	s->tables_bytes = t->idx_bytes + t->out_bytes + t->in_bytes;
	s->sad_bytes = g->in ? ctx->sadb.sad_bytes : 0;
	if (s->done)
		s->heap_bytes = pr->heap_bytes;
	if (s->done && sas > 0)
		s->bytes_per_sa = (s->heap_bytes + s->tables_bytes + s->sad_bytes) / sas;
}

/* Packets and inner bytes over every generated SA: O(count), for the stats file. */
static void
sagen_counters(const struct gw_ctx *ctx, uint64_t *pk, uint64_t *by)
{
	const struct gw_sadb_gen *t = &ctx->sadb.gen;
	uint32_t n = __atomic_load_n(&ctx->sagen.next, __ATOMIC_ACQUIRE);

	*pk = *by = 0;
	for (uint32_t i = 0; i < n; i++)
		for (int d = 0; d < 2; d++) {
			const struct gw_sa *sa;
			uint64_t p, b;

			if ((d == 0 ? t->out : t->in) == NULL)
				continue;
			sa = gw_sadb_gen_sa(t, d == 0, i);
			if (sa->esp == NULL)
				continue;
			esp_sa_stats(sa->esp, &p, &b);
			*pk += p;
			*by += b;
		}
}

static void
sagen_tel(const struct sagen_snap *s, const char *name, struct rte_tel_data *d)
{
	rte_tel_data_add_dict_string(d, "name", name);
	rte_tel_data_add_dict_u64(d, "count", s->count);
	rte_tel_data_add_dict_u64(d, "directions", s->dirs);
	rte_tel_data_add_dict_u64(d, "installed", s->installed);
	rte_tel_data_add_dict_u64(d, "installed_sas", (uint64_t)s->installed * s->dirs);
	rte_tel_data_add_dict_u64(d, "done", s->done);
	rte_tel_data_add_dict_u64(d, "failed", s->failed);
	rte_tel_data_add_dict_u64(d, "elapsed_ns", s->elapsed_ns);
	rte_tel_data_add_dict_u64(d, "sas_per_s", s->sas_per_s);
	rte_tel_data_add_dict_u64(d, "heap_bytes", s->heap_bytes);
	rte_tel_data_add_dict_u64(d, "tables_bytes", s->tables_bytes);
	rte_tel_data_add_dict_u64(d, "sad_bytes", s->sad_bytes);
	rte_tel_data_add_dict_u64(d, "bytes_per_sa", s->bytes_per_sa);
}
static struct gw_hip *tel_hip;            /* under tel_lock */
static gw_mbox_emit_fn *tel_mbox_fn;      /* under tel_lock: the tracker's figures */
static void *tel_mbox_arg;

/* Every telemetry handler (DPDK's telemetry thread, one per connected client)
 * holds tel_lock while it reads tel_ctx or tel_hip; the control lcore changes
 * them only under it, so a request that arrives while hipgw stops never reads
 * freed state. It also makes the clients one at a time, so that they are one
 * non-lcore reader of the SA tables' RCU, whose SA pointers the control lcore
 * may retire. Control path only: the workers never take it. */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;

void
gw_telemetry_set_hip(struct gw_hip *g)
{
	pthread_mutex_lock(&tel_lock);
	tel_hip = g;
	pthread_mutex_unlock(&tel_lock);
}

void
gw_telemetry_set_mbox(gw_mbox_emit_fn *fn, void *arg)
{
	pthread_mutex_lock(&tel_lock);
	tel_mbox_fn = fn;
	tel_mbox_arg = arg;
	pthread_mutex_unlock(&tel_lock);
}

void
gw_telemetry_stop(void)
{
	pthread_mutex_lock(&tel_lock);
	tel_hip = NULL;
	tel_ctx = NULL;
	tel_mbox_fn = NULL;
	pthread_mutex_unlock(&tel_lock);
}

static void
snapshot(struct gw_ctx *ctx, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned r = GW_DROP_NONE + 1; r < GW_DROP_MAX; r++)
		s->drops[r] = gw_stats_drop_total(r);
	for (unsigned e = 0; e < GW_PMTU_MAX; e++)
		s->pmtu[e] = gw_stats_pmtu_total(e);
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		const struct gw_lcore_stats *st = &gw_stats[ctx->worker_lcore[w]];
		struct snap_worker *o = &s->workers[s->n_workers++];
		o->lcore = ctx->worker_lcore[w];
		for (unsigned p = 0; p < GW_PORTS_MAX; p++) {
			o->ctrl_looped += st->ctrl_looped[p];
			o->rx += st->port_rx[p];
			o->tx += st->port_tx[p];
		}
		o->rx = o->rx > o->ctrl_looped ? o->rx - o->ctrl_looped : 0;   /* read apart */
		o->punted = st->punted;
		o->handoff_out = st->handoff_out;
		o->handoff_in = st->handoff_in;
		o->handoff_drops = st->handoff_drops;
		o->slow_sent = st->slow_sent;
		o->slow_done = st->slow_done;
		o->inner_fragmented = st->inner_fragmented;
		o->l2_flooded = st->l2_flooded;
		o->l2_learn_sent = st->l2_learn_sent;
		o->l2_learn_ring_full = st->l2_learn_ring_full;
		o->esp_fragmented = st->esp_fragmented;
		o->esp_fragments = st->esp_fragments;
		o->udp_esp = st->udp_esp;
		o->udp_hip = st->udp_hip;
		o->udp_keepalive = st->udp_keepalive;
		o->nat_rebind_posted = st->nat_rebind_posted;
		o->nat_ring_full = st->nat_ring_full;
		o->nat_rebind_old = st->nat_rebind_old;
	}
	for (unsigned i = 0; i < ctx->n_ports; i++) {
		const struct gw_port *p = &ctx->ports[i];
		struct snap_port *o = &s->ports[s->n_ports++];
		struct rte_eth_stats es;
		o->name = p->name;
		rte_ether_format_addr(o->mac, sizeof(o->mac), &p->mac);
		o->n_addrs = 0;
		for (unsigned k = 0; k < gw_paddr_count(&p->addrs) && k < GW_PORT_ADDRS_MAX; k++) {
			struct gw_prefix a;
			char b[GW_ADDR_TEXT_MAX];

			if (gw_paddr_read(&p->addrs, k, &a))
				snprintf(o->addrs[o->n_addrs++], SNAP_ADDR_TEXT, "%s/%u",
					 gw_addr_str(&a.a, b, sizeof(b)), a.len);
		}
		for (unsigned w = 0; w < ctx->n_workers; w++)
			o->ctrl_looped += gw_stats[ctx->worker_lcore[w]].ctrl_looped[i];
		o->ctrl_tx = gw_stats[rte_get_main_lcore()].port_tx[i];
		o->tx = o->ctrl_tx;
		if (rte_eth_stats_get(p->port_id, &es) == 0) {
			/* read after ctrl_looped: the PMD counted each copy before */
			o->rx = es.ipackets > o->ctrl_looped ? es.ipackets - o->ctrl_looped : 0;
			o->tx += es.opackets;
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
			o->max_inner = d == 0 ? gw_sa_max_inner(sa) : 0;
			esp_sa_stats(sa->esp, &o->packets, &o->bytes);
		}
	}
	if (ctx->pool != NULL) {
		s->mbufs_size = ctx->pool->size;
		s->mbufs_in_use = rte_mempool_in_use_count(ctx->pool);
	}
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
		gw_json_str(f, p->name);
		fprintf(f, ": {\"mac\": \"%s\", \"rx\": %" PRIu64 ", \"tx\": %" PRIu64
			", \"imissed\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64 ", \"oerrors\": %" PRIu64
			", \"ctrl_tx\": %" PRIu64 ", \"ctrl_looped\": %" PRIu64,
			p->mac, p->rx, p->tx, p->imissed, p->rx_nombuf, p->oerrors, p->ctrl_tx,
			p->ctrl_looped);
		fputs(", \"addresses\": [", f);
		for (unsigned k = 0; k < p->n_addrs; k++)
			fprintf(f, "%s\"%s\"", k ? ", " : "", p->addrs[k]);
		fputs("]}", f);
	}
	fputs("},\n  \"sa\": {", f);
	for (unsigned i = 0; i < s.n_sa; i++) {
		const struct snap_sa *a = &s.sa[i];
		fputs(i ? ",\n    " : "\n    ", f);
		gw_json_str(f, a->name);
		fprintf(f, ": {\"spi\": %" PRIu32 ", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64,
			a->spi, a->packets, a->bytes);
		if (a->max_inner != 0)
			fprintf(f, ", \"max_inner\": %u", a->max_inner);
		fputs("}", f);
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
	fputs("],\n  \"pmtu\": {", f);
	for (unsigned e = 0; e < GW_PMTU_MAX; e++)
		fprintf(f, "%s\"%s\": %" PRIu64, e ? ", " : "", gw_pmtu_event_name(e), s.pmtu[e]);
	fputs("}", f);
	fprintf(f, ",\n  \"mbufs\": {\"size\": %" PRIu64 ", \"in_use\": %" PRIu64 "}",
		s.mbufs_size, s.mbufs_in_use);
	if (ctx->cfg->sagen.count > 0) {
		struct sagen_snap g;
		uint64_t pk, by;

		sagen_snapshot(ctx, &g);
		sagen_counters(ctx, &pk, &by);
		fputs(",\n  \"sa_gen\": {\"name\": ", f);
		gw_json_str(f, ctx->cfg->sagen.name);
		fprintf(f, ", \"count\": %" PRIu32 ", \"directions\": %" PRIu32 ", \"installed\": %"
			PRIu32 ", \"done\": %d, \"failed\": %d, \"elapsed_ns\": %" PRIu64
			", \"sas_per_s\": %" PRIu64 ", \"heap_bytes\": %" PRIu64 ", \"tables_bytes\": %"
			PRIu64 ", \"sad_bytes\": %" PRIu64 ", \"bytes_per_sa\": %" PRIu64
			", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
			g.count, g.dirs, g.installed, g.done, g.failed, g.elapsed_ns, g.sas_per_s,
			g.heap_bytes, g.tables_bytes, g.sad_bytes, g.bytes_per_sa, pk, by);
	}
	if (ctx->n_bridges > 0) {
		struct gw_json_sink js;

		fputs(",\n  \"bridges\": ", f);
		gw_json_sink_open(&js, f);
		gw_bridges_emit(ctx, &js.sink);
		gw_json_sink_close(&js);
	}
	if (ctx->cfg->mode == GW_MODE_MIDDLEBOX) {
		struct gw_json_sink js;

		fputs(",\n  \"middlebox\": ", f);
		gw_json_sink_open(&js, f);
		pthread_mutex_lock(&tel_lock);
		gw_mbox_emit(ctx, &js.sink, tel_mbox_fn, tel_mbox_arg);
		pthread_mutex_unlock(&tel_lock);
		gw_json_sink_close(&js);
	}
	if (hip != NULL) {
		struct gw_json_sink js;

		fputs(",\n  \"hip\": ", f);
		gw_json_sink_open(&js, f);
		gw_hip_stats_emit(hip, &js.sink, true);
		gw_json_sink_close(&js);
	}
	fputs("\n}\n", f);
}

/* The "bridges" object into telemetry dict d (none without bridges); under tel_lock. */
static void
tel_add_bridges(struct rte_tel_data *d)
{
	struct rte_tel_data *bd;
	struct gw_tel_sink ts;

	if (tel_ctx->n_bridges == 0 || (bd = rte_tel_data_alloc()) == NULL)
		return;
	gw_tel_sink_open(&ts, bd);
	gw_bridges_emit(tel_ctx, &ts.sink);
	gw_tel_sink_close(&ts);
	rte_tel_data_add_dict_container(d, "bridges", bd, 0);
}

/* The "middlebox" object into telemetry dict d (none in gateway mode); under tel_lock. */
static void
tel_add_mbox(struct rte_tel_data *d)
{
	struct rte_tel_data *md;
	struct gw_tel_sink ts;

	if (tel_ctx->cfg->mode != GW_MODE_MIDDLEBOX || (md = rte_tel_data_alloc()) == NULL)
		return;
	gw_tel_sink_open(&ts, md);
	gw_mbox_emit(tel_ctx, &ts.sink, tel_mbox_fn, tel_mbox_arg);
	gw_tel_sink_close(&ts);
	rte_tel_data_add_dict_container(d, "middlebox", md, 0);
}

/* A port's "addresses" array (ADDRESS/LEN strings) into telemetry dict pd. */
static void
tel_port_addrs(struct rte_tel_data *pd, const struct snap_port *p)
{
	struct rte_tel_data *ad = rte_tel_data_alloc();

	if (ad == NULL)
		return;
	rte_tel_data_start_array(ad, RTE_TEL_STRING_VAL);
	for (unsigned k = 0; k < p->n_addrs; k++)
		rte_tel_data_add_array_string(ad, p->addrs[k]);
	rte_tel_data_add_dict_container(pd, "addresses", ad, 0);
}

/* Telemetry /hipgw/stats: the same document as the stats file, as nested dicts. */
static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	static struct snap s;
	struct rte_tel_data *drops, *ports, *sas;
	char nb[GW_CONF_NAME_MAX];

	pthread_mutex_lock(&tel_lock);
	if (tel_ctx == NULL) {
		pthread_mutex_unlock(&tel_lock);
		return -1;
	}
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
		rte_tel_data_add_dict_u64(pd, "ctrl_tx", p->ctrl_tx);
		rte_tel_data_add_dict_u64(pd, "ctrl_looped", p->ctrl_looped);
		tel_port_addrs(pd, p);
		rte_tel_data_add_dict_container(ports, gw_tel_name(p->name, nb, sizeof(nb)), pd, 0);
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
		if (a->max_inner != 0)
			rte_tel_data_add_dict_u64(sd, "max_inner", a->max_inner);
		rte_tel_data_add_dict_container(sas, gw_tel_name(a->name, nb, sizeof(nb)), sd, 0);
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
	{
		struct rte_tel_data *pd = rte_tel_data_alloc();

		if (pd != NULL) {
			rte_tel_data_start_dict(pd);
			for (unsigned e = 0; e < GW_PMTU_MAX; e++)
				rte_tel_data_add_dict_u64(pd, gw_pmtu_event_name(e), s.pmtu[e]);
			rte_tel_data_add_dict_container(d, "pmtu", pd, 0);
		}
	}
	{
		struct rte_tel_data *md = rte_tel_data_alloc();
		if (md != NULL) {
			rte_tel_data_start_dict(md);
			rte_tel_data_add_dict_u64(md, "size", s.mbufs_size);
			rte_tel_data_add_dict_u64(md, "in_use", s.mbufs_in_use);
			rte_tel_data_add_dict_container(d, "mbufs", md, 0);
		}
	}
	if (tel_ctx->cfg->sagen.count > 0) {
		struct rte_tel_data *gd = rte_tel_data_alloc();
		struct sagen_snap g;

		if (gd != NULL) {
			sagen_snapshot(tel_ctx, &g);
			rte_tel_data_start_dict(gd);
			sagen_tel(&g, gw_tel_name(tel_ctx->cfg->sagen.name, nb, sizeof(nb)), gd);
			rte_tel_data_add_dict_container(d, "sa_gen", gd, 0);
		}
	}
	tel_add_bridges(d);
	tel_add_mbox(d);
	if (tel_hip != NULL) {
		struct rte_tel_data *hd = rte_tel_data_alloc();
		struct gw_tel_sink ts;

		if (hd != NULL) {
			gw_tel_sink_open(&ts, hd);
			gw_hip_stats_emit(tel_hip, &ts.sink, true);
			gw_tel_sink_close(&ts);
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
	int rc;

	(void)cmd;
	pthread_mutex_lock(&tel_lock);
	rc = tel_hip == NULL || params == NULL || params[0] == '\0' ? -1 :
	     gw_hip_hit_ping(tel_hip, params);
	pthread_mutex_unlock(&tel_lock);
	if (rc != 0)
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
	int rc = -1;

	(void)cmd;
	(void)params;
	pthread_mutex_lock(&tel_lock);
	if (tel_hip != NULL) {
		struct gw_tel_sink ts;

		gw_tel_sink_open(&ts, d);
		gw_hip_stats_emit(tel_hip, &ts.sink, false);
		gw_tel_sink_close(&ts);
		rc = 0;
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* /hipgw/hip_peer,PEER: hip.peers.PEER of /hipgw/stats, for one [peer]. */
static int
tel_hip_peer(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -1;

	(void)cmd;
	pthread_mutex_lock(&tel_lock);
	if (tel_hip != NULL && params != NULL && params[0] != '\0') {
		struct gw_tel_sink ts;

		gw_tel_sink_open(&ts, d);
		rc = gw_hip_peer_emit(tel_hip, params, &ts.sink);
		gw_tel_sink_close(&ts);
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* /hipgw/sa_gen: [sa-gen] progress (installed count, elapsed ns, SAs/s) and
 * memory: heap_bytes = DPDK heap the install batches allocated (the ESP
 * states, rte_malloc overhead included; rte_malloc_get_socket_stats around
 * each batch), tables_bytes = the index table and the SA
 * arrays (sizes), sad_bytes = the SAD hash (heap delta of its creation; it
 * also holds room for the static SAs), bytes_per_sa = their sum / SAs. */
static int
tel_sagen(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	struct sagen_snap g;
	char nb[GW_CONF_NAME_MAX];

	pthread_mutex_lock(&tel_lock);
	if (tel_ctx == NULL || tel_ctx->cfg->sagen.count == 0) {
		pthread_mutex_unlock(&tel_lock);
		return -1;
	}
	sagen_snapshot(tel_ctx, &g);
	rte_tel_data_start_dict(d);
	sagen_tel(&g, gw_tel_name(tel_ctx->cfg->sagen.name, nb, sizeof(nb)), d);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

/* /hipgw/bridges: the "bridges" object of /hipgw/stats alone. */
static int
tel_bridges(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	struct gw_tel_sink ts;

	pthread_mutex_lock(&tel_lock);
	if (tel_ctx == NULL) {
		pthread_mutex_unlock(&tel_lock);
		return -1;
	}
	gw_tel_sink_open(&ts, d);
	gw_bridges_emit(tel_ctx, &ts.sink);
	gw_tel_sink_close(&ts);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

/* /hipgw/bridge_macs,NAME[,CURSOR]: a page of bridge NAME's MAC entries
 * (gw_bridge_macs_tel), read online on the tables' RCU as the one non-lcore
 * reader (tel_lock), so that no entry it walks is reused meanwhile. */
static int
tel_bridge_macs(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	int rc = -1;

	pthread_mutex_lock(&tel_lock);
	if (tel_ctx != NULL) {
		gw_sadb_ext_read_begin(&tel_ctx->sadb);
		rc = gw_bridge_macs_tel(tel_ctx, params, gw_mac_now_ns(), d);
		gw_sadb_ext_read_end(&tel_ctx->sadb);
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* /hipgw/mbox: the "middlebox" object of /hipgw/stats alone. */
static int
tel_mbox(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	struct gw_tel_sink ts;
	int rc = -1;

	pthread_mutex_lock(&tel_lock);
	if (tel_ctx != NULL && tel_ctx->cfg->mode == GW_MODE_MIDDLEBOX) {
		gw_tel_sink_open(&ts, d);
		gw_mbox_emit(tel_ctx, &ts.sink, tel_mbox_fn, tel_mbox_arg);
		gw_tel_sink_close(&ts);
		rc = 0;
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* /hipgw/mbox_flows[,CURSOR]: a page of the flow table (gw_mbox_flows_tel),
 * online on the tables' RCU as their one non-lcore reader (tel_lock). */
static int
tel_mbox_flows(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	int rc = -1;

	pthread_mutex_lock(&tel_lock);
	if (tel_ctx != NULL && tel_ctx->mbox_flows != NULL) {
		gw_sadb_ext_read_begin(&tel_ctx->sadb);
		rc = gw_mbox_flows_tel(tel_ctx, params, gw_mac_now_ns(), d);
		gw_sadb_ext_read_end(&tel_ctx->sadb);
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* /hipgw/mbox_rules: the [rule] sections in match order. */
static int
tel_mbox_rules(const char *cmd __rte_unused, const char *params __rte_unused,
	       struct rte_tel_data *d)
{
	int rc = -1;

	pthread_mutex_lock(&tel_lock);
	if (tel_ctx != NULL)
		rc = gw_mbox_rules_tel(tel_ctx, d);
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

int
gw_telemetry_register(struct gw_ctx *ctx)
{
	tel_ctx = ctx;
	if (rte_telemetry_register_cmd("/hipgw/hip", tel_hip_counters,
		"HIP counters of /hipgw/stats without the per-peer part. No parameters.") != 0 ||
	    rte_telemetry_register_cmd("/hipgw/hip_peer", tel_hip_peer,
		"HIP counters and last BEX times of one peer. Parameter: the [peer] name.") != 0 ||
	    rte_telemetry_register_cmd("/hipgw/sa_gen", tel_sagen,
		"[sa-gen] progress and memory: count, installed, elapsed_ns, sas_per_s, "
		"bytes_per_sa. No parameters.") != 0)
		return -1;
	if (rte_telemetry_register_cmd("/hipgw/hit_ping", tel_hit_ping,
		"HIP: send one ICMPv6 echo request from our HIT to a peer's HIT (BEET). "
		"Parameter: the [peer] name.") != 0 || gw_addr_tel_register() != 0)
		return -1;
	if (rte_telemetry_register_cmd("/hipgw/bridges", tel_bridges,
		"L2 bridges: MAC table entries, capacity, pending, bytes_per_entry, counters. "
		"No parameters.") != 0 ||
	    rte_telemetry_register_cmd("/hipgw/bridge_macs", tel_bridge_macs,
		"The entries of one bridge's MAC table, 64 a reply. Parameters: the [bridge] "
		"name[,cursor: the previous reply's next].") != 0)
		return -1;
	if (rte_telemetry_register_cmd("/hipgw/mbox", tel_mbox,
		"Middlebox: the pair, flows, counters, the tracker. No parameters.") != 0 ||
	    rte_telemetry_register_cmd("/hipgw/mbox_flows", tel_mbox_flows,
		"Middlebox: the flow table, 48 flows a reply. Parameter: [cursor: the previous "
		"reply's next].") != 0 ||
	    rte_telemetry_register_cmd("/hipgw/mbox_rules", tel_mbox_rules,
		"Middlebox: the [rule] sections in match order, default deny. No parameters.") != 0)
		return -1;
	return rte_telemetry_register_cmd("/hipgw/stats", tel_stats,
		"hipgw counters: drops by reason, ports, SAs. No parameters.");
}
