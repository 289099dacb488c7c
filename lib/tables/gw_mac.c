/* SPDX-License-Identifier: BSD-3-Clause
 * MAC learning table (gw_mac.h): an rte_hash with lock-free readers from
 * struct gw_mac_key to an entry of a fixed array. A delete takes the key out
 * of the hash (the key slot is kept: lock-free mode frees none on delete) and
 * queues {key slot, entry} on an RCU defer queue; once the readers' grace
 * period is over the slot goes back to the hash and the entry to the free list.
 */
#include <errno.h>
#include <string.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include "gw_mac.h"
#include "gw_sa.h"

struct gw_mac_table {
	struct rte_hash *h;
	struct rte_rcu_qsbr *rcu;
	struct rte_rcu_qsbr_dq *dq;
	struct gw_mac_entry *e;      /* max entries */
	uint32_t *free_idx;          /* stack of free entry indexes */
	uint32_t n_free;
	uint32_t max;
	uint32_t n_live;
	uint32_t n_pending;
	uint32_t cursor;             /* next entry slot gw_mac_age visits */
	uint64_t age_ns;
	size_t heap_bytes;           /* measured at creation */
	struct gw_mac_counters c;
};

/* What the defer queue keeps of a deleted entry, 8 bytes. */
struct mac_deferred {
	uint32_t key_pos;            /* rte_hash_del_key's position */
	uint32_t entry;              /* index into e[] */
};

static void
mac_release(struct gw_mac_table *t, const struct mac_deferred *d)
{
	rte_hash_free_key_with_position(t->h, (int32_t)d->key_pos);
	t->free_idx[t->n_free++] = d->entry;
	t->n_pending--;
}

/* rte_rcu_qsbr defer queue callback: e points at n struct mac_deferred. */
static void
dq_free(void *p, void *e, unsigned int n)
{
	for (unsigned i = 0; i < n; i++) {
		struct mac_deferred d;

		memcpy(&d, (uint8_t *)e + i * sizeof(d), sizeof(d));
		mac_release(p, &d);
	}
}

/* rte_hash's key compare for struct gw_mac_key (rte_hash_cmp_eq_t: 0 when
 * equal): one 8-byte compare. rte_hash's own compares are for multiples of
 * 16 bytes; any other key length goes to memcmp. */
static int
mac_key_cmp(const void *a, const void *b, size_t len __rte_unused)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x != y;
}

#define MAC_HASH_INIT 0u   /* the rte_hash's hash_func_init_val */

/* The key's hash: one CRC32C over its 8 bytes (what rte_hash_crc gives for
 * 8 bytes), inline where the bulk lookup computes its keys' hashes. */
static inline uint32_t
mac_key_hash(const void *key, uint32_t init)
{
	uint64_t x;

	memcpy(&x, key, sizeof(x));
	return rte_hash_crc_8byte(x, init);
}

/* mac_key_hash as the rte_hash's hash function (rte_hash_function). */
static uint32_t
mac_hash_fn(const void *key, uint32_t len __rte_unused, uint32_t init)
{
	return mac_key_hash(key, init);
}

struct gw_mac_table *
gw_mac_create(const struct gw_mac_params *p)
{
	uint32_t max = p->max_entries != 0 ? p->max_entries : GW_MAC_ENTRIES_DEFAULT;
	uint64_t age = p->age_ns != 0 ? p->age_ns : (uint64_t)GW_MAC_AGE_DEFAULT_S * 1000000000u;
	char dqname[RTE_RCU_QSBR_DQ_NAMESIZE];
	struct gw_mac_table *t;
	size_t heap0;

	if (p->rcu == NULL || p->name == NULL || max > GW_MAC_ENTRIES_MAX ||
	    age > (uint64_t)GW_MAC_AGE_MAX_S * 1000000000u) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* a quarter more key slots than entries: the cuckoo hash fills up
	 * before 100 %; deleted keys wait in their slots within that bound */
	struct rte_hash_parameters hp = {
		.name = p->name,
		.entries = max + max / 4 + 8,
		.key_len = sizeof(struct gw_mac_key),
		.hash_func = mac_hash_fn,
		.hash_func_init_val = MAC_HASH_INIT,
		.socket_id = p->socket,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	struct rte_rcu_qsbr_dq_parameters dqp = {
		.name = dqname,
		.size = max,
		.esize = sizeof(struct mac_deferred),
		.trigger_reclaim_limit = 64,
		.max_reclaim_size = 64,
		.free_fn = dq_free,
		.v = p->rcu,
	};

	heap0 = gw_heap_allocated();
	t = rte_zmalloc_socket("hipgw_mac", sizeof(*t), RTE_CACHE_LINE_SIZE, p->socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	t->max = max;
	t->age_ns = age;
	t->rcu = p->rcu;
	t->e = rte_zmalloc_socket("hipgw_mac_e", sizeof(t->e[0]) * max, RTE_CACHE_LINE_SIZE,
				  p->socket);
	t->free_idx = rte_malloc_socket("hipgw_mac_f", sizeof(uint32_t) * max, 0, p->socket);
	t->h = rte_hash_create(&hp);
	if (t->h != NULL)
		rte_hash_set_cmp_func(t->h, mac_key_cmp);
	snprintf(dqname, sizeof(dqname), "%s", p->name);
	dqp.p = t;
	t->dq = rte_rcu_qsbr_dq_create(&dqp);
	if (t->e == NULL || t->free_idx == NULL || t->h == NULL || t->dq == NULL) {
		int err = t->h == NULL && rte_errno == EEXIST ? EEXIST : ENOMEM;

		gw_mac_free(t);
		rte_errno = err;
		return NULL;
	}
	for (uint32_t i = 0; i < max; i++)
		t->free_idx[i] = max - 1 - i;     /* entry 0 taken first */
	t->n_free = max;
	t->heap_bytes = gw_heap_allocated() - heap0;
	return t;
}

void
gw_mac_free(struct gw_mac_table *t)
{
	if (t == NULL)
		return;
	if (t->dq != NULL)
		rte_rcu_qsbr_dq_delete(t->dq);   /* no reader online: reclaims all */
	rte_hash_free(t->h);
	rte_free(t->free_idx);
	rte_free(t->e);
	rte_free(t);
}

const struct gw_mac_entry *
gw_mac_lookup(const struct gw_mac_table *t, const uint8_t mac[GW_MAC_ADDR_BYTES], uint16_t vlan)
{
	struct gw_mac_key k = gw_mac_key_make(mac, vlan);
	void *d;

	return rte_hash_lookup_data(t->h, &k, &d) < 0 ? NULL : d;
}

int
gw_mac_lookup_bulk(const struct gw_mac_table *t, const struct gw_mac_key *keys, unsigned n,
		   const struct gw_mac_entry **out)
{
	const void *kp[RTE_HASH_LOOKUP_BULK_MAX];
	void *d[RTE_HASH_LOOKUP_BULK_MAX];
	hash_sig_t sig[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t hits = 0;
	int found;

	if (n == 0 || n > RTE_HASH_LOOKUP_BULK_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		kp[i] = &keys[i];
		sig[i] = mac_key_hash(&keys[i], MAC_HASH_INIT);
	}
	found = rte_hash_lookup_with_hash_bulk_data(t->h, kp, sig, n, &hits, d);
	for (unsigned i = 0; i < n; i++)
		out[i] = (hits >> i) & 1 ? d[i] : NULL;
	return found;
}

int
gw_mac_iterate(const struct gw_mac_table *t, uint32_t *cursor, struct gw_mac_entry *out)
{
	const void *k;
	void *d;

	while (rte_hash_iterate(t->h, &k, &d, cursor) >= 0) {
		const struct gw_mac_entry *e = d;

		/* deleted after rte_hash_iterate read its slot: not there now */
		if (!__atomic_load_n(&e->live, __ATOMIC_ACQUIRE))
			continue;
		out->key = e->key;
		out->where = gw_mac_where(e);
		out->last_seen_ns = __atomic_load_n(&e->last_seen_ns, __ATOMIC_RELAXED);
		out->is_static = e->is_static;
		out->live = 1;
		return 0;
	}
	return -ENOENT;
}

/* A free entry, or NULL; reclaims what it can when there is none. */
static struct gw_mac_entry *
entry_get(struct gw_mac_table *t)
{
	if (t->n_live >= t->max)
		return NULL;
	if (t->n_free == 0)
		gw_mac_reclaim(t);
	return t->n_free == 0 ? NULL : &t->e[t->free_idx[--t->n_free]];
}

/* A new entry for key k at `where`, published complete by the hash add.
 * Returns 0 or -ENOSPC. */
static int
entry_insert(struct gw_mac_table *t, const struct gw_mac_key *k, uint32_t where, bool is_static,
	     uint64_t now_ns)
{
	struct gw_mac_entry *e = entry_get(t);

	if (e == NULL)
		return -ENOSPC;
	e->key = *k;
	e->where = where;
	e->is_static = is_static;
	e->last_seen_ns = now_ns;
	e->live = 1;
	if (rte_hash_add_key_data(t->h, k, e) < 0) {
		e->live = 0;
		t->free_idx[t->n_free++] = (uint32_t)(e - t->e);
		return -ENOSPC;
	}
	t->n_live++;
	return 0;
}

static struct gw_mac_entry *
entry_find(struct gw_mac_table *t, const struct gw_mac_key *k)
{
	void *d;

	return rte_hash_lookup_data(t->h, k, &d) < 0 ? NULL : d;
}

enum gw_mac_learn_result
gw_mac_learn(struct gw_mac_table *t, const uint8_t mac[GW_MAC_ADDR_BYTES], uint16_t vlan,
	     uint32_t where, uint64_t now_ns)
{
	struct gw_mac_key k = gw_mac_key_make(mac, vlan);
	struct gw_mac_entry *e;

	if (vlan > GW_MAC_VLAN_MAX)
		return GW_MAC_REFUSED_VLAN;
	if (gw_mac_is_group(mac)) {
		t->c.multicast++;
		return GW_MAC_REFUSED_MULTICAST;
	}
	e = entry_find(t, &k);
	if (e == NULL) {
		if (entry_insert(t, &k, where, false, now_ns) != 0) {
			t->c.full++;
			return GW_MAC_REFUSED_FULL;
		}
		t->c.learned++;
		return GW_MAC_LEARNED;
	}
	if (e->is_static) {
		if (e->where != where)
			t->c.static_kept++;
		return GW_MAC_STATIC_KEPT;
	}
	/* the control lcore's learn is exact (a worker's touch goes in steps) */
	if (__atomic_load_n(&e->last_seen_ns, __ATOMIC_RELAXED) < now_ns)
		__atomic_store_n(&e->last_seen_ns, now_ns, __ATOMIC_RELAXED);
	if (e->where == where)
		return GW_MAC_REFRESHED;
	__atomic_store_n(&e->where, where, __ATOMIC_RELEASE);
	t->c.moved++;
	return GW_MAC_MOVED;
}

int
gw_mac_add_static(struct gw_mac_table *t, const uint8_t mac[GW_MAC_ADDR_BYTES], uint16_t vlan,
		  uint32_t where)
{
	struct gw_mac_key k = gw_mac_key_make(mac, vlan);
	struct gw_mac_entry *e;

	if (vlan > GW_MAC_VLAN_MAX || gw_mac_is_group(mac))
		return -EINVAL;
	e = entry_find(t, &k);
	if (e == NULL)
		return entry_insert(t, &k, where, true, 0);
	e->is_static = 1;
	__atomic_store_n(&e->where, where, __ATOMIC_RELEASE);
	return 0;
}

/* Take live entry e out of the hash; its memory waits for the grace period. */
static void
entry_delete(struct gw_mac_table *t, struct gw_mac_entry *e)
{
	struct mac_deferred d = { .entry = (uint32_t)(e - t->e) };
	int32_t pos = rte_hash_del_key(t->h, &e->key);

	if (pos < 0)     /* not in the hash: cannot be, e is live */
		return;
	d.key_pos = (uint32_t)pos;
	e->live = 0;
	t->n_live--;
	t->n_pending++;
	if (rte_rcu_qsbr_dq_enqueue(t->dq, &d) != 0) {
		/* queue full (it holds max entries, so never): wait here */
		rte_rcu_qsbr_synchronize(t->rcu, RTE_QSBR_THRID_INVALID);
		mac_release(t, &d);
	}
}

int
gw_mac_delete(struct gw_mac_table *t, const uint8_t mac[GW_MAC_ADDR_BYTES], uint16_t vlan)
{
	struct gw_mac_key k = gw_mac_key_make(mac, vlan);
	struct gw_mac_entry *e = entry_find(t, &k);

	if (e == NULL)
		return -ENOENT;
	entry_delete(t, e);
	return 0;
}

unsigned
gw_mac_age(struct gw_mac_table *t, uint64_t now_ns, unsigned visits)
{
	unsigned deleted = 0;

	if (visits == 0)
		visits = GW_MAC_AGE_VISITS_DEFAULT;
	if (visits > t->max)
		visits = t->max;
	for (unsigned i = 0; i < visits; i++) {
		struct gw_mac_entry *e = &t->e[t->cursor];
		uint64_t seen;

		t->cursor = t->cursor + 1 == t->max ? 0 : t->cursor + 1;
		if (!e->live || e->is_static)
			continue;
		seen = __atomic_load_n(&e->last_seen_ns, __ATOMIC_RELAXED);
		if (seen > now_ns || now_ns - seen < t->age_ns)
			continue;
		entry_delete(t, e);
		t->c.aged++;
		deleted++;
	}
	return deleted;
}

unsigned
gw_mac_reclaim(struct gw_mac_table *t)
{
	unsigned pending = 0;

	rte_rcu_qsbr_dq_reclaim(t->dq, t->max, NULL, &pending, NULL);
	return pending;
}

uint32_t
gw_mac_count(const struct gw_mac_table *t)
{
	return t->n_live;
}

uint32_t
gw_mac_capacity(const struct gw_mac_table *t)
{
	return t->max;
}

uint32_t
gw_mac_pending(const struct gw_mac_table *t)
{
	return t->n_pending;
}

const struct gw_mac_counters *
gw_mac_counters(const struct gw_mac_table *t)
{
	return &t->c;
}

const char *
gw_mac_result_name(enum gw_mac_learn_result r)
{
	switch (r) {
	case GW_MAC_LEARNED: return "learned";
	case GW_MAC_REFRESHED: return "refreshed";
	case GW_MAC_MOVED: return "moved";
	case GW_MAC_STATIC_KEPT: return "static_kept";
	case GW_MAC_REFUSED_MULTICAST: return "refused_multicast";
	case GW_MAC_REFUSED_FULL: return "refused_full";
	case GW_MAC_REFUSED_VLAN: return "refused_vlan";
	}
	return "?";
}

size_t
gw_mac_bytes_per_entry(const struct gw_mac_table *t)
{
	return (t->heap_bytes + t->max - 1) / t->max;
}
