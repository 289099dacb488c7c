/* SPDX-License-Identifier: BSD-3-Clause
 *
 * chaingen: a paced traffic generator and sink for perf/chain (RFC 2544
 * section 26.1 throughput and 26.2 latency trials over DPDK ports).
 *
 * Why not dpdk-testpmd: testpmd 22.11's txonly mode has no software rate
 * limit (it sends as fast as the TX ring takes frames), and an RFC 2544
 * binary search needs offered rates below the maximum. chaingen sends IPv4/UDP
 * frames at a given rate (TSC-paced bursts), writes a trial tag, a sequence
 * number and the TSC into each frame's UDP payload, and, as sink, counts the
 * frames of the current trial and their latency (receive TSC minus stamp).
 * perf/chain still uses testpmd (txonly -> rxonly) for the unpaced maximum.
 *
 * Usage: chaingen [EAL options: --vdev for every port, --lcores] -- [--idle busy|adaptive]
 *   Ports are the EAL's ports in --vdev order (0, 1, ...), each with one RX
 *   and one TX queue. Lcores: with 1 lcore the main lcore runs the trials;
 *   with 2 the worker lcore sends and receives; with 3 or more the first
 *   worker sends and the second receives. --idle adaptive (default) lets a
 *   data lcore sleep ~10 us when it has nothing due and nothing received
 *   (for CPUs shared with the gateways); busy never sleeps.
 *
 * Commands, one per line on stdin; each answered by one JSON line on stdout:
 *   links SECS      wait up to SECS s for every port's link;
 *                   {"links":[1,0,...]} (1 = up)
 *   trial KEY=VALUE ...   one trial; keys (all but the addresses required):
 *       tx=PORT rx=PORT  rate=PPS (0 = unpaced: as fast as the TX ring takes)
 *       secs=S (sending time)  size=BYTES (Ethernet frame without FCS, 62..1514)
 *       dmac=M smac=M sip=A dip=A (frame addresses; default 02:..:01/02,
 *       10.1.0.2 -> 10.2.0.2)  drain=MS (receive time after the last send,
 *       default 200)
 *     A paced trial offers rate x secs frames (catching up for at most 1 s
 *     when the generator lost its CPU: tx_secs then exceeds secs).
 *     Answer: scheduled (frames due by the rate), offered (sent + refused),
 *     sent (taken by the TX ring), refused (TX ring full: counted as offered
 *     and lost, as a wire would lose them at a full receiver), received,
 *     foreign (frames without this trial's tag), reordered, tx_secs, offered_pps,
 *     loss (1 - received / offered), lat_us {min, p50, p90, p99, p999, max}.
 *   quit
 * Errors: a bad command line or command gives {"error": "..."}; EAL or port
 * set-up failure exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_udp.h>

#define BURST 32
#define NB_DESC 1024
#define NB_MBUF 16383
#define TAG_MAGIC 0x48470000u          /* "HG" | trial id (16 bits) */
#define MIN_FRAME (14 + 20 + 8 + 20)   /* Ethernet, IPv4, UDP, struct stamp */
#define MAX_FRAME 1514
/* Latency histogram: 10 ns buckets to 100 us, then 1 us buckets to 100 ms */
#define FINE_NS 10
#define FINE_N 10000
#define COARSE_NS 1000
#define COARSE_N 100000

struct stamp {
	uint32_t tag;
	uint64_t seq;
	uint64_t tsc;
} __attribute__((packed));

struct trial {
	/* set by the main lcore before launch */
	uint16_t tx_port, rx_port;
	double rate;           /* frames per second, 0 = unpaced */
	uint64_t tx_cycles;    /* sending time */
	uint64_t target;       /* paced: frames to offer, rate x sending time */
	uint64_t drain_cycles; /* receiving time after the last send */
	uint32_t size, tag;
	uint8_t frame[MAX_FRAME];
	/* results */
	uint64_t scheduled, sent, refused, received, foreign, reordered;
	uint64_t t_start, t_tx_end; /* TSC */
	volatile int tx_done;
	uint64_t lat_min, lat_max; /* cycles */
	uint64_t *hist;            /* FINE_N + COARSE_N + 1 buckets */
};

static volatile int quit;
static bool idle_sleep = true;
static struct rte_mempool *pool;
static uint64_t hz;
static double ns_per_cycle;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void idle_pause(void)
{
	if (idle_sleep) {
		struct timespec ts = {0, 10000};
		nanosleep(&ts, NULL);
	} else {
		rte_pause();
	}
}

/* Sends one due burst (or none); returns the number of frames offered. */
static unsigned int tx_step(struct trial *t, uint64_t now)
{
	struct rte_mbuf *m[BURST];
	uint64_t want;
	unsigned int n, i, sent;

	if (t->rate > 0) {
		uint64_t due = (uint64_t)((double)(now - t->t_start) * t->rate / (double)hz);
		if (due > t->target)
			due = t->target;
		if (due <= t->scheduled)
			return 0;
		want = due - t->scheduled;
		n = want > BURST ? BURST : (unsigned int)want;
	} else {
		n = BURST;
	}
	if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0)
		return 0;
	for (i = 0; i < n; i++) {
		uint8_t *d = rte_pktmbuf_mtod(m[i], uint8_t *);
		struct stamp *s = (struct stamp *)(d + MIN_FRAME - sizeof(*s));
		rte_memcpy(d, t->frame, t->size);
		m[i]->data_len = m[i]->pkt_len = t->size;
		s->tag = t->tag;
		s->seq = t->scheduled + i;
		s->tsc = now;
	}
	sent = rte_eth_tx_burst(t->tx_port, 0, m, n);
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	t->scheduled += n;
	t->t_tx_end = now;
	t->sent += sent;
	t->refused += n - sent;
	return n;
}

static inline void hist_add(struct trial *t, uint64_t cyc)
{
	uint64_t ns = (uint64_t)((double)cyc * ns_per_cycle);
	size_t b;

	if (cyc < t->lat_min)
		t->lat_min = cyc;
	if (cyc > t->lat_max)
		t->lat_max = cyc;
	if (ns < (uint64_t)FINE_NS * FINE_N)
		b = ns / FINE_NS;
	else if (ns < (uint64_t)COARSE_NS * COARSE_N)
		b = FINE_N + ns / COARSE_NS;
	else
		b = FINE_N + COARSE_N;
	t->hist[b]++;
}

/* Receives one burst; returns the number of frames. */
static unsigned int rx_step(struct trial *t, uint64_t *max_seq)
{
	struct rte_mbuf *m[BURST];
	unsigned int n, i;
	uint64_t now;

	n = rte_eth_rx_burst(t->rx_port, 0, m, BURST);
	if (n == 0)
		return 0;
	now = rte_rdtsc();
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(m[i], const uint8_t *);
		const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)d;
		const struct rte_ipv4_hdr *ip;
		const struct stamp *s;
		uint32_t off;

		if (m[i]->data_len < MIN_FRAME ||
		    eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
			t->foreign++;
			continue;
		}
		ip = (const struct rte_ipv4_hdr *)(d + 14);
		off = 14 + (uint32_t)(ip->version_ihl & 0xf) * 4 + 8;
		if (ip->next_proto_id != IPPROTO_UDP || off + sizeof(*s) > m[i]->data_len) {
			t->foreign++;
			continue;
		}
		s = (const struct stamp *)(d + off);
		if (s->tag != t->tag) {
			t->foreign++;
			continue;
		}
		t->received++;
		if (s->seq < *max_seq)
			t->reordered++;
		else
			*max_seq = s->seq;
		hist_add(t, now > s->tsc ? now - s->tsc : 0);
	}
	rte_pktmbuf_free_bulk(m, n);
	return n;
}

/* Sending goes on until the paced trial's frames are all offered (a
 * generator that lost its CPU catches up, for at most a second more), or
 * until the sending time is over for an unpaced one. */
static inline bool tx_over(const struct trial *t, uint64_t now)
{
	uint64_t end = t->t_start + t->tx_cycles;

	if (t->rate > 0)
		return t->scheduled >= t->target || now >= end + hz;
	return now >= end;
}

static int tx_loop(void *arg)
{
	struct trial *t = arg;
	uint64_t now;

	while (!quit && !tx_over(t, now = rte_rdtsc()))
		if (tx_step(t, now) == 0)
			idle_pause();
	__atomic_store_n(&t->tx_done, 1, __ATOMIC_RELEASE);
	return 0;
}

static int rx_loop(void *arg)
{
	struct trial *t = arg;
	uint64_t max_seq = 0;

	while (!quit) {
		if (rx_step(t, &max_seq) == 0) {
			if (__atomic_load_n(&t->tx_done, __ATOMIC_ACQUIRE) &&
			    rte_rdtsc() > t->t_tx_end + t->drain_cycles)
				break;
			idle_pause();
		}
	}
	return 0;
}

/* One lcore sends and receives. */
static int txrx_loop(void *arg)
{
	struct trial *t = arg;
	uint64_t max_seq = 0, now;
	unsigned int a, b;

	while (!quit) {
		now = rte_rdtsc();
		a = 0;
		if (!t->tx_done) {
			if (!tx_over(t, now))
				a = tx_step(t, now);
			else
				t->tx_done = 1;
		}
		b = rx_step(t, &max_seq);
		if (t->tx_done && b == 0 && now > t->t_tx_end + t->drain_cycles)
			break;
		if (a == 0 && b == 0)
			idle_pause();
	}
	return 0;
}

static double pct_us(const struct trial *t, double q)
{
	uint64_t want, acc = 0;
	size_t b;

	if (t->received == 0)
		return -1;
	want = (uint64_t)(q * (double)t->received);
	if (want >= t->received)
		want = t->received - 1;
	for (b = 0; b < FINE_N + COARSE_N + 1; b++) {
		acc += t->hist[b];
		if (acc > want)
			break;
	}
	if (b < FINE_N)
		return (b * FINE_NS + FINE_NS / 2.0) / 1000.0;
	if (b < FINE_N + COARSE_N)
		return ((b - FINE_N) * (double)COARSE_NS + COARSE_NS / 2.0) / 1000.0;
	return (double)t->lat_max * 1e6 / (double)hz;
}

static int parse_mac(const char *s, uint8_t *mac)
{
	unsigned int v[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -1;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

/* Frame template: Ethernet / IPv4 (TTL 64, no options) / UDP 1024 -> 1024 /
 * stamp / zero padding to size. */
static void build_frame(struct trial *t, const uint8_t *dmac, const uint8_t *smac,
			uint32_t sip, uint32_t dip)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t->frame;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t->frame + 14);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(t->frame + 34);

	memset(t->frame, 0, sizeof(t->frame));
	memcpy(eth->dst_addr.addr_bytes, dmac, 6);
	memcpy(eth->src_addr.addr_bytes, smac, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(t->size - 14));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = sip;
	ip->dst_addr = dip;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(1024);
	udp->dst_port = rte_cpu_to_be_16(1024);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(t->size - 34));
}

static void reply_error(const char *msg)
{
	printf("{\"error\": \"%s\"}\n", msg);
	fflush(stdout);
}

static void cmd_links(char *arg)
{
	double secs = arg ? atof(arg) : 0;
	uint64_t end = rte_rdtsc() + (uint64_t)(secs * (double)hz);
	uint16_t p, n = rte_eth_dev_count_avail();
	struct rte_eth_link link;
	int up;

	do {
		up = 0;
		for (p = 0; p < n; p++)
			if (rte_eth_link_get_nowait(p, &link) == 0 && link.link_status)
				up++;
		if (up == n)
			break;
		rte_delay_us_sleep(50000);
	} while (!quit && rte_rdtsc() < end);
	printf("{\"links\": [");
	for (p = 0; p < n; p++) {
		up = rte_eth_link_get_nowait(p, &link) == 0 && link.link_status;
		printf("%s%d", p ? ", " : "", up);
	}
	printf("]}\n");
	fflush(stdout);
}

static void cmd_trial(char *args, struct trial *t, unsigned int lc_tx, unsigned int lc_rx)
{
	static uint32_t trial_id;
	uint8_t dmac[6] = {2, 0, 0, 0, 0, 1}, smac[6] = {2, 0, 0, 0, 0, 2};
	uint32_t sip = htonl(0x0a010002), dip = htonl(0x0a020002);
	double secs = -1, drain_ms = 200;
	long tx = -1, rx = -1, size = -1;
	char *tok, *save = NULL;
	uint16_t nports = rte_eth_dev_count_avail();
	uint64_t *hist = t->hist;

	memset(t, 0, offsetof(struct trial, hist));
	t->rate = -1;
	for (tok = strtok_r(args, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *v = strchr(tok, '=');
		if (!v)
			{ reply_error("expected KEY=VALUE"); return; }
		*v++ = '\0';
		if (!strcmp(tok, "tx"))
			tx = strtol(v, NULL, 10);
		else if (!strcmp(tok, "rx"))
			rx = strtol(v, NULL, 10);
		else if (!strcmp(tok, "rate"))
			t->rate = atof(v);
		else if (!strcmp(tok, "secs"))
			secs = atof(v);
		else if (!strcmp(tok, "size"))
			size = strtol(v, NULL, 10);
		else if (!strcmp(tok, "drain"))
			drain_ms = atof(v);
		else if (!strcmp(tok, "dmac") && parse_mac(v, dmac) == 0)
			;
		else if (!strcmp(tok, "smac") && parse_mac(v, smac) == 0)
			;
		else if (!strcmp(tok, "sip") && inet_pton(AF_INET, v, &sip) == 1)
			;
		else if (!strcmp(tok, "dip") && inet_pton(AF_INET, v, &dip) == 1)
			;
		else
			{ reply_error("unknown key or bad value"); return; }
	}
	if (tx < 0 || tx >= nports || rx < 0 || rx >= nports || t->rate < 0 || secs <= 0 ||
	    secs > 3600 || size < MIN_FRAME || size > MAX_FRAME || drain_ms < 0 || drain_ms > 10000)
		{ reply_error("need tx, rx (ports), rate >= 0, 0 < secs <= 3600, size 62..1514"); return; }
	t->tx_port = (uint16_t)tx;
	t->rx_port = (uint16_t)rx;
	t->size = (uint32_t)size;
	t->tx_cycles = (uint64_t)(secs * (double)hz);
	t->target = (uint64_t)(t->rate * secs + 0.5);
	t->drain_cycles = (uint64_t)(drain_ms / 1000.0 * (double)hz);
	t->tag = TAG_MAGIC | (++trial_id & 0xffff);
	t->lat_min = UINT64_MAX;
	t->hist = hist;
	memset(hist, 0, sizeof(*hist) * (FINE_N + COARSE_N + 1));
	build_frame(t, dmac, smac, sip, dip);

	t->t_start = t->t_tx_end = rte_rdtsc();
	if (lc_tx == rte_get_main_lcore()) {
		txrx_loop(t);
	} else if (lc_tx == lc_rx) {
		rte_eal_remote_launch(txrx_loop, t, lc_tx);
		rte_eal_wait_lcore(lc_tx);
	} else {
		rte_eal_remote_launch(rx_loop, t, lc_rx);
		rte_eal_remote_launch(tx_loop, t, lc_tx);
		rte_eal_wait_lcore(lc_tx);
		rte_eal_wait_lcore(lc_rx);
	}

	/* sending time: the nominal one, or up to the last send when later */
	double tx_secs = (double)(t->t_tx_end - t->t_start) / (double)hz;
	if (tx_secs < secs)
		tx_secs = secs;
	uint64_t offered = t->sent + t->refused;
	printf("{\"tx\": %u, \"rx\": %u, \"size\": %u, \"rate\": %.0f, \"scheduled\": %" PRIu64
	       ", \"offered\": %" PRIu64 ", \"sent\": %" PRIu64 ", \"refused\": %" PRIu64
	       ", \"received\": %" PRIu64 ", \"foreign\": %" PRIu64 ", \"reordered\": %" PRIu64
	       ", \"tx_secs\": %.6f, \"offered_pps\": %.1f, \"sent_pps\": %.1f, \"loss\": %.6f",
	       t->tx_port, t->rx_port, t->size, t->rate, t->scheduled, offered, t->sent, t->refused,
	       t->received, t->foreign, t->reordered, tx_secs,
	       tx_secs > 0 ? (double)offered / tx_secs : 0, tx_secs > 0 ? (double)t->sent / tx_secs : 0,
	       offered ? 1.0 - (double)t->received / (double)offered : 0);
	if (t->received)
		printf(", \"lat_us\": {\"min\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, "
		       "\"p999\": %.3f, \"max\": %.3f}",
		       (double)t->lat_min * 1e6 / (double)hz, pct_us(t, 0.5), pct_us(t, 0.9),
		       pct_us(t, 0.99), pct_us(t, 0.999), (double)t->lat_max * 1e6 / (double)hz);
	printf("%s}\n", quit ? ", \"interrupted\": 1" : "");
	fflush(stdout);
}

static int port_init(uint16_t p)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	if ((rc = rte_eth_dev_configure(p, 1, 1, &conf)) != 0 ||
	    (rc = rte_eth_rx_queue_setup(p, 0, NB_DESC, rte_eth_dev_socket_id(p), NULL, pool)) != 0 ||
	    (rc = rte_eth_tx_queue_setup(p, 0, NB_DESC, rte_eth_dev_socket_id(p), NULL)) != 0 ||
	    (rc = rte_eth_dev_start(p)) != 0)
		return rc;
	return 0;
}

int main(int argc, char **argv)
{
	static struct trial t;
	unsigned int lc_tx, lc_rx;
	char line[512];
	int n, i;
	uint16_t p;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "chaingen: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--idle") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "busy"))
				idle_sleep = false;
			else if (strcmp(argv[i], "adaptive") != 0)
				goto usage;
		} else {
			goto usage;
		}
	}
	/* no SA_RESTART: a signal also ends the fgets() of the command loop */
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: short sleeps stay short */
	hz = rte_get_tsc_hz();
	ns_per_cycle = 1e9 / (double)hz;
	t.hist = calloc(FINE_N + COARSE_N + 1, sizeof(*t.hist));
	pool = rte_pktmbuf_pool_create("chaingen", NB_MBUF, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_socket_id());
	if (!pool || !t.hist) {
		fprintf(stderr, "chaingen: no memory for the mbuf pool\n");
		rte_eal_cleanup();
		return 1;
	}
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "chaingen: no ports (give --vdev)\n");
		rte_eal_cleanup();
		return 1;
	}
	RTE_ETH_FOREACH_DEV(p) {
		if (port_init(p) != 0) {
			fprintf(stderr, "chaingen: port %u set-up failed\n", p);
			rte_eal_cleanup();
			return 1;
		}
	}
	lc_tx = rte_get_next_lcore(-1, 1, 0);
	if (lc_tx >= RTE_MAX_LCORE)
		lc_tx = lc_rx = rte_get_main_lcore();
	else if ((lc_rx = rte_get_next_lcore(lc_tx, 1, 0)) >= RTE_MAX_LCORE)
		lc_rx = lc_tx;
	fprintf(stderr, "chaingen: %u ports, tx lcore %u, rx lcore %u, idle %s, TSC %" PRIu64 " Hz\n",
		rte_eth_dev_count_avail(), lc_tx, lc_rx, idle_sleep ? "adaptive" : "busy", hz);

	while (!quit && fgets(line, sizeof(line), stdin)) {
		char *cmd = strtok(line, " \t\n"), *rest = strtok(NULL, "\n");

		if (!cmd)
			continue;
		if (!strcmp(cmd, "quit"))
			break;
		else if (!strcmp(cmd, "links"))
			cmd_links(rest);
		else if (!strcmp(cmd, "trial"))
			cmd_trial(rest ? rest : (char[]){""}, &t, lc_tx, lc_rx);
		else
			reply_error("unknown command (links, trial, quit)");
	}
	/* Leave the ports to the kernel: exit without rte_eth_dev_stop/close()
	 * or rte_eal_cleanup(). Closing a memif server and its client of the same
	 * process (the straight path) crashed now and then in net_memif's handler
	 * on the EAL interrupt thread (DPDK 22.11, a NULL read seen under ASan),
	 * also with the ports stopped first and closed in either order after a
	 * pause. The kernel closes the sockets (the peers see a disconnect) and
	 * frees the memory; run with --in-memory or --no-huge so that no hugepage
	 * files stay behind. */
	fflush(stdout);
	_exit(0);
usage:
	fprintf(stderr, "usage: chaingen [EAL options] -- [--idle busy|adaptive]\n");
	rte_eal_cleanup();
	return 2;
}
