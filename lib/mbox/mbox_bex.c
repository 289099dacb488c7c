/* SPDX-License-Identifier: BSD-3-Clause
 * The Base Exchange as the box sees it cross (RFC 7401 sections 4.1, 5.3.1 -
 * 5.3.4, 6.6 - 6.10), and NOTIFY (5.3.6, 6.13):
 *
 *   I1   no state; over i1_rate from its source: dropped (docs/middlebox.md)
 *   R1   HOST_ID hashes to the sender's HIT, HIP_SIGNATURE_2 verifies with it
 *        (6.4.2: Receiver's HIT, Opaque and #I zeroed): the responder's HI
 *   I2   the initiator's HI from HOST_ID in clear (hashing to its HIT), or,
 *        when HOST_ID is inside ENCRYPTED (6.9 step 9: only the responder
 *        can decrypt it), from the config; HIP_SIGNATURE verifies with it;
 *        ESP_INFO: the initiator's inbound SPI, bound to the I2's source
 *   R2   HIP_SIGNATURE verifies with the responder's HI; ESP_INFO: its
 *        inbound SPI, bound to the R2's source: both flows installed
 *
 * HIP_MAC / HIP_MAC_2 are keyed with what the Diffie-Hellman gave the two
 * hosts: the box cannot check them, the signatures are what it trusts. A
 * verified R2 over an established association is a new BEX of the same HITs
 * (a host restarted, 4.4.2, 6.9): the new SPIs are installed, the old ones
 * retired (mbox_spi.c keeps them while ESP still uses them).
 */
#include <string.h>

#include "mbox_internal.h"

int
mbox_bex_i1(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	(void)a;
	if (!mbox_rate_take(t, p->src, p->now))
		return MBOX_DROP_I1_RATE;
	t->st.i1++;
	return MBOX_FWD;
}

/* A new BEX of an ended association's HITs: the record starts again. */
static void
restart(struct mbox_assoc *a)
{
	for (int x = 0; x < 2; x++) {
		struct mbox_host *h = &a->h[x];

		h->i2_seen = false;
		h->seq_seen = false;
		h->seq = 0;
		h->close_seen = false;
		memset(h->close, 0, sizeof(h->close));
	}
	a->rekeys = 0;
}

int
mbox_bex_r1(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	const struct hip_hi *cur = a != NULL && a->h[p->from].have_hi ? &a->h[p->from].hi : NULL;
	struct hip_hi hi = { 0 };
	int rc;

	if (p->host_id == NULL || p->puzzle == NULL)
		return MBOX_DROP_MALFORMED;
	rc = mbox_hi_from_host_id(p->host_id, p->hdr.hit_sender, cur, &hi);
	if (rc == MBOX_FWD)
		rc = mbox_verify_sig(t, p, &hi, true);
	if (rc == MBOX_FWD && a == NULL) {
		a = mbox_assoc_new(t, p->hdr.hit_sender, p->hdr.hit_receiver, true, p->now);
		rc = a == NULL ? MBOX_DROP_FULL : MBOX_FWD;
	}
	if (rc == MBOX_FWD && a->state == MBOX_ST_ENDED && t->n_pending >= t->max_pending)
		rc = MBOX_DROP_FULL;
	if (rc != MBOX_FWD) {
		hip_hi_free(&hi);
		return rc;
	}
	hip_hi_free(&a->h[p->from].hi);
	a->h[p->from].hi = hi;
	a->h[p->from].have_hi = true;
	a->last_ns = p->now;
	if (a->state == MBOX_ST_ENDED)
		restart(a);
	if (a->state == MBOX_ST_NONE || a->state == MBOX_ST_ENDED || a->state == MBOX_ST_R1_SEEN) {
		a->init = (uint8_t)(1 - p->from);
		mbox_assoc_state(t, a, MBOX_ST_R1_SEEN, p->now);
	}
	mbox_dirty(t);
	return MBOX_FWD;
}

/* ESP_INFO of a BEX packet (RFC 7402 5.1.1: OLD SPI 0, NEW SPI the sender's
 * inbound SPI). Returns MBOX_FWD and fills *ei, or the reason. */
static int
bex_esp_info(const struct mbox_pkt *p, struct hip_esp_info *ei)
{
	if (p->esp_info == NULL)
		return MBOX_DROP_ESP_INFO;
	if (hip_esp_info_parse(p->esp_info, ei) != 0)
		return MBOX_DROP_MALFORMED;
	return ei->old_spi != 0 || ei->new_spi == 0 ? MBOX_DROP_ESP_INFO : MBOX_FWD;
}

/* The I2's initiator HI into *hi: HOST_ID in clear, else the configured one. */
static int
i2_hi(const struct mbox_tracker *t, const struct mbox_assoc *a, const struct mbox_pkt *p,
      struct hip_hi *hi)
{
	const struct hip_hi *known;

	if (p->host_id != NULL)
		return mbox_hi_from_host_id(p->host_id, p->hdr.hit_sender,
					    a->h[p->from].have_hi ? &a->h[p->from].hi : NULL, hi);
	if (p->encrypted == NULL)
		return MBOX_DROP_MALFORMED;
	known = mbox_known_hi(t, p->hdr.hit_sender);
	if (known == NULL)
		return MBOX_DROP_NO_HI;
	mbox_hi_copy(hi, known);
	return MBOX_FWD;
}

static bool
established(const struct mbox_assoc *a)
{
	return a->state == MBOX_ST_ESTABLISHED || a->state == MBOX_ST_REKEYING ||
	       a->state == MBOX_ST_CLOSING;
}

/* A verified R2 of `from` that repeats the BEX in force (a duplicate I2
 * answered with the stored R2, RFC 7401 6.9 step 4): the same initiator and
 * both SPIs as they are. */
static bool
repeats(struct mbox_assoc *a, int from, uint32_t spi_r)
{
	int ini = 1 - from;
	const struct mbox_spi *r = mbox_spi_in(a, from, MBOX_SPI_CURRENT);
	const struct mbox_spi *i = mbox_spi_in(a, ini, MBOX_SPI_CURRENT);

	return established(a) && a->init == ini && r != NULL && r->spi == spi_r && i != NULL &&
	       (!a->h[ini].i2_seen || (a->h[ini].i2_spi == i->spi &&
				       mbox_addr_eq(&a->h[ini].i2_loc, &i->dst)));
}

int
mbox_bex_i2(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	struct mbox_host *h = &a->h[p->from];
	struct hip_esp_info ei;
	struct hip_hi hi = { 0 };
	int rc;

	if (!a->h[1 - p->from].have_hi)
		return MBOX_DROP_STATE;   /* no R1 of its responder seen */
	rc = bex_esp_info(p, &ei);
	if (rc == MBOX_FWD)
		rc = i2_hi(t, a, p, &hi);
	if (rc == MBOX_FWD)
		rc = mbox_verify_sig(t, p, &hi, false);
	if (rc != MBOX_FWD) {
		hip_hi_free(&hi);
		return rc;
	}
	a->last_ns = p->now;
	hip_hi_free(&h->hi);
	h->hi = hi;
	h->have_hi = true;
	h->i2_seen = true;
	h->i2_spi = ei.new_spi;
	h->i2_loc = *p->src;
	if (!established(a)) {
		a->init = (uint8_t)p->from;
		mbox_assoc_state(t, a, MBOX_ST_I2_SEEN, p->now);
	}
	mbox_dirty(t);
	return MBOX_FWD;
}

/* The BEX of initiator ini completes with the R2's SPI: the SPIs of the
 * association before it retired, the two new ones current and installed.
 * Returns MBOX_FWD, or the reason with nothing changed. */
static int
r2_commit(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p, int ini,
	  uint32_t spi_r)
{
	enum mbox_state before = a->state;
	bool rebex = established(a);
	struct mbox_spi_snap snap;
	int rc;

	mbox_spi_snap(a, &snap);
	for (int x = 0; x < 2; x++)
		for (unsigned s = 0; s < MBOX_SPIS_PER_HOST; s++)
			if (a->h[x].spi[s].state == MBOX_SPI_CURRENT || a->h[x].spi[s].state == MBOX_SPI_NEW)
				mbox_spi_retire(t, &a->h[x].spi[s], p->now);
	rc = mbox_spi_add(a, ini, a->h[ini].i2_spi, &a->h[ini].i2_loc, MBOX_SPI_CURRENT, 0);
	if (rc == MBOX_FWD)
		rc = mbox_spi_add(a, 1 - ini, spi_r, p->src, MBOX_SPI_CURRENT, 0);
	if (rc != MBOX_FWD) {
		for (int x = 0; x < 2; x++)
			memcpy(a->h[x].spi, snap.s[x], sizeof(snap.s[x]));
		return rc;
	}
	mbox_assoc_state(t, a, MBOX_ST_ESTABLISHED, p->now);
	rc = mbox_spi_commit(t, a, &snap);
	if (rc != MBOX_FWD) {
		mbox_assoc_state(t, a, before, p->now);
		return rc;
	}
	restart(a);
	a->init = (uint8_t)ini;
	t->st.established++;
	if (rebex)
		t->st.rebex++;
	return MBOX_FWD;
}

int
mbox_bex_r2(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	int ini = 1 - p->from;
	struct hip_esp_info ei;
	int rc;

	if (!a->h[p->from].have_hi)
		return MBOX_DROP_STATE;
	rc = bex_esp_info(p, &ei);
	if (rc == MBOX_FWD)
		rc = mbox_verify_sig(t, p, &a->h[p->from].hi, false);
	if (rc != MBOX_FWD)
		return rc;
	a->last_ns = p->now;
	if (repeats(a, p->from, ei.new_spi)) {
		a->h[ini].i2_seen = false;
		t->st.retransmits++;
		return MBOX_FWD;
	}
	if (!a->h[ini].i2_seen)
		return MBOX_DROP_STATE;   /* answers no I2 the box saw */
	return r2_commit(t, a, p, ini, ei.new_spi);
}

int
mbox_bex_notify(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	struct hip_hi hi = { 0 };
	const struct hip_hi *use = NULL;
	int rc = MBOX_FWD;

	if (a != NULL && a->h[p->from].have_hi) {
		use = &a->h[p->from].hi;
	} else if (p->host_id != NULL) {
		rc = mbox_hi_from_host_id(p->host_id, p->hdr.hit_sender, NULL, &hi);
		use = &hi;
	} else {
		use = mbox_known_hi(t, p->hdr.hit_sender);
		if (use == NULL)
			rc = MBOX_DROP_NO_HI;
	}
	if (rc == MBOX_FWD)
		rc = mbox_verify_sig(t, p, use, false);
	hip_hi_free(&hi);
	if (rc == MBOX_FWD && a != NULL)
		a->last_ns = p->now;
	return rc;
}
