/* SPDX-License-Identifier: BSD-3-Clause
 * Closing an association (RFC 7401 sections 5.3.7, 5.3.8, 6.14, 6.15):
 *
 *   CLOSE      ECHO_REQUEST_SIGNED(nonce), HIP_MAC, HIP_SIGNATURE
 *   CLOSE_ACK  ECHO_RESPONSE_SIGNED(nonce), HIP_MAC, HIP_SIGNATURE
 *
 * The closing side goes to CLOSING and resends CLOSE until a CLOSE_ACK that
 * echoes its nonce arrives (then CLOSED), or the retries run out (then
 * UNASSOCIATED). The other side answers an authenticated CLOSE with
 * CLOSE_ACK, removes the SAs and goes to CLOSED, where a retransmitted CLOSE
 * gets the same answer again, until HIP_CLOSED_HOLD_NS. Both sides remove
 * their SAs (sa_down) and keep the HIP keys only as long as a retransmission
 * can still need them. When both sides close at once the CLOSEs cross: each
 * answers the other's and goes to CLOSED, where the CLOSE_ACK to its own CLOSE
 * (authenticated, its echo ours) is then taken without a drop.
 */
#include <string.h>
#include <openssl/crypto.h>

#include "hip_internal.h"

/* Build CLOSE or CLOSE_ACK (echo_type and echo: the nonce, or the peer's
 * nonce echoed) into t. Returns 0, HIP_E_NOSPACE when it would outgrow
 * HIP_PACKET_MAX (a peer's echo too long to send back), or another negative
 * hip_err. */
static int
build_close(struct hip_assoc *a, struct hip_txbuf *t, uint8_t type, uint16_t echo_type,
	    const uint8_t *echo, size_t echo_len)
{
	struct hip_host *h = a->h;
	struct hip_builder b;
	struct hip_echo e = { .type = echo_type, .data = echo, .len = echo_len };
	int len;

	if (hip_build_start(&b, t, type, h->hi->hit, a->peer_hit) != 0)
		return HIP_E_ARG;
	hip_echo_put(&b, &e);
	hip_cover_put_mac(h, &b, HIP_PARAM_HIP_MAC, a->suite,
			  &a->keys.hip_int[hip_dir_out(h->hi->hit, a->peer_hit)], NULL, 0);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE, 0);
	len = hip_build_finish(&b);
	if (len < 0)
		return len;
	t->len = (size_t)len;
	return 0;
}

int
hip_close_start(struct hip_assoc *a, uint64_t now)
{
	if (a->state != HIP_STATE_ESTABLISHED && a->state != HIP_STATE_R2_SENT)
		return -1;
	hip_update_abort(a);
	if (hip_rand(a->h, a->echo, sizeof(a->echo)) != 0 ||
	    build_close(a, &a->tx, HIP_CLOSE, HIP_PARAM_ECHO_REQUEST_SIGNED, a->echo, sizeof(a->echo)) != 0 ||
	    hip_send(a->h, &a->local, &a->remote, &a->udp, a->tx.b, a->tx.len) != 0)
		return -1;
	hip_state_set(a, HIP_STATE_CLOSING, now);
	hip_rtx_arm(a, HIP_CLOSE_RETRIES_MAX, now);
	return 0;
}

/* MAC and signature of a CLOSE / CLOSE_ACK from the peer */
static int
check(struct hip_host *h, struct hip_assoc *a, const uint8_t *pkt, const struct hip_params *p)
{
	if (hip_cover_check_mac(h, pkt, p->mac, a->suite,
				&a->keys.hip_int[hip_dir_in(h->hi->hit, a->peer_hit)], NULL, 0) != 0)
		return hip_drop(h, &h->st.drop_mac, HIP_E_HOST_AUTH);
	if (hip_cover_check_sig(h, pkt, p->sig, &a->peer_hi, NULL) != 0)
		return hip_drop(h, &h->st.drop_sig, HIP_E_HOST_AUTH);
	return 0;
}

/* A CLOSE's echo request, authenticated, and the CLOSE_ACK that echoes it
 * built into *ack first: a CLOSE whose echo it cannot carry back in one
 * packet is refused before anything changes. 0, or the drop. */
static int
close_verify(struct hip_assoc *a, const struct hip_rx *rx, struct hip_txbuf *ack)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;
	struct hip_echo e;
	int rc;

	if (p->echo_req_signed == NULL || p->mac == NULL || p->sig == NULL ||
	    hip_echo_parse(p->echo_req_signed, &e) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	rc = check(h, a, rx->pkt, p);
	if (rc != 0)
		return rc;
	rc = build_close(a, ack, HIP_CLOSE_ACK, HIP_PARAM_ECHO_RESPONSE_SIGNED, e.data, e.len);
	if (rc != 0)
		return hip_drop(h, rc == HIP_E_NOSPACE ? &h->st.drop_malformed : &h->st.drop_internal, rc);
	return 0;
}

/* Send the CLOSE_ACK *ack to the peer's address in use (kept in a.tx). */
static void
close_answer(struct hip_assoc *a, const struct hip_txbuf *ack)
{
	memcpy(a->tx.b, ack->b, ack->len);
	a->tx.len = ack->len;
	hip_send(a->h, &a->local, &a->remote, &a->udp, a->tx.b, a->tx.len);
}

int
hip_close_in(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_txbuf ack;
	int rc = close_verify(a, rx, &ack);

	if (rc != 0)
		return rc;
	a->remote = *rx->src;
	hip_update_abort(a);
	hip_assoc_sa_down(a);
	hip_rtx_stop(a);
	a->h->st.closes++;
	hip_state_set(a, HIP_STATE_CLOSED, rx->now);
	close_answer(a, &ack);
	return 0;
}

int
hip_close_in_closed(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_txbuf ack;
	int rc = close_verify(a, rx, &ack);

	if (rc != 0)
		return rc;
	a->remote = *rx->src;
	close_answer(a, &ack);   /* again, for this echo */
	return 0;
}

/* A CLOSE_ACK, authenticated, that echoes our CLOSE's nonce. 0, or the drop. */
static int
close_ack_verify(struct hip_assoc *a, const struct hip_rx *rx)
{
	struct hip_host *h = a->h;
	const struct hip_params *p = rx->p;
	struct hip_echo e;
	int rc;

	if (p->echo_resp_signed == NULL || p->mac == NULL || p->sig == NULL ||
	    hip_echo_parse(p->echo_resp_signed, &e) != 0)
		return hip_drop(h, &h->st.drop_malformed, HIP_E_PARAM_VALUE);
	rc = check(h, a, rx->pkt, p);
	if (rc != 0)
		return rc;
	if (e.len != sizeof(a->echo) || CRYPTO_memcmp(e.data, a->echo, sizeof(a->echo)) != 0)
		return hip_drop(h, &h->st.drop_replay, HIP_E_HOST_AUTH);
	return 0;
}

int
hip_close_ack_in(struct hip_assoc *a, const struct hip_rx *rx)
{
	int rc = close_ack_verify(a, rx);

	if (rc != 0)
		return rc;
	hip_rtx_stop(a);
	hip_assoc_sa_down(a);
	a->h->st.closes++;
	hip_state_set(a, HIP_STATE_CLOSED, rx->now);
	return 0;
}

int
hip_close_ack_in_closed(struct hip_assoc *a, const struct hip_rx *rx)
{
	/* both closed at once: the answer to our CLOSE, after we answered
	 * theirs (and went to CLOSED then) */
	return close_ack_verify(a, rx);
}
