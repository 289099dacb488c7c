# SPDX-License-Identifier: BSD-3-Clause
"""L2 mode over a 1500-byte outer MTU, through the real binary on net_pcap
ports with a manually keyed bridge. Outbound, a full-size frame (1514 bytes,
1522 with two tags) is encrypted whole and its outer packet fragmented: every
packet on the outer port is at most 1500 bytes, scapy reassembles the
fragments (defragment, defragment6) and decrypts them to EtherIP + the frame
byte for byte; a frame that fits leaves as one packet, a frame longer than
the port's mtu after its Ethernet header and tags is dropped
(l2_too_long). Inbound, scapy's fragments of
ESP that scapy encrypted come out of the l2 port as the frame."""

import random
import zlib

import pytest
from scapy.layers.inet import IP, UDP, defragment, fragment
from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment, defragment6, fragment6
from scapy.layers.ipsec import ESP
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.packet import Raw

import gwlib
from gwlib import SUITE_NAMES, check_drops
from test_l2 import ETHERIP_HDR, ETHERIP_NH, SITE_A, SITE_B, bridge_section, transport_sa, \
    two_remotes

WAN_MTU = 1500
JUMBO_MTU = 9000
OUTERS = [4, 6]


def frame(length, tags=0, fill=b"f"):
    """An Ethernet frame of exactly `length` bytes from SITE_A to SITE_B with
    0, 1 or 2 VLAN tags (802.1ad outside, 802.1Q inside), an IPv4 UDP packet
    in it, padded with `fill`."""
    eth = Ether(src=SITE_A, dst=SITE_B)
    if tags == 2:
        eth = eth / Dot1AD(vlan=100) / Dot1Q(vlan=42)
    elif tags == 1:
        eth = eth / Dot1Q(vlan=42)
    hdr = eth / IP(src="10.5.0.1", dst="10.5.0.2") / UDP(sport=1000, dport=2000)
    b = bytes(hdr / Raw(fill * (length - len(hdr))))
    assert len(b) == length
    return b


def run_bridge(tmp, suite, outer, lan_in=(), wan_in=(), lan_mtu=gwlib.MTU, wan_mtu=WAN_MTU):
    rng = random.Random(zlib.crc32(("l2-frag-%s-%d" % (suite, outer)).encode()))
    out, inn = gwlib.make_sa_pair(rng, suite, outer)
    d = str(tmp)
    cfg = gwlib.write_config(d, [out, inn], lan_extra="mode = l2", lan_mtu=lan_mtu,
                             wan_mtu=wan_mtu)
    with open(cfg) as f:
        text = f.read()
    if wan_mtu < 1280:                    # an IPv6 port takes no less: the outer port IPv4 only
        wan = text.index("[port wan]")
        text = text[:wan] + text[wan:].replace(
            "address = %s/24, %s/64" % (gwlib.WAN4, gwlib.WAN6), "address = %s/24" % gwlib.WAN4, 1
        ).replace(", %s %s" % (gwlib.PEER6, gwlib.PEER6_MAC), "", 1)
    with open(cfg, "w") as f:
        f.write(text + "\n[bridge site]\nport = lan\nsas = %s, %s\n" % (out.name, inn.name))
    r = gwlib.run_hipgw(d, cfg, lan_in, wan_in)
    gwlib.check_clean_run(r)
    return out, inn, r


def outer_len(suite, outer, frame_len):
    payload = frame_len + len(ETHERIP_HDR)
    return payload + gwlib.esp_overhead(gwlib.SUITES[suite], outer, payload)


def fragments_needed(outer, length, mtu):
    """Outer fragments of an IP packet of `length` bytes for `mtu` (RFC 791 2.3,
    RFC 8200 4.5: all but the last carry a multiple of 8 bytes)."""
    hdr = 20 if outer == 4 else 40
    per = (mtu - hdr - (0 if outer == 4 else 8)) // 8 * 8
    return 1 if length <= mtu else -(-(length - hdr) // per)


def esp_packets(wan_out, outer):
    """The outer packets on the wire, as [(whole IP packet, fragments)] in
    the order of their first piece: unfragmented ones with fragments [],
    fragments reassembled by scapy."""
    groups, order = {}, []
    for f in wan_out:
        if outer == 4 and IP in f:
            ip = IP(bytes(f[IP]))
            key = ("f", ip.id) if ip.flags.MF or ip.frag else ("w", len(order))
        elif outer == 6 and IPv6 in f:
            ip = IPv6(bytes(f[IPv6]))
            key = ("f", ip[IPv6ExtHdrFragment].id) if IPv6ExtHdrFragment in ip else \
                ("w", len(order))
        else:
            continue
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(ip)
    got = []
    for key in order:
        pieces = groups[key]
        if key[0] == "w":
            got.append((pieces[0], []))
        elif outer == 4:
            whole = defragment(pieces)
            assert len(whole) == 1, "IPv4 fragments of id %d did not reassemble" % key[1]
            got.append((IP(bytes(whole[0])), pieces))
        else:
            got.append((IPv6(bytes(defragment6(pieces))), pieces))
    return got


def check_fragments(pieces, outer, mtu):
    """Each fragment fits mtu; IPv4: DF clear, MF on all but the last."""
    for k, p in enumerate(pieces):
        assert len(p) <= mtu, "fragment of %d bytes over the MTU %d" % (len(p), mtu)
        if outer == 4:
            assert not p.flags.DF, p.summary()
            assert bool(p.flags.MF) == (k + 1 < len(pieces)), p.summary()
            c = IP(bytes(p))
            del c.chksum
            assert IP(bytes(c)).chksum == p.chksum, "header checksum: %s" % p.summary()
        else:
            fh = p[IPv6ExtHdrFragment]
            assert fh.nh == 50 and fh.m == (k + 1 < len(pieces)), p.summary()


def check_outbound(wan_out, out, outer, frames, mtu=WAN_MTU, seq=1):
    """frames left, in order, each as ESP (fragmented when over mtu; sequence
    numbers from seq on) that decrypts to EtherIP + the frame. Returns the
    fragment count of each."""
    got = esp_packets(wan_out, outer)
    assert len(got) == len(frames), "outer packets: %d, expected %d: %s" % (
        len(got), len(frames), [f.summary() for f in wan_out])
    ssa = transport_sa(out)
    counts, ids = [], []
    for i, ((ip, pieces), want) in enumerate(zip(got, frames)):
        assert ip.src == out.local and ip.dst == out.remote, ip.summary()
        assert ip[ESP].spi == out.spi and ip[ESP].seq == seq + i, (hex(ip[ESP].spi), ip[ESP].seq)
        n = fragments_needed(outer, len(ip), mtu)
        assert len(pieces) == (n if n > 1 else 0), \
            "frame #%d (%d bytes, outer %d): %d fragments, expected %d" % (
                i, len(want), len(ip), len(pieces), n)
        check_fragments(pieces, outer, mtu)
        if pieces:
            ids.append(pieces[0].id if outer == 4 else pieces[0][IPv6ExtHdrFragment].id)
        dec = ssa.decrypt(ip)
        nh = dec.proto if outer == 4 else dec.nh
        assert nh == ETHERIP_NH, "next header %d, expected 97" % nh
        payload = bytes(dec.payload)
        assert payload == ETHERIP_HDR + want, "frame #%d differs:\n%s\n%s" % (
            i, payload.hex(), (ETHERIP_HDR + want).hex())
        counts.append(len(pieces))
    assert len(set(ids)) == len(ids), "fragmented packets share an Identification: %s" % ids
    return counts


def worker_sum(r, key):
    return sum(w[key] for w in r.stats["workers"])


@pytest.mark.parametrize("suite", SUITE_NAMES)
@pytest.mark.parametrize("outer", OUTERS, ids=["outer4", "outer6"])
def test_outbound_fragmented(tmp_path, suite, outer):
    fit = gwlib.max_inner(gwlib.SUITES[suite], outer, WAN_MTU) - len(ETHERIP_HDR)
    frames = [frame(1514), frame(200), frame(1522, tags=2), frame(fit, fill=b"i"),
              frame(fit + 1, fill=b"o"), frame(1518, tags=1)]
    too_long = [frame(1523, tags=2), frame(1515), frame(1519, tags=1)]
    out, _, r = run_bridge(tmp_path, suite, outer, frames[:3] + too_long + frames[3:])
    check_drops(r, l2_too_long=len(too_long))
    assert outer_len(suite, outer, fit) <= WAN_MTU < outer_len(suite, outer, fit + 1)
    counts = check_outbound(r.wan_out, out, outer, frames)
    assert counts[1] == 0 and counts[3] == 0, counts          # they fit: one packet each
    assert all(counts[i] >= 2 for i in (0, 2, 4, 5)), counts
    assert worker_sum(r, "esp_fragmented") == 4, r.stats["workers"]
    assert worker_sum(r, "esp_fragments") == sum(counts), r.stats["workers"]
    assert r.sa(out.name)["packets"] == len(frames)
    # net_pcap keeps no buffer: the fragments' header mbufs and the ESP packets
    # their indirect mbufs held are all back in the pool
    assert r.stats["mbufs"]["in_use"] == 0, r.stats["mbufs"]


@pytest.mark.parametrize("outer", OUTERS, ids=["outer4", "outer6"])
def test_outbound_jumbo_frame(tmp_path, outer):
    """An l2 port of mtu 9000: a 4000-byte frame (chained on receive, copied
    into a large mbuf) and one of 9022 bytes, the longest it takes, leave in
    fragments; 9023 bytes is too long."""
    suite = "aes256-cbc-sha256"
    frames = [frame(4000), frame(JUMBO_MTU + 22, tags=2)]
    out, _, r = run_bridge(tmp_path, suite, outer, frames + [frame(JUMBO_MTU + 23, tags=2)],
                           lan_mtu=JUMBO_MTU)
    check_drops(r, l2_too_long=1)
    counts = check_outbound(r.wan_out, out, outer, frames)
    assert worker_sum(r, "esp_fragmented") == 2 and \
        worker_sum(r, "esp_fragments") == sum(counts), (counts, r.stats["workers"])


def test_outbound_too_many_fragments(tmp_path):
    """Over an outer MTU of 576 a 9022-byte frame would need more fragments
    than a receiver reassembles (8): dropped as mtu; a 1514-byte one goes in
    three."""
    suite = "aes128-gcm16"
    out, _, r = run_bridge(tmp_path, suite, 4, [frame(JUMBO_MTU + 22, tags=2), frame(1514)],
                           lan_mtu=JUMBO_MTU, wan_mtu=576)
    check_drops(r, mtu=1)
    counts = check_outbound(r.wan_out, out, 4, [frame(1514)], mtu=576, seq=2)   # 1: the dropped one
    assert counts == [3], counts
    assert worker_sum(r, "esp_fragmented") == 1 and worker_sum(r, "esp_fragments") == 3


def esp_in_fragments(inn, outer, payload, seq, ident, reverse=False, mtu=WAN_MTU):
    """scapy's ESP of `payload` (next header 97) from the peer, cut by scapy
    into outer fragments of at most mtu bytes, as Ethernet frames to our
    outer port."""
    cls = IP if outer == 4 else IPv6
    pkt = cls(src=inn.remote, dst=inn.local) / Raw(payload)
    if outer == 4:
        pkt.proto = ETHERIP_NH
    else:
        pkt.nh = ETHERIP_NH
    enc = cls(bytes(transport_sa(inn).encrypt(pkt, seq_num=seq)))
    if outer == 4:
        enc.id = ident
        enc.flags = 0
        pieces = fragment(cls(bytes(enc)), fragsize=(mtu - 20) // 8 * 8)
        src_mac = gwlib.GW4_MAC
    else:
        f = IPv6(src=enc.src, dst=enc.dst) / IPv6ExtHdrFragment(nh=50, id=ident) / \
            Raw(bytes(enc.payload))
        pieces = fragment6(IPv6(bytes(f)), mtu)
        src_mac = gwlib.PEER6_MAC
    wire = [Ether(src=src_mac, dst=gwlib.WAN_MAC) / cls(bytes(p)) for p in pieces]
    assert all(len(w[cls]) <= mtu for w in wire)
    if len(bytes(enc)) > mtu:
        assert len(wire) >= 2, "the ESP packet should have been cut: %d bytes" % len(bytes(enc))
    return wire[::-1] if reverse else wire


@pytest.mark.parametrize("suite", SUITE_NAMES)
@pytest.mark.parametrize("outer", OUTERS, ids=["outer4", "outer6"])
def test_inbound_fragmented(tmp_path, suite, outer):
    frames = [frame(1514, fill=b"a"), frame(1522, tags=2, fill=b"b"), frame(300, fill=b"c"),
              frame(1518, tags=1, fill=b"d")]
    rng = random.Random(zlib.crc32(("l2-frag-%s-%d" % (suite, outer)).encode()))
    _, inn = gwlib.make_sa_pair(rng, suite, outer)
    wan = []
    for i, fr in enumerate(frames):
        wan += esp_in_fragments(inn, outer, ETHERIP_HDR + fr, i + 1, 0x5000 + i, reverse=i == 1)
    _, _, r = run_bridge(tmp_path, suite, outer, wan_in=wan)
    check_drops(r)
    got = [bytes(f) for f in r.lan_out]
    assert got == frames, "frames on the l2 port:\n%s\nexpected:\n%s" % (
        [g.hex() for g in got], [f.hex() for f in frames])
    assert r.sa(inn.name)["packets"] == len(frames)


@pytest.mark.parametrize("outer", OUTERS, ids=["outer4", "outer6"])
def test_inbound_reassembled_beyond_one_mbuf(tmp_path, outer):
    """A 4000-byte frame in fragments: reassembled to more than one default
    mbuf holds, decrypted and bridged on an l2 port of mtu 9000."""
    suite = "aes128-gcm16"
    frames = [frame(4000, tags=1, fill=b"j"), frame(1514, fill=b"k")]
    rng = random.Random(zlib.crc32(("l2-frag-%s-%d" % (suite, outer)).encode()))
    _, inn = gwlib.make_sa_pair(rng, suite, outer)
    wan = []
    for i, fr in enumerate(frames):
        wan += esp_in_fragments(inn, outer, ETHERIP_HDR + fr, i + 1, 0x7000 + i)
    _, _, r = run_bridge(tmp_path, suite, outer, wan_in=wan, lan_mtu=JUMBO_MTU)
    check_drops(r)
    assert [bytes(f) for f in r.lan_out] == frames, [len(f) for f in r.lan_out]


@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes128-cbc-sha256"])
def test_flood_fragmented_to_every_remote(tmp_path, suite):
    """A full-size broadcast and unknown unicast frame flooded to two remotes:
    each copy is encrypted with its own SA and fragmented on its own; a small
    one goes whole to both."""
    sas = two_remotes(suite)
    frames = [frame(1514, fill=b"B"), frame(100, fill=b"s"), frame(1522, tags=2, fill=b"U")]
    frames[0] = b"\xff" * 6 + frames[0][6:]          # broadcast
    d = str(tmp_path)
    cfg = gwlib.write_config(d, sas, lan_extra="mode = l2")
    with open(cfg, "a") as f:
        f.write(bridge_section(sas))
    r = gwlib.run_hipgw(d, cfg, frames, [])
    gwlib.check_clean_run(r)
    check_drops(r)
    total = 0
    for out in (sas[0], sas[2]):
        mine = [f for f in r.wan_out if IP in f and f[IP].dst == out.remote]
        total += sum(check_outbound(mine, out, 4, frames))
    assert worker_sum(r, "l2_flooded") == len(frames)
    assert worker_sum(r, "esp_fragmented") == 4, r.stats["workers"]
    assert worker_sum(r, "esp_fragments") == total == 8, (total, r.stats["workers"])

