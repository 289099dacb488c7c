/* SPDX-License-Identifier: BSD-3-Clause
 * Sequence-number high-water marks of manually keyed AES-GCM out SAs, kept in
 * state files so that a restart never sends a number it may have sent before
 * (gw_seqstate.c).
 */
#ifndef HIPGW_SEQSTATE_H
#define HIPGW_SEQSTATE_H

#include <stddef.h>
#include <stdint.h>
#include "gw_config.h"
#include "gw_sa.h"

/* GCM sequence-number state files (RFC 4106 section 3.1: never reuse a nonce
 * under one key, restarts included): see gw_seqstate.c. */
int gw_seqstate_open(struct gw_sa *sa, const struct gw_conf_sa *c, uint64_t *seq_first,
		     uint64_t *seq_limit, char *err, size_t errlen);
void gw_seqstate_tick(struct gw_sa *sa);

#endif
