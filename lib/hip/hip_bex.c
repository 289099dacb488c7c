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
 *
 * This file: what both sides use (our HOST_ID, KEYMAT, the SAs); the
 * initiator's packets are hip_bex_initiator.c's, the responder's
 * hip_bex_responder.c's.
 */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_internal.h"

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

bool
hip_bex_in_list8(const uint8_t *l, unsigned n, uint8_t v)
{
	for (unsigned x = 0; x < n; x++)
		if (l[x] == v)
			return true;
	return false;
}

bool
hip_bex_in_list16(const uint16_t *l, unsigned n, uint16_t v)
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
	in->udp = out->udp = a->udp;   /* RFC 5770 / RFC 3948: ESP in UDP on the HIP path */
}

/* HOST_ID inside ENCRYPTED (RFC 7401 5.2.18): the TLV (8-byte aligned),
 * AES-CBC with PKCS#7 padding to the block; the receiver ignores what
 * follows the inner TLV, whatever padding the sender chose. */
const EVP_CIPHER *
hip_bex_cbc_cipher(uint16_t cipher)
{
	switch (cipher) {
	case HIP_CIPHER_AES_128_CBC: return EVP_aes_128_cbc();
	case HIP_CIPHER_AES_256_CBC: return EVP_aes_256_cbc();
	default: return NULL;
	}
}

/* KEYMAT for the Base Exchange and every key drawn from it. */
int
hip_bex_keys(struct hip_assoc *a, uint8_t suite, uint16_t cipher, uint16_t esp, const uint8_t *kij,
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
