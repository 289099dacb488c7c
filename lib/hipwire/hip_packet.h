/* SPDX-License-Identifier: BSD-3-Clause
 * HIPv2 packets on the wire (RFC 7401 section 5): the fixed header, the
 * checksum over an IPv4 or IPv6 pseudo-header, a validating iterator over the
 * parameter TLVs, and a builder that appends parameters in type order.
 *
 * Plain C, no DPDK and no allocation: everything works on caller buffers, so it
 * is unit-testable and fuzzable without EAL. Buffers are raw HIP packets that
 * start at the HIP header (the IP payload). All multi-byte wire fields are
 * big-endian; struct fields are host order. No function reads outside
 * [buf, buf + len) whatever the bytes say, and none allocates.
 *
 * Every function that can fail returns 0 (or a count) on success and a
 * negative enum hip_err on failure; hip_strerror() names it.
 */
#ifndef HIPGW_HIP_PACKET_H
#define HIPGW_HIP_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hip_wire.h"

enum hip_err {
	HIP_OK = 0,
	HIP_E_ARG = -1,             /* NULL pointer, or an argument out of range */
	HIP_E_TRUNCATED = -2,       /* buffer shorter than the header or than Header Length says */
	HIP_E_HDR_LEN = -3,         /* Header Length below 4 (less than the fixed 40 bytes) */
	HIP_E_VERSION = -4,         /* Version is not 2 */
	HIP_E_FIXED_BITS = -5,      /* byte 2 bit 7 not 0, or byte 3 bit 0 not 1 */
	HIP_E_CHECKSUM = -6,        /* checksum does not verify */
	HIP_E_TLV_TRUNCATED = -7,   /* fewer than 4 bytes left for a TLV header */
	HIP_E_TLV_OVERRUN = -8,     /* TLV Length (with padding) runs past the packet */
	HIP_E_TLV_PADDING = -9,     /* padding bytes not zero */
	HIP_E_TLV_ORDER = -10,      /* type lower than (or, strict, equal to) the previous one */
	HIP_E_PARAM_TYPE = -11,     /* typed parser given a TLV of another type */
	HIP_E_PARAM_LENGTH = -12,   /* Length wrong for this parameter type (zero, odd, ...) */
	HIP_E_PARAM_VALUE = -13,    /* a field inside the parameter is inconsistent or invalid */
	HIP_E_TOO_MANY = -14,       /* more entries than this library's maximum for that parameter */
	HIP_E_NOSPACE = -15,        /* builder: the packet would exceed its buffer or 2048 bytes */
};

/* Name of an enum hip_err value ("ok", "truncated", ...); never NULL. */
const char *hip_strerror(int err);

/* ---- Fixed header (RFC 7401 section 5.1) ---------------------------------- */

struct hip_hdr {
	uint8_t next_header;     /* 59 when nothing follows */
	uint8_t hdr_len;         /* the Header Length field: 8-byte units after the first 8 */
	uint8_t packet_type;     /* HIP_I1 ... (7 bits) */
	uint8_t version;         /* 4 bits; 2 for HIPv2 */
	uint16_t checksum;       /* as on the wire */
	uint16_t controls;       /* HIP_CONTROL_ANONYMOUS, others 0 */
	uint8_t hit_sender[HIP_HIT_LEN];
	uint8_t hit_receiver[HIP_HIT_LEN];
	uint16_t pkt_len;        /* (hdr_len + 1) * 8: bytes of HIP packet, header included */
};

/* Parse and check the 40-byte fixed header of the HIP packet at buf[0..len)
 * (RFC 7401 5.1): Header Length >= 4 and (HL + 1) * 8 <= len, byte 2 bit 7 = 0,
 * byte 3 bit 0 = 1, Version = 2 (RES bits ignored, as 5.1 says for reserved
 * bits). Bytes after pkt_len are not part of the HIP packet and are ignored.
 * Packet types are not checked (the caller drops unknown ones).
 * Returns 0 and fills *h, or HIP_E_ARG, HIP_E_TRUNCATED, HIP_E_HDR_LEN,
 * HIP_E_FIXED_BITS, HIP_E_VERSION (checked in that order). */
int hip_hdr_parse(const uint8_t *buf, size_t len, struct hip_hdr *h);

/* Write the 40-byte fixed header from *h into buf (cap >= 40): next header,
 * Header Length from h->pkt_len (a multiple of 8 from 40 to 2048; the hdr_len
 * field of *h is ignored), fixed bits, version 2 (h->version is ignored),
 * checksum as given, controls, HITs. RFC 7401 5.1.
 * Returns 0, or HIP_E_ARG (NULL, cap < 40, bad pkt_len or packet type > 127). */
int hip_hdr_write(uint8_t *buf, size_t cap, const struct hip_hdr *h);

/* Set the Header Length field of the packet at pkt to describe len bytes
 * (len a multiple of 8 from 40 to 2048), as the builder does when it finishes
 * and as HIP_MAC / HIP_SIGNATURE computation needs (RFC 7401 6.4.1, 6.4.2:
 * "Header Length set as if the packet ended" at the MAC or signature).
 * Returns 0 or HIP_E_ARG. */
int hip_hdr_set_len(uint8_t *pkt, size_t len);

/* ---- Checksum (RFC 7401 section 5.1.1, RFC 1071) --------------------------- */

/* Internet checksum of the HIP packet pkt[0..len) (len = the HIP packet length,
 * (HL + 1) * 8) with the IPv4 pseudo-header src(4) dst(4) zero(1) proto 139 (1)
 * length(2), computed as if the Checksum field (bytes 4-5) were zero.
 * Returns the 16-bit value to put in bytes 4-5 (big-endian); 0 when an
 * argument is NULL or len is not a HIP packet length (a multiple of 8 from 40
 * to 2048). Addresses are 4 bytes in network order. */
uint16_t hip_checksum_ipv4(const uint8_t src[4], const uint8_t dst[4],
			   const uint8_t *pkt, size_t len);

/* As hip_checksum_ipv4 with the IPv6 pseudo-header of RFC 8200 8.1: src(16)
 * dst(16) upper-layer length (4) zero (3) next header 139 (1). */
uint16_t hip_checksum_ipv6(const uint8_t src[16], const uint8_t dst[16],
			   const uint8_t *pkt, size_t len);

/* Compute the checksum of pkt[0..len) and store it in bytes 4-5.
 * Returns 0, or HIP_E_ARG (NULL, or len not a multiple of 8 from 40 to 2048). */
int hip_checksum_set_ipv4(uint8_t *pkt, size_t len, const uint8_t src[4], const uint8_t dst[4]);
int hip_checksum_set_ipv6(uint8_t *pkt, size_t len, const uint8_t src[16], const uint8_t dst[16]);

/* Check the checksum in bytes 4-5 of pkt[0..len) against the pseudo-header.
 * Returns 0, HIP_E_CHECKSUM, or HIP_E_ARG (NULL, or len not a multiple of 8
 * from 40 to 2048). */
int hip_checksum_verify_ipv4(const uint8_t *pkt, size_t len, const uint8_t src[4], const uint8_t dst[4]);
int hip_checksum_verify_ipv6(const uint8_t *pkt, size_t len, const uint8_t src[16], const uint8_t dst[16]);

/* ---- Parameter TLVs (RFC 7401 section 5.2.1) -------------------------------- */

/* One parameter, pointing into the packet. */
struct hip_tlv {
	uint16_t type;           /* parameter type; odd = critical */
	uint16_t len;            /* Length field: bytes of contents, no T/L, no padding */
	const uint8_t *value;    /* the contents, len bytes */
	size_t offset;           /* of the Type field from the start of the iterated buffer */
	size_t total;            /* bytes taken with T/L and padding: hip_tlv_total(len) */
};

/* Bytes a TLV with `content_len` bytes of contents takes: 4 + len rounded up
 * to a multiple of 8 (RFC 7401 5.2.1: 11 + Length - (Length + 3) % 8). */
static inline size_t
hip_tlv_total(size_t content_len)
{
	return (HIP_TLV_HDR_LEN + content_len + HIP_TLV_ALIGN - 1) & ~(size_t)(HIP_TLV_ALIGN - 1);
}

/* Critical bit (RFC 7401 5.2.1): the type's least significant bit. A receiver
 * that does not know a critical parameter rejects the packet (NOTIFY
 * UNSUPPORTED_CRITICAL_PARAMETER_TYPE); unknown non-critical ones are ignored. */
static inline bool
hip_param_is_critical(uint16_t type)
{
	return (type & HIP_PARAM_CRITICAL_BIT) != 0;
}

/* Parameter name ("PUZZLE", ...) for a type in hip_wire.h, or NULL when this
 * library does not know the type. */
const char *hip_param_name(uint16_t type);

/* Packet type name ("I1", ..., "CLOSE_ACK"), or NULL for an unknown type. */
const char *hip_packet_type_name(uint8_t type);

/* Iterator flags. */
#define HIP_TLV_ALLOW_REPEAT 0x1u /* accept a type equal to the previous one */

/* Ordering: RFC 7401 5.2.1 wants parameters in increasing type order, else the
 * packet is malformed and dropped. By default the iterator asks strictly
 * ascending types (two parameters of one type = HIP_E_TLV_ORDER). Our recall of
 * RFC 7401 5.2.1 is that parameters of the same type may repeat if they are
 * consecutive (several CERTs, RFC 8002); HIP_TLV_ALLOW_REPEAT accepts that, and
 * the iterator marks such a TLV with iter.repeat. */
struct hip_tlv_iter {
	const uint8_t *buf;
	size_t end;              /* iterate buf[off .. end) */
	size_t off;
	unsigned flags;
	int err;                 /* sticky: first error seen, 0 while fine */
	bool repeat;             /* the last TLV returned has the type of the one before */
	bool any;                /* a TLV was returned already (last_type valid) */
	uint16_t last_type;
};

/* Iterate the parameters of the HIP packet pkt[0..pkt_len) (from byte 40 up to
 * pkt_len; pass hip_hdr.pkt_len from hip_hdr_parse, which is never more than
 * the buffer, not the IP payload length). NULL pkt or pkt_len < 40 leave the
 * error (HIP_E_ARG, HIP_E_TRUNCATED) for hip_tlv_next to return. */
void hip_tlv_iter_init(struct hip_tlv_iter *it, const uint8_t *pkt, size_t pkt_len, unsigned flags);

/* Iterate TLVs that fill buf[0..len) exactly (e.g. a parameter list built
 * without header). Offsets in struct hip_tlv count from buf. */
void hip_tlv_iter_init_raw(struct hip_tlv_iter *it, const uint8_t *buf, size_t len, unsigned flags);

/* Next parameter: returns 1 and fills *t, 0 at the end, or a negative
 * enum hip_err (HIP_E_TLV_TRUNCATED, HIP_E_TLV_OVERRUN, HIP_E_TLV_PADDING,
 * HIP_E_TLV_ORDER; HIP_E_ARG for NULLs) which stays in it->err, with it->off
 * at the offending TLV. Every returned TLV lies entirely within the buffer,
 * its padding is zero and its type is in order (RFC 7401 5.2.1). */
int hip_tlv_next(struct hip_tlv_iter *it, struct hip_tlv *t);

/* Parse the one TLV at the start of buf[0..len) (e.g. the HOST_ID inside a
 * decrypted ENCRYPTED parameter, followed by cipher padding). Bytes after the
 * TLV's padded end are ignored; its own padding must be present and zero.
 * Returns 0, HIP_E_ARG, HIP_E_TLV_TRUNCATED, HIP_E_TLV_OVERRUN or HIP_E_TLV_PADDING. */
int hip_tlv_parse_one(const uint8_t *buf, size_t len, struct hip_tlv *t);

/* Check a whole packet: the header (hip_hdr_parse) and every TLV
 * (hip_tlv_next with `flags`). Fills *h (may be NULL) and, when err_off is not
 * NULL, the byte offset of the first bad TLV (0 for header errors). The
 * checksum is not checked (it needs the IP addresses). Returns the number of
 * parameters (>= 0), or the first error. */
int hip_packet_validate(const uint8_t *buf, size_t len, unsigned flags,
			struct hip_hdr *h, size_t *err_off);

/* Find the first parameter of `type` in the packet pkt[0..pkt_len) (pkt_len
 * from hip_hdr_parse), walking in order and stopping at the first type above
 * it; repeated types are tolerated. Returns 1 and fills *t when found, 0 when
 * absent, or the TLV error met on the way (HIP_E_ARG for NULLs). */
int hip_param_find(const uint8_t *pkt, size_t pkt_len, uint16_t type, struct hip_tlv *t);

/* ---- Builder ---------------------------------------------------------------- */

/* Appends parameters after a fixed header, in order, with zero padding.
 * Errors are sticky: after the first failure every call returns it again, so a
 * sequence of appends can be checked once at hip_build_finish(). */
struct hip_builder {
	uint8_t *buf;
	size_t cap;              /* min(buffer size, HIP_PACKET_MAX) */
	size_t len;              /* bytes written so far (>= 40 once started) */
	int err;
	unsigned flags;          /* HIP_TLV_ALLOW_REPEAT: set after hip_build_init to repeat a type */
	bool any;
	uint16_t last_type;
};

/* Start a packet in buf[0..cap): fixed header with next header 59, packet type,
 * version 2, checksum 0, controls 0 and the two HITs (16 bytes each).
 * Returns 0, or HIP_E_ARG (NULL, packet type > 127) / HIP_E_NOSPACE (cap < 40). */
int hip_build_init(struct hip_builder *b, uint8_t *buf, size_t cap, uint8_t packet_type,
		   const uint8_t hit_sender[HIP_HIT_LEN], const uint8_t hit_receiver[HIP_HIT_LEN]);

/* Reserve a parameter of `type` with content_len bytes of contents: writes T/L
 * and zero padding, returns a pointer to the contents for the caller to fill
 * (content_len bytes), or NULL on error (b->err: HIP_E_TLV_ORDER when type is
 * not above the last one, HIP_E_NOSPACE, HIP_E_ARG for content_len > 65535). */
uint8_t *hip_build_param_reserve(struct hip_builder *b, uint16_t type, size_t content_len);

/* Append a parameter with the given contents (content may be NULL only when
 * content_len is 0). Returns 0 or the (sticky) error. */
int hip_build_param(struct hip_builder *b, uint16_t type, const void *content, size_t content_len);

/* Append a copy of a parsed TLV (its type, length and contents). */
int hip_build_tlv(struct hip_builder *b, const struct hip_tlv *t);

/* Finish: set Header Length to the bytes written. Returns the packet length in
 * bytes (a multiple of 8, 40..2048) or the sticky error. The checksum is left
 * 0: set it with hip_checksum_set_ipv4/6 once MAC and signature are in. */
int hip_build_finish(struct hip_builder *b);

/* ---- Big-endian helpers ------------------------------------------------------ */

static inline uint16_t
hip_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
hip_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t
hip_get64(const uint8_t *p)
{
	return ((uint64_t)hip_get32(p) << 32) | hip_get32(p + 4);
}

static inline void
hip_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
hip_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
hip_put64(uint8_t *p, uint64_t v)
{
	hip_put32(p, (uint32_t)(v >> 32));
	hip_put32(p + 4, (uint32_t)v);
}

#endif
