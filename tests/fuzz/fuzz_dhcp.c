/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness of lib/dhcp: a client driven by a sequence of (time step,
 * server packet). Input: one byte of set-up (bit 0: start in INIT-REBOOT,
 * bit 1: the RFC 2131 4.4.1 startup wait), four bytes of RNG seed, then
 * records of
 *   u16 time step (big-endian, in 1/4 s), u8 kind, u16 len (big-endian), len bytes
 * kind % 4: 0 the bytes as a UDP payload; 1 the bytes as an Ethernet frame
 * through dhcp_frame_parse; 2 a reply the harness builds with the
 * exchange's xid and our chaddr from the bytes (type, yiaddr, mask, router,
 * server, lease, T1, T2 picked from near-valid values, so that the checks
 * and the state table are reached); 3 dhcp_client_decline. dhcp_client_tick
 * runs before each record at the new time.
 * Invariants (abort when broken): the state is a known one; a lease is held
 * exactly in BOUND / RENEWING / REBINDING, is set only by an ACK handed to
 * dhcp_client_input, and passes the client's own checks; lost only ends a
 * lease that was held; every message sent is a well-formed BOOTREQUEST from
 * 0.0.0.0 unless a lease is held; after a tick nothing is due.
 * HIPGW_FUZZ_VERBOSE=1 prints the final state and counters per input.
 */
#include "fuzz_common.h"

#include "dhcp_client.h"
#include "dhcp_frame.h"

#define STEP_NS (DHCP_NS_PER_S / 4)

static const uint8_t mac[DHCP_HLEN_ETHER] = { 0x02, 0, 0, 0, 0, 0x42 };

static struct {
	uint32_t rng;
	bool in_ack;           /* an ACK is being handed to dhcp_client_input */
	bool leased;           /* as the callbacks told */
	struct dhcp_lease lease;
	struct dhcp_client *c;
} h;

static int
rng(void *ctx, void *buf, size_t len)
{
	uint8_t *b = buf;

	(void)ctx;
	for (size_t i = 0; i < len; i++) {
		h.rng ^= h.rng << 13;
		h.rng ^= h.rng >> 17;
		h.rng ^= h.rng << 5;
		b[i] = (uint8_t)h.rng;
	}
	return 0;
}

static void
on_send(void *ctx, const uint8_t *msg, size_t len, uint32_t src, uint32_t dst)
{
	(void)ctx;
	if (len < DHCP_MSG_MIN_LEN || len > DHCP_MSG_MAX_LEN || msg[0] != DHCP_OP_BOOTREQUEST ||
	    memcmp(msg + DHCP_OFF_CHADDR, mac, sizeof(mac)) != 0)
		FUZZ_FAIL("malformed message sent (%zu bytes)", len);
	if (src != 0 && (!h.leased || src != h.lease.addr))
		FUZZ_FAIL("sent from %08x without that lease", src);
	if (dst != DHCP_ADDR_BROADCAST && (!h.leased || dst != h.lease.server_id))
		FUZZ_FAIL("unicast to %08x, not the leasing server", dst);
}

static void
check_lease(const struct dhcp_lease *l)
{
	if (l->prefix_len < 1 || l->prefix_len > 32 || l->lease_s < DHCP_LEASE_MIN_S ||
	    l->addr == 0 || l->addr == DHCP_ADDR_BROADCAST || l->server_id == 0 ||
	    dhcp_mask_prefix(l->mask) != l->prefix_len)
		FUZZ_FAIL("lease %08x/%u for %u s passed the checks", l->addr, l->prefix_len, l->lease_s);
	if (l->router != 0 && (l->router & l->mask) != (l->addr & l->mask))
		FUZZ_FAIL("router %08x off the subnet", l->router);
	if (l->lease_s != DHCP_LEASE_INFINITE && !(l->t1_s < l->t2_s && l->t2_s < l->lease_s))
		FUZZ_FAIL("T1 %u T2 %u lease %u", l->t1_s, l->t2_s, l->lease_s);
}

static void
on_lease(void *ctx, enum dhcp_lease_event ev, const struct dhcp_lease *l,
	 const struct dhcp_lease *old)
{
	(void)ctx;
	if (!h.in_ack)
		FUZZ_FAIL("lease event %d outside an ACK", ev);
	if ((ev == DHCP_LEASE_EV_BOUND) != (old == NULL) || h.leased != (old != NULL))
		FUZZ_FAIL("lease event %d with old %p, leased %d", ev, (const void *)old, h.leased);
	check_lease(l);
	h.leased = true;
	h.lease = *l;
}

static void
on_lost(void *ctx, enum dhcp_lost_reason why, const struct dhcp_lease *old)
{
	(void)ctx;
	if (!h.leased || old->addr != h.lease.addr)
		FUZZ_FAIL("lost (%s) without a lease", dhcp_lost_reason_name(why));
	h.leased = false;
}

static void
check_state(uint64_t now, bool ticked)
{
	enum dhcp_state st = dhcp_client_state(h.c);
	const struct dhcp_lease *l = dhcp_client_lease(h.c);
	bool want = st == DHCP_ST_BOUND || st == DHCP_ST_RENEWING || st == DHCP_ST_REBINDING;

	if ((unsigned)st >= DHCP_STATE_COUNT || strcmp(dhcp_state_name(st), "?") == 0)
		FUZZ_FAIL("state %d", st);
	if ((l != NULL) != want || h.leased != want)
		FUZZ_FAIL("state %s with lease %p (callbacks: %d)", dhcp_state_name(st),
			  (const void *)l, h.leased);
	if (l != NULL && memcmp(l, &h.lease, sizeof(*l)) != 0)
		FUZZ_FAIL("lease differs from the last event's");
	if (ticked && dhcp_client_next_ns(h.c) <= now)
		FUZZ_FAIL("a timer still due after tick (state %s)", dhcp_state_name(st));
}

static uint8_t *
opt32(uint8_t *p, uint8_t code, uint32_t v)
{
	*p++ = code;
	*p++ = 4;
	for (int i = 3; i >= 0; i--)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static uint32_t
pick(const uint8_t *b, size_t n, size_t i, const uint32_t *vals, size_t nv)
{
	uint8_t x = i < n ? b[i] : 0;

	return x < nv ? vals[x] : (uint32_t)x * 0x01010101u;
}

/* kind 2: a reply with the client's xid and chaddr, fields from b */
static size_t
templated(uint8_t *m, const uint8_t *b, size_t n, uint32_t xid)
{
	static const uint32_t addrs[] = { 0xc0000232, 0xc000024d, 0xc0000201, 0xc0000202, 0,
					  0xffffffff, 0x7f000001, 0xe0000005, 0xc0000200 };
	static const uint32_t masks[] = { 0xffffff00, 0xfffffffc, 0xfffffffe, 0xffffffff, 0,
					  0xff00ff00, 0xffff0000 };
	static const uint32_t times[] = { 3600, 60, 59, 0, 0xffffffff, 1800, 3150, 120, 4000 };
	static const uint8_t types[] = { DHCP_OFFER, DHCP_ACK, DHCP_NAK };
	uint8_t *p = m + DHCP_OPTIONS_OFF, which = n > 0 ? b[0] : 0;
	uint32_t ya = pick(b, n, 1, addrs, 9);

	memset(m, 0, DHCP_OPTIONS_OFF);
	m[0] = DHCP_OP_BOOTREPLY;
	m[1] = DHCP_HTYPE_ETHER;
	m[2] = DHCP_HLEN_ETHER;
	for (int i = 0; i < 4; i++) {
		m[DHCP_OFF_XID + i] = (uint8_t)(xid >> (24 - 8 * i));
		m[DHCP_OFF_YIADDR + i] = (uint8_t)(ya >> (24 - 8 * i));
	}
	memcpy(m + DHCP_OFF_CHADDR, mac, sizeof(mac));
	for (int i = 0; i < DHCP_COOKIE_LEN; i++)
		m[DHCP_HDR_LEN + i] = (uint8_t)(DHCP_MAGIC_COOKIE >> (24 - 8 * i));
	*p++ = DHCP_OPT_MSG_TYPE;
	*p++ = 1;
	*p++ = types[which % 3];
	if (!(which & 0x04))
		p = opt32(p, DHCP_OPT_SERVER_ID, pick(b, n, 2, addrs, 9));
	if (!(which & 0x08))
		p = opt32(p, DHCP_OPT_LEASE_TIME, pick(b, n, 3, times, 9));
	if (which & 0x10)
		p = opt32(p, DHCP_OPT_RENEWAL_T1, pick(b, n, 4, times, 9));
	if (which & 0x20)
		p = opt32(p, DHCP_OPT_REBIND_T2, pick(b, n, 5, times, 9));
	if (!(which & 0x40))
		p = opt32(p, DHCP_OPT_SUBNET_MASK, pick(b, n, 6, masks, 7));
	if (!(which & 0x80))
		p = opt32(p, DHCP_OPT_ROUTER, pick(b, n, 7, addrs, 9));
	*p++ = DHCP_OPT_END;
	return (size_t)(p - m);
}

/* the xid of the client's last message */
static uint32_t last_xid;

static void
on_send_xid(void *ctx, const uint8_t *msg, size_t len, uint32_t src, uint32_t dst)
{
	on_send(ctx, msg, len, src, dst);
	last_xid = (uint32_t)msg[4] << 24 | (uint32_t)msg[5] << 16 | (uint32_t)msg[6] << 8 | msg[7];
}

static void
feed(const uint8_t *msg, size_t len, uint64_t now)
{
	struct dhcp_msg m;

	h.in_ack = dhcp_msg_parse(msg, len, &m) == DHCP_PARSE_OK && m.type == DHCP_ACK;
	dhcp_client_input(h.c, msg, len, now);
	h.in_ack = false;
}

static void
record(uint8_t kind, const uint8_t *b, size_t n, uint64_t now)
{
	uint8_t m[DHCP_MSG_MAX_LEN];
	struct dhcp_frame_in in;
	uint8_t *copy;

	switch (kind % 4) {
	case 0:
		copy = fuzz_copy(b, n);
		feed(copy, n, now);
		free(copy);
		break;
	case 1:
		copy = fuzz_copy(b, n);
		if (dhcp_frame_parse(copy, n, &in) == 0) {
			if (in.msg < copy || in.msg + in.len > copy + n)
				FUZZ_FAIL("frame payload outside the frame");
			feed(in.msg, in.len, now);
		}
		free(copy);
		break;
	case 2:
		feed(m, templated(m, b, n, last_xid), now);
		break;
	default:
		if (dhcp_client_decline(h.c, now) == 0 && h.leased)
			FUZZ_FAIL("declined without losing the lease");
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dhcp_client_cfg cfg = {
		.rng = rng,
		.io = { .send = on_send_xid, .lease = on_lease, .lost = on_lost },
	};
	uint64_t now = 0;
	size_t i = 5;

	if (size < 5)
		return 0;
	memset(&h, 0, sizeof(h));
	last_xid = 0;
	h.rng = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 8 | data[4];
	if (h.rng == 0)
		h.rng = 1;
	memcpy(cfg.mac, mac, sizeof(mac));
	strcpy(cfg.host_name, "fuzz");
	cfg.reboot_addr = data[0] & 1 ? 0xc0000232 : 0;
	cfg.no_startup_delay = !(data[0] & 2);
	h.c = dhcp_client_create(&cfg, now);
	if (h.c == NULL)
		FUZZ_FAIL("create refused a valid config");
	while (size - i >= 5) {
		uint64_t step = ((uint64_t)data[i] << 8 | data[i + 1]) * STEP_NS;
		uint8_t kind = data[i + 2];
		size_t n = (size_t)data[i + 3] << 8 | data[i + 4];

		i += 5;
		if (n > size - i)
			n = size - i;
		now += step;
		dhcp_client_tick(h.c, now);
		check_state(now, true);
		record(kind, data + i, n, now);
		check_state(now, false);
		i += n;
	}
	if (getenv("HIPGW_FUZZ_VERBOSE") != NULL) {
		fprintf(stderr, "state %s,", dhcp_state_name(dhcp_client_state(h.c)));
		for (unsigned k = 0; k < DHCP_CNT_COUNT; k++)
			if (dhcp_client_counter(h.c, k) != 0)
				fprintf(stderr, " %s %llu", dhcp_counter_name(k),
					(unsigned long long)dhcp_client_counter(h.c, k));
		fputc('\n', stderr);
	}
	dhcp_client_destroy(h.c);
	return 0;
}
