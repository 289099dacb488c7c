/* SPDX-License-Identifier: BSD-3-Clause
 * NAT traversal on the control lcore (RFC 5770 UDP-ENCAPSULATION mode,
 * RFC 9028 keepalives; no ICE, no relay): the engine's io.send_udp, which
 * writes IP / UDP / the 32-bit zero non-ESP marker / HIP and hands the
 * packet to the control lcore's IP send, the engine's UDP input for HIP the
 * workers punted from port 10500 (gw_meta.udp_sport), and each [peer]'s
 * nat and nat-keepalive given to the engine. The SAs of an association that
 * runs over UDP get its ports (make_sa, gw_hip.c): ESP then goes in UDP
 * (RFC 3948) on the same 5-tuple as its HIP, which is what keeps one NAT
 * mapping for both.
 */
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "gw_hip_internal.h"
#include "gw_meta.h"
#include "gw_stats.h"
#include "hip_packet.h"
#include "hipgw_wire.h"

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
