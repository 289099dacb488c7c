/* SPDX-License-Identifier: BSD-3-Clause
 * A test harness for the HIP engine (lib/hip, hip_host.h): up to HH_SIDES
 * engines in one process, joined back to back by a simulated wire, with a
 * virtual clock. Used by the unit tests (tests/unit/test_hip_*.c), the test
 * vector generator (tests/vectors), the engine's fuzz harness (tests/fuzz)
 * and, for the engine configuration alone, perf/bex_load.c.
 *
 * A world (struct hh_world) holds the sides (one engine each, or a hand-made
 * peer: an address and an HI, no engine), the wire (a queue of the packets
 * the engines sent, delivered when the caller says so, in any order, lost,
 * changed or duplicated), and the clock (ns, hh_world.now). The engines'
 * callbacks (struct hip_io) are the harness's: they record what the engine
 * handed over in struct hh_side and check the invariants every engine keeps
 * (each packet sent is a valid HIP packet from the engine's address and HIT
 * with a good checksum; every SA handed over has a non-zero SPI and the key
 * lengths of its ESP transform, RFC 7402 section 7; sa_down only for an
 * inbound SPI handed over and not yet taken back; established only while
 * one is handed over and not taken back; derived values of the
 * test-vector mode fit their buffers). A broken invariant, or a harness call
 * that cannot do what it is asked (engine creation, hip_host_add_peer), calls
 * hh_world.fail with a message: it must not return (cmocka's fail_msg, exit,
 * abort; abort() when it is NULL or returns).
 *
 * Time is never read from a real clock: hh_advance moves hh_world.now and
 * ticks the engines, so a run replays exactly with a deterministic RNG.
 */
#ifndef HIPGW_TESTS_HIP_HARNESS_H
#define HIPGW_TESTS_HIP_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hip_host.h"
#include "hip_dh.h"
#include "hip_hit.h"
#include "hip_wire.h"

#define HH_SIDES        3        /* engines (or hand-made peers) in a world */
#define HH_WIRE_MAX     256      /* packets the wire holds at once */
#define HH_SPIS_MAX     64       /* inbound SPIs of one side handed over at once */
#define HH_KEYMAT_MAX   1024     /* bytes of a reported KEYMAT kept */
#define HH_DOWN_SPIS    4        /* first sa_down SPIs kept per side */
#define HH_NS_PER_MS    (1000ull * 1000)
#define HH_T0_NS        (1000 * HH_NS_PER_MS)  /* hh_world.now after hh_reset */
#define HH_RUN_STEP_MS  10       /* hh_run: deliver, then advance this much */
#define HH_DELIVER_MAX  1000     /* hh_deliver_all: packets at most per call */
#define HH_LOST         1        /* hh_deliver_at: the packet reached no engine */

struct hh_world;

/* One packet on the wire: bytes from the HIP header on, as the engine sent
 * them from locator src to locator dst (side indexes from and to; to is -1
 * when no side has that address). */
struct hh_pkt {
	int from, to;
	struct gw_addr src, dst;
	struct hip_udp udp;                /* over UDP: the sender's port, the receiver's; 0, 0: plain */
	size_t len;                        /* bytes */
	uint8_t b[HIP_PACKET_MAX];
};

/* What an engine is made with (hh_cfg_fill, hh_side_up). */
struct hh_params {
	uint8_t groups[HIP_MAX_DH_GROUPS]; /* DH group IDs (RFC 7401 5.2.7), preference order */
	unsigned ng;
	uint16_t esp[HIP_MAX_TRANSFORMS];  /* ESP transform suite IDs (RFC 7402 5.1.2) */
	unsigned ne;
	uint16_t ciph[4];                  /* HIP_CIPHER IDs (RFC 7401 5.2.8) */
	unsigned nc;
	uint8_t k;                         /* puzzle difficulty, bits */
	uint64_t life;                     /* SA lifetime, ns; 0 = never rekey */
	uint32_t r1_rate;                  /* R1s per second at most; 0 = no limit */
	bool v6;                           /* IPv6 outer addresses (hh_addr), else IPv4 */
	bool det;                          /* deterministic RNG: hh_rng_xorshift */
	bool no_in_up;                     /* no io.sa_in_up callback */
	bool udp;                          /* io.send_udp set: HIP over UDP (RFC 5770) */
	/* another deterministic RNG (hip_host_cfg.rng); overrides det */
	int (*rng)(void *ctx, uint8_t *buf, size_t len);
	void *rng_ctx;
	uint32_t first_spi;                /* first inbound SPI; 0 = 0x1000 * (side + 1) */
};

/* One engine and what its callbacks saw. */
struct hh_side {
	struct hh_world *w;
	int idx;
	struct hip_hi *hi;                 /* not owned */
	struct hip_host *h;                /* NULL: hand-made peer */
	struct gw_addr addr;               /* its outer address: it sends from it */
	struct gw_addr alias;              /* another it still receives on (hh_move), family 0: none */
	uint32_t next_spi;                 /* what io.spi_alloc returns next */
	uint64_t rng;                      /* hh_rng_xorshift state */
	unsigned sent;                     /* packets sent */
	unsigned sa_up_n, sa_in_up_n, sa_down_n, bex_ok_n, bex_fail_n;
	unsigned sa_up_at_r2;              /* sa_up calls before its last R2 left */
	unsigned sa_up_ev, sa_in_up_ev;    /* hh_world.ev of the last sa_up / sa_in_up */
	unsigned established_n;            /* io.established calls */
	unsigned path_n;                   /* io.path calls */
	struct gw_addr path_local, path_remote;  /* of the last io.path */
	unsigned established_ev;           /* hh_world.ev of the last one */
	struct hip_sa_keys out, in;        /* of the last sa_up */
	struct hip_sa_keys early_in;       /* of the last sa_in_up */
	uint32_t old_in;                   /* old_in_spi of the last sa_up */
	uint32_t down_spi[HH_DOWN_SPIS];   /* the first sa_down SPIs */
	struct hip_bex_times t;            /* of the last bex_done */
	uint32_t spis[HH_SPIS_MAX];        /* inbound SPIs handed over, not taken back */
	unsigned n_spis;
	/* test-vector values (hip_host_cfg.vector), last of each */
	unsigned nvec;                     /* vector calls */
	uint8_t kij[HIP_DH_SECRET_MAX], keymat[HH_KEYMAT_MAX];
	uint8_t vi[HIP_RHASH_MAX], vj[HIP_RHASH_MAX];
	uint8_t ukij[HIP_DH_SECRET_MAX], ukeymat[HH_KEYMAT_MAX];
	size_t kij_len, keymat_len, vi_len, vj_len, ukij_len, ukeymat_len;   /* bytes */
};

/* Optional hooks, called after the harness's own bookkeeping. */
struct hh_hooks {
	/* a packet sent (p->to -1: to no side); false: not queued */
	bool (*send)(struct hh_side *s, const struct hh_pkt *p);
	void (*sa_up)(struct hh_side *s, void *peer_user, const struct hip_sa_keys *out,
		      const struct hip_sa_keys *in, uint32_t old_in_spi);
	void (*vector)(struct hh_side *s, const char *name, const uint8_t *v, size_t len);
};

struct hh_world {
	struct hh_side s[HH_SIDES];
	struct hh_pkt q[HH_WIRE_MAX];      /* the wire, in send order */
	unsigned qn;
	unsigned cap;                      /* packets queued at most (<= HH_WIRE_MAX); more are lost */
	uint64_t now;                      /* virtual clock, ns */
	unsigned ev;                       /* sa_up / sa_in_up / established event counter */
	/* at delivery: returns 1 to lose the packet; may change it */
	int (*filter)(struct hh_pkt *p);
	int last_rc;                       /* hip_host_input of the last packet delivered */
	struct hh_hooks hooks;
	void (*fail)(const char *msg);
};

/* ---- pieces usable without a world ---- */

/* The bytes of file `path`, NUL-terminated (free()), their count in *len;
 * NULL (errno set) when it cannot be read whole. */
char *hh_read_file(const char *path, size_t *len);

/* Load a private Host Identity from `path` through a mode-0600 copy in a
 * fresh directory under /tmp (hip_hi_load refuses a key file others may
 * read; git checks files out 0644). With pem non-NULL, *pem gets the file's
 * bytes, NUL-terminated (free()), and *pem_len their count. Returns 0, or -1
 * with a message in err. */
int hh_key_load(const char *path, struct hip_hi *hi, char **pem, size_t *pem_len,
		char *err, size_t errlen);

/* hh_key_load of the file `name` in directory `dir` into *hi; a key that
 * cannot be loaded is w's failure (hh_world.fail; abort() when w is NULL
 * or has none). */
void hh_key(struct hh_world *w, const char *dir, const char *name, struct hip_hi *hi);

/* The outer address of side idx: 192.0.2.(idx + 1) (RFC 5737) or
 * 2001:db8::(idx + 1) (RFC 3849). */
void hh_addr(struct gw_addr *a, bool v6, int idx);

/* xorshift64*: the deterministic RNG of the test-vector mode
 * (hip_host_cfg.rng; ctx: a uint64_t state, non-zero). Returns 0. */
int hh_rng_xorshift(void *ctx, uint8_t *buf, size_t len);
/* The xorshift state hh_side_up gives side idx. */
uint64_t hh_rng_seed(int idx);

/* Fill what *c needs beyond io and vector from *p (hi, puzzle K, groups,
 * transforms, ciphers, lifetime, R1 rate, p->rng): the rest of *c is left as
 * it is. */
void hh_cfg_fill(struct hip_host_cfg *c, struct hip_hi *hi, const struct hh_params *p);

/* HIP packet b[0..n) as RFC 5770 puts it in UDP, into u (room for n + 12
 * bytes): the UDP header (sport -> dport, host order; length; checksum
 * with src and dst's pseudo header, RFC 768 / RFC 8200 8.1, a sum of 0 sent
 * as 0xffff, left 0 when the datagram is over 65535 bytes), the 32-bit zero
 * non-ESP marker, then b with its HIP checksum 0 as RFC 5770 senders set
 * it. Returns the datagram's length, bytes. */
size_t hh_udp_wrap(const struct gw_addr *src, const struct gw_addr *dst, uint16_t sport,
		   uint16_t dport, const uint8_t *b, size_t n, uint8_t *u);

/* ---- a world ---- */

/* Empty world: no sides, empty wire, clock HH_T0_NS, hooks copied (NULL:
 * none), fail (NULL: abort). */
void hh_world_init(struct hh_world *w, const struct hh_hooks *hooks, void (*fail)(const char *msg));
/* Empty the wire, clock back to HH_T0_NS, events 0, no filter; sides kept. */
void hh_reset(struct hh_world *w);
/* Side idx (< HH_SIDES) with a new engine for hi (not owned) made with *p,
 * its callbacks the harness's; the side's record starts empty. An engine
 * the side had before must have been freed (hip_host_free) by the caller. */
void hh_side_up(struct hh_world *w, int idx, struct hip_hi *hi, const struct hh_params *p);
/* Side idx as a hand-made peer: only the address (hh_addr) and the HI. */
void hh_side_hand(struct hh_world *w, int idx, struct hip_hi *hi, bool v6);
/* Side idx's outer address becomes *to (packets to it reach the side);
 * with keep_old the former one still receives (make-before-break), else
 * packets to it are lost. The engine is not told: hip_host_set_locators. */
void hh_move(struct hh_world *w, int idx, const struct gw_addr *to, bool keep_old);

/* Side a declares side b as its peer (user handle &w->s[b], b's address). */
void hh_know(struct hh_world *w, int a, int b);
/* hh_reset, sides 0 and 1 up with *p (his a and b), each the other's peer. */
void hh_pair_up(struct hh_world *w, struct hip_hi *a, struct hip_hi *b, const struct hh_params *p);
/* Free every engine, forget the sides, empty the wire, no filter. */
void hh_down(struct hh_world *w);

/* HIP packet type of a queued packet. */
uint8_t hh_ptype(const struct hh_pkt *p);
/* Offset of the first parameter of `type` in b[0..len), 0 when absent. */
size_t hh_find_param(const uint8_t *b, size_t len, uint16_t type);
/* Checksum of p for its src / dst again. Returns 0, or -1 (family). */
int hh_fix_cksum(struct hh_pkt *p);

/* Take q[i] off the wire into *out (NULL: drop it). Returns false when i is
 * past the end. */
bool hh_take(struct hh_world *w, unsigned i, struct hh_pkt *out);
/* Take q[i] off the wire and, unless the filter loses it, give it to the
 * engine of its side at hh_world.now. Returns hip_host_input's result (also
 * in last_rc), or HH_LOST when it reached no engine (lost, hand-made peer,
 * no side). */
int hh_deliver_at(struct hh_world *w, unsigned i);
/* Queue *p last on the wire and deliver it now (hh_deliver_at). */
int hh_inject(struct hh_world *w, const struct hh_pkt *p);
/* Deliver the wire in order, what the engines answer too, up to
 * HH_DELIVER_MAX packets. Returns how many were delivered. */
unsigned hh_deliver_all(struct hh_world *w);
/* Deliver the first queued packet of HIP packet `type`; false when none. */
bool hh_deliver_type(struct hh_world *w, uint8_t type);
/* Clock forward by ns, then every engine's hip_host_tick. */
void hh_advance(struct hh_world *w, uint64_t ns);
/* For ms of virtual time: deliver everything, advance HH_RUN_STEP_MS, ...;
 * then deliver everything once more. */
void hh_run(struct hh_world *w, unsigned ms);

/* The state side a's engine has for side b (hip_host_peer_info). */
enum hip_state hh_state(struct hh_world *w, int a, int b);
/* hip_host_peer_info of side a's engine for side b. */
struct hip_peer_info hh_peer(struct hh_world *w, int a, int b);
/* The counters of side a's engine (hip_host_stats). */
struct hip_host_stats hh_stats(struct hh_world *w, int a);

#endif
