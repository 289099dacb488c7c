/* SPDX-License-Identifier: BSD-3-Clause
 * DHCPv4 message parse and build (RFC 2131 section 2, RFC 2132).
 */
#include <string.h>

#include "dhcp_wire.h"

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t *
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

static const char *const parse_err_names[DHCP_PARSE_ERR_COUNT] = {
	[DHCP_PARSE_OK] = "ok",
#define X(n, s) [DHCP_PARSE_##n] = s,
	DHCP_PARSE_ERRORS(X)
#undef X
};

const char *
dhcp_parse_err_name(enum dhcp_parse_err e)
{
	return (unsigned)e < DHCP_PARSE_ERR_COUNT ? parse_err_names[e] : "?";
}

int
dhcp_mask_prefix(uint32_t m)
{
	uint32_t inv = ~m;

	/* contiguous ones from the top: the inverse is 2^k - 1 */
	if ((inv & (inv + 1)) != 0)
		return -1;
	return 32 - __builtin_popcount(inv);
}

/* Fixed-length option of a known code: its value length, else 0 (variable
 * length or unknown). */
static unsigned
fixed_len(uint8_t code)
{
	switch (code) {
	case DHCP_OPT_SUBNET_MASK:
	case DHCP_OPT_REQUESTED_IP:
	case DHCP_OPT_SERVER_ID:
		return DHCP_OPT_ADDR_LEN;
	case DHCP_OPT_LEASE_TIME:
	case DHCP_OPT_RENEWAL_T1:
	case DHCP_OPT_REBIND_T2:
		return DHCP_OPT_TIME_LEN;
	case DHCP_OPT_MSG_TYPE:
	case DHCP_OPT_OVERLOAD:
		return 1;
	default:
		return 0;
	}
}

/* One option (code, value of n bytes, already bounds-checked) into m. */
static enum dhcp_parse_err
take_option(struct dhcp_msg *m, uint8_t code, const uint8_t *v, unsigned n, uint64_t *seen)
{
	unsigned want = fixed_len(code);

	if (want != 0 && n != want)
		return DHCP_PARSE_OPT_LEN;
	if (code == DHCP_OPT_ROUTER && (n == 0 || n % DHCP_OPT_ADDR_LEN != 0))
		return DHCP_PARSE_OPT_LEN;
	if (want != 0 || code == DHCP_OPT_ROUTER) {
		/* the codes read here are all below 64 */
		if (*seen & (1ull << code))
			return DHCP_PARSE_OPT_DUP;
		*seen |= 1ull << code;
	}
	switch (code) {
	case DHCP_OPT_MSG_TYPE:
		m->type = v[0];
		break;
	case DHCP_OPT_OVERLOAD:
		return DHCP_PARSE_OVERLOAD;
	case DHCP_OPT_SERVER_ID:
		m->has_server_id = true;
		m->server_id = get32(v);
		break;
	case DHCP_OPT_LEASE_TIME:
		m->has_lease = true;
		m->lease_s = get32(v);
		break;
	case DHCP_OPT_RENEWAL_T1:
		m->has_t1 = true;
		m->t1_s = get32(v);
		break;
	case DHCP_OPT_REBIND_T2:
		m->has_t2 = true;
		m->t2_s = get32(v);
		break;
	case DHCP_OPT_SUBNET_MASK:
		m->has_mask = true;
		m->mask = get32(v);
		break;
	case DHCP_OPT_ROUTER:
		m->router = get32(v);
		m->n_routers = (uint8_t)(n / DHCP_OPT_ADDR_LEN);
		break;
	default:
		break;
	}
	return DHCP_PARSE_OK;
}

/* The options field, pkt[DHCP_OPTIONS_OFF .. len): RFC 2132 2, TLVs with the
 * single-byte pad (0) and end (255). */
static enum dhcp_parse_err
parse_options(const uint8_t *pkt, size_t len, struct dhcp_msg *m)
{
	size_t i = DHCP_OPTIONS_OFF;
	uint64_t seen = 0;

	while (i < len) {
		uint8_t code = pkt[i];
		enum dhcp_parse_err e;
		unsigned n;

		if (code == DHCP_OPT_PAD) {
			i++;
			continue;
		}
		if (code == DHCP_OPT_END)
			return DHCP_PARSE_OK;
		if (len - i < 2)
			return DHCP_PARSE_OPT_TRUNC;
		n = pkt[i + 1];
		if (len - i - 2 < n)
			return DHCP_PARSE_OPT_TRUNC;
		e = take_option(m, code, pkt + i + 2, n, &seen);
		if (e != DHCP_PARSE_OK)
			return e;
		i += 2 + (size_t)n;
	}
	return DHCP_PARSE_NO_END;
}

enum dhcp_parse_err
dhcp_msg_parse(const uint8_t *pkt, size_t len, struct dhcp_msg *m)
{
	enum dhcp_parse_err e;

	if (pkt == NULL || len < DHCP_OPTIONS_OFF)
		return DHCP_PARSE_SHORT;
	if (pkt[0] != DHCP_OP_BOOTREPLY || pkt[1] != DHCP_HTYPE_ETHER || pkt[2] != DHCP_HLEN_ETHER)
		return DHCP_PARSE_NOT_REPLY;
	if (get32(pkt + DHCP_HDR_LEN) != DHCP_MAGIC_COOKIE)
		return DHCP_PARSE_COOKIE;
	memset(m, 0, sizeof(*m));
	m->xid = get32(pkt + DHCP_OFF_XID);
	m->flags = (uint16_t)(pkt[DHCP_OFF_FLAGS] << 8 | pkt[DHCP_OFF_FLAGS + 1]);
	m->ciaddr = get32(pkt + DHCP_OFF_CIADDR);
	m->yiaddr = get32(pkt + DHCP_OFF_YIADDR);
	m->siaddr = get32(pkt + DHCP_OFF_SIADDR);
	m->giaddr = get32(pkt + DHCP_OFF_GIADDR);
	memcpy(m->chaddr, pkt + DHCP_OFF_CHADDR, DHCP_CHADDR_LEN);
	e = parse_options(pkt, len, m);
	if (e != DHCP_PARSE_OK)
		return e;
	if (m->type == 0)
		return DHCP_PARSE_NO_TYPE;
	if (m->type > DHCP_INFORM)
		return DHCP_PARSE_BAD_TYPE;
	return DHCP_PARSE_OK;
}

static uint8_t *
put_opt(uint8_t *p, uint8_t code, const void *v, size_t n)
{
	*p++ = code;
	*p++ = (uint8_t)n;
	memcpy(p, v, n);
	return p + n;
}

static uint8_t *
put_opt_addr(uint8_t *p, uint8_t code, uint32_t a)
{
	*p++ = code;
	*p++ = DHCP_OPT_ADDR_LEN;
	return put32(p, a);
}

/* What the client asks the server for (option 55, RFC 2132 9.8) */
static const uint8_t param_list[] = {
	DHCP_OPT_SUBNET_MASK, DHCP_OPT_ROUTER, DHCP_OPT_LEASE_TIME,
	DHCP_OPT_RENEWAL_T1, DHCP_OPT_REBIND_T2,
};

size_t
dhcp_msg_build(uint8_t *buf, size_t cap, const struct dhcp_build *b)
{
	size_t hn = b->host_name != NULL ? strlen(b->host_name) : 0;
	uint8_t *p;

	if (buf == NULL || cap < DHCP_MSG_MAX_LEN || b->mac == NULL || hn > DHCP_HOST_NAME_MAX)
		return 0;
	if (b->client_id_len != 0 &&
	    (b->client_id == NULL || b->client_id_len < DHCP_CLIENT_ID_MIN ||
	     b->client_id_len > DHCP_CLIENT_ID_MAX))
		return 0;
	/* the options below fit in 312 bytes: 3 + 6 + 6 + 66 + 65 + 7 + 1 */
	memset(buf, 0, DHCP_MSG_MAX_LEN);
	buf[0] = DHCP_OP_BOOTREQUEST;
	buf[1] = DHCP_HTYPE_ETHER;
	buf[2] = DHCP_HLEN_ETHER;
	put32(buf + DHCP_OFF_XID, b->xid);
	buf[DHCP_OFF_SECS] = (uint8_t)(b->secs >> 8);
	buf[DHCP_OFF_SECS + 1] = (uint8_t)b->secs;
	buf[DHCP_OFF_FLAGS] = (uint8_t)(b->flags >> 8);
	buf[DHCP_OFF_FLAGS + 1] = (uint8_t)b->flags;
	put32(buf + DHCP_OFF_CIADDR, b->ciaddr);
	memcpy(buf + DHCP_OFF_CHADDR, b->mac, DHCP_HLEN_ETHER);
	put32(buf + DHCP_HDR_LEN, DHCP_MAGIC_COOKIE);
	p = buf + DHCP_OPTIONS_OFF;
	p = put_opt(p, DHCP_OPT_MSG_TYPE, &b->type, 1);
	if (b->requested_ip != 0)
		p = put_opt_addr(p, DHCP_OPT_REQUESTED_IP, b->requested_ip);
	if (b->server_id != 0)
		p = put_opt_addr(p, DHCP_OPT_SERVER_ID, b->server_id);
	if (b->client_id_len != 0)
		p = put_opt(p, DHCP_OPT_CLIENT_ID, b->client_id, b->client_id_len);
	if (hn != 0)
		p = put_opt(p, DHCP_OPT_HOST_NAME, b->host_name, hn);
	if (b->param_list)
		p = put_opt(p, DHCP_OPT_PARAM_LIST, param_list, sizeof(param_list));
	*p++ = DHCP_OPT_END;
	if ((size_t)(p - buf) < DHCP_MSG_MIN_LEN)
		return DHCP_MSG_MIN_LEN;   /* the rest is zero: pad options */
	return (size_t)(p - buf);
}
