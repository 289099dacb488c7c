/* SPDX-License-Identifier: BSD-3-Clause
 * UDP-encapsulated ESP (RFC 3948) and the outer path swap of lib/esp:
 * outbound UDP header and checksums (IPv4 0, IPv6 computed: RFC 8200 8.1),
 * esp_udp_demux's verdicts, esp_sa_set_path / esp_sa_path, and a swap
 * while another thread sends on the SA: every packet carries one path whole
 * and the sequence numbers run on.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_udp.h>

#include "esp.h"
#include "hipgw_wire.h"
#include "unit_eal.h"

#define POOL_SIZE 1023

static struct rte_mempool *pool;

static const uint8_t KEY[36] = {
	0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98, 0xa9, 0xba, 0xcb,
	0xdc, 0xed, 0xfe, 0x0f, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0xca, 0xfe, 0xba, 0xbe,
};
static const uint8_t AUTH[32] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7 };

static void
set_addr(struct gw_addr *a, uint8_t fam, uint8_t last)
{
	memset(a, 0, sizeof(*a));
	a->family = fam;
	if (fam == 4) {
		a->addr[0] = 192; a->addr[1] = 0; a->addr[2] = 2; a->addr[3] = last;
	} else {
		a->addr[0] = 0x20; a->addr[1] = 0x01; a->addr[2] = 0x0d; a->addr[3] = 0xb8;
		a->addr[15] = last;
	}
}

static struct esp_sa *
mk_sa(enum gw_dir dir, enum gw_suite suite, uint8_t fam, uint16_t sport, uint16_t dport)
{
	struct esp_sa_params p = { 0 };
	char err[128];
	struct esp_sa *sa;

	p.spi = 0x4242;
	p.dir = dir;
	p.suite = suite;
	switch (suite) {
	case GW_SUITE_AES128_GCM16: p.key = KEY; p.key_len = 20; break;
	case GW_SUITE_AES256_GCM16: p.key = KEY; p.key_len = 36; break;
	case GW_SUITE_AES128_CBC_SHA256: p.key = KEY; p.key_len = 16; break;
	case GW_SUITE_AES256_CBC_SHA256: p.key = KEY; p.key_len = 32; break;
	default: break;
	}
	if (suite != GW_SUITE_AES128_GCM16 && suite != GW_SUITE_AES256_GCM16) {
		p.auth_key = AUTH;
		p.auth_key_len = 32;
	}
	p.replay_window = 1024;
	p.seq_first = 1;
	p.seq_limit = UINT64_MAX;
	set_addr(dir == GW_DIR_OUT ? &p.local : &p.remote, fam, 1);
	set_addr(dir == GW_DIR_OUT ? &p.remote : &p.local, fam, 2);
	p.udp_sport = sport;
	p.udp_dport = dport;
	sa = esp_sa_create(&p, err, sizeof(err));
	if (sa == NULL)
		fail_msg("esp_sa_create: %s", err);
	return sa;
}

/* An inner IPv4 packet of len bytes (payload a pattern of salt). */
static struct rte_mbuf *
mk_inner(uint16_t len, uint8_t salt)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ipv4_hdr *h;
	uint8_t *b;

	assert_non_null(m);
	b = (uint8_t *)rte_pktmbuf_append(m, len);
	if (b == NULL)
		abort();
	memset(b, 0, len);
	h = (struct rte_ipv4_hdr *)b;
	h->version_ihl = 0x45;
	h->total_length = rte_cpu_to_be_16(len);
	h->time_to_live = 64;
	h->next_proto_id = GW_IPPROTO_UDP;
	h->src_addr = rte_cpu_to_be_32(0x0a000001);
	h->dst_addr = rte_cpu_to_be_32(0x0a010001);
	h->hdr_checksum = rte_ipv4_cksum(h);
	for (unsigned i = GW_IPV4_HDR_LEN; i < len; i++)
		b[i] = (uint8_t)(i * 13 + salt);
	return m;
}

static uint8_t
out1(struct esp_sa *sa, struct rte_mbuf *m)
{
	uint8_t d = 0xff;

	esp_outbound_burst(&sa, &m, &d, 1);
	return d;
}

static uint8_t
in1(struct esp_sa *sa, struct rte_mbuf *m)
{
	uint8_t d = 0xff;

	esp_inbound_burst(&sa, &m, &d, 1);
	return d;
}

/* Every suite, both families: the outer packet is IP / UDP / ESP with the
 * SA's ports, the UDP length the IP payload's, the checksum 0 over IPv4 and
 * right over IPv6; esp_udp_demux takes UDP off and the in SA decrypts it. */
static void
test_udp_roundtrip(void **state)
{
	(void)state;
	for (uint8_t fam = 4; fam <= 6; fam += 2) {
		for (int s = 0; s < GW_SUITE_MAX; s++) {
			struct esp_sa *out = mk_sa(GW_DIR_OUT, s, fam, 10500, 4500);
			struct esp_sa *in = mk_sa(GW_DIR_IN, s, fam, 0, 0);
			struct esp_sa *plain = mk_sa(GW_DIR_OUT, s, fam, 0, 0);
			struct rte_mbuf *m = mk_inner(100, (uint8_t)s), *ref = mk_inner(100, (uint8_t)s);
			unsigned hl = fam == 4 ? GW_IPV4_HDR_LEN : GW_IPV6_HDR_LEN;
			const struct rte_udp_hdr *u;
			uint8_t *o;
			uint16_t sport = 0;
			uint32_t spi;

			assert_int_equal(esp_sa_overhead(out, 100), esp_sa_overhead(plain, 100) + 8);
			assert_true(esp_sa_udp(out));
			assert_false(esp_sa_udp(plain));
			assert_int_equal(out1(out, m), GW_DROP_NONE);
			assert_int_equal(rte_pktmbuf_pkt_len(m), 100 + esp_sa_overhead(out, 100));
			o = rte_pktmbuf_mtod(m, uint8_t *);
			u = (const struct rte_udp_hdr *)(o + hl);
			assert_int_equal(fam == 4 ? o[9] : o[6], GW_IPPROTO_UDP);
			assert_int_equal(rte_be_to_cpu_16(u->src_port), 10500);
			assert_int_equal(rte_be_to_cpu_16(u->dst_port), 4500);
			assert_int_equal(rte_be_to_cpu_16(u->dgram_len), rte_pktmbuf_pkt_len(m) - hl);
			memcpy(&spi, o + hl + GW_UDP_HDR_LEN, 4);
			assert_int_equal(rte_be_to_cpu_32(spi), 0x4242);
			if (fam == 4) {
				assert_int_equal(u->dgram_cksum, 0);
				assert_int_equal(rte_ipv4_cksum((struct rte_ipv4_hdr *)o), 0xffff - 0xffff);
			} else {
				assert_int_not_equal(u->dgram_cksum, 0);
				assert_int_equal(rte_ipv6_udptcp_cksum_verify(
					(const struct rte_ipv6_hdr *)o, u), 0);
			}
			assert_int_equal(esp_udp_demux(m, 0, hl, rte_pktmbuf_pkt_len(m), &sport),
					 ESP_UDP_ESP);
			assert_int_equal(sport, 10500);
			o = rte_pktmbuf_mtod(m, uint8_t *);
			assert_int_equal(fam == 4 ? o[9] : o[6], GW_IPPROTO_ESP);
			assert_int_equal(in1(in, m), GW_DROP_NONE);
			assert_int_equal(rte_pktmbuf_data_len(m), 100);
			assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *),
					    rte_pktmbuf_mtod(ref, uint8_t *), 100);
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(ref);
			esp_sa_free(out);
			esp_sa_free(in);
			esp_sa_free(plain);
		}
	}
}

/* An outer IPv4 / UDP datagram to port 10500 carrying payload[0..plen). */
static struct rte_mbuf *
mk_udp4(const uint8_t *payload, uint16_t plen, uint16_t ulen_adj, bool cksum)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t len = GW_IPV4_HDR_LEN + GW_UDP_HDR_LEN + plen;
	struct rte_ipv4_hdr *h;
	struct rte_udp_hdr *u;
	uint8_t *b;

	assert_non_null(m);
	b = (uint8_t *)rte_pktmbuf_append(m, len);
	if (b == NULL)
		abort();
	memset(b, 0, len);
	h = (struct rte_ipv4_hdr *)b;
	h->version_ihl = 0x45;
	h->total_length = rte_cpu_to_be_16(len);
	h->time_to_live = 64;
	h->next_proto_id = GW_IPPROTO_UDP;
	h->src_addr = rte_cpu_to_be_32(0xc0000202);
	h->dst_addr = rte_cpu_to_be_32(0xc0000201);
	h->hdr_checksum = rte_ipv4_cksum(h);
	u = (struct rte_udp_hdr *)(h + 1);
	u->src_port = rte_cpu_to_be_16(40000);
	u->dst_port = rte_cpu_to_be_16(GW_HIP_UDP_PORT);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)(GW_UDP_HDR_LEN + plen + ulen_adj));
	memcpy(u + 1, payload, plen);
	if (cksum)
		u->dgram_cksum = rte_ipv4_udptcp_cksum(h, u);
	return m;
}

static enum esp_udp_kind
demux4(struct rte_mbuf *m, uint16_t *sport)
{
	return esp_udp_demux(m, 0, GW_IPV4_HDR_LEN, rte_pktmbuf_pkt_len(m), sport);
}

/* Keepalive, marker, ESP, and the bad ones: each verdict, packet untouched
 * unless ESP. */
static void
test_demux_kinds(void **state)
{
	static const uint8_t ka[1] = { 0xff }, ka0[1] = { 0x00 };
	static const uint8_t hip[40] = { 0, 0, 0, 0, 59, 4, 0x11 };
	static const uint8_t esp[40] = { 0, 0, 0x42, 0x42, 0, 0, 0, 1 };
	static const uint8_t three[3] = { 1, 2, 3 };
	struct rte_mbuf *m;
	uint16_t sport = 0;

	(void)state;
	m = mk_udp4(ka, 1, 0, false);
	assert_int_equal(demux4(m, &sport), ESP_UDP_KEEPALIVE);
	assert_int_equal(sport, 40000);
	rte_pktmbuf_free(m);
	m = mk_udp4(ka0, 1, 0, false);
	assert_int_equal(demux4(m, &sport), ESP_UDP_BAD);
	rte_pktmbuf_free(m);
	m = mk_udp4(three, 3, 0, false);
	assert_int_equal(demux4(m, &sport), ESP_UDP_BAD);
	rte_pktmbuf_free(m);
	m = mk_udp4(hip, sizeof(hip), 0, true);
	assert_int_equal(demux4(m, &sport), ESP_UDP_HIP);
	assert_int_equal(rte_pktmbuf_pkt_len(m), GW_IPV4_HDR_LEN + GW_UDP_HDR_LEN + sizeof(hip));
	rte_pktmbuf_free(m);
	m = mk_udp4(esp, 6, 0, false);        /* marker-sized but shorter than ESP's header */
	assert_int_equal(demux4(m, &sport), ESP_UDP_BAD);
	rte_pktmbuf_free(m);
	m = mk_udp4(esp, sizeof(esp), 1, false);   /* UDP length over the IP payload */
	assert_int_equal(demux4(m, &sport), ESP_UDP_BAD);
	rte_pktmbuf_free(m);
	m = mk_udp4(esp, sizeof(esp), (uint16_t)-1, false);   /* ... under it */
	assert_int_equal(demux4(m, &sport), ESP_UDP_BAD);
	rte_pktmbuf_free(m);
	m = mk_udp4(esp, sizeof(esp), 0, true);   /* a non-zero checksum is verified */
	assert_int_equal(demux4(m, &sport), ESP_UDP_ESP);
	assert_int_equal(rte_pktmbuf_pkt_len(m), GW_IPV4_HDR_LEN + sizeof(esp));
	assert_int_equal(rte_ipv4_cksum(rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *)), 0);
	rte_pktmbuf_free(m);
	m = mk_udp4(esp, sizeof(esp), 0, true);
	rte_pktmbuf_mtod_offset(m, uint8_t *, 30)[0] ^= 1;
	assert_int_equal(demux4(m, &sport), ESP_UDP_CKSUM);
	rte_pktmbuf_free(m);
	m = mk_udp4(esp, 0, 0, false);
	assert_int_equal(esp_udp_demux(m, 0, GW_IPV4_HDR_LEN, GW_IPV4_HDR_LEN + 4, &sport),
			 ESP_UDP_BAD);         /* runt: no whole UDP header */
	rte_pktmbuf_free(m);
}

/* esp_sa_set_path: the path read back, overhead following the UDP header,
 * sequence numbers untouched, bad paths refused, the spare slot not reused
 * before the readers' quiescent state (-EAGAIN). */
static void
test_set_path(void **state)
{
	struct esp_sa *sa = mk_sa(GW_DIR_OUT, GW_SUITE_AES128_GCM16, 4, 0, 0);
	struct esp_path p = { 0 }, got;
	struct rte_rcu_qsbr *qs;
	struct rte_mbuf *m;
	uint32_t plain = esp_sa_overhead(sa, 100);
	size_t sz = rte_rcu_qsbr_get_memsize(1);

	(void)state;
	qs = rte_zmalloc("qs", sz, RTE_CACHE_LINE_SIZE);
	assert_non_null(qs);
	assert_int_equal(rte_rcu_qsbr_init(qs, 1), 0);
	assert_int_equal(rte_rcu_qsbr_thread_register(qs, 0), 0);
	rte_rcu_qsbr_thread_online(qs, 0);
	m = mk_inner(100, 1);
	assert_int_equal(out1(sa, m), GW_DROP_NONE);
	rte_pktmbuf_free(m);
	set_addr(&p.local, 4, 7);
	set_addr(&p.remote, 4, 8);
	p.udp_sport = 10500;
	p.udp_dport = 61000;
	assert_int_equal(esp_sa_set_path(sa, &p, qs, false), 0);
	esp_sa_path(sa, &got);
	assert_memory_equal(&got, &p, sizeof(p));
	assert_int_equal(esp_sa_local(sa)->addr[3], 7);
	assert_int_equal(esp_sa_remote(sa)->addr[3], 8);
	assert_int_equal(esp_sa_overhead(sa, 100), plain + GW_UDP_HDR_LEN);
	assert_int_equal(esp_sa_seq(sa), 2);
	/* the reader has not passed a quiescent state since the swap */
	p.udp_dport = 61001;
	assert_int_equal(esp_sa_set_path(sa, &p, qs, false), -EAGAIN);
	esp_sa_path(sa, &got);
	assert_int_equal(got.udp_dport, 61000);
	rte_rcu_qsbr_quiescent(qs, 0);
	/* now the spare slot is free: back to plain ESP over IPv6 */
	memset(&p, 0, sizeof(p));
	set_addr(&p.local, 6, 1);
	set_addr(&p.remote, 6, 2);
	assert_int_equal(esp_sa_set_path(sa, &p, qs, false), 0);
	assert_int_equal(esp_sa_overhead(sa, 100), plain + 20);
	m = mk_inner(100, 1);
	assert_int_equal(out1(sa, m), GW_DROP_NONE);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[0] >> 4, 6);
	rte_pktmbuf_free(m);
	assert_int_equal(esp_sa_seq(sa), 3);
	/* refused: mixed families, one port only */
	rte_rcu_qsbr_quiescent(qs, 0);
	set_addr(&p.remote, 4, 2);
	assert_int_equal(esp_sa_set_path(sa, &p, qs, false), -EINVAL);
	set_addr(&p.remote, 6, 2);
	p.udp_sport = 1;
	assert_int_equal(esp_sa_set_path(sa, &p, qs, false), -EINVAL);
	rte_rcu_qsbr_thread_offline(qs, 0);
	rte_rcu_qsbr_thread_unregister(qs, 0);
	rte_free(qs);
	esp_sa_free(sa);
}

/* ---- concurrent: a sender thread while the main thread swaps ---- */

#define SWAPS 1000

struct sender {
	struct esp_sa *sa;
	struct rte_rcu_qsbr *qs;
	volatile int stop;
	uint64_t sent, mixed, seq_bad, seen[2];
};

/* Which of the two test paths an outer packet carries whole: 0 (IPv4
 * .1 -> .2, plain ESP), 1 (IPv4 .3 -> .4, UDP 10500 -> 20000), or -1 (a
 * mix). */
static int
path_of(const uint8_t *o)
{
	const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)o;
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(h + 1);
	uint8_t s = o[15], d = o[19];

	if (s == 1 && d == 2 && h->next_proto_id == GW_IPPROTO_ESP)
		return 0;
	if (s == 3 && d == 4 && h->next_proto_id == GW_IPPROTO_UDP &&
	    u->src_port == rte_cpu_to_be_16(10500) && u->dst_port == rte_cpu_to_be_16(20000) &&
	    rte_ipv4_cksum(h) == 0)
		return 1;
	return -1;
}

static void *
sender_main(void *arg)
{
	struct sender *s = arg;
	uint64_t last = 0;

	rte_rcu_qsbr_thread_register(s->qs, 0);
	rte_rcu_qsbr_thread_online(s->qs, 0);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		struct rte_mbuf *mb[4];
		struct esp_sa *sas[4] = { s->sa, s->sa, s->sa, s->sa };
		uint8_t d[4];

		for (int i = 0; i < 4; i++)
			mb[i] = mk_inner(64, 3);
		esp_outbound_burst(sas, mb, d, 4);
		for (int i = 0; i < 4; i++) {
			const uint8_t *o = rte_pktmbuf_mtod(mb[i], const uint8_t *);
			int p = d[i] == GW_DROP_NONE ? path_of(o) : -1;
			uint32_t seq;

			if (p < 0) {
				s->mixed++;
			} else {
				s->seen[p]++;
				memcpy(&seq, o + (p ? 28 : 20) + 4, 4);
				if (rte_be_to_cpu_32(seq) != last + 1)
					s->seq_bad++;
				last = rte_be_to_cpu_32(seq);
			}
			s->sent++;
			rte_pktmbuf_free(mb[i]);
		}
		rte_rcu_qsbr_quiescent(s->qs, 0);   /* as a worker does after each burst */
	}
	rte_rcu_qsbr_thread_offline(s->qs, 0);
	rte_rcu_qsbr_thread_unregister(s->qs, 0);
	return NULL;
}

static void
test_set_path_concurrent(void **state)
{
	struct sender s = { 0 };
	struct esp_path pa = { 0 }, pb = { 0 };
	pthread_t th;
	size_t sz = rte_rcu_qsbr_get_memsize(1);

	(void)state;
	s.sa = mk_sa(GW_DIR_OUT, GW_SUITE_AES128_GCM16, 4, 0, 0);
	s.qs = rte_zmalloc("qs", sz, RTE_CACHE_LINE_SIZE);
	assert_non_null(s.qs);
	assert_int_equal(rte_rcu_qsbr_init(s.qs, 1), 0);
	set_addr(&pa.local, 4, 1);
	set_addr(&pa.remote, 4, 2);
	set_addr(&pb.local, 4, 3);
	set_addr(&pb.remote, 4, 4);
	pb.udp_sport = 10500;
	pb.udp_dport = 20000;
	/* EAL pinned this thread to one CPU and a new thread inherits that:
	 * let the sender run on any, so that both really run at once */
	{
		cpu_set_t all;

		CPU_ZERO(&all);
		for (int c = 0; c < CPU_SETSIZE && c < 64; c++)
			CPU_SET(c, &all);
		assert_int_equal(pthread_create(&th, NULL, sender_main, &s), 0);
		(void)pthread_setaffinity_np(th, sizeof(all), &all);
	}
	for (unsigned i = 0; i < SWAPS; i++) {
		assert_int_equal(esp_sa_set_path(s.sa, i % 2 ? &pa : &pb, s.qs, true), 0);
		/* let some bursts through on each path */
		while (__atomic_load_n(&s.sent, __ATOMIC_RELAXED) < (i + 1) * 8)
			sched_yield();
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(th, NULL), 0);
	print_message("%lu packets, %lu on path A, %lu on path B, %u swaps\n",
		      (unsigned long)s.sent, (unsigned long)s.seen[0], (unsigned long)s.seen[1],
		      SWAPS);
	assert_int_equal(s.mixed, 0);
	assert_int_equal(s.seq_bad, 0);
	assert_true(s.seen[0] > 0 && s.seen[1] > 0);
	assert_int_equal(esp_sa_seq(s.sa), s.sent + 1);
	rte_free(s.qs);
	esp_sa_free(s.sa);
}

static int
setup(void **state)
{
	char *argv[] = { "test_esp_udp", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			 "--no-telemetry", "--file-prefix", "test_esp_udp", "-l", "0",
			 "--log-level", "error", NULL };

	(void)state;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	if (esp_lib_init() != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("esp_udp_test", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	return pool == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	if (pool == NULL)
		return -1;
	if (rte_mempool_avail_count(pool) != POOL_SIZE) {
		fprintf(stderr, "mbuf leak: %u of %u free\n", rte_mempool_avail_count(pool), POOL_SIZE);
		return -1;
	}
	rte_mempool_free(pool);
	esp_lib_fini();
	unit_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_roundtrip),
		cmocka_unit_test(test_demux_kinds),
		cmocka_unit_test(test_set_path),
		cmocka_unit_test(test_set_path_concurrent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
