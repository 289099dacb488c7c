# shellcheck shell=bash
# Multihoming (RFC 8047) on the locator topology (topology_mob.sh): gwA with
# two uplinks, wan (wan1, preferred) and wan2, towards gwB. Shared by
# test_multihome.sh and demo_mob.sh; source after topology.sh,
# topology_mob.sh and mob_measure.sh.

MH_PROBE_MS=${MH_PROBE_MS:-200}       # gwA's multihome-probe-interval
MH_FAILBACK_MS=${MH_FAILBACK_MS:-2000}

# mh_configs: mob_configs, then gwA's second uplink wan2 (uplink-preference
# 2) beside wan (1), probes every MH_PROBE_MS ms.
mh_configs() {
	MOB_GA_DHCP=0 MOB_GW_EXTRA="multihome-probe-interval = $MH_PROBE_MS
multihome-failback = $MH_FAILBACK_MS" mob_configs || return 1
	sed -i 's/^\[port wan\]$/[port wan]\nuplink-preference = 1/' "$WORK/gwA.ini"
	cat >>"$WORK/gwA.ini" <<CONF

[port wan2]
device = net_af_packet2,iface=$IF_GA_WAN2
role = outer
address = $MOB_GA_WAN2/24
gateway = $MOB_A2_R
uplink-preference = 2
CONF
}

# mh_active: the port of gwA's active path towards gwB ("" when none).
mh_active() {
	peer_json A
	"$PY" - "$WORK/peerA.json" <<'PY'
import json, sys
try:
    paths = json.load(open(sys.argv[1]))["/hipgw/hip_peer"]["multihome"]["paths"]
except Exception:
    paths = {}
for v in paths.values():
    w = v.split()
    if w[-1] == "active":
        print(w[3])
PY
}

# mh_active_is PORT: gwA's SAs towards gwB are on PORT's path.
mh_active_is() { [ "$(mh_active)" = "$1" ]; }

# mh_both_up: both of gwA's paths answered probes.
mh_both_up() {
	peer_json A
	[ "$(grep -o ' up rtt' "$WORK/peerA.json" | wc -l)" -ge 2 ]
}

# mh_counter NAME: gwA's multihome counter NAME for gwB (from the last peer_json A).
mh_counter() { jget "$WORK/peerA.json" "/hipgw/hip_peer.multihome.$1"; }

# mh_port_pkts PORT: "RX TX", the packets gwA's port PORT received and sent.
mh_port_pkts() {
	tel A /hipgw/stats >"$WORK/statsA.json" || true
	echo "$(jget "$WORK/statsA.json" "/hipgw/stats.ports.$1.rx") $(jget "$WORK/statsA.json" "/hipgw/stats.ports.$1.tx")"
}
