/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: [port NAME]: its list keys (address, neighbors, routes,
 * gateway), mac and tcp-mss-clamp, and the checks of a whole port section
 * (a role, mode l2 only inner, an address unless l2, dhcp only outer l3; middlebox mode's ports:
 * gw_conf_mbox.c).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"

/* `a` on one of the port's networks (or IPv6 link-local), and not the port's own. */
static int
check_on_link(struct loader *L, unsigned line, const char *what,
	      const struct gw_conf_port *p, const struct gw_addr *a)
{
	char s[INET6_ADDRSTRLEN];
	bool on = conf_is_v6_link_local(a);

	for (unsigned i = 0; i < p->n_addrs; i++) {
		if (conf_addr_eq(&p->addrs[i].a, a))
			return conf_fail(L, line, "%s: %s is an address of port %s itself", what,
					 conf_addr_str(a, s), p->name);
		if (gw_prefix_contains(&p->addrs[i], a))
			on = true;
	}
	if (!on)
		return conf_fail(L, line, "%s: %s is not on a network of port %s", what,
				 conf_addr_str(a, s), p->name);
	return 0;
}

/* Element n of address (ctx: the port): an interface address, not listed before. */
static int
address_item(struct loader *L, unsigned line, const char *what, char *item, unsigned n,
	     void *ctx)
{
	struct gw_conf_port *p = ctx;
	struct gw_prefix *a = &p->addrs[n];

	if (strcmp(item, GW_CONF_ADDRESS_DHCP) == 0)
		return conf_fail(L, line, "%s: dhcp stands alone (the lease gives the port its "
				 "one address)", what);
	if (conf_parse_prefix(L, line, what, item, a, true) != 0)
		return -1;
	for (unsigned j = 0; j < n; j++)
		if (conf_addr_eq(&p->addrs[j].a, &a->a))
			return conf_fail(L, line, "%s: '" ECHO "' is listed twice", what, item);
	return 0;
}

/* address = A/LEN, ...: interface addresses (host part kept), none twice;
 * or address = dhcp: none until a DHCP lease (RFC 2131) gives one. */
int
conf_port_address(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		  void *base)
{
	struct gw_conf_port *p = base;

	if (strcmp(v, GW_CONF_ADDRESS_DHCP) == 0) {
		p->dhcp = true;
		p->n_addrs = 0;
		return 0;
	}
	return conf_parse_list(L, line, k->name, v, (unsigned)k->hi, "addresses", &p->n_addrs,
			       address_item, p);
}

int
conf_port_mac(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_port *p = base;

	(void)k;
	if (conf_parse_unicast_mac(L, line, "mac", v, p->mac) != 0)
		return -1;
	p->has_mac = true;
	return 0;
}

/* Element n of neighbors (ctx: the port): "IP MAC", the IP not listed before. */
static int
neighbor_item(struct loader *L, unsigned line, const char *what, char *item, unsigned n,
	      void *ctx)
{
	struct gw_conf_port *p = ctx;
	struct gw_conf_neighbor *nb = &p->neigh[n];
	char *w[2];

	if (conf_split_words(item, w, 2) != 2)
		return conf_fail(L, line, "%s: expected 'IP MAC, IP MAC, ...'", what);
	if (conf_parse_unicast(L, line, what, w[0], &nb->ip) != 0 ||
	    conf_parse_unicast_mac(L, line, what, w[1], nb->mac) != 0)
		return -1;
	for (unsigned j = 0; j < n; j++)
		if (conf_addr_eq(&p->neigh[j].ip, &nb->ip))
			return conf_fail(L, line, "%s: " ECHO " is listed twice", what, w[0]);
	return 0;
}

/* neighbors = IP MAC, ...: static neighbours (on-link: checked by conf_port_finish). */
int
conf_port_neighbors(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		    void *base)
{
	struct gw_conf_port *p = base;

	return conf_parse_list(L, line, k->name, v, (unsigned)k->hi, "neighbours", &p->n_neigh,
			       neighbor_item, p);
}

/* Element n of routes (ctx: the port): "PREFIX via IP" of one family, the
 * prefix not listed before. */
static int
route_item(struct loader *L, unsigned line, const char *what, char *item, unsigned n, void *ctx)
{
	struct gw_conf_port *p = ctx;
	struct gw_conf_route *rt = &p->routes[n];
	char *w[3];

	if (conf_split_words(item, w, 3) != 3 || strcmp(w[1], "via") != 0)
		return conf_fail(L, line, "%s: expected 'PREFIX via IP, ...'", what);
	if (conf_parse_prefix(L, line, what, w[0], &rt->dst, false) != 0 ||
	    conf_parse_unicast(L, line, what, w[2], &rt->via) != 0)
		return -1;
	if (rt->dst.a.family != rt->via.family)
		return conf_fail(L, line, "%s: " ECHO " and next hop " ECHO " are of different "
				 "families", what, w[0], w[2]);
	for (unsigned j = 0; j < n; j++)
		if (p->routes[j].dst.len == rt->dst.len &&
		    conf_addr_eq(&p->routes[j].dst.a, &rt->dst.a))
			return conf_fail(L, line, "%s: " ECHO " is listed twice", what, w[0]);
	return 0;
}

/* routes = PREFIX via IP, ...: next hops on-link (checked by conf_port_finish). */
int
conf_port_routes(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		 void *base)
{
	struct gw_conf_port *p = base;

	return conf_parse_list(L, line, k->name, v, (unsigned)k->hi, "routes", &p->n_routes,
			       route_item, p);
}

/* gateway = IP[, IP]: at most one IPv4 and one IPv6 default next hop. */
int
conf_port_gateway(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_port *p = base;
	char *cur = L->tmp, *item;
	unsigned cnt = 0;
	int r;

	(void)k;
	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	while ((r = conf_list_next(&cur, &item)) != 0) {
		struct gw_addr a;

		if (r < 0)
			return conf_fail(L, line, "gateway: empty element in list");
		if (++cnt > 2)
			return conf_fail(L, line, "gateway: at most one IPv4 and one IPv6 address");
		if (conf_parse_unicast(L, line, "gateway", item, &a) != 0)
			return -1;
		struct gw_addr *g = a.family == 4 ? &p->gateway4 : &p->gateway6;
		if (g->family != 0)
			return conf_fail(L, line, "gateway: more than one IPv%u gateway", a.family);
		*g = a;
	}
	return 0;
}

/* tcp-mss-clamp = auto | off | N (k->lo..k->hi; at most mtu - 40: conf_port_finish). */
int
conf_port_mss(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_port *p = base;
	uint64_t x;

	if (strcmp(v, "auto") == 0)
		p->mss_clamp = GW_MSS_CLAMP_AUTO;
	else if (strcmp(v, "off") == 0)
		p->mss_clamp = GW_MSS_CLAMP_OFF;
	else if (conf_parse_uint(v, false, &x) == 0 && x >= k->lo && x <= k->hi)
		p->mss_clamp = (int)x;
	else
		return conf_fail(L, line, "tcp-mss-clamp: '" ECHO "' is not auto, off or a "
				 "number %d..(mtu - 40)", v, GW_CONF_MSS_MIN);
	return 0;
}

/* Checks that need the whole [port] section. */
int
conf_port_finish(struct loader *L, const struct sec *sec, void *base)
{
	struct gw_conf_port *p = base;
	bool has_v6 = false;

	if (L->cfg->mode == GW_MODE_MIDDLEBOX)     /* [gateway] is parsed first */
		return conf_mbox_port_finish(L, sec, p);
	if (sec->key_line[K_ROLE] == 0)
		return conf_fail(L, sec->line, "[%s]: missing key '%s'", sec->cfgname,
				 conf_keys[K_ROLE].name);
	/* an l2 port is a bridge port of the site: it needs no address of its own */
	if (p->mode == GW_PORT_L2 && p->role != GW_ROLE_INNER)
		return conf_fail(L, sec->key_line[K_MODE], "mode: l2 needs role = inner (an outer "
				 "port is never bridged)");
	if (p->dhcp && p->role != GW_ROLE_OUTER)
		return conf_fail(L, sec->key_line[K_ADDRESS], "address: dhcp only on an outer "
				 "port (an inner port is the site's router: give its address)");
	if (p->dhcp && p->mode != GW_PORT_L3)
		return conf_fail(L, sec->key_line[K_ADDRESS], "address: dhcp only on an l3 port");
	if (p->dhcp && (p->n_neigh != 0 || p->n_routes != 0 || p->gateway4.family != 0))
		return conf_fail(L, sec->key_line[p->n_neigh ? K_NEIGHBORS : p->n_routes ?
						 K_ROUTES : K_GATEWAY],
				 "%s: not with address = dhcp (the port's network and its router "
				 "come from the lease)", p->n_neigh ? "neighbors" : p->n_routes ?
				 "routes" : "gateway");
	if (p->mode == GW_PORT_L3 && p->n_addrs == 0 && !p->dhcp)
		return conf_fail(L, sec->line, "[%s]: missing key '%s'", sec->cfgname,
				 conf_keys[K_ADDRESS].name);
	if (p->uplink_pref != 0 && p->role != GW_ROLE_OUTER)
		return conf_fail(L, sec->key_line[K_UPLINK_PREF], "uplink-preference: only on an "
				 "outer port (an uplink of the multihomed gateway)");
	for (unsigned i = 0; i < p->n_addrs; i++)
		has_v6 |= p->addrs[i].a.family == 6;
	if (has_v6 && p->mtu < GW_CONF_MTU_MIN_V6)
		return conf_fail(L, sec->key_line[K_MTU], "mtu: %u is below %d, the IPv6 minimum, and port %s "
				 "has an IPv6 address", p->mtu, GW_CONF_MTU_MIN_V6, p->name);
	if (p->mss_clamp > 0 && p->mss_clamp > p->mtu - 40)
		return conf_fail(L, sec->key_line[K_MSS], "tcp-mss-clamp: %d is more than mtu - 40 (%d)",
				 p->mss_clamp, p->mtu - 40);
	for (unsigned i = 0; i < p->n_neigh; i++)
		if (check_on_link(L, sec->key_line[K_NEIGHBORS], "neighbors", p, &p->neigh[i].ip) != 0)
			return -1;
	for (unsigned i = 0; i < p->n_routes; i++)
		if (check_on_link(L, sec->key_line[K_ROUTES], "routes", p, &p->routes[i].via) != 0)
			return -1;
	if (p->gateway4.family != 0 &&
	    check_on_link(L, sec->key_line[K_GATEWAY], "gateway", p, &p->gateway4) != 0)
		return -1;
	if (p->gateway6.family != 0 &&
	    check_on_link(L, sec->key_line[K_GATEWAY], "gateway", p, &p->gateway6) != 0)
		return -1;
	return 0;
}
