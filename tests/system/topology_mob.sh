# shellcheck shell=bash disable=SC2034
# The locator topology (mobility, multihoming, NAT traversal) on topology.sh's
# plumbing (cleanup, gw_start/gw_stop, keygen, counting checks): the two sites
# of topology.sh, their WANs no longer one veth but subnets joined by a Linux
# router R, gwA with a second uplink, and a NAT that gwA can be put behind.
# Source it after topology.sh; nothing runs at source time.
#
#                wan1: 192.0.2.0/24 and 203.0.113.0/24 on one link
#   hostA -- gwA gwa-wan ------------ r-a1                  r-b ------------ gwb-wan gwB -- hostB
#                .1 (203.0.113.1)     .254 (203.0.113.254) R .254  198.51.100.0/24  .1
#                gwa-wan2 ----------- r-a2
#                100.64.1.1           100.64.1.254  (wan2: the second uplink)
#
# mob_nat_on puts gwA's first uplink behind the NAT namespace N instead:
#   gwa-wan 10.99.0.1 -- n-in 10.99.0.254  N  n-out 192.0.2.50 -- r-a1
# nftables masquerade on n-out (random ports), conntrack's UDP timeouts
# lowered to MOB_NAT_UDP_TIMEOUT s so that only keepalives keep the mapping;
# mob_nat_rebind (conntrack -F) forces a new one.
#
# R forwards with the kernel. Its nftables table `mob` counts what it
# forwards by kind (mob_wan_kinds: HIP, ESP, UDP 10500, ICMP, other; DHCP it
# receives), so that a test can say the WAN carried only HIP, ESP, UDP 10500,
# DHCP and ARP/ND, and holds the silent path loss of mob_path_drop (this
# kernel has no netem). dnsmasq (mob_dhcp_start) serves wan1 from R. The
# gateways' veths carry no kernel address (hipgw owns them through
# net_af_packet); the WAN is IPv4 only.

NS_R=${P}r
NS_N=${P}nat
HGW_NAMESPACES=("$NS_HA" "$NS_GA" "$NS_R" "$NS_N" "$NS_GB" "$NS_HB")
HGW_MEM=${HGW_MEM:-384}

IF_GA_WAN2=gwa-wan2; MAC_GA_WAN2=02:00:00:00:00:11
IF_R_A1=r-a1;   MAC_R_A1=02:00:00:00:02:01
IF_R_A2=r-a2;   MAC_R_A2=02:00:00:00:02:02
IF_R_B=r-b;     MAC_R_B=02:00:00:00:02:03
IF_N_IN=n-in;   MAC_N_IN=02:00:00:00:03:01
IF_N_OUT=n-out; MAC_N_OUT=02:00:00:00:03:02

# wan1: gwA's first uplink, with a second subnet on the same link for a
# commanded move; wan2: its second uplink; wanb: gwB's.
MOB_A1_NET=192.0.2.0/24;    MOB_A1_R=192.0.2.254;    GA_WAN4=192.0.2.1
MOB_A1B_NET=203.0.113.0/24; MOB_A1B_R=203.0.113.254; MOB_GA_MOVED=203.0.113.1
MOB_A2_NET=100.64.1.0/24;   MOB_A2_R=100.64.1.254;   MOB_GA_WAN2=100.64.1.1
MOB_B_NET=198.51.100.0/24;  MOB_B_R=198.51.100.254;  GB_WAN4=198.51.100.1
# the NAT: gwA inside, N's outside address on wan1
MOB_NAT_IN_R=10.99.0.254; MOB_GA_NATTED=10.99.0.1
MOB_NAT_OUT=192.0.2.50
MOB_NAT_UDP_TIMEOUT=${MOB_NAT_UDP_TIMEOUT:-10}   # s: conntrack UDP timeouts in N
# DHCP on wan1 (dnsmasq in R): the pool and the lease (s; dnsmasq's least is 120)
MOB_DHCP_FIRST=192.0.2.100; MOB_DHCP_LAST=192.0.2.149
MOB_DHCP_LEASE=${MOB_DHCP_LEASE:-120}
# gwA's lease once the pool moved to wan1's second subnet (a lease change)
MOB_GA_DHCP2=203.0.113.2

# mob_link NS1 IF1 MAC1 NS2 IF2 MAC2: a veth pair, offloads off, both ends up.
mob_link() {
	ip link add name "$2" netns "$1" address "$3" type veth peer name "$5" netns "$4" address "$6"
	offloads_off "$1" "$2"; offloads_off "$4" "$5"
	nsx "$1" ip link set "$2" up
	nsx "$4" ip link set "$5" up
}

# mob_r_a1_addrs: R's two addresses on wan1.
mob_r_a1_addrs() {
	nsx "$NS_R" ip addr add "$MOB_A1_R/24" dev "$IF_R_A1"
	nsx "$NS_R" ip addr add "$MOB_A1B_R/24" dev "$IF_R_A1"
}

# mob_topo_create: namespaces, veths, R's addresses and forwarding, the hosts.
mob_topo_create() {
	local d
	topo_namespaces
	topo_quiet "$NS_GA" "$NS_GB"
	mob_link "$NS_HA" "$IF_HA" "$MAC_HA" "$NS_GA" "$IF_GA_LAN" "$MAC_GA_LAN"
	mob_link "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$NS_R" "$IF_R_A1" "$MAC_R_A1"
	mob_link "$NS_GA" "$IF_GA_WAN2" "$MAC_GA_WAN2" "$NS_R" "$IF_R_A2" "$MAC_R_A2"
	mob_link "$NS_GB" "$IF_GB_WAN" "$MAC_GB_WAN" "$NS_R" "$IF_R_B" "$MAC_R_B"
	mob_link "$NS_GB" "$IF_GB_LAN" "$MAC_GB_LAN" "$NS_HB" "$IF_HB" "$MAC_HB"
	for d in "$IF_GA_LAN" "$IF_GA_WAN" "$IF_GA_WAN2"; do v6_off "$NS_GA" "$d"; done
	for d in "$IF_GB_LAN" "$IF_GB_WAN"; do v6_off "$NS_GB" "$d"; done

	nsx "$NS_R" sysctl -qw net.ipv4.ip_forward=1 >/dev/null
	mob_r_a1_addrs
	nsx "$NS_R" ip addr add "$MOB_A2_R/24" dev "$IF_R_A2"
	nsx "$NS_R" ip addr add "$MOB_B_R/24" dev "$IF_R_B"
	mob_r_nft

	nsx "$NS_HA" ip addr add "$HA4/24" dev "$IF_HA"
	nsx "$NS_HA" ip -6 addr add "$HA6/64" dev "$IF_HA" nodad
	nsx "$NS_HA" ip route add default via "$GA_LAN4"
	nsx "$NS_HA" ip -6 route add default via "$GA_LAN6"
	nsx "$NS_HB" ip addr add "$HB4/24" dev "$IF_HB"
	nsx "$NS_HB" ip -6 addr add "$HB6/64" dev "$IF_HB" nodad
	nsx "$NS_HB" ip route add default via "$GB_LAN4"
	nsx "$NS_HB" ip -6 route add default via "$GB_LAN6"
}

# R's nftables table: counters of what it forwards by kind and what DHCP it
# receives, and the chain `loss` that mob_path_drop fills.
mob_r_nft() {
	nsx "$NS_R" nft -f - <<NFT
table inet mob {
	counter c_hip {}
	counter c_esp {}
	counter c_udp_hip {}
	counter c_icmp {}
	counter c_other {}
	counter c_dhcp {}
	counter c_esp_moved {}
	counter c_esp_to_moved {}
	chain loss {}
	chain forward {
		type filter hook forward priority 0; policy accept;
		jump loss
		ip saddr $MOB_GA_MOVED meta l4proto 50 counter name c_esp_moved
		ip daddr $MOB_GA_MOVED meta l4proto 50 counter name c_esp_to_moved
		meta l4proto 139 counter name c_hip accept
		meta l4proto 50 counter name c_esp accept
		udp dport 10500 counter name c_udp_hip accept
		udp sport 10500 counter name c_udp_hip accept
		meta l4proto 1 counter name c_icmp accept
		counter name c_other accept
	}
	chain input {
		type filter hook input priority 0; policy accept;
		udp dport 67 counter name c_dhcp accept
	}
}
NFT
}

# mob_path_drop on|off IF: R silently drops everything that comes in on or
# would go out of its interface IF (a path lost with its link still up).
mob_path_drop() {
	nsx "$NS_R" nft flush chain inet mob loss
	[ "$1" = on ] || return 0
	nsx "$NS_R" nft add rule inet mob loss iifname "$2" drop
	nsx "$NS_R" nft add rule inet mob loss oifname "$2" drop
}

# mob_link_down|mob_link_up IF: R's end of an uplink down or up (the
# gateway's end loses its carrier; net_tap ports report it).
mob_link_down() { nsx "$NS_R" ip link set "$1" down; }
mob_link_up() { nsx "$NS_R" ip link set "$1" up; }

# mob_wan_kinds: "hip=N esp=N udp_hip=N icmp=N other=N dhcp=N esp_moved=N
# esp_to_moved=N" (packets R forwarded of each kind, DHCP it received, ESP
# from and to MOB_GA_MOVED).
mob_wan_kinds() {
	local k out=""
	for k in hip esp udp_hip icmp other dhcp esp_moved esp_to_moved; do
		out+="$k=$(nsx "$NS_R" nft list counter inet mob "c_$k" 2>/dev/null |
			awk '$1 == "packets" { print $2; exit }') "
	done
	printf '%s\n' "${out% }"
}

# mob_nat_on: gwA's first uplink moves behind N: gwa-wan to N's n-in, N's
# n-out to R's r-a1 (made anew with its addresses), masquerade on n-out.
mob_nat_on() {
	nsx "$NS_GA" ip link del "$IF_GA_WAN" 2>/dev/null || true   # r-a1 goes with it
	mob_link "$NS_GA" "$IF_GA_WAN" "$MAC_GA_WAN" "$NS_N" "$IF_N_IN" "$MAC_N_IN"
	v6_off "$NS_GA" "$IF_GA_WAN"
	mob_link "$NS_N" "$IF_N_OUT" "$MAC_N_OUT" "$NS_R" "$IF_R_A1" "$MAC_R_A1"
	mob_r_a1_addrs
	nsx "$NS_N" sysctl -qw net.ipv4.ip_forward=1 >/dev/null
	nsx "$NS_N" ip addr add "$MOB_NAT_IN_R/24" dev "$IF_N_IN"
	nsx "$NS_N" ip addr add "$MOB_NAT_OUT/24" dev "$IF_N_OUT"
	nsx "$NS_N" ip route add default via "$MOB_A1_R"
	nsx "$NS_N" nft -f - <<NFT
table ip nat {
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		oifname "$IF_N_OUT" masquerade random
	}
}
NFT
	# conntrack's sysctls exist in the namespace once the NAT table is in
	nsx "$NS_N" sysctl -qw net.netfilter.nf_conntrack_udp_timeout="$MOB_NAT_UDP_TIMEOUT" \
		net.netfilter.nf_conntrack_udp_timeout_stream="$MOB_NAT_UDP_TIMEOUT" >/dev/null ||
		warn "conntrack UDP timeouts not set in $NS_N"
}

# mob_nat_rebind: N forgets every mapping (gwA's next packet gets a new
# source port: masquerade random).
mob_nat_rebind() { nsx "$NS_N" conntrack -F >/dev/null 2>&1; }

# mob_dhcp_start [FIRST LAST]: dnsmasq in R serving wan1 (DHCPv4 only, no
# DNS), router MOB_A1_R, lease MOB_DHCP_LEASE s; its log $WORK/dnsmasq.log.
# The router option MOB_DHCP_ROUTER (default MOB_A1_R); more dnsmasq options
# in the array MOB_DHCP_OPTS (e.g. T1 and T2).
mob_dhcp_start() {
	local first=${1:-$MOB_DHCP_FIRST} last=${2:-$MOB_DHCP_LAST}
	mob_dhcp_stop
	nsx "$NS_R" dnsmasq --keep-in-foreground --port=0 --no-resolv --no-hosts \
		--interface="$IF_R_A1" --bind-interfaces --dhcp-authoritative \
		--dhcp-range="$first,$last,255.255.255.0,${MOB_DHCP_LEASE}s" \
		--dhcp-option=option:router,"${MOB_DHCP_ROUTER:-$MOB_A1_R}" ${MOB_DHCP_OPTS[@]+"${MOB_DHCP_OPTS[@]}"} \
		--dhcp-leasefile="$WORK/dnsmasq.leases" --log-dhcp \
		--log-facility="$WORK/dnsmasq.log" --pid-file="$WORK/dnsmasq.pid" &
	MOB_DHCP_PID=$!
	HGW_BG_PIDS+=("$MOB_DHCP_PID")
}

# mob_dhcp_stop: dnsmasq ended (by its pid file too: the background job's
# pid may be the shell around it, not dnsmasq).
mob_dhcp_stop() {
	local dpid
	[ -n "${MOB_DHCP_PID:-}" ] || return 0
	dpid=$(cat "$WORK/dnsmasq.pid" 2>/dev/null || true)
	[ -z "$dpid" ] || kill -TERM "$dpid" 2>/dev/null || true
	kill -TERM "$MOB_DHCP_PID" 2>/dev/null || true
	wait "$MOB_DHCP_PID" 2>/dev/null || true
	forget_pid "$MOB_DHCP_PID"
	MOB_DHCP_PID=
}

# mob_plain_check: the topology alone, kernel addresses on the gateways' veths
# for a moment: gwA reaches gwB through R over wan2 and over wan1 (from behind
# N once mob_nat_on ran). Counts its checks; removes the addresses again.
mob_plain_check() {
	nsx "$NS_GB" ip addr add "$GB_WAN4/24" dev "$IF_GB_WAN"
	nsx "$NS_GB" ip route add default via "$MOB_B_R"
	nsx "$NS_GA" ip addr add "$MOB_GA_WAN2/24" dev "$IF_GA_WAN2"
	nsx "$NS_GA" ip route add "$MOB_B_NET" via "$MOB_A2_R"
	check "plain: gwA pings gwB over wan2" nsx "$NS_GA" ping -c1 -W2 -q "$GB_WAN4" >/dev/null
	nsx "$NS_GA" ip addr flush dev "$IF_GA_WAN2"
	if nsx "$NS_N" ip link show "$IF_N_IN" >/dev/null 2>&1; then
		nsx "$NS_GA" ip addr add "$MOB_GA_NATTED/24" dev "$IF_GA_WAN"
		nsx "$NS_GA" ip route add "$MOB_B_NET" via "$MOB_NAT_IN_R"
	else
		nsx "$NS_GA" ip addr add "$GA_WAN4/24" dev "$IF_GA_WAN"
		nsx "$NS_GA" ip route add "$MOB_B_NET" via "$MOB_A1_R"
	fi
	check "plain: gwA pings gwB over wan1" nsx "$NS_GA" ping -c1 -W2 -q "$GB_WAN4" >/dev/null
	nsx "$NS_GA" ip addr flush dev "$IF_GA_WAN"
	nsx "$NS_GB" ip addr flush dev "$IF_GB_WAN"
	nsx "$NS_GB" ip route flush table main 2>/dev/null || true
}

# mob_write_hip_config FILE SIDE(A|B) WAN4 GW4: a HIP-keyed gateway of this
# topology: lan inner, wan outer at WAN4/24 with default gateway GW4 (R), one
# [peer] (the other gateway, its first WAN address as locator); WAN4 "dhcp":
# wan's address by DHCP (mob_dhcp_start), no gateway, no peer local. Needs
# hip_keygen A and B first (HIT_A, HIT_B). Extra lines for [gateway] in
# MOB_GW_EXTRA, for [peer] in MOB_PEER_EXTRA.
mob_write_hip_config() {
	local f=$1 side=$2 wan4=$3 gw4=$4 lan_if lan4 lan6 peer peer_hit rwan4 rem4 rem6
	if [ "$side" = A ]; then
		lan_if=$IF_GA_LAN lan4=$GA_LAN4 lan6=$GA_LAN6 peer=$HIP_PEER_OF_A peer_hit=$HIT_B
		rwan4=$GB_WAN4 rem4=$SITE_B4 rem6=$SITE_B6
	else
		lan_if=$IF_GB_LAN lan4=$GB_LAN4 lan6=$GB_LAN6 peer=$HIP_PEER_OF_B peer_hit=$HIT_A
		rwan4=$GA_WAN4 rem4=$SITE_A4 rem6=$SITE_A6
	fi
	local wan_if=$IF_GA_WAN wan_addr="address = $wan4/24" wan_gw="gateway = $gw4" local="local = $wan4"
	[ "$side" = A ] || wan_if=$IF_GB_WAN
	if [ "$wan4" = dhcp ]; then
		wan_addr="address = dhcp" wan_gw="" local=""
	fi
	cat >"$f" <<CONF
; hipgw gateway $side of the locator topology (tests/system/topology_mob.sh)
[gateway]
workers = 1
idle = adaptive
hi = $WORK/gw$side.pem
puzzle-k = $HGW_PUZZLE_K
${MOB_GW_EXTRA:-}

[port lan]
device = net_af_packet0,iface=$lan_if
role = inner
address = $lan4/24, $lan6/64

[port wan]
device = net_af_packet1,iface=$wan_if
role = outer
$wan_addr
$wan_gw

[peer $peer]
hit = $peer_hit
locator = $rwan4
$local
prefixes = $rem4, $rem6
${MOB_PEER_EXTRA:-}
CONF
}

# mob_configs: fresh Host Identities, $WORK/gwA.ini and gwB.ini (start them
# with GW_CONF= and GW_RUN= empty or set). MOB_GA_DHCP=1: gwA's wan has
# address = dhcp (serve it with mob_dhcp_start "$GA_WAN4" "$GA_WAN4").
mob_configs() {
	hip_keygen A || return 1
	hip_keygen B || return 1
	if [ "${MOB_GA_DHCP:-0}" = 1 ]; then
		mob_write_hip_config "$WORK/gwA.ini" A dhcp "$MOB_A1_R"
	else
		mob_write_hip_config "$WORK/gwA.ini" A "$GA_WAN4" "$MOB_A1_R"
	fi
	mob_write_hip_config "$WORK/gwB.ini" B "$GB_WAN4" "$MOB_B_R"
}

# mob_set_address SIDE PORT ADDR/LEN [GATEWAY]: hipgw set-address on gateway
# SIDE's telemetry socket; its answer on stdout, its status returned.
mob_set_address() {
	local side=$1; shift
	"$HIPGW" set-address --file-prefix "${P}gw$side" "$@"
}
