/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw: a DPDK site gateway that carries a site's traffic in ESP to its peer.
 *
 *   hipgw [EAL options] -- --config FILE [--stats-json FILE] [--idle-exit MS]
 *                            [--keylog FILE] [--slow-path] [--test-pmtu-age S]
 *   hipgw --check-config FILE
 *   hipgw keygen | hit | pubkey ...  (Host Identity files, lib/hipcrypto/hip_cli.h)
 *   hipgw set-address [--socket PATH | --file-prefix NAME] PORT ADDR/LEN [GATEWAY]
 *                                    (to a running gateway: hipgw_ctl.h)
 *
 * Exit codes: 0 clean stop, 1 runtime failure (EAL, ports, memory),
 * 2 bad command line or config (message "FILE:LINE: ...").
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "gw.h"
#include "gw_statsout.h"
#include "gw_config.h"
#include "gw_limits.h"
#include "hip_hi.h"
#include "hip_cli.h"
#include "hip_wire.h"
#include "hipgw_ctl.h"

static volatile int signalled;

static void
on_signal(int sig)
{
	(void)sig;
	signalled = 1;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: hipgw [EAL options] -- --config FILE [--stats-json FILE] [--idle-exit MS]\n"
		   "                                [--keylog FILE] [--slow-path] [--test-pmtu-age S]\n"
		   "       hipgw --check-config FILE\n"
		   "       hipgw keygen --algo ecdsa-p256|ecdsa-p384|rsa3072 --out FILE [--force]\n"
		   "       hipgw hit FILE\n"
		   "       hipgw pubkey FILE [--out PUB [--force]]\n"
		   "       hipgw set-address [--socket PATH | --file-prefix NAME] PORT ADDRESS/LENGTH "
		   "[GATEWAY]\n"
		   "--keylog FILE appends one line per new HIP-keyed SA (tshark esp_sa fields) with the\n"
		   "ESP keys in clear; FILE is created mode 0600 and must not be open to others.\n"
		   "--slow-path is a diagnostic, never for production: the control lcore looks up the SA\n"
		   "of every data frame (worker -> ring -> control -> ring -> worker), to measure what the\n"
		   "fast path saves.\n"
		   "--test-pmtu-age S, for tests only: a path MTU lowered by an ICMP error lasts S seconds\n"
		   "(1..%u) instead of the config's pmtu-age, which RFC 8201 keeps at 5 minutes or more.\n",
		GW_PMTU_AGE_MAX_S);
}

/* --keylog FILE: created mode 0600 (or appended to, if it is ours and closed
 * to group and others); anything else is refused, since it holds ESP keys. */
static FILE *
keylog_open(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		fprintf(stderr, "hipgw: --keylog %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		fprintf(stderr, "hipgw: --keylog %s: refused: the file will hold ESP keys, so it must be "
			"a regular file of ours with no access for group or others (it is mode %04o); "
			"chmod 600 it or name a new file\n", path, (unsigned)(st.st_mode & 07777));
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "a");
	if (f == NULL) {
		fprintf(stderr, "hipgw: --keylog %s: %s\n", path, strerror(errno));
		close(fd);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static struct gw_config cfg;   /* large: keep off the stack */
static struct gw_ctx ctx;

/* Suites that do not encrypt are for tests: allowed, but said aloud. */
static void
warn_null_suites(void)
{
	bool null = false;

	for (unsigned i = 0; i < cfg.n_sas; i++)
		null |= cfg.sas[i].suite == GW_SUITE_NULL_SHA256;
	for (unsigned i = 0; i < cfg.n_esp_transforms; i++)
		null |= cfg.esp_transforms[i] == HIP_ESP_NULL_HMAC_SHA256;
	for (unsigned i = 0; i < cfg.n_hip_ciphers; i++)
		null |= cfg.hip_ciphers[i] == HIP_CIPHER_NULL_ENCRYPT;
	if (null)
		fprintf(stderr, "hipgw: warning: %s allows traffic without encryption (null-sha256 "
			"or the NULL HIP cipher): for tests only\n", cfg.path);
}

/* Load the config and, when it names one, the Host Identity key (so that a
 * key file that is no usable key is a config error: FILE:LINE, exit 2). */
static int
load_config(const char *path, char *err, size_t errlen)
{
	struct hip_hi hi;
	struct stat st;
	char msg[400];

	if (gw_config_load(path, &cfg, err, errlen) != 0)
		return -1;
	if (cfg.n_sas > 0 && stat(path, &st) == 0 && (st.st_mode & 077) != 0)
		fprintf(stderr, "hipgw: warning: %s holds manual SA keys and is readable by group or "
			"others (mode %04o; chmod 600 it)\n", path, (unsigned)(st.st_mode & 07777));
	warn_null_suites();
	if (cfg.hi_path[0] == '\0')
		return 0;
	memset(&hi, 0, sizeof(hi));
	if (hip_hi_load(cfg.hi_path, &hi, msg, sizeof(msg)) != 0) {
		snprintf(err, errlen, "%s:%u: hi: %.200s", cfg.path, cfg.hi_line, msg);
		gw_config_wipe(&cfg);
		return -1;
	}
	for (unsigned i = 0; i < cfg.n_peers; i++) {
		if (memcmp(cfg.peers[i].hit, hi.hit, sizeof(hi.hit)) != 0)
			continue;
		snprintf(err, errlen, "%s:%u: peer %s: hit is our own HIT (of hi on line %u)",
			 cfg.path, cfg.peers[i].line, cfg.peers[i].name, cfg.hi_line);
		hip_hi_free(&hi);
		gw_config_wipe(&cfg);
		return -1;
	}
	hip_hi_free(&hi);
	return 0;
}

/* --stats-json is written at exit: find out now if its directory cannot take
 * it, not after the run. Prints the reason. */
static bool
stats_dir_writable(const char *path)
{
	char dir[4096];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "hipgw: --stats-json %s: is a directory\n", path);
		return false;
	}
	if (access(dirname(dir), W_OK | X_OK) != 0) {
		fprintf(stderr, "hipgw: --stats-json %s: cannot write in %s: %s\n", path, dir,
			strerror(errno));
		return false;
	}
	return true;
}

static int
check_config(const char *path)
{
	char err[512];
	if (load_config(path, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	gw_config_wipe(&cfg);
	if (cfg.mode == GW_MODE_MIDDLEBOX)
		printf("%s: OK (middlebox: %u ports, %u rules, %u hosts, %u lab flows)\n", path,
		       cfg.n_ports, cfg.n_rules, cfg.n_hosts, cfg.mboxgen.count);
	else
		printf("%s: OK (%u ports, %u SAs, %u HIP peers)\n", path, cfg.n_ports, cfg.n_sas,
		       cfg.n_peers);
	return 0;
}

#define GW_IDLE_EXIT_MAX_MS (30ULL * 24 * 3600 * 1000)   /* 30 days */

/* Our options, those after "--" (aargv[0] is the "--"), into *config,
 * *keylog and *opts. Returns -1 to go on, else the exit code: 0 after
 * --help, 2 after a bad option (the reason printed). */
static int
parse_opts(int aargc, char **aargv, const char **config, const char **keylog,
	   struct gw_run_opts *opts)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "stats-json", required_argument, NULL, 's' },
		{ "idle-exit", required_argument, NULL, 'i' },
		{ "keylog", required_argument, NULL, 'k' },
		{ "slow-path", no_argument, NULL, 'S' },
		{ "test-pmtu-age", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *dashes = aargv[0], *end;
	unsigned long age;
	int opt;

	aargv[0] = (char *)"hipgw";   /* getopt's messages start with argv[0] */
	optind = 1;
	while ((opt = getopt_long(aargc, aargv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			*config = optarg;
			break;
		case 's':
			opts->stats_json = optarg;
			if (!stats_dir_writable(optarg))
				return 2;
			break;
		case 'i':
			errno = 0;
			opts->idle_exit_ms = strtoull(optarg, &end, 10);
			if (!isdigit((unsigned char)optarg[0]) || *end != 0 || errno != 0 ||
			    opts->idle_exit_ms > GW_IDLE_EXIT_MAX_MS) {
				fprintf(stderr, "hipgw: --idle-exit takes milliseconds, 0..%llu "
					"(0: never)\n", (unsigned long long)GW_IDLE_EXIT_MAX_MS);
				return 2;
			}
			break;
		case 'k':
			*keylog = optarg;
			break;
		case 'S':
			opts->slow_path = true;
			break;
		case 'P':
			errno = 0;
			age = strtoul(optarg, &end, 10);
			if (!isdigit((unsigned char)optarg[0]) || *end != 0 || errno != 0 ||
			    age == 0 || age > GW_PMTU_AGE_MAX_S) {
				fprintf(stderr, "hipgw: --test-pmtu-age takes seconds, 1..%u\n",
					GW_PMTU_AGE_MAX_S);
				return 2;
			}
			opts->test_pmtu_age_s = (uint32_t)age;
			fprintf(stderr, "hipgw: warning: --test-pmtu-age %lu: lowered path MTUs are "
				"raised again after %lu s, not after the config's pmtu-age (RFC 8201 "
				"section 4 asks 5 minutes at least): for tests only\n", age, age);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	aargv[0] = dashes;
	if (*config == NULL || optind != aargc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	const char *config = NULL, *keylog = NULL;
	struct gw_run_opts opts = { .signalled = &signalled };
	char err[512];
	int sep, ret;

	if (argc >= 2 && (!strcmp(argv[1], "keygen") || !strcmp(argv[1], "hit") ||
			  !strcmp(argv[1], "pubkey")))
		return hip_cli_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "set-address") == 0)
		return hipgw_ctl_set_address(argc - 1, argv + 1);
	if (argc == 3 && strcmp(argv[1], "--check-config") == 0)
		return check_config(argv[2]);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	/* our options follow "--"; parse them before EAL so a bad config fails fast */
	for (sep = 1; sep < argc && strcmp(argv[sep], "--") != 0; sep++)
		;
	if (sep == argc) {
		usage(stderr);
		return 2;
	}
	ret = parse_opts(argc - sep, argv + sep, &config, &keylog, &opts);
	if (ret >= 0)
		return ret;
	if (load_config(config, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (keylog != NULL && (opts.keylog = keylog_open(keylog)) == NULL) {
		gw_config_wipe(&cfg);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = rte_eal_init(sep, argv);
	if (ret < 0) {
		fprintf(stderr, "hipgw: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		gw_config_wipe(&cfg);
		if (opts.keylog != NULL)
			fclose(opts.keylog);
		return 1;
	}
	if (gw_create(&ctx, &cfg, &opts, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipgw: %s\n", err);
		gw_destroy(&ctx);
		gw_config_wipe(&cfg);
		rte_eal_cleanup();
		if (opts.keylog != NULL)
			fclose(opts.keylog);
		return strchr(err, ':') != NULL && strncmp(err, cfg.path, strlen(cfg.path)) == 0 ? 2 : 1;
	}
	gw_config_wipe(&cfg);   /* keys now live only in the SAs */
	if (gw_telemetry_register(&ctx) != 0)   /* the gateway runs on; its commands are missing */
		fprintf(stderr, "hipgw: warning: DPDK telemetry refused a /hipgw command: "
			"/hipgw/stats and the control commands may be missing\n");
	ret = gw_run(&ctx, &opts);
	gw_destroy(&ctx);
	rte_eal_cleanup();
	if (opts.keylog != NULL && fclose(opts.keylog) != 0)
		ret = -1;
	return ret == 0 ? 0 : 1;
}
