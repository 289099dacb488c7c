/* SPDX-License-Identifier: BSD-3-Clause
 * The tracker (mbox_track.h): create and free, the checks every HIP packet
 * passes before its state's cell sees it, names, counters, the walk.
 *
 * Checks, in order (each failure drops and counts the packet): arguments
 * and outer addresses; fixed header and TLV layout (hip_packet_validate:
 * RFC 7401 5.1, 5.2.1: lengths, zero padding, strictly ascending types);
 * checksum over the pseudo header of the outer addresses (5.1.1); the
 * packet types the box follows; the HITs: the sender's an ORCHID (RFC 7343),
 * the receiver's too, or NULL in an I1 (opportunistic, 5.3.1); the rules on
 * the pair (initiator, responder) the packet implies. Then the cell of the
 * association's state and the packet type (mbox_fsm.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbox_internal.h"

#define MBOX_I1_RATE_MAX 1000000u   /* I1/s per source at most (mbox_params.i1_rate) */

static unsigned tracker_ids;          /* names the rte_hash tables of each tracker */

static const char *const state_names[MBOX_STATES] = {
	"NONE", "R1_SEEN", "I2_SEEN", "ESTABLISHED", "REKEYING", "CLOSING", "ENDED",
};

const char *
mbox_state_name(unsigned s)
{
	return s < MBOX_STATES ? state_names[s] : "?";
}

#define X_NAME(n, s, d) s,
#define X_DOC(n, s, d) d,
static const char *const reason_names[MBOX_DROPS] = { MBOX_DROP_LIST(X_NAME) };
static const char *const reason_docs[MBOX_DROPS] = { MBOX_DROP_LIST(X_DOC) };

const char *
mbox_reason_name(unsigned why)
{
	return why < MBOX_DROPS ? reason_names[why] : "?";
}

const char *
mbox_reason_doc(unsigned why)
{
	return why < MBOX_DROPS ? reason_docs[why] : "";
}

void
mbox_dirty(struct mbox_tracker *t)
{
	t->dirty = true;
}

/* ---- create / free ---- */

static int
params_ok(const struct mbox_params *p, char *err, size_t errlen)
{
	const char *msg = NULL;

	if (p->max_assocs == 0 || p->max_assocs > MBOX_ASSOCS_MAX)
		msg = "max_assocs out of 1 .. 65536";
	else if (p->flows == NULL)
		msg = "no flow table";
	else if (p->n_rules > MBOX_RULES_MAX || (p->n_rules > 0 && p->rules == NULL))
		msg = "more rules than MBOX_RULES_MAX, or none given";
	else if (p->i1_rate > MBOX_I1_RATE_MAX)
		msg = "i1_rate above 1000000 per second";
	if (msg != NULL)
		snprintf(err, errlen, "middlebox: %s", msg);
	return msg == NULL;
}

static int
copy_params(struct mbox_tracker *t, const struct mbox_params *p, char *err, size_t errlen)
{
	t->p = *p;
	if (t->p.idle_ns == 0)
		t->p.idle_ns = MBOX_IDLE_DEFAULT_NS;
	if (t->p.rekey_grace_ns == 0)
		t->p.rekey_grace_ns = MBOX_GRACE_DEFAULT_NS;
	if (p->n_rules > 0) {
		t->rules = malloc(p->n_rules * sizeof(t->rules[0]));
		if (t->rules == NULL)
			goto nomem;
		memcpy(t->rules, p->rules, p->n_rules * sizeof(t->rules[0]));
	}
	t->p.rules = t->rules;
	if (p->state_path != NULL) {
		t->state_path = strdup(p->state_path);
		if (t->state_path == NULL)
			goto nomem;
	}
	t->p.state_path = t->state_path;
	return 0;
nomem:
	snprintf(err, errlen, "middlebox: no memory");
	return -1;
}

struct mbox_tracker *
mbox_create(const struct mbox_params *p, char *err, size_t errlen)
{
	struct mbox_tracker *t;
	char dummy[8];

	if (err == NULL || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	if (p == NULL) {
		snprintf(err, errlen, "middlebox: no parameters");
		return NULL;
	}
	if (!params_ok(p, err, errlen))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		snprintf(err, errlen, "middlebox: no memory");
		return NULL;
	}
	t->tid = tracker_ids++;
	if (copy_params(t, p, err, errlen) != 0 || mbox_verify_init(t, err, errlen) != 0 ||
	    mbox_assoc_init(t, err, errlen) != 0 || mbox_rate_init(t, err, errlen) != 0 ||
	    mbox_close_init(t, err, errlen) != 0 ||
	    (t->state_path != NULL && mbox_state_load(t, err, errlen) != 0)) {
		mbox_free(t);
		return NULL;
	}
	return t;
}

void
mbox_free(struct mbox_tracker *t)
{
	if (t == NULL)
		return;
	mbox_assoc_fini(t);
	mbox_rate_fini(t);
	mbox_close_fini(t);
	mbox_verify_fini(t);
	free(t->rules);
	free(t->state_path);
	free(t);
}

/* ---- input ---- */

static int
checksum_ok(const uint8_t *b, size_t len, const struct gw_addr *src, const struct gw_addr *dst)
{
	if (src->family == 4)
		return hip_checksum_verify_ipv4(b, len, src->addr, dst->addr) == 0;
	return hip_checksum_verify_ipv6(b, len, src->addr, dst->addr) == 0;
}

/* The parameters the cells read, located by one walk of the TLVs. */
static int
collect(struct mbox_pkt *p)
{
	static const struct {
		uint16_t type;
		size_t field;
	} want[] = {
		{ HIP_PARAM_ESP_INFO, offsetof(struct mbox_pkt, esp_info) },
		{ HIP_PARAM_LOCATOR_SET, offsetof(struct mbox_pkt, locator_set) },
		{ HIP_PARAM_PUZZLE, offsetof(struct mbox_pkt, puzzle) },
		{ HIP_PARAM_SEQ, offsetof(struct mbox_pkt, seq) },
		{ HIP_PARAM_ACK, offsetof(struct mbox_pkt, ack) },
		{ HIP_PARAM_ENCRYPTED, offsetof(struct mbox_pkt, encrypted) },
		{ HIP_PARAM_HOST_ID, offsetof(struct mbox_pkt, host_id) },
		{ HIP_PARAM_ECHO_REQUEST_SIGNED, offsetof(struct mbox_pkt, echo_req) },
		{ HIP_PARAM_ECHO_RESPONSE_SIGNED, offsetof(struct mbox_pkt, echo_resp) },
		{ HIP_PARAM_HIP_SIGNATURE_2, offsetof(struct mbox_pkt, sig2) },
		{ HIP_PARAM_HIP_SIGNATURE, offsetof(struct mbox_pkt, sig) },
	};
	struct hip_tlv_iter it;
	struct hip_tlv tlv;
	int rc;

	_Static_assert(sizeof(want) / sizeof(want[0]) <= sizeof(p->tlv) / sizeof(p->tlv[0]),
		       "a slot in mbox_pkt.tlv for every type collected");
	hip_tlv_iter_init(&it, p->b, p->hdr.pkt_len, 0);
	while ((rc = hip_tlv_next(&it, &tlv)) == 1)
		for (size_t x = 0; x < sizeof(want) / sizeof(want[0]); x++)
			if (want[x].type == tlv.type) {
				const struct hip_tlv **slot =
					(const struct hip_tlv **)((uint8_t *)p + want[x].field);

				p->tlv[p->n] = tlv;
				*slot = &p->tlv[p->n++];
				break;
			}
	return rc < 0 ? MBOX_DROP_MALFORMED : MBOX_FWD;
}

static bool
null_hit(const uint8_t *hit)
{
	static const uint8_t zero[HIP_HIT_LEN];

	return memcmp(hit, zero, HIP_HIT_LEN) == 0;
}

/* The header, layout, checksum and HIT checks into *p. MBOX_FWD or the reason. */
static int
check(struct mbox_pkt *p, const uint8_t *b, size_t len)
{
	const uint8_t *s, *r;
	int rc;

	if (p->src->family != p->dst->family || (p->src->family != 4 && p->src->family != 6))
		return MBOX_DROP_MALFORMED;
	if (b == NULL || hip_packet_validate(b, len, 0, &p->hdr, NULL) < 0)
		return MBOX_DROP_MALFORMED;
	p->b = b;
	if (!p->udp && !checksum_ok(b, p->hdr.pkt_len, p->src, p->dst))
		return MBOX_DROP_CHECKSUM;
	switch (p->hdr.packet_type) {
	case HIP_I1: case HIP_R1: case HIP_I2: case HIP_R2: case HIP_UPDATE: case HIP_NOTIFY:
	case HIP_CLOSE: case HIP_CLOSE_ACK:
		break;
	default:
		return MBOX_DROP_TYPE;
	}
	s = p->hdr.hit_sender;
	r = p->hdr.hit_receiver;
	if (!hip_hit_is_orchid(s) || memcmp(s, r, HIP_HIT_LEN) == 0 ||
	    !(hip_hit_is_orchid(r) || (p->hdr.packet_type == HIP_I1 && null_hit(r))))
		return MBOX_DROP_MALFORMED;
	rc = collect(p);
	p->from = hip_hit_cmp(s, r) > 0 ? MBOX_HI : MBOX_LO;
	return rc;
}

/* The rules on the pair the packet belongs to (RFC 7401 4.1's roles): I1 and
 * I2 from the initiator, R1 and R2 from the responder; the rest by the
 * association's roles (NOTIFY without one: either way round). */
static bool
allowed(const struct mbox_tracker *t, const struct mbox_assoc *a, const struct mbox_pkt *p)
{
	const uint8_t *s = p->hdr.hit_sender, *r = p->hdr.hit_receiver;

	switch (p->hdr.packet_type) {
	case HIP_I1:
	case HIP_I2:
		return mbox_rules_allow(t, s, r);
	case HIP_R1:
	case HIP_R2:
		return mbox_rules_allow(t, r, s);
	default:
		if (a != NULL)
			return mbox_rules_allow(t, a->h[a->init].hit, a->h[1 - a->init].hit);
		return p->hdr.packet_type != HIP_NOTIFY || mbox_rules_allow(t, s, r) ||
		       mbox_rules_allow(t, r, s);
	}
}

enum mbox_verdict
mbox_count_drop(struct mbox_tracker *t, int rc, unsigned *why)
{
	t->st.rx++;
	t->st.dropped++;
	t->st.drops[rc]++;
	if (why != NULL)
		*why = (unsigned)rc;
	return MBOX_DROP;
}

enum mbox_verdict
mbox_input(struct mbox_tracker *t, const struct gw_addr *src, const struct gw_addr *dst,
	   const uint8_t *hip, size_t len, uint64_t now_ns, bool udp, unsigned *why)
{
	struct mbox_pkt p;
	struct mbox_assoc *a = NULL;
	int rc;

	memset(&p, 0, sizeof(p));
	p.src = src;
	p.dst = dst;
	p.now = now_ns;
	p.udp = udp;
	rc = src == NULL || dst == NULL ? MBOX_DROP_MALFORMED : check(&p, hip, len);
	if (rc == MBOX_FWD) {
		if (p.hdr.packet_type != HIP_I1 || !null_hit(p.hdr.hit_receiver))
			a = mbox_assoc_get(t, p.hdr.hit_sender, p.hdr.hit_receiver);
		rc = allowed(t, a, &p) ? mbox_fsm_input(t, a, &p) : MBOX_DROP_DENIED;
	}
	if (rc != MBOX_FWD)
		return mbox_count_drop(t, rc, why);
	t->st.rx++;
	t->st.forwarded++;
	return MBOX_FORWARD;
}

enum mbox_verdict
mbox_hip_input(struct mbox_tracker *t, const struct gw_addr *src, const struct gw_addr *dst,
	       const uint8_t *hip, size_t len, uint64_t now_ns, unsigned *why)
{
	if (t == NULL) {
		if (why != NULL)
			*why = MBOX_DROP_MALFORMED;
		return MBOX_DROP;
	}
	return mbox_input(t, src, dst, hip, len, now_ns, false, why);
}

/* ---- out ---- */

void
mbox_stats(const struct mbox_tracker *t, struct mbox_stats *out)
{
	if (t == NULL || out == NULL)
		return;
	*out = t->st;
	out->assocs = t->n_assocs;
	out->pending = t->n_pending;
	out->i1_sources = t->n_src;
}

int
mbox_assoc_next(const struct mbox_tracker *t, uint32_t *cursor, struct mbox_assoc_info *out)
{
	if (t == NULL || cursor == NULL || out == NULL)
		return 0;
	for (uint32_t i = *cursor; i < t->p.max_assocs; i++)
		if (t->slot[i] != NULL) {
			mbox_assoc_info(t, t->slot[i], out);
			*cursor = i + 1;
			return 1;
		}
	*cursor = t->p.max_assocs;
	return 0;
}

int
mbox_assoc_find(const struct mbox_tracker *t, const uint8_t a[HIP_HIT_LEN],
		const uint8_t b[HIP_HIT_LEN], struct mbox_assoc_info *out)
{
	const struct mbox_assoc *x = t == NULL || a == NULL || b == NULL ? NULL : mbox_assoc_get(t, a, b);

	if (x == NULL || out == NULL)
		return -1;
	mbox_assoc_info(t, x, out);
	return 0;
}

int
mbox_state_flush(struct mbox_tracker *t, char *err, size_t errlen)
{
	char dummy[8];

	if (err == NULL || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	if (t == NULL || t->state_path == NULL || !t->dirty)
		return 0;
	if (mbox_state_write(t, err, errlen) != 0) {
		t->st.state_write_errors++;
		return -1;
	}
	t->dirty = false;
	t->written = true;
	t->st.state_writes++;
	return 0;
}
