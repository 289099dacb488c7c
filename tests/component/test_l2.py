# SPDX-License-Identifier: BSD-3-Clause
"""L2 mode through the real binary, manually keyed: a [bridge] on the inner
port with `sas =` one out and one in SA. Outbound, frames on the l2 port must
leave as ESP that scapy decrypts to next header 97 and the EtherIP header
30 00 (RFC 3378) before the frame byte for byte; inbound, scapy-encrypted
EtherIP frames must come out on the l2 port exactly; a wrong EtherIP version
is counted (etherip_version) and nothing leaves."""

import os
import random
import zlib

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.layers.ipsec import ESP, SecurityAssociation
from scapy.packet import Raw

import gwlib
from gwlib import SUITE_NAMES, SUITES, check_drops

ETHERIP_NH = 97
ETHERIP_HDR = b"\x30\x00"          # version 3, reserved 0 (RFC 3378)
SITE_A = "02:00:00:00:0a:01"       # a host on our l2 segment
SITE_B = "02:00:00:00:0b:01"       # a host at the remote site


def site_frames():
    """An ARP broadcast, an IPv4 unicast, a VLAN-tagged frame and one to an
    IEEE link-local address (dropped), as bytes."""
    return [
        bytes(Ether(src=SITE_A, dst="ff:ff:ff:ff:ff:ff") /
              ARP(hwsrc=SITE_A, psrc="10.5.0.1", pdst="10.5.0.2")),
        bytes(Ether(src=SITE_A, dst=SITE_B) / IP(src="10.5.0.1", dst="10.5.0.2", ttl=7) /
              UDP(sport=1000, dport=2000) / Raw(b"x" * 100)),
        bytes(Ether(src=SITE_A, dst=SITE_B) / Dot1Q(vlan=42) /
              IP(src="10.5.0.1", dst="10.5.0.2") / UDP() / Raw(b"v" * 33)),
    ]


LINK_LOCAL = bytes(Ether(src=SITE_A, dst="01:80:c2:00:00:0e", type=0x88cc) / Raw(b"\0" * 46))
TO_LOCAL = bytes(Ether(src="02:00:00:00:0a:03", dst="02:00:00:00:0a:02") / Raw(b"l" * 50))


def transport_sa(sa):
    """scapy's SecurityAssociation for sa without a tunnel header: the payload's
    protocol number becomes the ESP next header (here 97), as on our wire."""
    s = sa.suite
    if s.kind == "gcm":
        return SecurityAssociation(ESP, spi=sa.spi, crypt_algo="AES-GCM", crypt_key=sa.key,
                                   crypt_icv_size=16)
    if s.kind == "cbc":
        return SecurityAssociation(ESP, spi=sa.spi, crypt_algo="AES-CBC", crypt_key=sa.key,
                                   auth_algo="SHA2-256-128", auth_key=sa.auth_key)
    return SecurityAssociation(ESP, spi=sa.spi, crypt_algo="NULL",
                               auth_algo="SHA2-256-128", auth_key=sa.auth_key)


def etherip_in(inn, payload, seq):
    """An inbound ESP frame from the peer carrying `payload` with next header 97."""
    pkt = IP(src=inn.remote, dst=inn.local, proto=ETHERIP_NH) / Raw(payload)
    enc = transport_sa(inn).encrypt(pkt, seq_num=seq)
    return Ether(src=gwlib.GW4_MAC, dst=gwlib.WAN_MAC) / IP(bytes(enc))


def run_l2(tmp, suite, lan_in, wan_in, statics=""):
    rng = random.Random(zlib.crc32(("l2-" + suite).encode()))
    out, inn = gwlib.make_sa_pair(rng, suite, 4)
    d = str(tmp)
    cfg = gwlib.write_config(d, [out, inn], lan_extra="mode = l2")
    with open(cfg, "a") as f:
        f.write("\n[bridge site]\nport = lan\nsas = %s, %s\n%s" % (out.name, inn.name, statics))
    r = gwlib.run_hipgw(d, cfg, lan_in, wan_in)
    gwlib.check_clean_run(r)
    return out, inn, r


@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_outbound(tmp_path, suite):
    frames = site_frames()
    out, _, r = run_l2(tmp_path, suite, frames + [LINK_LOCAL, TO_LOCAL], [],
                       statics="static = 02:00:00:00:0a:02 local\n")
    check_drops(r, l2_link_local=1, l2_local=1)
    got = [f for f in r.wan_out if IP in f and f[IP].proto == 50]
    assert len(got) == len(frames), "ESP frames on the outer port: %d, expected %d: %s" % (
        len(got), len(frames), [f.summary() for f in r.wan_out])
    ssa = transport_sa(out)
    for i, (f, want) in enumerate(zip(got, frames)):
        assert f.src.lower() == gwlib.WAN_MAC and f.dst.lower() == gwlib.GW4_MAC, f.summary()
        ip = f[IP]
        assert ip.src == out.local and ip.dst == out.remote, ip.summary()
        esp = ip[ESP]
        assert esp.spi == out.spi and esp.seq == i + 1, (hex(esp.spi), esp.seq)
        dec = ssa.decrypt(IP(bytes(ip)))
        assert dec.proto == ETHERIP_NH, "next header %d, expected 97" % dec.proto
        payload = bytes(dec.payload)
        assert payload[:2] == ETHERIP_HDR, payload[:2].hex()
        assert payload[2:] == want, "frame #%d differs:\n%s\n%s" % (i, payload[2:].hex(),
                                                                    want.hex())
    assert r.sa(out.name)["packets"] == len(frames)


@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_inbound(tmp_path, suite):
    frames = [bytes(Ether(src=SITE_B, dst=SITE_A) / IP(src="10.5.0.2", dst="10.5.0.1") /
                    UDP() / Raw(b"r" * 60))] + site_frames()[:1] + site_frames()[2:]
    rng = random.Random(zlib.crc32(("l2-" + suite).encode()))
    _, inn = gwlib.make_sa_pair(rng, suite, 4)
    wan = [etherip_in(inn, ETHERIP_HDR + fr, i + 1) for i, fr in enumerate(frames)]
    _, _, r = run_l2(tmp_path, suite, [], wan)
    check_drops(r)
    got = [bytes(f) for f in r.lan_out]
    assert got == frames, "frames on the l2 port:\n%s\nexpected:\n%s" % (
        [g.hex() for g in got], [f.hex() for f in frames])
    assert r.sa(inn.name)["packets"] == len(frames)


def test_inbound_bad_etherip(tmp_path):
    suite = "aes128-gcm16"
    fr = site_frames()[1]
    rng = random.Random(zlib.crc32(("l2-" + suite).encode()))
    _, inn = gwlib.make_sa_pair(rng, suite, 4)
    wan = [etherip_in(inn, b"\x40\x00" + fr, 1),      # version 4
           etherip_in(inn, b"\x30\x01" + fr, 2),      # a reserved bit
           etherip_in(inn, ETHERIP_HDR + fr[:10], 3)]  # no whole Ethernet header
    _, _, r = run_l2(tmp_path, suite, [], wan)
    check_drops(r, etherip_version=1, etherip_reserved=1, l2_runt=1)
    assert r.lan_out == [], [f.summary() for f in r.lan_out]
    assert r.sa(inn.name)["packets"] == 0


# --------------------------------------------------------------------------
# A bridge of two remotes: learning, flooding, split horizon (net_pcap runs
# whose results do not depend on the order the gateway reads its two ports in;
# what needs an order is in test_l2_learn.py).

PEER4_B = "198.51.100.2"              # the second remote gateway (via GW4 too)
REMOTE_B_NETS = ("10.3.0.0/16", "fd00:3::/48")


def two_remotes(suite="aes128-gcm16"):
    """SAs [out0, in0, out1, in1]: remote 0 is PEER4, remote 1 PEER4_B (the
    order of the bridge's `sas`: remotes in the order of its out SAs)."""
    rng = random.Random(zlib.crc32(("l2-two-" + suite).encode()))
    out0, in0 = gwlib.make_sa_pair(rng, suite, 4)
    out1, in1 = gwlib.make_sa_pair(rng, suite, 4, prefixes=REMOTE_B_NETS)
    out1.name, in1.name, out1.remote, in1.remote = "ac", "ca", PEER4_B, PEER4_B
    out1.spi, in1.spi = gwlib.SPI_OUT + 1, gwlib.SPI_IN + 1
    return [out0, in0, out1, in1]


def bridge_section(sas, extra=""):
    return "\n[bridge site]\nport = lan\nsas = %s\n%s" % (
        ", ".join(s.name for s in sas), extra)


def run_bridge(tmp, sas, lan_in, wan_in, extra=""):
    d = str(tmp)
    cfg = gwlib.write_config(d, sas, lan_extra="mode = l2")
    with open(cfg, "a") as f:
        f.write(bridge_section(sas, extra))
    r = gwlib.run_hipgw(d, cfg, lan_in, wan_in)
    gwlib.check_clean_run(r)
    return r


def frames_to(out, wan_out):
    """The frames (bytes, EtherIP header checked and cut) that the gateway
    sent through out SA `out`, in order."""
    ssa = transport_sa(out)
    got = []
    for f in wan_out:
        if IP not in f or f[IP].proto != 50 or f[IP].dst != out.remote:
            continue
        assert f[ESP].spi == out.spi, (hex(f[ESP].spi), f.summary())
        dec = ssa.decrypt(IP(bytes(f[IP])))
        assert dec.proto == ETHERIP_NH, dec.proto
        payload = bytes(dec.payload)
        assert payload[:2] == ETHERIP_HDR, payload[:2].hex()
        got.append(payload[2:])
    return got


def frame(src, dst, tag=b"", vlan=None, size=60):
    e = Ether(src=src, dst=dst)
    if vlan is not None:
        e = e / Dot1Q(vlan=vlan)
    return bytes(e / Raw(tag.ljust(size, b".")))


def worker_total(r, key):
    return sum(w[key] for w in r.stats["workers"])


def test_flood_every_remote_once(tmp_path):
    """Broadcast, multicast and unknown unicast from the local segment go to
    every remote exactly once, each through its own SA; a frame to a static
    local MAC goes nowhere (l2_local); a static remote-1 MAC only to remote 1."""
    sas = two_remotes()
    srcs = ["02:00:00:00:0a:%02x" % i for i in range(1, 4)]
    flooded = [frame(srcs[0], "ff:ff:ff:ff:ff:ff", b"bcast"),
               frame(srcs[1], "01:00:5e:00:00:fb", b"mcast"),
               frame(srcs[2], "02:00:00:00:0e:01", b"unknown"),
               frame(srcs[0], "33:33:00:00:00:01", b"mcast6", vlan=7)]
    to_b = frame(srcs[1], "02:00:00:00:0b:99", b"static-b")
    to_local = frame(srcs[2], "02:00:00:00:0a:99", b"static-local")
    r = run_bridge(tmp_path, sas, flooded + [to_b, to_local], [],
                   "static = 02:00:00:00:0a:99 local, 02:00:00:00:0b:99 ac\n")
    check_drops(r, l2_local=1)
    assert frames_to(sas[0], r.wan_out) == flooded
    assert frames_to(sas[2], r.wan_out) == flooded + [to_b]
    assert len(r.wan_out) == 2 * len(flooded) + 1, [f.summary() for f in r.wan_out]
    assert worker_total(r, "l2_flooded") == len(flooded)
    assert r.sa("ab")["packets"] == len(flooded) and r.sa("ac")["packets"] == len(flooded) + 1
    # every source asked once (the filter): three untagged, srcs[0] on VLAN 7 too
    assert worker_total(r, "l2_learn_sent") == len(srcs) + 1
    assert worker_total(r, "l2_learn_ring_full") == 0


def test_split_horizon(tmp_path):
    """A broadcast (and an unknown unicast) from remote 0 reaches the local
    port only, never remote 1; one from remote 1 never remote 0."""
    sas = two_remotes()
    out0, in0, out1, in1 = sas
    f0 = [frame("02:00:00:00:0b:01", "ff:ff:ff:ff:ff:ff", b"from-0"),
          frame("02:00:00:00:0b:01", "02:00:00:00:0e:02", b"unknown-from-0")]
    f1 = [frame("02:00:00:00:0c:01", "ff:ff:ff:ff:ff:ff", b"from-1")]
    wan = [etherip_in(in0, ETHERIP_HDR + f, i + 1) for i, f in enumerate(f0)]
    wan += [etherip_in(in1, ETHERIP_HDR + f, i + 1) for i, f in enumerate(f1)]
    r = run_bridge(tmp_path, sas, [], wan)
    check_drops(r)
    assert sorted(bytes(f) for f in r.lan_out) == sorted(f0 + f1)
    assert [f.summary() for f in r.wan_out if IP in f and f[IP].proto == 50] == []
    assert r.sa("ab")["packets"] == 0 and r.sa("ac")["packets"] == 0
    assert worker_total(r, "l2_flooded") == 0
    assert worker_total(r, "l2_learn_sent") == 2


def test_group_source_dropped(tmp_path):
    """A multicast or broadcast source MAC is bad input, from the segment and
    from a remote: dropped and counted as l2_group_source, never learned; the
    good frames around it pass."""
    sas = two_remotes()
    in0 = sas[1]
    good = [frame("02:00:00:00:0a:01", "ff:ff:ff:ff:ff:ff", b"good-%d" % i) for i in range(2)]
    bad = [frame("01:00:5e:00:00:01", "ff:ff:ff:ff:ff:ff", b"bad-m"),
           frame("ff:ff:ff:ff:ff:ff", "02:00:00:00:0e:01", b"bad-b")]
    lan = [good[0], bad[0], bad[1], good[1]]
    good_in = frame("02:00:00:00:0b:01", "02:00:00:00:0a:01", b"in-good")
    bad_in = frame("03:00:00:00:0b:01", "02:00:00:00:0a:01", b"in-bad")
    wan = [etherip_in(in0, ETHERIP_HDR + f, i + 1) for i, f in enumerate([bad_in, good_in])]
    r = run_bridge(tmp_path, sas, lan, wan)
    check_drops(r, l2_group_source=3)
    assert frames_to(sas[0], r.wan_out) == good and frames_to(sas[2], r.wan_out) == good
    assert [bytes(f) for f in r.lan_out] == [good_in]
    assert r.sa(in0.name)["packets"] == 1
    assert worker_total(r, "l2_learn_sent") == 2      # 0a:01 and 0b:01 only


def test_flood_rate(tmp_path):
    """flood-rate = 5 with one worker: of 40 broadcasts a burst of 5 (and what
    the bucket earns while the run lasts) is flooded, each to both remotes, the
    rest dropped as l2_flood_rate; unicast to a static remote MAC is not
    limited."""
    sas = two_remotes()
    n = 40
    bc = [frame("02:00:00:00:0a:01", "ff:ff:ff:ff:ff:ff", b"b%d" % i) for i in range(n)]
    uc = [frame("02:00:00:00:0a:01", "02:00:00:00:0b:99", b"u%d" % i) for i in range(10)]
    r = run_bridge(tmp_path, sas, bc + uc, [],
                   "flood-rate = 5\nstatic = 02:00:00:00:0b:99 ac\n")
    flooded = worker_total(r, "l2_flooded")
    limited = r.drops["l2_flood_rate"]
    assert flooded >= 5 and limited > 0 and flooded + limited == n, (flooded, limited)
    check_drops(r, l2_flood_rate=limited)
    got0 = frames_to(sas[0], r.wan_out)
    assert got0 == [f for f in bc if f in got0] and len(got0) == flooded
    assert frames_to(sas[2], r.wan_out) == [f for f in bc + uc if f in got0 or f in uc]


def test_workers2(tmp_path, monkeypatch):
    """workers = 2, frames of the same source MACs on both queues: every
    broadcast reaches each remote exactly once, inbound frames from both
    remotes reach the port once, and per-lcore counters add up."""
    import test_workers
    sas = two_remotes()
    out0, in0, out1, in1 = sas
    bc = [frame("02:00:00:00:0a:%02x" % (i % 3), "ff:ff:ff:ff:ff:ff", b"w%d" % i)
          for i in range(60)]
    inb = [frame("02:00:00:00:0b:01", "02:00:00:00:0a:01", b"i%d" % i) for i in range(20)]
    wan = [etherip_in(in0 if i % 2 else in1, ETHERIP_HDR + f, i // 2 + 1)
           for i, f in enumerate(inb)]
    orig = test_workers.write_config

    def l2_config(d, s):
        path = orig(d, s)
        with open(path) as f:
            text = f.read().replace("role = inner", "role = inner\nmode = l2", 1)
        with open(path, "w") as f:
            f.write(text + bridge_section(s))
        return path

    monkeypatch.setattr(test_workers, "write_config", l2_config)
    _, _, st, outs = test_workers.run2(str(tmp_path), sas, lan_in=(bc[0::2], bc[1::2]),
                                       wan_in=(wan[0::2], wan[1::2]))
    check_drops(test_workers.Drops(st))
    assert len(st["workers"]) == 2
    wan_out = outs["wan"][0] + outs["wan"][1]
    for out in (out0, out1):
        got = frames_to(out, wan_out)
        assert sorted(got) == sorted(bc), "%s: %d frames of %d" % (out.name, len(got), len(bc))
    lan_out = [bytes(f) for q in outs["lan"] for f in q]
    assert sorted(lan_out) == sorted(inb)
    assert test_workers.worker_sum(st, "l2_flooded") == len(bc)
    assert all(w["l2_flooded"] > 0 for w in st["workers"]), st["workers"]
    assert test_workers.worker_sum(st, "l2_learn_ring_full") == 0
