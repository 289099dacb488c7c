#!/bin/bash
# The L2 demo: a VPN from a laptop to a site, hipgw at both ends bridging
# Ethernet in EtherIP in ESP (docs/l2.md). ./dpdk-env.sh demo l2 runs it after
# deps, hugepages and build; docs/l2.md "A VPN on a laptop" is the same set-up
# by hand.
#
#   client (the laptop)               server site
#   kernel: hgw-tap 192.168.41.1/31   gateway ns: hipgw   nat ns           far ns
#      |  (net_tap, mode l2)          lan0 (l2) --------- lan0 192.168.41.0/31
#   hipgw                                                 far0 203.0.113.1 -- eth0 203.0.113.10
#      |  wan0 198.51.100.2 =========== wan0 198.51.100.1      (masquerade)    http.server
#
# The client's kernel gives the TAP 192.168.41.1/31 and routes the far network
# through it; the frames cross the WAN in ESP to the server's hipgw, which puts
# them on the site LAN, where a namespace forwards and masquerades (nftables)
# to the far network. The client's hipgw shares wan0 and its address with the
# kernel (the laptop's one uplink); an nftables rule keeps the kernel from
# answering the ESP and HIP that are hipgw's. "Direct" is the same client and
# far network with the gateways stopped: the server namespace routes between
# the same veths, and the same NAT namespace masquerades.
#
# Measured, direct and through hipgw: ping RTT and loss with -s 8 and -s 1000
# (100 pings 0.2 s apart; the RTTs from a tshark capture on the client, as ping
# cannot time -s 8), and curl's time for a 1 MiB file (median of 5), each file
# checked against its sha256. Exit 0 only when every check passed.
# Root only; namespaces and processes go on every exit (trap).
#
# Knobs (besides topology.sh's HIPGW, HGW_NO_HUGE, HGW_KEEP; its HGW_MEM is 384 here):
#   HGW_NS_PREFIX     namespace / DPDK file-prefix prefix (default hgw-l2-)
#   HGW_L2_KEYING     auto (default): HIP-keyed bridges ([bridge] peers =) when
#                     this hipgw starts with them, else manually keyed [sa];
#                     hip or manual: only that one
#   HGW_L2_PINGS      pings per row (default 100)
#   HGW_L2_CURLS      curl fetches per mode (default 5)
#   HGW_L2_MAX_LOSS   percent of the pings of a row that may be lost, direct or
#                     through hipgw (default 3)
set -euo pipefail

HGW_NS_PREFIX=${HGW_NS_PREFIX:-hgw-l2-}
HGW_MEM=${HGW_MEM:-384}   # MB per gateway: enough with --no-huge too
# shellcheck source=tests/system/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"

KEYING=${HGW_L2_KEYING:-auto}
PINGS=${HGW_L2_PINGS:-100}
CURLS=${HGW_L2_CURLS:-5}
MAX_LOSS=${HGW_L2_MAX_LOSS:-3}
case $KEYING in auto | hip | manual) ;; *) echo "HGW_L2_KEYING: auto, hip or manual" >&2; exit 2 ;; esac

# topology.sh's gateway A is the client, B the server gateway; ping_run pings
# from the client ($NS_HA) to the HTTP server ($HB4).
NS_CL=${P}client; NS_SV=${P}server; NS_NAT=${P}nat; NS_FAR=${P}far
NS_GA=$NS_CL; NS_GB=$NS_SV; NS_HA=$NS_CL
HGW_NAMESPACES=("$NS_CL" "$NS_SV" "$NS_NAT" "$NS_FAR")

IF_WAN=wan0; IF_LAN=lan0; IF_FAR=far0; IF_HTTP=eth0; IF_TAP=hgw-tap
MAC_CL_WAN=02:00:00:41:00:02; MAC_SV_WAN=02:00:00:41:00:01
MAC_SV_LAN=02:00:00:41:01:01; MAC_NAT_LAN=02:00:00:41:01:02
MAC_TAP=02:00:00:41:02:01    # the kernel side of the TAP (net_tap gives it hipgw's)
CL_WAN4=198.51.100.2; SV_WAN4=198.51.100.1; WAN_LEN=24
TAP4=192.168.41.1; NAT_LAN4=192.168.41.0; TUN_NET=192.168.41.0/31
NAT_FAR4=203.0.113.1; FAR4=203.0.113.10; FAR_NET=203.0.113.0/24
HB4=$FAR4
# inner IP MTU that keeps a frame, in EtherIP in AES-GCM ESP over IPv4, within
# the WAN's 1500 (docs/l2.md, "Overhead and the WAN MTU")
TUN_MTU=1430
SPI_CS=0x4101; SPI_SC=0x4102
HTTP_PORT=8080
FILE_NAME=file-1MiB.bin; FILE_SIZE=1048576
URL=http://$FAR4:$HTTP_PORT/$FILE_NAME
TAPTUNNEL_TEXT="tap-tunnel, the Ethernet-over-NDN TAP tunnel this recipe follows (its authors' two stated results): added delay under 35 ms; 1 MB download 19 times slower than direct"

need_tools
for t in curl nft sha256sum; do
	command -v "$t" >/dev/null 2>&1 || { echo "missing tool: $t (run ./dpdk-env.sh deps)" >&2; exit 1; }
done
hgw_workdir
trap topo_cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

# ------------------------------------------------------------ topology

l2_topo_create() {
	local ns
	topo_namespaces
	for ns in "${HGW_NAMESPACES[@]}"; do
		nsx "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv4.ip_forward=0 >/dev/null
	done
	ip link add name "$IF_WAN" netns "$NS_CL" address "$MAC_CL_WAN" type veth \
		peer name "$IF_WAN" netns "$NS_SV" address "$MAC_SV_WAN"
	ip link add name "$IF_LAN" netns "$NS_SV" address "$MAC_SV_LAN" type veth \
		peer name "$IF_LAN" netns "$NS_NAT" address "$MAC_NAT_LAN"
	ip link add name "$IF_FAR" netns "$NS_NAT" type veth peer name "$IF_HTTP" netns "$NS_FAR"
	for ns in "$NS_CL:$IF_WAN" "$NS_SV:$IF_WAN" "$NS_SV:$IF_LAN" "$NS_NAT:$IF_LAN" \
		"$NS_NAT:$IF_FAR" "$NS_FAR:$IF_HTTP"; do
		offloads_off "${ns%%:*}" "${ns#*:}"
		nsx "${ns%%:*}" ip link set "${ns#*:}" up
	done

	# the laptop: the kernel owns its uplink's address; hipgw uses the same one
	# and the kernel must leave ESP (50) and HIP (139) to it
	nsx "$NS_CL" ip addr add "$CL_WAN4/$WAN_LEN" dev "$IF_WAN"
	nsx "$NS_CL" nft -f - <<EOF
table inet hipgw {
	chain input {
		type filter hook input priority filter; policy accept;
		iifname "$IF_WAN" ip saddr $SV_WAN4 meta l4proto { 50, 139 } drop
	}
}
EOF
	# the site LAN's router: forwards and masquerades to the far network
	nsx "$NS_NAT" ip addr add "$NAT_LAN4/31" dev "$IF_LAN"
	nsx "$NS_NAT" ip link set "$IF_LAN" mtu "$TUN_MTU"
	nsx "$NS_NAT" ip addr add "$NAT_FAR4/24" dev "$IF_FAR"
	nsx "$NS_NAT" sysctl -qw net.ipv4.ip_forward=1 >/dev/null
	nsx "$NS_NAT" nft -f - <<EOF
table ip nat {
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		oifname "$IF_FAR" masquerade
	}
}
EOF
	nsx "$NS_FAR" ip addr add "$FAR4/24" dev "$IF_HTTP"
}

# The client's TAP (hipgw made it at start): its address, MTU and the route.
tap_setup() {
	nsx "$NS_CL" ip link set "$IF_TAP" address "$MAC_TAP"
	nsx "$NS_CL" ip link set "$IF_TAP" mtu "$TUN_MTU" up
	nsx "$NS_CL" ip addr add "$TAP4/31" dev "$IF_TAP"
	nsx "$NS_CL" ip route add "$FAR_NET" via "$NAT_LAN4" dev "$IF_TAP"
}

# Direct: the server namespace's kernel routes between the same veths; the
# client's route to the far network has the tunnel's MTU, so TCP uses the same
# segment sizes.
l2_plain_on() {
	nsx "$NS_SV" ip addr add "$SV_WAN4/$WAN_LEN" dev "$IF_WAN"
	nsx "$NS_SV" ip addr add "$TAP4/31" dev "$IF_LAN"
	nsx "$NS_SV" ip link set "$IF_LAN" mtu "$TUN_MTU"
	nsx "$NS_SV" ip route add "$FAR_NET" via "$NAT_LAN4"
	nsx "$NS_SV" sysctl -qw net.ipv4.ip_forward=1 >/dev/null
	nsx "$NS_NAT" ip route add "$CL_WAN4/32" via "$TAP4"
	nsx "$NS_NAT" ip neigh flush dev "$IF_LAN" 2>/dev/null || true
	nsx "$NS_CL" ip route replace "$FAR_NET" via "$SV_WAN4" dev "$IF_WAN" mtu "$TUN_MTU"
}

http_start() {
	mkdir -p "$WORK/www"
	head -c "$FILE_SIZE" /dev/urandom >"$WORK/www/$FILE_NAME"
	FILE_SHA=$(sha256sum "$WORK/www/$FILE_NAME" | awk '{print $1}')
	ip netns exec "$NS_FAR" "$PY" -m http.server "$HTTP_PORT" --bind "$FAR4" --directory "$WORK/www" \
		</dev/null >"$WORK/http.log" 2>&1 &
	HGW_BG_PIDS+=("$!")
	wait_listen "$NS_FAR" "$HTTP_PORT" 100
}

# ------------------------------------------------------------ configs

# l2_port_sections SIDE(A|B): the l2 inner port and the outer port.
l2_port_sections() {
	local inner=tap dev=net_tap0 iface=$IF_TAP n=0 wan4=$CL_WAN4
	[ "$1" = A ] || { inner=lan dev=net_af_packet0 iface=$IF_LAN n=1 wan4=$SV_WAN4; }
	cat <<EOF
[port $inner]
device = $dev,iface=$iface
role = inner
mode = l2

[port wan]
device = net_af_packet$n,iface=$IF_WAN
role = outer
address = $wan4/$WAN_LEN
EOF
}

# l2_sa DIRECTION SPI KEY [LINE]: one [sa DIRECTION] of a bridge, AES-128-GCM,
# between $local4 and $remote4 (the caller's), LINE added.
l2_sa() {
	printf '[sa %s]\ndirection = %s\nspi = %s\nsuite = aes128-gcm16\nkey = 0x%s\n' "$1" "$1" "$2" "$3"
	printf 'local = %s\nremote = %s\nprefixes = %s\n%s' "$local4" "$remote4" "$TUN_NET" "${4:+$4
}"
}

# write_l2_manual FILE SIDE(A|B) OUTKEY INKEY: the bridge on two [sa].
write_l2_manual() {
	local f=$1 side=$2 kout=$3 kin=$4 local4 remote4 spi_out spi_in port
	if [ "$side" = A ]; then
		local4=$CL_WAN4 remote4=$SV_WAN4 spi_out=$SPI_CS spi_in=$SPI_SC port=tap
	else
		local4=$SV_WAN4 remote4=$CL_WAN4 spi_out=$SPI_SC spi_in=$SPI_CS port=lan
	fi
	cat >"$f" <<EOF
; hipgw $side of the L2 demo (tests/system/demo_l2.sh), manually keyed; fresh keys.
[gateway]
workers = 1
idle = adaptive

$(l2_port_sections "$side")

$(l2_sa out "$spi_out" "$kout" "state = $WORK/gw$side-out.seq")

$(l2_sa in "$spi_in" "$kin")

[bridge vpn]
port = $port
sas = out, in
EOF
}

# write_l2_hip FILE SIDE(A|B): the bridge on a [peer] (hip_keygen made the HIs).
write_l2_hip() {
	local f=$1 side=$2 local4 remote4 peer hit port
	if [ "$side" = A ]; then
		local4=$CL_WAN4 remote4=$SV_WAN4 peer=server hit=$HIT_B port=tap
	else
		local4=$SV_WAN4 remote4=$CL_WAN4 peer=client hit=$HIT_A port=lan
	fi
	cat >"$f" <<EOF
; hipgw $side of the L2 demo (tests/system/demo_l2.sh), keyed by HIP; fresh HI.
[gateway]
workers = 1
idle = adaptive
hi = $WORK/gw$side.pem
puzzle-k = $HGW_PUZZLE_K

$(l2_port_sections "$side")

[peer $peer]
hit = $hit
locator = $remote4
local = $local4

[bridge vpn]
port = $port
peers = $peer
EOF
}

write_l2_configs() {
	local k_cs k_sc s
	k_cs=$(randhex 20)   # AES-128 key + 4-byte salt (RFC 4106)
	k_sc=$(randhex 20)
	write_l2_manual "$WORK/gwA-manual.ini" A "$k_cs" "$k_sc"
	write_l2_manual "$WORK/gwB-manual.ini" B "$k_sc" "$k_cs"
	if [ "$KEYING" != manual ]; then
		hip_keygen A && hip_keygen B || return 1
		write_l2_hip "$WORK/gwA-hip.ini" A
		write_l2_hip "$WORK/gwB-hip.ini" B
	fi
	chmod 600 "$WORK"/gw?-*.ini
	for s in "$WORK"/gw?-*.ini; do
		check "hipgw --check-config ${s##*/}" "$HIPGW" --check-config "$s"
	done
}

# start_l2 KEYING(hip|manual): both gateways, server first. Returns 0 when
# both run, 2 when one refused its config (exit 2), 3 when EAL found too
# little memory (other jobs took the hugepages it had counted), 1 otherwise.
start_l2() {
	local s
	GW_CONF=-$1 GW_RUN=-$1
	gw_start B
	gw_start A
	for s in B A; do
		gw_wait_running "$s" 30 && continue
		gw_stop A; gw_stop B
		if [ "${GW_RC_A:-}" = 2 ] || [ "${GW_RC_B:-}" = 2 ]; then return 2; fi
		if grep -q 'Cannot init memory' "$WORK/gwA$GW_RUN.log" "$WORK/gwB$GW_RUN.log" 2>/dev/null; then
			return 3
		fi
		return 1
	done
}

# start_keyed KEYING: start_l2, once more with --no-huge when it returned 3.
start_keyed() {
	local rc=0
	start_l2 "$1" || rc=$?
	if [ $rc = 3 ] && [ "${HGW_NO_HUGE:-0}" != 1 ]; then
		warn "EAL found too few free hugepages (other jobs took them): starting again with --no-huge"
		HGW_NO_HUGE=1
		rc=0; start_l2 "$1" || rc=$?
	fi
	return $rc
}

# ------------------------------------------------------------ measurements

# wait_tunnel TIMEOUT_S: until the client reaches the HTTP server.
wait_tunnel() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		if [ -n "${GW_PID_A:-}" ] && { ! gw_alive A || ! gw_alive B; }; then return 1; fi
		nsx "$NS_CL" ping -c1 -W1 -q "$FAR4" >/dev/null 2>&1 && return 0
		sleep 0.3
	done
	return 1
}

# rtt_capture_start DEV / rtt_capture_stop OUTVAR: a tshark capture of ICMP on
# the client's DEV; stop sets OUTVAR_rtt (min/median/avg/max ms) from tshark's
# echo response times (icmp.resptime). ping does not time payloads under 16
# bytes (its timestamp does not fit), so both sizes are timed from the capture.
rtt_capture_start() {
	RTT_PCAP=$WORK/icmp-$1-$SECONDS.pcap
	ip netns exec "$NS_CL" tshark -q -n -i "$1" -f icmp -w "$RTT_PCAP" </dev/null >"$RTT_PCAP.log" 2>&1 &
	RTT_CAP_PID=$!
	HGW_BG_PIDS+=("$RTT_CAP_PID")
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$RTT_PCAP.log" 2>/dev/null && { sleep 0.2; return 0; }
		sleep 0.1
	done
	return 1
}

rtt_capture_stop() {
	local var=$1 i
	sleep 0.3
	kill -INT "$RTT_CAP_PID" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do kill -0 "$RTT_CAP_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$RTT_CAP_PID" 2>/dev/null || true
	wait "$RTT_CAP_PID" 2>/dev/null || true
	forget_pid "$RTT_CAP_PID"
	printf -v "${var}_rtt" '%s' "$(tsh "$RTT_PCAP" -Y 'icmp.type == 0' -T fields -e icmp.resptime |
		sort -g | awk 'NF { v[n++] = $1; s += $1 }
			END { if (!n) { print "-"; exit }
				med = n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
				printf "%.3f/%.3f/%.3f/%.3f", v[0], med, s / n, v[n - 1] }')"
}

# curl_runs OUTVAR: $CURLS fetches of the file; sets OUTVAR_time (median s),
# OUTVAR_ok (fetches of exactly $FILE_SIZE bytes with the file's sha256).
curl_runs() {
	local var=$1 i out t size sha times=() ok=0 med
	for ((i = 1; i <= CURLS; i++)); do
		rm -f "$WORK/got.bin"
		out=$(nsx "$NS_CL" curl -sS --max-time 60 -o "$WORK/got.bin" -w '%{time_total} %{size_download}' \
			"$URL" 2>&1) || true
		read -r t size <<<"$out"
		sha=$(sha256sum "$WORK/got.bin" 2>/dev/null | awk '{print $1}') || true
		if [ "$(stat -c %s "$WORK/got.bin" 2>/dev/null || echo 0)" = "$FILE_SIZE" ] && [ "$sha" = "$FILE_SHA" ]; then
			ok=$((ok + 1))
			times+=("$t")
		else
			log "  curl $i: $out; $(stat -c %s "$WORK/got.bin" 2>/dev/null || echo 0) bytes, sha256 ${sha:-none} (want $FILE_SIZE, $FILE_SHA)"
		fi
	done
	printf -v "${var}_ok" '%s' "$ok"
	printf -v "${var}_time" '%s' "$(printf '%s\n' "${times[@]}" | sort -g |
		awk 'NF { v[n++] = $1 } END { if (!n) print "-"; else if (n % 2) printf "%.3f", v[int(n/2)];
			else printf "%.3f", (v[n/2 - 1] + v[n/2]) / 2 }')"
	med="${var}_time"
	log "  curl $URL: $ok of $CURLS fetches of $FILE_SIZE bytes with its sha256, median ${!med} s"
}

# measure MODE(D|H) DEV: the rows of the table for one mode; DEV is the
# client's interface towards the far network.
measure() {
	local m=$1 dev=$2 size r
	for size in 8 1000; do
		rtt_capture_start "$dev" || warn "tshark on $dev did not start"
		ping_run 4 "$PINGS" "$m$size" "$size"
		rtt_capture_stop "$m$size"
		r="$m${size}_rtt"
		log "  -s $size rtt min/median/avg/max from the capture on $dev: ${!r} ms"
	done
	curl_runs "${m}C"
}

# ------------------------------------------------------------ run

info "hipgw L2 demo (a laptop's TAP VPN to a site): work directory $WORK"
info "namespaces ${HGW_NAMESPACES[*]}"
l2_topo_create
http_start || { fail "http.server listening in $NS_FAR"; exit 1; }
log "  $URL: $FILE_SIZE bytes, sha256 $FILE_SHA"

H8_rtt=- H8_loss=100 H1000_rtt=- H1000_loss=100 HC_time=- HC_ok=0
D8_rtt=- D8_loss=100 D1000_rtt=- D1000_loss=100 DC_time=- DC_ok=0
HIT_A='' HIT_B=''
used=none
if [ ! -x "$HIPGW" ]; then
	fail "hipgw binary $HIPGW exists (build it: ./dpdk-env.sh build)"
elif write_l2_configs; then
	info "starting hipgw in $NS_SV and $NS_CL ($(eal_mem_args))"
	rc=1
	if [ "$KEYING" != manual ]; then
		rc=0; start_keyed hip || rc=$?
		if [ $rc = 0 ]; then
			used=hip
		elif [ $rc = 2 ] && [ "$KEYING" = auto ]; then
			log "  this hipgw refuses the HIP-keyed bridge: $(grep -h 'bridge' "$WORK/gwA-hip.log" "$WORK/gwB-hip.log" | head -n 1)"
			log "  so the demo keys the bridges manually ([sa] out and in; HGW_L2_KEYING=hip makes this a failure)"
		else
			fail "HIP-keyed gateways start (exit ${GW_RC_A:-}/${GW_RC_B:-})"
			gw_log_tail A; gw_log_tail B
		fi
	fi
	if [ $used = none ] && { [ "$KEYING" = manual ] || { [ "$KEYING" = auto ] && [ $rc = 2 ]; }; }; then
		if start_keyed manual; then used=manual; else
			fail "manually keyed gateways start"; gw_log_tail A; gw_log_tail B
		fi
	fi
fi

if [ $used != none ]; then
	pass "both gateways run, keyed by $used ($WORK/gwA-$used.ini, gwB-$used.ini)"
	log "  the client's config:"
	awk '!/^;/ && NF && !/^key/ { print "    " $0 }' "$WORK/gwA-$used.ini"
	tap_setup
	route=$(nsx "$NS_CL" ip route get "$FAR4")
	check "the client routes $FAR4 through the TAP ($route)" grep -q "dev $IF_TAP" <<<"$route"
	if wait_tunnel 40; then
		pass "the tunnel carries traffic: the client reaches $FAR4 through hipgw"
		info "through hipgw: $PINGS pings -s 8 and -s 1000, 0.2 s apart; $CURLS curl fetches"
		measure H "$IF_TAP"
	else
		fail "the tunnel carries traffic: the client reaches $FAR4 through hipgw within 40 s"
		gw_log_tail A; gw_log_tail B
	fi
	gw_stop A; gw_stop B
	check "both gateways exit 0 on SIGTERM (${GW_RC_A:-}/${GW_RC_B:-})" test "${GW_RC_A:-1}${GW_RC_B:-1}" = 00
	for s in A B; do
		log "  gw$s stats ($WORK/stats$s$GW_RUN.json):"
		stats_summary "$WORK/stats$s$GW_RUN.json" sa-may-end || true
		if [ $used = manual ]; then
			n=$(sa_packets "$WORK/stats$s$GW_RUN.json" in)
			check "gw$s: its in SA decrypted frames ($n)" test "$n" -gt 0
		else
			peer=server; [ $s = B ] && peer=client
			n=$(hip_get "$WORK/stats$s$GW_RUN.json" "hip.peers.$peer.bex_ok" || echo none)
			check "gw$s: hip.peers.$peer.bex_ok >= 1 ($n)" eval 'isnum "$n" && [ "$n" -ge 1 ]'
		fi
	done
fi

info "direct: the gateways stopped, $NS_SV routes between the same veths, the same NAT"
l2_plain_on
if wait_tunnel 15; then
	measure D "$IF_WAN"
else
	fail "the direct path carries traffic within 15 s"
fi

for m in D H; do
	for s in 8 1000; do
		v="$m${s}_loss"
		w=hipgw; [ $m = D ] && w=direct
		check "ping -s $s $w: loss ${!v}% at most $MAX_LOSS%" awk -v l="${!v}" -v m="$MAX_LOSS" 'BEGIN { exit !(l <= m) }'
	done
	v="${m}C_ok"
	check "curl $w: every fetch (${!v} of $CURLS) exactly $FILE_SIZE bytes with the file's sha256" test "${!v}" = "$CURLS"
done

# ------------------------------------------------------------ table
row() { printf '| %s | %s | %s | %s |\n' "$@"; }
# added DIRECT HIPGW: the median's and the mean's difference of two RTT cells
added() {
	awk -v d="$1" -v h="$2" 'BEGIN { if (split(d, a, "/") != 4 || split(h, b, "/") != 4) { print "-"; exit }
		printf "median +%.3f ms, avg +%.3f ms", b[2] - a[2], b[3] - a[3] }'
}
echo
info "the TAP-tunnel VPN experiment on this machine: direct against through hipgw (L2, keyed: $used)"
echo
row "measurement" "direct" "through hipgw" "added / ratio"
row "---" "---" "---" "---"
row "ping -s 8 RTT min/median/avg/max (ms)" "$D8_rtt" "$H8_rtt" "$(added "$D8_rtt" "$H8_rtt")"
row "ping -s 8 loss" "$D8_loss%" "$H8_loss%" "-"
row "ping -s 1000 RTT min/median/avg/max (ms)" "$D1000_rtt" "$H1000_rtt" "$(added "$D1000_rtt" "$H1000_rtt")"
row "ping -s 1000 loss" "$D1000_loss%" "$H1000_loss%" "-"
row "curl 1 MiB, median of $CURLS (s)" "$DC_time" "$HC_time" \
	"$(awk -v d="$DC_time" -v h="$HC_time" 'BEGIN { if (d == "-" || h == "-" || d == 0) print "-"; else printf "x %.2f", h / d }')"
echo
log "  ping -i 0.2 -c $PINGS -s SIZE, timed by tshark on the client's interface towards the far"
log "  network (hgw-tap through hipgw, wan0 direct); curl of $URL."
log "  For comparison, $TAPTUNNEL_TEXT."
log "  Here both gateways, the namespaces and the tools share this machine's CPUs; the"
log "  WAN is a veth, not a network."
echo
echo "$HGW_PASS passed, $HGW_FAIL failed"
[ "$HGW_FAIL" -eq 0 ]
