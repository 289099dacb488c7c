/* SPDX-License-Identifier: BSD-3-Clause
 * Helpers shared by the hipwire unit tests (test_hipwire*.c).
 */
#ifndef HIPGW_HIPWIRE_TESTUTIL_H
#define HIPGW_HIPWIRE_TESTUTIL_H

#include <stdint.h>
#include <string.h>

#include "hip_packet.h"

#define HWT_UNUSED __attribute__((unused))

/* Two HITs of suite 1, IPv4 / IPv6 documentation addresses. */
static const uint8_t HWT_UNUSED HIT_S[16] = {
	0x20, 0x01, 0x00, 0x21, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb };
static const uint8_t HWT_UNUSED HIT_R[16] = {
	0x20, 0x01, 0x00, 0x21, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77 };
static const uint8_t HWT_UNUSED V4_S[4] = { 192, 0, 2, 1 };
static const uint8_t HWT_UNUSED V4_D[4] = { 198, 51, 100, 1 };
static const uint8_t HWT_UNUSED V6_S[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t HWT_UNUSED V6_D[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* Fill buf with a recognisable pattern. */
static inline void
pattern(uint8_t *buf, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(seed + 7 * i);
}

/* A bare header of `len` bytes (HL from len) for error tests, zero params area. */
static inline void
mk_hdr(uint8_t *buf, size_t len)
{
	memset(buf, 0, len);
	buf[0] = 59;
	buf[1] = (uint8_t)(len / 8 - 1);
	buf[2] = HIP_I1;
	buf[3] = HIP_VERSION_BYTE;
}

/* Append a raw TLV at buf[off] (no ordering checks); returns new offset. */
static inline size_t
raw_tlv(uint8_t *buf, size_t off, uint16_t type, uint16_t len, const uint8_t *val)
{
	hip_put16(buf + off, type);
	hip_put16(buf + off + 2, len);
	if (len)
		memcpy(buf + off + 4, val, len);
	memset(buf + off + 4 + len, 0, hip_tlv_total(len) - 4 - len);
	return off + hip_tlv_total(len);
}

#endif
