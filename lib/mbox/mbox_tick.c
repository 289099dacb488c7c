/* SPDX-License-Identifier: BSD-3-Clause
 * The tracker's timers (mbox_tick), each call looking at MBOX_TICK_VISITS
 * associations in turn (a walk over the table takes max_assocs /
 * MBOX_TICK_VISITS calls, so a deadline is kept that much late at most):
 *
 *   R1_SEEN, I2_SEEN   forgotten after MBOX_BEX_NS (or idle_ns, if shorter)
 *                      without a verified packet (bex_expired)
 *   ESTABLISHED,       ended after idle_ns without a verified HIP packet
 *   REKEYING, CLOSING  and without ESP on any of its flows (the flows'
 *                      last_seen_ns, gw_mbox_flow_stats) (aged); OLD SPIs
 *                      at the end of their grace; a rekey not complete
 *                      after MBOX_REKEY_NS
 *   ENDED              removed MBOX_ENDED_HOLD_NS after its CLOSE_ACK
 *
 * then the I1 buckets that filled up again, and the state file, written when
 * the state changed and MBOX_STATE_GAP_NS passed since the last write.
 * Associations loaded from the state file have no times yet: their first
 * visit starts them.
 */
#include <stdio.h>

#include "mbox_internal.h"

static uint64_t
since(uint64_t now, uint64_t t)
{
	return now > t ? now - t : 0;
}

static void
visit(struct mbox_tracker *t, struct mbox_assoc *a, uint64_t now)
{
	uint64_t bex = t->p.idle_ns < MBOX_BEX_NS ? t->p.idle_ns : MBOX_BEX_NS;
	uint64_t last, seen;

	if (a->last_ns == 0) {
		a->last_ns = now;
		a->since_ns = now;
		a->rekey_since_ns = now;
	}
	switch (a->state) {
	case MBOX_ST_NONE:
	case MBOX_ST_R1_SEEN:
	case MBOX_ST_I2_SEEN:
		if (since(now, a->last_ns) >= bex) {
			t->st.bex_expired++;
			mbox_assoc_del(t, a);
		}
		return;
	case MBOX_ST_ENDED:
		if (since(now, a->since_ns) >= MBOX_ENDED_HOLD_NS)
			mbox_assoc_del(t, a);
		return;
	default:
		break;
	}
	mbox_spi_expire(t, a, now);
	mbox_update_timeout(t, a, now);
	last = a->last_ns;
	seen = mbox_spi_last_seen(t, a);
	last = seen > last ? seen : last;
	if (since(now, last) >= t->p.idle_ns) {
		t->st.aged++;
		mbox_assoc_del(t, a);
	}
}

void
mbox_tick(struct mbox_tracker *t, uint64_t now_ns)
{
	uint32_t n = t == NULL ? 0 : t->p.max_assocs;
	char err[256];

	if (t == NULL)
		return;
	for (uint32_t v = 0; v < MBOX_TICK_VISITS && v < n && t->n_assocs > 0; v++) {
		struct mbox_assoc *a = t->slot[t->visit];

		t->visit = (t->visit + 1) % n;
		if (a != NULL)
			visit(t, a, now_ns);
	}
	mbox_rate_age(t, now_ns, MBOX_TICK_VISITS);
	if (t->state_path == NULL || !t->dirty ||
	    (t->written && since(now_ns, t->written_ns) < MBOX_STATE_GAP_NS))
		return;
	t->written = true;
	t->written_ns = now_ns;
	if (mbox_state_write(t, err, sizeof(err)) == 0) {
		t->dirty = false;
		t->st.state_writes++;
	} else {
		t->st.state_write_errors++;
	}
}
