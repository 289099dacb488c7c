/* SPDX-License-Identifier: BSD-3-Clause
 * Worker fast path, outbound: inner RX -> SPD (rte_lpm / rte_lpm6) -> ESP
 * outbound (RFC 4303 3.3) -> route by the outer destination -> outer TX.
 * A protected prefix without an SA yet is punted to the control lcore
 * (staged while HIP keys it): nothing leaves in clear.
 */
#include <rte_prefetch.h>

#include "gw_worker_internal.h"

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

static __rte_always_inline void
outbound_common(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n,
		const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	const struct gw_port *port = &ctx->ports[pidx];
	struct esp_sa *esp[GW_BURST * 2];
	struct rte_mbuf *enc[GW_BURST * 2];
	uint8_t res[GW_BURST * 2];
	uint16_t ne = 0;

	struct esp_sa *last = NULL;

	for (uint16_t i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	if (ctx->sadb.gen.idx != NULL)
		gen_prefetch(&ctx->sadb, pkts, n);

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		uint32_t len = rte_pktmbuf_data_len(m);
		const struct gw_sa *sa;
		struct esp_sa *e = NULL;
		enum gw_spd_action act;
		uint32_t slot;
		bool bypass;
		uint16_t et;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		if (l2_accept(w, &m, port, pidx, &et) != 0)
			continue;
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);   /* m may be a copy now */
		len = rte_pktmbuf_data_len(m) - sizeof(*eth);
		if (et == RTE_ETHER_TYPE_IPV4) {
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
			uint16_t tl = gw_ipv4_check(ip, len);
			if (tl == 0) {
				drop(w, m, GW_DROP_MALFORMED);
				continue;
			}
			if (tl < len)
				rte_pktmbuf_trim(m, len - tl);
			if (is_own_addr(ctx, 4, (uint8_t *)&ip->dst_addr)) {
				punt(w, m, GW_PUNT_LOCAL, pidx, 0);
				continue;
			}
			if (!slow && gw_sadb_gen_out4(&ctx->sadb, ip->dst_addr, &sa, &e)) {
				if (sa == NULL) {            /* [sa-gen] SA not installed yet */
					drop(w, m, GW_DROP_NO_SA);
					continue;
				}                            /* gen_prefetch warmed it */
			} else {
				act = spd4(w, m, ip->dst_addr, &slot, slow);
				if (spd_resolve(w, m, pidx, act, slot, &sa, slow) != 0)
					continue;
				if (sa != NULL && sa->esp != last) {  /* its ESP lines, well before the burst */
					e = last = sa->esp;
					esp_sa_prefetch(e, true, tl);
				}
			}
			bypass = sa == NULL;
			if (ip->time_to_live <= 1) {
				w->st->drops[GW_DROP_TTL]++;
				punt(w, m, GW_PUNT_TTL, pidx, 0);
				continue;
			}
			if (sa != NULL && tl > gw_sa_max_inner(sa)) {
				if (ip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_DF)) {
					w->st->drops[GW_DROP_MTU]++;
					punt(w, m, GW_PUNT_TOO_BIG, pidx, gw_sa_max_inner(sa));
				} else {
					punt(w, m, GW_PUNT_FRAGMENT, pidx, gw_sa_max_inner(sa));
				}
				continue;
			}
			gw_ipv4_dec_ttl(ip);
			if (ip->next_proto_id == GW_IPPROTO_TCP && sa != NULL &&
			    !(ip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_OFFSET_MASK))) {
				uint32_t hl = (ip->version_ihl & 0xf) * 4u;
				gw_tcp_clamp_mss((uint8_t *)ip + hl, tl - hl, gw_sa_mss4(sa));
			}
			rte_pktmbuf_adj(m, sizeof(*eth));
			if (bypass) {
				route_and_send(w, m, 4, (uint8_t *)&ip->dst_addr);
				continue;
			}
		} else if (et == RTE_ETHER_TYPE_IPV6) {
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
			uint32_t tl = gw_ipv6_check(ip, len);
			if (tl == 0) {
				drop(w, m, GW_DROP_MALFORMED);
				continue;
			}
			if (tl < len)
				rte_pktmbuf_trim(m, len - tl);
			if (ip->dst_addr[0] == 0xff || is_own_addr(ctx, 6, ip->dst_addr)) {
				punt(w, m, GW_PUNT_LOCAL, pidx, 0);
				continue;
			}
			act = spd6(w, m, ip->dst_addr, &slot, slow);
			if (spd_resolve(w, m, pidx, act, slot, &sa, slow) != 0)
				continue;
			bypass = sa == NULL;
			if (ip->hop_limits <= 1) {
				w->st->drops[GW_DROP_TTL]++;
				punt(w, m, GW_PUNT_TTL, pidx, 0);
				continue;
			}
			if (sa != NULL && tl > gw_sa_max_inner(sa)) {
				w->st->drops[GW_DROP_MTU]++;
				punt(w, m, GW_PUNT_TOO_BIG, pidx, gw_sa_max_inner(sa));
				continue;
			}
			ip->hop_limits--;
			if (sa != NULL)
				gw_ipv6_clamp_mss(ip, tl, gw_sa_mss6(sa));
			rte_pktmbuf_adj(m, sizeof(*eth));
			if (bypass) {
				route_and_send(w, m, 6, ip->dst_addr);
				continue;
			}
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
	if (ne == 0)
		return;
	esp_outbound_burst(esp, enc, res, ne);
	for (uint16_t i = 0; i < ne; i++) {
		const uint8_t *o = rte_pktmbuf_mtod(enc[i], const uint8_t *);
		uint8_t family, dst[16];

		if (res[i] != GW_DROP_NONE) {
			drop(w, enc[i], res[i]);
			continue;
		}
		/* routed by the outer header's destination (the SA's remote), which
		 * the ESP stage just wrote: no other line of the SA */
		family = o[0] >> 4;
		memcpy(dst, family == 4 ? o + 16 : o + 24, family == 4 ? 4 : 16);
		route_and_send(w, enc[i], family, dst);
	}
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
