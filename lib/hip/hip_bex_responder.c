/* SPDX-License-Identifier: BSD-3-Clause
 * The responder's side of the Base Exchange (RFC 7401 sections 6.7, 6.9;
 * RFC 7402 6.5): I1 in and the precomputed R1 out (hip_r1.c), I2 in (in the
 * order hip_bex.c gives) and R2 out.
 */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_internal.h"
#include "hip_puzzle.h"

/* ---- helpers ---- */

static int
decrypt(uint16_t cipher, const struct hip_key *key, const struct hip_encrypted *e,
	uint8_t *out, size_t cap, size_t *out_len)
{
	const EVP_CIPHER *c = hip_bex_cbc_cipher(cipher);
	EVP_CIPHER_CTX *ctx;
	int l1 = 0, l2 = 0, ok;

	if (cipher == HIP_CIPHER_NULL_ENCRYPT) {
		if (e->data_len > cap)
			return -1;
		memcpy(out, e->data, e->data_len);
		*out_len = e->data_len;
		return 0;
	}
	if (c == NULL || key->len != EVP_CIPHER_get_key_length(c) ||
	    e->iv_len != HIP_CIPHER_AES_CBC_IV_LEN || e->data_len % 16 != 0 || e->data_len > cap)
		return -1;
	ctx = EVP_CIPHER_CTX_new();
	ok = ctx != NULL && EVP_DecryptInit_ex(ctx, c, NULL, key->b, e->iv) == 1 &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
	     EVP_DecryptUpdate(ctx, out, &l1, e->data, (int)e->data_len) == 1 &&
	     EVP_DecryptFinal_ex(ctx, out + l1, &l2) == 1;
	EVP_CIPHER_CTX_free(ctx);
	if (!ok)
		return -1;
	*out_len = (size_t)(l1 + l2);
	return 0;
}

/* ---- I1 ---- */

/* An I1's DH_GROUP_LIST (the I1 counted in i1_rx). 0, or the drop. */
static int
i1_parse(struct hip_host *h, const struct hip_params *p, struct hip_dh_group_list *gl)
{
	h->st.i1_rx++;
	if (p->dh_group_list == NULL || hip_dh_group_list_parse(p->dh_group_list, gl) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	return 0;
}

/* Answer an I1 whose DH_GROUP_LIST is gl with the current R1 of our first
 * group it lists (ours first when none; RFC 7401 6.7 step 4), its #I and
 * Opaque for the sender, within the R1 rate limit. t0: when the I1 came
 * (hip_mono_ns), for the i1_to_r1 statistic. 0, or the drop. */
static int
i1_answer(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_dh_group_list *gl,
	  uint64_t t0)
{
	struct hip_host *h = a->h;
	const struct hip_hdr *hdr = rx->hdr;
	const struct hip_r1_gen *g = hip_r1_current(h);
	const struct hip_r1 *r1 = NULL;
	struct hip_txbuf out;
	uint8_t group = h->cfg.dh_groups[0];

	for (unsigned x = 0; x < h->cfg.n_dh_groups; x++) {
		if (hip_bex_in_list8(gl->ids, gl->n, h->cfg.dh_groups[x])) {
			group = h->cfg.dh_groups[x];
			break;
		}
	}
	r1 = hip_r1_for(h, group);
	if (g == NULL || r1 == NULL)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	/* anti-reflection: at most r1_rate R1s a second (hip_r1.c) */
	if (!hip_r1_token(h, rx->now))
		return hip_drop(h, &h->st.drop_r1_ratelimit, HIP_E_HOST_RATE);
	/* over UDP: the R1 that offers UDP-ENCAPSULATION (RFC 5770 4.3) */
	if (rx->udp.rport != 0 && r1->pkt_nat.len != 0)
		memcpy(out.b, r1->pkt_nat.b, (out.len = r1->pkt_nat.len));
	else
		memcpy(out.b, r1->pkt.b, (out.len = r1->pkt.len));
	memcpy(out.b + HIP_OFF_HIT_RECEIVER, hdr->hit_sender, HIP_HIT_LEN);
	if (hip_r1_puzzle_i(h, g, hdr->hit_sender, out.b + r1->puzzle_off + HIP_TLV_HDR_LEN + 4,
			    out.b + r1->puzzle_off + HIP_TLV_HDR_LEN + 2) != 0 ||
	    hip_send(h, rx->dst, rx->src, &rx->udp, out.b, out.len) != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	h->st.r1_tx++;
	/* a statistic for bex_done, not protocol state */
	a->i1_to_r1_last = hip_mono_ns() - t0;
	return 0;
}

int
hip_bex_in_i1(struct hip_assoc *a, const struct hip_rx *rx)
{
	uint64_t t0 = hip_mono_ns();
	struct hip_dh_group_list gl;
	int rc = i1_parse(a->h, rx->p, &gl);

	return rc != 0 ? rc : i1_answer(a, rx, &gl, t0);
}

int
hip_bex_in_i1_sent(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_host *h = a->h;
	uint64_t t0 = hip_mono_ns();
	struct hip_dh_group_list gl;
	int rc = i1_parse(h, rx->p, &gl);

	if (rc != 0)
		return rc;
	/* RFC 7401 6.7 step 3: the I1 of a greater HIT is dropped (we are the
	 * initiator then); a smaller one gets an R1 */
	if (hip_hit_cmp(rx->hdr->hit_sender, h->hi->hit) > 0) {
		h->st.sim_init++;
		return hip_drop(h, &h->st.drop_state, HIP_E_HOST_STATE);
	}
	return i1_answer(a, rx, &gl, t0);
}

/* ---- I2 ---- */

/* What identifies an I2 for the duplicate check: its SOLUTION and DH value. */
static void
i2_digest(const struct hip_params *p, uint8_t out[HIP_RHASH_MAX])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned int l = 0;

	memset(out, 0, HIP_RHASH_MAX);
	if (c != NULL && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1 &&
	    EVP_DigestUpdate(c, p->solution->value, p->solution->len) == 1 &&
	    EVP_DigestUpdate(c, p->dh->value, p->dh->len) == 1)
		EVP_DigestFinal_ex(c, out, &l);
	EVP_MD_CTX_free(c);
}

/* The initiator's HI from an I2 (RFC 7401 6.9 steps 9-11): HOST_ID in clear,
 * or decrypted from ENCRYPTED with its HIP encryption key `key`; it must hash
 * to the sender's HIT. plain / cap: room for the decrypted bytes. Returns 0,
 * or -1 with *why (the drop counter) and *notify (0 or ENCRYPTION_FAILED). */
static int
i2_peer_hi(struct hip_host *h, struct hip_assoc *a, const struct hip_params *p, uint16_t cipher,
	   const struct hip_key *key, uint8_t *plain, size_t cap, struct hip_hi *peer,
	   uint64_t **why, uint16_t *notify)
{
	struct hip_host_id hid;
	struct hip_tlv inner;
	size_t pl = 0;

	*why = &h->st.drop_malformed;
	if (p->encrypted != NULL) {
		struct hip_encrypted e;
		int ivl = hip_cipher_iv_len(cipher);

		if (ivl < 0 || hip_encrypted_parse(p->encrypted, (size_t)ivl, &e) != 0 ||
		    decrypt(cipher, key, &e, plain, cap, &pl) != 0 ||
		    hip_tlv_parse_one(plain, pl, &inner) != 0 || inner.type != HIP_PARAM_HOST_ID) {
			*notify = HIP_NOTIFY_ENCRYPTION_FAILED;
			return -1;
		}
	} else {
		inner = *p->host_id;
	}
	if (hip_host_id_parse(&inner, &hid) != 0 ||
	    hip_peer_hi_decode(a, hid.algorithm, hid.hi, hid.hi_len, peer) != 0)
		return -1;
	if (memcmp(peer->hit, a->peer_hit, HIP_HIT_LEN) != 0) {
		*why = &h->st.drop_hit_mismatch;
		return -1;
	}
	return 0;
}

/* The I2 parameters authentication does not need, checked once HIP_MAC and
 * HIP_SIGNATURE verified (RFC 7401 5.2.19: INVALID_SYNTAX only then; 6.9):
 * ESP_INFO (present, right length, KEYMAT Index keymat_index, no old SPI, a
 * new one), ESP_TRANSFORM (present, parsed before as et_ok says),
 * TRANSPORT_FORMAT_LIST and ECHO_RESPONSE_SIGNED when present. An
 * ECHO_RESPONSE_UNSIGNED is not looked at: no signature covers it, and we
 * send no ECHO_REQUEST_UNSIGNED. Returns 0 and fills *ei, or -1: the I2 is
 * refused with INVALID_SYNTAX. */
static int
i2_syntax(const struct hip_params *p, bool et_ok, int keymat_index, struct hip_esp_info *ei)
{
	struct hip_transport_format_list tf;
	struct hip_echo ec;

	if (!et_ok || p->esp_info == NULL || hip_esp_info_parse(p->esp_info, ei) != 0 ||
	    ei->keymat_index != keymat_index || ei->old_spi != 0 || ei->new_spi == 0)
		return -1;
	if (p->tf_list != NULL && hip_transport_format_list_parse(p->tf_list, &tf) != 0)
		return -1;
	if (p->echo_resp_signed != NULL && hip_echo_parse(p->echo_resp_signed, &ec) != 0)
		return -1;
	return 0;
}

/* The cell an I2 arrived in: what it adds to I2 processing (RFC 7401 6.9). */
enum i2_cell {
	I2_NEW,          /* no I2 answered, no I2 of ours out */
	I2_ANSWERED,     /* R2-SENT, ESTABLISHED: the I2 answered gets its R2 again (step 4) */
	I2_CROSSED,      /* I2-SENT: both sent I2, the smaller HIT's goes on (step 5) */
};

/* An I2 on its way through the steps of i2_in, what one hands the next. */
struct i2_work {
	uint8_t digest[HIP_RHASH_MAX];     /* i2_digest: what identifies it */
	struct hip_solution so;
	const struct hip_r1 *r1;           /* our R1 of the DH group it chose */
	struct hip_diffie_hellman dh;
	struct hip_cipher hc;
	struct hip_esp_transform et;
	bool et_ok;                        /* ESP_TRANSFORM parsed (else INVALID_SYNTAX, later) */
	int idx;                           /* KEYMAT Index of the ESP keys, bytes */
	struct hip_keys keys;
	enum hip_dir in, o;                /* key directions: from and to the peer */
	struct hip_hi peer;                /* the initiator's HI */
	struct hip_esp_info ei;            /* its ESP_INFO: our outbound SPI */
	uint32_t spi;                      /* our inbound SPI */
	uint8_t plain[HIP_HOST_ID_TLV_MAX + 32];   /* HOST_ID decrypted */
};

/* Parse: what authentication needs is there (the rest waits for it,
 * i2_syntax), and the digest of the I2 for the duplicate and replay checks. */
static int
i2_parse(struct hip_host *h, const struct hip_params *p, struct i2_work *w)
{
	if (p->solution == NULL || p->dh == NULL || p->hip_cipher == NULL || p->mac == NULL ||
	    p->sig == NULL || (p->host_id == NULL) == (p->encrypted == NULL))
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	i2_digest(p, w->digest);
	return 0;
}

/* NAT_TRAVERSAL_MODE (RFC 5770 4.3): an I2 over UDP that carries it must
 * have picked UDP-ENCAPSULATION, the one mode our R1 over UDP offers (modes
 * we do not know are ignored); one without it is taken (the UDP header
 * already says how it came). Over plain IP the parameter is ignored. 0, or
 * the drop. */
static int
i2_nat_mode(struct hip_host *h, const struct hip_rx *rx)
{
	struct hip_nat_traversal_mode nm;

	if (rx->udp.rport == 0 || rx->p->nat_mode == NULL)
		return 0;
	if (hip_nat_traversal_mode_parse(rx->p->nat_mode, &nm) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	if (!hip_nat_traversal_mode_has(&nm, HIP_NAT_MODE_UDP_ENCAPSULATION))
		return hip_drop(h, &h->st.drop_nat_mode, HIP_E_HOST_POLICY);
	return 0;
}

/* Puzzle: the A bit refused (6.9: our policy), then the R1 generation, #I
 * and Opaque recomputed for the sender, and the solution (steps 7, 8):
 * nothing costly before. */
static int
i2_puzzle(struct hip_host *h, const struct hip_rx *rx, struct i2_work *w,
	  const struct hip_r1_gen **gen)
{
	const struct hip_params *p = rx->p;
	const struct hip_hdr *hdr = rx->hdr;
	const struct hip_r1_gen *g;
	struct hip_r1_counter rc;
	uint8_t i_exp[HIP_RHASH_MAX], opaque[2];

	if ((hdr->controls & HIP_CONTROL_ANONYMOUS) != 0)
		return hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	if (hip_solution_parse(p->solution, h->rhash_len, &w->so) != 0 ||
	    (p->r1_counter != NULL && hip_r1_counter_parse(p->r1_counter, &rc) != 0))
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_LENGTH);
	g = p->r1_counter != NULL ? hip_r1_gen_find(h, rc.generation)
				  : hip_r1_gen_by_opaque(h, w->so.opaque);
	if (g == NULL)
		return hip_drop(h, &h->st.drop_r1_gen, HIP_E_HOST_AUTH);
	if (hip_r1_puzzle_i(h, g, hdr->hit_sender, i_exp, opaque) != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	if (CRYPTO_memcmp(i_exp, w->so.i, h->rhash_len) != 0 ||
	    memcmp(opaque, w->so.opaque, 2) != 0 || w->so.k != g->k ||
	    hip_puzzle_verify(h->suite, g->k, w->so.i, h->rhash_len, hdr->hit_sender, h->hi->hit,
			      w->so.j) != 0)
		return hip_drop(h, &h->st.drop_puzzle, HIP_E_HOST_AUTH);
	*gen = g;
	return 0;
}

/* Choices: among those our R1 of generation g offered (steps 9, 10; RFC
 * 7402 6.5), else NOTIFY INVALID_DH_CHOSEN, INVALID_HIP_CIPHER_CHOSEN,
 * INVALID_ESP_TRANSFORM_CHOSEN or UNSUPPORTED_HIT_SUITE. A malformed
 * ESP_TRANSFORM waits for authentication (INVALID_SYNTAX); the keys then
 * are the HIP keys alone. */
static int
i2_choices(struct hip_host *h, const struct hip_rx *rx, const struct hip_r1_gen *g,
	   struct i2_work *w)
{
	const struct hip_params *p = rx->p;
	uint16_t peer_suite = hip_hit_oga(rx->hdr->hit_sender), notify = 0;

	if (hip_diffie_hellman_parse(p->dh, &w->dh) != 0 || hip_cipher_parse(p->hip_cipher, &w->hc) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	w->et_ok = p->esp_transform != NULL && hip_esp_transform_parse(p->esp_transform, &w->et) == 0;
	for (unsigned x = 0; x < g->n && w->r1 == NULL; x++)
		if (w->dh.n == 1 && g->r1[x].group == w->dh.v[0].group_id)
			w->r1 = &g->r1[x];
	if (w->r1 == NULL)
		notify = HIP_NOTIFY_INVALID_DH_CHOSEN;
	else if (w->hc.n != 1 ||
		 !hip_bex_in_list16(h->cfg.hip_ciphers, h->cfg.n_hip_ciphers, w->hc.ids[0]))
		notify = HIP_NOTIFY_INVALID_HIP_CIPHER_CHOSEN;
	else if (w->et_ok && (w->et.n != 1 || !hip_bex_in_list16(h->cfg.esp_transforms,
								 h->cfg.n_esp_transforms,
								 w->et.suites[0])))
		notify = HIP_NOTIFY_INVALID_ESP_TRANSFORM_CHOSEN;
	else if (peer_suite != HIP_SUITE_RSA_DSA_SHA256 && peer_suite != HIP_SUITE_ECDSA_SHA384)
		notify = HIP_NOTIFY_UNSUPPORTED_HIT_SUITE;
	if (notify != 0) {
		hip_notify_send(h, rx->hdr->hit_sender, rx->dst, rx->src, &rx->udp, notify, NULL, 0,
				rx->now);
		return hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	}
	return 0;
}

/* DH and KEYMAT: Kij with our R1's key (step 11), KEYMAT and the keys
 * drawn from it (RFC 7401 6.5, RFC 7402 7). */
static int
i2_keys(struct hip_assoc *a, const struct hip_rx *rx, struct i2_work *w)
{
	struct hip_host *h = a->h;
	const uint8_t *hit_i = rx->hdr->hit_sender;
	uint8_t kij[HIP_DH_SECRET_MAX];
	size_t kl = 0;
	int err;

	h->st.dh_derive++;
	if (hip_dh_derive(&w->r1->dh, w->dh.v[0].pub, w->dh.v[0].pub_len, kij, sizeof(kij), &kl) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	w->idx = hip_keymat_esp_index(h->suite, w->hc.ids[0]);
	err = hip_bex_keys(a, h->suite, w->hc.ids[0], w->et_ok ? w->et.suites[0] : 0, kij, kl,
			   w->so.i, w->so.j, h->rhash_len, h->hi->hit, hit_i, &w->keys);
	OPENSSL_cleanse(kij, sizeof(kij));
	if (err != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	w->o = hip_dir_out(h->hi->hit, hit_i);
	w->in = hip_dir_in(h->hi->hit, hit_i);
	return 0;
}

/* Refuse the I2 from here on: NOTIFY `notify` (0: none), drop in *why. */
static int
i2_refuse(struct hip_host *h, const struct hip_rx *rx, uint16_t notify, uint64_t *why, int err)
{
	if (notify != 0)
		hip_notify_send(h, rx->hdr->hit_sender, rx->dst, rx->src, &rx->udp, notify, NULL, 0,
				rx->now);
	return hip_drop(h, why, err);
}

/* Decrypt HI and verify: the initiator's HI (steps 12, 13; NOTIFY
 * ENCRYPTION_FAILED), HIP_MAC (step 15; HIP_MAC_FAILED), HIP_SIGNATURE
 * (step 16; AUTHENTICATION_FAILED). Then, authenticated, what is wrong is
 * INVALID_SYNTAX (5.2.19), and our inbound SPI. */
static int
i2_verify(struct hip_assoc *a, const struct hip_rx *rx, struct i2_work *w)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;
	uint16_t notify = 0;
	uint64_t *why;

	if (i2_peer_hi(h, a, p, w->hc.ids[0], &w->keys.hip_enc[w->in], w->plain, sizeof(w->plain),
		       &w->peer, &why, &notify) != 0)
		return i2_refuse(h, rx, notify, why, HIP_E_HOST_AUTH);
	if (hip_cover_check_mac(h, rx->pkt, p->mac, h->suite, &w->keys.hip_int[w->in], NULL, 0) != 0)
		return i2_refuse(h, rx, HIP_NOTIFY_HIP_MAC_FAILED, &h->st.drop_mac, HIP_E_HOST_AUTH);
	if (hip_cover_check_sig(h, rx->pkt, p->sig, &w->peer, NULL) != 0)
		return i2_refuse(h, rx, HIP_NOTIFY_AUTHENTICATION_FAILED, &h->st.drop_sig,
				 HIP_E_HOST_AUTH);
	if (i2_syntax(p, w->et_ok, w->idx, &w->ei) != 0)
		return i2_refuse(h, rx, HIP_NOTIFY_INVALID_SYNTAX, &h->st.drop_malformed,
				 HIP_E_PARAM_VALUE);
	w->spi = h->cfg.io.spi_alloc ? h->cfg.io.spi_alloc(h->cfg.io.ctx) : 0;
	if (w->spi == 0)
		return i2_refuse(h, rx, 0, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	return 0;
}

/* Commit: a new association (a restarted peer's replaces the old one; in
 * I2-SENT our own Kij is dropped, step 5), its keys and SPIs the I2's. */
static void
i2_commit(struct hip_assoc *a, const struct hip_rx *rx, struct i2_work *w)
{
	struct hip_host *h = a->h;

	hip_assoc_sa_down(a);
	hip_assoc_reset(a);
	a->initiator = false;
	a->peer_hi = w->peer;
	a->suite = h->suite;
	a->dh_group = w->dh.v[0].group_id;
	a->hip_cipher = w->hc.ids[0];
	a->esp_transform = w->et.suites[0];
	memcpy(a->i, w->so.i, h->rhash_len);
	memcpy(a->j, w->so.j, h->rhash_len);
	a->ij_len = h->rhash_len;
	a->keys = w->keys;
	hip_keys_wipe(&w->keys);
	a->spi_in = w->spi;
	a->spi_out = w->ei.new_spi;
	a->remote = *rx->src;
	a->local = *rx->dst;
	a->udp = rx->udp;     /* RFC 5770: answered, and ESP sent, the way the I2 came */
	memcpy(a->i2_digest, w->digest, sizeof(w->digest));
	memset(&a->times, 0, sizeof(a->times));
	a->times.i1_to_r1 = a->i1_to_r1_last;
}

/* The R2 (RFC 7401 5.3.4: ESP_INFO, HIP_MAC_2, HIP_SIGNATURE) into a->r2,
 * R2-SENT, the SAs up, then the R2 out: the initiator may send ESP as soon
 * as it has R2, and that packet must find our inbound SA in place. t0: when
 * the I2 came (the i2_to_r2 statistic). */
static int
i2_answer(struct hip_assoc *a, const struct hip_rx *rx, int idx, enum hip_dir o, uint64_t t0)
{
	struct hip_host *h = a->h;
	struct hip_builder b;
	struct hip_esp_info rei = { .keymat_index = (uint16_t)idx, .old_spi = 0, .new_spi = a->spi_in };
	struct hip_sa_keys sin, sout;
	int len;

	if (hip_build_start(&b, &a->r2, HIP_R2, h->hi->hit, a->peer_hit) != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	hip_esp_info_put(&b, &rei);
	hip_cover_put_mac(h, &b, HIP_PARAM_HIP_MAC_2, a->suite, &a->keys.hip_int[o],
			  h->host_id_tlv, h->host_id_tlv_len);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE, 0);
	len = hip_build_finish(&b);
	if (len < 0) {
		a->r2.len = 0;
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	}
	a->r2.len = (size_t)len;
	hip_state_set(a, HIP_STATE_R2_SENT, rx->now);
	hip_bex_sa_keys(a, &a->keys, a->spi_in, a->spi_out, &sin, &sout);
	if (h->cfg.io.sa_up != NULL)
		h->cfg.io.sa_up(h->cfg.io.ctx, a->user, &sout, &sin, 0);
	a->sa_given = true;
	OPENSSL_cleanse(&sin, sizeof(sin));
	OPENSSL_cleanse(&sout, sizeof(sout));
	hip_send(h, rx->dst, rx->src, &rx->udp, a->r2.b, a->r2.len);
	h->st.r2_tx++;
	a->times.i2_to_r2 = hip_mono_ns() - t0;
	hip_assoc_schedule_rekey(a, rx->now);
	hip_assoc_report_bex(a);   /* the responder's part is done with R2 (hip_assoc_established) */
	return 0;
}

/* An I2 in `cell` (RFC 7401 6.9), its checks in the order hip_bex.c gives. */
static int
i2_in(struct hip_assoc *a, const struct hip_rx *rx, enum i2_cell cell)
{
	struct hip_host *h = a->h;
	uint64_t t0 = hip_mono_ns();
	const struct hip_r1_gen *g = NULL;
	struct i2_work w = { 0 };
	int rc;

	h->st.i2_rx++;
	rc = i2_parse(h, rx->p, &w);
	if (rc == 0)
		rc = i2_nat_mode(h, rx);
	if (rc != 0)
		return rc;
	/* 6.9 step 4: a duplicate of the I2 we answered gets the same R2 */
	if (cell == I2_ANSWERED && a->r2.len != 0 &&
	    CRYPTO_memcmp(w.digest, a->i2_digest, sizeof(w.digest)) == 0) {
		h->st.i2_dup++;
		hip_send(h, rx->dst, rx->src, &rx->udp, a->r2.b, a->r2.len);
		h->st.r2_tx++;
		return 0;
	}
	/* an older I2 of this peer replayed: nothing to answer it with */
	for (unsigned x = 0; x < HIP_I2_OLD; x++)
		if (CRYPTO_memcmp(w.digest, a->i2_old[x], sizeof(w.digest)) == 0)
			return hip_drop(h, &h->st.drop_replay, HIP_E_HOST_STATE);
	/* step 5: both sent I2; the one from the smaller HIT goes on */
	if (cell == I2_CROSSED && hip_hit_cmp(h->hi->hit, rx->hdr->hit_sender) < 0) {
		h->st.sim_init++;
		return hip_drop(h, &h->st.drop_state, HIP_E_HOST_STATE);
	}
	rc = i2_puzzle(h, rx, &w, &g);
	if (rc == 0)
		rc = i2_choices(h, rx, g, &w);
	if (rc == 0)
		rc = i2_keys(a, rx, &w);
	if (rc != 0)
		return rc;
	rc = i2_verify(a, rx, &w);
	if (rc != 0) {
		hip_keys_wipe(&w.keys);
		hip_hi_free(&w.peer);
		OPENSSL_cleanse(w.plain, sizeof(w.plain));
		return rc;
	}
	if (cell == I2_CROSSED)
		h->st.sim_init++;
	i2_commit(a, rx, &w);
	return i2_answer(a, rx, w.idx, w.o, t0);
}

int
hip_bex_in_i2(struct hip_assoc *a, const struct hip_rx *rx)
{
	return i2_in(a, rx, I2_NEW);
}

int
hip_bex_in_i2_answered(struct hip_assoc *a, const struct hip_rx *rx)
{
	return i2_in(a, rx, I2_ANSWERED);
}

int
hip_bex_in_i2_sent(struct hip_assoc *a, const struct hip_rx *rx)
{
	return i2_in(a, rx, I2_CROSSED);
}
