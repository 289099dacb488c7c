/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw keygen / hipgw hit / hipgw pubkey (see hip_cli.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hip_cli.h"
#include "hip_hi.h"
#include "hip_hit.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: hipgw keygen --algo ecdsa-p256|ecdsa-p384|rsa3072 --out FILE [--force]\n"
		   "       hipgw hit FILE\n"
		   "       hipgw pubkey FILE [--out PUB [--force]]\n");
}

static const char *
algo_name(const struct hip_hi *hi)
{
	if (hi->algo == HIP_HI_ALGO_RSA)
		return "rsa";
	if (hi->curve == HIP_CURVE_NIST_P256)
		return "ecdsa-p256";
	if (hi->curve == HIP_CURVE_NIST_P384)
		return "ecdsa-p384";
	return "?";
}

static void
print_hi(const struct hip_hi *hi)
{
	char hit[HIP_HIT_STRLEN];

	hip_hit_to_str(hi->hit, hit, sizeof(hit));
	printf("HIT %s\n", hit);
	printf("algorithm %s (HI algorithm %u, HIT suite %u)\n", algo_name(hi),
	       (unsigned)hi->algo, (unsigned)hi->suite);
	printf("HI ");
	for (unsigned int x = 0; x < hi->hi_len; x++)
		printf("%02x", hi->hi[x]);
	printf("\n");
}

static int
cmd_keygen(int argc, char **argv)
{
	const char *algo = NULL, *out = NULL;
	enum hip_hi_kind kind;
	struct hip_hi hi = { 0 };
	char err[512];
	int force = 0;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--algo") == 0 && a + 1 < argc)
			algo = argv[++a];
		else if (strncmp(argv[a], "--algo=", 7) == 0)
			algo = argv[a] + 7;
		else if (strcmp(argv[a], "--out") == 0 && a + 1 < argc)
			out = argv[++a];
		else if (strncmp(argv[a], "--out=", 6) == 0)
			out = argv[a] + 6;
		else if (strcmp(argv[a], "--force") == 0)
			force = 1;
		else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "hipgw keygen: unexpected argument '%s'\n", argv[a]);
			usage(stderr);
			return 2;
		}
	}
	if (algo == NULL || out == NULL || *out == '\0') {
		fprintf(stderr, "hipgw keygen: --algo and --out are required\n");
		usage(stderr);
		return 2;
	}
	if (hip_hi_kind_parse(algo, &kind) != 0) {
		fprintf(stderr, "hipgw keygen: unknown --algo '%s' (ecdsa-p256, ecdsa-p384 or rsa3072)\n", algo);
		return 2;
	}
	if (hip_hi_generate(kind, &hi, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipgw keygen: %s\n", err);
		return 1;
	}
	if (force && unlink(out) != 0 && errno != ENOENT) {
		fprintf(stderr, "hipgw keygen: %s: cannot replace: %s\n", out, strerror(errno));
		hip_hi_free(&hi);
		return 1;
	}
	if (hip_hi_save(&hi, out, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipgw keygen: %s%s\n", err,
			!force && strstr(err, "exists") ? "; use --force to replace it" : "");
		hip_hi_free(&hi);
		return 1;
	}
	print_hi(&hi);
	hip_hi_free(&hi);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int
cmd_hit(int argc, char **argv)
{
	struct hip_hi hi = { 0 };
	char err[512], hit[HIP_HIT_STRLEN];

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	if (hip_hi_load(argv[1], &hi, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipgw hit: %s\n", err);
		return 1;
	}
	hip_hit_to_str(hi.hit, hit, sizeof(hit));
	printf("%s\n", hit);
	hip_hi_free(&hi);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* Write len bytes of pem to a new file path, mode 0644 (a public key),
 * never through a symlink; --force replaces an existing one. Returns 0 or -1
 * (message printed; nothing left behind). */
static int
write_public(const char *path, const char *pem, size_t len, int force)
{
	size_t done = 0;
	int fd;

	if (force && unlink(path) != 0 && errno != ENOENT) {
		fprintf(stderr, "hipgw pubkey: %s: cannot replace: %s\n", path, strerror(errno));
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "hipgw pubkey: %s: %s\n", path, errno == EEXIST ?
			"exists already (not overwritten); use --force to replace it" : strerror(errno));
		return -1;
	}
	while (done < len) {
		ssize_t w = write(fd, pem + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (done < len || fsync(fd) != 0) {
		fprintf(stderr, "hipgw pubkey: %s: write failed: %s\n", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	if (close(fd) != 0) {
		fprintf(stderr, "hipgw pubkey: %s: write failed: %s\n", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

static int
cmd_pubkey(int argc, char **argv)
{
	const char *key = NULL, *out = NULL;
	struct hip_hi hi = { 0 };
	char err[512], hit[HIP_HIT_STRLEN], pem[HIP_HI_PEM_MAX];
	int force = 0, n, rc;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--out") == 0 && a + 1 < argc)
			out = argv[++a];
		else if (strncmp(argv[a], "--out=", 6) == 0)
			out = argv[a] + 6;
		else if (strcmp(argv[a], "--force") == 0)
			force = 1;
		else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (key == NULL && argv[a][0] != '-')
			key = argv[a];
		else {
			fprintf(stderr, "hipgw pubkey: unexpected argument '%s'\n", argv[a]);
			usage(stderr);
			return 2;
		}
	}
	if (key == NULL || (out != NULL && *out == '\0') || (force && out == NULL)) {
		usage(stderr);
		return 2;
	}
	if (hip_hi_load(key, &hi, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipgw pubkey: %s\n", err);
		return 1;
	}
	n = hip_hi_public_pem(&hi, pem, sizeof(pem), err, sizeof(err));
	hip_hit_to_str(hi.hit, hit, sizeof(hit));
	hip_hi_free(&hi);
	if (n < 0) {
		fprintf(stderr, "hipgw pubkey: %s: %s\n", key, err);
		return 1;
	}
	if (out == NULL)
		rc = fwrite(pem, 1, (size_t)n, stdout) == (size_t)n ? 0 : 1;
	else if ((rc = write_public(out, pem, (size_t)n, force) == 0 ? 0 : 1) == 0)
		printf("HIT %s\n", hit);
	return rc != 0 || fflush(stdout) != 0 ? 1 : 0;
}

int
hip_cli_main(int argc, char **argv)
{
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[0], "keygen") == 0)
		return cmd_keygen(argc, argv);
	if (strcmp(argv[0], "hit") == 0)
		return cmd_hit(argc, argv);
	if (strcmp(argv[0], "pubkey") == 0)
		return cmd_pubkey(argc, argv);
	usage(stderr);
	return 2;
}
