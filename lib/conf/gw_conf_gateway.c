/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: the keys of [gateway] with a parser of their own (hi,
 * sa-lifetime, pmtu-age); the others are generic rows of conf_keys.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gw_conf_internal.h"

/* The Host Identity key file: only its existence and mode are checked here
 * (the same rules as hip_hi_load, which reads it when hipgw starts). */
static int
check_hi_file(struct loader *L, unsigned line, const char *path)
{
	size_t len = strlen(path);
	struct stat st;

	if (path[0] != '/' || path[len - 1] == '/')
		return conf_fail(L, line, "hi: '" ECHO "' is not an absolute file path", path);
	if (lstat(path, &st) != 0)
		return conf_fail(L, line, "hi: key file " ECHO ": %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return conf_fail(L, line, "hi: key file " ECHO " is a symbolic link (refused for a "
				 "private key)", path);
	if (!S_ISREG(st.st_mode))
		return conf_fail(L, line, "hi: key file " ECHO " is not a regular file", path);
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
		return conf_fail(L, line, "hi: key file " ECHO " has mode %04o: accessible by group or "
				 "others (chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* sa-lifetime: "3600s", "1GiB", "3600s, 1GiB" (either order). An element left
 * out is 0: no limit of that kind. */
static int
parse_lifetime(struct loader *L, unsigned line, const char *v, uint64_t *secs, uint64_t *bytes)
{
	static const struct { const char *unit; uint64_t mult; bool time; } units[] = {
		{ "s", 1, true }, { "m", 60, true }, { "h", 3600, true },
		{ "B", 1, false }, { "KiB", 1ull << 10, false }, { "MiB", 1ull << 20, false },
		{ "GiB", 1ull << 30, false }, { "TiB", 1ull << 40, false },
	};
	char *cur = L->tmp, *item;
	bool have_time = false, have_bytes = false;
	int r;

	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	*secs = *bytes = 0;
	while ((r = conf_list_next(&cur, &item)) != 0) {
		char num[16];
		size_t nd = 0, u;
		uint64_t x;

		if (r < 0)
			return conf_fail(L, line, "sa-lifetime: empty element in list");
		while (item[nd] >= '0' && item[nd] <= '9')
			nd++;
		for (u = 0; u < N_OF(units); u++)
			if (strcmp(item + nd, units[u].unit) == 0)
				break;
		if (nd == 0 || nd >= sizeof(num) || u == N_OF(units))
			return conf_fail(L, line, "sa-lifetime: '" ECHO "' is not a time (a number and s, m "
					 "or h: 3600s) or a byte count (a number and B, KiB, MiB, GiB or "
					 "TiB: 1GiB)", item);
		memcpy(num, item, nd);
		num[nd] = '\0';
		if (conf_parse_uint(num, false, &x) != 0)
			return conf_fail(L, line, "sa-lifetime: '" ECHO "': number not decimal without "
					 "leading zeros, or too long", item);
		if (units[u].time) {
			if (have_time)
				return conf_fail(L, line, "sa-lifetime: more than one time ('" ECHO "')", item);
			have_time = true;
			if (x == 0 || x > GW_CONF_LIFETIME_S_MAX / units[u].mult)
				return conf_fail(L, line, "sa-lifetime: time '" ECHO "' is not 1s..720h", item);
			*secs = x * units[u].mult;
		} else {
			if (have_bytes)
				return conf_fail(L, line, "sa-lifetime: more than one byte count ('" ECHO "')",
						 item);
			have_bytes = true;
			if (x > GW_CONF_LIFETIME_BYTES_MAX / units[u].mult ||
			    x * units[u].mult < GW_CONF_LIFETIME_BYTES_MIN)
				return conf_fail(L, line, "sa-lifetime: byte count '" ECHO "' is not "
						 "1KiB..1024TiB", item);
			*bytes = x * units[u].mult;
		}
	}
	return 0;
}

int
conf_gateway_hi(struct loader *L, const struct conf_key *k, unsigned line, const char *v, void *base)
{
	struct gw_config *cfg = base;

	(void)k;
	if (check_hi_file(L, line, v) != 0)
		return -1;
	snprintf(cfg->hi_path, sizeof(cfg->hi_path), "%s", v);
	cfg->hi_line = line;
	return 0;
}

int
conf_gateway_lifetime(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		      void *base)
{
	struct gw_config *cfg = base;

	(void)k;
	return parse_lifetime(L, line, v, &cfg->sa_lifetime_s, &cfg->sa_lifetime_bytes);
}

/* pmtu-age: a number, with its own message below RFC 8201's 5 minutes. */
int
conf_gateway_pmtu_age(struct loader *L, const struct conf_key *k, unsigned line, const char *v,
		      void *base)
{
	uint64_t x;

	if (conf_parse_uint(v, false, &x) == 0 && x < k->lo)
		return conf_fail(L, line, "pmtu-age: %" PRIu64 " s is below the 5 minutes of "
				 "RFC 8201 section 4 (300..86400)", x);
	return conf_key_number(L, k, line, v, base);
}
