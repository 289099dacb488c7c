/* SPDX-License-Identifier: BSD-3-Clause
 * HIP_MAC and HIP_MAC_2 values (RFC 7401 sections 5.2.12, 5.2.13, 6.4.1):
 * HMAC with the HIT suite's RHASH over a byte range, full length (32 bytes
 * with SHA-256, 48 with SHA-384).
 *
 * Which bytes are covered (header with Checksum 0 and Header Length as if the
 * packet ended before HIP_MAC, the parameters before it, and for HIP_MAC_2 the
 * responder's HOST_ID inserted in type order) is the packet layer's job: it
 * prepares the buffer and calls these functions. The key is the sender's
 * outgoing HIP integrity key (hip_keymat.h: keys->hip_int[hip_dir_out(..)]).
 *
 * Plain C + OpenSSL 3 (EVP_MAC "HMAC"), no DPDK.
 */
#ifndef HIPGW_HIP_MAC_H
#define HIPGW_HIP_MAC_H

#include <stddef.h>
#include <stdint.h>

#include "hip_hit.h"

/* HMAC-RHASH(key, data). suite: HIT suite (1..3, gives the hash); key /
 * key_len: 1..HIP_RHASH_MAX*2 bytes; data / len: the prepared bytes (len may
 * be 0). Writes hip_suite_rhash_len(suite) bytes to mac (cap bytes available)
 * and that length to *mac_len. Returns 0, or -1 for bad arguments or an
 * OpenSSL failure. */
int hip_mac_compute(uint8_t suite, const uint8_t *key, size_t key_len,
		    const uint8_t *data, size_t len, uint8_t *mac, size_t cap, size_t *mac_len);

/* Verify a received HIP_MAC / HIP_MAC_2 value (mac / mac_len, which must be the
 * full RHASH length) in constant time. Returns 0 when it matches, -1 when it
 * does not or the arguments are bad. */
int hip_mac_verify(uint8_t suite, const uint8_t *key, size_t key_len,
		   const uint8_t *data, size_t len, const uint8_t *mac, size_t mac_len);

#endif
