/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the path MTU ICMP parser of lib/ctrl (gw_pmtu_icmp.h,
 * RFC 1191 / RFC 4443 section 3.2 / RFC 8201) on arbitrary bytes, and the
 * recent-sequence test of lib/tables (gw_pmtu.h) on what it parsed.
 *
 * Input: an IPv4 or IPv6 packet from its IP header on, as an outer port
 * receives it (no Ethernet header).
 *
 * Checked on every input: gw_icmp_ptb_parse twice gives the same verdict and
 * fields; a refusal names GW_PMTU_REFUSED_MALFORMED or GW_PMTU_REFUSED_MTU; a
 * message it takes is one gw_icmp_is_ptb names, of the input's IP version
 * with all three addresses of it, with an MTU not 0, below the quoted length
 * and for IPv6 at least 1280. gw_pmtu_seq_recent for the parsed sequence
 * number, against next numbers taken from the input's last bytes, agrees with
 * a plain reference. Any mismatch aborts (a finding). The buffer handed to
 * lib/ctrl is a heap copy of exactly the input's length, so that
 * AddressSanitizer sees a read past it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_pmtu.h"
#include "gw_pmtu_icmp.h"
#include "hipgw_wire.h"

#define FAIL(...) do { fprintf(stderr, "fuzz_icmp_pmtu: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

/* The one sequence number whose low 32 bits are q32 and that lies in
 * [next - recent, next - 1] and above 0, looked for one by one (next and
 * recent small enough here). */
static bool
seq_recent_ref(uint64_t next, uint32_t q32, uint32_t recent)
{
	for (uint64_t k = 1; k <= recent && k < next; k++)
		if ((uint32_t)(next - k) == q32)
			return true;
	return false;
}

static void
check_seq(uint64_t next, uint32_t q32)
{
	static const uint32_t recents[] = { 1, 64, 1000 };

	for (size_t i = 0; i < sizeof(recents) / sizeof(recents[0]); i++)
		if (gw_pmtu_seq_recent(next, q32, recents[i]) != seq_recent_ref(next, q32, recents[i]))
			FAIL("gw_pmtu_seq_recent(%llu, %u, %u) disagrees with the reference",
			     (unsigned long long)next, q32, recents[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *ip = malloc(size != 0 ? size : 1);
	struct gw_icmp_ptb a, b;
	enum gw_pmtu_event wa = GW_PMTU_LOWERED, wb = GW_PMTU_LOWERED;
	uint32_t len = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	int ra, rb;

	if (ip == NULL)
		abort();
	if (size != 0)
		memcpy(ip, data, size);
	ra = gw_icmp_ptb_parse(ip, len, &a, &wa);
	rb = gw_icmp_ptb_parse(ip, len, &b, &wb);
	if (ra != rb || (ra != 0 && wa != wb) || (ra == 0 && memcmp(&a, &b, sizeof(a)) != 0))
		FAIL("two parses of one input differ");
	if (ra != 0) {
		if (wa != GW_PMTU_REFUSED_MALFORMED && wa != GW_PMTU_REFUSED_MTU)
			FAIL("refused as %s", gw_pmtu_event_name(wa));
	} else {
		uint8_t fam = gw_ip_version(ip);

		if (!gw_icmp_is_ptb(ip, len))
			FAIL("parsed a message gw_icmp_is_ptb does not name");
		if (a.local.family != fam || a.remote.family != fam || a.to.family != fam)
			FAIL("address families %u %u %u in an IPv%u packet", a.local.family,
			     a.remote.family, a.to.family, fam);
		if (a.mtu == 0 || a.mtu >= a.quoted_len || (fam == 6 && a.mtu < GW_IPV6_MIN_MTU))
			FAIL("took MTU %u for a quoted packet of %u bytes (IPv%u)", a.mtu,
			     a.quoted_len, fam);
		/* next sequence numbers near the parsed one, from the input's tail */
		for (size_t k = 0; k < 3; k++) {
			uint64_t d = size > k ? data[size - 1 - k] : 0;

			check_seq((uint64_t)a.seq + d, a.seq);
			check_seq(((uint64_t)1 << 32) + d, a.seq);
		}
	}
	free(ip);
	return 0;
}
