/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the worker fast path in middlebox mode (lib/dp/gw_mbox.c:
 * the bursts of a bridged pair, the bulk flow lookup, the table of first
 * fragments, the HIP punt) and the control lcore's dispatch of what it
 * punted, on a real middlebox: fuzz_worker.c's harness as it is, with
 * tests/fuzz/fuzz_mbox_worker.ini (two net_null ports "left" and "right"
 * bridged, [mbox-gen] flows, bypass prefixes) instead of fuzz_worker.ini.
 * The input format, the determinism and the checks are fuzz_worker.c's: port
 * bit 0 picks left (0) or right (1); after each input every mbuf is back in
 * its pool and the fragment table is emptied (gw_worker_test_reset). Built
 * without the tracker's glue: HIP reaches gw_ctrl_poll and is dropped there.
 */
#define CONF_PATH HIPGW_SOURCE_ROOT "/tests/fuzz/fuzz_mbox_worker.ini"
#include "fuzz_worker.c"
