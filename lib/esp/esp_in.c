/* SPDX-License-Identifier: BSD-3-Clause
 * ESP inbound, tunnel mode (RFC 4303 section 3.4).
 *
 * A run of packets of one SA goes through three stages, as DPDK's lib/ipsec:
 *   1. check: outer IP header and lengths (malformed), then the sequence
 *      number against the anti-replay window (replay; RFC 4303 3.4.3, before
 *      any crypto);
 *   2. crypto: GCM through the direct intel-ipsec-mb API, one packet at a
 *      time, each finished (3.) right after its decryption; CBC-HMAC and
 *      NULL-HMAC as jobs for the whole run (HMAC over the ciphertext, then the
 *      CBC decryption, in one chained job), finished after the flush.
 *      Decryption is in place;
 *   3. finish, in arrival order: ICV compared in constant time (auth, or
 *      replay when an earlier packet of the burst took the sequence number),
 *      then the window update (every packet whose ICV verified moves the
 *      window, whatever it is dropped for next: RFC 4303 3.4.3), padding
 *      (pad), next header (dummy) and inner header (malformed), ECN fold
 *      (ecn), strip.
 * A packet is only ever delivered after its ICV matched; a dropped mbuf may
 * hold partly decrypted data and is the caller's to free. Each packet gets
 * the verdict it would get alone in a burst after the packets before it.
 *
 * ESN (RFC 4303 Appendix A2): the high half of the sequence number, which
 * the ICV covers, is inferred against the window as the earlier packets of
 * the burst that authenticated leave it. Stage 1 infers against the window
 * before the run and also against the highest number an earlier packet of
 * the run could raise it to; inference only grows with the window's top
 * (replay.h), so when both agree the inference is final. A packet where they
 * differ ends the run there: the packets before it are finished first, and
 * it starts the next run, inferred again against the window they left. Near
 * a 2^32 boundary that is one packet per run at worst; elsewhere one run.
 *
 * The outer header: IPv4 with options allowed, not a fragment (reassemble
 * first), header checksum verified unless the NIC flagged it good; IPv6 with
 * ESP directly after the fixed header (no extension headers). IP length
 * shorter than the frame: the rest (link padding) is trimmed; longer:
 * malformed. The outer addresses are not checked: the SPI selects the SA.
 *
 * A cut ICV shows as an ICV mismatch (auth) unless the packet became shorter
 * than ESP header + IV + ICV (a runt: malformed). For CBC a ciphertext that is
 * no multiple of the block is still authenticated first (hash-only job), so a
 * cut ICV counts as auth there too; if such a packet authenticates it is
 * malformed.
 *
 * Sequence number 0 is always refused (replay), anti-replay on or off.
 * Dummy packets (next header 59, RFC 4303 2.6) are discarded once their ICV
 * and padding verified, counted as dummy. TFC padding after the inner packet
 * (RFC 4303 2.7) is cut off by the inner header's length.
 *
 * Chained mbufs are linearised in place (rte_pktmbuf_linearize) when the
 * first segment's buffer holds the whole packet; otherwise, or when the
 * segments' lengths disagree with pkt_len or nb_segs, malformed. Larger
 * packets need a buffer that fits (lib/dp copies them into large mbufs).
 *
 * BEET (RFC 7402 section 3.1), on SAs created with beet: next header 4/41 stays
 * tunnel mode; any other (but 59) is the upper layer of a HIT-to-HIT packet for
 * the gateway itself. After the same ICV, padding and replay checks an IPv6
 * header is rebuilt in front of the payload (the peer's HIT -> ours, hop limit
 * 64, traffic class = the outer ECN) and packet_type is ESP_PTYPE_BEET. On an
 * SA without beet these packets stay malformed.
 */
#include <rte_byteorder.h>
#include <rte_prefetch.h>

#include "esp_internal.h"

enum in_kind { K_GCM128, K_GCM256, K_CBC, K_NULL };

static const uint8_t pad_ref[255] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
	33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
	49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64,
	65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80,
	81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96,
	97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112,
	113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128,
	129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144,
	145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160,
	161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176,
	177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192,
	193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208,
	209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224,
	225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240,
	241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255,
};

struct in_pkt {
	uint8_t *esp;          /* ESP header */
	uint8_t *icv;          /* received ICV in the packet */
	const uint8_t *rx_icv; /* received ICV to compare: icv, or saved for HMAC with ESN */
	uint64_t seq;          /* 64-bit sequence number (inferred with ESN) */
	uint32_t ct_len;       /* ciphertext (payload + padding + trailer) */
	uint16_t hl;           /* outer IP header bytes */
	uint8_t outer_ecn;
	uint8_t auth_only;     /* CBC: not a block multiple, HMAC only */
	uint8_t nonce[12];     /* GCM: salt || IV */
	uint8_t aad[12];       /* GCM with ESN */
	uint8_t tag[16];       /* computed ICV */
	uint8_t saved_icv[16]; /* HMAC with ESN: the seq hi overwrote the ICV's first bytes */
};

/* Stage 1 verdict (not a drop reason): the packet's ESN inference may still
 * change within this run; it starts the next one. */
#define IN_CUT GW_DROP_MAX

/* A chained mbuf in one segment, in place: 0, or -1 when the chain's lengths
 * disagree (pkt_len, nb_segs) or the first buffer lacks the room. */
static __rte_noinline int
in_linearize(struct rte_mbuf *m)
{
	uint32_t sum = 0, nseg = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		sum += s->data_len;
		if (++nseg > m->nb_segs)
			return -1;
	}
	if (sum != m->pkt_len || nseg != m->nb_segs)
		return -1;
	return rte_pktmbuf_linearize(m);
}

/* Stage 1 for one packet: GW_DROP_NONE, MALFORMED, REPLAY or IN_CUT. With
 * ESN, *tmax is the highest sequence number an earlier packet of the run
 * may leave as the window's top; raised by this one. */
static __rte_always_inline uint8_t
in_check(const struct esp_sa *sa, struct rte_mbuf *m, struct in_pkt *p, uint64_t *tmax,
	 const enum in_kind K, const unsigned iv_len)
{
	const uint8_t *ip;
	uint32_t dl, tl, hl, plen, seq_lo_be, seq_lo;

	if (unlikely(m->nb_segs != 1) && in_linearize(m) != 0)
		return GW_DROP_MALFORMED;
	ip = rte_pktmbuf_mtod(m, const uint8_t *);
	dl = rte_pktmbuf_data_len(m);
	if (unlikely(dl < GW_IPV4_HDR_LEN))
		return GW_DROP_MALFORMED;
	if (gw_ip_version(ip) == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)ip;

		hl = gw_ipv4_hdr_bytes(ip);
		tl = rte_be_to_cpu_16(h->total_length);
		if (unlikely(hl < GW_IPV4_HDR_LEN || tl < hl || tl > dl ||
			     h->next_proto_id != GW_IPPROTO_ESP ||
			     (h->fragment_offset &
			      rte_cpu_to_be_16(GW_IPV4_MF | GW_IPV4_OFFSET_MASK)) != 0))
			return GW_DROP_MALFORMED;
		if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
		    unlikely((hl == GW_IPV4_HDR_LEN ? esp_cksum20(h) : rte_ipv4_cksum(h)) != 0))
			return GW_DROP_MALFORMED;
		p->outer_ecn = h->type_of_service & GW_ECN_MASK;
	} else if (gw_ip_version(ip) == 6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)ip;

		if (unlikely(dl < GW_IPV6_HDR_LEN))
			return GW_DROP_MALFORMED;
		hl = GW_IPV6_HDR_LEN;
		tl = GW_IPV6_HDR_LEN + rte_be_to_cpu_16(h->payload_len);
		if (unlikely(tl > dl || h->proto != GW_IPPROTO_ESP))
			return GW_DROP_MALFORMED;
		p->outer_ecn = gw_ipv6_tc(rte_be_to_cpu_32(h->vtc_flow)) & GW_ECN_MASK;
	} else {
		return GW_DROP_MALFORMED;
	}
	plen = tl - hl;
	if (unlikely(plen < GW_ESP_HDR_LEN + iv_len + GW_ESP_GCM_ICV_LEN))
		return GW_DROP_MALFORMED;                 /* runt */
	if (unlikely(tl < dl)) {            /* link-layer padding (one segment: no lastseg walk) */
		m->data_len = (uint16_t)tl;
		m->pkt_len = tl;
	}
	p->hl = (uint16_t)hl;
	p->esp = (uint8_t *)(uintptr_t)ip + hl;
	p->ct_len = plen - GW_ESP_HDR_LEN - iv_len - GW_ESP_GCM_ICV_LEN;
	p->icv = p->esp + GW_ESP_HDR_LEN + iv_len + p->ct_len;
	p->rx_icv = p->icv;
	p->auth_only = K == K_CBC && (p->ct_len == 0 || p->ct_len % GW_ESP_CBC_BLOCK != 0);
	memcpy(&seq_lo_be, p->esp + 4, 4);
	rte_prefetch0(p->icv);
	seq_lo = rte_be_to_cpu_32(seq_lo_be);
	p->seq = replay_infer(&sa->rw, sa->esn, seq_lo);
	if (sa->esn && unlikely(replay_infer_at(*tmax, sa->rw.win, true, seq_lo) != p->seq))
		return IN_CUT;
	if (unlikely(replay_check(&sa->rw, esp_sa_rw_bits(sa), p->seq) != 0))
		return GW_DROP_REPLAY;
	if (sa->esn && p->seq > *tmax)
		*tmax = p->seq;
	if (K == K_GCM128 || K == K_GCM256) {
		/* nonce (and the ESN AAD) now, a whole stage before intel-ipsec-mb
		 * reads them with one masked vector load: built right before the
		 * call, that load waited on these smaller stores (no store-to-load
		 * forwarding), about 13 cycles a packet */
		memcpy(p->nonce, sa->salt, 4);
		memcpy(p->nonce + 4, p->esp + GW_ESP_HDR_LEN, 8);
		if (sa->esn) {
			uint32_t hi_be = rte_cpu_to_be_32((uint32_t)(p->seq >> 32));

			memcpy(p->aad, p->esp, 4);
			memcpy(p->aad + 4, &hi_be, 4);
			memcpy(p->aad + 8, p->esp + 4, 4);
		}
	}
	return GW_DROP_NONE;
}

/* Fill the CBC-HMAC or NULL-HMAC job of one packet. With ESN the high half of
 * the sequence number is appended to the ciphertext for the ICV only (RFC 4303
 * 2.2.1): the received ICV is saved and those 4 bytes go in its place. */
static __rte_always_inline void
in_job(const struct esp_sa *sa, IMB_JOB *job, struct in_pkt *p, const enum in_kind K,
       const unsigned iv_len)
{
	uint64_t hlen = GW_ESP_HDR_LEN + iv_len + p->ct_len;

	if (sa->esn) {
		uint32_t hi_be = rte_cpu_to_be_32((uint32_t)(p->seq >> 32));

		memcpy(p->saved_icv, p->icv, GW_ESP_HMAC256_ICV_LEN);
		memcpy(p->icv, &hi_be, 4);
		p->rx_icv = p->saved_icv;
		hlen += 4;
	}
	esp_job_hmac(job, sa->k.cbc.ipad, sa->k.cbc.opad, p->esp, hlen, p->tag,
		     GW_ESP_HMAC256_ICV_LEN);
	if (K == K_CBC && !p->auth_only) {
		job->cipher_mode = IMB_CIPHER_CBC;
		job->cipher_direction = IMB_DIR_DECRYPT;
		job->chain_order = IMB_ORDER_HASH_CIPHER;
		job->enc_keys = sa->k.cbc.enc;
		job->dec_keys = sa->k.cbc.dec;
		job->key_len_in_bytes = sa->key_len;
		job->dst = p->esp + GW_ESP_HDR_LEN + iv_len;
		job->cipher_start_src_offset_in_bytes = GW_ESP_HDR_LEN + iv_len;
		job->msg_len_to_cipher_in_bytes = p->ct_len;
		job->iv = p->esp + GW_ESP_HDR_LEN;
		job->iv_len_in_bytes = GW_ESP_CBC_IV_LEN;
	}
}

/* Padding 1, 2, 3, ... (RFC 4303 2.4). Inline for the usual few bytes (a libc
 * memcmp call costs more than the compare). */
static __rte_always_inline bool
pad_ok(const uint8_t *pad, unsigned n)
{
	uint8_t diff = 0;

	if (n > 16)
		return memcmp(pad, pad_ref, n) == 0;
	for (unsigned i = 0; i < n; i++)
		diff |= pad[i] ^ pad_ref[i];
	return diff == 0;
}

/* RFC 6040 section 4.2, decapsulation. Returns the new inner ECN, or -1 to drop. */
static __rte_always_inline int
ecn_fold(uint8_t outer, uint8_t inner)
{
	if (outer == GW_ECN_CE)
		return inner == GW_ECN_NOT_ECT ? -1 : GW_ECN_CE;
	if (outer == GW_ECN_ECT1 && inner == GW_ECN_ECT0)
		return GW_ECN_ECT1;
	return inner;
}

/* Stage 3 for next headers other than 4 and 41, the ICV and the padding
 * verified: 59 is a dummy packet (RFC 4303 2.6); 97 on an etherip SA is L2
 * mode's EtherIP payload, delivered as is; any other is, on a BEET SA
 * (RFC 7402 3.1), an upper layer: rebuild the inner IPv6 header from the
 * SA's HITs right in front of the payload (into the bytes of the ESP header,
 * IV and outer header, and the headroom if those are fewer than 40). */
static __rte_noinline uint8_t
in_beet(struct esp_sa *sa, struct rte_mbuf *m, struct in_pkt *p, const unsigned iv_len,
	uint8_t *in, uint32_t inner_len, uint8_t nh, uint32_t *ilen)
{
	struct rte_ipv6_hdr *h;
	uint32_t before = (uint32_t)m->data_off + p->hl + GW_ESP_HDR_LEN + iv_len;

	if (nh == GW_IPPROTO_NONE)
		return GW_DROP_DUMMY;
	if (nh == GW_IPPROTO_ETHERIP && sa->etherip) {
		/* L2 mode: the payload as is; lib/dp checks the EtherIP header */
		m->data_off = (uint16_t)(m->data_off + p->hl + GW_ESP_HDR_LEN + iv_len);
		m->data_len = (uint16_t)inner_len;
		m->pkt_len = inner_len;
		m->packet_type = ESP_PTYPE_ETHERIP;
		m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
		*ilen = inner_len;
		return GW_DROP_NONE;
	}
	if (!sa->beet || before < GW_IPV6_HDR_LEN)
		return GW_DROP_MALFORMED;
	h = (struct rte_ipv6_hdr *)(in - GW_IPV6_HDR_LEN);
	h->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(p->outer_ecn));
	h->payload_len = rte_cpu_to_be_16((uint16_t)inner_len);
	h->proto = nh;
	h->hop_limits = GW_IP_DEFAULT_TTL;
	memcpy(h->src_addr, sa->hit_remote, 16);
	memcpy(h->dst_addr, sa->hit_local, 16);
	m->data_off = (uint16_t)(before - GW_IPV6_HDR_LEN);
	m->data_len = (uint16_t)(inner_len + GW_IPV6_HDR_LEN);
	m->pkt_len = inner_len + GW_IPV6_HDR_LEN;
	m->packet_type = ESP_PTYPE_BEET;
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
	*ilen = inner_len + GW_IPV6_HDR_LEN;
	return GW_DROP_NONE;
}

/* Stage 3 for one packet whose crypto ran. Returns the drop reason; on success
 * m holds the inner packet and *ilen its length. */
static __rte_always_inline uint8_t
in_finish(struct esp_sa *sa, struct rte_mbuf *m, struct in_pkt *p, const unsigned iv_len,
	  uint32_t *ilen)
{
	uint8_t *in = p->esp + GW_ESP_HDR_LEN + iv_len;
	uint32_t len = p->ct_len, inner_len, tl;
	uint8_t padlen, nh, ecn_in;
	int ecn_new;

	if (esp_icv_diff16(p->tag, p->rx_icv) != 0)   /* replay: an earlier packet of the burst */
		return replay_check(&sa->rw, esp_sa_rw_bits(sa), p->seq) != 0 ? GW_DROP_REPLAY :
										 GW_DROP_AUTH;
	/* authentic: the window moves, whatever the packet is dropped for next */
	if (unlikely(replay_update(&sa->rw, esp_sa_rw_bits(sa), p->seq) != 0))
		return GW_DROP_REPLAY;
	if (unlikely(p->auth_only || len < GW_ESP_TRAILER_LEN))
		return GW_DROP_MALFORMED;
	padlen = in[len - 2];
	nh = in[len - 1];
	if (unlikely(padlen > len - GW_ESP_TRAILER_LEN))
		return GW_DROP_PAD;
	inner_len = len - GW_ESP_TRAILER_LEN - padlen;
	if (unlikely(!pad_ok(in + inner_len, padlen)))
		return GW_DROP_PAD;
	if (nh == GW_IPPROTO_IPIP) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)in;
		unsigned ihl;

		if (unlikely(inner_len < GW_IPV4_HDR_LEN || gw_ip_version(in) != 4))
			return GW_DROP_MALFORMED;
		ihl = gw_ipv4_hdr_bytes(in);
		tl = rte_be_to_cpu_16(h->total_length);
		/* shorter than inner_len: TFC padding (RFC 4303 2.4), dropped */
		if (unlikely(ihl < GW_IPV4_HDR_LEN || tl < ihl || tl > inner_len))
			return GW_DROP_MALFORMED;
		ecn_in = h->type_of_service & GW_ECN_MASK;
	} else if (nh == GW_IPPROTO_IPV6) {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)in;

		if (unlikely(inner_len < GW_IPV6_HDR_LEN || gw_ip_version(in) != 6))
			return GW_DROP_MALFORMED;
		tl = GW_IPV6_HDR_LEN + rte_be_to_cpu_16(h->payload_len);
		if (unlikely(tl > inner_len))
			return GW_DROP_MALFORMED;
		ecn_in = gw_ipv6_tc(rte_be_to_cpu_32(h->vtc_flow)) & GW_ECN_MASK;
	} else {
		return in_beet(sa, m, p, iv_len, in, inner_len, nh, ilen);
	}
	ecn_new = ecn_fold(p->outer_ecn, ecn_in);
	if (unlikely(ecn_new < 0))
		return GW_DROP_ECN;
	if (unlikely(ecn_new != ecn_in)) {
		if (nh == GW_IPPROTO_IPIP) {
			struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)in;

			h->type_of_service = (uint8_t)((h->type_of_service & ~GW_ECN_MASK) | ecn_new);
			h->hdr_checksum = 0;
			h->hdr_checksum = rte_ipv4_cksum(h);
		} else {
			struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)in;
			uint32_t v = rte_be_to_cpu_32(h->vtc_flow);

			v = (v & ~((uint32_t)GW_ECN_MASK << GW_IPV6_TC_SHIFT)) |
			    ((uint32_t)ecn_new << GW_IPV6_TC_SHIFT);
			h->vtc_flow = rte_cpu_to_be_32(v);
		}
	}
	/* keep exactly the inner packet (one segment, so only cache line 0) */
	m->data_off += (uint16_t)(p->hl + GW_ESP_HDR_LEN + iv_len);
	m->data_len = (uint16_t)tl;
	m->pkt_len = tl;
	m->packet_type = nh == GW_IPPROTO_IPIP ? RTE_PTYPE_L3_IPV4_EXT_UNKNOWN :
						 RTE_PTYPE_L3_IPV6_EXT_UNKNOWN;
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
	*ilen = tl;
	return GW_DROP_NONE;
}

/* Stages 2 and 3 for the packets idx[0 .. nv) of a run, in arrival order (the
 * window sees them in order). GCM is synchronous: each packet is finished
 * right after its decryption, while its trailer and inner header are still
 * in L1. Adds the delivered packets and inner bytes to *nok and *bytes. */
static __rte_always_inline void
in_crypto(struct esp_sa *sa, IMB_MGR *mgr, struct rte_mbuf **mb, uint8_t *drop,
	  struct in_pkt *pk, const uint16_t *idx, uint16_t nv, uint32_t *nok, uint64_t *bytes,
	  const enum in_kind K, const unsigned iv_len)
{
	if (K == K_GCM128 || K == K_GCM256) {
		for (uint16_t k = 0; k < nv; k++) {
			uint16_t i = idx[k];
			struct in_pkt *p = &pk[i];
			uint8_t *ct = p->esp + GW_ESP_HDR_LEN + GW_ESP_GCM_IV_LEN;
			uint32_t ilen;

			if (k + 1 < nv)
				rte_prefetch0(pk[idx[k + 1]].esp + GW_ESP_HDR_LEN + GW_ESP_GCM_IV_LEN);
			if (sa->esn) {
				esp_gcm_dec(sa, mgr, K == K_GCM256, ct, ct, p->ct_len, p->nonce,
					    p->aad, 12, p->tag);
			} else {
				esp_gcm_dec(sa, mgr, K == K_GCM256, ct, ct, p->ct_len, p->nonce,
					    p->esp, 8, p->tag);
			}
			drop[i] = in_finish(sa, mb[i], p, iv_len, &ilen);
			if (likely(drop[i] == GW_DROP_NONE)) {
				(*nok)++;
				*bytes += ilen;
			}
		}
	} else {
		IMB_JOB *job;
		uint32_t len[GW_ESP_BURST_MAX_PACKETS];
		uint16_t ord_buf[GW_ESP_BURST_MAX_PACKETS];
		const uint16_t *ord;

		for (uint16_t k = 0; k < nv; k++)
			len[k] = pk[idx[k]].ct_len;
		ord = esp_order_longest_first(ord_buf, idx, len, nv);
		for (uint16_t k = 0; k < nv; k++) {
			job = IMB_GET_NEXT_JOB(mgr);
			in_job(sa, job, &pk[ord[k]], K, iv_len);
			job->user_data = (void *)(uintptr_t)ord[k];
			esp_jobs_reap(mgr, IMB_SUBMIT_JOB(mgr), drop, GW_DROP_AUTH);
		}
		esp_jobs_flush(mgr, drop, GW_DROP_AUTH);
		for (uint16_t k = 0; k < nv; k++) {
			uint16_t i = idx[k];
			uint32_t ilen;

			if (unlikely(drop[i] != GW_DROP_NONE))
				continue;
			drop[i] = in_finish(sa, mb[i], &pk[i], iv_len, &ilen);
			if (likely(drop[i] == GW_DROP_NONE)) {
				(*nok)++;
				*bytes += ilen;
			}
		}
	}
}

static __rte_always_inline void
in_run(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb, uint8_t *drop,
       uint16_t n, const enum in_kind K)
{
	const unsigned iv_len = K == K_CBC ? GW_ESP_CBC_IV_LEN :
				K == K_NULL ? 0 : GW_ESP_GCM_IV_LEN;
	struct in_pkt pk[GW_ESP_BURST_MAX_PACKETS];
	uint16_t idx[GW_ESP_BURST_MAX_PACKETS];
	uint32_t nok = 0;
	uint64_t bytes = 0;

	/* one run, unless an ESN inference may change within it (file comment) */
	for (uint16_t s = 0; s < n;) {
		uint64_t tmax = sa->rw.top;
		uint16_t nv = 0, i;

		/* 1. lengths and anti-replay */
		for (i = s; i < n; i++) {
			drop[i] = in_check(sa, mb[i], &pk[i], &tmax, K, iv_len);
			if (likely(drop[i] == GW_DROP_NONE))
				idx[nv++] = i;
			else if (unlikely(drop[i] == IN_CUT))
				break;
		}
		if (nv != 0)
			in_crypto(sa, mgr, mb, drop, pk, idx, nv, &nok, &bytes, K, iv_len);
		s = i;
	}
	if (nok != 0) {
		struct esp_sa_stats *st = esp_sa_slot(sa, slot);

		__atomic_store_n(&st->packets, st->packets + nok, __ATOMIC_RELAXED);
		__atomic_store_n(&st->bytes, st->bytes + bytes, __ATOMIC_RELAXED);
	}
}

void
esp_in_gcm128(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	      uint8_t *drop, uint16_t n)
{
	in_run(sa, mgr, slot, mb, drop, n, K_GCM128);
}

void
esp_in_gcm256(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	      uint8_t *drop, uint16_t n)
{
	in_run(sa, mgr, slot, mb, drop, n, K_GCM256);
}

void
esp_in_cbc(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	   uint8_t *drop, uint16_t n)
{
	in_run(sa, mgr, slot, mb, drop, n, K_CBC);
}

void
esp_in_null(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	    uint8_t *drop, uint16_t n)
{
	in_run(sa, mgr, slot, mb, drop, n, K_NULL);
}
