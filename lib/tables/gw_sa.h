/* SPDX-License-Identifier: BSD-3-Clause
 * The data path's view of an SA: the ESP state (lib/esp) plus the policy around
 * it (RFC 4301 section 4.4: SAD and SPD), and the tables that find it:
 *  - SAD: inbound SPI -> SA (rte_hash, lock-free readers);
 *  - SPD: outbound inner destination -> SA or bypass (rte_lpm / rte_lpm6).
 * Written by the control lcore; workers read. Removal (HIP rekeying, later)
 * frees only after an RCU grace period (rte_rcu_qsbr) over all workers.
 */
#ifndef HIPGW_SA_H
#define HIPGW_SA_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>
#include "gw_config.h"
#include "esp.h"

struct gw_sa {
	struct esp_sa *esp;             /* ESP state, owned */
	uint32_t spi;
	enum gw_dir dir;
	/* out: largest inner IP packet (bytes) that fits the outer (path) MTU, and
	 * the TCP MSS clamps for IPv4 / IPv6 inner SYNs (0 = off). The control
	 * lcore changes them on a live SA when its path MTU changes (gw_pmtu.h):
	 * read them with gw_sa_max_inner / gw_sa_mss4 / gw_sa_mss6 */
	uint16_t max_inner;
	uint16_t mss4, mss6;
	/* out, bridge SAs (ESP with etherip): the outer MTU in force, bytes of
	 * outer IP packet (min(port MTU, path MTU)); an ESP packet longer than
	 * that is fragmented after encryption (lib/dp/gw_frag_out.c). 0 on other
	 * SAs: their inner packets are checked against max_inner before ESP
	 * (ICMP, or fragmented by the control lcore). Read with gw_sa_frag_mtu */
	uint16_t frag_mtu;
	uint8_t n_src, n_dst;
	uint8_t bridge;                 /* in: 1 + index into gw_ctx.bridges when the SA
	                                 * carries that bridge's frames, 0: none */
	uint8_t bridge_remote;          /* in, bridge != 0: index into that bridge's
	                                 * remote_slot[] of the site that sends on it */
	int32_t owner;                  /* in: the one worker that runs this SA's packets (its
	                                 * anti-replay window has a single writer), or -1
	                                 * until the first worker that receives it claims it */
	/* in: ok[0 .. n_src) are the accepted inner sources, ok[n_src .. n_src +
	 * n_dst) the accepted inner destinations (gw_sa_src_ok / gw_sa_dst_ok; set
	 * the sources first). Generated SAs ([sa-gen]) are allocated short, with
	 * only the entries they use: for them nothing after those exists. */
	struct gw_prefix ok[2 * GW_CONF_MAX_PREFIXES];
	char name[GW_CONF_NAME_MAX];
	/* GCM nonce state across restarts (out, manual keys); control lcore only */
	char state[GW_CONF_PATH_MAX];
	uint64_t seq_reserved;          /* highest sequence number written to the state file */
	char key_id[17];                /* hex: binds the state file to the key */
	/* in, NAT rebinding (RFC 5770 UDP associations, the public side): the
	 * owner worker posts an authenticated packet that carried the highest
	 * sequence number so far from another address or UDP port than the SA's
	 * path (gw_nat_event); set by the control lcore before the SA is added.
	 * The owner's own record of what it posted last (one post per new path,
	 * again every GW_NAT_REPOST_PACKETS packets from it while unchanged): */
	uint8_t nat_watch;
	uint8_t nat_posted_family;
	uint16_t nat_posted_port;
	uint32_t nat_posted_n;
	uint8_t nat_posted_src[16];
};

/* An out SA's limits (see max_inner), read as the control lcore stores them. Workers. */
static inline uint16_t
gw_sa_max_inner(const struct gw_sa *sa)
{
	return __atomic_load_n(&sa->max_inner, __ATOMIC_RELAXED);
}

static inline uint16_t
gw_sa_frag_mtu(const struct gw_sa *sa)
{
	return __atomic_load_n(&sa->frag_mtu, __ATOMIC_RELAXED);
}

static inline uint16_t
gw_sa_mss4(const struct gw_sa *sa)
{
	return __atomic_load_n(&sa->mss4, __ATOMIC_RELAXED);
}

static inline uint16_t
gw_sa_mss6(const struct gw_sa *sa)
{
	return __atomic_load_n(&sa->mss6, __ATOMIC_RELAXED);
}

static inline const struct gw_prefix *
gw_sa_src_ok(const struct gw_sa *sa)
{
	return sa->ok;
}

static inline const struct gw_prefix *
gw_sa_dst_ok(const struct gw_sa *sa)
{
	return sa->ok + sa->n_src;
}

/* Set an in SA's accepted inner sources (n <= GW_CONF_MAX_PREFIXES), before
 * any destination is added. */
static inline void
gw_sa_set_src(struct gw_sa *sa, const struct gw_prefix *p, unsigned n)
{
	memcpy(sa->ok, p, n * sizeof(*p));
	sa->n_src = (uint8_t)n;
}

/* True when addr (family 4/6, network order) lies in one of the n prefixes. */
static inline bool
gw_prefixes_match(const struct gw_prefix *p, unsigned n, uint8_t family, const uint8_t *addr)
{
	/* masked word compares of the first q->len bits (no memcmp call per packet) */
	if (family == 4) {
		uint32_t a;

		memcpy(&a, addr, 4);
		a = rte_be_to_cpu_32(a);
		for (unsigned i = 0; i < n; i++) {
			const struct gw_prefix *q = &p[i];
			/* the first len bits: (2^64 - 2^32) >> len keeps bits 31..32-len */
			uint32_t b, m = (uint32_t)(0xffffffff00000000ULL >> (q->len & 63));

			memcpy(&b, q->a.addr, 4);
			if (q->a.family == 4 && ((a ^ rte_be_to_cpu_32(b)) & m) == 0)
				return true;
		}
	} else {
		uint64_t a0, a1;

		memcpy(&a0, addr, 8);
		memcpy(&a1, addr + 8, 8);
		a0 = rte_be_to_cpu_64(a0);
		a1 = rte_be_to_cpu_64(a1);
		for (unsigned i = 0; i < n; i++) {
			const struct gw_prefix *q = &p[i];
			unsigned l = q->len;
			uint64_t b0, b1;
			uint64_t m0 = l == 0 ? 0 : l >= 64 ? ~0ULL : ~0ULL << (64 - l);
			uint64_t m1 = l <= 64 ? 0 : ~0ULL << (128 - l);

			memcpy(&b0, q->a.addr, 8);
			memcpy(&b1, q->a.addr + 8, 8);
			if (q->a.family == family &&
			    (((a0 ^ rte_be_to_cpu_64(b0)) & m0) | ((a1 ^ rte_be_to_cpu_64(b1)) & m1)) == 0)
				return true;
		}
	}
	return false;
}

#define GW_SPD_BYPASS   0x1FFFFFu      /* SPD value: forward in clear (rte_lpm6 keeps 21 bits) */
#define GW_SPD_MAX_SA   4096           /* out slots and in SAs */

/* [sa-gen] SAs (lib/lab/gw_sagen_install.c). rte_lpm is not used for their
 * prefixes: rte_lpm_add scans the rules of the same depth linearly, so a
 * million /24 adds take minutes (measured: 50,000 in 1.1 s, 100,000 in 4.1 s).
 * All generated prefixes are /plen networks of one block, so a direct table
 * of the block's networks (what rte_lpm's tbl24 is for /24s) finds them in
 * one read. Written by the control lcore while the workers run: an entry
 * becomes non-zero (release) once its SA is complete; never changes after. */
struct gw_sadb_gen {
	uint32_t count;                 /* SAs per generated direction; 0 = no [sa-gen] */
	uint32_t net, mask;             /* the block, host order */
	uint8_t plen;                   /* length of each SA's prefix */
	struct esp_sa **idx;            /* per /plen network of the block: its out SA's ESP state,
					 * NULL = none (yet) */
	const struct gw_sa *tmpl_out;   /* what every generated out SA shares (MTU, MSS clamp) */
	uint8_t *out, *in;              /* count SAs each (NULL: direction not generated) */
	uint32_t stride_out, stride_in; /* bytes between consecutive SAs */
	size_t idx_bytes, out_bytes, in_bytes;
};

/* The i-th generated SA of a direction. */
static inline struct gw_sa *
gw_sadb_gen_sa(const struct gw_sadb_gen *g, bool out, uint32_t i)
{
	return (struct gw_sa *)(out ? g->out + (size_t)i * g->stride_out
				    : g->in + (size_t)i * g->stride_in);
}

/* SPD result for an inner destination (RFC 4301 section 4.4.1). */
enum gw_spd_action { GW_SPD_DISCARD = 0, GW_SPD_BYPASS_ACT, GW_SPD_PROTECT };

struct gw_sadb {
	struct rte_hash *sad;              /* SPI (host order uint32) -> struct gw_sa * (in SAs) */
	struct rte_lpm *spd4;              /* inner IPv4 destination -> out slot | BYPASS */
	struct rte_lpm6 *spd6;
	/* Out slots: one per manual out SA or per HIP peer. out[slot] is the
	 * slot's current SA (swapped atomically on rekey), NULL while a peer has
	 * no SA yet: the worker then punts the packet to the control lcore. */
	struct gw_sa *out[GW_SPD_MAX_SA];
	void *owner[GW_SPD_MAX_SA];        /* HIP peer handle of a slot, NULL for manual SAs */
	unsigned n_slots;
	struct gw_sa *in[GW_SPD_MAX_SA];   /* live in SAs, for stats; control lcore only */
	unsigned n_in;
	struct rte_rcu_qsbr *rcu;          /* workers report quiescent states here; reader
	                                    * ids 0..workers-1 are the workers, id `workers`
	                                    * is the one non-lcore reader (telemetry) */
	unsigned ext_reader;
	unsigned ctrl_reader;              /* reader id workers + 1: the control lcore while
	                                    * --slow-path frames it stamped are in flight */
	unsigned n_workers;
	bool owner_claim;                  /* in SAs: owner claimed by the first receiving
	                                    * worker (RSS on SPI) instead of gw_spi_owner */
	/* Called by the control lcore before it waits for a grace period itself,
	 * to release its own reader id (slow path); NULL when unused. */
	void (*ctrl_release)(void *arg);
	void *ctrl_release_arg;
	struct rte_rcu_qsbr_dq *dq;        /* out SAs waiting for a grace period before free */
	size_t sad_bytes;                  /* DPDK heap taken by the SAD hash (rte_malloc stats) */
	struct gw_sadb_gen gen;            /* [sa-gen] SAs; gen.count 0 = none */
};

/* Create empty tables for up to max_sa SAs per direction plus gen_in
 * generated in SAs in the SAD ([sa-gen]; sized from the config, so a gateway
 * without one keeps the small tables); `workers` RCU readers plus one for a
 * non-lcore thread (gw_sadb_ext_read_begin). Returns 0 or -1. */
int gw_sadb_init(struct gw_sadb *db, unsigned max_sa, unsigned gen_in, unsigned workers,
		 int socket);
/* Free every SA (keys wiped) and the tables. Workers must have stopped. */
void gw_sadb_free(struct gw_sadb *db);

/* A new out slot for the given inner destination prefixes, with no SA yet;
 * owner is the HIP peer handle (NULL for a manual SA). Returns the slot or -1. */
int gw_sadb_add_slot(struct gw_sadb *db, const struct gw_prefix *dst, unsigned n_dst, void *owner);
/* Make sa (may be NULL) the slot's current out SA. The replaced SA is freed
 * after every worker passed a quiescent state (rte_rcu_qsbr defer queue). */
void gw_sadb_set_out(struct gw_sadb *db, unsigned slot, struct gw_sa *sa);
/* Install an outbound SA for the given prefixes (manual keys): add_slot + set_out. */
int gw_sadb_add_out(struct gw_sadb *db, struct gw_sa *sa,
		    const struct gw_prefix *dst, unsigned n_dst);
/* Install an inbound SA under its SPI. Returns 0 or -1. */
int gw_sadb_add_in(struct gw_sadb *db, struct gw_sa *sa);
/* Remove the inbound SA with this SPI; it is freed after a grace period. */
int gw_sadb_del_in(struct gw_sadb *db, uint32_t spi);
/* A thread other than the workers and the control lcore (the telemetry thread)
 * that reads SA pointers brackets its reads with these: SAs retired meanwhile
 * are not freed before _end. One such thread at a time (callers serialize). */
void gw_sadb_ext_read_begin(struct gw_sadb *db);
void gw_sadb_ext_read_end(struct gw_sadb *db);
/* The worker (0..n_workers-1) that owns the in SA with this SPI when owners
 * are not claimed: a CRC32 of the SPI, so any SPI pattern spreads. */
static inline unsigned
gw_spi_owner(uint32_t spi, unsigned n_workers)
{
	return n_workers <= 1 ? 0 : rte_hash_crc_4byte(spi, 0x9e3779b9u) % n_workers;
}

/* Bytes allocated from the DPDK heaps, all sockets (rte_malloc_get_socket_stats):
 * for memory-per-SA figures. Not for the data path. */
size_t gw_heap_allocated(void);
/* Free what the grace periods allow (call from the control lcore now and then). */
void gw_sadb_reclaim(struct gw_sadb *db);
/* Mark prefixes as bypass (forwarded in clear, inner -> outer only). */
int gw_sadb_add_bypass(struct gw_sadb *db, const struct gw_prefix *p, unsigned n);

/* SPD lookup of an inner destination: DISCARD, BYPASS, or PROTECT with *slot set. */
static inline enum gw_spd_action
gw_spd_lookup4(const struct gw_sadb *db, uint32_t dst_be, uint32_t *slot)
{
	if (rte_lpm_lookup(db->spd4, rte_be_to_cpu_32(dst_be), slot) != 0)
		return GW_SPD_DISCARD;
	return *slot == GW_SPD_BYPASS ? GW_SPD_BYPASS_ACT : GW_SPD_PROTECT;
}

static inline enum gw_spd_action
gw_spd_lookup6(const struct gw_sadb *db, const uint8_t *dst, uint32_t *slot)
{
	if (rte_lpm6_lookup(db->spd6, dst, slot) != 0)
		return GW_SPD_DISCARD;
	return *slot == GW_SPD_BYPASS ? GW_SPD_BYPASS_ACT : GW_SPD_PROTECT;
}

/* [sa-gen] out: true when the IPv4 destination dst_be (network order) lies in
 * the generated block; *esp is then its SA's ESP state and *sa the policy all
 * generated out SAs share, or both NULL while that SA is not installed yet
 * (or was never generated: fail closed). One table read: no per-SA struct
 * gw_sa in the way. Workers. */
static inline bool
gw_sadb_gen_out4(const struct gw_sadb *db, uint32_t dst_be, const struct gw_sa **sa,
		 struct esp_sa **esp)
{
	const struct gw_sadb_gen *g = &db->gen;
	uint32_t d;

	if (likely(g->idx == NULL))
		return false;
	d = rte_be_to_cpu_32(dst_be);
	if ((d & g->mask) != g->net)
		return false;
	*esp = __atomic_load_n(&g->idx[(uint64_t)(d - g->net) >> (32 - g->plen)], __ATOMIC_ACQUIRE);
	*sa = *esp != NULL ? g->tmpl_out : NULL;
	return true;
}

/* Prefetch the lines of an in SA that a packet reads (esp, owner and the
 * accepted prefixes ok[]): a generated SA's own stride, which starts where
 * the table is cache aligned (a 64-byte stride is one line; the next SA's
 * line is never fetched), else its first two lines. Workers. */
static inline void
gw_sadb_prefetch_in(const struct gw_sadb *db, const struct gw_sa *sa)
{
	const struct gw_sadb_gen *g = &db->gen;
	const uint8_t *p = (const uint8_t *)sa;
	uintptr_t q, end;

	if (g->in != NULL && p >= g->in && p < g->in + g->in_bytes)
		end = (uintptr_t)p + g->stride_in - 1;
	else
		end = (uintptr_t)p + 2 * RTE_CACHE_LINE_SIZE - 1;
	for (q = RTE_ALIGN_FLOOR((uintptr_t)p, RTE_CACHE_LINE_SIZE); q <= end; q += RTE_CACHE_LINE_SIZE)
		rte_prefetch0((const void *)q);
}

/* The slot's current out SA, or NULL (no SA yet). Workers. */
static inline struct gw_sa *
gw_sadb_out(struct gw_sadb *db, uint32_t slot)
{
	return __atomic_load_n(&db->out[slot], __ATOMIC_ACQUIRE);
}

/* In SA: accept inner destinations in the inner ports' networks and routes
 * of cfg (RFC 4301 section 5.2 default), appended to sa->ok up to
 * GW_CONF_MAX_PREFIXES. */
void gw_sa_default_dst(const struct gw_config *cfg, struct gw_sa *sa);

#endif
