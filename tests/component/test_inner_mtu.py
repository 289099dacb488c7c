# SPDX-License-Identifier: BSD-3-Clause
"""Inner egress MTU: a decapsulated packet larger than the inner port's MTU is
never sent as an oversized frame. IPv4 without DF is fragmented to the port's
MTU; IPv4 with DF gets ICMP fragmentation needed (RFC 1191) and IPv6 ICMPv6
Packet Too Big (RFC 4443 3.2, RFC 8201) with the port's MTU, sent to its source
at the remote site, so back through the tunnel (ESP of the out SA), from the
inner port's address; both counted as mtu."""

import struct

import pytest
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6

import gwlib
from gwlib import check_drops
from test_mtu_ttl import csum, icmp6_checksum_ok, reassemble4

LAN_MTU = 1280                # the smallest an IPv6 port takes; the WAN keeps 1500
REMOTE = {4: "10.2.0.0/16", 6: "fd00:2::/48"}
HOSTS = {4: gwlib.HOST4, 6: gwlib.HOST6}
LAN_ADDR = {4: gwlib.LAN4, 6: gwlib.LAN6}


def feed(rng, inn, packets):
    return [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
            for i, b in enumerate(packets)]


def icmp_of(inner):
    """(type, code, 4-byte field, quoted bytes) of an inner ICMP / ICMPv6 error, after
    checking its checksums and size limits."""
    if inner[0] >> 4 == 4:
        ihl = (inner[0] & 15) * 4
        tl = struct.unpack("!H", inner[2:4])[0]
        assert gwlib.ipv4_checksum_ok(inner[:ihl]), "bad IPv4 header checksum"
        assert inner[9] == 1, "not ICMP: protocol %d" % inner[9]
        assert tl <= 576, "ICMP error of %d bytes (RFC 1812 4.3.2.3: at most 576)" % tl
        body = inner[ihl:tl]
        assert csum(body) == 0, "bad ICMP checksum"
    else:
        assert inner[6] == 58, "not ICMPv6: next header %d" % inner[6]
        assert icmp6_checksum_ok(IPv6(inner)), "bad ICMPv6 checksum"
        assert len(inner) <= 1280, "ICMPv6 error of %d bytes (RFC 4443 2.4 (c))" % len(inner)
        body = inner[40:]
    return body[0], body[1], struct.unpack("!I", body[4:8])[0], body[8:]


@pytest.mark.parametrize("suite,outer", [("aes128-gcm16", 4), ("aes128-cbc-sha256", 6)])
def test_decapsulated_packet_over_inner_mtu(gw, rng, suite, outer):
    out, inn = gwlib.make_sa_pair(rng, suite, outer)
    good = gwlib.mixed_traffic(rng, 16, LAN_MTU, REMOTE, HOSTS)
    edge = [gwlib.inner_packet(rng, 4, "10.2.0.7", gwlib.HOST4, LAN_MTU, df=True),
            gwlib.inner_packet(rng, 6, "fd00:2::7", gwlib.HOST6, LAN_MTU)]
    df4 = gwlib.inner_packet(rng, 4, "10.2.0.8", gwlib.HOST4, 1400, df=True, proto="udp")
    nodf4 = gwlib.inner_packet(rng, 4, "10.2.0.9", gwlib.HOST4, 1400, df=False, proto="udp")
    big6 = gwlib.inner_packet(rng, 6, "fd00:2::9", gwlib.HOST6, 1400, proto="tcp")
    seq = good[:8] + [df4, edge[0], nodf4, edge[1], big6] + good[8:]
    r = gw.run([out, inn], wan_in=feed(rng, inn, seq), lan_mtu=LAN_MTU)

    # inner port: the good packets whole, the non-DF one in fragments, nothing over the MTU
    lan = gwlib.data_frames(r.lan_out)
    over = [len(gwlib.inner_bytes_of(f)) for f in lan if len(gwlib.inner_bytes_of(f)) > LAN_MTU]
    assert not over, "packets of %s bytes sent on the inner port (MTU %d)" % (over, LAN_MTU)
    whole, frags = [], []
    for f in lan:
        b = gwlib.inner_bytes_of(f)
        if b[0] >> 4 == 4 and struct.unpack("!H", b[6:8])[0] & 0x3fff:
            frags.append(b)
        else:
            whole.append(b)
    problems = gwlib.match_forwarded(good + edge, whole)
    assert not problems, "\n".join(problems[:10])
    assert len(frags) >= 2 and all(b[4:6] == nodf4[4:6] for b in frags), \
        "%d IPv4 fragments on the inner port, expected those of the 1400-byte packet" % len(frags)
    assert all(len(b) <= LAN_MTU for b in frags)
    assert all(gwlib.ipv4_checksum_ok(b[:20]) for b in frags), "fragment header checksum"
    diff = gwlib.forwarded_diff(nodf4, reassemble4(frags))
    assert diff is None, "the fragments reassemble to something else: " + diff

    # outer port: the two ICMP errors, through the tunnel
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    assert len(dec) == 2, "%d packets through the tunnel, expected the 2 ICMP errors " \
        "(drops %s)" % (len(dec), {k: v for k, v in r.drops.items() if v})
    for orig, typ, code in ((df4, 3, 4), (big6, 2, 0)):
        fam = orig[0] >> 4
        mine = [d.inner for d in dec if d.inner[0] >> 4 == fam]
        assert len(mine) == 1, "no single ICMP error for the IPv%d packet" % fam
        e = mine[0]
        src, dst = (IP(e).src, IP(e).dst) if fam == 4 else (IPv6(e).src, IPv6(e).dst)
        osrc = IP(orig).src if fam == 4 else IPv6(orig).src
        assert (src, dst) == (LAN_ADDR[fam], osrc), \
            "ICMP error %s -> %s, expected %s -> %s" % (src, dst, LAN_ADDR[fam], osrc)
        t, c, word, quote = icmp_of(e)
        assert (t, c) == (typ, code), "type/code %d/%d, expected %d/%d" % (t, c, typ, code)
        mtu = word & 0xffff if fam == 4 else word
        assert mtu == LAN_MTU, "the error announces MTU %d, the inner port has %d" % (mtu, LAN_MTU)
        assert len(quote) >= (28 if fam == 4 else 48) and quote == orig[:len(quote)], \
            "the quote is not the start of the packet as it arrived"
    check_drops(r, mtu=2)
    assert sum(w["inner_fragmented"] for w in r.stats["workers"]) == 1, r.stats["workers"]
    assert r.sa(inn.name)["packets"] == len(good) + len(edge) + 1, \
        "the in SA counts %d packets delivered" % r.sa(inn.name)["packets"]


def test_no_icmp_error_about_an_icmp_error(gw, rng):
    """A decapsulated ICMP error (destination unreachable, ICMPv6 time exceeded)
    too big for the inner port is dropped and counted as mtu, with no ICMP
    error about it (RFC 1812 4.3.2.2, RFC 4443 2.4 (e)); an echo request of
    the same size still gets one."""
    from scapy.layers.inet import ICMP
    from scapy.layers.inet6 import ICMPv6TimeExceeded, ICMPv6EchoRequest
    from scapy.packet import Raw
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    pad = bytes(1400)
    errs = [bytes(IP(src="10.2.0.20", dst=gwlib.HOST4, flags="DF") / ICMP(type=3, code=1) /
                  Raw(pad)),
            bytes(IPv6(src="fd00:2::20", dst=gwlib.HOST6) / ICMPv6TimeExceeded() / Raw(pad))]
    echo = bytes(IPv6(src="fd00:2::21", dst=gwlib.HOST6) / ICMPv6EchoRequest(data=pad))
    r = gw.run([out, inn], wan_in=feed(rng, inn, errs + [echo]), lan_mtu=LAN_MTU)
    assert not gwlib.data_frames(r.lan_out), "a packet over the inner MTU went out"
    dec = gwlib.decrypt_outbound(out, gwlib.data_frames(r.wan_out))
    assert len(dec) == 1, "%d ICMP errors through the tunnel; expected one, about the echo " \
        "request, none about the ICMP errors" % len(dec)
    t, c, mtu, quote = icmp_of(dec[0].inner)
    assert (t, c, mtu) == (2, 0, LAN_MTU) and quote == echo[:len(quote)]
    check_drops(r, mtu=3)
