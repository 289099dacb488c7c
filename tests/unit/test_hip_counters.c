/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP counter lists (lib/keying/gw_hip_counters.h), the bridges' MAC
 * table counters (lib/stats/gw_bridge_stats.h) and the middlebox tracker's
 * counters and drop reasons (lib/mbox/mbox_track.h) against their tables in
 * docs/counters.md: each table follows a line "<!-- LIST -->" naming its
 * list, and has one row per entry, in any order, whose first cell is the
 * name as emitted in backquotes and whose second cell is the entry's doc
 * (the Base Exchange steps' third cell their log name in backquotes). A
 * counter in a list but not in its table, or in the table but not in the
 * list, or a text that differs, fails; the row the list wants is printed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gw_bridge_stats.h"
#include "gw_mbox_stats.h"
#include "gw_hip_counters.h"
#include "mbox_track.h"
#include "unit_file.h"

#ifndef HIPGW_DOCS_DIR
#define HIPGW_DOCS_DIR "docs"
#endif
#define COUNTERS_MD HIPGW_DOCS_DIR "/counters.md"
#define ROWS_MAX   64       /* table rows read at most */
#define CELL_MAX   256      /* bytes of a cell */

struct entry {
	const char *name, *doc, *log;   /* log: BEX steps only */
};

static const struct entry counters[] = {
#define X(name, field, doc) { name, doc, NULL },
	GW_HIP_COUNTERS(X)
#undef X
};
static const struct entry drops[] = {
#define X(name, field, doc) { name, doc, NULL },
	GW_HIP_DROPS(X)
#undef X
};
static const struct entry peer_counters[] = {
#define X(name, field, doc) { name, doc, NULL },
	GW_HIP_PEER_COUNTERS(X)
#undef X
};
static const struct entry bex_steps[] = {
#define X(name, field, log, doc) { name, doc, log },
	GW_HIP_BEX_STEPS(X)
#undef X
};

static const struct entry bridge_counters[] = {
#define X(name, doc) { #name, doc, NULL },
	GW_BRIDGE_MAC_COUNTERS(X)
#undef X
};

static const struct entry mbox_counters[] = {
#define X(name, doc) { #name, doc, NULL },
	MBOX_COUNTER_LIST(X)
#undef X
};

static const struct entry mbox_drops[] = {
#define X(id, name, doc) { name, doc, NULL },
	MBOX_DROP_LIST(X)
#undef X
};

static const struct entry mbox_dp_counters[] = {
#define X(name, field, doc) { #name, doc, NULL },
	GW_MBOX_COUNTERS(X)
#undef X
};

struct row {
	char cell[3][CELL_MAX];         /* the first three cells, trimmed */
};

/* The cells of one table line ("| a | b | c |"), trimmed, into r. */
static void
split_row(const char *line, size_t len, struct row *r)
{
	const char *p = line + 1, *end = line + len;

	memset(r, 0, sizeof(*r));
	for (unsigned c = 0; c < 3 && p < end; c++) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		const char *a = p, *b = bar ? bar : end;

		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		assert_true((size_t)(b - a) < CELL_MAX);
		memcpy(r->cell[c], a, (size_t)(b - a));
		if (bar == NULL)
			break;
		p = bar + 1;
	}
}

/* The rows of the table after "<!-- list -->" in md (header and separator
 * line left out) into rows; returns how many. */
static unsigned
table_rows(const char *md, const char *list, struct row *rows)
{
	char marker[64];
	const char *p;
	unsigned lines = 0, n = 0;

	snprintf(marker, sizeof(marker), "<!-- %s -->\n", list);
	p = strstr(md, marker);
	if (p == NULL)
		fail_msg("%s: no line \"<!-- %s -->\" before its table", COUNTERS_MD, list);
	assert_null(strstr(p + 1, marker));     /* one table per list */
	p += strlen(marker);
	while (*p == '|') {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (lines++ >= 2) {
			assert_true(n < ROWS_MAX);
			split_row(p, len, &rows[n++]);
		}
		p += len + (eol != NULL);
	}
	return n;
}

static void
check_list(const char *list, const struct entry *e, unsigned n_e)
{
	size_t md_len;
	char *md = (char *)unit_read_file(COUNTERS_MD, &md_len);
	struct row rows[ROWS_MAX];
	unsigned n = table_rows(md, list, rows), bad = 0;
	char want[CELL_MAX];

	for (unsigned i = 0; i < n_e; i++) {
		unsigned hits = 0;

		snprintf(want, sizeof(want), "`%s`", e[i].name);
		for (unsigned r = 0; r < n; r++) {
			if (strcmp(rows[r].cell[0], want) != 0)
				continue;
			hits++;
			if (strcmp(rows[r].cell[1], e[i].doc) != 0) {
				print_error("%s %s: the table says \"%s\", the list \"%s\"\n", list,
					    e[i].name, rows[r].cell[1], e[i].doc);
				bad++;
			}
			if (e[i].log != NULL) {
				char log[CELL_MAX];

				snprintf(log, sizeof(log), "`%s`", e[i].log);
				if (strcmp(rows[r].cell[2], log) != 0) {
					print_error("%s %s: log name %s, not %s\n", list, e[i].name,
						    rows[r].cell[2], log);
					bad++;
				}
			}
		}
		if (hits != 1) {
			print_error("%s %s: %u rows in %s; the list wants one: | `%s` | %s |\n", list,
				    e[i].name, hits, COUNTERS_MD, e[i].name, e[i].doc);
			bad++;
		}
	}
	for (unsigned r = 0; r < n; r++) {
		bool known = false;

		for (unsigned i = 0; i < n_e && !known; i++) {
			snprintf(want, sizeof(want), "`%s`", e[i].name);
			known = strcmp(rows[r].cell[0], want) == 0;
		}
		if (!known) {
			print_error("%s: %s is in the table of %s but not in the list\n", list,
				    rows[r].cell[0], COUNTERS_MD);
			bad++;
		}
	}
	free(md);
	assert_int_equal(bad, 0);
	assert_int_equal(n, n_e);
}

static void
test_counters(void **state)
{
	(void)state;
	check_list("GW_HIP_COUNTERS", counters, sizeof(counters) / sizeof(counters[0]));
}

static void
test_drops(void **state)
{
	(void)state;
	check_list("GW_HIP_DROPS", drops, sizeof(drops) / sizeof(drops[0]));
}

static void
test_peer_counters(void **state)
{
	(void)state;
	check_list("GW_HIP_PEER_COUNTERS", peer_counters,
		   sizeof(peer_counters) / sizeof(peer_counters[0]));
}

static void
test_bex_steps(void **state)
{
	(void)state;
	check_list("GW_HIP_BEX_STEPS", bex_steps, sizeof(bex_steps) / sizeof(bex_steps[0]));
}

static void
test_bridge_counters(void **state)
{
	(void)state;
	check_list("GW_BRIDGE_MAC_COUNTERS", bridge_counters,
		   sizeof(bridge_counters) / sizeof(bridge_counters[0]));
}

static void
test_mbox_lists(void **state)
{
	(void)state;
	check_list("MBOX_COUNTERS", mbox_counters, sizeof(mbox_counters) / sizeof(mbox_counters[0]));
	check_list("MBOX_DROPS", mbox_drops, sizeof(mbox_drops) / sizeof(mbox_drops[0]));
	check_list("GW_MBOX_COUNTERS", mbox_dp_counters,
		   sizeof(mbox_dp_counters) / sizeof(mbox_dp_counters[0]));
}

/* A name emitted twice in one object would hide one of its counters: none
 * twice in a list, and none that the walk (lib/keying/gw_hip_stats.c) puts
 * beside the list's: "hit", "drops" and "peers" beside GW_HIP_COUNTERS, the
 * file's "bex_ms" and telemetry's STEP_us beside GW_HIP_PEER_COUNTERS. */
static void
test_names_unique(void **state)
{
	static const char *const hip_members[] = { "hit", "drops", "peers" };
	const struct {
		const struct entry *e;
		unsigned n;
	} lists[] = {
		{ counters, sizeof(counters) / sizeof(counters[0]) },
		{ drops, sizeof(drops) / sizeof(drops[0]) },
		{ peer_counters, sizeof(peer_counters) / sizeof(peer_counters[0]) },
		{ bex_steps, sizeof(bex_steps) / sizeof(bex_steps[0]) },
	};

	(void)state;
	for (unsigned l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (unsigned i = 0; i < lists[l].n; i++)
			for (unsigned j = i + 1; j < lists[l].n; j++)
				if (strcmp(lists[l].e[i].name, lists[l].e[j].name) == 0)
					fail_msg("%s twice in one list", lists[l].e[i].name);
	for (unsigned i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		for (unsigned k = 0; k < sizeof(hip_members) / sizeof(hip_members[0]); k++)
			if (strcmp(counters[i].name, hip_members[k]) == 0)
				fail_msg("GW_HIP_COUNTERS has %s, a member of its own", counters[i].name);
	for (unsigned i = 0; i < sizeof(peer_counters) / sizeof(peer_counters[0]); i++) {
		assert_string_not_equal(peer_counters[i].name, "bex_ms");
		for (unsigned k = 0; k < sizeof(bex_steps) / sizeof(bex_steps[0]); k++) {
			char us[CELL_MAX];

			snprintf(us, sizeof(us), "%s_us", bex_steps[k].name);
			assert_string_not_equal(peer_counters[i].name, us);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_peer_counters),
		cmocka_unit_test(test_bex_steps),
		cmocka_unit_test(test_bridge_counters),
		cmocka_unit_test(test_mbox_lists),
		cmocka_unit_test(test_names_unique),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
