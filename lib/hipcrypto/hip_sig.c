/* SPDX-License-Identifier: BSD-3-Clause
 * HIP_SIGNATURE / HIP_SIGNATURE_2 values (RFC 7401 sections 5.2.14, 5.2.15,
 * 6.4.2).
 */
#include <string.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "hip_sig.h"

static const uint8_t empty_msg[1];

/* r and s size of an ECDSA HI (the group order's size) */
static size_t
ec_half(const struct hip_hi *hi)
{
	switch (hi->curve) {
	case HIP_CURVE_NIST_P256: return 32;
	case HIP_CURVE_NIST_P384: return 48;
	default: return 0;
	}
}

size_t
hip_sig_len(const struct hip_hi *hi)
{
	if (hi == NULL || hi->pkey == NULL)
		return 0;
	if (hi->algo == HIP_HI_ALGO_ECDSA)
		return 2 * ec_half(hi);
	if (hi->algo == HIP_HI_ALGO_RSA) {
		int n = EVP_PKEY_get_size(hi->pkey);

		return n > 0 && n <= HIP_SIG_MAX ? (size_t)n : 0;
	}
	return 0;
}

/* a DigestSign/Verify context for hi; RSA gets PKCS#1 v1.5 */
static EVP_MD_CTX *
md_ctx(const struct hip_hi *hi, int sign)
{
	const EVP_MD *md = hip_suite_md(hi->suite);
	EVP_MD_CTX *ctx;
	EVP_PKEY_CTX *pctx = NULL;
	int ok;

	if (md == NULL)
		return NULL;
	ctx = EVP_MD_CTX_new();
	if (ctx == NULL)
		return NULL;
	ok = sign ? EVP_DigestSignInit_ex(ctx, &pctx, EVP_MD_get0_name(md), NULL, NULL, hi->pkey, NULL)
		  : EVP_DigestVerifyInit_ex(ctx, &pctx, EVP_MD_get0_name(md), NULL, NULL, hi->pkey, NULL);
	if (ok == 1 && hi->algo == HIP_HI_ALGO_RSA)
		ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING);
	if (ok != 1) {
		EVP_MD_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

int
hip_sig_sign(const struct hip_hi *hi, const uint8_t *data, size_t len,
	     uint8_t *sig, size_t cap, size_t *sig_len)
{
	size_t want = hip_sig_len(hi);
	EVP_MD_CTX *ctx = NULL;
	uint8_t der[160];
	size_t dl = sizeof(der);
	ECDSA_SIG *es = NULL;
	int rc = -1;

	if (want == 0 || !hi->has_private || (data == NULL && len != 0) || sig == NULL ||
	    sig_len == NULL || cap < want)
		return -1;
	if (data == NULL)
		data = empty_msg;
	ctx = md_ctx(hi, 1);
	if (ctx == NULL)
		return -1;
	if (hi->algo == HIP_HI_ALGO_RSA) {
		size_t sl = cap;

		if (EVP_DigestSign(ctx, sig, &sl, data, len) == 1 && sl == want) {
			*sig_len = sl;
			rc = 0;
		}
	} else {
		const unsigned char *p = der;
		const BIGNUM *r, *s;
		int h = (int)(want / 2);

		if (EVP_DigestSign(ctx, der, &dl, data, len) != 1)
			goto out;
		es = d2i_ECDSA_SIG(NULL, &p, (long)dl);
		if (es == NULL)
			goto out;
		ECDSA_SIG_get0(es, &r, &s);
		if (BN_bn2binpad(r, sig, h) != h || BN_bn2binpad(s, sig + h, h) != h)
			goto out;
		*sig_len = want;
		rc = 0;
	}
out:
	if (rc != 0)
		OPENSSL_cleanse(sig, cap);
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(ctx);
	return rc;
}

int
hip_sig_verify(const struct hip_hi *hi, const uint8_t *data, size_t len,
	       const uint8_t *sig, size_t sig_len)
{
	size_t want = hip_sig_len(hi);
	EVP_MD_CTX *ctx = NULL;
	ECDSA_SIG *es = NULL;
	BIGNUM *r = NULL, *s = NULL;
	unsigned char *der = NULL;
	int dl, rc = -1;

	if (want == 0 || sig == NULL || sig_len != want || (data == NULL && len != 0))
		return -1;
	if (data == NULL)
		data = empty_msg;
	ctx = md_ctx(hi, 0);
	if (ctx == NULL)
		return -1;
	if (hi->algo == HIP_HI_ALGO_RSA) {
		rc = EVP_DigestVerify(ctx, sig, sig_len, data, len) == 1 ? 0 : -1;
		goto out;
	}
	es = ECDSA_SIG_new();
	r = BN_bin2bn(sig, (int)(want / 2), NULL);
	s = BN_bin2bn(sig + want / 2, (int)(want / 2), NULL);
	if (es == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(es, r, s) != 1)
		goto out;
	r = s = NULL;   /* owned by es now */
	dl = i2d_ECDSA_SIG(es, &der);
	if (dl <= 0)
		goto out;
	rc = EVP_DigestVerify(ctx, der, (size_t)dl, data, len) == 1 ? 0 : -1;
out:
	if (rc != 0)
		ERR_clear_error();   /* a bad signature is no error to report later */
	OPENSSL_free(der);
	BN_free(r);
	BN_free(s);
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(ctx);
	return rc;
}
