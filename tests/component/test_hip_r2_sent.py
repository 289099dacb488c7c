# SPDX-License-Identifier: BSD-3-Clause
"""The HIP responder holds its staged packets in R2-SENT (RFC 7401 section
4.4.3; lib/keying/gw_hip.c, io_established and held_peers_data).

Two gateways, gwA and gwB, on net_af_packet ports in namespaces of this
test's (hgr2s-t<pid>-a / -b), their sites' segments and the WAN between them
relayed by a third (-relay), which holds the WAN shut until the test opens
it (test_l2_hip.py's harness). gwA's HIT is the greater: when both start a
Base Exchange at once gwA answers gwB's I1 (RFC 7401 6.7 step 3) and is the
responder. While the WAN is shut, frames (a bridge's, L2) or inner IPv4
packets (routed, L3) for the other site are staged at gwA, and (but in the
timer case) at gwB; then the WAN opens, and hands gwA's R2 across a little
late, as a WAN may. gwA installs its SAs before it sends R2, but gwB has its
in SA only once it processed R2: what gwA sent right away would be dropped
there as no_sa (all of it, with the R2 late). So gwA holds its staged
packets until the association is ESTABLISHED:

* data: gwB, the initiator, sends its own staged packets after R2; gwA sees
  its new in SA's count above 0 (its log says R2-SENT ended by that ESP)
  and sends its own;
* timer (L2: gwB has nothing to send): the R2-SENT timer (10 s) ends the
  hold (no such log line).

Either way every packet staged at gwA comes out of gwB's inner port, byte
for byte (L2) or routed by both gateways (L3), in order, and neither gateway
drops anything (no no_sa at gwB). gwA's stats show it timed I2->R2: it was
the responder. No timing is asserted."""

import ipaddress
import os
import random
import threading

import pytest
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

import gwlib
import test_l2_hip
from test_l2_hip import (A_LAN_MAC, A_WAN_MAC, A_WAN4, B_LAN_MAC, B_WAN_MAC, B_WAN4, HIP_I1,
                         LAN_IF, STAGE_MAX, WAN_IF, config, esp_from, frames_from, hip_type,
                         peer_counters, wait_until)
from test_pmtu import Gateway, veth

NS = "hgr2s-t%d" % os.getpid()
HOST_A, HOST_B = "02:00:00:00:0a:01", "02:00:00:00:0b:01"    # L2: the sites' hosts
HOST_MAC = gwlib.HOST_MAC                                       # L3: each site's host
SITE_A, SITE_B = ("10.1.0.1", "10.1.0.2", "10.1.0.0/24"), ("10.2.0.1", "10.2.0.2", "10.2.0.0/24")
N_B = 3                                 # packets staged at gwB (data case)
HIP_R2 = 4                              # RFC 7401 section 5.3
R2_DELAY = 0.3                          # s the WAN holds gwA's R2 back (< the I2's RTO)


class Wire(test_l2_hip.Wire):
    """test_l2_hip's relay, but once open it hands gwA's R2 across R2_DELAY s
    late, as a WAN may: ESP that gwA sends after its R2 then reaches gwB
    before the R2 does, unless gwA waits for gwB (without the delay it does
    so only some of the time)."""

    def _read(self):
        for line in self.p.stdout:
            name, hx = line.split()
            f = bytes.fromhex(hx)
            with self.lock:
                self.frames.append((name, f))
                if not self.open or name not in ("r-aw", "r-bw"):
                    continue
                to = "r-bw" if name == "r-aw" else "r-aw"
                if name == "r-aw" and hip_type(f, A_WAN4) == HIP_R2:
                    t = threading.Timer(R2_DELAY, self.send, (to, f))
                    t.daemon = True
                    t.start()
                else:
                    self.send(to, f)


def greater_hit_first(d):
    """Host Identities for gwA and gwB, gwA's HIT the greater."""
    for i in range(32):
        a, b = gwlib.make_hi(d, "gwA%d" % i), gwlib.make_hi(d, "gwB%d" % i)
        if ipaddress.IPv6Address(a[1]) < ipaddress.IPv6Address(b[1]):
            a, b = b, a
        if a[1] != b[1]:
            return a, b
    raise AssertionError("no two distinct HITs")


def l3_config(d, name, key, site, wan, peer, peer_hit, peer_wan, peer_mac, peer_site):
    """A gateway routing its site (lan, host, prefix) to peer's site over HIP."""
    path = os.path.join(str(d), name + ".conf")
    lan, host, _ = site
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write("\n".join([
            "[gateway]", "workers = 1", "hi = " + key, "",
            "[port lan]", "device = net_af_packet0,iface=" + LAN_IF, "role = inner",
            "address = %s/24" % lan, "neighbors = %s %s" % (host, HOST_MAC), "",
            "[port wan]", "device = net_af_packet1,iface=" + WAN_IF, "role = outer",
            "address = %s/24" % wan, "neighbors = %s %s" % (peer_wan, peer_mac), "",
            "[peer %s]" % peer, "hit = " + peer_hit, "locator = " + peer_wan,
            "prefixes = " + peer_site[2], ""]))
    return path


def inner_frames(rng, src_site, dst_site, gw_mac, n):
    """n distinct UDP/IPv4 packets from src_site's host to dst_site's, as
    frames to the gateway gw_mac, and the IP packets alone."""
    ips = [gwlib.inner_packet(rng, 4, src_site[1], dst_site[1], 80 + i, proto="udp", ttl=64,
                              tos=0, df=False) for i in range(n)]
    return [bytes(gwlib.lan_frame(p, dst_mac=gw_mac)) for p in ips], ips


def ip_of(frame):
    """The IPv4 packet of a frame, trimmed to its total length."""
    ip = bytes(Ether(frame)[IP])
    return ip[:int.from_bytes(ip[2:4], "big")]


def data_out(frames, l2):
    """The frames that are site traffic: all (L2, the bridge's port), the
    IPv4 ones to the host (L3)."""
    if l2:
        return list(frames)
    return [f for f in frames if IP in Ether(f) and Ether(f).dst == HOST_MAC]


@pytest.fixture(scope="module")
def r2_netns():
    with gwlib.namespaces(NS + "-a", NS + "-b", NS + "-relay") as (a, b, relay):
        veth(a, LAN_IF, A_LAN_MAC, relay, "r-al")
        veth(a, WAN_IF, A_WAN_MAC, relay, "r-aw")
        veth(b, LAN_IF, B_LAN_MAC, relay, "r-bl")
        veth(b, WAN_IF, B_WAN_MAC, relay, "r-bw")
        yield a, b, relay


@pytest.mark.parametrize("mode,trigger", [("l2", "data"), ("l3", "data"), ("l2", "timer")])
def test_responder_holds_staged_until_established(r2_netns, tmp_path, mode, trigger):
    a_ns, b_ns, relay = r2_netns
    d = str(tmp_path)
    l2 = mode == "l2"
    rng = random.Random("%s-%s" % (mode, trigger))
    (key_a, hit_a), (key_b, hit_b) = greater_hit_first(d)
    n_b = N_B if trigger == "data" else 0
    if l2:
        cfg_a = config(d, "gwA", key_a, A_WAN4, "gwB", hit_b, B_WAN4, B_WAN_MAC)
        cfg_b = config(d, "gwB", key_b, B_WAN4, "gwA", hit_a, A_WAN4, A_WAN_MAC)
        to_b = frames_from(HOST_A, HOST_B, b"s", STAGE_MAX)
        to_a = frames_from(HOST_B, HOST_A, b"t", n_b + 1)[1:]
        want_b, want_a = to_b, to_a
    else:
        cfg_a = l3_config(d, "gwA", key_a, SITE_A, A_WAN4, "gwB", hit_b, B_WAN4, B_WAN_MAC,
                          SITE_B)
        cfg_b = l3_config(d, "gwB", key_b, SITE_B, B_WAN4, "gwA", hit_a, A_WAN4, A_WAN_MAC,
                          SITE_A)
        to_b, ips_b = inner_frames(rng, SITE_A, SITE_B, A_LAN_MAC, STAGE_MAX)
        to_a, ips_a = inner_frames(rng, SITE_B, SITE_A, B_LAN_MAC, n_b)
        # routed by gwA and by gwB: TTL 2 less, header checksum anew
        want_b = [gwlib.routed(p, ttl_dec=2) for p in ips_b]
        want_a = [gwlib.routed(p, ttl_dec=2) for p in ips_a]
    wire = Wire(relay)
    gw_a = gw_b = None
    try:
        gw_b = Gateway(b_ns, d, cfg_b, name="gwB")
        gw_a = Gateway(a_ns, d, cfg_a, name="gwA")
        # the WAN shut: each gateway's packets for the other are staged, and
        # each has sent an I1 (a bridge peer's at start-up, L3 on the first packet)
        for f in to_b:
            wire.send("r-al", f)
        for f in to_a:
            wire.send("r-bl", f)
        wait_until(lambda: peer_counters(gw_a, "gwB")["staged"] == len(to_b) and
                   peer_counters(gw_b, "gwA")["staged"] == len(to_a), "the packets staged")
        wait_until(lambda: any(hip_type(f, A_WAN4) == HIP_I1 for f in wire.on("r-aw")),
                   "I1 from gwA")
        if n_b:
            wait_until(lambda: any(hip_type(f, B_WAN4) == HIP_I1 for f in wire.on("r-bw")),
                       "I1 from gwB")
        assert esp_from(wire.on("r-aw"), A_WAN4) == [], "ESP before any SA"

        # open the WAN: gwA answers gwB's I1, sends R2, and its staged
        # packets once the association is ESTABLISHED; or gwB drops some
        wire.open = True

        def no_sa_b():
            return gwlib.telemetry(gw_b.prefix, "/hipgw/stats")["drops"]["no_sa"]

        wait_until(lambda: no_sa_b() + len(data_out(wire.on("r-bl"), l2)) >= len(to_b) and
                   len(data_out(wire.on("r-al"), l2)) >= len(to_a),
                   "gwA's staged packets at gwB's site (or dropped there)")
        got_b = data_out(wire.on("r-bl"), l2)
        got_a = data_out(wire.on("r-al"), l2)
        assert no_sa_b() == 0, "gwB dropped %d as no_sa; %d of %d staged packets reached " \
            "its site" % (no_sa_b(), len(got_b), len(to_b))
        if not l2:
            got_b, got_a = [ip_of(f) for f in got_b], [ip_of(f) for f in got_a]
        assert got_b == want_b, "out of gwB's inner port:\n%s\nexpected:\n%s" % (
            [g.hex() for g in got_b], [w.hex() for w in want_b])
        assert got_a == want_a, "out of gwA's inner port: %s" % [g.hex() for g in got_a]
        assert len(esp_from(wire.on("r-aw"), A_WAN4)) == len(to_b)
        ended_by_esp = "peer gwB: R2-SENT ended by its ESP" in gw_a.log()
        assert ended_by_esp == (trigger == "data"), gw_a.log()
        assert "peer gwB: ESTABLISHED: %d staged packet(s) sent" % len(to_b) in gw_a.log()
    finally:
        try:
            st_a = gw_a.stop() if gw_a is not None else None
        finally:
            st_b = gw_b.stop() if gw_b is not None else None
            wire.close()
    peer_a, peer_b = st_a["hip"]["peers"]["gwB"], st_b["hip"]["peers"]["gwA"]
    assert peer_a["bex_ms"]["i2_to_r2"] is not None, peer_a      # gwA was the responder
    assert peer_b["bex_ms"]["r1_to_i2"] is not None, peer_b      # gwB the initiator
    assert (peer_a["bex_ok"], peer_b["bex_ok"]) == (1, 1), (peer_a, peer_b)
    assert (peer_a["staged"], peer_a["stage_full"]) == (len(to_b), 0), peer_a
    assert (peer_b["staged"], peer_b["stage_full"]) == (len(to_a), 0), peer_b
    for name, st in (("gwA", st_a), ("gwB", st_b)):
        assert all(v == 0 for v in st["drops"].values()), (name, st["drops"])
