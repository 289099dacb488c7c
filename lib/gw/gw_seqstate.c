/* SPDX-License-Identifier: BSD-3-Clause
 * Sequence-number high-water marks for manually keyed GCM out SAs. The explicit
 * IV of AES-GCM ESP is the sequence number (RFC 4106 section 3.1 needs it unique
 * per key), so a restart must never send a number it may have sent before.
 * The state file holds "hipgw-seq 1 key=<id> reserved=<n>": every number up to n
 * may have been used under the key whose id (SHA-256 of SPI and keys, first 8
 * bytes) is given. Numbers are reserved in blocks of GW_SEQ_BLOCK, written (file,
 * fsync, rename, fsync dir) by the control lcore ahead of the worker, which stops
 * at the reserved limit (seq_overflow) if writing ever fails: fail closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <openssl/evp.h>
#include <rte_log.h>

#include "gw.h"

#define GW_SEQ_BLOCK (1ULL << 24)   /* packets reserved per write */

static void
key_id(const struct gw_conf_sa *c, char out[17])
{
	uint8_t md[32];
	unsigned mdlen = 0;
	EVP_MD_CTX *x = EVP_MD_CTX_new();
	uint32_t spi = c->spi;

	EVP_DigestInit_ex(x, EVP_sha256(), NULL);
	EVP_DigestUpdate(x, &spi, sizeof(spi));
	EVP_DigestUpdate(x, c->key, c->key_len);
	EVP_DigestUpdate(x, c->auth_key, c->auth_key_len);
	EVP_DigestFinal_ex(x, md, &mdlen);
	EVP_MD_CTX_free(x);
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

static int
write_state(const struct gw_sa *sa, uint64_t reserved)
{
	char tmp[GW_CONF_PATH_MAX + 8], dir[GW_CONF_PATH_MAX];
	char buf[128];
	int fd, len, ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", sa->state);
	len = snprintf(buf, sizeof(buf), "hipgw-seq 1 key=%s reserved=%" PRIu64 "\n",
		       sa->key_id, reserved);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ok = write(fd, buf, len) == len && fsync(fd) == 0;
	ok = (close(fd) == 0) && ok;
	if (!ok || rename(tmp, sa->state) != 0) {
		unlink(tmp);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", sa->state);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

int
gw_seqstate_open(struct gw_sa *sa, const struct gw_conf_sa *c, uint64_t *seq_first,
		 uint64_t *seq_limit, char *err, size_t errlen)
{
	char dir[GW_CONF_PATH_MAX], id[17] = "";
	uint64_t reserved = 0;
	FILE *f;

	snprintf(sa->state, sizeof(sa->state), "%s", c->state);
	key_id(c, sa->key_id);
	*seq_first = 1;
	f = fopen(sa->state, "r");
	if (f != NULL) {
		char line[128];
		if (fgets(line, sizeof(line), f) == NULL ||
		    sscanf(line, "hipgw-seq 1 key=%16[0-9a-f] reserved=%" SCNu64, id, &reserved) != 2) {
			fclose(f);
			snprintf(err, errlen, "%s:1: not a hipgw sequence state file (SA %s); "
				 "remove it only if the key is new", sa->state, c->name);
			return -1;
		}
		fclose(f);
		if (strcmp(id, sa->key_id) == 0)
			*seq_first = reserved + 1;   /* a new key starts again at 1 */
	}
	snprintf(dir, sizeof(dir), "%s", sa->state);
	sa->seq_reserved = *seq_first - 1 + GW_SEQ_BLOCK;
	if (mkdir_p(dirname(dir)) != 0 || write_state(sa, sa->seq_reserved) != 0) {
		snprintf(err, errlen, "%s:0: cannot write the GCM sequence state of SA %s: %s",
			 sa->state, c->name, strerror(errno));
		return -1;
	}
	*seq_limit = sa->seq_reserved;
	return 0;
}

void
gw_seqstate_tick(struct gw_sa *sa)
{
	uint64_t next = esp_sa_seq(sa->esp);
	if (sa->state[0] == 0 || next + GW_SEQ_BLOCK / 2 <= sa->seq_reserved)
		return;
	if (write_state(sa, sa->seq_reserved + GW_SEQ_BLOCK) != 0) {
		RTE_LOG(ERR, USER1, "cannot write %s: %s; SA %s stops at sequence %" PRIu64 "\n",
			sa->state, strerror(errno), sa->name, sa->seq_reserved);
		return;
	}
	sa->seq_reserved += GW_SEQ_BLOCK;
	esp_sa_set_seq_limit(sa->esp, sa->seq_reserved);
}
