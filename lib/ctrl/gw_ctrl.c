/* SPDX-License-Identifier: BSD-3-Clause
 * Control lcore dispatch and the queue of packets waiting for a next hop.
 */
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ctrl_internal.h"
#include "gw_ip6ext.h"
#include "gw_meta.h"
#include "gw_neigh.h"
#include "hipgw_wire.h"
#include <rte_ip.h>

void
ctrl_drop(struct gw_ctrl *c, struct rte_mbuf *m, enum gw_drop reason)
{
	c->st->drops[reason]++;
	rte_pktmbuf_free(m);
}

/* Send m on the control lcore's own packet socket fd (a syscall: this is the
 * control lcore), one iovec per segment; counted as the control lcore's
 * port_tx, or as the port's tx_dropped when the kernel refuses it (EAGAIN: its
 * send buffer is full; EMSGSIZE: larger than the interface's MTU). Frees m. */
static void
sock_tx(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, int fd)
{
	struct iovec iov[GW_CTRL_SOCK_SEGS];
	struct msghdr msg = { .msg_iov = iov };
	const struct rte_mbuf *s = m;

	for (; s != NULL && msg.msg_iovlen < RTE_DIM(iov); s = s->next, msg.msg_iovlen++) {
		iov[msg.msg_iovlen].iov_base = rte_pktmbuf_mtod(s, void *);
		iov[msg.msg_iovlen].iov_len = rte_pktmbuf_data_len(s);
	}
	if (s == NULL && sendmsg(fd, &msg, MSG_DONTWAIT) == (ssize_t)rte_pktmbuf_pkt_len(m))
		c->st->port_tx[port]++;
	else
		__atomic_fetch_add(&c->ctx->ports[port].tx_dropped, 1, __ATOMIC_RELAXED);
	rte_pktmbuf_free(m);
}

void
ctrl_tx(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	struct gw_meta *md = gw_meta(m);
	const struct gw_port *p = &c->ctx->ports[port];
	md->kind = GW_CTRL_TX;
	md->port = port;
	if (p->ctrl_fd >= 0) {
		sock_tx(c, m, port, p->ctrl_fd);
		return;
	}
	if (p->ctrl_txq >= 0) {
		/* the control lcore is the only user of this queue */
		if (rte_eth_tx_burst(p->port_id, p->ctrl_txq, &m, 1) == 0) {
			__atomic_fetch_add(&c->ctx->ports[port].tx_dropped, 1, __ATOMIC_RELAXED);
			rte_pktmbuf_free(m);
		}
		return;
	}
	if (rte_ring_sp_enqueue(c->ctx->from_ctrl[0], m) != 0)
		ctrl_drop(c, m, GW_DROP_RING_FULL);
}

const struct gw_addr *
ctrl_port_addr(const struct gw_port *p, uint8_t family)
{
	int i = gw_paddr_source(&p->addrs, family);

	return i < 0 ? NULL : &p->addrs.a[i].a;
}

struct gw_ctrl *
gw_ctrl_create(struct gw_ctx *ctx)
{
	struct gw_ctrl *c = rte_zmalloc("hipgw_ctrl", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL)
		return NULL;
	c->ctx = ctx;
	c->st = &gw_stats[rte_lcore_id()];
	ctrl_addr_init(c);
	if (ctrl_dhcp_init(c) != 0) {
		ctrl_dhcp_free(c);
		rte_free(c);
		return NULL;
	}
	return c;
}

static void
pending_release(struct gw_ctrl *c, struct pending *p, enum gw_drop reason)
{
	for (unsigned i = 0; i < p->n; i++)
		ctrl_drop(c, p->q[i], reason);
	memset(p, 0, sizeof(*p));
}

void
gw_ctrl_free(struct gw_ctrl *c)
{
	if (c == NULL)
		return;
	for (unsigned i = 0; i < GW_NEIGH_PENDING; i++)
		if (c->pend[i].used)
			pending_release(c, &c->pend[i], GW_DROP_NO_NEIGHBOR);
	ctrl_dhcp_free(c);
	rte_free(c);
}

static bool
same_hop(const struct pending *p, unsigned port, const struct gw_addr *ip)
{
	return p->used && p->port == port && p->ip.family == ip->family &&
	       memcmp(p->ip.addr, ip->addr, ip->family == 4 ? 4 : 16) == 0;
}

/* A worker could not resolve a next hop: queue the frame and ask. */
static void
neigh_wait(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	const struct gw_meta *md = gw_meta(m);
	struct gw_addr ip = { .family = md->family };
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct pending *p = NULL, *free_slot = NULL;

	memcpy(ip.addr, md->ip, ip.family == 4 ? 4 : 16);
	/* it may have been learned since the worker looked */
	if (gw_neigh_get(c->ctx->neigh, port, ip.family, ip.addr, &eth->dst_addr)) {
		ctrl_tx(c, m, port);
		return;
	}
	for (unsigned i = 0; i < GW_NEIGH_PENDING; i++) {
		if (same_hop(&c->pend[i], port, &ip)) {
			p = &c->pend[i];
			break;
		}
		if (!c->pend[i].used && free_slot == NULL)
			free_slot = &c->pend[i];
	}
	if (p == NULL) {
		if (free_slot == NULL) {
			ctrl_drop(c, m, GW_DROP_NO_NEIGHBOR);
			return;
		}
		p = free_slot;
		p->used = true;
		p->port = port;
		p->ip = ip;
		p->tries = 1;
		p->next_tsc = rte_rdtsc() + rte_get_tsc_hz() / 1000 * GW_NEIGH_RETRY_MS;
		ctrl_neigh_solicit(c, port, &ip);
	}
	if (p->n == GW_NEIGH_QUEUE) {
		ctrl_drop(c, m, GW_DROP_NO_NEIGHBOR);
		return;
	}
	p->q[p->n++] = m;
}

void
ctrl_neigh_learned(struct gw_ctrl *c, unsigned port, const struct gw_addr *ip,
		   const struct rte_ether_addr *mac)
{
	gw_neigh_set(c->ctx->neigh, port, ip, mac, false);
	__atomic_fetch_add(&c->ctx->neigh_gen, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < GW_NEIGH_PENDING; i++) {
		struct pending *p = &c->pend[i];
		if (!same_hop(p, port, ip))
			continue;
		for (unsigned j = 0; j < p->n; j++) {
			struct rte_ether_hdr *eth = rte_pktmbuf_mtod(p->q[j], struct rte_ether_hdr *);
			rte_ether_addr_copy(mac, &eth->dst_addr);
			ctrl_tx(c, p->q[j], port);
		}
		memset(p, 0, sizeof(*p));
	}
}

static void
refresh_probe(void *arg, uint16_t port, const struct gw_addr *ip)
{
	ctrl_neigh_solicit(arg, port, ip);
}

/* Every neighbor-refresh seconds: the walk of gw_neigh_refresh. */
static void
neigh_refresh(struct gw_ctrl *c, uint64_t now)
{
	uint32_t s = c->ctx->cfg->neighbor_refresh_s ? c->ctx->cfg->neighbor_refresh_s :
		     GW_CONF_NEIGH_REFRESH_DEFAULT;

	if (c->next_refresh_tsc != 0 && now >= c->next_refresh_tsc &&
	    gw_neigh_refresh(c->ctx->neigh, refresh_probe, c) > 0)
		__atomic_fetch_add(&c->ctx->neigh_gen, 1, __ATOMIC_RELEASE);
	if (c->next_refresh_tsc == 0 || now >= c->next_refresh_tsc)
		c->next_refresh_tsc = now + rte_get_tsc_hz() * s;
}

void
gw_ctrl_tick(struct gw_ctrl *c)
{
	uint64_t now = rte_rdtsc();

	neigh_refresh(c, now);
	for (unsigned i = 0; i < GW_NEIGH_PENDING; i++) {
		struct pending *p = &c->pend[i];
		if (!p->used || now < p->next_tsc)
			continue;
		if (p->tries >= GW_NEIGH_TRIES) {
			pending_release(c, p, GW_DROP_NO_NEIGHBOR);
			continue;
		}
		p->tries++;
		p->next_tsc = now + rte_get_tsc_hz() / 1000 * GW_NEIGH_RETRY_MS;
		ctrl_neigh_solicit(c, p->port, &p->ip);
	}
	ctrl_pmtu_tick(c);
	ctrl_l2_tick(c);
	ctrl_addr_tick(c);
	ctrl_dhcp_tick(c);
}

void
gw_ctrl_set_hooks(struct gw_ctrl *c, const struct gw_ctrl_hooks *h)
{
	c->hooks = *h;
}

void
gw_ctrl_tx_frame(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	ctrl_tx(c, m, port);
}

void
gw_ctrl_drop(struct gw_ctrl *c, struct rte_mbuf *m, enum gw_drop reason)
{
	ctrl_drop(c, m, reason);
}

struct gw_lcore_stats *
gw_ctrl_stats(struct gw_ctrl *c)
{
	return c->st;
}

void
gw_ctrl_reinject(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	struct gw_meta *md = gw_meta(m);
	md->kind = GW_CTRL_OUTBOUND;
	md->port = port;
	if (rte_ring_sp_enqueue(c->ctx->from_ctrl[0], m) != 0)
		ctrl_drop(c, m, GW_DROP_RING_FULL);
}

void
gw_ctrl_send_l2(struct gw_ctrl *c, struct rte_mbuf *m, unsigned slot)
{
	struct gw_meta *md = gw_meta(m);

	md->kind = GW_CTRL_L2_OUT;
	md->slot = (uint16_t)slot;
	if (rte_ring_sp_enqueue(c->ctx->from_ctrl[0], m) != 0)
		ctrl_drop(c, m, GW_DROP_RING_FULL);
}

void
gw_ctrl_send_ip(struct gw_ctrl *c, struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t family = gw_ip_version(l3) == 4 ? 4 : 6;
	const uint8_t *dst = l3 + (family == 4 ? offsetof(struct rte_ipv4_hdr, dst_addr) :
				   offsetof(struct rte_ipv6_hdr, dst_addr));
	const struct gw_nexthop *nh;
	uint32_t d4;

	memcpy(&d4, dst, 4);
	nh = family == 4 ? gw_route4(&c->ctx->routes, d4) : gw_route6(&c->ctx->routes, dst);
	if (nh == NULL) {
		ctrl_drop(c, m, GW_DROP_NO_ROUTE);
		return;
	}
	gw_ctrl_send_ip_via(c, m, nh->port, nh->on_link ? NULL : &nh->via);
}

void
gw_ctrl_send_ip_via(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, const struct gw_addr *via)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t family = gw_ip_version(l3) == 4 ? 4 : 6;
	const uint8_t *dst = l3 + (family == 4 ? offsetof(struct rte_ipv4_hdr, dst_addr) :
				   offsetof(struct rte_ipv6_hdr, dst_addr));
	struct rte_ether_hdr *eth;
	struct gw_meta *md;

	if (port >= c->ctx->n_ports || (via != NULL && via->family != family)) {
		ctrl_drop(c, m, GW_DROP_NO_ROUTE);
		return;
	}
	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eth));
	if (eth == NULL) {
		ctrl_drop(c, m, GW_DROP_MALFORMED);
		return;
	}
	eth->ether_type = rte_cpu_to_be_16(family == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	rte_ether_addr_copy(&c->ctx->ports[port].mac, &eth->src_addr);
	md = gw_meta(m);
	md->family = family;
	memcpy(md->ip, via == NULL ? dst : via->addr, family == 4 ? 4 : 16);
	neigh_wait(c, m, port);
}

/* IP protocol of an Ethernet frame's IPv4/IPv6 packet, or -1. */
static int
frame_proto(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint16_t et = rte_be_to_cpu_16(eth->ether_type);
	uint32_t len = rte_pktmbuf_data_len(m);

	if (et == RTE_ETHER_TYPE_IPV4 && len >= sizeof(*eth) + 20)
		return ((struct rte_ipv4_hdr *)(eth + 1))->next_proto_id;
	if (et == RTE_ETHER_TYPE_IPV6 && len >= sizeof(*eth) + 40)
		return ((struct rte_ipv6_hdr *)(eth + 1))->proto;
	return -1;
}

/* An IPv6 frame for the gateway: its extension headers removed
 * (gw_ip6ext_remove), so that ND, ICMPv6 and HIP find their header right after
 * the fixed one (MLD comes behind Hop-by-Hop; echo and HIP may come in atomic
 * fragments). Returns false when m was dropped: a chain the walk refuses, or
 * a real fragment (the gateway reassembles only ESP). */
static bool
local_ip6_ext(struct gw_ctrl *c, struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								 sizeof(struct rte_ether_hdr));
	uint32_t len = rte_pktmbuf_data_len(m), tl;
	enum gw_drop r;
	uint8_t proto;

	if (len < sizeof(struct rte_ether_hdr) + sizeof(*ip) || !gw_ip6ext_is(ip->proto))
		return true;
	tl = sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	if (tl > len - sizeof(struct rte_ether_hdr)) {
		ctrl_drop(c, m, GW_DROP_MALFORMED);
		return false;
	}
	r = gw_ip6ext_remove(m, sizeof(struct rte_ether_hdr), tl, &proto);
	if (r == GW_DROP_NONE && proto == GW_IPPROTO_FRAGMENT)
		r = GW_DROP_POLICY;
	if (r != GW_DROP_NONE) {
		ctrl_drop(c, m, r);
		return false;
	}
	return true;
}

static void
local_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint16_t et = rte_be_to_cpu_16(eth->ether_type);

	if (et == RTE_ETHER_TYPE_ARP) {
		ctrl_arp_input(c, m, port);
		return;
	}
	if (et == RTE_ETHER_TYPE_IPV6 && !local_ip6_ext(c, m))
		return;
	/* HIP, natively or over UDP behind the non-ESP marker (RFC 5770: the
	 * worker checked the UDP header and marker, gw_meta.udp_sport) */
	if (frame_proto(m) == GW_IPPROTO_HIP || gw_meta(m)->udp_sport != 0) {
		if (c->hooks.hip_input != NULL)
			c->hooks.hip_input(c->hooks.ctx, m, port);
		else
			ctrl_drop(c, m, GW_DROP_POLICY);
		return;
	}
	if (et == RTE_ETHER_TYPE_IPV6 && ctrl_nd_input(c, m, port))
		return;
	ctrl_icmp_local(c, m, port);
}

unsigned
gw_ctrl_poll(struct gw_ctrl *c)
{
	unsigned total = 0;
	for (unsigned w = 0; w < c->ctx->n_workers; w++) {
		struct rte_mbuf *pkts[GW_BURST_PACKETS];
		unsigned n = rte_ring_sc_dequeue_burst(c->ctx->to_ctrl[w], (void **)pkts,
						       GW_BURST_PACKETS, NULL);
		total += n + ctrl_l2_learn_drain(c, w);
		for (unsigned i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			struct gw_meta *md = gw_meta(m);
			unsigned port = md->port;
			if (port >= c->ctx->n_ports) {
				ctrl_drop(c, m, GW_DROP_MALFORMED);
				continue;
			}
			switch (md->kind) {
			case GW_PUNT_LOCAL:
				local_input(c, m, port);
				break;
			case GW_PUNT_NEIGH:
				neigh_wait(c, m, port);
				break;
			case GW_PUNT_TTL:
			case GW_PUNT_TOO_BIG:
				ctrl_icmp_error(c, m, port, md->kind, md->mtu);
				break;
			case GW_PUNT_FRAGMENT:
				ctrl_fragment(c, m, port, md->mtu);
				break;
			case GW_PUNT_TOO_BIG_IN:
				ctrl_decap_too_big(c, m, port, md->mtu);
				break;
			case GW_PUNT_FRAGMENT_IN:
				ctrl_decap_fragment(c, m, md->mtu);
				break;
			case GW_PUNT_BEET:
				if (c->hooks.beet_input != NULL)
					c->hooks.beet_input(c->hooks.ctx, m);
				else
					ctrl_drop(c, m, GW_DROP_POLICY);
				break;
			case GW_PUNT_NO_SA:
				if (c->hooks.no_sa != NULL)
					c->hooks.no_sa(c->hooks.ctx, m, port, md->slot);
				else
					ctrl_drop(c, m, GW_DROP_NO_SA);
				break;
			case GW_PUNT_MBOX_HIP:
				if (c->hooks.mbox_hip != NULL)
					c->hooks.mbox_hip(c->hooks.ctx, m, port);
				else
					ctrl_drop(c, m, GW_DROP_MBOX_HIP);
				break;
			case GW_PUNT_DHCP:
				ctrl_dhcp_input(c, m, port);
				break;
			case GW_PUNT_UNKNOWN_SPI:
				if (c->hooks.unknown_spi != NULL)
					c->hooks.unknown_spi(c->hooks.ctx, m, port, md->slot);
				else
					ctrl_drop(c, m, GW_DROP_NO_SA);
				break;
			default:
				ctrl_drop(c, m, GW_DROP_MALFORMED);
			}
		}
	}
	return total;
}
