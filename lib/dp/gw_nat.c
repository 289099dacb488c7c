/* SPDX-License-Identifier: BSD-3-Clause
 * NAT rebinding on the public side, the workers' half (RFC 5770 UDP
 * associations; docs/nat.md): a NAT that forgets its mapping gives the
 * peer's next packets a new source port (or address). For in SAs the
 * control lcore marked (gw_sa.nat_watch), the owner worker notes, before
 * the ESP stage, each UDP-encapsulated packet's outer source, UDP source
 * port and sequence number and the SA's highest sequence number so far;
 * after it, a packet that authenticated (ICV ok), came from another address
 * or port than the SA's path, and carried a sequence number above every one
 * authenticated before it is posted to the control lcore (gw_ctx.nat_ring,
 * bounded: full counts nat_ring_full), which moves the out SAs' path there.
 * An authenticated but older packet from elsewhere (a replay or a late
 * copy within the window) moves nothing (nat_rebind_old). Only sequence
 * numbers' low 32 bits are compared: HIP SAs have no ESN.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "gw_worker_internal.h"

void
wk_nat_note(struct gw_sa *const *sas, struct rte_mbuf *const *m, uint16_t n,
	    struct wk_nat_pkt *np)
{
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *l3;
		uint32_t hl, seq;

		np[i].watch = false;
		if (likely(!sas[i]->nat_watch))
			continue;
		l3 = rte_pktmbuf_mtod(m[i], const uint8_t *);
		/* ESP here, IP header first; over IPv6 esp_udp_demux allowed no
		 * extension header before UDP */
		np[i].family = gw_ip_version(l3);
		hl = np[i].family == 4 ? gw_ipv4_hdr_bytes(l3) : GW_IPV6_HDR_LEN;
		if (rte_pktmbuf_data_len(m[i]) < hl + GW_ESP_HDR_LEN)
			continue;
		memcpy(&seq, l3 + hl + 4, 4);
		np[i].seq = rte_be_to_cpu_32(seq);
		np[i].top0 = (uint32_t)esp_sa_seq(sas[i]->esp);
		np[i].sport = gw_meta(m[i])->udp_sport;
		if (np[i].family == 4)
			memcpy(np[i].src, l3 + 12, 4);          /* IPv4 source address */
		else
			memcpy(np[i].src, l3 + 8, 16);          /* IPv6 source address */
		np[i].watch = true;
	}
}

/* The SA's path moved (or was never posted): whether to post this packet. */
static bool
post_due(struct gw_sa *sa, const struct wk_nat_pkt *p)
{
	if (sa->nat_posted_port == p->sport && sa->nat_posted_family == p->family &&
	    memcmp(sa->nat_posted_src, p->src, p->family == 4 ? 4 : 16) == 0)
		return ++sa->nat_posted_n % GW_NAT_REPOST_PACKETS == 0;
	sa->nat_posted_port = p->sport;
	sa->nat_posted_family = p->family;
	memcpy(sa->nat_posted_src, p->src, sizeof(sa->nat_posted_src));
	sa->nat_posted_n = 0;
	return true;
}

void
wk_nat_check(struct worker *w, struct gw_sa *const *sas, const uint8_t *res, uint16_t n,
	     const struct wk_nat_pkt *np)
{
	struct rte_ring *ring = __atomic_load_n(&w->ctx->nat_ring, __ATOMIC_ACQUIRE);

	for (uint16_t i = 0; i < n; i++) {
		const struct wk_nat_pkt *p = &np[i];
		struct gw_nat_event ev;
		bool highest;

		if (likely(!p->watch) || res[i] != GW_DROP_NONE || p->sport == 0 ||
		    esp_sa_path_is_remote(sas[i]->esp, p->family, p->src, p->sport))
			continue;
		/* above the SA's top before the burst and every packet of the
		 * SA authenticated earlier in it */
		highest = p->seq > p->top0;
		for (uint16_t j = 0; highest && j < i; j++)
			if (sas[j] == sas[i] && res[j] == GW_DROP_NONE && np[j].watch &&
			    np[j].seq >= p->seq)
				highest = false;
		if (!highest) {
			w->st->nat_rebind_old++;
			continue;
		}
		if (ring == NULL || !post_due(sas[i], p))
			continue;
		ev = (struct gw_nat_event){ .spi = sas[i]->spi, .seq = p->seq, .sport = p->sport,
					    .family = p->family };
		memcpy(ev.src, p->src, sizeof(ev.src));
		if (rte_ring_mp_enqueue_elem(ring, &ev, sizeof(ev)) != 0) {
			w->st->nat_ring_full++;
			sas[i]->nat_posted_port = 0;      /* post again with the next one */
		} else {
			w->st->nat_rebind_posted++;
		}
	}
}
