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
order, so its echo reply means the error was handled. The HIP-keyed case runs
two gateways whose WAN veths the relay bridges: the lowered path MTU must
outlive the out SA an UPDATE rekey replaces."""

import itertools
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
from scapy.layers.inet import IP, ICMP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment, ICMPv6EchoRequest, ICMPv6EchoReply
from scapy.layers.l2 import Ether

import gwlib
from gwlib import (GW4, GW4_MAC, HOST4, HOST6, LAN_MAC, PEER6_MAC, WAN4, WAN6, WAN_MAC,
                   HOST_MAC)
from test_mtu_ttl import _syn, _mss_of, check_icmp_error, reassemble4

too_big = gwlib.icmp_too_big

NS = "hgpm-t%d" % os.getpid()
LAN_GW, LAN_PEER, WAN_GW, WAN_PEER = "pl-gw", "pl-peer", "pw-gw", "pw-peer"
SUITE = "aes128-cbc-sha256"
WAIT = 15                          # seconds for an expected frame at most
V4_PATH_MTU, V6_PATH_MTU = 1300, 1400

# Runs in the peer namespace: prints each frame received on the named
# interfaces as "IFACE HEX", sends each "IFACE HEX" line read from stdin. An
# argument A=B also bridges interfaces A and B: what arrives on one is sent on
# the other (and printed).
RELAY = r"""
import os, select, socket, sys
socks, bridge = {}, {}
for arg in sys.argv[1:]:
    for name in arg.split("="):
        if name in socks.values():
            continue
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
        s.bind((name, 0))
        socks[s] = name
    if "=" in arg:
        a, b = arg.split("=")
        bridge[a], bridge[b] = b, a
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
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            print(socks[s], data.hex(), flush=True)
            if socks[s] in bridge:
                for t, n in socks.items():
                    if n == bridge[socks[s]]:
                        t.send(data)
"""


def sh(*cmd, check=True):
    return subprocess.run(list(cmd), check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


_veths = itertools.count()


def veth(gw_ns, gw_if, mac, peer_ns, peer_if):
    """A veth pair: gw_if (MAC mac) in gw_ns, peer_if in peer_ns, both up."""
    tmp = "hgpm%d_%d" % (os.getpid() % 100000, next(_veths))
    tmp_a, tmp_b = tmp + "a", tmp + "b"
    sh("ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b)
    sh("ip", "link", "set", tmp_a, "netns", gw_ns, "name", gw_if)
    sh("ip", "link", "set", tmp_b, "netns", peer_ns, "name", peer_if)
    sh("ip", "-n", gw_ns, "link", "set", "dev", gw_if, "address", mac)
    for ns, dev in ((gw_ns, gw_if), (peer_ns, peer_if)):
        # the kernels stay quiet on these links: no IPv6 (RS, DAD, MLD), no address
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % dev)
        sh("ip", "-n", ns, "link", "set", "dev", dev, "mtu", "9000")
        sh("ip", "-n", ns, "link", "set", "dev", dev, "up")
        sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "rx", "off", "tx", "off",
           "tso", "off", "gso", "off", "gro", "off", check=False)


def namespaces(*names):
    """The namespaces NS-name, made new, removed afterwards."""
    return gwlib.namespaces(*[NS + "-" + n for n in names])


@pytest.fixture(scope="module")
def netns():
    with namespaces("gw", "peer") as (gw, peer):
        veth(gw, LAN_GW, LAN_MAC, peer, LAN_PEER)
        veth(gw, WAN_GW, WAN_MAC, peer, WAN_PEER)
        yield gw, peer


class Link:
    """The relay in the peer namespace: send frames, wait for frames."""

    def __init__(self, peer_ns, lan=LAN_PEER, wan=WAN_PEER, more=()):
        self.lan, self.wan = lan, wan      # the gateway under test's inner / outer link
        self.p = subprocess.Popen(["ip", "netns", "exec", peer_ns, "/usr/bin/python3", "-c",
                                   RELAY, lan, wan] + list(more), stdin=subprocess.PIPE,
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
        self.send(self.wan, req)
        self.expect(self.wan, ok, "echo reply %d (barrier)" % ident)

    def close(self):
        try:
            self.p.communicate(input="", timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.communicate()


_runs = itertools.count()


def manual_config(d, sas, **conf):
    """gwlib's config of manual SAs, on the namespace's veths."""
    return gwlib.write_config(str(d), sas, lan_device="net_af_packet0,iface=" + LAN_GW,
                              wan_device="net_af_packet1,iface=" + WAN_GW, **conf)


class Gateway:
    """hipgw on the namespace's veths, stopped with SIGINT; then .stats and .log."""

    def __init__(self, gw_ns, d, cfg, extra_args=(), name="gw"):
        self.d = str(d)
        self.stats_path = os.path.join(self.d, name + "-stats.json")
        self.logf = os.path.join(self.d, name + ".log")
        self.prefix = "hgpm%d_%d" % (os.getpid(), next(_runs))
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


def with_bytes(b, off, new):
    return b[:off] + new + b[off + len(new):]


def send_lan(link, inner):
    link.send(link.lan, gwlib.lan_frame(inner))


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
    err = link.expect(link.lan, icmp_error_to_host(fam), "ICMP error for %d bytes" % size)
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
    gw = Gateway(netns[0], tmp_path, manual_config(tmp_path, [out, inn]))
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
    gw = Gateway(netns[0], tmp_path, manual_config(tmp_path, [out, inn]))
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
    gw = Gateway(netns[0], tmp_path, manual_config(tmp_path, [out, inn]))
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
    gw = Gateway(netns[0], tmp_path, manual_config(tmp_path, [out, inn]),
                 extra_args=["--test-pmtu-age", "1"])
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


# --------------------------------------------------------------------------
# HIP-keyed: two gateways, gwA (under test) and gwB, whose WAN veths the relay
# bridges; the test is both sites' hosts and injects on gwA's WAN.

B_LAN_MAC, B_WAN_MAC = "02:70:63:61:70:10", "02:70:63:61:70:11"
B_WAN4, B_HOST4 = "192.0.2.2", "10.2.0.2"


@pytest.fixture(scope="module")
def hip_netns():
    with namespaces("a", "b", "relay") as (a, b, relay):
        veth(a, LAN_GW, LAN_MAC, relay, "r-al")
        veth(a, WAN_GW, WAN_MAC, relay, "r-aw")
        veth(b, LAN_GW, B_LAN_MAC, relay, "r-bl")
        veth(b, WAN_GW, B_WAN_MAC, relay, "r-bw")
        yield a, b, relay


def hip_config(d, name, key, lan, host, wan, peer, peer_hit, peer_wan, peer_mac, peer_site):
    path = os.path.join(str(d), name + ".conf")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write("\n".join([
            "[gateway]", "workers = 1", "hi = " + key, "sa-lifetime = 2s", "",
            "[port lan]", "device = net_af_packet0,iface=" + LAN_GW, "role = inner",
            "address = %s/24" % lan, "neighbors = %s %s" % (host, HOST_MAC), "",
            "[port wan]", "device = net_af_packet1,iface=" + WAN_GW, "role = outer",
            "address = %s/24" % wan, "neighbors = %s %s" % (peer_wan, peer_mac), "",
            "[peer %s]" % peer, "hit = " + peer_hit, "locator = " + peer_wan,
            "prefixes = " + peer_site, ""]))
    return path


def test_pmtu_survives_hip_rekey(hip_netns, tmp_path, rng):
    """A HIP-keyed out SA: the path MTU an ICMP error lowered stays with the
    path when an UPDATE rekey (sa-lifetime 2s) replaces the SA: DF packets
    that no longer fit still get ICMP fragmentation needed with the lowered
    size after the new SPI is in use, and the new out SA shows it."""
    a_ns, b_ns, relay = hip_netns
    key_a, hit_a = gwlib.make_hi(str(tmp_path), "gwA")
    key_b, hit_b = gwlib.make_hi(str(tmp_path), "gwB")
    cfg_a = hip_config(tmp_path, "gwA", key_a, gwlib.LAN4, HOST4, WAN4, "gwB", hit_b, B_WAN4,
                       B_WAN_MAC, "10.2.0.0/24")
    cfg_b = hip_config(tmp_path, "gwB", key_b, "10.2.0.1", B_HOST4, B_WAN4, "gwA", hit_a, WAN4,
                       WAN_MAC, "10.1.0.0/24")
    mx = gwlib.max_inner(gwlib.SUITES["aes128-gcm16"], 4, V4_PATH_MTU)
    link = Link(relay, lan="r-al", wan="r-aw", more=["r-bl", "r-aw=r-bw"])
    gw_a = gw_b = None

    def esp_a(f):
        return IP in f and f[IP].src == WAN4 and f[IP].dst == B_WAN4 and f[IP].proto == 50

    def spi(f):
        return struct.unpack("!I", esp_ip(f)[20:24])[0]

    def small(i):
        return gwlib.inner_packet(rng, 4, HOST4, B_HOST4, 200 + i, proto="udp", df=True)

    try:
        gw_b = Gateway(b_ns, tmp_path, cfg_b, name="gwB")
        gw_a = Gateway(a_ns, tmp_path, cfg_a, name="gwA")
        send_lan(link, small(0))                      # starts the Base Exchange
        link.expect("r-aw", esp_a, "gwA's first ESP (after the Base Exchange)")
        send_lan(link, gwlib.inner_packet(rng, 4, HOST4, B_HOST4, 1400, proto="udp", df=True))
        first = link.expect("r-aw", lambda f: esp_a(f) and len(esp_ip(f)) > 1400,
                            "gwA's ESP of 1400 bytes")
        link.send("r-aw", too_big(esp_ip(first), V4_PATH_MTU))
        link.barrier(4)
        assert_too_big(link, rng, 4, B_HOST4, 1400, mx)
        for i in range(1, 150):                       # until gwA sends on a new out SA
            send_lan(link, small(i))
            f = link.expect("r-aw", esp_a, "gwA's ESP")
            if spi(f) != spi(first):
                break
            time.sleep(0.2)
        assert spi(f) != spi(first), "no rekey: gwA kept out SPI 0x%x" % spi(first)
        assert_too_big(link, rng, 4, B_HOST4, 1400, mx)
    finally:
        link.close()
        st = gw_a.stop() if gw_a is not None else None
        if gw_b is not None:
            gw_b.stop()
    pmtu_counts(st, lowered=1)
    assert st["hip"]["peers"]["gwB"]["rekeys"] >= 1, st["hip"]["peers"]["gwB"]
    assert st["sa"]["gwB-out"]["max_inner"] == mx, st["sa"]
    assert st["sa"]["gwB-out"]["spi"] != spi(first), st["sa"]


def test_l2_fragments_follow_path_mtu(netns, link, tmp_path, rng):
    """L2 mode over IPv6: a 1514-byte frame leaves in two outer fragments of
    at most the port's 1500 bytes; a Packet Too Big quoting the first of them
    (IPv6 header, Fragment header, ESP) lowers the path MTU, and the next
    frame's fragments keep within it. scapy reassembles and decrypts both."""
    from test_l2_frag import check_fragments, esp_packets, frame
    from test_l2 import ETHERIP_HDR, transport_sa

    out, inn = gwlib.make_sa_pair(rng, SUITE, 6)
    cfg = manual_config(tmp_path, [out, inn], lan_extra="mode = l2")
    with open(cfg, "a") as f:
        f.write("\n[bridge site]\nport = lan\nsas = %s, %s\n" % (out.name, inn.name))
    frames = [frame(1514, fill=b"p"), frame(1514, fill=b"q")]
    is_frag = lambda f: is_esp(out)(f) or (IPv6 in f and f[IPv6].src == out.local and
                                            f[IPv6].nh == 44)
    gw = Gateway(netns[0], tmp_path, cfg)
    try:
        link.send(link.lan, frames[0])
        first = [link.expect(link.wan, is_frag, "fragment %d of frame 1" % i) for i in (1, 2)]
        head = [f for f in first if f[IPv6ExtHdrFragment].offset == 0]
        assert len(head) == 1, [f.summary() for f in first]
        link.send(link.wan, too_big(esp_ip(head[0]), V6_PATH_MTU))
        link.barrier(6)
        link.send(link.lan, frames[1])
        second = [link.expect(link.wan, is_frag, "fragment %d of frame 2" % i) for i in (1, 2)]
    finally:
        st = gw.stop()
    ssa = transport_sa(out)
    for pieces, want, mtu in ((first, frames[0], 1500), (second, frames[1], V6_PATH_MTU)):
        (ip, frags), = esp_packets(pieces, 6)
        check_fragments(frags, 6, mtu)
        assert len(frags) == 2 and max(len(p) for p in frags) > mtu - 8, \
            [len(p) for p in frags]                     # cut to this MTU, not a smaller one
        assert bytes(ssa.decrypt(ip).payload) == ETHERIP_HDR + want
    pmtu_counts(st, lowered=1)
    assert sum(w["esp_fragmented"] for w in st["workers"]) == 2, st["workers"]
    assert "lowered to MTU %d, 1 out SA(s)" % V6_PATH_MTU in gw.log(), gw.log()
