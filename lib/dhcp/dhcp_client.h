/* SPDX-License-Identifier: BSD-3-Clause
 * A DHCPv4 client (RFC 2131, options RFC 2132) for one interface: the state
 * machine of RFC 2131 section 4.4 (figure 5), the retransmission of 4.1, the
 * lease timers of 4.4.5, and sanity checks on what servers offer. Plain C, no
 * DPDK, no allocation after dhcp_client_create: messages and time (ns, any
 * monotonic clock) go in, messages to send and lease events come out through
 * callbacks (struct dhcp_client_io), as lib/hip's engine does.
 *
 * The client deals in UDP payloads (client port 68 to server port 67). The
 * caller wraps what it sends in UDP / IPv4 / Ethernet (dhcp_frame_build) and
 * hands in the payload of what arrives for UDP port 68 (dhcp_frame_parse).
 * The BROADCAST flag stays clear (RFC 2131 4.1): the caller must take server
 * replies unicast to the offered address before that address is configured.
 * No ARP probe is made of an offered address (RFC 2131 4.4.1 says SHOULD):
 * a caller that finds a conflict calls dhcp_client_decline.
 */
#ifndef HIPGW_DHCP_CLIENT_H
#define HIPGW_DHCP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dhcp_wire.h"

#define DHCP_NS_PER_S         1000000000ull
/* RFC 2131 4.1: retransmission 4 s, doubled up to 64 s, each +-1 s uniform */
#define DHCP_RETX_BASE_S      4
#define DHCP_RETX_MAX_S       64
#define DHCP_RETX_JITTER_NS   DHCP_NS_PER_S
/* RFC 2131 3.1 step 5: a DHCPREQUEST sent four more times (about 60 s) with
 * no answer: back to INIT */
#define DHCP_REQUEST_RETRIES  4
/* RFC 2131 4.4.1: a random wait of 1 to 10 s before the first DISCOVER */
#define DHCP_STARTUP_MIN_S    1
#define DHCP_STARTUP_MAX_S    10
/* RFC 2131 4.4.5: renewing / rebinding retransmission after half the time
 * left to T2 / to the expiry, at least 60 s */
#define DHCP_REACQUIRE_MIN_S  60
/* RFC 2131 3.1 step 5: at least 10 s after a DHCPDECLINE before restarting */
#define DHCP_DECLINE_WAIT_S   10
/* Shortest lease accepted, seconds: one renewing retransmission interval
 * (DHCP_REACQUIRE_MIN_S); a shorter one (or 0) is refused as absurd. */
#define DHCP_LEASE_MIN_S      60

/* RFC 2131 figure 5 (and 3.2 for INIT-REBOOT / REBOOTING) */
#define DHCP_STATES(X)                          \
	X(INIT, "init")                         \
	X(SELECTING, "selecting")               \
	X(REQUESTING, "requesting")             \
	X(BOUND, "bound")                       \
	X(RENEWING, "renewing")                 \
	X(REBINDING, "rebinding")               \
	X(INIT_REBOOT, "init-reboot")           \
	X(REBOOTING, "rebooting")

enum dhcp_state {
#define X(n, s) DHCP_ST_##n,
	DHCP_STATES(X)
#undef X
	DHCP_STATE_COUNT
};

/* Why an OFFER or ACK was refused: each a counter; the client keeps its
 * current lease (if any) and goes on as if the message had not come. */
#define DHCP_REJECTS(X)                                                        \
	X(NO_LEASE, "reject_no_lease")       /* no option 51 (RFC 2131 table 3: MUST) */ \
	X(LEASE_SHORT, "reject_lease_short") /* under DHCP_LEASE_MIN_S, or 0 */     \
	X(NO_MASK, "reject_no_mask")         /* no option 1: no on-link prefix */  \
	X(MASK, "reject_mask")               /* /0 or ones not contiguous */       \
	X(ROUTER, "reject_router")           /* router not a host of the subnet */ \
	X(YIADDR, "reject_yiaddr")           /* 0/8, loopback, multicast, 240/4, or the subnet's network / broadcast address */ \
	X(SERVER_ID, "reject_server_id")     /* no option 54, a bad one, or not the server asked */

enum dhcp_reject {
#define X(n, s) DHCP_REJECT_##n,
	DHCP_REJECTS(X)
#undef X
	DHCP_REJECT_COUNT
};

/* The client's counters, by name (dhcp_counter_name) */
#define DHCP_COUNTERS(X)                                                        \
	X(TX_DISCOVER, "tx_discover")                                          \
	X(TX_REQUEST, "tx_request")                                            \
	X(TX_DECLINE, "tx_decline")                                            \
	X(RETRANSMITS, "retransmits")        /* of the above, repeats */       \
	X(RX_OFFER, "rx_offer")                                                \
	X(RX_ACK, "rx_ack")                                                    \
	X(RX_NAK, "rx_nak")                                                    \
	X(RX_NOT_OURS, "rx_not_ours")        /* chaddr not our MAC */          \
	X(RX_XID, "rx_xid")                  /* xid not the exchange's */      \
	X(RX_UNEXPECTED, "rx_unexpected")    /* a type the state does not take */ \
	X(LEASE_BOUND, "lease_bound")                                          \
	X(LEASE_RENEWED, "lease_renewed")                                      \
	X(LEASE_CHANGED, "lease_changed")                                      \
	X(LEASE_LOST, "lease_lost")                                            \
	X(REQUEST_TIMEOUTS, "request_timeouts") /* REQUESTING / REBOOTING gave up */ \
	X(T1T2_FIXED, "t1t2_fixed")          /* T1 < T2 < lease broken: defaults used */

enum dhcp_counter {
#define X(n, s) DHCP_CNT_##n,
	DHCP_COUNTERS(X)
#undef X
	DHCP_CNT_PARSE_FIRST,    /* then one per enum dhcp_parse_err but OK */
	DHCP_CNT_REJECT_FIRST = DHCP_CNT_PARSE_FIRST + DHCP_PARSE_ERR_COUNT - 1,
	DHCP_CNT_COUNT = DHCP_CNT_REJECT_FIRST + DHCP_REJECT_COUNT
};

/* A lease as granted by an accepted DHCPACK (RFC 2131 4.4.1, 4.4.5). */
struct dhcp_lease {
	uint32_t addr;          /* yiaddr */
	uint32_t mask;
	uint8_t prefix_len;     /* 1..32 */
	uint32_t router;        /* first of option 3, on the subnet; 0: none given */
	uint32_t server_id;
	uint32_t lease_s;       /* seconds; DHCP_LEASE_INFINITE: never expires */
	uint32_t t1_s, t2_s;    /* seconds from start_ns: renewal, rebinding */
	uint64_t start_ns;      /* when the REQUEST that got it was first sent */
};

enum dhcp_lease_event {
	DHCP_LEASE_EV_BOUND,    /* a first lease (none held before) */
	DHCP_LEASE_EV_RENEWED,  /* same address, prefix and router; new times */
	DHCP_LEASE_EV_CHANGED,  /* address, prefix or router differ from the old lease */
};

#define DHCP_LOST_REASONS(X)             \
	X(EXPIRED, "expired")            \
	X(NAK, "nak")                    \
	X(DECLINED, "declined")

enum dhcp_lost_reason {
#define X(n, s) DHCP_LOST_##n,
	DHCP_LOST_REASONS(X)
#undef X
	DHCP_LOST_COUNT
};

struct dhcp_client_io {
	void *ctx;
	/* Send msg (len bytes, a UDP payload for port 67) from src_ip (0 before
	 * the client has an address) to dst_ip: DHCP_ADDR_BROADCAST, or the
	 * server's address when renewing (RFC 2131 4.4.5). Required. */
	void (*send)(void *ctx, const uint8_t *msg, size_t len, uint32_t src_ip, uint32_t dst_ip);
	/* A lease was bound, renewed or changed (old: the previous lease, NULL
	 * for BOUND). Required. */
	void (*lease)(void *ctx, enum dhcp_lease_event ev, const struct dhcp_lease *l,
		      const struct dhcp_lease *old);
	/* The address is no longer ours (old: the lease that ended): stop using
	 * it now. Required. */
	void (*lost)(void *ctx, enum dhcp_lost_reason why, const struct dhcp_lease *old);
	/* Optional: an OFFER or ACK was refused; text as dhcp_client_last_reject. */
	void (*reject)(void *ctx, enum dhcp_reject r, const char *text);
};

struct dhcp_client_cfg {
	uint8_t mac[DHCP_HLEN_ETHER];         /* chaddr */
	/* option 61 (RFC 2132 9.14); length 0: type 1 (Ethernet) and mac */
	uint8_t client_id[DHCP_CLIENT_ID_MAX];
	size_t client_id_len;
	char host_name[DHCP_HOST_NAME_MAX + 1]; /* option 12 unless "" */
	/* not 0: start in INIT-REBOOT asking for this address (RFC 2131 3.2) */
	uint32_t reboot_addr;
	/* skip RFC 2131 4.4.1's 1..10 s wait before the first message */
	bool no_startup_delay;
	/* random bytes (xid, jitter); 0 on success. NULL: getrandom(2). */
	int (*rng)(void *ctx, void *buf, size_t len);
	void *rng_ctx;
	struct dhcp_client_io io;
};

struct dhcp_client;

/* A client in INIT (or INIT-REBOOT with cfg->reboot_addr), its first message
 * due at now_ns plus the startup wait. Allocates the client once. Returns
 * NULL when cfg lacks a callback, has a client id of 1 or more than
 * DHCP_CLIENT_ID_MAX bytes, a host name without its NUL, or on no memory.
 * RFC 2131 4.4.1. */
struct dhcp_client *dhcp_client_create(const struct dhcp_client_cfg *cfg, uint64_t now_ns);

/* Free the client (NULL: nothing). No callback is made. */
void dhcp_client_destroy(struct dhcp_client *c);

/* One message from a server: msg is the UDP payload (len bytes) received on
 * port 68, now_ns the current time. Parsed (dhcp_msg_parse), matched to the
 * exchange (chaddr, xid: RFC 2131 4.4.1), checked (OFFER, ACK: enum
 * dhcp_reject), then run through the state table (RFC 2131 4.4, figure 5),
 * which may call send, lease, lost. Returns 0 when the message moved the
 * client, -1 when it was dropped (counted by name). */
int dhcp_client_input(struct dhcp_client *c, const uint8_t *msg, size_t len, uint64_t now_ns);

/* Run the timers due at now_ns: the startup wait, retransmissions (RFC 2131
 * 4.1), T1, T2 and the lease's end (4.4.5). Call it at dhcp_client_next_ns
 * or later; earlier calls do nothing. */
void dhcp_client_tick(struct dhcp_client *c, uint64_t now_ns);

/* The time (ns) of the next timer, UINT64_MAX when none. */
uint64_t dhcp_client_next_ns(const struct dhcp_client *c);

/* The caller found the bound address in use (RFC 2131 4.4.1): send a
 * DHCPDECLINE, lose the lease (lost: DECLINED) and restart in INIT after
 * DHCP_DECLINE_WAIT_S. Returns 0, or -1 when no lease is held. */
int dhcp_client_decline(struct dhcp_client *c, uint64_t now_ns);

enum dhcp_state dhcp_client_state(const struct dhcp_client *c);
/* "init", "selecting", ... ("?" out of range) */
const char *dhcp_state_name(enum dhcp_state s);
/* The lease held (BOUND, RENEWING, REBINDING), else NULL. */
const struct dhcp_lease *dhcp_client_lease(const struct dhcp_client *c);
/* Counter i (enum dhcp_counter) and its name ("tx_discover", ...; NULL out
 * of range). */
uint64_t dhcp_client_counter(const struct dhcp_client *c, unsigned i);
const char *dhcp_counter_name(unsigned i);
/* The last refusal as text ("reject_lease_short: lease 30 s, minimum 60 s"),
 * "" before any. */
const char *dhcp_client_last_reject(const struct dhcp_client *c);
const char *dhcp_lost_reason_name(enum dhcp_lost_reason r);

#endif
