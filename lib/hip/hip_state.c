/* SPDX-License-Identifier: BSD-3-Clause
 * The association state machine of RFC 7401 section 4.4: states, the
 * retransmission timer with exponential back-off (I1, I2, UPDATE, CLOSE),
 * and the timed transitions:
 *
 *   I1-SENT, I2-SENT   retries run out            -> E-FAILED (bex_done false)
 *   R2-SENT            HIP_R2_SENT_HOLD_NS        -> ESTABLISHED (io.established)
 *                      (or at once on data, hip_host_data_in, or an
 *                      authenticated UPDATE: RFC 7401 4.4.3, R2-SENT;
 *                      CLOSE: CLOSED)
 *   ESTABLISHED        SA lifetime                -> UPDATE rekey
 *   CLOSING            retries run out            -> UNASSOCIATED (SAs removed)
 *   CLOSED             HIP_CLOSED_HOLD_NS         -> UNASSOCIATED
 *   E-FAILED           HIP_E_FAILED_HOLD_NS       -> UNASSOCIATED
 *
 * Transitions on packets are the table of hip_fsm.c. Lifetime rekeys are
 * staggered so that the two ends do not start one at the same time: the
 * host with the greater HIT rekeys at the configured lifetime, the other
 * 1/16 later (it only does when the first did not).
 */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_internal.h"

const char *
hip_state_name(enum hip_state s)
{
	switch (s) {
	case HIP_STATE_UNASSOCIATED: return "UNASSOCIATED";
	case HIP_STATE_I1_SENT: return "I1-SENT";
	case HIP_STATE_I2_SENT: return "I2-SENT";
	case HIP_STATE_R2_SENT: return "R2-SENT";
	case HIP_STATE_ESTABLISHED: return "ESTABLISHED";
	case HIP_STATE_CLOSING: return "CLOSING";
	case HIP_STATE_CLOSED: return "CLOSED";
	case HIP_STATE_E_FAILED: return "E-FAILED";
	default: return "?";
	}
}

void
hip_state_set(struct hip_assoc *a, enum hip_state s, uint64_t now)
{
	a->state = s;
	a->state_since = now;
}

const struct gw_addr *
hip_assoc_dst(const struct hip_assoc *a)
{
	return &a->remote;
}

void
hip_rtx_arm(struct hip_assoc *a, unsigned max, uint64_t now)
{
	a->rtx.armed = true;
	a->rtx.count = 0;
	a->rtx.max = max;
	a->rtx.timeout = HIP_RTO_INITIAL_NS;
	a->rtx.deadline = now + a->rtx.timeout;
	a->tx_dst_set = false;   /* the caller names another destination after this */
}

void
hip_rtx_stop(struct hip_assoc *a)
{
	a->rtx.armed = false;
}

void
hip_assoc_sa_down(struct hip_assoc *a)
{
	const struct hip_io *io = &a->h->cfg.io;

	if (a->rekey == HIP_REKEY_REPLIED && a->rk_in.spi != 0 && io->sa_in_up != NULL &&
	    io->sa_down != NULL)
		io->sa_down(io->ctx, a->user, a->rk_in.spi);
	if (a->spi_in != 0 && a->sa_given && io->sa_down != NULL)
		io->sa_down(io->ctx, a->user, a->spi_in);
	a->sa_given = false;
	a->spi_in = 0;
	a->spi_out = 0;
}

void
hip_assoc_reset(struct hip_assoc *a)
{
	hip_rtx_stop(a);
	if (a->r2.len != 0) {   /* the I2 answered: a replay of it is refused later */
		memmove(a->i2_old[1], a->i2_old[0], (HIP_I2_OLD - 1) * sizeof(a->i2_old[0]));
		memcpy(a->i2_old[0], a->i2_digest, sizeof(a->i2_old[0]));
	}
	hip_hi_free(&a->peer_hi);
	hip_dh_free(&a->dh);
	hip_dh_free(&a->rekey_dh);
	hip_keys_wipe(&a->keys);
	OPENSSL_cleanse(&a->rk_in, sizeof(a->rk_in));
	OPENSSL_cleanse(&a->rk_out, sizeof(a->rk_out));
	OPENSSL_cleanse(a->i, sizeof(a->i));
	OPENSSL_cleanse(a->j, sizeof(a->j));
	OPENSSL_cleanse(&a->tx, sizeof(a->tx));
	OPENSSL_cleanse(&a->r2, sizeof(a->r2));
	OPENSSL_cleanse(&a->update_reply, sizeof(a->update_reply));
	memset(a->i2_digest, 0, sizeof(a->i2_digest));
	a->peer_host_id_len = 0;
	a->ij_len = 0;
	a->spi_in = a->spi_out = 0;
	a->sa_given = false;
	a->have_r1_gen = false;
	a->rekey = HIP_REKEY_NONE;
	a->rekey_at = 0;
	a->update_id = 0;
	a->peer_update_seen = false;
	a->bex_done_pending = false;
	a->dh_group = 0;
	a->hip_cipher = 0;
	a->esp_transform = 0;
	hip_mob_reset(a);
}

int
hip_peer_hi_decode(struct hip_assoc *a, uint16_t algo, const uint8_t *b, size_t len,
		   struct hip_hi *out)
{
	struct hip_hi *c = &a->hi_cache;

	if (c->pkey != NULL && c->algo == algo && c->hi_len == len && memcmp(c->hi, b, len) == 0 &&
	    EVP_PKEY_up_ref(c->pkey) == 1) {
		*out = *c;
		return 0;
	}
	if (hip_hi_decode(algo, b, len, out) != 0)
		return -1;
	if (memcmp(out->hit, a->peer_hit, HIP_HIT_LEN) == 0 && EVP_PKEY_up_ref(out->pkey) == 1) {
		hip_hi_free(c);
		*c = *out;
	}
	return 0;
}

void
hip_assoc_fail(struct hip_assoc *a, uint64_t now)
{
	const struct hip_io *io = &a->h->cfg.io;

	hip_assoc_sa_down(a);
	hip_assoc_reset(a);
	hip_state_set(a, HIP_STATE_E_FAILED, now);
	a->h->st.bex_failed++;
	if (io->bex_done != NULL)
		io->bex_done(io->ctx, a->user, false, &a->times);
}

void
hip_assoc_report_bex(struct hip_assoc *a)
{
	const struct hip_io *io = &a->h->cfg.io;

	a->bex_done_pending = false;
	a->h->st.bex_ok++;
	if (io->bex_done != NULL)
		io->bex_done(io->ctx, a->user, true, &a->times);
}

void
hip_assoc_schedule_rekey(struct hip_assoc *a, uint64_t now)
{
	uint64_t life = a->h->cfg.sa_lifetime_ns;

	if (life == 0) {
		a->rekey_at = 0;
		return;
	}
	if (hip_hit_cmp(a->h->hi->hit, a->peer_hit) < 0)
		life += life / 16;
	a->rekey_at = now + life;
}

/* io.established: the peer has the SAs handed over with sa_up. */
static void
notify_established(struct hip_assoc *a)
{
	const struct hip_io *io = &a->h->cfg.io;

	if (a->sa_given && io->established != NULL)
		io->established(io->ctx, a->user);
}

void
hip_assoc_established(struct hip_assoc *a, const struct hip_sa_keys *out,
		      const struct hip_sa_keys *in, uint64_t now)
{
	const struct hip_io *io = &a->h->cfg.io;

	if (io->sa_up != NULL)
		io->sa_up(io->ctx, a->user, out, in, 0);
	a->sa_given = true;
	hip_assoc_schedule_rekey(a, now);
	if (a->initiator) {
		a->bex_done_pending = true;
		a->bex_done_deadline = now + HIP_BEX_DONE_WAIT_NS;
	} else {
		hip_assoc_report_bex(a);
	}
	/* R2 came: the responder has installed both SAs before sending it */
	notify_established(a);
}

void
hip_assoc_r2_sent_done(struct hip_assoc *a, uint64_t now)
{
	hip_state_set(a, HIP_STATE_ESTABLISHED, now);
	notify_established(a);
	hip_mob_kick(a, now);   /* a move during R2-SENT: announced now */
}

/* Retransmit what a.tx holds, or give up. */
static void
rtx_fire(struct hip_assoc *a, uint64_t now)
{
	struct hip_host *h = a->h;
	const struct gw_addr *dst = &a->remote;

	if (a->rtx.count >= a->rtx.max) {
		a->rtx.armed = false;
		switch (a->state) {
		case HIP_STATE_I1_SENT:
		case HIP_STATE_I2_SENT:
			hip_assoc_fail(a, now);
			break;
		case HIP_STATE_CLOSING:
			hip_assoc_sa_down(a);
			hip_assoc_reset(a);
			hip_state_set(a, HIP_STATE_UNASSOCIATED, now);
			break;
		default:
			if (a->rekey != HIP_REKEY_NONE)
				hip_update_give_up(a, now);
			else if (a->mob_tx != HIP_MOB_TX_NONE)
				hip_mob_give_up(a, now);
			break;
		}
		return;
	}
	a->rtx.count++;
	if (a->state == HIP_STATE_I1_SENT) {
		/* try the peer's locators in turn, from the first I1's */
		a->remote = a->locators[(a->loc_first + a->rtx.count) % a->n_locators];
		dst = &a->remote;
	}
	if (a->tx_dst_set)
		dst = &a->tx_dst;   /* an echo request: to the locator it checks */
	h->st.retransmits++;
	hip_send(h, &a->local, dst, &a->udp, a->tx.b, a->tx.len);
	/* RFC 5770, nat = auto: the plain I1s got no answer, a NAT may be
	 * dropping HIP: each I1 from now on goes over UDP too, plain first; the
	 * first R1 back decides the transport (hip_bex_initiator.c), so plain
	 * wins wherever it works (a peer that was only down) */
	if (a->state == HIP_STATE_I1_SENT && a->nat == HIP_NAT_AUTO && a->udp.rport == 0 &&
	    h->cfg.io.send_udp != NULL && a->rtx.count >= HIP_NAT_AUTO_DIRECT_I1S) {
		static const struct hip_udp u = { GW_HIP_UDP_PORT, GW_HIP_UDP_PORT };

		hip_send(h, &a->local, dst, &u, a->tx.b, a->tx.len);
	}
	a->rtx.timeout = a->rtx.timeout * 2 > HIP_RTO_MAX_NS ? HIP_RTO_MAX_NS : a->rtx.timeout * 2;
	a->rtx.deadline = now + a->rtx.timeout;
}

/* NAT keepalives (RFC 5770 4.7, RFC 9028 4.10): the initiator over UDP, the
 * side behind the NAT, refreshes the NAT's mapping every keepalive_ns. */
static void
keepalive_tick(struct hip_assoc *a, uint64_t now)
{
	if (!a->initiator || a->udp.rport == 0 || a->keepalive_ns == 0)
		return;
	if (a->keepalive_at == 0 || a->keepalive_at > now + a->keepalive_ns) {
		a->keepalive_at = now + a->keepalive_ns;   /* first tick ESTABLISHED */
		return;
	}
	if (now < a->keepalive_at)
		return;
	hip_notify_keepalive(a);
	a->keepalive_at = now + a->keepalive_ns;
}

void
hip_state_tick(struct hip_assoc *a, uint64_t now)
{
	if (a->rtx.armed && now >= a->rtx.deadline)
		rtx_fire(a, now);
	if (a->bex_done_pending && now >= a->bex_done_deadline)
		hip_assoc_report_bex(a);
	switch (a->state) {
	case HIP_STATE_R2_SENT:
		/* 4.4.3, R2-SENT: "Exit R2-SENT timer expires: Move to ESTABLISHED" */
		if (now - a->state_since >= HIP_R2_SENT_HOLD_NS)
			hip_assoc_r2_sent_done(a, now);
		break;
	case HIP_STATE_ESTABLISHED:
		if (a->rekey_at != 0 && now >= a->rekey_at && a->rekey == HIP_REKEY_NONE)
			hip_update_start(a, now);
		keepalive_tick(a, now);
		break;
	case HIP_STATE_CLOSED:
		if (now - a->state_since >= HIP_CLOSED_HOLD_NS) {
			hip_assoc_reset(a);
			hip_state_set(a, HIP_STATE_UNASSOCIATED, now);
		}
		break;
	case HIP_STATE_E_FAILED:
		if (now - a->state_since >= HIP_E_FAILED_HOLD_NS)
			hip_state_set(a, HIP_STATE_UNASSOCIATED, now);
		break;
	default:
		break;
	}
}
