/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the config loader (lib/conf): a complete config of every key
 * parsed into the expected struct values, defaults, syntax variants, and each
 * class of error reported as "FILE:LINE: message" with the right line.
 *
 * Error cases mark the line that must be reported with a trailing comment
 * " ;!" (comments are stripped before anything else is looked at, so the mark
 * changes nothing); the test finds that line's number itself.
 *
 * HIP keys: `hi` names a key file whose existence and mode the loader checks.
 * main() makes temporary files for it (any content), and texts refer to them
 * as @HI@ (mode 0600), @HI644@ (mode 0644) and @HILINK@ (a symbolic link to
 * @HI@); subst() puts in the real paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "gw_config.h"
#include "gw_sagen.h"

#ifndef HIPGW_TEST_DATA
#define HIPGW_TEST_DATA "tests/data"
#endif

/* ---------- helpers ---------------------------------------------------------- */

static char hi_ok[64], hi_644[64], hi_link[80];   /* made by main() */

/* Copy text with @HI@, @HI644@ and @HILINK@ replaced by the key file paths.
 * Returns a malloc'd string. */
static char *
subst(const char *text)
{
	static const struct { const char *mark; const char *path; } m[] = {
		{ "@HI644@", hi_644 }, { "@HILINK@", hi_link }, { "@HI@", hi_ok },
	};
	size_t cap = strlen(text) * 2 + 256, n = 0;
	char *out = malloc(cap);

	assert_non_null(out);
	while (*text) {
		size_t i;

		for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (strncmp(text, m[i].mark, strlen(m[i].mark)) == 0)
				break;
		if (i < sizeof(m) / sizeof(m[0])) {
			size_t pl = strlen(m[i].path);

			assert_true(n + pl < cap);
			memcpy(out + n, m[i].path, pl);
			n += pl;
			text += strlen(m[i].mark);
		} else {
			assert_true(n + 1 < cap);
			out[n++] = *text++;
		}
	}
	out[n] = '\0';
	return out;
}

static void
make_key_files(void)
{
	int fd;

	snprintf(hi_ok, sizeof(hi_ok), "/tmp/hipgw-test-hi-XXXXXX");
	fd = mkstemp(hi_ok);               /* mode 0600 */
	if (fd < 0 || write(fd, "not a real key\n", 15) != 15) {
		perror("hi key file");
		exit(1);
	}
	close(fd);
	snprintf(hi_644, sizeof(hi_644), "/tmp/hipgw-test-hi644-XXXXXX");
	fd = mkstemp(hi_644);
	if (fd < 0 || fchmod(fd, 0644) != 0) {
		perror("hi 0644 key file");
		exit(1);
	}
	close(fd);
	snprintf(hi_link, sizeof(hi_link), "%s.link", hi_ok);
	if (symlink(hi_ok, hi_link) != 0) {
		perror("hi link");
		exit(1);
	}
}

static void
remove_key_files(void)
{
	unlink(hi_link);
	unlink(hi_644);
	unlink(hi_ok);
}

struct tmpconf {
	char path[64];
};

static void
write_conf(struct tmpconf *t, const char *text, size_t len)
{
	int fd;

	snprintf(t->path, sizeof(t->path), "/tmp/hipgw-test-conf-XXXXXX");
	fd = mkstemp(t->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static struct gw_config *
new_cfg(void)
{
	struct gw_config *cfg = malloc(sizeof(*cfg));

	assert_non_null(cfg);
	memset(cfg, 0xa5, sizeof(*cfg));   /* the loader must zero it */
	return cfg;
}

/* Load text; returns the loader's result, err filled. */
static int
load_len(const char *text, size_t len, struct gw_config *cfg, char *err, size_t errlen,
	 struct tmpconf *t)
{
	write_conf(t, text, len);
	return gw_config_load(t->path, cfg, err, errlen);
}

static bool
mem_is_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static struct gw_addr
A(const char *s)
{
	struct gw_addr a;

	memset(&a, 0, sizeof(a));
	if (strchr(s, ':')) {
		assert_int_equal(inet_pton(AF_INET6, s, a.addr), 1);
		a.family = 6;
	} else {
		assert_int_equal(inet_pton(AF_INET, s, a.addr), 1);
		a.family = 4;
	}
	return a;
}

static void
assert_addr(const struct gw_addr *a, const char *s)
{
	char buf[64];

	assert_string_equal(gw_addr_str(a, buf, sizeof(buf)), s);
}

static void
assert_prefix(const struct gw_prefix *p, const char *s)
{
	char buf[80], a[64];

	snprintf(buf, sizeof(buf), "%s/%u", gw_addr_str(&p->a, a, sizeof(a)), p->len);
	assert_string_equal(buf, s);
}

static void
assert_mac(const uint8_t *mac, const char *s)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	assert_string_equal(buf, s);
}

static void
assert_hex(const uint8_t *b, size_t n, const char *hex)
{
	char buf[256] = "";

	assert_true(n * 2 < sizeof(buf));
	for (size_t i = 0; i < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
	assert_string_equal(buf, hex);
}

/* ---------- a complete config: every key, both families ------------------------ */

#define K16  "000102030405060708090a0b0c0d0e0f"
#define K20  K16 "10111213"
#define K20B "f0e0d0c0b0a090807060504030201000" "10111213"   /* another GCM key */
#define K32  "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
#define K36  K32 "40414243"
#define A32  "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"

static const char full_conf[] =
	"; every key hipgw knows\n"
	"# hash comments too\n"
	"\n"
	"[gateway]\n"
	"workers = 4\n"
	"idle = busy   # inline hash comment\n"
	"\n"
	"[port lan]\n"
	"device = net_af_packet0,iface=veth-lan   ; inline comment\n"
	"role = inner\n"
	"address = 10.1.0.1/24, fd00:1::1/64\n"
	"mac = 02:00:00:AA:bb:01\n"
	"neighbors = 10.1.0.2 02:00:00:00:01:02, fd00:1::2 02:00:00:00:01:03\n"
	"routes = 10.1.5.0/24 via 10.1.0.254, fd00:5::/48   via  fd00:1::fe\n"
	"mtu = 1500\n"
	"tcp-mss-clamp = 1360\n"
	"\n"
	"[port wan]\n"
	"device = net_af_packet1,iface=veth-wan\n"
	"role = outer\n"
	"address = 192.0.2.1/24, 2001:db8::1/64\n"
	"gateway = 192.0.2.254, fe80::1\n"
	"mtu = 9000\n"
	"tcp-mss-clamp = off\n"
	"\n"
	"[port dmz]\n"
	"device = 0000:03:00.1\n"
	"role = inner\n"
	"address = 10.1.7.1/30\n"
	"gateway = 10.1.7.2\n"
	"mtu = 576\n"
	"\n"
	"[sa a-to-b]\n"
	"direction = out\n"
	"spi = 0x1000\n"
	"suite = aes128-gcm16\n"
	"key = 0x" K20 "\n"
	"local = 192.0.2.1\n"
	"remote = 198.51.100.1\n"
	"prefixes = 10.2.0.0/16, fd00:2::/48\n"
	"esn = on\n"
	"state = /tmp/hipgw-a-to-b.seq\n"
	"\n"
	"[sa b-to-a]\n"
	"direction = in\n"
	"spi = 4097\n"
	"suite = aes256-cbc-sha256\n"
	"key = 0x" K32 "\n"
	"auth-key = 0X" A32 "\n"
	"local = 2001:db8::1\n"
	"remote = 2001:db8:1::1\n"
	"prefixes = 10.2.0.0/16, fd00:2::/48\n"
	"local-prefixes = 10.1.0.0/16, fd00:1::/48\n"
	"esn = off\n"
	"replay-window = 4096\n"
	"\n"
	"[sa v6-out]\n"
	"suite = aes256-gcm16\n"         /* keys in any order */
	"direction = out\n"
	"spi = 0xffffffff\n"
	"key = 0x" K36 "\n"
	"local = 2001:db8::1\n"
	"remote = 2001:db8:1::1\n"
	"prefixes = fd00:3::/48, 10.3.0.0/16, 128.0.0.0/1\n"
	"\n"
	"[sa cbc-out]\n"
	"direction = out\n"
	"spi = 256\n"
	"suite = aes128-cbc-sha256\n"
	"key = 0x" K16 "\n"
	"auth-key = 0x" A32 "\n"
	"local = 192.0.2.1\n"
	"remote = 198.51.100.2\n"
	"prefixes = 10.4.0.0/16\n"
	"\n"
	"[sa null-in]\n"
	"direction = in\n"
	"spi = 0x1000\n"                 /* same SPI as an out SA: fine */
	"suite = null-sha256\n"
	"auth-key = 0x" A32 "\n"
	"local = 192.0.2.1\n"
	"remote = 198.51.100.2\n"
	"prefixes = 10.4.0.0/16\n"
	"replay-window = 0\n"
	"\n"
	"[policy]\n"
	"bypass = 10.9.0.0/16, fd00:9::/32\n";

static void
test_full_config(void **state)
{
	struct gw_config *cfg = new_cfg();
	char err[512] = "x";
	struct tmpconf t;
	const struct gw_conf_port *p;
	const struct gw_conf_sa *sa;

	(void)state;
	int rc = load_len(full_conf, strlen(full_conf), cfg, err, sizeof(err), &t);
	if (rc != 0)
		fail_msg("load failed: %s", err);
	assert_string_equal(err, "");
	assert_string_equal(cfg->path, t.path);
	assert_int_equal(cfg->workers, 4);
	assert_int_equal(cfg->idle, GW_IDLE_BUSY);

	assert_int_equal(cfg->n_ports, 3);
	p = &cfg->ports[0];
	assert_string_equal(p->name, "lan");
	assert_string_equal(p->device, "net_af_packet0,iface=veth-lan");
	assert_int_equal(p->role, GW_ROLE_INNER);
	assert_int_equal(p->n_addrs, 2);
	assert_prefix(&p->addrs[0], "10.1.0.1/24");
	assert_prefix(&p->addrs[1], "fd00:1::1/64");
	assert_true(p->has_mac);
	assert_mac(p->mac, "02:00:00:aa:bb:01");
	assert_int_equal(p->n_neigh, 2);
	assert_addr(&p->neigh[0].ip, "10.1.0.2");
	assert_mac(p->neigh[0].mac, "02:00:00:00:01:02");
	assert_addr(&p->neigh[1].ip, "fd00:1::2");
	assert_mac(p->neigh[1].mac, "02:00:00:00:01:03");
	assert_int_equal(p->n_routes, 2);
	assert_prefix(&p->routes[0].dst, "10.1.5.0/24");
	assert_addr(&p->routes[0].via, "10.1.0.254");
	assert_prefix(&p->routes[1].dst, "fd00:5::/48");
	assert_addr(&p->routes[1].via, "fd00:1::fe");
	assert_int_equal(p->gateway4.family, 0);
	assert_int_equal(p->gateway6.family, 0);
	assert_int_equal(p->mtu, 1500);
	assert_int_equal(p->mss_clamp, 1360);
	assert_int_equal(p->line, 8);

	p = &cfg->ports[1];
	assert_string_equal(p->name, "wan");
	assert_string_equal(p->device, "net_af_packet1,iface=veth-wan");
	assert_int_equal(p->role, GW_ROLE_OUTER);
	assert_int_equal(p->n_addrs, 2);
	assert_prefix(&p->addrs[0], "192.0.2.1/24");
	assert_prefix(&p->addrs[1], "2001:db8::1/64");
	assert_false(p->has_mac);
	assert_int_equal(p->n_neigh, 0);
	assert_int_equal(p->n_routes, 0);
	assert_addr(&p->gateway4, "192.0.2.254");
	assert_addr(&p->gateway6, "fe80::1");
	assert_int_equal(p->mtu, 9000);
	assert_int_equal(p->mss_clamp, GW_MSS_CLAMP_OFF);
	assert_int_equal(p->line, 18);

	p = &cfg->ports[2];
	assert_string_equal(p->name, "dmz");
	assert_string_equal(p->device, "0000:03:00.1");
	assert_prefix(&p->addrs[0], "10.1.7.1/30");
	assert_addr(&p->gateway4, "10.1.7.2");
	assert_int_equal(p->mtu, 576);
	assert_int_equal(p->mss_clamp, GW_MSS_CLAMP_AUTO);

	assert_int_equal(cfg->n_sas, 5);
	sa = &cfg->sas[0];
	assert_string_equal(sa->name, "a-to-b");
	assert_int_equal(sa->line, 33);
	assert_int_equal(sa->dir, GW_DIR_OUT);
	assert_int_equal(sa->spi, 0x1000);
	assert_int_equal(sa->suite, GW_SUITE_AES128_GCM16);
	assert_int_equal(sa->key_len, 20);
	assert_hex(sa->key, sa->key_len, K20);
	assert_int_equal(sa->auth_key_len, 0);
	assert_addr(&sa->local, "192.0.2.1");
	assert_addr(&sa->remote, "198.51.100.1");
	assert_int_equal(sa->n_prefixes, 2);
	assert_prefix(&sa->prefixes[0], "10.2.0.0/16");
	assert_prefix(&sa->prefixes[1], "fd00:2::/48");
	assert_int_equal(sa->n_local_prefixes, 0);
	assert_true(sa->esn);
	assert_string_equal(sa->state, "/tmp/hipgw-a-to-b.seq");
	assert_int_equal(sa->replay_window, 0);

	sa = &cfg->sas[1];
	assert_string_equal(sa->name, "b-to-a");
	assert_int_equal(sa->dir, GW_DIR_IN);
	assert_int_equal(sa->spi, 4097);
	assert_int_equal(sa->suite, GW_SUITE_AES256_CBC_SHA256);
	assert_int_equal(sa->key_len, 32);
	assert_hex(sa->key, sa->key_len, K32);
	assert_int_equal(sa->auth_key_len, 32);
	assert_hex(sa->auth_key, sa->auth_key_len, A32);
	assert_addr(&sa->local, "2001:db8::1");
	assert_addr(&sa->remote, "2001:db8:1::1");
	assert_int_equal(sa->n_local_prefixes, 2);
	assert_prefix(&sa->local_prefixes[0], "10.1.0.0/16");
	assert_prefix(&sa->local_prefixes[1], "fd00:1::/48");
	assert_false(sa->esn);
	assert_string_equal(sa->state, "");
	assert_int_equal(sa->replay_window, 4096);

	sa = &cfg->sas[2];
	assert_string_equal(sa->name, "v6-out");
	assert_int_equal(sa->spi, 0xffffffffu);
	assert_int_equal(sa->suite, GW_SUITE_AES256_GCM16);
	assert_int_equal(sa->key_len, 36);
	assert_hex(sa->key, sa->key_len, K36);
	assert_int_equal(sa->n_prefixes, 3);
	assert_prefix(&sa->prefixes[2], "128.0.0.0/1");
	assert_string_equal(sa->state, "/var/lib/hipgw/v6-out.seq");   /* default */

	sa = &cfg->sas[3];
	assert_int_equal(sa->spi, 256);
	assert_int_equal(sa->suite, GW_SUITE_AES128_CBC_SHA256);
	assert_int_equal(sa->key_len, 16);
	assert_hex(sa->key, 16, K16);
	assert_int_equal(sa->auth_key_len, 32);
	assert_string_equal(sa->state, "");   /* CBC: no state file */

	sa = &cfg->sas[4];
	assert_int_equal(sa->dir, GW_DIR_IN);
	assert_int_equal(sa->suite, GW_SUITE_NULL_SHA256);
	assert_int_equal(sa->key_len, 0);
	assert_int_equal(sa->auth_key_len, 32);
	assert_int_equal(sa->replay_window, 0);

	assert_int_equal(cfg->n_bypass, 2);
	assert_prefix(&cfg->bypass[0], "10.9.0.0/16");
	assert_prefix(&cfg->bypass[1], "fd00:9::/32");

	gw_config_wipe(cfg);
	for (unsigned i = 0; i < GW_CONF_MAX_SAS; i++) {
		assert_true(mem_is_zero(cfg->sas[i].key, sizeof(cfg->sas[i].key)));
		assert_true(mem_is_zero(cfg->sas[i].auth_key, sizeof(cfg->sas[i].auth_key)));
		assert_int_equal(cfg->sas[i].key_len, 0);
		assert_int_equal(cfg->sas[i].auth_key_len, 0);
	}
	unlink(t.path);
	free(cfg);
}

/* ---------- the example config ------------------------------------------------- */

static void
test_example_gwA(void **state)
{
	struct gw_config *cfg = new_cfg();
	char err[512];

	(void)state;
	if (gw_config_load(HIPGW_TEST_DATA "/conf/valid-gwA.ini", cfg, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(cfg->workers, 1);
	assert_int_equal(cfg->idle, GW_IDLE_ADAPTIVE);
	assert_int_equal(cfg->n_ports, 2);
	assert_string_equal(cfg->ports[0].name, "lan");
	assert_string_equal(cfg->ports[0].device, "net_af_packet0,iface=veth-gwA-lan");
	assert_int_equal(cfg->ports[0].n_neigh, 0);       /* commented out with '#' */
	assert_string_equal(cfg->ports[1].name, "wan");
	assert_addr(&cfg->ports[1].gateway4, "192.0.2.254");
	assert_int_equal(cfg->n_sas, 2);
	assert_int_equal(cfg->sas[0].spi, 0x1000);
	assert_int_equal(cfg->sas[0].dir, GW_DIR_OUT);
	assert_hex(cfg->sas[0].key, cfg->sas[0].key_len, "4c80cdefbb5d10da906ac73c3613a634dbfcc3a8");
	assert_int_equal(cfg->sas[1].spi, 0x2000);
	assert_int_equal(cfg->sas[1].dir, GW_DIR_IN);
	assert_int_equal(cfg->sas[1].replay_window, 1024);
	assert_int_equal(cfg->sas[1].n_local_prefixes, 2);
	assert_int_equal(cfg->n_bypass, 1);
	gw_config_wipe(cfg);
	free(cfg);
}

/* ---------- defaults and syntax variants --------------------------------------- */

#define LAN "[port lan]\ndevice = net_null0\nrole = inner\naddress = 10.1.0.1/24, fd00:1::1/64\n"
#define WAN "[port wan]\ndevice = net_null1\nrole = outer\naddress = 192.0.2.1/24, 2001:db8::1/64\n"
#define SA_OUT "[sa out1]\ndirection = out\nspi = 0x1000\nsuite = aes128-gcm16\n" \
	"key = 0x" K20 "\nlocal = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n"
#define SA_IN "[sa in1]\ndirection = in\nspi = 0x2000\nsuite = aes128-gcm16\n" \
	"key = 0x" K20B "\nlocal = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n"

static void
test_defaults(void **state)
{
	static const char text[] = LAN WAN SA_OUT SA_IN;
	struct gw_config *cfg = new_cfg();
	char err[512];
	struct tmpconf t;

	(void)state;
	if (load_len(text, strlen(text), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	assert_int_equal(cfg->workers, 1);
	assert_int_equal(cfg->idle, GW_IDLE_ADAPTIVE);
	assert_int_equal(cfg->ports[0].mtu, 1500);
	assert_int_equal(cfg->ports[0].mss_clamp, GW_MSS_CLAMP_AUTO);
	assert_false(cfg->ports[0].has_mac);
	assert_int_equal(cfg->ports[1].line, 5);
	assert_false(cfg->sas[0].esn);
	assert_string_equal(cfg->sas[0].state, "/var/lib/hipgw/out1.seq");
	assert_int_equal(cfg->sas[0].replay_window, 0);
	assert_int_equal(cfg->sas[1].replay_window, 1024);
	assert_string_equal(cfg->sas[1].state, "");
	assert_int_equal(cfg->sas[1].n_local_prefixes, 0);
	assert_int_equal(cfg->n_bypass, 0);
	/* HIP defaults */
	assert_string_equal(cfg->hi_path, "");
	assert_int_equal(cfg->puzzle_k, 10);
	assert_int_equal(cfg->r1_rate, 20000);
	assert_int_equal(cfg->n_esp_transforms, 3);
	assert_int_equal(cfg->esp_transforms[0], 13);
	assert_int_equal(cfg->esp_transforms[1], 9);
	assert_int_equal(cfg->esp_transforms[2], 8);
	assert_int_equal(cfg->n_dh_groups, 3);
	assert_int_equal(cfg->dh_groups[0], 7);
	assert_int_equal(cfg->dh_groups[1], 8);
	assert_int_equal(cfg->dh_groups[2], 4);
	assert_int_equal(cfg->n_hip_ciphers, 2);
	assert_int_equal(cfg->hip_ciphers[0], 2);
	assert_int_equal(cfg->hip_ciphers[1], 4);
	assert_int_equal(cfg->sa_lifetime_s, 3600);
	assert_int_equal(cfg->sa_lifetime_bytes, 1ull << 30);
	assert_int_equal(cfg->n_peers, 0);
	unlink(t.path);
	gw_config_wipe(cfg);
	free(cfg);
}

/* ---------- HIP keying: [gateway] HIP keys, [peer] sections beside [sa] ------- */

#define HIT_B  "2001:22:a485:4abe:81de:a7b2:9a70:44b4"     /* OGA 2: ECDSA/SHA-384 */
#define HIT_C  "2001:21:1111:2222:3333:4444:5555:6666"     /* OGA 1: RSA/SHA-256 */
#define HIT_D  "2001:23::d"                                /* OGA 3: ECDSA_LOW/SHA-1 */

static const char hip_conf[] =
	"[port lan]\n"
	"device = net_null0\n"
	"role = inner\n"
	"address = 10.1.0.1/24, fd00:1::1/64\n"
	"\n"
	"[port wan]\n"
	"device = net_null1\n"
	"role = outer\n"
	"address = fe80::1/64, 192.0.2.1/24, 2001:db8::1/64, 192.0.2.7/24\n"
	"\n"
	"[port wan2]\n"
	"device = net_null2\n"
	"role = outer\n"
	"address = 198.18.0.1/24, 2001:db8:f::1/64\n"
	"\n"
	"[gateway]\n"                      /* after the ports: order does not matter */
	"hi = @HI@   ; this gateway's Host Identity\n"
	"puzzle-k = 28\n"
	"esp-transforms = null-sha256, aes-gcm16,aes128-cbc-sha256\n"
	"dh-groups = modp3072, nist-p256\n"
	"hip-ciphers = null, aes256-cbc, aes128-cbc\n"
	"sa-lifetime = 512MiB, 2h\n"
	"r1-rate = 160\n"                  /* no blank line: keep the lines below */
	"[peer siteB]\n"                   /* line 24 */
	"hit = " HIT_B "\n"
	"locator = 198.51.100.1, 2001:db8:2::1\n"
	"prefixes = 10.2.0.0/16, fd00:2::/48\n"
	"\n"
	"[sa m-out]\n"                     /* manual SAs beside the peers */
	"direction = out\n"
	"spi = 0x1000\n"
	"suite = aes128-gcm16\n"
	"key = 0x" K20 "\n"
	"local = 192.0.2.1\n"
	"remote = 198.51.100.9\n"
	"prefixes = 10.9.0.0/16\n"
	"\n"
	"[sa m-in]\n"                      /* in SA prefixes may overlap a peer's */
	"direction = in\n"
	"spi = 0x1000\n"
	"suite = aes128-gcm16\n"
	"key = 0x" K20B "\n"
	"local = 192.0.2.1\n"
	"remote = 198.51.100.9\n"
	"prefixes = 10.9.0.0/16, 10.2.0.0/16\n"
	"\n"
	"[peer siteC]\n"                   /* line 47 */
	"prefixes = 10.3.0.0/16, 10.4.0.0/24, 10.4.1.0/24\n"
	"local = 2001:db8:f::1\n"
	"locator = 2001:db8:3::1, 203.0.113.3\n"
	"hit = 2001:0021:1111:2222:3333:4444:5555:6666\n"
	"\n"
	"[peer siteD]\n"
	"hit = " HIT_D "\n"
	"locator = 2001:db8:4::1\n"
	"prefixes = fd00:4::/48\n";

static void
test_hip_config(void **state)
{
	struct gw_config *cfg = new_cfg();
	char err[512] = "x", *text = subst(hip_conf);
	const struct gw_conf_peer *pe;
	struct tmpconf t;
	struct gw_addr h;

	(void)state;
	int rc = load_len(text, strlen(text), cfg, err, sizeof(err), &t);
	unlink(t.path);
	if (rc != 0)
		fail_msg("load failed: %s", err);
	assert_string_equal(cfg->hi_path, hi_ok);
	assert_int_equal(cfg->puzzle_k, 28);
	assert_int_equal(cfg->r1_rate, 160);
	assert_int_equal(cfg->n_esp_transforms, 3);
	assert_int_equal(cfg->esp_transforms[0], 7);
	assert_int_equal(cfg->esp_transforms[1], 13);
	assert_int_equal(cfg->esp_transforms[2], 8);
	assert_int_equal(cfg->n_dh_groups, 2);
	assert_int_equal(cfg->dh_groups[0], 4);
	assert_int_equal(cfg->dh_groups[1], 7);
	assert_int_equal(cfg->n_hip_ciphers, 3);
	assert_int_equal(cfg->hip_ciphers[0], 1);
	assert_int_equal(cfg->hip_ciphers[1], 4);
	assert_int_equal(cfg->hip_ciphers[2], 2);
	assert_int_equal(cfg->sa_lifetime_s, 7200);
	assert_int_equal(cfg->sa_lifetime_bytes, 512ull << 20);
	assert_int_equal(cfg->n_sas, 2);
	assert_string_equal(cfg->sas[1].name, "m-in");

	assert_int_equal(cfg->n_peers, 3);
	pe = &cfg->peers[0];
	assert_string_equal(pe->name, "siteB");
	assert_int_equal(pe->line, 24);
	memset(&h, 0, sizeof(h));
	h.family = 6;
	memcpy(h.addr, pe->hit, 16);
	assert_addr(&h, HIT_B);
	assert_hex(pe->hit, 16, "20010022a4854abe81dea7b29a7044b4");
	assert_int_equal(pe->n_locators, 2);
	assert_addr(&pe->locators[0], "198.51.100.1");
	assert_addr(&pe->locators[1], "2001:db8:2::1");
	assert_false(pe->has_local);
	assert_addr(&pe->local, "192.0.2.1");     /* first IPv4 of an outer port */
	assert_int_equal(pe->n_prefixes, 2);
	assert_prefix(&pe->prefixes[0], "10.2.0.0/16");
	assert_prefix(&pe->prefixes[1], "fd00:2::/48");

	pe = &cfg->peers[1];
	assert_string_equal(pe->name, "siteC");
	assert_int_equal(pe->line, 47);
	assert_hex(pe->hit, 16, "20010021111122223333444455556666");
	assert_int_equal(pe->n_locators, 2);
	assert_addr(&pe->locators[0], "2001:db8:3::1");
	assert_addr(&pe->locators[1], "203.0.113.3");
	assert_true(pe->has_local);
	assert_addr(&pe->local, "2001:db8:f::1");
	assert_int_equal(pe->n_prefixes, 3);
	assert_prefix(&pe->prefixes[2], "10.4.1.0/24");

	pe = &cfg->peers[2];
	assert_string_equal(pe->name, "siteD");
	assert_hex(pe->hit, 16, "2001002300000000000000000000000d");
	assert_false(pe->has_local);
	assert_addr(&pe->local, "2001:db8::1");   /* first IPv6, link-local last */
	assert_int_equal(pe->n_prefixes, 1);

	assert_string_equal(gw_esp_transform_name(13), "aes-gcm16");
	assert_string_equal(gw_esp_transform_name(9), "aes256-cbc-sha256");
	assert_string_equal(gw_esp_transform_name(8), "aes128-cbc-sha256");
	assert_string_equal(gw_esp_transform_name(7), "null-sha256");
	assert_string_equal(gw_esp_transform_name(12), "?");
	assert_string_equal(gw_dh_group_name(7), "nist-p256");
	assert_string_equal(gw_dh_group_name(8), "nist-p384");
	assert_string_equal(gw_dh_group_name(4), "modp3072");
	assert_string_equal(gw_dh_group_name(3), "?");
	assert_string_equal(gw_hip_cipher_name(1), "null");
	assert_string_equal(gw_hip_cipher_name(2), "aes128-cbc");
	assert_string_equal(gw_hip_cipher_name(4), "aes256-cbc");
	assert_string_equal(gw_hip_cipher_name(3), "?");
	gw_config_wipe(cfg);
	free(text);
	free(cfg);
}

/* sa-lifetime variants: a limit left out is 0 (none). */
static void
test_hip_lifetime(void **state)
{
	static const struct { const char *v; uint64_t s, b; } c[] = {
		{ "3600s, 1GiB", 3600, 1ull << 30 },
		{ "1GiB, 3600s", 3600, 1ull << 30 },
		{ "10m", 600, 0 },
		{ "1s", 1, 0 },
		{ "720h", 720 * 3600, 0 },
		{ "43200m", 720 * 3600, 0 },
		{ "2592000s", 720 * 3600, 0 },
		{ "1KiB", 0, 1024 },
		{ "1024B", 0, 1024 },
		{ "3MiB", 0, 3ull << 20 },
		{ "1024TiB", 0, 1ull << 50 },
		{ "5h,\t7TiB", 5 * 3600, 7ull << 40 },
	};
	struct gw_config *cfg = new_cfg();
	char text[512], err[512], *tx;
	struct tmpconf t;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(text, sizeof(text), "[gateway]\nsa-lifetime = %s\n" LAN WAN, c[i].v);
		tx = subst(text);
		int rc = load_len(tx, strlen(tx), cfg, err, sizeof(err), &t);
		unlink(t.path);
		free(tx);
		if (rc != 0)
			fail_msg("%s: %s", c[i].v, err);
		assert_int_equal(cfg->sa_lifetime_s, c[i].s);
		assert_int_equal(cfg->sa_lifetime_bytes, c[i].b);
	}
	free(cfg);
}

/* r1-rate: 0 (no limit) .. 10000000 R1/s, default 20000 (test_defaults) */
static void
test_r1_rate(void **state)
{
	static const struct { const char *v; uint32_t r; } c[] = {
		{ "0", 0 }, { "1", 1 }, { "20000", 20000 }, { "160", 160 }, { "10000000", 10000000 },
	};
	struct gw_config *cfg = new_cfg();
	char text[512], err[512];
	struct tmpconf t;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(text, sizeof(text), "[gateway]\nr1-rate = %s ; R1/s\n" LAN WAN, c[i].v);
		int rc = load_len(text, strlen(text), cfg, err, sizeof(err), &t);
		unlink(t.path);
		if (rc != 0)
			fail_msg("%s: %s", c[i].v, err);
		assert_int_equal(cfg->r1_rate, c[i].r);
	}
	free(cfg);
}

static void
test_syntax_variants(void **state)
{
	/* BOM, CRLF, tabs, blank-padded header, comments of both kinds, '=' and ';'
	 * glued to a value, last line without newline */
	static const char text[] =
		"\xef\xbb\xbf# leading comment with = sign\r\n"
		"; another = one\r\n"
		"[ port \t lan ]   ; header comment\r\n"
		"\tdevice=net_pcap0,rx_pcap=/tmp/in#1.pcap,tx_pcap=/tmp/out;1.pcap\r\n"
		"role\t=\tinner\r\n"
		"address = 10.1.0.1/24\r\n"
		"   # indented comment\r\n"
		"[port wan]\n"
		"device = net_null1\n"
		"role = outer\n"
		"address = 192.0.2.1/24";
	struct gw_config *cfg = new_cfg();
	char err[512];
	struct tmpconf t;

	(void)state;
	if (load_len(text, strlen(text), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	assert_int_equal(cfg->n_ports, 2);
	assert_string_equal(cfg->ports[0].name, "lan");
	assert_string_equal(cfg->ports[0].device,
			    "net_pcap0,rx_pcap=/tmp/in#1.pcap,tx_pcap=/tmp/out;1.pcap");
	assert_int_equal(cfg->ports[0].line, 3);
	assert_int_equal(cfg->ports[1].line, 8);
	assert_prefix(&cfg->ports[1].addrs[0], "192.0.2.1/24");
	unlink(t.path);
	free(cfg);
}

/* Limits: exactly at the limit passes, one byte more fails on that line. */
static void
test_limits(void **state)
{
	struct gw_config *cfg = new_cfg();
	char *text = malloc(8192), err[512], want[256];
	struct tmpconf t;
	char dev[300], name[64];

	(void)state;
	assert_non_null(text);

	/* value of 255 bytes, line of exactly 1024 bytes */
	memset(dev, 'd', 255);
	dev[255] = '\0';
	int n = snprintf(text, 8192, LAN WAN "[gateway]\nidle = busy ;");
	size_t pad = 1024 - strlen("idle = busy ;");
	memset(text + n, 'c', pad);
	n += (int)pad;
	n += snprintf(text + n, 8192 - (size_t)n, "\n[port dmz]\ndevice = %s\nrole = inner\n"
		      "address = 10.3.0.1/24\n", dev);
	if (load_len(text, (size_t)n, cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	assert_int_equal(strlen(cfg->ports[2].device), 255);
	unlink(t.path);

	/* line of 1025 bytes: line 10 */
	n = snprintf(text, 8192, LAN WAN "[gateway]\nidle = busy ;");
	memset(text + n, 'c', pad + 1);
	n += (int)pad + 1;
	text[n++] = '\n';
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:10: line longer than 1024 bytes", t.path);
	assert_string_equal(err, want);
	unlink(t.path);

	/* value of 256 bytes: line 11 */
	n = snprintf(text, 8192, LAN WAN "[port dmz]\ndevice = %sd\n", dev);
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:10: value of 'device' longer than 255 bytes", t.path);
	assert_string_equal(err, want);
	unlink(t.path);

	/* key name of 64 bytes */
	memset(name, 'k', 64);
	name[63] = '\0';
	n = snprintf(text, 8192, LAN "%s = 1\n", name);
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:5: unknown key", t.path);  /* 63: merely unknown */
	assert_memory_equal(err, want, strlen(want));
	unlink(t.path);
	n = snprintf(text, 8192, LAN "%sk = 1\n", name);
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:5: key name longer than 63 bytes", t.path);
	assert_string_equal(err, want);
	unlink(t.path);

	/* section name of 31 bytes passes, 32 fails */
	memset(name, 'p', 31);
	name[31] = '\0';
	n = snprintf(text, 8192, LAN WAN "[port %s]\ndevice = x\nrole = inner\naddress = 10.5.0.1/24\n",
		     name);
	if (load_len(text, (size_t)n, cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	assert_string_equal(cfg->ports[2].name, name);
	unlink(t.path);
	n = snprintf(text, 8192, LAN WAN "[port %sp]\n", name);
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:9: section name '%sp' longer than 31 bytes", t.path, name);
	assert_string_equal(err, want);
	unlink(t.path);

	/* 8 ports pass, the 9th header fails */
	n = 0;
	for (int i = 0; i < 9; i++)
		n += snprintf(text + n, 8192 - (size_t)n, "[port p%d]\ndevice = d%d\nrole = %s\n"
			      "address = 10.%d.0.1/24\n", i, i, i ? "inner" : "outer", i);
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:33: too many [port] sections (at most 8)", t.path);
	assert_string_equal(err, want);
	unlink(t.path);
	n -= (int)strlen("[port p8]\ndevice = d8\nrole = inner\naddress = 10.8.0.1/24\n");
	if (load_len(text, (size_t)n, cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	assert_int_equal(cfg->n_ports, 8);
	unlink(t.path);

	/* 33 prefixes */
	n = snprintf(text, 8192, LAN WAN "[policy]\nbypass = 10.100.0.0/24");
	for (int i = 1; i < 33; i++)
		n += snprintf(text + n, 8192 - (size_t)n, ",10.%d.0.0/16", 100 + i);
	text[n++] = '\n';
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:10: value of 'bypass' longer than 255 bytes", t.path);
	assert_string_equal(err, want);   /* rte_cfgfile's value limit comes first */
	unlink(t.path);
	n = snprintf(text, 8192, LAN WAN "[policy]\nbypass = 1::/16");
	for (int i = 2; i <= 33; i++)
		n += snprintf(text + n, 8192 - (size_t)n, ",%x::/16", i);
	text[n++] = '\n';
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:10: bypass: more than 32 prefixes", t.path);
	assert_string_equal(err, want);
	unlink(t.path);

	/* NUL byte on line 3 */
	n = snprintf(text, 8192, "[port lan]\ndevice = a\nrole = in");
	text[n++] = '\0';
	n += snprintf(text + n, 8192 - (size_t)n, "ner\n");
	assert_int_equal(load_len(text, (size_t)n, cfg, err, sizeof(err), &t), -1);
	snprintf(want, sizeof(want), "%s:3: NUL byte in the file", t.path);
	assert_string_equal(err, want);
	unlink(t.path);

	free(text);
	free(cfg);
}

static void
test_file_errors(void **state)
{
	struct gw_config *cfg = new_cfg();
	char err[512], longpath[400];

	(void)state;
	assert_int_equal(gw_config_load("/nonexistent/hipgw.ini", cfg, err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/hipgw.ini:0: cannot open: No such file or directory");
	assert_int_equal(gw_config_load("/tmp", cfg, err, sizeof(err)), -1);
	assert_string_equal(err, "/tmp:0: cannot read: Is a directory");
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(gw_config_load(longpath, cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":0: config path longer than 255 bytes"));
	/* a path with a newline still gives one line */
	assert_int_equal(gw_config_load("/tmp/no\nsuch", cfg, err, sizeof(err)), -1);
	assert_string_equal(err, "/tmp/no?such:0: cannot open: No such file or directory");
	/* tiny and absent error buffers */
	assert_int_equal(gw_config_load("/nonexistent", cfg, err, 4), -1);
	assert_string_equal(err, "/no");
	assert_int_equal(gw_config_load("/nonexistent", cfg, NULL, 0), -1);
	assert_int_equal(gw_config_load(NULL, cfg, err, sizeof(err)), -1);
	assert_int_equal(gw_config_load("/x", NULL, err, sizeof(err)), -1);
	free(cfg);
}

/* ---------- error cases: exact FILE:LINE -------------------------------------- */

struct err_case {
	const char *name;
	const char *text;
	int line;             /* -1: the line marked " ;!" */
	const char *msg;      /* expected start of the message after "FILE:LINE: " */
};

#define HEX16 "0x" K16
#define GW_HI "[gateway]\nhi = @HI@\n"
#define SAGEN "[sa-gen g]\ncount = 1000\ndirection = both\nsuite = aes128-gcm16\nlocal = 192.0.2.1\nremote = 192.0.2.2\n"
#define WAN4 "[port wan]\ndevice = net_null1\nrole = outer\naddress = 192.0.2.1/24\n"
#define PEER_B_AT(mark) "[peer siteB]" mark "\nhit = " HIT_B "\nlocator = 198.51.100.1\nprefixes = 10.2.0.0/16\n"
#define PEER_B PEER_B_AT("")
#define PEER_C "[peer siteC]\nhit = " HIT_C "\nlocator = 2001:db8:3::1\nprefixes = 10.3.0.0/16\n"
#define CBC_SA(extra) "[sa c1]\ndirection = out\nspi = 0x3000\nsuite = aes128-cbc-sha256\n" \
	"key = " HEX16 "\nauth-key = 0x" A32 "\nlocal = 192.0.2.1\nremote = 198.51.100.1\n" \
	"prefixes = 10.5.0.0/16\n" extra

static const struct err_case err_cases[] = {
	/* syntax (pre-scan) */
	{ "no_equals", "[gateway]\nworkers 1 ;!\n", -1, "expected 'key = value' or a [section] header" },
	{ "no_equals_line_num", LAN WAN "bogus line\n", 9, "expected 'key = value'" },
	{ "header_unterminated", LAN "[port wan ;!\n", -1, "malformed section header" },
	{ "header_trailing_junk", LAN "[port wan] x ;!\n", -1, "malformed section header" },
	{ "header_nested", "[port [lan]] ;!\n", -1, "malformed section header" },
	{ "header_empty", LAN "[] ;!\n", -1, "unknown section type ''" },
	{ "unknown_section", LAN "[tunnel x] ;!\n", -1, "unknown section type 'tunnel'" },
	{ "section_case", LAN "[Port x] ;!\n", -1, "unknown section type 'Port'" },
	{ "port_without_name", LAN "[port] ;!\n", -1, "section [port] needs a name: [port NAME]" },
	{ "sa_without_name", LAN "[sa   ] ;!\n", -1, "section [sa] needs a name" },
	{ "gateway_with_name", "[gateway main] ;!\n", -1, "[gateway] takes no name" },
	{ "policy_with_name", LAN "[policy x] ;!\n", -1, "[policy] takes no name" },
	{ "section_name_char", LAN "[sa a/b] ;!\n", -1, "section name 'a/b': character 2 not allowed" },
	{ "section_name_first_char", LAN "[sa -ab] ;!\n", -1, "section name '-ab': character 1 not allowed" },
	{ "duplicate_section", LAN WAN "[port lan] ;!\n", -1, "duplicate section [port lan] (first on line 1)" },
	{ "duplicate_gateway", "[gateway]\n[policy]\n[gateway] ;!\n", -1, "duplicate section [gateway] (first on line 1)" },
	{ "duplicate_key", LAN "role = outer ;!\n", -1, "duplicate key 'role' in [port lan] (first on line 3)" },
	{ "unknown_key", LAN "speed = 10G ;!\n", -1, "unknown key 'speed' in [port lan]" },
	{ "key_of_other_section", "[gateway]\nmtu = 1500 ;!\n", -1, "unknown key 'mtu' in [gateway]" },
	{ "key_before_section", "\n; c\nworkers = 1 ;!\n[gateway]\n", -1, "key 'workers' before the first [section]" },
	{ "missing_key_name", LAN " = 5 ;!\n", -1, "missing key name before '='" },
	{ "empty_value", LAN "mtu = ;!\n", -1, "empty value for 'mtu'" },
	{ "empty_value_no_comment", LAN "mtu =\n", 5, "empty value for 'mtu'" },
	{ "control_char", LAN "mtu = 15\00100 ;!\n", -1, "control character 0x01 at column 9" },
	{ "carriage_return_inside", LAN "mtu = 1500\r ;!\n", -1, "control character 0x0d" },
	{ "non_ascii_value", LAN "mtu = 1500\xc2\xa0 ;!\n", -1, "non-ASCII character in the value of 'mtu'" },

	/* [gateway] values */
	{ "workers_zero", "[gateway]\nworkers = 0 ;!\n", -1, "workers: '0' is not a number 1..16" },
	{ "workers_17", "[gateway]\nworkers = 17 ;!\n", -1, "workers: '17' is not a number 1..16" },
	{ "workers_hex", "[gateway]\nworkers = 0x2 ;!\n", -1, "workers: '0x2' is not a number" },
	{ "workers_negative", "[gateway]\nworkers = -1 ;!\n", -1, "workers: '-1' is not a number" },
	{ "idle_bad", "[gateway]\nidle = sleepy ;!\n", -1, "idle: 'sleepy' is not one of busy | adaptive" },

	/* [port] values */
	{ "missing_device", "[port lan] ;!\nrole = inner\naddress = 10.1.0.1/24\n" WAN, -1,
	  "[port lan]: missing key 'device'" },
	{ "missing_address", LAN "[port wan] ;!\ndevice = x\nrole = outer\n", -1, "[port wan]: missing key 'address'" },
	{ "role_bad", "[port lan]\ndevice = x\nrole = middle ;!\n", -1, "role: 'middle' is not one of inner | outer" },
	{ "address_bad_v4", "[port lan]\naddress = 10.1.0.300/24 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: '10.1.0.300' is not an IPv4 or IPv6 address" },
	{ "address_bad_v6", "[port lan]\naddress = fd00::1::2/64 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: 'fd00::1::2' is not an IPv4 or IPv6 address" },
	{ "address_no_len", "[port lan]\naddress = 10.1.0.1 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: '10.1.0.1' needs a prefix length" },
	{ "address_len_33", "[port lan]\naddress = 10.1.0.1/33 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: prefix length in '10.1.0.1/33' must be 0..32" },
	{ "address_len_129", "[port lan]\naddress = fd00::1/129 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: prefix length in 'fd00::1/129' must be 0..128" },
	{ "address_len_junk", "[port lan]\naddress = 10.1.0.1/2x ;!\ndevice = x\nrole = inner\n", -1,
	  "address: prefix length in '10.1.0.1/2x' must be 0..32" },
	{ "address_network", "[port lan]\naddress = 10.1.0.0/24 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: '10.1.0.0/24' is the network address" },
	{ "address_broadcast", "[port lan]\naddress = 10.1.0.255/24 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: '10.1.0.255/24' is the broadcast address" },
	{ "address_multicast", "[port lan]\naddress = ff02::1/64 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: 'ff02::1/64' is not a unicast address" },
	{ "address_twice", "[port lan]\naddress = 10.1.0.1/24, 10.1.0.1/16 ;!\ndevice = x\nrole = inner\n", -1,
	  "address: '10.1.0.1/16' is listed twice" },
	{ "address_empty_element", "[port lan]\naddress = 10.1.0.1/24,, fd00::1/64 ;!\ndevice = x\nrole = inner\n",
	  -1, "address: empty element in list" },
	{ "address_trailing_comma", "[port lan]\naddress = 10.1.0.1/24, ;!\ndevice = x\nrole = inner\n", -1,
	  "address: empty element in list" },
	{ "address_nine", "[port lan]\ndevice = x\nrole = inner\naddress = 10.0.0.1/24, 10.0.1.1/24, "
	  "10.0.2.1/24, 10.0.3.1/24, 10.0.4.1/24, 10.0.5.1/24, 10.0.6.1/24, 10.0.7.1/24, 10.0.8.1/24 ;!\n",
	  -1, "address: more than 8 addresses" },
	{ "mac_bad", LAN "mac = 02:00:00:00:00 ;!\n", -1, "mac: '02:00:00:00:00' is not a MAC address" },
	{ "mac_bad_sep", LAN "mac = 02-00-00-00-00-01 ;!\n", -1, "mac: '02-00-00-00-00-01' is not a MAC address" },
	{ "mac_multicast", LAN "mac = 01:00:5e:00:00:01 ;!\n", -1, "mac: '01:00:5e:00:00:01' is not a unicast MAC" },
	{ "neighbor_syntax", LAN "neighbors = 10.1.0.2 ;!\n", -1, "neighbors: expected 'IP MAC, IP MAC, ...'" },
	{ "neighbor_three_words", LAN "neighbors = 10.1.0.2 02:00:00:00:00:02 x ;!\n", -1, "neighbors: expected" },
	{ "neighbor_bad_mac", LAN "neighbors = 10.1.0.2 02:00:00:00:00:0g ;!\n", -1,
	  "neighbors: '02:00:00:00:00:0g' is not a MAC address" },
	{ "neighbor_off_link", LAN "neighbors = 10.1.0.2 02:00:00:00:01:02,\t10.7.0.2 02:00:00:00:01:02 ;!\n",
	  -1, "neighbors: 10.7.0.2 is not on a network of port lan" },
	{ "neighbor_self", LAN "neighbors = fd00:1::1 02:00:00:00:01:02 ;!\n", -1,
	  "neighbors: fd00:1::1 is an address of port lan itself" },
	{ "neighbor_twice", LAN "neighbors = 10.1.0.2 02:00:00:00:01:02, 10.1.0.2 02:00:00:00:01:03 ;!\n", -1,
	  "neighbors: 10.1.0.2 is listed twice" },
	{ "route_no_via", LAN "routes = 10.1.5.0/24 10.1.0.254 ;!\n", -1, "routes: expected 'PREFIX via IP, ...'" },
	{ "route_off_link", LAN "routes = 10.1.5.0/24 via 10.9.0.254 ;!\n", -1,
	  "routes: 10.9.0.254 is not on a network of port lan" },
	{ "route_family", LAN "routes = 10.1.5.0/24 via fd00:1::fe ;!\n", -1,
	  "routes: 10.1.5.0/24 and next hop fd00:1::fe are of different families" },
	{ "route_host_bits", LAN "routes = 10.1.5.1/24 via 10.1.0.254 ;!\n", -1,
	  "routes: '10.1.5.1/24' has host bits set (network 10.1.5.0/24?)" },
	{ "gateway_two_v4", LAN WAN "gateway = 192.0.2.254, 192.0.2.253 ;!\n", -1, "gateway: more than one IPv4 gateway" },
	{ "gateway_three", LAN WAN "gateway = 192.0.2.254, fe80::1, 2001:db8::2 ;!\n", -1,
	  "gateway: at most one IPv4 and one IPv6 address" },
	{ "gateway_off_link", LAN WAN "gateway = 192.0.3.254 ;!\n", -1, "gateway: 192.0.3.254 is not on a network of port wan" },
	{ "gateway_bad", LAN WAN "gateway = 192.0.2 ;!\n", -1, "gateway: '192.0.2' is not an IPv4 or IPv6 address" },
	{ "mtu_575", "[port lan]\ndevice = x\nrole = inner\naddress = 10.1.0.1/24\nmtu = 575 ;!\n", -1,
	  "mtu: '575' is not a number 576..9000" },
	{ "mtu_9001", LAN "mtu = 9001 ;!\n", -1, "mtu: '9001' is not a number 576..9000" },
	{ "mtu_leading_zero", LAN "mtu = 01500 ;!\n", -1, "mtu: '01500' is not a number" },
	{ "mtu_glued_comment", LAN "mtu = 1500;x ;!\n", -1, "mtu: '1500;x' is not a number" },
	{ "mtu_v6_minimum", LAN "mtu = 1279 ;!\n", -1,
	  "mtu: 1279 is below 1280, the IPv6 minimum, and port lan has an IPv6 address" },
	{ "mss_bad", LAN "tcp-mss-clamp = on ;!\n", -1, "tcp-mss-clamp: 'on' is not auto, off or a number" },
	{ "mss_small", LAN "tcp-mss-clamp = 87 ;!\n", -1, "tcp-mss-clamp: '87' is not auto, off or a number" },
	{ "mss_above_mtu", LAN "tcp-mss-clamp = 1461 ;!\nmtu = 1500\n", -1, "tcp-mss-clamp: 1461 is more than mtu - 40 (1460)" },
	{ "duplicate_device", LAN "[port wan]\ndevice = net_null0 ;!\nrole = outer\naddress = 192.0.2.1/24\n", -1,
	  "device: same device as port lan" },
	{ "port_networks_overlap", LAN "[port wan]\ndevice = y\nrole = outer\naddress = 10.1.0.2/16 ;!\n", -1,
	  "address: network of 10.1.0.2/16 overlaps 10.1.0.1/24 of port lan" },
	{ "port_same_address", LAN "[port wan]\ndevice = y\nrole = outer\naddress = 10.1.0.1/32 ;!\n", -1,
	  "address: 10.1.0.1 is also an address of port lan" },
	{ "no_ports", "[gateway]\nworkers = 2\n", 0, "no [port] sections" },
	{ "no_inner_port", WAN, 0, "no port with role = inner" },
	{ "no_outer_port", LAN, 0, "no port with role = outer" },
	{ "empty_file", "", 0, "no [port] sections" },

	/* [sa] values */
	{ "sa_missing_remote", LAN WAN "[sa x] ;!\ndirection = out\nspi = 300\nsuite = aes128-gcm16\nlocal = 192.0.2.1\n"
	  "prefixes = 10.2.0.0/16\n", -1, "[sa x]: missing key 'remote'" },
	{ "direction_bad", LAN WAN SA_OUT "direction = both ;!\n", -1, "duplicate key 'direction'" },
	{ "sa_missing_keys", LAN WAN "[sa x] ;!\ndirection = in\n", -1, "[sa x]: missing key 'spi'" },
	{ "direction_value2", LAN WAN "[sa x]\ndirection = both ;!\nspi = 300\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "direction: 'both' is not one of out | in" },
	{ "spi_255", LAN WAN "[sa x]\nspi = 255 ;!\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "spi: '255' is not a number 256..4294967295" },
	{ "spi_zero", LAN WAN "[sa x]\nspi = 0x0 ;!\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1, "spi: '0x0' is not a number" },
	{ "spi_too_big", LAN WAN "[sa x]\nspi = 0x100000000 ;!\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1, "spi: '0x100000000' is not a number" },
	{ "spi_too_big_dec", LAN WAN "[sa x]\nspi = 4294967296 ;!\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1, "spi: '4294967296' is not a number" },
	{ "spi_garbage", LAN WAN "[sa x]\nspi = 12ab ;!\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1, "spi: '12ab' is not a number" },
	{ "suite_bad", LAN WAN "[sa x]\nsuite = aes128-ccm ;!\ndirection = out\nspi = 300\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "suite: 'aes128-ccm' is not one of aes128-gcm16 | aes256-gcm16 | aes128-cbc-sha256 | "
	  "aes256-cbc-sha256 | null-sha256" },
	{ "gcm_key_16_bytes", LAN WAN "[sa x]\ndirection = out\nspi = 300\nsuite = aes128-gcm16\nkey = " HEX16 " ;!\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "key: aes128-gcm16 needs 20 bytes (AES key + 4-byte salt), got 16" },
	{ "gcm256_key_32_bytes", LAN WAN "[sa x]\ndirection = out\nspi = 300\nsuite = aes256-gcm16\nkey = 0x" K32 " ;!\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "key: aes256-gcm16 needs 36 bytes (AES key + 4-byte salt), got 32" },
	{ "gcm_missing_key", LAN WAN "[sa x] ;!\ndirection = out\nspi = 300\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "[sa x]: missing key 'key' (suite aes128-gcm16)" },
	{ "gcm_with_auth_key", LAN WAN SA_OUT "auth-key = 0x" A32 " ;!\n", -1,
	  "auth-key: suite aes128-gcm16 has no separate authentication key" },
	{ "cbc_key_20_bytes", LAN WAN "[sa c1]\ndirection = out\nspi = 0x3000\nsuite = aes256-cbc-sha256\n"
	  "key = 0x" K20 " ;!\nauth-key = 0x" A32 "\nlocal = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.5.0.0/16\n",
	  -1, "key: aes256-cbc-sha256 needs 32 bytes, got 20" },
	{ "cbc_missing_auth_key", LAN WAN "[sa c1] ;!\ndirection = out\nspi = 0x3000\nsuite = aes128-cbc-sha256\n"
	  "key = " HEX16 "\nlocal = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.5.0.0/16\n", -1,
	  "[sa c1]: missing key 'auth-key' (suite aes128-cbc-sha256)" },
	{ "cbc_auth_key_16", LAN WAN "[sa c1]\ndirection = out\nspi = 0x3000\nsuite = aes128-cbc-sha256\n"
	  "key = " HEX16 "\nauth-key = " HEX16 " ;!\nlocal = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.5.0.0/16\n",
	  -1, "auth-key: aes128-cbc-sha256 needs 32 bytes, got 16" },
	{ "null_with_key", LAN WAN "[sa n]\ndirection = in\nspi = 0x3000\nsuite = null-sha256\nkey = " HEX16 " ;!\n"
	  "auth-key = 0x" A32 "\nlocal = 192.0.2.1\nremote = 198.51.100.1\nprefixes = 10.5.0.0/16\n", -1,
	  "key: suite null-sha256 has no cipher key" },
	{ "key_not_hex", LAN WAN "[sa x]\nkey = 0x00zz ;!\n", -1, "key: character 5 is not a hex digit" },
	{ "key_odd", LAN WAN "[sa x]\nkey = 0x123 ;!\n", -1, "key has an odd number of hex digits (3)" },
	{ "key_no_0x", LAN WAN "[sa x]\nkey = 0011 ;!\n", -1, "key must be hex digits after 0x" },
	{ "key_only_0x", LAN WAN "[sa x]\nauth-key = 0x ;!\n", -1, "auth-key has no hex digits after 0x" },
	{ "key_too_long", LAN WAN "[sa x]\nkey = 0x" K32 K32 A32 " ;!\n", -1, "key is too long (96 bytes)" },
	{ "local_bad", LAN WAN "[sa x]\nlocal = 192.0.2.x ;!\n", -1, "local: '192.0.2.x' is not an IPv4 or IPv6 address" },
	{ "remote_unspecified", LAN WAN "[sa x]\nremote = :: ;!\n", -1, "remote: '::' is not a unicast address" },
	{ "prefixes_host_bits", LAN WAN "[sa x]\nprefixes = 10.2.0.1/16 ;!\n", -1,
	  "prefixes: '10.2.0.1/16' has host bits set (network 10.2.0.0/16?)" },
	{ "prefixes_v6_host_bits", LAN WAN "[sa x]\nprefixes = fd00:2::1/48 ;!\n", -1,
	  "prefixes: 'fd00:2::1/48' has host bits set (network fd00:2::/48?)" },
	{ "prefixes_twice", LAN WAN "[sa x]\nprefixes = 10.2.0.0/16, 10.2.0.0/16 ;!\n", -1,
	  "prefixes: '10.2.0.0/16' is listed twice" },
	{ "esn_bad", LAN WAN SA_OUT "esn = yes ;!\n", -1, "esn: 'yes' is not one of off | on" },
	{ "replay_100", LAN WAN SA_IN "replay-window = 100 ;!\n", -1,
	  "replay-window: '100' is not 0 or a multiple of 64 up to 4096" },
	{ "replay_4160", LAN WAN SA_IN "replay-window = 4160 ;!\n", -1, "replay-window: '4160' is not 0 or a multiple" },
	{ "replay_on_out", LAN WAN SA_OUT "replay-window = 64 ;!\n", -1, "replay-window: only for direction = in" },
	{ "local_prefixes_on_out", LAN WAN SA_OUT "local-prefixes = 10.1.0.0/16 ;!\n", -1,
	  "local-prefixes: only for direction = in" },
	{ "state_on_in", LAN WAN SA_IN "state = /tmp/x.seq ;!\n", -1, "state: only for direction = out" },
	{ "state_on_cbc", LAN WAN CBC_SA("state = /tmp/x.seq ;!\n"), -1, "state: only for GCM suites (suite is aes128-cbc-sha256)" },
	{ "state_relative", LAN WAN SA_OUT "state = seq/x ;!\n", -1, "state: 'seq/x' is not an absolute file path" },
	{ "state_shared", LAN WAN SA_OUT "state = /tmp/s.seq\n"
	  "[sa out2]\ndirection = out\nspi = 0x1001\nsuite = aes128-gcm16\nkey = 0x" K20B "\nlocal = 192.0.2.1\n"
	  "remote = 198.51.100.2\nprefixes = 10.3.0.0/16\nstate = /tmp/s.seq ;!\n", -1,
	  "state: file /tmp/s.seq is also used by SA out1" },
	{ "remote_family", LAN WAN SA_OUT "[sa y]\ndirection = in\nspi = 0x2000\nsuite = aes128-gcm16\n"
	  "key = 0x" K20 "\nlocal = 192.0.2.1\nremote = 2001:db8:9::1 ;!\nprefixes = 10.2.0.0/16\n", -1,
	  "remote: 2001:db8:9::1 is IPv6 but local is IPv4" },
	{ "remote_is_local", LAN WAN "[sa y]\ndirection = in\nspi = 0x2000\nsuite = aes128-gcm16\n"
	  "key = 0x" K20 "\nlocal = 192.0.2.1\nremote = 192.0.2.1 ;!\nprefixes = 10.2.0.0/16\n", -1,
	  "remote: same address as local" },
	{ "local_not_outer", LAN WAN "[sa y]\ndirection = in\nspi = 0x2000\nsuite = aes128-gcm16\n"
	  "key = 0x" K20 "\nlocal = 10.1.0.1 ;!\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "local: 10.1.0.1 is not an address of an outer port" },
	{ "local_unknown", LAN WAN "[sa y]\ndirection = in\nspi = 0x2000\nsuite = aes128-gcm16\n"
	  "key = 0x" K20 "\nlocal = 192.0.2.9 ;!\nremote = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "local: 192.0.2.9 is not an address of an outer port" },
	{ "duplicate_out_spi", LAN WAN SA_OUT
	  "[sa out2]\ndirection = out\nspi = 4096 ;!\nsuite = aes128-gcm16\nkey = 0x" K20 "\nlocal = 192.0.2.1\n"
	  "remote = 198.51.100.2\nprefixes = 10.3.0.0/16\n", -1, "spi: 0x1000 is already used by out SA out1 (line 11)" },
	{ "duplicate_in_spi", LAN WAN SA_IN
	  "[sa in2]\ndirection = in\nspi = 0x2000 ;!\nsuite = aes128-gcm16\nkey = 0x" K20 "\nlocal = 192.0.2.1\n"
	  "remote = 198.51.100.2\nprefixes = 10.3.0.0/16\n", -1, "spi: 0x2000 is already used by in SA in1 (line 11)" },
	{ "out_prefixes_overlap", LAN WAN SA_OUT
	  "[sa out2]\ndirection = out\nspi = 0x1001\nsuite = aes128-gcm16\nkey = 0x" K20B "\nlocal = 192.0.2.1\n"
	  "remote = 198.51.100.2\nprefixes = fd00:2::/48, 10.2.1.0/24 ;!\n", -1,
	  "prefixes: 10.2.1.0/24 overlaps 10.2.0.0/16 of out SA out1 (line 16)" },
	{ "out_prefixes_overlap_default_route", LAN WAN SA_OUT
	  "[sa out2]\ndirection = out\nspi = 0x1001\nsuite = aes128-gcm16\nkey = 0x" K20B "\nlocal = 192.0.2.1\n"
	  "remote = 198.51.100.2\nprefixes = 0.0.0.0/0 ;!\n", -1,
	  "prefixes: 0.0.0.0/0 overlaps 10.2.0.0/16 of out SA out1" },
	{ "gcm_key_shared", LAN WAN SA_OUT
	  "[sa out2]\ndirection = out\nspi = 0x1001\nsuite = aes128-gcm16\nkey = 0x" K20 " ;!\n"
	  "local = 192.0.2.1\nremote = 198.51.100.2\nprefixes = 10.3.0.0/16\n", -1,
	  "key: the same GCM key as SA out1 (line 13): both would use the same nonces" },
	{ "out_prefixes_overlap_same_sa", LAN WAN
	  "[sa out2]\ndirection = out\nspi = 0x1001\nsuite = aes128-gcm16\nkey = 0x" K20 "\nlocal = 192.0.2.1\n"
	  "remote = 198.51.100.2\nprefixes = 10.2.0.0/16, 10.2.128.0/17 ;!\n", -1,
	  "prefixes: 10.2.128.0/17 overlaps 10.2.0.0/16 in the same list" },

	/* [policy] */
	{ "bypass_host_bits", LAN WAN "[policy]\nbypass = 10.9.0.1/16 ;!\n", -1, "bypass: '10.9.0.1/16' has host bits set" },
	{ "bypass_is_sa_prefix", LAN WAN SA_OUT "[policy]\nbypass = 10.9.0.0/16, 10.2.0.0/16 ;!\n", -1,
	  "bypass: 10.2.0.0/16 overlaps 10.2.0.0/16 of out SA out1 (traffic an SA protects is "
	  "never sent in clear)" },
	{ "bypass_inside_sa_prefix", LAN WAN SA_OUT "[policy]\nbypass = 10.2.7.0/24 ;!\n", -1,
	  "bypass: 10.2.7.0/24 overlaps 10.2.0.0/16 of out SA out1" },

	/* [gateway] HIP keys */
	{ "hi_missing", LAN WAN "[gateway]\nhi = /nonexistent-hipgw-test/gw.pem ;!\n", -1,
	  "hi: key file /nonexistent-hipgw-test/gw.pem: No such file or directory" },
	{ "hi_mode_0644", LAN WAN "[gateway]\nworkers = 2\nhi = @HI644@ ;!\n", -1,
	  "hi: key file @HI644@ has mode 0644: accessible by group or others (chmod 600 it)" },
	{ "hi_symlink", LAN WAN "[gateway]\nhi = @HILINK@ ;!\n", -1,
	  "hi: key file @HILINK@ is a symbolic link (refused for a private key)" },
	{ "hi_directory", LAN WAN "[gateway]\nhi = /tmp ;!\n", -1, "hi: key file /tmp is not a regular file" },
	{ "hi_relative", LAN WAN "[gateway]\nhi = gw.pem ;!\n", -1, "hi: 'gw.pem' is not an absolute file path" },
	{ "puzzle_k_29", "[gateway]\npuzzle-k = 29 ;!\n", -1, "puzzle-k: '29' is not a number 0..28" },
	{ "puzzle_k_negative", "[gateway]\npuzzle-k = -1 ;!\n", -1, "puzzle-k: '-1' is not a number 0..28" },
	{ "puzzle_k_leading_zero", "[gateway]\npuzzle-k = 010 ;!\n", -1, "puzzle-k: '010' is not a number" },
	{ "r1_rate_too_big", "[gateway]\nr1-rate = 10000001 ;!\n", -1,
	  "r1-rate: '10000001' is not a number 0..10000000" },
	{ "r1_rate_negative", "[gateway]\nr1-rate = -5 ;!\n", -1, "r1-rate: '-5' is not a number 0..10000000" },
	{ "r1_rate_leading_zero", "[gateway]\nr1-rate = 0100 ;!\n", -1, "r1-rate: '0100' is not a number" },
	{ "r1_rate_unit", "[gateway]\nr1-rate = 20000/s ;!\n", -1, "r1-rate: '20000/s' is not a number" },
	{ "r1_rate_hex", "[gateway]\nr1-rate = 0x100 ;!\n", -1, "r1-rate: '0x100' is not a number" },
	{ "r1_rate_huge", "[gateway]\nr1-rate = 99999999999999999999999 ;!\n", -1,
	  "r1-rate: '99999999999999999999999' is not a number" },
	{ "r1_rate_twice", "[gateway]\nr1-rate = 10\nr1-rate = 20 ;!\n", -1,
	  "duplicate key 'r1-rate' in [gateway] (first on line 2)" },
	{ "r1_rate_in_port", LAN "r1-rate = 10 ;!\n" WAN, -1, "unknown key 'r1-rate' in [port lan]" },
	{ "esp_transform_unknown", "[gateway]\nesp-transforms = aes-gcm16, aes128-gcm16 ;!\n", -1,
	  "esp-transforms: 'aes128-gcm16' is not one of aes-gcm16 | aes256-cbc-sha256 | "
	  "aes128-cbc-sha256 | null-sha256" },
	{ "esp_transform_twice", "[gateway]\nesp-transforms = aes-gcm16, null-sha256, aes-gcm16 ;!\n", -1,
	  "esp-transforms: 'aes-gcm16' is listed twice" },
	{ "esp_transform_empty_element", "[gateway]\nesp-transforms = aes-gcm16, ;!\n", -1,
	  "esp-transforms: empty element in list" },
	{ "dh_group_unknown", "[gateway]\ndh-groups = nist-p256, modp2048 ;!\n", -1,
	  "dh-groups: 'modp2048' is not one of nist-p256 | nist-p384 | modp3072" },
	{ "dh_group_case", "[gateway]\ndh-groups = NIST-P256 ;!\n", -1, "dh-groups: 'NIST-P256' is not one of" },
	{ "hip_cipher_unknown", "[gateway]\nhip-ciphers = aes192-cbc ;!\n", -1,
	  "hip-ciphers: 'aes192-cbc' is not one of null | aes128-cbc | aes256-cbc" },
	{ "hip_cipher_twice", "[gateway]\nhip-ciphers = null, null ;!\n", -1, "hip-ciphers: 'null' is listed twice" },
	{ "lifetime_no_unit", "[gateway]\nsa-lifetime = 3600 ;!\n", -1,
	  "sa-lifetime: '3600' is not a time (a number and s, m or h: 3600s) or a byte count "
	  "(a number and B, KiB, MiB, GiB or TiB: 1GiB)" },
	{ "lifetime_space", "[gateway]\nsa-lifetime = 1 h ;!\n", -1, "sa-lifetime: '1 h' is not a time" },
	{ "lifetime_decimal_unit", "[gateway]\nsa-lifetime = 3600s, 1GB ;!\n", -1, "sa-lifetime: '1GB' is not a time" },
	{ "lifetime_unit_only", "[gateway]\nsa-lifetime = h ;!\n", -1, "sa-lifetime: 'h' is not a time" },
	{ "lifetime_days", "[gateway]\nsa-lifetime = 1d ;!\n", -1, "sa-lifetime: '1d' is not a time" },
	{ "lifetime_zero", "[gateway]\nsa-lifetime = 0s, 1GiB ;!\n", -1, "sa-lifetime: time '0s' is not 1s..720h" },
	{ "lifetime_721h", "[gateway]\nsa-lifetime = 721h ;!\n", -1, "sa-lifetime: time '721h' is not 1s..720h" },
	{ "lifetime_huge", "[gateway]\nsa-lifetime = 9999999999h ;!\n", -1,
	  "sa-lifetime: time '9999999999h' is not 1s..720h" },
	{ "lifetime_two_times", "[gateway]\nsa-lifetime = 3600s, 2h ;!\n", -1,
	  "sa-lifetime: more than one time ('2h')" },
	{ "lifetime_two_sizes", "[gateway]\nsa-lifetime = 1GiB, 3600s, 2GiB ;!\n", -1,
	  "sa-lifetime: more than one byte count ('2GiB')" },
	{ "lifetime_too_few_bytes", "[gateway]\nsa-lifetime = 1023B ;!\n", -1,
	  "sa-lifetime: byte count '1023B' is not 1KiB..1024TiB" },
	{ "lifetime_too_many_bytes", "[gateway]\nsa-lifetime = 1025TiB ;!\n", -1,
	  "sa-lifetime: byte count '1025TiB' is not 1KiB..1024TiB" },
	{ "lifetime_overflow", "[gateway]\nsa-lifetime = 9999999999TiB ;!\n", -1,
	  "sa-lifetime: byte count '9999999999TiB' is not" },
	{ "lifetime_leading_zero", "[gateway]\nsa-lifetime = 060s ;!\n", -1,
	  "sa-lifetime: '060s': number not decimal without leading zeros" },

	/* [peer] */
	{ "peer_without_name", GW_HI LAN WAN "[peer] ;!\n", -1, "section [peer] needs a name: [peer NAME]" },
	{ "peer_unknown_key", GW_HI LAN WAN PEER_B "spi = 0x1000 ;!\n", -1, "unknown key 'spi' in [peer siteB]" },
	{ "peer_missing_hit", GW_HI LAN WAN "[peer siteB] ;!\nlocator = 198.51.100.1\nprefixes = 10.2.0.0/16\n", -1,
	  "[peer siteB]: missing key 'hit'" },
	{ "peer_missing_locator", GW_HI LAN WAN "[peer siteB] ;!\nhit = " HIT_B "\nprefixes = 10.2.0.0/16\n", -1,
	  "[peer siteB]: missing key 'locator'" },
	{ "peer_missing_prefixes", GW_HI LAN WAN "[peer siteB] ;!\nhit = " HIT_B "\nlocator = 198.51.100.1\n", -1,
	  "[peer siteB]: missing key 'prefixes'" },
	{ "peer_without_gateway_hi", LAN WAN "[gateway]\nworkers = 2\n" PEER_B_AT(" ;!") PEER_C, -1,
	  "[peer siteB]: HIP peers need this gateway's Host Identity: set hi in [gateway]" },
	{ "peer_without_gateway_section", LAN WAN PEER_B_AT(" ;!"), -1,
	  "[peer siteB]: HIP peers need this gateway's Host Identity" },
	{ "hit_not_ipv6", GW_HI LAN WAN "[peer siteB]\nhit = 10.0.0.1 ;!\n", -1,
	  "hit: '10.0.0.1' is not an IPv6 address (a HIT is written like 2001:2x:...; "
	  "`hipgw hit KEYFILE` prints it)" },
	{ "hit_bad", GW_HI LAN WAN "[peer siteB]\nhit = 2001:22::a485::1 ;!\n", -1,
	  "hit: '2001:22::a485::1' is not an IPv6 address" },
	{ "hit_garbage", GW_HI LAN WAN "[peer siteB]\nhit = siteB.example.org ;!\n", -1,
	  "hit: 'siteB.example.org' is not an IPv6 address" },
	{ "hit_not_orchid", GW_HI LAN WAN "[peer siteB]\nhit = 2001:db8::1 ;!\n", -1,
	  "hit: 2001:db8::1 is not an ORCHIDv2 HIT (not inside 2001:20::/28)" },
	{ "hit_orchid_v1", GW_HI LAN WAN "[peer siteB]\nhit = 2001:1a:b:c:d:e:f:1 ;!\n", -1,
	  "hit: 2001:1a:b:c:d:e:f:1 is not an ORCHIDv2 HIT (not inside 2001:20::/28)" },
	{ "hit_after_orchid", GW_HI LAN WAN "[peer siteB]\nhit = 2001:30::1 ;!\n", -1,
	  "hit: 2001:30::1 is not an ORCHIDv2 HIT" },
	{ "hit_oga_0", GW_HI LAN WAN "[peer siteB]\nhit = 2001:20::1 ;!\n", -1,
	  "hit: 2001:20::1 has OGA ID 0, not a HIT suite (1 RSA/DSA-SHA256, 2 ECDSA-SHA384, 3 ECDSA_LOW-SHA1)" },
	{ "hit_oga_15", GW_HI LAN WAN "[peer siteB]\nhit = 2001:2f::1 ;!\n", -1,
	  "hit: 2001:2f::1 has OGA ID 15, not a HIT suite" },
	{ "duplicate_hit", GW_HI LAN WAN PEER_B
	  "[peer siteC]\nhit = 2001:0022:A485:4ABE:81DE:A7B2:9A70:44B4 ;!\nlocator = 198.51.100.3\n"
	  "prefixes = 10.3.0.0/16\n", -1,
	  "hit: " HIT_B " is also the HIT of [peer siteB] (line 12)" },
	{ "locator_family_without_outer_address", GW_HI LAN WAN4
	  "[peer siteB]\nhit = " HIT_B "\nlocator = 198.51.100.1, 2001:db8:2::1 ;!\nprefixes = 10.2.0.0/16\n", -1,
	  "locator: 2001:db8:2::1 is IPv6 but no outer port has an IPv6 address" },
	{ "locator_v6_only_on_inner", GW_HI LAN WAN4
	  "[peer siteB]\nhit = " HIT_B "\nlocator = fd00:1::9 ;!\nprefixes = 10.2.0.0/16\n", -1,
	  "locator: fd00:1::9 is IPv6 but no outer port has an IPv6 address" },
	{ "locator_is_ours", GW_HI LAN WAN
	  "[peer siteB]\nhit = " HIT_B "\nlocator = 2001:db8::1 ;!\nprefixes = 10.2.0.0/16\n", -1,
	  "locator: 2001:db8::1 is an address of our port wan" },
	{ "locator_bad", GW_HI LAN WAN "[peer siteB]\nlocator = 198.51.100.256 ;!\n", -1,
	  "locator: '198.51.100.256' is not an IPv4 or IPv6 address" },
	{ "locator_multicast", GW_HI LAN WAN "[peer siteB]\nlocator = 224.0.0.1 ;!\n", -1,
	  "locator: '224.0.0.1' is not a unicast address" },
	{ "locator_twice", GW_HI LAN WAN "[peer siteB]\nlocator = 198.51.100.1, 198.51.100.1 ;!\n", -1,
	  "locator: '198.51.100.1' is listed twice" },
	{ "locator_five", GW_HI LAN WAN "[peer siteB]\nlocator = 198.51.100.1, 198.51.100.2, "
	  "198.51.100.3, 198.51.100.4, 198.51.100.5 ;!\n", -1, "locator: more than 4 addresses" },
	{ "peer_local_not_outer", GW_HI LAN WAN PEER_B "local = 10.1.0.1 ;!\n", -1,
	  "local: 10.1.0.1 is not an address of an outer port" },
	{ "peer_local_unknown", GW_HI LAN WAN PEER_B "local = 192.0.2.99 ;!\n", -1,
	  "local: 192.0.2.99 is not an address of an outer port" },
	{ "peer_local_family", GW_HI LAN WAN PEER_B "local = 2001:db8::1 ;!\n", -1,
	  "local: 2001:db8::1 is IPv6 but no locator is" },
	{ "peer_prefixes_host_bits", GW_HI LAN WAN "[peer siteB]\nprefixes = 10.2.0.1/16 ;!\n", -1,
	  "prefixes: '10.2.0.1/16' has host bits set (network 10.2.0.0/16?)" },
	{ "peer_prefixes_same_list", GW_HI LAN WAN "[peer siteB]\nprefixes = fd00:2::/48, fd00:2:0:1::/64 ;!\n", -1,
	  "prefixes: fd00:2:0:1::/64 overlaps fd00:2::/48 in the same list" },
	{ "peer_prefixes_overlap_peer", GW_HI LAN WAN PEER_B
	  "[peer siteC]\nhit = " HIT_C "\nlocator = 198.51.100.3\nprefixes = fd00:3::/48, 10.2.7.0/24 ;!\n", -1,
	  "prefixes: 10.2.7.0/24 overlaps 10.2.0.0/16 of [peer siteB] (line 14)" },
	{ "peer_prefixes_overlap_peer_supernet", GW_HI LAN WAN PEER_B
	  "[peer siteC]\nhit = " HIT_C "\nlocator = 198.51.100.3\nprefixes = 0.0.0.0/0 ;!\n", -1,
	  "prefixes: 0.0.0.0/0 overlaps 10.2.0.0/16 of [peer siteB] (line 14)" },
	{ "peer_prefixes_overlap_sa_before", GW_HI LAN WAN SA_OUT
	  "[peer siteB]\nhit = " HIT_B "\nlocator = 198.51.100.1\nprefixes = 10.2.128.0/17 ;!\n", -1,
	  "prefixes: 10.2.128.0/17 overlaps 10.2.0.0/16 of [sa out1] (line 18)" },
	{ "peer_prefixes_overlap_sa_after", GW_HI LAN WAN PEER_B
	  "[sa out1]\ndirection = out\nspi = 0x1000\nsuite = aes128-gcm16\nkey = 0x" K20 "\n"
	  "local = 192.0.2.1\nremote = 198.51.100.1\nprefixes = fd00:9::/32, 10.0.0.0/8 ;!\n", -1,
	  "prefixes: 10.0.0.0/8 overlaps 10.2.0.0/16 of [peer siteB] (line 14)" },
	{ "bypass_is_peer_prefix", GW_HI LAN WAN PEER_B "[policy]\nbypass = 10.2.0.0/16 ;!\n", -1,
	  "bypass: 10.2.0.0/16 overlaps 10.2.0.0/16 of [peer siteB] (traffic a peer protects is "
	  "never sent in clear)" },
	{ "bypass_inside_peer_prefix", GW_HI LAN WAN PEER_B "[policy]\nbypass = 10.2.128.0/17 ;!\n",
	  -1, "bypass: 10.2.128.0/17 overlaps 10.2.0.0/16 of [peer siteB]" },
	/* [sa-gen] (benchmarking / lab feature) */
	{ "sagen_no_name", LAN WAN "[sa-gen] ;!\n", -1, "section [sa-gen] needs a name" },
	{ "sagen_two", LAN WAN SAGEN "prefixes = 16.0.0.0/12\n[sa-gen h] ;!\n", -1,
	  "too many [sa-gen] sections (at most 1)" },
	{ "sagen_missing_prefixes", LAN WAN "[sa-gen g] ;!\ncount = 5\ndirection = out\n"
	  "suite = aes128-gcm16\nlocal = 192.0.2.1\nremote = 192.0.2.2\n", -1,
	  "[sa-gen g]: missing key 'prefixes'" },
	{ "sagen_count_zero", LAN WAN "[sa-gen g]\ncount = 0 ;!\n", -1, "count: '0' is not a number 1..4194304" },
	{ "sagen_count_big", LAN WAN "[sa-gen g]\ncount = 4194305 ;!\n", -1, "count: '4194305' is not" },
	{ "sagen_direction", LAN WAN "[sa-gen g]\ndirection = up ;!\n", -1,
	  "direction: 'up' is not one of out | in | both" },
	{ "sagen_v6_block", LAN WAN SAGEN "prefixes = fd00:9::/32 ;!\n", -1,
	  "prefixes: 'fd00:9::/32' is not an IPv4 block" },
	{ "sagen_block_host_bits", LAN WAN SAGEN "prefixes = 16.0.0.1/12 ;!\n", -1,
	  "prefixes: '16.0.0.1/12' has host bits set" },
	{ "sagen_too_small", LAN WAN SAGEN "prefixes = 16.0.0.0/16\n", 10,
	  "count: 1000 SAs need as many /24 networks, 16.0.0.0/16 holds 256" },
	{ "sagen_count_line", LAN WAN "[sa-gen g]\ncount = 300 ;!\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 192.0.2.2\nprefixes = 16.0.0.0/16\n", -1,
	  "count: 300 SAs need as many /24 networks" },
	{ "sagen_plen_short", LAN WAN SAGEN "prefixes = 16.0.0.0/12\nprefix-len = 8 ;!\n", -1,
	  "prefix-len: /8 is shorter than the block 16.0.0.0/12" },
	{ "sagen_plen_table", LAN WAN SAGEN "prefixes = 16.0.0.0/4\nprefix-len = 32 ;!\n", -1,
	  "prefix-len: 16.0.0.0/4 holds 2^28 /32 networks, at most 2^24" },
	{ "sagen_seed", LAN WAN SAGEN "prefixes = 16.0.0.0/12\nkey-seed = 4294967296 ;!\n", -1,
	  "key-seed: '4294967296' is not a number 0..4294967295" },
	{ "sagen_local", LAN WAN "[sa-gen g]\ncount = 10\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.9 ;!\nremote = 192.0.2.2\nprefixes = 16.0.0.0/12\n", -1,
	  "local: 192.0.2.9 is not an address of an outer port" },
	{ "sagen_overlap_port", LAN WAN SAGEN "prefixes = 10.0.0.0/8 ;!\n", -1,
	  "prefixes: 10.0.0.0/8 overlaps the network 10.1.0.1/24 of port lan" },
	{ "sagen_overlap_sa", LAN WAN "[sa x]\ndirection = out\nspi = 0x1000\nsuite = aes128-gcm16\n"
	  "key = 0x" K16 "00010203\nlocal = 192.0.2.1\nremote = 192.0.2.2\nprefixes = 16.1.0.0/16\n"
	  "state = /tmp/x.seq\n" SAGEN "prefixes = 16.0.0.0/12 ;!\n", -1,
	  "prefixes: 16.0.0.0/12 overlaps 16.1.0.0/16 of out SA x" },
	{ "sagen_replay_out", LAN WAN "[sa-gen g]\ncount = 10\ndirection = out\nsuite = aes128-gcm16\n"
	  "local = 192.0.2.1\nremote = 192.0.2.2\nprefixes = 16.0.0.0/12\nreplay-window = 64 ;!\n", -1,
	  "replay-window: only for direction = in or both" },
	{ "sagen_spi_clash", LAN WAN "[sa x]\ndirection = in\nspi = 0x54378444 ;!\nsuite = aes128-gcm16\n"
	  "key = 0x" K16 "00010203\nlocal = 192.0.2.1\nremote = 192.0.2.2\nprefixes = 10.9.0.0/16\n"
	  SAGEN "spi-seed = 0x5eed\nprefixes = 16.0.0.0/12\n", -1,
	  "spi: 0x54378444 is also the SPI of generated in SA 0 of [sa-gen g]" },
	{ "sagen_install", LAN WAN SAGEN "prefixes = 16.0.0.0/12\ninstall = now ;!\n", -1,
	  "install: 'now' is not one of after-start | before-start" },
	{ "gateway_mbufs", "[gateway]\nmbufs = 100 ;!\n" LAN WAN, -1, "mbufs: '100' is not a number 4096..16777216" },
	{ "gateway_mbuf_size", "[gateway]\nmbuf-size = 70000 ;!\n" LAN WAN, -1,
	  "mbuf-size: '70000' is not a number 512..65535" },
	{ "gateway_neighbor_refresh", "[gateway]\nneighbor-refresh = 0 ;!\n" LAN WAN, -1,
	  "neighbor-refresh: '0' is not a number 1..3600" },
};

static void
test_error_case(void **state)
{
	const struct err_case *c = *state;
	struct gw_config *cfg = new_cfg();
	char err[512], want[600];
	char *text = subst(c->text), *msg = subst(c->msg);
	struct tmpconf t;
	int line = c->line;

	if (line < 0) {
		const char *mark = strstr(text, " ;!");

		assert_non_null(mark);
		line = 1;
		for (const char *p = text; p < mark; p++)
			line += *p == '\n';
	}
	memset(err, 'z', sizeof(err));
	int rc = load_len(text, strlen(text), cfg, err, sizeof(err), &t);
	unlink(t.path);
	if (rc != -1)
		fail_msg("case %s: load succeeded", c->name);
	snprintf(want, sizeof(want), "%s:%d: %s", t.path, line, msg);
	free(text);
	free(msg);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("case %s:\n  got:  %s\n  want: %s...", c->name, err, want);
	assert_null(strchr(err, '\n'));
	/* a failed load leaves no key material behind */
	for (unsigned i = 0; i < GW_CONF_MAX_SAS; i++) {
		assert_true(mem_is_zero(cfg->sas[i].key, sizeof(cfg->sas[i].key)));
		assert_true(mem_is_zero(cfg->sas[i].auth_key, sizeof(cfg->sas[i].auth_key)));
	}
	assert_int_equal(cfg->n_sas, 0);
	assert_int_equal(cfg->n_ports, 0);
	assert_int_equal(cfg->n_peers, 0);
	free(cfg);
}

/* The base texts of the error cases are themselves valid. */
static void
test_error_bases_valid(void **state)
{
	static const char *const texts[] = {
		LAN WAN, LAN WAN SA_OUT, LAN WAN SA_IN, LAN WAN SA_OUT SA_IN, LAN WAN CBC_SA(""),
		"[gateway]\nworkers = 16\n" LAN WAN,
		GW_HI LAN WAN, GW_HI LAN WAN PEER_B, GW_HI LAN WAN PEER_B PEER_C, GW_HI LAN WAN4 PEER_B,
		GW_HI LAN WAN SA_IN PEER_B,     /* an in SA's prefixes may equal a peer's */
		LAN WAN "[gateway]\npuzzle-k = 0\nhi = @HI@\n" PEER_B PEER_C SA_IN,
		"[gateway]\nhi = @HI@\nesp-transforms = null-sha256\ndh-groups = nist-p384\n"
		"hip-ciphers = null\nsa-lifetime = 1s\n" LAN WAN,
	};
	struct gw_config *cfg = new_cfg();
	char err[512];
	struct tmpconf t;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *text = subst(texts[i]);
		int rc = load_len(text, strlen(text), cfg, err, sizeof(err), &t);
		unlink(t.path);
		free(text);
		if (rc != 0)
			fail_msg("base %zu: %s", i, err);
	}
	free(cfg);
}

/* ---------- helpers of the API ----------------------------------------------- */

static void
test_helpers(void **state)
{
	struct gw_prefix p;
	struct gw_prefix q;
	struct gw_addr a;
	char buf[64];

	(void)state;
	assert_string_equal(gw_suite_name(GW_SUITE_AES128_GCM16), "aes128-gcm16");
	assert_string_equal(gw_suite_name(GW_SUITE_AES256_GCM16), "aes256-gcm16");
	assert_string_equal(gw_suite_name(GW_SUITE_AES128_CBC_SHA256), "aes128-cbc-sha256");
	assert_string_equal(gw_suite_name(GW_SUITE_AES256_CBC_SHA256), "aes256-cbc-sha256");
	assert_string_equal(gw_suite_name(GW_SUITE_NULL_SHA256), "null-sha256");
	assert_string_equal(gw_suite_name(GW_SUITE_MAX), "?");
	assert_string_equal(gw_suite_name((enum gw_suite)-1), "?");
	assert_string_equal(gw_role_name(GW_ROLE_OUTER), "outer");
	assert_string_equal(gw_dir_name(GW_DIR_IN), "in");
	assert_string_equal(gw_idle_name(GW_IDLE_BUSY), "busy");

	a = A("10.1.0.1");
	assert_string_equal(gw_addr_str(&a, buf, sizeof(buf)), "10.1.0.1");
	a = A("fd00:1::1");
	assert_string_equal(gw_addr_str(&a, buf, sizeof(buf)), "fd00:1::1");
	assert_string_equal(gw_addr_str(&a, buf, 4), "");    /* too small: empty, no overflow */
	memset(&a, 0, sizeof(a));
	assert_string_equal(gw_addr_str(&a, buf, sizeof(buf)), "unset");
	assert_null(gw_addr_str(&a, NULL, 0));

	p.a = A("10.1.0.0");
	p.len = 16;
	a = A("10.1.255.7");
	assert_true(gw_prefix_contains(&p, &a));
	a = A("10.2.0.1");
	assert_false(gw_prefix_contains(&p, &a));
	a = A("::a01:1");
	assert_false(gw_prefix_contains(&p, &a));            /* other family */
	p.len = 0;
	a = A("192.0.2.1");
	assert_true(gw_prefix_contains(&p, &a));
	p.len = 33;
	assert_false(gw_prefix_contains(&p, &a));            /* invalid prefix */
	p.a = A("fd00:1::");
	p.len = 61;
	a = A("fd00:1:0:7::1");
	assert_true(gw_prefix_contains(&p, &a));
	a = A("fd00:1:0:8::1");
	assert_false(gw_prefix_contains(&p, &a));
	p.len = 128;
	a = A("fd00:1::");
	assert_true(gw_prefix_contains(&p, &a));

	p.a = A("10.0.0.0");
	p.len = 8;
	q.a = A("10.2.3.0");
	q.len = 24;
	assert_true(gw_prefix_overlap(&p, &q));
	assert_true(gw_prefix_overlap(&q, &p));
	q.a = A("11.0.0.0");
	q.len = 8;
	assert_false(gw_prefix_overlap(&p, &q));
	q.a = A("fd00::");
	assert_false(gw_prefix_overlap(&p, &q));
}

/* Byte mutations of the full config: never a crash, always 0 or one error line
 * starting with "FILE:". Run under ASan / valgrind to see it means something. */
static void
mutations_of(const char *base)
{
	size_t n = strlen(base);
	char *text = malloc(n + 64), err[256], pfx[80];
	struct gw_config *cfg = new_cfg();
	struct tmpconf t;
	uint32_t rnd = 12345;
	static const char alphabet[] = "[]=;# \t\n,/:.x0f9-\r\xff";
	unsigned ok = 0;

	assert_non_null(text);
	for (int iter = 0; iter < 1500; iter++) {
		size_t len = n;

		memcpy(text, base, n);
		int muts = 1 + iter % 4;
		for (int m = 0; m < muts; m++) {
			rnd = rnd * 1103515245u + 12345u;
			size_t pos = (rnd >> 8) % len;
			rnd = rnd * 1103515245u + 12345u;
			switch ((rnd >> 16) % 4) {
			case 0:   /* replace with a syntax character */
				text[pos] = alphabet[(rnd >> 4) % (sizeof(alphabet) - 1)];
				break;
			case 1:   /* delete */
				memmove(text + pos, text + pos + 1, len - pos - 1);
				len--;
				break;
			case 2:   /* truncate */
				len = pos;
				break;
			case 3:   /* random byte */
				text[pos] = (char)(rnd >> 24);
				break;
			}
			if (len == 0)
				break;
		}
		int rc = load_len(text, len, cfg, err, sizeof(err), &t);
		snprintf(pfx, sizeof(pfx), "%s:", t.path);
		unlink(t.path);
		if (rc == 0) {
			ok++;
			gw_config_wipe(cfg);
			continue;
		}
		assert_int_equal(rc, -1);
		assert_memory_equal(err, pfx, strlen(pfx));
		assert_null(strchr(err, '\n'));
	}
	assert_true(ok > 0);    /* some mutations (in comments) keep it valid */
	free(text);
	free(cfg);
}

static void
test_mutations(void **state)
{
	(void)state;
	mutations_of(full_conf);
}

static void
test_mutations_hip(void **state)
{
	char *text = subst(hip_conf);

	(void)state;
	mutations_of(text);
	free(text);
}

/* [sa-gen]: every key into the struct, defaults, and the generator's values
 * (SPIs, prefixes, keys) as perf/sagen.py computes them for the same seeds. */
static void
test_sagen(void **state)
{
	static const char text[] =
		"[gateway]\nmbufs = 1048576\nmbuf-size = 512\nneighbor-refresh = 7\n" LAN WAN
		"[sa-gen bench]\ncount = 1000\ndirection = both\nsuite = aes128-cbc-sha256\n"
		"local = 192.0.2.1\nremote = 192.0.2.2\nprefixes = 16.0.0.0/12\nprefix-len = 24\n"
		"spi-seed = 0x5eed\nprefix-seed = 77\nkey-seed = 0xC0FFEE\nreplay-window = 0\n"
		"batch = 100\ninstall = before-start\n";
	struct gw_config *cfg = new_cfg();
	const struct gw_conf_sagen *g = &cfg->sagen;
	uint8_t k[GW_SAGEN_KEYBUF], seen[4096 / 8] = { 0 };
	struct gw_prefix p;
	struct tmpconf t;
	char err[512];
	uint32_t j = 0;

	(void)state;
	if (load_len(text, sizeof(text) - 1, cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	assert_int_equal(cfg->mbufs, 1048576);
	assert_int_equal(cfg->mbuf_size, 512);
	assert_int_equal(cfg->neighbor_refresh_s, 7);
	assert_string_equal(g->name, "bench");
	assert_int_equal(g->count, 1000);
	assert_true(g->out && g->in);
	assert_int_equal(g->suite, GW_SUITE_AES128_CBC_SHA256);
	assert_addr(&g->local, "192.0.2.1");
	assert_addr(&g->remote, "192.0.2.2");
	assert_prefix(&g->block, "16.0.0.0/12");
	assert_int_equal(g->prefix_len, 24);
	assert_int_equal(g->spi_seed, 0x5eed);
	assert_int_equal(g->prefix_seed, 77);
	assert_int_equal(g->key_seed, 0xC0FFEE);
	assert_int_equal(g->replay_window, 0);
	assert_int_equal(g->batch, 100);
	assert_true(g->before_start);
	/* the values perf/sagen.py gives for these seeds */
	assert_int_equal(gw_sagen_spi_next(g, &j), 0x54378444);
	assert_int_equal(gw_sagen_spi_next(g, &j), 0xe808d1db);
	assert_int_equal(gw_sagen_spi_next(g, &j), 0x7027da7c);
	gw_sagen_prefix(g, 0, &p);
	assert_prefix(&p, "16.0.12.0/24");
	gw_sagen_prefix(g, 1, &p);
	assert_prefix(&p, "16.11.169.0/24");
	gw_sagen_prefix(g, 2, &p);
	assert_prefix(&p, "16.7.63.0/24");
	gw_sagen_keybuf(g, 2, k);
	assert_hex(k, 16, "b2858ab588088830044ef9ca423f9198");
	assert_hex(k + 64, 32, "5f9343c85d966f8f2a1cb8d630c1bd2f43bfb02607bde00191151a68d0c9ca9e");
	assert_int_equal(gw_sagen_perm(1, 32, 0), 2139475651u);
	/* a bijection: every value of a 12-bit domain once */
	for (uint32_t x = 0; x < 4096; x++) {
		uint32_t v = gw_sagen_perm(77, 12, x);

		assert_true(v < 4096);
		assert_false(seen[v / 8] & (1u << (v % 8)));
		seen[v / 8] |= (uint8_t)(1u << (v % 8));
	}
	assert_int_equal(gw_sagen_perm(5, 0, 0), 0);
	/* defaults */
	static const char text2[] = LAN WAN "[sa-gen d]\ncount = 1\ndirection = in\n"
		"suite = aes128-gcm16\nlocal = 192.0.2.1\nremote = 192.0.2.2\nprefixes = 16.0.0.0/24\n";
	if (load_len(text2, sizeof(text2) - 1, cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	assert_true(!g->out && g->in);
	assert_int_equal(g->prefix_len, 24);
	assert_int_equal(g->replay_window, 1024);
	assert_int_equal(g->batch, 1024);
	assert_false(g->before_start);
	assert_int_equal(g->spi_seed, 1);
	assert_int_equal(cfg->mbufs, 0);
	assert_int_equal(cfg->neighbor_refresh_s, GW_CONF_NEIGH_REFRESH_DEFAULT);
	free(cfg);
}

/* 64 [peer] sections pass, the 65th header fails. */
static void
test_peer_limit(void **state)
{
	size_t cap = 32768;
	char *text = malloc(cap), err[512], want[256];
	struct gw_config *cfg = new_cfg();
	struct tmpconf t;
	int n, last = 0;

	(void)state;
	assert_non_null(text);
	n = snprintf(text, cap, GW_HI LAN WAN);
	for (int i = 0; i < 65; i++) {
		last = n;
		n += snprintf(text + n, cap - (size_t)n, "[peer p%d]\nhit = 2001:22::%x\n"
			      "locator = 198.51.100.%d\nprefixes = 10.%d.0.0/16\n", i, i + 1, i + 1, i + 2);
	}
	char *tx = subst(text);
	assert_int_equal(load_len(tx, strlen(tx), cfg, err, sizeof(err), &t), -1);
	unlink(t.path);
	snprintf(want, sizeof(want), "%s:%d: too many [peer] sections (at most 64)", t.path,
		 11 + 64 * 4);
	assert_string_equal(err, want);
	free(tx);
	text[last] = '\0';
	tx = subst(text);
	if (load_len(tx, strlen(tx), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	assert_int_equal(cfg->n_peers, 64);
	assert_string_equal(cfg->peers[63].name, "p63");
	assert_addr(&cfg->peers[63].locators[0], "198.51.100.64");
	assert_hex(cfg->peers[63].hit, 16, "20010022000000000000000000000040");
	free(tx);
	free(text);
	free(cfg);
}

int
main(void)
{
	enum { N_ERR = sizeof(err_cases) / sizeof(err_cases[0]) };
	struct CMUnitTest tests[20 + N_ERR];
	size_t n = 0;
	int rc;

	make_key_files();

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_full_config);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_example_gwA);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_defaults);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_hip_config);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_hip_lifetime);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_r1_rate);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_peer_limit);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sagen);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_syntax_variants);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_limits);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_file_errors);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_error_bases_valid);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_helpers);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_mutations);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_mutations_hip);
	for (size_t i = 0; i < N_ERR; i++) {
		tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_error_case,
									 (void *)&err_cases[i]);
		tests[n].name = err_cases[i].name;
		n++;
	}
	rc = _cmocka_run_group_tests("config", tests, n, NULL, NULL);
	remove_key_files();
	return rc;
}
