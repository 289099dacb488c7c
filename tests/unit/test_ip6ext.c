/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 extension header walk and removal (lib/core/gw_ip6ext.c, RFC 8200
 * section 4) at its boundaries: the header and byte limits exactly and one
 * past, chains cut one byte short (each packet in a heap buffer of exactly its
 * length, so a read past it is an AddressSanitizer report), option layouts,
 * Segments Left, atomic and real fragments; removal keeps the Ethernet and
 * fixed headers and fixes Next Header and Payload Length.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "gw_ip6ext.h"

#define HBH  GW_IPPROTO_HOPOPTS
#define RH   GW_IPPROTO_ROUTING
#define FRAG GW_IPPROTO_FRAGMENT
#define DST  GW_IPPROTO_DSTOPTS
#define ESP  GW_IPPROTO_ESP

struct pkt {
	uint8_t b[2048];
	uint32_t len;           /* bytes so far */
	uint32_t nh_at;         /* where the last Next Header field is */
};

static void
pkt_start(struct pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->b[0] = 0x60;
	p->len = GW_IPV6_HDR_LEN;
	p->nh_at = 6;
}

/* Append a header of type `type` (its Next Header filled in by the next one)
 * with n body bytes after Hdr Ext Len, padded with Pad1 to 8-byte units; a
 * Fragment header takes its 7 bytes after Next Header from body. */
static void
pkt_ext(struct pkt *p, uint8_t type, const uint8_t *body, uint32_t n)
{
	uint8_t *h = p->b + p->len;

	p->b[p->nh_at] = type;
	p->nh_at = p->len;
	if (type == FRAG) {
		memcpy(h + 1, body, 7);
		p->len += GW_IPV6_FRAG_HDR_LEN;
		return;
	}
	if (n > 0)
		memcpy(h + 2, body, n);
	h[1] = (uint8_t)((2 + n + 7) / 8 - 1);
	for (uint32_t i = 2 + n; i < (h[1] + 1u) * 8; i++)
		h[i] = 0;            /* Pad1s */
	p->len += (h[1] + 1u) * 8;
}

/* Close with upper-layer header `proto` and `n` payload bytes. */
static void
pkt_end(struct pkt *p, uint8_t proto, uint32_t n)
{
	p->b[p->nh_at] = proto;
	p->len += n;
	p->b[4] = (uint8_t)((p->len - GW_IPV6_HDR_LEN) >> 8);
	p->b[5] = (uint8_t)(p->len - GW_IPV6_HDR_LEN);
}

/* gw_ip6ext_walk over a copy of the first tl bytes in a buffer of exactly tl. */
static enum gw_drop
walk(const struct pkt *p, uint32_t tl, struct gw_ip6ext *x)
{
	uint8_t *c = malloc(tl);
	enum gw_drop r;

	assert_non_null(c);
	memcpy(c, p->b, tl);
	r = gw_ip6ext_walk(c, tl, x);
	free(c);
	return r;
}

static void
test_chains_accepted(void **state)
{
	static const uint8_t tel[] = { 4, 1, 4 }, frag0[7] = { 0 }, rh0[] = { 4, 0, 0, 0, 0, 0 };
	struct gw_ip6ext x;
	struct pkt p;

	(void)state;
	pkt_start(&p);
	pkt_end(&p, ESP, 16);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);
	assert_int_equal(x.len, 0);
	assert_int_equal(x.proto, ESP);

	pkt_start(&p);
	pkt_ext(&p, HBH, NULL, 0);
	pkt_ext(&p, DST, tel, sizeof(tel));
	pkt_ext(&p, RH, rh0, sizeof(rh0));
	pkt_ext(&p, FRAG, frag0, sizeof(frag0));      /* atomic: walked over */
	pkt_end(&p, ESP, 16);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);
	assert_int_equal(x.len, 32);
	assert_int_equal(x.proto, ESP);
}

static void
test_real_fragment_ends_walk(void **state)
{
	static const uint8_t more[7] = { 0, 0, 1 }, off8[7] = { 0, 0, 8 };
	struct gw_ip6ext x;
	struct pkt p;

	(void)state;
	pkt_start(&p);
	pkt_ext(&p, HBH, NULL, 0);
	pkt_ext(&p, FRAG, more, sizeof(more));
	pkt_end(&p, ESP, 16);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);
	assert_int_equal(x.len, 8);
	assert_int_equal(x.proto, FRAG);

	pkt_start(&p);
	pkt_ext(&p, FRAG, off8, sizeof(off8));
	pkt_end(&p, ESP, 0);                           /* a later fragment: nothing after it read */
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);
	assert_int_equal(x.len, 0);
	assert_int_equal(x.proto, FRAG);
}

static void
test_limits(void **state)
{
	uint8_t big[GW_IP6EXT_MAX_BYTES] = { 30, GW_IP6EXT_MAX_BYTES - 4 };
	struct gw_ip6ext x;
	struct pkt p;

	(void)state;
	pkt_start(&p);
	for (unsigned i = 0; i < GW_IP6EXT_MAX_HDRS; i++)
		pkt_ext(&p, DST, NULL, 0);
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);
	pkt_start(&p);
	for (unsigned i = 0; i < GW_IP6EXT_MAX_HDRS + 1; i++)
		pkt_ext(&p, DST, NULL, 0);
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_MALFORMED);

	pkt_start(&p);                                 /* exactly the byte limit */
	pkt_ext(&p, HBH, big, GW_IP6EXT_MAX_BYTES - 2);
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);
	assert_int_equal(x.len, GW_IP6EXT_MAX_BYTES);
	pkt_start(&p);                                 /* one unit more */
	big[1] = GW_IP6EXT_MAX_BYTES - 2;
	pkt_ext(&p, HBH, big, GW_IP6EXT_MAX_BYTES);
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_MALFORMED);
}

static void
test_truncated(void **state)
{
	static const uint8_t padn12[14] = { 1, 12 };
	struct gw_ip6ext x;
	struct pkt p;

	(void)state;
	pkt_start(&p);
	pkt_ext(&p, HBH, NULL, 0);
	pkt_ext(&p, DST, padn12, sizeof(padn12));      /* 16 bytes */
	pkt_end(&p, ESP, 0);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);
	for (uint32_t tl = GW_IPV6_HDR_LEN; tl < p.len; tl++)
		assert_int_equal(walk(&p, tl, &x), GW_DROP_MALFORMED);
}

static void
test_refused(void **state)
{
	static const uint8_t rh1[] = { 4, 1, 0, 0, 0, 0 }, opt40[] = { 0x5e, 0 },
		opt80[] = { 0x9e, 0 }, optc2[] = { 0xc2, 4, 0, 1, 0, 0 },
		overrun[] = { 30, 5, 0, 0, 0, 0 }, padn[] = { 1, 4, 0, 0, 0, 0 };
	struct gw_ip6ext x;
	struct pkt p;

	(void)state;
	pkt_start(&p);
	pkt_ext(&p, RH, rh1, sizeof(rh1));
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_POLICY);

	pkt_start(&p);
	pkt_ext(&p, DST, opt40, sizeof(opt40));
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_POLICY);
	pkt_start(&p);
	pkt_ext(&p, HBH, opt80, sizeof(opt80));
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_POLICY);
	pkt_start(&p);
	pkt_ext(&p, HBH, optc2, sizeof(optc2));
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_POLICY);

	pkt_start(&p);                                 /* option data past its 8-byte header */
	pkt_ext(&p, DST, overrun, sizeof(overrun));
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_MALFORMED);
	pkt_start(&p);                                 /* PadN filling it exactly */
	pkt_ext(&p, DST, padn, sizeof(padn));
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_NONE);

	pkt_start(&p);                                 /* Hop-by-Hop not first */
	pkt_ext(&p, DST, NULL, 0);
	pkt_ext(&p, HBH, NULL, 0);
	pkt_end(&p, ESP, 8);
	assert_int_equal(walk(&p, p.len, &x), GW_DROP_MALFORMED);
}

static void
test_remove(void **state)
{
	static const uint8_t frag0[7] = { 0 };
	uint8_t room[RTE_PKTMBUF_HEADROOM + sizeof(struct pkt) + 14];
	struct rte_mbuf m;
	struct pkt p;
	uint8_t *d, proto = 0;

	(void)state;
	pkt_start(&p);
	pkt_ext(&p, HBH, NULL, 0);
	pkt_ext(&p, FRAG, frag0, sizeof(frag0));
	pkt_end(&p, ESP, 24);
	memset(&m, 0, sizeof(m));
	m.buf_addr = room;
	m.buf_len = sizeof(room);
	m.data_off = RTE_PKTMBUF_HEADROOM;
	m.nb_segs = 1;
	m.data_len = (uint16_t)(14 + p.len);
	m.pkt_len = m.data_len;
	d = rte_pktmbuf_mtod(&m, uint8_t *);
	memset(d, 0xee, 14);                           /* the Ethernet header */
	memcpy(d + 14, p.b, p.len);
	assert_int_equal(gw_ip6ext_remove(&m, 14, p.len, &proto), GW_DROP_NONE);
	assert_int_equal(proto, ESP);
	assert_int_equal(rte_pktmbuf_data_len(&m), 14 + p.len - 16);
	assert_int_equal(rte_pktmbuf_pkt_len(&m), 14 + p.len - 16);
	d = rte_pktmbuf_mtod(&m, uint8_t *);
	for (unsigned i = 0; i < 14; i++)
		assert_int_equal(d[i], 0xee);
	assert_int_equal(d[14], 0x60);
	assert_int_equal(d[14 + 6], ESP);
	assert_int_equal((d[14 + 4] << 8) | d[14 + 5], p.len - GW_IPV6_HDR_LEN - 16);
	assert_memory_equal(d + 14 + GW_IPV6_HDR_LEN, p.b + GW_IPV6_HDR_LEN + 16, 24);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chains_accepted),
		cmocka_unit_test(test_real_fragment_ends_walk),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_remove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
