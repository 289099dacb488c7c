/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the MAC learning table (lib/tables/gw_mac.h) on a real
 * rte_hash and rte_rcu_qsbr (EAL with --no-huge): learn and lookup, moves,
 * static entries (never aged, never moved), ageing with the clock passed in,
 * the bound (full: refused and counted, lookups still work), group source
 * addresses refused, VLANs kept apart, a deleted entry's memory given back
 * only after the readers' quiescent state, the walk over the entries
 * (gw_mac_iterate), and the memory per entry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "gw_mac.h"
#include "unit_eal.h"

#define S_NS 1000000000ull
#define READER 0              /* the test's one RCU reader id */

static struct rte_rcu_qsbr *rcu;
static unsigned n_tables;

static struct gw_mac_table *
table(uint32_t max, uint64_t age_ns)
{
	char name[32];
	struct gw_mac_params p = { .name = name, .max_entries = max, .age_ns = age_ns,
				   .rcu = rcu, .socket = SOCKET_ID_ANY };
	struct gw_mac_table *t;

	snprintf(name, sizeof(name), "test_mac%u", n_tables++);
	t = gw_mac_create(&p);
	assert_non_null(t);
	return t;
}

static void
mac_of(uint8_t m[GW_MAC_ADDR_BYTES], unsigned i)
{
	m[0] = 0x02;
	m[1] = 0x00;
	m[2] = (uint8_t)(i >> 24);
	m[3] = (uint8_t)(i >> 16);
	m[4] = (uint8_t)(i >> 8);
	m[5] = (uint8_t)i;
}

static uint32_t
where_of(const struct gw_mac_table *t, unsigned i, uint16_t vlan)
{
	uint8_t m[GW_MAC_ADDR_BYTES];
	const struct gw_mac_entry *e;

	mac_of(m, i);
	e = gw_mac_lookup(t, m, vlan);
	return e == NULL ? UINT32_MAX - 1 : gw_mac_where(e);
}

#define ABSENT (UINT32_MAX - 1)

static void
test_learn_lookup_move(void **state)
{
	struct gw_mac_table *t = table(64, 10 * S_NS);
	uint8_t m[GW_MAC_ADDR_BYTES];

	(void)state;
	for (unsigned i = 0; i < 40; i++) {
		mac_of(m, i);
		assert_int_equal(gw_mac_learn(t, m, 0, i % 2 ? GW_MAC_LOCAL : i, 1), GW_MAC_LEARNED);
	}
	assert_int_equal(gw_mac_count(t), 40);
	for (unsigned i = 0; i < 40; i++)
		assert_int_equal(where_of(t, i, 0), i % 2 ? GW_MAC_LOCAL : i);
	assert_int_equal(where_of(t, 40, 0), ABSENT);
	mac_of(m, 3);
	assert_int_equal(gw_mac_learn(t, m, 0, GW_MAC_LOCAL, 2), GW_MAC_REFRESHED);
	assert_int_equal(gw_mac_learn(t, m, 0, 7, 3), GW_MAC_MOVED);
	assert_int_equal(where_of(t, 3, 0), 7);
	assert_int_equal(gw_mac_lookup(t, m, 0)->last_seen_ns, 3);
	/* the entry's key is what gw_mac_delete hashes: aligned for rte_hash_crc */
	assert_int_equal((uintptr_t)&gw_mac_lookup(t, m, 0)->key % sizeof(uint64_t), 0);
	assert_int_equal(gw_mac_counters(t)->learned, 40);
	assert_int_equal(gw_mac_counters(t)->moved, 1);
	/* a key loaded from a frame (8 bytes readable) is the key made from its MAC */
	uint8_t fr[GW_MAC_ADDR_BYTES + 2] = { 0 };
	mac_of(fr, 3);
	fr[6] = 0xab;
	fr[7] = 0xcd;
	struct gw_mac_key kl = gw_mac_key_load(fr, 0), km = gw_mac_key_make(fr, 0);
	assert_memory_equal(&kl, &km, sizeof(kl));
	kl = gw_mac_key_load(fr, GW_MAC_VLAN_MAX);
	km = gw_mac_key_make(fr, GW_MAC_VLAN_MAX);
	assert_memory_equal(&kl, &km, sizeof(kl));
	/* bulk: the same answers */
	struct gw_mac_key k[3];
	const struct gw_mac_entry *out[3];
	for (unsigned i = 0; i < 3; i++) {
		mac_of(m, i == 2 ? 99 : i);
		k[i] = gw_mac_key_make(m, 0);
	}
	assert_int_equal(gw_mac_lookup_bulk(t, k, 3, out), 2);
	assert_int_equal(gw_mac_where(out[0]), 0);
	assert_int_equal(gw_mac_where(out[1]), GW_MAC_LOCAL);
	assert_null(out[2]);
	assert_int_equal(gw_mac_lookup_bulk(t, k, 0, out), -EINVAL);
	gw_mac_free(t);
}

static void
test_static(void **state)
{
	struct gw_mac_table *t = table(16, 10 * S_NS);
	uint8_t m[GW_MAC_ADDR_BYTES];

	(void)state;
	mac_of(m, 1);
	assert_int_equal(gw_mac_add_static(t, m, 5, 2), 0);
	assert_int_equal(gw_mac_learn(t, m, 5, 3, 1), GW_MAC_STATIC_KEPT);
	assert_int_equal(gw_mac_learn(t, m, 5, GW_MAC_LOCAL, 1), GW_MAC_STATIC_KEPT);
	assert_int_equal(where_of(t, 1, 5), 2);
	assert_int_equal(gw_mac_counters(t)->static_kept, 2);
	assert_int_equal(gw_mac_counters(t)->moved, 0);
	/* a learned entry made static stays where the config says */
	mac_of(m, 2);
	assert_int_equal(gw_mac_learn(t, m, 5, 4, 1), GW_MAC_LEARNED);
	assert_int_equal(gw_mac_add_static(t, m, 5, 6), 0);
	assert_int_equal(where_of(t, 2, 5), 6);
	/* never aged, however old */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(gw_mac_age(t, 1000 * S_NS, 0), 0);
	assert_int_equal(where_of(t, 1, 5), 2);
	assert_int_equal(where_of(t, 2, 5), 6);
	assert_int_equal(gw_mac_count(t), 2);
	m[0] = 0x01;
	assert_int_equal(gw_mac_add_static(t, m, 5, 6), -EINVAL);
	mac_of(m, 2);
	assert_int_equal(gw_mac_add_static(t, m, GW_MAC_VLAN_MAX + 1, 6), -EINVAL);
	gw_mac_free(t);
}

static void
test_ageing(void **state)
{
	struct gw_mac_table *t = table(32, 10 * S_NS);
	uint8_t m[GW_MAC_ADDR_BYTES];
	unsigned n = 0;

	(void)state;
	for (unsigned i = 0; i < 20; i++) {
		mac_of(m, i);
		assert_int_equal(gw_mac_learn(t, m, 0, GW_MAC_LOCAL, 1 * S_NS), GW_MAC_LEARNED);
	}
	/* the even ones seen again at 5 s, by a worker's touch */
	for (unsigned i = 0; i < 20; i += 2) {
		mac_of(m, i);
		gw_mac_touch(gw_mac_lookup(t, m, 0), 5 * S_NS);
	}
	/* a hair before 10 s since 1 s: nothing goes */
	assert_int_equal(gw_mac_age(t, 11 * S_NS - 1, 32), 0);
	/* bounded work: 8 slots a call, the cursor goes on where it stopped */
	assert_int_equal(gw_mac_age(t, 11 * S_NS, 8), 4);
	assert_int_equal(gw_mac_count(t), 16);
	for (unsigned c = 0; c < 3; c++)
		n += gw_mac_age(t, 11 * S_NS, 8);
	assert_int_equal(n, 6);
	assert_int_equal(gw_mac_count(t), 10);
	for (unsigned i = 0; i < 20; i++)
		assert_int_equal(where_of(t, i, 0), i % 2 ? ABSENT : GW_MAC_LOCAL);
	assert_int_equal(gw_mac_counters(t)->aged, 10);
	assert_int_equal(gw_mac_age(t, 15 * S_NS, 0), 10);
	assert_int_equal(gw_mac_count(t), 0);
	/* a last-seen time ahead of the clock is not aged */
	mac_of(m, 1);
	gw_mac_learn(t, m, 0, GW_MAC_LOCAL, 100 * S_NS);
	assert_int_equal(gw_mac_age(t, 50 * S_NS, 0), 0);
	assert_int_equal(gw_mac_reclaim(t), 0);
	gw_mac_free(t);
}

static void
test_bound(void **state)
{
	struct gw_mac_table *t = table(100, 10 * S_NS);
	uint8_t m[GW_MAC_ADDR_BYTES];

	(void)state;
	for (unsigned i = 0; i < 100; i++) {
		mac_of(m, i);
		assert_int_equal(gw_mac_learn(t, m, 1, 1, 0), GW_MAC_LEARNED);
	}
	mac_of(m, 100);
	assert_int_equal(gw_mac_learn(t, m, 1, 1, 0), GW_MAC_REFUSED_FULL);
	assert_int_equal(gw_mac_learn(t, m, 2, 1, 0), GW_MAC_REFUSED_FULL);
	assert_int_equal(gw_mac_add_static(t, m, 1, 1), -ENOSPC);
	assert_int_equal(gw_mac_counters(t)->full, 2);
	assert_int_equal(gw_mac_count(t), 100);
	assert_null(gw_mac_lookup(t, m, 1));
	for (unsigned i = 0; i < 100; i++)
		assert_int_equal(where_of(t, i, 1), 1);
	/* known ones still refresh and move when full */
	mac_of(m, 7);
	assert_int_equal(gw_mac_learn(t, m, 1, 3, 0), GW_MAC_MOVED);
	/* one deleted (no reader online): room again */
	assert_int_equal(gw_mac_delete(t, m, 1), 0);
	assert_int_equal(gw_mac_delete(t, m, 1), -ENOENT);
	mac_of(m, 100);
	assert_int_equal(gw_mac_learn(t, m, 1, 1, 0), GW_MAC_LEARNED);
	assert_int_equal(gw_mac_count(t), 100);
	gw_mac_free(t);
}

static void
test_group_and_vlan(void **state)
{
	struct gw_mac_table *t = table(16, 10 * S_NS);
	uint8_t bcast[GW_MAC_ADDR_BYTES] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t mcast[GW_MAC_ADDR_BYTES] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	uint8_t m[GW_MAC_ADDR_BYTES];

	(void)state;
	assert_int_equal(gw_mac_learn(t, bcast, 0, 1, 0), GW_MAC_REFUSED_MULTICAST);
	assert_int_equal(gw_mac_learn(t, mcast, 0, 1, 0), GW_MAC_REFUSED_MULTICAST);
	assert_int_equal(gw_mac_counters(t)->multicast, 2);
	assert_null(gw_mac_lookup(t, bcast, 0));
	assert_int_equal(gw_mac_count(t), 0);
	mac_of(m, 9);
	assert_int_equal(gw_mac_learn(t, m, GW_MAC_VLAN_MAX + 1, 1, 0), GW_MAC_REFUSED_VLAN);
	/* one MAC on three VLANs: three entries, three places */
	assert_int_equal(gw_mac_learn(t, m, 0, 1, 0), GW_MAC_LEARNED);
	assert_int_equal(gw_mac_learn(t, m, 10, 2, 0), GW_MAC_LEARNED);
	assert_int_equal(gw_mac_learn(t, m, GW_MAC_VLAN_MAX, GW_MAC_LOCAL, 0), GW_MAC_LEARNED);
	assert_int_equal(where_of(t, 9, 0), 1);
	assert_int_equal(where_of(t, 9, 10), 2);
	assert_int_equal(where_of(t, 9, GW_MAC_VLAN_MAX), GW_MAC_LOCAL);
	assert_int_equal(where_of(t, 9, 11), ABSENT);
	assert_int_equal(gw_mac_delete(t, m, 10), 0);
	assert_int_equal(where_of(t, 9, 0), 1);
	assert_int_equal(where_of(t, 9, 10), ABSENT);
	assert_string_equal(gw_mac_result_name(GW_MAC_REFUSED_MULTICAST), "refused_multicast");
	gw_mac_free(t);
}

/* A reader online holds an entry: deleted, it is out of the hash but its
 * memory waits until the reader's quiescent state. */
static void
test_delete_rcu(void **state)
{
	struct gw_mac_table *t = table(4, 10 * S_NS);
	uint8_t m[GW_MAC_ADDR_BYTES];
	const struct gw_mac_entry *e;

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		mac_of(m, i);
		assert_int_equal(gw_mac_learn(t, m, 0, 5, 0), GW_MAC_LEARNED);
	}
	rte_rcu_qsbr_thread_online(rcu, READER);
	mac_of(m, 2);
	e = gw_mac_lookup(t, m, 0);
	assert_non_null(e);
	assert_int_equal(gw_mac_delete(t, m, 0), 0);
	assert_null(gw_mac_lookup(t, m, 0));
	assert_int_equal(gw_mac_count(t), 3);
	assert_int_equal(gw_mac_reclaim(t), 1);
	assert_int_equal(gw_mac_pending(t), 1);
	/* full: the deleted entry's memory is not free yet, so no learn */
	mac_of(m, 50);
	assert_int_equal(gw_mac_learn(t, m, 0, 6, 0), GW_MAC_REFUSED_FULL);
	/* the reader's entry is intact */
	assert_int_equal(gw_mac_where(e), 5);
	assert_int_equal(e->key.mac[5], 2);
	rte_rcu_qsbr_quiescent(rcu, READER);
	assert_int_equal(gw_mac_reclaim(t), 0);
	assert_int_equal(gw_mac_pending(t), 0);
	assert_int_equal(gw_mac_learn(t, m, 0, 6, 0), GW_MAC_LEARNED);
	assert_int_equal(where_of(t, 50, 0), 6);
	rte_rcu_qsbr_thread_offline(rcu, READER);
	gw_mac_free(t);
}

/* Index i of an entry made by mac_of(i): its last 4 bytes. */
static unsigned
index_of(const struct gw_mac_key *k)
{
	return (unsigned)k->mac[2] << 24 | (unsigned)k->mac[3] << 16 | (unsigned)k->mac[4] << 8 |
	       k->mac[5];
}

#define IT_LEARNED 40
#define IT_STATIC0 1000       /* mac_of index of the two static entries */

/* Walk from *cursor for at most n entries, checking each against what
 * test_iterate put in and marking it in seen[]; returns the entries walked. */
static unsigned
walk(const struct gw_mac_table *t, uint32_t *cursor, unsigned n, unsigned seen[IT_LEARNED + 2])
{
	struct gw_mac_entry e;
	unsigned got = 0;

	while (got < n && gw_mac_iterate(t, cursor, &e) == 0) {
		unsigned i = index_of(&e.key);

		assert_int_equal(e.live, 1);
		if (i >= IT_STATIC0) {
			assert_true(i < IT_STATIC0 + 2);
			assert_int_equal(e.is_static, 1);
			assert_int_equal(e.key.vlan, i == IT_STATIC0 ? 7 : 0);
			assert_int_equal(e.where, i == IT_STATIC0 ? 3 : GW_MAC_LOCAL);
			assert_int_equal(e.last_seen_ns, 0);
			i = IT_LEARNED + i - IT_STATIC0;
		} else {
			assert_true(i < IT_LEARNED);
			assert_int_equal(e.is_static, 0);
			assert_int_equal(e.key.vlan, i % 3);
			assert_int_equal(e.where, i % 2 ? GW_MAC_LOCAL : i);
			assert_int_equal(e.last_seen_ns, i == 4 ? 104 + GW_MAC_TOUCH_STEP_NS : 100 + i);
		}
		seen[i]++;
		got++;
	}
	return got;
}

/* gw_mac_iterate: every entry once, as it is (learned, moved, static), a
 * walk that stops and goes on from its cursor, and entries deleted during
 * a walk (a reader online, as telemetry is) left out of the rest of it. */
static void
test_iterate(void **state)
{
	struct gw_mac_table *t = table(64, 10 * S_NS);
	unsigned seen[IT_LEARNED + 2] = { 0 };
	uint8_t m[GW_MAC_ADDR_BYTES];
	struct gw_mac_entry e, first;
	uint32_t cursor = 0;
	unsigned n;

	(void)state;
	assert_int_equal(gw_mac_capacity(t), 64);
	assert_int_equal(gw_mac_iterate(t, &cursor, &e), -ENOENT);
	for (unsigned i = 0; i < IT_LEARNED; i++) {
		mac_of(m, i);
		assert_int_equal(gw_mac_learn(t, m, (uint16_t)(i % 3), i % 2 ? 9 : i, 100 + i),
				 GW_MAC_LEARNED);
		if (i % 2)    /* moved: the walk shows where it is now */
			assert_int_equal(gw_mac_learn(t, m, (uint16_t)(i % 3), GW_MAC_LOCAL, 100 + i),
					 GW_MAC_MOVED);
	}
	/* a worker's touch: a step behind (or more) goes forward, less stays */
	mac_of(m, 4);
	gw_mac_touch(gw_mac_lookup(t, m, 4 % 3), 104 + GW_MAC_TOUCH_STEP_NS - 1);
	assert_int_equal(gw_mac_lookup(t, m, 4 % 3)->last_seen_ns, 104);
	gw_mac_touch(gw_mac_lookup(t, m, 4 % 3), 104 + GW_MAC_TOUCH_STEP_NS);
	assert_int_equal(gw_mac_lookup(t, m, 4 % 3)->last_seen_ns, 104 + GW_MAC_TOUCH_STEP_NS);
	gw_mac_touch(gw_mac_lookup(t, m, 4 % 3), 0);    /* never backwards */
	mac_of(m, IT_STATIC0);
	assert_int_equal(gw_mac_add_static(t, m, 7, 3), 0);
	mac_of(m, IT_STATIC0 + 1);
	assert_int_equal(gw_mac_add_static(t, m, 0, GW_MAC_LOCAL), 0);

	/* in two parts: 10, then the rest from the kept cursor */
	cursor = 0;
	assert_int_equal(walk(t, &cursor, 10, seen), 10);
	assert_int_equal(walk(t, &cursor, UINT32_MAX, seen), IT_LEARNED + 2 - 10);
	for (unsigned i = 0; i < IT_LEARNED + 2; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(gw_mac_iterate(t, &cursor, &e), -ENOENT);
	assert_int_equal(gw_mac_count(t), IT_LEARNED + 2);

	/* a reader walks; after its first entry all the others are deleted */
	rte_rcu_qsbr_thread_online(rcu, READER);
	cursor = 0;
	assert_int_equal(gw_mac_iterate(t, &cursor, &first), 0);
	for (unsigned i = 0; i < IT_LEARNED + 2; i++) {
		unsigned k = i < IT_LEARNED ? i : IT_STATIC0 + i - IT_LEARNED;
		uint16_t vlan = i < IT_LEARNED ? (uint16_t)(i % 3) : k == IT_STATIC0 ? 7 : 0;

		if (k == index_of(&first.key))
			continue;
		mac_of(m, k);
		assert_int_equal(gw_mac_delete(t, m, vlan), 0);
	}
	assert_int_equal(gw_mac_iterate(t, &cursor, &e), -ENOENT);
	assert_int_equal(gw_mac_pending(t), IT_LEARNED + 1);
	rte_rcu_qsbr_quiescent(rcu, READER);
	rte_rcu_qsbr_thread_offline(rcu, READER);
	assert_int_equal(gw_mac_reclaim(t), 0);
	/* from the start again: the one left */
	cursor = 0;
	n = 0;
	while (gw_mac_iterate(t, &cursor, &e) == 0) {
		assert_memory_equal(&e.key, &first.key, sizeof(e.key));
		n++;
	}
	assert_int_equal(n, 1);
	gw_mac_free(t);
}

/* The memory per entry of a default-sized table: at least the key and the
 * value, printed for the benchmark. */
static void
test_bytes_per_entry(void **state)
{
	struct gw_mac_table *t = table(0, 0);
	size_t b = gw_mac_bytes_per_entry(t);

	(void)state;
	printf("gw_mac: %u entries, %zu bytes per entry (value %zu + free list 4)\n",
	       GW_MAC_ENTRIES_DEFAULT, b, sizeof(struct gw_mac_entry));
	assert_true(b >= sizeof(struct gw_mac_key) + sizeof(struct gw_mac_entry) + 4);
	assert_true(b < 1024);
	gw_mac_free(t);
}

static void
test_params(void **state)
{
	struct gw_mac_params p = { .name = "test_mac_bad", .rcu = rcu, .socket = SOCKET_ID_ANY,
				   .max_entries = GW_MAC_ENTRIES_MAX + 1 };

	(void)state;
	assert_null(gw_mac_create(&p));
	p.max_entries = 8;
	p.age_ns = (uint64_t)GW_MAC_AGE_MAX_S * S_NS + 1;
	assert_null(gw_mac_create(&p));
	p.age_ns = 0;
	p.rcu = NULL;
	assert_null(gw_mac_create(&p));
}

static int
setup(void **state)
{
	char *argv[] = { "test_mac", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_mac", "-l", "0",
			 "--log-level", "error", NULL };
	size_t sz;

	(void)state;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	sz = rte_rcu_qsbr_get_memsize(1);
	rcu = rte_zmalloc(NULL, sz, RTE_CACHE_LINE_SIZE);
	if (rcu == NULL || rte_rcu_qsbr_init(rcu, 1) != 0 ||
	    rte_rcu_qsbr_thread_register(rcu, READER) != 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_free(rcu);
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learn_lookup_move),
		cmocka_unit_test(test_static),
		cmocka_unit_test(test_ageing),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_group_and_vlan),
		cmocka_unit_test(test_delete_rcu),
		cmocka_unit_test(test_iterate),
		cmocka_unit_test(test_bytes_per_entry),
		cmocka_unit_test(test_params),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
