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

struct upd {
	const struct hip_esp_info *ei;
	const uint32_t *seq;
	const uint32_t *ack;
	const struct hip_dh *dh;
};

/* Build an UPDATE into t and send it. */
static int
send_update(struct hip_assoc *a, struct hip_txbuf *t, const struct upd *u)
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
	hip_cover_put_mac(h, &b, HIP_PARAM_HIP_MAC, a->suite, &a->keys.hip_int[o], NULL, 0);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE, 0);
	len = hip_build_finish(&b);
	if (len < 0)
		return -1;
	t->len = (size_t)len;
	return hip_send(h, &a->local, &a->remote, t->b, t->len);
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
	hip_assoc_schedule_rekey(a, now);
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
	struct hip_esp_info ei = { .keymat_index = 0 };
	struct upd u = { .ei = &ei, .seq = &a->rekey_seq, .dh = &a->rekey_dh };

	if (a->state != HIP_STATE_ESTABLISHED || a->rekey != HIP_REKEY_NONE)
		return -1;
	if (hip_rand_dh(a->h, a->dh_group, &a->rekey_dh) != 0 || new_spi(a) == 0)
		goto later;
	ei.old_spi = a->spi_in;
	ei.new_spi = a->rekey_spi_in;
	a->rekey_seq = a->update_id++;
	if (send_update(a, &a->tx, &u) != 0)
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
}

static bool
acks(const struct hip_ack *ak, uint32_t id)
{
	for (unsigned x = 0; x < ak->n; x++)
		if (ak->update_ids[x] == id)
			return true;
	return false;
}

/* The parameters of a received UPDATE, parsed when present. */
struct upd_in {
	struct hip_esp_info ei;
	struct hip_seq sq;
	struct hip_ack ak;
	struct hip_diffie_hellman dh;
};

/* HIP_MAC and HIP_SIGNATURE of an UPDATE (RFC 7401 6.12.1 steps 3, 4), then
 * its parameters into *u: a parameter of the wrong length is now
 * INVALID_SYNTAX (5.2.19), and changes nothing. 0, or the drop. */
static int
update_verify(struct hip_assoc *a, const struct hip_rx *rx, struct upd_in *u)
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
	    (p->dh != NULL && hip_diffie_hellman_parse(p->dh, &u->dh) != 0)) {
		hip_notify_send(h, a->peer_hit, &a->local, rx->src, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0,
				rx->now);
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	}
	return 0;
}

/* The peer's answer to our rekey (we are A): new SAs, ACK. 0, or the drop. */
static int
rekey_answered(struct hip_assoc *a, const struct upd_in *u, bool rekey_req, uint64_t now)
{
	struct hip_host *h = a->h;
	struct upd out = { .ack = &u->sq.update_id };
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
	rekey_done(a, now);
	send_update(a, &a->update_reply, &out);
	return 0;
}

/* The peer's rekey (we are B): our new DH and inbound SA (installed early,
 * io.sa_in_up), answered with UPDATE(ESP_INFO, SEQ, ACK, DH). Both started:
 * the greater HIT's goes on. 0, or the drop. */
static int
rekey_answer(struct hip_assoc *a, const struct upd_in *u, uint64_t now)
{
	struct hip_host *h = a->h;
	const struct hip_io *io = &h->cfg.io;
	struct hip_esp_info mine = { .keymat_index = 0 };
	struct upd out = { .ei = &mine, .seq = &a->rekey_seq, .ack = &u->sq.update_id,
			   .dh = &a->rekey_dh };
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
	a->rekey = HIP_REKEY_REPLIED;
	if (send_update(a, &a->tx, &out) != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	a->update_reply = a->tx;
	hip_rtx_arm(a, HIP_UPDATE_RETRIES_MAX, now);
	return 0;
}

/* An authenticated UPDATE in ESTABLISHED: SEQ and ACK (RFC 7401 6.12.1,
 * 6.12.2), a rekey (RFC 7402 6.9, 6.10). 0, or the drop. */
static int
update_process(struct hip_assoc *a, const struct hip_rx *rx, const struct upd_in *u)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;
	bool rekey_req;

	a->remote = *rx->src;
	/* a retransmitted UPDATE: the same answer; an older one: a replay */
	if (p->seq != NULL && a->peer_update_seen) {
		int32_t d = (int32_t)(u->sq.update_id - a->peer_update_id);

		if (d == 0) {
			if (a->update_reply.len != 0)
				hip_send(h, &a->local, &a->remote, a->update_reply.b, a->update_reply.len);
			return 0;
		}
		if (d < 0)
			return hip_drop(h, &h->st.drop_replay, HIP_E_HOST_STATE);
	}
	rekey_req = p->seq != NULL && p->esp_info != NULL && p->dh != NULL;
	if (rekey_req && (u->ei.keymat_index != 0 || u->ei.new_spi == 0 ||
			  u->ei.old_spi != a->spi_out || u->dh.n != 1 ||
			  u->dh.v[0].group_id != a->dh_group)) {
		hip_notify_send(h, a->peer_hit, &a->local, &a->remote, HIP_NOTIFY_INVALID_SYNTAX,
				NULL, 0, rx->now);
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	}
	/* the answer to our rekey (A) */
	if (a->rekey == HIP_REKEY_SENT && p->ack != NULL && acks(&u->ak, a->rekey_seq))
		return rekey_answered(a, u, rekey_req, rx->now);
	/* the ACK of our answer (B) */
	if (a->rekey == HIP_REKEY_REPLIED && p->ack != NULL && acks(&u->ak, a->rekey_seq)) {
		switch_sas(a);
		rekey_done(a, rx->now);
		if (p->seq == NULL)
			return 0;
	}
	if (p->seq == NULL)
		return 0;   /* an ACK for nothing in flight: nothing to do */
	if (rekey_req)
		return rekey_answer(a, u, rx->now);
	/* SEQ without a rekey: acknowledge it */
	{
		struct upd out = { .ack = &u->sq.update_id };

		a->peer_update_seen = true;
		a->peer_update_id = u->sq.update_id;
		send_update(a, &a->update_reply, &out);
	}
	return 0;
}

int
hip_update_in(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct upd_in u;
	int rc = update_verify(a, rx, &u);

	return rc != 0 ? rc : update_process(a, rx, &u);
}

int
hip_update_in_r2_sent(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct upd_in u;
	int rc = update_verify(a, rx, &u);

	if (rc != 0)
		return rc;
	hip_assoc_r2_sent_done(a, rx->now);   /* RFC 7401 4.4.3, R2-SENT: "Receive UPDATE" */
	return update_process(a, rx, &u);
}
