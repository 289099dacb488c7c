/* SPDX-License-Identifier: BSD-3-Clause
 * Helpers the libFuzzer harnesses of tests/fuzz share.
 */
#ifndef HIPGW_FUZZ_COMMON_H
#define HIPGW_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A broken property: say where and what, and abort (libFuzzer keeps the input). */
#define FUZZ_FAIL(...) do {                                                   \
	fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                       \
	fprintf(stderr, __VA_ARGS__);                                         \
	fputc('\n', stderr);                                                  \
	abort();                                                              \
} while (0)

/* A heap copy of exactly len bytes (at least one allocated), so that
 * AddressSanitizer sees any read past the length handed to lib/. Aborts when
 * out of memory. Free it with free(). */
static inline uint8_t *
fuzz_copy(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len != 0 ? len : 1);

	if (p == NULL)
		abort();
	if (len != 0)
		memcpy(p, src, len);
	return p;
}

/* True when the n bytes at p are all zero. */
static inline bool
fuzz_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

#endif
