/* SPDX-License-Identifier: BSD-3-Clause
 * A DHCP message in its Ethernet / IPv4 / UDP frame, for a caller that sends
 * and receives whole frames (the control lcore on a DPDK port, the real-server
 * test tool on an AF_PACKET socket). The client itself (dhcp_client.h) deals
 * in UDP payloads only; this is the wrapping, both ways. Plain C, no
 * allocation; addresses in host byte order.
 */
#ifndef HIPGW_DHCP_FRAME_H
#define HIPGW_DHCP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "gw_etherip.h"     /* GW_ETH_HDR_BYTES, GW_ETH_TYPE_OFF */
#include "hipgw_wire.h"

#define DHCP_ETHERTYPE_IPV4 0x0800
#define DHCP_ETH_ADDR_LEN   6
#define DHCP_UDP_HDR_LEN    8
#define DHCP_FRAME_HDR_LEN  (GW_ETH_HDR_BYTES + GW_IPV4_HDR_LEN + DHCP_UDP_HDR_LEN) /* 42 */

/* Build the frame of one client message: Ethernet from src_mac to dst_mac
 * (NULL: ff:ff:ff:ff:ff:ff), IPv4 from src_ip to dst_ip (TTL
 * GW_IP_DEFAULT_TTL, header checksum), UDP 68 -> 67 with its checksum
 * (RFC 768), then msg (len bytes). RFC 2131 4.1: before the client has an
 * address, src_ip is 0 and dst_ip DHCP_ADDR_BROADCAST. Returns the frame's
 * length in bytes, or 0 when it does not fit in cap bytes. */
size_t dhcp_frame_build(uint8_t *buf, size_t cap, const uint8_t src_mac[DHCP_ETH_ADDR_LEN],
			const uint8_t *dst_mac, uint32_t src_ip, uint32_t dst_ip,
			const uint8_t *msg, size_t len);

/* A received frame's DHCP message: where it is and who sent it. */
struct dhcp_frame_in {
	const uint8_t *msg;               /* into the frame */
	size_t len;                       /* bytes: the UDP payload */
	uint8_t src_mac[DHCP_ETH_ADDR_LEN];
	uint32_t src_ip, dst_ip;
};

/* Find the DHCP server message in an Ethernet frame (len bytes): untagged
 * IPv4 (options allowed), not a fragment, header checksum right, total length
 * within the frame, UDP 67 -> 68 with its length within the IP packet and its
 * checksum right when not 0 (RFC 768). Returns 0 and fills *in, or -1 for
 * any other frame (not DHCP or malformed: the caller counts it). */
int dhcp_frame_parse(const uint8_t *frame, size_t len, struct dhcp_frame_in *in);

#endif
