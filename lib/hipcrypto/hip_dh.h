/* SPDX-License-Identifier: BSD-3-Clause
 * Diffie-Hellman for HIP (RFC 7401 sections 5.2.7 DIFFIE_HELLMAN and 6.5):
 * NIST P-256 and P-384 ECDH, 3072-bit MODP (RFC 3526 group 15), through EVP.
 *
 * Group IDs (RFC 7401 section 5.2.7): 4 = 3072-bit MODP, 7 = NIST P-256,
 * 8 = NIST P-384.
 * Public value, as the DIFFIE_HELLMAN parameter carries it:
 *   ECDH: X | Y, each left-padded to the field size (64 bytes for P-256, 96
 *         for P-384), no 0x04 prefix;
 *   MODP: big-endian unsigned integer padded to the prime's length (384 bytes).
 * Kij (the shared secret fed to KEYMAT):
 *   ECDH: the x-coordinate of the shared point, field-size bytes (32 / 48);
 *   MODP: g^(xy) mod p big-endian with leading zeros kept: always 384 bytes.
 *
 * Plain C + OpenSSL 3 (EVP), no DPDK.
 */
#ifndef HIPGW_HIP_DH_H
#define HIPGW_HIP_DH_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

enum hip_dh_group {
	HIP_DH_MODP3072 = 4,
	HIP_DH_NIST_P256 = 7,
	HIP_DH_NIST_P384 = 8,
};

#define HIP_DH_PUB_MAX     384    /* bytes, MODP-3072 */
#define HIP_DH_SECRET_MAX  384    /* bytes, MODP-3072 */

/* One side's ephemeral key pair. Zero-initialise; release with hip_dh_free. */
struct hip_dh {
	EVP_PKEY *key;
	uint8_t group;    /* enum hip_dh_group */
};

/* True for a group ID this module supports (4, 7, 8). */
int hip_dh_group_supported(uint8_t group);

/* Public value length in bytes (64, 96, 384), or 0 for an unknown group. */
size_t hip_dh_pub_len(uint8_t group);

/* Kij length in bytes (32, 48, 384), or 0 for an unknown group. */
size_t hip_dh_secret_len(uint8_t group);

/* Generate a key pair for `group` from OpenSSL's CSPRNG. Returns 0, or -1 for
 * an unknown group or an OpenSSL failure (dh then empty). */
int hip_dh_generate(uint8_t group, struct hip_dh *dh);

/* Build the key pair from a fixed private value (for reproducible test
 * vectors only): priv / priv_len big-endian, 1 <= value < group order (ECDH)
 * or 2 <= value < p - 1 (MODP). Returns 0, or -1 for bad input. */
int hip_dh_from_private(uint8_t group, const uint8_t *priv, size_t priv_len, struct hip_dh *dh);

/* Encode dh's public value as DIFFIE_HELLMAN sends it (see above) into out
 * (cap bytes); *len gets hip_dh_pub_len(group). Returns 0, or -1 when cap is
 * too small or dh is empty. */
int hip_dh_public(const struct hip_dh *dh, uint8_t *out, size_t cap, size_t *len);

/* Kij from our key pair and the peer's public value (peer / peer_len bytes, as
 * received in DIFFIE_HELLMAN for the same group). ECDH takes exactly X | Y
 * (2 * field size); MODP takes 1..384 bytes (a peer sending the minimal length
 * is accepted) and the value must satisfy 2 <= y <= p - 2. The point or value
 * is validated before use. Writes hip_dh_secret_len(group) bytes to kij (cap
 * bytes available), leading zeros kept; *kij_len gets that length.
 * Returns 0, or -1 for bad input or an OpenSSL failure (kij then zeroed up to
 * cap). */
int hip_dh_derive(const struct hip_dh *dh, const uint8_t *peer, size_t peer_len,
		  uint8_t *kij, size_t cap, size_t *kij_len);

/* Free the key pair (OpenSSL clears the private value) and zero *dh. */
void hip_dh_free(struct hip_dh *dh);

#endif
