/* SPDX-License-Identifier: BSD-3-Clause
 * [sa-gen] generator: SPIs, prefixes and keys as pure functions of the
 * section (definitions in gw_sagen.h).
 */
#include <string.h>
#include "gw_sagen.h"
#include "hipgw_wire.h"

uint32_t
gw_sagen_perm(uint64_t seed, unsigned bits, uint32_t x)
{
	uint64_t s = seed, mask = bits >= 32 ? 0xFFFFFFFFull : ((1ull << bits) - 1);
	uint64_t v = x & mask;
	unsigned sh = (bits + 1) / 2;

	if (bits == 0)
		return 0;
	for (int r = 0; r < 3; r++) {
		uint64_t m = gw_splitmix64(&s) | 1, a = gw_splitmix64(&s);

		v = (v * m + a) & mask;
		v ^= v >> sh;
	}
	return (uint32_t)v;
}

uint32_t
gw_sagen_spi_seq(uint64_t spi_seed, uint32_t *j)
{
	uint32_t spi;

	do
		spi = gw_sagen_perm(spi_seed, 32, (*j)++);
	while (spi < GW_ESP_SPI_MIN);
	return spi;
}

uint32_t
gw_sagen_spi_next(const struct gw_conf_sagen *g, uint32_t *j)
{
	return gw_sagen_spi_seq(g->spi_seed, j);
}

void
gw_sagen_prefix(const struct gw_conf_sagen *g, uint32_t i, struct gw_prefix *p)
{
	uint32_t net, idx = gw_sagen_perm(g->prefix_seed, g->prefix_len - g->block.len, i);

	memcpy(&net, g->block.a.addr, 4);
	net = __builtin_bswap32(net) + (uint32_t)((uint64_t)idx << (32 - g->prefix_len));
	memset(p, 0, sizeof(*p));
	p->a.family = 4;
	p->a.addr[0] = (uint8_t)(net >> 24);
	p->a.addr[1] = (uint8_t)(net >> 16);
	p->a.addr[2] = (uint8_t)(net >> 8);
	p->a.addr[3] = (uint8_t)net;
	p->len = g->prefix_len;
}

void
gw_sagen_keybuf(const struct gw_conf_sagen *g, uint32_t i, uint8_t k[GW_SAGEN_KEYBUF])
{
	uint64_t s = (g->key_seed << 32) + i;

	for (unsigned w = 0; w < GW_SAGEN_KEYBUF / 8; w++) {
		uint64_t v = gw_splitmix64(&s);

		for (unsigned b = 0; b < 8; b++)
			k[w * 8 + b] = (uint8_t)(v >> (8 * b));
	}
	s = 0;
}
