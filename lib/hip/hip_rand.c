/* SPDX-License-Identifier: BSD-3-Clause
 * Randomness of the engine: OpenSSL's CSPRNG, or, for test vectors only, the
 * caller's deterministic RNG (hip_host_cfg.rng). In deterministic mode the DH
 * private values and the ECDSA nonces come from that RNG too, so a fixed RNG
 * output gives byte-identical exchanges (RSA PKCS#1 v1.5 is deterministic
 * anyway). The ECDSA signer here is plain textbook ECDSA (FIPS 186-4 6.4)
 * with k from the RNG: it is never used without a caller RNG.
 */
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>

#include "hip_internal.h"
#include "hip_sig.h"

int
hip_rand(struct hip_host *h, uint8_t *buf, size_t len)
{
	if (len == 0)
		return 0;
	if (h->cfg.rng != NULL)
		return h->cfg.rng(h->cfg.rng_ctx, buf, len) == 0 ? 0 : -1;
	return RAND_bytes(buf, (int)len) == 1 ? 0 : -1;
}

int
hip_rand_dh(struct hip_host *h, uint8_t group, struct hip_dh *dh)
{
	uint8_t priv[48];
	size_t pl;
	int rc;

	if (h->cfg.rng == NULL)
		return hip_dh_generate(group, dh);
	/* EC: a value below the group order (top bit clear, nonzero); MODP: a
	 * 256-bit exponent, as OpenSSL picks for the 3072-bit group */
	pl = group == HIP_DH_NIST_P384 ? 48 : 32;
	if (hip_rand(h, priv, pl) != 0)
		return -1;
	priv[0] &= 0x7f;
	priv[pl - 1] |= 0x02;
	rc = hip_dh_from_private(group, priv, pl, dh);
	OPENSSL_cleanse(priv, sizeof(priv));
	return rc;
}

/* ECDSA with k from the caller's RNG: r | s, each padded to the order size */
static int
det_ecdsa(struct hip_host *h, const uint8_t *data, size_t len, uint8_t *sig, size_t cap,
	  size_t *sig_len)
{
	const struct hip_hi *hi = h->hi;
	size_t half = hi->curve == HIP_CURVE_NIST_P256 ? 32 : 48;
	uint8_t dg[EVP_MAX_MD_SIZE], kb[48 + 8];
	unsigned int dl = 0;
	EC_GROUP *g = NULL;
	EC_POINT *R = NULL;
	BN_CTX *ctx = NULL;
	BIGNUM *d = NULL, *k = NULL, *z = NULL, *r = NULL, *s = NULL, *nm1 = NULL, *kinv = NULL;
	const BIGNUM *n;
	int rc = -1, tries;

	if (cap < 2 * half ||
	    EVP_Digest(data, len, dg, &dl, hip_suite_md(hi->suite), NULL) != 1)
		return -1;
	g = EC_GROUP_new_by_curve_name(hi->curve == HIP_CURVE_NIST_P256 ?
				       NID_X9_62_prime256v1 : NID_secp384r1);
	ctx = BN_CTX_secure_new();
	k = BN_secure_new();
	z = BN_new();
	r = BN_new();
	s = BN_new();
	nm1 = BN_new();
	kinv = BN_secure_new();
	if (g == NULL || ctx == NULL || k == NULL || z == NULL || r == NULL || s == NULL ||
	    nm1 == NULL || kinv == NULL ||
	    EVP_PKEY_get_bn_param(hi->pkey, OSSL_PKEY_PARAM_PRIV_KEY, &d) != 1)
		goto out;
	n = EC_GROUP_get0_order(g);
	R = EC_POINT_new(g);
	/* z: the leftmost order-size bytes of the digest (both orders are whole bytes) */
	if (R == NULL || BN_bin2bn(dg, (int)(dl < half ? dl : half), z) == NULL ||
	    BN_sub(nm1, n, BN_value_one()) != 1)
		goto out;
	for (tries = 0; tries < 8; tries++) {
		if (hip_rand(h, kb, half + 8) != 0 || BN_bin2bn(kb, (int)(half + 8), k) == NULL ||
		    BN_mod(k, k, nm1, ctx) != 1 || BN_add_word(k, 1) != 1 ||
		    EC_POINT_mul(g, R, k, NULL, NULL, ctx) != 1 ||
		    EC_POINT_get_affine_coordinates(g, R, r, NULL, ctx) != 1 ||
		    BN_nnmod(r, r, n, ctx) != 1)
			goto out;
		if (BN_is_zero(r))
			continue;
		/* s = k^-1 (z + r d) mod n */
		if (BN_mod_mul(s, r, d, n, ctx) != 1 || BN_mod_add(s, s, z, n, ctx) != 1 ||
		    BN_mod_inverse(kinv, k, n, ctx) == NULL || BN_mod_mul(s, s, kinv, n, ctx) != 1)
			goto out;
		if (BN_is_zero(s))
			continue;
		if (BN_bn2binpad(r, sig, (int)half) != (int)half ||
		    BN_bn2binpad(s, sig + half, (int)half) != (int)half)
			goto out;
		*sig_len = 2 * half;
		rc = 0;
		break;
	}
out:
	OPENSSL_cleanse(kb, sizeof(kb));
	BN_clear_free(d);
	BN_clear_free(k);
	BN_clear_free(kinv);
	BN_free(z);
	BN_free(r);
	BN_free(s);
	BN_free(nm1);
	EC_POINT_free(R);
	EC_GROUP_free(g);
	BN_CTX_free(ctx);
	return rc;
}

void
hip_vector(struct hip_host *h, void *peer_user, const char *name, const uint8_t *v, size_t len)
{
	if (h->cfg.rng != NULL && h->cfg.vector != NULL)
		h->cfg.vector(h->cfg.vector_ctx, peer_user, name, v, len);
}

int
hip_rand_sign(struct hip_host *h, const uint8_t *data, size_t len,
	      uint8_t *sig, size_t cap, size_t *sig_len)
{
	if (h->cfg.rng != NULL && h->hi->algo == HIP_HI_ALGO_ECDSA)
		return det_ecdsa(h, data, len, sig, cap, sig_len);
	return hip_sig_sign(h->hi, data, len, sig, cap, sig_len);
}
