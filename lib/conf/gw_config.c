/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw configuration loader: reads the file, has it pre-scanned
 * (gw_conf_prescan.c), parses every section by walking the key table
 * (gw_conf_keys.c), runs the checks across sections (gw_conf_check.c). The
 * keys and their rules: docs/config.md.
 *
 * How: the file is read into memory and pre-scanned line by line (line
 * numbers, every syntax rule of the reference). The sections and entries the
 * pre-scan accepted are handed to an rte_cfgfile through its API (rte_cfgfile_create /
 * _add_section / _add_entry) and the values are read back from it with
 * rte_cfgfile_get_entry. rte_cfgfile_load itself is not used on the file: it
 * knows one comment character only (we take ';' and '#'), fails on any line
 * longer than its 324-byte buffer (comments included), fails on an '='-line
 * before the first section (such as a commented-out "# key = value" when '#'
 * is not its comment character), and keeps no line numbers. Nothing here
 * needs the EAL. Key material is wiped from every buffer it passed through.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gw_conf_internal.h"

/* ---------- sections: the table walked ------------------------------------------ */

/* Present keys of a section in file order. */
static unsigned
keys_in_order(const struct sec *sec, unsigned *order)
{
	unsigned n = 0;

	for (unsigned k = 0; k < K_MAX; k++) {
		if (sec->key_line[k] == 0)
			continue;
		unsigned i = n++;
		while (i > 0 && sec->key_line[order[i - 1]] > sec->key_line[k]) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = k;
	}
	return n;
}

static const char *
value(struct loader *L, const struct sec *sec, unsigned k)
{
	return rte_cfgfile_get_entry(L->rc, sec->cfgname, conf_keys[k].name);
}

static int
missing(struct loader *L, const struct sec *sec, unsigned k)
{
	return conf_fail(L, sec->line, "[%s]: missing key '%s'", sec->cfgname, conf_keys[k].name);
}

/* The struct a section fills. */
static void *
sec_base(struct gw_config *cfg, enum sec_type t, unsigned idx)
{
	const struct sec_kind *kind = &conf_kinds[t];

	return (char *)cfg + kind->cfg_off + (size_t)idx * kind->stride;
}

/* The defaults of the keys of kind t, parsed into base as if written in the
 * section (at `line`, for the message should a default be refused). */
static int
apply_defaults(struct loader *L, enum sec_type t, void *base, unsigned line)
{
	for (unsigned k = 0; k < K_MAX; k++) {
		const struct conf_key *key = &conf_keys[k];

		if (key->sec == t && key->def != NULL &&
		    key->parse(L, key, line, key->def, base) != 0)
			return -1;
	}
	return 0;
}

/* Defaults of the kinds without a name: fields of struct gw_config itself, in
 * force whether or not the file has the section. */
static int
apply_global_defaults(struct loader *L)
{
	for (unsigned t = 0; t < SEC_MAX; t++)
		if (!conf_kinds[t].named && apply_defaults(L, (enum sec_type)t, L->cfg, 0) != 0)
			return -1;
	return 0;
}

/* One section: its name, its defaults, every key in file order through the
 * key's parser, the required keys, then the kind's own checks. */
static int
parse_section(struct loader *L, const struct sec *sec)
{
	const struct sec_kind *kind = &conf_kinds[sec->type];
	void *base = sec_base(L->cfg, sec->type, sec->idx);
	unsigned order[K_MAX], n = keys_in_order(sec, order);

	L->key_len = L->auth_key_len = 0;
	if (kind->named) {
		snprintf((char *)base + kind->name_off, GW_CONF_NAME_MAX, "%s", sec->name);
		memcpy((char *)base + kind->line_off, &sec->line, sizeof(sec->line));
		if (apply_defaults(L, sec->type, base, sec->line) != 0)
			return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct conf_key *k = &conf_keys[order[i]];
		unsigned line = sec->key_line[order[i]];
		const char *v = value(L, sec, order[i]);

		if (v == NULL)
			return conf_fail(L, line, "internal error: value lost");
		if (k->parse(L, k, line, v, base) != 0)
			return -1;
	}
	for (unsigned k = 0; k < K_MAX; k++)
		if (conf_keys[k].sec == sec->type && conf_keys[k].required && sec->key_line[k] == 0)
			return missing(L, sec, k);
	return kind->finish != NULL ? kind->finish(L, sec, base) : 0;
}
/* ---------- entry points ----------------------------------------------------- */

static int
read_file(struct loader *L)
{
	size_t cap = 0;
	struct stat st;
	/* O_NONBLOCK: a FIFO without a writer must not hang the start */
	int fd = open(L->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return conf_fail(L, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return conf_fail(L, 0, "cannot read: %s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return conf_fail(L, 0, S_ISDIR(st.st_mode) ? "cannot read: Is a directory" :
				 "not a regular file");
	}
	for (;;) {
		if (L->buflen == cap) {
			size_t ncap = cap ? cap * 2 : 16384;
			char *nb;

			if (cap >= GW_CONF_FILE_MAX) {
				close(fd);
				return conf_fail(L, 0, "file larger than %u bytes", GW_CONF_FILE_MAX);
			}
			if (ncap > GW_CONF_FILE_MAX)
				ncap = GW_CONF_FILE_MAX;
			nb = malloc(ncap);
			if (nb == NULL) {
				close(fd);
				return conf_fail(L, 0, "out of memory");
			}
			if (L->buf != NULL) {
				memcpy(nb, L->buf, L->buflen);
				explicit_bzero(L->buf, cap);
				free(L->buf);
			}
			L->buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, L->buf + L->buflen, cap - L->buflen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return conf_fail(L, 0, "cannot read: %s", strerror(e));
		}
		if (r == 0)
			break;
		L->buflen += (size_t)r;
	}
	close(fd);
	/* NUL bytes: find the line for the message */
	const char *z = memchr(L->buf, '\0', L->buflen);
	if (z != NULL) {
		unsigned line = 1;
		for (const char *c = L->buf; c < z; c++)
			line += *c == '\n';
		return conf_fail(L, line, "NUL byte in the file");
	}
	return 0;
}

/* Overwrite the key values held by the rte_cfgfile before it is freed. */
static void
wipe_rte_keys(struct loader *L)
{
	char fill[CFG_VALUE_LEN];

	memset(fill, 'x', sizeof(fill) - 1);
	fill[sizeof(fill) - 1] = '\0';
	for (unsigned i = 0; i < L->n_secs; i++) {
		const struct sec *s = &L->secs[i];

		if (s->type != SEC_SA)
			continue;
		if (s->key_line[K_KEY])
			rte_cfgfile_set_entry(L->rc, s->cfgname, conf_keys[K_KEY].name, fill);
		if (s->key_line[K_AUTH_KEY])
			rte_cfgfile_set_entry(L->rc, s->cfgname, conf_keys[K_AUTH_KEY].name, fill);
	}
}

int
gw_config_load(const char *path, struct gw_config *cfg, char *err, size_t errlen)
{
	struct loader *L;
	int ret = -1;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (cfg == NULL || path == NULL) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s:0: %s", path ? "?" : "(null)",
				 cfg ? "no config path" : "no config struct");
		return -1;
	}
	memset(cfg, 0, sizeof(*cfg));
	L = calloc(1, sizeof(*L));
	if (L == NULL) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "?:0: out of memory");
		return -1;
	}
	L->path = path;
	L->err = err;
	L->errlen = errlen;
	L->cfg = cfg;

	if (strlen(path) >= sizeof(cfg->path)) {
		conf_fail(L, 0, "config path longer than %zu bytes", sizeof(cfg->path) - 1);
		goto out;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	if (apply_global_defaults(L) != 0)
		goto out;
	if (read_file(L) != 0)
		goto out;
	L->rc = rte_cfgfile_create(0);
	if (L->rc == NULL) {
		conf_fail(L, 0, "rte_cfgfile_create failed");
		goto out;
	}
	if (conf_prescan(L) != 0)
		goto out;

	/* file order within each kind: ports and SAs keep the order of the file */
	for (unsigned i = 0; i < L->n_secs; i++) {
		struct sec *s = &L->secs[i];

		if (s->type == SEC_PORT)
			s->idx = cfg->n_ports++;
		else if (s->type == SEC_SA)
			s->idx = cfg->n_sas++;
		else if (s->type == SEC_PEER)
			s->idx = cfg->n_peers++;
		else if (s->type == SEC_BRIDGE)
			s->idx = cfg->n_bridges++;
		else if (s->type == SEC_HOST)
			s->idx = cfg->n_hosts++;
		else if (s->type == SEC_RULE)
			s->idx = cfg->n_rules++;
		/* SEC_SAGEN, SEC_MBOXGEN: at most one, idx 0 */
	}
	/* [gateway] first: its mode decides what the other sections may hold */
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < L->n_secs; i++)
			if ((L->secs[i].type == SEC_GATEWAY) == (pass == 0) &&
			    parse_section(L, &L->secs[i]) != 0)
				goto out;
	if (conf_cross_check(L) != 0)
		goto out;
	ret = 0;
out:
	if (L->rc != NULL) {
		wipe_rte_keys(L);
		rte_cfgfile_close(L->rc);
	}
	if (L->buf != NULL) {
		explicit_bzero(L->buf, L->buflen);
		free(L->buf);
	}
	explicit_bzero(L, sizeof(*L));
	free(L);
	if (ret != 0) {
		/* keep the path for the caller's messages, wipe everything else */
		char keep[GW_CONF_PATH_MAX];

		memcpy(keep, cfg->path, sizeof(keep));
		explicit_bzero(cfg, sizeof(*cfg));
		memcpy(cfg->path, keep, sizeof(keep));
	}
	return ret;
}

void
gw_config_wipe(struct gw_config *cfg)
{
	if (cfg == NULL)
		return;
	for (unsigned i = 0; i < GW_CONF_MAX_SAS; i++) {
		struct gw_conf_sa *sa = &cfg->sas[i];

		explicit_bzero(sa->key, sizeof(sa->key));
		explicit_bzero(sa->auth_key, sizeof(sa->auth_key));
		sa->key_len = 0;
		sa->auth_key_len = 0;
	}
}
