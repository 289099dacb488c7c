/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP puzzle (RFC 7401 sections 4.1.2, 5.2.4, 5.2.5, 6.3).
 */
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "hip_puzzle.h"

/* Ltrunc(dg, k) == 0: the k lowest-order bits of the big-endian digest */
static int
low_bits_zero(const uint8_t *dg, size_t dlen, unsigned int k)
{
	size_t full = k / 8;
	unsigned int rest = k % 8;
	size_t x;

	for (x = 0; x < full; x++)
		if (dg[dlen - 1 - x] != 0)
			return 0;
	if (rest != 0 && (dg[dlen - 1 - full] & ((1u << rest) - 1u)) != 0)
		return 0;
	return 1;
}

static int
args_ok(uint8_t suite, unsigned int k, const uint8_t *i, size_t ij_len,
	const uint8_t *hit_i, const uint8_t *hit_r, const uint8_t *j)
{
	size_t hl = hip_suite_rhash_len(suite);

	return hl != 0 && ij_len == hl && k <= 8 * hl && i != NULL && j != NULL &&
	       hit_i != NULL && hit_r != NULL;
}

/* ctx <- RHASH state after I | first HIT | second HIT */
static int
prefix_init(EVP_MD_CTX *ctx, uint8_t suite, const uint8_t *i, size_t ij_len,
	    const uint8_t *hit_i, const uint8_t *hit_r, enum hip_puzzle_order order)
{
	const uint8_t *h1 = order == HIP_PUZZLE_ORDER_RFC7401 ? hit_i : hit_r;
	const uint8_t *h2 = order == HIP_PUZZLE_ORDER_RFC7401 ? hit_r : hit_i;

	return EVP_DigestInit_ex(ctx, hip_suite_md(suite), NULL) == 1 &&
	       EVP_DigestUpdate(ctx, i, ij_len) == 1 &&
	       EVP_DigestUpdate(ctx, h1, HIP_HIT_LEN) == 1 &&
	       EVP_DigestUpdate(ctx, h2, HIP_HIT_LEN) == 1;
}

/* 1 holds, 0 does not, -1 error */
static int
try_j(EVP_MD_CTX *pre, EVP_MD_CTX *work, const uint8_t *j, size_t ij_len, unsigned int k)
{
	uint8_t dg[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;

	if (EVP_MD_CTX_copy_ex(work, pre) != 1 || EVP_DigestUpdate(work, j, ij_len) != 1 ||
	    EVP_DigestFinal_ex(work, dg, &dlen) != 1 || dlen != ij_len)
		return -1;
	return low_bits_zero(dg, dlen, k);
}

int
hip_puzzle_verify_order(uint8_t suite, unsigned int k, const uint8_t *i, size_t ij_len,
			const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
			const uint8_t *j, enum hip_puzzle_order order)
{
	EVP_MD_CTX *pre, *work;
	int r = -1;

	if (!args_ok(suite, k, i, ij_len, hit_i, hit_r, j) ||
	    (order != HIP_PUZZLE_ORDER_RFC7401 && order != HIP_PUZZLE_ORDER_CUTEHIP_TEST_ONLY))
		return -1;
	pre = EVP_MD_CTX_new();
	work = EVP_MD_CTX_new();
	if (pre != NULL && work != NULL && prefix_init(pre, suite, i, ij_len, hit_i, hit_r, order))
		r = try_j(pre, work, j, ij_len, k);
	EVP_MD_CTX_free(pre);
	EVP_MD_CTX_free(work);
	return r < 0 ? -1 : (r == 1 ? 0 : 1);
}

int
hip_puzzle_verify(uint8_t suite, unsigned int k, const uint8_t *i, size_t ij_len,
		  const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
		  const uint8_t *j)
{
	return hip_puzzle_verify_order(suite, k, i, ij_len, hit_i, hit_r, j,
				       HIP_PUZZLE_ORDER_RFC7401);
}

int
hip_puzzle_solve(uint8_t suite, unsigned int k, const uint8_t *i, size_t ij_len,
		 const uint8_t hit_i[HIP_HIT_LEN], const uint8_t hit_r[HIP_HIT_LEN],
		 uint8_t *j, uint64_t max_tries, uint64_t *tries)
{
	EVP_MD_CTX *pre = NULL, *work = NULL;
	uint8_t cand[HIP_RHASH_MAX];
	uint64_t n = 0;
	int rc = -1;

	if (tries != NULL)
		*tries = 0;
	if (!args_ok(suite, k, i, ij_len, hit_i, hit_r, j))
		return -1;
	pre = EVP_MD_CTX_new();
	work = EVP_MD_CTX_new();
	if (pre == NULL || work == NULL ||
	    !prefix_init(pre, suite, i, ij_len, hit_i, hit_r, HIP_PUZZLE_ORDER_RFC7401) ||
	    RAND_bytes(cand, (int)ij_len) != 1)
		goto out;
	for (;;) {
		int r;
		size_t x;

		if (max_tries != 0 && n >= max_tries) {
			rc = 1;
			break;
		}
		r = try_j(pre, work, cand, ij_len, k);
		n++;
		if (r < 0)
			break;
		if (r == 1) {
			memcpy(j, cand, ij_len);
			rc = 0;
			break;
		}
		/* next J: big-endian increment */
		for (x = ij_len; x-- > 0;)
			if (++cand[x] != 0)
				break;
	}
out:
	if (tries != NULL)
		*tries = n;
	OPENSSL_cleanse(cand, sizeof(cand));
	EVP_MD_CTX_free(pre);
	EVP_MD_CTX_free(work);
	return rc;
}
