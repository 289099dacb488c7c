#!/bin/bash
# System test of NAT traversal (RFC 5770 UDP encapsulation, no ICE, no
# relay): hostA - gwA - N - R - gwB - hostB (topology_mob.sh with
# mob_nat_on), gwA behind N's nftables masquerade (random ports), N's
# conntrack UDP timeouts lowered to MOB_NAT_UDP_TIMEOUT s, and N forwarding
# only UDP, TCP and ICMP (HIP and ESP dropped, as many home NATs do). gwA
# initiates with nat = auto and a keepalive interval below N's timeout.
# Checks, by part:
#   NAT-1 the BEX: gwA's plain I1s get no answer, the I1s over UDP do
#         (nat_switch 1 at gwA); ping both families and iperf3 TCP pass;
#         R forwarded UDP 10500 and no HIP, no ESP; gwB's peer state shows
#         the UDP port of N's mapping
#   NAT-2 the mapping kept: no traffic for longer than N's UDP timeout,
#         then hostB pings hostA first (gwB -> N needs the mapping): it
#         passes, gwA sent keepalives and gwB verified them
#   NAT-3 NAT rebinding: N forgets its mappings (conntrack -F) under a ping
#         every 10 ms from hostA; gwA's next packets leave from a new port;
#         gwB moves its out SA there once an authenticated ESP packet with
#         the highest sequence number came from it (nat_rebinds at gwB):
#         pings pass again, outage (ms) and pings lost printed, not asserted
# Counters and frames are asserted, never times. Prints "N passed, N
# failed" last; exit code 0 only when nothing failed. Root only.
# shellcheck disable=SC2016  # check NAME eval '...': expanded when the check runs
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-na-}
MOB_NAT_UDP_TIMEOUT=${MOB_NAT_UDP_TIMEOUT:-6}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
# shellcheck source=tests/system/topology_mob.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology_mob.sh"
# shellcheck source=tests/system/mob_measure.sh
. "$(dirname "${BASH_SOURCE[0]}")/mob_measure.sh"

KEEPALIVE_S=2           # gwA's nat-keepalive, below N's UDP timeout
QUIET_S=$((MOB_NAT_UDP_TIMEOUT + 4))   # NAT-2: no traffic for longer than N's timeout
IPERF_S=4
REBIND_PINGS=400        # 10 ms apart, the rebinding after REBIND_AT_S
REBIND_AT_S=1

finish() {
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	[ "$HGW_FAIL" -eq 0 ]
}

# hip_json SIDE: gateway SIDE's /hipgw/hip into $WORK/hipSIDE.json
hip_json() { tel "$1" /hipgw/hip >"$WORK/hip$1.json" || true; }

need_tools
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

info "topology: hostA - gwA - N (masquerade) - R - gwB - hostB"
mob_topo_create
mob_nat_on
# N passes UDP, TCP and ICMP only: HIP (139) and ESP (50) must go in UDP
nsx "$NS_N" nft -f - <<NFT
table ip natfilter {
	chain forward {
		type filter hook forward priority 0; policy accept;
		meta l4proto { 50, 139 } drop
	}
}
NFT
hip_keygen A
hip_keygen B
MOB_PEER_EXTRA="nat = auto
nat-keepalive = $KEEPALIVE_S" \
	mob_write_hip_config "$WORK/gwA.ini" A "$MOB_GA_NATTED" "$MOB_NAT_IN_R"
mob_write_hip_config "$WORK/gwB.ini" B "$GB_WAN4" "$MOB_B_R"
gw_start A
gw_start B
check "NAT-1 gwA running" gw_wait_running A 30
check "NAT-1 gwB running" gw_wait_running B 30

info "NAT-1 the BEX from behind N"
check "NAT-1 hostA reaches hostB (IPv4 and IPv6) through the tunnel" wait_path 30
iperf_server_start
iperf_rc=0
nsx "$NS_HA" iperf3 -c "$HB4" -t "$IPERF_S" -J >"$WORK/iperf-nat.json" 2>&1 || iperf_rc=$?
iperf_server_stop
check "NAT-1 iperf3 TCP through the NAT (rc $iperf_rc)" test "$iperf_rc" -eq 0
hip_json A
hip_json B
peer_json B
sw=$(jget "$WORK/hipA.json" "/hipgw/hip.nat_switch")
a_udp_tx=$(jget "$WORK/hipA.json" "/hipgw/hip.nat_udp_tx")
b_udp_rx=$(jget "$WORK/hipB.json" "/hipgw/hip.nat_udp_rx")
b_remote=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.remote")
b_rport=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.udp_rport")
log "  gwA: nat_switch $sw, HIP over UDP sent $a_udp_tx; gwB: HIP over UDP received $b_udp_rx, peer at $b_remote port $b_rport"
check "NAT-1 gwA went over UDP after its plain I1s (nat_switch $sw)" test "$sw" = 1
check "NAT-1 gwB sends to N's address $MOB_NAT_OUT port $b_rport" \
	eval '[ "$b_remote" = "$MOB_NAT_OUT" ] && isnum "$b_rport" && [ "$b_rport" -gt 0 ] && [ "$b_rport" != 10500 ]'
kinds=$(mob_wan_kinds)
log "  R forwarded: $kinds"
check "NAT-1 R forwarded UDP 10500, no HIP, no ESP ($kinds)" \
	eval '[[ "$kinds" =~ udp_hip=([1-9][0-9]*) ]] && [[ "$kinds" =~ hip=0( |$) ]] && [[ "$kinds" =~ esp=0( |$) ]]'

info "NAT-2 no traffic for $QUIET_S s (N's UDP timeout $MOB_NAT_UDP_TIMEOUT s)"
hip_json A
ka0=$(jget "$WORK/hipA.json" "/hipgw/hip.nat_keepalive_tx")
sleep "$QUIET_S"
check "NAT-2 hostB reaches hostA first, through N's mapping" \
	nsx "$NS_HB" ping -c 3 -i 0.2 -W 1 -q "$HA4"
hip_json A
hip_json B
ka1=$(jget "$WORK/hipA.json" "/hipgw/hip.nat_keepalive_tx")
kb=$(jget "$WORK/hipB.json" "/hipgw/hip.nat_keepalive_rx")
log "  gwA keepalives sent $ka0 -> $ka1, gwB verified $kb"
check "NAT-2 gwA sent keepalives while quiet ($ka0 -> $ka1), gwB verified them ($kb)" \
	eval 'isnum "$ka0" && isnum "$ka1" && [ "$ka1" -ge $((ka0 + QUIET_S / KEEPALIVE_S - 1)) ] && isnum "$kb" && [ "$kb" -ge 1 ]'

info "NAT-3 N forgets its mappings under a ping every 10 ms"
peer_json B
port0=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.udp_rport")
hip_json B
rb0=$(jget "$WORK/hipB.json" "/hipgw/hip.nat_rebinds")
nsx "$NS_HA" ping -D -i 0.01 -c "$REBIND_PINGS" -W 1 "$HB4" >"$WORK/ping-rebind.txt" 2>&1 &
ping_pid=$!
HGW_BG_PIDS+=("$ping_pid")
sleep "$REBIND_AT_S"
t_rebind=$(date +%s.%N)
mob_nat_rebind
wait "$ping_pid" || true
forget_pid "$ping_pid"
gaps=$(ping_gaps "$WORK/ping-rebind.txt" "$t_rebind")
log "  rebinding: $gaps (pings 10 ms apart, in the 3 s from conntrack -F)"
check "NAT-3 pings pass after the rebinding" nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4"
check "NAT-3 hostB reaches hostA after the rebinding" nsx "$NS_HB" ping -c 3 -i 0.2 -W 1 -q "$HA4"
peer_json B
hip_json B
port1=$(jget "$WORK/peerB.json" "/hipgw/hip_peer.udp_rport")
rb1=$(jget "$WORK/hipB.json" "/hipgw/hip.nat_rebinds")
log "  gwB: peer port $port0 -> $port1, nat_rebinds $rb0 -> $rb1"
check "NAT-3 gwB moved its out SA to N's new port ($port0 -> $port1, nat_rebinds $rb0 -> $rb1)" \
	eval 'isnum "$port1" && [ "$port1" != "$port0" ] && isnum "$rb1" && isnum "$rb0" && [ "$rb1" -gt "$rb0" ]'

gw_stop A
gw_stop B
finish
