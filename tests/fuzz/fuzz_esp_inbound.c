/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: ESP inbound (lib/esp esp_inbound_burst, RFC 4303 3.4) on
 * installed SAs: every suite, ESN on and off, anti-replay window 0, 64 or
 * 1024 packets, all chosen by the input, the window's top set by it too.
 *
 * Input: byte 0 = mode (bits 6-7) | window (bits 4-5, mod 3) | ESN (bit 3) |
 * suite (bits 0-2, mod 5); bytes 1-8 = the window's top before the packets
 * (little endian); then
 * - mode 0, raw: the rest is one outer IP packet as received (byte 9: chain
 *   it into segments of that many bytes, 0 = one segment);
 * - modes 1-3, structured: up to 16 packet records (below) that the harness
 *   encrypts with the SA's keys through an independent ESP on OpenSSL
 *   (tests/unit/esp_ref.h), so that the checks after the ICV are reached.
 *   Every packet goes through one SA as one burst and through a twin SA one
 *   per call: the verdicts must agree (the burst is specified to give each
 *   packet the verdict it gets alone after the packets before it), a forged
 *   packet must never be delivered, and a delivered one must be exactly the
 *   inner packet. Mode 2 also chains the packets that ask for it.
 *
 * A packet record: flags (bit 0 outer IPv6, bit 1 forged ICV, bit 2 fix up
 * the inner header's version / length / checksum, bits 3-4 next header: by
 * the inner version, 59, the next byte, the wrong one of 4/41; bits 5-6
 * outer ECN; bit 7 chained), sequence number (4 bytes low half; 1 byte:
 * high half = top's - 1 + (byte & 3)), inner length (2 bytes, mod 4096),
 * TFC bytes (1), pad (1 byte: 0 = the suite's default, else count - 1 of pad
 * bytes 1, 2, 3 ..., its bit 7 a wrong last byte), pad length field
 * override (1 byte, 0 = none: the byte - 1), chain shape (2 bytes: first
 * segment, segment size), then the inner bytes and TFC bytes themselves
 * (zeros where the input ends).
 *
 * Deterministic: fixed keys and IVs, the window reset for every input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "esp.h"
#include "esp_internal.h"          /* esp_test_set_replay_top */
#include "../unit/esp_ref.h"
#include "../unit/unit_eal.h"

#define NSUITE 5
#define NWIN 3
#define MAX_PKTS 16
#define NMBUF 8191
#define NBIG 63
#define BIG_ROOM 10240          /* data room of the head mbufs, bytes: any packet */
#define INNER_MAX 4096          /* largest fuzzed inner packet, bytes */

static const enum gw_suite suites[NSUITE] = {
	GW_SUITE_AES128_GCM16, GW_SUITE_AES256_GCM16, GW_SUITE_AES128_CBC_SHA256,
	GW_SUITE_AES256_CBC_SHA256, GW_SUITE_NULL_SHA256,
};
static const uint32_t windows[NWIN] = { 0, 64, 1024 };
static const uint8_t KEY[36] = {
	0x3f, 0x21, 0x09, 0x7a, 0x55, 0x12, 0xe0, 0x4d, 0x88, 0x1b, 0xc6, 0x73,
	0x2e, 0x90, 0x41, 0xfa, 0x6c, 0x05, 0xb7, 0x38, 0xd2, 0x99, 0x14, 0x5e,
	0xa3, 0x0f, 0x67, 0xcb, 0x20, 0x8d, 0x4a, 0xf1, 0xde, 0xad, 0xbe, 0xef,
};
static const uint8_t AUTH[32] = {
	0x71, 0x2a, 0x93, 0x04, 0xbd, 0x56, 0xef, 0x18, 0x8a, 0x33, 0xc4, 0x6d,
	0x0e, 0xa7, 0x59, 0xf2, 0x1b, 0x84, 0x3d, 0xc6, 0x6f, 0x08, 0xb1, 0x5a,
	0xe3, 0x9c, 0x45, 0x2e, 0xd7, 0x70, 0x19, 0xa2,
};

static struct rte_mempool *pool, *big_pool;
/* [suite][esn][window][twin]: twin 0 takes the burst, 1 one packet per call */
static struct esp_sa *sas[NSUITE][2][NWIN][2];

struct cursor {
	const uint8_t *p;
	size_t n;
};

static uint8_t
get8(struct cursor *c)
{
	uint8_t v = 0;

	if (c->n > 0) {
		v = *c->p++;
		c->n--;
	}
	return v;
}

static void
getn(struct cursor *c, uint8_t *out, size_t n)
{
	size_t k = n < c->n ? n : c->n;

	memcpy(out, c->p, k);
	memset(out + k, 0, n - k);
	c->p += k;
	c->n -= k;
}

/* The reference SA of suite index s with ESN e (the harness's keys, SPI). */
static struct esp_ref_sa
ref_of(unsigned s, unsigned e)
{
	return (struct esp_ref_sa){ .suite = suites[s], .esn = e, .spi = 0x5000 + s, .key = KEY,
				    .auth_key = AUTH, .outer_fam = 4 };
}

static void
cleanup(void)
{
	for (unsigned s = 0; s < NSUITE; s++)
		for (unsigned e = 0; e < 2; e++)
			for (unsigned w = 0; w < NWIN; w++)
				for (unsigned t = 0; t < 2; t++)
					esp_sa_free(sas[s][e][w][t]);
	rte_mempool_free(pool);
	rte_mempool_free(big_pool);
	esp_lib_fini();
	unit_eal_cleanup();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_esp_inbound", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", "--file-prefix", prefix, "-l", "0", "--log-level",
			"error", NULL };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "fuzz_esp_in_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0 || esp_lib_init() != 0)
		abort();
	pool = rte_pktmbuf_pool_create("fz_esp_seg", NMBUF, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	big_pool = rte_pktmbuf_pool_create("fz_esp_big", NBIG, 0, 0,
					   RTE_PKTMBUF_HEADROOM + BIG_ROOM, SOCKET_ID_ANY);
	if (pool == NULL || big_pool == NULL)
		abort();
	for (unsigned s = 0; s < NSUITE; s++)
		for (unsigned e = 0; e < 2; e++)
			for (unsigned w = 0; w < NWIN; w++)
				for (unsigned t = 0; t < 2; t++) {
					struct esp_ref_sa ref = ref_of(s, e);
					struct esp_sa_params p;
					char err[128];

					esp_ref_in_params(&ref, windows[w], &p);
					sas[s][e][w][t] = esp_sa_create(&p, err, sizeof(err));
					if (sas[s][e][w][t] == NULL) {
						fprintf(stderr, "esp_sa_create: %s\n", err);
						abort();
					}
				}
	atexit(cleanup);
	return 0;
}

/* pkt[0 .. len) in an mbuf: one segment, or a chain whose first segment
 * holds first bytes (at least 1) and the others seg bytes each. */
static struct rte_mbuf *
to_mbuf(const uint8_t *pkt, size_t len, bool chained, size_t first, size_t seg)
{
	struct rte_mbuf *head = rte_pktmbuf_alloc(big_pool), *last;
	size_t off;

	if (head == NULL)
		abort();
	if (!chained)
		first = len;
	if (first == 0)
		first = 1;
	if (seg < len / 256 + 1)
		seg = len / 256 + 1;          /* stays within the segment pool */
	off = first < len ? first : len;
	memcpy(rte_pktmbuf_append(head, (uint16_t)off), pkt, off);
	for (last = head; off < len; last = last->next) {
		size_t l = seg < len - off ? seg : len - off;
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);

		if (s == NULL)
			abort();
		memcpy(rte_pktmbuf_append(s, (uint16_t)l), pkt + off, l);
		last->next = s;
		head->nb_segs++;
		head->pkt_len += (uint32_t)l;
		off += l;
	}
	return head;
}

struct rec {
	uint8_t pkt[ESP_REF_MAX];
	size_t len;
	size_t inner_len;            /* the inner header's length (fixed up), or 0 */
	uint8_t inner[INNER_MAX];
	bool forged, chained;
	size_t first, seg;
};

static struct rec recs[MAX_PKTS];

/* Parse and encrypt one packet record; false when the input is used up. */
static bool
build(struct cursor *c, const struct esp_ref_sa *ref, uint64_t top, unsigned k, struct rec *r)
{
	uint8_t flags, lo[4], hid, tfc_n, padc, padlen_o, tfc[256], pad[128], iv[16];
	struct esp_ref_pkt pk = { 0 };
	uint8_t payload[INNER_MAX + 256];
	size_t il;
	int fam;

	if (c->n == 0)
		return false;
	flags = get8(c);
	getn(c, lo, 4);
	hid = get8(c);
	il = ((size_t)get8(c) << 8 | get8(c)) % INNER_MAX;
	tfc_n = get8(c);
	padc = get8(c);
	padlen_o = get8(c);
	r->first = get8(c);
	r->seg = get8(c) + 1u;
	getn(c, r->inner, il);
	getn(c, tfc, tfc_n);
	fam = il > 0 && gw_ip_version(r->inner) == 6 ? 6 : 4;
	r->inner_len = 0;
	if ((flags & 4) && il >= GW_IPV6_HDR_LEN) {
		/* a sound inner header: the ESP checks after it are reached */
		fam = r->inner[0] & 1 ? 6 : 4;
		if (fam == 4) {
			struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)r->inner;

			h->version_ihl = GW_IPV4_VER_IHL;
			h->total_length = rte_cpu_to_be_16((uint16_t)il);
			h->hdr_checksum = 0;
			h->hdr_checksum = rte_ipv4_cksum(h);
		} else {
			struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)r->inner;

			r->inner[0] = (uint8_t)(0x60 | (r->inner[0] & 0x0f));
			h->payload_len = rte_cpu_to_be_16((uint16_t)(il - GW_IPV6_HDR_LEN));
		}
		r->inner_len = il;
	}
	memcpy(payload, r->inner, il);
	memcpy(payload + il, tfc, tfc_n);
	for (unsigned i = 0; i < sizeof(iv); i++)
		iv[i] = (uint8_t)(k * 31 + i);
	pk.seq = ((uint64_t)((uint32_t)(top >> 32) - 1u + (hid & 3u)) << 32) |
		 ((uint32_t)lo[0] | (uint32_t)lo[1] << 8 | (uint32_t)lo[2] << 16 |
		  (uint32_t)lo[3] << 24);
	pk.iv = iv;
	pk.payload = payload;
	pk.payload_len = il + tfc_n;
	pk.pad = pad;
	if ((padc & 0x7f) == 0) {
		pk.pad_len = esp_ref_default_pad(ref->suite, pk.payload_len, pad);
	} else {
		pk.pad_len = (padc & 0x7f) - 1u;
		for (size_t i = 0; i < pk.pad_len; i++)
			pad[i] = (uint8_t)(i + 1);
		if ((padc & 0x80) && pk.pad_len > 0)
			pad[pk.pad_len - 1] ^= 0x40;
	}
	pk.pad_len_byte = padlen_o ? (uint8_t)(padlen_o - 1) : (uint8_t)pk.pad_len;
	switch ((flags >> 3) & 3) {
	case 0: pk.nh = fam == 4 ? GW_IPPROTO_IPIP : GW_IPPROTO_IPV6; break;
	case 1: pk.nh = GW_IPPROTO_NONE; break;
	case 2: pk.nh = get8(c); break;
	default: pk.nh = fam == 4 ? GW_IPPROTO_IPV6 : GW_IPPROTO_IPIP; break;
	}
	pk.outer_tos = (uint8_t)((flags >> 5) & 3);
	pk.forge = flags & 2;
	r->forged = pk.forge;
	r->chained = flags & 0x80;
	{
		struct esp_ref_sa o = *ref;

		o.outer_fam = flags & 1 ? 6 : 4;
		r->len = esp_ref_build(&o, &pk, r->pkt, sizeof(r->pkt));
	}
	return true;
}

/* A delivered packet is the inner packet: its length and every byte but
 * the ECN field (and the IPv4 checksum that covers it). */
static void
check_delivered(const struct rec *r, struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	size_t from;

	if (r->forged || m->nb_segs != 1)
		abort();
	if (esp_pkt_is_beet(m) || r->inner_len == 0)
		return;                       /* inner header as fuzzed: length unknown here */
	if (rte_pktmbuf_pkt_len(m) != r->inner_len)
		abort();
	from = gw_ip_version(d) == 4 ? 12 : 4;
	if (memcmp(d + from, r->inner + from, r->inner_len - from) != 0 || d[0] != r->inner[0])
		abort();
}

static void
run_structured(struct cursor *c, struct esp_sa *burst, struct esp_sa *single,
	       const struct esp_ref_sa *ref, uint64_t top, bool chains)
{
	struct esp_sa *sa[MAX_PKTS];
	struct rte_mbuf *mb[MAX_PKTS];
	uint8_t drop[MAX_PKTS];
	unsigned n = 0;

	while (n < MAX_PKTS && build(c, ref, top, n, &recs[n]))
		if (recs[n].len != 0)
			n++;
	for (unsigned i = 0; i < n; i++) {
		sa[i] = burst;
		mb[i] = to_mbuf(recs[i].pkt, recs[i].len, chains && recs[i].chained,
				recs[i].first, recs[i].seg);
	}
	esp_inbound_burst(sa, mb, drop, (uint16_t)n);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = to_mbuf(recs[i].pkt, recs[i].len, false, 0, 0);
		uint8_t d = 0xff;

		esp_inbound_burst(&single, &m, &d, 1);
		if (d != drop[i]) {
			fprintf(stderr, "packet %u: burst verdict %u, alone %u\n", i, drop[i], d);
			abort();
		}
		if (d == GW_DROP_NONE) {
			check_delivered(&recs[i], m);
			check_delivered(&recs[i], mb[i]);
		}
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(mb[i]);
	}
	if (esp_sa_seq(burst) != esp_sa_seq(single))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = { data, size };
	uint8_t cfg = get8(&c), t8[8];
	unsigned s = (cfg & 7) % NSUITE, e = (cfg >> 3) & 1, w = ((cfg >> 4) & 3) % NWIN;
	struct esp_ref_sa ref = ref_of(s, e);
	uint64_t top = 0;

	getn(&c, t8, 8);
	for (int i = 7; i >= 0; i--)
		top = top << 8 | t8[i];
	if (!e)
		top &= UINT32_MAX;
	esp_test_set_replay_top(sas[s][e][w][0], top);
	esp_test_set_replay_top(sas[s][e][w][1], top);
	if ((cfg >> 6) == 0) {
		size_t seg = get8(&c);
		struct rte_mbuf *m;
		uint8_t d;

		if (c.n > BIG_ROOM)
			return 0;
		m = to_mbuf(c.p, c.n, seg != 0, seg, seg);
		esp_inbound_burst(&sas[s][e][w][0], &m, &d, 1);
		rte_pktmbuf_free(m);
	} else {
		run_structured(&c, sas[s][e][w][0], sas[s][e][w][1], &ref, top, (cfg >> 6) == 2);
	}
	if (rte_mempool_avail_count(pool) != NMBUF || rte_mempool_avail_count(big_pool) != NBIG)
		abort();                      /* an mbuf left behind */
	return 0;
}
