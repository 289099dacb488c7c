/* SPDX-License-Identifier: BSD-3-Clause
 * Peer locators for the inbound workers' unknown-SPI path. ESP for an SPI
 * the SAD does not know cannot be decrypted and is dropped (no_sa); when it
 * comes from a locator of a [peer] with which we have no SA, that peer still
 * has SAs with us that we lost (we restarted), and only a new Base Exchange
 * brings the tunnel back (RFC 7401 section 4.4.2: the peer, ESTABLISHED,
 * takes our I2 as a restarted peer's, section 6.9). Nothing else would: ESP
 * is never retransmitted, and the peer keeps its SAs until their lifetime.
 *
 * The workers match the outer source address here themselves (an rte_hash
 * of every [peer]'s locators) and hand the control lcore at most one packet
 * per peer per GW_UNKNOWN_SPI_PEER_GAP_MS and GW_UNKNOWN_SPI_PUNTS_PER_S in
 * all, so that a flood of random SPIs from a spoofed peer address costs the
 * control lcore almost nothing. Built by the control lcore before the workers
 * start and never changed while they run (lock-free readers); the rate
 * limit's state is updated with atomics, by whichever worker sees a packet.
 */
#ifndef HIPGW_PEERLOC_H
#define HIPGW_PEERLOC_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_common.h>
#include <rte_hash.h>
#include "gw_types.h"

#define GW_UNKNOWN_SPI_PEER_GAP_MS  1000  /* ms between two BEX triggers for one peer */
#define GW_UNKNOWN_SPI_PUNTS_PER_S  16    /* triggers all workers together punt per second */

/* Rate-limit state of one peer, a cache line of its own (workers write it). */
struct gw_peerloc_peer {
	int slot;                  /* the peer's SPD out slot (gw_sadb_out): an SA there
	                            * means we have the association, nothing to start */
	uint64_t next_tsc;         /* no trigger for this peer before this TSC (atomic) */
} __rte_cache_aligned;

struct gw_peerloc {
	struct rte_hash *h;        /* struct gw_peerloc_key -> peer index */
	struct gw_peerloc_peer *peers;
	unsigned n_peers;
	uint64_t hz;               /* TSC cycles per second */
	uint64_t gap_tsc;          /* GW_UNKNOWN_SPI_PEER_GAP_MS in TSC cycles */
	uint64_t window;           /* (TSC second << 16) | triggers punted in it (atomic) */
};

/* Create an empty table for n_peers peers (their slots -1) and up to
 * n_locators locators, on NUMA socket `socket`; name: the rte_hash's.
 * Returns NULL when out of memory. */
struct gw_peerloc *gw_peerloc_create(const char *name, unsigned n_peers, unsigned n_locators,
				     int socket);
/* Free it (NULL: nothing). The workers must have stopped. */
void gw_peerloc_free(struct gw_peerloc *t);
/* Add locator `loc` (an outer unicast address) of peer index `peer`, whose
 * out slot is `slot`. Before the workers start. Returns 0; 1 when the address
 * is another peer's locator already (it stays that peer's); -1 when the peer
 * is out of range or the table full. */
int gw_peerloc_add(struct gw_peerloc *t, const struct gw_addr *loc, unsigned peer, int slot);

/* The source address of the IP packet l3 (IPv4 or IPv6 header, checked by
 * the caller) into *src. */
void gw_peerloc_src(const uint8_t *l3, struct gw_addr *src);
/* The peer index whose locator is the source address of the IP packet l3
 * (IPv4 or IPv6 header, checked by the caller), or -1. Any lcore. */
int gw_peerloc_find(const struct gw_peerloc *t, const uint8_t *l3);

/* May peer `peer` get a BEX trigger at TSC `tsc`? True at most once per
 * GW_UNKNOWN_SPI_PEER_GAP_MS per peer and GW_UNKNOWN_SPI_PUNTS_PER_S times
 * per TSC second in all, across every lcore that asks (lock-free). */
bool gw_peerloc_take(struct gw_peerloc *t, unsigned peer, uint64_t tsc);

#endif
