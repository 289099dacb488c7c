/* SPDX-License-Identifier: BSD-3-Clause
 * Host mobility (RFC 8046): our locators announced in UPDATE, the peer's
 * LOCATOR_SET taken, and the return-routability check of a peer locator
 * before any data goes there. The exchanges (RFC 8046 3.2.1, 3.2.2):
 *
 *   mobile  UPDATE  ESP_INFO(OLD SPI = NEW SPI, or a new SPI), LOCATOR_SET,
 *                   SEQ(m), [DIFFIE_HELLMAN], HIP_MAC, HIP_SIGNATURE
 *                   (from the new address, at once in use here: io.path)
 *   peer    UPDATE  ESP_INFO, SEQ(p), ACK(m), [DIFFIE_HELLMAN],
 *                   ECHO_REQUEST_SIGNED(nonce), ...  to the new locator
 *   mobile  UPDATE  ACK(p), ECHO_RESPONSE_SIGNED(nonce), ...
 *                   (peer: the nonce back from that locator: verified,
 *                   io.path, and a rekey's new SAs go there)
 *
 * The handlers of the UPDATE cells (hip_update.c) call in here; no state
 * or column of their own (hip_fsm.c). One a.tx and one retransmission timer
 * per association: what cannot go out now (our announcement while a rekey
 * is in flight, a check while our announcement is) waits for hip_mob_kick.
 * Checks run one at a time per association, each a packet and at most
 * HIP_UPDATE_RETRIES_MAX resends: an address a peer announces gets no
 * more than that per check (RFC 8046 6, flooding).
 *
 * Credit-based authorization (RFC 8046 3.3.2, 5.6, a MAY) is not done:
 * until the check passes the outbound SAs stay on the verified locator
 * (docs/design.md, "The HIP engine: mobility").
 */
#include <string.h>

#include "hip_internal.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* A locator's 16 bytes (IPv6, or IPv4-mapped IPv6) as an address: false
 * for what cannot be a peer's unicast address (RFC 8046 5.3: no multicast
 * or broadcast; nor unspecified). */
static bool
loc_addr(const uint8_t b[16], struct gw_addr *out)
{
	static const uint8_t zero[16];

	memset(out, 0, sizeof(*out));
	if (memcmp(b, v4mapped, sizeof(v4mapped)) == 0) {
		out->family = 4;
		memcpy(out->addr, b + 12, 4);
		return b[12] != 0 && b[12] < 224;   /* 0/8, multicast 224/4, 240/4 and broadcast */
	}
	out->family = 6;
	memcpy(out->addr, b, 16);
	return memcmp(b, zero, 16) != 0 && b[0] != 0xff;
}

static void
addr_loc(const struct gw_addr *a, uint8_t b[16])
{
	if (a->family == 4) {
		memcpy(b, v4mapped, sizeof(v4mapped));
		memcpy(b + 12, a->addr, 4);
	} else {
		memcpy(b, a->addr, 16);
	}
}

bool
hip_mob_tx_free(const struct hip_assoc *a)
{
	return a->rekey == HIP_REKEY_NONE && a->mob_tx == HIP_MOB_TX_NONE;
}

void
hip_mob_reset(struct hip_assoc *a)
{
	a->n_peer_loc = 0;
	a->our_verified = 0;
	a->mob_tx = HIP_MOB_TX_NONE;
	a->loc_pending = a->loc_pending_rekey = false;
	a->rr_pending = a->rr_in_rekey = false;
	a->tx_dst_set = false;
	a->dup_answers = 0;
	memset(a->rr_nonce, 0, sizeof(a->rr_nonce));
}

void
hip_mob_path(struct hip_assoc *a)
{
	const struct hip_io *io = &a->h->cfg.io;

	if (a->rekey != HIP_REKEY_NONE) {   /* staged SAs follow */
		a->rk_in.local = a->rk_out.local = a->local;
		a->rk_in.remote = a->rk_out.remote = a->remote;
	}
	a->h->st.path_changes++;
	if (io->path != NULL)
		io->path(io->ctx, a->user, &a->local, &a->remote);
}

void
hip_mob_our_set(const struct hip_assoc *a, uint32_t spi, struct hip_locator_set *ls,
		uint8_t buf[][20])
{
	const struct hip_host *h = a->h;

	memset(ls, 0, sizeof(*ls));
	for (unsigned x = 0; x < h->n_our_loc; x++) {
		struct hip_locator *l = &ls->loc[ls->n++];

		/* type 1 (RFC 8046 4.2): the SPI the peer sends to it with, and the address */
		hip_put32(buf[x], spi);
		addr_loc(&h->our_loc[x], buf[x] + 4);
		l->traffic_type = HIP_LOCATOR_TRAFFIC_BOTH;
		l->locator_type = HIP_LOCATOR_TYPE_ESP_SPI_IPV6;
		l->locator_len = 20;
		l->locator = buf[x];
		l->lifetime = HIP_LOCATOR_LIFETIME_S;
		l->preferred = gw_addr_eq(&h->our_loc[x], &a->local);   /* 4.1: the one to use */
	}
}

int
hip_mob_announce(struct hip_assoc *a, bool rekey, uint64_t now)
{
	struct hip_host *h = a->h;
	uint8_t buf[HIP_MAX_LOCATORS][20];
	struct hip_locator_set ls;
	struct hip_esp_info ei = { .old_spi = a->spi_in, .new_spi = a->spi_in };
	struct hip_upd_out out = { .ei = &ei, .loc = &ls, .seq = &a->mob_seq };

	a->loc_pending = a->loc_pending_rekey = false;
	if (rekey) {
		/* RFC 8046 3.2.2: the rekey's UPDATE carries the LOCATOR_SET;
		 * its type 1 locators name the new inbound SPI */
		if (a->rekey_spi_in == 0 && h->cfg.io.spi_alloc != NULL)
			a->rekey_spi_in = h->cfg.io.spi_alloc(h->cfg.io.ctx);
		hip_mob_our_set(a, a->rekey_spi_in, &ls, buf);
		if (a->rekey_spi_in != 0 && hip_update_start_loc(a, &ls, now) == 0) {
			h->st.loc_tx++;
			return 0;
		}
		/* no rekey possible now: announce without one */
	}
	hip_mob_our_set(a, a->spi_in, &ls, buf);
	a->mob_seq = a->update_id++;
	if (hip_update_send(a, &a->tx, &out) != 0)
		return -1;
	a->mob_tx = HIP_MOB_TX_LOC;
	hip_rtx_arm(a, HIP_UPDATE_RETRIES_MAX, now);
	h->st.loc_tx++;
	return 0;
}

int
hip_mob_echo_new(struct hip_assoc *a, struct hip_echo *e)
{
	if (hip_rand(a->h, a->rr_nonce, sizeof(a->rr_nonce)) != 0)
		return -1;
	a->rr_addr = a->rr_next;
	a->rr_pending = false;
	e->type = HIP_PARAM_ECHO_REQUEST_SIGNED;
	e->data = a->rr_nonce;
	e->len = sizeof(a->rr_nonce);
	return 0;
}

/* A queued check, alone: UPDATE(ESP_INFO, SEQ, ECHO_REQUEST_SIGNED) to the
 * locator (its ACK was sent when the LOCATOR_SET came). */
static void
rr_start(struct hip_assoc *a, uint64_t now)
{
	struct hip_esp_info ei = { .old_spi = a->spi_in, .new_spi = a->spi_in };
	struct hip_echo req;
	struct hip_upd_out out = { .ei = &ei, .seq = &a->mob_seq, .echo_req = &req };

	if (hip_mob_echo_new(a, &req) != 0)
		return;
	out.dst = &a->rr_addr;
	a->mob_seq = a->update_id++;
	if (hip_update_send(a, &a->tx, &out) != 0)
		return;
	a->mob_tx = HIP_MOB_TX_ECHO;
	hip_rtx_arm(a, HIP_UPDATE_RETRIES_MAX, now);
	a->tx_dst_set = true;
	a->tx_dst = a->rr_addr;
	a->h->st.rr_tx++;
}

void
hip_mob_kick(struct hip_assoc *a, uint64_t now)
{
	if (a->state != HIP_STATE_ESTABLISHED || !hip_mob_tx_free(a))
		return;
	if (a->loc_pending)
		hip_mob_announce(a, a->loc_pending_rekey, now);
	else if (a->rr_pending)
		rr_start(a, now);
}

void
hip_mob_give_up(struct hip_assoc *a, uint64_t now)
{
	if (a->mob_tx == HIP_MOB_TX_ECHO)
		a->h->st.rr_failed++;   /* the locator stays UNVERIFIED, no data goes there */
	a->mob_tx = HIP_MOB_TX_NONE;
	hip_rtx_stop(a);
	hip_mob_kick(a, now);
}

/* The peer's locator entry for addr, or NULL. */
static struct hip_locator_info *
peer_loc(struct hip_assoc *a, const struct gw_addr *addr)
{
	for (unsigned x = 0; x < a->n_peer_loc; x++)
		if (gw_addr_eq(&a->peer_loc[x].addr, addr))
			return &a->peer_loc[x];
	return NULL;
}

int
hip_mob_locators_in(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u)
{
	struct hip_host *h = a->h;
	struct hip_locator_info l[HIP_LOCATOR_SET_MAX];
	unsigned n = 0;
	int pick = -1;

	/* RFC 8046 5.3: each locator of a type we know and a unicast address;
	 * the others are ignored, and when none is left the sender hears
	 * LOCATOR_TYPE_UNSUPPORTED (RFC 8046 7) */
	for (unsigned x = 0; x < u->ls.n; x++) {
		const struct hip_locator *w = &u->ls.loc[x];
		struct hip_locator_info *o = &l[n];
		const uint8_t *b = w->locator;

		memset(o, 0, sizeof(*o));
		if (w->locator_type == HIP_LOCATOR_TYPE_ESP_SPI_IPV6) {
			o->spi = hip_get32(b);
			b += 4;
		} else if (w->locator_type != HIP_LOCATOR_TYPE_IPV6) {
			continue;
		}
		if (!loc_addr(b, &o->addr) || w->traffic_type > HIP_LOCATOR_TRAFFIC_DATA)
			continue;
		o->lifetime_s = w->lifetime;
		o->preferred = w->preferred;
		/* the one to move to: of our family (an outer header of the
		 * SAs' family), the preferred one first (4.1) */
		if (o->addr.family == a->local.family &&
		    w->traffic_type != HIP_LOCATOR_TRAFFIC_SIGNALING &&
		    (pick < 0 || (o->preferred && !l[pick].preferred)))
			pick = (int)n;
		n++;
	}
	if (n == 0 || pick < 0) {
		uint8_t d[2];

		hip_put16(d, HIP_PARAM_LOCATOR_SET);
		hip_notify_send(h, a->peer_hit, &a->local, rx->src, &rx->udp,
				HIP_NOTIFY_LOCATOR_TYPE_UNSUPPORTED,
				d, sizeof(d), rx->now);
		return hip_drop(h, &h->st.drop_locator_type, HIP_E_PARAM_VALUE);
	}
	for (unsigned x = 0; x < n; x++) {
		const struct hip_locator_info *old = peer_loc(a, &l[x].addr);

		/* kept: what was verified before; the one in use stays ACTIVE */
		l[x].state = gw_addr_eq(&l[x].addr, &a->remote) ? HIP_LOC_ACTIVE :
			     old != NULL && old->state != HIP_LOC_UNVERIFIED ? HIP_LOC_VERIFIED :
			     HIP_LOC_UNVERIFIED;
	}
	memcpy(a->peer_loc, l, n * sizeof(l[0]));
	a->n_peer_loc = n;
	h->st.loc_rx++;
	if (gw_addr_eq(&l[pick].addr, &a->remote))
		return 0;   /* in use already */
	a->rr_next = l[pick].addr;
	return 1;
}

int
hip_mob_echo_check(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u)
{
	struct hip_host *h = a->h;
	struct hip_locator_info *l;

	if (rx->p->echo_resp_signed == NULL || u->echo_resp.len != sizeof(a->rr_nonce) ||
	    memcmp(u->echo_resp.data, a->rr_nonce, sizeof(a->rr_nonce)) != 0)
		return hip_drop(h, &h->st.drop_echo, HIP_E_HOST_AUTH);
	if (!gw_addr_eq(rx->src, &a->rr_addr))
		return hip_drop(h, &h->st.drop_echo_addr, HIP_E_HOST_AUTH);
	/* RFC 8046 5.4: verified; 5.5: the preferred one becomes the one in use */
	h->st.rr_ok++;
	a->rr_in_rekey = false;
	for (unsigned x = 0; x < a->n_peer_loc; x++)
		if (a->peer_loc[x].state == HIP_LOC_ACTIVE)
			a->peer_loc[x].state = HIP_LOC_VERIFIED;
	l = peer_loc(a, &a->rr_addr);
	if (l != NULL)
		l->state = HIP_LOC_ACTIVE;
	a->remote = a->rr_addr;
	hip_mob_path(a);
	return 0;
}

void
hip_mob_echo_answered(struct hip_assoc *a, const struct gw_addr *at)
{
	a->h->st.echo_answered++;
	for (unsigned x = 0; x < a->h->n_our_loc && x < 8; x++)
		if (gw_addr_eq(&a->h->our_loc[x], at))
			a->our_verified |= (uint8_t)(1u << x);
}

/* The locator of ours for an association whose peer is of `family`: the
 * preferred one if it fits, else the first that does; NULL when none. */
static const struct gw_addr *
our_pick(const struct hip_host *h, uint8_t family)
{
	if (h->our_loc[h->our_pref].family == family)
		return &h->our_loc[h->our_pref];
	for (unsigned x = 0; x < h->n_our_loc; x++)
		if (h->our_loc[x].family == family)
			return &h->our_loc[x];
	return NULL;
}

int
hip_host_set_locators(struct hip_host *h, const struct gw_addr *locs, unsigned n,
		      unsigned preferred, bool rekey, uint64_t now_ns)
{
	int started = 0;

	if (h == NULL || locs == NULL || n == 0 || n > HIP_MAX_LOCATORS || preferred >= n)
		return -1;
	for (unsigned x = 0; x < n; x++)
		if (locs[x].family != 4 && locs[x].family != 6)
			return -1;
	memset(h->our_loc, 0, sizeof(h->our_loc));
	memcpy(h->our_loc, locs, n * sizeof(*locs));
	h->n_our_loc = n;
	h->our_pref = preferred;
	for (unsigned x = 0; x < h->n_peers; x++) {
		struct hip_assoc *a = h->peers[x];
		const struct gw_addr *l = our_pick(h, a->remote.family);

		if (l == NULL)
			continue;   /* no locator of the peer's family: stays where it is */
		a->our_verified = 0;
		/* the old address may be gone: whatever is under way goes on
		 * from the new one (an I1, I2 or CLOSE resent from it is taken
		 * by the peer as from anywhere, RFC 7401 6.7, 6.9, 6.14) */
		a->local = *l;
		if (a->state != HIP_STATE_ESTABLISHED && a->state != HIP_STATE_R2_SENT)
			continue;   /* no SAs, or not for long: nothing to announce */
		/* R2-SENT: announced when it becomes ESTABLISHED */
		hip_mob_path(a);
		started++;
		a->loc_pending = true;
		a->loc_pending_rekey = rekey || (a->rekey_at != 0 && now_ns >= a->rekey_at);
		if (a->mob_tx == HIP_MOB_TX_LOC) {   /* the last announcement, superseded */
			hip_rtx_stop(a);
			a->mob_tx = HIP_MOB_TX_NONE;
		}
		hip_mob_kick(a, now_ns);
	}
	return started;
}

int
hip_host_set_local(struct hip_host *h, void *peer_user, const struct gw_addr *local,
		   uint64_t now_ns)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);
	bool ours = false;

	if (a == NULL || local == NULL || local->family != a->remote.family)
		return -1;
	for (unsigned x = 0; x < h->n_our_loc; x++)
		ours |= gw_addr_eq(&h->our_loc[x], local);
	if (!ours)
		return -1;
	a->local = *local;
	if (a->state != HIP_STATE_ESTABLISHED)
		return 0;   /* the next exchange goes from it */
	hip_mob_path(a);
	a->loc_pending = true;
	a->loc_pending_rekey = false;
	if (a->mob_tx == HIP_MOB_TX_LOC) {   /* the last announcement, superseded */
		hip_rtx_stop(a);
		a->mob_tx = HIP_MOB_TX_NONE;
	}
	hip_mob_kick(a, now_ns);
	return 1;
}
