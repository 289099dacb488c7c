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
#include "gw_limits.h"

/* What became of each ICMP fragmentation needed / ICMPv6 Packet Too Big that
 * reached an outer port (path MTU, lib/ctrl/gw_pmtu_icmp.c); each lands in
 * exactly one counter. The names are the stats JSON keys of "pmtu". */
#define GW_PMTU_LIST(X) \
	X(LOWERED, "lowered")                     /* quoted a recent packet of ours: path MTU lowered */ \
	X(NOT_LOWER, "not_lower")                 /* genuine, but not below the path MTU in force: ignored */ \
	X(REFUSED_MALFORMED, "refused_malformed") /* lengths, checksum, fragment, quote cut short or
						   * not an ESP packet as we send it */ \
	X(REFUSED_MTU, "refused_mtu")             /* MTU 0, not below the quoted packet's length, IPv6
						   * below 1280 */ \
	X(REFUSED_NO_SA, "refused_no_sa")         /* no live out SA of that SPI, source and destination */ \
	X(REFUSED_SEQ, "refused_seq")             /* sequence number not among the SA's last sent */ \
	X(RAISED, "raised")                       /* not an ICMP: a path back to its port MTU after
						   * pmtu-age */

enum gw_pmtu_event {
#define GW_PMTU_ENUM(id, name) GW_PMTU_##id,
	GW_PMTU_LIST(GW_PMTU_ENUM)
#undef GW_PMTU_ENUM
	GW_PMTU_MAX
};

struct gw_lcore_stats {
	uint64_t drops[GW_DROP_MAX];
	uint64_t port_rx[GW_PORTS_MAX];   /* packets received per port by this lcore */
	uint64_t port_tx[GW_PORTS_MAX];   /* packets sent per port by this lcore (the control
	                                   * lcore: on its own packet socket) */
	/* frames from the port's own MAC received per port (a worker, on a port
	 * where the control lcore has a packet socket: the kernel's loop-back
	 * copies of its frames), freed unseen; also in port_rx */
	uint64_t ctrl_looped[GW_PORTS_MAX];
	uint64_t punted;                  /* packets handed to the control lcore */
	/* inbound single writer (several workers): ESP packets handed to the
	 * worker owning their SA, received from other workers, and refused
	 * because that worker's ring was full (also counted as ring_full drops) */
	uint64_t handoff_out, handoff_in, handoff_drops;
	/* --slow-path: frames sent to the control lcore for their SA lookup, and
	 * stamped frames this worker finished (read by the control lcore) */
	uint64_t slow_sent, slow_done;
	/* decapsulated IPv4 packets without DF longer than their inner port's
	 * MTU, handed to the control lcore to fragment */
	uint64_t inner_fragmented;
	/* L2 mode: ESP packets of bridge SAs longer than their outer MTU that
	 * this worker fragmented after encryption (lib/dp/gw_frag_out.c), and
	 * the outer fragments they made (each routed and sent) */
	uint64_t esp_fragmented, esp_fragments;
	/* ESP for an unknown SPI from a [peer]'s locator (gw_peerloc.h), each
	 * also a no_sa drop: Base Exchanges it started (control lcore), packets
	 * over the trigger rate limit (workers), and packets with nothing to
	 * start: we have SAs with the peer (workers) or a BEX with it runs
	 * (control lcore) */
	uint64_t unknown_spi_bex, unknown_spi_ratelimit, unknown_spi_ignored;
	uint64_t pmtu[GW_PMTU_MAX];       /* the control lcore: path MTU events */
	/* L2 bridges (workers): frames flooded to every remote (once per frame,
	 * not per copy), source MACs sent to the control lcore to learn, and
	 * those its learn ring had no room for (the frame still forwarded) */
	uint64_t l2_flooded, l2_learn_sent, l2_learn_ring_full;
	/* middlebox mode, packets bridged from one port of the pair to the other
	 * (workers): ESP of a known flow (first fragments included), later
	 * fragments of a first that passed, ICMP errors quoting a known flow,
	 * ARP / ND / MLD, bypass traffic; HIP punted to the control lcore; and
	 * (control lcore) HIP the tracker let through */
	/* UDP to the HIP NAT traversal port (workers, RFC 3948 / RFC 5770): ESP
	 * taken out of UDP for the SAD, HIP control packets behind the non-ESP
	 * marker punted to the control lcore, NAT-keepalives dropped */
	uint64_t udp_esp, udp_hip, udp_keepalive;
	/* NAT rebinding on watched in SAs (workers, gw_nat.c): rebindings
	 * posted to the control lcore, those its ring had no room for, and
	 * authenticated packets from a new path that were not the highest
	 * sequence number so far (a replay or late copy: nothing moves) */
	uint64_t nat_rebind_posted, nat_ring_full, nat_rebind_old;
	uint64_t mbox_esp, mbox_frags, mbox_icmp, mbox_l2, mbox_bypass, mbox_hip_punted,
		 mbox_hip_fwd;
	uint64_t mbox_udp_esp;     /* of mbox_esp: ESP in UDP (RFC 3948) */
	uint64_t mbox_keepalive;   /* NAT-keepalives between known locators forwarded */
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

/* Name of a path MTU event as in the stats JSON ("unknown" out of range), and
 * its sum over all lcores. */
const char *gw_pmtu_event_name(enum gw_pmtu_event e);
uint64_t gw_stats_pmtu_total(enum gw_pmtu_event e);

#endif
