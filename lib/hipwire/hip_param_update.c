/* SPDX-License-Identifier: BSD-3-Clause
 * UPDATE, NOTIFY and authentication parameters (RFC 7401 5.2.12 - 5.2.17,
 * 5.2.19 - 5.2.23; RFC 8046 4): SEQ, ACK, NOTIFICATION, HIP_MAC, HIP_MAC_2,
 * HIP_SIGNATURE, HIP_SIGNATURE_2, the four ECHO parameters, LOCATOR_SET.
 * Layouts and errors: hip_param.h.
 */
#include <string.h>

#include "hip_param_internal.h"

/* ---- SEQ ------------------------------------------------------------------------ */

int
hip_seq_parse(const struct hip_tlv *t, struct hip_seq *out)
{
	int rc = param_check(t, out, HIP_PARAM_SEQ);

	if (rc != HIP_OK)
		return rc;
	if (t->len != 4)
		return HIP_E_PARAM_LENGTH;
	out->update_id = hip_get32(t->value);
	return HIP_OK;
}

int
hip_seq_put(struct hip_builder *b, const struct hip_seq *in)
{
	uint8_t *p;

	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_SEQ, 4);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	hip_put32(p, in->update_id);
	return HIP_OK;
}

/* ---- ACK -------------------------------------------------------------------------- */

int
hip_ack_parse(const struct hip_tlv *t, struct hip_ack *out)
{
	unsigned i, n;
	int rc = param_check(t, out, HIP_PARAM_ACK);

	if (rc != HIP_OK)
		return rc;
	if (t->len == 0 || t->len % 4 != 0)
		return HIP_E_PARAM_LENGTH;
	n = t->len / 4;
	if (n > HIP_ACK_IDS_MAX)
		return HIP_E_TOO_MANY;
	for (i = 0; i < n; i++)
		out->update_ids[i] = hip_get32(t->value + 4 * i);
	out->n = n;
	return HIP_OK;
}

int
hip_ack_put(struct hip_builder *b, const struct hip_ack *in)
{
	uint8_t *p;
	unsigned i;

	if (in == NULL || in->n == 0 || in->n > HIP_ACK_IDS_MAX)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_ACK, 4 * (size_t)in->n);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	for (i = 0; i < in->n; i++)
		hip_put32(p + 4 * i, in->update_ids[i]);
	return HIP_OK;
}

/* ---- NOTIFICATION ------------------------------------------------------------------- */

int
hip_notification_parse(const struct hip_tlv *t, struct hip_notification *out)
{
	int rc = param_check(t, out, HIP_PARAM_NOTIFICATION);

	if (rc != HIP_OK)
		return rc;
	if (t->len < 4)
		return HIP_E_PARAM_LENGTH;
	out->msg_type = hip_get16(t->value + 2);
	out->data = t->value + 4;
	out->data_len = t->len - 4u;
	return HIP_OK;
}

int
hip_notification_put(struct hip_builder *b, const struct hip_notification *in)
{
	uint8_t *p;

	if (in == NULL || (in->data == NULL && in->data_len != 0))
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_NOTIFICATION, 4 + in->data_len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	hip_put16(p + 2, in->msg_type);
	if (in->data_len != 0)
		memcpy(p + 4, in->data, in->data_len);
	return HIP_OK;
}

/* ---- HIP_MAC, HIP_MAC_2 --------------------------------------------------------------- */

static bool
is_mac_type(uint16_t type)
{
	return type == HIP_PARAM_HIP_MAC || type == HIP_PARAM_HIP_MAC_2;
}

int
hip_mac_parse(const struct hip_tlv *t, struct hip_mac *out)
{
	if (t == NULL || out == NULL || (t->value == NULL && t->len != 0))
		return HIP_E_ARG;
	if (!is_mac_type(t->type))
		return HIP_E_PARAM_TYPE;
	if (t->len == 0 || t->len > HIP_MAC_MAX)
		return HIP_E_PARAM_LENGTH;
	out->type = t->type;
	out->hmac = t->value;
	out->len = t->len;
	return HIP_OK;
}

int
hip_mac_put(struct hip_builder *b, const struct hip_mac *in)
{
	if (in == NULL || !is_mac_type(in->type) || in->hmac == NULL || in->len == 0 ||
	    in->len > HIP_MAC_MAX)
		return param_fail(b, HIP_E_ARG);
	return hip_build_param(b, in->type, in->hmac, in->len);
}

/* ---- HIP_SIGNATURE, HIP_SIGNATURE_2 ------------------------------------------------------ */

static bool
is_sig_type(uint16_t type)
{
	return type == HIP_PARAM_HIP_SIGNATURE || type == HIP_PARAM_HIP_SIGNATURE_2;
}

int
hip_signature_parse(const struct hip_tlv *t, struct hip_signature *out)
{
	if (t == NULL || out == NULL || (t->value == NULL && t->len != 0))
		return HIP_E_ARG;
	if (!is_sig_type(t->type))
		return HIP_E_PARAM_TYPE;
	if (t->len < 3 || t->len - 2u > HIP_SIGNATURE_MAX)
		return HIP_E_PARAM_LENGTH;
	out->type = t->type;
	out->algorithm = hip_get16(t->value);
	if (out->algorithm == HIP_HI_RESERVED)
		return HIP_E_PARAM_VALUE;
	out->sig = t->value + 2;
	out->len = t->len - 2u;
	return HIP_OK;
}

int
hip_signature_put(struct hip_builder *b, const struct hip_signature *in)
{
	uint8_t *p;

	if (in == NULL || !is_sig_type(in->type) || in->algorithm == HIP_HI_RESERVED ||
	    in->sig == NULL || in->len == 0 || in->len > HIP_SIGNATURE_MAX)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, in->type, 2 + in->len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	hip_put16(p, in->algorithm);
	memcpy(p + 2, in->sig, in->len);
	return HIP_OK;
}

/* ---- ECHO_REQUEST / ECHO_RESPONSE, signed and unsigned ----------------------------------- */

static bool
is_echo_type(uint16_t type)
{
	return type == HIP_PARAM_ECHO_REQUEST_SIGNED || type == HIP_PARAM_ECHO_RESPONSE_SIGNED ||
	       type == HIP_PARAM_ECHO_REQUEST_UNSIGNED || type == HIP_PARAM_ECHO_RESPONSE_UNSIGNED;
}

int
hip_echo_parse(const struct hip_tlv *t, struct hip_echo *out)
{
	if (t == NULL || out == NULL || (t->value == NULL && t->len != 0))
		return HIP_E_ARG;
	if (!is_echo_type(t->type))
		return HIP_E_PARAM_TYPE;
	if (t->len == 0)
		return HIP_E_PARAM_LENGTH;
	out->type = t->type;
	out->data = t->value;
	out->len = t->len;
	return HIP_OK;
}

int
hip_echo_put(struct hip_builder *b, const struct hip_echo *in)
{
	if (in == NULL || !is_echo_type(in->type) || in->data == NULL || in->len == 0)
		return param_fail(b, HIP_E_ARG);
	return hip_build_param(b, in->type, in->data, in->len);
}

/* ---- LOCATOR_SET ------------------------------------------------------------------------------ */
#define LOCATOR_IPV6_LEN 16
#define LOCATOR_SPI_IPV6_LEN 20

/* Known locator types must have their fixed size; others any size. */
static bool
locator_len_ok(uint8_t type, size_t len)
{
	if (type == HIP_LOCATOR_TYPE_IPV6)
		return len == LOCATOR_IPV6_LEN;
	if (type == HIP_LOCATOR_TYPE_ESP_SPI_IPV6)
		return len == LOCATOR_SPI_IPV6_LEN;
	return true;
}

int
hip_locator_set_parse(const struct hip_tlv *t, struct hip_locator_set *out)
{
	size_t off = 0;
	int rc = param_check(t, out, HIP_PARAM_LOCATOR_SET);

	if (rc != HIP_OK)
		return rc;
	if (t->len < HIP_LOCATOR_HDR_LEN)
		return HIP_E_PARAM_LENGTH;
	memset(out, 0, sizeof(*out));
	while (off < t->len) {
		struct hip_locator *l;
		const uint8_t *p = t->value + off;

		if (out->n == HIP_LOCATORS_MAX)
			return HIP_E_TOO_MANY;
		if (t->len - off < HIP_LOCATOR_HDR_LEN)
			return HIP_E_PARAM_LENGTH;
		l = &out->loc[out->n];
		l->traffic_type = p[0];
		l->locator_type = p[1];
		l->locator_len = (uint16_t)(p[2] * HIP_LOCATOR_LEN_UNIT);
		l->preferred = (p[3] & HIP_LOCATOR_PREFERRED) != 0;
		l->lifetime = hip_get32(p + 4);
		if (l->locator_len > t->len - off - HIP_LOCATOR_HDR_LEN)
			return HIP_E_PARAM_LENGTH;
		if (!locator_len_ok(l->locator_type, l->locator_len))
			return HIP_E_PARAM_VALUE;
		l->locator = p + HIP_LOCATOR_HDR_LEN;
		off += HIP_LOCATOR_HDR_LEN + l->locator_len;
		out->n++;
	}
	return HIP_OK;
}

int
hip_locator_set_put(struct hip_builder *b, const struct hip_locator_set *in)
{
	size_t len = 0, off = 0;
	unsigned i;
	uint8_t *p;

	if (in == NULL || in->n == 0 || in->n > HIP_LOCATORS_MAX)
		return param_fail(b, HIP_E_ARG);
	for (i = 0; i < in->n; i++) {
		const struct hip_locator *l = &in->loc[i];

		if (l->locator_len % HIP_LOCATOR_LEN_UNIT != 0 ||
		    l->locator_len / HIP_LOCATOR_LEN_UNIT > UINT8_MAX ||
		    (l->locator == NULL && l->locator_len != 0) ||
		    !locator_len_ok(l->locator_type, l->locator_len))
			return param_fail(b, HIP_E_ARG);
		len += HIP_LOCATOR_HDR_LEN + l->locator_len;
	}
	p = hip_build_param_reserve(b, HIP_PARAM_LOCATOR_SET, len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	for (i = 0; i < in->n; i++) {
		const struct hip_locator *l = &in->loc[i];

		p[off] = l->traffic_type;
		p[off + 1] = l->locator_type;
		p[off + 2] = (uint8_t)(l->locator_len / HIP_LOCATOR_LEN_UNIT);
		p[off + 3] = l->preferred ? HIP_LOCATOR_PREFERRED : 0;
		hip_put32(p + off + 4, l->lifetime);
		if (l->locator_len != 0)
			memcpy(p + off + HIP_LOCATOR_HDR_LEN, l->locator, l->locator_len);
		off += HIP_LOCATOR_HDR_LEN + l->locator_len;
	}
	return HIP_OK;
}
