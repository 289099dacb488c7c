/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw configuration: an INI file (read with DPDK's rte_cfgfile after a strict
 * pre-scan of our own that keeps line numbers) turned into plain structs.
 * No EAL is needed: `hipgw --check-config` uses this without starting DPDK.
 * The config reference, docs/config.md, documents every key.
 */
#ifndef HIPGW_CONFIG_H
#define HIPGW_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_limits.h"
#include "gw_types.h"   /* addresses, prefixes, roles, directions, suites */

#define GW_CONF_NAME_MAX     32    /* section names after "port "/"sa ", bytes incl. NUL */
#define GW_CONF_DEVICE_MAX   256   /* device strings, bytes incl. NUL */
#define GW_CONF_PATH_MAX     256
#define GW_CONF_MAX_PORTS    GW_PORTS_MAX
#define GW_CONF_MAX_SAS      256
#define GW_CONF_MAX_ADDRS    8     /* addresses per port */
#define GW_CONF_ADDRESS_DHCP "dhcp"  /* address = dhcp: the port's address from a DHCP lease */
#define GW_CONF_MAX_NEIGH    32    /* static neighbours per port */
#define GW_CONF_NEIGH_REFRESH_DEFAULT 30   /* s, [gateway] neighbor-refresh */
#define GW_CONF_MH_PROBE_MIN 10             /* ms, [gateway] multihome-probe-interval */
#define GW_CONF_MH_PROBE_MAX 60000
#define GW_CONF_MH_FAILBACK_MAX 3600000     /* ms, [gateway] multihome-failback */
#define GW_CONF_MAX_ROUTES   32    /* routes per port */
#define GW_CONF_MAX_PREFIXES 32    /* prefixes per SA, bypass prefixes */
#define GW_CONF_KEY_MAX      36    /* AES-256 key + 4-byte GCM salt, bytes */
#define GW_CONF_AUTH_KEY_MAX 64
#define GW_CONF_LINE_MAX     1024  /* longest accepted line, bytes */
#define GW_CONF_MAX_PEERS    64    /* [peer NAME] sections */
#define GW_CONF_MAX_LOCATORS GW_PEER_LOCATORS_MAX  /* outer addresses per peer */
#define GW_CONF_HIT_LEN      16    /* bytes of a HIT */
#define GW_CONF_MTU_MAX      GW_PORT_MTU_MAX_BYTES
/* Algorithm lists of [gateway]: RFC 7401 5.2.8 and RFC 7402 5.1.2 let a
 * sender offer at most six IDs; we know fewer names, each listed once. */
#define GW_CONF_MAX_ESP_TRANSFORMS GW_HIP_ESP_TRANSFORMS_MAX
#define GW_CONF_MAX_DH_GROUPS      GW_HIP_DH_GROUPS_MAX
#define GW_CONF_MAX_HIP_CIPHERS    GW_HIP_CIPHERS_MAX
/* [bridge NAME] sections: one inner port each, a port in one bridge at most */
#define GW_CONF_MAX_BRIDGES        GW_PORTS_MAX
#define GW_CONF_MAX_BRIDGE_PEERS   GW_CONF_MAX_PEERS   /* names in a bridge's peers */
#define GW_CONF_MAX_BRIDGE_SAS     64                  /* names in a bridge's sas */
#define GW_CONF_MAX_BRIDGE_STATIC  32                  /* static MAC entries per bridge */

struct gw_conf_neighbor {
	struct gw_addr ip;
	uint8_t mac[6];
};

struct gw_conf_route {
	struct gw_prefix dst;
	struct gw_addr via;    /* same family as dst */
};

/* Worker lcores with nothing to do: poll on, or sleep a little ([gateway] idle). */
enum gw_idle { GW_IDLE_BUSY = 0, GW_IDLE_ADAPTIVE = 1 };

/* What an inner port does with its segment ([port] mode): route IP (l3), or
 * bridge whole Ethernet frames to the [bridge]'s peers (l2). */
enum gw_port_mode { GW_PORT_L3 = 0, GW_PORT_L2 = 1 };

#define GW_MSS_CLAMP_AUTO (-1)
#define GW_MSS_CLAMP_OFF  0

struct gw_conf_port {
	char name[GW_CONF_NAME_MAX];          /* "lan" of [port lan] */
	char device[GW_CONF_DEVICE_MAX];      /* PCI address or vdev string */
	enum gw_role role;
	enum gw_port_mode mode;               /* default l3; l2: inner only, in one [bridge] */
	struct gw_prefix addrs[GW_CONF_MAX_ADDRS];   /* with host part */
	unsigned n_addrs;
	struct gw_conf_neighbor neigh[GW_CONF_MAX_NEIGH];
	unsigned n_neigh;
	struct gw_conf_route routes[GW_CONF_MAX_ROUTES];
	unsigned n_routes;
	struct gw_addr gateway4;              /* family 0 when unset */
	struct gw_addr gateway6;
	uint16_t mtu;                         /* bytes of IP packet; default 1500 */
	int mss_clamp;                        /* GW_MSS_CLAMP_AUTO, _OFF or bytes */
	unsigned line;                        /* line of the section header */
	bool has_mac;                         /* `mac` given: set this MAC on the port */
	uint8_t mac[6];
	uint8_t uplink_pref;                  /* uplink-preference: 1..255, lower preferred; 0 = no uplink */
	/* `address = dhcp`: an outer l3 port whose one IPv4 address (and
	 * gateway) a DHCP lease gives at run time (lib/ctrl gw_dhcp_port.c);
	 * n_addrs is then 0: the port has no address before the first lease. */
	bool dhcp;
};

struct gw_conf_sa {
	char name[GW_CONF_NAME_MAX];
	enum gw_dir dir;
	uint32_t spi;                          /* host order, never 0, and not 1..255 (RFC 4303 2.1) */
	enum gw_suite suite;
	uint8_t key[GW_CONF_KEY_MAX];          /* GCM: key then 4-byte salt */
	uint8_t key_len;                       /* bytes, checked against the suite */
	uint8_t auth_key[GW_CONF_AUTH_KEY_MAX];
	uint8_t auth_key_len;
	struct gw_addr local, remote;          /* outer (locator) addresses, same family */
	struct gw_prefix prefixes[GW_CONF_MAX_PREFIXES];
	unsigned n_prefixes;
	struct gw_prefix local_prefixes[GW_CONF_MAX_PREFIXES];
	unsigned n_local_prefixes;             /* 0 = default: inner ports' networks and routes */
	bool esn;
	char state[GW_CONF_PATH_MAX];          /* out + GCM: default /var/lib/hipgw/<name>.seq */
	uint32_t replay_window;                /* packets; 0 = off; default 1024 */
	uint16_t udp_sport, udp_dport;         /* out: UDP encapsulation (RFC 3948), host
	                                        * order; 0, 0 = plain ESP (the default) */
	unsigned line;
};

/* [sa-gen NAME]: a benchmarking / lab feature (gw_sagen.h): `count` SAs per
 * direction whose SPIs, inner prefixes and keys are generated from seeds. */
#define GW_CONF_SAGEN_MAX      (1u << 22)   /* SAs per direction */
#define GW_CONF_SAGEN_MAX_BITS 24           /* prefix-len - block length: index table <= 2^24 */
struct gw_conf_sagen {
	char name[GW_CONF_NAME_MAX];
	uint32_t count;                        /* 0 = no [sa-gen] section; else 1..GW_CONF_SAGEN_MAX */
	bool out, in;                          /* directions generated (`both`: both) */
	enum gw_suite suite;
	struct gw_addr local, remote;          /* outer addresses, as in [sa] */
	uint64_t spi_seed, prefix_seed, key_seed;   /* 0..2^32-1 each */
	struct gw_prefix block;                /* IPv4 block the prefixes are drawn from */
	uint8_t prefix_len;                    /* length of each SA's prefix; default 24 */
	uint32_t replay_window;                /* in SAs; default 1024 */
	uint32_t batch;                        /* SAs installed per control-loop pass */
	bool before_start;                     /* install = before-start: all before the workers run */
	unsigned line;
};

/* A HIP peer gateway ([peer NAME]): SAs towards it are keyed by HIP. */
/* A [peer]'s nat (RFC 5770 HIP over UDP, as the initiator): plain I1s, then
 * UDP when they get no answer; UDP from the start; never UDP. */
enum gw_peer_nat { GW_PEER_NAT_AUTO = 0, GW_PEER_NAT_FORCE = 1, GW_PEER_NAT_OFF = 2 };

struct gw_conf_peer {
	char name[GW_CONF_NAME_MAX];           /* "siteB" of [peer siteB] */
	uint8_t hit[GW_CONF_HIT_LEN];          /* ORCHIDv2 (2001:20::/28), network order */
	struct gw_addr locators[GW_CONF_MAX_LOCATORS];  /* its outer addresses, file order */
	unsigned n_locators;                   /* 1..GW_CONF_MAX_LOCATORS */
	struct gw_addr local;                  /* our outer address towards it: `local`, or
						* the default (see the reference) */
	bool has_local;                        /* `local` given */
	struct gw_prefix prefixes[GW_CONF_MAX_PREFIXES];   /* its site, host bits zero;
						* none: a bridge peer that carries frames only */
	unsigned n_prefixes;
	unsigned line;                         /* line of the section header */
	uint8_t bridge;                        /* 1 + index of the [bridge] whose peers list
						* it, 0: none (resolved by the checks) */
	uint8_t bridge_remote;                 /* bridge != 0: its position in that list, the
						* bridge's remote index (gw_ctx.h gw_bridge) */
	uint8_t nat;                           /* enum gw_peer_nat: HIP over UDP (RFC 5770) */
	uint16_t nat_keepalive_s;              /* keepalive interval over UDP, s; 0 = none */
};

/* A static MAC entry of a [bridge]: frames to `mac` (on `vlan`) go to the
 * bridge's port (local) or to one of its peers or SAs. */
enum gw_bridge_dest { GW_BRIDGE_DEST_LOCAL = 0, GW_BRIDGE_DEST_PEER = 1, GW_BRIDGE_DEST_SA = 2 };
struct gw_conf_bridge_static {
	uint8_t mac[6];                        /* unicast */
	uint16_t vlan;                         /* VLAN ID 1..4094 (IEEE 802.1Q); 0 = untagged */
	enum gw_bridge_dest dest;
	char dest_name[GW_CONF_NAME_MAX];      /* PEER: a name of the bridge's peers or sas */
	unsigned dest_idx;                     /* into cfg->peers / cfg->sas (not LOCAL) */
};

/* An L2 bridge ([bridge NAME]): the Ethernet segment of one inner port in mode
 * l2, carried whole (EtherIP in ESP) to the same bridge at each peer's site.
 * The lists hold names as in the file; the cross-checks resolve them into
 * indices into cfg->peers and cfg->sas. */
struct gw_conf_bridge {
	char name[GW_CONF_NAME_MAX];
	char port_name[GW_CONF_NAME_MAX];
	unsigned port;                         /* index into cfg->ports */
	char peer_names[GW_CONF_MAX_BRIDGE_PEERS][GW_CONF_NAME_MAX];
	unsigned peers[GW_CONF_MAX_BRIDGE_PEERS];   /* indices into cfg->peers */
	unsigned n_peers;
	char sa_names[GW_CONF_MAX_BRIDGE_SAS][GW_CONF_NAME_MAX];
	unsigned sas[GW_CONF_MAX_BRIDGE_SAS];  /* indices into cfg->sas (in and out) */
	unsigned n_sas;
	uint32_t mac_table_size;               /* entries; default 65536 */
	uint32_t mac_age_s;                    /* s a learned MAC lasts unheard; default 300 */
	uint32_t flood_rate;                   /* flooded frames per s; 0 = no limit; default 10000 */
	bool link_local_pass;                  /* 01:80:C2:00:00:0x frames bridged; default dropped */
	struct gw_conf_bridge_static statics[GW_CONF_MAX_BRIDGE_STATIC];
	unsigned n_statics;
	unsigned line;                         /* line of the section header */
};

/* What hipgw is ([gateway] mode): a site gateway, or a HIP-aware firewall
 * between HIP hosts (docs/middlebox.md) that bridges pairs of ports. */
enum gw_mode { GW_MODE_GATEWAY = 0, GW_MODE_MIDDLEBOX = 1 };

/* Middlebox mode: [host NAME] sections (Host Identities the config vouches
 * for) and [rule NAME] sections (first match in file order wins). */
#define GW_CONF_MAX_HOSTS          64
#define GW_CONF_MAX_RULES          64
#define GW_CONF_MBOX_PORTS         2       /* [middlebox] ports: one pair */

/* A Host Identity the config vouches for: its HIT, and the file of its
 * public key (PEM), which the loader checked hashes to that HIT. */
struct gw_conf_host {
	char name[GW_CONF_NAME_MAX];
	uint8_t hit[GW_CONF_HIT_LEN];          /* ORCHIDv2, network order */
	char hi_path[GW_CONF_PATH_MAX];        /* PEM public key (SubjectPublicKeyInfo) */
	unsigned line;                         /* line of the section header */
};

/* A policy rule: an initiator and a responder HIT (or any), allow or deny. */
enum gw_rule_action { GW_RULE_ALLOW = 0, GW_RULE_DENY = 1 };
struct gw_conf_rule {
	char name[GW_CONF_NAME_MAX];
	bool any_initiator, any_responder;     /* true: the HIT below is not used */
	uint8_t initiator[GW_CONF_HIT_LEN];    /* the I1 / I2 sender's HIT */
	uint8_t responder[GW_CONF_HIT_LEN];
	enum gw_rule_action action;
	unsigned line;
};

/* [middlebox]: the bridged pair and the tracker's parameters. */
struct gw_conf_mbox {
	char port_names[GW_CONF_MBOX_PORTS][GW_CONF_NAME_MAX];
	unsigned ports[GW_CONF_MBOX_PORTS];    /* indices into cfg->ports (the checks) */
	unsigned n_ports;
	uint32_t idle_timeout_s;               /* s without HIP or ESP; default 300 */
	uint32_t rekey_grace_s;                /* s the old SPIs pass after a rekey; default 2 */
	uint32_t i1_rate;                      /* I1 per s per source address; 0 = no limit */
	uint32_t max_assocs;                   /* associations at most; default 4096 */
	char state_file[GW_CONF_PATH_MAX];     /* "" = none */
	struct gw_prefix bypass[GW_CONF_MAX_PREFIXES];  /* non-HIP, non-ESP traffic between */
	unsigned n_bypass;                     /* two of them crosses; default none */
	unsigned line;                         /* of the section header; 0: no section */
};

/* [mbox-gen NAME] (lab): `count` flows installed before the workers start,
 * flow i to the i-th address of `block` (wrapping) with the i-th SPI of the
 * [sa-gen] SPI sequence of spi-seed (gw_sagen.h), association id i. */
struct gw_conf_mboxgen {
	char name[GW_CONF_NAME_MAX];
	uint32_t count;                        /* 0 = no section; 1..GW_CONF_MBOXGEN_MAX */
	struct gw_prefix block;                /* destinations, IPv4 or IPv6, host bits 0 */
	uint64_t spi_seed;
	unsigned line;
};
/* [mbox-gen] count at most: half a flow table, the other half is the room of
 * the most associations (GW_MBOX_ASSOCS_MAX x GW_MBOX_FLOWS_PER_ASSOC) */
#define GW_CONF_MBOXGEN_MAX (GW_MBOX_FLOWS_MAX / 2)
_Static_assert(GW_CONF_MBOXGEN_MAX + GW_MBOX_ASSOCS_MAX * GW_MBOX_FLOWS_PER_ASSOC <=
	       GW_MBOX_FLOWS_MAX, "[mbox-gen] flows and the tracker's fit in one flow table");

struct gw_config {
	char path[GW_CONF_PATH_MAX];
	enum gw_mode mode;                     /* default gateway */
	unsigned workers;                      /* default 1 */
	enum gw_idle idle;                     /* default adaptive */
	struct gw_conf_port ports[GW_CONF_MAX_PORTS];
	unsigned n_ports;                      /* in file order */
	struct gw_conf_sa sas[GW_CONF_MAX_SAS];
	unsigned n_sas;
	struct gw_prefix bypass[GW_CONF_MAX_PREFIXES];
	unsigned n_bypass;
	/* HIP keying ([gateway] hi, puzzle-k, ... and [peer] sections). The IDs are
	 * the RFC numbers, lib/hipwire/hip_wire.h's HIP_ESP_*, HIP_DH_GROUP_* and
	 * HIP_CIPHER_* constants. */
	char hi_path[GW_CONF_PATH_MAX];        /* Host Identity key file; "" = none */
	unsigned hi_line;                      /* line of the `hi` key */
	uint8_t puzzle_k;                      /* initial puzzle difficulty, 0..28; default 10 */
	uint32_t r1_rate;                      /* R1s per second at most; 0 = no limit; default 20000 */
	uint16_t esp_transforms[GW_CONF_MAX_ESP_TRANSFORMS];  /* RFC 7402 suite IDs,
						* preference order */
	unsigned n_esp_transforms;
	uint8_t dh_groups[GW_CONF_MAX_DH_GROUPS];   /* RFC 7401 group IDs */
	unsigned n_dh_groups;
	uint16_t hip_ciphers[GW_CONF_MAX_HIP_CIPHERS];  /* RFC 7401 HIP_CIPHER IDs */
	unsigned n_hip_ciphers;
	uint64_t sa_lifetime_s;                /* rekey after; 0 = no time limit; default 3600 */
	uint64_t sa_lifetime_bytes;            /* rekey after; 0 = no byte limit; default 1 GiB */
	uint32_t pmtu_age_s;                   /* a lowered path MTU lasts; 300..86400, default 600 */
	struct gw_conf_peer peers[GW_CONF_MAX_PEERS];
	unsigned n_peers;                      /* in file order */
	struct gw_conf_sagen sagen;            /* at most one [sa-gen]; count 0 = none */
	struct gw_conf_bridge bridges[GW_CONF_MAX_BRIDGES];
	unsigned n_bridges;                    /* in file order */
	uint32_t mbufs;                        /* packet buffers; 0 = default (from ports, workers) */
	uint32_t mbuf_size;                    /* data room per buffer incl. headroom, bytes; 0 = default */
	uint32_t neighbor_refresh_s;           /* s between walks over learned neighbours; 0 = default */
	/* multihoming (RFC 8047, lib/keying/gw_hip_mh.c); 0 = the default */
	uint32_t mh_probe_ms;                  /* ms between two probes of a path */
	uint8_t mh_misses;                     /* unanswered in a row -> down */
	uint32_t mh_failback_ms;               /* ms answering before a failback */
	/* middlebox mode */
	struct gw_conf_mbox mbox;
	struct gw_conf_host hosts[GW_CONF_MAX_HOSTS];
	unsigned n_hosts;                      /* in file order */
	struct gw_conf_rule rules[GW_CONF_MAX_RULES];
	unsigned n_rules;                      /* in file order: the order they match in */
	struct gw_conf_mboxgen mboxgen;        /* at most one [mbox-gen]; count 0 = none */
};

/* Load and validate the config at `path` into `cfg` (zeroed first).
 * Returns 0, or -1 with `err` holding one line "FILE:LINE: message" (LINE 0 when
 * the file as a whole is at fault, e.g. unreadable). Rejects: unknown sections and
 * keys, duplicate sections or keys, lines without '=', lines longer than
 * GW_CONF_LINE_MAX, names or values longer than their fields, bad values, and
 * cross-section errors (an SA's local address not on an outer port, key lengths
 * that do not match the suite, duplicate SPIs per direction, no inner or no outer
 * port, overlapping out-SA prefixes, [peer] rules: HIT not ORCHIDv2, duplicate
 * HITs, a peer's prefixes overlapping another peer's or an out SA's, a locator
 * family without an outer port address, [peer] without [gateway] hi). Checks
 * that the `hi` key file exists and is not accessible by group or others (it
 * does not read it). Also wipes the key bytes of a failed load. */
int gw_config_load(const char *path, struct gw_config *cfg, char *err, size_t errlen);

/* Wipe key material in cfg (explicit_bzero). Call when the config is no longer needed. */
void gw_config_wipe(struct gw_config *cfg);

/* One row of the loader's key table, for tools that document or check the
 * keys (tests/structure/conf_keys.c against docs/config.md). */
struct gw_conf_key_info {
	const char *section;    /* "gateway", "port", "sa", "policy", "peer", "sa-gen", "bridge",
				 * "middlebox", "host", "rule", "mbox-gen" */
	const char *key;        /* as in the file */
	const char *def;        /* the default as it would be written; NULL: none, or a
				 * default the loader or hipgw computes */
	bool required;
	const char *doc;        /* one line */
};

/* Row i (0, 1, ... in table order: section kinds in the order above, keys in
 * the order of the reference) into *info. Returns false past the last row. */
bool gw_config_key_info(unsigned i, struct gw_conf_key_info *info);

/* Config names of enums, for logs and stats ("?" for values out of range). */
const char *gw_suite_name(enum gw_suite s);
const char *gw_role_name(enum gw_role r);
const char *gw_dir_name(enum gw_dir d);
const char *gw_idle_name(enum gw_idle i);
const char *gw_mode_name(enum gw_mode m);
/* Config names of the HIP algorithm IDs ("aes-gcm16" for HIP_ESP_AES_GCM_16 ...;
 * "?" for IDs the config does not know). */
const char *gw_esp_transform_name(uint16_t id);
const char *gw_dh_group_name(uint8_t id);
const char *gw_hip_cipher_name(uint16_t id);

#endif
