/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <stdio.h>
#include <rte_atomic.h>
#include <rte_errno.h>
#include "gw_route.h"

int
gw_routes_init(struct gw_routes *rt, const char *name, int socket)
{
	char n[RTE_MEMZONE_NAMESIZE];
	struct rte_lpm_config c4 = { .max_rules = 4096, .number_tbl8s = 256 };
	struct rte_lpm6_config c6 = { .max_rules = 4096, .number_tbl8s = 1024 };

	memset(rt, 0, sizeof(*rt));
	snprintf(n, sizeof(n), "%s4", name);
	rt->lpm4 = rte_lpm_create(n, socket, &c4);
	snprintf(n, sizeof(n), "%s6", name);
	rt->lpm6 = rte_lpm6_create(n, socket, &c6);
	if (rt->lpm4 == NULL || rt->lpm6 == NULL) {
		gw_routes_free(rt);
		return -1;
	}
	return 0;
}

void
gw_routes_free(struct gw_routes *rt)
{
	rte_lpm_free(rt->lpm4);
	rte_lpm6_free(rt->lpm6);
	rt->lpm4 = NULL;
	rt->lpm6 = NULL;
}

static bool
same_prefix(const struct gw_prefix *a, const struct gw_prefix *b)
{
	return a->a.family == b->a.family && a->len == b->len &&
	       memcmp(a->a.addr, b->a.addr, a->a.family == 4 ? 4 : 16) == 0;
}

static int
rule_find(const struct gw_routes *rt, const struct gw_prefix *dst)
{
	for (unsigned i = 0; i < rt->n_rules; i++)
		if (same_prefix(&rt->rules[i].dst, dst))
			return (int)i;
	return -1;
}

/* The index of next hop (port, via), appended when new; -1: table full. */
static int
nh_index(struct gw_routes *rt, uint16_t port, const struct gw_addr *via)
{
	struct gw_nexthop nh = { .port = port, .on_link = 1 };
	unsigned i;

	if (via != NULL && via->family != 0) {
		nh.on_link = 0;
		nh.via = *via;
	}
	for (i = 0; i < rt->n_nh; i++)
		if (memcmp(&rt->nh[i], &nh, sizeof(nh)) == 0)
			return (int)i;
	if (rt->n_nh == GW_ROUTE_MAX_NH) {
		rte_errno = ENOSPC;
		return -1;
	}
	rt->nh[rt->n_nh] = nh;
	/* the entry is complete before a table entry can name it */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return (int)rt->n_nh++;
}

int
gw_routes_add(struct gw_routes *rt, const struct gw_prefix *dst, uint16_t port,
	      const struct gw_addr *via)
{
	int i = nh_index(rt, port, via), r;

	if (i < 0)
		return -1;
	r = rule_find(rt, dst);
	if (r < 0) {
		if (rt->n_rules == GW_ROUTE_MAX_RULES) {
			rte_errno = ENOSPC;
			return -1;
		}
		r = (int)rt->n_rules++;
		rt->rules[r].dst = *dst;
	}
	rt->rules[r].nh = (uint16_t)i;
	return gw_lpm_add(rt->lpm4, rt->lpm6, dst, (uint32_t)i);
}

const struct gw_nexthop *
gw_routes_find(const struct gw_routes *rt, const struct gw_prefix *dst)
{
	int r = rule_find(rt, dst);

	return r < 0 ? NULL : &rt->nh[rt->rules[r].nh];
}

/* Delete prefix p from the LPM of its family (a /0 as its /1 halves). */
static int
lpm_del(struct gw_routes *rt, const struct gw_prefix *p)
{
	if (p->len == 0) {
		struct gw_prefix half = *p;
		int a, b;

		half.len = 1;
		memset(half.a.addr, 0, sizeof(half.a.addr));
		a = lpm_del(rt, &half);
		half.a.addr[0] = 0x80;
		b = lpm_del(rt, &half);
		return a == 0 && b == 0 ? 0 : -1;
	}
	if (p->a.family == 4) {
		uint32_t a;

		memcpy(&a, p->a.addr, 4);
		return rte_lpm_delete(rt->lpm4, rte_be_to_cpu_32(a), p->len);
	}
	return rte_lpm6_delete(rt->lpm6, p->a.addr, p->len);
}

int
gw_routes_del(struct gw_routes *rt, const struct gw_prefix *dst)
{
	int r = rule_find(rt, dst);

	if (r < 0)
		return -1;
	rt->rules[r] = rt->rules[--rt->n_rules];
	return lpm_del(rt, dst);
}

int
gw_routes_move_via(struct gw_routes *rt, uint16_t port, const struct gw_addr *from,
		   const struct gw_addr *to)
{
	int n = 0;

	for (unsigned r = 0; r < rt->n_rules; r++) {
		const struct gw_nexthop *nh = &rt->nh[rt->rules[r].nh];

		if (nh->port != port || nh->on_link || nh->via.family != from->family ||
		    memcmp(nh->via.addr, from->addr, from->family == 4 ? 4 : 16) != 0)
			continue;
		if (gw_routes_add(rt, &rt->rules[r].dst, port, to) != 0)
			return -1;
		n++;
	}
	return n;
}

int
gw_lpm_add(struct rte_lpm *lpm4, struct rte_lpm6 *lpm6, const struct gw_prefix *p,
	   uint32_t value)
{
	if (p->len == 0) {
		struct gw_prefix half = *p;
		half.len = 1;
		memset(half.a.addr, 0, sizeof(half.a.addr));
		if (gw_lpm_add(lpm4, lpm6, &half, value) != 0)
			return -1;
		half.a.addr[0] = 0x80;
		return gw_lpm_add(lpm4, lpm6, &half, value);
	}
	if (p->a.family == 4) {
		uint32_t a;
		memcpy(&a, p->a.addr, 4);
		return rte_lpm_add(lpm4, rte_be_to_cpu_32(a), p->len, value);
	}
	return rte_lpm6_add(lpm6, p->a.addr, p->len, value);
}

void
gw_prefix_network(struct gw_prefix *out, const struct gw_prefix *in)
{
	unsigned bytes = in->a.family == 4 ? 4 : 16;
	*out = *in;
	for (unsigned b = 0; b < bytes; b++) {
		int keep = (int)in->len - (int)b * 8;
		if (keep >= 8)
			continue;
		out->a.addr[b] &= keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
	}
}
