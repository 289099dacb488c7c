/* SPDX-License-Identifier: BSD-3-Clause
 * ESP data path: security associations, crypto through intel-ipsec-mb, outbound
 * encapsulation and inbound decapsulation in ESP tunnel mode (RFC 4303), with the
 * anti-replay window of RFC 4303 section 3.4.3 and ECN per RFC 6040.
 *
 * This layer knows ESP and the outer IP header only: no ports, no routing, no
 * Ethernet, no policy. Callers hand it bursts of mbufs whose data starts at the IP
 * header (no L2 header) and get a drop reason per packet back.
 *
 * Integration notes:
 * - Threads: esp_lib_init() once after rte_eal_init(), before workers start; it
 *   makes one intel-ipsec-mb manager per EAL lcore (plus one shared by all
 *   non-EAL threads, which must then not run bursts concurrently). The bursts use
 *   the calling lcore's manager and statistics slot: no locks.
 * - An outbound SA may be used by several lcores at once: sequence numbers are
 *   reserved per burst with one compare-and-swap, so none (and no GCM nonce) is
 *   ever used twice. An inbound SA must be processed by one lcore at a time (the
 *   anti-replay window has a single writer): lib/dp gives each in SA an owner
 *   worker (gw_sa.owner) and hands packets received elsewhere to it.
 * - esp_sa_create / esp_sa_free / esp_sa_set_seq_limit run on the control lcore;
 *   free an SA only once no worker can still see it (RCU grace period).
 * - Room: outbound prepends at most 72 bytes (IPv6 40 + UDP 8 + ESP 8 + IV 16) into the
 *   headroom and appends at most 33 (padding 15 + trailer 2 + ICV 16) into the
 *   tailroom; a packet without that room is dropped as malformed. Default mbufs
 *   (RTE_PKTMBUF_HEADROOM 128) leave 56 bytes for the caller's L2 header.
 * - UDP encapsulation (RFC 3948): an out SA whose path has ports sends each
 *   packet with a UDP header between the outer IP header and ESP: IPv4 with
 *   checksum 0 (RFC 3948 section 2.1), IPv6 with the checksum computed (RFC
 *   8200 section 8.1: zero is not allowed; the RFC 6935 / 6936 exception
 *   would need the peer configured for it). esp_udp_demux takes it off on
 *   the way in; the inbound burst itself only sees ESP.
 * - Chained mbufs are linearised (rte_pktmbuf_linearize, no allocation); if the
 *   first segment lacks room, or the segments' lengths disagree with pkt_len
 *   or nb_segs, they are dropped as malformed. Callers with packets larger
 *   than one buffer copy them into a buffer that fits first (lib/dp does).
 * - The outer IPv4 header checksum is computed in software (no offload flag set).
 *   Inbound verifies it unless the mbuf says RTE_MBUF_F_RX_IP_CKSUM_GOOD.
 */
#ifndef HIPGW_ESP_H
#define HIPGW_ESP_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#include "gw_drop.h"
#include "gw_limits.h"   /* GW_ESP_BURST_MAX_PACKETS, GW_REPLAY_WINDOW_* */
#include "gw_types.h"    /* enum gw_suite, struct gw_addr */

struct esp_sa;   /* opaque; cache-aligned, one per direction and SPI */

struct esp_sa_params {
	uint32_t spi;               /* host byte order */
	enum gw_dir dir;            /* GW_DIR_OUT or GW_DIR_IN */
	enum gw_suite suite;
	const uint8_t *key;         /* GCM: key || 4-byte salt (RFC 4106 8.1); CBC: AES key; NULL suite: none */
	uint8_t key_len;            /* bytes */
	const uint8_t *auth_key;    /* HMAC-SHA-256 key for -sha256 suites (RFC 4868) */
	uint8_t auth_key_len;       /* bytes, 32 */
	bool esn;                   /* 64-bit sequence numbers (RFC 4303 2.2.1) */
	uint32_t replay_window;     /* in: packets (multiple of GW_REPLAY_WINDOW_STEP_PACKETS,
	                             * <= GW_REPLAY_WINDOW_MAX_PACKETS); 0 = off */
	struct gw_addr local;       /* outer source (out) / outer destination (in) */
	struct gw_addr remote;      /* outer destination (out) / outer source (in) */
	uint64_t seq_first;         /* out: first sequence number to send, >= 1 */
	uint64_t seq_limit;         /* out: highest sequence number that may be sent
	                             * (UINT64_MAX = none beyond the 32/64-bit space) */
	/* BEET (RFC 7402 section 3.1, HIP-keyed SAs): besides tunnel mode (next
	 * header 4/41, unchanged), the SA carries the gateways' own HIT-to-HIT
	 * packets with the upper-layer protocol as next header and no inner IP
	 * header; the inner addresses are these HITs (network order). */
	bool beet;
	uint8_t hit_local[16];      /* our HIT: inner source (out) / destination (in) */
	uint8_t hit_remote[16];     /* the peer's HIT: inner destination (out) / source (in) */
	/* L2 mode: besides tunnel mode the SA carries Ethernet frames behind an
	 * EtherIP header (RFC 3378), next header GW_IPPROTO_ETHERIP (97) */
	bool etherip;
	/* UDP encapsulation (RFC 3948), out: source and destination port (host
	 * order) of the UDP header between the outer IP header and ESP; both 0:
	 * plain ESP. In SAs ignore them: they accept plain and UDP-encapsulated
	 * ESP alike (esp_udp_demux). */
	uint16_t udp_sport;
	uint16_t udp_dport;
};

/* An SA's outer path: the addresses of its outer header and its UDP
 * encapsulation. local is the outer source of an out SA (destination of an in
 * SA), remote the other end; udp_sport / udp_dport the UDP ports (host order;
 * out: source / destination; both 0: plain ESP, RFC 4303; else RFC 3948). */
struct esp_path {
	struct gw_addr local;
	struct gw_addr remote;
	uint16_t udp_sport;
	uint16_t udp_dport;
};

/* packet_type of a packet esp_inbound_burst delivered in BEET: the inner IPv6
 * header (HITs) was rebuilt from the SA, the packet is for the gateway itself. */
#define ESP_PTYPE_BEET (RTE_PTYPE_L3_IPV6 | RTE_PTYPE_TUNNEL_ESP)

/* packet_type of a packet esp_inbound_burst delivered from next header 97 on
 * an etherip SA: the ESP payload, EtherIP header first, not checked further. */
#define ESP_PTYPE_ETHERIP (RTE_PTYPE_TUNNEL_ESP | RTE_PTYPE_INNER_L2_ETHER)

static inline bool
esp_pkt_is_beet(const struct rte_mbuf *m)
{
	return (m->packet_type & (RTE_PTYPE_TUNNEL_MASK | RTE_PTYPE_INNER_L2_MASK)) ==
	       RTE_PTYPE_TUNNEL_ESP;
}

static inline bool
esp_pkt_is_etherip(const struct rte_mbuf *m)
{
	return m->packet_type == ESP_PTYPE_ETHERIP;
}

/* Global set-up: one intel-ipsec-mb manager per lcore (call after rte_eal_init,
 * before any worker runs). Returns 0 or -1 (message logged). */
int esp_lib_init(void);
void esp_lib_fini(void);

/* Create an SA: expands keys (GCM key data, AES key schedules, HMAC ipad/opad
 * hashes), draws the per-SA IV key for CBC from OpenSSL's CSPRNG (RFC 3602
 * section 3: unpredictable IVs). Returns NULL with a one-line message in err on
 * bad parameters or no memory. Source: RFC 4303, RFC 4106, RFC 3602, RFC 4868. */
struct esp_sa *esp_sa_create(const struct esp_sa_params *p, char *err, size_t errlen);

/* Wipe every key byte, then free. NULL is a no-op. */
void esp_sa_free(struct esp_sa *sa);

uint32_t esp_sa_spi(const struct esp_sa *sa);
enum gw_dir esp_sa_dir(const struct esp_sa *sa);
/* The current path's addresses (esp_sa_set_path). A pointer into the SA that
 * stays valid until the path's next-but-one swap: a worker reads it within
 * one burst (its quiescent state ends the use), the control lcore at will. */
const struct gw_addr *esp_sa_remote(const struct esp_sa *sa);
const struct gw_addr *esp_sa_local(const struct esp_sa *sa);
/* The current path whole (addresses and UDP ports), copied into *path. */
void esp_sa_path(const struct esp_sa *sa, struct esp_path *path);

/* Change the SA's outer path (RFC 8046 mobility, a NAT's new mapping: RFC
 * 5770 / RFC 9028) while workers send on it: the new outer header template is
 * written into the SA's spare path slot and published with one release store,
 * so each burst uses the old path or the new one whole, never a mix; sequence
 * numbers, keys, counters and the replay window are untouched. The spare slot
 * is the one the swap before this one retired: it is rewritten only once every
 * reader of qs (the workers' rte_rcu_qsbr variable, gw_sadb.rcu) has passed a
 * quiescent state since that swap. qs NULL: no thread reads the SA
 * concurrently (set-up, tests). wait true: block until then (the caller must
 * not itself be an online reader of qs); false: return -EAGAIN instead
 * (normally already over: swaps come seconds apart, grace periods in
 * microseconds). Control lcore only; one caller per SA at a time. Returns 0,
 * -EINVAL (families not 4/4 or 6/6, exactly one port 0) or -EAGAIN. */
int esp_sa_set_path(struct esp_sa *sa, const struct esp_path *path, struct rte_rcu_qsbr *qs,
		    bool wait);
/* Whether the SA's current path is UDP-encapsulated (out: sends UDP). */
bool esp_sa_udp(const struct esp_sa *sa);
/* True when family / src (4 or 16 bytes, network order) and UDP port
 * `port` (host order) are the current path's remote end: its address and
 * udp_dport. Workers (one acquire load); for NAT rebinding on in SAs, whose
 * path is the peer's (RFC 5770). */
bool esp_sa_path_is_remote(const struct esp_sa *sa, uint8_t family, const uint8_t *src,
			   uint16_t port);
/* Whether the SA carries L2 mode's EtherIP frames (esp_sa_params.etherip). */
bool esp_sa_etherip(const struct esp_sa *sa);

/* Bytes ESP tunnel mode adds to an inner packet of inner_len bytes: outer IP
 * header, the UDP header (8, RFC 3948) when the current path has one, ESP
 * header, IV, padding, trailer and ICV. */
uint32_t esp_sa_overhead(const struct esp_sa *sa, uint32_t inner_len);

/* Out: the next sequence number that would be sent; in: highest seen. */
uint64_t esp_sa_seq(const struct esp_sa *sa);
/* Out: raise (never lower) the highest sequence number that may be sent; used by
 * the control lcore after it wrote a new high-water mark to the state file. */
void esp_sa_set_seq_limit(struct esp_sa *sa, uint64_t limit);

/* Prefetch the cache lines a burst will read of sa (calling lcore's view):
 * the per-packet fields, the AES round keys
 * and the GHASH keys a packet reads (GCM; ip_len: bytes of the IP packet the
 * burst will get, inner for out, ESP for in; 0 = unknown: keys for up to 8
 * blocks),
 * the calling lcore's counters, the outer header template of the SA's first
 * path (out) and the replay window (in). The addresses
 * follow from the SA's own address, so nothing of the SA is read: call it as
 * soon as a packet's SA is known, well before the burst (with many SAs the
 * lines are in DRAM, as in DPDK's lib/ipsec, which prefetches its SAs the
 * same way). */
void esp_sa_prefetch(const struct esp_sa *sa, bool out, uint32_t ip_len);

/* Totals over all lcores: packets and inner bytes processed successfully. */
void esp_sa_stats(const struct esp_sa *sa, uint64_t *packets, uint64_t *bytes);

/* Take back one packet of `bytes` inner bytes from the calling lcore's counters
 * of sa: the caller dropped it after ESP processing (spoof, ttl), so it was
 * not delivered through the SA. */
void esp_sa_uncount(struct esp_sa *sa, uint32_t bytes);

/* Outbound (RFC 4303 3.3): for each i, mb[i] holds an inner IPv4/IPv6 packet
 * starting at the IP header, already routed (TTL decremented by the caller);
 * sa[i] is its outbound SA. On return drop[i] == GW_DROP_NONE and mb[i] holds the
 * outer IP packet (outer IPv4/IPv6 header from the SA's addresses, DSCP copied and
 * ECN copied per RFC 6040 normal mode, ESP header, IV, encrypted payload, padding
 * 1,2,3..., pad length, next header 4/41, ICV); or drop[i] is the reason
 * (seq_overflow, malformed) and mb[i] is untouched for the caller to free.
 * n <= GW_ESP_BURST_MAX_PACKETS. Never allocates, locks or calls the kernel. */
void esp_outbound_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[],
			uint8_t drop[], uint16_t n);

/* Outbound in BEET (RFC 7402 section 3.1): as esp_outbound_burst, but mb[i]
 * holds an IPv6 packet from sa[i]'s hit_local to its hit_remote (no extension
 * headers). Its IPv6 header is removed and its next header becomes the ESP
 * next header (6, 17, 58, ...); the outer header comes from the SA as usual.
 * An SA without beet, another address pair or a non-IPv6 packet: malformed. */
void esp_outbound_beet_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[],
			     uint8_t drop[], uint16_t n);

/* Outbound in L2 mode (RFC 4303 3.3, RFC 3378): as esp_outbound_burst, but
 * mb[i] holds an ESP payload (an EtherIP header and an Ethernet frame, as
 * gw_etherip_encap leaves it), carried whole with next header 97; the outer
 * IPv4 header has DF clear and DSCP / ECN 0. An SA without etherip:
 * malformed. */
void esp_outbound_etherip_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[],
				uint8_t drop[], uint16_t n);

/* Inbound (RFC 4303 3.4): for each i, mb[i] holds an outer IP packet (IPv4 or
 * IPv6, protocol ESP, reassembled) starting at the IP header, sa[i] the SA whose
 * SPI it carries. Checks, in this order: length (malformed), anti-replay (replay),
 * ICV in constant time (auth), decrypt, padding (pad), next header 59 (dummy,
 * RFC 4303 2.6, discarded), next header 4/41 and the inner header (malformed),
 * ECN fold per RFC 6040 (ecn). Every packet whose ICV verified updates the
 * window, whatever it is dropped for next (RFC 4303 3.4.3); a forged one never
 * does. With ESN the high half is inferred against the window as the earlier
 * packets of the burst leave it (RFC 4303 Appendix A2): each packet gets the
 * verdict it would get alone, after the packets before it. TFC padding after
 * the inner packet (RFC 4303 2.7) is cut off. On success mb[i] holds the inner IP packet, with
 * the outer ECN folded in, packet_type set to L3 IPv4/IPv6 and the RX checksum
 * flags cleared. On a BEET SA any other next header but 59 (dummy) is BEET:
 * mb[i] then holds an IPv6 header rebuilt in front of the payload (source the
 * peer's HIT, destination ours, that next header, hop limit 64, the outer ECN)
 * and packet_type ESP_PTYPE_BEET (esp_pkt_is_beet); it needs 40 - (outer
 * header + ESP header + IV) bytes of headroom, else malformed. Without BEET
 * such packets are malformed. On an etherip SA next header 97 delivers the
 * payload as is (EtherIP header first, for lib/dp to check), packet_type
 * ESP_PTYPE_ETHERIP; without etherip it is malformed. A dropped packet may hold partly decrypted data (decryption is
 * in place); the caller frees it. n <= GW_ESP_BURST_MAX_PACKETS is the design
 * point; larger bursts are processed in runs of that many. */
void esp_inbound_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[],
		       uint8_t drop[], uint16_t n);

/* What a UDP datagram to the HIP NAT traversal port (GW_HIP_UDP_PORT)
 * carries (esp_udp_demux). */
enum esp_udp_kind {
	ESP_UDP_ESP = 0,     /* ESP (RFC 3948 2.1): the UDP header was removed */
	ESP_UDP_HIP,         /* a HIP control packet behind the 4-byte zero non-ESP marker
	                      * (RFC 5770): packet unchanged */
	ESP_UDP_KEEPALIVE,   /* a NAT-keepalive, the one byte 0xFF (RFC 3948 2.3): to ignore */
	ESP_UDP_BAD,         /* runt, UDP length not the IP payload's, 1-7 bytes that are
	                      * neither a keepalive nor a marker */
	ESP_UDP_CKSUM,       /* UDP checksum wrong, or 0 over IPv6 (RFC 8200 8.1) */
};

/* Inbound UDP encapsulation (RFC 3948 3.5 step 1, RFC 5770): m holds an IP
 * packet (IPv4 or IPv6, protocol UDP, extension headers removed) whose IP
 * header starts l3_off bytes into the first segment, is hl bytes long, and
 * whose IP length, len bytes, was checked against the buffer; its UDP header
 * follows. The IP header's own length fields must say hl and len (else
 * ESP_UDP_BAD). Checks the UDP length (it must equal the IP payload) and checksum,
 * then sorts the payload by its first bytes: 0xFF alone a keepalive, four
 * zero bytes the non-ESP marker (HIP), else ESP, whose SPI is never 0. For
 * ESP the UDP header and the l3_off bytes before the IP header are removed
 * (the IP header moved 8 bytes up, its length, protocol 50 and IPv4 header
 * checksum rewritten): m then starts at the IP header, ready for
 * esp_inbound_burst. *sport gets the UDP source port (host order) when the
 * datagram passed the checks. No allocation; m is never freed here. */
enum esp_udp_kind esp_udp_demux(struct rte_mbuf *m, uint32_t l3_off, uint32_t hl, uint32_t len,
				uint16_t *sport);

#endif
