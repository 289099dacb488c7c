/* SPDX-License-Identifier: BSD-3-Clause
 * lib/dhcp: the DHCPv4 client (RFC 2131) against a scripted server on a fake
 * clock: the full exchange, renewal, rebinding, expiry, NAKs, a changed
 * address, every refused offer, retransmission times, stale xids; the wire
 * parser's refusals and the frame wrapping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "dhcp_client.h"
#include "dhcp_frame.h"

#define S(x) ((uint64_t)(x) * DHCP_NS_PER_S)
#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x42 };
#define SRV1 IP(192, 0, 2, 1)
#define SRV2 IP(192, 0, 2, 2)
#define ADDR IP(192, 0, 2, 50)
#define ADDR2 IP(192, 0, 2, 77)
#define MASK24 0xffffff00u

/* What the fake io saw */
struct sent {
	uint8_t msg[DHCP_MSG_MAX_LEN];
	size_t len;
	uint32_t src, dst;
};

static struct {
	struct sent tx[64];
	unsigned n_tx;
	unsigned n_lease, n_lost, n_reject;
	enum dhcp_lease_event last_ev;
	struct dhcp_lease last, old;
	bool had_old;
	enum dhcp_lost_reason lost_why;
	uint32_t rng_state;
} io;

static void
on_send(void *ctx, const uint8_t *msg, size_t len, uint32_t src, uint32_t dst)
{
	struct sent *s = &io.tx[io.n_tx++ % 64];

	(void)ctx;
	assert_true(len <= DHCP_MSG_MAX_LEN && len >= DHCP_MSG_MIN_LEN);
	memcpy(s->msg, msg, len);
	s->len = len;
	s->src = src;
	s->dst = dst;
}

static void
on_lease(void *ctx, enum dhcp_lease_event ev, const struct dhcp_lease *l,
	 const struct dhcp_lease *old)
{
	(void)ctx;
	io.n_lease++;
	io.last_ev = ev;
	io.last = *l;
	io.had_old = old != NULL;
	if (old != NULL)
		io.old = *old;
}

static void
on_lost(void *ctx, enum dhcp_lost_reason why, const struct dhcp_lease *old)
{
	(void)ctx;
	(void)old;
	io.n_lost++;
	io.lost_why = why;
}

static void
on_reject(void *ctx, enum dhcp_reject r, const char *text)
{
	(void)ctx;
	(void)r;
	assert_true(strlen(text) > 0);
	io.n_reject++;
}

/* deterministic xorshift, so xids and jitter repeat */
static int
test_rng(void *ctx, void *buf, size_t len)
{
	uint8_t *b = buf;

	(void)ctx;
	for (size_t i = 0; i < len; i++) {
		io.rng_state ^= io.rng_state << 13;
		io.rng_state ^= io.rng_state >> 17;
		io.rng_state ^= io.rng_state << 5;
		b[i] = (uint8_t)io.rng_state;
	}
	return 0;
}

static struct dhcp_client *
new_client(bool real_rng)
{
	struct dhcp_client_cfg cfg = {
		.no_startup_delay = true,
		.io = { .send = on_send, .lease = on_lease, .lost = on_lost, .reject = on_reject },
	};

	memset(&io, 0, sizeof(io));
	io.rng_state = 0x12345678;
	memcpy(cfg.mac, mac, 6);
	strcpy(cfg.host_name, "hgw-test");
	if (!real_rng)
		cfg.rng = test_rng;
	return dhcp_client_create(&cfg, 0);
}

static const struct sent *
last_tx(void)
{
	assert_true(io.n_tx > 0);
	return &io.tx[(io.n_tx - 1) % 64];
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Option code of a sent message: its value, NULL when absent. */
static const uint8_t *
tx_opt(const struct sent *s, uint8_t code, uint8_t *len)
{
	for (size_t i = DHCP_OPTIONS_OFF; i + 1 < s->len;) {
		if (s->msg[i] == DHCP_OPT_PAD) {
			i++;
			continue;
		}
		if (s->msg[i] == DHCP_OPT_END)
			break;
		if (s->msg[i] == code) {
			*len = s->msg[i + 1];
			return s->msg + i + 2;
		}
		i += 2 + s->msg[i + 1];
	}
	return NULL;
}

static uint8_t
tx_type(const struct sent *s)
{
	uint8_t n;
	const uint8_t *v = tx_opt(s, DHCP_OPT_MSG_TYPE, &n);

	assert_non_null(v);
	assert_int_equal(n, 1);
	return v[0];
}

static uint32_t
tx_addr_opt(const struct sent *s, uint8_t code)
{
	uint8_t n;
	const uint8_t *v = tx_opt(s, code, &n);

	if (v == NULL)
		return 0;
	assert_int_equal(n, 4);
	return get32(v);
}

/* A server reply; fields 0 / false leave an option out. */
struct reply {
	uint8_t type;
	uint32_t xid, yiaddr, server, mask, router;
	uint32_t lease, t1, t2;
	bool no_lease, no_mask;
};

static uint8_t *
opt32(uint8_t *p, uint8_t code, uint32_t v)
{
	*p++ = code;
	*p++ = 4;
	*p++ = (uint8_t)(v >> 24);
	*p++ = (uint8_t)(v >> 16);
	*p++ = (uint8_t)(v >> 8);
	*p++ = (uint8_t)v;
	return p;
}

static size_t
build_reply(uint8_t *b, const struct reply *r)
{
	uint8_t *p;

	memset(b, 0, DHCP_MSG_MAX_LEN);
	b[0] = DHCP_OP_BOOTREPLY;
	b[1] = DHCP_HTYPE_ETHER;
	b[2] = DHCP_HLEN_ETHER;
	b[4] = (uint8_t)(r->xid >> 24);
	b[5] = (uint8_t)(r->xid >> 16);
	b[6] = (uint8_t)(r->xid >> 8);
	b[7] = (uint8_t)r->xid;
	b[16] = (uint8_t)(r->yiaddr >> 24);
	b[17] = (uint8_t)(r->yiaddr >> 16);
	b[18] = (uint8_t)(r->yiaddr >> 8);
	b[19] = (uint8_t)r->yiaddr;
	memcpy(b + DHCP_OFF_CHADDR, mac, 6);
	b[236] = 99, b[237] = 130, b[238] = 83, b[239] = 99;
	p = b + DHCP_OPTIONS_OFF;
	*p++ = DHCP_OPT_MSG_TYPE;
	*p++ = 1;
	*p++ = r->type;
	if (r->server != 0)
		p = opt32(p, DHCP_OPT_SERVER_ID, r->server);
	if (!r->no_lease)
		p = opt32(p, DHCP_OPT_LEASE_TIME, r->lease);
	if (r->t1 != 0)
		p = opt32(p, DHCP_OPT_RENEWAL_T1, r->t1);
	if (r->t2 != 0)
		p = opt32(p, DHCP_OPT_REBIND_T2, r->t2);
	if (!r->no_mask)
		p = opt32(p, DHCP_OPT_SUBNET_MASK, r->mask);
	if (r->router != 0)
		p = opt32(p, DHCP_OPT_ROUTER, r->router);
	*p++ = DHCP_OPT_END;
	return (size_t)(p - b);
}

static struct reply
good(uint8_t type, uint32_t xid)
{
	return (struct reply){ .type = type, .xid = xid, .yiaddr = ADDR, .server = SRV1,
			       .mask = MASK24, .router = SRV1, .lease = 3600 };
}

static int
feed(struct dhcp_client *c, const struct reply *r, uint64_t now)
{
	uint8_t b[DHCP_MSG_MAX_LEN];
	size_t n = build_reply(b, r);

	return dhcp_client_input(c, b, n, now);
}

static uint32_t
tx_xid(void)
{
	return get32(last_tx()->msg + DHCP_OFF_XID);
}

/* DISCOVER at 0, OFFER and REQUEST at 1 s, ACK at 1 s: BOUND, lease from 1 s */
static struct dhcp_client *
bound_client(void)
{
	struct dhcp_client *c = new_client(false);
	struct reply r;

	assert_non_null(c);
	dhcp_client_tick(c, 0);
	assert_int_equal(tx_type(last_tx()), DHCP_DISCOVER);
	r = good(DHCP_OFFER, tx_xid());
	assert_int_equal(feed(c, &r, S(1)), 0);
	r = good(DHCP_ACK, tx_xid());
	assert_int_equal(feed(c, &r, S(1)), 0);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_BOUND);
	return c;
}

static void
test_full_exchange(void **state)
{
	struct dhcp_client *c = new_client(false);
	const struct sent *s;
	struct reply r;

	(void)state;
	assert_string_equal(dhcp_state_name(dhcp_client_state(c)), "init");
	dhcp_client_tick(c, 0);
	s = last_tx();
	assert_int_equal(tx_type(s), DHCP_DISCOVER);
	assert_int_equal(s->src, 0);
	assert_int_equal(s->dst, DHCP_ADDR_BROADCAST);
	assert_memory_equal(s->msg + DHCP_OFF_CHADDR, mac, 6);
	assert_string_equal(dhcp_state_name(dhcp_client_state(c)), "selecting");
	r = good(DHCP_OFFER, tx_xid());
	assert_int_equal(feed(c, &r, S(1)), 0);
	s = last_tx();
	assert_int_equal(tx_type(s), DHCP_REQUEST);
	assert_int_equal(tx_addr_opt(s, DHCP_OPT_REQUESTED_IP), ADDR);
	assert_int_equal(tx_addr_opt(s, DHCP_OPT_SERVER_ID), SRV1);
	assert_int_equal(get32(s->msg + DHCP_OFF_CIADDR), 0);
	assert_int_equal(s->dst, DHCP_ADDR_BROADCAST);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_REQUESTING);
	assert_null(dhcp_client_lease(c));
	r = good(DHCP_ACK, tx_xid());
	assert_int_equal(feed(c, &r, S(2)), 0);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_BOUND);
	assert_int_equal(io.n_lease, 1);
	assert_int_equal(io.last_ev, DHCP_LEASE_EV_BOUND);
	assert_false(io.had_old);
	assert_int_equal(io.last.addr, ADDR);
	assert_int_equal(io.last.prefix_len, 24);
	assert_int_equal(io.last.router, SRV1);
	assert_int_equal(io.last.server_id, SRV1);
	assert_int_equal(io.last.lease_s, 3600);
	assert_int_equal(io.last.t1_s, 1800);       /* 0.5 of the lease */
	assert_int_equal(io.last.t2_s, 3150);       /* 0.875 */
	assert_int_equal(io.last.start_ns, S(1));   /* the REQUEST's time */
	assert_int_equal(dhcp_client_next_ns(c), S(1) + S(1800));
	assert_int_equal(dhcp_client_counter(c, DHCP_CNT_LEASE_BOUND), 1);
	dhcp_client_destroy(c);
}

static void
test_renew_acked(void **state)
{
	struct dhcp_client *c = bound_client();
	const struct sent *s;
	unsigned n = io.n_tx;
	struct reply r;

	(void)state;
	dhcp_client_tick(c, S(1800));               /* T1 is 1801 s */
	assert_int_equal(io.n_tx, n);
	dhcp_client_tick(c, S(1801));
	s = last_tx();
	assert_int_equal(tx_type(s), DHCP_REQUEST);
	assert_int_equal(s->dst, SRV1);             /* unicast to the server */
	assert_int_equal(s->src, ADDR);
	assert_int_equal(get32(s->msg + DHCP_OFF_CIADDR), ADDR);
	assert_int_equal(tx_addr_opt(s, DHCP_OPT_REQUESTED_IP), 0);
	assert_int_equal(tx_addr_opt(s, DHCP_OPT_SERVER_ID), 0);
	assert_string_equal(dhcp_state_name(dhcp_client_state(c)), "renewing");
	r = good(DHCP_ACK, tx_xid());
	assert_int_equal(feed(c, &r, S(1802)), 0);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_BOUND);
	assert_int_equal(io.last_ev, DHCP_LEASE_EV_RENEWED);
	assert_int_equal(io.last.start_ns, S(1801));
	assert_int_equal(dhcp_client_next_ns(c), S(1801) + S(1800));
	dhcp_client_destroy(c);
}

static void
test_rebind_other_server(void **state)
{
	struct dhcp_client *c = bound_client();
	const struct sent *s;
	struct reply r;
	uint32_t xid;

	(void)state;
	dhcp_client_tick(c, S(1801));
	xid = tx_xid();
	/* RFC 2131 4.4.5: half of the 1350 s left to T2 (3151 s) */
	assert_int_equal(dhcp_client_next_ns(c), S(1801) + S(675));
	dhcp_client_tick(c, S(2476));
	assert_int_equal(last_tx()->dst, SRV1);
	assert_int_equal(dhcp_client_counter(c, DHCP_CNT_RETRANSMITS), 1);
	assert_int_equal(dhcp_client_next_ns(c), S(2476) + S(337) + S(1) / 2);
	dhcp_client_tick(c, S(3151));               /* T2 */
	s = last_tx();
	assert_int_equal(dhcp_client_state(c), DHCP_ST_REBINDING);
	assert_int_equal(s->dst, DHCP_ADDR_BROADCAST);
	assert_int_equal(s->src, ADDR);
	assert_int_equal(tx_xid(), xid);
	/* the other server answers */
	r = good(DHCP_ACK, xid);
	r.server = SRV2;
	assert_int_equal(feed(c, &r, S(3152)), 0);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_BOUND);
	assert_int_equal(io.last_ev, DHCP_LEASE_EV_RENEWED);
	assert_int_equal(io.last.server_id, SRV2);
	/* the next renewal goes to the new server */
	dhcp_client_tick(c, dhcp_client_next_ns(c));
	assert_int_equal(last_tx()->dst, SRV2);
	dhcp_client_destroy(c);
}

static void
test_expiry_rediscover(void **state)
{
	struct dhcp_client *c = bound_client();

	(void)state;
	for (uint64_t t = S(1801); t < S(3601); t = dhcp_client_next_ns(c))
		dhcp_client_tick(c, t);
	assert_int_equal(io.n_lost, 0);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_REBINDING);
	dhcp_client_tick(c, S(3601));               /* the lease's end */
	assert_int_equal(io.n_lost, 1);
	assert_int_equal(io.lost_why, DHCP_LOST_EXPIRED);
	assert_string_equal(dhcp_lost_reason_name(io.lost_why), "expired");
	assert_null(dhcp_client_lease(c));
	assert_int_equal(dhcp_client_state(c), DHCP_ST_SELECTING);  /* rediscovering */
	assert_int_equal(tx_type(last_tx()), DHCP_DISCOVER);
	assert_int_equal(last_tx()->src, 0);
	dhcp_client_destroy(c);
}

static void
test_nak_requesting(void **state)
{
	struct dhcp_client *c = new_client(false);
	uint64_t now = 0, prev_wait = 0;
	struct reply r;

	(void)state;
	/* a server that NAKs every REQUEST: the restarts back off up to 64 s */
	for (int i = 0; i < 8; i++) {
		uint64_t wait;

		dhcp_client_tick(c, now);
		assert_int_equal(tx_type(last_tx()), DHCP_DISCOVER);
		r = good(DHCP_OFFER, tx_xid());
		assert_int_equal(feed(c, &r, now), 0);
		r = (struct reply){ .type = DHCP_NAK, .xid = tx_xid(), .server = SRV1, .no_lease = true,
				    .no_mask = true };
		assert_int_equal(feed(c, &r, now), 0);
		assert_int_equal(dhcp_client_state(c), DHCP_ST_INIT);
		wait = dhcp_client_next_ns(c) - now;
		assert_true(wait >= S(3) && wait <= S(65));
		if (i < 4)
			assert_true(wait > prev_wait);
		prev_wait = wait;
		now += wait;
	}
	assert_int_equal(io.n_lost, 0);             /* never had a lease */
	assert_int_equal(dhcp_client_counter(c, DHCP_CNT_RX_NAK), 8);
	dhcp_client_destroy(c);
}

static void
test_nak_renewing(void **state)
{
	struct dhcp_client *c = bound_client();
	struct reply r;

	(void)state;
	dhcp_client_tick(c, S(1801));
	/* a NAK from another server than the leasing one is refused */
	r = (struct reply){ .type = DHCP_NAK, .xid = tx_xid(), .server = SRV2, .no_lease = true,
			    .no_mask = true };
	assert_int_equal(feed(c, &r, S(1802)), -1);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_RENEWING);
	r.server = SRV1;
	assert_int_equal(feed(c, &r, S(1802)), 0);
	assert_int_equal(io.n_lost, 1);
	assert_int_equal(io.lost_why, DHCP_LOST_NAK);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_INIT);
	assert_null(dhcp_client_lease(c));
	dhcp_client_destroy(c);
}

static void
test_changed_on_renewal(void **state)
{
	struct dhcp_client *c = bound_client();
	struct reply r;

	(void)state;
	dhcp_client_tick(c, S(1801));
	r = good(DHCP_ACK, tx_xid());
	r.yiaddr = ADDR2;
	assert_int_equal(feed(c, &r, S(1802)), 0);
	assert_int_equal(io.last_ev, DHCP_LEASE_EV_CHANGED);
	assert_true(io.had_old);
	assert_int_equal(io.old.addr, ADDR);
	assert_int_equal(io.last.addr, ADDR2);
	assert_int_equal(dhcp_client_lease(c)->addr, ADDR2);
	assert_int_equal(dhcp_client_counter(c, DHCP_CNT_LEASE_CHANGED), 1);
	dhcp_client_destroy(c);
}

/* Each bad reply, refused in SELECTING (no REQUEST) and, as an ACK, in
 * RENEWING (the old lease kept). */
static void
test_bad_offers(void **state)
{
	static const struct {
		const char *counter;
		struct reply r;   /* only the fields that differ from good() */
		int field;
	} bad[] = {
		{ "reject_lease_short", { .lease = 0 }, 1 },
		{ "reject_lease_short", { .lease = DHCP_LEASE_MIN_S - 1 }, 1 },
		{ "reject_no_lease", { .no_lease = true }, 2 },
		{ "reject_mask", { .mask = 0 }, 3 },
		{ "reject_mask", { .mask = 0xff00ff00u }, 3 },
		{ "reject_no_mask", { .no_mask = true }, 4 },
		{ "reject_router", { .router = IP(198, 51, 100, 1) }, 5 },
		{ "reject_router", { .router = ADDR }, 5 },
		{ "reject_router", { .router = IP(192, 0, 2, 255) }, 5 },
		{ "reject_yiaddr", { .yiaddr = 0 }, 6 },
		{ "reject_yiaddr", { .yiaddr = DHCP_ADDR_BROADCAST }, 6 },
		{ "reject_yiaddr", { .yiaddr = IP(224, 0, 0, 5) }, 6 },
		{ "reject_yiaddr", { .yiaddr = IP(127, 0, 0, 1) }, 6 },
		{ "reject_yiaddr", { .yiaddr = IP(192, 0, 2, 0) }, 6 },
		{ "reject_server_id", { .server = 0 }, 7 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int renewing = 0; renewing < 2; renewing++) {
			struct dhcp_client *c = renewing ? bound_client() : new_client(false);
			struct reply r;
			unsigned ci, n_tx;

			if (renewing)
				dhcp_client_tick(c, S(1801));
			else
				dhcp_client_tick(c, 0);
			r = good(renewing ? DHCP_ACK : DHCP_OFFER, tx_xid());
			switch (bad[i].field) {
			case 1: r.lease = bad[i].r.lease; break;
			case 2: r.no_lease = true; break;
			case 3: r.mask = bad[i].r.mask; break;
			case 4: r.no_mask = true; break;
			case 5: r.router = bad[i].r.router; break;
			case 6: r.yiaddr = bad[i].r.yiaddr; break;
			case 7: r.server = 0; break;
			}
			n_tx = io.n_tx;
			assert_int_equal(feed(c, &r, S(1802)), -1);
			for (ci = 0; ci < DHCP_CNT_COUNT; ci++)
				if (strcmp(dhcp_counter_name(ci), bad[i].counter) == 0)
					break;
			assert_true(ci < DHCP_CNT_COUNT);
			assert_int_equal(dhcp_client_counter(c, ci), 1);
			assert_int_equal(io.n_reject, 1);
			assert_non_null(strstr(dhcp_client_last_reject(c), bad[i].counter));
			assert_int_equal(io.n_tx, n_tx);     /* nothing sent */
			if (renewing) {
				assert_int_equal(dhcp_client_state(c), DHCP_ST_RENEWING);
				assert_non_null(dhcp_client_lease(c));
				assert_int_equal(dhcp_client_lease(c)->addr, ADDR);
				assert_int_equal(io.n_lease, 1);
				assert_int_equal(io.n_lost, 0);
				/* and a good ACK still renews */
				r = good(DHCP_ACK, tx_xid());
				assert_int_equal(feed(c, &r, S(1803)), 0);
				assert_int_equal(io.last_ev, DHCP_LEASE_EV_RENEWED);
			} else {
				assert_int_equal(dhcp_client_state(c), DHCP_ST_SELECTING);
			}
			dhcp_client_destroy(c);
		}
	}
}

/* RFC 2131 4.1: DISCOVER repeats after 4, 8, 16, 32, 64, 64 s, each +-1 s
 * (getrandom jitter: the bounds, over several clients). REQUESTING gives up
 * after 4 retransmissions. */
static void
test_retransmission_bounds(void **state)
{
	static const unsigned base[] = { 4, 8, 16, 32, 64, 64, 64 };
	struct reply r;

	(void)state;
	for (int k = 0; k < 20; k++) {
		struct dhcp_client *c = new_client(true);
		uint64_t now = 0;

		dhcp_client_tick(c, now);
		for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
			uint64_t next = dhcp_client_next_ns(c), d = next - now;

			assert_true(d >= S(base[i] - 1) && d <= S(base[i] + 1));
			dhcp_client_tick(c, next - 1);
			assert_int_equal(io.n_tx, i + 1);
			dhcp_client_tick(c, next);
			assert_int_equal(io.n_tx, i + 2);
			assert_int_equal(tx_type(last_tx()), DHCP_DISCOVER);
			now = next;
		}
		/* the same xid throughout: a late OFFER still counts */
		r = good(DHCP_OFFER, tx_xid());
		assert_int_equal(feed(c, &r, now), 0);
		for (unsigned i = 0; i < DHCP_REQUEST_RETRIES; i++) {
			now = dhcp_client_next_ns(c);
			dhcp_client_tick(c, now);
			assert_int_equal(tx_type(last_tx()), DHCP_REQUEST);
			assert_int_equal(dhcp_client_state(c), DHCP_ST_REQUESTING);
		}
		dhcp_client_tick(c, dhcp_client_next_ns(c));
		assert_int_equal(dhcp_client_counter(c, DHCP_CNT_REQUEST_TIMEOUTS), 1);
		assert_int_equal(dhcp_client_state(c), DHCP_ST_SELECTING);  /* INIT, then DISCOVER */
		dhcp_client_destroy(c);
	}
}

static void
test_wrong_xid_ignored(void **state)
{
	struct dhcp_client *c = new_client(false);
	struct reply r;
	uint8_t b[DHCP_MSG_MAX_LEN];
	size_t n;

	(void)state;
	dhcp_client_tick(c, 0);
	r = good(DHCP_OFFER, tx_xid() + 1);
	assert_int_equal(feed(c, &r, S(1)), -1);
	assert_int_equal(dhcp_client_counter(c, DHCP_CNT_RX_XID), 1);
	assert_int_equal(dhcp_client_state(c), DHCP_ST_SELECTING);
	/* another client's reply (chaddr) */
	r = good(DHCP_OFFER, tx_xid());
	n = build_reply(b, &r);
	b[DHCP_OFF_CHADDR + 5] ^= 1;
	assert_int_equal(dhcp_client_input(c, b, n, S(1)), -1);
	assert_int_equal(dhcp_client_counter(c, DHCP_CNT_RX_NOT_OURS), 1);
	/* an ACK in SELECTING */
	r = good(DHCP_ACK, tx_xid());
	assert_int_equal(feed(c, &r, S(1)), -1);
	assert_int_equal(dhcp_client_counter(c, DHCP_CNT_RX_UNEXPECTED), 1);
	assert_null(dhcp_client_lease(c));
	dhcp_client_destroy(c);
}

static void
test_init_reboot_and_decline(void **state)
{
	struct dhcp_client_cfg cfg = {
		.no_startup_delay = true, .reboot_addr = ADDR, .rng = test_rng,
		.io = { .send = on_send, .lease = on_lease, .lost = on_lost },
	};
	struct dhcp_client *c;
	struct reply r;

	(void)state;
	memset(&io, 0, sizeof(io));
	io.rng_state = 99;
	memcpy(cfg.mac, mac, 6);
	strcpy(cfg.host_name, "hgw-test");
	c = dhcp_client_create(&cfg, 0);
	assert_string_equal(dhcp_state_name(dhcp_client_state(c)), "init-reboot");
	dhcp_client_tick(c, 0);
	assert_int_equal(tx_type(last_tx()), DHCP_REQUEST);
	assert_int_equal(tx_addr_opt(last_tx(), DHCP_OPT_REQUESTED_IP), ADDR);
	assert_int_equal(tx_addr_opt(last_tx(), DHCP_OPT_SERVER_ID), 0);
	r = good(DHCP_ACK, tx_xid());
	assert_int_equal(feed(c, &r, S(1)), 0);
	assert_int_equal(io.last_ev, DHCP_LEASE_EV_BOUND);
	assert_int_equal(dhcp_client_decline(c, S(2)), 0);
	assert_int_equal(tx_type(last_tx()), DHCP_DECLINE);
	assert_int_equal(tx_addr_opt(last_tx(), DHCP_OPT_REQUESTED_IP), ADDR);
	assert_int_equal(tx_addr_opt(last_tx(), DHCP_OPT_SERVER_ID), SRV1);
	assert_int_equal(get32(last_tx()->msg + DHCP_OFF_CIADDR), 0);
	{
		uint8_t n;

		assert_null(tx_opt(last_tx(), DHCP_OPT_HOST_NAME, &n));
		assert_null(tx_opt(last_tx(), DHCP_OPT_PARAM_LIST, &n));
	}
	assert_int_equal(io.lost_why, DHCP_LOST_DECLINED);
	assert_int_equal(dhcp_client_next_ns(c), S(2) + S(DHCP_DECLINE_WAIT_S));
	assert_int_equal(dhcp_client_decline(c, S(3)), -1);
	dhcp_client_destroy(c);
}

/* T1 / T2 from the ACK when sane, the defaults when T1 < T2 < lease breaks;
 * an infinite lease has no timer at all. */
static void
test_lease_times(void **state)
{
	static const struct { uint32_t lease, t1, t2, want_t1, want_t2; uint64_t fixed; } cases[] = {
		{ 3600, 1000, 2000, 1000, 2000, 0 },
		{ 3600, 2000, 1000, 1800, 3150, 1 },   /* T1 after T2 */
		{ 3600, 1000, 3600, 1800, 3150, 1 },   /* T2 at the end */
		{ DHCP_LEASE_INFINITE, 0, 0, DHCP_LEASE_INFINITE, DHCP_LEASE_INFINITE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dhcp_client *c = new_client(false);
		struct reply r;

		dhcp_client_tick(c, 0);
		r = good(DHCP_OFFER, tx_xid());
		assert_int_equal(feed(c, &r, 0), 0);
		r = good(DHCP_ACK, tx_xid());
		r.lease = cases[i].lease;
		r.t1 = cases[i].t1;
		r.t2 = cases[i].t2;
		assert_int_equal(feed(c, &r, 0), 0);
		assert_int_equal(io.last.t1_s, cases[i].want_t1);
		assert_int_equal(io.last.t2_s, cases[i].want_t2);
		assert_int_equal(dhcp_client_counter(c, DHCP_CNT_T1T2_FIXED), cases[i].fixed);
		if (cases[i].lease == DHCP_LEASE_INFINITE) {
			assert_int_equal(dhcp_client_next_ns(c), UINT64_MAX);
			dhcp_client_tick(c, S(1) << 20);
			assert_int_equal(dhcp_client_state(c), DHCP_ST_BOUND);
		} else {
			assert_int_equal(dhcp_client_next_ns(c), S(cases[i].want_t1));
		}
		dhcp_client_destroy(c);
	}
}

/* create refuses what it cannot send; the startup wait is 1..10 s (4.4.1) */
static void
test_create(void **state)
{
	struct dhcp_client_cfg cfg = {
		.io = { .send = on_send, .lease = on_lease, .lost = on_lost },
	};
	struct dhcp_client *c;
	unsigned late = 0;

	(void)state;
	memset(&io, 0, sizeof(io));
	memcpy(cfg.mac, mac, 6);
	cfg.client_id_len = 1;
	assert_null(dhcp_client_create(&cfg, 0));
	cfg.client_id_len = DHCP_CLIENT_ID_MAX + 1;
	assert_null(dhcp_client_create(&cfg, 0));
	cfg.client_id_len = 0;
	cfg.io.lost = NULL;
	assert_null(dhcp_client_create(&cfg, 0));
	cfg.io.lost = on_lost;
	memset(cfg.host_name, 'a', sizeof(cfg.host_name));
	assert_null(dhcp_client_create(&cfg, 0));
	cfg.host_name[0] = 0;
	for (int k = 0; k < 200; k++) {
		uint64_t t0 = S(100), w;

		c = dhcp_client_create(&cfg, t0);
		assert_non_null(c);
		w = dhcp_client_next_ns(c) - t0;
		assert_true(w >= S(DHCP_STARTUP_MIN_S) && w <= S(DHCP_STARTUP_MAX_S));
		late += w > S(7);          /* the whole range is used, not a part of it */
		dhcp_client_tick(c, dhcp_client_next_ns(c) - 1);
		assert_int_equal(io.n_tx, 0);
		dhcp_client_destroy(c);
	}
	/* P(no wait above 7 s in 200) = (2/3)^200: a failure is a bug */
	assert_true(late > 0);
	/* a client id of its own goes out as option 61 */
	memcpy(cfg.client_id, "\x00gw-outer", 9);
	cfg.client_id_len = 9;
	cfg.no_startup_delay = true;
	c = dhcp_client_create(&cfg, 0);
	dhcp_client_tick(c, 0);
	{
		uint8_t n;
		const uint8_t *v = tx_opt(last_tx(), DHCP_OPT_CLIENT_ID, &n);

		assert_non_null(v);
		assert_int_equal(n, 9);
		assert_memory_equal(v, "\x00gw-outer", 9);
		assert_null(tx_opt(last_tx(), DHCP_OPT_HOST_NAME, &n));
	}
	dhcp_client_destroy(c);
}

static void
test_parse_refusals(void **state)
{
	struct reply r = good(DHCP_OFFER, 1);
	uint8_t b[DHCP_MSG_MAX_LEN];
	struct dhcp_msg m;
	size_t n = build_reply(b, &r);

	(void)state;
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_OK);
	assert_int_equal(m.lease_s, 3600);
	for (size_t k = 0; k < n; k++)   /* every truncation is refused, none read past */
		assert_int_not_equal(dhcp_msg_parse(b, k, &m), DHCP_PARSE_OK);
	assert_int_equal(dhcp_msg_parse(b, DHCP_OPTIONS_OFF - 1, &m), DHCP_PARSE_SHORT);
	assert_int_equal(dhcp_msg_parse(b, n - 1, &m), DHCP_PARSE_NO_END);
	b[0] = DHCP_OP_BOOTREQUEST;
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_NOT_REPLY);
	b[0] = DHCP_OP_BOOTREPLY;
	b[239] ^= 1;
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_COOKIE);
	b[239] ^= 1;
	b[DHCP_OPTIONS_OFF + 1] = 2;     /* message type of length 2 */
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_OPT_LEN);
	b[DHCP_OPTIONS_OFF + 1] = 1;
	b[DHCP_OPTIONS_OFF + 3] = DHCP_OPT_MSG_TYPE;   /* 53 again where 54 was */
	b[DHCP_OPTIONS_OFF + 4] = 1;
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_OPT_DUP);
	b[DHCP_OPTIONS_OFF + 3] = DHCP_OPT_OVERLOAD;
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_OVERLOAD);
	b[DHCP_OPTIONS_OFF + 2] = 9;
	b[DHCP_OPTIONS_OFF + 3] = DHCP_OPT_END;
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_BAD_TYPE);
	b[DHCP_OPTIONS_OFF + 3] = DHCP_OPT_ROUTER;     /* a router list of 1 byte */
	b[DHCP_OPTIONS_OFF + 2] = DHCP_OFFER;
	assert_int_equal(dhcp_msg_parse(b, n, &m), DHCP_PARSE_OPT_LEN);
	assert_int_equal(dhcp_mask_prefix(0xfffffffcu), 30);
	assert_int_equal(dhcp_mask_prefix(0), 0);
	assert_int_equal(dhcp_mask_prefix(0xfffffffeu), 31);
	assert_int_equal(dhcp_mask_prefix(0xff00ffffu), -1);
}

static void
test_frame_roundtrip(void **state)
{
	static const uint8_t srv_mac[6] = { 0x02, 0, 0, 0, 0, 1 };
	struct reply r = good(DHCP_ACK, 7);
	uint8_t msg[DHCP_MSG_MAX_LEN], f[DHCP_FRAME_HDR_LEN + DHCP_MSG_MAX_LEN];
	struct dhcp_frame_in in;
	size_t n = build_reply(msg, &r), fl;

	(void)state;
	fl = dhcp_frame_build(f, sizeof(f), srv_mac, NULL, SRV1, DHCP_ADDR_BROADCAST, msg, n);
	assert_int_equal(fl, DHCP_FRAME_HDR_LEN + n);
	assert_int_equal(f[0], 0xff);
	/* built as a client frame (68 -> 67): swap the ports to make it a reply */
	f[34] = 0, f[35] = 67, f[36] = 0, f[37] = 68;
	assert_int_equal(dhcp_frame_parse(f, fl, &in), 0);   /* same checksum after the swap */
	assert_int_equal(in.len, n);
	assert_int_equal(in.src_ip, SRV1);
	assert_memory_equal(in.src_mac, srv_mac, 6);
	assert_memory_equal(in.msg, msg, n);
	f[fl - 1] ^= 1;                                       /* UDP checksum now wrong */
	assert_int_equal(dhcp_frame_parse(f, fl, &in), -1);
	f[fl - 1] ^= 1;
	f[14 + 8] ^= 1;                                       /* IP header checksum wrong */
	assert_int_equal(dhcp_frame_parse(f, fl, &in), -1);
	f[14 + 8] ^= 1;
	assert_int_equal(dhcp_frame_parse(f, fl - 1, &in), -1); /* IP length past the frame */
	assert_int_equal(dhcp_frame_build(f, DHCP_FRAME_HDR_LEN + n - 1, srv_mac, NULL, 0, 0, msg, n), 0);
}

#ifndef HIPGW_DOCS_DIR
#define HIPGW_DOCS_DIR "docs"
#endif

/* docs/counters.md's table after "<!-- DHCP_COUNTERS -->" names every counter
 * of dhcp_counter_name, once, and nothing else. */
static void
test_counters_doc(void **state)
{
	FILE *f = fopen(HIPGW_DOCS_DIR "/counters.md", "r");
	unsigned seen[DHCP_CNT_COUNT] = { 0 }, rows = 0;
	bool in_table = false;
	char line[512];

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char name[64];
		unsigned i;

		if (strstr(line, "<!-- DHCP_COUNTERS -->") != NULL) {
			in_table = true;
			continue;
		}
		if (!in_table)
			continue;
		if (line[0] != '|') {
			if (rows > 0)
				break;
			continue;
		}
		if (sscanf(line, "| `%63[^`]`", name) != 1)
			continue;              /* the head and its rule */
		rows++;
		for (i = 0; i < DHCP_CNT_COUNT; i++)
			if (strcmp(dhcp_counter_name(i), name) == 0)
				break;
		if (i == DHCP_CNT_COUNT)
			fail_msg("counters.md lists %s, which the client does not count", name);
		seen[i]++;
	}
	fclose(f);
	for (unsigned i = 0; i < DHCP_CNT_COUNT; i++)
		if (seen[i] != 1)
			fail_msg("counters.md: %s listed %u times", dhcp_counter_name(i), seen[i]);
	assert_int_equal(rows, DHCP_CNT_COUNT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_exchange),
		cmocka_unit_test(test_renew_acked),
		cmocka_unit_test(test_rebind_other_server),
		cmocka_unit_test(test_expiry_rediscover),
		cmocka_unit_test(test_nak_requesting),
		cmocka_unit_test(test_nak_renewing),
		cmocka_unit_test(test_changed_on_renewal),
		cmocka_unit_test(test_bad_offers),
		cmocka_unit_test(test_retransmission_bounds),
		cmocka_unit_test(test_wrong_xid_ignored),
		cmocka_unit_test(test_init_reboot_and_decline),
		cmocka_unit_test(test_lease_times),
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_frame_roundtrip),
		cmocka_unit_test(test_counters_doc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
