/* SPDX-License-Identifier: BSD-3-Clause
 * The DHCPv4 client's state machine (RFC 2131 4.4, figure 5; 3.2 for
 * INIT-REBOOT), its timers and the messages it sends (table 5).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "dhcp_internal.h"

enum dhcp_event {
	EV_TIMER,    /* the state's timer: startup wait, retransmission */
	EV_T1,       /* renewal time */
	EV_T2,       /* rebinding time */
	EV_EXPIRE,   /* the lease's end */
	EV_OFFER,
	EV_ACK,
	EV_NAK,
	EV_COUNT
};

/* Timer events one tick may run: expiry, T2, T1, retransmission, and the
 * DISCOVER of an INIT entered on the way, with room to spare */
#define TICK_STEPS_MAX      8
/* back-off steps counted: beyond them the delay is DHCP_RETX_MAX_S anyway */
#define DHCP_RETX_SHIFT_MAX 16

typedef void (*dhcp_action)(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now);

struct dhcp_row {
	enum dhcp_state st;
	enum dhcp_event ev;
	dhcp_action act;
	const char *rfc;    /* what RFC 2131 says there */
};

static const char *const state_names[DHCP_STATE_COUNT] = {
#define X(n, s) [DHCP_ST_##n] = s,
	DHCP_STATES(X)
#undef X
};

static const char *const lost_names[DHCP_LOST_COUNT] = {
#define X(n, s) [DHCP_LOST_##n] = s,
	DHCP_LOST_REASONS(X)
#undef X
};

static const char *const counter_names[DHCP_CNT_COUNT] = {
#define X(n, s) [DHCP_CNT_##n] = s,
	DHCP_COUNTERS(X)
#undef X
#define X(n, s) [DHCP_CNT_PARSE_FIRST + DHCP_PARSE_##n - 1] = s,
	DHCP_PARSE_ERRORS(X)
#undef X
#define X(n, s) [DHCP_CNT_REJECT_FIRST + DHCP_REJECT_##n] = s,
	DHCP_REJECTS(X)
#undef X
};

static uint32_t
rand32(struct dhcp_client *c)
{
	uint32_t v = 0;

	if (c->cfg.rng != NULL) {
		if (c->cfg.rng(c->cfg.rng_ctx, &v, sizeof(v)) != 0)
			v = 0;
	} else if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
		v = 0;
	}
	return v;
}

static uint64_t
rand64(struct dhcp_client *c)
{
	return (uint64_t)rand32(c) << 32 | rand32(c);
}

/* RFC 2131 4.1: 4 s doubled per retransmission up to 64 s, +-1 s uniform */
static uint64_t
backoff_ns(struct dhcp_client *c, unsigned k)
{
	uint64_t s = DHCP_RETX_MAX_S;

	if (k < DHCP_RETX_SHIFT_MAX && ((uint64_t)DHCP_RETX_BASE_S << k) < DHCP_RETX_MAX_S)
		s = (uint64_t)DHCP_RETX_BASE_S << k;

	return s * DHCP_NS_PER_S + rand64(c) % (2 * DHCP_RETX_JITTER_NS + 1) - DHCP_RETX_JITTER_NS;
}

/* RFC 2131 4.4.5: half the time left to deadline, at least 60 s */
static uint64_t
reacquire_ns(uint64_t now, uint64_t deadline)
{
	uint64_t half = deadline > now ? (deadline - now) / 2 : 0;

	return half > DHCP_REACQUIRE_MIN_S * DHCP_NS_PER_S ? half
							   : DHCP_REACQUIRE_MIN_S * DHCP_NS_PER_S;
}

static uint64_t
add_s(uint64_t t, uint32_t s)
{
	uint64_t d = (uint64_t)s * DHCP_NS_PER_S;

	return t > UINT64_MAX - d ? UINT64_MAX : t + d;
}

/* The message of table 5 for the current state, sent through io.send. */
static void
send_msg(struct dhcp_client *c, uint8_t type, uint64_t now)
{
	struct dhcp_build b = {
		.type = type, .xid = c->xid, .mac = c->cfg.mac,
		.client_id = c->cid, .client_id_len = c->cid_len,
		/* table 5: a DECLINE carries no other options */
		.host_name = type != DHCP_DECLINE ? c->cfg.host_name : NULL,
		.param_list = type != DHCP_DECLINE,
	};
	uint64_t secs = (now - c->xact_start_ns) / DHCP_NS_PER_S;
	uint32_t src = 0, dst = DHCP_ADDR_BROADCAST;
	size_t len;

	b.secs = type == DHCP_DECLINE ? 0 : (uint16_t)(secs > UINT16_MAX ? UINT16_MAX : secs);
	switch (c->st) {
	case DHCP_ST_REQUESTING:     /* SELECTING's REQUEST: 50 and 54, ciaddr 0 */
		b.requested_ip = c->offer_addr;
		b.server_id = c->offer_server;
		break;
	case DHCP_ST_REBOOTING:      /* 50, no 54, ciaddr 0 */
		b.requested_ip = c->cfg.reboot_addr;
		break;
	case DHCP_ST_RENEWING:       /* ciaddr, no 50 / 54; unicast to the server */
		dst = c->lease.server_id;
		/* fall through */
	case DHCP_ST_REBINDING:      /* ciaddr, no 50 / 54; broadcast */
		b.ciaddr = c->lease.addr;
		src = c->lease.addr;
		break;
	default:
		break;
	}
	if (type == DHCP_DECLINE) {  /* table 5: 50 and 54, ciaddr 0; broadcast */
		b.ciaddr = 0;
		b.requested_ip = c->lease.addr;
		b.server_id = c->lease.server_id;
		src = 0;
		dst = DHCP_ADDR_BROADCAST;
	}
	len = dhcp_msg_build(c->buf, sizeof(c->buf), &b);
	if (len == 0)
		return;
	c->cnt[type == DHCP_DISCOVER ? DHCP_CNT_TX_DISCOVER :
	       type == DHCP_REQUEST ? DHCP_CNT_TX_REQUEST : DHCP_CNT_TX_DECLINE]++;
	c->cfg.io.send(c->cfg.io.ctx, c->buf, len, src, dst);
}

/* A new exchange: fresh xid, secs from now (RFC 2131 4.4.1) */
static void
new_xact(struct dhcp_client *c, uint64_t now)
{
	c->xid = rand32(c);
	c->xact_start_ns = now;
	c->retries = 0;
}

/* Back to INIT (after wait_ns), the lease dropped without a callback. */
static void
to_init(struct dhcp_client *c, uint64_t now, uint64_t wait_ns)
{
	c->st = DHCP_ST_INIT;
	c->have_lease = false;
	c->t1_ns = c->t2_ns = c->end_ns = UINT64_MAX;
	c->next_tx_ns = now + wait_ns;
}

static void
lose(struct dhcp_client *c, enum dhcp_lost_reason why, uint64_t now, uint64_t wait_ns)
{
	struct dhcp_lease old = c->lease;
	bool had = c->have_lease;

	to_init(c, now, wait_ns);
	if (had) {
		c->cnt[DHCP_CNT_LEASE_LOST]++;
		c->cfg.io.lost(c->cfg.io.ctx, why, &old);
	}
}

/* ---- actions of the state table ---- */

static void
discover(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	new_xact(c, now);
	c->st = DHCP_ST_SELECTING;
	send_msg(c, DHCP_DISCOVER, now);
	c->next_tx_ns = now + backoff_ns(c, 0);
}

static void
reboot(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	new_xact(c, now);
	c->req_start_ns = now;
	c->st = DHCP_ST_REBOOTING;
	send_msg(c, DHCP_REQUEST, now);
	c->next_tx_ns = now + backoff_ns(c, 0);
}

static void
retransmit_discover(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	c->retries++;
	c->cnt[DHCP_CNT_RETRANSMITS]++;
	send_msg(c, DHCP_DISCOVER, now);
	c->next_tx_ns = now + backoff_ns(c, c->retries);
}

static void
take_offer(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	struct dhcp_lease l;

	if (dhcp_check_reply(c, m, 0, &l) != 0)
		return;
	c->offer_addr = l.addr;
	c->offer_server = l.server_id;
	c->st = DHCP_ST_REQUESTING;    /* same xid as the OFFER (RFC 2131 4.4.1) */
	c->retries = 0;
	c->req_start_ns = now;
	send_msg(c, DHCP_REQUEST, now);
	c->next_tx_ns = now + backoff_ns(c, 0);
}

static void
retransmit_request(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	if (c->retries >= DHCP_REQUEST_RETRIES) {
		c->cnt[DHCP_CNT_REQUEST_TIMEOUTS]++;
		to_init(c, now, 0);
		return;
	}
	c->retries++;
	c->cnt[DHCP_CNT_RETRANSMITS]++;
	send_msg(c, DHCP_REQUEST, now);
	c->next_tx_ns = now + backoff_ns(c, c->retries);
}

/* T1 and T2 from the ACK, or RFC 2131 4.4.5's 0.5 and 0.875 of the lease;
 * a set that breaks T1 < T2 < lease gets the defaults too. */
static void
lease_times(struct dhcp_client *c, const struct dhcp_msg *m, struct dhcp_lease *l)
{
	uint32_t d1 = l->lease_s / 2, d2 = (uint32_t)((uint64_t)l->lease_s * 7 / 8);

	l->t1_s = m->has_t1 ? m->t1_s : d1;
	l->t2_s = m->has_t2 ? m->t2_s : d2;
	if (l->lease_s == DHCP_LEASE_INFINITE) {
		l->t1_s = l->t2_s = DHCP_LEASE_INFINITE;
	} else if (!(l->t1_s < l->t2_s && l->t2_s < l->lease_s)) {
		c->cnt[DHCP_CNT_T1T2_FIXED]++;
		l->t1_s = d1;
		l->t2_s = d2;
	}
}

/* An ACK in REQUESTING, REBOOTING, RENEWING or REBINDING: checked, then the
 * lease taken and its timers started from the REQUEST's time (4.4.1). */
static void
bind(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	uint32_t want = c->st == DHCP_ST_REQUESTING ? c->offer_server : 0;
	struct dhcp_lease l, old = c->lease;
	enum dhcp_lease_event ev;
	bool had = c->have_lease;

	(void)now;
	memset(&l, 0, sizeof(l));
	if (dhcp_check_reply(c, m, want, &l) != 0)
		return;
	lease_times(c, m, &l);
	l.start_ns = c->req_start_ns;
	if (!had)
		ev = DHCP_LEASE_EV_BOUND;
	else if (l.addr == old.addr && l.prefix_len == old.prefix_len && l.router == old.router)
		ev = DHCP_LEASE_EV_RENEWED;
	else
		ev = DHCP_LEASE_EV_CHANGED;
	c->lease = l;
	c->have_lease = true;
	c->naks = 0;
	c->st = DHCP_ST_BOUND;
	c->next_tx_ns = UINT64_MAX;
	if (l.lease_s == DHCP_LEASE_INFINITE) {
		c->t1_ns = c->t2_ns = c->end_ns = UINT64_MAX;
	} else {
		c->t1_ns = add_s(l.start_ns, l.t1_s);
		c->t2_ns = add_s(l.start_ns, l.t2_s);
		c->end_ns = add_s(l.start_ns, l.lease_s);
	}
	c->cnt[ev == DHCP_LEASE_EV_BOUND ? DHCP_CNT_LEASE_BOUND :
	       ev == DHCP_LEASE_EV_RENEWED ? DHCP_CNT_LEASE_RENEWED : DHCP_CNT_LEASE_CHANGED]++;
	c->cfg.io.lease(c->cfg.io.ctx, ev, &c->lease, had ? &old : NULL);
}

/* A NAK: valid only with a server id (RFC 2131 table 3), from the server
 * asked when there is one; then INIT, after a back-off that grows with each
 * NAK in a row (4 s doubling to 64 s, +-1 s) so that a NAK storm is bounded. */
static void
nak(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	uint32_t want = c->st == DHCP_ST_REQUESTING ? c->offer_server :
			c->st == DHCP_ST_RENEWING ? c->lease.server_id : 0;

	if (!m->has_server_id || (want != 0 && m->server_id != want)) {
		dhcp_reject(c, DHCP_REJECT_SERVER_ID, "DHCPNAK from %08x, asked %08x",
			    m->has_server_id ? m->server_id : 0, want);
		return;
	}
	lose(c, DHCP_LOST_NAK, now, backoff_ns(c, c->naks));
	if (c->naks < DHCP_RETX_SHIFT_MAX)
		c->naks++;
}

static void
renew(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	new_xact(c, now);
	c->req_start_ns = now;
	c->st = DHCP_ST_RENEWING;
	send_msg(c, DHCP_REQUEST, now);
	c->next_tx_ns = now + reacquire_ns(now, c->t2_ns);
}

static void
retransmit_renew(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	c->retries++;
	c->cnt[DHCP_CNT_RETRANSMITS]++;
	send_msg(c, DHCP_REQUEST, now);
	c->next_tx_ns = now + reacquire_ns(now, c->st == DHCP_ST_RENEWING ? c->t2_ns : c->end_ns);
}

/* T2: the same exchange goes on, broadcast to any server (RFC 2131 4.4.5);
 * from BOUND (a late tick) the renewal starts here. */
static void
rebind(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	if (c->st == DHCP_ST_BOUND) {
		new_xact(c, now);
		c->req_start_ns = now;
	}
	c->st = DHCP_ST_REBINDING;
	send_msg(c, DHCP_REQUEST, now);
	c->next_tx_ns = now + reacquire_ns(now, c->end_ns);
}

static void
expire(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now)
{
	(void)m;
	lose(c, DHCP_LOST_EXPIRED, now, 0);
}

/* RFC 2131 4.4, figure 5 (3.2 for INIT-REBOOT and REBOOTING). A (state,
 * event) not listed is ignored; a message then counts as rx_unexpected. */
static const struct dhcp_row fsm[] = {
	{ DHCP_ST_INIT, EV_TIMER, discover, "4.4.1: -/Send DHCPDISCOVER" },
	{ DHCP_ST_INIT_REBOOT, EV_TIMER, reboot, "3.2, 4.4.2: -/Send DHCPREQUEST" },
	{ DHCP_ST_SELECTING, EV_TIMER, retransmit_discover, "4.1: retransmit, back-off" },
	{ DHCP_ST_SELECTING, EV_OFFER, take_offer, "4.4.1: Select offer/send DHCPREQUEST" },
	{ DHCP_ST_REQUESTING, EV_TIMER, retransmit_request, "3.1 (5), 4.1: retransmit; INIT after 4" },
	{ DHCP_ST_REQUESTING, EV_ACK, bind, "4.4.1: DHCPACK/Record lease, set timers T1, T2" },
	{ DHCP_ST_REQUESTING, EV_NAK, nak, "4.4.1: DHCPNAK/Discard offer -> INIT" },
	{ DHCP_ST_REBOOTING, EV_TIMER, retransmit_request, "3.2 (4): retransmit; INIT after 4" },
	{ DHCP_ST_REBOOTING, EV_ACK, bind, "3.2: DHCPACK/Record lease, set timers" },
	{ DHCP_ST_REBOOTING, EV_NAK, nak, "3.2: DHCPNAK/Restart -> INIT" },
	{ DHCP_ST_BOUND, EV_T1, renew, "4.4.5: T1 expires/Send DHCPREQUEST to leasing server" },
	{ DHCP_ST_BOUND, EV_T2, rebind, "4.4.5: (tick after T2) broadcast DHCPREQUEST" },
	{ DHCP_ST_BOUND, EV_EXPIRE, expire, "4.4.5: (tick after the end) lease expired -> INIT" },
	{ DHCP_ST_RENEWING, EV_TIMER, retransmit_renew, "4.4.5: wait half the time to T2, >= 60 s" },
	{ DHCP_ST_RENEWING, EV_ACK, bind, "4.4.5: DHCPACK/Record lease, set timers T1, T2" },
	{ DHCP_ST_RENEWING, EV_NAK, nak, "4.4.5: DHCPNAK/Halt network -> INIT" },
	{ DHCP_ST_RENEWING, EV_T2, rebind, "4.4.5: T2 expires/Broadcast DHCPREQUEST" },
	{ DHCP_ST_RENEWING, EV_EXPIRE, expire, "4.4.5: lease expired/Halt network -> INIT" },
	{ DHCP_ST_REBINDING, EV_TIMER, retransmit_renew, "4.4.5: wait half the time to the end, >= 60 s" },
	{ DHCP_ST_REBINDING, EV_ACK, bind, "4.4.5: DHCPACK/Record lease, set timers T1, T2" },
	{ DHCP_ST_REBINDING, EV_NAK, nak, "4.4.5: DHCPNAK/Halt network -> INIT" },
	{ DHCP_ST_REBINDING, EV_EXPIRE, expire, "4.4.5: lease expired/Halt network -> INIT" },
};

static int
run(struct dhcp_client *c, enum dhcp_event ev, const struct dhcp_msg *m, uint64_t now)
{
	for (size_t i = 0; i < sizeof(fsm) / sizeof(fsm[0]); i++) {
		if (fsm[i].st == c->st && fsm[i].ev == ev) {
			fsm[i].act(c, m, now);
			return 0;
		}
	}
	return -1;
}

static uint64_t
rejects(const struct dhcp_client *c)
{
	uint64_t n = 0;

	for (unsigned r = 0; r < DHCP_REJECT_COUNT; r++)
		n += c->cnt[DHCP_CNT_REJECT_FIRST + r];
	return n;
}

struct dhcp_client *
dhcp_client_create(const struct dhcp_client_cfg *cfg, uint64_t now_ns)
{
	struct dhcp_client *c;
	uint64_t wait = 0;

	if (cfg == NULL || cfg->io.send == NULL || cfg->io.lease == NULL || cfg->io.lost == NULL ||
	    cfg->client_id_len == 1 || cfg->client_id_len > DHCP_CLIENT_ID_MAX ||
	    memchr(cfg->host_name, 0, sizeof(cfg->host_name)) == NULL)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->cfg = *cfg;
	if (cfg->client_id_len != 0) {
		memcpy(c->cid, cfg->client_id, cfg->client_id_len);
		c->cid_len = cfg->client_id_len;
	} else {                        /* RFC 2132 9.14: type 1, the MAC */
		c->cid[0] = DHCP_HTYPE_ETHER;
		memcpy(c->cid + 1, cfg->mac, DHCP_HLEN_ETHER);
		c->cid_len = 1 + DHCP_HLEN_ETHER;
	}
	if (!cfg->no_startup_delay)
		wait = DHCP_STARTUP_MIN_S * DHCP_NS_PER_S +
		       rand64(c) % ((DHCP_STARTUP_MAX_S - DHCP_STARTUP_MIN_S) * DHCP_NS_PER_S + 1);
	to_init(c, now_ns, wait);
	if (cfg->reboot_addr != 0 && !dhcp_addr_bad(cfg->reboot_addr))
		c->st = DHCP_ST_INIT_REBOOT;
	return c;
}

void
dhcp_client_destroy(struct dhcp_client *c)
{
	free(c);
}

int
dhcp_client_input(struct dhcp_client *c, const uint8_t *msg, size_t len, uint64_t now_ns)
{
	enum dhcp_parse_err e;
	enum dhcp_state st;
	enum dhcp_event ev;
	uint64_t rejected;
	struct dhcp_msg m;

	e = dhcp_msg_parse(msg, len, &m);
	if (e != DHCP_PARSE_OK) {
		c->cnt[DHCP_CNT_PARSE_FIRST + e - 1]++;
		return -1;
	}
	if (memcmp(m.chaddr, c->cfg.mac, DHCP_HLEN_ETHER) != 0) {
		c->cnt[DHCP_CNT_RX_NOT_OURS]++;
		return -1;
	}
	switch (m.type) {
	case DHCP_OFFER: ev = EV_OFFER; c->cnt[DHCP_CNT_RX_OFFER]++; break;
	case DHCP_ACK: ev = EV_ACK; c->cnt[DHCP_CNT_RX_ACK]++; break;
	case DHCP_NAK: ev = EV_NAK; c->cnt[DHCP_CNT_RX_NAK]++; break;
	default:
		c->cnt[DHCP_CNT_RX_UNEXPECTED]++;
		return -1;
	}
	/* no exchange in INIT / INIT-REBOOT / BOUND: every xid is stale there */
	if (c->st == DHCP_ST_INIT || c->st == DHCP_ST_INIT_REBOOT || c->st == DHCP_ST_BOUND) {
		c->cnt[DHCP_CNT_RX_UNEXPECTED]++;
		return -1;
	}
	if (m.xid != c->xid) {
		c->cnt[DHCP_CNT_RX_XID]++;
		return -1;
	}
	st = c->st;
	rejected = rejects(c);
	if (run(c, ev, &m, now_ns) != 0) {
		c->cnt[DHCP_CNT_RX_UNEXPECTED]++;
		return -1;
	}
	/* refused by the checks (counted there): nothing moved */
	return rejects(c) != rejected && c->st == st ? -1 : 0;
}

void
dhcp_client_tick(struct dhcp_client *c, uint64_t now_ns)
{
	/* each step moves a deadline past now or changes state; bounded anyway */
	for (int i = 0; i < TICK_STEPS_MAX; i++) {
		bool leased = c->st == DHCP_ST_BOUND || c->st == DHCP_ST_RENEWING ||
			      c->st == DHCP_ST_REBINDING;
		enum dhcp_event ev;

		if (leased && now_ns >= c->end_ns)
			ev = EV_EXPIRE;
		else if (leased && c->st != DHCP_ST_REBINDING && now_ns >= c->t2_ns)
			ev = EV_T2;
		else if (c->st == DHCP_ST_BOUND && now_ns >= c->t1_ns)
			ev = EV_T1;
		else if (now_ns >= c->next_tx_ns)
			ev = EV_TIMER;
		else
			return;
		if (run(c, ev, NULL, now_ns) != 0)
			return;
	}
}

uint64_t
dhcp_client_next_ns(const struct dhcp_client *c)
{
	uint64_t t = c->next_tx_ns;

	if (c->st == DHCP_ST_BOUND && c->t1_ns < t)
		t = c->t1_ns;
	if ((c->st == DHCP_ST_BOUND || c->st == DHCP_ST_RENEWING) && c->t2_ns < t)
		t = c->t2_ns;
	if (c->have_lease && c->end_ns < t)
		t = c->end_ns;
	return t;
}

int
dhcp_client_decline(struct dhcp_client *c, uint64_t now_ns)
{
	if (!c->have_lease)
		return -1;
	send_msg(c, DHCP_DECLINE, now_ns);
	lose(c, DHCP_LOST_DECLINED, now_ns, DHCP_DECLINE_WAIT_S * DHCP_NS_PER_S);
	return 0;
}

enum dhcp_state
dhcp_client_state(const struct dhcp_client *c)
{
	return c->st;
}

const char *
dhcp_state_name(enum dhcp_state s)
{
	return (unsigned)s < DHCP_STATE_COUNT ? state_names[s] : "?";
}

const struct dhcp_lease *
dhcp_client_lease(const struct dhcp_client *c)
{
	return c->have_lease ? &c->lease : NULL;
}

uint64_t
dhcp_client_counter(const struct dhcp_client *c, unsigned i)
{
	return i < DHCP_CNT_COUNT ? c->cnt[i] : 0;
}

const char *
dhcp_counter_name(unsigned i)
{
	return i < DHCP_CNT_COUNT ? counter_names[i] : NULL;
}

const char *
dhcp_client_last_reject(const struct dhcp_client *c)
{
	return c->reject_text;
}

const char *
dhcp_lost_reason_name(enum dhcp_lost_reason r)
{
	return (unsigned)r < DHCP_LOST_COUNT ? lost_names[r] : "?";
}
