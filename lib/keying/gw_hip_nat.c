/* SPDX-License-Identifier: BSD-3-Clause
 * NAT traversal on the control lcore (RFC 5770 UDP-ENCAPSULATION mode,
 * RFC 9028 keepalives; no ICE, no relay): the engine's io.send_udp, which
 * writes IP / UDP / the 32-bit zero non-ESP marker / HIP and hands the
 * packet to the control lcore's IP send, the engine's UDP input for HIP the
 * workers punted from port 10500 (gw_meta.udp_sport), and each [peer]'s
 * nat and nat-keepalive given to the engine. The SAs of an association that
 * runs over UDP get its ports (make_sa, gw_hip.c): ESP then goes in UDP
 * (RFC 3948) on the same 5-tuple as its HIP, which is what keeps one NAT
 * mapping for both. NAT rebinding on the public side: the workers post
 * authenticated ESP with the highest sequence number from a new source
 * (lib/dp/gw_nat.c); gw_hip_nat_tick moves the peer's path there.
 */
#include <stdio.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_log.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "gw_hip_internal.h"
#include "gw_meta.h"
#include "gw_stats.h"
#include "hip_packet.h"
#include "hipgw_wire.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)
#define GW_HIP_NAT_EVENTS_PER_TICK 32   /* rebinding events taken per control tick */

void
gw_hip_io_send_udp(void *arg, const struct gw_addr *src, const struct gw_addr *dst,
		   const struct hip_udp *udp, const uint8_t *pkt, size_t len)
{
	struct gw_hip *g = arg;
	struct rte_mbuf *m;
	size_t hl = src->family == 4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	size_t ul = GW_UDP_HDR_LEN + GW_UDP_NON_ESP_MARKER_LEN + len;
	struct rte_udp_hdr *u;
	uint8_t *p;

	if (src->family != dst->family || (src->family != 4 && src->family != 6) ||
	    hl + ul > UINT16_MAX)
		return;
	m = rte_pktmbuf_alloc(g->ctx->pool);
	if (m == NULL)
		return;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(hl + ul));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	u = (struct rte_udp_hdr *)(p + hl);
	u->src_port = rte_cpu_to_be_16(udp->lport);
	u->dst_port = rte_cpu_to_be_16(udp->rport);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)ul);
	u->dgram_cksum = 0;
	memset(p + hl + GW_UDP_HDR_LEN, 0, GW_UDP_NON_ESP_MARKER_LEN);   /* RFC 5770 5.4 */
	memcpy(p + hl + GW_UDP_HDR_LEN + GW_UDP_NON_ESP_MARKER_LEN, pkt, len);
	if (src->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = GW_IPV4_VER_IHL;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(hl + ul));
		ip->time_to_live = GW_IP_DEFAULT_TTL;
		ip->next_proto_id = GW_IPPROTO_UDP;
		memcpy(&ip->src_addr, src->addr, 4);
		memcpy(&ip->dst_addr, dst->addr, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		/* the HIP checksum is zero over UDP: UDP's covers the packet */
		u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;

		memset(ip, 0, sizeof(*ip));
		ip->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(0));
		ip->payload_len = rte_cpu_to_be_16((uint16_t)ul);
		ip->proto = GW_IPPROTO_UDP;
		ip->hop_limits = GW_IP_DEFAULT_TTL;
		memcpy(ip->src_addr, src->addr, 16);
		memcpy(ip->dst_addr, dst->addr, 16);
		u->dgram_cksum = rte_ipv6_udptcp_cksum(ip, u);
	}
	gw_ctrl_send_ip(g->ctrl, m);
}

int
gw_hip_nat_input(struct gw_hip *g, struct rte_mbuf *m, const uint8_t *l3, uint32_t hl,
		 uint32_t tl, const struct gw_addr *src, const struct gw_addr *dst)
{
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(l3 + hl);
	uint32_t off = hl + GW_UDP_HDR_LEN + GW_UDP_NON_ESP_MARKER_LEN;
	struct hip_udp udp;

	/* the worker checked the UDP header and the marker (esp_udp_demux) */
	if (tl < off)
		return HIP_E_TRUNCATED;
	udp.lport = rte_be_to_cpu_16(u->dst_port);
	udp.rport = gw_meta(m)->udp_sport;
	return hip_host_input_udp(g->host, src, dst, &udp, l3 + off, tl - off, gw_hip_now_ns());
}

int
gw_hip_nat_setup(struct gw_hip *g)
{
	char name[RTE_RING_NAMESIZE];

	/* the workers' rebinding events (lib/dp/gw_nat.c); one gateway per
	 * process, but the name carries this one's address to stay unique.
	 * Never freed: the workers may post until they stop, the EAL's
	 * memory goes at exit */
	snprintf(name, sizeof(name), "hipgw_nat_%p", (void *)g);
	g->nat_ring = rte_ring_create_elem(name, sizeof(struct gw_nat_event), GW_NAT_RING_SIZE,
					   SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (g->nat_ring == NULL)
		return -1;
	__atomic_store_n(&g->ctx->nat_ring, g->nat_ring, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < g->n_peers; i++) {
		const struct gw_conf_peer *pc = g->peers[i].conf;
		enum hip_nat_mode mode = pc->nat == GW_PEER_NAT_FORCE ? HIP_NAT_FORCE :
					 pc->nat == GW_PEER_NAT_OFF ? HIP_NAT_OFF : HIP_NAT_AUTO;

		if (hip_host_set_peer_nat(g->host, &g->peers[i], mode,
					  pc->nat_keepalive_s * 1000000000ULL) != 0)
			return -1;
	}
	return 0;
}

/* ---- NAT rebinding, the control lcore's half (the workers': lib/dp/gw_nat.c) ---- */

bool
gw_hip_nat_watch(struct gw_peer *p, const struct hip_sa_keys *k)
{
	struct hip_peer_info pi;

	return k->udp.rport != 0 && hip_host_peer_info(p->g->host, p, &pi) == 0 && !pi.initiator;
}

/* One event: the peer whose current in SA it names moves its out SA, its in
 * SA's path (what the workers compare) and the engine's path to the
 * event's source; 1 when it moved, 0 when nothing was to move. */
static int
rebind(struct gw_hip *g, const struct gw_nat_event *ev)
{
	struct gw_peer *p = NULL;
	struct gw_sa *out, *in = NULL;
	struct esp_path path;
	struct gw_addr src = { .family = ev->family };
	void *data;
	char a[64];

	for (unsigned i = 0; i < g->n_peers && p == NULL; i++)
		if (g->peers[i].in_spi == ev->spi)
			p = &g->peers[i];
	if (p == NULL || rte_hash_lookup_data(g->ctx->sadb.sad, &ev->spi, &data) < 0)
		return 0;    /* the SA went (rekey, CLOSE) since the worker saw it */
	in = data;
	out = gw_sadb_out(&g->ctx->sadb, (uint32_t)p->slot);
	memcpy(src.addr, ev->src, ev->family == 4 ? 4 : 16);
	if (out == NULL || esp_sa_path_is_remote(out->esp, src.family, src.addr, ev->sport))
		return 0;
	esp_sa_path(out->esp, &path);
	if (path.udp_dport == 0 || path.remote.family != src.family)
		return 0;    /* not an association over UDP (anymore) */
	path.remote = src;
	path.udp_dport = ev->sport;
	if (esp_sa_set_path(out->esp, &path, g->ctx->sadb.rcu, true) != 0 ||
	    esp_sa_set_path(in->esp, &path, g->ctx->sadb.rcu, true) != 0) {
		LOG(ERR, "peer %s: NAT rebinding: the SAs' path could not move\n", p->conf->name);
		return 0;
	}
	hip_host_set_peer_path(g->host, p, &src, ev->sport);
	p->nat_rebinds++;
	LOG(NOTICE, "peer %s: NAT rebinding: now at %s port %u (ESP seq %u authenticated there)\n",
	    p->conf->name, gw_addr_str(&src, a, sizeof(a)), ev->sport, ev->seq);
	return 1;
}

void
gw_hip_nat_tick(struct gw_hip *g)
{
	struct gw_nat_event ev[GW_HIP_NAT_EVENTS_PER_TICK];
	unsigned n;

	if (g->nat_ring == NULL)
		return;
	n = rte_ring_sc_dequeue_burst_elem(g->nat_ring, ev, sizeof(ev[0]), RTE_DIM(ev), NULL);
	for (unsigned i = 0; i < n; i++) {
		if (rebind(g, &ev[i]))
			g->nat_rebinds++;
		else
			g->nat_rebind_stale++;
	}
}
