/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the worker fast path and what it punts to the control
 * lcore. Ethernet, IPv4, IPv6 with its extension headers, ARP, ND, ICMP and
 * ICMPv6, ESP (outbound and inbound, fragments and reassembly), the inner MTU,
 * TTL and MSS paths of lib/dp, then the control lcore's dispatch, ARP/ND and
 * ICMP code of lib/ctrl, on a real gateway.
 *
 * The gateway: tests/fuzz/fuzz_worker.ini (the component tests' topology on
 * two net_null ports, inner "lan" and outer "wan", fixed test keys, and a
 * third, "seg", the port of an L2 bridge whose in SA's EtherIP frames come
 * in on wan), built once
 * in LLVMFuzzerInitialize through lib/runtime's gw_create, as hipgw builds it, after
 * rte_eal_init (--no-huge --no-pci --no-telemetry, a --file-prefix of this
 * process; its empty runtime directory removed at once). No lcore is launched: the harness runs worker 0 on the main lcore
 * through lib/dp's test entry (gw_worker_test_run) and the control lcore's
 * gw_ctrl_poll in turns, until neither has anything left. net_null's TX frees
 * what is sent.
 *
 * The input: records of [port][length, 2 bytes big-endian][frame]: port bit 0
 * picks lan (0) or wan (1); bit 1 set puts the frame in a buffer of its exact
 * size (malloc'ed, attached to the mbuf as an external buffer, headroom before
 * it and no tailroom), so that a read past its end is an AddressSanitizer
 * report (in a pool mbuf it would read the mbuf's own tailroom, unseen); bit
 * 2 set (and bit 1 not) splits it in two chained mbufs at its middle, as a
 * PMD chains a frame larger than one buffer; a length past the end takes
 * what is left; frames are at most FRAME_MAX bytes
 * (one mbuf), at most MAX_FRAMES an input. Runs of consecutive frames on one
 * port go in as one RX burst.
 *
 * Deterministic: before each input the state that frames change is put back
 * as it was after set-up: the SAs (anti-replay windows, sequence numbers,
 * counters, the limits a path MTU lowers: copied back whole), the path MTU
 * table, the neighbour table (learned entries gone, the configured ones in
 * again), the fragments held for reassembly, and the control lcore's queue
 * of packets waiting for a next hop (a fresh gw_ctrl), and the L2 bridge's
 * state: its MAC table made again empty when a frame out of its in SA (ESP
 * next header 97) taught it a source MAC, the worker's learn filter and
 * flood buckets reset. No timer runs.
 * Checked after each input: every mbuf is back in its pool.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "esp_internal.h"
#include "gw.h"
#include "gw_config.h"
#include "gw_ctrl.h"
#include "gw_mac.h"
#include "gw_neigh.h"
#include "gw_worker.h"

#ifndef CONF_PATH                /* fuzz_mbox_worker.c names its own */
#define CONF_PATH   HIPGW_SOURCE_ROOT "/tests/fuzz/fuzz_worker.ini"
#endif
#define FRAME_MAX   2048        /* bytes: the default mbuf's data room */
#define MAX_FRAMES  (GW_BURST_PACKETS * 2)
#define MAX_ROUNDS  16          /* worker / control turns until quiet */
#define MAX_SAS     (2 * GW_SPD_MAX_SA)
#define REC_HDR     3           /* port byte, length (2) */
#define REC_PORT    0x01        /* of the port byte: 0 lan, 1 wan */
#define REC_EXACT   0x02        /* of the port byte: in a buffer of the frame's size */
#define REC_CHAIN   0x04        /* of the port byte: in two chained mbufs */

#define FAIL(...) do { fprintf(stderr, "fuzz_worker: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

static struct gw_config cfg;
static struct gw_ctx ctx;
static struct gw_worker_test *worker;
static unsigned pool_in_use, big_in_use;   /* mbufs held after set-up (RX rings) */

/* The SAs (struct gw_sa: limits a path MTU lowers; its esp_sa: window,
 * sequence numbers, counters) and the path MTU table as set up: what each
 * input starts from. */
static struct {
	void *obj;
	void *copy;
	size_t len;
} saved[2 * MAX_SAS];
static unsigned n_saved;
static struct gw_pmtu pmtu_saved;

static void
save(void *obj, size_t len)
{
	if (n_saved == RTE_DIM(saved))
		FAIL("more SAs than the harness keeps");
	saved[n_saved].obj = obj;
	saved[n_saved].len = len;
	saved[n_saved].copy = malloc(len);
	if (saved[n_saved].copy == NULL)
		FAIL("no memory");
	memcpy(saved[n_saved].copy, obj, len);
	n_saved++;
}

static void
save_sa(struct gw_sa *sa)
{
	if (sa == NULL)
		return;
	save(sa, sizeof(*sa));
	if (sa->esp != NULL)
		save(sa->esp, sa->esp->alloc_len);
}

static void
restore_state(void)
{
	for (unsigned i = 0; i < n_saved; i++)
		memcpy(saved[i].obj, saved[i].copy, saved[i].len);
	ctx.pmtu = pmtu_saved;
	rte_hash_reset(ctx.neigh);
	for (unsigned i = 0; i < cfg.n_ports; i++)
		for (unsigned n = 0; n < cfg.ports[i].n_neigh; n++) {
			struct rte_ether_addr mac;
			memcpy(mac.addr_bytes, cfg.ports[i].neigh[n].mac, 6);
			if (gw_neigh_set(ctx.neigh, i, &cfg.ports[i].neigh[n].ip, &mac, true) != 0)
				FAIL("neighbour table");
		}
	__atomic_fetch_add(&ctx.neigh_gen, 1, __ATOMIC_RELEASE);   /* the worker's cache */
}

/* The bridges' MAC tables empty again (made anew: the workers' RCU reader,
 * this thread, offline meanwhile), when a frame taught them something. */
static void
reset_bridges(void)
{
	for (unsigned b = 0; b < ctx.n_bridges; b++) {
		const struct gw_conf_bridge *cb = &cfg.bridges[b];
		char name[32];
		struct gw_mac_params mp = {
			.name = name, .max_entries = cb->mac_table_size,
			.age_ns = (uint64_t)cb->mac_age_s * 1000000000ull,
			.rcu = ctx.sadb.rcu, .socket = SOCKET_ID_ANY,
		};

		if (gw_mac_count(ctx.bridges[b].mac) == 0 && gw_mac_pending(ctx.bridges[b].mac) == 0)
			continue;
		if (cb->n_statics != 0)
			FAIL("fuzz_worker.ini: a bridge with static entries is not reset");
		snprintf(name, sizeof(name), "fuzz_mac%u", b);
		rte_rcu_qsbr_thread_offline(ctx.sadb.rcu, 0);
		gw_mac_free(ctx.bridges[b].mac);
		ctx.bridges[b].mac = gw_mac_create(&mp);
		rte_rcu_qsbr_thread_online(ctx.sadb.rcu, 0);
		if (ctx.bridges[b].mac == NULL)
			FAIL("gw_mac_create: %s", rte_strerror(rte_errno));
	}
}

/* At exit: the gateway torn down, EAL's runtime directory removed (left
 * alone if EAL put something in it). */
static void
teardown(void)
{
	char dir[PATH_MAX];

	gw_worker_test_free(worker);
	gw_destroy(&ctx);
	gw_config_wipe(&cfg);
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	(void)rmdir(dir);
	for (unsigned i = 0; i < n_saved; i++)
		free(saved[i].copy);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64], err[512];
	char *eal[] = { "fuzz_worker", "--no-huge", "-m", "512", "--no-pci", "--no-shconf", "--no-telemetry",
			"--lcores", "0@0,1@0", "--file-prefix", prefix, "--log-level", "*:error",
			NULL };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "fuzz_worker_%ld", (long)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		FAIL("rte_eal_init: %s", rte_strerror(rte_errno));
	/* with --no-shconf EAL leaves its runtime directory empty: gone now, so
	 * that a run that ends in a crash (or libFuzzer's -merge children, which
	 * skip atexit) leaves nothing behind */
	(void)rmdir(rte_eal_get_runtime_dir());
	if (gw_config_load(CONF_PATH, &cfg, err, sizeof(err)) != 0)
		FAIL("%s", err);
	if (gw_create(&ctx, &cfg, NULL, err, sizeof(err)) != 0)
		FAIL("gw_create: %s", err);
	for (unsigned i = 0; i < ctx.sadb.n_slots; i++)
		save_sa(ctx.sadb.out[i]);
	for (unsigned i = 0; i < ctx.sadb.n_in; i++)
		save_sa(ctx.sadb.in[i]);
	pmtu_saved = ctx.pmtu;
	worker = gw_worker_test_create(&ctx, 0);
	if (worker == NULL)
		FAIL("gw_worker_test_create");
	pool_in_use = rte_mempool_in_use_count(ctx.pool);
	big_in_use = rte_mempool_in_use_count(ctx.pool_big);
	atexit(teardown);
	return 0;
}

static void
ext_free(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
}

/* An mbuf holding frame f (len bytes): in the pool's buffer, or (exact) in a
 * malloc'ed one of RTE_PKTMBUF_HEADROOM + len bytes, or (chain) in two pool
 * mbufs. */
static struct rte_mbuf *
frame_mbuf(const uint8_t *f, size_t len, bool exact, bool chain)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(ctx.pool);
	char *p;

	if (m == NULL)
		FAIL("no mbuf");
	if (chain && !exact && len > 1) {
		struct rte_mbuf *t = frame_mbuf(f + len / 2, len - len / 2, false, false);

		memcpy(rte_pktmbuf_append(m, (uint16_t)(len / 2)), f, len / 2);
		if (rte_pktmbuf_chain(m, t) != 0)
			FAIL("rte_pktmbuf_chain");
		return m;
	}
	if (exact) {
		uint16_t blen = (uint16_t)(RTE_PKTMBUF_HEADROOM + len);
		struct rte_mbuf_ext_shared_info *sh = malloc(sizeof(*sh));
		void *buf = malloc(blen);

		if (sh == NULL || buf == NULL)
			FAIL("no memory");
		sh->free_cb = ext_free;
		sh->fcb_opaque = sh;
		rte_mbuf_ext_refcnt_set(sh, 1);
		rte_pktmbuf_attach_extbuf(m, buf, 0, blen, sh);
		rte_pktmbuf_reset_headroom(m);
	}
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL)
		FAIL("no room for a %zu-byte frame", len);
	memcpy(p, f, len);
	return m;
}

/* The worker and the control lcore in turns until neither has anything left;
 * a ping-pong that never settles is a finding. */
static void
settle(struct gw_ctrl *ctrl)
{
	for (unsigned r = 0; r < MAX_ROUNDS; r++)
		if (gw_ctrl_poll(ctrl) + gw_worker_test_run(worker, 0, NULL, 0) == 0)
			return;
	FAIL("worker and control lcore still busy after %u rounds", MAX_ROUNDS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *run[MAX_FRAMES];
	struct gw_ctrl *ctrl;
	unsigned n = 0, run_port = 0, frames = 0;
	size_t off = 0;

	restore_state();
	ctrl = gw_ctrl_create(&ctx);
	if (ctrl == NULL)
		FAIL("gw_ctrl_create");
	while (off + REC_HDR <= size && frames < MAX_FRAMES) {
		unsigned port = data[off] & REC_PORT, exact = data[off] & REC_EXACT,
			 chain = data[off] & REC_CHAIN;
		size_t len = (size_t)data[off + 1] << 8 | data[off + 2];

		off += REC_HDR;
		len = RTE_MIN(RTE_MIN(len, size - off), (size_t)FRAME_MAX);
		if (n > 0 && (port != run_port || n == GW_BURST_PACKETS)) {
			gw_worker_test_run(worker, run_port, run, n);
			n = 0;
		}
		run[n++] = frame_mbuf(data + off, len, exact != 0, chain != 0);
		off += len;
		run_port = port;
		frames++;
	}
	if (n > 0)
		gw_worker_test_run(worker, run_port, run, n);
	settle(ctrl);
	gw_ctrl_free(ctrl);                  /* frees what waited for a next hop */
	gw_worker_test_reset(worker);
	reset_bridges();
	if (rte_mempool_in_use_count(ctx.pool) != pool_in_use ||
	    rte_mempool_in_use_count(ctx.pool_big) != big_in_use)
		FAIL("mbufs not returned to the pools after the input: %u, %u large",
		     rte_mempool_in_use_count(ctx.pool) - pool_in_use,
		     rte_mempool_in_use_count(ctx.pool_big) - big_in_use);
	return 0;
}
