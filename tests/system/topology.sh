# shellcheck shell=bash
# Shared plumbing for tests/system/demo.sh and tests/system/test_system.sh: the
# two-site topology in network namespaces, hipgw configs with fresh keys, starting
# and stopping the gateways, the plain-Linux comparison path, measurements and the
# WAN capture check. Source it from a bash script running as root; it defines
# functions and variables only (nothing runs at source time). topology_l2.sh
# builds the L2 test's sites on it (tests/system/test_l2.sh).
#
#   hostA ---- gwA ========== gwB ---- hostB
#   lan0   gwa-lan gwa-wan  gwb-wan gwb-lan   lan0
#   10.1.0.2   (10.1.0.1)  (192.0.2.1) (192.0.2.2)  (10.2.0.1)   10.2.0.2
#   fd00:1::2  (fd00:1::1)                          (fd00:2::1)   fd00:2::2
#
# In gateway mode the gwA/gwB veths carry no kernel address and no IPv6 at all:
# hipgw owns them through net_af_packet. In plain mode (the comparison path) the
# kernel gets the addresses in brackets, plus 2001:db8:ffff::1/2 on the WAN, and
# routes between the sites.
#
# Environment knobs:
#   HGW_NS_PREFIX  namespace / DPDK file-prefix prefix (default hgw-)
#   HIPGW          the binary (default <repo>/build/app/hipgw)
#   HGW_NO_HUGE=1  run DPDK with --no-huge (set by dpdk-env.sh when hugepages fail)
#   HGW_MEM        DPDK memory per gateway in MB (default 512)
#   HGW_KEEP=1     keep the work directory (configs, logs, pcaps) after the run
#   HGW_WORKDIR    use this work directory instead of a fresh mktemp one

HGW_REPO=${HGW_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
HIPGW=${HIPGW:-$HGW_REPO/build/app/hipgw}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

P=${HGW_NS_PREFIX:-hgw-}
NS_HA=${P}hostA
NS_GA=${P}gwA
NS_GB=${P}gwB
NS_HB=${P}hostB
HGW_NAMESPACES=("$NS_HA" "$NS_GA" "$NS_GB" "$NS_HB")
# the gateways' names (gw_start SIDE runs gwSIDE in namespace $NS_G<SIDE>)
HGW_GW_SIDES=(A B)

# Interface names (each lives in its own namespace) and fixed MACs.
IF_HA=lan0;     MAC_HA=02:00:00:01:00:02
IF_GA_LAN=gwa-lan; MAC_GA_LAN=02:00:00:01:00:01
IF_GA_WAN=gwa-wan; MAC_GA_WAN=02:00:00:00:00:01
IF_GB_WAN=gwb-wan; MAC_GB_WAN=02:00:00:00:00:02
IF_GB_LAN=gwb-lan; MAC_GB_LAN=02:00:00:02:00:01
IF_HB=lan0;     MAC_HB=02:00:00:02:00:02

HA4=10.1.0.2;  HA6=fd00:1::2;  GA_LAN4=10.1.0.1; GA_LAN6=fd00:1::1
HB4=10.2.0.2;  HB6=fd00:2::2;  GB_LAN4=10.2.0.1; GB_LAN6=fd00:2::1
GA_WAN4=192.0.2.1; GB_WAN4=192.0.2.2
GA_WAN6=2001:db8:ffff::1; GB_WAN6=2001:db8:ffff::2
SITE_A4=10.1.0.0/24; SITE_A6=fd00:1::/64
SITE_B4=10.2.0.0/24; SITE_B6=fd00:2::/64
SPI_AB=0x1001
SPI_BA=0x2001
# 16 bytes that ping carries as payload (-p): must never show on the WAN in clear.
MARKER_HEX=4847572d434c454152544558542d2121   # "HGW-CLEARTEXT-!!"

HGW_PASS=0
HGW_FAIL=0
HGW_GW_PIDS=()
HGW_BG_PIDS=()
CAP_PIDS=()

log()  { printf '%s\n' "$*"; }
info() { printf '== %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }

# check NAME COMMAND...: run a check, count and print it.
check() {
	local name=$1; shift
	if "$@"; then
		HGW_PASS=$((HGW_PASS + 1)); printf 'PASS  %s\n' "$name"
	else
		HGW_FAIL=$((HGW_FAIL + 1)); printf 'FAIL  %s\n' "$name"
	fi
}
pass() { HGW_PASS=$((HGW_PASS + 1)); printf 'PASS  %s\n' "$1"; }
fail() { HGW_FAIL=$((HGW_FAIL + 1)); printf 'FAIL  %s\n' "$1"; }

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

need_tools() {
	local t missing=()
	for t in ip ethtool ping iperf3 tshark od; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "missing tools: ${missing[*]} (run ./dpdk-env.sh deps)" >&2
		return 1
	fi
	[ "$(id -u)" -eq 0 ] || { echo "must run as root" >&2; return 1; }
}

hgw_workdir() {
	if [ -n "${HGW_WORKDIR:-}" ]; then
		WORK=$HGW_WORKDIR; mkdir -p "$WORK"
	else
		WORK=$(mktemp -d "/tmp/${P}run.XXXXXX")
	fi
	chmod 700 "$WORK"
}

# ---------------------------------------------------------------- cleanup

# forget_pid PID: a process we waited for leaves the lists topo_kill_all kills
# (its number may be given to another process later).
forget_pid() {
	local pid=$1 p keep=()
	[ -n "$pid" ] || return 0
	for p in "${HGW_GW_PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
	HGW_GW_PIDS=("${keep[@]}")
	keep=()
	for p in "${HGW_BG_PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
	HGW_BG_PIDS=("${keep[@]}")
}

topo_kill_all() {
	local pid
	for pid in "${HGW_GW_PIDS[@]}" "${HGW_BG_PIDS[@]}"; do
		if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; fi
	done
	sleep 0.3
	for pid in "${HGW_GW_PIDS[@]}" "${HGW_BG_PIDS[@]}"; do
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			sleep 2
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	HGW_GW_PIDS=(); HGW_BG_PIDS=()
}

# Kill whatever still runs inside our namespaces (leftovers of an earlier,
# killed run included), then delete the namespaces.
topo_destroy() {
	local ns pids side
	for ns in "${HGW_NAMESPACES[@]}"; do
		if ip netns list 2>/dev/null | grep -qw -- "$ns"; then
			pids=$(ip netns pids "$ns" 2>/dev/null || true)
			if [ -n "$pids" ]; then
				# shellcheck disable=SC2086
				kill -TERM $pids 2>/dev/null || true
				sleep 1
				pids=$(ip netns pids "$ns" 2>/dev/null || true)
				# shellcheck disable=SC2086
				[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
			fi
			ip netns del "$ns" 2>/dev/null || true
		fi
	done
	for side in "${HGW_GW_SIDES[@]}"; do rm -rf "/var/run/dpdk/${P}gw$side" 2>/dev/null || true; done
}

topo_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	topo_kill_all
	topo_destroy
	if [ -n "${WORK:-}" ] && [ -d "$WORK" ]; then
		if [ "${HGW_KEEP:-0}" = 1 ]; then
			echo "work directory kept: $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
	return $rc
}

# ---------------------------------------------------------------- topology

offloads_off() {
	local ns=$1 dev=$2
	nsx "$ns" ethtool -K "$dev" rx off tx off tso off gso off gro off >/dev/null 2>&1 ||
		warn "ethtool -K $dev in $ns: some offloads could not be turned off"
}

# No IPv6 at all (no link-local, no RS, no MLD) and no autoconfiguration on a
# gateway-side veth: only what hipgw sends may leave it.
v6_off() {
	local ns=$1 dev=$2
	nsx "$ns" sysctl -qw "net.ipv6.conf.$dev.accept_ra=0" "net.ipv6.conf.$dev.autoconf=0" \
		"net.ipv6.conf.$dev.disable_ipv6=1" >/dev/null
}

# topo_namespaces: HGW_NAMESPACES anew (leftovers removed), each with lo up.
topo_namespaces() {
	local ns
	topo_destroy
	for ns in "${HGW_NAMESPACES[@]}"; do
		ip netns add "$ns"
		nsx "$ns" ip link set lo up
	done
}

# topo_quiet NS...: in every namespace of HGW_NAMESPACES no RA processing,
# autoconf or DAD; in the namespaces NS... (the gateways') the kernel sends
# and forwards nothing.
topo_quiet() {
	local ns
	for ns in "${HGW_NAMESPACES[@]}"; do
		# no RA processing / autoconf anywhere; no DAD delays on the hosts
		nsx "$ns" sysctl -qw net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.all.accept_ra=0 \
			net.ipv6.conf.default.autoconf=0 net.ipv6.conf.all.autoconf=0 \
			net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0 >/dev/null
	done
	for ns in "$@"; do
		# veths created in here start without IPv6; the kernel must not forward either
		nsx "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 \
			net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0 >/dev/null
	done
}

topo_create() {
	topo_namespaces
	topo_quiet "$NS_GA" "$NS_GB"

	ip link add name "$IF_HA" netns "$NS_HA" address "$MAC_HA" type veth \
		peer name "$IF_GA_LAN" netns "$NS_GA" address "$MAC_GA_LAN"
	ip link add name "$IF_GA_WAN" netns "$NS_GA" address "$MAC_GA_WAN" type veth \
		peer name "$IF_GB_WAN" netns "$NS_GB" address "$MAC_GB_WAN"
	ip link add name "$IF_GB_LAN" netns "$NS_GB" address "$MAC_GB_LAN" type veth \
		peer name "$IF_HB" netns "$NS_HB" address "$MAC_HB"

	v6_off "$NS_GA" "$IF_GA_LAN"; v6_off "$NS_GA" "$IF_GA_WAN"
	v6_off "$NS_GB" "$IF_GB_LAN"; v6_off "$NS_GB" "$IF_GB_WAN"

	offloads_off "$NS_HA" "$IF_HA"
	offloads_off "$NS_GA" "$IF_GA_LAN"; offloads_off "$NS_GA" "$IF_GA_WAN"
	offloads_off "$NS_GB" "$IF_GB_LAN"; offloads_off "$NS_GB" "$IF_GB_WAN"
	offloads_off "$NS_HB" "$IF_HB"

	nsx "$NS_GA" ip link set "$IF_GA_LAN" up
	nsx "$NS_GA" ip link set "$IF_GA_WAN" up
	nsx "$NS_GB" ip link set "$IF_GB_LAN" up
	nsx "$NS_GB" ip link set "$IF_GB_WAN" up

	nsx "$NS_HA" ip addr add "$HA4/24" dev "$IF_HA"
	nsx "$NS_HA" ip -6 addr add "$HA6/64" dev "$IF_HA" nodad
	nsx "$NS_HA" ip link set "$IF_HA" up
	nsx "$NS_HA" ip route add default via "$GA_LAN4"
	nsx "$NS_HA" ip -6 route add default via "$GA_LAN6"

	nsx "$NS_HB" ip addr add "$HB4/24" dev "$IF_HB"
	nsx "$NS_HB" ip -6 addr add "$HB6/64" dev "$IF_HB" nodad
	nsx "$NS_HB" ip link set "$IF_HB" up
	nsx "$NS_HB" ip route add default via "$GB_LAN4"
	nsx "$NS_HB" ip -6 route add default via "$GB_LAN6"
}

# Plain Linux routing on the same veths: the comparison path.
topo_plain_on() {
	local ns lan wan lan4 lan6 wan4 wan6 peer4 peer6 r4 r6
	for ns in "$NS_GA" "$NS_GB"; do
		if [ "$ns" = "$NS_GA" ]; then
			lan=$IF_GA_LAN wan=$IF_GA_WAN lan4=$GA_LAN4 lan6=$GA_LAN6 wan4=$GA_WAN4 wan6=$GA_WAN6
			peer4=$GB_WAN4 peer6=$GB_WAN6 r4=$SITE_B4 r6=$SITE_B6
		else
			lan=$IF_GB_LAN wan=$IF_GB_WAN lan4=$GB_LAN4 lan6=$GB_LAN6 wan4=$GB_WAN4 wan6=$GB_WAN6
			peer4=$GA_WAN4 peer6=$GA_WAN6 r4=$SITE_A4 r6=$SITE_A6
		fi
		nsx "$ns" sysctl -qw "net.ipv6.conf.$lan.disable_ipv6=0" "net.ipv6.conf.$wan.disable_ipv6=0" \
			"net.ipv6.conf.$lan.accept_dad=0" "net.ipv6.conf.$wan.accept_dad=0" >/dev/null
		nsx "$ns" ip addr add "$lan4/24" dev "$lan"
		nsx "$ns" ip -6 addr add "$lan6/64" dev "$lan" nodad
		nsx "$ns" ip addr add "$wan4/24" dev "$wan"
		nsx "$ns" ip -6 addr add "$wan6/64" dev "$wan" nodad
		nsx "$ns" ip route add "$r4" via "$peer4"
		nsx "$ns" ip -6 route add "$r6" via "$peer6"
		nsx "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 >/dev/null
	done
	nsx "$NS_HA" ip neigh flush dev "$IF_HA" 2>/dev/null || true
	nsx "$NS_HB" ip neigh flush dev "$IF_HB" 2>/dev/null || true
}

# ---------------------------------------------------------------- configs

randhex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

# port_sections SIDE(A|B): the [port lan] and [port wan] sections of a gateway.
port_sections() {
	local lan_if lan4 lan6 wan_if wan4
	if [ "$1" = A ]; then
		lan_if=$IF_GA_LAN lan4=$GA_LAN4 lan6=$GA_LAN6 wan_if=$IF_GA_WAN wan4=$GA_WAN4
	else
		lan_if=$IF_GB_LAN lan4=$GB_LAN4 lan6=$GB_LAN6 wan_if=$IF_GB_WAN wan4=$GB_WAN4
	fi
	cat <<EOF
[port lan]
device = net_af_packet0,iface=$lan_if
role = inner
address = $lan4/24, $lan6/64
mtu = 1500
tcp-mss-clamp = auto

[port wan]
device = net_af_packet1,iface=$wan_if
role = outer
address = $wan4/24
mtu = 1500
EOF
}

# write_gw_config FILE SIDE(A|B) OUTKEY INKEY: manually keyed, two [sa] sections.
write_gw_config() {
	local f=$1 side=$2 kout=$3 kin=$4
	local wan4 rwan4 spi_out spi_in out_name in_name rem4 rem6 loc4 loc6
	if [ "$side" = A ]; then
		wan4=$GA_WAN4 rwan4=$GB_WAN4
		spi_out=$SPI_AB spi_in=$SPI_BA out_name=a-to-b in_name=b-to-a
		rem4=$SITE_B4 rem6=$SITE_B6 loc4=$SITE_A4 loc6=$SITE_A6
	else
		wan4=$GB_WAN4 rwan4=$GA_WAN4
		spi_out=$SPI_BA spi_in=$SPI_AB out_name=b-to-a in_name=a-to-b
		rem4=$SITE_A4 rem6=$SITE_A6 loc4=$SITE_B4 loc6=$SITE_B6
	fi
	cat >"$f" <<EOF
; hipgw gateway $side of the system-test topology, generated by tests/system/topology.sh.
; Keys are fresh random bytes of this run.
[gateway]
workers = 1
idle = adaptive

$(port_sections "$side")

[sa $out_name]
direction = out
spi = $spi_out
suite = aes128-gcm16
key = 0x$kout
local = $wan4
remote = $rwan4
prefixes = $rem4, $rem6
state = $WORK/gw$side-$out_name.seq

[sa $in_name]
direction = in
spi = $spi_in
suite = aes128-gcm16
key = 0x$kin
local = $wan4
remote = $rwan4
prefixes = $rem4, $rem6
local-prefixes = $loc4, $loc6
replay-window = 1024
EOF
}

write_configs() {
	local k_ab k_ba
	k_ab=$(randhex 20)   # AES-128 key + 4-byte salt (RFC 4106)
	k_ba=$(randhex 20)
	write_gw_config "$WORK/gwA.ini" A "$k_ab" "$k_ba"
	write_gw_config "$WORK/gwB.ini" B "$k_ba" "$k_ab"
	chmod 600 "$WORK/gwA.ini" "$WORK/gwB.ini"
}

# ---------------------------------------------------------------- HIP keying

# Host Identity algorithm and puzzle difficulty of the HIP-keyed runs.
HGW_HIP_ALGO=${HGW_HIP_ALGO:-ecdsa-p256}
HGW_PUZZLE_K=${HGW_PUZZLE_K:-10}
# HGW_ESP_TRANSFORMS (unset: the gateways' default list) sets esp-transforms of
# both HIP configs, e.g. aes128-cbc-sha256 to try --keylog's CBC lines with tshark.
# [peer] names: gwA's config calls its peer gwB and the other way round; the
# stats JSON's hip.peers object uses these names.
HIP_PEER_OF_A=gwB
HIP_PEER_OF_B=gwA
HIP_REPORT=$HGW_REPO/tests/system/hip_report.py

# hip_keygen A|B: a fresh Host Identity for gateway SIDE in $WORK/gwSIDE.pem
# (hipgw keygen); sets HIT_A / HIT_B. Counts its checks: the
# key is written with mode 0600, keygen prints a HIT, `hipgw hit` agrees.
hip_keygen() {
	local side=$1 key out hit hit2 mode
	key="$WORK/gw$side.pem"
	rm -f "$key"
	if ! out=$("$HIPGW" keygen --algo "$HGW_HIP_ALGO" --out "$key" 2>&1); then
		fail "hipgw keygen --algo $HGW_HIP_ALGO --out gw$side.pem"
		log "  $out"
		return 1
	fi
	hit=$(awk '$1 == "HIT" { print $2; exit }' <<<"$out")
	mode=$(stat -c %a "$key" 2>/dev/null || echo none)
	hit2=$("$HIPGW" hit "$key" 2>&1 | awk 'NF { print $NF; exit }') || true
	log "  gw$side: Host Identity $key ($HGW_HIP_ALGO), HIT $hit"
	check "hipgw keygen gw$side: HIT printed, key file mode 600 ($mode)" \
		test -n "$hit" -a "$mode" = 600
	check "hipgw hit gw$side.pem gives the HIT keygen printed ($hit2)" test -n "$hit" -a "$hit2" = "$hit"
	printf -v "HIT_$side" '%s' "$hit"
	[ -n "$hit" ]
}

# write_hip_gw_config FILE SIDE(A|B): keyed by HIP, one [peer] (the other
# gateway: its HIT, its WAN address as locator, its site as prefixes), no [sa].
write_hip_gw_config() {
	local f=$1 side=$2 wan4 rwan4 rem4 rem6 peer peer_hit
	if [ "$side" = A ]; then
		wan4=$GA_WAN4 rwan4=$GB_WAN4 rem4=$SITE_B4 rem6=$SITE_B6 peer=$HIP_PEER_OF_A peer_hit=$HIT_B
	else
		wan4=$GB_WAN4 rwan4=$GA_WAN4 rem4=$SITE_A4 rem6=$SITE_A6 peer=$HIP_PEER_OF_B peer_hit=$HIT_A
	fi
	cat >"$f" <<EOF
; hipgw gateway $side of the system-test topology, keyed by HIP, generated by
; tests/system/topology.sh. Its Host Identity is fresh (hipgw keygen) every run.
[gateway]
workers = 1
idle = adaptive
hi = $WORK/gw$side.pem
puzzle-k = $HGW_PUZZLE_K
sa-lifetime = ${HGW_SA_LIFETIME:-3600s, 1GiB}
${HGW_ESP_TRANSFORMS:+esp-transforms = $HGW_ESP_TRANSFORMS}

$(port_sections "$side")

[peer $peer]
hit = $peer_hit
locator = $rwan4
local = $wan4
prefixes = $rem4, $rem6
EOF
}

# write_hip_configs: keys for both gateways, then $WORK/gwA-hip.ini and
# gwB-hip.ini, each with the other's HIT (start them with GW_TAG=-hip).
write_hip_configs() {
	hip_keygen A || return 1
	hip_keygen B || return 1
	write_hip_gw_config "$WORK/gwA-hip.ini" A
	write_hip_gw_config "$WORK/gwB-hip.ini" B
	chmod 600 "$WORK/gwA-hip.ini" "$WORK/gwB-hip.ini"
}

# hip_check_configs: --check-config on both HIP configs, counted.
hip_check_configs() {
	local s out
	for s in A B; do
		if out=$("$HIPGW" --check-config "$WORK/gw$s-hip.ini" 2>&1); then
			pass "hipgw --check-config gw$s-hip.ini: ${out##*: }"
		else
			fail "hipgw --check-config gw$s-hip.ini"
			log "  $out"
		fi
	done
}

# ---------------------------------------------------------------- gateways

eal_mem_args() {
	local mem=${HGW_MEM:-512} free=0
	if [ "${HGW_NO_HUGE:-0}" != 1 ] && grep -q hugetlbfs /proc/mounts; then
		free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
		if [ "${free:-0}" -ge $((mem / 2 + 16)) ]; then
			echo "--in-memory -m $mem"
			return
		fi
		warn "only ${free:-0} free 2 MiB hugepages: running DPDK with --no-huge"
	fi
	# --in-memory cannot go with --no-huge in DPDK 22.11 (--no-huge means legacy
	# memory, which --in-memory refuses): the --file-prefix keeps runs apart
	echo "--no-huge -m $mem"
}

# Which files gw_start uses: config $WORK/gwX$GW_CONF.ini, log gwX$GW_RUN.log,
# stats statsX$GW_RUN.json (both empty: gwA.ini, gwA.log, statsA.json); with
# GW_KEYLOG=1 also --keylog $WORK/keylogX$GW_RUN.txt (the SAs' ESP keys);
# HGW_GW_EXTRA: more hipgw options (after --), e.g. --slow-path.
GW_CONF=
GW_RUN=
GW_KEYLOG=

# gw_start SIDE: start hipgw gwSIDE (A, B, ...) in its namespace $NS_G<SIDE>,
# in the background; its --lcores are $HGW_LCORES_<SIDE> if set (gwA's
# default 0@0,1@1, the others' 0@1,1@0: control of one on the CPU of the
# other's worker).
gw_start() {
	local side=$1 nsv="NS_G$1" lcv="HGW_LCORES_$1" ns lcores keylog=()
	ns=${!nsv}
	if [ "$side" = A ]; then lcores='0@0,1@1'; else lcores='0@1,1@0'; fi
	lcores=${!lcv:-$lcores}
	if [ -n "$GW_KEYLOG" ]; then
		rm -f "$WORK/keylog$side$GW_RUN.txt"
		keylog=(--keylog "$WORK/keylog$side$GW_RUN.txt")
	fi
	# shellcheck disable=SC2046,SC2086
	ip netns exec "$ns" "$HIPGW" --no-pci --file-prefix "${P}gw$side" --lcores "$lcores" \
		$(eal_mem_args) ${HGW_EAL_EXTRA:-} -- \
		--config "$WORK/gw$side$GW_CONF.ini" --stats-json "$WORK/stats$side$GW_RUN.json" "${keylog[@]}" \
		${HGW_GW_EXTRA:-} \
		</dev/null >"$WORK/gw$side$GW_RUN.log" 2>&1 &
	eval "GW_PID_$side=$!"
	HGW_GW_PIDS+=("$!")
}

gw_alive() { local v="GW_PID_$1"; [ -n "${!v:-}" ] && kill -0 "${!v}" 2>/dev/null; }

# gw_stop A|B: SIGTERM, wait up to 15 s, record the exit code in GW_RC_A/B.
gw_stop() {
	local side=$1 v="GW_PID_$1" pid i rc
	pid=${!v:-}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 150; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		warn "gw$side did not stop within 15 s of SIGTERM: killing it"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rc=0; wait "$pid" 2>/dev/null || rc=$?
	forget_pid "$pid"
	eval "GW_RC_$side=$rc"
	eval "GW_PID_$side="
}

gw_log_tail() {
	local side=$1
	echo "---- last lines of gw$side$GW_RUN.log ----"
	tail -n "${2:-25}" "$WORK/gw$side$GW_RUN.log" 2>/dev/null || true
	echo "----"
}

# gw_wait_running A|B TIMEOUT_S: until the gateway logs "hipgw running" (ports
# up, workers started); fails when it exits first or the time runs out.
gw_wait_running() {
	local side=$1 end
	end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		grep -q 'hipgw running' "$WORK/gw$side$GW_RUN.log" 2>/dev/null && return 0
		gw_alive "$side" || return 1
		sleep 0.05
	done
	return 1
}

# wait_path TIMEOUT_S: until hostA reaches hostB over IPv4 and IPv6.
wait_path() {
	local t=$1 end
	end=$((SECONDS + t))
	while [ $SECONDS -lt $end ]; do
		if [ -n "${GW_PID_A:-}" ] && { ! gw_alive A || ! gw_alive B; }; then
			return 1
		fi
		if nsx "$NS_HA" ping -c1 -W1 -q "$HB4" >/dev/null 2>&1 &&
			nsx "$NS_HA" ping -6 -c1 -W1 -q "$HB6" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.3
	done
	return 1
}

# ---------------------------------------------------------------- measurements

# ping_run FAMILY(4|6) COUNT OUTVAR [SIZE]: COUNT pings 0.2 s apart from $NS_HA
# to $HB4 or $HB6, SIZE bytes of ICMP payload (ping -s; default ping's 56);
# sets OUTVAR_loss (percent), OUTVAR_rtt (min/avg/max ms).
ping_run() {
	local fam=$1 count=$2 var=$3 size=${4:-56} dst out loss rtt
	if [ "$fam" = 4 ]; then dst=$HB4; else dst=$HB6; fi
	out=$(nsx "$NS_HA" ping "-$fam" -c "$count" -i 0.2 -W 2 -s "$size" -p "$MARKER_HEX" "$dst" 2>&1) || true
	loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
	rtt=$(sed -n 's/^rtt min\/avg\/max\/mdev = \([0-9.]*\)\/\([0-9.]*\)\/\([0-9.]*\)\/.*/\1\/\2\/\3/p' <<<"$out")
	printf -v "${var}_loss" '%s' "${loss:-100}"
	printf -v "${var}_rtt" '%s' "${rtt:--}"
	log "  ping IPv$fam $NS_HA -> $dst, -s $size: $count sent, loss ${loss:-100}%, rtt min/avg/max ${rtt:--} ms"
}

# wait_listen NS PORT TRIES: until a TCP socket listens on PORT in NS, TRIES
# looks 0.1 s apart.
wait_listen() {
	local i
	for ((i = 0; i < $3; i++)); do
		nsx "$1" ss -ltn 2>/dev/null | grep -q ":$2 " && return 0
		sleep 0.1
	done
	return 1
}

iperf_server_start() {
	ip netns exec "$NS_HB" iperf3 -s -p 5201 </dev/null >"$WORK/iperf3-server.log" 2>&1 &
	HGW_BG_PIDS+=("$!")
	IPERF_SRV_PID=$!
	wait_listen "$NS_HB" 5201 50
}

iperf_server_stop() {
	if [ -n "${IPERF_SRV_PID:-}" ]; then kill -TERM "$IPERF_SRV_PID" 2>/dev/null || true; fi
	wait "${IPERF_SRV_PID:-0}" 2>/dev/null || true
	forget_pid "${IPERF_SRV_PID:-}"
	IPERF_SRV_PID=
}

# iperf_run tcp|udp SECONDS OUTVAR [FAMILY [RATE]]: sets OUTVAR_bps (receiver
# side, bits/s), OUTVAR_gbps, and for UDP OUTVAR_loss (percent). RATE (iperf3
# -b, for instance 50M) limits the sending rate; default unlimited.
iperf_run() {
	local proto=$1 secs=$2 var=$3 fam=${4:-4} rate=${5:-} dst json args=()
	if [ "$fam" = 4 ]; then dst=$HB4; else dst=$HB6; fi
	json="$WORK/iperf3-$var.json"
	# UDP: unlimited rate, datagrams that fit the gateways' clamped MSS
	if [ "$proto" = udp ]; then args=(-u -b "${rate:-0}" -l 1360); elif [ -n "$rate" ]; then args=(-b "$rate"); fi
	timeout $((secs + 20)) ip netns exec "$NS_HA" iperf3 -c "$dst" -p 5201 -t "$secs" \
		--connect-timeout 3000 -J "${args[@]}" </dev/null >"$json" 2>"$json.stderr" || true
	local r
	r=$("$PY" - "$json" "$proto" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("0 0 100"); sys.exit(0)
end = d.get("end", {})
if sys.argv[2] == "tcp":
    s = end.get("sum_received", {})
    print("%d %d 0" % (s.get("bits_per_second", 0), s.get("bytes", 0)))
else:
    s = end.get("sum_received") or end.get("sum", {})
    loss = s.get("lost_percent", end.get("sum", {}).get("lost_percent", 100))
    print("%d %d %.2f" % (s.get("bits_per_second", 0), s.get("bytes", 0), loss))
EOF
)
	local bps bytes loss
	read -r bps bytes loss <<<"$r"
	printf -v "${var}_bps" '%s' "$bps"
	printf -v "${var}_bytes" '%s' "$bytes"
	printf -v "${var}_loss" '%s' "$loss"
	printf -v "${var}_gbps" '%s' "$(awk -v b="$bps" 'BEGIN {printf "%.3f", b / 1e9}')"
	if [ "$proto" = udp ]; then
		log "  iperf3 UDP IPv$fam ${secs}s hostA -> hostB: $(awk -v b="$bps" 'BEGIN {printf "%.3f", b/1e9}') Gbit/s received, loss $loss%"
	else
		log "  iperf3 TCP IPv$fam ${secs}s hostA -> hostB: $(awk -v b="$bps" 'BEGIN {printf "%.3f", b/1e9}') Gbit/s received ($bytes bytes)"
	fi
	[ "${bytes:-0}" -gt 0 ]
}

# ---------------------------------------------------------------- WAN capture

# The WAN is captured at both ends, each seeing what arrives from the wire: a
# DPDK af_packet port sends with PACKET_QDISC_BYPASS, so a capture on the
# sending veth does not see its own gateway's transmissions. cap_stop merges the
# two into $CAP_FILE. cap_start [SNAPLEN]: default 256, which keeps outer + ESP
# headers and the first 200 bytes of ciphertext, where inner headers and the
# ping marker would be if they leaked; HIP runs capture whole frames (0), since
# tshark must read every HIP parameter.
cap_start() {
	local snap=${1:-256}
	CAP_FILE="$WORK/wan$GW_RUN.pcap"
	rm -f "$CAP_FILE" "$WORK/wan-gwA$GW_RUN.pcap" "$WORK/wan-gwB$GW_RUN.pcap"
	ip netns exec "$NS_GA" tshark -q -n -i "$IF_GA_WAN" -s "$snap" -F pcap -w "$WORK/wan-gwA$GW_RUN.pcap" \
		</dev/null >"$WORK/tshark-gwA$GW_RUN.log" 2>&1 &
	CAP_PIDS=("$!")
	ip netns exec "$NS_GB" tshark -q -n -i "$IF_GB_WAN" -s "$snap" -F pcap -w "$WORK/wan-gwB$GW_RUN.pcap" \
		</dev/null >"$WORK/tshark-gwB$GW_RUN.log" 2>&1 &
	CAP_PIDS+=("$!")
	HGW_BG_PIDS+=("${CAP_PIDS[@]}")
	local i
	for ((i = 0; i < 100; i++)); do
		if grep -q "Capturing on" "$WORK/tshark-gwA$GW_RUN.log" 2>/dev/null &&
			grep -q "Capturing on" "$WORK/tshark-gwB$GW_RUN.log" 2>/dev/null; then
			sleep 0.2
			return 0
		fi
		sleep 0.1
	done
	warn "tshark did not report 'Capturing on' in 10 s"
	return 1
}

cap_stop() {
	[ "${#CAP_PIDS[@]}" -gt 0 ] || return 0
	local pid i
	for pid in "${CAP_PIDS[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
	for pid in "${CAP_PIDS[@]}"; do
		for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		forget_pid "$pid"
	done
	CAP_PIDS=()
	mergecap -F pcap -w "$CAP_FILE" "$WORK/wan-gwA$GW_RUN.pcap" "$WORK/wan-gwB$GW_RUN.pcap" 2>/dev/null ||
		cat "$WORK/wan-gwA$GW_RUN.pcap" >"$CAP_FILE"
}

# Bytes that must never appear in a WAN frame: the inner address pairs as they
# sit in an IPv4 header (source then destination), the inner IPv6 addresses,
# and the ping payload marker.
cleartext_patterns() {
	"$PY" - "$HA4" "$HB4" "$HA6" "$HB6" "$MARKER_HEX" <<'EOF'
import ipaddress, sys
a4, b4, a6, b6, marker = sys.argv[1:]
A4, B4 = ipaddress.ip_address(a4).packed, ipaddress.ip_address(b4).packed
pats = {
    "IPv4 %s->%s" % (a4, b4): A4 + B4,
    "IPv4 %s->%s" % (b4, a4): B4 + A4,
    "IPv6 %s" % a6: ipaddress.ip_address(a6).packed,
    "IPv6 %s" % b6: ipaddress.ip_address(b6).packed,
    "ping payload marker": bytes.fromhex(marker)[:12],
}
for k, v in pats.items():
    print(v.hex(), k)
EOF
}

# tsh PCAP ARGS...: tshark -r that never fails the caller (a capture cut short
# by the kill still reads).
tsh() { local f=$1; shift; tshark -n -r "$f" "$@" 2>/dev/null || true; }

# pcap_hits PCAP: how many of the cleartext patterns occur in the raw bytes.
pcap_hits() {
	"$PY" - "$1" "$2" <<'EOF2' || echo 99
import sys
data = open(sys.argv[1], "rb").read()
bad = 0
for line in sys.argv[2].strip().splitlines():
    hx, name = line.split(" ", 1)
    n = data.count(bytes.fromhex(hx))
    if n:
        bad += 1
        print("  cleartext: %s found %d times" % (name, n), file=sys.stderr)
print(bad)
EOF2
}

# wan_check PCAP: checks on a capture of the WAN veth; counts into PASS/FAIL.
wan_check() {
	local pcap=$1 total esp other spis bad_spi outer hits
	local notallowed='not (esp or arp or (icmpv6.type >= 133 and icmpv6.type <= 137))'
	if [ ! -s "$pcap" ]; then fail "WAN capture exists"; return 0; fi
	total=$(tsh "$pcap" | wc -l)
	esp=$(tsh "$pcap" -Y esp | wc -l)
	other=$(tsh "$pcap" -Y "$notallowed" | wc -l)
	log "  WAN capture: $total frames, $esp ESP, $other other than ESP/ARP/ND"
	if [ "$other" -gt 0 ]; then
		log "  frames other than ESP/ARP/ND (first 10):"
		tsh "$pcap" -Y "$notallowed" | awk 'NR <= 10 { print "    " $0 }'
	fi
	check "WAN: ESP frames seen ($esp)" test "$esp" -gt 0
	check "WAN: only ESP, ARP and ND frames" test "$other" -eq 0
	spis=$(tsh "$pcap" -Y esp -T fields -e esp.spi | sort | uniq -c | awk '{printf "%s(%s) ", $2, $1}')
	log "  ESP SPIs on the WAN (frames): ${spis:-none}"
	# tshark prints SPIs as 0x%08x
	bad_spi=$(tsh "$pcap" -Y esp -T fields -e esp.spi | tr 'A-F' 'a-f' | sort -u |
		awk -v a="$(printf '0x%08x' "$SPI_AB")" -v b="$(printf '0x%08x' "$SPI_BA")" \
			'$1 != a && $1 != b { n++ } END { print n + 0 }')
	check "WAN: ESP carries only the configured SPIs $SPI_AB and $SPI_BA" test "$bad_spi" -eq 0
	check "WAN: ESP seen with both SPIs" test "$(tsh "$pcap" -Y "esp.spi == $SPI_AB" | wc -l)" -gt 0 -a \
		"$(tsh "$pcap" -Y "esp.spi == $SPI_BA" | wc -l)" -gt 0
	outer=$(tsh "$pcap" -Y esp -T fields -e ip.src -e ip.dst | sort -u |
		awk -v a="$GA_WAN4" -v b="$GB_WAN4" '!(($1 == a && $2 == b) || ($1 == b && $2 == a)) { n++ } END { print n + 0 }')
	check "WAN: ESP only between $GA_WAN4 and $GB_WAN4" test "$outer" -eq 0
	hits=$(pcap_hits "$pcap" "$(cleartext_patterns)")
	check "WAN: no inner address or ping payload marker in clear (raw pcap bytes)" test "${hits:-1}" -eq 0
}

# cleartext_hits PCAP: the same byte search, for showing that it finds the
# cleartext in a capture of plain routing.
cleartext_hits() { pcap_hits "$1" "$(cleartext_patterns)" 2>/dev/null; }

# ---------------------------------------------------------------- counters

# tel SIDE CMD: one telemetry command to hipgw SIDE (A, B, M, ...); the reply JSON.
tel() { echo "$2" | timeout 5 "$PY" /usr/bin/dpdk-telemetry.py -f "${P}gw$1" 2>/dev/null; }

telemetry_stats() { tel "$1" /hipgw/stats; }

# stats_summary FILE [sa-may-end]: print the interesting part of a stats JSON
# (also accepts the telemetry reply {"/hipgw/stats": {...}}); fails when the
# JSON is not there or lacks a drop reason, ports or (unless sa-may-end: HIP
# SAs that ended with their association before the file was written) SAs.
stats_summary() {
	"$PY" - "$1" "${2:-}" <<'EOF'
import json, sys
REASONS = ["no_sa", "replay", "auth", "pad", "dummy", "malformed", "spoof", "ttl", "mtu",
           "ecn", "seq_overflow", "no_route", "no_neighbor", "ring_full", "no_mbuf", "policy",
           "etherip_version", "etherip_reserved", "l2_runt",
           "l2_link_local", "l2_local", "l2_group_source", "l2_flood_rate",
           "l2_too_long", "frag_no_mbuf", "mbox_no_flow", "mbox_frag", "mbox_hip",
           "udp_bad", "udp_cksum"]
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("    no stats: %s" % e); sys.exit(1)
if "/hipgw/stats" in d:
    d = d["/hipgw/stats"]
ok = True
for name, p in sorted(d.get("ports", {}).items()):
    print("    port %-5s mac %s rx %s tx %s imissed %s rx_nombuf %s oerrors %s" % (
        name, p.get("mac"), p.get("rx"), p.get("tx"), p.get("imissed"), p.get("rx_nombuf"), p.get("oerrors")))
for name, s in sorted(d.get("sa", {}).items()):
    spi = s.get("spi")
    spi = "0x%x" % spi if isinstance(spi, int) else spi
    print("    sa   %-7s spi %s packets %s bytes %s" % (name, spi, s.get("packets"), s.get("bytes")))
drops = d.get("drops", {})
missing = [r for r in REASONS if r not in drops]
nz = ", ".join("%s %s" % (k, v) for k, v in drops.items() if v)
print("    drops: %s" % (nz or "none"))
if missing:
    print("    drop reasons missing: %s" % ", ".join(missing)); ok = False
if not d.get("ports"):
    print("    ports missing"); ok = False
if not d.get("sa") and sys.argv[2] == "sa-may-end":
    print("    sa: none left (the HIP associations ended before the stats were written)")
elif not d.get("sa"):
    print("    sa missing"); ok = False
sys.exit(0 if ok else 1)
EOF
}

# sa_packets FILE NAME: packets counted on an SA in a stats JSON (0 if absent).
sa_packets() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(int(d["sa"][sys.argv[2]]["packets"]))
except Exception:
    print(0)
EOF
}

# ---------------------------------------------------------------- HIP checks

hip_get() { "$PY" "$HIP_REPORT" get "$1" "$2" 2>/dev/null; }

isnum() { [[ ${1:-} =~ ^[0-9]+$ ]]; }

# hip_peer_name A|B: the [peer] name in that gateway's config.
hip_peer_name() { if [ "$1" = A ]; then echo "$HIP_PEER_OF_A"; else echo "$HIP_PEER_OF_B"; fi; }

# hip_stats_checks: after gw_stop A and B of run $GW_RUN: exit codes, the
# counters with the hip object, a completed Base Exchange on both sides.
hip_stats_checks() {
	local s rc_var peer ok failed
	for s in A B; do
		rc_var="GW_RC_$s"
		peer=$(hip_peer_name "$s")
		check "gw$s exits 0 on SIGTERM (exit ${!rc_var:-none})" test "${!rc_var:-1}" = 0
		log "  gw$s --stats-json $WORK/stats$s$GW_RUN.json:"
		check "gw$s wrote its stats JSON with every drop reason, ports and hip.peers.$peer" \
			"$PY" "$HIP_REPORT" summary "$WORK/stats$s$GW_RUN.json" --peer "$peer"
		ok=$(hip_get "$WORK/stats$s$GW_RUN.json" "hip.peers.$peer.bex_ok" || echo none)
		check "gw$s: hip.peers.$peer.bex_ok >= 1 ($ok)" eval 'isnum "$ok" && [ "$ok" -ge 1 ]'
		failed=$(hip_get "$WORK/stats$s$GW_RUN.json" hip.bex_failed || echo none)
		check "gw$s: hip.bex_failed = 0 ($failed)" test "$failed" = 0
	done
}

# hip_bex_log: the gateways' "BEX done" log lines of run $GW_RUN.
hip_bex_log() {
	local s
	for s in A B; do
		grep -h 'BEX done' "$WORK/gw$s$GW_RUN.log" 2>/dev/null | sed "s/^/  gw$s log: /" || true
	done
}

# hip_bex_times: "i1_to_r1 r1_to_i2 i2_to_r2 r2_to_esp tbe" (ms) of run
# $GW_RUN from both stats JSONs (gwA initiated); fails when any is missing.
hip_bex_times() {
	"$PY" "$HIP_REPORT" bex --init "$WORK/statsA$GW_RUN.json" --init-peer "$HIP_PEER_OF_A" \
		--resp "$WORK/statsB$GW_RUN.json" --resp-peer "$HIP_PEER_OF_B"
}

# report_lines OUTPUT WHAT: count hip_report.py's PASS/FAIL lines, log INFO.
report_lines() {
	local line st msg
	while IFS= read -r line; do
		st=${line%% *}; msg=${line#* }
		case $st in
			PASS) pass "$msg" ;;
			FAIL) fail "$msg" ;;
			INFO) log "  $msg" ;;
			*) log "  $line" ;;
		esac
	done <<<"$1"
	if ! grep -q '^PASS\|^FAIL' <<<"$1" || grep -q '^Traceback' <<<"$1"; then
		fail "$2 ran to its end"
	fi
}

# hip_keylog_check PCAP: the --keylog files of run $GW_RUN: mode 0600, the
# 8 esp_sa fields a line, and tshark decrypting the capture's ESP with them
# (hip_report.py decrypt).
hip_keylog_check() {
	local pcap=$1 s f mode out
	for s in A B; do
		f="$WORK/keylog$s$GW_RUN.txt"
		mode=$(stat -c %a "$f" 2>/dev/null || echo none)
		check "gw$s --keylog file exists with mode 0600 ($mode)" test "$mode" = 600
	done
	out=$("$PY" "$HIP_REPORT" decrypt "$pcap" --keylog-a "$WORK/keylogA$GW_RUN.txt" \
		--keylog-b "$WORK/keylogB$GW_RUN.txt" --wan-a "$GA_WAN4" --wan-b "$GB_WAN4" \
		--inner-a "$HA4" --inner-b "$HB4" --marker "$MARKER_HEX" 2>&1) || true
	report_lines "$out" "hip_report.py decrypt"
}

# hip_wan_check PCAP: the WAN checks of a HIP-keyed run (hip_report.py wan:
# only HIP, ESP, ARP and ND; I1, R1, I2 and R2 between the gateways' HITs;
# whole packets, good checksums, no malformed HIP; ESP SPIs are those the ESP_INFO
# parameters announced and each side's in_spi, from its telemetry snapshot
# telemetryX$GW_RUN.json or else its stats JSON), then the cleartext search.
# hip_wan_check PCAP close: also that the association ended with CLOSE, CLOSE_ACK.
hip_wan_check() {
	local pcap=$1 out line st msg hits close=()
	if [ ! -s "$pcap" ]; then fail "WAN capture exists"; return 0; fi
	[ "${2:-}" = close ] && close=(--expect-close)
	out=$("$PY" "$HIP_REPORT" wan "$pcap" "${close[@]}" --wan-a "$GA_WAN4" --wan-b "$GB_WAN4" \
		--hit-a "${HIT_A:-::}" --hit-b "${HIT_B:-::}" --peer-a "$HIP_PEER_OF_A" --peer-b "$HIP_PEER_OF_B" \
		--stats-a "$WORK/telemetryA$GW_RUN.json" --stats-a "$WORK/statsA$GW_RUN.json" \
		--stats-b "$WORK/telemetryB$GW_RUN.json" --stats-b "$WORK/statsB$GW_RUN.json" 2>&1) || true
	report_lines "$out" "hip_report.py wan"
	hits=$(pcap_hits "$pcap" "$(cleartext_patterns)")
	check "WAN: no inner address or ping payload marker in clear (raw pcap bytes)" test "${hits:-1}" -eq 0
}
