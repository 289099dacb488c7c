/* SPDX-License-Identifier: BSD-3-Clause
 * Diffie-Hellman for HIP (RFC 7401 sections 5.2.7 and 6.5; RFC 3526 group 15).
 */
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#include "hip_dh.h"

static const char *
group_name(uint8_t group)
{
	switch (group) {
	case HIP_DH_MODP3072: return "modp_3072";
	case HIP_DH_NIST_P256: return "prime256v1";
	case HIP_DH_NIST_P384: return "secp384r1";
	default: return NULL;
	}
}

static int
is_ec(uint8_t group)
{
	return group == HIP_DH_NIST_P256 || group == HIP_DH_NIST_P384;
}

int
hip_dh_group_supported(uint8_t group)
{
	return group_name(group) != NULL;
}

size_t
hip_dh_secret_len(uint8_t group)
{
	switch (group) {
	case HIP_DH_MODP3072: return 384;
	case HIP_DH_NIST_P256: return 32;
	case HIP_DH_NIST_P384: return 48;
	default: return 0;
	}
}

size_t
hip_dh_pub_len(uint8_t group)
{
	size_t s = hip_dh_secret_len(group);

	return is_ec(group) ? 2 * s : s;
}

int
hip_dh_generate(uint8_t group, struct hip_dh *dh)
{
	const char *name = group_name(group);
	EVP_PKEY_CTX *ctx;

	if (dh == NULL)
		return -1;
	memset(dh, 0, sizeof(*dh));
	if (name == NULL)
		return -1;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, is_ec(group) ? "EC" : "DH", NULL);
	if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1 ||
	    EVP_PKEY_CTX_set_group_name(ctx, name) != 1 ||
	    EVP_PKEY_generate(ctx, &dh->key) != 1) {
		EVP_PKEY_CTX_free(ctx);
		hip_dh_free(dh);
		return -1;
	}
	EVP_PKEY_CTX_free(ctx);
	dh->group = group;
	return 0;
}

static EVP_PKEY *
from_params(const char *type, OSSL_PARAM_BLD *bld, int selection)
{
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pk = NULL;

	if (params == NULL)
		return NULL;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pk, selection, params) != 1)
		pk = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);   /* a secure BIGNUM (the private value) sits in a block freed with clearing */
	return pk;
}

/* p of the MODP group */
static BIGNUM *
modp_p(void)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	EVP_PKEY *params = NULL;
	BIGNUM *p = NULL;

	if (ctx != NULL && EVP_PKEY_paramgen_init(ctx) == 1 &&
	    EVP_PKEY_CTX_set_group_name(ctx, "modp_3072") == 1 &&
	    EVP_PKEY_paramgen(ctx, &params) == 1)
		EVP_PKEY_get_bn_param(params, OSSL_PKEY_PARAM_FFC_P, &p);
	EVP_PKEY_free(params);
	EVP_PKEY_CTX_free(ctx);
	return p;
}

int
hip_dh_from_private(uint8_t group, const uint8_t *priv, size_t priv_len, struct hip_dh *dh)
{
	const char *name = group_name(group);
	OSSL_PARAM_BLD *bld = NULL;
	BIGNUM *x = NULL, *p = NULL, *y = NULL, *lim = NULL;
	BN_CTX *bctx = NULL;
	EC_GROUP *ecg = NULL;
	EC_POINT *pt = NULL;
	uint8_t pub[1 + 2 * 48];
	int rc = -1;

	if (dh == NULL)
		return -1;
	memset(dh, 0, sizeof(*dh));
	if (name == NULL || priv == NULL || priv_len == 0 || priv_len > HIP_DH_SECRET_MAX)
		return -1;
	x = BN_secure_new();
	bctx = BN_CTX_secure_new();
	bld = OSSL_PARAM_BLD_new();
	if (x == NULL || bctx == NULL || bld == NULL || BN_bin2bn(priv, (int)priv_len, x) == NULL)
		goto out;
	if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, name, 0) != 1)
		goto out;
	if (is_ec(group)) {
		size_t fl = hip_dh_secret_len(group);

		ecg = EC_GROUP_new_by_curve_name(group == HIP_DH_NIST_P256 ?
						 NID_X9_62_prime256v1 : NID_secp384r1);
		if (ecg == NULL || BN_is_zero(x) || BN_cmp(x, EC_GROUP_get0_order(ecg)) >= 0)
			goto out;
		pt = EC_POINT_new(ecg);
		if (pt == NULL || EC_POINT_mul(ecg, pt, x, NULL, NULL, bctx) != 1 ||
		    EC_POINT_point2oct(ecg, pt, POINT_CONVERSION_UNCOMPRESSED, pub,
				       1 + 2 * fl, bctx) != 1 + 2 * fl)
			goto out;
		if (OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, 1 + 2 * fl) != 1 ||
		    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, x) != 1)
			goto out;
		dh->key = from_params("EC", bld, EVP_PKEY_KEYPAIR);
	} else {
		BIGNUM *g = NULL;

		p = modp_p();
		y = BN_new();
		lim = BN_new();
		g = BN_new();
		if (p == NULL || y == NULL || lim == NULL || g == NULL || BN_set_word(g, 2) != 1 ||
		    BN_sub(lim, p, BN_value_one()) != 1 ||
		    BN_cmp(x, BN_value_one()) <= 0 || BN_cmp(x, lim) >= 0 ||
		    BN_mod_exp_mont_consttime(y, g, x, p, bctx, NULL) != 1) {
			BN_free(g);
			goto out;
		}
		BN_free(g);
		if (OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, y) != 1 ||
		    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, x) != 1)
			goto out;
		dh->key = from_params("DH", bld, EVP_PKEY_KEYPAIR);
	}
	if (dh->key == NULL)
		goto out;
	dh->group = group;
	rc = 0;
out:
	if (rc != 0)
		hip_dh_free(dh);
	OPENSSL_cleanse(pub, sizeof(pub));
	OSSL_PARAM_BLD_free(bld);
	BN_clear_free(x);
	BN_free(p);
	BN_free(y);
	BN_free(lim);
	BN_CTX_free(bctx);
	EC_POINT_free(pt);
	EC_GROUP_free(ecg);
	return rc;
}

int
hip_dh_public(const struct hip_dh *dh, uint8_t *out, size_t cap, size_t *len)
{
	BIGNUM *a = NULL, *b = NULL;
	size_t pl;
	int rc = -1;

	if (dh == NULL || dh->key == NULL || out == NULL || len == NULL)
		return -1;
	pl = hip_dh_pub_len(dh->group);
	if (pl == 0 || cap < pl)
		return -1;
	if (is_ec(dh->group)) {
		int fl = (int)(pl / 2);

		if (EVP_PKEY_get_bn_param(dh->key, OSSL_PKEY_PARAM_EC_PUB_X, &a) != 1 ||
		    EVP_PKEY_get_bn_param(dh->key, OSSL_PKEY_PARAM_EC_PUB_Y, &b) != 1 ||
		    BN_bn2binpad(a, out, fl) != fl || BN_bn2binpad(b, out + fl, fl) != fl)
			goto out;
	} else {
		if (EVP_PKEY_get_bn_param(dh->key, OSSL_PKEY_PARAM_PUB_KEY, &a) != 1 ||
		    BN_bn2binpad(a, out, (int)pl) != (int)pl)
			goto out;
	}
	*len = pl;
	rc = 0;
out:
	BN_free(a);
	BN_free(b);
	return rc;
}

/* the peer's public value as an EVP_PKEY of our group, validated (quick check) */
static EVP_PKEY *
peer_key(uint8_t group, const uint8_t *peer, size_t peer_len)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	EVP_PKEY *pk = NULL;
	EVP_PKEY_CTX *c = NULL;
	BIGNUM *y = NULL;
	uint8_t pt[1 + 2 * 48];

	if (bld == NULL ||
	    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group_name(group), 0) != 1)
		goto out;
	if (is_ec(group)) {
		if (peer_len != hip_dh_pub_len(group))
			goto out;
		pt[0] = 0x04;
		memcpy(pt + 1, peer, peer_len);
		if (OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pt, 1 + peer_len) != 1)
			goto out;
		pk = from_params("EC", bld, EVP_PKEY_PUBLIC_KEY);
	} else {
		if (peer_len == 0 || peer_len > hip_dh_pub_len(group))
			goto out;
		y = BN_bin2bn(peer, (int)peer_len, NULL);
		if (y == NULL || OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, y) != 1)
			goto out;
		pk = from_params("DH", bld, EVP_PKEY_PUBLIC_KEY);
	}
	if (pk == NULL)
		goto out;
	/* EC: the point is on the curve and not at infinity; DH: 2 <= y <= p - 2
	 * (with a safe prime that leaves only the large subgroups) */
	c = EVP_PKEY_CTX_new_from_pkey(NULL, pk, NULL);
	if (c == NULL || EVP_PKEY_public_check_quick(c) != 1) {
		EVP_PKEY_free(pk);
		pk = NULL;
	}
out:
	EVP_PKEY_CTX_free(c);
	BN_free(y);
	OSSL_PARAM_BLD_free(bld);
	return pk;
}

int
hip_dh_derive(const struct hip_dh *dh, const uint8_t *peer, size_t peer_len,
	      uint8_t *kij, size_t cap, size_t *kij_len)
{
	EVP_PKEY *pk = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	size_t sl, out_len;
	int rc = -1;

	if (kij != NULL)
		OPENSSL_cleanse(kij, cap);
	if (dh == NULL || dh->key == NULL || peer == NULL || kij == NULL || kij_len == NULL)
		return -1;
	sl = hip_dh_secret_len(dh->group);
	if (sl == 0 || cap < sl)
		return -1;
	pk = peer_key(dh->group, peer, peer_len);
	if (pk == NULL)
		goto out;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, dh->key, NULL);
	if (ctx == NULL || EVP_PKEY_derive_init(ctx) != 1)
		goto out;
	/* MODP: keep the leading zeros (RFC 7401: Kij has the group's full length) */
	if (!is_ec(dh->group) && EVP_PKEY_CTX_set_dh_pad(ctx, 1) != 1)
		goto out;
	if (EVP_PKEY_derive_set_peer_ex(ctx, pk, 0) != 1)
		goto out;
	out_len = cap;
	if (EVP_PKEY_derive(ctx, kij, &out_len) != 1 || out_len != sl)
		goto out;
	*kij_len = sl;
	rc = 0;
out:
	if (rc != 0) {
		OPENSSL_cleanse(kij, cap);
		ERR_clear_error();
	}
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(pk);
	return rc;
}

void
hip_dh_free(struct hip_dh *dh)
{
	if (dh == NULL)
		return;
	EVP_PKEY_free(dh->key);
	dh->key = NULL;
	dh->group = 0;
}
