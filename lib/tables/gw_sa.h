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
	for (unsigned i = 0; i < n; i++) {
		const struct gw_prefix *q = &p[i];
		unsigned bits = q->len, full = bits / 8, rem = bits % 8;
		if (q->a.family != family)
			continue;
		if (memcmp(q->a.addr, addr, full) != 0)
			continue;
		if (rem != 0 && ((q->a.addr[full] ^ addr[full]) & (uint8_t)(0xff << (8 - rem))) != 0)
			continue;
		return true;
	}
	return false;
}

#define GW_SPD_BYPASS   0x1FFFFFu      /* SPD value: forward in clear (rte_lpm6 keeps 21 bits) */
#define GW_SPD_MAX_SA   4096

struct gw_sadb {
	struct rte_hash *sad;              /* SPI (host order uint32) -> struct gw_sa * (in SAs) */
	struct rte_lpm *spd4;              /* inner IPv4 destination -> out SA index | BYPASS */
	struct rte_lpm6 *spd6;
	struct gw_sa *out[GW_SPD_MAX_SA];  /* SPD values index this */
	unsigned n_out;
	struct gw_sa *in[GW_SPD_MAX_SA];
	unsigned n_in;
	struct rte_rcu_qsbr *rcu;          /* workers report quiescent states here */
};

/* Create empty tables for up to max_sa SAs per direction; `workers` RCU readers.
 * Returns 0 or -1. */
int gw_sadb_init(struct gw_sadb *db, unsigned max_sa, unsigned workers, int socket);
/* Free every SA (keys wiped) and the tables. */
void gw_sadb_free(struct gw_sadb *db);

/* Install an outbound SA for the given inner destination prefixes. Returns 0 or -1. */
int gw_sadb_add_out(struct gw_sadb *db, struct gw_sa *sa,
		    const struct gw_prefix *dst, unsigned n_dst);
/* Install an inbound SA under its SPI. Returns 0 or -1. */
int gw_sadb_add_in(struct gw_sadb *db, struct gw_sa *sa);
/* Mark prefixes as bypass (forwarded in clear, inner -> outer only). */
int gw_sadb_add_bypass(struct gw_sadb *db, const struct gw_prefix *p, unsigned n);

/* SPD lookup: out SA, or NULL with *bypass set when the destination is bypassed
 * (and clear when neither: drop as policy). */
static inline struct gw_sa *
gw_spd_lookup4(const struct gw_sadb *db, uint32_t dst_be, bool *bypass)
{
	uint32_t v;
	*bypass = false;
	if (rte_lpm_lookup(db->spd4, rte_be_to_cpu_32(dst_be), &v) != 0)
		return NULL;
	if (v == GW_SPD_BYPASS) {
		*bypass = true;
		return NULL;
	}
	return db->out[v];
}

static inline struct gw_sa *
gw_spd_lookup6(const struct gw_sadb *db, const uint8_t *dst, bool *bypass)
{
	uint32_t v;
	*bypass = false;
	if (rte_lpm6_lookup(db->spd6, dst, &v) != 0)
		return NULL;
	if (v == GW_SPD_BYPASS) {
		*bypass = true;
		return NULL;
	}
	return db->out[v];
}

#endif
