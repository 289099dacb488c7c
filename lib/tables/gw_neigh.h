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
#include <rte_hash.h>
#include <rte_ether.h>
#include "gw_config.h"

struct gw_neigh_key {
	uint16_t port;
	uint8_t family;
	uint8_t pad;
	uint8_t ip[16];
};

#define GW_NEIGH_VALID   (1ULL << 63)
#define GW_NEIGH_STATIC  (1ULL << 62)

/* Create the table (entries: max neighbours). NULL on failure. */
struct rte_hash *gw_neigh_create(const char *name, uint32_t entries, int socket);

/* Set (or overwrite unless static) the MAC of (port, ip). Control lcore only.
 * Returns 0, or -1 when the table is full. */
int gw_neigh_set(struct rte_hash *h, uint16_t port, const struct gw_addr *ip,
		 const struct rte_ether_addr *mac, bool is_static);

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

#endif
