/* SPDX-License-Identifier: BSD-3-Clause
 * A port's own addresses, changeable while the workers run (RFC 8046
 * mobility: an outer port's locator changes). The control lcore is the one
 * writer; workers, the control lcore and the telemetry thread read without
 * locks:
 *
 * - a slot is published by writing its address and length first and its
 *   family last with a release store (family 0: an empty slot, which readers
 *   skip); the slot count `n` grows with a release store after that;
 * - a slot is withdrawn by a release store of family 0; its memory is
 *   written again only after an RCU grace period of the readers (the caller
 *   keeps the rte_rcu_qsbr token and frees the slot when it is over), so no
 *   reader sees a torn address.
 *
 * Between `live` and withdrawn a slot may be `deprecated`: still ours (the
 * workers take ESP to it, ARP / ND answer for it) but no longer the address
 * the control lcore sends from (as RFC 8046 section 5.1's DEPRECATED
 * locator). The state and the timers are the control lcore's only.
 */
#ifndef HIPGW_PORTADDR_H
#define HIPGW_PORTADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "gw_config.h"
#include "gw_types.h"

/* Slots per port: the config's addresses and two more, for a new address
 * and a withdrawn one waiting for its grace period. */
#define GW_PORT_ADDRS_MAX (GW_CONF_MAX_ADDRS + 2)

enum gw_paddr_state {
	GW_PADDR_FREE = 0,       /* family 0, memory reusable */
	GW_PADDR_LIVE,           /* ours, and a source address */
	GW_PADDR_DEPRECATED,     /* ours until `until`, not a source */
	GW_PADDR_DEAD,           /* family 0, readers may still see the old bytes:
	                          * free once the grace period of `token` is over */
};

struct gw_port_addrs {
	struct gw_prefix a[GW_PORT_ADDRS_MAX];  /* readers: family with acquire loads */
	uint32_t n;                             /* slots readers look at (acquire) */
	/* the control lcore's only: */
	uint8_t state[GW_PORT_ADDRS_MAX];       /* enum gw_paddr_state */
	uint64_t until[GW_PORT_ADDRS_MAX];      /* DEPRECATED: withdrawn at this TSC */
	uint64_t token[GW_PORT_ADDRS_MAX];      /* DEAD: rte_rcu_qsbr_start token */
	uint8_t pref[2];                        /* IPv4, IPv6: 1 + the slot to send from,
	                                         * 0: the first live one */
};

/* Fill s with the config's n addresses (n <= GW_CONF_MAX_ADDRS), all live;
 * before any reader runs. */
void gw_paddr_init(struct gw_port_addrs *s, const struct gw_prefix *a, unsigned n);

/* Control lcore: publish a new live address (host part kept, as in the
 * config). Returns its slot, or -1 when no slot is free (withdrawn ones
 * still waiting for their grace period). */
int gw_paddr_add(struct gw_port_addrs *s, const struct gw_prefix *a);

/* Control lcore: slot i no longer a source address; withdrawn at TSC until. */
void gw_paddr_deprecate(struct gw_port_addrs *s, unsigned i, uint64_t until);

/* Control lcore: withdraw slot i now (readers stop matching it); token: the
 * rte_rcu_qsbr_start token of the readers' grace period after this store. */
void gw_paddr_withdraw(struct gw_port_addrs *s, unsigned i, uint64_t token);

/* Control lcore: a withdrawn slot's grace period is over: reusable. */
void gw_paddr_free(struct gw_port_addrs *s, unsigned i);

/* Control lcore: the slot holding address `a` (any live or deprecated slot),
 * or -1. */
int gw_paddr_find(const struct gw_port_addrs *s, const struct gw_addr *a);

/* Control lcore: the slot of `family` to send from (the local locator):
 * the one gw_paddr_prefer named while it is live, else the first live one;
 * -1: none. */
int gw_paddr_source(const struct gw_port_addrs *s, uint8_t family);
/* Control lcore: send from slot i (live) for its family from now on. */
void gw_paddr_prefer(struct gw_port_addrs *s, unsigned i);

/* Any reader: copy slot i into *out; false when it is empty. */
static inline bool
gw_paddr_read(const struct gw_port_addrs *s, unsigned i, struct gw_prefix *out)
{
	uint8_t f = __atomic_load_n(&s->a[i].a.family, __ATOMIC_ACQUIRE);

	if (f == 0)
		return false;
	/* the bytes after the family: not written again before a grace period */
	out->a.family = f;
	memcpy(out->a.addr, s->a[i].a.addr, sizeof(out->a.addr));
	out->len = s->a[i].len;
	return true;
}

/* Any reader: the number of slots to look at. */
static inline uint32_t
gw_paddr_count(const struct gw_port_addrs *s)
{
	return __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
}

/* Any reader (workers per packet): true when `ip` (family 4 / 6, network
 * order) is one of the live or deprecated addresses. Fixed-size compares, no
 * memcmp call. */
static inline bool
gw_paddr_owns(const struct gw_port_addrs *s, uint8_t family, const uint8_t *ip)
{
	uint32_t n = gw_paddr_count(s);

	if (family == 4) {
		uint32_t a, b;

		memcpy(&a, ip, 4);
		for (uint32_t i = 0; i < n; i++) {
			if (__atomic_load_n(&s->a[i].a.family, __ATOMIC_ACQUIRE) != 4)
				continue;
			memcpy(&b, s->a[i].a.addr, 4);
			if (a == b)
				return true;
		}
	} else {
		uint64_t a0, a1, b0, b1;

		memcpy(&a0, ip, 8);
		memcpy(&a1, ip + 8, 8);
		for (uint32_t i = 0; i < n; i++) {
			if (__atomic_load_n(&s->a[i].a.family, __ATOMIC_ACQUIRE) != family)
				continue;
			memcpy(&b0, s->a[i].a.addr, 8);
			memcpy(&b1, s->a[i].a.addr + 8, 8);
			if (a0 == b0 && a1 == b1)
				return true;
		}
	}
	return false;
}

#endif
