# SPDX-License-Identifier: BSD-3-Clause
"""ESP in UDP (RFC 3948) against scapy's SecurityAssociation with a
nat_t_header: the real binary on net_pcap ports, manual SAs, the out SA with
`udp-encap = 10500,4500`.

* outbound, every suite, IPv4 and IPv6 outer: each frame is IP / UDP / ESP
  from port 10500 to 4500, the UDP length the IP payload's, the checksum 0
  over IPv4 (RFC 3948 section 2.1) and right over IPv6 (RFC 8200 section
  8.1); with UDP taken off, scapy decrypts it to the inner packet sent,
  sequence numbers 1..N;
* inbound: scapy's UDP-encapsulated ESP to port 10500 (over IPv6 with the
  checksum scapy leaves at 0 filled in) is decrypted and forwarded, counted
  udp_esp; beside it NAT-keepalives (one byte 0xFF, RFC 3948 2.3) are
  counted udp_keepalive and dropped, HIP behind the non-ESP marker (RFC
  5770) is punted (udp_hip), bad UDP lengths and checksums are dropped as
  udp_bad / udp_cksum (IPv6 with scapy's zero checksum among them), UDP to
  another port as policy;
* workers = 2: the UDP-encapsulated ESP that the SA's non-owner receives
  goes through the handoff ring, and all of it comes out."""

import os
import random
import struct
import zlib

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import gwlib
from gwlib import SUITE_NAMES

N_OUT = 40
N_IN = 40
SPORT, DPORT = 10500, 4500     # our udp-encap ports (out SA)
HIP_PORT = 10500               # RFC 5770's hip-nat-t: where we take ESP in UDP
PEER_SPORT = 40000             # the peer's (a NAT's) source port
INNER_SITE = {4: "10.1.0.0/24", 6: "fd00:1::/64"}
REMOTE_SITE = {4: "10.2.0.0/16", 6: "fd00:2::/48"}
HOSTS = {4: gwlib.HOST4, 6: gwlib.HOST6}


def udp_esp_frame(sa, inner, seq, rng, fix_cksum=True):
    """scapy's UDP-encapsulated ESP of `inner` on in SA `sa`, to port 10500.
    scapy writes UDP checksum 0 (right for IPv4); fix_cksum recomputes it
    for IPv6, where 0 is not allowed. scapy 2.5 builds the IPv4 header (and
    so the UDP length, 8) before it appends ESP: the length is rebuilt, the
    one field not taken from scapy as it is (hipgw drops a UDP length that
    is not the IP payload's, as the bad-length cases check)."""
    ssa = sa.scapy()
    ssa.tunnel_header = gwlib.outer_header(sa)
    ssa.nat_t_header = UDP(sport=PEER_SPORT, dport=HIP_PORT)
    if isinstance(inner, (bytes, bytearray)):
        inner = IP(inner) if inner[0] >> 4 == 4 else IPv6(inner)
    pkt = ssa.encrypt(inner, seq_num=seq, iv=gwlib.scapy_iv(sa, rng))
    pkt = pkt.__class__(bytes(pkt))
    if IP in pkt:
        raw = bytearray(bytes(pkt))
        hl = (raw[0] & 15) * 4
        raw[hl + 4:hl + 6] = struct.pack("!H", len(raw) - hl)
        pkt = IP(bytes(raw))
    if fix_cksum and IPv6 in pkt:
        del pkt[UDP].chksum
        pkt = pkt.__class__(bytes(pkt))
    mac = gwlib.PEER6_MAC if ":" in sa.local else gwlib.GW4_MAC
    return Ether(src=mac, dst=gwlib.WAN_MAC) / pkt


def udp_frame(outer, payload, dport=HIP_PORT, ulen=None, chksum=None):
    """A UDP datagram from the peer to our outer address."""
    if outer == 4:
        ip = IP(src=gwlib.PEER4, dst=gwlib.WAN4)
        mac = gwlib.GW4_MAC
    else:
        ip = IPv6(src=gwlib.PEER6, dst=gwlib.WAN6)
        mac = gwlib.PEER6_MAC
    u = UDP(sport=PEER_SPORT, dport=dport)
    if ulen is not None:
        u.len = ulen
    if chksum is not None:
        u.chksum = chksum
    return Ether(src=mac, dst=gwlib.WAN_MAC) / ip / u / Raw(payload)


def extras(outer):
    """(frames, expected counts) of the non-ESP UDP cases."""
    hip = b"\x00\x00\x00\x00" + bytes([59, 4, 0x11, 0x02]) + bytes(32)   # marker + HIP-ish
    esp_like = struct.pack("!II", gwlib.SPI_IN, 1) + bytes(40)
    frames = [udp_frame(outer, b"\xff") for _ in range(3)]                 # keepalives
    frames += [udp_frame(outer, hip) for _ in range(2)]                    # HIP over UDP
    frames += [udp_frame(outer, esp_like, ulen=8 + len(esp_like) + 4),     # UDP length too long
               udp_frame(outer, esp_like, ulen=8 + len(esp_like) - 4),     # ... too short
               udp_frame(outer, b"\x01\x02")]                              # neither
    frames += [udp_frame(outer, esp_like, chksum=0x1234)]                  # bad checksum
    frames += [udp_frame(outer, esp_like, dport=4500)]                     # not our port
    want = dict(keepalive=3, hip=2, udp_bad=3, udp_cksum=1, policy=1)
    return frames, want


_runs = {}


def run_both(tmp_path_factory, suite, outer):
    key = (suite, outer)
    if key in _runs:
        return _runs[key]
    rng = random.Random(zlib.crc32(("udp-%s-%d" % key).encode()))
    out, inn = gwlib.make_sa_pair(rng, suite, outer)
    out.udp = (SPORT, DPORT)
    mx = gwlib.max_inner(gwlib.SUITES[suite], outer) - 8 - 16   # UDP, CBC's padding
    outbound = gwlib.mixed_traffic(rng, N_OUT, mx, INNER_SITE, REMOTE_SITE)
    inbound = gwlib.mixed_traffic(rng, N_IN, 1400, REMOTE_SITE, HOSTS)
    wan_in = [udp_esp_frame(inn, b, i + 1, rng) for i, b in enumerate(inbound)]
    ex, want = extras(outer)
    if outer == 6:
        # scapy's own IPv6 output, checksum 0: not allowed (RFC 8200 8.1)
        wan_in.append(udp_esp_frame(inn, inbound[0], N_IN + 1, rng, fix_cksum=False))
        want["udp_cksum"] += 1
    wan_in += ex
    gw = gwlib.Gateway(tmp_path_factory.mktemp("udp-%s-v%d" % key))
    r = gw.run([out, inn], [gwlib.lan_frame(b) for b in outbound], wan_in)
    _runs[key] = (out, inn, outbound, inbound, want, r)
    return _runs[key]


def check_udp_header(sa, frame, where):
    """The outer frame's UDP header (RFC 3948 2.1); returns the IP packet with
    UDP taken off (protocol 50), for scapy to decrypt."""
    ip = gwlib.ip_layer(frame)
    assert ip.src == sa.local and ip.dst == sa.remote, where
    assert UDP in frame, where + ": no UDP header"
    u = frame[UDP]
    assert (u.sport, u.dport) == (SPORT, DPORT), "%s: ports %d -> %d" % (where, u.sport, u.dport)
    raw = bytes(ip)
    if sa.outer_family == 4:
        assert ip.proto == 17 and gwlib.ipv4_checksum_ok(raw[:20]), where
        hl, tl = (raw[0] & 15) * 4, ip.len
        assert u.chksum == 0, "%s: IPv4 UDP checksum 0x%04x, RFC 3948 wants 0" % (where, u.chksum)
    else:
        assert ip.nh == 17, where
        hl, tl = 40, 40 + ip.plen
        assert u.chksum != 0, where + ": IPv6 UDP checksum 0"
        again = frame.copy()
        del again[UDP].chksum
        again = again.__class__(bytes(again))
        assert again[UDP].chksum == u.chksum, "%s: UDP checksum 0x%04x, scapy computes 0x%04x" % (
            where, u.chksum, again[UDP].chksum)
    assert u.len == tl - hl, "%s: UDP length %d, IP payload %d" % (where, u.len, tl - hl)
    esp = raw[hl + 8:tl]
    if sa.outer_family == 4:
        return IP(src=ip.src, dst=ip.dst, proto=50) / Raw(esp)
    return IPv6(src=ip.src, dst=ip.dst, nh=50) / Raw(esp)


@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_outbound_udp(tmp_path_factory, suite, outer):
    out, inn, sent, _, _, r = run_both(tmp_path_factory, suite, outer)
    frames = gwlib.data_frames(r.wan_out)
    assert len(frames) == len(sent), (len(frames), len(sent), r.drops)
    ssa = out.scapy()
    seqs, got = [], []
    for i, f in enumerate(frames):
        pkt = check_udp_header(out, f, "outer frame #%d" % i)
        pkt = pkt.__class__(bytes(pkt))
        seqs.append(struct.unpack("!I", bytes(pkt.payload)[4:8])[0])
        got.append(bytes(ssa.decrypt(pkt)))
    assert seqs == list(range(1, len(sent) + 1)), seqs[:20]
    problems = gwlib.match_forwarded(sent, got, what="inner packet")
    assert not problems, "\n".join(problems[:20])
    assert r.sa(out.name)["packets"] == len(sent)


@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_inbound_udp(tmp_path_factory, suite, outer):
    out, inn, _, sent, want, r = run_both(tmp_path_factory, suite, outer)
    frames = gwlib.data_frames(r.lan_out)
    problems = gwlib.match_forwarded(sent, [gwlib.inner_bytes_of(f) for f in frames],
                                     what="inner packet")
    assert not problems, "\n".join(problems[:20])
    assert r.sa(inn.name)["packets"] == len(sent)
    w = r.stats["workers"]
    assert sum(x["udp_esp"] for x in w) == len(sent), w
    assert sum(x["udp_keepalive"] for x in w) == want["keepalive"], w
    assert sum(x["udp_hip"] for x in w) == want["hip"], w
    # no HIP configured: the control lcore has no engine for the punted
    # HIP packets and drops them as policy
    gwlib.check_drops(r, udp_bad=want["udp_bad"], udp_cksum=want["udp_cksum"],
                      policy=want["policy"] + want["hip"])


def test_workers2_handoff(tmp_path):
    """UDP-encapsulated ESP split over two RX queues: the SA has one owner,
    the other worker hands its share over, all of it is delivered."""
    import test_workers as tw
    rng = random.Random(zlib.crc32(b"udp-workers"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16")
    inbound = gwlib.mixed_traffic(rng, 64, 1200, REMOTE_SITE, HOSTS)
    esp = [udp_esp_frame(inn, b, i + 1, rng) for i, b in enumerate(inbound)]
    _, _, st, outs = tw.run2(str(tmp_path), [out, inn], wan_in=(esp[0::2], esp[1::2]))
    got = [gwlib.inner_bytes_of(f) for q in outs["lan"] for f in gwlib.data_frames(q)]
    problems = gwlib.match_forwarded(inbound, got, what="inner packet")
    assert not problems, "\n".join(problems[:10])
    gwlib.check_drops(tw.Drops(st))
    assert st["sa"][inn.name]["packets"] == len(inbound)
    assert tw.worker_sum(st, "udp_esp") == len(inbound), st["workers"]
    assert tw.worker_sum(st, "handoff_out") > 0, st["workers"]
    assert tw.worker_sum(st, "handoff_out") == tw.worker_sum(st, "handoff_in"), st["workers"]
