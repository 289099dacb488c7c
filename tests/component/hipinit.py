# SPDX-License-Identifier: BSD-3-Clause
"""A HIPv2 Base Exchange initiator in Python, to test the real hipgw as the
responder with packets no C code of ours built (RFC 7401 sections 5.3.1 -
5.3.4, 5.3.6, 6.6 - 6.10; the ESP parameters of RFC 7402 section 5.1).

The crypto is tests/hip/hipref.py (HITs, puzzle, KEYMAT, DH, HIP_MAC,
signatures: hashlib, hmac, python3-cryptography); the packets are built and
parsed here, the IP layer is scapy's, and they travel as IPv4 protocol 139
through a raw socket opened in a network namespace (RawHip).

    net = RawHip(ns, "192.0.2.2", "192.0.2.1")
    ini = Initiator(key_pem, "192.0.2.2", "192.0.2.1")
    net.send(ini.i1(responder_hit))
    r1 = ini.take_r1(net.recv(), responder_hit)   # HIP_SIGNATURE_2 checked
    bex = ini.plan(r1)                            # puzzle, DH, KEYMAT, SPI
    net.send(ini.i2(bex))                         # or i2(bex, change={...})
    esp_info = ini.take_r2(bex, net.recv())       # HIP_MAC_2, HIP_SIGNATURE checked

i2() can spoil the I2 on purpose: `change` maps a parameter type to a
function of its correct value (the result is sent with that Length, the TLV
framing intact; None leaves the parameter out, and a type the I2 lacks is
added with function(b"")), and HIP_MAC / HIP_SIGNATURE are computed over the
changed packet unless `mac_ok` / `sig_ok` is False (one bit of the value
flipped after computing it). take_notify() checks a NOTIFY's signature with
the responder's HI and returns its Notify Message Type and data.
"""

import contextlib
import ctypes
import hmac
import os
import socket
import struct
import sys

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from scapy.layers.inet import IP
from scapy.packet import Raw

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hip"))
import gwlib  # noqa: E402
import hipref  # noqa: E402
from hipref import (I1, R1, I2, R2, NOTIFY, ESP_INFO, R1_COUNTER, PUZZLE,  # noqa: E402
                    SOLUTION, DH_GROUP_LIST, DIFFIE_HELLMAN, HIP_CIPHER, ENCRYPTED, HOST_ID,
                    NOTIFICATION, TRANSPORT_FORMAT_LIST, ESP_TRANSFORM, HIP_MAC, HIP_MAC_2,
                    HIP_SIGNATURE_2, HIP_SIGNATURE)
# Notify Message Types (RFC 7401 5.2.19)
INVALID_SYNTAX, AUTHENTICATION_FAILED, HIP_MAC_FAILED = 7, 24, 28
# HIP_CIPHER IDs (5.2.8): NULL-ENCRYPT, AES-128-CBC
CIPHER_NULL, CIPHER_AES128_CBC = 1, 2

HDR_LEN = 40
NEXT_HDR_NONE = 59             # IPPROTO_NONE
VERSION_BYTE = 0x21            # Version 2, RES 0, the fixed 1 bit
AES_BLOCK = 16                 # bytes: IV and block of AES-CBC
CLONE_NEWNET = 0x40000000


def header(ptype, hit_s, hit_r, body_len):
    """The fixed header (RFC 7401 5.1), Checksum 0, Controls 0."""
    return struct.pack("!BBBBHH", NEXT_HDR_NONE, (HDR_LEN + body_len) // 8 - 1, ptype,
                       VERSION_BYTE, 0, 0) + hit_s + hit_r


def with_checksum(pkt, src, dst):
    pkt = bytearray(pkt)
    pkt[4:6] = struct.pack("!H", hipref.hip_checksum_v4(pkt, src, dst))
    return bytes(pkt)


def params(pkt):
    """{type: (offset, value)} of a HIP packet (each type once)."""
    return {t: (off, v) for off, t, v in hipref.hip_params(pkt)}


def u16_list(b):
    return list(struct.unpack("!%dH" % (len(b) // 2), b))


def flip(b):
    return b[:-1] + bytes([b[-1] ^ 1])


class R1Offer:
    """What an R1 offers (RFC 7401 5.3.2): pkt, hit (the responder's),
    suite (its HIT suite: RHASH), rl (RHASH bytes), counter (R1_COUNTER value
    or None), k, lifetime, opaque, i, groups, dh {group: public value},
    ciphers, esp_suites, transports, host_id (the whole parameter), algo and
    hi (its Host Identity)."""


class Bex:
    """One Base Exchange's choices and keys, made by Initiator.plan()."""


class Initiator:
    """The initiator: its HI (a PEM private key file) and IPv4 addresses."""

    def __init__(self, key_pem, local, remote):
        with open(key_pem, "rb") as f:
            self.key = serialization.load_pem_private_key(f.read(), password=None)
        self.algo, self.hi = hipref.encode_hi(self.key.public_key())
        self.hit = hipref.orchid(hipref.SUITE_OF_ALGO[self.algo], self.hi)
        self.local, self.remote = local, remote

    def covered(self, ptype, hit_r, plist):
        """Header and whole parameters plist (in type order), Checksum 0: what
        a HIP_MAC or HIP_SIGNATURE appended next covers (RFC 7401 6.4)."""
        body = b"".join(plist)
        return header(ptype, self.hit, hit_r, len(body)) + body

    def packet(self, ptype, hit_r, plist):
        """The packet of whole parameters plist, checksummed."""
        return with_checksum(self.covered(ptype, hit_r, plist), self.local, self.remote)

    def i1(self, hit_r, groups=(7,)):
        """I1 (5.3.1): DH_GROUP_LIST of groups."""
        return self.packet(I1, hit_r, [hipref.tlv(DH_GROUP_LIST, bytes(groups))])

    def take_r1(self, pkt, hit_r):
        """Parse and check an R1 from hit_r (RFC 7401 6.8): header, HOST_ID
        hashing to the Sender's HIT, HIP_SIGNATURE_2 (Receiver's HIT, Opaque
        and #I zero). Returns an R1Offer; raises AssertionError or
        InvalidSignature."""
        assert pkt[2] == R1 and pkt[3] == VERSION_BYTE, pkt[:4].hex()
        assert pkt[8:24] == hit_r and pkt[24:40] == self.hit, "R1 HITs"
        p = params(pkt)
        r = R1Offer()
        r.pkt, r.hit = pkt, hit_r
        r.host_id = hipref.raw_param(pkt, p[HOST_ID][0])
        r.algo, r.hi = hipref.host_id_hi(p[HOST_ID][1])
        r.suite = hit_r[3] & 0x0f
        assert hipref.orchid(r.suite, r.hi) == hit_r, "R1 HOST_ID does not hash to its HIT"
        hipref.verify_sig(r.algo, r.hi, p[HIP_SIGNATURE_2][1],
                          hipref.sig2_covered(pkt, p[HIP_SIGNATURE_2][0], p[PUZZLE][0]))
        r.rl = hipref.rhash_len(r.suite)
        r.counter = p[R1_COUNTER][1] if R1_COUNTER in p else None
        pz = p[PUZZLE][1]
        r.k, r.lifetime, r.opaque, r.i = pz[0], pz[1], pz[2:4], pz[4:]
        assert len(r.i) == r.rl, "PUZZLE #I of %d bytes" % len(r.i)
        r.groups = list(p[DH_GROUP_LIST][1])
        r.dh, v = {}, p[DIFFIE_HELLMAN][1]
        while v:
            ln = struct.unpack("!H", v[1:3])[0]
            r.dh[v[0]] = v[3:3 + ln]
            v = v[3 + ln:]
        r.ciphers = u16_list(p[HIP_CIPHER][1])
        r.esp_suites = u16_list(p[ESP_TRANSFORM][1][2:])
        r.transports = u16_list(p[TRANSPORT_FORMAT_LIST][1])
        return r

    def solve(self, r):
        """#J for the R1's puzzle (RFC 7401 6.3): RHASH(I | HIT-I | HIT-R | J)
        with K low zero bits, J counting up from a random start."""
        j = int.from_bytes(os.urandom(r.rl), "big")
        while True:
            jb = (j % (1 << (8 * r.rl))).to_bytes(r.rl, "big")
            if hipref.puzzle_ok(r.suite, r.k, r.i, self.hit, r.hit, jb):
                return jb
            j += 1

    def plan(self, r, cipher=None, esp=None, spi=None):
        """The I2's choices for R1 r (RFC 7401 6.8): the R1's DH group (the
        one with a public value), cipher and ESP transform (default: the
        first of the R1's we support), a fresh DH key, #J, KEYMAT and keys,
        our inbound SPI (random when not given)."""
        assert ESP_TRANSFORM in r.transports, r.transports
        b = Bex()
        b.r1 = r
        b.group = next(g for g in r.groups if g in r.dh)
        b.cipher = cipher or next(c for c in r.ciphers if c in hipref.CIPHER_KEY_LEN)
        b.esp = esp or next(e for e in r.esp_suites if e in hipref.ESP_KEY_LENS)
        b.spi = spi or struct.unpack("!I", os.urandom(4))[0] | 0x100
        priv = hipref.dh_private(b.group)
        b.dh_pub = hipref.dh_public(b.group, priv)
        kij = hipref.dh_kij(b.group, priv, r.dh[b.group])
        b.j = self.solve(r)
        b.index = 2 * (hipref.CIPHER_KEY_LEN[b.cipher] + r.rl)     # ESP keys start (RFC 7402 7)
        el, al = hipref.ESP_KEY_LENS[b.esp]
        km = hipref.keymat(r.suite, kij, r.i, b.j, self.hit, r.hit, b.index + 2 * (el + al))
        b.keys = hipref.draw_keys(km, r.suite, b.cipher, b.esp, b.index)
        b.out = "gl" if self.hit > r.hit else "lg"                  # RFC 7401 6.5
        b.inb = "lg" if b.out == "gl" else "gl"
        return b

    def host_id_value(self):
        """HOST_ID (5.2.9): HI Length, DI-Type and DI Length 0, Algorithm, HI."""
        return struct.pack("!HHH", len(self.hi), 0, self.algo) + self.hi

    def encrypted(self, b):
        """ENCRYPTED's value (5.2.18): Reserved, IV, AES-128-CBC of our
        HOST_ID (the whole parameter, PKCS#7 padded) with our outgoing HIP
        encryption key."""
        assert b.cipher == CIPHER_AES128_CBC, b.cipher
        plain = hipref.tlv(HOST_ID, self.host_id_value())
        pad = AES_BLOCK - len(plain) % AES_BLOCK
        iv = os.urandom(AES_BLOCK)
        enc = Cipher(algorithms.AES(b.keys["hip_enc_" + b.out]), modes.CBC(iv)).encryptor()
        return bytes(4) + iv + enc.update(plain + bytes([pad]) * pad) + enc.finalize()

    def i2(self, b, change=None, mac_ok=True, sig_ok=True, j=None):
        """I2 (5.3.3, 6.8): ESP_INFO, R1_COUNTER, SOLUTION, DIFFIE_HELLMAN,
        HIP_CIPHER, HOST_ID (NULL-ENCRYPT) or ENCRYPTED, TRANSPORT_FORMAT_LIST,
        ESP_TRANSFORM, HIP_MAC, HIP_SIGNATURE; see the module comment for
        change / mac_ok / sig_ok; j replaces the puzzle solution."""
        r = b.r1
        values = {
            ESP_INFO: struct.pack("!HHII", 0, b.index, 0, b.spi),
            SOLUTION: bytes([r.k, 0]) + r.opaque + r.i + (j or b.j),
            DIFFIE_HELLMAN: struct.pack("!BH", b.group, len(b.dh_pub)) + b.dh_pub,
            HIP_CIPHER: struct.pack("!H", b.cipher),
            TRANSPORT_FORMAT_LIST: struct.pack("!H", ESP_TRANSFORM),
            ESP_TRANSFORM: struct.pack("!HH", 0, b.esp),
        }
        if r.counter is not None:
            values[R1_COUNTER] = r.counter
        if b.cipher == CIPHER_NULL:
            values[HOST_ID] = self.host_id_value()
        else:
            values[ENCRYPTED] = self.encrypted(b)
        for t, fn in (change or {}).items():
            v = fn(values.get(t, b""))
            if v is None:
                values.pop(t, None)
            else:
                values[t] = v
        plist = [hipref.tlv(t, values[t]) for t in sorted(values)]
        mac = hmac.new(b.keys["hip_int_" + b.out], self.covered(I2, r.hit, plist),
                       hipref.SUITE_HASH[r.suite]).digest()
        plist.append(hipref.tlv(HIP_MAC, mac if mac_ok else flip(mac)))
        sig = hipref.sign(self.key, self.covered(I2, r.hit, plist))
        plist.append(hipref.tlv(HIP_SIGNATURE, sig if sig_ok else flip(sig)))
        return self.packet(I2, r.hit, plist)

    def check_from_responder(self, pkt, ptype, r):
        assert pkt[2] == ptype, "packet type %d, not %d" % (pkt[2], ptype)
        assert pkt[8:24] == r.hit and pkt[24:40] == self.hit, "HITs of packet type %d" % ptype

    def take_r2(self, b, pkt):
        """Check an R2 (6.10): HIP_MAC_2 with the responder's outgoing HIP
        key over the R2 with the R1's HOST_ID inserted, HIP_SIGNATURE with the
        R1's HI. Returns (KEYMAT Index, OLD SPI, NEW SPI) of its ESP_INFO."""
        r = b.r1
        self.check_from_responder(pkt, R2, r)
        p = params(pkt)
        want = hmac.new(b.keys["hip_int_" + b.inb],
                        hipref.prepared(pkt, p[HIP_MAC_2][0], insert=[r.host_id]),
                        hipref.SUITE_HASH[r.suite]).digest()
        assert hmac.compare_digest(want, p[HIP_MAC_2][1]), "R2 HIP_MAC_2 does not verify"
        hipref.verify_sig(r.algo, r.hi, p[HIP_SIGNATURE][1],
                          hipref.prepared(pkt, p[HIP_SIGNATURE][0]))
        return struct.unpack("!HHII", p[ESP_INFO][1])[1:]

    def take_notify(self, r, pkt):
        """Check a NOTIFY (5.3.6) from R1 r's sender: HIP_SIGNATURE with the
        R1's HI, its HOST_ID (when present) the R1's. Returns (Notify Message
        Type, Notification Data)."""
        self.check_from_responder(pkt, NOTIFY, r)
        p = params(pkt)
        if HOST_ID in p:
            assert hipref.raw_param(pkt, p[HOST_ID][0]) == r.host_id, "NOTIFY HOST_ID"
        hipref.verify_sig(r.algo, r.hi, p[HIP_SIGNATURE][1],
                          hipref.prepared(pkt, p[HIP_SIGNATURE][0]))
        v = p[NOTIFICATION][1]
        return struct.unpack("!H", v[2:4])[0], v[4:]


class RawHip:
    """IPv4 protocol 139 between local and remote through a raw socket made
    inside network namespace ns (`ip netns` name; the socket stays there
    when this thread returns to its own namespace). send() takes a HIP
    packet, recv() gives the next one from remote with a good checksum."""

    def __init__(self, ns, local, remote):
        self.local, self.remote = local, remote
        libc = ctypes.CDLL(None, use_errno=True)
        with open("/proc/thread-self/ns/net") as home, open("/var/run/netns/" + ns) as there:
            if libc.setns(there.fileno(), CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + ns)
            try:
                self.sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, hipref.HIP_PROTO)
            finally:
                if libc.setns(home.fileno(), CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns back")
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)

    def send(self, hip):
        ip = IP(src=self.local, dst=self.remote, proto=hipref.HIP_PROTO, ttl=64) / Raw(hip)
        self.sock.sendto(bytes(ip), (self.remote, 0))

    def recv(self, timeout=10.0):
        """The next HIP packet from remote; raises socket.timeout after
        timeout seconds without one."""
        self.sock.settimeout(timeout)
        while True:
            ip = IP(self.sock.recv(65535))
            if ip.src != self.remote or ip.proto != hipref.HIP_PROTO:
                continue
            hip = bytes(ip.payload)
            want = hipref.hip_checksum_v4(hip, ip.src, ip.dst)
            assert struct.unpack("!H", hip[4:6])[0] == want, "HIP checksum of type %d" % hip[2]
            return hip

    def close(self):
        self.sock.close()


# ---- the real hipgw as the responder, over a veth (component tests)

@contextlib.contextmanager
def responder_netns(ns, gw_if, ini_if, ini4):
    """Network namespaces ns-gw and ns-ini, made here and removed afterwards,
    with a veth between them (gw_if, ini_if) and ini4/24 on ini_if: yields
    the two namespaces' names."""
    with gwlib.namespaces(ns + "-gw", ns + "-ini") as (gw, ini):
        gwlib.veth(gw, gw_if, ini, ini_if)
        gwlib.sh("ip", "-n", ini, "addr", "add", f"{ini4}/24", "dev", ini_if)
        yield gw, ini


def responder_config(path, key, peer, peer_hit, gw_if, gw4, ini4, gateway=()):
    """hipgw's config at path: Host Identity key, the inner port on net_null
    (nothing comes in), the outer port on net_af_packet over gw_if with
    address gw4, one [peer] named peer of HIT peer_hit at locator ini4;
    gateway: more lines of [gateway]."""
    path.write_text("\n".join([
        "[gateway]", "workers = 1", f"hi = {key}", *gateway, "",
        "[port lan]", "device = net_null0,no-rx=1", "role = inner", "address = 10.2.0.1/24", "",
        "[port wan]", f"device = net_af_packet0,iface={gw_if}", "role = outer",
        f"address = {gw4}/24", "",
        f"[peer {peer}]", f"hit = {peer_hit}", f"locator = {ini4}", "prefixes = 10.128.0.0/24",
        ""]))


def answer(net, what):
    """The gateway's next HIP packet on RawHip net; fails the test when none
    comes within 10 s."""
    try:
        return net.recv(timeout=10.0)
    except socket.timeout:
        pytest.fail(f"no answer from the gateway to the {what}")
