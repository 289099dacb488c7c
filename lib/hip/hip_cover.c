/* SPDX-License-Identifier: BSD-3-Clause
 * What HIP_MAC, HIP_MAC_2, HIP_SIGNATURE and HIP_SIGNATURE_2 cover
 * (RFC 7401 sections 5.2.12 - 5.2.15 and 6.4.1, 6.4.2):
 *
 * - the HIP header and every parameter before the MAC / signature, with the
 *   Checksum 0 and the Header Length set as if the packet ended just before
 *   the MAC / signature (parameters after it, such as the signature after
 *   HIP_MAC or ECHO_RESPONSE_UNSIGNED, are not covered);
 * - HIP_MAC_2 (R2): the responder's HOST_ID, exactly as its R1 carried it, is
 *   inserted where type order puts it (after ESP_INFO) and counted in the
 *   Header Length; it is not sent;
 * - HIP_SIGNATURE_2 (R1, precomputed): also the Receiver's HIT, the PUZZLE's
 *   Opaque and its Random #I set to zero (K and Lifetime are covered), so
 *   that the responder can fill them per I1 without signing again;
 * - HIP_SIGNATURE covers HIP_MAC when the packet has one.
 * The same rules reproduced the cutehip capture's MACs and signatures by hand
 * in tests/unit/test_hipcrypto.c.
 */
#include <string.h>

#include "hip_internal.h"
#include "hip_mac.h"
#include "hip_sig.h"

/* Copy pkt[0..upto) into the scratch buffer with HOST_ID inserted in type
 * order when given, fix Checksum and Header Length. Returns the length or 0. */
static size_t
prepare(struct hip_host *h, const uint8_t *pkt, size_t upto, const uint8_t *host_id,
	size_t host_id_len)
{
	uint8_t *s = h->scratch;
	size_t n = upto;

	if (upto < HIP_HDR_LEN || upto > HIP_PACKET_MAX || upto % HIP_TLV_ALIGN != 0 ||
	    host_id_len > HIP_HOST_ID_TLV_MAX)
		return 0;
	if (host_id == NULL || host_id_len == 0) {
		memmove(s, pkt, upto);
	} else {
		struct hip_tlv_iter it;
		struct hip_tlv t;
		size_t ins = upto;
		int rc;

		hip_tlv_iter_init_raw(&it, pkt + HIP_HDR_LEN, upto - HIP_HDR_LEN, 0);
		while ((rc = hip_tlv_next(&it, &t)) == 1) {
			if (t.type > HIP_PARAM_HOST_ID) {
				ins = HIP_HDR_LEN + t.offset;
				break;
			}
		}
		if (rc < 0 || upto + host_id_len > HIP_PACKET_MAX)
			return 0;
		memmove(s, pkt, ins);
		memcpy(s + ins, host_id, host_id_len);
		memcpy(s + ins + host_id_len, pkt + ins, upto - ins);
		n = upto + host_id_len;
	}
	s[HIP_OFF_CHECKSUM] = 0;
	s[HIP_OFF_CHECKSUM + 1] = 0;
	if (hip_hdr_set_len(s, n) != 0)
		return 0;
	return n;
}

int
hip_cover_put_mac(struct hip_host *h, struct hip_builder *b, uint16_t type, uint8_t suite,
		  const struct hip_key *key, const uint8_t *host_id, size_t host_id_len)
{
	uint8_t mac[HIP_MAC_MAX];
	size_t n, ml = 0;
	struct hip_mac m;

	if (b->err != 0)
		return b->err;
	n = prepare(h, b->buf, b->len, type == HIP_PARAM_HIP_MAC_2 ? host_id : NULL, host_id_len);
	if (n == 0 || key->len == 0 ||
	    hip_mac_compute(suite, key->b, key->len, h->scratch, n, mac, sizeof(mac), &ml) != 0) {
		b->err = HIP_E_ARG;
		return b->err;
	}
	m.type = type;
	m.hmac = mac;
	m.len = ml;
	return hip_mac_put(b, &m);
}

int
hip_cover_put_sig(struct hip_host *h, struct hip_builder *b, uint16_t type, size_t puzzle_off)
{
	uint8_t sig[HIP_SIG_MAX];
	size_t n, sl = 0;
	struct hip_signature s;

	if (b->err != 0)
		return b->err;
	n = prepare(h, b->buf, b->len, NULL, 0);
	if (n == 0) {
		b->err = HIP_E_ARG;
		return b->err;
	}
	if (type == HIP_PARAM_HIP_SIGNATURE_2) {
		uint16_t plen;

		memset(h->scratch + HIP_OFF_HIT_RECEIVER, 0, HIP_HIT_LEN);
		if (puzzle_off != 0) {
			if (puzzle_off + HIP_TLV_HDR_LEN + 4 > n) {
				b->err = HIP_E_ARG;
				return b->err;
			}
			plen = hip_get16(h->scratch + puzzle_off + 2);
			if (plen < 4 || puzzle_off + HIP_TLV_HDR_LEN + plen > n) {
				b->err = HIP_E_ARG;
				return b->err;
			}
			/* Opaque (2) and #I (the rest) */
			memset(h->scratch + puzzle_off + HIP_TLV_HDR_LEN + 2, 0, (size_t)plen - 2);
		}
	}
	if (hip_rand_sign(h, h->scratch, n, sig, sizeof(sig), &sl) != 0) {
		b->err = HIP_E_ARG;
		return b->err;
	}
	s.type = type;
	s.algorithm = h->hi->algo;
	s.sig = sig;
	s.len = sl;
	return hip_signature_put(b, &s);
}

int
hip_cover_check_mac(struct hip_host *h, const uint8_t *pkt, const struct hip_tlv *mac,
		    uint8_t suite, const struct hip_key *key,
		    const uint8_t *host_id, size_t host_id_len)
{
	struct hip_mac m;
	size_t n;

	if (mac == NULL || hip_mac_parse(mac, &m) != 0 || key->len == 0)
		return -1;
	n = prepare(h, pkt, mac->offset, m.type == HIP_PARAM_HIP_MAC_2 ? host_id : NULL, host_id_len);
	if (n == 0)
		return -1;
	return hip_mac_verify(suite, key->b, key->len, h->scratch, n, m.hmac, m.len);
}

int
hip_cover_check_sig(struct hip_host *h, const uint8_t *pkt, const struct hip_tlv *sig,
		    const struct hip_hi *hi, const struct hip_tlv *puzzle)
{
	struct hip_signature s;
	size_t n;

	if (sig == NULL || hi == NULL || hip_signature_parse(sig, &s) != 0 || s.algorithm != hi->algo)
		return -1;
	n = prepare(h, pkt, sig->offset, NULL, 0);
	if (n == 0)
		return -1;
	if (s.type == HIP_PARAM_HIP_SIGNATURE_2) {
		memset(h->scratch + HIP_OFF_HIT_RECEIVER, 0, HIP_HIT_LEN);
		if (puzzle != NULL) {
			if (puzzle->len < 4 || puzzle->offset + HIP_TLV_HDR_LEN + puzzle->len > n)
				return -1;
			memset(h->scratch + puzzle->offset + HIP_TLV_HDR_LEN + 2, 0, (size_t)puzzle->len - 2);
		}
	}
	h->st.sig_verify++;
	return hip_sig_verify(hi, h->scratch, n, s.sig, s.len);
}
