/* SPDX-License-Identifier: BSD-3-Clause
 * Neighbour table: (port, IP address) -> MAC. rte_hash with lock-free readers
 * (RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF): the control lcore is the only writer
 * (ARP RFC 826, ND RFC 4861, static neighbours); workers read it per burst.
 * The MAC is stored in the hash's data word itself, so an update is one atomic store.
 */
#ifndef HIPGW_NEIGH_H
#define HIPGW_NEIGH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_common.h>
#include <rte_hash.h>
#include <rte_ether.h>
#include "gw_types.h"

struct gw_neigh_key {
	uint16_t port;
	uint8_t family;
	uint8_t pad;
	uint8_t ip[16];
};

#define GW_NEIGH_VALID     (1ULL << 63)
#define GW_NEIGH_STATIC    (1ULL << 62)
#define GW_NEIGH_CONFIRMED (1ULL << 61)   /* learned (ARP / ND) since the last refresh walk */
#define GW_NEIGH_PROBED    (1ULL << 60)   /* asked for by a refresh walk, no answer since */

/* Create the table (entries: max neighbours). NULL on failure. */
struct rte_hash *gw_neigh_create(const char *name, uint32_t entries, int socket);

/* Set (or overwrite unless static) the MAC of (port, ip). Control lcore only.
 * Returns 0, or -1 when the table is full. */
int gw_neigh_set(struct rte_hash *h, uint16_t port, const struct gw_addr *ip,
		 const struct rte_ether_addr *mac, bool is_static);

/* Called by gw_neigh_refresh for each neighbour to ask for again. */
typedef void (*gw_neigh_probe_fn)(void *arg, uint16_t port, const struct gw_addr *ip);

/* One refresh walk over the learned (not static) neighbours, control lcore
 * only; run every [gateway] neighbor-refresh seconds. RFC 826 lets any ARP
 * packet for us set its sender's MAC, so one spoofed request would otherwise
 * hold a next hop (a peer's locator) on a false MAC for good; like RFC 4861
 * section 7.3's reachability confirmation, entries must be heard from again:
 * one learned since the last walk loses that mark, one not learned since is
 * marked and handed to probe (to send an ARP request / NS; its answer learns
 * it anew), one still marked (no answer for a whole walk interval) becomes
 * invalid (gw_neigh_get: unknown), so its next use resolves it again. Returns
 * the number made invalid: the caller bumps the table generation then. */
unsigned gw_neigh_refresh(struct rte_hash *h, gw_neigh_probe_fn probe, void *arg);

static inline void
gw_neigh_key_make(struct gw_neigh_key *k, uint16_t port, uint8_t family, const uint8_t *ip)
{
	memset(k, 0, sizeof(*k));
	k->port = port;
	k->family = family;
	memcpy(k->ip, ip, family == 4 ? 4 : 16);
}

/* Look up (port, family, ip). Returns true and fills mac when known. */
static inline bool
gw_neigh_get(const struct rte_hash *h, uint16_t port, uint8_t family, const uint8_t *ip,
	     struct rte_ether_addr *mac)
{
	struct gw_neigh_key k;
	void *data;
	uint64_t v;

	gw_neigh_key_make(&k, port, family, ip);
	if (rte_hash_lookup_data(h, &k, &data) < 0)
		return false;
	v = (uint64_t)(uintptr_t)data;
	if (!(v & GW_NEIGH_VALID))
		return false;
	for (int i = 0; i < 6; i++)
		mac->addr_bytes[i] = (uint8_t)(v >> (8 * (5 - i)));
	return true;
}

/* Per-lcore cache in front of the neighbour table, for the worker's next-hop
 * MAC: direct-mapped, GW_NEIGH_CACHE_SIZE entries indexed by a hash of (port,
 * address), so a site's many on-link hosts each keep their entry and the
 * steady state does no rte_hash lookup and no memcmp call. An entry is valid
 * only while the table's generation (gw_ctx.neigh_gen, which the control lcore
 * bumps after every neighbour change) is the one it was filled under; a miss
 * falls back to gw_neigh_get and refills the slot. Zeroed = empty. Owned by
 * one lcore, never shared. 64 entries of one cache line: 4 KiB per worker. */
#define GW_NEIGH_CACHE_BITS 6
#define GW_NEIGH_CACHE_SIZE (1u << GW_NEIGH_CACHE_BITS)

struct gw_neigh_cache_ent {
	uint64_t gen;            /* neigh_gen the entry was filled under */
	uint64_t ip[2];          /* address; IPv4 in the first 4 bytes, rest zero */
	uint16_t port;
	uint8_t family;          /* 4 or 6; 0 = empty */
	struct rte_ether_addr mac;
} __rte_cache_aligned;

struct gw_neigh_cache {
	struct gw_neigh_cache_ent e[GW_NEIGH_CACHE_SIZE];
};

/* Slot of (port, family, ip): Fibonacci hashing of the address's last 32 bits
 * (IPv4: all of it; IPv6: the interface identifier's low half, folded with the
 * high half) and the port. */
static inline unsigned
gw_neigh_cache_slot(uint16_t port, uint8_t family, const uint64_t ip[2])
{
	uint64_t x = family == 4 ? ip[0] : ip[0] ^ ip[1];
	uint32_t w = (uint32_t)x ^ (uint32_t)(x >> 32) ^ ((uint32_t)port << 16);

	return (w * 0x9e3779b1u) >> (32 - GW_NEIGH_CACHE_BITS);
}

/* MAC of (port, family, ip) through cache c: from the cache when it holds the
 * entry under generation `gen` (read with acquire before the call), else from
 * table h (gw_neigh_get), which then fills the slot. Returns true and fills
 * mac when known; false (unresolved) leaves the cache as it was. */
static inline bool
gw_neigh_cache_get(struct gw_neigh_cache *c, const struct rte_hash *h, uint64_t gen,
		   uint16_t port, uint8_t family, const uint8_t *ip, struct rte_ether_addr *mac)
{
	uint64_t a[2];
	struct gw_neigh_cache_ent *e;

	/* whole-word loads (a variable-size copy into a zeroed key would cost a
	 * store-forwarding stall) */
	if (family == 4) {
		uint32_t v4;

		memcpy(&v4, ip, 4);
		a[0] = v4;
		a[1] = 0;
	} else {
		memcpy(a, ip, 16);
	}
	e = &c->e[gw_neigh_cache_slot(port, family, a)];
	if (likely(e->gen == gen && e->family == family && e->port == port &&
		   e->ip[0] == a[0] && e->ip[1] == a[1])) {
		rte_ether_addr_copy(&e->mac, mac);
		return true;
	}
	if (!gw_neigh_get(h, port, family, ip, mac))
		return false;
	e->gen = gen;
	e->ip[0] = a[0];
	e->ip[1] = a[1];
	e->port = port;
	e->family = family;
	rte_ether_addr_copy(mac, &e->mac);
	return true;
}

#endif
