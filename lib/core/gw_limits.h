/* SPDX-License-Identifier: BSD-3-Clause
 * The limits that more than one layer of hipgw sizes or checks something by,
 * each named once with its unit, and beside it what it bounds. A limit that
 * one struct or file keeps to itself stays beside that struct (GW_SPD_MAX_SA
 * by struct gw_sadb); wire constants are in hipgw_wire.h and hip_wire.h.
 * Plain C that includes nothing: lib/hip and lib/hipwire, which have no DPDK,
 * use it as well as the data path. A layer that cannot include it (lib/hipcrypto,
 * usable on its own) keeps a copy, and a layer that sees both checks the copy
 * with _Static_assert.
 */
#ifndef HIPGW_LIMITS_H
#define HIPGW_LIMITS_H

/* ---- ports, lcores, bursts ------------------------------------------------ */

/* Ports of one gateway: the [port NAME] sections (struct gw_config ports[]),
 * struct gw_ctx ports[], a worker's TX queues, the per-lcore port counters
 * (struct gw_lcore_stats port_rx[], port_tx[], ctrl_looped[]). */
#define GW_PORTS_MAX                8

/* Worker lcores: [gateway] workers; struct gw_ctx's lcore ids and rings
 * (to_ctrl[], from_ctrl[], handoff_ring[][], slow_up[], slow_down[]). */
#define GW_WORKERS_MAX              16

/* Packets taken at once from an RX queue or a ring (rte_eth_rx_burst,
 * rte_ring_dequeue_burst) by a worker or the control lcore. */
#define GW_BURST_PACKETS            32

/* Packets one esp_outbound_burst / esp_inbound_burst call takes (lib/esp
 * handles them in one pass, on arrays of this size). */
#define GW_ESP_BURST_MAX_PACKETS    64

/* ---- ESP SAs ----------------------------------------------------------------- */

/* Anti-replay window of an in SA, packets (RFC 4303 3.4.3 asks 32 at least):
 * [sa] / [gateway] replay-window, struct esp_sa_params replay_window, struct
 * replay_window win. 0 (off) or a multiple of the step: whole 64-bit words
 * of the window's bitmap. HIP-keyed SAs get the default. */
#define GW_REPLAY_WINDOW_DEFAULT_PACKETS 1024
#define GW_REPLAY_WINDOW_MAX_PACKETS     4096
#define GW_REPLAY_WINDOW_STEP_PACKETS    64

/* ---- HIP keying ---------------------------------------------------------------- */

/* Locators (outer addresses) of one [peer]: struct gw_conf_peer locators[],
 * the engine's peer (hip_host_add_peer, HIP_MAX_LOCATORS). */
#define GW_PEER_LOCATORS_MAX        4

/* R1s per second at most: [gateway] r1-rate, struct hip_host_cfg r1_rate
 * (HIP_R1_RATE_MAX). */
#define GW_R1_RATE_MAX_PER_S        10000000u

/* The [gateway] preference lists, IDs: struct gw_config and struct
 * hip_host_cfg esp_transforms[] (no more than RFC 7402 5.1.2 lets a sender
 * offer, HIP_ESP_SUITES_MAX), dh_groups[], hip_ciphers[] (no more than
 * RFC 7401 5.2.8 allows, HIP_CIPHER_IDS_MAX). */
#define GW_HIP_ESP_TRANSFORMS_MAX   6
#define GW_HIP_DH_GROUPS_MAX        6
#define GW_HIP_CIPHERS_MAX          4

/* Puzzle difficulty K, bits (RFC 7401 5.2.4): [gateway] puzzle-k at most,
 * and the most the engine solves as initiator (HIP_PUZZLE_K_ACCEPT). */
#define GW_PUZZLE_K_MAX_BITS        28

/* ---- packet sizes and path MTUs ---------------------------------------------- */

/* Largest port mtu, bytes of IP packet: [port] mtu; struct gw_ctx's large
 * mbufs (GW_BIG_MBUF_ROOM) hold a frame of it. */
#define GW_PORT_MTU_MAX_BYTES       9000

/* Longest a lowered path MTU lasts before it is raised again, seconds:
 * [gateway] pmtu-age, --test-pmtu-age. */
#define GW_PMTU_AGE_MAX_S           86400u

/* ---- L2 bridging ------------------------------------------------------------- */

/* MAC learning table of one bridge (lib/tables/gw_mac.h), entries: learned
 * and static MAC + VLAN keys together. The default when the config says
 * nothing, and the most a table may be created with. */
#define GW_MAC_ENTRIES_DEFAULT      65536u
#define GW_MAC_ENTRIES_MAX          1048576u

/* A learned MAC not seen for this long is deleted, seconds (static entries
 * never age); the most an age may be. */
#define GW_MAC_AGE_DEFAULT_S        300u
#define GW_MAC_AGE_MAX_S            86400u

/* The longest frame an l2 port bridges is its [port] mtu plus this many bytes:
 * the Ethernet header (14) with two VLAN tags (802.1ad + 802.1Q, 2 x 4), no
 * FCS; with the default mtu 1500: 1522 (1514 untagged, 1518 with one tag:
 * what follows the header and its tags is at most mtu). A longer frame is
 * dropped (l2_too_long). */
#define GW_L2_FRAME_OVER_MTU_BYTES  22

/* Indirect mbufs (no data room) per worker for the outer fragments of ESP
 * packets of bridge SAs (lib/dp/gw_frag_out.c): one per fragment until it is
 * sent, so this bounds the fragments in flight, and the direct mbufs of
 * their headers taken from the packet pool. */
#define GW_FRAG_OUT_MBUFS_PER_WORKER 1024

/* ---- middlebox mode ------------------------------------------------------------ */

/* ESP flows (destination, SPI) one middlebox flow table holds at most
 * (lib/tables/gw_mbox_flow.h), and the associations its tracker follows at
 * most ([middlebox] max-associations; lib/mbox MBOX_ASSOCS_MAX). */
#define GW_MBOX_FLOWS_MAX           1048576u
#define GW_MBOX_ASSOCS_MAX          65536u

/* Flow table slots the runtime gives each association: two directions, each
 * with its old and new SPI during a rekey, each SPI bound to up to two
 * locators (RFC 7402 ESP_INFO, RFC 8046 mobility); [mbox-gen] flows come on
 * top. GW_MBOX_ASSOCS_MAX of them must fit in GW_MBOX_FLOWS_MAX. */
#define GW_MBOX_FLOWS_PER_ASSOC     8u
_Static_assert(GW_MBOX_ASSOCS_MAX * GW_MBOX_FLOWS_PER_ASSOC <= GW_MBOX_FLOWS_MAX,
	       "every association's flows fit in one flow table");

#endif
