/* SPDX-License-Identifier: BSD-3-Clause
 * KEYMAT and the keys drawn from it (RFC 7401 section 6.5, RFC 7402 section 7).
 *
 *   KEYMAT = HKDF(RHASH; salt = I | J; IKM = Kij; info = sort(HIT-I | HIT-R); L)
 *
 * HKDF is RFC 5869 (Extract then Expand) with the HIT suite's RHASH (SHA-256
 * or SHA-384). I: PUZZLE's #I, J: SOLUTION's #J, both at the full RHASH length;
 * Kij: the DH shared secret at the group's full length (hip_dh.h); sort(): the
 * numerically smaller HIT first (hip_hit_cmp). L <= 255 * RHASH length.
 *
 * Drawing order (RFC 7401 section 6.5), each key at its natural length:
 *   HIP-gl encryption, HIP-gl integrity, HIP-lg encryption, HIP-lg integrity,
 * then from the ESP_INFO KEYMAT Index (RFC 7402 section 7):
 *   SA-gl ESP encryption, SA-gl ESP authentication,
 *   SA-lg ESP encryption, SA-lg ESP authentication.
 * "gl" keys protect what the host with the greater HIT sends; "lg" keys what
 * the host with the lower HIT sends. In the Base Exchange the KEYMAT Index
 * is the first byte after the HIP keys: 2 * (HIP encryption + HIP integrity
 * key lengths) (128 for AES-128-CBC with SHA-384).
 *
 * Key lengths:
 *   HIP_CIPHER (RFC 7401 section 5.2.8): 1 NULL 0, 2 AES-128-CBC 16,
 *     4 AES-256-CBC 32 bytes; HIP integrity key = RHASH length (32 / 48).
 *   ESP transform (RFC 7402 section 5.1.2; RFC 4868 for HMAC-SHA-256 keys,
 *     RFC 4106 section 8.1 for GCM):
 *     7 NULL + HMAC-SHA-256: enc 0, auth 32
 *     8 AES-128-CBC + HMAC-SHA-256: enc 16, auth 32
 *     9 AES-256-CBC + HMAC-SHA-256: enc 32, auth 32
 *     13 AES-GCM with a 16-octet ICV: enc 20 (AES-128 key, then the 4-byte
 *        salt, RFC 4106 section 8.1), auth 0
 *
 * Plain C + OpenSSL 3 (EVP_KDF "HKDF"), no DPDK.
 */
#ifndef HIPGW_HIP_KEYMAT_H
#define HIPGW_HIP_KEYMAT_H

#include <stddef.h>
#include <stdint.h>

#include "hip_hit.h"

/* HIP_CIPHER IDs (RFC 7401 section 5.2.8) */
enum hip_cipher_id {   /* not "hip_cipher": hipwire's struct hip_cipher has that tag */
	HIP_CIPHER_NULL = 1,
	HIP_CIPHER_AES128_CBC = 2,
	HIP_CIPHER_AES256_CBC = 4,
};

/* ESP transform suite IDs (RFC 7402 section 5.1.2) supported here */
enum hip_esp_suite {
	HIP_ESP_NULL_SHA256 = 7,
	HIP_ESP_AES128_CBC_SHA256 = 8,
	HIP_ESP_AES256_CBC_SHA256 = 9,
	HIP_ESP_AES_GCM16 = 13,
};

#define HIP_KEY_MAX 48   /* bytes: the longest key drawn (SHA-384 integrity) */

/* One key drawn from KEYMAT */
struct hip_key {
	uint8_t b[HIP_KEY_MAX];
	uint8_t len;            /* bytes, 0 for a NULL cipher */
};

/* Direction index into struct hip_keys */
enum hip_dir {
	HIP_DIR_GL = 0,   /* sent by the host with the greater HIT */
	HIP_DIR_LG = 1,   /* sent by the host with the lower HIT */
};

/* Every key of an association (index with enum hip_dir). Wipe with hip_keys_wipe. */
struct hip_keys {
	struct hip_key hip_enc[2];     /* HIP_CIPHER key for ENCRYPTED */
	struct hip_key hip_int[2];     /* HIP_MAC / HIP_MAC_2 key */
	struct hip_key esp_enc[2];     /* ESP encryption key (GCM: key | salt) */
	struct hip_key esp_auth[2];    /* ESP authentication key (none for GCM) */
	uint16_t esp_keymat_index;     /* where the ESP keys started, bytes */
};

/* HIP_CIPHER key length in bytes (0, 16, 32), or -1 for an unknown cipher. */
int hip_cipher_key_len(uint16_t cipher);

/* ESP transform key lengths in bytes (see the table above). Returns 0, or -1
 * for a suite not supported here (outputs untouched). */
int hip_esp_key_lens(uint16_t esp_suite, uint8_t *enc_len, uint8_t *auth_len);

/* KEYMAT Index of the first ESP key after a Base Exchange: 2 * (HIP
 * encryption + integrity key lengths) in bytes, or -1 for an unknown suite or
 * cipher. */
int hip_keymat_esp_index(uint8_t suite, uint16_t cipher);

/* KEYMAT bytes needed to draw every key with hip_keys_draw: the HIP keys, and
 * the ESP keys from esp_index on. -1 for unknown suite, cipher or transform. */
long hip_keymat_len_needed(uint8_t suite, uint16_t cipher, uint16_t esp_suite, uint16_t esp_index);

/* KEYMAT (RFC 7401 section 6.5): HKDF with RHASH of `suite`. kij / kij_len:
 * Kij (1..512 bytes); i, j: PUZZLE #I and SOLUTION #J, ij_len bytes each
 * (the suite's RHASH length); hit_i, hit_r: the initiator's and responder's
 * HIT (order does not matter: they are sorted). Writes out_len bytes
 * (1 .. 255 * RHASH length) to out. Returns 0, or -1 for bad arguments or an
 * OpenSSL failure (out then zeroed). */
int hip_keymat_derive(uint8_t suite, const uint8_t *kij, size_t kij_len,
		      const uint8_t *i, const uint8_t *j, size_t ij_len,
		      const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
		      uint8_t *out, size_t out_len);

/* Draw the keys (order and lengths above) from keymat / keymat_len: HIP keys
 * from byte 0 for `suite` and HIP_CIPHER `cipher`, ESP keys for transform
 * `esp_suite` from byte esp_index (ESP_INFO's KEYMAT Index). esp_suite 0 draws
 * no ESP keys. Returns 0, or -1 for unknown IDs or a KEYMAT too short (keys
 * then wiped). */
int hip_keys_draw(const uint8_t *keymat, size_t keymat_len, uint8_t suite, uint16_t cipher,
		  uint16_t esp_suite, uint16_t esp_index, struct hip_keys *keys);

/* Direction a host sends in: HIP_DIR_GL when own_hit > peer_hit, else
 * HIP_DIR_LG (RFC 7401 section 6.5). Use keys->x[hip_dir_out(..)] for what
 * we send and keys->x[hip_dir_in(..)] for what we receive. */
static inline enum hip_dir
hip_dir_out(const uint8_t own_hit[HIP_HIT_LEN], const uint8_t peer_hit[HIP_HIT_LEN])
{
	return hip_hit_cmp(own_hit, peer_hit) > 0 ? HIP_DIR_GL : HIP_DIR_LG;
}

static inline enum hip_dir
hip_dir_in(const uint8_t own_hit[HIP_HIT_LEN], const uint8_t peer_hit[HIP_HIT_LEN])
{
	return hip_dir_out(own_hit, peer_hit) == HIP_DIR_GL ? HIP_DIR_LG : HIP_DIR_GL;
}

/* Wipe every key (OPENSSL_cleanse). NULL is a no-op. */
void hip_keys_wipe(struct hip_keys *keys);

#endif
