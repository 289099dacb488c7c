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
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cfgfile.h>

#include "gw_config.h"
#include "gw_sagen.h"

#define GW_CONF_FILE_MAX   (16u << 20)   /* biggest config file read, bytes */
#define GW_CONF_WORKERS_MAX 16
#define GW_CONF_MTU_MIN    576
#define GW_CONF_MTU_MIN_V6 1280
#define GW_CONF_MSS_MIN    88
#define GW_CONF_REPLAY_DEFAULT 1024
#define GW_CONF_REPLAY_MAX 4096
#define GW_CONF_SPI_MIN    256
#define GW_CONF_STATE_DIR  "/var/lib/hipgw/"
#define GW_CONF_PUZZLE_K_MAX     28
#define GW_CONF_PUZZLE_K_DEFAULT 10
#define GW_CONF_R1_RATE_MAX      10000000u    /* = HIP_R1_RATE_MAX (lib/hip) */
#define GW_CONF_R1_RATE_DEFAULT  20000u
#define GW_CONF_LIFETIME_S_DEFAULT     3600u
#define GW_CONF_LIFETIME_BYTES_DEFAULT (1ull << 30)    /* 1 GiB */
#define GW_CONF_LIFETIME_S_MAX         (720u * 3600u)  /* 720h = 30 days */
#define GW_CONF_LIFETIME_BYTES_MIN     1024ull         /* 1 KiB */
#define GW_CONF_LIFETIME_BYTES_MAX     (1ull << 50)    /* 1024 TiB */
#define GW_CONF_PMTU_AGE_DEFAULT 600u            /* seconds: RFC 1191 6.3 / RFC 8201 4 */
#define GW_CONF_PMTU_AGE_MIN     300u            /* RFC 8201 4: 5 minutes at least */
#define GW_CONF_PMTU_AGE_MAX     86400u
#define GW_CONF_MBUFS_MIN      4096u
#define GW_CONF_MBUFS_MAX      (1u << 24)
#define GW_CONF_MBUF_SIZE_MIN  512u
#define GW_CONF_MBUF_SIZE_MAX  65535u
#define GW_CONF_NEIGH_REFRESH_MAX     3600u   /* s */
#define GW_CONF_SAGEN_BATCH_DEFAULT 1024u
#define GW_CONF_SAGEN_BATCH_MAX     65536u

#define MAX_SECTIONS (3 + GW_CONF_MAX_PORTS + GW_CONF_MAX_SAS + GW_CONF_MAX_PEERS)
#define ECHO "%.80s"          /* user text quoted in messages, bounded */

/* ---------- tables --------------------------------------------------------- */

enum sec_type { SEC_GATEWAY, SEC_PORT, SEC_SA, SEC_POLICY, SEC_PEER, SEC_SAGEN };

static const char *const sec_type_names[] = {
	[SEC_GATEWAY] = "gateway", [SEC_PORT] = "port", [SEC_SA] = "sa", [SEC_POLICY] = "policy",
	[SEC_PEER] = "peer", [SEC_SAGEN] = "sa-gen",
};

enum key_id {
	K_WORKERS, K_IDLE, K_HI, K_PUZZLE_K, K_R1_RATE, K_ESP_TRANSFORMS, K_DH_GROUPS, K_HIP_CIPHERS,
	K_SA_LIFETIME, K_PMTU_AGE, K_MBUFS, K_MBUF_SIZE, K_NEIGH_REFRESH,
	K_DEVICE, K_ROLE, K_ADDRESS, K_MAC, K_NEIGHBORS, K_ROUTES, K_GATEWAY, K_MTU, K_MSS,
	K_DIRECTION, K_SPI, K_SUITE, K_KEY, K_AUTH_KEY, K_LOCAL, K_REMOTE, K_PREFIXES,
	K_LOCAL_PREFIXES, K_ESN, K_STATE, K_REPLAY,
	K_BYPASS,
	K_HIT, K_LOCATOR, K_PEER_LOCAL, K_PEER_PREFIXES,
	K_G_COUNT, K_G_DIRECTION, K_G_SUITE, K_G_LOCAL, K_G_REMOTE, K_G_SPI_SEED, K_G_PREFIXES,
	K_G_PREFIX_LEN, K_G_PREFIX_SEED, K_G_KEY_SEED, K_G_REPLAY, K_G_BATCH, K_G_INSTALL,
	K_MAX
};

static const struct {
	const char *name;
	enum sec_type sec;
} key_table[K_MAX] = {
	[K_WORKERS] = { "workers", SEC_GATEWAY },
	[K_IDLE] = { "idle", SEC_GATEWAY },
	[K_HI] = { "hi", SEC_GATEWAY },
	[K_PUZZLE_K] = { "puzzle-k", SEC_GATEWAY },
	[K_R1_RATE] = { "r1-rate", SEC_GATEWAY },
	[K_ESP_TRANSFORMS] = { "esp-transforms", SEC_GATEWAY },
	[K_DH_GROUPS] = { "dh-groups", SEC_GATEWAY },
	[K_HIP_CIPHERS] = { "hip-ciphers", SEC_GATEWAY },
	[K_SA_LIFETIME] = { "sa-lifetime", SEC_GATEWAY },
	[K_PMTU_AGE] = { "pmtu-age", SEC_GATEWAY },
	[K_MBUFS] = { "mbufs", SEC_GATEWAY },
	[K_MBUF_SIZE] = { "mbuf-size", SEC_GATEWAY },
	[K_NEIGH_REFRESH] = { "neighbor-refresh", SEC_GATEWAY },
	[K_DEVICE] = { "device", SEC_PORT },
	[K_ROLE] = { "role", SEC_PORT },
	[K_ADDRESS] = { "address", SEC_PORT },
	[K_MAC] = { "mac", SEC_PORT },
	[K_NEIGHBORS] = { "neighbors", SEC_PORT },
	[K_ROUTES] = { "routes", SEC_PORT },
	[K_GATEWAY] = { "gateway", SEC_PORT },
	[K_MTU] = { "mtu", SEC_PORT },
	[K_MSS] = { "tcp-mss-clamp", SEC_PORT },
	[K_DIRECTION] = { "direction", SEC_SA },
	[K_SPI] = { "spi", SEC_SA },
	[K_SUITE] = { "suite", SEC_SA },
	[K_KEY] = { "key", SEC_SA },
	[K_AUTH_KEY] = { "auth-key", SEC_SA },
	[K_LOCAL] = { "local", SEC_SA },
	[K_REMOTE] = { "remote", SEC_SA },
	[K_PREFIXES] = { "prefixes", SEC_SA },
	[K_LOCAL_PREFIXES] = { "local-prefixes", SEC_SA },
	[K_ESN] = { "esn", SEC_SA },
	[K_STATE] = { "state", SEC_SA },
	[K_REPLAY] = { "replay-window", SEC_SA },
	[K_BYPASS] = { "bypass", SEC_POLICY },
	[K_HIT] = { "hit", SEC_PEER },
	[K_LOCATOR] = { "locator", SEC_PEER },
	[K_PEER_LOCAL] = { "local", SEC_PEER },
	[K_PEER_PREFIXES] = { "prefixes", SEC_PEER },
	[K_G_COUNT] = { "count", SEC_SAGEN },
	[K_G_DIRECTION] = { "direction", SEC_SAGEN },
	[K_G_SUITE] = { "suite", SEC_SAGEN },
	[K_G_LOCAL] = { "local", SEC_SAGEN },
	[K_G_REMOTE] = { "remote", SEC_SAGEN },
	[K_G_SPI_SEED] = { "spi-seed", SEC_SAGEN },
	[K_G_PREFIXES] = { "prefixes", SEC_SAGEN },
	[K_G_PREFIX_LEN] = { "prefix-len", SEC_SAGEN },
	[K_G_PREFIX_SEED] = { "prefix-seed", SEC_SAGEN },
	[K_G_KEY_SEED] = { "key-seed", SEC_SAGEN },
	[K_G_REPLAY] = { "replay-window", SEC_SAGEN },
	[K_G_BATCH] = { "batch", SEC_SAGEN },
	[K_G_INSTALL] = { "install", SEC_SAGEN },
};

static const char *const suite_names[GW_SUITE_MAX] = {
	[GW_SUITE_AES128_GCM16] = "aes128-gcm16",
	[GW_SUITE_AES256_GCM16] = "aes256-gcm16",
	[GW_SUITE_AES128_CBC_SHA256] = "aes128-cbc-sha256",
	[GW_SUITE_AES256_CBC_SHA256] = "aes256-cbc-sha256",
	[GW_SUITE_NULL_SHA256] = "null-sha256",
};

/* Key lengths per suite, bytes: cipher key (incl. GCM salt), HMAC key. */
static const struct { uint8_t key, auth; } suite_lens[GW_SUITE_MAX] = {
	[GW_SUITE_AES128_GCM16] = { 16 + 4, 0 },
	[GW_SUITE_AES256_GCM16] = { 32 + 4, 0 },
	[GW_SUITE_AES128_CBC_SHA256] = { 16, 32 },
	[GW_SUITE_AES256_CBC_SHA256] = { 32, 32 },
	[GW_SUITE_NULL_SHA256] = { 0, 32 },
};

/* HIP algorithm names of [gateway] and their IDs. The numbers are the RFCs'
 * (the same as in lib/hipwire/hip_wire.h, which lib/conf does not include). */
struct id_name {
	const char *name;
	uint16_t id;
};

/* ESP transform suite IDs, RFC 7402 section 5.1.2 (IANA "ESP Transform Suite IDs") */
static const struct id_name esp_transform_table[] = {
	{ "aes-gcm16", 13 },            /* AES-GCM with a 16-octet ICV (RFC 4106) */
	{ "aes256-cbc-sha256", 9 },     /* AES-256-CBC with HMAC-SHA-256 */
	{ "aes128-cbc-sha256", 8 },     /* AES-128-CBC with HMAC-SHA-256 */
	{ "null-sha256", 7 },           /* NULL with HMAC-SHA-256 */
};
static const uint16_t esp_transform_default[] = { 13, 9, 8 };

/* DH Group IDs, RFC 7401 section 5.2.7 */
static const struct id_name dh_group_table[] = {
	{ "nist-p256", 7 },             /* NIST P-256 */
	{ "nist-p384", 8 },             /* NIST P-384 */
	{ "modp3072", 4 },              /* 3072-bit MODP (RFC 3526 group 15) */
};
static const uint16_t dh_group_default[] = { 7, 8, 4 };

/* HIP Cipher IDs, RFC 7401 section 5.2.8 */
static const struct id_name hip_cipher_table[] = {
	{ "null", 1 },                  /* NULL-ENCRYPT */
	{ "aes128-cbc", 2 },            /* AES-128-CBC */
	{ "aes256-cbc", 4 },            /* AES-256-CBC */
};
static const uint16_t hip_cipher_default[] = { 2, 4 };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *
id_to_name(const struct id_name *t, size_t n, unsigned id)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].id == id)
			return t[i].name;
	return "?";
}

static bool
suite_is_gcm(enum gw_suite s)
{
	return s == GW_SUITE_AES128_GCM16 || s == GW_SUITE_AES256_GCM16;
}

/* ---------- loader state --------------------------------------------------- */

struct sec {
	enum sec_type type;
	char name[GW_CONF_NAME_MAX];        /* "" for [gateway] / [policy] */
	char cfgname[CFG_NAME_LEN];         /* section name inside the rte_cfgfile */
	unsigned line;
	unsigned key_line[K_MAX];           /* 0: key absent */
	unsigned idx;                       /* into cfg->ports / cfg->sas / cfg->peers */
};

struct loader {
	const char *path;
	char *err;
	size_t errlen;
	struct gw_config *cfg;
	struct rte_cfgfile *rc;
	char *buf;                          /* the file */
	size_t buflen;
	struct sec secs[MAX_SECTIONS];
	unsigned n_secs;
	/* raw key bytes of the SA being parsed, checked against its suite at the end */
	uint8_t key[GW_CONF_AUTH_KEY_MAX];  /* the longest key any suite takes */
	size_t key_len;
	uint8_t auth_key[GW_CONF_AUTH_KEY_MAX];
	size_t auth_key_len;
	char tmp[CFG_VALUE_LEN];            /* mutable copy of a value */
};

static int __attribute__((format(printf, 3, 4)))
fail(struct loader *L, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (L->err == NULL || L->errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(L->err, L->errlen, "%s:%u: %s", L->path ? L->path : "(null)", line, msg);
	/* one line, whatever the path holds */
	for (char *c = L->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* ---------- small parsers -------------------------------------------------- */

static bool
is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static char *
trim(char *s)
{
	char *e;

	while (is_ws(*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_ws(e[-1]))
		*--e = '\0';
	return s;
}

/* Next comma-separated element of *cur (modified in place), trimmed.
 * Returns 1 with *item set, 0 at the end, -1 for an empty element. */
static int
list_next(char **cur, char **item)
{
	char *p = *cur, *comma;

	if (p == NULL)
		return 0;
	comma = strchr(p, ',');
	if (comma != NULL) {
		*comma = '\0';
		*cur = comma + 1;
	} else {
		*cur = NULL;
	}
	p = trim(p);
	if (*p == '\0')
		return -1;
	*item = p;
	return 1;
}

/* Split s (modified) into whitespace-separated words; returns their number,
 * max + 1 when there are more than max. */
static unsigned
split_words(char *s, char **w, unsigned max)
{
	unsigned n = 0;

	for (;;) {
		while (is_ws(*s))
			*s++ = '\0';
		if (*s == '\0')
			return n;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s != '\0' && !is_ws(*s))
			s++;
	}
}

/* Decimal without leading zeros, or (hex_ok) 0x followed by 1..8 hex digits. */
static int
parse_uint(const char *s, bool hex_ok, uint64_t *out)
{
	uint64_t v = 0;
	size_t n;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n = strlen(s);
		if (n == 0 || n > 8)
			return -1;
		for (; *s; s++) {
			int d;
			if (*s >= '0' && *s <= '9')
				d = *s - '0';
			else if (*s >= 'a' && *s <= 'f')
				d = *s - 'a' + 10;
			else if (*s >= 'A' && *s <= 'F')
				d = *s - 'A' + 10;
			else
				return -1;
			v = v * 16 + (uint64_t)d;
		}
		*out = v;
		return 0;
	}
	n = strlen(s);
	if (n == 0 || n > 10 || (s[0] == '0' && n > 1))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "0x" + an even, non-zero number of hex digits. Never quotes the value. */
static int
parse_hex_key(struct loader *L, unsigned line, const char *what, const char *s,
	      uint8_t *out, size_t max, size_t *len)
{
	size_t n, i;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return fail(L, line, "%s must be hex digits after 0x", what);
	s += 2;
	n = strlen(s);
	for (i = 0; i < n; i++)
		if (hexval(s[i]) < 0)
			return fail(L, line, "%s: character %zu is not a hex digit", what, i + 3);
	if (n == 0)
		return fail(L, line, "%s has no hex digits after 0x", what);
	if (n % 2 != 0)
		return fail(L, line, "%s has an odd number of hex digits (%zu)", what, n);
	if (n / 2 > max)
		return fail(L, line, "%s is too long (%zu bytes)", what, n / 2);
	for (i = 0; i < n / 2; i++)
		out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
	*len = n / 2;
	return 0;
}

static int
parse_addr(const char *s, struct gw_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (strchr(s, ':') != NULL) {
		if (inet_pton(AF_INET6, s, a->addr) != 1)
			return -1;
		a->family = 6;
	} else {
		if (inet_pton(AF_INET, s, a->addr) != 1)
			return -1;
		a->family = 4;
	}
	return 0;
}

static unsigned
family_bits(uint8_t family)
{
	return family == 4 ? 32 : 128;
}

static bool
addr_eq(const struct gw_addr *a, const struct gw_addr *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, 16) == 0;
}

/* Bits of a beyond `len` are all zero (ones: all one). */
static bool
host_bits_all(const struct gw_addr *a, unsigned len, bool ones)
{
	unsigned bits = family_bits(a->family);

	for (unsigned i = len; i < bits; i++) {
		bool set = (a->addr[i / 8] >> (7 - i % 8)) & 1;
		if (set != ones)
			return false;
	}
	return true;
}

static void
clear_host_bits(struct gw_addr *a, unsigned len)
{
	unsigned bits = family_bits(a->family);

	for (unsigned i = len; i < bits; i++)
		a->addr[i / 8] &= (uint8_t)~(1u << (7 - i % 8));
}

static bool
is_unicast(const struct gw_addr *a)
{
	static const uint8_t zero[16];

	if (a->family == 4) {
		if (memcmp(a->addr, zero, 4) == 0)
			return false;
		if (a->addr[0] >= 224 || a->addr[0] == 127)   /* multicast, class E, broadcast, loopback */
			return false;
		return true;
	}
	if (memcmp(a->addr, zero, 16) == 0)
		return false;
	if (a->addr[0] == 0xff)
		return false;
	if (memcmp(a->addr, zero, 15) == 0 && a->addr[15] == 1)
		return false;
	return true;
}

static bool
is_v6_link_local(const struct gw_addr *a)
{
	return a->family == 6 && a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80;
}

static const char *
addr_str(const struct gw_addr *a, char *buf)
{
	return gw_addr_str(a, buf, INET6_ADDRSTRLEN);
}

static const char *
prefix_str(const struct gw_prefix *p, char *buf)
{
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, INET6_ADDRSTRLEN + 5, "%s/%u", addr_str(&p->a, a), p->len);
	return buf;
}

#define PFX_STRLEN (INET6_ADDRSTRLEN + 5)

/* An address (unicast) on its own. */
static int
parse_unicast(struct loader *L, unsigned line, const char *what, const char *s,
	      struct gw_addr *a)
{
	if (parse_addr(s, a) != 0)
		return fail(L, line, "%s: '" ECHO "' is not an IPv4 or IPv6 address", what, s);
	if (!is_unicast(a))
		return fail(L, line, "%s: '" ECHO "' is not a unicast address", what, s);
	return 0;
}

/* ADDRESS/LEN. iface: an interface address (host part kept, must be a usable
 * unicast address); else a network (host bits must be zero). */
static int
parse_prefix(struct loader *L, unsigned line, const char *what, const char *s,
	     struct gw_prefix *p, bool iface)
{
	char buf[64];
	char *slash;
	uint64_t len;
	unsigned bits;

	memset(p, 0, sizeof(*p));
	if (strlen(s) >= sizeof(buf))
		return fail(L, line, "%s: '" ECHO "' is not a prefix (ADDRESS/LENGTH)", what, s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return fail(L, line, "%s: '" ECHO "' needs a prefix length (ADDRESS/LENGTH)", what, s);
	*slash = '\0';
	if (parse_addr(buf, &p->a) != 0)
		return fail(L, line, "%s: '" ECHO "' is not an IPv4 or IPv6 address", what, buf);
	bits = family_bits(p->a.family);
	if (parse_uint(slash + 1, false, &len) != 0 || len > bits)
		return fail(L, line, "%s: prefix length in '" ECHO "' must be 0..%u", what, s, bits);
	p->len = (uint8_t)len;
	if (iface) {
		if (len == 0)
			return fail(L, line, "%s: '" ECHO "': an interface network cannot be /0", what, s);
		if (!is_unicast(&p->a))
			return fail(L, line, "%s: '" ECHO "' is not a unicast address", what, s);
		if (p->a.family == 4 && len <= 30) {
			if (host_bits_all(&p->a, p->len, false))
				return fail(L, line, "%s: '" ECHO "' is the network address, not an interface address",
					    what, s);
			if (host_bits_all(&p->a, p->len, true))
				return fail(L, line, "%s: '" ECHO "' is the broadcast address, not an interface address",
					    what, s);
		}
	} else if (!host_bits_all(&p->a, p->len, false)) {
		struct gw_prefix net = *p;
		char n[PFX_STRLEN];

		clear_host_bits(&net.a, net.len);
		return fail(L, line, "%s: '" ECHO "' has host bits set (network %s?)", what, s,
			    prefix_str(&net, n));
	}
	return 0;
}

/* A comma-separated list of network prefixes, no duplicates. */
static int
parse_prefix_list(struct loader *L, unsigned line, const char *what, const char *v,
		  struct gw_prefix *out, unsigned max, unsigned *n)
{
	char *cur = L->tmp, *item;
	int r;

	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	*n = 0;
	while ((r = list_next(&cur, &item)) != 0) {
		if (r < 0)
			return fail(L, line, "%s: empty element in list", what);
		if (*n == max)
			return fail(L, line, "%s: more than %u prefixes", what, max);
		if (parse_prefix(L, line, what, item, &out[*n], false) != 0)
			return -1;
		for (unsigned i = 0; i < *n; i++)
			if (out[i].len == out[*n].len && addr_eq(&out[i].a, &out[*n].a))
				return fail(L, line, "%s: '" ECHO "' is listed twice", what, item);
		(*n)++;
	}
	return 0;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	if (strlen(s) != 17)
		return -1;
	for (int i = 0; i < 6; i++) {
		int hi = hexval(s[3 * i]), lo = hexval(s[3 * i + 1]);
		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return -1;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int
parse_unicast_mac(struct loader *L, unsigned line, const char *what, const char *s, uint8_t mac[6])
{
	static const uint8_t zero[6];

	if (parse_mac(s, mac) != 0)
		return fail(L, line, "%s: '" ECHO "' is not a MAC address (xx:xx:xx:xx:xx:xx)", what, s);
	if ((mac[0] & 1) || memcmp(mac, zero, 6) == 0)
		return fail(L, line, "%s: '" ECHO "' is not a unicast MAC address", what, s);
	return 0;
}

static int
parse_choice(struct loader *L, unsigned line, const char *what, const char *v,
	     const char *const *names, unsigned n, unsigned *out)
{
	char list[128] = "";

	for (unsigned i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0) {
			*out = i;
			return 0;
		}
	for (unsigned i = 0; i < n; i++) {
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
		if (i + 1 < n)
			strncat(list, " | ", sizeof(list) - strlen(list) - 1);
	}
	return fail(L, line, "%s: '" ECHO "' is not one of %s", what, v, list);
}

/* A decimal number lo..hi for key `what`; the message names the range. */
static int
parse_uint_in(struct loader *L, unsigned line, const char *what, const char *v, uint64_t lo,
	      uint64_t hi, uint64_t *out)
{
	if (parse_uint(v, false, out) != 0 || *out < lo || *out > hi)
		return fail(L, line, "%s: '" ECHO "' is not a number %" PRIu64 "..%" PRIu64, what, v,
			    lo, hi);
	return 0;
}

/* replay-window: 0 (off) or a multiple of 64 up to GW_CONF_REPLAY_MAX packets. */
static int
parse_replay_window(struct loader *L, unsigned line, const char *v, uint32_t *out)
{
	uint64_t x;

	if (parse_uint(v, false, &x) != 0 || x > GW_CONF_REPLAY_MAX || x % 64 != 0)
		return fail(L, line, "replay-window: '" ECHO "' is not 0 or a multiple of 64 "
			    "up to %d", v, GW_CONF_REPLAY_MAX);
	*out = (uint32_t)x;
	return 0;
}

/* ---------- pre-scan --------------------------------------------------------- */

static bool
name_char_ok(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return !first && (c == '-' || c == '_' || c == '.');
}

/* `s` is the trimmed header text, '[' ... ']' included, NUL-terminated. */
static int
prescan_header(struct loader *L, unsigned line, char *s, struct sec **cur)
{
	size_t len = strlen(s);
	char *in, *type, *name;
	struct sec *sec;
	enum sec_type t;
	size_t i;

	if (len < 2 || s[len - 1] != ']')
		return fail(L, line, "malformed section header (expected [TYPE] or [TYPE NAME])");
	s[len - 1] = '\0';
	in = trim(s + 1);
	if (strchr(in, '[') != NULL || strchr(in, ']') != NULL)
		return fail(L, line, "malformed section header (expected [TYPE] or [TYPE NAME])");
	type = in;
	for (name = in; *name != '\0' && !is_ws(*name); name++)
		;
	if (*name != '\0')
		*name++ = '\0';
	name = trim(name);

	for (i = 0; i < sizeof(sec_type_names) / sizeof(sec_type_names[0]); i++)
		if (strcmp(type, sec_type_names[i]) == 0)
			break;
	if (i == sizeof(sec_type_names) / sizeof(sec_type_names[0]))
		return fail(L, line, "unknown section type '" ECHO "' (expected [gateway], [port NAME], "
			    "[sa NAME], [peer NAME], [sa-gen NAME] or [policy])", type);
	t = (enum sec_type)i;
	if ((t == SEC_GATEWAY || t == SEC_POLICY) && *name != '\0')
		return fail(L, line, "[%s] takes no name", type);
	if (t == SEC_PORT || t == SEC_SA || t == SEC_PEER || t == SEC_SAGEN) {
		size_t nl = strlen(name);

		if (nl == 0)
			return fail(L, line, "section [%s] needs a name: [%s NAME]", type, type);
		if (nl >= GW_CONF_NAME_MAX)
			return fail(L, line, "section name '" ECHO "' longer than %d bytes", name,
				    GW_CONF_NAME_MAX - 1);
		for (size_t j = 0; j < nl; j++)
			if (!name_char_ok(name[j], j == 0))
				return fail(L, line, "section name '" ECHO "': character %zu not allowed "
					    "(letters, digits, '-', '_', '.'; first a letter or digit)",
					    name, j + 1);
	}
	for (unsigned j = 0; j < L->n_secs; j++)
		if (L->secs[j].type == t && strcmp(L->secs[j].name, name) == 0)
			return fail(L, line, "duplicate section [%s%s%s] (first on line %u)", type,
				    *name ? " " : "", name, L->secs[j].line);
	if (t == SEC_PORT || t == SEC_SA || t == SEC_PEER || t == SEC_SAGEN) {
		unsigned n = 0, max = t == SEC_PORT ? GW_CONF_MAX_PORTS :
				      t == SEC_SA ? GW_CONF_MAX_SAS :
				      t == SEC_SAGEN ? 1 : GW_CONF_MAX_PEERS;

		for (unsigned j = 0; j < L->n_secs; j++)
			n += L->secs[j].type == t;
		if (n == max)
			return fail(L, line, "too many [%s] sections (at most %u)", type, max);
	}
	/* at most 1 gateway + 1 policy + ports + sas + peers: bounded by the checks above */
	sec = &L->secs[L->n_secs++];
	memset(sec, 0, sizeof(*sec));
	sec->type = t;
	snprintf(sec->name, sizeof(sec->name), "%s", name);
	snprintf(sec->cfgname, sizeof(sec->cfgname), "%s%s%s", type, *name ? " " : "", name);
	sec->line = line;
	if (rte_cfgfile_add_section(L->rc, sec->cfgname) != 0)
		return fail(L, line, "out of memory");
	*cur = sec;
	return 0;
}

static int
prescan_entry(struct loader *L, unsigned line, char *s, struct sec *cur)
{
	char *eq = strchr(s, '='), *key, *val;
	size_t kl, vl;
	unsigned k;
	int r;

	if (eq == NULL)
		return fail(L, line, "expected 'key = value' or a [section] header");
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	kl = strlen(key);
	vl = strlen(val);
	if (kl == 0)
		return fail(L, line, "missing key name before '='");
	if (cur == NULL)
		return fail(L, line, "key '" ECHO "' before the first [section]", key);
	if (kl >= CFG_NAME_LEN)
		return fail(L, line, "key name longer than %d bytes", CFG_NAME_LEN - 1);
	for (k = 0; k < K_MAX; k++)
		if (key_table[k].sec == cur->type && strcmp(key_table[k].name, key) == 0)
			break;
	if (k == K_MAX)
		return fail(L, line, "unknown key '" ECHO "' in [%s]", key, cur->cfgname);
	if (cur->key_line[k] != 0)
		return fail(L, line, "duplicate key '%s' in [%s] (first on line %u)", key,
			    cur->cfgname, cur->key_line[k]);
	if (vl == 0)
		return fail(L, line, "empty value for '%s' (leave the key out instead)", key);
	if (vl >= CFG_VALUE_LEN)
		return fail(L, line, "value of '%s' longer than %d bytes", key, CFG_VALUE_LEN - 1);
	for (size_t i = 0; i < vl; i++)
		if ((unsigned char)val[i] >= 0x80)
			return fail(L, line, "non-ASCII character in the value of '%s'", key);
	r = rte_cfgfile_add_entry(L->rc, cur->cfgname, key, val);
	if (r != 0)
		return fail(L, line, "rte_cfgfile_add_entry: %s", strerror(-r));
	cur->key_line[k] = line;
	return 0;
}

static int
prescan(struct loader *L)
{
	char linebuf[GW_CONF_LINE_MAX + 1];
	struct sec *cur = NULL;
	size_t pos = 0;
	unsigned line = 0;
	int ret = 0;

	if (L->buflen >= 3 && memcmp(L->buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	while (pos < L->buflen && ret == 0) {
		const char *s = L->buf + pos;
		const char *nl = memchr(s, '\n', L->buflen - pos);
		size_t len = nl ? (size_t)(nl - s) : L->buflen - pos;
		size_t end, b;

		line++;
		pos += len + (nl ? 1 : 0);
		if (len > 0 && s[len - 1] == '\r')
			len--;
		if (len > GW_CONF_LINE_MAX) {
			ret = fail(L, line, "line longer than %d bytes", GW_CONF_LINE_MAX);
			break;
		}
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)s[i];
			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				ret = fail(L, line, "control character 0x%02x at column %zu", c, i + 1);
				break;
			}
		}
		if (ret != 0)
			break;
		/* comment: ';' or '#' at the start or after blank */
		for (end = 0; end < len; end++)
			if ((s[end] == ';' || s[end] == '#') && (end == 0 || is_ws(s[end - 1])))
				break;
		memcpy(linebuf, s, end);
		linebuf[end] = '\0';
		for (b = 0; is_ws(linebuf[b]); b++)
			;
		if (linebuf[b] == '\0')
			continue;
		if (linebuf[b] == '[')
			ret = prescan_header(L, line, trim(linebuf), &cur);
		else
			ret = prescan_entry(L, line, linebuf, cur);
	}
	explicit_bzero(linebuf, sizeof(linebuf));
	return ret;
}

/* ---------- sections ------------------------------------------------------- */

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
	return rte_cfgfile_get_entry(L->rc, sec->cfgname, key_table[k].name);
}

static int
missing(struct loader *L, const struct sec *sec, unsigned k)
{
	return fail(L, sec->line, "[%s]: missing key '%s'", sec->cfgname, key_table[k].name);
}

/* A comma-separated list of algorithm names from table t, each once, into
 * their IDs in the order given. */
static int
parse_id_list(struct loader *L, unsigned line, const char *what, const char *v,
	      const struct id_name *t, size_t nt, uint16_t *out, unsigned max, unsigned *n)
{
	char *cur = L->tmp, *item;
	int r;

	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	*n = 0;
	while ((r = list_next(&cur, &item)) != 0) {
		size_t i;

		if (r < 0)
			return fail(L, line, "%s: empty element in list", what);
		for (i = 0; i < nt; i++)
			if (strcmp(item, t[i].name) == 0)
				break;
		if (i == nt) {
			char list[160] = "";

			for (size_t j = 0; j < nt; j++) {
				strncat(list, t[j].name, sizeof(list) - strlen(list) - 1);
				if (j + 1 < nt)
					strncat(list, " | ", sizeof(list) - strlen(list) - 1);
			}
			return fail(L, line, "%s: '" ECHO "' is not one of %s", what, item, list);
		}
		for (unsigned j = 0; j < *n; j++)
			if (out[j] == t[i].id)
				return fail(L, line, "%s: '" ECHO "' is listed twice", what, item);
		if (*n == max)
			return fail(L, line, "%s: more than %u names", what, max);
		out[(*n)++] = t[i].id;
	}
	return 0;
}

/* The Host Identity key file: only its existence and mode are checked here
 * (the same rules as hip_hi_load, which reads it when hipgw starts). */
static int
check_hi_file(struct loader *L, unsigned line, const char *path)
{
	size_t len = strlen(path);
	struct stat st;

	if (path[0] != '/' || path[len - 1] == '/')
		return fail(L, line, "hi: '" ECHO "' is not an absolute file path", path);
	if (lstat(path, &st) != 0)
		return fail(L, line, "hi: key file " ECHO ": %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return fail(L, line, "hi: key file " ECHO " is a symbolic link (refused for a "
			    "private key)", path);
	if (!S_ISREG(st.st_mode))
		return fail(L, line, "hi: key file " ECHO " is not a regular file", path);
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
		return fail(L, line, "hi: key file " ECHO " has mode %04o: accessible by group or "
			    "others (chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* sa-lifetime: "3600s", "1GiB", "3600s, 1GiB" (either order). An element left
 * out is 0: no limit of that kind. */
static int
parse_lifetime(struct loader *L, unsigned line, const char *v, uint64_t *secs, uint64_t *bytes)
{
	static const struct { const char *unit; uint64_t mult; bool time; } units[] = {
		{ "s", 1, true }, { "m", 60, true }, { "h", 3600, true },
		{ "B", 1, false }, { "KiB", 1ull << 10, false }, { "MiB", 1ull << 20, false },
		{ "GiB", 1ull << 30, false }, { "TiB", 1ull << 40, false },
	};
	char *cur = L->tmp, *item;
	bool have_time = false, have_bytes = false;
	int r;

	snprintf(L->tmp, sizeof(L->tmp), "%s", v);
	*secs = *bytes = 0;
	while ((r = list_next(&cur, &item)) != 0) {
		char num[16];
		size_t nd = 0, u;
		uint64_t x;

		if (r < 0)
			return fail(L, line, "sa-lifetime: empty element in list");
		while (item[nd] >= '0' && item[nd] <= '9')
			nd++;
		for (u = 0; u < N_OF(units); u++)
			if (strcmp(item + nd, units[u].unit) == 0)
				break;
		if (nd == 0 || nd >= sizeof(num) || u == N_OF(units))
			return fail(L, line, "sa-lifetime: '" ECHO "' is not a time (a number and s, m "
				    "or h: 3600s) or a byte count (a number and B, KiB, MiB, GiB or "
				    "TiB: 1GiB)", item);
		memcpy(num, item, nd);
		num[nd] = '\0';
		if (parse_uint(num, false, &x) != 0)
			return fail(L, line, "sa-lifetime: '" ECHO "': number not decimal without "
				    "leading zeros, or too long", item);
		if (units[u].time) {
			if (have_time)
				return fail(L, line, "sa-lifetime: more than one time ('" ECHO "')", item);
			have_time = true;
			if (x == 0 || x > GW_CONF_LIFETIME_S_MAX / units[u].mult)
				return fail(L, line, "sa-lifetime: time '" ECHO "' is not 1s..720h", item);
			*secs = x * units[u].mult;
		} else {
			if (have_bytes)
				return fail(L, line, "sa-lifetime: more than one byte count ('" ECHO "')",
					    item);
			have_bytes = true;
			if (x > GW_CONF_LIFETIME_BYTES_MAX / units[u].mult ||
			    x * units[u].mult < GW_CONF_LIFETIME_BYTES_MIN)
				return fail(L, line, "sa-lifetime: byte count '" ECHO "' is not "
					    "1KiB..1024TiB", item);
			*bytes = x * units[u].mult;
		}
	}
	return 0;
}

static int
parse_gateway(struct loader *L, const struct sec *sec)
{
	static const char *const idle_names[] = { "busy", "adaptive" };
	unsigned order[K_MAX], n = keys_in_order(sec, order);
	struct gw_config *cfg = L->cfg;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = order[i], line = sec->key_line[k], u;
		const char *v = value(L, sec, k);
		uint64_t x;

		if (v == NULL)
			return fail(L, line, "internal error: value lost");
		switch (k) {
		case K_WORKERS:
			if (parse_uint_in(L, line, "workers", v, 1, GW_CONF_WORKERS_MAX, &x) != 0)
				return -1;
			cfg->workers = (unsigned)x;
			break;
		case K_IDLE:
			if (parse_choice(L, line, "idle", v, idle_names, 2, &u) != 0)
				return -1;
			cfg->idle = u == 0 ? GW_IDLE_BUSY : GW_IDLE_ADAPTIVE;
			break;
		case K_HI:
			if (check_hi_file(L, line, v) != 0)
				return -1;
			snprintf(cfg->hi_path, sizeof(cfg->hi_path), "%s", v);
			cfg->hi_line = line;
			break;
		case K_PUZZLE_K:
			if (parse_uint_in(L, line, "puzzle-k", v, 0, GW_CONF_PUZZLE_K_MAX, &x) != 0)
				return -1;
			cfg->puzzle_k = (uint8_t)x;
			break;
		case K_R1_RATE:
			if (parse_uint_in(L, line, "r1-rate", v, 0, GW_CONF_R1_RATE_MAX, &x) != 0)
				return -1;
			cfg->r1_rate = (uint32_t)x;
			break;
		case K_ESP_TRANSFORMS:
			if (parse_id_list(L, line, "esp-transforms", v, esp_transform_table,
					  N_OF(esp_transform_table), cfg->esp_transforms,
					  GW_CONF_MAX_ESP_TRANSFORMS, &cfg->n_esp_transforms) != 0)
				return -1;
			break;
		case K_DH_GROUPS: {
			uint16_t ids[GW_CONF_MAX_DH_GROUPS];

			if (parse_id_list(L, line, "dh-groups", v, dh_group_table, N_OF(dh_group_table),
					  ids, GW_CONF_MAX_DH_GROUPS, &cfg->n_dh_groups) != 0)
				return -1;
			for (unsigned j = 0; j < cfg->n_dh_groups; j++)
				cfg->dh_groups[j] = (uint8_t)ids[j];
			break;
		}
		case K_HIP_CIPHERS:
			if (parse_id_list(L, line, "hip-ciphers", v, hip_cipher_table,
					  N_OF(hip_cipher_table), cfg->hip_ciphers,
					  GW_CONF_MAX_HIP_CIPHERS, &cfg->n_hip_ciphers) != 0)
				return -1;
			break;
		case K_SA_LIFETIME:
			if (parse_lifetime(L, line, v, &cfg->sa_lifetime_s, &cfg->sa_lifetime_bytes) != 0)
				return -1;
			break;
		case K_PMTU_AGE:
			if (parse_uint(v, false, &x) == 0 && x < GW_CONF_PMTU_AGE_MIN)
				return fail(L, line, "pmtu-age: %" PRIu64 " s is below the 5 minutes of "
					    "RFC 8201 section 4 (300..86400)", x);
			if (parse_uint_in(L, line, "pmtu-age", v, GW_CONF_PMTU_AGE_MIN,
					  GW_CONF_PMTU_AGE_MAX, &x) != 0)
				return -1;
			cfg->pmtu_age_s = (uint32_t)x;
			break;
		case K_MBUFS:
			if (parse_uint_in(L, line, "mbufs", v, GW_CONF_MBUFS_MIN, GW_CONF_MBUFS_MAX,
					  &x) != 0)
				return -1;
			cfg->mbufs = (uint32_t)x;
			break;
		case K_MBUF_SIZE:
			if (parse_uint_in(L, line, "mbuf-size", v, GW_CONF_MBUF_SIZE_MIN,
					  GW_CONF_MBUF_SIZE_MAX, &x) != 0)
				return -1;
			cfg->mbuf_size = (uint32_t)x;
			break;
		case K_NEIGH_REFRESH:
			if (parse_uint_in(L, line, "neighbor-refresh", v, 1, GW_CONF_NEIGH_REFRESH_MAX,
					  &x) != 0)
				return -1;
			cfg->neighbor_refresh_s = (uint32_t)x;
			break;
		}
	}
	return 0;
}

/* `a` on one of the port's networks (or IPv6 link-local), and not the port's own. */
static int
check_on_link(struct loader *L, unsigned line, const char *what,
	      const struct gw_conf_port *p, const struct gw_addr *a)
{
	char s[INET6_ADDRSTRLEN];
	bool on = is_v6_link_local(a);

	for (unsigned i = 0; i < p->n_addrs; i++) {
		if (addr_eq(&p->addrs[i].a, a))
			return fail(L, line, "%s: %s is an address of port %s itself", what,
				    addr_str(a, s), p->name);
		if (gw_prefix_contains(&p->addrs[i], a))
			on = true;
	}
	if (!on)
		return fail(L, line, "%s: %s is not on a network of port %s", what,
			    addr_str(a, s), p->name);
	return 0;
}

static int
parse_port(struct loader *L, const struct sec *sec)
{
	static const char *const role_names[] = { "inner", "outer" };
	struct gw_conf_port *p = &L->cfg->ports[sec->idx];
	unsigned order[K_MAX], n = keys_in_order(sec, order);
	bool has_v6 = false;

	snprintf(p->name, sizeof(p->name), "%s", sec->name);
	p->line = sec->line;
	p->mtu = 1500;
	p->mss_clamp = GW_MSS_CLAMP_AUTO;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = order[i], line = sec->key_line[k], u;
		const char *v = value(L, sec, k);
		char *cur = L->tmp, *item;
		uint64_t x;
		int r;

		if (v == NULL)
			return fail(L, line, "internal error: value lost");
		snprintf(L->tmp, sizeof(L->tmp), "%s", v);
		switch (k) {
		case K_DEVICE:
			snprintf(p->device, sizeof(p->device), "%s", v);
			break;
		case K_ROLE:
			if (parse_choice(L, line, "role", v, role_names, 2, &u) != 0)
				return -1;
			p->role = u == 0 ? GW_ROLE_INNER : GW_ROLE_OUTER;
			break;
		case K_ADDRESS:
			while ((r = list_next(&cur, &item)) != 0) {
				struct gw_prefix *a = &p->addrs[p->n_addrs];

				if (r < 0)
					return fail(L, line, "address: empty element in list");
				if (p->n_addrs == GW_CONF_MAX_ADDRS)
					return fail(L, line, "address: more than %d addresses",
						    GW_CONF_MAX_ADDRS);
				if (parse_prefix(L, line, "address", item, a, true) != 0)
					return -1;
				for (unsigned j = 0; j < p->n_addrs; j++)
					if (addr_eq(&p->addrs[j].a, &a->a))
						return fail(L, line, "address: '" ECHO "' is listed twice", item);
				has_v6 |= a->a.family == 6;
				p->n_addrs++;
			}
			break;
		case K_MAC:
			if (parse_unicast_mac(L, line, "mac", v, p->mac) != 0)
				return -1;
			p->has_mac = true;
			break;
		case K_NEIGHBORS:
			while ((r = list_next(&cur, &item)) != 0) {
				struct gw_conf_neighbor *nb = &p->neigh[p->n_neigh];
				char *w[2];

				if (r < 0)
					return fail(L, line, "neighbors: empty element in list");
				if (p->n_neigh == GW_CONF_MAX_NEIGH)
					return fail(L, line, "neighbors: more than %d neighbours",
						    GW_CONF_MAX_NEIGH);
				if (split_words(item, w, 2) != 2)
					return fail(L, line, "neighbors: expected 'IP MAC, IP MAC, ...'");
				if (parse_unicast(L, line, "neighbors", w[0], &nb->ip) != 0 ||
				    parse_unicast_mac(L, line, "neighbors", w[1], nb->mac) != 0)
					return -1;
				for (unsigned j = 0; j < p->n_neigh; j++)
					if (addr_eq(&p->neigh[j].ip, &nb->ip))
						return fail(L, line, "neighbors: " ECHO " is listed twice", w[0]);
				p->n_neigh++;
			}
			break;
		case K_ROUTES:
			while ((r = list_next(&cur, &item)) != 0) {
				struct gw_conf_route *rt = &p->routes[p->n_routes];
				char *w[3];

				if (r < 0)
					return fail(L, line, "routes: empty element in list");
				if (p->n_routes == GW_CONF_MAX_ROUTES)
					return fail(L, line, "routes: more than %d routes",
						    GW_CONF_MAX_ROUTES);
				if (split_words(item, w, 3) != 3 || strcmp(w[1], "via") != 0)
					return fail(L, line, "routes: expected 'PREFIX via IP, ...'");
				if (parse_prefix(L, line, "routes", w[0], &rt->dst, false) != 0 ||
				    parse_unicast(L, line, "routes", w[2], &rt->via) != 0)
					return -1;
				if (rt->dst.a.family != rt->via.family)
					return fail(L, line, "routes: " ECHO " and next hop " ECHO
						    " are of different families", w[0], w[2]);
				for (unsigned j = 0; j < p->n_routes; j++)
					if (p->routes[j].dst.len == rt->dst.len &&
					    addr_eq(&p->routes[j].dst.a, &rt->dst.a))
						return fail(L, line, "routes: " ECHO " is listed twice", w[0]);
				p->n_routes++;
			}
			break;
		case K_GATEWAY: {
			unsigned cnt = 0;

			while ((r = list_next(&cur, &item)) != 0) {
				struct gw_addr a;

				if (r < 0)
					return fail(L, line, "gateway: empty element in list");
				if (++cnt > 2)
					return fail(L, line, "gateway: at most one IPv4 and one IPv6 address");
				if (parse_unicast(L, line, "gateway", item, &a) != 0)
					return -1;
				struct gw_addr *g = a.family == 4 ? &p->gateway4 : &p->gateway6;
				if (g->family != 0)
					return fail(L, line, "gateway: more than one IPv%u gateway", a.family);
				*g = a;
			}
			break;
		}
		case K_MTU:
			if (parse_uint_in(L, line, "mtu", v, GW_CONF_MTU_MIN, GW_CONF_MTU_MAX, &x) != 0)
				return -1;
			p->mtu = (uint16_t)x;
			break;
		case K_MSS:
			if (strcmp(v, "auto") == 0)
				p->mss_clamp = GW_MSS_CLAMP_AUTO;
			else if (strcmp(v, "off") == 0)
				p->mss_clamp = GW_MSS_CLAMP_OFF;
			else if (parse_uint(v, false, &x) == 0 && x >= GW_CONF_MSS_MIN && x <= 65535)
				p->mss_clamp = (int)x;
			else
				return fail(L, line, "tcp-mss-clamp: '" ECHO "' is not auto, off or a "
					    "number %d..(mtu - 40)", v, GW_CONF_MSS_MIN);
			break;
		}
	}

	/* checks that need the whole section */
	if (sec->key_line[K_DEVICE] == 0)
		return missing(L, sec, K_DEVICE);
	if (sec->key_line[K_ROLE] == 0)
		return missing(L, sec, K_ROLE);
	if (sec->key_line[K_ADDRESS] == 0)
		return missing(L, sec, K_ADDRESS);
	if (has_v6 && p->mtu < GW_CONF_MTU_MIN_V6)
		return fail(L, sec->key_line[K_MTU], "mtu: %u is below %d, the IPv6 minimum, and port %s "
			    "has an IPv6 address", p->mtu, GW_CONF_MTU_MIN_V6, p->name);
	if (p->mss_clamp > 0 && p->mss_clamp > p->mtu - 40)
		return fail(L, sec->key_line[K_MSS], "tcp-mss-clamp: %d is more than mtu - 40 (%d)",
			    p->mss_clamp, p->mtu - 40);
	for (unsigned i = 0; i < p->n_neigh; i++)
		if (check_on_link(L, sec->key_line[K_NEIGHBORS], "neighbors", p, &p->neigh[i].ip) != 0)
			return -1;
	for (unsigned i = 0; i < p->n_routes; i++)
		if (check_on_link(L, sec->key_line[K_ROUTES], "routes", p, &p->routes[i].via) != 0)
			return -1;
	if (p->gateway4.family != 0 &&
	    check_on_link(L, sec->key_line[K_GATEWAY], "gateway", p, &p->gateway4) != 0)
		return -1;
	if (p->gateway6.family != 0 &&
	    check_on_link(L, sec->key_line[K_GATEWAY], "gateway", p, &p->gateway6) != 0)
		return -1;
	return 0;
}

static int
parse_sa(struct loader *L, const struct sec *sec)
{
	static const char *const dir_names[] = { "out", "in" };
	static const char *const onoff[] = { "off", "on" };
	struct gw_conf_sa *sa = &L->cfg->sas[sec->idx];
	unsigned order[K_MAX], n = keys_in_order(sec, order);
	const unsigned *kl = sec->key_line;
	char s[INET6_ADDRSTRLEN];

	snprintf(sa->name, sizeof(sa->name), "%s", sec->name);
	sa->line = sec->line;
	L->key_len = L->auth_key_len = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = order[i], line = kl[k], u;
		const char *v = value(L, sec, k);
		uint64_t x;

		if (v == NULL)
			return fail(L, line, "internal error: value lost");
		switch (k) {
		case K_DIRECTION:
			if (parse_choice(L, line, "direction", v, dir_names, 2, &u) != 0)
				return -1;
			sa->dir = u == 0 ? GW_DIR_OUT : GW_DIR_IN;
			break;
		case K_SPI:
			if (parse_uint(v, true, &x) != 0 || x < GW_CONF_SPI_MIN || x > UINT32_MAX)
				return fail(L, line, "spi: '" ECHO "' is not a number %d..4294967295 "
					    "(decimal or 0x hex; 0..255 are reserved)", v, GW_CONF_SPI_MIN);
			sa->spi = (uint32_t)x;
			break;
		case K_SUITE:
			if (parse_choice(L, line, "suite", v, suite_names, GW_SUITE_MAX, &u) != 0)
				return -1;
			sa->suite = (enum gw_suite)u;
			break;
		case K_KEY:
			if (parse_hex_key(L, line, "key", v, L->key, sizeof(L->key), &L->key_len) != 0)
				return -1;
			break;
		case K_AUTH_KEY:
			if (parse_hex_key(L, line, "auth-key", v, L->auth_key, sizeof(L->auth_key),
					  &L->auth_key_len) != 0)
				return -1;
			break;
		case K_LOCAL:
			if (parse_unicast(L, line, "local", v, &sa->local) != 0)
				return -1;
			break;
		case K_REMOTE:
			if (parse_unicast(L, line, "remote", v, &sa->remote) != 0)
				return -1;
			break;
		case K_PREFIXES:
			if (parse_prefix_list(L, line, "prefixes", v, sa->prefixes, GW_CONF_MAX_PREFIXES,
					      &sa->n_prefixes) != 0)
				return -1;
			break;
		case K_LOCAL_PREFIXES:
			if (parse_prefix_list(L, line, "local-prefixes", v, sa->local_prefixes,
					      GW_CONF_MAX_PREFIXES, &sa->n_local_prefixes) != 0)
				return -1;
			break;
		case K_ESN:
			if (parse_choice(L, line, "esn", v, onoff, 2, &u) != 0)
				return -1;
			sa->esn = u == 1;
			break;
		case K_STATE: {
			size_t sl = strlen(v);

			if (v[0] != '/' || v[sl - 1] == '/')
				return fail(L, line, "state: '" ECHO "' is not an absolute file path", v);
			snprintf(sa->state, sizeof(sa->state), "%s", v);
			break;
		}
		case K_REPLAY:
			if (parse_replay_window(L, line, v, &sa->replay_window) != 0)
				return -1;
			break;
		}
	}

	static const unsigned required[] = { K_DIRECTION, K_SPI, K_SUITE, K_LOCAL, K_REMOTE, K_PREFIXES };
	for (unsigned i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (kl[required[i]] == 0)
			return missing(L, sec, required[i]);

	/* keys against the suite */
	const char *sn = suite_names[sa->suite];
	if (suite_lens[sa->suite].key == 0) {
		if (kl[K_KEY] != 0)
			return fail(L, kl[K_KEY], "key: suite %s has no cipher key", sn);
	} else {
		if (kl[K_KEY] == 0)
			return fail(L, sec->line, "[%s]: missing key 'key' (suite %s)", sec->cfgname, sn);
		if (L->key_len != suite_lens[sa->suite].key)
			return fail(L, kl[K_KEY], "key: %s needs %u bytes%s, got %zu", sn,
				    suite_lens[sa->suite].key,
				    suite_is_gcm(sa->suite) ? " (AES key + 4-byte salt)" : "", L->key_len);
	}
	if (suite_lens[sa->suite].auth == 0) {
		if (kl[K_AUTH_KEY] != 0)
			return fail(L, kl[K_AUTH_KEY], "auth-key: suite %s has no separate "
				    "authentication key", sn);
	} else {
		if (kl[K_AUTH_KEY] == 0)
			return fail(L, sec->line, "[%s]: missing key 'auth-key' (suite %s)",
				    sec->cfgname, sn);
		if (L->auth_key_len != suite_lens[sa->suite].auth)
			return fail(L, kl[K_AUTH_KEY], "auth-key: %s needs %u bytes, got %zu", sn,
				    suite_lens[sa->suite].auth, L->auth_key_len);
	}
	memcpy(sa->key, L->key, L->key_len);
	sa->key_len = (uint8_t)L->key_len;
	memcpy(sa->auth_key, L->auth_key, L->auth_key_len);
	sa->auth_key_len = (uint8_t)L->auth_key_len;

	/* addresses */
	if (sa->local.family != sa->remote.family)
		return fail(L, kl[K_REMOTE], "remote: %s is IPv%u but local is IPv%u",
			    addr_str(&sa->remote, s), sa->remote.family, sa->local.family);
	if (addr_eq(&sa->local, &sa->remote))
		return fail(L, kl[K_REMOTE], "remote: same address as local");

	/* keys that belong to one direction */
	if (sa->dir == GW_DIR_OUT) {
		if (kl[K_LOCAL_PREFIXES] != 0)
			return fail(L, kl[K_LOCAL_PREFIXES], "local-prefixes: only for direction = in");
		if (kl[K_REPLAY] != 0)
			return fail(L, kl[K_REPLAY], "replay-window: only for direction = in");
		if (kl[K_STATE] != 0 && !suite_is_gcm(sa->suite))
			return fail(L, kl[K_STATE], "state: only for GCM suites (suite is %s)", sn);
		if (suite_is_gcm(sa->suite) && kl[K_STATE] == 0)
			snprintf(sa->state, sizeof(sa->state), GW_CONF_STATE_DIR "%s.seq", sec->name);
		sa->replay_window = 0;
	} else {
		if (kl[K_STATE] != 0)
			return fail(L, kl[K_STATE], "state: only for direction = out");
		if (kl[K_REPLAY] == 0)
			sa->replay_window = GW_CONF_REPLAY_DEFAULT;
	}
	return 0;
}

/* A HIT in IPv6 notation: an ORCHIDv2 (RFC 7343 section 2: prefix 2001:20::/28)
 * whose OGA ID is a HIT suite of RFC 7401 section 5.2.10 (1 RSA/DSA SHA-256,
 * 2 ECDSA SHA-384, 3 ECDSA_LOW SHA-1: the ones lib/hipcrypto knows). */
static int
parse_hit(struct loader *L, unsigned line, const char *v, uint8_t hit[GW_CONF_HIT_LEN])
{
	struct gw_addr a;
	char s[INET6_ADDRSTRLEN];
	unsigned oga;

	if (strchr(v, ':') == NULL || parse_addr(v, &a) != 0)
		return fail(L, line, "hit: '" ECHO "' is not an IPv6 address (a HIT is written like "
			    "2001:2x:...; `hipgw hit KEYFILE` prints it)", v);
	if (!(a.addr[0] == 0x20 && a.addr[1] == 0x01 && a.addr[2] == 0x00 &&
	      (a.addr[3] & 0xf0) == 0x20))
		return fail(L, line, "hit: %s is not an ORCHIDv2 HIT (not inside 2001:20::/28)",
			    addr_str(&a, s));
	oga = a.addr[3] & 0x0f;
	if (oga < 1 || oga > 3)
		return fail(L, line, "hit: %s has OGA ID %u, not a HIT suite (1 RSA/DSA-SHA256, "
			    "2 ECDSA-SHA384, 3 ECDSA_LOW-SHA1)", addr_str(&a, s), oga);
	memcpy(hit, a.addr, GW_CONF_HIT_LEN);
	return 0;
}

static int
parse_peer(struct loader *L, const struct sec *sec)
{
	struct gw_conf_peer *pe = &L->cfg->peers[sec->idx];
	unsigned order[K_MAX], n = keys_in_order(sec, order);
	const unsigned *kl = sec->key_line;
	char a[PFX_STRLEN], b[PFX_STRLEN];

	snprintf(pe->name, sizeof(pe->name), "%s", sec->name);
	pe->line = sec->line;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = order[i], line = kl[k];
		const char *v = value(L, sec, k);
		char *cur = L->tmp, *item;
		int r;

		if (v == NULL)
			return fail(L, line, "internal error: value lost");
		switch (k) {
		case K_HIT:
			if (parse_hit(L, line, v, pe->hit) != 0)
				return -1;
			break;
		case K_LOCATOR:
			snprintf(L->tmp, sizeof(L->tmp), "%s", v);
			while ((r = list_next(&cur, &item)) != 0) {
				struct gw_addr *loc = &pe->locators[pe->n_locators];

				if (r < 0)
					return fail(L, line, "locator: empty element in list");
				if (pe->n_locators == GW_CONF_MAX_LOCATORS)
					return fail(L, line, "locator: more than %d addresses",
						    GW_CONF_MAX_LOCATORS);
				if (parse_unicast(L, line, "locator", item, loc) != 0)
					return -1;
				for (unsigned j = 0; j < pe->n_locators; j++)
					if (addr_eq(&pe->locators[j], loc))
						return fail(L, line, "locator: '" ECHO "' is listed twice", item);
				pe->n_locators++;
			}
			break;
		case K_PEER_LOCAL:
			if (parse_unicast(L, line, "local", v, &pe->local) != 0)
				return -1;
			pe->has_local = true;
			break;
		case K_PEER_PREFIXES:
			if (parse_prefix_list(L, line, "prefixes", v, pe->prefixes, GW_CONF_MAX_PREFIXES,
					      &pe->n_prefixes) != 0)
				return -1;
			for (unsigned x = 0; x < pe->n_prefixes; x++)
				for (unsigned y = 0; y < x; y++)
					if (gw_prefix_overlap(&pe->prefixes[x], &pe->prefixes[y]))
						return fail(L, line, "prefixes: %s overlaps %s in the same list",
							    prefix_str(&pe->prefixes[x], a),
							    prefix_str(&pe->prefixes[y], b));
			break;
		}
	}

	static const unsigned required[] = { K_HIT, K_LOCATOR, K_PEER_PREFIXES };
	for (unsigned i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (kl[required[i]] == 0)
			return missing(L, sec, required[i]);
	if (pe->has_local) {
		bool fam = false;

		for (unsigned j = 0; j < pe->n_locators; j++)
			fam |= pe->locators[j].family == pe->local.family;
		if (!fam)
			return fail(L, kl[K_PEER_LOCAL], "local: %s is IPv%u but no locator is",
				    addr_str(&pe->local, a), pe->local.family);
	}
	return 0;
}

static int
parse_policy(struct loader *L, const struct sec *sec)
{
	struct gw_config *cfg = L->cfg;
	const char *v;

	if (sec->key_line[K_BYPASS] == 0)
		return 0;
	v = value(L, sec, K_BYPASS);
	if (v == NULL)
		return fail(L, sec->key_line[K_BYPASS], "internal error: value lost");
	return parse_prefix_list(L, sec->key_line[K_BYPASS], "bypass", v, cfg->bypass,
				 GW_CONF_MAX_PREFIXES, &cfg->n_bypass);
}

/* ---------- whole-file checks ------------------------------------------------- */

/* A seed: 0..2^32-1, decimal or 0x hex. */
static int
parse_seed(struct loader *L, unsigned line, const char *what, const char *v, uint64_t *out)
{
	if (parse_uint(v, true, out) != 0 || *out > UINT32_MAX)
		return fail(L, line, "%s: '" ECHO "' is not a number 0..4294967295 (decimal or 0x hex)",
			    what, v);
	return 0;
}

/* [sa-gen NAME] (gw_sagen.h): a benchmarking / lab feature. */
static int
parse_sagen(struct loader *L, const struct sec *sec)
{
	static const char *const dir_names[] = { "out", "in", "both" };
	struct gw_conf_sagen *g = &L->cfg->sagen;
	unsigned order[K_MAX], n = keys_in_order(sec, order);
	const unsigned *kl = sec->key_line;
	char s[PFX_STRLEN];
	unsigned bits;

	snprintf(g->name, sizeof(g->name), "%s", sec->name);
	g->line = sec->line;
	g->prefix_len = 24;
	g->replay_window = GW_CONF_REPLAY_DEFAULT;
	g->batch = GW_CONF_SAGEN_BATCH_DEFAULT;
	g->spi_seed = g->prefix_seed = g->key_seed = 1;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = order[i], line = kl[k], u;
		const char *v = value(L, sec, k);
		uint64_t x;

		if (v == NULL)
			return fail(L, line, "internal error: value lost");
		switch (k) {
		case K_G_COUNT:
			if (parse_uint_in(L, line, "count", v, 1, GW_CONF_SAGEN_MAX, &x) != 0)
				return -1;
			g->count = (uint32_t)x;
			break;
		case K_G_DIRECTION:
			if (parse_choice(L, line, "direction", v, dir_names, 3, &u) != 0)
				return -1;
			g->out = u != 1;
			g->in = u != 0;
			break;
		case K_G_SUITE:
			if (parse_choice(L, line, "suite", v, suite_names, GW_SUITE_MAX, &u) != 0)
				return -1;
			g->suite = (enum gw_suite)u;
			break;
		case K_G_LOCAL:
			if (parse_unicast(L, line, "local", v, &g->local) != 0)
				return -1;
			break;
		case K_G_REMOTE:
			if (parse_unicast(L, line, "remote", v, &g->remote) != 0)
				return -1;
			break;
		case K_G_SPI_SEED:
			if (parse_seed(L, line, "spi-seed", v, &g->spi_seed) != 0)
				return -1;
			break;
		case K_G_PREFIX_SEED:
			if (parse_seed(L, line, "prefix-seed", v, &g->prefix_seed) != 0)
				return -1;
			break;
		case K_G_KEY_SEED:
			if (parse_seed(L, line, "key-seed", v, &g->key_seed) != 0)
				return -1;
			break;
		case K_G_PREFIXES:
			if (parse_prefix(L, line, "prefixes", v, &g->block, false) != 0)
				return -1;
			if (g->block.a.family != 4)
				return fail(L, line, "prefixes: '" ECHO "' is not an IPv4 block (generated "
					    "prefixes are IPv4)", v);
			break;
		case K_G_PREFIX_LEN:
			if (parse_uint_in(L, line, "prefix-len", v, 1, 32, &x) != 0)
				return -1;
			g->prefix_len = (uint8_t)x;
			break;
		case K_G_REPLAY:
			if (parse_replay_window(L, line, v, &g->replay_window) != 0)
				return -1;
			break;
		case K_G_BATCH:
			if (parse_uint_in(L, line, "batch", v, 1, GW_CONF_SAGEN_BATCH_MAX, &x) != 0)
				return -1;
			g->batch = (uint32_t)x;
			break;
		case K_G_INSTALL: {
			static const char *const when[] = { "after-start", "before-start" };

			if (parse_choice(L, line, "install", v, when, 2, &u) != 0)
				return -1;
			g->before_start = u == 1;
			break;
		}
		}
	}
	static const unsigned required[] = { K_G_COUNT, K_G_DIRECTION, K_G_SUITE, K_G_LOCAL,
					     K_G_REMOTE, K_G_PREFIXES };
	for (unsigned i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (kl[required[i]] == 0)
			return missing(L, sec, required[i]);
	if (g->local.family != g->remote.family)
		return fail(L, kl[K_G_REMOTE], "remote: %s is IPv%u but local is IPv%u",
			    addr_str(&g->remote, s), g->remote.family, g->local.family);
	if (addr_eq(&g->local, &g->remote))
		return fail(L, kl[K_G_REMOTE], "remote: same address as local");
	if (g->prefix_len < g->block.len)
		return fail(L, kl[K_G_PREFIX_LEN] ? kl[K_G_PREFIX_LEN] : kl[K_G_PREFIXES],
			    "prefix-len: /%u is shorter than the block %s", g->prefix_len,
			    prefix_str(&g->block, s));
	bits = g->prefix_len - g->block.len;
	if (bits > GW_CONF_SAGEN_MAX_BITS)
		return fail(L, kl[K_G_PREFIX_LEN] ? kl[K_G_PREFIX_LEN] : kl[K_G_PREFIXES],
			    "prefix-len: %s holds 2^%u /%u networks, at most 2^%u (the index "
			    "table has one entry per network)", prefix_str(&g->block, s), bits,
			    g->prefix_len, GW_CONF_SAGEN_MAX_BITS);
	if ((uint64_t)g->count > (1ull << bits))
		return fail(L, kl[K_G_COUNT], "count: %u SAs need as many /%u networks, %s holds %llu",
			    g->count, g->prefix_len, prefix_str(&g->block, s),
			    (unsigned long long)(1ull << bits));
	if (!g->in && kl[K_G_REPLAY] != 0)
		return fail(L, kl[K_G_REPLAY], "replay-window: only for direction = in or both");
	return 0;
}



static const struct sec *
sec_of(const struct loader *L, enum sec_type t, unsigned idx)
{
	for (unsigned i = 0; i < L->n_secs; i++)
		if (L->secs[i].type == t && L->secs[i].idx == idx)
			return &L->secs[i];
	return NULL;
}

static unsigned
key_line(const struct loader *L, enum sec_type t, unsigned idx, unsigned k)
{
	const struct sec *s = sec_of(L, t, idx);

	return s ? s->key_line[k] : 0;
}

/* The port (file order; outer_only: outer ports only) that has address a, or NULL. */
static const struct gw_conf_port *
port_with_addr(const struct gw_config *cfg, const struct gw_addr *a, bool outer_only)
{
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *p = &cfg->ports[i];

		if (outer_only && p->role != GW_ROLE_OUTER)
			continue;
		for (unsigned x = 0; x < p->n_addrs; x++)
			if (addr_eq(&p->addrs[x].a, a))
				return p;
	}
	return NULL;
}

/* The first outer-port address of a family, IPv6 link-local ones last. */
static bool
first_outer_addr(const struct gw_config *cfg, uint8_t family, struct gw_addr *out)
{
	const struct gw_addr *ll = NULL;

	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *p = &cfg->ports[i];

		if (p->role != GW_ROLE_OUTER)
			continue;
		for (unsigned x = 0; x < p->n_addrs; x++) {
			const struct gw_addr *a = &p->addrs[x].a;

			if (a->family != family)
				continue;
			if (is_v6_link_local(a)) {
				if (ll == NULL)
					ll = a;
				continue;
			}
			*out = *a;
			return true;
		}
	}
	if (ll == NULL)
		return false;
	*out = *ll;
	return true;
}

static int
cross_check_peers(struct loader *L)
{
	struct gw_config *cfg = L->cfg;
	char a[PFX_STRLEN], b[PFX_STRLEN];

	if (cfg->n_peers > 0 && cfg->hi_path[0] == '\0')
		return fail(L, cfg->peers[0].line, "[peer %s]: HIP peers need this gateway's Host "
			    "Identity: set hi in [gateway]", cfg->peers[0].name);
	for (unsigned i = 0; i < cfg->n_peers; i++) {
		struct gw_conf_peer *pe = &cfg->peers[i];
		unsigned loc_line = key_line(L, SEC_PEER, i, K_LOCATOR);
		unsigned pfx_line = key_line(L, SEC_PEER, i, K_PEER_PREFIXES);
		const struct gw_conf_port *own;
		struct gw_addr tmp;

		for (unsigned x = 0; x < pe->n_locators; x++) {
			const struct gw_addr *loc = &pe->locators[x];

			own = port_with_addr(cfg, loc, false);
			if (own != NULL)
				return fail(L, loc_line, "locator: %s is an address of our port %s",
					    addr_str(loc, a), own->name);
			if (!first_outer_addr(cfg, loc->family, &tmp))
				return fail(L, loc_line, "locator: %s is IPv%u but no outer port has an "
					    "IPv%u address", addr_str(loc, a), loc->family, loc->family);
		}
		if (pe->has_local) {
			if (port_with_addr(cfg, &pe->local, true) == NULL)
				return fail(L, key_line(L, SEC_PEER, i, K_PEER_LOCAL),
					    "local: %s is not an address of an outer port",
					    addr_str(&pe->local, a));
		} else if (!first_outer_addr(cfg, pe->locators[0].family, &pe->local)) {
			return fail(L, loc_line, "internal error: no default local address");
		}
		for (unsigned j = 0; j < i; j++)
			if (memcmp(cfg->peers[j].hit, pe->hit, GW_CONF_HIT_LEN) == 0) {
				struct gw_addr h = { .family = 6 };

				memcpy(h.addr, pe->hit, GW_CONF_HIT_LEN);
				return fail(L, key_line(L, SEC_PEER, i, K_HIT),
					    "hit: %s is also the HIT of [peer %s] (line %u)",
					    addr_str(&h, a), cfg->peers[j].name,
					    key_line(L, SEC_PEER, j, K_HIT));
			}
		for (unsigned x = 0; x < pe->n_prefixes; x++) {
			const struct gw_prefix *px = &pe->prefixes[x];

			for (unsigned j = 0; j < i; j++) {
				const struct gw_conf_peer *o = &cfg->peers[j];

				for (unsigned y = 0; y < o->n_prefixes; y++)
					if (gw_prefix_overlap(px, &o->prefixes[y]))
						return fail(L, pfx_line, "prefixes: %s overlaps %s of "
							    "[peer %s] (line %u)", prefix_str(px, a),
							    prefix_str(&o->prefixes[y], b), o->name,
							    key_line(L, SEC_PEER, j, K_PEER_PREFIXES));
			}
			/* against out SAs: reported on whichever prefixes line comes later */
			for (unsigned j = 0; j < cfg->n_sas; j++) {
				const struct gw_conf_sa *sa = &cfg->sas[j];
				unsigned sl = key_line(L, SEC_SA, j, K_PREFIXES);

				if (sa->dir != GW_DIR_OUT)
					continue;
				for (unsigned y = 0; y < sa->n_prefixes; y++) {
					if (!gw_prefix_overlap(px, &sa->prefixes[y]))
						continue;
					if (pfx_line > sl)
						return fail(L, pfx_line, "prefixes: %s overlaps %s of "
							    "[sa %s] (line %u)", prefix_str(px, a),
							    prefix_str(&sa->prefixes[y], b), sa->name, sl);
					return fail(L, sl, "prefixes: %s overlaps %s of [peer %s] "
						    "(line %u)", prefix_str(&sa->prefixes[y], a),
						    prefix_str(px, b), pe->name, pfx_line);
				}
			}
		}
	}
	for (unsigned x = 0; x < cfg->n_bypass; x++)
		for (unsigned i = 0; i < cfg->n_peers; i++) {
			const struct gw_conf_peer *pe = &cfg->peers[i];

			for (unsigned y = 0; y < pe->n_prefixes; y++)
				if (gw_prefix_overlap(&cfg->bypass[x], &pe->prefixes[y]))
					return fail(L, key_line(L, SEC_POLICY, 0, K_BYPASS),
						    "bypass: %s overlaps %s of [peer %s] (traffic "
						    "a peer protects is never sent in clear)",
						    prefix_str(&cfg->bypass[x], a),
						    prefix_str(&pe->prefixes[y], b), pe->name);
		}
	return 0;
}

/* A generated SPI that a static [sa] of the same direction also uses. */
static int
sagen_spi_check(struct loader *L, enum gw_dir dir)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_conf_sagen *g = &cfg->sagen;
	uint32_t j = 0;

	unsigned n = 0;

	for (unsigned x = 0; x < cfg->n_sas; x++)
		n += cfg->sas[x].dir == dir;
	for (uint32_t i = 0; i < g->count && n > 0; i++) {
		uint32_t spi = gw_sagen_spi_next(g, &j);

		for (unsigned x = 0; x < cfg->n_sas; x++)
			if (cfg->sas[x].dir == dir && cfg->sas[x].spi == spi)
				return fail(L, key_line(L, SEC_SA, x, K_SPI),
					    "spi: 0x%x is also the SPI of generated %s SA %u of "
					    "[sa-gen %s] (change its spi-seed)", spi, gw_dir_name(dir),
					    i, g->name);
	}
	return 0;
}

static int
cross_check_sagen(struct loader *L)
{
	const struct gw_config *cfg = L->cfg;
	const struct gw_conf_sagen *g = &cfg->sagen;
	const struct gw_prefix *b = &g->block;
	unsigned pl = key_line(L, SEC_SAGEN, 0, K_G_PREFIXES);
	char a[PFX_STRLEN], c[PFX_STRLEN];

	if (g->count == 0)
		return 0;
	if (port_with_addr(cfg, &g->local, true) == NULL)
		return fail(L, key_line(L, SEC_SAGEN, 0, K_G_LOCAL),
			    "local: %s is not an address of an outer port", addr_str(&g->local, a));
	for (unsigned i = 0; i < cfg->n_ports; i++)
		for (unsigned x = 0; x < cfg->ports[i].n_addrs; x++)
			if (gw_prefix_overlap(b, &cfg->ports[i].addrs[x]))
				return fail(L, pl, "prefixes: %s overlaps the network %s of port %s",
					    prefix_str(b, a), prefix_str(&cfg->ports[i].addrs[x], c),
					    cfg->ports[i].name);
	if (g->out) {
		for (unsigned i = 0; i < cfg->n_sas; i++)
			for (unsigned y = 0; y < cfg->sas[i].n_prefixes && cfg->sas[i].dir == GW_DIR_OUT; y++)
				if (gw_prefix_overlap(b, &cfg->sas[i].prefixes[y]))
					return fail(L, pl, "prefixes: %s overlaps %s of out SA %s (line %u)",
						    prefix_str(b, a), prefix_str(&cfg->sas[i].prefixes[y], c),
						    cfg->sas[i].name, key_line(L, SEC_SA, i, K_PREFIXES));
		for (unsigned i = 0; i < cfg->n_peers; i++)
			for (unsigned y = 0; y < cfg->peers[i].n_prefixes; y++)
				if (gw_prefix_overlap(b, &cfg->peers[i].prefixes[y]))
					return fail(L, pl, "prefixes: %s overlaps %s of [peer %s]",
						    prefix_str(b, a), prefix_str(&cfg->peers[i].prefixes[y], c),
						    cfg->peers[i].name);
		for (unsigned y = 0; y < cfg->n_bypass; y++)
			if (gw_prefix_overlap(b, &cfg->bypass[y]))
				return fail(L, pl, "prefixes: %s overlaps the bypass prefix %s",
					    prefix_str(b, a), prefix_str(&cfg->bypass[y], c));
	}
	if (g->out && sagen_spi_check(L, GW_DIR_OUT) != 0)
		return -1;
	if (g->in && sagen_spi_check(L, GW_DIR_IN) != 0)
		return -1;
	return 0;
}

static int
cross_check(struct loader *L)
{
	struct gw_config *cfg = L->cfg;
	char a[PFX_STRLEN], b[PFX_STRLEN];
	bool inner = false, outer = false;

	if (cfg->n_ports == 0)
		return fail(L, 0, "no [port] sections");
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *p = &cfg->ports[i];

		inner |= p->role == GW_ROLE_INNER;
		outer |= p->role == GW_ROLE_OUTER;
		for (unsigned j = 0; j < i; j++) {
			const struct gw_conf_port *q = &cfg->ports[j];

			/* the name before the first ',' (arguments aside) is the device */
			size_t pn = strcspn(p->device, ","), qn = strcspn(q->device, ",");

			if (pn == qn && strncmp(p->device, q->device, pn) == 0)
				return fail(L, key_line(L, SEC_PORT, i, K_DEVICE),
					    "device: same device as port %s", q->name);
			for (unsigned x = 0; x < p->n_addrs; x++)
				for (unsigned y = 0; y < q->n_addrs; y++) {
					const struct gw_prefix *pa = &p->addrs[x], *qa = &q->addrs[y];

					if (addr_eq(&pa->a, &qa->a))
						return fail(L, key_line(L, SEC_PORT, i, K_ADDRESS),
							    "address: %s is also an address of port %s",
							    addr_str(&pa->a, a), q->name);
					if (is_v6_link_local(&pa->a) && is_v6_link_local(&qa->a))
						continue;
					if (gw_prefix_overlap(pa, qa))
						return fail(L, key_line(L, SEC_PORT, i, K_ADDRESS),
							    "address: network of %s overlaps %s of port %s",
							    prefix_str(pa, a), prefix_str(qa, b), q->name);
				}
		}
	}
	if (!inner)
		return fail(L, 0, "no port with role = inner");
	if (!outer)
		return fail(L, 0, "no port with role = outer");

	for (unsigned i = 0; i < cfg->n_sas; i++) {
		const struct gw_conf_sa *sa = &cfg->sas[i];
		bool found = false;

		for (unsigned j = 0; j < cfg->n_ports && !found; j++) {
			const struct gw_conf_port *p = &cfg->ports[j];

			if (p->role != GW_ROLE_OUTER)
				continue;
			for (unsigned x = 0; x < p->n_addrs; x++)
				found |= addr_eq(&p->addrs[x].a, &sa->local);
		}
		if (!found)
			return fail(L, key_line(L, SEC_SA, i, K_LOCAL),
				    "local: %s is not an address of an outer port",
				    addr_str(&sa->local, a));
		for (unsigned j = 0; j < i; j++) {
			const struct gw_conf_sa *o = &cfg->sas[j];

			if (o->dir == sa->dir && o->spi == sa->spi)
				return fail(L, key_line(L, SEC_SA, i, K_SPI),
					    "spi: 0x%x is already used by %s SA %s (line %u)", sa->spi,
					    gw_dir_name(sa->dir), o->name, key_line(L, SEC_SA, j, K_SPI));
			/* RFC 4106 section 3.1: a GCM nonce (salt, IV = sequence number) is
			 * used once per key; two SAs of one key, in either direction, both
			 * count from 1 */
			if (suite_is_gcm(sa->suite) && suite_is_gcm(o->suite) &&
			    sa->key_len == o->key_len && memcmp(sa->key, o->key, sa->key_len) == 0)
				return fail(L, key_line(L, SEC_SA, i, K_KEY),
					    "key: the same GCM key as SA %s (line %u): both would use "
					    "the same nonces", o->name, key_line(L, SEC_SA, j, K_KEY));
			if (sa->state[0] != '\0' && strcmp(sa->state, o->state) == 0)
				return fail(L, key_line(L, SEC_SA, i, K_STATE) ? key_line(L, SEC_SA, i, K_STATE)
					    : sa->line, "state: file %.80s is also used by SA %s",
					    sa->state, o->name);
		}
		if (sa->dir != GW_DIR_OUT)
			continue;
		for (unsigned x = 0; x < sa->n_prefixes; x++) {
			const struct gw_prefix *px = &sa->prefixes[x];

			for (unsigned y = 0; y < x; y++)
				if (gw_prefix_overlap(px, &sa->prefixes[y]))
					return fail(L, key_line(L, SEC_SA, i, K_PREFIXES),
						    "prefixes: %s overlaps %s in the same list",
						    prefix_str(px, a), prefix_str(&sa->prefixes[y], b));
			for (unsigned j = 0; j < i; j++) {
				const struct gw_conf_sa *o = &cfg->sas[j];

				if (o->dir != GW_DIR_OUT)
					continue;
				for (unsigned y = 0; y < o->n_prefixes; y++)
					if (gw_prefix_overlap(px, &o->prefixes[y]))
						return fail(L, key_line(L, SEC_SA, i, K_PREFIXES),
							    "prefixes: %s overlaps %s of out SA %s (line %u)",
							    prefix_str(px, a), prefix_str(&o->prefixes[y], b),
							    o->name, key_line(L, SEC_SA, j, K_PREFIXES));
			}
		}
	}

	for (unsigned x = 0; x < cfg->n_bypass; x++)
		for (unsigned i = 0; i < cfg->n_sas; i++) {
			const struct gw_conf_sa *sa = &cfg->sas[i];

			if (sa->dir != GW_DIR_OUT)
				continue;
			for (unsigned y = 0; y < sa->n_prefixes; y++)
				if (gw_prefix_overlap(&cfg->bypass[x], &sa->prefixes[y]))
					return fail(L, key_line(L, SEC_POLICY, 0, K_BYPASS),
						    "bypass: %s overlaps %s of out SA %s (traffic an "
						    "SA protects is never sent in clear)",
						    prefix_str(&cfg->bypass[x], a),
						    prefix_str(&sa->prefixes[y], b), sa->name);
		}
	if (cross_check_peers(L) != 0)
		return -1;
	return cross_check_sagen(L);
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
		return fail(L, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return fail(L, 0, "cannot read: %s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(L, 0, S_ISDIR(st.st_mode) ? "cannot read: Is a directory" :
			    "not a regular file");
	}
	for (;;) {
		if (L->buflen == cap) {
			size_t ncap = cap ? cap * 2 : 16384;
			char *nb;

			if (cap >= GW_CONF_FILE_MAX) {
				close(fd);
				return fail(L, 0, "file larger than %u bytes", GW_CONF_FILE_MAX);
			}
			if (ncap > GW_CONF_FILE_MAX)
				ncap = GW_CONF_FILE_MAX;
			nb = malloc(ncap);
			if (nb == NULL) {
				close(fd);
				return fail(L, 0, "out of memory");
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
			return fail(L, 0, "cannot read: %s", strerror(e));
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
		return fail(L, line, "NUL byte in the file");
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
			rte_cfgfile_set_entry(L->rc, s->cfgname, "key", fill);
		if (s->key_line[K_AUTH_KEY])
			rte_cfgfile_set_entry(L->rc, s->cfgname, "auth-key", fill);
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
		fail(L, 0, "config path longer than %zu bytes", sizeof(cfg->path) - 1);
		goto out;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	cfg->workers = 1;
	cfg->idle = GW_IDLE_ADAPTIVE;
	cfg->puzzle_k = GW_CONF_PUZZLE_K_DEFAULT;
	cfg->r1_rate = GW_CONF_R1_RATE_DEFAULT;
	for (unsigned i = 0; i < N_OF(esp_transform_default); i++)
		cfg->esp_transforms[cfg->n_esp_transforms++] = esp_transform_default[i];
	for (unsigned i = 0; i < N_OF(dh_group_default); i++)
		cfg->dh_groups[cfg->n_dh_groups++] = (uint8_t)dh_group_default[i];
	for (unsigned i = 0; i < N_OF(hip_cipher_default); i++)
		cfg->hip_ciphers[cfg->n_hip_ciphers++] = hip_cipher_default[i];
	cfg->sa_lifetime_s = GW_CONF_LIFETIME_S_DEFAULT;
	cfg->sa_lifetime_bytes = GW_CONF_LIFETIME_BYTES_DEFAULT;
	cfg->pmtu_age_s = GW_CONF_PMTU_AGE_DEFAULT;
	cfg->neighbor_refresh_s = GW_CONF_NEIGH_REFRESH_DEFAULT;

	if (read_file(L) != 0)
		goto out;
	L->rc = rte_cfgfile_create(0);
	if (L->rc == NULL) {
		fail(L, 0, "rte_cfgfile_create failed");
		goto out;
	}
	if (prescan(L) != 0)
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
	for (unsigned i = 0; i < L->n_secs; i++) {
		const struct sec *s = &L->secs[i];
		int r = 0;

		switch (s->type) {
		case SEC_GATEWAY: r = parse_gateway(L, s); break;
		case SEC_PORT: r = parse_port(L, s); break;
		case SEC_SA: r = parse_sa(L, s); break;
		case SEC_POLICY: r = parse_policy(L, s); break;
		case SEC_PEER: r = parse_peer(L, s); break;
		case SEC_SAGEN: r = parse_sagen(L, s); break;
		}
		if (r != 0)
			goto out;
	}
	if (cross_check(L) != 0)
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

const char *
gw_suite_name(enum gw_suite s)
{
	return (unsigned)s < GW_SUITE_MAX ? suite_names[s] : "?";
}

const char *
gw_role_name(enum gw_role r)
{
	return r == GW_ROLE_INNER ? "inner" : r == GW_ROLE_OUTER ? "outer" : "?";
}

const char *
gw_dir_name(enum gw_dir d)
{
	return d == GW_DIR_OUT ? "out" : d == GW_DIR_IN ? "in" : "?";
}

const char *
gw_idle_name(enum gw_idle i)
{
	return i == GW_IDLE_BUSY ? "busy" : i == GW_IDLE_ADAPTIVE ? "adaptive" : "?";
}

const char *
gw_esp_transform_name(uint16_t id)
{
	return id_to_name(esp_transform_table, N_OF(esp_transform_table), id);
}

const char *
gw_dh_group_name(uint8_t id)
{
	return id_to_name(dh_group_table, N_OF(dh_group_table), id);
}

const char *
gw_hip_cipher_name(uint16_t id)
{
	return id_to_name(hip_cipher_table, N_OF(hip_cipher_table), id);
}

char *
gw_addr_str(const struct gw_addr *a, char *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return buf;
	buf[0] = '\0';
	if (a == NULL || (a->family != 4 && a->family != 6)) {
		snprintf(buf, len, "unset");
		return buf;
	}
	if (inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->addr, buf, (socklen_t)len) == NULL)
		buf[0] = '\0';
	return buf;
}

/* First `len` bits of x and y equal. */
static bool
bits_equal(const uint8_t *x, const uint8_t *y, unsigned len)
{
	unsigned bytes = len / 8, rem = len % 8;

	if (memcmp(x, y, bytes) != 0)
		return false;
	if (rem == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rem));
	return ((x[bytes] ^ y[bytes]) & mask) == 0;
}

bool
gw_prefix_contains(const struct gw_prefix *p, const struct gw_addr *a)
{
	if (p == NULL || a == NULL || p->a.family != a->family)
		return false;
	if ((a->family != 4 && a->family != 6) || p->len > family_bits(a->family))
		return false;
	return bits_equal(p->a.addr, a->addr, p->len);
}

bool
gw_prefix_overlap(const struct gw_prefix *p, const struct gw_prefix *q)
{
	if (p == NULL || q == NULL || p->a.family != q->a.family)
		return false;
	if ((p->a.family != 4 && p->a.family != 6))
		return false;
	unsigned bits = family_bits(p->a.family);
	if (p->len > bits || q->len > bits)
		return false;
	return bits_equal(p->a.addr, q->a.addr, p->len < q->len ? p->len : q->len);
}
