/* SPDX-License-Identifier: BSD-3-Clause
 * The Internet checksum of a 20-byte IPv4 header (RFC 1071, RFC 791 3.1), summed
 * in 32-bit words and folded: rte_raw_cksum goes 16 bits at a time, and every
 * forwarded or received packet's outer header is checked. Shared by the worker
 * (lib/dp) and ESP inbound (lib/esp).
 */
#ifndef HIPGW_CKSUM_H
#define HIPGW_CKSUM_H

#include <stdint.h>
#include <string.h>

/* hdr: 20 bytes (no options), any alignment. Returns the folded 16-bit
 * one's-complement sum (host order of the 16-bit words as stored): 0xffff
 * over a header whose checksum field is right. */
static inline uint16_t
gw_ipv4_sum20(const void *hdr)
{
	uint32_t w[5];
	uint64_t s;

	memcpy(w, hdr, sizeof(w));
	s = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

#endif
