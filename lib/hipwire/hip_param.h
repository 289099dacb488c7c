/* SPDX-License-Identifier: BSD-3-Clause
 * Typed HIPv2 parameters (RFC 7401 section 5.2, RFC 7402 section 5.1, RFC 8046
 * section 4): parse a struct hip_tlv (from hip_tlv_next) into a plain struct,
 * and append one to a struct hip_builder. No crypto, no allocation.
 *
 * Parsed structs point into the packet buffer (fields named `const uint8_t *`):
 * they are valid as long as that buffer is. Lists with a small bound are copied
 * into fixed arrays in host order. Every parser checks the TLV type first
 * (HIP_E_PARAM_TYPE), then the Length against the layout (HIP_E_PARAM_LENGTH:
 * zero, odd, too short, too long, or not the sum of the fields), then the
 * fields (HIP_E_PARAM_VALUE, HIP_E_TOO_MANY). Reserved fields are ignored on
 * receipt and written as zero.
 *
 * Every put function writes one parameter with hip_build_param_reserve (so the
 * type order, space and padding rules of the builder apply) and returns 0 or a
 * negative enum hip_err, which also becomes the builder's sticky error:
 * HIP_E_ARG for NULL pointers or field values that cannot be encoded, plus the
 * builder's HIP_E_TLV_ORDER / HIP_E_NOSPACE.
 *
 * Section numbers follow RFC 7401's table of contents (5.2.3 R1_COUNTER ...
 * 5.2.23 ECHO_RESPONSE_UNSIGNED) and RFC 7402's (5.1.1 ESP_INFO, 5.1.2
 * ESP_TRANSFORM); layouts are those of those sections, confirmed on the
 * cutehip capture for every parameter it carries.
 *
 * Sizes are in bytes unless a comment says otherwise. rhash_len is the RHASH
 * output length of the HIT suite in bytes (20, 32 or 48: hip_hit_suite_rhash_len).
 */
#ifndef HIPGW_HIP_PARAM_H
#define HIPGW_HIP_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hip_packet.h"
#include "hip_wire.h"

/* Upper bounds this library enforces (bytes unless noted). */
#define HIP_DH_VALUES_MAX           2     /* public values in one DIFFIE_HELLMAN (RFC 7401 5.2.7) */
#define HIP_DH_PUBLIC_MAX           1024  /* one public value: 8192-bit MODP, the largest registered group */
#define HIP_DH_GROUP_IDS_MAX       16    /* Group IDs in DH_GROUP_LIST (12 registered) */
#define HIP_HIT_SUITE_LIST_MAX      16    /* IDs in HIT_SUITE_LIST (4-bit suite space) */
#define HIP_TRANSPORT_FORMATS_MAX   8     /* TF types in TRANSPORT_FORMAT_LIST */
#define HIP_ACK_IDS_MAX             16    /* peer Update IDs in one ACK */
#define HIP_HI_MAX                  1024  /* Host Identity bytes (RSA-4096 HI is 516) */
#define HIP_DI_MAX                  4095  /* Domain Identifier bytes: the 12-bit DI Length field */
#define HIP_MAC_MAX                 64    /* HMAC bytes (SHA-384 gives 48) */
#define HIP_SIGNATURE_MAX           1024  /* signature bytes (RSA-8192) */
#define HIP_LOCATORS_MAX            16    /* locators in one LOCATOR_SET */

/* RHASH length in bytes of a 4-bit HIT suite ID (RFC 7401 5.2.10): suite 1
 * (RSA,DSA/SHA-256) 32, suite 2 (ECDSA/SHA-384) 48, suite 3 (ECDSA_LOW/SHA-1)
 * 20; 0 for any other suite. */
size_t hip_hit_suite_rhash_len(uint8_t suite);

/* The 4-bit HIT suite (OGA ID) of an ORCHIDv2 HIT (RFC 7343: low nibble of
 * byte 3, after the 28-bit prefix 2001:20::/28). */
static inline uint8_t
hip_hit_suite_of_hit(const uint8_t hit[HIP_HIT_LEN])
{
	return hit[3] & 0x0f;
}

/* IV length of a HIP_CIPHER ID (RFC 7401 5.2.18: the IV is "inferred from the
 * HIP_CIPHER"): NULL-ENCRYPT 0, AES-128-CBC and AES-256-CBC 16; -1 for others. */
int hip_cipher_iv_len(uint16_t cipher_id);

/* ---- R1_COUNTER (RFC 7401 5.2.3): Reserved 4, R1 generation counter 8 -------- */
struct hip_r1_counter {
	uint64_t generation;
};
int hip_r1_counter_parse(const struct hip_tlv *t, struct hip_r1_counter *out);
int hip_r1_counter_put(struct hip_builder *b, const struct hip_r1_counter *in);

/* ---- PUZZLE (RFC 7401 5.2.4): #K 1, Lifetime 1, Opaque 2, Random #I rhash_len - */
struct hip_puzzle {
	uint8_t k;               /* difficulty: lowest-order bits of the hash that must be 0 */
	uint8_t lifetime;        /* maximum solving time 2^(lifetime - 32) seconds */
	uint8_t opaque[2];       /* echoed unchanged in SOLUTION */
	const uint8_t *i;        /* Random #I, rhash_len bytes */
};
/* Length must be 4 + rhash_len. Errors: HIP_E_ARG (rhash_len not 20/32/48). */
int hip_puzzle_parse(const struct hip_tlv *t, size_t rhash_len, struct hip_puzzle *out);
int hip_puzzle_put(struct hip_builder *b, size_t rhash_len, const struct hip_puzzle *in);

/* ---- SOLUTION (RFC 7401 5.2.5): #K 1, Reserved 1, Opaque 2, #I, #J ------------ */
struct hip_solution {
	uint8_t k;
	uint8_t reserved;        /* byte 5: Reserved in RFC 7401 (written 0, not checked) */
	uint8_t opaque[2];
	const uint8_t *i;        /* rhash_len bytes, copied from PUZZLE */
	const uint8_t *j;        /* rhash_len bytes */
};
/* Length must be 4 + 2 * rhash_len. Errors: HIP_E_ARG (rhash_len not 20/32/48). */
int hip_solution_parse(const struct hip_tlv *t, size_t rhash_len, struct hip_solution *out);
int hip_solution_put(struct hip_builder *b, size_t rhash_len, const struct hip_solution *in);

/* ---- DIFFIE_HELLMAN (RFC 7401 5.2.7): one or two of
 *      Group ID 1, Public Value Length 2, Public Value ------------------------- */
struct hip_dh_value {
	uint8_t group_id;        /* HIP_DH_GROUP_* */
	uint16_t pub_len;        /* 1..HIP_DH_PUBLIC_MAX */
	const uint8_t *pub;
};
struct hip_diffie_hellman {
	unsigned n;              /* 1 or 2 */
	struct hip_dh_value v[HIP_DH_VALUES_MAX];
};
/* The values must fill Length exactly; group 0, a zero or too long public
 * value, or two values of one group: HIP_E_PARAM_VALUE. */
int hip_diffie_hellman_parse(const struct hip_tlv *t, struct hip_diffie_hellman *out);
int hip_diffie_hellman_put(struct hip_builder *b, const struct hip_diffie_hellman *in);

/* ---- DH_GROUP_LIST (RFC 7401 5.2.6): Group ID 1 byte each --------------------- */
struct hip_dh_group_list {
	unsigned n;              /* 1..HIP_DH_GROUP_IDS_MAX */
	uint8_t ids[HIP_DH_GROUP_IDS_MAX];   /* in the sender's preference order */
};
int hip_dh_group_list_parse(const struct hip_tlv *t, struct hip_dh_group_list *out);
int hip_dh_group_list_put(struct hip_builder *b, const struct hip_dh_group_list *in);

/* ---- HIP_CIPHER (RFC 7401 5.2.8): Cipher ID 2 bytes each ----------------------- */
struct hip_cipher {
	unsigned n;              /* 1..HIP_CIPHER_IDS_MAX */
	unsigned dropped;        /* IDs after the sixth, dropped as 5.2.8 says */
	uint16_t ids[HIP_CIPHER_IDS_MAX];     /* HIP_CIPHER_* in preference order */
};
/* Odd or zero Length: HIP_E_PARAM_LENGTH. More than six IDs are accepted: the
 * first six are kept. put refuses more than six (HIP_E_ARG). */
int hip_cipher_parse(const struct hip_tlv *t, struct hip_cipher *out);
int hip_cipher_put(struct hip_builder *b, const struct hip_cipher *in);

/* ---- ENCRYPTED (RFC 7401 5.2.18): Reserved 4, IV, Encrypted data ---------------- */
struct hip_encrypted {
	const uint8_t *iv;       /* iv_len bytes (hip_cipher_iv_len of the chosen cipher) */
	size_t iv_len;
	const uint8_t *data;     /* the encrypted parameter(s), cipher padding included */
	size_t data_len;         /* >= 1 */
};
/* Errors: HIP_E_ARG (iv_len > 64), HIP_E_PARAM_LENGTH (no room for data). */
int hip_encrypted_parse(const struct hip_tlv *t, size_t iv_len, struct hip_encrypted *out);
int hip_encrypted_put(struct hip_builder *b, const struct hip_encrypted *in);

/* ---- HOST_ID (RFC 7401 5.2.9): HI Length 2, DI-Type 4 bits + DI Length 12 bits,
 *      Algorithm 2, Host Identity (HI Length), Domain Identifier (DI Length) ----- */
struct hip_host_id {
	uint16_t algorithm;      /* HIP_HI_* */
	uint8_t di_type;         /* HIP_DI_NONE / _FQDN / _NAI (4 bits) */
	uint16_t hi_len;         /* 1..HIP_HI_MAX; does not count the Algorithm field */
	uint16_t di_len;         /* 0..HIP_DI_MAX */
	const uint8_t *hi;       /* the Host Identity: ECDSA curve(2) 04 X Y, RSA e_len e n, ... */
	const uint8_t *di;       /* the Domain Identifier (not NUL-terminated) */
};
/* Length must be 6 + hi_len + di_len. Zero HI, HI above HIP_HI_MAX, algorithm 0,
 * or DI-Type none with a DI: HIP_E_PARAM_VALUE. */
int hip_host_id_parse(const struct hip_tlv *t, struct hip_host_id *out);
int hip_host_id_put(struct hip_builder *b, const struct hip_host_id *in);

/* ---- HIT_SUITE_LIST (RFC 7401 5.2.10): ID 1 byte each --------------------------- */
struct hip_hit_suite_list {
	unsigned n;              /* 1..HIP_HIT_SUITE_LIST_MAX */
	uint8_t ids[HIP_HIT_SUITE_LIST_MAX];  /* 8-bit IDs as sent: suite << 4 */
};
/* The 4-bit HIT suite of an 8-bit list ID (its high nibble), or 0 when the low
 * nibble is used (5.2.10 leaves it to future documents). */
static inline uint8_t
hip_hit_suite_list_suite(uint8_t id)
{
	return (id & 0x0f) != 0 ? 0 : (uint8_t)(id >> HIP_HIT_SUITE_LIST_SHIFT);
}
int hip_hit_suite_list_parse(const struct hip_tlv *t, struct hip_hit_suite_list *out);
int hip_hit_suite_list_put(struct hip_builder *b, const struct hip_hit_suite_list *in);

/* ---- TRANSPORT_FORMAT_LIST (RFC 7401 5.2.11): TF type 2 bytes each --------------- */
struct hip_transport_format_list {
	unsigned n;              /* 1..HIP_TRANSPORT_FORMATS_MAX */
	uint16_t types[HIP_TRANSPORT_FORMATS_MAX];  /* parameter types, e.g. HIP_PARAM_ESP_TRANSFORM */
};
int hip_transport_format_list_parse(const struct hip_tlv *t, struct hip_transport_format_list *out);
int hip_transport_format_list_put(struct hip_builder *b, const struct hip_transport_format_list *in);

/* ---- NAT_TRAVERSAL_MODE (RFC 5770 5.4): Reserved 2, Mode ID 2 bytes each --------- */
struct hip_nat_traversal_mode {
	unsigned n;              /* 1..HIP_NAT_MODES_MAX */
	unsigned dropped;        /* Mode IDs after the HIP_NAT_MODES_MAX-th, not kept */
	uint16_t modes[HIP_NAT_MODES_MAX];   /* HIP_NAT_MODE_* (unknown ones kept: the
					      * caller ignores them), preference order */
};
/* Length below 4 or odd: HIP_E_PARAM_LENGTH. More than HIP_NAT_MODES_MAX IDs
 * are accepted, the first ones kept. put: 1..HIP_NAT_MODES_MAX IDs, else
 * HIP_E_ARG. */
int hip_nat_traversal_mode_parse(const struct hip_tlv *t, struct hip_nat_traversal_mode *out);
int hip_nat_traversal_mode_put(struct hip_builder *b, const struct hip_nat_traversal_mode *in);
/* mode among out's modes (RFC 5770 4.3: the initiator picks one the responder listed) */
bool hip_nat_traversal_mode_has(const struct hip_nat_traversal_mode *m, uint16_t mode);

/* ---- ESP_TRANSFORM (RFC 7402 5.1.2): Reserved 2, Suite ID 2 bytes each ----------- */
struct hip_esp_transform {
	unsigned n;              /* 1..HIP_ESP_SUITES_MAX */
	unsigned dropped;        /* suites after the sixth, dropped as 5.1.2 says */
	uint16_t suites[HIP_ESP_SUITES_MAX];  /* HIP_ESP_* in preference order */
};
int hip_esp_transform_parse(const struct hip_tlv *t, struct hip_esp_transform *out);
int hip_esp_transform_put(struct hip_builder *b, const struct hip_esp_transform *in);

/* ---- ESP_INFO (RFC 7402 5.1.1): Reserved 2, KEYMAT Index 2, OLD SPI 4, NEW SPI 4 -- */
struct hip_esp_info {
	uint16_t keymat_index;   /* byte offset into KEYMAT where ESP keys start */
	uint32_t old_spi;        /* 0 in the Base Exchange */
	uint32_t new_spi;        /* 0 when an SA is being removed */
};
int hip_esp_info_parse(const struct hip_tlv *t, struct hip_esp_info *out);
int hip_esp_info_put(struct hip_builder *b, const struct hip_esp_info *in);

/* ---- SEQ (RFC 7401 5.2.16): Update ID 4 ------------------------------------------- */
struct hip_seq {
	uint32_t update_id;
};
int hip_seq_parse(const struct hip_tlv *t, struct hip_seq *out);
int hip_seq_put(struct hip_builder *b, const struct hip_seq *in);

/* ---- ACK (RFC 7401 5.2.17): peer Update ID 4 bytes each ---------------------------- */
struct hip_ack {
	unsigned n;              /* 1..HIP_ACK_IDS_MAX */
	uint32_t update_ids[HIP_ACK_IDS_MAX];
};
int hip_ack_parse(const struct hip_tlv *t, struct hip_ack *out);
int hip_ack_put(struct hip_builder *b, const struct hip_ack *in);

/* ---- NOTIFICATION (RFC 7401 5.2.19): Reserved 2, Notify Message Type 2, Data ------ */
struct hip_notification {
	uint16_t msg_type;       /* HIP_NOTIFY_*: below 16384 errors, from 16384 status */
	const uint8_t *data;     /* Notification Data, may be empty */
	size_t data_len;
};
/* Type 832 only: cutehip's NOTIFICATION (641) is read as ENCRYPTED, not here. */
int hip_notification_parse(const struct hip_tlv *t, struct hip_notification *out);
int hip_notification_put(struct hip_builder *b, const struct hip_notification *in);

/* ---- HIP_MAC / HIP_MAC_2 (RFC 7401 5.2.12, 5.2.13): HMAC -------------------------- */
struct hip_mac {
	uint16_t type;           /* HIP_PARAM_HIP_MAC or HIP_PARAM_HIP_MAC_2 */
	const uint8_t *hmac;     /* 1..HIP_MAC_MAX bytes: the RHASH output length */
	size_t len;
};
int hip_mac_parse(const struct hip_tlv *t, struct hip_mac *out);
int hip_mac_put(struct hip_builder *b, const struct hip_mac *in);

/* ---- HIP_SIGNATURE / HIP_SIGNATURE_2 (RFC 7401 5.2.14, 5.2.15): SIG alg 2, Signature */
struct hip_signature {
	uint16_t type;           /* HIP_PARAM_HIP_SIGNATURE or HIP_PARAM_HIP_SIGNATURE_2 */
	uint16_t algorithm;      /* HIP_HI_*, nonzero */
	const uint8_t *sig;      /* 1..HIP_SIGNATURE_MAX bytes; ECDSA r || s, not DER */
	size_t len;
};
int hip_signature_parse(const struct hip_tlv *t, struct hip_signature *out);
int hip_signature_put(struct hip_builder *b, const struct hip_signature *in);

/* ---- ECHO_REQUEST / ECHO_RESPONSE, signed and unsigned (RFC 7401 5.2.20-23) ------- */
struct hip_echo {
	uint16_t type;           /* HIP_PARAM_ECHO_{REQUEST,RESPONSE}_{SIGNED,UNSIGNED} */
	const uint8_t *data;     /* opaque, >= 1 byte */
	size_t len;
};
int hip_echo_parse(const struct hip_tlv *t, struct hip_echo *out);
int hip_echo_put(struct hip_builder *b, const struct hip_echo *in);

/* ---- LOCATOR_SET (RFC 8046 section 4): per locator Traffic Type 1, Locator
 *      Type 1, Locator Length 1 (4-byte units), Reserved 7 bits + P, Lifetime 4,
 *      Locator ------------------------------------------------------------------ */
struct hip_locator {
	uint8_t traffic_type;    /* HIP_LOCATOR_TRAFFIC_* */
	uint8_t locator_type;    /* HIP_LOCATOR_TYPE_* */
	bool preferred;          /* P bit */
	uint32_t lifetime;       /* seconds */
	uint16_t locator_len;    /* bytes (the wire field times 4) */
	const uint8_t *locator;  /* type 0: IPv6 16; type 1: SPI 4 + IPv6 16 */
};
struct hip_locator_set {
	unsigned n;              /* 1..HIP_LOCATORS_MAX */
	struct hip_locator loc[HIP_LOCATORS_MAX];
};
/* Locators must fill Length exactly; a type 0 locator not 16 bytes or a type 1
 * not 20: HIP_E_PARAM_VALUE; other locator types are passed through. */
int hip_locator_set_parse(const struct hip_tlv *t, struct hip_locator_set *out);
int hip_locator_set_put(struct hip_builder *b, const struct hip_locator_set *in);

#endif
