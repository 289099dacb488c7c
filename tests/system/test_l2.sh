#!/bin/bash
# System test of L2 mode: sites on ONE subnet (10.9.0.0/24, fd00:9::/64)
# bridged by hipgw gateways, each with an af_packet l2 inner port on its site
# segment and an af_packet outer port on the WAN (topology_l2.sh). Every
# link is captured (one dumpcap on the switch namespace). Checks, by part:
#   L2-1 two sites (gwA, gwB): ARP and ND resolve across, ping both families
#        both ways, a 3 s iperf3 TCP run moves data, an ARP broadcast and an
#        IPv6 multicast echo (ff02::1) from hostA arrive at site B
#   L2-2 three sites in a full mesh (each gateway has the two others as
#        remotes): an ARP broadcast and an ff02::1 echo from hostA arrive
#        exactly once on every link of sites B and C, once on each of site A's
#        links (no loop brings them back), gwA sends each once to gwB and once
#        to gwC on the WAN, and neither of those sends it on
#   L2-3 hostM moves from site A to site C (its link to brC, same MAC): after
#        its frames from the new site, hostB's pings reach it at site C and
#        none goes to site A; gwB's MAC table has hostM behind gwC
#   L2-4 gwB runs with workers = 2 (qpairs=2) in all of the above
#   L2-5 the WAN carries only HIP, ESP, ARP and ND; the bridges are keyed by
#        HIP; tshark decrypts every ESP frame (manual keys, or the gateways'
#        --keylog) to EtherIP and the inner Ethernet frame; the broadcast is
#        found inside; no inner address or ping payload in clear
# HGW_L2_KEYING=hip (default) or manual picks the keying (topology_l2.sh). Prints
# "N passed, N failed" last; exit code 0 only when nothing failed. Root only.
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgwl-}
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
# shellcheck source=tests/system/topology_l2.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology_l2.sh"

# three gateways at once: less memory each (384 MB: 256 are too few with
# --no-huge, the fallback when hugepages are short); gwB with two workers on 3 lcores
HGW_MEM=${HGW_MEM:-384}
HGW_L2_WORKERS_B=${HGW_L2_WORKERS_B:-2}
HGW_LCORES_B=${HGW_LCORES_B:-0@1,1@0,2@1}
[ "$HGW_L2_KEYING" = hip ] && GW_KEYLOG=1
BCAST1=$L2_NET4.98     # ARP targets nobody has: one request each, no reply
BCAST2=$L2_NET4.99
MOVE_HEX=4d4f5645442d544f2d534954452d4321   # "MOVED-TO-SITE-C!": pings after the move

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

# hping FROM FAMILY DST COUNT [PING-ARGS...]: pings from host FROM; prints the
# replies received.
hping() {
	local from=$1 fam=$2 dst=$3 n=$4 out
	shift 4
	out=$(nsx "${P}host$from" ping "-$fam" -c "$n" -i 0.2 -W 2 "$@" "$dst" 2>&1) || true
	sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$out" | grep . || echo 0
}

# wait_hosts TIMEOUT_S SIDES FROM:TO...: until each host FROM pings host TO
# (IPv4 and IPv6); fails early when a gateway of SIDES stops.
wait_hosts() {
	local t=$1 sides=$2 end pair s ok
	shift 2
	end=$((SECONDS + t))
	while [ $SECONDS -lt $end ]; do
		for s in $sides; do gw_alive "$s" || return 1; done
		ok=1
		for pair in "$@"; do
			local to4="H${pair#*:}4" to6="H${pair#*:}6"
			if ! nsx "${P}host${pair%:*}" ping -4 -c1 -W1 -q "${!to4}" >/dev/null 2>&1 ||
				! nsx "${P}host${pair%:*}" ping -6 -c1 -W1 -q "${!to6}" >/dev/null 2>&1; then
				ok=0
				break
			fi
		done
		[ "$ok" = 1 ] && return 0
		sleep 0.3
	done
	return 1
}

# start_gws LABEL SIDE...: check-config, then start each and wait for its
# "hipgw running" before the next: eal_mem_args then sees the hugepages the
# one before took (and falls back to --no-huge when they are short).
start_gws() {
	local label=$1 s out ok=0
	shift
	for s in "$@"; do
		if out=$("$HIPGW" --check-config "$WORK/gw$s$GW_CONF.ini" 2>&1); then
			pass "$label: hipgw --check-config gw$s$GW_CONF.ini"
		else
			fail "$label: hipgw --check-config gw$s$GW_CONF.ini: $out"
		fi
	done
	for s in "$@"; do
		gw_start "$s"
		gw_wait_running "$s" 30 || ok=1
	done
	return $ok
}

# stop_gws LABEL SIDE...: SIGTERM each, checks exit 0.
stop_gws() {
	local label=$1 s rc
	shift
	for s in "$@"; do gw_stop "$s"; done
	for s in "$@"; do
		rc="GW_RC_$s"
		check "$label: gw$s exits 0 on SIGTERM (exit ${!rc:-none})" test "${!rc:-1}" = 0
	done
}

# arp_broadcast IP: hostA's kernel sends ONE ARP request (broadcast) for IP,
# which nobody has (mcast_solicit 1: no retries).
arp_broadcast() {
	nsx "$NS_HA" sysctl -qw net.ipv4.neigh.lan0.mcast_solicit=1
	nsx "$NS_HA" ping -4 -c 1 -W 1 "$1" >/dev/null 2>&1 || true
}

neigh_mac() { nsx "${P}host$1" ip neigh show "$2" dev lan0 | awk '{for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1)}'; }

# per_link TSV COND LINK...: "link=N ..." of the frames that satisfy COND.
per_link() {
	local tsv=$1 cond=$2 l out=()
	shift 2
	for l in "$@"; do out+=("$l=$(l2_count "$tsv" "$l" "$cond")"); done
	echo "${out[*]}"
}

# want_counts "link=N ..." "link=N ...": the counts equal the expected ones.
want_counts() { [ "$1" = "$2" ]; }

# bex_seen TSV LINK IP IP: "I1 R1 I2 R2" (RFC 7401 5.3), "(none)" after each
# that no HIP packet between the two outer addresses on LINK was.
bex_seen() {
	awk -F'\t' -v link="$2" -v a="$3" -v b="$4" '$1 == link && $15 != "" &&
		($5 "/" $6 == a "/" b || $5 "/" $6 == b "/" a) { n[$15]++ }
		END { split("I1 R1 I2 R2", name, " ")
			for (t = 1; t <= 4; t++) printf "%s%s%s", (t > 1 ? " " : ""), name[t], (n[t] ? "" : "(none)") }' "$1"
}

# wan_checks LABEL TSV SIDE...: part 5 on the WAN links of gateways SIDE...
wan_checks() {
	local label=$1 tsv=$2 l links=() esp=0 dec=0 hip=0 other=0 good=0 bad=0 wan
	shift 2
	local allowed='$2 ~ /^eth:ethertype:(ip:esp|ip:hip|arp)(:|$)/ || ($2 ~ /^eth:ethertype:ipv6:icmpv6/ && $9 + 0 >= 133 && $9 + 0 <= 137)'
	for s in "$@"; do links+=("w-$(l2_lc "$s")"); done
	for l in "${links[@]}"; do
		esp=$((esp + $(l2_count "$tsv" "$l" '$2 ~ /:esp/')))
		dec=$((dec + $(l2_count "$tsv" "$l" '$2 ~ /:esp:etherip:eth:/')))
		hip=$((hip + $(l2_count "$tsv" "$l" '$2 ~ /:hip/')))
		other=$((other + $(l2_count "$tsv" "$l" "!($allowed)")))
		good=$((good + $(l2_count "$tsv" "$l" '$13 ~ /(^|\|)(1|True)/')))
		bad=$((bad + $(l2_count "$tsv" "$l" '$14 ~ /(^|\|)(1|True)/')))
	done
	log "  $label WAN (${links[*]}): $esp ESP ($dec decrypted to EtherIP + Ethernet, ICV good $good, bad $bad), $hip HIP, $other other"
	if [ "$other" -gt 0 ]; then
		awk -F'\t' -v a="${links[*]}" 'BEGIN { n = split(a, x, " "); for (i = 1; i <= n; i++) w[x[i]] = 1 }
			w[$1] && !($2 ~ /^eth:ethertype:(ip:esp|ip:hip|arp)(:|$)/ || $2 ~ /^eth:ethertype:ipv6:icmpv6/) && k++ < 5 { print "    other: " $1 " " $2 }' "$tsv"
	fi
	check "L2-5 $label: the WAN carries only HIP, ESP, ARP and ND ($other other frames, $esp ESP)" \
		test "$other" -eq 0 -a "$esp" -gt 0
	local x y bex
	for x in "$@"; do
		for y in "$@"; do
			[[ $x < $y ]] || continue
			bex=$(bex_seen "$tsv" "w-$(l2_lc "$x")" "$(l2_wan4 "$x")" "$(l2_wan4 "$y")")
			check "L2-5 $label: the bridge of gw$x and gw$y is keyed by HIP: a BEX on the WAN ($bex; keying $HGW_L2_KEYING)" \
				eval '! grep -q none <<<"$bex"'
		done
	done
	check "L2-5 $label: tshark decrypts every ESP frame on the WAN to EtherIP and an inner Ethernet frame ($dec of $esp)" \
		test "$esp" -gt 0 -a "$dec" -eq "$esp"
	check "L2-5 $label: tshark verifies the ESP ICVs ($good good, $bad bad)" test "$good" -gt 0 -a "$bad" -eq 0
	wan="$WORK/wan$GW_RUN.pcapng"
	tsh "$L2_CAP" -Y 'frame.interface_name matches "^w-"' -w "$wan" >/dev/null
	local hits
	hits=$(pcap_hits "$wan" "$(cleartext_patterns)")
	check "L2-5 $label: no inner address or ping payload marker in clear on the WAN (raw bytes)" \
		test "$esp" -gt 0 -a "${hits:-1}" -eq 0
}

# stats_workers FILE: how many workers a stats JSON lists.
stats_workers() {
	"$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["workers"]))' "$1" 2>/dev/null || echo none
}

# bad_drops LABEL SIDE...: each gateway's stats JSON of run $GW_RUN counts no
# ESP authentication or replay drop and no EtherIP refusal.
bad_drops() {
	local label=$1 s v
	shift
	for s in "$@"; do
		v=$("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))["drops"]
print(" ".join("%s %d" % (r, d[r]) for r in ("auth", "replay", "etherip_version", "etherip_reserved", "l2_runt")))' \
			"$WORK/stats$s$GW_RUN.json" 2>/dev/null || echo "no stats")
		check "$label: gw$s dropped nothing as unauthentic, replayed or bad EtherIP ($v)" \
			eval '[ "$v" = "auth 0 replay 0 etherip_version 0 etherip_reserved 0 l2_runt 0" ]'
	done
}

# mac_where SIDE MAC: where gwSIDE's MAC table has MAC (untagged): "local",
# a [peer] name or an out SA name, from telemetry /hipgw/bridge_macs,site
# (or any object of /hipgw/stats that holds the MAC); "none" if no entry.
mac_where() {
	local f="$WORK/macs$1$GW_RUN.json"
	{
		echo /hipgw/bridge_macs,site | timeout 5 "$PY" /usr/bin/dpdk-telemetry.py -f "${P}gw$1" 2>/dev/null
		telemetry_stats "$1"
	} >"$f" || true
	"$PY" - "$f" "$2" <<'EOF'
import json, sys
mac, found = sys.argv[2].lower(), []
def walk(o):
    if isinstance(o, dict):
        if any(isinstance(v, str) and v.lower() == mac for v in o.values()):
            found.append(o)
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
dec = json.JSONDecoder()
text = open(sys.argv[1]).read()
pos = 0
while True:      # the replies one after another
    pos = text.find("{", pos)
    if pos < 0:
        break
    try:
        o, pos = dec.raw_decode(text, pos)
    except ValueError:
        pos += 1
        continue
    walk(o)
e = next((x for x in found if x.get("vlan", 0) == 0), found[0] if found else None)
print("none" if e is None else e.get("where", json.dumps(e, sort_keys=True)))
EOF
}

info "L2 system test ($HGW_L2_KEYING keying): work directory $WORK"
if [ ! -x "$HIPGW" ]; then
	fail "hipgw binary $HIPGW exists"
	finish
	exit 1
fi
l2_topo_create

# ---------------------------------------------------------------- L2-1: two sites
info "L2-1: two sites, gwA and gwB (gwB with $HGW_L2_WORKERS_B workers)"
GW_CONF=-two GW_RUN=-two
l2_write_configs A B
l2_cap_start two || true
if start_gws L2-1 A B && wait_hosts 40 "A B" A:B; then
	pass "L2-1 two sites: hostA reaches hostB across the bridge (IPv4 and IPv6)"
	n=$(hping A 4 "$HB4" 5 -p "$MARKER_HEX")
	check "L2-1 two sites: ping IPv4 hostA -> hostB ($n of 5)" test "$n" = 5
	n=$(hping A 6 "$HB6" 5 -p "$MARKER_HEX")
	check "L2-1 two sites: ping IPv6 hostA -> hostB ($n of 5)" test "$n" = 5
	n=$(hping B 4 "$HA4" 3 -p "$MARKER_HEX")
	check "L2-1 two sites: ping IPv4 hostB -> hostA ($n of 3)" test "$n" = 3
	n=$(hping B 6 "$HA6" 3 -p "$MARKER_HEX")
	check "L2-1 two sites: ping IPv6 hostB -> hostA ($n of 3)" test "$n" = 3
	m4=$(neigh_mac A "$HB4"); m6=$(neigh_mac A "$HB6")
	check "L2-1 two sites: hostA resolved hostB by ARP ($m4) and ND ($m6) across" \
		test "$m4" = "$MAC_HB" -a "$m6" = "$MAC_HB"
	m4=$(neigh_mac B "$HA4"); m6=$(neigh_mac B "$HA6")
	check "L2-1 two sites: hostB resolved hostA by ARP ($m4) and ND ($m6) across" \
		test "$m4" = "$MAC_HA" -a "$m6" = "$MAC_HA"
	arp_broadcast "$BCAST1"
	nsx "$NS_HA" ping -6 -c 1 -W 1 "ff02::1%lan0" >/dev/null 2>&1 || true
	l2_cap_stop
	iperf_server_start || warn "iperf3 server not listening"
	check "L2-1 two sites: iperf3 TCP IPv4 3 s hostA -> hostB moves data" iperf_run tcp 3 L1 4 100M
	iperf_server_stop
else
	fail "L2-1 two sites: gateways up, hostA reaches hostB across the bridge within 40 s"
	l2_cap_stop
fi
stop_gws L2-1 A B
bad_drops L2-1 A B
sw=$(stats_workers "$WORK/statsB$GW_RUN.json")
check "L2-4 gwB ran with workers = $HGW_L2_WORKERS_B in the two-site bridge (stats: $sw workers)" \
	test "$sw" = "$HGW_L2_WORKERS_B"
l2_dump "$L2_CAP" A B
c=$(per_link "$L2_CAP.tsv" "\$7 == \"$BCAST1\"" a-host a-gw b-gw b-host)
log "  ARP request for $BCAST1 from hostA, frames per link: $c"
check "L2-1 two sites: hostA's ARP broadcast reaches site B once ($c)" \
	want_counts "$c" "a-host=1 a-gw=1 b-gw=1 b-host=1"
mc="\$3 ~ /$MAC_HA/ && \$8 ~ /ff02::1(\\||\$)/ && \$9 ~ /^128/"
c=$(per_link "$L2_CAP.tsv" "$mc" a-host a-gw b-gw b-host)
log "  ICMPv6 echo request to ff02::1 from hostA, frames per link: $c"
check "L2-1 two sites: hostA's IPv6 multicast (echo to ff02::1) reaches site B once ($c)" \
	want_counts "$c" "a-host=1 a-gw=1 b-gw=1 b-host=1"
c=$(l2_count "$L2_CAP.tsv" w-a "index(\$5, \"$(l2_wan4 A)\") == 1 && \$7 == \"$BCAST1\"")
check "L2-5 two sites: the ARP broadcast is inside gwA's ESP to gwB, decrypted ($c)" test "$c" = 1
wan_checks "two sites" "$L2_CAP.tsv" A B
[ "$HGW_FAIL" -eq 0 ] || { gw_log_tail A 15; gw_log_tail B 15; }

# ---------------------------------------------------------------- L2-2, 3: mesh
info "L2-2: three sites in a full mesh"
GW_CONF=-mesh GW_RUN=-mesh
fail_before=$HGW_FAIL
l2_write_configs A B C
l2_cap_start mesh || true
if start_gws L2-2 A B C; then
	pass "L2-2 mesh: three gateways run, each with the two others as remotes"
	check "L2-2 mesh: hosts A, B and C reach each other (IPv4 and IPv6) within 40 s" \
		wait_hosts 40 "A B C" A:B A:C B:C
	arp_broadcast "$BCAST2"
	nsx "$NS_HA" ping -6 -c 1 -W 1 "ff02::1%lan0" >/dev/null 2>&1 || true

	info "L2-3: hostM moves from site A to site C"
	n=$(hping B 4 "$HM4" 3)
	check "L2-3 move: hostB reaches hostM at site A ($n of 3)" test "$n" = 3
	l2_move_host A C
	n=$(hping M 4 "$HB4" 3 -p "$MOVE_HEX")
	check "L2-3 move: hostM, now at site C, reaches hostB ($n of 3 replies)" test "$n" -ge 1
	n=$(hping B 4 "$HM4" 3 -p "$MOVE_HEX")
	check "L2-3 move: hostB's pings reach hostM at site C ($n of 3)" test "$n" = 3
	# gwB's remote gwC: the [peer gwC], or the out SA b-to-c
	if [ "$HGW_L2_KEYING" = hip ]; then want=gwC; else want=b-to-c; fi
	e=$(mac_where B "$MAC_HM")
	check "L2-3 move: gwB's MAC table (telemetry) has hostM's MAC behind gwC (where: $e, want $want)" \
		test "$e" = "$want"
	e=$(mac_where C "$MAC_HM")
	check "L2-3 move: gwC's MAC table (telemetry) has hostM's MAC on its own segment (where: $e)" \
		test "$e" = local
	l2_cap_stop
else
	fail "L2-2 mesh: three gateways run, each with the two others as remotes"
	fail "L2-3 move: not run (the three gateways do not run)"
	l2_cap_stop
fi
stop_gws L2-2 A B C
bad_drops L2-2 A B C
sw=$(stats_workers "$WORK/statsB$GW_RUN.json")
check "L2-4 gwB ran with workers = $HGW_L2_WORKERS_B in the mesh (stats: $sw workers)" \
	test "$sw" = "$HGW_L2_WORKERS_B"
l2_dump "$L2_CAP" A B C
tsv=$L2_CAP.tsv
for what in arp mc; do
	if [ "$what" = arp ]; then
		cond="\$7 == \"$BCAST2\"" desc="hostA's ARP broadcast ($BCAST2)"
	else
		cond=$mc desc="hostA's IPv6 multicast (echo to ff02::1)"
	fi
	c=$(per_link "$tsv" "$cond" "${L2_LAN_LINKS[@]}")
	log "  $desc, frames per LAN link: $c"
	check "L2-2 mesh: $desc arrives once on each link of sites B and C and is never back at site A ($c)" \
		want_counts "$c" "a-host=1 m-host=1 a-gw=1 b-host=1 b-gw=1 c-host=1 c-gw=1"
	c="w-a out $(l2_count "$tsv" w-a "index(\$5, \"$(l2_wan4 A)\") == 1 && ($cond)")"
	c+=" (to gwB $(l2_count "$tsv" w-a "index(\$6, \"$(l2_wan4 B)\") == 1 && ($cond)")"
	c+=", to gwC $(l2_count "$tsv" w-a "index(\$6, \"$(l2_wan4 C)\") == 1 && ($cond)"))"
	for s in B C; do
		l=w-$(l2_lc "$s")
		c+=", $l in $(l2_count "$tsv" "$l" "index(\$6, \"$(l2_wan4 "$s")\") == 1 && ($cond)")"
		c+=" out $(l2_count "$tsv" "$l" "index(\$5, \"$(l2_wan4 "$s")\") == 1 && ($cond)")"
	done
	log "  $desc on the WAN (decrypted): $c"
	check "L2-2 mesh: gwA sends $desc once to gwB and once to gwC; neither sends it on ($c)" \
		want_counts "$c" "w-a out 2 (to gwB 1, to gwC 1), w-b in 1 out 0, w-c in 1 out 0"
done
moved="\$3 ~ /$MAC_HB/ && \$4 ~ /$MAC_HM/ && \$11 ~ /^8/ && \$12 ~ /${MOVE_HEX:0:16}/"
c=$(per_link "$tsv" "$moved" a-gw c-gw m-host)
log "  hostB's echo requests to hostM after the move, per link: $c"
check "L2-3 move: after the move hostB's echo requests to hostM go to site C only ($c)" \
	want_counts "$c" "a-gw=0 c-gw=3 m-host=3"
wan_checks mesh "$tsv" A B C
if [ "$HGW_FAIL" -gt "$fail_before" ]; then gw_log_tail A 15; gw_log_tail B 15; gw_log_tail C 15; fi
finish
