/* SPDX-License-Identifier: BSD-3-Clause
 * ICMP (RFC 792, RFC 1191) and ICMPv6 (RFC 4443, RFC 8201) on the control lcore:
 * echo replies for the gateway's own addresses, the errors the workers ask for,
 * and fragmentation of too-big IPv4 packets without DF before encryption.
 * Fragmentation needed / Packet Too Big on an outer port go to gw_pmtu_icmp.c.
 */
#include <string.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>

#include "ctrl_internal.h"
#include "gw_ip6ext.h"
#include "gw_meta.h"
#include "gw_pmtu_icmp.h"
#include "hipgw_wire.h"

struct icmp_err_hdr {           /* ICMP / ICMPv6 error header */
	uint8_t type;
	uint8_t code;
	uint16_t cksum;
	uint32_t word;          /* unused / next-hop MTU (v4: low 16 bits) / MTU (v6) */
} __rte_packed;

static void
swap_eth(struct rte_ether_hdr *eth, const struct gw_port *p)
{
	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	rte_ether_addr_copy(&p->mac, &eth->src_addr);
}

void
ctrl_icmp_local(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	const struct gw_port *p = &c->ctx->ports[port];
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint32_t len = rte_pktmbuf_data_len(m) - sizeof(*eth);
	uint16_t et = rte_be_to_cpu_16(eth->ether_type);

	/* a frame to a multicast MAC comes straight from the Ethernet stage:
	 * nothing of its IP header has been checked */
	if (len < (et == RTE_ETHER_TYPE_IPV4 ? sizeof(struct rte_ipv4_hdr) :
		   sizeof(struct rte_ipv6_hdr))) {
		ctrl_drop(c, m, GW_DROP_MALFORMED);
		return;
	}
	if (p->role == GW_ROLE_OUTER && gw_icmp_is_ptb((const uint8_t *)(eth + 1), len)) {
		ctrl_pmtu_input(c, m, port);    /* about our ESP, perhaps */
		return;
	}
	if (et == RTE_ETHER_TYPE_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		uint32_t hl = rte_ipv4_hdr_len(ip), tl = rte_be_to_cpu_16(ip->total_length);
		struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)((uint8_t *)ip + hl);
		uint32_t a;

		if (ip->next_proto_id != GW_IPPROTO_ICMP || tl < hl + sizeof(*ic) || tl > len ||
		    !gw_port_owns(p, 4, (uint8_t *)&ip->dst_addr) ||
		    rte_ipv4_frag_pkt_is_fragmented(ip) ||
		    ic->icmp_type != GW_ICMP_ECHO_REQUEST ||
		    rte_raw_cksum(ic, tl - hl) != 0xffff) {
			ctrl_drop(c, m, GW_DROP_POLICY);
			return;
		}
		ic->icmp_type = GW_ICMP_ECHO_REPLY;
		ic->icmp_cksum = 0;
		ic->icmp_cksum = ~rte_raw_cksum(ic, tl - hl);
		a = ip->src_addr;
		ip->src_addr = ip->dst_addr;
		ip->dst_addr = a;
		ip->time_to_live = GW_IP_DEFAULT_TTL;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		swap_eth(eth, p);
		ctrl_tx(c, m, port);
		return;
	}
	if (et == RTE_ETHER_TYPE_IPV6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
		struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)(ip + 1);
		uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
		uint8_t a[16];

		if (ip->proto != GW_IPPROTO_ICMPV6 || plen < sizeof(*ic) ||
		    sizeof(*ip) + plen > len || !gw_port_owns(p, 6, ip->dst_addr) ||
		    ic->icmp_type != GW_ICMP6_ECHO_REQUEST ||
		    rte_ipv6_udptcp_cksum_verify(ip, ic) != 0) {
			ctrl_drop(c, m, GW_DROP_POLICY);
			return;
		}
		ic->icmp_type = GW_ICMP6_ECHO_REPLY;
		memcpy(a, ip->src_addr, 16);
		memcpy(ip->src_addr, ip->dst_addr, 16);
		memcpy(ip->dst_addr, a, 16);
		ip->hop_limits = GW_IP_DEFAULT_TTL;
		ic->icmp_cksum = 0;
		ic->icmp_cksum = rte_ipv6_udptcp_cksum(ip, ic);
		swap_eth(eth, p);
		ctrl_tx(c, m, port);
		return;
	}
	ctrl_drop(c, m, GW_DROP_POLICY);
}

/* True when the IP packet orig (olen bytes) is itself an ICMP error (RFC 792:
 * destination unreachable, source quench, redirect, time exceeded, parameter
 * problem) or ICMPv6 error (RFC 4443 2.1: a type below 128, found behind the
 * extension headers gw_ip6ext_walk accepts): no error is sent about one (RFC
 * 1812 4.3.2.2, RFC 4443 2.4 (e)), so two gateways never bounce errors. */
static bool
is_icmp_error(const uint8_t *orig, uint32_t olen)
{
	if (gw_ip_version(orig) == 4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)orig;
		uint32_t hl = rte_ipv4_hdr_len(ip);
		uint8_t t;

		if (ip->next_proto_id != GW_IPPROTO_ICMP || olen <= hl ||
		    (ip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_OFFSET_MASK)))
			return false;
		t = orig[hl];
		return t == GW_ICMP_DEST_UNREACH || t == GW_ICMP_SOURCE_QUENCH ||
		       t == GW_ICMP_REDIRECT || t == GW_ICMP_TIME_EXCEEDED ||
		       t == GW_ICMP_PARAM_PROBLEM;
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)orig;
		uint32_t tl = RTE_MIN(olen, sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len));
		struct gw_ip6ext x = { .len = 0, .proto = ip->proto };

		if (gw_ip6ext_is(ip->proto) && gw_ip6ext_walk(orig, tl, &x) != GW_DROP_NONE)
			return false;
		return x.proto == GW_IPPROTO_ICMPV6 && sizeof(*ip) + x.len < tl &&
		       orig[sizeof(*ip) + x.len] < GW_ICMP6_INFO_MIN;
	}
}

struct rte_mbuf *
ctrl_icmp_error_build(struct gw_ctrl *c, const uint8_t *orig, uint32_t olen,
		      const struct gw_addr *src, uint8_t kind, uint16_t mtu)
{
	struct rte_mbuf *e;
	struct icmp_err_hdr *ic;
	uint32_t quote;

	if (olen < GW_IPV4_HDR_LEN || src->family != (gw_ip_version(orig) == 4 ? 4 : 6) ||
	    is_icmp_error(orig, olen))
		return NULL;
	if (gw_ip_version(orig) == 4) {
		const struct rte_ipv4_hdr *oip = (const struct rte_ipv4_hdr *)orig;
		struct rte_ipv4_hdr *ip;
		uint32_t hl = sizeof(*ip);
		/* RFC 1812 4.3.2.2: no ICMP error about an ICMP error or a non-first fragment */
		if (oip->fragment_offset & rte_cpu_to_be_16(GW_IPV4_OFFSET_MASK))
			return NULL;
		quote = RTE_MIN(olen, (uint32_t)GW_ICMP_ERR_MAX_QUOTE);
		if ((e = rte_pktmbuf_alloc(c->ctx->pool)) == NULL)
			return NULL;
		ip = (struct rte_ipv4_hdr *)rte_pktmbuf_append(e, hl + sizeof(*ic) + quote);
		if (ip == NULL)
			goto out;
		ic = (struct icmp_err_hdr *)(ip + 1);
		memset(ip, 0, hl + sizeof(*ic));
		ip->version_ihl = GW_IPV4_VER_IHL;
		ip->total_length = rte_cpu_to_be_16(hl + sizeof(*ic) + quote);
		ip->time_to_live = GW_IP_DEFAULT_TTL;
		ip->next_proto_id = GW_IPPROTO_ICMP;
		memcpy(&ip->src_addr, src->addr, 4);
		ip->dst_addr = oip->src_addr;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		if (kind == GW_PUNT_TTL) {
			ic->type = GW_ICMP_TIME_EXCEEDED;
		} else {
			ic->type = GW_ICMP_DEST_UNREACH;
			ic->code = GW_ICMP_FRAG_NEEDED;
			ic->word = rte_cpu_to_be_32(mtu);   /* RFC 1191: next-hop MTU */
		}
		memcpy(ic + 1, orig, quote);
		ic->cksum = ~rte_raw_cksum(ic, sizeof(*ic) + quote);
	} else {
		const struct rte_ipv6_hdr *oip = (const struct rte_ipv6_hdr *)orig;
		struct rte_ipv6_hdr *ip;
		quote = RTE_MIN(olen, (uint32_t)(GW_ICMP6_ERR_MAX_LEN - sizeof(*ip) - sizeof(*ic)));
		if (olen < sizeof(*oip) || (e = rte_pktmbuf_alloc(c->ctx->pool)) == NULL)
			return NULL;
		ip = (struct rte_ipv6_hdr *)rte_pktmbuf_append(e, sizeof(*ip) + sizeof(*ic) + quote);
		if (ip == NULL)
			goto out;
		ic = (struct icmp_err_hdr *)(ip + 1);
		memset(ip, 0, sizeof(*ip) + sizeof(*ic));
		ip->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(0));
		ip->payload_len = rte_cpu_to_be_16(sizeof(*ic) + quote);
		ip->proto = GW_IPPROTO_ICMPV6;
		ip->hop_limits = GW_IP_DEFAULT_TTL;
		memcpy(ip->src_addr, src->addr, 16);
		memcpy(ip->dst_addr, oip->src_addr, 16);
		if (kind == GW_PUNT_TTL) {
			ic->type = GW_ICMP6_TIME_EXCEEDED;
		} else {
			ic->type = GW_ICMP6_PACKET_TOO_BIG;
			/* RFC 8201 / RFC 8200 5: never advertise below 1280 */
			ic->word = rte_cpu_to_be_32(RTE_MAX(mtu, (uint16_t)GW_IPV6_MIN_MTU));
		}
		memcpy(ic + 1, orig, quote);
		ic->cksum = rte_ipv6_udptcp_cksum(ip, ic);
	}
	return e;
out:
	rte_pktmbuf_free(e);
	return NULL;
}

/* Send an ICMP error about the Ethernet frame m (received on `port`) back to its
 * sender: time exceeded, or fragmentation needed / packet too big with `mtu`. */
void
ctrl_icmp_error(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint8_t kind, uint16_t mtu)
{
	const struct gw_port *p = &c->ctx->ports[port];
	struct rte_ether_hdr *oeth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint16_t et = rte_be_to_cpu_16(oeth->ether_type);
	const struct gw_addr *src = ctrl_port_addr(p, et == RTE_ETHER_TYPE_IPV4 ? 4 : 6);
	struct rte_mbuf *e = NULL;
	struct rte_ether_hdr *eth;

	if (src != NULL)
		e = ctrl_icmp_error_build(c, (const uint8_t *)(oeth + 1),
					  rte_pktmbuf_data_len(m) - sizeof(*oeth), src, kind, mtu);
	if (e != NULL && (eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(e, sizeof(*eth))) != NULL) {
		eth->ether_type = oeth->ether_type;
		rte_ether_addr_copy(&oeth->src_addr, &eth->dst_addr);
		rte_ether_addr_copy(&p->mac, &eth->src_addr);
		ctrl_tx(c, e, port);
	} else {
		rte_pktmbuf_free(e);
	}
	rte_pktmbuf_free(m);
}

int
ctrl_ipv4_fragment(struct gw_ctrl *c, struct rte_mbuf *m, uint16_t mtu, struct rte_mbuf **frags,
		   unsigned max)
{
	int n = rte_ipv4_fragment_packet(m, frags, max, mtu, c->ctx->pool, c->ctx->pool), k = 0;

	rte_pktmbuf_free(m);
	if (n < 0) {
		c->st->drops[GW_DROP_MTU]++;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct rte_mbuf *f = frags[i];
		struct rte_ipv4_hdr *ip;

		if (f->nb_segs > 1 && rte_pktmbuf_linearize(f) != 0) {
			ctrl_drop(c, f, GW_DROP_MTU);
			continue;
		}
		ip = rte_pktmbuf_mtod(f, struct rte_ipv4_hdr *);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		frags[k++] = f;
	}
	return k;
}

/* IPv4 without DF too big for its SA: fragment the inner packet (before
 * encryption, so the peer gateway never reassembles) into pieces of at most mtu
 * bytes and hand each back to worker 0 to run the outbound path. */
void
ctrl_fragment(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint16_t mtu)
{
	struct rte_mbuf *frags[GW_CTRL_MAX_FRAGS];
	struct rte_ether_hdr eth = *rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	int n;

	rte_pktmbuf_adj(m, sizeof(eth));
	n = ctrl_ipv4_fragment(c, m, mtu, frags, RTE_DIM(frags));
	for (int i = 0; i < n; i++) {
		struct rte_mbuf *f = frags[i];
		struct rte_ether_hdr *h = (struct rte_ether_hdr *)rte_pktmbuf_prepend(f, sizeof(*h));
		struct gw_meta *md;

		if (h == NULL) {
			ctrl_drop(c, f, GW_DROP_MTU);
			continue;
		}
		*h = eth;
		md = gw_meta(f);
		md->kind = GW_CTRL_OUTBOUND;
		md->port = port;
		if (rte_ring_sp_enqueue(c->ctx->from_ctrl[0], f) != 0)
			ctrl_drop(c, f, GW_DROP_RING_FULL);
	}
}
