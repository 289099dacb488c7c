/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw-memrate: how many random cache lines per second one core of this
 * machine can read out of a table the size of an SA database, for the
 * SA-count stage of perf/esp-bench (not a test; a figure to read beside it).
 *
 * The table is --mb MiB of 2 MiB hugepages (4 KiB pages when none are free),
 * cut into 2048-byte slots (about one SA's state each). Every step reads
 * --lines consecutive 64-byte lines of one slot chosen at random, with the
 * slots --ahead steps later prefetched, as a burst-wide prefetch does; the
 * best of a few prefetch distances counts. The result bounds an SA-bound
 * data path: a packet that needs L lines of its own SA, at a random SA out of
 * N, cannot go faster than slots/s at --lines L over N SAs' bytes.
 *
 * Output: one JSON object {"mb", "hugepages", "lines", "best_ahead",
 * "slots_per_s", "lines_per_s", "ns_per_slot"} per --lines value given.
 *
 * Usage: hipgw-memrate --mb MIB [--lines L[,L...]] [--steps N]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define SLOT 2048u
#define LINE 64u

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* xorshift64: the slot order (any fixed pseudo-random sequence does) */
static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ns per step over `steps` random slots reading `lines` lines each,
 * prefetching `ahead` steps ahead (0: none). */
static double
run(const uint8_t *base, const uint32_t *order, size_t steps, unsigned lines, unsigned ahead)
{
	volatile uint64_t sink = 0;
	double t0 = now_s();

	for (size_t i = 0; i < steps; i++) {
		const uint8_t *p = base + (size_t)order[i] * SLOT;
		uint64_t a = 0;

		if (ahead != 0 && i + ahead < steps) {
			const uint8_t *q = base + (size_t)order[i + ahead] * SLOT;
			for (unsigned l = 0; l < lines; l++)
				__builtin_prefetch(q + l * LINE);
		}
		for (unsigned l = 0; l < lines; l++)
			a += *(const volatile uint64_t *)(p + l * LINE);
		sink += a;
	}
	(void)sink;
	return (now_s() - t0) / (double)steps * 1e9;
}

int
main(int argc, char **argv)
{
	size_t mb = 0, steps = 4000000, bytes, nslots;
	const char *lines_arg = "1,4,8";
	unsigned aheads[] = { 0, 4, 8, 16, 32 };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int huge = 1;
	uint32_t *order;
	uint8_t *base;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--lines") == 0 && i + 1 < argc)
			lines_arg = argv[++i];
		else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
			steps = strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: hipgw-memrate --mb MIB [--lines L[,L...]] [--steps N]\n");
			return 2;
		}
	}
	if (mb == 0 || steps == 0) {
		fprintf(stderr, "hipgw-memrate: --mb and --steps must be > 0\n");
		return 2;
	}
	bytes = (mb + 1) / 2 * 2 << 20;          /* whole 2 MiB pages */
	base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (base == MAP_FAILED) {
		huge = 0;
		base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (base == MAP_FAILED) {
		fprintf(stderr, "hipgw-memrate: cannot map %zu MiB: %s\n", mb, strerror(errno));
		return 1;
	}
	memset(base, 1, bytes);                  /* fault every page in */
	nslots = bytes / SLOT;
	order = malloc(steps * sizeof(*order));
	if (order == NULL) {
		fprintf(stderr, "hipgw-memrate: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < steps; i++)
		order[i] = (uint32_t)(next_rand(&seed) % nslots);

	for (const char *s = lines_arg; *s != '\0';) {
		char *end;
		unsigned long lines = strtoul(s, &end, 10);
		double best = 0;
		unsigned best_ahead = 0;

		if (end == s || lines == 0 || lines > SLOT / LINE) {
			fprintf(stderr, "hipgw-memrate: --lines: 1..%u each\n", SLOT / LINE);
			return 2;
		}
		run(base, order, steps / 8, (unsigned)lines, 8);         /* warm-up */
		for (unsigned a = 0; a < sizeof(aheads) / sizeof(aheads[0]); a++) {
			double ns = run(base, order, steps, (unsigned)lines, aheads[a]);
			if (best == 0 || ns < best) {
				best = ns;
				best_ahead = aheads[a];
			}
		}
		printf("{\"mb\": %zu, \"hugepages\": %s, \"lines\": %lu, \"best_ahead\": %u, "
		       "\"slots_per_s\": %.0f, \"lines_per_s\": %.0f, \"ns_per_slot\": %.2f}\n",
		       bytes >> 20, huge ? "true" : "false", lines, best_ahead, 1e9 / best,
		       1e9 / best * (double)lines, best);
		s = *end == ',' ? end + 1 : end;
	}
	free(order);
	munmap(base, bytes);
	return 0;
}
