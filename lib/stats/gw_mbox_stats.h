/* SPDX-License-Identifier: BSD-3-Clause
 * Middlebox mode in the stats output: the "middlebox" object of the
 * --stats-json file and of telemetry (/hipgw/stats, /hipgw/mbox), the flows
 * of the flow table page by page (/hipgw/mbox_flows) and the rules
 * (/hipgw/mbox_rules). Names: docs/counters.md.
 */
#ifndef HIPGW_MBOX_STATS_H
#define HIPGW_MBOX_STATS_H

#include <stdint.h>
#include <rte_telemetry.h>

#include "gw_ctx.h"
#include "gw_statsink.h"

/* The per-lcore counters of middlebox mode (struct gw_lcore_stats), summed,
 * X(name, field, doc) in output order; docs/counters.md has the same table. */
#define GW_MBOX_COUNTERS(X) \
	X(esp, mbox_esp, "ESP packets of a known flow forwarded (first fragments included)") \
	X(frags, mbox_frags, "later fragments forwarded after their first passed") \
	X(icmp, mbox_icmp, "ICMP / ICMPv6 errors quoting a known flow forwarded") \
	X(l2, mbox_l2, "ARP, neighbour discovery and MLD forwarded") \
	X(bypass, mbox_bypass, "packets between two bypass prefixes forwarded") \
	X(hip_punted, mbox_hip_punted, "HIP packets the workers handed to the tracker") \
	X(hip_forwarded, mbox_hip_fwd, "HIP packets the tracker let through") \
	X(udp_esp, mbox_udp_esp, "of esp: ESP in UDP to or from port 10500 (RFC 3948)") \
	X(keepalive, mbox_keepalive, "NAT-keepalives (0xFF, RFC 3948 2.3) between two locators of known associations forwarded")

/* What the layer that runs the tracker adds to the "middlebox" object (the
 * tracker's own figures), members written into s; NULL: nothing. */
typedef void gw_mbox_emit_fn(void *arg, struct gw_stat_sink *s);

/* The "middlebox" object's members into s: "ports" (the pair), "flows",
 * "lab_flows", "capacity", "pending" (flows now, [mbox-gen] ones among them,
 * at most, deleted and waiting for the RCU grace period), "bytes_per_flow"
 * (bytes), the counters, then what extra(arg) adds. Reads what the control
 * lcore and the workers write, without a lock: each number one aligned load. */
void gw_mbox_emit(const struct gw_ctx *ctx, struct gw_stat_sink *s, gw_mbox_emit_fn *extra,
		  void *arg);

/* Flows of one /hipgw/mbox_flows reply at most (DPDK 22.11 telemetry answers
 * in one 16384-byte message and leaves out what does not fit: see
 * gw_bridge_stats.h); a flow takes at most GW_MBOX_FLOWS_ENTRY_BYTES of JSON. */
#define GW_MBOX_FLOWS_PAGE        48
#define GW_MBOX_FLOWS_ENTRY_BYTES 200
_Static_assert(GW_MBOX_FLOWS_PAGE * GW_MBOX_FLOWS_ENTRY_BYTES <= 16384 * 2 / 3,
	       "a page of flows fits in one telemetry reply with room for the rest");

/* /hipgw/mbox_flows[,CURSOR]: into d (a dict) up to GW_MBOX_FLOWS_PAGE flows
 * from CURSOR (none or 0: the start): {"flows", "capacity", "cursor", "next",
 * "entries": {"f0": {"dst", "spi", "assoc", "lab", "packets", "bytes"[,
 * "age_s"]}, ...}}; age_s: s since a worker last forwarded its ESP at now_ns
 * (ns, the tables' clock), left out when none ever did; next: the CURSOR of
 * the next page, 0 at the end. The caller is online on the tables' RCU
 * (gw_sadb_ext_read_begin). Returns 0, or -1 (no flow table, CURSOR not a
 * number). */
int gw_mbox_flows_tel(struct gw_ctx *ctx, const char *params, uint64_t now_ns,
		      struct rte_tel_data *d);

/* /hipgw/mbox_rules: {"default": "deny", "rules": {"r0": {"name", "initiator",
 * "responder", "action"}, ...}} in match order, HITs in IPv6 notation or
 * "any". Returns 0, or -1 (not in middlebox mode). */
int gw_mbox_rules_tel(const struct gw_ctx *ctx, struct rte_tel_data *d);

#endif
