/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <stddef.h>

#include "gw_stats.h"

struct gw_lcore_stats gw_stats[RTE_MAX_LCORE];

const char *
gw_drop_name(enum gw_drop reason)
{
	static const char *const names[GW_DROP_MAX] = {
		[GW_DROP_NONE] = "none",
#define GW_DROP_NAME(id, name) [GW_DROP_##id] = name,
		GW_DROP_LIST(GW_DROP_NAME)
#undef GW_DROP_NAME
	};
	return (unsigned)reason < GW_DROP_MAX ? names[reason] : "unknown";
}

uint64_t
gw_stats_total(size_t off)
{
	uint64_t sum = 0, v;

	for (unsigned i = 0; i < RTE_MAX_LCORE; i++) {
		memcpy(&v, (const uint8_t *)&gw_stats[i] + off, sizeof(v));
		sum += v;
	}
	return sum;
}

uint64_t
gw_stats_drop_total(enum gw_drop reason)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < RTE_MAX_LCORE; i++)
		sum += gw_stats[i].drops[reason];
	return sum;
}

const char *
gw_pmtu_event_name(enum gw_pmtu_event e)
{
	static const char *const names[GW_PMTU_MAX] = {
#define GW_PMTU_NAME(id, name) [GW_PMTU_##id] = name,
		GW_PMTU_LIST(GW_PMTU_NAME)
#undef GW_PMTU_NAME
	};
	return (unsigned)e < GW_PMTU_MAX ? names[e] : "unknown";
}

uint64_t
gw_stats_pmtu_total(enum gw_pmtu_event e)
{
	return gw_stats_total(offsetof(struct gw_lcore_stats, pmtu) + e * sizeof(uint64_t));
}
