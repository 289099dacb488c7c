#!/bin/bash
# The mobility demo: what a locator event costs the traffic through two
# HIP-keyed gateways (docs/mobility.md). ./dpdk-env.sh demo mobility runs it
# after deps, hugepages and build.
#
#   hostA - gwA - R - gwB - hostB        (topology_mob.sh)
#
# Each event of EVENTS is a function event_<name> that sets up its own
# gateways and configuration and then calls
#   measure_event LABEL TARGET TRIGGER_FN
# which runs an iperf3 TCP stream and a ping every 10 ms from hostA to hostB,
# calls TRIGGER_FN after PRE_S seconds (it makes the event happen and
# returns once it is complete, non-zero when it never is), and adds one row
# to the table printed at the end: the outage (the longest time without a
# ping reply from the trigger to 1 s after it returned), the pings lost in
# that window, iperf3's throughput before the trigger and from 1 s after it
# returned (Mbit/s), and the target. An event fails when its trigger fails,
# iperf3 fails, or hostA no longer reaches hostB after it; the exit code is
# 0 only when no event failed. Adding an event: one event_<name> function
# and its name in EVENTS. Root only; namespaces and processes go on every
# exit (trap). Targets are printed beside the figures, never asserted.
#
# Knobs (besides topology.sh's HIPGW, HGW_NO_HUGE, HGW_KEEP, HGW_MEM):
#   HGW_NS_PREFIX   namespace / DPDK file-prefix prefix (default hgw-mob-)
#   HGW_MOB_EVENTS  the events to run (default: all of EVENTS)
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-mob-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
# shellcheck source=tests/system/topology_mob.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology_mob.sh"
# shellcheck source=tests/system/mob_measure.sh
. "$(dirname "${BASH_SOURCE[0]}")/mob_measure.sh"
# shellcheck source=tests/system/mh_common.sh
. "$(dirname "${BASH_SOURCE[0]}")/mh_common.sh"

EVENTS=(commanded dhcp uplink_loss uplink_down nat)   # nat last: it puts gwA behind N for good
PRE_S=3                 # s of traffic before the trigger
RUN_S=20                # s of each event's iperf3 and pings
SETTLE_S=1              # s after the trigger returned before "after" counts
MOB_T1_S=2              # dnsmasq's T1 and T2 for gwA's lease (s)
MOB_T2_S=4
ROWS=()
FAILED=0

# gateways_up: gwA and gwB started on $WORK's configs, the tunnel up.
gateways_up() {
	gw_stop A 2>/dev/null || true
	gw_stop B 2>/dev/null || true
	gw_start A
	gw_start B
	gw_wait_running A 30 && gw_wait_running B 30 && wait_path 30
}

# measure_event LABEL TARGET TRIGGER_FN: traffic across TRIGGER_FN, one row.
measure_event() {
	local label=$1 target=$2 trig=$3 t_start t_ev t_done ok=1 trig_rc=0 iperf_rc=0 gaps rates
	local why="" ping_pid iperf_pid win
	info "event: $label"
	iperf_server_start
	t_start=$(date +%s.%N)
	nsx "$NS_HA" iperf3 -c "$HB4" -t "$RUN_S" -i 0.5 -J >"$WORK/iperf-$trig.json" 2>&1 &
	iperf_pid=$!
	HGW_BG_PIDS+=("$iperf_pid")
	nsx "$NS_HA" ping -D -i 0.01 -c $((RUN_S * 100)) -W 1 "$HB4" >"$WORK/ping-$trig.txt" 2>&1 &
	ping_pid=$!
	HGW_BG_PIDS+=("$ping_pid")
	sleep "$PRE_S"
	t_ev=$(date +%s.%N)
	"$trig" || trig_rc=$?
	t_done=$(date +%s.%N)
	wait "$ping_pid" || true
	forget_pid "$ping_pid"
	wait "$iperf_pid" || iperf_rc=$?
	forget_pid "$iperf_pid"
	iperf_server_stop
	win=$("$PY" -c "print(round($t_done - $t_ev + $SETTLE_S, 2))")
	gaps=$(ping_gaps "$WORK/ping-$trig.txt" "$t_ev" "$win")
	rates=$(iperf_rates "$WORK/iperf-$trig.json" "$t_start" "$t_ev" \
		"$("$PY" -c "print($t_done + $SETTLE_S)")")
	[ "$trig_rc" -eq 0 ] || { ok=0; why+=" trigger failed (rc $trig_rc);"; }
	[ "$iperf_rc" -eq 0 ] || { ok=0; why+=" iperf3 failed (rc $iperf_rc);"; }
	nsx "$NS_HA" ping -c 5 -i 0.2 -W 1 -q "$HB4" >/dev/null 2>&1 ||
		{ ok=0; why+=" hostA no longer reaches hostB;"; }
	[[ "$gaps" != *lost=all* ]] || { ok=0; why+=" no ping answered;"; }
	log "  $label: $gaps, iperf3 Mbit/s $rates, trigger took $("$PY" -c "print('%.1f' % ($t_done - $t_ev))") s"
	local lost out bef aft
	lost=$(sed -n 's/.*lost=\([^ ]*\).*/\1/p' <<<"$gaps")
	out=$(sed -n 's/.*outage_ms=\([^ ]*\).*/\1/p' <<<"$gaps")
	bef=$(sed -n 's/.*before=\([^ ]*\).*/\1/p' <<<"$rates")
	aft=$(sed -n 's/.*after=\([^ ]*\).*/\1/p' <<<"$rates")
	if [ "$ok" = 1 ]; then
		ROWS+=("$(printf '%-26s %10s %6s %8s %8s  %-22s ok' "$label" "$out" "$lost" "$bef" "$aft" "$target")")
	else
		FAILED=$((FAILED + 1))
		ROWS+=("$(printf '%-26s %10s %6s %8s %8s  %-22s FAILED:%s' "$label" "$out" "$lost" "$bef" "$aft" "$target" "$why")")
	fi
}

# ---- events: event_<name> sets up its gateways, then measure_event ----

# commanded: hipgw set-address moves gwA's wan to MOB_GA_MOVED (RFC 8046 UPDATE).
trigger_commanded() {
	mob_set_address A wan "$MOB_GA_MOVED/24" "$MOB_A1B_R" >/dev/null
}
event_commanded() {
	mob_dhcp_stop
	MOB_GA_DHCP=0 mob_configs
	gateways_up || return 1
	measure_event "commanded address change" "< 100 ms" trigger_commanded
}

# dhcp: dnsmasq restarts with a pool on wan1's other subnet; the next renewal
# (T1 = MOB_T1_S) is NAKed (wrong network), the client takes a new lease, gwA moves to it.
dhcp_addr_is() {
	tel A /hipgw/dhcp >"$WORK/dhcpA.json" || return 1
	[ "$(jget "$WORK/dhcpA.json" "/hipgw/dhcp.wan.address")" = "$1/24" ]
}
trigger_dhcp() {
	MOB_DHCP_ROUTER=$MOB_A1B_R mob_dhcp_start "$MOB_GA_DHCP2" "$MOB_GA_DHCP2"
	wait_ok 15 dhcp_addr_is "$MOB_GA_DHCP2"
}
event_dhcp() {
	MOB_DHCP_OPTS=("--dhcp-option=option:T1,$MOB_T1_S" "--dhcp-option=option:T2,$MOB_T2_S")
	rm -f "$WORK/dnsmasq.leases"
	mob_dhcp_start "$GA_WAN4" "$GA_WAN4"
	MOB_GA_DHCP=1 mob_configs
	gateways_up || return 1
	wait_ok 30 dhcp_addr_is "$GA_WAN4" || return 1
	measure_event "DHCP lease change" "none (printed)" trigger_dhcp
}

# uplink_loss / uplink_down: gwA multihomed over wan and wan2 (RFC 8047,
# mh_common.sh); R silently drops everything on wan1 (nftables), or takes
# its end of wan1 down: the SAs fail over to wan2 (complete when gwA's
# active path is on wan2). The next event's fresh gateways start with wan1
# restored.
trigger_uplink_loss() {
	mob_path_drop on "$IF_R_A1"
	wait_ok 10 mh_active_is wan2
}
trigger_uplink_down() {
	mob_link_down "$IF_R_A1"
	wait_ok 10 mh_active_is wan2
}
mh_event() {
	mob_dhcp_stop
	mob_path_drop off "$IF_R_A1"
	mob_link_up "$IF_R_A1"
	mh_configs
	gateways_up || return 1
	wait_ok 10 mh_both_up || return 1
	measure_event "$1" "$2" "$3"
	mob_path_drop off "$IF_R_A1"
	mob_link_up "$IF_R_A1"
}
event_uplink_loss() { MH_PROBE_MS=1000 mh_event "uplink silent loss" "< 3.5 s (default probes)" trigger_uplink_loss; }
event_uplink_down() { mh_event "uplink link down" "< 1 s" trigger_uplink_down; }

# nat: gwA behind N (nftables masquerade, random ports), the association
# over UDP (nat = force, RFC 5770); N forgets its mappings (conntrack -F),
# gwA's next packets leave from a new port, gwB moves there once an
# authenticated ESP packet with the highest sequence number came from it
# (/hipgw/hip_peer udp_rport changed).
nat_port() {
	peer_json B
	jget "$WORK/peerB.json" "/hipgw/hip_peer.udp_rport"
}
nat_moved() { local p; p=$(nat_port); [ -n "$p" ] && [ "$p" != "$NAT_PORT0" ]; }
trigger_nat() {
	NAT_PORT0=$(nat_port)
	mob_nat_rebind
	wait_ok 10 nat_moved
}
event_nat() {
	mob_dhcp_stop
	gw_stop A 2>/dev/null || true
	gw_stop B 2>/dev/null || true
	nsx "$NS_N" ip link show "$IF_N_IN" >/dev/null 2>&1 || mob_nat_on   # once
	hip_keygen A >/dev/null || return 1
	hip_keygen B >/dev/null || return 1
	MOB_PEER_EXTRA="nat = force" mob_write_hip_config "$WORK/gwA.ini" A "$MOB_GA_NATTED" "$MOB_NAT_IN_R"
	mob_write_hip_config "$WORK/gwB.ini" B "$GB_WAN4" "$MOB_B_R"
	gateways_up || return 1
	measure_event "NAT rebinding" "< 15 s (a keepalive)" trigger_nat
}

need_tools
command -v dnsmasq >/dev/null || { echo "missing tools: dnsmasq (run ./dpdk-env.sh deps)" >&2; exit 1; }
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

info "topology: hostA - gwA - R - gwB - hostB"
mob_topo_create
# shellcheck disable=SC2206  # the knob is a list of words
[ -z "${HGW_MOB_EVENTS:-}" ] || EVENTS=($HGW_MOB_EVENTS)
for ev in "${EVENTS[@]}"; do
	n=${#ROWS[@]}
	"event_$ev" || true
	if [ "${#ROWS[@]}" -eq "$n" ]; then    # the setup failed before measuring
		FAILED=$((FAILED + 1))
		ROWS+=("$(printf '%-26s %10s %6s %8s %8s  %-22s FAILED: setup' "$ev" - - - - -)")
	fi
done
gw_stop A 2>/dev/null || true
gw_stop B 2>/dev/null || true
mob_dhcp_stop

echo
echo "outage: the longest time without a reply to a ping every 10 ms, from the event to 1 s after it completed"
printf '%-26s %10s %6s %8s %8s  %-22s %s\n' event outage_ms lost "Mb/s<" "Mb/s>" target result
for r in "${ROWS[@]}"; do printf '%s\n' "$r"; done
[ "$FAILED" -eq 0 ] || { echo "$FAILED event(s) failed"; exit 1; }
