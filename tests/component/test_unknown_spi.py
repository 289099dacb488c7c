# SPDX-License-Identifier: BSD-3-Clause
"""ESP for an SPI the gateway does not know, from a [peer]'s locator: the
peer kept SAs that this gateway lost (it restarted), so it starts a Base
Exchange with that peer (lib/dp/gw_inbound.c unknown_spi, lib/tables/
gw_peerloc.c, lib/keying/gw_hip.c hook_unknown_spi; RFC 7401 section 4.4.2).

The real binary on net_pcap ports, HIP-keyed: two [peer]s, gwb with an IPv4
locator (behind the outer gateway) and gwc with an IPv6 one (on-link). ESP
frames with random SPIs from their locators make hipgw send one I1 to each
(read back from the output pcap: IP protocol 139, packet type I1, our HIT
to the peer's), however many frames came: one trigger per peer, the rest
counted as rate-limited (or ignored, a BEX running), every frame a no_sa
drop. The same frames from addresses that are no peer's locator give no I1
and only no_sa. Nothing goes to the inner port meanwhile."""

import ipaddress
import os
import struct

import pytest
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import gwlib

IPPROTO_ESP, IPPROTO_HIP = 50, 139
HIP_I1 = 1                           # RFC 7401 section 5.3.1
FRAMES = 48                          # per peer: more than one RX burst
STRANGER4, STRANGER6 = "198.51.100.99", "2001:db8:1::99"


def ipv6_addr(hit):
    return ipaddress.IPv6Address(hit).packed


def write_hip_config(d, gw_key, hit_b, hit_c):
    path = gwlib.write_config(d, [], gateway_extra="hi = %s" % gw_key)
    with open(path, "a") as f:
        f.write("\n".join([
            "", "[peer gwb]", "hit = " + hit_b, "locator = " + gwlib.PEER4,
            "prefixes = 10.2.0.0/16",
            "", "[peer gwc]", "hit = " + hit_c, "locator = " + gwlib.PEER6,
            "prefixes = 10.3.0.0/16", ""]))
    return path


def esp_frames(rng, src4, src6, n):
    """n ESP frames from src4 and n from src6 to our outer addresses,
    interleaved, each with its own random SPI (>= 256) and a random body."""
    out = []
    for i in range(n):
        for src in (src4, src6):
            body = struct.pack("!II", rng.randrange(256, 1 << 32), i + 1) + \
                bytes(rng.getrandbits(8) for _ in range(64))
            if ":" in src:
                out.append(Ether(src=gwlib.PEER6_MAC, dst=gwlib.WAN_MAC) /
                           IPv6(src=src, dst=gwlib.WAN6, nh=IPPROTO_ESP) / Raw(body))
            else:
                out.append(Ether(src=gwlib.GW4_MAC, dst=gwlib.WAN_MAC) /
                           IP(src=src, dst=gwlib.WAN4, proto=IPPROTO_ESP) / Raw(body))
    return out


def hip_packets(frames):
    """(frame, HIP bytes) of every IPv4/IPv6 HIP packet among frames."""
    out = []
    for f in frames:
        if IP in f and f[IP].proto == IPPROTO_HIP:
            ip = bytes(f[IP])
            out.append((f, ip[(ip[0] & 15) * 4:f[IP].len]))
        elif IPv6 in f and f[IPv6].nh == IPPROTO_HIP:
            out.append((f, bytes(f[IPv6])[40:40 + f[IPv6].plen]))
    return out


def run(d, frames, extra_args=()):
    r = gwlib.run_hipgw(d, os.path.join(d, "hipgw.conf"), wan_in=frames, extra_args=extra_args)
    gwlib.check_clean_run(r)
    assert "hip" in r.stats, r.describe()
    return r


@pytest.mark.parametrize("slow", [False, True], ids=["fast", "slow_path"])
def test_unknown_spi_from_peer_starts_bex(tmp_path, rng, slow):
    d = str(tmp_path)
    gw_key, gw_hit = gwlib.make_hi(d, "gw")
    _, hit_b = gwlib.make_hi(d, "gwb")
    _, hit_c = gwlib.make_hi(d, "gwc")
    write_hip_config(d, gw_key, hit_b, hit_c)
    frames = esp_frames(rng, gwlib.PEER4, gwlib.PEER6, FRAMES)
    r = run(d, frames, ["--slow-path"] if slow else [])
    hip = r.stats["hip"]

    hips = hip_packets(r.wan_out)
    assert len(hips) == len(r.wan_out), "only HIP may leave: %s" % [f.summary() for f in r.wan_out]
    assert r.lan_out == [], "forwarded inward: %s" % [f.summary() for f in r.lan_out]
    by_peer = {}
    for f, h in hips:
        assert len(h) >= 40 and h[2] & 0x7f == HIP_I1, "not an I1: %s" % h[:8].hex()
        assert h[8:24] == ipv6_addr(gw_hit), "sender HIT %s" % h[8:24].hex()
        if IP in f:
            assert (f[IP].src, f[IP].dst, f.dst) == (gwlib.WAN4, gwlib.PEER4, gwlib.GW4_MAC), \
                f.summary()
            want, name = hit_b, "gwb"
        else:
            assert (f[IPv6].src, f[IPv6].dst, f.dst) == (gwlib.WAN6, gwlib.PEER6,
                                                         gwlib.PEER6_MAC), f.summary()
            want, name = hit_c, "gwc"
        assert h[24:40] == ipv6_addr(want), "receiver HIT %s, not %s's" % (h[24:40].hex(), name)
        by_peer.setdefault(name, set()).add(h)
    # one I1 per peer; a retransmission of it (the peers never answer) is the same packet
    assert sorted(by_peer) == ["gwb", "gwc"], by_peer.keys()
    assert all(len(v) == 1 for v in by_peer.values()), by_peer
    assert len(hips) == 2 + hip["retransmits"], (len(hips), hip["retransmits"])

    assert hip["unknown_spi_bex"] == 2, hip
    assert hip["peers"]["gwb"]["unknown_spi_bex"] == 1, hip["peers"]
    assert hip["peers"]["gwc"]["unknown_spi_bex"] == 1, hip["peers"]
    assert hip["unknown_spi_ratelimit"] + hip["unknown_spi_ignored"] == 2 * FRAMES - 2, hip
    # the frames of one RX burst come within a second: the rate limit, not
    # the BEX state, turns most of them away, in the worker
    assert hip["unknown_spi_ratelimit"] > 0, hip
    assert hip["bex_ok"] == 0 and hip["i1_rx"] == 0, hip
    gwlib.check_drops(r, no_sa=2 * FRAMES)
    gwlib.check_ports(r, wan_rx=2 * FRAMES)


def test_unknown_spi_from_stranger_is_no_sa(tmp_path, rng):
    d = str(tmp_path)
    gw_key, _ = gwlib.make_hi(d, "gw")
    _, hit_b = gwlib.make_hi(d, "gwb")
    _, hit_c = gwlib.make_hi(d, "gwc")
    write_hip_config(d, gw_key, hit_b, hit_c)
    r = run(d, esp_frames(rng, STRANGER4, STRANGER6, FRAMES))
    hip = r.stats["hip"]
    assert r.wan_out == [] and r.lan_out == [], (r.wan_out, r.lan_out)
    assert hip["tx"] == 0 and hip["unknown_spi_bex"] == 0, hip
    assert hip["unknown_spi_ratelimit"] == 0 and hip["unknown_spi_ignored"] == 0, hip
    assert hip["peers"]["gwb"]["unknown_spi_bex"] == 0, hip["peers"]
    gwlib.check_drops(r, no_sa=2 * FRAMES)
    gwlib.check_ports(r, wan_rx=2 * FRAMES)
