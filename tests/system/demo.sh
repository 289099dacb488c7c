#!/bin/bash
# The hipgw demo, keyed by HIP (./dpdk-env.sh demo runs it after deps, hugepages
# and build; `./dpdk-env.sh demo manual` runs the manually keyed one,
# tests/system/demo_manual.sh).
#
#   tests/system/demo.sh [hip|manual]
#
# Builds the two-site topology in network namespaces (see topology.sh), gives
# each gateway a fresh Host Identity (hipgw keygen), puts each HIT into the
# other's config as a [peer] (no [sa]), and lets the first ping start the HIP
# Base Exchange. Then it repeats the three experiments of a published
# evaluation of HIP's basic characteristics with HIPL on this machine and prints
# them beside the paper's figures (docs/published-figures.json: the figures and
# the reference; hip_report.py reads them):
#   - the WAN check: a capture of a whole run (BEX, pings, a little iperf3,
#     CLOSE) holds only HIP (IP protocol 139), ESP and ARP/ND; tshark's HIP
#     dissector sees I1, R1, I2, R2; the ESP SPIs are those the exchange
#     negotiated (ESP_INFO, and each side's in_spi in its stats); nothing in clear
#   - Scenario A: Base Exchange time and its four parts, median of
#     HGW_BEX_RUNS (default 10) exchanges, the gateways restarted for each
#   - Scenario B: ping RTT with and without the HIP gateways, IPv4 and IPv6
#   - Scenario C: iperf3 TCP and UDP throughput with and without them
#   - the gateways' counters (telemetry, and --stats-json with its "hip" object)
# "Without" is plain Linux routing on the same veths. Exit code 0 only when every
# check passed. Root only. Namespaces and processes are removed at the end, on
# failure and on Ctrl-C.
set -euo pipefail

case "${1:-hip}" in
	manual) shift; exec "$(dirname "${BASH_SOURCE[0]}")/demo_manual.sh" "$@" ;;
	hip) ;;
	*) echo "usage: $0 [hip|manual]" >&2; exit 2 ;;
esac

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"

PING_COUNT=${HGW_PING_COUNT:-20}
IPERF_SECS=${HGW_IPERF_SECS:-5}
BEX_RUNS=${HGW_BEX_RUNS:-10}
# what runs under the WAN capture besides the pings: rate-limited iperf3
CAP_IPERF_RATE=${HGW_CAP_IPERF_RATE:-50M}

need_tools
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

info "hipgw demo, keyed by HIP: work directory $WORK"
info "creating namespaces ${HGW_NAMESPACES[*]} and veths"
topo_create

HIT_A='' HIT_B=''
hip_ok=0
if [ ! -x "$HIPGW" ]; then
	fail "hipgw binary $HIPGW exists (build it: ./dpdk-env.sh build)"
else
	info "Host Identities: hipgw keygen --algo $HGW_HIP_ALGO, one per gateway"
	if write_hip_configs; then
		hip_ok=1
		log "  configs: $WORK/gwA-hip.ini, $WORK/gwB-hip.ini (no [sa]: the SAs come from the BEX)"
		log "  gwA's [gateway] and [peer] sections:"
		awk '/^\[port/ { skip = 1 } /^\[(gateway|peer)/ { skip = 0 } !skip && !/^;/ && NF { print "    " $0 }' \
			"$WORK/gwA-hip.ini"
		hip_check_configs
	fi
fi
GW_CONF=-hip

# Scenario A inputs, B and C results (- until measured)
CAP4_loss=100 CAP6_loss=100
GW_A4_rtt=- GW_A6_rtt=- GW_TCP_bps=0 GW_UDP_bps=0 GW_UDP_loss=- GW_A4_loss=100 GW_A6_loss=100
LX_A4_rtt=- LX_A6_rtt=- LX_TCP_bps=0 LX_UDP_bps=0 LX_UDP_loss=- LX_A4_loss=100 LX_A6_loss=100
: >"$WORK/bex.txt"
: >"$WORK/first-rtt.txt"

# start_pair: both gateways of run $GW_RUN, until both log "hipgw running".
start_pair() {
	gw_start A
	gw_start B
	gw_wait_running A 30 && gw_wait_running B 30
}

# ping_back 4|6 DST: three pings hostB -> hostA succeed.
ping_back() { nsx "$NS_HB" ping "-$1" -c 3 -i 0.2 -W 2 -q -p "$MARKER_HEX" "$2" >/dev/null 2>&1; }

# first_ping: one ping hostA -> hostB, the packet that starts the BEX; prints
# its RTT in ms (or nothing).
first_ping() {
	nsx "$NS_HA" ping -4 -c 1 -W 10 "$HB4" 2>/dev/null | sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p'
}

# ------------------------------------------------------------ 1. WAN capture run
if [ $hip_ok = 1 ]; then
	GW_RUN=-hip
	info "run 1: WAN capture of a whole HIP-keyed run (tshark, whole frames, on $IF_GA_WAN and $IF_GB_WAN)"
	cap_start 0 || true
	info "starting hipgw in $NS_GA and $NS_GB ($(eal_mem_args))"
	if start_pair; then
		info "first ping hostA -> hostB: gwA has no SA yet, so it starts the Base Exchange with gwB"
		rtt=$(first_ping || true)
		log "  first ping: ${rtt:-no reply} ${rtt:+ms (Base Exchange included)}"
	fi
	if wait_path 40; then
		pass "HIP-keyed gateways: hostA reaches hostB through them (IPv4 and IPv6)"
		hip_bex_log
		ping_run 4 5 CAP4
		check "ping IPv4 through the HIP-keyed gateways: no loss" test "${CAP4_loss%.*}" -eq 0
		ping_run 6 5 CAP6
		check "ping IPv6 through the HIP-keyed gateways: no loss" test "${CAP6_loss%.*}" -eq 0
		check "ping IPv4 hostB -> hostA" ping_back 4 "$HA4"
		check "ping IPv6 hostB -> hostA" ping_back 6 "$HA6"
		iperf_server_start || warn "iperf3 server not listening"
		info "iperf3 TCP and UDP, 1 s each at $CAP_IPERF_RATE, under the capture"
		iperf_run tcp 1 CAPT 4 "$CAP_IPERF_RATE" || true
		iperf_run udp 1 CAPU 4 "$CAP_IPERF_RATE" || true
		iperf_server_stop
		info "live counters (dpdk-telemetry.py -f ${P}gwX, command /hipgw/stats)"
		for s in A B; do
			log "  gw$s:"
			if telemetry_stats "$s" >"$WORK/telemetry$s$GW_RUN.json" &&
				"$PY" "$HIP_REPORT" summary --telemetry "$WORK/telemetry$s$GW_RUN.json" --peer "$(hip_peer_name "$s")"; then
				pass "telemetry /hipgw/stats of gw$s: ports, drops, the HIP-keyed SAs"
			else
				fail "telemetry /hipgw/stats of gw$s: ports, drops, the HIP-keyed SAs"
			fi
		done
	else
		fail "HIP-keyed gateways: hostA reaches hostB through them (IPv4 and IPv6) within 40 s"
		hip_bex_log
		gw_log_tail A 40; gw_log_tail B 40
	fi
	info "stopping the gateways (SIGTERM: CLOSE, then --stats-json), still under the capture"
	gw_stop A; gw_stop B
	sleep 0.3
	cap_stop
	hip_stats_checks
	if t=$(hip_bex_times 2>&1); then
		log "  this run's BEX (ms): I1->R1 (gwB) R1->I2 (gwA) I2->R2 (gwB) R2->ESP (gwA) Tbe (gwA): $t"
	else
		log "  this run's BEX times: $t"
	fi
	info "checking the WAN capture $CAP_FILE"
	hip_wan_check "$CAP_FILE" close
	if [ "$HGW_FAIL" -gt 0 ]; then gw_log_tail A 20; gw_log_tail B 20; fi
fi

# ------------------------------------------------------------ 2. Scenarios B and C, with HIP
if [ $hip_ok = 1 ]; then
	GW_RUN=-perf
	info "run 2: Scenarios B and C through the HIP-keyed gateways (fresh start, no capture)"
	start_pair || true
	if wait_path 40; then
		pass "run 2: hostA reaches hostB through the HIP-keyed gateways"
		info "ping through the gateways ($PING_COUNT pings each, 0.2 s apart)"
		ping_run 4 "$PING_COUNT" GW_A4
		check "ping IPv4 through the HIP-keyed gateways: no loss" test "${GW_A4_loss%.*}" -eq 0
		ping_run 6 "$PING_COUNT" GW_A6
		check "ping IPv6 through the HIP-keyed gateways: no loss" test "${GW_A6_loss%.*}" -eq 0
		iperf_server_start || warn "iperf3 server not listening"
		info "iperf3 through the gateways (${IPERF_SECS} s each)"
		check "iperf3 TCP through the HIP-keyed gateways moves data" iperf_run tcp "$IPERF_SECS" GW_TCP
		check "iperf3 UDP through the HIP-keyed gateways moves data" iperf_run udp "$IPERF_SECS" GW_UDP
		iperf_server_stop
	else
		fail "run 2: hostA reaches hostB through the HIP-keyed gateways within 40 s"
		gw_log_tail A 40; gw_log_tail B 40
	fi
	info "stopping the gateways; their counters:"
	gw_stop A; gw_stop B
	hip_stats_checks
fi

# ------------------------------------------------------------ 3. Scenario A
if [ $hip_ok = 1 ]; then
	info "Scenario A: $BEX_RUNS Base Exchanges, both gateways restarted for each, one ping starts it"
	log "  each exchange (ms): I1->R1 (gwB) R1->I2 (gwA) I2->R2 (gwB) R2->ESP (gwA) Tbe (gwA)"
	n_ok=0
	for ((i = 1; i <= BEX_RUNS; i++)); do
		GW_RUN=-bex$i
		rtt=
		if start_pair; then
			rtt=$(first_ping || true)
			if [ -z "$rtt" ]; then
				# the BEX may still finish: give it until a second ping answers
				nsx "$NS_HA" ping -4 -c 1 -W 10 -q "$HB4" >/dev/null 2>&1 || true
			fi
		fi
		gw_stop A; gw_stop B
		if t=$(hip_bex_times 2>&1); then
			echo "$t" >>"$WORK/bex.txt"
			n_ok=$((n_ok + 1))
			[ -z "$rtt" ] || echo "$rtt" >>"$WORK/first-rtt.txt"
			log "  exchange $i: $t ms; first ping ${rtt:-lost}${rtt:+ ms}"
		else
			log "  exchange $i: no times: $t"
			gw_log_tail A 15; gw_log_tail B 15
		fi
	done
	check "Scenario A: $n_ok of $BEX_RUNS exchanges gave their times in both stats JSONs" test "$n_ok" -eq "$BEX_RUNS"
	GW_RUN=
fi

# ------------------------------------------------------------ 4. without HIP
info "without HIP: plain Linux routing on the same veths (no gateways, no encryption)"
topo_plain_on
if wait_path 15; then
	ping_run 4 "$PING_COUNT" LX_A4
	check "ping IPv4 through Linux routing: no loss" test "${LX_A4_loss%.*}" -eq 0
	ping_run 6 "$PING_COUNT" LX_A6
	check "ping IPv6 through Linux routing: no loss" test "${LX_A6_loss%.*}" -eq 0
	iperf_server_start || warn "iperf3 server not listening"
	check "iperf3 TCP through Linux routing moves data" iperf_run tcp "$IPERF_SECS" LX_TCP
	check "iperf3 UDP through Linux routing moves data" iperf_run udp "$IPERF_SECS" LX_UDP
	iperf_server_stop
	# the capture check must see the cleartext when there is cleartext
	GW_RUN=-plain
	cap_start || true
	ping_run 4 3 LXC4 >/dev/null
	ping_run 6 3 LXC6 >/dev/null
	cap_stop
	n=$(cleartext_hits "$CAP_FILE")
	check "the cleartext check finds the inner addresses in a plain-routed capture ($n patterns)" test "$n" -gt 0
	GW_RUN=
else
	fail "plain Linux routing path up within 15 s"
fi

# ------------------------------------------------------------ tables
first_med=$("$PY" -c 'import statistics, sys
v = [float(x) for x in open(sys.argv[1]).read().split()]
print("%.3f ms (%d runs)" % (statistics.median(v), len(v)) if v else "")' "$WORK/first-rtt.txt" 2>/dev/null || true)

echo
info "the published HIP experiments on this machine (paper: HIPL, laptop/PC, Ethernet)"
echo
"$PY" "$HIP_REPORT" table-a "$WORK/bex.txt" \
	--what "puzzle K $HGW_PUZZLE_K, $HGW_HIP_ALGO Host Identities, idle = adaptive" || true
echo
"$PY" "$HIP_REPORT" table-b --v4-plain "$LX_A4_rtt" --v6-plain "$LX_A6_rtt" \
	--v4-hip "$GW_A4_rtt" --v6-hip "$GW_A6_rtt" --first "$first_med" \
	--what "$PING_COUNT pings per row, 0.2 s apart" || true
echo
"$PY" "$HIP_REPORT" table-c --tcp-plain "$LX_TCP_bps" --tcp-hip "$GW_TCP_bps" \
	--udp-plain "$LX_UDP_bps" --udp-hip "$GW_UDP_bps" \
	--udp-loss-plain "$LX_UDP_loss" --udp-loss-hip "$GW_UDP_loss" \
	--udp-note "1360-byte datagrams" --what "$IPERF_SECS s per row" || true
echo
log "  Both gateways share this machine's CPUs with hostA, hostB and the measuring tools: the"
log "  figures are for this set-up (veths, net_af_packet), not for the gateways on NICs."
echo
echo "$HGW_PASS passed, $HGW_FAIL failed"
[ "$HGW_FAIL" -eq 0 ]
