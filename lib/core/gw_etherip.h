/* SPDX-License-Identifier: BSD-3-Clause
 * EtherIP (RFC 3378) inside ESP (RFC 4303), the wire format of L2 mode: an
 * Ethernet frame as received on an inner port (destination MAC first, VLAN
 * tags kept, no FCS) behind a 2-byte EtherIP header, carried as an ESP
 * payload with next header GW_IPPROTO_ETHERIP (97). The header is a 4-bit
 * version (3) and 12 reserved bits (zero), in network byte order. Plain C on
 * byte buffers, so that the workers (lib/dp) and the tests share it.
 */
#ifndef HIPGW_ETHERIP_H
#define HIPGW_ETHERIP_H

#include <stdint.h>
#include "gw_drop.h"
#include "hipgw_wire.h"

#define GW_ETHERIP_HDR_BYTES     2       /* version (4 bits) + reserved (12 bits) */
#define GW_ETHERIP_VERSION       3       /* RFC 3378: the only version */
#define GW_ETHERIP_VERSION_SHIFT 12      /* of the 16-bit header (host order) */
#define GW_ETHERIP_RESERVED_MASK 0x0fffu /* of the 16-bit header: must be zero */

/* Ethernet (IEEE 802.3) and VLAN tags (IEEE 802.1Q C-tag, 802.1ad S-tag). */
#define GW_ETH_HDR_BYTES      14     /* destination MAC, source MAC, EtherType */
#define GW_ETH_TYPE_OFF       12     /* bytes: the EtherType after the two MACs */
#define GW_ETHERTYPE_VLAN     0x8100 /* 802.1Q tag: 4 bytes (TPID, TCI) before the EtherType */
#define GW_ETHERTYPE_QINQ     0x88a8 /* 802.1ad service tag, same 4-byte shape */
#define GW_VLAN_TAG_BYTES     4
#define GW_ETH_MAX_VLAN_TAGS  2      /* tags the parser looks into; a third is payload */

/* A frame found by gw_etherip_parse: bytes from the start of the ESP payload. */
struct gw_etherip_frame {
	uint32_t off;       /* where the frame starts: GW_ETHERIP_HDR_BYTES */
	uint32_t len;       /* its length, bytes: everything after the EtherIP header */
	uint32_t l2_len;    /* its Ethernet header with tags: 14, 18 or 22 bytes */
	uint8_t vlan_tags;  /* 0, 1 or 2 */
};

/* Write the EtherIP header (version 3, reserved 0) into hdr, the
 * GW_ETHERIP_HDR_BYTES bytes right before an Ethernet frame (RFC 3378). */
void gw_etherip_hdr_put(uint8_t hdr[GW_ETHERIP_HDR_BYTES]);

/* Encapsulate in place the frame_len-byte Ethernet frame at buf + headroom
 * (no FCS) for ESP: the EtherIP header is written in the 2 bytes before it.
 * Returns the offset in buf of the ESP payload (headroom - 2, bytes) and its
 * length in *payload_len (frame_len + 2, bytes); -1 when headroom is less
 * than GW_ETHERIP_HDR_BYTES or frame_len is shorter than an Ethernet header
 * (nothing written). RFC 3378; the payload goes out with ESP next header
 * GW_IPPROTO_ETHERIP (RFC 4303 2.6). */
int gw_etherip_encap(uint8_t *buf, uint32_t headroom, uint32_t frame_len, uint32_t *payload_len);

/* Check the decrypted ESP payload p (len bytes, the payload of an ESP packet
 * whose next header is GW_IPPROTO_ETHERIP, trailer removed; RFC 4303 2.6):
 * the EtherIP header's version is 3 and its reserved bits zero (RFC 3378),
 * and a whole Ethernet header follows: 14 bytes, 18 when its EtherType is an
 * 802.1Q or 802.1ad tag, 22 when the tag is followed by a second. Reads
 * nothing past p + len. Returns GW_DROP_NONE with *f set; GW_DROP_L2_RUNT
 * when len is shorter than the EtherIP header or the Ethernet header with
 * its tags; GW_DROP_ETHERIP_VERSION for a version other than 3;
 * GW_DROP_ETHERIP_RESERVED when a reserved bit is set (checked in that
 * order). */
enum gw_drop gw_etherip_parse(const uint8_t *p, uint32_t len, struct gw_etherip_frame *f);

#endif
