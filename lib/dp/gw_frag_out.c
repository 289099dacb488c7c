/* SPDX-License-Identifier: BSD-3-Clause
 * L2 mode in a worker: outer fragmentation after ESP. A bridge SA carries
 * whole Ethernet frames (up to 1522 bytes with two tags), whose ESP packet
 * can exceed the outer MTU (gw_sa_frag_mtu: the port's, or the path's as an
 * ICMP lowered it); such a packet is encrypted whole and its outer IP packet
 * cut into fragments with rte_ip_frag (RFC 791 2.3: DF is clear on bridge
 * SAs' IPv4; RFC 8200 4.5: an IPv6 Fragment header). The peer reassembles
 * before it decrypts (as gw_inbound.c does). Each fragment is a direct mbuf
 * from the packet pool with the new outer header, chained to an indirect
 * mbuf (ctx->pool_frag, bounded) on the ESP packet's bytes: nothing is
 * copied. A packet that fits is sent as it is, allocating nothing.
 */
#include <errno.h>

#include "gw_worker_internal.h"

/* Fragments of one ESP packet at most: as many as rte_ip_frag reassembles
 * (the peer's hipgw, RTE_LIBRTE_IP_FRAG_MAX_FRAG); one needing more is
 * dropped as mtu. */
#define FRAG_OUT_MAX RTE_LIBRTE_IP_FRAG_MAX_FRAG

/* IPv6 Identification (32 bits, RFC 8200 4.5: unlike any other fragmented
 * packet sent recently between the same addresses): the worker index in the
 * top bits above a per-worker count, so that workers sending on the same
 * path never pick the same one. rte_ipv6_fragment_packet writes 0. */
#define FRAG6_ID_WORKER_SHIFT 27
_Static_assert(GW_WORKERS_MAX <= 1u << (32 - FRAG6_ID_WORKER_SHIFT),
	       "the worker index fits above the count");

/* The outer fragments fr[0 .. n) of one IPv4 / IPv6 packet: the IPv4
 * Identification and the header checksum that rte_ipv4_fragment_packet
 * leaves 0 (the other fields are copied from the ESP packet), or the IPv6
 * Identification. IPv4 (16 bits, RFC 6864 4.2: unique per source,
 * destination and protocol while fragments may live): a count per worker,
 * the workers interleaved (count * workers + index), so that fragments of
 * two SAs to one peer, or of two workers, never share one until the
 * workers together fragmented 65,536 packets. */
static void
frag_headers(struct worker *w, struct rte_mbuf **fr, int32_t n, uint8_t family)
{
	uint32_t id;

	if (family == 4) {
		uint16_t id4 = rte_cpu_to_be_16((uint16_t)(w->frag4_id++ * w->ctx->n_workers + w->idx));

		for (int32_t i = 0; i < n; i++) {
			struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(fr[i], struct rte_ipv4_hdr *);

			ip->packet_id = id4;
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
		return;
	}
	id = rte_cpu_to_be_32((uint32_t)w->idx << FRAG6_ID_WORKER_SHIFT |
			      (w->frag6_id++ & ((1u << FRAG6_ID_WORKER_SHIFT) - 1)));
	for (int32_t i = 0; i < n; i++) {
		struct rte_ipv6_fragment_ext *fh =
			rte_pktmbuf_mtod_offset(fr[i], struct rte_ipv6_fragment_ext *,
						sizeof(struct rte_ipv6_hdr));

		fh->id = id;
	}
}

/* Cut the outer packet m (one segment, IP header first) into fragments of
 * at most mtu bytes, send them and free m (the fragments keep its buffer
 * until they are sent). Drops: frag_no_mbuf (a pool empty), mtu (more than
 * FRAG_OUT_MAX fragments, or an MTU rte_ip_frag refuses). */
static void
frag_send(struct worker *w, struct rte_mbuf *m, uint16_t mtu)
{
	struct rte_mempool *direct = w->ctx->pool, *indirect = w->ctx->pool_frag;
	uint8_t family = gw_ip_version(rte_pktmbuf_mtod(m, const uint8_t *));
	struct rte_mbuf *fr[FRAG_OUT_MAX];
	int32_t n;

	if (unlikely(indirect == NULL)) {
		drop(w, m, GW_DROP_FRAG_NO_MBUF);
		return;
	}
	if (family == 4)
		n = rte_ipv4_fragment_packet(m, fr, FRAG_OUT_MAX, mtu, direct, indirect);
	else
		n = rte_ipv6_fragment_packet(m, fr, FRAG_OUT_MAX, mtu, direct, indirect);
	if (unlikely(n <= 0)) {
		drop(w, m, n == -ENOMEM ? GW_DROP_FRAG_NO_MBUF : GW_DROP_MTU);
		return;
	}
	frag_headers(w, fr, n, family);
	w->st->esp_fragmented++;
	w->st->esp_fragments += (uint64_t)n;
	for (int32_t i = 0; i < n; i++)
		wk_send_outer(w, fr[i]);
	rte_pktmbuf_free(m);
}

void
wk_esp_frag_route_send(struct worker *w, struct rte_mbuf **enc, const uint8_t *res,
		       const uint16_t *mtu, uint16_t ne)
{
	for (uint16_t i = 0; i < ne; i++) {
		if (res[i] != GW_DROP_NONE) {
			drop(w, enc[i], res[i]);
			continue;
		}
		if (unlikely(mtu[i] != 0 && rte_pktmbuf_pkt_len(enc[i]) > mtu[i]))
			frag_send(w, enc[i], mtu[i]);
		else
			wk_send_outer(w, enc[i]);
	}
}
