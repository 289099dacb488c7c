/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw-bex-load: many HIP initiators, or an I1 flood, against one responder
 * (perf/bex-bench runs it; see there for the set-up and the figures).
 *
 *   keygen  --algo ecdsa-p256|rsa3072 --count N --dir DIR
 *           DIR/ALGO-NNN.pem for NNN < N (kept when present: RSA-3072 keygen
 *           is slow), then one line "PATH HIT" per key on stdout.
 *   bex     --algo A --count N --dir DIR --responder IP --responder-hit HIT
 *           --local IP [--group 7|4] [--inner-net A.B.0.0] [--inner-dst IP]
 *           [--threads T] (--duration S [--warmup S] | --sequential M [--pause-ms P])
 *           Initiator i (HI DIR/ALGO-i.pem, lib/hip engine, the responder its
 *           only peer) runs Base Exchanges (RFC 7401 4.1) over a raw IP socket
 *           (protocol 139), sends one ESP packet (RFC 4303 tunnel mode, AES-GCM
 *           RFC 4106: inner IPv4/UDP from A.B.i.2 to --inner-dst) when its SAs
 *           are up, forgets the association (hip_host_forget: a restarted
 *           peer) and starts again. --duration: all N at once, looping;
 *           --sequential: M exchanges one at a time (initiator k % N), one
 *           JSON line per exchange on stdout. A JSON summary at the end.
 *   flood   --responder IP --responder-hit HIT --src-net A.B.0.0/LEN
 *           [--hits FILE | --random-hits] [--rate PPS] --duration S [--threads T]
 *           I1s (DH_GROUP_LIST 7,4) with IP sources drawn at random from
 *           the network and sender HITs drawn from FILE (HITs of declared
 *           peers: spoofed, so each gets an R1) or random ORCHIDs (unknown:
 *           dropped before an R1), through raw sockets with sendmmsg, as fast
 *           as possible (--rate 0) or paced. JSON summary at the end.
 *
 * Times come from lib/hip's initiator (struct hip_bex_times): R1 -> I2, R2 ->
 * first ESP packet, Tbe = I1 out -> first ESP packet out, as hipgw measures
 * them as an initiator (README, "Scenario A").
 * Exit 0, 1 on a failure to run, 2 on a bad command line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "hip_harness.h"
#include "hip_host.h"
#include "hip_hi.h"
#include "hip_hit.h"
#include "hip_packet.h"
#include "hip_wire.h"
#define PERF_PROG "hipgw-bex-load"
#include "perf_util.h"

#define IPPROTO_HIP_  139
#define MAX_INIT      64        /* hipgw's [peer] limit (GW_CONF_MAX_PEERS) */
#define MAX_THREADS   16
#define MAX_SAMPLES   (1u << 20)
#define RX_BURST      64
#define FLOOD_BURST   64
#define TICK_NS       (5ull * 1000 * 1000)

/* ---------------------------------------------------------------- options */

static struct {
	const char *mode, *algo, *dir, *hits_file, *json;
	unsigned count, threads, sequential, pause_ms, group;
	double duration, warmup, rate;
	struct in_addr responder, local, inner_net, inner_dst, src_net;
	unsigned src_len;
	uint8_t responder_hit[16];
	bool have_responder, have_hit, have_local, random_hits;
} O = { .algo = "ecdsa-p256", .count = 16, .threads = 1, .pause_ms = 20, .group = 7,
	.warmup = 1.0 };

static void
key_path(char *buf, size_t len, unsigned i)
{
	snprintf(buf, len, "%s/%s-%03u.pem", O.dir, O.algo, i);
}

/* ---------------------------------------------------------------- keygen */

static int
cmd_keygen(void)
{
	enum hip_hi_kind kind;
	char path[512], err[256], hit[64];

	if (hip_hi_kind_parse(O.algo, &kind) != 0)
		die(2, "--algo: ecdsa-p256, ecdsa-p384 or rsa3072");
	if (mkdir(O.dir, 0700) != 0 && errno != EEXIST)
		die(1, "--dir: cannot create");
	for (unsigned i = 0; i < O.count; i++) {
		struct hip_hi hi = { 0 };
		struct stat st;

		key_path(path, sizeof(path), i);
		if (stat(path, &st) == 0) {
			if (hip_hi_load(path, &hi, err, sizeof(err)) != 0)
				die(1, err);
		} else if (hip_hi_generate(kind, &hi, err, sizeof(err)) != 0 ||
			   hip_hi_save(&hi, path, err, sizeof(err)) != 0) {
			die(1, err);
		}
		hip_hit_to_str(hi.hit, hit, sizeof(hit));
		printf("%s %s\n", path, hit);
		hip_hi_free(&hi);
	}
	return 0;
}

/* ---------------------------------------------------------------- samples */

struct samples {
	uint64_t *v;
	size_t n;
};

static void
sample_add(struct samples *s, uint64_t x)
{
	if (s->v == NULL)
		s->v = calloc(MAX_SAMPLES, sizeof(uint64_t));
	if (s->v != NULL && s->n < MAX_SAMPLES)
		s->v[s->n++] = x;
}

static int
u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* median in ms, -1 when empty */
static double
median_ms(struct samples *s)
{
	if (s->n == 0)
		return -1;
	qsort(s->v, s->n, sizeof(uint64_t), u64cmp);
	return s->n % 2 ? s->v[s->n / 2] / 1e6 : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2e6;
}

/* ---------------------------------------------------------------- initiators */

struct init {
	struct thr *t;
	unsigned idx;
	struct hip_hi hi;
	struct hip_host *h;
	struct hip_sa_keys out;
	bool esp_pending, done, ok, running;
	struct hip_bex_times times;
	uint32_t esp_seq, next_spi;
	uint64_t restart_at;
};

struct thr {
	pthread_t tid;
	unsigned id;
	int rx_fd, hip_fd, esp_fd;
	struct init *inits[MAX_INIT];
	unsigned n_inits;
	/* results */
	uint64_t bex_ok, bex_failed, esp_sent, esp_failed, rx, tx;
	uint64_t bex_ok_all, bex_failed_all;   /* warm-up and wind-down too */
	struct samples r1_to_i2, r2_to_esp, tbe;
	uint64_t flood_sent, flood_errors;
};

static struct init inits[MAX_INIT];
static struct thr thrs[MAX_THREADS];
static uint64_t t_measure_start, t_end;

static void
io_send(void *ctx, const struct gw_addr *src, const struct gw_addr *dst, const uint8_t *pkt,
	size_t len)
{
	struct init *in = ctx;
	struct sockaddr_in sa = { .sin_family = AF_INET };

	(void)src;
	memcpy(&sa.sin_addr, dst->addr, 4);
	if (sendto(in->t->hip_fd, pkt, len, 0, (struct sockaddr *)&sa, sizeof(sa)) == (ssize_t)len)
		in->t->tx++;
}

static uint32_t
io_spi_alloc(void *ctx)
{
	struct init *in = ctx;
	/* unique per initiator and exchange; the responder never sees our inbound SPIs reused */
	in->next_spi = (in->next_spi + 1) & 0xfffff;
	return ((uint32_t)(in->idx + 1) << 20) | (in->next_spi ? in->next_spi : 1);
}

static void
io_sa_up(void *ctx, void *user, const struct hip_sa_keys *out, const struct hip_sa_keys *inn,
	 uint32_t old_in_spi)
{
	struct init *in = ctx;
	(void)user;
	(void)inn;
	(void)old_in_spi;
	in->out = *out;
	in->esp_pending = true;
}

static void
io_sa_down(void *ctx, void *user, uint32_t spi)
{
	(void)ctx;
	(void)user;
	(void)spi;
}

static void
io_bex_done(void *ctx, void *user, bool ok, const struct hip_bex_times *t)
{
	struct init *in = ctx;
	(void)user;
	in->done = true;
	in->ok = ok;
	in->times = *t;
}

/* One ESP packet (RFC 4303, tunnel mode, next header 4) with the out SA:
 * AES-GCM per RFC 4106 (key || 4-byte salt; 8-byte IV = the sequence number;
 * AAD = SPI || sequence number; 16-byte ICV). Inner IPv4/UDP to port 9. */
static int
esp_send(struct init *in)
{
	const struct hip_sa_keys *k = &in->out;
	uint8_t inner[20 + 8 + 32], plain[sizeof(inner) + 4 + 2], pkt[8 + 8 + sizeof(plain) + 16];
	uint8_t nonce[12];
	size_t pl = sizeof(inner), klen;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	EVP_CIPHER_CTX *c;
	int n = 0, ok = 0;
	uint32_t sum = 0, seq = ++in->esp_seq;

	if (k->esp_transform != 13 || (k->enc_key_len != 20 && k->enc_key_len != 36))
		return -1;
	klen = k->enc_key_len - 4u;
	memset(inner, 0, sizeof(inner));
	inner[0] = 0x45;
	inner[2] = sizeof(inner) >> 8;
	inner[3] = sizeof(inner) & 0xff;
	inner[8] = 64;
	inner[9] = IPPROTO_UDP;
	memcpy(inner + 12, &O.inner_net, 4);
	inner[14] = (uint8_t)in->idx;
	inner[15] = 2;
	memcpy(inner + 16, &O.inner_dst, 4);
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(inner[i] << 8 | inner[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	inner[10] = (uint8_t)(~sum >> 8);
	inner[11] = (uint8_t)~sum;
	inner[20] = 0x9c;            /* UDP 40000 -> 9 (discard), checksum 0 */
	inner[21] = 0x40;
	inner[23] = 9;
	inner[24] = 0;
	inner[25] = 8 + 32;
	memset(inner + 28, 'b', 32);
	memcpy(plain, inner, pl);
	for (uint8_t p = 1; (pl + 2) % 4 != 0; p++)
		plain[pl++] = p;      /* RFC 4303 2.4 default padding */
	plain[pl] = (uint8_t)(pl - sizeof(inner));
	plain[pl + 1] = 4;           /* IPv4: tunnel mode */
	pl += 2;
	pkt[0] = (uint8_t)(k->spi >> 24);
	pkt[1] = (uint8_t)(k->spi >> 16);
	pkt[2] = (uint8_t)(k->spi >> 8);
	pkt[3] = (uint8_t)k->spi;
	pkt[4] = (uint8_t)(seq >> 24);
	pkt[5] = (uint8_t)(seq >> 16);
	pkt[6] = (uint8_t)(seq >> 8);
	pkt[7] = (uint8_t)seq;
	memset(pkt + 8, 0, 4);
	memcpy(pkt + 12, pkt + 4, 4);   /* IV: 0 || seq, unique per key */
	memcpy(nonce, k->enc_key + klen, 4);
	memcpy(nonce + 4, pkt + 8, 8);
	c = EVP_CIPHER_CTX_new();
	if (c != NULL &&
	    EVP_EncryptInit_ex(c, klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm(), NULL, NULL, NULL) == 1 &&
	    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
	    EVP_EncryptInit_ex(c, NULL, NULL, k->enc_key, nonce) == 1 &&
	    EVP_EncryptUpdate(c, NULL, &n, pkt, 8) == 1 &&
	    EVP_EncryptUpdate(c, pkt + 16, &n, plain, (int)pl) == 1 &&
	    EVP_EncryptFinal_ex(c, pkt + 16 + n, &n) == 1 &&
	    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, pkt + 16 + pl) == 1)
		ok = 1;
	EVP_CIPHER_CTX_free(c);
	if (!ok)
		return -1;
	memcpy(&sa.sin_addr, k->remote.addr, 4);
	if (sendto(in->t->esp_fd, pkt, 16 + pl + 16, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	return 0;
}

static int
init_setup(struct init *in, char *err, size_t errlen)
{
	struct hip_host_cfg c = { 0 };
	struct hh_params p = { .k = 1, .esp = { 13 }, .ne = 1, .groups = { (uint8_t)O.group }, .ng = 1,
			       .ciph = { HIP_CIPHER_AES_128_CBC }, .nc = 1 };
	struct gw_addr loc = { .family = 4 }, local = { .family = 4 };
	char path[512];

	key_path(path, sizeof(path), in->idx);
	if (hip_hi_load(path, &in->hi, err, errlen) != 0)
		return -1;
	hh_cfg_fill(&c, &in->hi, &p);
	c.io = (struct hip_io){ .ctx = in, .send = io_send, .spi_alloc = io_spi_alloc,
				.sa_up = io_sa_up, .sa_down = io_sa_down, .bex_done = io_bex_done };
	in->h = hip_host_create(&c, err, errlen);
	if (in->h == NULL)
		return -1;
	memcpy(loc.addr, &O.responder, 4);
	memcpy(local.addr, &O.local, 4);
	if (hip_host_add_peer(in->h, O.responder_hit, &loc, 1, &local, in) != 0) {
		snprintf(err, errlen, "initiator %u: cannot add the responder as a peer", in->idx);
		return -1;
	}
	return 0;
}

static int
raw_socket(int proto, bool bind_local)
{
	int fd = socket(AF_INET, SOCK_RAW, proto);
	int sz = 4 << 20;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (bind_local) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = O.local };
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Finish what the engine's callbacks left to do for one initiator. */
static void
init_after(struct init *in, uint64_t now, bool loop)
{
	struct thr *t = in->t;

	if (in->esp_pending) {
		in->esp_pending = false;
		if (esp_send(in) == 0)
			t->esp_sent++;
		else
			t->esp_failed++;
		hip_host_first_esp(in->h, in, mono_ns());   /* -> bex_done */
	}
	if (!in->done)
		return;
	in->done = false;
	in->running = false;
	if (in->ok)
		t->bex_ok_all++;
	else
		t->bex_failed_all++;
	if (now >= t_measure_start && now < t_end) {
		if (in->ok) {
			t->bex_ok++;
			sample_add(&t->r1_to_i2, in->times.r1_to_i2);
			sample_add(&t->r2_to_esp, in->times.r2_to_esp);
			sample_add(&t->tbe, in->times.tbe);
		} else {
			t->bex_failed++;
		}
	}
	if (O.sequential) {
		printf("{\"initiator\": %u, \"ok\": %s, \"r1_to_i2_us\": %.1f, \"r2_to_esp_us\": %.1f, "
		       "\"tbe_us\": %.1f}\n", in->idx, in->ok ? "true" : "false",
		       in->times.r1_to_i2 / 1e3, in->times.r2_to_esp / 1e3, in->times.tbe / 1e3);
		fflush(stdout);
	}
	hip_host_forget(in->h, in, now);
	if (loop) {
		in->running = true;
		hip_host_connect(in->h, in, now);
	}
}

static void
rx_burst(struct thr *t)
{
	static __thread uint8_t bufs[RX_BURST][2048];
	struct mmsghdr msgs[RX_BURST];
	struct iovec iov[RX_BURST];
	int n;

	for (unsigned i = 0; i < RX_BURST; i++) {
		iov[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	n = recvmmsg(t->rx_fd, msgs, RX_BURST, MSG_DONTWAIT, NULL);
	for (int i = 0; i < n; i++) {
		const uint8_t *p = bufs[i];
		size_t len = msgs[i].msg_len, hl;
		struct gw_addr src = { .family = 4 }, dst = { .family = 4 };

		if (len < 20 || (p[0] >> 4) != 4)
			continue;
		hl = (size_t)(p[0] & 0xf) * 4;
		if (len < hl + 40)
			continue;
		memcpy(src.addr, p + 12, 4);
		memcpy(dst.addr, p + 16, 4);
		for (unsigned k = 0; k < t->n_inits; k++) {
			struct init *in = t->inits[k];
			if (memcmp(p + hl + 24, in->hi.hit, 16) != 0)
				continue;
			t->rx++;
			hip_host_input(in->h, &src, &dst, p + hl, len - hl, mono_ns());
			init_after(in, mono_ns(), O.sequential == 0 && !stop_flag && mono_ns() < t_end);
			break;
		}
	}
}

static void *
bex_thread(void *arg)
{
	struct thr *t = arg;
	struct pollfd pf = { .fd = t->rx_fd, .events = POLLIN };
	uint64_t next_tick = 0;

	if (O.sequential == 0) {
		uint64_t now = mono_ns();
		for (unsigned k = 0; k < t->n_inits; k++) {
			t->inits[k]->running = true;
			hip_host_connect(t->inits[k]->h, t->inits[k], now);
		}
	}
	while (!stop_flag) {
		uint64_t now = mono_ns();
		bool busy = false;

		if (O.sequential == 0 && now >= t_end) {
			/* let the exchanges in flight finish (not counted) */
			busy = false;
			for (unsigned k = 0; k < t->n_inits; k++)
				busy |= t->inits[k]->running;
			if (!busy || now >= t_end + 3000000000ull)
				break;
		}
		if (poll(&pf, 1, 1) > 0)
			rx_burst(t);
		now = mono_ns();
		if (now >= next_tick) {
			next_tick = now + TICK_NS;
			for (unsigned k = 0; k < t->n_inits; k++) {
				struct init *in = t->inits[k];
				hip_host_tick(in->h, now);
				init_after(in, now, O.sequential == 0 && !stop_flag && now < t_end);
			}
		}
	}
	return NULL;
}

/* --sequential: one exchange at a time, in the main thread (thread 0's sockets). */
static void
run_sequential(struct thr *t)
{
	struct pollfd pf = { .fd = t->rx_fd, .events = POLLIN };

	for (unsigned k = 0; k < O.sequential && !stop_flag; k++) {
		struct init *in = t->inits[k % t->n_inits];
		uint64_t deadline = mono_ns() + 10000000000ull, next_tick = 0;

		in->running = true;
		hip_host_connect(in->h, in, mono_ns());
		while (in->running && !stop_flag && mono_ns() < deadline) {
			uint64_t now;
			if (poll(&pf, 1, 1) > 0)
				rx_burst(t);
			now = mono_ns();
			if (now >= next_tick) {
				next_tick = now + TICK_NS;
				hip_host_tick(in->h, now);
				init_after(in, now, false);
			}
		}
		if (in->running) {
			t->bex_failed++;
			in->running = false;
			hip_host_forget(in->h, in, mono_ns());
		}
		usleep(O.pause_ms * 1000);
	}
}

static int
cmd_bex(void)
{
	char err[256];
	double t0;
	uint64_t ok = 0, failed = 0, esp = 0, esp_failed = 0, rx = 0, tx = 0, ok_all = 0, failed_all = 0;
	struct samples all[3] = { { 0 } };
	FILE *out = stdout;

	if (!O.have_responder || !O.have_hit || !O.have_local || O.dir == NULL)
		die(2, "bex needs --dir, --responder, --responder-hit and --local");
	if (O.count == 0 || O.count > MAX_INIT)
		die(2, "--count: 1..64 initiators");
	if (O.threads == 0 || O.threads > MAX_THREADS || O.threads > O.count)
		die(2, "--threads: 1..16, at most --count");
	if (O.sequential)
		O.threads = 1;
	for (unsigned i = 0; i < O.threads; i++) {
		struct thr *t = &thrs[i];
		t->id = i;
		t->rx_fd = raw_socket(IPPROTO_HIP_, false);
		t->hip_fd = raw_socket(IPPROTO_HIP_, true);
		t->esp_fd = raw_socket(IPPROTO_ESP, true);
		if (t->rx_fd < 0 || t->hip_fd < 0 || t->esp_fd < 0)
			die(1, "raw sockets (root, and --local an address of this host?)");
	}
	for (unsigned i = 0; i < O.count; i++) {
		struct thr *t = &thrs[i % O.threads];
		inits[i].idx = i;
		inits[i].t = t;
		if (init_setup(&inits[i], err, sizeof(err)) != 0)
			die(1, err);
		t->inits[t->n_inits++] = &inits[i];
	}
	t0 = mono_ns() / 1e9;
	if (O.sequential) {
		t_measure_start = 0;
		t_end = UINT64_MAX;
		run_sequential(&thrs[0]);
	} else {
		/* keys loaded, engines made (RSA: seconds): the script times its window from here */
		printf("{\"ready\": true}\n");
		fflush(stdout);
		t_measure_start = mono_ns() + (uint64_t)(O.warmup * 1e9);
		t_end = t_measure_start + (uint64_t)(O.duration * 1e9);
		for (unsigned i = 0; i < O.threads; i++)
			pthread_create(&thrs[i].tid, NULL, bex_thread, &thrs[i]);
		for (unsigned i = 0; i < O.threads; i++)
			pthread_join(thrs[i].tid, NULL);
	}
	for (unsigned i = 0; i < O.threads; i++) {
		struct thr *t = &thrs[i];
		struct samples *s[3] = { &t->r1_to_i2, &t->r2_to_esp, &t->tbe };
		ok += t->bex_ok;
		failed += t->bex_failed;
		ok_all += t->bex_ok_all;
		failed_all += t->bex_failed_all;
		esp += t->esp_sent;
		esp_failed += t->esp_failed;
		rx += t->rx;
		tx += t->tx;
		for (unsigned k = 0; k < 3; k++)
			for (size_t j = 0; j < s[k]->n; j++)
				sample_add(&all[k], s[k]->v[j]);
	}
	if (O.json != NULL && (out = fopen(O.json, "w")) == NULL)
		die(1, "--json: cannot write");
	fprintf(out, "{\"mode\": \"%s\", \"algo\": \"%s\", \"dh_group\": %u, \"initiators\": %u, "
		"\"threads\": %u, \"measured_s\": %.3f, \"bex_ok\": %" PRIu64 ", \"bex_failed\": %" PRIu64
		", \"bex_per_s\": %.1f, \"bex_ok_all\": %" PRIu64 ", \"bex_failed_all\": %" PRIu64
		", \"esp_sent\": %" PRIu64 ", \"esp_failed\": %" PRIu64
		", \"hip_rx\": %" PRIu64 ", \"hip_tx\": %" PRIu64 ", \"median_ms\": {\"r1_to_i2\": %.3f, "
		"\"r2_to_esp\": %.3f, \"tbe\": %.3f}, \"wall_s\": %.3f}\n",
		O.sequential ? "sequential" : "loaded", O.algo, O.group, O.count, O.threads,
		O.sequential ? 0 : O.duration, ok, failed, O.sequential ? 0 : ok / O.duration,
		ok_all, failed_all, esp, esp_failed, rx, tx, median_ms(&all[0]), median_ms(&all[1]), median_ms(&all[2]),
		mono_ns() / 1e9 - t0);
	if (out != stdout)
		fclose(out);
	for (unsigned i = 0; i < O.count; i++) {
		hip_host_free(inits[i].h);
		hip_hi_free(&inits[i].hi);
	}
	for (unsigned k = 0; k < 3; k++)
		free(all[k].v);
	for (unsigned i = 0; i < O.threads; i++) {
		free(thrs[i].r1_to_i2.v);
		free(thrs[i].r2_to_esp.v);
		free(thrs[i].tbe.v);
		close(thrs[i].rx_fd);
		close(thrs[i].hip_fd);
		close(thrs[i].esp_fd);
	}
	return 0;
}

/* ---------------------------------------------------------------- flood */

static uint8_t (*flood_hits)[16];
static unsigned n_flood_hits;
static uint8_t i1_template[64];
static size_t i1_len;

static void
load_hits(void)
{
	FILE *f = fopen(O.hits_file, "r");
	char line[256];

	if (f == NULL)
		die(1, "--hits: cannot read");
	flood_hits = calloc(4096, 16);
	while (flood_hits != NULL && n_flood_hits < 4096 && fgets(line, sizeof(line), f) != NULL) {
		char *h = strrchr(line, ' ');
		h = h ? h + 1 : line;
		h[strcspn(h, "\r\n")] = 0;
		if (*h && hip_hit_parse(h, flood_hits[n_flood_hits]) == 0)
			n_flood_hits++;
	}
	fclose(f);
	if (n_flood_hits == 0)
		die(1, "--hits: no HIT in the file");
}

static void *
flood_thread(void *arg)
{
	struct thr *t = arg;
	static __thread uint8_t pkts[FLOOD_BURST][20 + 64];
	struct mmsghdr msgs[FLOOD_BURST];
	struct iovec iov[FLOOD_BURST];
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr = O.responder };
	uint32_t net = ntohl(O.src_net.s_addr), hostmask = O.src_len >= 32 ? 0 : 0xffffffffu >> O.src_len;
	uint64_t rnd = 0x9e3779b97f4a7c15ull ^ (mono_ns() + t->id * 7919);
	double per_thread = O.rate > 0 ? O.rate / O.threads : 0;
	uint64_t start = mono_ns(), end = start + (uint64_t)(O.duration * 1e9);

	for (unsigned i = 0; i < FLOOD_BURST; i++) {
		uint8_t *p = pkts[i];
		memset(p, 0, 20);
		p[0] = 0x45;
		p[2] = (uint8_t)((20 + i1_len) >> 8);
		p[3] = (uint8_t)(20 + i1_len);
		p[8] = 64;
		p[9] = IPPROTO_HIP_;
		memcpy(p + 16, &O.responder, 4);
		memcpy(p + 20, i1_template, i1_len);
		iov[i] = (struct iovec){ p, 20 + i1_len };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_name = &dst, .msg_namelen = sizeof(dst),
							 .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	while (!stop_flag) {
		uint64_t now = mono_ns();
		unsigned burst = FLOOD_BURST;
		int n;

		if (now >= end)
			break;
		if (per_thread > 0) {
			double due = (now - start) / 1e9 * per_thread - (double)t->flood_sent;
			if (due < 1) {
				struct timespec ts = { 0, 50000 };
				nanosleep(&ts, NULL);
				continue;
			}
			burst = due < FLOOD_BURST ? (unsigned)due : FLOOD_BURST;
		}
		for (unsigned i = 0; i < burst; i++) {
			uint8_t *p = pkts[i];
			uint64_t r = xorshift(&rnd);
			uint32_t src = htonl(net | ((uint32_t)r & hostmask));

			memcpy(p + 12, &src, 4);
			if (O.random_hits) {
				uint64_t r2 = xorshift(&rnd);
				p[20 + 8] = 0x20;
				p[20 + 9] = 0x01;
				p[20 + 10] = 0x00;
				p[20 + 11] = 0x22;   /* ORCHIDv2 2001:20::/28, OGA 2 */
				memcpy(p + 20 + 12, &r, 4);
				memcpy(p + 20 + 16, &r2, 8);
				memcpy(p + 20 + 20, &r, 4);
			} else {
				memcpy(p + 20 + 8, flood_hits[(r >> 32) % n_flood_hits], 16);
			}
			p[20 + 4] = p[20 + 5] = 0;
			hip_checksum_set_ipv4(p + 20, i1_len, p + 12, p + 16);
		}
		n = sendmmsg(t->hip_fd, msgs, burst, 0);
		if (n > 0)
			t->flood_sent += (unsigned)n;
		else
			t->flood_errors++;
	}
	return NULL;
}

static int
cmd_flood(void)
{
	struct hip_builder b;
	uint8_t zero[16] = { 0 };
	uint8_t groups[2] = { 7, 4 };
	uint64_t sent = 0, errors = 0, t0;
	double secs;

	if (!O.have_responder || !O.have_hit || O.src_len == 0 || O.duration <= 0)
		die(2, "flood needs --responder, --responder-hit, --src-net and --duration");
	if (O.hits_file == NULL && !O.random_hits)
		die(2, "flood needs --hits FILE or --random-hits");
	if (O.threads == 0 || O.threads > MAX_THREADS)
		die(2, "--threads: 1..16");
	if (O.hits_file != NULL)
		load_hits();
	if (hip_build_init(&b, i1_template, sizeof(i1_template), HIP_I1, zero, O.responder_hit) != 0 ||
	    hip_build_param(&b, HIP_PARAM_DH_GROUP_LIST, groups, sizeof(groups)) != 0)
		die(1, "cannot build the I1");
	i1_len = (size_t)hip_build_finish(&b);
	for (unsigned i = 0; i < O.threads; i++) {
		thrs[i].id = i;
		thrs[i].hip_fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);   /* IP_HDRINCL */
		if (thrs[i].hip_fd < 0)
			die(1, "raw socket (root?)");
	}
	t0 = mono_ns();
	for (unsigned i = 0; i < O.threads; i++)
		pthread_create(&thrs[i].tid, NULL, flood_thread, &thrs[i]);
	for (unsigned i = 0; i < O.threads; i++) {
		pthread_join(thrs[i].tid, NULL);
		sent += thrs[i].flood_sent;
		errors += thrs[i].flood_errors;
	}
	secs = (mono_ns() - t0) / 1e9;
	{
		FILE *out = O.json ? fopen(O.json, "w") : stdout;
		if (out == NULL)
			die(1, "--json: cannot write");
		fprintf(out, "{\"mode\": \"flood\", \"hits\": \"%s\", \"n_hits\": %u, \"threads\": %u, "
			"\"rate_asked\": %.0f, \"sent\": %" PRIu64 ", \"send_errors\": %" PRIu64
			", \"seconds\": %.3f, \"sent_per_s\": %.0f}\n", O.random_hits ? "random" : "known",
			n_flood_hits, O.threads, O.rate, sent, errors, secs, sent / secs);
		if (out != stdout)
			fclose(out);
	}
	free(flood_hits);
	return 0;
}

/* ---------------------------------------------------------------- main */

static void
parse_in4(const char *opt, const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1) {
		fprintf(stderr, "hipgw-bex-load: %s: not an IPv4 address: %s\n", opt, s);
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "algo", 1, 0, 'a' }, { "count", 1, 0, 'n' }, { "dir", 1, 0, 'd' },
		{ "responder", 1, 0, 'r' }, { "responder-hit", 1, 0, 'H' }, { "local", 1, 0, 'l' },
		{ "group", 1, 0, 'g' }, { "inner-net", 1, 0, 'i' }, { "inner-dst", 1, 0, 'I' },
		{ "threads", 1, 0, 't' }, { "duration", 1, 0, 'D' }, { "warmup", 1, 0, 'w' },
		{ "sequential", 1, 0, 's' }, { "pause-ms", 1, 0, 'p' }, { "json", 1, 0, 'j' },
		{ "src-net", 1, 0, 'S' }, { "hits", 1, 0, 'h' }, { "random-hits", 0, 0, 'R' },
		{ "rate", 1, 0, 'x' }, { 0, 0, 0, 0 } };
	int c;

	if (argc < 2)
		die(2, "usage: hipgw-bex-load keygen|bex|flood [options] (see perf/bex_load.c)");
	O.mode = argv[1];
	parse_in4("inner-net", "10.128.0.0", &O.inner_net);
	parse_in4("inner-dst", "10.2.0.2", &O.inner_dst);
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'a': O.algo = optarg; break;
		case 'n': O.count = (unsigned)atoi(optarg); break;
		case 'd': O.dir = optarg; break;
		case 'r': parse_in4("--responder", optarg, &O.responder); O.have_responder = true; break;
		case 'H':
			if (hip_hit_parse(optarg, O.responder_hit) != 0)
				die(2, "--responder-hit: not a HIT");
			O.have_hit = true;
			break;
		case 'l': parse_in4("--local", optarg, &O.local); O.have_local = true; break;
		case 'g': O.group = (unsigned)atoi(optarg); break;
		case 'i': parse_in4("--inner-net", optarg, &O.inner_net); break;
		case 'I': parse_in4("--inner-dst", optarg, &O.inner_dst); break;
		case 't': O.threads = (unsigned)atoi(optarg); break;
		case 'D': O.duration = atof(optarg); break;
		case 'w': O.warmup = atof(optarg); break;
		case 's': O.sequential = (unsigned)atoi(optarg); break;
		case 'p': O.pause_ms = (unsigned)atoi(optarg); break;
		case 'j': O.json = optarg; break;
		case 'S': {
			char buf[64], *sl;
			snprintf(buf, sizeof(buf), "%s", optarg);
			sl = strchr(buf, '/');
			if (sl == NULL)
				die(2, "--src-net: A.B.C.D/LEN");
			*sl = 0;
			parse_in4("--src-net", buf, &O.src_net);
			O.src_len = (unsigned)atoi(sl + 1);
			if (O.src_len < 8 || O.src_len > 32)
				die(2, "--src-net: length 8..32");
			break;
		}
		case 'h': O.hits_file = optarg; break;
		case 'R': O.random_hits = true; break;
		case 'x': O.rate = atof(optarg); break;
		default: die(2, "bad option (see perf/bex_load.c)");
		}
	}
	if (O.group != 7 && O.group != 4 && O.group != 8)
		die(2, "--group: 7 (NIST P-256), 8 (P-384) or 4 (MODP-3072)");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (strcmp(O.mode, "keygen") == 0) {
		if (O.dir == NULL)
			die(2, "keygen needs --dir");
		return cmd_keygen();
	}
	if (strcmp(O.mode, "bex") == 0) {
		if (O.sequential == 0 && O.duration <= 0)
			die(2, "bex needs --duration S or --sequential N");
		return cmd_bex();
	}
	if (strcmp(O.mode, "flood") == 0)
		return cmd_flood();
	die(2, "mode: keygen, bex or flood");
	return 2;
}
