/* SPDX-License-Identifier: BSD-3-Clause
 * The two counter sinks (struct gw_stat_sink, lib/core/gw_statsink.h): one
 * writes a JSON object to the --stats-json file, one fills a DPDK telemetry
 * dict; and the name and string helpers the stats output shares.
 */
#ifndef HIPGW_GW_SINKS_H
#define HIPGW_GW_SINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <rte_telemetry.h>

#include "gw_statsink.h"

/* A JSON object written to f as the walk goes. An object whose first member
 * is an object puts each member on a line of its own (a table of objects,
 * such as "peers"); other objects stay on one line. */
struct gw_json_sink {
	struct gw_stat_sink sink;
	FILE *f;
	unsigned depth;                            /* objects open, 1 = the sink's own */
	unsigned skip;                             /* objects open beyond GW_STAT_SINK_DEPTH */
	bool first[GW_STAT_SINK_DEPTH];            /* no member in it yet */
	bool lines[GW_STAT_SINK_DEPTH];            /* one member per line */
};
/* Write "{" to f and start the sink's object at indent level 1 (its lines'
 * members at 2 * (level + 1) spaces); gw_json_sink_close writes its "}". */
void gw_json_sink_open(struct gw_json_sink *js, FILE *f);
void gw_json_sink_close(struct gw_json_sink *js);

/* A telemetry dict d, nested dicts for begin/end. Names go through
 * gw_tel_name. A dict holds RTE_TEL_MAX_DICT_ENTRIES members at most: the
 * later ones are left out, as are objects that cannot be allocated. */
struct gw_tel_sink {
	struct gw_stat_sink sink;
	struct rte_tel_data *d[GW_STAT_SINK_DEPTH];   /* d[0]: the caller's */
	char name[GW_STAT_SINK_DEPTH][RTE_TEL_MAX_STRING_LEN];  /* d[i]'s name in d[i - 1] */
	unsigned n[GW_STAT_SINK_DEPTH];               /* members added to d[i] */
	unsigned depth;                               /* dicts open, 1 = d[0] */
	unsigned skip;                                /* objects open but left out */
};
/* Start d as a dict (rte_tel_data_start_dict) and the sink on it. The nested
 * dicts become d's containers at their end (gw_tel_sink_close ends those
 * still open); d stays the caller's. */
void gw_tel_sink_open(struct gw_tel_sink *ts, struct rte_tel_data *d);
void gw_tel_sink_close(struct gw_tel_sink *ts);

/* DPDK telemetry accepts only [A-Za-z0-9_/] in names: name into buf (len
 * bytes) with every other character turned into '_' (section names such as
 * "a-to-b" appear as "a_to_b"; the stats file keeps them as written). */
const char *gw_tel_name(const char *name, char *buf, size_t len);
/* s as a JSON string, quoted and escaped, to f. */
void gw_json_str(FILE *f, const char *s);

#endif
