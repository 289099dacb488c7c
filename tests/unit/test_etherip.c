/* SPDX-License-Identifier: BSD-3-Clause
 * EtherIP (RFC 3378) over ESP, lib/core/gw_etherip.c: a frame encapsulated
 * and parsed back, each refusal (version, reserved bits, runts), untagged,
 * 802.1Q, 802.1ad + 802.1Q and triple-tagged frames, each at its shortest
 * length and one byte short. Every payload is parsed from a heap buffer of
 * exactly its length, so that a read past it is an AddressSanitizer report.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gw_etherip.h"

/* A frame: MACs, n_tags tags (the first with TPID tpid0, the others 802.1Q),
 * EtherType 0x0800, then payload bytes up to total bytes (>= its header). */
static uint32_t
frame_make(uint8_t *b, uint32_t total, unsigned n_tags, uint16_t tpid0)
{
	uint32_t at = 12;

	for (uint32_t i = 0; i < total; i++)
		b[i] = (uint8_t)(i * 7 + 1);
	for (unsigned t = 0; t < n_tags; t++) {
		uint16_t tpid = t == 0 ? tpid0 : GW_ETHERTYPE_VLAN;

		b[at] = (uint8_t)(tpid >> 8);
		b[at + 1] = (uint8_t)tpid;
		at += GW_VLAN_TAG_BYTES;
	}
	if (at + 2 <= total) {
		b[at] = 0x08;
		b[at + 1] = 0x00;
	}
	return total;
}

/* Parse the len bytes at p from an exact-size heap copy. */
static enum gw_drop
parse_exact(const uint8_t *p, uint32_t len, struct gw_etherip_frame *f)
{
	uint8_t *c = malloc(len ? len : 1);
	enum gw_drop r;

	assert_non_null(c);
	memcpy(c, p, len);
	r = gw_etherip_parse(c, len, f);
	free(c);
	return r;
}

/* Frame of frame_len bytes with n tags behind a header built by encap. */
static enum gw_drop
encap_parse(uint32_t frame_len, unsigned n_tags, uint16_t tpid0, struct gw_etherip_frame *f)
{
	uint8_t buf[2048];
	uint32_t plen = 0;
	int off;

	frame_make(buf + 64, frame_len, n_tags, tpid0);
	off = gw_etherip_encap(buf, 64, frame_len, &plen);
	assert_int_equal(off, 62);
	assert_int_equal(plen, frame_len + GW_ETHERIP_HDR_BYTES);
	return parse_exact(buf + off, plen, f);
}

static void
test_header_bytes(void **state)
{
	uint8_t h[GW_ETHERIP_HDR_BYTES] = {0xff, 0xff};

	(void)state;
	gw_etherip_hdr_put(h);
	/* RFC 3378: version 3 in the high nibble, 12 zero bits */
	assert_int_equal(h[0], 0x30);
	assert_int_equal(h[1], 0x00);
	assert_int_equal(GW_IPPROTO_ETHERIP, 97);
}

static void
test_round_trip(void **state)
{
	uint8_t buf[2048], orig[2048];
	struct gw_etherip_frame f;
	uint32_t plen;
	int off;

	(void)state;
	frame_make(orig, 1514, 0, 0);
	memcpy(buf + 100, orig, 1514);
	off = gw_etherip_encap(buf, 100, 1514, &plen);
	assert_int_equal(off, 98);
	assert_int_equal(plen, 1516);
	assert_int_equal(parse_exact(buf + off, plen, &f), GW_DROP_NONE);
	assert_int_equal(f.off, GW_ETHERIP_HDR_BYTES);
	assert_int_equal(f.len, 1514);
	assert_int_equal(f.l2_len, GW_ETH_HDR_BYTES);
	assert_int_equal(f.vlan_tags, 0);
	/* the frame comes back byte for byte */
	assert_memory_equal(buf + off + f.off, orig, 1514);
}

static void
test_encap_refused(void **state)
{
	uint8_t buf[64];
	uint32_t plen = 77;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(gw_etherip_encap(buf, 1, 60, &plen), -1);
	assert_int_equal(gw_etherip_encap(buf, 0, 60, &plen), -1);
	assert_int_equal(gw_etherip_encap(buf, 2, GW_ETH_HDR_BYTES - 1, &plen), -1);
	assert_int_equal(plen, 77);
	for (unsigned i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	/* exactly enough headroom and the shortest frame */
	assert_int_equal(gw_etherip_encap(buf, 2, GW_ETH_HDR_BYTES, &plen), 0);
	assert_int_equal(plen, 16);
	assert_int_equal(buf[0], 0x30);
}

static void
test_version(void **state)
{
	uint8_t p[2 + 60];
	struct gw_etherip_frame f;

	(void)state;
	frame_make(p + 2, 60, 0, 0);
	for (unsigned v = 0; v < 16; v++) {
		p[0] = (uint8_t)(v << 4);
		p[1] = 0;
		assert_int_equal(parse_exact(p, sizeof(p), &f),
				 v == GW_ETHERIP_VERSION ? GW_DROP_NONE : GW_DROP_ETHERIP_VERSION);
	}
	/* version checked before the reserved bits and the length */
	p[0] = 0x4f;
	p[1] = 0xff;
	assert_int_equal(parse_exact(p, 2, &f), GW_DROP_ETHERIP_VERSION);
}

static void
test_reserved(void **state)
{
	uint8_t p[2 + 60];
	struct gw_etherip_frame f;

	(void)state;
	frame_make(p + 2, 60, 0, 0);
	for (unsigned bit = 0; bit < 12; bit++) {
		uint16_t h = (uint16_t)(GW_ETHERIP_VERSION << 12 | 1u << bit);

		p[0] = (uint8_t)(h >> 8);
		p[1] = (uint8_t)h;
		assert_int_equal(parse_exact(p, sizeof(p), &f), GW_DROP_ETHERIP_RESERVED);
	}
	/* reserved checked before the length */
	p[0] = 0x30;
	p[1] = 0x01;
	assert_int_equal(parse_exact(p, 2, &f), GW_DROP_ETHERIP_RESERVED);
}

static void
test_runt_header(void **state)
{
	const uint8_t p[2] = {0x30, 0x00};
	struct gw_etherip_frame f;

	(void)state;
	assert_int_equal(parse_exact(p, 0, &f), GW_DROP_L2_RUNT);
	assert_int_equal(parse_exact(p, 1, &f), GW_DROP_L2_RUNT);
	assert_int_equal(parse_exact(p, 2, &f), GW_DROP_L2_RUNT);
}

/* A frame with n tags: accepted at its header length, runt one byte short. */
static void
limits(unsigned n_tags, uint16_t tpid0, uint32_t want_l2, unsigned want_tags)
{
	uint8_t p[2 + 64];
	struct gw_etherip_frame f;

	memset(&f, 0, sizeof(f));
	assert_int_equal(encap_parse(want_l2, n_tags, tpid0, &f), GW_DROP_NONE);
	assert_int_equal(f.l2_len, want_l2);
	assert_int_equal(f.len, want_l2);
	assert_int_equal(f.vlan_tags, want_tags);
	/* one byte short: the header as far as it goes, the rest cut */
	p[0] = 0x30;
	p[1] = 0x00;
	frame_make(p + 2, want_l2, n_tags, tpid0);
	assert_int_equal(parse_exact(p, 2 + want_l2 - 1, &f), GW_DROP_L2_RUNT);
	assert_int_equal(parse_exact(p, 2 + want_l2, &f), GW_DROP_NONE);
}

static void
test_untagged_limits(void **state)
{
	(void)state;
	limits(0, 0, 14, 0);
}

/* n tags (first 802.1Q or 802.1ad, then 802.1Q): both TPIDs at the limits,
 * and a full-size frame (1514 bytes + 4 per tag). */
static void
tagged(unsigned n)
{
	const uint32_t l2 = GW_ETH_HDR_BYTES + n * GW_VLAN_TAG_BYTES;
	const uint32_t full = 1514 + n * GW_VLAN_TAG_BYTES;
	struct gw_etherip_frame f;

	limits(n, GW_ETHERTYPE_VLAN, l2, n);
	limits(n, GW_ETHERTYPE_QINQ, l2, n);
	assert_int_equal(encap_parse(full, n, GW_ETHERTYPE_QINQ, &f), GW_DROP_NONE);
	assert_int_equal(f.len, full);
	assert_int_equal(f.l2_len, l2);
	assert_int_equal(f.vlan_tags, n);
}

static void
test_vlan_single(void **state)
{
	(void)state;
	tagged(1);
}

static void
test_vlan_double(void **state)
{
	(void)state;
	tagged(2);
}

static void
test_vlan_triple(void **state)
{
	struct gw_etherip_frame f;

	(void)state;
	/* a third tag is payload: the header is 22 bytes, the frame may be too */
	assert_int_equal(encap_parse(22, 3, GW_ETHERTYPE_QINQ, &f), GW_DROP_NONE);
	assert_int_equal(f.l2_len, 22);
	assert_int_equal(f.vlan_tags, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_bytes),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_encap_refused),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_reserved),
		cmocka_unit_test(test_runt_header),
		cmocka_unit_test(test_untagged_limits),
		cmocka_unit_test(test_vlan_single),
		cmocka_unit_test(test_vlan_double),
		cmocka_unit_test(test_vlan_triple),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
