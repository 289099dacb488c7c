/* SPDX-License-Identifier: BSD-3-Clause
 * Worker fast path, outbound: inner RX -> SPD (rte_lpm / rte_lpm6) -> ESP
 * outbound (RFC 4303 3.3) -> route by the outer destination -> outer TX.
 * A protected prefix without an SA yet is punted to the control lcore
 * (staged while HIP keys it): nothing leaves in clear.
 */
#include <rte_prefetch.h>

#include "gw_worker_internal.h"

/* a burst's packets for ESP, enc[] below, go to lib/esp in one call */
_Static_assert(GW_BURST_PACKETS * 2 <= GW_ESP_BURST_MAX_PACKETS, "esp_outbound_burst takes them");

/* No SA yet for an out slot (a HIP peer before its BEX): the control lcore
 * stages the frame and starts the exchange. Nothing leaves in clear. */
static void
punt_no_sa(struct worker *w, struct rte_mbuf *m, unsigned port, uint32_t slot)
{
	gw_meta(m)->slot = slot;
	punt(w, m, GW_PUNT_NO_SA, port, 0);
}

/* Act on an SPD result: 0 with *sa set (PROTECT) or NULL (BYPASS) to go on;
 * -1 when m was consumed (DISCARD: dropped as policy; no SA yet: punted). */
static __rte_always_inline int
spd_resolve(struct worker *w, struct rte_mbuf *m, unsigned pidx, enum gw_spd_action act,
	    uint32_t slot, const struct gw_sa **sa, const bool slow)
{
	*sa = NULL;
	if (act == GW_SPD_BYPASS_ACT)
		return 0;
	if (act == GW_SPD_DISCARD) {
		drop(w, m, GW_DROP_POLICY);
		return -1;
	}
	if (slow && gw_meta(m)->lk.stamp == GW_STAMP_OUT)
		*sa = gw_meta_sa(gw_meta(m));      /* held by the control lcore's RCU reader id */
	else
		*sa = gw_sadb_out(&w->ctx->sadb, slot);
	if (*sa == NULL) {
		punt_no_sa(w, m, pidx, slot);
		return -1;
	}
	return 0;
}

/* ---------- outbound: inner RX -> ESP -> outer TX ---------- */

/* [sa-gen]: a first pass over the burst reads the block's table for IPv4
 * destinations in the generated block and prefetches their SAs' ESP lines, so
 * that the ESP stage finds them in cache (with a million SAs they are in DRAM). */
static void
gen_prefetch(const struct gw_sadb *db, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
		const struct gw_sa *sa;
		struct esp_sa *e;

		if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		    rte_pktmbuf_data_len(pkts[i]) < sizeof(*eth) + sizeof(*ip))
			continue;
		if (gw_sadb_gen_out4(db, ip->dst_addr, &sa, &e) && e != NULL)
			esp_sa_prefetch(e, true, rte_be_to_cpu_16(ip->total_length));
	}
}

/* SPD lookup, or (slow path) what the control lcore stamped into the mbuf. */
static __rte_always_inline enum gw_spd_action
spd4(struct worker *w, struct rte_mbuf *m, uint32_t dst_be, uint32_t *slot, const bool slow)
{
	const struct gw_meta *md = gw_meta(m);
	if (slow && md->lk.stamp == GW_STAMP_OUT) {
		*slot = md->slot;
		return md->lk.act;
	}
	return gw_spd_lookup4(&w->ctx->sadb, dst_be, slot);
}

static __rte_always_inline enum gw_spd_action
spd6(struct worker *w, struct rte_mbuf *m, const uint8_t *dst, uint32_t *slot, const bool slow)
{
	const struct gw_meta *md = gw_meta(m);
	if (slow && md->lk.stamp == GW_STAMP_OUT) {
		*slot = md->slot;
		return md->lk.act;
	}
	return gw_spd_lookup6(&w->ctx->sadb, dst, slot);
}

/* The forwarding checks of an inner packet m (Ethernet first, its IP header
 * l3 of tl bytes, validated) that the SPD protects with sa, or lets by when sa
 * is NULL; family 4 or 6, a constant at each call. TTL / hop limit expired:
 * the control lcore sends ICMP time exceeded (ttl). Over the SA's inner MTU:
 * IPv4 without DF is fragmented by the control lcore, anything else gets ICMP
 * too big (mtu). Then the TTL is decremented, a SYN's MSS clamped to the SA's,
 * Ethernet stripped, and a BYPASS packet routed. Returns 0 when m goes on to
 * ESP, -1 when it was consumed. */
static __rte_always_inline int
outbound_forward(struct worker *w, struct rte_mbuf *m, unsigned pidx, uint8_t *l3, uint32_t tl,
		 const struct gw_sa *sa, const uint8_t family)
{
	if (gw_ip_ttl(l3, family) <= 1) {
		w->st->drops[GW_DROP_TTL]++;
		punt(w, m, GW_PUNT_TTL, pidx, 0);
		return -1;
	}
	if (sa != NULL && tl > gw_sa_max_inner(sa)) {
		if (gw_ip_may_fragment(l3, family)) {
			punt(w, m, GW_PUNT_FRAGMENT, pidx, gw_sa_max_inner(sa));
		} else {
			w->st->drops[GW_DROP_MTU]++;
			punt(w, m, GW_PUNT_TOO_BIG, pidx, gw_sa_max_inner(sa));
		}
		return -1;
	}
	gw_ip_dec_ttl(l3, family);
	if (sa != NULL)
		gw_ip_clamp_mss(l3, family, tl, family == 4 ? gw_sa_mss4(sa) : gw_sa_mss6(sa), true);
	rte_pktmbuf_adj(m, sizeof(struct rte_ether_hdr));
	if (sa == NULL) {
		route_and_send(w, m, family, gw_ip_dst(l3, family));
		return -1;
	}
	return 0;
}

/* An inner IPv4 packet m (Ethernet first, len bytes after it): header check,
 * for the gateway itself -> control lcore, [sa-gen] block or SPD, then
 * outbound_forward. Returns 0 with *sa and *e (the [sa-gen] SA's ESP state,
 * else NULL) set when m goes on to ESP, -1 when it was consumed. *last is the
 * ESP state prefetched last in this burst. */
static __rte_always_inline int
outbound_ip4(struct worker *w, struct rte_mbuf *m, unsigned pidx, uint32_t len,
	     const struct gw_sa **sa, struct esp_sa **e, struct esp_sa **last, const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  sizeof(struct rte_ether_hdr));
	uint16_t tl = gw_ipv4_check(ip, len);
	enum gw_spd_action act;
	uint32_t slot;

	if (!wk_ip_fit(w, m, tl, len))
		return -1;
	if (is_own_addr(ctx, 4, (uint8_t *)&ip->dst_addr)) {
		punt(w, m, GW_PUNT_LOCAL, pidx, 0);
		return -1;
	}
	if (!slow && gw_sadb_gen_out4(&ctx->sadb, ip->dst_addr, sa, e)) {
		if (*sa == NULL) {            /* [sa-gen] SA not installed yet */
			drop(w, m, GW_DROP_NO_SA);
			return -1;
		}                             /* gen_prefetch warmed it */
	} else {
		act = spd4(w, m, ip->dst_addr, &slot, slow);
		if (spd_resolve(w, m, pidx, act, slot, sa, slow) != 0)
			return -1;
		if (*sa != NULL && (*sa)->esp != *last) {  /* its ESP lines, well before the burst */
			*e = *last = (*sa)->esp;
			esp_sa_prefetch(*e, true, tl);
		}
	}
	return outbound_forward(w, m, pidx, (uint8_t *)ip, tl, *sa, 4);
}

/* The same for an inner IPv6 packet: multicast or for the gateway itself ->
 * control lcore, SPD, outbound_forward. */
static __rte_always_inline int
outbound_ip6(struct worker *w, struct rte_mbuf *m, unsigned pidx, uint32_t len,
	     const struct gw_sa **sa, const bool slow)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *,
							  sizeof(struct rte_ether_hdr));
	uint32_t tl = gw_ipv6_check(ip, len);
	enum gw_spd_action act;
	uint32_t slot;

	if (!wk_ip_fit(w, m, tl, len))
		return -1;
	if (ip->dst_addr[0] == 0xff || is_own_addr(w->ctx, 6, ip->dst_addr)) {
		punt(w, m, GW_PUNT_LOCAL, pidx, 0);
		return -1;
	}
	act = spd6(w, m, ip->dst_addr, &slot, slow);
	if (spd_resolve(w, m, pidx, act, slot, sa, slow) != 0)
		return -1;
	return outbound_forward(w, m, pidx, (uint8_t *)ip, tl, *sa, 6);
}

/* The ESP stage of a burst: enc[0..ne) through esp[] (RFC 4303 3.3), each
 * routed by its new outer header's destination (the SA's remote), which the
 * ESP stage just wrote: no other line of the SA. */
void
wk_esp_route_send(struct worker *w, struct rte_mbuf **enc, const uint8_t *res, uint16_t ne)
{
	for (uint16_t i = 0; i < ne; i++) {
		if (res[i] != GW_DROP_NONE) {
			drop(w, enc[i], res[i]);
			continue;
		}
		wk_send_outer(w, enc[i]);
	}
}

static __rte_always_inline void
outbound_esp(struct worker *w, struct esp_sa **esp, struct rte_mbuf **enc, uint8_t *res,
	     uint16_t ne)
{
	esp_outbound_burst(esp, enc, res, ne);
	wk_esp_route_send(w, enc, res, ne);
}

static __rte_always_inline void
outbound_common(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n,
		const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	const struct gw_port *port = &ctx->ports[pidx];
	struct esp_sa *esp[GW_BURST_PACKETS * 2];
	struct rte_mbuf *enc[GW_BURST_PACKETS * 2];
	uint8_t res[GW_BURST_PACKETS * 2];
	uint16_t ne = 0;

	struct esp_sa *last = NULL;

	for (uint16_t i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	if (ctx->sadb.gen.idx != NULL)
		gen_prefetch(&ctx->sadb, pkts, n);

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct gw_sa *sa;
		struct esp_sa *e = NULL;
		uint32_t len;
		uint16_t et;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		if (l2_accept(w, &m, port, pidx, &et) != 0)
			continue;
		len = rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr);  /* m may be a copy now */
		if (et == RTE_ETHER_TYPE_IPV4) {
			if (outbound_ip4(w, m, pidx, len, &sa, &e, &last, slow) != 0)
				continue;
		} else if (et == RTE_ETHER_TYPE_IPV6) {
			if (outbound_ip6(w, m, pidx, len, &sa, slow) != 0)
				continue;
		} else if (et == RTE_ETHER_TYPE_ARP) {
			punt(w, m, GW_PUNT_LOCAL, pidx, 0);
			continue;
		} else {
			drop(w, m, GW_DROP_POLICY);
			continue;
		}
		esp[ne] = sa->esp != NULL ? sa->esp : e;   /* generated: the shared policy has none */
		enc[ne++] = m;
	}
	if (ne > 0)
		outbound_esp(w, esp, enc, res, ne);
}

void
wk_outbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	outbound_common(w, pidx, pkts, n, false);
}

void
wk_outbound_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	outbound_common(w, pidx, pkts, n, true);
}
