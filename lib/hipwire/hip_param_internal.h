/* SPDX-License-Identifier: BSD-3-Clause
 * Helpers shared by hip_param_bex.c and hip_param_update.c (not installed API).
 */
#ifndef HIPGW_HIP_PARAM_INTERNAL_H
#define HIPGW_HIP_PARAM_INTERNAL_H

#include "hip_param.h"

/* Common start of a parser: arguments present, TLV of the expected type. */
static inline int
param_check(const struct hip_tlv *t, const void *out, uint16_t type)
{
	if (t == NULL || out == NULL || (t->value == NULL && t->len != 0))
		return HIP_E_ARG;
	return t->type == type ? HIP_OK : HIP_E_PARAM_TYPE;
}

/* Record err as the builder's sticky error (unless one is set) and return it. */
static inline int
param_fail(struct hip_builder *b, int err)
{
	if (b == NULL)
		return HIP_E_ARG;
	if (b->err == 0)
		b->err = err;
	return b->err;
}

static inline bool
rhash_len_ok(size_t rhash_len)
{
	return rhash_len == HIP_RHASH_LEN_SHA1 || rhash_len == HIP_RHASH_LEN_SHA256 ||
	       rhash_len == HIP_RHASH_LEN_SHA384;
}

#endif
