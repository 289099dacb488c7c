/* SPDX-License-Identifier: BSD-3-Clause
 * The packet-driven half of the association state machine (RFC 7401
 * section 4.4): one table, [state][packet type] -> what is done. A cell is
 * the handler of its packet type (hip_bex.c, hip_update.c, hip_notify.c,
 * hip_close.c) for the state, or drop_state: dropped and counted in
 * drop_state (HIP_E_HOST_STATE), nothing answered, no state change. A
 * handler may apply its cell's condition (a HIT comparison, an R1
 * generation, an I2 answered before); every other check of the packet is
 * the handler's, in the order the RFC 7401 section 6 processing gives.
 * The timed transitions are hip_state.c's; the ones the integrator asks
 * for (connect, rekey, close, forget) or reports (data from the peer,
 * hip_host_data_in: R2-SENT -> ESTABLISHED) are hip_host.c's.
 *
 * The cells follow the state processes of RFC 7401 4.4.3 (a table per
 * state; informative, 4.4) as sections 6.7 - 6.15 specify them
 * (normative), and RFC 7402 6.9 for UPDATE. Where they differ from a 4.4.3
 * table the comment says which rule the cell keeps. Another mechanism (mobility, RFC 8046:
 * LOCATOR_SET in UPDATE) adds its processing as the handler of existing
 * cells: no new state, no new column.
 */
#include "hip_internal.h"

/* Columns: the packet types of RFC 7401 5.3 the engine takes. */
enum hip_fsm_col {
	COL_I1,
	COL_R1,
	COL_I2,
	COL_R2,
	COL_UPDATE,
	COL_NOTIFY,
	COL_CLOSE,
	COL_CLOSE_ACK,
	HIP_FSM_COLS
};
#define HIP_FSM_STATES (HIP_STATE_E_FAILED + 1)

/* "Drop and stay" (4.4.3), "Receive ANYOTHER" (4.4.1): no processing rule
 * in this state. */
static int
drop_state(struct hip_assoc *a, const struct hip_rx *rx)
{
	(void)rx;
	return hip_drop(a->h, &a->h->st.drop_state, HIP_E_HOST_STATE);
}

static const hip_fsm_fn hip_fsm[HIP_FSM_STATES][HIP_FSM_COLS] = {
	/* UNASSOCIATED (4.4.3) */
	[HIP_STATE_UNASSOCIATED] = {
		[COL_I1] = hip_bex_in_i1,            /* send R1, stay (6.7) */
		[COL_R1] = drop_state,               /* 6.8 step 2: not I1-SENT / I2-SENT */
		[COL_I2] = hip_bex_in_i2,            /* R2, R2-SENT (6.9) */
		[COL_R2] = drop_state,               /* 6.10 */
		[COL_UPDATE] = drop_state,           /* ANYOTHER; RFC 7402 6.9 condition 2 */
		[COL_NOTIFY] = hip_notify_in,        /* 4.4.3: ANYOTHER; 6.13: informational,
		                                      * counted, no state change */
		[COL_CLOSE] = drop_state,            /* "optionally send ICMP" (none), stay; 6.14 */
		[COL_CLOSE_ACK] = drop_state,        /* 6.15: only in CLOSING or CLOSED */
	},
	/* I1-SENT (4.4.3) */
	[HIP_STATE_I1_SENT] = {
		[COL_I1] = hip_bex_in_i1_sent,       /* local HIT smaller: drop; greater: R1 (6.7 step 3) */
		[COL_R1] = hip_bex_in_r1,            /* I2, I2-SENT (6.8) */
		[COL_I2] = hip_bex_in_i2,            /* R2, R2-SENT (6.9 step 6) */
		[COL_R2] = drop_state,               /* ANYOTHER; 6.10 */
		[COL_UPDATE] = drop_state,           /* ANYOTHER */
		[COL_NOTIFY] = hip_notify_in,        /* ANYOTHER; 6.13 */
		[COL_CLOSE] = drop_state,            /* ANYOTHER */
		[COL_CLOSE_ACK] = drop_state,        /* ANYOTHER; 6.15 */
	},
	/* I2-SENT (4.4.3) */
	[HIP_STATE_I2_SENT] = {
		[COL_I1] = hip_bex_in_i1,            /* send R1, stay */
		[COL_R1] = hip_bex_in_r1_newer,      /* a newer R1 generation only: I2, stay (6.8 step 10) */
		[COL_I2] = hip_bex_in_i2_sent,       /* local HIT smaller: drop; greater: R2,
		                                      * R2-SENT (6.9 step 5) */
		[COL_R2] = hip_bex_in_r2,            /* ESTABLISHED (6.10) */
		[COL_UPDATE] = drop_state,           /* ANYOTHER */
		[COL_NOTIFY] = hip_notify_in,        /* ANYOTHER; 6.13 */
		[COL_CLOSE] = drop_state,            /* 4.4.3 processes it; kept as 6.14 has
		                                      * it: there is no association to close yet */
		[COL_CLOSE_ACK] = drop_state,        /* ANYOTHER; 6.15 */
	},
	/* R2-SENT (4.4.3; data from the peer and the R2-SENT timer also move
	 * it to ESTABLISHED: hip_host_data_in, hip_state_tick) */
	[HIP_STATE_R2_SENT] = {
		[COL_I1] = hip_bex_in_i1,            /* send R1, stay */
		[COL_R1] = drop_state,               /* drop, stay; 6.8 step 2 */
		[COL_I2] = hip_bex_in_i2_answered,   /* the I2 answered: its R2 again (6.9 step 4);
		                                      * another: R2, R2-SENT */
		[COL_R2] = drop_state,               /* drop, stay; 6.10 */
		[COL_UPDATE] = hip_update_in_r2_sent, /* move to ESTABLISHED (6.9 last step;
		                                       * RFC 7402 6.9 condition 2) */
		[COL_NOTIFY] = hip_notify_in,        /* process, stay (6.13) */
		[COL_CLOSE] = hip_close_in,          /* CLOSE_ACK, CLOSED (6.14) */
		[COL_CLOSE_ACK] = drop_state,        /* drop, stay; 6.15 */
	},
	/* ESTABLISHED (4.4.3) */
	[HIP_STATE_ESTABLISHED] = {
		[COL_I1] = hip_bex_in_i1,            /* send R1, stay (6.7 step 2) */
		[COL_R1] = drop_state,               /* drop, stay; 6.8 step 2 */
		[COL_I2] = hip_bex_in_i2_answered,   /* puzzle, Opaque; R2, drop the old
		                                      * association, R2-SENT (6.9) */
		[COL_R2] = drop_state,               /* drop, stay; 6.10 */
		[COL_UPDATE] = hip_update_in,        /* process, stay (6.12; RFC 7402 6.9) */
		[COL_NOTIFY] = hip_notify_in,        /* process, stay (6.13) */
		[COL_CLOSE] = hip_close_in,          /* CLOSE_ACK, CLOSED (6.14) */
		[COL_CLOSE_ACK] = drop_state,        /* drop, stay; 6.15 */
	},
	/* CLOSING (4.4.3) */
	[HIP_STATE_CLOSING] = {
		[COL_I1] = hip_bex_in_i1,            /* send R1, stay */
		[COL_R1] = drop_state,               /* 4.4.3 processes it; kept as 6.8 step 2
		                                      * has it: no I1 was sent */
		[COL_I2] = hip_bex_in_i2,            /* R2, R2-SENT (6.9) */
		[COL_R2] = drop_state,               /* ANYOTHER */
		[COL_UPDATE] = drop_state,           /* ANYOTHER; RFC 7402 6.9 condition 2 */
		[COL_NOTIFY] = hip_notify_in,        /* ANYOTHER; 6.13 */
		[COL_CLOSE] = hip_close_in,          /* crossing CLOSEs: CLOSE_ACK, CLOSED (6.14) */
		[COL_CLOSE_ACK] = hip_close_ack_in,  /* the echo ours: CLOSED (6.15; 4.4.3 goes
		                                      * to UNASSOCIATED, the engine after
		                                      * HIP_CLOSED_HOLD_NS) */
	},
	/* CLOSED (4.4.3) */
	[HIP_STATE_CLOSED] = {
		[COL_I1] = hip_bex_in_i1,            /* send R1, stay */
		[COL_R1] = drop_state,               /* as in CLOSING: 6.8 step 2 */
		[COL_I2] = hip_bex_in_i2,            /* R2, R2-SENT (6.9) */
		[COL_R2] = drop_state,               /* ANYOTHER */
		[COL_UPDATE] = drop_state,           /* ANYOTHER; RFC 7402 6.9 condition 2 */
		[COL_NOTIFY] = hip_notify_in,        /* ANYOTHER; 6.13 */
		[COL_CLOSE] = hip_close_in_closed,   /* CLOSE_ACK again, stay */
		[COL_CLOSE_ACK] = hip_close_ack_in_closed, /* our CLOSE's answer after we
		                                           * answered theirs: taken, stay (6.15;
		                                           * 4.4.3 goes to UNASSOCIATED, the
		                                           * engine after HIP_CLOSED_HOLD_NS) */
	},
	/* E-FAILED (4.4.3: only the timeout to UNASSOCIATED; the responder's
	 * packets as in UNASSOCIATED, 6.7 and 6.9: it keeps no state until an
	 * I2) */
	[HIP_STATE_E_FAILED] = {
		[COL_I1] = hip_bex_in_i1,            /* send R1 (6.7) */
		[COL_R1] = drop_state,               /* 6.8 step 2 */
		[COL_I2] = hip_bex_in_i2,            /* R2, R2-SENT (6.9) */
		[COL_R2] = drop_state,               /* 6.10 */
		[COL_UPDATE] = drop_state,
		[COL_NOTIFY] = hip_notify_in,        /* 6.13 */
		[COL_CLOSE] = drop_state,            /* 6.14 */
		[COL_CLOSE_ACK] = drop_state,        /* 6.15 */
	},
};

/* The column of a HIP packet type, -1 for one the engine does not take. */
static int
column(uint8_t packet_type)
{
	switch (packet_type) {
	case HIP_I1: return COL_I1;
	case HIP_R1: return COL_R1;
	case HIP_I2: return COL_I2;
	case HIP_R2: return COL_R2;
	case HIP_UPDATE: return COL_UPDATE;
	case HIP_NOTIFY: return COL_NOTIFY;
	case HIP_CLOSE: return COL_CLOSE;
	case HIP_CLOSE_ACK: return COL_CLOSE_ACK;
	default: return -1;
	}
}

int
hip_fsm_input(struct hip_assoc *a, const struct hip_rx *rx)
{
	int col = column(rx->hdr->packet_type);

	if (col < 0)
		return hip_drop(a->h, &a->h->st.drop_malformed, HIP_E_HOST_STATE);
	return hip_fsm[a->state][col](a, rx);
}
