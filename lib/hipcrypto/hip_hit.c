/* SPDX-License-Identifier: BSD-3-Clause
 * HIT suites and ORCHIDv2 HITs (RFC 7343, RFC 7401 sections 3.1 and 5.2.10).
 */
#include <arpa/inet.h>
#include <string.h>
#include <openssl/crypto.h>

#include "hip_hit.h"

/* RFC 7401 section 3.1: the HIP ORCHID context ID */
static const uint8_t hip_context_id[16] = {
	0xF0, 0xEF, 0xF0, 0x2F, 0xBF, 0xF4, 0x3D, 0x0F,
	0xE7, 0x93, 0x0C, 0x3C, 0x6E, 0x61, 0x74, 0xEA,
};

const EVP_MD *
hip_suite_md(uint8_t suite)
{
	switch (suite) {
	case HIP_SUITE_RSA_DSA_SHA256: return EVP_sha256();
	case HIP_SUITE_ECDSA_SHA384: return EVP_sha384();
	case HIP_SUITE_ECDSA_LOW_SHA1: return EVP_sha1();
	default: return NULL;
	}
}

size_t
hip_suite_rhash_len(uint8_t suite)
{
	switch (suite) {
	case HIP_SUITE_RSA_DSA_SHA256: return 32;
	case HIP_SUITE_ECDSA_SHA384: return 48;
	case HIP_SUITE_ECDSA_LOW_SHA1: return 20;
	default: return 0;
	}
}

int
hip_hit_from_hi(uint8_t suite, const uint8_t *hi, size_t hi_len, uint8_t hit[HIP_HIT_LEN])
{
	const EVP_MD *md = hip_suite_md(suite);
	size_t hlen = hip_suite_rhash_len(suite);
	uint8_t dg[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	EVP_MD_CTX *ctx;
	int ok;

	if (hit == NULL)
		return -1;
	memset(hit, 0, HIP_HIT_LEN);
	if (md == NULL || hi == NULL || hi_len == 0 || hi_len > HIP_HI_MAX_LEN)
		return -1;
	ctx = EVP_MD_CTX_new();
	if (ctx == NULL)
		return -1;
	ok = EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
	     EVP_DigestUpdate(ctx, hip_context_id, sizeof(hip_context_id)) == 1 &&
	     EVP_DigestUpdate(ctx, hi, hi_len) == 1 &&
	     EVP_DigestFinal_ex(ctx, dg, &dlen) == 1 && dlen == hlen;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -1;
	/* prefix 2001:20::/28 and the OGA ID */
	hit[0] = 0x20;
	hit[1] = 0x01;
	hit[2] = 0x00;
	hit[3] = (uint8_t)(0x20 | (suite & 0x0f));
	/* Encode_96: the middle 96 bits of the digest */
	memcpy(hit + 4, dg + (hlen - 12) / 2, 12);
	OPENSSL_cleanse(dg, sizeof(dg));
	return 0;
}

bool
hip_hit_is_orchid(const uint8_t hit[HIP_HIT_LEN])
{
	return hit[0] == 0x20 && hit[1] == 0x01 && hit[2] == 0x00 && (hit[3] & 0xf0) == 0x20;
}

int
hip_hit_to_str(const uint8_t hit[HIP_HIT_LEN], char *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return -1;
	if (len > (size_t)(socklen_t)-1)
		len = (socklen_t)-1;
	if (inet_ntop(AF_INET6, hit, buf, (socklen_t)len) == NULL) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

int
hip_hit_parse(const char *s, uint8_t hit[HIP_HIT_LEN])
{
	uint8_t tmp[HIP_HIT_LEN];

	if (s == NULL || inet_pton(AF_INET6, s, tmp) != 1)
		return -1;
	if (!hip_hit_is_orchid(tmp) || hip_suite_md(hip_hit_oga(tmp)) == NULL)
		return -1;
	memcpy(hit, tmp, HIP_HIT_LEN);
	return 0;
}
