# SPDX-License-Identifier: BSD-3-Clause
"""The HIP counters of the --stats-json file and of DPDK telemetry are one
list (lib/keying/gw_hip_counters.h; docs/counters.md, "The hip object"):
both outputs of the real hipgw have the same names, and the same counts.

hipgw runs on net_af_packet over a veth pair between two network namespaces
made and removed here (hgcounters-t<pid>-gw / -ini), the responder of a
Base Exchange with the Python initiator of hipinit.py (as in
test_i2_syntax.py): an I1 from a HIT that is no [peer]'s (dropped as
unknown_peer), the I1 and R1 of the [peer], an I2 with a wrong HIP_MAC
(NOTIFY, dropped as mac), the correct I2 and its R2. Then, while it runs,
telemetry /hipgw/hip, /hipgw/hip_peer,PEER and /hipgw/stats; after it
stopped, the file's "hip" object:

- the same set of names in the file's "hip" (without "peers") and in
  /hipgw/hip and /hipgw/stats's "hip" (without "peers"), nested objects
  ("drops") alike, among them every name either output had before;
- the same per-peer names in the file's hip.peers.PEER and in
  /hipgw/hip_peer,PEER and /hipgw/stats's hip.peers.PEER but for the one
  documented unit difference: the file's bex_ms.STEP (ms, null when this
  side did not time the step) is telemetry's STEP_us (us, 0 then), and both
  give the same time;
- the counts this exchange fixes, equal in every output; all other counters
  no lower in the file (written at exit) than in telemetry.
Behaviour only: no timing is asserted."""

import json
import os
import time

import pytest

import gwlib
import hipinit
from hipinit import HIP_MAC_FAILED, hipref

NS = f"hgcounters-t{os.getpid()}"
GW_IF, INI_IF = "cwan-gw", "cwan-ini"
GW4, INI4 = "192.0.2.1", "192.0.2.2"
PEER = "ini"
# The steps of a Base Exchange, as the file's bex_ms names them (docs/counters.md)
BEX_STEPS = ("i1_to_r1", "r1_to_i2", "i2_to_r2", "r2_to_esp", "tbe")
GAUGES = ("puzzle_k", "r1_rate")          # current values, not counts
# Names the file or telemetry had before both came from one list: none may go
HIP_NAMES_BEFORE = {
    "hit", "puzzle_k", "r1_rate", "rx", "tx", "dropped", "bex_ok", "bex_failed", "updates",
    "i1_rx", "r1_tx", "i2_rx", "r2_tx", "retransmits", "i2_dup", "notify_tx", "notify_rx",
    "unknown_spi_bex", "unknown_spi_ratelimit", "unknown_spi_ignored",
    "unknown_peer", "r1_ratelimit", "critical"} | {"drops." + d for d in (
        "malformed", "checksum", "unknown_peer", "not_for_us", "state", "critical", "puzzle",
        "r1_gen", "r1_ratelimit", "policy", "hit_mismatch", "mac", "sig", "replay", "internal")}
PEER_NAMES_BEFORE = {"bex_ok", "bex_failed", "rekeys", "in_spi", "hit_echo_tx", "hit_echo_rx",
                     "hit_echo_answered", "unknown_spi_bex"} | {s + "_us" for s in BEX_STEPS}


@pytest.fixture
def netns():
    with hipinit.responder_netns(NS, GW_IF, INI_IF, INI4) as nss:
        yield nss


def flat(obj, prefix=""):
    """{"a.b": value} of every leaf of a nested dict."""
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def file_peer_as_telemetry(peer):
    """A peer of the file with its BEX times as telemetry names and units:
    bex_ms.STEP (ms, 3 decimals, or null) becomes STEP_us (us, or 0)."""
    out = {k: v for k, v in peer.items() if k != "bex_ms"}
    assert sorted(peer["bex_ms"]) == sorted(BEX_STEPS), peer
    for step, ms in peer["bex_ms"].items():
        out[step + "_us"] = None if ms is None else ms * 1000.0
    return out


def same_time(file_us, tel_us):
    """The file's ms (3 decimals, rounded) and telemetry's us (truncated) of one step."""
    return tel_us == 0 if file_us is None else tel_us > 0 and abs(file_us - tel_us) <= 1.0


def exchange(net, ini, stranger, r_hit):
    """I1 from a stranger, then the peer's I1, I2 with a wrong HIP_MAC and the
    correct I2. The gateway answers in order: the R1 comes after the
    stranger's I1 was handled. Returns the SPI of the R2's ESP_INFO."""
    net.send(stranger.i1(r_hit))
    net.send(ini.i1(r_hit))
    r1 = ini.take_r1(hipinit.answer(net, "I1"), r_hit)
    bex = ini.plan(r1)
    net.send(ini.i2(bex, mac_ok=False))
    assert ini.take_notify(r1, hipinit.answer(net, "I2 with a wrong HIP_MAC"))[0] == HIP_MAC_FAILED
    net.send(ini.i2(bex))
    pkt = hipinit.answer(net, "correct I2")
    assert pkt[2] == hipref.R2, f"correct I2: packet type {pkt[2]}, not R2"
    return ini.take_r2(bex, pkt)[2]


def settled_hip(prefix):
    """/hipgw/hip once the R2 is counted (the gateway counts a packet after
    sending it, so the reply may come first): at most 10 s of asking."""
    for _ in range(100):
        h = gwlib.telemetry(prefix, "/hipgw/hip")
        if h.get("r2_tx") == 1 and h.get("bex_ok") == 1:
            return h
        time.sleep(0.1)
    pytest.fail(f"telemetry never counted the R2: {h}")


def test_file_and_telemetry_same_counters(netns, tmp_path):
    gw_ns, ini_ns = netns
    rkey, r_hit = gwlib.make_hi(str(tmp_path), "gw")
    ikey, i_hit = gwlib.make_hi(str(tmp_path), "ini")
    skey, _ = gwlib.make_hi(str(tmp_path), "stranger")
    ini = hipinit.Initiator(ikey, INI4, GW4)
    stranger = hipinit.Initiator(skey, INI4, GW4)
    r_hit_b = hipref.pem_hit(rkey)[0]
    cfg, stats, logf = tmp_path / "gw.ini", tmp_path / "stats.json", tmp_path / "gw.log"
    hipinit.responder_config(cfg, rkey, PEER, i_hit, GW_IF, GW4, INI4)
    prefix = f"hgcountt{os.getpid()}"
    net = hipinit.RawHip(ini_ns, INI4, GW4)
    gw = gwlib.start_gateway(gw_ns, prefix, cfg, stats, logf)
    try:
        gwlib.wait_gateway_running(gw, logf)
        gw_spi = exchange(net, ini, stranger, r_hit_b)
        t_hip = settled_hip(prefix)
        t_peer = gwlib.telemetry(prefix, "/hipgw/hip_peer," + PEER)
        t_stats = gwlib.telemetry(prefix, "/hipgw/stats")["hip"]
    finally:
        net.close()
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)
    f_hip = json.loads(stats.read_text())["hip"]

    # the names: the file's and telemetry's hip objects, without the peers
    f_names = set(flat({k: v for k, v in f_hip.items() if k != "peers"}))
    assert "peers" not in t_hip, sorted(t_hip)
    for what, t in (("/hipgw/hip", t_hip),
                    ("/hipgw/stats hip", {k: v for k, v in t_stats.items() if k != "peers"})):
        t_names = set(flat(t))
        assert f_names == t_names, "%s: only in the file %s, only in telemetry %s" % (
            what, sorted(f_names - t_names), sorted(t_names - f_names))
    assert HIP_NAMES_BEFORE <= f_names, sorted(HIP_NAMES_BEFORE - f_names)
    assert sorted(f_hip["peers"]) == [PEER] and sorted(t_stats["peers"]) == [PEER]

    # per peer: the same names, but for the BEX times' units
    f_peer = file_peer_as_telemetry(f_hip["peers"][PEER])
    assert PEER_NAMES_BEFORE <= set(f_peer), sorted(PEER_NAMES_BEFORE - set(f_peer))
    for what, t in (("/hipgw/hip_peer", t_peer), ("/hipgw/stats hip.peers", t_stats["peers"][PEER])):
        assert set(f_peer) == set(t), "%s: only in the file %s, only in telemetry %s" % (
            what, sorted(set(f_peer) - set(t)), sorted(set(t) - set(f_peer)))
        for step in BEX_STEPS:
            k = step + "_us"
            assert same_time(f_peer[k], t[k]), (what, k, f_peer[k], t[k])
    # the responder times I2->R2 (docs/counters.md): the units are compared on a real time
    assert f_peer["i2_to_r2_us"] is not None, f_hip["peers"][PEER]

    # the counts this exchange fixes, in every output
    want = {"bex_ok": 1, "bex_failed": 0, "r1_tx": 1, "r2_tx": 1, "notify_tx": 1,
            "unknown_peer": 1, "drops.unknown_peer": 1, "drops.mac": 1, "drops.sig": 0,
            "retransmits": 0, "i2_dup": 0}
    want_peer = {"bex_ok": 1, "bex_failed": 0, "in_spi": gw_spi, "rekeys": 0}
    f_flat = flat({k: v for k, v in f_hip.items() if k != "peers"})
    for what, h, p in (("file", f_flat, f_peer), ("/hipgw/hip", flat(t_hip), t_peer),
                       ("/hipgw/stats", flat(t_stats), t_stats["peers"][PEER])):
        assert {k: h[k] for k in want} == want, (what, h)
        assert {k: p[k] for k in want_peer} == want_peer, (what, p)
    # the rest: counts only grow from the telemetry reading to the file at exit
    t_flat = flat(t_hip)
    assert f_flat["hit"] == t_flat["hit"] == r_hit, (f_flat["hit"], t_flat["hit"], r_hit)
    for k, v in f_flat.items():
        if k == "hit":
            continue
        if k in GAUGES:
            assert v == t_flat[k], (k, v, t_flat[k])
        else:
            assert v >= t_flat[k], (k, v, t_flat[k])
