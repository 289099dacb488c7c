# SPDX-License-Identifier: BSD-3-Clause
"""NAT traversal, the responder's side (RFC 5770 UDP-ENCAPSULATION mode):
the real hipgw as the responder, the Python initiator of hipinit.py behind
a "NAT" (a kernel UDP socket in its namespace on port NAT_PORT, not 10500,
as a NAT's mapping would be).

* a BEX over UDP is answered over UDP, from port 10500 to the port it came
  from (the kernel delivers only datagrams with a right UDP checksum); the
  R1 carries NAT_TRAVERSAL_MODE listing UDP-ENCAPSULATION, covered by its
  HIP_SIGNATURE_2; the HIP checksum is 0 (RFC 5770);
* afterwards the gateway's ESP (a ping of our HIT, BEET) comes in UDP on the
  same ports, on the SPI we chose;
* an I2 that picks a mode the R1 did not offer is dropped (nat_mode);
* HIP truncated after the non-ESP marker and garbage behind it are dropped
  and counted (malformed), a flood of NAT-keepalives (0xFF) is freed and
  counted (udp_keepalive), and the gateway stays up;
* NAT rebinding: an authenticated but older ESP packet from a new port
  moves nothing (nat_rebind_old), a replay from there is a replay drop, the
  newest one moves the gateway's path there and its ESP follows; with one
  worker and with two (the inbound SA owner handoff)."""

import os
import socket
import struct
import subprocess
import time

import pytest

import gwlib
import hipinit
from hipinit import hipref

NS = f"hgnat-t{os.getpid()}"
GW_IF, INI_IF = "cnat-gw", "cnat-ini"
GW4, INI4 = "192.0.2.1", "192.0.2.2"
PEER = "ini"
HIP_PORT = 10500                 # RFC 5770's hip-nat-t
NAT_PORT = 40123                 # the initiator's port as a NAT mapped it
MARKER = bytes(4)                # the non-ESP marker (RFC 5770)
NAT_TRAVERSAL_MODE = 608         # RFC 5770 5.4
UDP_ENCAPSULATION, ICE_HIP_UDP = 1, 3
N_KEEPALIVES = 300
N_GARBAGE = 20


class UdpHip:
    """HIP over UDP from INI4:NAT_PORT to GW4:10500 through a kernel UDP
    socket made inside namespace ns (as hipinit.RawHip does)."""

    def __init__(self, ns, port=NAT_PORT):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        with open("/proc/thread-self/ns/net") as home, open("/var/run/netns/" + ns) as there:
            assert libc.setns(there.fileno(), hipinit.CLONE_NEWNET) == 0
            try:
                self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                self.sock.bind((INI4, port))
            finally:
                assert libc.setns(home.fileno(), hipinit.CLONE_NEWNET) == 0

    def send_raw(self, payload):
        self.sock.sendto(payload, (GW4, HIP_PORT))

    def send(self, hip):
        self.send_raw(MARKER + hip)

    def recv_any(self, timeout=10.0):
        """The next datagram from the gateway's port 10500 (raises socket.timeout)."""
        self.sock.settimeout(timeout)
        while True:
            data, src = self.sock.recvfrom(65535)
            if src == (GW4, HIP_PORT):
                return data

    def recv(self, what):
        """The next HIP packet (behind the marker), its HIP checksum 0."""
        try:
            data = self.recv_any()
        except socket.timeout:
            pytest.fail(f"no answer over UDP to the {what}")
        assert data[:4] == MARKER, f"{what}: not HIP behind the marker: {data[:8].hex()}"
        hip = data[4:]
        assert hip[4:6] == b"\0\0", f"{what}: HIP checksum {hip[4:6].hex()} over UDP, not 0"
        return hip

    def close(self):
        self.sock.close()


def nat_modes(pkt):
    p = hipinit.params(pkt)
    assert NAT_TRAVERSAL_MODE in p, "no NAT_TRAVERSAL_MODE"
    return hipinit.u16_list(p[NAT_TRAVERSAL_MODE][1][2:])


def start_gateway(ns, prefix, cfg, stats, logf, workers):
    """gwlib.start_gateway, with one lcore per worker beside the main one
    (on a 2-CPU machine two lcores share a CPU, as test_workers.py does)."""
    if workers == 1:
        return gwlib.start_gateway(ns, prefix, cfg, stats, logf)
    eal = gwlib.eal_args(prefix)
    i = eal.index("-l")
    ncpu = os.cpu_count() or 1
    eal[i:i + 2] = ["--lcores", ",".join(f"{k}@{k % ncpu}" for k in range(workers + 1))]
    with open(logf, "w") as lf:
        return subprocess.Popen(["ip", "netns", "exec", ns, gwlib.hipgw_binary()] + eal +
                                ["--", "--config", str(cfg), "--stats-json", str(stats)],
                                stdout=lf, stderr=subprocess.STDOUT, env=gwlib.child_env(),
                                start_new_session=True)


@pytest.fixture
def netns():
    with hipinit.responder_netns(NS, GW_IF, INI_IF, INI4) as nss:
        yield nss


@pytest.fixture
def gateway(netns, tmp_path, request):
    """A hipgw responder with the initiator as its [peer] (workers: the
    fixture's param, default 1; several: as many af_packet queue pairs):
    yields (prefix, initiator, responder HIT, UdpHip, stats file path)."""
    workers = getattr(request, "param", 1)
    gw_ns, ini_ns = netns
    rkey, _ = gwlib.make_hi(str(tmp_path), "gw")
    ikey, i_hit = gwlib.make_hi(str(tmp_path), "ini")
    ini = hipinit.Initiator(ikey, INI4, GW4)
    r_hit = hipref.pem_hit(rkey)[0]
    cfg, stats, logf = tmp_path / "gw.ini", tmp_path / "stats.json", tmp_path / "gw.log"
    hipinit.responder_config(cfg, rkey, PEER, i_hit, GW_IF, GW4, INI4)
    if workers > 1:
        cfg.write_text(cfg.read_text().replace("workers = 1", f"workers = {workers}").replace(
            f"iface={GW_IF}", f"iface={GW_IF},qpairs={workers}"))
    prefix = f"hgnatt{os.getpid()}"
    net = UdpHip(ini_ns)
    gw = start_gateway(gw_ns, prefix, cfg, stats, logf, workers)
    try:
        gwlib.wait_gateway_running(gw, logf)
        yield prefix, ini, r_hit, net, stats
    finally:
        net.close()
        gwlib.stop_gateway(gw, prefix)
    gwlib.check_gateway_log(gw, logf)


def with_mode(mode):
    return {NAT_TRAVERSAL_MODE: lambda _v: struct.pack("!HH", 0, mode)}


def test_bex_over_udp_then_esp_in_udp(gateway):
    prefix, ini, r_hit, net, _ = gateway
    net.send(ini.i1(r_hit))
    r1_pkt = net.recv("I1")
    r1 = ini.take_r1(r1_pkt, r_hit)           # HIP_SIGNATURE_2 covers NAT_TRAVERSAL_MODE
    assert UDP_ENCAPSULATION in nat_modes(r1_pkt)
    bex = ini.plan(r1)
    net.send(ini.i2(bex, change=with_mode(UDP_ENCAPSULATION)))
    r2 = net.recv("I2")
    assert r2[2] == hipref.R2, f"I2 over UDP: packet type {r2[2]}, not R2"
    ini.take_r2(bex, r2)
    # the gateway's ESP to us goes in UDP on the same ports (RFC 3948)
    spi = struct.pack("!I", bex.spi)
    esp = None
    for _ in range(50):
        gwlib.telemetry(prefix, "/hipgw/hit_ping," + PEER)
        try:
            esp = net.recv_any(timeout=0.2)
            break
        except socket.timeout:
            continue
    assert esp is not None, "no ESP in UDP from the gateway after the BEX"
    assert esp[:4] == spi, f"ESP in UDP on SPI {esp[:4].hex()}, not ours {spi.hex()}"
    assert struct.unpack("!I", esp[4:8])[0] >= 1, "ESP sequence number"
    h = gwlib.telemetry(prefix, "/hipgw/hip")
    assert h["bex_ok"] == 1 and h["nat_udp_rx"] == 2 and h["nat_udp_tx"] >= 2, h


def test_i2_with_a_mode_not_offered(gateway):
    prefix, ini, r_hit, net, _ = gateway
    net.send(ini.i1(r_hit))
    r1 = ini.take_r1(net.recv("I1"), r_hit)
    bex = ini.plan(r1)
    net.send(ini.i2(bex, change=with_mode(ICE_HIP_UDP)))
    with pytest.raises(socket.timeout):
        net.recv_any(timeout=1.0)
    h = gwlib.telemetry(prefix, "/hipgw/hip")
    assert h["drops"]["nat_mode"] == 1 and h["bex_ok"] == 0, h
    # the right one then completes the exchange
    net.send(ini.i2(bex, change=with_mode(UDP_ENCAPSULATION)))
    assert net.recv("I2")[2] == hipref.R2


def test_bad_udp_input_dropped_and_counted(gateway):
    prefix, ini, r_hit, net, _ = gateway
    i1 = ini.i1(r_hit)
    rnd = os.urandom(64 * N_GARBAGE)
    net.send(i1[:20])                               # truncated HIP after the marker
    for x in range(N_GARBAGE):                      # garbage after the marker
        net.send(rnd[64 * x:64 * (x + 1)])
    for _ in range(N_KEEPALIVES):                   # RFC 3948 NAT-keepalives
        net.send_raw(b"\xff")
    net.send_raw(b"\xff\xff")                       # not a keepalive, not HIP, not ESP
    # still answering afterwards
    net.send(i1)
    assert net.recv("I1 after the bad input")[2] == hipref.R1
    h = None
    for _ in range(50):
        h = gwlib.telemetry(prefix, "/hipgw/hip")
        if h["drops"]["malformed"] >= 1 + N_GARBAGE:
            break
        time.sleep(0.1)
    # garbage that happens to be a HIP header of ours is not expected from urandom
    assert h["drops"]["malformed"] == 1 + N_GARBAGE, h
    assert h["nat_udp_rx"] == 2 + N_GARBAGE, h
    w = gwlib.telemetry(prefix, "/hipgw/stats")
    workers = list(w["workers"].values())   # telemetry: {"w0": {...}, ...}
    assert sum(x["udp_keepalive"] for x in workers) == N_KEEPALIVES, workers
    assert sum(x["udp_hip"] for x in workers) == 2 + N_GARBAGE, workers
    assert w["drops"]["udp_bad"] >= 1, w["drops"]


def esp_bytes(sa, seq):
    """ESP (header to ICV) of a tunnel-mode inner IPv4 packet from the
    peer's site on scapy's SA `sa`, sequence number seq."""
    from scapy.layers.inet import ICMP, IP
    inner = IP(src="10.128.0.5", dst="10.2.0.9") / ICMP() / (b"x" * 32)
    pkt = sa.encrypt(inner, seq_num=seq)
    return bytes(pkt[IP].payload)


@pytest.mark.parametrize("gateway", [1, 2], indirect=True, ids=["workers1", "workers2"])
def test_nat_rebinding_needs_the_newest_authenticated_packet(gateway, netns):
    """After the BEX over UDP from NAT_PORT: an authenticated packet from a
    new port that is older than one already seen moves nothing
    (nat_rebind_old), a replay from there is a replay drop; the next newest
    one from there moves the gateway's path (nat_rebinds, udp_rport), and
    its ESP then goes to the new port. With two workers the packets from the
    new port may arrive on the queue of the SA's non-owner: the check runs
    on the owner after the handoff all the same."""
    from scapy.layers.inet import IP
    from scapy.layers.ipsec import SecurityAssociation, ESP as ESP_LAYER
    prefix, ini, r_hit, net, _ = gateway
    _, ini_ns = netns
    net.send(ini.i1(r_hit))
    r1 = ini.take_r1(net.recv("I1"), r_hit)
    bex = ini.plan(r1, esp=13)                         # AES-GCM-16 (RFC 4106)
    net.send(ini.i2(bex, change=with_mode(UDP_ENCAPSULATION)))
    gw_spi = ini.take_r2(bex, net.recv("I2"))[2]
    sa = SecurityAssociation(ESP_LAYER, spi=gw_spi, crypt_algo="AES-GCM",
                             crypt_key=bex.keys["esp_enc_" + bex.out],
                             tunnel_header=IP(src=INI4, dst=GW4))
    for seq in (1, 2, 3):
        net.send_raw(esp_bytes(sa, seq))
    net.send_raw(esp_bytes(sa, 5))
    old_from_new = esp_bytes(sa, 4)                    # authentic, never sent, older than 5
    replay = esp_bytes(sa, 3)
    time.sleep(0.3)
    moved = UdpHip(ini_ns, port=NAT_PORT + 1)          # the NAT's new mapping
    try:
        moved.send_raw(old_from_new)
        moved.send_raw(replay)
        time.sleep(0.5)
        peer = gwlib.telemetry(prefix, "/hipgw/hip_peer," + PEER)
        workers = list(gwlib.telemetry(prefix, "/hipgw/stats")["workers"].values())
        assert peer["udp_rport"] == NAT_PORT and peer["nat_rebinds"] == 0, peer
        assert sum(x["nat_rebind_old"] for x in workers) == 1, workers
        assert sum(x["nat_rebind_posted"] for x in workers) == 0, workers
        moved.send_raw(esp_bytes(sa, 6))               # the newest: the path moves
        for _ in range(50):
            peer = gwlib.telemetry(prefix, "/hipgw/hip_peer," + PEER)
            if peer["udp_rport"] != NAT_PORT:
                break
            time.sleep(0.1)
        assert peer["udp_rport"] == NAT_PORT + 1 and peer["nat_rebinds"] == 1, peer
        h = gwlib.telemetry(prefix, "/hipgw/hip")
        assert h["nat_rebinds"] == 1, h
        st = gwlib.telemetry(prefix, "/hipgw/stats")
        assert sum(x["nat_rebind_posted"] for x in st["workers"].values()) == 1, st["workers"]
        assert st["drops"]["replay"] >= 1, st["drops"]
        esp = None
        for _ in range(50):
            gwlib.telemetry(prefix, "/hipgw/hit_ping," + PEER)
            try:
                esp = moved.recv_any(timeout=0.2)
                break
            except socket.timeout:
                continue
        assert esp is not None and esp[:4] == struct.pack("!I", bex.spi), \
            "no ESP from the gateway to the new port"
    finally:
        moved.close()
