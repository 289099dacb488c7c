/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <rte_malloc.h>
#include <rte_hash_crc.h>
#include <rte_errno.h>
#include "gw_sa.h"
#include "gw_route.h"

int
gw_sadb_init(struct gw_sadb *db, unsigned max_sa, unsigned workers, int socket)
{
	struct rte_hash_parameters hp = {
		.name = "hipgw_sad",
		.entries = max_sa < 64 ? 64 : max_sa,
		.key_len = sizeof(uint32_t),
		.hash_func = rte_hash_crc,
		.socket_id = socket,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	struct rte_lpm_config c4 = { .max_rules = max_sa * 4 + 64, .number_tbl8s = 1024 };
	struct rte_lpm6_config c6 = { .max_rules = max_sa * 4 + 64, .number_tbl8s = 4096 };
	size_t rcu_sz;

	memset(db, 0, sizeof(*db));
	db->sad = rte_hash_create(&hp);
	db->spd4 = rte_lpm_create("hipgw_spd4", socket, &c4);
	db->spd6 = rte_lpm6_create("hipgw_spd6", socket, &c6);
	rcu_sz = rte_rcu_qsbr_get_memsize(workers);
	db->rcu = rte_zmalloc_socket("hipgw_rcu", rcu_sz, RTE_CACHE_LINE_SIZE, socket);
	if (db->sad == NULL || db->spd4 == NULL || db->spd6 == NULL || db->rcu == NULL ||
	    rte_rcu_qsbr_init(db->rcu, workers) != 0) {
		gw_sadb_free(db);
		return -1;
	}
	return 0;
}

void
gw_sadb_free(struct gw_sadb *db)
{
	for (unsigned i = 0; i < db->n_out; i++) {
		esp_sa_free(db->out[i]->esp);
		rte_free(db->out[i]);
	}
	for (unsigned i = 0; i < db->n_in; i++) {
		esp_sa_free(db->in[i]->esp);
		rte_free(db->in[i]);
	}
	db->n_out = db->n_in = 0;
	rte_hash_free(db->sad);
	rte_lpm_free(db->spd4);
	rte_lpm6_free(db->spd6);
	rte_free(db->rcu);
	db->sad = NULL;
	db->spd4 = NULL;
	db->spd6 = NULL;
	db->rcu = NULL;
}

static int
spd_add(struct gw_sadb *db, const struct gw_prefix *p, uint32_t v)
{
	return gw_lpm_add(db->spd4, db->spd6, p, v);
}

int
gw_sadb_add_out(struct gw_sadb *db, struct gw_sa *sa, const struct gw_prefix *dst, unsigned n_dst)
{
	if (db->n_out == GW_SPD_MAX_SA)
		return -1;
	db->out[db->n_out] = sa;
	for (unsigned i = 0; i < n_dst; i++)
		if (spd_add(db, &dst[i], db->n_out) != 0)
			return -1;
	db->n_out++;
	return 0;
}

int
gw_sadb_add_in(struct gw_sadb *db, struct gw_sa *sa)
{
	uint32_t spi = sa->spi;
	if (db->n_in == GW_SPD_MAX_SA)
		return -1;
	if (rte_hash_add_key_data(db->sad, &spi, sa) < 0)
		return -1;
	db->in[db->n_in++] = sa;
	return 0;
}

int
gw_sadb_add_bypass(struct gw_sadb *db, const struct gw_prefix *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (spd_add(db, &p[i], GW_SPD_BYPASS) != 0)
			return -1;
	return 0;
}
