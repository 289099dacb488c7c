/* SPDX-License-Identifier: BSD-3-Clause
 * Host multihoming (RFC 8047): path ranking, probe bookkeeping, failover
 * and failback for one peer (hip_multihome.h has the states and rules).
 */
#include <string.h>

#include "hip_multihome.h"

const char *
hip_mh_state_name(enum hip_mh_state st)
{
	switch (st) {
	case HIP_MH_UNKNOWN: return "unknown";
	case HIP_MH_UP: return "up";
	case HIP_MH_DOWN: return "down";
	}
	return "?";
}

void
hip_mh_init(struct hip_mh_set *s, const struct hip_mh_cfg *cfg, void *user)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (s->cfg.interval_ns == 0)
		s->cfg.interval_ns = HIP_MH_INTERVAL_NS_DEFAULT;
	if (s->cfg.misses == 0)
		s->cfg.misses = HIP_MH_MISSES_DEFAULT;
	s->user = user;
	s->active = -1;
	s->next_seq = 1;
}

/* Rank order: port preference, then the peer locator's place, then ours. */
static bool
ranks_before(const struct hip_mh_path *x, unsigned xo, const struct hip_mh_path *y, unsigned yo)
{
	if (x->pref != y->pref)
		return x->pref < y->pref;
	if (x->peer_rank != y->peer_rank)
		return x->peer_rank < y->peer_rank;
	return xo < yo;
}

int
hip_mh_set_paths(struct hip_mh_set *s, const struct hip_mh_local *our, unsigned n_our,
		 const struct gw_addr *peer, unsigned n_peer,
		 const struct gw_addr *cur_local, const struct gw_addr *cur_remote)
{
	struct hip_mh_path np[HIP_MH_PATHS_MAX];
	unsigned order[HIP_MH_PATHS_MAX];
	unsigned n = 0;

	if (s == NULL || n_our > HIP_MH_LOCAL_MAX || n_peer > HIP_MH_PEER_MAX ||
	    (n_our > 0 && our == NULL) || (n_peer > 0 && peer == NULL))
		return -1;
	for (unsigned r = 0; r < n_peer; r++) {
		for (unsigned o = 0; o < n_our; o++) {
			struct hip_mh_path *p = &np[n];
			unsigned at = n;

			if (our[o].addr.family == 0 || our[o].addr.family != peer[r].family)
				continue;
			memset(p, 0, sizeof(*p));
			p->local = our[o].addr;
			p->remote = peer[r];
			p->port = our[o].port;
			p->pref = our[o].pref;
			p->peer_rank = (uint8_t)r;
			for (unsigned x = 0; x < s->n; x++) {   /* kept: its state */
				const struct hip_mh_path *old = &s->path[x];

				if (gw_addr_eq(&old->local, &p->local) && gw_addr_eq(&old->remote, &p->remote) &&
				    old->port == p->port) {
					*p = *old;
					p->pref = our[o].pref;
					p->peer_rank = (uint8_t)r;
					break;
				}
			}
			/* insertion into rank order */
			while (at > 0 && ranks_before(p, n, &np[order[at - 1]], order[at - 1])) {
				order[at] = order[at - 1];
				at--;
			}
			order[at] = n;
			n++;
		}
	}
	s->n = n;
	s->active = -1;
	for (unsigned x = 0; x < n; x++) {
		s->path[x] = np[order[x]];
		if (cur_local != NULL && cur_remote != NULL && s->active < 0 &&
		    gw_addr_eq(&s->path[x].local, cur_local) && gw_addr_eq(&s->path[x].remote, cur_remote))
			s->active = (int)x;
	}
	return (int)n;
}

static void
set_down(struct hip_mh_set *s, struct hip_mh_path *p)
{
	if (p->state != HIP_MH_DOWN)
		s->st.path_down++;
	p->state = HIP_MH_DOWN;
	p->answering = false;
}

static void
move_to(struct hip_mh_set *s, int to)
{
	s->active = to;
	if (s->cfg.move != NULL)
		s->cfg.move(s->cfg.ctx, s->user, &s->path[to]);
}

/* Re-choose the active path: off a down one to the best up one
 * (failover); onto a better ranked one that has answered for the
 * hysteresis time (failback). Paths are in rank order. */
static void
choose(struct hip_mh_set *s, uint64_t now)
{
	int a = s->active;

	if (a < 0 || s->path[a].state == HIP_MH_DOWN) {
		for (unsigned x = 0; x < s->n; x++) {
			if ((int)x != a && s->path[x].state == HIP_MH_UP) {
				s->st.failovers++;   /* also off no path: the SAs' own is not in the set */
				move_to(s, (int)x);
				return;
			}
		}
		return;   /* nowhere better to go: stays (its probes go on) */
	}
	for (int x = 0; x < a; x++) {
		const struct hip_mh_path *p = &s->path[x];

		if (p->state == HIP_MH_UP && p->answering &&
		    now - p->answering_since_ns >= s->cfg.hysteresis_ns) {
			s->st.failbacks++;
			move_to(s, x);
			return;
		}
	}
}

/* Path p's outstanding probe went unanswered: one more miss; `misses` in a
 * row make the path down. */
static void
probe_lost(struct hip_mh_set *s, struct hip_mh_path *p)
{
	p->probe_out = false;
	p->answering = false;
	s->st.probes_lost++;
	if (p->misses < UINT8_MAX)
		p->misses++;
	if (p->misses >= s->cfg.misses)
		set_down(s, p);
}

void
hip_mh_tick(struct hip_mh_set *s, uint64_t now)
{
	/* a probe is lost once unanswered for the timeout, not only when the
	 * next is due: the loss shows HIP_MH_TIMEOUT_DIV-th of an interval
	 * sooner (3 misses of 1 s probes: down 2.5 to 3.5 s after the loss) */
	for (unsigned x = 0; x < s->n; x++) {
		struct hip_mh_path *p = &s->path[x];

		if (p->probe_out && now - p->probe_sent_ns >= s->cfg.interval_ns / HIP_MH_TIMEOUT_DIV)
			probe_lost(s, p);
	}
	if (s->next_probe_ns != 0 && now < s->next_probe_ns) {
		choose(s, now);   /* a path set rebuilt since may need a move */
		return;
	}
	s->next_probe_ns = now + s->cfg.interval_ns;
	for (unsigned x = 0; x < s->n; x++) {
		struct hip_mh_path *p = &s->path[x];

		if (p->probe_out)            /* the last one was not answered */
			probe_lost(s, p);
		if (p->link_down)
			continue;
		p->probe_seq = s->next_seq++;
		if (s->next_seq == 0)
			s->next_seq = 1;     /* 0 is never a probe's */
		p->probe_sent_ns = now;
		p->probe_out = true;
		s->st.probes_tx++;
		if (s->cfg.send != NULL)
			(void)s->cfg.send(s->cfg.ctx, s->user, p, p->probe_seq);
	}
	choose(s, now);
}

int
hip_mh_probe_answer(struct hip_mh_set *s, uint32_t seq, const struct gw_addr *local,
		    const struct gw_addr *remote, uint64_t now)
{
	for (unsigned x = 0; x < s->n; x++) {
		struct hip_mh_path *p = &s->path[x];

		if (!p->probe_out || p->probe_seq != seq || seq == 0)
			continue;
		if (!gw_addr_eq(&p->local, local) || !gw_addr_eq(&p->remote, remote))
			break;   /* that probe's, from elsewhere: not this path's answer */
		p->probe_out = false;
		p->misses = 0;
		p->rtt_ns = now - p->probe_sent_ns;
		s->st.probes_ok++;
		if (!p->answering) {
			p->answering = true;
			p->answering_since_ns = p->probe_sent_ns;
		}
		if (p->state != HIP_MH_UP) {
			p->state = HIP_MH_UP;
			s->st.path_up++;
		}
		choose(s, now);
		return (int)x;
	}
	s->st.probe_stale++;
	return -1;
}

int
hip_mh_link(struct hip_mh_set *s, uint16_t port, bool up, uint64_t now)
{
	int n = 0;

	for (unsigned x = 0; x < s->n; x++) {
		struct hip_mh_path *p = &s->path[x];

		if (p->port != port)
			continue;
		n++;
		if (up == !p->link_down)
			continue;            /* no change */
		p->link_down = !up;
		if (!up) {
			if (p->probe_out)
				s->st.probes_lost++;
			p->probe_out = false;
			set_down(s, p);
		} else {
			p->state = HIP_MH_UNKNOWN;
			p->misses = 0;
			p->answering = false;
		}
	}
	if (n > 0)
		choose(s, now);
	return n;
}

const struct hip_mh_path *
hip_mh_active(const struct hip_mh_set *s)
{
	return s->active < 0 ? NULL : &s->path[s->active];
}
