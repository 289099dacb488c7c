/* SPDX-License-Identifier: BSD-3-Clause
 * What HIP_MAC(_2) and HIP_SIGNATURE(_2) cover (hip_coverage.h; RFC 7401
 * 6.4.1, 6.4.2). The same rules reproduced the cutehip capture's MACs and
 * signatures by hand in tests/unit/test_hipcrypto.c.
 */
#include <string.h>

#include "hip_coverage.h"

static bool
upto_ok(const uint8_t *pkt, size_t upto, const uint8_t *out)
{
	return pkt != NULL && out != NULL && upto >= HIP_HDR_LEN && upto <= HIP_PACKET_MAX &&
	       upto % HIP_TLV_ALIGN == 0;
}

/* Checksum 0 and Header Length n in the prepared bytes. */
static int
fix_header(uint8_t *s, size_t n)
{
	s[HIP_OFF_CHECKSUM] = 0;
	s[HIP_OFF_CHECKSUM + 1] = 0;
	return hip_hdr_set_len(s, n) == 0 ? (int)n : HIP_E_ARG;
}

int
hip_coverage_mac(const uint8_t *pkt, size_t upto, const uint8_t *host_id, size_t host_id_len,
		 uint8_t *out, size_t cap)
{
	struct hip_tlv_iter it;
	struct hip_tlv t;
	size_t ins = upto;
	int rc;

	if (!upto_ok(pkt, upto, out))
		return HIP_E_ARG;
	if (host_id == NULL || host_id_len == 0) {
		if (cap < upto)
			return HIP_E_ARG;
		memmove(out, pkt, upto);
		return fix_header(out, upto);
	}
	if (host_id_len > HIP_PACKET_MAX || upto + host_id_len > HIP_PACKET_MAX ||
	    cap < upto + host_id_len || out == pkt)
		return HIP_E_ARG;
	hip_tlv_iter_init_raw(&it, pkt + HIP_HDR_LEN, upto - HIP_HDR_LEN, 0);
	while ((rc = hip_tlv_next(&it, &t)) == 1) {
		if (t.type > HIP_PARAM_HOST_ID) {
			ins = HIP_HDR_LEN + t.offset;
			break;
		}
	}
	if (rc < 0)
		return rc;
	memcpy(out, pkt, ins);
	memcpy(out + ins, host_id, host_id_len);
	memcpy(out + ins + host_id_len, pkt + ins, upto - ins);
	return fix_header(out, upto + host_id_len);
}

int
hip_coverage_sig(const uint8_t *pkt, size_t upto, uint16_t sig_type, size_t puzzle_off,
		 uint8_t *out, size_t cap)
{
	if (!upto_ok(pkt, upto, out) || cap < upto)
		return HIP_E_ARG;
	memmove(out, pkt, upto);
	if (fix_header(out, upto) < 0)
		return HIP_E_ARG;
	if (sig_type == HIP_PARAM_HIP_SIGNATURE_2) {
		memset(out + HIP_OFF_HIT_RECEIVER, 0, HIP_HIT_LEN);
		if (puzzle_off != 0) {
			uint16_t plen;

			if (puzzle_off < HIP_HDR_LEN || puzzle_off + HIP_TLV_HDR_LEN + 4 > upto)
				return HIP_E_ARG;
			plen = hip_get16(out + puzzle_off + 2);
			if (plen < 4 || puzzle_off + HIP_TLV_HDR_LEN + plen > upto)
				return HIP_E_ARG;
			/* Opaque (2) and #I (the rest) */
			memset(out + puzzle_off + HIP_TLV_HDR_LEN + 2, 0, (size_t)plen - 2);
		}
	}
	return (int)upto;
}
