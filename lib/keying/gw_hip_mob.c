/* SPDX-License-Identifier: BSD-3-Clause
 * Locator mobility on the control lcore (RFC 8046): the HIP engine's path
 * callback and the control lcore's address hook, between lib/hip and the
 * data path.
 *
 *  - Our address changes (gw_ctrl_set_address: the telemetry command, a DHCP
 *    lease): on_address gives the engine the port's new address as our
 *    locator (hip_host_set_locators), which sends each established peer an
 *    UPDATE with LOCATOR_SET from it and moves the association's local
 *    address at once (RFC 8046 section 3.2.1).
 *  - A path changes (our move, or a peer locator that passed the
 *    return-routability check, RFC 8046 5.4): io_path moves the peer's
 *    outbound SA to the new outer addresses (esp_sa_set_path: one atomic
 *    swap of the outer header the workers read; sequence numbers, keys and
 *    the anti-replay state untouched) and fits its limits to the new path's
 *    MTU. Inbound SAs are found by SPI alone: ESP from the new locator is
 *    taken as from the old one.
 *
 * One outer port per address family carries the peers: the engine moves
 * every association of the family to the new address. With multihoming
 * (gw_hip_mh.c, two or more uplinks) our locators are every uplink's
 * address instead, and each association stays on the path it uses.
 */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>

#include "gw_hip_internal.h"
#include "gw_pmtu.h"
#include "gw_statsink.h"
#include "hip_host.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

void
gw_hip_io_path(void *arg, void *user, const struct gw_addr *local, const struct gw_addr *remote)
{
	struct gw_hip *g = arg;
	struct gw_peer *p = user;
	struct gw_sa *sa = gw_sadb_out(&g->ctx->sadb, (uint32_t)p->slot);
	char l[64], r[64];
	struct esp_path path;
	int op, rc;

	gw_addr_str(local, l, sizeof(l));
	gw_addr_str(remote, r, sizeof(r));
	p->path_moves++;
	if (sa == NULL) {      /* no out SA yet: the next one is made with these addresses */
		LOG(INFO, "peer %s: path %s -> %s (no out SA yet)\n", p->conf->name, l, r);
		return;
	}
	esp_sa_path(sa->esp, &path);
	path.local = *local;
	path.remote = *remote;
	rc = esp_sa_set_path(sa->esp, &path, g->ctx->sadb.rcu, true);
	op = gw_outer_port_of(g->ctx, local);
	if (rc != 0 || op < 0) {
		LOG(ERR, "peer %s: out SA 0x%08x cannot move to %s -> %s (%d, port %d)\n",
		    p->conf->name, sa->spi, l, r, rc, op);
		return;
	}
	gw_sa_out_limits(g->ctx, sa, op);
	LOG(NOTICE, "peer %s: out SA 0x%08x now %s -> %s\n", p->conf->name, sa->spi, l, r);
}

/* gw_ctrl_addr_hook: outer port `port`'s address old became new_addr. */
static void
on_address(void *arg, unsigned port, const struct gw_prefix *old, const struct gw_prefix *new_addr)
{
	struct gw_hip *g = arg;
	char o[64] = "none", n[64];
	int rc;

	if (old != NULL)
		gw_addr_str(&old->a, o, sizeof(o));
	gw_addr_str(&new_addr->a, n, sizeof(n));
	if (gw_hip_mh_locators(g, gw_hip_now_ns()))
		rc = -1;   /* multihoming: every uplink's address, each peer on its path */
	else
		rc = hip_host_set_locators(g->host, &new_addr->a, 1, 0, false, gw_hip_now_ns());
	g->locator_changes++;
	LOG(NOTICE, "HIP: port %s: our locator %s (was %s): %d peer(s) told by UPDATE\n",
	    g->ctx->ports[port].name, n, o, rc);
}

int
gw_hip_mob_init(struct gw_hip *g)
{
	const struct gw_ctrl_addr_hook h = { .ctx = g, .on_address = on_address };

	if (gw_ctrl_add_address_hook(g->ctrl, &h) != 0)
		return -1;
	return gw_hip_mh_init(g);   /* multihoming (RFC 8047), over mobility's UPDATEs */
}

/* ---- the peers' locators for the stats (and multihoming's tick) ---- */

void
gw_hip_mob_tick(struct gw_hip *g, uint64_t now)
{
	if (!g->closing)
		gw_hip_mh_tick(g, now);
	if (now - g->locs_ns < GW_HIP_LOCS_MS * 1000000ull)
		return;
	g->locs_ns = now;
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];
		struct hip_peer_info pi;

		if (hip_host_peer_info(g->host, p, &pi) != 0)
			continue;
		__atomic_store_n(&p->locs.seq, p->locs.seq + 1, __ATOMIC_RELAXED);   /* odd: writing */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		p->locs.local = pi.local;
		p->locs.remote = pi.remote;
		p->locs.n_peer = RTE_MIN(pi.n_peer_locators, (unsigned)HIP_MAX_LOCATORS);
		memcpy(p->locs.peer, pi.peer_locators, p->locs.n_peer * sizeof(p->locs.peer[0]));
		p->locs.udp = pi.udp;
		__atomic_store_n(&p->locs.seq, p->locs.seq + 1, __ATOMIC_RELEASE);
	}
}

static const char *
loc_state_name(enum hip_locator_state st)
{
	switch (st) {
	case HIP_LOC_UNVERIFIED: return "unverified";
	case HIP_LOC_VERIFIED: return "verified";
	case HIP_LOC_ACTIVE: return "active";
	}
	return "?";
}

void
gw_hip_locs_emit(const struct gw_peer *p, struct gw_stat_sink *s)
{
	struct gw_peer_locs c;
	char a[64];
	uint32_t seq;

	for (unsigned tries = 0;; tries++) {   /* a consistent copy (the writer is brief) */
		seq = __atomic_load_n(&p->locs.seq, __ATOMIC_ACQUIRE);
		memcpy(&c, &p->locs, sizeof(c));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((seq & 1) == 0 && seq == __atomic_load_n(&p->locs.seq, __ATOMIC_RELAXED))
			break;
		if (tries == 1000)
			return;
	}
	s->str(s, "local", c.local.family ? gw_addr_str(&c.local, a, sizeof(a)) : "");
	s->str(s, "remote", c.remote.family ? gw_addr_str(&c.remote, a, sizeof(a)) : "");
	s->u64(s, "udp_lport", c.udp.lport);
	s->u64(s, "udp_rport", c.udp.rport);
	s->begin(s, "locators");    /* "lN": "ADDRESS STATE[ preferred]", in the peer's order */
	for (unsigned i = 0; i < c.n_peer && i < HIP_MAX_LOCATORS; i++) {
		char name[8], v[96];

		snprintf(name, sizeof(name), "l%u", i);
		snprintf(v, sizeof(v), "%s %s%s", gw_addr_str(&c.peer[i].addr, a, sizeof(a)),
			 loc_state_name(c.peer[i].state), c.peer[i].preferred ? " preferred" : "");
		s->str(s, name, v);
	}
	s->end(s);
}
