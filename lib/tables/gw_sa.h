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
#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_rcu_qsbr.h>
#include "gw_config.h"
#include "esp.h"

struct gw_sa {
	struct esp_sa *esp;             /* ESP state, owned */
	uint32_t spi;
	enum gw_dir dir;
	uint16_t max_inner;             /* out: largest inner IP packet (bytes) that fits the outer MTU */
	uint16_t mss4, mss6;            /* out: TCP MSS clamp for IPv4 / IPv6 inner SYNs; 0 = off */
	uint8_t n_src, n_dst;
	struct gw_prefix src_ok[GW_CONF_MAX_PREFIXES];  /* in: accepted inner sources */
	struct gw_prefix dst_ok[GW_CONF_MAX_PREFIXES];  /* in: accepted inner destinations */
	char name[GW_CONF_NAME_MAX];
	/* GCM nonce state across restarts (out, manual keys); control lcore only */
	char state[GW_CONF_PATH_MAX];
	uint64_t seq_reserved;          /* highest sequence number written to the state file */
	char key_id[17];                /* hex: binds the state file to the key */
};

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
	struct rte_rcu_qsbr *rcu;          /* workers report quiescent states here */
	struct rte_rcu_qsbr_dq *dq;        /* out SAs waiting for a grace period before free */
};

/* Create empty tables for up to max_sa SAs per direction; `workers` RCU readers.
 * Returns 0 or -1. */
int gw_sadb_init(struct gw_sadb *db, unsigned max_sa, unsigned workers, int socket);
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

/* The slot's current out SA, or NULL (no SA yet). Workers. */
static inline struct gw_sa *
gw_sadb_out(struct gw_sadb *db, uint32_t slot)
{
	return __atomic_load_n(&db->out[slot], __ATOMIC_ACQUIRE);
}

#endif
