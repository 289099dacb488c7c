/* SPDX-License-Identifier: BSD-3-Clause
 * NOTIFY (RFC 7401 sections 5.3.6, 5.2.19, 6.13):
 *
 *   NOTIFY  HOST_ID, NOTIFICATION, HIP_SIGNATURE
 *
 * Sent for the errors RFC 7401 names: UNSUPPORTED_CRITICAL_PARAMETER_TYPE
 * (data: the type), INVALID_DH_CHOSEN, INVALID_HIP_CIPHER_CHOSEN,
 * INVALID_ESP_TRANSFORM_CHOSEN, UNSUPPORTED_HIT_SUITE, ENCRYPTION_FAILED,
 * HIP_MAC_FAILED, AUTHENTICATION_FAILED, and INVALID_SYNTAX (only once the
 * MAC and signature verified, as 5.2.19 asks). Only to declared peers, and
 * at most HIP_NOTIFY_BURST a second: a NOTIFY costs a signature, so forged
 * packets must not turn us into a signing oracle or an amplifier. HOST_ID is
 * included so that a peer without our HI yet can verify it.
 *
 * A received NOTIFY is verified (with the peer's HI, or the HOST_ID in it when
 * it hashes to the sender's HIT), counted and remembered; it never changes
 * the association's state (6.13). A NAT keepalive (RFC 9028 4.10: NOTIFY
 * NAT_KEEPALIVE, sent by hip_notify_keepalive from the side behind a NAT) is
 * verified and counted apart.
 */
#include <string.h>

#include "hip_internal.h"

void
hip_notify_send(struct hip_host *h, const uint8_t peer_hit[HIP_HIT_LEN],
		const struct gw_addr *src, const struct gw_addr *dst, const struct hip_udp *udp,
		uint16_t type, const void *data, size_t data_len, uint64_t now)
{
	struct hip_txbuf out;
	struct hip_builder b;
	struct hip_notification n = { .msg_type = type, .data = data, .data_len = data_len };
	int len;

	if (now - h->notify_window_start >= HIP_NSEC_PER_S || h->notify_window_start == 0) {
		h->notify_window_start = now == 0 ? 1 : now;
		h->notify_in_window = 0;
	}
	if (h->notify_in_window >= HIP_NOTIFY_BURST)
		return;
	h->notify_in_window++;
	if (hip_build_start(&b, &out, HIP_NOTIFY, h->hi->hit, peer_hit) != 0)
		return;
	hip_bex_put_host_id(h, &b);
	hip_notification_put(&b, &n);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE, 0);
	len = hip_build_finish(&b);
	if (len < 0)
		return;
	if (hip_send(h, src, dst, udp, out.b, (size_t)len) == 0)
		h->st.notify_tx++;
}

void
hip_notify_keepalive(struct hip_assoc *a)
{
	struct hip_host *h = a->h;
	struct hip_txbuf out;
	struct hip_builder b;
	struct hip_notification n = { .msg_type = HIP_NOTIFY_NAT_KEEPALIVE };
	int len;

	if (hip_build_start(&b, &out, HIP_NOTIFY, h->hi->hit, a->peer_hit) != 0)
		return;
	hip_notification_put(&b, &n);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE, 0);
	len = hip_build_finish(&b);
	if (len >= 0 && hip_send(h, &a->local, &a->remote, &a->udp, out.b, (size_t)len) == 0)
		h->st.nat_keepalive_tx++;
}

int
hip_notify_in(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;
	struct hip_notification n;
	struct hip_hi tmp = { 0 };
	const struct hip_hi *hi = a->peer_hi.pkey != NULL ? &a->peer_hi : NULL;
	int rc;

	if (p->notification == NULL || p->sig == NULL || hip_notification_parse(p->notification, &n) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	if (hi == NULL) {
		struct hip_host_id hid;

		if (p->host_id == NULL || hip_host_id_parse(p->host_id, &hid) != 0 ||
		    hip_hi_decode(hid.algorithm, hid.hi, hid.hi_len, &tmp) != 0)
			return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
		if (memcmp(tmp.hit, rx->hdr->hit_sender, HIP_HIT_LEN) != 0) {
			hip_hi_free(&tmp);
			return hip_drop(h, &h->st.drop_hit_mismatch, HIP_E_HOST_AUTH);
		}
		hi = &tmp;
	}
	rc = hip_cover_check_sig(h, rx->pkt, p->sig, hi, NULL);
	hip_hi_free(&tmp);
	if (rc != 0)
		return hip_drop(h, &h->st.drop_sig, HIP_E_HOST_AUTH);
	if (n.msg_type == HIP_NOTIFY_NAT_KEEPALIVE) {
		h->st.nat_keepalive_rx++;   /* the NAT's mapping kept; not a peer notice */
		return 0;
	}
	h->st.notify_rx++;
	a->notify_rx++;
	a->last_notify = n.msg_type;
	return 0;
}
