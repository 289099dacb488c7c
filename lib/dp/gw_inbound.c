/* SPDX-License-Identifier: BSD-3-Clause
 * Worker fast path, inbound: outer RX -> reassembly (rte_ip_frag) -> SAD
 * (rte_hash by SPI) -> handoff to the SA's owner worker when several run
 * (the anti-replay window has one writer) -> ESP inbound (RFC 4303 3.4) ->
 * inner policy (spoof, TTL, MSS) -> inner TX. Clear traffic from the outer
 * side never goes inward.
 */
#include <rte_cycles.h>
#include <rte_prefetch.h>

#include "gw_worker_internal.h"
#include "esp_udp_fast.h"
#include "dhcp_wire.h"

/* sad_lookup and inbound_esp keep a bit per packet of a burst in a uint64_t */
_Static_assert(GW_BURST_PACKETS <= 64, "a burst's SAD hits fit in 64 bits");

/* ---------- inbound: outer RX -> ESP -> inner TX ---------- */

/* Reassemble an ESP fragment. Returns the whole packet (Ethernet at data
 * start, single segment: wk_flatten) or NULL when it is held or was dropped. */
static struct rte_mbuf *
reassemble(struct worker *w, struct rte_mbuf *m, uint8_t family, void *l3)
{
	uint64_t tsc = rte_rdtsc();
	uint32_t before = w->dr.cnt;
	struct rte_mbuf *r;

	m->l2_len = sizeof(struct rte_ether_hdr);
	if (family == 4) {
		m->l3_len = rte_ipv4_hdr_len(l3);
		r = rte_ipv4_frag_reassemble_packet(w->frag, &w->dr, m, tsc, l3);
	} else {
		struct rte_ipv6_hdr *ip6 = l3;
		struct rte_ipv6_fragment_ext *fh = (struct rte_ipv6_fragment_ext *)(ip6 + 1);
		m->l3_len = sizeof(*ip6) + sizeof(*fh);
		r = rte_ipv6_frag_reassemble_packet(w->frag, &w->dr, m, tsc, ip6, fh);
	}
	/* fragments put on death row: overlaps, bad lengths, timeouts, table full */
	w->st->drops[GW_DROP_MALFORMED] += w->dr.cnt - before;
	if (w->dr.cnt > RTE_IP_FRAG_DEATH_ROW_LEN / 2)
		rte_ip_frag_free_death_row(&w->dr, 0);
	if (r == NULL)
		return NULL;
	return r->nb_segs > 1 ? wk_flatten(w, r) : r;
}

/* Called every loop, with or without traffic: rte_ip_frag drops a timed-out
 * reassembly only when a later fragment lands in its bucket, so fragments
 * that never complete would otherwise keep their mbufs for good, and once
 * they hold the whole pool no frame can be received to free them. */
void
wk_frag_expire(struct worker *w)
{
	uint32_t before = w->dr.cnt;

	rte_ip_frag_table_del_expired_entries(w->frag, &w->dr, rte_rdtsc());
	w->st->drops[GW_DROP_MALFORMED] += w->dr.cnt - before;
}

/* ---------- inbound single writer: handoff between workers ---------- */

static void
handoff_flush(struct worker *w)
{
	for (unsigned o = 0; o < w->ctx->n_workers; o++) {
		struct handoff_q *q = &w->ho[o];
		unsigned k;
		if (q->n == 0)
			continue;
		k = wk_ring_send(w, w->ctx->handoff_ring[o][w->idx], q->m, q->n);
		w->st->handoff_out += k;
		w->st->handoff_drops += q->n - k;
		q->n = 0;
	}
}

/* Queue an ESP packet (IP header first) for worker `owner`. */
static void
handoff(struct worker *w, unsigned owner, struct rte_mbuf *m, uint32_t spi, unsigned pidx)
{
	struct handoff_q *q = &w->ho[owner];
	struct gw_meta *md = gw_meta(m);
	md->kind = GW_HANDOFF;
	md->port = pidx;
	md->lk.spi = spi;
	md->lk.stamp = GW_STAMP_NONE;
	if (q->n == GW_BURST_PACKETS)
		handoff_flush(w);
	q->m[q->n++] = m;
}

/* Several workers: true when this worker owns sa (claiming it when it has no
 * owner yet); otherwise *owner is the worker that does. */
static inline bool
sa_is_mine(struct worker *w, struct gw_sa *sa, unsigned *owner)
{
	int32_t o = __atomic_load_n(&sa->owner, __ATOMIC_RELAXED);
	if (o == (int32_t)w->idx)
		return true;
	if (o < 0 && __atomic_compare_exchange_n(&sa->owner, &o, (int32_t)w->idx, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	*owner = (unsigned)o;
	return false;
}

/* A decapsulated inner packet (IP header first, TTL / hop limit not yet
 * decremented) longer than the MTU of inner port `port` it is routed to: never
 * sent so. IPv4 without DF goes to the control lcore to be fragmented to that
 * MTU (RFC 791 2.3; counted in inner_fragmented), its TTL decremented here as
 * for any forwarded packet; IPv4 with DF and IPv6 (which routers never
 * fragment, RFC 8200 section 5) go to the control lcore for an ICMP
 * fragmentation needed (RFC 1191) / Packet Too Big (RFC 4443 3.2) back through
 * the tunnel to their source, counted as mtu and not as delivered by sa. */
static void
decap_too_big(struct worker *w, struct rte_mbuf *m, struct gw_sa *sa, unsigned port,
	      uint8_t family)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t mtu = w->ctx->ports[port].mtu;

	if (gw_ip_may_fragment(l3, family)) {
		gw_ipv4_dec_ttl((struct rte_ipv4_hdr *)l3);
		w->st->inner_fragmented++;
		punt(w, m, GW_PUNT_FRAGMENT_IN, port, mtu);
		return;
	}
	esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
	w->st->drops[GW_DROP_MTU]++;
	punt(w, m, GW_PUNT_TOO_BIG_IN, port, mtu);
}

static __rte_always_inline void inbound_esp(struct worker *w, unsigned pidx, struct rte_mbuf **dec,
			const uint32_t *spi, uint16_t nk, const bool slow);

/* ESP packets other workers handed to this one (it owns their SAs): up to
 * HANDOFF_ROUNDS bursts per sender and loop, since a sender may hand over
 * more than one burst per loop (one per port). */
#define HANDOFF_ROUNDS 4

unsigned
wk_drain_handoff(struct worker *w)
{
	unsigned total = 0;
	for (unsigned k = 0; k < w->ctx->n_workers * HANDOFF_ROUNDS; k++) {
		unsigned from = k % w->ctx->n_workers;
		struct rte_mbuf *pkts[GW_BURST_PACKETS];
		uint32_t spi[GW_BURST_PACKETS];
		unsigned n, i = 0;
		if (from == w->idx)
			continue;
		n = rte_ring_sc_dequeue_burst(w->ctx->handoff_ring[w->idx][from], (void **)pkts,
					      GW_BURST_PACKETS, NULL);
		if (n == 0)
			continue;
		w->st->handoff_in += n;
		total += n;
		for (unsigned k = 0; k < n; k++)
			spi[k] = gw_meta(pkts[k])->lk.spi;
		while (i < n) {            /* runs of the same outer port */
			unsigned j = i + 1, port = gw_meta(pkts[i])->port;
			while (j < n && gw_meta(pkts[j])->port == port)
				j++;
			inbound_esp(w, port, &pkts[i], &spi[i], j - i, false);
			i = j;
		}
	}
	return total;
}

/* ---------- inbound: outer RX -> ESP -> inner TX ---------- */

/* An outer IPv6 packet (tl bytes after Ethernet, trimmed to that) for the
 * gateway whose next header is an extension header: RFC 4303 3.1.2 lets ESP
 * follow Hop-by-Hop, Routing, Fragment and Destination Options, and ICMPv6 or
 * HIP may come behind them too. The chain is walked and removed
 * (gw_ip6ext_remove), so that ESP inbound, reassembly and the control lcore
 * find their header right after the fixed one. Returns the packet's new
 * length after Ethernet (*proto its next header), or 0 when m was dropped. */
static uint32_t
outer_ip6_ext(struct worker *w, struct rte_mbuf *m, uint32_t tl, uint8_t *proto)
{
	enum gw_drop r = gw_ip6ext_remove(m, sizeof(struct rte_ether_hdr), tl, proto);

	if (r != GW_DROP_NONE) {
		drop(w, m, r);
		return 0;
	}
	return rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr);
}

/* An outer IPv4 packet *mp (Ethernet first, len bytes after it): header check,
 * for one of this port's addresses (clear traffic never goes inward), an ESP
 * fragment reassembled (*mp and *l3 may change). Returns its length after
 * Ethernet with *l3, *proto and *hl (the IP header's bytes) set, or 0 when it
 * was consumed. */
/* An unfragmented IPv4 UDP datagram (tl bytes) from port 67 to port 68: a
 * DHCP server's reply (RFC 2131 4.1), broadcast or to an address the port
 * does not own yet (before its first lease it owns none). The control
 * lcore's client checks the rest (dhcp_frame_parse). */
static inline bool
dhcp_reply(const struct rte_ipv4_hdr *ip, uint16_t tl)
{
	uint32_t hl = rte_ipv4_hdr_len(ip);
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)((const uint8_t *)ip + hl);

	return ip->next_proto_id == GW_IPPROTO_UDP && !rte_ipv4_frag_pkt_is_fragmented(ip) &&
	       tl >= hl + GW_UDP_HDR_LEN && u->src_port == rte_cpu_to_be_16(DHCP_PORT_SERVER) &&
	       u->dst_port == rte_cpu_to_be_16(DHCP_PORT_CLIENT);
}

static __rte_always_inline uint32_t
outer_ip4(struct worker *w, struct rte_mbuf **mp, const struct gw_port *port, uint32_t len,
	  uint8_t **l3, uint8_t *proto, uint32_t *hl)
{
	struct rte_mbuf *m = *mp;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)*l3;
	uint16_t tl = gw_ipv4_check(ip, len);

	if (!wk_ip_fit(w, m, tl, len))
		return 0;
	if (unlikely(port->dhcp) && dhcp_reply(ip, tl)) {
		punt(w, m, GW_PUNT_DHCP, (unsigned)(port - w->ctx->ports), 0);
		return 0;
	}
	if (!gw_port_owns(port, 4, (uint8_t *)&ip->dst_addr)) {
		drop(w, m, GW_DROP_POLICY);   /* clear traffic never goes inward */
		return 0;
	}
	/* gw_ipv4_check verified the header checksum: ESP need not again */
	m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_RX_IP_CKSUM_MASK) | RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	*proto = ip->next_proto_id;
	*hl = rte_ipv4_hdr_len(ip);
	if ((*proto == GW_IPPROTO_ESP || *proto == GW_IPPROTO_UDP) &&
	    rte_ipv4_frag_pkt_is_fragmented(ip)) {
		*mp = m = reassemble(w, m, 4, ip);
		if (m == NULL)
			return 0;
		*l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(struct rte_ether_hdr));
		ip = (struct rte_ipv4_hdr *)*l3;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		len = rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr);
	}
	return len;
}

/* The same for an outer IPv6 packet: multicast -> control lcore, for one of
 * this port's addresses, an extension header chain removed (outer_ip6_ext),
 * an ESP fragment reassembled. */
static __rte_always_inline uint32_t
outer_ip6(struct worker *w, struct rte_mbuf **mp, const struct gw_port *port, unsigned pidx,
	  uint32_t len, uint8_t **l3, uint8_t *proto, uint32_t *hl)
{
	struct rte_mbuf *m = *mp;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)*l3;
	uint32_t tl = gw_ipv6_check(ip, len);

	if (!wk_ip_fit(w, m, tl, len))
		return 0;
	if (ip->dst_addr[0] == 0xff) {
		punt(w, m, GW_PUNT_LOCAL, pidx, 0);
		return 0;
	}
	if (!gw_port_owns(port, 6, ip->dst_addr)) {
		drop(w, m, GW_DROP_POLICY);
		return 0;
	}
	*proto = ip->proto;
	*hl = sizeof(*ip);
	if (unlikely(*proto != GW_IPPROTO_ESP) && gw_ip6ext_is(*proto)) {
		if ((tl = outer_ip6_ext(w, m, tl, proto)) == 0)
			return 0;
		*l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(struct rte_ether_hdr));
		ip = (struct rte_ipv6_hdr *)*l3;
		len = tl;
	}
	if (*proto == GW_IPPROTO_FRAGMENT && tl >= *hl + GW_IPV6_FRAG_HDR_LEN &&
	    ((*l3)[*hl] == GW_IPPROTO_ESP || (*l3)[*hl] == GW_IPPROTO_UDP)) {
		uint8_t next = (*l3)[*hl];

		*mp = m = reassemble(w, m, 6, ip);
		if (m == NULL)
			return 0;
		*l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(struct rte_ether_hdr));
		*proto = next;
		len = rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr);
	}
	return len;
}

/* A UDP datagram m (Ethernet first, its IP header of hl bytes at l3, len
 * bytes of IP packet) for one of outer port pidx's addresses. To the HIP NAT
 * traversal port (RFC 5770; anything else is clear traffic: policy), sorted
 * by esp_udp_demux: ESP comes back without its UDP header, IP header first
 * (returns true, for the SAD like any ESP); a HIP control packet behind the
 * non-ESP marker goes to the control lcore as HIP does, with its UDP source
 * port in gw_meta.udp_sport; a NAT-keepalive (RFC 3948 2.3) is counted and
 * freed; the rest dropped by reason (udp_bad, udp_cksum). */
static __rte_always_inline bool
udp_in(struct worker *w, struct rte_mbuf *m, const uint8_t *l3, uint32_t hl, uint32_t len,
       unsigned pidx)
{
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(l3 + hl);
	uint16_t sport = 0;

	if (len < hl + GW_UDP_HDR_LEN) {
		drop(w, m, GW_DROP_UDP_BAD);
		return false;
	}
	if (u->dst_port != rte_cpu_to_be_16(GW_HIP_UDP_PORT)) {
		drop(w, m, GW_DROP_POLICY);
		return false;
	}
	switch (esp_udp_demux_fast(m, sizeof(struct rte_ether_hdr), hl, len, &sport)) {
	case ESP_UDP_ESP:
		w->st->udp_esp++;
		gw_meta(m)->udp_sport = sport;      /* NAT rebinding (gw_nat.c) */
		return true;
	case ESP_UDP_HIP:
		w->st->udp_hip++;
		punt(w, m, GW_PUNT_LOCAL, pidx, 0);
		gw_meta(m)->udp_sport = sport;
		return false;
	case ESP_UDP_KEEPALIVE:
		w->st->udp_keepalive++;
		rte_pktmbuf_free(m);
		return false;
	case ESP_UDP_CKSUM:
		drop(w, m, GW_DROP_UDP_CKSUM);
		return false;
	default:
		drop(w, m, GW_DROP_UDP_BAD);
		return false;
	}
}

static __rte_always_inline void
inbound_common(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n,
	       const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	const struct gw_port *port = &ctx->ports[pidx];
	struct rte_mbuf *dec[GW_BURST_PACKETS];
	uint32_t spi[GW_BURST_PACKETS];
	uint16_t nk = 0;

	for (uint16_t i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t len, hl;
		uint8_t proto;
		uint8_t *l3;
		uint16_t et;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		if (l2_accept(w, &m, port, pidx, &et) != 0)
			continue;
		/* m may be a copy now */
		len = rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr);
		l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(struct rte_ether_hdr));
		if (et == RTE_ETHER_TYPE_IPV4) {
			if ((len = outer_ip4(w, &m, port, len, &l3, &proto, &hl)) == 0)
				continue;
		} else if (et == RTE_ETHER_TYPE_IPV6) {
			if ((len = outer_ip6(w, &m, port, pidx, len, &l3, &proto, &hl)) == 0)
				continue;
		} else if (et == RTE_ETHER_TYPE_ARP) {
			punt(w, m, GW_PUNT_LOCAL, pidx, 0);
			continue;
		} else {
			drop(w, m, GW_DROP_POLICY);
			continue;
		}
		if (proto == GW_IPPROTO_UDP) {
			if (!udp_in(w, m, l3, hl, len, pidx))
				continue;
			/* ESP now, IP header first (esp_udp_demux) */
			l3 = rte_pktmbuf_mtod(m, uint8_t *);
			len -= GW_UDP_HDR_LEN;
			memcpy(&spi[nk], l3 + hl, 4);
			spi[nk] = rte_be_to_cpu_32(spi[nk]);
			dec[nk++] = m;
			continue;
		}
		if (proto != GW_IPPROTO_ESP) {
			/* ICMP, ICMPv6 (ND), HIP to the gateway itself */
			if (proto == GW_IPPROTO_ICMP || proto == GW_IPPROTO_ICMPV6 ||
			    proto == GW_IPPROTO_HIP)
				punt(w, m, GW_PUNT_LOCAL, pidx, 0);
			else
				drop(w, m, GW_DROP_POLICY);
			continue;
		}
		if (len < hl + GW_ESP_HDR_LEN) {
			drop(w, m, GW_DROP_MALFORMED);
			continue;
		}
		memcpy(&spi[nk], l3 + hl, 4);
		spi[nk] = rte_be_to_cpu_32(spi[nk]);
		if (spi[nk] == 0) {
			drop(w, m, GW_DROP_NO_SA);
			continue;
		}
		rte_pktmbuf_adj(m, sizeof(struct rte_ether_hdr));
		gw_meta(m)->udp_sport = 0;           /* plain ESP (gw_nat.c) */
		dec[nk++] = m;
	}
	if (nk > 0)
		inbound_esp(w, pidx, dec, spi, nk, slow);
}

void
wk_inbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	inbound_common(w, pidx, pkts, n, false);
}

void
wk_inbound_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	inbound_common(w, pidx, pkts, n, true);
}

/* ESP packet m (IP header first) received on outer port pidx for an SPI the
 * SAD does not know: it cannot be decrypted (no_sa). When it comes from a
 * [peer]'s locator and we have no SA with that peer, we lost the SAs the
 * peer still uses (we restarted): the control lcore may start a BEX, so m
 * goes there as the trigger, at most as often as gw_peerloc_take allows
 * (counted unknown_spi_ratelimit otherwise). From a peer we have an SA with
 * it is stale or forged (unknown_spi_ignored); from any other address, a
 * plain no_sa drop. */
static __rte_noinline void
unknown_spi(struct worker *w, struct rte_mbuf *m, unsigned pidx)
{
	struct gw_ctx *ctx = w->ctx;
	const struct gw_peerloc_peer *pp;
	int peer;

	if (ctx->peerloc == NULL ||
	    (peer = gw_peerloc_find(ctx->peerloc, rte_pktmbuf_mtod(m, const uint8_t *))) < 0) {
		drop(w, m, GW_DROP_NO_SA);
		return;
	}
	pp = &ctx->peerloc->peers[peer];
	if (pp->slot >= 0 && gw_sadb_out(&ctx->sadb, pp->slot) != NULL) {
		w->st->unknown_spi_ignored++;
		drop(w, m, GW_DROP_NO_SA);
		return;
	}
	if (!gw_peerloc_take(ctx->peerloc, (unsigned)peer, rte_rdtsc())) {
		w->st->unknown_spi_ratelimit++;
		drop(w, m, GW_DROP_NO_SA);
		return;
	}
	gw_meta(m)->slot = (uint16_t)peer;
	punt(w, m, GW_PUNT_UNKNOWN_SPI, pidx, 0);
}

/* The SAD lookup of dec[0..nk) by spi[] into data[] (struct gw_sa *, or what
 * the slow path's control lcore stamped): returns a bit per packet, set when
 * it has an SA. */
static __rte_always_inline uint64_t
sad_lookup(struct worker *w, struct rte_mbuf **dec, const uint32_t *spi, uint16_t nk,
	   void **data, const bool slow)
{
	const struct gw_sadb *db = &w->ctx->sadb;
	const void *keys[GW_BURST_PACKETS];
	uint64_t hits = 0;

	if (slow) {
		for (uint16_t i = 0; i < nk; i++) {
			const struct gw_meta *md = gw_meta(dec[i]);
			if (md->lk.stamp == GW_STAMP_IN)
				data[i] = gw_meta_sa(md);
			else if (rte_hash_lookup_data(db->sad, &spi[i], &data[i]) < 0)
				data[i] = NULL;
			if (data[i] != NULL)
				hits |= 1ULL << i;
		}
	} else {
		/* one key per run of equal SPIs (usually the whole burst is one SA) */
		uint8_t run[GW_BURST_PACKETS];
		uint64_t rhits = 0;
		uint16_t nu = 0;
		for (uint16_t i = 0; i < nk; i++) {
			if (i == 0 || spi[i] != spi[i - 1])
				keys[nu++] = &spi[i];
			run[i] = nu - 1;
		}
		rte_hash_lookup_bulk_data(db->sad, keys, nu, &rhits, data);
		for (uint16_t i = nk; i-- > 0;) {   /* back to one entry per packet; run[i] <= i */
			data[i] = data[run[i]];
			hits |= ((rhits >> run[i]) & 1) << i;
		}
	}
	return hits;
}

/* A decapsulated inner packet m (IP header first, family 4 or 6: a constant
 * at each call) of SA sa, on its way to an inner port: source and destination
 * inside the SA's prefixes (else spoof), TTL / hop limit above 1 (else ttl;
 * both taken back from the SA's delivered count), a route (else no_route),
 * within the inner port's MTU (else decap_too_big); then the TTL decremented,
 * a SYN's MSS clamped to the SA's, and sent. */
static __rte_always_inline void
inner_forward(struct worker *w, struct rte_mbuf *m, struct gw_sa *sa, const uint8_t family)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *src = gw_ip_src(l3, family), *dst = gw_ip_dst(l3, family);
	const struct gw_nexthop *nh;

	if (!gw_prefixes_match(gw_sa_src_ok(sa), sa->n_src, family, src) ||
	    !gw_prefixes_match(gw_sa_dst_ok(sa), sa->n_dst, family, dst)) {
		esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
		drop(w, m, GW_DROP_SPOOF);
		return;
	}
	if (gw_ip_ttl(l3, family) <= 1) {
		esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
		drop(w, m, GW_DROP_TTL);
		return;
	}
	nh = route_lookup(w, family, dst);
	if (nh == NULL) {
		drop(w, m, GW_DROP_NO_ROUTE);
		return;
	}
	if (unlikely(rte_pktmbuf_data_len(m) > w->ctx->ports[nh->port].mtu)) {
		decap_too_big(w, m, sa, nh->port, family);
		return;
	}
	gw_ip_dec_ttl(l3, family);
	gw_ip_clamp_mss(l3, family, rte_pktmbuf_data_len(m), family == 4 ? sa->mss4 : sa->mss6,
			false);
	send_ip(w, m, nh, family, dst);
}

/* dec[0..nk-1]: ESP packets (IP header first) received on outer port pidx with
 * SPIs spi[] (host order, non-zero), nk <= GW_BURST_PACKETS: SAD lookup (or the slow
 * path's stamp), handoff to the SA's owner when several workers run, ESP
 * inbound, policy checks, route and send; bridge frames (EtherIP) last, as
 * one burst (wk_l2_inbound). */
static __rte_always_inline void
inbound_esp(struct worker *w, unsigned pidx, struct rte_mbuf **dec, const uint32_t *spi,
	    uint16_t nk, const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	void *data[GW_BURST_PACKETS];
	struct esp_sa *esp[GW_BURST_PACKETS];
	struct gw_sa *sas[GW_BURST_PACKETS];
	uint8_t res[GW_BURST_PACKETS];
	struct rte_mbuf *l2m[GW_BURST_PACKETS];
	struct gw_sa *l2sa[GW_BURST_PACKETS];
	struct wk_nat_pkt np[GW_BURST_PACKETS];
	uint64_t hits;
	uint16_t nd = 0, nl = 0;

	hits = sad_lookup(w, dec, spi, nk, data, slow);
	for (uint16_t i = 0; i < nk; i++)     /* the SAs, before the pass that reads them */
		if (hits & (1ULL << i))
			gw_sadb_prefetch_in(&ctx->sadb, data[i]);   /* ok[] for the spoof check below */
	for (uint16_t i = 0; i < nk; i++) {
		unsigned owner;
		if (!(hits & (1ULL << i))) {
			unknown_spi(w, dec[i], pidx);
			continue;
		}
		if (unlikely(w->handoff) && !sa_is_mine(w, data[i], &owner)) {
			handoff(w, owner, dec[i], spi[i], pidx);
			continue;
		}
		sas[nd] = data[i];
		esp[nd] = sas[nd]->esp;
		if (nd == 0 || esp[nd] != esp[nd - 1])   /* its ESP lines, before the ESP stage */
			esp_sa_prefetch(esp[nd], false, rte_pktmbuf_data_len(dec[i]));
		dec[nd++] = dec[i];
	}
	if (unlikely(w->handoff))
		handoff_flush(w);
	if (nd == 0)
		return;
	wk_nat_note(sas, dec, nd, np);
	esp_inbound_burst(esp, dec, res, nd);
	wk_nat_check(w, sas, res, nd, np);
	for (uint16_t i = 0; i < nd; i++) {  /* inner route entries, before the pass below */
		const uint8_t *l3 = rte_pktmbuf_mtod(dec[i], const uint8_t *);

		if (res[i] == GW_DROP_NONE && gw_ip_version(l3) == 4 && !esp_pkt_is_beet(dec[i]) &&
		    !esp_pkt_is_etherip(dec[i]))
			gw_route4_prefetch(&ctx->routes,
					   ((const struct rte_ipv4_hdr *)l3)->dst_addr);
	}
	for (uint16_t i = 0; i < nd; i++) {
		struct rte_mbuf *m = dec[i];

		if (i + 2 < nd)
			rte_prefetch0(rte_pktmbuf_mtod(dec[i + 2], void *));
		if (res[i] != GW_DROP_NONE) {
			drop(w, m, res[i]);
			continue;
		}
		if (esp_pkt_is_etherip(m)) {   /* bridge frames: after the loop, as a burst */
			l2sa[nl] = sas[i];
			l2m[nl++] = m;
			continue;
		}
		if (esp_pkt_is_beet(m)) {
			/* HIT-to-HIT (BEET): for the gateway itself, never the inner port */
			punt(w, m, GW_PUNT_BEET, pidx, 0);
			continue;
		}
		if (gw_ip_version(rte_pktmbuf_mtod(m, const uint8_t *)) == 4)
			inner_forward(w, m, sas[i], 4);
		else
			inner_forward(w, m, sas[i], 6);
	}
	if (nl > 0)
		wk_l2_inbound(w, l2m, l2sa, nl);
}
