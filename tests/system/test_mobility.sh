#!/bin/bash
# System test of locator mobility (RFC 8046): hostA - gwA - R - gwB - hostB
# (topology_mob.sh), gwA and gwB keyed by HIP, R a Linux router between
# their WAN subnets. Checks, by part:
#   MOB-1 gwA's wan has address = dhcp: dnsmasq in R leases it GA_WAN4 (a
#         pool of one, gwB's locator of gwA), /hipgw/dhcp shows it bound;
#         the tunnel up: ping both families, the BEX crossed R. dnsmasq
#         sends T1 and T2 of MOB_T1_S / MOB_T2_S (its least lease, 120 s,
#         would put T1 60 s away), so gwA renews every few seconds.
#   MOB-2 gwA's WAN address changes by the control command (hipgw
#         set-address wan 203.0.113.1/24 203.0.113.254) in the middle of an
#         iperf3 TCP stream and a ping every 10 ms: the command answers, iperf3
#         does not fail, pings pass after the move; gwA's SA and gwB's moved
#         (both gateways' /hipgw/hip_peer: local / remote, path_moves, the
#         peer's locator active), gwB checked the new locator (rr_ok), ESP
#         crossed R from and to the new address; the WAN carried only HIP and
#         ESP (R's counters by kind)
#   MOB-3 bad commands change nothing: an unknown port, an inner port, a
#         gateway off-link, a bad prefix
#   MOB-4 a DHCP lease change under an iperf3 TCP stream and a ping every
#         10 ms: dnsmasq restarts with a pool of MOB_GA_DHCP2 alone (wan1's
#         second subnet), gwA's next renewal gets a DHCPNAK (wrong network,
#         RFC 2131 4.3.2, 4.4.5), its
#         client goes to INIT (the address kept meanwhile), takes the new
#         lease and moves the port to it: iperf3 does not fail, pings pass,
#         the NAK and the change counted, both gateways' SAs moved again
#         (path_moves), gwB sends to the new address. Runs before MOB-2:
#         once a command moved the port off its lease's address, the
#         renewals' unicast answers to that address no longer reach gwA.
# Counters and frames are asserted, never times; the outage (ms) and the
# pings lost are printed. Prints "N passed, N failed" last; exit code 0 only
# when nothing failed. Root only.
# shellcheck disable=SC2016  # check NAME eval '...': expanded when the check runs
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-mo-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
# shellcheck source=tests/system/topology_mob.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology_mob.sh"
# shellcheck source=tests/system/mob_measure.sh
. "$(dirname "${BASH_SOURCE[0]}")/mob_measure.sh"

MOVE_PINGS=500          # 10 ms apart, the move after MOVE_AT_S
MOVE_AT_S=2
IPERF_S=8
MOB_T1_S=2              # dnsmasq's T1 and T2 for gwA's lease (s)
MOB_T2_S=4
DHCP_IPERF_S=14         # MOB-4: iperf3 and pings, the pool change after MOVE_AT_S
DHCP_PINGS=1400
DHCP_WAIT_S=15          # the new lease within this (NAK <= T1, then INIT's 4 +- 1 s)
MOB_DHCP_OPTS=("--dhcp-option=option:T1,$MOB_T1_S" "--dhcp-option=option:T2,$MOB_T2_S")

finish() {
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	[ "$HGW_FAIL" -eq 0 ]
}

need_tools
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

info "topology: hostA - gwA - R - gwB - hostB"
mob_topo_create
MOB_GA_DHCP=1 mob_configs
mob_dhcp_start "$GA_WAN4" "$GA_WAN4"
gw_start A
gw_start B
check "MOB-1 gwA running" gw_wait_running A 30
check "MOB-1 gwB running" gw_wait_running B 30
dhcp_bound() {
	tel A /hipgw/dhcp >"$WORK/dhcpA.json" || return 1
	[ "$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.state")" = bound ]
}
check "MOB-1 gwA's wan bound a DHCP lease" wait_ok 30 dhcp_bound
lease=$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.address")
lrouter=$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.router")
log "  gwA's lease: $lease router $lrouter"
check "MOB-1 the lease is $GA_WAN4/24 via $MOB_A1_R ($lease, $lrouter)" \
	eval '[ "$lease" = "$GA_WAN4/24" ] && [ "$lrouter" = "$MOB_A1_R" ]'
check "MOB-1 hostA reaches hostB (IPv4 and IPv6) through the tunnel" wait_path 30
kinds=$(mob_wan_kinds)
log "  R forwarded: $kinds"
check "MOB-1 the BEX and ESP crossed R ($kinds)" \
	eval '[[ "$kinds" =~ hip=([1-9][0-9]*) ]] && [[ "$kinds" =~ esp=([1-9][0-9]*) ]]'

info "MOB-4 gwA's DHCP lease changes to $MOB_GA_DHCP2 under ping and iperf3"
dhcp_addr_is() {
	tel A /hipgw/dhcp >"$WORK/dhcpA.json" || return 1
	[ "$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.address")" = "$1/24" ]
}
dhcp_renewed() {
	local n
	tel A /hipgw/dhcp >"$WORK/dhcpA.json" || return 1
	n=$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.lease_renewed")
	isnum "$n" && [ "$n" -ge 1 ]
}
check "MOB-4 gwA renews its lease at T1 ($MOB_T1_S s)" wait_ok 10 dhcp_renewed
peer_json A
peer_json B
moves0=$(jget "$WORK/peerA.json" "/hipgw/hip_peer.path_moves")
bmoves0=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.path_moves")
iperf_server_start
nsx "$NS_HA" iperf3 -c "$HB4" -t "$DHCP_IPERF_S" -i 0.5 -J >"$WORK/iperf-dhcp.json" 2>&1 &
iperf_pid=$!
t_iperf=$(date +%s.%N)
HGW_BG_PIDS+=("$iperf_pid")
nsx "$NS_HA" ping -D -i 0.01 -c "$DHCP_PINGS" -W 1 "$HB4" >"$WORK/ping-dhcp.txt" 2>&1 &
ping_pid=$!
HGW_BG_PIDS+=("$ping_pid")
sleep "$MOVE_AT_S"
t_pool=$(date +%s.%N)
MOB_DHCP_ROUTER=$MOB_A1B_R mob_dhcp_start "$MOB_GA_DHCP2" "$MOB_GA_DHCP2"
check "MOB-4 gwA's wan took the new lease $MOB_GA_DHCP2/24" wait_ok "$DHCP_WAIT_S" dhcp_addr_is "$MOB_GA_DHCP2"
t_new=$(date +%s.%N)
wait "$ping_pid" || true
forget_pid "$ping_pid"
iperf_rc=0; wait "$iperf_pid" || iperf_rc=$?
forget_pid "$iperf_pid"
iperf_server_stop
win=$("$PY" -c "print(round($t_new - $t_pool + 1, 1))")
gaps=$(ping_gaps "$WORK/ping-dhcp.txt" "$t_pool" "$win")
rates=$(iperf_rates "$WORK/iperf-dhcp.json" "$t_iperf" "$t_pool" "$t_new")
log "  lease change: new lease $("$PY" -c "print('%.1f' % ($t_new - $t_pool))") s after the pool change; $gaps (pings 10 ms apart, in the $win s from it); iperf3 Mbit/s $rates"
tel A /hipgw/dhcp >"$WORK/dhcpA.json" || true
naks=$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.rx_nak")
bound=$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.lease_bound")
log "  gwA's DHCP: $(cat "$WORK/dhcpA.json")"
check "MOB-4 the renewal got a DHCPNAK (rx_nak $naks), the new lease bound ($bound)" \
	eval 'isnum "$naks" && [ "$naks" -ge 1 ] && isnum "$bound" && [ "$bound" -ge 2 ]'
check "MOB-4 iperf3 TCP across the lease change did not fail (rc $iperf_rc)" test "$iperf_rc" -eq 0
check "MOB-4 pings pass after the lease change" nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4"
peer_json A
peer_json B
a_local=$(jget "$WORK/peerA.json" "/hipgw/hip_peer.local")
b_remote=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.remote")
a_moves=$(jget "$WORK/peerA.json" "/hipgw/hip_peer.path_moves")
b_moves=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.path_moves")
log "  gwA: local $a_local, path_moves $moves0 -> $a_moves; gwB: remote $b_remote, path_moves $b_moves"
check "MOB-4 gwA sends from $MOB_GA_DHCP2 ($a_local), its SA moved ($moves0 -> $a_moves)" \
	eval '[ "$a_local" = "$MOB_GA_DHCP2" ] && isnum "$a_moves" && isnum "$moves0" && [ "$a_moves" -gt "$moves0" ]'
check "MOB-4 gwB sends to $MOB_GA_DHCP2 ($b_remote), its SA moved ($bmoves0 -> $b_moves)" \
	eval '[ "$b_remote" = "$MOB_GA_DHCP2" ] && isnum "$b_moves" && isnum "$bmoves0" && [ "$b_moves" -gt "$bmoves0" ]'

info "MOB-2 gwA moves to $MOB_GA_MOVED/24 under ping and iperf3"
iperf_server_start
nsx "$NS_HA" iperf3 -c "$HB4" -t "$IPERF_S" -J >"$WORK/iperf-move.json" 2>&1 &
iperf_pid=$!
HGW_BG_PIDS+=("$iperf_pid")
nsx "$NS_HA" ping -D -i 0.01 -c "$MOVE_PINGS" -W 1 "$HB4" >"$WORK/ping-move.txt" 2>&1 &
ping_pid=$!
HGW_BG_PIDS+=("$ping_pid")
sleep "$MOVE_AT_S"
t_move=$(date +%s.%N)
if ans=$(mob_set_address A wan "$MOB_GA_MOVED/24" "$MOB_A1B_R" 2>&1); then rc=0; else rc=$?; fi
log "  hipgw set-address: $ans"
check "MOB-2 hipgw set-address answers ok (rc $rc)" test "$rc" -eq 0
wait "$ping_pid" || true
forget_pid "$ping_pid"
iperf_rc=0; wait "$iperf_pid" || iperf_rc=$?
forget_pid "$iperf_pid"
iperf_server_stop
gaps=$(ping_gaps "$WORK/ping-move.txt" "$t_move")
log "  commanded move: $gaps (pings 10 ms apart, in the 3 s from the command; outage: the longest time without a reply)"
check "MOB-2 iperf3 TCP across the move did not fail (rc $iperf_rc)" test "$iperf_rc" -eq 0
check "MOB-2 pings pass after the move" nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4"
check "MOB-2 IPv6 pings pass after the move" nsx "$NS_HA" ping -6 -c 5 -i 0.2 -W 1 -q "$HB6"
peer_json A
peer_json B
a_local=$(jget "$WORK/peerA.json" "/hipgw/hip_peer.local")
b_remote=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.remote")
b_locs=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.locators")
b_loc=none
[[ "$b_locs" == *"\"$MOB_GA_MOVED active"* ]] && b_loc=active
a_moves=$(jget "$WORK/peerA.json" "/hipgw/hip_peer.path_moves")
b_moves=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.path_moves")
log "  gwA: local $a_local, path_moves $a_moves; gwB: remote $b_remote, locators $b_locs, path_moves $b_moves"
check "MOB-2 gwA sends from $MOB_GA_MOVED ($a_local), its SA moved ($a_moves)" \
	eval '[ "$a_local" = "$MOB_GA_MOVED" ] && isnum "$a_moves" && [ "$a_moves" -ge 1 ]'
check "MOB-2 gwB sends to $MOB_GA_MOVED ($b_remote), the locator $b_loc, its SA moved ($b_moves)" \
	eval '[ "$b_remote" = "$MOB_GA_MOVED" ] && [ "$b_loc" = active ] && isnum "$b_moves" && [ "$b_moves" -ge 1 ]'
tel B /hipgw/hip >"$WORK/hipB.json" || true
rr_ok=$(jget "$WORK/hipB.json" "/hipgw/hip.rr_ok")
check "MOB-2 gwB checked the new locator (rr_ok $rr_ok)" eval 'isnum "$rr_ok" && [ "$rr_ok" -ge 1 ]'
kinds=$(mob_wan_kinds)
log "  R forwarded: $kinds"
check "MOB-2 ESP crossed R from and to $MOB_GA_MOVED ($kinds)" \
	eval '[[ "$kinds" =~ esp_moved=([1-9][0-9]*) ]] && [[ "$kinds" =~ esp_to_moved=([1-9][0-9]*) ]]'
check "MOB-2 the WAN carried only HIP and ESP ($kinds)" \
	eval '[[ "$kinds" =~ other=0( |$) ]] && [[ "$kinds" =~ udp_hip=0( |$) ]]'

info "MOB-3 bad commands change nothing"
for bad in "nosuch 203.0.113.9/24" "lan 10.1.0.9/24" "wan 203.0.113.9/24 192.0.2.254" \
	"wan 203.0.113.9/0" "wan 224.0.0.1/24"; do
	# shellcheck disable=SC2086  # the words of the case
	if out=$(mob_set_address A $bad 2>&1); then rc=0; else rc=$?; fi
	log "  set-address $bad: $out"
	check "MOB-3 set-address $bad refused with a reason (rc $rc)" \
		eval '[ "$rc" -ne 0 ] && [ -n "$out" ]'
done
peer_json A
a_local=$(jget "$WORK/peerA.json" "/hipgw/hip_peer.local")
check "MOB-3 gwA still sends from $MOB_GA_MOVED ($a_local)" test "$a_local" = "$MOB_GA_MOVED"
check "MOB-3 pings still pass" nsx "$NS_HA" ping -c 3 -i 0.2 -W 1 -q "$HB4"

gw_stop A
gw_stop B
finish
