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

#endif
