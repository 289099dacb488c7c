/* SPDX-License-Identifier: BSD-3-Clause
 * Host mobility in the HIP engine (RFC 8046; lib/hip/hip_mobility.c): two
 * engines in one process on the harness of tests/lib/hip_harness.h,
 * established, then one side's (or both sides') outer address changes.
 * Checked: the UPDATEs on the wire (LOCATOR_SET of type 1 locators with
 * the inbound SPI and the P bit, ESP_INFO OLD = NEW SPI, ECHO_REQUEST_SIGNED
 * to the new locator and nothing else there, ECHO_RESPONSE_SIGNED back),
 * the io.path calls (local at once, remote only after the echo), the SAs
 * (untouched, or new ones on the new path in the rekeying variant), the
 * locator states in hip_peer_info and the counters. Bad input arrives as
 * authentic packets: the peer's UPDATE changed, then given a new HIP_MAC
 * (its key from the KEYMAT the test-vector mode reports) and signature.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hip_harness.h"
#include "hip_host.h"
#include "hip_keymat.h"
#include "hip_mac.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hip_sig.h"

#ifndef HIPGW_TEST_DATA
#define HIPGW_TEST_DATA "tests/data"
#endif
#define KEYS_DIR HIPGW_TEST_DATA "/hip/keys"

#define A 0                       /* the side that moves (the mobile host) */
#define B 1                       /* its peer */
#define MS (1000ull * 1000)
#define PAST_R2_SENT_HOLD (11000 * MS)
#define ALL_RETRIES_MS 70000      /* past every UPDATE retransmission (0.5 + 1 + ... + 8 s) */

static struct hip_hi k_p256, k_p384;
static struct hh_world W;
static struct hh_side *const S = W.s;

static const struct hh_params P = {
	.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1,
	.esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
	.ciph = { HIP_CIPHER_AES_128_CBC }, .nc = 1,
	.k = 1, .det = true,
};

/* packets sent to `watch` (a victim's address), and the last UPDATE each side sent */
static struct gw_addr watch;
static unsigned to_watch;
static struct hh_pkt last_upd[2];

static bool
on_send(struct hh_side *s, const struct hh_pkt *p)
{
	if (watch.family != 0 && memcmp(&p->dst, &watch, sizeof(watch)) == 0)
		to_watch++;
	if (s->idx <= B && hh_ptype(p) == HIP_UPDATE)
		last_upd[s->idx] = *p;
	return true;
}

static void
harness_fail(const char *msg)
{
	fail_msg("%s", msg);
}

static int
setup(void **state)
{
	static const struct hh_hooks hooks = { .send = on_send };

	(void)state;
	hh_world_init(&W, &hooks, harness_fail);
	hh_key(&W, KEYS_DIR, "ecdsa-p256.pem", &k_p256);
	hh_key(&W, KEYS_DIR, "ecdsa-p384.pem", &k_p384);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	hip_hi_free(&k_p256);
	hip_hi_free(&k_p384);
	return 0;
}

static bool
addr_is(const struct gw_addr *x, const struct gw_addr *y)
{
	return memcmp(x, y, sizeof(*x)) == 0;
}

/* The outer address side a uses towards side b: its own (local) or b's. */
static const struct gw_addr *
peer_addr(int a, int b, bool local)
{
	static struct gw_addr r[4];
	static unsigned n;
	struct hip_peer_info pi = hh_peer(&W, a, b);

	n = (n + 1) % 4;
	r[n] = local ? pi.local : pi.remote;
	return &r[n];
}

/* A fresh pair, established both ways (B the initiator), the wire empty. */
static void
pair(void)
{
	hh_pair_up(&W, &k_p256, &k_p384, &P);
	memset(&watch, 0, sizeof(watch));
	to_watch = 0;
	memset(last_upd, 0, sizeof(last_upd));
	assert_int_equal(hip_host_connect(S[B].h, &S[A], W.now), 0);
	hh_run(&W, 100);
	hh_advance(&W, PAST_R2_SENT_HOLD);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(hh_state(&W, B, A), HIP_STATE_ESTABLISHED);
	W.qn = 0;
}

/* The address number n of side idx that is not its first: 192.0.2.(idx + 1 + 16 n) */
static struct gw_addr
addr_n(int idx, int n)
{
	struct gw_addr a;

	hh_addr(&a, false, idx + 16 * n);
	return a;
}

/* Side `who` moves to its address n and announces it (hip_host_set_locators). */
static struct gw_addr
move(int who, int n, bool keep_old, bool rekey)
{
	struct gw_addr to = addr_n(who, n);

	hh_move(&W, who, &to, keep_old);
	assert_int_equal(hip_host_set_locators(S[who].h, &to, 1, 0, rekey, W.now), 1);
	return to;
}

/* The locator set of an UPDATE on the wire (must be there). */
static struct hip_locator_set
locset_of(const struct hh_pkt *p)
{
	struct hip_tlv t;
	struct hip_locator_set ls;

	assert_int_equal(hip_param_find(p->b, p->len, HIP_PARAM_LOCATOR_SET, &t), 1);
	assert_int_equal(hip_locator_set_parse(&t, &ls), 0);
	return ls;
}

static bool
has(const struct hh_pkt *p, uint16_t type)
{
	return hh_find_param(p->b, p->len, type) != 0;
}

/* ------------------------------------------------------ our move, their check */

static void
test_our_move(void **state)
{
	struct gw_addr a1, a2, b1;
	struct hip_peer_info pa, pb;
	struct hip_locator_set ls;
	struct hip_esp_info ei;
	struct hip_tlv t;
	unsigned up_a, up_b;

	(void)state;
	pair();
	a1 = S[A].addr;
	b1 = S[B].addr;
	up_a = S[A].sa_up_n;
	up_b = S[B].sa_up_n;
	pa = hh_peer(&W, A, B);
	a2 = move(A, 1, false, false);
	/* at once: A uses a2 (io.path), and its UPDATE leaves from it */
	assert_int_equal(S[A].path_n, 1);
	assert_true(addr_is(&S[A].path_local, &a2));
	assert_true(addr_is(&S[A].path_remote, &b1));
	assert_int_equal(W.qn, 1);
	assert_int_equal(hh_ptype(&W.q[0]), HIP_UPDATE);
	assert_true(addr_is(&W.q[0].src, &a2));
	assert_true(addr_is(&W.q[0].dst, &b1));
	ls = locset_of(&W.q[0]);
	assert_int_equal(ls.n, 1);
	assert_int_equal(ls.loc[0].locator_type, HIP_LOCATOR_TYPE_ESP_SPI_IPV6);
	assert_true(ls.loc[0].preferred);
	assert_int_equal(hip_get32(ls.loc[0].locator), pa.spi_in);
	assert_int_equal(ls.loc[0].locator[4 + 10], 0xff);   /* IPv4-mapped */
	assert_memory_equal(ls.loc[0].locator + 4 + 12, a2.addr, 4);
	assert_int_equal(hip_param_find(W.q[0].b, W.q[0].len, HIP_PARAM_ESP_INFO, &t), 1);
	assert_int_equal(hip_esp_info_parse(&t, &ei), 0);
	assert_int_equal(ei.old_spi, pa.spi_in);
	assert_int_equal(ei.new_spi, pa.spi_in);
	assert_true(has(&W.q[0], HIP_PARAM_SEQ) && !has(&W.q[0], HIP_PARAM_DIFFIE_HELLMAN));
	/* B: ACK with the check, to a2 only */
	assert_int_equal(hh_deliver_at(&W, 0), 0);
	assert_int_equal(W.qn, 1);
	assert_true(addr_is(&W.q[0].dst, &a2));
	assert_true(has(&W.q[0], HIP_PARAM_ECHO_REQUEST_SIGNED) && has(&W.q[0], HIP_PARAM_ACK) &&
		    has(&W.q[0], HIP_PARAM_SEQ) && has(&W.q[0], HIP_PARAM_ESP_INFO));
	pb = hh_peer(&W, B, A);
	assert_true(addr_is(&pb.remote, &a1));   /* not yet */
	assert_int_equal(pb.n_peer_locators, 1);
	assert_int_equal(pb.peer_locators[0].state, HIP_LOC_UNVERIFIED);
	assert_true(pb.rr_pending);
	assert_int_equal(S[B].path_n, 0);
	/* A answers the echo; B verifies and moves */
	assert_int_equal(hh_deliver_at(&W, 0), 0);
	assert_int_equal(W.qn, 1);
	assert_true(has(&W.q[0], HIP_PARAM_ECHO_RESPONSE_SIGNED) && has(&W.q[0], HIP_PARAM_ACK));
	assert_int_equal(hh_deliver_at(&W, 0), 0);
	assert_int_equal(W.qn, 0);
	assert_int_equal(S[B].path_n, 1);
	assert_true(addr_is(&S[B].path_remote, &a2));
	assert_true(addr_is(&S[B].path_local, &b1));
	pb = hh_peer(&W, B, A);
	assert_true(addr_is(&pb.remote, &a2));
	assert_int_equal(pb.peer_locators[0].state, HIP_LOC_ACTIVE);
	assert_false(pb.rr_pending);
	pa = hh_peer(&W, A, B);
	assert_int_equal(pa.n_our_locators, 1);
	assert_int_equal(pa.our_locators[0].state, HIP_LOC_ACTIVE);
	assert_true(addr_is(&pa.local, &a2));
	/* no rekey: SAs and SPIs as they were */
	assert_int_equal(S[A].sa_up_n, up_a);
	assert_int_equal(S[B].sa_up_n, up_b);
	assert_int_equal(pb.spi_out, pa.spi_in);
	assert_int_equal(hh_stats(&W, A).loc_tx, 1);
	assert_int_equal(hh_stats(&W, A).echo_answered, 1);
	assert_int_equal(hh_stats(&W, B).loc_rx, 1);
	assert_int_equal(hh_stats(&W, B).rr_tx, 1);
	assert_int_equal(hh_stats(&W, B).rr_ok, 1);
	/* and nothing is resent later */
	{
		unsigned sa = S[A].sent, sb = S[B].sent;

		hh_run(&W, ALL_RETRIES_MS);
		assert_int_equal(S[A].sent, sa);
		assert_int_equal(S[B].sent, sb);
	}
	hh_down(&W);
}

/* A's announcement is lost twice: resent from the new address until ACKed,
 * then no more. */
static void
test_retransmit_until_ack(void **state)
{
	struct gw_addr a2;
	uint64_t r0;

	(void)state;
	pair();
	a2 = move(A, 1, false, false);
	r0 = hh_stats(&W, A).retransmits;
	for (int lost = 0; lost < 2; lost++) {
		assert_int_equal(W.qn, 1);
		W.qn = 0;
		hh_advance(&W, 9000 * MS);
		assert_int_equal(W.qn, 1);
		assert_true(addr_is(&W.q[0].src, &a2));
		assert_true(has(&W.q[0], HIP_PARAM_LOCATOR_SET));
	}
	assert_int_equal(hh_stats(&W, A).retransmits - r0, 2);
	hh_run(&W, 100);
	assert_int_equal(hh_stats(&W, B).rr_ok, 1);
	r0 = hh_stats(&W, A).retransmits;
	hh_run(&W, ALL_RETRIES_MS);
	assert_int_equal(hh_stats(&W, A).retransmits, r0);
	hh_down(&W);
}

/* B's check is lost: resent to the same locator, then verified. */
static void
test_lost_echo(void **state)
{
	struct gw_addr a2;

	(void)state;
	pair();
	a2 = move(A, 1, false, false);
	assert_int_equal(hh_deliver_at(&W, 0), 0);
	assert_int_equal(W.qn, 1);
	assert_true(has(&W.q[0], HIP_PARAM_ECHO_REQUEST_SIGNED));
	W.qn = 0;                                    /* lost */
	hh_advance(&W, 600 * MS);
	/* both resend: A its announcement (the ACK was in the lost packet), B its check */
	assert_int_equal(W.qn, 2);
	for (unsigned x = 0; x < 2; x++) {
		if (W.q[x].from != B)
			continue;
		assert_true(addr_is(&W.q[x].dst, &a2));
		assert_true(has(&W.q[x], HIP_PARAM_ECHO_REQUEST_SIGNED));
	}
	assert_int_not_equal(W.q[0].from, W.q[1].from);
	assert_int_equal(S[B].path_n, 0);
	hh_run(&W, 100);
	assert_int_equal(S[B].path_n, 1);
	assert_true(addr_is(&S[B].path_remote, &a2));
	assert_int_equal(hh_stats(&W, B).rr_tx, 1);
	assert_int_equal(hh_stats(&W, B).rr_ok, 1);
	hh_down(&W);
}

/* The rekeying variant (RFC 8046 3.2.2): new SAs in the same exchange, B's
 * new outbound on the new path. */
static void
test_rekey_variant(void **state)
{
	struct gw_addr a2;
	struct hip_peer_info pa0, pa, pb;
	unsigned up_a, up_b;

	(void)state;
	pair();
	pa0 = hh_peer(&W, A, B);
	up_a = S[A].sa_up_n;
	up_b = S[B].sa_up_n;
	a2 = move(A, 1, false, true);
	assert_int_equal(W.qn, 1);
	assert_true(has(&W.q[0], HIP_PARAM_LOCATOR_SET) && has(&W.q[0], HIP_PARAM_DIFFIE_HELLMAN));
	assert_int_not_equal(hip_get32(locset_of(&W.q[0]).loc[0].locator), pa0.spi_in);
	assert_int_equal(hh_deliver_at(&W, 0), 0);
	/* B's answer: its rekey half and the check, to a2 */
	assert_int_equal(W.qn, 1);
	assert_true(addr_is(&W.q[0].dst, &a2));
	assert_true(has(&W.q[0], HIP_PARAM_DIFFIE_HELLMAN) &&
		    has(&W.q[0], HIP_PARAM_ECHO_REQUEST_SIGNED));
	hh_run(&W, 100);
	assert_int_equal(S[A].sa_up_n, up_a + 1);
	assert_int_equal(S[B].sa_up_n, up_b + 1);
	assert_true(addr_is(&S[B].out.remote, &a2));
	assert_true(addr_is(&S[A].out.local, &a2));
	pa = hh_peer(&W, A, B);
	pb = hh_peer(&W, B, A);
	assert_int_not_equal(pa.spi_in, pa0.spi_in);
	assert_int_equal(pb.spi_out, pa.spi_in);
	assert_int_equal(pa.spi_out, pb.spi_in);
	assert_int_equal(pa.rekeys, 1);
	assert_int_equal(hh_stats(&W, B).rr_ok, 1);
	assert_true(addr_is(&pb.remote, &a2));
	hh_down(&W);
}

/* Both move at once (each old address still receiving a while): both
 * announcements are ACKed, both checks pass, each ends on the other's new
 * address. */
static void
test_simultaneous_moves(void **state)
{
	struct gw_addr a2, b2;

	(void)state;
	pair();
	a2 = move(A, 1, true, false);
	b2 = move(B, 1, true, false);
	hh_run(&W, 3000);
	assert_int_equal(hh_stats(&W, A).rr_ok, 1);
	assert_int_equal(hh_stats(&W, B).rr_ok, 1);
	assert_true(addr_is(peer_addr(A, B, false), &b2));
	assert_true(addr_is(peer_addr(B, A, false), &a2));
	assert_true(addr_is(peer_addr(A, B, true), &a2));
	assert_true(addr_is(&S[A].path_remote, &b2) && addr_is(&S[A].path_local, &a2));
	assert_true(addr_is(&S[B].path_remote, &a2) && addr_is(&S[B].path_local, &b2));
	hh_down(&W);
}

/* A moves while still in R2-SENT (the responder, before the peer's first
 * ESP): the address at once, the announcement when ESTABLISHED. */
static void
test_move_in_r2_sent(void **state)
{
	struct gw_addr a2 = addr_n(A, 1);

	(void)state;
	hh_pair_up(&W, &k_p256, &k_p384, &P);
	assert_int_equal(hip_host_connect(S[B].h, &S[A], W.now), 0);
	hh_deliver_all(&W);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_R2_SENT);
	hh_move(&W, A, &a2, false);
	assert_int_equal(hip_host_set_locators(S[A].h, &a2, 1, 0, false, W.now), 1);
	assert_int_equal(W.qn, 0);
	assert_int_equal(S[A].path_n, 1);
	hh_advance(&W, PAST_R2_SENT_HOLD);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(W.qn, 1);
	assert_true(addr_is(&W.q[0].src, &a2) && has(&W.q[0], HIP_PARAM_LOCATOR_SET));
	hh_run(&W, 100);
	assert_true(addr_is(peer_addr(B, A, false), &a2));
	hh_down(&W);
}

/* ------------------------------------------------- authentic bad packets */

static uint8_t rs_val[2048];
static size_t rs_len;

static size_t
cover(const uint8_t *pkt, size_t upto, uint8_t *buf)
{
	memcpy(buf, pkt, upto);
	buf[1] = (uint8_t)(upto / 8 - 1);
	buf[4] = buf[5] = 0;
	return upto;
}

/* p (an UPDATE of side `from`) with parameter `type` replaced by rs_val
 * (or added), MACed and signed again as `from`. */
static void
resign(struct hh_pkt *p, int from, uint16_t type)
{
	int to = 1 - from;
	struct hip_peer_info pi;
	struct hip_keys k;
	struct hip_builder b;
	struct hip_tlv_iter it;
	struct hip_tlv t;
	struct hh_pkt np = *p;
	uint8_t suite, buf[4096], out[HIP_SIG_MAX];
	bool done = false;
	size_t n, ol = 0;
	int len;

	assert_int_equal(hip_host_peer_info(S[from].h, &S[to], &pi), 0);
	suite = (pi.initiator ? S[to].hi : S[from].hi)->suite;
	assert_int_equal(hip_keys_draw(S[from].keymat, S[from].keymat_len, suite, pi.hip_cipher, 0, 0,
				       &k), 0);
	assert_int_equal(hip_build_init(&b, np.b, sizeof(np.b), HIP_UPDATE, p->b + 8, p->b + 24), 0);
	hip_tlv_iter_init(&it, p->b, p->len, 0);
	while (hip_tlv_next(&it, &t) == 1) {
		if (!done && t.type >= type) {
			assert_int_equal(hip_build_param(&b, type, rs_val, rs_len), 0);
			done = true;
			if (t.type == type)
				continue;
		}
		if (t.type == HIP_PARAM_HIP_MAC) {
			const struct hip_key *mk = &k.hip_int[hip_dir_out(S[from].hi->hit, S[to].hi->hit)];
			struct hip_mac m = { .type = HIP_PARAM_HIP_MAC, .hmac = out };

			n = cover(b.buf, b.len, buf);
			assert_int_equal(hip_mac_compute(suite, mk->b, mk->len, buf, n, out, sizeof(out),
							 &ol), 0);
			m.len = ol;
			assert_int_equal(hip_mac_put(&b, &m), 0);
		} else if (t.type == HIP_PARAM_HIP_SIGNATURE) {
			struct hip_signature sg = { .type = HIP_PARAM_HIP_SIGNATURE,
						    .algorithm = S[from].hi->algo, .sig = out };

			n = cover(b.buf, b.len, buf);
			assert_int_equal(hip_sig_sign(S[from].hi, buf, n, out, sizeof(out), &ol), 0);
			sg.len = ol;
			assert_int_equal(hip_signature_put(&b, &sg), 0);
		} else {
			assert_int_equal(hip_build_tlv(&b, &t), 0);
		}
	}
	assert_true(done);
	len = hip_build_finish(&b);
	assert_true(len > 0);
	np.len = (size_t)len;
	assert_int_equal(hh_fix_cksum(&np), 0);
	*p = np;
	hip_keys_wipe(&k);
}

/* rs_val: n locators of `type`, each `units` * 4 bytes, of address 198.51.100.x
 * (IPv4-mapped; type 1 with SPI `spi`), P on the first; `overrun` adds to
 * the first one's Locator Length what the parameter does not hold. */
static void
locs(unsigned n, uint8_t type, uint8_t units, uint32_t spi, uint8_t overrun)
{
	size_t off = 0;

	memset(rs_val, 0, sizeof(rs_val));
	for (unsigned x = 0; x < n; x++) {
		uint8_t *l = rs_val + off, *a = l + 8;

		l[1] = type;
		l[2] = (uint8_t)(units + (x == 0 ? overrun : 0));
		l[3] = x == 0 ? HIP_LOCATOR_PREFERRED : 0;
		hip_put32(l + 4, 3600);
		if (type == HIP_LOCATOR_TYPE_ESP_SPI_IPV6) {
			hip_put32(a, spi);
			a += 4;
		}
		a[10] = a[11] = 0xff;
		a[12] = 198;
		a[13] = 51;
		a[14] = 100;
		a[15] = (uint8_t)(10 + x);
		off += 8 + (size_t)units * 4;
	}
	rs_len = off;
}

/* B moved: its announcement, taken off the wire, not delivered. */
static struct hh_pkt
b_announces(void)
{
	struct hh_pkt p;

	move(B, 1, true, false);
	assert_int_equal(W.qn, 1);
	assert_true(hh_take(&W, 0, &p));
	return p;
}

struct before {
	struct hip_peer_info pi;
	unsigned path_n, sa_up_n;
	struct hip_host_stats st;
};

static struct before
snap(void)
{
	struct before b = { hh_peer(&W, A, B), S[A].path_n, S[A].sa_up_n, hh_stats(&W, A) };

	return b;
}

/* A's association with B as before, but for what a dropped packet counts. */
static void
unchanged(const struct before *b)
{
	struct hip_peer_info pi = hh_peer(&W, A, B);

	assert_int_equal(pi.state, HIP_STATE_ESTABLISHED);
	assert_true(addr_is(&pi.remote, &b->pi.remote));
	assert_true(addr_is(&pi.local, &b->pi.local));
	assert_int_equal(pi.spi_in, b->pi.spi_in);
	assert_int_equal(pi.spi_out, b->pi.spi_out);
	assert_int_equal(pi.n_peer_locators, b->pi.n_peer_locators);
	assert_int_equal(S[A].path_n, b->path_n);
	assert_int_equal(S[A].sa_up_n, b->sa_up_n);
}

/* The NOTIFY type A sent in answer (0 none); the wire emptied. */
static uint16_t
notify_sent(void)
{
	uint16_t type = 0;

	for (unsigned x = 0; x < W.qn; x++) {
		struct hip_tlv t;
		struct hip_notification nf;

		if (W.q[x].from != A || hh_ptype(&W.q[x]) != HIP_NOTIFY)
			continue;
		assert_int_equal(hip_param_find(W.q[x].b, W.q[x].len, HIP_PARAM_NOTIFICATION, &t), 1);
		assert_int_equal(hip_notification_parse(&t, &nf), 0);
		type = nf.msg_type;
	}
	W.qn = 0;
	return type;
}

/* One bad LOCATOR_SET: dropped, counted in the counter at `off`, A unchanged */
static void
bad_locset(size_t off, uint16_t notify)
{
	struct hh_pkt p;
	struct before b;
	uint64_t c0, c1;

	pair();
	p = b_announces();
	resign(&p, B, HIP_PARAM_LOCATOR_SET);
	b = snap();
	memcpy(&c0, (const uint8_t *)&b.st + off, sizeof(c0));
	assert_true(hh_inject(&W, &p) < 0);
	{
		struct hip_host_stats st = hh_stats(&W, A);

		memcpy(&c1, (const uint8_t *)&st + off, sizeof(c1));
		assert_int_equal(c1 - c0, 1);
		assert_int_equal(st.dropped - b.st.dropped, 1);
		assert_int_equal(st.loc_rx, b.st.loc_rx);
		assert_int_equal(st.rr_tx, b.st.rr_tx);
	}
	unchanged(&b);
	assert_int_equal(notify_sent(), notify);
	hh_down(&W);
}

static void
test_bad_locator_sets(void **state)
{
	(void)state;
	locs(1, HIP_LOCATOR_TYPE_ESP_SPI_IPV6, 5, 0x1234, 1);          /* overruns the parameter */
	bad_locset(offsetof(struct hip_host_stats, drop_locator), HIP_NOTIFY_INVALID_SYNTAX);
	locs(1, HIP_LOCATOR_TYPE_IPV6, 4, 0, 0);
	rs_len = 4;                                                      /* a locator's header cut */
	bad_locset(offsetof(struct hip_host_stats, drop_locator), HIP_NOTIFY_INVALID_SYNTAX);
	locs(1, HIP_LOCATOR_TYPE_IPV6, 5, 0, 0);                         /* type 0 of 20 bytes */
	bad_locset(offsetof(struct hip_host_stats, drop_locator), HIP_NOTIFY_INVALID_SYNTAX);
	locs(HIP_LOCATOR_SET_MAX + 1, HIP_LOCATOR_TYPE_ESP_SPI_IPV6, 5, 0x1234, 0);
	bad_locset(offsetof(struct hip_host_stats, drop_locator_many), 0);
	locs(HIP_LOCATORS_MAX + 1, HIP_LOCATOR_TYPE_IPV6, 4, 0, 0);      /* over the wire limit */
	bad_locset(offsetof(struct hip_host_stats, drop_locator_many), 0);
	locs(2, 7, 5, 0, 0);                                             /* unknown locator type */
	bad_locset(offsetof(struct hip_host_stats, drop_locator_type),
		   HIP_NOTIFY_LOCATOR_TYPE_UNSUPPORTED);
	locs(1, HIP_LOCATOR_TYPE_IPV6, 4, 0, 0);
	rs_val[8 + 12] = 224;                                            /* multicast only */
	bad_locset(offsetof(struct hip_host_stats, drop_locator_type),
		   HIP_NOTIFY_LOCATOR_TYPE_UNSUPPORTED);
}

/* No locator at all: a LOCATOR_SET of Length 0 (parameter only). */
static void
test_zero_locators(void **state)
{
	(void)state;
	rs_len = 0;
	bad_locset(offsetof(struct hip_host_stats, drop_locator), HIP_NOTIFY_INVALID_SYNTAX);
}

/* A LOCATOR_SET changed without a new HIP_MAC, or with a new HIP_MAC and
 * the old signature: drop_mac, drop_sig. */
static void
test_bad_mac_sig(void **state)
{
	struct hh_pkt p;
	struct before b;
	size_t off;

	(void)state;
	for (int sig = 0; sig < 2; sig++) {
		pair();
		p = b_announces();
		off = hh_find_param(p.b, p.len, HIP_PARAM_LOCATOR_SET);
		if (sig) {
			struct hh_pkt good = p;
			size_t so = hh_find_param(good.b, good.len, HIP_PARAM_HIP_SIGNATURE);

			/* same LOCATOR_SET, MAC anew, the signature of another packet */
			rs_len = hip_get16(p.b + off + 2);
			memcpy(rs_val, p.b + off + 4, rs_len);
			rs_val[rs_len - 1] ^= 1;
			resign(&p, B, HIP_PARAM_LOCATOR_SET);
			memcpy(p.b + hh_find_param(p.b, p.len, HIP_PARAM_HIP_SIGNATURE), good.b + so,
			       good.len - so);
		} else {
			p.b[off + 4 + 20] ^= 1;              /* an address byte */
		}
		assert_int_equal(hh_fix_cksum(&p), 0);
		b = snap();
		assert_true(hh_inject(&W, &p) < 0);
		if (sig)
			assert_int_equal(hh_stats(&W, A).drop_sig - b.st.drop_sig, 1);
		else
			assert_int_equal(hh_stats(&W, A).drop_mac - b.st.drop_mac, 1);
		unchanged(&b);
		assert_int_equal(W.qn, 0);
		hh_down(&W);
	}
}

/* An older UPDATE (SEQ below the last taken) with a LOCATOR_SET: replay. */
static void
test_old_seq(void **state)
{
	struct hh_pkt first, again;
	struct before b;

	(void)state;
	pair();
	first = b_announces();                       /* Update ID n */
	assert_int_equal(hh_inject(&W, &first), 0);
	hh_run(&W, 100);
	move(B, 2, true, false);                     /* Update ID n + 1 taken */
	hh_run(&W, 100);
	assert_int_equal(hh_stats(&W, A).rr_ok, 2);
	again = first;
	again.dst = S[A].addr;
	assert_int_equal(hh_fix_cksum(&again), 0);
	b = snap();
	assert_int_equal(hh_inject(&W, &again), HIP_E_HOST_STATE);
	assert_int_equal(hh_stats(&W, A).drop_replay - b.st.drop_replay, 1);
	unchanged(&b);
	assert_int_equal(W.qn, 0);
	hh_down(&W);
}

/* B's echo response with another nonce, or from another address: dropped,
 * A's check goes on and passes with the right one. */
static void
test_bad_echo(void **state)
{
	struct hh_pkt resp, bad;
	struct gw_addr b2;
	struct before b;

	(void)state;
	for (int from_elsewhere = 0; from_elsewhere < 2; from_elsewhere++) {
		pair();
		b2 = move(B, 1, true, false);
		assert_int_equal(hh_deliver_at(&W, 0), 0);   /* A: the check */
		assert_int_equal(hh_deliver_at(&W, 0), 0);   /* B: the response */
		assert_int_equal(W.qn, 1);
		assert_true(hh_take(&W, 0, &resp));
		assert_true(has(&resp, HIP_PARAM_ECHO_RESPONSE_SIGNED));
		bad = resp;
		if (from_elsewhere) {
			bad.src = addr_n(B, 3);              /* the right echo, from elsewhere */
		} else {
			size_t o = hh_find_param(bad.b, bad.len, HIP_PARAM_ECHO_RESPONSE_SIGNED);

			rs_len = hip_get16(bad.b + o + 2);
			memcpy(rs_val, bad.b + o + 4, rs_len);
			rs_val[0] ^= 0x55;
			resign(&bad, B, HIP_PARAM_ECHO_RESPONSE_SIGNED);
		}
		assert_int_equal(hh_fix_cksum(&bad), 0);
		b = snap();
		assert_int_equal(hh_inject(&W, &bad), HIP_E_HOST_AUTH);
		if (from_elsewhere)
			assert_int_equal(hh_stats(&W, A).drop_echo_addr - b.st.drop_echo_addr, 1);
		else
			assert_int_equal(hh_stats(&W, A).drop_echo - b.st.drop_echo, 1);
		assert_true(hh_peer(&W, A, B).rr_pending);
		assert_int_equal(hh_peer(&W, A, B).peer_locators[0].state, HIP_LOC_UNVERIFIED);
		unchanged(&b);
		/* the check is still resent, and the right response passes */
		hh_advance(&W, 600 * MS);
		assert_int_equal(W.qn, 1);
		assert_true(addr_is(&W.q[0].dst, &b2));
		W.qn = 0;
		assert_int_equal(hh_inject(&W, &resp), 0);
		assert_true(addr_is(peer_addr(A, B, false), &b2));
		assert_int_equal(S[A].path_n, b.path_n + 1);
		hh_down(&W);
	}
}

/* B announces a victim's address (authentic: B lies). A sends the victim
 * the check and its resends, nothing more, and stays on B's old address. */
static void
test_victim_bounded(void **state)
{
	struct hh_pkt p;
	struct before b;

	(void)state;
	pair();
	p = b_announces();
	locs(1, HIP_LOCATOR_TYPE_ESP_SPI_IPV6, 5, hh_peer(&W, B, A).spi_in, 0);
	resign(&p, B, HIP_PARAM_LOCATOR_SET);
	hh_addr(&watch, false, 0);
	watch.addr[0] = 198;
	watch.addr[1] = 51;
	watch.addr[2] = 100;
	watch.addr[3] = 10;
	b = snap();
	assert_int_equal(hh_inject(&W, &p), 0);
	assert_int_equal(to_watch, 1);
	for (int n = 0; n < 20; n++) {             /* B's resends of it too */
		assert_int_equal(hh_inject(&W, &p), n < HIP_UPDATE_DUP_ANSWERS ? 0 : HIP_E_HOST_STATE);
		W.qn = 0;
	}
	hh_run(&W, ALL_RETRIES_MS);
	assert_int_equal(to_watch, 1 + HIP_UPDATE_RETRIES_MAX + HIP_UPDATE_DUP_ANSWERS);
	/* the copies over the answers' limit: ours, and B's own resends (no ACK reached it) */
	assert_int_equal(hh_stats(&W, A).drop_update_dup - b.st.drop_update_dup,
			 20 + HIP_UPDATE_RETRIES_MAX - HIP_UPDATE_DUP_ANSWERS);
	assert_int_equal(hh_stats(&W, A).rr_failed - b.st.rr_failed, 1);
	assert_false(hh_peer(&W, A, B).rr_pending);
	assert_int_equal(hh_peer(&W, A, B).peer_locators[0].state, HIP_LOC_UNVERIFIED);
	assert_true(addr_is(peer_addr(A, B, false), &b.pi.remote));
	assert_int_equal(S[A].path_n, b.path_n);
	hh_down(&W);
}

/* A duplicate storm of B's (genuine) announcement: answered at most
 * HIP_UPDATE_DUP_ANSWERS times, each to the checked locator, not to where
 * the copy came from. */
static void
test_update_storm(void **state)
{
	struct hh_pkt p, spoofed;
	struct gw_addr b2;
	unsigned sent;

	(void)state;
	pair();
	b2 = addr_n(B, 1);
	p = b_announces();
	assert_int_equal(hh_inject(&W, &p), 0);
	W.qn = 0;
	sent = S[A].sent;
	spoofed = p;
	spoofed.src = addr_n(B, 5);                  /* copies "from" a third address */
	assert_int_equal(hh_fix_cksum(&spoofed), 0);
	for (int n = 0; n < 50; n++) {
		hh_inject(&W, &spoofed);
		for (unsigned x = 0; x < W.qn; x++)
			assert_true(addr_is(&W.q[x].dst, &b2));
		W.qn = 0;
	}
	assert_int_equal(S[A].sent - sent, HIP_UPDATE_DUP_ANSWERS);
	assert_int_equal(hh_stats(&W, A).drop_update_dup, 50 - HIP_UPDATE_DUP_ANSWERS);
	hh_down(&W);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_our_move),
		cmocka_unit_test(test_retransmit_until_ack),
		cmocka_unit_test(test_lost_echo),
		cmocka_unit_test(test_rekey_variant),
		cmocka_unit_test(test_simultaneous_moves),
		cmocka_unit_test(test_move_in_r2_sent),
		cmocka_unit_test(test_bad_locator_sets),
		cmocka_unit_test(test_zero_locators),
		cmocka_unit_test(test_bad_mac_sig),
		cmocka_unit_test(test_old_seq),
		cmocka_unit_test(test_bad_echo),
		cmocka_unit_test(test_victim_bounded),
		cmocka_unit_test(test_update_storm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
