/* SPDX-License-Identifier: BSD-3-Clause
 * A test double of the middlebox's flow table (lib/tables/gw_mbox_flow.h)
 * for the tracker's unit tests and fuzz harness: the three calls the tracker
 * makes (gw_mbox_flow_add, _del, _stats), on a small array that records
 * every flow with its association and what the test says its last ESP was.
 * Include it in one file of an executable (it defines those functions).
 * The real table (an rte_hash the workers read) is tested on its own.
 */
#ifndef HIPGW_TESTS_MBOX_FLOW_DOUBLE_H
#define HIPGW_TESTS_MBOX_FLOW_DOUBLE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gw_mbox_flow.h"

#define FD_FLOWS_MAX 256              /* flows the double holds at most */

struct fd_flow {
	bool used;
	struct gw_addr dst;
	uint32_t spi;
	uint32_t assoc;
	uint64_t last_seen_ns;            /* set by the test: ESP seen then */
};

/* The table: flows, how many calls of each kind, and a capacity the test may lower. */
struct gw_mbox_flows {
	struct fd_flow f[FD_FLOWS_MAX];
	unsigned n, cap;                  /* cap 0: FD_FLOWS_MAX */
	unsigned adds, dels, del_missing;
};

static inline bool
fd_same(const struct gw_addr *a, const struct gw_addr *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, a->family == 4 ? 4 : 16) == 0;
}

static inline struct fd_flow *
fd_find(struct gw_mbox_flows *t, const struct gw_addr *dst, uint32_t spi)
{
	for (unsigned i = 0; i < FD_FLOWS_MAX; i++)
		if (t->f[i].used && t->f[i].spi == spi && fd_same(&t->f[i].dst, dst))
			return &t->f[i];
	return NULL;
}

static inline void
fd_reset(struct gw_mbox_flows *t)
{
	memset(t, 0, sizeof(*t));
}

int
gw_mbox_flow_add(struct gw_mbox_flows *t, const struct gw_addr *dst, uint32_t spi,
		 uint32_t assoc, bool lab)
{
	struct fd_flow *f;

	(void)lab;
	if (t == NULL || dst == NULL || (dst->family != 4 && dst->family != 6))
		return -EINVAL;
	t->adds++;
	f = fd_find(t, dst, spi);
	if (f == NULL) {
		if (t->n >= (t->cap != 0 ? t->cap : FD_FLOWS_MAX))
			return -ENOSPC;
		for (unsigned i = 0; f == NULL && i < FD_FLOWS_MAX; i++)
			if (!t->f[i].used)
				f = &t->f[i];
		if (f == NULL)
			return -ENOSPC;
		t->n++;
		memset(f, 0, sizeof(*f));
		f->used = true;
		f->dst = *dst;
		f->spi = spi;
	}
	f->assoc = assoc;
	return 0;
}

int
gw_mbox_flow_del(struct gw_mbox_flows *t, const struct gw_addr *dst, uint32_t spi)
{
	struct fd_flow *f = t == NULL || dst == NULL ? NULL : fd_find(t, dst, spi);

	if (f == NULL) {
		if (t != NULL)
			t->del_missing++;
		return -ENOENT;
	}
	f->used = false;
	t->n--;
	t->dels++;
	return 0;
}

int
gw_mbox_flow_stats(const struct gw_mbox_flows *t, const struct gw_addr *dst, uint32_t spi,
		   struct gw_mbox_flow_stats *out)
{
	const struct fd_flow *f = t == NULL || dst == NULL ? NULL :
				  fd_find((struct gw_mbox_flows *)t, dst, spi);

	if (f == NULL)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->last_seen_ns = f->last_seen_ns;
	return 0;
}

#endif
