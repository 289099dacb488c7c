/* SPDX-License-Identifier: BSD-3-Clause
 * A port's own addresses: the control lcore's writes (gw_portaddr.h has the
 * publication rules the readers rely on).
 */
#include "gw_portaddr.h"

static unsigned
addr_bytes(uint8_t family)
{
	return family == 4 ? 4 : 16;
}

void
gw_paddr_init(struct gw_port_addrs *s, const struct gw_prefix *a, unsigned n)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < n && i < GW_CONF_MAX_ADDRS; i++) {
		s->a[i] = a[i];
		s->state[i] = GW_PADDR_LIVE;
		s->n = i + 1;
	}
}

int
gw_paddr_add(struct gw_port_addrs *s, const struct gw_prefix *a)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->state[i] == GW_PADDR_FREE)
			break;
	if (i == GW_PORT_ADDRS_MAX)
		return -1;
	/* family is 0 here: readers skip the slot while the rest is written */
	memset(s->a[i].a.addr, 0, sizeof(s->a[i].a.addr));
	memcpy(s->a[i].a.addr, a->a.addr, addr_bytes(a->a.family));
	s->a[i].len = a->len;
	__atomic_store_n(&s->a[i].a.family, a->a.family, __ATOMIC_RELEASE);
	s->state[i] = GW_PADDR_LIVE;
	s->until[i] = 0;
	if (i == s->n)
		__atomic_store_n(&s->n, i + 1, __ATOMIC_RELEASE);
	return (int)i;
}

void
gw_paddr_deprecate(struct gw_port_addrs *s, unsigned i, uint64_t until)
{
	if (i < s->n && s->state[i] == GW_PADDR_LIVE) {
		s->state[i] = GW_PADDR_DEPRECATED;
		s->until[i] = until;
	}
}

void
gw_paddr_withdraw(struct gw_port_addrs *s, unsigned i, uint64_t token)
{
	if (i >= s->n || (s->state[i] != GW_PADDR_LIVE && s->state[i] != GW_PADDR_DEPRECATED))
		return;
	__atomic_store_n(&s->a[i].a.family, 0, __ATOMIC_RELEASE);
	s->state[i] = GW_PADDR_DEAD;
	s->token[i] = token;
}

void
gw_paddr_free(struct gw_port_addrs *s, unsigned i)
{
	if (i < s->n && s->state[i] == GW_PADDR_DEAD)
		s->state[i] = GW_PADDR_FREE;
}

int
gw_paddr_find(const struct gw_port_addrs *s, const struct gw_addr *a)
{
	for (unsigned i = 0; i < s->n; i++)
		if ((s->state[i] == GW_PADDR_LIVE || s->state[i] == GW_PADDR_DEPRECATED) &&
		    s->a[i].a.family == a->family &&
		    memcmp(s->a[i].a.addr, a->addr, addr_bytes(a->family)) == 0)
			return (int)i;
	return -1;
}

int
gw_paddr_source(const struct gw_port_addrs *s, uint8_t family)
{
	unsigned p = s->pref[family == 4 ? 0 : 1];

	if (p != 0 && p - 1 < s->n && s->state[p - 1] == GW_PADDR_LIVE &&
	    s->a[p - 1].a.family == family)
		return (int)p - 1;
	for (unsigned i = 0; i < s->n; i++)
		if (s->state[i] == GW_PADDR_LIVE && s->a[i].a.family == family)
			return (int)i;
	return -1;
}

void
gw_paddr_prefer(struct gw_port_addrs *s, unsigned i)
{
	if (i < s->n && s->state[i] == GW_PADDR_LIVE)
		s->pref[s->a[i].a.family == 4 ? 0 : 1] = (uint8_t)(i + 1);
}
