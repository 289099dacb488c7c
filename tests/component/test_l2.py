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
