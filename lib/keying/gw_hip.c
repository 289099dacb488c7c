/* SPDX-License-Identifier: BSD-3-Clause
 * HIP keying on the control lcore: the glue between the protocol engine
 * (lib/hip, RFC 7401 / RFC 7402) and the gateway's tables. Per [peer]: an SPD
 * out slot for its prefixes; packets towards it while it has no SA are staged
 * (bounded) and start a Base Exchange; when the engine reports new SAs, the in
 * SA goes into the SAD first, then the out SA into the slot (make-before-break);
 * the staged packets go back through the fast path once the association is
 * ESTABLISHED (io_established): at once at the initiator, which has R2; the
 * responder holds them in R2-SENT (RFC 7401 4.4.3) until the peer's first ESP
 * on the new in SA, its UPDATE or the R2-SENT timer shows that the peer has
 * processed R2 and has its in SA: sent earlier, they would be dropped there as
 * no_sa. ESP for an SPI we do not know from a peer's locator, while we have no
 * SA with it, starts a Base Exchange too: the peer kept SAs that we lost in a
 * restart (the workers' trigger, lib/tables/gw_peerloc.h).
 *
 * The SAs carry site traffic in tunnel mode (next header 4/41) and the
 * gateways' own HIT-to-HIT packets in BEET (RFC 7402 3.1; gw_hip_beet.c).
 *
 * With --keylog, every SA installed (both directions, at the BEX and at each
 * UPDATE rekey) is written as one line of tshark's esp_sa UAT table, so that
 * a capture of the WAN link can be decrypted (docs/config.md, "--keylog").
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <openssl/rand.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "gw_hip_internal.h"
#include "gw_meta.h"
#include "hip_host.h"
#include "hip_hit.h"
#include "hipgw_wire.h"

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

/* a [peer]'s hit (lib/conf) is what the engine takes as a HIT (lib/hipcrypto) */
_Static_assert(GW_CONF_HIT_LEN == HIP_HIT_LEN, "one HIT length, bytes");

#define GW_HIP_OLD_SA_NS    (2ULL * 1000 * 1000 * 1000)  /* keep a replaced in SA 2 s */
#define GW_HIP_DROP_LOG_MAX 8           /* dropped HIP packets logged per second, */
#define GW_HIP_DROP_LOG_NS  (1000ULL * 1000 * 1000)   /* the rest counted (an I1 flood) */

uint64_t
gw_hip_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- engine callbacks ---- */

static void
io_send(void *arg, const struct gw_addr *src, const struct gw_addr *dst, const uint8_t *pkt,
	size_t len)
{
	struct gw_hip *g = arg;
	struct rte_mbuf *m = rte_pktmbuf_alloc(g->ctx->pool);
	size_t hl = src->family == 4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	uint8_t *p;

	if (m == NULL)
		return;
	p = (uint8_t *)rte_pktmbuf_append(m, hl + len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (src->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = GW_IPV4_VER_IHL;
		ip->total_length = rte_cpu_to_be_16(hl + len);
		ip->time_to_live = GW_IP_DEFAULT_TTL;
		ip->next_proto_id = GW_IPPROTO_HIP;
		memcpy(&ip->src_addr, src->addr, 4);
		memcpy(&ip->dst_addr, dst->addr, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;
		memset(ip, 0, sizeof(*ip));
		ip->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(0));
		ip->payload_len = rte_cpu_to_be_16(len);
		ip->proto = GW_IPPROTO_HIP;
		ip->hop_limits = GW_IP_DEFAULT_TTL;
		memcpy(ip->src_addr, src->addr, 16);
		memcpy(ip->dst_addr, dst->addr, 16);
	}
	memcpy(p + hl, pkt, len);
	gw_ctrl_send_ip(g->ctrl, m);
}

static uint32_t
io_spi_alloc(void *arg)
{
	struct gw_hip *g = arg;
	for (int tries = 0; tries < 64; tries++) {
		uint32_t spi;
		void *data;
		if (RAND_bytes((unsigned char *)&spi, sizeof(spi)) != 1)
			return 0;
		if (spi < GW_ESP_SPI_MIN)
			continue;
		if (rte_hash_lookup_data(g->ctx->sadb.sad, &spi, &data) < 0)
			return spi;
	}
	return 0;
}

static int
transform_suite(uint16_t t, enum gw_suite *s)
{
	switch (t) {
	case 13: *s = GW_SUITE_AES128_GCM16; return 0;     /* RFC 7402: AES-GCM, 16-octet ICV */
	case 8: *s = GW_SUITE_AES128_CBC_SHA256; return 0;
	case 9: *s = GW_SUITE_AES256_CBC_SHA256; return 0;
	case 7: *s = GW_SUITE_NULL_SHA256; return 0;
	default: return -1;
	}
}

/* tshark's esp_sa UAT names (Wireshark 4.0 packet-ipsec.c) of an RFC 7402 ESP
 * transform: encryption and authentication algorithm. All four have a 16-byte ICV. */
static int
keylog_algos(uint16_t t, const char **enc, const char **auth)
{
	switch (t) {
	case 13:
		*enc = "AES-GCM with 16 octet ICV [RFC4106]";   /* key: AES key || 4-byte salt */
		*auth = "NULL";
		return 0;
	case 8:
	case 9:
		*enc = "AES-CBC [RFC3602]";
		*auth = "HMAC-SHA-256-128 [RFC4868]";
		return 0;
	case 7:
		*enc = "NULL";
		*auth = "HMAC-SHA-256-128 [RFC4868]";
		return 0;
	default:
		return -1;
	}
}

static void
keylog_hex(FILE *f, const uint8_t *b, unsigned n)
{
	if (n == 0)
		return;
	fputs("0x", f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

/* One line for a new SA (dir: its direction here): protocol, source,
 * destination, SPI, encryption algorithm, key, authentication algorithm, key,
 * each quoted as in tshark's esp_sa file, so that -o "uat:esp_sa:LINE" takes it. */
static void
keylog_sa(struct gw_hip *g, const struct hip_sa_keys *k, enum gw_dir dir)
{
	const struct gw_addr *src = dir == GW_DIR_OUT ? &k->local : &k->remote;
	const struct gw_addr *dst = dir == GW_DIR_OUT ? &k->remote : &k->local;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const char *enc, *auth;
	int af = src->family == 6 ? AF_INET6 : AF_INET;

	if (g->keylog == NULL || keylog_algos(k->esp_transform, &enc, &auth) != 0 ||
	    inet_ntop(af, src->addr, s, sizeof(s)) == NULL || inet_ntop(af, dst->addr, d, sizeof(d)) == NULL)
		return;
	fprintf(g->keylog, "\"%s\",\"%s\",\"%s\",\"0x%08x\",\"%s\",\"", af == AF_INET6 ? "IPv6" : "IPv4",
		s, d, k->spi, enc);
	if (k->esp_transform != 7)
		keylog_hex(g->keylog, k->enc_key, k->enc_key_len);
	fprintf(g->keylog, "\",\"%s\",\"", auth);
	if (k->esp_transform != 13)
		keylog_hex(g->keylog, k->auth_key, k->auth_key_len);
	fputs("\"\n", g->keylog);
	if (fflush(g->keylog) != 0)
		LOG(ERR, "--keylog: write failed\n");
}

static struct gw_sa *
make_sa(struct gw_peer *p, const struct hip_sa_keys *k, enum gw_dir dir)
{
	struct gw_ctx *ctx = p->g->ctx;
	struct gw_sa *sa;
	struct esp_sa_params ep = {
		.spi = k->spi, .dir = dir,
		.key = k->enc_key, .key_len = k->enc_key_len,
		.auth_key = k->auth_key, .auth_key_len = k->auth_key_len,
		.replay_window = GW_REPLAY_WINDOW_DEFAULT_PACKETS,
		.local = k->local, .remote = k->remote,
		.seq_first = 1, .seq_limit = UINT64_MAX,
		.beet = true,     /* our HIT and the peer's are the inner addresses */
		.etherip = p->conf->bridge != 0,   /* a bridge peer's frames: next header 97 */
		.udp_sport = k->udp.lport, .udp_dport = k->udp.rport,   /* RFC 5770 */
	};
	char err[256];
	int op = gw_outer_port_of(ctx, &k->local);

	memcpy(ep.hit_local, p->g->hi.hit, 16);
	memcpy(ep.hit_remote, p->conf->hit, 16);

	if (transform_suite(k->esp_transform, &ep.suite) != 0 || op < 0) {
		LOG(ERR, "peer %s: unusable SA (transform %u, local port %d)\n", p->conf->name,
		    k->esp_transform, op);
		return NULL;
	}
	sa = rte_zmalloc("hipgw_sa", sizeof(*sa), RTE_CACHE_LINE_SIZE);
	if (sa == NULL)
		return NULL;
	sa->esp = esp_sa_create(&ep, err, sizeof(err));
	if (sa->esp == NULL) {
		LOG(ERR, "peer %s: SA 0x%x: %s\n", p->conf->name, k->spi, err);
		rte_free(sa);
		return NULL;
	}
	sa->spi = k->spi;
	sa->dir = dir;
	snprintf(sa->name, sizeof(sa->name), "%.24s-%s", p->conf->name, dir == GW_DIR_OUT ? "out" : "in");
	if (dir == GW_DIR_OUT) {
		gw_sa_out_limits(ctx, sa, op);
	} else {
		gw_sa_set_src(sa, p->conf->prefixes, p->conf->n_prefixes);
		gw_sa_default_dst(ctx->cfg, sa);
		sa->bridge = p->conf->bridge;      /* inbound 97 to that bridge (wk_l2_inbound) */
		sa->bridge_remote = p->conf->bridge_remote;
		sa->nat_watch = gw_hip_nat_watch(p, k);   /* NAT rebinding (gw_hip_nat.c) */
	}
	return sa;
}

/* A staged packet m back to the workers now that peer p has an out SA: a
 * frame of a bridge port straight to the EtherIP + ESP send of p's slot
 * (not the bridge's forwarding again: a flooded frame's other copies left
 * already), an inner IP packet through the outbound path of its port. */
static void
resend(struct gw_peer *p, struct rte_mbuf *m)
{
	unsigned port = gw_meta(m)->port;

	if (p->g->ctx->port_bridge[port] != 0)
		gw_ctrl_send_l2(p->g->ctrl, m, (unsigned)p->slot);
	else
		gw_ctrl_reinject(p->g->ctrl, m, port);
}

static void
flush_staged(struct gw_peer *p)
{
	for (unsigned i = 0; i < p->n_staged; i++)
		resend(p, p->staged[i]);
	if (p->n_staged > 0 && p->awaiting_first_esp) {
		/* sa_up runs inside the engine: tell it after it returned */
		p->first_esp_ns = gw_hip_now_ns();
		p->awaiting_first_esp = false;
	}
	p->n_staged = 0;
}

static void
drop_staged(struct gw_peer *p)
{
	for (unsigned i = 0; i < p->n_staged; i++) {
		gw_stats[rte_lcore_id()].drops[GW_DROP_NO_SA]++;
		rte_pktmbuf_free(p->staged[i]);
	}
	p->n_staged = 0;
}

static bool
in_installed(struct gw_hip *g, uint32_t spi)
{
	void *data;
	return rte_hash_lookup_data(g->ctx->sadb.sad, &spi, &data) >= 0;
}

static int
install_in(struct gw_hip *g, struct gw_peer *p, const struct hip_sa_keys *in)
{
	struct gw_sa *sin;

	if (in_installed(g, in->spi))
		return 0;
	sin = make_sa(p, in, GW_DIR_IN);
	if (sin == NULL)
		return -1;
	if (gw_sadb_add_in(&g->ctx->sadb, sin) != 0) {
		esp_sa_free(sin->esp);
		rte_free(sin);
		return -1;
	}
	keylog_sa(g, in, GW_DIR_IN);
	return 0;
}

/* UPDATE responder: the new in SA goes in before the peer can use it. */
static void
io_sa_in_up(void *arg, void *user, const struct hip_sa_keys *in)
{
	install_in(arg, user, in);
}

static void
io_sa_up(void *arg, void *user, const struct hip_sa_keys *out, const struct hip_sa_keys *in,
	 uint32_t old_in_spi)
{
	struct gw_hip *g = arg;
	struct gw_peer *p = user;
	struct gw_sa *sout;

	if (install_in(g, p, in) != 0)
		return;
	sout = make_sa(p, out, GW_DIR_OUT);
	if (sout == NULL) {
		gw_sadb_del_in(&g->ctx->sadb, in->spi);
		return;
	}
	gw_sadb_set_out(&g->ctx->sadb, p->slot, sout);   /* old out SA freed after grace */
	keylog_sa(g, out, GW_DIR_OUT);
	p->in_spi = in->spi;
	if (old_in_spi != 0) {
		p->rekeys++;
		if (g->n_retire < GW_HIP_MAX_RETIRE)
			g->retire[g->n_retire++] = (struct retire){ old_in_spi,
								    gw_hip_now_ns() + GW_HIP_OLD_SA_NS, p };
		else
			gw_sadb_del_in(&g->ctx->sadb, old_in_spi);
	} else {
		p->held = true;         /* a Base Exchange: until io_established */
	}
	LOG(INFO, "peer %s: SAs up: out SPI 0x%08x, in SPI 0x%08x, ESP transform %u\n",
	    p->conf->name, out->spi, in->spi, out->esp_transform);
}

/* The association is ESTABLISHED (RFC 7401 4.4.2): the peer has the in SA
 * our out SA sends to, so what was staged for it goes now. */
static void
io_established(void *arg, void *user)
{
	struct gw_hip *g = arg;
	struct gw_peer *p = user;

	p->held = false;
	if (gw_sadb_out(&g->ctx->sadb, p->slot) == NULL)
		return;                 /* its SAs could not be installed: nothing to send on */
	if (p->n_staged > 0)
		LOG(INFO, "peer %s: ESTABLISHED: %u staged packet(s) sent\n", p->conf->name,
		    p->n_staged);
	flush_staged(p);
}

/* Delete the replaced in SAs whose time is up at now (ns), and all of peer's
 * (NULL: none) whatever their time. */
static void
retire_del(struct gw_hip *g, const struct gw_peer *peer, uint64_t now)
{
	for (unsigned i = 0; i < g->n_retire;) {
		if (now < g->retire[i].when_ns && g->retire[i].peer != peer) {
			i++;
			continue;
		}
		gw_sadb_del_in(&g->ctx->sadb, g->retire[i].spi);
		g->retire[i] = g->retire[--g->n_retire];
	}
}

static void
io_sa_down(void *arg, void *user, uint32_t in_spi)
{
	struct gw_hip *g = arg;
	struct gw_peer *p = user;

	if (g->closing) {
		/* nothing is forwarded any more; the SAs go with the tables */
		drop_staged(p);
		return;
	}
	gw_sadb_set_out(&g->ctx->sadb, p->slot, NULL);
	if (in_spi != 0)
		gw_sadb_del_in(&g->ctx->sadb, in_spi);
	p->in_spi = 0;                  /* the association is gone: no current in SA */
	p->held = false;
	/* and the in SAs a rekey replaced: after CLOSE (RFC 7401 section 6.14)
	 * or any other end of the association nothing of it may decrypt, not even
	 * in those SAs' last 2 s */
	retire_del(g, p, 0);
	drop_staged(p);
	LOG(INFO, "peer %s: SAs down\n", p->conf->name);
}

static void
io_bex_done(void *arg, void *user, bool ok, const struct hip_bex_times *t)
{
	struct gw_peer *p = user;
	char txt[128];
	(void)arg;
	if (ok) {
		p->bex_ok++;
		p->last = *t;
	} else {
		p->bex_failed++;
		drop_staged(p);
	}
	gw_hip_bex_times_text(t, txt, sizeof(txt));
	LOG(NOTICE, "peer %s: BEX %s:%s\n", p->conf->name, ok ? "done" : "FAILED", txt);
}

/* The first ESP packets towards a peer left (the published evaluation's step
 * R2 in -> first ESP out). */
static void
report_first_esp(struct gw_hip *g)
{
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];
		if (p->first_esp_ns != 0) {
			hip_host_first_esp(g->host, p, p->first_esp_ns);
			p->first_esp_ns = 0;
		}
	}
}

void
gw_hip_count_drop(struct rte_mbuf *m, enum gw_drop reason)
{
	gw_stats[rte_lcore_id()].drops[reason]++;
	rte_pktmbuf_free(m);
}

/* ---- control-lcore hooks ---- */

/* A log line for a dropped HIP packet, at most GW_HIP_DROP_LOG_MAX a second:
 * a flood of bad packets must not turn into a log write (syscalls) per packet
 * on the control lcore. The hip counters count every drop. */
static void
drop_log_flush(struct gw_hip *g, uint64_t now)
{
	if (now - g->drop_log_since < GW_HIP_DROP_LOG_NS)
		return;
	if (g->drop_log_skipped != 0)
		LOG(INFO, "%" PRIu64 " more HIP packets dropped in the last %.1f s (not logged; "
		    "see the hip counters)\n", g->drop_log_skipped, (now - g->drop_log_since) / 1e9);
	g->drop_log_since = now;
	g->drop_log_n = 0;
	g->drop_log_skipped = 0;
}

static void
log_drop(struct gw_hip *g, uint32_t len, int rc)
{
	drop_log_flush(g, gw_hip_now_ns());
	if (g->drop_log_n < GW_HIP_DROP_LOG_MAX) {
		g->drop_log_n++;
		LOG(INFO, "HIP packet of %u bytes dropped: %s (%d)\n", len, hip_host_strerror(rc), rc);
	} else {
		g->drop_log_skipped++;
	}
}

static void
hook_hip_input(void *arg, struct rte_mbuf *m, unsigned port)
{
	struct gw_hip *g = arg;
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(struct rte_ether_hdr));
	uint32_t len = rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr);
	struct gw_addr src = { 0 }, dst = { 0 };
	/* over UDP (RFC 5770): the HIP header follows UDP and the non-ESP
	 * marker, which the worker checked (gw_meta.udp_sport) */
	uint32_t skip = gw_meta(m)->udp_sport != 0 ? GW_UDP_HDR_LEN + GW_UDP_NON_ESP_MARKER_LEN : 0;
	uint8_t proto = skip != 0 ? GW_IPPROTO_UDP : GW_IPPROTO_HIP;
	uint32_t hl, tl;
	int rc;

	(void)port;
	if (gw_ip_version(l3) == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		hl = rte_ipv4_hdr_len(ip);
		tl = rte_be_to_cpu_16(ip->total_length);
		if (tl > len || tl < hl || rte_ipv4_frag_pkt_is_fragmented(ip))
			goto bad;
		src.family = dst.family = 4;
		memcpy(src.addr, &ip->src_addr, 4);
		memcpy(dst.addr, &ip->dst_addr, 4);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
		hl = sizeof(*ip);
		tl = hl + rte_be_to_cpu_16(ip->payload_len);
		if (tl > len || ip->proto != proto)
			goto bad;
		src.family = dst.family = 6;
		memcpy(src.addr, ip->src_addr, 16);
		memcpy(dst.addr, ip->dst_addr, 16);
	}
	if (tl < hl + skip)
		goto bad;
	rc = skip != 0 ? gw_hip_nat_input(g, m, l3, hl, tl, &src, &dst)
		       : hip_host_input(g->host, &src, &dst, l3 + hl, tl - hl, gw_hip_now_ns());
	report_first_esp(g);
	if (rc < 0)
		log_drop(g, tl - hl - skip, rc);
	rte_pktmbuf_free(m);
	return;
bad:
	gw_stats[rte_lcore_id()].drops[GW_DROP_MALFORMED]++;
	rte_pktmbuf_free(m);
}

/* Start a Base Exchange with p (now: ns) unless one runs, the association
 * stands, or the peer closed it: in CLOSED (RFC 7401 4.4.3, 6.14) it is
 * going away, and an I1 now would set up SAs with a gateway in its last
 * moments; the exchange waits until the state's hold ends
 * (UNASSOCIATED). A peer that comes back starts one itself at start-up
 * (bridge peers) or with its first packet to us. */
static void
connect_peer(struct gw_hip *g, struct gw_peer *p, uint64_t now)
{
	struct hip_peer_info info;

	if (hip_host_peer_info(g->host, p, &info) != 0 || info.state == HIP_STATE_CLOSED)
		return;
	hip_host_connect(g->host, p, now);
}

static void
hook_no_sa(void *arg, struct rte_mbuf *m, unsigned port, unsigned slot)
{
	struct gw_hip *g = arg;
	struct gw_peer *p = slot < g->ctx->sadb.n_slots ? g->ctx->sadb.owner[slot] : NULL;

	(void)port;                     /* in m's metadata, for resend */
	if (p == NULL || p->n_staged == GW_HIP_STAGE_MAX) {
		if (p != NULL)
			p->stage_full++;
		gw_stats[rte_lcore_id()].drops[GW_DROP_NO_SA]++;
		rte_pktmbuf_free(m);
		return;
	}
	/* the SA may have come up while the packet was in the ring; held, the
	 * packet waits with the others (io_established) */
	if (gw_sadb_out(&g->ctx->sadb, slot) != NULL && !p->held) {
		resend(p, m);
		return;
	}
	if (p->n_staged == 0)
		p->awaiting_first_esp = true;
	p->staged[p->n_staged++] = m;
	p->staged_total++;
	connect_peer(g, p, gw_hip_now_ns());
}

/* ESP for an SPI we do not know from a locator of peer index `peer` (the
 * workers checked that we have no SA with it and rate-limited it): the peer
 * kept SAs that we lost in a restart, and nothing but a new Base Exchange
 * brings the tunnel back (RFC 7401 4.4.2, 6.9). Its first I1 goes to the
 * address the ESP came from. m is dropped as no_sa. */
static void
hook_unknown_spi(void *arg, struct rte_mbuf *m, unsigned port, unsigned peer)
{
	struct gw_hip *g = arg;
	struct gw_lcore_stats *st = &gw_stats[rte_lcore_id()];
	struct gw_addr src;
	char a[INET6_ADDRSTRLEN];
	struct gw_peer *p;

	(void)port;
	gw_peerloc_src(rte_pktmbuf_mtod(m, const uint8_t *), &src);   /* the worker checked it */
	gw_hip_count_drop(m, GW_DROP_NO_SA);
	if (peer >= g->n_peers || g->closing) {
		st->unknown_spi_ignored++;
		return;
	}
	p = &g->peers[peer];
	if (hip_host_connect_to(g->host, p, &src, gw_hip_now_ns()) != 1) {
		st->unknown_spi_ignored++;   /* a BEX runs, or one just failed */
		return;
	}
	st->unknown_spi_bex++;
	p->unknown_spi_bex++;
	if (inet_ntop(src.family == 4 ? AF_INET : AF_INET6, src.addr, a, sizeof(a)) == NULL)
		snprintf(a, sizeof(a), "?");
	LOG(NOTICE, "peer %s: ESP for an unknown SPI from its locator %s (did we restart?): "
	    "Base Exchange started\n", p->conf->name, a);
}

/* The workers' table of the peers' locators, for hook_unknown_spi. */
static int
peerloc_setup(struct gw_hip *g, char *err, size_t errlen)
{
	const struct gw_config *cfg = g->ctx->cfg;
	unsigned n = 0;

	for (unsigned i = 0; i < g->n_peers; i++)
		n += g->peers[i].conf->n_locators;
	g->ctx->peerloc = gw_peerloc_create("hipgw_peerloc", g->n_peers, n, rte_socket_id());
	if (g->ctx->peerloc == NULL) {
		snprintf(err, errlen, "%s: cannot create the peer locator table", cfg->path);
		return -1;
	}
	for (unsigned i = 0; i < g->n_peers; i++) {
		const struct gw_conf_peer *pc = g->peers[i].conf;

		for (unsigned k = 0; k < pc->n_locators; k++) {
			int rc = gw_peerloc_add(g->ctx->peerloc, &pc->locators[k], i, g->peers[i].slot);

			if (rc < 0) {
				snprintf(err, errlen, "%s:%u: peer %s: cannot install", cfg->path,
					 pc->line, pc->name);
				return -1;
			}
			if (rc == 1)
				LOG(WARNING, "peer %s: locator %u is an earlier peer's too: ESP for an "
				    "unknown SPI from it starts a BEX with that peer only\n", pc->name,
				    k + 1);
		}
	}
	return 0;
}

/* ---- life cycle ---- */

struct gw_hip *
gw_hip_create(struct gw_ctx *ctx, struct gw_ctrl *ctrl, FILE *keylog, char *err, size_t errlen)
{
	const struct gw_config *cfg = ctx->cfg;
	struct gw_hip *g;
	struct hip_host_cfg hc = { 0 };
	struct gw_ctrl_hooks hooks = { .hip_input = hook_hip_input, .no_sa = hook_no_sa,
				       .beet_input = gw_hip_beet_input,
				       .unknown_spi = hook_unknown_spi };
	char hit[64];

	if (cfg->n_peers == 0)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return NULL;
	g->ctx = ctx;
	g->ctrl = ctrl;
	g->keylog = keylog;
	g->peers = calloc(cfg->n_peers, sizeof(*g->peers));
	if (g->peers == NULL || hip_hi_load(cfg->hi_path, &g->hi, err, errlen) != 0)
		goto fail;
	hc.hi = &g->hi;
	hc.puzzle_k = cfg->puzzle_k;
	hc.r1_rate = cfg->r1_rate;
	hc.n_esp_transforms = RTE_MIN(cfg->n_esp_transforms, (unsigned)HIP_MAX_TRANSFORMS);
	memcpy(hc.esp_transforms, cfg->esp_transforms, hc.n_esp_transforms * sizeof(uint16_t));
	hc.n_dh_groups = RTE_MIN(cfg->n_dh_groups, (unsigned)HIP_MAX_DH_GROUPS);
	memcpy(hc.dh_groups, cfg->dh_groups, hc.n_dh_groups);
	hc.n_hip_ciphers = RTE_MIN(cfg->n_hip_ciphers, (unsigned)HIP_MAX_CIPHERS);
	memcpy(hc.hip_ciphers, cfg->hip_ciphers, hc.n_hip_ciphers * sizeof(uint16_t));
	hc.sa_lifetime_ns = cfg->sa_lifetime_s * 1000000000ULL;
	hc.io = (struct hip_io){ .ctx = g, .send = io_send, .spi_alloc = io_spi_alloc,
				 .sa_up = io_sa_up, .sa_down = io_sa_down, .bex_done = io_bex_done,
				 .sa_in_up = io_sa_in_up, .established = io_established,
				 .path = gw_hip_io_path, .send_udp = gw_hip_io_send_udp };
	g->host = hip_host_create(&hc, err, errlen);
	if (g->host == NULL)
		goto fail;
	for (unsigned i = 0; i < cfg->n_peers; i++) {
		const struct gw_conf_peer *pc = &cfg->peers[i];
		struct gw_peer *p = &g->peers[i];
		p->g = g;
		p->conf = pc;
		p->slot = gw_sadb_add_slot(&ctx->sadb, pc->prefixes, pc->n_prefixes, p);
		if (p->slot < 0 ||
		    hip_host_add_peer(g->host, pc->hit, pc->locators, pc->n_locators, &pc->local, p) != 0) {
			snprintf(err, errlen, "%s:%u: peer %s: cannot install", cfg->path, pc->line, pc->name);
			goto fail;
		}
		g->n_peers++;
	}
	if (peerloc_setup(g, err, errlen) != 0 || gw_hip_nat_setup(g) != 0)
		goto fail;
	if (gw_hip_mob_init(g) != 0) {
		snprintf(err, errlen, "HIP: no room for the address hook, or no memory");
		goto fail;
	}
	hooks.ctx = g;
	gw_ctrl_set_hooks(ctrl, &hooks);
	hip_hit_to_str(g->hi.hit, hit, sizeof(hit));
	LOG(NOTICE, "HIP: HIT %s, %u peer(s)\n", hit, g->n_peers);
	if (keylog != NULL)
		LOG(WARNING, "HIP: --keylog: the ESP keys of every new SA are written in clear\n");
	return g;
fail:
	gw_hip_free(g);
	return NULL;
}

int
gw_hip_peer_slot(const struct gw_hip *g, unsigned peer)
{
	return g == NULL || peer >= g->n_peers ? -1 : g->peers[peer].slot;
}

/* A bridge peer has no L3 packet that would start its Base Exchange (and
 * frames are not only unicast to it): while it has no out SA, keep one
 * going, at start-up and again after any end of the association (CLOSE,
 * lifetime, E-FAILED). connect_peer does nothing while a BEX runs, the
 * association stands, CLOSED or E-FAILED holds (HIP_CLOSED_HOLD_NS,
 * HIP_E_FAILED_HOLD_NS); so a peer that does not answer gets the I1
 * retransmissions with their back-off (RFC 7401 4.4.1), then a pause, then
 * a new exchange. now: ns. */
static void
bridge_peers_connect(struct gw_hip *g, uint64_t now)
{
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];

		if (p->conf->bridge != 0 && gw_sadb_out(&g->ctx->sadb, p->slot) == NULL)
			connect_peer(g, p, now);
	}
}

/* RFC 7401 4.4.3, R2-SENT: "Receive data" moves the responder to
 * ESTABLISHED. The workers count what each in SA authenticated
 * (esp_sa_stats): a held peer's new in SA with a count above 0 has had ESP
 * from the peer, which therefore processed R2. Seen here, on the tick (now:
 * ns), for the few held peers: no work on the data path. */
static void
held_peers_data(struct gw_hip *g, uint64_t now)
{
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];
		uint64_t packets = 0;
		void *data;

		if (!p->held || p->in_spi == 0 ||
		    rte_hash_lookup_data(g->ctx->sadb.sad, &p->in_spi, &data) < 0)
			continue;
		esp_sa_stats(((struct gw_sa *)data)->esp, &packets, NULL);
		if (packets > 0 && hip_host_data_in(g->host, p, now) == 1)   /* io_established */
			LOG(INFO, "peer %s: R2-SENT ended by its ESP on in SA 0x%08x\n",
			    p->conf->name, p->in_spi);
	}
}

void
gw_hip_tick(struct gw_hip *g)
{
	uint64_t now = gw_hip_now_ns();

	hip_host_tick(g->host, now);
	if (!g->closing)
		held_peers_data(g, now);
	report_first_esp(g);
	drop_log_flush(g, now);
	if (!g->closing)
		gw_hip_hit_ping_run(g, now);
	retire_del(g, NULL, now);
	if (!g->closing)
		bridge_peers_connect(g, now);
	gw_hip_mob_tick(g, now);
	gw_hip_nat_tick(g);
	/* byte lifetime and sequence space (RFC 7402 section 6: rekey before it runs out) */
	for (unsigned i = 0; i < g->n_peers; i++) {
		struct gw_peer *p = &g->peers[i];
		struct gw_sa *out = gw_sadb_out(&g->ctx->sadb, p->slot);
		uint64_t bytes = 0;
		if (out == NULL)
			continue;
		esp_sa_stats(out->esp, NULL, &bytes);
		if ((g->ctx->cfg->sa_lifetime_bytes && bytes >= g->ctx->cfg->sa_lifetime_bytes) ||
		    esp_sa_seq(out->esp) >= (1ULL << 31))
			hip_host_rekey(g->host, p, now);
	}
}

void
gw_hip_close_all(struct gw_hip *g)
{
	g->closing = true;
	hip_host_close_all(g->host, gw_hip_now_ns());
}

void
gw_hip_free(struct gw_hip *g)
{
	if (g == NULL)
		return;
	for (unsigned i = 0; i < g->n_peers; i++)
		drop_staged(&g->peers[i]);
	gw_hip_mh_free(g);
	gw_peerloc_free(g->ctx->peerloc);   /* the workers stopped */
	g->ctx->peerloc = NULL;
	if (g->host != NULL)
		hip_host_free(g->host);
	hip_hi_free(&g->hi);
	free(g->peers);
	free(g);
}
