# SPDX-License-Identifier: BSD-3-Clause
"""Packets too big for the outer MTU, inner TTL expiry, TCP MSS clamping."""

import struct

import pytest
from scapy.layers.inet import IP, ICMP, TCP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

import gwlib
from gwlib import SUITES, check_drops

INNER_SITE = {4: "10.1.0.0/24", 6: "fd00:1::/64"}
REMOTE_SITE = {4: "10.2.0.0/16", 6: "fd00:2::/48"}


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icmp6_checksum_ok(ip6):
    b = bytes(ip6)
    plen = struct.unpack("!H", b[4:6])[0]
    body = b[40:40 + plen]
    pseudo = b[8:40] + struct.pack("!IxxxB", len(body), 58)
    return csum(pseudo + body) == 0


def l4_checksum_ok(ipb):
    """TCP/UDP checksum of an IPv4/IPv6 packet (bytes, no extension headers)."""
    if ipb[0] >> 4 == 4:
        ihl = (ipb[0] & 15) * 4
        tl = struct.unpack("!H", ipb[2:4])[0]
        body = ipb[ihl:tl]
        pseudo = ipb[12:20] + struct.pack("!xBH", ipb[9], len(body))
    else:
        body = ipb[40:40 + struct.unpack("!H", ipb[4:6])[0]]
        pseudo = ipb[8:40] + struct.pack("!IxxxB", len(body), ipb[6])
    return csum(pseudo + body) == 0


def icmp_errors(frames):
    """ICMP / ICMPv6 error frames (not echo, not ND) among `frames`."""
    out = []
    for f in frames:
        ip = gwlib.ip_layer(f)
        if ip is None:
            continue
        b = bytes(ip)
        if b[0] >> 4 == 4 and b[9] == 1:
            t = b[(b[0] & 15) * 4]
            if t in (3, 11, 12):
                out.append(f)
        elif b[0] >> 4 == 6 and b[6] == 58 and b[40] in (1, 2, 3, 4):
            out.append(f)
    return out


def check_icmp_error(f, orig, fam, typ, code):
    """An ICMP(v6) error about inner packet `orig` sent back to its source on the
    inner port. Returns the 4-byte field after the checksum as an int."""
    assert f.src.lower() == gwlib.LAN_MAC and f.dst.lower() == gwlib.HOST_MAC, \
        "ICMP error MACs %s -> %s" % (f.src, f.dst)
    b = bytes(gwlib.ip_layer(f))
    o = IP(orig) if fam == 4 else IPv6(orig)
    if fam == 4:
        ihl = (b[0] & 15) * 4
        tl = struct.unpack("!H", b[2:4])[0]
        assert gwlib.ipv4_checksum_ok(b[:ihl]), "bad IPv4 header checksum of the ICMP error"
        ip = IP(b)
        assert ip.src == gwlib.LAN4 and ip.dst == o.src, \
            "ICMP error %s -> %s, expected %s -> %s" % (ip.src, ip.dst, gwlib.LAN4, o.src)
        icmp = b[ihl:tl]
        assert csum(icmp) == 0, "bad ICMP checksum"
        assert tl <= 576, "ICMP error of %d bytes (RFC 1812: at most 576)" % tl
        quote = icmp[8:]
        oh = (orig[0] & 15) * 4
    else:
        assert icmp6_checksum_ok(b), "bad ICMPv6 checksum"
        ip = IPv6(b)
        assert ip.src == gwlib.LAN6 and ip.dst == o.src, \
            "ICMPv6 error %s -> %s, expected %s -> %s" % (ip.src, ip.dst, gwlib.LAN6, o.src)
        assert len(b) <= 1280, "ICMPv6 error of %d bytes (RFC 4443: at most 1280)" % len(b)
        icmp = b[40:]
        quote = icmp[8:]
        oh = 40
    assert (icmp[0], icmp[1]) == (typ, code), "ICMP type/code %d/%d, expected %d/%d" % (
        icmp[0], icmp[1], typ, code)
    assert len(quote) >= oh + 8, "ICMP error quotes only %d bytes" % len(quote)
    if fam == 4:
        assert quote[12:20] == orig[12:20] and quote[oh:oh + 8] == orig[oh:oh + 8], \
            "quoted packet is not the offending one"
    else:
        assert quote[8:40] == orig[8:40] and quote[oh:oh + 8] == orig[oh:oh + 8], \
            "quoted packet is not the offending one"
    return struct.unpack("!I", icmp[4:8])[0]


# --------------------------------------------------------------------------

@pytest.mark.parametrize("suite,outer", [("aes128-gcm16", 4), ("aes128-cbc-sha256", 6),
                                         ("null-sha256", 4)])
def test_too_big(gw, rng, suite, outer):
    """IPv4 with DF -> ICMP fragmentation needed with the next-hop MTU (the largest
    inner packet whose ESP fits); IPv6 -> ICMPv6 packet too big (never below
    1280); both counted as mtu. Packets of exactly that size pass."""
    out, inn = gwlib.make_sa_pair(rng, suite, outer)
    mx = gwlib.max_inner(SUITES[suite], outer)
    good = gwlib.mixed_traffic(rng, 40, mx, INNER_SITE, REMOTE_SITE)
    edge = [gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.2.0.10", mx, df=True),
            gwlib.inner_packet(rng, 6, gwlib.HOST6, "fd00:2::10", mx)]
    big = [gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.2.0.11", mx + 1, df=True),
           gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.2.0.12", 1500, df=True),
           gwlib.inner_packet(rng, 6, gwlib.HOST6, "fd00:2::11", mx + 1),
           gwlib.inner_packet(rng, 6, gwlib.HOST6, "fd00:2::12", 1500)]
    seq = good[:20] + [edge[0], big[0], big[1]] + good[20:30] + [edge[1], big[2], big[3]] + good[30:]
    r = gw.run([out, inn], lan_in=[gwlib.lan_frame(b) for b in seq])
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    problems = gwlib.match_forwarded(good + edge, [d.inner for d in dec])
    assert not problems, "\n".join(problems[:10])
    errs = icmp_errors(r.lan_out)
    assert len(errs) == len(big), "%d ICMP errors on the inner port, expected %d (drops %s)" % (
        len(errs), len(big), r.drops)
    for b in big:
        fam = b[0] >> 4
        mine = [f for f in errs if _quotes(f, b)]
        assert len(mine) == 1, "no ICMP error quoting the %d-byte IPv%d packet" % (len(b), fam)
        if fam == 4:
            v = check_icmp_error(mine[0], b, 4, 3, 4)
            mtu = v & 0xffff
            assert mtu == mx, "ICMP frag needed announces next-hop MTU %d; the largest " \
                "inner packet that fits (%s, IPv%d outer, MTU %d) is %d" % (mtu, suite, outer,
                                                                          gwlib.MTU, mx)
        else:
            mtu = check_icmp_error(mine[0], b, 6, 2, 0)
            assert mtu == max(1280, mx), "ICMPv6 packet too big announces MTU %d, expected %d" % (
                mtu, max(1280, mx))
    check_drops(r, mtu=len(big))


def _quotes(f, orig):
    b = bytes(gwlib.ip_layer(f))
    hl = (b[0] & 15) * 4 if b[0] >> 4 == 4 else 40
    q = b[hl + 8:]
    oh = (orig[0] & 15) * 4 if orig[0] >> 4 == 4 else 40
    if orig[0] >> 4 == 4:
        return q[12:20] == orig[12:20] and q[oh:oh + 8] == orig[oh:oh + 8]
    return q[8:40] == orig[8:40] and q[oh:oh + 8] == orig[oh:oh + 8]


def reassemble4(frags):
    """IPv4 fragments (bytes) of one datagram -> the datagram (bytes)."""
    frags = sorted(frags, key=lambda b: struct.unpack("!H", b[6:8])[0] & 0x1fff)
    data = b""
    for b in frags:
        ihl = (b[0] & 15) * 4
        tl = struct.unpack("!H", b[2:4])[0]
        off = (struct.unpack("!H", b[6:8])[0] & 0x1fff) * 8
        assert off == len(data), "fragments leave a hole or overlap at %d" % off
        data += b[ihl:tl]
    h = bytearray(frags[0][:(frags[0][0] & 15) * 4])
    h[2:4] = struct.pack("!H", len(h) + len(data))
    h[6:8] = struct.pack("!H", struct.unpack("!H", h[6:8])[0] & 0x4000)
    h[10:12] = b"\0\0"
    h[10:12] = struct.pack("!H", csum(bytes(h)))
    return bytes(h) + data


def test_too_big_without_df_is_fragmented(gw, rng):
    """IPv4 without DF too big for the outer MTU is fragmented, before encryption
    (ESP of inner fragments) or after it (outer fragments): either way what comes
    out reassembles and decrypts to the original packet."""
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    mx = gwlib.max_inner(out.suite, 4)
    good = gwlib.mixed_traffic(rng, 20, mx, INNER_SITE, REMOTE_SITE)
    big = [gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.2.0.%d" % (20 + i), size, df=False)
           for i, size in enumerate((mx + 1, 1480, 1500))]
    r = gw.run([out, inn], lan_in=[gwlib.lan_frame(b) for b in good[:10] + big + good[10:]])
    frames = gwlib.data_frames(r.wan_out)
    whole, outer_frags = [], {}
    for f in frames:
        if IP in f and (f[IP].flags.MF or f[IP].frag):
            outer_frags.setdefault(f[IP].id, []).append(bytes(f[IP]))
        else:
            whole.append(f)
    for ident, fr in outer_frags.items():
        ipb = reassemble4(fr)
        whole.append(Ether(src=frames[0].src, dst=frames[0].dst) / IP(ipb))
    dec = gwlib.decrypt_outbound(out, [Ether(bytes(f)) for f in whole])
    inners, inner_frags = [], {}
    for d in dec:
        b = d.inner
        if b[0] >> 4 == 4 and struct.unpack("!H", b[6:8])[0] & 0x3fff:
            inner_frags.setdefault(b[4:6], []).append(b)
        else:
            inners.append(b)
    for ident, fr in inner_frags.items():
        inners.append(reassemble4(fr))
    problems = gwlib.match_forwarded(good + big, inners)
    assert not problems, "\n".join(problems[:10])
    check_drops(r)


# --------------------------------------------------------------------------

def test_ttl_expiry(gw, rng):
    """Inner TTL / hop limit 1 -> ICMP time exceeded to the source, counted as
    ttl; for inbound traffic (the gateway routes the decrypted packet) too."""
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    good = gwlib.mixed_traffic(rng, 20, 1400, INNER_SITE, REMOTE_SITE)
    dying = [gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.2.0.30", 300, ttl=1, proto="udp"),
             gwlib.inner_packet(rng, 6, gwlib.HOST6, "fd00:2::30", 300, ttl=1, proto="udp")]
    lan = [gwlib.lan_frame(b) for b in good[:10] + dying + good[10:]]
    in_good = gwlib.mixed_traffic(rng, 20, 1400, REMOTE_SITE, {4: gwlib.HOST4, 6: gwlib.HOST6})
    in_dying = gwlib.inner_packet(rng, 4, "10.2.0.31", gwlib.HOST4, 300, ttl=1, proto="udp")
    wan = [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
           for i, b in enumerate(in_good[:10] + [in_dying] + in_good[10:])]
    r = gw.run([out, inn], lan_in=lan, wan_in=wan)
    errs = icmp_errors(r.lan_out)
    for b in dying:
        fam = b[0] >> 4
        mine = [f for f in errs if _quotes(f, b)]
        assert len(mine) == 1, "no ICMP time exceeded for the IPv%d packet with TTL 1" % fam
        check_icmp_error(mine[0], b, fam, 11 if fam == 4 else 3, 0)
    # outbound: good traffic through ESP; an ICMP time exceeded toward 10.2.0.31
    # (through the tunnel) is allowed, nothing else
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    rest = []
    for d in dec:
        ip = IP(d.inner) if d.inner[0] >> 4 == 4 else None
        if ip is not None and ip.dst == "10.2.0.31" and ICMP in ip and ip[ICMP].type == 11:
            continue
        rest.append(d.inner)
    problems = gwlib.match_forwarded(good, rest)
    assert not problems, "\n".join(problems[:10])
    lan_data = [f for f in gwlib.data_frames(r.lan_out) if f not in errs]
    problems = gwlib.match_forwarded(in_good, [gwlib.inner_bytes_of(f) for f in lan_data])
    assert not problems, "\n".join(problems[:10])
    check_drops(r, ttl=3)


# --------------------------------------------------------------------------

def _syn(rng, fam, mss, flags="S"):
    src, dst = (gwlib.HOST4, "10.2.0.40") if fam == 4 else (gwlib.HOST6, "fd00:2::40")
    hdr = IP(src=src, dst=dst, ttl=64, flags="DF", id=rng.getrandbits(16)) if fam == 4 \
        else IPv6(src=src, dst=dst, hlim=64)
    t = TCP(sport=rng.randint(1024, 65535), dport=443, flags=flags, seq=rng.getrandbits(32),
            options=[("MSS", mss), ("SAckOK", b""), ("Timestamp", (1, 0)), ("NOP", None),
                     ("WScale", 7)])
    return bytes(hdr / t)


def _mss_of(b):
    p = IP(b) if b[0] >> 4 == 4 else IPv6(b)
    return dict(p[TCP].options).get("MSS")


def _with_mss(b, mss):
    p = IP(b) if b[0] >> 4 == 4 else IPv6(b)
    p[TCP].options = [(k, mss if k == "MSS" else v) for k, v in p[TCP].options]
    del p[TCP].chksum
    return bytes(p.__class__(bytes(p)))


@pytest.mark.parametrize("clamp", ["auto", "off"])
def test_tcp_mss_clamp(gw, rng, clamp):
    out, inn = gwlib.make_sa_pair(rng, "aes128-cbc-sha256", 4)
    mx = gwlib.max_inner(out.suite, 4)
    syns = [_syn(rng, 4, 1460), _syn(rng, 6, 1440), _syn(rng, 4, 536), _syn(rng, 4, 1460, "SA")]
    r = gw.run([out, inn], lan_in=[gwlib.lan_frame(b) for b in syns], lan_mss=clamp)
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    assert len(dec) == len(syns), (len(dec), r.drops)
    for s, d in zip(syns, dec):
        fam = s[0] >> 4
        limit = mx - (40 if fam == 4 else 60)
        got = _mss_of(d.inner)
        if clamp == "off" or _mss_of(s) <= limit:
            want = _mss_of(s)
        else:
            assert limit - 16 < got <= limit, \
                "IPv%d SYN MSS %d clamped to %d; the ESP overhead allows %d" % (
                    fam, _mss_of(s), got, limit)
            want = got
        assert got == want, "MSS %d, expected %d" % (got, want)
        assert l4_checksum_ok(d.inner), "TCP checksum wrong after MSS clamping"
        diff = gwlib.forwarded_diff(_with_mss(s, want), d.inner)
        assert diff is None, diff
    check_drops(r)


def test_inbound_ttl_expiry_both_families(gw, rng):
    """A decapsulated IPv4 packet with TTL 1 and an IPv6 one with hop limit 1
    are not forwarded to the site: dropped as ttl and not counted as delivered
    by their SA. TTL / hop limit 2 goes on with 1."""
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    hosts = {4: gwlib.HOST4, 6: gwlib.HOST6}
    good = gwlib.mixed_traffic(rng, 20, 1400, REMOTE_SITE, hosts)
    last_hop = [gwlib.inner_packet(rng, 4, "10.2.0.32", gwlib.HOST4, 300, ttl=2, proto="udp"),
                gwlib.inner_packet(rng, 6, "fd00:2::32", gwlib.HOST6, 300, ttl=2, proto="udp")]
    dying = [gwlib.inner_packet(rng, 4, "10.2.0.33", gwlib.HOST4, 300, ttl=1, proto="tcp"),
             gwlib.inner_packet(rng, 6, "fd00:2::33", gwlib.HOST6, 300, ttl=1, proto="tcp")]
    seq = good[:10] + [dying[0], last_hop[0], dying[1], last_hop[1]] + good[10:]
    wan = [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
           for i, b in enumerate(seq)]
    r = gw.run([out, inn], wan_in=wan)
    lan = [gwlib.inner_bytes_of(f) for f in gwlib.data_frames(r.lan_out)]
    problems = gwlib.match_forwarded(good + last_hop, lan)
    assert not problems, "\n".join(problems[:10])
    check_drops(r, ttl=len(dying))
    assert r.sa(inn.name)["packets"] == len(good) + len(last_hop), \
        "the in SA counts %d packets delivered" % r.sa(inn.name)["packets"]


def _fragment_of(b, offset8, more):
    """IPv4 packet b (bytes, DF clear) as a fragment at offset8 (8-byte units),
    MF set when `more`; its payload bytes unchanged."""
    p = IP(b)
    p.flags = "MF" if more else 0
    p.frag = offset8
    del p.chksum
    return bytes(p)


def test_tcp_mss_clamp_first_fragment_only_and_not_bypass(gw, rng):
    """The MSS of an IPv4 SYN is clamped in a first fragment (offset 0, MF set:
    it holds the TCP header), never in a later fragment of protocol TCP whose
    bytes look like a SYN (they are not a TCP header), and never in a packet
    that [policy] bypass lets through in clear (no SA, no ESP overhead)."""
    out, inn = gwlib.make_sa_pair(rng, "aes128-cbc-sha256", 4)
    limit = gwlib.max_inner(out.suite, 4) - 40
    first = _fragment_of(_syn(rng, 4, 1460), 0, True)
    later = _fragment_of(_syn(rng, 4, 1460), 100, False)
    bypass = []
    for fam, dst in ((4, "10.9.0.40"), (6, "fd00:9::40")):
        s = IP(_syn(rng, fam, 1460)) if fam == 4 else IPv6(_syn(rng, fam, 1460))
        s.dst = dst
        del s[TCP].chksum
        if fam == 4:
            del s.chksum
        bypass.append(bytes(s))
    lan = [gwlib.lan_frame(b) for b in [first, later] + bypass]
    r = gw.run([out, inn], lan_in=lan, lan_mss="auto", bypass=[gwlib.BYPASS4, gwlib.BYPASS6],
               gateway6=True)
    frames = gwlib.data_frames(r.wan_out)
    esp = [f for f in frames if IP in f and f[IP].proto == 50]
    clear = [gwlib.inner_bytes_of(f) for f in frames if not (IP in f and f[IP].proto == 50)]
    dec = gwlib.decrypt_outbound(out, esp)
    assert len(dec) == 2, (len(dec), r.drops)
    got = {d.inner[4:6]: d.inner for d in dec}
    mss = _mss_of(got[first[4:6]])
    assert limit - 16 < mss <= limit, \
        "first fragment's SYN MSS 1460 became %d; the ESP overhead allows %d" % (mss, limit)
    diff = gwlib.forwarded_diff(_with_mss(first, mss), got[first[4:6]])
    assert diff is None, "first fragment: " + diff
    diff = gwlib.forwarded_diff(later, got[later[4:6]])
    assert diff is None, "a later fragment was changed: " + diff
    problems = gwlib.match_forwarded(bypass, clear, what="bypass SYN")
    assert not problems, "\n".join(problems)
    check_drops(r)
