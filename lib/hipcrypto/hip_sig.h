/* SPDX-License-Identifier: BSD-3-Clause
 * HIP_SIGNATURE and HIP_SIGNATURE_2 values (RFC 7401 sections 5.2.14, 5.2.15,
 * 6.4.2): sign and verify a byte range with a Host Identity.
 *
 *   ECDSA (P-256, P-384): hash = RHASH of the HIT suite (SHA-384 for both
 *     curves), signature r | s, each left-padded to the group order's size:
 *     64 bytes for P-256, 96 for P-384 (RFC 6090 style, not DER).
 *   RSA: RSASSA-PKCS1-v1_5 with the suite's hash (SHA-256), as RFC 7401
 *     section 5.2.11 refers to RFC 5702 for RSA/SHA-256; the signature has the
 *     modulus length (384 bytes for RSA-3072).
 * The SIG alg field of the parameter is the HI algorithm (hi->algo).
 *
 * Which bytes are covered (header with Checksum 0 and Header Length ending
 * before the signature; for HIP_SIGNATURE_2 also Receiver's HIT 0 and the
 * PUZZLE's Opaque and #I 0) is the packet layer's job: it prepares the buffer
 * and calls these functions.
 *
 * Plain C + OpenSSL 3 (EVP_DigestSign / EVP_DigestVerify), no DPDK.
 */
#ifndef HIPGW_HIP_SIG_H
#define HIPGW_HIP_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "hip_hi.h"

#define HIP_SIG_MAX 512   /* bytes: RSA-4096 */

/* Signature length in bytes for this HI (64, 96, or the RSA modulus length),
 * 0 for an empty or unsupported HI. */
size_t hip_sig_len(const struct hip_hi *hi);

/* Sign data / len (len may be 0) with our private HI. Writes hip_sig_len(hi)
 * bytes to sig (cap bytes available) and that length to *sig_len. Returns 0,
 * or -1 when hi has no private key, cap is too small, or OpenSSL fails. */
int hip_sig_sign(const struct hip_hi *hi, const uint8_t *data, size_t len,
		 uint8_t *sig, size_t cap, size_t *sig_len);

/* Verify a peer's signature over data / len with its HI (from hip_hi_decode,
 * or our own). sig_len must be exactly hip_sig_len(hi). Returns 0 when valid,
 * -1 when invalid or the arguments are bad. */
int hip_sig_verify(const struct hip_hi *hi, const uint8_t *data, size_t len,
		   const uint8_t *sig, size_t sig_len);

#endif
