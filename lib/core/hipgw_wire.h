/* SPDX-License-Identifier: BSD-3-Clause
 * Every wire constant hipgw uses, named once, and the few helpers that read or
 * build the IP header fields they describe (plain C: no DPDK).
 * Sources: RFC 791, RFC 8200, RFC 4303 (ESP), RFC 4106 (GCM in ESP), RFC 3602 (CBC),
 * RFC 4868 (HMAC-SHA-256-128), RFC 6040 (ECN tunnelling), RFC 792 / RFC 4443 (ICMP),
 * RFC 826 (ARP), RFC 4861 (ND), RFC 768 / RFC 3948 / RFC 5770 (UDP encapsulation).
 */
#ifndef HIPGW_WIRE_H
#define HIPGW_WIRE_H

#include <stdint.h>

/* IP protocol numbers (IANA). */
#define GW_IPPROTO_IPIP     4    /* IPv4 in ESP tunnel mode: ESP next header */
#define GW_IPPROTO_TCP      6
#define GW_IPPROTO_UDP      17
#define GW_IPPROTO_IPV6     41   /* IPv6 in ESP tunnel mode: ESP next header */
#define GW_IPPROTO_ESP      50
#define GW_IPPROTO_ICMP     1
#define GW_IPPROTO_ICMPV6   58
#define GW_IPPROTO_NONE     59   /* no next header: ESP "dummy" packet (RFC 4303 2.6) */
#define GW_IPPROTO_HIP      139
#define GW_IPPROTO_ETHERIP  97   /* an Ethernet frame behind a 2-byte EtherIP header (RFC 3378): ESP next header in L2 mode */
/* IPv6 extension header types (RFC 8200 section 4), in the same number space */
#define GW_IPPROTO_HOPOPTS  0    /* Hop-by-Hop Options (RFC 8200 4.3) */
#define GW_IPPROTO_ROUTING  43   /* Routing (RFC 8200 4.4) */
#define GW_IPPROTO_FRAGMENT 44   /* Fragment (RFC 8200 4.5) */
#define GW_IPPROTO_DSTOPTS  60   /* Destination Options (RFC 8200 4.6) */

/* ESP (RFC 4303 section 2). */
#define GW_ESP_HDR_LEN       8    /* SPI (4) + sequence number (4), bytes */
#define GW_ESP_TRAILER_LEN   2    /* pad length (1) + next header (1), bytes */
#define GW_ESP_MAX_PAD       255
#define GW_ESP_GCM_IV_LEN    8    /* RFC 4106 section 3.1 explicit IV, bytes */
#define GW_ESP_GCM_SALT_LEN  4    /* RFC 4106 section 8.1 */
#define GW_ESP_GCM_ICV_LEN   16   /* RFC 4106: 16-octet ICV variant */
#define GW_ESP_CBC_IV_LEN    16   /* RFC 3602 section 3 */
#define GW_ESP_CBC_BLOCK     16
#define GW_ESP_HMAC256_ICV_LEN 16 /* RFC 4868 section 2.3: HMAC-SHA-256-128 */
#define GW_ESP_HMAC256_KEY_LEN 32 /* RFC 4868 section 2.1.1 */
#define GW_ESP_MIN_ALIGN     4    /* RFC 4303 section 2.4: 4-byte alignment */
#define GW_ESP_SPI_MIN       256  /* SPIs below are IANA's to assign (0: no SA; RFC 4303 2.1) */

/* UDP encapsulation of ESP and HIP (RFC 768, RFC 3948, RFC 5770, RFC 9028). */
#define GW_UDP_HDR_LEN       8      /* source port, destination port, length, checksum: bytes */
#define GW_HIP_UDP_PORT      10500  /* hip-nat-t, IANA's port for RFC 5770: HIP control
                                     * packets and ESP over UDP share it (RFC 5770, RFC 9028) */
#define GW_UDP_NON_ESP_MARKER_LEN 4 /* 32 zero bits before a HIP header over UDP, where
                                     * ESP has its (never zero) SPI (RFC 5770 5.4) */
#define GW_NAT_KEEPALIVE_LEN 1      /* RFC 3948 2.3: a NAT-keepalive's payload, one byte */
#define GW_NAT_KEEPALIVE_BYTE 0xff  /* ... of this value */

/* IPv4 / IPv6 header fields (RFC 791 3.1, RFC 8200 3). The version is the
 * high nibble of the first byte in both: 4 or 6, as struct gw_addr's family. */
#define GW_IPV4_HDR_LEN      20
#define GW_IPV6_HDR_LEN      40
#define GW_IPV4_VER_IHL      0x45        /* version 4, IHL 5: a 20-byte header, no options */
#define GW_IPV4_IHL_MASK     0x0f        /* first byte: header length in 32-bit words */
#define GW_IPV6_VERSION_BITS (6u << 28)  /* vtc_flow (host order): version 6 */
#define GW_IPV6_TC_SHIFT     20          /* vtc_flow: traffic class above the 20-bit flow label */
#define GW_IPV4_DF           0x4000
#define GW_IPV4_MF           0x2000
#define GW_IPV4_OFFSET_MASK  0x1fff
#define GW_IPV6_MIN_MTU      1280  /* RFC 8200 section 5 */
#define GW_IPV4_MIN_PMTU     576   /* bytes: lowest IPv4 path MTU we take from an ICMP (RFC 791:
                                    * every host accepts 576-byte datagrams; RFC 1191 3 allows
                                    * any floor of at least 68) */
#define GW_IP_DEFAULT_TTL    64

/* IPv6 extension headers (RFC 8200 section 4). Each starts with Next Header
 * and (but the Fragment header) Hdr Ext Len, its length in 8-byte units not
 * counting the first 8 bytes. */
#define GW_IPV6_EXT_UNIT         8       /* bytes; also the smallest header */
#define GW_IPV6_FRAG_HDR_LEN     8       /* RFC 8200 4.5 */
#define GW_IPV6_FRAG_OFFSET_MASK 0xfff8  /* of the 16 bits at byte 2: offset (8-byte units) */
#define GW_IPV6_FRAG_M           0x0001  /* of the same 16 bits: more fragments */
#define GW_IPV6_RH_SEGLEFT_OFF   3       /* Routing header: Segments Left, byte offset */
#define GW_IPV6_OPT_PAD1         0       /* RFC 8200 4.2: a single byte, no length */
#define GW_IPV6_OPT_ACTION_MASK  0xc0    /* unrecognised option type: 00 skip it, else discard */

/* ECN codepoints (RFC 3168) and DSCP field mask. */
#define GW_ECN_MASK          0x03
#define GW_ECN_NOT_ECT       0x00
#define GW_ECN_ECT1          0x01
#define GW_ECN_ECT0          0x02
#define GW_ECN_CE            0x03

/* ICMP (RFC 792, RFC 1191) and ICMPv6 (RFC 4443, RFC 4861). */
#define GW_ICMP_ECHO_REPLY         0
#define GW_ICMP_DEST_UNREACH       3
#define GW_ICMP_FRAG_NEEDED        4   /* code of GW_ICMP_DEST_UNREACH */
#define GW_ICMP_SOURCE_QUENCH      4
#define GW_ICMP_REDIRECT           5
#define GW_ICMP_ECHO_REQUEST       8
#define GW_ICMP_TIME_EXCEEDED      11
#define GW_ICMP_PARAM_PROBLEM      12
#define GW_ICMP6_INFO_MIN          128  /* RFC 4443 2.1: types below are errors */
#define GW_ICMP6_PACKET_TOO_BIG    2
#define GW_ICMP6_TIME_EXCEEDED     3
#define GW_ICMP6_ECHO_REQUEST      128
#define GW_ICMP6_ECHO_REPLY        129
#define GW_ICMP6_ROUTER_SOLICIT    133
#define GW_ICMP6_ROUTER_ADVERT     134
#define GW_ICMP6_NEIGH_SOLICIT     135
#define GW_ICMP6_NEIGH_ADVERT      136
#define GW_ICMP6_REDIRECT          137
#define GW_ICMP6_DEST_UNREACH      1
#define GW_ICMP6_MLD_QUERY         130  /* MLD (RFC 2710, RFC 3810) */
#define GW_ICMP6_MLD_REPORT        131
#define GW_ICMP6_MLD_DONE          132
#define GW_ICMP6_MLD2_REPORT       143
#define GW_ND_HOP_LIMIT            255  /* RFC 4861 7.1: ND messages carry hop limit 255 */
#define GW_MLD_HOP_LIMIT           1    /* RFC 2710 3, RFC 3810 5: MLD carries hop limit 1 */
#define GW_ND_OPT_SRC_LLADDR       1
#define GW_ND_OPT_TGT_LLADDR       2
#define GW_ICMP_ERR_HDR_LEN        8    /* type, code, checksum, 4 bytes (MTU) before the quote */
#define GW_ICMP_ERR_MAX_QUOTE      548  /* bytes of the offending packet quoted (RFC 1812 4.3.2.3: 576 total) */
#define GW_ICMP6_ERR_MAX_LEN       1280 /* RFC 4443 section 2.4 (c) */

/* The version (4 or 6) of the IP header that starts at l3. */
static inline uint8_t
gw_ip_version(const uint8_t *l3)
{
	return l3[0] >> 4;
}

/* The length of the IPv4 header at l3 from its IHL, bytes (not checked). */
static inline uint32_t
gw_ipv4_hdr_bytes(const uint8_t *l3)
{
	return (l3[0] & GW_IPV4_IHL_MASK) * 4u;
}

/* An IPv6 vtc_flow (host order): version 6, traffic class tc, flow label 0. */
static inline uint32_t
gw_ipv6_vtc_flow(uint8_t tc)
{
	return GW_IPV6_VERSION_BITS | ((uint32_t)tc << GW_IPV6_TC_SHIFT);
}

/* The traffic class of an IPv6 vtc_flow (host order). */
static inline uint8_t
gw_ipv6_tc(uint32_t vtc_flow)
{
	return (uint8_t)(vtc_flow >> GW_IPV6_TC_SHIFT);
}

/* TCP (RFC 9293) options used by MSS clamping. */
#define GW_TCP_FLAG_SYN      0x02
#define GW_TCP_OPT_EOL       0
#define GW_TCP_OPT_NOP       1
#define GW_TCP_OPT_MSS       2

#endif
