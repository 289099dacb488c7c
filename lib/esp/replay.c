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
replay_bits_bytes(uint32_t win)
{
	if (!replay_window_valid(win))
		win = REPLAY_WINDOW_MAX;
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
