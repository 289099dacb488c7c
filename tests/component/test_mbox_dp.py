# SPDX-License-Identifier: BSD-3-Clause
"""Middlebox mode's data path through the real binary ([gateway] mode =
middlebox, docs/middlebox.md), on two net_pcap ports bridged as a pair, with
[mbox-gen] lab flows (no HIP exchange needed): what enters one port leaves by
the other byte for byte, or is dropped under its name.

Per family (IPv4, IPv6), one run of many frames each with its verdict:
ESP of a known flow crosses in both directions; an unknown SPI, a known SPI
to another destination and SPI 0 are mbox_no_flow; ARP / neighbour discovery
/ MLD pass (ND only with hop limit 255); other traffic only between bypass
prefixes (policy); a fragmented ESP datagram of a known flow passes whole, a
later fragment with no first is mbox_frag, the fragments of an unknown flow
mbox_no_flow and mbox_frag; ICMP / ICMPv6 errors quoting a known flow and sent
to its source pass, others are policy; HIP goes to the control lcore (a
bogus one: mbox_hip); VLAN tags are looked through; bad headers malformed,
too long for the other port's mtu mtu. Then the same frames with two workers
and with --slow-path (the control lcore looks each ESP flow up) give the same
verdicts, and telemetry lists the flows, their counters and the rules.
Through the tracker (lib/mbox): another implementation's Base Exchange through
the box (HIP forwarded or refused as the tracker concludes), and an
association it saw established letting its ESP through."""

import json
import os
import shutil
import socket
import struct
import sys
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP, fragment
from scapy.layers.inet6 import (ICMPv6MLReport2, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6ND_RS,
                                ICMPv6PacketTooBig, ICMPv6TimeExceeded, IPv6,
                                IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                                RouterAlert, fragment6)
from scapy.layers.ipsec import ESP
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw
from scapy.utils import rdpcap

import gwlib

sys.path.insert(0, os.path.join(gwlib.REPO, "perf"))
import sagen  # noqa: E402

A_MAC, B_MAC = "02:00:00:00:0a:01", "02:00:00:00:0b:01"
SPI_SEED = 0x77
FLOWS = 4
SPIS = sagen.spis(FLOWS, SPI_SEED)
# per family: the [mbox-gen] block (flow i to its i-th address), host A on the
# left (flow 1's destination), host B on the right (flow 0's), a router on
# the path, and the bypass prefixes with an address in and out of them
NET = {
    4: dict(block="192.0.2.4/30", a="192.0.2.5", b="192.0.2.4", router="198.51.100.254",
            bypass="10.9.0.0/16", in1="10.9.0.1", in2="10.9.7.7", out="10.8.0.1"),
    6: dict(block="2001:db8:5::100/126", a="2001:db8:5::101", b="2001:db8:5::100",
            router="2001:db8:ff::1", bypass="fd00:9::/48", in1="fd00:9::1", in2="fd00:9::2",
            out="fd00:8::1"),
}
RIGHT_MTU = 1400
UNKNOWN_SPI = 0x12345


def ip(fam, src, dst, **kw):
    return IP(src=src, dst=dst, **kw) if fam == 4 else IPv6(src=src, dst=dst, **kw)


def esp(fam, src, dst, spi, seq, size, **kw):
    """An ESP packet of about size bytes (the payload is opaque to the box)."""
    return ip(fam, src, dst, **kw) / ESP(spi=spi, seq=seq, data=bytes([seq & 0xff]) * size)


def eth(pkt, src=A_MAC, dst=B_MAC):
    return Ether(src=src, dst=dst) / pkt


def frags(fam, pkt, size):
    """The fragments of pkt (IPv6: it carries a Fragment header) as frames."""
    if fam == 4:
        return [eth(f) for f in fragment(pkt, size)]
    return [eth(f) for f in fragment6(pkt, size)]


def frames(fam):
    """(left frames, right frames), each a list of groups (frames that go to
    one queue together); every frame is (bytes, verdict): "out" (leaves by the
    other port unchanged) or the drop reason."""
    n = NET[fam]
    a, b, r = n["a"], n["b"], n["router"]
    known = [esp(fam, a, b, SPIS[0], s, sz) for s, sz in ((1, 10), (2, 500), (3, 1200))]
    left = [[(eth(p), "out") for p in known],
            [(eth(esp(fam, a, b, SPIS[1], 4, 40)), "mbox_no_flow"),       # flow 1 is to A
             (eth(esp(fam, a, b, UNKNOWN_SPI, 5, 40)), "mbox_no_flow"),
             (eth(esp(fam, a, b, 0, 6, 40)), "mbox_no_flow")],
            [(eth(esp(fam, n["in1"], n["in2"], UNKNOWN_SPI, 7, 40)), "mbox_no_flow")],
            [(eth(ip(fam, n["in1"], n["in2"]) / UDP(sport=1, dport=2) / Raw(b"by")), "out"),
             (eth(ip(fam, n["in1"], n["out"]) / UDP(sport=1, dport=2) / Raw(b"no")), "policy"),
             (eth(ip(fam, n["out"], n["in1"]) / TCP(flags="S")), "policy")],
            [(eth(ip(fam, a, b, **({"proto": 139} if fam == 4 else {"nh": 139})) /
                  Raw(b"\x3b\x04\x10\x02" + b"\0" * 36)), "mbox_hip")],
            [(Ether(src=A_MAC, dst=B_MAC) / Dot1Q(vlan=7) / esp(fam, a, b, SPIS[0], 9, 40), "out")],
            [(eth(esp(fam, a, b, SPIS[0], 10, RIGHT_MTU)), "mtu")],
            [(Ether(src=A_MAC, dst="01:80:c2:00:00:0e", type=0x88cc) / Raw(b"\0" * 46), "policy")],
            ]
    # fragments: a known flow's datagram in three (first by its SPI, later by
    # its first), a later fragment alone, an unknown flow's fragments
    if fam == 4:
        big = esp(4, a, b, SPIS[0], 20, 900, id=4242)
        lone = esp(4, a, b, SPIS[0], 21, 900, id=999)
        unk = esp(4, a, b, UNKNOWN_SPI, 22, 900, id=555)
    else:
        big = ip(6, a, b) / IPv6ExtHdrFragment(id=4242) / ESP(spi=SPIS[0], seq=20, data=b"f" * 900)
        lone = ip(6, a, b) / IPv6ExtHdrFragment(id=999) / ESP(spi=SPIS[0], seq=21, data=b"g" * 900)
        unk = ip(6, a, b) / IPv6ExtHdrFragment(id=555) / ESP(spi=UNKNOWN_SPI, seq=22, data=b"h" * 900)
    fb = frags(fam, big, 400)
    assert len(fb) == 3
    left.append([(f, "out") for f in fb])
    left.append([(frags(fam, lone, 400)[1], "mbox_frag")])
    fu = frags(fam, unk, 400)
    left.append([(fu[0], "mbox_no_flow")] + [(f, "mbox_frag") for f in fu[1:]])
    # ICMP errors about A's ESP to B: from a router to A pass; quoting an
    # unknown SPI, or sent to B (not the quoted packet's source): policy
    quote = bytes(esp(fam, a, b, SPIS[0], 30, 100))
    quote_unk = bytes(esp(fam, a, b, UNKNOWN_SPI, 31, 100))
    if fam == 4:
        err = lambda to, q: ip(4, r, to) / ICMP(type=3, code=4, nexthopmtu=1300) / Raw(q)  # noqa: E731
        err2 = lambda to, q: ip(4, r, to) / ICMP(type=11, code=0) / Raw(q)  # noqa: E731
    else:
        err = lambda to, q: ip(6, r, to) / ICMPv6PacketTooBig(mtu=1280) / Raw(q)  # noqa: E731
        err2 = lambda to, q: ip(6, r, to) / ICMPv6TimeExceeded() / Raw(q)  # noqa: E731
    right = [[(eth(err(a, quote), B_MAC, A_MAC), "out"),
              (eth(err2(a, quote), B_MAC, A_MAC), "out"),
              (eth(err(a, quote_unk), B_MAC, A_MAC), "policy"),
              (eth(err(b, quote), B_MAC, A_MAC), "policy")],
             [(eth(esp(fam, b, a, SPIS[1], s, 300), B_MAC, A_MAC), "out") for s in (1, 2)],
             [(eth(esp(fam, b, a, SPIS[0], 3, 300), B_MAC, A_MAC), "mbox_no_flow")]]
    # neighbour discovery / ARP, and bad headers
    if fam == 4:
        left.append([(Ether(src=A_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc=a, pdst=b), "out")])
        right.append([(Ether(src=B_MAC, dst=A_MAC) / ARP(op=2, psrc=b, pdst=a), "out")])
        bad = bytearray(bytes(eth(esp(4, a, b, SPIS[0], 40, 40))))
        bad[14 + 10] ^= 0xff                       # the header checksum
        short = eth(IP(src=a, dst=b, proto=50) / Raw(b"\0\0\0\1"))
        left.append([(bytes(bad), "malformed"), (short, "malformed")])
    else:
        ns = ip(6, a, "ff02::1:ff00:100", hlim=255) / ICMPv6ND_NS(tgt=b)
        left.append([(eth(ns, A_MAC, "33:33:ff:00:01:00"), "out"),
                     (eth(ip(6, a, "ff02::2", hlim=255) / ICMPv6ND_RS(), A_MAC, "33:33:00:00:00:02"),
                      "out"),
                     (eth(ip(6, a, b, hlim=64) / ICMPv6ND_NS(tgt=b)), "policy"),
                     (eth(ip(6, a, "ff02::16", hlim=1) / IPv6ExtHdrHopByHop(options=[RouterAlert()]) /
                          ICMPv6MLReport2(), A_MAC, "33:33:00:00:00:16"), "out")])
        right.append([(eth(ip(6, b, a, hlim=255) / ICMPv6ND_NA(tgt=b, R=0, S=1), B_MAC, A_MAC),
                       "out")])
        left.append([(eth(ip(6, a, b) / IPv6ExtHdrDestOpt() / ESP(spi=SPIS[0], seq=41, data=b"d" * 50)),
                      "out"),
                     (eth(ip(6, a, b, plen=200) / ESP(spi=SPIS[0], seq=42, data=b"e" * 20)),
                      "malformed")])
    return left, right


def config(d, fam, workers, bypass=True, rules=("any", "any", "allow"), gen=True, state=None):
    """The middlebox config in d, pcap files relative to d (hipgw runs there)."""
    def dev(i, port):
        return "net_pcap%d,%s" % (i, ",".join("rx_pcap=%s_in%d.pcap,tx_pcap=%s_out%d.pcap" %
                                             (port, q, port, q) for q in range(workers)))
    text = ["[gateway]", "mode = middlebox", "workers = %d" % workers, "idle = adaptive",
            "[port left]", "device = " + dev(0, "left"),
            "[port right]", "device = " + dev(1, "right"), "mtu = %d" % RIGHT_MTU,
            "[middlebox]", "ports = left, right"]
    if bypass:
        text.append("bypass = " + NET[fam]["bypass"])
    if state:
        text.append("state-file = " + state)
    if rules:
        text += ["[rule lab]", "initiator = " + rules[0], "responder = " + rules[1],
                 "action = " + rules[2]]
    if gen:
        text += ["[mbox-gen lab]", "count = %d" % FLOWS, "destinations = " + NET[fam]["block"],
                 "spi-seed = 0x%x" % SPI_SEED]
    path = os.path.join(d, "hipgw.conf")
    with open(path, "w") as f:
        f.write("\n".join(text) + "\n")
    return path


def lcores(workers):
    ncpu = os.cpu_count() or 1
    return ",".join("%d@%d" % (i, i % ncpu) for i in range(workers + 1))


def run(d, fam, left, right, workers=1, extra=(), bypass=True, **conf):
    """hipgw once on the groups of left / right (round robin over the queues):
    (stats, {port: [frames out, all queues]})."""
    os.makedirs(d, exist_ok=True)
    cfg = config(d, fam, workers, bypass, **conf)
    for port, groups in (("left", left), ("right", right)):
        for q in range(workers):
            fr = [f for g in groups[q::workers] for f, _ in g]
            gwlib.write_pcap(os.path.join(d, "%s_in%d.pcap" % (port, q)), fr)
    prefix = "hgwmb%d_%d" % (os.getpid(), int(time.monotonic() * 1000) % 100000)
    eal = gwlib.eal_args(prefix)
    i = eal.index("-l")
    eal[i:i + 2] = ["--lcores", lcores(workers)]
    stats_path = os.path.join(d, "stats.json")
    cmd = [gwlib.hipgw_binary()] + eal + ["--", "--config", cfg, "--stats-json", stats_path,
                                          "--idle-exit", str(gwlib.IDLE_EXIT_MS)] + list(extra)
    try:
        rc, _, err, to = gwlib.run_process(cmd, d)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    assert not to and rc == 0, "hipgw: rc %s: %s" % (rc, err[-3000:])
    assert "AddressSanitizer" not in err and "runtime error:" not in err, err[-3000:]
    with open(stats_path) as f:
        stats = json.load(f)
    gwlib.check_stats_schema(stats)
    out = {}
    for port in ("left", "right"):
        out[port] = []
        for q in range(workers):
            got = gwlib.read_pcap(os.path.join(d, "%s_out%d.pcap" % (port, q)))
            assert got is not None, "no tx pcap for %s queue %d" % (port, q)
            out[port] += [bytes(g) for g in got]
    return stats, out


def expected(left, right):
    """What must come out of each port (bytes, input order) and the drops."""
    want = {"left": [], "right": []}
    drops = {}
    for port, groups in (("right", left), ("left", right)):
        for g in groups:
            for f, v in g:
                if v == "out":
                    want[port].append(bytes(f))
                else:
                    drops[v] = drops.get(v, 0) + 1
    return want, drops


def check(stats, out, left, right, ordered=True):
    want, drops = expected(left, right)
    for port in ("left", "right"):
        got = out[port] if ordered else sorted(out[port])
        exp = want[port] if ordered else sorted(want[port])
        assert got == exp, "%s: %d frames out, %d expected; first difference at %s" % (
            port, len(got), len(exp),
            next((i for i, (x, y) in enumerate(zip(got, exp)) if x != y), min(len(got), len(exp))))
    want_drops = {k: 0 for k in gwlib.DROP_REASONS}
    want_drops.update(drops)
    assert stats["drops"] == want_drops, {k: (stats["drops"][k], want_drops[k])
                                          for k in want_drops if stats["drops"][k] != want_drops[k]}


def counters(left, right):
    """The middlebox counters the frames must give."""
    c = dict(esp=0, frags=0, icmp=0, l2=0, bypass=0, hip_punted=0)
    for groups in (left, right):
        for g in groups:
            for f, v in g:
                pkt = Ether(bytes(f))
                if v == "mbox_hip":
                    c["hip_punted"] += 1
                if v != "out":
                    continue
                if ICMP in pkt or ICMPv6PacketTooBig in pkt or ICMPv6TimeExceeded in pkt:
                    c["icmp"] += 1
                elif ARP in pkt or ICMPv6ND_NS in pkt or ICMPv6ND_NA in pkt or \
                        ICMPv6ND_RS in pkt or ICMPv6MLReport2 in pkt:
                    c["l2"] += 1
                elif UDP in pkt:
                    c["bypass"] += 1
                elif (IP in pkt and pkt[IP].frag > 0) or (IPv6ExtHdrFragment in pkt and
                                                          pkt[IPv6ExtHdrFragment].offset > 0):
                    c["frags"] += 1
                else:
                    c["esp"] += 1
    return c


@pytest.mark.parametrize("fam", [4, 6])
def test_verdicts(tmp_path, fam):
    """Every frame's verdict, the counters, and the flows' packet counts."""
    left, right = frames(fam)
    stats, out = run(str(tmp_path / "w1"), fam, left, right)
    check(stats, out, left, right)
    mb = stats["middlebox"]
    assert mb["ports"] == {"a": "left", "b": "right"}
    assert mb["flows"] == FLOWS and mb["lab_flows"] == FLOWS
    assert mb["capacity"] == 4096 * 8 + FLOWS
    want = counters(left, right)
    got = {k: mb[k] for k in want}
    assert got == want, (got, want)
    assert mb["hip_forwarded"] == 0
    # the tracker refused the one bogus HIP packet
    assert sum(mb["hip_drops"].values()) == want["hip_punted"] == 1, mb["hip_drops"]


@pytest.mark.parametrize("fam", [4, 6])
def test_workers_and_slow_path(tmp_path, fam):
    """Two workers (groups spread over two queues per port, a datagram's
    fragments on one), and --slow-path with one and two workers: the same
    verdicts as one worker's fast path."""
    left, right = frames(fam)
    for name, workers, extra in (("w2", 2, ()), ("slow1", 1, ("--slow-path",)),
                                 ("slow2", 2, ("--slow-path",))):
        stats, out = run(str(tmp_path / name), fam, left, right, workers, extra)
        check(stats, out, left, right, ordered=workers == 1)
        want = counters(left, right)
        assert {k: stats["middlebox"][k] for k in want} == want, name
        if extra:
            slow = sum(w["slow_sent"] for w in stats["workers"])
            assert slow == sum(len(g) for g in left + right), (name, stats["workers"])


def test_no_bypass(tmp_path):
    """Without bypass prefixes nothing but ESP, ARP / ND and ICMP errors about
    known flows crosses: the bypass frames are policy too."""
    left, right = frames(4)
    left = [[(f, "policy" if v == "out" and UDP in Ether(bytes(f)) else v) for f, v in g]
            for g in left]
    stats, out = run(str(tmp_path), 4, left, right, bypass=False)
    check(stats, out, left, right)
    assert stats["middlebox"]["bypass"] == 0


def test_telemetry(tmp_path):
    """A running middlebox: /hipgw/mbox, the flows with their counters
    (/hipgw/mbox_flows, paged) and the rules (/hipgw/mbox_rules)."""
    d = str(tmp_path)
    left, right = frames(4)
    path = config(d, 4, 1)
    with open(path) as f:
        text = f.read()
    for port in ("left", "right"):     # hipgw runs in the test's directory here
        text = text.replace("rx_pcap=%s_in0.pcap,tx_pcap=%s_out0.pcap" % (port, port),
                            "rx_pcap=%s/%s_in0.pcap,tx_pcap=%s/%s_out0.pcap" % (d, port, d, port))
    with open(path, "w") as f:
        f.write(text.replace("count = %d" % FLOWS, "count = 100"))
    n_in = 0
    for port, groups in (("left", left), ("right", right)):
        fr = [f for g in groups for f, _ in g]
        n_in += len(fr)
        gwlib.write_pcap(os.path.join(d, "%s_in0.pcap" % port), fr)
    prefix = "hgwmbt%d" % os.getpid()
    logf = tmp_path / "log.txt"
    gw = gwlib.start_gateway(None, prefix, path, os.path.join(d, "stats.json"), logf)
    try:
        gwlib.wait_gateway_running(gw, logf)
        for _ in range(100):             # until the pcaps are read
            st = gwlib.telemetry(prefix, "/hipgw/stats")
            if sum(p["rx"] for p in st["ports"].values()) == n_in:
                break
            time.sleep(0.1)
        mb = gwlib.telemetry(prefix, "/hipgw/mbox")
        assert mb["flows"] == 100 and mb["lab_flows"] == 100, mb
        assert mb["esp"] == st["middlebox"]["esp"] and mb["esp"] > 0, (mb, st["middlebox"])
        flows, cursor, pages = {}, 0, 0
        while True:
            page = gwlib.telemetry(prefix, "/hipgw/mbox_flows,%d" % cursor)
            assert page["flows"] == 100 and page["cursor"] == cursor
            for e in page["entries"].values():
                flows[(e["dst"], e["spi"])] = e
            pages += 1
            cursor = page["next"]
            if cursor == 0:
                break
        assert pages == 3 and len(flows) == 100, (pages, len(flows))
        spis = sagen.spis(100, SPI_SEED)
        f0 = flows[(NET[4]["b"], spis[0])]
        f1 = flows[(NET[4]["a"], spis[1])]
        # flow 0: three ESP, the VLAN-tagged one, the first fragment; flow 1: two
        assert (f0["assoc"], f0["lab"], f0["packets"]) == (0, 1, 5), f0
        assert f0["bytes"] > 1200 and "age_s" in f0, f0
        assert (f1["assoc"], f1["packets"]) == (1, 2), f1
        f2 = flows[("192.0.2.6", spis[2])]
        assert f2["packets"] == 0 and "age_s" not in f2, f2
        assert gwlib.telemetry(prefix, "/hipgw/mbox_flows,x") is None
        rules = gwlib.telemetry(prefix, "/hipgw/mbox_rules")
        assert rules["default"] == "deny" and rules["count"] == 1
        assert rules["rules"]["r0"] == {"name": "lab", "initiator": "any", "responder": "any",
                                        "action": "allow"}
        assert st["middlebox"]["flows"] == 100 and st["drops"]["mbox_no_flow"] > 0
    finally:
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)


CUTEHIP = os.path.join(gwlib.REPO, "tests", "data", "cutehip-bex-ecdsa384-modp3072.pcapng")
CUTEHIP_R2 = 3                      # I1, R1, I2, R2, ESP..., UPDATE x 4, ESP...


def cutehip_frames(r2_verdict, hip_verdict):
    """The capture of another implementation's Base Exchange, UPDATEs and ESP
    (tests/data/hip/README.md), all on one port in capture order: each with
    its verdict from what the tracker concludes of the HIP before it."""
    out = []
    for i, f in enumerate(rdpcap(CUTEHIP)):
        if IP in f and f[IP].proto == 139:
            out.append((f, "out" if i < CUTEHIP_R2 else r2_verdict if i == CUTEHIP_R2 else
                        hip_verdict))
        else:
            out.append((f, "mbox_no_flow"))
    return out


def test_hip_tracker(tmp_path):
    """HIP through the tracker (lib/mbox), in capture order through one port:
    I1, R1 and I2 verify and leave by the other port byte for byte; R2 has
    no HIP_SIGNATURE (cutehip signs it as HIP_SIGNATURE_2), so the tracker
    cannot authenticate its SPI and drops it (sig_missing): no flow, every
    ESP packet mbox_no_flow, the UPDATEs with no association dropped (state).
    With a rule that denies the pair, every HIP packet is dropped (denied)."""
    fr = cutehip_frames("mbox_hip", "mbox_hip")
    stats, out = run(str(tmp_path / "allow"), 4, [[x] for x in fr], [], gen=False, bypass=False)
    check(stats, out, [[x] for x in fr], [])
    mb = stats["middlebox"]
    assert mb["hip_punted"] == 8 and mb["hip_forwarded"] == 3, mb
    assert mb["hip"]["forwarded"] == 3 and mb["hip"]["established"] == 0, mb["hip"]
    assert mb["hip_drops"]["sig_missing"] == 1 and mb["hip_drops"]["state"] == 4, mb["hip_drops"]
    assert mb["flows"] == 0
    hit_i = "2001:22:a485:4abe:81de:a7b2:9a70:44b4"
    deny = [(f, "mbox_hip" if v != "mbox_no_flow" else v) for f, v in fr]
    stats, out = run(str(tmp_path / "deny"), 4, [[x] for x in deny], [], gen=False,
                     bypass=False, rules=(hit_i, "any", "deny"))
    check(stats, out, [[x] for x in deny], [])
    assert stats["middlebox"]["hip_forwarded"] == 0
    assert stats["middlebox"]["hip_drops"]["denied"] >= 1, stats["middlebox"]["hip_drops"]


def hip_checksum(src, dst, hip):
    """The HIP checksum (RFC 7401 5.1.1: the IPv4 pseudo-header, protocol 139)
    of hip with its checksum field zero."""
    data = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 139, len(hip))
    data += hip[:4] + b"\0\0" + hip[6:]
    data += b"\0" * (len(data) % 2)
    c = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while c >> 16:
        c = (c & 0xffff) + (c >> 16)
    return ~c & 0xffff


def r2_as_rfc(frame):
    """cutehip's R2 with its signature's type 61633 (HIP_SIGNATURE_2) renamed
    61697 (HIP_SIGNATURE, RFC 7401 5.3.4; the coverage it signed) and the HIP
    checksum made again: an R2 the tracker can verify."""
    hip = bytearray(bytes(frame[IP].payload))
    off = 40                                  # the parameters after the fixed header
    while off + 4 <= len(hip):
        t, n = struct.unpack("!HH", hip[off:off + 4])
        if t == 61633:
            hip[off:off + 2] = struct.pack("!H", 61697)
            break
        off += (4 + n + 7) // 8 * 8
    else:
        raise AssertionError("no HIP_SIGNATURE_2 in the R2")
    hip[4:6] = struct.pack("!H", hip_checksum(frame[IP].src, frame[IP].dst, bytes(hip)))
    return Ether(bytes(frame)[:14]) / IP(bytes(frame[IP])[:20] + bytes(hip))


def test_hip_tracker_established(tmp_path):
    """An association the tracker saw established lets its ESP through: the
    capture's Base Exchange with its R2 signature as RFC 7401 has it, then
    (a second run, the tracker's state file carrying the association across
    the restart) its ESP both ways crosses byte for byte: A to B with B's SPI
    (announced in R2's ESP_INFO), B to A with A's (I2's); an SPI to the other
    host's address does not (mbox_no_flow)."""
    cap = rdpcap(CUTEHIP)
    bex = [(f, "out") for f in cap[:CUTEHIP_R2]] + [(r2_as_rfc(cap[CUTEHIP_R2]), "out")]
    state = str(tmp_path / "mbox.state")
    stats, out = run(str(tmp_path / "bex"), 4, [[x] for x in bex], [], gen=False, bypass=False,
                     state=state)
    check(stats, out, [[x] for x in bex], [])
    mb = stats["middlebox"]
    assert mb["hip"]["established"] == 1 and mb["flows"] == 2, mb
    assert os.path.exists(state)
    esp_pre = [f for f in cap[CUTEHIP_R2 + 1:] if IP in f and f[IP].proto == 50][:10]
    spis = {(f[IP].dst, f[ESP].spi) for f in esp_pre}
    assert len(spis) == 2, spis
    wrong = Ether() / IP(src=esp_pre[0][IP].src, dst=esp_pre[1][IP].dst) / \
        ESP(spi=esp_pre[0][ESP].spi, seq=99, data=b"w" * 40)
    left = [[(f, "out")] for f in esp_pre] + [[(wrong, "mbox_no_flow")]]
    stats, out = run(str(tmp_path / "esp"), 4, left, [], gen=False, bypass=False, state=state)
    check(stats, out, left, [])
    mb = stats["middlebox"]
    assert mb["hip"]["loaded"] == 1 and mb["flows"] == 2 and mb["esp"] == 10, mb
