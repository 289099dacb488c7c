#!/bin/bash
# System test of middlebox mode (docs/middlebox.md): hostA - gwA - MB - gwB -
# hostB (topology_mbox.sh), MB a third hipgw in mode middlebox, a bump in the
# wire on two net_af_packet ports; gwA and gwB keyed by HIP. Checks, by part:
#   MB-1 before any BEX nothing crosses: ESP of a forged SPI and clear UDP
#        injected towards gwB reach MB and are dropped there (its drops
#        mbox_no_flow and policy count them; gwB's WAN veth sees none); so
#        are ESP in UDP to port 10500 (mbox_no_flow) and NAT-keepalives
#        (mbox_keepalive: no association's locators)
#   MB-2 the BEX crosses MB (I1, R1, I2, R2 seen at both sides of it); ping
#        both ways, iperf3 TCP; MB learned the association (/hipgw/mbox,
#        /hipgw/mbox_flows): the HIT pair, ESTABLISHED, and the SPIs are the
#        gateways' own in_spi (their /hipgw/stats), each a flow to that
#        gateway's locator that counted the ESP
#   MB-3 UPDATE rekeys every 3 s (the gateways' sa-lifetime) under 600 pings
#        10 ms apart: none lost, MB counts the rekeys, no ESP dropped at MB,
#        the SPIs after them again the gateways' in_spi
#   MB-4 MB crashes (SIGKILL once its state file has the association's
#        flows) and starts again on the same state file (gateways with a 1 h
#        sa-lifetime): pings right after it is up pass,
#        MB loaded the association from the file, no BEX on the gateways
#        (bex_ok unchanged) nor across MB
#   MB-5 forged ESP (a random SPI, scapy from gwA's namespace) under the
#        established association, plain and in UDP: counted (mbox_no_flow)
#        and dropped; NAT-keepalives from gwA's locator to gwB's cross
#        (middlebox.keepalive)
#   MB-6 CLOSE: gwA stops (its CLOSE, gwB's CLOSE_ACK cross MB): MB counts
#        it, the association and its flows are gone
#   MB-7 a deny rule for the pair (MB restarted with it): the BEX never
#        completes (no bex_ok, no in_spi on either gateway, hostA's pings
#        unanswered), MB counts the denied I1s and none reaches gwB
# Counters and captured frames are asserted, never times. Prints
# "N passed, N failed" last; exit code 0 only when nothing failed. Root only.
# shellcheck disable=SC2016  # check NAME eval '...': expanded when the check runs
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-mb-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
# shellcheck source=tests/system/topology_mbox.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology_mbox.sh"

INJ=5                   # packets per injection
REKEY_LIFETIME=3s       # the gateways' sa-lifetime in MB-2, MB-3
REKEY_PINGS=600         # 10 ms apart: two lifetimes at least

finish() {
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	[ "$HGW_FAIL" -eq 0 ]
}

need_tools
if ! command -v dumpcap >/dev/null; then
	echo "missing tools: dumpcap (run ./dpdk-env.sh deps)" >&2
	exit 1
fi
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

# mb_wait CMD PATH MIN TRIES: until PATH of MB's telemetry reply to CMD
# (/hipgw/stats or /hipgw/mbox) is MIN or more, TRIES looks 0.2 s apart; the
# reply stays in $WORK/mbwait.json; prints the last value. The caller asserts
# it: the wait only lets the packets arrive.
mb_wait() {
	local cmd=$1 path=$2 min=$3 tries=$4 i v=none
	for ((i = 0; i < tries; i++)); do
		tel M "$cmd" >"$WORK/mbwait.json" 2>/dev/null || true
		v=$(mget "$WORK/mbwait.json" "$path")
		isnum "$v" && [ "$v" -ge "$min" ] && break
		sleep 0.2
	done
	echo "$v"
}

# label_lines LABEL TEXT: TEXT's PASS / FAIL lines with "LABEL: " after the verdict.
label_lines() {
	# shellcheck disable=SC2001  # a regex with a group
	sed "s/^\(PASS\|FAIL\) /\1 $1: /" <<<"$2"
}

# state_has_spi SPI ADDR: MB's state file has the flow (ADDR, SPI) as a
# current SPI of a host (lib/mbox/mbox_state.c: "spi lo|hi STATE SPI DST ...").
state_has_spi() {
	isnum "$1" && [ "$1" != 0 ] &&
		awk -v spi="$1" -v dst="$2" '$1 == "spi" && $4 == spi && $5 == dst { f = 1 } END { exit !f }' \
			"$MBOX_STATE" 2>/dev/null
}

# spi_checks LABEL SNAP: mbox_report.py spis on snapshot SNAP (mbox_snap):
# MB's flows against the gateways' in_spi; counted. Pings 50 ms apart run
# meanwhile, so that the flows in force, a rekey's new ones too, carry ESP.
# The snapshot is taken again (at most 3 times) when a rekey fell between its
# parts (the gateways' and MB's views then differ).
spi_checks() {
	local label=$1 snap=$2 out try bg
	nsx "$NS_HA" ping -q -i 0.05 -c 400 "$HB4" >/dev/null 2>&1 &
	bg=$!
	HGW_BG_PIDS+=("$bg")
	sleep 0.3
	for try in 1 2 3; do
		mbox_snap "$snap"
		out=$("$PY" "$MBOX_REPORT" spis --mbox "$WORK/mbox-$snap.json" --flows "$WORK/mbox_flows-$snap.json" \
			--hit-a "$HIT_A" --hit-b "$HIT_B" --wan-a "$GA_WAN4" --wan-b "$GB_WAN4" \
			--stats-a "$WORK/gwstatsA-$snap.json" --peer-a "$HIP_PEER_OF_A" \
			--stats-b "$WORK/gwstatsB-$snap.json" --peer-b "$HIP_PEER_OF_B" 2>&1) || true
		grep -q '^FAIL' <<<"$out" || break
		log "  ($label: the views differ, a rekey between them? snapshot $try of 3)"
	done
	kill -INT "$bg" 2>/dev/null || true
	wait "$bg" 2>/dev/null || true
	forget_pid "$bg"
	report_lines "$(label_lines "$label" "$out")" "$label: mbox_report.py spis"
}

# ping_from SIDE(A|B) FAMILY N: N pings 0.2 s apart from hostSIDE to the other
# host; prints the replies received.
ping_from() {
	local from=$1 fam=$2 n=$3 dst out
	if [ "$from" = A ]; then dst="HB$fam"; else dst="HA$fam"; fi
	out=$(nsx "${P}host$from" ping "-$fam" -c "$n" -i 0.2 -W 2 -p "$MARKER_HEX" "${!dst}" 2>&1) || true
	sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$out" | grep . || echo 0
}

# gw_counter SIDE KEY: KEY of gateway SIDE's telemetry /hipgw/stats now.
gw_counter() {
	tel "$1" /hipgw/stats >"$WORK/gwc.json" 2>/dev/null || true
	gw_get "$WORK/gwc.json" "$2"
}

info "middlebox system test: work directory $WORK"
if [ ! -x "$HIPGW" ]; then
	fail "hipgw binary $HIPGW exists"
	finish
	exit 1
fi
mbox_topo_create
if ! mbox_files "$REKEY_LIFETIME"; then
	finish
	exit 1
fi
gw_conf_lifetime A '3600s, 1GiB' long
gw_conf_lifetime B '3600s, 1GiB' long
FORGED0=$(rand_spi)
FORGED1=$(rand_spi)

# ---------------------------------------------------------------- MB-1
info "MB-1: MB alone, nothing established: injected ESP (SPI $FORGED0) and clear UDP towards gwB"
GW_RUN=-open
if ! mb_start allow; then
	fail "MB-1: MB (mode middlebox) runs ($(tail -n 1 "$WORK/gwM$GW_RUN.log" 2>/dev/null))"
	gw_log_tail M 30
	finish
	exit 1
fi
pass "MB-1: MB (mode middlebox, ports left and right) runs"
mbox_cap_start open "$FORGED0" "$FORGED1" || true
tel M /hipgw/stats >"$WORK/mbstats-0.json" || true
nf0=$(mb_drop "$WORK/mbstats-0.json" mbox_no_flow)
pol0=$(mb_drop "$WORK/mbstats-0.json" policy)
inject_esp "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" "$FORGED0" "$INJ" ||
	warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
inject_udp "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" "$INJ" ||
	warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
nf1=$(mb_wait /hipgw/stats drops.mbox_no_flow $((${nf0/none/0} + INJ)) 25)
pol1=$(mb_drop "$WORK/mbwait.json" policy)
check "MB-1: MB counted the $INJ forged ESP packets as mbox_no_flow ($nf0 -> $nf1)" \
	eval 'isnum "$nf0" && isnum "$nf1" && [ $((nf1 - nf0)) -eq "$INJ" ]'
check "MB-1: MB counted the $INJ clear UDP packets as policy drops ($pol0 -> $pol1)" \
	eval 'isnum "$pol0" && isnum "$pol1" && [ $((pol1 - pol0)) -ge "$INJ" ]'
ka0=$(mb_drop "$WORK/mbwait.json" mbox_keepalive)
inject_nat "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" esp "$FORGED0" "$INJ" ||
	warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
nf2=$(mb_wait /hipgw/stats drops.mbox_no_flow $((${nf1/none/0} + INJ)) 25)
check "MB-1: MB counted the $INJ forged ESP in UDP (port 10500) as mbox_no_flow ($nf1 -> $nf2)" \
	eval 'isnum "$nf1" && isnum "$nf2" && [ $((nf2 - nf1)) -eq "$INJ" ]'
inject_nat "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" keepalive 0 "$INJ" ||
	warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
ka1=$(mb_wait /hipgw/stats drops.mbox_keepalive $((${ka0/none/0} + INJ)) 25)
check "MB-1: MB counted the $INJ NAT-keepalives as mbox_keepalive ($ka0 -> $ka1)" \
	eval 'isnum "$ka0" && isnum "$ka1" && [ $((ka1 - ka0)) -eq "$INJ" ]'
nf1=$nf2

# ---------------------------------------------------------------- MB-2
info "MB-2: gwA and gwB (sa-lifetime $REKEY_LIFETIME); hostA's first ping starts the BEX across MB"
nf_open=$nf1
if gws_start hip && wait_path 40; then
	pass "MB-2: the BEX crossed MB: hostA reaches hostB (IPv4 and IPv6)"
	hip_bex_log
	n=$(ping_from A 4 5); check "MB-2: ping IPv4 hostA -> hostB through MB ($n of 5)" test "$n" = 5
	n=$(ping_from A 6 5); check "MB-2: ping IPv6 hostA -> hostB through MB ($n of 5)" test "$n" = 5
	n=$(ping_from B 4 3); check "MB-2: ping IPv4 hostB -> hostA through MB ($n of 3)" test "$n" = 3
	iperf_server_start || warn "iperf3 server not listening"
	check "MB-2: iperf3 TCP IPv4 2 s hostA -> hostB through MB moves data" iperf_run tcp 2 T1 4
	iperf_server_stop
	spi_checks MB-2 est
	v=$(mget "$WORK/mbox-est.json" hip.established)
	check "MB-2: MB counted the Base Exchange (established $v >= 1)" eval 'isnum "$v" && [ "$v" -ge 1 ]'
	v=$(mget "$WORK/mbstats-est.json" middlebox.esp)
	check "MB-2: MB's workers forwarded ESP of known flows (middlebox.esp $v > 0)" eval 'isnum "$v" && [ "$v" -gt 0 ]'

	info "MB-3: $REKEY_PINGS pings 10 ms apart across UPDATE rekeys"
	rk0=$(mget "$WORK/mbox-est.json" hip.rekeys)
	nf2=$(mb_drop "$WORK/mbstats-est.json" mbox_no_flow)
	out=$(nsx "$NS_HA" ping -4 -q -c "$REKEY_PINGS" -i 0.01 -W 1 "$HB4" 2>&1) || true
	loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
	check "MB-3: no ping lost across the rekeys through MB ($REKEY_PINGS pings, loss ${loss:-100}%)" \
		test "${loss:-100}" = 0
	spi_checks MB-3 rekeyed
	rk1=$(mget "$WORK/mbox-rekeyed.json" hip.rekeys)
	check "MB-3: MB saw UPDATE rekeys complete (rekeys $rk0 -> $rk1)" \
		eval 'isnum "$rk0" && isnum "$rk1" && [ "$rk1" -gt "$rk0" ]'
	for s in A B; do
		v=$(gw_get "$WORK/gwstats$s-rekeyed.json" "hip.peers.$(hip_peer_name "$s").rekeys")
		check "MB-3: gw$s rekeyed by UPDATE across MB (rekeys $v >= 1)" eval 'isnum "$v" && [ "$v" -ge 1 ]'
		v=$(gw_get "$WORK/gwstats$s-rekeyed.json" drops.no_sa)
		check "MB-3: gw$s dropped no ESP for want of an SA (no_sa $v)" test "$v" = 0
	done
	nf3=$(mb_drop "$WORK/mbstats-rekeyed.json" mbox_no_flow)
	check "MB-3: MB dropped no ESP of the gateways, before, during or after the rekeys (mbox_no_flow $nf_open -> $nf2 -> $nf3)" \
		eval 'isnum "$nf3" && [ "$nf3" = "$nf_open" ]'
else
	fail "MB-2: the BEX crossed MB: hostA reaches hostB within 40 s"
	gw_log_tail A 30; gw_log_tail B 30; gw_log_tail M 30
fi
gw_stop A; gw_stop B
mbox_cap_stop
t=$(hip_types mbL hip); log "  HIP from gwA reaching MB: $t"
t2=$(hip_types gwB "ip.src == $GA_WAN4"); log "  HIP from gwA that MB let through to gwB: $t2"
check "MB-2: gwA's I1 and I2 reached MB and crossed it to gwB" \
	eval 'grep -q "I1" <<<"$t2" && grep -q "I2" <<<"$t2"'
t=$(hip_types gwA "ip.src == $GB_WAN4"); log "  HIP from gwB that MB let through to gwA: $t"
check "MB-2: gwB's R1 and R2 crossed MB to gwA" eval 'grep -q "R1" <<<"$t" && grep -q "R2" <<<"$t"'
check "MB-3: UPDATEs crossed MB both ways" \
	eval 'grep -q UPDATE <<<"$t" && grep -q UPDATE <<<"$t2"'
n=$(cap_count mbL "esp.spi == $FORGED0"); n2=$(cap_count gwB "esp.spi == $FORGED0")
check "MB-1: the forged ESP reached MB ($n frames) and none crossed it to gwB ($n2)" \
	test "$n" -eq "$INJ" -a "$n2" -eq 0
n=$(cap_count mbL "udp.port == $MBOX_INJ_PORT"); n2=$(cap_count gwB "udp.port == $MBOX_INJ_PORT")
check "MB-1: the clear UDP reached MB ($n frames) and none crossed it to gwB ($n2)" \
	test "$n" -eq "$INJ" -a "$n2" -eq 0

# ---------------------------------------------------------------- MB-4, 5, 6
info "MB-4: gateways with a 1 h sa-lifetime; MB restarted on its state file"
fail_before=$HGW_FAIL
GW_RUN=-restart
mbox_cap_start restart "$FORGED0" "$FORGED1" || true
if gws_start long && wait_path 40; then
	pass "MB-4: a new BEX across MB: hostA reaches hostB"
	ok0A=$(gw_counter A "hip.peers.$HIP_PEER_OF_A.bex_ok"); ok0B=$(gw_counter B "hip.peers.$HIP_PEER_OF_B.bex_ok")
	spiB=$(gw_counter B "hip.peers.$HIP_PEER_OF_B.in_spi")
	spiA=$(gw_counter A "hip.peers.$HIP_PEER_OF_A.in_spi")
	# the box writes its state off the fast path, at most once a second: a
	# crash loses what came after the last write. Wait until the file has
	# both flows, then kill MB as a crash would.
	for ((i = 0; i < 50; i++)); do
		state_has_spi "$spiA" "$GA_WAN4" && state_has_spi "$spiB" "$GB_WAN4" && break
		sleep 0.2
	done
	check "MB-4: MB wrote both flows of the association to its state file ((gwA, $spiA), (gwB, $spiB))" \
		eval 'state_has_spi "$spiA" "$GA_WAN4" && state_has_spi "$spiB" "$GB_WAN4"'
	info "MB-4: killing MB (SIGKILL, a crash) and starting it again on $MBOX_STATE"
	mb_kill
	if mb_start allow; then
		pass "MB-4: MB runs again"
		n=$(ping_from A 4 5)
		check "MB-4: pings right after MB is up pass ($n of 5)" test "$n" = 5
		n=$(ping_from B 4 3)
		check "MB-4: and from hostB ($n of 3)" test "$n" = 3
		spi_checks MB-4 restarted
		v=$(mget "$WORK/mbox-restarted.json" hip.loaded)
		check "MB-4: MB loaded the association from its state file (loaded $v >= 1)" \
			eval 'isnum "$v" && [ "$v" -ge 1 ]'
		v=$(mget "$WORK/mbox-restarted.json" hip.established)
		check "MB-4: no BEX crossed the restarted MB (established $v)" test "$v" = 0
		ok1A=$(gw_get "$WORK/gwstatsA-restarted.json" "hip.peers.$HIP_PEER_OF_A.bex_ok")
		ok1B=$(gw_get "$WORK/gwstatsB-restarted.json" "hip.peers.$HIP_PEER_OF_B.bex_ok")
		check "MB-4: no new BEX on the gateways (bex_ok gwA $ok0A -> $ok1A, gwB $ok0B -> $ok1B)" \
			eval 'isnum "$ok0A" && [ "$ok0A" = "$ok1A" ] && isnum "$ok0B" && [ "$ok0B" = "$ok1B" ]'

		info "MB-5: forged ESP (SPI $FORGED1) from gwA's namespace under the association"
		nf0=$(mb_drop "$WORK/mbstats-restarted.json" mbox_no_flow)
		inject_esp "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" "$FORGED1" "$INJ" ||
			warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
		nf1=$(mb_wait /hipgw/stats drops.mbox_no_flow $((${nf0/none/0} + INJ)) 25)
		check "MB-5: MB counted the $INJ forged ESP packets as mbox_no_flow ($nf0 -> $nf1)" \
			eval 'isnum "$nf0" && isnum "$nf1" && [ $((nf1 - nf0)) -eq "$INJ" ]'
		inject_nat "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" esp "$FORGED1" "$INJ" ||
			warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
		nf2=$(mb_wait /hipgw/stats drops.mbox_no_flow $((${nf1/none/0} + INJ)) 25)
		check "MB-5: MB counted the $INJ forged ESP in UDP as mbox_no_flow ($nf1 -> $nf2)" \
			eval 'isnum "$nf1" && isnum "$nf2" && [ $((nf2 - nf1)) -eq "$INJ" ]'
		kf0=$(mget "$WORK/mbwait.json" middlebox.keepalive)
		inject_nat "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" keepalive 0 "$INJ" ||
			warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
		kf1=$(mb_wait /hipgw/stats middlebox.keepalive $((${kf0/none/0} + INJ)) 25)
		check "MB-5: the $INJ NAT-keepalives between the gateways' locators crossed ($kf0 -> $kf1)" \
			eval 'isnum "$kf0" && isnum "$kf1" && [ $((kf1 - kf0)) -eq "$INJ" ]'
		n=$(ping_from A 4 3)
		check "MB-5: the association's own ESP still passes ($n of 3 pings)" test "$n" = 3

		info "MB-6: gwA stops: its CLOSE ends the association at MB"
		cl0=$(mget "$WORK/mbox-restarted.json" hip.closed)
		gw_stop A
		cl1=$(mb_wait /hipgw/mbox hip.closed $((${cl0/none/0} + 1)) 25)
		check "MB-6: MB saw the CLOSE / CLOSE_ACK (closed $cl0 -> $cl1)" \
			eval 'isnum "$cl0" && isnum "$cl1" && [ "$cl1" -gt "$cl0" ]'
		mbox_snap closed
		out=$("$PY" "$MBOX_REPORT" gone --before-flows "$WORK/mbox_flows-restarted.json" \
			--mbox "$WORK/mbox-closed.json" --flows "$WORK/mbox_flows-closed.json" \
			--hit-a "$HIT_A" --hit-b "$HIT_B" --wan-a "$GA_WAN4" --wan-b "$GB_WAN4" \
			--stats-a "$WORK/gwstatsA-restarted.json" --peer-a "$HIP_PEER_OF_A" \
			--stats-b "$WORK/gwstatsB-restarted.json" --peer-b "$HIP_PEER_OF_B" 2>&1) || true
		report_lines "$(label_lines MB-6 "$out")" "MB-6: mbox_report.py gone"
	else
		fail "MB-4: MB runs again on its state file"
		gw_log_tail M 30
	fi
else
	fail "MB-4: a new BEX across MB: hostA reaches hostB within 40 s"
	gw_log_tail A 30; gw_log_tail B 30; gw_log_tail M 30
fi
gw_stop A; gw_stop B
mbox_cap_stop
n=$(cap_count mbL "esp.spi == $FORGED1"); n2=$(cap_count gwB "esp.spi == $FORGED1")
check "MB-5: the forged ESP reached MB ($n frames) and none crossed it to gwB ($n2)" \
	test "$n" -eq "$INJ" -a "$n2" -eq 0
t=$(hip_types gwB "ip.src == $GA_WAN4"); t2=$(hip_types gwA "ip.src == $GB_WAN4")
log "  HIP that MB let through: gwA -> gwB $t; gwB -> gwA $t2"
check "MB-6: the restarted MB let gwA's CLOSE and gwB's CLOSE_ACK through" \
	eval 'grep -q "CLOSE x" <<<"$t" && grep -q CLOSE_ACK <<<"$t2"'
if [ "$HGW_FAIL" -gt "$fail_before" ]; then gw_log_tail M 30; fi

# ---------------------------------------------------------------- MB-7
info "MB-7: MB restarted with rules denying the pair; gwA and gwB again"
fail_before=$HGW_FAIL
gw_stop M
GW_RUN=-deny
mbox_cap_start deny "$FORGED0" || true
if mb_start deny; then
	pass "MB-7: MB runs with the deny rules"
	if gws_start long; then
		n=$(ping_from A 4 10)
		check "MB-7: hostA's pings go unanswered: no BEX across MB ($n of 10 answered)" test "$n" = 0
		d=$(mb_wait /hipgw/mbox hip_drops.denied 1 25)
		mbox_snap deny
		check "MB-7: MB counted denied HIP packets (denied $d >= 1)" eval 'isnum "$d" && [ "$d" -ge 1 ]'
		v=$(mget "$WORK/mbox-deny.json" hip.established)
		check "MB-7: MB saw no BEX complete (established $v)" test "$v" = 0
		for s in A B; do
			p=$(hip_peer_name "$s")
			v=$(gw_get "$WORK/gwstats$s-deny.json" "hip.peers.$p.bex_ok")
			v2=$(gw_get "$WORK/gwstats$s-deny.json" "hip.peers.$p.in_spi")
			check "MB-7: gw$s never reached ESTABLISHED (bex_ok $v, in_spi $v2)" test "$v:$v2" = 0:0
		done
	else
		fail "MB-7: gwA and gwB run"
	fi
else
	fail "MB-7: MB runs with the deny rules"
	gw_log_tail M 30
fi
gw_stop A; gw_stop B
mbox_cap_stop
t=$(hip_types mbL hip); t2=$(hip_types gwB "ip.src == $GA_WAN4")
log "  HIP from gwA reaching MB: $t; HIP that MB let through to gwB: $t2"
check "MB-7: gwA's I1s reached MB and none crossed it (at gwB: $t2)" \
	eval 'grep -q I1 <<<"$t" && [ "$t2" = none ]'
gw_stop M
check "MB exits 0 on SIGTERM (exit ${GW_RC_M:-none})" test "${GW_RC_M:-1}" = 0
if [ "$HGW_FAIL" -gt "$fail_before" ]; then gw_log_tail A 20; gw_log_tail M 30; fi
finish
