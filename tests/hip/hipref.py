# SPDX-License-Identifier: BSD-3-Clause
"""Independent Python reference for hipgw's HIP crypto (lib/hipcrypto): written
from the RFCs and the IANA HIP registries with hashlib, hmac and
python3-cryptography only; it shares no code with the C library.

RFC 7343 (ORCHIDv2), RFC 7401 sections 3.1, 4.1.2, 5.2.9, 6.3, 6.5,
RFC 7402 section 7, RFC 5869 (HKDF), RFC 3110 (RSA HI), RFC 3526 (MODP 3072).
"""

import hashlib
import hmac
import ipaddress
import struct

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

CONTEXT_ID = bytes.fromhex("F0EFF02FBFF43D0FE7930C3C6E6174EA")   # RFC 7401 3.1

SUITE_HASH = {1: "sha256", 2: "sha384", 3: "sha1"}                # RFC 7401 5.2.10
HI_ALGO_RSA, HI_ALGO_ECDSA = 5, 7
SUITE_OF_ALGO = {HI_ALGO_RSA: 1, HI_ALGO_ECDSA: 2}
CURVE_ID = {"secp256r1": 1, "secp384r1": 2}
CIPHER_KEY_LEN = {1: 0, 2: 16, 4: 32}                             # RFC 7401 5.2.8
ESP_KEY_LENS = {7: (0, 32), 8: (16, 32), 9: (32, 32), 13: (20, 0)}  # RFC 7402 / 4868 / 4106

def _arctan_inv(x, one):
    """arctan(1/x) * one, integer arithmetic (Taylor series)."""
    total = term = one // x
    n, sign = 1, -1
    while term:
        term //= x * x
        total += sign * (term // (2 * n + 1))
        sign, n = -sign, n + 1
    return total


def _modp3072_prime():
    """RFC 3526 section 4: p = 2^3072 - 2^3008 - 1 + 2^64 * { [2^2942 pi] + 1690314 },
    with pi from Machin's formula (64 guard bits); g = 2."""
    guard = 64
    one = 1 << (2942 + guard)
    pi_2942 = (16 * _arctan_inv(5, one) - 4 * _arctan_inv(239, one)) >> guard
    return 2 ** 3072 - 2 ** 3008 - 1 + 2 ** 64 * (pi_2942 + 1690314)


MODP3072_P = _modp3072_prime()


def rhash_len(suite):
    return hashlib.new(SUITE_HASH[suite]).digest_size


def orchid(suite, hi):
    """RFC 7343: prefix 2001:20::/28 | OGA ID | middle 96 bits of RHASH(ctx | hi)."""
    d = hashlib.new(SUITE_HASH[suite], CONTEXT_ID + hi).digest()
    cut = (len(d) - 12) // 2
    return bytes([0x20, 0x01, 0x00, 0x20 | suite]) + d[cut:cut + 12]


def hit_str(hit):
    return str(ipaddress.IPv6Address(hit))


def encode_hi(pub):
    """(algo, Host Identity field) of a cryptography public key (RFC 7401 5.2.9)."""
    if isinstance(pub, ec.EllipticCurvePublicKey):
        n = pub.curve.key_size // 8 + (1 if pub.curve.key_size % 8 else 0)
        nums = pub.public_numbers()
        return HI_ALGO_ECDSA, (struct.pack("!H", CURVE_ID[pub.curve.name]) + b"\x04" +
                               nums.x.to_bytes(n, "big") + nums.y.to_bytes(n, "big"))
    if isinstance(pub, rsa.RSAPublicKey):
        nums = pub.public_numbers()
        e = nums.e.to_bytes((nums.e.bit_length() + 7) // 8, "big")
        n = nums.n.to_bytes((nums.n.bit_length() + 7) // 8, "big")
        el = bytes([len(e)]) if len(e) <= 255 else b"\x00" + struct.pack("!H", len(e))
        return HI_ALGO_RSA, el + e + n
    raise ValueError("unsupported key")


def pem_hit(path):
    """(hit bytes, algo, hi bytes) of a PEM private key file."""
    with open(path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    algo, hi = encode_hi(key.public_key())
    return orchid(SUITE_OF_ALGO[algo], hi), algo, hi


def ltrunc_zero(digest, k):
    """RFC 7401 4.1.2: the K lowest-order bits of the digest are zero."""
    return k == 0 or int.from_bytes(digest, "big") & ((1 << k) - 1) == 0


def puzzle_ok(suite, k, i, hit_i, hit_r, j, order="rfc"):
    first, second = (hit_i, hit_r) if order == "rfc" else (hit_r, hit_i)
    return ltrunc_zero(hashlib.new(SUITE_HASH[suite], i + first + second + j).digest(), k)


def hkdf(hname, ikm, salt, info, length):
    """RFC 5869, written out: Extract then Expand."""
    prk = hmac.new(salt, ikm, hname).digest()
    out, t, n = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([n]), hname).digest()
        out += t
        n += 1
    return out[:length]


def keymat(suite, kij, i, j, hit_i, hit_r, length):
    """RFC 7401 6.5: HKDF(RHASH; salt I|J; IKM Kij; info sort(HIT-I|HIT-R))."""
    info = b"".join(sorted([hit_i, hit_r]))
    return hkdf(SUITE_HASH[suite], kij, i + j, info, length)


def draw_keys(km, suite, cipher, esp_suite, esp_index):
    """RFC 7401 6.5 and RFC 7402 7: dict name -> bytes."""
    cl, il = CIPHER_KEY_LEN[cipher], rhash_len(suite)
    keys, off = {}, 0
    for name, ln in (("hip_enc_gl", cl), ("hip_int_gl", il), ("hip_enc_lg", cl), ("hip_int_lg", il)):
        keys[name] = km[off:off + ln]
        off += ln
    el, al = ESP_KEY_LENS[esp_suite]
    off = esp_index
    for name, ln in (("esp_enc_gl", el), ("esp_auth_gl", al), ("esp_enc_lg", el), ("esp_auth_lg", al)):
        keys[name] = km[off:off + ln]
        off += ln
    assert off <= len(km)
    return keys


# ---------------------------------------------------------------- the capture

def hip_packets(pcap_path):
    """[(src, dst, hip bytes)] of every IPv4 protocol-139 packet in a capture (scapy)."""
    from scapy.all import IP, rdpcap  # imported here: slow, and only some tests need it
    out = []
    for p in rdpcap(pcap_path):
        if IP in p and p[IP].proto == 139:
            out.append((p[IP].src, p[IP].dst, bytes(p[IP].payload)))
    return out


def hip_params(pkt):
    """[(offset, type, value)] of a HIP packet's parameters (RFC 7401 5.2.1)."""
    end = (pkt[1] + 1) * 8
    off, out = 40, []
    while off + 4 <= end:
        t, ln = struct.unpack("!HH", pkt[off:off + 4])
        out.append((off, t, pkt[off + 4:off + 4 + ln]))
        off += (4 + ln + 7) // 8 * 8
    return out


def param(pkt, ptype):
    for _, t, v in hip_params(pkt):
        if t == ptype:
            return v
    raise KeyError(ptype)


def host_id_hi(value):
    """(algo, Host Identity field) of a HOST_ID parameter value (RFC 7401 5.2.9)."""
    hi_len, _di, algo = struct.unpack("!HHH", value[:6])
    return algo, value[6:6 + hi_len]
