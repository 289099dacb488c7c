/* SPDX-License-Identifier: BSD-3-Clause
 * Precomputed R1s (RFC 7401 sections 4.1.1, 5.3.2, 6.7): the responder keeps
 * no state per initiator before a valid I2.
 *
 * A generation holds one signed R1 per DH group we offer, each with its own
 * ephemeral DH key, and a random secret. For an I1 we copy the R1 of the
 * group chosen, fill the Receiver's HIT, the puzzle's Opaque and #I (these
 * three are zero in the signature: HIP_SIGNATURE_2) and send it: one HMAC, no
 * signature, no DH. #I = HMAC-RHASH(secret, HIT-I | HIT-R), so an I2 is
 * checked against the #I we would have sent; Opaque carries the generation's
 * low 16 bits for an I2 without R1_COUNTER. The current and the two previous
 * generations are accepted (HIP_R1_GENS); a solution for an older one is
 * refused.
 *
 * Generations change every HIP_R1_REGEN_NS, and when the difficulty K
 * changes: K rises by HIP_LOAD_K_STEP when more than HIP_LOAD_I1_HIGH I1s came
 * in one HIP_LOAD_WINDOW_NS window (an I1 flood), up to HIP_PUZZLE_K_MAX, and
 * falls back by one bit after ten quiet windows, down to the configured K;
 * at most once per HIP_K_CHANGE_MIN_NS, so that initiators solving a hard
 * puzzle do not see their generation retired under them.
 *
 * R1s sent are rate limited (hip_host_cfg.r1_rate; 0 = no limit): a token
 * bucket of HIP_R1_BURST(r1_rate) tokens, refilled at r1_rate per second from
 * the engine's `now`, full at the first I1. An I1 that finds no token is
 * dropped (drop_r1_ratelimit) but still counts for the load estimate, so K
 * keeps rising under a flood. An I1 is ~40 bytes and an R1 several hundred:
 * without a limit spoofed I1s would reflect R1s at that gain onto the
 * sources they name.
 */
#include <string.h>
#include <openssl/crypto.h>

#include "hip_internal.h"
#include "hip_mac.h"

static void
gen_free(struct hip_r1_gen *g)
{
	for (unsigned x = 0; x < g->n; x++)
		hip_dh_free(&g->r1[x].dh);
	OPENSSL_cleanse(g, sizeof(*g));
}

/* Build and sign the R1 template for one group into t; with nat, the one
 * for I1s over UDP: NAT_TRAVERSAL_MODE lists UDP-ENCAPSULATION (RFC 5770
 * 4.3, covered by HIP_SIGNATURE_2). Same DH key for both. */
static int
build_r1_pkt(struct hip_host *h, struct hip_r1_gen *g, struct hip_r1 *r, const uint8_t *pub,
	     size_t pub_len, bool nat, struct hip_txbuf *t)
{
	static const uint8_t zero_hit[HIP_HIT_LEN];
	uint8_t zero_i[HIP_RHASH_MAX] = { 0 };
	struct hip_builder b;
	struct hip_r1_counter rc = { .generation = g->gen };
	struct hip_puzzle pz = { .k = g->k, .lifetime = HIP_PUZZLE_LIFETIME, .i = zero_i };
	struct hip_dh_group_list gl = { 0 };
	struct hip_diffie_hellman dh = { 0 };
	struct hip_cipher hc = { 0 };
	struct hip_hit_suite_list sl = { 0 };
	struct hip_transport_format_list tf = { .n = 1, .types = { HIP_PARAM_ESP_TRANSFORM } };
	struct hip_esp_transform et = { 0 };
	struct hip_nat_traversal_mode nm = { .n = 1, .modes = { HIP_NAT_MODE_UDP_ENCAPSULATION } };
	int len;

	for (unsigned x = 0; x < h->cfg.n_dh_groups; x++)
		gl.ids[gl.n++] = h->cfg.dh_groups[x];
	dh.n = 1;
	dh.v[0].group_id = r->group;
	dh.v[0].pub_len = (uint16_t)pub_len;
	dh.v[0].pub = pub;
	for (unsigned x = 0; x < h->cfg.n_hip_ciphers; x++)
		hc.ids[hc.n++] = h->cfg.hip_ciphers[x];
	/* our own suite first, then the other one we can verify */
	sl.ids[sl.n++] = (uint8_t)(h->suite << HIP_HIT_SUITE_LIST_SHIFT);
	sl.ids[sl.n++] = (uint8_t)((h->suite == HIP_SUITE_ECDSA_SHA384 ? HIP_SUITE_RSA_DSA_SHA256
								      : HIP_SUITE_ECDSA_SHA384)
				   << HIP_HIT_SUITE_LIST_SHIFT);
	for (unsigned x = 0; x < h->cfg.n_esp_transforms; x++)
		et.suites[et.n++] = h->cfg.esp_transforms[x];

	if (hip_build_start(&b, t, HIP_R1, h->hi->hit, zero_hit) != 0)
		return -1;
	hip_r1_counter_put(&b, &rc);
	r->puzzle_off = b.len;
	hip_puzzle_put(&b, h->rhash_len, &pz);
	hip_dh_group_list_put(&b, &gl);
	hip_diffie_hellman_put(&b, &dh);
	hip_cipher_put(&b, &hc);
	if (nat)
		hip_nat_traversal_mode_put(&b, &nm);
	hip_bex_put_host_id(h, &b);
	hip_hit_suite_list_put(&b, &sl);
	hip_transport_format_list_put(&b, &tf);
	hip_esp_transform_put(&b, &et);
	hip_cover_put_sig(h, &b, HIP_PARAM_HIP_SIGNATURE_2, r->puzzle_off);
	len = hip_build_finish(&b);
	if (len < 0)
		return -1;
	t->len = (size_t)len;
	return 0;
}

/* The R1 templates of one group: plain, and for UDP when we do UDP. */
static int
build_r1(struct hip_host *h, struct hip_r1_gen *g, struct hip_r1 *r)
{
	uint8_t pub[HIP_DH_PUB_MAX];
	size_t pub_len = 0;

	if (hip_rand_dh(h, r->group, &r->dh) != 0 ||
	    hip_dh_public(&r->dh, pub, sizeof(pub), &pub_len) != 0 ||
	    build_r1_pkt(h, g, r, pub, pub_len, false, &r->pkt) != 0)
		return -1;
	r->pkt_nat.len = 0;
	if (h->cfg.io.send_udp != NULL &&
	    build_r1_pkt(h, g, r, pub, pub_len, true, &r->pkt_nat) != 0)
		return -1;
	return 0;
}

int
hip_r1_regen(struct hip_host *h, uint64_t now)
{
	unsigned next = (h->cur_gen + 1) % HIP_R1_GENS;
	struct hip_r1_gen *g = &h->gens[next];

	gen_free(g);
	g->gen = ++h->gen_counter;
	g->k = h->k;
	if (hip_rand(h, g->secret, h->rhash_len) != 0)
		goto fail;
	for (unsigned x = 0; x < h->cfg.n_dh_groups; x++) {
		g->r1[x].group = h->cfg.dh_groups[x];
		g->n = x + 1;
		if (build_r1(h, g, &g->r1[x]) != 0)
			goto fail;
	}
	g->valid = true;
	h->cur_gen = next;
	h->r1_regen_at = now + HIP_R1_REGEN_NS;
	h->st.r1_generations++;
	return 0;
fail:
	gen_free(g);
	return -1;
}

int
hip_r1_init(struct hip_host *h, uint64_t now)
{
	h->k = h->cfg.puzzle_k;
	h->cur_gen = HIP_R1_GENS - 1;
	return hip_r1_regen(h, now);
}

void
hip_r1_free(struct hip_host *h)
{
	for (unsigned x = 0; x < HIP_R1_GENS; x++)
		gen_free(&h->gens[x]);
}

/* End the load window if it is over: raise or lower K. */
static void
load_eval(struct hip_host *h, uint64_t now)
{
	uint8_t kmax = h->cfg.puzzle_k > HIP_PUZZLE_K_MAX ? h->cfg.puzzle_k : HIP_PUZZLE_K_MAX;
	uint8_t k = h->k;

	if (now - h->load_window_start < HIP_LOAD_WINDOW_NS)
		return;
	if (h->load_i1 >= HIP_LOAD_I1_HIGH) {
		k = (uint8_t)(k + HIP_LOAD_K_STEP > kmax ? kmax : k + HIP_LOAD_K_STEP);
		h->low_windows = 0;
	} else if (h->load_i1 < HIP_LOAD_I1_HIGH / 4 && k > h->cfg.puzzle_k) {
		if (++h->low_windows >= 10) {
			k--;
			h->low_windows = 0;
		}
	}
	h->load_window_start = now;
	h->load_i1 = 0;
	if (k != h->k && now - h->k_changed_at >= HIP_K_CHANGE_MIN_NS) {
		h->k = k;
		h->k_changed_at = now;
		hip_r1_regen(h, now);
	}
}

void
hip_r1_note_i1(struct hip_host *h, uint64_t now)
{
	load_eval(h, now);
	h->load_i1++;
}

void
hip_r1_tick(struct hip_host *h, uint64_t now)
{
	load_eval(h, now);
	if (now >= h->r1_regen_at)
		hip_r1_regen(h, now);
}

bool
hip_r1_token(struct hip_host *h, uint64_t now)
{
	uint64_t rate = h->cfg.r1_rate, cap;

	if (rate == 0)
		return true;
	cap = (uint64_t)HIP_R1_BURST(rate) * HIP_NSEC_PER_S;
	if (!h->r1_tb_started) {
		h->r1_tb_started = true;
		h->r1_tb = cap;
		h->r1_tb_at = now;
	} else if (now > h->r1_tb_at) {
		uint64_t dt = now - h->r1_tb_at;

		/* dt * rate new 1e-9 tokens; past cap / rate ns the bucket is full
		 * anyway (which also keeps dt * rate from overflowing) */
		if (dt >= cap / rate || cap - h->r1_tb <= dt * rate)
			h->r1_tb = cap;
		else
			h->r1_tb += dt * rate;
		h->r1_tb_at = now;
	}
	if (h->r1_tb < HIP_NSEC_PER_S)
		return false;
	h->r1_tb -= HIP_NSEC_PER_S;
	return true;
}

const struct hip_r1_gen *
hip_r1_current(const struct hip_host *h)
{
	const struct hip_r1_gen *g = &h->gens[h->cur_gen];

	return g->valid ? g : NULL;
}

const struct hip_r1 *
hip_r1_for(const struct hip_host *h, uint8_t group)
{
	const struct hip_r1_gen *g = hip_r1_current(h);

	if (g == NULL)
		return NULL;
	for (unsigned x = 0; x < g->n; x++)
		if (g->r1[x].group == group)
			return &g->r1[x];
	return NULL;
}

const struct hip_r1_gen *
hip_r1_gen_find(const struct hip_host *h, uint64_t gen)
{
	for (unsigned x = 0; x < HIP_R1_GENS; x++)
		if (h->gens[x].valid && h->gens[x].gen == gen)
			return &h->gens[x];
	return NULL;
}

const struct hip_r1_gen *
hip_r1_gen_by_opaque(const struct hip_host *h, const uint8_t opaque[2])
{
	for (unsigned x = 0; x < HIP_R1_GENS; x++)
		if (h->gens[x].valid && hip_get16(opaque) == (uint16_t)h->gens[x].gen)
			return &h->gens[x];
	return NULL;
}

int
hip_r1_puzzle_i(const struct hip_host *h, const struct hip_r1_gen *g,
		const uint8_t hit_i[HIP_HIT_LEN], uint8_t *i_out, uint8_t opaque[2])
{
	uint8_t in[2 * HIP_HIT_LEN];
	size_t ml = 0;

	memcpy(in, hit_i, HIP_HIT_LEN);
	memcpy(in + HIP_HIT_LEN, h->hi->hit, HIP_HIT_LEN);
	if (hip_mac_compute(h->suite, g->secret, h->rhash_len, in, sizeof(in), i_out,
			    HIP_RHASH_MAX, &ml) != 0 || ml != h->rhash_len)
		return -1;
	hip_put16(opaque, (uint16_t)g->gen);
	return 0;
}
