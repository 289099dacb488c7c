/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the config loader (lib/conf): a complete config of every key
 * parsed into the expected struct values, defaults, syntax variants, and each
 * class of error reported as "FILE:LINE: message" with the right line.
 *
 * The error cases are data files, one bad config each, in tests/data/conf/bad/
 * (NAME.ini, and NAME.expect with the line and message; see the README there);
 * the test walks that directory, one cmocka test per case. A case marks the
 * line that must be reported with a trailing comment " ;!" (comments are
 * stripped before anything else is looked at, so the mark changes nothing).
 *
 * HIP keys: `hi` names a key file whose existence and mode the loader checks.
 * main() makes temporary files for it (any content), and texts refer to them
 * as @HI@ (mode 0600), @HI644@ (mode 0644) and @HILINK@ (a symbolic link to
 * @HI@); subst() puts in the real paths.
 */
#include <dirent.h>
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

/* [host] public keys (tests/data/mbox): of tests/vectors/keys/ecdsa-p256-b.pem
 * and rsa3072-b.pem, with their HITs */
#define PUB_P256 HIPGW_TEST_DATA "/mbox/host-b-p256.pub"
#define PUB_RSA  HIPGW_TEST_DATA "/mbox/host-b-rsa3072.pub"
#define HIT_P256 "2001:22:50f0:92cf:1690:94ae:8c0a:6e8f"
#define HIT_RSA  "2001:21:851:1b8d:4923:34d0:7d68:b63d"

/* Copy text with @HI@, @HI644@ and @HILINK@ replaced by the key file paths.
 * Returns a malloc'd string. */
static char *
subst(const char *text)
{
	static const struct { const char *mark; const char *path; } m[] = {
		{ "@HI644@", hi_644 }, { "@HILINK@", hi_link }, { "@HI@", hi_ok },
		{ "@PUB@", PUB_P256 }, { "@PUBRSA@", PUB_RSA },
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
	"udp-encap = 10500 , 4500\n"
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
	assert_int_equal(sa->udp_sport, 10500);
	assert_int_equal(sa->udp_dport, 4500);
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
/* ---------- address = dhcp ---------------------------------------------------- */

/* An outer port with address = dhcp: no address, the flag set; a peer's
 * default local is then 0.0.0.0 (the lease's address, when it comes), or the
 * static one of a port before it in the file. */
static void
test_dhcp_port(void **state)
{
	static const char conf[] =
		"[port lan]\ndevice = net_null0\nrole = inner\naddress = 10.1.0.1/24\n"
		"[port wan]\ndevice = net_null1\nrole = outer\naddress = dhcp\n"
		"[port wan6]\ndevice = net_null2\nrole = outer\naddress = 2001:db8::1/64\n"
		"[gateway]\nhi = @HI@\n"
		"[peer b]\nhit = " HIT_B "\nlocator = 198.51.100.1\nprefixes = 10.2.0.0/16\n"
		"[peer c]\nhit = " HIT_P256 "\nlocator = 2001:db8:2::1\nprefixes = 10.3.0.0/16\n";
	struct gw_config *cfg = new_cfg();
	char err[512] = "x", *text = subst(conf);
	struct tmpconf t;
	int rc;

	(void)state;
	rc = load_len(text, strlen(text), cfg, err, sizeof(err), &t);
	unlink(t.path);
	free(text);
	if (rc != 0)
		fail_msg("load failed: %s", err);
	assert_true(cfg->ports[1].dhcp);
	assert_int_equal(cfg->ports[1].n_addrs, 0);
	assert_false(cfg->ports[0].dhcp);
	assert_false(cfg->ports[2].dhcp);
	assert_int_equal(cfg->n_peers, 2);
	assert_addr(&cfg->peers[0].local, "0.0.0.0");
	assert_addr(&cfg->peers[1].local, "2001:db8::1");
	gw_config_wipe(cfg);
	free(cfg);
}

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

/* One bad config per file, tests/data/conf/bad/NAME.ini, and beside it
 * NAME.expect: one line "LINE: MESSAGE", the load must fail with
 * "FILE:LINE: MESSAGE..." (MESSAGE the start of the loader's message). A line
 * of NAME.ini that ends in " ;!" (a comment: it changes nothing) is the line
 * that LINE must name. Texts and messages may name the key files as @HI@,
 * @HI644@ and @HILINK@ (subst()). */
#define BAD_DIR HIPGW_TEST_DATA "/conf/bad"

struct err_case {
	char name[64];        /* NAME */
	char *text;           /* NAME.ini, NUL-terminated (the files hold no NUL) */
	int line;             /* LINE */
	char *msg;            /* MESSAGE */
};

static struct err_case *err_cases;
static size_t n_err_cases;

/* A whole file, NUL-terminated; NULL (and a message) when it cannot be read. */
static char *
read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		buf = NULL;
	} else {
		buf[n] = '\0';
	}
	if (f != NULL)
		fclose(f);
	return buf;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct err_case *)a)->name, ((const struct err_case *)b)->name);
}

/* Every NAME.ini of BAD_DIR with its NAME.expect, sorted by name. Returns 0, or
 * -1 with a message: no directory, no case, a file unreadable, an .expect not
 * of the form "LINE: MESSAGE", an .expect without its .ini. */
static int
load_err_cases(void)
{
	DIR *d = opendir(BAD_DIR);
	struct dirent *e;
	size_t cap = 0, n_expect = 0;
	char path[512];

	if (d == NULL) {
		perror(BAD_DIR);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		struct err_case *c;
		char *exp, *colon;

		if (l > 7 && strcmp(e->d_name + l - 7, ".expect") == 0) {
			n_expect++;
			continue;
		}
		if (l < 5 || strcmp(e->d_name + l - 4, ".ini") != 0)
			continue;
		if (l - 4 >= sizeof(err_cases[0].name)) {
			fprintf(stderr, "%s/%s: name too long\n", BAD_DIR, e->d_name);
			closedir(d);
			return -1;
		}
		if (n_err_cases == cap) {
			struct err_case *nc = realloc(err_cases, (cap ? cap * 2 : 256) * sizeof(*nc));

			if (nc == NULL) {
				closedir(d);
				return -1;
			}
			err_cases = nc;
			cap = cap ? cap * 2 : 256;
		}
		c = &err_cases[n_err_cases++];
		memset(c, 0, sizeof(*c));
		memcpy(c->name, e->d_name, l - 4);
		snprintf(path, sizeof(path), "%s/%s", BAD_DIR, e->d_name);
		c->text = read_text(path);
		snprintf(path, sizeof(path), "%s/%s.expect", BAD_DIR, c->name);
		exp = read_text(path);
		if (c->text == NULL || exp == NULL) {
			free(exp);
			closedir(d);
			return -1;
		}
		c->line = (int)strtol(exp, &colon, 10);
		if (colon == exp || strncmp(colon, ": ", 2) != 0 || colon[2] == '\0' ||
		    strchr(colon, '\n') != colon + strlen(colon) - 1) {
			fprintf(stderr, "%s: not one line 'LINE: MESSAGE'\n", path);
			free(exp);
			closedir(d);
			return -1;
		}
		colon[strlen(colon) - 1] = '\0';
		c->msg = strdup(colon + 2);
		free(exp);
		if (c->msg == NULL) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	if (n_err_cases == 0 || n_expect != n_err_cases) {
		fprintf(stderr, "%s: %zu .ini and %zu .expect files\n", BAD_DIR, n_err_cases,
			n_expect);
		return -1;
	}
	qsort(err_cases, n_err_cases, sizeof(*err_cases), cmp_name);
	return 0;
}

static void
free_err_cases(void)
{
	for (size_t i = 0; i < n_err_cases; i++) {
		free(err_cases[i].text);
		free(err_cases[i].msg);
	}
	free(err_cases);
}

#define HEX16 "0x" K16
#define GW_HI "[gateway]\nhi = @HI@\n"
#define WAN4 "[port wan]\ndevice = net_null1\nrole = outer\naddress = 192.0.2.1/24\n"
#define PEER_B "[peer siteB]\nhit = " HIT_B "\nlocator = 198.51.100.1\nprefixes = 10.2.0.0/16\n"
#define PEER_C "[peer siteC]\nhit = " HIT_C "\nlocator = 2001:db8:3::1\nprefixes = 10.3.0.0/16\n"
#define CBC_SA(extra) "[sa c1]\ndirection = out\nspi = 0x3000\nsuite = aes128-cbc-sha256\n" \
	"key = " HEX16 "\nauth-key = 0x" A32 "\nlocal = 192.0.2.1\nremote = 198.51.100.1\n" \
	"prefixes = 10.5.0.0/16\n" extra

static void
test_error_case(void **state)
{
	const struct err_case *c = *state;
	struct gw_config *cfg = new_cfg();
	char err[512], want[600];
	char *text = subst(c->text), *msg = subst(c->msg);
	const char *mark = strstr(text, " ;!");
	struct tmpconf t;
	int line = c->line;

	if (mark != NULL) {
		/* the marked line is the one the .expect names */
		int marked = 1;

		for (const char *p = text; p < mark; p++)
			marked += *p == '\n';
		if (marked != line)
			fail_msg("case %s: line %d marked ' ;!', .expect says %d", c->name, marked, line);
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

/* L2 mode: [port] mode and [bridge]: every key read, the defaults, the names
 * resolved into indices, and l3 ports and peers' prefixes beside it. */
static void
test_bridge(void **state)
{
	static const char text[] = GW_HI LAN WAN
		"[port seg]\ndevice = net_null2\nrole = inner\nmode = l2\n"
		"[port seg2]\ndevice = net_null3\nrole = inner\nmode = l2\naddress = 10.9.0.1/24\n"
		PEER_C "[peer siteD]\nhit = 2001:22::d\nlocator = 198.51.100.4\nprefixes = 10.4.0.0/16\n"
		SA_OUT SA_IN
		"[bridge b1]\nport = seg\npeers = siteD\nsas = in1, out1\nmac-table-size = 1048576\n"
		"mac-age = 86400\nflood-rate = 0\nlink-local = pass\n"
		"static = 02:00:00:00:00:01 local, 02:00:00:00:00:01 vlan 4094 siteD, "
		"02:00:00:00:00:02 vlan 1 out1\n"
		"[bridge b2]\nport = seg2\npeers = siteC\nmac-table-size = 1\nmac-age = 10\n";
	struct gw_config *cfg = new_cfg();
	const struct gw_conf_bridge *b = &cfg->bridges[0], *b2 = &cfg->bridges[1];
	struct tmpconf t;
	char err[512], *tx = subst(text);

	(void)state;
	if (load_len(tx, strlen(tx), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	assert_int_equal(cfg->n_ports, 4);
	assert_int_equal(cfg->ports[0].mode, GW_PORT_L3);
	assert_int_equal(cfg->ports[1].mode, GW_PORT_L3);
	assert_int_equal(cfg->ports[2].mode, GW_PORT_L2);
	assert_int_equal(cfg->ports[2].n_addrs, 0);
	assert_int_equal(cfg->ports[3].n_addrs, 1);
	assert_int_equal(cfg->n_bridges, 2);
	assert_string_equal(b->name, "b1");
	assert_int_equal(b->port, 2);
	assert_int_equal(b->n_peers, 1);
	assert_int_equal(b->peers[0], 1);
	assert_int_equal(cfg->peers[1].n_prefixes, 1);   /* L3 beside L2 */
	assert_int_equal(b->n_sas, 2);
	assert_int_equal(b->sas[0], 1);                  /* in1 */
	assert_int_equal(b->sas[1], 0);                  /* out1 */
	assert_int_equal(b->mac_table_size, GW_MAC_ENTRIES_MAX);
	assert_int_equal(b->mac_age_s, GW_MAC_AGE_MAX_S);
	assert_int_equal(b->flood_rate, 0);
	assert_true(b->link_local_pass);
	assert_int_equal(b->n_statics, 3);
	assert_mac(b->statics[0].mac, "02:00:00:00:00:01");
	assert_int_equal(b->statics[0].vlan, 0);
	assert_int_equal(b->statics[0].dest, GW_BRIDGE_DEST_LOCAL);
	assert_int_equal(b->statics[1].vlan, 4094);
	assert_int_equal(b->statics[1].dest, GW_BRIDGE_DEST_PEER);
	assert_int_equal(b->statics[1].dest_idx, 1);
	assert_int_equal(b->statics[2].vlan, 1);
	assert_int_equal(b->statics[2].dest, GW_BRIDGE_DEST_SA);
	assert_int_equal(b->statics[2].dest_idx, 0);
	assert_int_equal(cfg->peers[1].bridge, 1);          /* siteD: b1's remote 0 */
	assert_int_equal(cfg->peers[1].bridge_remote, 0);
	assert_int_equal(cfg->peers[0].bridge, 2);          /* siteC: b2's */
	/* the other bounds, and the defaults */
	assert_int_equal(b2->port, 3);
	assert_int_equal(b2->peers[0], 0);
	assert_int_equal(b2->n_sas, 0);
	assert_int_equal(b2->mac_table_size, 1);
	assert_int_equal(b2->mac_age_s, 10);
	assert_int_equal(b2->flood_rate, 10000);
	assert_false(b2->link_local_pass);
	assert_int_equal(b2->n_statics, 0);
	free(tx);
	/* a bridge peer needs no prefixes (frames only); remote r: r-th of peers */
	tx = subst(GW_HI LAN WAN "[port seg]\ndevice = net_null2\nrole = inner\nmode = l2\n"
		   PEER_B "[peer l2only]\nhit = 2001:22::e\nlocator = 198.51.100.5\n"
		   "[bridge b]\nport = seg\npeers = l2only, siteB\n");
	if (load_len(tx, strlen(tx), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	assert_int_equal(cfg->bridges[0].mac_table_size, GW_MAC_ENTRIES_DEFAULT);
	assert_int_equal(cfg->bridges[0].mac_age_s, GW_MAC_AGE_DEFAULT_S);
	assert_int_equal(cfg->peers[1].n_prefixes, 0);
	assert_int_equal(cfg->peers[1].bridge, 1);
	assert_int_equal(cfg->peers[1].bridge_remote, 0);
	assert_int_equal(cfg->peers[0].bridge, 1);          /* siteB */
	assert_int_equal(cfg->peers[0].bridge_remote, 1);
	free(tx);
	free(cfg);
}

/* Middlebox mode: [gateway] mode, [middlebox] (every key, the pair resolved),
 * [host] (the key hashes to its HIT), [rule] in file order, [mbox-gen]; and
 * the defaults with the fewest keys. */
static void
test_middlebox(void **state)
{
	static const char text[] = "[gateway]\nmode = middlebox\nworkers = 2\n"
		"[port left]\ndevice = net_null0\nmtu = 9000\n"
		"[port right]\ndevice = net_null1\n"
		"[middlebox]\nports = right, left\nidle-timeout = 86400\nrekey-grace = 0\n"
		"i1-rate = 0\nmax-associations = 65536\nstate-file = /var/lib/hipgw/mbox.state\n"
		"bypass = 192.0.2.0/24, 2001:db8::/32\n"
		"[host b]\nhit = " HIT_P256 "\nhi = @PUB@\n"
		"[host r]\nhit = " HIT_RSA "\nhi = @PUBRSA@\n"
		"[rule no-r]\ninitiator = " HIT_RSA "\nresponder = any\naction = deny\n"
		"[rule all]\ninitiator = any\nresponder = any\naction = allow\n"
		"[rule b-r]\ninitiator = " HIT_P256 "\nresponder = " HIT_RSA "\naction = allow\n"
		"[mbox-gen lab]\ncount = 100000\ndestinations = 2001:db8:5::/64\nspi-seed = 0x7\n";
	struct gw_config *cfg = new_cfg();
	struct tmpconf t;
	char err[512], *tx = subst(text);
	struct in6_addr h;

	(void)state;
	if (load_len(tx, strlen(tx), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	free(tx);
	assert_int_equal(cfg->mode, GW_MODE_MIDDLEBOX);
	assert_string_equal(gw_mode_name(cfg->mode), "middlebox");
	assert_int_equal(cfg->n_ports, 2);
	assert_int_equal(cfg->ports[0].mtu, 9000);
	assert_int_equal(cfg->ports[1].n_addrs, 0);
	assert_int_equal(cfg->mbox.n_ports, 2);
	assert_int_equal(cfg->mbox.ports[0], 1);
	assert_int_equal(cfg->mbox.ports[1], 0);
	assert_int_equal(cfg->mbox.idle_timeout_s, 86400);
	assert_int_equal(cfg->mbox.rekey_grace_s, 0);
	assert_int_equal(cfg->mbox.i1_rate, 0);
	assert_int_equal(cfg->mbox.max_assocs, 65536);
	assert_string_equal(cfg->mbox.state_file, "/var/lib/hipgw/mbox.state");
	assert_int_equal(cfg->mbox.n_bypass, 2);
	assert_int_equal(cfg->mbox.bypass[1].a.family, 6);
	assert_int_equal(cfg->n_hosts, 2);
	assert_string_equal(cfg->hosts[1].name, "r");
	assert_int_equal(inet_pton(AF_INET6, HIT_RSA, &h), 1);
	assert_memory_equal(cfg->hosts[1].hit, &h, 16);
	assert_string_equal(cfg->hosts[0].hi_path, PUB_P256);
	assert_int_equal(cfg->n_rules, 3);
	assert_string_equal(cfg->rules[0].name, "no-r");
	assert_memory_equal(cfg->rules[0].initiator, &h, 16);
	assert_false(cfg->rules[0].any_initiator);
	assert_true(cfg->rules[0].any_responder);
	assert_int_equal(cfg->rules[0].action, GW_RULE_DENY);
	assert_true(cfg->rules[1].any_initiator && cfg->rules[1].any_responder);
	assert_int_equal(cfg->rules[1].action, GW_RULE_ALLOW);
	assert_memory_equal(cfg->rules[2].responder, &h, 16);
	assert_int_equal(cfg->mboxgen.count, 100000);
	assert_string_equal(cfg->mboxgen.name, "lab");
	assert_int_equal(cfg->mboxgen.block.a.family, 6);
	assert_int_equal(cfg->mboxgen.block.len, 64);
	assert_int_equal(cfg->mboxgen.spi_seed, 7);
	/* the defaults */
	tx = subst("[gateway]\nmode = middlebox\n[port a]\ndevice = net_null0\n"
		   "[port b]\ndevice = net_null1\n[middlebox]\nports = a, b\n");
	if (load_len(tx, strlen(tx), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	free(tx);
	assert_int_equal(cfg->mbox.ports[0], 0);
	assert_int_equal(cfg->mbox.idle_timeout_s, 300);
	assert_int_equal(cfg->mbox.rekey_grace_s, 2);
	assert_int_equal(cfg->mbox.i1_rate, 20);
	assert_int_equal(cfg->mbox.max_assocs, 4096);
	assert_string_equal(cfg->mbox.state_file, "");
	assert_int_equal(cfg->mbox.n_bypass, 0);
	assert_int_equal(cfg->n_hosts + cfg->n_rules + cfg->mboxgen.count, 0);
	assert_int_equal(cfg->ports[0].mtu, 1500);
	/* gateway mode is the default */
	tx = subst(GW_HI LAN WAN);
	if (load_len(tx, strlen(tx), cfg, err, sizeof(err), &t) != 0)
		fail_msg("%s", err);
	unlink(t.path);
	free(tx);
	assert_int_equal(cfg->mode, GW_MODE_GATEWAY);
	free(cfg);
}

int
main(void)
{
	struct CMUnitTest *tests;
	size_t n = 0;
	int rc;

	if (load_err_cases() != 0)
		return 1;
	tests = calloc(20 + n_err_cases, sizeof(*tests));
	if (tests == NULL)
		return 1;
	make_key_files();

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_full_config);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_example_gwA);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_defaults);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_hip_config);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_dhcp_port);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_hip_lifetime);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_r1_rate);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_peer_limit);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_bridge);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_middlebox);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sagen);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_syntax_variants);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_limits);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_file_errors);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_error_bases_valid);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_helpers);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_mutations);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_mutations_hip);
	for (size_t i = 0; i < n_err_cases; i++) {
		tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_error_case,
									 (void *)&err_cases[i]);
		tests[n].name = err_cases[i].name;
		n++;
	}
	rc = _cmocka_run_group_tests("config", tests, n, NULL, NULL);
	remove_key_files();
	free(tests);
	free_err_cases();
	return rc;
}
