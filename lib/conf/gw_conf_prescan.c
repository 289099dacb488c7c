/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: the syntax pre-scan. Line by line, with line numbers: comments,
 * CRLF and a BOM, control characters, line and value lengths, section headers
 * and their names, keys known to the section kind, duplicates. What it accepts
 * goes into the loader's rte_cfgfile (gw_config.c says why not rte_cfgfile_load).
 */
#include <stdio.h>
#include <string.h>

#include "gw_conf_internal.h"

static bool
name_char_ok(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return !first && (c == '-' || c == '_' || c == '.');
}

/* `s` is the trimmed header text, '[' ... ']' included, NUL-terminated. */
static int
prescan_header(struct loader *L, unsigned line, char *s, struct sec **cur)
{
	size_t len = strlen(s);
	char *in, *type, *name;
	const struct sec_kind *kind;
	struct sec *sec;
	enum sec_type t;
	size_t i;

	if (len < 2 || s[len - 1] != ']')
		return conf_fail(L, line, "malformed section header (expected [TYPE] or [TYPE NAME])");
	s[len - 1] = '\0';
	in = conf_trim(s + 1);
	if (strchr(in, '[') != NULL || strchr(in, ']') != NULL)
		return conf_fail(L, line, "malformed section header (expected [TYPE] or [TYPE NAME])");
	type = in;
	for (name = in; *name != '\0' && !conf_is_ws(*name); name++)
		;
	if (*name != '\0')
		*name++ = '\0';
	name = conf_trim(name);

	for (i = 0; i < SEC_MAX; i++)
		if (strcmp(type, conf_kinds[i].name) == 0)
			break;
	if (i == SEC_MAX)
		return conf_fail(L, line, "unknown section type '" ECHO "' (expected [gateway], [port NAME], "
				 "[sa NAME], [peer NAME], [sa-gen NAME] or [policy])", type);
	t = (enum sec_type)i;
	kind = &conf_kinds[t];
	if (!kind->named && *name != '\0')
		return conf_fail(L, line, "[%s] takes no name", type);
	if (kind->named) {
		size_t nl = strlen(name);

		if (nl == 0)
			return conf_fail(L, line, "section [%s] needs a name: [%s NAME]", type, type);
		if (nl >= GW_CONF_NAME_MAX)
			return conf_fail(L, line, "section name '" ECHO "' longer than %d bytes", name,
					 GW_CONF_NAME_MAX - 1);
		for (size_t j = 0; j < nl; j++)
			if (!name_char_ok(name[j], j == 0))
				return conf_fail(L, line, "section name '" ECHO "': character %zu not allowed "
						 "(letters, digits, '-', '_', '.'; first a letter or digit)",
						 name, j + 1);
	}
	for (unsigned j = 0; j < L->n_secs; j++)
		if (L->secs[j].type == t && strcmp(L->secs[j].name, name) == 0)
			return conf_fail(L, line, "duplicate section [%s%s%s] (first on line %u)", type,
					 *name ? " " : "", name, L->secs[j].line);
	if (kind->named) {
		unsigned n = 0;

		for (unsigned j = 0; j < L->n_secs; j++)
			n += L->secs[j].type == t;
		if (n == kind->max)
			return conf_fail(L, line, "too many [%s] sections (at most %u)", type, kind->max);
	}
	/* at most 1 gateway + 1 policy + 1 sa-gen + ports + sas + peers: bounded by the
	 * checks above */
	sec = &L->secs[L->n_secs++];
	memset(sec, 0, sizeof(*sec));
	sec->type = t;
	snprintf(sec->name, sizeof(sec->name), "%s", name);
	snprintf(sec->cfgname, sizeof(sec->cfgname), "%s%s%s", type, *name ? " " : "", name);
	sec->line = line;
	if (rte_cfgfile_add_section(L->rc, sec->cfgname) != 0)
		return conf_fail(L, line, "out of memory");
	*cur = sec;
	return 0;
}

static int
prescan_entry(struct loader *L, unsigned line, char *s, struct sec *cur)
{
	char *eq = strchr(s, '='), *key, *val;
	size_t kl, vl;
	unsigned k;
	int r;

	if (eq == NULL)
		return conf_fail(L, line, "expected 'key = value' or a [section] header");
	*eq = '\0';
	key = conf_trim(s);
	val = conf_trim(eq + 1);
	kl = strlen(key);
	vl = strlen(val);
	if (kl == 0)
		return conf_fail(L, line, "missing key name before '='");
	if (cur == NULL)
		return conf_fail(L, line, "key '" ECHO "' before the first [section]", key);
	if (kl >= CFG_NAME_LEN)
		return conf_fail(L, line, "key name longer than %d bytes", CFG_NAME_LEN - 1);
	for (k = 0; k < K_MAX; k++)
		if (conf_keys[k].sec == cur->type && strcmp(conf_keys[k].name, key) == 0)
			break;
	if (k == K_MAX)
		return conf_fail(L, line, "unknown key '" ECHO "' in [%s]", key, cur->cfgname);
	if (cur->key_line[k] != 0)
		return conf_fail(L, line, "duplicate key '%s' in [%s] (first on line %u)", key,
				 cur->cfgname, cur->key_line[k]);
	if (vl == 0)
		return conf_fail(L, line, "empty value for '%s' (leave the key out instead)", key);
	if (vl >= CFG_VALUE_LEN)
		return conf_fail(L, line, "value of '%s' longer than %d bytes", key, CFG_VALUE_LEN - 1);
	for (size_t i = 0; i < vl; i++)
		if ((unsigned char)val[i] >= 0x80)
			return conf_fail(L, line, "non-ASCII character in the value of '%s'", key);
	r = rte_cfgfile_add_entry(L->rc, cur->cfgname, key, val);
	if (r != 0)
		return conf_fail(L, line, "rte_cfgfile_add_entry: %s", strerror(-r));
	cur->key_line[k] = line;
	return 0;
}

int
conf_prescan(struct loader *L)
{
	char linebuf[GW_CONF_LINE_MAX + 1];
	struct sec *cur = NULL;
	size_t pos = 0;
	unsigned line = 0;
	int ret = 0;

	if (L->buflen >= 3 && memcmp(L->buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	while (pos < L->buflen && ret == 0) {
		const char *s = L->buf + pos;
		const char *nl = memchr(s, '\n', L->buflen - pos);
		size_t len = nl ? (size_t)(nl - s) : L->buflen - pos;
		size_t end, b;

		line++;
		pos += len + (nl ? 1 : 0);
		if (len > 0 && s[len - 1] == '\r')
			len--;
		if (len > GW_CONF_LINE_MAX) {
			ret = conf_fail(L, line, "line longer than %d bytes", GW_CONF_LINE_MAX);
			break;
		}
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)s[i];
			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				ret = conf_fail(L, line, "control character 0x%02x at column %zu", c, i + 1);
				break;
			}
		}
		if (ret != 0)
			break;
		/* comment: ';' or '#' at the start or after blank */
		for (end = 0; end < len; end++)
			if ((s[end] == ';' || s[end] == '#') && (end == 0 || conf_is_ws(s[end - 1])))
				break;
		memcpy(linebuf, s, end);
		linebuf[end] = '\0';
		for (b = 0; conf_is_ws(linebuf[b]); b++)
			;
		if (linebuf[b] == '\0')
			continue;
		if (linebuf[b] == '[')
			ret = prescan_header(L, line, conf_trim(linebuf), &cur);
		else
			ret = prescan_entry(L, line, linebuf, cur);
	}
	explicit_bzero(linebuf, sizeof(linebuf));
	return ret;
}
