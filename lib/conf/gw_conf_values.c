/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: value parsers (numbers, lists, addresses, prefixes, MACs, hex
 * keys, choices) and the generic parsers of conf_keys rows. Each reports its
 * own error as FILE:LINE: message through conf_fail.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"

int __attribute__((format(printf, 3, 4)))
conf_fail(struct loader *L, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (L->err == NULL || L->errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(L->err, L->errlen, "%s:%u: %s", L->path ? L->path : "(null)", line, msg);
	/* one line, whatever the path holds */
	for (char *c = L->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* ---------- small parsers -------------------------------------------------- */

bool
conf_is_ws(char c)
{
	return c == ' ' || c == '\t';
}

char *
conf_trim(char *s)
{
	char *e;

	while (conf_is_ws(*s))
		s++;
	e = s + strlen(s);
	while (e > s && conf_is_ws(e[-1]))
		*--e = '\0';
	return s;
}

/* Next comma-separated element of *cur (modified in place), trimmed.
 * Returns 1 with *item set, 0 at the end, -1 for an empty element. */
int
conf_list_next(char **cur, char **item)
{
	char *p = *cur, *comma;

	if (p == NULL)
		return 0;
	comma = strchr(p, ',');
	if (comma != NULL) {
		*comma = '\0';
		*cur = comma + 1;
	} else {
		*cur = NULL;
	}
	p = conf_trim(p);
	if (*p == '\0')
		return -1;
	*item = p;
	return 1;
}

/* Split s (modified) into whitespace-separated words; returns their number,
 * max + 1 when there are more than max. */
unsigned
conf_split_words(char *s, char **w, unsigned max)
{
	unsigned n = 0;

	for (;;) {
		while (conf_is_ws(*s))
			*s++ = '\0';
		if (*s == '\0')
			return n;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s != '\0' && !conf_is_ws(*s))
			s++;
	}
}

/* Decimal without leading zeros, or (hex_ok) 0x followed by 1..8 hex digits. */
int
conf_parse_uint(const char *s, bool hex_ok, uint64_t *out)
{
	uint64_t v = 0;
	size_t n;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n = strlen(s);
		if (n == 0 || n > 8)
			return -1;
		for (; *s; s++) {
			int d;
			if (*s >= '0' && *s <= '9')
				d = *s - '0';
			else if (*s >= 'a' && *s <= 'f')
				d = *s - 'a' + 10;
			else if (*s >= 'A' && *s <= 'F')
				d = *s - 'A' + 10;
			else
				return -1;
			v = v * 16 + (uint64_t)d;
		}
		*out = v;
		return 0;
	}
	n = strlen(s);
	if (n == 0 || n > 10 || (s[0] == '0' && n > 1))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "0x" + an even, non-zero number of hex digits. Never quotes the value. */
int
conf_parse_hex_key(struct loader *L, unsigned line, const char *what, const char *s,
		   uint8_t *out, size_t max, size_t *len)
{
	size_t n, i;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return conf_fail(L, line, "%s must be hex digits after 0x", what);
	s += 2;
	n = strlen(s);
	for (i = 0; i < n; i++)
		if (hexval(s[i]) < 0)
			return conf_fail(L, line, "%s: character %zu is not a hex digit", what, i + 3);
	if (n == 0)
		return conf_fail(L, line, "%s has no hex digits after 0x", what);
	if (n % 2 != 0)
		return conf_fail(L, line, "%s has an odd number of hex digits (%zu)", what, n);
	if (n / 2 > max)
		return conf_fail(L, line, "%s is too long (%zu bytes)", what, n / 2);
	for (i = 0; i < n / 2; i++)
		out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
	*len = n / 2;
	return 0;
}

static unsigned
family_bits(uint8_t family)
{
	return family == 4 ? 32 : 128;
}

bool
conf_addr_eq(const struct gw_addr *a, const struct gw_addr *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, 16) == 0;
}

/* Bits of a beyond `len` are all zero (ones: all one). */
static bool
host_bits_all(const struct gw_addr *a, unsigned len, bool ones)
{
	unsigned bits = family_bits(a->family);

	for (unsigned i = len; i < bits; i++) {
		bool set = (a->addr[i / 8] >> (7 - i % 8)) & 1;
		if (set != ones)
			return false;
	}
	return true;
}

static void
clear_host_bits(struct gw_addr *a, unsigned len)
{
	unsigned bits = family_bits(a->family);

	for (unsigned i = len; i < bits; i++)
		a->addr[i / 8] &= (uint8_t)~(1u << (7 - i % 8));
}

bool
conf_is_unicast(const struct gw_addr *a)
{
	static const uint8_t zero[16];

	if (a->family == 4) {
		if (memcmp(a->addr, zero, 4) == 0)
			return false;
		if (a->addr[0] >= 224 || a->addr[0] == 127)   /* multicast, class E, broadcast, loopback */
			return false;
		return true;
	}
	if (memcmp(a->addr, zero, 16) == 0)
		return false;
	if (a->addr[0] == 0xff)
		return false;
	if (memcmp(a->addr, zero, 15) == 0 && a->addr[15] == 1)
		return false;
	return true;
}

bool
conf_is_v6_link_local(const struct gw_addr *a)
{
	return a->family == 6 && a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80;
}

const char *
conf_addr_str(const struct gw_addr *a, char *buf)
{
	return gw_addr_str(a, buf, INET6_ADDRSTRLEN);
}

const char *
conf_prefix_str(const struct gw_prefix *p, char *buf)
{
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, INET6_ADDRSTRLEN + 5, "%s/%u", conf_addr_str(&p->a, a), p->len);
	return buf;
}

#define PFX_STRLEN (INET6_ADDRSTRLEN + 5)

/* An address (unicast) on its own. */
int
conf_parse_unicast(struct loader *L, unsigned line, const char *what, const char *s,
		   struct gw_addr *a)
{
	if (gw_addr_parse(s, a) != 0)
		return conf_fail(L, line, "%s: '" ECHO "' is not an IPv4 or IPv6 address", what, s);
	if (!conf_is_unicast(a))
		return conf_fail(L, line, "%s: '" ECHO "' is not a unicast address", what, s);
	return 0;
}

/* ADDRESS/LEN. iface: an interface address (host part kept, must be a usable
 * unicast address); else a network (host bits must be zero). */
int
conf_parse_prefix(struct loader *L, unsigned line, const char *what, const char *s,
		  struct gw_prefix *p, bool iface)
{
	char buf[64];
	char *slash;
	uint64_t len;
	unsigned bits;

	memset(p, 0, sizeof(*p));
	if (strlen(s) >= sizeof(buf))
		return conf_fail(L, line, "%s: '" ECHO "' is not a prefix (ADDRESS/LENGTH)", what, s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return conf_fail(L, line, "%s: '" ECHO "' needs a prefix length (ADDRESS/LENGTH)", what, s);
	*slash = '\0';
	if (gw_addr_parse(buf, &p->a) != 0)
		return conf_fail(L, line, "%s: '" ECHO "' is not an IPv4 or IPv6 address", what, buf);
	bits = family_bits(p->a.family);
	if (conf_parse_uint(slash + 1, false, &len) != 0 || len > bits)
		return conf_fail(L, line, "%s: prefix length in '" ECHO "' must be 0..%u", what, s, bits);
	p->len = (uint8_t)len;
	if (iface) {
		if (len == 0)
			return conf_fail(L, line, "%s: '" ECHO "': an interface network cannot be /0", what, s);
		if (!conf_is_unicast(&p->a))
			return conf_fail(L, line, "%s: '" ECHO "' is not a unicast address", what, s);
		if (p->a.family == 4 && len <= 30) {
			if (host_bits_all(&p->a, p->len, false))
				return conf_fail(L, line, "%s: '" ECHO "' is the network address, not an "
						 "interface address", what, s);
			if (host_bits_all(&p->a, p->len, true))
				return conf_fail(L, line, "%s: '" ECHO "' is the broadcast address, not an "
						 "interface address", what, s);
		}
	} else if (!host_bits_all(&p->a, p->len, false)) {
		struct gw_prefix net = *p;
		char n[PFX_STRLEN];

		clear_host_bits(&net.a, net.len);
		return conf_fail(L, line, "%s: '" ECHO "' has host bits set (network %s?)", what, s,
				 conf_prefix_str(&net, n));
	}
	return 0;
}

int
conf_parse_list(struct loader *L, unsigned line, const char *what, const char *v,
		unsigned max, const char *noun, unsigned *n, conf_item_fn *fn, void *ctx)
{
	char *cur = L->tmp, *item;
	int r;

	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	while ((r = conf_list_next(&cur, &item)) != 0) {
		if (r < 0)
			return conf_fail(L, line, "%s: empty element in list", what);
		if (*n == max)
			return conf_fail(L, line, "%s: more than %u %s", what, max, noun);
		if (fn(L, line, what, item, *n, ctx) != 0)
			return -1;
		(*n)++;
	}
	return 0;
}

/* Element n of a prefix list (ctx: the array): a network, not listed before. */
static int
prefix_item(struct loader *L, unsigned line, const char *what, char *item, unsigned n,
	    void *ctx)
{
	struct gw_prefix *out = ctx;

	if (conf_parse_prefix(L, line, what, item, &out[n], false) != 0)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (out[i].len == out[n].len && conf_addr_eq(&out[i].a, &out[n].a))
			return conf_fail(L, line, "%s: '" ECHO "' is listed twice", what, item);
	return 0;
}

/* A comma-separated list of network prefixes, no duplicates. */
int
conf_parse_prefix_list(struct loader *L, unsigned line, const char *what, const char *v,
		       struct gw_prefix *out, unsigned max, unsigned *n)
{
	*n = 0;
	return conf_parse_list(L, line, what, v, max, "prefixes", n, prefix_item, out);
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	if (strlen(s) != 17)
		return -1;
	for (int i = 0; i < 6; i++) {
		int hi = hexval(s[3 * i]), lo = hexval(s[3 * i + 1]);
		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return -1;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int
conf_parse_unicast_mac(struct loader *L, unsigned line, const char *what, const char *s, uint8_t mac[6])
{
	static const uint8_t zero[6];

	if (parse_mac(s, mac) != 0)
		return conf_fail(L, line, "%s: '" ECHO "' is not a MAC address (xx:xx:xx:xx:xx:xx)", what, s);
	if ((mac[0] & 1) || memcmp(mac, zero, 6) == 0)
		return conf_fail(L, line, "%s: '" ECHO "' is not a unicast MAC address", what, s);
	return 0;
}

int
conf_parse_choice(struct loader *L, unsigned line, const char *what, const char *v,
		  const char *const *names, unsigned n, unsigned *out)
{
	char list[128] = "";

	for (unsigned i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0) {
			*out = i;
			return 0;
		}
	for (unsigned i = 0; i < n; i++) {
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
		if (i + 1 < n)
			strncat(list, " | ", sizeof(list) - strlen(list) - 1);
	}
	return conf_fail(L, line, "%s: '" ECHO "' is not one of %s", what, v, list);
}

/* A decimal number lo..hi for key `what`; the message names the range. */
int
conf_parse_uint_in(struct loader *L, unsigned line, const char *what, const char *v, uint64_t lo,
		   uint64_t hi, uint64_t *out)
{
	if (conf_parse_uint(v, false, out) != 0 || *out < lo || *out > hi)
		return conf_fail(L, line, "%s: '" ECHO "' is not a number %" PRIu64 "..%" PRIu64, what, v,
				 lo, hi);
	return 0;
}

/* replay-window: 0 (off) or a multiple of 64 up to GW_CONF_REPLAY_MAX packets. */
int
conf_parse_replay_window(struct loader *L, unsigned line, const char *v, uint32_t *out)
{
	uint64_t x;

	if (conf_parse_uint(v, false, &x) != 0 || x > GW_CONF_REPLAY_MAX || x % 64 != 0)
		return conf_fail(L, line, "replay-window: '" ECHO "' is not 0 or a multiple of 64 "
				 "up to %d", v, GW_CONF_REPLAY_MAX);
	*out = (uint32_t)x;
	return 0;
}

/* A comma-separated list of algorithm names from table t, each once, into
 * their IDs in the order given. */
int
conf_parse_id_list(struct loader *L, unsigned line, const char *what, const char *v,
		   const struct id_name *t, size_t nt, uint16_t *out, unsigned max, unsigned *n)
{
	char *cur = L->tmp, *item;
	int r;

	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	*n = 0;
	while ((r = conf_list_next(&cur, &item)) != 0) {
		size_t i;

		if (r < 0)
			return conf_fail(L, line, "%s: empty element in list", what);
		for (i = 0; i < nt; i++)
			if (strcmp(item, t[i].name) == 0)
				break;
		if (i == nt) {
			char list[160] = "";

			for (size_t j = 0; j < nt; j++) {
				strncat(list, t[j].name, sizeof(list) - strlen(list) - 1);
				if (j + 1 < nt)
					strncat(list, " | ", sizeof(list) - strlen(list) - 1);
			}
			return conf_fail(L, line, "%s: '" ECHO "' is not one of %s", what, item, list);
		}
		for (unsigned j = 0; j < *n; j++)
			if (out[j] == t[i].id)
				return conf_fail(L, line, "%s: '" ECHO "' is listed twice", what, item);
		if (*n == max)
			return conf_fail(L, line, "%s: more than %u names", what, max);
		out[(*n)++] = t[i].id;
	}
	return 0;
}

/* A seed: 0..2^32-1, decimal or 0x hex. */
int
conf_parse_seed(struct loader *L, unsigned line, const char *what, const char *v, uint64_t *out)
{
	if (conf_parse_uint(v, true, out) != 0 || *out > UINT32_MAX)
		return conf_fail(L, line, "%s: '" ECHO "' is not a number 0..4294967295 (decimal or 0x hex)",
				 what, v);
	return 0;
}

/* ---------- generic parsers of conf_keys rows -------------------------------- */

static void *
field_of(void *base, const struct conf_key *k)
{
	return (char *)base + k->off;
}

static unsigned *
count_of(void *base, const struct conf_key *k)
{
	return (unsigned *)(void *)((char *)base + k->n_off);
}

/* Store x in a field of `size` bytes (1, 2, 4 or 8: bool, enum, uintN_t, unsigned). */
static void
store_uint(void *dst, size_t size, uint64_t x)
{
	uint8_t u8 = (uint8_t)x;
	uint16_t u16 = (uint16_t)x;
	uint32_t u32 = (uint32_t)x;

	switch (size) {
	case 1: memcpy(dst, &u8, 1); break;
	case 2: memcpy(dst, &u16, 2); break;
	case 4: memcpy(dst, &u32, 4); break;
	default: memcpy(dst, &x, 8); break;
	}
}

/* A decimal number k->lo..k->hi. */
int
conf_key_number(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		void *base)
{
	uint64_t x;

	if (conf_parse_uint_in(L, line, k->name, v, k->lo, k->hi, &x) != 0)
		return -1;
	store_uint(field_of(base, k), k->size, x);
	return 0;
}

/* One of the names k->set; the field gets its index (an enum in that order, or a bool). */
int
conf_key_choice(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		void *base)
{
	unsigned u;

	if (conf_parse_choice(L, line, k->name, v, k->set, k->n_set, &u) != 0)
		return -1;
	store_uint(field_of(base, k), k->size, u);
	return 0;
}

/* Text as it is (the pre-scan bounds it to CFG_VALUE_LEN - 1 bytes). */
int
conf_key_string(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		void *base)
{
	(void)L;
	(void)line;
	snprintf(field_of(base, k), k->size, "%s", v);
	return 0;
}

/* A unicast address (struct gw_addr). */
int
conf_key_unicast(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		 void *base)
{
	return conf_parse_unicast(L, line, k->name, v, field_of(base, k));
}

/* A list of network prefixes (struct gw_prefix), at most k->hi, none twice. */
int
conf_key_prefixes(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		  void *base)
{
	return conf_parse_prefix_list(L, line, k->name, v, field_of(base, k), (unsigned)k->hi,
				      count_of(base, k));
}

/* A list of algorithm names of k->set (struct id_name), at most k->hi, each
 * once; the field is an array of their IDs in the order given. */
int
conf_key_ids(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
	     void *base)
{
	uint16_t ids[GW_CONF_MAX_ESP_TRANSFORMS];
	unsigned *n = count_of(base, k);
	unsigned max = k->hi < N_OF(ids) ? (unsigned)k->hi : (unsigned)N_OF(ids);

	if (conf_parse_id_list(L, line, k->name, v, k->set, k->n_set, ids, max, n) != 0)
		return -1;
	for (unsigned j = 0; j < *n; j++)
		store_uint((char *)field_of(base, k) + j * k->size, k->size, ids[j]);
	return 0;
}

/* replay-window (uint32_t, packets). */
int
conf_key_replay(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		void *base)
{
	return conf_parse_replay_window(L, line, v, field_of(base, k));
}

/* A seed (uint64_t): 0..2^32-1, decimal or 0x hex. */
int
conf_key_seed(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
	      void *base)
{
	return conf_parse_seed(L, line, k->name, v, field_of(base, k));
}
