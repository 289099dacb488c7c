/* SPDX-License-Identifier: BSD-3-Clause
 * ESP internals shared by esp_sa.c, esp_out.c, esp_in.c and the unit tests:
 * the SA layout, the per-lcore intel-ipsec-mb managers, and the crypto helpers
 * the data path itself uses (so the known-answer tests exercise the same code).
 * Not part of the public API (esp.h).
 */
#ifndef HIPGW_ESP_INTERNAL_H
#define HIPGW_ESP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <intel-ipsec-mb.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#include "esp.h"
#include "gw_cksum.h"
#include "hipgw_wire.h"
#include "replay.h"

#define ESP_AES_MAX_ROUNDS 14
#define ESP_AES_SCHED_LEN (16 * (ESP_AES_MAX_ROUNDS + 1))
#define ESP_SHA256_DIGEST 32
#define ESP_SHA256_BLOCK 64

/* Where struct gcm_key_data starts in esp_sa.k: 16 with intel-ipsec-mb's
 * VAES/AVX-512 GCM, else 0 (esp_lib_init). At 16 a short packet's GHASH keys
 * (HashKey^4 .. ^1, the last 64 bytes, one 64-byte load) fill one cache line
 * instead of straddling two, and the AES-128 round keys still take three:
 * four key lines per packet instead of five. The VAES code reads the key
 * data only with unaligned loads and its key set-up stores 16-byte aligned
 * (checked in the library's disassembly; the known-answer tests run with it);
 * the other implementations get the 64-byte alignment the header declares. */
#define ESP_GCM_OFF_MAX 16
extern unsigned esp_gcm_off;

struct esp_sa;

/* Suite- and direction-specialised handler for a run of packets of one SA.
 * mgr is the calling lcore's manager, slot its statistics slot. */
typedef void (*esp_run_fn)(struct esp_sa *sa, IMB_MGR *mgr, unsigned slot,
			   struct rte_mbuf **mb, uint8_t *drop, uint16_t n);

/* Per-lcore counters of one SA, written only by their lcore. Slot 0 (the
 * first EAL worker lcore: esp_lib_init) lies in the SA's first line, which
 * every packet reads anyway; slots 1.. follow the SA header, one cache line
 * each (esp_sa_slot). With a million SAs each line a packet touches is a
 * DRAM access, so the usual one-worker gateway saves one per packet. */
struct esp_sa_stats {
	uint64_t packets;
	uint64_t bytes;          /* inner packet bytes */
};

/* One outer path of an SA (esp_sa_set_path): the outer header template the
 * outbound burst reads (first line) and the addresses the control lcore reads
 * (second). An SA holds two, double buffered: the workers use the one
 * path_idx names, loaded once per run; the control lcore rewrites the other
 * only after a grace period since the last swap (esp_sa_set_path). */
struct esp_path_slot {
	/* ---- per packet (outbound) ---- */
	struct rte_ipv6_hdr tmpl6;   /* IPv6: version, next header 50 or 17, hop limit
	                              * 64, addresses */
	uint32_t o4_src, o4_dst;     /* IPv4: addresses (network order) */
	uint32_t tmpl_sum;           /* IPv4: ones' complement sum of the header's
	                              * constant words (variable ones added per packet) */
	uint32_t udp_sum6;           /* IPv6 + UDP: sum of the pseudo-header's addresses
	                              * and next header 17 (RFC 8200 8.1) and the ports */
	uint16_t sport_be, dport_be; /* UDP encapsulation (RFC 3948): ports, network
	                              * order; both 0: plain ESP */
	uint8_t family;              /* 4 or 6 */
	uint8_t ip_hlen;             /* outer IP header: 20 or 40 bytes */
	uint8_t encap_len;           /* bytes before the ESP header: ip_hlen, + 8 with UDP */
	uint8_t udp;                 /* 1: UDP-encapsulated */
	/* ---- control lcore, pmtu ---- */
	struct gw_addr local __rte_cache_aligned;
	struct gw_addr remote;
} __rte_cache_aligned;

struct esp_sa {
	/* ---- cache line 0: what every packet reads ---- */
	union {
		struct {
			uint64_t seq;        /* out: next sequence number to send (see esp_out.c) */
			uint64_t seq_limit;  /* out: last that may be sent; already <= 2^32-1 without ESN */
		};
		struct replay_window rw; /* in: anti-replay window; its bitmap after the
		                          * stats slots (esp_sa_rw_bits) */
	};
	struct esp_sa_stats st0;     /* counters of stats slot 0 (esp_sa_slot) */
	uint32_t spi_be;             /* network order, as written on the wire */
	uint8_t salt[GW_ESP_GCM_SALT_LEN];  /* GCM (RFC 4106 section 4) */
	uint8_t path_idx;            /* path[path_idx] is the current path (atomic:
	                              * release store by esp_sa_set_path, acquire load
	                              * once per run) */
	uint8_t suite;               /* enum gw_suite: with dir, picks the run function */
	uint8_t dir;                 /* enum gw_dir */
	uint8_t esn;
	uint8_t iv_len;              /* 8 GCM, 16 CBC, 0 NULL */
	uint8_t icv_len;             /* 16 */
	uint8_t align;               /* padding alignment: 16 CBC, 4 GCM and NULL */
	uint8_t key_len;             /* AES key bytes (16/32), 0 for NULL */
	uint8_t beet;                /* BEET next headers accepted / sent (esp.h) */
	uint8_t etherip;             /* EtherIP (next header 97) accepted / sent (esp.h) */

	/* ---- cache lines 1-4: the two paths ---- */
	struct esp_path_slot path[2];
	/* ---- the rest (control lcore, BEET) ---- */
	uint64_t path_token;         /* rte_rcu_qsbr token of the last swap */
	struct rte_rcu_qsbr *path_qs;  /* the readers of that swap; NULL: none to wait for */
	uint32_t alloc_len;          /* bytes of this allocation, wiped on free */
	uint8_t hit_local[16];       /* BEET: inner addresses (network order) */
	uint8_t hit_remote[16];

	/* ---- key material (wiped on free) ---- */
	union {
		/* GCM: struct gcm_key_data (expanded AES key + GHASH tables) at
		 * esp_gcm_off (esp_sa_gcm_key) */
		uint8_t gcm[ESP_GCM_OFF_MAX + sizeof(struct gcm_key_data)];
		struct {
			uint8_t enc[ESP_AES_SCHED_LEN] __rte_aligned(16);
			uint8_t dec[ESP_AES_SCHED_LEN] __rte_aligned(16);
			uint8_t ivk[ESP_AES_SCHED_LEN] __rte_aligned(16); /* IV key (encrypt schedule) */
			uint8_t ipad[ESP_SHA256_DIGEST] __rte_aligned(16);
			uint8_t opad[ESP_SHA256_DIGEST] __rte_aligned(16);
		} cbc;                                    /* CBC-HMAC and NULL-HMAC suites */
	} k __rte_cache_aligned;
	/* followed by: stats slots 1 .. esp_nslots-1 (a cache line each), then
	 * the replay window (in) */
};

_Static_assert(offsetof(struct esp_sa, path) == RTE_CACHE_LINE_SIZE,
	       "what every packet reads fits in the SA's first cache line");
_Static_assert(offsetof(struct esp_path_slot, local) == RTE_CACHE_LINE_SIZE,
	       "a path's per-packet template fits in one cache line");

/* The path the workers use now (one acquire load: call once per run). */
static __rte_always_inline const struct esp_path_slot *
esp_sa_cur_path(const struct esp_sa *sa)
{
	return &sa->path[__atomic_load_n(&sa->path_idx, __ATOMIC_ACQUIRE) & 1];
}

/* Bytes from an SA to its stats slot 1 (the header, rounded to lines). */
#define ESP_SA_HDR_LEN RTE_ALIGN_CEIL(sizeof(struct esp_sa), RTE_CACHE_LINE_SIZE)

/* One manager per lcore id, plus one at index RTE_MAX_LCORE for non-EAL
 * threads (one such thread at a time). Filled by esp_lib_init. */
extern IMB_MGR *esp_mgr[RTE_MAX_LCORE + 1];
extern uint16_t esp_slot[RTE_MAX_LCORE + 1];   /* lcore id -> stats slot */
extern unsigned esp_nslots;

/* The calling lcore's counters of sa (slot = its esp_slot). */
static __rte_always_inline struct esp_sa_stats *
esp_sa_slot(struct esp_sa *sa, unsigned slot)
{
	if (likely(slot == 0))
		return &sa->st0;
	return (struct esp_sa_stats *)((uint8_t *)sa + ESP_SA_HDR_LEN +
				       (size_t)(slot - 1) * RTE_CACHE_LINE_SIZE);
}

/* The bitmap of an in SA's anti-replay window (after the stats slots). */
static __rte_always_inline uint64_t *
esp_sa_rw_bits(const struct esp_sa *sa)
{
	return (uint64_t *)((uintptr_t)sa + ESP_SA_HDR_LEN +
			    (size_t)(esp_nslots - 1) * RTE_CACHE_LINE_SIZE);
}

/* The SA's GCM key data (GCM suites). */
static __rte_always_inline const struct gcm_key_data *
esp_sa_gcm_key(const struct esp_sa *sa)
{
	return (const struct gcm_key_data *)(const void *)(sa->k.gcm + esp_gcm_off);
}

static __rte_always_inline unsigned
esp_lcore_idx(void)
{
	unsigned id = rte_lcore_id();

	return id < RTE_MAX_LCORE ? id : RTE_MAX_LCORE;
}

/* Run functions, one per suite family and direction (esp_out.c / esp_in.c). */
void esp_out_gcm128(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
void esp_out_gcm256(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
void esp_out_cbc(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
void esp_out_null(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
void esp_in_gcm128(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
void esp_in_gcm256(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
void esp_in_cbc(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
void esp_in_null(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t);
/* Outbound BEET (esp_outbound_beet_burst) or EtherIP (esp_outbound_etherip_burst)
 * for a run of one SA (esp_out.c): mode ESP_OUT_BEET or ESP_OUT_ETHERIP. */
enum esp_out_mode { ESP_OUT_TUNNEL = 0, ESP_OUT_BEET = 1, ESP_OUT_ETHERIP = 2 };
void esp_out_mode_run(struct esp_sa *, IMB_MGR *, unsigned, struct rte_mbuf **, uint8_t *, uint16_t,
		      enum esp_out_mode);

/* ---------- helpers used by the data path (and by the tests through them) ---------- */

/* Constant-time comparison of two 16-byte ICVs: 0 when equal. No early exit. */
static __rte_always_inline uint64_t
esp_icv_diff16(const uint8_t *a, const uint8_t *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, b + 8, 8);
	return (a0 ^ b0) | (a1 ^ b1);
}

/* IPv4 header checksum of a 20-byte header (no options): 0 over a valid one. */
static __rte_always_inline uint16_t
esp_cksum20(const void *hdr)
{
	return (uint16_t)~gw_ipv4_sum20(hdr);
}

/* AES-GCM seal / open, RFC 4106: nonce = salt (4) || explicit IV (8), 16-byte
 * tag. In place allowed. aes256 is a compile-time constant at every call site. */
static __rte_always_inline void
esp_gcm_enc(const struct esp_sa *sa, IMB_MGR *mgr, const int aes256,
	    uint8_t *dst, const uint8_t *src, uint64_t len, const uint8_t nonce[12],
	    const uint8_t *aad, uint64_t aad_len, uint8_t *tag)
{
	struct gcm_context_data ctx;

	if (aes256)
		IMB_AES256_GCM_ENC(mgr, esp_sa_gcm_key(sa), &ctx, dst, src, len, nonce, aad,
				   aad_len, tag, GW_ESP_GCM_ICV_LEN);
	else
		IMB_AES128_GCM_ENC(mgr, esp_sa_gcm_key(sa), &ctx, dst, src, len, nonce, aad,
				   aad_len, tag, GW_ESP_GCM_ICV_LEN);
}

static __rte_always_inline void
esp_gcm_dec(const struct esp_sa *sa, IMB_MGR *mgr, const int aes256,
	    uint8_t *dst, const uint8_t *src, uint64_t len, const uint8_t nonce[12],
	    const uint8_t *aad, uint64_t aad_len, uint8_t *tag)
{
	struct gcm_context_data ctx;

	if (aes256)
		IMB_AES256_GCM_DEC(mgr, esp_sa_gcm_key(sa), &ctx, dst, src, len, nonce, aad,
				   aad_len, tag, GW_ESP_GCM_ICV_LEN);
	else
		IMB_AES128_GCM_DEC(mgr, esp_sa_gcm_key(sa), &ctx, dst, src, len, nonce, aad,
				   aad_len, tag, GW_ESP_GCM_ICV_LEN);
}

/* Fill an intel-ipsec-mb job for HMAC-SHA-256 over [src, src+len) with tag_len
 * bytes of output (16 for HMAC-SHA-256-128, RFC 4868), no cipher. Used by the
 * NULL suite and, with the cipher fields set afterwards, by the CBC suites. */
static __rte_always_inline void
esp_job_hmac(IMB_JOB *job, const uint8_t *ipad, const uint8_t *opad,
	     const uint8_t *src, uint64_t len, uint8_t *tag, uint64_t tag_len)
{
	job->cipher_mode = IMB_CIPHER_NULL;
	job->cipher_direction = IMB_DIR_ENCRYPT;
	job->chain_order = IMB_ORDER_HASH_CIPHER;
	job->src = src;
	job->dst = (uint8_t *)(uintptr_t)src;
	job->cipher_start_src_offset_in_bytes = 0;
	job->msg_len_to_cipher_in_bytes = 0;
	job->iv = NULL;
	job->iv_len_in_bytes = 0;
	job->enc_keys = NULL;
	job->dec_keys = NULL;
	job->key_len_in_bytes = 0;
	job->hash_alg = IMB_AUTH_HMAC_SHA_256;
	job->hash_start_src_offset_in_bytes = 0;
	job->msg_len_to_hash_in_bytes = len;
	job->auth_tag_output = tag;
	job->auth_tag_output_len_in_bytes = tag_len;
	job->u.HMAC._hashed_auth_key_xor_ipad = ipad;
	job->u.HMAC._hashed_auth_key_xor_opad = opad;
}

/* ---------- esp_sa.c internals ---------- */

/* HMAC-SHA-256 inner/outer precomputation (any key length; longer than a block
 * is hashed first, RFC 2104). */
void esp_hmac_precompute(IMB_MGR *mgr, const uint8_t *key, size_t key_len,
			 uint8_t ipad[ESP_SHA256_DIGEST], uint8_t opad[ESP_SHA256_DIGEST]);

/* ---------- for the unit tests only ---------- */

/* GCM through esp_gcm_enc / esp_gcm_dec with the SA's key and salt and an
 * explicit IV of the caller's choosing. enc: buf is encrypted in place and tag
 * written; !enc: buf decrypted in place and the computed tag written to tag. */
void esp_test_gcm(const struct esp_sa *sa, bool enc, const uint8_t iv[8],
		  const uint8_t *aad, uint32_t aad_len, uint8_t *buf, uint32_t len,
		  uint8_t tag[16]);

/* HMAC-SHA-256 of msg under key through esp_hmac_precompute and the job path
 * the NULL / CBC suites use; out gets tag_len (16 or 32) bytes. 0 or -1. */
int esp_test_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg,
			 uint32_t len, uint8_t *out, uint32_t tag_len);

/* Set the inbound window's top as if sequence number `top` had been received. */
void esp_test_set_replay_top(struct esp_sa *sa, uint64_t top);

/* Outbound for one packet through the same code as esp_outbound_burst, with the
 * trailer tampered before encryption: mode 1 = pad length byte set to 255,
 * mode 2 = first pad byte wrong (needs at least one pad byte; else -1).
 * Returns the drop reason (GW_DROP_NONE on success) or -1. */
int esp_test_outbound_tampered(struct esp_sa *sa, struct rte_mbuf *m, int mode);

/* One AES block (FIPS-197) through the key expansion and the AES-NI block
 * function the CBC IV generation uses. key_len 16 or 32. */
void esp_test_aes_block(const uint8_t *key, unsigned key_len, const uint8_t in[16],
			uint8_t out[16]);

/* Collect finished intel-ipsec-mb jobs, starting with `job` (what SUBMIT
 * returned; may be NULL): a job that did not complete marks its packet
 * (user_data = burst index) with `reason`. */
static __rte_always_inline void
esp_jobs_reap(IMB_MGR *mgr, IMB_JOB *job, uint8_t *drop, uint8_t reason)
{
	for (; job != NULL; job = IMB_GET_COMPLETED_JOB(mgr))
		if (unlikely(job->status != IMB_STATUS_COMPLETED))
			drop[(uintptr_t)job->user_data] = reason;
}

/* idx[0 .. n) ordered by len[] (len[k] belongs to idx[k]), longest first,
 * equal lengths in arrival order: idx itself when all lengths are equal, else
 * ord filled. Jobs submitted in this order
 * leave only short ones in the multi-buffer lanes that the flush at the end of
 * the burst runs with idle neighbours (mixed sizes, IMIX). n <= GW_ESP_BURST_MAX_PACKETS;
 * linear when all lengths are equal. */
static __rte_always_inline const uint16_t *
esp_order_longest_first(uint16_t *ord, const uint16_t *idx, const uint32_t *len, uint16_t n)
{
	uint32_t l[GW_ESP_BURST_MAX_PACKETS];
	uint16_t k;

	for (k = 1; k < n && len[k] == len[0]; k++)
		;
	if (k >= n)
		return idx;          /* one size (the usual case): arrival order */
	for (k = 0; k < n; k++) {
		uint16_t j = k;

		while (j > 0 && l[j - 1] < len[k]) {
			l[j] = l[j - 1];
			ord[j] = ord[j - 1];
			j--;
		}
		l[j] = len[k];
		ord[j] = idx[k];
	}
	return ord;
}

/* Flush the manager at the end of a burst, marking failed jobs likewise. */
static __rte_always_inline void
esp_jobs_flush(IMB_MGR *mgr, uint8_t *drop, uint8_t reason)
{
	IMB_JOB *job;

	while ((job = IMB_FLUSH_JOB(mgr)) != NULL)
		if (unlikely(job->status != IMB_STATUS_COMPLETED))
			drop[(uintptr_t)job->user_data] = reason;
}


#endif
