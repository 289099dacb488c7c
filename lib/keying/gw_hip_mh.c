/* SPDX-License-Identifier: BSD-3-Clause
 * Multihoming on the control lcore (RFC 8047, host multihoming: section
 * 4.1): a gateway with two or more uplinks (outer ports with
 * uplink-preference) keeps its HIP associations on a working one. Per peer
 * a path set (lib/hip/hip_multihome.c) of (uplink address, the peer's
 * locator in use) pairs:
 *
 *  - Links: every GW_HIP_MH_LINK_MS each uplink's link state is read
 *    (rte_eth_link_get_nowait; for net_af_packet, whose PMD reports its
 *    link up whatever the interface does, the kernel interface's
 *    IFF_RUNNING, the carrier): a link down makes its paths down at once.
 *  - Probes: every multihome-probe-interval ms an ICMPv6 echo from our HIT
 *    to the peer's over each path (gw_hip_beet.c: the out SA, the path's
 *    outer addresses, out of its uplink to that uplink's gateway), answered
 *    by the peer back over the path. No public-key operation.
 *  - Moves (failover, failback): a host route to the peer's locator through
 *    the new uplink's gateway (the data path routes ESP by its outer
 *    destination, so this picks the uplink of the SA's packets and of the
 *    HIP packets), then hip_host_set_local: io.path moves the out SA
 *    (esp_sa_set_path, gw_hip_mob.c) and an UPDATE with our LOCATOR_SET,
 *    the P bit on the new locator, tells the peer, which checks it
 *    (RFC 8046 5.4) and moves its SA there.
 *
 * Inbound ESP is found by SPI alone (any of our addresses, any source), so
 * both directions of a move pass while the peer's check runs.
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "gw_hip_internal.h"
#include "gw_pmtu.h"
#include "gw_statsink.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

#define GW_HIP_MH_LINK_MS  50      /* ms between two reads of the uplinks' links */
#define GW_HIP_MH_COPY_MS  100     /* ms between two rebuilds of the path sets and their
				    * copies for telemetry */

struct gw_mh_uplink {
	uint16_t port;                 /* outer port index */
	uint8_t pref;                  /* uplink-preference */
	bool link_up;
	char iface[IFNAMSIZ];          /* net_af_packet's iface=, "" otherwise */
};

struct gw_hip_mh {
	struct gw_mh_uplink up[HIP_MH_LOCAL_MAX];
	unsigned n;
	int sock;                      /* for SIOCGIFFLAGS; -1 none */
	uint64_t link_ns, copy_ns;
	uint64_t now;                  /* of the tick in progress (the callbacks' time) */
};

static const struct gw_addr *
uplink_gateway(const struct gw_hip *g, unsigned port, uint8_t family)
{
	const struct gw_conf_port *pc = &g->ctx->cfg->ports[port];
	const struct gw_addr *gw = family == 4 ? &pc->gateway4 : &pc->gateway6;

	return gw->family != 0 ? gw : NULL;
}

/* Our uplinks' current source addresses of `family` (0: both), by
 * preference, into our[] (at most HIP_MH_LOCAL_MAX). */
static unsigned
uplink_locals(const struct gw_hip *g, uint8_t family, struct hip_mh_local *our)
{
	const struct gw_hip_mh *mh = g->mh;
	unsigned n = 0;

	for (unsigned u = 0; u < mh->n && n < HIP_MH_LOCAL_MAX; u++) {
		const struct gw_port_addrs *pa = &g->ctx->ports[mh->up[u].port].addrs;

		for (uint8_t f = 4; f <= 6 && n < HIP_MH_LOCAL_MAX; f += 2) {
			struct gw_prefix a;
			int i;

			if (family != 0 && f != family)
				continue;
			i = gw_paddr_source(pa, f);
			if (i < 0 || !gw_paddr_read(pa, (unsigned)i, &a))
				continue;
			our[n].addr = a.a;
			our[n].port = mh->up[u].port;
			our[n].pref = mh->up[u].pref;
			n++;
		}
	}
	return n;
}

bool
gw_hip_mh_locators(struct gw_hip *g, uint64_t now)
{
	struct hip_mh_local our[HIP_MH_LOCAL_MAX];
	struct gw_addr locs[HIP_MH_LOCAL_MAX];
	unsigned n;

	if (g->mh == NULL)
		return false;
	n = uplink_locals(g, 0, our);
	for (unsigned i = 0; i < n; i++)
		locs[i] = our[i].addr;
	/* the preferred uplink's first: set_locators moves every association
	 * there; one whose active path is on another uplink still listed goes
	 * back to it (the later UPDATE supersedes the first) */
	if (n == 0 || hip_host_set_locators(g->host, locs, n, 0, false, now) < 0)
		return true;
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];
		const struct hip_mh_path *a = hip_mh_active(&p->mh);

		p->mh_announced = true;   /* set_locators announced */
		for (unsigned k = 1; a != NULL && k < n; k++)
			if (our[k].port == a->port && memcmp(&locs[k], &a->local, sizeof(locs[k])) == 0)
				hip_host_set_local(g->host, p, &a->local, now);
	}
	return true;
}

/* hip_mh_cfg.send: the probe over the path. */
static int
probe_send(void *ctx, void *user, const struct hip_mh_path *path, uint32_t seq)
{
	struct gw_hip *g = ctx;

	return gw_hip_mh_probe_send(user, &path->local, &path->remote, path->port,
				    uplink_gateway(g, path->port, path->remote.family), seq);
}

/* The host route to `remote` through uplink `port`'s gateway (on-link
 * without one). 0 or -1. */
static int
route_via(struct gw_hip *g, const struct gw_addr *remote, unsigned port)
{
	struct gw_prefix dst = { .a = *remote, .len = remote->family == 4 ? 32 : 128 };

	return gw_routes_add(&g->ctx->routes, &dst, (uint16_t)port,
			     uplink_gateway(g, port, remote->family));
}

/* hip_mh_cfg.move: the SAs to the path (failover or failback). */
static void
path_move(void *ctx, void *user, const struct hip_mh_path *path)
{
	struct gw_hip *g = ctx;
	struct gw_peer *p = user;
	char l[64], r[64];
	int rc;

	gw_addr_str(&path->local, l, sizeof(l));
	gw_addr_str(&path->remote, r, sizeof(r));
	if (route_via(g, &path->remote, path->port) != 0) {
		LOG(ERR, "peer %s: no route to %s via port %s: stays\n", p->conf->name, r,
		    g->ctx->ports[path->port].name);
		return;
	}
	rc = hip_host_set_local(g->host, p, &path->local, g->mh->now);
	LOG(NOTICE, "peer %s: multihoming: path %s -> %s (port %s) now in use%s\n", p->conf->name,
	    l, r, g->ctx->ports[path->port].name, rc == 1 ? ", UPDATE with LOCATOR_SET sent" : "");
}

/* "iface=NAME" of a net_af_packet device string into buf, else "". */
static void
af_packet_iface(const char *dev, char *buf, size_t len)
{
	const char *i = strstr(dev, "iface=");
	size_t n;

	buf[0] = '\0';
	if (strncmp(dev, "net_af_packet", 13) != 0 || i == NULL)
		return;
	i += 6;
	n = strcspn(i, ",");
	if (n >= len)
		return;
	memcpy(buf, i, n);
	buf[n] = '\0';
}

int
gw_hip_mh_init(struct gw_hip *g)
{
	const struct gw_config *cfg = g->ctx->cfg;
	struct hip_mh_cfg mc = {
		.interval_ns = (cfg->mh_probe_ms ? cfg->mh_probe_ms : 1000) * 1000000ull,
		.misses = cfg->mh_misses ? cfg->mh_misses : HIP_MH_MISSES_DEFAULT,
		.hysteresis_ns = (cfg->mh_failback_ms ? cfg->mh_failback_ms : 5000) * 1000000ull,
		.ctx = g, .send = probe_send, .move = path_move,
	};
	struct gw_hip_mh *mh;
	unsigned n = 0;

	for (unsigned i = 0; i < cfg->n_ports && i < g->ctx->n_ports; i++)
		n += cfg->ports[i].role == GW_ROLE_OUTER && cfg->ports[i].uplink_pref != 0;
	if (n < 2)
		return 0;
	mh = calloc(1, sizeof(*mh));
	if (mh == NULL)
		return -1;
	/* the uplinks by preference (file order among equals) */
	for (uint16_t pr = 1; pr != 0 && pr <= 255 && mh->n < HIP_MH_LOCAL_MAX; pr++) {
		for (unsigned i = 0; i < cfg->n_ports && mh->n < HIP_MH_LOCAL_MAX; i++) {
			struct gw_mh_uplink *u = &mh->up[mh->n];

			if (cfg->ports[i].role != GW_ROLE_OUTER || cfg->ports[i].uplink_pref != pr)
				continue;
			u->port = (uint16_t)i;
			u->pref = (uint8_t)pr;
			u->link_up = true;
			af_packet_iface(cfg->ports[i].device, u->iface, sizeof(u->iface));
			mh->n++;
		}
	}
	mh->sock = socket(AF_INET, SOCK_DGRAM, 0);
	g->mh = mh;
	for (unsigned i = 0; i < g->n_peers; i++) {
		const struct gw_conf_peer *pc = g->peers[i].conf;

		hip_mh_init(&g->peers[i].mh, &mc, &g->peers[i]);
		for (unsigned k = 0; k < pc->n_locators; k++)   /* the BEX's way: the best uplink */
			if (route_via(g, &pc->locators[k], mh->up[0].port) != 0)
				LOG(WARNING, "peer %s: no host route for locator %u\n", pc->name, k + 1);
	}
	gw_hip_mh_locators(g, gw_hip_now_ns());
	LOG(NOTICE, "HIP: multihoming over %u uplinks, probes every %u ms, down after %u, "
	    "failback after %u ms\n", mh->n, (unsigned)(mc.interval_ns / 1000000),
	    mc.misses, (unsigned)(mc.hysteresis_ns / 1000000));
	return 0;
}

void
gw_hip_mh_free(struct gw_hip *g)
{
	if (g->mh == NULL)
		return;
	if (g->mh->sock >= 0)
		close(g->mh->sock);
	free(g->mh);
	g->mh = NULL;
}

/* The uplink's link: the PMD's report, and the interface's carrier for
 * net_af_packet (the control lcore: an ioctl, not on the data path). */
static bool
link_is_up(const struct gw_hip *g, const struct gw_mh_uplink *u)
{
	struct rte_eth_link l;
	struct ifreq ifr;

	memset(&l, 0, sizeof(l));
	if (rte_eth_link_get_nowait(g->ctx->ports[u->port].port_id, &l) == 0 &&
	    l.link_status == RTE_ETH_LINK_DOWN)
		return false;
	if (u->iface[0] == '\0' || g->mh->sock < 0)
		return true;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", u->iface);
	if (ioctl(g->mh->sock, SIOCGIFFLAGS, &ifr) != 0)
		return true;
	return (ifr.ifr_flags & IFF_RUNNING) != 0;
}

static void
links_poll(struct gw_hip *g, uint64_t now)
{
	struct gw_hip_mh *mh = g->mh;

	for (unsigned u = 0; u < mh->n; u++) {
		bool up = link_is_up(g, &mh->up[u]);

		if (up == mh->up[u].link_up)
			continue;
		mh->up[u].link_up = up;
		LOG(NOTICE, "HIP: multihoming: uplink %s link %s\n",
		    g->ctx->ports[mh->up[u].port].name, up ? "up" : "down");
		for (unsigned i = 0; i < g->n_peers; i++)
			hip_mh_link(&g->peers[i].mh, mh->up[u].port, up, now);
	}
}

/* p's paths from the engine's view: our uplinks' addresses with the
 * peer's locator in use (its own mobility picks that one). Not
 * ESTABLISHED: none. The link state carried into new paths. */
static void
peer_paths(struct gw_hip *g, struct gw_peer *p, uint64_t now)
{
	struct hip_mh_local our[HIP_MH_LOCAL_MAX];
	struct hip_peer_info pi;
	unsigned n;

	if (hip_host_peer_info(g->host, p, &pi) != 0 || pi.state != HIP_STATE_ESTABLISHED ||
	    gw_sadb_out(&g->ctx->sadb, p->slot) == NULL) {
		p->mh_announced = false;
		hip_mh_set_paths(&p->mh, NULL, 0, NULL, 0, NULL, NULL);
		return;
	}
	if (!p->mh_announced) {   /* the peer learns every uplink's locator (RFC 8047 4.1) */
		p->mh_announced = true;
		hip_host_set_local(g->host, p, &pi.local, now);
	}
	n = uplink_locals(g, pi.remote.family, our);
	hip_mh_set_paths(&p->mh, our, n, &pi.remote, 1, &pi.local, &pi.remote);
	for (unsigned u = 0; u < g->mh->n; u++)
		if (!g->mh->up[u].link_up)
			hip_mh_link(&p->mh, g->mh->up[u].port, false, now);
}

static void
paths_copy(struct gw_peer *p)
{
	__atomic_store_n(&p->mh_seq, p->mh_seq + 1, __ATOMIC_RELAXED);   /* odd: writing */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&p->mh_copy, &p->mh, sizeof(p->mh_copy));
	__atomic_store_n(&p->mh_seq, p->mh_seq + 1, __ATOMIC_RELEASE);
}

void
gw_hip_mh_tick(struct gw_hip *g, uint64_t now)
{
	struct gw_hip_mh *mh = g->mh;
	bool copy;

	if (mh == NULL)
		return;
	mh->now = now;
	if (now - mh->link_ns >= GW_HIP_MH_LINK_MS * 1000000ull) {
		mh->link_ns = now;
		links_poll(g, now);
	}
	/* the path sets rebuilt and copied every GW_HIP_MH_COPY_MS (a move
	 * updates the set itself in between); probes and moves at every tick */
	copy = now - mh->copy_ns >= GW_HIP_MH_COPY_MS * 1000000ull;
	if (copy)
		mh->copy_ns = now;
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];

		if (copy)
			peer_paths(g, p, now);
		hip_mh_tick(&p->mh, now);
		if (copy)
			paths_copy(p);
	}
}

void
gw_hip_mh_answer(struct gw_peer *p, uint32_t seq, const struct gw_addr *local,
		 const struct gw_addr *remote, unsigned rx_port)
{
	struct gw_hip *g = p->g;
	uint64_t now = gw_hip_now_ns();

	if (g->mh == NULL)
		return;
	g->mh->now = now;
	/* over the path: it came in on the uplink of the path's local address */
	if (gw_outer_port_of(g->ctx, local) != (int)rx_port) {
		p->mh.st.probe_stale++;
		return;
	}
	hip_mh_probe_answer(&p->mh, seq, local, remote, now);
}

void
gw_hip_mh_emit(const struct gw_peer *p, struct gw_stat_sink *s)
{
	const struct gw_hip *g = p->g;
	struct hip_mh_set c;
	uint32_t seq;

	if (g->mh == NULL)
		return;
	for (unsigned tries = 0;; tries++) {   /* a consistent copy (the writer is brief) */
		seq = __atomic_load_n(&p->mh_seq, __ATOMIC_ACQUIRE);
		memcpy(&c, &p->mh_copy, sizeof(c));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((seq & 1) == 0 && seq == __atomic_load_n(&p->mh_seq, __ATOMIC_RELAXED))
			break;
		if (tries == 1000)
			return;
	}
	s->begin(s, "multihome");
#define X(f) s->u64(s, #f, c.st.f);
	X(probes_tx) X(probes_ok) X(probes_lost) X(probe_stale)
	X(path_up) X(path_down) X(failovers) X(failbacks)
#undef X
	/* "pN": "LOCAL -> REMOTE port STATE rtt_us=N[ active]", in rank order */
	s->begin(s, "paths");
	for (unsigned i = 0; i < c.n && i < HIP_MH_PATHS_MAX; i++) {
		const struct hip_mh_path *x = &c.path[i];
		char name[8], v[160], l[64], r[64];

		snprintf(name, sizeof(name), "p%u", i);
		snprintf(v, sizeof(v), "%s -> %s %s %s rtt_us=%llu%s",
			 gw_addr_str(&x->local, l, sizeof(l)), gw_addr_str(&x->remote, r, sizeof(r)),
			 g->ctx->ports[x->port].name, hip_mh_state_name(x->state),
			 (unsigned long long)(x->rtt_ns / 1000), c.active == (int)i ? " active" : "");
		s->str(s, name, v);
	}
	s->end(s);
	s->end(s);
}
