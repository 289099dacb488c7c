/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw: a DPDK site gateway that carries a site's traffic in ESP to its peer.
 *
 *   hipgw [EAL options] -- --config FILE [--stats-json FILE] [--idle-exit MS]
 *   hipgw --check-config FILE
 *
 * Exit codes: 0 clean stop, 1 runtime failure (EAL, ports, memory),
 * 2 bad command line or config (message "FILE:LINE: ...").
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "gw.h"
#include "gw_config.h"
#include "hip_cli.h"

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
		   "       hipgw --check-config FILE\n");
}

static struct gw_config cfg;   /* large: keep off the stack */
static struct gw_ctx ctx;

static int
check_config(const char *path)
{
	char err[512];
	if (gw_config_load(path, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	gw_config_wipe(&cfg);
	printf("%s: OK (%u ports, %u SAs, %u HIP peers)\n", path, cfg.n_ports, cfg.n_sas, cfg.n_peers);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *config = NULL;
	struct gw_run_opts opts = { .signalled = &signalled };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "stats-json", required_argument, NULL, 's' },
		{ "idle-exit", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[512], *end;
	int sep, opt, ret;

	if (argc >= 2 && (!strcmp(argv[1], "keygen") || !strcmp(argv[1], "hit")))
		return hip_cli_main(argc - 1, argv + 1);
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
	{
		int aargc = argc - sep;
		char **aargv = argv + sep;
		optind = 1;
		while ((opt = getopt_long(aargc, aargv, "", longopts, NULL)) != -1) {
			switch (opt) {
			case 'c':
				config = optarg;
				break;
			case 's':
				opts.stats_json = optarg;
				break;
			case 'i':
				opts.idle_exit_ms = strtoull(optarg, &end, 10);
				if (*end != 0 || optarg[0] == '-') {
					fprintf(stderr, "hipgw: --idle-exit takes milliseconds\n");
					return 2;
				}
				break;
			case 'h':
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
			}
		}
		if (config == NULL || optind != aargc) {
			usage(stderr);
			return 2;
		}
	}
	if (gw_config_load(config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = rte_eal_init(sep, argv);
	if (ret < 0) {
		fprintf(stderr, "hipgw: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		gw_config_wipe(&cfg);
		return 1;
	}
	if (gw_create(&ctx, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipgw: %s\n", err);
		gw_destroy(&ctx);
		gw_config_wipe(&cfg);
		rte_eal_cleanup();
		return strchr(err, ':') != NULL && strncmp(err, cfg.path, strlen(cfg.path)) == 0 ? 2 : 1;
	}
	gw_config_wipe(&cfg);   /* keys now live only in the SAs */
	gw_telemetry_register(&ctx);
	ret = gw_run(&ctx, &opts);
	gw_destroy(&ctx);
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
