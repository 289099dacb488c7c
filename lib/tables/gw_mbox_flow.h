/* SPDX-License-Identifier: BSD-3-Clause
 * The middlebox's flow table: which ESP flows may cross the box. A flow is a
 * (destination address, SPI) pair (RFC 4303 section 2.1: the SPI with the
 * destination identifies the SA) that a verified HIP exchange bound to an
 * association (lib/mbox); ESP of any other flow is dropped.
 *
 * Threads: an rte_hash with lock-free readers; only the control lcore adds
 * and deletes; a deleted flow's memory is reused only after an RCU grace
 * period over the workers (as the SAD). Workers look up in bursts and count
 * into their own slot of the flow (packets, bytes, last-seen), no atomics
 * shared between workers.
 */
#ifndef HIPGW_MBOX_FLOW_H
#define HIPGW_MBOX_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_hash_crc.h>
#include <rte_rcu_qsbr.h>
#include "gw_limits.h"
#include "gw_types.h"

/* GW_MBOX_FLOWS_MAX (gw_limits.h): flows one table holds at most */
#define GW_MBOX_FLOW_ADDR_BYTES 16        /* a key's destination: room for IPv6 */

/* One worker's view of a flow (that worker writes; others read): 32 bytes,
 * aligned to 32, so a packet's count touches one cache line, never two. */
struct gw_mbox_flow_wk {
	uint64_t packets;
	uint64_t bytes;                /* bytes of IP packet */
	uint64_t last_seen_ns;         /* ns, gw clock; 0: never */
	uint64_t pad;                  /* 0 */
} __attribute__((aligned(32)));
_Static_assert(sizeof(struct gw_mbox_flow_wk) == 32, "a flow's counters: half a cache line");

/* A flow's counter slot as the data path has it (gw_mbox_flow_lookup_bulk):
 * the rte_hash value itself, so a lookup reads no flow struct. */
#define GW_MBOX_FLOW_NONE UINT32_MAX   /* no such flow */

/* What the tracker asks of a flow, summed over the workers. */
struct gw_mbox_flow_stats {
	uint64_t packets, bytes;
	uint64_t last_seen_ns;         /* the latest of the workers' (0: never) */
};

struct gw_mbox_flows;

/* The hash key, 24 bytes, padding zero (build it with gw_mbox_flow_key_set):
 * the SPI first, then the family, then the destination. 8-byte aligned: the
 * hash's compare reads it as three 64-bit words. */
struct gw_mbox_flow_key {
	uint32_t spi;                  /* host order */
	uint8_t family;                /* 4 or 6 */
	uint8_t pad[3];                /* 0 */
	uint8_t dst[GW_MBOX_FLOW_ADDR_BYTES];  /* network order; IPv4 in dst[0..3], rest 0 */
} __attribute__((aligned(8)));
_Static_assert(sizeof(struct gw_mbox_flow_key) == 24, "a 24-byte key: three words");

/* The key of destination dst (4 or 16 bytes, network order, family 4 or 6)
 * and spi (host order). Workers build one per ESP packet. */
static inline void
gw_mbox_flow_key_set(struct gw_mbox_flow_key *k, uint8_t family, const uint8_t *dst, uint32_t spi)
{
	uint64_t w[3] = { 0, 0, 0 };

	memcpy(k, w, sizeof(w));
	k->spi = spi;
	k->family = family;
	memcpy(k->dst, dst, family == 4 ? 4 : GW_MBOX_FLOW_ADDR_BYTES);
}

/* The table's hash of key k: CRC32C over its three words (the rte_hash's
 * hash function, and what a worker computes inline for the bulk lookup). */
static inline uint32_t
gw_mbox_flow_hash(const struct gw_mbox_flow_key *k)
{
	uint64_t x[3];

	memcpy(x, k, sizeof(x));
	return rte_hash_crc_8byte(x[2], rte_hash_crc_8byte(x[1], rte_hash_crc_8byte(x[0], 0)));
}

/* One flow: the key and its association. The control lcore writes it before
 * the hash add publishes it; afterwards only `assoc` and `lab` change (an
 * existing flow given to another association: atomic stores). `idx` is the
 * flow's slot in the table's flow array and in every worker's counter array,
 * and the hash's value. */
struct gw_mbox_flow {
	struct gw_mbox_flow_key key;
	uint32_t assoc;                /* the tracker's association id (atomic) */
	uint32_t idx;                  /* counter slot: gw_mbox_flows_wk(f, w)[idx] */
	uint8_t lab;                   /* made by the lab generator (atomic) */
	uint8_t live;                  /* in the hash (0: free or waiting for reclaim) */
};

/* A table for max_flows flows (1 .. GW_MBOX_FLOWS_MAX) read by n_workers
 * (1 .. GW_WORKERS_MAX) workers registered on rcu. Returns NULL with rte_errno EINVAL / ENOMEM /
 * EEXIST (name taken). */
struct gw_mbox_flows *gw_mbox_flows_create(const char *name, uint32_t max_flows,
					   unsigned n_workers, struct rte_rcu_qsbr *rcu,
					   int socket);
void gw_mbox_flows_free(struct gw_mbox_flows *f);

/* Control lcore. Add flow (dst, spi) of association `assoc` (the tracker's
 * id; `lab`: made by the lab generator, not by a verified exchange). An
 * existing flow is given to `assoc`. Returns 0, -EINVAL, -ENOSPC (full). */
int gw_mbox_flow_add(struct gw_mbox_flows *f, const struct gw_addr *dst, uint32_t spi,
		     uint32_t assoc, bool lab);
/* Control lcore. Delete flow (dst, spi): out of the hash now, memory after
 * the grace period (gw_mbox_flows_reclaim). Returns 0 or -ENOENT. */
int gw_mbox_flow_del(struct gw_mbox_flows *f, const struct gw_addr *dst, uint32_t spi);
/* The flow's counters summed over the workers. Returns 0 or -ENOENT. */
int gw_mbox_flow_stats(const struct gw_mbox_flows *f, const struct gw_addr *dst, uint32_t spi,
		       struct gw_mbox_flow_stats *out);
/* Give back deleted flows whose grace period is over. Returns those still waiting. */
unsigned gw_mbox_flows_reclaim(struct gw_mbox_flows *f);
uint32_t gw_mbox_flows_count(const struct gw_mbox_flows *f);

/* ---- additions: the workers' side, the walk, the sizes ---------------------- */

/* Workers and the control lcore. The counter slots (struct gw_mbox_flow's
 * idx) of the flows of keys[0..n-1] (n 1..64, RTE_HASH_LOOKUP_BULK_MAX) into
 * idx[] (GW_MBOX_FLOW_NONE: no such flow), one bulk rte_hash lookup with the
 * keys' hashes hash[] (gw_mbox_flow_hash; NULL: the lookup hashes them); a slot found is that flow's until
 * the caller's next RCU quiescent state. Reads no flow struct: the slot is
 * the hash's value. Lock-free, no write. Returns the flows found, or -EINVAL
 * (n out of range). */
int gw_mbox_flow_lookup_bulk(const struct gw_mbox_flows *f, const struct gw_mbox_flow_key *keys,
			     const uint32_t *hash, unsigned n, uint32_t *idx);
/* The same for one key (the --slow-path control lcore); NULL: none. */
const struct gw_mbox_flow *gw_mbox_flow_lookup(const struct gw_mbox_flows *f,
					       const struct gw_mbox_flow_key *key);

/* Workers and the control lcore. Whether addr (4 or 16 bytes, network
 * order, family 4 or 6) is the destination of some flow now: a locator of a
 * known association (the table keeps them with their flows). Lock-free, one
 * rte_hash lookup; for the NAT-keepalives that pass between two such
 * addresses (RFC 3948 2.3; docs/middlebox.md). */
bool gw_mbox_flow_locator_known(const struct gw_mbox_flows *f, uint8_t family, const uint8_t *addr);

/* Worker `worker`'s counter array (index a flow's idx), for that worker only
 * to write. */
struct gw_mbox_flow_wk *gw_mbox_flows_wk(const struct gw_mbox_flows *f, unsigned worker);

/* A worker counts one packet of `bytes` bytes (IP packet) of the flow of
 * counter slot idx at now_ns (ns) into its own array wk: relaxed atomic
 * stores of the one writer, read by the control lcore and telemetry. */
static inline void
gw_mbox_flow_count(struct gw_mbox_flow_wk *wk, uint32_t idx, uint32_t bytes, uint64_t now_ns)
{
	struct gw_mbox_flow_wk *c = &wk[idx];

	__atomic_store_n(&c->packets, c->packets + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->bytes, c->bytes + bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&c->last_seen_ns, now_ns, __ATOMIC_RELAXED);
}

/* Walk the table: the next flow from *cursor (0: the start; an rte_hash
 * position, handed back as it is) copied into *out, its counters into *st.
 * Returns 0, or -ENOENT at the end. The control lcore, or a thread online on
 * the table's rcu (telemetry); flows added or deleted during the walk may be
 * missed or seen twice (a view, not a snapshot). */
int gw_mbox_flow_iterate(const struct gw_mbox_flows *f, uint32_t *cursor, struct gw_mbox_flow *out,
			 struct gw_mbox_flow_stats *st);

uint32_t gw_mbox_flows_capacity(const struct gw_mbox_flows *f);
/* Deleted flows waiting for their grace period; flows with lab set. */
uint32_t gw_mbox_flows_pending(const struct gw_mbox_flows *f);
uint32_t gw_mbox_flows_lab_count(const struct gw_mbox_flows *f);
/* DPDK heap the table took at creation (hash, flows, counters, free list,
 * defer queue) divided by its capacity, rounded up: bytes per flow. */
size_t gw_mbox_flows_bytes_per_flow(const struct gw_mbox_flows *f);

#endif
