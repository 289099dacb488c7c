/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the config loader, as `hipgw --check-config` runs it.
 *
 * The input is the config file. It is written to a memfd and loaded from
 * /proc/self/fd/N with gw_config_load, twice: both loads must agree (verdict,
 * message, the whole struct). A failure must leave one "FILE:LINE: message"
 * line and no key bytes. On success the harness does what app/hipgw.c's
 * load_config does after the loader: when the config names a Host Identity
 * key file, hip_hi_load it and refuse a [peer] whose HIT is our own; then
 * gw_config_wipe must leave no key bytes.
 *
 * Key files: the loader wants an absolute path to a regular 0600 file, so the
 * harness puts the repository's test keys (tests/data/hip/keys,
 * tests/vectors/keys; test keys only) into FUZZ_KEY_DIR, mode 0600, before the
 * first input; seeds name them there. Their contents are not fuzzed (that is
 * OpenSSL's PEM decoding; fuzz_host_id covers our HI decoding).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "gw_config.h"
#include "hip_hi.h"

#define FUZZ_KEY_DIR "/tmp/hipgw-fuzz-keys"
#define ERR_LEN 512

static int conf_fd = -1;
static char conf_path[64];
static struct gw_config cfg_a, cfg_b;   /* large: not on the stack */

/* Copy src to FUZZ_KEY_DIR/name, mode 0600, replacing it atomically. */
static void
install_key(const char *src, const char *name)
{
	char tmp[512], dst[512], buf[8192];
	ssize_t n;
	int in, out;

	snprintf(dst, sizeof(dst), "%s/%s", FUZZ_KEY_DIR, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%ld", FUZZ_KEY_DIR, name, (long)getpid());
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (in < 0 || out < 0)
		FUZZ_FAIL("key %s -> %s: %s", src, tmp, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			FUZZ_FAIL("writing %s: %s", tmp, strerror(errno));
	if (n < 0 || close(out) != 0 || rename(tmp, dst) != 0)
		FUZZ_FAIL("installing %s: %s", dst, strerror(errno));
	close(in);
}

static void
install_keys(const char *dir)
{
	struct dirent *e;
	char src[512];
	DIR *d = opendir(dir);

	if (d == NULL)
		FUZZ_FAIL("%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l < 5 || strcmp(e->d_name + l - 4, ".pem") != 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", dir, e->d_name);
		install_key(src, e->d_name);
	}
	closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct stat st;

	(void)argc;
	(void)argv;
	if (mkdir(FUZZ_KEY_DIR, 0700) != 0 && errno != EEXIST)
		FUZZ_FAIL("mkdir %s: %s", FUZZ_KEY_DIR, strerror(errno));
	/* ours, a directory, closed to others: never follow someone else's link */
	if (lstat(FUZZ_KEY_DIR, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0)
		FUZZ_FAIL("%s is not a private directory of ours", FUZZ_KEY_DIR);
	install_keys(HIPGW_SOURCE_ROOT "/tests/data/hip/keys");
	install_keys(HIPGW_SOURCE_ROOT "/tests/vectors/keys");
	conf_fd = memfd_create("hipgw-fuzz.ini", MFD_CLOEXEC);
	if (conf_fd < 0)
		FUZZ_FAIL("memfd_create: %s", strerror(errno));
	snprintf(conf_path, sizeof(conf_path), "/proc/self/fd/%d", conf_fd);
	return 0;
}

static bool
keys_wiped(const struct gw_config *c)
{
	for (unsigned i = 0; i < GW_CONF_MAX_SAS; i++)
		if (!fuzz_all_zero(c->sas[i].key, sizeof(c->sas[i].key)) ||
		    !fuzz_all_zero(c->sas[i].auth_key, sizeof(c->sas[i].auth_key)))
			return false;
	return true;
}

/* "FILE:LINE: message" on one line, LINE 0 (the whole file) or a line of it. */
static void
check_error(const char *err, const uint8_t *data, size_t size)
{
	size_t pl = strlen(conf_path), i, lines = 1;
	unsigned long line;
	char *end;

	if (strncmp(err, conf_path, pl) != 0 || err[pl] != ':')
		FUZZ_FAIL("error does not start with the file name: %s", err);
	line = strtoul(err + pl + 1, &end, 10);
	if (end == err + pl + 1 || end[0] != ':' || end[1] != ' ' || strchr(err, '\n') != NULL)
		FUZZ_FAIL("error not FILE:LINE: message: %s", err);
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (line > lines)
		FUZZ_FAIL("error names line %lu of a file of %zu lines: %s", line, lines, err);
}

/* app/hipgw.c load_config after gw_config_load: the key file and own HIT. */
static void
check_hi(const struct gw_config *c)
{
	struct hip_hi hi;
	char msg[400];

	if (c->hi_path[0] == '\0')
		return;
	memset(&hi, 0, sizeof(hi));
	if (hip_hi_load(c->hi_path, &hi, msg, sizeof(msg)) != 0)
		return;
	/* a [peer] with our own HIT is a config error there; here only compared */
	for (unsigned i = 0; i < c->n_peers; i++)
		(void)memcmp(c->peers[i].hit, hi.hit, sizeof(hi.hit));
	hip_hi_free(&hi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err_a[ERR_LEN], err_b[ERR_LEN];
	int ra, rb;

	if (ftruncate(conf_fd, 0) != 0 || pwrite(conf_fd, data, size, 0) != (ssize_t)size)
		FUZZ_FAIL("writing the config memfd: %s", strerror(errno));
	ra = gw_config_load(conf_path, &cfg_a, err_a, sizeof(err_a));
	rb = gw_config_load(conf_path, &cfg_b, err_b, sizeof(err_b));
	if (ra != rb || strcmp(err_a, err_b) != 0)
		FUZZ_FAIL("two loads disagree: %d '%s' / %d '%s'", ra, err_a, rb, err_b);
	if (ra != 0) {
		if (ra != -1)
			FUZZ_FAIL("gw_config_load returned %d", ra);
		check_error(err_a, data, size);
		if (!keys_wiped(&cfg_a))
			FUZZ_FAIL("key bytes left after a failed load: %s", err_a);
		return 0;
	}
	if (err_a[0] != '\0')
		FUZZ_FAIL("error message on success: %s", err_a);
	if (memcmp(&cfg_a, &cfg_b, sizeof(cfg_a)) != 0)
		FUZZ_FAIL("two loads of the same config give different structs");
	(void)gw_suite_name(cfg_a.n_sas > 0 ? cfg_a.sas[0].suite : GW_SUITE_MAX);
	check_hi(&cfg_a);
	gw_config_wipe(&cfg_a);
	gw_config_wipe(&cfg_b);
	if (!keys_wiped(&cfg_a))
		FUZZ_FAIL("key bytes left after gw_config_wipe");
	return 0;
}
