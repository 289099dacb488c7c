/* SPDX-License-Identifier: BSD-3-Clause
 * ESP anti-replay window, RFC 4303 section 3.4.3 and Appendix A. See replay.h.
 */
#include <string.h>

#include "replay.h"

static uint32_t
words_for(uint32_t win)
{
	/* at least win/64 + 1 words, a power of two (>= 2 so the mask is useful) */
	uint32_t need = win / 64 + 1, w = 2;

	while (w < need)
		w <<= 1;
	return w;
}

bool
replay_window_valid(uint32_t win)
{
	return win <= REPLAY_WINDOW_MAX && win % 64 == 0;
}

size_t
replay_window_bytes(uint32_t win)
{
	if (!replay_window_valid(win))
		win = REPLAY_WINDOW_MAX;
	return sizeof(struct replay_window) + (size_t)words_for(win) * sizeof(uint64_t);
}

int
replay_init(struct replay_window *rw, uint32_t win, bool esn)
{
	uint32_t words;

	if (rw == NULL || !replay_window_valid(win))
		return -1;
	words = words_for(win);
	rw->top = 0;
	rw->win = win;
	rw->mask = words - 1;
	rw->esn = esn;
	memset(rw->bits, 0, (size_t)words * sizeof(uint64_t));
	return 0;
}

uint64_t
replay_infer(const struct replay_window *rw, uint32_t seq_lo)
{
	uint64_t top;
	uint32_t tl, th, hi, w, bottom;

	if (!rw->esn)
		return seq_lo;
	top = rw->top;
	tl = (uint32_t)top;
	th = (uint32_t)(top >> 32);
	/* With anti-replay off the window size does not exist; take the sequence
	 * number nearest to top, i.e. W = 2^31. */
	w = rw->win != 0 ? rw->win : (1u << 31);
	bottom = tl - w + 1;              /* modulo 2^32 */
	if (tl >= w - 1) {
		/* Case A: window within one subspace [bottom, tl] */
		hi = seq_lo >= bottom ? th : th + 1;
		if (seq_lo < bottom && th == UINT32_MAX)
			return 0;                 /* beyond the 64-bit space */
	} else {
		/* Case B: window spans two subspaces */
		if (seq_lo >= bottom) {
			if (th == 0)
				return 0;             /* would be below sequence number 0 */
			hi = th - 1;
		} else {
			hi = th;
		}
	}
	return ((uint64_t)hi << 32) | seq_lo;
}

int
replay_check(const struct replay_window *rw, uint64_t seq)
{
	uint64_t top = rw->top;

	if (seq == 0)
		return -1;                    /* never sent (RFC 4303 3.3.3) */
	if (rw->win == 0 || seq > top)
		return 0;
	if (top - seq >= rw->win)
		return -1;                    /* left of the window */
	return (rw->bits[(seq >> 6) & rw->mask] >> (seq & 63)) & 1 ? -1 : 0;
}

int
replay_update(struct replay_window *rw, uint64_t seq)
{
	uint64_t top = rw->top, *word;
	uint64_t bit;

	if (seq == 0)
		return -1;
	if (rw->win == 0) {
		if (seq > top)
			__atomic_store_n(&rw->top, seq, __ATOMIC_RELAXED);
		return 0;
	}
	if (seq > top) {
		uint64_t ob = top >> 6, nb = seq >> 6, diff = nb - ob;

		if (diff > rw->mask)
			diff = rw->mask + 1;      /* jumped past the whole ring: clear all */
		for (uint64_t k = 1; k <= diff; k++)
			rw->bits[(ob + k) & rw->mask] = 0;
		__atomic_store_n(&rw->top, seq, __ATOMIC_RELAXED);
	} else if (top - seq >= rw->win) {
		return -1;
	}
	word = &rw->bits[(seq >> 6) & rw->mask];
	bit = 1ULL << (seq & 63);
	if (*word & bit)
		return -1;
	*word |= bit;
	return 0;
}
