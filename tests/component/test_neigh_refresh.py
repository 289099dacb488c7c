# SPDX-License-Identifier: BSD-3-Clause
"""A spoofed ARP packet must not hold a next hop on a false MAC for good
(lib/tables/gw_neigh.c gw_neigh_refresh, lib/ctrl/gw_ctrl.c neigh_refresh,
[gateway] neighbor-refresh).

Three network namespaces made and removed here (hgnr-t<pid>-host, -gw,
-peer): a host pings 10.2.0.5 through hipgw, whose manually keyed out SA
sends it as ESP to the peer 192.0.2.2 (net_af_packet ports on veth pairs);
the gateway resolves the peer by ARP. Then a forged ARP request claims
192.0.2.2 for another MAC (RFC 826 lets any ARP packet for us set the
sender's MAC: the gateway takes it), and the ESP goes to the false MAC. The
peer's kernel has a permanent entry for the gateway, so it never sends ARP of
its own and nothing but the gateway's refresh can set the entry right: with
neighbor-refresh = 2 the gateway must ask for 192.0.2.2 again (ARP request),
the peer's kernel answers, and the ESP reaches the peer's real MAC again."""

import os
import select
import subprocess
import time

import pytest

import gwlib

NS = f"hgnr-t{os.getpid()}"
GW_IF, PEER_IF, LAN_IF, HOST_IF = "nwan-gw", "nwan-peer", "nlan-gw", "nlan-host"
GW_MAC, PEER_MAC, FALSE_MAC = "02:00:00:00:0d:01", "02:00:00:00:0d:02", "02:00:00:00:0d:66"
GW4, PEER4, LAN4, HOST4, REMOTE4 = "192.0.2.1", "192.0.2.2", "10.1.0.1", "10.1.0.2", "10.2.0.5"
REFRESH_S = 2
WAIT_S = 40                 # bound on the wait for each step (not a timing check)

CAPTURE = gwlib.PEER_CAPTURE

# Runs in the peer namespace: the forged ARP request for the gateway.
SPOOF = r"""
import sys
from scapy.all import ARP, Ether, sendp
iface, gw_mac, false_mac, gw4, peer4 = sys.argv[1:]
sendp(Ether(src=false_mac, dst=gw_mac) / ARP(op=1, hwsrc=false_mac, psrc=peer4,
      hwdst="00:00:00:00:00:00", pdst=gw4), iface=iface, verbose=False)
"""


sh = gwlib.sh


def veth(ns_a, if_a, ns_b, if_b, tag):
    tmp_a, tmp_b = f"hgnr{os.getpid()}{tag}a", f"hgnr{os.getpid()}{tag}b"
    sh("ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b)
    sh("ip", "link", "set", tmp_a, "netns", ns_a, "name", if_a)
    sh("ip", "link", "set", tmp_b, "netns", ns_b, "name", if_b)
    for ns, dev in ((ns_a, if_a), (ns_b, if_b)):
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1")
        sh("ip", "-n", ns, "link", "set", dev, "up")
        sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "rx", "off", "tx", "off",
           "tso", "off", "gso", "off", "gro", "off", check=False)


@pytest.fixture
def netns():
    names = {k: f"{NS}-{k}" for k in ("host", "gw", "peer")}
    for ns in names.values():
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
    try:
        veth(names["gw"], GW_IF, names["peer"], PEER_IF, "w")
        veth(names["gw"], LAN_IF, names["host"], HOST_IF, "l")
        peer, host = names["peer"], names["host"]
        sh("ip", "-n", peer, "link", "set", PEER_IF, "address", PEER_MAC)
        sh("ip", "-n", peer, "addr", "add", f"{PEER4}/24", "dev", PEER_IF)
        sh("ip", "-n", peer, "neigh", "replace", GW4, "lladdr", GW_MAC, "nud", "permanent",
           "dev", PEER_IF)
        sh("ip", "-n", host, "addr", "add", f"{HOST4}/24", "dev", HOST_IF)
        sh("ip", "-n", host, "route", "add", "default", "via", LAN4)
        yield names
    finally:
        for ns in names.values():
            sh("ip", "netns", "del", ns, check=False)


def config(d):
    path = d / "gw.ini"
    path.write_text("\n".join([
        "[gateway]", "workers = 1", f"neighbor-refresh = {REFRESH_S}", "",
        "[port lan]", f"device = net_af_packet0,iface={LAN_IF}", "role = inner",
        f"address = {LAN4}/24", "",
        "[port wan]", f"device = net_af_packet1,iface={GW_IF}", "role = outer",
        f"address = {GW4}/24", f"mac = {GW_MAC}", "",
        "[sa to-peer]", "direction = out", "spi = 0x1001", "suite = aes128-gcm16",
        "key = 0x" + os.urandom(20).hex(), f"local = {GW4}", f"remote = {PEER4}",
        "prefixes = 10.2.0.0/24", f"state = {d}/to-peer.seq", ""]))
    os.chmod(path, 0o600)
    return path


def frame(line):
    """("esp", dst MAC) / ("arp-request", target IP) from the gateway, else None."""
    if not line or line == "ready":
        return None
    b = bytes.fromhex(line.split()[1])
    if b[6:12].hex(":") != GW_MAC:
        return None
    if b[12:14] == b"\x08\x00" and b[23] == 50:
        return ("esp", b[0:6].hex(":"))
    if b[12:14] == b"\x08\x06" and int.from_bytes(b[20:22], "big") == 1:
        return ("arp-request", ".".join(map(str, b[38:42])))
    return None


def wait_for(cap, want, seen):
    """Read the capture until a frame from the gateway equals `want` (bounded
    by WAIT_S); every frame read goes to `seen`. True when it came."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        r, _, _ = select.select([cap.stdout], [], [], 0.5)
        if not r:
            continue
        f = frame(cap.stdout.readline().strip())
        if f is not None:
            seen.append(f)
            if f == want:
                return True
    return False


def test_spoofed_arp_does_not_hold_the_neighbour(netns, tmp_path):
    cfg, stats, logf = config(tmp_path), tmp_path / "stats.json", tmp_path / "gw.log"
    prefix = f"hgnr{os.getpid()}"
    gw = gwlib.start_gateway(netns["gw"], prefix, cfg, stats, logf)
    cap = ping = None
    seen, steps = [], {}
    try:
        gwlib.wait_gateway_running(gw, logf)
        cap = subprocess.Popen(["ip", "netns", "exec", netns["peer"], "/usr/bin/python3", "-c",
                                CAPTURE, PEER_IF], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
        assert cap.stdout.readline().strip() == "ready"
        ping = subprocess.Popen(["ip", "netns", "exec", netns["host"], "ping", "-n", "-q",
                                 "-i", "0.2", REMOTE4], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        steps["esp to the peer"] = wait_for(cap, ("esp", PEER_MAC), seen)
        if steps["esp to the peer"]:
            sh("ip", "netns", "exec", netns["peer"], "/usr/bin/python3", "-c", SPOOF, PEER_IF,
               GW_MAC, FALSE_MAC, GW4, PEER4)
            steps["esp to the false MAC"] = wait_for(cap, ("esp", FALSE_MAC), seen)
        if steps.get("esp to the false MAC"):
            steps["ARP request for the peer again"] = wait_for(cap, ("arp-request", PEER4), seen)
        if steps.get("ARP request for the peer again"):
            steps["esp to the peer again"] = wait_for(cap, ("esp", PEER_MAC), seen)
    finally:
        for p in (ping,):
            if p is not None:
                p.kill()
                p.wait()
        if cap is not None:
            cap.communicate(input="", timeout=10)
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)
    short = sorted(set(seen))
    assert steps.get("esp to the peer"), f"no ESP to {PEER_MAC} at the start: {short}"
    assert steps.get("esp to the false MAC"), \
        f"the forged ARP request did not move the ESP to {FALSE_MAC}: {short}"
    assert steps.get("ARP request for the peer again"), \
        f"the gateway never asked for {PEER4} again after the forged ARP request: {short}"
    assert steps.get("esp to the peer again"), \
        f"the ESP did not come back to {PEER_MAC} after the gateway's ARP request: {short}"
