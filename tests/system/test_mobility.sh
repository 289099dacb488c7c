#!/bin/bash
# System test of locator mobility (RFC 8046): hostA - gwA - R - gwB - hostB
# (topology_mob.sh), gwA and gwB keyed by HIP, R a Linux router between
# their WAN subnets. Checks, by part:
#   MOB-1 gwA's wan has address = dhcp: dnsmasq in R leases it GA_WAN4 (a
#         pool of one, gwB's locator of gwA), /hipgw/dhcp shows it bound;
#         the tunnel up: ping both families, the BEX crossed R. (A lease
#         change is not tested: dnsmasq's shortest lease is 120 s, so the
#         first renewal, T1, is 60 s away, and our client takes no
#         FORCERENEW: too slow for this test.)
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

MOVE_PINGS=500          # 10 ms apart, the move after MOVE_AT_S
MOVE_AT_S=2
IPERF_S=8

finish() {
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	[ "$HGW_FAIL" -eq 0 ]
}

# wait_ok S CMD...: CMD until it succeeds, S seconds at most (not a timing check).
wait_ok() {
	local s=$1; shift
	for _ in $(seq $((s * 5))); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# jget FILE PATH: a value of the JSON FILE by a dotted PATH ("" when absent).
jget() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    for k in sys.argv[2].split("."):
        v = v[k]
    print(v if not isinstance(v, (dict, list)) else json.dumps(v))
except Exception:
    print("")
PY
}

# peer_json SIDE: gateway SIDE's /hipgw/hip_peer of its peer into $WORK/peerSIDE.json.
peer_json() {
	local side=$1 peer=$HIP_PEER_OF_A
	[ "$side" = A ] || peer=$HIP_PEER_OF_B
	tel "$side" "/hipgw/hip_peer,$peer" >"$WORK/peer$side.json" || true
}

# ping_gaps FILE T0: from ping -D -i 0.01 output, "lost=N outage_ms=M" for
# the pings sent from T0 (s since the epoch) to T0 + 3 s: those with no reply,
# and the longest time without a reply in that window (from the last reply
# before it to the first one after each gap). Pings elsewhere in the run
# are not counted: on 2 shared CPUs iperf3 alone delays some.
ping_gaps() {
	"$PY" - "$1" "$2" <<'PY'
import re, sys
t0 = float(sys.argv[2])
rep = {}
for line in open(sys.argv[1]):
    m = re.match(r"\[(\d+\.\d+)\].*icmp_seq=(\d+)", line)
    if m:
        rep[int(m.group(2))] = float(m.group(1))
if not rep:
    print("lost=all outage_ms=none")
    sys.exit(0)
first = min(rep)
sent = lambda s: rep[first] + (s - first) * 0.01   # ping -i 0.01: one every 10 ms
window = [s for s in range(1, max(rep) + 1) if t0 <= sent(s) < t0 + 3]
lost = sum(1 for s in window if s not in rep)
ts = sorted(t for s, t in rep.items() if t0 - 0.5 <= t < t0 + 3.5)
gap = max((b - a for a, b in zip(ts, ts[1:])), default=0.0)
print("lost=%d outage_ms=%.0f" % (lost, gap * 1000))
PY
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
