/* SPDX-License-Identifier: BSD-3-Clause
 * HIP_MAC / HIP_MAC_2 values (RFC 7401 sections 5.2.12, 5.2.13, 6.4.1).
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_mac.h"

int
hip_mac_compute(uint8_t suite, const uint8_t *key, size_t key_len,
		const uint8_t *data, size_t len, uint8_t *mac, size_t cap, size_t *mac_len)
{
	const EVP_MD *md = hip_suite_md(suite);
	size_t hl = hip_suite_rhash_len(suite);
	EVP_MAC *m = NULL;
	EVP_MAC_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	size_t outl = 0;
	int rc = -1;

	if (md == NULL || key == NULL || key_len == 0 || key_len > 2 * HIP_RHASH_MAX ||
	    (data == NULL && len != 0) || mac == NULL || mac_len == NULL || cap < hl)
		return -1;
	m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (m == NULL)
		return -1;
	ctx = EVP_MAC_CTX_new(m);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						     (char *)EVP_MD_get0_name(md), 0);
	params[1] = OSSL_PARAM_construct_end();
	if (ctx != NULL && EVP_MAC_init(ctx, key, key_len, params) == 1 &&
	    (len == 0 || EVP_MAC_update(ctx, data, len) == 1) &&
	    EVP_MAC_final(ctx, mac, &outl, cap) == 1 && outl == hl) {
		*mac_len = hl;
		rc = 0;
	}
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(m);
	return rc;
}

int
hip_mac_verify(uint8_t suite, const uint8_t *key, size_t key_len,
	       const uint8_t *data, size_t len, const uint8_t *mac, size_t mac_len)
{
	uint8_t want[HIP_RHASH_MAX];
	size_t wl = 0;
	int rc;

	if (mac == NULL || mac_len != hip_suite_rhash_len(suite) ||
	    hip_mac_compute(suite, key, key_len, data, len, want, sizeof(want), &wl) != 0)
		return -1;
	rc = CRYPTO_memcmp(want, mac, wl) == 0 ? 0 : -1;
	OPENSSL_cleanse(want, sizeof(want));
	return rc;
}
