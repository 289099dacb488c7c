/* SPDX-License-Identifier: BSD-3-Clause
 * Routing tables (rte_lpm / rte_lpm6): destination -> next hop (port and, for a
 * route via a router, the router's address; on-link routes use the destination).
 * Written by the control lcore (at start-up, and when a port's address changes:
 * gw_ctrl_set_address); read lock-free by workers. rte_lpm / rte_lpm6 take
 * one writer beside lock-free readers: each table entry is one atomic store,
 * and a lookup sees the old or the new route. A delete gives its tbl8 groups
 * back at once, so the writer lets an RCU grace period of the readers pass
 * after deletes before it adds again (a lookup then never walks a group that
 * was given to another prefix meanwhile). Next hops are only ever appended,
 * never changed: a lookup that found index i reads a complete nh[i].
 */
#ifndef HIPGW_ROUTE_H
#define HIPGW_ROUTE_H

#include <stdint.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_prefetch.h>
#include "gw_types.h"

#define GW_ROUTE_MAX_NH 256
#define GW_ROUTE_MAX_RULES 1024    /* routes kept for gw_routes_del / _move_via */

struct gw_nexthop {
	uint16_t port;          /* gateway port index */
	uint8_t on_link;        /* 1: next hop is the destination itself */
	struct gw_addr via;     /* router address when !on_link */
};

/* A route as added: the writer's copy, which rte_lpm cannot list. */
struct gw_route_rule {
	struct gw_prefix dst;   /* host bits zero */
	uint16_t nh;            /* index into nh[] */
};

struct gw_routes {
	struct rte_lpm *lpm4;
	struct rte_lpm6 *lpm6;
	struct gw_nexthop nh[GW_ROUTE_MAX_NH];
	unsigned n_nh;
	struct gw_route_rule rules[GW_ROUTE_MAX_RULES];   /* the writer's only */
	unsigned n_rules;
};

/* Add prefix -> value to an LPM pair. rte_lpm and rte_lpm6 take depths from 1
 * only, so a /0 (default) is added as its two /1 halves. Returns 0 or -1. */
int gw_lpm_add(struct rte_lpm *lpm4, struct rte_lpm6 *lpm6, const struct gw_prefix *p,
	       uint32_t value);

/* Create empty tables named after `name`. Returns 0 or -1 (rte_errno set). */
int gw_routes_init(struct gw_routes *rt, const char *name, int socket);
void gw_routes_free(struct gw_routes *rt);

/* Add prefix -> (port, via), or change the next hop of that prefix's route
 * in place. via NULL or family 0: on-link. Returns 0 or -1 (rte_errno:
 * ENOSPC when GW_ROUTE_MAX_NH next hops or GW_ROUTE_MAX_RULES routes are
 * used). */
int gw_routes_add(struct gw_routes *rt, const struct gw_prefix *dst, uint16_t port,
		  const struct gw_addr *via);

/* The next hop of the route of exactly prefix dst (host bits zero), or NULL. */
const struct gw_nexthop *gw_routes_find(const struct gw_routes *rt, const struct gw_prefix *dst);

/* Remove the route of exactly prefix dst (a /0 as its two /1 halves).
 * Returns 0, or -1 when there is none. Readers may still be in the groups it
 * freed: the caller lets a grace period pass before its next add. */
int gw_routes_del(struct gw_routes *rt, const struct gw_prefix *dst);

/* Every route of port `port` through router `from` goes through `to`
 * instead (same family; a change of next hop in place, nothing deleted).
 * Returns how many, or -1 (no next hop left: ENOSPC). */
int gw_routes_move_via(struct gw_routes *rt, uint16_t port, const struct gw_addr *from,
		       const struct gw_addr *to);

/* Next hop for an IPv4 destination (network order) or NULL. */
static inline const struct gw_nexthop *
gw_route4(const struct gw_routes *rt, uint32_t dst_be)
{
	uint32_t idx;
	if (rte_lpm_lookup(rt->lpm4, rte_be_to_cpu_32(dst_be), &idx) != 0)
		return NULL;
	return &rt->nh[idx];
}

/* Prefetch the first-level LPM entry gw_route4 reads for dst_be (network
 * order): with many inner destinations (one per SA) the 64 MiB tbl24 is not in
 * cache, so a burst's entries are fetched in parallel before its lookups.
 * Nothing is read. Workers. */
static inline void
gw_route4_prefetch(const struct gw_routes *rt, uint32_t dst_be)
{
	rte_prefetch0(&rt->lpm4->tbl24[rte_be_to_cpu_32(dst_be) >> 8]);
}

/* Next hop for an IPv6 destination (16 bytes) or NULL. */
static inline const struct gw_nexthop *
gw_route6(const struct gw_routes *rt, const uint8_t *dst)
{
	uint32_t idx;
	if (rte_lpm6_lookup(rt->lpm6, dst, &idx) != 0)
		return NULL;
	return &rt->nh[idx];
}

/* out = in with the host bits (past in->len) cleared: the network of an
 * interface address. */
void gw_prefix_network(struct gw_prefix *out, const struct gw_prefix *in);

#endif
