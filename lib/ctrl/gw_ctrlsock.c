/* SPDX-License-Identifier: BSD-3-Clause
 * The control lcore's own packet socket on a net_af_packet port: the PMD's
 * sockets are one per queue pair and each has an RX ring in the kernel's
 * fanout group, so the control lcore cannot have a DPDK TX queue there; a
 * send-only AF_PACKET socket of its own puts the kernel's cost of its frames
 * (sendto, the veth and the peer's stack run in the sender's context) on the
 * control lcore's CPU instead of worker 0's. packet(7).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_log.h>

#include "gw_ctrl.h"

/* The value of devarg `key` of a [port] device string ("net_af_packet0,
 * iface=eth1,qdisc_bypass=0") copied into out (NUL-terminated), or false when
 * the string has no such key or no arguments. */
static bool
devarg(const char *device, const char *key, char *out, size_t outlen)
{
	const char *args = strchr(device, ',');
	struct rte_kvargs *kv;
	const char *v;
	bool found = false;

	if (args == NULL)
		return false;
	kv = rte_kvargs_parse(args + 1, NULL);
	if (kv == NULL)
		return false;
	v = rte_kvargs_get(kv, key);
	if (v != NULL && strlen(v) < outlen) {
		snprintf(out, outlen, "%s", v);
		found = true;
	}
	rte_kvargs_free(kv);
	return found;
}

int
gw_ctrlsock_open(const struct gw_conf_port *pc, const struct rte_eth_dev_info *info,
		 char *why, size_t whylen)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = 0 };
	char val[IF_NAMESIZE + 1];
	int bypass = 1, fd;

	/* the PMD reports its interface's index (eth_dev_info); the iface=
	 * devarg names it otherwise */
	sll.sll_ifindex = (int)info->if_index;
	if (sll.sll_ifindex == 0 && devarg(pc->device, "iface", val, sizeof(val)))
		sll.sll_ifindex = (int)if_nametoindex(val);
	if (sll.sll_ifindex == 0) {
		snprintf(why, whylen, "no interface index for \"%s\"", pc->device);
		return -1;
	}
	/* like the PMD's own sockets (its qdisc_bypass devarg, default 1) */
	if (devarg(pc->device, "qdisc_bypass", val, sizeof(val)))
		bypass = atoi(val) != 0;
	/* protocol 0: the socket is in no receive list, it only sends */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, whylen, "socket(AF_PACKET): %s", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		snprintf(why, whylen, "bind to interface %d: %s", sll.sll_ifindex, strerror(errno));
		close(fd);
		return -1;
	}
	/* without the bypass (qdisc_bypass=0, or a kernel before 3.14) the
	 * kernel gives the PMD's RX sockets a copy of each frame, which the
	 * workers free and count as ctrl_looped */
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &bypass, sizeof(bypass)) != 0)
		RTE_LOG(WARNING, USER1, "port %s: control socket: PACKET_QDISC_BYPASS: %s\n",
			pc->name, strerror(errno));
	return fd;
}
