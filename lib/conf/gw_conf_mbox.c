/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: middlebox mode ([gateway] mode = middlebox, docs/middlebox.md):
 * [middlebox] (the bridged pair, the tracker's parameters, bypass), [host NAME]
 * (a Host Identity vouched for: its public key must hash to its HIT), [rule
 * NAME] (first match wins, default deny), [mbox-gen NAME] (lab flows), what a
 * [port] means there, and the checks across sections of either mode: a
 * middlebox keeps no SAs, peers or bridges, a gateway none of these sections.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gw_conf_internal.h"
#include "hip_hi.h"

/* ports = A, B: two [port] names (they exist and differ: the checks below). */
int
conf_mbox_ports(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		void *base)
{
	struct gw_conf_mbox *m = &((struct gw_config *)base)->mbox;
	char *cur = L->tmp, *item;
	int r;

	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	m->n_ports = 0;
	while ((r = conf_list_next(&cur, &item)) != 0) {
		if (r < 0)
			return conf_fail(L, line, "%s: empty element in list", k->name);
		if (m->n_ports == GW_CONF_MBOX_PORTS)
			return conf_fail(L, line, "%s: one pair of ports, 'A, B' (more than two names)",
					 k->name);
		if (conf_parse_name(L, line, k->name, item, m->port_names[m->n_ports]) != 0)
			return -1;
		m->n_ports++;
	}
	if (m->n_ports != GW_CONF_MBOX_PORTS)
		return conf_fail(L, line, "%s: one pair of ports, 'A, B' (one name given)", k->name);
	if (strcmp(m->port_names[0], m->port_names[1]) == 0)
		return conf_fail(L, line, "%s: port %s twice (a pair of two ports)", k->name,
				 m->port_names[0]);
	return 0;
}

/* A path for a file hipgw reads or writes: absolute, not a directory name. */
static int
check_path(struct loader *L, unsigned line, const char *what, const char *v)
{
	size_t n = strlen(v);

	if (v[0] != '/' || v[n - 1] == '/')
		return conf_fail(L, line, "%s: '" ECHO "' is not an absolute file path", what, v);
	if (n >= GW_CONF_PATH_MAX)
		return conf_fail(L, line, "%s: path longer than %d bytes", what, GW_CONF_PATH_MAX - 1);
	return 0;
}

int
conf_mbox_state(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		void *base)
{
	if (check_path(L, line, k->name, v) != 0)
		return -1;
	return conf_key_string(L, k, line, v, base);
}

int
conf_host_hit(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	return conf_parse_hit(L, line, k->name, v, ((struct gw_conf_host *)base)->hit);
}

/* hi = FILE: a PEM public key; read and checked against hit by conf_host_finish. */
int
conf_host_hi(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct stat st;

	if (check_path(L, line, k->name, v) != 0)
		return -1;
	if (stat(v, &st) != 0 || !S_ISREG(st.st_mode))
		return conf_fail(L, line, "%s: " ECHO " is not a regular file", k->name, v);
	return conf_key_string(L, k, line, v, base);
}

/* The public key of a [host] hashes to its HIT (RFC 7343 ORCHIDv2 over the
 * encoded HI, RFC 7401 section 5.2.9). */
int
conf_host_finish(struct loader *L, const struct sec *sec, void *base)
{
	struct gw_conf_host *h = base;
	struct hip_hi hi = { 0 };
	char msg[300], a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	struct gw_addr x = { .family = 6 }, y = { .family = 6 };
	int rc = 0;

	if (hip_hi_load_public(h->hi_path, &hi, msg, sizeof(msg)) != 0)
		return conf_fail(L, sec->key_line[K_H_HI], "hi: %s", msg);
	if (memcmp(hi.hit, h->hit, GW_CONF_HIT_LEN) != 0) {
		memcpy(x.addr, hi.hit, GW_CONF_HIT_LEN);
		memcpy(y.addr, h->hit, GW_CONF_HIT_LEN);
		rc = conf_fail(L, sec->key_line[K_H_HI], "hi: the key in " ECHO " has HIT %s, not %s "
			       "(hit, line %u)", h->hi_path, conf_addr_str(&x, a), conf_addr_str(&y, b),
			       sec->key_line[K_H_HIT]);
	}
	hip_hi_free(&hi);
	return rc;
}

/* initiator / responder = HIT | any */
int
conf_rule_hit(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_rule *r = base;
	bool ini = k == &conf_keys[K_R_INITIATOR];

	if (strcmp(v, "any") == 0) {
		*(ini ? &r->any_initiator : &r->any_responder) = true;
		return 0;
	}
	return conf_parse_hit(L, line, k->name, v, ini ? r->initiator : r->responder);
}

/* destinations = PREFIX: IPv4 or IPv6, host bits zero. */
int
conf_mboxgen_block(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		   void *base)
{
	return conf_parse_prefix(L, line, k->name, v, &((struct gw_conf_mboxgen *)base)->block, false);
}

/* The [port] keys that make no sense on a bridged port of a middlebox: it
 * has no side, no addresses, no routes and no MAC of its own (a bump in the
 * wire); device and mtu are all it takes. */
static const unsigned port_keys_refused[] = { K_ROLE, K_MODE, K_ADDRESS, K_MAC, K_NEIGHBORS,
					      K_ROUTES, K_GATEWAY, K_MSS };

int
conf_mbox_port_finish(struct loader *L, const struct sec *sec, struct gw_conf_port *p)
{
	for (unsigned i = 0; i < N_OF(port_keys_refused); i++) {
		unsigned k = port_keys_refused[i];

		if (sec->key_line[k] != 0)
			return conf_fail(L, sec->key_line[k], "%s: not for a port of a middlebox "
					 "(a bridged port takes device and mtu only)", conf_keys[k].name);
	}
	p->mss_clamp = GW_MSS_CLAMP_OFF;
	return 0;
}

/* The [gateway] keys only a gateway uses (HIP end point, SAs, neighbours). */
static const unsigned gateway_keys_refused[] = { K_HI, K_PUZZLE_K, K_R1_RATE, K_ESP_TRANSFORMS,
						 K_DH_GROUPS, K_HIP_CIPHERS, K_SA_LIFETIME,
						 K_PMTU_AGE, K_NEIGH_REFRESH };

/* Sections a middlebox refuses, and why. */
static const struct { enum sec_type t; const char *why; } mbox_refused[] = {
	{ SEC_SA, "a middlebox keeps no SAs: it forwards the ESP of associations it tracks" },
	{ SEC_PEER, "a middlebox is no HIP end point: it has no peers" },
	{ SEC_BRIDGE, "a middlebox bridges the pair of [middlebox] ports only" },
	{ SEC_SAGEN, "a middlebox keeps no SAs ([mbox-gen] makes lab flows)" },
	{ SEC_POLICY, "a middlebox's bypass is in [middlebox]" },
};

/* Sections only a middlebox takes. */
static const enum sec_type mbox_only[] = { SEC_MBOX, SEC_HOST, SEC_RULE, SEC_MBOXGEN };

static const struct sec *
first_of(const struct loader *L, enum sec_type t)
{
	for (unsigned i = 0; i < L->n_secs; i++)
		if (L->secs[i].type == t)
			return &L->secs[i];
	return NULL;
}

/* Gateway mode: none of the middlebox's sections. */
static int
check_gateway_mode(struct loader *L)
{
	for (unsigned i = 0; i < N_OF(mbox_only); i++) {
		const struct sec *s = first_of(L, mbox_only[i]);

		if (s != NULL)
			return conf_fail(L, s->line, "[%s]: only in middlebox mode (set mode = middlebox "
					 "in [gateway])", s->cfgname);
	}
	return 0;
}

/* [middlebox] ports: two [port] sections, and no port besides them. */
static int
check_pair(struct loader *L, const struct sec *ms)
{
	struct gw_config *cfg = L->cfg;
	struct gw_conf_mbox *m = &cfg->mbox;
	unsigned pl = ms->key_line[K_M_PORTS];

	for (unsigned x = 0; x < m->n_ports; x++) {
		unsigned p;

		for (p = 0; p < cfg->n_ports; p++)
			if (strcmp(cfg->ports[p].name, m->port_names[x]) == 0)
				break;
		if (p == cfg->n_ports)
			return conf_fail(L, pl, "ports: there is no [port %s]", m->port_names[x]);
		m->ports[x] = p;
	}
	for (unsigned p = 0; p < cfg->n_ports; p++)
		if (p != m->ports[0] && p != m->ports[1])
			return conf_fail(L, cfg->ports[p].line, "[port %s]: in no pair (a middlebox "
					 "bridges the two ports of [middlebox] ports only)",
					 cfg->ports[p].name);
	return 0;
}

/* Hosts: no HIT twice. */
static int
check_hosts(struct loader *L)
{
	const struct gw_config *cfg = L->cfg;
	char a[INET6_ADDRSTRLEN];

	for (unsigned i = 0; i < cfg->n_hosts; i++)
		for (unsigned j = 0; j < i; j++)
			if (memcmp(cfg->hosts[i].hit, cfg->hosts[j].hit, GW_CONF_HIT_LEN) == 0) {
				struct gw_addr h = { .family = 6 };

				memcpy(h.addr, cfg->hosts[i].hit, GW_CONF_HIT_LEN);
				return conf_fail(L, conf_key_line(L, SEC_HOST, i, K_H_HIT), "hit: %s is "
						 "also the HIT of [host %s]", conf_addr_str(&h, a),
						 cfg->hosts[j].name);
			}
	return 0;
}

/* Middlebox mode: the sections and keys it refuses, then the pair. */
static int
check_middlebox_mode(struct loader *L)
{
	const struct sec *gs = first_of(L, SEC_GATEWAY), *ms;

	for (unsigned i = 0; i < N_OF(mbox_refused); i++) {
		const struct sec *s = first_of(L, mbox_refused[i].t);

		if (s != NULL)
			return conf_fail(L, s->line, "[%s]: not in middlebox mode (%s)", s->cfgname,
					 mbox_refused[i].why);
	}
	for (unsigned i = 0; gs != NULL && i < N_OF(gateway_keys_refused); i++) {
		unsigned k = gateway_keys_refused[i];

		if (gs->key_line[k] != 0)
			return conf_fail(L, gs->key_line[k], "%s: not in middlebox mode (a gateway's "
					 "key: the box has no Host Identity, SAs or neighbours)",
					 conf_keys[k].name);
	}
	ms = first_of(L, SEC_MBOX);
	if (ms == NULL)
		return conf_fail(L, gs->key_line[K_GW_MODE], "mode: middlebox needs a [middlebox] "
				 "section (ports = A, B: the pair it bridges)");
	if (L->cfg->n_ports == 0)
		return conf_fail(L, 0, "no [port] sections");
	L->cfg->mbox.line = ms->line;
	if (check_pair(L, ms) != 0)
		return -1;
	return check_hosts(L);
}

int
conf_mbox_cross_check(struct loader *L)
{
	return L->cfg->mode == GW_MODE_MIDDLEBOX ? check_middlebox_mode(L) : check_gateway_mode(L);
}
