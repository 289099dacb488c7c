/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw-move-load: how many locator moves (RFC 8046) one HIP engine, the
 * control lcore's lib/hip, handles per CPU-second, with N peers moving at
 * once. No DPDK and no network: one hub engine (the gateway under test) and
 * N peer engines in one process, their packets handed over in memory, the
 * clock virtual (no retransmission fires), so only the engines' own work
 * counts. The hub is measured alone: the thread CPU time spent in its calls
 * (hip_host_input, hip_host_set_locators, hip_host_tick).
 *
 *   hipgw-move-load [--peers N] [--rounds R] [--algo ecdsa-p256|ecdsa-p384]
 *                   [--json FILE]
 *
 * Per round, after every peer ran a Base Exchange with the hub:
 *   peers   every peer takes a new address (hip_host_set_locators): the hub
 *           verifies N UPDATEs with LOCATOR_SET (HIP_MAC, signature), sends N
 *           return-routability checks (UPDATE with ECHO_REQUEST_SIGNED,
 *           signed), verifies N echo responses and moves N paths (io.path).
 *   hub     the hub takes a new address: it signs N UPDATEs with LOCATOR_SET,
 *           answers N checks (ECHO_RESPONSE_SIGNED, signed) and takes N ACKs.
 * A round counts only when every move completed (the hub's rr_ok, path
 * changes and the peers' rr_ok as expected). Prints one line per phase and
 * round, and a JSON summary (moves per hub CPU-second, the best and median
 * of the rounds). A benchmark, not a test: exit 0, 1 when a round did not
 * complete or something failed to run, 2 for a bad command line.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hip_harness.h"
#include "hip_hi.h"
#include "hip_host.h"
#include "hip_wire.h"
#define PERF_PROG "hipgw-move-load"
#include "perf_util.h"

#define PEERS_MAX    4096
#define ROUNDS_MAX   16
#define QUEUE_MAX    (4 * PEERS_MAX)
#define STEP_NS      (1000ull)            /* virtual time per packet handed over */

struct eng {
	struct hip_host *h;
	struct hip_hi hi;
	struct gw_addr addr;
	uint32_t next_spi;
	unsigned paths;                        /* io.path calls */
	unsigned bex_ok;
};

struct pkt {
	struct gw_addr src, dst;
	size_t len;
	uint8_t *b;
};

static struct {
	unsigned peers, rounds;
	const char *algo, *json;
} O = { .peers = 1000, .rounds = 3, .algo = "ecdsa-p256" };

static struct eng hub, *peer;
static struct pkt *q;
static unsigned qhead, qtail;
static uint64_t now = 1000000000ull;
static uint64_t hub_cpu_ns;                /* thread CPU time in the hub's calls */

static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* peer i's address in round r (round 0: before any move): 100.(64 + r).x.y */
static void
peer_addr(struct gw_addr *a, unsigned i, unsigned r)
{
	memset(a, 0, sizeof(*a));
	a->family = 4;
	a->addr[0] = 100;
	a->addr[1] = (uint8_t)(64 + r);
	a->addr[2] = (uint8_t)(i >> 8);
	a->addr[3] = (uint8_t)(i & 0xff);
}

static void
hub_addr(struct gw_addr *a, unsigned r)
{
	memset(a, 0, sizeof(*a));
	a->family = 4;
	a->addr[0] = 198;
	a->addr[1] = 51;
	a->addr[2] = 100;
	a->addr[3] = (uint8_t)(1 + r);
}

/* The engine at address a, NULL when none: the hub at 198.51.100.x, peer i at
 * 100.y.(i >> 8).(i & 255). */
static struct eng *
eng_at(const struct gw_addr *a)
{
	unsigned i = ((unsigned)a->addr[2] << 8) | a->addr[3];

	if (a->addr[0] == 198)
		return &hub;
	return a->addr[0] == 100 && i < O.peers ? &peer[i] : NULL;
}

static void
io_send(void *ctx, const struct gw_addr *src, const struct gw_addr *dst, const uint8_t *b, size_t len)
{
	struct pkt *p;

	(void)ctx;
	if (qtail - qhead >= QUEUE_MAX)
		die(1, "packet queue full");
	p = &q[qtail++ % QUEUE_MAX];
	p->src = *src;
	p->dst = *dst;
	p->len = len;
	memcpy(p->b, b, len);
}

static uint32_t
io_spi_alloc(void *ctx)
{
	struct eng *e = ctx;

	return e->next_spi++;
}

static void
io_sa_up(void *ctx, void *user, const struct hip_sa_keys *out, const struct hip_sa_keys *in,
	 uint32_t old)
{
	(void)ctx, (void)user, (void)out, (void)in, (void)old;
}

static void
io_sa_down(void *ctx, void *user, uint32_t spi)
{
	(void)ctx, (void)user, (void)spi;
}

static void
io_bex_done(void *ctx, void *user, bool ok, const struct hip_bex_times *t)
{
	struct eng *e = ctx;

	(void)user, (void)t;
	e->bex_ok += ok;
}

static void
io_path(void *ctx, void *user, const struct gw_addr *local, const struct gw_addr *remote)
{
	struct eng *e = ctx;

	(void)user, (void)local, (void)remote;
	e->paths++;
}

static void
eng_up(struct eng *e, uint32_t spi_base)
{
	struct hip_host_cfg c = { 0 };
	struct hh_params p = { .k = 1, .esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
			       .groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1,
			       .ciph = { HIP_CIPHER_NULL_ENCRYPT }, .nc = 1 };
	char err[256];

	if (hip_hi_generate(strcmp(O.algo, "ecdsa-p384") == 0 ? HIP_HI_ECDSA_P384 : HIP_HI_ECDSA_P256,
			    &e->hi, err, sizeof(err)) != 0)
		die(1, err);
	hh_cfg_fill(&c, &e->hi, &p);
	c.io = (struct hip_io){ .ctx = e, .send = io_send, .spi_alloc = io_spi_alloc,
				.sa_up = io_sa_up, .sa_down = io_sa_down, .bex_done = io_bex_done,
				.path = io_path };
	e->next_spi = spi_base;
	e->h = hip_host_create(&c, err, sizeof(err));
	if (e->h == NULL)
		die(1, err);
}

/* Hand over every queued packet (and what answers to them produce). */
static void
deliver_all(void)
{
	while (qhead != qtail) {
		struct pkt *p = &q[qhead++ % QUEUE_MAX];
		struct eng *e = eng_at(&p->dst);
		uint64_t t0;

		now += STEP_NS;
		if (e == NULL)
			continue;
		if (e != &hub) {
			hip_host_input(e->h, &p->src, &p->dst, p->b, p->len, now);
			continue;
		}
		t0 = cpu_ns();
		hip_host_input(e->h, &p->src, &p->dst, p->b, p->len, now);
		hub_cpu_ns += cpu_ns() - t0;
	}
}

static struct hip_host_stats
stats(const struct eng *e)
{
	struct hip_host_stats s;

	hip_host_stats(e->h, &s);
	return s;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: " PERF_PROG " [--peers N] [--rounds R] [--algo ecdsa-p256|ecdsa-p384] "
		"[--json FILE]\n");
	exit(code);
}

static void
options(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "peers", 1, 0, 'n' }, { "rounds", 1, 0, 'r' }, { "algo", 1, 0, 'a' },
		{ "json", 1, 0, 'j' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': O.peers = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'r': O.rounds = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'a': O.algo = optarg; break;
		case 'j': O.json = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (O.peers == 0 || O.peers > PEERS_MAX || O.rounds == 0 || O.rounds > ROUNDS_MAX ||
	    (strcmp(O.algo, "ecdsa-p256") != 0 && strcmp(O.algo, "ecdsa-p384") != 0))
		usage(2);
}

/* All peers connect to the hub; returns how many are established. */
static unsigned
bex_all(void)
{
	unsigned ok = 0;

	for (unsigned i = 0; i < O.peers; i++)
		hip_host_connect(peer[i].h, &hub, now);
	deliver_all();
	now += 2 * HIP_BEX_DONE_WAIT_NS;
	hip_host_tick(hub.h, now);
	for (unsigned i = 0; i < O.peers; i++) {
		struct hip_peer_info pi;

		hip_host_tick(peer[i].h, now);
		if (hip_host_peer_info(peer[i].h, &hub, &pi) == 0 && pi.state == HIP_STATE_ESTABLISHED)
			ok++;
	}
	deliver_all();
	return ok;
}

int
main(int argc, char **argv)
{
	double peers_rate[ROUNDS_MAX], hub_rate[ROUNDS_MAX];
	struct gw_addr a, h;
	unsigned ok, r;
	int rc = 0;

	options(argc, argv);
	peer = calloc(O.peers, sizeof(*peer));
	q = calloc(QUEUE_MAX, sizeof(*q));
	if (peer == NULL || q == NULL)
		die(1, "out of memory");
	for (unsigned i = 0; i < QUEUE_MAX; i++)
		if ((q[i].b = malloc(HIP_PACKET_MAX)) == NULL)
			die(1, "out of memory");
	hub_addr(&hub.addr, 0);
	eng_up(&hub, 0x10000000u);
	for (unsigned i = 0; i < O.peers; i++) {
		peer_addr(&peer[i].addr, i, 0);
		eng_up(&peer[i], 0x20000000u);
		if (hip_host_add_peer(peer[i].h, hub.hi.hit, &hub.addr, 1, &peer[i].addr, &hub) != 0 ||
		    hip_host_add_peer(hub.h, peer[i].hi.hit, &peer[i].addr, 1, &hub.addr, &peer[i]) != 0)
			die(1, "hip_host_add_peer failed");
	}
	ok = bex_all();
	printf("%u peers, %s: %u of them established with the hub\n", O.peers, O.algo, ok);
	if (ok != O.peers)
		die(1, "not every Base Exchange completed");

	for (r = 0; r < O.rounds; r++) {
		struct hip_host_stats s0 = stats(&hub), s1;
		uint64_t c0 = hub_cpu_ns, t0;
		unsigned paths0 = hub.paths, moved = 0;

		/* every peer moves */
		for (unsigned i = 0; i < O.peers; i++) {
			peer_addr(&a, i, 2 * r + 1);
			peer[i].addr = a;   /* eng_at finds it by its index either way */
			hip_host_set_locators(peer[i].h, &a, 1, 0, false, now);
		}
		deliver_all();
		s1 = stats(&hub);
		moved = hub.paths - paths0;
		peers_rate[r] = (double)moved / ((hub_cpu_ns - c0) / 1e9);
		printf("round %u peers: %u moves, hub rr_ok +%" PRIu64 ", %.3f hub CPU-s: %.0f moves/CPU-s\n",
		       r, moved, s1.rr_ok - s0.rr_ok, (hub_cpu_ns - c0) / 1e9, peers_rate[r]);
		if (moved != O.peers || s1.rr_ok - s0.rr_ok != O.peers)
			rc = 1;

		/* the hub moves */
		s0 = stats(&hub);
		c0 = hub_cpu_ns;
		paths0 = hub.paths;
		hub_addr(&h, r + 1);
		hub.addr = h;
		t0 = cpu_ns();
		hip_host_set_locators(hub.h, &h, 1, 0, false, now);
		hub_cpu_ns += cpu_ns() - t0;
		deliver_all();
		s1 = stats(&hub);
		moved = hub.paths - paths0;
		hub_rate[r] = (double)O.peers / ((hub_cpu_ns - c0) / 1e9);
		printf("round %u hub: %u paths, %" PRIu64 " checks answered, %.3f hub CPU-s: "
		       "%.0f peers told/CPU-s\n",
		       r, moved, s1.echo_answered - s0.echo_answered, (hub_cpu_ns - c0) / 1e9, hub_rate[r]);
		if (moved != O.peers || s1.echo_answered - s0.echo_answered != O.peers)
			rc = 1;
		now += HIP_RTO_MAX_NS;      /* past any retransmission: the next round is fresh */
		hip_host_tick(hub.h, now);
		for (unsigned i = 0; i < O.peers; i++)
			hip_host_tick(peer[i].h, now);
		deliver_all();
	}
	qsort(peers_rate, O.rounds, sizeof(double), cmp_double);
	qsort(hub_rate, O.rounds, sizeof(double), cmp_double);
	for (int f = 0; f < 2; f++) {
		FILE *out = f == 0 ? stdout : (O.json != NULL ? fopen(O.json, "w") : NULL);

		if (out == NULL)
			continue;
		fprintf(out, "{\"peers\": %u, \"algo\": \"%s\", \"rounds\": %u, \"complete\": %s, "
			"\"peer_moves_per_cpu_s\": {\"best\": %.0f, \"median\": %.0f}, "
			"\"hub_moves_per_cpu_s\": {\"best\": %.0f, \"median\": %.0f}}\n",
			O.peers, O.algo, O.rounds, rc == 0 ? "true" : "false", peers_rate[O.rounds - 1],
			peers_rate[O.rounds / 2], hub_rate[O.rounds - 1], hub_rate[O.rounds / 2]);
		if (out != stdout && fclose(out) != 0)
			rc = 1;
	}
	for (unsigned i = 0; i < O.peers; i++) {
		hip_host_free(peer[i].h);
		hip_hi_free(&peer[i].hi);
	}
	hip_host_free(hub.h);
	hip_hi_free(&hub.hi);
	for (unsigned i = 0; i < QUEUE_MAX; i++)
		free(q[i].b);
	free(q);
	free(peer);
	return rc;
}
