/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of a port's changeable addresses (lib/tables/gw_portaddr.h):
 * slots published and withdrawn, the deprecated state (still ours, not the
 * source), a withdrawn slot reused only once freed (after the grace period),
 * the bound; the source address of a family; the text parsers of
 * lib/core (gw_addr_parse, gw_prefix_parse); and the routes' delete and move
 * through another gateway (lib/tables/gw_route.h, on a real rte_lpm /
 * rte_lpm6 with EAL --no-huge).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>

#include "gw_portaddr.h"
#include "gw_route.h"
#include "unit_eal.h"

static struct gw_prefix
pfx(const char *s)
{
	struct gw_prefix p;

	assert_int_equal(gw_prefix_parse(s, &p), 0);
	return p;
}

static bool
owns(const struct gw_port_addrs *s, const char *ip)
{
	struct gw_addr a;

	assert_int_equal(gw_addr_parse(ip, &a), 0);
	return gw_paddr_owns(s, a.family, a.addr);
}

static void
test_add_deprecate_withdraw(void **state)
{
	struct gw_prefix cfg[2] = { pfx("192.0.2.1/24"), pfx("2001:db8::1/64") };
	struct gw_prefix moved = pfx("198.51.100.7/24");
	struct gw_port_addrs s;
	int slot, old;

	(void)state;
	gw_paddr_init(&s, cfg, 2);
	assert_int_equal(gw_paddr_count(&s), 2);
	assert_true(owns(&s, "192.0.2.1"));
	assert_true(owns(&s, "2001:db8::1"));
	assert_false(owns(&s, "198.51.100.7"));
	old = gw_paddr_source(&s, 4);
	assert_int_equal(old, 0);

	slot = gw_paddr_add(&s, &moved);
	assert_int_equal(slot, 2);
	assert_int_equal(gw_paddr_count(&s), 3);
	assert_true(owns(&s, "198.51.100.7"));
	/* published but not preferred yet: the source is still the first live one */
	assert_int_equal(gw_paddr_source(&s, 4), 0);
	gw_paddr_prefer(&s, (unsigned)slot);
	assert_int_equal(gw_paddr_source(&s, 4), slot);
	assert_int_equal(gw_paddr_source(&s, 6), 1);        /* the other family untouched */

	/* deprecated: still ours, found, but never the source */
	gw_paddr_deprecate(&s, (unsigned)old, 1000);
	assert_true(owns(&s, "192.0.2.1"));
	assert_int_equal(gw_paddr_find(&s, &cfg[0].a), old);
	assert_int_equal(s.state[old], GW_PADDR_DEPRECATED);
	assert_int_equal(gw_paddr_source(&s, 4), slot);

	/* withdrawn: readers stop matching it at once; the slot is not free */
	gw_paddr_withdraw(&s, (unsigned)old, 42);
	assert_false(owns(&s, "192.0.2.1"));
	assert_int_equal(gw_paddr_find(&s, &cfg[0].a), -1);
	assert_int_equal(s.state[old], GW_PADDR_DEAD);
	assert_int_equal(s.token[old], 42);
	assert_true(owns(&s, "198.51.100.7"));
	assert_true(owns(&s, "2001:db8::1"));
}

static void
test_reuse_after_free(void **state)
{
	struct gw_prefix cfg[1] = { pfx("192.0.2.1/24") };
	struct gw_prefix a = pfx("203.0.113.5/24"), b = pfx("203.0.113.6/24");
	struct gw_prefix got;
	struct gw_port_addrs s;
	int slot;

	(void)state;
	gw_paddr_init(&s, cfg, 1);
	gw_paddr_withdraw(&s, 0, 7);
	/* a dead slot is never handed out: the next add takes slot 1 */
	assert_int_equal(gw_paddr_add(&s, &a), 1);
	assert_false(gw_paddr_read(&s, 0, &got));
	gw_paddr_free(&s, 0);
	assert_int_equal(s.state[0], GW_PADDR_FREE);
	/* freed: reused, the count stays (readers skip what lies beyond nothing) */
	slot = gw_paddr_add(&s, &b);
	assert_int_equal(slot, 0);
	assert_int_equal(gw_paddr_count(&s), 2);
	assert_true(gw_paddr_read(&s, 0, &got));
	assert_int_equal(got.a.family, 4);
	assert_int_equal(got.len, 24);
	assert_memory_equal(got.a.addr, b.a.addr, 4);
	/* the bound: GW_PORT_ADDRS_MAX slots, then -1 */
	for (unsigned i = 2; i < GW_PORT_ADDRS_MAX; i++) {
		struct gw_prefix c = a;

		c.a.addr[3] = (uint8_t)(10 + i);
		assert_int_equal(gw_paddr_add(&s, &c), (int)i);
	}
	assert_int_equal(gw_paddr_count(&s), GW_PORT_ADDRS_MAX);
	assert_int_equal(gw_paddr_add(&s, &a), -1);
	/* a deprecated source is replaced by the next live one of its family */
	gw_paddr_prefer(&s, 1);
	assert_int_equal(gw_paddr_source(&s, 4), 1);
	gw_paddr_deprecate(&s, 1, 5);
	assert_int_equal(gw_paddr_source(&s, 4), 0);
	assert_int_equal(gw_paddr_source(&s, 6), -1);
}

static void
test_parse(void **state)
{
	struct gw_prefix p;
	struct gw_addr a;
	static const char *bad[] = { "", "/24", "192.0.2.1", "192.0.2.1/", "192.0.2.1/33",
				     "192.0.2.1/2x", "192.0.2.1/0024", "192.0.2.256/24",
				     "2001:db8::1/129", "host/24", "192.0.2.1/24/1",
				     "2001:db8::1::2/64", "192.0.2.1/-1" };

	(void)state;
	assert_int_equal(gw_prefix_parse("198.51.100.7/24", &p), 0);
	assert_int_equal(p.a.family, 4);
	assert_int_equal(p.len, 24);
	assert_int_equal(p.a.addr[3], 7);                  /* host part kept */
	assert_int_equal(gw_prefix_parse("2001:db8::7/64", &p), 0);
	assert_int_equal(p.a.family, 6);
	assert_int_equal(p.len, 64);
	assert_int_equal(p.a.addr[15], 7);
	assert_int_equal(gw_prefix_parse("0.0.0.0/0", &p), 0);
	assert_int_equal(p.len, 0);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(gw_prefix_parse(bad[i], &p), -1);
		assert_int_equal(p.a.family, 0);
	}
	assert_int_equal(gw_prefix_parse(NULL, &p), -1);
	assert_int_equal(gw_addr_parse("198.51.100.1", &a), 0);
	assert_int_equal(a.family, 4);
	assert_int_equal(gw_addr_parse("fe80::1", &a), 0);
	assert_int_equal(a.family, 6);
	assert_int_equal(gw_addr_parse("198.51.100.1/24", &a), -1);
	assert_int_equal(gw_addr_parse("", &a), -1);
	assert_int_equal(a.family, 0);
}

static const struct gw_nexthop *
route(const struct gw_routes *rt, const char *ip)
{
	struct gw_addr a;
	uint32_t d4;

	assert_int_equal(gw_addr_parse(ip, &a), 0);
	memcpy(&d4, a.addr, 4);
	return a.family == 4 ? gw_route4(rt, d4) : gw_route6(rt, a.addr);
}

static void
test_routes_del_move(void **state)
{
	static struct gw_routes rt;   /* large: off the stack */
	struct gw_prefix net = pfx("192.0.2.0/24"), def4 = pfx("0.0.0.0/0"), def6 = pfx("::/0");
	struct gw_prefix net6 = pfx("2001:db8::/64"), st = pfx("10.9.0.0/16");
	struct gw_addr gw_old, gw_new, gw6;
	const struct gw_nexthop *nh;

	(void)state;
	assert_int_equal(gw_addr_parse("192.0.2.254", &gw_old), 0);
	assert_int_equal(gw_addr_parse("198.51.100.1", &gw_new), 0);
	assert_int_equal(gw_addr_parse("2001:db8::fe", &gw6), 0);
	assert_int_equal(gw_routes_init(&rt, "test_rt", SOCKET_ID_ANY), 0);
	assert_int_equal(gw_routes_add(&rt, &net, 1, NULL), 0);
	assert_int_equal(gw_routes_add(&rt, &def4, 1, &gw_old), 0);
	assert_int_equal(gw_routes_add(&rt, &st, 1, &gw_old), 0);
	assert_int_equal(gw_routes_add(&rt, &net6, 1, NULL), 0);
	assert_int_equal(gw_routes_add(&rt, &def6, 1, &gw6), 0);
	assert_int_equal(rt.n_rules, 5);
	nh = route(&rt, "8.8.8.8");
	assert_non_null(nh);
	assert_false(nh->on_link);
	assert_memory_equal(nh->via.addr, gw_old.addr, 4);

	/* the routes through the old gateway (default and static) move; others stay */
	assert_int_equal(gw_routes_move_via(&rt, 1, &gw_old, &gw_new), 2);
	assert_int_equal(gw_routes_move_via(&rt, 2, &gw_new, &gw_old), 0);   /* other port */
	assert_memory_equal(route(&rt, "8.8.8.8")->via.addr, gw_new.addr, 4);
	assert_memory_equal(route(&rt, "10.9.1.1")->via.addr, gw_new.addr, 4);
	assert_true(route(&rt, "192.0.2.9")->on_link);
	assert_int_equal(rt.n_rules, 5);                     /* moved in place */

	/* the connected route removed: its addresses take the default now */
	nh = gw_routes_find(&rt, &net);
	assert_non_null(nh);
	assert_true(nh->on_link);
	assert_int_equal(gw_routes_del(&rt, &net), 0);
	assert_null(gw_routes_find(&rt, &net));
	assert_int_equal(gw_routes_del(&rt, &net), -1);
	assert_false(route(&rt, "192.0.2.9")->on_link);
	/* a /0 goes as its two halves: nothing of the family is left routed */
	assert_int_equal(gw_routes_del(&rt, &def6), 0);
	assert_null(route(&rt, "2001:db9::1"));
	assert_true(route(&rt, "2001:db8::5")->on_link);
	assert_int_equal(gw_routes_del(&rt, &net6), 0);
	assert_null(route(&rt, "2001:db8::5"));
	assert_int_equal(rt.n_rules, 2);
	gw_routes_free(&rt);
}

static int
setup(void **state)
{
	char *argv[] = { "test_portaddr", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_portaddr", "-l", "0",
			 "--log-level", "error", NULL };

	(void)state;
	return rte_eal_init(RTE_DIM(argv) - 1, argv) < 0 ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_deprecate_withdraw),
		cmocka_unit_test(test_reuse_after_free),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_routes_del_move),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
