/* SPDX-License-Identifier: BSD-3-Clause
 * Host Identities: generate, save, load, encode, decode (RFC 7401 section
 * 5.2.9, RFC 3110 section 2 for RSA, RFC 7343 for the HIT).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include "hip_hi.h"

#define HI_FILE_MAX (64 * 1024)   /* bytes of a PEM key file we read */

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int
hip_hi_kind_parse(const char *name, enum hip_hi_kind *kind)
{
	if (name == NULL || kind == NULL)
		return -1;
	if (strcmp(name, "ecdsa-p256") == 0)
		*kind = HIP_HI_ECDSA_P256;
	else if (strcmp(name, "ecdsa-p384") == 0)
		*kind = HIP_HI_ECDSA_P384;
	else if (strcmp(name, "rsa3072") == 0)
		*kind = HIP_HI_RSA3072;
	else
		return -1;
	return 0;
}

uint8_t
hip_hi_suite_of_algo(uint16_t algo)
{
	switch (algo) {
	case HIP_HI_ALGO_RSA: return HIP_SUITE_RSA_DSA_SHA256;
	case HIP_HI_ALGO_ECDSA: return HIP_SUITE_ECDSA_SHA384;
	case HIP_HI_ALGO_ECDSA_LOW: return HIP_SUITE_ECDSA_LOW_SHA1;
	default: return 0;
	}
}

/* field size in bytes of an ECDSA curve ID, 0 if unknown */
static size_t
curve_field_len(uint16_t curve)
{
	switch (curve) {
	case HIP_CURVE_NIST_P256: return 32;
	case HIP_CURVE_NIST_P384: return 48;
	default: return 0;
	}
}

static const char *
curve_ossl_name(uint16_t curve)
{
	switch (curve) {
	case HIP_CURVE_NIST_P256: return "prime256v1";
	case HIP_CURVE_NIST_P384: return "secp384r1";
	default: return NULL;
	}
}

static uint16_t
curve_of_name(const char *name)
{
	if (strcmp(name, "prime256v1") == 0 || strcmp(name, "P-256") == 0 ||
	    strcmp(name, "secp256r1") == 0)
		return HIP_CURVE_NIST_P256;
	if (strcmp(name, "secp384r1") == 0 || strcmp(name, "P-384") == 0)
		return HIP_CURVE_NIST_P384;
	return 0;
}

/* Encode hi->pkey into hi->hi and fill algo, curve, suite, HIT. */
static int
hi_fill_from_pkey(struct hip_hi *hi, char *err, size_t errlen)
{
	EVP_PKEY *pk = hi->pkey;
	BIGNUM *a = NULL, *b = NULL;
	int rc = -1;

	if (EVP_PKEY_is_a(pk, "EC")) {
		char gname[64];
		size_t glen = 0, fl;

		if (EVP_PKEY_get_utf8_string_param(pk, OSSL_PKEY_PARAM_GROUP_NAME, gname,
						   sizeof(gname), &glen) != 1) {
			seterr(err, errlen, "EC key without a named curve");
			goto out;
		}
		hi->curve = curve_of_name(gname);
		fl = curve_field_len(hi->curve);
		if (fl == 0) {
			seterr(err, errlen, "EC curve %s is not NIST P-256 or P-384", gname);
			goto out;
		}
		if (EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_EC_PUB_X, &a) != 1 ||
		    EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_EC_PUB_Y, &b) != 1) {
			seterr(err, errlen, "EC key without a public point");
			goto out;
		}
		hi->algo = HIP_HI_ALGO_ECDSA;
		hi->hi[0] = (uint8_t)(hi->curve >> 8);
		hi->hi[1] = (uint8_t)hi->curve;
		hi->hi[2] = 0x04;
		if (BN_bn2binpad(a, hi->hi + 3, (int)fl) != (int)fl ||
		    BN_bn2binpad(b, hi->hi + 3 + fl, (int)fl) != (int)fl) {
			seterr(err, errlen, "EC public point does not fit the curve");
			goto out;
		}
		hi->hi_len = (uint16_t)(3 + 2 * fl);
	} else if (EVP_PKEY_is_a(pk, "RSA")) {
		int bits = EVP_PKEY_get_bits(pk);
		int nl, el;
		size_t off;

		if (bits < 2048 || bits > 4096) {
			seterr(err, errlen, "RSA key of %d bits (2048..4096 accepted)", bits);
			goto out;
		}
		if (EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_N, &a) != 1 ||
		    EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_E, &b) != 1) {
			seterr(err, errlen, "RSA key without modulus or exponent");
			goto out;
		}
		nl = BN_num_bytes(a);
		el = BN_num_bytes(b);
		if (el < 1 || el > 64 || nl < 1) {
			seterr(err, errlen, "RSA exponent of %d bytes", el);
			goto out;
		}
		/* RFC 3110: 1-byte exponent length (el <= 64 < 256: never the 3-byte form) */
		off = 0;
		hi->hi[off++] = (uint8_t)el;
		if ((size_t)(1 + el + nl) > sizeof(hi->hi)) {
			seterr(err, errlen, "RSA key too large");
			goto out;
		}
		BN_bn2bin(b, hi->hi + off);
		off += (size_t)el;
		BN_bn2bin(a, hi->hi + off);
		off += (size_t)nl;
		hi->algo = HIP_HI_ALGO_RSA;
		hi->curve = 0;
		hi->hi_len = (uint16_t)off;
	} else {
		seterr(err, errlen, "key type %s is not ECDSA or RSA", EVP_PKEY_get0_type_name(pk));
		goto out;
	}
	hi->suite = hip_hi_suite_of_algo(hi->algo);
	if (hip_hit_from_hi(hi->suite, hi->hi, hi->hi_len, hi->hit) != 0) {
		seterr(err, errlen, "HIT computation failed");
		goto out;
	}
	rc = 0;
out:
	BN_free(a);
	BN_free(b);
	return rc;
}

int
hip_hi_generate(enum hip_hi_kind kind, struct hip_hi *hi, char *err, size_t errlen)
{
	if (hi == NULL) {
		seterr(err, errlen, "no output");
		return -1;
	}
	memset(hi, 0, sizeof(*hi));
	switch (kind) {
	case HIP_HI_ECDSA_P256:
		hi->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
		break;
	case HIP_HI_ECDSA_P384:
		hi->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
		break;
	case HIP_HI_RSA3072:
		hi->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)3072);
		break;
	default:
		seterr(err, errlen, "unknown HI algorithm %d", (int)kind);
		return -1;
	}
	if (hi->pkey == NULL) {
		seterr(err, errlen, "key generation failed");
		return -1;
	}
	hi->has_private = 1;
	if (hi_fill_from_pkey(hi, err, errlen) != 0) {
		hip_hi_free(hi);
		return -1;
	}
	return 0;
}

int
hip_hi_save(const struct hip_hi *hi, const char *path, char *err, size_t errlen)
{
	BIO *mem = NULL;
	char *data = NULL;
	long n;
	size_t done = 0;
	int fd = -1, rc = -1;

	if (hi == NULL || hi->pkey == NULL || !hi->has_private || path == NULL) {
		seterr(err, errlen, "%s: no private key to save", path ? path : "(null)");
		return -1;
	}
	mem = BIO_new(BIO_s_mem());
	if (mem == NULL ||
	    PEM_write_bio_PrivateKey(mem, hi->pkey, NULL, NULL, 0, NULL, NULL) != 1) {
		seterr(err, errlen, "%s: cannot encode the private key", path);
		goto out;
	}
	n = BIO_get_mem_data(mem, &data);
	if (n <= 0) {
		seterr(err, errlen, "%s: cannot encode the private key", path);
		goto out;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", path,
		       errno == EEXIST ? "exists already (not overwritten)" : strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0600) != 0)
		goto werr;
	while (done < (size_t)n) {
		ssize_t w = write(fd, data + done, (size_t)n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto werr;
		done += (size_t)w;
	}
	if (fsync(fd) != 0)
		goto werr;
	if (close(fd) != 0) {
		fd = -1;
		goto werr;
	}
	fd = -1;
	rc = 0;
	goto out;
werr:
	seterr(err, errlen, "%s: write failed: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = -1;
	unlink(path);
out:
	BIO_free(mem);   /* a memory BIO's buffer is freed with OPENSSL_clear_free */
	return rc;
}

/* no passphrase prompts: an encrypted key file fails to load */
static int
no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

int
hip_hi_load(const char *path, struct hip_hi *hi, char *err, size_t errlen)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t len = 0;
	BIO *mem = NULL;
	int fd, rc = -1;

	if (hi == NULL || path == NULL) {
		seterr(err, errlen, "no key file given");
		return -1;
	}
	memset(hi, 0, sizeof(*hi));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", path,
		       errno == ELOOP ? "is a symbolic link (refused for a private key)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		seterr(err, errlen, "%s: private key file has mode %04o and is accessible by group or others; refused (chmod 600 %s)",
		       path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	if (st.st_size <= 0 || st.st_size > HI_FILE_MAX) {
		seterr(err, errlen, "%s: size %lld is not that of a PEM key file", path,
		       (long long)st.st_size);
		goto out;
	}
	buf = OPENSSL_malloc((size_t)st.st_size);
	if (buf == NULL) {
		seterr(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (len < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + len, (size_t)st.st_size - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			seterr(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	mem = BIO_new_mem_buf(buf, (int)len);
	if (mem == NULL) {
		seterr(err, errlen, "%s: out of memory", path);
		goto out;
	}
	hi->pkey = PEM_read_bio_PrivateKey(mem, NULL, no_passphrase, NULL);
	if (hi->pkey == NULL) {
		seterr(err, errlen, "%s: not an unencrypted PEM private key", path);
		goto out;
	}
	hi->has_private = 1;
	{
		EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, hi->pkey, NULL);
		int ok = c != NULL && EVP_PKEY_pairwise_check(c) == 1;

		EVP_PKEY_CTX_free(c);
		if (!ok) {
			seterr(err, errlen, "%s: private key fails its consistency check", path);
			goto out;
		}
	}
	if (hi_fill_from_pkey(hi, err, errlen) != 0) {
		/* prefix the file name to the message */
		char tmp[256];

		if (err != NULL && errlen > 0) {
			snprintf(tmp, sizeof(tmp), "%s", err);
			seterr(err, errlen, "%s: %s", path, tmp);
		}
		goto out;
	}
	rc = 0;
out:
	BIO_free(mem);
	if (buf != NULL)
		OPENSSL_clear_free(buf, (size_t)st.st_size);
	close(fd);
	if (rc != 0) {
		hip_hi_free(hi);
		ERR_clear_error();
	}
	return rc;
}

int
hip_hi_load_public(const char *path, struct hip_hi *hi, char *err, size_t errlen)
{
	char tmp[256];
	BIO *bio;

	if (hi == NULL || path == NULL) {
		seterr(err, errlen, "no key file given");
		return -1;
	}
	memset(hi, 0, sizeof(*hi));
	bio = BIO_new_file(path, "r");
	if (bio == NULL) {
		seterr(err, errlen, "%s: %s", path, strerror(errno != 0 ? errno : ENOENT));
		ERR_clear_error();
		return -1;
	}
	/* at most HI_FILE_MAX bytes are read: PEM_read_bio_PUBKEY reads one
	 * block, and a public key's block is far shorter */
	hi->pkey = PEM_read_bio_PUBKEY(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	if (hi->pkey == NULL) {
		seterr(err, errlen, "%s: not a PEM public key (\"BEGIN PUBLIC KEY\"; `openssl pkey "
		       "-in KEY -pubout` writes one)", path);
		ERR_clear_error();
		return -1;
	}
	if (hi_fill_from_pkey(hi, tmp, sizeof(tmp)) != 0) {
		seterr(err, errlen, "%s: %s", path, tmp);
		hip_hi_free(hi);
		ERR_clear_error();
		return -1;
	}
	return 0;
}

static EVP_PKEY *
pkey_from_params(const char *type, OSSL_PARAM_BLD *bld)
{
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pk = NULL;

	if (params == NULL)
		return NULL;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) != 1)
		pk = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return pk;
}

/* Trial division bound and Miller-Rabin bases of rsa_modulus_ok. */
#define RSA_SMALL_FACTOR_BOUND 752   /* SP 800-56B 6.4.2.2 (step d): no factor below */
static const unsigned rsa_mr_bases[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37 };

/* RSA modulus checks of NIST SP 800-56B section 6.4.2.2 (public-key partial
 * validation: odd, no factor below 752, composite), made deterministic.
 * OpenSSL's EVP_PKEY_public_check draws its Miller-Rabin bases at random, so
 * a malformed modulus could pass one time and fail the next with the same
 * bytes. Here the bases are fixed: a modulus that is a strong probable prime
 * to every one of them is refused; a real RSA modulus fails at the first base
 * (one modular exponentiation). n: the modulus, odd, 2048..4096 bits.
 * Returns 0 (acceptable) or -1. */
static int
rsa_modulus_ok(const BIGNUM *n)
{
	BN_CTX *ctx = BN_CTX_new();
	BIGNUM *n1, *d, *a, *x;
	int s = 0, rc = -1;

	if (ctx == NULL)
		return -1;
	BN_CTX_start(ctx);
	n1 = BN_CTX_get(ctx);
	d = BN_CTX_get(ctx);
	a = BN_CTX_get(ctx);
	x = BN_CTX_get(ctx);
	if (x == NULL || !BN_is_odd(n))
		goto out;
	for (unsigned p = 3; p < RSA_SMALL_FACTOR_BOUND; p += 2) {
		unsigned q = 3;

		while (q * q <= p && p % q != 0)
			q += 2;
		if (q * q <= p)
			continue;                    /* p is not prime */
		if (BN_mod_word(n, p) == 0)
			goto out;
	}
	if (BN_copy(n1, n) == NULL || !BN_sub_word(n1, 1) || BN_copy(d, n1) == NULL)
		goto out;
	while (!BN_is_odd(d)) {
		if (!BN_rshift1(d, d))
			goto out;
		s++;
	}
	for (size_t k = 0; k < sizeof(rsa_mr_bases) / sizeof(rsa_mr_bases[0]); k++) {
		bool witness = true;            /* this base proves n composite */

		if (!BN_set_word(a, rsa_mr_bases[k]) || !BN_mod_exp(x, a, d, n, ctx))
			goto out;
		if (BN_is_one(x) || BN_cmp(x, n1) == 0)
			witness = false;
		for (int r = 1; r < s && witness; r++) {
			if (!BN_mod_sqr(x, x, n, ctx))
				goto out;
			if (BN_cmp(x, n1) == 0)
				witness = false;
		}
		if (witness) {
			rc = 0;
			goto out;
		}
	}
out:
	BN_CTX_end(ctx);
	BN_CTX_free(ctx);
	return rc;
}

int
hip_hi_decode(uint16_t algo, const uint8_t *b, size_t len, struct hip_hi *hi)
{
	OSSL_PARAM_BLD *bld = NULL;
	BIGNUM *n = NULL, *e = NULL;
	int rc = -1;

	if (hi == NULL)
		return -1;
	memset(hi, 0, sizeof(*hi));
	if (b == NULL || len == 0 || len > HIP_HI_MAX_LEN)
		return -1;
	bld = OSSL_PARAM_BLD_new();
	if (bld == NULL)
		return -1;
	if (algo == HIP_HI_ALGO_ECDSA) {
		uint16_t curve;
		size_t fl;

		if (len < 3)
			goto out;
		curve = (uint16_t)(b[0] << 8 | b[1]);
		fl = curve_field_len(curve);
		if (fl == 0 || len != 3 + 2 * fl || b[2] != 0x04)
			goto out;
		if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
						    curve_ossl_name(curve), 0) != 1 ||
		    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
						     b + 2, len - 2) != 1)
			goto out;
		hi->pkey = pkey_from_params("EC", bld);
		hi->curve = curve;
	} else if (algo == HIP_HI_ALGO_RSA) {
		size_t el, off, nl;

		if (len < 2)
			goto out;
		if (b[0] != 0) {
			el = b[0];
			off = 1;
		} else {
			if (len < 3)
				goto out;
			el = (size_t)(b[1] << 8 | b[2]);
			off = 3;
			if (el <= 255)   /* RFC 3110: the 3-byte form only for longer exponents */
				goto out;
		}
		if (el == 0 || el > len - off || len - off - el == 0)
			goto out;
		nl = len - off - el;
		if (b[off] == 0 || b[off + el] == 0)   /* no leading zeros */
			goto out;
		e = BN_bin2bn(b + off, (int)el, NULL);
		n = BN_bin2bn(b + off + el, (int)nl, NULL);
		if (e == NULL || n == NULL)
			goto out;
		if (BN_num_bits(n) < 2048 || BN_num_bits(n) > 4096 || !BN_is_odd(n) ||
		    !BN_is_odd(e) || BN_is_one(e) || BN_num_bits(e) > 256 ||
		    rsa_modulus_ok(n) != 0)
			goto out;
		if (OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) != 1 ||
		    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) != 1)
			goto out;
		hi->pkey = pkey_from_params("RSA", bld);
	} else {
		goto out;
	}
	if (hi->pkey == NULL)
		goto out;
	if (algo == HIP_HI_ALGO_ECDSA) {   /* on the curve (RSA: rsa_modulus_ok above) */
		EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, hi->pkey, NULL);
		int ok = c != NULL && EVP_PKEY_public_check(c) == 1;

		EVP_PKEY_CTX_free(c);
		if (!ok)
			goto out;
	}
	hi->algo = algo;
	hi->suite = hip_hi_suite_of_algo(algo);
	memcpy(hi->hi, b, len);
	hi->hi_len = (uint16_t)len;
	if (hip_hit_from_hi(hi->suite, hi->hi, hi->hi_len, hi->hit) != 0)
		goto out;
	rc = 0;
out:
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	if (rc != 0) {
		hip_hi_free(hi);
		ERR_clear_error();
	}
	return rc;
}

void
hip_hi_free(struct hip_hi *hi)
{
	if (hi == NULL)
		return;
	EVP_PKEY_free(hi->pkey);   /* OpenSSL clears private key material on free */
	OPENSSL_cleanse(hi, sizeof(*hi));
}
