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
#include <rte_rcu_qsbr.h>
#include "gw_types.h"

#define GW_MBOX_FLOWS_MAX      1048576u   /* flows one table holds at most */

/* One worker's view of a flow (that worker writes; others read). */
struct gw_mbox_flow_wk {
	uint64_t packets;
	uint64_t bytes;                /* bytes of IP packet */
	uint64_t last_seen_ns;         /* ns, gw clock; 0: never */
};

/* What the tracker asks of a flow, summed over the workers. */
struct gw_mbox_flow_stats {
	uint64_t packets, bytes;
	uint64_t last_seen_ns;         /* the latest of the workers' (0: never) */
};

struct gw_mbox_flows;

/* A table for max_flows flows (1 .. GW_MBOX_FLOWS_MAX) read by n_workers
 * workers registered on rcu. Returns NULL with rte_errno EINVAL / ENOMEM /
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

#endif
