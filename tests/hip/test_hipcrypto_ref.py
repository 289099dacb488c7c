# SPDX-License-Identifier: BSD-3-Clause
"""lib/hipcrypto against an independent Python computation (hipref.py) and
against the cutehip capture in tests/data (packets nobody here wrote).

(a) HITs of the fixed test keys and of keys made by `hipgw keygen` (RFC 7343)
(b) puzzle solve / verify for K 0..20, a wrong J, a J for another HIT pair
(c) KEYMAT (HKDF, RFC 7401 6.5) and key drawing (RFC 7402 7); DH, MAC, signatures
(d) the capture's Kij -> KEYMAT -> ESP keys at index 128 = its keys file
(e) both HITs of the capture from its HOST_ID parameters
(f) the capture's puzzle solution: valid under cutehip's HIT order, not under
    RFC 7401's. RFC 7401 (sections 4.1.2, 6.3) is right: I | HIT-I | HIT-R | J.
"""

import hashlib
import hmac
import os
import re
import shutil
import stat
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (decode_dss_signature,
                                                             encode_dss_signature)
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

import gen_vectors
import hipref

DATA = os.path.join(hipref.__file__.rsplit("/tests/", 1)[0], "tests", "data")
KEYS = os.path.join(DATA, "hip", "keys")
CAPTURE = os.path.join(DATA, "cutehip-bex-ecdsa384-modp3072.pcapng")
CAPTURE_KEYS = os.path.join(DATA, "cutehip-bex-ecdsa384-modp3072.keys.txt")

T_R1, T_I2, T_R2, T_UPDATE = 2, 3, 4, 16
P_ESP_INFO, P_PUZZLE, P_SOLUTION, P_HOST_ID = 65, 257, 321, 705


def rand_hit(rng, suite):
    return bytes([0x20, 0x01, 0x00, 0x20 | suite]) + rng.randbytes(12)


def copy_0600(src, tmp_path):
    dst = os.path.join(str(tmp_path), os.path.basename(src))
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o600)
    return dst


# ------------------------------------------------------------ self-checks

def test_reference_hkdf_is_rfc5869():
    """hipref.hkdf against RFC 5869 A.1 and python3-cryptography's HKDF."""
    ikm = bytes([0x0b] * 22)
    salt = bytes(range(13))
    info = bytes(range(0xf0, 0xfa))
    okm = hipref.hkdf("sha256", ikm, salt, info, 42)
    assert okm.hex() == ("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                         "34007208d5b887185865")
    for hname, algo in (("sha256", hashes.SHA256()), ("sha384", hashes.SHA384())):
        k = HKDF(algorithm=algo, length=300, salt=salt * 3, info=info * 3).derive(ikm * 5)
        assert hipref.hkdf(hname, ikm * 5, salt * 3, info * 3, 300) == k


def test_reference_modp_prime():
    """The RFC 3526 group 15 prime from its formula: 3072 bits, a safe prime
    (Fermat tests), its first and last 64 bits all ones, and it opens with the
    digits RFC 3526 prints (the same as groups 5 and 14: FFFFFFFF FFFFFFFF
    C90FDAA2 2168C234 C4C6628B 80DC1CD1)."""
    p = hipref.MODP3072_P
    assert p.bit_length() == 3072
    assert p >> 3008 == 2 ** 64 - 1 and p & (2 ** 64 - 1) == 2 ** 64 - 1
    assert hex(p).startswith("0xffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd1")
    q = (p - 1) // 2
    for a in (2, 3, 5, 7):
        assert pow(a, p - 1, p) == 1 and pow(a, q - 1, q) == 1


def test_vector_files_current():
    """The expected values the C unit test reads are what hipref.py computes."""
    for path, fn in gen_vectors.OUTPUTS.items():
        with open(path) as f:
            assert f.read() == fn(), "%s is stale: run tests/hip/gen_vectors.py" % path


# ------------------------------------------------------------------- (a)

@pytest.mark.parametrize("name", gen_vectors.KEY_FILES)
def test_a_hit_of_test_keys(name, tool, hipgw, tmp_path):
    hit, algo, hi = hipref.pem_hit(os.path.join(KEYS, name))
    path = copy_0600(os.path.join(KEYS, name), tmp_path)
    text, c_algo, c_suite, c_hi = tool("hit-of-key", path).split()
    assert text == hipref.hit_str(hit)
    assert (int(c_algo), int(c_suite)) == (algo, hipref.SUITE_OF_ALGO[algo])
    assert c_hi == hi.hex()
    # the public HI alone gives the same HIT
    assert tool("hit-of-hi", algo, hi.hex()).split() == [hipref.hit_str(hit), hit.hex()]
    # and `hipgw hit FILE`
    r = subprocess.run([hipgw, "hit", path], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout == hipref.hit_str(hit) + "\n"
    # ORCHIDv2 shape: 2001:20::/28 and the OGA ID = HIT suite
    assert hit[:3] == b"\x20\x01\x00" and hit[3] == 0x20 | hipref.SUITE_OF_ALGO[algo]


@pytest.mark.parametrize("algo,curve", [("ecdsa-p256", "secp256r1"), ("ecdsa-p384", "secp384r1"),
                                        ("rsa3072", None)])
def test_a_keygen(algo, curve, hipgw, tmp_path):
    out = os.path.join(str(tmp_path), "gw.pem")
    r = subprocess.run([hipgw, "keygen", "--algo", algo, "--out", out],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    printed = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    with open(out, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    if curve:
        assert isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == curve
    else:
        assert isinstance(key, rsa.RSAPrivateKey) and key.key_size == 3072
    hit, a, hi = hipref.pem_hit(out)
    assert printed["HIT"] == hipref.hit_str(hit)
    assert printed["HI"] == hi.hex()
    assert "HI algorithm %d, HIT suite %d" % (a, hipref.SUITE_OF_ALGO[a]) in printed["algorithm"]
    r = subprocess.run([hipgw, "hit", out], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.strip() == hipref.hit_str(hit)
    # `hipgw pubkey`: the same public key as python3-cryptography derives
    # (SubjectPublicKeyInfo PEM, what a middlebox's [host] hi takes), on
    # stdout and in a file of mode 0644 after "HIT <hit>"
    spki = key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    r = subprocess.run([hipgw, "pubkey", out], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout == spki, r.stderr
    pub = os.path.join(str(tmp_path), "gw.pub")
    r = subprocess.run([hipgw, "pubkey", out, "--out", pub], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout == "HIT %s\n" % hipref.hit_str(hit), r.stderr
    assert stat.S_IMODE(os.stat(pub).st_mode) == 0o644 and open(pub).read() == spki
    # never overwritten; refused when readable by others, with a one-line message
    r = subprocess.run([hipgw, "keygen", "--algo", algo, "--out", out], capture_output=True, text=True)
    assert r.returncode == 1 and out in r.stderr
    os.chmod(out, 0o644)
    r = subprocess.run([hipgw, "hit", out], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and out in r.stderr and "0644" in r.stderr


# ------------------------------------------------------------------- (b)

def test_b_puzzle(tool, rng):
    for suite, kmax in ((2, 20), (1, 12)):
        hl = hipref.rhash_len(suite)
        for k in range(0, kmax + 1):
            i = rng.randbytes(hl)
            hit_i, hit_r = rand_hit(rng, 2), rand_hit(rng, 2)
            j = bytes.fromhex(tool("puzzle-solve", suite, k, i.hex(), hit_i.hex(), hit_r.hex()).strip())
            assert len(j) == hl
            assert hipref.puzzle_ok(suite, k, i, hit_i, hit_r, j), "K=%d" % k
            assert tool("puzzle-verify", suite, k, i.hex(), hit_i.hex(), hit_r.hex(), j.hex()).strip() == "ok"
            if k == 0:
                continue
            # a wrong J: the first neighbour that Python says fails
            for v in range(1, 256):
                w = j[:-1] + bytes([j[-1] ^ v])
                if not hipref.puzzle_ok(suite, k, i, hit_i, hit_r, w):
                    break
            assert tool("puzzle-verify", suite, k, i.hex(), hit_i.hex(), hit_r.hex(), w.hex()).strip() == "fail"
            # the same J for other HIT pairs: our verify agrees with Python on each
            others = [(hit_r, hit_i), (rand_hit(rng, 2), hit_r), (hit_i, rand_hit(rng, 1))]
            for a, b in others:
                want = "ok" if hipref.puzzle_ok(suite, k, i, a, b, j) else "fail"
                assert tool("puzzle-verify", suite, k, i.hex(), a.hex(), b.hex(), j.hex()).strip() == want
                if k >= 16:
                    assert want == "fail"


# ------------------------------------------------------------------- (c)

def test_c_keymat_and_keys(tool, rng):
    for suite in (1, 2):
        hl = hipref.rhash_len(suite)
        for kij_len in (32, 48, 384):
            kij = b"\x00" + rng.randbytes(kij_len - 1)
            i, j = rng.randbytes(hl), rng.randbytes(hl)
            hit_i, hit_r = rand_hit(rng, suite), rand_hit(rng, suite)
            length = rng.randrange(1, 600)
            want = hipref.keymat(suite, kij, i, j, hit_i, hit_r, length)
            got = tool("keymat", suite, kij.hex(), i.hex(), j.hex(), hit_i.hex(), hit_r.hex(), length).strip()
            assert got == want.hex()
            # python3-cryptography's HKDF agrees too
            algo = hashes.SHA256() if suite == 1 else hashes.SHA384()
            assert HKDF(algorithm=algo, length=length, salt=i + j,
                        info=min(hit_i, hit_r) + max(hit_i, hit_r)).derive(kij) == want
        km = rng.randbytes(400)
        for cipher in (1, 2, 4):
            for esp in (7, 8, 9, 13):
                index = 2 * (hipref.CIPHER_KEY_LEN[cipher] + hl)
                want = hipref.draw_keys(km, suite, cipher, esp, index)
                out = tool("keys", suite, cipher, esp, index, km.hex())
                got = dict(line.split("=") for line in out.split())
                assert got == {n: v.hex() for n, v in want.items()}


def test_c_dh(tool, rng):
    """Public values and Kij of hip_dh against python3-cryptography (ECDH) and
    plain pow() (MODP), including a Kij with a leading zero byte (kept)."""
    # ECDH: our private 0x11.., the peer's key from cryptography
    for group, curve, fl in ((7, ec.SECP256R1(), 32), (8, ec.SECP384R1(), 48)):
        priv = bytes([0x11] * 32)
        mine = ec.derive_private_key(int.from_bytes(priv, "big"), curve)
        nums = mine.public_key().public_numbers()
        want_pub = nums.x.to_bytes(fl, "big") + nums.y.to_bytes(fl, "big")
        zero_seen = False
        for n in range(1, 3000):
            peer = ec.derive_private_key(rng.randrange(1, 2 ** 200), curve)
            pn = peer.public_key().public_numbers()
            ppub = pn.x.to_bytes(fl, "big") + pn.y.to_bytes(fl, "big")
            kij = peer.exchange(ec.ECDH(), mine.public_key())     # x-coordinate, field size
            if n > 3 and kij[0] != 0:
                continue
            out = dict(line.split() for line in tool("dh", group, priv.hex(), ppub.hex()).splitlines())
            assert out["pub"] == want_pub.hex()
            assert out["kij"] == kij.hex() and len(kij) == fl
            if kij[0] == 0:
                zero_seen = True
                break
        assert zero_seen
    # MODP 3072 (RFC 3526 group 15, g = 2)
    p = hipref.MODP3072_P
    x = int.from_bytes(bytes([0x11] * 32), "big")
    want_pub = pow(2, x, p).to_bytes(384, "big")
    for n in range(1, 3000):
        y = rng.randrange(2, 2 ** 256)
        ppub = pow(2, y, p).to_bytes(384, "big")
        kij = pow(pow(2, y, p), x, p).to_bytes(384, "big")
        if n > 2 and kij[0] != 0:
            continue
        out = dict(line.split() for line in tool("dh", 4, (x).to_bytes(32, "big").hex(), ppub.hex()).splitlines())
        assert out["pub"] == want_pub.hex()
        assert out["kij"] == kij.hex()          # 384 bytes, leading zeros kept (RFC 7401)
        if kij[0] == 0:
            break
    else:
        pytest.fail("no MODP Kij with a leading zero found")
    # a peer value outside 2..p-2 is refused
    for bad in (0, 1, p - 1, p):
        r = tool("dh", 4, (x).to_bytes(32, "big").hex(), bad.to_bytes(384, "big").hex(), ok=False)
        assert r.returncode == 1


def test_c_mac(tool, rng):
    for suite, hname in ((1, "sha256"), (2, "sha384")):
        for n in range(5):
            key, data = rng.randbytes(hipref.rhash_len(suite)), rng.randbytes(rng.randrange(0, 900))
            got = tool("mac", suite, key.hex(), data.hex()).strip()
            assert got == hmac.new(key, data, hname).hexdigest()


@pytest.mark.parametrize("name", gen_vectors.KEY_FILES)
def test_c_signatures(name, tool, rng, tmp_path):
    """Our signatures verify in python3-cryptography (ECDSA: r|s fixed length
    over SHA-384; RSA: PKCS#1 v1.5 over SHA-256) and its verify in ours."""
    path = copy_0600(os.path.join(KEYS, name), tmp_path)
    with open(path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    _, algo, hi = hipref.pem_hit(path)
    data = rng.randbytes(333)
    sig = bytes.fromhex(tool("sign", path, data.hex()).strip())
    if isinstance(key, ec.EllipticCurvePrivateKey):
        half = (key.curve.key_size + 7) // 8
        assert len(sig) == 2 * half
        der = encode_dss_signature(int.from_bytes(sig[:half], "big"), int.from_bytes(sig[half:], "big"))
        key.public_key().verify(der, data, ec.ECDSA(hashes.SHA384()))
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA384())))
        theirs = r.to_bytes(half, "big") + s.to_bytes(half, "big")
    else:
        assert len(sig) == 384
        key.public_key().verify(sig, data, padding.PKCS1v15(), hashes.SHA256())
        theirs = key.sign(data, padding.PKCS1v15(), hashes.SHA256())
        assert theirs == sig          # v1.5 is deterministic
    assert tool("verify", algo, hi.hex(), data.hex(), theirs.hex()).strip() == "ok"
    bent = bytearray(theirs)
    bent[5] ^= 1
    assert tool("verify", algo, hi.hex(), data.hex(), bent.hex()).strip() == "fail"
    assert tool("verify", algo, hi.hex(), (data + b"x").hex(), theirs.hex()).strip() == "fail"


# ------------------------------------------------------- the capture (d e f)

@pytest.fixture(scope="module")
def capture():
    pkts = hipref.hip_packets(CAPTURE)
    by_type = {}
    for src, dst, p in pkts:
        by_type.setdefault(p[2] & 0x7f, []).append(p)
    r1, i2 = by_type[T_R1][0], by_type[T_I2][0]
    puzzle, solution = hipref.param(r1, P_PUZZLE), hipref.param(i2, P_SOLUTION)
    hl = len(puzzle) - 4                                  # PUZZLE: K, Lifetime, Opaque(2), #I
    c = {
        "types": by_type,
        "hit_i": i2[8:24], "hit_r": i2[24:40],             # I2: sender = initiator
        "k": puzzle[0], "i": puzzle[4:], "j": solution[4 + hl:],
    }
    assert solution[4:4 + hl] == c["i"] and len(c["j"]) == hl == 48   # SHA-384 suite
    with open(CAPTURE_KEYS) as f:
        text = f.read()
    c["kij"] = int(re.search(r"Kij \(decimal, from initiator log\): (\d+)", text).group(1))
    m = re.search(r"ESP A->B SPI (0x[0-9a-f]+) A->B enc=0x([0-9a-f]+) auth=0x([0-9a-f]+)", text)
    c["spi"], c["enc"], c["auth"] = int(m.group(1), 16), m.group(2), m.group(3)
    c["hits_text"] = re.findall(r"HIT (2001:[0-9a-f:]+)", text)
    return c


def test_d_capture_keymat(capture, tool):
    c = capture
    kij = c["kij"].to_bytes(384, "big")             # 3072-bit MODP: full length
    assert kij[0] != 0                              # (so cutehip's minimal encoding is the same here)
    # the ESP_INFO KEYMAT Index of I2 and R2: 2 * (AES-128 16 + SHA-384 48)
    i2, r2 = c["types"][T_I2][0], c["types"][T_R2][0]
    for p in (i2, r2):
        assert int.from_bytes(hipref.param(p, P_ESP_INFO)[2:4], "big") == 128
    assert int.from_bytes(hipref.param(i2, P_ESP_INFO)[8:12], "big") == 0x556d1b3e
    assert int.from_bytes(hipref.param(r2, P_ESP_INFO)[8:12], "big") == c["spi"]   # B's inbound SPI: A->B
    km = hipref.keymat(2, kij, c["i"], c["j"], c["hit_i"], c["hit_r"], 128 + 2 * (16 + 32))
    keys = hipref.draw_keys(km, 2, 2, 8, 128)
    # A (the initiator) has the greater HIT: A->B is the "gl" direction
    assert c["hit_i"] > c["hit_r"]
    assert keys["esp_enc_gl"].hex() == c["enc"]
    assert keys["esp_auth_gl"].hex() == c["auth"]
    # and the C library derives the same
    got = tool("keymat", 2, kij.hex(), c["i"].hex(), c["j"].hex(), c["hit_i"].hex(), c["hit_r"].hex(), len(km))
    assert got.strip() == km.hex()
    out = dict(line.split("=") for line in tool("keys", 2, 2, 8, 128, km.hex()).split())
    assert out["esp_enc_gl"] == c["enc"] and out["esp_auth_gl"] == c["auth"]


def test_e_capture_hits(capture, tool):
    c = capture
    seen = []
    for t, sender in ((T_R1, c["hit_r"]), (T_I2, c["hit_i"])):
        p = c["types"][t][0]
        algo, hi = hipref.host_id_hi(hipref.param(p, P_HOST_ID))
        assert algo == hipref.HI_ALGO_ECDSA and len(hi) == 99 and hi[:3] == b"\x00\x02\x04"
        hit = hipref.orchid(2, hi)
        assert hit == sender == p[8:24]
        assert tool("hit-of-hi", algo, hi.hex()).split() == [hipref.hit_str(hit), hit.hex()]
        seen.append(hipref.hit_str(hit))
    # the keys file names the same two HITs (written with zero-padded groups there)
    assert sorted(seen) == sorted(hipref.hit_str(bytes.fromhex(h.replace(":", ""))) for h in c["hits_text"])


def test_f_capture_puzzle(capture, tool):
    """cutehip hashes I | HIT-R | HIT-I | J; RFC 7401 4.1.2 and 6.3 say
    I | HIT-I | HIT-R | J. RFC 7401 is right; the J in the capture holds only
    under cutehip's own order."""
    c = capture
    args = (2, c["k"], c["i"].hex(), c["hit_i"].hex(), c["hit_r"].hex(), c["j"].hex())
    assert c["k"] == 16
    assert hipref.puzzle_ok(2, c["k"], c["i"], c["hit_i"], c["hit_r"], c["j"], order="cutehip")
    assert not hipref.puzzle_ok(2, c["k"], c["i"], c["hit_i"], c["hit_r"], c["j"], order="rfc")
    assert tool("puzzle-verify", *args, "cutehip").strip() == "ok"
    assert tool("puzzle-verify", *args).strip() == "fail"
