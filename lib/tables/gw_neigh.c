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
	uint64_t v = GW_NEIGH_VALID | (is_static ? GW_NEIGH_STATIC : GW_NEIGH_CONFIRMED);

	gw_neigh_key_make(&k, port, ip->family, ip->addr);
	if (!is_static && rte_hash_lookup_data(h, &k, &old) >= 0 &&
	    ((uint64_t)(uintptr_t)old & GW_NEIGH_STATIC))
		return 0;
	for (int i = 0; i < 6; i++)
		v |= (uint64_t)mac->addr_bytes[i] << (8 * (5 - i));
	return rte_hash_add_key_data(h, &k, (void *)(uintptr_t)v) < 0 ? -1 : 0;
}

unsigned
gw_neigh_refresh(struct rte_hash *h, gw_neigh_probe_fn probe, void *arg)
{
	const void *key;
	void *data;
	uint32_t iter = 0;
	unsigned invalid = 0;

	while (rte_hash_iterate(h, &key, &data, &iter) >= 0) {
		const struct gw_neigh_key *k = key;
		uint64_t v = (uint64_t)(uintptr_t)data, nv;

		if ((v & GW_NEIGH_STATIC) || !(v & GW_NEIGH_VALID))
			continue;
		if (v & GW_NEIGH_CONFIRMED) {
			nv = v & ~GW_NEIGH_CONFIRMED;
		} else if (!(v & GW_NEIGH_PROBED)) {
			nv = v | GW_NEIGH_PROBED;
		} else {
			nv = v & ~(GW_NEIGH_VALID | GW_NEIGH_PROBED);
			invalid++;
		}
		/* the key exists: an update in place, safe while iterating */
		if (rte_hash_add_key_data(h, key, (void *)(uintptr_t)nv) < 0)
			continue;
		if ((nv & GW_NEIGH_PROBED) && !(v & GW_NEIGH_PROBED)) {
			struct gw_addr ip = { .family = k->family };

			memcpy(ip.addr, k->ip, k->family == 4 ? 4 : 16);
			probe(arg, k->port, &ip);
		}
	}
	return invalid;
}
