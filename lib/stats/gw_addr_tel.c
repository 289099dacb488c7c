/* SPDX-License-Identifier: BSD-3-Clause
 * Telemetry /hipgw/set_address,PORT,ADDR/LEN[,GATEWAY]: an outer port's
 * address changes (RFC 8046 mobility; gw_ctrl_set_address). DPDK's telemetry
 * thread parses the parameters and hands the request to the control lcore
 * (gw_ctrl_request), the one writer of ports and routes, then answers
 *   {"result": "ok" | "error", "message": one line}.
 * And /hipgw/dhcp: the DHCP clients of the `address = dhcp` ports.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <rte_telemetry.h>

#include "gw_ctrl.h"
#include "gw_sinks.h"
#include "gw_statsout.h"

#define SET_ADDRESS_TIMEOUT_MS 2000   /* the control lcore takes a request on its next pass */
#define SET_ADDRESS_USAGE "usage: /hipgw/set_address,PORT,ADDRESS/LENGTH[,GATEWAY]"

/* The control lcore's state while it runs (gw_telemetry_set_ctrl); the
 * handler holds ctrl_lock for the whole request, so it is never freed under
 * one. */
static pthread_mutex_t ctrl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gw_ctrl *tel_ctrl;

void
gw_telemetry_set_ctrl(struct gw_ctrl *c)
{
	pthread_mutex_lock(&ctrl_lock);
	tel_ctrl = c;
	pthread_mutex_unlock(&ctrl_lock);
}

/* The answer. msg may echo the client's words: DPDK 22.11 puts strings into
 * its JSON unescaped, so quotes, backslashes and control bytes become '?'. */
static int
reply(struct rte_tel_data *d, bool ok, const char *msg)
{
	char clean[GW_CTRL_MSG_MAX];

	snprintf(clean, sizeof(clean), "%s", msg);
	for (char *p = clean; *p != '\0'; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "result", ok ? "ok" : "error");
	rte_tel_data_add_dict_string(d, "message", clean);
	return 0;
}

/* "PORT,ADDR/LEN[,GATEWAY]" into r; NULL, or what is wrong. */
static const char *
parse(const char *params, struct gw_ctrl_request *r, char *why, size_t whylen)
{
	char buf[GW_CONF_NAME_MAX + 2 * GW_ADDR_TEXT_MAX + 8];
	char *f[4] = { buf }, *save = NULL;
	unsigned n = 0;

	if (params == NULL || strlen(params) >= sizeof(buf))
		return SET_ADDRESS_USAGE;
	snprintf(buf, sizeof(buf), "%s", params);
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (n == RTE_DIM(f))
			return SET_ADDRESS_USAGE;
		f[n++] = t;
	}
	if (n < 2 || n > 3 || strlen(f[0]) >= sizeof(r->port))
		return SET_ADDRESS_USAGE;
	memset(r, 0, sizeof(*r));
	r->kind = GW_CTRL_REQ_SET_ADDRESS;
	snprintf(r->port, sizeof(r->port), "%s", f[0]);
	if (gw_prefix_parse(f[1], &r->addr) != 0) {
		snprintf(why, whylen, "'%.60s' is not ADDRESS/LENGTH", f[1]);
		return why;
	}
	if (n == 3 && gw_addr_parse(f[2], &r->gw) != 0) {
		snprintf(why, whylen, "gateway '%.60s' is not an address", f[2]);
		return why;
	}
	return NULL;
}

static int
tel_set_address(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gw_ctrl_request r;
	char why[GW_CTRL_MSG_MAX];
	const char *bad = parse(params, &r, why, sizeof(why));
	int rc;

	(void)cmd;
	if (bad != NULL)
		return reply(d, false, bad);
	pthread_mutex_lock(&ctrl_lock);
	rc = tel_ctrl == NULL ? -1 : gw_ctrl_request(tel_ctrl, &r, SET_ADDRESS_TIMEOUT_MS);
	pthread_mutex_unlock(&ctrl_lock);
	if (rc != 0)
		return reply(d, false, "the control lcore did not take the request (stopping?): "
			     "nothing changed");
	return reply(d, r.rc == 0, r.msg);
}

/* /hipgw/dhcp: one object per `address = dhcp` port, by port name (as
 * gw_tel_name writes it): state,
 * address (ADDR/LEN or ""), router, lease_s, last_reject and the client's
 * counters by name (docs/counters.md). */
static int
tel_dhcp(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&ctrl_lock);
	for (unsigned i = 0; tel_ctrl != NULL && i < GW_PORTS_MAX; i++) {
		struct gw_ctrl_dhcp_info in;
		struct rte_tel_data *o;
		char a[GW_ADDR_TEXT_MAX + 4], r[GW_ADDR_TEXT_MAX], nb[GW_CONF_NAME_MAX];
		const char *name;

		if (gw_ctrl_dhcp_read(tel_ctrl, i, &in) != 0 || (o = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(o);
		rte_tel_data_add_dict_string(o, "state", in.state);
		a[0] = r[0] = '\0';
		if (in.lease.a.family != 0) {
			gw_addr_str(&in.lease.a, a, GW_ADDR_TEXT_MAX);
			snprintf(a + strlen(a), sizeof(a) - strlen(a), "/%u", in.lease.len);
		}
		if (in.router.family != 0)
			gw_addr_str(&in.router, r, sizeof(r));
		rte_tel_data_add_dict_string(o, "address", a);
		rte_tel_data_add_dict_string(o, "router", r);
		rte_tel_data_add_dict_u64(o, "lease_s", in.lease_s);
		for (char *p = in.last_reject; *p != '\0'; p++)
			if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 ||
			    (unsigned char)*p >= 0x7f)
				*p = '?';
		rte_tel_data_add_dict_string(o, "last_reject", in.last_reject);
		for (unsigned k = 0; (name = gw_ctrl_dhcp_counter_name(k)) != NULL; k++)
			rte_tel_data_add_dict_u64(o, name, in.counters[k]);
		/* telemetry names: letters, digits and '_' (gw_tel_name) */
		if (rte_tel_data_add_dict_container(d, gw_tel_name(gw_ctrl_port_name(tel_ctrl, i),
								 nb, sizeof(nb)), o, 0) != 0)
			rte_tel_data_free(o);
	}
	pthread_mutex_unlock(&ctrl_lock);
	return 0;
}

/* (telemetry takes help texts of up to RTE_TEL_MAX_STRING_LEN bytes) */
int
gw_addr_tel_register(void)
{
	if (rte_telemetry_register_cmd("/hipgw/dhcp", tel_dhcp,
		"The DHCP client of each address = dhcp port: state, address, router, "
		"lease_s, last_reject, counters.") != 0)
		return -1;
	return rte_telemetry_register_cmd("/hipgw/set_address", tel_set_address,
		"Change an outer port's address. Parameters: PORT,ADDRESS/LENGTH[,GATEWAY]. "
		"Answers result (ok, error), message.");
}
