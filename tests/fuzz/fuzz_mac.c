/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the MAC learning table of lib/tables (gw_mac.h) against
 * a plain model, on a real rte_hash and rte_rcu_qsbr (EAL --no-huge, set up
 * once in LLVMFuzzerInitialize).
 *
 * Input: byte 0 the table's bound (1 + b % 32 entries), byte 1 its age
 * (1 + b % 16 s), then operations of 4 bytes: op, a, b, dt. The clock goes
 * forward dt * 100 ms before each. Keys: MAC a % 16 (0..13 unicast, 14 a
 * multicast, 15 the broadcast address) on VLAN (a / 16) % 4 of {0, 1, 4095,
 * 4096 (invalid)}; a place: b % 5 (4 is the local segment, else a peer).
 * op % 7: 0 learn, 1 lookup and touch (a worker), 2 age (visits b % 40),
 * 3 static add, 4 delete, 5 the RCU reader online / quiescent / offline in
 * turn (it keeps the last entry it looked up), 6 reclaim.
 *
 * Checked after every operation: the table's count equals the model's and is
 * never above the bound; every key is found exactly when the model has it,
 * at the model's place (the last learn or static add of that key), static as
 * the model says; an entry disappears only by delete or, in an age call,
 * when it was learned and not seen for the age; a learn's result is the one
 * the model expects (full only when live and not yet reclaimed entries fill
 * the bound); an entry the online reader holds keeps its key until its
 * quiescent state. Any mismatch aborts (a finding). Deterministic: the clock
 * is the input's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "fuzz_common.h"
#include "gw_mac.h"

#define N_MACS   16
#define N_VLANS  4
#define N_KEYS   (N_MACS * N_VLANS)
#define TICK_NS  100000000ull       /* dt unit: 100 ms */
#define S_NS     1000000000ull
#define MAX_OPS  2048

static const uint16_t vlans[N_VLANS] = { 0, 1, GW_MAC_VLAN_MAX, GW_MAC_VLAN_MAX + 1 };

struct model_entry {
	bool present;
	bool is_static;
	uint32_t where;
	uint64_t seen_ns;
};

struct run {
	struct gw_mac_table *t;
	uint32_t max;
	uint64_t age_ns;
	uint64_t now_ns;
	struct model_entry m[N_KEYS];
	uint32_t n;
	int reader;                     /* 0 offline, 1 online */
	const struct gw_mac_entry *held;
	struct gw_mac_key held_key;
};

static struct rte_rcu_qsbr *rcu;

static void
key_mac(unsigned k, uint8_t mac[GW_MAC_ADDR_BYTES])
{
	unsigned i = k % N_MACS;

	memset(mac, 0, GW_MAC_ADDR_BYTES);
	if (i == 15) {
		memset(mac, 0xff, GW_MAC_ADDR_BYTES);
	} else if (i == 14) {
		mac[0] = 0x01;
		mac[2] = 0x5e;
		mac[5] = 1;
	} else {
		mac[0] = 0x02;
		mac[5] = (uint8_t)i;
	}
}

static uint32_t
place(uint8_t b)
{
	return b % 5 == 4 ? GW_MAC_LOCAL : b % 5;
}

/* An entry the model has and the table lost: only an age call may have
 * deleted it, and only if it was learned and not seen for the age. */
static bool
may_age(const struct run *r, const struct model_entry *me)
{
	return !me->is_static && me->seen_ns <= r->now_ns && r->now_ns - me->seen_ns >= r->age_ns;
}

static void
check(struct run *r, bool aged)
{
	for (unsigned k = 0; k < N_KEYS; k++) {
		uint8_t mac[GW_MAC_ADDR_BYTES];
		struct model_entry *me = &r->m[k];
		const struct gw_mac_entry *e;

		key_mac(k, mac);
		e = gw_mac_lookup(r->t, mac, vlans[k / N_MACS]);
		if (e == NULL && me->present) {
			if (!aged || !may_age(r, me))
				FUZZ_FAIL("key %u lost (static %d, seen %llu, now %llu)", k, me->is_static,
					  (unsigned long long)me->seen_ns, (unsigned long long)r->now_ns);
			me->present = false;
			r->n--;
		} else if (e != NULL && !me->present) {
			FUZZ_FAIL("key %u in the table, not in the model", k);
		} else if (e != NULL) {
			if (gw_mac_where(e) != me->where || e->is_static != me->is_static)
				FUZZ_FAIL("key %u at %u static %d, model %u static %d", k, gw_mac_where(e),
					  e->is_static, me->where, me->is_static);
			if (memcmp(e->key.mac, mac, sizeof(mac)) != 0 || e->key.vlan != vlans[k / N_MACS])
				FUZZ_FAIL("key %u: the entry holds another key", k);
		}
	}
	if (gw_mac_count(r->t) != r->n || r->n > r->max)
		FUZZ_FAIL("count %u, model %u, bound %u", gw_mac_count(r->t), r->n, r->max);
	if (r->held != NULL && memcmp(&r->held->key, &r->held_key, sizeof(r->held_key)) != 0)
		FUZZ_FAIL("an entry the reader holds was reused before its quiescent state");
}

static void
op_learn(struct run *r, unsigned k, uint32_t where)
{
	uint8_t mac[GW_MAC_ADDR_BYTES];
	struct model_entry *me = &r->m[k];
	enum gw_mac_learn_result got, want;

	key_mac(k, mac);
	got = gw_mac_learn(r->t, mac, vlans[k / N_MACS], where, r->now_ns);
	if (vlans[k / N_MACS] > GW_MAC_VLAN_MAX)
		want = GW_MAC_REFUSED_VLAN;
	else if (gw_mac_is_group(mac))
		want = GW_MAC_REFUSED_MULTICAST;
	else if (me->present && me->is_static)
		want = GW_MAC_STATIC_KEPT;
	else if (me->present)
		want = me->where == where ? GW_MAC_REFRESHED : GW_MAC_MOVED;
	else
		want = got == GW_MAC_REFUSED_FULL ? got : GW_MAC_LEARNED;
	if (got != want)
		FUZZ_FAIL("learn key %u: %s, model %s", k, gw_mac_result_name(got), gw_mac_result_name(want));
	if (got == GW_MAC_REFUSED_FULL && r->n + gw_mac_pending(r->t) < r->max)
		FUZZ_FAIL("refused full with %u entries and %u waiting, bound %u", r->n,
			  gw_mac_pending(r->t), r->max);
	if (got == GW_MAC_LEARNED) {
		*me = (struct model_entry){ .present = true, .where = where, .seen_ns = r->now_ns };
		r->n++;
	} else if (got == GW_MAC_REFRESHED || got == GW_MAC_MOVED) {
		me->where = where;
		if (me->seen_ns < r->now_ns)
			me->seen_ns = r->now_ns;
	}
}

static void
op_static(struct run *r, unsigned k, uint32_t where)
{
	uint8_t mac[GW_MAC_ADDR_BYTES];
	struct model_entry *me = &r->m[k];
	int rc;

	key_mac(k, mac);
	rc = gw_mac_add_static(r->t, mac, vlans[k / N_MACS], where);
	if (vlans[k / N_MACS] > GW_MAC_VLAN_MAX || gw_mac_is_group(mac)) {
		if (rc != -EINVAL)
			FUZZ_FAIL("static add of key %u: %d, not -EINVAL", k, rc);
		return;
	}
	if (rc == -ENOSPC && !me->present && r->n + gw_mac_pending(r->t) >= r->max)
		return;
	if (rc != 0)
		FUZZ_FAIL("static add of key %u: %d", k, rc);
	if (!me->present)
		r->n++;
	*me = (struct model_entry){ .present = true, .is_static = true, .where = where,
				    .seen_ns = me->present ? me->seen_ns : 0 };
}

static void
op_lookup(struct run *r, unsigned k)
{
	uint8_t mac[GW_MAC_ADDR_BYTES];
	const struct gw_mac_entry *e;

	key_mac(k, mac);
	e = gw_mac_lookup(r->t, mac, vlans[k / N_MACS]);
	if (e == NULL)
		return;
	gw_mac_touch(e, r->now_ns);   /* forward only when a step or more behind */
	if (r->m[k].seen_ns < r->now_ns && r->now_ns - r->m[k].seen_ns >= GW_MAC_TOUCH_STEP_NS)
		r->m[k].seen_ns = r->now_ns;
	if (r->reader == 1) {
		r->held = e;
		r->held_key = e->key;
	}
}

static void
op_delete(struct run *r, unsigned k)
{
	uint8_t mac[GW_MAC_ADDR_BYTES];
	int rc;

	key_mac(k, mac);
	rc = gw_mac_delete(r->t, mac, vlans[k / N_MACS]);
	if (rc != (r->m[k].present ? 0 : -ENOENT))
		FUZZ_FAIL("delete of key %u: %d, model present %d", k, rc, r->m[k].present);
	if (rc == 0) {
		r->m[k].present = false;
		r->n--;
	}
}

/* offline -> online -> quiescent (still online) -> offline */
static void
op_reader(struct run *r)
{
	if (r->reader == 0) {
		rte_rcu_qsbr_thread_online(rcu, 0);
		r->reader = 1;
	} else if (r->reader == 1) {
		rte_rcu_qsbr_quiescent(rcu, 0);
		r->held = NULL;
		r->reader = 2;
	} else {
		rte_rcu_qsbr_thread_offline(rcu, 0);
		r->held = NULL;
		r->reader = 0;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r;
	struct gw_mac_params p = { .name = "fuzz_mac", .rcu = rcu, .socket = SOCKET_ID_ANY };

	if (size < 2)
		return 0;
	memset(&r, 0, sizeof(r));
	r.max = 1 + data[0] % 32;
	r.age_ns = (1 + data[1] % 16) * S_NS;
	p.max_entries = r.max;
	p.age_ns = r.age_ns;
	r.t = gw_mac_create(&p);
	if (r.t == NULL)
		FUZZ_FAIL("gw_mac_create: %s", rte_strerror(rte_errno));
	for (size_t off = 2, ops = 0; off + 4 <= size && ops < MAX_OPS; off += 4, ops++) {
		const uint8_t *o = data + off;
		unsigned k = o[1] % N_KEYS;
		bool aged = false;

		r.now_ns += o[3] * TICK_NS;
		switch (o[0] % 7) {
		case 0: op_learn(&r, k, place(o[2])); break;
		case 1: op_lookup(&r, k); break;
		case 2: aged = gw_mac_age(r.t, r.now_ns, o[2] % 40) != 0; break;
		case 3: op_static(&r, k, place(o[2])); break;
		case 4: op_delete(&r, k); break;
		case 5: op_reader(&r); break;
		default: gw_mac_reclaim(r.t); break;
		}
		check(&r, aged);
	}
	if (r.reader != 0)
		rte_rcu_qsbr_thread_offline(rcu, 0);
	gw_mac_free(r.t);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_mac", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--file-prefix", prefix, "--log-level", "*:error",
			NULL };
	size_t sz;

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "fuzz_mac_%ld", (long)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		FUZZ_FAIL("rte_eal_init: %s", rte_strerror(rte_errno));
	sz = rte_rcu_qsbr_get_memsize(1);
	rcu = rte_zmalloc(NULL, sz, RTE_CACHE_LINE_SIZE);
	if (rcu == NULL || rte_rcu_qsbr_init(rcu, 1) != 0 || rte_rcu_qsbr_thread_register(rcu, 0) != 0)
		FUZZ_FAIL("rcu set-up");
	return 0;
}
