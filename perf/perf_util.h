/* SPDX-License-Identifier: BSD-3-Clause
 * Small helpers the perf/ load tools share (hipgw-bex-load, hipgw-floodgen).
 */
#ifndef HIPGW_PERF_UTIL_H
#define HIPGW_PERF_UTIL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Each tool sets PERF_PROG (its name, for messages) before including this. */
#ifndef PERF_PROG
#error "define PERF_PROG before including perf_util.h"
#endif

/* Set by on_signal (SIGINT, SIGTERM): the tool winds down and reports. */
static volatile sig_atomic_t stop_flag;

static inline void
on_signal(int s)
{
	(void)s;
	stop_flag = 1;
}

/* Message on stderr and exit: 1 when it cannot run, 2 for a bad command line. */
static inline void
die(int code, const char *msg)
{
	fprintf(stderr, PERF_PROG ": %s\n", msg);
	exit(code);
}

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t
mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64 (Marsaglia): fast, not cryptographic; for random-looking packet
 * fields. *s must not be 0. */
static inline uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
