/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw configuration loader.
 *
 * ---- Configuration reference (docs/config.md copies this block) ------------
 *
 * Syntax
 *   An INI file. Blank lines are ignored. A comment starts with ';' or '#' at the
 *   start of a line or after a space or tab, and runs to the end of the line, so
 *   `mtu = 1500 ; jumbo later` works; a ';' or '#' glued to a value
 *   (`mtu = 1500;x`) is part of the value. Every other line is a section header
 *   `[TYPE]` / `[TYPE NAME]` or `key = value`. Lines may end in CRLF; a UTF-8 BOM
 *   at the start is skipped. Lines are at most 1024 bytes, key names at most 63,
 *   values at most 255 (rte_cfgfile's limits), section names 1..31 bytes of
 *   [A-Za-z0-9._-] starting with a letter or digit. Keys and values are ASCII; no
 *   control characters anywhere but tab. Breaking any of these is an error, as
 *   are unknown sections or keys, duplicate sections, a key given twice in a
 *   section, a key before the first section and an empty value (omit an
 *   optional key instead).
 *   Lists are comma-separated; an element may not be empty. Numbers are decimal
 *   (no leading zeros); `spi` also takes 0x and 1..8 hex digits.
 *   Errors are reported as `FILE:LINE: message`, LINE 0 when no single line is
 *   at fault. Syntax errors (whole file) are found before value errors.
 *
 * [gateway]                       optional section
 *   workers = 1                   worker lcores, 1..16; default 1
 *   idle = adaptive               busy | adaptive; default adaptive
 *   hi = /path/gw.pem             this gateway's Host Identity (private key,
 *                                 PEM, as `hipgw keygen` writes it); absolute
 *                                 path of a regular file, not a symbolic link,
 *                                 with no permission for group or others (chmod
 *                                 600). The config check looks at that only;
 *                                 the key is loaded when hipgw starts. Required
 *                                 when there is a [peer] section; default none
 *   puzzle-k = 10                 initial puzzle difficulty K (RFC 7401 4.1.2),
 *                                 bits, 0..28; default 10
 *   r1-rate = 20000               R1s sent per second at most, 0..10000000;
 *                                 0 = no limit; default 20000. A token bucket
 *                                 of max(r1-rate / 10, 16) R1s: an I1 that
 *                                 finds it empty is dropped (counter
 *                                 r1_ratelimit), and still counts towards
 *                                 raising K. Against reflection: an I1 is ~40
 *                                 bytes, an R1 several hundred, so spoofed
 *                                 I1s would bounce R1s at that gain onto their
 *                                 claimed sources. The default is ten times
 *                                 what one control lcore can finish (about
 *                                 2000 ECDSA Base Exchanges a second), so
 *                                 legitimate I1s are never refused
 *   esp-transforms = NAME, ...    ESP transforms offered and accepted, in order
 *                                 of preference, each once (RFC 7402 5.1.2 IDs):
 *                                 aes-gcm16 (13: AES-GCM, 16-octet ICV) |
 *                                 aes256-cbc-sha256 (9) | aes128-cbc-sha256 (8) |
 *                                 null-sha256 (7: no encryption, tests only);
 *                                 default aes-gcm16, aes256-cbc-sha256,
 *                                 aes128-cbc-sha256
 *   dh-groups = NAME, ...         Diffie-Hellman groups, preference order, each
 *                                 once (RFC 7401 5.2.7 IDs): nist-p256 (7) |
 *                                 nist-p384 (8) | modp3072 (4); default
 *                                 nist-p256, nist-p384, modp3072
 *   hip-ciphers = NAME, ...       HIP_CIPHER for the ENCRYPTED parameter,
 *                                 preference order, each once (RFC 7401 5.2.8
 *                                 IDs): aes128-cbc (2) | aes256-cbc (4) |
 *                                 null (1: HOST_ID in clear, only when listed);
 *                                 default aes128-cbc, aes256-cbc
 *   sa-lifetime = 3600s, 1GiB     HIP-keyed SAs are rekeyed by UPDATE when the
 *                                 first of these limits is reached: a time
 *                                 (number and s, m or h; 1s..720h) and/or a byte
 *                                 count (number and B, KiB, MiB, GiB or TiB;
 *                                 1KiB..1024TiB), in either order, no space
 *                                 before the unit. A limit left out does not
 *                                 apply (the sequence-number space still does);
 *                                 default 3600s, 1GiB
 *   pmtu-age = 600                seconds a path MTU lowered by an ICMP error
 *                                 (fragmentation needed / Packet Too Big
 *                                 quoting one of our ESP packets) lasts; then
 *                                 the path's SAs go back to the port's MTU
 *                                 (RFC 1191 6.3, RFC 8201 4); 300..86400
 *                                 (RFC 8201 4: no increase sooner than 5
 *                                 minutes); default 600. Only the command
 *                                 line's --test-pmtu-age (tests) goes lower
 *   mbufs = N                     packet buffers in the pool, 4096..16777216;
 *                                 default: enough for every port queue and
 *                                 ring (about 14000 with one worker). Raise it
 *                                 for net_pcap infinite_rx, which holds the
 *                                 whole pcap in buffers
 *   mbuf-size = 2176              data room per buffer including the 128-byte
 *                                 headroom, bytes, 512..65535; default 2176.
 *                                 Smaller buffers save memory for pcap-driven
 *                                 benchmarks of small frames; a frame larger
 *                                 than a buffer arrives chained
 *   neighbor-refresh = 30         seconds between two walks over the neighbours
 *                                 learned by ARP / ND, 1..3600; default 30. A
 *                                 neighbour not heard from since the last walk
 *                                 is asked for again (ARP request / NS), one
 *                                 that has not answered by the next walk is
 *                                 forgotten and resolved anew on its next use,
 *                                 so a false MAC (a spoofed ARP packet) lasts
 *                                 at most two walks after the lies stop; static
 *                                 neighbours ([port] neighbors) are left alone
 *
 * [port NAME]                     1..8 sections; hipgw creates the ports in file
 *                                 order; at least one inner and one outer port
 *   device = STRING               required; PCI address or vdev string
 *                                 (net_af_packet0,iface=veth0 ...); unique
 *   role = inner|outer            required
 *   address = A/LEN, ...          required; 1..8 interface addresses with prefix
 *                                 length, IPv4 and/or IPv6 (10.1.0.1/24,
 *                                 fd00:1::1/64); unicast, IPv4 not the network or
 *                                 broadcast address; networks of different ports
 *                                 must not overlap (IPv6 link-local excepted)
 *   mac = XX:XX:XX:XX:XX:XX       optional; unicast MAC to set on the port;
 *                                 default: the MAC the PMD gives
 *   neighbors = IP MAC, ...       optional; up to 32 static neighbours, each on
 *                                 one of the port's networks (or IPv6 link-local);
 *                                 default: resolve with ARP / ND
 *   routes = PREFIX via IP, ...   optional; up to 32 extra networks behind a next
 *                                 hop on one of the port's networks
 *   gateway = IP[, IP]            optional; default next hop, at most one IPv4
 *                                 and one IPv6, on the port's networks
 *   mtu = 1500                    IP MTU, 576..9000 (>= 1280 when the port has an
 *                                 IPv6 address); default 1500. Frames longer
 *                                 than one mbuf (jumbo frames the PMD chains;
 *                                 NICs get RX scatter) and reassembled ESP
 *                                 longer than its first mbuf are copied into a
 *                                 large mbuf (9216 bytes of data room, 512 per
 *                                 worker; none free: drop no_mbuf)
 *   tcp-mss-clamp = auto          auto | off | N (88 .. mtu - 40); clamp the MSS
 *                                 option of TCP SYNs; auto fits the ESP overhead;
 *                                 default auto
 *
 * [sa NAME]                       0..256 sections: manually keyed ESP SAs
 *   direction = out|in            required
 *   spi = 0x1000                  required; 256..4294967295, decimal or 0x hex;
 *                                 unique among in SAs and among out SAs
 *   suite = NAME                  required; aes128-gcm16 | aes256-gcm16 |
 *                                 aes128-cbc-sha256 | aes256-cbc-sha256 |
 *                                 null-sha256
 *   key = 0xHEX                   GCM: AES key followed by the 4-byte salt
 *                                 (RFC 4106), 20 or 36 bytes, no two GCM SAs
 *                                 (in or out) with one key; CBC: AES key, 16
 *                                 or 32 bytes; null-sha256: not allowed
 *   auth-key = 0xHEX              -sha256 suites: HMAC-SHA-256 key, 32 bytes,
 *                                 required; GCM: not allowed
 *   local = IP                    required; outer address of this gateway, one of
 *                                 the addresses of an outer port
 *   remote = IP                   required; the peer gateway, same family as local
 *   prefixes = PREFIX, ...        required; 1..32 prefixes of the remote site, host
 *                                 bits zero. out: destinations sent through this
 *                                 SA (must not overlap any other out SA's
 *                                 prefixes); in: inner sources accepted from it
 *   local-prefixes = PREFIX, ...  in SAs only, optional; 1..32 inner destinations
 *                                 accepted (RFC 4301 5.2); default: the inner
 *                                 ports' networks and routes
 *   esn = off                     on | off: 64-bit extended sequence numbers;
 *                                 default off
 *   state = /path                 out SAs with a GCM suite only; absolute path of
 *                                 the sequence-number high-water mark file;
 *                                 default /var/lib/hipgw/NAME.seq; unique
 *   replay-window = 1024          in SAs only; packets, 0 (anti-replay off) or a
 *                                 multiple of 64 up to 4096; default 1024
 *
 * [peer NAME]                     0..64 sections: peer gateways keyed by HIP
 *                                 (needs [gateway] hi); manual [sa] sections
 *                                 work beside them
 *   hit = 2001:2x:...             required; the peer's HIT, an ORCHIDv2 address
 *                                 (2001:20::/28) with the OGA ID of a HIT suite
 *                                 (1 RSA/DSA, 2 ECDSA, 3 ECDSA_LOW), as
 *                                 `hipgw hit` prints it; unique. Only listed
 *                                 HITs are accepted
 *   locator = IP, ...             required; 1..4 outer (unicast) addresses of the
 *                                 peer, IPv4 and/or IPv6, in order of preference;
 *                                 for each family listed an outer port needs an
 *                                 address of that family; none of ours
 *   local = IP                    optional; our outer address towards the peer,
 *                                 an address of an outer port, of the family of
 *                                 one of the locators; default: the first
 *                                 address (ports and addresses in file order,
 *                                 IPv6 link-local last) of an outer port with
 *                                 the family of the first locator
 *   prefixes = PREFIX, ...        required; 1..32 prefixes of the site behind
 *                                 the peer, host bits zero; none may overlap
 *                                 another prefix of the list, another [peer]'s
 *                                 prefixes or an out [sa]'s prefixes
 *
 * [policy]                        optional section
 *   bypass = PREFIX, ...          up to 32 destinations forwarded in clear from
 *                                 inner to outer; host bits zero; none overlapping
 *                                 an out SA's or a peer's prefix (not even a
 *                                 smaller one inside it). Without a match (SA,
 *                                 peer or bypass) a packet is dropped.
 *
 * [sa-gen NAME]                   0..1 sections. BENCHMARKING / LAB FEATURE: the
 *                                 keys follow from a seed written here, so anyone
 *                                 who reads the config reads the traffic, and GCM
 *                                 nonces repeat after a restart. `count` SAs per
 *                                 direction generated from seeds (definitions
 *                                 in lib/conf/gw_sagen.h: splitmix64), installed
 *                                 by the control lcore in batches after the
 *                                 workers started (telemetry /hipgw/sa_gen)
 *   count = 1000                  required; SAs per direction, 1..4194304
 *   direction = out|in|both       required; both: SA i exists in both
 *                                 directions with the same SPI, prefix and keys
 *   suite = NAME                  required; as in [sa]
 *   local = IP                    required; outer address of an outer port
 *   remote = IP                   required; the peer, same family as local
 *   prefixes = A.B.C.D/LEN        required; IPv4 block the SAs' prefixes are
 *                                 drawn from: SA i's prefix is the i-th of a
 *                                 pseudo-random permutation of the block's
 *                                 /prefix-len networks. out: destinations sent
 *                                 through SA i (the block must not overlap a
 *                                 port's network, an out SA's, a peer's or a
 *                                 bypass prefix); in: inner sources accepted
 *   prefix-len = 24               length of each SA's prefix, block length
 *                                 ..32, at most 24 more than the block's (a
 *                                 direct table of 2^(prefix-len - block
 *                                 length) entries); default 24
 *   spi-seed = 1                  seeds, 0..4294967295, decimal or 0x hex;
 *   prefix-seed = 1               default 1 each. SPIs are distinct, >= 256,
 *   key-seed = 1                  and must not be an [sa]'s of that direction
 *   replay-window = 1024          in SAs, as in [sa]; default 1024
 *   batch = 1024                  SAs installed per control-loop pass, 1..65536;
 *                                 default 1024
 *   install = after-start         after-start: by the control lcore while the
 *                                 workers forward (traffic to an SA not yet
 *                                 installed is dropped as no_sa); before-start:
 *                                 all of them before the workers start (tests);
 *                                 default after-start
 * -----------------------------------------------------------------------------
 *
 * How: the file is read into memory and pre-scanned here line by line (line
 * numbers, every syntax rule above). The sections and entries the pre-scan
 * accepted are handed to an rte_cfgfile through its API (rte_cfgfile_create /
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
		/* SEC_SAGEN: at most one, idx 0 */
	}
	for (unsigned i = 0; i < L->n_secs; i++)
		if (parse_section(L, &L->secs[i]) != 0)
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
