/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_hash_crc.h>
#include "gw_neigh.h"

struct rte_hash *
gw_neigh_create(const char *name, uint32_t entries, int socket)
{
	struct rte_hash_parameters p = {
		.name = name,
		.entries = entries,
		.key_len = sizeof(struct gw_neigh_key),
		.hash_func = rte_hash_crc,
		.socket_id = socket,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	return rte_hash_create(&p);
}

int
gw_neigh_set(struct rte_hash *h, uint16_t port, const struct gw_addr *ip,
	     const struct rte_ether_addr *mac, bool is_static)
{
	struct gw_neigh_key k;
	void *old;
	uint64_t v = GW_NEIGH_VALID | (is_static ? GW_NEIGH_STATIC : 0);

	gw_neigh_key_make(&k, port, ip->family, ip->addr);
	if (!is_static && rte_hash_lookup_data(h, &k, &old) >= 0 &&
	    ((uint64_t)(uintptr_t)old & GW_NEIGH_STATIC))
		return 0;
	for (int i = 0; i < 6; i++)
		v |= (uint64_t)mac->addr_bytes[i] << (8 * (5 - i));
	return rte_hash_add_key_data(h, &k, (void *)(uintptr_t)v) < 0 ? -1 : 0;
}
