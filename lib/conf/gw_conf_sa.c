/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: [sa NAME], a manually keyed ESP SA: spi, the keys (checked
 * against the suite), state, and the checks of a whole SA section.
 */
#include <stdlib.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"
#include "hipgw_wire.h"

/* Key lengths per suite, bytes: cipher key (incl. GCM salt), HMAC key. */
static const struct { uint8_t key, auth; } suite_lens[GW_SUITE_MAX] = {
	[GW_SUITE_AES128_GCM16] = { 16 + 4, 0 },
	[GW_SUITE_AES256_GCM16] = { 32 + 4, 0 },
	[GW_SUITE_AES128_CBC_SHA256] = { 16, 32 },
	[GW_SUITE_AES256_CBC_SHA256] = { 32, 32 },
	[GW_SUITE_NULL_SHA256] = { 0, 32 },
};

int
conf_sa_spi(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_sa *sa = base;
	uint64_t x;

	if (conf_parse_uint(v, true, &x) != 0 || x < k->lo || x > k->hi)
		return conf_fail(L, line, "spi: '" ECHO "' is not a number %d..4294967295 "
				 "(decimal or 0x hex; 0..255 are reserved)", v, GW_CONF_SPI_MIN);
	sa->spi = (uint32_t)x;
	return 0;
}

/* udp-encap = SPORT,DPORT: both 1..65535 (RFC 3948; the HIP NAT port is
 * GW_HIP_UDP_PORT, RFC 5770). */
int
conf_sa_udp_encap(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		  void *base)
{
	struct gw_conf_sa *sa = base;
	const char *v0 = v;
	unsigned long sp, dp;
	char *end;

	(void)k;
	sp = strtoul(v, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == v || *v == '-' || *end != ',' || sp < 1 || sp > UINT16_MAX)
		goto bad;
	v = end + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	dp = strtoul(v, &end, 10);
	if (end == v || *end != '\0' || dp < 1 || dp > UINT16_MAX || *v == '-')
		goto bad;
	sa->udp_sport = (uint16_t)sp;
	sa->udp_dport = (uint16_t)dp;
	return 0;
bad:
	return conf_fail(L, line, "udp-encap: '" ECHO "' is not SPORT,DPORT (each 1..65535)", v0);
}

/* key, auth-key: the bytes wait in the loader until conf_sa_finish knows the suite. */
int
conf_sa_key(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	(void)k;
	(void)base;
	return conf_parse_hex_key(L, line, "key", v, L->key, sizeof(L->key), &L->key_len);
}

int
conf_sa_auth_key(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	(void)k;
	(void)base;
	return conf_parse_hex_key(L, line, "auth-key", v, L->auth_key, sizeof(L->auth_key),
				  &L->auth_key_len);
}

int
conf_sa_state(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_conf_sa *sa = base;
	size_t sl = strlen(v);

	(void)k;
	if (v[0] != '/' || v[sl - 1] == '/')
		return conf_fail(L, line, "state: '" ECHO "' is not an absolute file path", v);
	snprintf(sa->state, sizeof(sa->state), "%s", v);
	return 0;
}

/* The keys against the suite; then copied from the loader into the SA. */
static int
sa_check_keys(struct loader *L, const struct sec *sec, struct gw_conf_sa *sa)
{
	const unsigned *kl = sec->key_line;
	const char *sn = conf_suite_names[sa->suite];

	if (suite_lens[sa->suite].key == 0) {
		if (kl[K_KEY] != 0)
			return conf_fail(L, kl[K_KEY], "key: suite %s has no cipher key", sn);
	} else {
		if (kl[K_KEY] == 0)
			return conf_fail(L, sec->line, "[%s]: missing key 'key' (suite %s)", sec->cfgname, sn);
		if (L->key_len != suite_lens[sa->suite].key)
			return conf_fail(L, kl[K_KEY], "key: %s needs %u bytes%s, got %zu", sn,
					 suite_lens[sa->suite].key, conf_suite_is_gcm(sa->suite) ?
					 " (AES key + 4-byte salt)" : "", L->key_len);
	}
	if (suite_lens[sa->suite].auth == 0) {
		if (kl[K_AUTH_KEY] != 0)
			return conf_fail(L, kl[K_AUTH_KEY], "auth-key: suite %s has no separate "
					 "authentication key", sn);
	} else {
		if (kl[K_AUTH_KEY] == 0)
			return conf_fail(L, sec->line, "[%s]: missing key 'auth-key' (suite %s)",
					 sec->cfgname, sn);
		if (L->auth_key_len != suite_lens[sa->suite].auth)
			return conf_fail(L, kl[K_AUTH_KEY], "auth-key: %s needs %u bytes, got %zu", sn,
					 suite_lens[sa->suite].auth, L->auth_key_len);
	}
	memcpy(sa->key, L->key, L->key_len);
	sa->key_len = (uint8_t)L->key_len;
	memcpy(sa->auth_key, L->auth_key, L->auth_key_len);
	sa->auth_key_len = (uint8_t)L->auth_key_len;
	return 0;
}

/* Checks that need the whole [sa] section. */
int
conf_sa_finish(struct loader *L, const struct sec *sec, void *base)
{
	struct gw_conf_sa *sa = base;
	const unsigned *kl = sec->key_line;
	const char *sn = conf_suite_names[sa->suite];
	char s[INET6_ADDRSTRLEN];

	if (sa_check_keys(L, sec, sa) != 0)
		return -1;
	/* addresses */
	if (sa->local.family != sa->remote.family)
		return conf_fail(L, kl[K_REMOTE], "remote: %s is IPv%u but local is IPv%u",
				 conf_addr_str(&sa->remote, s), sa->remote.family, sa->local.family);
	if (conf_addr_eq(&sa->local, &sa->remote))
		return conf_fail(L, kl[K_REMOTE], "remote: same address as local");

	/* keys that belong to one direction */
	if (sa->dir == GW_DIR_OUT) {
		if (kl[K_LOCAL_PREFIXES] != 0)
			return conf_fail(L, kl[K_LOCAL_PREFIXES], "local-prefixes: only for direction = in");
		if (kl[K_REPLAY] != 0)
			return conf_fail(L, kl[K_REPLAY], "replay-window: only for direction = in");
		if (kl[K_STATE] != 0 && !conf_suite_is_gcm(sa->suite))
			return conf_fail(L, kl[K_STATE], "state: only for GCM suites (suite is %s)", sn);
		if (conf_suite_is_gcm(sa->suite) && kl[K_STATE] == 0)
			snprintf(sa->state, sizeof(sa->state), GW_CONF_STATE_DIR "%s.seq", sec->name);
		sa->replay_window = 0;      /* the default is the in SAs' */
	} else {
		if (kl[K_STATE] != 0)
			return conf_fail(L, kl[K_STATE], "state: only for direction = out");
		if (kl[K_UDP_ENCAP] != 0)
			return conf_fail(L, kl[K_UDP_ENCAP], "udp-encap: only for direction = out "
					 "(in SAs take ESP in UDP to port %u as it comes)", GW_HIP_UDP_PORT);
	}
	return 0;
}
