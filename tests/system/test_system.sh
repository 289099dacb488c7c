#!/bin/bash
# System test: the demo topology (topology.sh) with two real hipgw gateways on
# net_af_packet ports, as a test. Checks:
#   - both configs pass --check-config; both gateways come up
#   - ping hostA -> hostB over IPv4 and IPv6, no loss
#   - a short iperf3 TCP run (IPv4 and IPv6) moves data
#   - telemetry /hipgw/stats answers while running
#   - the WAN capture holds only ESP and ARP/ND, with the configured SPIs, only
#     between the two outer addresses, and no inner address or ping payload in clear
#   - clear traffic sent to gwA's outer port is not forwarded inward (fail closed)
#     and is counted as a policy drop
#   - SIGTERM stops each gateway with exit 0 and a stats JSON with every drop reason
# Then the same with HIP keying (fresh Host Identities, [peer] sections, no [sa]):
#   - hipgw keygen / hit, --check-config; the first ping starts the Base Exchange
#   - ping both ways and both families, a short iperf3, telemetry with the SAs
#   - /hipgw/hit_ping on gwA: ICMPv6 echo from gwA's HIT to gwB's in BEET (RFC
#     7402 3.1), answered by gwB (hit_echo_answered) and counted (hit_echo_rx)
#   - the WAN capture holds only HIP, ESP and ARP/ND; tshark's HIP dissector sees
#     I1, R1, I2, R2 (whole, good checksums, nothing malformed); the ESP SPIs are
#     those announced in ESP_INFO and each side's in_spi; nothing in clear
#   - both stats JSONs show bex_ok >= 1 for the peer and no failed BEX
#   - 800 marked pings across UPDATE rekeys (sa-lifetime 3 s): no loss, and
#     drops auth, replay and no_sa 0 on both gateways; at SIGTERM the capture
#     shows CLOSE and CLOSE_ACK, and gwB, closed by gwA, keeps no SA of it
#     (not even an in SA a rekey replaced)
#   - --keylog: both files mode 0600, a line for every SPI on the wire, and
#     tshark decrypts the WAN ESP with them (the marked ICMP echoes between
#     the inner addresses, in the BEX's SAs and in SAs after a rekey)
# Then the HIP-keyed gateways once more with --slow-path (every frame's SA
# lookup on the control lcore, the diagnostic of perf/esp-bench):
#   - 500 pings across UPDATE rekeys: no loss, drops auth, replay and no_sa 0,
#     at least one rekey on each side, and the workers ran the frames the
#     control lcore looked up (slow_done > 0, at most a burst short of
#     slow_sent at the stop)
# Then a restart (hip_restart_check): HIP-keyed gateways with a 1 h SA
# lifetime; gwB is killed (SIGKILL: no CLOSE) and started again while gwA
# keeps its SAs, and pings go from site A only:
#   - hostA reaches hostB again within 30 s: gwA's ESP on SPIs gwB lost made
#     gwB start a Base Exchange (hip.peers.PEER.unknown_spi_bex >= 1), which
#     gwA took as a restarted peer's (bex_ok >= 2)
#   - the WAN capture holds only HIP, ESP and ARP/ND, gwB's I1 to gwA, and
#     nothing in clear; both gateways exit 0 on SIGTERM
# Prints "N passed, N failed" last; exit code 0 only when nothing failed. Root only.
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgwt-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"

finish() {
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	[ "$HGW_FAIL" -eq 0 ]
}

need_tools
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

info "system test: work directory $WORK"
if [ ! -x "$HIPGW" ]; then
	fail "hipgw binary $HIPGW exists"
	finish
	exit 1
fi

topo_create
write_configs
check "hipgw --check-config gwA.ini" "$HIPGW" --check-config "$WORK/gwA.ini"
check "hipgw --check-config gwB.ini" "$HIPGW" --check-config "$WORK/gwB.ini"

cap_start || true
info "starting hipgw in $NS_GA and $NS_GB ($(eal_mem_args))"
gw_start A
gw_start B
if ! wait_path 40; then
	fail "gateways up: hostA reaches hostB through them (IPv4 and IPv6) within 40 s"
	cap_stop
	gw_stop A; gw_stop B
	gw_log_tail A 40; gw_log_tail B 40
	finish
	exit 1
fi
pass "gateways up: hostA reaches hostB through them (IPv4 and IPv6)"

T4_loss=100 T6_loss=100
ping_run 4 10 T4
check "ping IPv4 hostA -> hostB through hipgw, no loss" test "${T4_loss%.*}" -eq 0
ping_run 6 10 T6
check "ping IPv6 hostA -> hostB through hipgw, no loss" test "${T6_loss%.*}" -eq 0
# and the other way round
ping_back() { nsx "$NS_HB" ping "-$1" -c 3 -i 0.2 -W 2 -q -p "$MARKER_HEX" "$2" >/dev/null 2>&1; }

# rekey_pings LABEL N [PING-ARGS...]: N IPv4 pings hostA -> hostB 10 ms apart,
# across the UPDATE rekeys of the running HIP-keyed pair; checks that none is
# lost, then takes each gateway's telemetry (telemetryX$GW_RUN.json) and checks
# drops auth, replay and no_sa = 0 on both.
rekey_pings() {
	local label=$1 n=$2 out loss s r v
	shift 2
	out=$(nsx "$NS_HA" ping -4 -q -c "$n" -i 0.01 -W 1 "$@" "$HB4" 2>&1) || true
	loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
	log "  $label: ping IPv4 $n x 10 ms across UPDATE rekeys: loss ${loss:-100}%"
	check "$label: no packet lost across UPDATE rekeys ($n pings, loss ${loss:-100}%)" \
		test "${loss:-100}" = 0
	for s in A B; do
		telemetry_stats "$s" >"$WORK/telemetry$s$GW_RUN.json" || true
		for r in auth replay no_sa; do
			v=$(hip_get "$WORK/telemetry$s$GW_RUN.json" "drops.$r" || echo none)
			check "$label: gw$s drops.$r = 0 after the rekey ping stream ($v)" test "$v" = 0
		done
	done
}
# gw_kill A|B: SIGKILL, as a crash: no CLOSE to the peer, no stats JSON.
gw_kill() {
	local v="GW_PID_$1" pid
	pid=${!v:-}
	[ -n "$pid" ] || return 0
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	forget_pid "$pid"
	eval "GW_PID_$1="
}

# hip_restart_check: gwB crashes and starts again (same Host Identity) while
# gwA keeps its SAs, and traffic goes from site A only: nothing on gwB's side
# starts a Base Exchange, gwA's ESP arrives on SPIs gwB no longer knows, and
# the SA lifetime (1 h) is far off. The tunnel must come back by itself: ESP
# for an unknown SPI from a [peer]'s locator makes gwB start a BEX, which gwA,
# ESTABLISHED, takes as a restarted peer's (RFC 7401 4.4.2, 6.9). Its own
# configs gwX-restart.ini, logs and WAN capture (GW_RUN=-restart).
hip_restart_check() {
	local GW_CONF=-restart GW_RUN=-restart GW_KEYLOG='' fail_before=$HGW_FAIL s v other i1 hits rc_var
	for s in A B; do
		HGW_SA_LIFETIME='3600s, 1GiB' write_hip_gw_config "$WORK/gw$s$GW_CONF.ini" "$s"
		chmod 600 "$WORK/gw$s$GW_CONF.ini"
	done
	gw_start A
	gw_start B
	if ! { gw_wait_running A 30 && gw_wait_running B 30 && wait_path 40; }; then
		fail "restart: HIP-keyed gateways up, hostA reaches hostB within 40 s"
		gw_stop A; gw_stop B
		gw_log_tail A 30; gw_log_tail B 30
		return 0
	fi
	pass "restart: HIP-keyed gateways up (SA lifetime 1 h), hostA reaches hostB"
	cap_start 0 || true
	info "killing gwB (SIGKILL) and starting it again; pings from site A only"
	gw_kill B
	mv "$WORK/gwB$GW_RUN.log" "$WORK/gwB$GW_RUN-killed.log"
	gw_start B
	check "restart: gwB, killed (no CLOSE sent), runs again" gw_wait_running B 30
	# wait_path pings hostA -> hostB only: gwB has nothing of its own to send
	check "restart: hostA reaches hostB again within 30 s, with traffic from site A only" \
		wait_path 30
	grep -h 'unknown SPI\|BEX done' "$WORK/gwB$GW_RUN.log" 2>/dev/null | sed 's/^/  gwB log: /' || true
	for s in A B; do telemetry_stats "$s" >"$WORK/telemetry$s$GW_RUN.json" || true; done
	v=$(hip_get "$WORK/telemetryB$GW_RUN.json" "hip.peers.$HIP_PEER_OF_B.unknown_spi_bex" || echo none)
	check "restart: gwB started the BEX on ESP for an unknown SPI from gwA (unknown_spi_bex $v >= 1)" \
		eval 'isnum "$v" && [ "$v" -ge 1 ]'
	v=$(hip_get "$WORK/telemetryA$GW_RUN.json" "hip.peers.$HIP_PEER_OF_A.bex_ok" || echo none)
	check "restart: gwA took it as a restarted peer's BEX (bex_ok $v >= 2)" \
		eval 'isnum "$v" && [ "$v" -ge 2 ]'
	gw_stop A; gw_stop B
	cap_stop
	for s in A B; do
		rc_var="GW_RC_$s"
		check "restart: gw$s exits 0 on SIGTERM (${!rc_var:-none})" test "${!rc_var:-none}" = 0
	done
	other=$(tsh "$CAP_FILE" -Y 'not (hip or esp or arp or (icmpv6.type >= 133 and icmpv6.type <= 137))' | wc -l)
	check "restart: the WAN carries only HIP, ESP, ARP and ND ($other other frames)" test "$other" -eq 0
	i1=$(tsh "$CAP_FILE" -Y "hip.packet_type == 1 && ip.src == $GB_WAN4 && ip.dst == $GA_WAN4" | wc -l)
	check "restart: the WAN shows the restarted gwB's I1 to gwA ($i1)" test "$i1" -ge 1
	hits=$(pcap_hits "$CAP_FILE" "$(cleartext_patterns)")
	check "restart: no inner address or ping payload marker in clear on the WAN" test "${hits:-1}" -eq 0
	if [ "$HGW_FAIL" -gt "$fail_before" ]; then gw_log_tail A 30; gw_log_tail B 30; fi
}

check "ping IPv4 hostB -> hostA through hipgw" ping_back 4 "$HA4"
check "ping IPv6 hostB -> hostA through hipgw" ping_back 6 "$HA6"

iperf_server_start || warn "iperf3 server not listening"
check "iperf3 TCP IPv4 2 s through hipgw moves data" iperf_run tcp 2 TT4 4
check "iperf3 TCP IPv6 2 s through hipgw moves data" iperf_run tcp 2 TT6 6
iperf_server_stop

for s in A B; do
	if telemetry_stats "$s" >"$WORK/telemetry$s.json" && stats_summary "$WORK/telemetry$s.json"; then
		pass "telemetry /hipgw/stats of gw$s"
	else
		fail "telemetry /hipgw/stats of gw$s"
		head -c 400 "$WORK/telemetry$s.json" 2>/dev/null || true; echo
	fi
done

cap_stop
info "WAN capture check"
wan_check "$CAP_FILE"

# Fail closed: clear IPv4 from the WAN side addressed to gwA's outer MAC and to
# hostA must be dropped (policy), never forwarded into site A.
info "clear traffic on the outer side (injected with scapy from $NS_GB)"
INJ=5
ip netns exec "$NS_HA" tshark -q -n -i "$IF_HA" -f 'udp port 9999' -w "$WORK/hostA-inject.pcap" \
	</dev/null >"$WORK/tshark-hostA.log" 2>&1 &
HA_CAP=$!
HGW_BG_PIDS+=("$HA_CAP")
for ((i = 0; i < 100; i++)); do grep -q "Capturing on" "$WORK/tshark-hostA.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.2
pol_before=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d=d.get("/hipgw/stats", d); print(int(d["drops"]["policy"]))' \
	"$WORK/telemetryA.json" 2>/dev/null || echo 0)
if nsx "$NS_GB" "$PY" - "$IF_GB_WAN" "$MAC_GB_WAN" "$MAC_GA_WAN" "$GB_WAN4" "$HA4" "$MARKER_HEX" "$INJ" <<'EOF' >"$WORK/inject.log" 2>&1
import sys
from scapy.all import Ether, IP, UDP, Raw, sendp
iface, smac, dmac, src, dst, marker, n = sys.argv[1:]
p = Ether(src=smac, dst=dmac) / IP(src=src, dst=dst, ttl=64) / UDP(sport=9999, dport=9999) / Raw(bytes.fromhex(marker) * 4)
sendp(p, iface=iface, count=int(n), inter=0.05, verbose=False)
EOF
then
	sleep 1
else
	warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
fi
kill -INT "$HA_CAP" 2>/dev/null || true
wait "$HA_CAP" 2>/dev/null || true
leaked=$(tsh "$WORK/hostA-inject.pcap" | wc -l)
check "clear UDP injected on the WAN does not reach hostA ($leaked of $INJ frames arrived)" test "$leaked" -eq 0

info "stopping the gateways (SIGTERM)"
gw_stop A; gw_stop B
for s in A B; do
	rc_var="GW_RC_$s"
	check "gw$s exits 0 on SIGTERM (exit ${!rc_var})" test "${!rc_var}" -eq 0
	log "  gw$s --stats-json:"
	check "gw$s wrote its stats JSON with every drop reason, ports and SAs" stats_summary "$WORK/stats$s.json"
done
n=$(sa_packets "$WORK/statsA.json" a-to-b)
check "gwA SA a-to-b (out) counted packets ($n)" test "$n" -gt 0
n=$(sa_packets "$WORK/statsB.json" a-to-b)
check "gwB SA a-to-b (in) counted packets ($n)" test "$n" -gt 0
n=$(sa_packets "$WORK/statsB.json" b-to-a)
check "gwB SA b-to-a (out) counted packets ($n)" test "$n" -gt 0
pol_after=$("$PY" -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["drops"]["policy"]))' \
	"$WORK/statsA.json" 2>/dev/null || echo 0)
check "gwA counted the injected clear frames as policy drops ($pol_before -> $pol_after)" \
	test "$((pol_after - pol_before))" -ge "$INJ"

if [ "$HGW_FAIL" -gt 0 ]; then gw_log_tail A 30; gw_log_tail B 30; fi

# ---------------------------------------------------------------- keyed by HIP
# The same topology with HIP-keyed gateways: a fresh Host Identity each, the
# other's HIT as a [peer], no [sa]; the first ping starts the Base Exchange.
info "HIP-keyed gateways on the same topology"
fail_before_hip=$HGW_FAIL
GW_CONF=-hip GW_RUN=-hip GW_KEYLOG=1
# short SA lifetime: the gateways rekey (UPDATE, fresh DH) under the traffic below
HGW_SA_LIFETIME=${HGW_SA_LIFETIME:-3s}
if write_hip_configs; then
	hip_check_configs
	cap_start 0 || true
	info "starting the HIP-keyed gateways; the first ping hostA -> hostB starts the BEX"
	gw_start A
	gw_start B
	if gw_wait_running A 30 && gw_wait_running B 30 && wait_path 40; then
		pass "HIP: gateways up, hostA reaches hostB through them (IPv4 and IPv6)"
		hip_bex_log
		H4_loss=100 H6_loss=100
		ping_run 4 5 H4
		check "HIP: ping IPv4 hostA -> hostB, no loss" test "${H4_loss%.*}" -eq 0
		ping_run 6 5 H6
		check "HIP: ping IPv6 hostA -> hostB, no loss" test "${H6_loss%.*}" -eq 0
		check "HIP: ping IPv4 hostB -> hostA" ping_back 4 "$HA4"
		check "HIP: ping IPv6 hostB -> hostA" ping_back 6 "$HA6"
		# BEET (RFC 7402 3.1): gwA pings gwB's HIT through its telemetry
		# command; gwB answers in BEET, gwA counts the replies
		for ((i = 0; i < 3; i++)); do
			echo "/hipgw/hit_ping,$HIP_PEER_OF_A" |
				timeout 5 "$PY" /usr/bin/dpdk-telemetry.py -f "${P}gwA" >>"$WORK/hit_ping.log" 2>&1 || true
			sleep 0.3
		done
		sleep 0.5
		telemetry_stats A >"$WORK/hitpingA.json" || true
		telemetry_stats B >"$WORK/hitpingB.json" || true
		hx=$(hip_get "$WORK/hitpingA.json" "hip.peers.$HIP_PEER_OF_A.hit_echo_tx" || echo none)
		hr=$(hip_get "$WORK/hitpingA.json" "hip.peers.$HIP_PEER_OF_A.hit_echo_rx" || echo none)
		ha=$(hip_get "$WORK/hitpingB.json" "hip.peers.$HIP_PEER_OF_B.hit_echo_answered" || echo none)
		log "  /hipgw/hit_ping x3 on gwA: hit_echo_tx $hx, hit_echo_rx $hr; gwB hit_echo_answered $ha"
		check "HIP: gwA pings gwB's HIT in BEET (/hipgw/hit_ping): hit_echo_rx $hr >= 1" \
			eval 'isnum "$hr" && [ "$hr" -ge 1 ]'
		check "HIP: gwB answered the HIT echo requests in BEET (hit_echo_answered $ha >= 1)" \
			eval 'isnum "$ha" && [ "$ha" -ge 1 ]'
		iperf_server_start || warn "iperf3 server not listening"
		check "HIP: iperf3 TCP IPv4 1 s at 50 Mbit/s moves data" iperf_run tcp 1 HT4 4 50M
		iperf_server_stop
		# make-before-break (RFC 7402 section 6): 800 pings 10 ms apart span
		# at least two lifetime rekeys; not one may be lost
		# (marked: tshark finds them in the SAs' ESP with the --keylog keys)
		rekey_pings HIP 800 -p "$MARKER_HEX"
		for s in A B; do
			if [ -s "$WORK/telemetry$s$GW_RUN.json" ] &&
				"$PY" "$HIP_REPORT" summary --telemetry "$WORK/telemetry$s$GW_RUN.json" --peer "$(hip_peer_name "$s")"; then
				pass "HIP: telemetry /hipgw/stats of gw$s: ports, drops, the HIP-keyed SAs"
			else
				fail "HIP: telemetry /hipgw/stats of gw$s: ports, drops, the HIP-keyed SAs"
			fi
		done
	else
		fail "HIP: gateways up, hostA reaches hostB through them (IPv4 and IPv6) within 40 s"
		hip_bex_log
	fi
	info "stopping the HIP-keyed gateways (SIGTERM), still under the capture"
	gw_stop A; gw_stop B
	sleep 0.3
	cap_stop
	hip_stats_checks
	for s in A B; do
		rk=$(hip_get "$WORK/stats$s$GW_RUN.json" "hip.peers.$(hip_peer_name "$s").rekeys" || echo none)
		check "gw$s: SAs rekeyed by UPDATE at least twice (rekeys $rk)" eval 'isnum "$rk" && [ "$rk" -ge 2 ]'
	done
	# gwA stopped first: its CLOSE ended the association at gwB, which must then
	# hold no SA of it, not even an in SA that a rekey replaced under 2 s before
	# (those stay for late packets; the rekeys above are 3 s apart)
	peer=$(hip_peer_name B)
	sas=$(hip_get "$WORK/statsB$GW_RUN.json" sa || echo none)
	check "gwB after gwA's CLOSE: no SA of $peer left in its stats ($sas)" \
		eval '[ "$sas" != none ] && ! grep -q "\"$peer-" <<<"$sas"'
	info "WAN capture check (HIP)"
	hip_wan_check "$CAP_FILE" close
	info "--keylog: the SAs' keys decrypt the WAN capture (tshark)"
	hip_keylog_check "$CAP_FILE"
	if [ "$HGW_FAIL" -gt "$fail_before_hip" ]; then gw_log_tail A 40; gw_log_tail B 40; fi

	# --slow-path across UPDATE rekeys: the control lcore stamps each frame's SA
	# (RCU-held) while it also replaces the SAs
	info "HIP-keyed gateways with --slow-path across UPDATE rekeys"
	fail_before_slow=$HGW_FAIL
	GW_RUN=-slow GW_KEYLOG= HGW_GW_EXTRA=--slow-path
	gw_start A
	gw_start B
	if gw_wait_running A 30 && gw_wait_running B 30 && wait_path 40; then
		rekey_pings --slow-path 500
	else
		fail "--slow-path: gateways up, hostA reaches hostB through them within 40 s"
	fi
	gw_stop A; gw_stop B
	HGW_GW_EXTRA=
	for s in A B; do
		rc_var="GW_RC_$s"
		check "--slow-path: gw$s exits 0 on SIGTERM (${!rc_var:-none})" test "${!rc_var:-none}" = 0
		rk=$(hip_get "$WORK/stats$s$GW_RUN.json" "hip.peers.$(hip_peer_name "$s").rekeys" || echo none)
		check "--slow-path: gw$s rekeyed by UPDATE at least once (rekeys $rk)" \
			eval 'isnum "$rk" && [ "$rk" -ge 1 ]'
		# at SIGTERM a burst may still be on its way up or down the rings
		sl=$("$PY" -c 'import json, sys
w = json.load(open(sys.argv[1]))["workers"]
sent, done = sum(x["slow_sent"] for x in w), sum(x["slow_done"] for x in w)
print(done if 0 <= sent - done <= 64 else "%d sent, %d done" % (sent, done))' "$WORK/stats$s$GW_RUN.json" 2>/dev/null || echo none)
		check "--slow-path: gw$s workers ran what the control lcore looked up (slow_done $sl > 0, at most 64 short of slow_sent at the stop)" \
			eval 'isnum "$sl" && [ "$sl" -gt 0 ]'
	done
	if [ "$HGW_FAIL" -gt "$fail_before_slow" ]; then gw_log_tail A 40; gw_log_tail B 40; fi

	info "HIP-keyed gateways: gwB crashes and restarts, gwA keeps its SAs"
	hip_restart_check
fi
finish
