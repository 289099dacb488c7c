"""[sa-gen] in Python: the same SPIs, prefixes and keys as hipgw's generator
(lib/conf/gw_sagen.h has the definitions; this follows them line by line).
Used by perf/esp-bench to build its pcaps and by tests/component to check
what hipgw installed. Benchmarking / lab only: the keys follow from the seed.
"""

M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
KEY_LEN = {"aes128-gcm16": 20, "aes256-gcm16": 36, "aes128-cbc-sha256": 16,
           "aes256-cbc-sha256": 32, "null-sha256": 0}
AUTH_LEN = {"aes128-gcm16": 0, "aes256-gcm16": 0, "aes128-cbc-sha256": 32,
            "aes256-cbc-sha256": 32, "null-sha256": 32}


class SplitMix64:
    def __init__(self, state):
        self.s = state & M64

    def next(self):
        self.s = (self.s + GAMMA) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)


class Perm:
    """perm(seed, bits, x): a bijection of [0, 2^bits); constants drawn once."""

    def __init__(self, seed, bits):
        self.bits = bits
        self.mask = (1 << bits) - 1
        self.sh = (bits + 1) // 2
        r = SplitMix64(seed)
        self.rounds = []
        for _ in range(3):
            m = r.next() | 1
            a = r.next()
            self.rounds.append((m & self.mask, a & self.mask))

    def __call__(self, x):
        if self.bits == 0:
            return 0
        v = x & self.mask
        for m, a in self.rounds:
            v = (v * m + a) & self.mask
            v ^= v >> self.sh
        return v


def spis(count, spi_seed):
    """SPIs of SAs 0..count-1."""
    p = Perm(spi_seed, 32)
    out, j = [], 0
    while len(out) < count:
        v = p(j)
        j += 1
        if v >= 256:
            out.append(v)
    return out


def prefix_ints(count, block, block_len, prefix_len, prefix_seed):
    """Network addresses (IPv4 as int) of SAs 0..count-1; block is an int."""
    p = Perm(prefix_seed, prefix_len - block_len)
    sh = 32 - prefix_len
    return [block + (p(i) << sh) for i in range(count)]


def keybuf(i, key_seed):
    """K of SA i: 128 bytes; key = K[:key length], auth-key = K[64:96]."""
    r = SplitMix64((key_seed << 32) + i)
    return b"".join(r.next().to_bytes(8, "little") for _ in range(16))


def keys(i, key_seed, suite):
    k = keybuf(i, key_seed)
    return k[:KEY_LEN[suite]], k[64:64 + AUTH_LEN[suite]]


def ip_str(v):
    return ".".join(str((v >> s) & 0xFF) for s in (24, 16, 8, 0))


def ip_int(s):
    a = [int(x) for x in s.split(".")]
    return (a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]


def prefix_array(count, block, block_len, prefix_len, prefix_seed):
    """prefix_ints with numpy (the same values), as a uint64 array."""
    import numpy as np
    p = Perm(prefix_seed, prefix_len - block_len)
    v = np.arange(count, dtype=np.uint64)
    if p.bits == 0:
        v[:] = 0
    else:
        mask, sh = np.uint64(p.mask), np.uint64(p.sh)
        with np.errstate(over="ignore"):
            for m, a in p.rounds:
                v = (v * np.uint64(m) + np.uint64(a)) & mask
                v ^= v >> sh
    return np.uint64(block) + (v << np.uint64(32 - prefix_len))
