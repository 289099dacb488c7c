/* SPDX-License-Identifier: BSD-3-Clause
 * hipcrypto_tool: a thin command-line face of lib/hipcrypto, so that the
 * independent Python checks (tests/hip/) can cross-check it on fresh random
 * inputs. Test use only; all values are hex on the command line and stdout.
 *
 *   hit-of-hi ALGO HI                         -> HIT (text) and HIT (hex)
 *   hit-of-key FILE                           -> HIT (text), algo, suite, HI hex
 *   puzzle-solve SUITE K I HIT-I HIT-R        -> J
 *   puzzle-verify SUITE K I HIT-I HIT-R J [cutehip] -> ok | fail
 *   keymat SUITE KIJ I J HIT-I HIT-R LEN      -> KEYMAT
 *   keys SUITE CIPHER ESP INDEX KEYMAT        -> name=hex lines (gl/lg)
 *   dh GROUP PRIV PEER-PUB                    -> "pub HEX" and "kij HEX"
 *   mac SUITE KEY DATA                        -> MAC
 *   sign FILE DATA                            -> signature
 *   verify ALGO HI DATA SIG                   -> ok | fail
 * Exit 0 on success ("fail" of a verify included), 1 on an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_dh.h"
#include "hip_hi.h"
#include "hip_hit.h"
#include "hip_keymat.h"
#include "hip_mac.h"
#include "hip_puzzle.h"
#include "hip_sig.h"

static size_t
unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = strlen(s) / 2;

	if (strlen(s) % 2 || n > cap) {
		fprintf(stderr, "bad hex\n");
		exit(1);
	}
	for (size_t x = 0; x < n; x++) {
		unsigned int v;

		if (sscanf(s + 2 * x, "%2x", &v) != 1) {
			fprintf(stderr, "bad hex\n");
			exit(1);
		}
		out[x] = (uint8_t)v;
	}
	return n;
}

static void
hex(const uint8_t *b, size_t n)
{
	for (size_t x = 0; x < n; x++)
		printf("%02x", b[x]);
	printf("\n");
}

static void
hit16(const char *s, uint8_t h[16])
{
	if (unhex(s, h, 16) != 16) {
		fprintf(stderr, "HIT must be 16 bytes\n");
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	static uint8_t a[4096], b[4096], c[4096], d[4096];
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "hit-of-hi") && argc == 4) {
		struct hip_hi h = { 0 };
		char s[HIP_HIT_STRLEN];
		size_t n = unhex(argv[3], a, sizeof(a));

		if (hip_hi_decode((uint16_t)atoi(argv[2]), a, n, &h) != 0)
			return 1;
		hip_hit_to_str(h.hit, s, sizeof(s));
		printf("%s\n", s);
		hex(h.hit, 16);
		hip_hi_free(&h);
		return 0;
	}
	if (!strcmp(cmd, "hit-of-key") && argc == 3) {
		struct hip_hi h = { 0 };
		char s[HIP_HIT_STRLEN], err[512];

		if (hip_hi_load(argv[2], &h, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		hip_hit_to_str(h.hit, s, sizeof(s));
		printf("%s %u %u ", s, (unsigned)h.algo, (unsigned)h.suite);
		hex(h.hi, h.hi_len);
		hip_hi_free(&h);
		return 0;
	}
	if ((!strcmp(cmd, "puzzle-solve") && argc == 7) ||
	    (!strcmp(cmd, "puzzle-verify") && (argc == 8 || argc == 9))) {
		uint8_t suite = (uint8_t)atoi(argv[2]), hi[16], hr[16];
		unsigned int k = (unsigned int)atoi(argv[3]);
		size_t il = unhex(argv[4], a, sizeof(a));
		int r;

		hit16(argv[5], hi);
		hit16(argv[6], hr);
		if (argv[1][7] == 's') {
			if (hip_puzzle_solve(suite, k, a, il, hi, hr, b, 0, NULL) != 0)
				return 1;
			hex(b, il);
			return 0;
		}
		if (unhex(argv[7], b, sizeof(b)) != il)
			return 1;
		r = hip_puzzle_verify_order(suite, k, a, il, hi, hr, b,
					    argc == 9 ? HIP_PUZZLE_ORDER_CUTEHIP_TEST_ONLY : HIP_PUZZLE_ORDER_RFC7401);
		if (r < 0)
			return 1;
		printf("%s\n", r == 0 ? "ok" : "fail");
		return 0;
	}
	if (!strcmp(cmd, "keymat") && argc == 9) {
		uint8_t hi[16], hr[16];
		size_t kl = unhex(argv[3], a, sizeof(a)), il = unhex(argv[4], b, sizeof(b));
		size_t len = (size_t)atol(argv[8]);

		if (unhex(argv[5], c, sizeof(c)) != il || len > sizeof(d))
			return 1;
		hit16(argv[6], hi);
		hit16(argv[7], hr);
		if (hip_keymat_derive((uint8_t)atoi(argv[2]), a, kl, b, c, il, hi, hr, d, len) != 0)
			return 1;
		hex(d, len);
		return 0;
	}
	if (!strcmp(cmd, "keys") && argc == 7) {
		struct hip_keys k;
		size_t n = unhex(argv[6], a, sizeof(a));
		static const char *dir[2] = { "gl", "lg" };

		if (hip_keys_draw(a, n, (uint8_t)atoi(argv[2]), (uint16_t)atoi(argv[3]),
				  (uint16_t)atoi(argv[4]), (uint16_t)atoi(argv[5]), &k) != 0)
			return 1;
		for (int x = 0; x < 2; x++) {
			printf("hip_enc_%s=", dir[x]); hex(k.hip_enc[x].b, k.hip_enc[x].len);
			printf("hip_int_%s=", dir[x]); hex(k.hip_int[x].b, k.hip_int[x].len);
			printf("esp_enc_%s=", dir[x]); hex(k.esp_enc[x].b, k.esp_enc[x].len);
			printf("esp_auth_%s=", dir[x]); hex(k.esp_auth[x].b, k.esp_auth[x].len);
		}
		hip_keys_wipe(&k);
		return 0;
	}
	if (!strcmp(cmd, "dh") && argc == 5) {
		struct hip_dh dh = { 0 };
		size_t pl = unhex(argv[3], a, sizeof(a)), ql = unhex(argv[4], b, sizeof(b)), n;

		int rc = 1;

		if (hip_dh_from_private((uint8_t)atoi(argv[2]), a, pl, &dh) != 0)
			return 1;
		if (hip_dh_public(&dh, c, sizeof(c), &n) == 0) {
			printf("pub ");
			hex(c, n);
			if (hip_dh_derive(&dh, b, ql, d, sizeof(d), &n) == 0) {
				printf("kij ");
				hex(d, n);
				rc = 0;
			}
		}
		hip_dh_free(&dh);
		return rc;
	}
	if (!strcmp(cmd, "mac") && argc == 5) {
		size_t kl = unhex(argv[3], a, sizeof(a)), dl = unhex(argv[4], b, sizeof(b)), n;

		if (hip_mac_compute((uint8_t)atoi(argv[2]), a, kl, b, dl, c, sizeof(c), &n) != 0)
			return 1;
		hex(c, n);
		return 0;
	}
	if (!strcmp(cmd, "sign") && argc == 4) {
		struct hip_hi h = { 0 };
		char err[512];
		size_t dl = unhex(argv[3], a, sizeof(a)), n;

		if (hip_hi_load(argv[2], &h, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		if (hip_sig_sign(&h, a, dl, b, sizeof(b), &n) != 0) {
			hip_hi_free(&h);
			return 1;
		}
		hex(b, n);
		hip_hi_free(&h);
		return 0;
	}
	if (!strcmp(cmd, "verify") && argc == 6) {
		struct hip_hi h = { 0 };
		size_t hl = unhex(argv[3], a, sizeof(a)), dl = unhex(argv[4], b, sizeof(b));
		size_t sl = unhex(argv[5], c, sizeof(c));

		if (hip_hi_decode((uint16_t)atoi(argv[2]), a, hl, &h) != 0)
			return 1;
		printf("%s\n", hip_sig_verify(&h, b, dl, c, sl) == 0 ? "ok" : "fail");
		hip_hi_free(&h);
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top of tests/unit/hipcrypto_tool.c\n");
	return 1;
}
