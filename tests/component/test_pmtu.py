# SPDX-License-Identifier: BSD-3-Clause
"""Path MTU discovery for our ESP (RFC 4301 section 8.2; RFC 1191; RFC 8201):
lib/ctrl/gw_pmtu_icmp.c, lib/tables/gw_pmtu.c.

hipgw runs with both ports on net_af_packet, on veths into a namespace of
this test's (hgpm-t<pid>-gw / -peer), where a relay process hands frames
between the veths and this test: the test is the inner host on the lan veth
and the outer network (a router, the peer gateway) on the wan veth. So it can
answer what hipgw sent: take an ESP packet the gateway sent, quote it in an
ICMP fragmentation needed / ICMPv6 Packet Too Big, and then see what the next
inner packets become. An ICMP echo to the gateway's WAN address after the
error is the barrier: the control lcore handles the worker's punted frames in
order, so its echo reply means the error was handled."""

import json
import os
import queue
import shutil
import signal
import struct
import subprocess
import threading
import time

import pytest
from scapy.layers.inet import IP, ICMP, TCP
from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest, ICMPv6EchoReply
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import gwlib
from gwlib import (GW4, GW4_MAC, HOST4, HOST6, LAN_MAC, PEER6_MAC, WAN4, WAN6, WAN_MAC,
                   HOST_MAC)
from test_mtu_ttl import _syn, _mss_of, check_icmp_error, csum, reassemble4

NS = "hgpm-t%d" % os.getpid()
LAN_GW, LAN_PEER, WAN_GW, WAN_PEER = "pl-gw", "pl-peer", "pw-gw", "pw-peer"
ROUTER6 = "2001:db8:1::fe"        # a router on the IPv6 path that sends Packet Too Big
SUITE = "aes128-cbc-sha256"
WAIT = 15                          # seconds for an expected frame at most
V4_PATH_MTU, V6_PATH_MTU = 1300, 1400

# Runs in the peer namespace: prints each frame received on the named
# interfaces as "IFACE HEX", sends each "IFACE HEX" line read from stdin.
RELAY = r"""
import os, select, socket, sys
socks = {}
for name in sys.argv[1:]:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((name, 0))
    socks[s] = name
print("ready", flush=True)
buf = b""
while True:
    r, _, _ = select.select(list(socks) + [0], [], [])
    for s in r:
        if s == 0:
            chunk = os.read(0, 65536)
            if not chunk:
                sys.exit(0)
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                name, hx = line.decode().split()
                for t, n in socks.items():
                    if n == name:
                        t.send(bytes.fromhex(hx))
        else:
            data, addr = s.recvfrom(65535)
            if addr[2] != socket.PACKET_OUTGOING:
                print(socks[s], data.hex(), flush=True)
"""


def sh(*cmd, check=True):
    return subprocess.run(list(cmd), check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


@pytest.fixture(scope="module")
def netns():
    gw, peer = NS + "-gw", NS + "-peer"
    for ns in (gw, peer):
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
    try:
        for a, b, mac in ((LAN_GW, LAN_PEER, LAN_MAC), (WAN_GW, WAN_PEER, WAN_MAC)):
            tmp_a, tmp_b = "hgpm%d%s" % (os.getpid() % 100000, a[1]), \
                "hgpm%d%s" % (os.getpid() % 100000, b[1] + "p")
            sh("ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b)
            sh("ip", "link", "set", tmp_a, "netns", gw, "name", a)
            sh("ip", "link", "set", tmp_b, "netns", peer, "name", b)
            sh("ip", "-n", gw, "link", "set", a, "address", mac)
            for ns, dev in ((gw, a), (peer, b)):
                # the kernels stay quiet on these links: no IPv6 (RS, DAD, MLD), no address
                sh("ip", "netns", "exec", ns, "sysctl", "-qw",
                   "net.ipv6.conf.%s.disable_ipv6=1" % dev)
                sh("ip", "-n", ns, "link", "set", dev, "mtu", "9000")
                sh("ip", "-n", ns, "link", "set", dev, "up")
                sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "rx", "off", "tx", "off",
                   "tso", "off", "gso", "off", "gro", "off", check=False)
        yield gw, peer
    finally:
        for ns in (gw, peer):
            sh("ip", "netns", "del", ns, check=False)


class Link:
    """The relay in the peer namespace: send frames, wait for frames."""

    def __init__(self, peer_ns):
        self.p = subprocess.Popen(["ip", "netns", "exec", peer_ns, "/usr/bin/python3", "-c",
                                   RELAY, LAN_PEER, WAN_PEER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        assert self.p.stdout.readline().strip() == "ready"
        self.q = queue.Queue()
        self.seen = []                 # frames received and not (yet) expected
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()
        self.echo_id = 0x4000

    def _read(self):
        for line in self.p.stdout:
            name, hx = line.split()
            self.q.put((name, Ether(bytes.fromhex(hx))))

    def send(self, iface, frame):
        self.p.stdin.write("%s %s\n" % (iface, bytes(frame).hex()))
        self.p.stdin.flush()

    def expect(self, iface, pred, what):
        """The first frame on iface (None: either) for which pred holds (waiting
        at most WAIT s); the others go to self.seen."""
        end = time.monotonic() + WAIT
        while True:
            left = end - time.monotonic()
            try:
                name, f = self.q.get(timeout=max(left, 0.01))
            except queue.Empty:
                raise AssertionError("no %s on %s within %d s; other frames: %s" % (
                    what, iface, WAIT, [(n, g.summary()) for n, g in self.seen]))
            if iface in (None, name) and pred(f):
                return f
            self.seen.append((name, f))

    def barrier(self, fam):
        """Echo to the gateway's WAN address; back once the control lcore
        handled everything the worker punted before it."""
        self.echo_id += 1
        ident = self.echo_id
        if fam == 4:
            req = Ether(src=GW4_MAC, dst=WAN_MAC) / IP(src=GW4, dst=WAN4) / ICMP(id=ident)
            ok = (lambda f: IP in f and ICMP in f and f[ICMP].type == 0 and
                  f[ICMP].id == ident)
        else:
            req = Ether(src=PEER6_MAC, dst=WAN_MAC) / IPv6(src=gwlib.PEER6, dst=WAN6) / \
                ICMPv6EchoRequest(id=ident)
            ok = lambda f: ICMPv6EchoReply in f and f[ICMPv6EchoReply].id == ident
        self.send(WAN_PEER, req)
        self.expect(WAN_PEER, ok, "echo reply %d (barrier)" % ident)

    def close(self):
        try:
            self.p.communicate(input="", timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.communicate()


class Gateway:
    """hipgw on the namespace's veths, stopped with SIGINT; then .stats and .log."""

    def __init__(self, gw_ns, d, sas, extra_args=(), **conf):
        self.d = str(d)
        cfg = gwlib.write_config(self.d, sas, lan_device="net_af_packet0,iface=" + LAN_GW,
                                 wan_device="net_af_packet1,iface=" + WAN_GW, **conf)
        self.stats_path = os.path.join(self.d, "stats.json")
        self.logf = os.path.join(self.d, "gw.log")
        self.prefix = "hgpm%d_%d" % (os.getpid(), len(os.listdir(self.d)))
        with open(self.logf, "w") as lf:
            self.p = subprocess.Popen(["ip", "netns", "exec", gw_ns, gwlib.hipgw_binary()] +
                                      gwlib.eal_args(self.prefix) +
                                      ["--", "--config", cfg, "--stats-json", self.stats_path] +
                                      list(extra_args),
                                      stdout=lf, stderr=subprocess.STDOUT, env=gwlib.child_env())
        for _ in range(300):
            if "hipgw running" in self.log() or self.p.poll() is not None:
                break
            time.sleep(0.1)
        assert self.p.poll() is None and "hipgw running" in self.log(), self.log()
        self.stats = None

    def log(self):
        with open(self.logf) as f:
            return f.read()

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        shutil.rmtree("/var/run/dpdk/" + self.prefix, ignore_errors=True)
        log = self.log()
        assert self.p.returncode == 0, log
        assert "AddressSanitizer" not in log and "runtime error:" not in log, log
        with open(self.stats_path) as f:
            self.stats = json.load(f)
        return self.stats


@pytest.fixture
def link(netns):
    lk = Link(netns[1])
    yield lk
    lk.close()


# --------------------------------------------------------------------------
# Frames

def is_esp(sa):
    def pred(f):
        ip = gwlib.ip_layer(f)
        return ip is not None and ip.src == sa.local and ip.dst == sa.remote and \
            (ip.proto if IP in f else ip.nh) == 50
    return pred


def esp_ip(f):
    """The outer IP packet of an ESP frame, bytes, trimmed to its length."""
    ip = bytes(gwlib.ip_layer(f))
    if ip[0] >> 4 == 4:
        return ip[:struct.unpack("!H", ip[2:4])[0]]
    return ip[:40 + struct.unpack("!H", ip[4:6])[0]]


def too_big(esp, mtu, quote=None, bad_cksum=False):
    """ICMP fragmentation needed (IPv4) / ICMPv6 Packet Too Big (IPv6) from a
    router on the path to our WAN address, quoting `quote` bytes of the outer
    packet esp (default: as many as fit in 576 / 1280 bytes)."""
    if esp[0] >> 4 == 4:
        q = esp[:quote if quote is not None else 548]
        body = struct.pack("!BBHHH", 3, 4, 0, 0, mtu) + q
        ck = csum(body) ^ (0xffff if bad_cksum else 0)
        body = body[:2] + struct.pack("!H", ck) + body[4:]
        return Ether(src=GW4_MAC, dst=WAN_MAC) / IP(src=GW4, dst=WAN4, proto=1) / Raw(body)
    q = esp[:quote if quote is not None else 1232]
    body = struct.pack("!BBHI", 2, 0, 0, mtu) + q
    ip6 = IPv6(src=ROUTER6, dst=WAN6, nh=58, plen=len(body))
    pseudo = bytes(ip6)[8:40] + struct.pack("!IxxxB", len(body), 58)
    ck = csum(pseudo + body) ^ (0xffff if bad_cksum else 0)
    body = body[:2] + struct.pack("!H", ck) + body[4:]
    return Ether(src=PEER6_MAC, dst=WAN_MAC) / ip6 / Raw(body)


def with_bytes(b, off, new):
    return b[:off] + new + b[off + len(new):]


def send_lan(link, inner):
    link.send(LAN_PEER, gwlib.lan_frame(inner))


def icmp_error_to_host(fam):
    def pred(f):
        b = bytes(f)
        if f.dst.lower() != HOST_MAC:
            return False
        if fam == 4:
            return IP in f and f[IP].proto == 1 and ICMP in f and f[ICMP].type == 3
        return IPv6 in f and f[IPv6].nh == 58 and b[14 + 40] == 2
    return pred


def assert_too_big(link, rng, fam, dst, size, want):
    """A DF inner packet of `size` bytes to dst gets ICMP fragmentation needed
    (IPv6: Packet Too Big) announcing `want` bytes."""
    p = gwlib.inner_packet(rng, fam, HOST4 if fam == 4 else HOST6, dst, size, proto="udp",
                           df=True)
    send_lan(link, p)
    err = link.expect(LAN_PEER, icmp_error_to_host(fam), "ICMP error for %d bytes" % size)
    v = check_icmp_error(err, p, fam, 3 if fam == 4 else 2, 4 if fam == 4 else 0)
    got = v & 0xffff if fam == 4 else v
    assert got == want, "IPv%d: ICMP error announces %d, expected %d" % (fam, got, want)


def first_esp(link, out, rng):
    """Send a 1400-byte DF inner packet, which fits the port MTU; return the
    ESP frame the gateway made of it (decrypted and checked)."""
    p = gwlib.inner_packet(rng, 4, HOST4, "10.2.0.10", 1400, proto="udp", df=True)
    send_lan(link, p)
    f = link.expect(WAN_PEER, is_esp(out), "ESP of the first 1400-byte packet")
    dec = gwlib.decrypt_outbound(out, [f])
    assert not gwlib.match_forwarded([p], [dec[0].inner])
    return f


def pmtu_counts(stats, **want):
    w = {k: 0 for k in ("lowered", "not_lower", "refused_malformed", "refused_mtu",
                        "refused_no_sa", "refused_seq", "raised")}
    w.update(want)
    assert stats["pmtu"] == w, "pmtu counters %s, expected %s" % (stats["pmtu"], w)


# --------------------------------------------------------------------------

@pytest.mark.parametrize("outer", [4, 6])
def test_icmp_lowers_path_mtu(netns, link, tmp_path, rng, outer):
    """An ICMP error quoting one of our ESP packets lowers the path MTU: a DF
    inner packet that fitted before gets ICMP fragmentation needed (IPv6:
    Packet Too Big) with the new size, one without DF is fragmented before
    encryption into ESP packets that each fit, TCP SYNs get the smaller MSS; an
    ICMP that would raise the MTU again is ignored."""
    out, inn = gwlib.make_sa_pair(rng, SUITE, outer)
    suite = gwlib.SUITES[SUITE]
    path = V4_PATH_MTU if outer == 4 else V6_PATH_MTU
    mx_port, mx = gwlib.max_inner(suite, outer), gwlib.max_inner(suite, outer, path)
    assert mx < 1400 <= mx_port
    gw = Gateway(netns[0], tmp_path, [out, inn])
    try:
        e1 = esp_ip(first_esp(link, out, rng))
        link.send(WAN_PEER, too_big(e1, path))
        link.barrier(outer)

        # DF (and IPv6) inner packets that fitted before: an ICMP error with the new size
        assert_too_big(link, rng, 4, "10.2.0.11", 1400, mx)
        assert_too_big(link, rng, 6, "fd00:2::11", 1400, max(mx, 1280))

        # without DF: inner fragments, each ESP packet within the path MTU
        nodf = gwlib.inner_packet(rng, 4, HOST4, "10.2.0.12", 1400, proto="udp", df=False)
        send_lan(link, nodf)
        frags = [link.expect(WAN_PEER, is_esp(out), "ESP of fragment %d" % i) for i in (1, 2)]
        for f in frags:
            assert len(esp_ip(f)) <= path, "ESP of %d bytes on a path of MTU %d" % (
                len(esp_ip(f)), path)
        inner = [d.inner for d in gwlib.decrypt_outbound(out, frags)]
        assert all(struct.unpack("!H", b[6:8])[0] & 0x3fff for b in inner), \
            "not fragmented before encryption"
        problems = gwlib.match_forwarded([nodf], [reassemble4(inner)])
        assert not problems, problems

        # the largest packet that still fits goes through; SYNs are clamped to it
        edge = gwlib.inner_packet(rng, 4, HOST4, "10.2.0.13", mx, proto="udp", df=True)
        send_lan(link, edge)
        f = link.expect(WAN_PEER, is_esp(out), "ESP of the %d-byte packet" % mx)
        assert len(esp_ip(f)) <= path
        syn = _syn(rng, 4, 1460)
        send_lan(link, syn)
        f = link.expect(WAN_PEER, is_esp(out), "ESP of a SYN")
        got = _mss_of(gwlib.decrypt_outbound(out, [f])[0].inner)
        assert mx - 40 - 16 < got <= mx - 40, "SYN MSS %d, path allows %d" % (got, mx - 40)

        # a genuine ICMP that would raise the MTU (or repeat it): ignored
        link.send(WAN_PEER, too_big(e1, path + 50))
        link.send(WAN_PEER, too_big(e1, path))
        link.barrier(outer)
        assert_too_big(link, rng, 4, "10.2.0.14", mx + 1, mx)
    finally:
        st = gw.stop()
    pmtu_counts(st, lowered=1, not_lower=2)
    assert st["sa"][out.name]["max_inner"] == mx, st["sa"]
    gwlib.check_drops(gwlib.Result(0, "", "", False, st, [], [], str(tmp_path), 0), mtu=3)
    assert "lowered to MTU %d, 1 out SA(s)" % path in gw.log(), gw.log()


@pytest.mark.parametrize("outer", [4, 6])
def test_icmp_refused(netns, link, tmp_path, rng, outer):
    """ICMP errors that do not quote a packet we sent lately, or are not
    well-formed, change nothing and are counted by why: an unknown SPI, other
    addresses, a sequence number never sent, a quote cut short, a bad
    checksum, an MTU of 0 or not below the quoted packet's length, a quoted
    packet without DF (IPv4) or an MTU below 1280 (IPv6, RFC 8201 section 4);
    a 1400-byte DF packet still goes through afterwards."""
    out, inn = gwlib.make_sa_pair(rng, SUITE, outer)
    path = V4_PATH_MTU if outer == 4 else V6_PATH_MTU
    src, dst = (12, 16) if outer == 4 else (8, 24)
    alen = 4 if outer == 4 else 16
    hl = 20 if outer == 4 else 40
    other = bytes(range(0x11, 0x11 + alen))
    gw = Gateway(netns[0], tmp_path, [out, inn])
    try:
        e1 = esp_ip(first_esp(link, out, rng))
        bad = {
            "refused_no_sa": [with_bytes(e1, hl, struct.pack("!I", out.spi + 1)),
                              with_bytes(e1, dst, other), with_bytes(e1, src, other)],
            "refused_seq": [with_bytes(e1, hl + 4, struct.pack("!I", 1000)),
                            with_bytes(e1, hl + 4, struct.pack("!I", 0))],
        }
        frames = [too_big(q, path) for k in bad for q in bad[k]]
        frames += [too_big(e1, path, quote=hl + 4),            # ESP header cut short
                   too_big(e1, path, quote=hl - 1),
                   too_big(e1, path, bad_cksum=True),
                   too_big(e1, 0), too_big(e1, len(e1))]
        if outer == 4:
            frames.append(too_big(with_bytes(e1, 6, b"\0\0"), path))   # quoted without DF
            want = dict(refused_no_sa=3, refused_seq=2, refused_malformed=4, refused_mtu=2)
        else:
            frames.append(too_big(e1, 1279))
            want = dict(refused_no_sa=3, refused_seq=2, refused_malformed=3, refused_mtu=3)
        for f in frames:
            link.send(WAN_PEER, f)
        link.barrier(outer)
        p = gwlib.inner_packet(rng, 4, HOST4, "10.2.0.20", 1400, proto="udp", df=True)
        send_lan(link, p)
        f = link.expect(WAN_PEER, is_esp(out), "ESP of 1400 bytes after the refused errors")
        assert not gwlib.match_forwarded([p], [gwlib.decrypt_outbound(out, [f])[0].inner])
        assert not [g for n, g in link.seen if n == LAN_PEER], link.seen
    finally:
        st = gw.stop()
    pmtu_counts(st, **want)
    assert st["sa"][out.name]["max_inner"] == gwlib.max_inner(gwlib.SUITES[SUITE], outer)


def test_ipv4_mtu_below_576_is_raised_to_576(netns, link, tmp_path, rng):
    """IPv4: a next-hop MTU below 576 lowers the path to 576, not further
    (RFC 1191 section 3 allows any floor of 68 or more; 576 is what every
    IPv4 host takes, RFC 791)."""
    out, inn = gwlib.make_sa_pair(rng, SUITE, 4)
    mx = gwlib.max_inner(gwlib.SUITES[SUITE], 4, 576)
    gw = Gateway(netns[0], tmp_path, [out, inn])
    try:
        e1 = esp_ip(first_esp(link, out, rng))
        link.send(WAN_PEER, too_big(e1, 300))
        link.barrier(4)
        assert_too_big(link, rng, 4, "10.2.0.30", mx + 1, mx)
    finally:
        st = gw.stop()
    pmtu_counts(st, lowered=1)
    assert "lowered to MTU 576" in gw.log(), gw.log()


def test_path_mtu_raised_after_age(netns, link, tmp_path, rng):
    """After the age (here --test-pmtu-age 1: the config's pmtu-age is 300 s
    at least) the path is back at the port's MTU (RFC 1191 6.3, RFC 8201 4):
    a 1400-byte DF packet refused after the ICMP goes through again."""
    out, inn = gwlib.make_sa_pair(rng, SUITE, 4)
    gw = Gateway(netns[0], tmp_path, [out, inn], extra_args=["--test-pmtu-age", "1"])
    esp_after = None
    try:
        e1 = esp_ip(first_esp(link, out, rng))
        link.send(WAN_PEER, too_big(e1, V4_PATH_MTU))
        link.barrier(4)
        for i in range(60):
            p = gwlib.inner_packet(rng, 4, HOST4, "10.2.0.%d" % (40 + i), 1400, proto="udp",
                                   df=True)
            send_lan(link, p)
            f = link.expect(None, lambda g: is_esp(out)(g) or icmp_error_to_host(4)(g),
                            "ESP or ICMP error for 1400 bytes")
            if is_esp(out)(f):
                esp_after = i
                break
            assert i > 0 or check_icmp_error(f, p, 4, 3, 4) & 0xffff < 1400
            time.sleep(0.5)
    finally:
        st = gw.stop()
    assert esp_after is not None and esp_after > 0, \
        "the path MTU never came back (first packet through: %s)" % esp_after
    pmtu_counts(st, lowered=1, raised=1)
    assert st["sa"][out.name]["max_inner"] == gwlib.max_inner(gwlib.SUITES[SUITE], 4)
    log = gw.log()
    assert "--test-pmtu-age 1" in log and "for tests only" in log, log
    assert "back to the port's MTU 1500, 1 out SA(s)" in log, log


@pytest.mark.parametrize("age,ok", [("60", False), ("299", False), ("300", True),
                                    ("86400", True), ("86401", False)])
def test_pmtu_age_config(tmp_path, rng, age, ok):
    """[gateway] pmtu-age: 300..86400 s; below 5 minutes refused, naming RFC 8201."""
    out, inn = gwlib.make_sa_pair(rng, SUITE, 4)
    cfg = gwlib.write_config(str(tmp_path), [out, inn], gateway_extra="pmtu-age = " + age)
    rc, so, se, _ = gwlib.run_process([gwlib.hipgw_binary(), "--check-config", cfg],
                                      str(tmp_path), timeout=30)
    assert (rc == 0) == ok, (rc, so, se)
    if not ok:
        assert rc == 2 and ":5: pmtu-age:" in se, se
    if age in ("60", "299"):
        assert "RFC 8201" in se, se
