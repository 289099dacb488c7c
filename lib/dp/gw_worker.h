/* SPDX-License-Identifier: BSD-3-Clause
 * Worker lcore: the fast path. Each worker owns RX
 * and TX queue `idx` of every port and runs each burst to completion: inner RX ->
 * SPD -> ESP outbound -> outer TX, and outer RX -> SAD -> ESP inbound -> inner TX.
 * Everything else is punted to the control lcore through an rte_ring.
 */
#ifndef HIPGW_WORKER_H
#define HIPGW_WORKER_H

#include "gw_ctx.h"

struct gw_worker_arg {
	struct gw_ctx *ctx;
	unsigned idx;          /* worker index: queue id and ring index */
};

/* lcore entry point (rte_eal_remote_launch); returns 0 when ctx->stop is set. */
int gw_worker_main(void *arg);

/* Test entry, for tests/fuzz/fuzz_worker.c: a worker run by hand on the
 * calling lcore (no lcore launched, no RX). gw_worker_test_create: the state
 * gw_worker_main sets up for worker idx (its ctx->to_ctrl / from_ctrl rings,
 * the calling lcore's stats slot); NULL when out of memory.
 * gw_worker_test_run: pkts[0 .. n) (n <= GW_BURST_PACKETS; Ethernet frames as
 * received; consumed) through port `port`'s path as one RX burst, then what
 * every loop does after RX (the control lcore's packets, rings, TX); returns
 * n plus the packets taken from the rings (0: nothing was pending).
 * gw_worker_test_reset: drop every fragment held for reassembly, forget the
 * source MACs asked to be learned, fill the bridges' flood buckets.
 * gw_worker_test_free: undo create (NULL is ignored). */
struct gw_worker_test;
struct gw_worker_test *gw_worker_test_create(struct gw_ctx *ctx, unsigned idx);
unsigned gw_worker_test_run(struct gw_worker_test *t, unsigned port, struct rte_mbuf **pkts,
			    uint16_t n);
void gw_worker_test_reset(struct gw_worker_test *t);
void gw_worker_test_free(struct gw_worker_test *t);

#endif
