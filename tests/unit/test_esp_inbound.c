/* SPDX-License-Identifier: BSD-3-Clause
 * ESP inbound (lib/esp esp_inbound_burst) against packets from the reference
 * encapsulation on OpenSSL (esp_ref.h), every suite, ESN on and off:
 * - anti-replay (RFC 4303 3.4.3): a packet whose ICV verified takes its
 *   sequence number whatever it is dropped for next (pad, dummy, inner header,
 *   ECN); a forged one does not;
 * - dummy packets (next header 59, 2.6) and TFC padding (2.7);
 * - ESN (Appendix A2): one burst gives each packet the verdict it gets alone
 *   after the packets before it, around 2^32 boundaries, forged ones among them;
 * - chained mbufs of any shape: decrypted when the first buffer has room,
 *   else (and for inconsistent chains) malformed, never misread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "esp.h"
#include "esp_internal.h"   /* esp_test_set_replay_top */
#include "esp_ref.h"
#include "unit_eal.h"

#define NMBUF 8191
#define SMALL_ROOM 256          /* data room of the small pool's mbufs, bytes */

static struct rte_mempool *pool, *small_pool;

static const uint8_t KEY[36] = {
	0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98, 0xa9, 0xba, 0xcb,
	0xdc, 0xed, 0xfe, 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87,
	0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0, 0x01, 0xca, 0xfe, 0xba, 0xbe,
};
static const uint8_t AUTH[32] = {
	0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
	0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x61, 0x62, 0x63, 0x64,
	0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c,
};
static const uint8_t IV[16] = { 0x5a, 0xa5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
static const enum gw_suite SUITES[] = {
	GW_SUITE_AES128_GCM16, GW_SUITE_AES256_GCM16, GW_SUITE_AES128_CBC_SHA256,
	GW_SUITE_AES256_CBC_SHA256, GW_SUITE_NULL_SHA256,
};
#define NSUITES (sizeof(SUITES) / sizeof(SUITES[0]))
#define SPI 0x4321

static struct esp_sa *
mk_in(enum gw_suite suite, bool esn, uint32_t win, struct esp_ref_sa *ref)
{
	struct esp_sa_params p;
	struct esp_sa *sa;
	char err[128] = "";

	*ref = (struct esp_ref_sa){ .suite = suite, .esn = esn, .spi = SPI, .key = KEY,
				    .auth_key = AUTH, .outer_fam = 4 };
	esp_ref_in_params(ref, win, &p);
	sa = esp_sa_create(&p, err, sizeof(err));
	if (sa == NULL)
		fail_msg("esp_sa_create: %s", err);
	return sa;
}

static struct rte_mbuf *
mk_mbuf(const uint8_t *d, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, (uint16_t)len));
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), d, len);
	return m;
}

/* An inner IPv4 (fam 4) or IPv6 packet of len bytes, tos its DSCP/ECN. */
static void
inner_pkt(uint8_t *b, int fam, uint16_t len, uint8_t tos)
{
	memset(b, 0, len);
	for (unsigned i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 13 + 5);
	if (fam == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)b;

		memset(h, 0, sizeof(*h));
		h->version_ihl = 0x45;
		h->type_of_service = tos;
		h->total_length = rte_cpu_to_be_16(len);
		h->time_to_live = 63;
		h->next_proto_id = GW_IPPROTO_UDP;
		h->src_addr = rte_cpu_to_be_32(0x0a020002);
		h->dst_addr = rte_cpu_to_be_32(0x0a010002);
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)b;

		memset(h, 0, sizeof(*h));
		h->vtc_flow = rte_cpu_to_be_32((6u << 28) | ((uint32_t)tos << 20));
		h->payload_len = rte_cpu_to_be_16((uint16_t)(len - GW_IPV6_HDR_LEN));
		h->proto = GW_IPPROTO_UDP;
		h->hop_limits = 63;
		h->src_addr[0] = h->dst_addr[0] = 0xfd;
		h->dst_addr[15] = 2;
	}
}

/* One packet through esp_inbound_burst; the mbuf is freed, the verdict returned. */
static uint8_t
in1(struct esp_sa *sa, struct rte_mbuf *m)
{
	uint8_t d = 0xff;

	esp_inbound_burst(&sa, &m, &d, 1);
	rte_pktmbuf_free(m);
	return d;
}

/* A sound packet (80-byte IPv4 inner, or IPv6 with fam 6) with sequence number seq. */
static struct rte_mbuf *
good(const struct esp_ref_sa *ref, uint64_t seq, bool forge)
{
	uint8_t in[80], out[256];
	int fam = seq & 1 ? 4 : 6;
	size_t n;

	inner_pkt(in, fam, sizeof(in), 0);
	n = esp_ref_build_simple(ref, seq, IV, in, sizeof(in), fam == 4 ? 4 : 41, forge, out,
				 sizeof(out));
	assert_true(n > 0);
	return mk_mbuf(out, n);
}

/* ---------- anti-replay: authentic packets take their number ---------- */

enum bad_kind { BAD_PAD, BAD_PADLEN, BAD_DUMMY, BAD_INNER, BAD_ECN, BAD_FORGED, BAD_N };

static struct rte_mbuf *
bad_pkt(const struct esp_ref_sa *ref, uint64_t seq, enum bad_kind k, uint8_t *want)
{
	uint8_t in[100], out[256], pad[32];
	struct esp_ref_pkt pk = { .seq = seq, .iv = IV, .payload = in, .payload_len = sizeof(in),
				  .pad = pad, .nh = 4 };
	size_t n;

	inner_pkt(in, 4, sizeof(in), 0);
	pk.pad_len = esp_ref_default_pad(ref->suite, sizeof(in), pad) + esp_ref_align(ref->suite);
	for (size_t i = 0; i < pk.pad_len; i++)
		pad[i] = (uint8_t)(i + 1);
	pk.pad_len_byte = (uint8_t)pk.pad_len;
	switch (k) {
	case BAD_PAD: pad[1] = 0; *want = GW_DROP_PAD; break;
	case BAD_PADLEN: pk.pad_len_byte = 200; *want = GW_DROP_PAD; break;
	case BAD_DUMMY: pk.nh = GW_IPPROTO_NONE; *want = GW_DROP_DUMMY; break;
	case BAD_INNER: pk.nh = GW_IPPROTO_IPV6; *want = GW_DROP_MALFORMED; break;
	case BAD_ECN: pk.outer_tos = GW_ECN_CE; *want = GW_DROP_ECN; break;  /* inner Not-ECT */
	default: pk.forge = true; *want = GW_DROP_AUTH; break;
	}
	n = esp_ref_build(ref, &pk, out, sizeof(out));
	assert_true(n > 0);
	return mk_mbuf(out, n);
}

static void
test_replay_after_drop(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NSUITES; s++)
		for (int esn = 0; esn < 2; esn++)
			for (int k = 0; k < BAD_N; k++) {
				struct esp_ref_sa ref;
				struct esp_sa *sa = mk_in(SUITES[s], esn, 64, &ref);
				uint64_t seq = esn ? (5ull << 32) + 9 : 9;
				uint8_t want, got;

				esp_test_set_replay_top(sa, seq - 3);
				got = in1(sa, bad_pkt(&ref, seq, k, &want));
				assert_int_equal(got, want);
				/* the same number again, now a sound packet: a replay
				 * unless the first was forged */
				assert_int_equal(in1(sa, good(&ref, seq, false)),
						 k == BAD_FORGED ? GW_DROP_NONE : GW_DROP_REPLAY);
				/* the window still takes the next one */
				assert_int_equal(in1(sa, good(&ref, seq + 1, false)), GW_DROP_NONE);
				esp_sa_free(sa);
			}
}

/* ---------- dummy packets and TFC padding ---------- */

static void
test_dummy_and_tfc(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NSUITES; s++)
		for (int fam = 4; fam <= 6; fam += 2) {
			struct esp_ref_sa ref;
			struct esp_sa *sa = mk_in(SUITES[s], false, 64, &ref);
			uint8_t in[300], out[512];
			struct rte_mbuf *m;
			uint8_t d = 0xff;
			size_t n;

			/* dummy: any payload, next header 59 */
			memset(in, 0xa5, sizeof(in));
			n = esp_ref_build_simple(&ref, 1, IV, in, 37, GW_IPPROTO_NONE, false, out,
						 sizeof(out));
			assert_int_equal(in1(sa, mk_mbuf(out, n)), GW_DROP_DUMMY);
			/* TFC: a 120-byte inner packet and 61 bytes after it */
			inner_pkt(in, fam, 120, 0);
			memset(in + 120, 0xee, 61);
			n = esp_ref_build_simple(&ref, 2, IV, in, 181, fam == 4 ? 4 : 41, false, out,
						 sizeof(out));
			m = mk_mbuf(out, n);
			esp_inbound_burst(&sa, &m, &d, 1);
			assert_int_equal(d, GW_DROP_NONE);
			assert_int_equal(rte_pktmbuf_pkt_len(m), 120);
			assert_int_equal(rte_pktmbuf_data_len(m), 120);
			assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), in, 120);
			rte_pktmbuf_free(m);
			esp_sa_free(sa);
		}
}

/* ---------- ESN: a burst gives the verdicts of one packet per call ---------- */

struct esn_case {
	uint64_t top;                /* window top before */
	uint32_t win;
	unsigned n;
	struct { uint64_t seq; bool forge; uint8_t want; } p[12];
};

#define B32 (1ull << 32)

static const struct esn_case esn_cases[] = {
	/* a packet of the next subspace moves the window past the old one's end:
	 * a packet sent with high half 0 is then inferred with 1 (auth), and one
	 * sent with 1 is taken */
	{ B32 - 100, 1024, 5, { { B32 + 2000, false, GW_DROP_NONE },
				{ B32 - 50, false, GW_DROP_AUTH },
				{ 2 * B32 - 50, false, GW_DROP_NONE },
				{ 2 * B32 - 60, false, GW_DROP_NONE },
				{ B32 + 2001, false, GW_DROP_AUTH } } },
	/* a forged packet of the next subspace does not move the inference */
	{ B32 - 100, 1024, 4, { { B32 + 5000, true, GW_DROP_AUTH },
				{ B32 - 20, false, GW_DROP_NONE },
				{ B32 + 5000, false, GW_DROP_NONE },
				{ B32 - 19, false, GW_DROP_AUTH } } },
	/* window of 64 around the boundary, duplicates and forgeries mixed */
	{ B32 - 10, 64, 10, { { B32 - 5, false, GW_DROP_NONE },
			       { B32 + 3, false, GW_DROP_NONE },
			       { B32 + 3, true, GW_DROP_REPLAY },
			       { B32 + 3, false, GW_DROP_REPLAY },
			       { B32 + 100, true, GW_DROP_AUTH },
			       { B32 - 4, false, GW_DROP_NONE },
			       { B32 + 200, false, GW_DROP_NONE },
			       { B32 - 3, false, GW_DROP_AUTH },
			       { 2 * B32 - 3, false, GW_DROP_NONE },
			       { 2 * B32 - 10, false, GW_DROP_NONE } } },
	/* window off (inference as if W = 2^31): half the space ahead */
	{ 3 * B32 - 1, 0, 5, { { 3 * B32 + (1u << 31) - 2, false, GW_DROP_NONE },
			       { 3 * B32 - 2, false, GW_DROP_AUTH },
			       { 4 * B32 - 2, false, GW_DROP_NONE },
			       { 3 * B32 + 5, true, GW_DROP_AUTH },
			       { 4 * B32 + 5, false, GW_DROP_NONE } } },
};

static void
run_esn_case(enum gw_suite suite, const struct esn_case *c)
{
	struct esp_ref_sa ref;
	struct esp_sa *burst = mk_in(suite, true, c->win, &ref);
	struct esp_sa *single = mk_in(suite, true, c->win, &ref);
	struct esp_sa *sas[12];
	struct rte_mbuf *m[12];
	uint8_t d[12];

	esp_test_set_replay_top(burst, c->top);
	esp_test_set_replay_top(single, c->top);
	for (unsigned i = 0; i < c->n; i++) {
		sas[i] = burst;
		m[i] = good(&ref, c->p[i].seq, c->p[i].forge);
	}
	esp_inbound_burst(sas, m, d, (uint16_t)c->n);
	for (unsigned i = 0; i < c->n; i++) {
		uint8_t alone = in1(single, good(&ref, c->p[i].seq, c->p[i].forge));

		if (d[i] != alone || alone != c->p[i].want)
			fail_msg("suite %d window %u packet %u (seq %#llx%s): burst %u, alone %u, "
				 "expected %u", suite, c->win, i, (unsigned long long)c->p[i].seq,
				 c->p[i].forge ? ", forged" : "", d[i], alone, c->p[i].want);
		rte_pktmbuf_free(m[i]);
	}
	assert_int_equal(esp_sa_seq(burst), esp_sa_seq(single));
	esp_sa_free(burst);
	esp_sa_free(single);
}

static void
test_esn_burst_as_single(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NSUITES; s++)
		for (unsigned c = 0; c < RTE_DIM(esn_cases); c++)
			run_esn_case(SUITES[s], &esn_cases[c]);
}

/* ---------- chained mbufs ---------- */

/* pkt[0 .. len) as a chain: the first segment first_len bytes from pool fp,
 * then segments of seg bytes (the last shorter), every third one empty when
 * empties is set. */
static struct rte_mbuf *
chain(const uint8_t *pkt, size_t len, struct rte_mempool *fp, size_t first_len, size_t seg,
      bool empties)
{
	struct rte_mbuf *head = rte_pktmbuf_alloc(fp), *last;
	size_t off = first_len < len ? first_len : len;
	unsigned k = 0;

	assert_non_null(head);
	assert_non_null(rte_pktmbuf_append(head, (uint16_t)off));
	memcpy(rte_pktmbuf_mtod(head, uint8_t *), pkt, off);
	last = head;
	while (off < len) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
		size_t l = empties && ++k % 3 == 0 ? 0 : seg < len - off ? seg : len - off;

		assert_non_null(s);
		if (l != 0) {
			assert_non_null(rte_pktmbuf_append(s, (uint16_t)l));
			memcpy(rte_pktmbuf_mtod(s, uint8_t *), pkt + off, l);
		}
		last->next = s;
		last = s;
		head->nb_segs++;
		head->pkt_len += (uint32_t)l;
		off += l;
	}
	return head;
}

static void
test_chained_mbufs(void **state)
{
	static const struct { size_t first, seg; bool empties; } shapes[] = {
		{ 1, 1, false }, { 1, 700, false }, { 13, 7, true }, { 20, 1500, false },
		{ 28, 1, true }, { 40, 64, false }, { 1000, 1, false }, { 64, 0, false },
	};
	(void)state;
	for (unsigned s = 0; s < NSUITES; s++) {
		struct esp_ref_sa ref;
		struct esp_sa *sa = mk_in(SUITES[s], s & 1, 1024, &ref);
		uint8_t in[1400], out[1600];
		uint64_t seq = 1;

		inner_pkt(in, 4, sizeof(in), 0);
		for (unsigned k = 0; k < RTE_DIM(shapes); k++) {
			size_t n = esp_ref_build_simple(&ref, seq, IV, in, sizeof(in), 4, false, out,
							sizeof(out));
			size_t seg = shapes[k].seg ? shapes[k].seg : n;
			struct rte_mbuf *m = chain(out, n, pool, shapes[k].first, seg,
						   shapes[k].empties);
			uint8_t d = 0xff;

			esp_inbound_burst(&sa, &m, &d, 1);
			assert_int_equal(d, GW_DROP_NONE);
			assert_int_equal(m->nb_segs, 1);
			assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(in));
			assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), in, sizeof(in));
			rte_pktmbuf_free(m);
			seq++;
		}
		/* a first segment whose buffer cannot hold the packet: malformed,
		 * and the number is still free for the packet in one segment */
		{
			size_t n = esp_ref_build_simple(&ref, seq, IV, in, sizeof(in), 4, false, out,
							sizeof(out));

			assert_int_equal(in1(sa, chain(out, n, small_pool, 60, 100, false)),
					 GW_DROP_MALFORMED);
			assert_int_equal(in1(sa, mk_mbuf(out, n)), GW_DROP_NONE);
			seq++;
		}
		/* chains whose lengths disagree: pkt_len over and under the segments'
		 * sum, nb_segs too small and too large */
		for (int how = 0; how < 4; how++) {
			size_t n = esp_ref_build_simple(&ref, seq, IV, in, sizeof(in), 4, false, out,
							sizeof(out));
			struct rte_mbuf *m = chain(out, n, pool, 100, 500, false);

			switch (how) {
			case 0: m->pkt_len += 200; break;
			case 1: m->pkt_len -= 200; break;
			case 2: m->nb_segs--; break;
			default: m->nb_segs++; break;
			}
			assert_int_equal(in1(sa, m), GW_DROP_MALFORMED);
		}
		esp_sa_free(sa);
	}
}

static int
setup(void **state)
{
	char *argv[] = { "test_esp_inbound", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_esp_inbound", "-l", "0",
			 "--log-level", "error", NULL };

	(void)state;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0 || esp_lib_init() != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("esp_in_test", NMBUF, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	small_pool = rte_pktmbuf_pool_create("esp_in_small", 63, 0, 0,
					     RTE_PKTMBUF_HEADROOM + SMALL_ROOM, SOCKET_ID_ANY);
	return pool == NULL || small_pool == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	/* every test freed its mbufs */
	if (rte_mempool_avail_count(pool) != NMBUF || rte_mempool_avail_count(small_pool) != 63) {
		fprintf(stderr, "mbuf leak: %u of %u, %u of 63 free\n",
			rte_mempool_avail_count(pool), NMBUF, rte_mempool_avail_count(small_pool));
		return -1;
	}
	rte_mempool_free(pool);
	rte_mempool_free(small_pool);
	esp_lib_fini();
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_after_drop),
		cmocka_unit_test(test_dummy_and_tfc),
		cmocka_unit_test(test_esn_burst_as_single),
		cmocka_unit_test(test_chained_mbufs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
