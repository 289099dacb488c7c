/* SPDX-License-Identifier: BSD-3-Clause
 * ESP security associations: per-lcore intel-ipsec-mb managers, key expansion,
 * SA life cycle, counters. Sources: RFC 4303, RFC 4106, RFC 3602, RFC 4868.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <openssl/rand.h>
#include <openssl/sha.h>
#include <rte_byteorder.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_ip.h>

#include "esp_internal.h"

IMB_MGR *esp_mgr[RTE_MAX_LCORE + 1];
uint16_t esp_slot[RTE_MAX_LCORE + 1];
unsigned esp_nslots;
unsigned esp_gcm_off;

/* Manager for key set-up on the control path. Key expansion, GHASH tables and
 * one-block SHA-256 are stateless functions of the manager (no job queue), but
 * a separate one keeps SA creation off the workers' managers entirely. All
 * managers use the same architecture (init_mb_mgr_auto), so expanded keys fit
 * every one of them. */
static IMB_MGR *esp_key_mgr;

#define ESP_LOG(level, fmt, ...) \
	RTE_LOG(level, USER1, "esp: " fmt "\n", ##__VA_ARGS__)

static IMB_MGR *
mgr_alloc(int socket)
{
	size_t sz = imb_get_mb_mgr_size();
	void *mem = rte_zmalloc_socket("esp_imb_mgr", sz, RTE_CACHE_LINE_SIZE, socket);
	IMB_MGR *mgr;

	if (mem == NULL && socket != SOCKET_ID_ANY)
		mem = rte_zmalloc("esp_imb_mgr", sz, RTE_CACHE_LINE_SIZE);
	if (mem == NULL)
		return NULL;
	mgr = imb_set_pointers_mb_mgr(mem, 0, 1);
	if (mgr == NULL) {
		rte_free(mem);
		return NULL;
	}
	init_mb_mgr_auto(mgr, NULL);
	if (imb_get_errno(mgr) != 0 || !(mgr->features & IMB_FEATURE_AESNI) ||
	    (mgr->features & IMB_FEATURE_AESNI_EMU)) {
		ESP_LOG(ERR, "intel-ipsec-mb init failed (%s) or no AES-NI",
			imb_get_strerror(imb_get_errno(mgr)));
		rte_free(mem);
		return NULL;
	}
	return mgr;
}

static void
mgr_free(IMB_MGR *mgr)
{
	if (mgr == NULL)
		return;
	explicit_bzero(mgr, imb_get_mb_mgr_size());
	rte_free(mgr);
}

void
esp_lib_fini(void)
{
	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++) {
		mgr_free(esp_mgr[i]);
		esp_mgr[i] = NULL;
		esp_slot[i] = 0;
	}
	mgr_free(esp_key_mgr);
	esp_key_mgr = NULL;
	esp_nslots = 0;
}

int
esp_lib_init(void)
{
	unsigned lcore, slot = 0;

	if (esp_key_mgr != NULL)
		return 0;
	/* the EAL worker lcores first: slot 0's counters share the SA's first
	 * line (esp_sa_slot), so the first worker writes no other line */
	RTE_LCORE_FOREACH_WORKER(lcore) {
		esp_mgr[lcore] = mgr_alloc((int)rte_lcore_to_socket_id(lcore));
		if (esp_mgr[lcore] == NULL)
			goto fail;
		esp_slot[lcore] = (uint16_t)slot++;
	}
	lcore = rte_get_main_lcore();
	esp_mgr[lcore] = mgr_alloc((int)rte_lcore_to_socket_id(lcore));
	if (esp_mgr[lcore] == NULL)
		goto fail;
	esp_slot[lcore] = (uint16_t)slot++;
	/* non-EAL threads share the last slot and manager */
	esp_mgr[RTE_MAX_LCORE] = mgr_alloc(SOCKET_ID_ANY);
	if (esp_mgr[RTE_MAX_LCORE] == NULL)
		goto fail;
	esp_slot[RTE_MAX_LCORE] = (uint16_t)slot++;
	esp_nslots = slot;
	esp_key_mgr = mgr_alloc(SOCKET_ID_ANY);
	if (esp_key_mgr == NULL)
		goto fail;
	esp_gcm_off = esp_key_mgr->used_arch == IMB_ARCH_AVX512 &&
		      (esp_key_mgr->features & (IMB_FEATURE_VAES | IMB_FEATURE_VPCLMULQDQ)) ==
		      (IMB_FEATURE_VAES | IMB_FEATURE_VPCLMULQDQ) ? ESP_GCM_OFF_MAX : 0;
	ESP_LOG(INFO, "intel-ipsec-mb %s, arch %u, %u lcore slots, GCM key offset %u",
		imb_get_version_str(), esp_key_mgr->used_arch, esp_nslots, esp_gcm_off);
	return 0;
fail:
	ESP_LOG(ERR, "cannot allocate the intel-ipsec-mb managers");
	esp_lib_fini();
	return -1;
}

void
esp_hmac_precompute(IMB_MGR *mgr, const uint8_t *key, size_t key_len,
		    uint8_t ipad[ESP_SHA256_DIGEST], uint8_t opad[ESP_SHA256_DIGEST])
{
	uint8_t k[ESP_SHA256_BLOCK] = { 0 };
	uint8_t blk[ESP_SHA256_BLOCK];

	if (key_len > ESP_SHA256_BLOCK)
		SHA256(key, key_len, k);      /* RFC 2104: hash long keys first */
	else
		memcpy(k, key, key_len);
	for (unsigned i = 0; i < ESP_SHA256_BLOCK; i++)
		blk[i] = k[i] ^ 0x36;
	IMB_SHA256_ONE_BLOCK(mgr, blk, ipad);
	for (unsigned i = 0; i < ESP_SHA256_BLOCK; i++)
		blk[i] = k[i] ^ 0x5c;
	IMB_SHA256_ONE_BLOCK(mgr, blk, opad);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(blk, sizeof(blk));
}

static struct esp_sa *
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return NULL;
}

/* Fill path slot t for addresses local -> remote and UDP ports (host order;
 * 0, 0: plain ESP): the outer header template of esp_out.c. */
static void
build_path(struct esp_path_slot *t, const struct esp_path *p)
{
	bool udp = p->udp_sport != 0;
	uint8_t proto = udp ? GW_IPPROTO_UDP : GW_IPPROTO_ESP;

	memset(t, 0, sizeof(*t));
	t->local = p->local;
	t->remote = p->remote;
	t->family = p->local.family;
	t->udp = udp;
	t->sport_be = rte_cpu_to_be_16(p->udp_sport);
	t->dport_be = rte_cpu_to_be_16(p->udp_dport);
	if (t->family == 4) {
		struct rte_ipv4_hdr h = {
			.version_ihl = GW_IPV4_VER_IHL,
			.time_to_live = GW_IP_DEFAULT_TTL,
			.next_proto_id = proto,
		};

		memcpy(&t->o4_src, p->local.addr, 4);
		memcpy(&t->o4_dst, p->remote.addr, 4);
		h.src_addr = t->o4_src;
		h.dst_addr = t->o4_dst;
		t->ip_hlen = GW_IPV4_HDR_LEN;
		/* TOS, length, identification, flags and checksum are 0 here and
		 * added per packet (esp_out.c) */
		t->tmpl_sum = (uint16_t)~esp_cksum20(&h);
	} else {
		struct rte_ipv6_hdr *h = &t->tmpl6;

		h->vtc_flow = rte_cpu_to_be_32(gw_ipv6_vtc_flow(0));
		h->proto = proto;
		h->hop_limits = GW_IP_DEFAULT_TTL;
		memcpy(h->src_addr, p->local.addr, 16);
		memcpy(h->dst_addr, p->remote.addr, 16);
		t->ip_hlen = GW_IPV6_HDR_LEN;
		if (udp) {
			/* pseudo-header (RFC 8200 8.1) without the length, plus the
			 * ports: the constant part of every packet's UDP checksum */
			uint32_t sum = rte_raw_cksum(h->src_addr, 32) + rte_cpu_to_be_16(GW_IPPROTO_UDP) +
				       t->sport_be + t->dport_be;

			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			t->udp_sum6 = sum;
		}
	}
	t->encap_len = (uint8_t)(t->ip_hlen + (udp ? GW_UDP_HDR_LEN : 0));
}

/* Checked path: both addresses of one family, both ports 0 or neither. */
static bool
path_valid(const struct esp_path *p)
{
	return (p->local.family == 4 || p->local.family == 6) &&
	       p->local.family == p->remote.family && (p->udp_sport == 0) == (p->udp_dport == 0);
}

/* The run function of each direction and suite (dispatch). */
static const esp_run_fn runs[2][GW_SUITE_MAX] = {
	[GW_DIR_OUT] = { esp_out_gcm128, esp_out_gcm256, esp_out_cbc, esp_out_cbc, esp_out_null },
	[GW_DIR_IN] = { esp_in_gcm128, esp_in_gcm256, esp_in_cbc, esp_in_cbc, esp_in_null },
};

/* A zeroed SA for checked parameters p: its fields, outer header template,
 * and the anti-replay window (in) or sequence numbers (out) set; keys not
 * yet. NULL when out of memory. */
static struct esp_sa *
sa_alloc(const struct esp_sa_params *p)
{
	size_t hdr_len, stats_len, rw_len = 0, total;
	struct esp_sa *sa;

	hdr_len = ESP_SA_HDR_LEN;
	stats_len = (size_t)(esp_nslots - 1) * RTE_CACHE_LINE_SIZE;   /* slots 1.. */
	if (p->dir == GW_DIR_IN)
		rw_len = replay_bits_bytes(p->replay_window);
	total = hdr_len + stats_len + rw_len;
	sa = rte_zmalloc("esp_sa", total, RTE_CACHE_LINE_SIZE);
	if (sa == NULL)
		return NULL;
	sa->alloc_len = (uint32_t)total;
	sa->spi_be = rte_cpu_to_be_32(p->spi);
	sa->suite = (uint8_t)p->suite;
	sa->dir = (uint8_t)p->dir;
	sa->esn = p->esn;
	sa->beet = p->beet;
	sa->etherip = p->etherip;
	if (p->beet) {
		memcpy(sa->hit_local, p->hit_local, 16);
		memcpy(sa->hit_remote, p->hit_remote, 16);
	}
	sa->icv_len = GW_ESP_GCM_ICV_LEN;     /* = GW_ESP_HMAC256_ICV_LEN */
	{
		const struct esp_path path = { p->local, p->remote, p->udp_sport, p->udp_dport };

		build_path(&sa->path[0], &path);
	}
	if (p->dir == GW_DIR_IN) {
		replay_init(&sa->rw, esp_sa_rw_bits(sa), p->replay_window);
	} else {
		sa->seq = p->seq_first;
		sa->seq_limit = p->esn ? p->seq_limit : RTE_MIN(p->seq_limit, (uint64_t)UINT32_MAX);
	}
	return sa;
}

/* The keys of sa from p (lengths checked): AES-GCM's key schedule and salt
 * (RFC 4106); AES-CBC's schedules and an IV key (RFC 3602); with hmac the
 * HMAC-SHA-256 pads (RFC 4868). Returns 0, or -1 when no IV key could be
 * drawn. */
static int
sa_set_keys(struct esp_sa *sa, const struct esp_sa_params *p, bool hmac)
{
	uint8_t scratch[ESP_AES_SCHED_LEN] __rte_aligned(16);
	struct gcm_key_data *gk;
	uint8_t ivk[32];

	switch (p->suite) {
	case GW_SUITE_AES128_GCM16:
	case GW_SUITE_AES256_GCM16:
		sa->key_len = p->key_len - GW_ESP_GCM_SALT_LEN;
		sa->iv_len = GW_ESP_GCM_IV_LEN;
		sa->align = GW_ESP_MIN_ALIGN;
		memcpy(sa->salt, p->key + sa->key_len, GW_ESP_GCM_SALT_LEN);
		gk = (struct gcm_key_data *)(void *)(sa->k.gcm + esp_gcm_off);   /* esp_sa_gcm_key */
		if (sa->key_len == 16)
			IMB_AES128_GCM_PRE(esp_key_mgr, p->key, gk);
		else
			IMB_AES256_GCM_PRE(esp_key_mgr, p->key, gk);
		break;
	case GW_SUITE_AES128_CBC_SHA256:
	case GW_SUITE_AES256_CBC_SHA256:
		sa->key_len = p->key_len;
		sa->iv_len = GW_ESP_CBC_IV_LEN;
		sa->align = GW_ESP_CBC_BLOCK;
		/* IV key: RFC 3602 section 3 wants unpredictable IVs; the IV of a
		 * packet is AES(ivk, seq64 || 0^64), ivk drawn here from OpenSSL's
		 * CSPRNG. Distinct per packet (seq is), unpredictable without ivk. */
		if (RAND_bytes(ivk, sa->key_len) != 1)
			return -1;
		if (sa->key_len == 16) {
			IMB_AES_KEYEXP_128(esp_key_mgr, p->key, sa->k.cbc.enc, sa->k.cbc.dec);
			IMB_AES_KEYEXP_128(esp_key_mgr, ivk, sa->k.cbc.ivk, scratch);
		} else {
			IMB_AES_KEYEXP_256(esp_key_mgr, p->key, sa->k.cbc.enc, sa->k.cbc.dec);
			IMB_AES_KEYEXP_256(esp_key_mgr, ivk, sa->k.cbc.ivk, scratch);
		}
		explicit_bzero(scratch, sizeof(scratch));
		explicit_bzero(ivk, sizeof(ivk));
		break;
	default: /* NULL */
		sa->key_len = 0;
		sa->iv_len = 0;
		sa->align = GW_ESP_MIN_ALIGN;
		break;
	}
	if (hmac)
		esp_hmac_precompute(esp_key_mgr, p->auth_key, p->auth_key_len,
				    sa->k.cbc.ipad, sa->k.cbc.opad);
	return 0;
}

struct esp_sa *
esp_sa_create(const struct esp_sa_params *p, char *err, size_t errlen)
{
	struct esp_sa *sa;
	uint8_t want_key;
	bool gcm, hmac;

	/* the key lines sa_prefetch names start on a line (line 0: esp_internal.h) */
	RTE_BUILD_BUG_ON(offsetof(struct esp_sa, k) % RTE_CACHE_LINE_SIZE != 0);
	if (esp_key_mgr == NULL)
		return fail(err, errlen, "esp_lib_init() was not called");
	if (p == NULL)
		return fail(err, errlen, "no parameters");
	if (p->dir != GW_DIR_OUT && p->dir != GW_DIR_IN)
		return fail(err, errlen, "bad direction %d", (int)p->dir);
	if ((unsigned)p->suite >= GW_SUITE_MAX)
		return fail(err, errlen, "bad suite %d", (int)p->suite);
	if (p->spi < GW_ESP_SPI_MIN)
		return fail(err, errlen, "SPI %u is reserved (RFC 4303 2.1)", p->spi);
	gcm = p->suite == GW_SUITE_AES128_GCM16 || p->suite == GW_SUITE_AES256_GCM16;
	hmac = !gcm;
	switch (p->suite) {
	case GW_SUITE_AES128_GCM16: want_key = 16 + GW_ESP_GCM_SALT_LEN; break;
	case GW_SUITE_AES256_GCM16: want_key = 32 + GW_ESP_GCM_SALT_LEN; break;
	case GW_SUITE_AES128_CBC_SHA256: want_key = 16; break;
	case GW_SUITE_AES256_CBC_SHA256: want_key = 32; break;
	default: want_key = 0; break;
	}
	if (p->key_len != want_key || (want_key != 0 && p->key == NULL))
		return fail(err, errlen, "key is %u bytes, suite needs %u", p->key_len, want_key);
	if (hmac && (p->auth_key == NULL || p->auth_key_len != GW_ESP_HMAC256_KEY_LEN))
		return fail(err, errlen, "auth key is %u bytes, HMAC-SHA-256-128 needs %u (RFC 4868)",
			    p->auth_key_len, GW_ESP_HMAC256_KEY_LEN);
	if (gcm && p->auth_key_len != 0)
		return fail(err, errlen, "GCM suites take no auth key");
	if ((p->local.family != 4 && p->local.family != 6) || p->local.family != p->remote.family)
		return fail(err, errlen, "local and remote must both be IPv4 or both IPv6");
	if ((p->udp_sport == 0) != (p->udp_dport == 0))
		return fail(err, errlen, "UDP encapsulation needs both ports (RFC 3948)");
	if (p->dir == GW_DIR_IN && !replay_window_valid(p->replay_window))
		return fail(err, errlen, "replay window %u: must be a multiple of %u up to %u",
			    p->replay_window, GW_REPLAY_WINDOW_STEP_PACKETS,
			    GW_REPLAY_WINDOW_MAX_PACKETS);
	if (p->dir == GW_DIR_OUT) {
		if (p->seq_first == 0)
			return fail(err, errlen, "first sequence number must be >= 1");
		if (!p->esn && p->seq_first > UINT32_MAX)
			return fail(err, errlen, "first sequence number beyond 2^32-1 without ESN");
	}

	sa = sa_alloc(p);
	if (sa == NULL)
		return fail(err, errlen, "out of memory for SA 0x%x", p->spi);
	if (sa_set_keys(sa, p, hmac) != 0) {
		esp_sa_free(sa);
		return fail(err, errlen, "RAND_bytes failed for the CBC IV key");
	}
	return sa;
}

void
esp_sa_free(struct esp_sa *sa)
{
	if (sa == NULL)
		return;
	explicit_bzero(sa, sa->alloc_len);
	rte_free(sa);
}

uint32_t
esp_sa_spi(const struct esp_sa *sa)
{
	return rte_be_to_cpu_32(sa->spi_be);
}

enum gw_dir
esp_sa_dir(const struct esp_sa *sa)
{
	return (enum gw_dir)sa->dir;
}

const struct gw_addr *
esp_sa_remote(const struct esp_sa *sa)
{
	return &esp_sa_cur_path(sa)->remote;
}

const struct gw_addr *
esp_sa_local(const struct esp_sa *sa)
{
	return &esp_sa_cur_path(sa)->local;
}

bool
esp_sa_udp(const struct esp_sa *sa)
{
	return esp_sa_cur_path(sa)->udp != 0;
}

bool
esp_sa_path_is_remote(const struct esp_sa *sa, uint8_t family, const uint8_t *src, uint16_t port)
{
	const struct esp_path_slot *t = esp_sa_cur_path(sa);

	return t->remote.family == family && t->dport_be == rte_cpu_to_be_16(port) &&
	       memcmp(t->remote.addr, src, family == 4 ? 4 : 16) == 0;
}

void
esp_sa_path(const struct esp_sa *sa, struct esp_path *path)
{
	const struct esp_path_slot *t = esp_sa_cur_path(sa);

	path->local = t->local;
	path->remote = t->remote;
	path->udp_sport = rte_be_to_cpu_16(t->sport_be);
	path->udp_dport = rte_be_to_cpu_16(t->dport_be);
}

int
esp_sa_set_path(struct esp_sa *sa, const struct esp_path *path, struct rte_rcu_qsbr *qs, bool wait)
{
	uint8_t cur = __atomic_load_n(&sa->path_idx, __ATOMIC_RELAXED) & 1;

	if (!path_valid(path))
		return -EINVAL;
	/* the spare slot was current until the last swap: a reader that loaded
	 * path_idx before it may still read it, until its next quiescent state */
	if (sa->path_qs != NULL && rte_rcu_qsbr_check(sa->path_qs, sa->path_token, wait) != 1)
		return -EAGAIN;
	build_path(&sa->path[cur ^ 1], path);
	__atomic_store_n(&sa->path_idx, (uint8_t)(cur ^ 1), __ATOMIC_RELEASE);
	sa->path_qs = qs;
	if (qs != NULL)
		sa->path_token = rte_rcu_qsbr_start(qs);
	return 0;
}

bool
esp_sa_etherip(const struct esp_sa *sa)
{
	return sa->etherip != 0;
}

uint32_t
esp_sa_overhead(const struct esp_sa *sa, uint32_t inner_len)
{
	uint32_t pad = (0u - (inner_len + GW_ESP_TRAILER_LEN)) & (sa->align - 1u);

	return esp_sa_cur_path(sa)->encap_len + GW_ESP_HDR_LEN + sa->iv_len + pad + GW_ESP_TRAILER_LEN +
	       sa->icv_len;
}

uint64_t
esp_sa_seq(const struct esp_sa *sa)
{
	if (sa->dir == GW_DIR_IN)
		return replay_top(&sa->rw);
	return __atomic_load_n(&sa->seq, __ATOMIC_RELAXED);
}

void
esp_sa_set_seq_limit(struct esp_sa *sa, uint64_t limit)
{
	uint64_t cur;

	if (sa->dir != GW_DIR_OUT)
		return;
	if (!sa->esn && limit > UINT32_MAX)
		limit = UINT32_MAX;
	cur = __atomic_load_n(&sa->seq_limit, __ATOMIC_RELAXED);
	while (limit > cur &&
	       !__atomic_compare_exchange_n(&sa->seq_limit, &cur, limit, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

void
esp_sa_stats(const struct esp_sa *sa, uint64_t *packets, uint64_t *bytes)
{
	uint64_t p = 0, b = 0;

	for (unsigned i = 0; i < esp_nslots; i++) {
		const struct esp_sa_stats *st = esp_sa_slot((struct esp_sa *)(uintptr_t)sa, i);

		p += __atomic_load_n(&st->packets, __ATOMIC_RELAXED);
		b += __atomic_load_n(&st->bytes, __ATOMIC_RELAXED);
	}
	if (packets != NULL)
		*packets = p;
	if (bytes != NULL)
		*bytes = b;
}

/* Offset in struct gcm_key_data just past HashKey^1 (VAES layout). */
#define ESP_GCM_HKEY_END (offsetof(struct gcm_key_data, ghash_keys) + \
			  sizeof(((struct gcm_key_data *)0)->ghash_keys.vaes_avx512.shifted_hkey))

static __rte_always_inline void
sa_prefetch(const struct esp_sa *sa, unsigned slot, uint32_t len)
{
	const uint8_t *b = (const uint8_t *)sa;
	const uint8_t *k = b + offsetof(struct esp_sa, k);
	const uint8_t *h = k + esp_gcm_off + ESP_GCM_HKEY_END;   /* just past HashKey^1 */

	/* out: seq (compare-and-swap per run), the IPv4 outer header (the IPv6
	 * template on line 1: dispatch); in: the window state; both: slot 0's
	 * counters */
	rte_prefetch0_write(b);
	if (slot != 0)
		rte_prefetch0_write(esp_sa_slot((struct esp_sa *)(uintptr_t)sa, slot));
	/* GCM: round keys (AES-128 176 bytes, AES-256 240), then the GHASH
	 * keys a short packet reads (intel-ipsec-mb's VAES layout: HashKey^n at
	 * h - 16 n, read four at a time): HashKey^4 .. ^1 for up to 64 bytes of
	 * payload, ^8 .. ^5 beyond. With esp_gcm_off 16 each group is one line;
	 * at 0 they straddle two. CBC: its encrypt schedule. */
	rte_prefetch0(k);
	rte_prefetch0(k + 64);
	rte_prefetch0(k + 128);                  /* (AES-256's last round keys: one line late) */
	rte_prefetch0(h - 1);                                 /* HashKey^1 .. */
	if (esp_gcm_off == 0 || len == 0 || len > 64)
		rte_prefetch0(h - 1 - RTE_CACHE_LINE_SIZE);   /* .. ^8 */
}

/* About the bytes an inbound packet of ip_len bytes decrypts: less an IPv4
 * header, the ESP header, a GCM IV and the ICV (a prefetch hint only). */
static __rte_always_inline uint32_t
in_payload_hint(uint32_t ip_len)
{
	const uint32_t hdrs = GW_IPV4_HDR_LEN + GW_ESP_HDR_LEN + GW_ESP_GCM_IV_LEN + GW_ESP_GCM_ICV_LEN;

	return ip_len > hdrs ? ip_len - hdrs : 1;
}

void
esp_sa_prefetch(const struct esp_sa *sa, bool out, uint32_t ip_len)
{
	sa_prefetch(sa, esp_slot[esp_lcore_idx()],
		    ip_len == 0 ? 0 : out ? ip_len + GW_ESP_TRAILER_LEN : in_payload_hint(ip_len));
	/* the outer header template: path 0, the current one of every SA that
	 * never moved (which one is current would need line 0 read; dispatch
	 * asks for the right one once it has arrived) */
	if (out)
		rte_prefetch0(&sa->path[0]);
}

/* Prefetch the word of in SA sa's anti-replay bitmap that packet m (an ESP
 * packet, IP header first) will check, when the window is on. Reads the SA's
 * first line and the packet's ESP header; a malformed packet only prefetches
 * some word of the bitmap (esp_in.c checks it properly). */
static __rte_always_inline void
prefetch_replay_word(const struct esp_sa *sa, const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t dl = rte_pktmbuf_data_len(m), seq_be;
	unsigned hl;
	uint64_t seq;

	if (sa->rw.win == 0 || dl == 0)   /* an empty mbuf has no byte to read */
		return;
	hl = gw_ip_version(ip) == 4 ? gw_ipv4_hdr_bytes(ip) : GW_IPV6_HDR_LEN;
	if (dl < hl + GW_ESP_HDR_LEN)
		return;
	memcpy(&seq_be, ip + hl + 4, 4);
	seq = replay_infer(&sa->rw, sa->esn, rte_be_to_cpu_32(seq_be));
	rte_prefetch0_write(esp_sa_rw_bits(sa) + ((seq >> 6) & sa->rw.mask));
}

/* Dispatch: split the burst into runs of one SA (usually the whole burst) and
 * hand each to the SA's suite-specialised run function, so no per-packet
 * branch on the suite. Outbound also warms the headroom line the outer
 * headers go to. */
static __rte_always_inline void
dispatch(struct esp_sa *const sa[], struct rte_mbuf *mb[], uint8_t drop[], uint16_t n,
	 const bool out, const enum esp_out_mode mode)
{
	unsigned idx = esp_lcore_idx();
	IMB_MGR *mgr = esp_mgr[idx];
	unsigned slot = esp_slot[idx];
	uint16_t i = 0;

	for (uint16_t k = 0; k < n; k++) {
		uint8_t *d = rte_pktmbuf_mtod(mb[k], uint8_t *);

		rte_prefetch0(d);
		if (out) {
			rte_prefetch0_write(d - RTE_CACHE_LINE_SIZE);
			if (k == 0 || sa[k] != sa[k - 1])
				rte_prefetch0(esp_sa_cur_path(sa[k]));   /* the worker prefetched line 0 */
		} else if (k == 0 || sa[k] != sa[k - 1]) {
			/* again: the worker asked for these lines already, but at a
			 * million SAs dropping this second request measured slower
			 * (one A/B pair, decrypt: 2.36 against 2.84 Mpps) */
			sa_prefetch(sa[k], slot, in_payload_hint(rte_pktmbuf_data_len(mb[k])));
		}
	}
	if (!out)            /* second pass: the SAs' first lines have had time to arrive */
		for (uint16_t k = 0; k < n; k++)
			if (k == 0 || sa[k] != sa[k - 1])
				prefetch_replay_word(sa[k], mb[k]);
	while (i < n) {
		uint16_t j = i + 1;

		while (j < n && sa[j] == sa[i] && j - i < GW_ESP_BURST_MAX_PACKETS)
			j++;
		if (mode != ESP_OUT_TUNNEL)
			esp_out_mode_run(sa[i], mgr, slot, &mb[i], &drop[i], j - i, mode);
		else
			runs[sa[i]->dir][sa[i]->suite](sa[i], mgr, slot, &mb[i], &drop[i], j - i);
		i = j;
	}
}

void
esp_outbound_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[], uint8_t drop[], uint16_t n)
{
	dispatch(sa, mb, drop, n, true, ESP_OUT_TUNNEL);
}

void
esp_outbound_beet_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[], uint8_t drop[],
			uint16_t n)
{
	dispatch(sa, mb, drop, n, true, ESP_OUT_BEET);
}

void
esp_outbound_etherip_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[], uint8_t drop[],
			   uint16_t n)
{
	dispatch(sa, mb, drop, n, true, ESP_OUT_ETHERIP);
}

void
esp_inbound_burst(struct esp_sa *const sa[], struct rte_mbuf *mb[], uint8_t drop[], uint16_t n)
{
	dispatch(sa, mb, drop, n, false, ESP_OUT_TUNNEL);
}

/* ---------- unit-test entry points ---------- */

void
esp_test_gcm(const struct esp_sa *sa, bool enc, const uint8_t iv[8], const uint8_t *aad,
	     uint32_t aad_len, uint8_t *buf, uint32_t len, uint8_t tag[16])
{
	IMB_MGR *mgr = esp_mgr[esp_lcore_idx()];
	uint8_t nonce[16];

	memcpy(nonce, sa->salt, GW_ESP_GCM_SALT_LEN);
	memcpy(nonce + GW_ESP_GCM_SALT_LEN, iv, GW_ESP_GCM_IV_LEN);
	if (sa->key_len == 32) {
		if (enc)
			esp_gcm_enc(sa, mgr, 1, buf, buf, len, nonce, aad, aad_len, tag);
		else
			esp_gcm_dec(sa, mgr, 1, buf, buf, len, nonce, aad, aad_len, tag);
	} else {
		if (enc)
			esp_gcm_enc(sa, mgr, 0, buf, buf, len, nonce, aad, aad_len, tag);
		else
			esp_gcm_dec(sa, mgr, 0, buf, buf, len, nonce, aad, aad_len, tag);
	}
}

int
esp_test_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, uint32_t len,
		     uint8_t *out, uint32_t tag_len)
{
	IMB_MGR *mgr = esp_mgr[esp_lcore_idx()];
	uint8_t ipad[ESP_SHA256_DIGEST] __rte_aligned(16), opad[ESP_SHA256_DIGEST] __rte_aligned(16);
	IMB_JOB *job;
	int rc = -1;

	esp_hmac_precompute(esp_key_mgr, key, key_len, ipad, opad);
	job = IMB_GET_NEXT_JOB(mgr);
	esp_job_hmac(job, ipad, opad, msg, len, out, tag_len);
	job->user_data = NULL;
	job = IMB_SUBMIT_JOB(mgr);
	if (job == NULL)
		job = IMB_FLUSH_JOB(mgr);
	if (job != NULL && job->status == IMB_STATUS_COMPLETED)
		rc = 0;
	while (IMB_FLUSH_JOB(mgr) != NULL)
		;
	explicit_bzero(ipad, sizeof(ipad));
	explicit_bzero(opad, sizeof(opad));
	return rc;
}

void
esp_test_set_replay_top(struct esp_sa *sa, uint64_t top)
{
	if (sa->dir == GW_DIR_IN) {
		replay_init(&sa->rw, esp_sa_rw_bits(sa), sa->rw.win);
		sa->rw.top = top;
	}
}

void
esp_sa_uncount(struct esp_sa *sa, uint32_t bytes)
{
	struct esp_sa_stats *st = esp_sa_slot(sa, esp_slot[esp_lcore_idx()]);

	__atomic_store_n(&st->packets, st->packets - 1, __ATOMIC_RELAXED);
	__atomic_store_n(&st->bytes, st->bytes - bytes, __ATOMIC_RELAXED);
}
