/* SPDX-License-Identifier: BSD-3-Clause
 * Middlebox mode on the workers (gw_mbox.c; docs/middlebox.md): what a frame
 * of a bridged pair is, for the layers above the workers that look at the
 * same frames (the --slow-path control lcore).
 */
#ifndef HIPGW_MBOX_DP_H
#define HIPGW_MBOX_DP_H

#include <stdbool.h>
#include <stdint.h>
#include "gw_mbox_flow.h"

/* The flow key of the Ethernet frame f (len bytes, up to two VLAN tags) when
 * it is an ESP packet whose SPI it carries (RFC 4303 2.1): IPv4 or IPv6
 * (extension headers walked), whole or a first fragment, its header valid.
 * Returns true with *k set (destination, SPI), false for anything else
 * (the worker decides those itself). Reads nothing past f + len. */
bool gw_mbox_esp_key(const uint8_t *f, uint32_t len, struct gw_mbox_flow_key *k);

#endif
