/* SPDX-License-Identifier: BSD-3-Clause
 * The middlebox's flow table (gw_mbox_flow.h): an rte_hash with lock-free
 * readers from struct gw_mbox_flow_key to a flow's slot (the value is the
 * index itself, not a pointer: the data path reads no flow struct), a fixed
 * array of flows, and per worker one array of counters indexed by the slot. A delete takes the
 * key out of the hash (lock-free mode keeps its key slot) and queues {key
 * slot, flow} on an RCU defer queue (rte_rcu_qsbr_dq, as gw_mac.c does); once
 * the readers' grace period is over both go back. A flow's counters are
 * zeroed when the slot is taken again, before the hash add publishes it.
 *
 * Beside it, the locators: a second rte_hash, of the same lock-free kind, of
 * every destination some flow has (its key with SPI 0), each with the number
 * of flows to it (control lcore only, by the hash's key position); the last
 * flow's delete takes the locator out, its key slot back after the same
 * grace period (the defer queue's entry marked DEFERRED_LOC). Workers ask it
 * whether a NAT-keepalive's addresses belong to known associations.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "gw_mbox_flow.h"
#include "gw_sa.h"            /* gw_heap_allocated */

struct gw_mbox_flows {
	struct rte_hash *h;
	struct rte_hash *loc_h;           /* the locators: key (dst, SPI 0) */
	uint32_t *loc_refs;               /* by loc_h key position: flows to it */
	uint32_t loc_cap;                 /* loc_h's entries: positions below it */
	struct rte_rcu_qsbr *rcu;
	struct rte_rcu_qsbr_dq *dq;
	struct gw_mbox_flow *fl;          /* max flows */
	struct gw_mbox_flow_wk *wk[GW_WORKERS_MAX];   /* per worker: max counters */
	uint32_t *free_idx;               /* stack of free flow slots */
	uint32_t n_free;
	uint32_t max;
	uint32_t n_live, n_pending, n_lab;
	unsigned n_workers;
	size_t heap_bytes;                /* measured at creation */
};

/* What the defer queue keeps of a deleted flow, 8 bytes. */
struct flow_deferred {
	uint32_t key_pos;                 /* rte_hash_del_key's position */
	uint32_t idx;                     /* into fl[] */
};

#define GW_MBOX_LOCS_MIN 64               /* locators a table holds beyond max_flows / 4 */
#define DEFERRED_LOC UINT32_MAX           /* flow_deferred.idx of a locator's key slot */

static void
flow_release(struct gw_mbox_flows *f, const struct flow_deferred *d)
{
	if (d->idx == DEFERRED_LOC) {
		rte_hash_free_key_with_position(f->loc_h, (int32_t)d->key_pos);
		return;
	}
	rte_hash_free_key_with_position(f->h, (int32_t)d->key_pos);
	f->free_idx[f->n_free++] = d->idx;
	f->n_pending--;
}

/* rte_rcu_qsbr defer queue callback: e points at n struct flow_deferred. */
static void
dq_free(void *p, void *e, unsigned int n)
{
	for (unsigned i = 0; i < n; i++) {
		struct flow_deferred d;

		memcpy(&d, (uint8_t *)e + i * sizeof(d), sizeof(d));
		flow_release(p, &d);
	}
}

/* rte_hash's key compare (0: equal): three 8-byte compares instead of memcmp,
 * which rte_hash calls for key lengths that are not a multiple of 16. */
static int
key_cmp(const void *a, const void *b, size_t len __rte_unused)
{
	uint64_t x[3], y[3];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2])) != 0;
}

#define FLOW_HASH_INIT 0u      /* gw_mbox_flow_hash's */

/* rte_hash's hash function: gw_mbox_flow_hash (init is FLOW_HASH_INIT). */
static uint32_t
key_hash(const void *key, uint32_t len __rte_unused, uint32_t init __rte_unused)
{
	return gw_mbox_flow_hash(key);
}

/* The hash's value of slot i, and back. */
static inline void *
idx_data(uint32_t i)
{
	return (void *)(uintptr_t)i;
}

static inline uint32_t
data_idx(const void *d)
{
	return (uint32_t)(uintptr_t)d;
}

static bool
params_ok(const char *name, uint32_t max_flows, unsigned n_workers, const struct rte_rcu_qsbr *rcu)
{
	return name != NULL && rcu != NULL && max_flows >= 1 && max_flows <= GW_MBOX_FLOWS_MAX &&
	       n_workers >= 1 && n_workers <= GW_WORKERS_MAX;
}

struct gw_mbox_flows *
gw_mbox_flows_create(const char *name, uint32_t max_flows, unsigned n_workers,
		     struct rte_rcu_qsbr *rcu, int socket)
{
	char dqname[RTE_RCU_QSBR_DQ_NAMESIZE], locname[RTE_HASH_NAMESIZE];
	struct gw_mbox_flows *f;
	bool ok = true;
	size_t heap0;

	if (!params_ok(name, max_flows, n_workers, rcu)) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* a quarter more key slots than flows: the cuckoo hash fills up before
	 * 100 %; deleted keys wait in their slots within that bound */
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = max_flows + max_flows / 4 + 8,
		.key_len = sizeof(struct gw_mbox_flow_key),
		.hash_func = key_hash,
		.hash_func_init_val = FLOW_HASH_INIT,
		.socket_id = socket,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	/* locators: an association has two, or a few more while a host moves,
	 * and at most 8 flows (4 SPIs a host); [mbox-gen] flows may each have
	 * their own, and those beyond room are not known (keepalives dropped) */
	struct rte_hash_parameters lp = hp;
	/* a flow's delete may queue its locator too: room for both */
	struct rte_rcu_qsbr_dq_parameters dqp = {
		.name = dqname,
		.size = 2 * max_flows,
		.esize = sizeof(struct flow_deferred),
		.trigger_reclaim_limit = 64,
		.max_reclaim_size = 64,
		.free_fn = dq_free,
		.v = rcu,
	};

	heap0 = gw_heap_allocated();
	f = rte_zmalloc_socket("hipgw_mbox_flows", sizeof(*f), RTE_CACHE_LINE_SIZE, socket);
	if (f == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	f->max = max_flows;
	f->rcu = rcu;
	f->n_workers = n_workers;
	f->fl = rte_zmalloc_socket("hipgw_mbox_fl", sizeof(f->fl[0]) * max_flows,
				   RTE_CACHE_LINE_SIZE, socket);
	f->free_idx = rte_malloc_socket("hipgw_mbox_ff", sizeof(uint32_t) * max_flows, 0, socket);
	for (unsigned w = 0; w < n_workers; w++) {
		/* each worker's array on lines of its own: no line two workers write */
		f->wk[w] = rte_zmalloc_socket("hipgw_mbox_wk", sizeof(f->wk[w][0]) * max_flows,
					      RTE_CACHE_LINE_SIZE, socket);
		ok &= f->wk[w] != NULL;
	}
	f->h = rte_hash_create(&hp);
	if (f->h != NULL)
		rte_hash_set_cmp_func(f->h, key_cmp);
	snprintf(locname, sizeof(locname), "L%s", name);
	lp.name = locname;
	lp.entries = max_flows / 4 + GW_MBOX_LOCS_MIN;
	f->loc_h = rte_hash_create(&lp);
	if (f->loc_h != NULL)
		rte_hash_set_cmp_func(f->loc_h, key_cmp);
	f->loc_cap = lp.entries;
	f->loc_refs = rte_zmalloc_socket("hipgw_mbox_lr", sizeof(uint32_t) * lp.entries, 0,
					 socket);
	snprintf(dqname, sizeof(dqname), "%s", name);
	dqp.p = f;
	f->dq = rte_rcu_qsbr_dq_create(&dqp);
	if (!ok || f->fl == NULL || f->free_idx == NULL || f->h == NULL || f->dq == NULL ||
	    f->loc_h == NULL || f->loc_refs == NULL) {
		int err = (f->h == NULL || f->loc_h == NULL) && rte_errno == EEXIST ? EEXIST : ENOMEM;

		gw_mbox_flows_free(f);
		rte_errno = err;
		return NULL;
	}
	for (uint32_t i = 0; i < max_flows; i++)
		f->free_idx[i] = max_flows - 1 - i;      /* slot 0 taken first */
	f->n_free = max_flows;
	f->heap_bytes = gw_heap_allocated() - heap0;
	return f;
}

void
gw_mbox_flows_free(struct gw_mbox_flows *f)
{
	if (f == NULL)
		return;
	if (f->dq != NULL)
		rte_rcu_qsbr_dq_delete(f->dq);   /* no reader online: reclaims all */
	rte_hash_free(f->h);
	rte_hash_free(f->loc_h);
	rte_free(f->loc_refs);
	for (unsigned w = 0; w < GW_WORKERS_MAX; w++)
		rte_free(f->wk[w]);
	rte_free(f->free_idx);
	rte_free(f->fl);
	rte_free(f);
}

static bool
addr_ok(const struct gw_addr *a)
{
	return a != NULL && (a->family == 4 || a->family == 6);
}

static struct gw_mbox_flow *
flow_find(const struct gw_mbox_flows *f, const struct gw_mbox_flow_key *k)
{
	void *d;

	return rte_hash_lookup_data(f->h, k, &d) < 0 ? NULL : &f->fl[data_idx(d)];
}

/* Locator dst (a key with SPI 0) gains a flow (+1) or loses one (-1): added
 * with its first, taken out with its last (its key slot after the grace
 * period). A locator the hash has no room for is not known (its
 * keepalives are dropped); nothing else depends on it. */
static void
loc_ref(struct gw_mbox_flows *f, const struct gw_mbox_flow_key *k, int by)
{
	struct gw_mbox_flow_key lk = *k;
	struct flow_deferred d;
	int32_t pos;

	lk.spi = 0;
	pos = rte_hash_lookup(f->loc_h, &lk);
	if (pos >= (int32_t)f->loc_cap)
		return;                   /* never: rte_hash's positions are below entries */
	if (by > 0) {
		if (pos < 0 && (pos = rte_hash_add_key(f->loc_h, &lk)) >= 0)
			f->loc_refs[pos] = 0;
		if (pos >= 0 && pos < (int32_t)f->loc_cap)
			f->loc_refs[pos]++;
		return;
	}
	if (pos < 0 || --f->loc_refs[pos] > 0 || (pos = rte_hash_del_key(f->loc_h, &lk)) < 0)
		return;
	d.key_pos = (uint32_t)pos;
	d.idx = DEFERRED_LOC;
	if (rte_rcu_qsbr_dq_enqueue(f->dq, &d) != 0) {
		rte_rcu_qsbr_synchronize(f->rcu, RTE_QSBR_THRID_INVALID);
		flow_release(f, &d);
	}
}

bool
gw_mbox_flow_locator_known(const struct gw_mbox_flows *f, uint8_t family, const uint8_t *addr)
{
	struct gw_mbox_flow_key k;

	if (f == NULL || addr == NULL || (family != 4 && family != 6))
		return false;
	gw_mbox_flow_key_set(&k, family, addr, 0);
	return rte_hash_lookup(f->loc_h, &k) >= 0;
}

/* A free slot, or NULL; reclaims what it can when there is none. */
static struct gw_mbox_flow *
flow_get(struct gw_mbox_flows *f)
{
	uint32_t i;

	if (f->n_live >= f->max)
		return NULL;
	if (f->n_free == 0)
		gw_mbox_flows_reclaim(f);
	if (f->n_free == 0)
		return NULL;
	i = f->free_idx[--f->n_free];
	/* no worker holds slot i (its last flow's grace period is over) */
	for (unsigned w = 0; w < f->n_workers; w++)
		memset(&f->wk[w][i], 0, sizeof(f->wk[w][i]));
	f->fl[i].idx = i;
	return &f->fl[i];
}

int
gw_mbox_flow_add(struct gw_mbox_flows *f, const struct gw_addr *dst, uint32_t spi,
		 uint32_t assoc, bool lab)
{
	struct gw_mbox_flow_key k;
	struct gw_mbox_flow *fl;

	if (f == NULL || !addr_ok(dst))
		return -EINVAL;
	gw_mbox_flow_key_set(&k, dst->family, dst->addr, spi);
	fl = flow_find(f, &k);
	if (fl != NULL) {              /* given to `assoc` */
		f->n_lab += (uint32_t)lab - fl->lab;
		__atomic_store_n(&fl->assoc, assoc, __ATOMIC_RELEASE);
		__atomic_store_n(&fl->lab, (uint8_t)lab, __ATOMIC_RELEASE);
		return 0;
	}
	fl = flow_get(f);
	if (fl == NULL)
		return -ENOSPC;
	fl->key = k;
	fl->assoc = assoc;
	fl->lab = lab;
	fl->live = 1;
	if (rte_hash_add_key_data(f->h, &k, idx_data(fl->idx)) < 0) {
		fl->live = 0;
		f->free_idx[f->n_free++] = fl->idx;
		return -ENOSPC;
	}
	f->n_live++;
	f->n_lab += lab;
	loc_ref(f, &k, 1);
	return 0;
}

int
gw_mbox_flow_del(struct gw_mbox_flows *f, const struct gw_addr *dst, uint32_t spi)
{
	struct gw_mbox_flow_key k;
	struct flow_deferred d;
	struct gw_mbox_flow *fl;
	int32_t pos;

	if (f == NULL || !addr_ok(dst))
		return -ENOENT;
	gw_mbox_flow_key_set(&k, dst->family, dst->addr, spi);
	fl = flow_find(f, &k);
	if (fl == NULL || (pos = rte_hash_del_key(f->h, &k)) < 0)
		return -ENOENT;
	d.key_pos = (uint32_t)pos;
	d.idx = fl->idx;
	__atomic_store_n(&fl->live, 0, __ATOMIC_RELEASE);
	f->n_live--;
	f->n_lab -= fl->lab;
	f->n_pending++;
	if (rte_rcu_qsbr_dq_enqueue(f->dq, &d) != 0) {
		/* queue full: it holds max flows and their locators, so never; wait here */
		rte_rcu_qsbr_synchronize(f->rcu, RTE_QSBR_THRID_INVALID);
		flow_release(f, &d);
	}
	loc_ref(f, &k, -1);
	return 0;
}

/* Flow fl's counters summed over the workers (each load one aligned word). */
static void
flow_sum(const struct gw_mbox_flows *f, const struct gw_mbox_flow *fl, struct gw_mbox_flow_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned w = 0; w < f->n_workers; w++) {
		const struct gw_mbox_flow_wk *c = &f->wk[w][fl->idx];
		uint64_t seen = __atomic_load_n(&c->last_seen_ns, __ATOMIC_RELAXED);

		out->packets += __atomic_load_n(&c->packets, __ATOMIC_RELAXED);
		out->bytes += __atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
		if (seen > out->last_seen_ns)
			out->last_seen_ns = seen;
	}
}

int
gw_mbox_flow_stats(const struct gw_mbox_flows *f, const struct gw_addr *dst, uint32_t spi,
		   struct gw_mbox_flow_stats *out)
{
	struct gw_mbox_flow_key k;
	const struct gw_mbox_flow *fl;

	if (f == NULL || !addr_ok(dst) || out == NULL)
		return -ENOENT;
	gw_mbox_flow_key_set(&k, dst->family, dst->addr, spi);
	fl = flow_find(f, &k);
	if (fl == NULL)
		return -ENOENT;
	flow_sum(f, fl, out);
	return 0;
}

unsigned
gw_mbox_flows_reclaim(struct gw_mbox_flows *f)
{
	if (f == NULL)
		return 0;
	rte_rcu_qsbr_dq_reclaim(f->dq, 2 * f->max, NULL, NULL, NULL);
	return f->n_pending;          /* flows: the locators' slots are not counted */
}

uint32_t
gw_mbox_flows_count(const struct gw_mbox_flows *f)
{
	return f == NULL ? 0 : __atomic_load_n(&f->n_live, __ATOMIC_RELAXED);
}

int
gw_mbox_flow_lookup_bulk(const struct gw_mbox_flows *f, const struct gw_mbox_flow_key *keys,
			 const uint32_t *hash, unsigned n, uint32_t *idx)
{
	const void *kp[RTE_HASH_LOOKUP_BULK_MAX];
	void *d[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t hits = 0;
	int found;

	if (n == 0 || n > RTE_HASH_LOOKUP_BULK_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		kp[i] = &keys[i];
	if (hash != NULL)     /* rte_hash only reads hash[]: the cast drops no write */
		found = rte_hash_lookup_with_hash_bulk_data(f->h, kp, (uint32_t *)(uintptr_t)hash,
							    n, &hits, d);
	else
		found = rte_hash_lookup_bulk_data(f->h, kp, n, &hits, d);
	for (unsigned i = 0; i < n; i++)
		idx[i] = (hits >> i) & 1 ? data_idx(d[i]) : GW_MBOX_FLOW_NONE;
	return found;
}

const struct gw_mbox_flow *
gw_mbox_flow_lookup(const struct gw_mbox_flows *f, const struct gw_mbox_flow_key *key)
{
	return flow_find(f, key);
}

struct gw_mbox_flow_wk *
gw_mbox_flows_wk(const struct gw_mbox_flows *f, unsigned worker)
{
	return worker < f->n_workers ? f->wk[worker] : NULL;
}

int
gw_mbox_flow_iterate(const struct gw_mbox_flows *f, uint32_t *cursor, struct gw_mbox_flow *out,
		     struct gw_mbox_flow_stats *st)
{
	const void *k;
	void *d;

	while (rte_hash_iterate(f->h, &k, &d, cursor) >= 0) {
		const struct gw_mbox_flow *fl = &f->fl[data_idx(d)];

		/* deleted after rte_hash_iterate read its slot: not there now */
		if (!__atomic_load_n(&fl->live, __ATOMIC_ACQUIRE))
			continue;
		out->key = fl->key;
		out->assoc = __atomic_load_n(&fl->assoc, __ATOMIC_ACQUIRE);
		out->lab = __atomic_load_n(&fl->lab, __ATOMIC_ACQUIRE);
		out->idx = fl->idx;
		out->live = 1;
		if (st != NULL)
			flow_sum(f, fl, st);
		return 0;
	}
	return -ENOENT;
}

uint32_t
gw_mbox_flows_capacity(const struct gw_mbox_flows *f)
{
	return f->max;
}

uint32_t
gw_mbox_flows_pending(const struct gw_mbox_flows *f)
{
	return __atomic_load_n(&f->n_pending, __ATOMIC_RELAXED);
}

uint32_t
gw_mbox_flows_lab_count(const struct gw_mbox_flows *f)
{
	return __atomic_load_n(&f->n_lab, __ATOMIC_RELAXED);
}

size_t
gw_mbox_flows_bytes_per_flow(const struct gw_mbox_flows *f)
{
	return (f->heap_bytes + f->max - 1) / f->max;
}
