# SPDX-License-Identifier: BSD-3-Clause
"""Outer fragments that never complete must not take the mbuf pool
(lib/dp/gw_worker.c: each worker's reassembly table holds at most a share of
the pool, FRAG_POOL_SHARE_DIV; lib/dp/gw_inbound.c: timed-out reassemblies
are swept every loop, FRAG_TIMEOUT_MS).

Two network namespaces made and removed here (hgfp-t<pid>-gw, -peer), one veth
between them: hipgw's outer port (net_af_packet; its inner port is net_null
and gets nothing) with the pool at its minimum ([gateway] mbufs = 4096), and a
peer whose kernel pings the gateway's WAN address. The peer then sends IPv6
first fragments of ESP packets (offset 0, M set, RFC 8200 4.5; scapy, each its
own identification) whose other fragments never come, twice as many as the
pool has mbufs. The gateway must go on reading its port (the pool is never
dry: net_af_packet cannot take a frame without an mbuf), hold at most a
quarter of the pool (plus what the port's socket ring kept meanwhile), answer
the peer's pings, give every mbuf back once the reassemblies time out, and
count every fragment as malformed (refused by a full table, or timed out).
(IPv6: the kernel under net_af_packet reassembles IPv4 fragments itself.)"""

import os
import subprocess
import time

import pytest

import gwlib

NS = f"hgfp-t{os.getpid()}"
GW_IF, PEER_IF = "fwan-gw", "fwan-peer"
GW_MAC, PEER_MAC = "02:00:00:00:0f:01", "02:00:00:00:0f:02"
GW4, PEER4 = "192.0.2.1", "192.0.2.2"
GW6 = "2001:db8:1::1"
POOL = 4096                 # [gateway] mbufs: GW_CONF_MBUFS_MIN
FLOOD = 2 * POOL            # fragments sent at once: faster than they time out
PROBE = 500                 # fragments more, which a dry pool cannot take
WAIT_S = 40                 # bound on each wait (not a timing check)

# Runs in the peer namespace: for each count N read from stdin, N more first
# fragments (IPv6, ESP behind the Fragment header), then "sent". Each its own
# source and identification, scattered over their ranges (rte_ip_frag's table
# spreads its keys by hash).
SEND = r"""
import socket, struct, sys
from scapy.all import Ether, IPv6, IPv6ExtHdrFragment, Raw
iface, src_mac, dst_mac, dst6 = sys.argv[1:5]
esp = struct.pack("!II", 0x51000001, 1) + bytes(range(256)) * 5 + bytes(16)
t = bytes(Ether(src=src_mac, dst=dst_mac) / IPv6(src="2001:db8:2::", dst=dst6) /
          IPv6ExtHdrFragment(nh=50, offset=0, m=1, id=0) / Raw(esp))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
k = 0
print("ready", flush=True)
for line in sys.stdin:
    for _ in range(int(line)):
        k += 1
        f = bytearray(t)
        f[14 + 8 + 12:14 + 8 + 16] = struct.pack("!I", k * 0x85EBCA77 & 0xffffffff)  # source
        f[14 + 40 + 4:14 + 40 + 8] = struct.pack("!I", k * 0x9E3779B1 & 0xffffffff)  # identification
        s.send(bytes(f))
    print("sent", flush=True)
"""

sh = gwlib.sh


@pytest.fixture
def netns():
    with gwlib.namespaces(f"{NS}-gw", f"{NS}-peer") as (gw, peer):
        gwlib.veth(gw, GW_IF, peer, PEER_IF)
        sh("ip", "-n", peer, "link", "set", PEER_IF, "address", PEER_MAC)
        sh("ip", "-n", peer, "addr", "add", f"{PEER4}/24", "dev", PEER_IF)
        sh("ip", "-n", peer, "neigh", "replace", GW4, "lladdr", GW_MAC, "nud", "permanent",
           "dev", PEER_IF)
        yield {"gw": gw, "peer": peer}


def config(d):
    path = d / "gw.ini"
    path.write_text("\n".join([
        "[gateway]", "workers = 1", f"mbufs = {POOL}", "",
        "[port lan]", "device = net_null0,no-rx=1", "role = inner", "address = 10.1.0.1/24", "",
        "[port wan]", f"device = net_af_packet0,iface={GW_IF}", "role = outer",
        f"address = {GW4}/24, {GW6}/64", f"mac = {GW_MAC}",
        f"neighbors = {PEER4} {PEER_MAC}", ""]))
    os.chmod(path, 0o600)
    return path


def pings(ns):
    """True when one echo request to the gateway gets its reply."""
    return sh("ip", "netns", "exec", ns, "ping", "-c1", "-W1", "-q", GW4, check=False).returncode == 0


def until(cond):
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


def test_fragments_give_the_pool_back(netns, tmp_path):
    cfg, stats, logf = config(tmp_path), tmp_path / "stats.json", tmp_path / "gw.log"
    prefix = f"hgfp{os.getpid()}"
    gw = gwlib.start_gateway(netns["gw"], prefix, cfg, stats, logf)
    tel = lambda: gwlib.telemetry(prefix, "/hipgw/stats")  # noqa: E731
    res = {}
    sender = None

    def send(n):
        """n more fragments; the stats once the port's rx stops moving (the
        worker has read what it could)."""
        sender.stdin.write(f"{n}\n")
        sender.stdin.flush()
        assert sender.stdout.readline().strip() == "sent"
        st, end = tel(), time.monotonic() + WAIT_S
        while time.monotonic() < end:
            time.sleep(0.2)
            st, last = tel(), st
            if st["ports"]["wan"]["rx"] == last["ports"]["wan"]["rx"]:
                break
        return st

    try:
        gwlib.wait_gateway_running(gw, logf)
        res["echo before"] = until(lambda: pings(netns["peer"]))
        sender = subprocess.Popen(["ip", "netns", "exec", netns["peer"], "/usr/bin/python3", "-c",
                                   SEND, PEER_IF, PEER_MAC, GW_MAC, GW6], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        assert sender.stdout.readline().strip() == "ready"
        rx_before = tel()["ports"]["wan"]["rx"]
        st = send(FLOOD)
        st2 = send(PROBE)
        res.update(taken=max(st["mbufs"]["in_use"], st2["mbufs"]["in_use"]),
                   rx_flood=st["ports"]["wan"]["rx"], rx_probe=st2["ports"]["wan"]["rx"])
        res["frags"] = res["rx_probe"] - rx_before
        res["echo during"] = until(lambda: pings(netns["peer"]))
        res["given back"] = until(lambda: tel()["mbufs"]["in_use"] <= 8)   # idle: none
        res["malformed"] = tel()["drops"]["malformed"]
    finally:
        if sender is not None:
            sender.communicate(input="", timeout=10)
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)
    assert res["echo before"], f"the gateway never answered {PEER4}'s ping: {res}"
    # the port's socket ring (net_af_packet: 512 frames) may be read and held
    # in its turn: that much beyond the table's share
    assert res["rx_probe"] > res["rx_flood"], \
        f"the port stopped reading: the fragments took the pool: {res}"
    assert res["taken"] <= POOL // 4 + 512, \
        f"{res['taken']} of {POOL} mbufs held by fragments that never complete: {res}"
    assert res["echo during"], f"the gateway did not answer pings after the fragments: {res}"
    assert res["given back"], \
        f"the held fragments' mbufs did not come back within {WAIT_S} s: {res}"
    assert res["malformed"] >= res["frags"], \
        f"{res['frags']} fragments received, {res['malformed']} counted malformed: {res}"
