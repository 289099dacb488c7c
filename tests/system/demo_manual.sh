#!/bin/bash
# The manually keyed hipgw demo (./dpdk-env.sh demo manual, or tests/system/demo.sh
# manual, runs it after deps, hugepages and build; the default demo is keyed by HIP).
#
# Builds the two-site topology in network namespaces (see topology.sh), starts two
# hipgw gateways on net_af_packet ports with fresh random keys, and shows:
#   - ping hostA -> hostB, IPv4 and IPv6, RTT min/avg/max
#   - iperf3 TCP and UDP throughput hostA -> hostB
#   - each gateway's counters (telemetry /hipgw/stats live, --stats-json at exit)
#   - a tshark check of the WAN link: only ESP and ARP/ND, the configured SPIs,
#     no inner address or payload in clear
# then the same measurements through plain Linux routing on the same veths, and a
# summary table. Exit code 0 only when every check passed. Root only.
# Namespaces and processes are removed at the end, on failure and on Ctrl-C.
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"

PING_COUNT=${HGW_PING_COUNT:-20}
IPERF_SECS=${HGW_IPERF_SECS:-5}

need_tools
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

info "hipgw demo: work directory $WORK"
info "creating namespaces ${HGW_NAMESPACES[*]} and veths"
topo_create
write_configs
log "  configs with fresh random AES-128-GCM keys: $WORK/gwA.ini, $WORK/gwB.ini"

gw_ok=0
GW_A4_rtt=- GW_A6_rtt=- GW_TCP_gbps=- GW_UDP_gbps=- GW_UDP_loss=- GW_A4_loss=- GW_A6_loss=-

if [ ! -x "$HIPGW" ]; then
	fail "hipgw binary $HIPGW exists (build it: ./dpdk-env.sh build)"
else
	if HGW_CHECK_OUT=$("$HIPGW" --check-config "$WORK/gwA.ini" 2>&1) &&
		HGW_CHECK_OUT2=$("$HIPGW" --check-config "$WORK/gwB.ini" 2>&1); then
		pass "hipgw --check-config accepts both configs"
	else
		fail "hipgw --check-config accepts both configs"
		log "  ${HGW_CHECK_OUT:-}${HGW_CHECK_OUT2:-}"
	fi
	info "starting hipgw in $NS_GA and $NS_GB ($(eal_mem_args))"
	gw_start A
	gw_start B
	if wait_path 40; then
		gw_ok=1
		pass "gateways up: hostA reaches hostB through them (IPv4 and IPv6)"
	else
		fail "gateways up: hostA reaches hostB through them (IPv4 and IPv6) within 40 s"
		gw_log_tail A; gw_log_tail B
	fi
fi

if [ $gw_ok = 1 ]; then
	info "WAN capture: tshark on $IF_GA_WAN in $NS_GA and $IF_GB_WAN in $NS_GB"
	cap_start || true
	info "ping through the gateways ($PING_COUNT pings each, 0.2 s apart, payload marker $MARKER_HEX)"
	ping_run 4 "$PING_COUNT" GW_A4
	check "ping IPv4 through hipgw: no loss" test "${GW_A4_loss%.*}" -eq 0
	ping_run 6 "$PING_COUNT" GW_A6
	check "ping IPv6 through hipgw: no loss" test "${GW_A6_loss%.*}" -eq 0

	iperf_server_start || warn "iperf3 server not listening"
	info "a short iperf3 TCP and UDP run (1 s each) under the capture"
	iperf_run tcp 1 GW_CAPT >/dev/null || true
	iperf_run udp 1 GW_CAPU >/dev/null || true
	cap_stop

	info "iperf3 through the gateways (${IPERF_SECS} s each, no capture running)"
	check "iperf3 TCP through hipgw moves data" iperf_run tcp "$IPERF_SECS" GW_TCP
	check "iperf3 UDP through hipgw moves data" iperf_run udp "$IPERF_SECS" GW_UDP
	iperf_server_stop

	info "live counters (dpdk-telemetry.py -f ${P}gwX, command /hipgw/stats)"
	for s in A B; do
		log "  gw$s:"
		if telemetry_stats "$s" >"$WORK/telemetry$s.json" && stats_summary "$WORK/telemetry$s.json"; then
			pass "telemetry /hipgw/stats of gw$s"
		else
			fail "telemetry /hipgw/stats of gw$s"
		fi
	done

	info "checking the WAN capture"
	wan_check "$CAP_FILE"
fi

if [ -n "${GW_PID_A:-}${GW_PID_B:-}" ]; then
	info "stopping the gateways (SIGTERM)"
	gw_stop A; gw_stop B
	for s in A B; do
		rc_var="GW_RC_$s"
		check "gw$s exits 0 on SIGTERM (exit ${!rc_var})" test "${!rc_var}" -eq 0
		log "  gw$s counters from --stats-json $WORK/stats$s.json:"
		check "gw$s wrote its stats JSON with every drop reason" stats_summary "$WORK/stats$s.json"
	done
	if [ $gw_ok = 1 ]; then
		n=$(sa_packets "$WORK/statsA.json" a-to-b)
		check "gwA counted packets on SA a-to-b ($n)" test "$n" -gt 0
		n=$(sa_packets "$WORK/statsB.json" a-to-b)
		check "gwB counted packets on SA a-to-b ($n)" test "$n" -gt 0
	fi
	if [ "$HGW_FAIL" -gt 0 ]; then gw_log_tail A 15; gw_log_tail B 15; fi
fi

info "comparison: plain Linux routing on the same veths (no gateways, no encryption)"
topo_plain_on
LX_A4_rtt=- LX_A6_rtt=- LX_TCP_gbps=- LX_UDP_gbps=- LX_UDP_loss=- LX_A4_loss=100 LX_A6_loss=100
if wait_path 15; then
	cap_start || true
	ping_run 4 "$PING_COUNT" LX_A4
	check "ping IPv4 through Linux routing: no loss" test "${LX_A4_loss%.*}" -eq 0
	ping_run 6 "$PING_COUNT" LX_A6
	check "ping IPv6 through Linux routing: no loss" test "${LX_A6_loss%.*}" -eq 0
	cap_stop
	# the capture check must see the cleartext when there is cleartext
	n=$(cleartext_hits "$CAP_FILE")
	check "the cleartext check finds the inner addresses in a plain-routed capture ($n patterns)" test "$n" -gt 0
	iperf_server_start || warn "iperf3 server not listening"
	check "iperf3 TCP through Linux routing moves data" iperf_run tcp "$IPERF_SECS" LX_TCP
	check "iperf3 UDP through Linux routing moves data" iperf_run udp "$IPERF_SECS" LX_UDP
	iperf_server_stop
else
	fail "plain Linux routing path up within 15 s"
fi

echo
info "summary: hostA -> hostB"
printf '  %-34s %-24s %-24s\n' "" "through hipgw (ESP)" "plain Linux routing"
printf '  %-34s %-24s %-24s\n' "ping IPv4 rtt min/avg/max (ms)" "$GW_A4_rtt" "$LX_A4_rtt"
printf '  %-34s %-24s %-24s\n' "ping IPv6 rtt min/avg/max (ms)" "$GW_A6_rtt" "$LX_A6_rtt"
printf '  %-34s %-24s %-24s\n' "iperf3 TCP (Gbit/s)" "$GW_TCP_gbps" "$LX_TCP_gbps"
printf '  %-34s %-24s %-24s\n' "iperf3 UDP 1360 B (Gbit/s, loss)" "$GW_UDP_gbps, ${GW_UDP_loss}%" "$LX_UDP_gbps, ${LX_UDP_loss}%"
echo
echo "$HGW_PASS passed, $HGW_FAIL failed"
[ "$HGW_FAIL" -eq 0 ]
