/* SPDX-License-Identifier: BSD-3-Clause
 * HIPv2 fixed header, checksum, TLV iterator and builder (RFC 7401 section 5).
 */
#include <string.h>

#include "hip_packet.h"
#include "hipgw_wire.h"

const char *
hip_strerror(int err)
{
	switch (err) {
	case HIP_OK: return "ok";
	case HIP_E_ARG: return "bad argument";
	case HIP_E_TRUNCATED: return "packet truncated";
	case HIP_E_HDR_LEN: return "bad header length";
	case HIP_E_VERSION: return "bad version";
	case HIP_E_FIXED_BITS: return "bad fixed bits";
	case HIP_E_CHECKSUM: return "bad checksum";
	case HIP_E_TLV_TRUNCATED: return "truncated parameter header";
	case HIP_E_TLV_OVERRUN: return "parameter runs past the packet";
	case HIP_E_TLV_PADDING: return "parameter padding not zero";
	case HIP_E_TLV_ORDER: return "parameters out of order";
	case HIP_E_PARAM_TYPE: return "wrong parameter type";
	case HIP_E_PARAM_LENGTH: return "bad parameter length";
	case HIP_E_PARAM_VALUE: return "bad parameter field";
	case HIP_E_TOO_MANY: return "too many entries";
	case HIP_E_NOSPACE: return "no space";
	default: return "unknown error";
	}
}

const char *
hip_packet_type_name(uint8_t type)
{
	switch (type) {
	case HIP_I1: return "I1";
	case HIP_R1: return "R1";
	case HIP_I2: return "I2";
	case HIP_R2: return "R2";
	case HIP_UPDATE: return "UPDATE";
	case HIP_NOTIFY: return "NOTIFY";
	case HIP_CLOSE: return "CLOSE";
	case HIP_CLOSE_ACK: return "CLOSE_ACK";
	case HIP_HDRR: return "HDRR";
	case HIP_DATA: return "HIP_DATA";
	default: return NULL;
	}
}

const char *
hip_param_name(uint16_t type)
{
	switch (type) {
	case HIP_PARAM_ESP_INFO: return "ESP_INFO";
	case HIP_PARAM_R1_COUNTER_V1: return "R1_COUNTER_V1";
	case HIP_PARAM_R1_COUNTER: return "R1_COUNTER";
	case HIP_PARAM_LOCATOR_SET: return "LOCATOR_SET";
	case HIP_PARAM_PUZZLE: return "PUZZLE";
	case HIP_PARAM_SOLUTION: return "SOLUTION";
	case HIP_PARAM_SEQ: return "SEQ";
	case HIP_PARAM_ACK: return "ACK";
	case HIP_PARAM_DH_GROUP_LIST: return "DH_GROUP_LIST";
	case HIP_PARAM_DIFFIE_HELLMAN: return "DIFFIE_HELLMAN";
	case HIP_PARAM_HIP_TRANSFORM_V1: return "HIP_TRANSFORM_V1";
	case HIP_PARAM_HIP_CIPHER: return "HIP_CIPHER";
	case HIP_PARAM_NAT_TRAVERSAL_MODE: return "NAT_TRAVERSAL_MODE";
	case HIP_PARAM_TRANSACTION_PACING: return "TRANSACTION_PACING";
	case HIP_PARAM_ENCRYPTED: return "ENCRYPTED";
	case HIP_PARAM_HOST_ID: return "HOST_ID";
	case HIP_PARAM_HIT_SUITE_LIST: return "HIT_SUITE_LIST";
	case HIP_PARAM_CERT: return "CERT";
	case HIP_PARAM_NOTIFICATION: return "NOTIFICATION";
	case HIP_PARAM_ECHO_REQUEST_SIGNED: return "ECHO_REQUEST_SIGNED";
	case HIP_PARAM_REG_INFO: return "REG_INFO";
	case HIP_PARAM_REG_REQUEST: return "REG_REQUEST";
	case HIP_PARAM_REG_RESPONSE: return "REG_RESPONSE";
	case HIP_PARAM_REG_FAILED: return "REG_FAILED";
	case HIP_PARAM_REG_FROM: return "REG_FROM";
	case HIP_PARAM_ECHO_RESPONSE_SIGNED: return "ECHO_RESPONSE_SIGNED";
	case HIP_PARAM_TRANSPORT_FORMAT_LIST: return "TRANSPORT_FORMAT_LIST";
	case HIP_PARAM_ESP_TRANSFORM: return "ESP_TRANSFORM";
	case HIP_PARAM_HIP_MAC: return "HIP_MAC";
	case HIP_PARAM_HIP_MAC_2: return "HIP_MAC_2";
	case HIP_PARAM_HIP_SIGNATURE_2: return "HIP_SIGNATURE_2";
	case HIP_PARAM_HIP_SIGNATURE: return "HIP_SIGNATURE";
	case HIP_PARAM_ECHO_RESPONSE_UNSIGNED: return "ECHO_RESPONSE_UNSIGNED";
	case HIP_PARAM_ECHO_REQUEST_UNSIGNED: return "ECHO_REQUEST_UNSIGNED";
	case HIP_PARAM_RELAY_FROM: return "RELAY_FROM";
	case HIP_PARAM_RELAY_TO: return "RELAY_TO";
	case HIP_PARAM_FROM: return "FROM";
	case HIP_PARAM_RVS_HMAC: return "RVS_HMAC";
	case HIP_PARAM_VIA_RVS: return "VIA_RVS";
	case HIP_PARAM_RELAY_HMAC: return "RELAY_HMAC";
	default: return NULL;
	}
}

/* ---- Header ------------------------------------------------------------------ */

static bool
pkt_len_ok(size_t len)
{
	return len >= HIP_HDR_LEN && len <= HIP_PACKET_MAX && len % HIP_LEN_UNIT == 0;
}

int
hip_hdr_parse(const uint8_t *buf, size_t len, struct hip_hdr *h)
{
	size_t pkt_len;

	if (buf == NULL || h == NULL)
		return HIP_E_ARG;
	if (len < HIP_HDR_LEN)
		return HIP_E_TRUNCATED;
	if (buf[HIP_OFF_HDR_LEN] < HIP_HDR_LEN_FIELD_MIN)
		return HIP_E_HDR_LEN;
	pkt_len = ((size_t)buf[HIP_OFF_HDR_LEN] + 1) * HIP_LEN_UNIT;
	if (pkt_len > len)
		return HIP_E_TRUNCATED;
	if ((buf[HIP_OFF_PACKET_TYPE] & HIP_FIXED_BIT_ZERO) != 0 ||
	    (buf[HIP_OFF_VERSION] & HIP_FIXED_BIT_ONE) == 0)
		return HIP_E_FIXED_BITS;
	if ((buf[HIP_OFF_VERSION] >> HIP_VERSION_SHIFT) != HIP_VERSION)
		return HIP_E_VERSION;

	h->next_header = buf[HIP_OFF_NEXT_HEADER];
	h->hdr_len = buf[HIP_OFF_HDR_LEN];
	h->packet_type = buf[HIP_OFF_PACKET_TYPE] & HIP_PACKET_TYPE_MASK;
	h->version = buf[HIP_OFF_VERSION] >> HIP_VERSION_SHIFT;
	h->checksum = hip_get16(buf + HIP_OFF_CHECKSUM);
	h->controls = hip_get16(buf + HIP_OFF_CONTROLS);
	memcpy(h->hit_sender, buf + HIP_OFF_HIT_SENDER, HIP_HIT_LEN);
	memcpy(h->hit_receiver, buf + HIP_OFF_HIT_RECEIVER, HIP_HIT_LEN);
	h->pkt_len = (uint16_t)pkt_len;
	return HIP_OK;
}

int
hip_hdr_set_len(uint8_t *pkt, size_t len)
{
	if (pkt == NULL || !pkt_len_ok(len))
		return HIP_E_ARG;
	pkt[HIP_OFF_HDR_LEN] = (uint8_t)(len / HIP_LEN_UNIT - 1);
	return HIP_OK;
}

int
hip_hdr_write(uint8_t *buf, size_t cap, const struct hip_hdr *h)
{
	if (buf == NULL || h == NULL || cap < HIP_HDR_LEN || !pkt_len_ok(h->pkt_len) ||
	    h->packet_type > HIP_PACKET_TYPE_MASK)
		return HIP_E_ARG;
	buf[HIP_OFF_NEXT_HEADER] = h->next_header;
	buf[HIP_OFF_PACKET_TYPE] = h->packet_type;
	buf[HIP_OFF_VERSION] = HIP_VERSION_BYTE;
	hip_put16(buf + HIP_OFF_CHECKSUM, h->checksum);
	hip_put16(buf + HIP_OFF_CONTROLS, h->controls);
	memcpy(buf + HIP_OFF_HIT_SENDER, h->hit_sender, HIP_HIT_LEN);
	memcpy(buf + HIP_OFF_HIT_RECEIVER, h->hit_receiver, HIP_HIT_LEN);
	return hip_hdr_set_len(buf, h->pkt_len);
}

/* ---- Checksum ------------------------------------------------------------------ */

/* RFC 1071 sum of 16-bit big-endian words; an odd last byte is padded with 0. */
static uint32_t
csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)((p[i] << 8) | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)(p[n - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* Sum of the HIP packet with the Checksum field counted as zero. */
static uint32_t
csum_packet(uint32_t sum, const uint8_t *pkt, size_t len)
{
	sum = csum_add(sum, pkt, HIP_OFF_CHECKSUM);
	return csum_add(sum, pkt + HIP_OFF_CHECKSUM + 2, len - HIP_OFF_CHECKSUM - 2);
}

static uint16_t
csum_final(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t
hip_checksum_ipv4(const uint8_t src[4], const uint8_t dst[4], const uint8_t *pkt, size_t len)
{
	uint8_t ph[12];

	if (src == NULL || dst == NULL || pkt == NULL || !pkt_len_ok(len))
		return 0;
	memcpy(ph, src, 4);
	memcpy(ph + 4, dst, 4);
	ph[8] = 0;
	ph[9] = GW_IPPROTO_HIP;
	hip_put16(ph + 10, (uint16_t)len);
	return csum_final(csum_packet(csum_add(0, ph, sizeof(ph)), pkt, len));
}

uint16_t
hip_checksum_ipv6(const uint8_t src[16], const uint8_t dst[16], const uint8_t *pkt, size_t len)
{
	uint8_t ph[40];

	if (src == NULL || dst == NULL || pkt == NULL || !pkt_len_ok(len))
		return 0;
	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	hip_put32(ph + 32, (uint32_t)len);
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = GW_IPPROTO_HIP;
	return csum_final(csum_packet(csum_add(0, ph, sizeof(ph)), pkt, len));
}

int
hip_checksum_set_ipv4(uint8_t *pkt, size_t len, const uint8_t src[4], const uint8_t dst[4])
{
	if (src == NULL || dst == NULL || pkt == NULL || !pkt_len_ok(len))
		return HIP_E_ARG;
	hip_put16(pkt + HIP_OFF_CHECKSUM, hip_checksum_ipv4(src, dst, pkt, len));
	return HIP_OK;
}

int
hip_checksum_set_ipv6(uint8_t *pkt, size_t len, const uint8_t src[16], const uint8_t dst[16])
{
	if (src == NULL || dst == NULL || pkt == NULL || !pkt_len_ok(len))
		return HIP_E_ARG;
	hip_put16(pkt + HIP_OFF_CHECKSUM, hip_checksum_ipv6(src, dst, pkt, len));
	return HIP_OK;
}

int
hip_checksum_verify_ipv4(const uint8_t *pkt, size_t len, const uint8_t src[4], const uint8_t dst[4])
{
	if (src == NULL || dst == NULL || pkt == NULL || !pkt_len_ok(len))
		return HIP_E_ARG;
	return hip_checksum_ipv4(src, dst, pkt, len) == hip_get16(pkt + HIP_OFF_CHECKSUM) ?
	       HIP_OK : HIP_E_CHECKSUM;
}

int
hip_checksum_verify_ipv6(const uint8_t *pkt, size_t len, const uint8_t src[16], const uint8_t dst[16])
{
	if (src == NULL || dst == NULL || pkt == NULL || !pkt_len_ok(len))
		return HIP_E_ARG;
	return hip_checksum_ipv6(src, dst, pkt, len) == hip_get16(pkt + HIP_OFF_CHECKSUM) ?
	       HIP_OK : HIP_E_CHECKSUM;
}

/* ---- TLV iterator ----------------------------------------------------------------- */

/* The TLV at buf[off..end): header fits, padded size fits, padding is zero. */
static int
tlv_at(const uint8_t *buf, size_t off, size_t end, struct hip_tlv *t)
{
	size_t len, total, i;

	if (end - off < HIP_TLV_HDR_LEN)
		return HIP_E_TLV_TRUNCATED;
	len = hip_get16(buf + off + 2);
	total = hip_tlv_total(len);
	if (total > end - off)
		return HIP_E_TLV_OVERRUN;
	for (i = off + HIP_TLV_HDR_LEN + len; i < off + total; i++)
		if (buf[i] != 0)
			return HIP_E_TLV_PADDING;
	t->type = hip_get16(buf + off);
	t->len = (uint16_t)len;
	t->value = buf + off + HIP_TLV_HDR_LEN;
	t->offset = off;
	t->total = total;
	return HIP_OK;
}

void
hip_tlv_iter_init_raw(struct hip_tlv_iter *it, const uint8_t *buf, size_t len, unsigned flags)
{
	if (it == NULL)
		return;
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->end = buf == NULL ? 0 : len;
	it->flags = flags;
	if (buf == NULL)
		it->err = HIP_E_ARG;
}

void
hip_tlv_iter_init(struct hip_tlv_iter *it, const uint8_t *pkt, size_t pkt_len, unsigned flags)
{
	hip_tlv_iter_init_raw(it, pkt, pkt_len, flags);
	if (it == NULL || it->err != 0)
		return;
	if (pkt_len < HIP_HDR_LEN)
		it->err = HIP_E_TRUNCATED;
	else
		it->off = HIP_HDR_LEN;
}

int
hip_tlv_next(struct hip_tlv_iter *it, struct hip_tlv *t)
{
	struct hip_tlv tmp;
	int rc;

	if (it == NULL || t == NULL)
		return HIP_E_ARG;
	if (it->err != 0)
		return it->err;
	if (it->off >= it->end)
		return 0;
	rc = tlv_at(it->buf, it->off, it->end, &tmp);
	if (rc == HIP_OK && it->any &&
	    (tmp.type < it->last_type ||
	     (tmp.type == it->last_type && !(it->flags & HIP_TLV_ALLOW_REPEAT))))
		rc = HIP_E_TLV_ORDER;
	if (rc != HIP_OK) {
		it->err = rc;
		return rc;
	}
	it->repeat = it->any && tmp.type == it->last_type;
	it->any = true;
	it->last_type = tmp.type;
	it->off += tmp.total;
	*t = tmp;
	return 1;
}

int
hip_tlv_parse_one(const uint8_t *buf, size_t len, struct hip_tlv *t)
{
	if (buf == NULL || t == NULL)
		return HIP_E_ARG;
	return tlv_at(buf, 0, len, t);
}

int
hip_packet_validate(const uint8_t *buf, size_t len, unsigned flags, struct hip_hdr *h, size_t *err_off)
{
	struct hip_hdr hdr;
	struct hip_tlv_iter it;
	struct hip_tlv t;
	int rc, n = 0;

	if (err_off != NULL)
		*err_off = 0;
	rc = hip_hdr_parse(buf, len, &hdr);
	if (rc != HIP_OK)
		return rc;
	if (h != NULL)
		*h = hdr;
	hip_tlv_iter_init(&it, buf, hdr.pkt_len, flags);
	while ((rc = hip_tlv_next(&it, &t)) == 1)
		n++;
	if (rc < 0) {
		if (err_off != NULL)
			*err_off = it.off;
		return rc;
	}
	return n;
}

int
hip_param_find(const uint8_t *pkt, size_t pkt_len, uint16_t type, struct hip_tlv *t)
{
	struct hip_tlv_iter it;
	int rc;

	if (t == NULL)
		return HIP_E_ARG;
	hip_tlv_iter_init(&it, pkt, pkt_len, HIP_TLV_ALLOW_REPEAT);
	while ((rc = hip_tlv_next(&it, t)) == 1) {
		if (t->type == type)
			return 1;
		if (t->type > type)
			return 0;
	}
	return rc;
}

/* ---- Builder ------------------------------------------------------------------------- */

int
hip_build_init(struct hip_builder *b, uint8_t *buf, size_t cap, uint8_t packet_type,
	       const uint8_t hit_sender[HIP_HIT_LEN], const uint8_t hit_receiver[HIP_HIT_LEN])
{
	struct hip_hdr h;

	if (b == NULL)
		return HIP_E_ARG;
	memset(b, 0, sizeof(*b));
	if (buf == NULL || hit_sender == NULL || hit_receiver == NULL ||
	    packet_type > HIP_PACKET_TYPE_MASK)
		return b->err = HIP_E_ARG;
	if (cap < HIP_HDR_LEN)
		return b->err = HIP_E_NOSPACE;
	memset(&h, 0, sizeof(h));
	h.next_header = HIP_NEXT_HEADER_NONE;
	h.packet_type = packet_type;
	h.pkt_len = HIP_HDR_LEN;
	memcpy(h.hit_sender, hit_sender, HIP_HIT_LEN);
	memcpy(h.hit_receiver, hit_receiver, HIP_HIT_LEN);
	b->buf = buf;
	b->cap = cap < HIP_PACKET_MAX ? cap : HIP_PACKET_MAX;
	b->len = HIP_HDR_LEN;
	return b->err = hip_hdr_write(buf, cap, &h);
}

uint8_t *
hip_build_param_reserve(struct hip_builder *b, uint16_t type, size_t content_len)
{
	uint8_t *p;
	size_t total;

	if (b == NULL)
		return NULL;
	if (b->err != 0)
		return NULL;
	if (b->buf == NULL || content_len > UINT16_MAX) {
		b->err = HIP_E_ARG;
		return NULL;
	}
	if (b->any && (type < b->last_type ||
		       (type == b->last_type && !(b->flags & HIP_TLV_ALLOW_REPEAT)))) {
		b->err = HIP_E_TLV_ORDER;
		return NULL;
	}
	total = hip_tlv_total(content_len);
	if (total > b->cap - b->len) {
		b->err = HIP_E_NOSPACE;
		return NULL;
	}
	p = b->buf + b->len;
	hip_put16(p, type);
	hip_put16(p + 2, (uint16_t)content_len);
	memset(p + HIP_TLV_HDR_LEN, 0, total - HIP_TLV_HDR_LEN);
	b->len += total;
	b->any = true;
	b->last_type = type;
	return p + HIP_TLV_HDR_LEN;
}

int
hip_build_param(struct hip_builder *b, uint16_t type, const void *content, size_t content_len)
{
	uint8_t *p;

	if (b == NULL)
		return HIP_E_ARG;
	if (b->err == 0 && content == NULL && content_len != 0)
		b->err = HIP_E_ARG;
	p = hip_build_param_reserve(b, type, content_len);
	if (p == NULL)
		return b->err;
	if (content_len != 0)
		memcpy(p, content, content_len);
	return HIP_OK;
}

int
hip_build_tlv(struct hip_builder *b, const struct hip_tlv *t)
{
	if (b == NULL)
		return HIP_E_ARG;
	if (t == NULL) {
		if (b->err == 0)
			b->err = HIP_E_ARG;
		return b->err;
	}
	return hip_build_param(b, t->type, t->value, t->len);
}

int
hip_build_finish(struct hip_builder *b)
{
	if (b == NULL)
		return HIP_E_ARG;
	if (b->err != 0)
		return b->err;
	b->err = hip_hdr_set_len(b->buf, b->len);
	return b->err != 0 ? b->err : (int)b->len;
}
