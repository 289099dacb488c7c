# SPDX-License-Identifier: BSD-3-Clause
"""Middlebox mode and NAT traversal through the real binary (docs/middlebox.md,
"NAT traversal"): HIP over UDP (RFC 5770: UDP port 10500, the 32-bit zero
non-ESP marker, the HIP checksum 0) and ESP in UDP (RFC 3948), on two
net_pcap ports bridged as a pair, the frames made with scapy.

The HIP is another implementation's Base Exchange (the cutehip capture of
test_mbox_dp, its R2 signature under RFC 7401's type), each packet carried
in UDP as through a NAT: the initiator's from the NAT's port 40000 to 10500,
the responder's from 10500 back to 40000. The tracker learns the
association from it as from plain HIP and the HIP leaves byte for byte;
datagrams that are too short or garbage after the marker are dropped by the
tracker (udp_bad, malformed), a runt payload by the workers (udp_bad), a
NAT-keepalive (0xFF) from an address no flow goes to is mbox_keepalive. A
second run (the state file carries the association) sends the capture's ESP
in UDP: the learned flows cross both ways, also from another NAT port (the
port is no part of the flow), an unknown SPI is mbox_no_flow, an ICMP error
quoting a known flow's UDP header and SPI crosses, one quoting the UDP
header alone is policy; NAT-keepalives between the two hosts cross both
ways, one from elsewhere is mbox_keepalive; the same through the --slow-path
lookup. Fragments of ESP in UDP and of HIP over UDP. And, IPv4 and IPv6, one
worker and two, the same kinds of frame for test_mbox_dp's [mbox-gen]
flows."""

import os
import struct

import pytest
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.ipsec import ESP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import rdpcap

import test_mbox_dp as dp

HIP_PORT = 10500
NAT_PORT = 40000
MARKER = b"\0\0\0\0"


def cap():
    return rdpcap(dp.CUTEHIP)


def initiator(c):
    return c[0][IP].src                # the I1's source


def over_udp(frame, payload, init):
    """frame's IP header addresses, payload in UDP as through the NAT."""
    src, dst = frame[IP].src, frame[IP].dst
    sport, dport = (NAT_PORT, HIP_PORT) if src == init else (HIP_PORT, NAT_PORT)
    return Ether(bytes(frame)[:14]) / IP(src=src, dst=dst) / UDP(sport=sport, dport=dport) / \
        Raw(payload)


def hip_over_udp(frame, init):
    """A plain HIP frame as RFC 5770 sends it: marker, HIP checksum 0."""
    hip = bytearray(bytes(frame[IP].payload))
    hip[4:6] = b"\0\0"
    return over_udp(frame, MARKER + bytes(hip), init)


def bex_frames():
    c = cap()
    init = initiator(c)
    bex = list(c[:dp.CUTEHIP_R2]) + [dp.r2_as_rfc(c[dp.CUTEHIP_R2])]
    return [(hip_over_udp(f, init), "out") for f in bex], c, init


def test_udp_bex_learned(tmp_path):
    """The BEX over UDP: forwarded byte for byte, the association and its two
    flows learned (hip.udp counts it); the bad datagrams around it dropped
    under their names; then the ESP in UDP of the association (the state
    file across the restart) and what is not."""
    bex, c, init = bex_frames()
    a, b = c[0][IP].src, c[0][IP].dst
    tmpl = c[0]
    short = over_udp(tmpl, MARKER + bytes(bytes(tmpl[IP].payload)[:24]), init)
    junk = over_udp(tmpl, MARKER + b"\xa5" * 48, init)
    runt = over_udp(tmpl, b"\0\0", init)
    stranger = "192.0.2.99"
    keepalive = Ether(bytes(tmpl)[:14]) / IP(src=stranger, dst=b) / \
        UDP(sport=NAT_PORT, dport=HIP_PORT) / Raw(b"\xff")
    ka_ab = over_udp(tmpl, b"\xff", init)
    ka_ba = Ether(bytes(tmpl)[:14]) / IP(src=b, dst=a) / UDP(sport=HIP_PORT, dport=NAT_PORT) / \
        Raw(b"\xff")
    bad = [(short, "mbox_hip"), (junk, "mbox_hip"), (runt, "udp_bad"),
           (keepalive, "mbox_keepalive")]
    state = str(tmp_path / "mbox.state")
    left = [[x] for x in bex + bad]
    stats, out = dp.run(str(tmp_path / "bex"), 4, left, [], gen=False, bypass=False, state=state)
    dp.check(stats, out, left, [])
    mb = stats["middlebox"]
    assert mb["hip"]["established"] == 1 and mb["flows"] == 2, mb
    assert mb["hip"]["udp"] == 6 and mb["hip_punted"] == 6, mb["hip"]
    assert mb["hip_drops"]["udp_bad"] == 1 and mb["hip_drops"]["malformed"] == 1, mb["hip_drops"]
    assert mb["hip_drops"]["checksum"] == 0 and mb["hip_forwarded"] == 4, mb

    # ESP of the capture, in UDP: the learned flows, each way
    esp_pre = [f for f in c[dp.CUTEHIP_R2 + 1:] if IP in f and f[IP].proto == 50][:10]
    spis = {(f[IP].dst, f[ESP].spi) for f in esp_pre}
    assert len(spis) == 2, spis
    flows = [(over_udp(f, bytes(f[IP].payload), init), "out") for f in esp_pre]
    to_b = next(f for f in esp_pre if f[IP].dst == b)
    esp_b = bytes(to_b[IP].payload)
    moved = Ether(bytes(to_b)[:14]) / IP(src=a, dst=b) / UDP(sport=NAT_PORT + 1, dport=HIP_PORT) / \
        Raw(esp_b)
    unknown = Ether(bytes(to_b)[:14]) / IP(src=a, dst=b) / UDP(sport=NAT_PORT, dport=HIP_PORT) / \
        Raw(struct.pack("!I", 0x0bad0bad) + esp_b[4:])
    wrong_dst = Ether(bytes(to_b)[:14]) / IP(src=b, dst=a) / UDP(sport=HIP_PORT, dport=NAT_PORT) / \
        Raw(esp_b)
    plain = Ether(bytes(to_b)[:14]) / IP(src=a, dst=b, proto=50) / Raw(esp_b)
    # ICMP errors from a router to A about A's ESP in UDP to B
    q = bytes(IP(src=a, dst=b) / UDP(sport=NAT_PORT, dport=HIP_PORT) / Raw(esp_b))
    router = "198.51.100.254"
    err_spi = Ether(bytes(to_b)[:14]) / IP(src=router, dst=a) / \
        ICMP(type=3, code=4, nexthopmtu=1300) / Raw(q[:20 + 8 + 8])
    err_udp = Ether(bytes(to_b)[:14]) / IP(src=router, dst=a) / \
        ICMP(type=3, code=4, nexthopmtu=1300) / Raw(q[:20 + 8])
    left = [[x] for x in flows] + [[(moved, "out")], [(unknown, "mbox_no_flow")],
                                   [(wrong_dst, "mbox_no_flow")], [(plain, "out")],
                                   [(keepalive, "mbox_keepalive")], [(ka_ab, "out")]]
    right = [[(err_spi, "out")], [(err_udp, "policy")], [(ka_ba, "out")]]
    # the workers' lookup, and the control lcore's (--slow-path: gw_mbox_esp_key)
    for name, extra in (("esp", ()), ("slow", ("--slow-path",))):
        stats, out = dp.run(str(tmp_path / name), 4, left, right, extra=extra, gen=False,
                            bypass=False, state=state)
        dp.check(stats, out, left, right)
        mb = stats["middlebox"]
        assert mb["hip"]["loaded"] == 1 and mb["flows"] == 2, (name, mb)
        assert mb["esp"] == 12 and mb["udp_esp"] == 11 and mb["icmp"] == 1, (name, mb)
        assert mb["keepalive"] == 2, (name, mb)


def test_udp_fragments(tmp_path):
    """ESP in UDP fragmented (a NAT's path with a small MTU): the first
    fragment by its SPI, the later ones by the first, as plain ESP; a
    fragment of HIP over UDP is dropped (mbox_hip: the box checks whole HIP
    packets only)."""
    from scapy.layers.inet import fragment
    bex, c, init = bex_frames()
    state = str(tmp_path / "mbox.state")
    left = [[x] for x in bex]
    stats, out = dp.run(str(tmp_path / "bex"), 4, left, [], gen=False, bypass=False, state=state)
    dp.check(stats, out, left, [])
    b = c[0][IP].dst
    to_b = next(f for f in c[dp.CUTEHIP_R2 + 1:] if IP in f and f[IP].proto == 50 and
                f[IP].dst == b)
    big = IP(src=to_b[IP].src, dst=b, id=777) / UDP(sport=NAT_PORT, dport=HIP_PORT) / \
        Raw(bytes(to_b[IP].payload) + b"p" * 900)
    fr = [Ether(bytes(to_b)[:14]) / f for f in fragment(big, 400)]
    assert len(fr) >= 3
    lone = IP(src=to_b[IP].src, dst=b, id=778) / UDP(sport=NAT_PORT, dport=HIP_PORT) / \
        Raw(bytes(to_b[IP].payload) + b"q" * 900)
    lone_fr = [Ether(bytes(to_b)[:14]) / f for f in fragment(lone, 400)][1]
    hip = hip_over_udp(c[1], init)
    hip_fr = [Ether(bytes(to_b)[:14]) / f for f in fragment(hip[IP], 200)][0]
    left = [[(f, "out") for f in fr], [(lone_fr, "mbox_frag")], [(hip_fr, "mbox_hip")]]
    stats, out = dp.run(str(tmp_path / "frag"), 4, left, [], gen=False, bypass=False, state=state)
    dp.check(stats, out, left, [])
    mb = stats["middlebox"]
    assert mb["esp"] == 1 and mb["udp_esp"] == 1 and mb["frags"] == len(fr) - 1, mb


def test_state_file_binds_addresses(tmp_path):
    """The state file written from a BEX over UDP names the outer addresses
    (where the NAT maps the hosts), no ports: the spi lines' locators."""
    bex, c, _ = bex_frames()
    state = str(tmp_path / "mbox.state")
    left = [[x] for x in bex]
    stats, out = dp.run(str(tmp_path / "bex"), 4, left, [], gen=False, bypass=False, state=state)
    dp.check(stats, out, left, [])
    with open(state) as f:
        lines = [ln.split() for ln in f if ln.startswith("spi ")]
    assert sorted(ln[4] for ln in lines) == sorted([c[0][IP].src, c[0][IP].dst]), lines
    assert os.path.getsize(state) > 0


def lab_frames(fam):
    """UDP frames for the [mbox-gen] flows of test_mbox_dp (flow 0 to B with
    SPIS[0], flow 1 to A with SPIS[1]): (left groups, right groups), each
    frame with its verdict as test_mbox_dp.frames has them."""
    from scapy.layers.inet import fragment
    from scapy.layers.inet6 import ICMPv6PacketTooBig, IPv6ExtHdrFragment, fragment6
    n = dp.NET[fam]
    a, b, r = n["a"], n["b"], n["router"]

    def udp(src, dst, sport, dport, payload, **kw):
        return dp.eth(dp.ip(fam, src, dst) / UDP(sport=sport, dport=dport, **kw) / Raw(payload))

    def esp(spi, seq, size=60):
        return struct.pack("!II", spi, seq) + bytes([seq]) * size

    left = [[(udp(a, b, NAT_PORT, HIP_PORT, esp(dp.SPIS[0], 1)), "out"),
             (udp(a, b, NAT_PORT + 7, HIP_PORT, esp(dp.SPIS[0], 2)), "out")],
            [(udp(a, b, NAT_PORT, HIP_PORT, esp(dp.UNKNOWN_SPI, 3)), "mbox_no_flow"),
             (udp(a, b, NAT_PORT, HIP_PORT, esp(dp.SPIS[1], 4)), "mbox_no_flow")],
            [(udp(a, b, NAT_PORT, HIP_PORT, b"\0\0"), "udp_bad"),
             (udp(a, b, NAT_PORT, HIP_PORT, esp(dp.SPIS[0], 5), len=30), "udp_bad"),
             (udp(a, b, NAT_PORT, HIP_PORT, b"\x01\x02\x03\x04\x05"), "udp_bad")],
            [(udp(a, b, NAT_PORT, HIP_PORT, b"\xff"), "out"),
             (udp(r, b, NAT_PORT, HIP_PORT, b"\xff"), "mbox_keepalive")],
            [(udp(a, b, 5000, 5001, b"clear"), "policy")],
            [(udp(a, b, NAT_PORT, HIP_PORT, MARKER + b"\xa5" * 40), "mbox_hip")]]
    big = dp.ip(fam, a, b) / UDP(sport=NAT_PORT, dport=HIP_PORT) / Raw(esp(dp.SPIS[0], 9, 900))
    if fam == 4:
        big[IP].id = 4343
        fr = [dp.eth(f) for f in fragment(big, 400)]
    else:
        big = dp.ip(6, a, b) / IPv6ExtHdrFragment(id=4343) / UDP(sport=NAT_PORT, dport=HIP_PORT) / \
            Raw(esp(dp.SPIS[0], 9, 900))
        fr = [dp.eth(f) for f in fragment6(big, 400)]
    assert len(fr) >= 3
    left.append([(f, "out") for f in fr])
    q = bytes(dp.ip(fam, a, b) / UDP(sport=NAT_PORT, dport=HIP_PORT) / Raw(esp(dp.SPIS[0], 6)))
    hl = 20 if fam == 4 else 40
    def err(quote):
        if fam == 4:
            return dp.ip(4, r, a) / ICMP(type=3, code=4, nexthopmtu=1300) / Raw(quote)
        return dp.ip(6, r, a) / ICMPv6PacketTooBig(mtu=1280) / Raw(quote)
    right = [[(dp.eth(dp.ip(fam, b, a) / UDP(sport=HIP_PORT, dport=NAT_PORT) /
                      Raw(esp(dp.SPIS[1], 1)), dp.B_MAC, dp.A_MAC), "out"),
              (dp.eth(dp.ip(fam, b, a) / UDP(sport=HIP_PORT, dport=NAT_PORT) / Raw(b"\xff"),
                      dp.B_MAC, dp.A_MAC), "out")],
             [(dp.eth(err(q[:hl + 8 + 8]), dp.B_MAC, dp.A_MAC), "out"),
              (dp.eth(err(q), dp.B_MAC, dp.A_MAC), "out"),
              (dp.eth(err(q[:hl + 8]), dp.B_MAC, dp.A_MAC), "policy")]]
    return left, right


@pytest.mark.parametrize("fam", [4, 6])
def test_udp_lab_flows(tmp_path, fam):
    """ESP in UDP of [mbox-gen] flows, IPv4 and IPv6, one worker and two:
    known flows cross from any NAT port, both ways; unknown SPIs and an SPI
    to the other host are mbox_no_flow; runts, a UDP length that is not the
    datagram's and ESP shorter than its header udp_bad; keepalives between
    two flows' locators cross both ways, one from elsewhere is
    mbox_keepalive; other UDP policy; garbage behind the marker goes to the
    tracker (mbox_hip); a fragmented datagram crosses whole; ICMP errors
    quoting the UDP header and SPI of a known flow cross, the UDP header
    alone is policy."""
    left, right = lab_frames(fam)
    for workers in (1, 2):
        stats, out = dp.run(str(tmp_path / ("w%d" % workers)), fam, left, right, workers)
        dp.check(stats, out, left, right, ordered=workers == 1)
        mb = stats["middlebox"]
        nfr = len(left[-1])
        assert (mb["esp"], mb["udp_esp"], mb["frags"]) == (4, 4, nfr - 1), mb
        assert (mb["keepalive"], mb["icmp"], mb["hip_punted"]) == (2, 2, 1), mb
        assert mb["hip_drops"]["malformed"] == 1 and mb["hip"]["udp"] == 1, mb["hip_drops"]
