/* SPDX-License-Identifier: BSD-3-Clause
 * Peer locators and the rate limit of unknown-SPI BEX triggers (gw_peerloc.h).
 */
#include <stddef.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "gw_peerloc.h"
#include "hipgw_wire.h"

#define PEERLOC_HASH_MIN   16        /* rte_hash entries at least (its bucket is 8) */
#define PEERLOC_WIN_SHIFT  16        /* window: second in the high bits, count below */

/* Hash key: family then the address, zero-padded (IPv4 in the first 4 bytes). */
struct peerloc_key {
	uint8_t family;
	uint8_t pad[3];
	uint8_t addr[16];
};

struct gw_peerloc *
gw_peerloc_create(const char *name, unsigned n_peers, unsigned n_locators, int socket)
{
	struct gw_peerloc *t = rte_zmalloc_socket("hipgw_peerloc", sizeof(*t), RTE_CACHE_LINE_SIZE,
						  socket);
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = RTE_MAX(2 * n_locators, (unsigned)PEERLOC_HASH_MIN),
		.key_len = sizeof(struct peerloc_key),
		.hash_func = rte_hash_crc,
		.socket_id = socket,
	};

	if (t == NULL)
		return NULL;
	t->hz = rte_get_tsc_hz();
	t->gap_tsc = t->hz / 1000 * GW_UNKNOWN_SPI_PEER_GAP_MS;
	t->n_peers = n_peers;
	t->peers = rte_zmalloc_socket("hipgw_peerloc_peers", RTE_MAX(n_peers, 1u) * sizeof(*t->peers),
				      RTE_CACHE_LINE_SIZE, socket);
	t->h = rte_hash_create(&hp);
	if (t->peers == NULL || t->h == NULL) {
		gw_peerloc_free(t);
		return NULL;
	}
	for (unsigned i = 0; i < n_peers; i++)
		t->peers[i].slot = -1;
	return t;
}

void
gw_peerloc_free(struct gw_peerloc *t)
{
	if (t == NULL)
		return;
	rte_hash_free(t->h);
	rte_free(t->peers);
	rte_free(t);
}

int
gw_peerloc_add(struct gw_peerloc *t, const struct gw_addr *loc, unsigned peer, int slot)
{
	struct peerloc_key k = { .family = loc->family };

	if (peer >= t->n_peers || (loc->family != 4 && loc->family != 6))
		return -1;
	memcpy(k.addr, loc->addr, loc->family == 4 ? 4 : 16);
	t->peers[peer].slot = slot;
	if (rte_hash_lookup(t->h, &k) >= 0)
		return 1;
	return rte_hash_add_key_data(t->h, &k, (void *)(uintptr_t)peer) == 0 ? 0 : -1;
}

void
gw_peerloc_src(const uint8_t *l3, struct gw_addr *src)
{
	memset(src, 0, sizeof(*src));
	if (gw_ip_version(l3) == 4) {
		src->family = 4;
		memcpy(src->addr, l3 + offsetof(struct rte_ipv4_hdr, src_addr), 4);
	} else {
		src->family = 6;
		memcpy(src->addr, l3 + offsetof(struct rte_ipv6_hdr, src_addr), 16);
	}
}

int
gw_peerloc_find(const struct gw_peerloc *t, const uint8_t *l3)
{
	struct peerloc_key k = { 0 };
	struct gw_addr src;
	void *data;

	gw_peerloc_src(l3, &src);
	k.family = src.family;
	memcpy(k.addr, src.addr, sizeof(k.addr));
	if (rte_hash_lookup_data(t->h, &k, &data) < 0)
		return -1;
	return (int)(uintptr_t)data;
}

bool
gw_peerloc_take(struct gw_peerloc *t, unsigned peer, uint64_t tsc)
{
	uint64_t sec = tsc / t->hz, next, v, nv;

	if (peer >= t->n_peers)
		return false;
	next = __atomic_load_n(&t->peers[peer].next_tsc, __ATOMIC_RELAXED);
	if (tsc < next)
		return false;
	/* the global cap: one count per TSC second (an lcore whose TSC is a
	 * little behind counts in the newer second) */
	v = __atomic_load_n(&t->window, __ATOMIC_RELAXED);
	do {
		if ((v >> PEERLOC_WIN_SHIFT) < sec)
			nv = sec << PEERLOC_WIN_SHIFT | 1;
		else if ((v & ((1u << PEERLOC_WIN_SHIFT) - 1)) >= GW_UNKNOWN_SPI_PUNTS_PER_S)
			return false;
		else
			nv = v + 1;
	} while (!__atomic_compare_exchange_n(&t->window, &v, nv, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	/* the peer's turn: one lcore wins it (a loser's count of the cap stays spent) */
	return __atomic_compare_exchange_n(&t->peers[peer].next_tsc, &next, tsc + t->gap_tsc, false,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
