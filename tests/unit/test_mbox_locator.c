/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the middlebox's tracker (lib/mbox) following a moved host
 * (RFC 8046: LOCATOR_SET in UPDATE): two HIP engines run a Base Exchange
 * through the tracker (tests/lib/hip_harness.h, the flow table a test double,
 * tests/lib/mbox_flow_double.h); then an UPDATE with LOCATOR_SET, ESP_INFO
 * (OLD SPI = NEW SPI: no rekey) and SEQ, signed with the moved host's key,
 * built here from the RFC's layout (RFC 8046 section 4, RFC 7401 5.3.5), goes
 * to the tracker from the new locator. The box needs no HIP_MAC (it has no
 * keys), so this packet is not for an engine.
 *
 * ESP to the moved host is then the flow (new locator, its SPI); the former
 * flow passes for the grace period, longer while ESP uses it. Locators the
 * box must not bind (signalling only, multicast, loopback, unknown types) bind
 * nothing; a LOCATOR_SET that does not parse, a bad signature or an old SEQ
 * changes nothing and is counted; the state file keeps both bindings. And
 * our own engine's move (lib/hip, hip_host_set_locators) through the box.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rte_eal.h>

#include "hip_coverage.h"
#include "hip_harness.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hip_sig.h"
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

static struct hip_hi k_p256, k_p384;
static struct hh_world W;
static struct hh_side *const S = W.s;
static struct gw_mbox_flows F;
static struct mbox_tracker *T;
static char state_path[64];

static const struct mbox_rule ALLOW_ALL = { .name = "all", .any_initiator = 1, .any_responder = 1,
					    .action = MBOX_ALLOW };

static int
through_box(struct hh_pkt *p)
{
	unsigned why = 0;

	return mbox_hip_input(T, &p->src, &p->dst, p->b, p->len, W.now, &why) == MBOX_DROP;
}

static void
harness_fail(const char *msg)
{
	fail_msg("%s", msg);
}

static struct mbox_tracker *
tracker(void)
{
	struct mbox_params p = {
		.max_assocs = 16, .idle_ns = 300 * S_NS, .rekey_grace_ns = GRACE_NS, .i1_rate = 10,
		.rules = &ALLOW_ALL, .n_rules = 1, .flows = &F, .state_path = state_path,
	};
	char err[256] = "";
	struct mbox_tracker *t = mbox_create(&p, err, sizeof(err));

	if (t == NULL)
		fail_msg("mbox_create: %s", err);
	return t;
}

/* the box, sides 0 (initiator) and 1 established through it */
static void
up(bool v6)
{
	struct hh_params p = {
		.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1, .esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
		.ciph = { HIP_CIPHER_NULL_ENCRYPT }, .nc = 1, .k = 2, .v6 = v6,
	};

	unlink(state_path);
	fd_reset(&F);
	T = tracker();
	hh_pair_up(&W, &k_p256, &k_p384, &p);
	W.filter = through_box;
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	for (int i = 0; i < 30; i++) {
		hh_deliver_all(&W);
		mbox_tick(T, W.now);
		hh_advance(&W, 10 * MS);
	}
	assert_int_equal(hh_state(&W, 0, 1), HIP_STATE_ESTABLISHED);
	assert_int_equal(F.n, 2);
}

static void
down(void)
{
	mbox_free(T);
	T = NULL;
	hh_down(&W);
	unlink(state_path);
}

static struct mbox_stats
st(void)
{
	struct mbox_stats s;

	mbox_stats(T, &s);
	return s;
}

static struct mbox_assoc_info
info(void)
{
	struct mbox_assoc_info i;

	assert_int_equal(mbox_assoc_find(T, S[0].hi->hit, S[1].hi->hit, &i), 0);
	return i;
}

/* ESP to the initiator (side 0) goes to a */
static void
assert_loc_i(const struct gw_addr *a)
{
	struct mbox_assoc_info i = info();

	assert_true(fd_same(&i.loc_i, a));
}

/* an address of side 0's family: IPv4 10.77.0.n or IPv6 2001:db8:77::n */
static struct gw_addr
addr(unsigned n)
{
	struct gw_addr a = { .family = S[0].addr.family };

	if (a.family == 4) {
		a.addr[0] = 10, a.addr[1] = 77, a.addr[3] = (uint8_t)n;
	} else {
		a.addr[0] = 0x20, a.addr[1] = 0x01, a.addr[2] = 0x0d, a.addr[3] = 0xb8;
		a.addr[5] = 0x77, a.addr[15] = (uint8_t)n;
	}
	return a;
}

/* One locator of a LOCATOR_SET (RFC 8046 section 4). */
struct loc {
	uint8_t traffic, type;
	bool preferred;
	uint32_t spi;             /* type 1 */
	struct gw_addr a;         /* as IPv6, IPv4 as IPv4-mapped */
};

/* Locator bytes (type 0: 16; type 1: SPI and 16; other types: 16 of the
 * address) into buf; their length. */
static uint16_t
loc_bytes(const struct loc *l, uint8_t *buf)
{
	uint8_t *p = buf;

	if (l->type == HIP_LOCATOR_TYPE_ESP_SPI_IPV6) {
		hip_put32(p, l->spi);
		p += 4;
	}
	memset(p, 0, 16);
	if (l->a.family == 4) {
		p[10] = p[11] = 0xff;
		memcpy(p + 12, l->a.addr, 4);
	} else {
		memcpy(p, l->a.addr, 16);
	}
	return (uint16_t)(p + 16 - buf);
}

/* An UPDATE from side x to side 1 - x: ESP_INFO (x's SPI, no rekey),
 * LOCATOR_SET (n locators; raw: these bytes as its contents instead), SEQ
 * update_id, HIP_SIGNATURE with signer's key; checksummed for src -> x's
 * peer. */
static void
loc_update(struct hh_pkt *p, int x, const struct hip_hi *signer, uint32_t update_id,
	   const struct loc *ls, unsigned n, const uint8_t *raw, size_t raw_len,
	   const struct gw_addr *src)
{
	uint8_t bytes[HIP_LOCATORS_MAX][20], cov[HIP_COVERAGE_MAX], sig[HIP_SIG_MAX];
	struct hip_locator_set set = { .n = n };
	struct hip_esp_info ei = { .old_spi = S[x].in.spi, .new_spi = S[x].in.spi };
	struct hip_seq sq = { .update_id = update_id };
	struct hip_builder b;
	size_t sl = 0;
	int len;

	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < n; i++) {
		set.loc[i].traffic_type = ls[i].traffic;
		set.loc[i].locator_type = ls[i].type;
		set.loc[i].preferred = ls[i].preferred;
		set.loc[i].lifetime = 600;
		set.loc[i].locator = bytes[i];
		set.loc[i].locator_len = loc_bytes(&ls[i], bytes[i]);
	}
	assert_int_equal(hip_build_init(&b, p->b, sizeof(p->b), HIP_UPDATE, S[x].hi->hit,
					S[1 - x].hi->hit), 0);
	hip_esp_info_put(&b, &ei);
	if (raw != NULL)
		hip_build_param(&b, HIP_PARAM_LOCATOR_SET, raw, raw_len);
	else
		hip_locator_set_put(&b, &set);
	hip_seq_put(&b, &sq);
	len = hip_build_finish(&b);
	assert_true(len > 0);
	assert_int_equal(hip_coverage_sig(p->b, (size_t)len, HIP_PARAM_HIP_SIGNATURE, 0, cov,
					  sizeof(cov)), len);
	assert_int_equal(hip_sig_sign(signer, cov, (size_t)len, sig, sizeof(sig), &sl), 0);
	hip_signature_put(&b, &(struct hip_signature){ .type = HIP_PARAM_HIP_SIGNATURE,
						       .algorithm = signer->algo, .sig = sig,
						       .len = sl });
	len = hip_build_finish(&b);
	assert_true(len > 0);
	p->len = (size_t)len;
	p->src = *src;
	p->dst = S[1 - x].addr;
	p->from = x;
	p->to = 1 - x;
	assert_int_equal(hh_fix_cksum(p), 0);
}

/* Give p to the box; its verdict, and the reason in *why. */
static int
box(struct hh_pkt *p, unsigned *why)
{
	*why = 0;
	return mbox_hip_input(T, &p->src, &p->dst, p->b, p->len, W.now, why);
}

static struct fd_flow *
flow(const struct gw_addr *dst, uint32_t spi)
{
	return fd_find(&F, dst, spi);
}

/* A move of side 0 to a new locator, IPv4 and IPv6, by a type 1 and by a
 * type 0 locator: the flow (new, SPI) belongs to the association, the
 * association's locator is the new one, the former flow passes for the
 * grace period and longer while ESP uses it; side 1's flow stays. */
static void
test_move(void **state)
{
	(void)state;
	for (int v6 = 0; v6 < 2; v6++)
		for (uint8_t type = 0; type < 2; type++) {
			struct gw_addr old, to;
			struct hh_pkt u;
			unsigned why;
			uint32_t spi;

			up(v6);
			old = S[0].addr;
			to = addr(5);
			spi = S[0].in.spi;
			struct loc l = { .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = type,
					 .preferred = true, .spi = spi, .a = to };
			loc_update(&u, 0, &k_p256, 1, &l, 1, NULL, 0, &to);
			assert_int_equal(box(&u, &why), MBOX_FORWARD);
			assert_int_equal(st().moves, 1);
			assert_non_null(flow(&to, spi));
			assert_int_equal(flow(&to, spi)->assoc, info().id);
			assert_loc_i(&to);
			assert_non_null(flow(&old, spi));            /* in flight: passes */
			assert_non_null(flow(&S[1].addr, S[1].in.spi));
			assert_int_equal(info().flows, 3);
			/* the old flow still used: kept past the grace period */
			hh_advance(&W, GRACE_NS - S_NS / 2);
			flow(&old, spi)->last_seen_ns = W.now;
			hh_advance(&W, S_NS);
			mbox_tick(T, W.now);
			assert_non_null(flow(&old, spi));
			/* unused for the grace period: gone */
			hh_advance(&W, GRACE_NS + S_NS);
			mbox_tick(T, W.now);
			assert_null(flow(&old, spi));
			assert_non_null(flow(&to, spi));
			assert_non_null(flow(&S[1].addr, S[1].in.spi));
			assert_int_equal(F.n, 2);
			/* retransmitted: nothing changes */
			assert_int_equal(box(&u, &why), MBOX_FORWARD);
			assert_int_equal(st().moves, 1);
			assert_int_equal(F.n, 2);
			down();
		}
}

/* Our own engine moves (hip_host_set_locators: UPDATE with LOCATOR_SET,
 * then the peer's return-routability check) with every packet through the
 * box: the box binds the moved side's SPI to its new locator, the engines
 * end with the path moved, nothing dropped. */
static void
test_engine_move(void **state)
{
	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct gw_addr to;
		uint32_t spi;

		up(v6);
		to = addr(5);
		spi = S[0].in.spi;
		hh_move(&W, 0, &to, true);
		assert_true(hip_host_set_locators(S[0].h, &to, 1, 0, false, W.now) >= 1);
		for (int i = 0; i < 100; i++) {
			hh_deliver_all(&W);
			mbox_tick(T, W.now);
			hh_advance(&W, 10 * MS);
		}
		assert_int_equal(hh_stats(&W, 1).rr_ok, 1);
		assert_int_equal(st().dropped, 0);
		assert_int_equal(st().moves, 1);
		assert_non_null(flow(&to, spi));
		assert_loc_i(&to);
		down();
	}
}

/* Moved and back within the grace period: the former binding is taken
 * again with its flow, never a second flow for one (locator, SPI). */
static void
test_move_back(void **state)
{
	struct gw_addr home, away;
	struct hh_pkt u;
	unsigned why;

	(void)state;
	up(false);
	home = S[0].addr;
	away = addr(5);
	struct loc l = { .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .preferred = true, .a = away };
	loc_update(&u, 0, &k_p256, 1, &l, 1, NULL, 0, &away);
	assert_int_equal(box(&u, &why), MBOX_FORWARD);
	l.a = home;
	loc_update(&u, 0, &k_p256, 2, &l, 1, NULL, 0, &home);
	assert_int_equal(box(&u, &why), MBOX_FORWARD);
	assert_int_equal(st().moves, 2);
	assert_loc_i(&home);
	assert_int_equal(F.n, 3);
	assert_int_equal(info().flows, F.n);
	hh_advance(&W, GRACE_NS + S_NS);
	mbox_tick(T, W.now);
	assert_null(flow(&away, S[0].in.spi));
	assert_non_null(flow(&home, S[0].in.spi));
	assert_int_equal(info().flows, 2);
	assert_int_equal(F.n, 2);
	down();
}

/* Of several locators the first preferred one for ESP; a type 1 locator
 * serves only its own SPI. */
static void
test_preferred(void **state)
{
	struct gw_addr to2 = { 0 }, to3 = { 0 };
	struct hh_pkt u;
	unsigned why;

	(void)state;
	up(false);
	to2 = addr(2);
	to3 = addr(3);
	struct loc ls[] = {
		{ .traffic = HIP_LOCATOR_TRAFFIC_DATA, .type = 1, .spi = S[0].in.spi ^ 1, .a = addr(9),
		  .preferred = true },                      /* another SPI's */
		{ .traffic = HIP_LOCATOR_TRAFFIC_SIGNALING, .type = 0, .a = addr(8), .preferred = true },
		{ .traffic = HIP_LOCATOR_TRAFFIC_DATA, .type = 0, .a = to2 },
		{ .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .a = to3, .preferred = true },
	};
	loc_update(&u, 0, &k_p256, 7, ls, 4, NULL, 0, &to2);
	assert_int_equal(box(&u, &why), MBOX_FORWARD);
	assert_int_equal(st().moves, 1);
	assert_non_null(flow(&to3, S[0].in.spi));
	assert_null(flow(&to2, S[0].in.spi));
	assert_loc_i(&to3);
	/* no preferred one: the first for ESP */
	ls[3].preferred = false;
	loc_update(&u, 0, &k_p256, 8, ls, 4, NULL, 0, &to2);
	assert_int_equal(box(&u, &why), MBOX_FORWARD);
	assert_non_null(flow(&to2, S[0].in.spi));
	assert_loc_i(&to2);
	down();
}

/* Locators the box binds nothing to: signalling only, an unknown type,
 * multicast, loopback, unspecified and broadcast IPv4 (as IPv4-mapped): the
 * UPDATE passes, nothing moves. */
static void
test_unusable(void **state)
{
	struct gw_addr mc = { .family = 4, .addr = { 224, 0, 0, 1 } };
	struct gw_addr lo = { .family = 4, .addr = { 127, 0, 0, 1 } };
	struct gw_addr any = { .family = 4 };
	struct gw_addr bc = { .family = 4, .addr = { 255, 255, 255, 255 } };
	struct gw_addr mc6 = { .family = 6, .addr = { 0xff, 0x02, [15] = 1 } };
	struct hh_pkt u;
	unsigned why;

	(void)state;
	up(false);
	struct loc ls[] = {
		{ .traffic = HIP_LOCATOR_TRAFFIC_SIGNALING, .type = 0, .a = addr(4), .preferred = true },
		{ .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 7, .a = addr(5), .preferred = true },
		{ .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .a = mc },
		{ .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .a = lo },
		{ .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .a = any },
		{ .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .a = bc },
		{ .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .a = mc6 },
	};
	loc_update(&u, 0, &k_p256, 3, ls, 7, NULL, 0, &S[0].addr);
	assert_int_equal(box(&u, &why), MBOX_FORWARD);
	assert_int_equal(st().moves, 0);
	assert_int_equal(F.n, 2);
	assert_loc_i(&S[0].addr);
	down();
}

/* Each refused, counted by its reason, nothing moved: a LOCATOR_SET whose
 * locator overruns it, one with a short header, an UPDATE signed with the
 * peer's key, one with a flipped signature byte, an old SEQ. */
static void
test_refused(void **state)
{
	struct gw_addr to = { 0 };
	struct hh_pkt u;
	unsigned why;

	(void)state;
	up(false);
	to = addr(6);
	/* a type 0 locator whose Locator Length (5 units) overruns the parameter */
	uint8_t overrun[8 + 16] = { HIP_LOCATOR_TRAFFIC_BOTH, 0, 5, 1 };
	uint8_t shorthdr[4] = { 0, 0, 4, 1 };
	struct loc l = { .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 0, .preferred = true, .a = to };

	loc_update(&u, 0, &k_p256, 1, NULL, 0, overrun, sizeof(overrun), &to);
	assert_int_equal(box(&u, &why), MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_LOCATOR);
	loc_update(&u, 0, &k_p256, 1, NULL, 0, shorthdr, sizeof(shorthdr), &to);
	assert_int_equal(box(&u, &why), MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_LOCATOR);
	assert_int_equal(st().drops[MBOX_DROP_LOCATOR], 2);

	loc_update(&u, 0, &k_p384, 1, &l, 1, NULL, 0, &to);   /* side 1's key */
	assert_int_equal(box(&u, &why), MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_SIG);
	loc_update(&u, 0, &k_p256, 1, &l, 1, NULL, 0, &to);
	u.b[hh_find_param(u.b, u.len, HIP_PARAM_HIP_SIGNATURE) + 4 + 2 + 10] ^= 1;
	assert_int_equal(hh_fix_cksum(&u), 0);
	assert_int_equal(box(&u, &why), MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_SIG);
	assert_int_equal(st().moves, 0);
	assert_int_equal(F.n, 2);

	/* SEQ 5 moves; a later UPDATE with SEQ 4 (to another locator) does not */
	loc_update(&u, 0, &k_p256, 5, &l, 1, NULL, 0, &to);
	assert_int_equal(box(&u, &why), MBOX_FORWARD);
	l.a = addr(7);
	loc_update(&u, 0, &k_p256, 4, &l, 1, NULL, 0, &l.a);
	assert_int_equal(box(&u, &why), MBOX_DROP);
	assert_int_equal(why, MBOX_DROP_SEQ);
	assert_null(flow(&l.a, S[0].in.spi));
	assert_loc_i(&to);
	assert_int_equal(st().moves, 1);
	down();
}

/* The state file keeps the moved SPI at both locators (the former one in
 * its grace period): a restarted box has both flows. */
static void
test_state_file(void **state)
{
	struct gw_addr old, to;
	struct hh_pkt u;
	unsigned why;
	char err[256] = "";
	uint32_t spi;

	(void)state;
	up(true);
	old = S[0].addr;
	to = addr(9);
	spi = S[0].in.spi;
	struct loc l = { .traffic = HIP_LOCATOR_TRAFFIC_BOTH, .type = 1, .preferred = true,
			 .spi = spi, .a = to };
	loc_update(&u, 0, &k_p256, 2, &l, 1, NULL, 0, &to);
	assert_int_equal(box(&u, &why), MBOX_FORWARD);
	assert_int_equal(mbox_state_flush(T, err, sizeof(err)), 0);
	mbox_free(T);
	fd_reset(&F);
	T = tracker();
	assert_int_equal(st().loaded, 1);
	assert_non_null(flow(&to, spi));
	assert_non_null(flow(&old, spi));
	assert_non_null(flow(&S[1].addr, S[1].in.spi));
	assert_loc_i(&to);
	down();
}

static int
setup(void **state)
{
	char *argv[] = { "test_mbox_locator", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_mbox_locator", "-l", "0",
			 "--log-level", "error", NULL };

	(void)state;
	snprintf(state_path, sizeof(state_path), "/tmp/test_mbox_locator.%d.state", (int)getpid());
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	hh_world_init(&W, NULL, harness_fail);
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
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_move_back),
		cmocka_unit_test(test_engine_move),
		cmocka_unit_test(test_preferred),
		cmocka_unit_test(test_unusable),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_state_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
