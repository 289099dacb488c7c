/* SPDX-License-Identifier: BSD-3-Clause
 * Decapsulated inner packets longer than the MTU of the inner port they are
 * routed to (the workers punt them, gw_inbound.c decap_too_big): IPv4 without
 * DF is fragmented to that MTU and sent on; IPv4 with DF gets an ICMP
 * fragmentation needed (RFC 1191) and IPv6 an ICMPv6 Packet Too Big (RFC 4443
 * 3.2, RFC 8201), each announcing the port's MTU, sent back to the packet's
 * source.
 *
 * That source is a host at the remote site, so the error goes back through
 * the tunnel: it is handed to the worker's outbound path as a frame received
 * on the inner port (gw_ctrl_reinject), where the SPD picks the out SA of its
 * destination and ESP protects it as any of the site's packets. Its source
 * address is the gateway's address on that inner port: the peer gateway's in
 * SA delivers only inner sources within our site's prefixes (its spoof check),
 * and the inner port's address lies in the site's subnet it serves, so the
 * peer lets it through; it also names the link whose MTU is too small (RFC
 * 4443 2.2). The outer address would fall outside the peer's policy and
 * outside our SPD. A port without an address of the family sends no error
 * (the packet is still counted as mtu by the worker).
 */
#include <string.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "ctrl_internal.h"
#include "gw_meta.h"
#include "hipgw_wire.h"

void
ctrl_decap_too_big(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint16_t mtu)
{
	const struct gw_port *p = &c->ctx->ports[port];
	const uint8_t *orig = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct gw_addr *src = ctrl_port_addr(p, gw_ip_version(orig) == 4 ? 4 : 6);
	struct rte_mbuf *e = NULL;
	struct rte_ether_hdr *eth;

	if (src != NULL)
		e = ctrl_icmp_error_build(c, orig, rte_pktmbuf_data_len(m), src, GW_PUNT_TOO_BIG_IN,
					  mtu);
	rte_pktmbuf_free(m);
	if (e == NULL)
		return;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(e, sizeof(*eth));
	if (eth == NULL) {
		rte_pktmbuf_free(e);
		return;
	}
	/* as if received on the inner port: to its MAC, from the null MAC (a
	 * frame from the port's own MAC would be taken for the kernel's loop-back
	 * copy of one the control lcore sent, l2_accept) */
	rte_ether_addr_copy(&p->mac, &eth->dst_addr);
	memset(&eth->src_addr, 0, sizeof(eth->src_addr));
	eth->ether_type = rte_cpu_to_be_16(src->family == 4 ? RTE_ETHER_TYPE_IPV4 :
					   RTE_ETHER_TYPE_IPV6);
	gw_ctrl_reinject(c, e, port);
}

void
ctrl_decap_fragment(struct gw_ctrl *c, struct rte_mbuf *m, uint16_t mtu)
{
	struct rte_mbuf *frags[GW_CTRL_MAX_FRAGS];
	int n = ctrl_ipv4_fragment(c, m, mtu, frags, RTE_DIM(frags));

	for (int i = 0; i < n; i++)
		gw_ctrl_send_ip(c, frags[i]);     /* routed again: the same inner next hop */
}
