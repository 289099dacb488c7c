/* SPDX-License-Identifier: BSD-3-Clause
 * Control lcore, slow path (DESIGN.md "Threads"): ARP (RFC 826) and IPv6
 * neighbour discovery (RFC 4861) for the gateway's addresses and next hops,
 * ICMP / ICMPv6 echo to its own addresses (RFC 792, RFC 4443), the ICMP errors
 * the workers ask for (time exceeded, fragmentation needed, packet too big),
 * IPv4 fragmentation before encryption, and the small bounded queue of packets
 * waiting for a next hop to resolve. Talks to workers only through rte_ring.
 */
#ifndef HIPGW_CTRL_H
#define HIPGW_CTRL_H

#include "gw_ctx.h"

struct gw_ctrl;

/* Create the control state. Returns NULL on no memory. */
struct gw_ctrl *gw_ctrl_create(struct gw_ctx *ctx);
void gw_ctrl_free(struct gw_ctrl *c);

/* One pass: drain the workers' rings and handle what came. Returns the number
 * of packets handled (0 = idle). */
unsigned gw_ctrl_poll(struct gw_ctrl *c);

/* Periodic work (call every ~100 ms): ARP/ND retries, expiry of queued packets
 * (dropped as no_neighbor after GW_NEIGH_TRIES requests). */
void gw_ctrl_tick(struct gw_ctrl *c);

#endif
