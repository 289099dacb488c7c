# SPDX-License-Identifier: BSD-3-Clause
"""The control lcore's own TX queue (lib/runtime/gw_runtime.c ctrl_txq_ok /
port_setup, lib/ctrl/gw_ctrl.c ctrl_tx).

With `workers = 1` and two tx_pcap files on a net_pcap port, the port has a
TX queue to spare: queue 0 (first tx pcap) is the worker's, queue 1 (second
tx pcap) the control lcore's. Then the gateway's answers to ARP requests,
ICMP/ICMPv6 echo requests and neighbour solicitations for its own addresses
come out of the second file only, while ESP (WAN) and decrypted inner packets
(LAN) still leave by the worker's queue, the first file.

With one tx_pcap per port (every other component test) there is no spare
queue: the same answers come out through worker 0's queue, the only file."""

import os

from scapy.layers.inet import IP, ICMP
from scapy.layers.inet6 import (IPv6, ICMPv6EchoRequest, ICMPv6EchoReply, ICMPv6ND_NS,
                                ICMPv6ND_NA, ICMPv6NDOptSrcLLAddr, ICMPv6NDOptDstLLAddr)
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

import gwlib

N_DATA = 40          # inner packets each way
ECHO_ID, ECHO_SEQ = 0x4321, 7
SOLICITED_NODE = "ff02::1:ff00:1"          # of fd00:1::1 (and 2001:db8:1::1)
SOLICITED_MAC = "33:33:ff:00:00:01"


def two_tx_pcaps(path):
    """Give both ports of gwlib's config a second tx pcap (ctrl queue 1)."""
    with open(path) as f:
        text = f.read()
    assert "workers = 1" in text
    for port, idx in (("lan", 0), ("wan", 1)):
        d = os.path.dirname(path)
        old = "device = net_pcap%d,rx_pcap=%s/%s_in.pcap,tx_pcap=%s/%s_out.pcap" % (
            idx, d, port, d, port)
        assert old in text
        # relative to hipgw's working directory (the run dir): the value stays short
        new = "device = net_pcap%d,rx_pcap=%s_in.pcap,tx_pcap=%s_out.pcap,tx_pcap=%s_ctrl.pcap" % (
            idx, port, port, port)
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)


def lan_requests():
    """ARP, ICMP echo, NS and ICMPv6 echo for the gateway's LAN addresses."""
    return [
        Ether(src=gwlib.HOST_MAC, dst="ff:ff:ff:ff:ff:ff") /
        ARP(op=1, hwsrc=gwlib.HOST_MAC, psrc=gwlib.HOST4, pdst=gwlib.LAN4),
        Ether(src=gwlib.HOST_MAC, dst=gwlib.LAN_MAC) /
        IP(src=gwlib.HOST4, dst=gwlib.LAN4) / ICMP(type=8, id=ECHO_ID, seq=ECHO_SEQ) /
        Raw(b"ctrl-txq-echo4"),
        Ether(src=gwlib.HOST_MAC, dst=SOLICITED_MAC) /
        IPv6(src=gwlib.HOST6, dst=SOLICITED_NODE, hlim=255) / ICMPv6ND_NS(tgt=gwlib.LAN6) /
        ICMPv6NDOptSrcLLAddr(lladdr=gwlib.HOST_MAC),
        Ether(src=gwlib.HOST_MAC, dst=gwlib.LAN_MAC) /
        IPv6(src=gwlib.HOST6, dst=gwlib.LAN6) /
        ICMPv6EchoRequest(id=ECHO_ID, seq=ECHO_SEQ, data=b"ctrl-txq-echo6"),
    ]


def wan_requests():
    return [Ether(src=gwlib.GW4_MAC, dst="ff:ff:ff:ff:ff:ff") /
            ARP(op=1, hwsrc=gwlib.GW4_MAC, psrc=gwlib.GW4, pdst=gwlib.WAN4)]


def reply_kind(f, port):
    """'arp' / 'echo4' / 'na' / 'echo6' when frame f is the gateway's answer on
    `port` to one of the requests above (checked field by field), else None."""
    mine, peer_mac, mine4, peer4 = {
        "lan": (gwlib.LAN_MAC, gwlib.HOST_MAC, gwlib.LAN4, gwlib.HOST4),
        "wan": (gwlib.WAN_MAC, gwlib.GW4_MAC, gwlib.WAN4, gwlib.GW4)}[port]
    if f.src.lower() != mine or f.dst.lower() != peer_mac:
        return None
    if ARP in f:
        a = f[ARP]
        if a.op == 2 and a.hwsrc.lower() == mine and a.psrc == mine4 and \
                a.pdst == peer4 and a.hwdst.lower() == peer_mac:
            return "arp"
        return None
    if port != "lan":
        return None
    if IP in f and ICMP in f:
        i = f[ICMP]
        if f[IP].src == gwlib.LAN4 and f[IP].dst == gwlib.HOST4 and i.type == 0 and \
                i.id == ECHO_ID and i.seq == ECHO_SEQ and bytes(i.payload) == b"ctrl-txq-echo4":
            return "echo4"
        return None
    if IPv6 in f and f[IPv6].src == gwlib.LAN6 and f[IPv6].dst == gwlib.HOST6:
        if ICMPv6ND_NA in f:
            na = f[ICMPv6ND_NA]
            if na.tgt == gwlib.LAN6 and na.S == 1 and ICMPv6NDOptDstLLAddr in f and \
                    f[ICMPv6NDOptDstLLAddr].lladdr.lower() == gwlib.LAN_MAC:
                return "na"
        elif ICMPv6EchoReply in f:
            e = f[ICMPv6EchoReply]
            if e.id == ECHO_ID and e.seq == ECHO_SEQ and e.data == b"ctrl-txq-echo6":
                return "echo6"
    return None


def kinds(frames, port):
    return sorted(k for k in (reply_kind(f, port) for f in frames) if k is not None)


WANT = {"lan": ["arp", "echo4", "echo6", "na"], "wan": ["arp"]}


def traffic(rng):
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16")
    sent = gwlib.mixed_traffic(rng, N_DATA, 1000, {4: "10.1.0.0/24", 6: "fd00:1::/64"},
                               {4: "10.2.0.0/16", 6: "fd00:2::/48"})
    inner = gwlib.mixed_traffic(rng, N_DATA, 1000, {4: "10.2.0.0/16", 6: "fd00:2::/48"},
                                {4: gwlib.HOST4, 6: gwlib.HOST6})
    esp = [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
           for i, b in enumerate(inner)]
    # requests first, between and last: the answers race the data path
    lan_in = lan_requests() + [gwlib.lan_frame(b) for b in sent] + lan_requests()[:1]
    wan_in = wan_requests() + esp + wan_requests()
    return out, inn, sent, inner, lan_in, wan_in


def check_data(out, sent, inner, wan_frames, lan_frames):
    """All ESP out and all inner packets in, byte for byte, in these frames."""
    esp = [f for f in wan_frames if IP in f and f[IP].proto == 50]
    dec = gwlib.decrypt_outbound(out, esp)
    assert sorted(x.seq for x in dec) == list(range(1, len(sent) + 1))
    problems = gwlib.match_forwarded(sent, [x.inner for x in dec], what="outbound packet")
    got = [gwlib.inner_bytes_of(f) for f in lan_frames
           if (IP in f and f[IP].dst == gwlib.HOST4 and f[IP].src != gwlib.LAN4) or
           (IPv6 in f and f[IPv6].dst == gwlib.HOST6 and f[IPv6].src != gwlib.LAN6)]
    problems += gwlib.match_forwarded(inner, got, what="inbound packet")
    assert not problems, "\n".join(problems[:10])


def test_control_replies_on_own_queue(gw, rng):
    """Two tx pcaps per port: answers in the second (control queue) only."""
    gw.require()
    out, inn, sent, inner, lan_in, wan_in = traffic(rng)
    d = gw.dir()
    cfg = gwlib.write_config(d, [out, inn])
    two_tx_pcaps(cfg)
    r = gwlib.run_hipgw(d, cfg, lan_in, wan_in)
    gwlib.check_clean_run(r)
    ctrl = {p: gwlib.read_pcap("%s/%s_ctrl.pcap" % (d, p)) for p in ("lan", "wan")}
    assert all(v is not None for v in ctrl.values()), \
        "second tx pcap missing (no control TX queue?): " + r.describe()
    worker = {"lan": r.lan_out, "wan": r.wan_out}
    for p in ("lan", "wan"):
        # the request sent twice (ARP) is answered twice
        want = sorted(WANT[p] + ["arp"])
        assert kinds(ctrl[p], p) == want, \
            "%s: answers on the control queue %s, expected %s; worker queue has %s" % (
                p, kinds(ctrl[p], p), want, kinds(worker[p], p))
        assert len(ctrl[p]) == len(want), "%s control queue: unexpected frames %s" % (
            p, [f.summary() for f in ctrl[p] if reply_kind(f, p) is None])
        assert kinds(worker[p], p) == [], "%s: answers %s on the worker's queue" % (
            p, kinds(worker[p], p))
        assert not [f for f in worker[p] if gwlib.is_control(f)], \
            "%s: ARP/ND frames on the worker's queue" % p
        st = r.port(p)
        assert st["tx"] == len(worker[p]) + len(ctrl[p]), (p, st, len(worker[p]), len(ctrl[p]))
        assert st["oerrors"] == 0, st
    check_data(out, sent, inner, r.wan_out, r.lan_out)
    assert len(r.wan_out) == N_DATA and len(r.lan_out) == N_DATA, \
        (len(r.wan_out), len(r.lan_out))
    gwlib.check_drops(r)
    # the worker counts only what it sent itself
    assert r.stats["workers"][0]["tx"] == 2 * N_DATA, r.stats["workers"]


def test_control_replies_through_worker(gw, rng):
    """One tx pcap per port (no spare queue): the answers come out through
    worker 0's queue, beside the data."""
    out, inn, sent, inner, lan_in, wan_in = traffic(rng)
    r = gw.run([out, inn], lan_in, wan_in)
    for p, frames in (("lan", r.lan_out), ("wan", r.wan_out)):
        want = sorted(WANT[p] + ["arp"])
        assert kinds(frames, p) == want, (p, kinds(frames, p), want)
    gwlib.check_ports(r, lan_rx=len(lan_in), wan_rx=len(wan_in))
    check_data(out, sent, inner, r.wan_out, r.lan_out)
    assert len(r.wan_out) == N_DATA + 2 and len(r.lan_out) == N_DATA + 5
    gwlib.check_drops(r)
    assert r.stats["workers"][0]["tx"] == 2 * N_DATA + 7, r.stats["workers"]
