# SPDX-License-Identifier: BSD-3-Clause
"""Bad input, each in the middle of good traffic: every bad
packet is dropped and counted under exactly its reason of section 3, all other
drop counters stay 0, the good packets before and after it pass, and nothing
crashes."""

import struct

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import gwlib
from gwlib import SUITES, check_drops

REMOTE_SITE = {4: "10.2.0.0/16", 6: "fd00:2::/48"}
INNER_SITE = {4: "10.1.0.0/24", 6: "fd00:1::/64"}
HOSTS = {4: gwlib.HOST4, 6: gwlib.HOST6}


class Feed:
    """Inbound frames for the outer port: good ESP (made by scapy) with sequence
    numbers counting up from 1, and bad frames put in between."""

    def __init__(self, rng, sa, max_size=1400):
        self.rng, self.sa, self.max_size = rng, sa, max_size
        self.frames = []
        self.good = []          # inner packets that must come out
        self.good_frames = {}   # seq -> (inner, frame)
        self.seq = 1

    def inner(self, size=None, fam=None, src=None, dst=None, **kw):
        fam = fam or self.rng.choice([4, 6])
        size = size or self.rng.randint(60, self.max_size)
        src = src or gwlib.rand_host(self.rng, fam, REMOTE_SITE[fam])
        return gwlib.inner_packet(self.rng, fam, src, dst or HOSTS[fam], size, **kw)

    def add_good(self, n=16):
        for _ in range(n):
            b = self.inner()
            f = gwlib.esp_frame_scapy(self.sa, b, self.seq, iv=gwlib.scapy_iv(self.sa, self.rng))
            self.frames.append(f)
            self.good.append(b)
            self.good_frames[self.seq] = (b, f)
            self.seq += 1
        return self

    def next_seq(self):
        s = self.seq
        self.seq += 1
        return s

    def add(self, frame):
        self.frames.append(frame)
        return self


def check_inbound_good(r, feed):
    frames = gwlib.data_frames(r.lan_out)
    wrong = [(i, f.src, f.dst) for i, f in enumerate(frames)
             if f.src.lower() != gwlib.LAN_MAC or f.dst.lower() != gwlib.HOST_MAC]
    assert not wrong, "inner frames with wrong MACs: %s" % wrong[:5]
    problems = gwlib.match_forwarded(feed.good, [gwlib.inner_bytes_of(f) for f in frames],
                                     what="inner packet")
    assert not problems, "good traffic around the bad packet: " + "\n".join(problems[:10])
    # the SA counts what it delivered: a packet dropped for any reason is not one
    sa = r.sa(feed.sa.name)
    assert sa["packets"] == len(feed.good), \
        "in SA %s counts %d packets, but %d were delivered (dropped packets counted as " \
        "passed? drops: %s)" % (feed.sa.name, sa["packets"], len(feed.good),
                                {k: v for k, v in r.drops.items() if v})


def esp_bytes(frame):
    """(outer IP header bytes, ESP bytes) of an ESP frame."""
    ip = bytes(gwlib.ip_layer(frame))
    hl = 20 if ip[0] >> 4 == 4 else 40
    return ip[:hl], ip[hl:]


def reframe(frame, esp):
    """The same outer header with new ESP bytes (lengths and checksum fixed)."""
    hdr, _ = esp_bytes(frame)
    if hdr[0] >> 4 == 4:
        ip = IP(hdr)
        ip.len = None
        ip.chksum = None
        ip.remove_payload()
        out = IP(bytes(ip / Raw(esp)))
    else:
        ip = IPv6(hdr)
        ip.plen = None
        ip.remove_payload()
        out = IPv6(bytes(ip / Raw(esp)))
    return Ether(src=frame.src, dst=frame.dst) / out


def sa_pair(rng, suite="aes128-gcm16", outer=4, **kw):
    return gwlib.make_sa_pair(rng, suite, outer, **kw)


# --------------------------------------------------------------------------
# no_sa

@pytest.mark.parametrize("spi", [0x9999, 0], ids=["unknown", "zero"])
def test_unknown_or_zero_spi(gw, rng, spi):
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good()
    other = gwlib.SA(**{**inn.__dict__, "spi": spi})
    feed.add(gwlib.esp_frame_ref(other, feed.inner(), feed.next_seq()))
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, no_sa=1)


# --------------------------------------------------------------------------
# auth: the bad copy comes first, the genuine packet with the same sequence
# number after it must still pass (window updated only after the ICV verified)

@pytest.mark.parametrize("suite", gwlib.SUITE_NAMES)
def test_flipped_ciphertext_bit(gw, rng, suite):
    out, inn = sa_pair(rng, suite)
    feed = Feed(rng, inn).add_good()
    seq = feed.next_seq()
    b = feed.inner(size=300)
    good = gwlib.esp_frame_scapy(inn, b, seq, iv=gwlib.scapy_iv(inn, rng))
    _, esp = esp_bytes(good)
    bad = bytearray(esp)
    bad[8 + inn.suite.iv_len + 37] ^= 0x10          # inside the (cipher)text
    feed.add(reframe(good, bytes(bad)))
    feed.add(good)
    feed.good.append(b)
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, auth=1)


@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes128-cbc-sha256", "null-sha256"])
def test_truncated_icv(gw, rng, suite):
    """A cut ICV is an ICV mismatch (auth). The cut keeps the payload aligned
    (8 bytes; 16 for CBC) so that only the ICV is at fault."""
    out, inn = sa_pair(rng, suite)
    feed = Feed(rng, inn).add_good()
    seq = feed.next_seq()
    b = feed.inner(size=400)
    good = gwlib.esp_frame_scapy(inn, b, seq, iv=gwlib.scapy_iv(inn, rng))
    _, esp = esp_bytes(good)
    cut = 16 if inn.suite.kind == "cbc" else 8
    feed.add(reframe(good, esp[:-cut]))
    feed.add(good)
    feed.good.append(b)
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, auth=1)


# --------------------------------------------------------------------------
# malformed: runt ESP

@pytest.mark.parametrize("how", ["one-short", "header-only", "half-spi"])
@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes256-cbc-sha256"])
def test_runt_esp(gw, rng, suite, how):
    """Fewer bytes than SPI + sequence number + IV + ICV."""
    out, inn = sa_pair(rng, suite)
    feed = Feed(rng, inn).add_good()
    s = inn.suite
    hdr = struct.pack("!II", inn.spi, feed.next_seq())
    if how == "one-short":
        esp = hdr + bytes(rng.getrandbits(8) for _ in range(s.iv_len + s.icv_len - 1))
    elif how == "header-only":
        esp = hdr
    else:
        esp = hdr[:2]
    f = gwlib.Ether(src=gwlib.GW4_MAC, dst=gwlib.WAN_MAC) / \
        IP(src=inn.remote, dst=inn.local, proto=50) / Raw(esp)
    feed.add(f)
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, malformed=1)


# --------------------------------------------------------------------------
# pad: crafted trailers with a valid ICV (reference ESP on python3-cryptography)

@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes128-cbc-sha256", "null-sha256"])
def test_pad_length_larger_than_payload(gw, rng, suite):
    out, inn = sa_pair(rng, suite)
    feed = Feed(rng, inn).add_good()
    b = feed.inner(size=100, fam=4)
    feed.add(gwlib.esp_frame_ref(inn, b, feed.next_seq(), padlen=250))
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, pad=1)


@pytest.mark.parametrize("pattern", ["zeros", "off-by-one"])
@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes256-cbc-sha256", "null-sha256"])
def test_wrong_padding_pattern(gw, rng, suite, pattern):
    out, inn = sa_pair(rng, suite)
    feed = Feed(rng, inn).add_good()
    b = feed.inner(size=203, fam=4)
    n = len(gwlib.default_padding(inn.suite, len(b))) + inn.suite.align
    if pattern == "zeros":
        padding = bytes(n)
    else:
        padding = bytes(range(1, n)) + bytes([n + 1])  # last byte wrong only
    feed.add(gwlib.esp_frame_ref(inn, b, feed.next_seq(), padding=padding))
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, pad=1)


# --------------------------------------------------------------------------
# replay

@pytest.mark.parametrize("what", ["replayed", "seq-zero", "too-old"])
def test_replay(gw, rng, what):
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn)
    if what == "too-old":
        # a valid packet with sequence number 5 arrives after 5000..5007: outside
        # any window hipgw may have (1024 by default, at most 4096)
        feed.add_good(4)
        feed.seq = 5000
        feed.add_good(8)
        feed.add(gwlib.esp_frame_scapy(inn, feed.inner(), 5, iv=gwlib.scapy_iv(inn, rng)))
    else:
        feed.add_good(20)
        if what == "replayed":
            feed.add(feed.good_frames[5][1])
        else:
            feed.add(gwlib.esp_frame_ref(inn, feed.inner(), 0))
    feed.add_good(20)
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, replay=1)


@pytest.mark.parametrize("first", ["bad-pad", "dummy"])
@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes128-cbc-sha256", "null-sha256"])
def test_authentic_drop_takes_its_number(gw, rng, suite, first):
    """RFC 4303 3.4.3: a packet whose ICV verifies takes its sequence number even
    when it is dropped afterwards (bad padding; next header 59, a dummy packet,
    RFC 4303 2.6): a sound packet with the same number later is a replay."""
    out, inn = sa_pair(rng, suite)
    feed = Feed(rng, inn).add_good()
    b = feed.inner(size=150, fam=4)
    seq = feed.next_seq()
    if first == "bad-pad":
        n = len(gwlib.default_padding(inn.suite, len(b))) + inn.suite.align
        feed.add(gwlib.esp_frame_ref(inn, b, seq, padding=bytes(n)))
    else:
        feed.add(gwlib.esp_frame_ref(inn, b, seq, nh=59))
    feed.add_good(3)
    feed.add(gwlib.esp_frame_ref(inn, b, seq))       # sound, same number: replay
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    if first == "bad-pad":
        check_drops(r, pad=1, replay=1)
    else:
        check_drops(r, dummy=1, replay=1)


@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
def test_tfc_padding_removed(gw, rng, outer):
    """RFC 4303 2.7: TFC padding after the inner packet (before the ESP padding)
    is cut off: the packet is forwarded with exactly its own length."""
    out, inn = sa_pair(rng, outer=outer)
    feed = Feed(rng, inn).add_good(4)
    for fam, tfc in ((4, 1), (6, 77), (4, 300)):
        b = feed.inner(size=200, fam=fam)
        feed.add(gwlib.esp_frame_ref(inn, b + bytes(rng.getrandbits(8) for _ in range(tfc)),
                                     feed.next_seq(), nh=4 if fam == 4 else 41))
        feed.good.append(b)
        feed.add_good(2)
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r)


def test_duplicate_inside_one_burst(gw, rng):
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good(3)
    dup = feed.add_good(1).frames[-1]
    feed.add(dup)                     # frames 4 and 5 are the same: one RX burst of 32
    feed.add_good(20)
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, replay=1)


# --------------------------------------------------------------------------
# spoof (RFC 4301 5.2: inner addresses checked against the SA's selectors)

@pytest.mark.parametrize("what", ["src4", "src6", "dst4", "dst6"])
def test_inner_address_outside_sa_prefixes(gw, rng, what):
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good()
    bad = {"src4": dict(fam=4, src="10.3.0.5"), "src6": dict(fam=6, src="fd00:3::5"),
           "dst4": dict(fam=4, dst="10.1.7.7"), "dst6": dict(fam=6, dst="fd00:1:0:7::7")}[what]
    b = feed.inner(size=200, **bad)
    feed.add(gwlib.esp_frame_scapy(inn, b, feed.next_seq(), iv=gwlib.scapy_iv(inn, rng)))
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, spoof=1)


# --------------------------------------------------------------------------
# malformed: lengths that disagree with the frame

@pytest.mark.parametrize("where", ["outer4", "outer6", "inner-in-esp4", "inner-in-esp6",
                                   "lan4", "lan6"])
def test_ip_length_larger_than_frame(gw, rng, where):
    outer = 6 if where == "outer6" else 4
    out, inn = sa_pair(rng, outer=outer)
    feed = Feed(rng, inn).add_good()
    lan_good = gwlib.mixed_traffic(rng, 20, gwlib.max_inner(out.suite, outer),
                                   INNER_SITE, REMOTE_SITE)
    lan_in = [gwlib.lan_frame(b) for b in lan_good[:10]]
    if where.startswith("outer"):
        seq = feed.next_seq()
        f = gwlib.esp_frame_scapy(inn, feed.inner(size=300), seq, iv=gwlib.scapy_iv(inn, rng))
        ipb = bytearray(bytes(gwlib.ip_layer(f)))
        if outer == 4:
            ipb[2:4] = struct.pack("!H", len(ipb) + 40)
            ipb = _fix_v4_checksum(ipb)
        else:
            ipb[4:6] = struct.pack("!H", len(ipb) - 40 + 40)
        feed.add(Ether(bytes(Ether(src=f.src, dst=f.dst, type=f.type)) + bytes(ipb)))
    elif where.startswith("inner-in-esp"):
        fam = int(where[-1])
        b = bytearray(feed.inner(size=300, fam=fam))
        if fam == 4:
            b[2:4] = struct.pack("!H", len(b) + 40)
            b = _fix_v4_checksum(b)
        else:
            b[4:6] = struct.pack("!H", len(b) - 40 + 40)
        feed.add(gwlib.esp_frame_ref(inn, bytes(b), feed.next_seq()))
    else:
        fam = int(where[-1])
        b = bytearray(gwlib.inner_packet(rng, fam, gwlib.HOST4 if fam == 4 else gwlib.HOST6,
                                         "10.2.0.9" if fam == 4 else "fd00:2::9", 300))
        if fam == 4:
            b[2:4] = struct.pack("!H", len(b) + 40)
            b = _fix_v4_checksum(b)
        else:
            b[4:6] = struct.pack("!H", len(b) - 40 + 40)
        lan_in.append(Ether(bytes(Ether(src=gwlib.HOST_MAC, dst=gwlib.LAN_MAC,
                                        type=0x800 if fam == 4 else 0x86dd)) + bytes(b)))
    lan_in += [gwlib.lan_frame(b) for b in lan_good[10:]]
    feed.add_good()
    r = gw.run([out, inn], lan_in=lan_in, wan_in=feed.frames)
    check_inbound_good(r, feed)
    frames = gwlib.data_frames(r.wan_out)
    dec = gwlib.decrypt_outbound(out, frames)
    problems = gwlib.match_forwarded(lan_good, [d.inner for d in dec])
    assert not problems, "good outbound traffic: " + "\n".join(problems[:10])
    check_drops(r, malformed=1)


def _fix_v4_checksum(b):
    b = bytearray(b)
    ihl = (b[0] & 15) * 4
    b[10:12] = b"\0\0"
    s = sum((b[i] << 8) | b[i + 1] for i in range(0, ihl, 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    b[10:12] = struct.pack("!H", ~s & 0xffff)
    return b


# --------------------------------------------------------------------------
# fragmented ESP: reassembled when sound, dropped (malformed) when fragments overlap

def fragments4(frame, pieces, ident):
    """Outer IPv4 fragments of an ESP frame: pieces = [(offset, end, more)] in bytes
    of the ESP payload."""
    hdr, esp = esp_bytes(frame)
    ip = IP(hdr)
    out = []
    for off, end, more in pieces:
        f = IP(src=ip.src, dst=ip.dst, proto=50, id=ident, ttl=ip.ttl, tos=ip.tos,
               flags="MF" if more else 0, frag=off // 8) / Raw(esp[off:end])
        out.append(Ether(src=frame.src, dst=frame.dst) / IP(bytes(f)))
    return out


def fragments6(frame, pieces, ident):
    hdr, esp = esp_bytes(frame)
    ip = IPv6(hdr)
    out = []
    for off, end, more in pieces:
        f = IPv6(src=ip.src, dst=ip.dst, hlim=ip.hlim, tc=ip.tc, fl=ip.fl) / \
            IPv6ExtHdrFragment(nh=50, offset=off // 8, m=1 if more else 0, id=ident) / \
            Raw(esp[off:end])
        out.append(Ether(src=frame.src, dst=frame.dst) / IPv6(bytes(f)))
    return out


@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
def test_fragmented_esp_reassembled(gw, rng, outer):
    out, inn = sa_pair(rng, outer=outer)
    feed = Feed(rng, inn).add_good(8)
    for i, (size, cut) in enumerate([(1400, 800), (1000, 8 * 40), (600, 296)]):
        b = feed.inner(size=size)
        f = gwlib.esp_frame_scapy(inn, b, feed.next_seq(), iv=gwlib.scapy_iv(inn, rng))
        _, esp = esp_bytes(f)
        pieces = [(0, cut, True), (cut, len(esp), False)]
        if i == 1:
            pieces.reverse()              # last fragment first
        frag = fragments4 if outer == 4 else fragments6
        for x in frag(f, pieces, 0x4000 + i):
            feed.add(x)
        feed.good.append(b)
        feed.add_good(4)
    feed.add_good(8)
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r)


@pytest.mark.parametrize("how", ["overlap4", "overlap-hole4", "overlap6"])
def test_overlapping_fragments(gw, rng, how):
    """Fragments of one ESP packet that overlap: dropped and counted as malformed
    (per datagram or per fragment: 1 or the number of fragments). The
    "overlap-hole" case overlaps by exactly the size of a hole elsewhere, so that
    the byte count adds up to the total length."""
    outer = 6 if how.endswith("6") else 4
    out, inn = sa_pair(rng, outer=outer)
    feed = Feed(rng, inn).add_good()
    b = feed.inner(size=1200)
    f = gwlib.esp_frame_scapy(inn, b, feed.next_seq(), iv=gwlib.scapy_iv(inn, rng))
    _, esp = esp_bytes(f)
    L = len(esp)
    if how == "overlap-hole4":
        pieces = [(0, 600, True), (400, 800, True), (1000, L, False)]
    else:
        pieces = [(0, 512, True), (256, L, False)]
    frag = fragments4 if outer == 4 else fragments6
    frags = frag(f, pieces, 0x5151)
    for x in frags:
        feed.add(x)
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    mal = r.drops.get("malformed")
    assert mal in (1, len(frags)), \
        "malformed = %s for one datagram in %d overlapping fragments (expected 1 or %d); " \
        "drops: %s" % (mal, len(frags), len(frags), r.drops)
    check_drops(r, malformed=mal)


# --------------------------------------------------------------------------
# ECN on decapsulation (RFC 6040 section 4.2)

NOT_ECT, ECT1, ECT0, CE = 0, 1, 2, 3
RFC6040 = {  # (inner, outer) -> inner after decapsulation; None = drop
    (NOT_ECT, NOT_ECT): NOT_ECT, (NOT_ECT, ECT0): NOT_ECT, (NOT_ECT, ECT1): NOT_ECT,
    (NOT_ECT, CE): None,
    (ECT0, NOT_ECT): ECT0, (ECT0, ECT0): ECT0, (ECT0, ECT1): ECT1, (ECT0, CE): CE,
    (ECT1, NOT_ECT): ECT1, (ECT1, ECT0): ECT1, (ECT1, ECT1): ECT1, (ECT1, CE): CE,
    (CE, NOT_ECT): CE, (CE, ECT0): CE, (CE, ECT1): CE, (CE, CE): CE,
}


def test_ecn_decapsulation(gw, rng):
    """Every inner x outer ECN pair, both inner families; CE on a Not-ECT inner
    packet is dropped (ecn). The outer DSCP is not copied inward."""
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good(8)
    ecn_want = [None] * len(feed.good)
    drops = 0
    for fam in (4, 6):
        for (i_ecn, o_ecn), want in sorted(RFC6040.items()):
            dscp = rng.getrandbits(6)
            b = feed.inner(fam=fam, tos=(dscp << 2) | i_ecn, size=rng.randint(100, 1200))
            f = gwlib.esp_frame_scapy(inn, b, feed.next_seq(), iv=gwlib.scapy_iv(inn, rng),
                                      outer_tos=(((dscp + 9) % 64) << 2) | o_ecn)
            feed.add(f)
            if want is None:
                drops += 1
            else:
                feed.good.append(b)
                ecn_want.append(want)
    n0 = len(feed.good)
    feed.add_good(8)
    ecn_want += [None] * (len(feed.good) - n0)
    r = gw.run([out, inn], wan_in=feed.frames)
    frames = gwlib.data_frames(r.lan_out)
    got = [gwlib.inner_bytes_of(f) for f in frames]
    problems = gwlib.match_forwarded(feed.good, got, ecn=ecn_want, what="inner packet")
    assert not problems, "\n".join(problems[:20])
    check_drops(r, ecn=drops)


# --------------------------------------------------------------------------
# policy

def test_clear_traffic_on_outer_side_is_dropped(gw, rng):
    """Fail closed: clear IPv4/IPv6 to inner addresses arriving on the outer port."""
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good()
    for fam, src, dst in ((4, "198.51.100.7", gwlib.HOST4), (6, "2001:db8:1::7", gwlib.HOST6),
                          (4, "10.2.0.7", gwlib.HOST4)):
        b = gwlib.inner_packet(rng, fam, src, dst, 200, proto="udp")
        feed.add(Ether(src=gwlib.GW4_MAC, dst=gwlib.WAN_MAC) /
                 (IP(b) if fam == 4 else IPv6(b)))
    feed.add_good()
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, policy=3)


def test_inner_traffic_without_sa_is_dropped(gw, rng):
    out, inn = sa_pair(rng)
    good = gwlib.mixed_traffic(rng, 30, 1400, INNER_SITE, REMOTE_SITE)
    bad = [gwlib.inner_packet(rng, 4, gwlib.HOST4, "172.16.5.5", 300),
           gwlib.inner_packet(rng, 6, gwlib.HOST6, "fd00:77::5", 300),
           gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.3.0.1", 300)]
    lan = [gwlib.lan_frame(b) for b in good[:15] + bad + good[15:]]
    r = gw.run([out, inn], lan_in=lan)
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    problems = gwlib.match_forwarded(good, [d.inner for d in dec])
    assert not problems, "\n".join(problems[:10])
    check_drops(r, policy=3)


def test_bypass_forwarded_in_clear(gw, rng):
    """[policy] bypass: inner -> outer in clear, routed (TTL - 1) to the outer
    default gateway of the family."""
    out, inn = sa_pair(rng)
    good = gwlib.mixed_traffic(rng, 30, 1400, INNER_SITE, REMOTE_SITE)
    clear = [gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.9.%d.%d" % (i, i + 1), 100 + 50 * i)
             for i in range(5)] + \
            [gwlib.inner_packet(rng, 6, gwlib.HOST6, "fd00:9::%d" % (i + 1), 100 + 50 * i)
             for i in range(3)]
    lan = [gwlib.lan_frame(b) for b in good[:15] + clear + good[15:]]
    r = gw.run([out, inn], lan_in=lan, bypass=[gwlib.BYPASS4, gwlib.BYPASS6], gateway6=True)
    frames = gwlib.data_frames(r.wan_out)
    esp = [f for f in frames if IP in f and f[IP].proto == 50]
    other = [f for f in frames if not (IP in f and f[IP].proto == 50)]
    dec = gwlib.decrypt_outbound(out, esp)
    assert not gwlib.match_forwarded(good, [d.inner for d in dec])
    want = {4: gwlib.GW4_MAC, 6: gwlib.GW6_MAC}
    wrong = [(f.src, f.dst) for f in other
             if f.src.lower() != gwlib.WAN_MAC or f.dst.lower() != want[bytes(f)[14] >> 4]]
    assert not wrong, "bypass frames to wrong MACs: %s (IPv4 gateway %s, IPv6 gateway %s)" % (
        wrong, gwlib.GW4_MAC, gwlib.GW6_MAC)
    problems = gwlib.match_forwarded(clear, [gwlib.inner_bytes_of(f) for f in other],
                                     what="bypass packet")
    assert not problems, "\n".join(problems)
    check_drops(r)


def test_frames_for_other_macs_are_not_forwarded(gw, rng):
    """Frames not addressed to the port's MAC are dropped (no counter is named for
    this, so only forwarding and SA counters are checked)."""
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good()
    f = gwlib.esp_frame_scapy(inn, feed.inner(), feed.next_seq(), iv=gwlib.scapy_iv(inn, rng))
    f.dst = gwlib.OTHER_MAC
    feed.add(f)
    feed.add_good()
    good = gwlib.mixed_traffic(rng, 20, 1400, INNER_SITE, REMOTE_SITE)
    stray = gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.2.0.77", 300)
    lan = [gwlib.lan_frame(b) for b in good[:10]] + [gwlib.lan_frame(stray, gwlib.OTHER_MAC)] + \
        [gwlib.lan_frame(b) for b in good[10:]]
    r = gw.run([out, inn], lan_in=lan, wan_in=feed.frames)
    check_inbound_good(r, feed)
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    problems = gwlib.match_forwarded(good, [d.inner for d in dec])
    assert not problems, "\n".join(problems[:10])
    assert r.sa(out.name)["packets"] == len(good)
