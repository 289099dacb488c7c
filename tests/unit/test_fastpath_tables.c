/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the table helpers the worker calls per packet:
 *   - the per-lcore next-hop MAC cache (gw_neigh.h gw_neigh_cache_get) in front
 *     of the neighbour rte_hash: the right MAC for many hosts, IPv4 vs IPv6 vs
 *     port kept apart, a changed MAC seen once the generation moves, unknown
 *     neighbours not cached;
 *   - gw_prefixes_match (gw_sa.h) and gw_port_owns (gw_ctx.h), word compares,
 *     against a bit-by-bit reference for every prefix length;
 *   - the peer locator table of the unknown-SPI path (gw_peerloc.h): source
 *     addresses of IPv4 and IPv6 headers found, families kept apart, and its
 *     rate limit at given TSC values (per peer, and the cap over all peers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>
#include <rte_hash.h>

#include "gw_ctx.h"
#include "gw_neigh.h"
#include "gw_peerloc.h"
#include "gw_sa.h"
#include "unit_eal.h"

static struct rte_hash *neigh;

static struct gw_addr
v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct gw_addr x = { .family = 4 };

	x.addr[0] = a;
	x.addr[1] = b;
	x.addr[2] = c;
	x.addr[3] = d;
	return x;
}

static struct gw_addr
v6_from(const struct gw_addr *a4)
{
	struct gw_addr x = { .family = 6 };

	memcpy(x.addr, a4->addr, 4);      /* same first bytes as the IPv4 one */
	return x;
}

static struct rte_ether_addr
mac_of(unsigned i, uint8_t tag)
{
	struct rte_ether_addr m = { { 0x02, tag, 0, 0, (uint8_t)(i >> 8), (uint8_t)i } };

	return m;
}

static void
assert_mac(const struct rte_ether_addr *a, const struct rte_ether_addr *b)
{
	assert_memory_equal(a->addr_bytes, b->addr_bytes, RTE_ETHER_ADDR_LEN);
}

/* 300 on-link hosts (more than the cache's slots): every lookup, from the
 * table or the cache, gives each host its own MAC, twice round. */
static void
test_cache_many_hosts(void **state)
{
	struct gw_neigh_cache *c = calloc(1, sizeof(*c));
	struct rte_ether_addr got;

	(void)state;
	assert_non_null(c);
	rte_hash_reset(neigh);
	for (unsigned i = 0; i < 300; i++) {
		struct gw_addr a = v4(10, 2, (uint8_t)(i >> 8), (uint8_t)i);
		struct rte_ether_addr m = mac_of(i, 4);

		assert_int_equal(gw_neigh_set(neigh, 0, &a, &m, true), 0);
	}
	for (unsigned round = 0; round < 2; round++) {
		for (unsigned i = 0; i < 300; i++) {
			struct gw_addr a = v4(10, 2, (uint8_t)(i >> 8), (uint8_t)i);
			struct rte_ether_addr m = mac_of(i, 4);

			memset(&got, 0, sizeof(got));
			assert_true(gw_neigh_cache_get(c, neigh, 7, 0, 4, a.addr, &got));
			assert_mac(&got, &m);
		}
	}
	free(c);
}

/* The same leading bytes as IPv4 and IPv6, and the same IPv4 on two ports,
 * are different neighbours, also when they share a cache slot. */
static void
test_cache_family_and_port(void **state)
{
	struct gw_neigh_cache *c = calloc(1, sizeof(*c));
	struct gw_addr a4 = v4(192, 0, 2, 9), a6 = v6_from(&a4);
	struct rte_ether_addr m4 = mac_of(1, 4), m6 = mac_of(1, 6), m4p1 = mac_of(2, 4), got;

	(void)state;
	assert_non_null(c);
	rte_hash_reset(neigh);
	assert_int_equal(gw_neigh_set(neigh, 0, &a4, &m4, true), 0);
	assert_int_equal(gw_neigh_set(neigh, 0, &a6, &m6, true), 0);
	assert_int_equal(gw_neigh_set(neigh, 1, &a4, &m4p1, true), 0);
	for (unsigned round = 0; round < 3; round++) {
		assert_true(gw_neigh_cache_get(c, neigh, 1, 0, 4, a4.addr, &got));
		assert_mac(&got, &m4);
		assert_true(gw_neigh_cache_get(c, neigh, 1, 0, 6, a6.addr, &got));
		assert_mac(&got, &m6);
		assert_true(gw_neigh_cache_get(c, neigh, 1, 1, 4, a4.addr, &got));
		assert_mac(&got, &m4p1);
	}
	/* IPv6 address whose folded slot equals an IPv4 one's: still apart */
	{
		uint64_t k4[2] = { 0, 0 }, k6[2];
		struct gw_addr b6 = { .family = 6 };

		memcpy(k4, a4.addr, 4);
		/* ip[0] ^ ip[1] == the IPv4 word: same slot (port 0) */
		k6[0] = 0x0123456789abcdefULL;
		k6[1] = k6[0] ^ k4[0];
		memcpy(b6.addr, k6, 16);
		struct rte_ether_addr mb6 = mac_of(3, 6);

		assert_int_equal(gw_neigh_cache_slot(0, 6, k6), gw_neigh_cache_slot(0, 4, k4));
		assert_false(gw_neigh_cache_get(c, neigh, 1, 0, 6, b6.addr, &got));
		assert_int_equal(gw_neigh_set(neigh, 0, &b6, &mb6, true), 0);
		for (unsigned round = 0; round < 3; round++) {
			assert_true(gw_neigh_cache_get(c, neigh, 1, 0, 6, b6.addr, &got));
			assert_mac(&got, &mb6);
			assert_true(gw_neigh_cache_get(c, neigh, 1, 0, 4, a4.addr, &got));
			assert_mac(&got, &m4);
		}
	}
	free(c);
}

/* A neighbour whose MAC changes (ARP/ND update: the control lcore sets it, then
 * bumps the generation): the old MAC until the bump, the new one after. An
 * unknown or not yet resolved neighbour is a miss and is not cached. */
static void
test_cache_generation_and_misses(void **state)
{
	struct gw_neigh_cache *c = calloc(1, sizeof(*c));
	struct gw_addr a = v4(10, 2, 0, 5), b = v4(10, 2, 0, 6);
	struct rte_ether_addr m1 = mac_of(1, 9), m2 = mac_of(2, 9), mb = mac_of(3, 9), got;

	(void)state;
	assert_non_null(c);
	rte_hash_reset(neigh);
	assert_int_equal(gw_neigh_set(neigh, 0, &a, &m1, false), 0);
	assert_true(gw_neigh_cache_get(c, neigh, 10, 0, 4, a.addr, &got));
	assert_mac(&got, &m1);
	assert_int_equal(gw_neigh_set(neigh, 0, &a, &m2, false), 0);
	/* generation unchanged: the cached MAC (the worker sees the bump later) */
	assert_true(gw_neigh_cache_get(c, neigh, 10, 0, 4, a.addr, &got));
	assert_mac(&got, &m1);
	assert_true(gw_neigh_cache_get(c, neigh, 11, 0, 4, a.addr, &got));
	assert_mac(&got, &m2);

	/* unknown: false every time, also after it was asked for once */
	assert_false(gw_neigh_cache_get(c, neigh, 11, 0, 4, b.addr, &got));
	assert_false(gw_neigh_cache_get(c, neigh, 11, 0, 4, b.addr, &got));
	/* entry present but not valid (an incomplete one): a miss */
	{
		struct gw_neigh_key k;

		gw_neigh_key_make(&k, 0, 4, b.addr);
		assert_true(rte_hash_add_key_data(neigh, &k, (void *)(uintptr_t)0) >= 0);
		assert_false(gw_neigh_cache_get(c, neigh, 11, 0, 4, b.addr, &got));
	}
	assert_int_equal(gw_neigh_set(neigh, 0, &b, &mb, false), 0);
	assert_true(gw_neigh_cache_get(c, neigh, 12, 0, 4, b.addr, &got));
	assert_mac(&got, &mb);
	free(c);
}

/* ---------- prefix and own-address matches against a bitwise reference ---------- */

static bool
ref_match(const struct gw_prefix *p, unsigned n, uint8_t family, const uint8_t *addr)
{
	for (unsigned i = 0; i < n; i++) {
		bool ok = p[i].a.family == family;

		for (unsigned b = 0; ok && b < p[i].len; b++)
			ok = ((p[i].a.addr[b / 8] ^ addr[b / 8]) & (0x80 >> (b % 8))) == 0;
		if (ok)
			return true;
	}
	return false;
}

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint8_t
rnd8(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)rng_state;
}

static void
test_prefixes_match_every_length(void **state)
{
	(void)state;
	for (uint8_t family = 4; family <= 6; family += 2) {
		unsigned alen = family == 4 ? 4 : 16, maxlen = family == 4 ? 32 : 128;

		for (unsigned len = 0; len <= maxlen; len++) {
			for (unsigned t = 0; t < 200; t++) {
				struct gw_prefix p[2];
				uint8_t addr[16] = { 0 };

				memset(p, 0, sizeof(p));
				p[0].a.family = family;
				p[0].len = (uint8_t)len;
				for (unsigned i = 0; i < alen; i++)
					p[0].a.addr[i] = rnd8();
				/* an address sharing a random number of leading bits */
				{
					unsigned same = rnd8() % (maxlen + 1);

					for (unsigned i = 0; i < alen; i++)
						addr[i] = rnd8();
					for (unsigned b = 0; b < same; b++) {
						uint8_t bit = 0x80 >> (b % 8);

						addr[b / 8] = (uint8_t)((addr[b / 8] & ~bit) |
									(p[0].a.addr[b / 8] & bit));
					}
				}
				assert_int_equal(gw_prefixes_match(p, 1, family, addr),
						 ref_match(p, 1, family, addr));
				/* the other family's prefix never matches, first or second */
				p[1] = p[0];
				p[0].a.family = family == 4 ? 6 : 4;
				assert_int_equal(gw_prefixes_match(p, 1, family, addr), false);
				assert_int_equal(gw_prefixes_match(p, 2, family, addr),
						 ref_match(&p[1], 1, family, addr));
			}
		}
	}
}

static void
test_port_owns(void **state)
{
	struct gw_port port;
	struct gw_addr a = v4(192, 0, 2, 1), a6 = v6_from(&a), other = v4(192, 0, 2, 2);

	(void)state;
	memset(&port, 0, sizeof(port));
	port.addrs.a[0].a = a;
	port.addrs.a[0].len = 24;
	port.addrs.a[1].a = a6;
	port.addrs.a[1].a.addr[15] = 1;
	port.addrs.a[1].len = 64;
	port.addrs.n = 2;
	assert_true(gw_port_owns(&port, 4, a.addr));
	assert_false(gw_port_owns(&port, 4, other.addr));
	assert_false(gw_port_owns(&port, 6, a6.addr));          /* differs in the last byte */
	assert_true(gw_port_owns(&port, 6, port.addrs.a[1].a.addr));
	/* the IPv6 address's first 4 bytes are the IPv4 one's: no cross-family match */
	port.addrs.a[1].a.addr[15] = 0;
	port.addrs.n = 1;
	assert_false(gw_port_owns(&port, 6, a6.addr));
	port.addrs.a[0] = port.addrs.a[1];
	port.addrs.a[0].a = a6;
	assert_false(gw_port_owns(&port, 4, a.addr));
}

/* An IPv4 or IPv6 header (as bytes) with source address a. */
static void
ip_hdr_from(const struct gw_addr *a, uint8_t hdr[40])
{
	memset(hdr, 0, 40);
	if (a->family == 4) {
		hdr[0] = 0x45;
		memcpy(hdr + 12, a->addr, 4);
	} else {
		hdr[0] = 0x60;
		memcpy(hdr + 8, a->addr, 16);
	}
}

static int
find_src(const struct gw_peerloc *t, const struct gw_addr *a)
{
	uint8_t hdr[40];
	struct gw_addr back;

	ip_hdr_from(a, hdr);
	gw_peerloc_src(hdr, &back);
	assert_memory_equal(&back, a, sizeof(back));
	return gw_peerloc_find(t, hdr);
}

/* Locators of two peers, one given to both (it stays the first's); lookups
 * by the source address of a header, never across families. */
static void
test_peerloc_find(void **state)
{
	struct gw_peerloc *t = gw_peerloc_create("test_peerloc_find", 2, 4, SOCKET_ID_ANY);
	struct gw_addr a = v4(192, 0, 2, 2), b = v4(192, 0, 2, 3), a6 = v6_from(&a);
	struct gw_addr stranger = v4(192, 0, 2, 4), stranger6 = v6_from(&b);

	(void)state;
	assert_non_null(t);
	a6.addr[15] = 2;
	assert_int_equal(gw_peerloc_add(t, &a, 0, 5), 0);
	assert_int_equal(gw_peerloc_add(t, &b, 0, 5), 0);
	assert_int_equal(gw_peerloc_add(t, &a6, 1, 7), 0);
	assert_int_equal(gw_peerloc_add(t, &b, 1, 7), 1);      /* peer 0's already */
	assert_int_equal(gw_peerloc_add(t, &stranger, 2, 9), -1);   /* no peer 2 */
	assert_int_equal(t->peers[0].slot, 5);
	assert_int_equal(t->peers[1].slot, 7);
	assert_int_equal(find_src(t, &a), 0);
	assert_int_equal(find_src(t, &b), 0);
	assert_int_equal(find_src(t, &a6), 1);
	assert_int_equal(find_src(t, &stranger), -1);
	assert_int_equal(find_src(t, &stranger6), -1);  /* b's bytes, as IPv6 */
	a6.addr[15] = 0;
	assert_int_equal(find_src(t, &a6), -1);         /* a's bytes, as IPv6 */
	gw_peerloc_free(t);
	gw_peerloc_free(NULL);
}

/* The trigger rate limit at TSC values of our choosing: a peer once per
 * GW_UNKNOWN_SPI_PEER_GAP_MS, all peers together GW_UNKNOWN_SPI_PUNTS_PER_S
 * times per TSC second; refused tries do not use a peer's turn up. */
static void
test_peerloc_rate_limit(void **state)
{
	enum { PEERS = 2 * GW_UNKNOWN_SPI_PUNTS_PER_S + 4 };
	struct gw_peerloc *t = gw_peerloc_create("test_peerloc_rate", PEERS, 1, SOCKET_ID_ANY);
	uint64_t hz, sec0, gap;
	unsigned n;

	(void)state;
	assert_non_null(t);
	hz = t->hz;
	gap = hz / 1000 * GW_UNKNOWN_SPI_PEER_GAP_MS;
	sec0 = 100 * hz + hz / 4;                 /* a quarter into TSC second 100 */
	assert_true(gw_peerloc_take(t, 0, sec0));
	assert_false(gw_peerloc_take(t, 0, sec0));
	assert_false(gw_peerloc_take(t, 0, sec0 + gap - 1));
	assert_false(gw_peerloc_take(t, PEERS, sec0));          /* no such peer */
	/* all peers at once, in the same second: the cap (one went to peer 0) */
	n = 0;
	for (unsigned p = 1; p < PEERS; p++)
		n += gw_peerloc_take(t, p, sec0 + 1);
	assert_int_equal(n, GW_UNKNOWN_SPI_PUNTS_PER_S - 1);
	/* the next second: the refused peers get theirs, up to the cap again */
	n = 0;
	for (unsigned p = 1; p < PEERS; p++)
		n += gw_peerloc_take(t, p, sec0 + hz);
	assert_int_equal(n, GW_UNKNOWN_SPI_PUNTS_PER_S);
	assert_true(gw_peerloc_take(t, PEERS - 1, sec0 + 2 * hz));   /* refused twice, not used up */
	assert_true(gw_peerloc_take(t, 0, sec0 + 2 * hz));           /* a gap later */
	/* a TSC a little behind the newest second counts in that second */
	n = 0;
	for (unsigned p = 1; p < PEERS; p++)
		n += gw_peerloc_take(t, p, sec0 + 3 * hz);
	assert_int_equal(n, GW_UNKNOWN_SPI_PUNTS_PER_S);
	assert_false(gw_peerloc_take(t, PEERS - 2, sec0 + 2 * hz + hz / 2));
	gw_peerloc_free(t);
}

static int
setup(void **state)
{
	char *argv[] = { "test_fastpath_tables", "--no-huge", "-m", "64", "--no-pci",
			 "--no-shconf", "--no-telemetry", "--file-prefix", "test_fastpath_tables",
			 "-l", "0", "--log-level", "error", NULL };

	(void)state;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	neigh = gw_neigh_create("test_neigh", 1024, SOCKET_ID_ANY);
	return neigh == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_hash_free(neigh);
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_many_hosts),
		cmocka_unit_test(test_cache_family_and_port),
		cmocka_unit_test(test_cache_generation_and_misses),
		cmocka_unit_test(test_prefixes_match_every_length),
		cmocka_unit_test(test_port_owns),
		cmocka_unit_test(test_peerloc_find),
		cmocka_unit_test(test_peerloc_rate_limit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
