/* SPDX-License-Identifier: BSD-3-Clause
 * gen_vectors: HIPv2 Base Exchange test vectors (tests/vectors/bex-*.json).
 *
 * Two lib/hip engines, wired back to back in memory (the harness of
 * tests/lib/hip_harness.h), run one complete Base Exchange (I1, R1, I2, R2)
 * per HI / DH group / ESP transform combination, with fixed Host Identity
 * keys and the engine's deterministic RNG (struct hip_host_cfg.rng: test
 * vectors only). Every packet is captured as sent, and
 * every derived value is written out: HITs, puzzle I / K / J, DH private and
 * public values, Kij, KEYMAT, the HIP keys, the ESP keys and SPIs of each
 * direction, the ENCRYPTED IV and plaintext, MACs and signatures.
 *
 * The engine reports Kij, KEYMAT and the puzzle values through its vector hook;
 * this generator does not take them on trust: it recovers each side's DH
 * private value from the RNG output (the draw whose public value is the one
 * in R1 / I2), recomputes both Kij with lib/hipcrypto, KEYMAT, the key
 * drawing, the puzzle check and the ENCRYPTED decryption, and cross-checks
 * them against the engine's reports and the ESP keys and SPIs it handed to
 * sa_up on both sides. Any disagreement is an error (exit 1).
 *
 *   gen_vectors --write SRCROOT   rewrite SRCROOT/tests/vectors/bex-*.json
 *   gen_vectors --check SRCROOT   regenerate and compare with the committed
 *                                 files byte for byte (the meson test)
 *
 * Test use only; never installed.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hip_harness.h"
#include "hip_host.h"
#include "hip_packet.h"
#include "hip_param.h"
#include "hip_dh.h"
#include "hip_hi.h"
#include "hip_hit.h"
#include "hip_keymat.h"
#include "hip_puzzle.h"

#define MS (1000ull * 1000)

/* ------------------------------------------------------------- the set */

struct vec_def {
	const char *name;          /* file: bex-<name>.json */
	const char *hi_name;       /* "ECDSA P-256", ... */
	const char *key_i, *key_r; /* relative to the source root */
	uint8_t group;
	uint16_t esp;
};

#define K_P256   "tests/data/hip/keys/ecdsa-p256.pem"
#define K_P256B  "tests/vectors/keys/ecdsa-p256-b.pem"
#define K_P384   "tests/data/hip/keys/ecdsa-p384.pem"
#define K_P384B  "tests/data/hip/keys/ecdsa-p384-b.pem"
#define K_RSA    "tests/data/hip/keys/rsa3072.pem"
#define K_RSAB   "tests/vectors/keys/rsa3072-b.pem"

/* Initiators alternate between the greater and the lower HIT, so that both
 * key directions (gl / lg, RFC 7401 6.5) occur on each side. */
static const struct vec_def VECS[] = {
	{ "ecdsa-p256-nist-p256-aes-gcm16", "ECDSA P-256", K_P256, K_P256B, HIP_DH_NIST_P256,
	  HIP_ESP_AES_GCM16 },
	{ "ecdsa-p384-nist-p384-aes-gcm16", "ECDSA P-384", K_P384, K_P384B, HIP_DH_NIST_P384,
	  HIP_ESP_AES_GCM16 },
	{ "ecdsa-p384-modp3072-aes-gcm16", "ECDSA P-384", K_P384B, K_P384, HIP_DH_MODP3072,
	  HIP_ESP_AES_GCM16 },
	{ "rsa3072-modp3072-aes-gcm16", "RSA-3072", K_RSAB, K_RSA, HIP_DH_MODP3072,
	  HIP_ESP_AES_GCM16 },
	{ "ecdsa-p384-modp3072-aes128-cbc-sha256", "ECDSA P-384", K_P384B, K_P384, HIP_DH_MODP3072,
	  HIP_ESP_AES128_CBC_SHA256 },
	/* the other HI/DH pairs, so that every pair we support has one */
	{ "ecdsa-p256-nist-p384-aes-gcm16", "ECDSA P-256", K_P256B, K_P256, HIP_DH_NIST_P384,
	  HIP_ESP_AES_GCM16 },
	{ "ecdsa-p256-modp3072-aes-gcm16", "ECDSA P-256", K_P256, K_P256B, HIP_DH_MODP3072,
	  HIP_ESP_AES_GCM16 },
	{ "ecdsa-p384-nist-p256-aes-gcm16", "ECDSA P-384", K_P384B, K_P384, HIP_DH_NIST_P256,
	  HIP_ESP_AES_GCM16 },
	{ "rsa3072-nist-p256-aes-gcm16", "RSA-3072", K_RSA, K_RSAB, HIP_DH_NIST_P256,
	  HIP_ESP_AES_GCM16 },
	{ "rsa3072-nist-p384-aes-gcm16", "RSA-3072", K_RSAB, K_RSA, HIP_DH_NIST_P384,
	  HIP_ESP_AES_GCM16 },
};
#define NVECS (sizeof(VECS) / sizeof(VECS[0]))

#define PUZZLE_K 10
static const uint8_t ALL_GROUPS[] = { HIP_DH_NIST_P256, HIP_DH_NIST_P384, HIP_DH_MODP3072 };
static const uint16_t ALL_ESP[] = { HIP_ESP_AES_GCM16, HIP_ESP_AES256_CBC_SHA256,
				    HIP_ESP_AES128_CBC_SHA256 };
static const uint16_t CIPHERS[] = { HIP_CIPHER_AES128_CBC, HIP_CIPHER_AES256_CBC, HIP_CIPHER_NULL };

static const char *
group_name(uint8_t g)
{
	switch (g) {
	case HIP_DH_NIST_P256: return "NIST P-256";
	case HIP_DH_NIST_P384: return "NIST P-384";
	case HIP_DH_MODP3072: return "3072-bit MODP (RFC 3526 group 15)";
	default: return "?";
	}
}

static const char *
esp_name(uint16_t e)
{
	switch (e) {
	case HIP_ESP_AES_GCM16: return "AES-128-GCM with a 16-octet ICV (enc key = 16-byte AES key | 4-byte salt, RFC 4106)";
	case HIP_ESP_AES128_CBC_SHA256: return "AES-128-CBC with HMAC-SHA-256-128 (RFC 4868)";
	case HIP_ESP_AES256_CBC_SHA256: return "AES-256-CBC with HMAC-SHA-256-128 (RFC 4868)";
	default: return "?";
	}
}

/* ------------------------------------------------------------ failures */

static const char *cur_vec = "";

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gen_vectors: %s: ", cur_vec);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

#define CHECK(c) do { if (!(c)) die("check failed: %s (line %d)", #c, __LINE__); } while (0)

/* ---------------------------------------------------------------- RNG
 * The fixed randomness: SHA-256(seed | counter as 8 bytes big-endian), counter
 * from 0, blocks concatenated, consumed in the order the engine asks. Every
 * request is logged, so that the DH private values can be found again. */

#define MAX_DRAWS 64

struct draw {
	size_t len;
	uint8_t b[64];
};

struct rng {
	char seed[160];
	uint64_t counter;
	uint8_t block[32];
	size_t used;                /* bytes of block consumed */
	struct draw draws[MAX_DRAWS];
	unsigned n_draws;
};

static void
rng_init(struct rng *r, const char *seed)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->seed, sizeof(r->seed), "%s", seed);
	r->used = sizeof(r->block);
}

static int
rng_cb(void *ctx, uint8_t *buf, size_t len)
{
	struct rng *r = ctx;

	for (size_t x = 0; x < len; x++) {
		if (r->used == sizeof(r->block)) {
			uint8_t in[sizeof(r->seed) + 8];
			size_t sl = strlen(r->seed);
			unsigned int ol = 0;

			memcpy(in, r->seed, sl);
			for (int y = 0; y < 8; y++)
				in[sl + (size_t)y] = (uint8_t)(r->counter >> (56 - 8 * y));
			if (EVP_Digest(in, sl + 8, r->block, &ol, EVP_sha256(), NULL) != 1)
				return -1;
			r->counter++;
			r->used = 0;
		}
		buf[x] = r->block[r->used++];
	}
	if (r->n_draws < MAX_DRAWS) {
		struct draw *d = &r->draws[r->n_draws++];

		d->len = len;
		memcpy(d->b, buf, len < sizeof(d->b) ? len : sizeof(d->b));
	}
	return 0;
}

/* ------------------------------------------------------------- harness
 * Two engines on the shared harness (tests/lib/hip_harness.h); what a side
 * has here beyond the harness's record: its key and its RNG. */

#define MAXPKT 16

struct vside {
	struct hip_hi hi;
	char key_path[256];
	char *pem;
	struct rng rng;
};

static struct hh_world W;
static struct hh_side *const S = W.s;
static struct vside V[2];
static struct hh_pkt wire[MAXPKT];   /* every packet, in send order */
static unsigned n_wire;

static bool
on_send(struct hh_side *s, const struct hh_pkt *p)
{
	(void)s;
	if (n_wire == MAXPKT || p->len > HIP_PACKET_MAX)
		die("too many or too long packets");
	CHECK(p->to >= 0);
	wire[n_wire++] = *p;
	return true;
}

static void
on_sa_up(struct hh_side *s, void *peer_user, const struct hip_sa_keys *out,
	 const struct hip_sa_keys *in, uint32_t old_in_spi)
{
	(void)out;
	(void)in;
	CHECK(peer_user == &S[1 - s->idx]);
	CHECK(old_in_spi == 0);
}

/* a Base Exchange reports these four values only */
static void
on_vector(struct hh_side *s, const char *name, const uint8_t *v, size_t len)
{
	(void)s;
	(void)v;
	(void)len;
	if (strcmp(name, "kij") != 0 && strcmp(name, "keymat") != 0 &&
	    strcmp(name, "puzzle_i") != 0 && strcmp(name, "puzzle_j") != 0)
		die("unexpected vector value %s", name);
}

static void
harness_fail(const char *msg)
{
	die("%s", msg);
}

static void
side_up(const struct vec_def *v, int idx, const char *root)
{
	struct vside *vs = &V[idx];
	struct hh_params p = { .k = PUZZLE_K, .no_in_up = true, .rng = rng_cb, .rng_ctx = &vs->rng };
	char path[1024], seed[160], err[256] = "";
	const char *rel = idx == 0 ? v->key_i : v->key_r;

	memset(vs, 0, sizeof(*vs));
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(vs->key_path, sizeof(vs->key_path), "%s", rel);
	if (hh_key_load(path, &vs->hi, &vs->pem, NULL, err, sizeof(err)) != 0)
		die("%s", err);
	/* documentation addresses (RFC 5737), IPv4 outer */
	p.first_spi = idx == 0 ? 0x11110001u : 0x22220001u;
	snprintf(seed, sizeof(seed), "hipgw test vector bex-%s %s", v->name,
		 idx == 0 ? "initiator" : "responder");
	rng_init(&vs->rng, seed);
	/* the vector's group and transform first, then the others: both ends
	 * offer lists, the choices are the first of each */
	p.groups[p.ng++] = v->group;
	for (unsigned x = 0; x < sizeof(ALL_GROUPS); x++)
		if (ALL_GROUPS[x] != v->group)
			p.groups[p.ng++] = ALL_GROUPS[x];
	p.esp[p.ne++] = v->esp;
	for (unsigned x = 0; x < sizeof(ALL_ESP) / sizeof(ALL_ESP[0]); x++)
		if (ALL_ESP[x] != v->esp)
			p.esp[p.ne++] = ALL_ESP[x];
	memcpy(p.ciph, CIPHERS, sizeof(CIPHERS));
	p.nc = sizeof(CIPHERS) / sizeof(CIPHERS[0]);
	hh_side_up(&W, idx, &vs->hi, &p);
}

static void
sides_down(void)
{
	hh_down(&W);
	for (int x = 0; x < 2; x++) {
		hip_hi_free(&V[x].hi);
		free(V[x].pem);
		OPENSSL_cleanse(&V[x], sizeof(V[x]));
	}
}

/* ------------------------------------------------------- packet access */

static const struct hh_pkt *
pkt_of_type(uint8_t type)
{
	const struct hh_pkt *found = NULL;

	for (unsigned x = 0; x < n_wire; x++) {
		if ((wire[x].b[HIP_OFF_PACKET_TYPE] & 0x7f) == type) {
			if (found != NULL)
				die("two packets of type %u", type);
			found = &wire[x];
		}
	}
	if (found == NULL)
		die("no packet of type %u", type);
	return found;
}

static struct hip_tlv
param(const struct hh_pkt *p, uint16_t type)
{
	struct hip_tlv t;

	if (hip_param_find(p->b, p->len, type, &t) != 1)
		die("packet type %u has no parameter %u", p->b[2] & 0x7f, type);
	return t;
}

/* ---------------------------------------------------------------- JSON */

struct json {
	FILE *f;
	int depth;
	bool first[16];
};

static void
j_sep(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key != NULL)
		fprintf(j->f, "\"%s\": ", key);
}

static void
j_open(struct json *j, const char *key, char c)
{
	if (j->depth > 0 || key != NULL)
		j_sep(j, key);
	fputc(c, j->f);
	j->first[++j->depth] = true;
}

static void
j_close(struct json *j, char c)
{
	j->depth--;
	fprintf(j->f, "\n%*s%c", 2 * j->depth, "", c);
}

static void
j_str(struct json *j, const char *key, const char *s)
{
	j_sep(j, key);
	fputc('"', j->f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(j->f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", j->f);
		else if ((unsigned char)*s < 0x20)
			fprintf(j->f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, j->f);
	}
	fputc('"', j->f);
}

static void
j_int(struct json *j, const char *key, long long v)
{
	j_sep(j, key);
	fprintf(j->f, "%lld", v);
}

static void
j_bool(struct json *j, const char *key, bool v)
{
	j_sep(j, key);
	fputs(v ? "true" : "false", j->f);
}

static void
j_hex(struct json *j, const char *key, const uint8_t *b, size_t n)
{
	j_sep(j, key);
	fputc('"', j->f);
	for (size_t x = 0; x < n; x++)
		fprintf(j->f, "%02x", b[x]);
	fputc('"', j->f);
}

static void
j_hit(struct json *j, const char *key, const uint8_t hit[HIP_HIT_LEN])
{
	char s[HIP_HIT_STRLEN];

	CHECK(hip_hit_to_str(hit, s, sizeof(s)) == 0);
	j_str(j, key, s);
}

static void
j_spi(struct json *j, const char *key, uint32_t spi)
{
	char s[16];

	snprintf(s, sizeof(s), "0x%08x", spi);
	j_str(j, key, s);
}

/* --------------------------------------------------------------- checks */

/* The DH private value the engine drew from the RNG (hip_rand.c: a 32-byte
 * value, 48 for P-384, top bit cleared and bit 1 set), found as the draw whose
 * public value is `pub`. */
static size_t
find_dh_private(const struct rng *r, uint8_t group, const uint8_t *pub, size_t pub_len,
		uint8_t *priv)
{
	size_t pl = group == HIP_DH_NIST_P384 ? 48 : 32;

	for (unsigned x = 0; x < r->n_draws; x++) {
		uint8_t cand[48], cpub[HIP_DH_PUB_MAX];
		struct hip_dh dh = { 0 };
		size_t cl = 0;
		bool hit;

		if (r->draws[x].len != pl)
			continue;
		memcpy(cand, r->draws[x].b, pl);
		cand[0] &= 0x7f;
		cand[pl - 1] |= 0x02;
		if (hip_dh_from_private(group, cand, pl, &dh) != 0)
			continue;
		hit = hip_dh_public(&dh, cpub, sizeof(cpub), &cl) == 0 && cl == pub_len &&
		      memcmp(cpub, pub, pub_len) == 0;
		hip_dh_free(&dh);
		if (hit) {
			memcpy(priv, cand, pl);
			return pl;
		}
	}
	die("no RNG draw gives the DH public value of group %u", group);
}

static size_t
derive_kij(uint8_t group, const uint8_t *priv, size_t pl, const uint8_t *peer, size_t peer_len,
	   uint8_t *kij)
{
	struct hip_dh dh = { 0 };
	size_t kl = 0;

	CHECK(hip_dh_from_private(group, priv, pl, &dh) == 0);
	CHECK(hip_dh_derive(&dh, peer, peer_len, kij, HIP_DH_SECRET_MAX, &kl) == 0);
	hip_dh_free(&dh);
	return kl;
}

static void
check_sa(const struct hip_sa_keys *sa, uint32_t spi, uint16_t esp, const struct hip_key *enc,
	 const struct hip_key *auth)
{
	CHECK(sa->spi == spi);
	CHECK(sa->esp_transform == esp);
	CHECK(sa->enc_key_len == enc->len && memcmp(sa->enc_key, enc->b, enc->len) == 0);
	CHECK(sa->auth_key_len == auth->len && memcmp(sa->auth_key, auth->b, auth->len) == 0);
}

static const char *
pkt_name(const struct hh_pkt *p)
{
	switch (p->b[HIP_OFF_PACKET_TYPE] & 0x7f) {
	case HIP_I1: return "I1";
	case HIP_R1: return "R1";
	case HIP_I2: return "I2";
	case HIP_R2: return "R2";
	default: return "?";
	}
}

static void
j_sig(struct json *j, const char *key, const struct hh_pkt *p, uint16_t type)
{
	struct hip_tlv t = param(p, type);
	struct hip_signature s;

	CHECK(hip_signature_parse(&t, &s) == 0);
	j_open(j, key, '{');
	j_int(j, "type", type);
	j_int(j, "algorithm", s.algorithm);
	j_hex(j, "value", s.sig, s.len);
	j_close(j, '}');
}

static void
j_mac(struct json *j, const char *key, const struct hh_pkt *p, uint16_t type)
{
	struct hip_tlv t = param(p, type);
	struct hip_mac m;

	CHECK(hip_mac_parse(&t, &m) == 0);
	j_open(j, key, '{');
	j_int(j, "type", type);
	j_hex(j, "value", m.hmac, m.len);
	j_close(j, '}');
}

/* ----------------------------------------------------- one exchange */

static char *
run_vector(const struct vec_def *v, const char *root, size_t *out_len)
{
	struct hh_side *I = &S[0], *R = &S[1];
	const struct hh_pkt *i1, *r1, *i2, *r2;
	struct hip_tlv t;
	struct hip_puzzle pz;
	struct hip_solution so;
	struct hip_diffie_hellman dh_r, dh_i;
	struct hip_esp_info ei_i2, ei_r2;
	struct hip_encrypted enc;
	struct hip_r1_counter rc_r1, rc_i2;
	struct hip_keys keys;
	struct hip_peer_info pi;
	uint8_t priv_i[48], priv_r[48], kij_i[HIP_DH_SECRET_MAX], kij_r[HIP_DH_SECRET_MAX];
	uint8_t km[1024], plain[2048];
	size_t pl_i, pl_r, kl_i, kl_r, rl, plain_len = 0;
	uint8_t suite;
	uint16_t cipher = HIP_CIPHER_AES128_CBC;
	int idx;
	long need;
	enum hip_dir dir_i, dir_r;
	struct json j = { 0 };
	char *buf = NULL;

	cur_vec = v->name;
	n_wire = 0;
	hh_reset(&W);
	side_up(v, 0, root);
	side_up(v, 1, root);
	hh_know(&W, 0, 1);
	hh_know(&W, 1, 0);

	/* the exchange: deliver every packet in order, 1 ms apart */
	CHECK(hip_host_connect(I->h, R, W.now) == 0);
	while (W.qn > 0) {
		const char *name = pkt_name(&W.q[0]);
		int to = W.q[0].to, rc;

		W.now += MS;
		rc = hh_deliver_at(&W, 0);
		if (rc != 0)
			die("%s refused by the %s: %s", name, to ? "responder" : "initiator",
			    hip_host_strerror(rc));
	}
	CHECK(n_wire == 4);
	i1 = &wire[0];
	r1 = &wire[1];
	i2 = &wire[2];
	r2 = &wire[3];
	CHECK(pkt_of_type(HIP_I1) == i1 && pkt_of_type(HIP_R1) == r1);
	CHECK(pkt_of_type(HIP_I2) == i2 && pkt_of_type(HIP_R2) == r2);
	CHECK(i1->from == 0 && r1->from == 1 && i2->from == 0 && r2->from == 1);
	for (int x = 0; x < 2; x++) {
		CHECK(hip_host_peer_info(S[x].h, &S[1 - x], &pi) == 0);
		CHECK(pi.state == (x == 0 ? HIP_STATE_ESTABLISHED : HIP_STATE_R2_SENT));
		CHECK(pi.dh_group == v->group && pi.esp_transform == v->esp && pi.hip_cipher == cipher);
		CHECK(S[x].sa_up_n == 1);
	}
	CHECK(R->bex_ok_n == 1);
	for (unsigned x = 0; x < n_wire; x++) {
		struct hip_hdr hh;

		CHECK(hip_packet_validate(wire[x].b, wire[x].len, 0, &hh, NULL) > 0);
		CHECK(hh.pkt_len == wire[x].len);
		CHECK(hip_checksum_verify_ipv4(wire[x].b, wire[x].len, S[wire[x].from].addr.addr,
					       S[wire[x].to].addr.addr) == 0);
	}

	/* the values in the packets */
	suite = R->hi->suite;                       /* RHASH: the responder's suite */
	rl = hip_suite_rhash_len(suite);
	t = param(r1, HIP_PARAM_PUZZLE);
	CHECK(hip_puzzle_parse(&t, rl, &pz) == 0);
	t = param(i2, HIP_PARAM_SOLUTION);
	CHECK(hip_solution_parse(&t, rl, &so) == 0);
	CHECK(so.k == pz.k && memcmp(so.opaque, pz.opaque, 2) == 0 && memcmp(so.i, pz.i, rl) == 0);
	t = param(r1, HIP_PARAM_DIFFIE_HELLMAN);
	CHECK(hip_diffie_hellman_parse(&t, &dh_r) == 0 && dh_r.n == 1 && dh_r.v[0].group_id == v->group);
	t = param(i2, HIP_PARAM_DIFFIE_HELLMAN);
	CHECK(hip_diffie_hellman_parse(&t, &dh_i) == 0 && dh_i.n == 1 && dh_i.v[0].group_id == v->group);
	t = param(i2, HIP_PARAM_ESP_INFO);
	CHECK(hip_esp_info_parse(&t, &ei_i2) == 0);
	t = param(r2, HIP_PARAM_ESP_INFO);
	CHECK(hip_esp_info_parse(&t, &ei_r2) == 0);
	t = param(r1, HIP_PARAM_R1_COUNTER);
	CHECK(hip_r1_counter_parse(&t, &rc_r1) == 0);
	t = param(i2, HIP_PARAM_R1_COUNTER);
	CHECK(hip_r1_counter_parse(&t, &rc_i2) == 0 && rc_i2.generation == rc_r1.generation);
	t = param(i2, HIP_PARAM_ENCRYPTED);
	CHECK(hip_encrypted_parse(&t, 16, &enc) == 0);

	/* puzzle (RFC 7401 6.3) */
	CHECK(pz.k == PUZZLE_K);
	CHECK(hip_puzzle_verify(suite, pz.k, pz.i, rl, I->hi->hit, R->hi->hit, so.j) == 0);
	for (int x = 0; x < 2; x++)
		CHECK(S[x].vi_len == rl && S[x].vj_len == rl && memcmp(S[x].vi, pz.i, rl) == 0 &&
		      memcmp(S[x].vj, so.j, rl) == 0);

	/* Diffie-Hellman: both Kij from the private values, as both ends saw them */
	pl_i = find_dh_private(&V[0].rng, v->group, dh_i.v[0].pub, dh_i.v[0].pub_len, priv_i);
	pl_r = find_dh_private(&V[1].rng, v->group, dh_r.v[0].pub, dh_r.v[0].pub_len, priv_r);
	kl_i = derive_kij(v->group, priv_i, pl_i, dh_r.v[0].pub, dh_r.v[0].pub_len, kij_i);
	kl_r = derive_kij(v->group, priv_r, pl_r, dh_i.v[0].pub, dh_i.v[0].pub_len, kij_r);
	CHECK(kl_i == hip_dh_secret_len(v->group) && kl_i == kl_r && memcmp(kij_i, kij_r, kl_i) == 0);
	for (int x = 0; x < 2; x++)
		CHECK(S[x].kij_len == kl_i && memcmp(S[x].kij, kij_i, kl_i) == 0);

	/* KEYMAT and the keys (RFC 7401 6.5, RFC 7402 7) */
	idx = hip_keymat_esp_index(suite, cipher);
	need = hip_keymat_len_needed(suite, cipher, v->esp, (uint16_t)idx);
	CHECK(idx > 0 && need > 0 && (size_t)need <= sizeof(km));
	CHECK(hip_keymat_derive(suite, kij_i, kl_i, pz.i, so.j, rl, I->hi->hit, R->hi->hit, km,
				(size_t)need) == 0);
	for (int x = 0; x < 2; x++)
		CHECK(S[x].keymat_len == (size_t)need && memcmp(S[x].keymat, km, (size_t)need) == 0);
	CHECK(hip_keys_draw(km, (size_t)need, suite, cipher, v->esp, (uint16_t)idx, &keys) == 0);
	CHECK(ei_i2.keymat_index == idx && ei_r2.keymat_index == idx);
	CHECK(ei_i2.old_spi == 0 && ei_r2.old_spi == 0);
	dir_i = hip_dir_out(I->hi->hit, R->hi->hit);
	dir_r = hip_dir_out(R->hi->hit, I->hi->hit);
	CHECK(dir_i != dir_r);
	/* ESP: I2's NEW SPI is the initiator's inbound SA, R2's the responder's */
	check_sa(&I->out, ei_r2.new_spi, v->esp, &keys.esp_enc[dir_i], &keys.esp_auth[dir_i]);
	check_sa(&I->in, ei_i2.new_spi, v->esp, &keys.esp_enc[dir_r], &keys.esp_auth[dir_r]);
	check_sa(&R->out, ei_i2.new_spi, v->esp, &keys.esp_enc[dir_r], &keys.esp_auth[dir_r]);
	check_sa(&R->in, ei_r2.new_spi, v->esp, &keys.esp_enc[dir_i], &keys.esp_auth[dir_i]);

	/* ENCRYPTED: the initiator's HOST_ID under its outgoing HIP key */
	{
		EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
		int l1 = 0, l2 = 0;
		struct hip_tlv inner;
		struct hip_host_id hid;

		CHECK(c != NULL && enc.data_len % 16 == 0 && enc.data_len <= sizeof(plain));
		CHECK(EVP_DecryptInit_ex(c, EVP_aes_128_cbc(), NULL, keys.hip_enc[dir_i].b, enc.iv) == 1);
		CHECK(EVP_CIPHER_CTX_set_padding(c, 0) == 1);
		CHECK(EVP_DecryptUpdate(c, plain, &l1, enc.data, (int)enc.data_len) == 1);
		CHECK(EVP_DecryptFinal_ex(c, plain + l1, &l2) == 1);
		EVP_CIPHER_CTX_free(c);
		plain_len = (size_t)(l1 + l2);
		CHECK(hip_tlv_parse_one(plain, plain_len, &inner) == 0 && inner.type == HIP_PARAM_HOST_ID);
		CHECK(hip_host_id_parse(&inner, &hid) == 0 && hid.hi_len == I->hi->hi_len &&
		      memcmp(hid.hi, I->hi->hi, hid.hi_len) == 0 && hid.algorithm == I->hi->algo);
	}

	/* ---- write it out */
	j.f = open_memstream(&buf, out_len);
	CHECK(j.f != NULL);
	j.first[0] = true;
	j_open(&j, NULL, '{');
	j_str(&j, "name", v->name);
	j_str(&j, "description",
	      "One complete HIPv2 Base Exchange (RFC 7401) with ESP transforms (RFC 7402), made by "
	      "hipgw's protocol engine (lib/hip) with fixed Host Identity keys and fixed randomness. "
	      "Every value is hex unless said otherwise; packets are the HIP packets from the HIP "
	      "header on, exactly as sent (checksum for the IPv4 addresses given). See "
	      "docs/design.md, section Test vectors.");
	j_str(&j, "generator", "tests/vectors/gen_vectors.c; checked by tests/hip/test_vectors.py");

	j_open(&j, "suites", '{');
	j_str(&j, "hi", v->hi_name);
	j_int(&j, "hi_algorithm", I->hi->algo);
	j_int(&j, "hit_suite", suite);
	j_str(&j, "rhash", suite == HIP_SUITE_ECDSA_SHA384 ? "SHA-384" : "SHA-256");
	j_int(&j, "dh_group", v->group);
	j_str(&j, "dh_group_name", group_name(v->group));
	j_int(&j, "hip_cipher", cipher);
	j_str(&j, "hip_cipher_name", "AES-128-CBC");
	j_int(&j, "esp_transform", v->esp);
	j_str(&j, "esp_transform_name", esp_name(v->esp));
	j_int(&j, "puzzle_k", pz.k);
	j_close(&j, '}');

	j_open(&j, "offered", '{');
	{
		uint8_t g[3];
		uint16_t e[3];
		unsigned n = 0;

		g[n++] = v->group;
		for (unsigned x = 0; x < sizeof(ALL_GROUPS); x++)
			if (ALL_GROUPS[x] != v->group)
				g[n++] = ALL_GROUPS[x];
		j_str(&j, "note", "what both ends offer, in this order: DH_GROUP_LIST of I1 and R1, "
			  "HIP_CIPHER and ESP_TRANSFORM of R1; the choices are the first of each");
		j_open(&j, "dh_groups", '[');
		for (unsigned x = 0; x < n; x++)
			j_int(&j, NULL, g[x]);
		j_close(&j, ']');
		n = 0;
		e[n++] = v->esp;
		for (unsigned x = 0; x < 3; x++)
			if (ALL_ESP[x] != v->esp)
				e[n++] = ALL_ESP[x];
		j_open(&j, "esp_transforms", '[');
		for (unsigned x = 0; x < n; x++)
			j_int(&j, NULL, e[x]);
		j_close(&j, ']');
		j_open(&j, "hip_ciphers", '[');
		for (unsigned x = 0; x < sizeof(CIPHERS) / sizeof(CIPHERS[0]); x++)
			j_int(&j, NULL, CIPHERS[x]);
		j_close(&j, ']');
	}
	j_close(&j, '}');

	for (int x = 0; x < 2; x++) {
		struct hh_side *s = &S[x];
		struct vside *vs = &V[x];
		char addr[32];

		snprintf(addr, sizeof(addr), "%u.%u.%u.%u", s->addr.addr[0], s->addr.addr[1],
			 s->addr.addr[2], s->addr.addr[3]);
		j_open(&j, x == 0 ? "initiator" : "responder", '{');
		j_str(&j, "hi_private_key_file", vs->key_path);
		j_str(&j, "hi_private_key_pem", vs->pem);
		j_hex(&j, "host_identity", s->hi->hi, s->hi->hi_len);
		j_hit(&j, "hit", s->hi->hit);
		j_hex(&j, "hit_hex", s->hi->hit, HIP_HIT_LEN);
		j_str(&j, "address", addr);
		j_str(&j, "rng_seed", vs->rng.seed);
		j_hex(&j, "dh_private", x == 0 ? priv_i : priv_r, x == 0 ? pl_i : pl_r);
		j_hex(&j, "dh_public", x == 0 ? dh_i.v[0].pub : dh_r.v[0].pub,
		      x == 0 ? dh_i.v[0].pub_len : dh_r.v[0].pub_len);
		j_str(&j, "key_direction_out", (x == 0 ? dir_i : dir_r) == HIP_DIR_GL ? "gl" : "lg");
		j_spi(&j, "esp_spi_in", x == 0 ? ei_i2.new_spi : ei_r2.new_spi);
		j_close(&j, '}');
	}
	j_str(&j, "rng",
	      "each side's randomness: SHA-256(rng_seed as ASCII | counter as 8 bytes big-endian), "
	      "counter from 0, the 32-byte blocks concatenated and consumed in the order the "
	      "engine asks (lib/hip/hip_rand.c); ECDSA nonces come from it too. Only hipgw's engine "
	      "reproduces the packets from it; other implementations use the values written here.");
	j_bool(&j, "initiator_hit_greater", hip_hit_cmp(I->hi->hit, R->hi->hit) > 0);

	j_open(&j, "puzzle", '{');
	j_int(&j, "k", pz.k);
	j_int(&j, "lifetime", pz.lifetime);
	j_hex(&j, "opaque", pz.opaque, 2);
	j_hex(&j, "i", pz.i, rl);
	j_hex(&j, "j", so.j, rl);
	j_int(&j, "r1_generation", (long long)rc_r1.generation);
	j_close(&j, '}');

	j_hex(&j, "kij", kij_i, kl_i);
	j_open(&j, "keymat", '{');
	j_int(&j, "length", need);
	j_str(&j, "note", "HKDF(RHASH, salt = I | J, IKM = Kij, info = sort(HIT-I | HIT-R), L = length): "
		  "the bytes the Base Exchange draws (HIP keys, then ESP keys from esp.keymat_index)");
	j_hex(&j, "value", km, (size_t)need);
	j_close(&j, '}');

	j_open(&j, "hip_keys", '{');
	j_hex(&j, "enc_gl", keys.hip_enc[HIP_DIR_GL].b, keys.hip_enc[HIP_DIR_GL].len);
	j_hex(&j, "int_gl", keys.hip_int[HIP_DIR_GL].b, keys.hip_int[HIP_DIR_GL].len);
	j_hex(&j, "enc_lg", keys.hip_enc[HIP_DIR_LG].b, keys.hip_enc[HIP_DIR_LG].len);
	j_hex(&j, "int_lg", keys.hip_int[HIP_DIR_LG].b, keys.hip_int[HIP_DIR_LG].len);
	j_close(&j, '}');

	j_open(&j, "esp", '{');
	j_int(&j, "transform", v->esp);
	j_int(&j, "keymat_index", idx);
	j_open(&j, "initiator_to_responder", '{');
	j_str(&j, "direction", dir_i == HIP_DIR_GL ? "gl" : "lg");
	j_spi(&j, "spi", ei_r2.new_spi);
	j_hex(&j, "enc_key", keys.esp_enc[dir_i].b, keys.esp_enc[dir_i].len);
	j_hex(&j, "auth_key", keys.esp_auth[dir_i].b, keys.esp_auth[dir_i].len);
	j_close(&j, '}');
	j_open(&j, "responder_to_initiator", '{');
	j_str(&j, "direction", dir_r == HIP_DIR_GL ? "gl" : "lg");
	j_spi(&j, "spi", ei_i2.new_spi);
	j_hex(&j, "enc_key", keys.esp_enc[dir_r].b, keys.esp_enc[dir_r].len);
	j_hex(&j, "auth_key", keys.esp_auth[dir_r].b, keys.esp_auth[dir_r].len);
	j_close(&j, '}');
	j_close(&j, '}');

	j_open(&j, "i2_encrypted", '{');
	j_hex(&j, "iv", enc.iv, enc.iv_len);
	j_hex(&j, "plaintext", plain, plain_len);
	j_str(&j, "note", "AES-128-CBC with the initiator's outgoing HIP encryption key; the "
		  "plaintext is the initiator's HOST_ID parameter followed by PKCS#7 padding");
	j_close(&j, '}');

	j_open(&j, "signatures", '{');
	j_sig(&j, "r1_hip_signature_2", r1, HIP_PARAM_HIP_SIGNATURE_2);
	j_sig(&j, "i2_hip_signature", i2, HIP_PARAM_HIP_SIGNATURE);
	j_sig(&j, "r2_hip_signature", r2, HIP_PARAM_HIP_SIGNATURE);
	j_close(&j, '}');
	j_open(&j, "macs", '{');
	j_mac(&j, "i2_hip_mac", i2, HIP_PARAM_HIP_MAC);
	j_mac(&j, "r2_hip_mac_2", r2, HIP_PARAM_HIP_MAC_2);
	j_close(&j, '}');

	j_open(&j, "packets", '[');
	for (unsigned x = 0; x < n_wire; x++) {
		j_open(&j, NULL, '{');
		j_str(&j, "type", pkt_name(&wire[x]));
		j_str(&j, "from", wire[x].from == 0 ? "initiator" : "responder");
		j_int(&j, "length", (long long)wire[x].len);
		j_hex(&j, "hex", wire[x].b, wire[x].len);
		j_close(&j, '}');
	}
	j_close(&j, ']');
	j_close(&j, '}');
	fputc('\n', j.f);
	CHECK(fclose(j.f) == 0);

	hip_keys_wipe(&keys);
	OPENSSL_cleanse(km, sizeof(km));
	sides_down();
	return buf;
}

/* ----------------------------------------------------------------- main */

static int
usage(void)
{
	fprintf(stderr, "usage: gen_vectors --write|--check SRCROOT\n");
	return 2;
}

int
main(int argc, char **argv)
{
	bool check;
	unsigned bad = 0, good = 0;

	if (argc != 3)
		return usage();
	if (strcmp(argv[1], "--check") == 0)
		check = true;
	else if (strcmp(argv[1], "--write") == 0)
		check = false;
	else
		return usage();
	hh_world_init(&W, &(struct hh_hooks){ .send = on_send, .sa_up = on_sa_up, .vector = on_vector },
		      harness_fail);
	for (unsigned x = 0; x < NVECS; x++) {
		char path[1024];
		size_t len = 0, old_len = 0;
		char *text = run_vector(&VECS[x], argv[2], &len);
		char *old;

		snprintf(path, sizeof(path), "%s/tests/vectors/bex-%s.json", argv[2], VECS[x].name);
		if (check) {
			old = hh_read_file(path, &old_len);
			if (old == NULL || old_len != len || memcmp(old, text, len) != 0) {
				fprintf(stderr, "gen_vectors: %s differs from what the engine makes now "
					"(regenerate: gen_vectors --write SRCROOT, and review the diff)\n", path);
				bad++;
			} else {
				printf("ok %u - bex-%s.json\n", x + 1, VECS[x].name);
				good++;
			}
			free(old);
		} else {
			FILE *f = fopen(path, "wb");

			if (f == NULL || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
				fprintf(stderr, "gen_vectors: cannot write %s\n", path);
				bad++;
			} else {
				printf("wrote %s\n", path);
			}
		}
		free(text);
	}
	if (check)
		printf("%u passed, %u failed\n", good, bad);
	return bad != 0;
}
