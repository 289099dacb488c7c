/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: decoding a peer's HOST_ID (RFC 7401 sections 5.2.9, 3.1;
 * RFC 7343; RFC 3110).
 *
 * Input: one parameter TLV (hip_tlv_parse_one; its type is taken as HOST_ID
 * whatever it says, so that every input reaches the HOST_ID parser), then
 * bytes used as a signature. Checked:
 *   - hip_host_id_parse; on success, hip_hi_decode of the Host Identity for the
 *     TLV's algorithm and for RSA and ECDSA, each twice: the two verdicts and
 *     the two HITs must be equal (a verdict depends on the input alone), a
 *     refused HI leaves an empty struct hip_hi;
 *   - a decoded HI: its HIT is an ORCHIDv2 of the HI's suite and equals
 *     hip_hit_from_hi of the same bytes; hip_sig_verify with the trailing
 *     bytes as signature (over the TLV) must fail, as must a signature one
 *     byte short;
 *   - hip_hit_from_hi of the HI bytes for each HIT suite, twice, equal.
 * Any broken property aborts (a finding). The HI bytes handed to lib/hipcrypto
 * are a heap copy of exactly their length.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "hip_hi.h"
#include "hip_hit.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hip_sig.h"

/* A decoded HI: HIT, and a garbage signature refused. */
static void
check_decoded(const struct hip_hi *hi, const uint8_t *hib, size_t hi_len, const uint8_t *msg,
	      size_t msg_len, const uint8_t *tail, size_t tail_len)
{
	uint8_t hit[HIP_HIT_LEN], *sig;
	size_t sl = hip_sig_len(hi);

	if (hi->pkey == NULL || hi->has_private || hi->hi_len != hi_len || memcmp(hi->hi, hib, hi_len) != 0)
		FUZZ_FAIL("decoded HI (algorithm %u) does not hold its input", hi->algo);
	if (hip_hit_from_hi(hi->suite, hib, hi_len, hit) != 0 || memcmp(hit, hi->hit, sizeof(hit)) != 0)
		FUZZ_FAIL("HIT of the decoded HI differs from hip_hit_from_hi");
	if (!hip_hit_is_orchid(hi->hit) || hip_hit_oga(hi->hit) != hi->suite ||
	    hi->suite != hip_hi_suite_of_algo(hi->algo))
		FUZZ_FAIL("HIT not an ORCHIDv2 of suite %u", hi->suite);
	if (sl == 0 || sl > HIP_SIG_MAX)
		FUZZ_FAIL("signature length %zu for a decoded HI", sl);
	sig = malloc(sl);
	if (sig == NULL)
		abort();
	for (size_t i = 0; i < sl; i++)
		sig[i] = tail_len != 0 ? tail[i % tail_len] : (uint8_t)i;
	if (hip_sig_verify(hi, msg, msg_len, sig, sl) == 0)
		FUZZ_FAIL("garbage signature verified");
	if (hip_sig_verify(hi, msg, msg_len, sig, sl - 1) == 0)
		FUZZ_FAIL("short signature verified");
	free(sig);
}

static void
decode_twice(uint16_t algo, const uint8_t *hib, size_t hi_len, const uint8_t *msg, size_t msg_len,
	     const uint8_t *tail, size_t tail_len)
{
	struct hip_hi a, b;
	int ra, rb;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ra = hip_hi_decode(algo, hib, hi_len, &a);
	rb = hip_hi_decode(algo, hib, hi_len, &b);
	if (ra != rb)
		FUZZ_FAIL("algorithm %u: two decodes of the same HI disagree (%d, %d)", algo, ra, rb);
	if (ra == 0) {
		if (memcmp(a.hit, b.hit, sizeof(a.hit)) != 0 || a.suite != b.suite || a.curve != b.curve)
			FUZZ_FAIL("algorithm %u: two decodes give different HITs", algo);
		if (a.algo != algo)
			FUZZ_FAIL("decoded as algorithm %u, asked %u", a.algo, algo);
		check_decoded(&a, hib, hi_len, msg, msg_len, tail, tail_len);
	} else if (ra != -1 || !fuzz_all_zero(&a, sizeof(a))) {
		FUZZ_FAIL("algorithm %u: refused HI (%d) leaves data behind", algo, ra);
	}
	hip_hi_free(&a);
	hip_hi_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t algos[] = { HIP_HI_ALGO_RSA, HIP_HI_ALGO_ECDSA };
	static const uint8_t suites[] = { HIP_SUITE_RSA_DSA_SHA256, HIP_SUITE_ECDSA_SHA384,
					  HIP_SUITE_ECDSA_LOW_SHA1 };
	uint8_t *buf, *hib, h1[HIP_HIT_LEN], h2[HIP_HIT_LEN];
	struct hip_host_id hid;
	struct hip_tlv t;

	buf = fuzz_copy(data, size);
	if (hip_tlv_parse_one(buf, size, &t) != HIP_OK) {
		free(buf);
		return 0;
	}
	t.type = HIP_PARAM_HOST_ID;
	if (hip_host_id_parse(&t, &hid) != HIP_OK) {
		free(buf);
		return 0;
	}
	hib = fuzz_copy(hid.hi, hid.hi_len);
	decode_twice(hid.algorithm, hib, hid.hi_len, buf, t.total, buf + t.total, size - t.total);
	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		if (algos[i] != hid.algorithm)
			decode_twice(algos[i], hib, hid.hi_len, buf, t.total, buf + t.total, size - t.total);
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		int r1 = hip_hit_from_hi(suites[i], hib, hid.hi_len, h1);
		int r2 = hip_hit_from_hi(suites[i], hib, hid.hi_len, h2);

		if (r1 != r2 || (r1 == 0 && (memcmp(h1, h2, sizeof(h1)) != 0 || !hip_hit_is_orchid(h1) ||
					     hip_hit_oga(h1) != suites[i])))
			FUZZ_FAIL("hip_hit_from_hi suite %u: not deterministic or not an ORCHID", suites[i]);
	}
	free(hib);
	free(buf);
	return 0;
}
