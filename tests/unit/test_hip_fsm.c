/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP association state machine cell by cell (cmocka, no EAL): for each
 * of the 8 states of RFC 7401 section 4.4.2 and each of the 8 packet types
 * the engine takes (I1, R1, I2, R2, UPDATE, NOTIFY, CLOSE, CLOSE_ACK), an
 * engine X is brought to the state with its peer Y on the shared harness
 * (tests/lib/hip_harness.h), one packet of the type arrives from Y, and the
 * outcome is checked: hip_host_input's result, X's state after, every
 * counter (the ones named move by one, all others stay), the SA callbacks,
 * and the one packet X sends back or none. Where a cell's handler applies a
 * condition (the HIT comparisons of I1 in I1-SENT and I2 in I2-SENT, the R1
 * generation in I2-SENT, a duplicate or replayed I2, UPDATE in R2-SENT,
 * CLOSE and CLOSE_ACK in CLOSED, UPDATE's mobility in R2-SENT and
 * ESTABLISHED: a LOCATOR_SET, an echo request, an echo response, RFC 8046
 * 3.2.1) each branch has its row.
 *
 * The packets are genuine where a handler takes them (Y's engine makes
 * them: its R1 to an I1, its I2 of a new Base Exchange, its UPDATE rekey,
 * its NOTIFY, its CLOSE, its CLOSE_ACK); where the state alone drops the
 * packet they are an R1 of Y or a bare HIP header of the type from Y's HIT.
 * Expected outcomes: RFC 7401 sections 4.4.3 (state processes), 6.7 - 6.15
 * (packet processing) and RFC 7402 section 6.9 (UPDATE), as the engine
 * implements them (where the engine departs from the informative table of
 * 4.4.3 the row says so).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hip_harness.h"
#include "hip_host.h"
#include "hip_packet.h"
#include "hip_param.h"

#ifndef HIPGW_TEST_DATA
#define HIPGW_TEST_DATA "tests/data"
#endif
#define KEYS_DIR HIPGW_TEST_DATA "/hip/keys"

#define X 0                       /* the engine under test */
#define Y 1                       /* its peer */
#define MS (1000ull * 1000)
#define PAST_R2_SENT_HOLD (11000 * MS)   /* R2-SENT -> ESTABLISHED after 10 s */
#define UNKNOWN_CRITICAL  1001    /* a parameter type nobody knows, critical (odd) */
#define PT_MAX            (HIP_CLOSE_ACK + 1)

static struct hip_hi k_p256, k_p384;   /* HIT order: p384 (2001:22:7a33) < p256 (2001:22:b1ef) */
static struct hh_world W;
static struct hh_side *const S = W.s;
static struct hh_pkt last[2][PT_MAX];  /* the last packet of each type each side sent */

static const struct hh_params P = {
	.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1,
	.esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
	.ciph = { HIP_CIPHER_AES_128_CBC }, .nc = 1,
	.k = 1,
};

/* How the packet of a row is made, and X brought to the row's state. */
enum how {
	HAND,            /* a bare header of the type from Y (I1: with DH_GROUP_LIST) */
	R1,              /* Y's R1 to an I1 from X (X's own in I1-SENT) */
	R1_NEWER,        /* the same after Y computed a new R1 generation */
	R1_AGAIN,        /* the R1 X answered, again */
	I2,              /* Y's I2 of a new Base Exchange: Y forgets X, connects, X answers its I1 */
	I2_AGAIN,        /* the I2 X answered, again */
	I2_OLD,          /* the I2 X answered, after a newer one replaced its association */
	R2,              /* Y's R2 to X's I2 */
	UPDATE,          /* Y's UPDATE rekey */
	NOTIFY,          /* Y's NOTIFY to a packet from X's HIT with an unknown critical parameter */
	CLOSE,           /* Y's CLOSE */
	CLOSE_AGAIN,     /* the CLOSE X answered, again */
	CLOSE_ACK,       /* Y's CLOSE_ACK to X's CLOSE */
	CLOSE_ACK_CROSSED, /* both closed: Y's CLOSE reached X first, then X's reached Y */
	UPDATE_LOC,      /* Y moved: its UPDATE with LOCATOR_SET (RFC 8046 3.2.1) */
	UPDATE_ECHO_REQ, /* X moved: Y's answer, ACK and ECHO_REQUEST_SIGNED */
	UPDATE_ECHO_RESP, /* Y moved: its ACK and ECHO_RESPONSE_SIGNED to X's check */
};

static const char *const how_name[] = {
	"hand", "R1", "R1 newer generation", "R1 again", "I2", "I2 again", "I2 replayed",
	"R2", "UPDATE", "NOTIFY", "CLOSE", "CLOSE again", "CLOSE_ACK", "CLOSE_ACK crossed",
	"UPDATE LOCATOR_SET", "UPDATE echo request", "UPDATE echo response",
};

/* One row: what arrives at X in which state, and what must follow. */
struct cell {
	enum hip_state st;        /* X's state when the packet arrives */
	uint8_t type;             /* HIP packet type from Y */
	enum how how;
	bool x_smaller;           /* X's HIT smaller than Y's (else greater) */
	enum hip_state after;     /* X's state after */
	int rc;                   /* hip_host_input's result */
	uint8_t reply;            /* the packet type X sends back, 0 none */
	const char *moved;        /* counters that move by one (rx, tx, dropped aside) */
	int sa_up, sa_in_up, sa_down;   /* X's SA callbacks */
	int established;          /* X's io.established calls */
};

#define U  HIP_STATE_UNASSOCIATED
#define S1 HIP_STATE_I1_SENT
#define S2 HIP_STATE_I2_SENT
#define RS HIP_STATE_R2_SENT
#define E  HIP_STATE_ESTABLISHED
#define CG HIP_STATE_CLOSING
#define CD HIP_STATE_CLOSED
#define EF HIP_STATE_E_FAILED
#define STATE_DROP HIP_E_HOST_STATE

/* dropped for the state alone: drop_state, nothing else (RFC 7401 4.4.3
 * "Drop and stay", or "Receive ANYOTHER") */
#define DROPPED(s, t, h) { .st = s, .type = t, .how = h, .after = s, .rc = STATE_DROP, \
			   .moved = "drop_state" }
/* an I1 answered with R1, no state (RFC 7401 4.4.3, 6.7) */
#define R1_SENT(s) { .st = s, .type = HIP_I1, .how = HAND, .after = s, .reply = HIP_R1, \
		     .moved = "i1_rx r1_tx" }
/* a new Base Exchange from an I2 (RFC 7401 4.4.3, 6.9): R2, R2-SENT, SAs up */
#define I2_TAKEN(s, down, sim) { .st = s, .type = HIP_I2, .how = I2, .after = RS, .reply = HIP_R2, \
				 .moved = "i2_rx dh_derive sig_verify r2_tx bex_ok" sim, \
				 .sa_up = 1, .sa_down = down }
/* a NOTIFY: verified, counted, no state change (RFC 7401 6.13) */
#define NOTIFIED(s) { .st = s, .type = HIP_NOTIFY, .how = NOTIFY, .after = s, \
		      .moved = "notify_rx sig_verify" }

static const struct cell CELLS[] = {
	/* ---- UNASSOCIATED (RFC 7401 4.4.3) */
	R1_SENT(U),
	DROPPED(U, HIP_R1, R1),             /* ANYOTHER; 6.8: R1 in no I1/I2-SENT */
	I2_TAKEN(U, 0, ""),
	DROPPED(U, HIP_R2, HAND),           /* 6.10 */
	DROPPED(U, HIP_UPDATE, HAND),       /* ANYOTHER; RFC 7402 6.9: ESTABLISHED or R2-SENT */
	NOTIFIED(U),                        /* 4.4.3 lists it as ANYOTHER; 6.13 */
	DROPPED(U, HIP_CLOSE, HAND),        /* "optionally send ICMP": no ICMP */
	DROPPED(U, HIP_CLOSE_ACK, HAND),    /* 6.15: only in CLOSING or CLOSED */

	/* ---- I1-SENT (4.4.3) */
	/* I1 from the peer: the local HIT smaller, drop; greater, R1 (6.7 step 3) */
	{ .st = S1, .type = HIP_I1, .how = HAND, .x_smaller = true, .after = S1, .rc = STATE_DROP,
	  .moved = "i1_rx sim_init drop_state" },
	R1_SENT(S1),
	{ .st = S1, .type = HIP_R1, .how = R1, .after = S2, .reply = HIP_I2,   /* 6.8 */
	  .moved = "dh_derive sig_verify" },
	I2_TAKEN(S1, 0, ""),                /* 6.9 step 6 */
	DROPPED(S1, HIP_R2, HAND),          /* 6.10 */
	DROPPED(S1, HIP_UPDATE, HAND),
	NOTIFIED(S1),
	DROPPED(S1, HIP_CLOSE, HAND),
	DROPPED(S1, HIP_CLOSE_ACK, HAND),

	/* ---- I2-SENT (4.4.3) */
	R1_SENT(S2),
	/* R1: only one of a newer R1 generation restarts (6.8 step 10) */
	{ .st = S2, .type = HIP_R1, .how = R1_NEWER, .after = S2, .reply = HIP_I2,
	  .moved = "dh_derive sig_verify" },
	DROPPED(S2, HIP_R1, R1_AGAIN),
	/* I2: the local HIT smaller, drop; greater, take it and drop the
	 * own Kij (6.9 step 5) */
	{ .st = S2, .type = HIP_I2, .how = I2, .x_smaller = true, .after = S2, .rc = STATE_DROP,
	  .moved = "i2_rx sim_init drop_state" },
	I2_TAKEN(S2, 0, " sim_init"),
	{ .st = S2, .type = HIP_R2, .how = R2, .after = E, .moved = "sig_verify",   /* 6.10 */
	  .sa_up = 1, .established = 1 },
	DROPPED(S2, HIP_UPDATE, HAND),
	NOTIFIED(S2),
	DROPPED(S2, HIP_CLOSE, HAND),       /* 4.4.3 processes it; 6.14: no association yet */
	DROPPED(S2, HIP_CLOSE_ACK, HAND),

	/* ---- R2-SENT (4.4.3) */
	R1_SENT(RS),
	DROPPED(RS, HIP_R1, R1),
	/* I2: the one answered gets the same R2 (6.9 step 4), a new one a new
	 * association, a replaced one nothing */
	{ .st = RS, .type = HIP_I2, .how = I2_AGAIN, .after = RS, .reply = HIP_R2,
	  .moved = "i2_rx i2_dup r2_tx" },
	I2_TAKEN(RS, 1, ""),
	{ .st = RS, .type = HIP_I2, .how = I2_OLD, .after = RS, .rc = STATE_DROP,
	  .moved = "i2_rx drop_replay" },
	DROPPED(RS, HIP_R2, HAND),
	/* UPDATE: move to ESTABLISHED (4.4.3, 6.9 last step; RFC 7402 6.9) */
	{ .st = RS, .type = HIP_UPDATE, .how = UPDATE, .after = E, .reply = HIP_UPDATE,
	  .moved = "sig_verify dh_derive", .sa_in_up = 1, .established = 1 },
	/* the peer moved: ESTABLISHED, ACK and the check to its new locator
	 * (RFC 8046 3.2.1, 5.4) */
	{ .st = RS, .type = HIP_UPDATE, .how = UPDATE_LOC, .after = E, .reply = HIP_UPDATE,
	  .moved = "sig_verify loc_rx rr_tx", .established = 1 },
	NOTIFIED(RS),
	{ .st = RS, .type = HIP_CLOSE, .how = CLOSE, .after = CD, .reply = HIP_CLOSE_ACK,   /* 6.14 */
	  .moved = "sig_verify closes", .sa_down = 1 },
	DROPPED(RS, HIP_CLOSE_ACK, HAND),

	/* ---- ESTABLISHED (4.4.3) */
	R1_SENT(E),
	DROPPED(E, HIP_R1, R1),
	{ .st = E, .type = HIP_I2, .how = I2_AGAIN, .after = E, .reply = HIP_R2,
	  .moved = "i2_rx i2_dup r2_tx" },
	I2_TAKEN(E, 1, ""),                 /* drop the old association (6.9) */
	DROPPED(E, HIP_R2, HAND),
	{ .st = E, .type = HIP_UPDATE, .how = UPDATE, .after = E, .reply = HIP_UPDATE,
	  .moved = "sig_verify dh_derive", .sa_in_up = 1 },
	/* mobility (RFC 8046 3.2.1): the peer's LOCATOR_SET gets ACK and the
	 * check; the check of ours, our echo response; the response to our
	 * check, the new path (io.path), nothing sent */
	{ .st = E, .type = HIP_UPDATE, .how = UPDATE_LOC, .after = E, .reply = HIP_UPDATE,
	  .moved = "sig_verify loc_rx rr_tx" },
	{ .st = E, .type = HIP_UPDATE, .how = UPDATE_ECHO_REQ, .after = E, .reply = HIP_UPDATE,
	  .moved = "sig_verify echo_answered" },
	{ .st = E, .type = HIP_UPDATE, .how = UPDATE_ECHO_RESP, .after = E,
	  .moved = "sig_verify rr_ok path_changes" },
	NOTIFIED(E),
	{ .st = E, .type = HIP_CLOSE, .how = CLOSE, .after = CD, .reply = HIP_CLOSE_ACK,
	  .moved = "sig_verify closes", .sa_down = 1 },
	DROPPED(E, HIP_CLOSE_ACK, HAND),

	/* ---- CLOSING (4.4.3) */
	R1_SENT(CG),
	DROPPED(CG, HIP_R1, R1),            /* 4.4.3 processes it; 6.8: no I1 sent */
	I2_TAKEN(CG, 1, ""),
	DROPPED(CG, HIP_R2, HAND),
	DROPPED(CG, HIP_UPDATE, HAND),
	NOTIFIED(CG),
	/* both closing, the CLOSEs cross: answer and go to CLOSED (6.14) */
	{ .st = CG, .type = HIP_CLOSE, .how = CLOSE, .after = CD, .reply = HIP_CLOSE_ACK,
	  .moved = "sig_verify closes", .sa_down = 1 },
	/* 4.4.3 goes to UNASSOCIATED; the engine keeps CLOSED for a while
	 * (6.15: the state is discarded when it moves to UNASSOCIATED) */
	{ .st = CG, .type = HIP_CLOSE_ACK, .how = CLOSE_ACK, .after = CD,
	  .moved = "sig_verify closes", .sa_down = 1 },

	/* ---- CLOSED (4.4.3) */
	R1_SENT(CD),
	DROPPED(CD, HIP_R1, R1),            /* as in CLOSING */
	I2_TAKEN(CD, 0, ""),
	DROPPED(CD, HIP_R2, HAND),
	DROPPED(CD, HIP_UPDATE, HAND),
	NOTIFIED(CD),
	/* a CLOSE again: the CLOSE_ACK again, stay (4.4.3, 6.14) */
	{ .st = CD, .type = HIP_CLOSE, .how = CLOSE_AGAIN, .after = CD, .reply = HIP_CLOSE_ACK,
	  .moved = "sig_verify" },
	/* the CLOSE_ACK to our own CLOSE after we answered theirs: taken, stay */
	{ .st = CD, .type = HIP_CLOSE_ACK, .how = CLOSE_ACK_CROSSED, .after = CD,
	  .moved = "sig_verify" },

	/* ---- E-FAILED (4.4.3: only the timeout; the responder's packets as
	 * in UNASSOCIATED, 6.7 and 6.9) */
	R1_SENT(EF),
	DROPPED(EF, HIP_R1, R1),
	I2_TAKEN(EF, 0, ""),
	DROPPED(EF, HIP_R2, HAND),
	DROPPED(EF, HIP_UPDATE, HAND),
	NOTIFIED(EF),
	DROPPED(EF, HIP_CLOSE, HAND),
	DROPPED(EF, HIP_CLOSE_ACK, HAND),
};
#define N_CELLS (sizeof(CELLS) / sizeof(CELLS[0]))

/* Every counter of struct hip_host_stats but rx, tx and dropped. */
static const struct {
	const char *name;
	size_t off;
} CTR[] = {
#define C(f) { #f, offsetof(struct hip_host_stats, f) }
	C(i1_rx), C(r1_tx), C(i2_rx), C(r2_tx), C(bex_ok), C(bex_failed), C(updates), C(closes),
	C(drop_malformed), C(drop_checksum), C(drop_unknown_peer), C(drop_not_for_us),
	C(drop_state), C(drop_critical), C(drop_puzzle), C(drop_r1_gen), C(drop_r1_ratelimit),
	C(drop_policy), C(drop_hit_mismatch), C(drop_mac), C(drop_sig), C(drop_replay),
	C(drop_internal), C(i2_dup), C(retransmits), C(notify_tx), C(notify_rx),
	C(r1_generations), C(dh_derive), C(sig_verify), C(sim_init),
	C(loc_tx), C(loc_rx), C(rr_tx), C(rr_ok), C(rr_failed), C(echo_answered), C(path_changes),
	C(drop_locator), C(drop_locator_many), C(drop_locator_type), C(drop_echo),
	C(drop_echo_addr), C(drop_update_dup),
#undef C
};

/* ------------------------------------------------------------ harness */

static bool
on_send(struct hh_side *s, const struct hh_pkt *p)
{
	uint8_t t = hh_ptype(p);

	if (s->idx <= Y && t < PT_MAX)
		last[s->idx][t] = *p;
	return true;
}

static void
harness_fail(const char *msg)
{
	fail_msg("%s", msg);
}

static int
setup(void **state)
{
	static const struct hh_hooks hooks = { .send = on_send };

	(void)state;
	hh_world_init(&W, &hooks, harness_fail);
	hh_key(&W, KEYS_DIR, "ecdsa-p256.pem", &k_p256);
	hh_key(&W, KEYS_DIR, "ecdsa-p384.pem", &k_p384);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	hip_hi_free(&k_p256);
	hip_hi_free(&k_p384);
	return 0;
}

/* A packet of `type` from side `from` to side `to` with only what the
 * checks before the state machine need: an I1 carries DH_GROUP_LIST;
 * unknown_critical adds a parameter nobody knows. */
static struct hh_pkt
hand(uint8_t type, int from, int to, bool unknown_critical)
{
	static const uint8_t nothing[4];
	struct hh_pkt p = { .from = from, .to = to, .src = S[from].addr, .dst = S[to].addr };
	struct hip_builder b;
	int len;

	assert_int_equal(hip_build_init(&b, p.b, sizeof(p.b), type, S[from].hi->hit, S[to].hi->hit), 0);
	if (type == HIP_I1) {
		struct hip_dh_group_list gl = { .n = 1, .ids = { HIP_DH_GROUP_NIST_P256 } };

		assert_int_equal(hip_dh_group_list_put(&b, &gl), 0);
	}
	if (unknown_critical)
		assert_int_equal(hip_build_param(&b, UNKNOWN_CRITICAL, nothing, sizeof(nothing)), 0);
	len = hip_build_finish(&b);
	assert_true(len > 0);
	p.len = (size_t)len;
	assert_int_equal(hh_fix_cksum(&p), 0);
	return p;
}

/* Deliver *p to its side now; returns what that side sent back of
 * `type` (it must have). */
static struct hh_pkt
answer(const struct hh_pkt *p, uint8_t type)
{
	int to = p->to;

	last[to][type].len = 0;
	hh_inject(&W, p);
	if (last[to][type].len == 0)
		fail_msg("side %d sent no packet of type %u to a packet of type %u", to, type, hh_ptype(p));
	W.qn = 0;
	return last[to][type];
}

/* Deliver the last packet of `type` side `from` sent. */
static void
deliver_last(int from, uint8_t type)
{
	assert_int_not_equal(last[from][type].len, 0);
	hh_inject(&W, &last[from][type]);
}

/* A Base Exchange from Y: I1, R1, I2, and the R2 delivered too. */
static void
bex_from_y(void)
{
	assert_int_equal(hip_host_connect(S[Y].h, &S[X], W.now), 0);
	hh_deliver_all(&W);
}

/* From a fresh pair, X brought to `st` with Y. */
static void
go(enum hip_state st)
{
	switch (st) {
	case HIP_STATE_UNASSOCIATED:
		break;
	case HIP_STATE_I1_SENT:
		assert_int_equal(hip_host_connect(S[X].h, &S[Y], W.now), 0);
		break;
	case HIP_STATE_I2_SENT:
		assert_int_equal(hip_host_connect(S[X].h, &S[Y], W.now), 0);
		assert_true(hh_deliver_type(&W, HIP_I1));
		assert_true(hh_deliver_type(&W, HIP_R1));   /* X's I2 stays on the wire */
		break;
	case HIP_STATE_R2_SENT:
		bex_from_y();                                /* X the responder */
		break;
	case HIP_STATE_ESTABLISHED:
		bex_from_y();
		hh_advance(&W, PAST_R2_SENT_HOLD);
		break;
	case HIP_STATE_CLOSING:
		go(HIP_STATE_ESTABLISHED);
		hip_host_close_all(S[X].h, W.now);
		break;
	case HIP_STATE_CLOSED:
		go(HIP_STATE_ESTABLISHED);
		hip_host_close_all(S[Y].h, W.now);
		assert_true(hh_deliver_type(&W, HIP_CLOSE));   /* X's CLOSE_ACK stays */
		break;
	case HIP_STATE_E_FAILED:
		assert_int_equal(hip_host_connect(S[X].h, &S[Y], W.now), 0);
		for (int n = 0; n < 100 && hh_state(&W, X, Y) != HIP_STATE_E_FAILED; n++) {
			W.qn = 0;                                /* no I1 reaches Y */
			hh_advance(&W, 500 * MS);
		}
		break;
	}
}

/* A fresh pair (X's HIT smaller than Y's or greater), X brought to `st`;
 * the wire empty after, the packets sent kept in last[][]. */
static void
reach(enum hip_state st, bool x_smaller)
{
	hh_pair_up(&W, x_smaller ? &k_p384 : &k_p256, x_smaller ? &k_p256 : &k_p384, &P);
	memset(last, 0, sizeof(last));
	go(st);
	W.qn = 0;
	assert_int_equal(hh_state(&W, X, Y), st);
}

/* Y's I2 of a new Base Exchange with X (Y forgot X: a restarted peer). */
static struct hh_pkt
new_i2(void)
{
	struct hh_pkt r1;

	assert_int_equal(hip_host_forget(S[Y].h, &S[X], W.now), 0);
	assert_int_equal(hip_host_connect(S[Y].h, &S[X], W.now), 0);
	assert_int_equal(W.qn, 1);
	r1 = answer(&W.q[0], HIP_R1);
	W.qn = 0;
	return answer(&r1, HIP_I2);
}

/* Side `who` moves to a new address (the old one still receiving) and
 * announces it: its UPDATE with LOCATOR_SET. */
static struct hh_pkt
moved(int who)
{
	struct gw_addr to;

	hh_addr(&to, false, who + 8);
	hh_move(&W, who, &to, true);
	last[who][HIP_UPDATE].len = 0;
	assert_int_equal(hip_host_set_locators(S[who].h, &to, 1, 0, false, W.now), 1);
	assert_int_not_equal(last[who][HIP_UPDATE].len, 0);
	assert_true(hh_find_param(last[who][HIP_UPDATE].b, last[who][HIP_UPDATE].len,
				  HIP_PARAM_LOCATOR_SET) != 0);
	W.qn = 0;
	return last[who][HIP_UPDATE];
}

/* The packet of row c, X in its state (but for CLOSE_ACK_CROSSED, which
 * takes X from CLOSING to CLOSED). */
static struct hh_pkt
make(const struct cell *c)
{
	struct hh_pkt p, old;

	switch (c->how) {
	case HAND:
		return hand(c->type, Y, X, false);
	case R1_NEWER:
		assert_int_equal(hip_host_regen_r1(S[Y].h, W.now), 0);
		/* FALLTHROUGH */
	case R1:
		if (c->st == HIP_STATE_I1_SENT)
			return answer(&last[X][HIP_I1], HIP_R1);
		p = hand(HIP_I1, X, Y, false);
		return answer(&p, HIP_R1);
	case R1_AGAIN:
		return last[Y][HIP_R1];
	case I2:
		return new_i2();
	case I2_AGAIN:
		return last[Y][HIP_I2];
	case I2_OLD:
		old = last[Y][HIP_I2];
		p = new_i2();
		assert_int_equal(hh_inject(&W, &p), 0);
		assert_int_equal(hh_state(&W, X, Y), HIP_STATE_R2_SENT);
		W.qn = 0;
		return old;
	case R2:
		return answer(&last[X][HIP_I2], HIP_R2);
	case UPDATE:
		last[Y][HIP_UPDATE].len = 0;
		assert_int_equal(hip_host_rekey(S[Y].h, &S[X], W.now), 0);
		assert_int_not_equal(last[Y][HIP_UPDATE].len, 0);
		W.qn = 0;
		return last[Y][HIP_UPDATE];
	case NOTIFY:
		p = hand(HIP_I1, X, Y, true);
		return answer(&p, HIP_NOTIFY);
	case CLOSE:
		last[Y][HIP_CLOSE].len = 0;
		hip_host_close_all(S[Y].h, W.now);
		assert_int_not_equal(last[Y][HIP_CLOSE].len, 0);
		W.qn = 0;
		return last[Y][HIP_CLOSE];
	case CLOSE_AGAIN:
		return last[Y][HIP_CLOSE];
	case CLOSE_ACK:
		return answer(&last[X][HIP_CLOSE], HIP_CLOSE_ACK);
	case UPDATE_LOC:
		return moved(Y);
	case UPDATE_ECHO_REQ:
		p = moved(X);
		return answer(&p, HIP_UPDATE);
	case UPDATE_ECHO_RESP:
		p = moved(Y);
		p = answer(&p, HIP_UPDATE);
		return answer(&p, HIP_UPDATE);
	case CLOSE_ACK_CROSSED:
		hip_host_close_all(S[Y].h, W.now);
		W.qn = 0;
		deliver_last(Y, HIP_CLOSE);                  /* X: CLOSING -> CLOSED */
		W.qn = 0;
		return answer(&last[X][HIP_CLOSE], HIP_CLOSE_ACK);
	}
	fail();
	return p;
}

static bool
named(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = strstr(list, name); s != NULL; s = strstr(s + 1, name))
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
			return true;
	return false;
}

static uint64_t
ctr(const struct hip_host_stats *st, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)st + off, sizeof(v));
	return v;
}

static void
run_cell(void **state)
{
	const struct cell *c = *state;
	const char *sn = hip_state_name(c->st), *an = hip_state_name(c->after);
	struct hip_host_stats b, a;
	unsigned up, in_up, down, est, sent;
	struct hh_pkt p;
	int rc;

	reach(c->how == CLOSE_ACK_CROSSED ? HIP_STATE_CLOSING : c->st, c->x_smaller);
	p = make(c);
	W.qn = 0;
	assert_int_equal(hh_ptype(&p), c->type);
	p.to = X;
	if (hh_state(&W, X, Y) != c->st)
		fail_msg("%s before the packet, not %s", hip_state_name(hh_state(&W, X, Y)), sn);
	b = hh_stats(&W, X);
	up = S[X].sa_up_n;
	in_up = S[X].sa_in_up_n;
	down = S[X].sa_down_n;
	est = S[X].established_n;
	sent = S[X].sent;
	if (c->reply != 0)
		last[X][c->reply].len = 0;

	rc = hh_inject(&W, &p);

	a = hh_stats(&W, X);
	if (rc != c->rc)
		fail_msg("%s: hip_host_input %d, not %d", sn, rc, c->rc);
	if (hh_state(&W, X, Y) != c->after)
		fail_msg("%s: %s after, not %s", sn, hip_state_name(hh_state(&W, X, Y)), an);
	assert_int_equal(a.rx - b.rx, 1);
	assert_int_equal(a.dropped - b.dropped, c->rc < 0 ? 1 : 0);
	for (size_t x = 0; x < sizeof(CTR) / sizeof(CTR[0]); x++) {
		uint64_t d = ctr(&a, CTR[x].off) - ctr(&b, CTR[x].off);

		if (d != (named(c->moved, CTR[x].name) ? 1u : 0u))
			fail_msg("%s: %s moved by %llu", sn, CTR[x].name, (unsigned long long)d);
	}
	assert_int_equal(S[X].sa_up_n - up, c->sa_up);
	assert_int_equal(S[X].sa_in_up_n - in_up, c->sa_in_up);
	assert_int_equal(S[X].sa_down_n - down, c->sa_down);
	assert_int_equal(S[X].established_n - est, c->established);
	/* one packet back to Y, of the type the cell says, or none */
	assert_int_equal(S[X].sent - sent, c->reply != 0 ? 1 : 0);
	assert_int_equal(a.tx - b.tx, c->reply != 0 ? 1 : 0);
	if (c->reply != 0) {
		assert_int_not_equal(last[X][c->reply].len, 0);
		assert_memory_equal(&last[X][c->reply].dst, &S[Y].addr, sizeof(S[Y].addr));
	}
	hh_down(&W);
}

/* The rows cover all 64 cells: every state with every packet type. */
static void
test_every_cell(void **state)
{
	static const uint8_t types[] = { HIP_I1, HIP_R1, HIP_I2, HIP_R2, HIP_UPDATE, HIP_NOTIFY,
					 HIP_CLOSE, HIP_CLOSE_ACK };
	unsigned seen = 0;

	(void)state;
	for (int st = HIP_STATE_UNASSOCIATED; st <= HIP_STATE_E_FAILED; st++) {
		for (size_t t = 0; t < sizeof(types); t++) {
			bool found = false;

			for (size_t x = 0; x < N_CELLS && !found; x++)
				found = (int)CELLS[x].st == st && CELLS[x].type == types[t];
			if (!found)
				fail_msg("no row for %s / %s", hip_state_name(st),
					 hip_packet_type_name(types[t]));
			seen++;
		}
	}
	assert_int_equal(seen, 64);
}

/* Data from the peer (hip_host_data_in) in every state: only R2-SENT moves,
 * to ESTABLISHED with io.established (RFC 7401 4.4.3, R2-SENT: "Receive data
 * or UPDATE"); elsewhere nothing changes, nothing is sent, no counter moves. */
static void
test_data_in(void **state)
{
	(void)state;
	for (int st = HIP_STATE_UNASSOCIATED; st <= HIP_STATE_E_FAILED; st++) {
		bool moves = st == HIP_STATE_R2_SENT;
		struct hip_host_stats b, a;
		unsigned est, sent;

		reach((enum hip_state)st, false);
		b = hh_stats(&W, X);
		est = S[X].established_n;
		sent = S[X].sent;
		if (hip_host_data_in(S[X].h, &S[Y], W.now) != (moves ? 1 : 0))
			fail_msg("%s: hip_host_data_in result", hip_state_name(st));
		assert_int_equal(hh_state(&W, X, Y), moves ? HIP_STATE_ESTABLISHED : st);
		assert_int_equal(S[X].established_n - est, moves ? 1 : 0);
		assert_int_equal(S[X].sent, sent);
		a = hh_stats(&W, X);
		assert_memory_equal(&a, &b, sizeof(a));
		if (moves)   /* once: ESTABLISHED now */
			assert_int_equal(hip_host_data_in(S[X].h, &S[Y], W.now), 0);
		assert_int_equal(hip_host_data_in(S[X].h, &S[X], W.now), -1);   /* not a peer */
		hh_down(&W);
	}
}

/* R2-SENT's timer: ESTABLISHED with io.established once, after
 * HIP_R2_SENT_HOLD_NS and not before (RFC 7401 4.4.3, R2-SENT: "Exit R2-SENT
 * timer expires"). The initiator's io.established comes at R2, after its
 * sa_up. */
static void
test_r2_sent_timer(void **state)
{
	(void)state;
	reach(HIP_STATE_R2_SENT, false);
	assert_int_equal(S[X].established_n, 0);
	assert_int_equal(S[Y].established_n, 1);                   /* Y: the initiator */
	assert_true(S[Y].established_ev > S[Y].sa_up_ev);
	hh_advance(&W, PAST_R2_SENT_HOLD / 2);
	assert_int_equal(hh_state(&W, X, Y), HIP_STATE_R2_SENT);
	assert_int_equal(S[X].established_n, 0);
	hh_advance(&W, PAST_R2_SENT_HOLD / 2 + MS);
	assert_int_equal(hh_state(&W, X, Y), HIP_STATE_ESTABLISHED);
	assert_int_equal(S[X].established_n, 1);
	hh_advance(&W, PAST_R2_SENT_HOLD);
	assert_int_equal(S[X].established_n, 1);
	assert_int_equal(S[Y].established_n, 1);
	hh_down(&W);
}

int
main(void)
{
	static char names[N_CELLS][80];
	struct CMUnitTest tests[N_CELLS + 3];

	tests[0] = (struct CMUnitTest)cmocka_unit_test(test_every_cell);
	tests[N_CELLS + 1] = (struct CMUnitTest)cmocka_unit_test(test_data_in);
	tests[N_CELLS + 2] = (struct CMUnitTest)cmocka_unit_test(test_r2_sent_timer);
	for (size_t x = 0; x < N_CELLS; x++) {
		const struct cell *c = &CELLS[x];

		snprintf(names[x], sizeof(names[x]), "%s / %s (%s%s)", hip_state_name(c->st),
			 hip_packet_type_name(c->type), how_name[c->how],
			 c->x_smaller ? ", local HIT smaller" : "");
		tests[x + 1] = (struct CMUnitTest){ .name = names[x], .test_func = run_cell,
						    .initial_state = (void *)c };
	}
	return _cmocka_run_group_tests("test_hip_fsm", tests, N_CELLS + 3, setup, teardown);
}
