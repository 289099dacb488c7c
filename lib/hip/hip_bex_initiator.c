/* SPDX-License-Identifier: BSD-3-Clause
 * The initiator's side of the Base Exchange (RFC 7401 sections 6.6, 6.8,
 * 6.10; RFC 7402 6.4, 6.6): I1 out, R1 in (the choices, the puzzle,
 * Diffie-Hellman, KEYMAT), I2 out with our HOST_ID encrypted, R2 in. The
 * exchange and its choices: hip_bex.c.
 */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_internal.h"

/* ---- helpers ---- */

/* Ltrunc(digest, k) == 0 (RFC 7401 6.3: the k lowest-order bits) */
static bool
low_bits_zero(const uint8_t *dg, size_t dl, unsigned k)
{
	size_t full = k / 8;

	for (size_t x = 0; x < full; x++)
		if (dg[dl - 1 - x] != 0)
			return false;
	return k % 8 == 0 || (dg[dl - 1 - full] & ((1u << (k % 8)) - 1u)) == 0;
}

/* Solve the puzzle (RFC 7401 6.3), J counting up from a random start. */
static int
solve_puzzle(struct hip_host *h, uint8_t suite, unsigned k, const uint8_t *i, size_t len,
	     const uint8_t *hit_i, const uint8_t *hit_r, uint8_t *j)
{
	uint64_t max = 1ull << (k + 10 > 40 ? 40 : k + 10);
	EVP_MD_CTX *pre = EVP_MD_CTX_new(), *w = EVP_MD_CTX_new();
	uint8_t dg[EVP_MAX_MD_SIZE];
	unsigned int dl;
	int rc = -1;

	if (pre == NULL || w == NULL || hip_rand(h, j, len) != 0 ||
	    EVP_DigestInit_ex(pre, hip_suite_md(suite), NULL) != 1 ||
	    EVP_DigestUpdate(pre, i, len) != 1 || EVP_DigestUpdate(pre, hit_i, HIP_HIT_LEN) != 1 ||
	    EVP_DigestUpdate(pre, hit_r, HIP_HIT_LEN) != 1)
		goto out;
	for (uint64_t n = 0; n < max; n++) {
		if (EVP_MD_CTX_copy_ex(w, pre) != 1 || EVP_DigestUpdate(w, j, len) != 1 ||
		    EVP_DigestFinal_ex(w, dg, &dl) != 1)
			goto out;
		if (low_bits_zero(dg, dl, k)) {
			rc = 0;
			break;
		}
		for (size_t x = len; x-- > 0;)
			if (++j[x] != 0)
				break;
	}
out:
	EVP_MD_CTX_free(pre);
	EVP_MD_CTX_free(w);
	return rc;
}

static int
encrypt_host_id(struct hip_host *h, uint16_t cipher, const struct hip_key *key,
		uint8_t *iv, uint8_t *out, size_t cap, size_t *out_len)
{
	const EVP_CIPHER *c = hip_bex_cbc_cipher(cipher);
	EVP_CIPHER_CTX *ctx;
	int l1 = 0, l2 = 0, ok;

	if (c == NULL || key->len != EVP_CIPHER_get_key_length(c) ||
	    cap < h->host_id_tlv_len + 16 || hip_rand(h, iv, HIP_CIPHER_AES_CBC_IV_LEN) != 0)
		return -1;
	ctx = EVP_CIPHER_CTX_new();
	ok = ctx != NULL && EVP_EncryptInit_ex(ctx, c, NULL, key->b, iv) == 1 &&
	     EVP_EncryptUpdate(ctx, out, &l1, h->host_id_tlv, (int)h->host_id_tlv_len) == 1 &&
	     EVP_EncryptFinal_ex(ctx, out + l1, &l2) == 1;
	EVP_CIPHER_CTX_free(ctx);
	if (!ok)
		return -1;
	*out_len = (size_t)(l1 + l2);
	return 0;
}

/* ---- I1 ---- */

int
hip_bex_send_i1(struct hip_assoc *a, uint64_t now)
{
	struct hip_host *h = a->h;
	struct hip_builder b;
	struct hip_dh_group_list gl = { 0 };
	int len;

	for (unsigned x = 0; x < h->cfg.n_dh_groups; x++)
		gl.ids[gl.n++] = h->cfg.dh_groups[x];
	memcpy(a->i1_groups, h->cfg.dh_groups, h->cfg.n_dh_groups);
	a->n_i1_groups = h->cfg.n_dh_groups;
	if (hip_build_start(&b, &a->tx, HIP_I1, h->hi->hit, a->peer_hit) != 0)
		return -1;
	hip_dh_group_list_put(&b, &gl);
	len = hip_build_finish(&b);
	if (len < 0)
		return -1;
	a->tx.len = (size_t)len;
	a->remote = a->locators[a->loc_first];
	/* RFC 5770: over UDP from the first I1 when forced; auto starts plain
	 * and moves to UDP in the retransmissions (hip_state.c) */
	a->udp = (struct hip_udp){ 0 };
	if (a->nat == HIP_NAT_FORCE && h->cfg.io.send_udp != NULL)
		a->udp = (struct hip_udp){ GW_HIP_UDP_PORT, GW_HIP_UDP_PORT };
	hip_state_set(a, HIP_STATE_I1_SENT, now);
	hip_rtx_arm(a, HIP_I1_RETRIES_MAX, now);
	return hip_send(h, &a->local, &a->remote, &a->udp, a->tx.b, a->tx.len);
}

/* ---- R1 ---- */

/* What the I2 answering an R1 carries (RFC 7401 5.3.3), all decided before
 * the association takes the R1. */
struct i2_plan {
	const struct hip_params *r1;       /* the R1's parameters: its echo requests */
	const struct hip_r1_counter *rc;   /* NULL when the R1 had no R1_COUNTER */
	const struct hip_puzzle *pz;
	const uint8_t *j;                  /* the solution's #J, rl bytes */
	size_t rl;                         /* RHASH length, bytes */
	uint8_t suite;                     /* the responder's HIT suite (HIP_MAC) */
	uint8_t group;
	const uint8_t *pub;                /* our DH public value, pub_len bytes */
	size_t pub_len;
	uint16_t cipher, esp;
	int keymat_index;                  /* bytes */
	uint32_t spi;                      /* our inbound SPI */
	const struct hip_keys *keys;
	bool nat_udp;                      /* R1 over UDP offered UDP-ENCAPSULATION: echo it */
};

/* Build the I2 of plan `pl` into t (RFC 7401 5.3.3, 6.8 steps 14-17). The
 * R1's ECHO_REQUEST_SIGNED / _UNSIGNED come back as ECHO_RESPONSE_SIGNED /
 * _UNSIGNED, so their length decides whether the I2 fits in a packet (the
 * unsigned one is not covered by HIP_SIGNATURE_2: anyone on the path can
 * lengthen it). Returns 0, HIP_E_NOSPACE when the I2 would outgrow
 * HIP_PACKET_MAX, or another negative hip_err (cipher or signature failed). */
static int
build_i2(struct hip_host *h, const struct hip_assoc *a, const struct i2_plan *pl,
	 struct hip_txbuf *t)
{
	struct hip_builder b;
	struct hip_esp_info ei = { .keymat_index = (uint16_t)pl->keymat_index, .new_spi = pl->spi };
	struct hip_solution so = { .k = pl->pz->k, .i = pl->pz->i, .j = pl->j };
	struct hip_diffie_hellman mydh = { .n = 1 };
	struct hip_cipher myc = { .n = 1, .ids = { pl->cipher } };
	struct hip_transport_format_list mytf = { .n = 1, .types = { HIP_PARAM_ESP_TRANSFORM } };
	struct hip_esp_transform myet = { .n = 1, .suites = { pl->esp } };
	const struct hip_tlv *es = pl->r1->echo_req_signed, *eu = pl->r1->echo_req_unsigned;
	enum hip_dir o = hip_dir_out(h->hi->hit, a->peer_hit);
	int len;

	memcpy(so.opaque, pl->pz->opaque, 2);
	mydh.v[0].group_id = pl->group;
	mydh.v[0].pub_len = (uint16_t)pl->pub_len;
	mydh.v[0].pub = pl->pub;
	if (hip_build_start(&b, t, HIP_I2, h->hi->hit, a->peer_hit) != 0)
		return HIP_E_ARG;
	hip_esp_info_put(&b, &ei);
	if (pl->rc != NULL)
		hip_r1_counter_put(&b, pl->rc);
	hip_solution_put(&b, pl->rl, &so);
	hip_diffie_hellman_put(&b, &mydh);
	hip_cipher_put(&b, &myc);
	if (pl->nat_udp) {   /* RFC 5770 4.3: the mode picked from the R1's list */
		struct hip_nat_traversal_mode nm = { .n = 1,
						     .modes = { HIP_NAT_MODE_UDP_ENCAPSULATION } };

		hip_nat_traversal_mode_put(&b, &nm);
	}
	if (pl->cipher == HIP_CIPHER_NULL_ENCRYPT) {
		hip_bex_put_host_id(h, &b);
	} else {
		uint8_t iv[HIP_CIPHER_AES_CBC_IV_LEN], data[HIP_HOST_ID_TLV_MAX + 16];
		size_t dl = 0;
		struct hip_encrypted e = { .iv = iv, .iv_len = sizeof(iv), .data = data };

		if (encrypt_host_id(h, pl->cipher, &pl->keys->hip_enc[o], iv, data, sizeof(data), &dl) != 0)
			return HIP_E_ARG;
		e.data_len = dl;
		hip_encrypted_put(&b, &e);
	}
	if (es != NULL) {
		struct hip_echo ec = { .type = HIP_PARAM_ECHO_RESPONSE_SIGNED, .data = es->value, .len = es->len };

		hip_echo_put(&b, &ec);
	}
	hip_transport_format_list_put(&b, &mytf);
	hip_esp_transform_put(&b, &myet);
	hip_cover_put_mac(h, &b, HIP_PARAM_HIP_MAC, pl->suite, &pl->keys->hip_int[o], NULL, 0);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE, 0);
	if (eu != NULL) {
		struct hip_echo ec = { .type = HIP_PARAM_ECHO_RESPONSE_UNSIGNED, .data = eu->value, .len = eu->len };

		hip_echo_put(&b, &ec);
	}
	len = hip_build_finish(&b);
	if (len < 0)
		return len;
	t->len = (size_t)len;
	return 0;
}

/* An R1 on its way through the steps of r1_in, what one hands the next. */
struct r1_work {
	struct hip_r1_counter rc;          /* zero when the R1 has no R1_COUNTER */
	struct hip_host_id hid;
	struct hip_puzzle pz;
	struct hip_dh_group_list gl;
	struct hip_diffie_hellman dh;
	struct hip_cipher hc;
	struct hip_hit_suite_list sl;
	struct hip_transport_format_list tf;
	struct hip_esp_transform et;
	struct hip_hi peer;                /* the responder's HI */
	uint8_t suite;                     /* its HIT suite: RHASH, HIP_MAC */
	size_t rl;                         /* RHASH length, bytes */
	uint8_t group;                     /* the choices (r1_choices) */
	const struct hip_dh_value *peer_pub;
	uint16_t cipher, esp;
	uint8_t j[HIP_RHASH_MAX];          /* the puzzle's solution #J, rl bytes */
	bool nat_udp;                      /* over UDP, UDP-ENCAPSULATION offered (RFC 5770) */
	struct hip_dh mine;                /* our DH key for the I2 */
	uint8_t pub[HIP_DH_PUB_MAX];       /* its public value, publ bytes */
	size_t publ;
	int idx;                           /* KEYMAT Index of the ESP keys, bytes */
	struct hip_keys keys;
	uint32_t spi;                      /* our inbound SPI */
	struct hip_txbuf i2;
};

/* The R1's choices (RFC 7401 6.8 steps 8, 9; RFC 7402 5.1.2): our HIT suite
 * among the responder's, its DH group the first of ours our I1 listed with a
 * value in DIFFIE_HELLMAN, the first HIP cipher and ESP transform of its lists
 * we support, ESP in its TRANSPORT_FORMAT_LIST, a puzzle we solve. Fills
 * w's group, peer_pub, cipher, esp; returns 0, or -1 to refuse the R1. */
static int
r1_choices(const struct hip_host *h, const struct hip_assoc *a, struct r1_work *w)
{
	bool suite_ok = false;

	w->group = 0;
	w->peer_pub = NULL;
	w->cipher = w->esp = 0;
	for (unsigned x = 0; x < w->sl.n; x++)
		suite_ok |= hip_hit_suite_list_suite(w->sl.ids[x]) == h->suite;
	for (unsigned x = 0; x < w->gl.n && w->group == 0; x++)
		if (hip_bex_in_list8(a->i1_groups, a->n_i1_groups, w->gl.ids[x]))
			w->group = w->gl.ids[x];
	for (unsigned x = 0; x < w->dh.n; x++)
		if (w->dh.v[x].group_id == w->group)
			w->peer_pub = &w->dh.v[x];
	for (unsigned x = 0; x < w->hc.n && w->cipher == 0; x++)
		if (hip_bex_in_list16(h->cfg.hip_ciphers, h->cfg.n_hip_ciphers, w->hc.ids[x]))
			w->cipher = w->hc.ids[x];
	for (unsigned x = 0; x < w->et.n && w->esp == 0; x++)
		if (hip_bex_in_list16(h->cfg.esp_transforms, h->cfg.n_esp_transforms, w->et.suites[x]))
			w->esp = w->et.suites[x];
	return suite_ok && w->group != 0 && w->peer_pub != NULL && w->cipher != 0 && w->esp != 0 &&
	       hip_bex_in_list16(w->tf.types, w->tf.n, HIP_PARAM_ESP_TRANSFORM) &&
	       w->pz.k <= HIP_PUZZLE_K_ACCEPT ? 0 : -1;
}

/* Parse: every parameter R1 must have, each well formed; the HOST_ID TLV,
 * kept for HIP_MAC_2 (r1_commit), no larger than its copy (a Domain
 * Identifier the HIT does not cover must not make it outgrow it). */
static int
r1_parse(struct hip_assoc *a, const struct hip_params *p, struct r1_work *w)
{
	struct hip_host *h = a->h;

	if (p->puzzle == NULL || p->dh_group_list == NULL || p->dh == NULL || p->hip_cipher == NULL ||
	    p->host_id == NULL || p->hit_suite_list == NULL || p->tf_list == NULL ||
	    p->esp_transform == NULL || p->sig2 == NULL ||
	    (p->r1_counter != NULL && hip_r1_counter_parse(p->r1_counter, &w->rc) != 0) ||
	    hip_host_id_parse(p->host_id, &w->hid) != 0 ||
	    hip_dh_group_list_parse(p->dh_group_list, &w->gl) != 0 ||
	    hip_diffie_hellman_parse(p->dh, &w->dh) != 0 || hip_cipher_parse(p->hip_cipher, &w->hc) != 0 ||
	    hip_hit_suite_list_parse(p->hit_suite_list, &w->sl) != 0 ||
	    hip_transport_format_list_parse(p->tf_list, &w->tf) != 0 ||
	    hip_esp_transform_parse(p->esp_transform, &w->et) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	if (p->host_id->total > sizeof(a->peer_host_id))
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_LENGTH);
	return 0;
}

/* Verify: the A bit refused (step 11, our policy), the responder's HI
 * hashes to its HIT (step 12), then HIP_SIGNATURE_2 (step 4: before
 * anything costly); the puzzle parsed with its RHASH length. */
static int
r1_verify(struct hip_assoc *a, const struct hip_rx *rx, struct r1_work *w)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;

	if ((rx->hdr->controls & HIP_CONTROL_ANONYMOUS) != 0)
		return hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	if (hip_peer_hi_decode(a, w->hid.algorithm, w->hid.hi, w->hid.hi_len, &w->peer) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	if (memcmp(w->peer.hit, rx->hdr->hit_sender, HIP_HIT_LEN) != 0)
		return hip_drop(h, &h->st.drop_hit_mismatch, HIP_E_HOST_AUTH);
	w->suite = w->peer.suite;
	w->rl = hip_suite_rhash_len(w->suite);
	if (hip_puzzle_parse(p->puzzle, w->rl, &w->pz) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_LENGTH);
	if (hip_cover_check_sig(h, rx->pkt, p->sig2, &w->peer, p->puzzle) != 0)
		return hip_drop(h, &h->st.drop_sig, HIP_E_HOST_AUTH);
	return 0;
}

/* DH and KEYMAT: our DH key and Kij (step 15), KEYMAT and its keys (RFC
 * 7401 6.5, RFC 7402 7), our inbound SPI (the one reserved at an earlier
 * R1, or a new one). */
static int
r1_keys(struct hip_assoc *a, struct r1_work *w)
{
	struct hip_host *h = a->h;
	uint8_t kij[HIP_DH_SECRET_MAX];
	size_t kl = 0;
	int rc;

	h->st.dh_derive++;
	if (hip_rand_dh(h, w->group, &w->mine) != 0 ||
	    hip_dh_derive(&w->mine, w->peer_pub->pub, w->peer_pub->pub_len, kij, sizeof(kij), &kl) != 0 ||
	    hip_dh_public(&w->mine, w->pub, sizeof(w->pub), &w->publ) != 0) {
		OPENSSL_cleanse(kij, sizeof(kij));
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	}
	w->idx = hip_keymat_esp_index(w->suite, w->cipher);
	rc = hip_bex_keys(a, w->suite, w->cipher, w->esp, kij, kl, w->pz.i, w->j, w->rl, h->hi->hit,
			  w->peer.hit, &w->keys);
	OPENSSL_cleanse(kij, sizeof(kij));
	if (rc != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	w->spi = a->spi_in != 0 ? a->spi_in
				: (h->cfg.io.spi_alloc ? h->cfg.io.spi_alloc(h->cfg.io.ctx) : 0);
	if (w->spi == 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	return 0;
}

/* The I2 before anything is committed: an R1 it cannot answer in one
 * packet (echo requests too long) is refused, the association untouched. */
static int
r1_build_i2(struct hip_assoc *a, const struct hip_params *p, struct r1_work *w)
{
	struct hip_host *h = a->h;
	struct i2_plan pl = {
		.r1 = p, .rc = p->r1_counter != NULL ? &w->rc : NULL, .pz = &w->pz, .j = w->j,
		.rl = w->rl, .suite = w->suite, .group = w->group, .pub = w->pub, .pub_len = w->publ,
		.cipher = w->cipher, .esp = w->esp, .keymat_index = w->idx, .spi = w->spi,
		.keys = &w->keys, .nat_udp = w->nat_udp,
	};
	int err = build_i2(h, a, &pl, &w->i2);

	if (err == HIP_E_NOSPACE)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_NOSPACE);
	if (err != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	return 0;
}

/* Commit: the association now follows this R1 (its HI, HOST_ID for
 * HIP_MAC_2, choices, #I / #J, keys, SPI, R1 generation, our DH key), I2
 * out and kept for retransmission, I2-SENT (step 18). t0: when the R1 came
 * (the r1_to_i2 statistic). */
static void
r1_commit(struct hip_assoc *a, const struct hip_rx *rx, struct r1_work *w, uint64_t t0)
{
	const struct hip_params *p = rx->p;

	hip_hi_free(&a->peer_hi);
	a->peer_hi = w->peer;
	memset(&w->peer, 0, sizeof(w->peer));
	memcpy(a->peer_host_id, rx->pkt + p->host_id->offset, p->host_id->total);
	a->peer_host_id_len = p->host_id->total;
	a->suite = w->suite;
	a->dh_group = w->group;
	a->hip_cipher = w->cipher;
	a->esp_transform = w->esp;
	memcpy(a->i, w->pz.i, w->rl);
	memcpy(a->j, w->j, w->rl);
	a->ij_len = w->rl;
	hip_keys_wipe(&a->keys);
	a->keys = w->keys;
	hip_keys_wipe(&w->keys);
	a->spi_in = w->spi;
	a->r1_gen = w->rc.generation;
	a->have_r1_gen = p->r1_counter != NULL;
	hip_dh_free(&a->dh);
	a->dh = w->mine;
	a->remote = *rx->src;
	a->udp = rx->udp;     /* the R1's transport (RFC 5770): I2, then ESP, go that way */
	if (a->udp.rport != 0 && a->nat == HIP_NAT_AUTO)
		a->h->st.nat_switch++;
	a->t_r1_in = rx->now;
	memcpy(a->tx.b, w->i2.b, w->i2.len);
	a->tx.len = w->i2.len;
	hip_state_set(a, HIP_STATE_I2_SENT, rx->now);
	hip_rtx_arm(a, HIP_I2_RETRIES_MAX, rx->now);
	hip_send(a->h, rx->dst, rx->src, &a->udp, a->tx.b, a->tx.len);
	a->local = *rx->dst;
	a->times.r1_to_i2 = hip_mono_ns() - t0;
}

/* An R1 for association a (RFC 7401 6.8); newer_only (I2-SENT): only one of
 * a newer R1 generation than the R1 answered. */
static int
r1_in(struct hip_assoc *a, const struct hip_rx *rx, bool newer_only)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;
	uint64_t t0 = hip_mono_ns();
	struct r1_work w = { 0 };
	int rc = r1_parse(a, p, &w);

	if (rc != 0)
		return rc;
	/* 6.8 step 10: in I2-SENT only a newer R1 generation restarts */
	if (newer_only && (p->r1_counter == NULL || !a->have_r1_gen || w.rc.generation <= a->r1_gen))
		return hip_drop(h, &h->st.drop_state, HIP_E_HOST_STATE);
	rc = r1_verify(a, rx, &w);
	if (rc == 0 && r1_choices(h, a, &w) != 0)
		rc = hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	/* step 14: the puzzle */
	if (rc == 0 && solve_puzzle(h, w.suite, w.pz.k, w.pz.i, w.rl, h->hi->hit, w.peer.hit, w.j) != 0)
		rc = hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	if (rc == 0)
		rc = r1_keys(a, &w);
	/* RFC 5770 4.3: over UDP, the R1's NAT_TRAVERSAL_MODE (signed, checked
	 * above) lists what the responder does; we pick UDP-ENCAPSULATION when
	 * listed, other modes ignored; over plain IP it is ignored */
	if (rc == 0 && rx->udp.rport != 0 && p->nat_mode != NULL) {
		struct hip_nat_traversal_mode nm;

		if (hip_nat_traversal_mode_parse(p->nat_mode, &nm) != 0)
			rc = hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
		else
			w.nat_udp = hip_nat_traversal_mode_has(&nm, HIP_NAT_MODE_UDP_ENCAPSULATION);
	}
	if (rc == 0)
		rc = r1_build_i2(a, p, &w);
	if (rc != 0) {
		hip_keys_wipe(&w.keys);
		hip_dh_free(&w.mine);
		hip_hi_free(&w.peer);
		return rc;
	}
	r1_commit(a, rx, &w, t0);
	return 0;
}

int
hip_bex_in_r1(struct hip_assoc *a, const struct hip_rx *rx)
{
	return r1_in(a, rx, false);
}

int
hip_bex_in_r1_newer(struct hip_assoc *a, const struct hip_rx *rx)
{
	return r1_in(a, rx, true);
}

/* ---- R2 ---- */

int
hip_bex_in_r2(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_host *h = a->h;
	const uint8_t *pkt = rx->pkt;
	const struct hip_params *p = rx->p;
	struct hip_esp_info ei;
	enum hip_dir in;
	struct hip_sa_keys sin, sout;

	if (p->esp_info == NULL || p->mac2 == NULL || p->sig == NULL ||
	    hip_esp_info_parse(p->esp_info, &ei) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	in = hip_dir_in(h->hi->hit, a->peer_hit);
	if (hip_cover_check_mac(h, pkt, p->mac2, a->suite, &a->keys.hip_int[in],
				a->peer_host_id, a->peer_host_id_len) != 0)
		return hip_drop(h, &h->st.drop_mac, HIP_E_HOST_AUTH);
	if (hip_cover_check_sig(h, pkt, p->sig, &a->peer_hi, NULL) != 0)
		return hip_drop(h, &h->st.drop_sig, HIP_E_HOST_AUTH);
	if ((int)ei.keymat_index != hip_keymat_esp_index(a->suite, a->hip_cipher) ||
	    ei.old_spi != 0 || ei.new_spi == 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	hip_rtx_stop(a);
	hip_dh_free(&a->dh);
	a->spi_out = ei.new_spi;
	a->remote = *rx->src;
	a->local = *rx->dst;
	a->t_r2_in = rx->now;
	hip_state_set(a, HIP_STATE_ESTABLISHED, rx->now);
	hip_bex_sa_keys(a, &a->keys, a->spi_in, a->spi_out, &sin, &sout);
	hip_assoc_established(a, &sout, &sin, rx->now);
	OPENSSL_cleanse(&sin, sizeof(sin));
	OPENSSL_cleanse(&sout, sizeof(sout));
	return 0;
}
