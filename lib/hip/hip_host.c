/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP engine of one gateway: create and free, declared peers, the checks
 * every incoming packet passes before its role file sees it, timers, stats.
 *
 * Input checks, in order (each failure drops and counts the packet, RFC 7401
 * sections 5.1, 5.2.1, 6.2): fixed header and TLV layout (hip_packet_validate:
 * lengths, zero padding, strictly ascending types), checksum over the pseudo
 * header of the given addresses, the parameters located by type, the
 * Receiver's HIT is ours, the Sender's HIT is a declared peer, no unknown
 * critical parameter (NOTIFY UNSUPPORTED_CRITICAL_PARAMETER_TYPE with the
 * type). Then the cell of the association's state and the packet type
 * (hip_fsm.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/crypto.h>

#include "hip_internal.h"

uint64_t
hip_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * HIP_NSEC_PER_S + (uint64_t)ts.tv_nsec;
}

int
hip_drop(struct hip_host *h, uint64_t *reason, int err)
{
	h->st.dropped++;
	if (reason != NULL)
		(*reason)++;
	return err;
}

const char *
hip_host_strerror(int err)
{
	switch (err) {
	case HIP_E_HOST_STATE: return "unexpected in this state";
	case HIP_E_HOST_PEER: return "not a declared peer";
	case HIP_E_HOST_AUTH: return "authentication failed";
	case HIP_E_HOST_POLICY: return "refused by policy";
	case HIP_E_HOST_CRITICAL: return "unknown critical parameter";
	case HIP_E_HOST_INTERNAL: return "internal error";
	case HIP_E_HOST_RATE: return "over the R1 rate limit";
	default: return hip_strerror(err);
	}
}

int
hip_build_start(struct hip_builder *b, struct hip_txbuf *t, uint8_t type,
		const uint8_t *src_hit, const uint8_t *dst_hit)
{
	t->len = 0;
	return hip_build_init(b, t->b, sizeof(t->b), type, src_hit, dst_hit) == 0 ? 0 : -1;
}

int
hip_send(struct hip_host *h, const struct gw_addr *src, const struct gw_addr *dst,
	 const struct hip_udp *udp, uint8_t *pkt, size_t len)
{
	int rc;

	if (src->family != dst->family)
		return -1;
	if (udp != NULL && udp->rport != 0) {
		/* RFC 5770: over UDP the HIP checksum is zero, UDP's covers it */
		if (h->cfg.io.send_udp == NULL || len < HIP_HDR_LEN)
			return -1;
		hip_put16(pkt + HIP_OFF_CHECKSUM, HIP_UDP_HIP_CHECKSUM);
		h->st.tx++;
		h->st.nat_udp_tx++;
		h->cfg.io.send_udp(h->cfg.io.ctx, src, dst, udp, pkt, len);
		return 0;
	}
	if (dst->family == 4)
		rc = hip_checksum_set_ipv4(pkt, len, src->addr, dst->addr);
	else if (dst->family == 6)
		rc = hip_checksum_set_ipv6(pkt, len, src->addr, dst->addr);
	else
		rc = -1;
	if (rc != 0)
		return -1;
	h->st.tx++;
	if (h->cfg.io.send != NULL)
		h->cfg.io.send(h->cfg.io.ctx, src, dst, pkt, len);
	return 0;
}

/* ---- peers ---- */

struct hip_assoc *
hip_peer_by_hit(const struct hip_host *h, const uint8_t hit[HIP_HIT_LEN])
{
	for (unsigned x = 0; x < h->n_peers; x++)
		if (memcmp(h->peers[x]->peer_hit, hit, HIP_HIT_LEN) == 0)
			return h->peers[x];
	return NULL;
}

struct hip_assoc *
hip_peer_by_user(const struct hip_host *h, const void *user)
{
	for (unsigned x = 0; x < h->n_peers; x++)
		if (h->peers[x]->user == user)
			return h->peers[x];
	return NULL;
}

int
hip_host_add_peer(struct hip_host *h, const uint8_t hit[16],
		  const struct gw_addr *locators, unsigned n_locators,
		  const struct gw_addr *local, void *user)
{
	struct hip_assoc *a;

	if (h == NULL || hit == NULL || locators == NULL || n_locators == 0 ||
	    n_locators > HIP_MAX_LOCATORS || local == NULL ||
	    (local->family != 4 && local->family != 6) || !hip_hit_is_orchid(hit) ||
	    memcmp(hit, h->hi->hit, HIP_HIT_LEN) == 0 || hip_peer_by_hit(h, hit) != NULL ||
	    (user != NULL && hip_peer_by_user(h, user) != NULL))
		return -1;
	for (unsigned x = 0; x < n_locators; x++)
		if (locators[x].family != local->family)
			return -1;
	if (h->n_peers == h->cap_peers) {
		unsigned cap = h->cap_peers ? 2 * h->cap_peers : 8;
		struct hip_assoc **p = realloc(h->peers, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		h->peers = p;
		h->cap_peers = cap;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -1;
	a->h = h;
	memcpy(a->peer_hit, hit, HIP_HIT_LEN);
	memcpy(a->locators, locators, n_locators * sizeof(*locators));
	a->n_locators = n_locators;
	a->local = *local;
	a->remote = locators[0];
	a->user = user;
	a->state = HIP_STATE_UNASSOCIATED;
	h->peers[h->n_peers++] = a;
	return 0;
}

/* ---- create / free ---- */

static bool
cfg_ok(const struct hip_host_cfg *c, char *err, size_t errlen)
{
	const char *msg = NULL;

	if (c->hi == NULL || c->hi->pkey == NULL || !c->hi->has_private)
		msg = "no private Host Identity";
	else if (c->hi->algo != HIP_HI_ALGO_ECDSA && c->hi->algo != HIP_HI_ALGO_RSA)
		msg = "Host Identity algorithm not supported";
	else if (c->n_esp_transforms == 0 || c->n_esp_transforms > HIP_MAX_TRANSFORMS)
		msg = "no ESP transform";
	else if (c->n_dh_groups == 0 || c->n_dh_groups > HIP_MAX_DH_GROUPS)
		msg = "no DH group";
	else if (c->n_hip_ciphers == 0 || c->n_hip_ciphers > HIP_MAX_CIPHERS)
		msg = "no HIP cipher";
	else if (c->puzzle_k > HIP_PUZZLE_K_ACCEPT)
		msg = "puzzle K too large";
	else if (c->r1_rate > HIP_R1_RATE_MAX)
		msg = "R1 rate limit too large";
	if (msg == NULL) {
		for (unsigned x = 0; x < c->n_esp_transforms; x++)
			if (hip_esp_key_lens(c->esp_transforms[x], NULL, NULL) != 0)
				msg = "unsupported ESP transform";
		for (unsigned x = 0; x < c->n_dh_groups; x++)
			if (!hip_dh_group_supported(c->dh_groups[x]))
				msg = "unsupported DH group";
		for (unsigned x = 0; x < c->n_hip_ciphers; x++)
			if (hip_cipher_key_len(c->hip_ciphers[x]) < 0)
				msg = "unsupported HIP cipher";
	}
	if (msg != NULL && err != NULL && errlen > 0) {
		strncpy(err, msg, errlen - 1);
		err[errlen - 1] = 0;
	}
	return msg == NULL;
}

struct hip_host *
hip_host_create(const struct hip_host_cfg *cfg, char *err, size_t errlen)
{
	struct hip_host *h;

	if (cfg == NULL || !cfg_ok(cfg, err, errlen))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return NULL;
	h->cfg = *cfg;
	h->hi = cfg->hi;
	h->suite = cfg->hi->suite;
	h->rhash_len = hip_suite_rhash_len(h->suite);
	if (h->rhash_len == 0 || hip_bex_host_id_tlv(h) != 0 || hip_r1_init(h, 0) != 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "cannot compute the R1s");
		hip_host_free(h);
		return NULL;
	}
	h->r1_regen_at = 0;   /* time base unknown yet: first tick sets it */
	return h;
}

void
hip_host_free(struct hip_host *h)
{
	if (h == NULL)
		return;
	for (unsigned x = 0; x < h->n_peers; x++) {
		struct hip_assoc *a = h->peers[x];

		hip_assoc_reset(a);
		hip_hi_free(&a->hi_cache);
		OPENSSL_cleanse(a, sizeof(*a));
		free(a);
	}
	free(h->peers);
	hip_r1_free(h);
	OPENSSL_cleanse(h, sizeof(*h));
	free(h);
}

int
hip_host_set_rng(struct hip_host *h, int (*rng)(void *ctx, uint8_t *buf, size_t len),
		 void *rng_ctx, uint64_t now_ns)
{
	if (h == NULL)
		return -1;
	h->cfg.rng = rng;
	h->cfg.rng_ctx = rng_ctx;
	/* both generations anew, from the new RNG */
	hip_r1_free(h);
	h->cur_gen = HIP_R1_GENS - 1;
	return hip_r1_regen(h, now_ns);
}

int
hip_host_regen_r1(struct hip_host *h, uint64_t now_ns)
{
	return h == NULL ? -1 : hip_r1_regen(h, now_ns);
}

const uint8_t *
hip_host_hit(const struct hip_host *h)
{
	return h->hi->hit;
}

/* ---- input ---- */

/* Packet types a parameter may appear in (bit = packet type) */
#define PT(x) (1u << (x))
#define PT_UPD PT(HIP_UPDATE)

static const struct {
	uint16_t type;
	uint32_t in;
	size_t field;
} known[] = {
	{ HIP_PARAM_ESP_INFO, PT(HIP_I2) | PT(HIP_R2) | PT_UPD, offsetof(struct hip_params, esp_info) },
	{ HIP_PARAM_LOCATOR_SET, PT_UPD, offsetof(struct hip_params, locator_set) },
	{ HIP_PARAM_R1_COUNTER, PT(HIP_R1) | PT(HIP_I2), offsetof(struct hip_params, r1_counter) },
	{ HIP_PARAM_PUZZLE, PT(HIP_R1), offsetof(struct hip_params, puzzle) },
	{ HIP_PARAM_SOLUTION, PT(HIP_I2), offsetof(struct hip_params, solution) },
	{ HIP_PARAM_SEQ, PT_UPD, offsetof(struct hip_params, seq) },
	{ HIP_PARAM_ACK, PT_UPD, offsetof(struct hip_params, ack) },
	{ HIP_PARAM_DH_GROUP_LIST, PT(HIP_I1) | PT(HIP_R1), offsetof(struct hip_params, dh_group_list) },
	{ HIP_PARAM_DIFFIE_HELLMAN, PT(HIP_R1) | PT(HIP_I2) | PT_UPD, offsetof(struct hip_params, dh) },
	{ HIP_PARAM_HIP_CIPHER, PT(HIP_R1) | PT(HIP_I2), offsetof(struct hip_params, hip_cipher) },
	{ HIP_PARAM_NAT_TRAVERSAL_MODE, PT(HIP_R1) | PT(HIP_I2), offsetof(struct hip_params, nat_mode) },
	{ HIP_PARAM_ENCRYPTED, PT(HIP_I2), offsetof(struct hip_params, encrypted) },
	{ HIP_PARAM_HOST_ID, PT(HIP_R1) | PT(HIP_I2) | PT(HIP_NOTIFY), offsetof(struct hip_params, host_id) },
	{ HIP_PARAM_HIT_SUITE_LIST, PT(HIP_R1), offsetof(struct hip_params, hit_suite_list) },
	{ HIP_PARAM_NOTIFICATION, PT(HIP_NOTIFY), offsetof(struct hip_params, notification) },
	{ HIP_PARAM_ECHO_REQUEST_SIGNED, PT(HIP_R1) | PT_UPD | PT(HIP_CLOSE),
	  offsetof(struct hip_params, echo_req_signed) },
	{ HIP_PARAM_ECHO_RESPONSE_SIGNED, PT(HIP_I2) | PT_UPD | PT(HIP_CLOSE_ACK),
	  offsetof(struct hip_params, echo_resp_signed) },
	{ HIP_PARAM_TRANSPORT_FORMAT_LIST, PT(HIP_R1) | PT(HIP_I2), offsetof(struct hip_params, tf_list) },
	{ HIP_PARAM_ESP_TRANSFORM, PT(HIP_R1) | PT(HIP_I2), offsetof(struct hip_params, esp_transform) },
	{ HIP_PARAM_HIP_MAC, PT(HIP_I2) | PT_UPD | PT(HIP_CLOSE) | PT(HIP_CLOSE_ACK),
	  offsetof(struct hip_params, mac) },
	{ HIP_PARAM_HIP_MAC_2, PT(HIP_R2), offsetof(struct hip_params, mac2) },
	{ HIP_PARAM_HIP_SIGNATURE_2, PT(HIP_R1), offsetof(struct hip_params, sig2) },
	{ HIP_PARAM_HIP_SIGNATURE, PT(HIP_I2) | PT(HIP_R2) | PT_UPD | PT(HIP_NOTIFY) |
	  PT(HIP_CLOSE) | PT(HIP_CLOSE_ACK), offsetof(struct hip_params, sig) },
	{ HIP_PARAM_ECHO_RESPONSE_UNSIGNED, PT(HIP_I2) | PT_UPD,
	  offsetof(struct hip_params, echo_resp_unsigned) },
	{ HIP_PARAM_ECHO_REQUEST_UNSIGNED, PT(HIP_I1) | PT(HIP_R1) | PT_UPD,
	  offsetof(struct hip_params, echo_req_unsigned) },
};

/* Locate the parameters of a validated packet. Unknown (or out of place)
 * non-critical parameters are ignored (RFC 7401 5.2.1); the first unknown
 * critical one is noted. Returns 0, or -1 when there are too many. */
static int
collect(const uint8_t *pkt, const struct hip_hdr *hdr, struct hip_params *p)
{
	struct hip_tlv_iter it;
	struct hip_tlv t;
	int rc;

	memset(p, 0, sizeof(*p));
	hip_tlv_iter_init(&it, pkt, hdr->pkt_len, 0);
	while ((rc = hip_tlv_next(&it, &t)) == 1) {
		bool found = false;

		for (size_t x = 0; x < sizeof(known) / sizeof(known[0]); x++) {
			if (known[x].type != t.type)
				continue;
			if (hdr->packet_type < 32 && (known[x].in & PT(hdr->packet_type)) != 0) {
				const struct hip_tlv **slot =
					(const struct hip_tlv **)((uint8_t *)p + known[x].field);

				if (p->n == sizeof(p->tlv) / sizeof(p->tlv[0]))
					return -1;
				p->tlv[p->n] = t;
				*slot = &p->tlv[p->n++];
				found = true;
			}
			break;
		}
		if (!found && hip_param_is_critical(t.type) && p->unknown_critical == 0)
			p->unknown_critical = t.type;
	}
	return rc < 0 ? -1 : 0;
}

static int
checksum_ok(const uint8_t *pkt, size_t len, const struct gw_addr *src, const struct gw_addr *dst)
{
	if (src->family != dst->family)
		return 0;
	if (src->family == 4)
		return hip_checksum_verify_ipv4(pkt, len, src->addr, dst->addr) == 0;
	if (src->family == 6)
		return hip_checksum_verify_ipv6(pkt, len, src->addr, dst->addr) == 0;
	return 0;
}

static int
host_input(struct hip_host *h, const struct gw_addr *src, const struct gw_addr *dst,
	   const struct hip_udp *udp, const uint8_t *pkt, size_t len, uint64_t now_ns)
{
	static const uint8_t null_hit[HIP_HIT_LEN];
	struct hip_hdr hdr;
	struct hip_params p;
	struct hip_rx rx;
	struct hip_assoc *a;
	int rc;

	if (h == NULL || src == NULL || dst == NULL || pkt == NULL)
		return HIP_E_ARG;
	h->st.rx++;
	rc = hip_packet_validate(pkt, len, 0, &hdr, NULL);
	if (rc < 0)
		return hip_drop(h, &h->st.drop_malformed, rc);
	/* over UDP the HIP checksum is not checked (RFC 5770: UDP's covers it) */
	if (udp->rport == 0 && !checksum_ok(pkt, hdr.pkt_len, src, dst))
		return hip_drop(h, &h->st.drop_checksum, HIP_E_CHECKSUM);
	if (collect(pkt, &hdr, &p) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_TOO_MANY);
	if (hdr.packet_type == HIP_I1)
		hip_r1_note_i1(h, now_ns);   /* load, whoever sends it */
	/* Receiver's HIT: ours. An R1 may come with a NULL one (precomputed,
	 * RFC 7401 5.3.2); we do no opportunistic mode (NULL in I1 refused). */
	if (memcmp(hdr.hit_receiver, h->hi->hit, HIP_HIT_LEN) != 0 &&
	    !(hdr.packet_type == HIP_R1 && memcmp(hdr.hit_receiver, null_hit, HIP_HIT_LEN) == 0))
		return hip_drop(h, &h->st.drop_not_for_us, HIP_E_HOST_PEER);
	a = hip_peer_by_hit(h, hdr.hit_sender);
	if (a == NULL)
		return hip_drop(h, &h->st.drop_unknown_peer, HIP_E_HOST_PEER);
	if (p.unknown_critical != 0) {
		uint8_t d[2];

		hip_put16(d, p.unknown_critical);
		hip_notify_send(h, hdr.hit_sender, dst, src, udp,
				HIP_NOTIFY_UNSUPPORTED_CRITICAL_PARAMETER_TYPE, d, sizeof(d), now_ns);
		return hip_drop(h, &h->st.drop_critical, HIP_E_HOST_CRITICAL);
	}
	rx.pkt = pkt;
	rx.hdr = &hdr;
	rx.p = &p;
	rx.src = src;
	rx.dst = dst;
	rx.udp = *udp;
	rx.now = now_ns;
	return hip_fsm_input(a, &rx);
}

int
hip_host_input(struct hip_host *h, const struct gw_addr *src, const struct gw_addr *dst,
	       const uint8_t *pkt, size_t len, uint64_t now_ns)
{
	static const struct hip_udp plain;

	return host_input(h, src, dst, &plain, pkt, len, now_ns);
}

int
hip_host_input_udp(struct hip_host *h, const struct gw_addr *src, const struct gw_addr *dst,
		   const struct hip_udp *udp, const uint8_t *pkt, size_t len, uint64_t now_ns)
{
	if (h == NULL || udp == NULL || udp->lport == 0 || udp->rport == 0)
		return HIP_E_ARG;
	if (h->cfg.io.send_udp == NULL) {   /* no UDP here: what came cannot be answered */
		h->st.rx++;
		return hip_drop(h, &h->st.drop_policy, HIP_E_HOST_POLICY);
	}
	h->st.nat_udp_rx++;
	return host_input(h, src, dst, udp, pkt, len, now_ns);
}

int
hip_host_set_peer_path(struct hip_host *h, void *peer_user, const struct gw_addr *remote,
		       uint16_t rport)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);

	if (a == NULL || remote == NULL || rport == 0 || a->udp.rport == 0 ||
	    remote->family != a->local.family)
		return -1;
	a->remote = *remote;
	a->udp.rport = rport;
	return 0;
}

int
hip_host_set_peer_nat(struct hip_host *h, void *peer_user, enum hip_nat_mode mode,
		      uint64_t keepalive_ns)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);

	if (a == NULL || (mode != HIP_NAT_AUTO && mode != HIP_NAT_FORCE && mode != HIP_NAT_OFF))
		return -1;
	a->nat = mode;
	a->keepalive_ns = keepalive_ns;
	return 0;
}

/* ---- driving ---- */

int
hip_host_connect(struct hip_host *h, void *peer_user, uint64_t now_ns)
{
	return hip_host_connect_to(h, peer_user, NULL, now_ns) < 0 ? -1 : 0;
}

int
hip_host_connect_to(struct hip_host *h, void *peer_user, const struct gw_addr *locator,
		    uint64_t now_ns)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);
	unsigned first = 0;

	if (a == NULL)
		return -1;
	switch (a->state) {
	case HIP_STATE_UNASSOCIATED:
	case HIP_STATE_CLOSED:
		break;
	case HIP_STATE_E_FAILED:
		if (now_ns - a->state_since < HIP_E_FAILED_HOLD_NS)
			return 0;
		break;
	default:
		return 0;   /* running or established */
	}
	for (unsigned x = 0; locator != NULL && x < a->n_locators; x++)
		if (a->locators[x].family == locator->family &&
		    memcmp(a->locators[x].addr, locator->addr, locator->family == 4 ? 4 : 16) == 0)
			first = x;
	hip_assoc_reset(a);
	a->initiator = true;
	memset(&a->times, 0, sizeof(a->times));
	a->t_i1_out = now_ns;
	a->loc_first = first;
	hip_bex_send_i1(a, now_ns);   /* a send that fails is retried by the timer */
	return a->state == HIP_STATE_I1_SENT ? 1 : 0;
}

void
hip_host_tick(struct hip_host *h, uint64_t now_ns)
{
	if (h == NULL)
		return;
	if (h->r1_regen_at == 0)
		h->r1_regen_at = now_ns + HIP_R1_REGEN_NS;
	hip_r1_tick(h, now_ns);
	for (unsigned x = 0; x < h->n_peers; x++)
		hip_state_tick(h->peers[x], now_ns);
}

int
hip_host_rekey(struct hip_host *h, void *peer_user, uint64_t now_ns)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);

	if (a == NULL || a->state != HIP_STATE_ESTABLISHED)
		return -1;
	if (a->rekey != HIP_REKEY_NONE)
		return 0;   /* one in flight */
	return hip_update_start(a, now_ns);
}

void
hip_host_first_esp(struct hip_host *h, void *peer_user, uint64_t now_ns)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);

	if (a == NULL || !a->bex_done_pending)
		return;
	a->times.r2_to_esp = now_ns - a->t_r2_in;
	a->times.tbe = now_ns - a->t_i1_out;
	hip_assoc_report_bex(a);
}

int
hip_host_data_in(struct hip_host *h, void *peer_user, uint64_t now_ns)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);

	if (a == NULL)
		return -1;
	if (a->state != HIP_STATE_R2_SENT || !a->sa_given)
		return 0;
	/* RFC 7401 4.4.3, R2-SENT: "Receive data or UPDATE: Move to ESTABLISHED" */
	hip_assoc_r2_sent_done(a, now_ns);
	return 1;
}

int
hip_host_forget(struct hip_host *h, void *peer_user, uint64_t now_ns)
{
	struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);

	if (a == NULL)
		return -1;
	if (a->bex_done_pending)
		hip_assoc_report_bex(a);   /* done, but no first ESP packet was reported */
	hip_assoc_sa_down(a);
	hip_assoc_reset(a);
	hip_state_set(a, HIP_STATE_UNASSOCIATED, now_ns);
	return 0;
}

void
hip_host_close_all(struct hip_host *h, uint64_t now_ns)
{
	if (h == NULL)
		return;
	for (unsigned x = 0; x < h->n_peers; x++) {
		struct hip_assoc *a = h->peers[x];

		if (a->state == HIP_STATE_ESTABLISHED || a->state == HIP_STATE_R2_SENT)
			hip_close_start(a, now_ns);
	}
}

void
hip_host_stats(const struct hip_host *h, struct hip_host_stats *out)
{
	if (h == NULL || out == NULL)
		return;
	*out = h->st;
	out->puzzle_k = h->k;
	out->r1_rate = h->cfg.r1_rate;
}

int
hip_host_peer_info(const struct hip_host *h, const void *peer_user, struct hip_peer_info *out)
{
	const struct hip_assoc *a = h == NULL ? NULL : hip_peer_by_user(h, peer_user);

	if (a == NULL || out == NULL)
		return -1;
	memset(out, 0, sizeof(*out));
	out->state = a->state;
	out->initiator = a->initiator;
	out->spi_in = a->spi_in;
	out->spi_out = a->spi_out;
	out->esp_transform = a->esp_transform;
	out->dh_group = a->dh_group;
	out->hip_cipher = a->hip_cipher;
	out->last_notify = a->last_notify;
	out->notify_rx = a->notify_rx;
	out->rekeys = a->rekeys;
	out->times = a->times;
	out->local = a->local;
	out->remote = a->remote;
	memcpy(out->peer_locators, a->peer_loc, a->n_peer_loc * sizeof(a->peer_loc[0]));
	out->n_peer_locators = a->n_peer_loc;
	out->rr_pending = a->rr_pending || a->mob_tx == HIP_MOB_TX_ECHO || a->rr_in_rekey;
	out->udp = a->udp;
	for (unsigned x = 0; x < h->n_our_loc; x++) {
		struct hip_locator_info *l = &out->our_locators[x];

		l->addr = h->our_loc[x];
		l->spi = a->spi_in;
		l->lifetime_s = HIP_LOCATOR_LIFETIME_S;
		l->preferred = x == h->our_pref;
		l->state = memcmp(&l->addr, &a->local, sizeof(l->addr)) == 0 ? HIP_LOC_ACTIVE :
			   (a->our_verified & (1u << x)) != 0 ? HIP_LOC_VERIFIED : HIP_LOC_UNVERIFIED;
	}
	out->n_our_locators = h->n_our_loc;
	return 0;
}
