/* SPDX-License-Identifier: BSD-3-Clause
 * The HIP engine test harness (hip_harness.h): engines joined by a
 * simulated wire, their callbacks, and the invariants those check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hip_harness.h"
#include "hip_hi.h"
#include "hip_keymat.h"
#include "hip_packet.h"

#define HH_SPI_FIRST_STEP  0x1000u   /* side idx hands out SPIs from (idx + 1) * this */
#define HH_RNG_SEED_MUL    0x9e3779b97f4a7c15ull

static void __attribute__((noreturn, format(printf, 2, 3)))
hh_fail(const struct hh_world *w, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w != NULL && w->fail != NULL)
		w->fail(msg);
	fprintf(stderr, "hip_harness: %s\n", msg);
	abort();
}

/* ---- keys, addresses, randomness, configuration ---- */

char *
hh_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int
hh_key_load(const char *path, struct hip_hi *hi, char **pem, size_t *pem_len,
	    char *err, size_t errlen)
{
	char dir[] = "/tmp/hip_harness.XXXXXX", copy[sizeof(dir) + 16];
	size_t n = 0;
	char *buf = hh_read_file(path, &n);
	int fd, rc = -1;

	if (buf == NULL) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (mkdtemp(dir) == NULL) {
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		free(buf);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s/key.pem", dir);
	fd = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n || close(fd) != 0)
		snprintf(err, errlen, "cannot write %s", copy);
	else if (hip_hi_load(copy, hi, err, errlen) == 0)
		rc = 0;
	unlink(copy);
	rmdir(dir);
	if (rc == 0 && pem != NULL) {
		*pem = buf;
		if (pem_len != NULL)
			*pem_len = n;
	} else {
		free(buf);
	}
	return rc;
}

void
hh_key(struct hh_world *w, const char *dir, const char *name, struct hip_hi *hi)
{
	char path[1024], err[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(hi, 0, sizeof(*hi));
	if (hh_key_load(path, hi, NULL, NULL, err, sizeof(err)) != 0)
		hh_fail(w, "%s", err);
}

void
hh_addr(struct gw_addr *a, bool v6, int idx)
{
	memset(a, 0, sizeof(*a));
	if (v6) {
		static const uint8_t doc[4] = { 0x20, 0x01, 0x0d, 0xb8 };

		a->family = 6;
		memcpy(a->addr, doc, sizeof(doc));
		a->addr[15] = (uint8_t)(idx + 1);
	} else {
		a->family = 4;
		a->addr[0] = 192;
		a->addr[2] = 2;
		a->addr[3] = (uint8_t)(idx + 1);
	}
}

int
hh_rng_xorshift(void *ctx, uint8_t *buf, size_t len)
{
	uint64_t *st = ctx;

	for (size_t x = 0; x < len; x++) {
		*st ^= *st >> 12;
		*st ^= *st << 25;
		*st ^= *st >> 27;
		buf[x] = (uint8_t)((*st * 0x2545F4914F6CDD1Dull) >> 56);
	}
	return 0;
}

uint64_t
hh_rng_seed(int idx)
{
	return HH_RNG_SEED_MUL * (uint64_t)(idx + 1);
}

void
hh_cfg_fill(struct hip_host_cfg *c, struct hip_hi *hi, const struct hh_params *p)
{
	c->hi = hi;
	c->puzzle_k = p->k;
	memcpy(c->esp_transforms, p->esp, sizeof(p->esp));
	c->n_esp_transforms = p->ne;
	memcpy(c->dh_groups, p->groups, sizeof(p->groups));
	c->n_dh_groups = p->ng;
	memcpy(c->hip_ciphers, p->ciph, sizeof(p->ciph));
	c->n_hip_ciphers = p->nc;
	c->sa_lifetime_ns = p->life;
	c->r1_rate = p->r1_rate;
	if (p->rng != NULL) {
		c->rng = p->rng;
		c->rng_ctx = p->rng_ctx;
	}
}

/* ---- the engines' callbacks ---- */

static struct hh_side *
side_of_addr(struct hh_world *w, const struct gw_addr *a)
{
	for (int x = 0; x < HH_SIDES; x++)
		if ((w->s[x].addr.family != 0 && memcmp(&w->s[x].addr, a, sizeof(*a)) == 0) ||
		    (w->s[x].alias.family != 0 && memcmp(&w->s[x].alias, a, sizeof(*a)) == 0))
			return &w->s[x];
	return NULL;
}

static bool
checksum_ok(const uint8_t *pkt, size_t len, const struct gw_addr *src, const struct gw_addr *dst)
{
	if (src->family == 4)
		return hip_checksum_verify_ipv4(pkt, len, src->addr, dst->addr) == 0;
	return hip_checksum_verify_ipv6(pkt, len, src->addr, dst->addr) == 0;
}

/* What an engine sent, plain (udp NULL) or over UDP (RFC 5770: HIP
 * checksum zero), onto the wire. */
static void
wire_send(struct hh_side *s, const struct gw_addr *src, const struct gw_addr *dst,
	  const struct hip_udp *udp, const uint8_t *pkt, size_t len)
{
	struct hh_side *to;
	struct hh_world *w = s->w;
	struct hip_hdr hh;
	struct hh_pkt *p;

	if (len < HIP_HDR_LEN || len > HIP_PACKET_MAX || len % 8 != 0 ||
	    hip_packet_validate(pkt, len, 0, &hh, NULL) < 0 || hh.pkt_len != len ||
	    memcmp(src, &s->addr, sizeof(*src)) != 0 || src->family != dst->family ||
	    (udp == NULL ? !checksum_ok(pkt, len, src, dst)
			 : (pkt[HIP_OFF_CHECKSUM] | pkt[HIP_OFF_CHECKSUM + 1]) != 0))
		hh_fail(w, "side %d sent a malformed packet (%zu bytes)", s->idx, len);
	if (memcmp(hh.hit_sender, s->hi->hit, HIP_HIT_LEN) != 0)
		hh_fail(w, "side %d sent with another sender HIT", s->idx);
	s->sent++;
	if (hh.packet_type == HIP_R2)
		s->sa_up_at_r2 = s->sa_up_n;
	to = side_of_addr(w, dst);
	/* built in the wire's free slot (or a spare) so the hook sees it whole */
	{
		static struct hh_pkt spare;

		p = w->qn < w->cap ? &w->q[w->qn] : &spare;
		p->from = s->idx;
		p->to = to != NULL ? to->idx : -1;
		p->src = *src;
		p->dst = *dst;
		p->len = len;
		p->udp = udp != NULL ? *udp : (struct hip_udp){ 0 };
		memcpy(p->b, pkt, len);
		if (w->hooks.send != NULL && !w->hooks.send(s, p))
			return;
		if (to != NULL && p != &spare)
			w->qn++;   /* else nobody there or the wire full: lost */
	}
}

static void
cb_send(void *ctx, const struct gw_addr *src, const struct gw_addr *dst, const uint8_t *pkt,
	size_t len)
{
	wire_send(ctx, src, dst, NULL, pkt, len);
}

static void
cb_send_udp(void *ctx, const struct gw_addr *src, const struct gw_addr *dst,
	    const struct hip_udp *udp, const uint8_t *pkt, size_t len)
{
	if (udp == NULL || udp->lport == 0 || udp->rport == 0)
		hh_fail(((struct hh_side *)ctx)->w, "a UDP send without ports");
	wire_send(ctx, src, dst, udp, pkt, len);
}

static uint32_t
cb_spi(void *ctx)
{
	struct hh_side *s = ctx;

	return s->next_spi++;
}

static struct hh_side *
side_of_user(const struct hh_side *s, const void *peer_user)
{
	for (int x = 0; x < HH_SIDES; x++)
		if (peer_user == &s->w->s[x] && x != s->idx)
			return &s->w->s[x];
	return NULL;
}

static void
check_sa(const struct hh_side *s, const struct hip_sa_keys *k)
{
	uint8_t el = 0, al = 0;

	if (k->spi == 0 || hip_esp_key_lens(k->esp_transform, &el, &al) != 0 ||
	    k->enc_key_len != el || k->auth_key_len != al)
		hh_fail(s->w, "side %d: SA %u with transform %u, keys %u / %u bytes", s->idx, k->spi,
			k->esp_transform, k->enc_key_len, k->auth_key_len);
}

static int
spi_find(const struct hh_side *s, uint32_t spi)
{
	for (unsigned x = 0; x < s->n_spis; x++)
		if (s->spis[x] == spi)
			return (int)x;
	return -1;
}

static void
spi_add(struct hh_side *s, uint32_t spi)
{
	if (spi_find(s, spi) >= 0)
		return;   /* sa_in_up, then sa_up of the same inbound SA */
	if (s->n_spis == HH_SPIS_MAX)
		hh_fail(s->w, "side %d: more than %d inbound SAs at once", s->idx, HH_SPIS_MAX);
	s->spis[s->n_spis++] = spi;
}

static void
spi_del(struct hh_side *s, uint32_t spi, const char *why)
{
	int x = spi_find(s, spi);

	if (x < 0)
		hh_fail(s->w, "side %d: %s of inbound SPI %u, not handed over or taken back already",
			s->idx, why, spi);
	s->spis[x] = s->spis[--s->n_spis];
}

static void
cb_sa_up(void *ctx, void *peer_user, const struct hip_sa_keys *out, const struct hip_sa_keys *in,
	 uint32_t old_in_spi)
{
	struct hh_side *s = ctx;

	if (side_of_user(s, peer_user) == NULL)
		hh_fail(s->w, "side %d: sa_up for an unknown peer", s->idx);
	check_sa(s, out);
	check_sa(s, in);
	spi_add(s, in->spi);
	if (old_in_spi != 0)
		spi_del(s, old_in_spi, "sa_up's old_in_spi");
	s->sa_up_n++;
	s->out = *out;
	s->in = *in;
	s->old_in = old_in_spi;
	s->sa_up_ev = ++s->w->ev;
	if (s->w->hooks.sa_up != NULL)
		s->w->hooks.sa_up(s, peer_user, out, in, old_in_spi);
}

static void
cb_sa_in_up(void *ctx, void *peer_user, const struct hip_sa_keys *in)
{
	struct hh_side *s = ctx;

	if (side_of_user(s, peer_user) == NULL)
		hh_fail(s->w, "side %d: sa_in_up for an unknown peer", s->idx);
	check_sa(s, in);
	spi_add(s, in->spi);
	s->sa_in_up_n++;
	s->early_in = *in;
	s->sa_in_up_ev = ++s->w->ev;
}

static void
cb_sa_down(void *ctx, void *peer_user, uint32_t in_spi)
{
	struct hh_side *s = ctx;

	if (side_of_user(s, peer_user) == NULL)
		hh_fail(s->w, "side %d: sa_down for an unknown peer", s->idx);
	spi_del(s, in_spi, "sa_down");
	if (s->sa_down_n < HH_DOWN_SPIS)
		s->down_spi[s->sa_down_n] = in_spi;
	s->sa_down_n++;
}

static void
cb_established(void *ctx, void *peer_user)
{
	struct hh_side *s = ctx;

	if (side_of_user(s, peer_user) == NULL)
		hh_fail(s->w, "side %d: established for an unknown peer", s->idx);
	if (s->n_spis == 0)
		hh_fail(s->w, "side %d: established without an inbound SA handed over", s->idx);
	s->established_n++;
	s->established_ev = ++s->w->ev;
}

static void
cb_path(void *ctx, void *peer_user, const struct gw_addr *local, const struct gw_addr *remote)
{
	struct hh_side *s = ctx;

	if (side_of_user(s, peer_user) == NULL || local == NULL || remote == NULL ||
	    local->family != remote->family)
		hh_fail(s->w, "side %d: path arguments", s->idx);
	s->path_n++;
	s->path_local = *local;
	s->path_remote = *remote;
}

static void
cb_bex_done(void *ctx, void *peer_user, bool ok, const struct hip_bex_times *t)
{
	struct hh_side *s = ctx;

	if (side_of_user(s, peer_user) == NULL || t == NULL)
		hh_fail(s->w, "side %d: bex_done arguments", s->idx);
	if (ok)
		s->bex_ok_n++;
	else
		s->bex_fail_n++;
	s->t = *t;
}

static void
cb_vector(void *ctx, void *peer_user, const char *name, const uint8_t *v, size_t len)
{
	static const struct {
		const char *name;
		size_t buf, len;            /* offsets in struct hh_side */
		size_t cap;
	} slots[] = {
		{ "kij", offsetof(struct hh_side, kij), offsetof(struct hh_side, kij_len), HIP_DH_SECRET_MAX },
		{ "keymat", offsetof(struct hh_side, keymat), offsetof(struct hh_side, keymat_len), HH_KEYMAT_MAX },
		{ "puzzle_i", offsetof(struct hh_side, vi), offsetof(struct hh_side, vi_len), HIP_RHASH_MAX },
		{ "puzzle_j", offsetof(struct hh_side, vj), offsetof(struct hh_side, vj_len), HIP_RHASH_MAX },
		{ "update_kij", offsetof(struct hh_side, ukij), offsetof(struct hh_side, ukij_len),
		  HIP_DH_SECRET_MAX },
		{ "update_keymat", offsetof(struct hh_side, ukeymat), offsetof(struct hh_side, ukeymat_len),
		  HH_KEYMAT_MAX },
	};
	struct hh_side *s = ctx;

	if (side_of_user(s, peer_user) == NULL || name == NULL || v == NULL || len == 0)
		hh_fail(s->w, "side %d: vector arguments", s->idx);
	for (size_t x = 0; x < sizeof(slots) / sizeof(slots[0]); x++) {
		if (strcmp(name, slots[x].name) != 0)
			continue;
		if (len > slots[x].cap)
			hh_fail(s->w, "side %d: vector %s of %zu bytes", s->idx, name, len);
		memcpy((uint8_t *)s + slots[x].buf, v, len);
		*(size_t *)((uint8_t *)s + slots[x].len) = len;
		s->nvec++;
		if (s->w->hooks.vector != NULL)
			s->w->hooks.vector(s, name, v, len);
		return;
	}
	hh_fail(s->w, "side %d: unknown vector %s", s->idx, name);
}

/* ---- a world ---- */

void
hh_world_init(struct hh_world *w, const struct hh_hooks *hooks, void (*fail)(const char *msg))
{
	memset(w, 0, sizeof(*w));
	if (hooks != NULL)
		w->hooks = *hooks;
	w->fail = fail;
	hh_reset(w);
}

void
hh_reset(struct hh_world *w)
{
	w->qn = 0;
	w->cap = HH_WIRE_MAX;
	w->now = HH_T0_NS;
	w->ev = 0;
	w->filter = NULL;
}

static struct hh_side *
side_clear(struct hh_world *w, int idx, struct hip_hi *hi, bool v6)
{
	struct hh_side *s;

	if (idx < 0 || idx >= HH_SIDES)
		hh_fail(w, "side %d out of range", idx);
	s = &w->s[idx];
	memset(s, 0, sizeof(*s));   /* an engine there was freed by the caller */
	s->w = w;
	s->idx = idx;
	s->hi = hi;
	hh_addr(&s->addr, v6, idx);
	return s;
}

void
hh_side_up(struct hh_world *w, int idx, struct hip_hi *hi, const struct hh_params *p)
{
	struct hh_side *s = side_clear(w, idx, hi, p->v6);
	struct hip_host_cfg c = { 0 };
	char err[128] = "";

	s->next_spi = p->first_spi != 0 ? p->first_spi : HH_SPI_FIRST_STEP * (uint32_t)(idx + 1);
	s->rng = hh_rng_seed(idx);
	hh_cfg_fill(&c, hi, p);
	c.io.ctx = s;
	c.io.send = cb_send;
	c.io.spi_alloc = cb_spi;
	c.io.sa_up = cb_sa_up;
	c.io.sa_down = cb_sa_down;
	c.io.bex_done = cb_bex_done;
	c.io.sa_in_up = p->no_in_up ? NULL : cb_sa_in_up;
	c.io.established = cb_established;
	c.io.path = cb_path;
	c.io.send_udp = p->udp ? cb_send_udp : NULL;
	c.vector = cb_vector;
	c.vector_ctx = s;
	if (p->det && p->rng == NULL) {
		c.rng = hh_rng_xorshift;
		c.rng_ctx = &s->rng;
	}
	s->h = hip_host_create(&c, err, sizeof(err));
	if (s->h == NULL)
		hh_fail(w, "hip_host_create: %s", err);
}

void
hh_side_hand(struct hh_world *w, int idx, struct hip_hi *hi, bool v6)
{
	side_clear(w, idx, hi, v6);
}

void
hh_move(struct hh_world *w, int idx, const struct gw_addr *to, bool keep_old)
{
	struct hh_side *s = &w->s[idx];

	s->alias = keep_old ? s->addr : (struct gw_addr){ 0 };
	s->addr = *to;
}

void
hh_know(struct hh_world *w, int a, int b)
{
	if (hip_host_add_peer(w->s[a].h, w->s[b].hi->hit, &w->s[b].addr, 1, &w->s[a].addr,
			      &w->s[b]) != 0)
		hh_fail(w, "side %d cannot add side %d as a peer", a, b);
}

void
hh_pair_up(struct hh_world *w, struct hip_hi *a, struct hip_hi *b, const struct hh_params *p)
{
	hh_reset(w);
	hh_side_up(w, 0, a, p);
	hh_side_up(w, 1, b, p);
	hh_know(w, 0, 1);
	hh_know(w, 1, 0);
}

void
hh_down(struct hh_world *w)
{
	for (int x = 0; x < HH_SIDES; x++) {
		hip_host_free(w->s[x].h);
		memset(&w->s[x], 0, sizeof(w->s[x]));
	}
	w->qn = 0;
	w->filter = NULL;
}

/* ---- packets and the wire ---- */

uint8_t
hh_ptype(const struct hh_pkt *p)
{
	return p->b[HIP_OFF_PACKET_TYPE] & 0x7f;
}

size_t
hh_find_param(const uint8_t *b, size_t len, uint16_t type)
{
	struct hip_tlv t;

	return hip_param_find(b, len, type, &t) == 1 ? t.offset : 0;
}

int
hh_fix_cksum(struct hh_pkt *p)
{
	hip_put16(p->b + HIP_OFF_CHECKSUM, 0);
	if (p->src.family == 4)
		return hip_checksum_set_ipv4(p->b, p->len, p->src.addr, p->dst.addr) == 0 ? 0 : -1;
	if (p->src.family == 6)
		return hip_checksum_set_ipv6(p->b, p->len, p->src.addr, p->dst.addr) == 0 ? 0 : -1;
	return -1;
}

bool
hh_take(struct hh_world *w, unsigned i, struct hh_pkt *out)
{
	if (i >= w->qn)
		return false;
	if (out != NULL)
		*out = w->q[i];
	memmove(&w->q[i], &w->q[i + 1], (w->qn - i - 1) * sizeof(w->q[0]));
	w->qn--;
	return true;
}

int
hh_deliver_at(struct hh_world *w, unsigned i)
{
	struct hh_pkt p;

	if (!hh_take(w, i, &p) || (w->filter != NULL && w->filter(&p)) || p.to < 0 ||
	    w->s[p.to].h == NULL)
		return HH_LOST;   /* a hand-made peer: the caller reads q[] itself */
	if (p.udp.rport != 0) {   /* the receiver's port first: the sender's reversed */
		struct hip_udp u = { .lport = p.udp.rport, .rport = p.udp.lport };

		w->last_rc = hip_host_input_udp(w->s[p.to].h, &p.src, &p.dst, &u, p.b, p.len, w->now);
		return w->last_rc;
	}
	w->last_rc = hip_host_input(w->s[p.to].h, &p.src, &p.dst, p.b, p.len, w->now);
	return w->last_rc;
}

int
hh_inject(struct hh_world *w, const struct hh_pkt *p)
{
	if (w->qn == HH_WIRE_MAX)
		hh_fail(w, "the wire is full");
	w->q[w->qn++] = *p;
	return hh_deliver_at(w, w->qn - 1);
}

unsigned
hh_deliver_all(struct hh_world *w)
{
	unsigned n = 0;

	while (w->qn > 0 && n < HH_DELIVER_MAX) {
		hh_deliver_at(w, 0);
		n++;
	}
	return n;
}

bool
hh_deliver_type(struct hh_world *w, uint8_t type)
{
	for (unsigned i = 0; i < w->qn; i++) {
		if (hh_ptype(&w->q[i]) == type) {
			hh_deliver_at(w, i);
			return true;
		}
	}
	return false;
}

void
hh_advance(struct hh_world *w, uint64_t ns)
{
	w->now += ns;
	for (int x = 0; x < HH_SIDES; x++)
		if (w->s[x].h != NULL)
			hip_host_tick(w->s[x].h, w->now);
}

void
hh_run(struct hh_world *w, unsigned ms)
{
	for (unsigned t = 0; t < ms; t += HH_RUN_STEP_MS) {
		hh_deliver_all(w);
		hh_advance(w, HH_RUN_STEP_MS * HH_NS_PER_MS);
	}
	hh_deliver_all(w);
}

/* ---- what the engines know ---- */

struct hip_peer_info
hh_peer(struct hh_world *w, int a, int b)
{
	struct hip_peer_info pi;

	if (hip_host_peer_info(w->s[a].h, &w->s[b], &pi) != 0)
		hh_fail(w, "side %d has no peer %d", a, b);
	return pi;
}

enum hip_state
hh_state(struct hh_world *w, int a, int b)
{
	return hh_peer(w, a, b).state;
}

struct hip_host_stats
hh_stats(struct hh_world *w, int a)
{
	struct hip_host_stats st;

	hip_host_stats(w->s[a].h, &st);
	return st;
}

/* The UDP checksum of u[0..len) (len <= 65535) for src and dst, its
 * Checksum field taken as 0; a sum of 0 comes out as 0xffff. */
static uint16_t
udp_sum(const struct gw_addr *src, const struct gw_addr *dst, const uint8_t *u, size_t len)
{
	size_t al = src->family == 4 ? 4 : 16;
	uint32_t s = 17 + (uint32_t)len;

	for (size_t i = 0; i < al; i += 2)
		s += (uint32_t)(src->addr[i] << 8 | src->addr[i + 1]) +
		     (uint32_t)(dst->addr[i] << 8 | dst->addr[i + 1]);
	for (size_t i = 0; i < len; i += 2)
		if (i != 6)
			s += (uint32_t)u[i] << 8 | (i + 1 < len ? u[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	return s == 0 ? 0xffff : (uint16_t)s;
}

size_t
hh_udp_wrap(const struct gw_addr *src, const struct gw_addr *dst, uint16_t sport,
	    uint16_t dport, const uint8_t *b, size_t n, uint8_t *u)
{
	const size_t skip = 12;            /* UDP header and non-ESP marker */
	size_t len = skip + n;

	hip_put16(u, sport);
	hip_put16(u + 2, dport);
	hip_put16(u + 4, (uint16_t)len);   /* over 65535: what a receiver must refuse */
	hip_put16(u + 6, 0);
	memset(u + 8, 0, 4);
	memcpy(u + skip, b, n);
	if (n >= HIP_HDR_LEN)
		hip_put16(u + skip + 4, 0);
	if (len <= UINT16_MAX)
		hip_put16(u + 6, udp_sum(src, dst, u, len));
	return len;
}
