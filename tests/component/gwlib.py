# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers of hipgw's component tests.

The real hipgw binary runs with two net_pcap ports (inner "lan", outer "wan"):
frames go in through rx_pcap files, come out through tx_pcap files, and the
counters come back through --stats-json. Everything ESP is checked against
implementations nobody here wrote:

* scapy's ``scapy.layers.ipsec.SecurityAssociation`` (tunnel mode), and
* a small reference ESP built straight on python3-cryptography
  (``ref_encrypt`` / ``ref_decrypt``), used where scapy cannot help: crafted
  trailers with a valid ICV, padding checks, ESN with HMAC (scapy leaves the
  high sequence bits out of an ESP ICV). ``test_reference.py`` checks the two
  against each other.
"""

import contextlib
import dataclasses
import hashlib
import hmac
import ipaddress
import itertools
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import time

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from scapy.layers.inet import IP, UDP, TCP, ICMP
from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest, ICMPv6PacketTooBig
from scapy.layers.ipsec import ESP, SecurityAssociation
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import rdpcap, wrpcap

# --------------------------------------------------------------------------
# Binary and EAL

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN_TIMEOUT = 60          # seconds per hipgw run
IDLE_EXIT_MS = 500

DROP_REASONS = ("no_sa", "replay", "auth", "pad", "dummy", "malformed", "spoof", "ttl",
                "mtu", "ecn", "seq_overflow", "no_route", "no_neighbor",
                "ring_full", "no_mbuf", "policy", "etherip_version", "etherip_reserved",
                "l2_runt", "l2_link_local", "l2_local", "l2_group_source", "l2_flood_rate",
                "l2_too_long", "frag_no_mbuf", "mbox_no_flow", "mbox_frag", "mbox_hip",
                "udp_bad", "udp_cksum",
                "mbox_keepalive")


def asan_mode():
    return os.environ.get("HIPGW_ASAN", "") not in ("", "0", "no", "off")


def hipgw_binary():
    """HIPGW_BIN wins; HIPGW_ASAN=1 picks the AddressSanitizer build."""
    if os.environ.get("HIPGW_BIN"):
        return os.path.abspath(os.environ["HIPGW_BIN"])
    sub = "build-asan" if asan_mode() else "build"
    return os.path.join(REPO, sub, "app", "hipgw")


_run_counter = itertools.count()


def eal_args(prefix):
    # --in-memory cannot go with --no-huge in DPDK 22.11 (--no-huge implies legacy
    # memory, which --in-memory refuses), so each run gets its own --file-prefix.
    extra = os.environ.get("HIPGW_EAL_EXTRA", "").split()
    return ["--no-pci", "--no-huge", "-m", "512", "-l", "0,1",
            "--file-prefix", prefix, "--log-level=lib.eal:error"] + extra


def child_env():
    env = dict(os.environ)
    # DPDK's EAL itself frees not all it allocates at exit; leaks are not what
    # these tests look for (memory errors are). HIPGW_ASAN_OPTIONS overrides.
    env["ASAN_OPTIONS"] = os.environ.get(
        "HIPGW_ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0:halt_on_error=1")
    return env


# Runs in a namespace of a test (python3 -c PEER_CAPTURE IFACE): every frame on
# the interface, both directions, as "<pkttype> <hex>" lines, until stdin closes.
PEER_CAPTURE = r"""
import select, socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
print("ready", flush=True)
while True:
    r, _, _ = select.select([s, sys.stdin], [], [])
    if s in r:
        data, addr = s.recvfrom(65535)
        print(addr[2], data.hex(), flush=True)
    elif not sys.stdin.readline():
        break
"""


def sh(*cmd, check=True):
    """Run a command (ip, sysctl, ...), output captured as text."""
    return subprocess.run(list(cmd), check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def start_gateway(ns, prefix, cfg, stats, logf):
    """hipgw in network namespace ns (None: this test's own) in the background
    (--file-prefix prefix, --config cfg, --stats-json stats), in a session of
    its own, its output to the file logf: the Popen."""
    netns = ["ip", "netns", "exec", ns] if ns is not None else []
    with open(logf, "w") as lf:
        return subprocess.Popen(netns + [hipgw_binary()] + eal_args(prefix) +
                                ["--", "--config", str(cfg), "--stats-json", str(stats)],
                                stdout=lf, stderr=subprocess.STDOUT, env=child_env(),
                                start_new_session=True)


def wait_gateway_running(gw, logf):
    """Until the gateway a test started logs "hipgw running" (30 s at most);
    asserts it runs."""
    for _ in range(300):
        if "hipgw running" in logf.read_text() or gw.poll() is not None:
            break
        time.sleep(0.1)
    assert gw.poll() is None and "hipgw running" in logf.read_text(), logf.read_text()


def stop_gateway(gw, prefix):
    """SIGINT to a hipgw a test started (Popen gw, --file-prefix prefix): wait
    30 s for it, kill it after that; its DPDK runtime directory removed."""
    if gw.poll() is None:
        gw.send_signal(signal.SIGINT)
    try:
        gw.wait(timeout=30)
    except subprocess.TimeoutExpired:
        gw.kill()
        gw.wait()
    shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


def check_gateway_log(gw, logf):
    """The stopped gateway exited 0 without a sanitizer report; returns its log."""
    log = logf.read_text()
    assert gw.returncode == 0, log
    assert "AddressSanitizer" not in log and "runtime error:" not in log, log
    return log



def telemetry_raw(prefix, cmd):
    """One DPDK telemetry request (e.g. "/hipgw/stats") to the running hipgw
    of --file-prefix prefix: the reply as bytes, as the socket gave it."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.connect("/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix)
        s.recv(4096)                                  # the greeting
        s.send(cmd.encode())
        return s.recv(1 << 16)


def telemetry(prefix, cmd):
    """telemetry_raw's reply's value, parsed JSON."""
    return json.loads(telemetry_raw(prefix, cmd))[cmd.split(",")[0]]


@contextlib.contextmanager
def namespaces(*names):
    """Network namespaces of these names (a test's pid in them), made new and
    removed afterwards, also on failure."""
    for ns in names:
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
    try:
        yield names
    finally:
        for ns in names:
            sh("ip", "netns", "del", ns, check=False)


_veths = itertools.count()


def veth(ns_a, if_a, ns_b, if_b):
    """A veth pair: if_a in namespace ns_a, if_b in ns_b, both up, their
    kernels quiet (no IPv6: RS, DAD, MLD) and no offloads (af_packet sees
    whole frames with their checksums)."""
    tmp = "hgv%d_%d" % (os.getpid() % 1000000, next(_veths))
    sh("ip", "link", "add", tmp + "a", "type", "veth", "peer", "name", tmp + "b")
    sh("ip", "link", "set", tmp + "a", "netns", ns_a, "name", if_a)
    sh("ip", "link", "set", tmp + "b", "netns", ns_b, "name", if_b)
    for ns, dev in ((ns_a, if_a), (ns_b, if_b)):
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % dev)
        sh("ip", "-n", ns, "link", "set", dev, "up")
        sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "rx", "off", "tx", "off",
           "tso", "off", "gso", "off", "gro", "off", check=False)

def run_process(cmd, cwd, timeout=RUN_TIMEOUT):
    """Run cmd in its own session; on timeout stop exactly that process group."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True,
                         env=child_env())
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGTERM)
            out, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), timed_out


# --------------------------------------------------------------------------
# Topology used by every test

LAN_MAC = "02:70:63:61:70:00"      # first net_pcap port created: [port lan]
WAN_MAC = "02:70:63:61:70:01"      # second: [port wan]
HOST_MAC = "02:00:00:00:01:02"     # inner neighbour 10.1.0.2 / fd00:1::2
GW4_MAC = "02:00:00:00:02:fe"      # outer IPv4 gateway 192.0.2.254
PEER6_MAC = "02:00:00:00:02:02"    # outer IPv6 on-link peer 2001:db8:1::2
OTHER_MAC = "02:00:00:00:09:09"

LAN4, LAN6 = "10.1.0.1", "fd00:1::1"
HOST4, HOST6 = "10.1.0.2", "fd00:1::2"
WAN4, WAN6 = "192.0.2.1", "2001:db8:1::1"
GW4 = "192.0.2.254"
GW6, GW6_MAC = "2001:db8:1::fe", "02:00:00:00:02:fd"   # outer IPv6 gateway, when used
PEER4, PEER6 = "198.51.100.1", "2001:db8:1::2"   # remote gateway (v4 via GW4, v6 on-link)
REMOTE_NETS = ("10.2.0.0/16", "fd00:2::/48")       # the other site
BYPASS4 = "10.9.0.0/16"
BYPASS6 = "fd00:9::/48"

MTU = 1500

SPI_OUT = 0x1000
SPI_IN = 0x2000


@dataclasses.dataclass
class Suite:
    name: str
    kind: str              # gcm | cbc | null
    key_len: int           # cipher key bytes, without the GCM salt
    align: int             # payload alignment
    iv_len: int
    icv_len: int = 16

    @property
    def has_auth_key(self):
        return self.kind in ("cbc", "null")


SUITES = {
    "aes128-gcm16": Suite("aes128-gcm16", "gcm", 16, 4, 8),
    "aes256-gcm16": Suite("aes256-gcm16", "gcm", 32, 4, 8),
    "aes128-cbc-sha256": Suite("aes128-cbc-sha256", "cbc", 16, 16, 16),
    "aes256-cbc-sha256": Suite("aes256-cbc-sha256", "cbc", 32, 16, 16),
    "null-sha256": Suite("null-sha256", "null", 0, 4, 0),
}
SUITE_NAMES = list(SUITES)


@dataclasses.dataclass
class SA:
    name: str
    direction: str         # out | in
    spi: int
    suite: Suite
    key: bytes             # GCM: key || 4-byte salt; CBC: AES key; NULL: b""
    auth_key: bytes        # -sha256 suites: 32 bytes
    local: str
    remote: str
    prefixes: tuple = REMOTE_NETS
    local_prefixes: tuple = ()
    esn: bool = False
    state: str = ""        # out + GCM; set by the config writer when empty
    replay_window: int = None
    udp: tuple = None      # out: (sport, dport) of udp-encap (RFC 3948); None: plain ESP

    @property
    def outer_family(self):
        return 6 if ":" in self.local else 4

    def scapy(self):
        """scapy's SecurityAssociation for this SA. Tunnel mode; the tunnel header
        goes outbound from the remote peer's point of view when we encrypt."""
        if self.direction == "out":
            th = self._hdr(self.local, self.remote)
        else:
            th = self._hdr(self.remote, self.local)
        s = self.suite
        if s.kind == "gcm":
            return SecurityAssociation(ESP, spi=self.spi, crypt_algo="AES-GCM",
                                       crypt_key=self.key, crypt_icv_size=16,
                                       tunnel_header=th, esn_en=self.esn)
        if s.kind == "cbc":
            return SecurityAssociation(ESP, spi=self.spi, crypt_algo="AES-CBC",
                                       crypt_key=self.key, auth_algo="SHA2-256-128",
                                       auth_key=self.auth_key, tunnel_header=th,
                                       esn_en=self.esn)
        return SecurityAssociation(ESP, spi=self.spi, crypt_algo="NULL",
                                   auth_algo="SHA2-256-128", auth_key=self.auth_key,
                                   tunnel_header=th, esn_en=self.esn)

    @staticmethod
    def _hdr(src, dst):
        return IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst)


def make_keys(rng, suite):
    key = bytes(rng.getrandbits(8) for _ in range(suite.key_len))
    if suite.kind == "gcm":
        key += bytes(rng.getrandbits(8) for _ in range(4))     # salt
    auth = bytes(rng.getrandbits(8) for _ in range(32)) if suite.has_auth_key else b""
    return key, auth


def make_sa_pair(rng, suite_name, outer=4, esn=False, **kw):
    """An outbound and an inbound SA between this gateway and PEER4/PEER6."""
    suite = SUITES[suite_name]
    local, remote = (WAN4, PEER4) if outer == 4 else (WAN6, PEER6)
    k1, a1 = make_keys(rng, suite)
    k2, a2 = make_keys(rng, suite)
    out = SA("ab", "out", SPI_OUT, suite, k1, a1, local, remote, esn=esn, **kw)
    inn = SA("ba", "in", SPI_IN, suite, k2, a2, local, remote, esn=esn, **kw)
    return out, inn


# --------------------------------------------------------------------------
# Reference ESP (RFC 4303 tunnel payloads, RFC 4106 GCM, RFC 3602 CBC, RFC 4868)

class RefAuthError(Exception):
    pass


def default_padding(suite, payload_len):
    n = -(payload_len + 2) % suite.align
    return bytes(range(1, n + 1))


def ref_encrypt(sa, payload, seq, nh=None, iv=None, padding=None, padlen=None,
                esn_hi=None):
    """ESP (SPI .. ICV) carrying `payload` (an inner IP packet). `padding`, `padlen`
    and `nh` override the trailer, to craft bad packets that still carry a valid
    ICV. `seq` is the full (ESN: 64-bit) sequence number."""
    s = sa.suite
    if nh is None:
        nh = 41 if payload and payload[0] >> 4 == 6 else 4
    if padding is None:
        padding = default_padding(s, len(payload))
    if padlen is None:
        padlen = len(padding)
    plain = payload + padding + bytes([padlen & 0xff, nh])
    seq_lo = seq & 0xffffffff
    seq_hi = (seq >> 32) if esn_hi is None else esn_hi
    hdr = struct.pack("!II", sa.spi, seq_lo)
    if s.kind == "gcm":
        if iv is None:
            iv = os.urandom(8)
        aad = struct.pack("!III", sa.spi, seq_hi, seq_lo) if sa.esn else hdr
        ct = AESGCM(sa.key[:-4]).encrypt(sa.key[-4:] + iv, plain, aad)
        return hdr + iv + ct
    if s.kind == "cbc":
        if iv is None:
            iv = os.urandom(16)
        assert len(plain) % 16 == 0, "CBC plaintext must be whole blocks"
        enc = Cipher(algorithms.AES(sa.key), modes.CBC(iv)).encryptor()
        body = hdr + iv + enc.update(plain) + enc.finalize()
    else:
        body = hdr + plain
    mac_in = body + (struct.pack("!I", seq_hi) if sa.esn else b"")
    return body + hmac.new(sa.auth_key, mac_in, hashlib.sha256).digest()[:16]


@dataclasses.dataclass
class RefPlain:
    spi: int
    seq: int
    iv: bytes
    payload: bytes
    padding: bytes
    padlen: int
    nh: int
    ct_len: int


def ref_decrypt(sa, esp, esn_hi=0):
    """Verify and decrypt ESP bytes (SPI .. ICV). Raises RefAuthError on a bad ICV."""
    s = sa.suite
    spi, seq_lo = struct.unpack("!II", esp[:8])
    iv = esp[8:8 + s.iv_len]
    ct = esp[8 + s.iv_len:len(esp) - 16]
    icv = esp[len(esp) - 16:]
    if s.kind == "gcm":
        aad = struct.pack("!III", spi, esn_hi, seq_lo) if sa.esn else esp[:8]
        try:
            plain = AESGCM(sa.key[:-4]).decrypt(sa.key[-4:] + iv, ct + icv, aad)
        except Exception as e:       # InvalidTag
            raise RefAuthError(str(e))
    else:
        mac_in = esp[:len(esp) - 16] + (struct.pack("!I", esn_hi) if sa.esn else b"")
        want = hmac.new(sa.auth_key, mac_in, hashlib.sha256).digest()[:16]
        if not hmac.compare_digest(want, icv):
            raise RefAuthError("HMAC mismatch")
        if s.kind == "cbc":
            dec = Cipher(algorithms.AES(sa.key), modes.CBC(iv)).decryptor()
            plain = dec.update(ct) + dec.finalize()
        else:
            plain = ct
    padlen, nh = plain[-2], plain[-1]
    body = plain[:-2]
    return RefPlain(spi, (esn_hi << 32) | seq_lo, iv, body[:len(body) - padlen],
                    body[len(body) - padlen:], padlen, nh, len(ct))


def outer_header(sa_from_peer, tos=0, ttl=64):
    """Outer IP header of ESP that the remote peer sends us on SA `sa` (direction in)."""
    if ":" in sa_from_peer.local:
        return IPv6(src=sa_from_peer.remote, dst=sa_from_peer.local, tc=tos, hlim=ttl)
    return IP(src=sa_from_peer.remote, dst=sa_from_peer.local, tos=tos, ttl=ttl, id=0)


def esp_frame_ref(sa, inner, seq, outer_tos=0, **kw):
    """An inbound frame (to the outer port) built with the reference ESP."""
    esp = ref_encrypt(sa, bytes(inner), seq, **kw)
    hdr = outer_header(sa, tos=outer_tos)
    if isinstance(hdr, IP):
        hdr.proto = 50
    else:
        hdr.nh = 50
    return Ether(src=GW4_MAC if isinstance(hdr, IP) else PEER6_MAC, dst=WAN_MAC) / hdr / Raw(esp)


def esp_frame_scapy(sa, inner, seq, outer_tos=0, iv=None, esn_hi=None):
    """An inbound frame (to the outer port) built by scapy's SecurityAssociation."""
    ssa = sa.scapy()
    ssa.tunnel_header = outer_header(sa, tos=outer_tos)
    if isinstance(inner, (bytes, bytearray)):
        inner = IP(inner) if inner[0] >> 4 == 4 else IPv6(inner)
    kw = {}
    if sa.esn:
        kw = dict(esn_en=True, esn=(seq >> 32) if esn_hi is None else esn_hi)
    if seq & 0xffffffff == 0:
        ssa.seq_num = 0          # scapy treats seq_num=0 as "use my counter"
        pkt = ssa.encrypt(inner, iv=iv, **kw)
    else:
        pkt = ssa.encrypt(inner, seq_num=seq & 0xffffffff, iv=iv, **kw)
    pkt = pkt.__class__(bytes(pkt))
    src_mac = PEER6_MAC if ":" in sa.local else GW4_MAC
    return Ether(src=src_mac, dst=WAN_MAC) / pkt


def scapy_iv(sa, rng):
    return bytes(rng.getrandbits(8) for _ in range(sa.suite.iv_len))


# --------------------------------------------------------------------------
# Inner traffic

def _rand_bytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def inner_packet(rng, fam, src, dst, size, proto=None, ttl=None, tos=None, df=None,
                 tcp_flags=None):
    """An inner IP packet of exactly `size` bytes (IP header included), as bytes."""
    if ttl is None:
        ttl = rng.randint(2, 255)
    if tos is None:
        tos = rng.getrandbits(8)
    if fam == 4:
        hdr = IP(src=src, dst=dst, ttl=ttl, tos=tos, id=rng.getrandbits(16),
                 flags=("DF" if (df if df is not None else rng.random() < 0.5) else 0))
        hlen = 20
    else:
        hdr = IPv6(src=src, dst=dst, hlim=ttl, tc=tos, fl=rng.getrandbits(20))
        hlen = 40
    choices = ["udp", "tcp", "icmp"]
    if proto is None:
        proto = rng.choice(choices)
    if proto == "tcp" and size < hlen + 20:
        proto = "udp"
    if proto == "udp":
        l4 = UDP(sport=rng.randint(1024, 65535), dport=rng.randint(1, 65535))
        l4len = 8
    elif proto == "tcp":
        if tcp_flags is None:
            tcp_flags = rng.choice(["A", "PA", "FA", "R", "PAU"])
        l4 = TCP(sport=rng.randint(1024, 65535), dport=rng.randint(1, 65535),
                 seq=rng.getrandbits(32), ack=rng.getrandbits(32), flags=tcp_flags,
                 window=rng.getrandbits(16))
        l4len = 20
    else:
        if fam == 4:
            l4 = ICMP(type=8, id=rng.getrandbits(16), seq=rng.getrandbits(16))
        else:
            l4 = ICMPv6EchoRequest(id=rng.getrandbits(16), seq=rng.getrandbits(16))
        l4len = 8
    n = size - hlen - l4len
    assert n >= 0, (fam, proto, size)
    if fam == 6 and proto == "icmp":
        l4.data = _rand_bytes(rng, n)
        pkt = hdr / l4
    else:
        pkt = hdr / l4 / Raw(_rand_bytes(rng, n))
    b = bytes(pkt)
    assert len(b) == size, (len(b), size)
    return b


def rand_host(rng, fam, net):
    n = ipaddress.ip_network(net)
    off = rng.randint(2, min(n.num_addresses - 2, 2 ** 31))   # never .1, the gateway
    return str(n.network_address + off)


def mixed_traffic(rng, n, max_size, src_nets, dst_nets, min_size=40, **kw):
    """n inner packets, IPv4 and IPv6, UDP/TCP(non-SYN)/ICMP, min_size..max_size
    bytes (with the boundaries always included)."""
    out = []
    sizes = [min_size, max_size, max_size - 1, 60, 576, 1280] + \
        [rng.randint(min_size, max_size) for _ in range(n)]
    sizes = [s for s in sizes if min_size <= s <= max_size][:n]
    for i, size in enumerate(sizes):
        fam = 4 if i % 2 == 0 else 6
        if fam == 6:
            size = max(size, 48)
        src = src_nets[fam] if "/" not in src_nets[fam] else rand_host(rng, fam, src_nets[fam])
        dst = dst_nets[fam] if "/" not in dst_nets[fam] else rand_host(rng, fam, dst_nets[fam])
        out.append(inner_packet(rng, fam, src, dst, size, **kw))
    return out


def icmp_too_big(esp, mtu, quote=None, bad_cksum=False):
    """ICMP fragmentation needed (esp IPv4) / ICMPv6 Packet Too Big (esp IPv6)
    from a router on the path (GW4 / GW6) to our WAN address, with next-hop MTU
    `mtu`, quoting the first `quote` bytes of the outer packet esp (bytes;
    default: as many as fit in 576 / 1280 bytes). An Ether frame; bad_cksum
    flips the ICMP checksum."""
    if esp[0] >> 4 == 4:
        f = Ether(src=GW4_MAC, dst=WAN_MAC) / IP(src=GW4, dst=WAN4) / \
            ICMP(type=3, code=4, nexthopmtu=mtu) / Raw(esp[:548 if quote is None else quote])
        icmp = ICMP
    else:
        f = Ether(src=PEER6_MAC, dst=WAN_MAC) / IPv6(src=GW6, dst=WAN6) / \
            ICMPv6PacketTooBig(mtu=mtu) / Raw(esp[:1232 if quote is None else quote])
        icmp = ICMPv6PacketTooBig
    if bad_cksum:
        f = Ether(bytes(f))                    # the checksums filled in
        field = "chksum" if icmp is ICMP else "cksum"
        setattr(f[icmp], field, getattr(f[icmp], field) ^ 0xffff)
    return f


def lan_frame(inner, dst_mac=LAN_MAC):
    return Ether(src=HOST_MAC, dst=dst_mac) / (IP(inner) if inner[0] >> 4 == 4 else IPv6(inner))


def ip_layer(frame):
    """The IP/IPv6 layer of a frame (a scapy packet), or None."""
    if IP in frame:
        return frame[IP]
    if IPv6 in frame:
        return frame[IPv6]
    return None


# --------------------------------------------------------------------------
# Overheads

def esp_overhead(suite, outer, inner_len):
    ohdr = 20 if outer == 4 else 40
    body = inner_len + 2
    body += -body % suite.align
    return ohdr + 8 + suite.iv_len + body + suite.icv_len - inner_len


def max_inner(suite, outer, mtu=MTU):
    """Largest inner packet whose ESP still fits into `mtu`."""
    n = mtu
    while n + esp_overhead(suite, outer, n) > mtu:
        n -= 1
    return n


# --------------------------------------------------------------------------
# Byte-level comparison of forwarded packets

def ipv4_checksum_ok(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s == 0xffff


def forwarded_diff(orig, got, ttl_dec=1, ecn=None):
    """None when `got` is `orig` routed once (TTL / hop limit - ttl_dec, IPv4 header
    checksum valid) and, if ecn is given, with ECN field `ecn`; else a message."""
    orig, got = bytes(orig), bytes(got)
    if len(orig) != len(got):
        return "length %d, expected %d" % (len(got), len(orig))
    a, b = bytearray(orig), bytearray(got)
    if orig[0] >> 4 == 4:
        ihl = (orig[0] & 15) * 4
        if b[8] != (a[8] - ttl_dec) & 0xff:
            return "TTL %d, expected %d" % (b[8], a[8] - ttl_dec)
        if not ipv4_checksum_ok(b[:ihl]):
            return "bad IPv4 header checksum"
        if ecn is not None:
            if b[1] & 3 != ecn:
                return "ECN %d, expected %d" % (b[1] & 3, ecn)
            a[1] = (a[1] & 0xfc) | ecn
        a[8] = b[8]
        a[10:12] = b[10:12]
    else:
        if b[7] != (a[7] - ttl_dec) & 0xff:
            return "hop limit %d, expected %d" % (b[7], a[7] - ttl_dec)
        if ecn is not None:
            if (b[1] >> 4) & 3 != ecn:
                return "ECN %d, expected %d" % ((b[1] >> 4) & 3, ecn)
            a[1] = (a[1] & 0xcf) | (ecn << 4)
        a[7] = b[7]
    if a != b:
        first = next(i for i in range(len(a)) if a[i] != b[i])
        return "bytes differ from offset %d: got %s expected %s" % (
            first, bytes(b[first:first + 16]).hex(), bytes(a[first:first + 16]).hex())
    return None


def routed(b, ttl_dec=1):
    """Bytes of inner packet `b` after a router forwarded it once."""
    a = bytearray(b)
    if a[0] >> 4 == 4:
        ihl = (a[0] & 15) * 4
        a[8] = (a[8] - ttl_dec) & 0xff
        a[10:12] = b"\0\0"
        s = sum((a[i] << 8) | a[i + 1] for i in range(0, ihl, 2))
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        a[10:12] = struct.pack("!H", ~s & 0xffff)
    else:
        a[7] = (a[7] - ttl_dec) & 0xff
    return bytes(a)


def inner_tos(pkt):
    b = bytes(pkt)
    return b[1] if b[0] >> 4 == 4 else ((b[0] & 15) << 4) | (b[1] >> 4)


# --------------------------------------------------------------------------
# Config

def conf_list(items):
    return ", ".join(items)


def write_config(d, sas, bypass=(), lan_extra="", wan_extra="", gateway_extra="",
                 lan_mss=None, gateway6=False, lan_mtu=MTU, wan_mtu=MTU,
                 lan_device=None, wan_device=None):
    """hipgw.conf in d; the ports are net_pcap on d's pcap files unless
    lan_device / wan_device name other devices."""
    lines = ["; written by tests/component", "[gateway]", "workers = 1",
             "idle = adaptive"]
    if gateway_extra:
        lines.append(gateway_extra)
    lines += ["", "[port lan]",
              "device = " + (lan_device or
                             "net_pcap0,rx_pcap=%s/lan_in.pcap,tx_pcap=%s/lan_out.pcap" % (d, d)),
              "role = inner",
              "address = %s/24, %s/64" % (LAN4, LAN6),
              "neighbors = %s %s, %s %s" % (HOST4, HOST_MAC, HOST6, HOST_MAC),
              "mtu = %d" % lan_mtu]
    if lan_mss is not None:
        lines.append("tcp-mss-clamp = %s" % lan_mss)
    if lan_extra:
        lines.append(lan_extra)
    lines += ["", "[port wan]",
              "device = " + (wan_device or
                             "net_pcap1,rx_pcap=%s/wan_in.pcap,tx_pcap=%s/wan_out.pcap" % (d, d)),
              "role = outer",
              "address = %s/24, %s/64" % (WAN4, WAN6),
              "gateway = %s" % (GW4 + (", " + GW6 if gateway6 else "")),
              "neighbors = %s %s, %s %s" % (GW4, GW4_MAC, PEER6, PEER6_MAC) +
              (", %s %s" % (GW6, GW6_MAC) if gateway6 else ""),
              "mtu = %d" % wan_mtu]
    if wan_extra:
        lines.append(wan_extra)
    for sa in sas:
        lines += ["", "[sa %s]" % sa.name,
                  "direction = %s" % sa.direction,
                  "spi = 0x%x" % sa.spi,
                  "suite = %s" % sa.suite.name]
        if sa.key:
            lines.append("key = 0x%s" % sa.key.hex())
        if sa.auth_key:
            lines.append("auth-key = 0x%s" % sa.auth_key.hex())
        lines += ["local = %s" % sa.local, "remote = %s" % sa.remote,
                  "prefixes = %s" % conf_list(sa.prefixes)]
        if sa.local_prefixes:
            lines.append("local-prefixes = %s" % conf_list(sa.local_prefixes))
        if sa.esn:
            lines.append("esn = on")
        if sa.direction == "out" and sa.suite.kind == "gcm":
            lines.append("state = %s" % (sa.state or "%s/%s.seq" % (d, sa.name)))
        if sa.direction == "in" and sa.replay_window is not None:
            lines.append("replay-window = %d" % sa.replay_window)
        if sa.udp is not None:
            lines.append("udp-encap = %d,%d" % sa.udp)
    if bypass:
        lines += ["", "[policy]", "bypass = %s" % conf_list(bypass)]
    path = os.path.join(d, "hipgw.conf")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write("\n".join(lines) + "\n")     # it holds SA keys: 0600, as hipgw asks
    os.chmod(path, 0o600)
    return path


def make_hi(d, name):
    """A new ECDSA P-256 Host Identity d/name.pem (hipgw keygen, mode 0600) and
    its HIT (hipgw hit): (path, HIT string)."""
    key = os.path.join(d, name + ".pem")
    rc, _, err, _ = run_process([hipgw_binary(), "keygen", "--algo", "ecdsa-p256", "--out", key],
                                d, timeout=30)
    assert rc == 0, "hipgw keygen: " + err
    rc, out, err, _ = run_process([hipgw_binary(), "hit", key], d, timeout=30)
    assert rc == 0, "hipgw hit: " + err
    return key, out.split()[-1]


# --------------------------------------------------------------------------
# Running hipgw

PCAP_HDR = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)


def write_pcap(path, frames):
    if frames:
        wrpcap(path, [f if not isinstance(f, (bytes, bytearray)) else Ether(f)
                      for f in frames])
    else:
        with open(path, "wb") as f:
            f.write(PCAP_HDR)


def read_pcap(path):
    if not os.path.exists(path) or os.path.getsize(path) < 24:
        return None
    return list(rdpcap(path))


@dataclasses.dataclass
class Result:
    rc: int
    stdout: str
    stderr: str
    timed_out: bool
    stats: dict
    lan_out: list
    wan_out: list
    dir: str
    seconds: float

    def describe(self):
        return ("rc=%s timed_out=%s after %.1fs\n--- stderr (last 3000 chars) ---\n%s"
                % (self.rc, self.timed_out, self.seconds, self.stderr[-3000:]))

    @property
    def drops(self):
        return self.stats.get("drops", {}) if self.stats else {}

    def sa(self, name):
        return self.stats["sa"][name]

    def port(self, name):
        return self.stats["ports"][name]


def run_hipgw(d, config_path, lan_in=(), wan_in=(), idle_ms=IDLE_EXIT_MS,
              timeout=RUN_TIMEOUT, extra_args=()):
    """Write the rx pcaps, run hipgw once, return a Result (not yet checked)."""
    os.makedirs(d, exist_ok=True)
    write_pcap(os.path.join(d, "lan_in.pcap"), list(lan_in))
    write_pcap(os.path.join(d, "wan_in.pcap"), list(wan_in))
    for f in ("lan_out.pcap", "wan_out.pcap", "stats.json"):
        if os.path.exists(os.path.join(d, f)):
            os.unlink(os.path.join(d, f))
    prefix = "hgwct%d_%d" % (os.getpid(), next(_run_counter))
    stats_path = os.path.join(d, "stats.json")
    cmd = [hipgw_binary()] + eal_args(prefix) + [
        "--", "--config", config_path, "--stats-json", stats_path,
        "--idle-exit", str(idle_ms)] + list(extra_args)
    with open(os.path.join(d, "cmd.txt"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    t0 = time.monotonic()
    try:
        rc, out, err, to = run_process(cmd, d, timeout)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    secs = time.monotonic() - t0
    with open(os.path.join(d, "stdout.txt"), "w") as f:
        f.write(out)
    with open(os.path.join(d, "stderr.txt"), "w") as f:
        f.write(err)
    stats = None
    if os.path.exists(stats_path):
        try:
            with open(stats_path) as f:
                stats = json.load(f)
        except ValueError:
            stats = None
    lan_out = read_pcap(os.path.join(d, "lan_out.pcap"))
    wan_out = read_pcap(os.path.join(d, "wan_out.pcap"))
    return Result(rc, out, err, to, stats, lan_out, wan_out, d, secs)


def check_clean_run(r):
    """The run itself went well: exit 0, no sanitizer report, outputs and stats."""
    assert not r.timed_out, "hipgw did not exit within %ds: %s" % (RUN_TIMEOUT, r.describe())
    assert "AddressSanitizer" not in r.stderr and "runtime error:" not in r.stderr, \
        "sanitizer report: " + r.describe()
    assert r.rc == 0, "hipgw exited with %s: %s" % (r.rc, r.describe())
    assert r.stats is not None, "no (valid) --stats-json file written: " + r.describe()
    assert r.lan_out is not None and r.wan_out is not None, \
        "tx pcap files missing or truncated: " + r.describe()
    check_stats_schema(r.stats)


def check_stats_schema(st):
    assert set(st) >= {"drops", "ports", "sa"}, "stats keys: %s" % sorted(st)
    missing = [k for k in DROP_REASONS if k not in st["drops"]]
    assert not missing, "drop reasons missing from stats: %s" % missing
    extra = [k for k in st["drops"] if k not in DROP_REASONS]
    assert not extra, "unknown drop reasons in stats: %s" % extra
    for name, p in st["ports"].items():
        for k in ("mac", "rx", "tx", "imissed", "rx_nombuf", "oerrors"):
            assert k in p, "port %s lacks %s: %s" % (name, k, p)
    for name, s in st["sa"].items():
        for k in ("spi", "packets", "bytes"):
            assert k in s, "sa %s lacks %s: %s" % (name, k, s)
    mb = st.get("mbufs", {})
    assert mb.get("size", 0) > 0 and 0 <= mb.get("in_use", -1) <= mb["size"], \
        "mbufs: pool size and mbufs taken: %s" % mb


def check_drops(r, **expected):
    """Every drop counter is exactly as given (the rest 0)."""
    want = {k: 0 for k in DROP_REASONS}
    want.update(expected)
    got = {k: r.drops.get(k) for k in DROP_REASONS}
    diff = {k: (got[k], want[k]) for k in DROP_REASONS if got[k] != want[k]}
    assert not diff, "drop counters (got, expected): %s; all drops: %s" % (diff, r.drops)


def check_ports(r, lan_rx=None, wan_rx=None):
    assert r.port("lan")["mac"].lower() == LAN_MAC, r.port("lan")
    assert r.port("wan")["mac"].lower() == WAN_MAC, r.port("wan")
    if lan_rx is not None:
        assert r.port("lan")["rx"] == lan_rx, ("lan rx", r.port("lan"), lan_rx)
    if wan_rx is not None:
        assert r.port("wan")["rx"] == wan_rx, ("wan rx", r.port("wan"), wan_rx)
    assert r.port("lan")["tx"] == len(r.lan_out), ("lan tx vs pcap", r.port("lan"), len(r.lan_out))
    assert r.port("wan")["tx"] == len(r.wan_out), ("wan tx vs pcap", r.port("wan"), len(r.wan_out))
    for p in ("lan", "wan"):
        assert r.port(p)["oerrors"] == 0 and r.port(p)["rx_nombuf"] == 0 \
            and r.port(p)["imissed"] == 0, r.port(p)


def is_control(frame):
    """ARP / neighbour discovery / MLD: the only things besides ESP that may cross
    the outer link."""
    if frame.type == 0x0806:
        return True
    if IPv6 in frame:
        nh_chain = frame[IPv6]
        b = bytes(nh_chain)
        nh = b[6]
        off = 40
        while nh in (0, 60, 43) and off + 2 <= len(b):   # hop-by-hop (MLD), dest opts
            nh, off = b[off], off + (b[off + 1] + 1) * 8
        if nh == 58 and off < len(b) and b[off] in (130, 131, 132, 133, 134, 135, 136, 143):
            return True
    return False


def data_frames(frames):
    return [f for f in frames if not is_control(f)]


# --------------------------------------------------------------------------
# Outbound ESP verification

@dataclasses.dataclass
class Decrypted:
    frame: object
    seq: int
    iv: bytes
    inner: bytes
    ref: RefPlain


def decrypt_outbound(sa, frames, esn_hi=0):
    """Check each outer frame is ESP of `sa` to the right outer addresses/MAC and
    decrypt it with scapy (and the reference ESP, for the trailer). Returns the
    list of Decrypted, in frame order. Raises AssertionError with details."""
    res = []
    want_mac = GW4_MAC if sa.outer_family == 4 else PEER6_MAC
    for i, f in enumerate(frames):
        where = "outer frame #%d (%s)" % (i, f.summary())
        assert f.src.lower() == WAN_MAC and f.dst.lower() == want_mac, \
            "%s: MACs %s -> %s, expected %s -> %s" % (where, f.src, f.dst, WAN_MAC, want_mac)
        ip = ip_layer(f)
        assert ip is not None, where + ": not IP"
        if sa.outer_family == 4:
            assert IP in f and f[IP].proto == 50, where + ": not IPv4 ESP"
            raw_ip = bytes(f[IP])
            tl = struct.unpack("!H", raw_ip[2:4])[0]
            assert ipv4_checksum_ok(raw_ip[:20]), where + ": bad outer checksum"
            assert f[IP].flags.MF == 0 and f[IP].frag == 0, where + ": outer fragment"
            raw_ip = raw_ip[:tl]
            esp = raw_ip[(raw_ip[0] & 15) * 4:]
        else:
            assert IPv6 in f and f[IPv6].nh == 50, where + ": not IPv6 ESP"
            raw_ip = bytes(f[IPv6])
            pl = struct.unpack("!H", raw_ip[4:6])[0]
            raw_ip = raw_ip[:40 + pl]
            esp = raw_ip[40:]
        assert ip.src == sa.local and ip.dst == sa.remote, \
            "%s: outer %s -> %s, expected %s -> %s" % (where, ip.src, ip.dst, sa.local, sa.remote)
        assert len(raw_ip) <= MTU, "%s: %d bytes > MTU" % (where, len(raw_ip))
        spi, seq = struct.unpack("!II", esp[:8])
        assert spi == sa.spi, "%s: SPI 0x%x, expected 0x%x" % (where, spi, sa.spi)
        # scapy (independent implementation) must decrypt it
        ssa = sa.scapy()
        pkt = (IP if sa.outer_family == 4 else IPv6)(raw_ip)
        try:
            if sa.esn:
                # scapy leaves the ESN high bits out of an ESP HMAC; for the
                # -sha256 suites only the reference ESP below verifies the ICV.
                inner = ssa.decrypt(pkt, verify=sa.suite.kind == "gcm",
                                    esn_en=True, esn=esn_hi)
            else:
                inner = ssa.decrypt(pkt)
        except Exception as e:
            raise AssertionError("%s seq %d: scapy cannot decrypt/verify it: %r" % (where, seq, e))
        try:
            ref = ref_decrypt(sa, esp, esn_hi=esn_hi)
        except RefAuthError as e:
            raise AssertionError("%s seq %d: reference ESP rejects the ICV: %s" % (where, seq, e))
        assert bytes(inner) == ref.payload, where + ": scapy and reference disagree"
        s = sa.suite
        want_pad = default_padding(s, len(ref.payload))
        assert ref.padding == want_pad, "%s seq %d: padding %s (pad length %d), expected %s" % (
            where, seq, ref.padding.hex(), ref.padlen, want_pad.hex())
        first = ref.payload[0] >> 4
        assert ref.nh == {4: 4, 6: 41}.get(first), "%s: next header %d for an IPv%d payload" % (
            where, ref.nh, first)
        if s.kind == "cbc":
            assert ref.ct_len % 16 == 0, where + ": CBC ciphertext not whole blocks"
        res.append(Decrypted(f, seq, ref.iv, ref.payload, ref))
    return res


def match_forwarded(expected, got, ecn=None, what="packet"):
    """Each of `got` (bytes) is one of `expected` (bytes) routed once; each expected
    exactly once. Returns a list of problems (empty when all is well)."""
    problems = []
    pending = {}
    for i, e in enumerate(expected):
        pending.setdefault(_flow_key(e), []).append(i)
    used = set()
    for j, g in enumerate(got):
        cands = pending.get(_flow_key(g), [])
        hit = None
        last = None
        for i in cands:
            if i in used:
                continue
            d = forwarded_diff(expected[i], g, ecn=ecn[i] if isinstance(ecn, list) else ecn)
            if d is None:
                hit = i
                break
            last = (i, d)
        if hit is None:
            problems.append("%s #%d out (%d bytes) matches no input%s" % (
                what, j, len(g), "" if last is None else
                "; nearest input #%d: %s" % last))
        else:
            used.add(hit)
    missing = [i for i in range(len(expected)) if i not in used]
    if missing:
        problems.append("%d of %d %ss never came out (input indexes %s%s)" % (
            len(missing), len(expected), what, missing[:20], "..." if len(missing) > 20 else ""))
    return problems


def _flow_key(b):
    b = bytes(b)
    if not b:
        return None
    if b[0] >> 4 == 4:
        return (4, len(b), b[12:20], b[4:6])          # addresses + IP id
    return (6, len(b), b[8:40], b[1] & 0x0f, b[2:4])          # addresses + flow label


def inner_bytes_of(frame):
    ip = ip_layer(frame)
    b = bytes(ip)
    if b[0] >> 4 == 4:
        return b[:struct.unpack("!H", b[2:4])[0]]
    return b[:40 + struct.unpack("!H", b[4:6])[0]]


class Gateway:
    """Runs hipgw in a fresh directory per run."""

    def __init__(self, base):
        self.base = str(base)
        self.n = 0
        self.results = []

    def require(self):
        b = hipgw_binary()
        if not os.path.exists(b):
            pytest.fail("hipgw binary %s does not exist (build it: ninja -C %s)"
                        % (b, os.path.dirname(os.path.dirname(b))))

    def dir(self):
        d = os.path.join(self.base, "run%d" % self.n)
        self.n += 1
        os.makedirs(d, exist_ok=True)
        return d

    def run(self, sas, lan_in=(), wan_in=(), check=True, d=None, **conf):
        """Write a config with these SAs (and write_config's keyword options), run
        hipgw, and (check=True) assert the run itself was clean."""
        self.require()
        d = d or self.dir()
        cfg = write_config(d, sas, **conf)
        r = run_hipgw(d, cfg, lan_in, wan_in)
        self.results.append(r)
        if check:
            check_clean_run(r)
        return r
