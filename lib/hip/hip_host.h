/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP protocol engine of one gateway (RFC 7401 Base Exchange, UPDATE,
 * CLOSE; RFC 7402 ESP for HIP). Plain C with OpenSSL, no DPDK: it takes HIP
 * packets and time in, and gives HIP packets and SA events out through the
 * callbacks in struct hip_io. The control lcore drives it (lib/keying glue); tests
 * drive two engines against each other in one process.
 *
 * Time is a monotonic clock in nanoseconds supplied by the caller.
 */
#ifndef HIPGW_HIP_HOST_H
#define HIPGW_HIP_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_limits.h"      /* the gateway's limits the engine shares */
#include "gw_types.h"       /* struct gw_addr */
#include "hip_hi.h"         /* struct hip_hi */

#define HIP_MAX_TRANSFORMS GW_HIP_ESP_TRANSFORMS_MAX
#define HIP_MAX_DH_GROUPS  GW_HIP_DH_GROUPS_MAX
#define HIP_MAX_CIPHERS    GW_HIP_CIPHERS_MAX
#define HIP_MAX_LOCATORS   GW_PEER_LOCATORS_MAX
#define HIP_ESP_KEY_MAX    64

struct hip_host;
struct hip_assoc;           /* one per peer HIT */

/* How HIP and ESP travel to a peer: plain (IP protocols 139 and 50, both
 * ports 0) or in UDP (RFC 5770 UDP-ENCAPSULATION mode; RFC 3948 for ESP)
 * between our port `lport` and the peer's `rport` (host order). */
struct hip_udp {
	uint16_t lport, rport;
};

/* One direction of an ESP SA the engine negotiated (RFC 7402 section 7). */
struct hip_sa_keys {
	uint32_t spi;                    /* host order */
	uint16_t esp_transform;          /* RFC 7402 suite ID: 7, 8, 9 or 13 */
	uint8_t enc_key[HIP_ESP_KEY_MAX];  /* AES-GCM: key then 4-byte salt */
	uint8_t enc_key_len;             /* bytes */
	uint8_t auth_key[HIP_ESP_KEY_MAX];
	uint8_t auth_key_len;            /* bytes */
	struct gw_addr local;            /* outer addresses (locators) */
	struct gw_addr remote;
	struct hip_udp udp;              /* the association's transport: ESP in UDP
					  * from udp.lport to udp.rport; 0, 0: plain */
};

/* BEX times (ns) in the steps of the published HIP evaluation
 * (docs/published-figures.json), 0 where this side did not see the step. */
struct hip_bex_times {
	uint64_t i1_to_r1;       /* responder: I1 in -> R1 out */
	uint64_t r1_to_i2;       /* initiator: R1 in -> I2 out (puzzle, DH, signature) */
	uint64_t i2_to_r2;       /* responder: I2 in -> R2 out */
	uint64_t r2_to_esp;      /* initiator: R2 in -> first ESP out (hip_host_first_esp) */
	uint64_t tbe;            /* initiator: I1 out -> first ESP out */
};

struct hip_io {
	void *ctx;
	/* Send one HIP packet (bytes from the HIP header on, checksum filled in
	 * for src/dst) from locator src to locator dst. */
	void (*send)(void *ctx, const struct gw_addr *src, const struct gw_addr *dst,
		     const uint8_t *pkt, size_t len);
	/* Pick an unused inbound SPI (>= GW_ESP_SPI_MIN) for a new SA; 0 = none free. */
	uint32_t (*spi_alloc)(void *ctx);
	/* New SAs are ready (BEX done, or UPDATE rekey): install `in` first,
	 * then switch the peer's outbound traffic to `out` (make-before-break).
	 * `old_in_spi` is the inbound SPI this replaces (0 after a BEX); the
	 * integrator removes it after a grace period. Keys are wiped by the
	 * engine after the call returns. */
	void (*sa_up)(void *ctx, void *peer_user, const struct hip_sa_keys *out,
		      const struct hip_sa_keys *in, uint32_t old_in_spi);
	/* The association is gone (CLOSE, E-FAILED, timeout, or replaced by a
	 * new Base Exchange when the peer restarted): remove its SAs. Called once
	 * per inbound SPI the engine handed over (during an UPDATE also for the
	 * new inbound SA given to sa_in_up). */
	void (*sa_down)(void *ctx, void *peer_user, uint32_t in_spi);
	/* A BEX finished (ok) or failed; times as far as known. At the
	 * responder it comes right after R2 is sent (i1_to_r1, i2_to_r2). At
	 * the initiator a success is reported at hip_host_first_esp (so that
	 * r2_to_esp and tbe are in), or HIP_BEX_DONE_WAIT_NS after R2 when no
	 * ESP packet left by then (those two times 0). Failures (E-FAILED) are
	 * reported at once. One call per Base Exchange. */
	void (*bex_done)(void *ctx, void *peer_user, bool ok, const struct hip_bex_times *t);
	/* Optional (may be NULL): UPDATE rekey, make-before-break for the side
	 * that answers the rekey. It gets the new inbound SA early, before its
	 * peer can switch to it: install `in` now, keep sending on the old
	 * outbound SA. The later sa_up for this rekey carries the same `in`
	 * (same SPI and keys): it is already installed, only switch to `out`.
	 * When NULL, that side installs `in` only at that sa_up, which may lose
	 * the packets its peer sends in between. */
	void (*sa_in_up)(void *ctx, void *peer_user, const struct hip_sa_keys *in);
	/* Optional (may be NULL): the association reached ESTABLISHED with the
	 * SAs of its last sa_up (RFC 7401 4.4.2): only now does this side know
	 * that the peer has them too. The initiator gets it at R2, right after
	 * sa_up; the responder, whose sa_up comes with its R2, when it leaves
	 * R2-SENT (RFC 7401 4.4.3, R2-SENT: "Receive data or UPDATE", or the
	 * timer, HIP_R2_SENT_HOLD_NS): its first authenticated ESP from the
	 * peer (hip_host_data_in), an authenticated UPDATE, or the timer. Until
	 * then the peer may not have processed R2, and ESP we send would find
	 * no inbound SA there: an integrator holds back what it queued for the
	 * peer before the SAs existed and sends it now. Once per association. */
	void (*established)(void *ctx, void *peer_user);
	/* Optional (may be NULL): mobility (RFC 8046 sections 5.2, 5.4). Move
	 * this peer's outbound SAs (the current ones and any staged by a rekey
	 * under way) to the outer addresses `local` (our locator) and `remote`
	 * (the peer's): same SPIs, keys and sequence numbers, no rekey. Inbound
	 * SAs are found by SPI and need no change. Called when we announce a
	 * new locator (hip_host_set_locators: local changes at once) and when
	 * a locator the peer announced passed the return-routability check
	 * (remote changes). The engine sends its own HIP packets from and to
	 * these addresses already. SAs handed over later with sa_up carry the
	 * addresses in force. */
	void (*path)(void *ctx, void *peer_user, const struct gw_addr *local,
		     const struct gw_addr *remote);
	/* Optional (may be NULL: the engine never uses UDP): send one HIP
	 * packet over UDP (RFC 5770): a UDP header from port udp->lport to
	 * udp->rport, the 32-bit zero non-ESP marker, then pkt (HIP checksum
	 * zero, HIP_UDP_HIP_CHECKSUM). When set, the engine answers HIP that
	 * came over UDP over UDP, offers UDP-ENCAPSULATION in the R1s it sends
	 * over UDP (NAT_TRAVERSAL_MODE), and initiates over UDP as the peer's
	 * hip_host_set_peer_nat mode says. */
	void (*send_udp)(void *ctx, const struct gw_addr *src, const struct gw_addr *dst,
			 const struct hip_udp *udp, const uint8_t *pkt, size_t len);
};

struct hip_host_cfg {
	struct hip_hi *hi;                      /* this gateway's Host Identity (not owned) */
	uint8_t puzzle_k;                       /* initial difficulty, bits */
	uint16_t esp_transforms[HIP_MAX_TRANSFORMS];   /* preference order, RFC 7402 IDs */
	unsigned n_esp_transforms;
	uint8_t dh_groups[HIP_MAX_DH_GROUPS];   /* preference order, RFC 7401 IDs */
	unsigned n_dh_groups;
	uint16_t hip_ciphers[HIP_MAX_CIPHERS];  /* HIP_CIPHER IDs, preference order */
	unsigned n_hip_ciphers;
	uint64_t sa_lifetime_ns;                /* rekey after this; 0 = never */
	/* R1s sent per second at most, 1..HIP_R1_RATE_MAX; 0 = no limit. A
	 * token bucket HIP_R1_BURST(r1_rate) deep, full at the first I1, refilled
	 * from the `now` given to hip_host_input: an I1 that finds it empty is
	 * dropped (drop_r1_ratelimit), not answered. Anti-reflection: an R1 is
	 * ~10x an I1, so spoofed I1s must not make us an amplifier (as DNS
	 * Response Rate Limiting). RFC 7401 6.7: a responder SHOULD answer an
	 * I1 with an R1 unless unable or unwilling; over the limit it is
	 * unwilling, and the initiator's I1 retransmission gets through. */
	uint32_t r1_rate;
	struct hip_io io;
	/* Optional deterministic randomness (test vectors only): when set,
	 * every random value the engine uses (R1 secrets, puzzle #I seed, DH
	 * private values, puzzle J start, ENCRYPTED IV, ECHO nonces, ECDSA
	 * nonces) comes from rng(rng_ctx, buf, len), which returns 0 on
	 * success. Fixed output gives byte-identical exchanges. NULL = OpenSSL's
	 * CSPRNG (always in production). */
	int (*rng)(void *ctx, uint8_t *buf, size_t len);
	void *rng_ctx;
	/* Optional, test vectors only: the derived values of each exchange
	 * ("kij", "keymat", "puzzle_i", "puzzle_j"; "update_kij",
	 * "update_keymat" for a rekey), as the engine computes them. Called only
	 * in deterministic mode (rng set): never for real keys. */
	void (*vector)(void *ctx, void *peer_user, const char *name, const uint8_t *val, size_t len);
	void *vector_ctx;
};

/* Create an engine. Precomputes one R1 per DH group. NULL + err on failure. */
struct hip_host *hip_host_create(const struct hip_host_cfg *cfg, char *err, size_t errlen);
/* Free everything; keys wiped. Does not send CLOSE (see hip_host_close_all). */
void hip_host_free(struct hip_host *h);

/* Declare a peer (only declared HITs are accepted, as initiator or responder).
 * locators: its outer addresses; local: our outer address to use towards it.
 * user: the integrator's handle, passed back in callbacks. Returns 0 or -1. */
int hip_host_add_peer(struct hip_host *h, const uint8_t hit[16],
		      const struct gw_addr *locators, unsigned n_locators,
		      const struct gw_addr *local, void *user);

/* Start a BEX towards a declared peer (first outbound packet). No-op when one
 * is running or established. Returns 0 or -1 (unknown peer). */
int hip_host_connect(struct hip_host *h, void *peer_user, uint64_t now_ns);

/* hip_host_connect, with the first I1 to `locator` when it is one of the
 * peer's locators (NULL or another address: to the first one); its
 * retransmissions try the next locators in turn. For a peer just seen at
 * that address: ESP from it for an SPI we do not know, so it kept SAs that we
 * lost in a restart. RFC 7401 section 4.4.2: the peer, ESTABLISHED, answers
 * the I1 with R1 and takes our I2 as a restarted peer's (section 6.9),
 * replacing its SAs. Returns 1 when an I1 went out (a BEX started), 0 when
 * nothing was to do (a BEX running, established, closing, or E-FAILED held),
 * -1 for an unknown peer. */
int hip_host_connect_to(struct hip_host *h, void *peer_user, const struct gw_addr *locator,
			uint64_t now_ns);

/* A HIP packet (IP protocol 139) arrived from src to dst. Malformed,
 * unauthenticated or unexpected packets are dropped and counted (never crash).
 * Returns 0 when accepted, a negative hip_err otherwise. */
int hip_host_input(struct hip_host *h, const struct gw_addr *src, const struct gw_addr *dst,
		   const uint8_t *pkt, size_t len, uint64_t now_ns);

/* Timers: retransmissions with back-off, E-FAILED, R1 regeneration, lifetime
 * rekeys. Call every few ms. */
void hip_host_tick(struct hip_host *h, uint64_t now_ns);

/* Ask for an UPDATE rekey of a peer's SAs now (byte or sequence limits seen by
 * the data path). Returns 0 or -1. */
int hip_host_rekey(struct hip_host *h, void *peer_user, uint64_t now_ns);

/* The first ESP packet towards the peer left (for the published evaluation's times). */
void hip_host_first_esp(struct hip_host *h, void *peer_user, uint64_t now_ns);

/* Data came from the peer: an ESP packet authenticated on the inbound SA of
 * the association's last sa_up (the integrator may tell it late, e.g. when
 * it sees that SA's packet counter above 0). In R2-SENT this is RFC 7401
 * 4.4.3's "Receive data": the association moves to ESTABLISHED
 * (io.established); in any other state nothing changes. Returns 1 when it
 * moved, 0 when not, -1 for an unknown peer. */
int hip_host_data_in(struct hip_host *h, void *peer_user, uint64_t now_ns);

/* Drop the association with a peer here, without a packet to it, as a host
 * that restarted and lost its state would (RFC 7401 section 4.4.2; the peer
 * takes our next I2 as a restarted peer's, section 6.9): its SAs are handed
 * back with sa_down, the state becomes UNASSOCIATED, and a later
 * hip_host_connect starts a new Base Exchange. For test and benchmark
 * initiators (perf/bex-bench); a gateway ends associations with CLOSE.
 * Returns 0, or -1 for an unknown peer. */
int hip_host_forget(struct hip_host *h, void *peer_user, uint64_t now_ns);

/* Send CLOSE to every established peer (shutdown). */
void hip_host_close_all(struct hip_host *h, uint64_t now_ns);

struct hip_host_stats {
	uint64_t rx, tx, dropped;            /* HIP packets */
	uint64_t i1_rx, r1_tx, i2_rx, r2_tx; /* responder side */
	uint64_t bex_ok, bex_failed, updates, closes;
	uint8_t puzzle_k;                    /* current difficulty */
	uint32_t r1_rate;                    /* R1 rate limit in force, R1/s; 0 = none */
	/* why packets were dropped (each drop counts once in `dropped` and once here) */
	uint64_t drop_malformed;             /* header, TLV layout, missing or bad parameter */
	uint64_t drop_checksum;
	uint64_t drop_unknown_peer;          /* sender HIT not added with hip_host_add_peer */
	uint64_t drop_not_for_us;            /* receiver HIT not ours */
	uint64_t drop_state;                 /* unexpected in the association's state */
	uint64_t drop_critical;              /* unknown critical parameter */
	uint64_t drop_puzzle;                /* wrong or stale puzzle solution (I2) */
	uint64_t drop_r1_gen;                /* I2 for an R1 generation no longer valid */
	uint64_t drop_r1_ratelimit;          /* I1 not answered: R1 rate limit (cfg.r1_rate) */
	uint64_t drop_policy;                /* DH group, cipher, transform or suite refused */
	uint64_t drop_hit_mismatch;          /* HOST_ID does not hash to the sender's HIT */
	uint64_t drop_mac;                   /* HIP_MAC / HIP_MAC_2 did not verify */
	uint64_t drop_sig;                   /* signature did not verify */
	uint64_t drop_replay;                /* old UPDATE / CLOSE_ACK echo mismatch */
	uint64_t drop_internal;              /* our failure: SPI, memory, crypto */
	uint64_t i2_dup;                     /* duplicate I2 answered with the stored R2 */
	uint64_t retransmits;                /* I1, I2, UPDATE, CLOSE resent on timeout */
	uint64_t notify_tx, notify_rx;
	uint64_t r1_generations;             /* R1 sets computed (generation counter) */
	uint64_t dh_derive;                  /* Diffie-Hellman computations */
	uint64_t sig_verify;                 /* signature verifications attempted */
	uint64_t sim_init;                   /* simultaneous initiations resolved */
	/* mobility (RFC 8046); drops also count once in `dropped` */
	uint64_t loc_tx;                     /* UPDATEs with our LOCATOR_SET sent (not resends) */
	uint64_t loc_rx;                     /* peer LOCATOR_SETs taken (authenticated, new SEQ) */
	uint64_t rr_tx;                      /* return-routability checks started (ECHO_REQUEST_SIGNED) */
	uint64_t rr_ok;                      /* peer locators verified (right echo, from that locator) */
	uint64_t rr_failed;                  /* checks whose retransmissions ran out */
	uint64_t echo_answered;              /* ECHO_REQUEST_SIGNED answered (ECHO_RESPONSE_SIGNED) */
	uint64_t path_changes;               /* io.path calls */
	uint64_t drop_locator;               /* LOCATOR_SET malformed: overrun, no locator, no SEQ */
	uint64_t drop_locator_many;          /* LOCATOR_SET above HIP_LOCATOR_SET_MAX locators */
	uint64_t drop_locator_type;          /* LOCATOR_SET without a locator we can use (NOTIFY 46) */
	uint64_t drop_echo;                  /* ECHO_RESPONSE_SIGNED missing or not our nonce */
	uint64_t drop_echo_addr;             /* echo response not from the locator checked */
	uint64_t drop_update_dup;            /* duplicate UPDATE over HIP_UPDATE_DUP_ANSWERS */
	/* NAT traversal (RFC 5770); drops also count once in `dropped` */
	uint64_t nat_udp_rx;                 /* HIP packets that came over UDP */
	uint64_t nat_udp_tx;                 /* HIP packets sent over UDP */
	uint64_t nat_switch;                 /* BEXs that went on over UDP after plain I1s (auto) */
	uint64_t nat_keepalive_tx;           /* NOTIFY NAT_KEEPALIVE sent */
	uint64_t nat_keepalive_rx;           /* ... received and verified */
	uint64_t drop_nat_mode;              /* I2 over UDP with a NAT_TRAVERSAL_MODE we did not offer */
};
void hip_host_stats(const struct hip_host *h, struct hip_host_stats *out);

/* ---- Additions (beyond the integrator's first API) ------------------------- */

/* hip_host_input's errors beyond enum hip_err (hip_packet.h). */
enum hip_host_err {
	HIP_E_HOST_STATE = -32,     /* unexpected in this state, or unknown association */
	HIP_E_HOST_PEER = -33,      /* sender not a declared peer, or receiver not us */
	HIP_E_HOST_AUTH = -34,      /* MAC, signature, puzzle or HIT check failed */
	HIP_E_HOST_POLICY = -35,    /* a choice we do not accept (group, transform, cipher, suite) */
	HIP_E_HOST_CRITICAL = -36,  /* unknown critical parameter */
	HIP_E_HOST_INTERNAL = -37,  /* our own failure (SPI, memory, crypto) */
	HIP_E_HOST_RATE = -38,      /* I1 over the R1 rate limit (hip_host_cfg.r1_rate) */
};
const char *hip_host_strerror(int err);

/* Association states of RFC 7401 section 4.4.2. */
enum hip_state {
	HIP_STATE_UNASSOCIATED = 0,
	HIP_STATE_I1_SENT,
	HIP_STATE_I2_SENT,
	HIP_STATE_R2_SENT,
	HIP_STATE_ESTABLISHED,
	HIP_STATE_CLOSING,
	HIP_STATE_CLOSED,
	HIP_STATE_E_FAILED,
};
const char *hip_state_name(enum hip_state s);

/* A locator's state (RFC 8046 section 5.1): UNVERIFIED (announced, its
 * reachability not checked, section 5.4: nothing but the echo request goes
 * there), VERIFIED (the check passed: the RFC's ACTIVE, not in use), ACTIVE
 * (verified and in use: the outer address of the outbound SAs). */
enum hip_locator_state {
	HIP_LOC_UNVERIFIED = 0,
	HIP_LOC_VERIFIED,
	HIP_LOC_ACTIVE,
};
struct hip_locator_info {
	struct gw_addr addr;          /* IPv4-mapped locators as family 4 */
	uint32_t spi;                 /* type 1 locator's SPI (host order), 0 for type 0 */
	uint32_t lifetime_s;          /* Locator Lifetime, seconds */
	bool preferred;               /* P bit */
	enum hip_locator_state state;
};

/* What the engine knows of one peer (tests, stats JSON, logs). */
struct hip_peer_info {
	enum hip_state state;
	bool initiator;               /* we started the Base Exchange in force */
	uint32_t spi_in, spi_out;     /* current SAs, 0 when none */
	uint16_t esp_transform;
	uint8_t dh_group;
	uint16_t hip_cipher;
	uint16_t last_notify;         /* last NOTIFY message type received, 0 none */
	uint64_t notify_rx;
	uint64_t rekeys;              /* completed UPDATE rekeys */
	struct hip_bex_times times;   /* of the last Base Exchange */
	/* mobility (RFC 8046): the outer addresses in use (of the outbound
	 * SAs), the peer's last LOCATOR_SET, and our locators towards it
	 * (hip_host_set_locators; ACTIVE: the one in use, VERIFIED: the peer
	 * checked it with an echo we answered) */
	struct gw_addr local, remote;
	struct hip_locator_info peer_locators[HIP_MAX_LOCATORS];
	unsigned n_peer_locators;
	struct hip_locator_info our_locators[HIP_MAX_LOCATORS];
	unsigned n_our_locators;
	bool rr_pending;              /* a return-routability check under way or queued */
	struct hip_udp udp;           /* the transport in use (0, 0: plain) */
};
/* Fill *out for the peer added with `peer_user`. Returns 0 or -1. */
int hip_host_peer_info(const struct hip_host *h, const void *peer_user, struct hip_peer_info *out);

/* Mobility (RFC 8046 sections 3.2.1, 3.2.2, 5.2): our outer addresses
 * changed to locs[0..n) (n 1..HIP_MAX_LOCATORS, family 4 or 6), locs[preferred]
 * the one to use. For every ESTABLISHED association: the locator of the
 * peer's family (the preferred one if it fits, else the first) becomes the
 * association's local address at once, io.path tells the integrator, and an
 * UPDATE with ESP_INFO (OLD SPI = NEW SPI: no rekey), our LOCATOR_SET (type 1
 * locators: our inbound SPI and the address, IPv4 as IPv4-mapped IPv6; P bit
 * on the one in use), SEQ, HIP_MAC and HIP_SIGNATURE goes out from it,
 * resent until ACKed (HIP_UPDATE_RETRIES_MAX). With `rekey`, or when the
 * association's lifetime rekey is due, the same UPDATE also carries a new
 * SPI and DIFFIE_HELLMAN (section 3.2.2): new SAs come with sa_up as in a
 * rekey. An association with an UPDATE of its own in flight announces when
 * that one is done; one in R2-SENT takes the address at once (io.path)
 * and announces when it becomes ESTABLISHED. In other states the new
 * local address serves what is under way (I1, I2, CLOSE and their resends)
 * and the next Base Exchange. Returns the number of UPDATEs started or queued, or
 * -1 for bad arguments (nothing changed). */
int hip_host_set_locators(struct hip_host *h, const struct gw_addr *locs, unsigned n,
			  unsigned preferred, bool rekey, uint64_t now_ns);

/* ---- NAT traversal (RFC 5770 UDP-ENCAPSULATION mode, RFC 9028) ---------- */

/* How an initiator reaches a peer: AUTO, plain I1s first and, once
 * HIP_NAT_AUTO_DIRECT_I1S of them got no answer, each I1 resent both plain
 * and over UDP, the BEX going on over the transport of the first R1 back;
 * FORCE, over UDP from the first I1; OFF, never over UDP. */
enum hip_nat_mode {
	HIP_NAT_AUTO = 0,
	HIP_NAT_FORCE,
	HIP_NAT_OFF,
};
#define HIP_NAT_AUTO_DIRECT_I1S 2   /* plain I1s (the first and one resend) before UDP */

/* Set the peer's NAT mode (default AUTO; needs io.send_udp, else always
 * plain) and the interval of the keepalives (RFC 5770 4.7, RFC 9028 4.10:
 * a NOTIFY NAT_KEEPALIVE, signed) that this side sends while ESTABLISHED over
 * UDP as the initiator, the side behind the NAT: keepalive_ns ns, 0 = none.
 * Returns 0, or -1 for an unknown peer or mode. */
int hip_host_set_peer_nat(struct hip_host *h, void *peer_user, enum hip_nat_mode mode,
			  uint64_t keepalive_ns);

/* hip_host_input for a HIP packet that came over UDP (RFC 5770): from
 * src:udp->rport to dst:udp->lport, pkt the bytes after the non-ESP marker.
 * The HIP checksum is not checked (the UDP checksum covers the packet).
 * What the engine sends in answer goes over UDP to where it came from; an
 * I2 (responder) or R1 (initiator) over UDP makes the association's
 * transport UDP with these ports. Returns as hip_host_input. */
int hip_host_input_udp(struct hip_host *h, const struct gw_addr *src, const struct gw_addr *dst,
		       const struct hip_udp *udp, const uint8_t *pkt, size_t len, uint64_t now_ns);

/* NAT rebinding (RFC 5770; the integrator saw authenticated ESP with the
 * highest sequence number so far from a new address or port): the
 * association over UDP now reaches the peer at remote:rport (host order);
 * its HIP packets (UPDATE, CLOSE, keepalives) and the SAs of later rekeys
 * go there. The integrator moves the SAs it has itself. Returns 0, or -1
 * for an unknown peer, one not over UDP, or another address family. */
int hip_host_set_peer_path(struct hip_host *h, void *peer_user, const struct gw_addr *remote,
			   uint16_t rport);
/* Multihoming (RFC 8047 section 4.1): the association with peer_user uses
 * our locator `local` (one of hip_host_set_locators' set, of the peer's
 * family) from now on, the others of the set kept. ESTABLISHED: io.path
 * tells the integrator and an UPDATE with our LOCATOR_SET, the P bit on
 * `local`, goes out from it as in hip_host_set_locators (no rekey); other
 * states: the next exchange goes from it. Returns 1 when an UPDATE was
 * started or queued, 0 when none was due, -1 for an unknown peer or an
 * address not in our set (nothing changed). */
int hip_host_set_local(struct hip_host *h, void *peer_user, const struct gw_addr *local,
		       uint64_t now_ns);

/* Our HIT. */
const uint8_t *hip_host_hit(const struct hip_host *h);

/* Compute a new set of R1s now (new R1 generation; the two previous
 * generations stay valid for I2s, older ones do not). Also done in hip_host_tick every
 * HIP_R1_REGEN_NS and when the puzzle difficulty changes. Returns 0 or -1. */
int hip_host_regen_r1(struct hip_host *h, uint64_t now_ns);

/* Replace the RNG (see hip_host_cfg.rng) and recompute the R1s with it. */
int hip_host_set_rng(struct hip_host *h, int (*rng)(void *ctx, uint8_t *buf, size_t len),
		     void *rng_ctx, uint64_t now_ns);

/* Timing constants (ns). */
#define HIP_RTO_INITIAL_NS     (500ull * 1000 * 1000)   /* first retransmission */
#define HIP_RTO_MAX_NS         (8ull * 1000 * 1000 * 1000)
#define HIP_I1_RETRIES_MAX     5                        /* then E-FAILED */
#define HIP_I2_RETRIES_MAX     5
#define HIP_UPDATE_RETRIES_MAX 6
#define HIP_CLOSE_RETRIES_MAX  3
/* Mobility (RFC 8046): a LOCATOR_SET with more locators is dropped
 * (drop_locator_many); a duplicate UPDATE (same SEQ) is answered at most
 * this many times, to the address the first answer went to, then dropped
 * (drop_update_dup): a peer resends at most HIP_UPDATE_RETRIES_MAX times */
#define HIP_LOCATOR_SET_MAX    HIP_MAX_LOCATORS
#define HIP_UPDATE_DUP_ANSWERS (HIP_UPDATE_RETRIES_MAX + 1)
#define HIP_R1_REGEN_NS        (60ull * 1000 * 1000 * 1000)
#define HIP_BEX_DONE_WAIT_NS   (1000ull * 1000 * 1000)

/* R1 rate limit (hip_host_cfg.r1_rate): the largest rate, R1/s, and the
 * bucket depth for a rate, R1s: a tenth of a second's worth, at least 16, so
 * that a burst of legitimate I1s (gateways restarting together) is answered
 * at once while the long-run rate stays at r1_rate. */
#define HIP_R1_RATE_MAX        GW_R1_RATE_MAX_PER_S
#define HIP_R1_BURST(rate)     ((rate) / 10 > 16 ? (rate) / 10 : 16u)

#endif
