/* SPDX-License-Identifier: BSD-3-Clause
 * The end of an association as the box sees it (RFC 7401 sections 5.3.7,
 * 5.3.8, 6.14, 6.15):
 *
 *   CLOSE      ECHO_REQUEST_SIGNED(nonce), HIP_MAC, HIP_SIGNATURE
 *   CLOSE_ACK  ECHO_RESPONSE_SIGNED(the nonce echoed), HIP_MAC, HIP_SIGNATURE
 *
 * A verified CLOSE puts the association in CLOSING and keeps its nonce (a
 * SHA-256 digest of the HIT pair and the nonce); only a verified CLOSE_ACK
 * from the other host that echoes it ends the association (ENDED: flows
 * deleted, kept MBOX_ENDED_HOLD_NS for retransmissions). The HIP_MAC that
 * ties a CLOSE to its association's keys is beyond the box, and the
 * signatures alone are the same for every association of the two HITs: a
 * CLOSE and its CLOSE_ACK recorded from an earlier association would verify
 * again. So the box remembers the nonces of the CLOSEs it saw (the spent
 * nonces, 2 per association of the table, at least MBOX_NONCES_MIN, the
 * oldest forgotten first, kept in the state file): a CLOSE whose nonce is
 * spent and not this association's own is dropped (close_replay), and the
 * CLOSE_ACK that echoes it has nothing to echo (echo).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

#include "mbox_internal.h"

int
mbox_close_init(struct mbox_tracker *t, char *err, size_t errlen)
{
	char name[RTE_HASH_NAMESIZE];
	uint32_t cap = 2 * t->p.max_assocs > MBOX_NONCES_MIN ? 2 * t->p.max_assocs : MBOX_NONCES_MIN;
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = cap + cap / 4,
		.key_len = MBOX_DIGEST_LEN,
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
	};

	snprintf(name, sizeof(name), "mbox%u_nonce", t->tid);
	t->nonce_h = rte_hash_create(&hp);
	t->nonce_ring = calloc(cap, sizeof(t->nonce_ring[0]));
	t->nonce_cap = cap;
	if (t->nonce_h == NULL || t->nonce_ring == NULL) {
		snprintf(err, errlen, "middlebox: no memory for %u CLOSE nonces (%s)", cap,
			 t->nonce_h == NULL ? rte_strerror(rte_errno) : "malloc");
		return -1;
	}
	return 0;
}

void
mbox_close_fini(struct mbox_tracker *t)
{
	rte_hash_free(t->nonce_h);
	free(t->nonce_ring);
	t->nonce_h = NULL;
	t->nonce_ring = NULL;
}

bool
mbox_nonce_spend(struct mbox_tracker *t, const uint8_t d[MBOX_DIGEST_LEN])
{
	if (rte_hash_lookup(t->nonce_h, d) >= 0)
		return true;
	if (t->n_nonces == t->nonce_cap)
		rte_hash_del_key(t->nonce_h, t->nonce_ring[t->nonce_head]);
	else
		t->n_nonces++;
	memcpy(t->nonce_ring[t->nonce_head], d, MBOX_DIGEST_LEN);
	rte_hash_add_key(t->nonce_h, d);
	t->nonce_head = (t->nonce_head + 1) % t->nonce_cap;
	mbox_dirty(t);
	return false;
}

void
mbox_nonce_walk(const struct mbox_tracker *t, void (*fn)(void *ctx, const uint8_t *d), void *ctx)
{
	uint32_t first = (t->nonce_head + t->nonce_cap - t->n_nonces) % t->nonce_cap;

	for (uint32_t i = 0; i < t->n_nonces; i++)
		fn(ctx, t->nonce_ring[(first + i) % t->nonce_cap]);
}

/* The echo parameter (ECHO_REQUEST_SIGNED or _RESPONSE_SIGNED) of a CLOSE /
 * CLOSE_ACK, its signature verified, as a digest. Returns MBOX_FWD or the
 * reason. */
static int
echo_digest(struct mbox_tracker *t, struct mbox_assoc *a, const struct mbox_pkt *p,
	    const struct hip_tlv *echo, uint8_t d[MBOX_DIGEST_LEN])
{
	const struct mbox_host *h = &a->h[p->from];
	struct hip_echo e;
	int rc;

	if (echo == NULL || hip_echo_parse(echo, &e) != 0)
		return MBOX_DROP_MALFORMED;
	rc = mbox_verify_sig(t, p, h->have_hi ? &h->hi : NULL, false);
	if (rc != MBOX_FWD)
		return rc;
	return mbox_nonce_digest(a, e.data, e.len, d) == 0 ? MBOX_FWD : MBOX_DROP_MALFORMED;
}

int
mbox_close_in(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	struct mbox_host *h = &a->h[p->from];
	uint8_t d[MBOX_DIGEST_LEN];
	int rc = echo_digest(t, a, p, p->echo_req, d);

	if (rc != MBOX_FWD)
		return rc;
	if (h->close_seen && CRYPTO_memcmp(d, h->close, sizeof(d)) == 0) {
		a->last_ns = p->now;
		t->st.retransmits++;   /* 6.14: resent until its CLOSE_ACK comes */
		return MBOX_FWD;
	}
	if (a->state == MBOX_ST_ENDED)
		return MBOX_DROP_STATE;
	if (mbox_nonce_spend(t, d))
		return MBOX_DROP_CLOSE_REPLAY;
	memcpy(h->close, d, sizeof(d));
	h->close_seen = true;
	a->last_ns = p->now;
	mbox_assoc_state(t, a, MBOX_ST_CLOSING, p->now);
	return MBOX_FWD;
}

int
mbox_close_ack_in(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	const struct mbox_host *closer = &a->h[1 - p->from];
	uint8_t d[MBOX_DIGEST_LEN];
	int rc = echo_digest(t, a, p, p->echo_resp, d);

	if (rc != MBOX_FWD)
		return rc;
	if (!closer->close_seen || CRYPTO_memcmp(d, closer->close, sizeof(d)) != 0)
		return MBOX_DROP_ECHO;
	a->last_ns = p->now;
	if (a->state == MBOX_ST_ENDED) {
		t->st.retransmits++;   /* the answer to a retransmitted CLOSE */
		return MBOX_FWD;
	}
	mbox_spi_drop_all(t, a);
	for (int x = 0; x < 2; x++)
		a->h[x].i2_seen = false;
	mbox_assoc_state(t, a, MBOX_ST_ENDED, p->now);
	t->st.closed++;
	return MBOX_FWD;
}
