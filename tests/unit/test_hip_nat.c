/* SPDX-License-Identifier: BSD-3-Clause
 * NAT traversal in the HIP engine (RFC 5770 UDP-ENCAPSULATION mode, RFC
 * 9028 keepalives): two engines on the harness of tests/lib/hip_harness.h,
 * side A behind a simulated NAT (its packets leave from NAT_ADDR:NAT_PORT,
 * what comes back there reaches it), side B public. Checked: the transport
 * of every packet (plain or UDP, the ports), NAT_TRAVERSAL_MODE in R1 and
 * I2 over UDP only, the SAs' UDP ports (B's out SA to the NAT's port), the
 * nat = auto switch after the direct I1s, nat = off never using UDP, the
 * keepalives and the counters.
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
#include "hip_packet.h"
#include "hip_param.h"
#include "hipgw_wire.h"

#ifndef HIPGW_TEST_DATA
#define HIPGW_TEST_DATA "tests/data"
#endif
#define KEYS_DIR HIPGW_TEST_DATA "/hip/keys"

#define A 0                       /* behind the NAT, the initiator */
#define B 1                       /* public */
#define MS (1000ull * 1000)
#define S_NS (1000 * MS)
#define NAT_PORT 40001            /* the NAT's mapping of A's port 10500 */
#define KEEPALIVE_NS (15 * S_NS)

static struct hip_hi k_p256, k_p384;
static struct hh_world W;
static struct hh_side *const S = W.s;
static struct gw_addr nat_addr;   /* the NAT's public address */
static bool drop_plain;           /* the NAT passes UDP only (no HIP, no ESP) */
static unsigned plain_tx[2], udp_tx[2];   /* packets sent per side */
static unsigned bad_port;         /* UDP packets not between 10500 and 10500 / NAT_PORT */
static struct hh_pkt last[2][HIP_CLOSE_ACK + 1];   /* last packet of each type per side */

static const struct hh_params P = {
	.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1,
	.esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
	.ciph = { HIP_CIPHER_AES_128_CBC }, .nc = 1,
	.k = 1, .det = true, .udp = true,
};

static bool
on_send(struct hh_side *s, const struct hh_pkt *p)
{
	uint8_t t = hh_ptype(p);

	if (s->idx > B)
		return true;
	if (p->udp.rport != 0) {
		udp_tx[s->idx]++;
		if (p->udp.lport != GW_HIP_UDP_PORT ||
		    p->udp.rport != (s->idx == A ? GW_HIP_UDP_PORT : NAT_PORT))
			bad_port++;
	} else {
		plain_tx[s->idx]++;
	}
	if (t <= HIP_CLOSE_ACK)
		last[s->idx][t] = *p;
	return true;
}

/* the NAT: A's packets leave from nat_addr:NAT_PORT, B's to there reach A */
static int
nat(struct hh_pkt *p)
{
	if (p->udp.rport == 0)
		return drop_plain ? 1 : 0;
	if (p->from == A) {
		p->src = nat_addr;
		p->udp.lport = NAT_PORT;
	} else if (memcmp(&p->dst, &nat_addr, sizeof(nat_addr)) == 0) {
		if (p->udp.rport != NAT_PORT)
			return 1;           /* no mapping there */
		p->dst = S[A].addr;
		p->udp.rport = GW_HIP_UDP_PORT;
	}
	return 0;
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
	hh_down(&W);
	hip_hi_free(&k_p256);
	hip_hi_free(&k_p384);
	return 0;
}

/* A fresh pair, A's NAT mode set, the NAT on the wire. */
static void
pair(enum hip_nat_mode mode, bool only_udp)
{
	hh_pair_up(&W, &k_p256, &k_p384, &P);
	hh_addr(&nat_addr, false, 9);
	S[A].alias = nat_addr;          /* what B sends to the NAT reaches A (nat()) */
	W.filter = nat;
	drop_plain = only_udp;
	memset(plain_tx, 0, sizeof(plain_tx));
	memset(udp_tx, 0, sizeof(udp_tx));
	memset(last, 0, sizeof(last));
	bad_port = 0;
	assert_int_equal(hip_host_set_peer_nat(S[A].h, &S[B], mode, KEEPALIVE_NS), 0);
}

static bool
has_nat_mode(const struct hh_pkt *p, uint16_t mode)
{
	struct hip_tlv t;
	struct hip_nat_traversal_mode nm;

	return hip_param_find(p->b, p->len, HIP_PARAM_NAT_TRAVERSAL_MODE, &t) == 1 &&
	       hip_nat_traversal_mode_parse(&t, &nm) == 0 && hip_nat_traversal_mode_has(&nm, mode);
}

/* nat = force: the whole BEX over UDP, NAT_TRAVERSAL_MODE in R1 and I2, the
 * SAs with UDP ports: A's to 10500, B's to the NAT's port; then keepalives
 * from A only, every KEEPALIVE_NS */
static void
test_force(void **state)
{
	struct hip_peer_info pa, pb;
	struct hip_host_stats sa, sb;

	(void)state;
	pair(HIP_NAT_FORCE, true);
	assert_int_equal(hip_host_connect(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 200);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(plain_tx[A] + plain_tx[B], 0);
	assert_int_equal(bad_port, 0);
	assert_int_equal(udp_tx[A], 2);          /* I1, I2 */
	assert_int_equal(udp_tx[B], 2);          /* R1, R2 */
	assert_true(has_nat_mode(&last[B][HIP_R1], HIP_NAT_MODE_UDP_ENCAPSULATION));
	assert_true(has_nat_mode(&last[A][HIP_I2], HIP_NAT_MODE_UDP_ENCAPSULATION));
	assert_int_equal(S[A].out.udp.lport, GW_HIP_UDP_PORT);
	assert_int_equal(S[A].out.udp.rport, GW_HIP_UDP_PORT);
	assert_int_equal(S[B].out.udp.lport, GW_HIP_UDP_PORT);
	assert_int_equal(S[B].out.udp.rport, NAT_PORT);
	assert_memory_equal(&S[B].out.remote, &nat_addr, sizeof(nat_addr));
	pa = hh_peer(&W, A, B);
	pb = hh_peer(&W, B, A);
	assert_int_equal(pa.udp.rport, GW_HIP_UDP_PORT);
	assert_int_equal(pb.udp.rport, NAT_PORT);
	/* keepalives: none before the interval, one per interval after */
	hh_run(&W, 14000);
	assert_int_equal(hh_stats(&W, A).nat_keepalive_tx, 0);
	hh_run(&W, 31000);
	sa = hh_stats(&W, A);
	sb = hh_stats(&W, B);
	assert_in_range(sa.nat_keepalive_tx, 2, 3);
	assert_int_equal(sb.nat_keepalive_rx, sa.nat_keepalive_tx);
	assert_int_equal(sb.nat_keepalive_tx, 0);          /* the public side sends none */
	assert_int_equal(sb.notify_rx, 0);                 /* not counted as notices */
	assert_int_equal(sb.nat_udp_rx, udp_tx[A]);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	/* a rekey (UPDATE) goes over UDP too, its new SAs keep the ports */
	assert_int_equal(hip_host_rekey(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 500);
	assert_int_equal(plain_tx[A] + plain_tx[B], 0);
	assert_int_equal(S[B].out.udp.rport, NAT_PORT);
	assert_int_equal(hh_peer(&W, A, B).rekeys, 1);
}

/* nat = auto behind a NAT that drops HIP: HIP_NAT_AUTO_DIRECT_I1S plain I1s
 * unanswered, then each I1 plain and over UDP; the BEX completes over UDP */
static void
test_auto(void **state)
{
	(void)state;
	pair(HIP_NAT_AUTO, true);
	assert_int_equal(hip_host_connect(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 5000);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(plain_tx[A], HIP_NAT_AUTO_DIRECT_I1S + 1);
	assert_int_equal(udp_tx[A], 2);           /* that I1 over UDP, the I2 */
	assert_int_equal(plain_tx[B], 0);
	assert_int_equal(hh_stats(&W, A).nat_switch, 1);
	assert_int_equal(S[B].out.udp.rport, NAT_PORT);
	assert_int_equal(bad_port, 0);
}

/* nat = auto where HIP passes: plain, no NAT_TRAVERSAL_MODE anywhere, no
 * UDP ports on the SAs */
static void
test_auto_plain(void **state)
{
	(void)state;
	pair(HIP_NAT_AUTO, false);
	assert_int_equal(hip_host_connect(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 200);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(udp_tx[A] + udp_tx[B], 0);
	assert_int_equal(hh_find_param(last[B][HIP_R1].b, last[B][HIP_R1].len,
				       HIP_PARAM_NAT_TRAVERSAL_MODE), 0);
	assert_int_equal(hh_find_param(last[A][HIP_I2].b, last[A][HIP_I2].len,
				       HIP_PARAM_NAT_TRAVERSAL_MODE), 0);
	assert_int_equal(S[B].out.udp.rport, 0);
	assert_int_equal(hh_stats(&W, A).nat_switch, 0);
	hh_run(&W, 40000);
	assert_int_equal(hh_stats(&W, A).nat_keepalive_tx, 0);   /* no UDP, no keepalive */
}

/* nat = auto with the peer unreachable for a while (not a NAT): once it is
 * back both I1s of a retransmission are answered, the plain R1 first, and
 * the BEX goes on plain; the UDP R1 is dropped in I2-SENT */
static bool down;

static int
down_then_nat(struct hh_pkt *p)
{
	return down ? 1 : nat(p);
}

static void
test_auto_peer_down(void **state)
{
	(void)state;
	pair(HIP_NAT_AUTO, false);
	W.filter = down_then_nat;
	down = true;
	assert_int_equal(hip_host_connect(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 1600);                         /* the plain I1s at 0 and 0.5 s, the dual at 1.5 s lost */
	assert_int_equal(udp_tx[A], 1);
	down = false;
	hh_run(&W, 4000);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(hh_peer(&W, A, B).udp.rport, 0);
	assert_int_equal(S[B].out.udp.rport, 0);
	assert_int_equal(hh_stats(&W, A).nat_switch, 0);
}

/* nat = off behind a NAT that drops HIP: never UDP, the BEX fails */
static void
test_off(void **state)
{
	(void)state;
	pair(HIP_NAT_OFF, true);
	assert_int_equal(hip_host_connect(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 40000);
	assert_int_not_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(udp_tx[A], 0);
	assert_int_equal(hh_stats(&W, A).bex_failed, 1);
}

/* an I2 over UDP whose NAT_TRAVERSAL_MODE lists only a mode we did not
 * offer is dropped (drop_nat_mode) before anything costly */
static int
bad_mode(struct hh_pkt *p)
{
	size_t off;

	if (nat(p) != 0)
		return 1;
	if (hh_ptype(p) == HIP_I2 && p->to == B &&
	    (off = hh_find_param(p->b, p->len, HIP_PARAM_NAT_TRAVERSAL_MODE)) != 0)
		hip_put16(p->b + off + HIP_TLV_HDR_LEN + 2, HIP_NAT_MODE_ICE_HIP_UDP);
	return 0;
}

static void
test_i2_bad_mode(void **state)
{
	(void)state;
	pair(HIP_NAT_FORCE, true);
	W.filter = bad_mode;
	assert_int_equal(hip_host_connect(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 200);
	assert_int_not_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_true(hh_stats(&W, B).drop_nat_mode >= 1);
	assert_int_equal(S[B].sa_up_n, 0);
}

/* an engine without io.send_udp drops what comes over UDP (it could not
 * answer) and never initiates over it */
static void
test_no_udp(void **state)
{
	struct hh_params q = P;

	(void)state;
	q.udp = false;
	hh_pair_up(&W, &k_p256, &k_p384, &q);
	W.filter = NULL;
	memset(plain_tx, 0, sizeof(plain_tx));
	memset(udp_tx, 0, sizeof(udp_tx));
	assert_int_equal(hip_host_set_peer_nat(S[A].h, &S[B], HIP_NAT_FORCE, KEEPALIVE_NS), 0);
	assert_int_equal(hip_host_connect(S[A].h, &S[B], W.now), 0);
	hh_run(&W, 200);
	assert_int_equal(hh_state(&W, A, B), HIP_STATE_ESTABLISHED);
	assert_int_equal(udp_tx[A] + udp_tx[B], 0);
	{
		struct hip_udp u = { GW_HIP_UDP_PORT, GW_HIP_UDP_PORT };
		uint8_t junk[HIP_HDR_LEN] = { 0 };

		assert_int_equal(hip_host_input_udp(S[B].h, &S[A].addr, &S[B].addr, &u, junk,
						    sizeof(junk), W.now), HIP_E_HOST_POLICY);
	}
	assert_int_equal(hip_host_set_peer_nat(S[A].h, &S[B], (enum hip_nat_mode)7, 0), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_auto_plain),
		cmocka_unit_test(test_auto_peer_down),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_i2_bad_mode),
		cmocka_unit_test(test_no_udp),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
