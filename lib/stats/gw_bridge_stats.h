/* SPDX-License-Identifier: BSD-3-Clause
 * The L2 bridges in the stats output: each bridge's MAC table (entries,
 * capacity, reclaim, memory, its counters) for the --stats-json file and
 * telemetry (/hipgw/stats, /hipgw/bridges), and the entries of one table
 * page by page (/hipgw/bridge_macs). Names: docs/counters.md.
 */
#ifndef HIPGW_BRIDGE_STATS_H
#define HIPGW_BRIDGE_STATS_H

#include <stdint.h>
#include <rte_telemetry.h>

#include "gw_ctx.h"
#include "gw_statsink.h"

/* The counters of a MAC table (struct gw_mac_counters), X(name, doc) in
 * output order; docs/counters.md has the same table. */
#define GW_BRIDGE_MAC_COUNTERS(X) \
	X(learned, "source MACs learned (new entries)") \
	X(moved, "learned MACs seen at another place and moved there") \
	X(full, "MACs not learned: the table was full (their frames are flooded)") \
	X(multicast, "group (multicast, broadcast) source MACs, never learned") \
	X(static_kept, "a static entry's MAC seen at another place: left where the config says") \
	X(aged, "learned entries deleted after mac-age without a frame")

/* Entries of one /hipgw/bridge_macs reply at most. DPDK 22.11 telemetry
 * answers in one 16384-byte message and silently leaves out a member that
 * would not fit (here: the whole "macs" object), so a page stays well below:
 * an entry takes at most GW_BRIDGE_MACS_ENTRY_BYTES of JSON. */
#define GW_BRIDGE_MACS_PAGE        64
#define GW_BRIDGE_MACS_ENTRY_BYTES 160  /* "eNN":{"mac":..,"vlan":..,"where":NAME,..,"age_s":..} */
#define GW_TEL_REPLY_BYTES         16384 /* DPDK 22.11 telemetry: MAX_OUTPUT_LEN */
_Static_assert(GW_BRIDGE_MACS_PAGE * GW_BRIDGE_MACS_ENTRY_BYTES <= GW_TEL_REPLY_BYTES * 2 / 3,
	       "a page of MAC entries fits in one telemetry reply with room for the rest");

/* Every bridge of ctx as a member of s: NAME: {"port", "remotes", "entries",
 * "capacity", "pending", "bytes_per_entry", the counters}. Entries, pending:
 * entries now (gw_mac_count, gw_mac_pending); capacity: entries at most;
 * bytes_per_entry: bytes. Reads what the control lcore writes, without a
 * lock: each number is one aligned load. */
void gw_bridges_emit(const struct gw_ctx *ctx, struct gw_stat_sink *s);

/* /hipgw/bridge_macs,NAME[,CURSOR]: into d (a dict) up to
 * GW_BRIDGE_MACS_PAGE entries of bridge NAME's MAC table from CURSOR (0 or
 * none: the start): {"bridge", "entries", "capacity", "cursor", "next",
 * "macs": {"e0": {"mac", "vlan", "where", "static"[, "age_s"]}, ...}}. where:
 * "local" or the remote's name (the [peer] of a bridge with peers, else the
 * out SA of the remote's slot); age_s: s since the entry was last seen at
 * now_ns (ns, the tables' clock: gw_mac_now_ns), left out for a static
 * entry no frame has refreshed. next: the CURSOR of the next page, 0 when
 * this one reached the end. The caller must be online on the tables' RCU
 * (gw_sadb_ext_read_begin) for the walk (gw_mac_iterate) and the SA names.
 * Returns 0, or -1 (no such bridge, CURSOR not a number). */
int gw_bridge_macs_tel(struct gw_ctx *ctx, const char *params, uint64_t now_ns,
		       struct rte_tel_data *d);

#endif
