/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: [sa-gen NAME] (gw_sagen.h), a benchmarking / lab feature:
 * direction, the prefix block, and the checks of the whole section.
 */
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"

/* direction = out | in | both */
int
conf_sagen_direction(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		     void *base)
{
	struct gw_conf_sagen *g = base;
	unsigned u;

	if (conf_parse_choice(L, line, "direction", v, k->set, k->n_set, &u) != 0)
		return -1;
	g->out = u != 1;
	g->in = u != 0;
	return 0;
}

/* prefixes = A.B.C.D/LEN: the IPv4 block the SAs' prefixes are drawn from. */
int
conf_sagen_block(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_sagen *g = base;

	(void)k;
	if (conf_parse_prefix(L, line, "prefixes", v, &g->block, false) != 0)
		return -1;
	if (g->block.a.family != 4)
		return conf_fail(L, line, "prefixes: '" ECHO "' is not an IPv4 block (generated "
				 "prefixes are IPv4)", v);
	return 0;
}

/* Checks that need the whole [sa-gen] section. */
int
conf_sagen_finish(struct loader *L, const struct sec *sec, void *base)
{
	struct gw_conf_sagen *g = base;
	const unsigned *kl = sec->key_line;
	unsigned plen_line = kl[K_G_PREFIX_LEN] ? kl[K_G_PREFIX_LEN] : kl[K_G_PREFIXES];
	char s[PFX_STRLEN];
	unsigned bits;

	if (g->local.family != g->remote.family)
		return conf_fail(L, kl[K_G_REMOTE], "remote: %s is IPv%u but local is IPv%u",
				 conf_addr_str(&g->remote, s), g->remote.family, g->local.family);
	if (conf_addr_eq(&g->local, &g->remote))
		return conf_fail(L, kl[K_G_REMOTE], "remote: same address as local");
	if (g->prefix_len < g->block.len)
		return conf_fail(L, plen_line, "prefix-len: /%u is shorter than the block %s",
				 g->prefix_len, conf_prefix_str(&g->block, s));
	bits = g->prefix_len - g->block.len;
	if (bits > GW_CONF_SAGEN_MAX_BITS)
		return conf_fail(L, plen_line, "prefix-len: %s holds 2^%u /%u networks, at most 2^%u (the "
				 "index table has one entry per network)", conf_prefix_str(&g->block, s), bits,
				 g->prefix_len, GW_CONF_SAGEN_MAX_BITS);
	if ((uint64_t)g->count > (1ull << bits))
		return conf_fail(L, kl[K_G_COUNT], "count: %u SAs need as many /%u networks, %s holds %llu",
				 g->count, g->prefix_len, conf_prefix_str(&g->block, s),
				 (unsigned long long)(1ull << bits));
	if (!g->in && kl[K_G_REPLAY] != 0)
		return conf_fail(L, kl[K_G_REPLAY], "replay-window: only for direction = in or both");
	return 0;
}
