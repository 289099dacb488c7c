/* SPDX-License-Identifier: BSD-3-Clause
 * The counter sinks of the stats output: a JSON object on the --stats-json
 * file and a DPDK telemetry dict (gw_sinks.h), and the name and string
 * helpers they share with gw_statsout.c.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <rte_common.h>
#include <rte_telemetry.h>

#include "gw_sinks.h"

#define TIMES_NAME_MAX 64                    /* bytes: "GROUP_ms", "NAME_us" */
#define NS_PER_MS 1e6
#define NS_PER_US 1000

const char *
gw_tel_name(const char *name, char *buf, size_t len)
{
	size_t i;
	for (i = 0; name[i] && i + 1 < len; i++)
		buf[i] = (isalnum((unsigned char)name[i]) || name[i] == '_') ? name[i] : '_';
	buf[i] = 0;
	return buf;
}

void
gw_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* ---- the --stats-json file ---- */

static struct gw_json_sink *
json_of(struct gw_stat_sink *s)
{
	return container_of(s, struct gw_json_sink, sink);
}

/* The separator and "name": of the next member; false while left out. */
static bool
json_key(struct gw_json_sink *js, const char *name)
{
	unsigned i = js->depth - 1;

	if (js->skip > 0)
		return false;
	if (js->lines[i])
		fprintf(js->f, "%s\n%*s", js->first[i] ? "" : ",", (int)(2 * (js->depth + 1)), "");
	else if (!js->first[i])
		fputs(", ", js->f);
	js->first[i] = false;
	gw_json_str(js->f, name);
	fputs(": ", js->f);
	return true;
}

static void
json_u64(struct gw_stat_sink *s, const char *name, uint64_t v)
{
	struct gw_json_sink *js = json_of(s);

	if (json_key(js, name))
		fprintf(js->f, "%" PRIu64, v);
}

static void
json_string(struct gw_stat_sink *s, const char *name, const char *v)
{
	struct gw_json_sink *js = json_of(s);

	if (json_key(js, name))
		gw_json_str(js->f, v);
}

static void
json_begin(struct gw_stat_sink *s, const char *name)
{
	struct gw_json_sink *js = json_of(s);

	if (js->skip > 0 || js->depth == GW_STAT_SINK_DEPTH) {
		js->skip++;
		return;
	}
	if (js->first[js->depth - 1])
		js->lines[js->depth - 1] = true;    /* objects of objects: one a line */
	json_key(js, name);
	fputc('{', js->f);
	js->first[js->depth] = true;
	js->lines[js->depth] = false;
	js->depth++;
}

static void
json_end(struct gw_stat_sink *s)
{
	struct gw_json_sink *js = json_of(s);

	if (js->skip > 0) {
		js->skip--;
		return;
	}
	if (js->depth > 1) {
		js->depth--;
		fputc('}', js->f);
	}
}

static void
json_times_ns(struct gw_stat_sink *s, const char *group, const char *const *names,
	      const uint64_t *ns, unsigned n)
{
	struct gw_json_sink *js = json_of(s);
	char key[TIMES_NAME_MAX];

	snprintf(key, sizeof(key), "%s_ms", group);
	if (!json_key(js, key))
		return;
	fputc('{', js->f);
	for (unsigned k = 0; k < n; k++) {
		fprintf(js->f, "%s", k ? ", " : "");
		gw_json_str(js->f, names[k]);
		if (ns[k] == 0)
			fputs(": null", js->f);     /* not measured (the other side's step) */
		else
			fprintf(js->f, ": %.3f", ns[k] / NS_PER_MS);
	}
	fputc('}', js->f);
}

void
gw_json_sink_open(struct gw_json_sink *js, FILE *f)
{
	*js = (struct gw_json_sink){
		.sink = { json_u64, json_string, json_begin, json_end, json_times_ns },
		.f = f, .depth = 1, .first = { true },
	};
	fputc('{', f);
}

void
gw_json_sink_close(struct gw_json_sink *js)
{
	while (js->skip > 0 || js->depth > 1)
		json_end(&js->sink);
	fputc('}', js->f);
}

/* ---- DPDK telemetry ---- */

static struct gw_tel_sink *
tel_of(struct gw_stat_sink *s)
{
	return container_of(s, struct gw_tel_sink, sink);
}

/* The dict the next member goes to, or NULL while left out or full. */
static struct rte_tel_data *
tel_dict(struct gw_tel_sink *ts)
{
	unsigned i = ts->depth - 1;

	if (ts->skip > 0 || ts->n[i] >= RTE_TEL_MAX_DICT_ENTRIES)
		return NULL;
	return ts->d[i];
}

/* Member name: the string str, or v when str is NULL. */
static void
tel_add(struct gw_stat_sink *s, const char *name, const char *str, uint64_t v)
{
	struct gw_tel_sink *ts = tel_of(s);
	struct rte_tel_data *d = tel_dict(ts);
	char nb[RTE_TEL_MAX_STRING_LEN];

	if (d == NULL)
		return;
	gw_tel_name(name, nb, sizeof(nb));
	if ((str != NULL ? rte_tel_data_add_dict_string(d, nb, str) :
			   rte_tel_data_add_dict_u64(d, nb, v)) == 0)
		ts->n[ts->depth - 1]++;
}

static void
tel_u64(struct gw_stat_sink *s, const char *name, uint64_t v)
{
	tel_add(s, name, NULL, v);
}

static void
tel_string(struct gw_stat_sink *s, const char *name, const char *v)
{
	tel_add(s, name, v, 0);
}

static void
tel_begin(struct gw_stat_sink *s, const char *name)
{
	struct gw_tel_sink *ts = tel_of(s);
	struct rte_tel_data *c = NULL;

	if (tel_dict(ts) == NULL || ts->depth == GW_STAT_SINK_DEPTH ||
	    (c = rte_tel_data_alloc()) == NULL) {
		ts->skip++;
		return;
	}
	rte_tel_data_start_dict(c);
	ts->d[ts->depth] = c;
	gw_tel_name(name, ts->name[ts->depth], sizeof(ts->name[0]));
	ts->n[ts->depth] = 0;
	ts->depth++;
}

static void
tel_end(struct gw_stat_sink *s)
{
	struct gw_tel_sink *ts = tel_of(s);
	unsigned i;

	if (ts->skip > 0) {
		ts->skip--;
		return;
	}
	if (ts->depth <= 1)
		return;
	i = --ts->depth;
	/* keep 0: DPDK frees the container with the reply */
	if (rte_tel_data_add_dict_container(ts->d[i - 1], ts->name[i], ts->d[i], 0) == 0)
		ts->n[i - 1]++;
	else
		rte_tel_data_free(ts->d[i]);
}

static void
tel_times_ns(struct gw_stat_sink *s, const char *group, const char *const *names,
	     const uint64_t *ns, unsigned n)
{
	char key[TIMES_NAME_MAX];

	(void)group;
	for (unsigned k = 0; k < n; k++) {
		snprintf(key, sizeof(key), "%s_us", names[k]);
		tel_u64(s, key, ns[k] / NS_PER_US);
	}
}

void
gw_tel_sink_open(struct gw_tel_sink *ts, struct rte_tel_data *d)
{
	*ts = (struct gw_tel_sink){
		.sink = { tel_u64, tel_string, tel_begin, tel_end, tel_times_ns },
		.d = { d }, .depth = 1,
	};
	rte_tel_data_start_dict(d);
}

void
gw_tel_sink_close(struct gw_tel_sink *ts)
{
	while (ts->skip > 0 || ts->depth > 1)
		tel_end(&ts->sink);
}
