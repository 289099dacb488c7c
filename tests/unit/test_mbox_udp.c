/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the middlebox's tracker (lib/mbox) on HIP over UDP (RFC
 * 5770: a UDP datagram to port 10500 whose payload is the 32-bit zero
 * non-ESP marker and the HIP packet, its HIP checksum 0): two HIP engines on
 * the harness's wire (tests/lib/hip_harness.h), each packet wrapped here in
 * UDP as a NATed host sends it (source port 40000, as a NAT maps it, to
 * 10500; the answers back) and given to mbox_hip_udp_input, the flow table a
 * test double (tests/lib/mbox_flow_double.h).
 *
 * - a Base Exchange, a rekey and a CLOSE over UDP, IPv4 and IPv6: the box
 *   learns the same HIs, SPIs and flows as from plain HIP (the outer
 *   addresses, never the ports), and ends the association;
 * - the transport changed under an association: BEX plain, rekey over UDP,
 *   CLOSE plain; one association throughout;
 * - a move over UDP (RFC 8046: our engine's UPDATE with LOCATOR_SET): its
 *   SPI bound to the new locator, the former binding gone after the grace
 *   period; the same UPDATE with a broken signature moves nothing;
 * - bad datagrams, each dropped under its reason and nothing learned: fewer
 *   bytes than a HIP header after the marker, a UDP length that is not the
 *   datagram's, a marker that is not zero (udp_bad), a wrong UDP checksum
 *   or 0 over IPv6 (udp_cksum), garbage after the marker (malformed as
 *   plain HIP garbage is); 0 over IPv4 is "no checksum" and passes; plain HIP
 *   with checksum 0 is still a checksum drop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>

#include "hip_harness.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hipgw_wire.h"
#include "mbox_flow_double.h"
#include "mbox_track.h"
#include "unit_eal.h"

#ifndef HIPGW_TEST_DATA
#define HIPGW_TEST_DATA "tests/data"
#endif
#define KEYS_DIR  HIPGW_TEST_DATA "/hip/keys"

#define MS        (1000ull * 1000)
#define S_NS      (1000 * MS)
#define NAT_PORT  40000                   /* the initiator's port as its NAT maps it */
#define UDP_MAX   (HIP_PACKET_MAX + 12)

static struct hip_hi k_p256, k_p384;
static struct hh_world W;
static struct hh_side *const S = W.s;
static struct gw_mbox_flows F;
static struct mbox_tracker *T;
static unsigned last_why;
static int (*attack)(struct hh_pkt *p);   /* changes a packet before it is wrapped */
static bool plain;                        /* the wire carries plain HIP instead */

static const struct mbox_rule ALLOW_ALL = { .name = "all", .any_initiator = 1, .any_responder = 1,
					    .action = MBOX_ALLOW };

static int
through_box(struct hh_pkt *p)
{
	static uint8_t u[UDP_MAX];
	bool from_i = p->from == 0;
	size_t len = hh_udp_wrap(&p->src, &p->dst, from_i ? NAT_PORT : GW_HIP_UDP_PORT,
			  from_i ? GW_HIP_UDP_PORT : NAT_PORT, p->b, p->len, u);
	unsigned why = 0;
	enum mbox_verdict v;

	if (plain) {
		v = mbox_hip_input(T, &p->src, &p->dst, p->b, p->len, W.now, &why);
		last_why = why;
		return v == MBOX_DROP;
	}
	if (attack != NULL && attack(p))
		len = hh_udp_wrap(&p->src, &p->dst, from_i ? NAT_PORT : GW_HIP_UDP_PORT,
			   from_i ? GW_HIP_UDP_PORT : NAT_PORT, p->b, p->len, u);
	v = mbox_hip_udp_input(T, &p->src, &p->dst, u, len, W.now, &why);
	last_why = why;
	return v == MBOX_DROP;
}

static void
harness_fail(const char *msg)
{
	fail_msg("%s", msg);
}

static void
box_up(void)
{
	struct mbox_params p = {
		.max_assocs = 16, .idle_ns = 300 * S_NS, .rekey_grace_ns = 2 * S_NS, .i1_rate = 10,
		.rules = &ALLOW_ALL, .n_rules = 1, .flows = &F,
	};
	char err[256] = "";

	fd_reset(&F);
	T = mbox_create(&p, err, sizeof(err));
	if (T == NULL)
		fail_msg("mbox_create: %s", err);
	attack = NULL;
	plain = false;
}

static void
box_down(void)
{
	mbox_free(T);
	T = NULL;
	hh_down(&W);
}

static struct mbox_stats
st(void)
{
	struct mbox_stats s;

	mbox_stats(T, &s);
	return s;
}

static void
run(unsigned ms)
{
	for (unsigned t = 0; t < ms; t += 10) {
		hh_deliver_all(&W);
		mbox_tick(T, W.now);
		hh_advance(&W, 10 * MS);
	}
	hh_deliver_all(&W);
	mbox_tick(T, W.now);
}

static void
pair(bool v6)
{
	struct hh_params p = {
		.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1, .esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
		.ciph = { HIP_CIPHER_NULL_ENCRYPT }, .nc = 1, .k = 2, .v6 = v6,
	};

	hh_pair_up(&W, &k_p256, &k_p384, &p);
	W.filter = through_box;
}

static struct mbox_assoc_info
info(void)
{
	struct mbox_assoc_info i;

	if (mbox_assoc_find(T, S[0].hi->hit, S[1].hi->hit, &i) != 0)
		fail_msg("no association");
	return i;
}

/* the box knows the flows the engines use, at their addresses */
static void
assert_learned(unsigned n)
{
	struct mbox_assoc_info a = info();

	assert_int_equal(a.state, MBOX_ST_ESTABLISHED);
	assert_int_equal(a.spi_i, S[0].in.spi);
	assert_int_equal(a.spi_r, S[1].in.spi);
	assert_true(fd_same(&a.loc_i, &S[0].addr));
	assert_true(fd_same(&a.loc_r, &S[1].addr));
	assert_non_null(fd_find(&F, &S[0].addr, S[0].in.spi));
	assert_non_null(fd_find(&F, &S[1].addr, S[1].in.spi));
	assert_int_equal(F.n, n);
}

/* BEX, rekey and CLOSE over UDP, IPv4 and IPv6. */
static void
test_udp_exchanges(void **state)
{
	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		uint32_t old;

		box_up();
		pair(v6);
		assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
		run(300);
		assert_int_equal(hh_state(&W, 0, 1), HIP_STATE_ESTABLISHED);
		assert_learned(2);
		assert_int_equal(st().established, 1);
		assert_int_equal(st().dropped, 0);
		assert_int_equal(st().udp, st().rx);
		assert_true(st().udp >= 4);                  /* I1, R1, I2, R2 */
		old = S[0].in.spi;
		assert_int_equal(hip_host_rekey(S[0].h, &S[1], W.now), 0);
		run(100);
		assert_int_equal(st().rekeys, 1);
		assert_int_not_equal(S[0].in.spi, old);
		assert_learned(4);                           /* the old ones in their grace */
		run(5000);
		assert_learned(2);
		hip_host_close_all(S[0].h, W.now);
		run(100);
		assert_int_equal(info().state, MBOX_ST_ENDED);
		assert_int_equal(F.n, 0);
		assert_int_equal(st().closed, 1);
		assert_int_equal(st().dropped, 0);
		box_down();
	}
}

/* ESP to the initiator (side 0) goes to l */
static void
assert_loc_i(const struct gw_addr *l)
{
	struct mbox_assoc_info i = info();

	assert_true(fd_same(&i.loc_i, l));
}

static unsigned broken;                   /* UPDATEs with LOCATOR_SET broken so far */

/* The first UPDATE with LOCATOR_SET: its signature's last byte flipped (the
 * copy the box sees; the engine retransmits its own). */
static int
break_locator_sig(struct hh_pkt *p)
{
	size_t off;

	if (broken > 0 || hh_ptype(p) != HIP_UPDATE ||
	    hh_find_param(p->b, p->len, HIP_PARAM_LOCATOR_SET) == 0)
		return 0;
	off = hh_find_param(p->b, p->len, HIP_PARAM_HIP_SIGNATURE);
	assert_true(off != 0);
	p->b[off + 4 + hip_get16(p->b + off + 2) - 1] ^= 0x01;
	broken++;
	return 1;
}

/* Side 0 moves (our engine's LOCATOR_SET, RFC 8046 4) with HIP over UDP. */
static void
test_udp_move(void **state)
{
	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct gw_addr to, from;
		uint32_t spi;

		box_up();
		pair(v6);
		assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
		run(300);
		assert_learned(2);
		from = S[0].addr;
		to = from;
		to.addr[to.family == 4 ? 3 : 15] ^= 0x40;
		spi = S[0].in.spi;
		broken = 0;
		attack = break_locator_sig;
		hh_move(&W, 0, &to, true);
		assert_true(hip_host_set_locators(S[0].h, &to, 1, 0, false, W.now) >= 1);
		hh_deliver_all(&W);
		assert_int_equal(broken, 1);
		assert_int_equal(st().drops[MBOX_DROP_SIG], 1);  /* unverified: nothing moved */
		assert_int_equal(st().moves, 0);
		assert_null(fd_find(&F, &to, spi));
		assert_loc_i(&from);
		run(1000);                                     /* the retransmission verifies */
		assert_int_equal(hh_stats(&W, 1).rr_ok, 1);
		assert_int_equal(st().moves, 1);
		assert_non_null(fd_find(&F, &to, spi));
		assert_loc_i(&to);
		run(3000);                                     /* the grace is over, no ESP */
		assert_non_null(fd_find(&F, &to, spi));
		assert_null(fd_find(&F, &from, spi));
		assert_int_equal(st().drops[MBOX_DROP_SIG], 1);
		assert_int_equal(st().dropped, 1);
		box_down();
	}
}

/* The transport changes under an association (a host behind a new NAT):
 * BEX plain, rekey over UDP, CLOSE plain again; one association throughout. */
static void
test_udp_switch(void **state)
{
	uint64_t udp;

	(void)state;
	box_up();
	pair(false);
	plain = true;
	assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
	run(300);
	assert_learned(2);
	assert_int_equal(st().udp, 0);
	plain = false;
	assert_int_equal(hip_host_rekey(S[0].h, &S[1], W.now), 0);
	run(100);
	udp = st().udp;
	assert_int_equal(udp, 3);                         /* UPDATE, UPDATE + ACK, ACK */
	assert_int_equal(st().rekeys, 1);
	assert_learned(4);
	plain = true;
	hip_host_close_all(S[1].h, W.now);
	run(100);
	assert_int_equal(info().state, MBOX_ST_ENDED);
	assert_int_equal(F.n, 0);
	assert_int_equal(st().udp, udp);
	assert_int_equal(st().assocs, 1);
	assert_int_equal(st().dropped, 0);
	box_down();
}

/* One datagram u[0..len) from side 0 to side 1: the verdict, *why. */
static enum mbox_verdict
box(const uint8_t *u, size_t len, unsigned *why)
{
	*why = UINT32_MAX;
	return mbox_hip_udp_input(T, &S[0].addr, &S[1].addr, u, len, W.now, why);
}

/* Side 0's I1 (captured off the wire) in UDP, changed, to the box. */
static void
test_udp_bad(void **state)
{
	static uint8_t u[UDP_MAX], junk[HIP_HDR_LEN];
	struct hh_pkt i1;
	unsigned why;
	size_t len;

	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		box_up();
		pair(v6);
		W.filter = NULL;
		assert_int_equal(hip_host_connect(S[0].h, &S[1], W.now), 0);
		assert_int_equal(W.qn, 1);
		i1 = W.q[0];
		assert_int_equal(hh_ptype(&i1), HIP_I1);
		/* the I1 as it is: forwarded */
		len = hh_udp_wrap(&i1.src, &i1.dst, NAT_PORT, GW_HIP_UDP_PORT, i1.b, i1.len, u);
		assert_int_equal(box(u, len, &why), MBOX_FORWARD);
		assert_int_equal(st().i1, 1);
		/* one byte short of a HIP header after the marker */
		len = hh_udp_wrap(&i1.src, &i1.dst, NAT_PORT, GW_HIP_UDP_PORT, i1.b, HIP_HDR_LEN - 1, u);
		assert_int_equal(box(u, len, &why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_UDP_BAD);
		/* the marker alone */
		len = hh_udp_wrap(&i1.src, &i1.dst, NAT_PORT, GW_HIP_UDP_PORT, i1.b, 0, u);
		assert_int_equal(box(u, len, &why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_UDP_BAD);
		/* a UDP length other than the datagram's (bytes after it) */
		len = hh_udp_wrap(&i1.src, &i1.dst, NAT_PORT, GW_HIP_UDP_PORT, i1.b, i1.len, u);
		assert_int_equal(box(u, len + 8, &why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_UDP_BAD);
		/* a non-zero marker: ESP, not for the tracker */
		u[11] = 1;
		assert_int_equal(box(u, len, &why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_UDP_BAD);
		u[11] = 0;
		/* a flipped bit the UDP checksum catches (the HIP checksum is not
		 * looked at: 0) */
		u[12 + 20] ^= 0x40;
		assert_int_equal(box(u, len, &why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_UDP_CKSUM);
		u[12 + 20] ^= 0x40;
		/* no UDP checksum: allowed over IPv4 only (RFC 8200 8.1) */
		hip_put16(u + 6, 0);
		assert_int_equal(box(u, len, &why), v6 ? MBOX_DROP : MBOX_FORWARD);
		if (v6)
			assert_int_equal(why, MBOX_DROP_UDP_CKSUM);
		/* garbage after the marker: malformed, as plain HIP garbage */
		memset(junk, 0xa5, sizeof(junk));
		len = hh_udp_wrap(&i1.src, &i1.dst, NAT_PORT, GW_HIP_UDP_PORT, junk, sizeof(junk), u);
		assert_int_equal(box(u, len, &why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_MALFORMED);
		/* plain HIP keeps its checksum: 0 is wrong there */
		hip_put16(i1.b + 4, 0);
		assert_int_equal(mbox_hip_input(T, &i1.src, &i1.dst, i1.b, i1.len, W.now, &why),
				 MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_CHECKSUM);
		/* a NULL tracker or address: malformed, nothing read */
		assert_int_equal(mbox_hip_udp_input(NULL, &i1.src, &i1.dst, u, len, W.now, &why),
				 MBOX_DROP);
		assert_int_equal(mbox_hip_udp_input(T, NULL, &i1.dst, u, len, W.now, &why), MBOX_DROP);
		assert_int_equal(why, MBOX_DROP_MALFORMED);
		assert_int_equal(st().drops[MBOX_DROP_UDP_BAD], 4);
		assert_int_equal(st().drops[MBOX_DROP_UDP_CKSUM], v6 ? 2 : 1);
		assert_int_equal(st().udp, 9);
		assert_int_equal(st().assocs, 0);
		assert_int_equal(F.n, 0);
		box_down();
	}
}

static int
setup(void **state)
{
	char *argv[] = { "test_mbox_udp", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_mbox_udp", "-l", "0",
			 "--log-level", "error", NULL };

	(void)state;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	hh_world_init(&W, NULL, harness_fail);
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
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_exchanges),
		cmocka_unit_test(test_udp_move),
		cmocka_unit_test(test_udp_switch),
		cmocka_unit_test(test_udp_bad),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
