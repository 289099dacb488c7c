/* SPDX-License-Identifier: BSD-3-Clause
 * [sa-gen]: many ESP SAs from one config section, for benchmarks and labs.
 * The keys come from a seed written in the config, so anyone who reads the
 * config can read the traffic: never carry real traffic over such SAs.
 *
 * Everything is a pure function of the section, so another program (perf/esp-bench,
 * tests/component) reproduces the same SPIs, prefixes and keys. The definitions,
 * all arithmetic modulo 2^64 on unsigned integers:
 *
 *   splitmix64(s):  s += 0x9E3779B97F4A7C15; z = s;
 *                   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
 *                   z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
 *                   return z ^ (z >> 31)        (Steele, Lea, Flood 2014)
 *   perm(seed, b, x), a bijection of [0, 2^b) (b = 0..32; perm(., 0, 0) = 0):
 *                   s = seed; three times:
 *                     m = splitmix64(s) | 1; a = splitmix64(s);
 *                     x = (x * m + a) mod 2^b; x ^= x >> ceil(b / 2)
 *   SPI of SA i:    the i-th value (from 0) of perm(spi-seed, 32, j), j = 0, 1, 2, ...,
 *                   that is >= 256 (RFC 4303 2.1 reserves 1..255): distinct by
 *                   construction
 *   prefix of SA i: the block's network + perm(prefix-seed, prefix-len - block
 *                   length, i) << (32 - prefix-len), /prefix-len: distinct, and
 *                   in a scattered order over the block
 *   keys of SA i:   s = key-seed * 2^32 + i; the bytes of 16 successive
 *                   splitmix64(s) outputs, each little-endian, form a 128-byte
 *                   string K; key = K[0 .. key length) (GCM: AES key then the
 *                   4-byte salt), auth-key = K[64 .. 96)
 */
#ifndef HIPGW_SAGEN_H
#define HIPGW_SAGEN_H

#include <stdint.h>
#include "gw_config.h"

#define GW_SAGEN_KEYBUF 128   /* bytes of K */

/* One step of splitmix64: advances *s, returns the next output. */
static inline uint64_t
gw_splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* perm(seed, bits, x) above; x < 2^bits, bits <= 32. */
uint32_t gw_sagen_perm(uint64_t seed, unsigned bits, uint32_t x);

/* The next SPI of the sequence: *j is the sequence position (start at 0),
 * advanced past the value returned. Call once per SA, in SA order. */
uint32_t gw_sagen_spi_next(const struct gw_conf_sagen *g, uint32_t *j);
/* The same sequence for any seed (also [mbox-gen]'s spi-seed). */
uint32_t gw_sagen_spi_seq(uint64_t spi_seed, uint32_t *j);

/* The inner prefix of SA i (i < g->count): out SAs send traffic to it, in SAs
 * accept inner sources from it. */
void gw_sagen_prefix(const struct gw_conf_sagen *g, uint32_t i, struct gw_prefix *p);

/* Index of the /prefix-len network holding IPv4 address dst (host order)
 * within the block, i.e. perm(...) of the SA that owns it, or UINT32_MAX when
 * dst is outside the block. */
static inline uint32_t
gw_sagen_block_index(uint32_t block_net, uint32_t block_mask, unsigned prefix_len,
		     uint32_t dst)
{
	if ((dst & block_mask) != block_net)
		return UINT32_MAX;
	return (uint32_t)((uint64_t)(dst - block_net) >> (32 - prefix_len));
}

/* K of SA i (GW_SAGEN_KEYBUF bytes): key = K[0..], auth-key = K[64..]. The
 * caller wipes it after use. */
void gw_sagen_keybuf(const struct gw_conf_sagen *g, uint32_t i, uint8_t k[GW_SAGEN_KEYBUF]);

#endif
