# SPDX-License-Identifier: BSD-3-Clause
"""An L2 bridge's MAC table, live and at exit, through the real binary
(net_pcap, manually keyed): a [bridge] with static entries must show them in
telemetry /hipgw/bridge_macs (MAC, VLAN, where: "local" or the out SA of the
remote, static, no age before a frame), its table in /hipgw/bridges and in
the "bridges" object of /hipgw/stats and of the --stats-json file (entries,
capacity, port, remotes, counters), all agreeing with the config and with
each other; unknown bridges and bad cursors get no answer."""

import json
import os
import random
import signal
import socket
import threading
import time
import zlib

import gwlib

BRIDGE = "site-a"                       # telemetry names: "site_a"
TABLE_SIZE = 1000
# (MAC, VLAN, where): where None = the bridge's out SA
STATICS = [("02:00:00:00:0a:02", 0, "local"),
           ("02:00:00:00:0a:03", 42, "local"),
           ("02:00:00:00:0b:02", 0, None),
           ("02:00:00:00:0b:03", 7, None),
           ("02:00:00:00:0b:04", 4094, None)]
COUNTERS = ("learned", "moved", "full", "multicast", "static_kept", "aged")
TABLE_KEYS = ("port", "remotes", "entries", "capacity", "pending", "bytes_per_entry") + COUNTERS
ENTRY_KEYS = {"mac", "vlan", "where", "static"}
NAME_MAX = 32                   # GW_CONF_NAME_MAX: bytes of a section name with its NUL
LONG_ENTRIES = 4                # that many of the longest fit the 255 bytes of a config value
ENTRY_BYTES = 160               # GW_BRIDGE_MACS_ENTRY_BYTES: JSON bytes of one entry at most


def config(d, out, inn, entries):
    cfg = gwlib.write_config(d, [out, inn], lan_extra="mode = l2")
    statics = ", ".join("%s%s %s" % (m, " vlan %d" % v if v else "", w or out.name)
                        for m, v, w in entries)
    with open(cfg, "a") as f:
        f.write("\n[bridge %s]\nport = lan\nsas = %s, %s\nmac-table-size = %d\nstatic = %s\n"
                % (BRIDGE, out.name, inn.name, TABLE_SIZE, statics))
    return cfg


BAD = ("/hipgw/bridge_macs,nosuch", "/hipgw/bridge_macs,%s,x" % BRIDGE,
       "/hipgw/bridge_macs,%s,-1" % BRIDGE, "/hipgw/bridge_macs",
       "/hipgw/bridge_macs,%s,4294967296" % BRIDGE, "/hipgw/bridge_macs,%s," % BRIDGE)
ASKED = ("/hipgw/bridges", "/hipgw/bridge_macs," + BRIDGE, "/hipgw/bridge_macs,%s,0" % BRIDGE,
         "/hipgw/stats", "/hipgw/bridge_macs,%s,4294967295" % BRIDGE) + BAD


def run(tmp_path, entries=STATICS, out_name=None):
    """hipgw with the bridge (static entries `entries`, the out SA named
    out_name), idle on empty pcaps: (out SA, the raw telemetry replies by
    request, the stats file written at exit)."""
    rng = random.Random(zlib.crc32(b"l2-stats"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    out.name = out_name or out.name
    d = str(tmp_path)
    gwlib.write_pcap(os.path.join(d, "lan_in.pcap"), [])
    gwlib.write_pcap(os.path.join(d, "wan_in.pcap"), [])
    cfg, stats, logf = config(d, out, inn, entries), tmp_path / "stats.json", tmp_path / "gw.log"
    prefix = "hgl2st%d" % os.getpid()
    gw = gwlib.start_gateway(None, prefix, cfg, stats, logf)
    try:
        gwlib.wait_gateway_running(gw, logf)
        got = {cmd: gwlib.telemetry_raw(prefix, cmd) for cmd in ASKED}
    finally:
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)
    return out, got, json.loads(stats.read_text())


def check_table(t, out_name):
    assert set(t) == set(TABLE_KEYS), sorted(t)
    assert t["port"] == "lan" and t["remotes"] == 1, t
    assert t["entries"] == len(STATICS) and t["capacity"] == TABLE_SIZE, t
    assert t["pending"] == 0 and 0 < t["bytes_per_entry"] < 1024, t
    assert {k: t[k] for k in COUNTERS} == {k: 0 for k in COUNTERS}, t


def test_bridge_telemetry_and_stats(tmp_path):
    gwlib.Gateway(str(tmp_path)).require()
    out, raw, st = run(tmp_path)
    got = {cmd: json.loads(r)[cmd.split(",")[0]] for cmd, r in raw.items()}

    tel_bridges = got["/hipgw/bridges"]
    assert set(tel_bridges) == {"site_a"}, tel_bridges
    check_table(tel_bridges["site_a"], out.name)
    assert got["/hipgw/stats"]["bridges"] == tel_bridges
    # the file keeps the name as written, and the same numbers
    assert set(st["bridges"]) == {BRIDGE}, st.get("bridges")
    assert st["bridges"][BRIDGE] == tel_bridges["site_a"], (st["bridges"], tel_bridges)

    page = got["/hipgw/bridge_macs," + BRIDGE]
    assert got["/hipgw/bridge_macs,%s,0" % BRIDGE] == page
    assert {k: page[k] for k in ("bridge", "entries", "capacity", "cursor", "next")} == \
        {"bridge": BRIDGE, "entries": len(STATICS), "capacity": TABLE_SIZE, "cursor": 0,
         "next": 0}, page
    macs = page["macs"]
    assert sorted(macs) == sorted("e%d" % i for i in range(len(STATICS))), sorted(macs)
    for e in macs.values():
        assert set(e) == ENTRY_KEYS, e            # static, never seen: no age_s
    want = sorted((m, v, w or out.name, 1) for m, v, w in STATICS)
    seen = sorted((e["mac"].lower(), e["vlan"], e["where"], e["static"]) for e in macs.values())
    assert seen == want, (seen, want)

    # a cursor past the table's end: an empty last page
    last = got["/hipgw/bridge_macs,%s,4294967295" % BRIDGE]
    assert last["macs"] == {} and last["next"] == 0 and last["entries"] == len(STATICS), last
    # no such bridge, a cursor that is no 32-bit number: no answer (null)
    for cmd in BAD:
        assert got[cmd] is None, (cmd, got[cmd])


def test_no_bridge_no_object(tmp_path):
    """An l3 gateway's stats file has no "bridges" object."""
    g = gwlib.Gateway(str(tmp_path))
    rng = random.Random(zlib.crc32(b"l2-stats-l3"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    r = g.run([out, inn])
    assert "bridges" not in r.stats, r.stats["bridges"]


def test_page_fits_a_reply(tmp_path):
    """Static entries as long as an entry gets (VLAN 4094, the out SA's name
    31 characters): all in one reply, and each within the bytes a page of
    GW_BRIDGE_MACS_PAGE is sized for."""
    gwlib.Gateway(str(tmp_path)).require()
    long_name = "o" * (NAME_MAX - 1)
    entries = [("02:00:00:00:0c:%02x" % i, 4094, None) for i in range(LONG_ENTRIES)]
    _, raw, _ = run(tmp_path, entries, long_name)
    page = json.loads(raw["/hipgw/bridge_macs," + BRIDGE])["/hipgw/bridge_macs"]
    assert page["entries"] == LONG_ENTRIES and page["next"] == 0, page
    assert len(page["macs"]) == LONG_ENTRIES, sorted(page["macs"])
    assert {e["where"] for e in page["macs"].values()} == {long_name}, page["macs"]
    for k, e in page["macs"].items():
        # as DPDK writes it (no spaces), with age_s at its longest
        n = len('"%s":' % k) + len(json.dumps(e, separators=(",", ":"))) + \
            len(',"age_s":%d' % (2 ** 64 - 1)) + 1
        assert n <= ENTRY_BYTES, (n, k, e)
    assert len(raw["/hipgw/bridge_macs," + BRIDGE]) <= LONG_ENTRIES * ENTRY_BYTES + 256


def test_stop_while_polled(tmp_path):
    """/hipgw/bridges and /hipgw/bridge_macs asked in a loop while hipgw
    stops: the handlers must find the bridges gone, never freed (exit 0, no
    sanitizer report), and answer while it runs."""
    gwlib.Gateway(str(tmp_path)).require()
    rng = random.Random(zlib.crc32(b"l2-stats-stop"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    d = str(tmp_path)
    gwlib.write_pcap(os.path.join(d, "lan_in.pcap"), [])
    gwlib.write_pcap(os.path.join(d, "wan_in.pcap"), [])
    cfg, stats, logf = config(d, out, inn, STATICS), tmp_path / "stats.json", tmp_path / "gw.log"
    prefix = "hgl2sp%d" % os.getpid()
    path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
    stop, answers = threading.Event(), []

    def poll():
        cmds = [b"/hipgw/bridge_macs," + BRIDGE.encode(), b"/hipgw/bridges"]
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
                s.connect(path)
                s.recv(4096)
                while not stop.is_set():
                    s.send(cmds[len(answers) % 2])
                    r = s.recv(1 << 16)
                    if not r:
                        break
                    answers.append(json.loads(r))
        except OSError:
            pass                                  # hipgw went away

    gw = gwlib.start_gateway(None, prefix, cfg, stats, logf)
    t = threading.Thread(target=poll)
    try:
        gwlib.wait_gateway_running(gw, logf)
        t.start()
        while len(answers) < 50 and t.is_alive():
            time.sleep(0.05)
        assert len(answers) >= 50, "telemetry never answered"
        gw.send_signal(signal.SIGTERM)            # stop while the requests go on
        gw.wait(timeout=60)
    finally:
        stop.set()
        if t.is_alive():
            t.join(10)
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)
    live = [a for a in answers if a.get("/hipgw/bridge_macs") is not None]
    assert live and all(a["/hipgw/bridge_macs"]["entries"] == len(STATICS) for a in live), \
        answers[:3]
