/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the ESP anti-replay window (RFC 4303 section 3.4.3, Appendix A).
 * Pure C: no EAL needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "replay.h"

/* A window as an SA holds one: the state, the ESN flag, the bitmap. */
struct tw {
	struct replay_window rw;
	bool esn;
	uint64_t bits[];
};

static struct tw *
mk(uint32_t win, bool esn)
{
	struct tw *rw = malloc(sizeof(*rw) + replay_bits_bytes(win));

	assert_non_null(rw);
	assert_int_equal(replay_init(&rw->rw, rw->bits, win), 0);
	rw->esn = esn;
	return rw;
}

/* check then update, as the data path does for one packet */
static int
accept(struct tw *rw, uint64_t seq)
{
	if (replay_check(&rw->rw, rw->bits, seq) != 0)
		return -1;
	return replay_update(&rw->rw, rw->bits, seq);
}

static void
test_sizes(void **state)
{
	(void)state;
	assert_true(replay_window_valid(0));
	assert_true(replay_window_valid(64));
	assert_true(replay_window_valid(1024));
	assert_true(replay_window_valid(4096));
	assert_false(replay_window_valid(32));
	assert_false(replay_window_valid(1000));
	assert_false(replay_window_valid(4160));
	assert_true(replay_bits_bytes(4096) >= 4096 / 8 + 8);
	assert_int_equal(sizeof(struct replay_window), 16);
	{
		struct tw *rw = mk(4096, false);
		assert_int_equal(replay_init(&rw->rw, rw->bits, 100), -1);
		assert_int_equal(replay_init(&rw->rw, NULL, 64), -1);
		free(rw);
	}
}

static void
test_first_and_duplicate(void **state)
{
	struct tw *rw = mk(1024, false);

	(void)state;
	assert_int_equal(replay_check(&rw->rw, rw->bits, 1), 0);
	assert_int_equal(replay_update(&rw->rw, rw->bits, 1), 0);
	assert_int_equal(replay_top(&rw->rw), 1);
	/* duplicate */
	assert_int_equal(replay_check(&rw->rw, rw->bits, 1), -1);
	assert_int_equal(replay_update(&rw->rw, rw->bits, 1), -1);
	/* a first packet that is not 1 is fine too */
	free(rw);
	rw = mk(1024, false);
	assert_int_equal(accept(rw, 77), 0);
	assert_int_equal(accept(rw, 76), 0);
	assert_int_equal(accept(rw, 77), -1);
	assert_int_equal(accept(rw, 76), -1);
	free(rw);
}

static void
test_seq_zero(void **state)
{
	struct tw *rw = mk(1024, false);
	uint64_t s;

	(void)state;
	assert_int_equal(replay_check(&rw->rw, rw->bits, 0), -1);
	assert_int_equal(replay_update(&rw->rw, rw->bits, 0), -1);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0, &s), -1);
	free(rw);
	/* anti-replay off still refuses 0 */
	rw = mk(0, false);
	assert_int_equal(replay_check(&rw->rw, rw->bits, 0), -1);
	free(rw);
	/* ESN: the very first 32-bit 0 is 64-bit 0 */
	rw = mk(1024, true);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0, &s), -1);
	assert_int_equal(s, 0);
	free(rw);
}

static void
test_window_edges(void **state)
{
	const uint32_t sizes[] = { 64, 1024, 4096 };

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		uint32_t w = sizes[k];
		struct tw *rw = mk(w, false);
		uint64_t top = 100000;

		assert_int_equal(accept(rw, top), 0);
		/* just inside: top - w + 1; just outside: top - w */
		assert_int_equal(replay_check(&rw->rw, rw->bits, top - w + 1), 0);
		assert_int_equal(replay_check(&rw->rw, rw->bits, top - w), -1);
		assert_int_equal(replay_update(&rw->rw, rw->bits, top - w), -1);
		assert_int_equal(accept(rw, top - w + 1), 0);
		assert_int_equal(accept(rw, top - w + 1), -1);
		/* one ahead moves the window: top - w + 1 now falls out */
		assert_int_equal(accept(rw, top + 1), 0);
		assert_int_equal(replay_check(&rw->rw, rw->bits, top - w + 1), -1);
		assert_int_equal(replay_check(&rw->rw, rw->bits, top - w + 2), 0);
		free(rw);
	}
}

static void
test_far_jump(void **state)
{
	struct tw *rw = mk(1024, false);
	uint64_t far = 5000000;

	(void)state;
	for (uint64_t s = 1; s <= 2000; s++)
		assert_int_equal(accept(rw, s), 0);
	assert_int_equal(accept(rw, far), 0);
	assert_int_equal(replay_top(&rw->rw), far);
	/* everything from before the jump is too old now */
	assert_int_equal(replay_check(&rw->rw, rw->bits, 2000), -1);
	/* the new window is empty but for far: no stale bits */
	for (uint64_t s = far - 1023; s < far; s++)
		assert_int_equal(replay_check(&rw->rw, rw->bits, s), 0);
	assert_int_equal(replay_check(&rw->rw, rw->bits, far), -1);
	free(rw);

	/* a jump by exactly the ring size maps onto the same words: they must be clear */
	rw = mk(64, false);
	assert_int_equal(accept(rw, 10), 0);
	assert_int_equal(accept(rw, 10 + 128), 0);
	assert_int_equal(replay_check(&rw->rw, rw->bits, 10 + 128 - 63), 0);
	assert_int_equal(accept(rw, 10 + 256 + 5), 0);
	for (uint64_t s = 10 + 256 + 5 - 63; s < 10 + 256 + 5; s++)
		assert_int_equal(replay_check(&rw->rw, rw->bits, s), 0);
	free(rw);
}

static void
test_off(void **state)
{
	struct tw *rw = mk(0, false);

	(void)state;
	assert_int_equal(accept(rw, 5), 0);
	assert_int_equal(accept(rw, 5), 0);      /* duplicates pass */
	assert_int_equal(accept(rw, 1), 0);
	assert_int_equal(accept(rw, 100000), 0);
	assert_int_equal(accept(rw, 2), 0);
	assert_int_equal(replay_top(&rw->rw), 100000);
	free(rw);
}

static void
test_esn_wrap(void **state)
{
	struct tw *rw = mk(1024, true);
	uint64_t s;

	(void)state;
	/* climb to just below the 2^32 boundary (a fresh window cannot place
	 * 0xfffffff0: it lies in the subspace below 0, Appendix A2.2 case B) */
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0xfffffff0u, &s), -1);
	for (uint64_t lo = 1; lo < 0xf0000002u; lo += 0x10000000u)
		assert_int_equal(replay_update(&rw->rw, rw->bits, replay_infer(&rw->rw, rw->esn, (uint32_t)lo)), 0);
	assert_int_equal(replay_top(&rw->rw), 0xf0000001ull);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0xfffffff0u, &s), 0);
	assert_int_equal(s, 0xfffffff0ull);
	assert_int_equal(replay_update(&rw->rw, rw->bits, s), 0);
	/* small numbers now belong to the next subspace */
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 5, &s), 0);
	assert_int_equal(s, 0x100000005ull);
	assert_int_equal(replay_update(&rw->rw, rw->bits, s), 0);
	/* 32-bit 0 after the wrap is 2^32, a valid number */
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0, &s), 0);
	assert_int_equal(s, 0x100000000ull);
	assert_int_equal(replay_update(&rw->rw, rw->bits, s), 0);
	/* late packets of the old subspace, still inside the window */
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0xfffffff8u, &s), 0);
	assert_int_equal(s, 0xfffffff8ull);
	assert_int_equal(replay_update(&rw->rw, rw->bits, s), 0);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0xfffffff8u, &s), -1);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0xfffffff0u, &s), -1);   /* seen */
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 5, &s), -1);             /* seen */
	/* below the window bottom: Appendix A2.2 places it in the next subspace
	 * (far ahead); only the ICV, computed with that high half, can tell */
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0xfffff000u, &s), 0);
	assert_int_equal(s, 0x1fffff000ull);
	assert_int_equal(replay_top(&rw->rw), 0x100000005ull);
	free(rw);

	/* case A of Appendix A2.2: window inside one subspace, seq below it -> next */
	rw = mk(1024, true);
	assert_int_equal(replay_update(&rw->rw, rw->bits, 0x100001000ull), 0);
	assert_int_equal(replay_infer(&rw->rw, rw->esn, 0x500), 0x200000500ull);
	assert_int_equal(replay_infer(&rw->rw, rw->esn, 0xc01), 0x100000c01ull);   /* window bottom */
	assert_int_equal(replay_infer(&rw->rw, rw->esn, 0xc00), 0x200000c00ull);
	free(rw);

	/* a fresh ESN window refuses numbers of a subspace below 0 */
	rw = mk(1024, true);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 0xffffffffu, &s), -1);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 1, &s), 0);
	assert_int_equal(s, 1);
	free(rw);

	/* without ESN the 32-bit number is the number */
	rw = mk(1024, false);
	assert_int_equal(replay_update(&rw->rw, rw->bits, 0xfffffff0u), 0);
	assert_int_equal(replay_check32(&rw->rw, rw->bits, rw->esn, 5, &s), -1);
	assert_int_equal(s, 5);
	free(rw);
}

/* Compare against a naive model on random traffic. */
static void
test_model(void **state)
{
	const uint32_t w = 128;
	struct tw *rw = mk(w, false);
	uint8_t *seen = calloc(1u << 20, 1);
	uint64_t top = 0;
	uint32_t x = 12345;

	(void)state;
	for (unsigned n = 0; n < 200000; n++) {
		uint64_t s;
		int want, got;

		x = x * 1103515245u + 12345u;
		/* mostly near the top, sometimes a jump ahead */
		if ((x >> 28) == 0)
			s = top + ((x >> 8) & 1023);
		else
			s = top + 8 > ((x >> 8) & 255) ? top + 8 - ((x >> 8) & 255) : 0;
		if (s >= (1u << 20))
			break;
		want = (s != 0 && (s > top || (top - s < w && !seen[s]))) ? 0 : -1;
		got = accept(rw, s);
		assert_int_equal(got, want);
		if (want == 0) {
			seen[s] = 1;
			if (s > top)
				top = s;
		}
	}
	free(seen);
	free(rw);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_first_and_duplicate),
		cmocka_unit_test(test_seq_zero),
		cmocka_unit_test(test_window_edges),
		cmocka_unit_test(test_far_jump),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_esn_wrap),
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
