/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of lib/hipwire on bad input: truncated TLVs, lengths past the
 * end, non-zero padding, parameters out of order, zero-length and odd-length
 * parameters, inconsistent fields inside each typed parameter, and builder
 * misuse. Each is rejected with its own enum hip_err, nothing is read outside
 * the buffer (run under valgrind / ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hip_packet.h"
#include "hip_param.h"
#include "hipwire_testutil.h"

/* A heap copy of exactly len bytes, so that valgrind / ASan see any over-read. */
static uint8_t *
exact(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, src, len);
	return p;
}

static int
validate_exact(const uint8_t *buf, size_t len, unsigned flags, size_t *err_off)
{
	uint8_t *p = exact(buf, len);
	int rc = hip_packet_validate(p, len, flags, NULL, err_off);

	free(p);
	return rc;
}

static void
test_tlv_malformed(void **state)
{
	uint8_t buf[128], v[64];
	size_t off, eo;
	struct hip_tlv_iter it;
	struct hip_tlv t;

	(void)state;
	memset(v, 0x5a, sizeof(v));
	/* a good packet to start from: DH_GROUP_LIST, HIP_CIPHER */
	mk_hdr(buf, 64);
	off = raw_tlv(buf, 40, HIP_PARAM_DH_GROUP_LIST, 3, v);
	off = raw_tlv(buf, off, HIP_PARAM_HIP_CIPHER, 12, v);
	assert_int_equal(off, 64);
	assert_int_equal(validate_exact(buf, 64, 0, &eo), 2);

	/* header errors reported before any TLV */
	buf[3] = 0x11;
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_VERSION);
	assert_int_equal(eo, 0);
	buf[3] = 0x21;
	buf[1] = 3;
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_HDR_LEN);
	buf[1] = 8;      /* says 72 bytes, 64 given */
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_TRUNCATED);
	buf[1] = 7;

	/* length past the end: second TLV (at 48) claims 20 bytes, 16 - 4 remain */
	hip_put16(buf + 50, 20);
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_TLV_OVERRUN);
	assert_int_equal(eo, 48);
	/* contents fit but the padding does not (13 + 4 -> 24 > 16) */
	hip_put16(buf + 50, 13);
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_TLV_OVERRUN);
	hip_put16(buf + 50, 0xffff);
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_TLV_OVERRUN);
	hip_put16(buf + 50, 12);
	assert_int_equal(validate_exact(buf, 64, 0, &eo), 2);
	/* first TLV longer than the whole packet */
	hip_put16(buf + 42, 200);
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_TLV_OVERRUN);
	assert_int_equal(eo, 40);
	hip_put16(buf + 42, 3);

	/* non-zero padding */
	buf[47] = 1;
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_TLV_PADDING);
	assert_int_equal(eo, 40);
	buf[47] = 0;

	/* wrong order: 579 then 511 */
	mk_hdr(buf, 64);
	off = raw_tlv(buf, 40, HIP_PARAM_HIP_CIPHER, 4, v);
	raw_tlv(buf, off, HIP_PARAM_DH_GROUP_LIST, 3, v);
	assert_int_equal(validate_exact(buf, 64, 0, &eo), HIP_E_TLV_ORDER);
	assert_int_equal(eo, 48);
	/* the two unsigned ECHOs: 63425 (response) sorts before 63661 (request) */
	mk_hdr(buf, 56);
	off = raw_tlv(buf, 40, HIP_PARAM_ECHO_REQUEST_UNSIGNED, 1, v);
	raw_tlv(buf, off, HIP_PARAM_ECHO_RESPONSE_UNSIGNED, 1, v);
	assert_int_equal(validate_exact(buf, 56, 0, &eo), HIP_E_TLV_ORDER);

	/* same type twice: rejected by default, accepted (and marked) on request */
	mk_hdr(buf, 56);
	off = raw_tlv(buf, 40, HIP_PARAM_CERT, 4, v);
	raw_tlv(buf, off, HIP_PARAM_CERT, 4, v);
	assert_int_equal(validate_exact(buf, 56, 0, &eo), HIP_E_TLV_ORDER);
	assert_int_equal(validate_exact(buf, 56, HIP_TLV_ALLOW_REPEAT, &eo), 2);
	hip_tlv_iter_init(&it, buf, 56, HIP_TLV_ALLOW_REPEAT);
	assert_int_equal(hip_tlv_next(&it, &t), 1);
	assert_false(it.repeat);
	assert_int_equal(hip_tlv_next(&it, &t), 1);
	assert_true(it.repeat);
	assert_int_equal(hip_tlv_next(&it, &t), 0);

	/* zero-length TLV is well-formed at TLV level (8 bytes) */
	mk_hdr(buf, 48);
	raw_tlv(buf, 40, 1000, 0, NULL);
	assert_int_equal(validate_exact(buf, 48, 0, &eo), 1);

	/* truncated TLV header: only possible in a raw region */
	{
		uint8_t *p = exact((const uint8_t[]){ 0x02, 0x01, 0x00 }, 3);
		hip_tlv_iter_init_raw(&it, p, 3, 0);
		assert_int_equal(hip_tlv_next(&it, &t), HIP_E_TLV_TRUNCATED);
		assert_int_equal(hip_tlv_next(&it, &t), HIP_E_TLV_TRUNCATED);   /* sticky */
		assert_int_equal(hip_tlv_parse_one(p, 3, &t), HIP_E_TLV_TRUNCATED);
		free(p);
	}
	/* one TLV followed by cipher padding, as inside ENCRYPTED */
	{
		uint8_t in[32] = { 0x02, 0xc1, 0x00, 0x02, 0xaa, 0xbb, 0, 0, 7, 7, 7 };
		assert_int_equal(hip_tlv_parse_one(in, sizeof(in), &t), 0);
		assert_int_equal(t.type, HIP_PARAM_HOST_ID);
		assert_int_equal(t.total, 8);
		assert_int_equal(hip_tlv_parse_one(in, 7, &t), HIP_E_TLV_OVERRUN);
		in[7] = 1;
		assert_int_equal(hip_tlv_parse_one(in, sizeof(in), &t), HIP_E_TLV_PADDING);
	}
	/* NULLs and an iterator over less than a header */
	hip_tlv_iter_init(&it, NULL, 64, 0);
	assert_int_equal(hip_tlv_next(&it, &t), HIP_E_ARG);
	hip_tlv_iter_init(&it, buf, 39, 0);
	assert_int_equal(hip_tlv_next(&it, &t), HIP_E_TRUNCATED);
	assert_int_equal(hip_tlv_next(NULL, &t), HIP_E_ARG);
	assert_int_equal(hip_param_find(buf, 48, 1000, NULL), HIP_E_ARG);
}

/* A TLV of `type` with `len` bytes of v, for the typed parsers. */
static struct hip_tlv
tlv(uint16_t type, uint16_t len, const uint8_t *v)
{
	struct hip_tlv t = { .type = type, .len = len, .value = v };

	return t;
}

static void
test_param_malformed(void **state)
{
	uint8_t v[1200];
	struct hip_tlv t;
	union {
		struct hip_r1_counter rc; struct hip_puzzle pz; struct hip_solution so;
		struct hip_diffie_hellman dh; struct hip_dh_group_list gl; struct hip_cipher ci;
		struct hip_encrypted en; struct hip_host_id hi; struct hip_hit_suite_list hs;
		struct hip_transport_format_list tf; struct hip_esp_transform et;
		struct hip_esp_info ei; struct hip_seq sq; struct hip_ack ak;
		struct hip_notification no; struct hip_mac mc; struct hip_signature sg;
		struct hip_echo ec; struct hip_locator_set ls;
	} o;

	(void)state;
	memset(v, 0, sizeof(v));

	/* wrong type for the parser */
	t = tlv(HIP_PARAM_ESP_INFO, 4, v);
	assert_int_equal(hip_seq_parse(&t, &o.sq), HIP_E_PARAM_TYPE);
	assert_int_equal(hip_mac_parse(&t, &o.mc), HIP_E_PARAM_TYPE);
	assert_int_equal(hip_signature_parse(&t, &o.sg), HIP_E_PARAM_TYPE);
	assert_int_equal(hip_echo_parse(&t, &o.ec), HIP_E_PARAM_TYPE);
	/* cutehip's NOTIFICATION code 641 is ENCRYPTED's: not a NOTIFICATION here */
	t = tlv(HIP_PARAM_ENCRYPTED, 8, v);
	assert_int_equal(hip_notification_parse(&t, &o.no), HIP_E_PARAM_TYPE);
	assert_int_equal(hip_seq_parse(NULL, &o.sq), HIP_E_ARG);
	assert_int_equal(hip_seq_parse(&t, NULL), HIP_E_ARG);

	/* zero-length parameters: every typed parser refuses */
#define ZERO(ty, call) do { t = tlv(ty, 0, v); assert_int_equal(call, HIP_E_PARAM_LENGTH); } while (0)
	ZERO(HIP_PARAM_R1_COUNTER, hip_r1_counter_parse(&t, &o.rc));
	ZERO(HIP_PARAM_PUZZLE, hip_puzzle_parse(&t, 32, &o.pz));
	ZERO(HIP_PARAM_SOLUTION, hip_solution_parse(&t, 32, &o.so));
	ZERO(HIP_PARAM_DIFFIE_HELLMAN, hip_diffie_hellman_parse(&t, &o.dh));
	ZERO(HIP_PARAM_DH_GROUP_LIST, hip_dh_group_list_parse(&t, &o.gl));
	ZERO(HIP_PARAM_HIP_CIPHER, hip_cipher_parse(&t, &o.ci));
	ZERO(HIP_PARAM_ENCRYPTED, hip_encrypted_parse(&t, 0, &o.en));
	ZERO(HIP_PARAM_HOST_ID, hip_host_id_parse(&t, &o.hi));
	ZERO(HIP_PARAM_HIT_SUITE_LIST, hip_hit_suite_list_parse(&t, &o.hs));
	ZERO(HIP_PARAM_TRANSPORT_FORMAT_LIST, hip_transport_format_list_parse(&t, &o.tf));
	ZERO(HIP_PARAM_ESP_TRANSFORM, hip_esp_transform_parse(&t, &o.et));
	ZERO(HIP_PARAM_ESP_INFO, hip_esp_info_parse(&t, &o.ei));
	ZERO(HIP_PARAM_SEQ, hip_seq_parse(&t, &o.sq));
	ZERO(HIP_PARAM_ACK, hip_ack_parse(&t, &o.ak));
	ZERO(HIP_PARAM_NOTIFICATION, hip_notification_parse(&t, &o.no));
	ZERO(HIP_PARAM_HIP_MAC, hip_mac_parse(&t, &o.mc));
	ZERO(HIP_PARAM_HIP_SIGNATURE, hip_signature_parse(&t, &o.sg));
	ZERO(HIP_PARAM_ECHO_REQUEST_SIGNED, hip_echo_parse(&t, &o.ec));
	ZERO(HIP_PARAM_LOCATOR_SET, hip_locator_set_parse(&t, &o.ls));
#undef ZERO

	/* odd lengths for 2- and 4-byte lists, off-by-one for fixed layouts */
#define LEN(ty, n, call) do { t = tlv(ty, n, v); assert_int_equal(call, HIP_E_PARAM_LENGTH); } while (0)
	LEN(HIP_PARAM_HIP_CIPHER, 3, hip_cipher_parse(&t, &o.ci));
	LEN(HIP_PARAM_TRANSPORT_FORMAT_LIST, 5, hip_transport_format_list_parse(&t, &o.tf));
	LEN(HIP_PARAM_ESP_TRANSFORM, 5, hip_esp_transform_parse(&t, &o.et));
	LEN(HIP_PARAM_ESP_TRANSFORM, 2, hip_esp_transform_parse(&t, &o.et));   /* reserved only */
	LEN(HIP_PARAM_ACK, 6, hip_ack_parse(&t, &o.ak));
	LEN(HIP_PARAM_ESP_INFO, 11, hip_esp_info_parse(&t, &o.ei));
	LEN(HIP_PARAM_ESP_INFO, 13, hip_esp_info_parse(&t, &o.ei));
	LEN(HIP_PARAM_R1_COUNTER, 8, hip_r1_counter_parse(&t, &o.rc));
	LEN(HIP_PARAM_SEQ, 5, hip_seq_parse(&t, &o.sq));
	LEN(HIP_PARAM_PUZZLE, 4 + 48, hip_puzzle_parse(&t, 32, &o.pz));
	LEN(HIP_PARAM_SOLUTION, 4 + 48, hip_solution_parse(&t, 48, &o.so));
	LEN(HIP_PARAM_NOTIFICATION, 3, hip_notification_parse(&t, &o.no));
	LEN(HIP_PARAM_HIP_SIGNATURE_2, 2, hip_signature_parse(&t, &o.sg));
	LEN(HIP_PARAM_HIP_MAC_2, 65, hip_mac_parse(&t, &o.mc));
	LEN(HIP_PARAM_ENCRYPTED, 20, hip_encrypted_parse(&t, 16, &o.en));      /* no data after IV */
	LEN(HIP_PARAM_LOCATOR_SET, 7, hip_locator_set_parse(&t, &o.ls));
#undef LEN
	t = tlv(HIP_PARAM_PUZZLE, 4 + 33, v);
	assert_int_equal(hip_puzzle_parse(&t, 33, &o.pz), HIP_E_ARG);           /* no such RHASH */
	t = tlv(HIP_PARAM_ENCRYPTED, 100, v);
	assert_int_equal(hip_encrypted_parse(&t, 65, &o.en), HIP_E_ARG);

	/* lists above this library's bounds */
	t = tlv(HIP_PARAM_DH_GROUP_LIST, 17, v);
	assert_int_equal(hip_dh_group_list_parse(&t, &o.gl), HIP_E_TOO_MANY);
	t = tlv(HIP_PARAM_ACK, 4 * 17, v);
	assert_int_equal(hip_ack_parse(&t, &o.ak), HIP_E_TOO_MANY);
	t = tlv(HIP_PARAM_TRANSPORT_FORMAT_LIST, 18, v);
	assert_int_equal(hip_transport_format_list_parse(&t, &o.tf), HIP_E_TOO_MANY);

	/* DIFFIE_HELLMAN: value past the end, three values, group 0, same group twice */
	{
		uint8_t d[32] = { 4, 0, 5, 1, 2, 3, 4, 5 };
		t = tlv(HIP_PARAM_DIFFIE_HELLMAN, 7, d);
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), HIP_E_PARAM_LENGTH);
		t = tlv(HIP_PARAM_DIFFIE_HELLMAN, 8, d);
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), 0);
		t = tlv(HIP_PARAM_DIFFIE_HELLMAN, 10, d);   /* 2 bytes of a second header */
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), HIP_E_PARAM_LENGTH);
		memcpy(d + 8, (const uint8_t[]){ 7, 0, 1, 9, 8, 0, 1, 9 }, 8);
		t = tlv(HIP_PARAM_DIFFIE_HELLMAN, 16, d);
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), HIP_E_TOO_MANY);
		t = tlv(HIP_PARAM_DIFFIE_HELLMAN, 12, d);
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), 0);
		assert_int_equal(o.dh.n, 2);
		d[8] = 4;
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), HIP_E_PARAM_VALUE);
		d[0] = 0;
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), HIP_E_PARAM_VALUE);
		d[0] = 4;
		d[1] = 0; d[2] = 0;                          /* zero-length public value */
		t = tlv(HIP_PARAM_DIFFIE_HELLMAN, 4, d);
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), HIP_E_PARAM_VALUE);
		v[0] = 4; hip_put16(v + 1, 1025);            /* above HIP_DH_PUBLIC_MAX */
		t = tlv(HIP_PARAM_DIFFIE_HELLMAN, 3 + 1025, v);
		assert_int_equal(hip_diffie_hellman_parse(&t, &o.dh), HIP_E_PARAM_VALUE);
		memset(v, 0, 8);
	}
	/* HOST_ID: lengths that do not add up, empty HI, algorithm 0, DI without DI-Type */
	{
		uint8_t h[64] = { 0, 10, 0x20, 4, 0, 7 };    /* HI 10, NAI 4, ECDSA */
		t = tlv(HIP_PARAM_HOST_ID, 20, h);
		assert_int_equal(hip_host_id_parse(&t, &o.hi), 0);
		t.len = 21;
		assert_int_equal(hip_host_id_parse(&t, &o.hi), HIP_E_PARAM_LENGTH);
		t.len = 19;
		assert_int_equal(hip_host_id_parse(&t, &o.hi), HIP_E_PARAM_LENGTH);
		t.len = 20;
		h[2] = 0x00;                                  /* DI-Type none, DI Length 4 */
		assert_int_equal(hip_host_id_parse(&t, &o.hi), HIP_E_PARAM_VALUE);
		h[2] = 0x20; h[5] = 0;
		assert_int_equal(hip_host_id_parse(&t, &o.hi), HIP_E_PARAM_VALUE);
		h[5] = 7; h[1] = 0; h[3] = 14;                /* HI Length 0 */
		assert_int_equal(hip_host_id_parse(&t, &o.hi), HIP_E_PARAM_VALUE);
		h[0] = 0xff; h[1] = 0xff; h[3] = 0;           /* HI Length 65535 */
		assert_int_equal(hip_host_id_parse(&t, &o.hi), HIP_E_PARAM_LENGTH);
	}
	/* SIGNATURE with algorithm 0; LOCATOR_SET inconsistencies */
	t = tlv(HIP_PARAM_HIP_SIGNATURE, 10, v);
	assert_int_equal(hip_signature_parse(&t, &o.sg), HIP_E_PARAM_VALUE);
	{
		uint8_t l[64] = { 0, 0, 4, 1, 0, 0, 0, 60 };
		t = tlv(HIP_PARAM_LOCATOR_SET, 24, l);
		assert_int_equal(hip_locator_set_parse(&t, &o.ls), 0);
		t.len = 28;                                   /* 4 stray bytes */
		assert_int_equal(hip_locator_set_parse(&t, &o.ls), HIP_E_PARAM_LENGTH);
		t.len = 20;                                   /* locator cut short */
		assert_int_equal(hip_locator_set_parse(&t, &o.ls), HIP_E_PARAM_LENGTH);
		l[2] = 5;                                     /* type 0 must be 16 bytes */
		t.len = 28;
		assert_int_equal(hip_locator_set_parse(&t, &o.ls), HIP_E_PARAM_VALUE);
		l[1] = 1;                                     /* type 1 is SPI + IPv6 = 20 */
		assert_int_equal(hip_locator_set_parse(&t, &o.ls), 0);
		l[1] = 9; l[2] = 0; t.len = 8;                /* unknown type, empty: passed through */
		assert_int_equal(hip_locator_set_parse(&t, &o.ls), 0);
		memset(v, 0, 8 * 17);
		t = tlv(HIP_PARAM_LOCATOR_SET, 8 * 17, v);    /* 17 empty locators of type 9 */
		for (int i = 0; i < 17; i++)
			v[8 * i + 1] = 9;
		assert_int_equal(hip_locator_set_parse(&t, &o.ls), HIP_E_TOO_MANY);
	}
}

static void
test_builder_errors(void **state)
{
	uint8_t buf[256], v[64];
	struct hip_builder b;
	struct hip_seq sq = { 1 };
	struct hip_cipher ci = { 7, 0, { 1, 2, 3, 4, 5, 6 } };
	struct hip_mac bad_mac = { HIP_PARAM_HIP_SIGNATURE, v, 8 };
	struct hip_host_id hid = { HIP_HI_RSA, HIP_DI_NONE, 4, 2, v, v };

	(void)state;
	memset(v, 1, sizeof(v));
	/* out of order: sticky, the packet is refused at finish */
	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, HIT_S, HIT_R);
	assert_int_equal(hip_build_param(&b, HIP_PARAM_ACK, v, 4), 0);
	assert_int_equal(hip_seq_put(&b, &sq), HIP_E_TLV_ORDER);
	assert_int_equal(hip_build_param(&b, HIP_PARAM_HIP_MAC, v, 32), HIP_E_TLV_ORDER);
	assert_int_equal(hip_build_finish(&b), HIP_E_TLV_ORDER);
	/* same type twice only with HIP_TLV_ALLOW_REPEAT */
	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, HIT_S, HIT_R);
	hip_build_param(&b, HIP_PARAM_CERT, v, 4);
	assert_int_equal(hip_build_param(&b, HIP_PARAM_CERT, v, 4), HIP_E_TLV_ORDER);
	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, HIT_S, HIT_R);
	b.flags = HIP_TLV_ALLOW_REPEAT;
	hip_build_param(&b, HIP_PARAM_CERT, v, 4);
	assert_int_equal(hip_build_param(&b, HIP_PARAM_CERT, v, 4), 0);
	assert_int_equal(hip_build_finish(&b), 56);
	/* no space: the buffer, then the 2048-byte packet limit */
	hip_build_init(&b, buf, 48, HIP_UPDATE, HIT_S, HIT_R);
	assert_int_equal(hip_build_param(&b, HIP_PARAM_SEQ, v, 4), 0);
	assert_int_equal(hip_build_param(&b, HIP_PARAM_ACK, v, 4), HIP_E_NOSPACE);
	assert_int_equal(hip_build_finish(&b), HIP_E_NOSPACE);
	{
		uint8_t *big = calloc(1, 4096);
		assert_non_null(big);
		hip_build_init(&b, big, 4096, HIP_UPDATE, HIT_S, HIT_R);
		assert_non_null(hip_build_param_reserve(&b, 1000, 2000));
		assert_null(hip_build_param_reserve(&b, 1001, 4));  /* 40 + 2008 = 2048: full */
		assert_int_equal(b.err, HIP_E_NOSPACE);
		hip_build_init(&b, big, 4096, HIP_UPDATE, HIT_S, HIT_R);
		assert_non_null(hip_build_param_reserve(&b, 1000, 2004));
		assert_int_equal(hip_build_finish(&b), 2048);
		assert_int_equal(big[1], 255);
		assert_int_equal(hip_packet_validate(big, 4096, 0, NULL, NULL), 1);
		free(big);
	}
	/* arguments that cannot be encoded */
	assert_int_equal(hip_build_init(&b, buf, 39, HIP_I1, HIT_S, HIT_R), HIP_E_NOSPACE);
	assert_int_equal(hip_build_init(&b, buf, 64, 128, HIT_S, HIT_R), HIP_E_ARG);
	assert_int_equal(hip_build_init(&b, NULL, 64, HIP_I1, HIT_S, HIT_R), HIP_E_ARG);
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	assert_int_equal(hip_cipher_put(&b, &ci), HIP_E_ARG);          /* 7 > six */
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	assert_int_equal(hip_mac_put(&b, &bad_mac), HIP_E_ARG);
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	assert_int_equal(hip_host_id_put(&b, &hid), HIP_E_ARG);      /* DI without DI-Type */
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	assert_int_equal(hip_puzzle_put(&b, 31, &(struct hip_puzzle){ .i = v }), HIP_E_ARG);
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	assert_int_equal(hip_build_param(&b, 1000, NULL, 4), HIP_E_ARG);
	assert_int_equal(hip_build_finish(&b), HIP_E_ARG);
	assert_int_equal(hip_seq_put(NULL, &sq), HIP_E_ARG);
	assert_int_equal(hip_build_finish(NULL), HIP_E_ARG);
	assert_null(hip_build_param_reserve(NULL, 1, 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlv_malformed),
		cmocka_unit_test(test_param_malformed),
		cmocka_unit_test(test_builder_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
