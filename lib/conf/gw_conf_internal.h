/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader internals shared by lib/conf's files (not installed, not for
 * other folders): limits of the values, section kinds and keys, the table row,
 * the loader state, and the functions each file gives the others.
 */
#ifndef HIPGW_CONF_INTERNAL_H
#define HIPGW_CONF_INTERNAL_H

#include <arpa/inet.h>          /* INET6_ADDRSTRLEN */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_cfgfile.h>

#include "gw_config.h"
#include "hipgw_wire.h"

/* Bounds of values (the reference, docs/config.md, gives them too). */
#define GW_CONF_FILE_MAX      (16u << 20)   /* biggest config file read, bytes */
#define GW_CONF_WORKERS_MAX   GW_WORKERS_MAX  /* worker lcores */
#define GW_CONF_MTU_MIN       576           /* port mtu, bytes of IP packet (RFC 791) */
#define GW_CONF_MTU_MIN_V6    GW_IPV6_MIN_MTU /* with an IPv6 address (RFC 8200 5) */
#define GW_CONF_MSS_MIN       88            /* tcp-mss-clamp, bytes */
#define GW_CONF_MSS_MAX       65535         /* the TCP MSS option's field, bytes */
#define GW_CONF_REPLAY_MAX    GW_REPLAY_WINDOW_MAX_PACKETS  /* replay-window */
#define GW_CONF_SPI_MIN       GW_ESP_SPI_MIN  /* 1..255 reserved (RFC 4303 2.1) */
#define GW_CONF_STATE_DIR     "/var/lib/hipgw/"   /* default [sa] state: DIR NAME.seq */
#define GW_CONF_PUZZLE_K_MAX  GW_PUZZLE_K_MAX_BITS  /* puzzle-k */
#define GW_CONF_R1_RATE_MAX   GW_R1_RATE_MAX_PER_S  /* r1-rate */
#define GW_CONF_NAT_KEEPALIVE_MAX_S 3600u   /* [peer] nat-keepalive, s */
#define GW_CONF_LIFETIME_S_MAX     (720u * 3600u)  /* sa-lifetime, s: 720h = 30 days */
#define GW_CONF_LIFETIME_BYTES_MIN 1024ull         /* sa-lifetime, bytes: 1 KiB */
#define GW_CONF_LIFETIME_BYTES_MAX (1ull << 50)    /* sa-lifetime, bytes: 1024 TiB */
#define GW_CONF_PMTU_AGE_MIN  300u          /* s; RFC 8201 4: 5 minutes at least */
#define GW_CONF_PMTU_AGE_MAX  GW_PMTU_AGE_MAX_S
#define GW_CONF_MBUFS_MIN     4096u         /* packet buffers */
#define GW_CONF_MBUFS_MAX     (1u << 24)
#define GW_CONF_MBUF_SIZE_MIN 512u          /* bytes of data room */
#define GW_CONF_MBUF_SIZE_MAX 65535u
#define GW_CONF_NEIGH_REFRESH_MAX 3600u     /* s */
#define GW_CONF_SAGEN_BATCH_MAX   65536u    /* SAs per control-loop pass */
#define GW_CONF_SAGEN_PLEN_MAX    32        /* prefix-len, bits: IPv4 prefixes */
#define GW_CONF_MAC_AGE_MIN       10u       /* [bridge] mac-age, s */
#define GW_CONF_FLOOD_RATE_MAX    10000000u /* [bridge] flood-rate, frames per s */
/* [bridge] static vlan: a VLAN ID (IEEE 802.1Q 9.6: 0 is no VLAN, 4095 reserved) */
#define GW_CONF_VLAN_MIN          1u
#define GW_CONF_VLAN_MAX          4094u
/* [middlebox] bounds */
#define GW_CONF_MBOX_IDLE_MAX     86400u    /* idle-timeout, s */
#define GW_CONF_MBOX_GRACE_MAX    3600u     /* rekey-grace, s */
#define GW_CONF_MBOX_I1_RATE_MAX  1000000u  /* i1-rate, I1 per s per source */

#define MAX_SECTIONS (5 + GW_CONF_MAX_PORTS + GW_CONF_MAX_SAS + GW_CONF_MAX_PEERS + \
		      GW_CONF_MAX_BRIDGES + GW_CONF_MAX_HOSTS + GW_CONF_MAX_RULES)
#define ECHO "%.80s"          /* user text quoted in messages, bounded */
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define PFX_STRLEN (INET6_ADDRSTRLEN + 5)   /* a prefix as text, bytes incl. NUL */

/* ---------- section kinds and keys ---------------------------------------------- */

enum sec_type { SEC_GATEWAY, SEC_PORT, SEC_SA, SEC_POLICY, SEC_PEER, SEC_SAGEN, SEC_BRIDGE,
		SEC_MBOX, SEC_HOST, SEC_RULE, SEC_MBOXGEN, SEC_MAX };

/* One per row of conf_keys, in its order. */
enum key_id {
	K_GW_MODE, K_WORKERS, K_IDLE, K_HI, K_PUZZLE_K, K_R1_RATE, K_ESP_TRANSFORMS, K_DH_GROUPS, K_HIP_CIPHERS,
	K_SA_LIFETIME, K_PMTU_AGE, K_MBUFS, K_MBUF_SIZE, K_NEIGH_REFRESH,
	K_MH_PROBE, K_MH_MISSES, K_MH_FAILBACK,
	K_DEVICE, K_ROLE, K_MODE, K_ADDRESS, K_MAC, K_NEIGHBORS, K_ROUTES, K_GATEWAY, K_MTU, K_MSS,
	K_UPLINK_PREF,
	K_DIRECTION, K_SPI, K_SUITE, K_KEY, K_AUTH_KEY, K_LOCAL, K_REMOTE, K_PREFIXES,
	K_LOCAL_PREFIXES, K_ESN, K_STATE, K_REPLAY, K_UDP_ENCAP,
	K_BYPASS,
	K_HIT, K_LOCATOR, K_PEER_LOCAL, K_PEER_PREFIXES,
	K_PEER_NAT, K_PEER_NAT_KEEPALIVE,
	K_G_COUNT, K_G_DIRECTION, K_G_SUITE, K_G_LOCAL, K_G_REMOTE, K_G_SPI_SEED, K_G_PREFIXES,
	K_G_PREFIX_LEN, K_G_PREFIX_SEED, K_G_KEY_SEED, K_G_REPLAY, K_G_BATCH, K_G_INSTALL,
	K_B_PORT, K_B_PEERS, K_B_SAS, K_B_MAC_TABLE, K_B_MAC_AGE, K_B_FLOOD_RATE, K_B_LINK_LOCAL,
	K_B_STATIC,
	K_M_PORTS, K_M_IDLE, K_M_GRACE, K_M_I1_RATE, K_M_MAX_ASSOCS, K_M_STATE, K_M_BYPASS,
	K_H_HIT, K_H_HI,
	K_R_INITIATOR, K_R_RESPONDER, K_R_ACTION,
	K_MG_COUNT, K_MG_DESTINATIONS, K_MG_SPI_SEED,
	K_MAX
};

struct loader;
struct sec;
struct conf_key;

/* Parses value v of key k (found on `line`) into the struct of its section at
 * `base` (struct gw_config, gw_conf_port, gw_conf_sa, gw_conf_peer or
 * gw_conf_sagen). Returns 0, or -1 after conf_fail(). */
typedef int conf_parse_fn(struct loader *L, const struct conf_key *k, unsigned line,
			  const char *v, void *base);

/* A key of a section kind. Generic parsers (conf_key_*) write the field at
 * off (size bytes; lists: an array of size-byte elements and an unsigned count
 * at n_off); keys of a special shape have a parser of their own. */
struct conf_key {
	enum sec_type sec;
	const char *name;           /* as in the file */
	conf_parse_fn *parse;
	size_t off, size, n_off;
	uint64_t lo, hi;            /* numbers: lo..hi; lists: at most hi elements */
	const void *set;            /* choices: const char *const []; ID lists: struct id_name [] */
	unsigned n_set;
	const char *def;            /* default in the file's syntax, parsed like a value;
				     * NULL: the field stays 0 (or is set by a check) */
	bool required;
	const char *doc;            /* one line; docs/config.md has the whole text */
};

/* Checks of a whole section at base once every key is read (defaults put in,
 * required keys present). Returns 0, or -1 after conf_fail(). */
typedef int conf_finish_fn(struct loader *L, const struct sec *sec, void *base);

/* Destination of a key: field m of the section's struct t. */
#define FIELD(t, m) .off = offsetof(t, m), .size = sizeof(((t *)0)->m)
/* A list: array m of t with its count n. */
#define LIST(t, m, n) .off = offsetof(t, m), .size = sizeof(((t *)0)->m[0]), \
	.n_off = offsetof(t, n), .hi = N_OF(((t *)0)->m)
/* The names a choice or an ID list takes. */
#define SET(a) .set = (a), .n_set = N_OF(a)
#define STR_(x) #x
#define STR(x) STR_(x)

/* A section kind: [NAME] (fields of struct gw_config) or [NAME X] (one struct
 * of an array, or the one gw_conf_sagen, at cfg_off + idx * stride). */
struct sec_kind {
	const char *name;
	bool named;
	unsigned max;                /* sections of this kind at most */
	size_t cfg_off, stride;
	size_t name_off, line_off;   /* named: where the name and the header's line go */
	conf_finish_fn *finish;      /* NULL: no checks of its own */
};

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

/* HIP algorithm names of [gateway] and their IDs (the RFC numbers, named in
 * lib/hipwire/hip_wire.h). */
struct id_name {
	const char *name;
	uint16_t id;
};

extern const struct conf_key conf_keys[K_MAX];
extern const struct sec_kind conf_kinds[SEC_MAX];
extern const char *const conf_suite_names[GW_SUITE_MAX];

/* ---------- what each file gives the others ----------------------------------- */

/* gw_conf_values.c: "FILE:LINE: message" into the loader's err; returns -1. */
int __attribute__((format(printf, 3, 4)))
conf_fail(struct loader *L, unsigned line, const char *fmt, ...);

/* gw_conf_values.c: text and numbers */
bool conf_is_ws(char c);
char *conf_trim(char *s);
/* Next comma-separated element of *cur (modified), trimmed: 1 with *item set,
 * 0 at the end, -1 for an empty element. */
int conf_list_next(char **cur, char **item);
/* Words of s (modified) into w[0..max-1]: their number; max + 1 for more. */
unsigned conf_split_words(char *s, char **w, unsigned max);
/* Decimal without leading zeros (at most 10 digits), or (hex_ok) 0x and 1..8
 * hex digits: 0, or -1. */
int conf_parse_uint(const char *s, bool hex_ok, uint64_t *out);

/* gw_conf_values.c: addresses and prefixes */
bool conf_addr_eq(const struct gw_addr *a, const struct gw_addr *b);
bool conf_is_unicast(const struct gw_addr *a);
bool conf_is_v6_link_local(const struct gw_addr *a);
const char *conf_addr_str(const struct gw_addr *a, char *buf);      /* buf: INET6_ADDRSTRLEN */
const char *conf_prefix_str(const struct gw_prefix *p, char *buf);  /* buf: PFX_STRLEN */

/* gw_conf_values.c: values of key `what` on `line`; 0, or -1 after conf_fail() */
int conf_parse_hex_key(struct loader *L, unsigned line, const char *what, const char *s,
		       uint8_t *out, size_t max, size_t *len);
int conf_parse_unicast(struct loader *L, unsigned line, const char *what, const char *s,
		       struct gw_addr *a);
/* iface: an interface address (host part kept); else a network (host bits 0). */
int conf_parse_prefix(struct loader *L, unsigned line, const char *what, const char *s,
		      struct gw_prefix *p, bool iface);
/* Parses element `item` of the list of key `what` as element n of the array
 * that ctx leads to. Returns 0, or -1 after conf_fail(). */
typedef int conf_item_fn(struct loader *L, unsigned line, const char *what, char *item,
			 unsigned n, void *ctx);
/* The comma-separated list v: each element through fn, *n counting them (from
 * its value on entry); an empty element, or more than max ("more than MAX
 * NOUN"), is refused. */
int conf_parse_list(struct loader *L, unsigned line, const char *what, const char *v,
		    unsigned max, const char *noun, unsigned *n, conf_item_fn *fn, void *ctx);
int conf_parse_prefix_list(struct loader *L, unsigned line, const char *what, const char *v,
			   struct gw_prefix *out, unsigned max, unsigned *n);
int conf_parse_unicast_mac(struct loader *L, unsigned line, const char *what, const char *s,
			   uint8_t mac[6]);
/* One of names[0..n-1]: *out its index. */
int conf_parse_choice(struct loader *L, unsigned line, const char *what, const char *v,
		      const char *const *names, unsigned n, unsigned *out);
int conf_parse_uint_in(struct loader *L, unsigned line, const char *what, const char *v,
		       uint64_t lo, uint64_t hi, uint64_t *out);
int conf_parse_replay_window(struct loader *L, unsigned line, const char *v, uint32_t *out);
/* Names of t[0..nt-1], each once, at most max: their IDs into out[0..*n-1]. */
int conf_parse_id_list(struct loader *L, unsigned line, const char *what, const char *v,
		       const struct id_name *t, size_t nt, uint16_t *out, unsigned max,
		       unsigned *n);
int conf_parse_seed(struct loader *L, unsigned line, const char *what, const char *v,
		    uint64_t *out);

/* gw_conf_values.c: the generic parsers of conf_keys rows */
conf_parse_fn conf_key_number, conf_key_choice, conf_key_string, conf_key_unicast,
	conf_key_prefixes, conf_key_ids, conf_key_replay, conf_key_seed;

/* Parsers and checks of one section kind each (gw_conf_gateway.c, gw_conf_port.c,
 * gw_conf_sa.c, gw_conf_peer.c, gw_conf_sagen.c, gw_conf_bridge.c), named in
 * conf_keys / conf_kinds. */
conf_parse_fn conf_gateway_hi, conf_gateway_lifetime, conf_gateway_pmtu_age;
conf_parse_fn conf_port_address, conf_port_mac, conf_port_neighbors, conf_port_routes,
	conf_port_gateway, conf_port_mss;
conf_parse_fn conf_sa_spi, conf_sa_key, conf_sa_auth_key, conf_sa_state, conf_sa_udp_encap;
conf_parse_fn conf_peer_hit, conf_peer_locators, conf_peer_local, conf_peer_prefixes;
conf_parse_fn conf_sagen_direction, conf_sagen_block;
conf_parse_fn conf_bridge_port, conf_bridge_peers, conf_bridge_sas, conf_bridge_static;
conf_parse_fn conf_mbox_ports, conf_mbox_state, conf_host_hit, conf_host_hi, conf_rule_hit,
	conf_mboxgen_block;
conf_finish_fn conf_port_finish, conf_sa_finish, conf_peer_finish, conf_sagen_finish,
	conf_bridge_finish, conf_host_finish;

/* gw_conf_peer.c: a HIT (ORCHIDv2 with a known HIT suite) in IPv6 notation
 * into out (GW_CONF_HIT_LEN bytes), for key `what`. 0, or -1 after conf_fail(). */
int conf_parse_hit(struct loader *L, unsigned line, const char *what, const char *v, uint8_t *out);
/* gw_conf_bridge.c: a section name (as a header allows it) into
 * out[GW_CONF_NAME_MAX]. 0, or -1 after conf_fail(). */
int conf_parse_name(struct loader *L, unsigned line, const char *what, const char *s, char *out);

/* gw_conf_mbox.c: a [port] in middlebox mode (the keys a bridged port takes);
 * and the checks of middlebox mode across sections, or of gateway mode
 * against the middlebox's sections. 0, or -1 after conf_fail(). */
int conf_mbox_port_finish(struct loader *L, const struct sec *sec, struct gw_conf_port *p);
int conf_mbox_cross_check(struct loader *L);
/* The section of type t with index idx, or NULL; a key's line in it (0: absent). */
const struct sec *conf_sec_of(const struct loader *L, enum sec_type t, unsigned idx);
unsigned conf_key_line(const struct loader *L, enum sec_type t, unsigned idx, unsigned k);

/* gw_conf_keys.c */
bool conf_suite_is_gcm(enum gw_suite s);

/* gw_conf_prescan.c: the whole file (L->buf) into L->secs and L->rc; 0, or -1. */
int conf_prescan(struct loader *L);

/* gw_conf_check.c: the checks across sections; 0, or -1. */
int conf_cross_check(struct loader *L);

#endif
