/* SPDX-License-Identifier: BSD-3-Clause
 * A sink for counters going out. The owner of a list of counters walks it
 * once into a sink; lib/stats has one sink that writes the --stats-json file
 * and one that fills a DPDK telemetry dict, so both outputs carry the same
 * names (docs/counters.md). Plain C: no DPDK, no stdio here.
 */
#ifndef HIPGW_STATSINK_H
#define HIPGW_STATSINK_H

#include <stdint.h>

/* Objects nested in one another at most (begin without end), the sink's own
 * object counting as the first: deeper members are left out. */
#define GW_STAT_SINK_DEPTH 4

struct gw_stat_sink {
	/* Member name: v, an integer (a count, or a value in the unit its
	 * name and docs/counters.md give). */
	void (*u64)(struct gw_stat_sink *s, const char *name, uint64_t v);
	/* Member name: the string v. */
	void (*str)(struct gw_stat_sink *s, const char *name, const char *v);
	/* Member name: an object of the members given until the matching end. */
	void (*begin)(struct gw_stat_sink *s, const char *name);
	void (*end)(struct gw_stat_sink *s);
	/* n durations ns[i] in ns (0: not measured) named names[i], of the group
	 * `group`. The file writes them as "GROUP_ms": {NAME: ms with 3
	 * decimals, or null, ...}; telemetry, which has integers only, as
	 * NAME_us: us (0 when not measured), flat in the current object. */
	void (*times_ns)(struct gw_stat_sink *s, const char *group, const char *const *names,
			 const uint64_t *ns, unsigned n);
};

#endif
