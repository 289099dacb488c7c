/* SPDX-License-Identifier: BSD-3-Clause
 * The client's state, shared by its state machine (dhcp_client.c) and its
 * checks of offers and acks (dhcp_check.c). lib/dhcp only.
 */
#ifndef HIPGW_DHCP_INTERNAL_H
#define HIPGW_DHCP_INTERNAL_H

#include "dhcp_client.h"

#define DHCP_REJECT_TEXT_LEN 96   /* bytes with the NUL */

struct dhcp_client {
	struct dhcp_client_cfg cfg;
	uint8_t cid[DHCP_CLIENT_ID_MAX];   /* option 61 as sent */
	size_t cid_len;
	enum dhcp_state st;
	uint32_t xid;                      /* of the exchange under way */
	uint64_t xact_start_ns;            /* its first message: the secs field */
	uint64_t req_start_ns;             /* its first REQUEST: the lease's start */
	uint64_t next_tx_ns;               /* the state's timer; UINT64_MAX: none */
	unsigned retries;                  /* retransmissions of the current message */
	unsigned naks;                     /* DHCPNAKs since the last lease: INIT back-off */
	uint32_t offer_addr, offer_server; /* the OFFER taken (SELECTING) */
	bool have_lease;                   /* set only from an accepted ACK */
	struct dhcp_lease lease;
	uint64_t t1_ns, t2_ns, end_ns;     /* absolute; UINT64_MAX: infinite lease */
	uint64_t cnt[DHCP_CNT_COUNT];
	char reject_text[DHCP_REJECT_TEXT_LEN];
	uint8_t buf[DHCP_MSG_MAX_LEN];     /* the message being sent */
};

/* Check an OFFER or ACK (RFC 2131 4.4.1; the limits of dhcp_client.h) and
 * the lease it describes into *l (times not set). Returns -1 on a refusal:
 * counted, its text in c->reject_text, io.reject called. want_server: not 0,
 * the server id it must carry. */
int dhcp_check_reply(struct dhcp_client *c, const struct dhcp_msg *m, uint32_t want_server,
		     struct dhcp_lease *l);

/* Refuse with reason r: count it, write the text, tell io.reject; -1. */
int dhcp_reject(struct dhcp_client *c, enum dhcp_reject r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* True for an address no host can have: 0/8, 127/8, 224/4 (multicast),
 * 240/4 (reserved, and the limited broadcast). */
bool dhcp_addr_bad(uint32_t a);

#endif
