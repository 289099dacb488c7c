/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests' file reading (cmocka asserts on every failure).
 */
#ifndef HIPGW_UNIT_FILE_H
#define HIPGW_UNIT_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The whole file at path, NUL-terminated (for text), in a malloc'd buffer
 * the caller frees; its length in bytes (without the NUL) into *len. */
static inline uint8_t *
unit_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return b;
}

#endif
