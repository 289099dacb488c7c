# SPDX-License-Identifier: BSD-3-Clause
"""[sa-gen] (benchmarking / lab feature): a generated set of
1000 SAs in both directions. The test computes the SPIs, prefixes and keys with
its own copy of the documented generator (perf/sagen.py: splitmix64, the
permutation of lib/conf/gw_sagen.h), then checks that hipgw installed exactly
those: traffic to a handful of the generated prefixes leaves encrypted with
the SPI and key the generator gives for that SA (scapy decrypts it), ESP that
scapy makes with SA i's SPI and key comes out decrypted, traffic to a network
of the block that no SA owns is dropped. A second run installs after start (the
default): the stats file reports every SA installed. Config errors in the
section are FILE:LINE."""

import os
import random
import re
import sys

import pytest
from scapy.layers.inet import IP

import gwlib

sys.path.insert(0, os.path.join(gwlib.REPO, "perf"))
import sagen  # noqa: E402

COUNT = 1000
BLOCK, BLOCK_LEN, PLEN = "16.0.0.0", 12, 24      # 4096 /24 networks, 1000 used
SEEDS = dict(spi=0x5eed, prefix=77, key=0xC0FFEE)
SUITE = "aes128-gcm16"
PICK = (0, 1, 2, 499, 998, 999)                   # the SAs traffic goes through


def sagen_section(install="before-start", direction="both", count=COUNT, extra=()):
    return "\n".join([
        "", "[sa-gen bench]", "count = %d" % count, "direction = %s" % direction,
        "suite = %s" % SUITE, "local = %s" % gwlib.WAN4, "remote = %s" % gwlib.PEER4,
        "prefixes = %s/%d" % (BLOCK, BLOCK_LEN), "prefix-len = %d" % PLEN,
        "spi-seed = 0x%x" % SEEDS["spi"], "prefix-seed = %d" % SEEDS["prefix"],
        "key-seed = 0x%x" % SEEDS["key"], "batch = 100", "install = %s" % install] +
        (["replay-window = 1024"] if direction != "out" else []) + list(extra)) + "\n"


def write(d, section):
    path = gwlib.write_config(d, [])
    with open(path, "a") as f:
        f.write(section)
    return path


def generated():
    spis = sagen.spis(COUNT, SEEDS["spi"])
    nets = sagen.prefix_ints(COUNT, sagen.ip_int(BLOCK), BLOCK_LEN, PLEN, SEEDS["prefix"])
    sas = []
    for i in range(COUNT):
        key, auth = sagen.keys(i, SEEDS["key"], SUITE)
        pfx = "%s/%d" % (sagen.ip_str(nets[i]), PLEN)
        common = dict(spi=spis[i], suite=gwlib.SUITES[SUITE], key=key, auth_key=auth,
                      local=gwlib.WAN4, remote=gwlib.PEER4, prefixes=(pfx,))
        sas.append((gwlib.SA("g%d-out" % i, "out", **common),
                    gwlib.SA("g%d-in" % i, "in", **common), nets[i]))
    return sas


def test_generator_properties():
    """Distinct SPIs >= 256, distinct /24s inside the block: what the C side relies on."""
    spis = sagen.spis(COUNT, SEEDS["spi"])
    assert len(set(spis)) == COUNT and min(spis) >= 256
    nets = sagen.prefix_ints(COUNT, sagen.ip_int(BLOCK), BLOCK_LEN, PLEN, SEEDS["prefix"])
    assert len(set(nets)) == COUNT
    assert all((n >> 20) == (sagen.ip_int(BLOCK) >> 20) and n & 0xFF == 0 for n in nets)
    p = sagen.Perm(3, 12)
    assert sorted(p(x) for x in range(4096)) == list(range(4096))


def test_sagen_installs_the_documented_sas(gw, rng):
    sas = generated()
    d = gw.dir()
    path = write(d, sagen_section())
    lan_in, wan_in, inner_out, inner_in = [], [], [], []
    for i in PICK:
        out, inn, net = sas[i]
        dst = sagen.ip_str(net + rng.randint(2, 250))
        b = gwlib.inner_packet(rng, 4, gwlib.HOST4, dst, 100, proto="udp", ttl=64)
        inner_out.append((i, b))
        lan_in.append(gwlib.lan_frame(b))
        src = sagen.ip_str(net + rng.randint(2, 250))
        b = gwlib.inner_packet(rng, 4, src, gwlib.HOST4, 120, proto="udp", ttl=64)
        inner_in.append((i, b))
        wan_in.append(gwlib.esp_frame_scapy(inn, b, 1, iv=gwlib.scapy_iv(inn, rng)))
    # a network of the block that no SA owns: dropped, never sent in clear
    used = {n for _, _, n in sas}
    free = next(n for n in range(sagen.ip_int(BLOCK), sagen.ip_int(BLOCK) + (1 << 20), 256)
                if n not in used)
    lan_in.append(gwlib.lan_frame(gwlib.inner_packet(rng, 4, gwlib.HOST4,
                                                     sagen.ip_str(free + 9), 80, proto="udp")))
    r = gwlib.run_hipgw(d, path, lan_in, wan_in)
    gwlib.check_clean_run(r)
    g = r.stats["sa_gen"]
    assert g["count"] == COUNT and g["installed"] == COUNT and g["done"] == 1 and \
        g["failed"] == 0 and g["directions"] == 2, g
    assert g["packets"] == 2 * len(PICK), g
    assert g["bytes_per_sa"] > 0, g
    # outbound: one ESP frame per picked SA, its SPI and key
    esp = gwlib.data_frames(r.wan_out)
    assert len(esp) == len(PICK), "%d ESP frames, expected %d" % (len(esp), len(PICK))
    for f, (i, b) in zip(esp, inner_out):
        dec = gwlib.decrypt_outbound(sas[i][0], [f])[0]
        assert not gwlib.match_forwarded([b], [dec.inner], what="SA %d" % i)
    # inbound: decrypted with SA i's key, out on the inner port
    got = [bytes(f[IP]) for f in gwlib.data_frames(r.lan_out)]
    assert len(got) == len(PICK), "%d inner frames, expected %d" % (len(got), len(PICK))
    assert not gwlib.match_forwarded([b for _, b in inner_in], got, what="inbound")
    gwlib.check_drops(r, no_sa=1)


def test_sagen_installs_after_start(gw, rng):
    """The default: the control lcore installs in batches after the workers
    started; every SA ends up installed and nothing leaves in clear."""
    sas = generated()
    d = gw.dir()
    path = write(d, sagen_section(install="after-start", direction="out"))
    lan_in = []
    for i in range(0, COUNT, 50):
        dst = sagen.ip_str(sas[i][2] + 5)
        lan_in.append(gwlib.lan_frame(gwlib.inner_packet(rng, 4, gwlib.HOST4, dst, 80,
                                                         proto="udp", ttl=64)))
    r = gwlib.run_hipgw(d, path, lan_in)
    gwlib.check_clean_run(r)
    g = r.stats["sa_gen"]
    assert g["installed"] == COUNT and g["done"] == 1 and g["directions"] == 1, g
    assert g["sas_per_s"] > 0 and g["elapsed_ns"] > 0, g
    esp = gwlib.data_frames(r.wan_out)
    # each frame either went through its SA (installed in time) or was no_sa
    assert len(esp) + r.drops["no_sa"] == len(lan_in), (len(esp), r.drops)
    by_spi = {s[0].spi: s[0] for s in sas}
    for f in esp:
        spi = int.from_bytes(bytes(f[IP])[20:24], "big")
        assert spi in by_spi, "unknown SPI 0x%x" % spi
        gwlib.decrypt_outbound(by_spi[spi], [f])


BAD = [
    ("count = %d" % COUNT, "count = 0", "count"),
    ("count = %d" % COUNT, "count = 5000", "holds 4096"),
    ("direction = both", "direction = sideways", "direction"),
    ("prefixes = ", "prefixes = fd00::/16", "IPv4"),
    ("prefixes = ", "prefixes = 16.0.0.1/12", "host bits"),
    ("prefixes = ", "prefixes = 10.0.0.0/12", "overlaps the network 10.1.0.1/24 of port lan"),
    ("prefix-len = ", "prefix-len = 8", "shorter"),
    ("prefix-len = ", "prefix-len = 33", "prefix-len"),
    ("spi-seed = ", "spi-seed = 0x123456789", "spi-seed"),
    ("key-seed = ", "key-seed = -1", "key-seed"),
    ("local = ", "local = 192.0.2.9", "not an address of an outer port"),
    ("batch = ", "batch = 0", "batch"),
    ("install = ", "install = later", "install"),
    ("replay-window = ", "replay-window = 100", "replay-window"),
    ("count = %d" % COUNT, "colour = blue", "unknown key"),
]


@pytest.mark.parametrize("prefix,new,msg", BAD, ids=[b[1] for b in BAD])
def test_sagen_config_errors(tmp_path, prefix, new, msg):
    d = str(tmp_path)
    path = write(d, sagen_section())
    lines = open(path).read().split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.startswith(prefix))
    lines[at] = new
    open(path, "w").write("\n".join(lines))
    gwlib.Gateway(d).require()
    rc, out, err, to = gwlib.run_process([gwlib.hipgw_binary(), "--check-config", path], d,
                                         timeout=30)
    text = (out + err).strip()
    assert rc == 2, "rc=%s: %s" % (rc, text)
    want = "%s:%d:" % (path, at + 1)
    assert want in text and msg in text, "expected %s ... %s, got: %s" % (want, msg, text)


def test_sagen_second_section_and_missing_key(tmp_path):
    d = str(tmp_path)
    path = write(d, sagen_section() + "\n[sa-gen other]\ncount = 1\n")
    rc, out, err, _ = gwlib.run_process([gwlib.hipgw_binary(), "--check-config", path], d,
                                        timeout=30)
    lines = open(path).read().split("\n")
    at = lines.index("[sa-gen other]") + 1
    assert rc == 2 and re.search(r"%s:%d: too many \[sa-gen\]" % (re.escape(path), at), out + err), \
        out + err
    path = write(d, sagen_section().replace("suite = %s\n" % SUITE, ""))
    rc, out, err, _ = gwlib.run_process([gwlib.hipgw_binary(), "--check-config", path], d,
                                        timeout=30)
    at = open(path).read().split("\n").index("[sa-gen bench]") + 1
    assert rc == 2 and "%s:%d:" % (path, at) in out + err and "suite" in out + err, out + err
