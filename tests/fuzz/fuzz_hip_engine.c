/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the HIP engine (lib/hip, hip_host.h) as responder and
 * as initiator (RFC 7401 BEX, UPDATE, NOTIFY, CLOSE; RFC 7402 ESP_INFO).
 *
 * Every input runs against fresh engines (created, then freed at the end),
 * with the deterministic RNG of hip_host_cfg.rng (fixed seeds) and a clock
 * that only the input advances, so an input replays exactly. Keys: the fixed
 * HIs of tests/data/hip/keys (ECDSA P-256, P-384, RSA-3072).
 *
 * Byte 0 (the mode):
 *   bit 0     the engine under test (E0) is the initiator (else the responder)
 *   bit 1     structure-aware (else raw)
 *   bits 2-3  key pair: E0 / peer = P-256 / P-384, RSA / P-256, P-384 / RSA,
 *             P-384 / P-384 (second key)
 *   bits 4-5  HIP ciphers offered: AES-128 first, NULL only, AES-256 only, all
 *   bit 6     IPv6 outer addresses (else IPv4)
 *   bit 7     two DH groups (P-256, P-384; else P-256 alone)
 *
 * Raw: records of [length 2 (big-endian)][step 1][packet]: the packet is
 * given as it is to hip_host_input of E0 (from the peer's address), step bit
 * 7 set: with its checksum computed first; length bit 15 set (length & 0x7fff
 * bytes): to hip_host_input_udp instead, as HIP over UDP from port
 * FUZZ_PEER_PORT to 10500 (RFC 5770); then time advances by
 * (step & 0x7f) * 10 ms with a tick. The peer is only a declared HIT.
 *
 * Structure-aware: a second engine (E1, the genuine peer) runs the other side
 * on a simulated wire; the input is a list of steps on that wire (op byte:
 * deliver, deliver mutated, drop, duplicate, replay an older packet, time,
 * rekey, a move of either side to a new address: LOCATOR_SET, echo, close). A packet from E1 to E0 is mutated at the parameter level
 * (drop, duplicate, swap, change value bytes and lengths, add unknown
 * critical and non-critical parameters, replace the HOST_ID), then fixed up:
 * HIP_MAC / HIP_MAC_2 again with E1's HIP integrity key (drawn from the KEYMAT
 * E1 reports through hip_host_cfg.vector), HIP_SIGNATURE / _2 again with E1's
 * private key, checksum, so that the mutation reaches what E0 does after
 * verification. When the steps run out the wire is drained for a while of
 * virtual time (exchanges complete, timers fire). Both engines do HIP over
 * UDP (io.send_udp); an input of odd length has both set nat = force, so the
 * whole association runs over UDP (RFC 5770: NAT_TRAVERSAL_MODE in R1 and
 * I2, keepalives), else auto (plain unless I1s are lost).
 *
 * Invariants (abort() when broken; the engine test harness's,
 * tests/lib/hip_harness.h, and the end check): every packet an engine sends
 * is a valid HIP packet (hip_packet_validate, checksum for its addresses);
 * every SA handed over has a non-zero SPI and the key lengths of its ESP
 * transform; sa_down only for an SPI handed over and not yet taken back; at
 * the end, after hip_host_forget, no inbound SA of E0 is left; vectors and
 * bex_done arguments sane. ASan, UBSan and LSan (leaks) watch the rest.
 *
 * HIPGW_FUZZ_WRITE_RAW=DIR: each structure-aware input also writes, into DIR,
 * the raw-mode input of the packets E0 received (seeds for the raw mode).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_harness.h"
#include "hip_host.h"
#include "hip_keymat.h"
#include "hip_mac.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hip_sig.h"
#include "hipgw_wire.h"

#ifndef HIPGW_SOURCE_ROOT
#define HIPGW_SOURCE_ROOT "."
#endif
#define KEYS_DIR HIPGW_SOURCE_ROOT "/tests/data/hip/keys"

#define FAIL(...) do { fprintf(stderr, "fuzz_hip_engine: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

#define MODE_INITIATOR  0x01
#define MODE_STRUCT     0x02
#define MODE_KEYS_SHIFT 2
#define MODE_CIPH_SHIFT 4
#define MODE_IPV6       0x40
#define MODE_TWO_GROUPS 0x80

#define NS_MS        (1000ull * 1000)
#define WIRE_MAX     64            /* packets queued on the wire */
#define HIST_MAX     16            /* packets of E1 kept for replays */
#define DRAIN_STEPS  400           /* 10 ms steps when the input ends: 4 s */
#define MAX_PARAMS   40
#define MAX_STEPS    64            /* structure-aware steps per input */
#define FUZZ_PEER_PORT 40000       /* the peer's UDP port in raw mode (a NAT's mapping) */

/* ---- keys ---- */

static struct hip_hi k_p256, k_p384, k_p384b, k_rsa;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	hh_key(NULL, KEYS_DIR, "ecdsa-p256.pem", &k_p256);
	hh_key(NULL, KEYS_DIR, "ecdsa-p384.pem", &k_p384);
	hh_key(NULL, KEYS_DIR, "ecdsa-p384-b.pem", &k_p384b);
	hh_key(NULL, KEYS_DIR, "rsa3072.pem", &k_rsa);
	return 0;
}

/* ---- the world: two engines and a wire (tests/lib/hip_harness.h) ---- */

static struct {
	struct hh_world w;            /* E0 = w.s[0], E1 = w.s[1] */
	struct hh_pkt hist[HIST_MAX]; /* packets E1 sent, for replays */
	unsigned nh;
	uint8_t host_id[1100];        /* E1's HOST_ID TLV as its R1 carried it */
	size_t host_id_len;
	bool structured;
	FILE *raw_out;                /* HIPGW_FUZZ_WRITE_RAW */
	uint64_t raw_last;
} W;

static void
set_checksum(uint8_t *pkt, size_t len, const struct gw_addr *src, const struct gw_addr *dst)
{
	if (src->family == 4)
		hip_checksum_set_ipv4(pkt, len, src->addr, dst->addr);
	else
		hip_checksum_set_ipv6(pkt, len, src->addr, dst->addr);
}

/* The harness checked the packet (valid, from the engine's address and
 * HIT, good checksum); only the structure-aware mode has a wire. */
static bool
on_send(struct hh_side *s, const struct hh_pkt *p)
{
	if (!W.structured || W.w.qn == W.w.cap)
		return false;
	if (s->idx == 1) {
		if (W.nh == HIST_MAX) {
			memmove(&W.hist[0], &W.hist[1], (HIST_MAX - 1) * sizeof(W.hist[0]));
			W.nh--;
		}
		W.hist[W.nh++] = *p;
		if (hh_ptype(p) == HIP_R1) {   /* the responder's HOST_ID, for HIP_MAC_2 */
			struct hip_tlv t;

			if (hip_param_find(p->b, p->len, HIP_PARAM_HOST_ID, &t) == 1 &&
			    t.total <= sizeof(W.host_id)) {
				memcpy(W.host_id, p->b + t.offset, t.total);
				W.host_id_len = t.total;
			}
		}
	}
	return true;
}

static void
harness_fail(const char *msg)
{
	FAIL("%s", msg);
}

static void
side_up(int idx, struct hip_hi *hi, uint8_t mode)
{
	static const uint16_t ciphers[4][3] = {
		{ HIP_CIPHER_AES_128_CBC, HIP_CIPHER_NULL_ENCRYPT },
		{ HIP_CIPHER_NULL_ENCRYPT },
		{ HIP_CIPHER_AES_256_CBC },
		{ HIP_CIPHER_AES_256_CBC, HIP_CIPHER_AES_128_CBC, HIP_CIPHER_NULL_ENCRYPT },
	};
	static const unsigned n_ciphers[4] = { 2, 1, 1, 3 };
	unsigned cs = (mode >> MODE_CIPH_SHIFT) & 3;
	struct hh_params p = {
		.k = 2,
		.esp = { HIP_ESP_AES_GCM16, HIP_ESP_AES128_CBC_SHA256, HIP_ESP_NULL_SHA256 }, .ne = 3,
		.groups = { HIP_DH_GROUP_NIST_P256, HIP_DH_GROUP_NIST_P384 },
		.ng = (mode & MODE_TWO_GROUPS) ? 2 : 1,
		.nc = n_ciphers[cs],
		.life = 20000 * NS_MS,
		.v6 = (mode & MODE_IPV6) != 0,
		.det = true,
		.udp = true,
	};

	memcpy(p.ciph, ciphers[cs], sizeof(ciphers[cs]));
	hh_side_up(&W.w, idx, hi, &p);
}

/* ---- raw mode input recording (HIPGW_FUZZ_WRITE_RAW) ---- */

static void
raw_record(const uint8_t *pkt, size_t len)
{
	uint64_t dt = (W.w.now - W.raw_last) / (10 * NS_MS);
	uint8_t hdr[3] = { (uint8_t)(len >> 8), (uint8_t)len, 0 };

	if (W.raw_out == NULL)
		return;
	/* the step goes with the previous record: time before this packet */
	while (dt > 0x7f) {
		static const uint8_t nothing[3] = { 0, 0, 0x7f };

		fwrite(nothing, 1, 3, W.raw_out);
		dt -= 0x7f;
	}
	if (dt > 0) {
		uint8_t wait[3] = { 0, 0, (uint8_t)dt };

		fwrite(wait, 1, 3, W.raw_out);
	}
	fwrite(hdr, 1, 3, W.raw_out);
	fwrite(pkt, 1, len, W.raw_out);
	W.raw_last = W.w.now;
}

/* ---- the input ---- */

struct in {
	const uint8_t *d;
	size_t n, off;
};

static bool
in_more(const struct in *in)
{
	return in->off < in->n;
}

static uint8_t
in_u8(struct in *in)
{
	return in->off < in->n ? in->d[in->off++] : 0;
}

static uint16_t
in_u16(struct in *in)
{
	uint16_t hi = in_u8(in);

	return (uint16_t)((hi << 8) | in_u8(in));
}

/* ---- parameter-level mutation and fix-up of a packet from E1 ---- */

struct param {
	uint16_t type;
	uint16_t len;
	uint8_t v[HIP_PACKET_MAX];
};

static struct param P[MAX_PARAMS];
static unsigned NP;

/* Split pkt into its parameters; returns false when they do not iterate. */
static bool
split(const uint8_t *pkt, size_t len)
{
	struct hip_tlv_iter it;
	struct hip_tlv t;
	int rc;

	NP = 0;
	hip_tlv_iter_init(&it, pkt, len, 0);
	while ((rc = hip_tlv_next(&it, &t)) == 1) {
		if (NP == MAX_PARAMS)
			return false;
		P[NP].type = t.type;
		P[NP].len = t.len;
		memcpy(P[NP].v, t.value, t.len);
		NP++;
	}
	return rc == 0;
}

static void
param_insert(unsigned at, const struct param *p)
{
	if (NP == MAX_PARAMS || at > NP)
		return;
	memmove(&P[at + 1], &P[at], (NP - at) * sizeof(P[0]));
	P[at] = *p;
	NP++;
}

static void
param_remove(unsigned at)
{
	if (at >= NP)
		return;
	memmove(&P[at], &P[at + 1], (NP - at - 1) * sizeof(P[0]));
	NP--;
}

/* Parameter types a mutation draws from: what the engine reads, a few it does
 * not know (critical and not), and the unsigned ones. */
static const uint16_t some_types[] = {
	HIP_PARAM_ESP_INFO, HIP_PARAM_R1_COUNTER, HIP_PARAM_LOCATOR_SET, HIP_PARAM_PUZZLE,
	HIP_PARAM_SOLUTION, HIP_PARAM_SEQ, HIP_PARAM_ACK, HIP_PARAM_DH_GROUP_LIST,
	HIP_PARAM_DIFFIE_HELLMAN, HIP_PARAM_HIP_CIPHER, HIP_PARAM_ENCRYPTED, HIP_PARAM_HOST_ID,
	HIP_PARAM_HIT_SUITE_LIST, HIP_PARAM_CERT, HIP_PARAM_NOTIFICATION,
	HIP_PARAM_ECHO_REQUEST_SIGNED, HIP_PARAM_ECHO_RESPONSE_SIGNED,
	HIP_PARAM_TRANSPORT_FORMAT_LIST, HIP_PARAM_ESP_TRANSFORM, HIP_PARAM_ECHO_RESPONSE_UNSIGNED,
	HIP_PARAM_ECHO_REQUEST_UNSIGNED, 1001, 1002, 4097, 60000, 63999,
};

/* Apply one mutation read from the input to P[]. Returns true when the
 * parameter order may have been broken on purpose (no sort afterwards). */
static bool
mutate_one(struct in *in, uint8_t *hdr)
{
	uint8_t op = in_u8(in);
	unsigned at = NP != 0 ? in_u8(in) % NP : 0;
	struct param np;

	switch (op % 9) {
	case 0:   /* drop */
		param_remove(at);
		return false;
	case 1:   /* duplicate */
		if (NP != 0)
			param_insert(at + 1, &P[at]);
		return (op & 0x80) != 0;
	case 2:   /* swap with the next one: out of order */
		if (at + 1 < NP) {
			np = P[at];
			P[at] = P[at + 1];
			P[at + 1] = np;
		}
		return true;
	case 3: { /* change value bytes */
		unsigned n = 1 + in_u8(in) % 4;

		for (unsigned x = 0; x < n && NP != 0 && P[at].len != 0; x++) {
			unsigned o = in_u16(in) % P[at].len;

			P[at].v[o] ^= in_u8(in) | 1;
		}
		return false;
	}
	case 4: { /* change the length: cut, or extend with input bytes */
		uint16_t nl = in_u16(in) % 1200;

		if (NP == 0)
			return false;
		for (unsigned x = P[at].len; x < nl; x++)
			P[at].v[x] = in_u8(in);
		P[at].len = nl;
		return false;
	}
	case 5: { /* a parameter of some type with input bytes */
		np.type = (op & 0x80) ? in_u16(in) : some_types[in_u8(in) % (sizeof(some_types) / sizeof(some_types[0]))];
		np.len = in_u8(in);
		for (unsigned x = 0; x < np.len; x++)
			np.v[x] = in_u8(in);
		param_insert(NP, &np);
		return false;
	}
	case 6: { /* replace the contents of one */
		if (NP == 0)
			return false;
		P[at].len = in_u8(in);
		for (unsigned x = 0; x < P[at].len; x++)
			P[at].v[x] = in_u8(in);
		return false;
	}
	case 7: { /* another Host Identity in HOST_ID */
		static struct hip_hi *const ks[] = { &k_p256, &k_p384, &k_p384b, &k_rsa };
		const struct hip_hi *k = ks[in_u8(in) % 4];

		for (unsigned x = 0; x < NP; x++) {
			if (P[x].type != HIP_PARAM_HOST_ID)
				continue;
			hip_put16(P[x].v, k->hi_len);
			hip_put16(P[x].v + 2, 0);
			hip_put16(P[x].v + 4, k->algo);
			memcpy(P[x].v + 6, k->hi, k->hi_len);
			P[x].len = (uint16_t)(6 + k->hi_len);
		}
		return false;
	}
	default:  /* header: controls, packet type, receiver HIT */
		switch (in_u8(in) % 3) {
		case 0: hdr[6] ^= in_u8(in); hdr[7] ^= in_u8(in); break;
		case 1: hdr[2] = (uint8_t)(in_u8(in) & 0x7f); break;
		default: hdr[24 + in_u8(in) % 16] ^= in_u8(in) | 1; break;
		}
		return false;
	}
}

static int
param_cmp(const void *a, const void *b)
{
	const struct param *x = a, *y = b;

	return (int)x->type - (int)y->type;
}

/* Cover of HIP_MAC / _2 and HIP_SIGNATURE / _2 (RFC 7401 6.4.1, 6.4.2),
 * written again here from the RFC rather than taken from lib/hip: the
 * packet so far with Checksum 0 and Header Length at its end; HIP_MAC_2 with
 * the responder's HOST_ID inserted in type order; HIP_SIGNATURE_2 with the
 * Receiver's HIT, the PUZZLE's Opaque and #I zero. */
static size_t
cover(const uint8_t *pkt, size_t upto, uint16_t type, const uint8_t *host_id, size_t hl,
      uint8_t *out)
{
	size_t n = upto;

	memcpy(out, pkt, upto);
	if (type == HIP_PARAM_HIP_MAC_2 && hl != 0) {
		size_t ins = upto, off = HIP_HDR_LEN;

		while (off + 4 <= upto) {
			uint16_t t = hip_get16(pkt + off);

			if (t > HIP_PARAM_HOST_ID) {
				ins = off;
				break;
			}
			off += hip_tlv_total(hip_get16(pkt + off + 2));
		}
		memcpy(out + ins, host_id, hl);
		memcpy(out + ins + hl, pkt + ins, upto - ins);
		n += hl;
	}
	out[4] = out[5] = 0;
	out[1] = (uint8_t)(n / 8 - 1);
	if (type == HIP_PARAM_HIP_SIGNATURE_2) {
		size_t off = HIP_HDR_LEN;

		memset(out + 24, 0, HIP_HIT_LEN);
		while (off + 4 <= n) {
			uint16_t t = hip_get16(out + off), l = hip_get16(out + off + 2);

			if (t == HIP_PARAM_PUZZLE && l >= 4 && off + 4 + l <= n)
				memset(out + off + 4 + 2, 0, (size_t)l - 2);
			off += hip_tlv_total(l);
		}
	}
	return n;
}

/* Write P[] after the header hdr into pkt (HIP_MAC / _2 and HIP_SIGNATURE /
 * _2 computed again when `fix`); returns the length, 0 when it does not fit. */
static size_t
rebuild(uint8_t *pkt, const uint8_t *hdr, bool fix)
{
	struct hh_side *e1 = &W.w.s[1], *e0 = &W.w.s[0];
	struct hip_peer_info pi;
	struct hip_keys k;
	uint8_t scratch[2 * HIP_PACKET_MAX];
	size_t len = HIP_HDR_LEN;
	bool keys = false;

	memcpy(pkt, hdr, HIP_HDR_LEN);
	memset(&k, 0, sizeof(k));
	if (fix && hip_host_peer_info(e1->h, e0, &pi) == 0 && e1->keymat_len != 0) {
		uint8_t suite = (pi.initiator ? e0->hi : e1->hi)->suite;

		keys = hip_keys_draw(e1->keymat, e1->keymat_len, suite, pi.hip_cipher, 0, 0, &k) == 0;
	}
	for (unsigned x = 0; x < NP; x++) {
		struct param *p = &P[x];
		size_t total = hip_tlv_total(p->len);
		uint8_t suite = 0;

		if (len + total > HIP_PACKET_MAX)
			return 0;
		if (fix && keys && (p->type == HIP_PARAM_HIP_MAC || p->type == HIP_PARAM_HIP_MAC_2)) {
			size_t n, ml = 0;

			hip_host_peer_info(e1->h, e0, &pi);
			suite = (pi.initiator ? e0->hi : e1->hi)->suite;
			n = cover(pkt, len, p->type, W.host_id, W.host_id_len, scratch);
			if (hip_mac_compute(suite, k.hip_int[hip_dir_out(e1->hi->hit, e0->hi->hit)].b,
					    k.hip_int[hip_dir_out(e1->hi->hit, e0->hi->hit)].len, scratch, n,
					    p->v, sizeof(p->v), &ml) == 0)
				p->len = (uint16_t)ml;
			total = hip_tlv_total(p->len);
		} else if (fix && (p->type == HIP_PARAM_HIP_SIGNATURE || p->type == HIP_PARAM_HIP_SIGNATURE_2)) {
			size_t n = cover(pkt, len, p->type, NULL, 0, scratch), sl = 0;

			if (hip_sig_sign(e1->hi, scratch, n, p->v + 2, sizeof(p->v) - 2, &sl) == 0) {
				hip_put16(p->v, e1->hi->algo);
				p->len = (uint16_t)(2 + sl);
			}
			total = hip_tlv_total(p->len);
		}
		if (len + total > HIP_PACKET_MAX)
			return 0;
		hip_put16(pkt + len, p->type);
		hip_put16(pkt + len + 2, p->len);
		memcpy(pkt + len + 4, p->v, p->len);
		memset(pkt + len + 4 + p->len, 0, total - 4 - p->len);
		len += total;
	}
	hip_keys_wipe(&k);
	hip_hdr_set_len(pkt, len);
	return len;
}

/* Mutate the packet w (from E1) with the input's mutation list, then fix it. */
static void
mutate(struct hh_pkt *w, struct in *in)
{
	uint8_t hdr[HIP_HDR_LEN], spec = in_u8(in);
	unsigned n = 1 + (spec & 3);
	bool keep_order = false, fix = (spec & 0x04) == 0;
	size_t len;

	if (w->len < HIP_HDR_LEN || !split(w->b, w->len))
		return;
	memcpy(hdr, w->b, HIP_HDR_LEN);
	for (unsigned x = 0; x < n; x++)
		keep_order |= mutate_one(in, hdr);
	if (!keep_order)
		qsort(P, NP, sizeof(P[0]), param_cmp);
	len = rebuild(w->b, hdr, fix);
	if (len != 0)
		w->len = len;
}

/* ---- delivering ---- */

static void
deliver(struct hh_pkt *w)
{
	struct hh_side *from = &W.w.s[w->from], *to = &W.w.s[1 - w->from];

	if (to->h == NULL)
		return;
	if (w->udp.rport != 0) {   /* over UDP (RFC 5770): the receiver's port first */
		struct hip_udp u = { .lport = w->udp.rport, .rport = w->udp.lport };

		hip_host_input_udp(to->h, &from->addr, &to->addr, &u, w->b, w->len, W.w.now);
		return;
	}
	set_checksum(w->b, w->len, &from->addr, &to->addr);
	if (to->idx == 0)
		raw_record(w->b, w->len);
	hip_host_input(to->h, &from->addr, &to->addr, w->b, w->len, W.w.now);
}

/* Take the first packet off the wire into *w; false when there is none. */
static bool
take(struct hh_pkt *w)
{
	return hh_take(&W.w, 0, w);
}

/* Side `who` moves (RFC 8046): to its address 1..3 (192.0.2.(who + 1 + 16 n)
 * or 2001:db8::...), the old one still receiving or not (op bit 7), and
 * announces one or two locators, with a rekey or not (the next byte). */
static void
move(struct in *in, int who, uint8_t op)
{
	uint8_t b = in_u8(in);
	struct hh_side *s = &W.w.s[who];
	struct gw_addr to[2];
	unsigned n = (b & 2) ? 2 : 1;

	hh_addr(&to[0], s->addr.family == 6, who + 16 * (1 + ((b >> 2) & 3) % 3));
	hh_addr(&to[1], s->addr.family != 6, who + 16 * 4);   /* of the other family */
	hh_move(&W.w, who, &to[0], (op & 0x80) != 0);
	hip_host_set_locators(s->h, to, n, 0, (b & 1) != 0, W.w.now);
}

/* One step of the input on the wire (structure-aware mode). */
static void
step(struct in *in)
{
	uint8_t op = in_u8(in);
	struct hh_pkt w;

	switch (op & 7) {
	case 0:   /* deliver */
		if (take(&w))
			deliver(&w);
		break;
	case 1:   /* deliver mutated (only E1's packets are mutated) */
		if (take(&w)) {
			if (w.from == 1)
				mutate(&w, in);
			deliver(&w);
		}
		break;
	case 2:   /* lose */
		take(&w);
		break;
	case 3:   /* deliver twice */
		if (take(&w)) {
			struct hh_pkt copy = w;

			deliver(&w);
			deliver(&copy);
		}
		break;
	case 4:   /* an older packet of E1 again, maybe mutated */
		if (W.nh != 0) {
			w = W.hist[in_u8(in) % W.nh];
			if (op & 0x80)
				mutate(&w, in);
			deliver(&w);
		}
		break;
	case 5:   /* time */
		hh_advance(&W.w, (uint64_t)(1 + in_u8(in)) * 20 * NS_MS);
		break;
	case 6:   /* rekey, or a move (RFC 8046), from either side */
		if (op & 0x40)
			move(in, (op >> 3) & 1, op);
		else
			hip_host_rekey(W.w.s[(op >> 3) & 1].h, &W.w.s[1 - ((op >> 3) & 1)], W.w.now);
		break;
	default:  /* close, or a new Base Exchange, from either side */
		if (op & 0x10)
			hip_host_connect(W.w.s[(op >> 3) & 1].h, &W.w.s[1 - ((op >> 3) & 1)], W.w.now);
		else
			hip_host_close_all(W.w.s[(op >> 3) & 1].h, W.w.now);
		break;
	}
}

/* ---- one input ---- */

static void
pick_keys(uint8_t mode, struct hip_hi **mine, struct hip_hi **peer)
{
	static struct hip_hi *const pairs[4][2] = {
		{ &k_p256, &k_p384 }, { &k_rsa, &k_p256 }, { &k_p384, &k_rsa }, { &k_p384, &k_p384b },
	};
	unsigned x = (mode >> MODE_KEYS_SHIFT) & 3;

	*mine = pairs[x][0];
	*peer = pairs[x][1];
}

static void
end_checks(void)
{
	struct hh_side *e0 = &W.w.s[0];

	if (getenv("HIPGW_FUZZ_VERBOSE") != NULL) {
		struct hip_host_stats st;
		struct hip_peer_info pi;

		hip_host_stats(e0->h, &st);
		hip_host_peer_info(e0->h, &W.w.s[1], &pi);
		fprintf(stderr, "E0 %s: rx %lu tx %lu dropped %lu (malformed %lu mac %lu sig %lu state %lu) "
			"bex_ok %lu failed %lu updates %lu closes %lu notify_rx %lu rekeys %lu\n",
			hip_state_name(pi.state), (unsigned long)st.rx, (unsigned long)st.tx,
			(unsigned long)st.dropped, (unsigned long)st.drop_malformed,
			(unsigned long)st.drop_mac, (unsigned long)st.drop_sig, (unsigned long)st.drop_state,
			(unsigned long)st.bex_ok, (unsigned long)st.bex_failed, (unsigned long)st.updates,
			(unsigned long)st.closes, (unsigned long)st.notify_rx, (unsigned long)pi.rekeys);
	}

	/* every inbound SA handed over comes back once */
	hip_host_forget(e0->h, &W.w.s[1], W.w.now);
	if (e0->n_spis != 0)
		FAIL("%u inbound SA(s) of E0 never taken back (first SPI %u)", e0->n_spis, e0->spis[0]);
}

static void
run_raw(struct in *in)
{
	while (in_more(in)) {
		uint16_t len = in_u16(in);
		uint8_t st = in_u8(in);
		bool udp = (len & 0x8000) != 0;
		uint8_t *pkt;

		len &= 0x7fff;
		if (len > in->n - in->off)
			len = (uint16_t)(in->n - in->off);
		if (len != 0) {
			/* an exact heap copy: ASan sees any read past it */
			pkt = malloc(len);
			if (pkt == NULL)
				abort();
			memcpy(pkt, in->d + in->off, len);
			in->off += len;
			if ((st & 0x80) && len >= HIP_HDR_LEN && len % 8 == 0 && len <= HIP_PACKET_MAX)
				set_checksum(pkt, len, &W.w.s[1].addr, &W.w.s[0].addr);
			if (udp) {
				static const struct hip_udp u = { GW_HIP_UDP_PORT, FUZZ_PEER_PORT };

				hip_host_input_udp(W.w.s[0].h, &W.w.s[1].addr, &W.w.s[0].addr, &u, pkt,
						   len, W.w.now);
			} else {
				hip_host_input(W.w.s[0].h, &W.w.s[1].addr, &W.w.s[0].addr, pkt, len,
					       W.w.now);
			}
			free(pkt);
		}
		hh_advance(&W.w, (uint64_t)(st & 0x7f) * 10 * NS_MS);
	}
}

static void
run_structured(struct in *in)
{
	unsigned n = 0;

	while (in_more(in) && n++ < MAX_STEPS)
		step(in);
	for (unsigned x = 0; x < DRAIN_STEPS; x++) {
		struct hh_pkt w;

		while (take(&w))
			deliver(&w);
		hh_advance(&W.w, 10 * NS_MS);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { .d = data, .n = size, .off = 1 };
	struct hip_hi *mine, *peer;
	const char *raw_dir = getenv("HIPGW_FUZZ_WRITE_RAW");
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	memset(&W, 0, sizeof(W));
	hh_world_init(&W.w, &(struct hh_hooks){ .send = on_send }, harness_fail);
	W.w.cap = WIRE_MAX;
	W.raw_last = W.w.now;
	W.structured = (mode & MODE_STRUCT) != 0;
	pick_keys(mode, &mine, &peer);
	side_up(0, mine, mode);
	if (W.structured) {
		side_up(1, peer, mode);
		hh_know(&W.w, 1, 0);
	} else {
		hh_side_hand(&W.w, 1, peer, (mode & MODE_IPV6) != 0);   /* only its address and HIT */
	}
	hh_know(&W.w, 0, 1);
	if (W.structured && raw_dir != NULL) {
		char path[600];

		snprintf(path, sizeof(path), "%s/raw-%02x-%zu", raw_dir, mode, size);
		W.raw_out = fopen(path, "wb");
		if (W.raw_out != NULL)
			fputc(mode & ~MODE_STRUCT, W.raw_out);
	}
	hip_host_tick(W.w.s[0].h, W.w.now);
	if (W.w.s[1].h != NULL)
		hip_host_tick(W.w.s[1].h, W.w.now);
	if (size & 1) {   /* both over UDP from the first I1 (RFC 5770) */
		hip_host_set_peer_nat(W.w.s[0].h, &W.w.s[1], HIP_NAT_FORCE, 15000 * NS_MS);
		if (W.w.s[1].h != NULL)
			hip_host_set_peer_nat(W.w.s[1].h, &W.w.s[0], HIP_NAT_FORCE, 15000 * NS_MS);
	}
	if (mode & MODE_INITIATOR)
		hip_host_connect(W.w.s[0].h, &W.w.s[1], W.w.now);
	else if (W.structured)
		hip_host_connect(W.w.s[1].h, &W.w.s[0], W.w.now);
	if (W.structured)
		run_structured(&in);
	else
		run_raw(&in);
	end_checks();
	if (W.raw_out != NULL)
		fclose(W.raw_out);
	hh_down(&W.w);
	memset(&W, 0, sizeof(W));
	return 0;
}
