# SPDX-License-Identifier: BSD-3-Clause
"""The Base Exchange test vectors (tests/vectors/bex-*.json, docs/design.md
"Test vectors") checked independently of our C code: hashlib, hmac and
python3-cryptography only, with hipref.py (the project's independent Python
reference) for ORCHIDv2, HKDF and the RFC 3526 prime.

For every vector file:
  - every packet: fixed header fields (next header 59, Header Length, type,
    version 2, controls, HITs), the checksum over the IPv4 pseudo-header, a
    strict TLV walk (lengths, zero padding, ascending types, nothing left
    over) and the parameter list RFC 7401 5.3 gives each packet;
  - HITs = ORCHIDv2(Host Identity) (RFC 7343), the HI = the key file's public
    key, R1's HOST_ID = the responder's HI;
  - the puzzle (RFC 7401 6.3): RHASH(I | HIT-I | HIT-R | J) has K low zero bits;
  - DH: public values from the private values (cryptography ECDH, pow() for
    MODP) = DIFFIE_HELLMAN of R1 and I2; Kij computed from each side = "kij";
  - KEYMAT = HKDF(RHASH, salt I | J, IKM Kij, info sort(HITs)) (RFC 7401 6.5),
    also with cryptography's HKDF; the HIP and ESP keys drawn from it in RFC
    7401 / RFC 7402 order; ESP SPIs = ESP_INFO NEW SPI of I2 / R2;
  - ENCRYPTED of I2 decrypts to the initiator's HOST_ID;
  - HIP_MAC (I2) and HIP_MAC_2 (R2, with the responder's HOST_ID inserted)
    with the sender's outgoing key, HIP_SIGNATURE_2 (R1; receiver HIT, Opaque
    and #I zeroed) and HIP_SIGNATURE (I2, R2) by RFC 7401 6.4 coverage.
"""

import glob
import hashlib
import hmac
import json
import os
import struct

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

import hipref
from hipref import (I1, R1, I2, R2, ESP_INFO, R1_COUNTER, PUZZLE, SOLUTION, DH_GROUP_LIST,
                    DIFFIE_HELLMAN, HIP_CIPHER, ENCRYPTED, HOST_ID, HIT_SUITE_LIST,
                    TRANSPORT_FORMAT_LIST, ESP_TRANSFORM, HIP_MAC, HIP_MAC_2, HIP_SIGNATURE_2,
                    HIP_SIGNATURE)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTORS = sorted(glob.glob(os.path.join(REPO, "tests", "vectors", "bex-*.json")))

# RFC 7401 5.3.1-5.3.4 (and RFC 7402 5.1 for the ESP parameters): what each
# packet carries, in type order, for this exchange (no ECHO, cipher not NULL)
LAYOUT = {
    I1: [DH_GROUP_LIST],
    R1: [R1_COUNTER, PUZZLE, DH_GROUP_LIST, DIFFIE_HELLMAN, HIP_CIPHER, HOST_ID, HIT_SUITE_LIST,
         TRANSPORT_FORMAT_LIST, ESP_TRANSFORM, HIP_SIGNATURE_2],
    I2: [ESP_INFO, R1_COUNTER, SOLUTION, DIFFIE_HELLMAN, HIP_CIPHER, ENCRYPTED,
         TRANSPORT_FORMAT_LIST, ESP_TRANSFORM, HIP_MAC, HIP_SIGNATURE],
    R2: [ESP_INFO, HIP_MAC_2, HIP_SIGNATURE],
}
TYPE_NAMES = {"I1": I1, "R1": R1, "I2": I2, "R2": R2}


# ------------------------------------------------------------ helpers

def tlvs(pkt):
    """Strict walk of a HIP packet's parameters (RFC 7401 5.2.1): [(offset,
    type, value, raw bytes with padding)]; fails on any layout error."""
    end = (pkt[1] + 1) * 8
    assert end == len(pkt)
    off, out, last = 40, [], -1
    while off < end:
        assert off + 4 <= end, "TLV header runs past the packet"
        t, ln = struct.unpack("!HH", pkt[off:off + 4])
        total = (4 + ln + 7) // 8 * 8             # = 11 + Length - (Length + 3) % 8
        assert total == 11 + ln - (ln + 3) % 8
        assert ln > 0 and off + total <= end, "parameter %d runs past the packet" % t
        assert pkt[off + 4 + ln:off + total] == bytes(total - 4 - ln), "padding of %d not zero" % t
        assert t > last, "parameter %d out of order" % t
        out.append((off, t, pkt[off + 4:off + 4 + ln], pkt[off:off + total]))
        last, off = t, off + total
    return out


def par(pkt, t):
    found = [p for p in tlvs(pkt) if p[1] == t]
    assert len(found) == 1, "parameter %d" % t
    return found[0]


def v4(a):
    return bytes(int(x) for x in a.split("."))


def hexb(s):
    return bytes.fromhex(s)


# ------------------------------------------------------------ fixtures

@pytest.fixture(scope="module", params=[os.path.basename(p) for p in VECTORS])
def vec(request):
    with open(os.path.join(REPO, "tests", "vectors", request.param)) as f:
        v = json.load(f)
    pk = {}
    for p in v["packets"]:
        b = hexb(p["hex"])
        assert len(b) == p["length"]
        pk[TYPE_NAMES[p["type"]]] = b
    v["_pkt"] = pk
    v["_hit_i"] = hexb(v["initiator"]["hit_hex"])
    v["_hit_r"] = hexb(v["responder"]["hit_hex"])
    v["_suite"] = v["suites"]["hit_suite"]
    v["_rl"] = hipref.rhash_len(v["_suite"])
    return v


def test_vector_set_complete():
    """One file per supported HI / DH pair (3 x 3) with AES-GCM, and the
    AES-128-CBC-SHA256 one."""
    names = sorted(os.path.basename(p) for p in VECTORS)
    pairs = ["bex-%s-%s-aes-gcm16.json" % (hi, dh)
             for hi in ("ecdsa-p256", "ecdsa-p384", "rsa3072")
             for dh in ("nist-p256", "nist-p384", "modp3072")]
    assert names == sorted(pairs + ["bex-ecdsa-p384-modp3072-aes128-cbc-sha256.json"])
    directions = set()
    for p in VECTORS:
        with open(p) as f:
            directions.add(json.load(f)["initiator_hit_greater"])
    assert directions == {True, False}       # both key directions occur


# ------------------------------------------------------------ packets

def test_headers_and_checksums(vec):
    hi, hr = vec["_hit_i"], vec["_hit_r"]
    addr = {"initiator": v4(vec["initiator"]["address"]), "responder": v4(vec["responder"]["address"])}
    assert [p["type"] for p in vec["packets"]] == ["I1", "R1", "I2", "R2"]
    for p in vec["packets"]:
        b, t = hexb(p["hex"]), TYPE_NAMES[p["type"]]
        frm = p["from"]
        to = "responder" if frm == "initiator" else "initiator"
        assert frm == ("initiator" if t in (I1, I2) else "responder")
        assert b[0] == 59                              # next header: none
        assert (b[1] + 1) * 8 == len(b) and len(b) <= 2048
        assert b[2] == t                               # fixed bit 0, packet type
        assert b[3] == 0x21                            # version 2, RES 0, fixed 1
        assert b[6:8] == b"\x00\x00"                   # controls: no A bit
        snd, rcv = (hi, hr) if frm == "initiator" else (hr, hi)
        assert b[8:24] == snd and b[24:40] == rcv
        # RFC 1071 over the IPv4 pseudo-header and the whole packet
        pseudo = addr[frm] + addr[to] + bytes([0, 139]) + struct.pack("!H", len(b))
        assert hipref.inet_cksum(pseudo + b) == 0xffff, "%s checksum" % p["type"]
        # the parameters RFC 7401 5.3 lists, in type order
        assert [x[1] for x in tlvs(b)] == LAYOUT[t], p["type"]


def test_negotiated_lists(vec):
    pk, off = vec["_pkt"], vec["offered"]
    s = vec["suites"]
    for t in (I1, R1):
        assert list(par(pk[t], DH_GROUP_LIST)[2]) == off["dh_groups"]
    assert s["dh_group"] == off["dh_groups"][0]
    r1c = par(pk[R1], HIP_CIPHER)[2]
    assert list(struct.unpack("!%dH" % (len(r1c) // 2), r1c)) == off["hip_ciphers"]
    assert par(pk[I2], HIP_CIPHER)[2] == struct.pack("!H", s["hip_cipher"]) == struct.pack("!H", 2)
    r1e = par(pk[R1], ESP_TRANSFORM)[2]
    assert r1e[:2] == b"\x00\x00"
    assert list(struct.unpack("!%dH" % (len(r1e) // 2 - 1), r1e[2:])) == off["esp_transforms"]
    assert par(pk[I2], ESP_TRANSFORM)[2] == struct.pack("!HH", 0, s["esp_transform"])
    for t in (R1, I2):
        assert par(pk[t], TRANSPORT_FORMAT_LIST)[2] == struct.pack("!H", ESP_TRANSFORM)
    assert bytes([vec["_suite"] << 4]) in par(pk[R1], HIT_SUITE_LIST)[2]
    # R1_COUNTER echoed in I2
    assert par(pk[I2], R1_COUNTER)[2] == par(pk[R1], R1_COUNTER)[2]
    assert par(pk[R1], R1_COUNTER)[2] == bytes(4) + struct.pack("!Q", vec["puzzle"]["r1_generation"])


# ------------------------------------------------------------ identities

def test_hits_and_host_ids(vec):
    for role in ("initiator", "responder"):
        side = vec[role]
        with open(os.path.join(REPO, side["hi_private_key_file"])) as f:
            assert f.read() == side["hi_private_key_pem"]
        key = serialization.load_pem_private_key(side["hi_private_key_pem"].encode(), password=None)
        algo, hi = hipref.encode_hi(key.public_key())
        assert algo == vec["suites"]["hi_algorithm"]
        assert hi == hexb(side["host_identity"])
        assert hipref.SUITE_OF_ALGO[algo] == vec["_suite"]
        hit = hipref.orchid(vec["_suite"], hi)          # RFC 7343
        assert hit == hexb(side["hit_hex"])
        assert hipref.hit_str(hit) == side["hit"]
    assert vec["initiator_hit_greater"] == (vec["_hit_i"] > vec["_hit_r"])
    # R1's HOST_ID: HI Length, DI-Type/Length 0, Algorithm, the responder's HI
    v = par(vec["_pkt"][R1], HOST_ID)[2]
    hl, di, algo = struct.unpack("!HHH", v[:6])
    assert (hl, di, algo) == (len(v) - 6, 0, vec["suites"]["hi_algorithm"])
    assert v[6:] == hexb(vec["responder"]["host_identity"])


# ------------------------------------------------------------ puzzle

def test_puzzle(vec):
    pk, pz, rl = vec["_pkt"], vec["puzzle"], vec["_rl"]
    k, i, j = pz["k"], hexb(pz["i"]), hexb(pz["j"])
    assert len(i) == len(j) == rl
    p = par(pk[R1], PUZZLE)[2]
    assert p == bytes([k, pz["lifetime"]]) + hexb(pz["opaque"]) + i
    s = par(pk[I2], SOLUTION)[2]
    assert s == bytes([k, 0]) + hexb(pz["opaque"]) + i + j
    assert k == vec["suites"]["puzzle_k"] > 0
    d = hashlib.new(hipref.SUITE_HASH[vec["_suite"]], i + vec["_hit_i"] + vec["_hit_r"] + j).digest()
    assert int.from_bytes(d, "big") & ((1 << k) - 1) == 0          # RFC 7401 6.3: Ltrunc(.., K) == 0
    assert hipref.puzzle_ok(vec["_suite"], k, i, vec["_hit_i"], vec["_hit_r"], j)


# ------------------------------------------------------------ DH, KEYMAT, keys

def test_dh_and_kij(vec):
    pk, g = vec["_pkt"], vec["suites"]["dh_group"]
    pub_len, kij_len = hipref.DH_LEN[g]
    for role, t in (("initiator", I2), ("responder", R1)):
        side = vec[role]
        v = par(pk[t], DIFFIE_HELLMAN)[2]
        assert v[0] == g and struct.unpack("!H", v[1:3])[0] == pub_len and len(v) == 3 + pub_len
        assert v[3:] == hexb(side["dh_public"]) == hipref.dh_public(g, hexb(side["dh_private"]))
    kij = hexb(vec["kij"])
    assert len(kij) == kij_len
    assert hipref.dh_kij(g, hexb(vec["initiator"]["dh_private"]), hexb(vec["responder"]["dh_public"])) == kij
    assert hipref.dh_kij(g, hexb(vec["responder"]["dh_private"]), hexb(vec["initiator"]["dh_public"])) == kij


def test_keymat_and_keys(vec):
    s, rl = vec["suites"], vec["_rl"]
    suite, cipher, esp = vec["_suite"], s["hip_cipher"], s["esp_transform"]
    kij, i, j = hexb(vec["kij"]), hexb(vec["puzzle"]["i"]), hexb(vec["puzzle"]["j"])
    index = 2 * (hipref.CIPHER_KEY_LEN[cipher] + rl)              # first byte after the HIP keys
    el, al = hipref.ESP_KEY_LENS[esp]
    length = index + 2 * (el + al)
    assert vec["keymat"]["length"] == length and vec["esp"]["keymat_index"] == index
    km = hipref.keymat(suite, kij, i, j, vec["_hit_i"], vec["_hit_r"], length)
    assert km == hexb(vec["keymat"]["value"])
    algo = hashes.SHA384() if suite == 2 else hashes.SHA256()
    info = min(vec["_hit_i"], vec["_hit_r"]) + max(vec["_hit_i"], vec["_hit_r"])
    assert HKDF(algorithm=algo, length=length, salt=i + j, info=info).derive(kij) == km
    keys = hipref.draw_keys(km, suite, cipher, esp, index)
    for d in ("gl", "lg"):
        assert hexb(vec["hip_keys"]["enc_" + d]) == keys["hip_enc_" + d]
        assert hexb(vec["hip_keys"]["int_" + d]) == keys["hip_int_" + d]
    # ESP (RFC 7402 7): the host with the greater HIT sends with the gl keys
    d_i = "gl" if vec["_hit_i"] > vec["_hit_r"] else "lg"
    d_r = "lg" if d_i == "gl" else "gl"
    assert vec["initiator"]["key_direction_out"] == d_i and vec["responder"]["key_direction_out"] == d_r
    for name, d in (("initiator_to_responder", d_i), ("responder_to_initiator", d_r)):
        e = vec["esp"][name]
        assert e["direction"] == d
        assert hexb(e["enc_key"]) == keys["esp_enc_" + d] and len(keys["esp_enc_" + d]) == el
        assert hexb(e["auth_key"]) == keys["esp_auth_" + d] and len(keys["esp_auth_" + d]) == al


def test_esp_info_and_spis(vec):
    pk, idx = vec["_pkt"], vec["esp"]["keymat_index"]
    # ESP_INFO: Reserved 2, KEYMAT Index 2, OLD SPI 4 (0 in the BEX), NEW SPI 4:
    # the SPI the sender of that packet receives on
    _, k_i2, old_i2, new_i2 = struct.unpack("!HHII", par(pk[I2], ESP_INFO)[2])
    _, k_r2, old_r2, new_r2 = struct.unpack("!HHII", par(pk[R2], ESP_INFO)[2])
    assert (k_i2, k_r2, old_i2, old_r2) == (idx, idx, 0, 0)
    assert "0x%08x" % new_i2 == vec["esp"]["responder_to_initiator"]["spi"] == vec["initiator"]["esp_spi_in"]
    assert "0x%08x" % new_r2 == vec["esp"]["initiator_to_responder"]["spi"] == vec["responder"]["esp_spi_in"]
    assert new_i2 >= 256 and new_r2 >= 256


def test_encrypted_host_id(vec):
    """I2's ENCRYPTED (RFC 7401 5.2.18): Reserved 4, IV 16, AES-128-CBC of the
    initiator's HOST_ID with the initiator's outgoing HIP encryption key."""
    v = par(vec["_pkt"][I2], ENCRYPTED)[2]
    assert v[:4] == bytes(4)
    iv, data = v[4:20], v[20:]
    assert iv == hexb(vec["i2_encrypted"]["iv"]) and len(data) % 16 == 0
    key = hexb(vec["hip_keys"]["enc_" + vec["initiator"]["key_direction_out"]])
    assert len(key) == 16
    d = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    plain = d.update(data) + d.finalize()
    assert plain == hexb(vec["i2_encrypted"]["plaintext"])
    t, ln = struct.unpack("!HH", plain[:4])
    assert t == HOST_ID
    hl, di, algo = struct.unpack("!HHH", plain[4:10])
    assert ln == 6 + hl and di == 0 and algo == vec["suites"]["hi_algorithm"]
    hi = plain[10:10 + hl]
    assert hi == hexb(vec["initiator"]["host_identity"])
    assert hipref.orchid(vec["_suite"], hi) == vec["_hit_i"]
    # TLV padding zero; then PKCS#7 padding up to the AES block
    total = (4 + ln + 7) // 8 * 8
    assert plain[4 + ln:total] == bytes(total - 4 - ln)
    pad = plain[total:]
    assert len(pad) >= 1 and pad == bytes([len(pad)]) * len(pad)


# ------------------------------------------------------------ MACs and signatures

def test_hip_mac_i2(vec):
    """HIP_MAC of I2: HMAC-RHASH with the initiator's outgoing HIP integrity
    key over the header and the parameters before it (RFC 7401 6.4.1)."""
    pkt, hname = vec["_pkt"][I2], hipref.SUITE_HASH[vec["_suite"]]
    off, _, mac, _ = par(pkt, HIP_MAC)
    assert len(mac) == vec["_rl"] and mac == hexb(vec["macs"]["i2_hip_mac"]["value"])
    d_i = vec["initiator"]["key_direction_out"]
    d_r = vec["responder"]["key_direction_out"]
    data = hipref.prepared(pkt, off)
    assert hmac.new(hexb(vec["hip_keys"]["int_" + d_i]), data, hname).digest() == mac
    # the other direction's key does not verify it (unlike cutehip's swapped keys)
    assert hmac.new(hexb(vec["hip_keys"]["int_" + d_r]), data, hname).digest() != mac


def test_hip_mac_2_r2(vec):
    """HIP_MAC_2 of R2: as HIP_MAC with the responder's outgoing key, with the
    responder's HOST_ID (as sent in R1) inserted in type order (6.4.1)."""
    pkt, hname = vec["_pkt"][R2], hipref.SUITE_HASH[vec["_suite"]]
    off, _, mac, _ = par(pkt, HIP_MAC_2)
    assert len(mac) == vec["_rl"] and mac == hexb(vec["macs"]["r2_hip_mac_2"]["value"])
    host_id_raw = par(vec["_pkt"][R1], HOST_ID)[3]
    data = hipref.prepared(pkt, off, insert=[host_id_raw])
    d_r = vec["responder"]["key_direction_out"]
    assert hmac.new(hexb(vec["hip_keys"]["int_" + d_r]), data, hname).digest() == mac
    # without the HOST_ID it does not verify
    assert hmac.new(hexb(vec["hip_keys"]["int_" + d_r]), hipref.prepared(pkt, off), hname).digest() != mac


def test_signatures(vec):
    """HIP_SIGNATURE_2 of R1 (receiver HIT, PUZZLE Opaque and #I zeroed),
    HIP_SIGNATURE of I2 (over HIP_MAC too) and of R2 (RFC 7401 6.4.2), each
    with the signer's HI taken from the packets' HOST_IDs."""
    pk, algo = vec["_pkt"], vec["suites"]["hi_algorithm"]
    hi_r, hi_i = hexb(vec["responder"]["host_identity"]), hexb(vec["initiator"]["host_identity"])
    # R1
    r1 = pk[R1]
    off, _, sig, _ = par(r1, HIP_SIGNATURE_2)
    assert sig[2:] == hexb(vec["signatures"]["r1_hip_signature_2"]["value"])
    poff = par(r1, PUZZLE)[0]
    data = hipref.sig2_covered(r1, off, poff)
    assert data[24:40] == bytes(16) and data[poff + 6:poff + 8 + vec["_rl"]] == bytes(2 + vec["_rl"])
    hipref.verify_sig(algo, hi_r, sig, data)
    # the R1 as sent (I and receiver HIT filled in) is not what was signed
    with pytest.raises(Exception):
        hipref.verify_sig(algo, hi_r, sig, hipref.prepared(r1, off))
    # I2, R2
    for t, hi, name in ((I2, hi_i, "i2_hip_signature"), (R2, hi_r, "r2_hip_signature")):
        pkt = pk[t]
        off, _, sig, _ = par(pkt, HIP_SIGNATURE)
        assert sig[2:] == hexb(vec["signatures"][name]["value"])
        assert vec["signatures"][name]["algorithm"] == algo
        hipref.verify_sig(algo, hi, sig, hipref.prepared(pkt, off))
        bent = bytearray(hipref.prepared(pkt, off))
        bent[-1] ^= 1
        with pytest.raises(Exception):
            hipref.verify_sig(algo, hi, sig, bytes(bent))
