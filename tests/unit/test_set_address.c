/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of gw_ctrl_set_address (lib/ctrl/gw_addr_set.c) on a gateway
 * context built by hand (EAL --no-huge: a real mbuf pool, ring, rte_lpm and
 * rte_rcu_qsbr; no ports): every refusal leaves addresses, routes, frames and
 * subscribers untouched; a change publishes the new address, makes it the
 * source, moves the routes, sends the gratuitous ARP and the request for the
 * gateway, calls each on_address hook once with the old and the new address,
 * keeps the old one until its hold is over and frees its slot after the
 * grace period; the same request again changes nothing; and the request slot
 * (gw_ctrl_request from another thread, answered by gw_ctrl_request_poll; a
 * request not taken in time withdrawn and never run).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "ctrl_internal.h"
#include "gw_meta.h"
#include "unit_eal.h"

static struct gw_config cfg;
static struct gw_ctx ctx;
static struct gw_ctrl *ctrl;

struct hook_call {
	unsigned n, port;
	bool had_old;
	struct gw_prefix old, new_addr;
};

static void
on_address(void *arg, unsigned port, const struct gw_prefix *old, const struct gw_prefix *new_addr)
{
	struct hook_call *h = arg;

	h->n++;
	h->port = port;
	h->had_old = old != NULL;
	if (old != NULL)
		h->old = *old;
	h->new_addr = *new_addr;
}

static struct gw_prefix
pfx(const char *s)
{
	struct gw_prefix p;

	assert_int_equal(gw_prefix_parse(s, &p), 0);
	return p;
}

static struct gw_addr
addr(const char *s)
{
	struct gw_addr a;

	assert_int_equal(gw_addr_parse(s, &a), 0);
	return a;
}

static const struct gw_nexthop *
route(const char *ip)
{
	struct gw_addr a = addr(ip);
	uint32_t d4;

	memcpy(&d4, a.addr, 4);
	return gw_route4(&ctx.routes, d4);
}

static bool
owns(const char *ip)
{
	struct gw_addr a = addr(ip);

	return gw_port_owns(&ctx.ports[1], a.family, a.addr);
}

/* The ARP frames the control lcore queued (worker 0's ring): op, sender and
 * target IP of each, n at most max. Frees them. */
static unsigned
arp_frames(uint16_t *op, uint32_t *sip, uint32_t *tip, unsigned max)
{
	struct rte_mbuf *m;
	unsigned n = 0;

	while (rte_ring_sc_dequeue(ctx.from_ctrl[0], (void **)&m) == 0) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);

		if (n < max && eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP)) {
			op[n] = rte_be_to_cpu_16(arp->arp_opcode);
			sip[n] = arp->arp_data.arp_sip;
			tip[n] = arp->arp_data.arp_tip;
			n++;
		}
		rte_pktmbuf_free(m);
	}
	return n;
}

static uint32_t
ip4(const char *s)
{
	struct gw_addr a = addr(s);
	uint32_t v;

	memcpy(&v, a.addr, 4);
	return v;
}

static void
test_refused(void **state)
{
	static const struct {
		unsigned port;
		const char *addr, *gw, *why;
	} bad[] = {
		{ 0, "10.9.0.1/24", NULL, "is an inner port" },
		{ 7, "198.51.100.7/24", NULL, "no port 7" },
		{ 1, "198.51.100.7/24", "2001:db8::1", "is not of the family of" },
		{ 1, "198.51.100.7/24", "203.0.113.1", "is off-link" },
		{ 1, "198.51.100.7/24", "198.51.100.7", "is the address itself" },
		{ 1, "198.51.100.0/24", NULL, "network's or broadcast address" },
		{ 1, "198.51.100.255/24", NULL, "network's or broadcast address" },
		{ 1, "198.51.100.7/24", "198.51.100.255", "network's or broadcast" },
		{ 1, "127.0.0.5/8", NULL, "loopback" },
		{ 1, "0.1.2.3/8", NULL, "0.0.0.0/8" },
		{ 1, "239.1.1.1/24", NULL, "multicast" },
		{ 1, "ff02::5/64", NULL, "multicast" },
		{ 1, "::1/128", NULL, "loopback" },
		{ 1, "192.0.2.2/24", NULL, "is sa to-peer's remote" },
		{ 1, "203.0.113.3/24", NULL, "is peer gwB's locator" },
		{ 1, "10.1.0.1/24", NULL, "is port lan's address" },
		{ 1, "10.1.7.1/16", NULL, "overlaps port lan's" },
	};
	struct hook_call h = { 0 };
	struct gw_ctrl_addr_hook hook = { .ctx = &h, .on_address = on_address };
	struct gw_port_addrs before = ctx.ports[1].addrs;
	struct gw_routes *rt = rte_malloc(NULL, sizeof(*rt), 0);
	uint16_t op[4];
	uint32_t sip[4], tip[4];
	char err[GW_CTRL_MSG_MAX];

	(void)state;
	assert_non_null(rt);
	*rt = ctx.routes;
	assert_int_equal(gw_ctrl_add_address_hook(ctrl, &hook), 0);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gw_prefix p = pfx(bad[i].addr);
		struct gw_addr g = bad[i].gw ? addr(bad[i].gw) : (struct gw_addr){ 0 };

		err[0] = '\0';
		if (gw_ctrl_set_address(ctrl, bad[i].port, &p, &g, err, sizeof(err)) != -1)
			fail_msg("%s accepted: %s", bad[i].addr, err);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("%s: '%s' lacks '%s'", bad[i].addr, err, bad[i].why);
		assert_null(strchr(err, '\n'));
	}
	/* nothing changed: addresses, routes, frames, subscribers */
	assert_memory_equal(&before, &ctx.ports[1].addrs, sizeof(before));
	assert_memory_equal(rt, &ctx.routes, sizeof(*rt));
	assert_int_equal(arp_frames(op, sip, tip, 4), 0);
	assert_int_equal(h.n, 0);
	ctrl->n_addr_hooks = 0;
	rte_free(rt);
}

static void
test_change_and_hold(void **state)
{
	struct hook_call h = { 0 }, h2 = { 0 };
	struct gw_ctrl_addr_hook hook = { .ctx = &h, .on_address = on_address };
	struct gw_ctrl_addr_hook hook2 = { .ctx = &h2, .on_address = on_address };
	struct gw_prefix p = pfx("198.51.100.7/24"), src;
	struct gw_addr g = addr("198.51.100.1");
	const struct gw_nexthop *nh;
	uint16_t op[4];
	uint32_t sip[4], tip[4];
	char err[GW_CTRL_MSG_MAX];
	int old;

	(void)state;
	assert_int_equal(gw_ctrl_add_address_hook(ctrl, &hook), 0);
	assert_int_equal(gw_ctrl_add_address_hook(ctrl, &hook2), 0);
	assert_int_equal(gw_ctrl_set_address(ctrl, 1, &p, &g, err, sizeof(err)), 0);
	assert_string_equal(err, "198.51.100.7/24, was 192.0.2.1, gateway 198.51.100.1");
	/* each subscriber once, with the old and the new address */
	assert_int_equal(h.n, 1);
	assert_int_equal(h2.n, 1);
	assert_int_equal(h.port, 1);
	assert_true(h.had_old);
	assert_memory_equal(&h.old, &ctx.ports[1].addrs.a[0], sizeof(h.old));
	assert_int_equal(h.old.len, 24);
	assert_int_equal(h.new_addr.len, 24);
	assert_memory_equal(h.new_addr.a.addr, p.a.addr, 4);
	/* both ours; the new one is the source */
	assert_true(owns("198.51.100.7"));
	assert_true(owns("192.0.2.1"));
	assert_int_equal(gw_ctrl_source_addr(ctrl, 1, 4, &src), 0);
	assert_memory_equal(src.a.addr, p.a.addr, 4);
	assert_int_equal(gw_ctrl_source_addr(ctrl, 1, 6, &src), -1);
	/* routes: the new network on-link, the old one gone (default), via the new gateway */
	nh = route("198.51.100.9");
	assert_non_null(nh);
	assert_true(nh->on_link);
	assert_int_equal(nh->port, 1);
	nh = route("192.0.2.9");
	assert_non_null(nh);
	assert_false(nh->on_link);
	assert_memory_equal(nh->via.addr, g.addr, 4);
	assert_memory_equal(route("8.8.8.8")->via.addr, g.addr, 4);
	assert_memory_equal(route("10.77.0.1")->via.addr, g.addr, 4);    /* static route moved */
	assert_true(route("10.1.0.5")->on_link);
	assert_int_equal(route("10.1.0.5")->port, 0);
	/* the gratuitous ARP, then the request for the gateway from the new address */
	assert_int_equal(arp_frames(op, sip, tip, 4), 2);
	assert_int_equal(op[0], RTE_ARP_OP_REQUEST);
	assert_int_equal(sip[0], ip4("198.51.100.7"));
	assert_int_equal(tip[0], ip4("198.51.100.7"));
	assert_int_equal(op[1], RTE_ARP_OP_REQUEST);
	assert_int_equal(sip[1], ip4("198.51.100.7"));
	assert_int_equal(tip[1], ip4("198.51.100.1"));

	/* the same again: nothing */
	assert_int_equal(gw_ctrl_set_address(ctrl, 1, &p, &g, err, sizeof(err)), 0);
	assert_string_equal(err, "unchanged");
	assert_int_equal(h.n, 1);
	assert_int_equal(arp_frames(op, sip, tip, 4), 0);
	/* back to the old one while it is held: refused */
	p = pfx("192.0.2.1/24");
	assert_int_equal(gw_ctrl_set_address(ctrl, 1, &p, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "old address"));

	/* the hold not over: kept; over: withdrawn, then freed after the grace period */
	old = gw_paddr_find(&ctx.ports[1].addrs, &p.a);
	assert_int_equal(old, 0);
	ctrl_addr_tick(ctrl);
	assert_true(owns("192.0.2.1"));
	ctx.ports[1].addrs.until[old] = 0;
	ctrl_addr_tick(ctrl);
	assert_false(owns("192.0.2.1"));
	assert_true(owns("198.51.100.7"));
	assert_int_equal(ctx.ports[1].addrs.state[old], GW_PADDR_DEAD);
	ctrl_addr_tick(ctrl);       /* the one reader is offline: the grace period is over */
	assert_int_equal(ctx.ports[1].addrs.state[old], GW_PADDR_FREE);
	ctrl->n_addr_hooks = 0;
}

struct req_thread {
	struct gw_ctrl_request r;
	int rc;
	uint32_t timeout_ms;
};

static void *
requester(void *arg)
{
	struct req_thread *t = arg;

	t->rc = gw_ctrl_request(ctrl, &t->r, t->timeout_ms);
	return NULL;
}

static void
test_request_slot(void **state)
{
	struct req_thread t = { .timeout_ms = 60000 };
	pthread_t th;
	unsigned ran = 0;

	(void)state;
	t.r.kind = GW_CTRL_REQ_SET_ADDRESS;
	snprintf(t.r.port, sizeof(t.r.port), "nosuch");
	t.r.addr = pfx("203.0.113.9/24");
	assert_int_equal(pthread_create(&th, NULL, requester, &t), 0);
	while (ran == 0)
		ran = gw_ctrl_request_poll(ctrl);      /* the control lcore's part */
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.rc, 0);
	assert_int_equal(t.r.rc, -1);
	assert_string_equal(t.r.msg, "unknown port nosuch");
	/* nobody polls: withdrawn after its timeout, and never runs later */
	t.timeout_ms = 5;
	snprintf(t.r.port, sizeof(t.r.port), "wan");
	assert_int_equal(gw_ctrl_request(ctrl, &t.r, t.timeout_ms), -1);
	assert_int_equal(gw_ctrl_request_poll(ctrl), 0);
	assert_false(owns("203.0.113.9"));
}

static int
setup(void **state)
{
	char *argv[] = { "test_set_address", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_set_address", "-l", "0",
			 "--log-level", "error", NULL };
	struct gw_conf_port *lan = &cfg.ports[0], *wan = &cfg.ports[1];
	struct gw_prefix net, def = { .a.family = 4 }, st = pfx("10.77.0.0/16");
	size_t sz;

	(void)state;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0 || gw_meta_register() != 0)
		return -1;
	snprintf(lan->name, sizeof(lan->name), "lan");
	lan->role = GW_ROLE_INNER;
	lan->addrs[0] = pfx("10.1.0.1/24");
	lan->n_addrs = 1;
	snprintf(wan->name, sizeof(wan->name), "wan");
	wan->role = GW_ROLE_OUTER;
	wan->addrs[0] = pfx("192.0.2.1/24");
	wan->n_addrs = 1;
	wan->gateway4 = addr("192.0.2.254");
	cfg.n_ports = 2;
	snprintf(cfg.sas[0].name, sizeof(cfg.sas[0].name), "to-peer");
	cfg.sas[0].remote = addr("192.0.2.2");
	cfg.n_sas = 1;
	snprintf(cfg.peers[0].name, sizeof(cfg.peers[0].name), "gwB");
	cfg.peers[0].locators[0] = addr("203.0.113.3");
	cfg.peers[0].n_locators = 1;
	cfg.n_peers = 1;
	ctx.cfg = &cfg;
	ctx.n_ports = 2;
	ctx.n_workers = 1;
	for (unsigned i = 0; i < 2; i++) {
		struct gw_port *p = &ctx.ports[i];

		snprintf(p->name, sizeof(p->name), "%s", cfg.ports[i].name);
		p->role = cfg.ports[i].role;
		p->mtu = 1500;
		p->ctrl_fd = -1;
		p->ctrl_txq = -1;
		gw_paddr_init(&p->addrs, cfg.ports[i].addrs, cfg.ports[i].n_addrs);
	}
	ctx.pool = rte_pktmbuf_pool_create("t_sa_pool", 256, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					   SOCKET_ID_ANY);
	ctx.from_ctrl[0] = rte_ring_create("t_sa_down", 64, SOCKET_ID_ANY,
					   RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ctx.pool == NULL || ctx.from_ctrl[0] == NULL ||
	    gw_routes_init(&ctx.routes, "t_sa_rt", SOCKET_ID_ANY) != 0)
		return -1;
	for (unsigned i = 0; i < 2; i++) {
		gw_prefix_network(&net, &cfg.ports[i].addrs[0]);
		if (gw_routes_add(&ctx.routes, &net, (uint16_t)i, NULL) != 0)
			return -1;
	}
	if (gw_routes_add(&ctx.routes, &def, 1, &wan->gateway4) != 0 ||
	    gw_routes_add(&ctx.routes, &st, 1, &wan->gateway4) != 0)
		return -1;
	/* the workers' RCU variable: one reader, registered and offline */
	sz = rte_rcu_qsbr_get_memsize(1);
	ctx.sadb.rcu = rte_zmalloc(NULL, sz, RTE_CACHE_LINE_SIZE);
	if (ctx.sadb.rcu == NULL || rte_rcu_qsbr_init(ctx.sadb.rcu, 1) != 0 ||
	    rte_rcu_qsbr_thread_register(ctx.sadb.rcu, 0) != 0)
		return -1;
	ctrl = gw_ctrl_create(&ctx);
	return ctrl == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	gw_ctrl_free(ctrl);
	gw_routes_free(&ctx.routes);
	rte_ring_free(ctx.from_ctrl[0]);
	rte_mempool_free(ctx.pool);
	rte_free(ctx.sadb.rcu);
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_change_and_hold),
		cmocka_unit_test(test_request_slot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
