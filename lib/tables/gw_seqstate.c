/* SPDX-License-Identifier: BSD-3-Clause
 * Sequence-number high-water marks for manually keyed GCM out SAs. The explicit
 * IV of AES-GCM ESP is the sequence number (RFC 4106 section 3.1 needs it unique
 * per key), so a restart must never send a number it may have sent before.
 *
 * The state file holds one mark per key it has seen:
 *     hipgw-seq 2
 *     key=<id> reserved=<n>          (one line per key, at most GW_SEQ_KEYS_MAX)
 * where every number up to n may have been used under the key whose id
 * (SHA-256 of the key material, first 8 bytes; files written before
 * 2026-11-30 put the SPI first, and those ids are still matched) is given.
 * Whatever the SPI, one GCM key has one nonce space, so one mark. A key the file does not
 * know starts at 1; the marks of the other keys stay, so a start with a
 * mistyped key, or a key rotated back, never resumes below its mark. Several
 * SAs may share one file (each has its own line). Every write reads the file
 * again, updates this key's line (never lowering it) and replaces the file
 * (fsync, rename, fsync dir) under an exclusive flock of its directory, so
 * two hipgw processes that share a file do not lose each other's marks. The
 * first format (one line "hipgw-seq 1 key=<id> reserved=<n>") is read too.
 * Numbers are reserved in blocks of GW_SEQ_BLOCK, written by the control lcore
 * ahead of the worker, which stops at the reserved limit (seq_overflow) if
 * writing ever fails: fail closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <openssl/evp.h>
#include <rte_log.h>

#include "gw_seqstate.h"

#define GW_SEQ_BLOCK    (1ULL << 24)   /* packets reserved per write */
#define GW_SEQ_KEYS_MAX 256            /* keys one state file remembers */

struct seq_mark {
	char id[17];
	uint64_t reserved;
};

/* One state file's marks, read, updated and written under its directory's lock. */
struct seq_file {
	struct seq_mark m[GW_SEQ_KEYS_MAX];
	unsigned n;
	int dir_fd;
};

/* The id of c's GCM key material (AES key and salt: what the nonce space
 * belongs to, RFC 4106 section 3.1), hex of the first 8 bytes of its SHA-256;
 * with_spi: the id files written before 2026-11-30 used (SPI first), still
 * honoured when reading so that an upgrade never restarts a key at 1. */
static void
key_id(const struct gw_conf_sa *c, bool with_spi, char out[17])
{
	uint8_t md[32];
	unsigned mdlen = 0;
	EVP_MD_CTX *x = EVP_MD_CTX_new();
	uint32_t spi = c->spi;

	EVP_DigestInit_ex(x, EVP_sha256(), NULL);
	if (with_spi)
		EVP_DigestUpdate(x, &spi, sizeof(spi));
	EVP_DigestUpdate(x, c->key, c->key_len);
	EVP_DigestUpdate(x, c->auth_key, c->auth_key_len);
	EVP_DigestFinal_ex(x, md, &mdlen);
	EVP_MD_CTX_free(x);
	explicit_bzero(md + 8, sizeof(md) - 8);
	for (int i = 0; i < 8; i++)
		snprintf(&out[2 * i], 3, "%02x", md[i]);
}

static int
mkdir_p(const char *dir)
{
	char tmp[GW_CONF_PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return (mkdir(tmp, 0700) != 0 && errno != EEXIST) ? -1 : 0;
}

/* Unlock and close f's directory, keeping errno. */
static void
seq_unlock(struct seq_file *f)
{
	int e = errno;

	flock(f->dir_fd, LOCK_UN);
	close(f->dir_fd);
	errno = e;
}

/* Lock the directory of path (created if missing) and read the file's marks
 * into f. Returns 0 with the lock held, or -1 with err set (the file and line
 * at fault) and no lock. */
static int
seq_load(struct seq_file *f, const char *path, const char *sa_name, char *err, size_t errlen)
{
	char dir[GW_CONF_PATH_MAX], line[128];
	unsigned ln = 0;
	bool bad = false;
	FILE *in;

	f->n = 0;
	snprintf(dir, sizeof(dir), "%s", path);
	if (mkdir_p(dirname(dir)) != 0)
		goto io;
	f->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dir_fd < 0)
		goto io;
	if (flock(f->dir_fd, LOCK_EX) != 0) {
		seq_unlock(f);
		goto io;
	}
	in = fopen(path, "r");
	if (in == NULL) {
		if (errno == ENOENT)
			return 0;
		seq_unlock(f);
		goto io;
	}
	while (!bad && fgets(line, sizeof(line), in) != NULL) {
		struct seq_mark *m = &f->m[f->n];

		ln++;
		if (ln == 1 && strcmp(line, "hipgw-seq 2\n") == 0)
			continue;
		if (ln == 1)
			bad = sscanf(line, "hipgw-seq 1 key=%16[0-9a-f] reserved=%" SCNu64, m->id,
				     &m->reserved) != 2;
		else
			bad = f->n == GW_SEQ_KEYS_MAX ||
			      sscanf(line, "key=%16[0-9a-f] reserved=%" SCNu64, m->id,
				     &m->reserved) != 2;
		bad = bad || strlen(m->id) != 16;
		if (!bad)
			f->n++;
	}
	bad = bad || ln == 0 || ferror(in);
	fclose(in);
	if (bad) {
		seq_unlock(f);
		snprintf(err, errlen, "%s:%u: not a hipgw sequence state file (SA %s); "
			 "remove it only if no key it names is still in use", path, ln ? ln : 1,
			 sa_name);
		return -1;
	}
	return 0;
io:
	snprintf(err, errlen, "%s:0: cannot write the GCM sequence state of SA %s: %s", path,
		 sa_name, strerror(errno));
	return -1;
}

/* With f loaded (lock held): set key id's mark to at least reserved (a new
 * line if the file does not know it), replace the file and unlock. Returns 0,
 * or -1 with errno set (ENOSPC: the file knows GW_SEQ_KEYS_MAX other keys). */
static int
seq_store(struct seq_file *f, const char *path, const char *id, uint64_t reserved)
{
	char tmp[GW_CONF_PATH_MAX + 8];
	unsigned i;
	bool ok;
	FILE *out;
	int fd;

	for (i = 0; i < f->n && strcmp(f->m[i].id, id) != 0; i++)
		;
	if (i == f->n) {
		if (f->n == GW_SEQ_KEYS_MAX) {
			errno = ENOSPC;
			seq_unlock(f);
			return -1;
		}
		snprintf(f->m[i].id, sizeof(f->m[i].id), "%s", id);
		f->m[i].reserved = 0;
		f->n++;
	}
	if (reserved > f->m[i].reserved)
		f->m[i].reserved = reserved;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (out == NULL) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		seq_unlock(f);
		return -1;
	}
	ok = fputs("hipgw-seq 2\n", out) >= 0;
	for (unsigned k = 0; k < f->n && ok; k++)
		ok = fprintf(out, "key=%s reserved=%" PRIu64 "\n", f->m[k].id, f->m[k].reserved) > 0;
	ok = ok && fflush(out) == 0 && fsync(fd) == 0;
	ok = fclose(out) == 0 && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		int e = errno ? errno : EIO;

		unlink(tmp);
		errno = e;
		seq_unlock(f);
		return -1;
	}
	fsync(f->dir_fd);
	seq_unlock(f);
	return 0;
}

/* Why seq_store failed, from errno. */
static const char *
store_error(void)
{
	static char msg[80];

	if (errno != ENOSPC)
		return strerror(errno);
	snprintf(msg, sizeof(msg), "the file holds the marks of %u other keys already",
		 GW_SEQ_KEYS_MAX);
	return msg;
}

int
gw_seqstate_open(struct gw_sa *sa, const struct gw_conf_sa *c, uint64_t *seq_first,
		 uint64_t *seq_limit, char *err, size_t errlen)
{
	struct seq_file *f = malloc(sizeof(*f));
	char old_id[17];

	if (f == NULL) {
		snprintf(err, errlen, "%s:0: no memory for the GCM sequence state of SA %s",
			 c->state, c->name);
		return -1;
	}
	snprintf(sa->state, sizeof(sa->state), "%s", c->state);
	key_id(c, false, sa->key_id);
	key_id(c, true, old_id);
	*seq_first = 1;              /* a key this file does not know starts at 1 */
	if (seq_load(f, sa->state, c->name, err, errlen) != 0) {
		free(f);
		return -1;
	}
	for (unsigned i = 0; i < f->n; i++)
		if ((strcmp(f->m[i].id, sa->key_id) == 0 || strcmp(f->m[i].id, old_id) == 0) &&
		    f->m[i].reserved + 1 > *seq_first)
			*seq_first = f->m[i].reserved + 1;
	sa->seq_reserved = *seq_first - 1 + GW_SEQ_BLOCK;
	if (seq_store(f, sa->state, sa->key_id, sa->seq_reserved) != 0) {
		snprintf(err, errlen, "%s:0: cannot write the GCM sequence state of SA %s: %s",
			 sa->state, c->name, store_error());
		free(f);
		return -1;
	}
	free(f);
	*seq_limit = sa->seq_reserved;
	return 0;
}

void
gw_seqstate_tick(struct gw_sa *sa)
{
	uint64_t next = esp_sa_seq(sa->esp);
	struct seq_file *f;
	char err[GW_CONF_PATH_MAX + 128];

	if (sa->state[0] == 0 || next + GW_SEQ_BLOCK / 2 <= sa->seq_reserved)
		return;
	f = malloc(sizeof(*f));
	if (f == NULL)
		snprintf(err, sizeof(err), "%s:0: no memory", sa->state);
	else if (seq_load(f, sa->state, sa->name, err, sizeof(err)) != 0)
		;                    /* err names the file and line */
	else if (seq_store(f, sa->state, sa->key_id, sa->seq_reserved + GW_SEQ_BLOCK) != 0)
		snprintf(err, sizeof(err), "%s:0: cannot write: %s", sa->state, store_error());
	else
		err[0] = '\0';
	free(f);
	if (err[0] != '\0') {
		RTE_LOG(ERR, USER1, "%s; SA %s stops at sequence %" PRIu64 "\n", err, sa->name,
			sa->seq_reserved);
		return;
	}
	sa->seq_reserved += GW_SEQ_BLOCK;
	esp_sa_set_seq_limit(sa->esp, sa->seq_reserved);
}
