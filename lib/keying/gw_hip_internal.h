/* SPDX-License-Identifier: BSD-3-Clause
 * HIP keying on the control lcore, shared by its files only: gw_hip.c (the
 * engine's callbacks, the control lcore's hooks, life cycle) and
 * gw_hip_stats.c (its counters for the stats file and telemetry).
 */
#ifndef HIPGW_GW_HIP_INTERNAL_H
#define HIPGW_GW_HIP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gw_keying.h"
#include "hip_host.h"
#include "hip_multihome.h"

#define GW_HIP_STAGE_MAX    32          /* packets / bridge frames staged per peer
					 * while it has no out SA, or is held */
#define GW_HIP_MAX_RETIRE   64          /* replaced in SAs kept at once */

/* What the stats show of a peer's locators (RFC 8046 5.1), copied from the
 * engine on the control lcore every GW_HIP_LOCS_MS, read by telemetry under
 * the sequence count seq (odd while the copy is written). */
struct gw_peer_locs {
	uint32_t seq;
	struct gw_addr local, remote;   /* the outer addresses in use; family 0: none */
	struct hip_locator_info peer[HIP_MAX_LOCATORS];
	unsigned n_peer;
	struct hip_udp udp;             /* over UDP (RFC 5770): our port, the peer's; 0, 0: plain */
};
#define GW_HIP_LOCS_MS 100      /* ms between two copies of the peers' locators */

struct gw_peer {
	struct gw_hip *g;
	const struct gw_conf_peer *conf;
	int slot;                       /* SPD out slot */
	uint32_t in_spi;                /* current in SA, 0 = none */
	struct rte_mbuf *staged[GW_HIP_STAGE_MAX];   /* each with its port in gw_meta */
	unsigned n_staged;
	/* SAs of a Base Exchange installed, the association not yet ESTABLISHED
	 * (the responder in R2-SENT, RFC 7401 4.4.3): the peer may not have its
	 * in SA yet, so the staged packets stay (and more are staged) until
	 * io.established */
	bool held;
	uint64_t staged_total;          /* packets and frames staged, all BEXs */
	uint64_t stage_full;            /* dropped (no_sa): GW_HIP_STAGE_MAX were staged */
	bool awaiting_first_esp;
	uint64_t first_esp_ns;          /* staged packets re-injected: report once the engine returns */
	unsigned bex_ok, bex_failed, rekeys;
	struct hip_bex_times last;      /* last BEX, ns */
	uint32_t ping_req;              /* HIT echo requests asked for (telemetry thread adds) */
	uint16_t echo_seq;
	uint64_t hit_echo_tx;           /* echo requests sent to the peer's HIT (BEET) */
	uint64_t hit_echo_rx;           /* echo replies received from it */
	uint64_t hit_echo_answered;     /* its echo requests to our HIT answered */
	uint64_t ping_log_ns;           /* last "HIT ping without SAs" log line */
	uint64_t unknown_spi_bex;       /* BEXs started by ESP for an unknown SPI from it */
	uint64_t path_moves;            /* io.path calls for it: its out SA moved (RFC 8046) */
	uint64_t nat_rebinds;           /* its path moved to a new NAT mapping (RFC 5770) */
	struct gw_peer_locs locs;       /* its locators for the stats (gw_hip_mob.c) */
	/* multihoming (gw_hip_mh.c, RFC 8047): its paths, control lcore only,
	 * and their copy for telemetry under mh_seq (odd while written) */
	struct hip_mh_set mh;
	bool mh_announced;              /* our LOCATOR_SET of every uplink sent since ESTABLISHED */
	uint32_t mh_seq;
	struct hip_mh_set mh_copy;
};

struct retire {                  /* an in SA replaced by a rekey, kept a while */
	uint32_t spi;
	uint64_t when_ns;
	const struct gw_peer *peer;     /* whose: its CLOSE deletes it at once */
};

struct gw_hip {
	struct gw_ctx *ctx;
	struct gw_ctrl *ctrl;
	struct hip_hi hi;
	struct hip_host *host;
	struct gw_peer *peers;
	unsigned n_peers;
	struct retire retire[GW_HIP_MAX_RETIRE];
	unsigned n_retire;
	bool closing;                   /* shutdown: keep SAs (and their counters) for the stats */
	FILE *keylog;                   /* --keylog stream (owned by the caller), or NULL */
	uint64_t drop_log_since;        /* start of the current drop-log second */
	unsigned drop_log_n;            /* drops logged in it */
	uint64_t drop_log_skipped;      /* drops not logged in it */
	uint64_t locator_changes;       /* our address changes handed to the engine */
	uint64_t locs_ns;               /* last copy of the peers' locators */
	struct rte_ring *nat_ring;      /* the workers' rebinding events (gw_ctx.nat_ring) */
	uint64_t nat_rebinds;           /* NAT rebindings: peers' paths moved (gw_hip_nat.c) */
	uint64_t nat_rebind_stale;      /* events that moved nothing: SA gone, path already there */
	struct gw_hip_mh *mh;           /* multihoming: two or more uplinks; NULL: off */
};

/* " I1->R1 0.221 ms, I2->R2 0.824 ms" (the BEX steps of t this side timed,
 * ns in t) into buf of len bytes, for the log (gw_hip_stats.c). */
void gw_hip_bex_times_text(const struct hip_bex_times *t, char *buf, size_t len);

/* CLOCK_MONOTONIC in ns (the engine's clock). */
uint64_t gw_hip_now_ns(void);
/* Count m as dropped for reason on this lcore and free it. */
void gw_hip_count_drop(struct rte_mbuf *m, enum gw_drop reason);
/* BEET (gw_hip_beet.c): the hook for a packet an SA delivered in BEET (m at
 * its rebuilt IPv6 header, consumed), and the HIT pings telemetry asked for,
 * sent from the control lcore (now: gw_hip_now_ns). */
void gw_hip_beet_input(void *arg, struct rte_mbuf *m);
void gw_hip_hit_ping_run(struct gw_hip *g, uint64_t now);
/* Mobility (gw_hip_mob.c, RFC 8046): io.path (move a peer's out SA to new
 * outer addresses), the address hook's subscription and multihoming's
 * set-up (0 or -1), multihoming's tick and the copy of the peers'
 * locators for the stats every GW_HIP_LOCS_MS (now: ns), and one
 * peer's locators into the current object of a stats sink. */
void gw_hip_io_path(void *arg, void *user, const struct gw_addr *local, const struct gw_addr *remote);
int gw_hip_mob_init(struct gw_hip *g);
void gw_hip_mob_tick(struct gw_hip *g, uint64_t now);
struct gw_stat_sink;
void gw_hip_locs_emit(const struct gw_peer *p, struct gw_stat_sink *s);
/* NAT traversal (gw_hip_nat.c, RFC 5770): io.send_udp (IP / UDP / non-ESP
 * marker / HIP, to the control lcore's IP send); the HIP of a punted UDP
 * datagram m (l3 its IP header of hl bytes, tl the IP length, bytes) into
 * the engine, returning hip_host_input_udp's result; each [peer]'s nat and
 * nat-keepalive given to the engine (0 or -1). */
void gw_hip_io_send_udp(void *arg, const struct gw_addr *src, const struct gw_addr *dst,
			const struct hip_udp *udp, const uint8_t *pkt, size_t len);
struct rte_mbuf;
int gw_hip_nat_input(struct gw_hip *g, struct rte_mbuf *m, const uint8_t *l3, uint32_t hl,
		     uint32_t tl, const struct gw_addr *src, const struct gw_addr *dst);
int gw_hip_nat_setup(struct gw_hip *g);
/* NAT rebinding (RFC 5770, the public side): whether the in SA of keys k of
 * peer p is watched (over UDP, the peer the initiator: it may sit behind a
 * NAT); the control lcore's drain of the workers' events (at most 32 a tick), which
 * moves the peer's out SA, in SA path and engine path to an authenticated
 * new source. */
bool gw_hip_nat_watch(struct gw_peer *p, const struct hip_sa_keys *k);
void gw_hip_nat_tick(struct gw_hip *g);
/* Multihoming (gw_hip_mh.c, RFC 8047), with two or more outer ports that
 * have uplink-preference (else all of these do nothing): set up (0, or -1
 * out of memory), the control lcore's tick (links polled, paths probed,
 * failover; now: ns), our locators after an address change (every
 * uplink's, to the engine), a probe answer from p over uplink port
 * rx_port, and one peer's paths into the current object of a stats sink. */
int gw_hip_mh_init(struct gw_hip *g);
void gw_hip_mh_free(struct gw_hip *g);
void gw_hip_mh_tick(struct gw_hip *g, uint64_t now);
bool gw_hip_mh_locators(struct gw_hip *g, uint64_t now);
void gw_hip_mh_answer(struct gw_peer *p, uint32_t seq, const struct gw_addr *local,
		      const struct gw_addr *remote, unsigned rx_port);
void gw_hip_mh_emit(const struct gw_peer *p, struct gw_stat_sink *s);
/* A multihoming probe (gw_hip_beet.c): seq over p's out SA with outer
 * addresses local -> remote, out of port `port` to next hop via (NULL:
 * on-link). 0, or -1 (no out SA, UDP-encapsulated, no mbuf; counted). */
int gw_hip_mh_probe_send(struct gw_peer *p, const struct gw_addr *local, const struct gw_addr *remote,
			 unsigned port, const struct gw_addr *via, uint32_t seq);

#endif
