/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw-memrate: how fast one core of this machine reaches random SA state in
 * a table the size of an SA database, for the SA-count stage of perf/esp-bench
 * (not a test; figures to read beside it).
 *
 * The table is --mb MiB of 2 MiB hugepages (4 KiB pages when none are free),
 * cut into 2048-byte slots (about one SA's state each). Three measurements:
 *
 * --lines L[,L...]: every step reads L consecutive 64-byte lines of one slot
 *   chosen at random, with the slots --ahead steps later prefetched, as a
 *   burst-wide prefetch does; the best of a few prefetch distances counts.
 *   Memory throughput alone: it bounds an SA-bound data path only if every
 *   miss hides behind the crypto.
 * --gcm: the simplest SA-bound data path. Each step seals 64 bytes with
 *   AES-128-GCM (RFC 4106 shape: 8-byte AAD, 12-byte nonce, 16-byte tag) by
 *   intel-ipsec-mb, after a read-modify-write of a sequence number on the
 *   slot's first line; the key data starts 16 bytes into the slot's second
 *   line, as in hipgw's esp_sa. The lines it needs are prefetched as hipgw
 *   does (a burst of 32 at once, or a rolling distance; the best counts).
 *   One slot against a random slot of the whole table: table_ns -
 *   one_slot_ns is the time per packet that one random SA costs here and
 *   prefetching does not hide (the ratio depends on the work per packet).
 *   Run twice: the bare seal (pad 0), and the seal followed by 200 steps of
 *   dependent scalar work (pad 200, about as long per packet as hipgw's
 *   whole 1-SA path), to show whether more work per packet hides the misses.
 * --translate: the time a lone prefetch of a random line takes to retire
 *   (it waits for its address translation), and a lone load's latency, for
 *   tables of 4 MiB up to --mb: where the TLB's reach ends and what a page
 *   walk costs (under a hypervisor, a two-dimensional walk).
 *
 * Output: one JSON object per measurement, one per line:
 *   {"mb", "hugepages", "lines", "best_ahead", "slots_per_s", "lines_per_s", "ns_per_slot"}
 *   {"mb", "hugepages", "gcm_bytes", "pad", "one_slot_ns", "table_ns", "best_ahead", "ratio"} (x2)
 *   {"mb", "hugepages", "translate": [{"table_mb", "prefetch_retire_ns", "load_ns"}, ...]}
 *   (ns: medians for --translate, means per step otherwise).
 *
 * Usage: hipgw-memrate --mb MIB [--lines L[,L...]] [--gcm] [--translate] [--steps N]
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#include <intel-ipsec-mb.h>

#define SLOT 2048u
#define LINE 64u
#define GCM_KEY_OFF (LINE + 16u)      /* hipgw: the key block on line 1, esp_gcm_off 16 */
#define GCM_LEN 64u                   /* bytes sealed per step */
#define BURST 32u
#define USAGE "usage: hipgw-memrate --mb MIB [--lines L[,L...]] [--gcm] [--translate] [--steps N]\n"

/* Prefetch distances tried, in steps (0: a burst of BURST at once for --gcm,
 * none for --lines); the best counts. */
static const unsigned aheads[] = { 0, 4, 8, 16, 32 };

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

/* --gcm ---------------------------------------------------------------- */

struct gcm_bench {
	IMB_MGR *mgr;
	unsigned pad;                 /* steps of dependent scalar work after each seal */
	uint8_t pkt[BURST][128] __attribute__((aligned(64)));
};

static const struct gcm_key_data *
slot_key(const uint8_t *slot)
{
	return (const struct gcm_key_data *)(const void *)(slot + GCM_KEY_OFF);
}

/* The lines one seal of GCM_LEN bytes reads, as hipgw's sa_prefetch names
 * them: the first line (written), three lines of AES-128 round keys, and the
 * line that ends with HashKey^1 (HashKey^4 .. ^1 under the VAES layout). */
static inline void
slot_prefetch(const uint8_t *slot)
{
	const uint8_t *k = slot + GCM_KEY_OFF;
	const uint8_t *h = k + offsetof(struct gcm_key_data, ghash_keys) +
			   sizeof(((struct gcm_key_data *)0)->ghash_keys.vaes_avx512.shifted_hkey);

	__builtin_prefetch(slot, 1, 3);
	__builtin_prefetch(k);
	__builtin_prefetch(k + LINE);
	__builtin_prefetch(k + 2 * LINE);
	__builtin_prefetch(h - 1);
}

static inline void
slot_seal(struct gcm_bench *g, uint8_t *slot, unsigned i)
{
	struct gcm_context_data ctx;
	uint8_t nonce[12] = { 0 }, *p = g->pkt[i % BURST];
	uint64_t seq;

	memcpy(&seq, slot, sizeof(seq));
	seq++;
	memcpy(slot, &seq, sizeof(seq));
	memcpy(nonce + 4, &seq, sizeof(seq));
	IMB_AES128_GCM_ENC(g->mgr, slot_key(slot), &ctx, p + 8, p + 8, GCM_LEN, nonce, p, 8,
			   p + 8 + GCM_LEN, 16);
	if (g->pad != 0) {            /* the rest of a packet's work: no memory */
		uint64_t x = p[0];

		for (unsigned j = 0; j < g->pad; j++)
			x = x * 3 + 1;
		__asm__ volatile("" : : "r"(x));
	}
}

/* ns per step: seal at slot order[i] for each i; ahead 0: prefetch a burst
 * of BURST slots, then seal them (hipgw's dispatch); else prefetch the slot
 * `ahead` steps later before each seal. */
static double
gcm_run(struct gcm_bench *g, uint8_t *base, const uint32_t *order, size_t steps, unsigned ahead)
{
	double t0 = now_s();

	steps -= steps % BURST;
	if (ahead == 0) {
		for (size_t b = 0; b < steps; b += BURST) {
			for (unsigned i = 0; i < BURST; i++)
				slot_prefetch(base + (size_t)order[b + i] * SLOT);
			for (unsigned i = 0; i < BURST; i++)
				slot_seal(g, base + (size_t)order[b + i] * SLOT, i);
		}
	} else {
		for (size_t i = 0; i < steps; i++) {
			if (i + ahead < steps)
				slot_prefetch(base + (size_t)order[i + ahead] * SLOT);
			slot_seal(g, base + (size_t)order[i] * SLOT, (unsigned)i);
		}
	}
	return (now_s() - t0) / (double)steps * 1e9;
}

static int
gcm_bench(uint8_t *base, size_t nslots, const uint32_t *order, size_t steps, size_t mb, int huge)
{
	static struct gcm_bench g;
	static const unsigned pads[] = { 0, 200 };
	uint8_t key[16];
	uint32_t *one;

	g.mgr = alloc_mb_mgr(0);
	if (g.mgr == NULL) {
		fprintf(stderr, "hipgw-memrate: intel-ipsec-mb: cannot allocate a manager\n");
		return 1;
	}
	init_mb_mgr_auto(g.mgr, NULL);
	one = calloc(steps, sizeof(*one));
	if (one == NULL) {
		fprintf(stderr, "hipgw-memrate: out of memory\n");
		free_mb_mgr(g.mgr);
		return 1;
	}
	for (size_t s = 0; s < nslots; s++) {       /* a key of its own per slot */
		for (unsigned b = 0; b < sizeof(key); b++)
			key[b] = (uint8_t)(s >> (8 * (b % 4)) ^ b);
		IMB_AES128_GCM_PRE(g.mgr, key, (struct gcm_key_data *)(void *)(base + s * SLOT + GCM_KEY_OFF));
	}
	gcm_run(&g, base, order, steps / 8, 8);                 /* warm-up */
	for (unsigned p = 0; p < sizeof(pads) / sizeof(pads[0]); p++) {
		double one_ns = 0, table_ns = 0;
		unsigned best_ahead = 0;

		g.pad = pads[p];
		for (unsigned a = 0; a < sizeof(aheads) / sizeof(aheads[0]); a++) {
			double o = gcm_run(&g, base, one, steps, aheads[a]);
			double t = gcm_run(&g, base, order, steps, aheads[a]);

			if (one_ns == 0 || o < one_ns)
				one_ns = o;
			if (table_ns == 0 || t < table_ns) {
				table_ns = t;
				best_ahead = aheads[a];
			}
		}
		printf("{\"mb\": %zu, \"hugepages\": %s, \"gcm_bytes\": %u, \"pad\": %u, "
		       "\"one_slot_ns\": %.2f, \"table_ns\": %.2f, \"best_ahead\": %u, \"ratio\": %.3f}\n",
		       mb, huge ? "true" : "false", GCM_LEN, g.pad, one_ns, table_ns, best_ahead,
		       one_ns / table_ns);
	}
	free(one);
	free_mb_mgr(g.mgr);
	return 0;
}

/* --translate ---------------------------------------------------------- */

/* TSC ticks per ns, against CLOCK_MONOTONIC over 50 ms */
static double
tsc_per_ns(void)
{
	double t0 = now_s(), t1;
	uint64_t c0 = __rdtsc(), c1;

	do
		t1 = now_s();
	while (t1 - t0 < 0.05);
	c1 = __rdtsc();
	return (double)(c1 - c0) / ((t1 - t0) * 1e9);
}

static void
idle_spin(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define TRANSLATE_SAMPLES 3001u

/* Medians over TRANSLATE_SAMPLES lone accesses to random lines of the first
 * `span` bytes: ticks for a prefetch to retire, and for a load. Each access
 * gets a quiet spell first so that none overlaps the one before. */
static void
translate_one(const uint8_t *base, size_t span, uint64_t *seed, uint64_t *pf, uint64_t *ld)
{
	static uint64_t t_pf[TRANSLATE_SAMPLES], t_ld[TRANSLATE_SAMPLES];
	unsigned aux;

	for (unsigned i = 0; i < TRANSLATE_SAMPLES; i++) {
		const uint8_t *p = base + next_rand(seed) % (span / LINE) * LINE;
		const uint8_t *q = base + next_rand(seed) % (span / LINE) * LINE;
		uint64_t c0, c1;

		idle_spin(4000);
		c0 = __rdtscp(&aux);
		__builtin_prefetch(p);
		c1 = __rdtscp(&aux);
		t_pf[i] = c1 - c0;
		idle_spin(4000);
		c0 = __rdtscp(&aux);
		(void)*(const volatile uint8_t *)q;
		c1 = __rdtscp(&aux);
		t_ld[i] = c1 - c0;
	}
	qsort(t_pf, TRANSLATE_SAMPLES, sizeof(t_pf[0]), cmp_u64);
	qsort(t_ld, TRANSLATE_SAMPLES, sizeof(t_ld[0]), cmp_u64);
	*pf = t_pf[TRANSLATE_SAMPLES / 2];
	*ld = t_ld[TRANSLATE_SAMPLES / 2];
}

static void
translate_bench(const uint8_t *base, size_t bytes, int huge)
{
	double tpn = tsc_per_ns();
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	const char *sep = "";

	printf("{\"mb\": %zu, \"hugepages\": %s, \"translate\": [", bytes >> 20, huge ? "true" : "false");
	for (size_t span = (size_t)4 << 20;; span *= 4) {
		uint64_t pf, ld;

		if (span > bytes)
			span = bytes;
		translate_one(base, span, &seed, &pf, &ld);
		printf("%s{\"table_mb\": %zu, \"prefetch_retire_ns\": %.1f, \"load_ns\": %.1f}",
		       sep, span >> 20, (double)pf / tpn, (double)ld / tpn);
		sep = ", ";
		if (span == bytes)
			break;
	}
	printf("]}\n");
}

int
main(int argc, char **argv)
{
	size_t mb = 0, steps = 4000000, bytes, nslots;
	const char *lines_arg = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int huge = 1, gcm = 0, translate = 0, rc = 0;
	uint32_t *order;
	uint8_t *base;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--lines") == 0 && i + 1 < argc)
			lines_arg = argv[++i];
		else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
			steps = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--gcm") == 0)
			gcm = 1;
		else if (strcmp(argv[i], "--translate") == 0)
			translate = 1;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf(USAGE
			       "  a table of MIB MiB (2 MiB hugepages when free), 2 KB slots; JSON lines out\n"
			       "  --lines L,...  random reads of L consecutive lines per slot, per second\n"
			       "                 (default 1,4,8 when neither --gcm nor --translate)\n"
			       "  --gcm          AES-128-GCM seal of 64 B, key in one slot vs a random slot:\n"
			       "                 ns per seal, bare and padded with scalar work\n"
			       "  --translate    a lone prefetch's time to retire and a lone load, median ns,\n"
			       "                 for tables of 4 MiB up to MIB\n"
			       "  --steps N      steps per timed run (4000000)\n"
			       "See the header of perf/memrate.c for the output fields.\n");
			return 0;
		} else {
			fprintf(stderr, USAGE);
			return 2;
		}
	}
	if (lines_arg == NULL && !gcm && !translate)
		lines_arg = "1,4,8";
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

	if (translate)
		translate_bench(base, bytes, huge);
	for (const char *s = lines_arg != NULL ? lines_arg : ""; *s != '\0';) {
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
	if (gcm)
		rc = gcm_bench(base, nslots, order, steps, bytes >> 20, huge);
	free(order);
	munmap(base, bytes);
	return rc;
}
