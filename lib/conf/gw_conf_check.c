/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: checks across sections (ports against each other, SAs, peers,
 * bypass prefixes, [sa-gen], [bridge]), once every section has been parsed;
 * middlebox mode's in gw_conf_mbox.c.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"
#include "gw_sagen.h"

const struct sec *
conf_sec_of(const struct loader *L, enum sec_type t, unsigned idx)
{
	for (unsigned i = 0; i < L->n_secs; i++)
		if (L->secs[i].type == t && L->secs[i].idx == idx)
			return &L->secs[i];
	return NULL;
}

unsigned
conf_key_line(const struct loader *L, enum sec_type t, unsigned idx, unsigned k)
{
	const struct sec *s = conf_sec_of(L, t, idx);

	return s ? s->key_line[k] : 0;
}

#define key_line conf_key_line

/* The port (file order; outer_only: outer ports only) that has address a, or NULL. */
static const struct gw_conf_port *
port_with_addr(const struct gw_config *cfg, const struct gw_addr *a, bool outer_only)
{
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *p = &cfg->ports[i];

		if (outer_only && p->role != GW_ROLE_OUTER)
			continue;
		for (unsigned x = 0; x < p->n_addrs; x++)
			if (conf_addr_eq(&p->addrs[x].a, a))
				return p;
	}
	return NULL;
}

/* The first outer-port address of a family, IPv6 link-local ones last; an
 * IPv4 `address = dhcp` port met first gives the unspecified 0.0.0.0: the
 * address its lease brings (the HIP engine takes it then as our locator). */
static bool
first_outer_addr(const struct gw_config *cfg, uint8_t family, struct gw_addr *out)
{
	const struct gw_addr *ll = NULL;

	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *p = &cfg->ports[i];

		if (p->role != GW_ROLE_OUTER)
			continue;
		if (p->dhcp && family == 4) {
			memset(out, 0, sizeof(*out));
			out->family = 4;
			return true;
		}
		for (unsigned x = 0; x < p->n_addrs; x++) {
			const struct gw_addr *a = &p->addrs[x].a;

			if (a->family != family)
				continue;
			if (conf_is_v6_link_local(a)) {
				if (ll == NULL)
					ll = a;
				continue;
			}
			*out = *a;
			return true;
		}
	}
	if (ll == NULL)
		return false;
	*out = *ll;
	return true;
}

/* Peer i's locators (not ours; an outer port of each family) and its local
 * address (on an outer port; or the default: first_outer_addr). */
static int
check_peer_addrs(struct loader *L, unsigned i)
{
	struct gw_config *cfg = L->cfg;
	struct gw_conf_peer *pe = &cfg->peers[i];
	unsigned loc_line = key_line(L, SEC_PEER, i, K_LOCATOR);
	const struct gw_conf_port *own;
	char a[PFX_STRLEN];
	struct gw_addr tmp;

	for (unsigned x = 0; x < pe->n_locators; x++) {
		const struct gw_addr *loc = &pe->locators[x];

		own = port_with_addr(cfg, loc, false);
		if (own != NULL)
			return conf_fail(L, loc_line, "locator: %s is an address of our port %s",
					 conf_addr_str(loc, a), own->name);
		if (!first_outer_addr(cfg, loc->family, &tmp))
			return conf_fail(L, loc_line, "locator: %s is IPv%u but no outer port has "
					 "an IPv%u address", conf_addr_str(loc, a), loc->family,
					 loc->family);
	}
	if (pe->has_local) {
		if (port_with_addr(cfg, &pe->local, true) == NULL)
			return conf_fail(L, key_line(L, SEC_PEER, i, K_PEER_LOCAL),
					 "local: %s is not an address of an outer port",
					 conf_addr_str(&pe->local, a));
	} else if (!first_outer_addr(cfg, pe->locators[0].family, &pe->local)) {
		return conf_fail(L, loc_line, "internal error: no default local address");
	}
	return 0;
}

/* Prefix px of peer i against the peers before it and every out SA; a clash
 * with an SA is reported on whichever prefixes line comes later. */
static int
check_peer_prefix(struct loader *L, unsigned i, const struct gw_prefix *px)
{
	const struct gw_config *cfg = L->cfg;
	unsigned pfx_line = key_line(L, SEC_PEER, i, K_PEER_PREFIXES);
	char a[PFX_STRLEN], b[PFX_STRLEN];

	for (unsigned j = 0; j < i; j++) {
		const struct gw_conf_peer *o = &cfg->peers[j];

		for (unsigned y = 0; y < o->n_prefixes; y++)
			if (gw_prefix_overlap(px, &o->prefixes[y]))
				return conf_fail(L, pfx_line, "prefixes: %s overlaps %s of [peer %s] "
						 "(line %u)", conf_prefix_str(px, a),
						 conf_prefix_str(&o->prefixes[y], b), o->name,
						 key_line(L, SEC_PEER, j, K_PEER_PREFIXES));
	}
	for (unsigned j = 0; j < cfg->n_sas; j++) {
		const struct gw_conf_sa *sa = &cfg->sas[j];
		unsigned sl = key_line(L, SEC_SA, j, K_PREFIXES);

		if (sa->dir != GW_DIR_OUT)
			continue;
		for (unsigned y = 0; y < sa->n_prefixes; y++) {
			const struct gw_prefix *sp = &sa->prefixes[y];

			if (!gw_prefix_overlap(px, sp))
				continue;
			if (pfx_line > sl)
				return conf_fail(L, pfx_line, "prefixes: %s overlaps %s of [sa %s] "
						 "(line %u)", conf_prefix_str(px, a),
						 conf_prefix_str(sp, b), sa->name, sl);
			return conf_fail(L, sl, "prefixes: %s overlaps %s of [peer %s] (line %u)",
					 conf_prefix_str(sp, a), conf_prefix_str(px, b),
					 cfg->peers[i].name, pfx_line);
		}
	}
	return 0;
}

/* Peers: [gateway] hi set, then peer by peer its addresses, its HIT unique and
 * its prefixes; then no bypass prefix overlaps a peer's. */
static int
cross_check_peers(struct loader *L)
{
	struct gw_config *cfg = L->cfg;
	char a[PFX_STRLEN], b[PFX_STRLEN];

	if (cfg->n_peers > 0 && cfg->hi_path[0] == '\0')
		return conf_fail(L, cfg->peers[0].line, "[peer %s]: HIP peers need this "
				 "gateway's Host Identity: set hi in [gateway]", cfg->peers[0].name);
	for (unsigned i = 0; i < cfg->n_peers; i++) {
		const struct gw_conf_peer *pe = &cfg->peers[i];

		if (check_peer_addrs(L, i) != 0)
			return -1;
		for (unsigned j = 0; j < i; j++)
			if (memcmp(cfg->peers[j].hit, pe->hit, GW_CONF_HIT_LEN) == 0) {
				struct gw_addr h = { .family = 6 };

				memcpy(h.addr, pe->hit, GW_CONF_HIT_LEN);
				return conf_fail(L, key_line(L, SEC_PEER, i, K_HIT),
						 "hit: %s is also the HIT of [peer %s] (line %u)",
						 conf_addr_str(&h, a), cfg->peers[j].name,
						 key_line(L, SEC_PEER, j, K_HIT));
			}
		for (unsigned x = 0; x < pe->n_prefixes; x++)
			if (check_peer_prefix(L, i, &pe->prefixes[x]) != 0)
				return -1;
	}
	for (unsigned x = 0; x < cfg->n_bypass; x++)
		for (unsigned i = 0; i < cfg->n_peers; i++) {
			const struct gw_conf_peer *pe = &cfg->peers[i];

			for (unsigned y = 0; y < pe->n_prefixes; y++)
				if (gw_prefix_overlap(&cfg->bypass[x], &pe->prefixes[y]))
					return conf_fail(L, key_line(L, SEC_POLICY, 0, K_BYPASS),
							 "bypass: %s overlaps %s of [peer %s] (traffic "
							 "a peer protects is never sent in clear)",
							 conf_prefix_str(&cfg->bypass[x], a),
							 conf_prefix_str(&pe->prefixes[y], b), pe->name);
		}
	return 0;
}

/* A generated SPI that a static [sa] of the same direction also uses. */
static int
sagen_spi_check(struct loader *L, enum gw_dir dir)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_conf_sagen *g = &cfg->sagen;
	uint32_t j = 0;
	unsigned n = 0;

	for (unsigned x = 0; x < cfg->n_sas; x++)
		n += cfg->sas[x].dir == dir;
	for (uint32_t i = 0; i < g->count && n > 0; i++) {
		uint32_t spi = gw_sagen_spi_next(g, &j);

		for (unsigned x = 0; x < cfg->n_sas; x++)
			if (cfg->sas[x].dir == dir && cfg->sas[x].spi == spi)
				return conf_fail(L, key_line(L, SEC_SA, x, K_SPI),
						 "spi: 0x%x is also the SPI of generated %s SA %u of "
						 "[sa-gen %s] (change its spi-seed)", spi,
						 gw_dir_name(dir), i, g->name);
	}
	return 0;
}

/* The [sa-gen] out block against what else selects out traffic: out SAs'
 * prefixes, peers' prefixes, bypass prefixes. */
static int
sagen_out_block_check(struct loader *L)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_prefix *b = &cfg->sagen.block;
	unsigned pl = key_line(L, SEC_SAGEN, 0, K_G_PREFIXES);
	char a[PFX_STRLEN], c[PFX_STRLEN];

	for (unsigned i = 0; i < cfg->n_sas; i++) {
		const struct gw_conf_sa *sa = &cfg->sas[i];

		for (unsigned y = 0; y < sa->n_prefixes && sa->dir == GW_DIR_OUT; y++)
			if (gw_prefix_overlap(b, &sa->prefixes[y]))
				return conf_fail(L, pl, "prefixes: %s overlaps %s of out SA %s (line %u)",
						 conf_prefix_str(b, a), conf_prefix_str(&sa->prefixes[y], c),
						 sa->name, key_line(L, SEC_SA, i, K_PREFIXES));
	}
	for (unsigned i = 0; i < cfg->n_peers; i++) {
		const struct gw_conf_peer *pe = &cfg->peers[i];

		for (unsigned y = 0; y < pe->n_prefixes; y++)
			if (gw_prefix_overlap(b, &pe->prefixes[y]))
				return conf_fail(L, pl, "prefixes: %s overlaps %s of [peer %s]",
						 conf_prefix_str(b, a), conf_prefix_str(&pe->prefixes[y], c),
						 pe->name);
	}
	for (unsigned y = 0; y < cfg->n_bypass; y++)
		if (gw_prefix_overlap(b, &cfg->bypass[y]))
			return conf_fail(L, pl, "prefixes: %s overlaps the bypass prefix %s",
					 conf_prefix_str(b, a), conf_prefix_str(&cfg->bypass[y], c));
	return 0;
}

/* [sa-gen]: local on an outer port, the block apart from the ports' networks
 * (and, out, from every out selector), its SPIs apart from the [sa]s'. */
static int
cross_check_sagen(struct loader *L)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_conf_sagen *g = &cfg->sagen;
	const struct gw_prefix *b = &g->block;
	unsigned pl = key_line(L, SEC_SAGEN, 0, K_G_PREFIXES);
	char a[PFX_STRLEN], c[PFX_STRLEN];

	if (g->count == 0)
		return 0;
	if (port_with_addr(cfg, &g->local, true) == NULL)
		return conf_fail(L, key_line(L, SEC_SAGEN, 0, K_G_LOCAL),
				 "local: %s is not an address of an outer port",
				 conf_addr_str(&g->local, a));
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *p = &cfg->ports[i];

		for (unsigned x = 0; x < p->n_addrs; x++)
			if (gw_prefix_overlap(b, &p->addrs[x]))
				return conf_fail(L, pl, "prefixes: %s overlaps the network %s of port %s",
						 conf_prefix_str(b, a), conf_prefix_str(&p->addrs[x], c),
						 p->name);
	}
	if (g->out && sagen_out_block_check(L) != 0)
		return -1;
	if (g->out && sagen_spi_check(L, GW_DIR_OUT) != 0)
		return -1;
	if (g->in && sagen_spi_check(L, GW_DIR_IN) != 0)
		return -1;
	return 0;
}

/* Ports: device names and addresses unique, networks apart (IPv6 link-local
 * aside), at least one inner and one outer port. */
static int
cross_check_ports(struct loader *L)
{
	struct gw_config *cfg = L->cfg;
	char a[PFX_STRLEN], b[PFX_STRLEN];
	bool inner = false, outer = false;

	if (cfg->n_ports == 0)
		return conf_fail(L, 0, "no [port] sections");
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *p = &cfg->ports[i];

		inner |= p->role == GW_ROLE_INNER;
		outer |= p->role == GW_ROLE_OUTER;
		for (unsigned j = 0; j < i; j++) {
			const struct gw_conf_port *q = &cfg->ports[j];

			/* the name before the first ',' (arguments aside) is the device */
			size_t pn = strcspn(p->device, ","), qn = strcspn(q->device, ",");

			if (pn == qn && strncmp(p->device, q->device, pn) == 0)
				return conf_fail(L, key_line(L, SEC_PORT, i, K_DEVICE),
						 "device: same device as port %s", q->name);
			for (unsigned x = 0; x < p->n_addrs; x++)
				for (unsigned y = 0; y < q->n_addrs; y++) {
					const struct gw_prefix *pa = &p->addrs[x], *qa = &q->addrs[y];
					unsigned al = key_line(L, SEC_PORT, i, K_ADDRESS);

					if (conf_addr_eq(&pa->a, &qa->a))
						return conf_fail(L, al, "address: %s is also an address "
								 "of port %s", conf_addr_str(&pa->a, a),
								 q->name);
					if (conf_is_v6_link_local(&pa->a) && conf_is_v6_link_local(&qa->a))
						continue;
					if (gw_prefix_overlap(pa, qa))
						return conf_fail(L, al, "address: network of %s overlaps %s "
								 "of port %s", conf_prefix_str(pa, a),
								 conf_prefix_str(qa, b), q->name);
				}
		}
	}
	if (!inner)
		return conf_fail(L, 0, "no port with role = inner");
	if (!outer)
		return conf_fail(L, 0, "no port with role = outer");
	return 0;
}

/* SA i against the SAs before it: SPIs per direction, GCM keys, state files. */
static int
cross_check_sa_pairs(struct loader *L, unsigned i)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_conf_sa *sa = &cfg->sas[i];

	for (unsigned j = 0; j < i; j++) {
		const struct gw_conf_sa *o = &cfg->sas[j];

		if (o->dir == sa->dir && o->spi == sa->spi)
			return conf_fail(L, key_line(L, SEC_SA, i, K_SPI),
					 "spi: 0x%x is already used by %s SA %s (line %u)", sa->spi,
					 gw_dir_name(sa->dir), o->name, key_line(L, SEC_SA, j, K_SPI));
		/* RFC 4106 section 3.1: a GCM nonce (salt, IV = sequence number) is
		 * used once per key; two SAs of one key, in either direction, both
		 * count from 1 */
		if (conf_suite_is_gcm(sa->suite) && conf_suite_is_gcm(o->suite) &&
		    sa->key_len == o->key_len && memcmp(sa->key, o->key, sa->key_len) == 0)
			return conf_fail(L, key_line(L, SEC_SA, i, K_KEY),
					 "key: the same GCM key as SA %s (line %u): both would use "
					 "the same nonces", o->name, key_line(L, SEC_SA, j, K_KEY));
		if (sa->state[0] != '\0' && strcmp(sa->state, o->state) == 0) {
			unsigned sl = key_line(L, SEC_SA, i, K_STATE);

			return conf_fail(L, sl ? sl : sa->line, "state: file %.80s is also used by "
					 "SA %s", sa->state, o->name);
		}
	}
	return 0;
}

/* The prefixes of out SA i: apart within its list and from the out SAs before it. */
static int
cross_check_out_prefixes(struct loader *L, unsigned i)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_conf_sa *sa = &cfg->sas[i];
	char a[PFX_STRLEN], b[PFX_STRLEN];

	unsigned pl = key_line(L, SEC_SA, i, K_PREFIXES);

	for (unsigned x = 0; x < sa->n_prefixes; x++) {
		const struct gw_prefix *px = &sa->prefixes[x];

		for (unsigned y = 0; y < x; y++)
			if (gw_prefix_overlap(px, &sa->prefixes[y]))
				return conf_fail(L, pl, "prefixes: %s overlaps %s in the same list",
						 conf_prefix_str(px, a),
						 conf_prefix_str(&sa->prefixes[y], b));
		for (unsigned j = 0; j < i; j++) {
			const struct gw_conf_sa *o = &cfg->sas[j];

			if (o->dir != GW_DIR_OUT)
				continue;
			for (unsigned y = 0; y < o->n_prefixes; y++)
				if (gw_prefix_overlap(px, &o->prefixes[y]))
					return conf_fail(L, pl, "prefixes: %s overlaps %s of out SA %s "
							 "(line %u)", conf_prefix_str(px, a),
							 conf_prefix_str(&o->prefixes[y], b), o->name,
							 key_line(L, SEC_SA, j, K_PREFIXES));
		}
	}
	return 0;
}

/* SAs: local on an outer port, then the pairs and the out prefixes, SA by SA;
 * then no bypass prefix overlaps an out SA's. */
static int
cross_check_sas(struct loader *L)
{
	struct gw_config *cfg = L->cfg;
	char a[PFX_STRLEN], b[PFX_STRLEN];

	for (unsigned i = 0; i < cfg->n_sas; i++) {
		const struct gw_conf_sa *sa = &cfg->sas[i];

		if (port_with_addr(cfg, &sa->local, true) == NULL)
			return conf_fail(L, key_line(L, SEC_SA, i, K_LOCAL),
					 "local: %s is not an address of an outer port",
					 conf_addr_str(&sa->local, a));
		if (cross_check_sa_pairs(L, i) != 0)
			return -1;
		if (sa->dir == GW_DIR_OUT && cross_check_out_prefixes(L, i) != 0)
			return -1;
	}
	for (unsigned x = 0; x < cfg->n_bypass; x++)
		for (unsigned i = 0; i < cfg->n_sas; i++) {
			const struct gw_conf_sa *sa = &cfg->sas[i];

			if (sa->dir != GW_DIR_OUT)
				continue;
			for (unsigned y = 0; y < sa->n_prefixes; y++)
				if (gw_prefix_overlap(&cfg->bypass[x], &sa->prefixes[y]))
					return conf_fail(L, key_line(L, SEC_POLICY, 0, K_BYPASS),
							 "bypass: %s overlaps %s of out SA %s (traffic an "
							 "SA protects is never sent in clear)",
							 conf_prefix_str(&cfg->bypass[x], a),
							 conf_prefix_str(&sa->prefixes[y], b), sa->name);
		}
	return 0;
}

/* Index of `name` among n name fields, the first at names, stride bytes
 * apart (FIND: the structs of an array), or -1. */
static int
index_of(const char *names, size_t stride, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(names + i * stride, name) == 0)
			return (int)i;
	return -1;
}

#define FIND(arr, n, nm) index_of((arr)[0].name, sizeof((arr)[0]), (n), (nm))

/* Bridge i's port: a port in mode l2 that no bridge before it has. */
static int
bridge_port_check(struct loader *L, unsigned i)
{
	struct gw_config *cfg = L->cfg;
	struct gw_conf_bridge *b = &cfg->bridges[i];
	unsigned pl = key_line(L, SEC_BRIDGE, i, K_B_PORT);
	int p = FIND(cfg->ports, cfg->n_ports, b->port_name);

	if (p < 0)
		return conf_fail(L, pl, "port: there is no [port %s]", b->port_name);
	if (cfg->ports[p].mode != GW_PORT_L2)
		return conf_fail(L, pl, "port: port %s is in mode l3 (a bridge port needs mode = l2)",
				 b->port_name);
	for (unsigned j = 0; j < i; j++)
		if (cfg->bridges[j].port == (unsigned)p)
			return conf_fail(L, pl, "port: port %s is also the port of [bridge %s] "
					 "(line %u)", b->port_name, cfg->bridges[j].name,
					 key_line(L, SEC_BRIDGE, j, K_B_PORT));
	b->port = (unsigned)p;
	return 0;
}

/* Bridge i's peers and SAs: sections that exist, in no bridge before it
 * (EtherIP, RFC 3378, names no bridge: a peer's frames go to one bridge). */
static int
bridge_members_check(struct loader *L, unsigned i)
{
	struct gw_config *cfg = L->cfg;
	struct gw_conf_bridge *b = &cfg->bridges[i];
	unsigned pl = key_line(L, SEC_BRIDGE, i, K_B_PEERS), sl = key_line(L, SEC_BRIDGE, i, K_B_SAS);

	for (unsigned x = 0; x < b->n_peers; x++) {
		int p = FIND(cfg->peers, cfg->n_peers, b->peer_names[x]);

		if (p < 0)
			return conf_fail(L, pl, "peers: there is no [peer %s]", b->peer_names[x]);
		b->peers[x] = (unsigned)p;
		cfg->peers[p].bridge = (uint8_t)(i + 1);
		cfg->peers[p].bridge_remote = (uint8_t)x;   /* remote r: the r-th of the list */
		for (unsigned j = 0; j < i; j++)
			for (unsigned y = 0; y < cfg->bridges[j].n_peers; y++)
				if (cfg->bridges[j].peers[y] == (unsigned)p)
					return conf_fail(L, pl, "peers: peer %s is also in [bridge %s] "
							 "(a peer carries one bridge)",
							 b->peer_names[x], cfg->bridges[j].name);
	}
	for (unsigned x = 0; x < b->n_sas; x++) {
		int s = FIND(cfg->sas, cfg->n_sas, b->sa_names[x]);

		if (s < 0)
			return conf_fail(L, sl, "sas: there is no [sa %s]", b->sa_names[x]);
		b->sas[x] = (unsigned)s;
		for (unsigned j = 0; j < i; j++)
			for (unsigned y = 0; y < cfg->bridges[j].n_sas; y++)
				if (cfg->bridges[j].sas[y] == (unsigned)s)
					return conf_fail(L, sl, "sas: SA %s is also in [bridge %s] "
							 "(an SA carries one bridge)",
							 b->sa_names[x], cfg->bridges[j].name);
	}
	return 0;
}

/* Bridge i's SAs in pairs: each out SA with an in SA of the same remote in
 * the bridge and the other way round (frames cross in both directions). */
static int
bridge_sa_pairs_check(struct loader *L, unsigned i)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_conf_bridge *b = &cfg->bridges[i];
	char a[INET6_ADDRSTRLEN];

	for (unsigned x = 0; x < b->n_sas; x++) {
		const struct gw_conf_sa *sa = &cfg->sas[b->sas[x]];
		bool pair = false;

		for (unsigned y = 0; y < b->n_sas && !pair; y++) {
			const struct gw_conf_sa *o = &cfg->sas[b->sas[y]];

			pair = o->dir != sa->dir && conf_addr_eq(&o->remote, &sa->remote);
		}
		if (!pair)
			return conf_fail(L, key_line(L, SEC_BRIDGE, i, K_B_SAS), "sas: %s SA %s has no "
					 "%s SA with remote %s in this bridge", gw_dir_name(sa->dir),
					 sa->name, gw_dir_name(sa->dir == GW_DIR_OUT ? GW_DIR_IN :
							       GW_DIR_OUT), conf_addr_str(&sa->remote, a));
	}
	return 0;
}

/* Bridge i's static entries: each to local, to one of its peers or to one of
 * its out SAs (the MACs are unicast and unique per VLAN: gw_conf_bridge.c). */
static int
bridge_static_check(struct loader *L, unsigned i)
{
	struct gw_config *cfg = L->cfg;
	struct gw_conf_bridge *b = &cfg->bridges[i];

	for (unsigned x = 0; x < b->n_statics; x++) {
		struct gw_conf_bridge_static *st = &b->statics[x];

		if (st->dest == GW_BRIDGE_DEST_LOCAL)
			continue;
		for (unsigned y = 0; y < b->n_peers && st->dest == GW_BRIDGE_DEST_PEER; y++)
			if (strcmp(b->peer_names[y], st->dest_name) == 0) {
				st->dest_idx = b->peers[y];
				goto next;
			}
		for (unsigned y = 0; y < b->n_sas; y++)
			if (strcmp(b->sa_names[y], st->dest_name) == 0 &&
			    cfg->sas[b->sas[y]].dir == GW_DIR_OUT) {
				st->dest = GW_BRIDGE_DEST_SA;
				st->dest_idx = b->sas[y];
				goto next;
			}
		return conf_fail(L, key_line(L, SEC_BRIDGE, i, K_B_STATIC), "static: %s is not local, "
				 "a peer or an out SA of this bridge", st->dest_name);
next:;
	}
	return 0;
}

/* Bridges: port, members and static entries bridge by bridge; then every port
 * in mode l2 is the port of a bridge, and every peer without prefixes a
 * bridge's peer (else it would carry nothing). */
static int
cross_check_bridges(struct loader *L)
{
	const struct gw_config *cfg = L->cfg;

	for (unsigned i = 0; i < cfg->n_bridges; i++)
		if (bridge_port_check(L, i) != 0 || bridge_members_check(L, i) != 0 ||
		    bridge_sa_pairs_check(L, i) != 0 || bridge_static_check(L, i) != 0)
			return -1;
	for (unsigned p = 0; p < cfg->n_ports; p++) {
		bool in = false;

		if (cfg->ports[p].mode != GW_PORT_L2)
			continue;
		for (unsigned i = 0; i < cfg->n_bridges; i++)
			in |= cfg->bridges[i].port == p;
		if (!in)
			return conf_fail(L, key_line(L, SEC_PORT, p, K_MODE), "mode: port %s is in mode "
					 "l2 but in no [bridge] (set port = %s in one)",
					 cfg->ports[p].name, cfg->ports[p].name);
	}
	for (unsigned i = 0; i < cfg->n_peers; i++)
		if (cfg->peers[i].n_prefixes == 0 && cfg->peers[i].bridge == 0)
			return conf_fail(L, cfg->peers[i].line, "[peer %s]: missing key '%s' (only "
					 "a peer in a [bridge] may have none)", cfg->peers[i].name,
					 conf_keys[K_PEER_PREFIXES].name);
	return 0;
}

int
conf_cross_check(struct loader *L)
{
	if (conf_mbox_cross_check(L) != 0)
		return -1;
	if (L->cfg->mode == GW_MODE_MIDDLEBOX)
		return 0;         /* no SAs, peers, bridges: conf_mbox_cross_check refused them */
	if (cross_check_ports(L) != 0 || cross_check_sas(L) != 0 || cross_check_peers(L) != 0)
		return -1;
	if (cross_check_sagen(L) != 0)
		return -1;
	return cross_check_bridges(L);
}
