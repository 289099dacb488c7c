/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw's commands to a running gateway, over DPDK telemetry's socket.
 */
#ifndef HIPGW_CTL_H
#define HIPGW_CTL_H

/* hipgw set-address [--socket PATH | --file-prefix NAME] PORT ADDR/LEN [GATEWAY]:
 * /hipgw/set_address to the hipgw whose telemetry socket is PATH (default
 * /var/run/dpdk/NAME/dpdk_telemetry.v2, NAME "rte"). argv[0] is
 * "set-address". Prints the answer's message; returns the exit code: 0 done,
 * 1 refused by the gateway or no answer, 2 bad command line. */
int hipgw_ctl_set_address(int argc, char **argv);

#endif
