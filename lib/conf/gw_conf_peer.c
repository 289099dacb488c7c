/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: [peer NAME], a HIP peer gateway: hit, locator, local,
 * prefixes, and the checks of a whole peer section.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"
#include "hip_wire.h"

/* A HIT in IPv6 notation (hit = of [peer], [host]; [rule] initiator, responder): an ORCHIDv2 (RFC 7343 section 2: prefix 2001:20::/28)
 * whose OGA ID is a HIT suite of RFC 7401 section 5.2.10 (1 RSA/DSA SHA-256,
 * 2 ECDSA SHA-384, 3 ECDSA_LOW SHA-1: the ones lib/hipcrypto knows). */
int
conf_parse_hit(struct loader *L, unsigned line, const char *what, const char *v, uint8_t *out)
{
	struct gw_addr a;
	char s[INET6_ADDRSTRLEN];
	unsigned oga;

	if (strchr(v, ':') == NULL || gw_addr_parse(v, &a) != 0)
		return conf_fail(L, line, "%s: '" ECHO "' is not an IPv6 address (a HIT is written like "
				 "2001:2x:...; `hipgw hit KEYFILE` prints it)", what, v);
	if (!(a.addr[0] == 0x20 && a.addr[1] == 0x01 && a.addr[2] == 0x00 &&
	      (a.addr[3] & 0xf0) == 0x20))
		return conf_fail(L, line, "%s: %s is not an ORCHIDv2 HIT (not inside 2001:20::/28)",
				 what, conf_addr_str(&a, s));
	oga = a.addr[3] & 0x0f;
	if (oga < HIP_HIT_SUITE_RSA_DSA_SHA256 || oga > HIP_HIT_SUITE_ECDSA_LOW_SHA1)
		return conf_fail(L, line, "%s: %s has OGA ID %u, not a HIT suite (1 RSA/DSA-SHA256, "
				 "2 ECDSA-SHA384, 3 ECDSA_LOW-SHA1)", what, conf_addr_str(&a, s), oga);
	memcpy(out, a.addr, GW_CONF_HIT_LEN);
	return 0;
}

int
conf_peer_hit(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_peer *pe = base;

	return conf_parse_hit(L, line, k->name, v, pe->hit);
}

/* Element n of locator (ctx: the peer): a unicast address, not listed before. */
static int
locator_item(struct loader *L, unsigned line, const char *what, char *item, unsigned n,
	     void *ctx)
{
	struct gw_conf_peer *pe = ctx;

	if (conf_parse_unicast(L, line, what, item, &pe->locators[n]) != 0)
		return -1;
	for (unsigned j = 0; j < n; j++)
		if (conf_addr_eq(&pe->locators[j], &pe->locators[n]))
			return conf_fail(L, line, "%s: '" ECHO "' is listed twice", what, item);
	return 0;
}

/* locator = IP, ...: the peer's outer addresses, in order of preference. */
int
conf_peer_locators(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		   void *base)
{
	struct gw_conf_peer *pe = base;

	return conf_parse_list(L, line, k->name, v, (unsigned)k->hi, "addresses", &pe->n_locators,
			       locator_item, pe);
}

int
conf_peer_local(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_peer *pe = base;

	if (conf_key_unicast(L, k, line, v, base) != 0)
		return -1;
	pe->has_local = true;
	return 0;
}

/* prefixes: a prefix list whose prefixes do not overlap each other either. */
int
conf_peer_prefixes(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		   void *base)
{
	struct gw_conf_peer *pe = base;
	char a[PFX_STRLEN], b[PFX_STRLEN];

	if (conf_key_prefixes(L, k, line, v, base) != 0)
		return -1;
	for (unsigned x = 0; x < pe->n_prefixes; x++)
		for (unsigned y = 0; y < x; y++)
			if (gw_prefix_overlap(&pe->prefixes[x], &pe->prefixes[y]))
				return conf_fail(L, line, "prefixes: %s overlaps %s in the same list",
						 conf_prefix_str(&pe->prefixes[x], a),
						 conf_prefix_str(&pe->prefixes[y], b));
	return 0;
}

/* Checks that need the whole [peer] section (the rest needs the ports:
 * cross_check_peers). */
int
conf_peer_finish(struct loader *L, const struct sec *sec, void *base)
{
	struct gw_conf_peer *pe = base;
	char a[INET6_ADDRSTRLEN];
	bool fam = false;

	if (!pe->has_local)
		return 0;
	for (unsigned j = 0; j < pe->n_locators; j++)
		fam |= pe->locators[j].family == pe->local.family;
	if (!fam)
		return conf_fail(L, sec->key_line[K_PEER_LOCAL], "local: %s is IPv%u but no locator is",
				 conf_addr_str(&pe->local, a), pe->local.family);
	return 0;
}
