/* SPDX-License-Identifier: BSD-3-Clause
 * Sanity checks of a server's OFFER or ACK before the client takes it: a
 * lease that is there and not absurdly short, a usable prefix, a router on
 * it, an address a host can have, a server identifier (RFC 2131 4.3.1 table
 * 3: OFFER and ACK MUST carry 51 and 54). A refusal is counted by name and
 * its text kept for the caller; the client's state does not change.
 */
#include <stdarg.h>
#include <stdio.h>

#include "dhcp_internal.h"

#define IPV4_NET_THIS      0x00000000u  /* 0/8: "this network" (RFC 1122 3.2.1.3) */
#define IPV4_NET_LOOPBACK  0x7f000000u  /* 127/8 */
#define IPV4_MASK_8        0xff000000u
#define IPV4_NET_MCAST     0xe0000000u  /* 224/4 (RFC 5771) */
#define IPV4_MASK_4        0xf0000000u
#define IPV4_NET_RESERVED  0xf0000000u  /* 240/4 with 255.255.255.255 (RFC 1112 4) */
#define IPV4_P2P_PREFIX    31           /* RFC 3021: a /31 has no network or broadcast address */

static const char *const reject_names[DHCP_REJECT_COUNT] = {
#define X(n, s) [DHCP_REJECT_##n] = s,
	DHCP_REJECTS(X)
#undef X
};

bool
dhcp_addr_bad(uint32_t a)
{
	return (a & IPV4_MASK_8) == IPV4_NET_THIS || (a & IPV4_MASK_8) == IPV4_NET_LOOPBACK ||
	       (a & IPV4_MASK_4) == IPV4_NET_MCAST || (a & IPV4_MASK_4) == IPV4_NET_RESERVED;
}

int
dhcp_reject(struct dhcp_client *c, enum dhcp_reject r, const char *fmt, ...)
{
	int n = snprintf(c->reject_text, sizeof(c->reject_text), "%s: ", reject_names[r]);
	va_list ap;

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(c->reject_text))
		vsnprintf(c->reject_text + n, sizeof(c->reject_text) - (size_t)n, fmt, ap);
	va_end(ap);
	c->cnt[DHCP_CNT_REJECT_FIRST + r]++;
	if (c->cfg.io.reject != NULL)
		c->cfg.io.reject(c->cfg.io.ctx, r, c->reject_text);
	return -1;
}

/* a is the network or broadcast address of its subnet (prefixes up to /30) */
static bool
subnet_edge(uint32_t a, uint32_t mask, int prefix)
{
	return prefix < IPV4_P2P_PREFIX && ((a & ~mask) == 0 || (a & ~mask) == ~mask);
}

static int
check_prefix(struct dhcp_client *c, const struct dhcp_msg *m, struct dhcp_lease *l)
{
	int prefix;

	if (!m->has_mask)
		return dhcp_reject(c, DHCP_REJECT_NO_MASK, "no subnet mask (option 1)");
	prefix = dhcp_mask_prefix(m->mask);
	if (prefix <= 0)
		return dhcp_reject(c, DHCP_REJECT_MASK, "netmask %08x is %s", m->mask,
				   prefix == 0 ? "/0" : "not contiguous");
	if (dhcp_addr_bad(m->yiaddr) || subnet_edge(m->yiaddr, m->mask, prefix))
		return dhcp_reject(c, DHCP_REJECT_YIADDR, "yiaddr %08x/%d not a host address",
				   m->yiaddr, prefix);
	if (m->router != 0 &&
	    ((m->router & m->mask) != (m->yiaddr & m->mask) || m->router == m->yiaddr ||
	     dhcp_addr_bad(m->router) || subnet_edge(m->router, m->mask, prefix)))
		return dhcp_reject(c, DHCP_REJECT_ROUTER, "router %08x not a host of %08x/%d",
				   m->router, m->yiaddr & m->mask, prefix);
	l->addr = m->yiaddr;
	l->mask = m->mask;
	l->prefix_len = (uint8_t)prefix;
	l->router = m->router;
	return 0;
}

int
dhcp_check_reply(struct dhcp_client *c, const struct dhcp_msg *m, uint32_t want_server,
		 struct dhcp_lease *l)
{
	if (!m->has_server_id || dhcp_addr_bad(m->server_id))
		return dhcp_reject(c, DHCP_REJECT_SERVER_ID, "server identifier (option 54) %s",
				   m->has_server_id ? "not a host address" : "missing");
	if (want_server != 0 && m->server_id != want_server)
		return dhcp_reject(c, DHCP_REJECT_SERVER_ID, "server %08x, asked %08x",
				   m->server_id, want_server);
	if (!m->has_lease)
		return dhcp_reject(c, DHCP_REJECT_NO_LEASE, "no lease time (option 51)");
	if (m->lease_s < DHCP_LEASE_MIN_S)
		return dhcp_reject(c, DHCP_REJECT_LEASE_SHORT, "lease %u s, minimum %u s",
				   m->lease_s, DHCP_LEASE_MIN_S);
	if (check_prefix(c, m, l) != 0)
		return -1;
	l->server_id = m->server_id;
	l->lease_s = m->lease_s;
	return 0;
}
