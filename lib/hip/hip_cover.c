/* SPDX-License-Identifier: BSD-3-Clause
 * HIP_MAC, HIP_MAC_2, HIP_SIGNATURE and HIP_SIGNATURE_2 of the engine's
 * packets (RFC 7401 sections 5.2.12 - 5.2.15, 6.4.1, 6.4.2): the covered
 * bytes are prepared by lib/hipwire (hip_coverage.h) in the host's scratch
 * buffer, then MACed, signed or verified with lib/hipcrypto.
 */
#include "hip_coverage.h"
#include "hip_internal.h"
#include "hip_mac.h"
#include "hip_sig.h"

/* What a MAC at pkt[upto] covers, in the scratch buffer, with HOST_ID
 * inserted in type order when given. Returns the length or 0. */
static size_t
prepare_mac(struct hip_host *h, const uint8_t *pkt, size_t upto, const uint8_t *host_id,
	    size_t host_id_len)
{
	int n;

	if (host_id_len > HIP_HOST_ID_TLV_MAX)
		return 0;
	n = hip_coverage_mac(pkt, upto, host_id, host_id_len, h->scratch, sizeof(h->scratch));
	return n > 0 ? (size_t)n : 0;
}

/* What a signature of sig_type at pkt[upto] covers, in the scratch buffer
 * (puzzle_off: the PUZZLE TLV of a HIP_SIGNATURE_2, 0 none). Returns the
 * length or 0. */
static size_t
prepare_sig(struct hip_host *h, const uint8_t *pkt, size_t upto, uint16_t sig_type,
	    size_t puzzle_off)
{
	int n = hip_coverage_sig(pkt, upto, sig_type, puzzle_off, h->scratch, sizeof(h->scratch));

	return n > 0 ? (size_t)n : 0;
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
	n = prepare_mac(h, b->buf, b->len, type == HIP_PARAM_HIP_MAC_2 ? host_id : NULL, host_id_len);
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
	n = prepare_sig(h, b->buf, b->len, type, puzzle_off);
	if (n == 0) {
		b->err = HIP_E_ARG;
		return b->err;
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
	n = prepare_mac(h, pkt, mac->offset, m.type == HIP_PARAM_HIP_MAC_2 ? host_id : NULL, host_id_len);
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
	n = prepare_sig(h, pkt, sig->offset, s.type, puzzle != NULL ? puzzle->offset : 0);
	if (n == 0)
		return -1;
	h->st.sig_verify++;
	return hip_sig_verify(hi, h->scratch, n, s.sig, s.len);
}
