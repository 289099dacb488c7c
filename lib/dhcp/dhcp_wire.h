/* SPDX-License-Identifier: BSD-3-Clause
 * DHCPv4 messages on the wire (RFC 2131 section 2, options RFC 2132): the
 * BOOTP header, the magic cookie, the options this client sends and reads.
 * Plain C on byte buffers, no allocation. The message is the UDP payload
 * (client port 68, server port 67); dhcp_frame.h wraps it in Ethernet, IPv4
 * and UDP. Addresses are uint32_t in host byte order throughout.
 */
#ifndef HIPGW_DHCP_WIRE_H
#define HIPGW_DHCP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RFC 2131 section 2, figure 1: the fixed part (op .. file), bytes */
#define DHCP_HDR_LEN          236
#define DHCP_CHADDR_LEN       16
#define DHCP_SNAME_LEN        64
#define DHCP_FILE_LEN         128
#define DHCP_OFF_XID          4
#define DHCP_OFF_SECS         8
#define DHCP_OFF_FLAGS        10
#define DHCP_OFF_CIADDR       12
#define DHCP_OFF_YIADDR       16
#define DHCP_OFF_SIADDR       20
#define DHCP_OFF_GIADDR       24
#define DHCP_OFF_CHADDR       28
#define DHCP_COOKIE_LEN       4
#define DHCP_MAGIC_COOKIE     0x63825363u /* 99.130.83.99 (RFC 2131 3, RFC 2132 2) */
#define DHCP_OPTIONS_OFF      (DHCP_HDR_LEN + DHCP_COOKIE_LEN) /* 240 */
/* A client must take messages of up to 576-byte IP datagrams (RFC 2131 2:
 * an options field of 312 bytes); built messages are at least 300 bytes, the
 * BOOTP minimum relays may insist on (RFC 1542 2.1), padded with option 0. */
#define DHCP_MSG_MIN_LEN      300
#define DHCP_MSG_MAX_LEN      (DHCP_OPTIONS_OFF + 312) /* 552 bytes of UDP payload */

#define DHCP_OP_BOOTREQUEST   1
#define DHCP_OP_BOOTREPLY     2
#define DHCP_HTYPE_ETHER      1    /* RFC 1700 hardware type: 10 Mb Ethernet */
#define DHCP_HLEN_ETHER       6
#define DHCP_FLAG_BROADCAST   0x8000 /* RFC 2131 2, figure 2: the B bit of flags */

#define DHCP_PORT_SERVER      67
#define DHCP_PORT_CLIENT      68
#define DHCP_ADDR_BROADCAST   0xffffffffu /* limited broadcast, 255.255.255.255 */

/* RFC 2132 options (code: length in bytes) */
#define DHCP_OPT_PAD          0    /* a single byte, no length (3.1) */
#define DHCP_OPT_SUBNET_MASK  1    /* 4 (3.3) */
#define DHCP_OPT_ROUTER       3    /* n * 4, n >= 1 (3.5) */
#define DHCP_OPT_HOST_NAME    12   /* >= 1 (3.14) */
#define DHCP_OPT_REQUESTED_IP 50   /* 4 (9.1) */
#define DHCP_OPT_LEASE_TIME   51   /* 4, seconds (9.2) */
#define DHCP_OPT_OVERLOAD     52   /* 1: 1 file, 2 sname, 3 both (9.3) */
#define DHCP_OPT_MSG_TYPE     53   /* 1 (9.6) */
#define DHCP_OPT_SERVER_ID    54   /* 4 (9.7) */
#define DHCP_OPT_PARAM_LIST   55   /* >= 1 (9.8) */
#define DHCP_OPT_RENEWAL_T1   58   /* 4, seconds (9.11) */
#define DHCP_OPT_REBIND_T2    59   /* 4, seconds (9.12) */
#define DHCP_OPT_CLIENT_ID    61   /* >= 2: type, identifier (9.14) */
#define DHCP_OPT_END          255  /* a single byte, no length (3.2) */
#define DHCP_OPT_ADDR_LEN     4
#define DHCP_OPT_TIME_LEN     4
#define DHCP_CLIENT_ID_MIN    2
#define DHCP_CLIENT_ID_MAX    64   /* bytes: this client's bound (RFC 2132 allows 255) */
#define DHCP_HOST_NAME_MAX    63   /* bytes: one DNS label (RFC 1035 2.3.4) */
#define DHCP_LEASE_INFINITE   0xffffffffu /* RFC 2131 3.3: an infinite lease */

/* RFC 2132 9.6: message types */
enum dhcp_msg_type {
	DHCP_DISCOVER = 1,
	DHCP_OFFER = 2,
	DHCP_REQUEST = 3,
	DHCP_DECLINE = 4,
	DHCP_ACK = 5,
	DHCP_NAK = 6,
	DHCP_RELEASE = 7,
	DHCP_INFORM = 8,
};

/* Why dhcp_msg_parse refused a message: each a counter of the client. */
#define DHCP_PARSE_ERRORS(X)                                                    \
	X(SHORT, "parse_short")           /* under the header and the cookie */  \
	X(NOT_REPLY, "parse_not_reply")   /* op not BOOTREPLY or not Ethernet */ \
	X(COOKIE, "parse_cookie")         /* no magic cookie: plain BOOTP */     \
	X(OPT_TRUNC, "parse_opt_trunc")   /* an option runs past the message */  \
	X(OPT_LEN, "parse_opt_len")       /* a known option of a wrong length */ \
	X(OPT_DUP, "parse_opt_dup")       /* a known option twice */             \
	X(NO_END, "parse_no_end")         /* the options end without 255 */      \
	X(OVERLOAD, "parse_overload")     /* option 52: sname / file hold options */ \
	X(NO_TYPE, "parse_no_type")       /* no option 53 */                     \
	X(BAD_TYPE, "parse_bad_type")     /* option 53 not 1..8 */

enum dhcp_parse_err {
	DHCP_PARSE_OK = 0,
#define X(n, s) DHCP_PARSE_##n,
	DHCP_PARSE_ERRORS(X)
#undef X
	DHCP_PARSE_ERR_COUNT
};

/* What a server's message says, as far as the client reads it. */
struct dhcp_msg {
	uint8_t type;                  /* enum dhcp_msg_type */
	uint32_t xid;
	uint16_t flags;
	uint32_t ciaddr, yiaddr, siaddr, giaddr;
	uint8_t chaddr[DHCP_CHADDR_LEN];
	bool has_server_id, has_lease, has_t1, has_t2, has_mask;
	uint32_t server_id;
	uint32_t lease_s, t1_s, t2_s;  /* seconds */
	uint32_t mask;
	uint32_t router;               /* the first router of option 3; 0: none */
	uint8_t n_routers;
};

/* Parse one DHCP message (the UDP payload, len bytes) from a server.
 * RFC 2131 section 2 (fields), 3 (cookie); RFC 2132 (options, every length
 * checked; options of other codes skipped by their length). Option overload
 * (52) is refused: this client asks for nothing that needs it. Returns
 * DHCP_PARSE_OK and fills *m, or the first error found (*m then undefined). */
enum dhcp_parse_err dhcp_msg_parse(const uint8_t *pkt, size_t len, struct dhcp_msg *m);

/* The counter name of a parse error ("parse_short", ...); "ok" for OK. */
const char *dhcp_parse_err_name(enum dhcp_parse_err e);

/* A client message to build. Zero address fields mean "absent" for the
 * options (requested_ip, server_id) and 0.0.0.0 for ciaddr. */
struct dhcp_build {
	uint8_t type;                  /* DISCOVER, REQUEST, DECLINE or RELEASE */
	uint32_t xid;
	uint16_t secs;                 /* seconds since the exchange began */
	uint16_t flags;
	uint32_t ciaddr;
	uint32_t requested_ip;         /* option 50 when not 0 */
	uint32_t server_id;            /* option 54 when not 0 */
	const uint8_t *mac;            /* DHCP_HLEN_ETHER bytes: chaddr */
	const uint8_t *client_id;      /* option 61 when client_id_len != 0 */
	size_t client_id_len;          /* DHCP_CLIENT_ID_MIN .. DHCP_CLIENT_ID_MAX */
	const char *host_name;         /* option 12 when not NULL and not "" */
	bool param_list;               /* option 55: mask, router, lease, T1, T2 */
};

/* Build a client message (RFC 2131 4.4.1, table 5 says which fields each
 * state sets) into buf (cap bytes): BOOTREQUEST header, cookie, option 53
 * first, the options of b, end, padded to DHCP_MSG_MIN_LEN. Returns its
 * length in bytes, or 0 when cap is under DHCP_MSG_MAX_LEN or b is invalid
 * (no mac, a client id or host name out of bounds). */
size_t dhcp_msg_build(uint8_t *buf, size_t cap, const struct dhcp_build *b);

/* Netmask m as a prefix length 0..32, or -1 when its ones are not contiguous. */
int dhcp_mask_prefix(uint32_t m);

#endif
