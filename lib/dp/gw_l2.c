/* SPDX-License-Identifier: BSD-3-Clause
 * L2 mode in a worker: the bridge steps of the two paths, a VPLS-style
 * bridge (VPLS, RFC 4762: full mesh, split horizon) over ESP.
 *
 * Outbound, a burst of an l2 port: each frame (whole, tags kept) is checked
 * (IEEE 802.1D link-local destinations, a group source MAC: bad input), its
 * source MAC learned at GW_MAC_LOCAL, then sent by its destination MAC and
 * the VLAN ID of its outer tag (0: untagged), the MAC table's key: learned at
 * remote r, through remote r's out SA only; a group address or an unknown
 * MAC is flooded, one copy per remote of the bridge (within the bridge's
 * flood-rate); learned on this segment, dropped. Each copy goes behind an
 * EtherIP header (RFC 3378) through its remote's out SA with ESP next header
 * 97 (RFC 4303); a frame with more than the port's mtu after its Ethernet
 * header and up to two VLAN tags is dropped first (l2_too_long), and an ESP
 * packet longer than its SA's outer MTU is fragmented after encryption
 * (gw_frag_out.c). A remote whose out slot has no SA (a HIP peer before its
 * Base Exchange) gets its copy punted to the control lcore as GW_PUNT_NO_SA:
 * the keying glue stages it (or drops it as no_sa), and hands it back once
 * that slot has an SA, for that slot alone (wk_l2_slot_send). Never in clear.
 *
 * Inbound: the decrypted payload of an SA of a bridge with next header 97
 * (esp_pkt_is_etherip): EtherIP header and Ethernet header checked
 * (gw_etherip_parse), the source MAC learned at the SA's remote, the frame
 * sent as is on the bridge's port, never to another remote (split horizon).
 *
 * Learning: only the control lcore writes the MAC table (gw_mac.h). A worker
 * refreshes an entry that already has the source where the frame came from
 * (gw_mac_touch) and asks the control lcore, through its ring
 * ctx->l2_learn[w], to learn the others (new, or moved); a small filter keeps
 * it from asking again for the same MAC and place for L2_LEARN_REPOST_MS.
 */
#include "gw_worker_internal.h"
#include "gw_etherip.h"
#include "gw_mac.h"
#include "esp.h"

/* IEEE 802.1D reserved group addresses 01:80:C2:00:00:00 .. 0F: the first five
 * bytes, and the mask of the sixth's low bits that varies. */
static const uint8_t link_local_prefix[5] = { 0x01, 0x80, 0xc2, 0x00, 0x00 };
#define LINK_LOCAL_LAST_MASK 0xf0u
#define VLAN_ID_MASK         0x0fffu   /* 802.1Q TCI: the VLAN ID's 12 bits */
#define L2_SRC_OFF           GW_MAC_ADDR_BYTES   /* source MAC after the destination */
#define L2_LEARN_REPOST_MS   50u       /* ms before the same MAC and place is asked again */
#define FWD_FLOOD            (GW_MAC_LOCAL - 1u)  /* l2_dest: every remote */

static inline bool
is_link_local(const uint8_t *dst)
{
	return memcmp(dst, link_local_prefix, sizeof(link_local_prefix)) == 0 &&
	       (dst[5] & LINK_LOCAL_LAST_MASK) == 0;
}

/* The VLAN ID of the frame's outer tag (0: untagged), len bytes of frame. */
static inline uint16_t
frame_vlan(const uint8_t *f, uint32_t len)
{
	uint16_t et = (uint16_t)(f[GW_ETH_TYPE_OFF] << 8 | f[GW_ETH_TYPE_OFF + 1]);

	if ((et != GW_ETHERTYPE_VLAN && et != GW_ETHERTYPE_QINQ) ||
	    len < GW_ETH_HDR_BYTES + GW_VLAN_TAG_BYTES)
		return 0;
	return (uint16_t)((f[GW_ETH_HDR_BYTES] << 8 | f[GW_ETH_HDR_BYTES + 1]) & VLAN_ID_MASK);
}

_Static_assert(GW_L2_FRAME_OVER_MTU_BYTES ==
	       GW_ETH_HDR_BYTES + GW_ETH_MAX_VLAN_TAGS * GW_VLAN_TAG_BYTES,
	       "an l2 port's frame: its mtu, Ethernet and two tags");

/* Whether a frame f of len bytes (at least an Ethernet header) carries more
 * than mtu bytes after its Ethernet header and up to two VLAN tags. */
static inline bool
frame_too_long(const uint8_t *f, uint32_t len, uint32_t mtu)
{
	uint32_t hl = GW_ETH_HDR_BYTES;

	if (likely(len <= GW_ETH_HDR_BYTES + mtu))
		return false;
	if (len > mtu + GW_L2_FRAME_OVER_MTU_BYTES)
		return true;
	for (unsigned t = 0; t < GW_ETH_MAX_VLAN_TAGS && len >= hl + GW_VLAN_TAG_BYTES; t++) {
		uint16_t et = (uint16_t)(f[hl - 2] << 8 | f[hl - 1]);

		if (et != GW_ETHERTYPE_VLAN && et != GW_ETHERTYPE_QINQ)
			break;
		hl += GW_VLAN_TAG_BYTES;
	}
	return len - hl > mtu;
}

void
wk_l2_init(struct worker *w)
{
	const struct gw_ctx *ctx = w->ctx;

	w->hz = rte_get_tsc_hz();
	for (unsigned b = 0; b < ctx->n_bridges; b++) {
		struct l2_flood_bucket *k = &w->l2_flood[b];
		uint32_t rate = ctx->cfg->bridges[b].flood_rate;

		/* the bridge's rate split over the workers, a second's worth of burst */
		k->rate = rate == 0 ? 0 : (rate + ctx->n_workers - 1) / ctx->n_workers;
		k->cap = k->rate * w->hz;
		k->credit = k->cap;
		k->last_tsc = rte_rdtsc();
	}
}

/* One more flood of bridge b at tsc within its flood-rate (token bucket)? */
static inline bool
flood_ok(struct worker *w, unsigned b, uint64_t tsc)
{
	struct l2_flood_bucket *k = &w->l2_flood[b];
	uint64_t el = tsc - k->last_tsc;

	if (k->rate == 0)
		return true;
	k->last_tsc = tsc;
	k->credit = el >= w->hz ? k->cap : RTE_MIN(k->cap, k->credit + el * k->rate);
	if (k->credit < w->hz)
		return false;
	k->credit -= w->hz;
	return true;
}

/* Source MAC src on vlan of bridge b, seen at `where` at now_ns / tsc, e
 * its entry in b's table (NULL: none): refreshed when the table has it
 * there (or static), else asked of the control lcore, unless this worker
 * asked for the same lately. A full ring is counted; the frame goes on
 * either way. */
static void
l2_learn(struct worker *w, unsigned b, const struct gw_mac_entry *e, const uint8_t *src,
	 uint16_t vlan, uint32_t where, uint64_t now_ns, uint64_t tsc)
{
	struct gw_l2_learn ev;
	struct l2_learn_slot *s;
	uint64_t key = 0;

	if (e != NULL && (e->is_static || gw_mac_where(e) == where)) {
		gw_mac_touch(e, now_ns);
		return;
	}
	for (unsigned i = 0; i < GW_MAC_ADDR_BYTES; i++)
		key = key << 8 | src[i];
	key |= (uint64_t)vlan << 48 | (uint64_t)b << 60;
	s = &w->l2_filter[(key * 0x9e3779b97f4a7c15ull) >> (64 - L2_LEARN_FILTER_BITS)];
	if (s->key == key && s->where == where && tsc < s->until_tsc)
		return;
	memcpy(ev.mac, src, GW_MAC_ADDR_BYTES);
	ev.vlan = vlan;
	ev.where = where;
	ev.bridge = (uint8_t)b;
	memset(ev.pad, 0, sizeof(ev.pad));
	if (rte_ring_sp_enqueue_elem(w->ctx->l2_learn[w->idx], &ev, sizeof(ev)) != 0) {
		w->st->l2_learn_ring_full++;
		return;
	}
	w->st->l2_learn_sent++;
	s->key = key;
	s->where = where;
	s->until_tsc = tsc + w->hz / 1000 * L2_LEARN_REPOST_MS;
}

/* An ESP outbound burst being filled (one SA per packet). */
struct l2_out {
	struct esp_sa *esp[GW_BURST_PACKETS];
	struct rte_mbuf *m[GW_BURST_PACKETS];
	uint16_t mtu[GW_BURST_PACKETS];      /* the SA's outer MTU (gw_sa_frag_mtu), bytes */
	uint8_t res[GW_BURST_PACKETS];
	uint16_t n;
};

static void
out_flush(struct worker *w, struct l2_out *q)
{
	if (q->n == 0)
		return;
	esp_outbound_etherip_burst(q->esp, q->m, q->res, q->n);
	wk_esp_frag_route_send(w, q->m, q->res, q->mtu, q->n);
	q->n = 0;
}

static inline void
out_add(struct worker *w, struct l2_out *q, const struct gw_sa *sa, struct rte_mbuf *m)
{
	if (q->n == GW_BURST_PACKETS)
		out_flush(w, q);
	q->esp[q->n] = sa->esp;
	q->mtu[q->n] = gw_sa_frag_mtu(sa);
	q->m[q->n++] = m;
}

/* A copy of the one-segment ESP payload m in a new mbuf of m's pool, at the
 * same offset (the same head- and tailroom for ESP), or NULL: pool empty. */
static struct rte_mbuf *
l2_copy(const struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_alloc(m->pool);

	if (c == NULL)
		return NULL;
	c->data_off = m->data_off;
	memcpy(rte_pktmbuf_mtod(c, void *), rte_pktmbuf_mtod(m, const void *), m->data_len);
	c->data_len = m->data_len;
	c->pkt_len = m->pkt_len;
	c->port = m->port;
	c->packet_type = m->packet_type;
	return c;
}

/* Remote r's out SA, or NULL: no SA yet (that copy goes to the control
 * lcore to be staged). Any length goes: ESP longer than the SA's outer MTU
 * is fragmented after encryption (gw_frag_out.c). */
static inline const struct gw_sa *
remote_sa(struct worker *w, const struct gw_bridge *br, unsigned r)
{
	return gw_sadb_out(&w->ctx->sadb, br->remote_slot[r]);
}

/* ESP payload m of bridge br for remote r without an SA: to the control
 * lcore, which stages it for r's slot. */
static inline void
l2_punt(struct worker *w, const struct gw_bridge *br, unsigned r, struct rte_mbuf *m)
{
	gw_meta(m)->slot = (uint16_t)br->remote_slot[r];
	punt(w, m, GW_PUNT_NO_SA, br->port, 0);
}

/* The ESP payload m to every remote of br: a copy each, m itself the last
 * one; remotes without an SA get theirs punted (l2_punt). Copies that
 * cannot go are counted (no_mbuf). */
static void
l2_flood(struct worker *w, const struct gw_bridge *br, struct rte_mbuf *m, struct l2_out *q)
{
	if (br->n_remotes == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	w->st->l2_flooded++;
	for (unsigned r = 0; r < br->n_remotes; r++) {
		struct rte_mbuf *c = r + 1 < br->n_remotes ? l2_copy(m) : m;
		const struct gw_sa *sa;

		if (c == NULL) {
			w->st->drops[GW_DROP_NO_MBUF]++;
			continue;
		}
		sa = remote_sa(w, br, r);
		if (sa == NULL)
			l2_punt(w, br, r, c);
		else
			out_add(w, q, sa, c);
	}
}

/* Where a frame from the local segment goes by its destination MAC's entry
 * e (NULL: unknown, or a group address): a remote index, FWD_FLOOD, or
 * GW_MAC_LOCAL (not out). */
static inline uint32_t
l2_dest(const struct gw_bridge *br, const struct gw_mac_entry *e)
{
	uint32_t where;

	if (e == NULL)
		return FWD_FLOOD;
	where = gw_mac_where(e);
	return where == GW_MAC_LOCAL || where < br->n_remotes ? where : FWD_FLOOD;
}

/* One frame of bridge b from its port, checked: one whole segment (else
 * flattened), an Ethernet header, within the port's mtu after it and its
 * tags (l2_too_long), no 802.1D link-local destination unless the bridge
 * passes them, no group source. Returns the frame, or NULL: dropped. */
static struct rte_mbuf *
l2_check(struct worker *w, const struct gw_bridge *br, struct rte_mbuf *m)
{
	const uint8_t *f;
	uint32_t len;

	if (unlikely(m->nb_segs != 1)) {
		m = wk_flatten(w, m);
		if (m == NULL)
			return NULL;
	}
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	len = rte_pktmbuf_data_len(m);
	if (unlikely(len < GW_ETH_HDR_BYTES)) {
		drop(w, m, GW_DROP_L2_RUNT);
		return NULL;
	}
	if (unlikely(frame_too_long(f, len, w->ctx->ports[br->port].mtu))) {
		drop(w, m, GW_DROP_L2_TOO_LONG);
		return NULL;
	}
	if (unlikely(is_link_local(f)) && !br->link_local_pass) {
		drop(w, m, GW_DROP_L2_LINK_LOCAL);
		return NULL;
	}
	if (unlikely(gw_mac_is_group(f + L2_SRC_OFF))) {
		drop(w, m, GW_DROP_L2_GROUP_SOURCE);
		return NULL;
	}
	return m;
}

/* Checked frame m of bridge b to `to` (l2_dest): turned into its ESP payload
 * (EtherIP + frame) and queued on q for its remote(s), or dropped. */
static void
l2_send(struct worker *w, unsigned b, struct rte_mbuf *m, uint32_t to, struct l2_out *q,
	uint64_t tsc)
{
	const struct gw_bridge *br = &w->ctx->bridges[b];
	const struct gw_sa *sa;
	uint32_t plen;
	int off;

	if (to == GW_MAC_LOCAL) {
		drop(w, m, GW_DROP_L2_LOCAL);
		return;
	}
	if (to == FWD_FLOOD && !flood_ok(w, b, tsc)) {
		drop(w, m, GW_DROP_L2_FLOOD_RATE);
		return;
	}
	off = gw_etherip_encap(m->buf_addr, m->data_off, rte_pktmbuf_data_len(m), &plen);
	if (unlikely(off < 0)) {
		drop(w, m, GW_DROP_MALFORMED);
		return;
	}
	m->data_off = (uint16_t)off;
	m->data_len = (uint16_t)plen;
	m->pkt_len = plen;
	if (to == FWD_FLOOD) {
		l2_flood(w, br, m, q);
		return;
	}
	sa = remote_sa(w, br, to);
	if (sa != NULL)
		out_add(w, q, sa, m);
	else
		l2_punt(w, br, to, m);
}

/* The entries of keys k[0..n-1] of table t into e[] (NULL: none), with the
 * found entries prefetched: one bulk lookup, whose staged prefetches
 * of buckets and key slots hide the cache misses of a large table. */
static inline void
l2_lookup(const struct gw_mac_table *t, const struct gw_mac_key *k, unsigned n,
	  const struct gw_mac_entry **e)
{
	if (n == 0)
		return;
	gw_mac_lookup_bulk(t, k, n, e);   /* 1 .. GW_BURST_PACKETS keys: never -EINVAL */
	for (unsigned i = 0; i < n; i++)
		if (e[i] != NULL) {     /* both lines of an entry that straddles two */
			rte_prefetch0(e[i]);
			rte_prefetch0((const uint8_t *)(e[i] + 1) - 1);
		}
}

_Static_assert(GW_BURST_PACKETS <= RTE_HASH_LOOKUP_BULK_MAX, "a burst's keys in one bulk lookup");

/* Key `key` among a burst's distinct keys u[0..*nu-1]: the same as the last
 * one (a burst's frames come in runs of one flow) takes its index, else it
 * is added. Returns its index in u. */
static inline uint8_t
key_index(struct gw_mac_key *u, unsigned *nu, struct gw_mac_key key)
{
	uint64_t a, b;

	memcpy(&a, &key, sizeof(a));
	if (*nu > 0) {
		memcpy(&b, &u[*nu - 1], sizeof(b));
		if (a == b)
			return (uint8_t)(*nu - 1);
	}
	u[*nu] = key;
	return (uint8_t)(*nu)++;
}

void
wk_l2_outbound_burst(struct worker *w, unsigned pidx, struct rte_mbuf **pkts, uint16_t n)
{
	unsigned b = w->ctx->port_bridge[pidx] - 1u;
	const struct gw_bridge *br = &w->ctx->bridges[b];
	uint64_t tsc = rte_rdtsc(), now_ns = gw_mac_now_ns();
	struct gw_mac_key sk[GW_BURST_PACKETS], dk[GW_BURST_PACKETS];
	const struct gw_mac_entry *se[GW_BURST_PACKETS], *de[GW_BURST_PACKETS];
	struct rte_mbuf *fr[GW_BURST_PACKETS];
	uint8_t si[GW_BURST_PACKETS];        /* frame k's sk index */
	uint8_t di[GW_BURST_PACKETS];        /* frame k's dk index; GW_BURST_PACKETS: group */
	uint16_t vlan[GW_BURST_PACKETS];
	unsigned nf = 0, ns = 0, nd = 0;
	struct l2_out q;

	/* the burst's distinct source keys, and unicast destination keys, in two
	 * bulk lookups */
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = l2_check(w, br, pkts[i]);
		const uint8_t *f;

		if (m == NULL)
			continue;
		f = rte_pktmbuf_mtod(m, const uint8_t *);
		vlan[nf] = frame_vlan(f, rte_pktmbuf_data_len(m));
		/* 8 bytes at either MAC: within the Ethernet header l2_check saw */
		si[nf] = key_index(sk, &ns, gw_mac_key_load(f + L2_SRC_OFF, vlan[nf]));
		di[nf] = gw_mac_is_group(f) ? GW_BURST_PACKETS :
			 key_index(dk, &nd, gw_mac_key_load(f, vlan[nf]));
		fr[nf++] = m;
	}
	l2_lookup(br->mac, sk, ns, se);
	l2_lookup(br->mac, dk, nd, de);
	q.n = 0;
	for (unsigned k = 0; k < nf; k++) {
		const uint8_t *f = rte_pktmbuf_mtod(fr[k], const uint8_t *);

		l2_learn(w, b, se[si[k]], f + L2_SRC_OFF, vlan[k], GW_MAC_LOCAL, now_ns, tsc);
		l2_send(w, b, fr[k], l2_dest(br, di[k] < nd ? de[di[k]] : NULL), &q, tsc);
	}
	out_flush(w, &q);
}

void
wk_l2_slot_send(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct l2_out q;

	q.n = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t slot = gw_meta(m)->slot;
		const struct gw_sa *sa = slot < w->ctx->sadb.n_slots ?
					 gw_sadb_out(&w->ctx->sadb, slot) : NULL;

		if (sa == NULL) {                /* gone again: never in clear */
			drop(w, m, GW_DROP_NO_SA);
			continue;
		}
		/* l2_send punted one whole segment: EtherIP + at least an Ethernet header */
		if (unlikely(m->nb_segs != 1 ||
			     rte_pktmbuf_data_len(m) < GW_ETHERIP_HDR_BYTES + GW_ETH_HDR_BYTES)) {
			drop(w, m, GW_DROP_MALFORMED);
			continue;
		}
		out_add(w, &q, sa, m);
	}
	out_flush(w, &q);
}

/* Decrypted EtherIP payload m of in SA sa, checked (sa of a bridge, the
 * EtherIP and Ethernet headers, no group source) and cut to its frame.
 * Returns its bridge's index, or -1: dropped (taken back from the SA's
 * delivered count). */
static int
l2_in_check(struct worker *w, struct rte_mbuf *m, const struct gw_sa *sa)
{
	struct gw_etherip_frame f;
	enum gw_drop r;

	if (unlikely(sa->bridge == 0 || sa->bridge > w->ctx->n_bridges)) {
		esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
		drop(w, m, GW_DROP_MALFORMED);
		return -1;
	}
	r = gw_etherip_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &f);
	if (r == GW_DROP_NONE && gw_mac_is_group(rte_pktmbuf_mtod_offset(m, const uint8_t *,
									 f.off + L2_SRC_OFF)))
		r = GW_DROP_L2_GROUP_SOURCE;
	if (r != GW_DROP_NONE) {
		esp_sa_uncount(sa->esp, rte_pktmbuf_data_len(m));
		drop(w, m, r);
		return -1;
	}
	rte_pktmbuf_adj(m, (uint16_t)f.off);
	return sa->bridge - 1;
}

/* A burst's frames of one bridge b (checked), their in SAs and VLAN IDs,
 * and their distinct source keys k[0..nk-1] (frame j's: k[ki[j]]). */
struct l2_in_run {
	struct rte_mbuf *fr[GW_BURST_PACKETS];
	const struct gw_sa *sa[GW_BURST_PACKETS];
	uint16_t vlan[GW_BURST_PACKETS];
	uint8_t ki[GW_BURST_PACKETS];
	struct gw_mac_key k[GW_BURST_PACKETS];
	unsigned n, nk, b;
};

/* Run r: sources learned at each SA's remote (one bulk lookup), the frames
 * sent as they are on the bridge's port; r emptied. */
static void
l2_in_run(struct worker *w, struct l2_in_run *r, uint64_t now_ns, uint64_t tsc)
{
	const struct gw_bridge *br = &w->ctx->bridges[r->b];
	const struct gw_mac_entry *e[GW_BURST_PACKETS];

	l2_lookup(br->mac, r->k, r->nk, e);
	for (unsigned j = 0; j < r->n; j++) {
		struct rte_mbuf *m = r->fr[j];

		l2_learn(w, r->b, e[r->ki[j]], rte_pktmbuf_mtod_offset(m, const uint8_t *, L2_SRC_OFF),
			 r->vlan[j], r->sa[j]->bridge_remote, now_ns, tsc);
		m->packet_type = RTE_PTYPE_L2_ETHER;
		tx_enqueue(w, br->port, m);   /* split horizon: never to another remote */
	}
	r->n = 0;
	r->nk = 0;
}

void
wk_l2_inbound(struct worker *w, struct rte_mbuf **pkts, struct gw_sa *const *sas, uint16_t n)
{
	uint64_t tsc = rte_rdtsc(), now_ns = gw_mac_now_ns();
	struct l2_in_run r;

	/* each run of frames of one bridge: its distinct source keys in one bulk lookup */
	r.n = r.nk = r.b = 0;
	for (uint16_t i = 0; i < n; i++) {
		int fb = l2_in_check(w, pkts[i], sas[i]);
		const uint8_t *f;

		if (fb < 0)
			continue;
		if ((unsigned)fb != r.b && r.n > 0)
			l2_in_run(w, &r, now_ns, tsc);
		r.b = (unsigned)fb;
		f = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		r.vlan[r.n] = frame_vlan(f, rte_pktmbuf_data_len(pkts[i]));
		/* 8 bytes at the source MAC: within the Ethernet header checked */
		r.ki[r.n] = key_index(r.k, &r.nk, gw_mac_key_load(f + L2_SRC_OFF, r.vlan[r.n]));
		r.sa[r.n] = sas[i];
		r.fr[r.n++] = pkts[i];
	}
	if (r.n > 0)
		l2_in_run(w, &r, now_ns, tsc);
}
