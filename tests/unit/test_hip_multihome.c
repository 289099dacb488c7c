/* SPDX-License-Identifier: BSD-3-Clause
 * Host multihoming path sets (RFC 8047; lib/hip/hip_multihome.c) on a fake
 * clock: two uplinks (port 1 preferred, port 2) towards a peer with one or
 * two locators. A fake peer answers the probes the send callback records,
 * or not, per path. Checked: the ranking, misses -> down -> failover, link
 * down -> at once, failback only after the hysteresis, stale and unknown
 * answers ignored, and the counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hip_multihome.h"

#define MS (1000ull * 1000)

struct sent {
	struct hip_mh_path p;
	uint32_t seq;
};

static struct {
	struct sent sent[256];
	unsigned n_sent;
	unsigned moves;
	struct hip_mh_path moved;
} F;

static int
fake_send(void *ctx, void *user, const struct hip_mh_path *p, uint32_t seq)
{
	(void)ctx;
	(void)user;
	if (F.n_sent < 256)
		F.sent[F.n_sent++] = (struct sent){ .p = *p, .seq = seq };
	return 0;
}

static void
fake_move(void *ctx, void *user, const struct hip_mh_path *p)
{
	(void)ctx;
	(void)user;
	F.moves++;
	F.moved = *p;
}

static struct gw_addr
v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct gw_addr x = { .family = 4 };

	x.addr[0] = a; x.addr[1] = b; x.addr[2] = c; x.addr[3] = d;
	return x;
}

static const uint8_t WAN1 = 1, WAN2 = 2;    /* our outer ports */

static struct hip_mh_set S;
static struct hip_mh_local OUR[2];
static struct gw_addr PEER[2];

/* The peer answers every probe sent since `from` on the paths whose
 * local address is not `dead` (family 0: none dead). */
static void
answer_all(unsigned from, const struct gw_addr *dead, uint64_t now)
{
	for (unsigned i = from; i < F.n_sent; i++) {
		const struct sent *x = &F.sent[i];

		if (dead != NULL && memcmp(dead->addr, x->p.local.addr, 4) == 0)
			continue;
		assert_true(hip_mh_probe_answer(&S, x->seq, &x->p.local, &x->p.remote, now) >= 0);
	}
}

static int
setup(void **state)
{
	const struct hip_mh_cfg cfg = {
		.interval_ns = 1000 * MS, .misses = 3, .hysteresis_ns = 5000 * MS,
		.send = fake_send, .move = fake_move,
	};

	(void)state;
	memset(&F, 0, sizeof(F));
	hip_mh_init(&S, &cfg, NULL);
	OUR[0] = (struct hip_mh_local){ .addr = v4(192, 0, 2, 1), .port = WAN1, .pref = 0 };
	OUR[1] = (struct hip_mh_local){ .addr = v4(100, 64, 1, 1), .port = WAN2, .pref = 10 };
	PEER[0] = v4(198, 51, 100, 1);
	PEER[1] = v4(198, 51, 100, 2);
	return 0;
}

/* Ranking: port preference first (a less preferred port listed first
 * comes last), then the peer's order; other families pair with nothing. */
static void
test_ranking(void **state)
{
	struct hip_mh_local our[3] = { OUR[1], OUR[0], { .port = 3 } };

	(void)state;
	our[2].addr.family = 6;
	our[2].addr.addr[0] = 0x20;
	assert_int_equal(hip_mh_set_paths(&S, our, 3, PEER, 2, &OUR[1].addr, &PEER[0]), 4);
	assert_int_equal(S.path[0].port, WAN1);
	assert_memory_equal(&S.path[0].remote, &PEER[0], sizeof(PEER[0]));
	assert_int_equal(S.path[1].port, WAN1);
	assert_memory_equal(&S.path[1].remote, &PEER[1], sizeof(PEER[1]));
	assert_int_equal(S.path[2].port, WAN2);
	assert_int_equal(S.path[3].port, WAN2);
	assert_int_equal(S.active, 2);       /* the SAs' (wan2, peer 0) */
	for (unsigned x = 0; x < 4; x++)
		assert_int_equal(S.path[x].state, HIP_MH_UNKNOWN);
	assert_int_equal(hip_mh_set_paths(&S, our, HIP_MH_LOCAL_MAX + 1, PEER, 2, NULL, NULL), -1);
	assert_int_equal(S.n, 4);            /* unchanged */
}

/* wan1 stops answering: 3 misses make it down, the SAs fail over to wan2
 * (up), once; probes go on on the down path. */
static void
test_misses_failover(void **state)
{
	uint64_t t = 0;
	unsigned mark;

	(void)state;
	assert_int_equal(hip_mh_set_paths(&S, OUR, 2, PEER, 1, &OUR[0].addr, &PEER[0]), 2);
	hip_mh_tick(&S, t);
	assert_int_equal(F.n_sent, 2);
	answer_all(0, NULL, t + 20 * MS);
	assert_int_equal(S.path[0].state, HIP_MH_UP);
	assert_int_equal(S.path[1].state, HIP_MH_UP);
	assert_int_equal(S.path[0].rtt_ns, 20 * MS);
	assert_int_equal(S.st.path_up, 2);
	assert_int_equal(F.moves, 0);
	for (unsigned k = 1; k <= 3; k++) {   /* wan1 silent from here */
		t += 1000 * MS;
		mark = F.n_sent;
		hip_mh_tick(&S, t);
		if (k < 3) {
			assert_int_equal(S.path[0].state, HIP_MH_UP);
			assert_int_equal(F.moves, 0);
		}
		answer_all(mark, &OUR[0].addr, t + 5 * MS);
	}
	t += 1000 * MS;
	hip_mh_tick(&S, t);                   /* the third miss counted */
	assert_int_equal(S.path[0].state, HIP_MH_DOWN);
	assert_int_equal(S.st.path_down, 1);
	assert_int_equal(S.st.probes_lost, 3);
	assert_int_equal(F.moves, 1);
	assert_int_equal(F.moved.port, WAN2);
	assert_int_equal(S.active, 1);
	assert_int_equal(S.st.failovers, 1);
	assert_int_equal(S.st.failbacks, 0);
	mark = F.n_sent;
	t += 1000 * MS;
	hip_mh_tick(&S, t);
	assert_int_equal(F.n_sent - mark, 2); /* the down path is still probed */
	assert_int_equal(F.moves, 1);
}

/* The active port's link goes down: its path is down and the SAs move in
 * the same call, no probe waited for; no probes on it while down. */
static void
test_link_down_immediate(void **state)
{
	uint64_t t = 0;
	unsigned mark;

	(void)state;
	hip_mh_set_paths(&S, OUR, 2, PEER, 1, &OUR[0].addr, &PEER[0]);
	hip_mh_tick(&S, t);
	answer_all(0, NULL, t + MS);
	t += 1000 * MS;
	hip_mh_tick(&S, t);                    /* probes out, unanswered yet */
	assert_int_equal(hip_mh_link(&S, WAN1, false, t + 10 * MS), 1);
	assert_int_equal(S.path[0].state, HIP_MH_DOWN);
	assert_int_equal(F.moves, 1);
	assert_int_equal(F.moved.port, WAN2);
	assert_int_equal(S.st.failovers, 1);
	assert_int_equal(S.st.probes_lost, 1); /* wan1's outstanding probe */
	mark = F.n_sent;
	t += 1000 * MS;
	hip_mh_tick(&S, t);
	assert_int_equal(F.n_sent - mark, 1);  /* wan2 only */
	assert_int_equal(F.sent[mark].p.port, WAN2);
	assert_int_equal(hip_mh_link(&S, WAN1, true, t), 1);
	assert_int_equal(S.path[0].state, HIP_MH_UNKNOWN);
	assert_int_equal(F.moves, 1);          /* unknown: not moved back */
	assert_int_equal(hip_mh_link(&S, 7, false, t), 0);
}

/* After a failover the preferred path answers again: the SAs move back
 * only once it has answered for the hysteresis (5 s), and a miss in
 * between starts the count again. */
static void
test_failback_hysteresis(void **state)
{
	uint64_t t = 0, back_from;
	unsigned mark;

	(void)state;
	hip_mh_set_paths(&S, OUR, 2, PEER, 1, &OUR[0].addr, &PEER[0]);
	hip_mh_tick(&S, t);
	answer_all(0, NULL, t + MS);
	hip_mh_link(&S, WAN1, false, t + 100 * MS);
	assert_int_equal(S.active, 1);
	hip_mh_link(&S, WAN1, true, t + 200 * MS);
	/* wan1 answers from the tick at 1 s on, for 4 s */
	t += 1000 * MS;
	back_from = t;
	for (; t < back_from + 4000 * MS; t += 1000 * MS) {
		mark = F.n_sent;
		hip_mh_tick(&S, t);
		answer_all(mark, NULL, t + MS);
		assert_int_equal(S.active, 1);     /* not before the hysteresis */
		assert_int_equal(S.st.failbacks, 0);
	}
	/* then misses one: the run starts again */
	mark = F.n_sent;
	hip_mh_tick(&S, t);
	answer_all(mark, &OUR[0].addr, t + MS);
	assert_int_equal(S.path[0].state, HIP_MH_UP);
	t += 1000 * MS;
	back_from = t;
	for (; t < back_from + 5000 * MS; t += 1000 * MS) {
		mark = F.n_sent;
		hip_mh_tick(&S, t);
		assert_int_equal(S.active, 1);
		answer_all(mark, NULL, t + MS);
	}
	hip_mh_tick(&S, t);                     /* answering since back_from: 5 s */
	assert_int_equal(S.active, 0);
	assert_int_equal(S.st.failbacks, 1);
	assert_int_equal(S.st.failovers, 1);
	assert_int_equal(F.moved.port, WAN1);
}

/* Answers that match no outstanding probe are counted and change
 * nothing: an unknown sequence number, a late one (its probe counted lost
 * already), a duplicate, the right number from the wrong addresses. */
static void
test_stale_ignored(void **state)
{
	uint64_t t = 0;
	struct sent first;

	(void)state;
	hip_mh_set_paths(&S, OUR, 2, PEER, 1, &OUR[0].addr, &PEER[0]);
	hip_mh_tick(&S, t);
	first = F.sent[0];
	assert_int_equal(hip_mh_probe_answer(&S, 9999, &first.p.local, &first.p.remote, t), -1);
	assert_int_equal(hip_mh_probe_answer(&S, 0, &first.p.local, &first.p.remote, t), -1);
	assert_int_equal(hip_mh_probe_answer(&S, first.seq, &OUR[1].addr, &first.p.remote, t), -1);
	assert_int_equal(S.st.probe_stale, 3);
	assert_int_equal(S.path[0].state, HIP_MH_UNKNOWN);
	assert_int_equal(hip_mh_probe_answer(&S, first.seq, &first.p.local, &first.p.remote,
					     t + MS), 0);
	assert_int_equal(hip_mh_probe_answer(&S, first.seq, &first.p.local, &first.p.remote,
					     t + MS), -1);   /* duplicate */
	t += 1000 * MS;
	hip_mh_tick(&S, t);                                  /* wan2's first probe lost */
	assert_int_equal(S.st.probes_lost, 1);
	assert_int_equal(hip_mh_probe_answer(&S, F.sent[1].seq, &F.sent[1].p.local,
					     &F.sent[1].p.remote, t + MS), -1);   /* late */
	assert_int_equal(S.path[1].state, HIP_MH_UNKNOWN);
	assert_int_equal(S.st.probe_stale, 5);
	assert_int_equal(S.st.probes_ok, 1);
	assert_int_equal(F.moves, 0);
}

/* A probe is lost once unanswered for half an interval (HIP_MH_TIMEOUT_DIV),
 * not only when the next is due: with probes every second and 3 misses, a
 * silent loss right after a probe makes the path down 2.5 s later; an
 * answer after the timeout is stale. */
static void
test_probe_timeout(void **state)
{
	const uint64_t half = 1000 * MS / HIP_MH_TIMEOUT_DIV;
	uint64_t t = 0;

	(void)state;
	hip_mh_set_paths(&S, OUR, 2, PEER, 1, &OUR[0].addr, &PEER[0]);
	hip_mh_tick(&S, t);
	assert_int_equal(hip_mh_probe_answer(&S, F.sent[0].seq, &F.sent[0].p.local,
					     &F.sent[0].p.remote, t + MS), 0);
	assert_int_equal(hip_mh_probe_answer(&S, F.sent[1].seq, &F.sent[1].p.local,
					     &F.sent[1].p.remote, t + MS), 1);
	/* from here wan1 answers nothing */
	for (unsigned k = 1; k <= 3; k++) {
		t = k * 1000 * MS;
		hip_mh_tick(&S, t);                       /* probes k sent */
		assert_int_equal(hip_mh_probe_answer(&S, F.sent[F.n_sent - 1].seq,
						     &F.sent[F.n_sent - 1].p.local,
						     &F.sent[F.n_sent - 1].p.remote, t + MS), 1);
		hip_mh_tick(&S, t + half - 1);
		assert_int_equal(S.path[0].misses, k - 1);   /* not yet */
		hip_mh_tick(&S, t + half);
		assert_int_equal(S.path[0].misses, k);
	}
	assert_int_equal(S.path[0].state, HIP_MH_DOWN);    /* at 3.5 s: 2.5 s after the loss */
	assert_int_equal(F.moves, 1);
	assert_int_equal(F.moved.port, WAN2);
	/* wan1's third probe answered now, after its timeout: stale */
	assert_int_equal(hip_mh_probe_answer(&S, F.sent[F.n_sent - 2].seq,
					     &F.sent[F.n_sent - 2].p.local,
					     &F.sent[F.n_sent - 2].p.remote, t + half + MS), -1);
	assert_int_equal(S.path[0].state, HIP_MH_DOWN);
}

/* A path set rebuilt (a new peer LOCATOR_SET) keeps the state of the
 * paths that remain. */
static void
test_rebuild_keeps_state(void **state)
{
	(void)state;
	hip_mh_set_paths(&S, OUR, 2, PEER, 1, &OUR[0].addr, &PEER[0]);
	hip_mh_tick(&S, 0);
	answer_all(0, NULL, 7 * MS);
	assert_int_equal(hip_mh_set_paths(&S, OUR, 2, PEER, 2, &OUR[0].addr, &PEER[0]), 4);
	assert_int_equal(S.path[0].state, HIP_MH_UP);
	assert_int_equal(S.path[0].rtt_ns, 7 * MS);
	assert_int_equal(S.path[1].state, HIP_MH_UNKNOWN);   /* wan1 -> peer 2, new */
	assert_int_equal(S.path[2].state, HIP_MH_UP);        /* wan2 -> peer 1 */
	assert_int_equal(S.active, 0);
	assert_string_equal(hip_mh_state_name(S.path[2].state), "up");
	assert_non_null(hip_mh_active(&S));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ranking, setup),
		cmocka_unit_test_setup(test_misses_failover, setup),
		cmocka_unit_test_setup(test_link_down_immediate, setup),
		cmocka_unit_test_setup(test_failback_hysteresis, setup),
		cmocka_unit_test_setup(test_stale_ignored, setup),
		cmocka_unit_test_setup(test_probe_timeout, setup),
		cmocka_unit_test_setup(test_rebuild_keeps_state, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
