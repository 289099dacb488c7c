/* SPDX-License-Identifier: BSD-3-Clause
 * ESP anti-replay window (RFC 4303 section 3.4.3 and Appendix A): a bitmap of
 * the last W sequence numbers below the highest authenticated one, ESN-ready
 * (64-bit counters, high half inferred per Appendix A2.2).
 *
 * Pure C, no DPDK: usable standalone. The window is not thread-safe: one writer
 * (the lcore that owns the inbound SA) at a time; top is stored with relaxed
 * atomics so another thread may read it for statistics.
 *
 * The bitmap is a ring of 64-bit words (a power of two, at least W/64 + 1 of
 * them, so that advancing the window only zeroes whole words and no sequence
 * number inside the window shares a word with one outside it). It is kept
 * apart from the 16-byte window state, which an SA keeps on its first cache
 * line (with the window off, a packet reads no other line of it).
 *
 * The per-packet functions are inline (the data path calls them for every
 * packet); init and sizing live in replay.c.
 *
 * Usage per packet: seq = replay_infer(w, esn, wire_seq); replay_check(w, bits,
 * seq) before the ICV is verified; replay_update(w, bits, seq) only after it
 * verified. update checks again, so a duplicate inside one burst (both
 * checked before either updated) is still caught there.
 */
#ifndef HIPGW_REPLAY_H
#define HIPGW_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_limits.h"   /* GW_REPLAY_WINDOW_MAX_PACKETS, _STEP_PACKETS */

/* The window's state; its bitmap `bits` (replay_bits_bytes) lies elsewhere:
 * bit (s & 63) of word (s >> 6) & mask set = sequence number s seen. */
struct replay_window {
	uint64_t top;      /* highest sequence number authenticated so far (64 bits with ESN); 0 = none */
	uint32_t win;      /* W in packets: 0 = anti-replay off, else a multiple of
	                    * GW_REPLAY_WINDOW_STEP_PACKETS, <= GW_REPLAY_WINDOW_MAX_PACKETS */
	uint32_t mask;     /* words in the bitmap - 1 */
};

/* Bytes to allocate for the bitmap of a window of `win` packets (8-byte aligned). */
size_t replay_bits_bytes(uint32_t win);

/* True when `win` is acceptable: 0, or a multiple of GW_REPLAY_WINDOW_STEP_PACKETS
 * up to GW_REPLAY_WINDOW_MAX_PACKETS. */
bool replay_window_valid(uint32_t win);

/* Initialise a window and zero its bitmap of replay_bits_bytes(win) bytes.
 * Returns 0, or -1 when win is not valid. */
int replay_init(struct replay_window *rw, uint64_t *bits, uint32_t win);

/* The 64-bit sequence number of a packet carrying `seq_lo` in its ESP header,
 * against a window of `win` packets whose highest authenticated number is
 * `top`: seq_lo itself without ESN; with ESN the high half inferred (RFC 4303
 * Appendix A2.2; with the window off, win 0, as if W were 2^31). Returns 0
 * (always a replay) for a sequence number below the first subspace or beyond
 * the 64-bit space. As top grows the result never decreases (until it turns
 * to 0 past the end of the space): the inbound burst relies on it. */
static inline uint64_t
replay_infer_at(uint64_t top, uint32_t win, bool esn, uint32_t seq_lo)
{
	uint32_t tl, th, hi, w, bottom;

	if (!esn)
		return seq_lo;
	tl = (uint32_t)top;
	th = (uint32_t)(top >> 32);
	/* With anti-replay off the window size does not exist; take the sequence
	 * number nearest to top, i.e. W = 2^31. */
	w = win != 0 ? win : (1u << 31);
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

/* replay_infer_at against the window's present top. */
static inline uint64_t
replay_infer(const struct replay_window *rw, bool esn, uint32_t seq_lo)
{
	return replay_infer_at(rw->top, rw->win, esn, seq_lo);
}

/* 0 if `seq` may be new (inside or ahead of the window and not seen), -1 for a
 * replay: sequence number 0, too old (at or below top - W), or already seen.
 * With the window off only 0 is refused. Does not modify the window. */
static inline int
replay_check(const struct replay_window *rw, const uint64_t *bits, uint64_t seq)
{
	uint64_t top = rw->top;

	if (seq == 0)
		return -1;                    /* never sent (RFC 4303 3.3.3) */
	if (rw->win == 0 || seq > top)
		return 0;
	if (top - seq >= rw->win)
		return -1;                    /* left of the window */
	return (bits[(seq >> 6) & rw->mask] >> (seq & 63)) & 1 ? -1 : 0;
}

/* Record `seq` (after its ICV verified): advance the window when it is ahead.
 * Returns -1 when it is a replay after all (checked again), else 0. */
static inline int
replay_update(struct replay_window *rw, uint64_t *bits, uint64_t seq)
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
			bits[(ob + k) & rw->mask] = 0;
		__atomic_store_n(&rw->top, seq, __ATOMIC_RELAXED);
	} else if (top - seq >= rw->win) {
		return -1;
	}
	word = &bits[(seq >> 6) & rw->mask];
	bit = 1ULL << (seq & 63);
	if (*word & bit)
		return -1;
	*word |= bit;
	return 0;
}

/* Convenience for 32-bit callers: infer, then check. *seq64 gets the number. */
static inline int
replay_check32(const struct replay_window *rw, const uint64_t *bits, bool esn, uint32_t seq_lo,
	       uint64_t *seq64)
{
	*seq64 = replay_infer(rw, esn, seq_lo);
	return replay_check(rw, bits, *seq64);
}

/* Highest authenticated sequence number (relaxed read, any thread). */
static inline uint64_t
replay_top(const struct replay_window *rw)
{
	return __atomic_load_n(&rw->top, __ATOMIC_RELAXED);
}

#endif
