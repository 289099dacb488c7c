/* SPDX-License-Identifier: BSD-3-Clause
 * The tracker's state file: what it verified, so that a restarted box
 * forwards the established associations at once (docs/middlebox.md). Text,
 * one item a line, written whole by mbox_tick when the state changed (a
 * temporary file beside it, fsync, rename, fsync of the directory: a reader
 * sees the old file or the new one, never half of one), read by mbox_create. It holds public keys and
 * identifiers only, no key material.
 *
 *   hipgw-mbox-state 1                      first line: format and version
 *   spent HEX                               a spent CLOSE nonce (32-byte digest), oldest first
 *   assoc STATE lo|hi                       an association: its state, its initiator's host
 *   host lo|hi HIT ALGO HEX|-               a host: its HIT, HI algorithm and HI (or none yet)
 *   seq lo|hi N                             the host's last UPDATE SEQ
 *   close lo|hi HEX                         the digest of its CLOSE's nonce
 *   i2 lo|hi SPI ADDR                       its I2's SPI and source, before the R2
 *   spi lo|hi current|new|old SPI ADDR SEQ ACKED   an inbound SPI, where it is received
 *   end                                     the association is complete
 *
 * `lo` is the host with the lower HIT. Empty lines and lines from `#` on are
 * ignored. Every HI is decoded and checked against its HIT again, every
 * number and address parsed strictly; anything else refuses the file with
 * "FILE:LINE: message". Times are not kept (the clock restarts with the
 * process): a loaded association's ageing and an old SPI's grace start
 * anew. Associations the rules now deny are not loaded (load_denied).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbox_internal.h"

#define STATE_MAGIC   "hipgw-mbox-state"
#define STATE_VERSION 1
#define TOKENS_MAX    8            /* words on one line at most */

static const char *const spi_names[] = { "free", "current", "new", "old" };  /* enum mbox_spi_state */

/* ---- writing ---- */

static void
put_hex(FILE *f, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static void
put_spent(void *ctx, const uint8_t *d)
{
	fputs("spent ", ctx);
	put_hex(ctx, d, MBOX_DIGEST_LEN);
	fputc('\n', ctx);
}

static void
put_host(FILE *f, const struct mbox_host *h, const char *x)
{
	char s[HIP_HIT_STRLEN], a[64];

	hip_hit_to_str(h->hit, s, sizeof(s));
	fprintf(f, "host %s %s ", x, s);
	if (h->have_hi) {
		fprintf(f, "%u ", h->hi.algo);
		put_hex(f, h->hi.hi, h->hi.hi_len);
	} else {
		fputs("0 -", f);
	}
	fputc('\n', f);
	if (h->seq_seen)
		fprintf(f, "seq %s %u\n", x, h->seq);
	if (h->close_seen) {
		fprintf(f, "close %s ", x);
		put_hex(f, h->close, sizeof(h->close));
		fputc('\n', f);
	}
	if (h->i2_seen)
		fprintf(f, "i2 %s %u %s\n", x, h->i2_spi, gw_addr_str(&h->i2_loc, a, sizeof(a)));
	for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
		const struct mbox_spi *sp = &h->spi[i];

		if (sp->state != MBOX_SPI_FREE)
			fprintf(f, "spi %s %s %u %s %u %u\n", x, spi_names[sp->state], sp->spi,
				gw_addr_str(&sp->dst, a, sizeof(a)), sp->seq, sp->acked ? 1 : 0);
	}
}

static void
put_all(struct mbox_tracker *t, FILE *f)
{
	fprintf(f, "# the hipgw middlebox's verified state (lib/mbox/mbox_state.c)\n%s %d\n",
		STATE_MAGIC, STATE_VERSION);
	mbox_nonce_walk(t, put_spent, f);
	for (uint32_t i = 0; i < t->p.max_assocs; i++) {
		const struct mbox_assoc *a = t->slot[i];

		if (a == NULL || a->state == MBOX_ST_NONE)
			continue;
		fprintf(f, "assoc %s %s\n", mbox_state_name(a->state), a->init == MBOX_LO ? "lo" : "hi");
		put_host(f, &a->h[MBOX_LO], "lo");
		put_host(f, &a->h[MBOX_HI], "hi");
		fputs("end\n", f);
	}
}

/* The rename made durable: fsync of the file's directory (best effort). */
static void
sync_dir(const char *path)
{
	char dir[4096];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int
mbox_state_write(struct mbox_tracker *t, char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f = NULL;
	int fd, e = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", t->state_path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", t->state_path);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		e = errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(e));
		return -1;
	}
	put_all(t, f);
	if (fflush(f) != 0 || ferror(f) || fsync(fd) != 0)
		e = errno != 0 ? errno : EIO;
	if (fclose(f) != 0 && e == 0)
		e = errno;
	if (e == 0 && rename(tmp, t->state_path) != 0)
		e = errno;
	if (e != 0) {
		unlink(tmp);
		snprintf(err, errlen, "%s: cannot write: %s", t->state_path, strerror(e));
		return -1;
	}
	sync_dir(t->state_path);
	return 0;
}

/* ---- reading ---- */

struct rd {
	struct mbox_tracker *t;
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
	bool open;                 /* inside assoc .. end */
	struct mbox_assoc a;       /* the association being read */
	bool host_seen[2];
};

static int
fail(struct rd *r, const char *msg, const char *arg)
{
	snprintf(r->err, r->errlen, "%s:%u: %s%s%s", r->path, r->line, msg,
		 arg != NULL ? ": " : "", arg != NULL ? arg : "");
	return -1;
}

/* Exactly n bytes of hex (n 0: any count up to cap, into *got). */
static int
get_hex(const char *s, uint8_t *b, size_t n, size_t cap, size_t *got)
{
	size_t l = strlen(s);

	if (l % 2 != 0 || (n != 0 && l != 2 * n) || l / 2 > cap || l == 0)
		return -1;
	for (size_t i = 0; i < l / 2; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
			return -1;
		b[i] = (uint8_t)v;
	}
	if (got != NULL)
		*got = l / 2;
	return 0;
}

static int
get_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno != 0 || *end != 0 || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int
get_side(const char *s)
{
	return strcmp(s, "lo") == 0 ? MBOX_LO : strcmp(s, "hi") == 0 ? MBOX_HI : -1;
}

static int
rd_host(struct rd *r, int x, char **w, int n)
{
	struct mbox_host *h = &r->a.h[x];
	uint8_t hi[HIP_HI_MAX_LEN];
	size_t hl = 0;
	uint32_t algo;

	if (r->host_seen[x])
		return fail(r, "host: listed twice", w[1]);
	if (n != 5 || hip_hit_parse(w[2], h->hit) != 0)
		return fail(r, "host: a HIT (ORCHIDv2) expected", n == 5 ? w[2] : NULL);
	if (get_u32(w[3], &algo) != 0)
		return fail(r, "host: HI algorithm expected", w[3]);
	r->host_seen[x] = true;
	if (strcmp(w[4], "-") == 0)
		return 0;
	if (get_hex(w[4], hi, 0, sizeof(hi), &hl) != 0 || algo > UINT16_MAX ||
	    hip_hi_decode((uint16_t)algo, hi, hl, &h->hi) != 0)
		return fail(r, "host: HI does not decode", NULL);
	if (memcmp(h->hi.hit, h->hit, HIP_HIT_LEN) != 0)
		return fail(r, "host: HI does not hash to the HIT", w[2]);
	h->have_hi = true;
	return 0;
}

static int
rd_spi(struct rd *r, int x, char **w, int n)
{
	struct mbox_spi s = { 0 }, *slot;
	uint32_t acked = 0;
	int st = -1;

	for (int i = MBOX_SPI_CURRENT; n == 7 && i <= MBOX_SPI_OLD; i++)
		if (strcmp(w[2], spi_names[i]) == 0)
			st = i;
	if (st < 0 || get_u32(w[3], &s.spi) != 0 || s.spi == 0 || gw_addr_parse(w[4], &s.dst) != 0 ||
	    get_u32(w[5], &s.seq) != 0 || get_u32(w[6], &acked) != 0 || acked > 1)
		return fail(r, "spi: current|new|old SPI ADDR SEQ 0|1 expected", NULL);
	/* an SPI at two locators: after a move, the former one OLD */
	for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++) {
		const struct mbox_spi *o = &r->a.h[x].spi[i];

		if (o->state != MBOX_SPI_FREE && o->spi == s.spi &&
		    (mbox_addr_eq(&o->dst, &s.dst) || (o->state != MBOX_SPI_OLD && st != MBOX_SPI_OLD)))
			return fail(r, "spi: listed twice", w[3]);
	}
	slot = mbox_spi_in(&r->a, x, MBOX_SPI_FREE);
	if (slot == NULL)
		return fail(r, "spi: more SPIs than a host has", w[3]);
	s.state = (uint8_t)st;
	s.acked = acked != 0;
	*slot = s;              /* not installed, until_ns 0: the load installs and times it */
	return 0;
}

/* One line of an association (host, seq, close, i2, spi). */
static int
rd_item(struct rd *r, char **w, int n)
{
	int x = n >= 2 ? get_side(w[1]) : -1;
	struct mbox_host *h;

	if (x < 0)
		return fail(r, "lo or hi expected after", w[0]);
	h = &r->a.h[x];
	if (strcmp(w[0], "host") == 0)
		return rd_host(r, x, w, n);
	if (strcmp(w[0], "seq") == 0) {
		if (n != 3 || get_u32(w[2], &h->seq) != 0)
			return fail(r, "seq: a number expected", NULL);
		h->seq_seen = true;
		return 0;
	}
	if (strcmp(w[0], "close") == 0) {
		if (n != 3 || get_hex(w[2], h->close, MBOX_DIGEST_LEN, MBOX_DIGEST_LEN, NULL) != 0)
			return fail(r, "close: a 32-byte digest in hex expected", NULL);
		h->close_seen = true;
		return 0;
	}
	if (strcmp(w[0], "i2") == 0) {
		if (n != 4 || get_u32(w[2], &h->i2_spi) != 0 || h->i2_spi == 0 ||
		    gw_addr_parse(w[3], &h->i2_loc) != 0)
			return fail(r, "i2: SPI ADDR expected", NULL);
		h->i2_seen = true;
		return 0;
	}
	if (strcmp(w[0], "spi") == 0)
		return rd_spi(r, x, w, n);
	return fail(r, "unknown item", w[0]);
}

static void
rd_reset(struct rd *r)
{
	for (int x = 0; x < 2; x++)
		hip_hi_free(&r->a.h[x].hi);
	memset(&r->a, 0, sizeof(r->a));
	r->host_seen[0] = r->host_seen[1] = false;
	r->open = false;
}

static bool
state_has_flows(enum mbox_state s)
{
	return s == MBOX_ST_ESTABLISHED || s == MBOX_ST_REKEYING || s == MBOX_ST_CLOSING;
}

/* `end`: the association read is checked and goes into the table. */
static int
rd_end(struct rd *r)
{
	struct mbox_tracker *t = r->t;
	struct mbox_assoc *a;
	struct mbox_spi_snap none = { 0 };
	bool pending = r->a.state == MBOX_ST_R1_SEEN || r->a.state == MBOX_ST_I2_SEEN;
	const struct mbox_host *hi, *hr;

	if (!r->host_seen[0] || !r->host_seen[1] || hip_hit_cmp(r->a.h[0].hit, r->a.h[1].hit) >= 0)
		return fail(r, "end: two host lines expected, lo's HIT below hi's", NULL);
	if (state_has_flows(r->a.state) && (!r->a.h[0].have_hi || !r->a.h[1].have_hi))
		return fail(r, "end: an established association needs both HIs", NULL);
	if (mbox_assoc_get(t, r->a.h[0].hit, r->a.h[1].hit) != NULL)
		return fail(r, "end: association listed twice", NULL);
	hi = &r->a.h[r->a.init];
	hr = &r->a.h[1 - r->a.init];
	if (!mbox_rules_allow(t, hi->hit, hr->hit)) {
		t->st.load_denied++;
		rd_reset(r);
		return 0;
	}
	a = mbox_assoc_new(t, r->a.h[0].hit, r->a.h[1].hit, pending, 0);
	if (a == NULL)
		return fail(r, "end: more associations than max_assocs", NULL);
	memcpy(a->h, r->a.h, sizeof(a->h));   /* the HIs move to a */
	memset(r->a.h, 0, sizeof(r->a.h));
	a->init = r->a.init;
	mbox_assoc_state(t, a, r->a.state, 0);
	a->since_ns = a->last_ns = 0;            /* timed from the first tick */
	for (int x = 0; x < 2; x++)
		for (unsigned i = 0; i < MBOX_SPIS_PER_HOST; i++)
			a->h[x].spi[i].installed = false;
	if (mbox_spi_commit(t, a, &none) != MBOX_FWD) {
		mbox_assoc_del(t, a);
		return fail(r, "end: the flow table refused a flow (taken by another association, or full)",
			    NULL);
	}
	t->st.loaded++;
	rd_reset(r);
	return 0;
}

static int
rd_assoc(struct rd *r, char **w, int n)
{
	int st = -1;

	for (int s = MBOX_ST_R1_SEEN; n == 3 && s < MBOX_STATES; s++)
		if (strcmp(w[1], mbox_state_name((unsigned)s)) == 0)
			st = s;
	if (st < 0 || get_side(w[2]) < 0)
		return fail(r, "assoc: STATE lo|hi expected", NULL);
	r->a.state = (enum mbox_state)st;
	r->a.init = (uint8_t)get_side(w[2]);
	r->open = true;
	return 0;
}

static int
rd_line(struct rd *r, char *line, bool *magic)
{
	char *w[TOKENS_MAX + 1], *save = NULL, *c = strchr(line, '#');
	int n = 0;

	if (c != NULL)
		*c = 0;
	for (char *tok = strtok_r(line, " \t\r\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == TOKENS_MAX)
			return fail(r, "too many words", NULL);
		w[n++] = tok;
	}
	if (n == 0)
		return 0;
	if (!*magic) {
		if (n != 2 || strcmp(w[0], STATE_MAGIC) != 0 || strcmp(w[1], "1") != 0)
			return fail(r, "not a hipgw middlebox state file of version 1", NULL);
		*magic = true;
		return 0;
	}
	if (strcmp(w[0], "spent") == 0 && !r->open) {
		uint8_t d[MBOX_DIGEST_LEN];

		if (n != 2 || get_hex(w[1], d, sizeof(d), sizeof(d), NULL) != 0)
			return fail(r, "spent: a 32-byte digest in hex expected", NULL);
		mbox_nonce_spend(r->t, d);
		return 0;
	}
	if (strcmp(w[0], "assoc") == 0)
		return r->open ? fail(r, "assoc inside an association (no end line)", NULL)
			       : rd_assoc(r, w, n);
	if (!r->open)
		return fail(r, "outside an association", w[0]);
	if (strcmp(w[0], "end") == 0)
		return n == 1 ? rd_end(r) : fail(r, "end: nothing may follow", NULL);
	return rd_item(r, w, n);
}

int
mbox_state_load(struct mbox_tracker *t, char *err, size_t errlen)
{
	struct rd *r;
	char *line = NULL;
	size_t cap = 0;
	bool magic = false;
	int rc = 0;
	FILE *f = fopen(t->state_path, "r");

	if (f == NULL) {
		if (errno == ENOENT)
			return 0;   /* no state yet */
		snprintf(err, errlen, "%s: cannot read: %s", t->state_path, strerror(errno));
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		fclose(f);
		snprintf(err, errlen, "%s: no memory", t->state_path);
		return -1;
	}
	r->t = t;
	r->path = t->state_path;
	r->err = err;
	r->errlen = errlen;
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		r->line++;
		rc = rd_line(r, line, &magic);
	}
	if (rc == 0 && ferror(f))
		rc = fail(r, "read error", strerror(errno));
	if (rc == 0 && r->open)
		rc = fail(r, "the last association has no end line", NULL);
	for (uint32_t i = 0; rc != 0 && i < t->p.max_assocs; i++)
		if (t->slot[i] != NULL)
			mbox_assoc_del(t, t->slot[i]);   /* a refused file installs nothing */
	rd_reset(r);
	free(r);
	free(line);
	fclose(f);
	t->dirty = t->st.load_denied > 0;   /* else the file says what the tracker has */
	return rc;
}
