/* SPDX-License-Identifier: BSD-3-Clause
 * Every HIPv2 wire constant hipgw uses, named once.
 * Sources: RFC 7401 (HIPv2), RFC 7402 (ESP for HIP), RFC 7343 (ORCHIDv2),
 * RFC 8046 (LOCATOR_SET), RFC 8002 (CERT), RFC 8003 (registration),
 * RFC 8004 (rendezvous), RFC 5770 (NAT traversal), RFC 9374 (EdDSA HITs), and
 * the IANA "Host Identity Protocol (HIP) Parameters" registries.
 * Numbers were cross-checked against the IANA registry (as generated in
 * PyPCAPKit, Wireshark, OpenHIP, HIPL, cutehip) and the real
 * cutehip capture in tests/data/hip/. Where an item rests on recall of RFC
 * text rather than text we could read, its comment says "(recall)".
 *
 * The IP protocol number of HIP is GW_IPPROTO_HIP (139) in hipgw_wire.h.
 */
#ifndef HIPGW_HIP_WIRE_H
#define HIPGW_HIP_WIRE_H

#include <stdint.h>

/* ---- Fixed header (RFC 7401 section 5.1) --------------------------------- */
#define HIP_HDR_LEN              40    /* bytes: 8 fixed + sender HIT 16 + receiver HIT 16 */
#define HIP_HIT_LEN              16    /* bytes */
#define HIP_LEN_UNIT             8     /* Header Length counts 8-byte units ... */
#define HIP_HDR_LEN_EXCLUDED     8     /* ... excluding the first 8 bytes: len = (HL + 1) * 8 */
#define HIP_HDR_LEN_FIELD_MIN    4     /* HL of a packet without parameters (40 bytes) */
#define HIP_PACKET_MAX           2048  /* bytes: (255 + 1) * 8, the largest HL can express */
#define HIP_OFF_NEXT_HEADER      0
#define HIP_OFF_HDR_LEN          1
#define HIP_OFF_PACKET_TYPE      2     /* bit 7 fixed 0, bits 6..0 Packet Type */
#define HIP_OFF_VERSION          3     /* Version (high 4 bits), RES (3 bits), fixed 1 (LSB) */
#define HIP_OFF_CHECKSUM         4
#define HIP_OFF_CONTROLS         6
#define HIP_OFF_HIT_SENDER       8
#define HIP_OFF_HIT_RECEIVER     24
#define HIP_PACKET_TYPE_MASK     0x7f
#define HIP_FIXED_BIT_ZERO       0x80  /* byte 2: must be 0 (Shim6 compatibility) */
#define HIP_FIXED_BIT_ONE        0x01  /* byte 3: must be 1 */
#define HIP_VERSION_SHIFT        4
#define HIP_VERSION              2
#define HIP_VERSION_BYTE         0x21  /* version 2, RES 0, fixed 1 */
#define HIP_NEXT_HEADER_NONE     59    /* IPPROTO_NONE: no payload after the HIP packet */
#define HIP_CONTROL_ANONYMOUS    0x0001 /* Controls bit A: the sender's HI is anonymous */

/* ---- Packet types (RFC 7401 section 5.3, IANA) ---------------------------- */
#define HIP_I1                   1
#define HIP_R1                   2
#define HIP_I2                   3
#define HIP_R2                   4
#define HIP_UPDATE               16
#define HIP_NOTIFY               17
#define HIP_CLOSE                18
#define HIP_CLOSE_ACK            19
#define HIP_HDRR                 20    /* RFC 6537 */
#define HIP_DATA                 32    /* RFC 6078 */

/* ---- Parameter TLV (RFC 7401 section 5.2.1) ------------------------------- */
#define HIP_TLV_HDR_LEN          4     /* Type (2) + Length (2); Length counts the Contents only */
#define HIP_TLV_ALIGN            8     /* a TLV with its padding fills a multiple of 8 bytes */
#define HIP_PARAM_CRITICAL_BIT   0x0001 /* odd type = critical */

/* Parameter types (IANA registry; RFC 7401 unless noted). */
#define HIP_PARAM_ESP_INFO               65     /* RFC 7402 */
#define HIP_PARAM_R1_COUNTER_V1          128    /* RFC 5201 only: never send */
#define HIP_PARAM_R1_COUNTER             129
#define HIP_PARAM_LOCATOR_SET            193    /* RFC 8046 */
#define HIP_PARAM_PUZZLE                 257
#define HIP_PARAM_SOLUTION               321
#define HIP_PARAM_SEQ                    385
#define HIP_PARAM_ACK                    449
#define HIP_PARAM_DH_GROUP_LIST          511
#define HIP_PARAM_DIFFIE_HELLMAN         513
#define HIP_PARAM_HIP_TRANSFORM_V1       577    /* RFC 5201 only: never send */
#define HIP_PARAM_HIP_CIPHER             579
#define HIP_PARAM_NAT_TRAVERSAL_MODE     608    /* RFC 5770 */
#define HIP_PARAM_TRANSACTION_PACING     610    /* RFC 5770 */
#define HIP_PARAM_ENCRYPTED              641
#define HIP_PARAM_HOST_ID                705
#define HIP_PARAM_HIT_SUITE_LIST         715
#define HIP_PARAM_CERT                   768    /* RFC 8002 */
#define HIP_PARAM_NOTIFICATION           832    /* cutehip sends 641 (its bug) */
#define HIP_PARAM_ECHO_REQUEST_SIGNED    897
#define HIP_PARAM_REG_INFO               930    /* RFC 8003 */
#define HIP_PARAM_REG_REQUEST            932    /* RFC 8003 */
#define HIP_PARAM_REG_RESPONSE           934    /* RFC 8003 */
#define HIP_PARAM_REG_FAILED             936    /* RFC 8003 */
#define HIP_PARAM_REG_FROM               950    /* RFC 5770 */
#define HIP_PARAM_ECHO_RESPONSE_SIGNED   961
#define HIP_PARAM_TRANSPORT_FORMAT_LIST  2049
#define HIP_PARAM_ESP_TRANSFORM          4095   /* RFC 7402 */
#define HIP_PARAM_HIP_MAC                61505
#define HIP_PARAM_HIP_MAC_2              61569
#define HIP_PARAM_HIP_SIGNATURE_2        61633
#define HIP_PARAM_HIP_SIGNATURE          61697
#define HIP_PARAM_ECHO_RESPONSE_UNSIGNED 63425  /* lower than the request's type */
#define HIP_PARAM_ECHO_REQUEST_UNSIGNED  63661
#define HIP_PARAM_RELAY_FROM             63998  /* RFC 5770 */
#define HIP_PARAM_RELAY_TO               64002  /* RFC 5770 */
#define HIP_PARAM_FROM                   65498  /* RFC 8004 */
#define HIP_PARAM_RVS_HMAC               65500  /* RFC 8004 */
#define HIP_PARAM_VIA_RVS                65502  /* RFC 8004 */
#define HIP_PARAM_RELAY_HMAC             65520  /* RFC 5770 */

/* ---- NOTIFICATION message types (RFC 7401 section 5.2.19, IANA) ----------- */
#define HIP_NOTIFY_UNSUPPORTED_CRITICAL_PARAMETER_TYPE 1
#define HIP_NOTIFY_INVALID_SYNTAX                      7
#define HIP_NOTIFY_NO_DH_PROPOSAL_CHOSEN               14
#define HIP_NOTIFY_INVALID_DH_CHOSEN                   15
#define HIP_NOTIFY_NO_HIP_PROPOSAL_CHOSEN              16
#define HIP_NOTIFY_INVALID_HIP_CIPHER_CHOSEN           17
#define HIP_NOTIFY_NO_ESP_PROPOSAL_CHOSEN              18  /* RFC 7402 */
#define HIP_NOTIFY_INVALID_ESP_TRANSFORM_CHOSEN        19  /* RFC 7402 */
#define HIP_NOTIFY_UNSUPPORTED_HIT_SUITE               20
#define HIP_NOTIFY_AUTHENTICATION_FAILED               24
#define HIP_NOTIFY_CHECKSUM_FAILED                     26
#define HIP_NOTIFY_HIP_MAC_FAILED                      28
#define HIP_NOTIFY_ENCRYPTION_FAILED                   32
#define HIP_NOTIFY_INVALID_HIT                         40
#define HIP_NOTIFY_BLOCKED_BY_POLICY                   42
#define HIP_NOTIFY_RESPONDER_BUSY_PLEASE_RETRY         44
#define HIP_NOTIFY_LOCATOR_TYPE_UNSUPPORTED            46  /* RFC 8046 */
#define HIP_NOTIFY_CREDENTIALS_REQUIRED                48  /* RFC 8002 */
#define HIP_NOTIFY_INVALID_CERTIFICATE                 50  /* RFC 8002 */
#define HIP_NOTIFY_REG_REQUIRED                        51  /* RFC 8003 */
#define HIP_NOTIFY_STATUS_MIN                          16384 /* below: errors; from here: status */
#define HIP_NOTIFY_I2_ACKNOWLEDGEMENT                  16384
#define HIP_NOTIFY_NAT_KEEPALIVE                       16385 /* RFC 9028 */

/* ---- NAT traversal (RFC 5770, RFC 9028) ----------------------------------- */
/* NAT_TRAVERSAL_MODE (type HIP_PARAM_NAT_TRAVERSAL_MODE, RFC 5770 5.4; recall):
 * Reserved (2 bytes, zero, ignored), then Mode IDs of 2 bytes each in the
 * sender's preference order. The responder lists the modes it supports in R1
 * (covered by HIP_SIGNATURE_2); the initiator echoes the one it picked in I2.
 * An unknown Mode ID is ignored (RFC 5770 4.3). */
#define HIP_NAT_MODE_RESERVED            0
#define HIP_NAT_MODE_UDP_ENCAPSULATION   1     /* RFC 5770: HIP and ESP over UDP */
#define HIP_NAT_MODE_ICE_STUN_UDP        2     /* RFC 5770: ICE with STUN (we do not do ICE) */
#define HIP_NAT_MODE_ICE_HIP_UDP         3     /* RFC 9028: ICE with HIP messages */
#define HIP_NAT_MODES_MAX                8     /* Mode IDs kept from one parameter; the rest counted */
/* Over UDP a HIP packet follows the UDP header and the 32-bit zero non-ESP
 * marker (GW_UDP_NON_ESP_MARKER_LEN, hipgw_wire.h), to and from port
 * GW_HIP_UDP_PORT 10500. Its HIP header checksum is zero when sent and not
 * checked when received: the UDP checksum covers it (RFC 5770 5.2; recall). */
#define HIP_UDP_HIP_CHECKSUM             0
/* NAT keepalives (RFC 5770 4.7, RFC 9028 4.10; recall): a host using UDP
 * sends a HIP NOTIFY with NOTIFICATION type HIP_NOTIFY_NAT_KEEPALIVE (no data)
 * when it sent nothing to the peer for Tr, 15 s by default, so that the NAT
 * keeps its mapping. RFC 3948 2.3's one-byte 0xFF NAT-keepalive of ESP in UDP
 * (GW_NAT_KEEPALIVE_BYTE) is accepted and ignored. */
#define HIP_NAT_KEEPALIVE_DEFAULT_S      15

/* ---- Diffie-Hellman Group IDs (RFC 7401 section 5.2.7) -------------------- */
#define HIP_DH_GROUP_RESERVED          0
#define HIP_DH_GROUP_384_DEPRECATED    1     /* RFC 5201 only */
#define HIP_DH_GROUP_OAKLEY1_DEPRECATED 2    /* RFC 5201 only */
#define HIP_DH_GROUP_MODP_1536         3     /* RFC 3526 group 5 */
#define HIP_DH_GROUP_MODP_3072         4     /* RFC 3526 group 15 */
#define HIP_DH_GROUP_MODP_6144_DEPRECATED 5  /* RFC 5201 only */
#define HIP_DH_GROUP_MODP_8192_DEPRECATED 6  /* RFC 5201 only */
#define HIP_DH_GROUP_NIST_P256         7
#define HIP_DH_GROUP_NIST_P384         8
#define HIP_DH_GROUP_NIST_P521         9
#define HIP_DH_GROUP_SECP160R1         10
#define HIP_DH_GROUP_MODP_2048         11    /* RFC 3526 group 14 */

/* ---- HIP_CIPHER IDs (RFC 7401 section 5.2.8) ------------------------------ */
#define HIP_CIPHER_RESERVED      0
#define HIP_CIPHER_NULL_ENCRYPT  1     /* key 0 bytes, no IV */
#define HIP_CIPHER_AES_128_CBC   2     /* key 16 bytes, IV 16 bytes */
#define HIP_CIPHER_RESERVED_3    3     /* 3DES in drafts */
#define HIP_CIPHER_AES_256_CBC   4     /* key 32 bytes, IV 16 bytes */
#define HIP_CIPHER_AES_CBC_IV_LEN 16   /* bytes, the AES block (IV length unconfirmed in RFC text) */

/* ---- HIT Suite IDs (RFC 7401 section 5.2.10, RFC 9374) -------------------- */
/* The suite ID is 4 bits: it is the OGA ID in the HIT (RFC 7343) and sits in the
 * high nibble of each HIT_SUITE_LIST byte (0x10, 0x20, ...). */
#define HIP_HIT_SUITE_RSA_DSA_SHA256   1  /* RHASH SHA-256 */
#define HIP_HIT_SUITE_ECDSA_SHA384     2  /* RHASH SHA-384 */
#define HIP_HIT_SUITE_ECDSA_LOW_SHA1   3  /* RHASH SHA-1 */
#define HIP_HIT_SUITE_EDDSA_CSHAKE128  5  /* RFC 9374 */
#define HIP_HIT_SUITE_LIST_SHIFT       4
#define HIP_RHASH_LEN_SHA1             20 /* bytes */
#define HIP_RHASH_LEN_SHA256           32
#define HIP_RHASH_LEN_SHA384           48
#define HIP_RHASH_LEN_MAX              48

/* ---- HI / signature algorithms (RFC 7401 section 5.2.9) ------------------- */
#define HIP_HI_RESERVED          0
#define HIP_HI_DSA               3     /* RFC 2536 */
#define HIP_HI_RSA               5     /* RFC 3110 */
#define HIP_HI_ECDSA             7
#define HIP_HI_ECDSA_LOW         9
#define HIP_HI_EDDSA             13    /* RFC 9374 */

/* ECDSA curve IDs: the first 2 bytes of an ECDSA / ECDSA_LOW Host Identity. */
#define HIP_ECDSA_NIST_P256      1
#define HIP_ECDSA_NIST_P384      2
#define HIP_ECDSA_LOW_SECP160R1  1

/* Domain Identifier types (HOST_ID DI-Type, 4 bits). */
#define HIP_DI_NONE              0
#define HIP_DI_FQDN              1
#define HIP_DI_NAI               2

/* ---- ESP transform suite IDs (RFC 7402 section 5.1.2, IANA) --------------- */
#define HIP_ESP_RESERVED                 0
#define HIP_ESP_AES_128_CBC_HMAC_SHA1    1
#define HIP_ESP_NULL_HMAC_SHA256         7   /* enc key 0, auth key 32 */
#define HIP_ESP_AES_128_CBC_HMAC_SHA256  8   /* enc key 16, auth key 32 */
#define HIP_ESP_AES_256_CBC_HMAC_SHA256  9   /* enc key 32, auth key 32 */
#define HIP_ESP_AES_CCM_8                10  /* RFC 4309 */
#define HIP_ESP_AES_CCM_16               11  /* RFC 4309 */
#define HIP_ESP_AES_GCM_8                12  /* RFC 4106, 8-octet ICV */
#define HIP_ESP_AES_GCM_16               13  /* RFC 4106, 16-octet ICV */
#define HIP_ESP_AES_CMAC_96              14  /* RFC 4493, RFC 4494 */
#define HIP_ESP_AES_GMAC                 15  /* RFC 4543 */
/* 2..6 are deprecated (3DES, Blowfish, NULL with SHA-1 / MD5). */

/* ---- List limits that the RFCs set ----------------------------------------- */
/* RFC 7401 5.2.8 (HIP_CIPHER) and RFC 7402 5.1.2 (ESP_TRANSFORM): a sender puts
 * at most six IDs; a receiver accepts the first six and drops the rest. */
#define HIP_CIPHER_IDS_MAX       6
#define HIP_ESP_SUITES_MAX       6

/* ---- LOCATOR_SET (RFC 8046 section 4) ------------------------------------- */
#define HIP_LOCATOR_HDR_LEN      8     /* traffic type, locator type, length, P, lifetime */
#define HIP_LOCATOR_LEN_UNIT     4     /* Locator Length counts 4-byte units */
#define HIP_LOCATOR_PREFERRED    0x01  /* P bit, LSB of byte 3 */
#define HIP_LOCATOR_TRAFFIC_BOTH 0
#define HIP_LOCATOR_TRAFFIC_SIGNALING 1
#define HIP_LOCATOR_TRAFFIC_DATA 2
#define HIP_LOCATOR_TYPE_IPV6    0     /* 16 bytes: IPv6 or IPv4-mapped IPv6 */
#define HIP_LOCATOR_TYPE_ESP_SPI_IPV6 1 /* SPI (4) + IPv6 (16) */

#endif
