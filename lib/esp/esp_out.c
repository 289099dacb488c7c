/* SPDX-License-Identifier: BSD-3-Clause
 * ESP outbound, tunnel mode (RFC 4303 section 3.3), and BEET (RFC 7402 section
 * 3.1) for the gateway's own HIT-to-HIT packets on HIP-keyed SAs, and EtherIP
 * (RFC 3378, next header 97) for L2 mode's Ethernet frames.
 *
 * A run of packets of one SA goes through three stages, as DPDK's lib/ipsec:
 *   1. validate: inner header, lengths, head- and tailroom (drop: malformed);
 *      then sequence numbers are reserved for the valid packets in one atomic
 *      step (drop: seq_overflow);
 *   2. build: outer IP header prepended into the headroom, ESP header, IV,
 *      padding 1, 2, 3... and trailer appended into the tailroom; no data moves;
 *   3. crypto: GCM through the direct intel-ipsec-mb API, CBC-HMAC and NULL-HMAC
 *      as jobs submitted for the whole run, then flushed;
 * then the counters of the run are added to this lcore's slot once.
 *
 * Outer header choices:
 * - IPv4: TTL 64, protocol 50, identification = low 16 bits of the ESP
 *   sequence number (a per-SA counter, unique over 65536 packets); DF copied
 *   from an IPv4 inner packet, set for an IPv6 inner packet (IPv6 is never
 *   fragmented on the path; the worker sends Packet Too Big instead).
 * - IPv6: hop limit 64, flow label 0.
 * - DSCP copied from the inner header; ECN copied too (RFC 6040 section 4.1,
 *   normal mode).
 *
 * Sequence numbers: reserved with a compare-and-swap per run, so an outbound SA
 * stays correct (no number, hence no GCM nonce, used twice) even if several
 * lcores send on it at once; with one sender the CAS never retries. Numbers of
 * packets that fail later (crypto job error: never seen in practice) are
 * skipped, which RFC 4303 allows. Without ESN the last number is 2^32-1.
 */
#include <wmmintrin.h>

#include <rte_byteorder.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include "esp_internal.h"

enum out_kind { K_GCM128, K_GCM256, K_CBC, K_NULL };

/* 1, 2, 3, ... (RFC 4303 2.4); 16 bytes are always copied, the rest of them
 * lands in the ICV space and is overwritten. */
static const uint8_t pad_seq[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

struct out_pkt {
	uint8_t *esp;          /* ESP header */
	uint8_t *icv;
	uint64_t seq;
	uint32_t inner_len;
	uint32_t ct_len;       /* payload + padding + trailer */
	uint8_t tos;           /* inner DSCP and ECN */
	uint8_t df;
	uint8_t nh;            /* ESP next header: 4 or 41; BEET: the upper layer; 97 EtherIP */
	uint8_t pad;
	uint8_t skip;          /* BEET: bytes of inner IPv6 header to remove first */
	uint8_t nonce[12];     /* GCM: salt || IV */
	uint8_t aad[12];       /* ESN: SPI || seq hi || seq lo (RFC 4106 section 5) */
	uint8_t tag[16];       /* HMAC with ESN: ICV computed here, then copied */
};

/* One AES block under an expanded encryption schedule (the CBC IV). AES-NI is
 * required by esp_lib_init. */
static __attribute__((target("aes,sse2"))) void
aes_block(const uint8_t *sched, unsigned rounds, uint8_t out[16], const uint8_t in[16])
{
	const __m128i *rk = (const __m128i *)sched;
	__m128i b = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), _mm_load_si128(&rk[0]));

	for (unsigned r = 1; r < rounds; r++)
		b = _mm_aesenc_si128(b, _mm_load_si128(&rk[r]));
	b = _mm_aesenclast_si128(b, _mm_load_si128(&rk[rounds]));
	_mm_storeu_si128((__m128i *)out, b);
}

/* Stage 1 for one packet. Returns GW_DROP_NONE or GW_DROP_MALFORMED; touches
 * nothing but a trim of bytes after the IP packet and a linearisation. */
static __rte_always_inline uint8_t
out_validate(const struct esp_sa *sa, const struct esp_path_slot *pt, struct rte_mbuf *m,
	     struct out_pkt *p, const unsigned iv_len, const unsigned align, const int mode)
{
	const unsigned hdr = pt->encap_len + GW_ESP_HDR_LEN + iv_len;
	const uint8_t *ip;
	uint32_t dl, tl, tail;

	if (unlikely(m->nb_segs != 1) && rte_pktmbuf_linearize(m) != 0)
		return GW_DROP_MALFORMED;
	ip = rte_pktmbuf_mtod(m, const uint8_t *);
	dl = rte_pktmbuf_data_len(m);
	p->skip = 0;
	if (mode == ESP_OUT_ETHERIP) {
		/* the payload as lib/dp built it: EtherIP header + frame, no checks */
		if (!sa->etherip || sa->dir != GW_DIR_OUT)
			return GW_DROP_MALFORMED;
		tl = dl;
		p->tos = 0;
		p->df = 0;
		p->nh = GW_IPPROTO_ETHERIP;
		goto room;
	}
	if (mode == ESP_OUT_BEET) {
		/* RFC 7402 3.1: an IPv6 packet HIT -> HIT; the header is not carried */
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)ip;

		if (!sa->beet || sa->dir != GW_DIR_OUT || dl < GW_IPV6_HDR_LEN ||
		    gw_ip_version(ip) != 6 || memcmp(h->src_addr, sa->hit_local, 16) != 0 ||
		    memcmp(h->dst_addr, sa->hit_remote, 16) != 0 ||
		    h->proto == GW_IPPROTO_IPIP || h->proto == GW_IPPROTO_IPV6)
			return GW_DROP_MALFORMED;
		tl = GW_IPV6_HDR_LEN + rte_be_to_cpu_16(h->payload_len);
		if (tl > dl)
			return GW_DROP_MALFORMED;
		p->tos = gw_ipv6_tc(rte_be_to_cpu_32(h->vtc_flow));
		p->df = 1;
		p->nh = h->proto;
		p->skip = GW_IPV6_HDR_LEN;
		p->pad = (uint8_t)((0u - (tl - GW_IPV6_HDR_LEN + GW_ESP_TRAILER_LEN)) & (align - 1));
		tail = p->pad + GW_ESP_TRAILER_LEN + GW_ESP_GCM_ICV_LEN;
		if (rte_pktmbuf_headroom(m) + (unsigned)GW_IPV6_HDR_LEN < hdr ||
		    rte_pktmbuf_tailroom(m) + (dl - tl) < tail ||
		    hdr + tl - GW_IPV6_HDR_LEN + tail > UINT16_MAX)
			return GW_DROP_MALFORMED;
		if (tl < dl) {
			m->data_len = (uint16_t)tl;
			m->pkt_len = tl;
		}
		p->inner_len = tl - GW_IPV6_HDR_LEN;
		p->ct_len = p->inner_len + p->pad + GW_ESP_TRAILER_LEN;
		return GW_DROP_NONE;
	}
	if (unlikely(dl < GW_IPV4_HDR_LEN))
		return GW_DROP_MALFORMED;
	if (gw_ip_version(ip) == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)ip;
		unsigned ihl = gw_ipv4_hdr_bytes(ip);

		tl = rte_be_to_cpu_16(h->total_length);
		if (unlikely(ihl < GW_IPV4_HDR_LEN || tl < ihl || tl > dl))
			return GW_DROP_MALFORMED;
		p->tos = h->type_of_service;
		p->df = (h->fragment_offset & rte_cpu_to_be_16(GW_IPV4_DF)) != 0;
		p->nh = GW_IPPROTO_IPIP;
	} else if (gw_ip_version(ip) == 6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)ip;

		if (unlikely(dl < GW_IPV6_HDR_LEN))
			return GW_DROP_MALFORMED;
		tl = GW_IPV6_HDR_LEN + rte_be_to_cpu_16(h->payload_len);
		if (unlikely(tl > dl))
			return GW_DROP_MALFORMED;
		p->tos = gw_ipv6_tc(rte_be_to_cpu_32(h->vtc_flow));
		p->df = 1;
		p->nh = GW_IPPROTO_IPV6;
	} else {
		return GW_DROP_MALFORMED;
	}
room:
	p->pad = (uint8_t)((0u - (tl + GW_ESP_TRAILER_LEN)) & (align - 1));
	tail = p->pad + GW_ESP_TRAILER_LEN + GW_ESP_GCM_ICV_LEN;
	if (unlikely(rte_pktmbuf_headroom(m) < hdr || rte_pktmbuf_tailroom(m) + (dl - tl) < tail ||
		     hdr + tl + tail > UINT16_MAX))
		return GW_DROP_MALFORMED;
	if (unlikely(tl < dl)) {            /* link-layer padding after the IP packet */
		m->data_len = (uint16_t)tl;
		m->pkt_len = tl;
	}
	p->inner_len = tl;
	p->ct_len = tl + p->pad + GW_ESP_TRAILER_LEN;
	/* warm the tail stage 2 writes (the headroom line: esp_outbound_burst) */
	rte_prefetch0_write(ip + tl);
	return GW_DROP_NONE;
}

/* Stage 2 for one packet: headers, IV, trailer. */
static __rte_always_inline void
out_build(const struct esp_sa *sa, const struct esp_path_slot *pt, struct rte_mbuf *m,
	  struct out_pkt *p, const enum out_kind K, const unsigned iv_len, const int tamper)
{
	const unsigned hdr = pt->encap_len + GW_ESP_HDR_LEN + iv_len;
	const unsigned tail = p->pad + GW_ESP_TRAILER_LEN + GW_ESP_GCM_ICV_LEN;
	/* validated: one segment, room on both sides. Lengths are adjusted here
	 * rather than with rte_pktmbuf_append, whose last-segment walk reads
	 * m->next in the mbuf's second cache line (a miss per packet). */
	uint8_t *t = rte_pktmbuf_mtod_offset(m, uint8_t *, p->skip + p->inner_len);
	uint8_t *o = rte_pktmbuf_mtod_offset(m, uint8_t *, (int)p->skip - (int)hdr);
	uint32_t outer_len = hdr + p->inner_len + tail;
	uint64_t seq = p->seq, seq_be = rte_cpu_to_be_64(seq);
	uint32_t seq_lo_be = rte_cpu_to_be_32((uint32_t)seq);
	uint8_t *esp;

	m->data_off = (uint16_t)(m->data_off + p->skip - hdr);
	m->data_len = (uint16_t)outer_len;
	m->pkt_len = outer_len;
	if (pt->family == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)o;

		uint16_t tos = rte_cpu_to_be_16(p->tos);   /* as the 16-bit word {0, tos} */
		uint16_t len = rte_cpu_to_be_16((uint16_t)outer_len);
		uint16_t id = rte_cpu_to_be_16((uint16_t)seq);
		uint16_t frag = p->df ? rte_cpu_to_be_16(GW_IPV4_DF) : 0;
		uint32_t sum = pt->tmpl_sum + tos + len + id + frag;

		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		h->version_ihl = GW_IPV4_VER_IHL;
		h->type_of_service = p->tos;
		h->total_length = len;
		h->packet_id = id;
		h->fragment_offset = frag;
		h->time_to_live = GW_IP_DEFAULT_TTL;
		h->next_proto_id = pt->udp ? GW_IPPROTO_UDP : GW_IPPROTO_ESP;
		h->hdr_checksum = (uint16_t)~sum;   /* constant words' sum + the variable ones */
		h->src_addr = pt->o4_src;
		h->dst_addr = pt->o4_dst;
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)o;

		memcpy(h, &pt->tmpl6, sizeof(*h));
		h->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(p->tos));
		h->payload_len = rte_cpu_to_be_16((uint16_t)(outer_len - GW_IPV6_HDR_LEN));
	}
	if (pt->udp) {
		/* RFC 3948 2.1: IPv4 checksum 0; IPv6: computed after the crypto
		 * stage (out_udp6_cksum), which fills what it covers */
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(o + pt->ip_hlen);

		u->src_port = pt->sport_be;
		u->dst_port = pt->dport_be;
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(outer_len - pt->ip_hlen));
		u->dgram_cksum = 0;
	}
	esp = o + pt->encap_len;
	p->esp = esp;
	memcpy(esp, &sa->spi_be, 4);
	memcpy(esp + 4, &seq_lo_be, 4);
	if (K == K_GCM128 || K == K_GCM256) {
		/* RFC 4106 3.1: the explicit IV only has to be unique per key; the
		 * 64-bit sequence number is (no reuse while the SA lives). */
		memcpy(esp + GW_ESP_HDR_LEN, &seq_be, 8);
		memcpy(p->nonce, sa->salt, 4);
		memcpy(p->nonce + 4, &seq_be, 8);
	} else if (K == K_CBC) {
		uint8_t blk[16];

		memcpy(blk, &seq_be, 8);
		memset(blk + 8, 0, 8);
		aes_block(sa->k.cbc.ivk, sa->key_len == 16 ? 10 : 14, esp + GW_ESP_HDR_LEN, blk);
	}
	if (sa->esn) {
		uint32_t hi_be = rte_cpu_to_be_32((uint32_t)(seq >> 32));

		memcpy(p->aad, &sa->spi_be, 4);
		memcpy(p->aad + 4, &hi_be, 4);
		memcpy(p->aad + 8, &seq_lo_be, 4);
	}
	memcpy(t, pad_seq, sizeof(pad_seq));
	t[p->pad] = p->pad;
	t[p->pad + 1] = p->nh;
	if (tamper == 1)
		t[p->pad] = 255;
	else if (tamper == 2)
		t[0] ^= 0x55;
	p->icv = t + p->pad + GW_ESP_TRAILER_LEN;
}

/* Fill a CBC-HMAC or NULL-HMAC job for one packet. With ESN the high half of
 * the sequence number follows the ciphertext for the ICV only (RFC 4303
 * 2.2.1): it is written into the ICV space and the ICV goes to p->tag. */
static __rte_always_inline void
out_job(const struct esp_sa *sa, IMB_JOB *job, struct out_pkt *p, const enum out_kind K,
	const unsigned iv_len)
{
	uint64_t hlen = GW_ESP_HDR_LEN + iv_len + p->ct_len;
	uint8_t *tag = p->icv;

	if (sa->esn) {
		uint32_t hi_be = rte_cpu_to_be_32((uint32_t)(p->seq >> 32));

		memcpy(p->icv, &hi_be, 4);
		hlen += 4;
		tag = p->tag;
	}
	esp_job_hmac(job, sa->k.cbc.ipad, sa->k.cbc.opad, p->esp, hlen, tag,
		     GW_ESP_HMAC256_ICV_LEN);
	if (K == K_CBC) {
		job->cipher_mode = IMB_CIPHER_CBC;
		job->cipher_direction = IMB_DIR_ENCRYPT;
		job->chain_order = IMB_ORDER_CIPHER_HASH;
		job->enc_keys = sa->k.cbc.enc;
		job->dec_keys = sa->k.cbc.dec;
		job->key_len_in_bytes = sa->key_len;
		job->dst = p->esp + GW_ESP_HDR_LEN + iv_len;
		job->cipher_start_src_offset_in_bytes = GW_ESP_HDR_LEN + iv_len;
		job->msg_len_to_cipher_in_bytes = p->ct_len;
		job->iv = p->esp + GW_ESP_HDR_LEN;
		job->iv_len_in_bytes = GW_ESP_CBC_IV_LEN;
	} else {
		job->chain_order = IMB_ORDER_CIPHER_HASH;
	}
}

/* The UDP checksum of an IPv6 UDP-encapsulated packet whose ESP header is at
 * esp (RFC 8200 8.1, RFC 768): pseudo-header and ports from the path's
 * precomputed sum, then the length field and the datagram's ESP bytes. */
static __rte_always_inline void
out_udp6_cksum(const struct esp_path_slot *pt, uint8_t *esp)
{
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(esp - GW_UDP_HDR_LEN);
	uint16_t ulen = rte_be_to_cpu_16(u->dgram_len);
	/* the length counts twice: in the pseudo-header and in the UDP header */
	uint32_t sum = pt->udp_sum6 + 2u * u->dgram_len +
		       rte_raw_cksum(esp, ulen - GW_UDP_HDR_LEN);
	uint16_t c;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	c = (uint16_t)~sum;
	u->dgram_cksum = c == 0 ? 0xffff : c;   /* 0 means "none" (RFC 768) */
}

/* Reserve up to `want` sequence numbers; returns the first, *got how many. */
static __rte_always_inline uint64_t
seq_reserve(struct esp_sa *sa, uint32_t want, uint32_t *got)
{
	uint64_t old = __atomic_load_n(&sa->seq, __ATOMIC_RELAXED);
	uint64_t limit, cnt;

	do {
		limit = __atomic_load_n(&sa->seq_limit, __ATOMIC_ACQUIRE);
		/* old == 0 only after the 64-bit counter wrapped: exhausted */
		if (old - 1 >= limit) {
			*got = 0;
			return old;
		}
		cnt = RTE_MIN((uint64_t)want, limit - old + 1);
	} while (!__atomic_compare_exchange_n(&sa->seq, &old, old + cnt, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*got = (uint32_t)cnt;
	return old;
}

static __rte_always_inline void
out_run(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb, uint8_t *drop,
	uint16_t n, const enum out_kind K, const int tamper, const int mode)
{
	const unsigned iv_len = K == K_CBC ? GW_ESP_CBC_IV_LEN :
				K == K_NULL ? 0 : GW_ESP_GCM_IV_LEN;
	const unsigned align = K == K_CBC ? GW_ESP_CBC_BLOCK : GW_ESP_MIN_ALIGN;
	/* one path for the whole run (esp_sa_set_path swaps it under us) */
	const struct esp_path_slot *pt = esp_sa_cur_path(sa);
	struct out_pkt pk[GW_ESP_BURST_MAX_PACKETS];
	uint16_t idx[GW_ESP_BURST_MAX_PACKETS];
	uint16_t nv = 0, nok;
	uint64_t bytes = 0, seq;
	uint32_t got;

	/* 1. validate */
	for (uint16_t i = 0; i < n; i++) {
		drop[i] = out_validate(sa, pt, mb[i], &pk[i], iv_len, align, mode);
		if (likely(drop[i] == GW_DROP_NONE))
			idx[nv++] = i;
	}
	if (nv == 0)
		return;
	seq = seq_reserve(sa, nv, &got);
	for (uint16_t k = (uint16_t)got; k < nv; k++)
		drop[idx[k]] = GW_DROP_SEQ_OVERFLOW;
	nok = (uint16_t)got;

	/* 2. build */
	for (uint16_t k = 0; k < nok; k++) {
		uint16_t i = idx[k];

		pk[i].seq = seq + k;
		out_build(sa, pt, mb[i], &pk[i], K, iv_len, tamper);
	}

	/* 3. crypto */
	if (K == K_GCM128 || K == K_GCM256) {
		for (uint16_t k = 0; k < nok; k++) {
			struct out_pkt *p = &pk[idx[k]];
			uint8_t *ct = p->esp + GW_ESP_HDR_LEN + GW_ESP_GCM_IV_LEN;

			if (k + 1 < nok)
				rte_prefetch0(pk[idx[k + 1]].esp + GW_ESP_HDR_LEN + GW_ESP_GCM_IV_LEN);
			if (sa->esn)
				esp_gcm_enc(sa, mgr, K == K_GCM256, ct, ct, p->ct_len, p->nonce,
					    p->aad, 12, p->icv);
			else
				esp_gcm_enc(sa, mgr, K == K_GCM256, ct, ct, p->ct_len, p->nonce,
					    p->esp, 8, p->icv);
			bytes += p->inner_len;
		}
	} else {
		IMB_JOB *job;
		uint32_t len[GW_ESP_BURST_MAX_PACKETS];
		uint16_t ord_buf[GW_ESP_BURST_MAX_PACKETS];
		const uint16_t *ord;

		for (uint16_t k = 0; k < nok; k++)
			len[k] = pk[idx[k]].ct_len;
		ord = esp_order_longest_first(ord_buf, idx, len, nok);
		for (uint16_t k = 0; k < nok; k++) {
			job = IMB_GET_NEXT_JOB(mgr);
			out_job(sa, job, &pk[ord[k]], K, iv_len);
			job->user_data = (void *)(uintptr_t)ord[k];
			esp_jobs_reap(mgr, IMB_SUBMIT_JOB(mgr), drop, GW_DROP_MALFORMED);
		}
		esp_jobs_flush(mgr, drop, GW_DROP_MALFORMED);
		got = nok;
		nok = 0;
		for (uint16_t k = 0; k < (uint16_t)got; k++) {
			struct out_pkt *p = &pk[idx[k]];

			if (unlikely(drop[idx[k]] != GW_DROP_NONE))
				continue;
			if (sa->esn)
				memcpy(p->icv, p->tag, GW_ESP_HMAC256_ICV_LEN);
			bytes += p->inner_len;
			nok++;
		}
	}
	if (unlikely(pt->udp) && pt->family == 6)
		for (uint16_t k = 0; k < n; k++)
			if (drop[k] == GW_DROP_NONE)
				out_udp6_cksum(pt, pk[k].esp);
	if (nok != 0) {
		struct esp_sa_stats *st = esp_sa_slot(sa, slot);

		__atomic_store_n(&st->packets, st->packets + nok, __ATOMIC_RELAXED);
		__atomic_store_n(&st->bytes, st->bytes + bytes, __ATOMIC_RELAXED);
	}
}

void
esp_out_gcm128(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	       uint8_t *drop, uint16_t n)
{
	out_run(sa, mgr, slot, mb, drop, n, K_GCM128, 0, 0);
}

void
esp_out_gcm256(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	       uint8_t *drop, uint16_t n)
{
	out_run(sa, mgr, slot, mb, drop, n, K_GCM256, 0, 0);
}

void
esp_out_cbc(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	    uint8_t *drop, uint16_t n)
{
	out_run(sa, mgr, slot, mb, drop, n, K_CBC, 0, 0);
}

void
esp_out_null(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
	     uint8_t *drop, uint16_t n)
{
	out_run(sa, mgr, slot, mb, drop, n, K_NULL, 0, 0);
}

/* BEET (RFC 7402 3.1: the gateway's own HIT-to-HIT packets) and EtherIP
 * (L2 mode): one function switching on the suite, out_run specialised on the
 * mode. */
void
esp_out_mode_run(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot, struct rte_mbuf **mb,
		 uint8_t *drop, uint16_t n, enum esp_out_mode mode)
{
	const int md = mode == ESP_OUT_BEET ? ESP_OUT_BEET : ESP_OUT_ETHERIP;

	if (sa->dir != GW_DIR_OUT || (md == ESP_OUT_BEET ? !sa->beet : !sa->etherip)) {
		for (uint16_t i = 0; i < n; i++)
			drop[i] = GW_DROP_MALFORMED;
		return;
	}
#define MODE_RUN(K) (md == ESP_OUT_BEET ? out_run(sa, mgr, slot, mb, drop, n, K, 0, ESP_OUT_BEET) : \
		     out_run(sa, mgr, slot, mb, drop, n, K, 0, ESP_OUT_ETHERIP))
	switch (sa->suite) {
	case GW_SUITE_AES128_GCM16: MODE_RUN(K_GCM128); break;
	case GW_SUITE_AES256_GCM16: MODE_RUN(K_GCM256); break;
	case GW_SUITE_AES128_CBC_SHA256:
	case GW_SUITE_AES256_CBC_SHA256: MODE_RUN(K_CBC); break;
	default: MODE_RUN(K_NULL); break;
	}
#undef MODE_RUN
}

/* ---------- unit-test entry points ---------- */

int
esp_test_outbound_tampered(struct esp_sa *sa, struct rte_mbuf *m, int mode)
{
	unsigned idx = esp_lcore_idx();
	uint8_t d = GW_DROP_NONE;
	struct out_pkt probe;
	unsigned align = sa->align;

	if (sa->dir != GW_DIR_OUT || (mode != 1 && mode != 2))
		return -1;
	if (mode == 2) {
		/* needs a pad byte to spoil */
		if (out_validate(sa, esp_sa_cur_path(sa), m, &probe, sa->iv_len, align, 0) !=
		    GW_DROP_NONE || probe.pad == 0)
			return -1;
	}
#define TAMPER(K) do { \
		if (mode == 1) \
			out_run(sa, esp_mgr[idx], esp_slot[idx], &m, &d, 1, K, 1, 0); \
		else \
			out_run(sa, esp_mgr[idx], esp_slot[idx], &m, &d, 1, K, 2, 0); \
	} while (0)
	switch (sa->suite) {
	case GW_SUITE_AES128_GCM16: TAMPER(K_GCM128); break;
	case GW_SUITE_AES256_GCM16: TAMPER(K_GCM256); break;
	case GW_SUITE_AES128_CBC_SHA256:
	case GW_SUITE_AES256_CBC_SHA256: TAMPER(K_CBC); break;
	default: TAMPER(K_NULL); break;
	}
#undef TAMPER
	return d;
}

void
esp_test_aes_block(const uint8_t *key, unsigned key_len, const uint8_t in[16], uint8_t out[16])
{
	uint8_t enc[ESP_AES_SCHED_LEN] __rte_aligned(16), dec[ESP_AES_SCHED_LEN] __rte_aligned(16);
	IMB_MGR *mgr = esp_mgr[esp_lcore_idx()];

	if (key_len == 16)
		IMB_AES_KEYEXP_128(mgr, key, enc, dec);
	else
		IMB_AES_KEYEXP_256(mgr, key, enc, dec);
	aes_block(enc, key_len == 16 ? 10 : 14, out, in);
}
