/* SPDX-License-Identifier: BSD-3-Clause
 * The middlebox's association tracker: follows HIP exchanges that cross the
 * box (RFC 7401: BEX, UPDATE, CLOSE; RFC 7402: ESP_INFO), verifies each
 * packet's Host Identity and signature, and keeps per association the HIT
 * pair, both HIs and the ESP flows ((destination, SPI) in gw_mbox_flow.h)
 * that may cross. Runs on the control lcore only; never sees ESP (it cannot
 * authenticate it): the flows' counters tell it when a flow was last used.
 */
#ifndef HIPGW_MBOX_TRACK_H
#define HIPGW_MBOX_TRACK_H

#include <stddef.h>
#include <stdint.h>
#include "gw_types.h"
#include "hip_hi.h"
#include "gw_mbox_flow.h"

#define MBOX_ASSOCS_MAX        65536u    /* associations one tracker holds at most */

/* A rule: first match in order wins; no match: deny (default deny). */
enum mbox_action { MBOX_ALLOW = 0, MBOX_DENY = 1 };
struct mbox_rule {
	char name[32];
	uint8_t any_initiator, any_responder;  /* 1: the HIT below is a wildcard */
	uint8_t initiator[HIP_HIT_LEN];        /* the I1 / I2 sender's HIT */
	uint8_t responder[HIP_HIT_LEN];
	enum mbox_action action;
};

/* A Host Identity the config vouches for (public key; for initiators whose
 * I2 carries HOST_ID inside ENCRYPTED). */
struct mbox_known_hi {
	struct hip_hi hi;              /* public key, hit[] set */
};

struct mbox_params {
	uint32_t max_assocs;           /* 1 .. MBOX_ASSOCS_MAX */
	uint64_t idle_ns;              /* ns without HIP or ESP before an association ends */
	uint64_t rekey_grace_ns;       /* ns the old SPIs pass after a rekey completed */
	uint32_t i1_rate;              /* I1 per second per source address (0: no limit) */
	const struct mbox_rule *rules;
	unsigned n_rules;
	const struct mbox_known_hi *his;
	unsigned n_his;
	struct gw_mbox_flows *flows;   /* the workers' table the tracker fills */
	const char *state_path;        /* state file, or NULL */
};

enum mbox_verdict { MBOX_FORWARD = 0, MBOX_DROP = 1 };

struct mbox_tracker;

/* Create a tracker (and load state_path when it exists: the associations in
 * it are installed in flows at once). Returns NULL with a one-line message in
 * err (errlen bytes) naming the file and what is wrong. */
struct mbox_tracker *mbox_create(const struct mbox_params *p, char *err, size_t errlen);
/* Free it (flows it installed stay in the table; the caller frees that). */
void mbox_free(struct mbox_tracker *t);

/* A HIP packet crossing the box from src to dst (outer addresses), len bytes
 * from its HIP header, at now_ns (ns). Returns whether to forward it; on
 * MBOX_DROP, *why names the counter it went to (mbox_reason_name). */
enum mbox_verdict mbox_hip_input(struct mbox_tracker *t, const struct gw_addr *src,
				 const struct gw_addr *dst, const uint8_t *hip, size_t len,
				 uint64_t now_ns, unsigned *why);
/* Timers: idle ageing, the end of rekey grace periods, the state file
 * written when the state changed. Call every few ms or more. */
void mbox_tick(struct mbox_tracker *t, uint64_t now_ns);
