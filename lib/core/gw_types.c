/* SPDX-License-Identifier: BSD-3-Clause
 * Operations on the basic types of gw_types.h.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "gw_types.h"

char *
gw_addr_str(const struct gw_addr *a, char *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return buf;
	buf[0] = '\0';
	if (a == NULL || (a->family != 4 && a->family != 6)) {
		snprintf(buf, len, "unset");
		return buf;
	}
	if (inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->addr, buf, (socklen_t)len) == NULL)
		buf[0] = '\0';
	return buf;
}

static unsigned
family_bits(uint8_t family)
{
	return family == 4 ? 32 : 128;
}

/* First `len` bits of x and y equal. */
static bool
bits_equal(const uint8_t *x, const uint8_t *y, unsigned len)
{
	unsigned bytes = len / 8, rem = len % 8;

	if (memcmp(x, y, bytes) != 0)
		return false;
	if (rem == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rem));
	return ((x[bytes] ^ y[bytes]) & mask) == 0;
}

bool
gw_prefix_contains(const struct gw_prefix *p, const struct gw_addr *a)
{
	if (p == NULL || a == NULL || p->a.family != a->family)
		return false;
	if ((a->family != 4 && a->family != 6) || p->len > family_bits(a->family))
		return false;
	return bits_equal(p->a.addr, a->addr, p->len);
}

bool
gw_prefix_overlap(const struct gw_prefix *p, const struct gw_prefix *q)
{
	if (p == NULL || q == NULL || p->a.family != q->a.family)
		return false;
	if ((p->a.family != 4 && p->a.family != 6))
		return false;
	unsigned bits = family_bits(p->a.family);
	if (p->len > bits || q->len > bits)
		return false;
	return bits_equal(p->a.addr, q->a.addr, p->len < q->len ? p->len : q->len);
}

int
gw_addr_parse(const char *s, struct gw_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (s == NULL)
		return -1;
	if (strchr(s, ':') != NULL) {
		if (inet_pton(AF_INET6, s, a->addr) != 1)
			return -1;
		a->family = 6;
		return 0;
	}
	if (inet_pton(AF_INET, s, a->addr) != 1)
		return -1;
	a->family = 4;
	return 0;
}

int
gw_prefix_parse(const char *s, struct gw_prefix *p)
{
	char buf[GW_ADDR_TEXT_MAX];
	const char *slash = s != NULL ? strchr(s, '/') : NULL;
	size_t n;
	unsigned len = 0, digits = 0;

	memset(p, 0, sizeof(*p));
	if (slash == NULL || (n = (size_t)(slash - s)) >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (const char *d = slash + 1; *d != '\0'; d++, digits++) {
		if (*d < '0' || *d > '9' || digits == 3)
			return -1;
		len = len * 10 + (unsigned)(*d - '0');
	}
	if (digits == 0 || gw_addr_parse(buf, &p->a) != 0 || len > (p->a.family == 4 ? 32u : 128u)) {
		memset(p, 0, sizeof(*p));
		return -1;
	}
	p->len = (uint8_t)len;
	return 0;
}
