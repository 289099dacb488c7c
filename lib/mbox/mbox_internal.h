/* SPDX-License-Identifier: BSD-3-Clause
 * Inside the middlebox's tracker (not installed API): the tracker, its
 * associations, a packet being looked at, and what the role files share.
 *
 *   mbox_track.c   create / free, the checks every packet passes, names, stats
 *   mbox_udp.c     HIP over UDP (RFC 5770): the UDP header, marker, checksum
 *   mbox_assoc.c   the association table (rte_hash by HIT pair), ids, rules
 *   mbox_fsm.c     the state table: [state][packet type] -> handler
 *   mbox_bex.c     I1, R1, I2, R2, NOTIFY (RFC 7401 5.3.1 - 5.3.4, 6.6 - 6.10)
 *   mbox_update.c  UPDATE: SEQ, ACK, ESP_INFO, rekeys (RFC 7401 6.11, 6.12; RFC 7402 6)
 *   mbox_close.c   CLOSE, CLOSE_ACK and the spent nonces (RFC 7401 5.3.7, 5.3.8, 6.14, 6.15)
 *   mbox_spi.c     a host's SPIs and the flows they install, retire, delete
 *   mbox_verify.c  HIs against HITs, configured HIs, signatures
 *   mbox_rate.c    the I1 rate limit per source address
 *   mbox_tick.c    timers: ageing, grace periods, the state file's writes
 *   mbox_state.c   the state file: write, load
 */
#ifndef HIPGW_MBOX_INTERNAL_H
#define HIPGW_MBOX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mbox_track.h"
#include "hip_coverage.h"
#include "hip_hi.h"
#include "hip_hit.h"
#include "hip_packet.h"
#include "hip_param.h"

struct rte_hash;

#define MBOX_FWD               (-1)      /* a cell's result: forward (else an enum mbox_reason) */
#define MBOX_DIGEST_LEN        32        /* bytes: SHA-256 of a CLOSE nonce with its HIT pair */
#define MBOX_NONCES_MIN        64u       /* spent CLOSE nonces remembered at least (2 per association) */
#define MBOX_NS_PER_S          1000000000ull
#define MBOX_ADDR_KEY_LEN      20        /* bytes of an rte_hash key holding a struct gw_addr */

/* The two hosts of an association, by HIT order (RFC 7401 6.5's "greater"). */
#define MBOX_LO 0
#define MBOX_HI 1

enum mbox_spi_state {
	MBOX_SPI_FREE = 0,
	MBOX_SPI_CURRENT,          /* the host's inbound SPI in use */
	MBOX_SPI_NEW,              /* announced by a verified UPDATE, the rekey not complete */
	MBOX_SPI_OLD,              /* replaced: passes until until_ns (longer while ESP uses it) */
};

/* One inbound SPI of a host: ESP to it is the flow (dst, spi). */
struct mbox_spi {
	uint8_t state;             /* enum mbox_spi_state */
	bool acked;                /* NEW: the other host's UPDATE acknowledged seq */
	bool installed;            /* the flow is in the flow table, ours */
	uint32_t spi;
	uint32_t seq;              /* NEW: the Update ID of the UPDATE that announced it */
	struct gw_addr dst;        /* the locator that receives it */
	uint64_t until_ns;         /* OLD: when it goes (0: not timed yet, loaded) */
};

/* One host (HIT) of an association. */
struct mbox_host {
	uint8_t hit[HIP_HIT_LEN];
	bool have_hi;
	struct hip_hi hi;          /* verified against hit (public key) */
	struct mbox_spi spi[MBOX_SPIS_PER_HOST];
	bool seq_seen;
	uint32_t seq;              /* the last Update ID verified from it */
	bool i2_seen;              /* its verified I2 (as initiator) waits for the R2 */
	uint32_t i2_spi;
	struct gw_addr i2_loc;     /* the I2's source: where ESP to it goes */
	bool close_seen;
	uint8_t close[MBOX_DIGEST_LEN];  /* digest of its verified CLOSE's nonce */
};

struct mbox_assoc {
	uint32_t id;               /* 1 .. max_assocs */
	enum mbox_state state;
	uint8_t init;              /* host index of the initiator of the BEX in force */
	struct mbox_host h[2];     /* MBOX_LO, MBOX_HI */
	uint64_t since_ns;         /* state entered (0: loaded, not timed yet) */
	uint64_t last_ns;          /* last verified HIP packet (0: loaded) */
	uint64_t rekey_since_ns;
	uint64_t rekeys;
};

/* An I1 source's token bucket, tokens in units of 1e-9 (as the engine's R1 limit). */
struct mbox_src {
	uint8_t key[MBOX_ADDR_KEY_LEN];
	bool used;
	uint64_t tokens;
	uint64_t at_ns;
};

struct mbox_tracker {
	struct mbox_params p;      /* rules, his and state_path point to the copies below */
	struct mbox_rule *rules;
	struct hip_hi *his;        /* sorted by HIT */
	char *state_path;
	unsigned tid;              /* names the rte_hash tables */

	struct rte_hash *assoc_h;  /* HIT pair -> struct mbox_assoc * */
	struct mbox_assoc **slot;  /* by id - 1 */
	uint32_t *free_ids;
	uint32_t n_free;
	uint32_t n_assocs, n_pending, max_pending;
	uint32_t visit;            /* mbox_tick's next slot */

	struct rte_hash *src_h;    /* source address -> position in src[] */
	struct mbox_src *src;
	uint32_t src_cap, n_src, src_visit;
	struct mbox_src src_overflow;  /* for the sources beyond src_cap */

	struct rte_hash *nonce_h;  /* spent CLOSE nonce digests */
	uint8_t (*nonce_ring)[MBOX_DIGEST_LEN];
	uint32_t nonce_cap, nonce_head, n_nonces;

	struct mbox_stats st;
	bool dirty;                /* changed since the state file was written */
	bool written;
	uint64_t written_ns;
	uint8_t scratch[HIP_COVERAGE_MAX];  /* signature coverage; wiped after use */
};

/* A HIP packet being looked at, past the header, checksum and layout checks. */
struct mbox_pkt {
	const uint8_t *b;          /* from the HIP header on */
	struct hip_hdr hdr;        /* hdr.pkt_len: the bytes of the packet */
	const struct gw_addr *src, *dst;
	uint64_t now;
	bool udp;                  /* over UDP (RFC 5770): its HIP checksum is not checked */
	int from;                  /* the sender's host index in its pair (MBOX_LO / MBOX_HI) */
	const struct hip_tlv *esp_info, *puzzle, *seq, *ack, *encrypted, *host_id;
	const struct hip_tlv *echo_req, *echo_resp, *sig, *sig2, *locator_set;
	struct hip_tlv tlv[11];    /* storage the pointers above point into: one per
	                            * type (the walk refuses a repeated type) */
	unsigned n;
};

/* ---- mbox_track.c ---- */
/* mbox_hip_input's work past the NULL tracker: the checks (the HIP checksum
 * only when !udp), the cell, the counters. */
enum mbox_verdict mbox_input(struct mbox_tracker *t, const struct gw_addr *src,
			     const struct gw_addr *dst, const uint8_t *hip, size_t len,
			     uint64_t now_ns, bool udp, unsigned *why);
/* Count a packet dropped for reason rc, before or after its HIP checks (rx,
 * dropped, drops[rc]); returns MBOX_DROP with *why set (why may be NULL). */
enum mbox_verdict mbox_count_drop(struct mbox_tracker *t, int rc, unsigned *why);
/* The state changed: the state file is due. */
void mbox_dirty(struct mbox_tracker *t);

/* ---- mbox_assoc.c ---- */
int mbox_assoc_init(struct mbox_tracker *t, char *err, size_t errlen);
void mbox_assoc_fini(struct mbox_tracker *t);
/* The association of HIT pair (a, b), either order; NULL when none. */
struct mbox_assoc *mbox_assoc_get(const struct mbox_tracker *t, const uint8_t *a, const uint8_t *b);
/* A new association of the pair: state NONE (counted pending until the
 * caller sets its state), the hosts' HITs set. `pending`: for a BEX in
 * progress, which may take half of the table at most. Returns NULL when the
 * table (or that half) is full. */
struct mbox_assoc *mbox_assoc_new(struct mbox_tracker *t, const uint8_t *a, const uint8_t *b,
				  bool pending, uint64_t now);
/* Delete it: its flows, HIs, the table entry. */
void mbox_assoc_del(struct mbox_tracker *t, struct mbox_assoc *a);
/* Set its state (keeps the pending count). */
void mbox_assoc_state(struct mbox_tracker *t, struct mbox_assoc *a, enum mbox_state s, uint64_t now);
/* The host index of `hit` in a's pair (its HITs' order). */
static inline int
mbox_host_of(const struct mbox_assoc *a, const uint8_t *hit)
{
	return hip_hit_cmp(hit, a->h[MBOX_HI].hit) == 0 ? MBOX_HI : MBOX_LO;
}
/* The rules' verdict on initiator HIT i, responder HIT r (first match, default deny). */
bool mbox_rules_allow(const struct mbox_tracker *t, const uint8_t *i, const uint8_t *r);
/* Fill *out from a. */
void mbox_assoc_info(const struct mbox_tracker *t, const struct mbox_assoc *a,
		     struct mbox_assoc_info *out);

/* ---- mbox_fsm.c ---- */
/* Hand p to the cell [a's state (NONE for a NULL a)][p's packet type].
 * Returns MBOX_FWD or the drop reason. */
int mbox_fsm_input(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);

/* ---- mbox_bex.c: the cells' handlers, by packet ---- */
int mbox_bex_i1(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);
int mbox_bex_r1(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);
int mbox_bex_i2(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);
int mbox_bex_r2(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);
int mbox_bex_notify(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);

/* ---- mbox_update.c ---- */
int mbox_update_in(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);
/* A rekey that did not complete in MBOX_REKEY_NS: its unacknowledged SPIs go. */
void mbox_update_timeout(struct mbox_tracker *t, struct mbox_assoc *a, uint64_t now);

/* ---- mbox_close.c ---- */
int mbox_close_init(struct mbox_tracker *t, char *err, size_t errlen);
void mbox_close_fini(struct mbox_tracker *t);
int mbox_close_in(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);
int mbox_close_ack_in(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p);
/* Remember a spent nonce digest (the oldest goes when full); true when it
 * was known already. */
bool mbox_nonce_spend(struct mbox_tracker *t, const uint8_t d[MBOX_DIGEST_LEN]);
/* Walk the spent nonces, oldest first: fn(ctx, digest). */
void mbox_nonce_walk(const struct mbox_tracker *t, void (*fn)(void *ctx, const uint8_t *d), void *ctx);

/* ---- mbox_spi.c ---- */
/* Every change of a's SPIs goes: mbox_spi_snap, the changes (mbox_spi_add,
 * mbox_spi_retire, mbox_spi_free: no flow is touched), mbox_spi_commit. */
struct mbox_spi_snap {
	struct mbox_spi s[2][MBOX_SPIS_PER_HOST];
};
void mbox_spi_snap(const struct mbox_assoc *a, struct mbox_spi_snap *snap);
/* Make the flow table what a's SPIs now say (installs when a's state has
 * flows: ESTABLISHED, REKEYING, CLOSING; deletes what went). On a failure
 * the flows and SPIs are back as in snap. Returns MBOX_FWD or the reason
 * (FLOW_CONFLICT, FLOW_FULL, MALFORMED). */
int mbox_spi_commit(struct mbox_tracker *t, struct mbox_assoc *a, const struct mbox_spi_snap *snap);
/* Put SPI spi of host x, received at dst, in state st (seq: a NEW one's
 * Update ID); an SPI the host has already is updated. Returns MBOX_FWD, or
 * SPI_FULL (no free slot). */
int mbox_spi_add(struct mbox_assoc *a, int x, uint32_t spi, const struct gw_addr *dst, uint8_t st,
		 uint32_t seq);
/* The slot of SPI spi of host x (CURRENT or NEW before OLD), NULL when it
 * has none. */
struct mbox_spi *mbox_spi_find(struct mbox_assoc *a, int x, uint32_t spi);
/* The host's first slot in state st, NULL when none. */
struct mbox_spi *mbox_spi_in(struct mbox_assoc *a, int x, uint8_t st);
/* Bind SPI slot s (CURRENT or NEW) of host x to locator dst instead: a
 * copy of s at dst takes another slot (a free one, or the OLD one nearest
 * its end), and s itself is retired, so that ESP still in flight to the old
 * locator passes for the grace period (longer while it is used). Returns
 * MBOX_FWD, or SPI_FULL (no slot; nothing changed). */
int mbox_spi_move(const struct mbox_tracker *t, struct mbox_assoc *a, int x, struct mbox_spi *s,
		  const struct gw_addr *dst, uint64_t now);
/* Retire slot s: OLD until now + rekey_grace_ns. */
void mbox_spi_retire(const struct mbox_tracker *t, struct mbox_spi *s, uint64_t now);
/* Delete every flow and SPI of a (its end). */
void mbox_spi_drop_all(struct mbox_tracker *t, struct mbox_assoc *a);
/* OLD SPIs past their time, and unused by ESP for rekey_grace_ns: deleted. */
void mbox_spi_expire(struct mbox_tracker *t, struct mbox_assoc *a, uint64_t now);
/* The latest last_seen_ns of a's flows (0: none used). */
uint64_t mbox_spi_last_seen(const struct mbox_tracker *t, const struct mbox_assoc *a);
/* Flows a has installed. */
unsigned mbox_spi_flows(const struct mbox_assoc *a);
/* True when two addresses are the same. */
bool mbox_addr_eq(const struct gw_addr *x, const struct gw_addr *y);

/* ---- mbox_verify.c ---- */
/* Copy and sort the configured HIs (each checked against its HIT). */
int mbox_verify_init(struct mbox_tracker *t, char *err, size_t errlen);
void mbox_verify_fini(struct mbox_tracker *t);
/* The configured HI of `hit`, NULL when none. */
const struct hip_hi *mbox_known_hi(const struct mbox_tracker *t, const uint8_t *hit);
/* The HI of the HOST_ID TLV hid for a host whose HIT is `hit`, into *out
 * (freed first; `cur`, when it holds the same key, is copied instead of
 * decoding again). Returns MBOX_FWD, or MALFORMED, BAD_HI, HIT_MISMATCH
 * (*out then empty). */
int mbox_hi_from_host_id(const struct hip_tlv *hid, const uint8_t *hit, const struct hip_hi *cur,
			 struct hip_hi *out);
/* *dst = a second reference to src's key (hip_hi_free frees each). */
void mbox_hi_copy(struct hip_hi *dst, const struct hip_hi *src);
/* Verify p's HIP_SIGNATURE (sig2: HIP_SIGNATURE_2 with the PUZZLE, R1) with
 * hi (RFC 7401 6.4.2). Returns MBOX_FWD, SIG_MISSING or SIG. */
int mbox_verify_sig(struct mbox_tracker *t, const struct mbox_pkt *p, const struct hip_hi *hi,
		    bool sig2);
/* SHA-256 of a's HIT pair and nonce[0..len). Returns 0 or -1. */
int mbox_nonce_digest(const struct mbox_assoc *a, const uint8_t *nonce, size_t len,
		      uint8_t d[MBOX_DIGEST_LEN]);

/* ---- mbox_rate.c ---- */
int mbox_rate_init(struct mbox_tracker *t, char *err, size_t errlen);
void mbox_rate_fini(struct mbox_tracker *t);
/* Take one I1 token of src's bucket at now: true when the I1 may pass. */
bool mbox_rate_take(struct mbox_tracker *t, const struct gw_addr *src, uint64_t now);
/* Forget up to `visits` full (idle) buckets. */
void mbox_rate_age(struct mbox_tracker *t, uint64_t now, unsigned visits);
/* The key of an address for the rte_hash tables. */
void mbox_addr_key(const struct gw_addr *a, uint8_t key[MBOX_ADDR_KEY_LEN]);

/* ---- mbox_state.c ---- */
/* Load t->state_path when it exists. Returns 0, or -1 with "FILE:LINE:
 * message" in err. */
int mbox_state_load(struct mbox_tracker *t, char *err, size_t errlen);
/* Write the state file (tmp + rename). Returns 0 or -1 with err. */
int mbox_state_write(struct mbox_tracker *t, char *err, size_t errlen);

#endif
