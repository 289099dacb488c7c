/* SPDX-License-Identifier: BSD-3-Clause
 * Multihoming in the HIP engine (RFC 8047 4.1; hip_host_set_local in
 * lib/hip/hip_mobility.c): two engines on the harness of
 * tests/lib/hip_harness.h, established; side A has two locators (both
 * receive), announces both, then moves the association to the second
 * without a new address: io.path at once, an UPDATE from the new locator
 * with both locators and the P bit on the new one, and the peer's check
 * moves the peer's SA there. Addresses outside our set are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

#define A 0
#define B 1
#define MS (1000ull * 1000)
#define PAST_R2_SENT_HOLD (11000 * MS)

static struct hip_hi k_p256, k_p384;
static struct hh_world W;
static struct hh_side *const S = W.s;

static const struct hh_params P = {
	.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1,
	.esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
	.ciph = { HIP_CIPHER_AES_128_CBC }, .nc = 1,
	.k = 1, .det = true,
};

static void
harness_fail(const char *msg)
{
	fail_msg("%s", msg);
}

static bool
addr_is(const struct gw_addr *x, const struct gw_addr *y)
{
	return memcmp(x, y, sizeof(*x)) == 0;
}

static struct hip_locator_set
locset_of(const struct hh_pkt *p)
{
	struct hip_tlv t;
	struct hip_locator_set ls;

	assert_int_equal(hip_param_find(p->b, p->len, HIP_PARAM_LOCATOR_SET, &t), 1);
	assert_int_equal(hip_locator_set_parse(&t, &ls), 0);
	return ls;
}

static void
test_set_local(void **state)
{
	struct gw_addr a1, a2, other, locs[2];
	struct hip_locator_set ls;
	struct hip_peer_info pb;
	unsigned paths;

	(void)state;
	hh_world_init(&W, NULL, harness_fail);
	hh_key(&W, KEYS_DIR, "ecdsa-p256.pem", &k_p256);
	hh_key(&W, KEYS_DIR, "ecdsa-p384.pem", &k_p384);
	hh_pair_up(&W, &k_p256, &k_p384, &P);
	assert_int_equal(hip_host_connect(S[B].h, &S[A], W.now), 0);
	hh_run(&W, 100);
	hh_advance(&W, PAST_R2_SENT_HOLD);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	W.qn = 0;
	a1 = S[A].addr;
	hh_addr(&a2, false, A + 16);
	hh_addr(&other, false, A + 32);
	locs[0] = a1;
	locs[1] = a2;
	/* both announced, a1 still in use: the peer has nothing to check */
	assert_int_equal(hip_host_set_locators(S[A].h, locs, 2, 0, false, W.now), 1);
	ls = locset_of(&W.q[0]);
	assert_int_equal(ls.n, 2);
	assert_true(ls.loc[0].preferred);
	assert_false(ls.loc[1].preferred);
	hh_run(&W, 100);
	pb = hh_peer(&W, B, A);
	assert_int_equal(pb.n_peer_locators, 2);
	assert_true(addr_is(&pb.remote, &a1));
	/* the move to a2 (the harness: A sends from a2, receives on both) */
	hh_move(&W, A, &a2, true);
	paths = S[A].path_n;
	W.qn = 0;
	assert_int_equal(hip_host_set_local(S[A].h, &S[B], &a2, W.now), 1);
	assert_int_equal(S[A].path_n, paths + 1);
	assert_true(addr_is(&S[A].path_local, &a2));
	assert_int_equal(hh_ptype(&W.q[0]), HIP_UPDATE);
	assert_true(addr_is(&W.q[0].src, &a2));
	ls = locset_of(&W.q[0]);
	assert_int_equal(ls.n, 2);
	assert_false(ls.loc[0].preferred);
	assert_true(ls.loc[1].preferred);
	hh_run(&W, 200);
	pb = hh_peer(&W, B, A);
	assert_true(addr_is(&pb.remote, &a2));
	assert_true(addr_is(&S[B].path_remote, &a2));
	assert_int_equal(hh_stats(&W, B).rr_ok, 1);
	/* refused: not one of our locators, an unknown peer; nothing changed */
	assert_int_equal(hip_host_set_local(S[A].h, &S[B], &other, W.now), -1);
	assert_int_equal(hip_host_set_local(S[A].h, &W, &a1, W.now), -1);
	assert_int_equal(S[A].path_n, paths + 1);
	hh_down(&W);
	hip_hi_free(&k_p256);
	hip_hi_free(&k_p384);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_local),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
