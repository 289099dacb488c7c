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
#include "gw_meta.h"
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

/* An ICMPv6 echo request (RFC 4443 4.1) from our HIT to p's with
 * identifier id, sequence number seq and len bytes of data (NULL: the
 * letters), checksum done; NULL when no mbuf. */
static struct rte_mbuf *
echo_build(struct gw_peer *p, uint16_t id, uint16_t seq, const uint8_t *data, unsigned len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->g->ctx->pool);
	struct rte_ipv6_hdr *ip;
	uint8_t *ic;

	if (m == NULL)
		return NULL;
	ip = (struct rte_ipv6_hdr *)rte_pktmbuf_append(m, (uint16_t)(sizeof(*ip) + 8 + len));
	if (ip == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(0));
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + len));
	ip->proto = GW_IPPROTO_ICMPV6;
	ip->hop_limits = GW_IP_DEFAULT_TTL;
	memcpy(ip->src_addr, p->g->hi.hit, 16);
	memcpy(ip->dst_addr, p->conf->hit, 16);
	ic = (uint8_t *)(ip + 1);
	ic[0] = GW_ICMP6_ECHO_REQUEST;
	ic[1] = 0;
	ic[2] = ic[3] = 0;
	ic[4] = (uint8_t)(id >> 8);
	ic[5] = (uint8_t)id;
	ic[6] = (uint8_t)(seq >> 8);
	ic[7] = (uint8_t)seq;
	for (unsigned i = 0; i < len; i++)
		ic[8 + i] = data != NULL ? data[i] : (uint8_t)('a' + i % 26);
	{
		uint16_t ck = rte_ipv6_udptcp_cksum(ip, ic);
		memcpy(ic + 2, &ck, 2);
	}
	return m;
}

/* One ICMPv6 echo request from our HIT to p's, in BEET. */
static void
hit_ping_send(struct gw_peer *p)
{
	struct rte_mbuf *m;

	p->echo_seq++;
	m = echo_build(p, GW_HIP_ECHO_ID, p->echo_seq, NULL, GW_HIP_ECHO_DATA);
	if (m != NULL && beet_send(p, m) == 0)
		p->hit_echo_tx++;
}

/* ---- multihoming probes (RFC 8047; gw_hip_mh.c has the policy) ----
 * An echo request of identifier GW_HIP_MH_ECHO_ID whose data is the
 * probe's sequence number (4 bytes) and the path's outer addresses, ours
 * then the peer's (16 bytes each, IPv4 as IPv4-mapped IPv6). It goes
 * through the peer's out SA, its outer header then rewritten to the
 * path's addresses, out of the path's uplink. The peer answers with the
 * same data to the address in it when that is one of our announced
 * locators (LOCATOR_SET, authenticated), so the answer comes back over the
 * path: one answer of the request's size per request, to an address the
 * peer itself announced: no amplification, no reflection elsewhere. */
#define GW_HIP_MH_ECHO_ID   0x4d48      /* "MH" */
#define GW_HIP_MH_DATA      36

static void
loc16(const struct gw_addr *a, uint8_t b[16])
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (a->family == 4) {
		memcpy(b, v4mapped, 12);
		memcpy(b + 12, a->addr, 4);
	} else {
		memcpy(b, a->addr, 16);
	}
}

static void
addr16(const uint8_t b[16], struct gw_addr *a)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(a, 0, sizeof(*a));
	if (memcmp(b, v4mapped, 12) == 0) {
		a->family = 4;
		memcpy(a->addr, b + 12, 4);
	} else {
		a->family = 6;
		memcpy(a->addr, b, 16);
	}
}

/* m's outer header (the ESP packet from esp_outbound_beet_burst): source
 * src (NULL: kept) and destination dst, the IPv4 header checksum again.
 * False when the families differ. */
static bool
outer_rewrite(struct rte_mbuf *m, const struct gw_addr *src, const struct gw_addr *dst)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);

	if (gw_ip_version(l3) == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		if (dst->family != 4 || (src != NULL && src->family != 4))
			return false;
		if (src != NULL)
			memcpy(&ip->src_addr, src->addr, 4);
		memcpy(&ip->dst_addr, dst->addr, 4);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		return true;
	}
	if (dst->family != 6 || (src != NULL && src->family != 6))
		return false;
	if (src != NULL)
		memcpy(l3 + offsetof(struct rte_ipv6_hdr, src_addr), src->addr, 16);
	memcpy(l3 + offsetof(struct rte_ipv6_hdr, dst_addr), dst->addr, 16);
	return true;
}

/* m (an IPv6 packet from our HIT to p's) through p's out SA, its outer
 * header rewritten to src (NULL: kept) -> dst; NULL (m dropped and
 * counted) when there is no out SA, it is UDP-encapsulated, or ESP failed. */
static struct rte_mbuf *
beet_encrypt_to(struct gw_peer *p, struct rte_mbuf *m, const struct gw_addr *src,
		const struct gw_addr *dst)
{
	struct gw_sa *out = gw_sadb_out(&p->g->ctx->sadb, p->slot);
	struct esp_sa *esp;
	uint8_t d = GW_DROP_NONE;

	if (out == NULL || esp_sa_udp(out->esp)) {
		gw_hip_count_drop(m, GW_DROP_NO_SA);
		return NULL;
	}
	esp = out->esp;
	esp_outbound_beet_burst(&esp, &m, &d, 1);
	if (d != GW_DROP_NONE) {
		gw_hip_count_drop(m, (enum gw_drop)d);
		return NULL;
	}
	if (!outer_rewrite(m, src, dst)) {
		gw_hip_count_drop(m, GW_DROP_POLICY);
		return NULL;
	}
	return m;
}

int
gw_hip_mh_probe_send(struct gw_peer *p, const struct gw_addr *local, const struct gw_addr *remote,
		     unsigned port, const struct gw_addr *via, uint32_t seq)
{
	uint8_t data[GW_HIP_MH_DATA];
	struct rte_mbuf *m;

	data[0] = (uint8_t)(seq >> 24);
	data[1] = (uint8_t)(seq >> 16);
	data[2] = (uint8_t)(seq >> 8);
	data[3] = (uint8_t)seq;
	loc16(local, data + 4);
	loc16(remote, data + 20);
	m = echo_build(p, GW_HIP_MH_ECHO_ID, (uint16_t)seq, data, sizeof(data));
	if (m == NULL)
		return -1;
	m = beet_encrypt_to(p, m, local, remote);
	if (m == NULL)
		return -1;
	gw_ctrl_send_ip_via(p->g->ctrl, m, port, via);
	return 0;
}

/* A probe request from p (its ICMPv6 header at ic, made a reply already,
 * checksum done; m at the IPv6 header): answered to the locator of ours in
 * it when p announced it to us (hip_peer_info.peer_locators, the address
 * in use), else on the SA's path. Consumes m. */
static void
probe_answer(struct gw_peer *p, struct rte_mbuf *m, const uint8_t *ic)
{
	struct hip_peer_info pi;
	struct gw_addr to;
	bool known = false;

	addr16(ic + 8 + 4, &to);        /* the prober's locator: its path's "local" */
	if (hip_host_peer_info(p->g->host, p, &pi) == 0) {
		known = gw_addr_eq(&to, &pi.remote);
		for (unsigned i = 0; i < pi.n_peer_locators && !known; i++)
			known = gw_addr_eq(&to, &pi.peer_locators[i].addr);
	}
	if (!known) {
		if (beet_send(p, m) == 0)
			p->hit_echo_answered++;
		return;
	}
	m = beet_encrypt_to(p, m, NULL, &to);
	if (m == NULL)
		return;
	p->hit_echo_answered++;
	gw_ctrl_send_ip(p->g->ctrl, m);
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
		if (ic[4] == GW_HIP_MH_ECHO_ID >> 8 && ic[5] == (GW_HIP_MH_ECHO_ID & 0xff) &&
		    plen >= 8 + GW_HIP_MH_DATA) {
			struct gw_addr local, remote;

			addr16(ic + 8 + 4, &local);
			addr16(ic + 8 + 20, &remote);
			gw_hip_mh_answer(p, (uint32_t)ic[8] << 24 | (uint32_t)ic[9] << 16 |
					 (uint32_t)ic[10] << 8 | ic[11], &local, &remote,
					 gw_meta(m)->port);
		} else {
			p->hit_echo_rx++;
		}
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
	if (ic[4] == GW_HIP_MH_ECHO_ID >> 8 && ic[5] == (GW_HIP_MH_ECHO_ID & 0xff) &&
	    plen >= 8 + GW_HIP_MH_DATA) {
		probe_answer(p, m, ic);
		return;
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

