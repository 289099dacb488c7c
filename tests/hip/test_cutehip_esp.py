# SPDX-License-Identifier: BSD-3-Clause
"""The cutehip capture's ESP packets (tests/data, packets nobody here wrote),
opened with the ESP keys that our C code (lib/hipcrypto, through
hipcrypto_tool's keymat / keys commands) derives from the Kij of the capture's
keys file; the opening itself is python3-cryptography and hmac.

cutehip runs BEET mode (RFC 7402 3.1): after ESP comes the upper layer (next
header 58, ICMPv6) with the two HITs as its addresses. Its ICV is the full
32-byte HMAC-SHA-256, a deviation accepted here only (RFC 4868: 16 bytes; the
fast path refuses these packets: tests/unit/test_cutehip_esp.c). Its first 16
bytes are the HMAC-SHA-256-128 that RFC 4868 would send.
"""

import hmac
import os
import re
import struct

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import hipref

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "tests", "data")
CAPTURE = os.path.join(DATA, "cutehip-bex-ecdsa384-modp3072.pcapng")
KEYS = os.path.join(DATA, "cutehip-bex-ecdsa384-modp3072.keys.txt")
A, B = "10.99.0.1", "10.99.0.2"


def esp_packets():
    from scapy.all import IP, rdpcap
    out = []
    for p in rdpcap(CAPTURE):
        if IP in p and p[IP].proto == 50:
            out.append((p[IP].src, p[IP].dst, bytes(p[IP].payload)[:p[IP].len - 20]))
    return out


def test_capture_esp_opened_with_our_keys(tool):
    hip = hipref.hip_packets(CAPTURE)
    by_type = {p[2] & 0x7f: p for _, _, p in reversed(hip)}
    r1, i2, r2 = by_type[2], by_type[3], by_type[4]
    hit_i, hit_r = i2[8:24], i2[24:40]
    i, j = hipref.param(r1, 257)[4:], hipref.param(i2, 321)[52:]
    with open(KEYS) as f:
        text = f.read()
    kij = int(re.search(r"Kij \(decimal, from initiator log\): (\d+)", text).group(1)).to_bytes(384, "big")
    m = re.search(r"ESP A->B SPI (0x[0-9a-f]+) A->B enc=0x([0-9a-f]+) auth=0x([0-9a-f]+)", text)
    # our C code: KEYMAT (HKDF-SHA-384) and the keys from KEYMAT Index 128
    km = tool("keymat", 2, kij.hex(), i.hex(), j.hex(), hit_i.hex(), hit_r.hex(), 128 + 2 * (16 + 32)).strip()
    keys = {k: bytes.fromhex(v) for k, v in
            (line.split("=") for line in tool("keys", 2, 2, 8, 128, km).split())}
    d_a = "gl" if hit_i > hit_r else "lg"                 # A, the initiator, sends with these
    d_b = "lg" if d_a == "gl" else "gl"
    assert (keys["esp_enc_" + d_a].hex(), keys["esp_auth_" + d_a].hex()) == (m.group(2), m.group(3))
    spi = {A: struct.unpack("!I", hipref.param(r2, 65)[8:12])[0],     # R2's NEW SPI: B receives
           B: struct.unpack("!I", hipref.param(i2, 65)[8:12])[0]}
    assert spi[A] == int(m.group(1), 16)
    seq = {A: 1, B: 1}
    n = 0
    for src, dst, esp in esp_packets():
        d = d_a if src == A else d_b
        spi_v, seq_v = struct.unpack("!II", esp[:8])
        assert spi_v == spi[src] and seq_v == seq[src]
        seq[src] += 1
        icv = esp[-32:]
        full = hmac.new(keys["esp_auth_" + d], esp[:-32], "sha256").digest()
        assert icv == full                                # cutehip: all 32 bytes
        assert len(esp[24:-32]) % 16 == 0
        dec = Cipher(algorithms.AES(keys["esp_enc_" + d]), modes.CBC(esp[8:24])).decryptor()
        pt = dec.update(esp[24:-32]) + dec.finalize()
        pad, nh = pt[-2], pt[-1]
        assert pt[-2 - pad:-2] == bytes(range(1, pad + 1))
        assert nh == 58                                    # BEET: ICMPv6 follows
        body = pt[:-2 - pad]
        s_hit, d_hit = (hit_i, hit_r) if src == A else (hit_r, hit_i)
        pseudo = s_hit + d_hit + struct.pack("!I", len(body)) + b"\x00\x00\x00\x3a"
        assert hipref.inet_cksum(pseudo + body) == 0xffff
        assert body[0] == (128 if src == A else 129) and body[1] == 0
        n += 1
    assert n == 18 and seq == {A: 10, B: 10}
