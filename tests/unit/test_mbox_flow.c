/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the middlebox's flow table (lib/tables/gw_mbox_flow.h) on a
 * real rte_hash and rte_rcu_qsbr (EAL with --no-huge): add and look up by
 * (family, destination, SPI), IPv4 and IPv6 apart, one key and a burst in
 * bulk, an existing flow given to another association, the bound (-ENOSPC),
 * per-worker counters summed and zeroed when a slot is reused, a deleted
 * flow's slot given back only after the readers' quiescent state, the walk,
 * bad parameters and the memory per flow.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "gw_mbox_flow.h"
#include "unit_eal.h"

#define READER 0              /* the test's one RCU reader id */
#define WORKERS 2

static struct rte_rcu_qsbr *rcu;
static unsigned n_tables;

static struct gw_mbox_flows *
table(uint32_t max)
{
	char name[32];
	struct gw_mbox_flows *f;

	snprintf(name, sizeof(name), "test_mbf%u", n_tables++);
	f = gw_mbox_flows_create(name, max, WORKERS, rcu, SOCKET_ID_ANY);
	assert_non_null(f);
	return f;
}

/* Destination i: 192.0.2.i / 10.x.y.z (family 4), or 2001:db8::i (6). */
static struct gw_addr
dst_of(uint8_t family, unsigned i)
{
	struct gw_addr a = { .family = family };

	if (family == 4) {
		a.addr[0] = 10;
		a.addr[1] = (uint8_t)(i >> 16);
		a.addr[2] = (uint8_t)(i >> 8);
		a.addr[3] = (uint8_t)i;
	} else {
		a.addr[0] = 0x20;
		a.addr[1] = 0x01;
		a.addr[2] = 0x0d;
		a.addr[3] = 0xb8;
		a.addr[13] = (uint8_t)(i >> 16);
		a.addr[14] = (uint8_t)(i >> 8);
		a.addr[15] = (uint8_t)i;
	}
	return a;
}

static const struct gw_mbox_flow *
find(const struct gw_mbox_flows *f, const struct gw_addr *a, uint32_t spi)
{
	struct gw_mbox_flow_key k;

	gw_mbox_flow_key_set(&k, a->family, a->addr, spi);
	return gw_mbox_flow_lookup(f, &k);
}

static void
test_add_lookup(void **state)
{
	struct gw_mbox_flows *f = table(64);
	struct gw_addr a4 = dst_of(4, 1), a6 = dst_of(6, 1), b4 = dst_of(4, 2);
	const struct gw_mbox_flow *fl;

	(void)state;
	assert_int_equal(gw_mbox_flow_add(f, &a4, 0x1000, 7, false), 0);
	assert_int_equal(gw_mbox_flow_add(f, &a6, 0x1000, 8, true), 0);
	assert_int_equal(gw_mbox_flows_count(f), 2);
	assert_int_equal(gw_mbox_flows_lab_count(f), 1);
	fl = find(f, &a4, 0x1000);
	assert_non_null(fl);
	assert_int_equal(fl->assoc, 7);
	assert_int_equal(fl->lab, 0);
	fl = find(f, &a6, 0x1000);
	assert_non_null(fl);
	assert_int_equal(fl->assoc, 8);
	/* the same SPI to another destination, another SPI to the same one: no flow */
	assert_null(find(f, &b4, 0x1000));
	assert_null(find(f, &a4, 0x1001));
	/* an IPv6 address whose first 4 bytes are an IPv4 flow's: apart */
	{
		struct gw_addr x = { .family = 6 };

		memcpy(x.addr, a4.addr, 4);
		assert_null(find(f, &x, 0x1000));
	}
	/* an existing flow is given to another association */
	assert_int_equal(gw_mbox_flow_add(f, &a4, 0x1000, 9, true), 0);
	assert_int_equal(gw_mbox_flows_count(f), 2);
	assert_int_equal(gw_mbox_flows_lab_count(f), 2);
	assert_int_equal(find(f, &a4, 0x1000)->assoc, 9);
	/* bad input */
	{
		struct gw_addr bad = { .family = 5 };

		assert_int_equal(gw_mbox_flow_add(f, &bad, 1, 1, false), -EINVAL);
		assert_int_equal(gw_mbox_flow_add(f, NULL, 1, 1, false), -EINVAL);
		assert_int_equal(gw_mbox_flow_del(f, &bad, 1), -ENOENT);
	}
	assert_int_equal(gw_mbox_flow_del(f, &b4, 0x1000), -ENOENT);
	gw_mbox_flows_free(f);
}

static void
test_bulk(void **state)
{
	struct gw_mbox_flows *f = table(256);
	struct gw_mbox_flow_key k[64];
	uint32_t out[64], out_h[64], hash[64];

	(void)state;
	for (unsigned i = 0; i < 100; i++) {
		struct gw_addr a = dst_of(i % 2 ? 6 : 4, i);

		assert_int_equal(gw_mbox_flow_add(f, &a, 0x100 + i, i, false), 0);
	}
	/* even keys known, odd ones with a wrong SPI */
	for (unsigned i = 0; i < 64; i++) {
		struct gw_addr a = dst_of(i % 2 ? 6 : 4, i);

		gw_mbox_flow_key_set(&k[i], a.family, a.addr, 0x100 + i + (i % 4 == 3 ? 1000 : 0));
	}
	for (unsigned i = 0; i < 64; i++)
		hash[i] = gw_mbox_flow_hash(&k[i]);
	assert_int_equal(gw_mbox_flow_lookup_bulk(f, k, NULL, 64, out), 48);
	/* the hashes given: the same slots */
	assert_int_equal(gw_mbox_flow_lookup_bulk(f, k, hash, 64, out_h), 48);
	assert_memory_equal(out, out_h, sizeof(out));
	for (unsigned i = 0; i < 64; i++) {
		const struct gw_mbox_flow *fl = gw_mbox_flow_lookup(f, &k[i]);

		if (i % 4 == 3) {
			assert_int_equal(out[i], GW_MBOX_FLOW_NONE);
			assert_null(fl);
			continue;
		}
		/* the slot of the flow of that key */
		assert_non_null(fl);
		assert_int_equal(out[i], fl->idx);
		assert_int_equal(fl->assoc, i);
		assert_memory_equal(&fl->key, &k[i], sizeof(k[i]));
	}
	assert_int_equal(gw_mbox_flow_lookup_bulk(f, k, NULL, 0, out), -EINVAL);
	assert_int_equal(gw_mbox_flow_lookup_bulk(f, k, NULL, 65, out), -EINVAL);
	gw_mbox_flows_free(f);
}

static void
test_bound(void **state)
{
	struct gw_mbox_flows *f = table(8);
	struct gw_addr a = dst_of(4, 1);

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(gw_mbox_flow_add(f, &a, 0x100 + i, i, false), 0);
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x200, 1, false), -ENOSPC);
	assert_int_equal(gw_mbox_flows_count(f), 8);
	/* still found, and re-adding an existing one is no new flow */
	assert_non_null(find(f, &a, 0x107));
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x107, 3, false), 0);
	gw_mbox_flows_free(f);
}

/* Per-worker counters: summed by gw_mbox_flow_stats; a deleted flow's slot
 * waits for the readers' quiescent state, and its counters start at 0 when
 * it is reused. */
static void
test_counters_delete_rcu(void **state)
{
	struct gw_mbox_flows *f = table(1);
	struct gw_addr a = dst_of(6, 5);
	struct gw_mbox_flow_stats st;
	const struct gw_mbox_flow *fl;

	(void)state;
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x4242, 1, false), 0);
	fl = find(f, &a, 0x4242);
	assert_non_null(fl);
	gw_mbox_flow_count(gw_mbox_flows_wk(f, 0), fl->idx, 100, 5000);
	gw_mbox_flow_count(gw_mbox_flows_wk(f, 0), fl->idx, 60, 6000);
	gw_mbox_flow_count(gw_mbox_flows_wk(f, 1), fl->idx, 1000, 5500);
	assert_null(gw_mbox_flows_wk(f, WORKERS));
	assert_int_equal(gw_mbox_flow_stats(f, &a, 0x4242, &st), 0);
	assert_int_equal(st.packets, 3);
	assert_int_equal(st.bytes, 1160);
	assert_int_equal(st.last_seen_ns, 6000);
	assert_int_equal(gw_mbox_flow_stats(f, &a, 0x4243, &st), -ENOENT);

	/* a reader online holds the deleted flow: its slot stays taken */
	rte_rcu_qsbr_thread_online(rcu, READER);
	assert_int_equal(gw_mbox_flow_del(f, &a, 0x4242), 0);
	assert_int_equal(gw_mbox_flows_count(f), 0);
	assert_int_equal(gw_mbox_flows_pending(f), 1);
	assert_null(find(f, &a, 0x4242));
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x5000, 2, false), -ENOSPC);
	assert_int_equal(fl->key.spi, 0x4242);          /* the memory is still the old flow */
	assert_int_equal(gw_mbox_flows_reclaim(f), 1);
	rte_rcu_qsbr_quiescent(rcu, READER);
	rte_rcu_qsbr_thread_offline(rcu, READER);
	assert_int_equal(gw_mbox_flows_reclaim(f), 0);
	assert_int_equal(gw_mbox_flows_pending(f), 0);
	/* the slot again, counters from 0 */
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x5000, 2, false), 0);
	assert_int_equal(gw_mbox_flow_stats(f, &a, 0x5000, &st), 0);
	assert_int_equal(st.packets, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.last_seen_ns, 0);
	gw_mbox_flows_free(f);
}

static void
test_iterate(void **state)
{
	struct gw_mbox_flows *f = table(128);
	uint8_t seen[100] = { 0 };
	struct gw_mbox_flow fl;
	struct gw_mbox_flow_stats st;
	uint32_t cursor = 0;
	unsigned n = 0;

	(void)state;
	for (unsigned i = 0; i < 100; i++) {
		struct gw_addr a = dst_of(i % 2 ? 6 : 4, i);

		assert_int_equal(gw_mbox_flow_add(f, &a, 0x100 + i, 1000 + i, i % 3 == 0), 0);
	}
	{
		struct gw_addr a = dst_of(4, 10);
		const struct gw_mbox_flow *p = find(f, &a, 0x100 + 10);

		gw_mbox_flow_count(gw_mbox_flows_wk(f, 1), p->idx, 77, 9);
	}
	while (gw_mbox_flow_iterate(f, &cursor, &fl, &st) == 0) {
		unsigned i = fl.key.spi - 0x100;

		assert_true(i < 100);
		assert_int_equal(seen[i], 0);
		seen[i] = 1;
		assert_int_equal(fl.assoc, 1000 + i);
		assert_int_equal(fl.lab, i % 3 == 0);
		assert_int_equal(fl.key.family, i % 2 ? 6 : 4);
		assert_int_equal(st.packets, i == 10 ? 1 : 0);
		assert_int_equal(st.bytes, i == 10 ? 77 : 0);
		n++;
	}
	assert_int_equal(n, 100);
	assert_int_equal(gw_mbox_flow_iterate(f, &cursor, &fl, &st), -ENOENT);
	gw_mbox_flows_free(f);
}

static void
test_params(void **state)
{
	(void)state;
	assert_null(gw_mbox_flows_create("test_mbf_bad", 0, 1, rcu, SOCKET_ID_ANY));
	assert_null(gw_mbox_flows_create("test_mbf_bad", GW_MBOX_FLOWS_MAX + 1, 1, rcu,
					 SOCKET_ID_ANY));
	assert_null(gw_mbox_flows_create("test_mbf_bad", 8, 0, rcu, SOCKET_ID_ANY));
	assert_null(gw_mbox_flows_create("test_mbf_bad", 8, GW_WORKERS_MAX + 1, rcu,
					 SOCKET_ID_ANY));
	assert_null(gw_mbox_flows_create("test_mbf_bad", 8, 1, NULL, SOCKET_ID_ANY));
	assert_null(gw_mbox_flows_create(NULL, 8, 1, rcu, SOCKET_ID_ANY));
	gw_mbox_flows_free(NULL);
}

/* The locators (gw_mbox_flow_locator_known): a destination is known while
 * some flow goes to it, whatever its SPI; its key slot comes back after the
 * grace period, and the locator can be added again before that. */
static void
test_locators(void **state)
{
	struct gw_mbox_flows *f = table(8);
	struct gw_addr a = dst_of(4, 7), b = dst_of(6, 7), c = dst_of(4, 8);

	(void)state;
	assert_false(gw_mbox_flow_locator_known(f, 4, a.addr));
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x1001, 1, false), 0);
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x1002, 2, false), 0);
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x1002, 3, false), 0);   /* given away: one flow */
	assert_int_equal(gw_mbox_flow_add(f, &b, 0x1001, 1, false), 0);
	assert_true(gw_mbox_flow_locator_known(f, 4, a.addr));
	assert_true(gw_mbox_flow_locator_known(f, 6, b.addr));
	assert_false(gw_mbox_flow_locator_known(f, 4, c.addr));
	assert_false(gw_mbox_flow_locator_known(f, 6, a.addr));      /* another family */
	assert_false(gw_mbox_flow_locator_known(f, 5, a.addr));
	assert_false(gw_mbox_flow_locator_known(NULL, 4, a.addr));
	/* a reader online: the deleted ones wait for it */
	rte_rcu_qsbr_thread_online(rcu, READER);
	assert_int_equal(gw_mbox_flow_del(f, &a, 0x1001), 0);
	assert_true(gw_mbox_flow_locator_known(f, 4, a.addr));       /* 0x1002 still goes there */
	assert_int_equal(gw_mbox_flow_del(f, &a, 0x1002), 0);
	assert_false(gw_mbox_flow_locator_known(f, 4, a.addr));
	assert_int_equal(gw_mbox_flow_del(f, &a, 0x1002), -ENOENT);
	assert_false(gw_mbox_flow_locator_known(f, 4, a.addr));
	assert_true(gw_mbox_flow_locator_known(f, 6, b.addr));
	/* back before the grace period ended, and after */
	assert_int_equal(gw_mbox_flow_add(f, &a, 0x2001, 4, false), 0);
	assert_true(gw_mbox_flow_locator_known(f, 4, a.addr));
	assert_int_equal(gw_mbox_flows_reclaim(f), 2);               /* flows, not locators */
	rte_rcu_qsbr_quiescent(rcu, READER);
	rte_rcu_qsbr_thread_offline(rcu, READER);
	assert_int_equal(gw_mbox_flows_reclaim(f), 0);
	assert_true(gw_mbox_flow_locator_known(f, 4, a.addr));
	/* many times round: no slot is lost */
	for (unsigned i = 0; i < 100; i++) {
		assert_int_equal(gw_mbox_flow_del(f, &a, 0x2001), 0);
		assert_false(gw_mbox_flow_locator_known(f, 4, a.addr));
		assert_int_equal(gw_mbox_flow_add(f, &a, 0x2001, 4, false), 0);
		assert_true(gw_mbox_flow_locator_known(f, 4, a.addr));
		gw_mbox_flows_reclaim(f);
	}
	gw_mbox_flows_free(f);
}

/* The memory per flow of a 100,000-flow table of two workers, printed for the
 * benchmark: at least the key, the flow, the two counters and the free list. */
static void
test_bytes_per_flow(void **state)
{
	struct gw_mbox_flows *f = table(100000);
	size_t b = gw_mbox_flows_bytes_per_flow(f);

	(void)state;
	printf("gw_mbox_flow: 100000 flows, %u workers: %zu bytes per flow\n", WORKERS, b);
	assert_true(b >= sizeof(struct gw_mbox_flow_key) + sizeof(struct gw_mbox_flow) +
		    WORKERS * sizeof(struct gw_mbox_flow_wk) + 4);
	assert_true(b < 1024);
	assert_int_equal(gw_mbox_flows_capacity(f), 100000);
	gw_mbox_flows_free(f);
}

static int
setup(void **state)
{
	char *argv[] = { "test_mbox_flow", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_mbox_flow", "-l", "0",
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
		cmocka_unit_test(test_add_lookup),
		cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_counters_delete_rcu),
		cmocka_unit_test(test_iterate),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_locators),
		cmocka_unit_test(test_bytes_per_flow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
