/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: lib/hipwire on arbitrary bytes (RFC 7401 section 5).
 *
 * Input: byte 0 selects the variant (bit 0: IPv6 pseudo-header, else IPv4;
 * bit 1: HIP_TLV_ALLOW_REPEAT; bits 2..7: an extra ENCRYPTED IV length), then
 * the source and destination addresses of the pseudo-header (4 + 4 or
 * 16 + 16 bytes), then the HIP packet from its fixed header on.
 *
 * Checked on every input: hip_hdr_parse and the header written back; the
 * checksum verified, set and verified again; the TLV iterator against
 * hip_packet_validate, hip_tlv_parse_one, hip_param_find and a rebuilt copy of
 * the packet; every typed parser of hip_param.h on every TLV, once as it is
 * (a parser of another type must answer HIP_E_PARAM_TYPE) and once with the
 * TLV's type set to the parser's, and each successful parse written again with
 * its _put: the result must be the same bytes, up to the reserved fields that
 * hip_param.h says are written as zero and the list entries RFC 7401 5.2.8 /
 * RFC 7402 5.1.2 tell a receiver to drop. Any mismatch aborts (a finding).
 * Buffers handed to lib/hipwire are heap copies of exactly the length passed,
 * so that AddressSanitizer sees a read past them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "hip_packet.h"
#include "hip_param.h"

#define MODE_IPV6          0x01
#define MODE_ALLOW_REPEAT  0x02
#define MODE_IV_SHIFT      2

static const uint8_t hit_a[HIP_HIT_LEN] = { 0x20, 0x01, 0x00, 0x22 };
static const uint8_t hit_b[HIP_HIT_LEN] = { 0x20, 0x01, 0x00, 0x21 };
static const size_t rhash_lens[] = { HIP_RHASH_LEN_SHA1, HIP_RHASH_LEN_SHA256, HIP_RHASH_LEN_SHA384 };

/* ---- typed parameters: parse, _put again, compare ------------------------------- */

/* What a re-encoding must equal: the TLV's contents with reserved bytes zeroed
 * and dropped list entries cut off. */
struct expect {
	uint8_t v[UINT16_MAX];
	size_t len;
};

static void
expect_from(struct expect *e, const struct hip_tlv *t)
{
	memcpy(e->v, t->value, t->len);
	e->len = t->len;
}

static void
zero(struct expect *e, size_t off, size_t n)
{
	memset(e->v + off, 0, n);
}

/* One parameter written with its _put (put_rc) against the expected contents. */
static void
compare(const char *name, const struct hip_tlv *t, int put_rc, const struct hip_builder *b,
	const struct expect *e)
{
	size_t want = HIP_HDR_LEN + hip_tlv_total(e->len);

	if (put_rc != HIP_OK)
		FUZZ_FAIL("%s: parse accepted (type %u, length %u) but put refused: %s", name, t->type,
		     t->len, hip_strerror(put_rc));
	if (b->len != want || hip_get16(b->buf + HIP_HDR_LEN) != t->type ||
	    hip_get16(b->buf + HIP_HDR_LEN + 2) != e->len ||
	    memcmp(b->buf + HIP_HDR_LEN + HIP_TLV_HDR_LEN, e->v, e->len) != 0)
		FUZZ_FAIL("%s: round trip differs (type %u, length %u, put wrote %zu bytes, want %zu)",
		     name, t->type, t->len, b->len - HIP_HDR_LEN, want - HIP_HDR_LEN);
}

struct ctx {
	uint8_t buf[HIP_PACKET_MAX];
	struct hip_builder b;
	struct expect e;
	size_t iv_extra;
};

static void
builder_start(struct ctx *c)
{
	if (hip_build_init(&c->b, c->buf, sizeof(c->buf), HIP_UPDATE, hit_a, hit_b) != HIP_OK)
		abort();
}

#define ROUND_TRIP(c, t, name, parse_call, put_call, fix) do {                 \
	int rc_ = (parse_call);                                                 \
	if (rc_ == HIP_OK) {                                                    \
		builder_start(c);                                               \
		expect_from(&(c)->e, (t));                                      \
		fix;                                                            \
		compare((name), (t), (put_call), &(c)->b, &(c)->e);             \
	} else if (rc_ > 0) {                                                   \
		FUZZ_FAIL("%s: parse returned %d", (name), rc_);                     \
	}                                                                       \
} while (0)

static void
rt_fixed(struct ctx *c, const struct hip_tlv *t)
{
	struct hip_r1_counter r1;
	struct hip_esp_info ei;
	struct hip_seq seq;
	struct hip_ack ack;
	struct hip_notification no;

	ROUND_TRIP(c, t, "R1_COUNTER", hip_r1_counter_parse(t, &r1), hip_r1_counter_put(&c->b, &r1),
		   zero(&c->e, 0, 4));
	ROUND_TRIP(c, t, "ESP_INFO", hip_esp_info_parse(t, &ei), hip_esp_info_put(&c->b, &ei),
		   zero(&c->e, 0, 2));
	ROUND_TRIP(c, t, "SEQ", hip_seq_parse(t, &seq), hip_seq_put(&c->b, &seq), (void)0);
	ROUND_TRIP(c, t, "ACK", hip_ack_parse(t, &ack), hip_ack_put(&c->b, &ack), (void)0);
	ROUND_TRIP(c, t, "NOTIFICATION", hip_notification_parse(t, &no),
		   hip_notification_put(&c->b, &no), zero(&c->e, 0, 2));
}

static void
rt_puzzle(struct ctx *c, const struct hip_tlv *t)
{
	struct hip_puzzle pz;
	struct hip_solution so;
	struct hip_encrypted en;
	size_t iv_lens[] = { 0, HIP_CIPHER_AES_CBC_IV_LEN, c->iv_extra };

	for (size_t i = 0; i < sizeof(rhash_lens) / sizeof(rhash_lens[0]); i++) {
		size_t rl = rhash_lens[i];

		ROUND_TRIP(c, t, "PUZZLE", hip_puzzle_parse(t, rl, &pz), hip_puzzle_put(&c->b, rl, &pz),
			   (void)0);
		ROUND_TRIP(c, t, "SOLUTION", hip_solution_parse(t, rl, &so),
			   hip_solution_put(&c->b, rl, &so), zero(&c->e, 1, 1));
	}
	/* an RHASH length no suite has is an argument error, never a parse */
	if (hip_puzzle_parse(t, 33, &pz) == HIP_OK || hip_solution_parse(t, 0, &so) == HIP_OK)
		FUZZ_FAIL("PUZZLE/SOLUTION parsed with a bad RHASH length");
	for (size_t i = 0; i < sizeof(iv_lens) / sizeof(iv_lens[0]); i++)
		ROUND_TRIP(c, t, "ENCRYPTED", hip_encrypted_parse(t, iv_lens[i], &en),
			   hip_encrypted_put(&c->b, &en), zero(&c->e, 0, 4));
}

static void
rt_lists(struct ctx *c, const struct hip_tlv *t)
{
	struct hip_dh_group_list dl;
	struct hip_cipher ci;
	struct hip_hit_suite_list hs;
	struct hip_transport_format_list tf;
	struct hip_esp_transform et;
	struct hip_nat_traversal_mode nm;

	ROUND_TRIP(c, t, "DH_GROUP_LIST", hip_dh_group_list_parse(t, &dl),
		   hip_dh_group_list_put(&c->b, &dl), (void)0);
	ROUND_TRIP(c, t, "HIP_CIPHER", hip_cipher_parse(t, &ci), hip_cipher_put(&c->b, &ci),
		   c->e.len = 2 * (size_t)ci.n);
	ROUND_TRIP(c, t, "HIT_SUITE_LIST", hip_hit_suite_list_parse(t, &hs),
		   hip_hit_suite_list_put(&c->b, &hs), (void)0);
	ROUND_TRIP(c, t, "TRANSPORT_FORMAT_LIST", hip_transport_format_list_parse(t, &tf),
		   hip_transport_format_list_put(&c->b, &tf), (void)0);
	ROUND_TRIP(c, t, "ESP_TRANSFORM", hip_esp_transform_parse(t, &et),
		   hip_esp_transform_put(&c->b, &et), (zero(&c->e, 0, 2), c->e.len = 2 + 2 * (size_t)et.n));
	/* RFC 5770 5.4: Reserved written 0, Mode IDs past HIP_NAT_MODES_MAX not kept */
	ROUND_TRIP(c, t, "NAT_TRAVERSAL_MODE", hip_nat_traversal_mode_parse(t, &nm),
		   hip_nat_traversal_mode_put(&c->b, &nm),
		   (zero(&c->e, 0, 2), c->e.len = 2 + 2 * (size_t)nm.n));
}

/* LOCATOR_SET: the 7 reserved bits beside P in every locator are written 0. */
static void
locator_fix(struct expect *e, const struct hip_locator_set *ls)
{
	size_t off = 0;

	for (unsigned i = 0; i < ls->n; i++) {
		e->v[off + 3] &= HIP_LOCATOR_PREFERRED;
		off += HIP_LOCATOR_HDR_LEN + ls->loc[i].locator_len;
	}
}

static void
rt_variable(struct ctx *c, const struct hip_tlv *t)
{
	struct hip_diffie_hellman dh;
	struct hip_host_id hi;
	struct hip_mac mac;
	struct hip_signature sig;
	struct hip_echo echo;
	struct hip_locator_set ls;

	ROUND_TRIP(c, t, "DIFFIE_HELLMAN", hip_diffie_hellman_parse(t, &dh),
		   hip_diffie_hellman_put(&c->b, &dh), (void)0);
	ROUND_TRIP(c, t, "HOST_ID", hip_host_id_parse(t, &hi), hip_host_id_put(&c->b, &hi), (void)0);
	ROUND_TRIP(c, t, "HIP_MAC", hip_mac_parse(t, &mac), hip_mac_put(&c->b, &mac), (void)0);
	ROUND_TRIP(c, t, "HIP_SIGNATURE", hip_signature_parse(t, &sig), hip_signature_put(&c->b, &sig),
		   (void)0);
	ROUND_TRIP(c, t, "ECHO", hip_echo_parse(t, &echo), hip_echo_put(&c->b, &echo), (void)0);
	ROUND_TRIP(c, t, "LOCATOR_SET", hip_locator_set_parse(t, &ls),
		   hip_locator_set_put(&c->b, &ls), locator_fix(&c->e, &ls));
}

static void
round_trips(struct ctx *c, const struct hip_tlv *t)
{
	rt_fixed(c, t);
	rt_puzzle(c, t);
	rt_lists(c, t);
	rt_variable(c, t);
}

/* Every type a typed parser of hip_param.h takes. */
static const uint16_t typed[] = {
	HIP_PARAM_ESP_INFO, HIP_PARAM_R1_COUNTER, HIP_PARAM_LOCATOR_SET, HIP_PARAM_PUZZLE,
	HIP_PARAM_SOLUTION, HIP_PARAM_SEQ, HIP_PARAM_ACK, HIP_PARAM_DH_GROUP_LIST,
	HIP_PARAM_DIFFIE_HELLMAN, HIP_PARAM_HIP_CIPHER, HIP_PARAM_ENCRYPTED, HIP_PARAM_HOST_ID,
	HIP_PARAM_HIT_SUITE_LIST, HIP_PARAM_NOTIFICATION, HIP_PARAM_ECHO_REQUEST_SIGNED,
	HIP_PARAM_ECHO_RESPONSE_SIGNED, HIP_PARAM_TRANSPORT_FORMAT_LIST, HIP_PARAM_ESP_TRANSFORM,
	HIP_PARAM_HIP_MAC, HIP_PARAM_HIP_MAC_2, HIP_PARAM_HIP_SIGNATURE_2, HIP_PARAM_HIP_SIGNATURE,
	HIP_PARAM_ECHO_RESPONSE_UNSIGNED, HIP_PARAM_ECHO_REQUEST_UNSIGNED,
	HIP_PARAM_NAT_TRAVERSAL_MODE,
};

/* The TLV as it is, then with each typed parser's type. A parser that took a
 * TLV of a type not its own would write its own type back: compare() fails. */
static void
typed_parsers(struct ctx *c, const struct hip_tlv *t)
{
	struct hip_tlv forced = *t;

	round_trips(c, t);
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
		if (typed[i] == t->type)
			continue;
		forced.type = typed[i];
		round_trips(c, &forced);
	}
}

/* ---- header, checksum, iterator --------------------------------------------------- */

static void
check_header(const uint8_t *pkt, const struct hip_hdr *h)
{
	uint8_t out[HIP_HDR_LEN];

	if (hip_hdr_write(out, sizeof(out), h) != HIP_OK)
		FUZZ_FAIL("hip_hdr_write refused a parsed header");
	/* byte 3: version 2, RES written as 0, fixed bit 1 */
	if (memcmp(out, pkt, 3) != 0 || out[3] != HIP_VERSION_BYTE ||
	    memcmp(out + 4, pkt + 4, HIP_HDR_LEN - 4) != 0)
		FUZZ_FAIL("header written back differs");
	(void)hip_packet_type_name(h->packet_type);
}

static void
check_checksum(const uint8_t *pkt, size_t len, bool v6, const uint8_t *src, const uint8_t *dst)
{
	uint8_t *copy = fuzz_copy(pkt, len);
	int rc, rc2;

	rc = v6 ? hip_checksum_verify_ipv6(pkt, len, src, dst) : hip_checksum_verify_ipv4(pkt, len, src, dst);
	if (rc != HIP_OK && rc != HIP_E_CHECKSUM)
		FUZZ_FAIL("checksum verify: %s", hip_strerror(rc));
	if ((v6 ? hip_checksum_set_ipv6(copy, len, src, dst) : hip_checksum_set_ipv4(copy, len, src, dst)) != HIP_OK)
		FUZZ_FAIL("checksum set refused a parsed packet");
	rc2 = v6 ? hip_checksum_verify_ipv6(copy, len, src, dst) : hip_checksum_verify_ipv4(copy, len, src, dst);
	if (rc2 != HIP_OK)
		FUZZ_FAIL("checksum does not verify after set");
	if ((rc == HIP_OK) != (memcmp(copy, pkt, len) == 0))
		FUZZ_FAIL("checksum verdict and recomputed checksum disagree");
	free(copy);
}

/* Walk the TLVs; returns the iterator's result (count or error). */
static int
walk(struct ctx *c, const uint8_t *pkt, const struct hip_hdr *h, unsigned flags)
{
	struct hip_tlv_iter it;
	struct hip_tlv t, one, found;
	static uint8_t copy[HIP_PACKET_MAX];
	struct hip_builder cb;
	int rc, n = 0;

	if (hip_build_init(&cb, copy, sizeof(copy), h->packet_type, h->hit_sender, h->hit_receiver) != HIP_OK)
		FUZZ_FAIL("builder refused a parsed header");
	cb.flags = flags;
	hip_tlv_iter_init(&it, pkt, h->pkt_len, flags);
	while ((rc = hip_tlv_next(&it, &t)) == 1) {
		n++;
		if (t.offset + t.total > h->pkt_len || t.value != pkt + t.offset + HIP_TLV_HDR_LEN ||
		    t.total != hip_tlv_total(t.len))
			FUZZ_FAIL("TLV at %zu outside the packet", t.offset);
		if (hip_tlv_parse_one(pkt + t.offset, h->pkt_len - t.offset, &one) != HIP_OK ||
		    one.type != t.type || one.len != t.len || one.total != t.total)
			FUZZ_FAIL("hip_tlv_parse_one disagrees with the iterator at %zu", t.offset);
		if (!it.repeat && (hip_param_find(pkt, h->pkt_len, t.type, &found) != 1 ||
				   found.offset != t.offset))
			FUZZ_FAIL("hip_param_find does not find type %u at %zu", t.type, t.offset);
		(void)hip_param_name(t.type);
		(void)hip_param_is_critical(t.type);
		if (hip_build_tlv(&cb, &t) != HIP_OK)
			FUZZ_FAIL("builder refused TLV %u at %zu", t.type, t.offset);
		typed_parsers(c, &t);
	}
	if (rc == 0) {
		/* the rebuilt packet: same parameters, same bytes */
		if (hip_build_finish(&cb) != (int)h->pkt_len ||
		    memcmp(copy + HIP_HDR_LEN, pkt + HIP_HDR_LEN, h->pkt_len - HIP_HDR_LEN) != 0)
			FUZZ_FAIL("packet rebuilt from its TLVs differs");
		return n;
	}
	if (rc != it.err || it.off >= h->pkt_len)
		FUZZ_FAIL("iterator error %d not sticky or offset %zu outside", rc, it.off);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ctx c;
	struct hip_hdr h, vh;
	size_t alen, len, err_off;
	uint8_t *pkt, *exact_pkt;
	unsigned flags;
	bool v6;
	int rc, n;

	if (size < 1)
		return 0;
	v6 = (data[0] & MODE_IPV6) != 0;
	flags = (data[0] & MODE_ALLOW_REPEAT) != 0 ? HIP_TLV_ALLOW_REPEAT : 0;
	c.iv_extra = data[0] >> MODE_IV_SHIFT;
	alen = v6 ? 16 : 4;
	if (size < 1 + 2 * alen)
		return 0;
	len = size - 1 - 2 * alen;
	pkt = fuzz_copy(data + 1 + 2 * alen, len);
	(void)hip_strerror(hip_hdr_parse(pkt, len, &h));
	rc = hip_hdr_parse(pkt, len, &h);
	n = hip_packet_validate(pkt, len, flags, &vh, &err_off);
	if (rc != HIP_OK) {
		if (n != rc)
			FUZZ_FAIL("validate %d, header %d", n, rc);
		free(pkt);
		return 0;
	}
	if (h.pkt_len > len || h.pkt_len < HIP_HDR_LEN || h.pkt_len % HIP_LEN_UNIT != 0)
		FUZZ_FAIL("pkt_len %u for %zu bytes", h.pkt_len, len);
	check_header(pkt, &h);
	/* from here on the HIP packet alone, without what follows it */
	exact_pkt = fuzz_copy(pkt, h.pkt_len);
	free(pkt);
	check_checksum(exact_pkt, h.pkt_len, v6, data + 1, data + 1 + alen);
	rc = walk(&c, exact_pkt, &h, flags);
	if (rc != n)
		FUZZ_FAIL("iterator %d, validate %d", rc, n);
	free(exact_pkt);
	return 0;
}
