# shellcheck shell=bash disable=SC2034
# The L2 topology of tests/system/test_l2.sh, on topology.sh's plumbing
# (cleanup, gw_start/gw_stop, keygen, counting checks): three sites on ONE
# subnet, 10.9.0.0/24 and fd00:9::/64, each site segment a Linux bridge, the
# WAN a fourth one, all four in namespace ${P}sw. Each gateway has an
# af_packet l2 inner port on its site segment and an af_packet outer port on
# the WAN. Source it after topology.sh; nothing runs at source time.
#
#   hostA lan0 --- a-host [brA] a-gw --- gwa-lan  gwA  gwa-wan --- w-a [brW]
#   hostM lan0 --- m-host [brA]   (moves to brC: l2_move_host)
#   hostB lan0 --- b-host [brB] b-gw --- gwb-lan  gwB  gwb-wan --- w-b [brW]
#   hostC lan0 --- c-host [brC] c-gw --- gwc-lan  gwC  gwc-wan --- w-c [brW]
#
#   hosts 10.9.0.1 (A) .2 (B) .3 (C) .4 (M), fd00:9::1 .. ::4
#   WAN   192.0.2.1 (gwA) .2 (gwB) .3 (gwC), MTU 1600: a whole 1514-byte frame
#         in EtherIP in ESP fits (docs/l2.md)
#
# Every link has one end in ${P}sw, so one dumpcap there (l2_cap_start) sees
# every frame of every link, each link a pcapng interface of its own.
#
# Keying: HGW_L2_KEYING=hip (default: fresh Host Identities, a [peer] per
# remote gateway, the bridge's `peers`) or manual (fresh random AES-128-GCM
# keys, two [sa] per remote, the bridge's `sas`). HGW_L2_WORKERS_<SIDE> (default 1)
# sets a gateway's workers (and qpairs of its af_packet ports).

HGW_L2_KEYING=${HGW_L2_KEYING:-hip}

NS_SW=${P}sw
NS_GC=${P}gwC
NS_HC=${P}hostC
NS_HM=${P}hostM
HGW_NAMESPACES=("$NS_SW" "$NS_GA" "$NS_GB" "$NS_GC" "$NS_HA" "$NS_HB" "$NS_HC" "$NS_HM")
HGW_GW_SIDES=(A B C)

# site / gateway number: its host's and WAN address's last byte
declare -A L2_NUM=([A]=1 [B]=2 [C]=3 [M]=4)
L2_NET4=10.9.0
L2_NET6=fd00:9:
L2_WAN4=192.0.2
L2_WAN_MTU=1600
HA4=$L2_NET4.1; HB4=$L2_NET4.2; HC4=$L2_NET4.3; HM4=$L2_NET4.4
HA6=$L2_NET6:1; HB6=$L2_NET6:2; HC6=$L2_NET6:3; HM6=$L2_NET6:4
MAC_HA=02:00:00:09:00:01; MAC_HB=02:00:00:09:00:02
MAC_HC=02:00:00:09:00:03; MAC_HM=02:00:00:09:00:04
# the switch-side end of every link, in the order of the report
L2_LAN_LINKS=(a-host m-host a-gw b-host b-gw c-host c-gw)
L2_WAN_LINKS=(w-a w-b w-c)

l2_lc() { tr 'A-Z' 'a-z' <<<"$1"; }
l2_wan4() { echo "$L2_WAN4.${L2_NUM[$1]}"; }

# l2_link NS IF MAC SWIF MASTER [MTU]: a veth IF (in NS) to SWIF (in ${P}sw,
# a port of bridge MASTER), offloads off on both ends.
l2_link() {
	local ns=$1 dev=$2 mac=$3 swif=$4 master=$5 mtu=${6:-1500}
	ip link add name "$dev" netns "$ns" address "$mac" mtu "$mtu" type veth \
		peer name "$swif" netns "$NS_SW" mtu "$mtu"
	offloads_off "$ns" "$dev"
	offloads_off "$NS_SW" "$swif"
	nsx "$NS_SW" ip link set "$swif" master "$master" up
}

# l2_topo_create: the namespaces, bridges and links above, hosts addressed.
l2_topo_create() {
	local s l mac
	# the switch and the gateways' kernels send nothing of their own
	topo_namespaces
	topo_quiet "$NS_SW" "$NS_GA" "$NS_GB" "$NS_GC"
	# no STP (ports forward at once), no multicast snooping (every group floods)
	for s in A B C W; do
		nsx "$NS_SW" ip link add "br$s" type bridge stp_state 0 mcast_snooping 0
		nsx "$NS_SW" ip link set "br$s" up
	done
	for s in A B C; do
		l=$(l2_lc "$s")
		mac=02:00:00:09:0${L2_NUM[$s]}:ff
		l2_link "${P}gw$s" "gw$l-lan" "$mac" "$l-gw" "br$s"
		l2_link "${P}gw$s" "gw$l-wan" "02:00:00:00:00:0${L2_NUM[$s]}" "w-$l" brW "$L2_WAN_MTU"
		v6_off "${P}gw$s" "gw$l-lan"; v6_off "${P}gw$s" "gw$l-wan"
		nsx "${P}gw$s" ip link set "gw$l-lan" up
		nsx "${P}gw$s" ip link set "gw$l-wan" up
	done
	for s in A B C M; do
		l=$(l2_lc "$s"); mac="MAC_H$s"
		# hostM starts at site A
		l2_link "${P}host$s" lan0 "${!mac}" "$l-host" "br${s/M/A}"
		nsx "${P}host$s" ip addr add "$L2_NET4.${L2_NUM[$s]}/24" dev lan0
		nsx "${P}host$s" ip -6 addr add "$L2_NET6:${L2_NUM[$s]}/64" dev lan0 nodad
		nsx "${P}host$s" ip link set lan0 up
	done
}

# l2_move_host FROM TO: hostM's link leaves site FROM's bridge for site TO's;
# hostM keeps its MAC, addresses and carrier (the host was carried over).
l2_move_host() {
	nsx "$NS_SW" ip link set m-host nomaster
	nsx "$NS_SW" ip link set m-host master "br$2"
}

# ---------------------------------------------------------------- configs

# SPI of the manual out SA from gateway X to gateway Y: 0x10XY (gwA -> gwB 0x1012).
l2_spi() { printf '0x10%d%d' "${L2_NUM[$1]}" "${L2_NUM[$2]}"; }

# l2_new_keys SIDE...: fresh AES-128-GCM keys (key + 4-byte salt, RFC 4106)
# for every ordered pair of the gateways SIDE..., in L2_KEY[XY].
declare -A L2_KEY
l2_new_keys() {
	local x y
	for x in "$@"; do
		for y in "$@"; do
			[ "$x" = "$y" ] || L2_KEY[$x$y]=$(randhex 20)
		done
	done
}

# l2_sa_sections SIDE REMOTE...: gateway SIDE's out and in [sa] per remote;
# each SA's prefixes are a routed prefix of the remote site that this test
# never uses (an [sa] needs one): 10.99.N.0/24.
l2_sa_sections() {
	local x=$1 y l m
	shift
	for y in "$@"; do
		l=$(l2_lc "$x"); m=$(l2_lc "$y")
		cat <<EOF

[sa $l-to-$m]
direction = out
spi = $(l2_spi "$x" "$y")
suite = aes128-gcm16
key = 0x${L2_KEY[$x$y]}
local = $(l2_wan4 "$x")
remote = $(l2_wan4 "$y")
prefixes = 10.99.${L2_NUM[$y]}.0/24
state = $WORK/gw$x-$l-to-$m.seq

[sa $m-to-$l]
direction = in
spi = $(l2_spi "$y" "$x")
suite = aes128-gcm16
key = 0x${L2_KEY[$y$x]}
local = $(l2_wan4 "$x")
remote = $(l2_wan4 "$y")
prefixes = 10.99.${L2_NUM[$y]}.0/24
replay-window = 1024
EOF
	done
}

# l2_peer_sections SIDE REMOTE...: a [peer gwY] per remote (its HIT from
# HIT_Y, hip_keygen), locator its WAN address; no prefixes: a bridge peer
# that carries the bridge's frames only.
l2_peer_sections() {
	local x=$1 y hit
	shift
	for y in "$@"; do
		hit="HIT_$y"
		cat <<EOF

[peer gw$y]
hit = ${!hit}
locator = $(l2_wan4 "$y")
local = $(l2_wan4 "$x")
EOF
	done
}

# l2_bridge_members SIDE REMOTE...: the bridge's `sas =` or `peers =` line.
l2_bridge_members() {
	local x=$1 y l list=()
	shift
	l=$(l2_lc "$x")
	for y in "$@"; do
		if [ "$HGW_L2_KEYING" = hip ]; then
			list+=("gw$y")
		else
			list+=("$l-to-$(l2_lc "$y")" "$(l2_lc "$y")-to-$l")
		fi
	done
	local IFS=,
	if [ "$HGW_L2_KEYING" = hip ]; then echo "peers = ${list[*]}"; else echo "sas = ${list[*]}"; fi
}

# l2_write_config SIDE REMOTE...: $WORK/gwSIDE$GW_CONF.ini, gateway SIDE
# bridging its segment to the gateways REMOTE..., keyed as HGW_L2_KEYING says
# (manual: l2_new_keys first; hip: hip_keygen of every gateway first).
l2_write_config() {
	local x=$1 l wv="HGW_L2_WORKERS_$1" workers qp='' f
	shift
	l=$(l2_lc "$x")
	workers=${!wv:-1}
	[ "$workers" -le 1 ] || qp=",qpairs=$workers"
	f="$WORK/gw$x$GW_CONF.ini"
	{
		cat <<EOF
; hipgw gateway $x of the L2 system-test topology ($HGW_L2_KEYING keying),
; generated by tests/system/topology_l2.sh with fresh keys of this run.
[gateway]
workers = $workers
idle = adaptive
EOF
		if [ "$HGW_L2_KEYING" = hip ]; then
			echo "hi = $WORK/gw$x.pem"
			echo "puzzle-k = $HGW_PUZZLE_K"
		fi
		cat <<EOF

[port lan]
device = net_af_packet0,iface=gw$l-lan$qp
role = inner
mode = l2

[port wan]
device = net_af_packet1,iface=gw$l-wan$qp
role = outer
address = $(l2_wan4 "$x")/24
mtu = $L2_WAN_MTU
EOF
		if [ "$HGW_L2_KEYING" = hip ]; then l2_peer_sections "$x" "$@"; else l2_sa_sections "$x" "$@"; fi
		cat <<EOF

[bridge site]
port = lan
$(l2_bridge_members "$x" "$@")
EOF
	} >"$f"
	chmod 600 "$f"
}

# l2_write_configs SIDE...: keys and a config for each gateway SIDE, every
# other gateway SIDE... its remote (two gateways, or the full mesh of three).
l2_write_configs() {
	local s t others
	if [ "$HGW_L2_KEYING" = hip ]; then
		for s in "$@"; do [ -n "$(eval echo "\${HIT_$s:-}")" ] || hip_keygen "$s" || return 1; done
	else
		l2_new_keys "$@"
	fi
	for s in "$@"; do
		others=()
		for t in "$@"; do [ "$t" = "$s" ] || others+=("$t"); done
		l2_write_config "$s" "${others[@]}"
	done
}

# l2_esp_sa_lines SIDE...: tshark esp_sa UAT lines for the SAs between the
# gateways SIDE...: from the manual keys, or from the gateways' --keylog
# files of run $GW_RUN.
l2_esp_sa_lines() {
	local x y
	if [ "$HGW_L2_KEYING" = hip ]; then
		for x in "$@"; do cat "$WORK/keylog$x$GW_RUN.txt" 2>/dev/null || true; done | sort -u
		return
	fi
	for x in "$@"; do
		for y in "$@"; do
			[ "$x" = "$y" ] && continue
			printf '"IPv4","%s","%s","0x%08x","AES-GCM with 16 octet ICV [RFC4106]","0x%s","NULL",""\n' \
				"$(l2_wan4 "$x")" "$(l2_wan4 "$y")" "$(l2_spi "$x" "$y")" "${L2_KEY[$x$y]}"
		done
	done
}

# ---------------------------------------------------------------- capture

# l2_cap_start NAME: one dumpcap in ${P}sw on every link, whole frames, into
# $WORK/l2-NAME.pcapng (each link an interface: frame.interface_name); it
# stops at L2_CAP_MAX_KB (a run's captures hold under 100 kB; a bridge
# loop's storm would fill the disk and keep tshark busy for minutes).
L2_CAP_MAX_KB=4096
l2_cap_start() {
	local args=() i
	L2_CAP="$WORK/l2-$1.pcapng"
	for i in "${L2_LAN_LINKS[@]}" "${L2_WAN_LINKS[@]}"; do args+=(-i "$i"); done
	ip netns exec "$NS_SW" dumpcap -q -n -s 0 -a "filesize:$L2_CAP_MAX_KB" "${args[@]}" -w "$L2_CAP" \
		</dev/null >"$WORK/dumpcap-$1.log" 2>&1 &
	L2_CAP_PID=$!
	HGW_BG_PIDS+=("$L2_CAP_PID")
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$WORK/dumpcap-$1.log" 2>/dev/null && { sleep 0.2; return 0; }
		kill -0 "$L2_CAP_PID" 2>/dev/null || break
		sleep 0.1
	done
	warn "dumpcap did not report 'Capturing on': $(tail -n 2 "$WORK/dumpcap-$1.log")"
	return 1
}

l2_cap_stop() {
	local i
	[ -n "${L2_CAP_PID:-}" ] || return 0
	sleep 0.3   # the last frames reach the capture
	kill -INT "$L2_CAP_PID" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do kill -0 "$L2_CAP_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$L2_CAP_PID" 2>/dev/null || true
	wait "$L2_CAP_PID" 2>/dev/null || true
	forget_pid "$L2_CAP_PID"
	L2_CAP_PID=
}

# l2_dump PCAP SIDE...: one tshark pass over the capture, ESP decrypted with
# the SAs of the gateways SIDE... (l2_esp_sa_lines), into PCAP.tsv: a line a
# frame, tab-separated, each field's occurrences joined by "|" (outer first,
# then those of the frame inside EtherIP):
#   1 link  2 protocols  3 eth.src  4 eth.dst  5 ip.src  6 ip.dst
#   7 arp.dst.proto_ipv4  8 ipv6.dst  9 icmpv6.type  10 esp.spi
#   11 icmp.type  12 data.data  13 esp.icv_good  14 esp.icv_bad  15 hip.packet_type
l2_dump() {
	local pcap=$1 ln opts=()
	shift
	while IFS= read -r ln; do
		[ -n "$ln" ] && opts+=(-o "uat:esp_sa:$ln")
	done < <(l2_esp_sa_lines "$@")
	tsh "$pcap" -o esp.enable_encryption_decode:TRUE -o esp.enable_authentication_check:TRUE \
		"${opts[@]}" -T fields -E separator=/t -E occurrence=a -E aggregator='|' \
		-e frame.interface_name -e frame.protocols -e eth.src -e eth.dst -e ip.src -e ip.dst \
		-e arp.dst.proto_ipv4 -e ipv6.dst -e icmpv6.type -e esp.spi -e icmp.type -e data.data \
		-e esp.icv_good -e esp.icv_bad -e hip.packet_type >"$pcap.tsv"
}

# l2_count TSV LINK AWK-CONDITION: frames of LINK in the dump that satisfy
# the awk condition on the fields above ($1 .. $15, -F'\t').
l2_count() {
	awk -F'\t' -v link="$2" "\$1 == link && ($3) { n++ } END { print n + 0 }" "$1"
}
