/* SPDX-License-Identifier: BSD-3-Clause
 * Middlebox mode on the workers (docs/middlebox.md): a bump in the wire
 * between the two ports of a pair. Each burst from one port goes out of the
 * other unchanged, frame by frame, or is dropped:
 *  - ARP, IPv6 neighbour discovery (RFC 4861: hop limit 255) and MLD (RFC
 *    3810: hop limit 1) pass: a bridge lets the two sides find each other;
 *  - HIP (IP protocol 139, RFC 7401) goes to the control lcore, whose tracker
 *    (lib/mbox) forwards it or not; a fragment of it is dropped (mbox_hip);
 *  - UDP from or to port 10500 (RFC 5770, RFC 3948): behind the 32-bit zero
 *    non-ESP marker HIP, to the control lcore as HIP; else ESP, whose SPI
 *    starts the payload, looked up as plain ESP by (destination, SPI), the
 *    ports no part of the key (a NAT may change them); a NAT-keepalive (one
 *    byte 0xFF, RFC 3948 2.3) passes when its source and destination are
 *    both locators of known associations (gw_mbox_flow_locator_known), else
 *    it is dropped (mbox_keepalive); a runt or a UDP
 *    length that is not the datagram's udp_bad. Its later fragments go as
 *    ESP's do;
 *  - ESP (RFC 4303) passes when its (outer destination, SPI) is a flow of the
 *    flow table (RFC 4303 2.1: the SPI with the destination names the SA):
 *    one bulk lookup per burst; else mbox_no_flow. A first fragment goes by
 *    its SPI and, when it passes, leaves its (source, destination,
 *    Identification) in a small table of this worker's for MBOX_FRAG_TIMEOUT_MS;
 *    a later fragment passes only when it finds its first there (mbox_frag);
 *  - an ICMP / ICMPv6 error (destination unreachable, fragmentation needed,
 *    Packet Too Big, time exceeded: RFC 792, RFC 4443) sent to the source of
 *    the ESP packet it quotes passes when that packet's flow is known (path
 *    MTU discovery keeps working through the box);
 *  - anything else passes only between two [middlebox] bypass prefixes, else
 *    it is dropped (policy). Default deny.
 * IPv6 extension headers are walked (gw_ip6ext_walk) to find the upper layer,
 * and left as they are. Per worker: the flow counters (its own array of the
 * flow table) and the fragment table; no locks, no allocation per packet.
 * The fragment table assumes what RSS does: the fragments of one datagram
 * (one source and destination) arrive at one queue.
 */
#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "gw_worker_internal.h"
#include "gw_etherip.h"
#include "gw_mac.h"                 /* gw_mac_now_ns: the tables' clock */
#include "gw_mbox.h"

/* A worker's table of first fragments that passed: MBOX_FRAG_SETS sets of
 * MBOX_FRAG_WAYS entries, an entry free once its time is up. */
#define MBOX_FRAG_SETS        256
#define MBOX_FRAG_WAYS        4
#define MBOX_FRAG_TIMEOUT_MS  2000   /* ms a first fragment lets its later ones pass */
#define IP6_ADDR_BYTES        16

struct mbox_frag_ent {
	uint64_t until_tsc;          /* TSC the entry lasts until; 0: free */
	uint32_t id;                 /* IPv4 Identification (16 bits), IPv6 Fragment header's */
	uint8_t family;
	uint8_t src[IP6_ADDR_BYTES], dst[IP6_ADDR_BYTES];   /* IPv4 in the first 4 bytes */
};

struct mbox_frags {
	uint64_t ttl_tsc;            /* MBOX_FRAG_TIMEOUT_MS in TSC cycles */
	struct mbox_frag_ent e[MBOX_FRAG_SETS][MBOX_FRAG_WAYS];
};

/* What a frame of the pair is (classify). */
enum mbox_class {
	MC_DROP,                     /* dropped for why */
	MC_FWD,                      /* forwarded: ARP / ND / MLD (bypass false) or bypass */
	MC_ESP,                      /* ESP, whole or a first fragment (first_frag): key */
	MC_ICMP,                     /* an ICMP error quoting ESP: key the quoted flow */
	MC_LATER,                    /* a later ESP fragment: family, l3, frag_id */
	MC_HIP,                      /* HIP (or HIP over UDP): to the tracker */
	MC_KEEPALIVE,                /* a NAT-keepalive: both addresses known locators? */
};

struct mbox_pkt {
	uint8_t cls;                 /* enum mbox_class */
	uint8_t why;                 /* MC_DROP: enum gw_drop */
	uint8_t family;              /* 4 or 6 (IP frames) */
	uint8_t l3_off;              /* bytes before the IP header */
	bool first_frag;             /* MC_ESP: a first fragment */
	bool bypass;                 /* MC_FWD, MC_ICMP: source and destination in bypass */
	bool udp;                    /* MC_ESP: ESP in UDP (RFC 3948) */
	uint32_t tl;                 /* bytes of IP packet */
	uint32_t frag_id;            /* fragments: the Identification */
	const uint8_t *l3;           /* the IP header in the frame */
	struct gw_mbox_flow_key key;
};

static inline uint16_t
be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
verdict(struct mbox_pkt *p, enum mbox_class c, enum gw_drop why)
{
	p->cls = c;
	p->why = why;
}

/* The verdict, and back from the classifying function. */
#define DECIDE(p, c, why) do { verdict(p, c, why); return; } while (0)
#define DECIDE_OTHER(mb, p) do { other(mb, p); return; } while (0)

/* Source and destination of the IP header at l3 both in a bypass prefix. */
static inline bool
bypass_ok(const struct gw_conf_mbox *mb, uint8_t family, const uint8_t *l3)
{
	uint32_t so = family == 4 ? 12 : 8, dof = family == 4 ? 16 : 24;

	return mb != NULL && mb->n_bypass > 0 &&
	       gw_prefixes_match(mb->bypass, mb->n_bypass, family, l3 + so) &&
	       gw_prefixes_match(mb->bypass, mb->n_bypass, family, l3 + dof);
}

/* Traffic that is neither HIP nor ESP: bypass, or policy. */
static inline void
other(const struct gw_conf_mbox *mb, struct mbox_pkt *p)
{
	p->bypass = bypass_ok(mb, p->family, p->l3);
	verdict(p, p->bypass ? MC_FWD : MC_DROP, GW_DROP_POLICY);
}

/* UDP ports sport, dport (host order): the HIP NAT traversal port on either
 * side. A NATed host sends from 10500 (or the NAT's port) to 10500; its peer
 * answers from 10500 to the port the NAT chose (RFC 5770, RFC 3948). */
static inline bool
nat_port(uint16_t sport, uint16_t dport)
{
	return sport == GW_HIP_UDP_PORT || dport == GW_HIP_UDP_PORT;
}

/* The quoted upper layer at u (n bytes quoted of it) of protocol proto: ESP,
 * or ESP in UDP (a 10500 port, then a non-zero SPI). Its SPI into *spi,
 * false when it is neither or the quote ends before the SPI (RFC 792 asks
 * for 8 bytes after the IP header only: the UDP header; routers quote more,
 * RFC 1812 4.3.2.3, as ICMPv6 does, RFC 4443 3.1). */
static bool
quote_spi(uint8_t proto, const uint8_t *u, uint32_t n, uint32_t *spi)
{
	if (proto == GW_IPPROTO_ESP && n >= GW_ESP_HDR_LEN) {
		*spi = be32_at(u);
		return true;
	}
	if (proto != GW_IPPROTO_UDP || n < GW_UDP_HDR_LEN + 4 || !nat_port(be16_at(u), be16_at(u + 2)))
		return false;
	*spi = be32_at(u + GW_UDP_HDR_LEN);
	return *spi != 0;
}

/* The ICMP error at icmp (n bytes of it within the packet) quotes the IPv4
 * header of an ESP packet, or of ESP in UDP (not a later fragment), and its SPI, sent from the
 * error's destination err_dst (4 bytes): the quoted flow into *k. */
static bool
quote4(const uint8_t *icmp, uint32_t n, const uint8_t *err_dst, struct gw_mbox_flow_key *k)
{
	const uint8_t *q = icmp + GW_ICMP_ERR_HDR_LEN;
	uint32_t qhl, spi;

	if (n < GW_ICMP_ERR_HDR_LEN + GW_IPV4_HDR_LEN + GW_ESP_HDR_LEN ||
	    (icmp[0] != GW_ICMP_DEST_UNREACH && icmp[0] != GW_ICMP_TIME_EXCEEDED) ||
	    gw_ip_version(q) != 4)
		return false;
	qhl = gw_ipv4_hdr_bytes(q);
	if (qhl < GW_IPV4_HDR_LEN || n < GW_ICMP_ERR_HDR_LEN + qhl ||
	    !quote_spi(q[offsetof(struct rte_ipv4_hdr, next_proto_id)], q + qhl,
		       n - GW_ICMP_ERR_HDR_LEN - qhl, &spi) ||
	    (be16_at(q + offsetof(struct rte_ipv4_hdr, fragment_offset)) & GW_IPV4_OFFSET_MASK) ||
	    memcmp(q + offsetof(struct rte_ipv4_hdr, src_addr), err_dst, 4) != 0)
		return false;
	gw_mbox_flow_key_set(k, 4, q + offsetof(struct rte_ipv4_hdr, dst_addr), spi);
	return true;
}

/* The same for an ICMPv6 error (RFC 4443 3.1-3.3) quoting an IPv6 ESP packet,
 * its ESP header right after the fixed header or after a first fragment's
 * Fragment header. */
static bool
quote6(const uint8_t *icmp, uint32_t n, const uint8_t *err_dst, struct gw_mbox_flow_key *k)
{
	const uint8_t *q = icmp + GW_ICMP_ERR_HDR_LEN;
	uint32_t so = GW_IPV6_HDR_LEN, spi;
	uint8_t proto;

	if (n < GW_ICMP_ERR_HDR_LEN + GW_IPV6_HDR_LEN + GW_ESP_HDR_LEN ||
	    (icmp[0] != GW_ICMP6_DEST_UNREACH && icmp[0] != GW_ICMP6_PACKET_TOO_BIG &&
	     icmp[0] != GW_ICMP6_TIME_EXCEEDED) || gw_ip_version(q) != 6)
		return false;
	proto = q[offsetof(struct rte_ipv6_hdr, proto)];
	if (proto == GW_IPPROTO_FRAGMENT) {
		if (n < GW_ICMP_ERR_HDR_LEN + GW_IPV6_HDR_LEN + GW_IPV6_FRAG_HDR_LEN ||
		    (be16_at(q + so + 2) & GW_IPV6_FRAG_OFFSET_MASK))
			return false;
		proto = q[so];
		so += GW_IPV6_FRAG_HDR_LEN;
	}
	if (!quote_spi(proto, q + so, n - GW_ICMP_ERR_HDR_LEN - so, &spi) ||
	    memcmp(q + offsetof(struct rte_ipv6_hdr, src_addr), err_dst, IP6_ADDR_BYTES) != 0)
		return false;
	gw_mbox_flow_key_set(k, 6, q + offsetof(struct rte_ipv6_hdr, dst_addr), spi);
	return true;
}

/* A UDP datagram at u, n bytes of it in this packet (RFC 768), or a
 * fragment of one (RFC 791, RFC 8200 4.5): `later` a fragment past the
 * first (no UDP header), `more` a first fragment (more follow); id its
 * Identification. Between two bypass prefixes a later fragment is bypass,
 * as the datagram's other traffic. */
static void
classify_udp(const struct gw_conf_mbox *mb, const uint8_t *u, uint32_t n, bool later, bool more,
	     uint32_t id, struct mbox_pkt *p)
{
	uint32_t spi;

	p->frag_id = id;
	if (later) {
		if (bypass_ok(mb, p->family, p->l3))
			DECIDE_OTHER(mb, p);
		DECIDE(p, MC_LATER, GW_DROP_NONE);
	}
	if (n < GW_UDP_HDR_LEN)
		DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
	if (!nat_port(be16_at(u), be16_at(u + 2)))
		DECIDE_OTHER(mb, p);
	/* a whole datagram's UDP length is the IP payload; a first
	 * fragment's covers more than it */
	if (more ? be16_at(u + 4) <= n : be16_at(u + 4) != n)
		DECIDE(p, MC_DROP, GW_DROP_UDP_BAD);
	n -= GW_UDP_HDR_LEN;
	if (n == GW_NAT_KEEPALIVE_LEN && u[GW_UDP_HDR_LEN] == GW_NAT_KEEPALIVE_BYTE && !more)
		DECIDE(p, MC_KEEPALIVE, GW_DROP_NONE);
	if (n < GW_UDP_NON_ESP_MARKER_LEN)
		DECIDE(p, MC_DROP, GW_DROP_UDP_BAD);
	spi = be32_at(u + GW_UDP_HDR_LEN);
	if (spi == 0)                  /* the non-ESP marker: HIP (RFC 5770) */
		DECIDE(p, more ? MC_DROP : MC_HIP, more ? GW_DROP_MBOX_HIP : GW_DROP_NONE);
	if (n < GW_ESP_HDR_LEN)
		DECIDE(p, MC_DROP, GW_DROP_UDP_BAD);
	gw_mbox_flow_key_set(&p->key, p->family, gw_ip_dst((uint8_t *)(uintptr_t)p->l3, p->family),
			     spi);
	p->first_frag = more;
	p->udp = true;
	verdict(p, MC_ESP, GW_DROP_NONE);
}

/* An IPv4 packet of len bytes at p->l3 (after Ethernet and tags). */
static void
classify4(const struct gw_conf_mbox *mb, uint32_t len, struct mbox_pkt *p)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p->l3;
	uint32_t hl, tl = gw_ipv4_check(ip, len);
	uint16_t fo;

	p->family = 4;
	if (tl == 0)
		DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
	p->tl = tl;
	hl = rte_ipv4_hdr_len(ip);
	fo = rte_be_to_cpu_16(ip->fragment_offset);
	switch (ip->next_proto_id) {
	case GW_IPPROTO_ESP:
		if (fo & GW_IPV4_OFFSET_MASK) {
			p->frag_id = rte_be_to_cpu_16(ip->packet_id);
			DECIDE(p, MC_LATER, GW_DROP_NONE);
		}
		if (tl < hl + GW_ESP_HDR_LEN)
			DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
		gw_mbox_flow_key_set(&p->key, 4, (const uint8_t *)&ip->dst_addr, be32_at(p->l3 + hl));
		p->first_frag = (fo & GW_IPV4_MF) != 0;
		p->frag_id = rte_be_to_cpu_16(ip->packet_id);
		DECIDE(p, MC_ESP, GW_DROP_NONE);
	case GW_IPPROTO_HIP:
		if (fo & (GW_IPV4_OFFSET_MASK | GW_IPV4_MF))
			DECIDE(p, MC_DROP, GW_DROP_MBOX_HIP);
		DECIDE(p, MC_HIP, GW_DROP_NONE);
	case GW_IPPROTO_UDP:
		classify_udp(mb, p->l3 + hl, tl - hl, (fo & GW_IPV4_OFFSET_MASK) != 0,
			     (fo & GW_IPV4_MF) != 0, rte_be_to_cpu_16(ip->packet_id), p);
		return;
	case GW_IPPROTO_ICMP:
		if (!(fo & (GW_IPV4_OFFSET_MASK | GW_IPV4_MF)) &&
		    quote4(p->l3 + hl, tl - hl, (const uint8_t *)&ip->dst_addr, &p->key)) {
			p->bypass = bypass_ok(mb, 4, p->l3);
			DECIDE(p, MC_ICMP, GW_DROP_NONE);
		}
		break;
	default:
		break;
	}
	other(mb, p);
}

/* An IPv6 Fragment header at fh (its packet tl bytes, fh at byte ulo). */
static void
classify6_frag(const struct gw_conf_mbox *mb, const uint8_t *fh, uint32_t ulo, uint32_t tl,
	       struct mbox_pkt *p)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p->l3;

	if (tl < ulo + GW_IPV6_FRAG_HDR_LEN)
		DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
	p->frag_id = be32_at(fh + 4);
	if (fh[0] == GW_IPPROTO_HIP)
		DECIDE(p, MC_DROP, GW_DROP_MBOX_HIP);
	if (fh[0] == GW_IPPROTO_UDP) {
		classify_udp(mb, fh + GW_IPV6_FRAG_HDR_LEN, tl - ulo - GW_IPV6_FRAG_HDR_LEN,
			     (be16_at(fh + 2) & GW_IPV6_FRAG_OFFSET_MASK) != 0,
			     (be16_at(fh + 2) & GW_IPV6_FRAG_M) != 0, p->frag_id, p);
		return;
	}
	if (fh[0] != GW_IPPROTO_ESP)
		DECIDE_OTHER(mb, p);
	if (be16_at(fh + 2) & GW_IPV6_FRAG_OFFSET_MASK)
		DECIDE(p, MC_LATER, GW_DROP_NONE);
	if (tl < ulo + GW_IPV6_FRAG_HDR_LEN + GW_ESP_HDR_LEN)
		DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
	gw_mbox_flow_key_set(&p->key, 6, ip->dst_addr, be32_at(fh + GW_IPV6_FRAG_HDR_LEN));
	p->first_frag = true;
	verdict(p, MC_ESP, GW_DROP_NONE);
}

/* An IPv6 ICMPv6 message at icmp (n bytes), hop limit hlim. */
static void
classify6_icmp(const struct gw_conf_mbox *mb, const uint8_t *icmp, uint32_t n, struct mbox_pkt *p)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p->l3;
	uint8_t t = n > 0 ? icmp[0] : 0;

	if ((t >= GW_ICMP6_ROUTER_SOLICIT && t <= GW_ICMP6_REDIRECT && ip->hop_limits == GW_ND_HOP_LIMIT) ||
	    ((t == GW_ICMP6_MLD_QUERY || t == GW_ICMP6_MLD_REPORT || t == GW_ICMP6_MLD_DONE ||
	      t == GW_ICMP6_MLD2_REPORT) && ip->hop_limits == GW_MLD_HOP_LIMIT))
		DECIDE(p, MC_FWD, GW_DROP_NONE);
	if (n > 0 && quote6(icmp, n, ip->dst_addr, &p->key)) {
		p->bypass = bypass_ok(mb, 6, p->l3);
		DECIDE(p, MC_ICMP, GW_DROP_NONE);
	}
	other(mb, p);
}

/* An IPv6 packet of len bytes at p->l3: its extension headers walked to the
 * upper layer (or a real fragment's Fragment header). */
static void
classify6(const struct gw_conf_mbox *mb, uint32_t len, struct mbox_pkt *p)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p->l3;
	uint32_t tl = gw_ipv6_check(ip, len), ulo = GW_IPV6_HDR_LEN;
	uint8_t nh;

	p->family = 6;
	if (tl == 0)
		DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
	p->tl = tl;
	nh = ip->proto;
	if (unlikely(gw_ip6ext_is(nh))) {
		struct gw_ip6ext x;
		enum gw_drop r = gw_ip6ext_walk(p->l3, tl, &x);

		if (r != GW_DROP_NONE)
			DECIDE(p, MC_DROP, r);
		nh = x.proto;
		ulo += x.len;
	}
	switch (nh) {
	case GW_IPPROTO_FRAGMENT:
		classify6_frag(mb, p->l3 + ulo, ulo, tl, p);
		return;
	case GW_IPPROTO_ESP:
		if (tl < ulo + GW_ESP_HDR_LEN)
			DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
		gw_mbox_flow_key_set(&p->key, 6, ip->dst_addr, be32_at(p->l3 + ulo));
		DECIDE(p, MC_ESP, GW_DROP_NONE);
	case GW_IPPROTO_HIP:
		DECIDE(p, MC_HIP, GW_DROP_NONE);
	case GW_IPPROTO_UDP:
		classify_udp(mb, p->l3 + ulo, tl - ulo, false, false, 0, p);
		return;
	case GW_IPPROTO_ICMPV6:
		classify6_icmp(mb, p->l3 + ulo, tl - ulo, p);
		return;
	default:
		DECIDE_OTHER(mb, p);
	}
}

/* The frame f of len bytes into *p; an IP packet longer than mtu (the other
 * port's, bytes) is dropped as mtu. mb: the bypass prefixes (NULL: none). */
static void
classify(const struct gw_conf_mbox *mb, uint16_t mtu, const uint8_t *f, uint32_t len,
	 struct mbox_pkt *p)
{
	uint32_t off = GW_ETH_HDR_BYTES;
	uint16_t et;

	p->first_frag = p->bypass = p->udp = false;
	p->tl = 0;
	if (len < GW_ETH_HDR_BYTES)
		DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
	et = be16_at(f + GW_ETH_TYPE_OFF);
	for (unsigned t = 0; t < GW_ETH_MAX_VLAN_TAGS &&
	     (et == GW_ETHERTYPE_VLAN || et == GW_ETHERTYPE_QINQ); t++) {
		if (len < off + GW_VLAN_TAG_BYTES)
			DECIDE(p, MC_DROP, GW_DROP_MALFORMED);
		et = be16_at(f + off + 2);
		off += GW_VLAN_TAG_BYTES;
	}
	p->l3_off = (uint8_t)off;
	p->l3 = f + off;
	if (et == RTE_ETHER_TYPE_ARP)
		DECIDE(p, MC_FWD, GW_DROP_NONE);
	if (et == RTE_ETHER_TYPE_IPV4)
		classify4(mb, len - off, p);
	else if (et == RTE_ETHER_TYPE_IPV6)
		classify6(mb, len - off, p);
	else
		DECIDE(p, MC_DROP, GW_DROP_POLICY);
	if (p->cls != MC_DROP && p->tl > mtu)
		verdict(p, MC_DROP, GW_DROP_MTU);
}

bool
gw_mbox_esp_key(const uint8_t *f, uint32_t len, struct gw_mbox_flow_key *k)
{
	struct mbox_pkt p;

	classify(NULL, UINT16_MAX, f, len, &p);
	if (p.cls != MC_ESP)
		return false;
	*k = p.key;
	return true;
}

/* ---------- the fragment table ---------- */

static inline uint32_t
frag_set(uint8_t family, const uint8_t *l3, uint32_t id)
{
	uint32_t al = family == 4 ? 4 : IP6_ADDR_BYTES, h = rte_hash_crc_4byte(id, family);
	const uint8_t *s = gw_ip_src((uint8_t *)(uintptr_t)l3, family);
	const uint8_t *d = gw_ip_dst((uint8_t *)(uintptr_t)l3, family);

	for (uint32_t i = 0; i < al; i += 4) {
		uint32_t a, b;

		memcpy(&a, s + i, 4);
		memcpy(&b, d + i, 4);
		h = rte_hash_crc_4byte(b, rte_hash_crc_4byte(a, h));
	}
	return h & (MBOX_FRAG_SETS - 1);
}

static inline bool
frag_same(const struct mbox_frag_ent *e, uint8_t family, const uint8_t *l3, uint32_t id)
{
	uint32_t al = family == 4 ? 4 : IP6_ADDR_BYTES;

	return e->family == family && e->id == id &&
	       memcmp(e->src, gw_ip_src((uint8_t *)(uintptr_t)l3, family), al) == 0 &&
	       memcmp(e->dst, gw_ip_dst((uint8_t *)(uintptr_t)l3, family), al) == 0;
}

/* A first fragment passed at tsc: its later ones may follow (the same entry
 * refreshed, else a free or timed-out way, else the oldest is replaced). */
static void
frag_add(struct mbox_frags *t, const struct mbox_pkt *p, uint64_t tsc)
{
	struct mbox_frag_ent *set = t->e[frag_set(p->family, p->l3, p->frag_id)], *e = &set[0];
	uint32_t al = p->family == 4 ? 4 : IP6_ADDR_BYTES;

	for (unsigned i = 0; i < MBOX_FRAG_WAYS; i++) {
		if (frag_same(&set[i], p->family, p->l3, p->frag_id)) {
			e = &set[i];
			break;
		}
		if (set[i].until_tsc < e->until_tsc)
			e = &set[i];
	}
	e->until_tsc = tsc + t->ttl_tsc;
	e->family = p->family;
	e->id = p->frag_id;
	memset(e->src, 0, sizeof(e->src));
	memset(e->dst, 0, sizeof(e->dst));
	memcpy(e->src, gw_ip_src((uint8_t *)(uintptr_t)p->l3, p->family), al);
	memcpy(e->dst, gw_ip_dst((uint8_t *)(uintptr_t)p->l3, p->family), al);
}

static bool
frag_passed(const struct mbox_frags *t, const struct mbox_pkt *p, uint64_t tsc)
{
	const struct mbox_frag_ent *set = t->e[frag_set(p->family, p->l3, p->frag_id)];

	for (unsigned i = 0; i < MBOX_FRAG_WAYS; i++)
		if (set[i].until_tsc > tsc && frag_same(&set[i], p->family, p->l3, p->frag_id))
			return true;
	return false;
}

int
wk_mbox_init(struct worker *w)
{
	if (w->ctx->mbox_flows == NULL)
		return 0;
	w->mbox_wk = gw_mbox_flows_wk(w->ctx->mbox_flows, w->idx);
	w->mbox_frag = rte_zmalloc_socket("hipgw_mbox_frag", sizeof(*w->mbox_frag),
					  RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (w->mbox_wk == NULL || w->mbox_frag == NULL) {
		rte_free(w->mbox_frag);
		w->mbox_frag = NULL;
		return -1;
	}
	w->mbox_frag->ttl_tsc = rte_get_tsc_hz() / 1000 * MBOX_FRAG_TIMEOUT_MS;
	return 0;
}

void
wk_mbox_fini(struct worker *w)
{
	rte_free(w->mbox_frag);
	w->mbox_frag = NULL;
}

void
wk_mbox_reset(struct worker *w)
{
	if (w->mbox_frag != NULL)
		memset(w->mbox_frag->e, 0, sizeof(w->mbox_frag->e));
}

/* ---------- the burst ---------- */

/* Key `k` among a burst's distinct keys u[0..*nu-1]: equal to the last one (a
 * burst's packets come in runs of one flow) takes its index, else added with
 * its hash into hash[] (computed here, while the key is in registers). */
static inline uint8_t
key_index(struct gw_mbox_flow_key *u, uint32_t *hash, unsigned *nu,
	  const struct gw_mbox_flow_key *k)
{
	if (*nu > 0) {
		uint64_t a[3], b[3];

		memcpy(a, k, sizeof(a));
		memcpy(b, &u[*nu - 1], sizeof(b));
		if (((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2])) == 0)
			return (uint8_t)(*nu - 1);
	}
	u[*nu] = *k;
	hash[*nu] = gw_mbox_flow_hash(k);
	return (uint8_t)(*nu)++;
}

/* The frames of a burst that survived classify, and what pass 2 needs. */
struct mbox_run {
	struct rte_mbuf *m[GW_BURST_PACKETS];
	struct mbox_pkt p[GW_BURST_PACKETS];
	uint32_t fl[GW_BURST_PACKETS];       /* MC_ESP, MC_ICMP: its flow's slot, or NONE */
	uint8_t ki[GW_BURST_PACKETS];        /* index into keys[]; UINT8_MAX: stamped */
	struct gw_mbox_flow_key keys[GW_BURST_PACKETS];
	uint32_t hash[GW_BURST_PACKETS];     /* keys[]' gw_mbox_flow_hash */
	unsigned n, nk;
};

/* Frame k of run r out of port `out`, or dropped, as classify and the flow
 * lookup decided; the flow's counters are left to mbox_count. */
static inline void
mbox_send(struct worker *w, struct mbox_run *r, unsigned k, unsigned out, uint64_t tsc)
{
	struct mbox_pkt *p = &r->p[k];
	struct rte_mbuf *m = r->m[k];

	switch (p->cls) {
	case MC_FWD:
		if (p->bypass)
			w->st->mbox_bypass++;
		else
			w->st->mbox_l2++;
		break;
	case MC_ESP:
		if (r->fl[k] == GW_MBOX_FLOW_NONE) {
			drop(w, m, GW_DROP_MBOX_NO_FLOW);
			return;
		}
		if (p->first_frag)
			frag_add(w->mbox_frag, p, tsc);
		w->st->mbox_esp++;
		w->st->mbox_udp_esp += p->udp;
		break;
	case MC_ICMP:
		if (r->fl[k] != GW_MBOX_FLOW_NONE) {
			w->st->mbox_icmp++;
		} else if (p->bypass) {
			w->st->mbox_bypass++;
		} else {
			drop(w, m, GW_DROP_POLICY);
			return;
		}
		break;
	case MC_KEEPALIVE:
		if (!gw_mbox_flow_locator_known(w->ctx->mbox_flows, p->family,
						gw_ip_src((uint8_t *)(uintptr_t)p->l3, p->family)) ||
		    !gw_mbox_flow_locator_known(w->ctx->mbox_flows, p->family,
						gw_ip_dst((uint8_t *)(uintptr_t)p->l3, p->family))) {
			drop(w, m, GW_DROP_MBOX_KEEPALIVE);
			return;
		}
		w->st->mbox_keepalive++;
		break;
	case MC_LATER:
		if (!frag_passed(w->mbox_frag, p, tsc)) {
			drop(w, m, GW_DROP_MBOX_FRAG);
			return;
		}
		w->st->mbox_frags++;
		break;
	default:
		drop(w, m, GW_DROP_MALFORMED);
		return;
	}
	tx_enqueue(w, out, m);
}

/* Pass 1 for frame m: classified into run r (or dropped, or punted). */
static inline void
mbox_take(struct worker *w, unsigned pidx, uint16_t mtu, struct rte_mbuf *m, struct mbox_run *r,
	  const bool slow)
{
	struct mbox_pkt *p = &r->p[r->n];

	if (unlikely(m->nb_segs != 1) && (m = wk_flatten(w, m)) == NULL)
		return;
	classify(&w->ctx->cfg->mbox, mtu, rte_pktmbuf_mtod(m, const uint8_t *),
		 rte_pktmbuf_data_len(m), p);
	switch (p->cls) {
	case MC_DROP:
		drop(w, m, p->why);
		return;
	case MC_HIP:
		w->st->mbox_hip_punted++;
		gw_meta(m)->l3_off = p->l3_off;
		punt(w, m, GW_PUNT_MBOX_HIP, pidx, 0);
		return;
	case MC_ESP:
	case MC_ICMP:
		if (slow && p->cls == MC_ESP && gw_meta(m)->lk.stamp == GW_STAMP_MBOX) {
			/* the control lcore looked it up */
			const struct gw_mbox_flow *fl = gw_meta_sa(gw_meta(m));

			r->fl[r->n] = fl != NULL ? fl->idx : GW_MBOX_FLOW_NONE;
			r->ki[r->n] = UINT8_MAX;
		} else {
			r->ki[r->n] = key_index(r->keys, r->hash, &r->nk, &p->key);
		}
		break;
	default:
		break;
	}
	r->m[r->n++] = m;
}

static __rte_always_inline void
mbox_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n, const bool slow)
{
	struct gw_ctx *ctx = w->ctx;
	unsigned out = ctx->mbox_peer[pidx] - 1u;
	uint32_t found[GW_BURST_PACKETS];
	struct mbox_run r;
	uint64_t tsc, now_ns;

	r.n = r.nk = 0;
	for (uint16_t i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (uint16_t i = 0; i < n; i++) {
		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		mbox_take(w, pidx, ctx->ports[out].mtu, pkts[i], &r, slow);
	}
	if (r.nk > 0) {
		/* 1 .. GW_BURST_PACKETS keys: never -EINVAL */
		gw_mbox_flow_lookup_bulk(ctx->mbox_flows, r.keys, r.hash, r.nk, found);
		for (unsigned k = 0; k < r.nk; k++)
			if (found[k] != GW_MBOX_FLOW_NONE)   /* its counters' line */
				rte_prefetch0(&w->mbox_wk[found[k]]);
	}
	for (unsigned k = 0; k < r.n; k++)
		if ((r.p[k].cls == MC_ESP || r.p[k].cls == MC_ICMP) && r.ki[k] != UINT8_MAX)
			r.fl[k] = found[r.ki[k]];
	tsc = rte_rdtsc();
	for (unsigned k = 0; k < r.n; k++)
		mbox_send(w, &r, k, out, tsc);
	/* the burst out first: its work hides the counters' lines prefetched
	 * above; then the counts, from r alone (the mbufs are gone) */
	wk_tx_flush(w, out);
	now_ns = gw_mac_now_ns();
	for (unsigned k = 0; k < r.n; k++)
		if (r.p[k].cls == MC_ESP && r.fl[k] != GW_MBOX_FLOW_NONE)
			gw_mbox_flow_count(w->mbox_wk, r.fl[k], r.p[k].tl, now_ns);
}

_Static_assert(GW_BURST_PACKETS <= RTE_HASH_LOOKUP_BULK_MAX, "a burst's keys in one bulk lookup");
_Static_assert(GW_BURST_PACKETS < UINT8_MAX, "a key index and the stamped mark in a uint8_t");

void
wk_mbox_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	mbox_burst(w, pidx, pkts, n, false);
}

void
wk_mbox_burst_slow(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	mbox_burst(w, pidx, pkts, n, true);
}
