/* SPDX-License-Identifier: BSD-3-Clause
 * Control lcore, slow path: ARP (RFC 826) and IPv6
 * neighbour discovery (RFC 4861) for the gateway's addresses and next hops,
 * ICMP / ICMPv6 echo to its own addresses (RFC 792, RFC 4443), the ICMP errors
 * the workers ask for (time exceeded, fragmentation needed, packet too big),
 * IPv4 fragmentation before encryption, path MTU discovery for our ESP (ICMP
 * errors on outer ports, RFC 4301 section 8.2: gw_pmtu_icmp.c), and the small
 * bounded queue of packets waiting for a next hop to resolve. Talks to
 * workers only through rte_ring.
 */
#ifndef HIPGW_CTRL_H
#define HIPGW_CTRL_H

#include <rte_mbuf.h>
#include "gw_ctx.h"

struct gw_ctrl;

/* Create the control state. Returns NULL on no memory. */
struct gw_ctrl *gw_ctrl_create(struct gw_ctx *ctx);
void gw_ctrl_free(struct gw_ctrl *c);

/* One pass: drain the workers' rings and handle what came. Per worker, the
 * punted packets are taken first, then its MAC learn requests are applied
 * (the whole ring), then the packets handled: a learn request a worker made
 * before it punted a packet is in the table before the control lcore answers
 * that packet. Returns the number of packets and learn requests handled
 * (0 = idle). */
unsigned gw_ctrl_poll(struct gw_ctrl *c);

/* What the layers above the control lcore (HIP) plug in. Each hook consumes m. */
struct gw_ctrl_hooks {
	void *ctx;
	/* A HIP packet (IP protocol 139) to one of our addresses: the Ethernet
	 * frame as received on `port`. */
	void (*hip_input)(void *ctx, struct rte_mbuf *m, unsigned port);
	/* An inner frame (received on `port`) for out slot `slot`, which has no SA
	 * yet: stage it and start keying. */
	void (*no_sa)(void *ctx, struct rte_mbuf *m, unsigned port, unsigned slot);
	/* A BEET packet an SA delivered (RFC 7402 3.1): m starts at the IPv6
	 * header rebuilt from the SA's HITs (the peer's -> ours), no L2. */
	void (*beet_input)(void *ctx, struct rte_mbuf *m);
	/* ESP received on `port` for an SPI the SAD does not know, from a
	 * locator of peer index `peer` (gw_peerloc.h; the workers rate-limit
	 * these): m starts at its IP header, no L2. The hook drops it as no_sa
	 * (it cannot be decrypted) and may start a Base Exchange with the peer. */
	void (*unknown_spi)(void *ctx, struct rte_mbuf *m, unsigned port, unsigned peer);
	/* Middlebox mode: a HIP packet (IP protocol 139) crossing the box,
	 * received on bridged port `port`: the Ethernet frame unchanged, one
	 * segment, its IP header at byte gw_meta(m)->l3_off. The hook forwards
	 * it out of the pair's other port (gw_ctrl_tx_frame) or drops it. */
	void (*mbox_hip)(void *ctx, struct rte_mbuf *m, unsigned port);
};

/* Install hooks (copied). Without hooks, HIP and BEET packets drop as policy
 * and slots without SA and unknown SPIs drop as no_sa, a middlebox's HIP as
 * mbox_hip. */
void gw_ctrl_set_hooks(struct gw_ctrl *c, const struct gw_ctrl_hooks *h);

/* Send the complete Ethernet frame m as it is on port `port` (the control
 * lcore's own TX queue or packet socket where the port has one, else worker
 * 0's ring; full: ring_full). Consumes m. */
void gw_ctrl_tx_frame(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);
/* Count one drop of `reason` on the control lcore and free m. */
void gw_ctrl_drop(struct gw_ctrl *c, struct rte_mbuf *m, enum gw_drop reason);
/* The control lcore's counters (its gw_stats slot). */
struct gw_lcore_stats *gw_ctrl_stats(struct gw_ctrl *c);

/* Send an IP packet of the gateway's own (m's data starts at the IPv4/IPv6
 * header; checksums done): routed by its destination, Ethernet added, the next
 * hop resolved by ARP/ND first if needed (bounded queue). Consumes m. */
void gw_ctrl_send_ip(struct gw_ctrl *c, struct rte_mbuf *m);
/* gw_ctrl_send_ip, but out of port `port` to next hop `via` (NULL: the
 * destination is on-link), whatever the routes say: a multihoming probe
 * takes its path's uplink (RFC 8047). No such port or a next hop of another
 * family: dropped (no_route). Consumes m. */
void gw_ctrl_send_ip_via(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port,
			 const struct gw_addr *via);

/* Hand an Ethernet frame received on inner port `port` back to the worker's
 * outbound path (staged packets once their SA exists). Consumes m. */
void gw_ctrl_reinject(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port);

/* Hand the ESP payload (EtherIP + frame, RFC 3378) of a frame received on
 * an l2 port (as the worker punted it: GW_PUNT_NO_SA, its port in gw_meta)
 * to a worker to be sent in ESP (RFC 4303) through out slot `slot`'s SA,
 * that remote's copy only (a staged frame once the slot has an SA). Still no
 * SA there: dropped as no_sa by the worker. Consumes m. */
void gw_ctrl_send_l2(struct gw_ctrl *c, struct rte_mbuf *m, unsigned slot);

/* Periodic work (call every GW_CTRL_TICK_MS): ARP/ND retries, expiry of queued packets
 * (dropped as no_neighbor after GW_NEIGH_TRIES requests), lowered path MTUs
 * whose pmtu-age is up back to their port's MTU, every [gateway]
 * neighbor-refresh seconds the walk over the learned neighbours
 * (gw_neigh_refresh: ask again, forget those that do not answer), and the
 * bridges' MAC tables aged and reclaimed (gw_l2_learn.c). */
void gw_ctrl_tick(struct gw_ctrl *c);
/* (gw_ctrl_tick also withdraws old addresses whose GW_ADDR_HOLD_MS is over and
 * frees their slots after the workers' grace period: gw_addr_set.c.) */
#define GW_CTRL_TICK_MS 100  /* ms between gw_ctrl_tick calls of gw_ctrl_run: ARP/ND retries,
			      * SA reclaim, GCM state, MAC ageing, idle exit */

/* The control lcore's own send-only AF_PACKET socket on a net_af_packet port
 * (gw_ctrlsock.c): bound to the port's interface (info->if_index, else the
 * iface= devarg of pc->device), PACKET_QDISC_BYPASS as the PMD's qdisc_bypass
 * devarg (default 1). Returns the fd (non-blocking, close-on-exec), or -1 with
 * the reason in why. packet(7). */
struct rte_eth_dev_info;
int gw_ctrlsock_open(const struct gw_conf_port *pc, const struct rte_eth_dev_info *info,
		     char *why, size_t whylen);

/* Work that a layer above the control lcore adds to its loop (HIP keying,
 * lab features). Every member may be NULL. */
struct gw_ctrl_task {
	void *arg;
	/* Every pass of the loop; returns the work it did (packets, SAs; 0: none,
	 * which lets an idle loop sleep). */
	unsigned (*poll)(void *arg);
	/* Every tick_ms (ms). */
	void (*tick)(void *arg);
	uint32_t tick_ms;
	/* On stop, before the rings drain: announce it (HIP CLOSE, RFC 7401
	 * section 5.3.7); tick keeps running for a short grace time after. */
	void (*close)(void *arg);
};
#define GW_CTRL_TASKS_MAX 4

/* The control lcore's loop (gw_ctrl_loop.c), on the calling (main) lcore once
 * the workers run: gw_ctrl_poll, gw_ctrl_request_poll and t[0..n-1] (at most
 * GW_CTRL_TASKS_MAX, in that order) every pass, ARP/ND, SA reclaim and GCM sequence state every
 * 100 ms, until *signalled is set or no packet arrived for idle_exit_ms (0:
 * never). Then the shutdown: the tasks' close, the rings drained (bounded),
 * ctx->stop set and the workers waited for, their last punted packets
 * handled. */
void gw_ctrl_run(struct gw_ctrl *c, struct gw_ctx *ctx, const struct gw_ctrl_task *t, unsigned n,
		 volatile int *signalled, uint64_t idle_exit_ms);

/* ---- A port's address changes at run time (RFC 8046 mobility) ----
 * gw_ctrl_set_address (gw_addr_set.c), on the control lcore only: outer port
 * `port`'s address of addr's family (the one the control lcore sends from,
 * our local locator there) becomes addr (host part kept: 198.51.100.7/24).
 * In this order: the new address published to the workers (gw_portaddr.h);
 * it becomes the port's source address of its family (ARP / ND, ICMP,
 * gw_ctrl_send_ip, what lib/keying takes as our locator); the connected route
 * of its network added; with gw (family != 0) the port's default route of
 * that family and every route through the port's old gateway go through gw;
 * the old network's connected route removed (then an RCU grace period of the
 * route readers); a gratuitous ARP (RFC 5227 section 3, an ARP announcement)
 * or an unsolicited NA to all-nodes (RFC 4861 section 7.2.6) for the new
 * address; an ARP / ND request for gw (RFC 826, RFC 4861 7.2.2); the
 * on_address hooks. The old address stays ours, deprecated (RFC 8046 section
 * 5.1: packets in flight to the old locator, and the peer sends to it until
 * it processed our UPDATE), for GW_ADDR_HOLD_MS: ESP to it is still taken,
 * ARP / ND still answered, nothing sent from it; then it is withdrawn, and its
 * slot is reused only after a grace period of the workers (gw_ctrl_tick).
 * The same address again with the same length and gateway changes nothing.
 *
 * Returns 0 with what it did in err ("198.51.100.7/24, was 192.0.2.1",
 * "unchanged"), or -1 with a one-line reason in err (nothing changed): unknown
 * port, an inner, l2 or middlebox port, no such family, a bad prefix (length
 * 0, over 32 / 128; an IPv4 network or broadcast address; unspecified,
 * loopback, multicast), a gateway of the other family, off-link (outside
 * addr's prefix) or equal to addr, an address another port has or whose
 * network overlaps another port's, a peer's locator or an [sa]'s remote, no
 * free slot (the previous change's old address still being withdrawn), route
 * table full. */
int gw_ctrl_set_address(struct gw_ctrl *c, unsigned port, const struct gw_prefix *addr,
			const struct gw_addr *gw, char *err, size_t errlen);
#define GW_ADDR_HOLD_MS 2000   /* ms an old address stays ours after a change: as long as
				* lib/keying keeps a replaced in SA for packets in flight */

/* A layer above that follows our addresses (lib/keying: tell the HIP engine,
 * UPDATE with LOCATOR_SET, RFC 8046 section 3.2; move the SAs' local
 * address). on_address runs on the control lcore inside gw_ctrl_set_address,
 * after the new address is published and routed and while the old one is
 * still ours (deprecated): port: index into ctx->ports; old: the address it
 * replaced (family, host part, length), NULL when the port had none of that
 * family; new_addr: the new one. Both point to copies valid during the call. */
struct gw_ctrl_addr_hook {
	void *ctx;
	void (*on_address)(void *ctx, unsigned port, const struct gw_prefix *old,
			   const struct gw_prefix *new_addr);
};
#define GW_CTRL_ADDR_HOOKS_MAX 4
/* Subscribe h (copied). Returns 0, or -1 when GW_CTRL_ADDR_HOOKS_MAX are in. */
int gw_ctrl_add_address_hook(struct gw_ctrl *c, const struct gw_ctrl_addr_hook *h);

/* Control lcore: port `port`'s address of `family` that the control lcore
 * sends from (our local locator on that port: the one gw_ctrl_set_address
 * set last, else the config's first) into *out. Returns 0, or -1 when the
 * port has none of that family. */
int gw_ctrl_source_addr(const struct gw_ctrl *c, unsigned port, uint8_t family,
			struct gw_prefix *out);

/* The index of the port named `name` in ctx->ports, or -1. */
int gw_ctrl_port_index(const struct gw_ctx *ctx, const char *name);

/* ---- `address = dhcp` ports (gw_dhcp_port.c) ----
 * The control lcore runs one DHCPv4 client (lib/dhcp, RFC 2131) per port
 * whose gw_port.dhcp is set: created with the controller, ticked from
 * gw_ctrl_tick, fed the frames the workers punt (GW_PUNT_DHCP). A lease bound
 * or changed becomes the port's IPv4 address and gateway (gw_ctrl_set_address,
 * which also tells lib/keying); a renewal changes nothing; a refused offer or
 * ACK, a refused address and a lost lease are logged, the port keeping what
 * it has. */
#define GW_CTRL_DHCP_COUNTERS 40   /* >= lib/dhcp's DHCP_CNT_COUNT */
#define GW_CTRL_DHCP_TEXT     96   /* bytes of the last refusal's text, NUL included */
struct gw_ctrl_dhcp_info {
	uint32_t seq;                  /* odd while the control lcore writes */
	char state[16];                /* "init", "selecting", "bound", ... */
	struct gw_prefix lease;        /* family 0: no lease */
	struct gw_addr router;         /* family 0: none */
	uint32_t lease_s;              /* seconds granted */
	uint64_t counters[GW_CTRL_DHCP_COUNTERS];   /* by gw_ctrl_dhcp_counter_name */
	char last_reject[GW_CTRL_DHCP_TEXT];
};
/* Any thread: a consistent copy of port `port`'s client state into *out.
 * Returns 0, or -1 when the port has no DHCP client. */
int gw_ctrl_dhcp_read(const struct gw_ctrl *c, unsigned port, struct gw_ctrl_dhcp_info *out);
/* The name of counter i ("tx_discover", ...), NULL past the last. */
const char *gw_ctrl_dhcp_counter_name(unsigned i);
/* Port `port`'s name ("?" out of range). */
const char *gw_ctrl_port_name(const struct gw_ctrl *c, unsigned port);

/* ---- Requests from other threads (telemetry) to the control lcore ----
 * One request at a time in a single slot (gw_ctrl_req.c): the caller fills
 * it and waits; the control loop runs it on its next pass and answers. */
#define GW_CTRL_MSG_MAX 128     /* bytes of a request's one-line answer, NUL included
				 * (RTE_TEL_MAX_STRING_LEN: one telemetry string) */
enum gw_ctrl_req_kind { GW_CTRL_REQ_SET_ADDRESS = 1 };
struct gw_ctrl_request {
	enum gw_ctrl_req_kind kind;
	char port[GW_CONF_NAME_MAX];    /* SET_ADDRESS: the port's name */
	struct gw_prefix addr;          /* SET_ADDRESS: gw_ctrl_set_address's addr */
	struct gw_addr gw;              /* SET_ADDRESS: its gateway, family 0: none */
	int rc;                         /* answer: 0, or -1 with msg */
	char msg[GW_CTRL_MSG_MAX];      /* answer: the error, or what was done */
};
/* Any thread but the control lcore: hand r to the control lcore and wait up
 * to timeout_ms (ms) for its answer, into r->rc and r->msg. Returns 0 when
 * answered; -1 when another request is in the slot or it was not taken in
 * time (then it was withdrawn and never runs: nothing changed). */
int gw_ctrl_request(struct gw_ctrl *c, struct gw_ctrl_request *r, uint32_t timeout_ms);
/* Control lcore (gw_ctrl_run, every pass): run the waiting request. Returns
 * 1 when it ran one, else 0. */
unsigned gw_ctrl_request_poll(struct gw_ctrl *c);

#endif
