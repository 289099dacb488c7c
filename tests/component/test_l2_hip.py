# SPDX-License-Identifier: BSD-3-Clause
"""HIP-keyed L2 bridges through two real gateways (docs/l2.md, "HIP-keyed
bridges"; lib/keying/gw_hip.c, lib/dp/gw_l2.c, lib/runtime/gw_l2_setup.c).

gwA and gwB run on net_af_packet ports, each in a namespace of this test's
(l2-hip-t<pid>-a / -b), each with an inner port in mode l2 whose [bridge]
has the other as its one peer, a [peer] without prefixes. A relay in a third
namespace (-relay) is both sites' segments and the WAN between the gateways;
the test holds the WAN shut until it opens it. It shows:

* both gateways send an I1 with no frame sent at all (a bridge peer's BEX
  starts at start-up);
* frames on gwA's segment while it has no SA are staged, GW_HIP_STAGE_MAX
  (32) of them, the rest counted (`stage_full`, `no_sa`), none on the WAN;
  once the WAN is open and the SAs are up the 32 come out of gwB's l2 port
  byte for byte and in order, and so do later frames, both ways;
* gwA's ESP on the WAN, decrypted with the keys of its --keylog, has next
  header 97 and the EtherIP header 30 00 before each frame;
* gwB stopped sends CLOSE; gwA drops its SAs and, with no traffic, once the
  CLOSED state's hold is over, sends a new I1 by itself; once gwB is back
  the bridge carries frames again (a second BEX)."""

import ipaddress
import os
import threading
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.ipsec import ESP, SecurityAssociation
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

import gwlib
from test_pmtu import Gateway, Link, veth

NS = "l2-hip-t%d" % os.getpid()
A_LAN_MAC, A_WAN_MAC = "02:6c:32:68:00:10", "02:6c:32:68:00:11"
B_LAN_MAC, B_WAN_MAC = "02:6c:32:68:00:20", "02:6c:32:68:00:21"
A_WAN4, B_WAN4 = "192.0.2.1", "192.0.2.2"
LAN_IF, WAN_IF = "l2h-lan", "l2h-wan"
IPPROTO_ESP, IPPROTO_HIP, ETHERIP_NH = 50, 139, 97
HIP_I1, HIP_CLOSE, HIP_CLOSE_ACK = 1, 18, 19          # RFC 7401 section 5.3
ETHERIP_HDR = b"\x30\x00"                              # RFC 3378: version 3
STAGE_MAX = 32                                         # GW_HIP_STAGE_MAX
EXTRA = 8                                              # frames over the limit
WAIT = 60                                              # s for an expected event at most
HOST_A, HOST_B = "02:00:00:00:0a:01", "02:00:00:00:0b:01"


class Wire(Link):
    """The relay (test_pmtu's Link): every frame it receives is kept with
    its interface; while open, frames between the two WAN veths are handed
    across by this test."""

    def __init__(self, relay_ns):
        self.lock = threading.RLock()
        self.frames = []                   # (interface, bytes), as received
        self.open = False
        super().__init__(relay_ns, lan="r-al", wan="r-aw", more=["r-bl", "r-bw"])

    def _read(self):
        for line in self.p.stdout:
            name, hx = line.split()
            with self.lock:
                self.frames.append((name, bytes.fromhex(hx)))
                if self.open and name in ("r-aw", "r-bw"):
                    self.send("r-bw" if name == "r-aw" else "r-aw", bytes.fromhex(hx))

    def send(self, iface, frame):
        with self.lock:
            super().send(iface, frame)

    def on(self, iface, start=0):
        """The frames received on iface from index start on (bytes)."""
        with self.lock:
            return [f for n, f in self.frames[start:] if n == iface]

    def mark(self):
        with self.lock:
            return len(self.frames)


def wait_until(cond, what):
    """Poll cond() until it returns a true value (WAIT s at most); return it."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError("no %s within %d s" % (what, WAIT))


def hip_type(f, src):
    """HIP packet type of IPv4 frame f from src, else None."""
    e = Ether(f)
    if IP not in e or e[IP].proto != IPPROTO_HIP or e[IP].src != src:
        return None
    return bytes(e[IP].payload)[2] & 0x7f


def esp_from(frames, src):
    return [f for f in frames if IP in Ether(f) and Ether(f)[IP].proto == IPPROTO_ESP and
            Ether(f)[IP].src == src]


def config(d, name, key, wan, peer, peer_hit, peer_wan, peer_mac):
    path = os.path.join(str(d), name + ".conf")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write("\n".join([
            "[gateway]", "workers = 1", "hi = " + key, "",
            "[port lan]", "device = net_af_packet0,iface=" + LAN_IF, "role = inner",
            "mode = l2", "",
            "[port wan]", "device = net_af_packet1,iface=" + WAN_IF, "role = outer",
            "address = %s/24" % wan, "neighbors = %s %s" % (peer_wan, peer_mac), "",
            "[peer %s]" % peer, "hit = " + peer_hit, "locator = " + peer_wan, "",
            "[bridge site]", "port = lan", "peers = " + peer, ""]))
    return path


def frames_from(src, dst, tag, n):
    """n distinct frames, an ARP broadcast first, then UDP unicasts."""
    out = [bytes(Ether(src=src, dst="ff:ff:ff:ff:ff:ff") /
                 ARP(hwsrc=src, psrc="10.5.0.1", pdst="10.5.0.2"))]
    for i in range(1, n):
        out.append(bytes(Ether(src=src, dst=dst) / IP(src="10.5.0.1", dst="10.5.0.2") /
                         UDP(sport=1000 + i, dport=2000) / Raw(tag + bytes([i]) * (20 + i))))
    return out


def keylog_sa(path, src, dst):
    """scapy's SecurityAssociation (no tunnel header) of the last SA from src
    to dst that the --keylog file at path names."""
    with open(path) as f:
        rows = [[c.strip('"') for c in line.strip().split('","')] for line in f if line.strip()]
    rows = [r for r in rows if r[1] == src and r[2] == dst]
    assert rows, "no keylog line %s -> %s in %s" % (src, dst, path)
    _, _, _, spi, enc, key, auth, akey = rows[-1]
    kw = {}
    if enc.startswith("AES-GCM"):
        kw = dict(crypt_algo="AES-GCM", crypt_key=bytes.fromhex(key[2:]), crypt_icv_size=16)
    else:
        kw = dict(crypt_algo="AES-CBC" if enc.startswith("AES-CBC") else "NULL",
                  crypt_key=bytes.fromhex(key[2:]) if key else None,
                  auth_algo="SHA2-256-128", auth_key=bytes.fromhex(akey[2:]))
    return int(spi, 16), SecurityAssociation(ESP, spi=int(spi, 16), **kw)


def peer_counters(gw, peer):
    return gwlib.telemetry(gw.prefix, "/hipgw/hip_peer," + peer)


def ordered_his(d):
    """Host Identities for gwA and gwB, gwA's HIT the smaller: when both
    gateways start a BEX at once, gwA's goes on (RFC 7401 6.7, 6.9) and gwA,
    which holds the staged frames, sends them as the initiator, after R2,
    when gwB has its SAs already."""
    for i in range(32):
        a, b = gwlib.make_hi(d, "gwA%d" % i), gwlib.make_hi(d, "gwB%d" % i)
        if ipaddress.IPv6Address(a[1]) > ipaddress.IPv6Address(b[1]):
            a, b = b, a
        if a[1] != b[1]:
            return a, b
    raise AssertionError("no two distinct HITs")


@pytest.fixture(scope="module")
def l2_netns():
    with gwlib.namespaces(NS + "-a", NS + "-b", NS + "-relay") as (a, b, relay):
        veth(a, LAN_IF, A_LAN_MAC, relay, "r-al")
        veth(a, WAN_IF, A_WAN_MAC, relay, "r-aw")
        veth(b, LAN_IF, B_LAN_MAC, relay, "r-bl")
        veth(b, WAN_IF, B_WAN_MAC, relay, "r-bw")
        yield a, b, relay


def test_hip_bridge(l2_netns, tmp_path):
    a_ns, b_ns, relay = l2_netns
    d = str(tmp_path)
    (key_a, hit_a), (key_b, hit_b) = ordered_his(d)
    cfg_a = config(d, "gwA", key_a, A_WAN4, "gwB", hit_b, B_WAN4, B_WAN_MAC)
    cfg_b = config(d, "gwB", key_b, B_WAN4, "gwA", hit_a, A_WAN4, A_WAN_MAC)
    klog_a = os.path.join(d, "keylog-a.txt")
    wire = Wire(relay)
    gw_a = gw_b = gw_b2 = None
    staged = frames_from(HOST_A, HOST_B, b"s", STAGE_MAX + EXTRA)
    try:
        gw_b = Gateway(b_ns, d, cfg_b, name="gwB")
        gw_a = Gateway(a_ns, d, cfg_a, ["--keylog", klog_a], name="gwA")
        # no frame sent yet: each gateway starts a BEX with its bridge peer
        wait_until(lambda: any(hip_type(f, A_WAN4) == HIP_I1 for f in wire.on("r-aw")),
                   "I1 from gwA")
        wait_until(lambda: any(hip_type(f, B_WAN4) == HIP_I1 for f in wire.on("r-bw")),
                   "I1 from gwB")
        assert wire.on("r-al") == [] and wire.on("r-bl") == []

        # the WAN still shut: frames to gwB are staged, the excess counted
        for f in staged:
            wire.send("r-al", f)
        c = wait_until(lambda: (lambda p: p if p["staged"] + p["stage_full"] ==
                                len(staged) else None)(peer_counters(gw_a, "gwB")),
                       "all frames staged or counted at gwA")
        assert (c["staged"], c["stage_full"], c["in_spi"]) == (STAGE_MAX, EXTRA, 0), c
        assert esp_from(wire.on("r-aw"), A_WAN4) == [], "ESP before any SA"
        assert all(hip_type(f, A_WAN4) is not None for f in wire.on("r-aw")), \
            "only HIP from gwA on the WAN"

        # open the WAN: the BEX completes and the staged frames come out at gwB
        wire.open = True
        got = wait_until(lambda: (lambda g: g if len(g) >= STAGE_MAX else None)(
            wire.on("r-bl")), "the staged frames on gwB's segment")
        assert got == staged[:STAGE_MAX], "frames out of gwB's l2 port:\n%s\nexpected:\n%s" % (
            [g.hex() for g in got], [s.hex() for s in staged[:STAGE_MAX]])

        # with the SAs up, both ways, straight through
        later_a = frames_from(HOST_A, HOST_B, b"a", 3)[1:]
        later_b = frames_from(HOST_B, HOST_A, b"b", 3)
        mb = wire.mark()
        for f in later_a:
            wire.send("r-al", f)
        for f in later_b:
            wire.send("r-bl", f)
        wait_until(lambda: len(wire.on("r-bl", mb)) >= len(later_a) and
                   len(wire.on("r-al", mb)) >= len(later_b), "frames across the bridge")
        assert wire.on("r-bl", mb) == later_a
        assert wire.on("r-al", mb) == later_b

        # gwA's ESP decrypts (its keylog) to next header 97, EtherIP, the frame
        spi, sa = keylog_sa(klog_a, A_WAN4, B_WAN4)
        esp = esp_from(wire.on("r-aw"), A_WAN4)
        assert len(esp) == STAGE_MAX + len(later_a), len(esp)
        for f, want in zip(esp, staged[:STAGE_MAX] + later_a):
            ip = Ether(f)[IP]
            assert ip[ESP].spi == spi, hex(ip[ESP].spi)
            dec = sa.decrypt(IP(bytes(ip)))
            assert dec.proto == ETHERIP_NH, "next header %d, expected 97" % dec.proto
            assert bytes(dec.payload) == ETHERIP_HDR + want

        # gwB stops (CLOSE): gwA, with nothing to send, starts a new BEX
        bex_a = peer_counters(gw_a, "gwB")["bex_ok"]
        mc = wire.mark()
        st_b = gw_b.stop()
        gw_b = None
        wait_until(lambda: any(hip_type(f, B_WAN4) == HIP_CLOSE for f in wire.on("r-bw", mc)),
                   "CLOSE from gwB")
        wait_until(lambda: peer_counters(gw_a, "gwB")["in_spi"] == 0, "gwA's SAs down")
        # CLOSED's hold first (15 s: gwB is going away), then an I1 by itself
        wait_until(lambda: any(hip_type(f, A_WAN4) == HIP_I1 for f in wire.on("r-aw", mc)),
                   "a new I1 from gwA after the CLOSE")
        assert esp_from(wire.on("r-aw", mc), A_WAN4) == []
        assert st_b["hip"]["bex_ok"] == 1, st_b["hip"]      # none set up while closing
        assert st_b["hip"]["peers"]["gwA"]["staged"] == 0, st_b["hip"]["peers"]["gwA"]

        # gwB back: the bridge carries frames again
        gw_b2 = Gateway(b_ns, d, cfg_b, name="gwB2")
        wait_until(lambda: peer_counters(gw_a, "gwB")["bex_ok"] > bex_a and
                   peer_counters(gw_a, "gwB")["in_spi"] != 0 and
                   peer_counters(gw_b2, "gwA")["in_spi"] != 0, "the second BEX")
        again = frames_from(HOST_A, HOST_B, b"z", 3)[1:]
        mz = wire.mark()
        for f in again:
            wire.send("r-al", f)
        wait_until(lambda: len(wire.on("r-bl", mz)) >= len(again), "frames after the new BEX")
        assert wire.on("r-bl", mz) == again
    finally:
        try:
            st_a = gw_a.stop() if gw_a is not None else None
        finally:
            for g in (gw_b, gw_b2):
                if g is not None:
                    g.stop()
            wire.close()
    peer = st_a["hip"]["peers"]["gwB"]
    assert (peer["staged"], peer["stage_full"]) == (STAGE_MAX, EXTRA), peer
    assert st_a["drops"]["no_sa"] == EXTRA, st_a["drops"]
    assert all(v == 0 for k, v in st_a["drops"].items() if k != "no_sa"), st_a["drops"]
