/* SPDX-License-Identifier: BSD-3-Clause
 * Drop reasons. The names are the stats JSON keys; every one is
 * always present in the stats.
 */
#ifndef HIPGW_DROP_H
#define HIPGW_DROP_H

#define GW_DROP_LIST(X) \
	X(NO_SA, "no_sa")               /* unknown SPI, SPI 0 */ \
	X(REPLAY, "replay")             /* duplicate, too old, sequence 0 */ \
	X(AUTH, "auth")                 /* ICV mismatch, cut ICV */ \
	X(PAD, "pad")                   /* pad length or pattern wrong */ \
	X(DUMMY, "dummy")               /* authentic dummy packet, next header 59 (RFC 4303 2.6) */ \
	X(MALFORMED, "malformed")       /* runt, lengths that disagree, bad headers, bad fragments */ \
	X(SPOOF, "spoof")               /* inner src/dst outside the SA's prefixes */ \
	X(TTL, "ttl")                   /* inner TTL / hop limit expired */ \
	X(MTU, "mtu")                   /* too big for the outer MTU */ \
	X(ECN, "ecn")                   /* outer CE on a Not-ECT inner packet (RFC 6040) */ \
	X(SEQ_OVERFLOW, "seq_overflow") /* outbound sequence space exhausted */ \
	X(NO_ROUTE, "no_route") \
	X(NO_NEIGHBOR, "no_neighbor") \
	X(RING_FULL, "ring_full") \
	X(NO_MBUF, "no_mbuf")           /* no mbuf free: for a multi-segment packet's copy, an L2 flood copy */ \
	X(POLICY, "policy")             /* no SA and no bypass; clear traffic on the outer side */ \
	X(ETHERIP_VERSION, "etherip_version")   /* L2 mode: EtherIP version not 3 (RFC 3378) */ \
	X(ETHERIP_RESERVED, "etherip_reserved") /* L2 mode: an EtherIP reserved bit set (RFC 3378) */ \
	X(L2_RUNT, "l2_runt")           /* L2 mode: ESP payload shorter than EtherIP + Ethernet header */ \
	X(L2_LINK_LOCAL, "l2_link_local") /* L2 mode: frame to 01:80:C2:00:00:0x, link-local = drop */ \
	X(L2_LOCAL, "l2_local")         /* L2 mode: frame to a MAC on the bridge's own segment */ \
	X(L2_GROUP_SOURCE, "l2_group_source") /* L2 mode: source MAC a group (multicast) address */ \
	X(L2_FLOOD_RATE, "l2_flood_rate")     /* L2 mode: a flood over the bridge's flood-rate */ \
	X(L2_TOO_LONG, "l2_too_long")   /* L2 mode: frame over its port's mtu + header, tags */ \
	X(FRAG_NO_MBUF, "frag_no_mbuf") /* L2 mode: no mbuf free for an ESP packet's outer fragments */ \
	X(MBOX_NO_FLOW, "mbox_no_flow") /* middlebox: ESP whose (destination, SPI) no association owns */ \
	X(MBOX_FRAG, "mbox_frag")       /* middlebox: a later fragment whose first did not pass */ \
	X(MBOX_HIP, "mbox_hip")         /* middlebox: HIP not forwarded (the tracker refused it, or
					 * a fragment) */ \
	X(UDP_BAD, "udp_bad")           /* to the HIP NAT port: runt, UDP length not the IP payload's,
					 * 1-7 payload bytes neither keepalive nor marker */ \
	X(UDP_CKSUM, "udp_cksum")       /* to the HIP NAT port: UDP checksum wrong, 0 over IPv6 */ \
	X(MBOX_KEEPALIVE, "mbox_keepalive") /* middlebox: a NAT-keepalive, 0xFF over UDP 10500 */

enum gw_drop {
	GW_DROP_NONE = 0,
#define GW_DROP_ENUM(id, name) GW_DROP_##id,
	GW_DROP_LIST(GW_DROP_ENUM)
#undef GW_DROP_ENUM
	GW_DROP_MAX
};

/* Name of a drop reason as in the stats JSON; "none" for GW_DROP_NONE. */
const char *gw_drop_name(enum gw_drop reason);

#endif
