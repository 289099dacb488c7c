/* SPDX-License-Identifier: BSD-3-Clause
 * Middlebox mode on the control lcore: the glue between the workers' HIP
 * punts and the tracker (lib/mbox, mbox_track.h). A HIP packet that crossed
 * a pair (GW_PUNT_MBOX_HIP, the frame unchanged) goes to mbox_hip_input with
 * its outer source and destination and its HIP bytes (HIP over UDP, RFC
 * 5770, to mbox_hip_udp_input with its UDP header: the tracker checks UDP
 * and the non-ESP marker); forwarded, it leaves
 * by the pair's other port as it came (gw_ctrl_tx_frame), else it is dropped
 * as mbox_hip and its reason counted. mbox_tick runs as a gw_ctrl_task tick,
 * with the flow table's reclaim. The tracker's rules and Host Identities come
 * from the config: [rule] in file order, [host] public keys (loaded again,
 * the config check compared them with their HITs). The tracker's counters
 * are copied on each tick for telemetry (mbox_stats runs on the control
 * lcore only).
 */
#include <stdio.h>
#include <string.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "gw_mac.h"                 /* gw_mac_now_ns: the flows' clock */
#include "gw_mbox_setup.h"
#include "gw_meta.h"
#include "gw_ip6ext.h"
#include "hip_hi.h"
#include "mbox_track.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

struct gw_mbox_glue {
	struct gw_ctx *ctx;
	struct gw_ctrl *c;
	struct mbox_tracker *t;
	/* the tracker's counters as of the last tick: mbox_stats runs on the
	 * control lcore only; telemetry reads this copy, each number one
	 * aligned atomic load */
	struct mbox_stats snap;
	struct mbox_rule rules[GW_CONF_MAX_RULES];
	struct mbox_known_hi his[GW_CONF_MAX_HOSTS];
	unsigned n_his;
};

/* The IP packet at l3 (len bytes of the frame after its Ethernet header and
 * tags, as the worker checked it): outer source and destination, where its
 * upper layer starts (bytes from l3: the HIP or UDP header), its protocol
 * (*proto: HIP 139 or UDP 17) and how long the packet is. */
static bool
hip_span(const uint8_t *l3, uint32_t len, struct gw_addr *src, struct gw_addr *dst,
	 uint32_t *hoff, uint32_t *tl, uint8_t *proto)
{
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (len >= GW_IPV4_HDR_LEN && gw_ip_version(l3) == 4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		*tl = rte_be_to_cpu_16(ip->total_length);
		*hoff = gw_ipv4_hdr_bytes(l3);
		*proto = ip->next_proto_id;
		src->family = dst->family = 4;
		memcpy(src->addr, &ip->src_addr, 4);
		memcpy(dst->addr, &ip->dst_addr, 4);
	} else if (len >= GW_IPV6_HDR_LEN && gw_ip_version(l3) == 6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
		struct gw_ip6ext x = { .len = 0, .proto = ip->proto };

		*tl = GW_IPV6_HDR_LEN + rte_be_to_cpu_16(ip->payload_len);
		if (*tl > len || (gw_ip6ext_is(ip->proto) &&
				  gw_ip6ext_walk(l3, *tl, &x) != GW_DROP_NONE))
			return false;
		*hoff = GW_IPV6_HDR_LEN + x.len;
		*proto = x.proto;
		src->family = dst->family = 6;
		memcpy(src->addr, ip->src_addr, 16);
		memcpy(dst->addr, ip->dst_addr, 16);
	} else {
		return false;
	}
	return *tl <= len && *hoff < *tl;
}

/* The gw_ctrl hook: one HIP packet through the tracker. */
static void
glue_hip(void *arg, struct rte_mbuf *m, unsigned port)
{
	struct gw_mbox_glue *g = arg;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), off = gw_meta(m)->l3_off, hoff, tl;
	struct gw_addr src, dst;
	enum mbox_verdict v;
	unsigned why = 0;
	uint8_t proto = 0;

	if (m->nb_segs != 1 || off >= len ||
	    !hip_span(f + off, len - off, &src, &dst, &hoff, &tl, &proto)) {
		gw_ctrl_drop(g->c, m, GW_DROP_MALFORMED);
		return;
	}
	if (proto == GW_IPPROTO_UDP)
		v = mbox_hip_udp_input(g->t, &src, &dst, f + off + hoff, tl - hoff, gw_mac_now_ns(),
				       &why);
	else
		v = mbox_hip_input(g->t, &src, &dst, f + off + hoff, tl - hoff, gw_mac_now_ns(), &why);
	if (v == MBOX_FORWARD) {
		gw_ctrl_stats(g->c)->mbox_hip_fwd++;
		gw_ctrl_tx_frame(g->c, m, g->ctx->mbox_peer[port] - 1u);
		return;
	}
	(void)why;                     /* the tracker counts it under its reason */
	gw_ctrl_drop(g->c, m, GW_DROP_MBOX_HIP);
}

/* The tracker's counters into g->snap (control lcore), word by word. */
static void
glue_snap(struct gw_mbox_glue *g)
{
	struct mbox_stats st;

	mbox_stats(g->t, &st);
	for (unsigned i = 0; i < MBOX_DROPS; i++)
		__atomic_store_n(&g->snap.drops[i], st.drops[i], __ATOMIC_RELAXED);
#define X(n, d) __atomic_store_n(&g->snap.n, st.n, __ATOMIC_RELAXED);
	MBOX_COUNTER_LIST(X)
#undef X
	__atomic_store_n(&g->snap.assocs, st.assocs, __ATOMIC_RELAXED);
	__atomic_store_n(&g->snap.pending, st.pending, __ATOMIC_RELAXED);
	__atomic_store_n(&g->snap.i1_sources, st.i1_sources, __ATOMIC_RELAXED);
}

_Static_assert(MBOX_ASSOCS_MAX == GW_MBOX_ASSOCS_MAX, "the tracker's bound is the config's");

/* The config's rules and Host Identities in the tracker's shapes. */
static int
glue_params(struct gw_mbox_glue *g, struct mbox_params *p, char *err, size_t errlen)
{
	const struct gw_config *cfg = g->ctx->cfg;
	const struct gw_conf_mbox *m = &cfg->mbox;

	for (unsigned i = 0; i < cfg->n_rules; i++) {
		const struct gw_conf_rule *r = &cfg->rules[i];
		struct mbox_rule *o = &g->rules[i];

		snprintf(o->name, sizeof(o->name), "%s", r->name);
		o->any_initiator = r->any_initiator;
		o->any_responder = r->any_responder;
		memcpy(o->initiator, r->initiator, HIP_HIT_LEN);
		memcpy(o->responder, r->responder, HIP_HIT_LEN);
		o->action = r->action == GW_RULE_ALLOW ? MBOX_ALLOW : MBOX_DENY;
	}
	for (; g->n_his < cfg->n_hosts; g->n_his++) {
		const struct gw_conf_host *h = &cfg->hosts[g->n_his];
		char msg[300];

		if (hip_hi_load_public(h->hi_path, &g->his[g->n_his].hi, msg, sizeof(msg)) != 0) {
			snprintf(err, errlen, "%s:%u: [host %s]: %s", cfg->path, h->line, h->name, msg);
			return -1;
		}
	}
	*p = (struct mbox_params){
		.max_assocs = m->max_assocs,
		.idle_ns = (uint64_t)m->idle_timeout_s * NS_PER_S,
		.rekey_grace_ns = (uint64_t)m->rekey_grace_s * NS_PER_S,
		.i1_rate = m->i1_rate,
		.rules = g->rules, .n_rules = cfg->n_rules,
		.his = g->his, .n_his = g->n_his,
		.flows = g->ctx->mbox_flows,
		.state_path = m->state_file[0] != '\0' ? m->state_file : NULL,
	};
	return 0;
}

struct gw_mbox_glue *
gw_mbox_glue_create(struct gw_ctx *ctx, struct gw_ctrl *c, char *err, size_t errlen)
{
	struct gw_mbox_glue *g = rte_zmalloc("hipgw_mbox_glue", sizeof(*g), RTE_CACHE_LINE_SIZE);
	struct gw_ctrl_hooks h = { .ctx = g, .mbox_hip = glue_hip };
	struct mbox_params p;

	if (g == NULL) {
		snprintf(err, errlen, "middlebox: no memory for the tracker's glue");
		return NULL;
	}
	g->ctx = ctx;
	g->c = c;
	if (glue_params(g, &p, err, errlen) != 0 || (g->t = mbox_create(&p, err, errlen)) == NULL) {
		gw_mbox_glue_free(g);
		return NULL;
	}
	glue_snap(g);                  /* what the state file brought, before the first tick */
	gw_ctrl_set_hooks(c, &h);
	return g;
}

void
gw_mbox_glue_emit(void *arg, struct gw_stat_sink *s)
{
	const struct gw_mbox_glue *g = arg;
	const struct mbox_stats *st = &g->snap;

	s->begin(s, "associations");
	s->u64(s, "now", __atomic_load_n(&st->assocs, __ATOMIC_RELAXED));
	s->u64(s, "pending", __atomic_load_n(&st->pending, __ATOMIC_RELAXED));
	s->u64(s, "i1_sources", __atomic_load_n(&st->i1_sources, __ATOMIC_RELAXED));
	s->end(s);
	s->begin(s, "hip");
#define X(n, d) s->u64(s, #n, __atomic_load_n(&st->n, __ATOMIC_RELAXED));
	MBOX_COUNTER_LIST(X)
#undef X
	s->end(s);
	/* HIP the tracker dropped, by its reason (mbox_hip counts these and the
	 * HIP fragments the workers dropped) */
	s->begin(s, "hip_drops");
	for (unsigned i = 0; i < MBOX_DROPS; i++)
		s->u64(s, mbox_reason_name(i), __atomic_load_n(&st->drops[i], __ATOMIC_RELAXED));
	s->end(s);
}

void
gw_mbox_glue_tick(struct gw_mbox_glue *g)
{
	mbox_tick(g->t, gw_mac_now_ns());
	glue_snap(g);
	gw_mbox_flows_reclaim(g->ctx->mbox_flows);
}

void
gw_mbox_glue_free(struct gw_mbox_glue *g)
{
	char err[256] = "";

	if (g == NULL)
		return;
	/* what changed since the last tick's write (MBOX_STATE_GAP_NS apart:
	 * a rekey just completed) goes into the state file now, so that the
	 * next start forwards the SPIs in use, not the ones they replaced */
	if (mbox_state_flush(g->t, err, sizeof(err)) != 0)
		LOG(ERR, "middlebox: %s\n", err);
	mbox_free(g->t);
	for (unsigned i = 0; i < g->n_his; i++)
		hip_hi_free(&g->his[i].hi);
	rte_free(g);
}
