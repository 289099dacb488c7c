/* SPDX-License-Identifier: BSD-3-Clause
 * UPDATE as the box sees it cross (RFC 7401 sections 5.3.5, 6.11, 6.12; RFC
 * 7402 sections 5.1.1, 6.9, 6.10), a rekey as the HIP engine runs it:
 *
 *   A -> B  UPDATE  ESP_INFO(old = A's SPI, new = A's new SPI), SEQ(a)
 *   B -> A  UPDATE  ESP_INFO(old = B's SPI, new = B's new SPI), SEQ(b), ACK(a)
 *   A -> B  UPDATE  ACK(b)
 *
 * Every UPDATE must verify (HIP_SIGNATURE with its sender's HI). Its SEQ
 * must not be below the sender's last (6.12.1: an older Update ID is
 * dropped; the same one is a retransmission: forwarded, nothing changes).
 * ESP_INFO needs a SEQ, a NEW SPI other than 0 and an OLD SPI the box knows
 * for the sender; the NEW SPI is bound to the UPDATE's source and passes at
 * once, beside the old one (the peer may switch to it as soon as it has
 * the UPDATE). An ACK of the Update ID that announced a NEW SPI marks it
 * acknowledged; when every NEW SPI is, the rekey is complete: they become
 * current and the SPIs they replace pass for rekey_grace_ns more. A rekey
 * not complete in MBOX_REKEY_NS ends the same way (the engine's side that
 * answered switches when its retransmissions run out).
 *
 * A verified UPDATE with LOCATOR_SET (RFC 8046 section 4; RFC 8047)
 * moves ESP to its sender: each of the sender's SPIs is bound to the
 * preferred locator that serves it (upd_locators), the former binding
 * passing for the grace period as a rekey's old SPI does, so that ESP in
 * flight while the peer checks the new locator (RFC 8046 5.4's return
 * routability) is not cut.
 *
 * An UPDATE in CLOSING is followed as in ESTABLISHED: a CLOSE ends nothing
 * until its CLOSE_ACK, and a replayed CLOSE must not stop the rekeys.
 */
#include <string.h>

#include "mbox_internal.h"

struct upd {
	bool has_seq, has_ack, has_ei;
	struct hip_seq sq;
	struct hip_ack ak;
	struct hip_esp_info ei;
};

static int
upd_parse(const struct mbox_pkt *p, struct upd *u)
{
	memset(u, 0, sizeof(*u));
	u->has_seq = p->seq != NULL;
	u->has_ack = p->ack != NULL;
	u->has_ei = p->esp_info != NULL;
	if ((u->has_seq && hip_seq_parse(p->seq, &u->sq) != 0) ||
	    (u->has_ack && hip_ack_parse(p->ack, &u->ak) != 0) ||
	    (u->has_ei && hip_esp_info_parse(p->esp_info, &u->ei) != 0))
		return MBOX_DROP_MALFORMED;
	if (u->has_ei && (!u->has_seq || u->ei.new_spi == 0))
		return MBOX_DROP_ESP_INFO;
	return MBOX_FWD;
}

static bool
any_new(struct mbox_assoc *a, bool unacked_only)
{
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++)
			if (a->h[x].spi[i].state == MBOX_SPI_NEW && (!unacked_only || !a->h[x].spi[i].acked))
				return true;
	return false;
}

/* Every NEW SPI (acknowledged, or all at a timeout) becomes current; the
 * current ones it replaces are retired. */
static void
promote(struct mbox_tracker *t, struct mbox_assoc *a, uint64_t now)
{
	for (int x = 0; x < 2; x++) {
		struct mbox_spi *n = mbox_spi_in(a, x, MBOX_SPI_NEW);

		if (n == NULL)
			continue;
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++)
			if (a->h[x].spi[i].state == MBOX_SPI_CURRENT)
				mbox_spi_retire(t, &a->h[x].spi[i], now);
		n->state = MBOX_SPI_CURRENT;
		n->acked = false;
		/* a second NEW (a superseded announcement) goes too */
		while ((n = mbox_spi_in(a, x, MBOX_SPI_NEW)) != NULL)
			mbox_spi_retire(t, n, now);
	}
}

/* The SPI changes of a verified, new UPDATE of host x into a's slots. */
static int
upd_spis(struct mbox_tracker *t, struct mbox_assoc *a, const struct mbox_pkt *p, int x,
	 const struct upd *u)
{
	int rc = MBOX_FWD;

	if (u->has_ei) {
		struct mbox_spi *o = mbox_spi_find(a, x, u->ei.old_spi);
		struct mbox_spi *n = mbox_spi_find(a, x, u->ei.new_spi);
		struct mbox_spi *prev = mbox_spi_in(a, x, MBOX_SPI_NEW);

		if (o == NULL)
			return MBOX_DROP_ESP_INFO;
		if (u->ei.new_spi != u->ei.old_spi && (n == NULL || n->state != MBOX_SPI_CURRENT)) {
			if (prev != NULL && prev->spi != u->ei.new_spi)
				mbox_spi_retire(t, prev, p->now);   /* announced again, another SPI */
			rc = mbox_spi_add(a, x, u->ei.new_spi, p->src, MBOX_SPI_NEW, u->sq.update_id);
		}
	}
	for (unsigned k = 0; rc == MBOX_FWD && u->has_ack && k < u->ak.n; k++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
			struct mbox_spi *s = &a->h[1 - x].spi[i];

			if (s->state == MBOX_SPI_NEW && s->seq == u->ak.update_ids[k])
				s->acked = true;
		}
	return rc;
}

/* A locator's 16-byte address (IPv6, or IPv4-mapped IPv6: RFC 8046 4) into
 * *out. False for one the box binds no flow to: unspecified, loopback,
 * multicast, an IPv4 one of those or broadcast. */
static bool
locator_addr(const uint8_t *a, struct gw_addr *out)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t zero[16];

	memset(out, 0, sizeof(*out));
	if (memcmp(a, mapped, sizeof(mapped)) == 0) {
		const uint8_t *v4 = a + sizeof(mapped);

		if (v4[0] == 0 || v4[0] == 127 || v4[0] >= 224)
			return false;
		out->family = 4;
		memcpy(out->addr, v4, 4);
		return true;
	}
	if (memcmp(a, zero, 15) == 0 || a[0] == 0xff)   /* ::, ::1, multicast */
		return false;
	out->family = 6;
	memcpy(out->addr, a, 16);
	return true;
}

/* Where host x receives SPI spi by LOCATOR_SET ls: of the locators for ESP
 * (traffic type both or ESP) that serve it (type 0: every SPI; type 1: the
 * SPI it names; RFC 8046 4), the first preferred one, else the first. False
 * when none does. */
static bool
spi_locator(const struct hip_locator_set *ls, uint32_t spi, struct gw_addr *out)
{
	bool found = false;

	for (unsigned i = 0; i < ls->n; i++) {
		const struct hip_locator *l = &ls->loc[i];
		const uint8_t *addr = l->locator;
		struct gw_addr a;

		if (l->traffic_type == HIP_LOCATOR_TRAFFIC_SIGNALING)
			continue;
		if (l->locator_type == HIP_LOCATOR_TYPE_ESP_SPI_IPV6) {
			if (hip_get32(l->locator) != spi)
				continue;
			addr += 4;
		} else if (l->locator_type != HIP_LOCATOR_TYPE_IPV6) {
			continue;            /* a type the box does not follow */
		}
		if (!locator_addr(addr, &a) || (found && !l->preferred))
			continue;
		*out = a;
		if (l->preferred)
			return true;
		found = true;
	}
	return found;
}

/* A verified UPDATE's LOCATOR_SET: host x's SPIs (current and new) move to
 * the locators that serve them (spi_locator); *moved: how many. Returns
 * MBOX_FWD, LOCATOR (does not parse) or SPI_FULL. */
static int
upd_locators(struct mbox_tracker *t, struct mbox_assoc *a, const struct mbox_pkt *p, int x,
	     unsigned *moved)
{
	struct hip_locator_set ls;

	*moved = 0;
	if (p->locator_set == NULL)
		return MBOX_FWD;
	if (hip_locator_set_parse(p->locator_set, &ls) != HIP_OK)
		return MBOX_DROP_LOCATOR;
	for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
		struct mbox_spi *s = &a->h[x].spi[i];
		struct gw_addr to;
		int rc;

		if ((s->state != MBOX_SPI_CURRENT && s->state != MBOX_SPI_NEW) ||
		    !spi_locator(&ls, s->spi, &to) || mbox_addr_eq(&s->dst, &to))
			continue;
		rc = mbox_spi_move(t, a, x, s, &to, p->now);
		if (rc != MBOX_FWD)
			return rc;
		(*moved)++;
	}
	return MBOX_FWD;
}

/* The state after the slots changed: a complete rekey promoted. */
static void
upd_settle(struct mbox_tracker *t, struct mbox_assoc *a, uint64_t now)
{
	bool rekeying = any_new(a, true);

	if (!rekeying && any_new(a, false)) {
		promote(t, a, now);
		a->rekeys++;
		t->st.rekeys++;
	}
	if (a->state == MBOX_ST_CLOSING)
		return;
	mbox_assoc_state(t, a, rekeying ? MBOX_ST_REKEYING : MBOX_ST_ESTABLISHED, now);
}

int
mbox_update_in(struct mbox_tracker *t, struct mbox_assoc *a, struct mbox_pkt *p)
{
	struct mbox_host *h = &a->h[p->from];
	struct mbox_spi_snap snap;
	unsigned moved = 0;
	bool was_new;
	struct upd u;
	int rc;

	rc = upd_parse(p, &u);
	if (rc == MBOX_FWD)
		rc = mbox_verify_sig(t, p, h->have_hi ? &h->hi : NULL, false);
	if (rc != MBOX_FWD)
		return rc;
	if (u.has_seq && h->seq_seen) {
		int32_t d = (int32_t)(u.sq.update_id - h->seq);

		if (d < 0)
			return MBOX_DROP_SEQ;
		if (d == 0) {
			a->last_ns = p->now;
			t->st.retransmits++;
			return MBOX_FWD;
		}
	}
	was_new = any_new(a, false);
	mbox_spi_snap(a, &snap);
	rc = upd_spis(t, a, p, p->from, &u);
	if (rc == MBOX_FWD)
		rc = upd_locators(t, a, p, p->from, &moved);
	if (rc == MBOX_FWD) {
		if (!was_new && any_new(a, false))
			a->rekey_since_ns = p->now;
		upd_settle(t, a, p->now);
		rc = mbox_spi_commit(t, a, &snap);
	}
	if (rc != MBOX_FWD) {
		for (int x = 0; x < 2; x++)
			memcpy(a->h[x].spi, snap.s[x], sizeof(snap.s[x]));
		if (a->state != MBOX_ST_CLOSING)
			mbox_assoc_state(t, a, was_new ? MBOX_ST_REKEYING : MBOX_ST_ESTABLISHED, p->now);
		return rc;
	}
	if (u.has_seq) {
		h->seq = u.sq.update_id;
		h->seq_seen = true;
	}
	t->st.moves += moved;
	a->last_ns = p->now;
	mbox_dirty(t);
	return MBOX_FWD;
}

void
mbox_update_timeout(struct mbox_tracker *t, struct mbox_assoc *a, uint64_t now)
{
	struct mbox_spi_snap snap;

	if (!any_new(a, false) || now - a->rekey_since_ns < MBOX_REKEY_NS)
		return;
	mbox_spi_snap(a, &snap);
	promote(t, a, now);
	if (mbox_spi_commit(t, a, &snap) != MBOX_FWD)   /* deletes only: cannot fail */
		return;
	t->st.rekey_timeouts++;
	if (a->state == MBOX_ST_REKEYING)
		mbox_assoc_state(t, a, MBOX_ST_ESTABLISHED, now);
}
