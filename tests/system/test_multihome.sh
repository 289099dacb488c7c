#!/bin/bash
# System test of multihoming (RFC 8047): hostA - gwA - R - gwB - hostB
# (topology_mob.sh), gwA with two uplinks to R: wan (192.0.2.1, preferred)
# and wan2 (100.64.1.1). Checks, by part:
#   MH-1 the tunnel up over wan; gwA's two paths towards gwB both answer
#        probes (up), the one on wan active; gwB learned both locators
#   MH-2 silent loss on wan (R drops all on r-a1, nftables: this kernel has
#        no netem) under an iperf3 TCP stream and a ping every 10 ms: the
#        path goes down after its misses, the SAs fail over to wan2
#        (failovers), gwB checked and moved to 100.64.1.1; iperf3 does not
#        fail, pings pass; the stream crossed gwA's wan2 both ways (its
#        port counters). The loss ends: after the
#        hysteresis the SAs fail back to wan (failbacks)
#   MH-3 link down of wan (R's end down: gwA's veth loses its carrier)
#        under iperf3 and pings: failover to wan2 at once; iperf3 does not
#        fail, pings pass; the link back: failback
#   MH-4 wan2's address changes (hipgw set-address) while wan is active:
#        the SAs stay on wan, the new path answers probes, gwB learns the
#        new locator
# Counters and paths are asserted, never times; the outage (ms) and the
# pings lost are printed. Prints "N passed, N failed" last; exit code 0 only
# when nothing failed. Root only.
# shellcheck disable=SC2016  # check NAME eval '...': expanded when the check runs
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-mh-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
# shellcheck source=tests/system/topology_mob.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology_mob.sh"
# shellcheck source=tests/system/mob_measure.sh
. "$(dirname "${BASH_SOURCE[0]}")/mob_measure.sh"
# shellcheck source=tests/system/mh_common.sh
. "$(dirname "${BASH_SOURCE[0]}")/mh_common.sh"

IPERF_S=8               # s of iperf3 and pings per event, the event after EVENT_AT_S
EVENT_AT_S=2
MOVE_WAIT_S=10          # the failover within this
BACK_WAIT_S=15          # the failback within this (hysteresis MH_FAILBACK_MS)

finish() {
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	[ "$HGW_FAIL" -eq 0 ]
}

# traffic_across NAME TRIGGER_FN: iperf3 and pings, TRIGGER_FN after
# EVENT_AT_S, checks that traffic survived; prints the outage.
traffic_across() {
	local name=$1 trig=$2 iperf_pid ping_pid iperf_rc=0 t_ev gaps rx0 tx0 rx1 tx1
	read -r rx0 tx0 <<<"$(mh_port_pkts wan2)"
	iperf_server_start
	nsx "$NS_HA" iperf3 -c "$HB4" -t "$IPERF_S" -J >"$WORK/iperf-$name.json" 2>&1 &
	iperf_pid=$!
	HGW_BG_PIDS+=("$iperf_pid")
	nsx "$NS_HA" ping -D -i 0.01 -c $((IPERF_S * 100)) -W 1 "$HB4" >"$WORK/ping-$name.txt" 2>&1 &
	ping_pid=$!
	HGW_BG_PIDS+=("$ping_pid")
	sleep "$EVENT_AT_S"
	t_ev=$(date +%s.%N)
	"$trig"
	check "$name the SAs failed over to wan2" wait_ok "$MOVE_WAIT_S" mh_active_is wan2
	wait "$ping_pid" || true
	forget_pid "$ping_pid"
	wait "$iperf_pid" || iperf_rc=$?
	forget_pid "$iperf_pid"
	iperf_server_stop
	gaps=$(ping_gaps "$WORK/ping-$name.txt" "$t_ev" 4)
	log "  $name: $gaps (pings 10 ms apart, in the 4 s from the event; outage: the longest time without a reply)"
	check "$name iperf3 TCP across the failover did not fail (rc $iperf_rc)" test "$iperf_rc" -eq 0
	read -r rx1 tx1 <<<"$(mh_port_pkts wan2)"
	log "  $name: gwA's wan2 rx $rx0 -> $rx1, tx $tx0 -> $tx1 packets"
	# probes alone are 5 a second each way: the stream moved when thousands did
	check "$name the stream crossed wan2 both ways (rx $rx0 -> $rx1, tx $tx0 -> $tx1)" \
		eval 'isnum "$rx1" && isnum "$tx1" && [ $((rx1 - rx0)) -gt 2000 ] && [ $((tx1 - tx0)) -gt 2000 ]'
	check "$name pings pass after the failover" nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4"
	[[ "$gaps" != *lost=all* ]] || check "$name some pings were answered" false
}

need_tools
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

info "topology: hostA - gwA (wan, wan2) - R - gwB - hostB"
mob_topo_create
mh_configs
gw_start A
gw_start B
check "MH-1 gwA running" gw_wait_running A 30
check "MH-1 gwB running" gw_wait_running B 30
check "MH-1 hostA reaches hostB (IPv4 and IPv6) through the tunnel" wait_path 30
check "MH-1 both of gwA's paths to gwB answer probes" wait_ok 10 mh_both_up
log "  gwA's paths: $(jget "$WORK/peerA.json" "/hipgw/hip_peer.multihome.paths")"
check "MH-1 the path on wan is active" mh_active_is wan
b_has_wan2() {
	peer_json B
	[[ "$(jget "$WORK/peerB.json" "/hipgw/hip_peer.locators")" == *"$MOB_GA_WAN2 "* ]]
}
check "MH-1 gwB learned gwA's wan2 locator (LOCATOR_SET)" wait_ok 5 b_has_wan2

info "MH-2 silent loss on wan under ping and iperf3"
loss_on() { mob_path_drop on "$IF_R_A1"; }
kinds0=$(mob_wan_kinds)
traffic_across MH-2 loss_on
peer_json A
fo=$(mh_counter failovers); down=$(mh_counter path_down); lost=$(mh_counter probes_lost)
log "  gwA: failovers $fo path_down $down probes_lost $lost; paths $(mh_counter paths)"
check "MH-2 counted: the path down after lost probes, a failover ($down, $lost, $fo)" \
	eval 'isnum "$fo" && [ "$fo" -ge 1 ] && [ "$down" -ge 1 ] && [ "$lost" -ge 3 ]'
b_remote_is() {
	peer_json B
	[ "$(jget "$WORK/peerB.json" "/hipgw/hip_peer.remote")" = "$1" ]
}
check "MH-2 gwB sends to gwA's wan2 locator $MOB_GA_WAN2" wait_ok 5 b_remote_is "$MOB_GA_WAN2"
kinds=$(mob_wan_kinds)
log "  R forwarded: $kinds (before: $kinds0)"
mob_path_drop off "$IF_R_A1"
check "MH-2 the loss over: the SAs fail back to wan" wait_ok "$BACK_WAIT_S" mh_active_is wan
peer_json A
fb=$(mh_counter failbacks)
check "MH-2 a failback counted ($fb)" eval 'isnum "$fb" && [ "$fb" -ge 1 ]'
check "MH-2 gwB sends to gwA's wan locator $GA_WAN4 again" wait_ok 5 b_remote_is "$GA_WAN4"
check "MH-2 pings pass after the failback" nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4"

info "MH-3 link down of wan under ping and iperf3"
link_off() { mob_link_down "$IF_R_A1"; }
traffic_across MH-3 link_off
peer_json A
fo2=$(mh_counter failovers)
check "MH-3 another failover counted ($fo -> $fo2)" eval 'isnum "$fo2" && [ "$fo2" -gt "$fo" ]'
check "MH-3 gwB sends to gwA's wan2 locator $MOB_GA_WAN2" wait_ok 5 b_remote_is "$MOB_GA_WAN2"
mob_link_up "$IF_R_A1"
check "MH-3 the link back: the SAs fail back to wan" wait_ok "$BACK_WAIT_S" mh_active_is wan
check "MH-3 pings pass after the failback" nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4"

info "MH-4 wan2's address changes (set-address): the SAs stay on wan"
MH_WAN2_NEW=100.64.1.2
if ans=$(mob_set_address A wan2 "$MH_WAN2_NEW/24" "$MOB_A2_R" 2>&1); then rc=0; else rc=$?; fi
log "  hipgw set-address wan2: $ans"
check "MH-4 set-address wan2 answers ok (rc $rc)" test "$rc" -eq 0
wan2_new_up() {
	peer_json A
	[[ "$(mh_counter paths)" == *"$MH_WAN2_NEW -> $GB_WAN4 wan2 up"* ]]
}
check "MH-4 the path from $MH_WAN2_NEW answers probes" wait_ok 10 wan2_new_up
log "  gwA's paths: $(mh_counter paths)"
check "MH-4 the path on wan is still active" mh_active_is wan
b_has_new() {
	peer_json B
	[[ "$(jget "$WORK/peerB.json" "/hipgw/hip_peer.locators")" == *"$MH_WAN2_NEW "* ]]
}
check "MH-4 gwB learned $MH_WAN2_NEW (LOCATOR_SET), still sends to $GA_WAN4" \
	eval 'wait_ok 5 b_has_new && b_remote_is "$GA_WAN4"'
check "MH-4 pings pass" nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4"

gw_stop A
gw_stop B
finish
