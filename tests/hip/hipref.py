# SPDX-License-Identifier: BSD-3-Clause
"""Independent Python reference for hipgw's HIP crypto (lib/hipcrypto): written
from the RFCs and the IANA HIP registries with hashlib, hmac and
python3-cryptography only; it shares no code with the C library.

RFC 7343 (ORCHIDv2), RFC 7401 sections 3.1, 4.1.2, 5.1.1, 5.2.7, 5.2.9,
5.2.14, 5.2.15, 6.3, 6.4, 6.5, RFC 7402 section 7, RFC 5869 (HKDF), RFC 3110
(RSA HI), RFC 3526 (MODP 3072).
"""

import hashlib
import hmac
import ipaddress
import os
import struct

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (decode_dss_signature,
                                                             encode_dss_signature)

CONTEXT_ID = bytes.fromhex("F0EFF02FBFF43D0FE7930C3C6E6174EA")   # RFC 7401 3.1

SUITE_HASH = {1: "sha256", 2: "sha384", 3: "sha1"}                # RFC 7401 5.2.10
HI_ALGO_RSA, HI_ALGO_ECDSA = 5, 7
SUITE_OF_ALGO = {HI_ALGO_RSA: 1, HI_ALGO_ECDSA: 2}
CURVE_ID = {"secp256r1": 1, "secp384r1": 2}
CIPHER_KEY_LEN = {1: 0, 2: 16, 4: 32}                             # RFC 7401 5.2.8
ESP_KEY_LENS = {7: (0, 32), 8: (16, 32), 9: (32, 32), 13: (20, 0)}  # RFC 7402 / 4868 / 4106
DH_LEN = {7: (64, 32), 8: (96, 48), 4: (384, 384)}   # group: public value, Kij bytes (5.2.7)
EC_CURVES = {7: ec.SECP256R1(), 8: ec.SECP384R1()}   # ECDH groups (5.2.7)
HI_CURVES = {1: ec.SECP256R1(), 2: ec.SECP384R1()}   # ECDSA HI curve IDs (5.2.9)
HIP_PROTO = 139                                      # IP protocol number of HIP

# packet types (RFC 7401 5.3)
I1, R1, I2, R2, NOTIFY = 1, 2, 3, 4, 17
# parameter types (RFC 7401 5.2, RFC 7402 5.1)
ESP_INFO, R1_COUNTER, PUZZLE, SOLUTION = 65, 129, 257, 321
DH_GROUP_LIST, DIFFIE_HELLMAN, HIP_CIPHER, ENCRYPTED = 511, 513, 579, 641
HOST_ID, HIT_SUITE_LIST, NOTIFICATION = 705, 715, 832
ECHO_RESPONSE_SIGNED, TRANSPORT_FORMAT_LIST, ESP_TRANSFORM = 961, 2049, 4095
HIP_MAC, HIP_MAC_2, HIP_SIGNATURE_2, HIP_SIGNATURE = 61505, 61569, 61633, 61697

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



# ---------------------------------------------------------------- DH, signatures

def dh_public(group, priv):
    """Our DIFFIE_HELLMAN public value for private value priv (bytes): X | Y
    for the ECDH groups, g^x mod p at the group's full length for MODP."""
    x = int.from_bytes(priv, "big")
    if group in EC_CURVES:
        nums = ec.derive_private_key(x, EC_CURVES[group]).public_key().public_numbers()
        fl = DH_LEN[group][1]
        return nums.x.to_bytes(fl, "big") + nums.y.to_bytes(fl, "big")
    return pow(2, x, MODP3072_P).to_bytes(384, "big")


def dh_private(group):
    """A fresh private value (bytes) for dh_public / dh_kij."""
    if group in EC_CURVES:
        k = ec.generate_private_key(EC_CURVES[group]).private_numbers().private_value
        return k.to_bytes(DH_LEN[group][1], "big")
    return int.from_bytes(os.urandom(48), "big").to_bytes(48, "big")


def dh_kij(group, priv, peer_pub):
    """Kij (RFC 7401 6.5): the x-coordinate (ECDH), or y^x mod p with its
    leading zeros kept (MODP). Raises ValueError for a bad peer value."""
    x = int.from_bytes(priv, "big")
    if group in EC_CURVES:
        fl = DH_LEN[group][1]
        mine = ec.derive_private_key(x, EC_CURVES[group])
        peer = ec.EllipticCurvePublicKey.from_encoded_point(EC_CURVES[group], b"\x04" + peer_pub)
        kij = mine.exchange(ec.ECDH(), peer)
        if len(kij) != fl:
            raise ValueError("Kij of %d bytes" % len(kij))
        return kij
    p = MODP3072_P
    y = int.from_bytes(peer_pub, "big")
    if not 2 <= y <= p - 2:
        raise ValueError("MODP public value out of range")
    return pow(y, x, p).to_bytes(384, "big")


def pubkey_of_hi(algo, hi):
    """A verifying key from a Host Identity field (RFC 7401 5.2.9)."""
    if algo == HI_ALGO_ECDSA:
        curve = struct.unpack("!H", hi[:2])[0]
        return ec.EllipticCurvePublicKey.from_encoded_point(HI_CURVES[curve], hi[2:])
    if algo != HI_ALGO_RSA:
        raise ValueError("HI algorithm %d" % algo)
    if hi[0] == 0:
        el, off = struct.unpack("!H", hi[1:3])[0], 3
    else:
        el, off = hi[0], 1
    e = int.from_bytes(hi[off:off + el], "big")
    n = int.from_bytes(hi[off + el:], "big")
    return rsa.RSAPublicNumbers(e, n).public_key()


def sign(key, data):
    """HIP_SIGNATURE(_2) value (RFC 7401 5.2.14/15) by a private key: SIG alg
    (the HI algorithm) then the signature. ECDSA: r | s, each of the curve's
    size, over SHA-384 (the ECDSA HIT suite's RHASH); RSA: PKCS#1 v1.5 over
    SHA-256."""
    algo, _ = encode_hi(key.public_key())
    if algo == HI_ALGO_ECDSA:
        half = (key.curve.key_size + 7) // 8
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA384())))
        sig = r.to_bytes(half, "big") + s.to_bytes(half, "big")
    else:
        sig = key.sign(data, padding.PKCS1v15(), hashes.SHA256())
    return struct.pack("!H", algo) + sig


def verify_sig(algo, hi, sig_value, data):
    """Check a HIP_SIGNATURE(_2) value (as sign() makes it) over data with the
    Host Identity hi of algorithm algo. Raises InvalidSignature when it does
    not verify (also for the wrong SIG alg or length)."""
    if struct.unpack("!H", sig_value[:2])[0] != algo:
        raise InvalidSignature("SIG alg is not the HI's")
    sig = sig_value[2:]
    key = pubkey_of_hi(algo, hi)
    if algo == HI_ALGO_ECDSA:
        half = (key.curve.key_size + 7) // 8
        if len(sig) != 2 * half:
            raise InvalidSignature("ECDSA signature of %d bytes" % len(sig))
        der = encode_dss_signature(int.from_bytes(sig[:half], "big"),
                                   int.from_bytes(sig[half:], "big"))
        key.verify(der, data, ec.ECDSA(hashes.SHA384()))
    else:
        if len(sig) != key.key_size // 8:
            raise InvalidSignature("RSA signature of %d bytes" % len(sig))
        key.verify(sig, data, padding.PKCS1v15(), hashes.SHA256())


# ---------------------------------------------------------------- packets

def inet_cksum(data):
    """The ones' complement sum (RFC 1071) of data, folded to 16 bits."""
    if len(data) % 2:
        data += b"\x00"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def hip_checksum_v4(pkt, src, dst):
    """The HIP Checksum (RFC 7401 5.1.1) of pkt (its Checksum field taken as
    0) between IPv4 addresses src and dst (dotted strings)."""
    body = bytearray(pkt)
    body[4:6] = b"\x00\x00"
    pseudo = (ipaddress.IPv4Address(src).packed + ipaddress.IPv4Address(dst).packed +
              bytes([0, HIP_PROTO]) + struct.pack("!H", len(body)))
    return 0xffff - inet_cksum(pseudo + bytes(body))


def tlv(ptype, value):
    """One parameter (RFC 7401 5.2.1): Type, Length = len(value), the value,
    zero padding to 8 bytes. Any Length is written as given."""
    raw = struct.pack("!HH", ptype, len(value)) + value
    return raw + bytes(-len(raw) % 8)


def raw_param(pkt, off):
    """The whole parameter at offset off of pkt, padding included."""
    ln = struct.unpack("!H", pkt[off + 2:off + 4])[0]
    return pkt[off:off + (4 + ln + 7) // 8 * 8]


def prepared(pkt, upto, insert=()):
    """What HIP_MAC / HIP_SIGNATURE cover (RFC 7401 6.4): the header and the
    parameters before offset upto, with insert (whole parameters) added in
    type order, Checksum 0 and Header Length counting exactly these bytes."""
    params = [(t, raw_param(pkt, off)) for off, t, _ in hip_params(pkt) if off < upto]
    params += [(struct.unpack("!H", raw[:2])[0], raw) for raw in insert]
    params.sort(key=lambda p: p[0])
    body = b"".join(raw for _, raw in params)
    hdr = bytearray(pkt[:40])
    hdr[1] = (40 + len(body)) // 8 - 1
    hdr[4:6] = b"\x00\x00"
    return bytes(hdr) + body


def sig2_covered(pkt, sig_off, puzzle_off):
    """What HIP_SIGNATURE_2 of an R1 covers (RFC 7401 5.2.15): as prepared(),
    with the Receiver's HIT and the PUZZLE's Opaque and Random #I zero."""
    data = bytearray(prepared(pkt, sig_off))
    data[24:40] = bytes(16)
    plen = struct.unpack("!H", pkt[puzzle_off + 2:puzzle_off + 4])[0]
    data[puzzle_off + 4 + 2:puzzle_off + 4 + plen] = bytes(plen - 2)
    return bytes(data)


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
