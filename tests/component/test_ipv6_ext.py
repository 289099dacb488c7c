# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 extension headers (RFC 8200 section 4) and atomic fragments (RFC 6946).

Outer side: ESP behind Hop-by-Hop, Destination Options, a Routing header with
Segments Left 0 or a Fragment header with offset 0 and M 0 is decrypted and
forwarded (RFC 4303 3.1.2 puts ESP after them); so are ESP fragments behind
Hop-by-Hop; chains the gateway refuses (Segments Left > 0, an option to
discard) are policy drops, chains that are cut short, over the gateway's
limits or out of order are malformed. ICMPv6 echo and HIP behind them reach
the control lcore. Inner side: IPv6 atomic fragments are forwarded both ways
and answered when they are echo requests to the gateway.
"""

import os
import struct

import pytest
from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import gwlib
from gwlib import check_drops
from test_bad_input import Feed, check_inbound_good, esp_bytes

HBH, RH, FRAG, DST, ESP, ICMP6, HIP = 0, 43, 44, 60, 50, 58, 139
MAX_HDRS, MAX_BYTES = 4, 256          # the gateway's limits (lib/core/gw_ip6ext.h)


# --------------------------------------------------------------------------
# extension headers as bytes: (type, bytes); the Next Header byte is filled in
# by insert_ext

def opts_hdr(kind, options=b"", ext_len=None):
    """Hop-by-Hop or Destination Options header with these option bytes, padded
    to 8 bytes with PadN (or Pad1); ext_len overrides Hdr Ext Len."""
    body = bytes(options)
    pad = -(2 + len(body)) % 8
    if pad == 1:
        body += b"\x00"
    elif pad:
        body += bytes([1, pad - 2]) + bytes(pad - 2)
    n = (2 + len(body)) // 8 - 1 if ext_len is None else ext_len
    return kind, bytes([0, n]) + body


def hbh(options=b"", **kw):
    return opts_hdr(HBH, options, **kw)


def dst(options=b"", **kw):
    return opts_hdr(DST, options, **kw)


ROUTER_ALERT_MLD = bytes([5, 2, 0, 0])       # RFC 2711, as MLD carries it
TUNNEL_ENCAP_LIMIT = bytes([4, 1, 4])        # RFC 2473 4.1.1, action bits 00


def routing(segleft, rtype=4):
    """A Routing header (Segment Routing layout, RFC 8754) with one address."""
    return RH, bytes([0, 2, rtype, segleft, segleft, 0, 0, 0]) + bytes(16)


def frag(offset=0, m=0, ident=0x6946):
    return FRAG, struct.pack("!BBHI", 0, 0, (offset // 8) << 3 | m, ident)


def insert_ext(ipb, exts):
    """IPv6 packet bytes ipb (no extension headers) with `exts` put between its
    fixed header and its payload. Upper-layer checksums stay right: they cover
    neither the extension headers nor (Segments Left 0) another address."""
    ipb = bytes(ipb)
    chain = b""
    for i, (kind, b) in enumerate(exts):
        nxt = exts[i + 1][0] if i + 1 < len(exts) else ipb[6]
        chain += bytes([nxt]) + b[1:]
    hdr = bytearray(ipb[:40])
    hdr[4:6] = struct.pack("!H", len(chain) + len(ipb) - 40)
    if exts:
        hdr[6] = exts[0][0]
    return bytes(hdr) + chain + ipb[40:]


def ext_frame(frame, exts):
    """An Ethernet / IPv6 frame with `exts` inserted."""
    return Ether(src=frame.src, dst=frame.dst, type=0x86dd) / Raw(insert_ext(bytes(frame)[14:], exts))


def raw6(frame, payload, nh):
    """frame's outer IPv6 header (Payload Length, Next Header replaced) before
    `payload`: for chains no packet could carry whole."""
    hdr, _ = esp_bytes(frame)
    h = bytearray(hdr)
    h[4:6] = struct.pack("!H", len(payload))
    h[6] = nh
    return Ether(src=frame.src, dst=frame.dst, type=0x86dd) / Raw(bytes(h) + payload)


def sa_pair(rng):
    return gwlib.make_sa_pair(rng, "aes128-gcm16", 6)


def esp6(feed, size=None):
    """(inner packet, outer ESP frame) of the feed's next sequence number."""
    b = feed.inner(size=size)
    return b, gwlib.esp_frame_scapy(feed.sa, b, feed.next_seq(), iv=gwlib.scapy_iv(feed.sa, feed.rng))


# --------------------------------------------------------------------------
# ESP behind extension headers: decrypted

GOOD_CHAINS = {
    "hbh": [hbh()],
    "hbh-router-alert": [hbh(ROUTER_ALERT_MLD)],
    "dstopts": [dst(TUNNEL_ENCAP_LIMIT)],
    "hbh+dstopts": [hbh(), dst()],
    "routing-segleft0": [routing(0)],
    "atomic-fragment": [frag()],
    "hbh+atomic-fragment": [hbh(), frag()],
    "hbh+routing+fragment+dstopts": [hbh(), routing(0), frag(), dst()],
    "max-bytes": [hbh(bytes([30, MAX_BYTES - 4]) + bytes(MAX_BYTES - 4))],
}


@pytest.mark.parametrize("chain", list(GOOD_CHAINS))
def test_esp_behind_extension_headers(gw, rng, chain):
    """ESP of the in SA behind the chain: decrypted and forwarded as if the chain
    were not there, between good packets; no drop."""
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good(6)
    for size in (100, 1000, 1300):
        b, f = esp6(feed, size)
        feed.add(ext_frame(f, GOOD_CHAINS[chain]))
        feed.good.append(b)
        feed.add_good(2)
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r)


def test_esp_fragments_behind_hop_by_hop(gw, rng):
    """Real ESP fragments (offset and M) behind Hop-by-Hop: reassembled and
    decrypted."""
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good(4)
    for i, size in enumerate((1400, 700)):
        b, f = esp6(feed, size)
        _, esp = esp_bytes(f)
        cut = 8 * (len(esp) // 16)
        for off, end, m in ((0, cut, 1), (cut, len(esp), 0)):
            fr = Ether(src=f.src, dst=f.dst, type=0x86dd) / Raw(bytes(f)[14:54] + esp[off:end])
            feed.add(ext_frame(fr, [hbh(), frag(off, m, 0x7000 + i)]))
        feed.good.append(b)
        feed.add_good(2)
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r)


# --------------------------------------------------------------------------
# chains the gateway refuses: one drop each, of the reason given

def _over_count(f):
    return [dst() for _ in range(MAX_HDRS + 1)]


def _bad_chain(name, f):
    """The frame carrying f's ESP behind bad chain `name`."""
    _, esp = esp_bytes(f)
    if name == "routing-segleft1":
        return ext_frame(f, [routing(1)])
    if name == "option-discard":                 # unrecognised type, action bits 01
        return ext_frame(f, [dst(bytes([0x5e, 2, 0, 0]))])
    if name == "option-discard-icmp":            # action bits 10
        return ext_frame(f, [hbh(bytes([0x9e, 0]))])
    if name == "jumbo-option":                   # RFC 2675, action bits 11
        return ext_frame(f, [hbh(bytes([0xc2, 4, 0, 1, 0, 0]))])
    if name == "option-past-header":             # an option longer than its header
        return ext_frame(f, [dst(bytes([30, 5, 0, 0, 0, 0]), ext_len=0)])
    if name == "truncated":                      # Hdr Ext Len 2: 24 bytes, 16 there
        return raw6(f, bytes([ESP, 2, 1, 12]) + bytes(12), HBH)
    if name == "truncated-fixed-part":           # 4 bytes of a header
        return raw6(f, bytes([ESP, 0, 1, 0]), DST)
    if name == "over-count":
        return ext_frame(f, _over_count(f))
    if name == "over-bytes":
        return ext_frame(f, [hbh(bytes([30, MAX_BYTES - 2]) + bytes(MAX_BYTES - 2))])
    if name == "hbh-not-first":
        return ext_frame(f, [dst(), hbh()])
    raise ValueError(name)


BAD_CHAINS = {
    "routing-segleft1": "policy",
    "option-discard": "policy",
    "option-discard-icmp": "policy",
    "jumbo-option": "policy",
    "option-past-header": "malformed",
    "truncated": "malformed",
    "truncated-fixed-part": "malformed",
    "over-count": "malformed",
    "over-bytes": "malformed",
    "hbh-not-first": "malformed",
}


@pytest.mark.parametrize("name", list(BAD_CHAINS))
def test_bad_extension_chain(gw, rng, name):
    """A valid ESP packet behind a chain the gateway refuses: dropped, counted once
    under its reason; the good packets around it pass; the SA counts only them."""
    out, inn = sa_pair(rng)
    feed = Feed(rng, inn).add_good(8)
    _, f = esp6(feed, 600)
    feed.add(_bad_chain(name, f))
    feed.add_good(8)
    r = gw.run([out, inn], wan_in=feed.frames)
    check_inbound_good(r, feed)
    check_drops(r, **{BAD_CHAINS[name]: 1})


# --------------------------------------------------------------------------
# ICMPv6 to the gateway behind extension headers

ECHO_ID, ECHO_SEQ = 0x4e48, 7


def echo6(src, dst_, data):
    return bytes(IPv6(src=src, dst=dst_, hlim=64) /
                 ICMPv6EchoRequest(id=ECHO_ID, seq=ECHO_SEQ, data=data))


def echo_replies(frames, src, dst_, data):
    """Echo replies src -> dst_ with our id, seq and data among frames: the list of
    their frames (each checked: no extension header, a good checksum)."""
    out = []
    for f in frames or []:
        if IPv6 not in f:
            continue
        b = bytes(f[IPv6])
        if b[6] != ICMP6 or b[40] != 129:
            continue
        ip = IPv6(b)
        if ip.src != src or ip.dst != dst_:
            continue
        body = b[40:40 + struct.unpack("!H", b[4:6])[0]]
        if struct.unpack("!HH", body[4:8]) != (ECHO_ID, ECHO_SEQ) or body[8:] != data:
            continue
        plen = len(body)
        pseudo = b[8:40] + struct.pack("!IxxxB", plen, ICMP6)
        s = pseudo + body + (b"\0" if plen % 2 else b"")
        t = sum(struct.unpack("!%dH" % (len(s) // 2), s))
        while t >> 16:
            t = (t & 0xffff) + (t >> 16)
        assert t == 0xffff, "echo reply with a bad ICMPv6 checksum"
        out.append(f)
    return out


ECHO_CHAINS = {
    "hbh": [hbh()],
    "atomic-fragment": [frag()],
    "dstopts+atomic-fragment": [dst(), frag()],
    "routing-segleft0": [routing(0)],
}


@pytest.mark.parametrize("side", ["outer", "inner"])
@pytest.mark.parametrize("chain", list(ECHO_CHAINS))
def test_echo_to_gateway_behind_extension_headers(gw, rng, side, chain):
    """An ICMPv6 echo request to the gateway's own address behind the chain is
    answered by the control lcore (the reply without the chain), on the port
    it came in on."""
    data = b"ext-echo-" + chain.encode()
    if side == "outer":
        src, me, mac, mymac = gwlib.PEER6, gwlib.WAN6, gwlib.PEER6_MAC, gwlib.WAN_MAC
    else:
        src, me, mac, mymac = gwlib.HOST6, gwlib.LAN6, gwlib.HOST_MAC, gwlib.LAN_MAC
    f = Ether(src=mac, dst=mymac, type=0x86dd) / Raw(insert_ext(echo6(src, me, data), ECHO_CHAINS[chain]))
    out, inn = sa_pair(rng)
    kw = {"wan_in": [f]} if side == "outer" else {"lan_in": [f]}
    r = gw.run([out, inn], **kw)
    got = echo_replies(r.wan_out if side == "outer" else r.lan_out, me, src, data)
    assert len(got) == 1, "%d echo replies to the request behind %s (drops %s)" % (
        len(got), chain, {k: v for k, v in r.drops.items() if v})
    assert got[0].src.lower() == mymac and got[0].dst.lower() == mac, got[0].summary()
    check_drops(r)


def test_mld_behind_hop_by_hop_is_counted(gw, rng):
    """An MLDv2 report (Hop-by-Hop with Router Alert, RFC 3810) on either side: the
    control lcore gets it past the chain and drops it, counted as policy (the
    gateway is no multicast router); nothing crashes, nothing is answered."""
    report = bytes.fromhex("8f00000000000001") + bytes.fromhex("04000000ff020000000000000000000000000001")
    frames = []
    for src, mac in ((gwlib.PEER6, gwlib.PEER6_MAC), (gwlib.HOST6, gwlib.HOST_MAC)):
        ip = IPv6(src=src, dst="ff02::16", hlim=1, nh=ICMP6) / Raw(report)
        b = bytearray(bytes(ip))
        body = b[40:]
        pseudo = b[8:40] + struct.pack("!IxxxB", len(body), ICMP6)
        s = bytes(pseudo + body)
        t = sum(struct.unpack("!%dH" % (len(s) // 2), s))
        while t >> 16:
            t = (t & 0xffff) + (t >> 16)
        b[42:44] = struct.pack("!H", ~t & 0xffff)
        frames.append(Ether(src=mac, dst="33:33:00:00:00:16", type=0x86dd) /
                      Raw(insert_ext(bytes(b), [hbh(ROUTER_ALERT_MLD)])))
    out, inn = sa_pair(rng)
    r = gw.run([out, inn], wan_in=frames[:1], lan_in=frames[1:])
    assert not gwlib.data_frames(r.wan_out) and not gwlib.data_frames(r.lan_out)
    check_drops(r, policy=2)


# --------------------------------------------------------------------------
# HIP to the gateway behind extension headers

HIP_I1, HIP_R1 = 1, 2
DH_GROUP_LIST = 511          # RFC 7401 5.2.6
NIST_P256 = 7


def hip_i1(src, dst_, hit_i, hit_r):
    """An I1 (RFC 7401 5.3.1) from HIT hit_i to hit_r, IPv6 src -> dst_, with its
    checksum (RFC 7401 5.1.1: the IPv6 pseudo-header, next header 139)."""
    import ipaddress
    params = struct.pack("!HHB", DH_GROUP_LIST, 1, NIST_P256) + bytes(3)
    hip = bytearray(struct.pack("!BBBBHH", 59, (40 + len(params)) // 8 - 1, HIP_I1, 0x21, 0, 0))
    hip += ipaddress.IPv6Address(hit_i).packed + ipaddress.IPv6Address(hit_r).packed + params
    ip = bytearray(bytes(IPv6(src=src, dst=dst_, hlim=64, nh=HIP)))
    ip[4:6] = struct.pack("!H", len(hip))
    pseudo = bytes(ip[8:40]) + struct.pack("!IxxxB", len(hip), HIP)
    s = pseudo + bytes(hip)
    t = sum(struct.unpack("!%dH" % (len(s) // 2), s))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    hip[4:6] = struct.pack("!H", ~t & 0xffff)
    return bytes(ip) + bytes(hip)


@pytest.mark.parametrize("chain", ["hbh", "atomic-fragment"])
def test_hip_i1_behind_extension_headers(gw, tmp_path, chain):
    """An I1 from a configured peer's HIT behind the chain reaches the HIP engine
    on the control lcore, which answers with an R1."""
    d = gw.dir()
    key, hit = gwlib.make_hi(d, "gw")
    _, peer_hit = gwlib.make_hi(d, "peer")
    cfg = gwlib.write_config(d, [], gateway_extra="hi = %s\npuzzle-k = 1" % key)
    with open(cfg, "a") as fh:
        fh.write("\n[peer p]\nhit = %s\nlocator = %s\nprefixes = 10.3.0.0/16\n"
                 % (peer_hit, gwlib.PEER6))
    exts = [hbh()] if chain == "hbh" else [frag()]
    i1 = insert_ext(hip_i1(gwlib.PEER6, gwlib.WAN6, peer_hit, hit), exts)
    r = gwlib.run_hipgw(d, cfg, wan_in=[Ether(src=gwlib.PEER6_MAC, dst=gwlib.WAN_MAC, type=0x86dd) / Raw(i1)])
    gwlib.check_clean_run(r)
    hip = r.stats["hip"]
    r1s = [f for f in r.wan_out if IPv6 in f and f[IPv6].nh == HIP and
           bytes(f[IPv6])[42] & 0x7f == HIP_R1]
    assert hip["i1_rx"] == 1 and hip["r1_tx"] == 1 and len(r1s) == 1, \
        "I1 behind %s: hip %s, %d R1 frames" % (chain, hip, len(r1s))
    check_drops(r)


# --------------------------------------------------------------------------
# inner IPv6 atomic fragments: forwarded both ways

def atomic(b):
    return insert_ext(b, [frag(ident=0x1234)])


def test_inner_atomic_fragments_forwarded(gw, rng):
    """Inner IPv6 packets in atomic fragments (UDP, TCP, ICMPv6) go through the
    tunnel both ways unchanged but for the hop limit."""
    out, inn = sa_pair(rng)
    outbound = [atomic(gwlib.inner_packet(rng, 6, gwlib.HOST6, "fd00:2::%x" % (16 + i), size,
                                          proto=p))
                for i, (size, p) in enumerate([(100, "udp"), (1200, "tcp"), (300, "icmp")])]
    inbound = [atomic(gwlib.inner_packet(rng, 6, "fd00:2::%x" % (32 + i), gwlib.HOST6, size,
                                         proto=p))
               for i, (size, p) in enumerate([(100, "udp"), (1200, "tcp"), (300, "icmp")])]
    wan = [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
           for i, b in enumerate(inbound)]
    r = gw.run([out, inn], lan_in=[gwlib.lan_frame(b) for b in outbound], wan_in=wan)
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    problems = gwlib.match_forwarded(outbound, [d.inner for d in dec])
    assert not problems, "\n".join(problems)
    lan = gwlib.data_frames(r.lan_out)
    problems = gwlib.match_forwarded(inbound, [gwlib.inner_bytes_of(f) for f in lan])
    assert not problems, "\n".join(problems)
    check_drops(r)


def test_inner_syn_in_atomic_fragment_mss_clamped(gw, rng):
    """A TCP SYN from the site in an IPv6 atomic fragment, or behind Destination
    Options, has its MSS clamped as one without them; its TCP checksum stays
    right. A SYN in a real fragment is left alone (its TCP header is not the
    gateway's to edit)."""
    from scapy.layers.inet import TCP
    out, inn = sa_pair(rng)
    mx = gwlib.max_inner(out.suite, 6)
    limit = mx - 60

    def syn(dport):
        return bytes(IPv6(src=gwlib.HOST6, dst="fd00:2::40", hlim=64) /
                     TCP(sport=40000 + dport, dport=dport, flags="S", seq=1,
                         options=[("MSS", 1460), ("NOP", None), ("WScale", 7)]))

    sent = [insert_ext(syn(1), [frag()]), insert_ext(syn(2), [dst()]),
            insert_ext(syn(3), [frag(m=1)])]
    r = gw.run([out, inn], lan_in=[gwlib.lan_frame(b) for b in sent], lan_mss="auto")
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    assert len(dec) == len(sent), (len(dec), r.drops)
    for s, d in zip(sent, dec):
        p = IPv6(d.inner)
        mss = dict(p[TCP].options).get("MSS")
        if s is sent[2]:
            assert d.inner == gwlib.routed(s), "the SYN in a real fragment was changed"
            continue
        assert limit - 16 < mss <= limit, "SYN MSS 1460 became %d; the ESP overhead allows %d" % (
            mss, limit)
        want = IPv6(s)
        want[TCP].options = [(k, mss if k == "MSS" else v) for k, v in want[TCP].options]
        del want[TCP].chksum
        want = IPv6(bytes(want))
        assert d.inner == gwlib.routed(bytes(want)), \
            "clamped SYN differs from the original but for MSS, TCP checksum and hop limit"
    check_drops(r)


@pytest.mark.parametrize("side", ["outer", "inner"])
def test_truncated_ipv6_frame_to_multicast_mac(gw, rng, side):
    """IPv6 frames to a multicast MAC go from the Ethernet stage straight to the
    control lcore; one too short for an IPv6 header (none at all, or half of
    one) is dropped as malformed, with good traffic around it untouched."""
    out, inn = sa_pair(rng)
    mac = gwlib.PEER6_MAC if side == "outer" else gwlib.HOST_MAC
    bad = [Ether(src=mac, dst="33:33:00:00:00:01", type=0x86dd),
           Ether(src=mac, dst="33:33:ff:00:00:01", type=0x86dd) / Raw(bytes([0x60]) + bytes(19))]
    echo = Ether(src=mac, dst=gwlib.WAN_MAC if side == "outer" else gwlib.LAN_MAC,
                 type=0x86dd) / Raw(echo6(gwlib.PEER6 if side == "outer" else gwlib.HOST6,
                                          gwlib.WAN6 if side == "outer" else gwlib.LAN6, b"after"))
    frames = bad + [echo]
    r = gw.run([out, inn], **({"wan_in": frames} if side == "outer" else {"lan_in": frames}))
    me, src = (gwlib.WAN6, gwlib.PEER6) if side == "outer" else (gwlib.LAN6, gwlib.HOST6)
    assert len(echo_replies(r.wan_out if side == "outer" else r.lan_out, me, src, b"after")) == 1
    check_drops(r, malformed=len(bad))
