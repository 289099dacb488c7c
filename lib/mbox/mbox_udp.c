/* SPDX-License-Identifier: BSD-3-Clause
 * HIP over UDP into the tracker (mbox_hip_udp_input, mbox_track.h): RFC 5770
 * (and RFC 9028's native mode) carries a HIP packet in a UDP datagram to
 * or from port 10500 behind a 32-bit zero "non-ESP marker", where ESP over
 * the same port has its SPI, never 0 (RFC 3948 2.1). The box checks the UDP
 * header (length, checksum) and the marker here; the HIP packet after it then
 * takes the plain path (mbox_input) without its own checksum, which RFC 5770
 * senders leave 0: the UDP checksum covers the packet instead.
 */
#include <string.h>

#include "hipgw_wire.h"
#include "mbox_internal.h"

#define UDP_OFF_LEN    4            /* bytes into the UDP header: Length */
#define UDP_OFF_CKSUM  6            /* ... Checksum */

/* The one's complement sum of b[0..n) (16-bit big-endian words, an odd last
 * byte padded with 0) added to sum, not folded. */
static uint64_t
sum16(uint64_t sum, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (i < n)
		sum += (uint32_t)b[i] << 8;
	return sum;
}

/* The UDP checksum of the datagram u[0..len) (its Checksum field as it is)
 * with the pseudo header of src and dst (RFC 768; RFC 8200 8.1): true when it
 * sums to 0xffff. A zero field is "no checksum", allowed over IPv4 only. */
static bool
udp_cksum_ok(const struct gw_addr *src, const struct gw_addr *dst, const uint8_t *u, size_t len)
{
	size_t al = src->family == 4 ? 4 : 16;
	uint64_t s;

	if (u[UDP_OFF_CKSUM] == 0 && u[UDP_OFF_CKSUM + 1] == 0)
		return src->family == 4;
	s = sum16(0, src->addr, al);
	s = sum16(s, dst->addr, al);
	s += GW_IPPROTO_UDP + (uint64_t)len;
	s = sum16(s, u, len);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

enum mbox_verdict
mbox_hip_udp_input(struct mbox_tracker *t, const struct gw_addr *src, const struct gw_addr *dst,
		   const uint8_t *udp, size_t len, uint64_t now_ns, unsigned *why)
{
	static const uint8_t marker[GW_UDP_NON_ESP_MARKER_LEN];
	const size_t skip = GW_UDP_HDR_LEN + GW_UDP_NON_ESP_MARKER_LEN;

	if (t == NULL) {
		if (why != NULL)
			*why = MBOX_DROP_MALFORMED;
		return MBOX_DROP;
	}
	t->st.udp++;
	if (src == NULL || dst == NULL || udp == NULL || src->family != dst->family ||
	    (src->family != 4 && src->family != 6))
		return mbox_count_drop(t, MBOX_DROP_MALFORMED, why);
	if (len < skip + HIP_HDR_LEN || len > UINT16_MAX ||
	    ((size_t)udp[UDP_OFF_LEN] << 8 | udp[UDP_OFF_LEN + 1]) != len ||
	    memcmp(udp + GW_UDP_HDR_LEN, marker, sizeof(marker)) != 0)
		return mbox_count_drop(t, MBOX_DROP_UDP_BAD, why);
	if (!udp_cksum_ok(src, dst, udp, len))
		return mbox_count_drop(t, MBOX_DROP_UDP_CKSUM, why);
	return mbox_input(t, src, dst, udp + skip, len - skip, now_ns, true, why);
}
