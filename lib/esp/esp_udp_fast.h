/* SPDX-License-Identifier: BSD-3-Clause
 * The common case of esp_udp_demux inline in the worker's burst loop: UDP-
 * encapsulated ESP over IPv4 without options and with UDP checksum 0, as
 * RFC 3948 2.1 asks senders to send it. Anything else takes the whole
 * function (esp_udp.c). tests/fuzz/fuzz_esp_udp.c checks that both agree.
 */
#ifndef HIPGW_ESP_UDP_FAST_H
#define HIPGW_ESP_UDP_FAST_H

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "esp.h"
#include "hipgw_wire.h"

/* IPv4 ESP in UDP at l3 (hl bytes of IP header, len bytes of IP packet, in
 * m's first segment l3_off bytes in) made plain ESP: the header moves
 * GW_UDP_HDR_LEN bytes up over the UDP header, its total length, protocol
 * (50) and checksum rewritten (RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), for
 * the length word and the TTL/protocol word), and m then starts at it. What
 * the rewrite needs is read before the move and only stored after it: a
 * load of bytes just written by the move or by a narrower store waits for
 * that store (no store-to-load forwarding). */
static __rte_always_inline void
esp_udp_v4_up(struct rte_mbuf *m, uint32_t l3_off, uint8_t *l3, uint32_t hl, uint32_t len)
{
	const struct rte_ipv4_hdr *o = (const struct rte_ipv4_hdr *)l3;
	uint16_t new_len = rte_cpu_to_be_16((uint16_t)(len - GW_UDP_HDR_LEN));
	uint8_t pt_old[2] = { o->time_to_live, o->next_proto_id };
	uint8_t pt_new[2] = { o->time_to_live, GW_IPPROTO_ESP };
	uint16_t w_old, w_new;
	struct rte_ipv4_hdr *ip;
	uint32_t sum;

	memcpy(&w_old, pt_old, 2);
	memcpy(&w_new, pt_new, 2);
	sum = (uint16_t)~o->hdr_checksum + (uint32_t)(uint16_t)~o->total_length + new_len +
	      (uint16_t)~w_old + w_new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	if (hl == GW_IPV4_HDR_LEN) {
		/* through registers: memmove of a constant size stays a call */
		uint8_t h[GW_IPV4_HDR_LEN];

		memcpy(h, l3, GW_IPV4_HDR_LEN);
		memcpy(l3 + GW_UDP_HDR_LEN, h, GW_IPV4_HDR_LEN);
	} else {
		memmove(l3 + GW_UDP_HDR_LEN, l3, hl);
	}
	rte_pktmbuf_adj(m, (uint16_t)(l3_off + GW_UDP_HDR_LEN));
	ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	ip->total_length = new_len;
	ip->next_proto_id = GW_IPPROTO_ESP;
	ip->hdr_checksum = (uint16_t)~sum;
}

/* esp_udp_demux (esp.h: the same arguments, verdicts and effects), with
 * its most frequent case decided here: IPv4 with a 20-byte header whose
 * lengths say hl and len, UDP length the IP payload's, checksum 0, and at
 * least an ESP header with a non-zero SPI behind it. */
static __rte_always_inline enum esp_udp_kind
esp_udp_demux_fast(struct rte_mbuf *m, uint32_t l3_off, uint32_t hl, uint32_t len,
		   uint16_t *sport)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(l3 + GW_IPV4_HDR_LEN);
	uint32_t spi;

	if (likely(hl == GW_IPV4_HDR_LEN && len >= GW_IPV4_HDR_LEN + GW_UDP_HDR_LEN + GW_ESP_HDR_LEN &&
		   l3_off + len <= rte_pktmbuf_data_len(m) &&
		   ip->version_ihl == (4 << 4 | GW_IPV4_HDR_LEN / 4) &&
		   rte_be_to_cpu_16(ip->total_length) == len &&
		   rte_be_to_cpu_16(u->dgram_len) == len - GW_IPV4_HDR_LEN &&
		   u->dgram_cksum == 0)) {
		memcpy(&spi, l3 + GW_IPV4_HDR_LEN + GW_UDP_HDR_LEN, 4);
		if (likely(spi != 0)) {
			*sport = rte_be_to_cpu_16(u->src_port);
			esp_udp_v4_up(m, l3_off, l3, GW_IPV4_HDR_LEN, len);
			return ESP_UDP_ESP;
		}
	}
	return esp_udp_demux(m, l3_off, hl, len, sport);
}

#endif
