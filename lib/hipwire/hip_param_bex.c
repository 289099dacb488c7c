/* SPDX-License-Identifier: BSD-3-Clause
 * Base Exchange parameters (RFC 7401 5.2.3 - 5.2.11, 5.2.18; RFC 7402 5.1):
 * R1_COUNTER, PUZZLE, SOLUTION, DH_GROUP_LIST, DIFFIE_HELLMAN, HIP_CIPHER,
 * HOST_ID, HIT_SUITE_LIST, TRANSPORT_FORMAT_LIST, ENCRYPTED, ESP_TRANSFORM,
 * ESP_INFO. Layouts and errors: hip_param.h.
 */
#include <string.h>

#include "hip_param_internal.h"

size_t
hip_hit_suite_rhash_len(uint8_t suite)
{
	switch (suite) {
	case HIP_HIT_SUITE_RSA_DSA_SHA256: return HIP_RHASH_LEN_SHA256;
	case HIP_HIT_SUITE_ECDSA_SHA384: return HIP_RHASH_LEN_SHA384;
	case HIP_HIT_SUITE_ECDSA_LOW_SHA1: return HIP_RHASH_LEN_SHA1;
	default: return 0;
	}
}

int
hip_cipher_iv_len(uint16_t cipher_id)
{
	switch (cipher_id) {
	case HIP_CIPHER_NULL_ENCRYPT: return 0;
	case HIP_CIPHER_AES_128_CBC:
	case HIP_CIPHER_AES_256_CBC: return HIP_CIPHER_AES_CBC_IV_LEN;
	default: return -1;
	}
}

/* ---- R1_COUNTER ---------------------------------------------------------------- */
#define R1_COUNTER_LEN 12

int
hip_r1_counter_parse(const struct hip_tlv *t, struct hip_r1_counter *out)
{
	int rc = param_check(t, out, HIP_PARAM_R1_COUNTER);

	if (rc != HIP_OK)
		return rc;
	if (t->len != R1_COUNTER_LEN)
		return HIP_E_PARAM_LENGTH;
	out->generation = hip_get64(t->value + 4);
	return HIP_OK;
}

int
hip_r1_counter_put(struct hip_builder *b, const struct hip_r1_counter *in)
{
	uint8_t *p;

	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_R1_COUNTER, R1_COUNTER_LEN);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	hip_put64(p + 4, in->generation);
	return HIP_OK;
}

/* ---- PUZZLE -------------------------------------------------------------------- */

int
hip_puzzle_parse(const struct hip_tlv *t, size_t rhash_len, struct hip_puzzle *out)
{
	int rc = param_check(t, out, HIP_PARAM_PUZZLE);

	if (rc != HIP_OK)
		return rc;
	if (!rhash_len_ok(rhash_len))
		return HIP_E_ARG;
	if (t->len != 4 + rhash_len)
		return HIP_E_PARAM_LENGTH;
	out->k = t->value[0];
	out->lifetime = t->value[1];
	memcpy(out->opaque, t->value + 2, 2);
	out->i = t->value + 4;
	return HIP_OK;
}

int
hip_puzzle_put(struct hip_builder *b, size_t rhash_len, const struct hip_puzzle *in)
{
	uint8_t *p;

	if (in == NULL || in->i == NULL || !rhash_len_ok(rhash_len))
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_PUZZLE, 4 + rhash_len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	p[0] = in->k;
	p[1] = in->lifetime;
	memcpy(p + 2, in->opaque, 2);
	memcpy(p + 4, in->i, rhash_len);
	return HIP_OK;
}

/* ---- SOLUTION ------------------------------------------------------------------- */

int
hip_solution_parse(const struct hip_tlv *t, size_t rhash_len, struct hip_solution *out)
{
	int rc = param_check(t, out, HIP_PARAM_SOLUTION);

	if (rc != HIP_OK)
		return rc;
	if (!rhash_len_ok(rhash_len))
		return HIP_E_ARG;
	if (t->len != 4 + 2 * rhash_len)
		return HIP_E_PARAM_LENGTH;
	out->k = t->value[0];
	out->reserved = t->value[1];
	memcpy(out->opaque, t->value + 2, 2);
	out->i = t->value + 4;
	out->j = t->value + 4 + rhash_len;
	return HIP_OK;
}

int
hip_solution_put(struct hip_builder *b, size_t rhash_len, const struct hip_solution *in)
{
	uint8_t *p;

	if (in == NULL || in->i == NULL || in->j == NULL || !rhash_len_ok(rhash_len))
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_SOLUTION, 4 + 2 * rhash_len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	p[0] = in->k;
	p[1] = 0;
	memcpy(p + 2, in->opaque, 2);
	memcpy(p + 4, in->i, rhash_len);
	memcpy(p + 4 + rhash_len, in->j, rhash_len);
	return HIP_OK;
}

/* ---- DIFFIE_HELLMAN -------------------------------------------------------------- */
#define DH_VALUE_HDR 3   /* Group ID 1 + Public Value Length 2 */

int
hip_diffie_hellman_parse(const struct hip_tlv *t, struct hip_diffie_hellman *out)
{
	size_t off = 0;
	int rc = param_check(t, out, HIP_PARAM_DIFFIE_HELLMAN);

	if (rc != HIP_OK)
		return rc;
	if (t->len < DH_VALUE_HDR + 1)
		return HIP_E_PARAM_LENGTH;
	memset(out, 0, sizeof(*out));
	while (off < t->len) {
		struct hip_dh_value *v;

		if (out->n == HIP_DH_VALUES_MAX)
			return HIP_E_TOO_MANY;
		if (t->len - off < DH_VALUE_HDR)
			return HIP_E_PARAM_LENGTH;
		v = &out->v[out->n];
		v->group_id = t->value[off];
		v->pub_len = hip_get16(t->value + off + 1);
		if (v->pub_len > t->len - off - DH_VALUE_HDR)
			return HIP_E_PARAM_LENGTH;
		if (v->group_id == HIP_DH_GROUP_RESERVED || v->pub_len == 0 || v->pub_len > HIP_DH_PUBLIC_MAX)
			return HIP_E_PARAM_VALUE;
		if (out->n == 1 && out->v[0].group_id == v->group_id)
			return HIP_E_PARAM_VALUE;
		v->pub = t->value + off + DH_VALUE_HDR;
		off += DH_VALUE_HDR + v->pub_len;
		out->n++;
	}
	return HIP_OK;
}

int
hip_diffie_hellman_put(struct hip_builder *b, const struct hip_diffie_hellman *in)
{
	size_t len = 0, off = 0;
	unsigned i;
	uint8_t *p;

	if (in == NULL || in->n == 0 || in->n > HIP_DH_VALUES_MAX)
		return param_fail(b, HIP_E_ARG);
	for (i = 0; i < in->n; i++) {
		const struct hip_dh_value *v = &in->v[i];

		if (v->pub == NULL || v->pub_len == 0 || v->pub_len > HIP_DH_PUBLIC_MAX ||
		    v->group_id == HIP_DH_GROUP_RESERVED)
			return param_fail(b, HIP_E_ARG);
		len += DH_VALUE_HDR + v->pub_len;
	}
	if (in->n == 2 && in->v[0].group_id == in->v[1].group_id)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_DIFFIE_HELLMAN, len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	for (i = 0; i < in->n; i++) {
		p[off] = in->v[i].group_id;
		hip_put16(p + off + 1, in->v[i].pub_len);
		memcpy(p + off + DH_VALUE_HDR, in->v[i].pub, in->v[i].pub_len);
		off += DH_VALUE_HDR + in->v[i].pub_len;
	}
	return HIP_OK;
}

/* ---- Lists of 1-byte and 2-byte IDs ---------------------------------------------- */

/* Copy a list of `width`-byte entries (1 or 2) from t into ids (host order).
 * max: array size; keep_first: accept longer lists and count the rest in
 * *dropped (RFC 7401 5.2.8, RFC 7402 5.1.2) instead of HIP_E_TOO_MANY. */
static int
list_parse(const struct hip_tlv *t, size_t skip, unsigned width, void *ids, unsigned max,
	   bool keep_first, unsigned *n, unsigned *dropped)
{
	size_t count, i;

	if (t->len <= skip || (t->len - skip) % width != 0)
		return HIP_E_PARAM_LENGTH;
	count = (t->len - skip) / width;
	if (count > max && !keep_first)
		return HIP_E_TOO_MANY;
	*n = count > max ? max : (unsigned)count;
	if (dropped != NULL)
		*dropped = (unsigned)(count - *n);
	for (i = 0; i < *n; i++) {
		if (width == 1)
			((uint8_t *)ids)[i] = t->value[skip + i];
		else
			((uint16_t *)ids)[i] = hip_get16(t->value + skip + 2 * i);
	}
	return HIP_OK;
}

static int
list_put(struct hip_builder *b, uint16_t type, size_t skip, unsigned width, const void *ids,
	 unsigned n, unsigned max)
{
	uint8_t *p;
	unsigned i;

	if (ids == NULL || n == 0 || n > max)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, type, skip + (size_t)n * width);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	for (i = 0; i < n; i++) {
		if (width == 1)
			p[skip + i] = ((const uint8_t *)ids)[i];
		else
			hip_put16(p + skip + 2 * i, ((const uint16_t *)ids)[i]);
	}
	return HIP_OK;
}

int
hip_dh_group_list_parse(const struct hip_tlv *t, struct hip_dh_group_list *out)
{
	int rc = param_check(t, out, HIP_PARAM_DH_GROUP_LIST);

	if (rc != HIP_OK)
		return rc;
	return list_parse(t, 0, 1, out->ids, HIP_DH_GROUP_IDS_MAX, false, &out->n, NULL);
}

int
hip_dh_group_list_put(struct hip_builder *b, const struct hip_dh_group_list *in)
{
	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	return list_put(b, HIP_PARAM_DH_GROUP_LIST, 0, 1, in->ids, in->n, HIP_DH_GROUP_IDS_MAX);
}

int
hip_cipher_parse(const struct hip_tlv *t, struct hip_cipher *out)
{
	int rc = param_check(t, out, HIP_PARAM_HIP_CIPHER);

	if (rc != HIP_OK)
		return rc;
	return list_parse(t, 0, 2, out->ids, HIP_CIPHER_IDS_MAX, true, &out->n, &out->dropped);
}

int
hip_cipher_put(struct hip_builder *b, const struct hip_cipher *in)
{
	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	return list_put(b, HIP_PARAM_HIP_CIPHER, 0, 2, in->ids, in->n, HIP_CIPHER_IDS_MAX);
}

int
hip_hit_suite_list_parse(const struct hip_tlv *t, struct hip_hit_suite_list *out)
{
	int rc = param_check(t, out, HIP_PARAM_HIT_SUITE_LIST);

	if (rc != HIP_OK)
		return rc;
	return list_parse(t, 0, 1, out->ids, HIP_HIT_SUITE_LIST_MAX, false, &out->n, NULL);
}

int
hip_hit_suite_list_put(struct hip_builder *b, const struct hip_hit_suite_list *in)
{
	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	return list_put(b, HIP_PARAM_HIT_SUITE_LIST, 0, 1, in->ids, in->n, HIP_HIT_SUITE_LIST_MAX);
}

int
hip_transport_format_list_parse(const struct hip_tlv *t, struct hip_transport_format_list *out)
{
	int rc = param_check(t, out, HIP_PARAM_TRANSPORT_FORMAT_LIST);

	if (rc != HIP_OK)
		return rc;
	return list_parse(t, 0, 2, out->types, HIP_TRANSPORT_FORMATS_MAX, false, &out->n, NULL);
}

int
hip_transport_format_list_put(struct hip_builder *b, const struct hip_transport_format_list *in)
{
	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	return list_put(b, HIP_PARAM_TRANSPORT_FORMAT_LIST, 0, 2, in->types, in->n,
			HIP_TRANSPORT_FORMATS_MAX);
}

/* ESP_TRANSFORM: 2 reserved bytes, then the suite list. */
int
hip_esp_transform_parse(const struct hip_tlv *t, struct hip_esp_transform *out)
{
	int rc = param_check(t, out, HIP_PARAM_ESP_TRANSFORM);

	if (rc != HIP_OK)
		return rc;
	return list_parse(t, 2, 2, out->suites, HIP_ESP_SUITES_MAX, true, &out->n, &out->dropped);
}

int
hip_esp_transform_put(struct hip_builder *b, const struct hip_esp_transform *in)
{
	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	return list_put(b, HIP_PARAM_ESP_TRANSFORM, 2, 2, in->suites, in->n, HIP_ESP_SUITES_MAX);
}

/* ---- ESP_INFO ----------------------------------------------------------------------- */
#define ESP_INFO_LEN 12

int
hip_esp_info_parse(const struct hip_tlv *t, struct hip_esp_info *out)
{
	int rc = param_check(t, out, HIP_PARAM_ESP_INFO);

	if (rc != HIP_OK)
		return rc;
	if (t->len != ESP_INFO_LEN)
		return HIP_E_PARAM_LENGTH;
	out->keymat_index = hip_get16(t->value + 2);
	out->old_spi = hip_get32(t->value + 4);
	out->new_spi = hip_get32(t->value + 8);
	return HIP_OK;
}

int
hip_esp_info_put(struct hip_builder *b, const struct hip_esp_info *in)
{
	uint8_t *p;

	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_ESP_INFO, ESP_INFO_LEN);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	hip_put16(p + 2, in->keymat_index);
	hip_put32(p + 4, in->old_spi);
	hip_put32(p + 8, in->new_spi);
	return HIP_OK;
}

/* ---- ENCRYPTED ------------------------------------------------------------------------ */
#define ENCRYPTED_IV_MAX 64

int
hip_encrypted_parse(const struct hip_tlv *t, size_t iv_len, struct hip_encrypted *out)
{
	int rc = param_check(t, out, HIP_PARAM_ENCRYPTED);

	if (rc != HIP_OK)
		return rc;
	if (iv_len > ENCRYPTED_IV_MAX)
		return HIP_E_ARG;
	if (t->len <= 4 + iv_len)
		return HIP_E_PARAM_LENGTH;
	out->iv_len = iv_len;
	out->iv = t->value + 4;
	out->data = t->value + 4 + iv_len;
	out->data_len = t->len - 4 - iv_len;
	return HIP_OK;
}

int
hip_encrypted_put(struct hip_builder *b, const struct hip_encrypted *in)
{
	uint8_t *p;

	if (in == NULL || in->iv_len > ENCRYPTED_IV_MAX || (in->iv == NULL && in->iv_len != 0) ||
	    in->data == NULL || in->data_len == 0)
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_ENCRYPTED, 4 + in->iv_len + in->data_len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	if (in->iv_len != 0)
		memcpy(p + 4, in->iv, in->iv_len);
	memcpy(p + 4 + in->iv_len, in->data, in->data_len);
	return HIP_OK;
}

/* ---- HOST_ID ------------------------------------------------------------------------- */
#define HOST_ID_FIXED 6   /* HI Length 2, DI-Type/DI Length 2, Algorithm 2 */
#define DI_LEN_MASK 0x0fff
#define DI_TYPE_SHIFT 12
#define DI_TYPE_MAX 0x0f  /* 4 bits */

int
hip_host_id_parse(const struct hip_tlv *t, struct hip_host_id *out)
{
	uint16_t di;
	int rc = param_check(t, out, HIP_PARAM_HOST_ID);

	if (rc != HIP_OK)
		return rc;
	if (t->len < HOST_ID_FIXED)
		return HIP_E_PARAM_LENGTH;
	out->hi_len = hip_get16(t->value);
	di = hip_get16(t->value + 2);
	out->di_type = (uint8_t)(di >> DI_TYPE_SHIFT);
	out->di_len = di & DI_LEN_MASK;
	out->algorithm = hip_get16(t->value + 4);
	if ((size_t)HOST_ID_FIXED + out->hi_len + out->di_len != t->len)
		return HIP_E_PARAM_LENGTH;
	if (out->hi_len == 0 || out->hi_len > HIP_HI_MAX || out->algorithm == HIP_HI_RESERVED ||
	    (out->di_type == HIP_DI_NONE && out->di_len != 0))
		return HIP_E_PARAM_VALUE;
	out->hi = t->value + HOST_ID_FIXED;
	out->di = t->value + HOST_ID_FIXED + out->hi_len;
	return HIP_OK;
}

int
hip_host_id_put(struct hip_builder *b, const struct hip_host_id *in)
{
	uint8_t *p;

	if (in == NULL || in->hi == NULL || in->hi_len == 0 || in->hi_len > HIP_HI_MAX ||
	    in->di_len > HIP_DI_MAX || in->di_type > DI_TYPE_MAX ||
	    (in->di == NULL && in->di_len != 0) || in->algorithm == HIP_HI_RESERVED ||
	    (in->di_type == HIP_DI_NONE && in->di_len != 0))
		return param_fail(b, HIP_E_ARG);
	p = hip_build_param_reserve(b, HIP_PARAM_HOST_ID, (size_t)HOST_ID_FIXED + in->hi_len + in->di_len);
	if (p == NULL)
		return param_fail(b, HIP_E_ARG);
	hip_put16(p, in->hi_len);
	hip_put16(p + 2, (uint16_t)((in->di_type << DI_TYPE_SHIFT) | in->di_len));
	hip_put16(p + 4, in->algorithm);
	memcpy(p + HOST_ID_FIXED, in->hi, in->hi_len);
	if (in->di_len != 0)
		memcpy(p + HOST_ID_FIXED + in->hi_len, in->di, in->di_len);
	return HIP_OK;
}

int
hip_nat_traversal_mode_parse(const struct hip_tlv *t, struct hip_nat_traversal_mode *out)
{
	int rc = param_check(t, out, HIP_PARAM_NAT_TRAVERSAL_MODE);

	if (rc != HIP_OK)
		return rc;
	return list_parse(t, 2, 2, out->modes, HIP_NAT_MODES_MAX, true, &out->n, &out->dropped);
}

int
hip_nat_traversal_mode_put(struct hip_builder *b, const struct hip_nat_traversal_mode *in)
{
	if (in == NULL)
		return param_fail(b, HIP_E_ARG);
	return list_put(b, HIP_PARAM_NAT_TRAVERSAL_MODE, 2, 2, in->modes, in->n, HIP_NAT_MODES_MAX);
}

bool
hip_nat_traversal_mode_has(const struct hip_nat_traversal_mode *m, uint16_t mode)
{
	for (unsigned x = 0; m != NULL && x < m->n; x++)
		if (m->modes[x] == mode)
			return true;
	return false;
}
