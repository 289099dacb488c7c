/* SPDX-License-Identifier: BSD-3-Clause
 * KEYMAT (RFC 7401 section 6.5, HKDF of RFC 5869) and key drawing (RFC 7402
 * section 7).
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "hip_keymat.h"

int
hip_cipher_key_len(uint16_t cipher)
{
	switch (cipher) {
	case HIP_CIPHER_NULL: return 0;
	case HIP_CIPHER_AES128_CBC: return 16;
	case HIP_CIPHER_AES256_CBC: return 32;
	default: return -1;
	}
}

int
hip_esp_key_lens(uint16_t esp_suite, uint8_t *enc_len, uint8_t *auth_len)
{
	uint8_t e, a;

	switch (esp_suite) {
	case HIP_ESP_NULL_SHA256: e = 0; a = 32; break;
	case HIP_ESP_AES128_CBC_SHA256: e = 16; a = 32; break;
	case HIP_ESP_AES256_CBC_SHA256: e = 32; a = 32; break;
	case HIP_ESP_AES_GCM16: e = 16 + 4; a = 0; break;
	default: return -1;
	}
	if (enc_len != NULL)
		*enc_len = e;
	if (auth_len != NULL)
		*auth_len = a;
	return 0;
}

int
hip_keymat_esp_index(uint8_t suite, uint16_t cipher)
{
	int cl = hip_cipher_key_len(cipher);
	size_t il = hip_suite_rhash_len(suite);

	if (cl < 0 || il == 0)
		return -1;
	return 2 * (cl + (int)il);
}

long
hip_keymat_len_needed(uint8_t suite, uint16_t cipher, uint16_t esp_suite, uint16_t esp_index)
{
	int hip = hip_keymat_esp_index(suite, cipher);
	uint8_t e = 0, a = 0;
	long esp_end;

	if (hip < 0)
		return -1;
	if (esp_suite == 0)
		return hip;
	if (hip_esp_key_lens(esp_suite, &e, &a) != 0)
		return -1;
	esp_end = (long)esp_index + 2L * (e + a);
	return esp_end > hip ? esp_end : hip;
}

int
hip_keymat_derive(uint8_t suite, const uint8_t *kij, size_t kij_len,
		  const uint8_t *i, const uint8_t *j, size_t ij_len,
		  const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
		  uint8_t *out, size_t out_len)
{
	const EVP_MD *md = hip_suite_md(suite);
	size_t hl = hip_suite_rhash_len(suite);
	uint8_t salt[2 * HIP_RHASH_MAX];
	uint8_t info[2 * HIP_HIT_LEN];
	EVP_KDF *kdf = NULL;
	EVP_KDF_CTX *kctx = NULL;
	OSSL_PARAM params[6], *p = params;
	int mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
	int rc = -1;

	if (out == NULL || out_len == 0)
		return -1;
	memset(out, 0, out_len);
	if (md == NULL || kij == NULL || kij_len == 0 || kij_len > 512 || i == NULL ||
	    j == NULL || ij_len != hl || hit_i == NULL || hit_r == NULL || out_len > 255 * hl)
		return -1;
	memcpy(salt, i, ij_len);
	memcpy(salt + ij_len, j, ij_len);
	if (hip_hit_cmp(hit_i, hit_r) <= 0) {
		memcpy(info, hit_i, HIP_HIT_LEN);
		memcpy(info + HIP_HIT_LEN, hit_r, HIP_HIT_LEN);
	} else {
		memcpy(info, hit_r, HIP_HIT_LEN);
		memcpy(info + HIP_HIT_LEN, hit_i, HIP_HIT_LEN);
	}
	kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	if (kdf == NULL)
		goto out;
	kctx = EVP_KDF_CTX_new(kdf);
	if (kctx == NULL)
		goto out;
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)EVP_MD_get0_name(md), 0);
	*p++ = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)kij, kij_len);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt, 2 * ij_len);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, sizeof(info));
	*p = OSSL_PARAM_construct_end();
	if (EVP_KDF_derive(kctx, out, out_len, params) != 1) {
		OPENSSL_cleanse(out, out_len);
		goto out;
	}
	rc = 0;
out:
	EVP_KDF_CTX_free(kctx);
	EVP_KDF_free(kdf);
	OPENSSL_cleanse(salt, sizeof(salt));
	return rc;
}

static int
draw(const uint8_t *km, size_t km_len, size_t *off, size_t len, struct hip_key *k)
{
	if (len > HIP_KEY_MAX || *off > km_len || len > km_len - *off)
		return -1;
	memcpy(k->b, km + *off, len);
	k->len = (uint8_t)len;
	*off += len;
	return 0;
}

int
hip_keys_draw(const uint8_t *keymat, size_t keymat_len, uint8_t suite, uint16_t cipher,
	      uint16_t esp_suite, uint16_t esp_index, struct hip_keys *keys)
{
	int cl = hip_cipher_key_len(cipher);
	size_t il = hip_suite_rhash_len(suite);
	uint8_t el = 0, al = 0;
	size_t off = 0;

	if (keys == NULL)
		return -1;
	memset(keys, 0, sizeof(*keys));
	if (keymat == NULL || cl < 0 || il == 0 ||
	    (esp_suite != 0 && hip_esp_key_lens(esp_suite, &el, &al) != 0))
		return -1;
	if (draw(keymat, keymat_len, &off, (size_t)cl, &keys->hip_enc[HIP_DIR_GL]) ||
	    draw(keymat, keymat_len, &off, il, &keys->hip_int[HIP_DIR_GL]) ||
	    draw(keymat, keymat_len, &off, (size_t)cl, &keys->hip_enc[HIP_DIR_LG]) ||
	    draw(keymat, keymat_len, &off, il, &keys->hip_int[HIP_DIR_LG]))
		goto fail;
	if (esp_suite != 0) {
		off = esp_index;
		if (draw(keymat, keymat_len, &off, el, &keys->esp_enc[HIP_DIR_GL]) ||
		    draw(keymat, keymat_len, &off, al, &keys->esp_auth[HIP_DIR_GL]) ||
		    draw(keymat, keymat_len, &off, el, &keys->esp_enc[HIP_DIR_LG]) ||
		    draw(keymat, keymat_len, &off, al, &keys->esp_auth[HIP_DIR_LG]))
			goto fail;
		keys->esp_keymat_index = esp_index;
	}
	return 0;
fail:
	hip_keys_wipe(keys);
	return -1;
}

void
hip_keys_wipe(struct hip_keys *keys)
{
	if (keys != NULL)
		OPENSSL_cleanse(keys, sizeof(*keys));
}
