/* SPDX-License-Identifier: BSD-3-Clause
 * The bytes HIP_MAC, HIP_MAC_2, HIP_SIGNATURE and HIP_SIGNATURE_2 cover
 * (RFC 7401 sections 5.2.12 - 5.2.15, 6.4.1, 6.4.2), written into a caller's
 * buffer, so that anything holding a packet can sign or verify it: the HIP
 * engine (lib/hip) and the middlebox's tracker (lib/mbox), which verifies
 * packets of associations it is no end of.
 *
 * - the HIP header and every parameter before the MAC / signature, with the
 *   Checksum 0 and the Header Length set as if the packet ended just before
 *   the MAC / signature (parameters after it, such as the signature after
 *   HIP_MAC or ECHO_RESPONSE_UNSIGNED, are not covered);
 * - HIP_MAC_2 (R2): the responder's HOST_ID TLV, exactly as its R1 carried
 *   it, is inserted where type order puts it (before the first parameter of
 *   a higher type) and counted in the Header Length; it is not sent;
 * - HIP_SIGNATURE_2 (R1, precomputed): also the Receiver's HIT, the PUZZLE's
 *   Opaque and its Random #I set to zero (K and Lifetime are covered), so
 *   that a responder can fill them per I1 without signing again;
 * - HIP_SIGNATURE covers HIP_MAC when the packet has one.
 *
 * Plain C, no allocation, no crypto: the caller hashes, MACs or verifies the
 * result with lib/hipcrypto. The output holds packet bytes: wipe it after use
 * when the packet is secret.
 */
#ifndef HIPGW_HIP_COVERAGE_H
#define HIPGW_HIP_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "hip_packet.h"

/* Bytes a coverage buffer needs at most: a whole packet plus an inserted
 * HOST_ID TLV no longer than a packet. */
#define HIP_COVERAGE_MAX (2 * HIP_PACKET_MAX)

/* What HIP_MAC or HIP_MAC_2 at byte offset `upto` of the packet pkt covers
 * (RFC 7401 6.4.1), written to out[0..cap): pkt[0..upto) with, for HIP_MAC_2,
 * the HOST_ID TLV host_id / host_id_len (its padded length, a multiple of 8)
 * inserted in type order; host_id NULL or host_id_len 0 for HIP_MAC. upto is
 * the MAC TLV's offset from the packet start (struct hip_tlv.offset of an
 * iterator over the whole packet), a multiple of 8 from 40 to 2048.
 * out may be pkt only when nothing is inserted.
 * Returns the number of bytes written (> 0), or HIP_E_ARG (NULL, bad upto or
 * host_id_len, the result over 2048 bytes or over cap), or the TLV error of a
 * parameter before upto. */
int hip_coverage_mac(const uint8_t *pkt, size_t upto, const uint8_t *host_id, size_t host_id_len,
		     uint8_t *out, size_t cap);

/* What HIP_SIGNATURE or HIP_SIGNATURE_2 (sig_type, the parameter type) at byte
 * offset `upto` of pkt covers (RFC 7401 6.4.2), written to out[0..cap):
 * pkt[0..upto) with Checksum 0 and Header Length upto; for HIP_SIGNATURE_2
 * also the Receiver's HIT zeroed and, when puzzle_off is not 0, the Opaque and
 * #I of the PUZZLE TLV at that offset (its Length read from the packet: at
 * least 4, the TLV inside upto). out may be pkt (in place).
 * Returns the number of bytes written (upto), or HIP_E_ARG (NULL, bad upto,
 * cap too small, a PUZZLE that does not fit). */
int hip_coverage_sig(const uint8_t *pkt, size_t upto, uint16_t sig_type, size_t puzzle_off,
		     uint8_t *out, size_t cap);

#endif
