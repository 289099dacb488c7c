/* SPDX-License-Identifier: BSD-3-Clause
 * L2 mode in a worker: the bridge steps of the two paths.
 *
 * Outbound, a burst of an l2 port: each frame (whole, tags kept) is checked
 * against the bridge (IEEE 802.1D link-local destinations, a destination MAC
 * that the MAC table has on this same segment), put behind an EtherIP header
 * (RFC 3378) and sent through the bridge's out SA with ESP next header 97
 * (RFC 4303); frames to a remote, unknown, broadcast or multicast MAC all go
 * to the bridge's one remote. Source MACs are not learned here yet: the table
 * is written by the control lcore only (gw_mac.h), and the event that would
 * ask it to is still to come; static entries are looked up. A remote whose
 * out slot has no SA yet (a HIP peer before its Base Exchange) gets nothing:
 * the frame is punted as GW_PUNT_NO_SA, staged by the keying glue, and comes
 * back once the SA is there for that slot alone (wk_l2_slot_send).
 *
 * Inbound: the decrypted payload of an SA of a bridge with next header 97
 * (esp_pkt_is_etherip): EtherIP header and Ethernet header checked
 * (gw_etherip_parse), the frame sent as is on the bridge's port.
 */
#include "gw_worker_internal.h"
#include "gw_etherip.h"
#include "gw_mac.h"
#include "esp.h"

/* IEEE 802.1D reserved group addresses 01:80:C2:00:00:00 .. 0F: the first five
 * bytes, and the mask of the sixth's low bits that varies. */
static const uint8_t link_local_prefix[5] = { 0x01, 0x80, 0xc2, 0x00, 0x00 };
#define LINK_LOCAL_LAST_MASK 0xf0u
#define VLAN_ID_MASK         0x0fffu   /* 802.1Q TCI: the VLAN ID's 12 bits */

static inline bool
is_link_local(const uint8_t *dst)
{
	return memcmp(dst, link_local_prefix, sizeof(link_local_prefix)) == 0 &&
	       (dst[5] & LINK_LOCAL_LAST_MASK) == 0;
}

/* The VLAN ID of the frame's outer tag (0: untagged), len bytes of frame. */
static inline uint16_t
frame_vlan(const uint8_t *f, uint32_t len)
{
	uint16_t et = (uint16_t)(f[GW_ETH_TYPE_OFF] << 8 | f[GW_ETH_TYPE_OFF + 1]);

	if ((et != GW_ETHERTYPE_VLAN && et != GW_ETHERTYPE_QINQ) ||
	    len < GW_ETH_HDR_BYTES + GW_VLAN_TAG_BYTES)
		return 0;
	return (uint16_t)((f[GW_ETH_HDR_BYTES] << 8 | f[GW_ETH_HDR_BYTES + 1]) & VLAN_ID_MASK);
}

/* Frame m (one segment, at least an Ethernet header) for out SA sa: 0 and m
 * turned into its ESP payload (EtherIP + frame), or -1: dropped. */
static __rte_always_inline int
l2_encap(struct worker *w, struct rte_mbuf *m, const struct gw_sa *sa)
{
	uint32_t len = rte_pktmbuf_data_len(m), plen;
	int off;

	if (unlikely(len + GW_ETHERIP_HDR_BYTES > gw_sa_max_inner(sa))) {
		drop(w, m, GW_DROP_MTU);
		return -1;
	}
	off = gw_etherip_encap(m->buf_addr, m->data_off, len, &plen);
	if (unlikely(off < 0)) {
		drop(w, m, GW_DROP_MALFORMED);
		return -1;
	}
	m->data_off = (uint16_t)off;
	m->data_len = (uint16_t)plen;
	m->pkt_len = plen;
	return 0;
}

/* One frame of bridge br from port pidx for out slot `slot` (its SA sa): 0
 * and m turned into its ESP payload, or -1: dropped, or punted to the
 * control lcore when the slot has no SA yet (a HIP peer before its BEX:
 * staged there, never sent in clear). */
static __rte_always_inline int
l2_frame(struct worker *w, const struct gw_bridge *br, struct rte_mbuf **mp, unsigned pidx,
	 uint32_t slot, const struct gw_sa *sa)
{
	struct rte_mbuf *m = *mp;
	const uint8_t *f;
	uint32_t len;

	if (unlikely(m->nb_segs != 1)) {
		*mp = m = wk_flatten(w, m);
		if (m == NULL)
			return -1;
	}
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	len = rte_pktmbuf_data_len(m);
	if (unlikely(len < GW_ETH_HDR_BYTES)) {
		drop(w, m, GW_DROP_L2_RUNT);
		return -1;
	}
	if (unlikely(is_link_local(f)) && !br->link_local_pass) {
		drop(w, m, GW_DROP_L2_LINK_LOCAL);
		return -1;
	}
	if (!gw_mac_is_group(f)) {
		const struct gw_mac_entry *e = gw_mac_lookup(br->mac, f, frame_vlan(f, len));

		if (e != NULL && gw_mac_where(e) == GW_MAC_LOCAL) {
			drop(w, m, GW_DROP_L2_LOCAL);
			return -1;
		}
	}
	if (sa == NULL) {
		gw_meta(m)->slot = (uint16_t)slot;
		punt(w, m, GW_PUNT_NO_SA, pidx, 0);
		return -1;
	}
	return l2_encap(w, m, sa);
}

void
wk_l2_outbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	struct gw_ctx *ctx = w->ctx;
	const struct gw_bridge *br = &ctx->bridges[ctx->port_bridge[pidx] - 1];
	uint32_t slot = br->remote_slot[0];
	const struct gw_sa *sa = gw_sadb_out(&ctx->sadb, slot);
	struct esp_sa *esp[GW_BURST_PACKETS];
	struct rte_mbuf *enc[GW_BURST_PACKETS];
	uint8_t res[GW_BURST_PACKETS];
	uint16_t ne = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (l2_frame(w, br, &m, pidx, slot, sa) != 0)
			continue;
		esp[ne] = sa->esp;
		enc[ne++] = m;
		if (ne == GW_BURST_PACKETS) {
			esp_outbound_etherip_burst(esp, enc, res, ne);
			wk_esp_route_send(w, enc, res, ne);
			ne = 0;
		}
	}
	if (ne > 0) {
		esp_outbound_etherip_burst(esp, enc, res, ne);
		wk_esp_route_send(w, enc, res, ne);
	}
}

void
wk_l2_slot_send(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct esp_sa *esp[GW_BURST_PACKETS];
	uint8_t res[GW_BURST_PACKETS];
	uint16_t ne = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t slot = gw_meta(m)->slot;
		const struct gw_sa *sa = slot < w->ctx->sadb.n_slots ?
					 gw_sadb_out(&w->ctx->sadb, slot) : NULL;

		if (sa == NULL) {                /* gone again: never in clear */
			drop(w, m, GW_DROP_NO_SA);
			continue;
		}
		if (unlikely(m->nb_segs != 1 || rte_pktmbuf_data_len(m) < GW_ETH_HDR_BYTES)) {
			drop(w, m, GW_DROP_MALFORMED);   /* l2_frame made it one whole segment */
			continue;
		}
		if (l2_encap(w, m, sa) != 0)
			continue;
		esp[ne] = sa->esp;
		pkts[ne++] = m;
	}
	if (ne > 0) {
		esp_outbound_etherip_burst(esp, pkts, res, ne);
		wk_esp_route_send(w, pkts, res, ne);
	}
}

void
wk_l2_inbound(struct worker *w, struct rte_mbuf *m, struct gw_sa *sa)
{
	const struct gw_bridge *br;
	struct gw_etherip_frame f;
	enum gw_drop r;

	if (unlikely(sa->bridge == 0 || sa->bridge > w->ctx->n_bridges)) {
		esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
		drop(w, m, GW_DROP_MALFORMED);
		return;
	}
	br = &w->ctx->bridges[sa->bridge - 1];
	r = gw_etherip_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &f);
	if (r != GW_DROP_NONE) {
		esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
		drop(w, m, r);
		return;
	}
	rte_pktmbuf_adj(m, (uint16_t)f.off);
	m->packet_type = RTE_PTYPE_L2_ETHER;
	tx_enqueue(w, br->port, m);
}
