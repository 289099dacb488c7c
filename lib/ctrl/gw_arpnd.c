/* SPDX-License-Identifier: BSD-3-Clause
 * ARP (RFC 826) and IPv6 neighbour discovery (RFC 4861 sections 4.3, 4.4, 7.2)
 * for the gateway's own addresses and for its next hops.
 */
#include <string.h>
#include <rte_arp.h>
#include <rte_ip.h>

#include "ctrl_internal.h"
#include "hipgw_wire.h"

#define ND_HOP_LIMIT 255

struct nd_msg {                 /* NS / NA body after the 4-byte ICMPv6 header */
	uint32_t flags;         /* NA: R S O bits; NS: reserved */
	uint8_t target[16];
	uint8_t opt_type;
	uint8_t opt_len;        /* units of 8 bytes */
	uint8_t opt_mac[6];
} __rte_packed;

struct icmp6_hdr {
	uint8_t type;
	uint8_t code;
	uint16_t cksum;
} __rte_packed;

#define NA_FLAG_SOLICITED 0x40000000u
#define NA_FLAG_OVERRIDE  0x20000000u

static struct rte_mbuf *
frame_alloc(struct gw_ctrl *c, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->ctx->pool);
	if (m == NULL) {
		c->st->drops[GW_DROP_RING_FULL]++;
		return NULL;
	}
	if (rte_pktmbuf_append(m, len) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(rte_pktmbuf_mtod(m, void *), 0, len);
	return m;
}

static void
arp_send(struct gw_ctrl *c, unsigned port, uint16_t op, const struct rte_ether_addr *tha,
	 uint32_t sip, uint32_t tip)
{
	const struct gw_port *p = &c->ctx->ports[port];
	struct rte_mbuf *m = frame_alloc(c, sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr));
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;

	if (m == NULL)
		return;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	arp = (struct rte_arp_hdr *)(eth + 1);
	if (op == RTE_ARP_OP_REQUEST)
		memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	else
		rte_ether_addr_copy(tha, &eth->dst_addr);
	rte_ether_addr_copy(&p->mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&p->mac, &arp->arp_data.arp_sha);
	arp->arp_data.arp_sip = sip;
	if (op == RTE_ARP_OP_REPLY)
		rte_ether_addr_copy(tha, &arp->arp_data.arp_tha);
	arp->arp_data.arp_tip = tip;
	ctrl_tx(c, m, port);
}

void
ctrl_arp_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	const struct gw_port *p = &c->ctx->ports[port];
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);
	struct gw_addr sender = { .family = 4 };
	bool for_us;

	if (rte_pktmbuf_data_len(m) < sizeof(*eth) + sizeof(*arp) ||
	    arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4) {
		ctrl_drop(c, m, GW_DROP_MALFORMED);
		return;
	}
	for_us = gw_port_owns(p, 4, (const uint8_t *)&arp->arp_data.arp_tip);
	memcpy(sender.addr, &arp->arp_data.arp_sip, 4);
	/* RFC 826 merge: learn the sender when the packet is for us (or a reply) */
	if (arp->arp_data.arp_sip != 0 && !rte_is_multicast_ether_addr(&arp->arp_data.arp_sha) &&
	    (for_us || arp->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REPLY)))
		ctrl_neigh_learned(c, port, &sender, &arp->arp_data.arp_sha);
	if (for_us && arp->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
		arp_send(c, port, RTE_ARP_OP_REPLY, &arp->arp_data.arp_sha,
			 arp->arp_data.arp_tip, arp->arp_data.arp_sip);
	rte_pktmbuf_free(m);
}

/* Build and send an NS (target unresolved) or NA (for our address: an
 * answer, or unsolicited when `solicited` is false). */
static void
nd_send(struct gw_ctrl *c, unsigned port, uint8_t type, const uint8_t *dst_ip,
	const struct rte_ether_addr *dst_mac, const uint8_t *target, bool solicited)
{
	const struct gw_port *p = &c->ctx->ports[port];
	const struct gw_addr *src = ctrl_port_addr(p, 6);
	uint16_t plen = sizeof(struct icmp6_hdr) + sizeof(struct nd_msg);
	struct rte_mbuf *m;
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	struct icmp6_hdr *ic;
	struct nd_msg *nd;

	if (src == NULL)
		return;
	m = frame_alloc(c, sizeof(*eth) + sizeof(*ip) + plen);
	if (m == NULL)
		return;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	ic = (struct icmp6_hdr *)(ip + 1);
	nd = (struct nd_msg *)(ic + 1);
	rte_ether_addr_copy(dst_mac, &eth->dst_addr);
	rte_ether_addr_copy(&p->mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(0));
	ip->payload_len = rte_cpu_to_be_16(plen);
	ip->proto = GW_IPPROTO_ICMPV6;
	ip->hop_limits = ND_HOP_LIMIT;
	memcpy(ip->src_addr, src->addr, 16);
	memcpy(ip->dst_addr, dst_ip, 16);
	ic->type = type;
	memcpy(nd->target, target, 16);
	if (type == GW_ICMP6_NEIGH_ADVERT) {
		nd->flags = rte_cpu_to_be_32((solicited ? NA_FLAG_SOLICITED : 0) | NA_FLAG_OVERRIDE);
		nd->opt_type = GW_ND_OPT_TGT_LLADDR;
	} else {
		nd->opt_type = GW_ND_OPT_SRC_LLADDR;
	}
	nd->opt_len = 1;
	memcpy(nd->opt_mac, p->mac.addr_bytes, 6);
	ic->cksum = rte_ipv6_udptcp_cksum(ip, ic);
	ctrl_tx(c, m, port);
}

void
ctrl_neigh_solicit(struct gw_ctrl *c, unsigned port, const struct gw_addr *ip)
{
	if (ip->family == 4) {
		const struct gw_addr *src = ctrl_port_addr(&c->ctx->ports[port], 4);
		uint32_t sip, tip;
		if (src == NULL)
			return;
		memcpy(&sip, src->addr, 4);
		memcpy(&tip, ip->addr, 4);
		arp_send(c, port, RTE_ARP_OP_REQUEST, NULL, sip, tip);
	} else {
		/* solicited-node multicast ff02::1:ffXX:XXXX (RFC 4291 2.7.1) */
		uint8_t sn[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
		struct rte_ether_addr mac = { { 0x33, 0x33, 0xff } };
		memcpy(&sn[13], &ip->addr[13], 3);
		memcpy(&mac.addr_bytes[3], &ip->addr[13], 3);
		nd_send(c, port, GW_ICMP6_NEIGH_SOLICIT, sn, &mac, ip->addr, false);
	}
}

void
ctrl_addr_announce(struct gw_ctrl *c, unsigned port, const struct gw_addr *a)
{
	if (a->family == 4) {
		uint32_t ip;

		memcpy(&ip, a->addr, 4);
		arp_send(c, port, RTE_ARP_OP_REQUEST, NULL, ip, ip);
	} else {
		static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
		static const struct rte_ether_addr all_nodes_mac = { { 0x33, 0x33, 0, 0, 0, 1 } };

		nd_send(c, port, GW_ICMP6_NEIGH_ADVERT, all_nodes, &all_nodes_mac, a->addr, false);
	}
}

bool
ctrl_nd_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	const struct gw_port *p = &c->ctx->ports[port];
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	struct icmp6_hdr *ic = (struct icmp6_hdr *)(ip + 1);
	struct nd_msg *nd = (struct nd_msg *)(ic + 1);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint16_t plen;
	struct gw_addr who = { .family = 6 };
	const struct rte_ether_addr *lladdr = NULL;
	static const uint8_t unspecified[16];

	if (len < sizeof(*eth) + sizeof(*ip) + sizeof(*ic) || ip->proto != GW_IPPROTO_ICMPV6)
		return false;
	if (ic->type != GW_ICMP6_NEIGH_SOLICIT && ic->type != GW_ICMP6_NEIGH_ADVERT)
		return false;
	plen = rte_be_to_cpu_16(ip->payload_len);
	/* RFC 4861 7.1.1 / 7.1.2: hop limit 255, code 0, length >= 24, checksum */
	if (ip->hop_limits != ND_HOP_LIMIT || ic->code != 0 || plen < 24 ||
	    len < sizeof(*eth) + sizeof(*ip) + plen ||
	    rte_ipv6_udptcp_cksum_verify(ip, ic) != 0) {
		ctrl_drop(c, m, GW_DROP_MALFORMED);
		return true;
	}
	if (plen >= sizeof(*ic) + sizeof(*nd) && nd->opt_len == 1 &&
	    (nd->opt_type == GW_ND_OPT_SRC_LLADDR || nd->opt_type == GW_ND_OPT_TGT_LLADDR))
		lladdr = (const struct rte_ether_addr *)nd->opt_mac;

	if (ic->type == GW_ICMP6_NEIGH_SOLICIT) {
		if (gw_port_owns(p, 6, nd->target) && memcmp(ip->src_addr, unspecified, 16) != 0) {
			memcpy(who.addr, ip->src_addr, 16);
			if (lladdr != NULL)
				ctrl_neigh_learned(c, port, &who, lladdr);
			nd_send(c, port, GW_ICMP6_NEIGH_ADVERT, ip->src_addr,
				lladdr ? lladdr : &eth->src_addr, nd->target, true);
		}
	} else {
		memcpy(who.addr, nd->target, 16);
		ctrl_neigh_learned(c, port, &who, lladdr ? lladdr : &eth->src_addr);
	}
	rte_pktmbuf_free(m);
	return true;
}
