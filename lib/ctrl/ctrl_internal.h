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

/* gw_icmp.c: echo and errors */
void ctrl_icmp_local(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
void ctrl_icmp_error(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint8_t kind,
		     uint16_t mtu);
void ctrl_fragment(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port, uint16_t mtu);

/* gw_pmtu_icmp.c: an ICMP fragmentation needed / ICMPv6 Packet Too Big
 * received on outer port `port` (Ethernet frame; consumed), and the ageing of
 * lowered path MTUs (from gw_ctrl_tick). */
void ctrl_pmtu_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
void ctrl_pmtu_tick(struct gw_ctrl *c);

#endif
