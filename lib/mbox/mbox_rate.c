/* SPDX-License-Identifier: BSD-3-Clause
 * The I1 rate limit (docs/middlebox.md: I1 creates no state, it is only
 * counted against its source address): a token bucket of mbox_params.i1_rate
 * I1/s, one second deep, per outer source address, in an rte_hash of at most
 * MBOX_I1_SOURCES_MAX addresses. More sources than that share one bucket (a
 * flood from random addresses then limits itself, not the sources already
 * known). A bucket that has filled up again is forgotten by mbox_tick.
 * Tokens are counted in units of 1e-9 token, as the HIP engine's R1 limit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

#include "mbox_internal.h"

#define TOKEN 1000000000ull        /* one I1, in 1e-9 tokens */

void
mbox_addr_key(const struct gw_addr *a, uint8_t key[MBOX_ADDR_KEY_LEN])
{
	memset(key, 0, MBOX_ADDR_KEY_LEN);
	key[0] = a->family;
	memcpy(key + 1, a->addr, a->family == 4 ? 4 : 16);
}

int
mbox_rate_init(struct mbox_tracker *t, char *err, size_t errlen)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = MBOX_I1_SOURCES_MAX + MBOX_I1_SOURCES_MAX / 4,
		.key_len = MBOX_ADDR_KEY_LEN,
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
	};

	if (t->p.i1_rate == 0)
		return 0;
	snprintf(name, sizeof(name), "mbox%u_i1", t->tid);
	t->src_h = rte_hash_create(&hp);
	t->src_cap = hp.entries;
	t->src = calloc(t->src_cap, sizeof(t->src[0]));
	if (t->src_h == NULL || t->src == NULL) {
		snprintf(err, errlen, "middlebox: no memory for the I1 rate limit (%s)",
			 t->src_h == NULL ? rte_strerror(rte_errno) : "malloc");
		return -1;
	}
	return 0;
}

void
mbox_rate_fini(struct mbox_tracker *t)
{
	rte_hash_free(t->src_h);
	free(t->src);
	t->src_h = NULL;
	t->src = NULL;
}

/* The bucket's tokens at now (refilled at i1_rate, at most a second's worth). */
static uint64_t
refill(const struct mbox_tracker *t, const struct mbox_src *b, uint64_t now)
{
	uint64_t full = (uint64_t)t->p.i1_rate * TOKEN, need, dt;

	if (b->tokens >= full)
		return full;
	need = full - b->tokens;
	dt = now > b->at_ns ? now - b->at_ns : 0;
	if (dt >= need / t->p.i1_rate + 1)
		return full;
	return b->tokens + dt * t->p.i1_rate;
}

/* src's bucket, made (full) when it has none; the shared one when the table is. */
static struct mbox_src *
bucket(struct mbox_tracker *t, const struct gw_addr *src, uint64_t now)
{
	uint8_t key[MBOX_ADDR_KEY_LEN];
	struct mbox_src *b;
	int32_t pos;

	mbox_addr_key(src, key);
	pos = rte_hash_lookup(t->src_h, key);
	if (pos >= 0 && (uint32_t)pos < t->src_cap)
		return &t->src[pos];
	if (t->n_src >= MBOX_I1_SOURCES_MAX || (pos = rte_hash_add_key(t->src_h, key)) < 0 ||
	    (uint32_t)pos >= t->src_cap) {
		b = &t->src_overflow;
		if (!b->used) {
			b->used = true;
			b->tokens = (uint64_t)t->p.i1_rate * TOKEN;
			b->at_ns = now;
		}
		return b;
	}
	b = &t->src[pos];
	memcpy(b->key, key, sizeof(key));
	b->used = true;
	b->tokens = (uint64_t)t->p.i1_rate * TOKEN;
	b->at_ns = now;
	t->n_src++;
	return b;
}

bool
mbox_rate_take(struct mbox_tracker *t, const struct gw_addr *src, uint64_t now)
{
	struct mbox_src *b;

	if (t->p.i1_rate == 0)
		return true;
	b = bucket(t, src, now);
	b->tokens = refill(t, b, now);
	b->at_ns = now > b->at_ns ? now : b->at_ns;
	if (b->tokens < TOKEN)
		return false;
	b->tokens -= TOKEN;
	return true;
}

void
mbox_rate_age(struct mbox_tracker *t, uint64_t now, unsigned visits)
{
	uint64_t full = (uint64_t)t->p.i1_rate * TOKEN;

	if (t->src_h == NULL || t->n_src == 0)
		return;
	for (unsigned v = 0; v < visits && v < t->src_cap; v++) {
		struct mbox_src *b = &t->src[t->src_visit];

		t->src_visit = (t->src_visit + 1) % t->src_cap;
		if (b->used && refill(t, b, now) >= full) {
			rte_hash_del_key(t->src_h, b->key);
			b->used = false;
			t->n_src--;
		}
	}
}
