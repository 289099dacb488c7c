/* SPDX-License-Identifier: BSD-3-Clause
 * A port's address changes while hipgw runs (RFC 8046 mobility: our locator
 * moves): checks, the new address and routes, the announcements, the
 * subscribers, and the old address's hold and withdrawal (gw_ctrl.h,
 * gw_ctrl_set_address). Control lcore only.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_rcu_qsbr.h>

#include "ctrl_internal.h"
#include "hipgw_wire.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)
#define ADDR_STR 48      /* gw_addr_str buffer, bytes */

static int
fam_idx(uint8_t family)
{
	return family == 4 ? 0 : 1;
}

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void
ctrl_addr_init(struct gw_ctrl *c)
{
	const struct gw_config *cfg = c->ctx->cfg;

	for (unsigned i = 0; cfg != NULL && i < cfg->n_ports && i < GW_PORTS_MAX; i++) {
		c->port_gw[i][0] = cfg->ports[i].gateway4;
		c->port_gw[i][1] = cfg->ports[i].gateway6;
	}
}

int
gw_ctrl_port_index(const struct gw_ctx *ctx, const char *name)
{
	for (unsigned i = 0; i < ctx->n_ports; i++)
		if (strcmp(ctx->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
gw_ctrl_port_name(const struct gw_ctrl *c, unsigned port)
{
	return port < c->ctx->n_ports ? c->ctx->ports[port].name : "?";
}

int
gw_ctrl_source_addr(const struct gw_ctrl *c, unsigned port, uint8_t family, struct gw_prefix *out)
{
	int i = port < c->ctx->n_ports ? gw_paddr_source(&c->ctx->ports[port].addrs, family) : -1;

	if (i < 0)
		return -1;
	*out = c->ctx->ports[port].addrs.a[i];
	return 0;
}

int
gw_ctrl_add_address_hook(struct gw_ctrl *c, const struct gw_ctrl_addr_hook *h)
{
	if (c->n_addr_hooks == GW_CTRL_ADDR_HOOKS_MAX)
		return -1;
	c->addr_hooks[c->n_addr_hooks++] = *h;
	return 0;
}

/* An address no port may take: unspecified, loopback, multicast, IPv4
 * limited broadcast / "this network" (RFC 1122 3.2.1.3), IPv6 ::1 / ff00::/8
 * (RFC 4291 2.5.2, 2.5.3, 2.7). */
static const char *
addr_unusable(const struct gw_addr *a)
{
	static const uint8_t zero[16];

	if (a->family == 4) {
		if (a->addr[0] == 0)
			return "in 0.0.0.0/8";
		if (a->addr[0] == 127)
			return "a loopback address";
		if (a->addr[0] >= 224)
			return "multicast or reserved";
		return NULL;
	}
	if (memcmp(a->addr, zero, 16) == 0)
		return "the unspecified address";
	if (memcmp(a->addr, zero, 15) == 0 && a->addr[15] == 1)
		return "the loopback address";
	if (a->addr[0] == 0xff)
		return "multicast";
	return NULL;
}

/* addr/len is unusable as a host address of its network (IPv4 /30 and
 * shorter: the network and broadcast addresses). */
static bool
v4_net_or_bcast(const struct gw_prefix *p, const struct gw_addr *a)
{
	uint32_t x, host;

	if (p->len > 30)
		return false;
	memcpy(&x, a->addr, 4);
	host = rte_be_to_cpu_32(x) & ((1u << (32 - p->len)) - 1);
	return host == 0 || host == (1u << (32 - p->len)) - 1;
}

/* The addr's conflicts with the other ports and with the peers. */
static int
check_others(const struct gw_ctx *ctx, unsigned port, const struct gw_prefix *addr,
	     char *err, size_t errlen)
{
	const struct gw_config *cfg = ctx->cfg;
	char b[ADDR_STR], ob[ADDR_STR];

	gw_addr_str(&addr->a, b, sizeof(b));
	for (unsigned i = 0; i < ctx->n_ports; i++) {
		const struct gw_port_addrs *s = &ctx->ports[i].addrs;

		for (unsigned k = 0; k < s->n; k++) {
			struct gw_prefix o;

			if (!gw_paddr_read(s, k, &o) || o.a.family != addr->a.family)
				continue;
			if (i != port && gw_addr_eq(&o.a, &addr->a))
				return fail(err, errlen, "%s is port %s's address", b,
					    ctx->ports[i].name);
			if (i != port && gw_prefix_overlap(&o, addr))
				return fail(err, errlen, "%s/%u overlaps port %s's %s/%u", b, addr->len,
					    ctx->ports[i].name, gw_addr_str(&o.a, ob, sizeof(ob)),
					    o.len);
		}
	}
	for (unsigned i = 0; cfg != NULL && i < cfg->n_peers; i++)
		for (unsigned k = 0; k < cfg->peers[i].n_locators; k++)
			if (gw_addr_eq(&cfg->peers[i].locators[k], &addr->a))
				return fail(err, errlen, "%s is peer %s's locator", b,
					    cfg->peers[i].name);
	for (unsigned i = 0; cfg != NULL && i < cfg->n_sas; i++)
		if (gw_addr_eq(&cfg->sas[i].remote, &addr->a))
			return fail(err, errlen, "%s is sa %s's remote", b, cfg->sas[i].name);
	return 0;
}

/* Every check of gw_ctrl_set_address before anything changes. */
static int
check_request(struct gw_ctrl *c, unsigned port, const struct gw_prefix *addr,
	      const struct gw_addr *gw, char *err, size_t errlen)
{
	const struct gw_ctx *ctx = c->ctx;
	const struct gw_port *p;
	const char *why;
	char b[ADDR_STR], g[ADDR_STR];
	unsigned free_slots = 0;

	if (port >= ctx->n_ports)
		return fail(err, errlen, "no port %u", port);
	p = &ctx->ports[port];
	if (ctx->cfg != NULL && ctx->cfg->mode == GW_MODE_MIDDLEBOX)
		return fail(err, errlen, "port %s: a middlebox has no addresses", p->name);
	if (p->role != GW_ROLE_OUTER)
		return fail(err, errlen, "port %s is an inner port: only an outer port's address "
			    "changes", p->name);
	if (ctx->port_bridge[port] != 0)
		return fail(err, errlen, "port %s is an l2 port: it has no address", p->name);
	if (addr->a.family != 4 && addr->a.family != 6)
		return fail(err, errlen, "not an IPv4 or IPv6 address");
	gw_addr_str(&addr->a, b, sizeof(b));
	if (addr->len == 0 || addr->len > (addr->a.family == 4 ? 32 : 128))
		return fail(err, errlen, "%s/%u: the prefix length must be 1..%u", b, addr->len,
			    addr->a.family == 4 ? 32 : 128);
	why = addr_unusable(&addr->a);
	if (why != NULL)
		return fail(err, errlen, "%s is %s", b, why);
	if (addr->a.family == 4 && v4_net_or_bcast(addr, &addr->a))
		return fail(err, errlen, "%s/%u is the network's or broadcast address", b, addr->len);
	if (addr->a.family == 6 && p->mtu < GW_IPV6_MIN_MTU)
		return fail(err, errlen, "port %s: MTU %u is below IPv6's %u", p->name, p->mtu,
			    GW_IPV6_MIN_MTU);
	if (gw != NULL && gw->family != 0) {
		gw_addr_str(gw, g, sizeof(g));
		if (gw->family != addr->a.family)
			return fail(err, errlen, "gateway %s is not of the family of %s/%u", g, b,
				    addr->len);
		if (!gw_prefix_contains(addr, gw))
			return fail(err, errlen, "gateway %s is off-link: not in %s/%u", g, b,
				    addr->len);
		if (gw_addr_eq(gw, &addr->a))
			return fail(err, errlen, "gateway %s is the address itself", g);
		if (addr->a.family == 4 && v4_net_or_bcast(addr, gw))
			return fail(err, errlen, "gateway %s is the network's or broadcast address",
				    g);
	}
	if (check_others(ctx, port, addr, err, errlen) != 0)
		return -1;
	for (unsigned i = 0; i < GW_PORT_ADDRS_MAX; i++)
		free_slots += i >= p->addrs.n || p->addrs.state[i] == GW_PADDR_FREE;
	if (free_slots == 0)
		return fail(err, errlen, "port %s: no free address slot (an old address is still "
			    "being withdrawn, %u ms after a change): try again", p->name,
			    GW_ADDR_HOLD_MS);
	if (ctx->routes.n_nh + 2 > GW_ROUTE_MAX_NH || ctx->routes.n_rules + 3 > GW_ROUTE_MAX_RULES)
		return fail(err, errlen, "route table full (%u next hops, %u routes)",
			    ctx->routes.n_nh, ctx->routes.n_rules);
	return 0;
}

/* Wait for a grace period of the route readers (after route deletes). With
 * --slow-path the control lcore is a reader too: it lets its frames go
 * first, as gw_sadb_set_out does. */
static void
route_readers_wait(struct gw_ctrl *c)
{
	struct gw_sadb *db = &c->ctx->sadb;

	if (db->rcu == NULL)
		return;
	if (db->ctrl_release != NULL)
		db->ctrl_release(db->ctrl_release_arg);
	rte_rcu_qsbr_synchronize(db->rcu, RTE_QSBR_THRID_INVALID);
}

/* True when some port's live or deprecated address but slot `skip` of port
 * `skip_port` lies in network net. */
static bool
network_in_use(const struct gw_ctx *ctx, const struct gw_prefix *net, unsigned skip_port,
	       int skip)
{
	for (unsigned i = 0; i < ctx->n_ports; i++) {
		const struct gw_port_addrs *s = &ctx->ports[i].addrs;

		for (unsigned k = 0; k < s->n; k++) {
			struct gw_prefix o, on;

			if ((i == skip_port && (int)k == skip) || !gw_paddr_read(s, k, &o))
				continue;
			gw_prefix_network(&on, &o);
			if (on.a.family == net->a.family && on.len == net->len &&
			    gw_addr_eq(&on.a, &net->a))
				return true;
		}
	}
	return false;
}

/* The routes of the change: new network's connected route, the gateway's
 * routes, the old network's connected route removed. Returns 0 or -1. */
static int
set_routes(struct gw_ctrl *c, unsigned port, const struct gw_prefix *old, int old_slot,
	   const struct gw_prefix *addr, const struct gw_addr *gw)
{
	struct gw_routes *rt = &c->ctx->routes;
	struct gw_addr *cur_gw = &c->port_gw[port][fam_idx(addr->a.family)];
	struct gw_prefix net, old_net;

	gw_prefix_network(&net, addr);
	if (gw_routes_add(rt, &net, (uint16_t)port, NULL) != 0)
		return -1;
	if (gw != NULL && gw->family != 0 && !gw_addr_eq(gw, cur_gw)) {
		struct gw_prefix def = { .a.family = addr->a.family };

		if (cur_gw->family != 0 && gw_routes_move_via(rt, (uint16_t)port, cur_gw, gw) < 0)
			return -1;
		if (gw_routes_add(rt, &def, (uint16_t)port, gw) != 0)
			return -1;
		*cur_gw = *gw;
	}
	if (old == NULL)
		return 0;
	gw_prefix_network(&old_net, old);
	if (old_net.len != net.len || !gw_addr_eq(&old_net.a, &net.a)) {
		const struct gw_nexthop *nh = gw_routes_find(rt, &old_net);

		if (nh != NULL && nh->port == port && nh->on_link &&
		    !network_in_use(c->ctx, &old_net, port, old_slot)) {
			gw_routes_del(rt, &old_net);
			route_readers_wait(c);
		}
	}
	return 0;
}

/* Without a new gateway the port's routes keep the old one: say so when it
 * is no longer on-link (its ARP / ND requests will go unanswered). */
static void
off_link_warn(struct gw_ctrl *c, unsigned port, const struct gw_prefix *addr)
{
	const struct gw_addr *g = &c->port_gw[port][fam_idx(addr->a.family)];
	char b[ADDR_STR];

	if (g->family != 0 && !gw_prefix_contains(addr, g))
		LOG(WARNING, "port %s: gateway %s is off-link from the new address: its routes "
		    "stay until a gateway is given\n", c->ctx->ports[port].name,
		    gw_addr_str(g, b, sizeof(b)));
}

int
gw_ctrl_set_address(struct gw_ctrl *c, unsigned port, const struct gw_prefix *addr,
		    const struct gw_addr *gw, char *err, size_t errlen)
{
	struct gw_port_addrs *s;
	struct gw_prefix old = { 0 }, cur = *addr;
	char ob[ADDR_STR], nb[ADDR_STR], gb[ADDR_STR];
	int old_slot, slot;

	if (check_request(c, port, addr, gw, err, errlen) != 0)
		return -1;
	s = &c->ctx->ports[port].addrs;
	old_slot = gw_paddr_source(s, addr->a.family);
	if (old_slot >= 0)
		old = s->a[old_slot];
	slot = gw_paddr_find(s, &addr->a);
	if (slot >= 0 && slot != old_slot && s->state[slot] == GW_PADDR_DEPRECATED)
		return fail(err, errlen, "%s is port %s's old address, withdrawn %u ms after the "
			    "change: try again then", gw_addr_str(&addr->a, nb, sizeof(nb)),
			    c->ctx->ports[port].name, GW_ADDR_HOLD_MS);
	if (slot >= 0 && slot != old_slot)
		return fail(err, errlen, "%s is already an address of port %s",
			    gw_addr_str(&addr->a, nb, sizeof(nb)), c->ctx->ports[port].name);
	if (slot >= 0) {
		/* the same address: only its routes may change */
		const struct gw_addr *cg = &c->port_gw[port][fam_idx(addr->a.family)];

		if (old.len == addr->len && (gw == NULL || gw->family == 0 || gw_addr_eq(gw, cg))) {
			snprintf(err, errlen, "unchanged");
			return 0;
		}
		if (old.len != addr->len)
			return fail(err, errlen, "%s: the same address with another length: set "
				    "another address first", gw_addr_str(&addr->a, nb, sizeof(nb)));
		if (set_routes(c, port, NULL, -1, addr, gw) != 0)
			return fail(err, errlen, "route table full");
		ctrl_neigh_solicit(c, port, gw);
		snprintf(err, errlen, "gateway %s", gw_addr_str(gw, gb, sizeof(gb)));
		return 0;
	}
	slot = gw_paddr_add(s, addr);
	if (slot < 0)
		return fail(err, errlen, "port %s: no free address slot", c->ctx->ports[port].name);
	gw_paddr_prefer(s, (unsigned)slot);
	if (old_slot >= 0)
		gw_paddr_deprecate(s, (unsigned)old_slot,
				   rte_rdtsc() + rte_get_tsc_hz() / 1000 * GW_ADDR_HOLD_MS);
	if (set_routes(c, port, old_slot >= 0 ? &old : NULL, old_slot, addr, gw) != 0)
		LOG(ERR, "port %s: route table full: routes of the new address incomplete\n",
		    c->ctx->ports[port].name);
	ctrl_addr_announce(c, port, &addr->a);
	if (gw != NULL && gw->family != 0)
		ctrl_neigh_solicit(c, port, gw);
	else
		off_link_warn(c, port, addr);
	gw_addr_str(&addr->a, nb, sizeof(nb));
	if (old_slot >= 0)
		gw_addr_str(&old.a, ob, sizeof(ob));
	else
		snprintf(ob, sizeof(ob), "none");
	snprintf(err, errlen, "%s/%u, was %s%s%s", nb, addr->len, ob,
		 gw != NULL && gw->family ? ", gateway " : "",
		 gw != NULL && gw->family ? gw_addr_str(gw, gb, sizeof(gb)) : "");
	LOG(NOTICE, "port %s: address %s%s\n", c->ctx->ports[port].name, err,
	    old_slot >= 0 ? " (the old one is still taken for " RTE_STR(GW_ADDR_HOLD_MS) " ms)" : "");
	for (unsigned i = 0; i < c->n_addr_hooks; i++) {
		struct gw_prefix o = old;

		cur = *addr;
		c->addr_hooks[i].on_address(c->addr_hooks[i].ctx, port, old_slot >= 0 ? &o : NULL,
					    &cur);
	}
	return 0;
}

void
ctrl_addr_tick(struct gw_ctrl *c)
{
	struct gw_ctx *ctx = c->ctx;
	uint64_t now = rte_rdtsc();

	if (ctx->sadb.rcu == NULL)      /* middlebox mode: no address changes */
		return;
	for (unsigned i = 0; i < ctx->n_ports; i++) {
		struct gw_port_addrs *s = &ctx->ports[i].addrs;

		for (unsigned k = 0; k < s->n; k++) {
			if (s->state[k] == GW_PADDR_DEPRECATED && now >= s->until[k]) {
				char b[ADDR_STR];

				LOG(INFO, "port %s: old address %s withdrawn\n", ctx->ports[i].name,
				    gw_addr_str(&s->a[k].a, b, sizeof(b)));
				gw_paddr_withdraw(s, k, rte_rcu_qsbr_start(ctx->sadb.rcu));
			} else if (s->state[k] == GW_PADDR_DEAD &&
				   rte_rcu_qsbr_check(ctx->sadb.rcu, s->token[k], false) == 1) {
				gw_paddr_free(s, k);
			}
		}
	}
}
