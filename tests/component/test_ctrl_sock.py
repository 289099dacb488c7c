# SPDX-License-Identifier: BSD-3-Clause
"""The control lcore's own packet socket on a net_af_packet port
(lib/ctrl/gw_ctrlsock.c, lib/runtime/gw_runtime.c ctrl_sock_setup, lib/ctrl/gw_ctrl.c
sock_tx, lib/dp/gw_worker.c l2_accept).

hipgw's outer port is net_af_packet on one end of a veth pair between two
network namespaces made and removed here (hgcs-t<pid>-gw / -peer); the peer
namespace's kernel pings the gateway's WAN address, so the gateway answers its
ARP request and the echo requests, both on the control lcore. Each answer must
arrive on the far side exactly once, the log must say that the control lcore
sends through its own packet socket, and the answers must be in the port's tx
(as ctrl_tx) but not in worker 0's tx.

With the PMD's default qdisc_bypass=1 the control socket bypasses the qdisc
too, and the kernel hands the PMD's RX sockets no copy of its frames
(ctrl_looped 0). With qdisc_bypass=0 it does, one copy per frame: the worker
must free each one as ctrl_looped, before any other stage (no drop counted,
no ARP or ICMP handling, not in rx)."""

import json
import os
import subprocess
import time

import pytest

import gwlib

NS = f"hgcs-t{os.getpid()}"
GW_IF, PEER_IF = "cwan-gw", "cwan-peer"
GW_MAC, PEER_MAC = "02:00:00:00:0c:01", "02:00:00:00:0c:02"
GW4, PEER4 = "192.0.2.1", "192.0.2.2"
PINGS = 3

CAPTURE = gwlib.PEER_CAPTURE


sh = gwlib.sh


@pytest.fixture
def netns():
    gw, peer = f"{NS}-gw", f"{NS}-peer"
    tmp_a, tmp_b = f"hgcs{os.getpid()}a", f"hgcs{os.getpid()}b"
    for ns in (gw, peer):
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
    try:
        sh("ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b)
        sh("ip", "link", "set", tmp_a, "netns", gw, "name", GW_IF)
        sh("ip", "link", "set", tmp_b, "netns", peer, "name", PEER_IF)
        sh("ip", "-n", peer, "link", "set", PEER_IF, "address", PEER_MAC)
        for ns, dev in ((gw, GW_IF), (peer, PEER_IF)):
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1")
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "rx", "off", "tx", "off",
               "tso", "off", "gso", "off", "gro", "off", check=False)
        sh("ip", "-n", peer, "addr", "add", f"{PEER4}/24", "dev", PEER_IF)
        yield gw, peer
    finally:
        for ns in (gw, peer):
            sh("ip", "netns", "del", ns, check=False)


def config(path, devargs):
    path.write_text("\n".join([
        "[gateway]", "workers = 1", "",
        "[port lan]", "device = net_null0,no-rx=1", "role = inner", "address = 10.2.0.1/24", "",
        "[port wan]", f"device = net_af_packet0,iface={GW_IF}{devargs}", "role = outer",
        f"address = {GW4}/24", f"mac = {GW_MAC}", ""]))


def frames_by_kind(lines):
    """Captured frames from the gateway: {"arp": n replies, "echo": [seq, ...]};
    and the frames the peer sent: {"arp": n requests, "echo": [seq, ...]}."""
    got = {"gw": {"arp": 0, "echo": [], "other": []},
           "peer": {"arp": 0, "echo": [], "other": []}}
    for line in lines:
        if not line or line == "ready":
            continue
        pkttype, hexdata = line.split()
        b = bytes.fromhex(hexdata)
        src = b[6:12].hex(":")
        who = "gw" if src == GW_MAC else "peer" if src == PEER_MAC else None
        assert who is not None, f"frame from {src} on the link: {hexdata}"
        # the peer's own frames show as outgoing (4) only
        assert (who == "peer") == (int(pkttype) == 4), (who, pkttype, hexdata)
        et = b[12:14]
        if et == b"\x08\x06":
            op = int.from_bytes(b[20:22], "big")
            assert op == (2 if who == "gw" else 1), hexdata
            got[who]["arp"] += 1
        elif et == b"\x08\x00" and b[23] == 1:           # IPv4 ICMP
            icmp = b[14 + (b[14] & 15) * 4:]
            assert icmp[0] == (0 if who == "gw" else 8), hexdata
            got[who]["echo"].append(int.from_bytes(icmp[6:8], "big"))
        else:
            got[who]["other"].append(hexdata)
    return got


@pytest.mark.parametrize("devargs", ["", ",qdisc_bypass=0"], ids=["bypass", "no-bypass"])
def test_control_lcore_sends_on_own_socket(netns, tmp_path, devargs):
    gw_ns, peer_ns = netns
    cfg, stats, logf = tmp_path / "gw.ini", tmp_path / "stats.json", tmp_path / "gw.log"
    config(cfg, devargs)
    prefix = f"hgcs{os.getpid()}{len(devargs)}"
    gw = gwlib.start_gateway(gw_ns, prefix, cfg, stats, logf)
    cap = None
    try:
        gwlib.wait_gateway_running(gw, logf)
        cap = subprocess.Popen(["ip", "netns", "exec", peer_ns, "/usr/bin/python3", "-c",
                                CAPTURE, PEER_IF], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
        assert cap.stdout.readline().strip() == "ready"
        ping = sh("ip", "netns", "exec", peer_ns, "ping", "-n", "-c", str(PINGS), "-i", "0.2",
                  "-W", "2", GW4, check=False)
        time.sleep(0.3)     # late duplicates would arrive by now
    finally:
        lines = cap.communicate(input="", timeout=10)[0].splitlines() if cap else []
        gwlib.stop_gateway(gw, prefix)
    log = gwlib.check_gateway_log(gw, logf)
    assert "port wan: control lcore sends through its own packet socket" in log, log
    assert ping.returncode == 0 and f"{PINGS} received" in ping.stdout, ping.stdout + ping.stderr
    assert "DUP!" not in ping.stdout, ping.stdout

    # on the far side: every answer exactly once
    got = frames_by_kind(lines)
    assert got["peer"]["echo"] == list(range(1, PINGS + 1)), got
    assert got["gw"]["echo"] == got["peer"]["echo"], got
    assert got["peer"]["arp"] >= 1 and got["gw"]["arp"] == got["peer"]["arp"], got
    assert not got["gw"]["other"] and not got["peer"]["other"], got
    answers = got["gw"]["arp"] + len(got["gw"]["echo"])
    asked = got["peer"]["arp"] + len(got["peer"]["echo"])

    st = json.loads(stats.read_text())
    wan, w0 = st["ports"]["wan"], st["workers"][0]
    # the port's tx counts the control socket's frames; worker 0 sent none of them
    assert wan["ctrl_tx"] == answers and wan["tx"] == answers and wan["oerrors"] == 0, wan
    assert w0["tx"] == 0, w0
    # rx: what the peer sent, never the loop-back copies
    assert wan["rx"] == asked and w0["rx"] == asked, (wan, w0)
    looped = 0 if devargs == "" else answers
    assert wan["ctrl_looped"] == looped and w0["ctrl_looped"] == looped, (wan, w0)
    assert w0["punted"] == asked, w0          # the ARP request and echoes, no copy
    assert all(v == 0 for v in st["drops"].values()), st["drops"]
