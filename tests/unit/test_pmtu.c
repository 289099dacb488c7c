/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of path MTU discovery's pure parts (no EAL):
 *   - gw_icmp_ptb_parse (lib/ctrl/gw_pmtu_icmp.c): a well-formed ICMP
 *     fragmentation needed and ICMPv6 Packet Too Big quoting an ESP packet
 *     give their fields; every cut of them, a bad checksum, a quote that is
 *     not our ESP and the MTU rules are refused with the right counter;
 *     over IPv6 also one quoting the first fragment of our ESP (L2 mode);
 *   - gw_pmtu_seq_recent: the last N sequence numbers sent, ESN wrap included;
 *   - the path table (lib/tables/gw_pmtu.c): set, get, age out at the given
 *     time, a full table replacing the path that ages out first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_ip.h>

#include "gw_pmtu.h"
#include "gw_pmtu_icmp.h"
#include "hipgw_wire.h"

#define ESP_LEN 1460       /* the quoted ESP packet's own length, bytes */
#define SPI 0x1000
#define SEQ 7

static const uint8_t ours4[4] = { 192, 0, 2, 1 }, peer4[4] = { 198, 51, 100, 1 };
static const uint8_t router4[4] = { 192, 0, 2, 254 };
static const uint8_t ours6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
static const uint8_t peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };

static void
wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A checksum as rte_raw_cksum / rte_ipv6_udptcp_cksum give it: stored as is. */
static void
put_cksum(uint8_t *p, uint16_t ck)
{
	memcpy(p, &ck, sizeof(ck));
}

static void
wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v);
}

/* The first `quote` bytes of an outer ESP packet of ours (family 4/6). */
static void
esp_quote(uint8_t *q, uint8_t family, uint32_t quote)
{
	uint8_t full[64] = { 0 };
	uint32_t hl = family == 4 ? GW_IPV4_HDR_LEN : GW_IPV6_HDR_LEN;

	if (family == 4) {
		full[0] = 0x45;
		wr16(full + 2, ESP_LEN);
		wr16(full + 6, GW_IPV4_DF);
		full[8] = 63;
		full[9] = GW_IPPROTO_ESP;
		memcpy(full + 12, ours4, 4);
		memcpy(full + 16, peer4, 4);
		put_cksum(full + 10, (uint16_t)~rte_raw_cksum(full, hl));
	} else {
		full[0] = 0x60;
		wr16(full + 4, ESP_LEN - GW_IPV6_HDR_LEN);
		full[6] = GW_IPPROTO_ESP;
		full[7] = 63;
		memcpy(full + 8, ours6, 16);
		memcpy(full + 24, peer6, 16);
	}
	wr32(full + hl, SPI);
	wr32(full + hl + 4, SEQ);
	memset(q, 0xa5, quote);                /* ciphertext after the ESP header */
	memcpy(q, full, quote < hl + 8 ? quote : hl + 8);
}

/* An ICMP error to ours4 / ours6 about that packet; returns its length. */
static uint32_t
make_ptb(uint8_t *b, uint8_t family, uint32_t mtu, uint32_t quote)
{
	uint8_t *ic;
	uint32_t n;

	memset(b, 0, 64);
	if (family == 4) {
		n = GW_IPV4_HDR_LEN + GW_ICMP_ERR_HDR_LEN + quote;
		b[0] = 0x45;
		wr16(b + 2, n);
		b[8] = 64;
		b[9] = GW_IPPROTO_ICMP;
		memcpy(b + 12, router4, 4);
		memcpy(b + 16, ours4, 4);
		put_cksum(b + 10, (uint16_t)~rte_raw_cksum(b, GW_IPV4_HDR_LEN));
		ic = b + GW_IPV4_HDR_LEN;
		ic[0] = GW_ICMP_DEST_UNREACH;
		ic[1] = GW_ICMP_FRAG_NEEDED;
		wr16(ic + 6, mtu);
		esp_quote(ic + GW_ICMP_ERR_HDR_LEN, 4, quote);
		put_cksum(ic + 2, (uint16_t)~rte_raw_cksum(ic, GW_ICMP_ERR_HDR_LEN + quote));
		return n;
	}
	n = GW_IPV6_HDR_LEN + GW_ICMP_ERR_HDR_LEN + quote;
	b[0] = 0x60;
	wr16(b + 4, GW_ICMP_ERR_HDR_LEN + quote);
	b[6] = GW_IPPROTO_ICMPV6;
	b[7] = 255;
	memcpy(b + 8, peer6, 16);
	b[8 + 15] = 0xfe;                      /* a router */
	memcpy(b + 24, ours6, 16);
	ic = b + GW_IPV6_HDR_LEN;
	ic[0] = GW_ICMP6_PACKET_TOO_BIG;
	wr32(ic + 4, mtu);
	esp_quote(ic + GW_ICMP_ERR_HDR_LEN, 6, quote);
	put_cksum(ic + 2, rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)b, ic));
	return n;
}

static void
refused(const uint8_t *b, uint32_t len, enum gw_pmtu_event want)
{
	struct gw_icmp_ptb e;
	enum gw_pmtu_event why = GW_PMTU_LOWERED;

	assert_int_equal(gw_icmp_ptb_parse(b, len, &e, &why), -1);
	assert_int_equal(why, want);
}

static void
test_parse_good(void **state)
{
	uint8_t b[1500];
	struct gw_icmp_ptb e;
	enum gw_pmtu_event why;
	uint32_t n;

	(void)state;
	for (uint8_t family = 4; family <= 6; family += 2) {
		uint32_t mtu = family == 4 ? 1300 : 1400, alen = family == 4 ? 4 : 16;

		n = make_ptb(b, family, mtu, family == 4 ? 548 : 1232);
		assert_true(gw_icmp_is_ptb(b, n));
		assert_int_equal(gw_icmp_ptb_parse(b, n, &e, &why), 0);
		assert_int_equal(e.mtu, mtu);
		assert_int_equal(e.quoted_len, ESP_LEN);
		assert_int_equal(e.spi, SPI);
		assert_int_equal(e.seq, SEQ);
		assert_int_equal(e.local.family, family);
		assert_memory_equal(e.local.addr, family == 4 ? ours4 : ours6, alen);
		assert_memory_equal(e.remote.addr, family == 4 ? peer4 : peer6, alen);
		assert_memory_equal(e.to.addr, family == 4 ? ours4 : ours6, alen);
	}
	/* an IPv4 MTU below 576 is the caller's to raise, not refused */
	n = make_ptb(b, 4, 68, 28);
	assert_int_equal(gw_icmp_ptb_parse(b, n, &e, &why), 0);
	assert_int_equal(e.mtu, 68);
}

/* The message b of n bytes cut to every length short of n, each in a buffer
 * of its own: refused as malformed. */
static void
refused_every_cut(const uint8_t *b, uint32_t n)
{
	for (uint32_t len = 0; len < n; len++) {
		uint8_t *c = malloc(len ? len : 1);

		assert_non_null(c);
		memcpy(c, b, len);
		refused(c, len, GW_PMTU_REFUSED_MALFORMED);
		free(c);
	}
}

/* Every length short of the whole message (the IP length field kept):
 * refused as malformed, and nothing beyond len is read (ASan build). */
static void
test_parse_cut(void **state)
{
	(void)state;
	for (uint8_t family = 4; family <= 6; family += 2) {
		uint8_t b[1500];

		refused_every_cut(b, make_ptb(b, family, family == 4 ? 1300 : 1400, 64));
	}
}

static void
test_parse_refused(void **state)
{
	uint8_t b[1500];
	uint32_t n;

	(void)state;
	/* quotes too short for the ESP header */
	n = make_ptb(b, 4, 1300, GW_IPV4_HDR_LEN + 4);
	refused(b, n, GW_PMTU_REFUSED_MALFORMED);
	n = make_ptb(b, 6, 1400, GW_IPV6_HDR_LEN + 7);
	refused(b, n, GW_PMTU_REFUSED_MALFORMED);
	/* checksums */
	n = make_ptb(b, 4, 1300, 64);
	b[GW_IPV4_HDR_LEN + 2] ^= 1;
	refused(b, n, GW_PMTU_REFUSED_MALFORMED);
	n = make_ptb(b, 4, 1300, 64);
	b[10] ^= 1;                                   /* outer IPv4 header */
	refused(b, n, GW_PMTU_REFUSED_MALFORMED);
	n = make_ptb(b, 6, 1400, 64);
	b[GW_IPV6_HDR_LEN + 2] ^= 1;
	refused(b, n, GW_PMTU_REFUSED_MALFORMED);
	/* the ICMP in a fragment */
	n = make_ptb(b, 4, 1300, 64);
	wr16(b + 6, GW_IPV4_MF);
	wr16(b + 10, 0);
	put_cksum(b + 10, (uint16_t)~rte_raw_cksum(b, GW_IPV4_HDR_LEN));
	refused(b, n, GW_PMTU_REFUSED_MALFORMED);
	/* MTU 0, and MTUs not below the quoted packet's length */
	refused(b, make_ptb(b, 4, 0, 64), GW_PMTU_REFUSED_MTU);
	refused(b, make_ptb(b, 4, ESP_LEN, 64), GW_PMTU_REFUSED_MTU);
	refused(b, make_ptb(b, 6, ESP_LEN + 1, 64), GW_PMTU_REFUSED_MTU);
	/* RFC 8201 section 4: IPv6 below 1280 is discarded */
	refused(b, make_ptb(b, 6, GW_IPV6_MIN_MTU - 1, 64), GW_PMTU_REFUSED_MTU);
	/* the quoted packet is not ESP as we send it */
	for (unsigned k = 0; k < 4; k++) {
		uint8_t *q = b + GW_IPV4_HDR_LEN + GW_ICMP_ERR_HDR_LEN, *ic = q - GW_ICMP_ERR_HDR_LEN;

		n = make_ptb(b, 4, 1300, 64);
		if (k == 0)
			wr16(q + 6, 0);                       /* no DF */
		else if (k == 1)
			q[9] = GW_IPPROTO_UDP;
		else if (k == 2)
			q[0] = 0x65;                          /* version 6 in an IPv4 error */
		else
			wr16(q + 6, GW_IPV4_DF | 1);          /* a later fragment */
		wr16(ic + 2, 0);
		put_cksum(ic + 2, (uint16_t)~rte_raw_cksum(ic, GW_ICMP_ERR_HDR_LEN + 64));
		refused(b, n, GW_PMTU_REFUSED_MALFORMED);
	}
	/* not an ICMP error the parser takes */
	n = make_ptb(b, 4, 1300, 64);
	b[GW_IPV4_HDR_LEN + 1] = 1;                  /* host unreachable */
	assert_false(gw_icmp_is_ptb(b, n));
	n = make_ptb(b, 6, 1400, 64);
	b[GW_IPV6_HDR_LEN] = GW_ICMP6_TIME_EXCEEDED;
	assert_false(gw_icmp_is_ptb(b, n));
}

#define FRAG6_LEN 1496     /* the quoted first fragment's own length, bytes */

/* An ICMPv6 Packet Too Big quoting `quote` bytes of the first outer fragment
 * of one of our ESP packets (a bridge SA's, lib/dp/gw_frag_out.c): IPv6
 * header, Fragment header (next header nh, offset off in 8-byte units, M
 * set), then the ESP header. Returns its length. */
static uint32_t
make_ptb6_frag(uint8_t *b, uint32_t mtu, uint32_t quote, uint8_t nh, uint32_t off)
{
	uint32_t n = make_ptb(b, 6, mtu, quote);
	uint8_t *ic = b + GW_IPV6_HDR_LEN, *q = ic + GW_ICMP_ERR_HDR_LEN, f[16];
	uint32_t k = quote < sizeof(f) ? quote : sizeof(f);

	memset(f, 0xa5, sizeof(f));
	f[0] = nh;
	f[1] = 0;
	wr16(f + 2, off << 3 | GW_IPV6_FRAG_M);
	wr32(f + 4, 0x5000);                   /* Identification */
	wr32(f + GW_IPV6_FRAG_HDR_LEN, SPI);
	wr32(f + GW_IPV6_FRAG_HDR_LEN + 4, SEQ);
	wr16(q + 4, FRAG6_LEN - GW_IPV6_HDR_LEN);
	q[6] = GW_IPPROTO_FRAGMENT;
	if (quote > GW_IPV6_HDR_LEN)
		memcpy(q + GW_IPV6_HDR_LEN, f, k < quote - GW_IPV6_HDR_LEN ? k :
		       quote - GW_IPV6_HDR_LEN);
	wr16(ic + 2, 0);
	put_cksum(ic + 2, rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)b, ic));
	return n;
}

/* A Packet Too Big about the first fragment of our ESP: taken, with the ESP
 * header after the Fragment header; a later fragment (no ESP header), a
 * Fragment header not followed by ESP, a quote cut short: refused. */
static void
test_parse_frag6(void **state)
{
	uint8_t b[1500];
	struct gw_icmp_ptb e;
	enum gw_pmtu_event why;
	uint32_t n;

	(void)state;
	n = make_ptb6_frag(b, 1400, 1232, GW_IPPROTO_ESP, 0);
	assert_int_equal(gw_icmp_ptb_parse(b, n, &e, &why), 0);
	assert_int_equal(e.mtu, 1400);
	assert_int_equal(e.quoted_len, FRAG6_LEN);
	assert_int_equal(e.spi, SPI);
	assert_int_equal(e.seq, SEQ);
	assert_memory_equal(e.local.addr, ours6, 16);
	assert_memory_equal(e.remote.addr, peer6, 16);
	n = make_ptb6_frag(b, 1400, GW_IPV6_HDR_LEN + GW_IPV6_FRAG_HDR_LEN + GW_ESP_HDR_LEN,
			   GW_IPPROTO_ESP, 0);
	assert_int_equal(gw_icmp_ptb_parse(b, n, &e, &why), 0);
	refused(b, make_ptb6_frag(b, 1400, 1232, GW_IPPROTO_ESP, 181), GW_PMTU_REFUSED_MALFORMED);
	refused(b, make_ptb6_frag(b, 1400, 1232, GW_IPPROTO_UDP, 0), GW_PMTU_REFUSED_MALFORMED);
	refused(b, make_ptb6_frag(b, 1400, GW_IPV6_HDR_LEN + GW_IPV6_FRAG_HDR_LEN + 7,
				  GW_IPPROTO_ESP, 0), GW_PMTU_REFUSED_MALFORMED);
	refused(b, make_ptb6_frag(b, FRAG6_LEN, 1232, GW_IPPROTO_ESP, 0), GW_PMTU_REFUSED_MTU);
	refused_every_cut(b, make_ptb6_frag(b, 1400, 64, GW_IPPROTO_ESP, 0));
}

static void
test_seq_recent(void **state)
{
	const uint64_t wrap = (uint64_t)1 << 32;

	(void)state;
	assert_false(gw_pmtu_seq_recent(1, 0, 1000));       /* nothing sent */
	assert_false(gw_pmtu_seq_recent(1, 1, 1000));
	assert_true(gw_pmtu_seq_recent(11, 10, 1000));      /* the last one sent */
	assert_true(gw_pmtu_seq_recent(11, 1, 1000));
	assert_false(gw_pmtu_seq_recent(11, 11, 1000));     /* not sent yet */
	assert_false(gw_pmtu_seq_recent(11, 0, 1000));      /* never a sequence number */
	assert_true(gw_pmtu_seq_recent(2000, 1000, 1000));  /* 1000 packets back */
	assert_false(gw_pmtu_seq_recent(2000, 999, 1000));  /* 1001 */
	/* ESN: the low 32 bits, across the wrap */
	assert_true(gw_pmtu_seq_recent(wrap + 5, 4, 1000));
	assert_true(gw_pmtu_seq_recent(wrap + 5, 0, 1000));
	assert_true(gw_pmtu_seq_recent(wrap + 5, UINT32_MAX, 1000));
	assert_false(gw_pmtu_seq_recent(wrap + 5, 5, 1000));
	assert_false(gw_pmtu_seq_recent(wrap + 5, UINT32_MAX - 1000, 1000));
}

static struct gw_addr
addr4(uint8_t last)
{
	struct gw_addr a = { .family = 4, .addr = { 10, 0, 0, last } };

	return a;
}

static void
test_table(void **state)
{
	static struct gw_pmtu t;
	struct gw_pmtu_path gone[4];
	struct gw_addr l = addr4(1), r = addr4(2), r2 = addr4(3);

	(void)state;
	memset(&t, 0, sizeof(t));
	t.age_ns = 600;
	assert_int_equal(gw_pmtu_get(&t, &l, &r), 0);
	gw_pmtu_set(&t, &l, &r, 1300, 1000);
	gw_pmtu_set(&t, &l, &r2, 1400, 1100);
	assert_int_equal(gw_pmtu_get(&t, &l, &r), 1300);
	assert_int_equal(gw_pmtu_get(&t, &r, &l), 0);         /* a path has a direction */
	gw_pmtu_set(&t, &l, &r, 1200, 1200);                  /* lowered again: new age */
	assert_int_equal(gw_pmtu_get(&t, &l, &r), 1200);
	assert_int_equal(gw_pmtu_expire(&t, 1699, gone, 4), 0);
	assert_int_equal(gw_pmtu_expire(&t, 1700, gone, 4), 1);
	assert_memory_equal(&gone[0].remote, &r2, sizeof(r2));
	assert_int_equal(gw_pmtu_get(&t, &l, &r2), 0);
	assert_int_equal(gw_pmtu_expire(&t, 1800, gone, 4), 1);
	assert_int_equal(t.n, 0);

	/* full: the path that ages out first gives its place */
	for (unsigned i = 0; i < GW_PMTU_MAX_PATHS; i++) {
		struct gw_addr ri = { .family = 6 };

		memcpy(ri.addr, &i, sizeof(i));
		gw_pmtu_set(&t, &l, &ri, 1280, i == 7 ? 5 : 100 + i);
	}
	gw_pmtu_set(&t, &l, &r, 1300, 2000);
	assert_int_equal(t.n, GW_PMTU_MAX_PATHS);
	assert_int_equal(gw_pmtu_get(&t, &l, &r), 1300);
	{
		struct gw_addr r7 = { .family = 6 };
		unsigned seven = 7;

		memcpy(r7.addr, &seven, sizeof(seven));
		assert_int_equal(gw_pmtu_get(&t, &l, &r7), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_cut),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_parse_frag6),
		cmocka_unit_test(test_seq_recent),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
