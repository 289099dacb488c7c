/* SPDX-License-Identifier: BSD-3-Clause
 * MAC learning table of one L2 bridge: which side of the bridge a MAC address
 * on a VLAN lives on, the local Ethernet segment or one of the bridge's peers
 * (a peer index, never a locator), so that a frame to it goes there alone and
 * a frame to an unknown MAC is flooded. Source addresses are learned as frames
 * arrive, a learned address seen at another place moves at once, one not seen
 * for the table's age is deleted; static entries (from the config) never age
 * and never move.
 *
 * Threads: an rte_hash (key: struct gw_mac_key) with lock-free readers
 * (RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF). Only the control lcore writes
 * (learn, static add, delete, age, reclaim). Workers look up and refresh an
 * entry's last-seen time with a relaxed atomic store in the entry, never a
 * write to the hash; what a worker cannot do (learn a new MAC, move one) it
 * asks of the control lcore. A deleted entry leaves the hash at once, but its
 * key slot and its memory are given back only after every reader of the
 * caller's rte_rcu_qsbr variable passed a quiescent state (our own defer
 * queue, rte_rcu_qsbr_dq, run by gw_mac_reclaim), as the SAD does with in SAs:
 * an entry a worker looked up stays valid until its next quiescent state.
 *
 * Memory: fixed at creation, max_entries entries (deleted ones count until
 * reclaimed); gw_mac_bytes_per_entry gives the measured figure.
 */
#ifndef HIPGW_MAC_H
#define HIPGW_MAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_rcu_qsbr.h>
#include "gw_limits.h"

#define GW_MAC_ADDR_BYTES          6
#define GW_MAC_VLAN_MAX            4095      /* a VLAN ID has 12 bits; 0: untagged */
#define GW_MAC_AGE_VISITS_DEFAULT  1024u     /* entries one gw_mac_age call visits */
#define GW_MAC_LOCAL               UINT32_MAX /* where: the bridge's own segment */
#define GW_MAC_TOUCH_STEP_NS       1000000000ULL /* ns: how far a worker's touch lets last-seen lag */

/* The hash key: 8 bytes, padding none (mac then vlan). Build it with
 * gw_mac_key_make so that equal addresses give equal bytes. 8-byte aligned:
 * rte_hash_crc reads it as one uint64_t. */
struct gw_mac_key {
	uint8_t mac[GW_MAC_ADDR_BYTES];
	uint16_t vlan;               /* 0 .. GW_MAC_VLAN_MAX, host order */
} __rte_aligned(8);

/* One entry, the hash's key data. Workers read `where` and write
 * `last_seen_ns` with atomics; the rest is the control lcore's. */
struct gw_mac_entry {
	uint64_t last_seen_ns;       /* ns, the caller's clock (atomic, relaxed) */
	struct gw_mac_key key;
	uint32_t where;              /* GW_MAC_LOCAL or a peer index (atomic) */
	uint8_t is_static;           /* from the config: never aged, never moved */
	uint8_t live;                /* in the hash (0: free or waiting for reclaim) */
};

/* What the table counted (control lcore writes, anyone reads). */
struct gw_mac_counters {
	uint64_t learned;            /* new learned entries */
	uint64_t moved;              /* learned entries moved to another place */
	uint64_t full;               /* learns refused: table full (the caller floods) */
	uint64_t multicast;          /* learns refused: group source address */
	uint64_t static_kept;        /* a static entry's MAC seen elsewhere: not moved */
	uint64_t aged;               /* learned entries deleted by ageing */
};

/* What gw_mac_learn did. */
enum gw_mac_learn_result {
	GW_MAC_LEARNED,              /* a new entry */
	GW_MAC_REFRESHED,            /* known at that place: last seen updated */
	GW_MAC_MOVED,                /* known elsewhere: moved there */
	GW_MAC_STATIC_KEPT,          /* a static entry: left where it is */
	GW_MAC_REFUSED_MULTICAST,    /* group (multicast/broadcast) source: never learned */
	GW_MAC_REFUSED_FULL,         /* no room: not learned */
	GW_MAC_REFUSED_VLAN,         /* VLAN ID above GW_MAC_VLAN_MAX */
};

struct gw_mac_params {
	const char *name;            /* the rte_hash's name, unique in the process */
	uint32_t max_entries;        /* entries, 1 .. GW_MAC_ENTRIES_MAX (0: the default) */
	uint64_t age_ns;             /* ns, 1 .. GW_MAC_AGE_MAX_S s (0: the default) */
	struct rte_rcu_qsbr *rcu;    /* the readers' QSBR variable (workers registered) */
	int socket;                  /* NUMA socket, or SOCKET_ID_ANY */
};

struct gw_mac_table;

/* Create an empty table. Returns NULL with rte_errno EINVAL (a parameter out
 * of range, rcu NULL) or ENOMEM / EEXIST (the name is taken). */
struct gw_mac_table *gw_mac_create(const struct gw_mac_params *p);
/* Free it and every entry (NULL: nothing). No reader may be online on the
 * table's rcu any more (workers stopped or offline). */
void gw_mac_free(struct gw_mac_table *t);

/* The key of `mac` (6 bytes) on `vlan`. */
static inline struct gw_mac_key
gw_mac_key_make(const uint8_t mac[GW_MAC_ADDR_BYTES], uint16_t vlan)
{
	struct gw_mac_key k;

	for (unsigned i = 0; i < GW_MAC_ADDR_BYTES; i++)
		k.mac[i] = mac[i];
	k.vlan = vlan;
	return k;
}

/* The key of the MAC at p on `vlan`, as gw_mac_key_make, built in one 8-byte
 * word (no byte stores for the compare that reads it whole to wait for):
 * for a MAC inside a frame, with 8 readable bytes at p (the 6 of the MAC
 * and 2 more, which are not used). */
static inline struct gw_mac_key
gw_mac_key_load(const uint8_t *p, uint16_t vlan)
{
	struct gw_mac_key k;
	uint64_t x;

	memcpy(&x, p, sizeof(x));
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	x = (x & 0x0000ffffffffffffULL) | (uint64_t)vlan << 48;
#else
	x = (x & 0xffffffffffff0000ULL) | vlan;
#endif
	memcpy(&k, &x, sizeof(k));
	return k;
}
_Static_assert(sizeof(struct gw_mac_key) == sizeof(uint64_t), "an 8-byte key: one word (gw_mac_key_load, the hash's compare)");

/* True when `mac` is a group address (multicast or broadcast: the I/G bit,
 * the least significant bit of the first byte, set), never a source to learn. */
static inline bool
gw_mac_is_group(const uint8_t mac[GW_MAC_ADDR_BYTES])
{
	return (mac[0] & 1) != 0;
}

/* The clock the gateway's MAC tables run on, ns: the TSC in ns since it
 * started (no syscall; workers and the control lcore read the same). */
static inline uint64_t
gw_mac_now_ns(void)
{
	uint64_t tsc = rte_rdtsc(), hz = rte_get_tsc_hz();

	return tsc / hz * 1000000000ULL + tsc % hz * 1000000000ULL / hz;
}

/* ---- readers: workers and the control lcore --------------------------------- */

/* The entry of `mac` (6 bytes) on `vlan`, or NULL (unknown: flood). Valid
 * until the caller's next RCU quiescent state. Lock-free, no write. */
const struct gw_mac_entry *gw_mac_lookup(const struct gw_mac_table *t,
					 const uint8_t mac[GW_MAC_ADDR_BYTES], uint16_t vlan);
/* Bulk lookup of n (at most RTE_HASH_LOOKUP_BULK_MAX, 64) keys for a burst:
 * out[i] the entry of keys[i] or NULL. Returns how many were found, or -EINVAL
 * (n out of range). */
int gw_mac_lookup_bulk(const struct gw_mac_table *t, const struct gw_mac_key *keys,
		       unsigned n, const struct gw_mac_entry **out);

/* Walk the table: the next entry in the hash from *cursor (0: the start),
 * copied into *out (`where` and `last_seen_ns` read atomically, `live` 1).
 * Returns 0, or -ENOENT at the end (*out untouched). *cursor is an rte_hash
 * position (rte_hash_iterate): hand it back as it is for the next entry, or
 * keep it to go on later. O(capacity) for a whole walk: not for workers.
 * Who may call it: the control lcore, or a thread registered on the table's
 * rcu while it is online (telemetry, between gw_sadb_ext_read_begin and
 * _end): a deleted entry's key slot and memory are reused only after such a
 * reader's quiescent state, so each copy is one whole entry. Entries that
 * the control lcore adds, deletes or moves (cuckoo displacement) during the
 * walk may be missed or seen twice: a view for telemetry, not a snapshot. */
int gw_mac_iterate(const struct gw_mac_table *t, uint32_t *cursor, struct gw_mac_entry *out);

/* Where entry e lives: GW_MAC_LOCAL or a peer index. */
static inline uint32_t
gw_mac_where(const struct gw_mac_entry *e)
{
	return __atomic_load_n(&e->where, __ATOMIC_ACQUIRE);
}

/* The entry was seen at now_ns (ns): its last-seen time goes forward to
 * now_ns (one relaxed store) when it is GW_MAC_TOUCH_STEP_NS or more behind,
 * else it stays: an entry's line is written once a step, not once a frame
 * (and not by every worker that forwards the MAC). A learned MAC that keeps
 * being seen therefore shows a last-seen up to a step old, and ageing (an
 * age of whole seconds, [bridge] mac-age 10 s at least) may delete it a step
 * early: when it was not seen for its age less the step. */
static inline void
gw_mac_touch(const struct gw_mac_entry *ce, uint64_t now_ns)
{
	struct gw_mac_entry *e = (struct gw_mac_entry *)(uintptr_t)ce;
	uint64_t seen = __atomic_load_n(&e->last_seen_ns, __ATOMIC_RELAXED);

	if (now_ns > seen && now_ns - seen >= GW_MAC_TOUCH_STEP_NS)
		__atomic_store_n(&e->last_seen_ns, now_ns, __ATOMIC_RELAXED);
}

/* ---- the control lcore -------------------------------------------------------- */

/* Learn source `mac` (6 bytes) on `vlan`, seen at `where` (GW_MAC_LOCAL or a
 * peer index) at now_ns (ns). A learned entry seen elsewhere moves at once; a
 * static one stays. Returns what it did; a refusal (GW_MAC_REFUSED_*) changes
 * nothing but its counter (none for VLAN). */
enum gw_mac_learn_result gw_mac_learn(struct gw_mac_table *t, const uint8_t mac[GW_MAC_ADDR_BYTES],
				      uint16_t vlan, uint32_t where, uint64_t now_ns);
/* Add (or make) the static entry `mac` on `vlan` at `where`. Returns 0, or
 * -EINVAL (group address, VLAN above GW_MAC_VLAN_MAX), -ENOSPC (full). */
int gw_mac_add_static(struct gw_mac_table *t, const uint8_t mac[GW_MAC_ADDR_BYTES],
		      uint16_t vlan, uint32_t where);
/* Delete the entry of `mac` on `vlan` (learned or static): out of the hash
 * now, its memory after the readers' grace period (gw_mac_reclaim). Returns
 * 0 or -ENOENT. */
int gw_mac_delete(struct gw_mac_table *t, const uint8_t mac[GW_MAC_ADDR_BYTES], uint16_t vlan);
/* Ageing, bounded work: visit at most `visits` entry slots (0: the default,
 * GW_MAC_AGE_VISITS_DEFAULT) from where the last call stopped, wrapping, and
 * delete each learned entry not seen for the table's age at now_ns (ns): a
 * last-seen time at most now_ns - age_ns. Returns the entries deleted. */
unsigned gw_mac_age(struct gw_mac_table *t, uint64_t now_ns, unsigned visits);
/* Give back the memory of deleted entries whose grace period is over (never
 * waits). Returns the entries still waiting. */
unsigned gw_mac_reclaim(struct gw_mac_table *t);

/* Entries in the hash now (learned and static), at most max_entries. */
uint32_t gw_mac_count(const struct gw_mac_table *t);
/* Entries the table holds at most (max_entries, or its default). */
uint32_t gw_mac_capacity(const struct gw_mac_table *t);
/* Deleted entries waiting for their grace period. */
uint32_t gw_mac_pending(const struct gw_mac_table *t);
const struct gw_mac_counters *gw_mac_counters(const struct gw_mac_table *t);
/* The result's name, for logs and tests ("learned", "refused_full", ...). */
const char *gw_mac_result_name(enum gw_mac_learn_result r);

/* Memory of the table per entry, bytes: everything gw_mac_create took from
 * the DPDK heap (the rte_hash's buckets and key slots, the entries, the free
 * list, the defer queue), measured, divided by max_entries and rounded up.
 * The value alone is sizeof(struct gw_mac_entry) (24) + 4 (free list). */
size_t gw_mac_bytes_per_entry(const struct gw_mac_table *t);

#endif
