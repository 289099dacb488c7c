/* SPDX-License-Identifier: BSD-3-Clause
 * The tracker's state machine: what a verified-or-not HIP packet of each type
 * does to an association in each state, one cell per pair, as RFC 7401's
 * host state machine (section 4.4.3) seen from the wire between the two
 * hosts. A cell's handler checks its packet (HI, signature, parameters) and
 * changes nothing unless everything holds; drop_state drops a packet that
 * has no business in that state. docs/middlebox.md has the same table.
 */
#include "mbox_internal.h"

typedef int (*mbox_cell_fn)(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);

enum col { C_I1, C_R1, C_I2, C_R2, C_UPDATE, C_NOTIFY, C_CLOSE, C_CLOSE_ACK, C_N };

static int
drop_state(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	(void)t;
	(void)a;
	(void)p;
	return MBOX_DROP_STATE;
}

#define I1     mbox_bex_i1
#define R1     mbox_bex_r1
#define I2     mbox_bex_i2
#define R2     mbox_bex_r2
#define UPD    mbox_update_in
#define NTF    mbox_bex_notify
#define CLS    mbox_close_in
#define ACK    mbox_close_ack_in
#define DROP   drop_state

static const mbox_cell_fn cells[MBOX_STATES][C_N] = {
	/*                  I1  R1  I2    R2    UPDATE NOTIFY CLOSE CLOSE_ACK */
	/* 6.6, 6.7: I1 makes no state; a verified R1 makes the association */
	[MBOX_ST_NONE]        = { I1, R1, DROP, DROP, DROP, NTF, DROP, DROP },
	/* 6.8: the initiator answers R1 with I2 (a newer R1 again, step 10) */
	[MBOX_ST_R1_SEEN]     = { I1, R1, I2, DROP, DROP, NTF, DROP, DROP },
	/* 6.9: the responder answers I2 with R2; a retransmitted I2 replaces */
	[MBOX_ST_I2_SEEN]     = { I1, R1, I2, R2, DROP, NTF, DROP, DROP },
	/* 6.10 - 6.15: UPDATE, CLOSE; 4.4.2, 6.9: a restarted host's new BEX */
	[MBOX_ST_ESTABLISHED] = { I1, R1, I2, R2, UPD, NTF, CLS, ACK },
	/* 6.11, 6.12, RFC 7402 6.9: the rekey's UPDATEs; CLOSE may come meanwhile */
	[MBOX_ST_REKEYING]    = { I1, R1, I2, R2, UPD, NTF, CLS, ACK },
	/* 6.14, 6.15: the CLOSE_ACK ends it; until then all else as established */
	[MBOX_ST_CLOSING]     = { I1, R1, I2, R2, UPD, NTF, CLS, ACK },
	/* 4.4.3 CLOSED: retransmitted CLOSE / CLOSE_ACK pass; a new BEX from R1 */
	[MBOX_ST_ENDED]       = { I1, R1, DROP, DROP, DROP, NTF, CLS, ACK },
};

static int
column(uint8_t type)
{
	switch (type) {
	case HIP_I1: return C_I1;
	case HIP_R1: return C_R1;
	case HIP_I2: return C_I2;
	case HIP_R2: return C_R2;
	case HIP_UPDATE: return C_UPDATE;
	case HIP_NOTIFY: return C_NOTIFY;
	case HIP_CLOSE: return C_CLOSE;
	case HIP_CLOSE_ACK: return C_CLOSE_ACK;
	default: return -1;
	}
}

int
mbox_fsm_input(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	int c = column(p->hdr.packet_type);
	enum mbox_state s = a == NULL ? MBOX_ST_NONE : a->state;

	if (c < 0)
		return MBOX_DROP_TYPE;
	return cells[s][c](t, a, p);
}
