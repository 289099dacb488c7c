/* SPDX-License-Identifier: BSD-3-Clause
 * HIT suites (RFC 7401 section 5.2.10) and Host Identity Tags as ORCHIDv2
 * (RFC 7343 section 2; RFC 7401 section 3.1).
 *
 *   HIT = Prefix (28 bits, 2001:20::/28) | OGA ID (4 bits) |
 *         Encode_96( RHASH( Context ID | Input ) )
 *
 * Context ID: F0EF F02F BFF4 3D0F E793 0C3C 6E61 74EA (the HIP context of
 * RFC 7401 section 3.1). Input: the Host Identity field of HOST_ID exactly as
 * sent (no Algorithm field, no Domain Identifier; see hip_hi.h). OGA ID = HIT
 * suite ID. RHASH = the suite's hash. Encode_96 takes the middle 96 bits of the
 * digest (RFC 7343 section 2: drop (hash bits - 96) / 2 bits at each end):
 * SHA-256 digest bytes 10..21, SHA-384 bytes 18..29, SHA-1 bytes 4..15.
 *
 * Plain C + OpenSSL 3 (EVP), no DPDK. A HIT is 16 bytes in network order.
 */
#ifndef HIPGW_HIP_HIT_H
#define HIPGW_HIP_HIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

#define HIP_HIT_LEN      16
#define HIP_HIT_STRLEN   46      /* = INET6_ADDRSTRLEN, NUL included */
#define HIP_RHASH_MAX    48      /* bytes, SHA-384 */
#define HIP_HI_MAX_LEN   1024    /* bytes of a Host Identity field we accept (RSA-4096 needs 516) */

/* HIT suite IDs (4-bit values, RFC 7401 section 5.2.10). In HIT_SUITE_LIST the
 * ID sits in the high nibble of each byte (0x10, 0x20, ...): the packet layer
 * shifts it; every function here takes the plain 1..3 value. */
enum hip_hit_suite {
	HIP_SUITE_RSA_DSA_SHA256 = 1,   /* RSA and DSA HIs, RHASH SHA-256 */
	HIP_SUITE_ECDSA_SHA384 = 2,     /* ECDSA HIs (P-256 and P-384), RHASH SHA-384 */
	HIP_SUITE_ECDSA_LOW_SHA1 = 3,   /* ECDSA_LOW (SECP160R1), RHASH SHA-1: known, not generated */
};

/* The RHASH of a HIT suite (RFC 7401 section 5.2.10): EVP_sha256(), EVP_sha384()
 * or EVP_sha1(); NULL for an unknown suite. The same hash keys HIP_MAC (HMAC),
 * KEYMAT (HKDF), the puzzle and the HIT. */
const EVP_MD *hip_suite_md(uint8_t suite);

/* RHASH output length in bytes (32, 48, 20), or 0 for an unknown suite. This is
 * also the length of the puzzle's #I and #J (RFC 7401 section 5.2.4). */
size_t hip_suite_rhash_len(uint8_t suite);

/* ORCHIDv2 HIT of a Host Identity (RFC 7343 section 2, RFC 7401 section 3.1).
 * suite: HIT suite = OGA ID (1..3); hi / hi_len: the HOST_ID "Host Identity"
 * field bytes (1..HIP_HI_MAX_LEN). Writes 16 bytes to hit.
 * Returns 0, or -1 for an unknown suite, hi NULL or hi_len 0 or too long, or an
 * OpenSSL failure (hit is then zeroed). */
int hip_hit_from_hi(uint8_t suite, const uint8_t *hi, size_t hi_len, uint8_t hit[HIP_HIT_LEN]);

/* True when hit lies in the ORCHIDv2 prefix 2001:20::/28 (RFC 7343 section 2). */
bool hip_hit_is_orchid(const uint8_t hit[HIP_HIT_LEN]);

/* The OGA ID (low 4 bits of byte 3) of an ORCHID: the HIT suite. */
static inline uint8_t
hip_hit_oga(const uint8_t hit[HIP_HIT_LEN])
{
	return hit[3] & 0x0f;
}

/* Print a HIT in the usual IPv6 notation (inet_ntop, e.g.
 * "2001:22:a485:4abe:81de:a7b2:9a70:44b4") into buf of len bytes
 * (HIP_HIT_STRLEN is always enough). Returns 0, or -1 when buf is too small
 * (buf then holds "" if len > 0). */
int hip_hit_to_str(const uint8_t hit[HIP_HIT_LEN], char *buf, size_t len);

/* Parse a HIT written as an IPv6 address (inet_pton). Accepts only ORCHIDv2
 * addresses (2001:20::/28) with an OGA ID of a known suite. Returns 0, or -1
 * (hit untouched) for text that is not an IPv6 address or not such a HIT. */
int hip_hit_parse(const char *s, uint8_t hit[HIP_HIT_LEN]);

/* Compare HITs as unsigned 128-bit big-endian numbers (RFC 7401 section 6.5:
 * the "greater" HIT): <0, 0, >0 like memcmp. */
static inline int
hip_hit_cmp(const uint8_t a[HIP_HIT_LEN], const uint8_t b[HIP_HIT_LEN])
{
	for (int i = 0; i < HIP_HIT_LEN; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

#endif
