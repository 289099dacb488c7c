/* SPDX-License-Identifier: BSD-3-Clause
 * HIP keying, the gateways' own HIT-to-HIT traffic in BEET (RFC 7402 3.1):
 * the control lcore answers ICMPv6 echo requests to its HIT and, on the
 * telemetry command /hipgw/hit_ping, sends echo requests to a peer's HIT; it
 * encrypts them itself (lib/esp with this lcore's manager: an out SA may be
 * used by several lcores at once) and sends the ESP packet with
 * gw_ctrl_send_ip.
 */
#include <arpa/inet.h>
#include <string.h>
#include <rte_ip.h>
#include <rte_log.h>

#include "gw_hip_internal.h"
#include "hip_host.h"
#include "hip_hit.h"
#include "hipgw_wire.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

#define GW_HIP_PING_MAX     16          /* HIT echo requests sent per peer per tick */
#define GW_HIP_ECHO_ID      0x4847      /* ICMPv6 echo identifier of our HIT pings */
#define GW_HIP_ECHO_DATA    32          /* bytes of echo payload */

/* m holds an IPv6 packet from our HIT to p's: encrypt it in BEET with p's
 * current out SA and send it. Consumes m. 0 or -1 (dropped and counted). */
static int
beet_send(struct gw_peer *p, struct rte_mbuf *m)
{
	struct gw_sa *out = gw_sadb_out(&p->g->ctx->sadb, p->slot);
	struct esp_sa *esp;
	uint8_t d = GW_DROP_NONE;

	if (out == NULL) {
		gw_hip_count_drop(m, GW_DROP_NO_SA);
		return -1;
	}
	/* the control lcore frees replaced SAs itself (RCU reclaim): out stays valid here */
	esp = out->esp;
	esp_outbound_beet_burst(&esp, &m, &d, 1);
	if (d != GW_DROP_NONE) {
		gw_hip_count_drop(m, (enum gw_drop)d);
		return -1;
	}
	gw_ctrl_send_ip(p->g->ctrl, m);
	return 0;
}

/* One ICMPv6 echo request (RFC 4443 4.1) from our HIT to p's, in BEET. */
static void
hit_ping_send(struct gw_peer *p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->g->ctx->pool);
	struct rte_ipv6_hdr *ip;
	uint8_t *ic;

	if (m == NULL)
		return;
	ip = (struct rte_ipv6_hdr *)rte_pktmbuf_append(m, sizeof(*ip) + 8 + GW_HIP_ECHO_DATA);
	if (ip == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(0));
	ip->payload_len = rte_cpu_to_be_16(8 + GW_HIP_ECHO_DATA);
	ip->proto = GW_IPPROTO_ICMPV6;
	ip->hop_limits = GW_IP_DEFAULT_TTL;
	memcpy(ip->src_addr, p->g->hi.hit, 16);
	memcpy(ip->dst_addr, p->conf->hit, 16);
	ic = (uint8_t *)(ip + 1);
	ic[0] = GW_ICMP6_ECHO_REQUEST;
	ic[1] = 0;
	ic[2] = ic[3] = 0;
	ic[4] = GW_HIP_ECHO_ID >> 8;
	ic[5] = GW_HIP_ECHO_ID & 0xff;
	p->echo_seq++;
	ic[6] = (uint8_t)(p->echo_seq >> 8);
	ic[7] = (uint8_t)p->echo_seq;
	for (unsigned i = 0; i < GW_HIP_ECHO_DATA; i++)
		ic[8 + i] = (uint8_t)('a' + i % 26);
	{
		uint16_t ck = rte_ipv6_udptcp_cksum(ip, ic);
		memcpy(ic + 2, &ck, 2);
	}
	if (beet_send(p, m) == 0)
		p->hit_echo_tx++;
}

/* A BEET packet from a peer's HIT to ours (the ESP layer rebuilt its header
 * from the SA, so the HITs are authenticated): ICMPv6 echo request -> reply in
 * BEET, echo reply -> counted. Anything else is not served here (policy). */
void
gw_hip_beet_input(void *arg, struct rte_mbuf *m)
{
	struct gw_hip *g = arg;
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct gw_peer *p = NULL;
	uint8_t *ic, a[16];
	uint32_t plen;

	if (len < sizeof(*ip) + 8 || gw_ip_version((const uint8_t *)ip) != 6) {
		gw_hip_count_drop(m, GW_DROP_MALFORMED);
		return;
	}
	plen = rte_be_to_cpu_16(ip->payload_len);
	for (unsigned i = 0; i < g->n_peers; i++)
		if (memcmp(g->peers[i].conf->hit, ip->src_addr, 16) == 0)
			p = &g->peers[i];
	ic = (uint8_t *)(ip + 1);
	if (p == NULL || memcmp(ip->dst_addr, g->hi.hit, 16) != 0 ||
	    ip->proto != GW_IPPROTO_ICMPV6 || sizeof(*ip) + plen > len || plen < 8 ||
	    rte_ipv6_udptcp_cksum_verify(ip, ic) != 0) {
		gw_hip_count_drop(m, GW_DROP_POLICY);
		return;
	}
	if (ic[0] == GW_ICMP6_ECHO_REPLY && ic[1] == 0) {
		p->hit_echo_rx++;
		rte_pktmbuf_free(m);
		return;
	}
	if (ic[0] != GW_ICMP6_ECHO_REQUEST || ic[1] != 0) {
		gw_hip_count_drop(m, GW_DROP_POLICY);
		return;
	}
	ic[0] = GW_ICMP6_ECHO_REPLY;
	memcpy(a, ip->src_addr, 16);
	memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, a, 16);
	ip->hop_limits = GW_IP_DEFAULT_TTL;
	ic[2] = ic[3] = 0;
	{
		uint16_t ck = rte_ipv6_udptcp_cksum(ip, ic);
		memcpy(ic + 2, &ck, 2);
	}
	if (beet_send(p, m) == 0)
		p->hit_echo_answered++;
}

int
gw_hip_hit_ping(struct gw_hip *g, const char *peer)
{
	for (unsigned i = 0; i < g->n_peers; i++) {
		if (strcmp(g->peers[i].conf->name, peer) == 0) {
			__atomic_fetch_add(&g->peers[i].ping_req, 1, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return -1;
}

/* Echo requests the telemetry thread asked for: sent from here, the control
 * lcore. Without an SA yet the request starts a BEX and is dropped (no_sa). */
void
gw_hip_hit_ping_run(struct gw_hip *g, uint64_t now)
{
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];
		uint32_t n;

		if (__atomic_load_n(&p->ping_req, __ATOMIC_RELAXED) == 0)
			continue;
		n = __atomic_exchange_n(&p->ping_req, 0, __ATOMIC_RELAXED);
		if (gw_sadb_out(&g->ctx->sadb, p->slot) == NULL) {
			if (now - p->ping_log_ns >= 1000000000ULL || p->ping_log_ns == 0) {
				/* at most a line a second, however often it is asked */
				LOG(INFO, "peer %s: HIT ping without SAs: dropped (no_sa); a BEX "
				    "starts unless one runs\n", p->conf->name);
				p->ping_log_ns = now;
			}
			gw_stats[rte_lcore_id()].drops[GW_DROP_NO_SA] += n;
			hip_host_connect(g->host, p, now);
			continue;
		}
		for (uint32_t k = 0; k < n && k < GW_HIP_PING_MAX; k++)
			hit_ping_send(p);
		if (n > GW_HIP_PING_MAX)   /* the rest on the next passes, none lost */
			__atomic_fetch_add(&p->ping_req, n - GW_HIP_PING_MAX, __ATOMIC_RELAXED);
	}
}

