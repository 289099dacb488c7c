/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP protocol engine of one gateway (RFC 7401 Base Exchange, UPDATE,
 * CLOSE; RFC 7402 ESP for HIP). Plain C with OpenSSL, no DPDK: it takes HIP
 * packets and time in, and gives HIP packets and SA events out through the
 * callbacks in struct hip_io. The control lcore drives it (lib/gw glue); tests
 * drive two engines against each other in one process.
 *
 * Time is a monotonic clock in nanoseconds supplied by the caller.
 */
#ifndef HIPGW_HIP_HOST_H
#define HIPGW_HIP_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_config.h"      /* struct gw_addr */
#include "hip_hi.h"         /* struct hip_hi */

#define HIP_MAX_TRANSFORMS 6
#define HIP_MAX_DH_GROUPS  6
#define HIP_MAX_LOCATORS   4
#define HIP_ESP_KEY_MAX    64

struct hip_host;
struct hip_assoc;           /* one per peer HIT */

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
};

/* Seed paper's BEX times (ns), 0 where this side did not see the step. */
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
	/* Pick an unused inbound SPI (>= 256) for a new SA; 0 = none free. */
	uint32_t (*spi_alloc)(void *ctx);
	/* New SAs are ready (BEX done, or UPDATE rekey): install `in` first,
	 * then switch the peer's outbound traffic to `out` (make-before-break).
	 * `old_in_spi` is the inbound SPI this replaces (0 after a BEX); the
	 * integrator removes it after a grace period. Keys are wiped by the
	 * engine after the call returns. */
	void (*sa_up)(void *ctx, void *peer_user, const struct hip_sa_keys *out,
		      const struct hip_sa_keys *in, uint32_t old_in_spi);
	/* The association is gone (CLOSE, E-FAILED, timeout): remove its SAs. */
	void (*sa_down)(void *ctx, void *peer_user, uint32_t in_spi);
	/* A BEX finished (ok) or failed; times as far as known. */
	void (*bex_done)(void *ctx, void *peer_user, bool ok, const struct hip_bex_times *t);
};

struct hip_host_cfg {
	struct hip_hi *hi;                      /* this gateway's Host Identity (not owned) */
	uint8_t puzzle_k;                       /* initial difficulty, bits */
	uint16_t esp_transforms[HIP_MAX_TRANSFORMS];   /* preference order, RFC 7402 IDs */
	unsigned n_esp_transforms;
	uint8_t dh_groups[HIP_MAX_DH_GROUPS];   /* preference order, RFC 7401 IDs */
	unsigned n_dh_groups;
	uint16_t hip_ciphers[4];                /* HIP_CIPHER IDs, preference order */
	unsigned n_hip_ciphers;
	uint64_t sa_lifetime_ns;                /* rekey after this; 0 = never */
	struct hip_io io;
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

/* The first ESP packet towards the peer left (for the seed paper's times). */
void hip_host_first_esp(struct hip_host *h, void *peer_user, uint64_t now_ns);

/* Send CLOSE to every established peer (shutdown). */
void hip_host_close_all(struct hip_host *h, uint64_t now_ns);

struct hip_host_stats {
	uint64_t rx, tx, dropped;            /* HIP packets */
	uint64_t i1_rx, r1_tx, i2_rx, r2_tx; /* responder side */
	uint64_t bex_ok, bex_failed, updates, closes;
	uint8_t puzzle_k;                    /* current difficulty */
};
void hip_host_stats(const struct hip_host *h, struct hip_host_stats *out);

#endif
