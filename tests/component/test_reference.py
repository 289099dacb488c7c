# SPDX-License-Identifier: BSD-3-Clause
"""Self-checks of the test tooling, no hipgw needed: scapy's ESP and the reference
ESP of gwlib agree with each other, and the checkers accept a correct gateway
simulated in Python and reject wrong ones."""

import struct

import pytest
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.layers.ipsec import ESP

import gwlib
from gwlib import SUITE_NAMES, SUITES


def sim_gateway_outbound(sa, inners, first_seq=1, esn_hi=0):
    """What a correct gateway would send for these inner packets (ref ESP)."""
    frames = []
    for i, b in enumerate(inners):
        inner = gwlib.routed(b)
        seq = first_seq + i
        esp = gwlib.ref_encrypt(sa, inner, (esn_hi << 32) | seq)
        if sa.outer_family == 4:
            hdr = IP(src=sa.local, dst=sa.remote, proto=50, tos=gwlib.inner_tos(inner))
            mac = gwlib.GW4_MAC
        else:
            hdr = IPv6(src=sa.local, dst=sa.remote, nh=50, tc=gwlib.inner_tos(inner))
            mac = gwlib.PEER6_MAC
        f = Ether(src=gwlib.WAN_MAC, dst=mac) / hdr / ESP(bytes(esp))
        frames.append(Ether(bytes(f)))
    return frames


@pytest.mark.parametrize("outer", [4, 6])
@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_scapy_and_reference_agree(rng, suite, outer):
    out, inn = gwlib.make_sa_pair(rng, suite, outer)
    inners = gwlib.mixed_traffic(rng, 30, gwlib.max_inner(SUITES[suite], outer),
                                 {4: "10.2.0.0/16", 6: "fd00:2::/48"},
                                 {4: gwlib.HOST4, 6: gwlib.HOST6})
    for i, b in enumerate(inners):
        seq = i + 1
        # scapy encrypts, reference decrypts
        f = gwlib.esp_frame_scapy(inn, b, seq, iv=gwlib.scapy_iv(inn, rng))
        ip = gwlib.ip_layer(f)
        raw_ip = bytes(ip)
        esp = raw_ip[20:] if outer == 4 else raw_ip[40:]
        ref = gwlib.ref_decrypt(inn, esp)
        assert ref.payload == b and ref.seq == seq
        assert ref.padding == gwlib.default_padding(SUITES[suite], len(b))
        assert len(raw_ip) == len(b) + gwlib.esp_overhead(SUITES[suite], outer, len(b))
        # reference encrypts, scapy decrypts
        f2 = gwlib.esp_frame_ref(inn, b, seq)
        ip2 = gwlib.ip_layer(Ether(bytes(f2)))
        got = inn.scapy().decrypt(ip2.__class__(bytes(ip2)))
        assert bytes(got) == b
        assert len(bytes(ip2)) == len(raw_ip)


@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_reference_detects_tampering(rng, suite):
    out, inn = gwlib.make_sa_pair(rng, suite, 4)
    b = gwlib.inner_packet(rng, 4, "10.2.0.5", gwlib.HOST4, 200)
    esp = bytearray(gwlib.ref_encrypt(inn, b, 7))
    esp[30] ^= 0x01
    with pytest.raises(gwlib.RefAuthError):
        gwlib.ref_decrypt(inn, bytes(esp))
    esp = gwlib.ref_encrypt(inn, b, 7)
    with pytest.raises(gwlib.RefAuthError):
        gwlib.ref_decrypt(inn, esp[:-4])


@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes128-cbc-sha256"])
def test_crafted_trailers_have_valid_icv(rng, suite):
    """Bad padding with a valid ICV: scapy verifies and decrypts it (it does not
    check padding), the reference ESP shows the crafted trailer."""
    s = SUITES[suite]
    out, inn = gwlib.make_sa_pair(rng, suite, 4)
    b = gwlib.inner_packet(rng, 4, "10.2.0.5", gwlib.HOST4, 100)
    pad = gwlib.default_padding(s, len(b))
    n = len(pad) + s.align
    bad = bytes(n)   # zeros, not 1, 2, 3...
    f = gwlib.esp_frame_ref(inn, b, 3, padding=bad)
    ip = gwlib.ip_layer(Ether(bytes(f)))
    inn.scapy().decrypt(ip.__class__(bytes(ip)))           # ICV fine
    esp = bytes(ip)[20:]
    r = gwlib.ref_decrypt(inn, esp)
    assert r.padding == bad and r.payload == b
    # pad length larger than the whole payload
    f = gwlib.esp_frame_ref(inn, b, 4, padlen=255)
    ip = gwlib.ip_layer(Ether(bytes(f)))
    inn.scapy().decrypt(ip.__class__(bytes(ip)))           # ICV fine
    r = gwlib.ref_decrypt(inn, bytes(ip)[20:])
    assert r.padlen == 255 and r.padlen > len(b)


def test_esn_gcm_reference_matches_scapy(rng):
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4, esn=True)
    b = gwlib.inner_packet(rng, 6, "fd00:2::5", gwlib.HOST6, 300)
    for hi in (0, 1, 0xfffffffe):
        seq = (hi << 32) | 5
        f = gwlib.esp_frame_scapy(inn, b, seq, iv=gwlib.scapy_iv(inn, rng))
        ip = gwlib.ip_layer(f)
        r = gwlib.ref_decrypt(inn, bytes(ip)[20:], esn_hi=hi)
        assert r.payload == b
        # the high bits matter
        with pytest.raises(gwlib.RefAuthError):
            gwlib.ref_decrypt(inn, bytes(ip)[20:], esn_hi=hi + 1)
        f2 = gwlib.esp_frame_ref(inn, b, seq)
        ip2 = gwlib.ip_layer(Ether(bytes(f2)))
        got = inn.scapy().decrypt(IP(bytes(ip2)), esn_en=True, esn=hi)
        assert bytes(got) == b
    # without ESN, scapy cannot verify it
    inn.esn = False
    ssa = inn.scapy()
    with pytest.raises(Exception):
        ssa.decrypt(IP(bytes(ip2)))


def test_esn_hmac_reference(rng):
    """scapy leaves the high sequence bits out of an ESP HMAC (RFC 4303 2.2.1
    wants them in): only the reference ESP can do ESN with HMAC. With the high
    bits zero it must still differ from the non-ESN ICV."""
    out, inn = gwlib.make_sa_pair(rng, "aes128-cbc-sha256", 4, esn=True)
    b = gwlib.inner_packet(rng, 4, "10.2.0.5", gwlib.HOST4, 300)
    esp = gwlib.ref_encrypt(inn, b, 9, iv=bytes(16))
    assert gwlib.ref_decrypt(inn, esp, esn_hi=0).payload == b
    inn.esn = False
    with pytest.raises(gwlib.RefAuthError):
        gwlib.ref_decrypt(inn, esp)
    esp2 = gwlib.ref_encrypt(inn, b, 9, iv=bytes(16))
    assert esp2[:-16] == esp[:-16] and esp2[-16:] != esp[-16:]


@pytest.mark.parametrize("outer", [4, 6])
@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_outbound_checker_accepts_correct_gateway(rng, suite, outer):
    out, inn = gwlib.make_sa_pair(rng, suite, outer)
    inners = gwlib.mixed_traffic(rng, 40, gwlib.max_inner(SUITES[suite], outer),
                                 {4: "10.1.0.0/24", 6: "fd00:1::/64"},
                                 {4: "10.2.0.0/16", 6: "fd00:2::/48"})
    frames = sim_gateway_outbound(out, inners)
    dec = gwlib.decrypt_outbound(out, frames)
    assert [d.seq for d in dec] == list(range(1, len(inners) + 1))
    assert gwlib.match_forwarded(inners, [d.inner for d in dec]) == []
    # and rejects: TTL decremented twice, or not at all
    assert gwlib.match_forwarded(inners, [gwlib.routed(d.inner) for d in dec])
    assert gwlib.match_forwarded(inners, list(inners))


def test_outbound_checker_rejects_wrong_key_and_padding(rng):
    out, inn = gwlib.make_sa_pair(rng, "aes128-cbc-sha256", 4)
    b = gwlib.inner_packet(rng, 4, "10.1.0.2", "10.2.0.9", 100)
    frames = sim_gateway_outbound(out, [b])
    other = gwlib.SA(**{**out.__dict__, "auth_key": bytes(32)})
    with pytest.raises(AssertionError):
        gwlib.decrypt_outbound(other, frames)
    # padding with zeros instead of 1, 2, 3...
    esp = gwlib.ref_encrypt(out, b, 1, padding=bytes(len(gwlib.default_padding(out.suite, 100))))
    f = Ether(src=gwlib.WAN_MAC, dst=gwlib.GW4_MAC) / IP(src=out.local, dst=out.remote, proto=50) / ESP(esp)
    with pytest.raises(AssertionError, match="padding"):
        gwlib.decrypt_outbound(out, [Ether(bytes(f))])


def test_max_inner():
    g = SUITES["aes128-gcm16"]
    c = SUITES["aes128-cbc-sha256"]
    assert gwlib.max_inner(g, 4) == 1446
    assert gwlib.max_inner(c, 4) == 1438
    assert gwlib.max_inner(g, 6) == 1426
    assert gwlib.max_inner(c, 6) == 1406   # 80 + 1408
    assert gwlib.max_inner(SUITES["null-sha256"], 4) == 1454
