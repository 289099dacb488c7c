/* SPDX-License-Identifier: BSD-3-Clause
 * Path MTU table and the out SA limits that follow from it (gw_pmtu.h).
 */
#include <string.h>

#include "gw_ctx.h"
#include "gw_pmtu.h"

#define MSS_IPV4_HDRS 40   /* bytes: IPv4 + TCP headers without options */
#define MSS_IPV6_HDRS 60   /* bytes: IPv6 + TCP headers without options */

static struct gw_pmtu_path *
find(const struct gw_pmtu *t, const struct gw_addr *local, const struct gw_addr *remote)
{
	for (unsigned i = 0; i < t->n; i++)
		if (gw_addr_eq(&t->path[i].local, local) && gw_addr_eq(&t->path[i].remote, remote))
			return (struct gw_pmtu_path *)&t->path[i];
	return NULL;
}

uint16_t
gw_pmtu_get(const struct gw_pmtu *t, const struct gw_addr *local, const struct gw_addr *remote)
{
	const struct gw_pmtu_path *p = find(t, local, remote);
	return p != NULL ? p->mtu : 0;
}

void
gw_pmtu_set(struct gw_pmtu *t, const struct gw_addr *local, const struct gw_addr *remote,
	    uint16_t mtu, uint64_t now_ns)
{
	struct gw_pmtu_path *p = find(t, local, remote);

	if (p == NULL && t->n < GW_PMTU_MAX_PATHS) {
		p = &t->path[t->n++];
	} else if (p == NULL) {
		p = &t->path[0];          /* full: take the place of the first to age out */
		for (unsigned i = 1; i < t->n; i++)
			if (t->path[i].expire_ns < p->expire_ns)
				p = &t->path[i];
	}
	p->local = *local;
	p->remote = *remote;
	p->mtu = mtu;
	p->expire_ns = now_ns + t->age_ns;
}

unsigned
gw_pmtu_expire(struct gw_pmtu *t, uint64_t now_ns, struct gw_pmtu_path *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->n && n < max;) {
		if (now_ns < t->path[i].expire_ns) {
			i++;
			continue;
		}
		out[n++] = t->path[i];
		t->path[i] = t->path[--t->n];
	}
	return n;
}

bool
gw_pmtu_seq_recent(uint64_t next, uint32_t q32, uint32_t recent)
{
	uint64_t last, q;

	if (next <= 1)
		return false;                       /* nothing sent yet */
	last = next - 1;
	q = (last & ~(uint64_t)UINT32_MAX) | q32;   /* the number with those low bits... */
	if (q > last) {                             /* ...at or below the last one sent */
		if (q < ((uint64_t)1 << 32))
			return false;
		q -= (uint64_t)1 << 32;
	}
	return q >= 1 && last - q < recent;
}

int
gw_outer_port_of(const struct gw_ctx *ctx, const struct gw_addr *a)
{
	for (unsigned i = 0; i < ctx->n_ports; i++)
		if (ctx->ports[i].role == GW_ROLE_OUTER &&
		    gw_port_owns(&ctx->ports[i], a->family, a->addr))
			return i;
	return -1;
}

void
gw_sa_out_limits(const struct gw_ctx *ctx, struct gw_sa *sa, int op)
{
	uint32_t mtu = ctx->ports[op].mtu, l;
	uint16_t path = gw_pmtu_get(&ctx->pmtu, esp_sa_local(sa->esp), esp_sa_remote(sa->esp));
	int clamp = GW_MSS_CLAMP_AUTO;
	uint16_t mss4, mss6;

	if (path != 0 && path < mtu)
		mtu = path;
	l = mtu;
	while (l > 0 && l + esp_sa_overhead(sa->esp, l) > mtu)
		l--;
	for (unsigned i = 0; i < ctx->n_ports; i++)
		if (ctx->ports[i].role == GW_ROLE_INNER) {
			clamp = ctx->ports[i].mss_clamp;
			break;
		}
	if (clamp == GW_MSS_CLAMP_AUTO) {
		mss4 = l > MSS_IPV4_HDRS ? (uint16_t)(l - MSS_IPV4_HDRS) : 0;
		mss6 = l > MSS_IPV6_HDRS ? (uint16_t)(l - MSS_IPV6_HDRS) : 0;
	} else {
		mss4 = mss6 = (uint16_t)clamp;
	}
	__atomic_store_n(&sa->max_inner, (uint16_t)l, __ATOMIC_RELAXED);
	__atomic_store_n(&sa->frag_mtu, esp_sa_etherip(sa->esp) ? (uint16_t)mtu : 0,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sa->mss4, mss4, __ATOMIC_RELAXED);
	__atomic_store_n(&sa->mss6, mss6, __ATOMIC_RELAXED);
}

/* Whether out SA sa runs on the path local -> remote. */
static bool
on_path(const struct gw_sa *sa, const struct gw_addr *local, const struct gw_addr *remote)
{
	return sa != NULL && gw_addr_eq(esp_sa_local(sa->esp), local) &&
	       gw_addr_eq(esp_sa_remote(sa->esp), remote);
}

const struct gw_sa *
gw_pmtu_out_sa(const struct gw_ctx *ctx, uint32_t spi, const struct gw_addr *local,
	       const struct gw_addr *remote)
{
	for (unsigned s = 0; s < ctx->sadb.n_slots; s++) {
		const struct gw_sa *sa = ctx->sadb.out[s];   /* the control lcore is the writer */

		if (on_path(sa, local, remote) && sa->spi == spi)
			return sa;
	}
	return NULL;
}

unsigned
gw_pmtu_apply(const struct gw_ctx *ctx, const struct gw_addr *local, const struct gw_addr *remote)
{
	int op = gw_outer_port_of(ctx, local);
	unsigned n = 0;

	if (op < 0)
		return 0;
	for (unsigned s = 0; s < ctx->sadb.n_slots; s++) {
		struct gw_sa *sa = ctx->sadb.out[s];

		if (!on_path(sa, local, remote))
			continue;
		gw_sa_out_limits(ctx, sa, op);
		n++;
	}
	return n;
}
