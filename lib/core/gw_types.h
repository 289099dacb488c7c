/* SPDX-License-Identifier: BSD-3-Clause
 * Basic types every layer uses: IPv4/IPv6 addresses and prefixes, port roles,
 * SA directions and ESP suites, and the few operations on them. Plain C, no
 * DPDK: lib/hip and lib/conf use it as well as the data path.
 */
#ifndef HIPGW_TYPES_H
#define HIPGW_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* An IPv4 or IPv6 address; IPv4 sits in addr[0..3], network byte order. */
struct gw_addr {
	uint8_t family;       /* 4 or 6; 0 = unset */
	uint8_t addr[16];
};

/* Same family and the same address: the family's 4 or 16 bytes (an IPv4
 * address's other 12 bytes are not compared). */
static inline bool
gw_addr_eq(const struct gw_addr *a, const struct gw_addr *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, a->family == 4 ? 4 : 16) == 0;
}

/* A prefix: address and length in bits (0..32 or 0..128); host bits are zero
 * except for port addresses, which keep the host part (10.1.0.1/24). */
struct gw_prefix {
	struct gw_addr a;
	uint8_t len;
};

/* The side of the gateway a port is on: inner (the site) or outer (the WAN). */
enum gw_role { GW_ROLE_INNER = 0, GW_ROLE_OUTER = 1 };

/* Direction of an SA: out (encrypts towards the peer) or in (decrypts). */
enum gw_dir { GW_DIR_OUT = 0, GW_DIR_IN = 1 };

/* ESP suites (names as in the config: gw_suite_name). */
enum gw_suite {
	GW_SUITE_AES128_GCM16 = 0,   /* key 16 + salt 4 */
	GW_SUITE_AES256_GCM16,       /* key 32 + salt 4 */
	GW_SUITE_AES128_CBC_SHA256,  /* key 16, auth-key 32 */
	GW_SUITE_AES256_CBC_SHA256,  /* key 32, auth-key 32 */
	GW_SUITE_NULL_SHA256,        /* no key, auth-key 32 */
	GW_SUITE_MAX
};

/* Format an address ("10.1.0.1", "fd00:1::1"; "unset" for family 0) into buf
 * (>= 46 bytes, INET6_ADDRSTRLEN). Returns buf; "" when len is too small. */
char *gw_addr_str(const struct gw_addr *a, char *buf, size_t len);

/* Parse an address as text ("192.0.2.1", "2001:db8::1"; inet_pton) into *a.
 * Returns 0, or -1 (then *a is all zero). */
int gw_addr_parse(const char *s, struct gw_addr *a);
#define GW_ADDR_TEXT_MAX 46   /* bytes of an address as text with its NUL (INET6_ADDRSTRLEN) */
/* Parse "ADDRESS/LENGTH" (host part kept, length 0..32 / 0..128, decimal)
 * into *p. Returns 0, or -1 (then *p is all zero). */
int gw_prefix_parse(const char *s, struct gw_prefix *p);

/* True when `a` lies inside prefix `p` (same family, first p->len bits equal);
 * false for NULL, a family other than 4 or 6, or a length beyond the family's. */
bool gw_prefix_contains(const struct gw_prefix *p, const struct gw_addr *a);

/* True when the two prefixes share an address (same family; the shorter one
 * contains the network of the longer one). */
bool gw_prefix_overlap(const struct gw_prefix *p, const struct gw_prefix *q);

#endif
