#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the expected values that lib/hipcrypto's C unit test (tests/unit/
test_hipcrypto.c) checks against, computed here by the independent Python
reference (hipref.py):

  tests/data/hip/keys/expected.txt   HIT and HI of each fixed test key
  tests/data/hip/keymat-vectors.txt  KEYMAT (RFC 7401 6.5) and drawn keys

Run from the repo root: /usr/bin/python3 tests/hip/gen_vectors.py
test_hipcrypto_ref.py checks that the committed files equal this output.
"""

import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hipref  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEYS_DIR = os.path.join(REPO, "tests", "data", "hip", "keys")
KEY_FILES = ["ecdsa-p256.pem", "ecdsa-p384.pem", "ecdsa-p384-b.pem", "rsa3072.pem"]


def expected_keys_text():
    lines = ["# file  HI-algorithm  HIT-suite  HIT  HI(hex): computed by tests/hip/hipref.py",
             "# (independent of lib/hipcrypto); regenerate with tests/hip/gen_vectors.py"]
    for name in KEY_FILES:
        hit, algo, hi = hipref.pem_hit(os.path.join(KEYS_DIR, name))
        lines.append("%s %d %d %s %s" % (name, algo, hipref.SUITE_OF_ALGO[algo],
                                         hipref.hit_str(hit), hi.hex()))
    return "\n".join(lines) + "\n"


def det(label, n):
    """n deterministic bytes from a label (SHA-256 in counter mode)."""
    out, c = b"", 0
    while len(out) < n:
        out += hashlib.sha256(b"%s/%d" % (label.encode(), c)).digest()
        c += 1
    return out[:n]


# (suite, kij length, HIT-I > HIT-R?, HIP_CIPHER, ESP suite)
VECTORS = [
    (2, 384, True, 2, 8),      # like the capture: SHA-384, MODP-3072, AES-128-CBC, ESP 8
    (2, 48, False, 4, 13),     # SHA-384, P-384 ECDH, AES-256-CBC, AES-GCM-16
    (1, 32, True, 1, 7),       # SHA-256, P-256 ECDH, NULL HIP cipher, NULL+HMAC-SHA-256
    (1, 384, False, 4, 9),     # SHA-256, MODP-3072, AES-256-CBC, ESP 9
]


def keymat_vectors_text():
    lines = ["# KEYMAT (RFC 7401 6.5: HKDF-RHASH, salt I|J, IKM Kij, info sort(HIT-I|HIT-R))",
             "# and the keys drawn from it (RFC 7401 6.5, RFC 7402 7), computed by",
             "# tests/hip/hipref.py (independent of lib/hipcrypto). Kij starts with a zero",
             "# byte: it must be used at its full length. Regenerate: tests/hip/gen_vectors.py"]
    for n, (suite, kij_len, i_greater, cipher, esp) in enumerate(VECTORS, 1):
        hl = hipref.rhash_len(suite)
        kij = b"\x00" + det("kij%d" % n, kij_len - 1)
        i, j = det("I%d" % n, hl), det("J%d" % n, hl)
        lo = bytes.fromhex("2001002%d" % suite) + det("hitlo%d" % n, 12)
        hi = bytearray(lo)
        hi[4] |= 0x80
        lo = bytearray(lo)
        lo[4] &= 0x7f
        hit_i, hit_r = (bytes(hi), bytes(lo)) if i_greater else (bytes(lo), bytes(hi))
        esp_index = 2 * (hipref.CIPHER_KEY_LEN[cipher] + hl)
        el, al = hipref.ESP_KEY_LENS[esp]
        length = esp_index + 2 * (el + al) + 7     # a length that is no multiple of RHASH
        km = hipref.keymat(suite, kij, i, j, hit_i, hit_r, length)
        keys = hipref.draw_keys(km, suite, cipher, esp, esp_index)
        lines += ["", "[vector %d]" % n, "suite = %d" % suite, "cipher = %d" % cipher,
                  "esp = %d" % esp, "esp_index = %d" % esp_index,
                  "kij = " + kij.hex(), "i = " + i.hex(), "j = " + j.hex(),
                  "hit_i = " + hit_i.hex(), "hit_r = " + hit_r.hex(), "keymat = " + km.hex()]
        for name in ("hip_enc_gl", "hip_int_gl", "hip_enc_lg", "hip_int_lg",
                     "esp_enc_gl", "esp_auth_gl", "esp_enc_lg", "esp_auth_lg"):
            lines.append("%s = %s" % (name, keys[name].hex() if keys[name] else "-"))
    return "\n".join(lines) + "\n"


OUTPUTS = {
    os.path.join(KEYS_DIR, "expected.txt"): expected_keys_text,
    os.path.join(REPO, "tests", "data", "hip", "keymat-vectors.txt"): keymat_vectors_text,
}

if __name__ == "__main__":
    for path, fn in OUTPUTS.items():
        with open(path, "w") as f:
            f.write(fn())
        print("wrote", os.path.relpath(path, REPO))
