/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP puzzle (RFC 7401 sections 4.1.2 and 6.3):
 *
 *   Ltrunc( RHASH( I | HIT-I | HIT-R | J ), K ) == 0
 *
 * I: the responder's random #I from PUZZLE (RHASH length bytes); HIT-I, HIT-R:
 * the initiator's and the responder's HIT (16 bytes each); J: the solution,
 * same length as I; RHASH: the responder's HIT suite hash (hip_hit.h), so I and
 * J are 32 bytes with SHA-256 and 48 with SHA-384. Ltrunc(x, K) == 0 means the
 * K lowest-order bits of the digest are zero: the last K bits of the
 * big-endian digest (the last K/8 bytes are 0 and the low K%8 bits of the byte
 * before). K = 0 accepts any J. K may be 0 .. RHASH bits (solving is expected
 * to take 2^K hashes).
 *
 * Plain C + OpenSSL 3 (EVP), no DPDK.
 */
#ifndef HIPGW_HIP_PUZZLE_H
#define HIPGW_HIP_PUZZLE_H

#include <stddef.h>
#include <stdint.h>

#include "hip_hit.h"

/* Order of the HITs in the hashed input. Only RFC 7401 is for use by the
 * protocol; the other exists so that a test can check a capture of cutehip,
 * which hashes I | HIT-R | HIT-I | J (a deviation from RFC 7401). */
enum hip_puzzle_order {
	HIP_PUZZLE_ORDER_RFC7401 = 0,          /* I | HIT-I | HIT-R | J */
	HIP_PUZZLE_ORDER_CUTEHIP_TEST_ONLY,    /* I | HIT-R | HIT-I | J: tests only */
};

/* Check a solution with the RFC 7401 order. suite: the responder's HIT suite
 * (it gives RHASH and ij_len = hip_suite_rhash_len(suite)); k: difficulty in
 * bits; i, j: ij_len bytes each; hit_i, hit_r: 16 bytes each.
 * Returns 0 when the solution holds, 1 when it does not, -1 for bad arguments
 * (unknown suite, ij_len not the RHASH length, k above the RHASH bits, NULL
 * pointers) or an OpenSSL failure. */
int hip_puzzle_verify(uint8_t suite, unsigned int k, const uint8_t *i, size_t ij_len,
		      const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
		      const uint8_t *j);

/* hip_puzzle_verify with an explicit HIT order (see enum hip_puzzle_order). */
int hip_puzzle_verify_order(uint8_t suite, unsigned int k, const uint8_t *i, size_t ij_len,
			    const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
			    const uint8_t *j, enum hip_puzzle_order order);

/* Solve a puzzle (RFC 7401 section 6.3, initiator side): try J values starting
 * from a random one (OpenSSL CSPRNG), counting up as a big-endian number, until
 * one holds or max_tries hashes are spent (max_tries 0 = no limit; the caller
 * should bound the work by the PUZZLE's Lifetime). Arguments as for verify; the
 * solution goes to j (ij_len bytes). *tries (may be NULL) gets the number of
 * hashes computed. Returns 0 when solved, 1 when max_tries ran out, -1 for bad
 * arguments or an OpenSSL failure. */
int hip_puzzle_solve(uint8_t suite, unsigned int k, const uint8_t *i, size_t ij_len,
		     const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
		     uint8_t *j, uint64_t max_tries, uint64_t *tries);

#endif
