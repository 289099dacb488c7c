/* SPDX-License-Identifier: BSD-3-Clause
 * Per-lcore counters. Each lcore writes only its own cache-aligned slot, so no
 * atomics and no shared cache lines on the data path; readers (telemetry, the
 * stats file) sum over all slots and may see a slightly stale total.
 */
#ifndef HIPGW_STATS_H
#define HIPGW_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <rte_common.h>
#include <rte_lcore.h>
#include "gw_drop.h"

#define GW_MAX_PORTS 8

struct gw_lcore_stats {
	uint64_t drops[GW_DROP_MAX];
	uint64_t port_rx[GW_MAX_PORTS];   /* packets received per port by this lcore */
	uint64_t port_tx[GW_MAX_PORTS];   /* packets sent per port by this lcore (the control
	                                   * lcore: on its own packet socket) */
	/* frames from the port's own MAC received per port (a worker, on a port
	 * where the control lcore has a packet socket: the kernel's loop-back
	 * copies of its frames), freed unseen; also in port_rx */
	uint64_t ctrl_looped[GW_MAX_PORTS];
	uint64_t punted;                  /* packets handed to the control lcore */
	/* inbound single writer (several workers): ESP packets handed to the
	 * worker owning their SA, received from other workers, and refused
	 * because that worker's ring was full (also counted as ring_full drops) */
	uint64_t handoff_out, handoff_in, handoff_drops;
	/* --slow-path: frames sent to the control lcore for their SA lookup, and
	 * stamped frames this worker finished (read by the control lcore) */
	uint64_t slow_sent, slow_done;
	/* ESP for an unknown SPI from a [peer]'s locator (gw_peerloc.h), each
	 * also a no_sa drop: Base Exchanges it started (control lcore), packets
	 * over the trigger rate limit (workers), and packets with nothing to
	 * start: we have SAs with the peer (workers) or a BEX with it runs
	 * (control lcore) */
	uint64_t unknown_spi_bex, unknown_spi_ratelimit, unknown_spi_ignored;
} __rte_cache_aligned;

/* One slot per lcore id; index with rte_lcore_id(). */
extern struct gw_lcore_stats gw_stats[RTE_MAX_LCORE];

/* Count one drop of the given reason on the calling lcore. */
static inline void
gw_count_drop(enum gw_drop reason)
{
	gw_stats[rte_lcore_id()].drops[reason]++;
}

/* Sum of a drop reason over all lcores, packets. */
uint64_t gw_stats_drop_total(enum gw_drop reason);
/* Sum over all lcores of the uint64_t counter at byte offset `off` of struct
 * gw_lcore_stats (offsetof). */
uint64_t gw_stats_total(size_t off);

#endif
