# shellcheck shell=bash
# Measurement helpers of the locator tests and demo (test_mobility.sh,
# demo_mob.sh): waiting, JSON fields, a peer's state, pings lost and the
# outage around an event, iperf3 throughput before and after it. Source it
# after topology.sh and topology_mob.sh; nothing runs at source time.

# wait_ok S CMD...: CMD until it succeeds, S seconds at most (not a timing check).
wait_ok() {
	local s=$1; shift
	for _ in $(seq $((s * 5))); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# jget FILE PATH: a value of the JSON FILE by a dotted PATH ("" when absent).
jget() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    for k in sys.argv[2].split("."):
        v = v[k]
    print(v if not isinstance(v, (dict, list)) else json.dumps(v))
except Exception:
    print("")
PY
}

# peer_json SIDE: gateway SIDE's /hipgw/hip_peer of its peer into $WORK/peerSIDE.json.
peer_json() {
	local side=$1 peer=$HIP_PEER_OF_A
	[ "$side" = A ] || peer=$HIP_PEER_OF_B
	tel "$side" "/hipgw/hip_peer,$peer" >"$WORK/peer$side.json" || true
}

# ping_gaps FILE T0 [WINDOW_S]: from ping -D -i 0.01 output, "lost=N
# outage_ms=M" for the pings sent from T0 (s since the epoch) to T0 +
# WINDOW_S (default 3 s): those with no reply, and the longest time without
# a reply in that window (from the last reply before it to the first one
# after each gap). Pings elsewhere in the run are not counted: on 2 shared
# CPUs iperf3 alone delays some. "lost=all" when no ping had a reply.
ping_gaps() {
	"$PY" - "$1" "$2" "${3:-3}" <<'PY'
import re, sys
t0, win = float(sys.argv[2]), float(sys.argv[3])
rep = {}
for line in open(sys.argv[1]):
    m = re.match(r"\[(\d+\.\d+)\].*icmp_seq=(\d+)", line)
    if m:
        rep[int(m.group(2))] = float(m.group(1))
if not rep:
    print("lost=all outage_ms=none")
    sys.exit(0)
first = min(rep)
sent = lambda s: rep[first] + (s - first) * 0.01   # ping -i 0.01: one every 10 ms
window = [s for s in range(1, max(rep) + 1) if t0 <= sent(s) < t0 + win]
lost = sum(1 for s in window if s not in rep)
ts = sorted(t for s, t in rep.items() if t0 - 0.5 <= t < t0 + win + 0.5)
gap = max((b - a for a, b in zip(ts, ts[1:])), default=0.0)
print("lost=%d outage_ms=%.0f" % (lost, gap * 1000))
PY
}

# iperf_rates FILE T_START T_BEFORE T_AFTER: from iperf3 -J -i 0.5 output of
# a client started at T_START (s since the epoch), "before=X after=Y" in
# Mbit/s: the mean rate of the intervals that ended by T_BEFORE and of those
# that began from T_AFTER ("none" where no interval falls).
iperf_rates() {
	"$PY" - "$@" <<'PY'
import json, sys
t0, tb, ta = (float(x) for x in sys.argv[2:5])
try:
    iv = [i["sum"] for i in json.load(open(sys.argv[1]))["intervals"]]
except Exception:
    iv = []
def mean(xs):
    b = sum(i["bytes"] for i in xs); s = sum(i["seconds"] for i in xs)
    return "%.0f" % (b * 8 / s / 1e6) if s > 0 else "none"
print("before=%s after=%s" % (mean([i for i in iv if t0 + i["end"] <= tb]),
                             mean([i for i in iv if t0 + i["start"] >= ta])))
PY
}
