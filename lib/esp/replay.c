/* SPDX-License-Identifier: BSD-3-Clause
 * ESP anti-replay window, RFC 4303 section 3.4.3 and Appendix A. See replay.h.
 */
#include <string.h>

#include "replay.h"

_Static_assert(GW_REPLAY_WINDOW_STEP_PACKETS == 64,
	       "a window is whole 64-bit words of its bitmap (words_for)");

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
	return win <= GW_REPLAY_WINDOW_MAX_PACKETS && win % GW_REPLAY_WINDOW_STEP_PACKETS == 0;
}

size_t
replay_bits_bytes(uint32_t win)
{
	if (!replay_window_valid(win))
		win = GW_REPLAY_WINDOW_MAX_PACKETS;
	return (size_t)words_for(win) * sizeof(uint64_t);
}

int
replay_init(struct replay_window *rw, uint64_t *bits, uint32_t win)
{
	uint32_t words;

	if (rw == NULL || bits == NULL || !replay_window_valid(win))
		return -1;
	words = words_for(win);
	rw->top = 0;
	rw->win = win;
	rw->mask = words - 1;
	memset(bits, 0, (size_t)words * sizeof(uint64_t));
	return 0;
}
