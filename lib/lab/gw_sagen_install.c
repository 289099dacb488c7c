/* SPDX-License-Identifier: BSD-3-Clause
 * [sa-gen] (benchmarking / lab feature): the generated SAs' tables are made
 * before the workers start; the control lcore then installs the SAs in
 * batches, one batch per pass of its loop, while traffic flows. SPIs,
 * prefixes and keys come from lib/conf/gw_sagen.h.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "gw_lab.h"
#include "gw_sagen.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

int
gw_sagen_setup(struct gw_ctx *ctx, char *err, size_t errlen)
{
	const struct gw_conf_sagen *g = &ctx->cfg->sagen;
	struct gw_sadb_gen *t = &ctx->sadb.gen;
	struct gw_sagen_progress *pr = &ctx->sagen;
	unsigned bits;
	uint32_t net;

	memset(pr, 0, sizeof(*pr));
	if (g->count == 0)
		return 0;
	pr->outer_port = gw_outer_port_of(ctx, &g->local);
	if (pr->outer_port < 0) {
		snprintf(err, errlen, "%s:%u: [sa-gen %s]: local is not an outer port address",
			 ctx->cfg->path, g->line, g->name);
		return -1;
	}
	bits = g->prefix_len - g->block.len;
	memcpy(&net, g->block.a.addr, 4);
	t->net = rte_be_to_cpu_32(net);
	t->mask = g->block.len == 0 ? 0 : ~0u << (32 - g->block.len);
	t->plen = g->prefix_len;
	/* out SAs use the fields before ok[]; in SAs their source and the default
	 * destinations (the inner ports' networks and routes) */
	pr->tmpl_in.n_src = 1;
	gw_sa_default_dst(ctx->cfg, &pr->tmpl_in);
	t->stride_out = RTE_ALIGN_CEIL(offsetof(struct gw_sa, ok), 8);
	t->stride_in = RTE_ALIGN_CEIL(offsetof(struct gw_sa, ok) +
				      (1u + pr->tmpl_in.n_dst) * sizeof(struct gw_prefix), 16);
	if (g->out) {
		t->idx_bytes = ((size_t)1 << bits) * sizeof(t->idx[0]);
		t->tmpl_out = &pr->tmpl_out;
		t->out_bytes = (size_t)g->count * t->stride_out;
		t->idx = rte_zmalloc("hipgw_sagen_idx", t->idx_bytes, RTE_CACHE_LINE_SIZE);
		t->out = rte_zmalloc("hipgw_sagen_out", t->out_bytes, RTE_CACHE_LINE_SIZE);
	}
	if (g->in) {
		t->in_bytes = (size_t)g->count * t->stride_in;
		t->in = rte_zmalloc("hipgw_sagen_in", t->in_bytes, RTE_CACHE_LINE_SIZE);
	}
	t->count = g->count;
	if ((g->out && (t->idx == NULL || t->out == NULL)) || (g->in && t->in == NULL)) {
		snprintf(err, errlen, "%s:%u: [sa-gen %s]: no memory for the tables of %u SAs "
			 "(hugepages? -m?)", ctx->cfg->path, g->line, g->name, g->count);
		return -1;
	}
	LOG(INFO, "[sa-gen %s]: %u SAs (%s), tables %zu bytes; installing after start, %u per pass\n",
	    g->name, g->count, g->out && g->in ? "both" : g->out ? "out" : "in",
	    t->idx_bytes + t->out_bytes + t->in_bytes, g->batch);
	return 0;
}

/* SA i in both generated directions. 0 or -1 (logged). */
static int
install_one(struct gw_ctx *ctx, uint32_t i)
{
	static const uint8_t key_len[GW_SUITE_MAX] = { 20, 36, 16, 32, 0 };
	const struct gw_conf_sagen *g = &ctx->cfg->sagen;
	struct gw_sadb_gen *t = &ctx->sadb.gen;
	struct gw_sagen_progress *pr = &ctx->sagen;
	bool hmac = g->suite != GW_SUITE_AES128_GCM16 && g->suite != GW_SUITE_AES256_GCM16;
	uint8_t k[GW_SAGEN_KEYBUF];
	struct esp_sa_params p = {
		.suite = g->suite, .key = k, .key_len = key_len[g->suite],
		.auth_key = hmac ? k + 64 : NULL, .auth_key_len = hmac ? 32 : 0,
		.replay_window = g->replay_window, .local = g->local, .remote = g->remote,
		.seq_first = 1, .seq_limit = UINT64_MAX,
	};
	struct gw_prefix pfx;
	char msg[256];
	int ret = -1;

	p.spi = gw_sagen_spi_next(g, &pr->spi_j);
	gw_sagen_prefix(g, i, &pfx);
	gw_sagen_keybuf(g, i, k);
	for (int d = 0; d < 2; d++) {
		bool out = d == 0;
		struct gw_sa *sa;

		if (out ? !g->out : !g->in)
			continue;
		sa = gw_sadb_gen_sa(t, out, i);
		p.dir = out ? GW_DIR_OUT : GW_DIR_IN;
		memcpy(sa, out ? &pr->tmpl_out : &pr->tmpl_in, out ? t->stride_out : t->stride_in);
		sa->esp = esp_sa_create(&p, msg, sizeof(msg));
		if (sa->esp == NULL) {
			LOG(ERR, "[sa-gen %s]: SA %u (SPI 0x%x): %s\n", g->name, i, p.spi, msg);
			goto out;
		}
		sa->spi = p.spi;
		sa->dir = p.dir;
		if (out) {
			if (i == 0) {   /* every generated out SA has the same limits */
				gw_sa_out_limits(ctx, sa, pr->outer_port);
				pr->tmpl_out.max_inner = sa->max_inner;
				pr->tmpl_out.mss4 = sa->mss4;
				pr->tmpl_out.mss6 = sa->mss6;
			}
			__atomic_store_n(&t->idx[gw_sagen_perm(g->prefix_seed,
							       g->prefix_len - g->block.len, i)],
					 sa->esp, __ATOMIC_RELEASE);
		} else {
			sa->ok[0] = pfx;
			/* the one worker that runs its packets (several workers) */
			sa->owner = ctx->sadb.owner_claim ? -1 :
				(int32_t)gw_spi_owner(sa->spi, ctx->sadb.n_workers);
			/* a HIP SA may have drawn this SPI meanwhile: never replace it */
			if (rte_hash_lookup(ctx->sadb.sad, &sa->spi) >= 0) {
				LOG(ERR, "[sa-gen %s]: SA %u: SPI 0x%x is already in use\n", g->name, i,
				    p.spi);
				goto out;
			}
			if (rte_hash_add_key_data(ctx->sadb.sad, &sa->spi, sa) < 0) {
				LOG(ERR, "[sa-gen %s]: SA %u (SPI 0x%x): SAD full\n", g->name, i, p.spi);
				goto out;
			}
		}
	}
	ret = 0;
out:
	explicit_bzero(k, sizeof(k));
	explicit_bzero(&p, sizeof(p));
	return ret;
}

unsigned
gw_sagen_step(struct gw_ctx *ctx)
{
	const struct gw_conf_sagen *g = &ctx->cfg->sagen;
	struct gw_sagen_progress *pr = &ctx->sagen;
	uint32_t start = pr->next, end, i;
	size_t heap0;

	if (g->count == 0 || pr->done || pr->failed)
		return 0;
	heap0 = gw_heap_allocated();
	if (pr->next == 0)
		pr->tsc_start = rte_rdtsc();
	end = pr->next + g->batch < g->count ? pr->next + g->batch : g->count;
	for (i = pr->next; i < end; i++)
		if (install_one(ctx, i) != 0) {
			__atomic_store_n(&pr->failed, 1, __ATOMIC_RELEASE);
			break;
		}
	pr->heap_bytes += gw_heap_allocated() - heap0;
	__atomic_store_n(&pr->next, i, __ATOMIC_RELEASE);
	if (i == g->count || pr->failed) {
		pr->tsc_end = rte_rdtsc();
		__atomic_store_n(&pr->done, 1, __ATOMIC_RELEASE);
		LOG(NOTICE, "[sa-gen %s]: %u of %u SAs installed in %.3f s\n", g->name, i, g->count,
		    (double)(pr->tsc_end - pr->tsc_start) / (double)rte_get_tsc_hz());
	}
	return i - start;
}
