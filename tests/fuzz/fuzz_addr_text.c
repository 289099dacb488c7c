/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness for lib/core's address text parsers (gw_addr_parse,
 * gw_prefix_parse), which read the parameters of telemetry
 * /hipgw/set_address: the input, as a NUL-terminated string in a heap copy
 * of its exact size (a read past it is an ASan report), parsed twice (same
 * verdict, same result); a refusal leaves all zero; an accepted prefix has
 * family 4 or 6 and a length within it, and its text (gw_addr_str "/" len)
 * parses back to the same prefix; an accepted address likewise.
 */
#include "fuzz_common.h"
#include "gw_types.h"

static void
check_prefix(const char *s)
{
	struct gw_prefix p, q, r;
	char b[GW_ADDR_TEXT_MAX + 8], a[GW_ADDR_TEXT_MAX];
	int rc = gw_prefix_parse(s, &p), rc2 = gw_prefix_parse(s, &q);

	if (rc != rc2 || memcmp(&p, &q, sizeof(p)) != 0)
		FUZZ_FAIL("two prefix parses differ: %d %d", rc, rc2);
	if (rc != 0) {
		if (rc != -1 || !fuzz_all_zero(&p, sizeof(p)))
			FUZZ_FAIL("a refused prefix left %d and bytes", rc);
		return;
	}
	if ((p.a.family != 4 && p.a.family != 6) || p.len > (p.a.family == 4 ? 32 : 128) ||
	    (p.a.family == 4 && !fuzz_all_zero(p.a.addr + 4, 12)))
		FUZZ_FAIL("accepted prefix family %u len %u", p.a.family, p.len);
	snprintf(b, sizeof(b), "%s/%u", gw_addr_str(&p.a, a, sizeof(a)), p.len);
	if (gw_prefix_parse(b, &r) != 0 || memcmp(&p, &r, sizeof(p)) != 0)
		FUZZ_FAIL("'%s' does not parse back to the same prefix", b);
}

static void
check_addr(const char *s)
{
	struct gw_addr p, q, r;
	char a[GW_ADDR_TEXT_MAX];
	int rc = gw_addr_parse(s, &p), rc2 = gw_addr_parse(s, &q);

	if (rc != rc2 || memcmp(&p, &q, sizeof(p)) != 0)
		FUZZ_FAIL("two address parses differ: %d %d", rc, rc2);
	if (rc != 0) {
		if (rc != -1 || !fuzz_all_zero(&p, sizeof(p)))
			FUZZ_FAIL("a refused address left %d and bytes", rc);
		return;
	}
	if (p.family != 4 && p.family != 6)
		FUZZ_FAIL("accepted address family %u", p.family);
	gw_addr_str(&p, a, sizeof(a));
	if (gw_addr_parse(a, &r) != 0 || memcmp(&p, &r, sizeof(p)) != 0)
		FUZZ_FAIL("'%s' does not parse back to the same address", a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size > 256)
		return 0;
	s = malloc(size + 1);
	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	check_prefix(s);
	check_addr(s);
	free(s);
	return 0;
}
