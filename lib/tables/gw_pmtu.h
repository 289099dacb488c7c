/* SPDX-License-Identifier: BSD-3-Clause
 * Path MTU per path (our outer address, the peer's outer address), as RFC
 * 4301 section 8.2 keeps it for the SAs of a path, and what it means for the
 * out SAs: the largest inner packet that fits (max_inner) and the TCP MSS
 * clamp. A path has an entry only while an ICMP lowered its MTU below the
 * port's (RFC 1191 section 6.3, RFC 8201 section 4: raised again after the
 * age). Control lcore only; the workers see only the SAs' 16-bit limits,
 * written with atomic stores. Entries outlive the SAs of their path, so a
 * rekey or a new Base Exchange with the same locators inherits the MTU.
 */
#ifndef HIPGW_PMTU_H
#define HIPGW_PMTU_H

#include <stdbool.h>
#include <stdint.h>
#include "gw_types.h"

#define GW_PMTU_MAX_PATHS  512         /* lowered paths at once; a new one beyond
                                        * replaces the one that ages out first */
/* Packets: an ICMP error is taken only when it quotes one of the last this
 * many sequence numbers its SA sent: about one second of one SA at 1 Mpps,
 * more than an ICMP round trip; an older or unsent one is refused. */
#define GW_PMTU_SEQ_RECENT (1u << 20)

struct gw_pmtu_path {
	struct gw_addr local, remote;  /* outer source / destination of the path's ESP */
	uint16_t mtu;                  /* bytes of outer IP packet, below the port's MTU */
	uint64_t expire_ns;            /* CLOCK_MONOTONIC: back to the port's MTU then */
};

struct gw_pmtu {
	struct gw_pmtu_path path[GW_PMTU_MAX_PATHS];
	unsigned n;
	uint64_t age_ns;               /* lifetime of a lowered MTU ([gateway] pmtu-age) */
};

/* The lowered MTU of the path (bytes), or 0 when it has none. */
uint16_t gw_pmtu_get(const struct gw_pmtu *t, const struct gw_addr *local,
		     const struct gw_addr *remote);

/* Record mtu (bytes) for the path, lowered at now_ns (CLOCK_MONOTONIC ns):
 * it ages out at now_ns + t->age_ns. The caller checked that mtu is below
 * what the path had (RFC 1191 section 3: an ICMP never raises an estimate). */
void gw_pmtu_set(struct gw_pmtu *t, const struct gw_addr *local, const struct gw_addr *remote,
		 uint16_t mtu, uint64_t now_ns);

/* Remove the paths whose age is up at now_ns; copies up to max of them to
 * out (the caller raises their SAs again). Returns how many were copied. */
unsigned gw_pmtu_expire(struct gw_pmtu *t, uint64_t now_ns, struct gw_pmtu_path *out,
			unsigned max);

/* True when an out SA whose next sequence number to send is `next` sent the
 * one whose low 32 bits are q32 among its last `recent` packets (RFC 4303
 * 2.2.1: the ESP header carries the low 32 bits, with ESN too). */
bool gw_pmtu_seq_recent(uint64_t next, uint32_t q32, uint32_t recent);

struct gw_ctx;
struct gw_sa;

/* Out SA on outer port op: max_inner, the largest inner packet (bytes) whose
 * ESP fits min(the port's MTU, its path's lowered MTU), and the TCP MSS
 * clamps that follow (inner ports' tcp-mss-clamp: auto = max_inner - 40 for
 * IPv4 and - 60 for IPv6); a bridge SA (etherip) also gets that MTU as its
 * frag_mtu. Atomic 16-bit stores: the SA may be live. */
void gw_sa_out_limits(const struct gw_ctx *ctx, struct gw_sa *sa, int op);

/* gw_sa_out_limits again for every out SA (slots) whose path this is, after
 * its MTU changed. Control lcore. Returns how many SAs. */
unsigned gw_pmtu_apply(const struct gw_ctx *ctx, const struct gw_addr *local,
		       const struct gw_addr *remote);

/* The live out SA (a slot's current one) with this SPI, outer source local
 * and outer destination remote, or NULL. Control lcore. */
const struct gw_sa *gw_pmtu_out_sa(const struct gw_ctx *ctx, uint32_t spi,
				   const struct gw_addr *local, const struct gw_addr *remote);

/* Index of the outer port that owns addr, or -1. */
int gw_outer_port_of(const struct gw_ctx *ctx, const struct gw_addr *a);

#endif
