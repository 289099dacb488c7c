/* SPDX-License-Identifier: BSD-3-Clause
 * The middlebox's association tracker: follows HIP exchanges that cross the
 * box (RFC 7401: BEX, UPDATE, CLOSE; RFC 7402: ESP_INFO), verifies each
 * packet's Host Identity and signature, and keeps per association the HIT
 * pair, both HIs and the ESP flows ((destination, SPI) in gw_mbox_flow.h)
 * that may cross. Runs on the control lcore only; never sees ESP (it cannot
 * authenticate it): the flows' counters tell it when a flow was last used.
 *
 * The rules it keeps, the state table and the counters are in
 * docs/middlebox.md. Every function here runs on the control lcore (or on
 * one thread the caller serialises them on); none is safe to call from two
 * threads at once. Times are ns of the clock the workers stamp the flows'
 * last_seen_ns with (the gw clock), given by the caller: nothing here reads
 * a clock.
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
 * err (errlen bytes) naming the file and what is wrong. p is copied with its
 * rules, HIs (each checked against its HIT, RFC 7343; their keys referenced,
 * so the caller may free its own) and path; idle_ns 0 and rekey_grace_ns 0
 * take MBOX_IDLE_DEFAULT_NS and MBOX_GRACE_DEFAULT_NS; i1_rate at most
 * 1000000. Needs DPDK's EAL (its tables are rte_hash). A missing state file
 * is no state; a broken one ("FILE:LINE: message") or any other error
 * returns NULL with nothing installed in flows. */
struct mbox_tracker *mbox_create(const struct mbox_params *p, char *err, size_t errlen);
/* Free it (flows it installed stay in the table; the caller frees that).
 * It does not write the state file (mbox_state_flush first); NULL: nothing. */
void mbox_free(struct mbox_tracker *t);

/* A HIP packet crossing the box from src to dst (outer addresses), len bytes
 * from its HIP header, at now_ns (ns). Returns whether to forward it; on
 * MBOX_DROP, *why names the counter it went to (mbox_reason_name). The
 * packet is only read (the box forwards it as it came); len may include
 * bytes after the HIP packet (its Header Length decides). The checks and
 * the state table are docs/middlebox.md's (RFC 7401 sections 4.4.3, 5,
 * 6.4.2, 6.6 - 6.15; RFC 7402 5.1.1, 6.9). why may be NULL; a NULL t, src,
 * dst or hip is a drop (malformed). */
enum mbox_verdict mbox_hip_input(struct mbox_tracker *t, const struct gw_addr *src,
				 const struct gw_addr *dst, const uint8_t *hip, size_t len,
				 uint64_t now_ns, unsigned *why);
/* The same for HIP over UDP (RFC 5770, RFC 9028: a UDP datagram,
 * to or from port 10500, whose payload is the 32-bit zero non-ESP marker
 * and a HIP packet): udp points at the UDP header, len bytes of it and its
 * payload (the IP payload). Checked first, each failure a drop: len at least
 * UDP header + marker + HIP_HDR_LEN bytes, the UDP length field len, the
 * marker zero (else UDP_BAD); the UDP checksum over the pseudo header of src
 * and dst (RFC 768; 0 is "none" over IPv4 only, RFC 8200 8.1; else
 * UDP_CKSUM). Then the HIP packet after the marker goes through every check
 * of mbox_hip_input except its HIP checksum: RFC 5770 senders set it to 0,
 * the UDP checksum covers the packet. The state a packet advances is the
 * same as plain HIP's: the outer addresses are what the flows are bound to,
 * the ports play no part (a NAT may change them). Counted in rx and udp. */
enum mbox_verdict mbox_hip_udp_input(struct mbox_tracker *t, const struct gw_addr *src,
				     const struct gw_addr *dst, const uint8_t *udp, size_t len,
				     uint64_t now_ns, unsigned *why);
/* Timers: idle ageing, the end of rekey grace periods, the state file
 * written when the state changed. Call every few ms or more. Each call
 * looks at MBOX_TICK_VISITS associations in turn and reads their flows'
 * counters (gw_mbox_flow_stats); the state file is written at most every
 * MBOX_STATE_GAP_NS (a failure counts in state_write_errors and is tried
 * again; mbox_state_flush says why). */
void mbox_tick(struct mbox_tracker *t, uint64_t now_ns);

/* ---- Additions to the interface the two halves first agreed on ------------ */

/* Limits the tracker keeps (each with its unit). */
#define MBOX_RULES_MAX         4096u     /* rules in mbox_params */
#define MBOX_KNOWN_HIS_MAX     65536u    /* config HIs in mbox_params */
#define MBOX_SPIS_PER_HOST     4u        /* inbound SPIs of one host of an association at once:
					  * current, a rekey's new one, old ones in their grace */
#define MBOX_I1_SOURCES_MAX    8192u     /* source addresses with an I1 rate bucket of their own;
					  * more share one bucket */
#define MBOX_BEX_NS            (60ull * 1000000000u)  /* ns a BEX may take from R1 to R2 */
#define MBOX_REKEY_NS          (60ull * 1000000000u)  /* ns an UPDATE rekey may take */
#define MBOX_ENDED_HOLD_NS     (15ull * 1000000000u)  /* ns an ended association is kept for
						       * retransmitted CLOSE / CLOSE_ACK */
#define MBOX_STATE_GAP_NS      (1000000000ull)        /* ns between two state file writes at least */
#define MBOX_TICK_VISITS       512u      /* associations (and I1 sources) one mbox_tick looks at */

/* mbox_params defaults for 0 (what mbox_create takes instead). */
#define MBOX_IDLE_DEFAULT_NS   (300ull * 1000000000u)
#define MBOX_GRACE_DEFAULT_NS  (2ull * 1000000000u)

/* Association states (docs/middlebox.md has the table of transitions,
 * lib/mbox/mbox_fsm.c the table itself). */
enum mbox_state {
	MBOX_ST_NONE = 0,          /* no association: I1, R1 and NOTIFY only */
	MBOX_ST_R1_SEEN,           /* R1 verified: the responder's HI (RFC 7401 5.3.2, 6.8) */
	MBOX_ST_I2_SEEN,           /* I2 verified: the initiator's HI and SPI (5.3.3, 6.9) */
	MBOX_ST_ESTABLISHED,       /* R2 verified: the responder's SPI, flows installed (5.3.4, 6.10) */
	MBOX_ST_REKEYING,          /* an UPDATE announced a new SPI (6.11, 6.12; RFC 7402 6.9) */
	MBOX_ST_CLOSING,           /* a CLOSE verified, its nonce kept; UPDATEs still followed (5.3.7, 6.14) */
	MBOX_ST_ENDED,             /* its CLOSE_ACK verified: flows deleted (5.3.8, 6.15) */
	MBOX_STATES
};
/* "NONE", "R1_SEEN", ...; "?" for another value. */
const char *mbox_state_name(unsigned s);

/* Why a HIP packet was dropped: X(NAME, "name", "what it counts"); each
 * dropped packet counts once in one of them. Appended at the end only. */
#define MBOX_DROP_LIST(X) \
	X(MALFORMED, "malformed", "header, TLV layout, a missing or bad parameter, a HIT that is no ORCHID") \
	X(CHECKSUM, "checksum", "HIP checksum wrong for the outer addresses") \
	X(TYPE, "type", "a HIP packet type the box does not follow (HDRR, DATA, unknown)") \
	X(DENIED, "denied", "HIT pair denied by the rules, or matching none (default deny)") \
	X(I1_RATE, "i1_rate", "I1 over i1_rate from its source address") \
	X(STATE, "state", "unexpected in the association's state, or no association") \
	X(HIT_MISMATCH, "hit_mismatch", "HOST_ID that does not hash to the sender's HIT (RFC 7343)") \
	X(BAD_HI, "bad_hi", "HOST_ID whose key does not decode (algorithm, curve, size)") \
	X(NO_HI, "no_hi", "no HI for the sender: I2 with HOST_ID in ENCRYPTED and none configured") \
	X(SIG_MISSING, "sig_missing", "no HIP_SIGNATURE (in R1: HIP_SIGNATURE_2) to verify") \
	X(SIG, "sig", "signature that does not verify with the sender's HI") \
	X(SEQ, "seq", "UPDATE whose SEQ is below the last one of its sender") \
	X(ESP_INFO, "esp_info", "ESP_INFO missing or wrong: SPI 0, an OLD SPI not the sender's, no SEQ") \
	X(CLOSE_REPLAY, "close_replay", "CLOSE whose nonce a CLOSE of an earlier association carried") \
	X(ECHO, "echo", "CLOSE_ACK that echoes no CLOSE of this association") \
	X(FULL, "full", "no room for another association (max_assocs; BEXes in progress: half)") \
	X(SPI_FULL, "spi_full", "no room for another SPI of the host (MBOX_SPIS_PER_HOST)") \
	X(FLOW_CONFLICT, "flow_conflict", "SPI announced for a (locator, SPI) flow another association has") \
	X(FLOW_FULL, "flow_full", "the flow table refused the flow (full)") \
	X(LOCATOR, "locator", "UPDATE whose LOCATOR_SET does not parse (RFC 8046 4)") \
	X(UDP_BAD, "udp_bad", "HIP over UDP: UDP length not the datagram's, no zero marker, " \
	  "fewer bytes than a HIP header after it (RFC 5770)") \
	X(UDP_CKSUM, "udp_cksum", "HIP over UDP: UDP checksum wrong, or 0 over IPv6 (RFC 8200 8.1)")

enum mbox_reason {
#define MBOX_X_ENUM(n, s, d) MBOX_DROP_##n,
	MBOX_DROP_LIST(MBOX_X_ENUM)
#undef MBOX_X_ENUM
	MBOX_DROPS
};
/* "malformed", ...; "?" for a value of no reason. */
const char *mbox_reason_name(unsigned why);
/* The reason's line in MBOX_DROP_LIST ("header, TLV layout, ..."); "" for none. */
const char *mbox_reason_doc(unsigned why);

/* Events: X(name, "what it counts"). */
#define MBOX_COUNTER_LIST(X) \
	X(rx, "HIP packets given to the tracker") \
	X(forwarded, "HIP packets forwarded") \
	X(dropped, "HIP packets dropped, each also counted in one of drops") \
	X(i1, "I1s forwarded") \
	X(sig_verified, "signatures that verified") \
	X(established, "Base Exchanges seen complete: R2 verified, flows installed") \
	X(rebex, "of those, over an established association (a host restarted): its old SPIs retired") \
	X(rekeys, "UPDATE rekeys seen complete: every new SPI acknowledged") \
	X(rekey_timeouts, "rekeys not complete in MBOX_REKEY_NS: unacknowledged SPIs retired") \
	X(closed, "associations ended by a CLOSE_ACK echoing their CLOSE") \
	X(aged, "associations ended after idle_ns without HIP or ESP") \
	X(bex_expired, "BEXes not complete in MBOX_BEX_NS (or idle_ns): forgotten") \
	X(flows_added, "flows installed in the flow table") \
	X(flows_deleted, "flows deleted from the flow table") \
	X(retransmits, "verified packets that repeat one seen (UPDATE, I2, R2, CLOSE): forwarded, no change") \
	X(loaded, "associations loaded from the state file") \
	X(load_denied, "associations in the state file that the rules now deny: not loaded") \
	X(state_writes, "state files written") \
	X(state_write_errors, "state file writes that failed (tried again later)") \
	X(moves, "SPIs bound to a new locator by a verified UPDATE with LOCATOR_SET (RFC 8046)") \
	X(udp, "HIP packets over UDP given to the tracker (RFC 5770), also counted in rx")

struct mbox_stats {
	uint64_t drops[MBOX_DROPS];
#define MBOX_X_FIELD(n, d) uint64_t n;
	MBOX_COUNTER_LIST(MBOX_X_FIELD)
#undef MBOX_X_FIELD
	uint32_t assocs;               /* associations now, any state */
	uint32_t pending;              /* of those, R1_SEEN or I2_SEEN */
	uint32_t i1_sources;           /* source addresses with an I1 bucket now */
};
/* A copy of the counters (the same thread as the other calls). */
void mbox_stats(const struct mbox_tracker *t, struct mbox_stats *out);

/* One association as telemetry and tests see it. Initiator and responder
 * are those of the BEX in force. */
struct mbox_assoc_info {
	uint32_t id;                   /* the flows' assoc id: 1 .. max_assocs, reused after it ended */
	enum mbox_state state;
	uint8_t hit_i[HIP_HIT_LEN], hit_r[HIP_HIT_LEN];
	struct gw_addr loc_i, loc_r;   /* where ESP to the initiator / responder goes */
	uint32_t spi_i, spi_r;         /* their current inbound SPIs; 0 none yet */
	uint32_t new_spi_i, new_spi_r; /* a rekey's new SPIs, 0 none */
	unsigned flows;                /* flows it has installed now (both hosts, old ones too) */
	uint32_t seq_i, seq_r;         /* the last UPDATE SEQ (Update ID) of each */
	uint64_t rekeys;
	uint64_t since_ns, last_ns;    /* state entered; last verified HIP packet */
};
/* Walk the associations: *cursor 0 to start. Returns 1 with *out filled and
 * *cursor advanced, 0 at the end. Associations made or ended during a walk
 * may be missed. */
int mbox_assoc_next(const struct mbox_tracker *t, uint32_t *cursor, struct mbox_assoc_info *out);
/* The association of the HIT pair a, b (either order). Returns 0 and fills
 * *out, or -1 (none). */
int mbox_assoc_find(const struct mbox_tracker *t, const uint8_t a[HIP_HIT_LEN],
		    const uint8_t b[HIP_HIT_LEN], struct mbox_assoc_info *out);

/* Write the state file now if the state changed since the last write (also
 * at shutdown, before mbox_free). Returns 0 (written, or nothing to write,
 * or no state_path), or -1 with a one-line message naming the file in err. */
int mbox_state_flush(struct mbox_tracker *t, char *err, size_t errlen);

#endif
