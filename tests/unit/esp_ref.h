/* SPDX-License-Identifier: BSD-3-Clause
 * Reference ESP tunnel-mode encapsulation (RFC 4303 section 2, RFC 4106 GCM,
 * RFC 3602 CBC, RFC 4868 HMAC-SHA-256-128, ESN per section 2.2.1) on OpenSSL
 * EVP, independent of lib/esp, for the unit tests and the fuzz harness: every
 * trailer field is the caller's, so packets that are authentic but bad after
 * the ICV (padding, next header, inner header, TFC bytes) can be made.
 * Header-only; needs OpenSSL 3 (libcrypto) and rte_ip.h for the checksum.
 */
#ifndef HIPGW_ESP_REF_H
#define HIPGW_ESP_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <rte_byteorder.h>
#include <rte_ip.h>

#include "esp.h"
#include "gw_types.h"
#include "hipgw_wire.h"

#define ESP_REF_MAX 9216      /* largest packet esp_ref_build writes, bytes */

struct esp_ref_sa {
	enum gw_suite suite;
	bool esn;
	uint32_t spi;             /* host order */
	const uint8_t *key;       /* AES key (16/32), GCM: followed by the 4-byte salt */
	const uint8_t *auth_key;  /* HMAC key, 32 bytes (CBC / NULL suites) */
	int outer_fam;            /* 4 or 6 */
};

/* What goes into one ESP packet; the trailer is taken as given. */
struct esp_ref_pkt {
	uint64_t seq;             /* 64-bit; the low half is sent, the high half is ICV input with ESN */
	const uint8_t *iv;        /* 8 (GCM) or 16 (CBC) bytes; NULL suite: none */
	const uint8_t *payload;   /* inner packet and any TFC bytes */
	size_t payload_len;
	const uint8_t *pad;       /* padding bytes (RFC 4303 2.4: 1, 2, 3, ... when sound) */
	size_t pad_len;
	uint8_t pad_len_byte;     /* the Pad Length field (usually pad_len) */
	uint8_t nh;               /* next header: 4, 41, 59, ... */
	uint8_t outer_tos;        /* outer DSCP/ECN byte */
	bool forge;               /* flip one ICV bit */
};

static inline bool
esp_ref_gcm(enum gw_suite s)
{
	return s == GW_SUITE_AES128_GCM16 || s == GW_SUITE_AES256_GCM16;
}

static inline unsigned
esp_ref_key_len(enum gw_suite s)
{
	return s == GW_SUITE_AES128_GCM16 || s == GW_SUITE_AES128_CBC_SHA256 ? 16 :
	       s == GW_SUITE_NULL_SHA256 ? 0 : 32;
}

static inline unsigned
esp_ref_iv_len(enum gw_suite s)
{
	return esp_ref_gcm(s) ? GW_ESP_GCM_IV_LEN : s == GW_SUITE_NULL_SHA256 ? 0 : GW_ESP_CBC_IV_LEN;
}

/* Padding alignment of the suite, bytes (RFC 4303 2.4; CBC: the block). */
static inline unsigned
esp_ref_align(enum gw_suite s)
{
	return s == GW_SUITE_AES128_CBC_SHA256 || s == GW_SUITE_AES256_CBC_SHA256 ?
	       GW_ESP_CBC_BLOCK : 4;
}

/* esp_sa_create parameters of the in SA that opens what esp_ref_build makes on
 * ref, with an anti-replay window of win packets (outer addresses left
 * unset: inbound selects the SA by its SPI alone). */
static inline void
esp_ref_in_params(const struct esp_ref_sa *ref, uint32_t win, struct esp_sa_params *p)
{
	memset(p, 0, sizeof(*p));
	p->spi = ref->spi;
	p->dir = GW_DIR_IN;
	p->suite = ref->suite;
	p->key = ref->key;
	p->key_len = (uint8_t)(esp_ref_key_len(ref->suite) +
			       (esp_ref_gcm(ref->suite) ? GW_ESP_GCM_SALT_LEN : 0));
	if (!esp_ref_gcm(ref->suite)) {
		p->auth_key = ref->auth_key;
		p->auth_key_len = GW_ESP_HMAC256_KEY_LEN;
	}
	p->esn = ref->esn;
	p->replay_window = win;
	p->local.family = p->remote.family = 4;
}

/* Pad bytes a sender adds after payload_len bytes (fills pad[], returns the count). */
static inline size_t
esp_ref_default_pad(enum gw_suite s, size_t payload_len, uint8_t pad[GW_ESP_CBC_BLOCK])
{
	size_t a = esp_ref_align(s), n = (a - (payload_len + GW_ESP_TRAILER_LEN) % a) % a;

	for (size_t i = 0; i < n; i++)
		pad[i] = (uint8_t)(i + 1);
	return n;
}

static inline int
esp_ref_cipher(const EVP_CIPHER *c, int enc, const uint8_t *key, const uint8_t *iv,
	       const uint8_t *aad, int aad_len, uint8_t *buf, int len, uint8_t tag[16])
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int ok, l = 0, gcm = EVP_CIPHER_mode(c) == EVP_CIPH_GCM_MODE;

	ok = ctx != NULL && EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc) == 1 &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
	     (!gcm || EVP_CipherUpdate(ctx, NULL, &l, aad, aad_len) == 1) &&
	     (len == 0 || EVP_CipherUpdate(ctx, buf, &l, buf, len) == 1) &&
	     EVP_CipherFinal_ex(ctx, buf + l, &l) == 1 &&
	     (!gcm || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1);
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

/* Write the outer IP packet (IPv4 192.0.2.1 -> .2 or IPv6 2001:db8::1 -> ::2,
 * protocol ESP) carrying pk on sa into out (cap bytes). Returns its length in
 * bytes, 0 when it does not fit, or the CBC plaintext is no block multiple. */
static inline size_t
esp_ref_build(const struct esp_ref_sa *sa, const struct esp_ref_pkt *pk, uint8_t *out, size_t cap)
{
	const unsigned hl = sa->outer_fam == 4 ? GW_IPV4_HDR_LEN : GW_IPV6_HDR_LEN;
	const unsigned ivl = esp_ref_iv_len(sa->suite), kl = esp_ref_key_len(sa->suite);
	size_t ptl = pk->payload_len + pk->pad_len + GW_ESP_TRAILER_LEN;
	size_t len = hl + GW_ESP_HDR_LEN + ivl + ptl + 16;
	uint8_t *esp = out + hl, *pt = esp + GW_ESP_HDR_LEN + ivl, *icv = pt + ptl;
	uint32_t spi_be = rte_cpu_to_be_32(sa->spi), lo_be = rte_cpu_to_be_32((uint32_t)pk->seq);
	uint32_t hi_be = rte_cpu_to_be_32((uint32_t)(pk->seq >> 32));

	if (len > cap || len > UINT16_MAX || (ivl == GW_ESP_CBC_IV_LEN && ptl % GW_ESP_CBC_BLOCK))
		return 0;
	memset(out, 0, hl);
	if (sa->outer_fam == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)out;

		h->version_ihl = 0x45;
		h->type_of_service = pk->outer_tos;
		h->total_length = rte_cpu_to_be_16((uint16_t)len);
		h->time_to_live = 64;
		h->next_proto_id = GW_IPPROTO_ESP;
		h->src_addr = rte_cpu_to_be_32(0xc0000201);
		h->dst_addr = rte_cpu_to_be_32(0xc0000202);
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)out;

		h->vtc_flow = rte_cpu_to_be_32((6u << 28) | ((uint32_t)pk->outer_tos << 20));
		h->payload_len = rte_cpu_to_be_16((uint16_t)(len - hl));
		h->proto = GW_IPPROTO_ESP;
		h->hop_limits = 64;
		h->src_addr[0] = h->dst_addr[0] = 0x20;
		h->src_addr[1] = h->dst_addr[1] = 0x01;
		h->src_addr[2] = h->dst_addr[2] = 0x0d;
		h->src_addr[3] = h->dst_addr[3] = 0xb8;
		h->src_addr[15] = 1;
		h->dst_addr[15] = 2;
	}
	memcpy(esp, &spi_be, 4);
	memcpy(esp + 4, &lo_be, 4);
	memcpy(esp + GW_ESP_HDR_LEN, pk->iv, ivl);
	memcpy(pt, pk->payload, pk->payload_len);
	memcpy(pt + pk->payload_len, pk->pad, pk->pad_len);
	pt[ptl - 2] = pk->pad_len_byte;
	pt[ptl - 1] = pk->nh;
	if (esp_ref_gcm(sa->suite)) {
		uint8_t nonce[12], aad[12];

		memcpy(nonce, sa->key + kl, GW_ESP_GCM_SALT_LEN);
		memcpy(nonce + 4, pk->iv, GW_ESP_GCM_IV_LEN);
		memcpy(aad, esp, 4);
		memcpy(aad + 4, &hi_be, 4);
		memcpy(aad + 8, esp + 4, 4);
		if (esp_ref_cipher(kl == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm(), 1, sa->key,
				   nonce, sa->esn ? aad : esp, sa->esn ? 12 : 8, pt, (int)ptl,
				   icv) != 0)
			return 0;
	} else {
		uint8_t mac[32];
		unsigned ml = 0;

		if (kl != 0 && esp_ref_cipher(kl == 16 ? EVP_aes_128_cbc() : EVP_aes_256_cbc(), 1,
					      sa->key, pk->iv, NULL, 0, pt, (int)ptl, NULL) != 0)
			return 0;
		/* ESN: the high half follows the packet in the ICV input (2.2.1);
		 * it is written where the ICV goes, then overwritten */
		memcpy(icv, &hi_be, 4);
		if (HMAC(EVP_sha256(), sa->auth_key, 32, esp, (size_t)(icv - esp) + (sa->esn ? 4 : 0),
			 mac, &ml) == NULL)
			return 0;
		memcpy(icv, mac, 16);
	}
	if (pk->forge)
		icv[5] ^= 0x10;
	return len;
}

/* The usual sound packet: payload, then the suite's default padding, nh. */
static inline size_t
esp_ref_build_simple(const struct esp_ref_sa *sa, uint64_t seq, const uint8_t *iv,
		     const uint8_t *payload, size_t len, uint8_t nh, bool forge, uint8_t *out,
		     size_t cap)
{
	uint8_t pad[GW_ESP_CBC_BLOCK];
	struct esp_ref_pkt pk = { .seq = seq, .iv = iv, .payload = payload, .payload_len = len,
				  .pad = pad, .nh = nh, .forge = forge };

	pk.pad_len = esp_ref_default_pad(sa->suite, len, pad);
	pk.pad_len_byte = (uint8_t)pk.pad_len;
	return esp_ref_build(sa, &pk, out, cap);
}

#endif
