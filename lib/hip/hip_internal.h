/* SPDX-License-Identifier: BSD-3-Clause
 * Inside the HIP engine (not installed API): the host, its associations, the
 * R1 sets, and the functions the role files (hip_*.c) share.
 *
 *   hip_host.c    engine, peers, input checks, timers, stats
 *   hip_fsm.c     the packet-driven state machine: [state][packet type] -> handler
 *   hip_r1.c      precomputed R1s per DH group, generations, puzzle #I, K under load
 *   hip_bex.c     the Base Exchange's choices and what both sides share (KEYMAT, SAs)
 *   hip_bex_initiator.c  I1 out, R1 in, I2 out, R2 in
 *   hip_bex_responder.c  I1 in, R1 out, I2 in, R2 out
 *   hip_cover.c   what HIP_MAC(_2) and HIP_SIGNATURE(_2) cover (RFC 7401 6.4)
 *   hip_state.c   state machine helpers, retransmission with back-off, timers
 *   hip_notify.c  NOTIFY out (rate limited) and in
 *   hip_update.c  UPDATE rekey with a fresh Diffie-Hellman (RFC 7401 6.11, RFC 7402 6)
 *   hip_mobility.c  locators: LOCATOR_SET out and in, return routability (RFC 8046)
 *   hip_close.c   CLOSE / CLOSE_ACK (RFC 7401 6.14, 6.15)
 *   hip_rand.c    randomness: OpenSSL, or the deterministic test-vector RNG
 */
#ifndef HIPGW_HIP_INTERNAL_H
#define HIPGW_HIP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

#include "hip_host.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hip_dh.h"
#include "hip_hi.h"
#include "hip_hit.h"
#include "hip_keymat.h"
#include "hipgw_wire.h"     /* GW_HIP_UDP_PORT (RFC 5770) */

/* lib/hipcrypto keeps its own copies of these (it includes nothing of the
 * gateway's); the wire format's limits bound what we offer. */
_Static_assert(HIP_HI_MAX_LEN == HIP_HI_MAX, "one Host Identity limit, bytes");
_Static_assert(HIP_RHASH_MAX == HIP_RHASH_LEN_MAX, "one RHASH length limit, bytes");
_Static_assert(HIP_MAX_TRANSFORMS <= HIP_ESP_SUITES_MAX,
	       "no more ESP transforms offered than RFC 7402 5.1.2 lets a sender");
_Static_assert(HIP_MAX_CIPHERS <= HIP_CIPHER_IDS_MAX,
	       "no more HIP ciphers offered than RFC 7401 5.2.8 lets a sender");

#define HIP_NSEC_PER_MS        (1000ull * 1000)
#define HIP_NSEC_PER_S         (1000ull * 1000 * 1000)

#define HIP_PUZZLE_LIFETIME    37      /* 2^(37-32) = 32 s to solve */
#define HIP_PUZZLE_K_MAX       24      /* what we ask at most, under load */
#define HIP_PUZZLE_K_ACCEPT    GW_PUZZLE_K_MAX_BITS  /* what we solve at most as initiator */
#define HIP_R1_GENS            3       /* current and two previous generations accepted */
#define HIP_K_CHANGE_MIN_NS    (1000ull * HIP_NSEC_PER_MS) /* K changes at most this often */
#define HIP_ECHO_LEN           16      /* CLOSE nonce */
#define HIP_HOST_ID_TLV_MAX    (HIP_TLV_HDR_LEN + 6 + HIP_HI_MAX_LEN + 8)
#define HIP_R2_SENT_HOLD_NS    (10ull * HIP_NSEC_PER_S)  /* R2-SENT -> ESTABLISHED */
#define HIP_CLOSED_HOLD_NS     (15ull * HIP_NSEC_PER_S)  /* CLOSED -> UNASSOCIATED */
#define HIP_E_FAILED_HOLD_NS   (2ull * HIP_NSEC_PER_S)   /* E-FAILED -> UNASSOCIATED */
#define HIP_LOAD_WINDOW_NS     (100ull * HIP_NSEC_PER_MS) /* I1 rate window */
#define HIP_LOAD_I1_HIGH       64      /* I1s per window that raise K */
#define HIP_LOAD_K_STEP        2
#define HIP_NOTIFY_BURST       16      /* NOTIFYs per second we send at most */
#define HIP_I2_OLD             4       /* digests of older I2s kept per peer */
#define HIP_RR_NONCE_LEN       16      /* ECHO_REQUEST_SIGNED nonce of a return-routability check, bytes */
#define HIP_LOCATOR_LIFETIME_S 3600    /* Locator Lifetime we announce, seconds */

/* Parameters of one received packet, located by one pass over its TLVs. */
struct hip_params {
	const struct hip_tlv *esp_info, *r1_counter, *puzzle, *solution, *seq, *ack;
	const struct hip_tlv *dh_group_list, *dh, *hip_cipher, *encrypted, *host_id;
	const struct hip_tlv *hit_suite_list, *notification, *echo_req_signed, *echo_resp_signed;
	const struct hip_tlv *tf_list, *esp_transform, *mac, *mac2, *sig2, *sig;
	const struct hip_tlv *echo_resp_unsigned, *echo_req_unsigned, *locator_set;
	const struct hip_tlv *nat_mode;     /* NAT_TRAVERSAL_MODE (R1, I2; RFC 5770) */
	struct hip_tlv tlv[32];     /* storage the pointers above point into */
	unsigned n;
	uint16_t unknown_critical;  /* first unknown critical type, 0 none */
};

/* A received packet past hip_host_input's checks (hip_fsm.c hands it to
 * the handler of its cell). */
struct hip_rx {
	const uint8_t *pkt;                /* from the HIP header on, hdr->pkt_len bytes */
	const struct hip_hdr *hdr;
	const struct hip_params *p;
	const struct gw_addr *src, *dst;   /* its outer addresses (locators) */
	struct hip_udp udp;                /* came over UDP: our port, the sender's; else 0, 0 */
	uint64_t now;                      /* ns */
};

/* A packet we keep to retransmit it (I1, I2, UPDATE, CLOSE) or to answer a
 * duplicate with the same bytes (R2, UPDATE reply, CLOSE_ACK). */
struct hip_txbuf {
	uint8_t b[HIP_PACKET_MAX];
	size_t len;
};

/* Retransmission timer of the packet in hip_assoc.tx */
struct hip_rtx {
	bool armed;
	unsigned count;             /* retransmissions done */
	unsigned max;
	uint64_t timeout;           /* current interval */
	uint64_t deadline;
};

enum hip_rekey_phase {
	HIP_REKEY_NONE = 0,
	HIP_REKEY_SENT,             /* we sent UPDATE(ESP_INFO, SEQ, DH), await the reply */
	HIP_REKEY_REPLIED,          /* we answered the peer's, await its ACK */
};

struct hip_assoc {
	struct hip_host *h;
	uint8_t peer_hit[HIP_HIT_LEN];
	struct gw_addr locators[HIP_MAX_LOCATORS];
	unsigned n_locators;
	unsigned loc_first;         /* locator of the BEX's first I1 (hip_host_connect_to) */
	struct gw_addr local;       /* our outer address towards the peer */
	struct gw_addr remote;      /* the peer's address in use */
	void *user;

	enum hip_state state;
	uint64_t state_since;
	bool initiator;

	/* the peer, once authenticated (R1 at the initiator, I2 at the responder) */
	struct hip_hi peer_hi;
	/* The peer's HOST_ID as last decoded and checked (hip_peer_hi_decode):
	 * kept across associations, so that a Base Exchange with a peer seen
	 * before does not decode and check its key again (an RSA-3072 public
	 * key check costs more than the rest of the I2). Freed with the host. */
	struct hip_hi hi_cache;
	uint8_t peer_host_id[HIP_HOST_ID_TLV_MAX];  /* responder's HOST_ID TLV as in R1 */
	size_t peer_host_id_len;

	/* negotiated */
	uint8_t suite;              /* HIT suite giving RHASH: the responder's */
	uint8_t dh_group;
	uint16_t hip_cipher;
	uint16_t esp_transform;
	uint8_t i[HIP_RHASH_MAX], j[HIP_RHASH_MAX];  /* puzzle I, J: KEYMAT salt */
	size_t ij_len;
	struct hip_keys keys;       /* HIP keys, and the ESP keys in use */
	uint32_t spi_in, spi_out;
	/* spi_in was handed over (sa_up): only then does it go back with
	 * sa_down. An initiator reserves spi_in at R1 and hands it over at R2. */
	bool sa_given;
	uint64_t r1_gen;            /* initiator: generation of the R1 answered */
	bool have_r1_gen;

	/* initiator during the BEX */
	struct hip_dh dh;           /* our ephemeral key of the I2 */
	uint8_t i1_groups[HIP_MAX_DH_GROUPS];
	unsigned n_i1_groups;

	/* packets */
	struct hip_txbuf tx;        /* what the retransmission timer resends */
	struct hip_rtx rtx;
	struct hip_txbuf r2;        /* responder: R2 for duplicate I2s */
	uint8_t i2_digest[HIP_RHASH_MAX];  /* responder: what identifies the I2 answered */
	uint8_t i2_old[HIP_I2_OLD][HIP_RHASH_MAX];  /* I2s answered before: replays */

	/* UPDATE */
	uint32_t update_id;         /* our next Update ID */
	bool peer_update_seen;
	uint32_t peer_update_id;    /* last peer Update ID processed */
	struct hip_txbuf update_reply;  /* our answer to peer_update_id, for duplicates */
	enum hip_rekey_phase rekey;
	uint32_t rekey_seq;         /* the Update ID of our UPDATE in flight */
	struct hip_dh rekey_dh;
	uint32_t rekey_spi_in;      /* our new inbound SPI */
	struct hip_sa_keys rk_in, rk_out;   /* REPLIED: the new SAs, out pending */
	uint64_t rekey_at;          /* lifetime rekey due (0 = none) */
	uint64_t rekeys;

	uint16_t dup_answers;       /* duplicates of peer_update_id answered (HIP_UPDATE_DUP_ANSWERS) */
	struct gw_addr update_reply_dst;   /* where update_reply went */

	/* mobility (RFC 8046), hip_mobility.c */
	struct hip_locator_info peer_loc[HIP_LOCATOR_SET_MAX];   /* the peer's last LOCATOR_SET */
	unsigned n_peer_loc;
	uint8_t our_verified;       /* bit x: the peer checked our locator x (we answered its echo) */
	enum { HIP_MOB_TX_NONE = 0, HIP_MOB_TX_LOC, HIP_MOB_TX_ECHO } mob_tx;  /* a.tx holds ... */
	uint32_t mob_seq;           /* ... with this Update ID */
	bool loc_pending;           /* our LOCATOR_SET to announce once a.tx is free */
	bool loc_pending_rekey;     /* ... with a rekey */
	bool rr_pending;            /* rr_addr to check once a.tx is free */
	bool rr_in_rekey;           /* the rekey answer in a.tx carries the echo request */
	struct gw_addr rr_addr;     /* the peer locator being checked */
	struct gw_addr rr_next;     /* the one to check next (rr_pending) */
	uint8_t rr_nonce[HIP_RR_NONCE_LEN];
	bool tx_dst_set;            /* a.tx is resent to tx_dst, not `remote` (cleared by hip_rtx_arm) */
	struct gw_addr tx_dst;

	/* NAT traversal (RFC 5770): the transport of the association's packets
	 * (HIP and ESP), the initiator's choice, the keepalive timer */
	struct hip_udp udp;
	enum hip_nat_mode nat;
	uint64_t keepalive_ns;      /* interval, 0 = none */
	uint64_t keepalive_at;      /* next one due */

	/* CLOSE */
	uint8_t echo[HIP_ECHO_LEN];

	/* NOTIFY */
	uint16_t last_notify;
	uint64_t notify_rx;

	/* times */
	struct hip_bex_times times;
	uint64_t t_i1_out, t_r1_in, t_r2_in;
	uint64_t i1_to_r1_last;     /* responder: of the last I1 from this peer */
	bool bex_done_pending;      /* initiator: waits for first ESP */
	uint64_t bex_done_deadline;
};

/* One generation of precomputed R1s: one per DH group */
struct hip_r1 {
	uint8_t group;
	struct hip_dh dh;
	struct hip_txbuf pkt;       /* signed, receiver HIT / Opaque / #I zero */
	struct hip_txbuf pkt_nat;   /* the same with NAT_TRAVERSAL_MODE, for I1s over UDP
				     * (built when io.send_udp is set, else len 0) */
	size_t puzzle_off;          /* offset of the PUZZLE TLV */
};

struct hip_r1_gen {
	bool valid;
	uint64_t gen;
	uint8_t k;
	uint8_t secret[HIP_RHASH_MAX];   /* keys #I for this generation */
	struct hip_r1 r1[HIP_MAX_DH_GROUPS];
	unsigned n;
};

struct hip_host {
	struct hip_host_cfg cfg;
	struct hip_hi *hi;
	uint8_t suite;
	size_t rhash_len;

	struct hip_assoc **peers;
	unsigned n_peers, cap_peers;

	/* R1s */
	struct hip_r1_gen gens[HIP_R1_GENS];
	unsigned cur_gen;           /* index into gens */
	uint64_t gen_counter;
	uint64_t r1_regen_at;
	uint8_t k;                  /* difficulty asked now */
	uint64_t load_window_start;
	uint64_t k_changed_at;
	uint64_t load_i1;
	unsigned low_windows;
	/* R1 rate limit: token bucket, in units of 1e-9 token (hip_r1_token) */
	bool r1_tb_started;
	uint64_t r1_tb;             /* tokens * 1e9, <= HIP_R1_BURST(r1_rate) * 1e9 */
	uint64_t r1_tb_at;          /* `now` of the last refill, ns */

	/* NOTIFY rate limit */
	uint64_t notify_window_start;
	unsigned notify_in_window;

	/* our locators (hip_host_set_locators); none: the peers' `local` as added */
	struct gw_addr our_loc[HIP_MAX_LOCATORS];
	unsigned n_our_loc;
	unsigned our_pref;

	struct hip_host_stats st;
	uint8_t scratch[HIP_PACKET_MAX + HIP_HOST_ID_TLV_MAX];  /* MAC / signature coverage */
	uint8_t host_id_tlv[HIP_HOST_ID_TLV_MAX];   /* our HOST_ID TLV, as sent */
	size_t host_id_tlv_len;
};

/* ---- hip_host.c ---- */
struct hip_assoc *hip_peer_by_hit(const struct hip_host *h, const uint8_t hit[HIP_HIT_LEN]);
struct hip_assoc *hip_peer_by_user(const struct hip_host *h, const void *user);
/* Send a built packet from src to dst: plain with its checksum set for
 * src/dst, or, when udp has ports, over UDP with checksum 0 (RFC 5770,
 * io.send_udp). udp NULL = plain. Returns 0 or -1. */
int hip_send(struct hip_host *h, const struct gw_addr *src, const struct gw_addr *dst,
	     const struct hip_udp *udp, uint8_t *pkt, size_t len);
/* Count a drop with its reason counter; returns err for tail calls. */
int hip_drop(struct hip_host *h, uint64_t *reason, int err);
/* Monotonic ns (for durations inside one call). */
uint64_t hip_mono_ns(void);
/* Start a packet: 0 or -1. */
int hip_build_start(struct hip_builder *b, struct hip_txbuf *t, uint8_t type,
		    const uint8_t *src_hit, const uint8_t *dst_hit);

/* ---- hip_r1.c ---- */
int hip_r1_init(struct hip_host *h, uint64_t now);
void hip_r1_free(struct hip_host *h);
int hip_r1_regen(struct hip_host *h, uint64_t now);
void hip_r1_tick(struct hip_host *h, uint64_t now);
/* Count an I1 for the load estimate (may raise K and regenerate). */
void hip_r1_note_i1(struct hip_host *h, uint64_t now);
/* Take one token of the R1 rate limit at `now` (ns): true when an R1 may be
 * sent, false when the bucket is empty. Always true with no limit. */
bool hip_r1_token(struct hip_host *h, uint64_t now);
/* The R1 of the current generation for `group`, NULL when none. */
const struct hip_r1 *hip_r1_for(const struct hip_host *h, uint8_t group);
const struct hip_r1_gen *hip_r1_current(const struct hip_host *h);
/* The generation with counter `gen` if still accepted, else NULL. */
const struct hip_r1_gen *hip_r1_gen_find(const struct hip_host *h, uint64_t gen);
/* The generation whose Opaque is `opaque` (I2 without R1_COUNTER). */
const struct hip_r1_gen *hip_r1_gen_by_opaque(const struct hip_host *h, const uint8_t opaque[2]);
/* #I and Opaque for an initiator HIT in a generation. Returns 0 or -1. */
int hip_r1_puzzle_i(const struct hip_host *h, const struct hip_r1_gen *g,
		    const uint8_t hit_i[HIP_HIT_LEN], uint8_t *i_out, uint8_t opaque[2]);

/* ---- hip_fsm.c ---- */
/* What a cell of the state machine does with a packet of its type for
 * association a (RFC 7401 4.4.3): 0 when it was taken, or a negative
 * hip_err with the packet dropped and counted (hip_drop). */
typedef int (*hip_fsm_fn)(struct hip_assoc *a, const struct hip_rx *rx);
/* Hand rx to the cell [a->state][rx->hdr->packet_type] (hip_fsm.c's table).
 * A packet type no cell knows is dropped as malformed. Returns the cell's
 * result. */
int hip_fsm_input(struct hip_assoc *a, const struct hip_rx *rx);

/* ---- hip_bex.c, hip_bex_initiator.c, hip_bex_responder.c ---- */
/* Send our I1 to the peer's locator loc_first, go to I1-SENT (RFC 7401 6.6). */
int hip_bex_send_i1(struct hip_assoc *a, uint64_t now);
/* The cells' handlers (hip_fsm.c), by packet and the condition their cells
 * add (RFC 7401 sections 6.7 - 6.10): */
/* I1: answer with R1 (6.7) */
int hip_bex_in_i1(struct hip_assoc *a, const struct hip_rx *rx);
/* I1 in I1-SENT: dropped when the sender's HIT is greater (6.7 step 3) */
int hip_bex_in_i1_sent(struct hip_assoc *a, const struct hip_rx *rx);
/* R1 in I1-SENT: answer with I2, go to I2-SENT (6.8) */
int hip_bex_in_r1(struct hip_assoc *a, const struct hip_rx *rx);
/* R1 in I2-SENT: only one of a newer R1 generation, answered again (6.8 step 10) */
int hip_bex_in_r1_newer(struct hip_assoc *a, const struct hip_rx *rx);
/* I2: a new association, R2, R2-SENT (6.9) */
int hip_bex_in_i2(struct hip_assoc *a, const struct hip_rx *rx);
/* I2 in R2-SENT or ESTABLISHED: the I2 answered gets its R2 again (6.9 step 4) */
int hip_bex_in_i2_answered(struct hip_assoc *a, const struct hip_rx *rx);
/* I2 in I2-SENT: dropped when our HIT is smaller (6.9 step 5) */
int hip_bex_in_i2_sent(struct hip_assoc *a, const struct hip_rx *rx);
/* R2 in I2-SENT: ESTABLISHED (6.10) */
int hip_bex_in_r2(struct hip_assoc *a, const struct hip_rx *rx);
/* v among the n entries of list l. */
bool hip_bex_in_list8(const uint8_t *l, unsigned n, uint8_t v);
bool hip_bex_in_list16(const uint16_t *l, unsigned n, uint16_t v);
/* The OpenSSL AES-CBC cipher of a HIP_CIPHER ID, NULL for another one
 * (RFC 7401 5.2.8, 5.2.18). */
const EVP_CIPHER *hip_bex_cbc_cipher(uint16_t cipher);
/* KEYMAT of a Base Exchange (RFC 7401 6.5; Kij, #I and #J of ij_len bytes,
 * HITs hit_a, hit_b) and the keys drawn from it (RFC 7402 7: the ESP keys
 * from the KEYMAT Index after the HIP keys of `cipher`) into *keys; the
 * values reported as test vectors. Returns 0 or -1. */
int hip_bex_keys(struct hip_assoc *a, uint8_t suite, uint16_t cipher, uint16_t esp,
		 const uint8_t *kij, size_t kij_len, const uint8_t *i, const uint8_t *j,
		 size_t ij_len, const uint8_t *hit_a, const uint8_t *hit_b, struct hip_keys *keys);
/* Fill the two SA directions from a's keys and SPIs. */
void hip_bex_sa_keys(const struct hip_assoc *a, const struct hip_keys *k, uint32_t spi_in,
		     uint32_t spi_out, struct hip_sa_keys *in, struct hip_sa_keys *out);
/* Our HOST_ID TLV bytes (built once at create). */
int hip_bex_host_id_tlv(struct hip_host *h);
/* Append our HOST_ID parameter. */
int hip_bex_put_host_id(struct hip_host *h, struct hip_builder *b);

/* ---- hip_cover.c ---- */
/* Append HIP_MAC or HIP_MAC_2 over what b holds (RFC 7401 6.4.1). For
 * HIP_MAC_2, host_id is the responder's HOST_ID TLV inserted in type order. */
int hip_cover_put_mac(struct hip_host *h, struct hip_builder *b, uint16_t type, uint8_t suite,
		      const struct hip_key *key, const uint8_t *host_id, size_t host_id_len);
/* Append HIP_SIGNATURE or HIP_SIGNATURE_2 (puzzle_off: the PUZZLE TLV's
 * offset for SIGNATURE_2, zeroed with the receiver HIT; RFC 7401 6.4.2). */
int hip_cover_put_sig(struct hip_host *h, struct hip_builder *b, uint16_t type, size_t puzzle_off);
/* Verify the HIP_MAC / HIP_MAC_2 TLV `mac` of pkt. 0 ok, -1 not. */
int hip_cover_check_mac(struct hip_host *h, const uint8_t *pkt, const struct hip_tlv *mac,
			uint8_t suite, const struct hip_key *key,
			const uint8_t *host_id, size_t host_id_len);
/* Verify the HIP_SIGNATURE(_2) TLV `sig` of pkt with hi. For SIGNATURE_2
 * pass the PUZZLE TLV. 0 ok, -1 not. */
int hip_cover_check_sig(struct hip_host *h, const uint8_t *pkt, const struct hip_tlv *sig,
			const struct hip_hi *hi, const struct hip_tlv *puzzle);

/* ---- hip_state.c ---- */
void hip_state_set(struct hip_assoc *a, enum hip_state s, uint64_t now);
/* Keep a.tx for retransmission: arm the timer with `max` retries. */
void hip_rtx_arm(struct hip_assoc *a, unsigned max, uint64_t now);
void hip_rtx_stop(struct hip_assoc *a);
void hip_state_tick(struct hip_assoc *a, uint64_t now);
/* Address to send a's packets to, and from. */
const struct gw_addr *hip_assoc_dst(const struct hip_assoc *a);
/* Forget the association's crypto state (keys wiped, DH freed). */
void hip_assoc_reset(struct hip_assoc *a);
/* Decode a HOST_ID of association a's peer into *out (hip_hi_decode), or
 * take it from a->hi_cache when the algorithm and bytes are the same as
 * last time (the key was decoded and checked then; *out shares its EVP_PKEY,
 * reference counted). Only a key that hashes to the peer's HIT is cached.
 * Returns 0, or -1 when hip_hi_decode refuses it. */
int hip_peer_hi_decode(struct hip_assoc *a, uint16_t algo, const uint8_t *b, size_t len,
		       struct hip_hi *out);
/* The BEX failed: E-FAILED, bex_done(false). */
void hip_assoc_fail(struct hip_assoc *a, uint64_t now);
/* The initiator's association established at R2 (state ESTABLISHED
 * already): install SAs (sa_up), set timers, then io.established. */
void hip_assoc_established(struct hip_assoc *a, const struct hip_sa_keys *out,
			   const struct hip_sa_keys *in, uint64_t now);
/* The responder leaves R2-SENT for ESTABLISHED at now (ns), then
 * io.established (RFC 7401 4.4.3, R2-SENT: data, UPDATE or the timer). */
void hip_assoc_r2_sent_done(struct hip_assoc *a, uint64_t now);
/* Report bex_done(true) now (initiator: first ESP or timeout). */
void hip_assoc_report_bex(struct hip_assoc *a);
/* Schedule the next lifetime rekey from now. */
void hip_assoc_schedule_rekey(struct hip_assoc *a, uint64_t now);
/* Tear down SAs of an association (sa_down) if it has any. */
void hip_assoc_sa_down(struct hip_assoc *a);

/* ---- hip_notify.c ---- */
/* Send NOTIFY `type` with data to dst (rate limited). */
void hip_notify_send(struct hip_host *h, const uint8_t peer_hit[HIP_HIT_LEN],
		     const struct gw_addr *src, const struct gw_addr *dst, const struct hip_udp *udp,
		     uint16_t type, const void *data, size_t data_len, uint64_t now);
/* A NAT keepalive to a's peer over its UDP transport (RFC 9028 4.10: NOTIFY
 * with NOTIFICATION NAT_KEEPALIVE, no data; signed, no HOST_ID: the peer has
 * our HI), outside the NOTIFY rate limit (the timer bounds it). */
void hip_notify_keepalive(struct hip_assoc *a);
/* NOTIFY, in every state: verified and counted, no state change (6.13) */
int hip_notify_in(struct hip_assoc *a, const struct hip_rx *rx);

/* ---- hip_update.c ---- */
/* What one UPDATE carries (NULL: absent), built in type order, then
 * HIP_MAC and HIP_SIGNATURE (RFC 7401 5.3.5; RFC 8046 4.3). */
struct hip_upd_out {
	const struct hip_esp_info *ei;
	const struct hip_locator_set *loc;
	const uint32_t *seq;
	const uint32_t *ack;
	const struct hip_dh *dh;
	const struct hip_echo *echo_req;    /* ECHO_REQUEST_SIGNED */
	const struct hip_echo *echo_resp;   /* ECHO_RESPONSE_SIGNED */
	const struct gw_addr *dst;          /* NULL: a->remote; sent from a->local */
};
/* Build the UPDATE into t and send it. 0 or -1. */
int hip_update_send(struct hip_assoc *a, struct hip_txbuf *t, const struct hip_upd_out *u);
int hip_update_start(struct hip_assoc *a, uint64_t now);
/* hip_update_start with our LOCATOR_SET `loc` in the same UPDATE (RFC 8046
 * 3.2.2); loc NULL: a plain rekey. 0, or -1 (retried later). */
int hip_update_start_loc(struct hip_assoc *a, const struct hip_locator_set *loc, uint64_t now);
/* UPDATE in ESTABLISHED (RFC 7401 6.12, RFC 7402 6.9) */
int hip_update_in(struct hip_assoc *a, const struct hip_rx *rx);
/* UPDATE in R2-SENT: once authenticated, ESTABLISHED, then as there (4.4.3) */
int hip_update_in_r2_sent(struct hip_assoc *a, const struct hip_rx *rx);
/* Retransmissions ran out. */
void hip_update_give_up(struct hip_assoc *a, uint64_t now);
void hip_update_abort(struct hip_assoc *a);

/* ---- hip_mobility.c (RFC 8046) ---- */
/* The parameters of a received UPDATE, parsed when present (update_verify). */
struct hip_upd_in {
	struct hip_esp_info ei;
	struct hip_seq sq;
	struct hip_ack ak;
	struct hip_diffie_hellman dh;
	struct hip_locator_set ls;
	struct hip_echo echo_req, echo_resp;
};
/* a.tx is free: nothing of ours in flight (rekey or mobility UPDATE) */
bool hip_mob_tx_free(const struct hip_assoc *a);
/* a.tx became free: send what waited (our LOCATOR_SET, then a queued
 * return-routability check). */
void hip_mob_kick(struct hip_assoc *a, uint64_t now);
/* Retransmissions of a mobility UPDATE ran out (announcement or check). */
void hip_mob_give_up(struct hip_assoc *a, uint64_t now);
/* Forget the mobility state of an association (new BEX, reset). */
void hip_mob_reset(struct hip_assoc *a);
/* An authenticated UPDATE with a new SEQ carrying LOCATOR_SET (RFC 8046
 * 5.3): validate and keep the locators, choose the one to check into
 * a->rr_addr. 1: a check is wanted (rr_addr set), 0: nothing to check
 * (the locator in use), or the drop (negative). */
int hip_mob_locators_in(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u);
/* Fill *e with a fresh nonce for rr_addr's check. 0 or -1. */
int hip_mob_echo_new(struct hip_assoc *a, struct hip_echo *e);
/* An ACK of the UPDATE that carried our echo request: the response must
 * hold the nonce and come from rr_addr (RFC 8046 5.4). 0: verified (io.path
 * when the locator replaces the one in use), or the drop. */
int hip_mob_echo_check(struct hip_assoc *a, const struct hip_rx *rx, const struct hip_upd_in *u);
/* Our locator set for a's UPDATE into *ls: type 1 locators of `spi` (our
 * inbound SPI, host order) in buf, P on a->local (RFC 8046 4). */
void hip_mob_our_set(const struct hip_assoc *a, uint32_t spi, struct hip_locator_set *ls,
		     uint8_t buf[][20]);
/* Our UPDATE with LOCATOR_SET (no rekey) to the peer. 0 or -1. */
int hip_mob_announce(struct hip_assoc *a, bool rekey, uint64_t now);
/* The peer's echo request arrived at our address `at`: note our locator
 * verified. */
void hip_mob_echo_answered(struct hip_assoc *a, const struct gw_addr *at);
/* Outer addresses of a's outbound SAs changed: staged SAs follow, io.path. */
void hip_mob_path(struct hip_assoc *a);

/* ---- hip_close.c ---- */
int hip_close_start(struct hip_assoc *a, uint64_t now);
/* CLOSE in R2-SENT, ESTABLISHED or CLOSING: CLOSE_ACK, CLOSED (6.14) */
int hip_close_in(struct hip_assoc *a, const struct hip_rx *rx);
/* CLOSE in CLOSED: the CLOSE_ACK again, no transition (4.4.3) */
int hip_close_in_closed(struct hip_assoc *a, const struct hip_rx *rx);
/* CLOSE_ACK in CLOSING: CLOSED (6.15) */
int hip_close_ack_in(struct hip_assoc *a, const struct hip_rx *rx);
/* CLOSE_ACK in CLOSED (both closed at once): taken, no transition */
int hip_close_ack_in_closed(struct hip_assoc *a, const struct hip_rx *rx);

/* ---- hip_rand.c ---- */
int hip_rand(struct hip_host *h, uint8_t *buf, size_t len);
/* A fresh DH key pair for group (from the RNG in deterministic mode). */
int hip_rand_dh(struct hip_host *h, uint8_t group, struct hip_dh *dh);
/* Test vectors: report a derived value (deterministic mode only). */
void hip_vector(struct hip_host *h, void *peer_user, const char *name, const uint8_t *v, size_t len);
/* Sign with our HI (ECDSA nonces from the RNG in deterministic mode). */
int hip_rand_sign(struct hip_host *h, const uint8_t *data, size_t len,
		  uint8_t *sig, size_t cap, size_t *sig_len);

#endif
