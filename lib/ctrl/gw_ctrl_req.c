/* SPDX-License-Identifier: BSD-3-Clause
 * Requests from other threads (DPDK's telemetry thread) that must run on the
 * control lcore, the one writer of the tables: a single slot with a state
 * word. The caller moves it FREE -> FILLING -> POSTED; the control loop
 * POSTED -> RUNNING -> DONE; the caller takes the answer and frees it, or,
 * when the control lcore did not take it in time, withdraws it (POSTED ->
 * FREE) so that it never runs. Every move is one compare-and-swap or a
 * release store; no lock, and the control lcore never waits.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctrl_internal.h"

enum { REQ_FREE = 0, REQ_FILLING, REQ_POSTED, REQ_RUNNING, REQ_DONE };

#define REQ_WAIT_NS 1000000L   /* the caller's sleep between looks at the slot, ns */

static bool
req_move(struct gw_ctrl *c, uint32_t from, uint32_t to)
{
	return __atomic_compare_exchange_n(&c->req_state, &from, to, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

static void
req_sleep(void)
{
	struct timespec ts = { .tv_nsec = REQ_WAIT_NS };

	nanosleep(&ts, NULL);
}

int
gw_ctrl_request(struct gw_ctrl *c, struct gw_ctrl_request *r, uint32_t timeout_ms)
{
	uint64_t waited_ns = 0;

	if (!req_move(c, REQ_FREE, REQ_FILLING))
		return -1;
	c->req = *r;
	__atomic_store_n(&c->req_state, REQ_POSTED, __ATOMIC_RELEASE);
	while (__atomic_load_n(&c->req_state, __ATOMIC_ACQUIRE) != REQ_DONE) {
		if (waited_ns >= (uint64_t)timeout_ms * 1000000 && req_move(c, REQ_POSTED, REQ_FREE))
			return -1;      /* never taken: withdrawn */
		req_sleep();           /* taken: the control lcore finishes it */
		waited_ns += REQ_WAIT_NS;
	}
	r->rc = c->req.rc;
	snprintf(r->msg, sizeof(r->msg), "%s", c->req.msg);
	__atomic_store_n(&c->req_state, REQ_FREE, __ATOMIC_RELEASE);
	return 0;
}

/* SET_ADDRESS on the control lcore: the port by name, then the change. */
static void
req_set_address(struct gw_ctrl *c, struct gw_ctrl_request *r)
{
	int port = gw_ctrl_port_index(c->ctx, r->port);

	r->port[sizeof(r->port) - 1] = '\0';
	if (port < 0) {
		snprintf(r->msg, sizeof(r->msg), "unknown port %s", r->port);
		r->rc = -1;
		return;
	}
	r->rc = gw_ctrl_set_address(c, (unsigned)port, &r->addr, &r->gw, r->msg, sizeof(r->msg));
	if (r->rc == 0 && ctrl_dhcp_stop(c, (unsigned)port)) {
		size_t n = strlen(r->msg);

		snprintf(r->msg + n, sizeof(r->msg) - n, "; DHCP stopped on %s until restart",
			 c->ctx->ports[port].name);
	}
}

unsigned
gw_ctrl_request_poll(struct gw_ctrl *c)
{
	if (__atomic_load_n(&c->req_state, __ATOMIC_ACQUIRE) != REQ_POSTED ||
	    !req_move(c, REQ_POSTED, REQ_RUNNING))
		return 0;
	switch (c->req.kind) {
	case GW_CTRL_REQ_SET_ADDRESS:
		req_set_address(c, &c->req);
		break;
	default:
		c->req.rc = -1;
		snprintf(c->req.msg, sizeof(c->req.msg), "unknown request %d", (int)c->req.kind);
	}
	__atomic_store_n(&c->req_state, REQ_DONE, __ATOMIC_RELEASE);
	return 1;
}
