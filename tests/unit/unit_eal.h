/* SPDX-License-Identifier: BSD-3-Clause
 * Teardown shared by the unit tests that start DPDK's EAL. Each runs with its
 * own --file-prefix and --no-shconf; EAL still creates its runtime directory
 * (/var/run/dpdk/PREFIX) and leaves it behind, empty: removed here.
 */
#ifndef HIPGW_UNIT_EAL_H
#define HIPGW_UNIT_EAL_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>

/* rte_eal_cleanup, then rmdir of the runtime directory (left alone if EAL
 * put something in it). */
static inline void
unit_eal_cleanup(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	(void)rmdir(dir);
}

#endif
