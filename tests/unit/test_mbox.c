/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the middlebox's tracker (lib/mbox, mbox_track.h) on real HIP
 * exchanges: two HIP engines (lib/hip) run against each other on the test
 * harness's wire (tests/lib/hip_harness.h) and every packet they exchange
 * crosses the tracker on its way (the wire's filter): a packet it drops is
 * lost. The tracker fills a test double of the flow table
 * (tests/lib/mbox_flow_double.h), whose flows are checked against the SAs
 * the engines installed: ESP to side x is the flow (x's address, x's inbound
 * SPI). rte_hash needs DPDK's EAL (--no-huge).
 *
 * Then what an attacker on the wire tries, each dropped, counted by its
 * reason and changing nothing: an UPDATE whose ESP_INFO SPI was changed
 * (its signature no longer verifies), a forged R2 (a flipped signature
 * byte), an UPDATE with an old SEQ, an I2 whose HOST_ID does not hash to its
 * HIT, a CLOSE and CLOSE_ACK replayed from an earlier association of the same
 * HITs, an I1 flood, HOST_ID inside ENCRYPTED with and without the config's
 * HI, a denied HIT pair; and the bounds (a full table, idle ageing, a
 * restarted host's new BEX). test_mbox_state.c has the state file, the
 * foreign capture and malformed input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>

#include "hip_harness.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "mbox_flow_double.h"
#include "mbox_track.h"
#include "unit_eal.h"

#ifndef HIPGW_TEST_DATA
#define HIPGW_TEST_DATA "tests/data"
#endif
#define KEYS_DIR HIPGW_TEST_DATA "/hip/keys"

#define MS       (1000ull * 1000)
#define S_NS     (1000 * MS)
#define GRACE_NS (2 * S_NS)
#define IDLE_NS  (30 * S_NS)
#define KEEP     64                    /* packets the box forwarded, kept for replays */

static struct hip_hi k_p256, k_p384, k_rsa, k_gen;
static struct hh_world W;
static struct hh_side *const S = W.s;
static struct gw_mbox_flows F;
static struct mbox_tracker *T;

static const struct mbox_rule ALLOW_ALL = { .name = "all", .any_initiator = 1, .any_responder = 1,
					    .action = MBOX_ALLOW };

/* ---- the box on the wire ---- */

static int (*attack)(struct hh_pkt *p);   /* changes a packet before the box sees it */
static struct hh_pkt kept[KEEP];          /* what the box forwarded, in order */
static unsigned n_kept;
static unsigned last_why;
static int last_verdict;

static int
through_box(struct hh_pkt *p)
{
	unsigned why = 0;

	if (attack != NULL && attack(p))
		return 1;
	last_verdict = mbox_hip_input(T, &p->src, &p->dst, p->b, p->len, W.now, &why);
	last_why = why;
	if (last_verdict == MBOX_FORWARD && n_kept < KEEP)
		kept[n_kept++] = *p;
	return last_verdict == MBOX_DROP;
}

static void
harness_fail(const char *msg)
{
	fail_msg("%s", msg);
}

/* A tracker on F with rules / HIs (NULL: allow all, no HI). */
static void
box_up(const struct mbox_rule *rules, unsigned n_rules, const struct mbox_known_hi *his,
       unsigned n_his, uint32_t max, uint32_t i1_rate)
{
	struct mbox_params p = {
		.max_assocs = max, .idle_ns = IDLE_NS, .rekey_grace_ns = GRACE_NS, .i1_rate = i1_rate,
		.rules = rules != NULL ? rules : &ALLOW_ALL, .n_rules = rules != NULL ? n_rules : 1,
		.his = his, .n_his = n_his, .flows = &F,
	};
	char err[256] = "";

	fd_reset(&F);
	T = mbox_create(&p, err, sizeof(err));
	if (T == NULL)
		fail_msg("mbox_create: %s", err);
	attack = NULL;
	n_kept = 0;
}

static void
box_down(void)
{
	mbox_free(T);
	T = NULL;
	hh_down(&W);
}

static struct mbox_stats
st(void)
{
	struct mbox_stats s;

	mbox_stats(T, &s);
	return s;
}

static struct hh_params
params(uint16_t cipher, bool v6)
{
	struct hh_params p = {
		.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1,
		.esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
		.ciph = { cipher }, .nc = 1,
		.k = 2, .v6 = v6,
	};

	return p;
}

/* sides 0 and 1 with HIs a, b, their packets through the box */
static void
pair(struct hip_hi *a, struct hip_hi *b, uint16_t cipher, bool v6)
{
	struct hh_params p = params(cipher, v6);

	hh_pair_up(&W, a, b, &p);
	W.filter = through_box;
}

/* deliver, tick the box and the engines, for ms of virtual time */
static void
run(unsigned ms)
{
	for (unsigned t = 0; t < ms; t += 10) {
		hh_deliver_all(&W);
		mbox_tick(T, W.now);
		hh_advance(&W, 10 * MS);
	}
	hh_deliver_all(&W);
	mbox_tick(T, W.now);
}

static struct mbox_assoc_info
info(int a, int b)
{
	struct mbox_assoc_info i;

	if (mbox_assoc_find(T, S[a].hi->hit, S[b].hi->hit, &i) != 0)
		fail_msg("no association of sides %d and %d", a, b);
	return i;
}

static bool
has_assoc(int a, int b)
{
	struct mbox_assoc_info i;

	return mbox_assoc_find(T, S[a].hi->hit, S[b].hi->hit, &i) == 0;
}

/* the flow (side x's address, spi), NULL when none */
static struct fd_flow *
flow(int x, uint32_t spi)
{
	return fd_find(&F, &S[x].addr, spi);
}

/* What the box learned is what the engines installed: i initiated with r,
 * ESP to each is its address and its inbound SPI, both flows installed for
 * the association, n flows in all. */
static void
assert_learned(int i, int r, unsigned n)
{
	struct mbox_assoc_info a = info(i, r);

	assert_true(a.state == MBOX_ST_ESTABLISHED);
	assert_memory_equal(a.hit_i, S[i].hi->hit, HIP_HIT_LEN);
	assert_memory_equal(a.hit_r, S[r].hi->hit, HIP_HIT_LEN);
	assert_int_equal(a.spi_i, S[i].in.spi);
	assert_int_equal(a.spi_r, S[r].in.spi);
	assert_int_equal(a.spi_i, S[r].out.spi);   /* the engines agree */
	assert_memory_equal(&a.loc_i, &S[i].addr, sizeof(a.loc_i));
	assert_memory_equal(&a.loc_r, &S[r].addr, sizeof(a.loc_r));
	assert_non_null(flow(i, S[i].in.spi));
	assert_non_null(flow(r, S[r].in.spi));
	assert_int_equal(flow(i, S[i].in.spi)->assoc, a.id);
	assert_int_equal(flow(r, S[r].in.spi)->assoc, a.id);
	assert_int_equal(F.n, n);
	assert_int_equal(a.flows, n);
}

/* i starts a BEX with r and both engines end established */
static void
bex(int i, int r)
{
	assert_int_equal(hip_host_connect(S[i].h, &S[r], W.now), 0);
	run(300);
	assert_int_equal(hh_state(&W, i, r), HIP_STATE_ESTABLISHED);
}

/* ---- packet surgery for the attacks ---- */

static uint8_t a_type;                 /* packet type to change */
static unsigned a_left;                /* how many more */

static size_t
param_at(const struct hh_pkt *p, uint16_t type)
{
	size_t off = hh_find_param(p->b, p->len, type);

	assert_true(off != 0);
	return off;
}

/* the last byte of the signature */
static int
flip_sig(struct hh_pkt *p)
{
	if (hh_ptype(p) == a_type && a_left > 0) {
		size_t off = param_at(p, HIP_PARAM_HIP_SIGNATURE);

		a_left--;
		p->b[off + 4 + hip_get16(p->b + off + 2) - 1] ^= 0x01;
		assert_int_equal(hh_fix_cksum(p), 0);
	}
	return 0;
}

/* ESP_INFO's NEW SPI (an attacker's SPI in a real UPDATE) */
static int
swap_spi(struct hh_pkt *p)
{
	if (hh_ptype(p) == a_type && a_left > 0 && hh_find_param(p->b, p->len, HIP_PARAM_ESP_INFO)) {
		size_t off = param_at(p, HIP_PARAM_ESP_INFO);

		a_left--;
		hip_put32(p->b + off + 4 + 8, 0x0bad0bad);
		assert_int_equal(hh_fix_cksum(p), 0);
	}
	return 0;
}

/* HOST_ID's Host Identity replaced by k_gen's (same algorithm and length) */
static int
swap_hi(struct hh_pkt *p)
{
	if (hh_ptype(p) == a_type && a_left > 0) {
		size_t off = param_at(p, HIP_PARAM_HOST_ID);

		a_left--;
		assert_int_equal(hip_get16(p->b + off + 4), k_gen.hi_len);
		memcpy(p->b + off + 4 + 6, k_gen.hi, k_gen.hi_len);
		assert_int_equal(hh_fix_cksum(p), 0);
	}
	return 0;
}

/* ---- tests ---- */

/* A BEX with HOST_ID in clear (HIP cipher NULL), IPv4 and IPv6, ECDSA and
 * RSA: the box learns both HIs, both SPIs at both locators. */
static void
test_bex(void **state)
{
	struct hip_hi *ks[][2] = { { &k_p256, &k_p384 }, { &k_rsa, &k_p256 } };

	(void)state;
	for (int v6 = 0; v6 < 2; v6++)
		for (int k = 0; k < 2; k++) {
			box_up(NULL, 0, NULL, 0, 16, 10);
			pair(ks[k][0], ks[k][1], HIP_CIPHER_NULL_ENCRYPT, v6);
			bex(0, 1);
			assert_learned(0, 1, 2);
			assert_int_equal(st().established, 1);
			assert_int_equal(st().dropped, 0);
			assert_int_equal(st().assocs, 1);
			assert_int_equal(st().pending, 0);
			assert_true(st().sig_verified >= 3);   /* R1, I2, R2 */
			box_down();
		}
}

/* HOST_ID inside ENCRYPTED (HIP cipher AES): only the responder can read it
 * (RFC 7401 6.9 step 9), so the box takes the initiator's HI from the
 * config; without it the I2 is refused (no_hi) and nothing is learned. */
static void
test_encrypted_host_id(void **state)
{
	struct mbox_known_hi kh[2] = { { .hi = k_rsa }, { .hi = k_p256 } };

	(void)state;
	box_up(NULL, 0, kh, 2, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_AES_128_CBC, false);
	bex(0, 1);
	assert_learned(0, 1, 2);
	assert_int_equal(st().drops[MBOX_DROP_NO_HI], 0);
	box_down();

	box_up(NULL, 0, kh, 1, 16, 10);   /* only k_rsa's */
	pair(&k_p256, &k_p384, HIP_CIPHER_AES_128_CBC, false);
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	run(3000);
	assert_int_not_equal(hh_state(&W, 0, 1), HIP_STATE_ESTABLISHED);
	assert_int_equal(hh_stats(&W, 1).r2_tx, 0);   /* no I2 reached the responder */
	assert_true(st().drops[MBOX_DROP_NO_HI] >= 2); /* the I2 and its retransmissions */
	assert_int_equal(info(0, 1).state, MBOX_ST_R1_SEEN);
	assert_int_equal(F.n, 0);
	box_down();
}

/* An UPDATE rekey packet by packet: the new SPI passes once its verified
 * UPDATE announced it, beside the old; the rekey completes with the last
 * ACK; the old SPIs go rekey_grace_ns later (later still while ESP uses
 * them). */
static void
test_rekey(void **state)
{
	uint32_t a_old, b_old;
	struct mbox_assoc_info i;

	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	a_old = S[0].in.spi;
	b_old = S[1].in.spi;
	assert_int_equal(hip_host_rekey(S[0].h, &S[1], W.now), 0);
	assert_true(hh_deliver_type(&W, HIP_UPDATE));         /* A's UPDATE: A's new SPI */
	i = info(0, 1);
	assert_int_equal(i.state, MBOX_ST_REKEYING);
	assert_int_not_equal(i.new_spi_i, 0);
	assert_int_equal(i.spi_i, a_old);
	assert_non_null(flow(0, i.new_spi_i));
	assert_non_null(flow(0, a_old));
	assert_int_equal(F.n, 3);
	assert_true(hh_deliver_type(&W, HIP_UPDATE));         /* B's: its new SPI, ACK of A's */
	i = info(0, 1);
	assert_int_equal(i.state, MBOX_ST_REKEYING);
	assert_int_equal(i.new_spi_i, S[0].in.spi);           /* A switched to it */
	assert_int_equal(i.new_spi_r, S[1].early_in.spi);     /* B installed it early */
	assert_int_equal(F.n, 4);
	assert_true(hh_deliver_type(&W, HIP_UPDATE));         /* A's ACK: complete */
	assert_int_equal(W.qn, 0);
	assert_learned(0, 1, 4);                              /* the old ones still pass */
	assert_non_null(flow(0, a_old));
	assert_non_null(flow(1, b_old));
	assert_int_equal(st().rekeys, 1);
	assert_int_equal(info(0, 1).rekeys, 1);
	/* within the grace: kept; A's old flow carries ESP until just before its end */
	hh_advance(&W, GRACE_NS - 100 * MS);
	mbox_tick(T, W.now);
	assert_int_equal(F.n, 4);
	flow(0, a_old)->last_seen_ns = W.now;
	hh_advance(&W, 200 * MS);
	mbox_tick(T, W.now);
	assert_int_equal(F.n, 3);
	assert_null(flow(1, b_old));
	assert_non_null(flow(0, a_old));                      /* used: a grace after its last ESP */
	hh_advance(&W, GRACE_NS);
	mbox_tick(T, W.now);
	assert_null(flow(0, a_old));
	assert_learned(0, 1, 2);
	assert_int_equal(st().dropped, 0);
	/* B rekeys, everything on the wire at once */
	assert_int_equal(hip_host_rekey(S[1].h, &S[0], W.now), 0);
	run(100);
	assert_learned(0, 1, 4);
	assert_int_equal(st().rekeys, 2);
	run(3000);
	assert_learned(0, 1, 2);
	box_down();
}

/* An attacker changes the NEW SPI of A's UPDATE: the signature fails, the
 * UPDATE is dropped (sig) and its SPI never learned; A's retransmission
 * then goes through. A flipped signature byte on B's reply: the same. */
static void
test_update_forged(void **state)
{
	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	attack = swap_spi;
	a_type = HIP_UPDATE;
	a_left = 1;
	assert_int_equal(hip_host_rekey(S[0].h, &S[1], W.now), 0);
	assert_true(hh_deliver_type(&W, HIP_UPDATE));
	assert_int_equal(last_verdict, MBOX_DROP);
	assert_int_equal(last_why, MBOX_DROP_SIG);
	assert_null(flow(0, 0x0bad0bad));
	assert_int_equal(info(0, 1).state, MBOX_ST_ESTABLISHED);
	assert_int_equal(info(0, 1).new_spi_i, 0);
	assert_int_equal(F.n, 2);
	attack = flip_sig;
	a_left = 1;
	run(3000);                                            /* A's retransmission forged too, then the real one */
	assert_int_equal(st().drops[MBOX_DROP_SIG], 2);
	assert_int_equal(st().rekeys, 1);
	run(3000);
	assert_learned(0, 1, 2);
	assert_null(flow(0, 0x0bad0bad));
	box_down();
}

/* A forged R2 (a flipped signature byte): dropped, the association stays
 * I2_SEEN with no flow; the initiator's retransmitted I2 gets the real R2. */
static void
test_r2_forged(void **state)
{
	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, true);
	attack = flip_sig;
	a_type = HIP_R2;
	a_left = 1;
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	hh_deliver_all(&W);
	assert_int_equal(last_why, MBOX_DROP_SIG);
	assert_int_equal(info(0, 1).state, MBOX_ST_I2_SEEN);
	assert_int_equal(info(0, 1).spi_i, S[1].out.spi);     /* the I2's SPI, not installed */
	assert_int_equal(F.n, 0);
	assert_int_equal(st().drops[MBOX_DROP_SIG], 1);
	run(3000);
	assert_int_equal(hh_state(&W, 0, 1), HIP_STATE_ESTABLISHED);
	assert_learned(0, 1, 2);
	assert_int_equal(st().drops[MBOX_DROP_SIG], 1);
	box_down();
}

/* An UPDATE replayed after later ones: its SEQ is old (seq); the last one
 * again is a retransmission (forwarded, nothing changes). Replayed into a
 * later association of the same HITs: an OLD SPI the box does not know
 * (esp_info). */
static void
test_update_old_seq(void **state)
{
	struct hh_pkt first, last;
	unsigned why = 0;
	struct mbox_assoc_info before, after;

	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	n_kept = 0;
	assert_int_equal(hip_host_rekey(S[0].h, &S[1], W.now), 0);
	run(100);
	first = kept[0];                                      /* A's UPDATE, SEQ 0 */
	assert_int_equal(hh_ptype(&first), HIP_UPDATE);
	assert_true(hh_find_param(first.b, first.len, HIP_PARAM_SEQ) != 0);
	run(3000);
	n_kept = 0;
	assert_int_equal(hip_host_rekey(S[0].h, &S[1], W.now), 0);
	run(100);
	last = kept[0];                                       /* A's UPDATE, SEQ 1 */
	run(3000);
	assert_learned(0, 1, 2);
	before = info(0, 1);
	assert_int_equal(mbox_hip_input(T, &first.src, &first.dst, first.b, first.len, W.now, &why),
			 MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_SEQ);
	assert_int_equal(mbox_hip_input(T, &last.src, &last.dst, last.b, last.len, W.now, &why),
			 MBOX_FORWARD);
	after = info(0, 1);
	assert_memory_equal(&before, &after, offsetof(struct mbox_assoc_info, last_ns));
	assert_int_equal(info(0, 1).state, MBOX_ST_ESTABLISHED);
	assert_int_equal(F.n, 2);
	/* a new association of the same HITs (both restart): its SEQs start
	 * again, so the first UPDATE's SEQ is no longer old; its OLD SPI is no
	 * SPI of this association (esp_info), and its NEW SPI is not learned */
	hip_host_forget(S[0].h, &S[1], W.now);
	hip_host_forget(S[1].h, &S[0], W.now);
	bex(0, 1);
	run(3000);
	assert_int_equal(st().rebex, 1);
	assert_learned(0, 1, 2);
	assert_int_equal(mbox_hip_input(T, &first.src, &first.dst, first.b, first.len, W.now, &why),
			 MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_ESP_INFO);
	assert_int_equal(info(0, 1).new_spi_i, 0);
	assert_learned(0, 1, 2);
	box_down();
}

/* An I2 whose HOST_ID is another key's (of the same algorithm and size): it
 * does not hash to the I2's HIT (hit_mismatch); the real I2 goes through. */
static void
test_i2_hit_mismatch(void **state)
{
	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	attack = swap_hi;
	a_type = HIP_I2;
	a_left = 1;
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	hh_deliver_all(&W);
	assert_int_equal(last_why, MBOX_DROP_HIT_MISMATCH);
	assert_int_equal(info(0, 1).state, MBOX_ST_R1_SEEN);
	run(3000);
	assert_learned(0, 1, 2);
	assert_int_equal(st().drops[MBOX_DROP_HIT_MISMATCH], 1);
	assert_int_equal(st().dropped, 1);
	box_down();
}

static const struct hh_pkt *
kept_of(uint8_t type)
{
	for (unsigned i = 0; i < n_kept; i++)
		if (hh_ptype(&kept[i]) == type)
			return &kept[i];
	fail_msg("the box forwarded no packet of type %u", type);
	return NULL;
}

/* CLOSE and CLOSE_ACK: the association ends, its flows go. Recorded and
 * replayed in a later association of the same HITs (their signatures verify
 * as well as then): the CLOSE's nonce is spent (close_replay), the
 * CLOSE_ACK echoes no CLOSE of this association (echo); nothing ends. */
static void
test_close_replay(void **state)
{
	struct hh_pkt close1, ack1;
	unsigned why = 0;

	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	n_kept = 0;
	hip_host_close_all(S[0].h, W.now);
	assert_true(hh_deliver_type(&W, HIP_CLOSE));
	assert_int_equal(info(0, 1).state, MBOX_ST_CLOSING);
	assert_int_equal(F.n, 2);                             /* until the CLOSE_ACK */
	assert_true(hh_deliver_type(&W, HIP_CLOSE_ACK));
	assert_int_equal(info(0, 1).state, MBOX_ST_ENDED);
	assert_int_equal(F.n, 0);
	assert_int_equal(st().closed, 1);
	close1 = *kept_of(HIP_CLOSE);
	ack1 = *kept_of(HIP_CLOSE_ACK);
	/* retransmissions in ENDED pass */
	assert_int_equal(mbox_hip_input(T, &close1.src, &close1.dst, close1.b, close1.len, W.now, &why),
			 MBOX_FORWARD);
	assert_int_equal(mbox_hip_input(T, &ack1.src, &ack1.dst, ack1.b, ack1.len, W.now, &why),
			 MBOX_FORWARD);
	run(20000);
	assert_false(has_assoc(0, 1));                        /* the hold is over */
	/* the second association; the replays */
	bex(0, 1);
	assert_learned(0, 1, 2);
	assert_int_equal(mbox_hip_input(T, &close1.src, &close1.dst, close1.b, close1.len, W.now, &why),
			 MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_CLOSE_REPLAY);
	assert_int_equal(mbox_hip_input(T, &ack1.src, &ack1.dst, ack1.b, ack1.len, W.now, &why),
			 MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_ECHO);
	assert_learned(0, 1, 2);
	assert_int_equal(st().closed, 1);
	/* and the real CLOSE of this one, from the other side, ends it */
	hip_host_close_all(S[1].h, W.now);
	run(100);
	assert_int_equal(info(0, 1).state, MBOX_ST_ENDED);
	assert_int_equal(F.n, 0);
	assert_int_equal(st().closed, 2);
	box_down();
}

/* Both close at once: the CLOSEs cross, each CLOSE_ACK echoes one of them. */
static void
test_close_simultaneous(void **state)
{
	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	hip_host_close_all(S[0].h, W.now);
	hip_host_close_all(S[1].h, W.now);
	run(1000);
	assert_int_equal(info(0, 1).state, MBOX_ST_ENDED);
	assert_int_equal(F.n, 0);
	assert_int_equal(st().dropped, 0);
	box_down();
}

/* an I1 from hs to hr at src -> dst into b */
static size_t
mk_i1(uint8_t *b, const uint8_t *hs, const uint8_t *hr, const struct gw_addr *src,
      const struct gw_addr *dst)
{
	struct hip_builder bl;
	struct hip_dh_group_list g = { .n = 1, .ids = { HIP_DH_GROUP_NIST_P256 } };
	int len;

	assert_int_equal(hip_build_init(&bl, b, HIP_PACKET_MAX, HIP_I1, hs, hr), 0);
	hip_dh_group_list_put(&bl, &g);
	len = hip_build_finish(&bl);
	assert_true(len > 0);
	assert_int_equal(hip_checksum_set_ipv4(b, (size_t)len, src->addr, dst->addr), 0);
	return (size_t)len;
}

/* I1s make no state and pass at i1_rate per source address; a source's
 * bucket is forgotten once full again; beyond MBOX_I1_SOURCES_MAX sources,
 * the others share one bucket. */
static void
test_i1_flood(void **state)
{
	uint8_t b[HIP_PACKET_MAX];
	struct gw_addr src = { .family = 4, .addr = { 192, 0, 2, 7 } };
	struct gw_addr dst = { .family = 4, .addr = { 192, 0, 2, 8 } };
	uint64_t now = 5 * S_NS;
	unsigned fwd = 0, why;
	size_t len;

	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 5);
	len = mk_i1(b, k_p256.hit, k_p384.hit, &src, &dst);
	for (int x = 0; x < 100; x++)
		fwd += mbox_hip_input(T, &src, &dst, b, len, now, &why) == MBOX_FORWARD;
	assert_int_equal(fwd, 5);                             /* one second's worth */
	assert_int_equal(st().drops[MBOX_DROP_I1_RATE], 95);
	assert_int_equal(st().i1, 5);
	assert_int_equal(st().assocs, 0);                     /* no state */
	now += 400 * MS;                                      /* 2 tokens more */
	fwd = 0;
	for (int x = 0; x < 10; x++)
		fwd += mbox_hip_input(T, &src, &dst, b, len, now, &why) == MBOX_FORWARD;
	assert_int_equal(fwd, 2);
	assert_int_equal(st().i1_sources, 1);
	mbox_tick(T, now + 2 * S_NS);                         /* full again: forgotten */
	assert_int_equal(st().i1_sources, 0);
	/* many sources */
	fwd = 0;
	for (unsigned x = 0; x < MBOX_I1_SOURCES_MAX + 100; x++) {
		struct gw_addr s = { .family = 4, .addr = { 10, (uint8_t)(x >> 16), (uint8_t)(x >> 8),
							    (uint8_t)x } };

		len = mk_i1(b, k_p256.hit, k_p384.hit, &s, &dst);
		fwd += mbox_hip_input(T, &s, &dst, b, len, now, &why) == MBOX_FORWARD;
	}
	assert_int_equal(st().i1_sources, MBOX_I1_SOURCES_MAX);
	assert_int_equal(fwd, MBOX_I1_SOURCES_MAX + 5);       /* the rest share 5 */
	assert_int_equal(st().assocs, 0);
	mbox_free(T);
	T = NULL;
	/* no limit */
	box_up(NULL, 0, NULL, 0, 16, 0);
	len = mk_i1(b, k_p256.hit, k_p384.hit, &src, &dst);
	fwd = 0;
	for (int x = 0; x < 100; x++)
		fwd += mbox_hip_input(T, &src, &dst, b, len, now, &why) == MBOX_FORWARD;
	assert_int_equal(fwd, 100);
	mbox_free(T);
	T = NULL;
}

/* Rules: first match, default deny. A denied pair is dropped at its I1, and
 * at every later packet (the R1, I2, R2 of a recorded exchange); the same
 * HITs the other way round may be allowed. */
static void
test_rules(void **state)
{
	struct mbox_rule rules[2] = {
		{ .name = "no-a-to-b", .action = MBOX_DENY },
		{ .name = "rest", .any_initiator = 1, .any_responder = 1, .action = MBOX_ALLOW },
	};
	struct hh_pkt rec[KEEP];
	unsigned n = 0, why;

	(void)state;
	memcpy(rules[0].initiator, k_p256.hit, HIP_HIT_LEN);
	memcpy(rules[0].responder, k_p384.hit, HIP_HIT_LEN);
	/* a BEX recorded through an open box */
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	n = n_kept;
	memcpy(rec, kept, sizeof(rec));
	box_down();
	/* the rules: A -> B denied at I1 */
	box_up(rules, 2, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	run(2000);
	assert_int_not_equal(hh_state(&W, 0, 1), HIP_STATE_ESTABLISHED);
	assert_true(st().drops[MBOX_DROP_DENIED] >= 2);       /* the I1 and its retransmissions */
	assert_int_equal(st().assocs, 0);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(mbox_hip_input(T, &rec[i].src, &rec[i].dst, rec[i].b, rec[i].len, W.now,
						&why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_DENIED);
	}
	assert_int_equal(st().assocs, 0);
	assert_int_equal(F.n, 0);
	/* B -> A is allowed (the rule names the initiator) */
	hip_host_forget(S[0].h, &S[1], W.now);
	bex(1, 0);
	assert_learned(1, 0, 2);
	box_down();
	/* no rule at all: default deny */
	box_up(rules, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	hh_deliver_all(&W);
	assert_int_equal(last_why, MBOX_DROP_DENIED);
	box_down();
}

/* A host restarts (a new engine, same HI) and runs a new BEX from its side:
 * the new SPIs are installed, the old ones retired (rebex), gone after the
 * grace. */
static void
test_restart(void **state)
{
	struct hh_params p = params(HIP_CIPHER_NULL_ENCRYPT, false);
	uint32_t a_old;

	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	run(11000);                                           /* B leaves R2-SENT */
	a_old = S[0].in.spi;
	hip_host_free(S[1].h);
	p.first_spi = 0x7000;
	hh_side_up(&W, 1, &k_p384, &p);
	hh_know(&W, 1, 0);
	bex(1, 0);
	assert_int_equal(st().rebex, 1);
	assert_int_equal(st().established, 2);
	assert_int_not_equal(S[0].in.spi, a_old);
	assert_learned(1, 0, 4);                              /* the old pair in its grace */
	run(3000);
	assert_learned(1, 0, 2);
	assert_null(flow(0, a_old));
	box_down();
}

/* Bounds: max_assocs 2 (BEXes in progress: 1). Two associations, then a
 * third pair's R1 is refused (full), nothing learned for it. */
static void
test_full(void **state)
{
	struct hh_params p = params(HIP_CIPHER_NULL_ENCRYPT, false);

	(void)state;
	box_up(NULL, 0, NULL, 0, 2, 10);
	hh_reset(&W);
	hh_side_up(&W, 0, &k_p256, &p);
	hh_side_up(&W, 1, &k_p384, &p);
	hh_side_up(&W, 2, &k_rsa, &p);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			if (a != b)
				hh_know(&W, a, b);
	W.filter = through_box;
	bex(0, 1);
	bex(0, 2);
	assert_int_equal(st().assocs, 2);
	assert_int_equal(hip_host_connect(S[1].h, &S[2], W.now), 0);
	run(300);
	assert_int_not_equal(hh_state(&W, 1, 2), HIP_STATE_ESTABLISHED);
	assert_true(st().drops[MBOX_DROP_FULL] >= 1);
	assert_false(has_assoc(1, 2));
	assert_int_equal(F.n, 4);
	box_down();
}

/* The flow table refuses: a flow another association has (here a lab
 * flow on the initiator's SPI) is not taken over (flow_conflict); a full
 * table (flow_full). The R2 is dropped and the flows already installed for
 * it taken back; once the table has room, the retransmitted R2 passes. */
static void
test_flow_refused(void **state)
{
	struct gw_addr a0;

	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	a0 = S[0].addr;
	assert_int_equal(gw_mbox_flow_add(&F, &a0, 0x1000, 999, true), 0);   /* S0's first SPI */
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	hh_deliver_all(&W);
	assert_int_equal(last_why, MBOX_DROP_FLOW_CONFLICT);
	assert_int_equal(info(0, 1).state, MBOX_ST_I2_SEEN);
	assert_int_equal(F.n, 1);
	assert_int_equal(fd_find(&F, &a0, 0x1000)->assoc, 999);
	assert_int_equal(gw_mbox_flow_del(&F, &a0, 0x1000), 0);
	F.cap = 1;                                            /* room for one of the two */
	run(1000);
	assert_int_equal(st().drops[MBOX_DROP_FLOW_FULL], 1);
	assert_int_equal(F.n, 0);                             /* the first taken back */
	assert_int_equal(info(0, 1).state, MBOX_ST_I2_SEEN);
	F.cap = 0;
	run(3000);
	assert_learned(0, 1, 2);
	box_down();
}

/* Idle ageing: ESP on a flow keeps an association; without HIP or ESP for
 * idle_ns it ends and its flows go (aged). */
static void
test_idle(void **state)
{
	struct mbox_assoc_info i;
	uint32_t cursor = 0;
	unsigned n = 0;

	(void)state;
	box_up(NULL, 0, NULL, 0, 16, 10);
	pair(&k_p256, &k_p384, HIP_CIPHER_NULL_ENCRYPT, false);
	bex(0, 1);
	while (mbox_assoc_next(T, &cursor, &i) == 1)
		n++;
	assert_int_equal(n, 1);
	hh_advance(&W, IDLE_NS - S_NS);
	flow(1, S[1].in.spi)->last_seen_ns = W.now;           /* ESP to B */
	hh_advance(&W, 2 * S_NS);
	mbox_tick(T, W.now);
	assert_true(has_assoc(0, 1));
	hh_advance(&W, IDLE_NS);
	mbox_tick(T, W.now);
	assert_false(has_assoc(0, 1));
	assert_int_equal(F.n, 0);
	assert_int_equal(st().aged, 1);
	assert_int_equal(st().assocs, 0);
	/* a BEX whose R2 never verifies is forgotten after MBOX_BEX_NS, or
	 * idle_ns when that is shorter (here) */
	hip_host_forget(S[0].h, &S[1], W.now);
	attack = flip_sig;
	a_type = HIP_R2;
	a_left = 1000;
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	hh_deliver_all(&W);
	assert_int_equal(info(0, 1).state, MBOX_ST_I2_SEEN);
	assert_true(IDLE_NS < MBOX_BEX_NS);
	hh_advance(&W, IDLE_NS - S_NS);
	mbox_tick(T, W.now);
	assert_true(has_assoc(0, 1));
	hh_advance(&W, 2 * S_NS);
	mbox_tick(T, W.now);
	assert_false(has_assoc(0, 1));
	assert_int_equal(st().bex_expired, 1);
	box_down();
}

static int
setup(void **state)
{
	char *argv[] = { "test_mbox", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_mbox", "-l", "0",
			 "--log-level", "error", NULL };
	char err[128];

	(void)state;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	hh_world_init(&W, NULL, harness_fail);
	hh_key(&W, KEYS_DIR, "ecdsa-p256.pem", &k_p256);
	hh_key(&W, KEYS_DIR, "ecdsa-p384.pem", &k_p384);
	hh_key(&W, KEYS_DIR, "rsa3072.pem", &k_rsa);
	return hip_hi_generate(HIP_HI_ECDSA_P256, &k_gen, err, sizeof(err));
}

static int
teardown(void **state)
{
	(void)state;
	hip_hi_free(&k_p256);
	hip_hi_free(&k_p384);
	hip_hi_free(&k_rsa);
	hip_hi_free(&k_gen);
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bex),
		cmocka_unit_test(test_encrypted_host_id),
		cmocka_unit_test(test_rekey),
		cmocka_unit_test(test_update_forged),
		cmocka_unit_test(test_r2_forged),
		cmocka_unit_test(test_update_old_seq),
		cmocka_unit_test(test_i2_hit_mismatch),
		cmocka_unit_test(test_close_replay),
		cmocka_unit_test(test_close_simultaneous),
		cmocka_unit_test(test_i1_flood),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_flow_refused),
		cmocka_unit_test(test_idle),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
