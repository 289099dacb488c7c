/* SPDX-License-Identifier: BSD-3-Clause
 * ICMP fragmentation needed / ICMPv6 Packet Too Big about our ESP packets:
 * the strict parser (gw_pmtu_icmp.h) and, on the control lcore, what such a
 * message does to the path MTU (RFC 4301 section 8.2.1: the SA's path
 * lowers; 8.2.2 and RFC 1191 6.3 / RFC 8201 4: raised again after an age).
 * ICMP is not authenticated (RFC 4301 section 6.1.1), so a message counts
 * only when it quotes a packet we sent lately: our address and the peer's,
 * the SPI of a live out SA, and one of its last GW_PMTU_SEQ_RECENT sequence
 * numbers. Each message lands in one gw_pmtu_event counter.
 */
#include <string.h>
#include <time.h>
#include <rte_ip.h>
#include <rte_log.h>

#include "ctrl_internal.h"
#include "gw_pmtu_icmp.h"
#include "hipgw_wire.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)
#define PATH_BATCH 16      /* aged-out paths handled per gw_pmtu_expire call */

static uint32_t
rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
rd32(const uint8_t *p)
{
	return rd16(p) << 16 | rd16(p + 2);
}

static void
set_addr(struct gw_addr *a, uint8_t family, const uint8_t *p)
{
	memset(a, 0, sizeof(*a));
	a->family = family;
	memcpy(a->addr, p, family == 4 ? 4 : 16);
}

/* The addresses (the ICMP's destination, the quoted source and destination)
 * and the quoted ESP header into o. */
static void
set_quoted(struct gw_icmp_ptb *o, uint8_t family, const uint8_t *to, const uint8_t *src,
	   const uint8_t *dst, const uint8_t *esp)
{
	set_addr(&o->to, family, to);
	set_addr(&o->local, family, src);
	set_addr(&o->remote, family, dst);
	o->spi = rd32(esp);
	o->seq = rd32(esp + 4);
}

bool
gw_icmp_is_ptb(const uint8_t *ip, uint32_t len)
{
	uint32_t hl;

	if (len >= GW_IPV4_HDR_LEN && gw_ip_version(ip) == 4) {
		hl = gw_ipv4_hdr_bytes(ip);
		return ip[9] == GW_IPPROTO_ICMP && len >= hl + 2 &&
		       ip[hl] == GW_ICMP_DEST_UNREACH && ip[hl + 1] == GW_ICMP_FRAG_NEEDED;
	}
	return len > GW_IPV6_HDR_LEN && gw_ip_version(ip) == 6 && ip[6] == GW_IPPROTO_ICMPV6 &&
	       ip[GW_IPV6_HDR_LEN] == GW_ICMP6_PACKET_TOO_BIG;
}

/* IPv4: RFC 792 (8 bytes of the datagram at least), RFC 1191 section 4 (the
 * next-hop MTU in the low 16 bits of the second word). */
static int
parse4(const uint8_t *b, uint32_t len, struct gw_icmp_ptb *o, enum gw_pmtu_event *why)
{
	uint32_t hl = gw_ipv4_hdr_bytes(b), tl = rd16(b + 2), il, qhl, qtl, qfrag;
	const uint8_t *ic, *q;

	if (hl < GW_IPV4_HDR_LEN || tl < hl || tl > len || rte_raw_cksum(b, hl) != 0xffff ||
	    (rd16(b + 6) & (GW_IPV4_MF | GW_IPV4_OFFSET_MASK)) != 0 || b[9] != GW_IPPROTO_ICMP)
		return -1;
	ic = b + hl;
	il = tl - hl;
	if (il < GW_ICMP_ERR_HDR_LEN + GW_IPV4_HDR_LEN + GW_ESP_HDR_LEN ||
	    rte_raw_cksum(ic, il) != 0xffff || ic[0] != GW_ICMP_DEST_UNREACH ||
	    ic[1] != GW_ICMP_FRAG_NEEDED)
		return -1;
	q = ic + GW_ICMP_ERR_HDR_LEN;
	qhl = gw_ipv4_hdr_bytes(q);
	qtl = rd16(q + 2);
	qfrag = rd16(q + 6);
	/* our ESP as we send it: whole header and ESP header quoted, DF, no fragment */
	if (gw_ip_version(q) != 4 || qhl < GW_IPV4_HDR_LEN ||
	    il < GW_ICMP_ERR_HDR_LEN + qhl + GW_ESP_HDR_LEN || q[9] != GW_IPPROTO_ESP ||
	    qtl < qhl + GW_ESP_HDR_LEN || (qfrag & GW_IPV4_DF) == 0 ||
	    (qfrag & (GW_IPV4_MF | GW_IPV4_OFFSET_MASK)) != 0)
		return -1;
	o->mtu = rd16(ic + 6);
	o->quoted_len = qtl;
	if (o->mtu == 0 || o->mtu >= qtl) {
		*why = GW_PMTU_REFUSED_MTU;    /* 0: a router older than RFC 1191 */
		return -1;
	}
	set_quoted(o, 4, b + 16, q + 12, q + 16, q + qhl);
	return 0;
}

/* IPv6: RFC 4443 section 3.2 (the code is ignored by the receiver), RFC 8201
 * section 4 (an MTU below 1280 is discarded). The quote is our ESP packet,
 * or the first fragment of one (RFC 8200 4.5: a bridge SA's outer fragments,
 * lib/dp/gw_frag_out.c), whose Fragment header is followed by the ESP header. */
static int
parse6(const uint8_t *b, uint32_t len, struct gw_icmp_ptb *o, enum gw_pmtu_event *why)
{
	uint32_t il = rd16(b + 4), qhl = GW_IPV6_HDR_LEN;
	const uint8_t *ic = b + GW_IPV6_HDR_LEN, *q = ic + GW_ICMP_ERR_HDR_LEN;

	if (GW_IPV6_HDR_LEN + il > len || b[6] != GW_IPPROTO_ICMPV6 ||
	    il < GW_ICMP_ERR_HDR_LEN + GW_IPV6_HDR_LEN + GW_ESP_HDR_LEN ||
	    rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)b, ic) != 0 ||
	    ic[0] != GW_ICMP6_PACKET_TOO_BIG || gw_ip_version(q) != 6)
		return -1;
	if (q[6] == GW_IPPROTO_FRAGMENT) {      /* a first fragment: offset 0, ESP next */
		qhl += GW_IPV6_FRAG_HDR_LEN;
		if (il < GW_ICMP_ERR_HDR_LEN + qhl + GW_ESP_HDR_LEN ||
		    q[GW_IPV6_HDR_LEN] != GW_IPPROTO_ESP ||
		    (rd16(q + GW_IPV6_HDR_LEN + 2) & GW_IPV6_FRAG_OFFSET_MASK) != 0)
			return -1;
	} else if (q[6] != GW_IPPROTO_ESP) {
		return -1;
	}
	o->mtu = rd32(ic + 4);
	o->quoted_len = GW_IPV6_HDR_LEN + rd16(q + 4);
	if (o->quoted_len < qhl + GW_ESP_HDR_LEN)
		return -1;
	if (o->mtu < GW_IPV6_MIN_MTU || o->mtu >= o->quoted_len) {
		*why = GW_PMTU_REFUSED_MTU;
		return -1;
	}
	set_quoted(o, 6, b + 24, q + 8, q + 24, q + qhl);
	return 0;
}

int
gw_icmp_ptb_parse(const uint8_t *ip, uint32_t len, struct gw_icmp_ptb *out,
		  enum gw_pmtu_event *why)
{
	*why = GW_PMTU_REFUSED_MALFORMED;
	memset(out, 0, sizeof(*out));
	if (len >= GW_IPV4_HDR_LEN && gw_ip_version(ip) == 4)
		return parse4(ip, len, out, why);
	if (len >= GW_IPV6_HDR_LEN && gw_ip_version(ip) == 6)
		return parse6(ip, len, out, why);
	return -1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void
log_path(const char *what, const struct gw_addr *local, const struct gw_addr *remote,
	 unsigned mtu, unsigned n_sa)
{
	char a[64], b[64];

	LOG(INFO, "path %s -> %s: %s MTU %u, %u out SA(s)\n", gw_addr_str(local, a, sizeof(a)),
	    gw_addr_str(remote, b, sizeof(b)), what, mtu, n_sa);
}

/* A well-formed message e received on outer port `port`: is it about a packet
 * we sent lately, and does it lower the path's MTU? */
static enum gw_pmtu_event
pmtu_take(struct gw_ctrl *c, unsigned port, const struct gw_icmp_ptb *e)
{
	struct gw_ctx *ctx = c->ctx;
	const struct gw_port *p = &ctx->ports[port];
	const struct gw_sa *sa;
	uint32_t mtu = e->mtu, cur;

	if (!gw_port_owns(p, e->to.family, e->to.addr))
		return GW_PMTU_REFUSED_MALFORMED;       /* an ICMP error is never multicast */
	sa = gw_pmtu_out_sa(ctx, e->spi, &e->local, &e->remote);
	if (sa == NULL || !gw_port_owns(p, e->local.family, e->local.addr))
		return GW_PMTU_REFUSED_NO_SA;
	if (!gw_pmtu_seq_recent(esp_sa_seq(sa->esp), e->seq, GW_PMTU_SEQ_RECENT))
		return GW_PMTU_REFUSED_SEQ;
	if (e->local.family == 4 && mtu < GW_IPV4_MIN_PMTU)
		mtu = GW_IPV4_MIN_PMTU;
	cur = gw_pmtu_get(&ctx->pmtu, &e->local, &e->remote);
	if (cur == 0 || cur > p->mtu)
		cur = p->mtu;
	if (mtu >= cur)
		return GW_PMTU_NOT_LOWER;               /* RFC 1191 3: never raised by an ICMP */
	gw_pmtu_set(&ctx->pmtu, &e->local, &e->remote, (uint16_t)mtu, now_ns());
	log_path("lowered to", &e->local, &e->remote, mtu,
		 gw_pmtu_apply(ctx, &e->local, &e->remote));
	return GW_PMTU_LOWERED;
}

void
ctrl_pmtu_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	struct gw_icmp_ptb e;
	enum gw_pmtu_event ev = GW_PMTU_REFUSED_MALFORMED;

	if (len > sizeof(struct rte_ether_hdr) &&
	    gw_icmp_ptb_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *,
						      sizeof(struct rte_ether_hdr)),
			      len - sizeof(struct rte_ether_hdr), &e, &ev) == 0)
		ev = pmtu_take(c, port, &e);
	c->st->pmtu[ev]++;
	rte_pktmbuf_free(m);
}

void
ctrl_pmtu_tick(struct gw_ctrl *c)
{
	struct gw_pmtu_path gone[PATH_BATCH];
	uint64_t now = now_ns();
	unsigned n;

	do {
		n = gw_pmtu_expire(&c->ctx->pmtu, now, gone, PATH_BATCH);
		for (unsigned i = 0; i < n; i++) {
			int op = gw_outer_port_of(c->ctx, &gone[i].local);

			c->st->pmtu[GW_PMTU_RAISED]++;
			log_path("back to the port's", &gone[i].local, &gone[i].remote,
				 op >= 0 ? c->ctx->ports[op].mtu : 0,
				 gw_pmtu_apply(c->ctx, &gone[i].local, &gone[i].remote));
		}
	} while (n == PATH_BATCH);
}
