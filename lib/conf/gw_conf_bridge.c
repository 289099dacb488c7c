/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: [bridge NAME], an L2 bridge of one inner port's Ethernet
 * segment to the same segment at each peer's site: port, peers, sas and
 * static, and the checks of a whole bridge section. Names are kept as
 * written; gw_conf_check.c resolves them once every section is read.
 */
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"

/* A section name as the pre-scan allows it in a header (1..31 bytes of
 * [A-Za-z0-9._-], first a letter or digit) into out[GW_CONF_NAME_MAX]. */
int
conf_parse_name(struct loader *L, unsigned line, const char *what, const char *s, char *out)
{
	size_t n = strlen(s);
	bool ok = n > 0 && n < GW_CONF_NAME_MAX && s[0] != '.' && s[0] != '-' && s[0] != '_';

	for (size_t i = 0; ok && i < n; i++)
		ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		     (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' || s[i] == '_';
	if (!ok)
		return conf_fail(L, line, "%s: '" ECHO "' is not a section name", what, s);
	snprintf(out, GW_CONF_NAME_MAX, "%s", s);
	return 0;
}

int
conf_bridge_port(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		 void *base)
{
	struct gw_conf_bridge *b = base;

	return conf_parse_name(L, line, k->name, v, b->port_name);
}

/* Element n of a name list (ctx: the array of names): a name not listed before. */
static int
name_item(struct loader *L, unsigned line, const char *what, char *item, unsigned n, void *ctx)
{
	char (*names)[GW_CONF_NAME_MAX] = ctx;

	if (conf_parse_name(L, line, what, item, names[n]) != 0)
		return -1;
	for (unsigned j = 0; j < n; j++)
		if (strcmp(names[j], names[n]) == 0)
			return conf_fail(L, line, "%s: '" ECHO "' is listed twice", what, item);
	return 0;
}

/* peers = NAME, ...: [peer] sections (they exist: gw_conf_check.c). */
int
conf_bridge_peers(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		  void *base)
{
	struct gw_conf_bridge *b = base;

	return conf_parse_list(L, line, k->name, v, (unsigned)k->hi, "names", &b->n_peers,
			       name_item, b->peer_names);
}

/* sas = NAME, ...: [sa] sections, in and out (they exist: gw_conf_check.c). */
int
conf_bridge_sas(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		void *base)
{
	struct gw_conf_bridge *b = base;

	return conf_parse_list(L, line, k->name, v, (unsigned)k->hi, "names", &b->n_sas,
			       name_item, b->sa_names);
}

/* Element n of static (ctx: the bridge): "MAC [vlan N] local|PEER", MAC and
 * VLAN not listed before. PEER is checked against the bridge's lists by
 * gw_conf_check.c. */
static int
static_item(struct loader *L, unsigned line, const char *what, char *item, unsigned n, void *ctx)
{
	struct gw_conf_bridge *b = ctx;
	struct gw_conf_bridge_static *st = &b->statics[n];
	char *w[4];
	unsigned nw = conf_split_words(item, w, 4);
	uint64_t vlan = 0;

	if ((nw != 2 && nw != 4) || (nw == 4 && strcmp(w[1], "vlan") != 0))
		return conf_fail(L, line, "%s: expected 'MAC [vlan N] local|PEER, ...'", what);
	if (conf_parse_unicast_mac(L, line, what, w[0], st->mac) != 0)
		return -1;
	if (nw == 4 && conf_parse_uint_in(L, line, what, w[2], GW_CONF_VLAN_MIN, GW_CONF_VLAN_MAX,
					  &vlan) != 0)
		return -1;
	st->vlan = (uint16_t)vlan;
	if (strcmp(w[nw - 1], "local") == 0)
		st->dest = GW_BRIDGE_DEST_LOCAL;
	else if (conf_parse_name(L, line, what, w[nw - 1], st->dest_name) != 0)
		return -1;
	else
		st->dest = GW_BRIDGE_DEST_PEER;   /* or SA: resolved by gw_conf_check.c */
	for (unsigned j = 0; j < n; j++)
		if (memcmp(b->statics[j].mac, st->mac, sizeof(st->mac)) == 0 &&
		    b->statics[j].vlan == st->vlan)
			return conf_fail(L, line, "%s: " ECHO " (vlan %u) is listed twice", what, w[0],
					 st->vlan);
	return 0;
}

/* static = MAC [vlan N] local|PEER, ...: static MAC table entries. */
int
conf_bridge_static(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		   void *base)
{
	struct gw_conf_bridge *b = base;

	return conf_parse_list(L, line, k->name, v, (unsigned)k->hi, "entries", &b->n_statics,
			       static_item, b);
}

/* Checks that need the whole [bridge] section: something to bridge to. */
int
conf_bridge_finish(struct loader *L, const struct sec *sec, void *base)
{
	struct gw_conf_bridge *b = base;

	if (b->n_peers == 0 && b->n_sas == 0)
		return conf_fail(L, sec->line, "[%s]: needs peers or sas (where the frames go)",
				 sec->cfgname);
	return 0;
}
