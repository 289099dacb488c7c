/* SPDX-License-Identifier: BSD-3-Clause
 * Host multihoming (RFC 8047): the paths towards one HIP peer and which one
 * carries its SAs. Plain C, no DPDK, no I/O: the integrator gives it our
 * locators (each on an outer port with a preference), the peer's locators,
 * the time and the link and probe events; it calls back to send a probe and
 * to move the SAs to another path.
 *
 * A path is a (our locator, peer locator) pair of one address family
 * (RFC 8047 section 4.1: a multihomed host may use any of its locators with
 * any verified locator of its peer, the same SAs on each; section 4.3,
 * dual host multihoming: every such pair). Paths are ranked by the port
 * preference of our locator (lower first), then by the peer locator's place
 * in its LOCATOR_SET, then by our locator's order. How a pair is found to
 * fail is this gateway's choice (no HIP message of RFC 8047 is for it):
 * each path is probed every interval and its state follows:
 *
 *   state    entered when                         probes  may carry the SAs
 *   unknown  made, or its port's link came back   yes     only if in use already
 *   up       a probe of this path was answered     yes     yes
 *   down     `misses` probes in a row unanswered,  yes, or no while its
 *            or its port's link went down          link is down
 *
 * The path in use (active) moves (failover) when it goes down: to the best
 * ranked path that is up. It moves back (failback) to a better ranked path
 * only once that one has answered every probe for `hysteresis_ns`: a path
 * that flaps does not pull the traffic back and forth. A probe answer
 * counts only for the probe last sent on that path (its sequence number
 * and outer addresses): late, unknown or misrouted answers are stale.
 *
 * Time is a monotonic clock in ns supplied by the caller.
 */
#ifndef HIPGW_HIP_MULTIHOME_H
#define HIPGW_HIP_MULTIHOME_H

#include <stdbool.h>
#include <stdint.h>

#include "gw_limits.h"
#include "gw_types.h"

#define HIP_MH_LOCAL_MAX   4                          /* our locators (uplinks) */
#define HIP_MH_PEER_MAX    GW_PEER_LOCATORS_MAX       /* the peer's locators */
#define HIP_MH_PATHS_MAX   (HIP_MH_LOCAL_MAX * HIP_MH_PEER_MAX)
#define HIP_MH_MISSES_DEFAULT        3
#define HIP_MH_INTERVAL_NS_DEFAULT   (1000ull * 1000 * 1000)
#define HIP_MH_HYSTERESIS_NS_DEFAULT (5000ull * 1000 * 1000)
/* a probe unanswered for interval / HIP_MH_TIMEOUT_DIV is lost (its answer
 * later is stale): half an interval, far above a WAN round trip at the
 * default 1 s, and a loss is seen half an interval sooner */
#define HIP_MH_TIMEOUT_DIV           2

enum hip_mh_state {
	HIP_MH_UNKNOWN = 0,
	HIP_MH_UP,
	HIP_MH_DOWN,
};
const char *hip_mh_state_name(enum hip_mh_state st);

/* One of our locators: its address, the outer port it is on, and the
 * port's preference (lower = preferred). */
struct hip_mh_local {
	struct gw_addr addr;
	uint16_t port;
	uint8_t pref;
};

struct hip_mh_path {
	struct gw_addr local, remote;    /* outer addresses: ours, the peer's */
	uint16_t port;                   /* our outer port */
	uint8_t pref;                    /* its preference */
	uint8_t peer_rank;               /* the peer locator's place, 0 first */
	enum hip_mh_state state;
	bool link_down;                  /* the port's link is down: no probes */
	bool probe_out;                  /* probe_seq sent, not answered yet */
	uint8_t misses;                  /* probes unanswered in a row */
	uint32_t probe_seq;
	uint64_t probe_sent_ns;
	uint64_t rtt_ns;                 /* of the last answered probe; 0 none */
	bool answering;                  /* every probe answered since answering_since_ns */
	uint64_t answering_since_ns;     /* send time of the current run's first answered probe */
};

struct hip_mh_stats {
	uint64_t probes_tx;      /* probes sent (send callback called) */
	uint64_t probes_ok;      /* answered in time (before the next probe of the path) */
	uint64_t probes_lost;    /* unanswered when the next one was due, or its link went down */
	uint64_t probe_stale;    /* answers ignored: unknown sequence, late, or wrong addresses */
	uint64_t path_up;        /* paths that became up */
	uint64_t path_down;      /* paths that became down */
	uint64_t failovers;      /* moves off a path that went down (or off none in the set) */
	uint64_t failbacks;      /* moves back to a better ranked path after the hysteresis */
};

struct hip_mh_cfg {
	uint64_t interval_ns;    /* between probes of a path; 0 = HIP_MH_INTERVAL_NS_DEFAULT */
	uint8_t misses;          /* unanswered in a row -> down; 0 = HIP_MH_MISSES_DEFAULT */
	uint64_t hysteresis_ns;  /* answering this long before a failback (0 = at once) */
	void *ctx;
	/* Send one probe with sequence number seq over path p (its outer
	 * addresses and port). Returns 0, or -1 when it could not go out (it
	 * counts as sent and unanswered all the same). */
	int (*send)(void *ctx, void *user, const struct hip_mh_path *p, uint32_t seq);
	/* Move the peer's SAs to path p (failover or failback). */
	void (*move)(void *ctx, void *user, const struct hip_mh_path *p);
};

/* The paths towards one peer. Zero it, then hip_mh_init. */
struct hip_mh_set {
	struct hip_mh_cfg cfg;
	void *user;                      /* the integrator's peer handle, passed back */
	struct hip_mh_path path[HIP_MH_PATHS_MAX];
	unsigned n;
	int active;                      /* index in path[], -1 none */
	uint32_t next_seq;
	uint64_t next_probe_ns;          /* 0: at the next tick */
	struct hip_mh_stats st;
};

/* Set up an empty path set with cfg (copied; zero fields take their
 * defaults) for the peer handle `user`. */
void hip_mh_init(struct hip_mh_set *s, const struct hip_mh_cfg *cfg, void *user);

/* The path set from our locators our[0..n_our) and the peer's
 * peer[0..n_peer) (its LOCATOR_SET order, RFC 8046 section 4): one path per
 * pair of one family, ranked as above. A path that existed before keeps its
 * state and probe bookkeeping. The active path becomes the pair
 * (cur_local, cur_remote), the addresses the SAs use now, or none when no
 * pair matches. Returns the number of paths, or -1 for bad arguments
 * (n_our > HIP_MH_LOCAL_MAX, n_peer > HIP_MH_PEER_MAX; nothing changed). */
int hip_mh_set_paths(struct hip_mh_set *s, const struct hip_mh_local *our, unsigned n_our,
		     const struct gw_addr *peer, unsigned n_peer,
		     const struct gw_addr *cur_local, const struct gw_addr *cur_remote);

/* Timers: a probe not answered within interval_ns / HIP_MH_TIMEOUT_DIV
 * counts as lost (misses in a row make its path down); every interval_ns
 * each path whose link is not down gets a new probe (cfg.send). At every call the active path is
 * re-chosen (failover, failback; cfg.move). Call every few ms or at least once per
 * interval. */
void hip_mh_tick(struct hip_mh_set *s, uint64_t now_ns);

/* A probe answer with sequence number seq came in from `remote` to `local`
 * (the reverse of the path probed). Returns the path's index (its RTT, now
 * minus the send time, recorded; the path up), or -1 when it matches no
 * probe outstanding with those addresses (probe_stale counted). */
int hip_mh_probe_answer(struct hip_mh_set *s, uint32_t seq, const struct gw_addr *local,
			const struct gw_addr *remote, uint64_t now_ns);

/* The link of outer port `port` went down (up = false) or came back. Down:
 * its paths are down at once (an outstanding probe counts as lost) and the
 * active one fails over now. Up: its paths become unknown and are probed
 * again from the next tick. Returns the number of paths on that port. */
int hip_mh_link(struct hip_mh_set *s, uint16_t port, bool up, uint64_t now_ns);

/* The active path, or NULL. */
const struct hip_mh_path *hip_mh_active(const struct hip_mh_set *s);

#endif
