# SPDX-License-Identifier: BSD-3-Clause
"""An outer port's address changes while hipgw runs (RFC 8046 mobility:
lib/ctrl/gw_addr_set.c gw_ctrl_set_address, telemetry /hipgw/set_address,
hipgw set-address).

Two network namespaces made and removed here (hgsa-t<pid>-gw, -peer): hipgw's
outer port is net_af_packet on a veth pair whose other end, in the peer
namespace, has no address of its kernel's (nothing answers there but the test);
the inner port is net_null. A helper in the peer namespace sends ARP requests
and ND solicitations and records every frame from the gateway. The test
changes the address (telemetry, then the subcommand) and checks: the new
address is answered by ARP / ND, the old one no longer (after its hold: waited
for, never timed), a gratuitous ARP / unsolicited NA for the new address went
out, the gateway asked for its new next hop from the new address, telemetry and
the stats file list the new address, and each bad request fails with its
one-line reason and changes nothing. With 1 and 2 workers."""

import json
import os
import select
import subprocess
import time

import pytest

import gwlib

NS = f"hgsa-t{os.getpid()}"
GW_IF, PEER_IF = "sawan-gw", "sawan-peer"
GW_MAC, PEER_MAC = "02:00:00:00:5a:01", "02:00:00:00:5a:02"
OLD4, NEW4, NEW4B = "192.0.2.1", "198.51.100.7", "203.0.113.9"
PEER4, PEER_NEW4, GW_NEW4, GW_NEW4B = "192.0.2.2", "198.51.100.2", "198.51.100.1", "203.0.113.1"
OLD6, NEW6, GW_NEW6, PEER_NEW6 = "fd00:5::1", "2001:db8:5::7", "2001:db8:5::fe", "2001:db8:5::2"
WAIT_S = 30                 # bound on each wait for a condition (not a timing check)

# Runs in the peer namespace: python3 -c HELPER IFACE PEER_MAC GW_MAC. Reads
# commands on stdin, one a line, answers one line each:
#   arp TARGET SENDER  -> "yes" when the gateway answered an ARP request within 1 s, else "no"
#   ns TARGET SOURCE   -> "yes" when it answered a neighbour solicitation within 1 s, else "no"
#   events             -> JSON list of what the gateway sent unasked: ["garp", ip],
#                         ["arp-req", target, sender], ["na", target, flags, dst],
#                         ["ns", target, source]
HELPER = r"""
import json, select, socket, struct, sys, time
iface, my_mac, gw_mac = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", "")), \
    bytes.fromhex(sys.argv[3].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((iface, 0))
events = []

def ip4(b):
    return socket.inet_ntop(socket.AF_INET, b)

def ip6(b):
    return socket.inet_ntop(socket.AF_INET6, b)

def cksum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff

def classify(f):
    # ("arp-reply", sender) / ("na-solicited", target) / None; unasked ones into events
    if f[6:12] != gw_mac:
        return None
    if f[12:14] == b"\x08\x06" and len(f) >= 42:
        op, sip, tip = struct.unpack("!H", f[20:22])[0], ip4(f[28:32]), ip4(f[38:42])
        if op == 2:
            return ("arp-reply", sip)
        events.append(["garp", sip] if sip == tip else ["arp-req", tip, sip])
    elif f[12:14] == b"\x86\xdd" and len(f) >= 78 and f[20] == 58:
        t, flags, target = f[54], struct.unpack("!I", f[58:62])[0], ip6(f[62:78])
        if t == 136 and flags & 0x40000000 and f[0:6] == my_mac:
            return ("na-solicited", target)
        if t == 136:
            events.append(["na", target, flags, ip6(f[38:54])])
        elif t == 135:
            events.append(["ns", target, ip6(f[22:38])])
    return None

def wait_for(want):
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], 0.1)
        if r and classify(s.recv(65535)) == want:
            return True
    return False

def drain():
    while select.select([s], [], [], 0)[0]:
        classify(s.recv(65535))

def arp(target, sender):
    drain()
    s.send(b"\xff" * 6 + my_mac + b"\x08\x06" + struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) +
           my_mac + socket.inet_aton(sender) + b"\0" * 6 + socket.inet_aton(target))
    return wait_for(("arp-reply", target))

def ns(target, source):
    drain()
    t = socket.inet_pton(socket.AF_INET6, target)
    src = socket.inet_pton(socket.AF_INET6, source)
    dst = bytes.fromhex("ff0200000000000000000001ff") + t[13:]
    body = struct.pack("!BBHI", 135, 0, 0, 0) + t + b"\x01\x01" + my_mac
    pseudo = src + dst + struct.pack("!I3xB", len(body), 58)
    body = body[:2] + struct.pack("!H", cksum(pseudo + body)) + body[4:]
    ip = struct.pack("!IHBB", 0x60000000, len(body), 58, 255) + src + dst
    s.send(b"\x33\x33\xff" + t[13:] + my_mac + b"\x86\xdd" + ip + body)
    return wait_for(("na-solicited", target))

print("ready", flush=True)
for line in sys.stdin:
    w = line.split()
    if w[0] == "arp":
        print("yes" if arp(w[1], w[2]) else "no", flush=True)
    elif w[0] == "ns":
        print("yes" if ns(w[1], w[2]) else "no", flush=True)
    elif w[0] == "events":
        drain()
        print(json.dumps(events), flush=True)
"""

sh = gwlib.sh


class Peer:
    """The helper in the peer namespace."""

    def __init__(self, ns):
        self.p = subprocess.Popen(["ip", "netns", "exec", ns, "/usr/bin/python3", "-c", HELPER,
                                   PEER_IF, PEER_MAC, GW_MAC], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        assert self.ask_line(None) == "ready"

    def ask_line(self, cmd):
        if cmd is not None:
            self.p.stdin.write(cmd + "\n")
            self.p.stdin.flush()
        r, _, _ = select.select([self.p.stdout], [], [], WAIT_S)
        assert r, f"the peer helper did not answer {cmd}"
        return self.p.stdout.readline().strip()

    def answered(self, kind, target, sender):
        return self.ask_line(f"{kind} {target} {sender}") == "yes"

    def events(self):
        return json.loads(self.ask_line("events"))

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def until(what, cond):
    """Wait for cond() (bounded by WAIT_S: not a timing check); asserts it came."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError(what)


@pytest.fixture
def netns():
    names = {k: f"{NS}-{k}" for k in ("gw", "peer")}
    with gwlib.namespaces(*names.values()):
        gwlib.veth(names["gw"], GW_IF, names["peer"], PEER_IF)
        sh("ip", "-n", names["peer"], "link", "set", PEER_IF, "address", PEER_MAC)
        yield names


def config(d, workers):
    path = d / "gw.ini"
    qp = f",qpairs={workers}" if workers > 1 else ""
    path.write_text("\n".join([
        "[gateway]", f"workers = {workers}", "idle = adaptive", "",
        "[port lan]", "device = net_null0,no-rx=1", "role = inner", "address = 10.1.0.1/24", "",
        "[port wan]", f"device = net_af_packet0,iface={GW_IF}{qp}", "role = outer",
        f"address = {OLD4}/24, {OLD6}/64", f"mac = {GW_MAC}",
        "gateway = 192.0.2.254", "",
        "[sa to-peer]", "direction = out", "spi = 0x1001", "suite = aes128-gcm16",
        "key = 0x" + os.urandom(20).hex(), f"local = {OLD4}", f"remote = {PEER4}",
        "prefixes = 10.2.0.0/24", f"state = {d}/to-peer.seq", ""]))
    os.chmod(path, 0o600)
    return path


def start(ns, prefix, cfg, stats, logf, workers):
    """gwlib.start_gateway, with an lcore per worker beside the control one (on
    a 2-CPU machine two lcores share a CPU)."""
    eal = gwlib.eal_args(prefix)
    i = eal.index("-l")
    ncpu = os.cpu_count() or 1
    eal[i:i + 2] = ["--lcores", ",".join(f"{k}@{k % ncpu}" for k in range(workers + 1))]
    with open(logf, "w") as lf:
        return subprocess.Popen(["ip", "netns", "exec", ns, gwlib.hipgw_binary()] + eal +
                                ["--", "--config", str(cfg), "--stats-json", str(stats)],
                                stdout=lf, stderr=subprocess.STDOUT, env=gwlib.child_env(),
                                start_new_session=True)


def set_address(prefix, params):
    r = gwlib.telemetry(prefix, "/hipgw/set_address," + params)
    assert r is not None and set(r) == {"result", "message"}, r
    return r


def addresses(prefix):
    return gwlib.telemetry(prefix, "/hipgw/stats")["ports"]["wan"]["addresses"]


# (parameters, what the one-line error must say)
BAD = [
    (f"nosuch,{NEW4}/24", "unknown port nosuch"),
    ("lan,10.1.0.9/24", "port lan is an inner port"),
    (f"wan,{NEW4}/24,{GW_NEW6}", "is not of the family of"),
    (f"wan,{NEW4}/33", "is not ADDRESS/LENGTH"),
    ("wan,198.51.100.0/24", "network's or broadcast address"),
    ("wan,198.51.100.255/24", "network's or broadcast address"),
    ("wan,224.0.0.5/24", "multicast"),
    (f"wan,{NEW4}/24,203.0.113.1", "is off-link"),
    (f"wan,{NEW4}/24,{NEW4}", "is the address itself"),
    (f"wan,{PEER4}/24", f"{PEER4} is sa to-peer's remote"),
    ("wan,10.1.0.9/16", "overlaps port lan's"),
    ("wan,2001:db8:5::7/129", "is not ADDRESS/LENGTH"),
    ("wan", "usage:"),
    ('wan,1"2/24', "'1?2/24' is not ADDRESS/LENGTH"),   # echoed words made JSON-safe
    ('w\\an,1.2.3.4/24', "unknown port w?an"),
]


@pytest.mark.parametrize("workers", [1, 2])
def test_set_address(netns, tmp_path, workers):
    cfg, stats, logf = config(tmp_path, workers), tmp_path / "stats.json", tmp_path / "gw.log"
    prefix = f"hgsa{os.getpid()}w{workers}"
    gw = start(netns["gw"], prefix, cfg, stats, logf, workers)
    peer = None
    try:
        gwlib.wait_gateway_running(gw, logf)
        peer = Peer(netns["peer"])
        until("the old address is not answered by ARP at the start",
              lambda: peer.answered("arp", OLD4, PEER4))
        before = addresses(prefix)
        assert before == [f"{OLD4}/24", f"{OLD6}/64"], before

        for params, want in BAD:
            r = set_address(prefix, params)
            assert r["result"] == "error" and want in r["message"], (params, r)
            assert "\n" not in r["message"]
        assert addresses(prefix) == before, "a refused request changed the addresses"

        r = set_address(prefix, f"wan,{NEW4}/24,{GW_NEW4}")
        assert r == {"result": "ok",
                     "message": f"{NEW4}/24, was {OLD4}, gateway {GW_NEW4}"}, r
        assert NEW4 + "/24" in addresses(prefix)
        r = set_address(prefix, f"wan,{NEW4}/24,{GW_NEW4}")
        assert r == {"result": "ok", "message": "unchanged"}, r
        until(f"ARP for the new address {NEW4} is not answered",
              lambda: peer.answered("arp", NEW4, PEER_NEW4))
        until(f"ARP for the old address {OLD4} is still answered after its hold",
              lambda: not peer.answered("arp", OLD4, PEER4))
        until("the old address is still listed after its hold",
              lambda: addresses(prefix) == [f"{OLD6}/64", f"{NEW4}/24"])
        ev = peer.events()
        assert ["garp", NEW4] in ev, ev
        assert ["arp-req", GW_NEW4, NEW4] in ev, ev

        # IPv6: the unsolicited NA, the NS for the gateway, NS answered for the new address
        r = set_address(prefix, f"wan,{NEW6}/64,{GW_NEW6}")
        assert r["result"] == "ok", r
        until(f"NS for the new address {NEW6} is not answered",
              lambda: peer.answered("ns", NEW6, PEER_NEW6))
        until(f"NS for the old address {OLD6} is still answered after its hold",
              lambda: not peer.answered("ns", OLD6, "fd00:5::2"))
        ev = peer.events()
        na = [e for e in ev if e[0] == "na" and e[1] == NEW6]
        assert na, ev
        assert na[0][3] == "ff02::1" and na[0][2] & 0x20000000 and not na[0][2] & 0x40000000, na
        assert ["ns", GW_NEW6, NEW6] in ev, ev

        # the subcommand against the running gateway: done, then refused
        hipgw = gwlib.hipgw_binary()
        sock = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
        out = subprocess.run([hipgw, "set-address", "--socket", sock, "wan", f"{NEW4B}/24",
                              GW_NEW4B], capture_output=True, text=True, env=gwlib.child_env(),
                             timeout=60)
        assert out.returncode == 0, out
        assert out.stdout.strip() == f"wan: {NEW4B}/24, was {NEW4}, gateway {GW_NEW4B}", out
        out = subprocess.run([hipgw, "set-address", "--file-prefix", prefix, "lan",
                              "10.1.0.9/24"], capture_output=True, text=True,
                             env=gwlib.child_env(), timeout=60)
        assert out.returncode == 1 and "is an inner port" in out.stderr, out
        assert len(out.stderr.strip().splitlines()) == 1, out
        until(f"ARP for {NEW4B} is not answered",
              lambda: peer.answered("arp", NEW4B, "203.0.113.2"))
    finally:
        if peer is not None:
            peer.close()
        gwlib.stop_gateway(gw, prefix)
    log = gwlib.check_gateway_log(gw, logf)
    assert f"port wan: address {NEW4}/24, was {OLD4}" in log, log
    st = json.loads(stats.read_text())
    assert f"{NEW4B}/24" in st["ports"]["wan"]["addresses"], st["ports"]["wan"]
    assert f"{NEW6}/64" in st["ports"]["wan"]["addresses"], st["ports"]["wan"]
