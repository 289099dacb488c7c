/* SPDX-License-Identifier: BSD-3-Clause
 * Host Identities (RFC 7401 sections 3, 5.2.9, 5.2.10): generate, save and load
 * the private key (PEM), encode the public Host Identity as the HOST_ID
 * parameter carries it, decode a peer's HI into a verifying key, and derive
 * the HIT (hip_hit.h).
 *
 * Host Identity field encodings (the bytes the HIT is hashed over):
 *   ECDSA (algorithm 7): ECC curve ID (2 bytes: 1 = NIST P-256, 2 = NIST P-384),
 *     then the uncompressed point 0x04 | X | Y, coordinates left-padded to the
 *     field size: 67 bytes for P-256, 99 for P-384.
 *   RSA (algorithm 5): RFC 3110 section 2: exponent length (1 byte, or 0x00 and
 *     a 2-byte length when the exponent is longer than 255 bytes), exponent,
 *     modulus, all big-endian without leading zeros: 388 bytes for RSA-3072
 *     with e = 65537.
 * HIT suite per algorithm (RFC 7401 section 5.2.10): RSA -> RSA,DSA/SHA-256 (1),
 * ECDSA -> ECDSA/SHA-384 (2). The HOST_ID's Algorithm field (2 bytes) and
 * Domain Identifier are not part of the encoded HI: the packet layer adds them.
 *
 * Plain C + OpenSSL 3 (EVP), no DPDK.
 */
#ifndef HIPGW_HIP_HI_H
#define HIPGW_HIP_HI_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

#include "hip_hit.h"

/* HI and signature algorithm IDs (RFC 7401 section 5.2.9; IANA "HI Algorithm") */
enum hip_hi_algo {
	HIP_HI_ALGO_DSA = 3,         /* known, not supported */
	HIP_HI_ALGO_RSA = 5,
	HIP_HI_ALGO_ECDSA = 7,
	HIP_HI_ALGO_ECDSA_LOW = 9,   /* known, not supported */
};

/* ECC curve IDs in an ECDSA HI (RFC 7401 section 5.2.9) */
enum hip_ecdsa_curve {
	HIP_CURVE_NIST_P256 = 1,
	HIP_CURVE_NIST_P384 = 2,
};

/* What hip_hi_generate makes (the CLI's --algo) */
enum hip_hi_kind {
	HIP_HI_ECDSA_P256,     /* "ecdsa-p256" */
	HIP_HI_ECDSA_P384,     /* "ecdsa-p384" */
	HIP_HI_RSA3072,        /* "rsa3072" */
};

/* A Host Identity: our own (with the private key) or a peer's (public only).
 * Zero-initialise before first use; release with hip_hi_free. */
struct hip_hi {
	EVP_PKEY *pkey;               /* private+public for ours, public for a peer's */
	uint16_t algo;                /* enum hip_hi_algo */
	uint16_t curve;               /* enum hip_ecdsa_curve; 0 for RSA */
	uint8_t suite;                /* HIT suite (hip_hit.h) */
	uint8_t has_private;          /* 1 when pkey holds the private key */
	uint16_t hi_len;              /* bytes in hi[] */
	uint8_t hi[HIP_HI_MAX_LEN];   /* the encoded Host Identity field (see above) */
	uint8_t hit[HIP_HIT_LEN];     /* ORCHIDv2 of hi[] with suite */
};

/* Parse a CLI algorithm name ("ecdsa-p256", "ecdsa-p384", "rsa3072") into
 * *kind. Returns 0, or -1 for any other string. */
int hip_hi_kind_parse(const char *name, enum hip_hi_kind *kind);

/* HIT suite of an HI algorithm (RFC 7401 section 5.2.10): RSA 5 -> 1
 * (RSA,DSA/SHA-256), ECDSA 7 -> 2 (ECDSA/SHA-384), ECDSA_LOW 9 -> 3; 0 for any
 * other algorithm. */
uint8_t hip_hi_suite_of_algo(uint16_t algo);

/* Generate a new Host Identity of `kind` from OpenSSL's CSPRNG and fill *hi
 * (algo, curve, suite, encoded HI, HIT). Returns 0, or -1 with a one-line
 * message in err (err may be NULL; errlen bytes including the NUL). */
int hip_hi_generate(enum hip_hi_kind kind, struct hip_hi *hi, char *err, size_t errlen);

/* Write hi's private key as an unencrypted PKCS#8 PEM file at path, created
 * with mode 0600 (O_CREAT | O_EXCL | O_NOFOLLOW: an existing file is never
 * overwritten or followed through a symlink). Returns 0, or -1 with a one-line
 * message naming path in err (nothing is left behind on a write failure). */
int hip_hi_save(const struct hip_hi *hi, const char *path, char *err, size_t errlen);

/* Load a private Host Identity from the PEM file at path (PKCS#8 or the
 * traditional EC / RSA forms) and fill *hi. Refuses (returns -1, with a one-line
 * message in err that names the file and its mode) a file that is not a regular
 * file, that is a symlink, or whose mode gives any permission to group or others
 * ("chmod 600 FILE" fixes it). Also refuses keys other than ECDSA P-256 / P-384
 * and RSA of 2048..4096 bits. Returns 0 on success. */
int hip_hi_load(const char *path, struct hip_hi *hi, char *err, size_t errlen);

/* Load a public Host Identity from the PEM file at path (a SubjectPublicKeyInfo,
 * "BEGIN PUBLIC KEY", as `openssl pkey -pubout` writes it) and fill *hi with a
 * public-only key, its encoded HI and its HIT (RFC 7401 section 5.2.9, RFC 7343).
 * The same keys as hip_hi_load are accepted; a public key needs no file mode.
 * Returns 0, or -1 with a one-line message naming the file in err. */
int hip_hi_load_public(const char *path, struct hip_hi *hi, char *err, size_t errlen);

/* Decode a peer's Host Identity field (RFC 7401 section 5.2.9) for HI
 * algorithm `algo` (5 or 7): hi_bytes / len exactly as in HOST_ID (without the
 * Algorithm field and DI). Checks the encoding strictly (ECDSA: curve 1 or 2,
 * exact length, 0x04 prefix, point on the curve; RSA: lengths, odd exponent > 1,
 * modulus 2048..4096 bits) and fills *hi with a public-only key and its HIT.
 * Returns 0, or -1 for any bad input (hi is then empty). */
int hip_hi_decode(uint16_t algo, const uint8_t *hi_bytes, size_t len, struct hip_hi *hi);

/* Free the key and wipe *hi (safe on a zeroed or already freed struct). */
void hip_hi_free(struct hip_hi *hi);

#endif
