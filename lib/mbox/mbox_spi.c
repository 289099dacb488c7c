/* SPDX-License-Identifier: BSD-3-Clause
 * A host's inbound SPIs and the ESP flows they let through: ESP to the host
 * is the flow (its locator, SPI) of gw_mbox_flow.h (RFC 4303 section 2.1:
 * the SPI with the destination identifies the SA), bound to the source
 * address of the verified packet that announced it (I2, R2 or UPDATE; RFC
 * 7402 5.1.1 ESP_INFO). Up to MBOX_SPIS_PER_HOST per host: the current one,
 * a rekey's new one, the old ones in their grace period.
 *
 * Changes are transactions: the handlers change the slots, then
 * mbox_spi_commit makes the flow table follow, or puts the slots back as
 * they were when the table refuses (so that a refused packet changes
 * nothing). A flow that exists in the table and is not this association's
 * is refused (FLOW_CONFLICT): a host cannot take over another
 * association's flow by announcing its SPI from a spoofed address.
 *
 * An OLD SPI goes at until_ns, or, when ESP still used its flow within the
 * last rekey_grace_ns, a grace period after that last use: traffic in flight
 * is never cut, and a replayed exchange that retired live SPIs cannot end
 * their traffic.
 */
#include <errno.h>
#include <string.h>

#include "mbox_internal.h"

bool
mbox_addr_eq(const struct gw_addr *x, const struct gw_addr *y)
{
	return x->family == y->family &&
	       memcmp(x->addr, y->addr, x->family == 4 ? 4 : sizeof(x->addr)) == 0;
}

static bool
has_flows(enum mbox_state s)
{
	return s == MBOX_ST_ESTABLISHED || s == MBOX_ST_REKEYING || s == MBOX_ST_CLOSING;
}

void
mbox_spi_snap(const struct mbox_assoc *a, struct mbox_spi_snap *snap)
{
	for (int x = 0; x < 2; x++)
		memcpy(snap->s[x], a->h[x].spi, sizeof(snap->s[x]));
}

struct mbox_spi *
mbox_spi_find(struct mbox_assoc *a, int x, uint32_t spi)
{
	struct mbox_spi *old = NULL;

	/* after a move the SPI is also in an OLD slot, at its former locator */
	for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
		struct mbox_spi *s = &a->h[x].spi[i];

		if (s->state == MBOX_SPI_FREE || s->spi != spi)
			continue;
		if (s->state != MBOX_SPI_OLD)
			return s;
		if (old == NULL)
			old = s;
	}
	return old;
}

struct mbox_spi *
mbox_spi_in(struct mbox_assoc *a, int x, uint8_t st)
{
	for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++)
		if (a->h[x].spi[i].state == st)
			return &a->h[x].spi[i];
	return NULL;
}

/* The slot for SPI spi of host x: its own, a free one, or (full) the OLD
 * SPI nearest its end, emptied (commit deletes its flow). NULL: none. */
static struct mbox_spi *
slot_for(struct mbox_assoc *a, int x, uint32_t spi)
{
	struct mbox_spi *s = mbox_spi_find(a, x, spi), *old = NULL;

	if (s == NULL)
		s = mbox_spi_in(a, x, MBOX_SPI_FREE);
	if (s != NULL)
		return s;
	for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
		struct mbox_spi *o = &a->h[x].spi[i];

		if (o->state == MBOX_SPI_OLD && (old == NULL || o->until_ns < old->until_ns))
			old = o;
	}
	if (old != NULL)
		memset(old, 0, sizeof(*old));
	return old;
}

int
mbox_spi_add(struct mbox_assoc *a, int x, uint32_t spi, const struct gw_addr *dst, uint8_t st,
	     uint32_t seq)
{
	struct mbox_spi *s = slot_for(a, x, spi);

	if (s == NULL)
		return MBOX_DROP_SPI_FULL;
	if (s->state == MBOX_SPI_FREE || !mbox_addr_eq(&s->dst, dst)) {
		s->installed = false;   /* commit installs the new flow, deletes the old one */
		s->dst = *dst;
	}
	s->spi = spi;
	s->state = st;
	s->seq = seq;
	s->acked = false;
	s->until_ns = 0;
	return MBOX_FWD;
}

int
mbox_spi_move(const struct mbox_tracker *t, struct mbox_assoc *a, int x, struct mbox_spi *s,
	      const struct gw_addr *dst, uint64_t now)
{
	struct mbox_spi *n = NULL;
	bool installed = false;

	/* back to a locator it left: that OLD slot, its flow kept */
	for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
		struct mbox_spi *o = &a->h[x].spi[i];

		if (o != s && o->state != MBOX_SPI_FREE && o->spi == s->spi && mbox_addr_eq(&o->dst, dst)) {
			n = o;
			installed = o->installed;
		}
	}
	if (n == NULL)
		n = mbox_spi_in(a, x, MBOX_SPI_FREE);
	if (n == NULL)          /* the OLD slot nearest its end (not s): its flow goes at commit */
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
			struct mbox_spi *o = &a->h[x].spi[i];

			if (o != s && o->state == MBOX_SPI_OLD && (n == NULL || o->until_ns < n->until_ns))
				n = o;
		}
	if (n == NULL)
		return MBOX_DROP_SPI_FULL;
	*n = *s;
	n->dst = *dst;
	n->installed = installed;   /* else commit installs (dst, spi) */
	mbox_spi_retire(t, s, now);
	return MBOX_FWD;
}

void
mbox_spi_retire(const struct mbox_tracker *t, struct mbox_spi *s, uint64_t now)
{
	s->state = MBOX_SPI_OLD;
	s->acked = false;
	s->until_ns = now + t->p.rekey_grace_ns;
}

static void
flow_del(struct mbox_tracker *t, const struct gw_addr *dst, uint32_t spi)
{
	if (gw_mbox_flow_del(t->p.flows, dst, spi) == 0)
		t->st.flows_deleted++;
}

static int
flow_add(struct mbox_tracker *t, const struct mbox_assoc *a, struct mbox_spi *s)
{
	struct gw_mbox_flow_stats fs;
	int rc;

	if (gw_mbox_flow_stats(t->p.flows, &s->dst, s->spi, &fs) == 0)
		return MBOX_DROP_FLOW_CONFLICT;
	rc = gw_mbox_flow_add(t->p.flows, &s->dst, s->spi, a->id, false);
	if (rc != 0)
		return rc == -ENOSPC ? MBOX_DROP_FLOW_FULL : MBOX_DROP_MALFORMED;
	s->installed = true;
	t->st.flows_added++;
	return MBOX_FWD;
}

/* Was slot o's flow (before) still what slot n (now) has? */
static bool
same_flow(const struct mbox_spi *o, const struct mbox_spi *n)
{
	return n->state != MBOX_SPI_FREE && n->spi == o->spi && mbox_addr_eq(&n->dst, &o->dst);
}

/* Is (dst, spi) among the flows snap had installed? (kept: no new install) */
static struct mbox_spi *
in_snap(const struct mbox_spi_snap *snap, const struct mbox_spi *n)
{
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++)
			if (snap->s[x][i].installed && same_flow(&snap->s[x][i], n))
				return (struct mbox_spi *)&snap->s[x][i];
	return NULL;
}

static void
rollback(struct mbox_tracker *t, struct mbox_assoc *a, const struct mbox_spi_snap *snap)
{
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
			struct mbox_spi *n = &a->h[x].spi[i];

			if (n->installed && in_snap(snap, n) == NULL)
				flow_del(t, &n->dst, n->spi);
		}
	for (int x = 0; x < 2; x++)
		memcpy(a->h[x].spi, snap->s[x], sizeof(snap->s[x]));
}

int
mbox_spi_commit(struct mbox_tracker *t, struct mbox_assoc *a, const struct mbox_spi_snap *snap)
{
	bool flows = has_flows(a->state);

	/* what stays installed keeps its flow; the rest is installed */
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
			struct mbox_spi *n = &a->h[x].spi[i];
			int rc;

			if (n->state == MBOX_SPI_FREE)
				continue;
			n->installed = in_snap(snap, n) != NULL;
			if (n->installed || !flows)
				continue;
			rc = flow_add(t, a, n);
			if (rc != MBOX_FWD) {
				rollback(t, a, snap);
				return rc;
			}
		}
	/* what went: its flow deleted */
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
			const struct mbox_spi *o = &snap->s[x][i];
			bool kept = false;

			if (!o->installed)
				continue;
			for (int y = 0; y < 2 && !kept; y++)
				for (unsigned j = 0; j < MBOX_SPIS_PER_HOST && !kept; j++)
					kept = a->h[y].spi[j].installed && same_flow(o, &a->h[y].spi[j]);
			if (!kept)
				flow_del(t, &o->dst, o->spi);
		}
	mbox_dirty(t);
	return MBOX_FWD;
}

static void
slot_drop(struct mbox_tracker *t, struct mbox_spi *s)
{
	if (s->installed)
		flow_del(t, &s->dst, s->spi);
	memset(s, 0, sizeof(*s));
}

void
mbox_spi_drop_all(struct mbox_tracker *t, struct mbox_assoc *a)
{
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++)
			if (a->h[x].spi[i].state != MBOX_SPI_FREE)
				slot_drop(t, &a->h[x].spi[i]);
	mbox_dirty(t);
}

static uint64_t
flow_last_seen(const struct mbox_tracker *t, const struct mbox_spi *s)
{
	struct gw_mbox_flow_stats fs;

	if (!s->installed || gw_mbox_flow_stats(t->p.flows, &s->dst, s->spi, &fs) != 0)
		return 0;
	return fs.last_seen_ns;
}

void
mbox_spi_expire(struct mbox_tracker *t, struct mbox_assoc *a, uint64_t now)
{
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
			struct mbox_spi *s = &a->h[x].spi[i];
			uint64_t seen;

			if (s->state != MBOX_SPI_OLD)
				continue;
			if (s->until_ns == 0) {           /* loaded: its grace starts now */
				s->until_ns = now + t->p.rekey_grace_ns;
				continue;
			}
			if (now < s->until_ns)
				continue;
			seen = flow_last_seen(t, s);
			if (seen != 0 && seen + t->p.rekey_grace_ns > now) {
				s->until_ns = seen + t->p.rekey_grace_ns;
				continue;
			}
			slot_drop(t, s);
			mbox_dirty(t);
		}
}

uint64_t
mbox_spi_last_seen(const struct mbox_tracker *t, const struct mbox_assoc *a)
{
	uint64_t last = 0;

	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
			uint64_t s = flow_last_seen(t, &a->h[x].spi[i]);

			last = s > last ? s : last;
		}
	return last;
}

unsigned
mbox_spi_flows(const struct mbox_assoc *a)
{
	unsigned n = 0;

	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++)
			n += a->h[x].spi[i].installed;
	return n;
}
