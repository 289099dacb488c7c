/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the middlebox's tracker (lib/mbox, mbox_track.h): HIP
 * packet sequences into mbox_hip_input, or over UDP (RFC 5770) into
 * mbox_hip_udp_input, timers, the state file. The flow
 * table is the unit tests' double (tests/lib/mbox_flow_double.h); rte_hash
 * needs EAL (--no-huge, set up once in LLVMFuzzerInitialize). Keys: the
 * fixed HIs of tests/data/hip/keys; the engines' RNG is deterministic and
 * the clock only the input's, so an input replays exactly.
 *
 * Byte 0 (the mode):
 *   bit 0     structure-aware (else raw)
 *   bit 1     HIP cipher AES-128-CBC: HOST_ID inside ENCRYPTED (else NULL, in clear)
 *   bit 2     the config knows both hosts' HIs (mbox_params.his)
 *   bit 3     IPv6 outer addresses
 *   bit 4     state-file mode: the rest of the input is a state file to load
 *   bits 5-6  rules: allow all / deny host 0 -> host 1 / allow host 1 -> host 0 only /
 *             none (default deny)
 *   bit 7     I1 rate limit 2/s (else none)
 *
 * Raw: records of [length 2 (big-endian)][flags 1][packet]: first the clock
 * goes on by (flags >> 2) * 10 ms with an mbox_tick, then the packet is given
 * to mbox_hip_input from host 1's address to host 0's (flags bit 0) or the
 * other way, with its checksum computed first when flags bit 1 is set. With
 * the length's bit 15 set (the length is its low 15 bits) it goes over UDP
 * to mbox_hip_udp_input instead: with flags bit 1 the packet is a HIP packet
 * put behind a UDP header (ports 10500, its length and checksum set) and
 * the marker, its HIP checksum 0 (as RFC 5770 senders send it); without, the
 * bytes are the datagram, its UDP header first, as they are.
 *
 * Structure-aware: two HIP engines (lib/hip, tests/lib/hip_harness.h) with
 * HIs P-256 (host 0) and P-384 (host 1), every packet between them through
 * the tracker on the harness's wire. Then steps of 3 bytes [op][x][y] on the
 * wire's first packet or the engines (op % 10): 0 deliver (with x bit 7: the
 * wire switches transport first, plain HIP <-> HIP over UDP: every packet
 * from then on reaches the tracker in UDP as raw mode's bit 15 with flags
 * bit 1 wraps it, from port 10500 + (x & 63) to 10500, a NAT's port); 1 deliver with a
 * bit flipped (checksum fixed); 2 deliver with a parameter's byte changed
 * before the signature, then signed again with its sender's private key (so
 * that it gets past the tracker's verification; with x bit 4 set, an
 * UPDATE gets a LOCATOR_SET instead, insert_locator); 3 lose; 4 replay a packet
 * the tracker forwarded earlier; 5 deliver all, then time (x + 1) * 10 ms
 * with the timers; 6 rekey, 7 close,
 * 8 connect, 9 forget at host x & 1. When the steps run out, 5 s of virtual
 * time pass. Then the state file is written and read by a second tracker on
 * a second flow table: the same associations and flows.
 *
 * Invariants (abort() when broken), after every step: rx = forwarded +
 * dropped = forwarded + the sum of the drops, udp (HIP over UDP) within rx; associations within
 * max_assocs, BEXes in progress within half; flows only for ESTABLISHED,
 * REKEYING and CLOSING associations; the flow table holds exactly the flows
 * the associations say, each under its association's id; the engines'
 * harness invariants (tests/lib/hip_harness.h). A state file mbox_create
 * refuses gets a one-line message naming the file. ASan, UBSan and LSan
 * watch the rest.
 *
 * HIPGW_FUZZ_WRITE_RAW=DIR: each structure-aware input also writes, into
 * DIR, the raw-mode input of the packets the tracker was given and the
 * state file it wrote as a state-file-mode input (named by their SHA-1:
 * seeds for those modes). HIPGW_FUZZ_VERBOSE=1 prints the tracker's
 * counters and associations after each input.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "fuzz_common.h"
#include "hip_coverage.h"
#include "hip_harness.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hip_sig.h"
#include "mbox_flow_double.h"
#include "mbox_track.h"

#ifndef HIPGW_SOURCE_ROOT
#define HIPGW_SOURCE_ROOT "."
#endif
#define KEYS_DIR HIPGW_SOURCE_ROOT "/tests/data/hip/keys"

#define MODE_STRUCT     0x01
#define MODE_ENCRYPTED  0x02
#define MODE_KNOWN_HIS  0x04
#define MODE_IPV6       0x08
#define MODE_STATE_FILE 0x10
#define MODE_RULES_SHIFT 5
#define MODE_I1_RATE    0x80

#define NS_MS        (1000ull * 1000)
#define MAX_ASSOCS   4
#define STEPS_MAX    256
#define KEEP_MAX     32            /* packets the tracker forwarded, for replays */
#define DRAIN_MS     5000
#define RAW_MAX      (64 * 1024)   /* bytes of a recorded raw input */

static struct hip_hi k_p256, k_p384;
static char state_path[128];

static struct {
	struct hh_world w;
	struct mbox_tracker *t;
	struct gw_mbox_flows f;
	struct hh_pkt kept[KEEP_MAX];
	unsigned n_kept;
	bool v6;
	uint8_t raw[RAW_MAX];          /* HIPGW_FUZZ_WRITE_RAW */
	size_t raw_len;
	uint64_t raw_last;
	bool recording;
	bool udp;                      /* the wire carries HIP over UDP (step 0, x bit 7) */
	uint16_t sport;                /* ... the initiator's UDP source port */
} W;

static struct gw_mbox_flows F2;
static bool verbose;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_mbox", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--file-prefix", prefix, "--log-level", "*:error",
			NULL };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "fuzz_mbox_%ld", (long)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		FUZZ_FAIL("rte_eal_init: %s", rte_strerror(rte_errno));
	/* tmpfs when there is one: the tracker fsyncs each write */
	snprintf(state_path, sizeof(state_path), "%s/fuzz_mbox_%ld.state",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
	hh_key(NULL, KEYS_DIR, "ecdsa-p256.pem", &k_p256);
	hh_key(NULL, KEYS_DIR, "ecdsa-p384.pem", &k_p384);
	W.recording = getenv("HIPGW_FUZZ_WRITE_RAW") != NULL;
	verbose = getenv("HIPGW_FUZZ_VERBOSE") != NULL;
	return 0;
}

/* ---- the tracker ---- */

static struct mbox_tracker *
tracker(uint8_t mode, struct gw_mbox_flows *f, const char *path, char *err, size_t errlen)
{
	static struct mbox_rule rules[2];
	static struct mbox_known_hi his[2];
	struct mbox_params p = {
		.max_assocs = MAX_ASSOCS, .idle_ns = 30000 * NS_MS, .rekey_grace_ns = 2000 * NS_MS,
		.i1_rate = (mode & MODE_I1_RATE) ? 2 : 0, .rules = rules, .flows = f, .state_path = path,
	};

	memset(rules, 0, sizeof(rules));
	rules[1].any_initiator = rules[1].any_responder = 1;
	rules[1].action = MBOX_ALLOW;
	switch ((mode >> MODE_RULES_SHIFT) & 3) {
	case 0:
		rules[0] = rules[1];
		p.n_rules = 1;
		break;
	case 1:   /* host 0 -> host 1 denied, the rest allowed */
		memcpy(rules[0].initiator, k_p256.hit, HIP_HIT_LEN);
		memcpy(rules[0].responder, k_p384.hit, HIP_HIT_LEN);
		rules[0].action = MBOX_DENY;
		p.n_rules = 2;
		break;
	case 2:   /* host 1 -> host 0 only */
		memcpy(rules[0].initiator, k_p384.hit, HIP_HIT_LEN);
		memcpy(rules[0].responder, k_p256.hit, HIP_HIT_LEN);
		rules[0].action = MBOX_ALLOW;
		p.n_rules = 1;
		break;
	default:
		p.n_rules = 0;
		break;
	}
	his[0].hi = k_p256;
	his[1].hi = k_p384;
	if (mode & MODE_KNOWN_HIS) {
		p.his = his;
		p.n_his = 2;
	}
	return mbox_create(&p, err, errlen);
}

static bool
state_flows(enum mbox_state s)
{
	return s == MBOX_ST_ESTABLISHED || s == MBOX_ST_REKEYING || s == MBOX_ST_CLOSING;
}

static void
check(struct mbox_tracker *t, const struct gw_mbox_flows *f)
{
	struct mbox_stats s;
	struct mbox_assoc_info i;
	bool ids[MAX_ASSOCS + 1] = { false };
	uint32_t cursor = 0;
	uint64_t drops = 0;
	unsigned n = 0, flows = 0;

	mbox_stats(t, &s);
	for (unsigned r = 0; r < MBOX_DROPS; r++)
		drops += s.drops[r];
	if (s.rx != s.forwarded + s.dropped || drops != s.dropped)
		FUZZ_FAIL("counters: rx %lu forwarded %lu dropped %lu drops %lu", (unsigned long)s.rx,
			  (unsigned long)s.forwarded, (unsigned long)s.dropped, (unsigned long)drops);
	if (s.udp > s.rx)
		FUZZ_FAIL("udp %lu of rx %lu", (unsigned long)s.udp, (unsigned long)s.rx);
	if (s.assocs > MAX_ASSOCS || s.pending > MAX_ASSOCS / 2)
		FUZZ_FAIL("%u associations, %u pending", s.assocs, s.pending);
	while (mbox_assoc_next(t, &cursor, &i) == 1) {
		if (i.id == 0 || i.id > MAX_ASSOCS || ids[i.id])
			FUZZ_FAIL("association id %u", i.id);
		ids[i.id] = true;
		if (i.flows != 0 && !state_flows(i.state))
			FUZZ_FAIL("%u flows in state %s", i.flows, mbox_state_name(i.state));
		if (i.state == MBOX_ST_NONE)
			FUZZ_FAIL("an association in state NONE");
		n++;
		flows += i.flows;
	}
	if (n != s.assocs || flows != f->n)
		FUZZ_FAIL("%u associations (%u counted), %u flows (%u in the table)", n, s.assocs, flows,
			  f->n);
	for (unsigned x = 0; x < FD_FLOWS_MAX; x++)
		if (f->f[x].used && (f->f[x].assoc == 0 || f->f[x].assoc > MAX_ASSOCS ||
				     !ids[f->f[x].assoc]))
			FUZZ_FAIL("a flow of association %u, which is not there", f->f[x].assoc);
}

static void
dump(struct mbox_tracker *t)
{
	struct mbox_assoc_info i;
	struct mbox_stats s;
	uint32_t cursor = 0;

	if (!verbose)
		return;
	mbox_stats(t, &s);
	fprintf(stderr, "rx %lu fwd %lu dropped %lu established %lu rekeys %lu moves %lu closed %lu:",
		(unsigned long)s.rx, (unsigned long)s.forwarded, (unsigned long)s.dropped,
		(unsigned long)s.established, (unsigned long)s.rekeys, (unsigned long)s.moves,
		(unsigned long)s.closed);
	for (unsigned r = 0; r < MBOX_DROPS; r++)
		if (s.drops[r] != 0)
			fprintf(stderr, " %s %lu", mbox_reason_name(r), (unsigned long)s.drops[r]);
	fputc('\n', stderr);
	while (mbox_assoc_next(t, &cursor, &i) == 1)
		fprintf(stderr, "  assoc %u %s spi_i %#x spi_r %#x flows %u\n", i.id,
			mbox_state_name(i.state), i.spi_i, i.spi_r, i.flows);
}

/* ---- state-file mode ---- */

static void
run_state_file(uint8_t mode, const uint8_t *data, size_t size)
{
	FILE *f = fopen(state_path, "w");
	struct gw_mbox_flows fl;
	struct mbox_tracker *t;
	char err[512] = "";

	if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		FUZZ_FAIL("cannot write %s", state_path);
	fd_reset(&fl);
	t = tracker(mode, &fl, state_path, err, sizeof(err));
	if (t == NULL) {
		if (strncmp(err, state_path, strlen(state_path)) != 0 || strchr(err, '\n') != NULL)
			FUZZ_FAIL("state file error not one line naming the file: \"%s\"", err);
	} else {
		check(t, &fl);
		mbox_free(t);
	}
	unlink(state_path);
}

/* ---- HIP over UDP ---- */

#define RAW_UDP      0x8000u       /* raw record length: over UDP */
#define UDP_SKIP     12            /* UDP header and non-ESP marker */
#define HIP_UDP_PORT 10500

/* HIP packet b[0..n) as a datagram from sport to 10500 (the marker, the HIP
 * checksum 0, the UDP length and checksum set) into a new buffer; its length
 * in *len. The caller frees it. */
static uint8_t *
udp_wrap(const struct gw_addr *src, const struct gw_addr *dst, uint16_t sport, const uint8_t *b,
	 size_t n, size_t *len)
{
	uint8_t *u = calloc(1, UDP_SKIP + n);

	if (u == NULL)
		FUZZ_FAIL("no memory");
	*len = hh_udp_wrap(src, dst, sport, HIP_UDP_PORT, b, n, u);
	return u;
}

/* ---- raw mode ---- */

static void
run_raw(uint8_t mode, const uint8_t *data, size_t size)
{
	struct gw_addr h0, h1;
	uint64_t now = 1000 * NS_MS;
	size_t off = 0;
	char err[256];

	hh_addr(&h0, (mode & MODE_IPV6) != 0, 0);
	hh_addr(&h1, (mode & MODE_IPV6) != 0, 1);
	fd_reset(&W.f);
	W.t = tracker(mode, &W.f, NULL, err, sizeof(err));
	if (W.t == NULL)
		FUZZ_FAIL("mbox_create: %s", err);
	while (off + 3 <= size) {
		size_t len = ((size_t)data[off] << 8) | data[off + 1];
		bool udp = (len & RAW_UDP) != 0;
		uint8_t flags = data[off + 2];
		const struct gw_addr *src = (flags & 1) ? &h1 : &h0, *dst = (flags & 1) ? &h0 : &h1;
		uint8_t *p;
		unsigned why;

		off += 3;
		len &= ~(size_t)RAW_UDP;
		if (len > size - off)
			len = size - off;
		now += (uint64_t)(flags >> 2) * 10 * NS_MS;
		mbox_tick(W.t, now);
		p = fuzz_copy(data + off, len);
		off += len;
		if (udp) {
			size_t ul = len;
			uint8_t *u = (flags & 2) ? udp_wrap(src, dst, HIP_UDP_PORT, p, len, &ul) : p;

			mbox_hip_udp_input(W.t, src, dst, u, ul, now, &why);
			if (u != p)
				free(u);
			free(p);
			check(W.t, &W.f);
			continue;
		}
		if ((flags & 2) && len >= HIP_HDR_LEN) {
			size_t pl = ((size_t)p[HIP_OFF_HDR_LEN] + 1) * HIP_LEN_UNIT;

			if (pl <= len && src->family == 4)
				hip_checksum_set_ipv4(p, pl, src->addr, dst->addr);
			else if (pl <= len)
				hip_checksum_set_ipv6(p, pl, src->addr, dst->addr);
		}
		mbox_hip_input(W.t, src, dst, p, len, now, &why);
		free(p);
		check(W.t, &W.f);
	}
	mbox_tick(W.t, now + 60000 * NS_MS);
	check(W.t, &W.f);
	dump(W.t);
	mbox_free(W.t);
	W.t = NULL;
}

/* ---- structure-aware mode ---- */

static void
raw_record(const struct hh_pkt *p)
{
	uint64_t dt = (W.w.now - W.raw_last) / (10 * NS_MS);

	if (!W.recording)
		return;
	for (; dt > 63 && W.raw_len + 3 <= RAW_MAX; dt -= 63) {   /* time alone: an empty record */
		W.raw[W.raw_len++] = 0;
		W.raw[W.raw_len++] = 0;
		W.raw[W.raw_len++] = 63 << 2;
	}
	if (W.raw_len + 3 + p->len > RAW_MAX)
		return;
	W.raw[W.raw_len++] = (uint8_t)((p->len | (W.udp ? RAW_UDP : 0)) >> 8);
	W.raw[W.raw_len++] = (uint8_t)p->len;
	W.raw[W.raw_len++] = (uint8_t)((dt << 2) | (W.udp ? 2 : 0) | (p->from == 1 ? 1 : 0));
	memcpy(W.raw + W.raw_len, p->b, p->len);
	W.raw_len += p->len;
	W.raw_last = W.w.now;
}

/* The state file as a state-file-mode input, into dir. */
static void
raw_write_state(const char *dir, uint8_t mode)
{
	uint8_t buf[RAW_MAX], md[EVP_MAX_MD_SIZE];
	unsigned ml = 0;
	char path[512];
	size_t n;
	FILE *f = fopen(state_path, "rb");

	if (f == NULL)
		return;
	buf[0] = (uint8_t)((mode & ~MODE_STRUCT) | MODE_STATE_FILE);
	n = 1 + fread(buf + 1, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (EVP_Digest(buf, n, md, &ml, EVP_sha1(), NULL) != 1)
		return;
	snprintf(path, sizeof(path), "%s/", dir);
	for (unsigned i = 0; i < ml; i++)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%02x", md[i]);
	f = fopen(path, "wb");
	if (f != NULL) {
		fwrite(buf, 1, n, f);
		fclose(f);
	}
}

static void
raw_write(uint8_t mode)
{
	const char *dir = getenv("HIPGW_FUZZ_WRITE_RAW");
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned ml = 0;
	char path[512];
	FILE *f;

	if (dir == NULL || W.raw_len == 0)
		return;
	W.raw[0] = (uint8_t)(mode & ~MODE_STRUCT);
	if (EVP_Digest(W.raw, W.raw_len, md, &ml, EVP_sha1(), NULL) != 1)
		return;
	snprintf(path, sizeof(path), "%s/", dir);
	for (unsigned i = 0; i < ml; i++)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%02x", md[i]);
	f = fopen(path, "wb");
	if (f != NULL) {
		fwrite(W.raw, 1, W.raw_len, f);
		fclose(f);
	}
	raw_write_state(dir, mode);
}

static int
through_box(struct hh_pkt *p)
{
	unsigned why;
	enum mbox_verdict v;

	raw_record(p);
	if (W.udp) {
		size_t ul;
		uint8_t *u = udp_wrap(&p->src, &p->dst, p->from == 0 ? W.sport : HIP_UDP_PORT, p->b,
				      p->len, &ul);

		v = mbox_hip_udp_input(W.t, &p->src, &p->dst, u, ul, W.w.now, &why);
		free(u);
	} else {
		v = mbox_hip_input(W.t, &p->src, &p->dst, p->b, p->len, W.w.now, &why);
	}
	if (v == MBOX_FORWARD) {
		if (W.n_kept == KEEP_MAX) {
			memmove(&W.kept[0], &W.kept[1], (KEEP_MAX - 1) * sizeof(W.kept[0]));
			W.n_kept--;
		}
		W.kept[W.n_kept++] = *p;
	}
	return v == MBOX_DROP;
}

static void
harness_fail(const char *msg)
{
	FUZZ_FAIL("harness: %s", msg);
}

/* Sign the packet again with its sender's key (a changed packet that still
 * verifies); the checksum after. */
static void
resign(struct hh_pkt *p)
{
	const struct hip_hi *hi = p->from == 0 ? &k_p256 : &k_p384;
	uint8_t cov[HIP_COVERAGE_MAX], sig[HIP_SIG_MAX];
	struct hip_tlv s, pz;
	size_t sl = 0;
	uint16_t type = HIP_PARAM_HIP_SIGNATURE;
	size_t puzzle = 0;
	int n;

	if (hip_param_find(p->b, p->len, type, &s) != 1) {
		type = HIP_PARAM_HIP_SIGNATURE_2;
		if (hip_param_find(p->b, p->len, type, &s) != 1)
			return;
		if (hip_param_find(p->b, p->len, HIP_PARAM_PUZZLE, &pz) == 1)
			puzzle = pz.offset;
	}
	n = hip_coverage_sig(p->b, s.offset, type, puzzle, cov, sizeof(cov));
	if (n > 0 && hip_sig_sign(hi, cov, (size_t)n, sig, sizeof(sig), &sl) == 0 && sl + 2 == s.len)
		memcpy(p->b + s.offset + HIP_TLV_HDR_LEN + 2, sig, sl);
}

/* Change byte y of the value of the x-th parameter before the signature. */
static void
mutate_param(struct hh_pkt *p, uint8_t x, uint8_t y)
{
	struct hip_tlv_iter it;
	struct hip_tlv t, pick = { 0 };
	unsigned n = 0;

	hip_tlv_iter_init(&it, p->b, p->len, 0);
	while (hip_tlv_next(&it, &t) == 1 && t.type < HIP_PARAM_HIP_MAC)
		if (n++ == x % 8 || pick.len == 0)
			pick = t;
	if (pick.len == 0)
		return;
	p->b[pick.offset + HIP_TLV_HDR_LEN + y % pick.len] ^= (uint8_t)(1u << (x >> 5));
	resign(p);
}

/* Insert a LOCATOR_SET (RFC 8046 4) into an UPDATE that has none, then sign
 * it again: one locator, its type (0, 1 with the ESP_INFO's NEW SPI, or an
 * unknown 2), traffic type, P bit and address (IPv4-mapped 10.66.0.z, or an
 * IPv6 2001:db8:66::z, or the sender's own) from y. */
static void
insert_locator(struct hh_pkt *p, uint8_t y)
{
	uint8_t out[HIP_PACKET_MAX], loc[20] = { 0 };
	struct hip_tlv_iter it;
	struct hip_tlv t, ei;
	struct hip_builder b;
	struct hip_locator_set ls = { .n = 1 };
	struct hip_locator *l = &ls.loc[0];
	uint8_t *a = loc;
	bool put = false;
	int len;

	if (hh_ptype(p) != HIP_UPDATE || hip_param_find(p->b, p->len, HIP_PARAM_LOCATOR_SET, &t) == 1)
		return;
	l->locator_type = y % 3 == 2 ? 1 : (uint8_t)(y % 3 == 1);
	l->traffic_type = (uint8_t)((y >> 2) % 3);
	l->preferred = (y >> 4) & 1;
	l->lifetime = 600;
	if (l->locator_type == HIP_LOCATOR_TYPE_ESP_SPI_IPV6) {
		if (hip_param_find(p->b, p->len, HIP_PARAM_ESP_INFO, &ei) == 1 && ei.len >= 12)
			memcpy(loc, ei.value + 8, 4);
		a += 4;
	}
	if ((y >> 5) == 7 && p->src.family == 6) {
		memcpy(a, p->src.addr, 16);
	} else if ((y >> 5) == 7) {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, p->src.addr, 4);
	} else if (p->src.family == 4) {
		const uint8_t v4[] = { 10, 66, 0, (uint8_t)(y >> 5) };

		a[10] = a[11] = 0xff;
		memcpy(a + 12, v4, 4);
	} else {
		const uint8_t v6[] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x66 };

		memcpy(a, v6, sizeof(v6));
		a[15] = (uint8_t)(y >> 5);
	}
	l->locator = loc;
	l->locator_len = (uint16_t)(a + 16 - loc);
	if (hip_build_init(&b, out, sizeof(out), HIP_UPDATE, p->b + 8, p->b + 24) != 0)
		return;
	hip_tlv_iter_init(&it, p->b, p->len, 0);
	while (hip_tlv_next(&it, &t) == 1) {
		if (!put && t.type > HIP_PARAM_LOCATOR_SET) {
			hip_locator_set_put(&b, &ls);
			put = true;
		}
		hip_build_tlv(&b, &t);
	}
	len = hip_build_finish(&b);
	if (len <= 0 || !put)
		return;
	memcpy(p->b, out, (size_t)len);
	p->len = (size_t)len;
	resign(p);
}

static void
drain(unsigned ms)
{
	for (unsigned t = 0; t < ms; t += 10) {
		hh_deliver_all(&W.w);
		mbox_tick(W.t, W.w.now);
		check(W.t, &W.f);
		hh_advance(&W.w, 10 * NS_MS);
	}
	hh_deliver_all(&W.w);
	mbox_tick(W.t, W.w.now);
}

static void
step(uint8_t op, uint8_t x, uint8_t y)
{
	int a = x & 1, b = 1 - a;
	struct hh_pkt p;

	switch (op % 10) {
	case 1:
	case 2:
		if (W.w.qn == 0 || !hh_take(&W.w, 0, &p))
			return;
		if (op % 10 == 1)
			p.b[(((size_t)x << 8) | y) % p.len] ^= (uint8_t)(1u << (y & 7));
		else if (x & 0x10)
			insert_locator(&p, y);
		else
			mutate_param(&p, x, y);
		hh_fix_cksum(&p);
		hh_inject(&W.w, &p);
		return;
	case 3:
		hh_take(&W.w, 0, NULL);
		return;
	case 4:
		if (W.n_kept > 0)
			hh_inject(&W.w, &W.kept[x % W.n_kept]);
		return;
	case 5:
		hh_deliver_all(&W.w);
		hh_advance(&W.w, ((uint64_t)x + 1) * 10 * NS_MS);
		mbox_tick(W.t, W.w.now);
		return;
	case 6:
		hip_host_rekey(W.w.s[a].h, &W.w.s[b], W.w.now);
		return;
	case 7:
		hip_host_close_all(W.w.s[a].h, W.w.now);
		return;
	case 8:
		hip_host_connect(W.w.s[a].h, &W.w.s[b], W.w.now);
		return;
	case 9:
		hip_host_forget(W.w.s[a].h, &W.w.s[b], W.w.now);
		return;
	default:
		if (x & 0x80) {
			W.udp = !W.udp;
			W.sport = (uint16_t)(HIP_UDP_PORT + (x & 63));
		}
		if (W.w.qn > 0)
			hh_deliver_at(&W.w, 0);
		return;
	}
}

/* The state file written and read by a second tracker: the same. */
static void
roundtrip(uint8_t mode)
{
	struct mbox_assoc_info i, j;
	struct mbox_tracker *t2;
	uint32_t cursor = 0;
	struct mbox_stats s, s2;
	char err[512];

	if (mbox_state_flush(W.t, err, sizeof(err)) != 0)
		FUZZ_FAIL("mbox_state_flush: %s", err);
	fd_reset(&F2);
	t2 = tracker(mode, &F2, state_path, err, sizeof(err));
	if (t2 == NULL)
		FUZZ_FAIL("the state file just written is refused: %s", err);
	mbox_stats(W.t, &s);
	mbox_stats(t2, &s2);
	if (s.assocs != 0 && access(state_path, F_OK) != 0)
		FUZZ_FAIL("%u associations and no state file", s.assocs);
	if (s2.assocs != (access(state_path, F_OK) == 0 ? s.assocs : 0))
		FUZZ_FAIL("%u associations written, %u read", s.assocs, s2.assocs);
	while (mbox_assoc_next(W.t, &cursor, &i) == 1) {
		if (mbox_assoc_find(t2, i.hit_i, i.hit_r, &j) != 0 || j.state != i.state ||
		    memcmp(j.hit_i, i.hit_i, HIP_HIT_LEN) != 0 || j.spi_i != i.spi_i ||
		    j.spi_r != i.spi_r || j.new_spi_i != i.new_spi_i || j.new_spi_r != i.new_spi_r ||
		    j.seq_i != i.seq_i || j.seq_r != i.seq_r || j.flows != i.flows)
			FUZZ_FAIL("association %u not read back as written", i.id);
	}
	if (F2.n != W.f.n)
		FUZZ_FAIL("%u flows, %u after reading the state file", W.f.n, F2.n);
	for (unsigned x = 0; x < FD_FLOWS_MAX; x++)
		if (W.f.f[x].used && fd_find(&F2, &W.f.f[x].dst, W.f.f[x].spi) == NULL)
			FUZZ_FAIL("a flow not read back");
	check(t2, &F2);
	mbox_free(t2);
	raw_write(mode);
	unlink(state_path);
}

static void
run_struct(uint8_t mode, const uint8_t *data, size_t size)
{
	struct hh_params hp = {
		.groups = { HIP_DH_GROUP_NIST_P256 }, .ng = 1, .esp = { HIP_ESP_AES_GCM_16 }, .ne = 1,
		.ciph = { (mode & MODE_ENCRYPTED) ? HIP_CIPHER_AES_128_CBC : HIP_CIPHER_NULL_ENCRYPT },
		.nc = 1, .k = 1, .v6 = (mode & MODE_IPV6) != 0, .det = true,
	};
	char err[256];

	hh_world_init(&W.w, NULL, harness_fail);
	hh_pair_up(&W.w, &k_p256, &k_p384, &hp);
	W.w.filter = through_box;
	W.udp = false;
	W.sport = HIP_UDP_PORT;
	W.n_kept = 0;
	W.raw_len = 1;
	W.raw_last = W.w.now;
	fd_reset(&W.f);
	unlink(state_path);   /* no state from an earlier input */
	W.t = tracker(mode, &W.f, state_path, err, sizeof(err));
	if (W.t == NULL)
		FUZZ_FAIL("mbox_create: %s", err);
	for (size_t off = 0; off + 3 <= size && off / 3 < STEPS_MAX; off += 3) {
		step(data[off], data[off + 1], data[off + 2]);
		check(W.t, &W.f);
	}
	drain(DRAIN_MS);
	check(W.t, &W.f);
	dump(W.t);
	roundtrip(mode);
	mbox_free(W.t);
	W.t = NULL;
	hh_down(&W.w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	if (mode & MODE_STATE_FILE)
		run_state_file(mode, data + 1, size - 1);
	else if (mode & MODE_STRUCT)
		run_struct(mode, data + 1, size - 1);
	else
		run_raw(mode, data + 1, size - 1);
	return 0;
}
