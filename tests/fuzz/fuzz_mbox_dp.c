/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the middlebox's frame classifier of lib/dp (gw_mbox.c,
 * through gw_mbox_esp_key: Ethernet and up to two VLAN tags, IPv4 and its
 * fragments, IPv6 and its extension headers and Fragment header, ICMP
 * errors' quotes, HIP) on arbitrary bytes.
 *
 * Input: an Ethernet frame as a bridged port receives it.
 *
 * Checked on every input: two calls give the same verdict and key; a key
 * taken is of family 4 or 6 with its padding zero (IPv4: the 12 bytes after
 * the address too), its SPI is 4 bytes of the frame (big-endian) and its
 * destination 4 or 16 bytes of the frame, as the worker copied them; no
 * frame shorter than Ethernet + an IPv4 header + the ESP header is taken. The buffer is a heap copy of exactly the
 * input's length (fuzz_copy), so that AddressSanitizer sees a read past it.
 */
#include "fuzz_common.h"
#include "gw_mbox.h"
#include "hipgw_wire.h"

#define ETH_BYTES 14

/* True when the n bytes at needle occur in hay (len bytes). */
static bool
occurs(const uint8_t *hay, size_t len, const uint8_t *needle, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(hay + i, needle, n) == 0)
			return true;
	return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *f = fuzz_copy(data, size);
	struct gw_mbox_flow_key a, b;
	bool ta, tb;
	uint8_t spi[4];

	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	ta = gw_mbox_esp_key(f, (uint32_t)size, &a);
	tb = gw_mbox_esp_key(f, (uint32_t)size, &b);
	if (ta != tb || (ta && memcmp(&a, &b, sizeof(a)) != 0))
		FUZZ_FAIL("two calls disagree");
	if (ta) {
		if (size < ETH_BYTES + GW_IPV4_HDR_LEN + GW_ESP_HDR_LEN)
			FUZZ_FAIL("a %zu-byte frame taken as ESP", size);
		if ((a.family != 4 && a.family != 6) || !fuzz_all_zero(a.pad, sizeof(a.pad)) ||
		    (a.family == 4 && !fuzz_all_zero(a.dst + 4, sizeof(a.dst) - 4)))
			FUZZ_FAIL("key of family %u with padding not zero", a.family);
		spi[0] = (uint8_t)(a.spi >> 24);
		spi[1] = (uint8_t)(a.spi >> 16);
		spi[2] = (uint8_t)(a.spi >> 8);
		spi[3] = (uint8_t)a.spi;
		if (!occurs(f, size, spi, 4) || !occurs(f, size, a.dst, a.family == 4 ? 4 : 16))
			FUZZ_FAIL("SPI or destination not from the frame");
	}
	free(f);
	return 0;
}
