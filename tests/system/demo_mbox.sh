#!/bin/bash
# The middlebox demo: hipgw as a HIP-aware firewall, a bump in the wire
# between two HIP-keyed hipgw gateways (docs/middlebox.md). ./dpdk-env.sh
# demo middlebox runs it after deps, hugepages and build.
#
#   hostA ---- gwA ---- MB (hipgw, mode middlebox) ---- gwB ---- hostB
#
# (topology_mbox.sh: namespaces, af_packet ports, fresh Host Identities, MB's
# [host] public keys from hipgw pubkey, its state file.) In order:
#   1. the Base Exchange crosses MB: hostA's first ping starts it; MB's
#      telemetry shows the association it learned and its flows
#   2. ping both ways and iperf3 TCP (HGW_MBOX_SECS, default 10 s, as the
#      published runs) through MB on its fast path: the workers look up each
#      ESP packet's (destination, SPI) in the flow table
#   3. MB restarted with --slow-path on the same state file (every ESP lookup
#      on the control lcore); traffic passes at once, no new BEX; the same
#      iperf3 again
#   4. both throughputs beside the published hipfw figures (HIPL's firewall:
#      every ESP packet looked up in userspace, and known (destination, SPI)
#      pairs as kernel rules; docs/published-figures.json) and the fast/slow
#      ratio of each pair
#   5. the refusal: MB restarted with rules denying the pair stops the BEX
#      (hostA's pings unanswered, MB counts the denied HIP packets); forged ESP
#      (a random SPI, injected from gwA's namespace) is counted and dropped,
#      and a capture at gwB shows none of it
# PASS / FAIL checks; exit code 0 only when every one passed. Root only;
# namespaces and processes go on every exit (trap).
#
# Knobs (besides topology.sh's HIPGW, HGW_NO_HUGE, HGW_KEEP, HGW_MEM):
#   HGW_NS_PREFIX   namespace / DPDK file-prefix prefix (default hgw-mbd-)
#   HGW_MBOX_SECS   seconds of each iperf3 run (default 10)
# shellcheck disable=SC2016  # check NAME eval '...': expanded when the check runs
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-mbd-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
# shellcheck source=tests/system/topology_mbox.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology_mbox.sh"

SECS=${HGW_MBOX_SECS:-10}
INJ=5

need_tools
command -v dumpcap >/dev/null || { echo "missing tools: dumpcap (run ./dpdk-env.sh deps)" >&2; exit 1; }
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

# replies FROM FAMILY N: N pings from hostFROM to the other host; the replies.
replies() {
	local dst out
	if [ "$1" = A ]; then dst="HB$2"; else dst="HA$2"; fi
	out=$(nsx "${P}host$1" ping "-$2" -c "$3" -i 0.2 -W 2 "${!dst}" 2>&1) || true
	sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$out" | grep . || echo 0
}

# show_assoc NAME: MB's association and flows from snapshot NAME (mbox_snap).
show_assoc() {
	"$PY" "$MBOX_REPORT" show --mbox "$WORK/mbox-$1.json" --flows "$WORK/mbox_flows-$1.json" \
		--hit-a "$HIT_A" --hit-b "$HIT_B" || true
}

# iperf_mbps VAR: VAR_bps of iperf_run in Mbit/s, one decimal ("-" if none).
iperf_mbps() {
	local v="${1}_bps"
	awk -v b="${!v:-0}" 'BEGIN { if (b > 0) printf "%.1f", b / 1e6; else print "-" }'
}

# ratio A B: A / B, two decimals ("-" when either is not a number or B is 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }

# slow_counts: the frames MB's workers sent to the control lcore and got back
# (its /hipgw/stats workers' slow_sent, slow_done), "SENT DONE".
slow_counts() {
	tel M /hipgw/stats >"$WORK/mbslow.json" 2>/dev/null || true
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])); d = d.get("/hipgw/stats", d); w = d["workers"]
w = w.values() if isinstance(w, dict) else w
print(sum(x["slow_sent"] for x in w), sum(x["slow_done"] for x in w))' "$WORK/mbslow.json" 2>/dev/null || echo "none none"
}

info "hipgw middlebox demo: work directory $WORK"
info "namespaces ${HGW_NAMESPACES[*]}: hostA - gwA - MB - gwB - hostB"
if [ ! -x "$HIPGW" ]; then
	fail "hipgw binary $HIPGW exists (build it: ./dpdk-env.sh build)"
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	exit 1
fi
mbox_topo_create
if ! mbox_files '3600s, 1GiB'; then
	echo "$HGW_PASS passed, $HGW_FAIL failed"
	exit 1
fi
log "  MB's config ($WORK/gwM-allow.ini):"
awk '!/^;/ && NF { print "    " $0 }' "$WORK/gwM-allow.ini"

FAST=- SLOW=-
GW_RUN=-fast
info "1. the Base Exchange across MB (its fast path)"
if mb_start allow && gws_start hip && wait_path 40; then
	pass "the BEX crossed MB: hostA reaches hostB (IPv4 and IPv6)"
	hip_bex_log
	mbox_snap fast
	v=$(mget "$WORK/mbox-fast.json" hip.established)
	check "MB followed the BEX and verified it (established $v)" eval 'isnum "$v" && [ "$v" -ge 1 ]'
	show_assoc fast
	out=$("$PY" "$MBOX_REPORT" spis --mbox "$WORK/mbox-fast.json" --flows "$WORK/mbox_flows-fast.json" \
		--hit-a "$HIT_A" --hit-b "$HIT_B" --wan-a "$GA_WAN4" --wan-b "$GB_WAN4" \
		--stats-a "$WORK/gwstatsA-fast.json" --peer-a "$HIP_PEER_OF_A" \
		--stats-b "$WORK/gwstatsB-fast.json" --peer-b "$HIP_PEER_OF_B" 2>&1) || true
	report_lines "$out" "mbox_report.py spis"

	info "2. ping and iperf3 TCP ${SECS} s through MB, fast path"
	n=$(replies A 4 10); check "ping hostA -> hostB through MB ($n of 10)" test "$n" = 10
	n=$(replies B 4 10); check "ping hostB -> hostA through MB ($n of 10)" test "$n" = 10
	iperf_server_start || warn "iperf3 server not listening"
	check "iperf3 TCP ${SECS} s hostA -> hostB through MB (fast path)" iperf_run tcp "$SECS" F 4
	FAST=$(iperf_mbps F)
	ok0=$(tel A /hipgw/stats | "$PY" "$MBOX_REPORT" get /dev/stdin "hip.peers.$HIP_PEER_OF_A.bex_ok" || echo none)

	info "3. MB restarted with --slow-path on its state file: every ESP lookup on the control lcore"
	gw_stop M
	check "MB exits 0 on SIGTERM (${GW_RC_M:-none}), its state file written" \
		test "${GW_RC_M:-1}" = 0 -a -s "$MBOX_STATE"
	GW_RUN=-slow
	if mb_start allow --slow-path; then
		n=$(replies A 4 5)
		check "pings right after the restart pass ($n of 5): MB loaded the association" test "$n" = 5
		check "iperf3 TCP ${SECS} s hostA -> hostB through MB (--slow-path)" iperf_run tcp "$SECS" S 4
		SLOW=$(iperf_mbps S)
		read -r slow_sent slow_done <<<"$(slow_counts)"
		check "MB's workers handed the ESP to the control lcore and sent what it looked up (slow_sent $slow_sent, slow_done $slow_done)" \
			eval 'isnum "$slow_done" && [ "$slow_done" -gt 0 ]'
		ok1=$(tel A /hipgw/stats | "$PY" "$MBOX_REPORT" get /dev/stdin "hip.peers.$HIP_PEER_OF_A.bex_ok" || echo none)
		check "no new BEX for the restart (gwA bex_ok $ok0 -> $ok1)" eval 'isnum "$ok0" && [ "$ok0" = "$ok1" ]'
	else
		fail "MB runs again with --slow-path"
		gw_log_tail M 20
	fi
	iperf_server_stop
else
	fail "the BEX crossed MB: hostA reaches hostB within 40 s"
	gw_log_tail A 20; gw_log_tail B 20; gw_log_tail M 20
fi
gw_stop A; gw_stop B; gw_stop M

# ---------------------------------------------------------------- the figures
read -r HF_SLOW HF_FAST HF_REF <<<"$("$PY" "$MBOX_REPORT" figures 2>/dev/null || echo "- - (docs/published-figures.json unreadable)")"
echo
info "4. iperf3 TCP through a HIP firewall: this machine against the published hipfw figures"
echo
printf '| %s | %s | %s | %s |\n' "" "fast path (Mbit/s)" "every ESP lookup in a slow path (Mbit/s)" "fast / slow" \
	"---" "---:" "---:" "---:" \
	"hipgw middlebox, this machine" "$FAST" "$SLOW" "$(ratio "$FAST" "$SLOW")" \
	"hipfw, published" "$HF_FAST" "$HF_SLOW" "$(ratio "$HF_FAST" "$HF_SLOW")"
echo
log "  hipgw: iperf3 TCP IPv4, ${SECS} s, hostA -> hostB through gwA, MB and gwB; fast path: MB's"
log "  workers look up (destination, SPI) in the flow table; slow path: MB runs with --slow-path,"
log "  every ESP packet's lookup on the control lcore (worker -> ring -> control -> ring -> worker)."
log "  hipfw: HIPL's firewall between two hosts running hipd, iperf TCP, 10 s: every ESP packet"
log "  looked up in userspace, against known (destination, SPI) pairs as kernel rules."
log "  Source: $HF_REF (docs/published-figures.json)."
log "  Here gwA, gwB, MB, iperf3 and the kernel share this machine's 2 CPUs: the end gateways'"
log "  encryption bounds the iperf3 figure, not MB; perf/ measures the box alone."
echo

# ---------------------------------------------------------------- refusal
info "5. the refusal: MB restarted with rules denying the pair; forged ESP"
GW_RUN=-deny
FORGED=$(rand_spi)
mbox_cap_start deny "$FORGED" || true
if mb_start deny; then
	log "  MB's rules ($WORK/gwM-deny.ini): $(awk '/^\[rule/ { r = $2 } /^action/ { printf "%s %s; ", r, $3 }' "$WORK/gwM-deny.ini" | tr -d ']')"
	if gws_start hip; then
		n=$(replies A 4 10)
		check "no BEX across MB: hostA's pings unanswered ($n of 10)" test "$n" = 0
		mbox_snap deny
		v=$(mget "$WORK/mbox-deny.json" hip_drops.denied)
		check "MB counted the denied HIP packets (hip_drops.denied $v)" eval 'isnum "$v" && [ "$v" -ge 1 ]'
		v=$(gw_get "$WORK/gwstatsA-deny.json" "hip.peers.$HIP_PEER_OF_A.bex_ok")
		check "gwA never completed a BEX (bex_ok $v)" test "$v" = 0
	else
		fail "gwA and gwB run"
	fi
	nf0=$(mb_drop "$WORK/mbstats-deny.json" mbox_no_flow)
	inject_esp "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$MAC_GB_WAN" "$GA_WAN4" "$GB_WAN4" "$FORGED" "$INJ" ||
		warn "scapy injection failed: $(tail -n 3 "$WORK/inject.log")"
	for ((i = 0; i < 25; i++)); do
		tel M /hipgw/stats >"$WORK/mbstats-forged.json" || true
		nf1=$(mb_drop "$WORK/mbstats-forged.json" mbox_no_flow)
		isnum "$nf1" && isnum "$nf0" && [ $((nf1 - nf0)) -ge "$INJ" ] && break
		sleep 0.2
	done
	check "MB counted the $INJ forged ESP packets (SPI $FORGED) as mbox_no_flow ($nf0 -> $nf1)" \
		eval 'isnum "$nf0" && isnum "$nf1" && [ $((nf1 - nf0)) -eq "$INJ" ]'
else
	fail "MB runs with the deny rules"
	gw_log_tail M 20
fi
gw_stop A; gw_stop B
mbox_cap_stop
gw_stop M
n=$(cap_count mbL "esp.spi == $FORGED"); n2=$(cap_count gwB "esp.spi == $FORGED")
check "the forged ESP reached MB ($n frames) and none crossed it to gwB ($n2)" test "$n" -eq "$INJ" -a "$n2" -eq 0
t=$(hip_types mbL hip); t2=$(hip_types gwB "ip.src == $GA_WAN4")
check "gwA's I1s reached MB ($t) and no HIP crossed it to gwB ($t2)" eval 'grep -q I1 <<<"$t" && [ "$t2" = none ]'
echo
echo "$HGW_PASS passed, $HGW_FAIL failed"
[ "$HGW_FAIL" -eq 0 ]
