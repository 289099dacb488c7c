/* SPDX-License-Identifier: BSD-3-Clause
 * Everything the worker lcores and the control lcore share: ports, routes,
 * neighbours, SA tables and the rings between them.
 * Built by lib/runtime from the config before any lcore starts; afterwards only the
 * control lcore writes (neighbours, SAs, a port's addresses, routes), with
 * lock-free readers.
 */
#ifndef HIPGW_CTX_H
#define HIPGW_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_hash.h>
#include "gw_config.h"
#include "gw_limits.h"
#include "gw_mac.h"
#include "gw_mbox_flow.h"
#include "gw_pmtu.h"
#include "gw_route.h"
#include "gw_peerloc.h"
#include "gw_portaddr.h"
#include "gw_sa.h"
#include "gw_stats.h"

#define GW_RING_SIZE    1024
#define GW_HANDOFF_RING 512             /* per worker pair, inbound single writer */

/* Large mbufs (gw_ctx.pool_big): a multi-segment frame (a jumbo frame that
 * the PMD chained) or a reassembled ESP packet longer than its first buffer
 * is copied into one (lib/dp wk_flatten). Data room after the headroom: the
 * largest frame a port carries, Ethernet 14 + GW_PORT_MTU_MAX_BYTES, plus the most
 * ESP tunnel mode adds to an inner packet of that size (outer IPv6 40, ESP 8,
 * IV 16, padding 15, trailer 2, ICV 16: 97), rounded up; bytes. */
#define GW_BIG_MBUF_ROOM        9216
#define GW_BIG_MBUFS_PER_WORKER 512     /* mbufs of the large pool per worker */
_Static_assert(GW_BIG_MBUF_ROOM >= RTE_ETHER_HDR_LEN + GW_PORT_MTU_MAX_BYTES + 97,
	       "a large mbuf holds the largest frame and ESP around the largest inner packet");

struct gw_port {
	char name[GW_CONF_NAME_MAX];
	uint16_t port_id;               /* DPDK port id */
	enum gw_role role;
	uint16_t mtu;                   /* bytes of IP packet */
	int mss_clamp;                  /* config value */
	/* net_af_packet without ctrl_txq: the control lcore's own AF_PACKET
	 * socket, -1: none (with neither, the control lcore sends through worker
	 * 0's ring). On such a port the workers free frames from the port's own
	 * MAC (the kernel's loop-back copies: ctrl_looped); beside mac, which
	 * they read with it per frame */
	int ctrl_fd;
	struct rte_ether_addr mac;
	/* its own addresses: changed at run time by the control lcore alone
	 * (gw_ctrl_set_address), read lock-free (gw_portaddr.h) */
	struct gw_port_addrs addrs;
	uint64_t tx_dropped;            /* frames the PMD refused, summed over lcores by readers */
	bool rss_spi;                   /* RSS hashes ESP SPIs (RTE_ETH_RSS_ESP): one SPI, one queue */
	bool dhcp;                      /* address = dhcp: the workers punt DHCP server
	                                 * replies (GW_PUNT_DHCP) to the control lcore's client */
	int ctrl_txq;                   /* the control lcore's own TX queue, -1: none (the PMD
	                                 * has no queue to spare) */
};

/* [sa-gen] installer progress: the control lcore writes, telemetry reads. */
struct gw_sagen_progress {
	uint32_t next;                  /* next SA index to install (all directions) */
	uint32_t spi_j;                 /* position in the SPI sequence (gw_sagen_spi_next) */
	uint32_t done;                  /* 1 once every SA is installed */
	uint32_t failed;                /* 1 when an install failed (logged; the rest stay out) */
	uint64_t tsc_start, tsc_end;    /* before the first and after the last batch */
	size_t heap_bytes;              /* DPDK heap the install batches allocated (sum of
					 * each batch's heap delta: other lcores' allocations
					 * between batches are not in it) */
	int outer_port;                 /* index of the outer port of `local` */
	struct gw_sa tmpl_out, tmpl_in; /* fields every generated SA of a direction shares */
};

/* Remotes of one bridge: the other sites it reaches, each through one out
 * slot (a HIP peer's slot, or a manual out SA's). A MAC table entry's `where`
 * is an index into remote_slot[] (or GW_MAC_LOCAL). */
#define GW_BRIDGE_REMOTES_MAX GW_CONF_MAX_BRIDGE_PEERS

/* An L2 bridge ([bridge]): its l2 port, its MAC table, and its remotes. */
struct gw_bridge {
	struct gw_mac_table *mac;       /* readers: workers; writer: the control lcore */
	unsigned port;                  /* index into ports[] */
	uint32_t remote_slot[GW_BRIDGE_REMOTES_MAX];  /* gw_sadb_out slot per remote */
	unsigned n_remotes;
	bool link_local_pass;           /* 01:80:C2:00:00:0x bridged (else l2_link_local) */
};

/* A worker's request to the control lcore to learn a source MAC (the worker
 * never writes a MAC table): MAC `mac` on VLAN `vlan` of bridge index
 * `bridge` was seen at `where` (GW_MAC_LOCAL or a remote index). One element
 * of ctx->l2_learn[w], 16 bytes (rte_ring_create_elem: a multiple of 4). */
struct gw_l2_learn {
	uint8_t mac[GW_MAC_ADDR_BYTES];
	uint16_t vlan;
	uint32_t where;
	uint8_t bridge;                 /* index into ctx->bridges[] */
	uint8_t pad[3];
};
#define GW_L2_LEARN_RING 256            /* learn requests per worker ring (SP/SC) */

/* A NAT rebinding seen by a worker (RFC 5770, docs/nat.md): ESP of in SA
 * `spi` (host order) authenticated, with the highest sequence number so far
 * (`seq`, its low 32 bits), from address src (family 4 or 6) and UDP source
 * port `sport` (host order), not the SA's path. An element of gw_ctx.nat_ring. */
struct gw_nat_event {
	uint32_t spi;
	uint32_t seq;
	uint16_t sport;
	uint8_t family;
	uint8_t pad;
	uint8_t src[16];
};
#define GW_NAT_RING_SIZE       256     /* events the ring holds */
#define GW_NAT_REPOST_PACKETS  256     /* packets from an unchanged new path between posts */

struct gw_ctx {
	const struct gw_config *cfg;
	struct gw_port ports[GW_PORTS_MAX];
	unsigned n_ports;
	struct gw_routes routes;
	struct rte_hash *neigh;
	uint64_t neigh_gen;                          /* bumped by control on every neighbour change */
	struct gw_sadb sadb;
	/* [peer] locators for ESP with an unknown SPI (gw_peerloc.h); NULL
	 * without [peer] sections: such ESP is a plain no_sa drop */
	struct gw_peerloc *peerloc;
	struct rte_mempool *pool;
	struct rte_mempool *pool_big;                /* GW_BIG_MBUF_ROOM data room */
	/* no data room: the indirect mbufs of the outer fragments of bridge SAs'
	 * ESP (GW_FRAG_OUT_MBUFS_PER_WORKER per worker; lib/dp/gw_frag_out.c) */
	struct rte_mempool *pool_frag;
	unsigned n_workers;
	unsigned worker_lcore[GW_WORKERS_MAX];
	struct rte_ring *to_ctrl[GW_WORKERS_MAX];    /* worker -> control (SP/SC) */
	struct rte_ring *from_ctrl[GW_WORKERS_MAX];  /* control -> worker (SP/SC) */
	/* Inbound single writer (n_workers > 1): handoff[to][from] carries ESP
	 * packets from worker `from` to the worker `to` that owns their SA (SP/SC). */
	bool handoff;
	struct rte_ring *handoff_ring[GW_WORKERS_MAX][GW_WORKERS_MAX];
	/* --slow-path (diagnostic): every frame goes worker -> slow_up[w] -> control
	 * lcore (SA / SPD lookup, stamped into gw_meta) -> slow_down[w'] -> worker. */
	bool slow_path;
	struct rte_ring *slow_up[GW_WORKERS_MAX];    /* SP/SC */
	struct rte_ring *slow_down[GW_WORKERS_MAX];  /* SP/SC */
	enum gw_idle idle;
	volatile bool stop;                          /* set by the control lcore on exit */
	volatile uint64_t last_rx_tsc;               /* any worker: TSC of the last received burst */
	struct gw_sagen_progress sagen;
	struct gw_pmtu pmtu;                         /* lowered path MTUs; control lcore only */
	struct gw_bridge bridges[GW_CONF_MAX_BRIDGES];
	unsigned n_bridges;
	/* 1 + index into bridges[] of an l2 port's bridge, 0: an l3 port */
	uint8_t port_bridge[GW_PORTS_MAX];
	/* worker -> control, struct gw_l2_learn elements (SP/SC); NULL without
	 * bridges */
	struct rte_ring *l2_learn[GW_WORKERS_MAX];
	/* workers -> control, struct gw_nat_event elements (MP/SC): NAT
	 * rebindings seen on watched in SAs (gw_sa.nat_watch); NULL: none posted */
	struct rte_ring *nat_ring;
	/* middlebox mode ([gateway] mode = middlebox): 1 + index into ports[] of
	 * the other port of a port's pair, 0: not a bridged port; the ESP flows
	 * that may cross (readers: workers; writer: the control lcore) */
	uint8_t mbox_peer[GW_PORTS_MAX];
	struct gw_mbox_flows *mbox_flows;
};

/* True when `ip` (family 4/6) is one of port p's own addresses (live or
 * deprecated, gw_portaddr.h). Workers per packet, the control lcore. */
static inline bool
gw_port_owns(const struct gw_port *p, uint8_t family, const uint8_t *ip)
{
	return gw_paddr_owns(&p->addrs, family, ip);
}

#endif
