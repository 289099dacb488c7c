/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of lib/hipwire (RFC 7401 / 7402 / 8046 wire format): header build
 * and parse, checksum known answers, build -> parse round trip of every
 * parameter type, what MACs and signatures cover (hip_coverage.h). Malformed
 * input: test_hipwire_bad.c; the real cutehip packets: test_hipwire_cutehip.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hip_coverage.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hipwire_testutil.h"

/* The wire numbers of RFC 7401 and the IANA HIP registries, restated. */
static void
test_constants(void **state)
{
	static const struct { unsigned got, want; } t[] = {
		{ HIP_I1, 1 }, { HIP_R1, 2 }, { HIP_I2, 3 }, { HIP_R2, 4 }, { HIP_UPDATE, 16 },
		{ HIP_NOTIFY, 17 }, { HIP_CLOSE, 18 }, { HIP_CLOSE_ACK, 19 },
		{ HIP_PARAM_ESP_INFO, 65 }, { HIP_PARAM_R1_COUNTER, 129 }, { HIP_PARAM_LOCATOR_SET, 193 },
		{ HIP_PARAM_PUZZLE, 257 }, { HIP_PARAM_SOLUTION, 321 }, { HIP_PARAM_SEQ, 385 },
		{ HIP_PARAM_ACK, 449 }, { HIP_PARAM_DH_GROUP_LIST, 511 }, { HIP_PARAM_DIFFIE_HELLMAN, 513 },
		{ HIP_PARAM_HIP_CIPHER, 579 }, { HIP_PARAM_ENCRYPTED, 641 }, { HIP_PARAM_HOST_ID, 705 },
		{ HIP_PARAM_HIT_SUITE_LIST, 715 }, { HIP_PARAM_CERT, 768 }, { HIP_PARAM_NOTIFICATION, 832 },
		{ HIP_PARAM_ECHO_REQUEST_SIGNED, 897 }, { HIP_PARAM_ECHO_RESPONSE_SIGNED, 961 },
		{ HIP_PARAM_TRANSPORT_FORMAT_LIST, 2049 }, { HIP_PARAM_ESP_TRANSFORM, 4095 },
		{ HIP_PARAM_HIP_MAC, 61505 }, { HIP_PARAM_HIP_MAC_2, 61569 },
		{ HIP_PARAM_HIP_SIGNATURE_2, 61633 }, { HIP_PARAM_HIP_SIGNATURE, 61697 },
		{ HIP_PARAM_ECHO_REQUEST_UNSIGNED, 63661 }, { HIP_PARAM_ECHO_RESPONSE_UNSIGNED, 63425 },
		{ HIP_ESP_NULL_HMAC_SHA256, 7 }, { HIP_ESP_AES_128_CBC_HMAC_SHA256, 8 },
		{ HIP_ESP_AES_256_CBC_HMAC_SHA256, 9 }, { HIP_ESP_AES_GCM_16, 13 },
		{ HIP_DH_GROUP_MODP_3072, 4 }, { HIP_DH_GROUP_NIST_P256, 7 }, { HIP_DH_GROUP_NIST_P384, 8 },
		{ HIP_CIPHER_NULL_ENCRYPT, 1 }, { HIP_CIPHER_AES_128_CBC, 2 }, { HIP_CIPHER_AES_256_CBC, 4 },
		{ HIP_HI_RSA, 5 }, { HIP_HI_ECDSA, 7 }, { HIP_ECDSA_NIST_P384, 2 },
		{ HIP_NOTIFY_INVALID_SYNTAX, 7 }, { HIP_NOTIFY_AUTHENTICATION_FAILED, 24 },
		{ HIP_NOTIFY_I2_ACKNOWLEDGEMENT, 16384 }, { HIP_VERSION_BYTE, 0x21 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(t[i].got, t[i].want);
	/* critical bit = odd type (RFC 7401 5.2.1) */
	assert_true(hip_param_is_critical(HIP_PARAM_ESP_INFO));
	assert_true(hip_param_is_critical(HIP_PARAM_ECHO_RESPONSE_UNSIGNED));
	assert_true(hip_param_is_critical(HIP_PARAM_HIP_SIGNATURE));
	assert_false(hip_param_is_critical(HIP_PARAM_CERT));
	assert_false(hip_param_is_critical(HIP_PARAM_REG_INFO));
	assert_string_equal(hip_param_name(HIP_PARAM_HIP_SIGNATURE_2), "HIP_SIGNATURE_2");
	assert_null(hip_param_name(1000));
	assert_string_equal(hip_packet_type_name(HIP_CLOSE_ACK), "CLOSE_ACK");
	assert_null(hip_packet_type_name(5));
	assert_int_equal(hip_tlv_total(0), 8);
	assert_int_equal(hip_tlv_total(4), 8);
	assert_int_equal(hip_tlv_total(5), 16);
	assert_int_equal(hip_tlv_total(387), 392);
	assert_int_equal(hip_hit_suite_rhash_len(2), 48);
	assert_int_equal(hip_hit_suite_of_hit(HIT_S), 1);
	assert_int_equal(hip_cipher_iv_len(HIP_CIPHER_AES_256_CBC), 16);
	assert_int_equal(hip_cipher_iv_len(HIP_CIPHER_NULL_ENCRYPT), 0);
	assert_int_equal(hip_cipher_iv_len(3), -1);
	assert_string_equal(hip_strerror(HIP_E_TLV_ORDER), "parameters out of order");
}

/* I1 with DH_GROUP_LIST {7, 8, 4}: bytes and both checksums computed
 * independently in Python (RFC 1071 over the pseudo-header of RFC 7401 5.1.1). */
static void
test_checksum_kat(void **state)
{
	static const char want_hex[] =
		"3b050121000000002001002100112233445566778899aabb20010021ccddeeff0011223344556677"
		"01ff000307080400";
	uint8_t buf[64], want[48];
	struct hip_builder b;
	struct hip_dh_group_list gl = { 3, { 7, 8, 4 } };
	int len;

	(void)state;
	for (size_t i = 0; i < sizeof(want); i++)
		sscanf(want_hex + 2 * i, "%2hhx", &want[i]);
	assert_int_equal(hip_build_init(&b, buf, sizeof(buf), HIP_I1, HIT_S, HIT_R), 0);
	assert_int_equal(hip_dh_group_list_put(&b, &gl), 0);
	len = hip_build_finish(&b);
	assert_int_equal(len, 48);
	assert_memory_equal(buf, want, 48);
	assert_int_equal(hip_checksum_ipv4(V4_S, V4_D, buf, 48), 0x0045);
	assert_int_equal(hip_checksum_ipv6(V6_S, V6_D, buf, 48), 0x9106);
	assert_int_equal(hip_checksum_set_ipv4(buf, 48, V4_S, V4_D), 0);
	assert_int_equal(hip_get16(buf + 4), 0x0045);
	assert_int_equal(hip_checksum_verify_ipv4(buf, 48, V4_S, V4_D), 0);
	assert_int_equal(hip_checksum_verify_ipv4(buf, 48, V4_D, V4_S), 0); /* sum is symmetric */
	assert_int_equal(hip_checksum_verify_ipv6(buf, 48, V6_S, V6_D), HIP_E_CHECKSUM);
	buf[45] ^= 1;
	assert_int_equal(hip_checksum_verify_ipv4(buf, 48, V4_S, V4_D), HIP_E_CHECKSUM);
	assert_int_equal(hip_checksum_set_ipv6(buf, 48, V6_S, V6_D), 0);
	assert_int_equal(hip_checksum_verify_ipv6(buf, 48, V6_S, V6_D), 0);
	assert_int_equal(hip_checksum_verify_ipv4(buf, 47, V4_S, V4_D), HIP_E_ARG);
	assert_int_equal(hip_checksum_set_ipv4(NULL, 48, V4_S, V4_D), HIP_E_ARG);
}

static void
test_header(void **state)
{
	uint8_t buf[64];
	struct hip_hdr h = { .next_header = 59, .packet_type = HIP_R2, .checksum = 0xbeef,
			     .controls = HIP_CONTROL_ANONYMOUS, .pkt_len = 56 }, p;

	(void)state;
	memcpy(h.hit_sender, HIT_S, 16);
	memcpy(h.hit_receiver, HIT_R, 16);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(hip_hdr_write(buf, sizeof(buf), &h), 0);
	assert_int_equal(buf[1], 6);          /* (56 - 8) / 8 */
	assert_int_equal(buf[3], 0x21);
	assert_int_equal(hip_hdr_parse(buf, 64, &p), 0); /* trailing bytes ignored */
	assert_int_equal(p.pkt_len, 56);
	assert_int_equal(p.hdr_len, 6);
	assert_int_equal(p.packet_type, HIP_R2);
	assert_int_equal(p.version, 2);
	assert_int_equal(p.checksum, 0xbeef);
	assert_int_equal(p.controls, 1);
	assert_memory_equal(p.hit_sender, HIT_S, 16);
	assert_memory_equal(p.hit_receiver, HIT_R, 16);
	/* reserved bits of byte 3 are ignored on receipt */
	buf[3] = 0x2f;
	assert_int_equal(hip_hdr_parse(buf, 56, &p), 0);
	buf[3] = 0x21;
	/* bad input */
	assert_int_equal(hip_hdr_parse(buf, 39, &p), HIP_E_TRUNCATED);
	assert_int_equal(hip_hdr_parse(buf, 55, &p), HIP_E_TRUNCATED);   /* HL says 56 */
	buf[1] = 3;
	assert_int_equal(hip_hdr_parse(buf, 64, &p), HIP_E_HDR_LEN);
	buf[1] = 255;
	assert_int_equal(hip_hdr_parse(buf, 64, &p), HIP_E_TRUNCATED);
	buf[1] = 6;
	buf[3] = 0x11;
	assert_int_equal(hip_hdr_parse(buf, 64, &p), HIP_E_VERSION);
	buf[3] = 0x20;
	assert_int_equal(hip_hdr_parse(buf, 64, &p), HIP_E_FIXED_BITS);
	buf[3] = 0x21;
	buf[2] |= 0x80;
	assert_int_equal(hip_hdr_parse(buf, 64, &p), HIP_E_FIXED_BITS);
	assert_int_equal(hip_hdr_parse(NULL, 64, &p), HIP_E_ARG);
	h.pkt_len = 44;
	assert_int_equal(hip_hdr_write(buf, sizeof(buf), &h), HIP_E_ARG);
	h.pkt_len = 2056;
	assert_int_equal(hip_hdr_write(buf, sizeof(buf), &h), HIP_E_ARG);
	h.pkt_len = 40;
	h.packet_type = 128;
	assert_int_equal(hip_hdr_write(buf, sizeof(buf), &h), HIP_E_ARG);
	assert_int_equal(hip_hdr_set_len(buf, 2048), 0);
	assert_int_equal(buf[1], 255);
	assert_int_equal(hip_hdr_set_len(buf, 2056), HIP_E_ARG);
}

/* ---- every parameter type in one packet, built then parsed back --------------- */

static uint8_t I48[48], J48[48], PUB1[384], PUB2[97], HI[99], DI[29], IV[16], ENC[64],
	       MAC[48], SIG[96], ECHO[13], LOC6[16], LOC1[20];

static int
build_everything(uint8_t *buf, size_t cap)
{
	struct hip_builder b;
	struct hip_esp_info ei = { 128, 0x01020304, 0xa1b2c3d4 };
	struct hip_r1_counter rc = { 0x0102030405060708ull };
	struct hip_locator_set ls = { 2, {
		{ HIP_LOCATOR_TRAFFIC_BOTH, HIP_LOCATOR_TYPE_IPV6, true, 3600, 16, LOC6 },
		{ HIP_LOCATOR_TRAFFIC_DATA, HIP_LOCATOR_TYPE_ESP_SPI_IPV6, false, 60, 20, LOC1 } } };
	struct hip_puzzle pz = { 10, 37, { 0xab, 0xcd }, I48 };
	struct hip_solution so = { 10, 0, { 0xab, 0xcd }, I48, J48 };
	struct hip_seq sq = { 7 };
	struct hip_ack ak = { 3, { 5, 6, 0xffffffff } };
	struct hip_dh_group_list gl = { 3, { 8, 7, 4 } };
	struct hip_diffie_hellman dh = { 2, { { 4, 384, PUB1 }, { 8, 97, PUB2 } } };
	struct hip_cipher ci = { 3, 0, { 4, 2, 1 } };
	struct hip_encrypted en = { IV, 16, ENC, 64 };
	struct hip_host_id hid = { HIP_HI_ECDSA, HIP_DI_NAI, 99, 29, HI, DI };
	struct hip_hit_suite_list hs = { 2, { 0x20, 0x10 } };
	struct hip_notification no = { HIP_NOTIFY_INVALID_DH_CHOSEN, ECHO, 5 };
	struct hip_echo e1 = { HIP_PARAM_ECHO_REQUEST_SIGNED, ECHO, 13 };
	struct hip_echo e2 = { HIP_PARAM_ECHO_RESPONSE_SIGNED, ECHO, 1 };
	struct hip_transport_format_list tf = { 1, { HIP_PARAM_ESP_TRANSFORM } };
	struct hip_esp_transform et = { 4, 0, { 13, 9, 8, 7 } };
	struct hip_mac m1 = { HIP_PARAM_HIP_MAC, MAC, 48 }, m2 = { HIP_PARAM_HIP_MAC_2, MAC, 32 };
	struct hip_signature s2 = { HIP_PARAM_HIP_SIGNATURE_2, HIP_HI_ECDSA, SIG, 96 };
	struct hip_signature s1 = { HIP_PARAM_HIP_SIGNATURE, HIP_HI_RSA, SIG, 64 };
	struct hip_echo e3 = { HIP_PARAM_ECHO_RESPONSE_UNSIGNED, ECHO, 8 };
	struct hip_echo e4 = { HIP_PARAM_ECHO_REQUEST_UNSIGNED, ECHO, 12 };

	hip_build_init(&b, buf, cap, HIP_R1, HIT_S, HIT_R);
	hip_esp_info_put(&b, &ei);
	hip_r1_counter_put(&b, &rc);
	hip_locator_set_put(&b, &ls);
	hip_puzzle_put(&b, 48, &pz);
	hip_solution_put(&b, 48, &so);
	hip_seq_put(&b, &sq);
	hip_ack_put(&b, &ak);
	hip_dh_group_list_put(&b, &gl);
	hip_diffie_hellman_put(&b, &dh);
	hip_cipher_put(&b, &ci);
	hip_encrypted_put(&b, &en);
	hip_host_id_put(&b, &hid);
	hip_hit_suite_list_put(&b, &hs);
	hip_notification_put(&b, &no);
	hip_echo_put(&b, &e1);
	hip_echo_put(&b, &e2);
	hip_transport_format_list_put(&b, &tf);
	hip_esp_transform_put(&b, &et);
	hip_mac_put(&b, &m1);
	hip_mac_put(&b, &m2);
	hip_signature_put(&b, &s2);
	hip_signature_put(&b, &s1);
	hip_echo_put(&b, &e3);
	hip_echo_put(&b, &e4);
	return hip_build_finish(&b);
}

static void
test_roundtrip_every_param(void **state)
{
	static const uint16_t order[] = { 65, 129, 193, 257, 321, 385, 449, 511, 513, 579, 641, 705,
					  715, 832, 897, 961, 2049, 4095, 61505, 61569, 61633, 61697,
					  63425, 63661 };
	uint8_t buf[2048];
	struct hip_hdr h;
	struct hip_tlv_iter it;
	struct hip_tlv t;
	size_t k = 0;
	int len;

	(void)state;
	pattern(I48, 48, 1); pattern(J48, 48, 2); pattern(PUB1, 384, 3); pattern(PUB2, 97, 4);
	pattern(HI, 99, 5); pattern(DI, 29, 6); pattern(IV, 16, 7); pattern(ENC, 64, 8);
	pattern(MAC, 48, 9); pattern(SIG, 96, 10); pattern(ECHO, 13, 11); pattern(LOC6, 16, 12);
	pattern(LOC1, 20, 13);
	len = build_everything(buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(len % 8, 0);
	assert_int_equal(hip_packet_validate(buf, (size_t)len, 0, &h, NULL), 24);
	assert_int_equal(h.pkt_len, len);
	assert_int_equal(hip_checksum_set_ipv4(buf, (size_t)len, V4_S, V4_D), 0);
	assert_int_equal(hip_checksum_verify_ipv4(buf, (size_t)len, V4_S, V4_D), 0);

	hip_tlv_iter_init(&it, buf, h.pkt_len, 0);
	while (hip_tlv_next(&it, &t) == 1) {
		assert_true(k < 24);
		assert_int_equal(t.type, order[k]);
		k++;
		switch (t.type) {
		case HIP_PARAM_ESP_INFO: {
			struct hip_esp_info v;
			assert_int_equal(hip_esp_info_parse(&t, &v), 0);
			assert_int_equal(v.keymat_index, 128);
			assert_int_equal(v.old_spi, 0x01020304);
			assert_int_equal(v.new_spi, 0xa1b2c3d4);
			break; }
		case HIP_PARAM_R1_COUNTER: {
			struct hip_r1_counter v;
			assert_int_equal(hip_r1_counter_parse(&t, &v), 0);
			assert_true(v.generation == 0x0102030405060708ull);
			break; }
		case HIP_PARAM_LOCATOR_SET: {
			struct hip_locator_set v;
			assert_int_equal(hip_locator_set_parse(&t, &v), 0);
			assert_int_equal(v.n, 2);
			assert_true(v.loc[0].preferred);
			assert_int_equal(v.loc[0].lifetime, 3600);
			assert_memory_equal(v.loc[0].locator, LOC6, 16);
			assert_int_equal(v.loc[1].traffic_type, HIP_LOCATOR_TRAFFIC_DATA);
			assert_int_equal(v.loc[1].locator_type, 1);
			assert_int_equal(v.loc[1].locator_len, 20);
			assert_false(v.loc[1].preferred);
			assert_memory_equal(v.loc[1].locator, LOC1, 20);
			break; }
		case HIP_PARAM_PUZZLE: {
			struct hip_puzzle v;
			assert_int_equal(hip_puzzle_parse(&t, 48, &v), 0);
			assert_int_equal(v.k, 10);
			assert_int_equal(v.lifetime, 37);
			assert_int_equal(v.opaque[1], 0xcd);
			assert_memory_equal(v.i, I48, 48);
			assert_int_equal(hip_puzzle_parse(&t, 32, &v), HIP_E_PARAM_LENGTH);
			break; }
		case HIP_PARAM_SOLUTION: {
			struct hip_solution v;
			assert_int_equal(hip_solution_parse(&t, 48, &v), 0);
			assert_memory_equal(v.i, I48, 48);
			assert_memory_equal(v.j, J48, 48);
			assert_int_equal(v.opaque[0], 0xab);
			break; }
		case HIP_PARAM_SEQ: {
			struct hip_seq v;
			assert_int_equal(hip_seq_parse(&t, &v), 0);
			assert_int_equal(v.update_id, 7);
			break; }
		case HIP_PARAM_ACK: {
			struct hip_ack v;
			assert_int_equal(hip_ack_parse(&t, &v), 0);
			assert_int_equal(v.n, 3);
			assert_int_equal(v.update_ids[2], 0xffffffff);
			break; }
		case HIP_PARAM_DH_GROUP_LIST: {
			struct hip_dh_group_list v;
			assert_int_equal(hip_dh_group_list_parse(&t, &v), 0);
			assert_int_equal(v.n, 3);
			assert_int_equal(v.ids[0], 8);
			assert_int_equal(v.ids[2], 4);
			break; }
		case HIP_PARAM_DIFFIE_HELLMAN: {
			struct hip_diffie_hellman v;
			assert_int_equal(hip_diffie_hellman_parse(&t, &v), 0);
			assert_int_equal(v.n, 2);
			assert_int_equal(v.v[0].group_id, 4);
			assert_int_equal(v.v[0].pub_len, 384);
			assert_memory_equal(v.v[0].pub, PUB1, 384);
			assert_int_equal(v.v[1].group_id, 8);
			assert_memory_equal(v.v[1].pub, PUB2, 97);
			break; }
		case HIP_PARAM_HIP_CIPHER: {
			struct hip_cipher v;
			assert_int_equal(hip_cipher_parse(&t, &v), 0);
			assert_int_equal(v.n, 3);
			assert_int_equal(v.dropped, 0);
			assert_int_equal(v.ids[0], 4);
			break; }
		case HIP_PARAM_ENCRYPTED: {
			struct hip_encrypted v;
			assert_int_equal(hip_encrypted_parse(&t, 16, &v), 0);
			assert_memory_equal(v.iv, IV, 16);
			assert_int_equal(v.data_len, 64);
			assert_memory_equal(v.data, ENC, 64);
			assert_int_equal(hip_encrypted_parse(&t, 0, &v), 0); /* NULL cipher view */
			assert_int_equal(v.data_len, 80);
			break; }
		case HIP_PARAM_HOST_ID: {
			struct hip_host_id v;
			assert_int_equal(hip_host_id_parse(&t, &v), 0);
			assert_int_equal(v.algorithm, HIP_HI_ECDSA);
			assert_int_equal(v.di_type, HIP_DI_NAI);
			assert_int_equal(v.hi_len, 99);
			assert_int_equal(v.di_len, 29);
			assert_memory_equal(v.hi, HI, 99);
			assert_memory_equal(v.di, DI, 29);
			break; }
		case HIP_PARAM_HIT_SUITE_LIST: {
			struct hip_hit_suite_list v;
			assert_int_equal(hip_hit_suite_list_parse(&t, &v), 0);
			assert_int_equal(v.n, 2);
			assert_int_equal(hip_hit_suite_list_suite(v.ids[0]), 2);
			assert_int_equal(hip_hit_suite_list_suite(v.ids[1]), 1);
			assert_int_equal(hip_hit_suite_list_suite(0x21), 0);
			break; }
		case HIP_PARAM_NOTIFICATION: {
			struct hip_notification v;
			assert_int_equal(hip_notification_parse(&t, &v), 0);
			assert_int_equal(v.msg_type, HIP_NOTIFY_INVALID_DH_CHOSEN);
			assert_int_equal(v.data_len, 5);
			assert_memory_equal(v.data, ECHO, 5);
			break; }
		case HIP_PARAM_TRANSPORT_FORMAT_LIST: {
			struct hip_transport_format_list v;
			assert_int_equal(hip_transport_format_list_parse(&t, &v), 0);
			assert_int_equal(v.n, 1);
			assert_int_equal(v.types[0], 4095);
			break; }
		case HIP_PARAM_ESP_TRANSFORM: {
			struct hip_esp_transform v;
			assert_int_equal(hip_esp_transform_parse(&t, &v), 0);
			assert_int_equal(v.n, 4);
			assert_int_equal(v.suites[0], 13);
			assert_int_equal(v.suites[3], 7);
			break; }
		case HIP_PARAM_HIP_MAC:
		case HIP_PARAM_HIP_MAC_2: {
			struct hip_mac v;
			assert_int_equal(hip_mac_parse(&t, &v), 0);
			assert_int_equal(v.type, t.type);
			assert_int_equal(v.len, t.type == HIP_PARAM_HIP_MAC ? 48 : 32);
			assert_memory_equal(v.hmac, MAC, v.len);
			break; }
		case HIP_PARAM_HIP_SIGNATURE:
		case HIP_PARAM_HIP_SIGNATURE_2: {
			struct hip_signature v;
			assert_int_equal(hip_signature_parse(&t, &v), 0);
			assert_int_equal(v.type, t.type);
			assert_int_equal(v.algorithm, t.type == HIP_PARAM_HIP_SIGNATURE ? 5 : 7);
			assert_int_equal(v.len, t.type == HIP_PARAM_HIP_SIGNATURE ? 64 : 96);
			assert_memory_equal(v.sig, SIG, v.len);
			break; }
		default: {
			struct hip_echo v;
			assert_int_equal(hip_echo_parse(&t, &v), 0);
			assert_int_equal(v.type, t.type);
			assert_memory_equal(v.data, ECHO, v.len);
			assert_int_equal(v.len, t.type == 897 ? 13 : t.type == 961 ? 1 : t.type == 63425 ? 8 : 12);
			break; }
		}
	}
	assert_int_equal(it.err, 0);
	assert_int_equal(k, 24);
	/* too small a buffer for all of it: NOSPACE, never an overrun */
	assert_int_equal(build_everything(buf, 600), HIP_E_NOSPACE);
}

/* Other shapes: other RHASH lengths, one DH value, no DI, list bounds. */
static void
test_roundtrip_variants(void **state)
{
	static const size_t rh[] = { 20, 32, 48 };
	uint8_t buf[512], val[64];
	struct hip_builder b;
	struct hip_tlv t;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct hip_puzzle pz = { 1, 2, { 3, 4 }, I48 }, pp;
		struct hip_solution so = { 1, 9, { 3, 4 }, I48, J48 }, sp;
		hip_build_init(&b, buf, sizeof(buf), HIP_I2, HIT_S, HIT_R);
		hip_puzzle_put(&b, rh[i], &pz);
		hip_solution_put(&b, rh[i], &so);
		assert_int_equal(hip_build_finish(&b), 40 + (int)hip_tlv_total(4 + rh[i]) +
				 (int)hip_tlv_total(4 + 2 * rh[i]));
		assert_int_equal(hip_param_find(buf, (size_t)b.len, HIP_PARAM_PUZZLE, &t), 1);
		assert_int_equal(t.len, 4 + rh[i]);
		assert_int_equal(hip_puzzle_parse(&t, rh[i], &pp), 0);
		assert_memory_equal(pp.i, I48, rh[i]);
		assert_int_equal(hip_param_find(buf, (size_t)b.len, HIP_PARAM_SOLUTION, &t), 1);
		assert_int_equal(hip_solution_parse(&t, rh[i], &sp), 0);
		assert_int_equal(sp.reserved, 0);     /* written as 0 whatever was given */
		assert_memory_equal(sp.j, J48, rh[i]);
		assert_int_equal(hip_param_find(buf, (size_t)b.len, HIP_PARAM_SEQ, &t), 0);
	}
	{
		struct hip_diffie_hellman dh = { 1, { { 7, 64, PUB1 } } }, d;
		struct hip_host_id hid = { HIP_HI_RSA, HIP_DI_NONE, 20, 0, HI, NULL }, h;
		struct hip_hit_suite_list hs = { 16, { 0 } }, hp;
		hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
		hip_diffie_hellman_put(&b, &dh);
		hip_host_id_put(&b, &hid);
		hip_hit_suite_list_put(&b, &hs);
		assert_true(hip_build_finish(&b) > 0);
		assert_int_equal(hip_param_find(buf, b.len, HIP_PARAM_DIFFIE_HELLMAN, &t), 1);
		assert_int_equal(hip_diffie_hellman_parse(&t, &d), 0);
		assert_int_equal(d.n, 1);
		assert_int_equal(d.v[0].pub_len, 64);
		assert_int_equal(hip_param_find(buf, b.len, HIP_PARAM_HOST_ID, &t), 1);
		assert_int_equal(t.len, 26);
		assert_int_equal(hip_host_id_parse(&t, &h), 0);
		assert_int_equal(h.di_len, 0);
		assert_int_equal(hip_param_find(buf, b.len, HIP_PARAM_HIT_SUITE_LIST, &t), 1);
		assert_int_equal(hip_hit_suite_list_parse(&t, &hp), 0);
		assert_int_equal(hp.n, 16);
	}
	/* RFC 7401 5.2.8 / RFC 7402 5.1.2: more than six IDs -> first six kept */
	{
		struct hip_cipher c;
		struct hip_esp_transform e;
		for (int i = 0; i < 16; i++)
			hip_put16(val + 2 * i, (uint16_t)(i + 1));
		hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
		hip_build_param(&b, HIP_PARAM_HIP_CIPHER, val, 14);       /* 7 IDs */
		hip_build_param(&b, HIP_PARAM_ESP_TRANSFORM, val, 18);    /* reserved + 8 suites */
		assert_true(hip_build_finish(&b) > 0);
		hip_param_find(buf, b.len, HIP_PARAM_HIP_CIPHER, &t);
		assert_int_equal(hip_cipher_parse(&t, &c), 0);
		assert_int_equal(c.n, 6);
		assert_int_equal(c.dropped, 1);
		assert_int_equal(c.ids[5], 6);
		hip_param_find(buf, b.len, HIP_PARAM_ESP_TRANSFORM, &t);
		assert_int_equal(hip_esp_transform_parse(&t, &e), 0);
		assert_int_equal(e.n, 6);
		assert_int_equal(e.dropped, 2);
		assert_int_equal(e.suites[0], 2);     /* the first 2 bytes are Reserved */
	}
}

/* RFC 7401 6.4.1 / 6.4.2 coverage, byte by byte: Checksum 0, Header Length
 * up to the MAC / signature, HIP_SIGNATURE_2's zeroed Receiver's HIT, Opaque
 * and #I (K and Lifetime kept), HIP_MAC_2's HOST_ID inserted in type order;
 * and every refusal. */
/* RFC 5770 5.4: NAT_TRAVERSAL_MODE, Reserved then 16-bit Mode IDs; the
 * exact bytes put, unknown modes kept for the caller to ignore, bad lengths
 * refused, a long list cut at HIP_NAT_MODES_MAX */
static void
test_nat_traversal_mode(void **state)
{
	static const uint8_t want[] = { 0x02, 0x60, 0x00, 0x06, 0x00, 0x00, 0x00, 0x01,
					0x00, 0x07, 0x00, 0x00 };   /* type 608, len 6, pad 2 */
	struct hip_nat_traversal_mode m = { .n = 2, .modes = { HIP_NAT_MODE_UDP_ENCAPSULATION, 7 } };
	struct hip_nat_traversal_mode p;
	struct hip_builder b;
	struct hip_tlv t;
	uint8_t buf[512], val[64] = { 0 };

	(void)state;
	assert_int_equal(HIP_PARAM_NAT_TRAVERSAL_MODE, 608);
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	assert_int_equal(hip_nat_traversal_mode_put(&b, &m), 0);
	assert_true(hip_build_finish(&b) > 0);
	assert_memory_equal(buf + HIP_HDR_LEN, want, sizeof(want));
	assert_int_equal(hip_param_find(buf, b.len, HIP_PARAM_NAT_TRAVERSAL_MODE, &t), 1);
	assert_int_equal(hip_nat_traversal_mode_parse(&t, &p), 0);
	assert_int_equal(p.n, 2);
	assert_true(hip_nat_traversal_mode_has(&p, HIP_NAT_MODE_UDP_ENCAPSULATION));
	assert_false(hip_nat_traversal_mode_has(&p, HIP_NAT_MODE_ICE_STUN_UDP));
	/* no Mode ID, an odd length: refused */
	for (int len = 2; len <= 3; len++) {
		hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
		hip_build_param(&b, HIP_PARAM_NAT_TRAVERSAL_MODE, val, (size_t)len);
		assert_true(hip_build_finish(&b) > 0);
		hip_param_find(buf, b.len, HIP_PARAM_NAT_TRAVERSAL_MODE, &t);
		assert_int_equal(hip_nat_traversal_mode_parse(&t, &p), HIP_E_PARAM_LENGTH);
	}
	for (int i = 0; i < 12; i++)
		hip_put16(val + 2 + 2 * i, (uint16_t)(i + 1));
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	hip_build_param(&b, HIP_PARAM_NAT_TRAVERSAL_MODE, val, 26);
	assert_true(hip_build_finish(&b) > 0);
	hip_param_find(buf, b.len, HIP_PARAM_NAT_TRAVERSAL_MODE, &t);
	assert_int_equal(hip_nat_traversal_mode_parse(&t, &p), 0);
	assert_int_equal(p.n, HIP_NAT_MODES_MAX);
	assert_int_equal(p.dropped, 12 - HIP_NAT_MODES_MAX);
	m.n = 0;
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, HIT_S, HIT_R);
	assert_int_not_equal(hip_nat_traversal_mode_put(&b, &m), 0);
}

static void
test_coverage(void **state)
{
	uint8_t pkt[512], out[1024], hid[24], v[52];
	size_t off, pz, sig_at;
	int n;

	(void)state;
	/* R1-like: PUZZLE (K 10, Lifetime 37, Opaque, #I of 48), HOST_ID, SIGNATURE_2 */
	mk_hdr(pkt, sizeof(pkt));
	pkt[HIP_OFF_PACKET_TYPE] = HIP_R1;
	memcpy(pkt + HIP_OFF_HIT_SENDER, HIT_S, 16);
	memcpy(pkt + HIP_OFF_HIT_RECEIVER, HIT_R, 16);
	pkt[HIP_OFF_CHECKSUM] = 0xab;
	pkt[HIP_OFF_CHECKSUM + 1] = 0xcd;
	pattern(v, sizeof(v), 3);
	v[0] = 10;
	v[1] = 37;
	pz = HIP_HDR_LEN;
	off = raw_tlv(pkt, pz, HIP_PARAM_PUZZLE, 52, v);
	off = raw_tlv(pkt, off, HIP_PARAM_HOST_ID, 20, v);
	sig_at = off;
	off = raw_tlv(pkt, off, HIP_PARAM_HIP_SIGNATURE_2, 9, v);
	pkt[HIP_OFF_HDR_LEN] = (uint8_t)(off / 8 - 1);
	n = hip_coverage_sig(pkt, sig_at, HIP_PARAM_HIP_SIGNATURE_2, pz, out, sizeof(out));
	assert_int_equal(n, (int)sig_at);
	assert_int_equal(out[HIP_OFF_HDR_LEN], sig_at / 8 - 1);
	assert_int_equal(hip_get16(out + HIP_OFF_CHECKSUM), 0);
	assert_memory_equal(out + HIP_OFF_HIT_SENDER, HIT_S, 16);
	for (int x = 0; x < 16; x++)
		assert_int_equal(out[HIP_OFF_HIT_RECEIVER + x], 0);
	assert_int_equal(out[pz + 4], 10);     /* K */
	assert_int_equal(out[pz + 5], 37);     /* Lifetime */
	for (int x = 2; x < 52; x++)           /* Opaque, #I */
		assert_int_equal(out[pz + 4 + x], 0);
	assert_memory_equal(out + pz + 4 + 52, pkt + pz + 4 + 52, sig_at - (pz + 4 + 52));
	/* HIP_SIGNATURE: only header fields change; in place works too */
	n = hip_coverage_sig(pkt, sig_at, HIP_PARAM_HIP_SIGNATURE, pz, out, sizeof(out));
	assert_int_equal(n, (int)sig_at);
	assert_memory_equal(out + 8, pkt + 8, sig_at - 8);
	memcpy(out, pkt, off);
	assert_int_equal(hip_coverage_sig(out, sig_at, HIP_PARAM_HIP_SIGNATURE_2, 0, out, off), (int)sig_at);
	assert_memory_equal(out + pz, pkt + pz, sig_at - pz);   /* no PUZZLE given: kept */
	/* refusals */
	assert_int_equal(hip_coverage_sig(pkt, sig_at + 4, HIP_PARAM_HIP_SIGNATURE, 0, out, sizeof(out)), HIP_E_ARG);
	assert_int_equal(hip_coverage_sig(pkt, 32, HIP_PARAM_HIP_SIGNATURE, 0, out, sizeof(out)), HIP_E_ARG);
	assert_int_equal(hip_coverage_sig(pkt, 2056, HIP_PARAM_HIP_SIGNATURE, 0, out, sizeof(out)), HIP_E_ARG);
	assert_int_equal(hip_coverage_sig(pkt, sig_at, HIP_PARAM_HIP_SIGNATURE, 0, out, sig_at - 8), HIP_E_ARG);
	assert_int_equal(hip_coverage_sig(NULL, sig_at, HIP_PARAM_HIP_SIGNATURE, 0, out, sizeof(out)), HIP_E_ARG);
	assert_int_equal(hip_coverage_sig(pkt, sig_at, HIP_PARAM_HIP_SIGNATURE_2, sig_at - 4, out, sizeof(out)),
			 HIP_E_ARG);   /* PUZZLE past the signature */
	assert_int_equal(hip_coverage_sig(pkt, 88, HIP_PARAM_HIP_SIGNATURE_2, pz, out, sizeof(out)),
			 HIP_E_ARG);   /* PUZZLE not inside upto */

	/* R2-like: ESP_INFO, TRANSPORT_FORMAT_LIST (above HOST_ID), HIP_MAC_2 */
	mk_hdr(pkt, sizeof(pkt));
	pkt[HIP_OFF_PACKET_TYPE] = HIP_R2;
	off = raw_tlv(pkt, HIP_HDR_LEN, HIP_PARAM_ESP_INFO, 12, v);
	pz = off;                              /* where HOST_ID goes */
	off = raw_tlv(pkt, off, HIP_PARAM_TRANSPORT_FORMAT_LIST, 2, v);
	sig_at = off;
	off = raw_tlv(pkt, off, HIP_PARAM_HIP_MAC_2, 48, v);
	pattern(hid, sizeof(hid), 9);
	raw_tlv(hid, 0, HIP_PARAM_HOST_ID, 20, hid + 4);
	n = hip_coverage_mac(pkt, sig_at, hid, sizeof(hid), out, sizeof(out));
	assert_int_equal(n, (int)(sig_at + sizeof(hid)));
	assert_int_equal(out[HIP_OFF_HDR_LEN], (sig_at + sizeof(hid)) / 8 - 1);
	assert_int_equal(hip_get16(out + HIP_OFF_CHECKSUM), 0);
	assert_memory_equal(out + HIP_HDR_LEN, pkt + HIP_HDR_LEN, pz - HIP_HDR_LEN);
	assert_memory_equal(out + pz, hid, sizeof(hid));
	assert_memory_equal(out + pz + sizeof(hid), pkt + pz, sig_at - pz);
	/* HIP_MAC: no HOST_ID; the last parameters below HOST_ID: appended */
	assert_int_equal(hip_coverage_mac(pkt, sig_at, NULL, 0, out, sizeof(out)), (int)sig_at);
	assert_memory_equal(out + HIP_HDR_LEN, pkt + HIP_HDR_LEN, sig_at - HIP_HDR_LEN);
	assert_int_equal(hip_coverage_mac(pkt, pz, hid, sizeof(hid), out, sizeof(out)), (int)(pz + sizeof(hid)));
	assert_memory_equal(out + pz, hid, sizeof(hid));
	/* refusals: in place with an insertion, cap, lengths, a bad TLV before upto */
	assert_int_equal(hip_coverage_mac(pkt, sig_at, hid, sizeof(hid), pkt, sizeof(pkt)), HIP_E_ARG);
	assert_int_equal(hip_coverage_mac(pkt, sig_at, hid, sizeof(hid), out, sig_at), HIP_E_ARG);
	assert_int_equal(hip_coverage_mac(pkt, sig_at, hid, sizeof(hid) - 4, out, sizeof(out)), HIP_E_ARG);
	assert_int_equal(hip_coverage_mac(pkt, sig_at, hid, 2048, out, sizeof(out)), HIP_E_ARG);
	assert_int_equal(hip_coverage_mac(pkt, sig_at + 1, NULL, 0, out, sizeof(out)), HIP_E_ARG);
	pkt[HIP_HDR_LEN + 3] = 200;            /* ESP_INFO Length runs past upto */
	assert_true(hip_coverage_mac(pkt, sig_at, hid, sizeof(hid), out, sizeof(out)) < 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_checksum_kat),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_roundtrip_every_param),
		cmocka_unit_test(test_roundtrip_variants),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_nat_traversal_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
