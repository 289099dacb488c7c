# SPDX-License-Identifier: BSD-3-Clause
"""Learned MAC entries in telemetry and in the stats file (needs the
control lcore's learning): sources from the l2 port are learned `local`,
sources in EtherIP from the remote at its out SA; each with static 0 and an
age_s; the table's `learned` counter counts them."""

import json
import os
import random
import time
import zlib

import gwlib
from test_l2 import ETHERIP_HDR, etherip_in, frame
from test_l2_stats import BRIDGE, STATICS, config

LOCAL = [("02:00:00:00:0a:11", 0), ("02:00:00:00:0a:12", 42)]
REMOTE = [("02:00:00:00:0b:11", 0), ("02:00:00:00:0b:12", 7)]
WAIT_S = 20


def test_learned_entries(tmp_path):
    gwlib.Gateway(str(tmp_path)).require()
    rng = random.Random(zlib.crc32(b"l2-stats"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    d = str(tmp_path)
    gwlib.write_pcap(os.path.join(d, "lan_in.pcap"),
                     [frame(m, "ff:ff:ff:ff:ff:ff", vlan=v or None) for m, v in LOCAL])
    gwlib.write_pcap(os.path.join(d, "wan_in.pcap"),
                     [etherip_in(inn, ETHERIP_HDR + frame(m, "ff:ff:ff:ff:ff:ff",
                                                          vlan=v or None), i + 1)
                      for i, (m, v) in enumerate(REMOTE)])
    cfg, stats, logf = config(d, out, inn, STATICS), tmp_path / "stats.json", tmp_path / "gw.log"
    prefix = "hgl2sl%d" % os.getpid()
    want_n = len(STATICS) + len(LOCAL) + len(REMOTE)
    gw = gwlib.start_gateway(None, prefix, cfg, stats, logf)
    try:
        gwlib.wait_gateway_running(gw, logf)
        end = time.monotonic() + WAIT_S
        while True:
            page = json.loads(gwlib.telemetry_raw(prefix, "/hipgw/bridge_macs," + BRIDGE))
            page = page["/hipgw/bridge_macs"]
            if page["entries"] >= want_n or time.monotonic() > end:
                break
            time.sleep(0.2)
    finally:
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)
    st = json.loads(stats.read_text())["bridges"][BRIDGE]
    assert page["entries"] == want_n and st["entries"] == want_n, (page, st)
    assert st["learned"] == len(LOCAL) + len(REMOTE), st
    learned = sorted((e["mac"].lower(), e["vlan"], e["where"]) for e in page["macs"].values()
                     if e["static"] == 0)
    assert learned == sorted([(m, v, "local") for m, v in LOCAL] +
                             [(m, v, out.name) for m, v in REMOTE]), page["macs"]
    for e in page["macs"].values():
        if e["static"] == 0:
            assert "age_s" in e and 0 <= e["age_s"] < 3600, e


def test_pages(tmp_path):
    """More entries than a reply takes (64): the first page says where to go
    on (next), the pages together hold every entry once, the last says 0."""
    gwlib.Gateway(str(tmp_path)).require()
    rng = random.Random(zlib.crc32(b"l2-stats"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    d = str(tmp_path)
    srcs = ["02:00:00:01:%02x:%02x" % (i >> 8, i & 255) for i in range(150)]
    gwlib.write_pcap(os.path.join(d, "lan_in.pcap"),
                     [frame(m, "ff:ff:ff:ff:ff:ff") for m in srcs])
    gwlib.write_pcap(os.path.join(d, "wan_in.pcap"), [])
    cfg, stats, logf = config(d, out, inn, STATICS), tmp_path / "stats.json", tmp_path / "gw.log"
    prefix = "hgl2sq%d" % os.getpid()
    want = len(STATICS) + len(srcs)
    ask = lambda c: json.loads(gwlib.telemetry_raw(prefix, c))["/hipgw/bridge_macs"]  # noqa: E731
    gw = gwlib.start_gateway(None, prefix, cfg, stats, logf)
    pages = []
    try:
        gwlib.wait_gateway_running(gw, logf)
        end = time.monotonic() + WAIT_S
        while ask("/hipgw/bridge_macs," + BRIDGE)["entries"] < want and time.monotonic() < end:
            time.sleep(0.2)
        cursor = 0
        while len(pages) < 10:
            pages.append(ask("/hipgw/bridge_macs,%s,%d" % (BRIDGE, cursor)))
            cursor = pages[-1]["next"]
            if cursor == 0:
                break
    finally:
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)
    assert pages[0]["entries"] == want, pages[0]
    assert [len(p["macs"]) for p in pages] == [64, 64, want - 128], [len(p["macs"]) for p in pages]
    assert [p["cursor"] for p in pages[1:]] == [p["next"] for p in pages[:-1]]
    assert pages[-1]["next"] == 0
    seen = [(e["mac"].lower(), e["vlan"]) for p in pages for e in p["macs"].values()]
    assert sorted(seen) == sorted([(m, 0) for m in srcs] + [(m, v) for m, v, _ in STATICS])
