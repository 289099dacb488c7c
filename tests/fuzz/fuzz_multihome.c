/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the multihoming path set of lib/hip (hip_multihome.h)
 * under any order of events, the answers it is given as hostile as the
 * input likes (a peer's probe answers carry a sequence number and
 * addresses the peer chose).
 *
 * Input: byte 0 the misses (1 + b % 4), byte 1 the hysteresis (b * 10 ms),
 * then operations of 4 bytes: op, a, b, dt. The clock goes forward
 * dt * 10 ms before each. op % 5: 0 tick; 1 answer the probe sent a % 32
 * sends ago (its sequence number + b / 128, from its addresses, or with
 * b & 1 our other locator's); 2 link of port a % 3 down (b & 1) or up;
 * 3 new path set: a % 3 of our locators (ports 0..2, preferences b % 4,
 * b / 4 % 4, b / 16 % 4; locator 2 IPv6), b % 5 peer locators (the last
 * IPv6), the active pair the first of each; 4 answer with sequence number
 * a << 8 | b from the active path's addresses.
 *
 * Checked after every operation: the active index is -1 or below n; after
 * a tick the active path is not down while another is up (failover); every move went to an up path; moves equal
 * failovers + failbacks since the last path set; probes answered and lost
 * never exceed probes sent; no path counts more misses than probes sent.
 * Any mismatch aborts (a finding). Deterministic: the clock is the input's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hip_multihome.h"

#define MS (1000ull * 1000)

struct sent {
	struct hip_mh_path p;
	uint32_t seq;
};

static struct sent sent[32];
static unsigned n_sent;         /* total; ring of 32 */
static uint64_t moves;
static bool bad_move;

static int
f_send(void *ctx, void *user, const struct hip_mh_path *p, uint32_t seq)
{
	(void)ctx;
	(void)user;
	sent[n_sent % 32] = (struct sent){ .p = *p, .seq = seq };
	n_sent++;
	return 0;
}

static void
f_move(void *ctx, void *user, const struct hip_mh_path *p)
{
	(void)ctx;
	(void)user;
	moves++;
	if (p->state != HIP_MH_UP)
		bad_move = true;
}

static struct gw_addr
addr(uint8_t family, uint8_t last)
{
	struct gw_addr a = { .family = family };

	a.addr[0] = family == 4 ? 192 : 0x20;
	a.addr[family == 4 ? 3 : 15] = last;
	return a;
}

static void
check(const struct hip_mh_set *s, bool chosen, uint64_t moves_base, uint64_t moves_st_base)
{
	bool any_up = false;

	if (s->active < -1 || s->active >= (int)s->n || s->n > HIP_MH_PATHS_MAX || bad_move)
		abort();
	for (unsigned x = 0; x < s->n; x++) {
		any_up |= s->path[x].state == HIP_MH_UP;
		if (s->path[x].misses > s->st.probes_tx && s->path[x].misses != UINT8_MAX)
			abort();
	}
	if (chosen && s->active >= 0 && s->path[s->active].state == HIP_MH_DOWN && any_up)
		abort();
	if (s->st.probes_ok + s->st.probes_lost > s->st.probes_tx)
		abort();
	if (moves - moves_base != s->st.failovers + s->st.failbacks - moves_st_base)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct hip_mh_cfg cfg = { .send = f_send, .move = f_move, .interval_ns = 100 * MS };
	static struct hip_mh_set s;
	uint64_t now = 1000 * MS, mb, msb;

	if (n < 2)
		return 0;
	cfg.misses = (uint8_t)(1 + d[0] % 4);
	cfg.hysteresis_ns = d[1] * 10 * MS;
	n_sent = 0;
	moves = 0;
	bad_move = false;
	hip_mh_init(&s, &cfg, NULL);
	mb = msb = 0;
	for (size_t i = 2; i + 4 <= n; i += 4) {
		uint8_t op = d[i] % 5, a = d[i + 1], b = d[i + 2];
		bool chosen = op == 0;   /* a tick always re-chooses */

		now += d[i + 3] * 10 * MS;
		switch (op) {
		case 0:
			hip_mh_tick(&s, now);
			break;
		case 1:
			if (n_sent > 0) {
				const struct sent *x = &sent[(n_sent - 1 - a % 32 % n_sent) % 32];
				struct gw_addr l = (b & 1) ? addr(4, 99) : x->p.local;

				hip_mh_probe_answer(&s, x->seq + b / 128, &l, &x->p.remote, now);
			}
			break;
		case 2:
			hip_mh_link(&s, a % 3, !(b & 1), now);
			break;
		case 3: {
			struct hip_mh_local our[3];
			struct gw_addr peer[4];
			unsigned no = a % 3 + 1, np = b % 5;

			for (unsigned k = 0; k < no; k++) {
				our[k].addr = addr(k == 2 ? 6 : 4, (uint8_t)(1 + k));
				our[k].port = (uint16_t)k;
				our[k].pref = (uint8_t)((b >> (2 * k)) % 4);
			}
			for (unsigned k = 0; k < np && k < 4; k++)
				peer[k] = addr(k == 3 ? 6 : 4, (uint8_t)(100 + k));
			if (hip_mh_set_paths(&s, our, no, peer, np, &our[0].addr, &peer[0]) < 0)
				abort();
			mb = moves;
			msb = s.st.failovers + s.st.failbacks;
			break;
		}
		default: {
			const struct hip_mh_path *p = hip_mh_active(&s);

			if (p != NULL)
				hip_mh_probe_answer(&s, (uint32_t)a << 8 | b, &p->local, &p->remote, now);
			break;
		}
		}
		check(&s, chosen, mb, msb);
	}
	return 0;
}
