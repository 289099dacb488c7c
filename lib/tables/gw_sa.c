/* SPDX-License-Identifier: BSD-3-Clause
 * SAD and SPD with lock-free readers: the control lcore writes, workers read,
 * and removed SAs are freed only after every worker passed a quiescent state
 * (rte_rcu_qsbr: the hash's own defer queue for in SAs, ours for out SAs).
 */
#include <string.h>
#include <rte_malloc.h>
#include <rte_hash_crc.h>
#include <rte_errno.h>
#include "gw_sa.h"
#include "gw_route.h"

static void
sa_release(struct gw_sa *sa)
{
	if (sa == NULL)
		return;
	esp_sa_free(sa->esp);     /* wipes keys */
	rte_free(sa);
}

/* rte_rcu_qsbr defer queue callback: e points at one struct gw_sa pointer. */
static void
dq_free_out(void *p, void *e, unsigned int n)
{
	(void)p;
	for (unsigned i = 0; i < n; i++) {
		struct gw_sa *sa;
		memcpy(&sa, (uint8_t *)e + i * sizeof(sa), sizeof(sa));
		sa_release(sa);
	}
}

/* rte_hash RCU callback after a deleted key's grace period: free the in SA. */
static void
hash_free_in(void *p, void *key_data)
{
	(void)p;
	sa_release(key_data);
}

size_t
gw_heap_allocated(void)
{
	size_t n = 0;

	for (unsigned s = 0; s < rte_socket_count(); s++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(s), &st) == 0)
			n += st.heap_allocsz_bytes;
	}
	return n;
}

int
gw_sadb_init(struct gw_sadb *db, unsigned max_sa, unsigned gen_in, unsigned workers, int socket)
{
	/* generated in SAs: a quarter more room, the cuckoo hash fills up before 100 % */
	uint64_t entries = (uint64_t)(max_sa < 64 ? 64 : max_sa) + gen_in + gen_in / 4;
	struct rte_hash_parameters hp = {
		.name = "hipgw_sad",
		.entries = (uint32_t)entries,
		.key_len = sizeof(uint32_t),
		.hash_func = rte_hash_crc,
		.socket_id = socket,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	struct rte_lpm_config c4 = { .max_rules = max_sa * 4 + 64, .number_tbl8s = 1024 };
	struct rte_lpm6_config c6 = { .max_rules = max_sa * 4 + 64, .number_tbl8s = 4096 };
	struct rte_hash_rcu_config hrc = {
		.mode = RTE_HASH_QSBR_MODE_DQ,
		.free_key_data_func = hash_free_in,
	};
	struct rte_rcu_qsbr_dq_parameters dqp = {
		.name = "hipgw_sa_dq",
		.size = max_sa,
		.esize = sizeof(struct gw_sa *),
		.trigger_reclaim_limit = 1,
		.max_reclaim_size = max_sa,
		.free_fn = dq_free_out,
	};
	size_t rcu_sz;

	size_t heap0;

	memset(db, 0, sizeof(*db));
	heap0 = gw_heap_allocated();
	db->sad = rte_hash_create(&hp);
	db->sad_bytes = gw_heap_allocated() - heap0;
	db->spd4 = rte_lpm_create("hipgw_spd4", socket, &c4);
	db->spd6 = rte_lpm6_create("hipgw_spd6", socket, &c6);
	rcu_sz = rte_rcu_qsbr_get_memsize(workers + 2);
	db->rcu = rte_zmalloc_socket("hipgw_rcu", rcu_sz, RTE_CACHE_LINE_SIZE, socket);
	if (db->sad == NULL || db->spd4 == NULL || db->spd6 == NULL || db->rcu == NULL ||
	    rte_rcu_qsbr_init(db->rcu, workers + 2) != 0 ||
	    rte_rcu_qsbr_thread_register(db->rcu, workers) != 0 ||
	    rte_rcu_qsbr_thread_register(db->rcu, workers + 1) != 0)
		goto fail;
	db->ext_reader = workers;   /* registered, offline until a read begins */
	db->ctrl_reader = workers + 1;
	db->n_workers = workers;
	hrc.v = db->rcu;
	dqp.v = db->rcu;
	db->dq = rte_rcu_qsbr_dq_create(&dqp);
	if (db->dq == NULL || rte_hash_rcu_qsbr_add(db->sad, &hrc) != 0)
		goto fail;
	return 0;
fail:
	gw_sadb_free(db);
	return -1;
}

void
gw_sadb_ext_read_begin(struct gw_sadb *db)
{
	rte_rcu_qsbr_thread_online(db->rcu, db->ext_reader);
}

void
gw_sadb_ext_read_end(struct gw_sadb *db)
{
	rte_rcu_qsbr_thread_offline(db->rcu, db->ext_reader);
}

void
gw_sadb_free(struct gw_sadb *db)
{
	for (unsigned i = 0; i < db->n_slots; i++) {
		sa_release(db->out[i]);
		db->out[i] = NULL;
	}
	/* in SAs: still in the hash; free them here, not through the hash */
	for (unsigned i = 0; i < db->n_in; i++)
		sa_release(db->in[i]);
	/* [sa-gen]: the SAs live in two arrays; their ESP states were allocated one by one */
	for (uint32_t i = 0; i < db->gen.count; i++) {
		if (db->gen.out != NULL)
			esp_sa_free(gw_sadb_gen_sa(&db->gen, true, i)->esp);
		if (db->gen.in != NULL)
			esp_sa_free(gw_sadb_gen_sa(&db->gen, false, i)->esp);
	}
	rte_free(db->gen.idx);
	rte_free(db->gen.out);
	rte_free(db->gen.in);
	memset(&db->gen, 0, sizeof(db->gen));
	db->n_slots = db->n_in = 0;
	if (db->dq != NULL)
		rte_rcu_qsbr_dq_delete(db->dq);   /* reclaims what is queued */
	rte_hash_free(db->sad);
	rte_lpm_free(db->spd4);
	rte_lpm6_free(db->spd6);
	rte_free(db->rcu);
	db->dq = NULL;
	db->sad = NULL;
	db->spd4 = NULL;
	db->spd6 = NULL;
	db->rcu = NULL;
}

int
gw_sadb_add_slot(struct gw_sadb *db, const struct gw_prefix *dst, unsigned n_dst, void *owner)
{
	unsigned slot = db->n_slots;
	if (slot == GW_SPD_MAX_SA)
		return -1;
	db->owner[slot] = owner;
	db->out[slot] = NULL;
	for (unsigned i = 0; i < n_dst; i++)
		if (gw_lpm_add(db->spd4, db->spd6, &dst[i], slot) != 0)
			return -1;
	db->n_slots++;
	return (int)slot;
}

void
gw_sadb_set_out(struct gw_sadb *db, unsigned slot, struct gw_sa *sa)
{
	struct gw_sa *old = __atomic_exchange_n(&db->out[slot], sa, __ATOMIC_ACQ_REL);
	if (old == NULL)
		return;
	if (rte_rcu_qsbr_dq_enqueue(db->dq, &old) != 0) {
		/* queue full: wait for the grace period here (control lcore) */
		if (db->ctrl_release != NULL)
			db->ctrl_release(db->ctrl_release_arg);
		rte_rcu_qsbr_synchronize(db->rcu, RTE_QSBR_THRID_INVALID);
		sa_release(old);
	}
}

int
gw_sadb_add_out(struct gw_sadb *db, struct gw_sa *sa, const struct gw_prefix *dst, unsigned n_dst)
{
	int slot = gw_sadb_add_slot(db, dst, n_dst, NULL);
	if (slot < 0)
		return -1;
	gw_sadb_set_out(db, slot, sa);
	return 0;
}

int
gw_sadb_add_in(struct gw_sadb *db, struct gw_sa *sa)
{
	uint32_t spi = sa->spi;
	if (db->n_in == GW_SPD_MAX_SA)
		return -1;
	sa->owner = db->owner_claim ? -1 : (int32_t)gw_spi_owner(spi, db->n_workers);
	if (rte_hash_add_key_data(db->sad, &spi, sa) < 0)
		return -1;
	db->in[db->n_in++] = sa;
	return 0;
}

int
gw_sadb_del_in(struct gw_sadb *db, uint32_t spi)
{
	for (unsigned i = 0; i < db->n_in; i++) {
		if (db->in[i]->spi != spi)
			continue;
		db->in[i] = db->in[--db->n_in];
		/* the hash frees the SA (hash_free_in) after the grace period */
		return rte_hash_del_key(db->sad, &spi) < 0 ? -1 : 0;
	}
	return -1;
}

void
gw_sadb_reclaim(struct gw_sadb *db)
{
	rte_rcu_qsbr_dq_reclaim(db->dq, GW_SPD_MAX_SA, NULL, NULL, NULL);
}

int
gw_sadb_add_bypass(struct gw_sadb *db, const struct gw_prefix *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (gw_lpm_add(db->spd4, db->spd6, &p[i], GW_SPD_BYPASS) != 0)
			return -1;
	return 0;
}

void
gw_sa_default_dst(const struct gw_config *cfg, struct gw_sa *sa)
{
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *pc = &cfg->ports[i];
		if (pc->role != GW_ROLE_INNER)
			continue;
		for (unsigned a = 0; a < pc->n_addrs && sa->n_dst < GW_CONF_MAX_PREFIXES; a++)
			gw_prefix_network(&sa->ok[sa->n_src + sa->n_dst++], &pc->addrs[a]);
		for (unsigned r = 0; r < pc->n_routes && sa->n_dst < GW_CONF_MAX_PREFIXES; r++)
			sa->ok[sa->n_src + sa->n_dst++] = pc->routes[r].dst;
	}
}
