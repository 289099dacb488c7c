/* SPDX-License-Identifier: BSD-3-Clause
 * The remote indices of a bridge's SAs (lib/runtime/gw_l2_setup.c
 * gw_l2_sa_bridge, gw_l2_sa_remote) on loaded configs: a bridge's peers
 * are its first remotes (remote r: the r-th of `peers`, as the config
 * checks record it in the peer), then the distinct remotes of its out SAs
 * in `sas` order; an in SA belongs to the remote its packets come from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gw_config.h"
#include "gw_l2_setup.h"

#define SA(name, dir, spi, k, remote, pfx)                                                \
	"[sa " name "]\ndirection = " dir "\nspi = " spi "\nsuite = aes128-gcm16\n"       \
	"key = 0x000102030405060708090a0b0c0d0e0f1011" k "\nlocal = 192.0.2.1\n"          \
	"remote = " remote "\nprefixes = " pfx "\n"
#define BASE                                                                              \
	"[port lan]\ndevice = net_null0\nrole = inner\naddress = 10.1.0.1/24\n"           \
	"[port wan]\ndevice = net_null1\nrole = outer\naddress = 192.0.2.1/24\n"          \
	"[port seg]\ndevice = net_null2\nrole = inner\nmode = l2\n"                       \
	SA("out1", "out", "0x1000", "0001", "198.51.100.9", "10.5.0.0/16")                \
	SA("in1", "in", "0x2000", "0002", "198.51.100.9", "10.5.0.0/16")                  \
	SA("out2", "out", "0x1001", "0003", "198.51.100.10", "10.6.0.0/16")               \
	SA("in2", "in", "0x2001", "0004", "198.51.100.10", "10.6.0.0/16")                 \
	SA("other", "out", "0x1002", "0005", "198.51.100.11", "10.7.0.0/16")
#define PEERS                                                                             \
	"[peer pa]\nhit = 2001:22::a\nlocator = 198.51.100.1\n"                           \
	"[peer pb]\nhit = 2001:22::b\nlocator = 198.51.100.2\nprefixes = 10.2.0.0/16\n"

static char hi_path[64];

/* text (with "@HI@" for the key file) loaded into a new config; NULL-free. */
static struct gw_config *
load(const char *text)
{
	char path[64] = "/tmp/hipgw-test-l2-XXXXXX", err[512], buf[4096];
	struct gw_config *cfg = calloc(1, sizeof(*cfg));
	const char *at = strstr(text, "@HI@");
	int fd = mkstemp(path);

	assert_non_null(cfg);
	assert_true(fd >= 0);
	if (at != NULL)
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text, hi_path, at + 4);
	else
		snprintf(buf, sizeof(buf), "%s", text);
	assert_int_equal(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
	close(fd);
	if (gw_config_load(path, cfg, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	unlink(path);
	return cfg;
}

static unsigned
sa_idx(const struct gw_config *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->n_sas; i++)
		if (strcmp(cfg->sas[i].name, name) == 0)
			return i;
	fail_msg("no SA %s", name);
	return 0;
}

/* Two peers, then two manual remotes: out1/in1 are remote 2, out2/in2 3. */
static void
test_peers_first(void **state)
{
	struct gw_config *cfg = load("[gateway]\nhi = @HI@\n" BASE PEERS
				     "[bridge b]\nport = seg\npeers = pa, pb\n"
				     "sas = in1, out1, out2, in2\n");

	(void)state;
	assert_int_equal(cfg->peers[0].bridge, 1);
	assert_int_equal(cfg->peers[0].bridge_remote, 0);
	assert_int_equal(cfg->peers[0].n_prefixes, 0);
	assert_int_equal(cfg->peers[1].bridge_remote, 1);
	assert_int_equal(gw_l2_sa_bridge(cfg, sa_idx(cfg, "out1")), 1);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "in1")), 2);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "out1")), 2);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "out2")), 3);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "in2")), 3);
	assert_int_equal(gw_l2_sa_bridge(cfg, sa_idx(cfg, "other")), 0);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "other")), 0);
	free(cfg);
}

/* No peers: the manual remotes from 0. */
static void
test_sas_only(void **state)
{
	struct gw_config *cfg = load(BASE "[bridge b]\nport = seg\nsas = out2, in1, out1, in2\n");

	(void)state;
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "out2")), 0);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "in2")), 0);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "in1")), 1);
	assert_int_equal(gw_l2_sa_remote(cfg, sa_idx(cfg, "out1")), 1);
	free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peers_first),
		cmocka_unit_test(test_sas_only),
	};
	int fd, rc;

	snprintf(hi_path, sizeof(hi_path), "/tmp/hipgw-test-l2hi-XXXXXX");
	fd = mkstemp(hi_path);              /* mode 0600: the loader only checks that */
	if (fd < 0 || write(fd, "not a real key\n", 15) != 15)
		return 1;
	close(fd);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(hi_path);
	return rc;
}
