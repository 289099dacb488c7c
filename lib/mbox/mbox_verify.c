/* SPDX-License-Identifier: BSD-3-Clause
 * What the tracker trusts and why: a Host Identity only when it hashes to the
 * HIT of its host (ORCHIDv2, RFC 7343; RFC 7401 section 3.1, hip_hi_decode
 * computes it with hip_hit_from_hi), taken from a HOST_ID parameter or from
 * the config (mbox_params.his, checked the same way at mbox_create); a packet
 * only when its signature verifies with its sender's HI over the bytes RFC
 * 7401 section 6.4.2 says (lib/hipwire's hip_coverage_sig, in the tracker's
 * scratch buffer, wiped after each use).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_sig.h"
#include "mbox_internal.h"

void
mbox_hi_copy(struct hip_hi *dst, const struct hip_hi *src)
{
	*dst = *src;
	if (dst->pkey != NULL)
		EVP_PKEY_up_ref(dst->pkey);
}

static int
hi_cmp(const void *x, const void *y)
{
	return hip_hit_cmp(((const struct hip_hi *)x)->hit, ((const struct hip_hi *)y)->hit);
}

int
mbox_verify_init(struct mbox_tracker *t, char *err, size_t errlen)
{
	unsigned n = t->p.n_his;

	if (n == 0)
		return 0;
	if (n > MBOX_KNOWN_HIS_MAX || t->p.his == NULL) {
		snprintf(err, errlen, "middlebox: %u configured HIs (at most %u)", n, MBOX_KNOWN_HIS_MAX);
		return -1;
	}
	t->his = calloc(n, sizeof(t->his[0]));
	t->p.n_his = 0;   /* counts what fini frees */
	if (t->his == NULL) {
		snprintf(err, errlen, "middlebox: no memory for %u configured HIs", n);
		return -1;
	}
	for (unsigned x = 0; x < n; x++) {
		const struct hip_hi *h = &t->p.his[x].hi;
		uint8_t hit[HIP_HIT_LEN];
		char s[HIP_HIT_STRLEN];

		if (h->pkey == NULL || hip_hit_from_hi(h->suite, h->hi, h->hi_len, hit) != 0 ||
		    memcmp(hit, h->hit, HIP_HIT_LEN) != 0) {
			hip_hit_to_str(h->hit, s, sizeof(s));
			snprintf(err, errlen, "middlebox: configured HI %u does not hash to its HIT %s", x, s);
			return -1;
		}
		mbox_hi_copy(&t->his[x], h);
		t->p.n_his = x + 1;
	}
	qsort(t->his, n, sizeof(t->his[0]), hi_cmp);
	t->p.his = NULL;   /* the caller's: not used after this */
	return 0;
}

void
mbox_verify_fini(struct mbox_tracker *t)
{
	if (t->his == NULL)
		return;
	for (unsigned x = 0; x < t->p.n_his; x++)
		hip_hi_free(&t->his[x]);
	free(t->his);
	t->his = NULL;
}

const struct hip_hi *
mbox_known_hi(const struct mbox_tracker *t, const uint8_t *hit)
{
	unsigned lo = 0, hi = t->his == NULL ? 0 : t->p.n_his;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int c = hip_hit_cmp(hit, t->his[mid].hit);

		if (c == 0)
			return &t->his[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int
mbox_hi_from_host_id(const struct hip_tlv *hid, const uint8_t *hit, const struct hip_hi *cur,
		     struct hip_hi *out)
{
	struct hip_host_id h;
	struct hip_hi n = { 0 };

	if (hid == NULL || hip_host_id_parse(hid, &h) != 0)
		return MBOX_DROP_MALFORMED;
	if (cur != NULL && cur->pkey != NULL && cur->algo == h.algorithm && cur->hi_len == h.hi_len &&
	    memcmp(cur->hi, h.hi, h.hi_len) == 0) {
		mbox_hi_copy(&n, cur);   /* the key this host had: decoded and checked then */
	} else if (hip_hi_decode(h.algorithm, h.hi, h.hi_len, &n) != 0) {
		return MBOX_DROP_BAD_HI;
	}
	if (memcmp(n.hit, hit, HIP_HIT_LEN) != 0) {
		hip_hi_free(&n);
		return MBOX_DROP_HIT_MISMATCH;
	}
	hip_hi_free(out);
	*out = n;
	return MBOX_FWD;
}

int
mbox_verify_sig(struct mbox_tracker *t, const struct mbox_pkt *p, const struct hip_hi *hi,
		bool sig2)
{
	const struct hip_tlv *tlv = sig2 ? p->sig2 : p->sig;
	struct hip_signature s;
	int n, rc;

	if (tlv == NULL)
		return MBOX_DROP_SIG_MISSING;
	if (hip_signature_parse(tlv, &s) != 0)
		return MBOX_DROP_MALFORMED;
	if (hi == NULL || hi->pkey == NULL || s.algorithm != hi->algo)
		return MBOX_DROP_SIG;
	n = hip_coverage_sig(p->b, tlv->offset, tlv->type,
			     sig2 && p->puzzle != NULL ? p->puzzle->offset : 0, t->scratch,
			     sizeof(t->scratch));
	if (n <= 0)
		return MBOX_DROP_MALFORMED;
	rc = hip_sig_verify(hi, t->scratch, (size_t)n, s.sig, s.len);
	OPENSSL_cleanse(t->scratch, (size_t)n);
	if (rc != 0)
		return MBOX_DROP_SIG;
	t->st.sig_verified++;
	return MBOX_FWD;
}

int
mbox_nonce_digest(const struct mbox_assoc *a, const uint8_t *nonce, size_t len,
		  uint8_t d[MBOX_DIGEST_LEN])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned dl = 0;
	int ok;

	ok = c != NULL && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1 &&
	     EVP_DigestUpdate(c, a->h[MBOX_LO].hit, HIP_HIT_LEN) == 1 &&
	     EVP_DigestUpdate(c, a->h[MBOX_HI].hit, HIP_HIT_LEN) == 1 &&
	     EVP_DigestUpdate(c, nonce, len) == 1 && EVP_DigestFinal_ex(c, d, &dl) == 1 &&
	     dl == MBOX_DIGEST_LEN;
	EVP_MD_CTX_free(c);
	return ok ? 0 : -1;
}
