/* SPDX-License-Identifier: BSD-3-Clause
 * The Base Exchange (RFC 7401 sections 4.1, 5.3.1 - 5.3.4, 6.6 - 6.10; ESP
 * parameters of RFC 7402 section 5):
 *
 *   I1  DH_GROUP_LIST
 *   R1  R1_COUNTER, PUZZLE, DH_GROUP_LIST, DIFFIE_HELLMAN, HIP_CIPHER, HOST_ID,
 *       HIT_SUITE_LIST, TRANSPORT_FORMAT_LIST, ESP_TRANSFORM, HIP_SIGNATURE_2
 *       (precomputed: hip_r1.c)
 *   I2  ESP_INFO, R1_COUNTER, SOLUTION, DIFFIE_HELLMAN, HIP_CIPHER,
 *       ENCRYPTED{HOST_ID} (HOST_ID when the cipher is NULL),
 *       [ECHO_RESPONSE_SIGNED], TRANSPORT_FORMAT_LIST, ESP_TRANSFORM, HIP_MAC,
 *       HIP_SIGNATURE, [ECHO_RESPONSE_UNSIGNED]
 *   R2  ESP_INFO, HIP_MAC_2, HIP_SIGNATURE
 *
 * Choices. The responder picks the DH group: its first group that the I1
 * lists too (its own first when none); the initiator checks that the R1's
 * group is exactly that, from the signed DH_GROUP_LIST (6.8 step 9: anything
 * else means the I1 list was tampered with). The initiator picks the HIP
 * cipher and the ESP transform: the first in the R1's (responder's preference)
 * order that it supports. RHASH of the association (puzzle, KEYMAT, HIP_MAC)
 * is the responder's HIT suite's.
 *
 * I2 processing order at the responder: the duplicate check (same SOLUTION
 * and DH value as the I2 answered: the stored R2 again), the R1 generation,
 * #I and Opaque recomputed, the puzzle, and only then anything costly:
 * choices (NOTIFY INVALID_DH_CHOSEN, INVALID_HIP_CIPHER_CHOSEN,
 * INVALID_ESP_TRANSFORM_CHOSEN), Diffie-Hellman, KEYMAT, decryption of
 * HOST_ID, HIT = ORCHID(HI), HIP_MAC (NOTIFY HIP_MAC_FAILED), HIP_SIGNATURE
 * (NOTIFY AUTHENTICATION_FAILED). The parameters authentication does not
 * need (ESP_INFO, ESP_TRANSFORM when malformed, TRANSPORT_FORMAT_LIST,
 * ECHO_RESPONSE_SIGNED) are checked only then: a wrong one gets NOTIFY
 * INVALID_SYNTAX (5.2.19: only for a verified packet). No association state
 * changes before all of that passed.
 */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_internal.h"
#include "hip_mac.h"
#include "hip_puzzle.h"

/* ---- helpers ---- */

int
hip_bex_host_id_tlv(struct hip_host *h)
{
	struct hip_builder b;
	struct hip_host_id id = {
		.algorithm = h->hi->algo, .di_type = HIP_DI_NONE,
		.hi_len = h->hi->hi_len, .hi = h->hi->hi,
	};
	int len;

	if (hip_build_init(&b, h->scratch, HIP_PACKET_MAX, HIP_I1, h->hi->hit, h->hi->hit) != 0 ||
	    hip_host_id_put(&b, &id) != 0)
		return -1;
	len = hip_build_finish(&b);
	if (len < 0 || (size_t)len - HIP_HDR_LEN > sizeof(h->host_id_tlv))
		return -1;
	h->host_id_tlv_len = (size_t)len - HIP_HDR_LEN;
	memcpy(h->host_id_tlv, h->scratch + HIP_HDR_LEN, h->host_id_tlv_len);
	return 0;
}

int
hip_bex_put_host_id(struct hip_host *h, struct hip_builder *b)
{
	struct hip_host_id id = {
		.algorithm = h->hi->algo, .di_type = HIP_DI_NONE,
		.hi_len = h->hi->hi_len, .hi = h->hi->hi,
	};

	return hip_host_id_put(b, &id);
}

static bool
in_list8(const uint8_t *l, unsigned n, uint8_t v)
{
	for (unsigned x = 0; x < n; x++)
		if (l[x] == v)
			return true;
	return false;
}

static bool
in_list16(const uint16_t *l, unsigned n, uint16_t v)
{
	for (unsigned x = 0; x < n; x++)
		if (l[x] == v)
			return true;
	return false;
}

void
hip_bex_sa_keys(const struct hip_assoc *a, const struct hip_keys *k, uint32_t spi_in,
		uint32_t spi_out, struct hip_sa_keys *in, struct hip_sa_keys *out)
{
	enum hip_dir o = hip_dir_out(a->h->hi->hit, a->peer_hit);
	enum hip_dir i = hip_dir_in(a->h->hi->hit, a->peer_hit);

	memset(in, 0, sizeof(*in));
	memset(out, 0, sizeof(*out));
	in->spi = spi_in;
	out->spi = spi_out;
	in->esp_transform = out->esp_transform = a->esp_transform;
	memcpy(in->enc_key, k->esp_enc[i].b, k->esp_enc[i].len);
	in->enc_key_len = k->esp_enc[i].len;
	memcpy(in->auth_key, k->esp_auth[i].b, k->esp_auth[i].len);
	in->auth_key_len = k->esp_auth[i].len;
	memcpy(out->enc_key, k->esp_enc[o].b, k->esp_enc[o].len);
	out->enc_key_len = k->esp_enc[o].len;
	memcpy(out->auth_key, k->esp_auth[o].b, k->esp_auth[o].len);
	out->auth_key_len = k->esp_auth[o].len;
	in->local = out->local = a->local;
	in->remote = out->remote = a->remote;
}

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

/* HOST_ID inside ENCRYPTED (RFC 7401 5.2.18): the TLV (8-byte aligned),
 * AES-CBC with PKCS#7 padding to the block; the receiver ignores what
 * follows the inner TLV, whatever padding the sender chose. */
static const EVP_CIPHER *
cbc_cipher(uint16_t cipher)
{
	switch (cipher) {
	case HIP_CIPHER_AES_128_CBC: return EVP_aes_128_cbc();
	case HIP_CIPHER_AES_256_CBC: return EVP_aes_256_cbc();
	default: return NULL;
	}
}

static int
encrypt_host_id(struct hip_host *h, uint16_t cipher, const struct hip_key *key,
		uint8_t *iv, uint8_t *out, size_t cap, size_t *out_len)
{
	const EVP_CIPHER *c = cbc_cipher(cipher);
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

static int
decrypt(uint16_t cipher, const struct hip_key *key, const struct hip_encrypted *e,
	uint8_t *out, size_t cap, size_t *out_len)
{
	const EVP_CIPHER *c = cbc_cipher(cipher);
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

/* KEYMAT for the Base Exchange and every key drawn from it. */
static int
bex_keys(struct hip_assoc *a, uint8_t suite, uint16_t cipher, uint16_t esp, const uint8_t *kij,
	 size_t kij_len, const uint8_t *i, const uint8_t *j, size_t ij_len, const uint8_t *hit_a,
	 const uint8_t *hit_b, struct hip_keys *keys)
{
	uint8_t km[1024];
	int idx = hip_keymat_esp_index(suite, cipher);
	long need = idx < 0 ? -1 : hip_keymat_len_needed(suite, cipher, esp, (uint16_t)idx);
	int rc = -1;

	if (need > 0 && (size_t)need <= sizeof(km) &&
	    hip_keymat_derive(suite, kij, kij_len, i, j, ij_len, hit_a, hit_b, km, (size_t)need) == 0 &&
	    hip_keys_draw(km, (size_t)need, suite, cipher, esp, (uint16_t)idx, keys) == 0)
		rc = 0;
	if (rc == 0) {
		hip_vector(a->h, a->user, "kij", kij, kij_len);
		hip_vector(a->h, a->user, "keymat", km, (size_t)need);
		hip_vector(a->h, a->user, "puzzle_i", i, ij_len);
		hip_vector(a->h, a->user, "puzzle_j", j, ij_len);
	}
	OPENSSL_cleanse(km, sizeof(km));
	return rc;
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
	hip_state_set(a, HIP_STATE_I1_SENT, now);
	hip_rtx_arm(a, HIP_I1_RETRIES_MAX, now);
	return hip_send(h, &a->local, &a->remote, a->tx.b, a->tx.len);
}

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
		if (in_list8(gl->ids, gl->n, h->cfg.dh_groups[x])) {
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
	memcpy(out.b, r1->pkt.b, r1->pkt.len);
	out.len = r1->pkt.len;
	memcpy(out.b + HIP_OFF_HIT_RECEIVER, hdr->hit_sender, HIP_HIT_LEN);
	if (hip_r1_puzzle_i(h, g, hdr->hit_sender, out.b + r1->puzzle_off + HIP_TLV_HDR_LEN + 4,
			    out.b + r1->puzzle_off + HIP_TLV_HDR_LEN + 2) != 0 ||
	    hip_send(h, rx->dst, rx->src, out.b, out.len) != 0)
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

/* The R1's choices (RFC 7401 6.8 steps 8, 9; RFC 7402 5.1.2): our HIT suite
 * among the responder's, its DH group the first of ours our I1 listed with a
 * value in DIFFIE_HELLMAN, the first HIP cipher and ESP transform of its lists
 * we support, ESP in its TRANSPORT_FORMAT_LIST, a puzzle we solve. Fills
 * *group, *peer_pub, *cipher, *esp; returns 0, or -1 to refuse the R1. */
static int
r1_choices(const struct hip_host *h, const struct hip_assoc *a, const struct hip_hit_suite_list *sl,
	   const struct hip_dh_group_list *gl, const struct hip_diffie_hellman *dh,
	   const struct hip_cipher *hc, const struct hip_esp_transform *et,
	   const struct hip_transport_format_list *tf, const struct hip_puzzle *pz,
	   uint8_t *group, const struct hip_dh_value **peer_pub, uint16_t *cipher, uint16_t *esp)
{
	bool suite_ok = false;

	*group = 0;
	*peer_pub = NULL;
	*cipher = *esp = 0;
	for (unsigned x = 0; x < sl->n; x++)
		suite_ok |= hip_hit_suite_list_suite(sl->ids[x]) == h->suite;
	for (unsigned x = 0; x < gl->n && *group == 0; x++)
		if (in_list8(a->i1_groups, a->n_i1_groups, gl->ids[x]))
			*group = gl->ids[x];
	for (unsigned x = 0; x < dh->n; x++)
		if (dh->v[x].group_id == *group)
			*peer_pub = &dh->v[x];
	for (unsigned x = 0; x < hc->n && *cipher == 0; x++)
		if (in_list16(h->cfg.hip_ciphers, h->cfg.n_hip_ciphers, hc->ids[x]))
			*cipher = hc->ids[x];
	for (unsigned x = 0; x < et->n && *esp == 0; x++)
		if (in_list16(h->cfg.esp_transforms, h->cfg.n_esp_transforms, et->suites[x]))
			*esp = et->suites[x];
	return suite_ok && *group != 0 && *peer_pub != NULL && *cipher != 0 && *esp != 0 &&
	       in_list16(tf->types, tf->n, HIP_PARAM_ESP_TRANSFORM) && pz->k <= HIP_PUZZLE_K_ACCEPT ? 0 : -1;
}

/* An R1 for association a (RFC 7401 6.8); newer_only (I2-SENT): only one of
 * a newer R1 generation than the R1 answered. */
static int
r1_in(struct hip_assoc *a, const struct hip_rx *rx, bool newer_only)
{
	struct hip_host *h = a->h;
	const uint8_t *pkt = rx->pkt;
	const struct hip_hdr *hdr = rx->hdr;
	const struct hip_params *p = rx->p;
	const struct gw_addr *src = rx->src, *dst = rx->dst;
	uint64_t now = rx->now;
	uint64_t t0 = hip_mono_ns();
	struct hip_hi peer = { 0 };
	struct hip_host_id hid;
	struct hip_r1_counter rc = { 0 };
	struct hip_puzzle pz;
	struct hip_dh_group_list gl;
	struct hip_diffie_hellman dh;
	struct hip_cipher hc;
	struct hip_hit_suite_list sl;
	struct hip_transport_format_list tf;
	struct hip_esp_transform et;
	struct hip_keys keys;
	struct hip_dh mine = { 0 };
	struct hip_txbuf i2;
	struct i2_plan pl = { .r1 = p };
	uint8_t suite, group = 0, kij[HIP_DH_SECRET_MAX], pub[HIP_DH_PUB_MAX], j[HIP_RHASH_MAX];
	uint16_t cipher = 0, esp = 0;
	const struct hip_dh_value *peer_pub = NULL;
	size_t rl, kl = 0, publ = 0;
	uint32_t spi;
	int err = HIP_E_HOST_POLICY, idx;
	uint64_t *why = &h->st.drop_policy;

	if (p->puzzle == NULL || p->dh_group_list == NULL || p->dh == NULL || p->hip_cipher == NULL ||
	    p->host_id == NULL || p->hit_suite_list == NULL || p->tf_list == NULL ||
	    p->esp_transform == NULL || p->sig2 == NULL ||
	    (p->r1_counter != NULL && hip_r1_counter_parse(p->r1_counter, &rc) != 0) ||
	    hip_host_id_parse(p->host_id, &hid) != 0 || hip_dh_group_list_parse(p->dh_group_list, &gl) != 0 ||
	    hip_diffie_hellman_parse(p->dh, &dh) != 0 || hip_cipher_parse(p->hip_cipher, &hc) != 0 ||
	    hip_hit_suite_list_parse(p->hit_suite_list, &sl) != 0 ||
	    hip_transport_format_list_parse(p->tf_list, &tf) != 0 ||
	    hip_esp_transform_parse(p->esp_transform, &et) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	/* the HOST_ID TLV is kept for HIP_MAC_2 (commit below): a Domain
	 * Identifier the HIT does not cover must not make it outgrow its copy */
	if (p->host_id->total > sizeof(a->peer_host_id))
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_LENGTH);
	/* 6.8 step 10: in I2-SENT only a newer R1 generation restarts */
	if (newer_only &&
	    (p->r1_counter == NULL || !a->have_r1_gen || rc.generation <= a->r1_gen))
		return hip_drop(h, &h->st.drop_state, HIP_E_HOST_STATE);
	if ((hdr->controls & HIP_CONTROL_ANONYMOUS) != 0)
		return hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	/* the responder's identity: HOST_ID must hash to its HIT */
	if (hip_peer_hi_decode(a, hid.algorithm, hid.hi, hid.hi_len, &peer) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	if (memcmp(peer.hit, hdr->hit_sender, HIP_HIT_LEN) != 0) {
		hip_hi_free(&peer);
		return hip_drop(h, &h->st.drop_hit_mismatch, HIP_E_HOST_AUTH);
	}
	suite = peer.suite;
	rl = hip_suite_rhash_len(suite);
	if (hip_puzzle_parse(p->puzzle, rl, &pz) != 0) {
		hip_hi_free(&peer);
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_LENGTH);
	}
	if (hip_cover_check_sig(h, pkt, p->sig2, &peer, p->puzzle) != 0) {
		hip_hi_free(&peer);
		return hip_drop(h, &h->st.drop_sig, HIP_E_HOST_AUTH);
	}
	if (r1_choices(h, a, &sl, &gl, &dh, &hc, &et, &tf, &pz, &group, &peer_pub, &cipher, &esp) != 0)
		goto refuse;
	/* step 14: the puzzle; step 15: Diffie-Hellman */
	if (solve_puzzle(h, suite, pz.k, pz.i, rl, h->hi->hit, peer.hit, j) != 0) {
		err = HIP_E_HOST_INTERNAL;
		why = &h->st.drop_internal;
		goto refuse;
	}
	h->st.dh_derive++;
	if (hip_rand_dh(h, group, &mine) != 0 ||
	    hip_dh_derive(&mine, peer_pub->pub, peer_pub->pub_len, kij, sizeof(kij), &kl) != 0 ||
	    hip_dh_public(&mine, pub, sizeof(pub), &publ) != 0) {
		err = HIP_E_PARAM_VALUE;
		why = &h->st.drop_malformed;
		goto refuse;
	}
	idx = hip_keymat_esp_index(suite, cipher);
	if (bex_keys(a, suite, cipher, esp, kij, kl, pz.i, j, rl, h->hi->hit, peer.hit, &keys) != 0) {
		err = HIP_E_HOST_INTERNAL;
		why = &h->st.drop_internal;
		goto refuse;
	}
	OPENSSL_cleanse(kij, sizeof(kij));
	spi = a->spi_in != 0 ? a->spi_in : (h->cfg.io.spi_alloc ? h->cfg.io.spi_alloc(h->cfg.io.ctx) : 0);
	if (spi == 0) {
		hip_keys_wipe(&keys);
		err = HIP_E_HOST_INTERNAL;
		why = &h->st.drop_internal;
		goto refuse;
	}
	/* the I2 before anything is committed: an R1 it cannot answer in one
	 * packet (echo requests too long) is refused, the association untouched */
	pl.rc = p->r1_counter != NULL ? &rc : NULL;
	pl.pz = &pz;
	pl.j = j;
	pl.rl = rl;
	pl.suite = suite;
	pl.group = group;
	pl.pub = pub;
	pl.pub_len = publ;
	pl.cipher = cipher;
	pl.esp = esp;
	pl.keymat_index = idx;
	pl.spi = spi;
	pl.keys = &keys;
	err = build_i2(h, a, &pl, &i2);
	if (err != 0) {
		hip_keys_wipe(&keys);
		why = err == HIP_E_NOSPACE ? &h->st.drop_malformed : &h->st.drop_internal;
		err = err == HIP_E_NOSPACE ? HIP_E_NOSPACE : HIP_E_HOST_INTERNAL;
		goto refuse;
	}

	/* commit: the association now follows this R1 */
	hip_hi_free(&a->peer_hi);
	a->peer_hi = peer;
	memset(&peer, 0, sizeof(peer));
	memcpy(a->peer_host_id, pkt + p->host_id->offset, p->host_id->total);
	a->peer_host_id_len = p->host_id->total;
	a->suite = suite;
	a->dh_group = group;
	a->hip_cipher = cipher;
	a->esp_transform = esp;
	memcpy(a->i, pz.i, rl);
	memcpy(a->j, j, rl);
	a->ij_len = rl;
	hip_keys_wipe(&a->keys);
	a->keys = keys;
	hip_keys_wipe(&keys);
	a->spi_in = spi;
	a->r1_gen = rc.generation;
	a->have_r1_gen = p->r1_counter != NULL;
	hip_dh_free(&a->dh);
	a->dh = mine;
	a->remote = *src;
	a->t_r1_in = now;
	memcpy(a->tx.b, i2.b, i2.len);
	a->tx.len = i2.len;
	hip_state_set(a, HIP_STATE_I2_SENT, now);
	hip_rtx_arm(a, HIP_I2_RETRIES_MAX, now);
	hip_send(h, dst, src, a->tx.b, a->tx.len);
	a->local = *dst;
	a->times.r1_to_i2 = hip_mono_ns() - t0;
	return 0;

refuse:
	hip_dh_free(&mine);
	hip_hi_free(&peer);
	OPENSSL_cleanse(kij, sizeof(kij));
	return hip_drop(h, why, err);
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

static int
i2_in(struct hip_assoc *a, const struct hip_rx *rx, enum i2_cell cell)
{
	struct hip_host *h = a->h;
	const uint8_t *pkt = rx->pkt;
	const struct hip_hdr *hdr = rx->hdr;
	const struct hip_params *p = rx->p;
	const struct gw_addr *src = rx->src, *dst = rx->dst;
	uint64_t now = rx->now;
	uint64_t t0 = hip_mono_ns();
	const struct hip_r1_gen *g;
	const struct hip_r1 *r1 = NULL;
	struct hip_r1_counter rc;
	struct hip_solution so;
	struct hip_diffie_hellman dh;
	struct hip_cipher hc;
	struct hip_esp_transform et;
	struct hip_esp_info ei;
	struct hip_keys keys;
	struct hip_hi peer = { 0 };
	uint8_t digest[HIP_RHASH_MAX], i_exp[HIP_RHASH_MAX], opaque[2], kij[HIP_DH_SECRET_MAX];
	uint8_t plain[HIP_HOST_ID_TLV_MAX + 32];
	size_t kl = 0;
	uint16_t peer_suite = hip_hit_oga(hdr->hit_sender), notify = 0;
	enum hip_dir o, in;
	uint32_t spi;
	int idx, err;
	bool et_ok;
	uint64_t *why;

	h->st.i2_rx++;
	/* what authentication needs; the rest waits for it (i2_syntax) */
	if (p->solution == NULL || p->dh == NULL || p->hip_cipher == NULL || p->mac == NULL ||
	    p->sig == NULL || (p->host_id == NULL) == (p->encrypted == NULL))
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	/* 6.9 step 4: a duplicate of the I2 we answered gets the same R2 */
	i2_digest(p, digest);
	if (cell == I2_ANSWERED && a->r2.len != 0 &&
	    CRYPTO_memcmp(digest, a->i2_digest, sizeof(digest)) == 0) {
		h->st.i2_dup++;
		hip_send(h, dst, src, a->r2.b, a->r2.len);
		h->st.r2_tx++;
		return 0;
	}
	/* an older I2 of this peer replayed: nothing to answer it with */
	for (unsigned x = 0; x < HIP_I2_OLD; x++)
		if (CRYPTO_memcmp(digest, a->i2_old[x], sizeof(digest)) == 0)
			return hip_drop(h, &h->st.drop_replay, HIP_E_HOST_STATE);
	/* step 5: both sent I2; the one from the smaller HIT goes on */
	if (cell == I2_CROSSED && hip_hit_cmp(h->hi->hit, hdr->hit_sender) < 0) {
		h->st.sim_init++;
		return hip_drop(h, &h->st.drop_state, HIP_E_HOST_STATE);
	}
	if ((hdr->controls & HIP_CONTROL_ANONYMOUS) != 0)
		return hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	if (hip_solution_parse(p->solution, h->rhash_len, &so) != 0 ||
	    (p->r1_counter != NULL && hip_r1_counter_parse(p->r1_counter, &rc) != 0))
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_LENGTH);
	/* the R1 generation, #I and Opaque, then the puzzle: nothing costly before */
	g = p->r1_counter != NULL ? hip_r1_gen_find(h, rc.generation)
				  : hip_r1_gen_by_opaque(h, so.opaque);
	if (g == NULL)
		return hip_drop(h, &h->st.drop_r1_gen, HIP_E_HOST_AUTH);
	if (hip_r1_puzzle_i(h, g, hdr->hit_sender, i_exp, opaque) != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	if (CRYPTO_memcmp(i_exp, so.i, h->rhash_len) != 0 || memcmp(opaque, so.opaque, 2) != 0 ||
	    so.k != g->k ||
	    hip_puzzle_verify(h->suite, g->k, so.i, h->rhash_len, hdr->hit_sender, h->hi->hit, so.j) != 0)
		return hip_drop(h, &h->st.drop_puzzle, HIP_E_HOST_AUTH);

	/* the choices must be among those R1 offered; a malformed ESP_TRANSFORM
	 * waits for authentication (INVALID_SYNTAX), the keys then are the HIP
	 * keys alone */
	if (hip_diffie_hellman_parse(p->dh, &dh) != 0 || hip_cipher_parse(p->hip_cipher, &hc) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	et_ok = p->esp_transform != NULL && hip_esp_transform_parse(p->esp_transform, &et) == 0;
	for (unsigned x = 0; x < g->n && r1 == NULL; x++)
		if (dh.n == 1 && g->r1[x].group == dh.v[0].group_id)
			r1 = &g->r1[x];
	if (r1 == NULL)
		notify = HIP_NOTIFY_INVALID_DH_CHOSEN;
	else if (hc.n != 1 || !in_list16(h->cfg.hip_ciphers, h->cfg.n_hip_ciphers, hc.ids[0]))
		notify = HIP_NOTIFY_INVALID_HIP_CIPHER_CHOSEN;
	else if (et_ok && (et.n != 1 ||
			   !in_list16(h->cfg.esp_transforms, h->cfg.n_esp_transforms, et.suites[0])))
		notify = HIP_NOTIFY_INVALID_ESP_TRANSFORM_CHOSEN;
	else if (peer_suite != HIP_SUITE_RSA_DSA_SHA256 && peer_suite != HIP_SUITE_ECDSA_SHA384)
		notify = HIP_NOTIFY_UNSUPPORTED_HIT_SUITE;
	if (notify != 0) {
		hip_notify_send(h, hdr->hit_sender, dst, src, notify, NULL, 0, now);
		return hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	}

	/* Diffie-Hellman and KEYMAT */
	h->st.dh_derive++;
	if (hip_dh_derive(&r1->dh, dh.v[0].pub, dh.v[0].pub_len, kij, sizeof(kij), &kl) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	idx = hip_keymat_esp_index(h->suite, hc.ids[0]);
	err = bex_keys(a, h->suite, hc.ids[0], et_ok ? et.suites[0] : 0, kij, kl, so.i, so.j,
		       h->rhash_len, h->hi->hit, hdr->hit_sender, &keys);
	OPENSSL_cleanse(kij, sizeof(kij));
	if (err != 0)
		return hip_drop(h, &h->st.drop_internal, HIP_E_HOST_INTERNAL);
	o = hip_dir_out(h->hi->hit, hdr->hit_sender);
	in = hip_dir_in(h->hi->hit, hdr->hit_sender);

	/* HOST_ID, HIP_MAC, HIP_SIGNATURE */
	err = HIP_E_HOST_AUTH;
	if (i2_peer_hi(h, a, p, hc.ids[0], &keys.hip_enc[in], plain, sizeof(plain), &peer, &why,
		       &notify) != 0)
		goto fail;
	if (hip_cover_check_mac(h, pkt, p->mac, h->suite, &keys.hip_int[in], NULL, 0) != 0) {
		why = &h->st.drop_mac;
		notify = HIP_NOTIFY_HIP_MAC_FAILED;
		goto fail;
	}
	if (hip_cover_check_sig(h, pkt, p->sig, &peer, NULL) != 0) {
		why = &h->st.drop_sig;
		notify = HIP_NOTIFY_AUTHENTICATION_FAILED;
		goto fail;
	}
	/* authenticated: what is wrong now is INVALID_SYNTAX (5.2.19) */
	if (i2_syntax(p, et_ok, idx, &ei) != 0) {
		why = &h->st.drop_malformed;
		err = HIP_E_PARAM_VALUE;
		notify = HIP_NOTIFY_INVALID_SYNTAX;
		goto fail;
	}
	spi = h->cfg.io.spi_alloc ? h->cfg.io.spi_alloc(h->cfg.io.ctx) : 0;
	if (spi == 0) {
		why = &h->st.drop_internal;
		err = HIP_E_HOST_INTERNAL;
		goto fail;
	}

	/* commit: a new association (a restarted peer's replaces the old one;
	 * in I2-SENT our own Kij is dropped, 6.9 step 5) */
	if (cell == I2_CROSSED)
		h->st.sim_init++;
	hip_assoc_sa_down(a);
	hip_assoc_reset(a);
	a->initiator = false;
	a->peer_hi = peer;
	a->suite = h->suite;
	a->dh_group = dh.v[0].group_id;
	a->hip_cipher = hc.ids[0];
	a->esp_transform = et.suites[0];
	memcpy(a->i, so.i, h->rhash_len);
	memcpy(a->j, so.j, h->rhash_len);
	a->ij_len = h->rhash_len;
	a->keys = keys;
	hip_keys_wipe(&keys);
	a->spi_in = spi;
	a->spi_out = ei.new_spi;
	a->remote = *src;
	a->local = *dst;
	memcpy(a->i2_digest, digest, sizeof(digest));
	memset(&a->times, 0, sizeof(a->times));
	a->times.i1_to_r1 = a->i1_to_r1_last;

	/* R2 */
	{
		struct hip_builder b;
		struct hip_esp_info rei = { .keymat_index = (uint16_t)idx, .old_spi = 0, .new_spi = spi };
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
	}
	hip_state_set(a, HIP_STATE_R2_SENT, now);
	/* SAs first, then R2: the initiator may send ESP as soon as it has R2,
	 * and that packet must find our inbound SA in place */
	{
		struct hip_sa_keys sin, sout;

		hip_bex_sa_keys(a, &a->keys, a->spi_in, a->spi_out, &sin, &sout);
		if (h->cfg.io.sa_up != NULL)
			h->cfg.io.sa_up(h->cfg.io.ctx, a->user, &sout, &sin, 0);
		a->sa_given = true;
		OPENSSL_cleanse(&sin, sizeof(sin));
		OPENSSL_cleanse(&sout, sizeof(sout));
	}
	hip_send(h, dst, src, a->r2.b, a->r2.len);
	h->st.r2_tx++;
	a->times.i2_to_r2 = hip_mono_ns() - t0;
	hip_assoc_schedule_rekey(a, now);
	hip_assoc_report_bex(a);   /* the responder's part is done with R2 (hip_assoc_established) */
	return 0;

fail:
	hip_keys_wipe(&keys);
	hip_hi_free(&peer);
	OPENSSL_cleanse(plain, sizeof(plain));
	if (notify != 0)
		hip_notify_send(h, hdr->hit_sender, dst, src, notify, NULL, 0, now);
	return hip_drop(h, why, err);
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
