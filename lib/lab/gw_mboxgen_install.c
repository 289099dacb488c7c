/* SPDX-License-Identifier: BSD-3-Clause
 * [mbox-gen] (lab feature): the middlebox's flow table filled with `count`
 * generated flows before the workers start, as if verified exchanges had
 * announced them (marked lab). Flow i: destination the i-th address of the
 * block (wrapping), SPI the i-th of the [sa-gen] SPI sequence of spi-seed
 * (lib/conf/gw_sagen.h: distinct, so are the flows), association id i.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "gw_lab.h"
#include "gw_sagen.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

/* The i-th address of block b (host part i modulo the block's size). */
static void
gen_dst(const struct gw_prefix *b, uint32_t i, struct gw_addr *a)
{
	unsigned bits = (b->a.family == 4 ? 32u : 128u) - b->len;
	uint32_t host = bits >= 32 ? i : (uint32_t)(i & ((1ull << bits) - 1));
	unsigned last = b->a.family == 4 ? 3 : 15;
	uint32_t carry = 0;

	*a = b->a;
	/* add host to the address's last 4 bytes (big-endian); the block's host
	 * bits are zero, so no carry leaves the block */
	for (unsigned k = 0; k < 4; k++) {
		uint32_t v = a->addr[last - k] + ((host >> (8 * k)) & 0xff) + carry;

		a->addr[last - k] = (uint8_t)v;
		carry = v >> 8;
	}
}

int
gw_mboxgen_install(struct gw_ctx *ctx, char *err, size_t errlen)
{
	const struct gw_conf_mboxgen *g = &ctx->cfg->mboxgen;
	uint64_t t0 = rte_rdtsc();
	uint32_t j = 0;

	if (g->count == 0 || ctx->mbox_flows == NULL)
		return 0;
	for (uint32_t i = 0; i < g->count; i++) {
		uint32_t spi = gw_sagen_spi_seq(g->spi_seed, &j);
		struct gw_addr dst;
		int rc;

		gen_dst(&g->block, i, &dst);
		rc = gw_mbox_flow_add(ctx->mbox_flows, &dst, spi, i, true);
		if (rc != 0) {
			snprintf(err, errlen, "%s:%u: [mbox-gen %s]: flow %" PRIu32 " (SPI 0x%x): %s",
				 ctx->cfg->path, g->line, g->name, i, spi,
				 rc == -ENOSPC ? "the flow table is full" : "refused");
			return -1;
		}
	}
	LOG(NOTICE, "[mbox-gen %s]: %u lab flows installed in %.3f s\n", g->name, g->count,
	    (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz());
	return 0;
}
