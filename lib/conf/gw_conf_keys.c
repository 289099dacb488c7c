/* SPDX-License-Identifier: BSD-3-Clause
 * Config loader: the key table (every key of every section kind, once), the
 * section kinds, the names of suites and HIP algorithms, and the public name
 * functions of gw_config.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "gw_conf_internal.h"
#include "hip_wire.h"

const char *const conf_suite_names[GW_SUITE_MAX] = {
	[GW_SUITE_AES128_GCM16] = "aes128-gcm16",
	[GW_SUITE_AES256_GCM16] = "aes256-gcm16",
	[GW_SUITE_AES128_CBC_SHA256] = "aes128-cbc-sha256",
	[GW_SUITE_AES256_CBC_SHA256] = "aes256-cbc-sha256",
	[GW_SUITE_NULL_SHA256] = "null-sha256",
};

/* ESP transform suite IDs, RFC 7402 section 5.1.2 (IANA "ESP Transform Suite IDs") */
static const struct id_name esp_transform_table[] = {
	{ "aes-gcm16", HIP_ESP_AES_GCM_16 },                     /* AES-GCM, 16-octet ICV (RFC 4106) */
	{ "aes256-cbc-sha256", HIP_ESP_AES_256_CBC_HMAC_SHA256 },
	{ "aes128-cbc-sha256", HIP_ESP_AES_128_CBC_HMAC_SHA256 },
	{ "null-sha256", HIP_ESP_NULL_HMAC_SHA256 },             /* no encryption */
};

/* DH Group IDs, RFC 7401 section 5.2.7 */
static const struct id_name dh_group_table[] = {
	{ "nist-p256", HIP_DH_GROUP_NIST_P256 },
	{ "nist-p384", HIP_DH_GROUP_NIST_P384 },
	{ "modp3072", HIP_DH_GROUP_MODP_3072 },                  /* RFC 3526 group 15 */
};

/* HIP Cipher IDs, RFC 7401 section 5.2.8 */
static const struct id_name hip_cipher_table[] = {
	{ "null", HIP_CIPHER_NULL_ENCRYPT },
	{ "aes128-cbc", HIP_CIPHER_AES_128_CBC },
	{ "aes256-cbc", HIP_CIPHER_AES_256_CBC },
};

static const char *
id_to_name(const struct id_name *t, size_t n, unsigned id)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].id == id)
			return t[i].name;
	return "?";
}

bool
conf_suite_is_gcm(enum gw_suite s)
{
	return s == GW_SUITE_AES128_GCM16 || s == GW_SUITE_AES256_GCM16;
}

/* ---------- the key table ------------------------------------------------------ */

static const char *const idle_names[] = { "busy", "adaptive" };      /* enum gw_idle */
static const char *const role_names[] = { "inner", "outer" };        /* enum gw_role */
static const char *const dir_names[] = { "out", "in" };              /* enum gw_dir */
static const char *const onoff_names[] = { "off", "on" };            /* bool */
static const char *const sagen_dir_names[] = { "out", "in", "both" };
static const char *const install_names[] = { "after-start", "before-start" };   /* before_start */
static const char *const mode_names[] = { "l3", "l2" };             /* enum gw_port_mode */
static const char *const link_local_names[] = { "drop", "pass" };   /* link_local_pass */
static const char *const gw_mode_names[] = { "gateway", "middlebox" };   /* enum gw_mode */
static const char *const action_names[] = { "allow", "deny" };      /* enum gw_rule_action */
static const char *const nat_names[] = { "auto", "force", "off" };  /* enum gw_peer_nat */

#define GW struct gw_config
#define PORT struct gw_conf_port
#define SA struct gw_conf_sa
#define PEER struct gw_conf_peer
#define SAGEN struct gw_conf_sagen
#define BRIDGE struct gw_conf_bridge
#define HOST struct gw_conf_host
#define RULE struct gw_conf_rule
#define MBOXGEN struct gw_conf_mboxgen

/* Every key of every section kind, once. */
const struct conf_key conf_keys[K_MAX] = {
	[K_GW_MODE] = { SEC_GATEWAY, "mode", conf_key_choice, FIELD(GW, mode), SET(gw_mode_names),
		.def = "gateway", .doc = "gateway (a site gateway) or middlebox (a HIP-aware firewall)" },
	[K_WORKERS] = { SEC_GATEWAY, "workers", conf_key_number, FIELD(GW, workers),
		.lo = 1, .hi = GW_CONF_WORKERS_MAX, .def = "1",
		.doc = "worker lcores" },
	[K_IDLE] = { SEC_GATEWAY, "idle", conf_key_choice, FIELD(GW, idle), SET(idle_names),
		.def = "adaptive", .doc = "busy polling, or sleep when idle (shared CPUs)" },
	[K_HI] = { SEC_GATEWAY, "hi", conf_gateway_hi, FIELD(GW, hi_path),
		.doc = "this gateway's Host Identity: a private key file, mode 0600" },
	[K_PUZZLE_K] = { SEC_GATEWAY, "puzzle-k", conf_key_number, FIELD(GW, puzzle_k),
		.lo = 0, .hi = GW_CONF_PUZZLE_K_MAX, .def = "10",
		.doc = "initial puzzle difficulty K, bits (RFC 7401 4.1.2)" },
	[K_R1_RATE] = { SEC_GATEWAY, "r1-rate", conf_key_number, FIELD(GW, r1_rate),
		.lo = 0, .hi = GW_CONF_R1_RATE_MAX, .def = "20000",
		.doc = "R1s sent per second at most; 0 = no limit" },
	[K_ESP_TRANSFORMS] = { SEC_GATEWAY, "esp-transforms", conf_key_ids,
		LIST(GW, esp_transforms, n_esp_transforms), SET(esp_transform_table),
		.def = "aes-gcm16, aes256-cbc-sha256, aes128-cbc-sha256",
		.doc = "ESP transforms offered and accepted, preference order (RFC 7402 5.1.2)" },
	[K_DH_GROUPS] = { SEC_GATEWAY, "dh-groups", conf_key_ids,
		LIST(GW, dh_groups, n_dh_groups), SET(dh_group_table),
		.def = "nist-p256, nist-p384, modp3072",
		.doc = "Diffie-Hellman groups, preference order (RFC 7401 5.2.7)" },
	[K_HIP_CIPHERS] = { SEC_GATEWAY, "hip-ciphers", conf_key_ids,
		LIST(GW, hip_ciphers, n_hip_ciphers), SET(hip_cipher_table),
		.def = "aes128-cbc, aes256-cbc",
		.doc = "HIP_CIPHERs for the ENCRYPTED parameter, preference order (RFC 7401 5.2.8)" },
	[K_SA_LIFETIME] = { SEC_GATEWAY, "sa-lifetime", conf_gateway_lifetime,
		FIELD(GW, sa_lifetime_s), .def = "3600s, 1GiB",
		.doc = "rekey HIP-keyed SAs by UPDATE after this time and/or byte count" },
	[K_PMTU_AGE] = { SEC_GATEWAY, "pmtu-age", conf_gateway_pmtu_age, FIELD(GW, pmtu_age_s),
		.lo = GW_CONF_PMTU_AGE_MIN, .hi = GW_CONF_PMTU_AGE_MAX, .def = "600",
		.doc = "seconds a path MTU lowered by an ICMP error lasts (RFC 8201 4)" },
	[K_MBUFS] = { SEC_GATEWAY, "mbufs", conf_key_number, FIELD(GW, mbufs),
		.lo = GW_CONF_MBUFS_MIN, .hi = GW_CONF_MBUFS_MAX,
		.doc = "packet buffers in the pool; default: enough for every queue and ring" },
	[K_MBUF_SIZE] = { SEC_GATEWAY, "mbuf-size", conf_key_number, FIELD(GW, mbuf_size),
		.lo = GW_CONF_MBUF_SIZE_MIN, .hi = GW_CONF_MBUF_SIZE_MAX,
		.doc = "data room per buffer incl. headroom, bytes; default 2176" },
	[K_NEIGH_REFRESH] = { SEC_GATEWAY, "neighbor-refresh", conf_key_number,
		FIELD(GW, neighbor_refresh_s), .lo = 1, .hi = GW_CONF_NEIGH_REFRESH_MAX,
		.def = STR(GW_CONF_NEIGH_REFRESH_DEFAULT),
		.doc = "seconds between two walks over the neighbours learned by ARP / ND" },
	[K_MH_PROBE] = { SEC_GATEWAY, "multihome-probe-interval", conf_key_number,
		FIELD(GW, mh_probe_ms), .lo = GW_CONF_MH_PROBE_MIN, .hi = GW_CONF_MH_PROBE_MAX,
		.def = "1000", .doc = "ms between two probes of a multihoming path (RFC 8047)" },
	[K_MH_MISSES] = { SEC_GATEWAY, "multihome-probe-misses", conf_key_number,
		FIELD(GW, mh_misses), .lo = 1, .hi = 100, .def = "3",
		.doc = "probes unanswered in a row that make a multihoming path down" },
	[K_MH_FAILBACK] = { SEC_GATEWAY, "multihome-failback", conf_key_number,
		FIELD(GW, mh_failback_ms), .lo = 1, .hi = GW_CONF_MH_FAILBACK_MAX, .def = "5000",
		.doc = "ms a better path answers every probe before the SAs move back to it" },

	[K_DEVICE] = { SEC_PORT, "device", conf_key_string, FIELD(PORT, device),
		.required = true, .doc = "PCI address or vdev string; unique" },
	[K_ROLE] = { SEC_PORT, "role", conf_key_choice, FIELD(PORT, role), SET(role_names),
		.doc = "inner (the site) or outer (the WAN); gateway mode: required" },
	[K_MODE] = { SEC_PORT, "mode", conf_key_choice, FIELD(PORT, mode), SET(mode_names),
		.def = "l3", .doc = "l3 (route IP) or l2 (inner only: bridge the segment, [bridge])" },
	[K_ADDRESS] = { SEC_PORT, "address", conf_port_address, LIST(PORT, addrs, n_addrs),
		.doc = "interface addresses with prefix length, or dhcp (outer); required in mode l3" },
	[K_MAC] = { SEC_PORT, "mac", conf_port_mac, FIELD(PORT, mac),
		.doc = "unicast MAC to set on the port; default: the PMD's" },
	[K_NEIGHBORS] = { SEC_PORT, "neighbors", conf_port_neighbors, LIST(PORT, neigh, n_neigh),
		.doc = "static neighbours (IP MAC) on the port's networks" },
	[K_ROUTES] = { SEC_PORT, "routes", conf_port_routes, LIST(PORT, routes, n_routes),
		.doc = "extra networks behind a next hop on the port's networks" },
	[K_GATEWAY] = { SEC_PORT, "gateway", conf_port_gateway, FIELD(PORT, gateway4),
		.doc = "default next hops, at most one IPv4 and one IPv6" },
	[K_MTU] = { SEC_PORT, "mtu", conf_key_number, FIELD(PORT, mtu),
		.lo = GW_CONF_MTU_MIN, .hi = GW_CONF_MTU_MAX, .def = "1500",
		.doc = "IP MTU, bytes (>= 1280 with an IPv6 address)" },
	[K_MSS] = { SEC_PORT, "tcp-mss-clamp", conf_port_mss, FIELD(PORT, mss_clamp),
		.lo = GW_CONF_MSS_MIN, .hi = GW_CONF_MSS_MAX, .def = "auto",
		.doc = "clamp the MSS option of TCP SYNs: auto, off or bytes" },
	[K_UPLINK_PREF] = { SEC_PORT, "uplink-preference", conf_key_number, FIELD(PORT, uplink_pref),
		.lo = 1, .hi = 255, .doc = "outer port: an uplink for multihoming, lower preferred" },

	[K_DIRECTION] = { SEC_SA, "direction", conf_key_choice, FIELD(SA, dir), SET(dir_names),
		.required = true, .doc = "out or in" },
	[K_SPI] = { SEC_SA, "spi", conf_sa_spi, FIELD(SA, spi), .lo = GW_CONF_SPI_MIN, .hi = UINT32_MAX,
		.required = true, .doc = "SPI, decimal or 0x hex; unique per direction" },
	[K_SUITE] = { SEC_SA, "suite", conf_key_choice, FIELD(SA, suite), SET(conf_suite_names),
		.required = true, .doc = "ESP suite" },
	[K_KEY] = { SEC_SA, "key", conf_sa_key, FIELD(SA, key),
		.doc = "cipher key in hex (GCM: AES key then 4-byte salt)" },
	[K_AUTH_KEY] = { SEC_SA, "auth-key", conf_sa_auth_key, FIELD(SA, auth_key),
		.doc = "HMAC-SHA-256 key in hex (-sha256 suites)" },
	[K_LOCAL] = { SEC_SA, "local", conf_key_unicast, FIELD(SA, local),
		.required = true, .doc = "this gateway's outer address, on an outer port" },
	[K_REMOTE] = { SEC_SA, "remote", conf_key_unicast, FIELD(SA, remote),
		.required = true, .doc = "the peer gateway's outer address" },
	[K_PREFIXES] = { SEC_SA, "prefixes", conf_key_prefixes, LIST(SA, prefixes, n_prefixes),
		.required = true, .doc = "remote site prefixes: destinations (out), sources (in)" },
	[K_LOCAL_PREFIXES] = { SEC_SA, "local-prefixes", conf_key_prefixes,
		LIST(SA, local_prefixes, n_local_prefixes),
		.doc = "in SAs: inner destinations accepted (RFC 4301 5.2)" },
	[K_ESN] = { SEC_SA, "esn", conf_key_choice, FIELD(SA, esn), SET(onoff_names),
		.def = "off", .doc = "64-bit extended sequence numbers" },
	[K_STATE] = { SEC_SA, "state", conf_sa_state, FIELD(SA, state),
		.doc = "out GCM SAs: sequence-number high-water mark file" },
	[K_REPLAY] = { SEC_SA, "replay-window", conf_key_replay, FIELD(SA, replay_window),
		.def = "1024", .doc = "in SAs: anti-replay window, packets; 0 = off" },
	[K_UDP_ENCAP] = { SEC_SA, "udp-encap", conf_sa_udp_encap, FIELD(SA, udp_sport),
		.doc = "out SAs: UDP-encapsulated ESP (RFC 3948), SPORT,DPORT" },

	[K_BYPASS] = { SEC_POLICY, "bypass", conf_key_prefixes, LIST(GW, bypass, n_bypass),
		.doc = "destinations forwarded in clear from inner to outer" },

	[K_HIT] = { SEC_PEER, "hit", conf_peer_hit, FIELD(PEER, hit),
		.required = true, .doc = "the peer's HIT (ORCHIDv2), as `hipgw hit` prints it" },
	[K_LOCATOR] = { SEC_PEER, "locator", conf_peer_locators, LIST(PEER, locators, n_locators),
		.required = true, .doc = "the peer's outer addresses, preference order" },
	[K_PEER_LOCAL] = { SEC_PEER, "local", conf_peer_local, FIELD(PEER, local),
		.doc = "our outer address towards the peer" },
	[K_PEER_PREFIXES] = { SEC_PEER, "prefixes", conf_peer_prefixes, LIST(PEER, prefixes, n_prefixes),
		.doc = "prefixes of the site behind the peer; required unless in a [bridge]" },
	[K_PEER_NAT] = { SEC_PEER, "nat", conf_key_choice, FIELD(PEER, nat), SET(nat_names),
		.def = "auto", .doc = "HIP and ESP over UDP (RFC 5770): auto, force or off" },
	[K_PEER_NAT_KEEPALIVE] = { SEC_PEER, "nat-keepalive", conf_key_number,
		FIELD(PEER, nat_keepalive_s), .lo = 0, .hi = GW_CONF_NAT_KEEPALIVE_MAX_S, .def = "15",
		.doc = "NAT keepalive interval over UDP, s (RFC 5770 4.7); 0 = none" },

	[K_G_COUNT] = { SEC_SAGEN, "count", conf_key_number, FIELD(SAGEN, count),
		.lo = 1, .hi = GW_CONF_SAGEN_MAX, .required = true, .doc = "SAs per direction" },
	[K_G_DIRECTION] = { SEC_SAGEN, "direction", conf_sagen_direction, FIELD(SAGEN, out),
		SET(sagen_dir_names), .required = true, .doc = "out, in or both" },
	[K_G_SUITE] = { SEC_SAGEN, "suite", conf_key_choice, FIELD(SAGEN, suite), SET(conf_suite_names),
		.required = true, .doc = "ESP suite, as in [sa]" },
	[K_G_LOCAL] = { SEC_SAGEN, "local", conf_key_unicast, FIELD(SAGEN, local),
		.required = true, .doc = "outer address of an outer port" },
	[K_G_REMOTE] = { SEC_SAGEN, "remote", conf_key_unicast, FIELD(SAGEN, remote),
		.required = true, .doc = "the peer's outer address" },
	[K_G_SPI_SEED] = { SEC_SAGEN, "spi-seed", conf_key_seed, FIELD(SAGEN, spi_seed),
		.def = "1", .doc = "seed of the SPIs" },
	[K_G_PREFIXES] = { SEC_SAGEN, "prefixes", conf_sagen_block, FIELD(SAGEN, block),
		.required = true, .doc = "IPv4 block the SAs' prefixes are drawn from" },
	[K_G_PREFIX_LEN] = { SEC_SAGEN, "prefix-len", conf_key_number, FIELD(SAGEN, prefix_len),
		.lo = 1, .hi = GW_CONF_SAGEN_PLEN_MAX, .def = "24",
		.doc = "length of each SA's prefix" },
	[K_G_PREFIX_SEED] = { SEC_SAGEN, "prefix-seed", conf_key_seed, FIELD(SAGEN, prefix_seed),
		.def = "1", .doc = "seed of the prefix permutation" },
	[K_G_KEY_SEED] = { SEC_SAGEN, "key-seed", conf_key_seed, FIELD(SAGEN, key_seed),
		.def = "1", .doc = "seed of the keys" },
	[K_G_REPLAY] = { SEC_SAGEN, "replay-window", conf_key_replay, FIELD(SAGEN, replay_window),
		.def = "1024", .doc = "in SAs: anti-replay window, packets; 0 = off" },
	[K_G_BATCH] = { SEC_SAGEN, "batch", conf_key_number, FIELD(SAGEN, batch),
		.lo = 1, .hi = GW_CONF_SAGEN_BATCH_MAX, .def = "1024",
		.doc = "SAs installed per control-loop pass" },
	[K_G_INSTALL] = { SEC_SAGEN, "install", conf_key_choice, FIELD(SAGEN, before_start),
		SET(install_names), .def = "after-start",
		.doc = "after-start (while the workers run) or before-start" },

	[K_B_PORT] = { SEC_BRIDGE, "port", conf_bridge_port, FIELD(BRIDGE, port_name),
		.required = true, .doc = "the inner port in mode l2 whose segment is bridged" },
	[K_B_PEERS] = { SEC_BRIDGE, "peers", conf_bridge_peers,
		LIST(BRIDGE, peer_names, n_peers), .doc = "[peer] sections the segment is bridged to" },
	[K_B_SAS] = { SEC_BRIDGE, "sas", conf_bridge_sas, LIST(BRIDGE, sa_names, n_sas),
		.doc = "manually keyed [sa] sections (in and out) that carry the frames" },
	[K_B_MAC_TABLE] = { SEC_BRIDGE, "mac-table-size", conf_key_number,
		FIELD(BRIDGE, mac_table_size), .lo = 1, .hi = GW_MAC_ENTRIES_MAX,
		.def = "65536", .doc = "MAC table entries, learned and static" },
	[K_B_MAC_AGE] = { SEC_BRIDGE, "mac-age", conf_key_number, FIELD(BRIDGE, mac_age_s),
		.lo = GW_CONF_MAC_AGE_MIN, .hi = GW_MAC_AGE_MAX_S, .def = "300",
		.doc = "seconds a learned MAC lasts without a frame from it" },
	[K_B_FLOOD_RATE] = { SEC_BRIDGE, "flood-rate", conf_key_number, FIELD(BRIDGE, flood_rate),
		.lo = 0, .hi = GW_CONF_FLOOD_RATE_MAX, .def = "10000",
		.doc = "frames flooded per second at most; 0 = no limit" },
	[K_B_LINK_LOCAL] = { SEC_BRIDGE, "link-local", conf_key_choice,
		FIELD(BRIDGE, link_local_pass), SET(link_local_names), .def = "drop",
		.doc = "IEEE 802.1D link-local frames (01:80:C2:00:00:0x): drop or pass" },
	[K_B_STATIC] = { SEC_BRIDGE, "static", conf_bridge_static, LIST(BRIDGE, statics, n_statics),
		.doc = "static MAC entries: MAC [vlan N] local|PEER" },

	[K_M_PORTS] = { SEC_MBOX, "ports", conf_mbox_ports, FIELD(GW, mbox.port_names),
		.required = true, .doc = "the two [port] sections the box bridges" },
	[K_M_IDLE] = { SEC_MBOX, "idle-timeout", conf_key_number, FIELD(GW, mbox.idle_timeout_s),
		.lo = 1, .hi = GW_CONF_MBOX_IDLE_MAX, .def = "300",
		.doc = "seconds without HIP or ESP before an association ends" },
	[K_M_GRACE] = { SEC_MBOX, "rekey-grace", conf_key_number, FIELD(GW, mbox.rekey_grace_s),
		.lo = 0, .hi = GW_CONF_MBOX_GRACE_MAX, .def = "2",
		.doc = "seconds the old SPIs pass after a rekey completed" },
	[K_M_I1_RATE] = { SEC_MBOX, "i1-rate", conf_key_number, FIELD(GW, mbox.i1_rate),
		.lo = 0, .hi = GW_CONF_MBOX_I1_RATE_MAX, .def = "20",
		.doc = "I1s forwarded per second per source address; 0 = no limit" },
	[K_M_MAX_ASSOCS] = { SEC_MBOX, "max-associations", conf_key_number,
		FIELD(GW, mbox.max_assocs), .lo = 1, .hi = GW_MBOX_ASSOCS_MAX, .def = "4096",
		.doc = "associations tracked at most" },
	[K_M_STATE] = { SEC_MBOX, "state-file", conf_mbox_state, FIELD(GW, mbox.state_file),
		.doc = "file the verified associations are kept in across restarts" },
	[K_M_BYPASS] = { SEC_MBOX, "bypass", conf_key_prefixes, LIST(GW, mbox.bypass, mbox.n_bypass),
		.doc = "prefixes between which other traffic (not HIP, not ESP) crosses" },

	[K_H_HIT] = { SEC_HOST, "hit", conf_host_hit, FIELD(HOST, hit),
		.required = true, .doc = "the host's HIT (ORCHIDv2)" },
	[K_H_HI] = { SEC_HOST, "hi", conf_host_hi, FIELD(HOST, hi_path),
		.required = true, .doc = "its public key, a PEM file; must hash to hit" },

	[K_R_INITIATOR] = { SEC_RULE, "initiator", conf_rule_hit, FIELD(RULE, initiator),
		.required = true, .doc = "the initiator's HIT, or any" },
	[K_R_RESPONDER] = { SEC_RULE, "responder", conf_rule_hit, FIELD(RULE, responder),
		.required = true, .doc = "the responder's HIT, or any" },
	[K_R_ACTION] = { SEC_RULE, "action", conf_key_choice, FIELD(RULE, action),
		SET(action_names), .required = true, .doc = "allow or deny" },

	[K_MG_COUNT] = { SEC_MBOXGEN, "count", conf_key_number, FIELD(MBOXGEN, count),
		.lo = 1, .hi = GW_CONF_MBOXGEN_MAX, .required = true, .doc = "flows" },
	[K_MG_DESTINATIONS] = { SEC_MBOXGEN, "destinations", conf_mboxgen_block,
		FIELD(MBOXGEN, block), .required = true,
		.doc = "block of the flows' destinations, IPv4 or IPv6" },
	[K_MG_SPI_SEED] = { SEC_MBOXGEN, "spi-seed", conf_key_seed, FIELD(MBOXGEN, spi_seed),
		.def = "1", .doc = "seed of the SPIs (the [sa-gen] sequence)" },
};

#define KIND(t, m) .cfg_off = offsetof(GW, m), .stride = sizeof(((GW *)0)->m[0]), \
	.name_off = offsetof(t, name), .line_off = offsetof(t, line)

/* Every section kind, once. */
const struct sec_kind conf_kinds[SEC_MAX] = {
	[SEC_GATEWAY] = { "gateway", .max = 1 },
	[SEC_PORT] = { "port", true, GW_CONF_MAX_PORTS, KIND(PORT, ports), .finish = conf_port_finish },
	[SEC_SA] = { "sa", true, GW_CONF_MAX_SAS, KIND(SA, sas), .finish = conf_sa_finish },
	[SEC_POLICY] = { "policy", .max = 1 },
	[SEC_PEER] = { "peer", true, GW_CONF_MAX_PEERS, KIND(PEER, peers), .finish = conf_peer_finish },
	[SEC_SAGEN] = { "sa-gen", true, 1, .cfg_off = offsetof(GW, sagen),
		.name_off = offsetof(SAGEN, name), .line_off = offsetof(SAGEN, line),
		.finish = conf_sagen_finish },
	[SEC_BRIDGE] = { "bridge", true, GW_CONF_MAX_BRIDGES, KIND(BRIDGE, bridges),
		.finish = conf_bridge_finish },
	[SEC_MBOX] = { "middlebox", .max = 1 },
	[SEC_HOST] = { "host", true, GW_CONF_MAX_HOSTS, KIND(HOST, hosts), .finish = conf_host_finish },
	[SEC_RULE] = { "rule", true, GW_CONF_MAX_RULES, KIND(RULE, rules) },
	[SEC_MBOXGEN] = { "mbox-gen", true, 1, .cfg_off = offsetof(GW, mboxgen),
		.name_off = offsetof(MBOXGEN, name), .line_off = offsetof(MBOXGEN, line) },
};

#undef GW
#undef PORT
#undef SA
#undef PEER
#undef SAGEN
#undef BRIDGE
#undef HOST
#undef RULE
#undef MBOXGEN

bool
gw_config_key_info(unsigned i, struct gw_conf_key_info *info)
{
	if (i >= K_MAX || info == NULL)
		return false;
	info->section = conf_kinds[conf_keys[i].sec].name;
	info->key = conf_keys[i].name;
	info->def = conf_keys[i].def;
	info->required = conf_keys[i].required;
	info->doc = conf_keys[i].doc;
	return true;
}
const char *
gw_suite_name(enum gw_suite s)
{
	return (unsigned)s < GW_SUITE_MAX ? conf_suite_names[s] : "?";
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
gw_mode_name(enum gw_mode m)
{
	return m == GW_MODE_GATEWAY ? "gateway" : m == GW_MODE_MIDDLEBOX ? "middlebox" : "?";
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
