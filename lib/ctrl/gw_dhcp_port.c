/* SPDX-License-Identifier: BSD-3-Clause
 * `address = dhcp` ports (gw_ctrl.h, "DHCP on an outer port"): one lib/dhcp
 * client (RFC 2131) per such port on the control lcore. Its messages go out
 * on the port in Ethernet / IPv4 / UDP (dhcp_frame_build), the workers punt
 * the servers' replies (GW_PUNT_DHCP, unwrapped by dhcp_frame_parse), its
 * timers run from gw_ctrl_tick, and a lease sets the port's address and
 * gateway through gw_ctrl_set_address. Control lcore only; the telemetry
 * reads a published copy of each client's state (gw_ctrl_dhcp_read).
 */
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "ctrl_internal.h"
#include "dhcp_client.h"
#include "dhcp_frame.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)
#define DHCP_FRAME_MAX  (DHCP_FRAME_HDR_LEN + DHCP_MSG_MAX_LEN)   /* bytes of one frame */

_Static_assert(DHCP_CNT_COUNT <= GW_CTRL_DHCP_COUNTERS, "GW_CTRL_DHCP_COUNTERS too small");

struct ctrl_dhcp {
	struct gw_ctrl *c;
	unsigned port;
	struct dhcp_client *cl;
	uint8_t server_mac[DHCP_ETH_ADDR_LEN];  /* of the last reply: unicast renewals */
	uint32_t server_ip;                     /* its IPv4 source, host order; 0: none */
	bool stopped;                           /* the operator set the address (ctrl_dhcp_stop) */
	uint8_t buf[DHCP_FRAME_MAX];
	struct gw_ctrl_dhcp_info pub;           /* what the telemetry reads (seq odd: writing) */
};

static uint64_t
now_ns(void)
{
	uint64_t t = rte_get_timer_cycles(), hz = rte_get_timer_hz();

	return t / hz * DHCP_NS_PER_S + t % hz * DHCP_NS_PER_S / hz;
}

static void
v4(struct gw_addr *a, uint32_t host_order)
{
	uint32_t be = rte_cpu_to_be_32(host_order);

	memset(a, 0, sizeof(*a));
	a->family = 4;
	memcpy(a->addr, &be, 4);
}

static void
io_send(void *ctx, const uint8_t *msg, size_t len, uint32_t src_ip, uint32_t dst_ip)
{
	struct ctrl_dhcp *d = ctx;
	const struct gw_port *p = &d->c->ctx->ports[d->port];
	bool unicast = dst_ip != DHCP_ADDR_BROADCAST && dst_ip == d->server_ip;
	size_t n = dhcp_frame_build(d->buf, sizeof(d->buf), p->mac.addr_bytes,
				    unicast ? d->server_mac : NULL, src_ip, dst_ip, msg, len);
	struct rte_mbuf *m;

	if (n == 0)
		return;
	m = rte_pktmbuf_alloc(d->c->ctx->pool);
	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)n) == NULL) {
		d->c->st->drops[GW_DROP_RING_FULL]++;
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(rte_pktmbuf_mtod(m, void *), d->buf, n);
	ctrl_tx(d->c, m, d->port);
}

/* BOUND or CHANGED: the lease's address, length and router become the
 * port's (gw_ctrl_set_address); refused, the port keeps what it has and the
 * log says why. RENEWED changes nothing. */
static void
io_lease(void *ctx, enum dhcp_lease_event ev, const struct dhcp_lease *l,
	 const struct dhcp_lease *old)
{
	struct ctrl_dhcp *d = ctx;
	const char *name = d->c->ctx->ports[d->port].name;
	struct gw_prefix a = { .len = l->prefix_len };
	struct gw_addr gw = { 0 };
	char msg[GW_CTRL_MSG_MAX];

	(void)old;
	if (ev == DHCP_LEASE_EV_RENEWED) {
		LOG(INFO, "port %s: DHCP lease renewed, %u s\n", name, l->lease_s);
		return;
	}
	v4(&a.a, l->addr);
	if (l->router != 0)
		v4(&gw, l->router);
	if (gw_ctrl_set_address(d->c, d->port, &a, &gw, msg, sizeof(msg)) != 0)
		LOG(ERR, "port %s: DHCP lease refused, the port keeps its address: %s\n", name, msg);
	else
		LOG(NOTICE, "port %s: DHCP lease %s, %u s: %s\n", name,
		    ev == DHCP_LEASE_EV_BOUND ? "bound" : "changed", l->lease_s, msg);
}

/* RFC 2131 4.4.5 says to stop using the address. hipgw has no way to remove
 * a port's only address of a family, and the client is in INIT again at
 * once: the address stays until the next lease replaces it (logged). */
static void
io_lost(void *ctx, enum dhcp_lost_reason why, const struct dhcp_lease *old)
{
	struct ctrl_dhcp *d = ctx;
	struct gw_addr a;
	char b[GW_ADDR_TEXT_MAX];

	v4(&a, old->addr);
	LOG(WARNING, "port %s: DHCP lease of %s lost (%s): the address stays until a new lease\n",
	    d->c->ctx->ports[d->port].name, gw_addr_str(&a, b, sizeof(b)),
	    dhcp_lost_reason_name(why));
}

static void
io_reject(void *ctx, enum dhcp_reject r, const char *text)
{
	struct ctrl_dhcp *d = ctx;

	(void)r;
	LOG(WARNING, "port %s: DHCP reply refused, the port keeps its address: %s\n",
	    d->c->ctx->ports[d->port].name, text);
}

/* Publish the client's state for the telemetry (seq odd while writing). */
static void
publish(struct ctrl_dhcp *d)
{
	struct gw_ctrl_dhcp_info *p = &d->pub;
	const struct dhcp_lease *l = dhcp_client_lease(d->cl);

	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	snprintf(p->state, sizeof(p->state), "%s",
		 d->stopped ? "stopped" : dhcp_state_name(dhcp_client_state(d->cl)));
	memset(&p->lease, 0, sizeof(p->lease));
	memset(&p->router, 0, sizeof(p->router));
	p->lease_s = 0;
	if (l != NULL) {
		v4(&p->lease.a, l->addr);
		p->lease.len = l->prefix_len;
		if (l->router != 0)
			v4(&p->router, l->router);
		p->lease_s = l->lease_s;
	}
	for (unsigned i = 0; i < DHCP_CNT_COUNT && i < GW_CTRL_DHCP_COUNTERS; i++)
		p->counters[i] = dhcp_client_counter(d->cl, i);
	snprintf(p->last_reject, sizeof(p->last_reject), "%s", dhcp_client_last_reject(d->cl));
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
}

int
ctrl_dhcp_init(struct gw_ctrl *c)
{
	for (unsigned i = 0; i < c->ctx->n_ports && i < GW_PORTS_MAX; i++) {
		const struct gw_port *p = &c->ctx->ports[i];
		struct dhcp_client_cfg cfg = { 0 };
		struct ctrl_dhcp *d;

		if (!p->dhcp)
			continue;
		d = rte_zmalloc("hipgw_dhcp", sizeof(*d), RTE_CACHE_LINE_SIZE);
		if (d == NULL)
			return -1;
		d->c = c;
		d->port = i;
		memcpy(cfg.mac, p->mac.addr_bytes, DHCP_ETH_ADDR_LEN);  /* client id: type 1, MAC */
		/* RFC 2131 4.4.1's 1..10 s wait spreads a whole network's reboot;
		 * a gateway brings up its one port at once */
		cfg.no_startup_delay = true;
		cfg.io = (struct dhcp_client_io){ .ctx = d, .send = io_send, .lease = io_lease,
						  .lost = io_lost, .reject = io_reject };
		d->cl = dhcp_client_create(&cfg, now_ns());
		if (d->cl == NULL) {
			rte_free(d);
			return -1;
		}
		c->dhcp[i] = d;
		publish(d);
		LOG(NOTICE, "port %s: address by DHCP, none until a lease\n", p->name);
	}
	return 0;
}

void
ctrl_dhcp_free(struct gw_ctrl *c)
{
	for (unsigned i = 0; i < GW_PORTS_MAX; i++) {
		if (c->dhcp[i] == NULL)
			continue;
		dhcp_client_destroy(c->dhcp[i]->cl);
		rte_free(c->dhcp[i]);
		c->dhcp[i] = NULL;
	}
}

void
ctrl_dhcp_tick(struct gw_ctrl *c)
{
	uint64_t now = now_ns();

	for (unsigned i = 0; i < GW_PORTS_MAX; i++) {
		struct ctrl_dhcp *d = c->dhcp[i];

		if (d == NULL || d->stopped || now < dhcp_client_next_ns(d->cl))
			continue;
		dhcp_client_tick(d->cl, now);
		publish(d);
	}
}

void
ctrl_dhcp_input(struct gw_ctrl *c, struct rte_mbuf *m, unsigned port)
{
	struct ctrl_dhcp *d = port < GW_PORTS_MAX ? c->dhcp[port] : NULL;
	struct dhcp_frame_in in;

	if (d == NULL || d->stopped) {
		ctrl_drop(c, m, GW_DROP_POLICY);
		return;
	}
	if (!rte_pktmbuf_is_contiguous(m) ||
	    dhcp_frame_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
			     &in) != 0) {
		ctrl_drop(c, m, GW_DROP_MALFORMED);
		return;
	}
	if (dhcp_client_input(d->cl, in.msg, in.len, now_ns()) == 0) {
		/* the server answered from there: renewals go to it unicast */
		memcpy(d->server_mac, in.src_mac, DHCP_ETH_ADDR_LEN);
		d->server_ip = in.src_ip;
	}
	publish(d);
	rte_pktmbuf_free(m);
}

bool
ctrl_dhcp_stop(struct gw_ctrl *c, unsigned port)
{
	struct ctrl_dhcp *d = port < GW_PORTS_MAX ? c->dhcp[port] : NULL;

	if (d == NULL || d->stopped)
		return false;
	d->stopped = true;
	publish(d);
	LOG(NOTICE, "port %s: address set by command: its DHCP client stops until a restart\n",
	    c->ctx->ports[port].name);
	return true;
}

int
gw_ctrl_dhcp_read(const struct gw_ctrl *c, unsigned port, struct gw_ctrl_dhcp_info *out)
{
	const struct ctrl_dhcp *d = port < GW_PORTS_MAX ? c->dhcp[port] : NULL;
	uint32_t s;

	if (d == NULL)
		return -1;
	do {
		s = __atomic_load_n(&d->pub.seq, __ATOMIC_ACQUIRE);
		memcpy(out, &d->pub, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((s & 1) != 0 || s != __atomic_load_n(&d->pub.seq, __ATOMIC_RELAXED));
	return 0;
}

const char *
gw_ctrl_dhcp_counter_name(unsigned i)
{
	return dhcp_counter_name(i);
}
