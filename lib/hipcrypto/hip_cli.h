/* SPDX-License-Identifier: BSD-3-Clause
 * Identity commands of hipgw that run without DPDK:
 *
 *   hipgw keygen --algo ecdsa-p256|ecdsa-p384|rsa3072 --out FILE [--force]
 *       writes a new Host Identity private key to FILE (PEM, PKCS#8, mode
 *       0600; an existing FILE is refused unless --force, which replaces it)
 *       and prints "HIT <hit>", "algorithm <name> (HI algorithm N, HIT suite N)"
 *       and "HI <hex of the HOST_ID Host Identity field>".
 *   hipgw hit FILE
 *       prints the HIT of the key in FILE (refused when FILE is accessible by
 *       group or others).
 *   hipgw pubkey FILE [--out PUB [--force]]
 *       the public key of the Host Identity in FILE (checked as for hit) as a
 *       PEM SubjectPublicKeyInfo, what a middlebox's [host] hi names: on
 *       stdout, or written to PUB (mode 0644, an existing PUB refused unless
 *       --force) and then "HIT <hit>" printed.
 */
#ifndef HIPGW_HIP_CLI_H
#define HIPGW_HIP_CLI_H

/* argv[0] is the subcommand ("keygen", "hit" or "pubkey"), as main's argv + 1.
 * Returns the process exit code: 0 success, 1 failure (I/O, key), 2 bad usage.
 * Messages go to stderr as one line each. */
int hip_cli_main(int argc, char **argv);

#endif
