/* SPDX-License-Identifier: BSD-3-Clause
 * UPDATE rekeying with a fresh Diffie-Hellman (RFC 7401 sections 5.3.5, 6.11,
 * 6.12; RFC 7402 sections 5.1.1, 6.x rekeying, 7):
 *
 *   A -> B  UPDATE  ESP_INFO(KEYMAT index 0, old = A's inbound SPI, new = A's
 *                   new inbound SPI), SEQ(a), DIFFIE_HELLMAN(A's new value),
 *                   HIP_MAC, HIP_SIGNATURE
 *   B -> A  UPDATE  ESP_INFO(0, old = B's inbound, new = B's new inbound),
 *                   SEQ(b), ACK(a), DIFFIE_HELLMAN(B's new value), HIP_MAC,
 *                   HIP_SIGNATURE
 *   A -> B  UPDATE  ACK(b), HIP_MAC, HIP_SIGNATURE
 *
 * Both ends then have a new Kij in the association's DH group and make a new
 * KEYMAT (HKDF with the Base Exchange's I | J as salt); with a new DH the
 * KEYMAT Index is 0 and the ESP keys are drawn from its start. The HIP keys
 * (HIP_MAC, ENCRYPTED) stay those of the Base Exchange.
 *
 * Make-before-break: B knows the new keys first; it installs its new inbound
 * SA (io.sa_in_up) before answering, so that A can switch its outbound as soon
 * as it has the answer (sa_up: A installs its new inbound, then switches);
 * B switches its outbound on A's ACK, when A's new inbound exists. The old
 * inbound SPIs go to sa_up's old_in_spi for removal after a grace period.
 *
 * SEQ / ACK: a retransmitted UPDATE (same Update ID) gets the same answer
 * again; an older Update ID is dropped as a replay. Both ends starting a
 * rekey at once: the one of the greater HIT goes on, the other abandons its
 * own and answers. An UPDATE with SEQ and no rekey (another implementation's
 * keepalive) is acknowledged.
 */
#include <string.h>
#include <openssl/crypto.h>

#include "hip_internal.h"

int
hip_update_send(struct hip_assoc *a, struct hip_txbuf *t, const struct hip_upd_out *u)
{
	struct hip_host *h = a->h;
	struct hip_builder b;
	enum hip_dir o = hip_dir_out(h->hi->hit, a->peer_hit);
	uint8_t pub[HIP_DH_PUB_MAX];
	int len;

	if (hip_build_start(&b, t, HIP_UPDATE, h->hi->hit, a->peer_hit) != 0)
		return -1;
	if (u->ei != NULL)
		hip_esp_info_put(&b, u->ei);
	if (u->loc != NULL)
		hip_locator_set_put(&b, u->loc);
	if (u->seq != NULL) {
		struct hip_seq s = { .update_id = *u->seq };

		hip_seq_put(&b, &s);
	}
	if (u->ack != NULL) {
		struct hip_ack ak = { .n = 1, .update_ids = { *u->ack } };

		hip_ack_put(&b, &ak);
	}
	if (u->dh != NULL) {
		struct hip_diffie_hellman d = { .n = 1 };
		size_t pl = 0;

		if (hip_dh_public(u->dh, pub, sizeof(pub), &pl) != 0)
			return -1;
		d.v[0].group_id = u->dh->group;
		d.v[0].pub_len = (uint16_t)pl;
		d.v[0].pub = pub;
		hip_diffie_hellman_put(&b, &d);
	}
	if (u->echo_req != NULL)
		hip_echo_put(&b, u->echo_req);
	if (u->echo_resp != NULL)
		hip_echo_put(&b, u->echo_resp);
	hip_cover_put_mac(h, &b, HIP_PARAM_HIP_MAC, a->suite, &a->keys.hip_int[o], NULL, 0);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE, 0);
	len = hip_build_finish(&b);
	if (len < 0)
		return -1;
	t->len = (size_t)len;
	return hip_send(h, &a->local, u->dst != NULL ? u->dst : &a->remote, &a->udp, t->b, t->len);
}

/* New ESP keys from a fresh Kij: KEYMAT index 0. */
static int
rekey_keys(struct hip_assoc *a, const struct hip_dh *mine, const struct hip_dh_value *peer,
	   struct hip_keys *k)
{
	uint8_t kij[HIP_DH_SECRET_MAX], km[512];
	size_t kl = 0;
	long need = hip_keymat_len_needed(a->suite, a->hip_cipher, a->esp_transform, 0);
	int rc = -1;

	a->h->st.dh_derive++;
	if (need > 0 && (size_t)need <= sizeof(km) &&
	    hip_dh_derive(mine, peer->pub, peer->pub_len, kij, sizeof(kij), &kl) == 0 &&
	    hip_keymat_derive(a->suite, kij, kl, a->i, a->j, a->ij_len, a->h->hi->hit, a->peer_hit,
			      km, (size_t)need) == 0 &&
	    hip_keys_draw(km, (size_t)need, a->suite, a->hip_cipher, a->esp_transform, 0, k) == 0)
		rc = 0;
	if (rc == 0) {
		hip_vector(a->h, a->user, "update_kij", kij, kl);
		hip_vector(a->h, a->user, "update_keymat", km, (size_t)need);
	}
	OPENSSL_cleanse(kij, sizeof(kij));
	OPENSSL_cleanse(km, sizeof(km));
	return rc;
}

static uint32_t
new_spi(struct hip_assoc *a)
{
	const struct hip_io *io = &a->h->cfg.io;

	if (a->rekey_spi_in == 0)
		a->rekey_spi_in = io->spi_alloc != NULL ? io->spi_alloc(io->ctx) : 0;
	return a->rekey_spi_in;
}

static void
rekey_done(struct hip_assoc *a, uint64_t now)
{
	hip_rtx_stop(a);
	hip_dh_free(&a->rekey_dh);
	OPENSSL_cleanse(&a->rk_in, sizeof(a->rk_in));
	OPENSSL_cleanse(&a->rk_out, sizeof(a->rk_out));
	a->rekey = HIP_REKEY_NONE;
	a->rekey_spi_in = 0;
	a->rekeys++;
	a->h->st.updates++;
	a->rr_in_rekey = false;
	hip_assoc_schedule_rekey(a, now);
	hip_mob_kick(a, now);
}

/* Switch to rk_in / rk_out (sa_up) and make them the association's SAs. */
static void
switch_sas(struct hip_assoc *a)
{
	const struct hip_io *io = &a->h->cfg.io;
	uint32_t old_in = a->spi_in;

	if (io->sa_up != NULL)
		io->sa_up(io->ctx, a->user, &a->rk_out, &a->rk_in, old_in);
	a->spi_in = a->rk_in.spi;
	a->spi_out = a->rk_out.spi;
}

int
hip_update_start(struct hip_assoc *a, uint64_t now)
{
	return hip_update_start_loc(a, NULL, now);
}

int
hip_update_start_loc(struct hip_assoc *a, const struct hip_locator_set *loc, uint64_t now)
{
	struct hip_esp_info ei = { .keymat_index = 0 };
	struct hip_upd_out u = { .ei = &ei, .loc = loc, .seq = &a->rekey_seq, .dh = &a->rekey_dh };

	if (a->state != HIP_STATE_ESTABLISHED || a->rekey != HIP_REKEY_NONE)
		return -1;
	if (!hip_mob_tx_free(a))
		return -1;   /* a mobility UPDATE in flight: the tick tries again */
	if (hip_rand_dh(a->h, a->dh_group, &a->rekey_dh) != 0 || new_spi(a) == 0)
		goto later;
	ei.old_spi = a->spi_in;
	ei.new_spi = a->rekey_spi_in;
	a->rekey_seq = a->update_id++;
	if (hip_update_send(a, &a->tx, &u) != 0)
		goto later;
	a->rekey = HIP_REKEY_SENT;
	hip_rtx_arm(a, HIP_UPDATE_RETRIES_MAX, now);
	return 0;
later:
	hip_dh_free(&a->rekey_dh);
	a->rekey_at = now + HIP_RTO_MAX_NS;
	return -1;
}

void
hip_update_abort(struct hip_assoc *a)
{
	const struct hip_io *io = &a->h->cfg.io;

	if (a->rekey == HIP_REKEY_REPLIED && a->rk_in.spi != 0 && io->sa_in_up != NULL &&
	    io->sa_down != NULL)
		io->sa_down(io->ctx, a->user, a->rk_in.spi);
	hip_rtx_stop(a);
	hip_dh_free(&a->rekey_dh);
	OPENSSL_cleanse(&a->rk_in, sizeof(a->rk_in));
	OPENSSL_cleanse(&a->rk_out, sizeof(a->rk_out));
	a->rekey = HIP_REKEY_NONE;
}

void
hip_update_give_up(struct hip_assoc *a, uint64_t now)
{
	if (a->rr_in_rekey)
		a->h->st.rr_failed++;   /* the new locator was not verified: SAs stay on the old path */
	a->rr_in_rekey = false;
	if (a->rekey == HIP_REKEY_REPLIED) {
		/* our answer went out several times and was never acknowledged:
		 * if the peer got any copy it switched to our new inbound SA,
		 * which exists, and installed its own; follow it */
		switch_sas(a);
		rekey_done(a, now);
		return;
	}
	hip_rtx_stop(a);
	hip_dh_free(&a->rekey_dh);   /* the SPI is kept for the next try */
	a->rekey = HIP_REKEY_NONE;
	a->rekey_at = now + HIP_RTO_MAX_NS;
	hip_mob_kick(a, now);
}

static bool
acks(const struct hip_ack *ak, uint32_t id)
{
	for (unsigned x = 0; x < ak->n; x++)
		if (ak->update_ids[x] == id)
			return true;
	return false;
}

/* HIP_MAC and HIP_SIGNATURE of an UPDATE (RFC 7401 6.12.1 steps 3, 4), then
 * its parameters into *u: a parameter of the wrong length is now
 * INVALID_SYNTAX (5.2.19), and changes nothing. 0, or the drop. */
static int
update_verify(struct hip_assoc *a, const struct hip_rx *rx, struct hip_upd_in *u)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;

	memset(u, 0, sizeof(*u));
	if (p->mac == NULL || p->sig == NULL)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	if (hip_cover_check_mac(h, rx->pkt, p->mac, a->suite,
				&a->keys.hip_int[hip_dir_in(h->hi->hit, a->peer_hit)], NULL, 0) != 0)
		return hip_drop(h, &h->st.drop_mac, HIP_E_HOST_AUTH);
	if (hip_cover_check_sig(h, rx->pkt, p->sig, &a->peer_hi, NULL) != 0)
		return hip_drop(h, &h->st.drop_sig, HIP_E_HOST_AUTH);
	if ((p->esp_info != NULL && hip_esp_info_parse(p->esp_info, &u->ei) != 0) ||
	    (p->seq != NULL && hip_seq_parse(p->seq, &u->sq) != 0) ||
	    (p->ack != NULL && hip_ack_parse(p->ack, &u->ak) != 0) ||
	    (p->dh != NULL && hip_diffie_hellman_parse(p->dh, &u->dh) != 0) ||
	    (p->echo_req_signed != NULL && hip_echo_parse(p->echo_req_signed, &u->echo_req) != 0) ||
	    (p->echo_resp_signed != NULL &&
	     hip_echo_parse(p->echo_resp_signed, &u->echo_resp) != 0)) {
		hip_notify_send(h, a->peer_hit, &a->local, rx->src, &rx->udp, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0,
				rx->now);
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	}
	if (p->locator_set != NULL) {
		/* RFC 8046 4, 5.3: Locators must fill the parameter; at most
		 * HIP_LOCATOR_SET_MAX (the gateway keeps that many per peer) */
		int rc = hip_locator_set_parse(p->locator_set, &u->ls);

		if (rc == HIP_E_TOO_MANY || (rc == HIP_OK && u->ls.n > HIP_LOCATOR_SET_MAX))
			return hip_drop(h, &h->st.drop_locator_many, HIP_E_TOO_MANY);
		if (rc != HIP_OK || u->ls.n == 0 || p->seq == NULL) {
			hip_notify_send(h, a->peer_hit, &a->local, rx->src, &rx->udp, HIP_NOTIFY_INVALID_SYNTAX,
					NULL, 0, rx->now);
			return hip_drop(h, &h->st.drop_locator, HIP_E_PARAM_VALUE);
		}
	}
	return 0;
}

/* The peer's answer to our rekey (we are A): new SAs, ACK. 0, or the drop. */
static int
rekey_answered(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u,
	       bool rekey_req, uint64_t now)
{
	struct hip_host *h = a->h;
	struct hip_upd_out out = { .ack = &u->sq.update_id, .dst = rx->src };
	struct hip_echo er = { .type = HIP_PARAM_ECHO_RESPONSE_SIGNED };
	struct hip_keys k;

	if (!rekey_req)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	if (rekey_keys(a, &a->rekey_dh, &u->dh.v[0], &k) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	hip_bex_sa_keys(a, &k, a->rekey_spi_in, u->ei.new_spi, &a->rk_in, &a->rk_out);
	hip_keys_wipe(&k);
	switch_sas(a);
	a->peer_update_seen = true;
	a->peer_update_id = u->sq.update_id;
	a->dup_answers = 0;
	if (rx->p->echo_req_signed != NULL) {   /* RFC 8046 3.2.2: the check of our new locator */
		er.data = u->echo_req.data;
		er.len = u->echo_req.len;
		out.echo_resp = &er;
		hip_mob_echo_answered(a, rx->dst);
	}
	a->update_reply_dst = *rx->src;
	a->rekey = HIP_REKEY_NONE;   /* the tx is free before what waits is sent */
	hip_update_send(a, &a->update_reply, &out);
	rekey_done(a, now);
	return 0;
}

/* The peer's rekey (we are B): our new DH and inbound SA (installed early,
 * io.sa_in_up), answered with UPDATE(ESP_INFO, SEQ, ACK, DH). Both started:
 * the greater HIT's goes on. 0, or the drop. */
static int
rekey_answer(struct hip_assoc *a, const struct hip_upd_in *u, bool check, uint64_t now)
{
	struct hip_host *h = a->h;
	const struct hip_io *io = &h->cfg.io;
	struct hip_esp_info mine = { .keymat_index = 0 };
	struct hip_upd_out out = { .ei = &mine, .seq = &a->rekey_seq, .ack = &u->sq.update_id,
			   .dh = &a->rekey_dh };
	struct hip_echo er;
	struct hip_keys k;

	if (a->rekey == HIP_REKEY_SENT) {
		if (hip_hit_cmp(h->hi->hit, a->peer_hit) > 0)
			return hip_drop(h, &h->st.drop_state, HIP_E_HOST_STATE);
		hip_rtx_stop(a);
		hip_dh_free(&a->rekey_dh);
		a->rekey = HIP_REKEY_NONE;
	} else if (a->rekey == HIP_REKEY_REPLIED) {
		return hip_drop(h, &h->st.drop_state, HIP_E_HOST_STATE);
	}
	if (hip_rand_dh(h, a->dh_group, &a->rekey_dh) != 0 || new_spi(a) == 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	if (rekey_keys(a, &a->rekey_dh, &u->dh.v[0], &k) != 0) {
		hip_dh_free(&a->rekey_dh);
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	}
	hip_bex_sa_keys(a, &k, a->rekey_spi_in, u->ei.new_spi, &a->rk_in, &a->rk_out);
	hip_keys_wipe(&k);
	if (io->sa_in_up != NULL)
		io->sa_in_up(io->ctx, a->user, &a->rk_in);
	mine.old_spi = a->spi_in;
	mine.new_spi = a->rekey_spi_in;
	a->rekey_seq = a->update_id++;
	a->peer_update_seen = true;
	a->peer_update_id = u->sq.update_id;
	a->dup_answers = 0;
	a->rekey = HIP_REKEY_REPLIED;
	/* RFC 8046 3.2.2: with the peer's new locator, the answer is also its
	 * return-routability check, sent there */
	a->rr_in_rekey = check && hip_mob_echo_new(a, &er) == 0;
	if (a->rr_in_rekey) {
		out.echo_req = &er;
		out.dst = &a->rr_addr;
		h->st.rr_tx++;
	}
	if (hip_update_send(a, &a->tx, &out) != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	a->update_reply = a->tx;
	a->update_reply_dst = out.dst != NULL ? *out.dst : a->remote;
	hip_rtx_arm(a, HIP_UPDATE_RETRIES_MAX, now);
	if (a->rr_in_rekey) {
		a->tx_dst_set = true;
		a->tx_dst = a->rr_addr;
	}
	return 0;
}

/* SEQ without a rekey (RFC 7401 6.12.1): ACK it, from where it came; with
 * ECHO_REQUEST_SIGNED, the ECHO_RESPONSE_SIGNED in the ACK (RFC 7401
 * 5.2.20, RFC 8046 3.2.1's third UPDATE). With a new peer locator to check
 * and a.tx free, the ACK is the check: ESP_INFO (OLD SPI = NEW SPI), SEQ,
 * ACK, ECHO_REQUEST_SIGNED, to that locator (RFC 8046 3.2.1's second
 * UPDATE); a.tx busy: the check waits (hip_mob_kick). */
static void
ack_update(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u, bool check)
{
	struct hip_host *h = a->h;
	struct hip_esp_info ei = { .old_spi = a->spi_in, .new_spi = a->spi_in };
	struct hip_upd_out out = { .ack = &u->sq.update_id, .dst = rx->src };
	struct hip_echo req, resp = { .type = HIP_PARAM_ECHO_RESPONSE_SIGNED };

	a->peer_update_seen = true;
	a->peer_update_id = u->sq.update_id;
	a->dup_answers = 0;
	if (rx->p->echo_req_signed != NULL) {
		resp.data = u->echo_req.data;
		resp.len = u->echo_req.len;
		out.echo_resp = &resp;
		hip_mob_echo_answered(a, rx->dst);
	}
	if (check && hip_mob_tx_free(a) && hip_mob_echo_new(a, &req) == 0) {
		a->mob_seq = a->update_id++;
		out.ei = &ei;
		out.seq = &a->mob_seq;
		out.echo_req = &req;
		out.dst = &a->rr_addr;
		if (hip_update_send(a, &a->tx, &out) == 0) {
			a->update_reply = a->tx;
			a->mob_tx = HIP_MOB_TX_ECHO;
			hip_rtx_arm(a, HIP_UPDATE_RETRIES_MAX, rx->now);
			a->tx_dst_set = true;
			a->tx_dst = a->rr_addr;
			h->st.rr_tx++;
		}
	} else {
		if (check)
			a->rr_pending = true;
		hip_update_send(a, &a->update_reply, &out);
	}
	a->update_reply_dst = *out.dst;
}

/* A retransmitted UPDATE (its SEQ the last one taken): our answer again, to
 * where it went, at most HIP_UPDATE_DUP_ANSWERS times (a peer resends
 * HIP_UPDATE_RETRIES_MAX times; more is a storm or a replay from elsewhere). */
static int
answer_dup(struct hip_assoc *a)
{
	struct hip_host *h = a->h;

	if (a->update_reply.len == 0 || a->dup_answers >= HIP_UPDATE_DUP_ANSWERS)
		return hip_drop(h, &h->st.drop_update_dup, HIP_E_HOST_STATE);
	a->dup_answers++;
	hip_send(h, &a->local, &a->update_reply_dst, &a->udp, a->update_reply.b,
		 a->update_reply.len);
	return 0;
}

/* Our UPDATE in a.tx was ACKed: the rekey answer (B) or a mobility UPDATE;
 * the one that carried our echo request only with the right response
 * (RFC 8046 5.4). 1 when one was, 0 when not, or the drop. */
static int
our_update_acked(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u)
{
	int rc;

	if (rx->p->ack == NULL)
		return 0;
	if (a->rekey == HIP_REKEY_REPLIED && acks(&u->ak, a->rekey_seq)) {
		if (a->rr_in_rekey && (rc = hip_mob_echo_check(a, rx, u)) != 0)
			return rc;
		switch_sas(a);
		rekey_done(a, rx->now);
		return 1;
	}
	if (a->mob_tx != HIP_MOB_TX_NONE && acks(&u->ak, a->mob_seq)) {
		if (a->mob_tx == HIP_MOB_TX_ECHO && (rc = hip_mob_echo_check(a, rx, u)) != 0)
			return rc;
		hip_rtx_stop(a);
		a->mob_tx = HIP_MOB_TX_NONE;
		return 1;
	}
	return 0;
}

/* An authenticated UPDATE in ESTABLISHED: SEQ and ACK (RFC 7401 6.12.1,
 * 6.12.2), a rekey (RFC 7402 6.9, 6.10), LOCATOR_SET and the echo of a
 * return-routability check (RFC 8046 5.3, 5.4). The peer's address in use
 * changes only by a check (no UPDATE moves it). 0, or the drop. */
static int
update_process(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;
	bool rekey_req, check = false;
	int rc;

	/* a retransmitted UPDATE: the same answer; an older one: a replay */
	if (p->seq != NULL && a->peer_update_seen) {
		int32_t d = (int32_t)(u->sq.update_id - a->peer_update_id);

		if (d == 0)
			return answer_dup(a);
		if (d < 0)
			return hip_drop(h, &h->st.drop_replay, HIP_E_HOST_STATE);
	}
	rekey_req = p->seq != NULL && p->esp_info != NULL && p->dh != NULL;
	if (rekey_req && (u->ei.keymat_index != 0 || u->ei.new_spi == 0 ||
			  u->ei.old_spi != a->spi_out || u->dh.n != 1 ||
			  u->dh.v[0].group_id != a->dh_group)) {
		hip_notify_send(h, a->peer_hit, &a->local, rx->src, &rx->udp, HIP_NOTIFY_INVALID_SYNTAX,
				NULL, 0, rx->now);
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	}
	if (p->locator_set != NULL) {
		rc = hip_mob_locators_in(a, rx, u);
		if (rc < 0)
			return rc;
		check = rc == 1;
	}
	/* the answer to our rekey (A) */
	if (a->rekey == HIP_REKEY_SENT && p->ack != NULL && acks(&u->ak, a->rekey_seq)) {
		a->rr_pending = a->rr_pending || check;
		return rekey_answered(a, rx, u, rekey_req, rx->now);
	}
	rc = our_update_acked(a, rx, u);
	if (rc < 0)
		return rc;
	if (p->seq == NULL) {
		hip_mob_kick(a, rx->now);
		return 0;   /* an ACK, of ours or of nothing in flight */
	}
	if (rekey_req) {
		/* the peer's rekey takes a.tx: ours of mobility is redone after */
		if (a->mob_tx == HIP_MOB_TX_LOC)
			a->loc_pending = true;
		else if (a->mob_tx == HIP_MOB_TX_ECHO)
			a->rr_pending = true;
		if (a->mob_tx != HIP_MOB_TX_NONE)
			hip_rtx_stop(a);
		a->mob_tx = HIP_MOB_TX_NONE;
		return rekey_answer(a, u, check, rx->now);
	}
	ack_update(a, rx, u, check);
	hip_mob_kick(a, rx->now);
	return 0;
}

int
hip_update_in(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_upd_in u;
	int rc = update_verify(a, rx, &u);

	return rc != 0 ? rc : update_process(a, rx, &u);
}

int
hip_update_in_r2_sent(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_upd_in u;
	int rc = update_verify(a, rx, &u);

	if (rc != 0)
		return rc;
	hip_assoc_r2_sent_done(a, rx->now);   /* RFC 7401 4.4.3, R2-SENT: "Receive UPDATE" */
	return update_process(a, rx, &u);
}
