/* SPDX-License-Identifier: BSD-3-Clause
 * Shared between the control lcore's files only.
 */
#ifndef HIPGW_CTRL_INTERNAL_H
#define HIPGW_CTRL_INTERNAL_H

#include <rte_ether.h>
#include <rte_mbuf.h>
#include "gw_ctrl.h"

#define GW_NEIGH_PENDING     64   /* next hops being resolved at once */
#define GW_NEIGH_QUEUE       8    /* packets queued per next hop */
#define GW_NEIGH_TRIES       3    /* requests before giving up */
#define GW_NEIGH_RETRY_MS    1000

struct pending {
	bool used;
	uint16_t port;
	struct gw_addr ip;
	uint8_t tries;
	uint64_t next_tsc;
	uint8_t n;
	struct rte_mbuf *q[GW_NEIGH_QUEUE];
};

struct gw_ctrl {
	struct gw_ctx *ctx;
	struct gw_lcore_stats *st;
	struct pending pend[GW_NEIGH_PENDING];
	struct gw_ctrl_hooks hooks;
	uint64_t next_refresh_tsc;     /* next walk of gw_neigh_refresh */
	/* gw_addr_set.c: the subscribers of address changes, and each port's
	 * current gateway per family ([0] IPv4, [1] IPv6; family 0: none),
	 * the config's until gw_ctrl_set_address changes it */
	struct gw_ctrl_addr_hook addr_hooks[GW_CTRL_ADDR_HOOKS_MAX];
	unsigned n_addr_hooks;
	struct gw_addr port_gw[GW_PORTS_MAX][2];
	/* gw_ctrl_req.c: the request slot (enum in gw_ctrl_req.c) and its request */
	uint32_t req_state;
	struct gw_ctrl_request req;
	/* gw_dhcp_port.c: the DHCP client of each `address = dhcp` port */
	struct ctrl_dhcp *dhcp[GW_PORTS_MAX];
};

#define GW_CTRL_SOCK_SEGS    16   /* mbuf segments a frame may have on the packet socket */

/* Send a complete Ethernet frame on gateway port `port`: on the control
 * lcore's own packet socket (ctrl_fd) or TX queue (ctrl_txq) where the port
 * has one, else through worker 0's ring (full: a ring_full drop). A frame the
 * PMD or kernel refuses counts in the port's tx_dropped. Consumes m. */
void ctrl_tx(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
void ctrl_drop(struct gw_ctrl *c, struct rte_mbuf *m, enum gw_drop reason);

/* First address of the family on a port, or NULL. */
const struct gw_addr *ctrl_port_addr(const struct gw_port *p, uint8_t family);

/* gw_arpnd.c: ARP and ND */
void ctrl_arp_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
/* Handle an ICMPv6 ND message; returns false when m is not ND (not consumed). */
bool ctrl_nd_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
void ctrl_neigh_solicit(struct gw_ctrl *c, unsigned port, const struct gw_addr *ip);
/* A neighbour became known: send its queued packets. */
void ctrl_neigh_learned(struct gw_ctrl *c, unsigned port, const struct gw_addr *ip,
			const struct rte_ether_addr *mac);

/* gw_addr_set.c: port_gw from the config (gw_ctrl_create); the tick's part:
 * deprecated addresses withdrawn when their hold is over, withdrawn slots
 * freed after the grace period. */
/* gw_dhcp_port.c: the clients created (0, -1: no memory), freed, their
 * timers run, a punted reply (GW_PUNT_DHCP; consumes m). */
int ctrl_dhcp_init(struct gw_ctrl *c);
void ctrl_dhcp_free(struct gw_ctrl *c);
void ctrl_dhcp_tick(struct gw_ctrl *c);
void ctrl_dhcp_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
/* An address set by command on an `address = dhcp` port is the operator's:
 * the port's client stops (no renewal would overwrite it, none is sent from
 * an address the server did not lease) until hipgw restarts; its telemetry
 * state reads stopped and its replies are dropped (policy). Returns true
 * when a client was running on port. */
bool ctrl_dhcp_stop(struct gw_ctrl *c, unsigned port);
void ctrl_addr_init(struct gw_ctrl *c);
void ctrl_addr_tick(struct gw_ctrl *c);
/* gw_arpnd.c: announce our address a on port: a gratuitous ARP request
 * (RFC 5227 section 3: sender and target IP a, broadcast) or an unsolicited
 * NA to ff02::1 (RFC 4861 section 7.2.6: Override set, Solicited clear, our
 * MAC as target link-layer address). */
void ctrl_addr_announce(struct gw_ctrl *c, unsigned port, const struct gw_addr *a);

/* gw_l2_learn.c: the bridges' MAC tables. ctrl_l2_learn_drain applies every
 * learn request in worker w's ring (gw_mac_learn; a request naming no bridge,
 * remote or VLAN of ours is ignored) and returns how many it took;
 * ctrl_l2_tick ages (bounded visits) and reclaims each table. */
unsigned ctrl_l2_learn_drain(struct gw_ctrl *c, unsigned w);
void ctrl_l2_tick(struct gw_ctrl *c);

#define GW_CTRL_MAX_FRAGS    64   /* fragments of one IPv4 packet the control lcore makes */

/* gw_icmp.c: echo and errors */
void ctrl_icmp_local(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
void ctrl_icmp_error(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint8_t kind,
		     uint16_t mtu);
/* The ICMP error (RFC 792 / RFC 4443) about the IP packet orig (olen bytes,
 * IPv4 or IPv6) to its source from src (of orig's family): time exceeded for
 * kind GW_PUNT_TTL, else fragmentation needed with next-hop MTU mtu (RFC 1191)
 * / Packet Too Big with mtu, at least 1280 (RFC 8201), quoting as much of orig
 * as fits in 576 / 1280 bytes (RFC 1812 4.3.2.3, RFC 4443 2.4 (c)); checksums
 * done. Returns a new mbuf starting at its IP header (Ethernet headroom left),
 * or NULL: no mbuf, a family mismatch, orig a non-first IPv4 fragment or an
 * ICMP / ICMPv6 error itself (RFC 1812 4.3.2.2, RFC 4443 2.4 (e)). */
struct rte_mbuf *ctrl_icmp_error_build(struct gw_ctrl *c, const uint8_t *orig, uint32_t olen,
				       const struct gw_addr *src, uint8_t kind, uint16_t mtu);
/* Fragment the IPv4 packet m (IP header first, no DF; consumed) into pieces of
 * at most mtu bytes (rte_ip_frag), each one segment with its header checksum,
 * into frags[0 .. max). Returns how many; what failed is counted as mtu. */
int ctrl_ipv4_fragment(struct gw_ctrl *c, struct rte_mbuf *m, uint16_t mtu, struct rte_mbuf **frags,
		       unsigned max);
void ctrl_fragment(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint16_t mtu);

/* gw_decap_mtu.c: decapsulated packets over their inner port's MTU. m: the
 * inner IP packet (no L2; consumed); mtu: the port's, bytes of IP packet.
 * ctrl_decap_too_big (IPv4 with DF, IPv6): the ICMP error about m to its
 * source from inner port `port`'s address, run through the outbound path (so
 * through the tunnel). ctrl_decap_fragment (IPv4 without DF, TTL already
 * decremented): m in fragments of at most mtu bytes, each sent by
 * gw_ctrl_send_ip. */
void ctrl_decap_too_big(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint16_t mtu);
void ctrl_decap_fragment(struct gw_ctrl *c, struct rte_mbuf *m, uint16_t mtu);
/* gw_pmtu_icmp.c: an ICMP fragmentation needed / ICMPv6 Packet Too Big
 * received on outer port `port` (Ethernet frame; consumed), and the ageing of
 * lowered path MTUs (from gw_ctrl_tick). */
void ctrl_pmtu_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
void ctrl_pmtu_tick(struct gw_ctrl *c);

#endif
