/* SPDX-License-Identifier: BSD-3-Clause
 * Runtime assembly: ports from their device strings, routes, neighbours, SAs,
 * rings and the packet pool; then the workers and the control loop
 * (lib/ctrl/gw_ctrl_loop.c) on the main lcore, with the tasks of HIP keying
 * and the lab features.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "gw.h"
#include "gw_l2_setup.h"
#include "gw_mbox_setup.h"
#include "gw_keying.h"
#include "gw_lab.h"
#include "gw_seqstate.h"
#include "gw_statsout.h"
#include "gw_ctrl.h"
#include "gw_meta.h"
#include "gw_neigh.h"
#include "gw_worker.h"

#define RX_DESC 1024
#define TX_DESC 1024
#define HIP_TICK_MS 5       /* HIP keying's timers (retransmissions, rekeys) */

#define LOG(level, ...) RTE_LOG(level, USER1, __VA_ARGS__)

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool
is_pci_addr(const char *s)
{
	unsigned a, b, c, d;
	char tail;
	return sscanf(s, "%x:%x:%x.%x%c", &a, &b, &c, &d, &tail) == 4 ||
	       sscanf(s, "%x:%x.%x%c", &b, &c, &d, &tail) == 3;
}

/* Attach (probe) the device of a [port] section; returns its DPDK port id or -1. */
static int
port_attach(const char *path, const struct gw_conf_port *pc, char *err, size_t errlen)
{
	char name[RTE_DEV_NAME_MAX_LEN];
	uint16_t pid;
	size_t n = strcspn(pc->device, ",");

	snprintf(name, sizeof(name), "%.*s", (int)n, pc->device);
	if (rte_eth_dev_get_port_by_name(name, &pid) == 0) {
		/* EAL made it already (-a, --vdev): its arguments are the command
		 * line's, which wins over the config's */
		if (pc->device[n] == ',')
			LOG(WARNING, "%s:%u: port %s: %s exists already (EAL options); the "
			    "arguments given to it there are used, not \"%s\"\n", path, pc->line,
			    pc->name, name, pc->device + n + 1);
		return pid;
	}
	if (rte_dev_probe(pc->device) != 0)
		return fail(err, errlen, "%s:%u: port %s: cannot attach device \"%s\" (see EAL's "
			    "message above; the driver name or its arguments?)", path, pc->line,
			    pc->name, pc->device);
	if (rte_eth_dev_get_port_by_name(name, &pid) != 0) {
		if (is_pci_addr(name))
			return fail(err, errlen, "%s:%u: port %s: no ethdev for PCI device %s "
				    "(bound to vfio-pci?)", path, pc->line, pc->name, name);
		return fail(err, errlen, "%s:%u: port %s: device \"%s\" is not an ethdev", path,
			    pc->line, pc->name, name);
	}
	return pid;
}

/* Whether the control lcore may have a TX queue of its own on this port: on a
 * NIC every TX queue goes to the wire, and net_null / net_pcap have
 * independent TX queues; but net_af_packet and net_tap open one kernel socket
 * per queue pair (an RX socket nobody reads would keep frames of the kernel's
 * fanout), and net_memif / virtio-user hand each queue to a peer that may
 * read only the first. */
static bool
ctrl_txq_ok(const struct rte_eth_dev_info *info)
{
	const char *bus = info->device != NULL ? rte_bus_name(rte_dev_bus(info->device)) : NULL;
	if (bus != NULL && strcmp(bus, "pci") == 0)
		return true;
	return strcmp(info->driver_name, "net_null") == 0 || strcmp(info->driver_name, "net_pcap") == 0;
}

/* net_af_packet without a control TX queue: open the control lcore's own
 * packet socket (p->ctrl_fd; on failure a warning, and worker 0's ring). Logs
 * how the control lcore sends on the port. */
static void
ctrl_sock_setup(struct gw_port *p, const struct gw_conf_port *pc,
		const struct rte_eth_dev_info *info, bool mbox)
{
	char why[160];

	/* not on a middlebox's port: the kernel's copies of what the socket
	 * sends (qdisc_bypass=0) would carry another host's MAC, and the workers
	 * would bridge them back */
	if (p->ctrl_txq < 0 && !mbox && strcmp(info->driver_name, "net_af_packet") == 0) {
		p->ctrl_fd = gw_ctrlsock_open(pc, info, why, sizeof(why));
		if (p->ctrl_fd < 0)
			LOG(WARNING, "port %s: no packet socket for the control lcore (%s)\n",
			    pc->name, why);
	}
	LOG(INFO, "port %s: control lcore sends %s\n", pc->name,
	    p->ctrl_txq >= 0 ? "on its own TX queue" :
	    p->ctrl_fd >= 0 ? "through its own packet socket" :
	    !ctrl_txq_ok(info) ? "through worker 0 (this PMD's TX queues are not independent)" :
	    "through worker 0 (no spare TX queue; net_pcap: one tx_pcap more than workers gives one)");
}

static int
port_setup(struct gw_ctx *ctx, unsigned i, const struct gw_conf_port *pc, char *err, size_t errlen)
{
	struct gw_port *p = &ctx->ports[i];
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t nrx = RX_DESC, ntx = TX_DESC;
	int pid, ret;

	pid = port_attach(ctx->cfg->path, pc, err, errlen);
	if (pid < 0)
		return -1;
	p->port_id = pid;
	p->ctrl_fd = -1;
	snprintf(p->name, sizeof(p->name), "%s", pc->name);
	p->role = pc->role;
	p->mtu = pc->mtu;
	p->mss_clamp = pc->mss_clamp;
	p->dhcp = pc->dhcp;
	gw_paddr_init(&p->addrs, pc->addrs, pc->n_addrs);
	if (rte_eth_dev_info_get(pid, &info) != 0)
		return fail(err, errlen, "port %s: no device info", pc->name);
	if (info.max_rx_queues < ctx->n_workers || info.max_tx_queues < ctx->n_workers)
		return fail(err, errlen, "port %s: %s has %u RX / %u TX queues, %u workers need one each "
			    "(net_af_packet: add qpairs=%u to the device)", pc->name, info.driver_name,
			    info.max_rx_queues, info.max_tx_queues, ctx->n_workers, ctx->n_workers);
	if (ctx->n_workers > 1 && info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
		/* outer port: hash ESP on its SPI where the NIC can, so that each
		 * SPI stays on one queue (inbound SAs have a single writer) */
		if (pc->role == GW_ROLE_OUTER && (info.flow_type_rss_offloads & RTE_ETH_RSS_ESP)) {
			conf.rx_adv_conf.rss_conf.rss_hf |= RTE_ETH_RSS_ESP;
			p->rss_spi = true;
		}
	}
	/* frames longer than one mbuf arrive chained (the workers copy them
	 * into a large mbuf); NICs need scatter for that */
	if (pc->mtu + RTE_ETHER_HDR_LEN > rte_pktmbuf_data_room_size(ctx->pool) - RTE_PKTMBUF_HEADROOM &&
	    (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	/* outer fragments are chained mbufs: a header, then the ESP packet's
	 * bytes (lib/dp/gw_frag_out.c) */
	if (pc->role == GW_ROLE_OUTER && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/* one more TX queue, where the PMD has it, for what the control lcore
	 * sends (R1s under an I1 flood, ARP/ND, ICMP): then that costs the
	 * workers nothing; on af_packet a socket of its own (ctrl_sock_setup);
	 * otherwise it goes through worker 0's ring */
	p->ctrl_txq = info.max_tx_queues > ctx->n_workers && ctrl_txq_ok(&info) ?
		(int)ctx->n_workers : -1;
	ret = rte_eth_dev_configure(pid, ctx->n_workers, ctx->n_workers + (p->ctrl_txq >= 0), &conf);
	if (ret != 0)
		return fail(err, errlen, "%s:%u: port %s: configure failed: %s (is its device also "
			    "another port's?)", ctx->cfg->path, pc->line, pc->name, rte_strerror(-ret));
	rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
	for (unsigned q = 0; q < ctx->n_workers; q++) {
		int s = rte_eth_dev_socket_id(pid);
		if (rte_eth_rx_queue_setup(pid, q, nrx, s, NULL, ctx->pool) != 0 ||
		    rte_eth_tx_queue_setup(pid, q, ntx, s, NULL) != 0)
			return fail(err, errlen, "port %s: queue %u setup failed", pc->name, q);
	}
	if (p->ctrl_txq >= 0 &&
	    rte_eth_tx_queue_setup(pid, p->ctrl_txq, ntx, rte_eth_dev_socket_id(pid), NULL) != 0)
		return fail(err, errlen, "port %s: TX queue %d (control lcore) setup failed", pc->name,
			    p->ctrl_txq);
	if (pc->has_mac) {
		struct rte_ether_addr mac;
		memcpy(mac.addr_bytes, pc->mac, 6);
		if (rte_eth_dev_default_mac_addr_set(pid, &mac) != 0)
			LOG(WARNING, "port %s: %s cannot set MAC; keeping its own\n", pc->name,
			    info.driver_name);
	}
	if (ctx->n_workers > 1 && pc->role == GW_ROLE_OUTER)
		LOG(INFO, "port %s: %s; %u workers: inbound ESP by %s\n", pc->name, info.driver_name,
		    ctx->n_workers, p->rss_spi ? "RSS on the ESP SPI (the first worker that receives "
		    "an SA owns it)" : "software handoff to the SA's owner worker (SPI hash)");
	if (rte_eth_dev_set_mtu(pid, pc->mtu) != 0)
		LOG(WARNING, "port %s: %s does not take MTU %u; hipgw still sizes and fragments "
		    "by %u, and the driver may drop larger frames than its own MTU\n", pc->name,
		    info.driver_name, pc->mtu, pc->mtu);
	ret = rte_eth_dev_start(pid);
	if (ret != 0)
		return fail(err, errlen, "port %s: start failed: %s", pc->name, rte_strerror(-ret));
	if (rte_eth_allmulticast_enable(pid) != 0)
		LOG(DEBUG, "port %s: no all-multicast mode\n", pc->name);
	/* a middlebox's port takes every frame: a bump in the wire has no MAC */
	if (ctx->cfg->mode == GW_MODE_MIDDLEBOX && rte_eth_promiscuous_enable(pid) != 0)
		LOG(WARNING, "port %s: cannot enable promiscuous mode\n", pc->name);
	rte_eth_macaddr_get(pid, &p->mac);
	ctrl_sock_setup(p, pc, &info, ctx->cfg->mode == GW_MODE_MIDDLEBOX);
	return 0;
}

static int
routes_setup(struct gw_ctx *ctx, const struct gw_config *cfg, char *err, size_t errlen)
{
	if (gw_routes_init(&ctx->routes, "hipgw_rt", rte_socket_id()) != 0)
		return fail(err, errlen, "cannot create route tables");
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		const struct gw_conf_port *pc = &cfg->ports[i];
		struct gw_prefix def = { 0 };
		for (unsigned a = 0; a < pc->n_addrs; a++) {
			struct gw_prefix net;
			gw_prefix_network(&net, &pc->addrs[a]);
			if (gw_routes_add(&ctx->routes, &net, i, NULL) != 0)
				return fail(err, errlen, "port %s: cannot add connected route", pc->name);
		}
		for (unsigned r = 0; r < pc->n_routes; r++)
			if (gw_routes_add(&ctx->routes, &pc->routes[r].dst, i, &pc->routes[r].via) != 0)
				return fail(err, errlen, "port %s: cannot add route", pc->name);
		if (pc->gateway4.family) {
			def.a.family = 4;
			gw_routes_add(&ctx->routes, &def, i, &pc->gateway4);
		}
		if (pc->gateway6.family) {
			def.a.family = 6;
			gw_routes_add(&ctx->routes, &def, i, &pc->gateway6);
		}
		for (unsigned n = 0; n < pc->n_neigh; n++) {
			struct rte_ether_addr mac;
			memcpy(mac.addr_bytes, pc->neigh[n].mac, 6);
			if (gw_neigh_set(ctx->neigh, i, &pc->neigh[n].ip, &mac, true) != 0)
				return fail(err, errlen, "port %s: neighbour table full", pc->name);
		}
	}
	return 0;
}

static int
sa_setup(struct gw_ctx *ctx, const struct gw_config *cfg, const struct gw_conf_sa *c,
	 char *err, size_t errlen)
{
	struct gw_sa *sa = rte_zmalloc("hipgw_sa", sizeof(*sa), RTE_CACHE_LINE_SIZE);
	struct esp_sa_params p = {
		.spi = c->spi, .dir = c->dir, .suite = c->suite,
		.key = c->key, .key_len = c->key_len,
		.auth_key = c->auth_key, .auth_key_len = c->auth_key_len,
		.esn = c->esn, .replay_window = c->replay_window,
		.local = c->local, .remote = c->remote,
		.seq_first = 1, .seq_limit = UINT64_MAX,
		.etherip = gw_l2_sa_bridge(cfg, (unsigned)(c - cfg->sas)) != 0,
		.udp_sport = c->udp_sport, .udp_dport = c->udp_dport,
	};
	char msg[256];
	int op;

	if (sa == NULL)
		return fail(err, errlen, "%s:%u: no memory for SA %s", cfg->path, c->line, c->name);
	snprintf(sa->name, sizeof(sa->name), "%s", c->name);
	sa->spi = c->spi;
	sa->dir = c->dir;
	op = gw_outer_port_of(ctx, &c->local);
	if (op < 0) {
		rte_free(sa);
		return fail(err, errlen, "%s:%u: SA %s: local %s is not an outer port address",
			    cfg->path, c->line, c->name, "address");
	}
	if (c->dir == GW_DIR_OUT && (c->suite == GW_SUITE_AES128_GCM16 ||
				     c->suite == GW_SUITE_AES256_GCM16) &&
	    gw_seqstate_open(sa, c, &p.seq_first, &p.seq_limit, err, errlen) != 0) {
		rte_free(sa);
		return -1;
	}
	sa->esp = esp_sa_create(&p, msg, sizeof(msg));
	if (sa->esp == NULL) {
		rte_free(sa);
		return fail(err, errlen, "%s:%u: SA %s: %s", cfg->path, c->line, c->name, msg);
	}
	if (c->dir == GW_DIR_OUT) {
		gw_sa_out_limits(ctx, sa, op);
		if (gw_sadb_add_out(&ctx->sadb, sa, c->prefixes, c->n_prefixes) != 0)
			goto table;
		LOG(INFO, "SA %s: out SPI 0x%x, inner packets up to %u bytes, MSS clamp %u/%u\n",
		    sa->name, sa->spi, sa->max_inner, sa->mss4, sa->mss6);
		return 0;
	}
	sa->bridge = gw_l2_sa_bridge(cfg, (unsigned)(c - cfg->sas));
	sa->bridge_remote = gw_l2_sa_remote(cfg, (unsigned)(c - cfg->sas));
	gw_sa_set_src(sa, c->prefixes, c->n_prefixes);
	if (c->n_local_prefixes > 0) {
		memcpy(sa->ok + sa->n_src, c->local_prefixes,
		       c->n_local_prefixes * sizeof(c->local_prefixes[0]));
		sa->n_dst = c->n_local_prefixes;
	} else {
		gw_sa_default_dst(cfg, sa);
	}
	if (gw_sadb_add_in(&ctx->sadb, sa) != 0)
		goto table;
	return 0;
table:
	esp_sa_free(sa->esp);
	rte_free(sa);
	return fail(err, errlen, "%s:%u: SA %s: cannot install in the SA tables", cfg->path, c->line,
		    c->name);
}

/* A single-producer, single-consumer ring of `size` slots of esize bytes
 * (sizeof(void *): mbufs) on this socket, named by fmt with a and b (an
 * lcore's index, a second one for the handoff rings). NULL when DPDK cannot
 * make it. */
static struct rte_ring *
spsc_ring_elem(unsigned size, unsigned esize, const char *fmt, unsigned a, unsigned b)
{
	char name[32];

	if (snprintf(name, sizeof(name), fmt, a, b) >= (int)sizeof(name))
		return NULL;
	return rte_ring_create_elem(name, esize, size, rte_socket_id(),
				    RING_F_SP_ENQ | RING_F_SC_DEQ);
}

static struct rte_ring *
spsc_ring(unsigned size, const char *fmt, unsigned a, unsigned b)
{
	return spsc_ring_elem(size, sizeof(void *), fmt, a, b);
}

/* Rings of the inbound handoff (several workers), of --slow-path and of the
 * bridges' MAC learning (bridges: the config has some). */
static int
rings_setup(struct gw_ctx *ctx, unsigned bridges)
{
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		if (bridges > 0) {
			ctx->l2_learn[w] = spsc_ring_elem(GW_L2_LEARN_RING, sizeof(struct gw_l2_learn),
							  "hipgw_l2l%u", w, 0);
			if (ctx->l2_learn[w] == NULL)
				return -1;
		}
		if (ctx->slow_path) {
			ctx->slow_up[w] = spsc_ring(GW_RING_SIZE, "hipgw_su%u", w, 0);
			ctx->slow_down[w] = spsc_ring(GW_RING_SIZE, "hipgw_sd%u", w, 0);
			if (ctx->slow_up[w] == NULL || ctx->slow_down[w] == NULL)
				return -1;
		}
		for (unsigned from = 0; ctx->handoff && from < ctx->n_workers; from++) {
			if (from == w)
				continue;
			ctx->handoff_ring[w][from] = spsc_ring(GW_HANDOFF_RING, "hipgw_ho%u_%u",
							       w, from);
			if (ctx->handoff_ring[w][from] == NULL)
				return -1;
		}
	}
	return 0;
}

/* Free what is left in a ring (after the workers stopped). */
static void
ring_drain(struct rte_ring *r)
{
	struct rte_mbuf *m = NULL;
	while (r != NULL && rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

int
gw_create(struct gw_ctx *ctx, const struct gw_config *cfg, const struct gw_run_opts *opts,
	  char *err, size_t errlen)
{
	unsigned lcore, nmbuf;

	memset(ctx, 0, sizeof(*ctx));
	ctx->cfg = cfg;
	ctx->idle = cfg->idle;
	ctx->n_workers = cfg->workers;
	ctx->handoff = ctx->n_workers > 1;
	ctx->slow_path = opts != NULL && opts->slow_path;
	ctx->pmtu.age_ns = (uint64_t)(opts != NULL && opts->test_pmtu_age_s != 0 ?
				      opts->test_pmtu_age_s : cfg->pmtu_age_s) * 1000000000ULL;
	if (rte_lcore_count() < cfg->workers + 1)
		return fail(err, errlen, "%s: %u workers need %u lcores (main = control), EAL has %u; "
			    "use -l or --lcores", cfg->path, cfg->workers, cfg->workers + 1,
			    rte_lcore_count());
	lcore = rte_get_main_lcore();
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		ctx->worker_lcore[w] = lcore;
	}
	if (gw_meta_register() != 0 || esp_lib_init() != 0)
		return fail(err, errlen, "cannot initialise mbuf metadata or crypto");
	nmbuf = cfg->n_ports * ctx->n_workers * (RX_DESC + TX_DESC) +
		ctx->n_workers * 2 * GW_RING_SIZE + 8192;
	if (ctx->handoff)
		nmbuf += ctx->n_workers * (ctx->n_workers - 1) * GW_HANDOFF_RING;
	if (ctx->slow_path)
		nmbuf += ctx->n_workers * 2 * GW_RING_SIZE;
	if (cfg->mbufs != 0)
		nmbuf = cfg->mbufs;          /* [gateway] mbufs: e.g. for net_pcap infinite_rx */
	ctx->pool = rte_pktmbuf_pool_create("hipgw_mbuf", nmbuf, 256, 0,
					    cfg->mbuf_size ? (uint16_t)cfg->mbuf_size :
					    RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (ctx->pool == NULL)
		return fail(err, errlen, "%s: cannot allocate %u mbufs of %u bytes ([gateway] mbufs, "
			    "mbuf-size; or give EAL more memory with -m)", cfg->path, nmbuf,
			    cfg->mbuf_size ? cfg->mbuf_size : RTE_MBUF_DEFAULT_BUF_SIZE);
	ctx->pool_big = rte_pktmbuf_pool_create("hipgw_mbuf_big",
						ctx->n_workers * GW_BIG_MBUFS_PER_WORKER, 32, 0,
						RTE_PKTMBUF_HEADROOM + GW_BIG_MBUF_ROOM,
						rte_socket_id());
	if (ctx->pool_big == NULL)
		return fail(err, errlen, "cannot allocate %u large mbufs of %u bytes (give EAL more "
			    "memory with -m)", ctx->n_workers * GW_BIG_MBUFS_PER_WORKER,
			    RTE_PKTMBUF_HEADROOM + GW_BIG_MBUF_ROOM);
	ctx->pool_frag = rte_pktmbuf_pool_create("hipgw_mbuf_frag",
						 ctx->n_workers * GW_FRAG_OUT_MBUFS_PER_WORKER, 32,
						 0, 0, rte_socket_id());
	if (ctx->pool_frag == NULL)
		return fail(err, errlen, "cannot allocate %u indirect mbufs for outer fragments "
			    "(give EAL more memory with -m)",
			    ctx->n_workers * GW_FRAG_OUT_MBUFS_PER_WORKER);
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		ctx->to_ctrl[w] = spsc_ring(GW_RING_SIZE, "hipgw_up%u", w, 0);
		ctx->from_ctrl[w] = spsc_ring(GW_RING_SIZE, "hipgw_down%u", w, 0);
		if (ctx->to_ctrl[w] == NULL || ctx->from_ctrl[w] == NULL)
			return fail(err, errlen, "cannot create rings");
	}
	if (rings_setup(ctx, cfg->n_bridges) != 0)
		return fail(err, errlen, "cannot create the handoff / slow-path / MAC learning rings");
	ctx->neigh = gw_neigh_create("hipgw_neigh", 4096, rte_socket_id());
	if (ctx->neigh == NULL)
		return fail(err, errlen, "cannot create the neighbour table");
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		if (port_setup(ctx, i, &cfg->ports[i], err, errlen) != 0)
			return -1;
		ctx->n_ports++;
	}
	if (routes_setup(ctx, cfg, err, errlen) != 0)
		return -1;
	if (gw_sadb_init(&ctx->sadb, GW_SPD_MAX_SA, cfg->sagen.in ? cfg->sagen.count : 0,
			 ctx->n_workers, rte_socket_id()) != 0)
		return fail(err, errlen, "cannot create the SA tables");
	/* with RSS on the SPI the NIC picks each SA's worker: the first to see it */
	ctx->sadb.owner_claim = true;
	for (unsigned i = 0; i < ctx->n_ports; i++)
		if (ctx->ports[i].role == GW_ROLE_OUTER && !ctx->ports[i].rss_spi)
			ctx->sadb.owner_claim = false;
	if (ctx->slow_path) {
		gw_slow_init(ctx);
		LOG(WARNING, "--slow-path: the control lcore looks up every data frame's SA "
		    "(a diagnostic: slow)\n");
	}
	for (unsigned i = 0; i < cfg->n_sas; i++)
		if (sa_setup(ctx, cfg, &cfg->sas[i], err, errlen) != 0)
			return -1;
	if (gw_sagen_setup(ctx, err, errlen) != 0)
		return -1;
	if (gw_sadb_add_bypass(&ctx->sadb, cfg->bypass, cfg->n_bypass) != 0)
		return fail(err, errlen, "cannot install bypass prefixes");
	if (gw_l2_setup(ctx, cfg, err, errlen) != 0 || gw_mbox_setup(ctx, cfg, err, errlen) != 0)
		return -1;
	for (unsigned i = 0; i < ctx->n_ports; i++) {
		const struct gw_port *p = &ctx->ports[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		LOG(INFO, "port %s: %s, DPDK port %u, MAC %s, MTU %u\n", p->name,
		    ctx->mbox_peer[i] != 0 ? "bridged (middlebox)" :
		    p->role == GW_ROLE_INNER ? "inner" : "outer", p->port_id, mac, p->mtu);
	}
	return 0;
}

/* The control loop's tasks (gw_ctrl_task) of the layers above it. */
static unsigned
task_slow_poll(void *arg)
{
	return gw_slow_poll(arg);
}

static unsigned
task_sagen_step(void *arg)
{
	return gw_sagen_step(arg);   /* [sa-gen]: one batch per pass while workers run */
}

static void
task_hip_tick(void *arg)
{
	gw_hip_tick(arg);
}

static void
task_mbox_tick(void *arg)
{
	gw_mbox_glue_tick(arg);      /* middlebox: the tracker's timers, flow reclaim */
}

static void
task_hip_close(void *arg)
{
	gw_hip_close_all(arg);       /* RFC 7401 section 5.3.7: tell the peers */
}

static int
stats_file_write(struct gw_ctx *ctx, struct gw_hip *hip, const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		LOG(ERR, "cannot write %s\n", path);
		return -1;
	}
	gw_stats_write_json_hip(ctx, hip, f);
	return fclose(f) != 0 ? -1 : 0;
}

int
gw_run(struct gw_ctx *ctx, const struct gw_run_opts *opts)
{
	struct gw_worker_arg args[GW_WORKERS_MAX];
	struct gw_ctrl_task tasks[GW_CTRL_TASKS_MAX];
	struct gw_ctrl *ctrl = gw_ctrl_create(ctx);
	struct gw_hip *hip = NULL;
	struct gw_mbox_glue *mbox = NULL;
	unsigned n_tasks = 0;
	char err[512];
	int ret = 0;

	if (ctrl == NULL)
		return -1;
	if (ctx->cfg->n_peers > 0) {
		hip = gw_hip_create(ctx, ctrl, opts->keylog, err, sizeof(err));
		if (hip == NULL) {
			LOG(ERR, "%s\n", err);
			gw_ctrl_free(ctrl);
			return -1;
		}
		gw_telemetry_set_hip(hip);
	}
	if (ctx->cfg->mode == GW_MODE_MIDDLEBOX &&
	    (mbox = gw_mbox_glue_create(ctx, ctrl, err, sizeof(err))) == NULL) {
		LOG(ERR, "%s\n", err);
		gw_ctrl_free(ctrl);
		return -1;
	}
	if (gw_l2_setup_peers(ctx, hip, err, sizeof(err)) != 0) {
		LOG(ERR, "%s\n", err);
		gw_telemetry_set_hip(NULL);
		gw_hip_free(hip);
		gw_mbox_glue_free(mbox);
		gw_ctrl_free(ctrl);
		return -1;
	}
	if (ctx->slow_path)
		tasks[n_tasks++] = (struct gw_ctrl_task){ .arg = ctx, .poll = task_slow_poll };
	tasks[n_tasks++] = (struct gw_ctrl_task){ .arg = ctx, .poll = task_sagen_step };
	if (hip != NULL)
		tasks[n_tasks++] = (struct gw_ctrl_task){ .arg = hip, .tick = task_hip_tick,
							  .tick_ms = HIP_TICK_MS,
							  .close = task_hip_close };
	if (mbox != NULL) {
		tasks[n_tasks++] = (struct gw_ctrl_task){ .arg = mbox, .tick = task_mbox_tick,
							  .tick_ms = GW_MBOX_TICK_MS };
		gw_telemetry_set_mbox(gw_mbox_glue_emit, mbox);
	}
	if (ctx->cfg->sagen.before_start)
		while (gw_sagen_step(ctx) > 0)
			;
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		args[w].ctx = ctx;
		args[w].idx = w;
		rte_eal_remote_launch(gw_worker_main, &args[w], ctx->worker_lcore[w]);
	}
	LOG(NOTICE, "hipgw running: %u worker(s), control on lcore %u\n", ctx->n_workers,
	    rte_lcore_id());
	gw_telemetry_set_ctrl(ctrl);
	/* --idle-exit counts from here, not from before the [sa-gen] install */
	gw_ctrl_run(ctrl, ctx, tasks, n_tasks, opts->signalled, opts->idle_exit_ms);
	gw_telemetry_set_ctrl(NULL);
	for (unsigned w = 0; w < ctx->n_workers; w++) {
		ring_drain(ctx->from_ctrl[w]);
		ring_drain(ctx->slow_up[w]);
		ring_drain(ctx->slow_down[w]);
		for (unsigned from = 0; from < ctx->n_workers; from++)
			ring_drain(ctx->handoff_ring[w][from]);
	}
	for (unsigned i = 0; i < ctx->n_ports; i++)
		rte_eth_dev_stop(ctx->ports[i].port_id);
	if (opts->stats_json && stats_file_write(ctx, hip, opts->stats_json) != 0)
		ret = -1;
	gw_telemetry_set_hip(NULL);
	gw_telemetry_set_mbox(NULL, NULL);
	gw_hip_free(hip);
	gw_mbox_glue_free(mbox);
	gw_ctrl_free(ctrl);
	return ret;
}

void
gw_destroy(struct gw_ctx *ctx)
{
	gw_telemetry_stop();
	for (unsigned i = 0; i < ctx->n_ports; i++) {
		rte_eth_dev_stop(ctx->ports[i].port_id);
		rte_eth_dev_close(ctx->ports[i].port_id);
		if (ctx->ports[i].ctrl_fd >= 0)
			close(ctx->ports[i].ctrl_fd);
	}
	ctx->n_ports = 0;
	gw_l2_free(ctx);
	gw_mbox_free(ctx);
	if (ctx->sadb.sad != NULL)
		gw_sadb_free(&ctx->sadb);
	gw_routes_free(&ctx->routes);
	rte_hash_free(ctx->neigh);
	for (unsigned w = 0; w < GW_WORKERS_MAX; w++) {
		rte_ring_free(ctx->to_ctrl[w]);
		rte_ring_free(ctx->from_ctrl[w]);
		rte_ring_free(ctx->slow_up[w]);
		rte_ring_free(ctx->slow_down[w]);
		rte_ring_free(ctx->l2_learn[w]);
		for (unsigned from = 0; from < GW_WORKERS_MAX; from++)
			rte_ring_free(ctx->handoff_ring[w][from]);
	}
	rte_mempool_free(ctx->pool);
	rte_mempool_free(ctx->pool_big);
	rte_mempool_free(ctx->pool_frag);
	esp_lib_fini();
	memset(ctx, 0, sizeof(*ctx));
}
