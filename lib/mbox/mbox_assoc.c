/* SPDX-License-Identifier: BSD-3-Clause
 * The tracker's association table: an rte_hash from the HIT pair (lower HIT
 * first, so that either host's packets find it) to the association, whose id
 * (1 .. max_assocs, the flows' assoc) comes from a stack of free ids; the
 * associations themselves are allocated when a verified R1 makes one (the
 * control lcore, not the data path). BEXes in progress (R1_SEEN, I2_SEEN)
 * take at most half of the table, so that replayed R1s cannot crowd out
 * established associations. And the rules (first match, default deny).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "mbox_internal.h"

struct mbox_key {
	uint8_t lo[HIP_HIT_LEN];
	uint8_t hi[HIP_HIT_LEN];
};

static void
pair_key(const uint8_t *a, const uint8_t *b, struct mbox_key *k)
{
	bool swap = hip_hit_cmp(a, b) > 0;

	memcpy(k->lo, swap ? b : a, HIP_HIT_LEN);
	memcpy(k->hi, swap ? a : b, HIP_HIT_LEN);
}

int
mbox_assoc_init(struct mbox_tracker *t, char *err, size_t errlen)
{
	char name[RTE_HASH_NAMESIZE];
	uint32_t max = t->p.max_assocs;
	/* a quarter more key slots than entries: the cuckoo hash fills before 100 % */
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = max + max / 4 + 8,
		.key_len = sizeof(struct mbox_key),
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
	};

	snprintf(name, sizeof(name), "mbox%u_assoc", t->tid);
	t->assoc_h = rte_hash_create(&hp);
	t->slot = calloc(max, sizeof(t->slot[0]));
	t->free_ids = malloc(max * sizeof(t->free_ids[0]));
	if (t->assoc_h == NULL || t->slot == NULL || t->free_ids == NULL) {
		snprintf(err, errlen, "middlebox: no memory for %u associations (%s)", max,
			 t->assoc_h == NULL ? rte_strerror(rte_errno) : "malloc");
		return -1;
	}
	for (uint32_t i = 0; i < max; i++)
		t->free_ids[i] = max - i;     /* id 1 taken first */
	t->n_free = max;
	t->max_pending = max / 2 > 0 ? max / 2 : 1;
	return 0;
}

static void
assoc_free(struct mbox_assoc *a)
{
	for (int x = 0; x < 2; x++)
		hip_hi_free(&a->h[x].hi);
	free(a);
}

void
mbox_assoc_fini(struct mbox_tracker *t)
{
	/* the flows stay in the table (the caller frees it) */
	if (t->slot != NULL)
		for (uint32_t i = 0; i < t->p.max_assocs; i++)
			if (t->slot[i] != NULL)
				assoc_free(t->slot[i]);
	rte_hash_free(t->assoc_h);
	free(t->slot);
	free(t->free_ids);
	t->assoc_h = NULL;
	t->slot = NULL;
	t->free_ids = NULL;
}

struct mbox_assoc *
mbox_assoc_get(const struct mbox_tracker *t, const uint8_t *a, const uint8_t *b)
{
	struct mbox_key k;
	void *d;

	pair_key(a, b, &k);
	return rte_hash_lookup_data(t->assoc_h, &k, &d) < 0 ? NULL : d;
}

static bool
is_pending(enum mbox_state s)
{
	return s == MBOX_ST_R1_SEEN || s == MBOX_ST_I2_SEEN || s == MBOX_ST_NONE;
}

struct mbox_assoc *
mbox_assoc_new(struct mbox_tracker *t, const uint8_t *a, const uint8_t *b, bool pending,
	       uint64_t now)
{
	struct mbox_assoc *x;
	struct mbox_key k;

	if (t->n_free == 0 || (pending && t->n_pending >= t->max_pending))
		return NULL;
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return NULL;
	pair_key(a, b, &k);
	if (rte_hash_add_key_data(t->assoc_h, &k, x) != 0) {
		free(x);
		return NULL;
	}
	x->id = t->free_ids[--t->n_free];
	t->slot[x->id - 1] = x;
	memcpy(x->h[MBOX_LO].hit, k.lo, HIP_HIT_LEN);
	memcpy(x->h[MBOX_HI].hit, k.hi, HIP_HIT_LEN);
	x->state = MBOX_ST_NONE;
	x->since_ns = now;
	x->last_ns = now;
	t->n_assocs++;
	t->n_pending++;   /* NONE counts as pending until the caller sets its state */
	return x;
}

void
mbox_assoc_del(struct mbox_tracker *t, struct mbox_assoc *a)
{
	struct mbox_key k;

	mbox_spi_drop_all(t, a);
	pair_key(a->h[MBOX_LO].hit, a->h[MBOX_HI].hit, &k);
	rte_hash_del_key(t->assoc_h, &k);
	if (is_pending(a->state))
		t->n_pending--;
	t->n_assocs--;
	t->slot[a->id - 1] = NULL;
	t->free_ids[t->n_free++] = a->id;
	assoc_free(a);
	mbox_dirty(t);
}

void
mbox_assoc_state(struct mbox_tracker *t, struct mbox_assoc *a, enum mbox_state s, uint64_t now)
{
	if (is_pending(a->state) && !is_pending(s))
		t->n_pending--;
	else if (!is_pending(a->state) && is_pending(s))
		t->n_pending++;
	if (a->state != s)
		a->since_ns = now;
	a->state = s;
	mbox_dirty(t);
}

static bool
rule_match(const struct mbox_rule *r, const uint8_t *i, const uint8_t *resp)
{
	return (r->any_initiator || memcmp(r->initiator, i, HIP_HIT_LEN) == 0) &&
	       (r->any_responder || memcmp(r->responder, resp, HIP_HIT_LEN) == 0);
}

bool
mbox_rules_allow(const struct mbox_tracker *t, const uint8_t *i, const uint8_t *r)
{
	for (unsigned x = 0; x < t->p.n_rules; x++)
		if (rule_match(&t->rules[x], i, r))
			return t->rules[x].action == MBOX_ALLOW;
	return false;
}

void
mbox_assoc_info(const struct mbox_tracker *t, const struct mbox_assoc *a,
		struct mbox_assoc_info *out)
{
	const struct mbox_host *hi = &a->h[a->init], *hr = &a->h[1 - a->init];

	(void)t;
	memset(out, 0, sizeof(*out));
	out->id = a->id;
	out->state = a->state;
	memcpy(out->hit_i, hi->hit, HIP_HIT_LEN);
	memcpy(out->hit_r, hr->hit, HIP_HIT_LEN);
	for (int x = 0; x < 2; x++) {
		const struct mbox_host *h = x == 0 ? hi : hr;

		for (unsigned s = 0; s < MBOX_SPIS_PER_HOST; s++) {
			const struct mbox_spi *sp = &h->spi[s];

			if (sp->state == MBOX_SPI_CURRENT) {
				*(x == 0 ? &out->spi_i : &out->spi_r) = sp->spi;
				*(x == 0 ? &out->loc_i : &out->loc_r) = sp->dst;
			} else if (sp->state == MBOX_SPI_NEW) {
				*(x == 0 ? &out->new_spi_i : &out->new_spi_r) = sp->spi;
			}
		}
		if (h->i2_seen && x == 0 && out->spi_i == 0) {
			out->spi_i = h->i2_spi;   /* I2_SEEN: not installed yet */
			out->loc_i = h->i2_loc;
		}
	}
	out->seq_i = hi->seq;
	out->seq_r = hr->seq;
	out->flows = mbox_spi_flows(a);
	out->rekeys = a->rekeys;
	out->since_ns = a->since_ns;
	out->last_ns = a->last_ns;
}
