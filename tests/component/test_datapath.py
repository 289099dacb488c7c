# SPDX-License-Identifier: BSD-3-Clause
"""hipgw end to end on good traffic, for every suite and both outer families:
outbound ESP must decrypt with scapy to the
original packets (TTL / hop limit - 1), inbound ESP made by scapy must come out
intact (TTL / hop limit - 1). One hipgw run per suite and outer family carries
both directions; test_outbound and test_inbound check one each."""

import random
import struct
import zlib

import pytest
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6

import gwlib
from gwlib import SUITE_NAMES, SUITES, check_drops

N_OUT = 300
N_IN = 200
INNER_SITE = {4: "10.1.0.0/24", 6: "fd00:1::/64"}
REMOTE_SITE = {4: "10.2.0.0/16", 6: "fd00:2::/48"}
HOSTS = {4: gwlib.HOST4, 6: gwlib.HOST6}

_runs = {}


def _both_ways(gw_factory, suite, outer):
    """Run (once per module) hipgw with N_OUT packets into the inner port and N_IN
    ESP packets into the outer port."""
    key = (suite, outer)
    if key in _runs:
        return _runs[key]
    rng = random.Random(zlib.crc32(("both-%s-%d" % key).encode()))
    out, inn = gwlib.make_sa_pair(rng, suite, outer)
    mx = gwlib.max_inner(SUITES[suite], outer)
    outbound = gwlib.mixed_traffic(rng, N_OUT, mx, INNER_SITE, REMOTE_SITE)
    inbound = gwlib.mixed_traffic(rng, N_IN, 1450, REMOTE_SITE, HOSTS)
    lan_in = [gwlib.lan_frame(b) for b in outbound]
    wan_in = [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
              for i, b in enumerate(inbound)]
    gw = gw_factory()
    try:
        r = gw.run([out, inn], lan_in, wan_in, check=False)
        err = None
    except BaseException as e:         # binary missing: same failure for both tests
        r, err = None, e
    _runs[key] = (out, inn, outbound, inbound, r, err)
    return _runs[key]


@pytest.fixture
def both_ways(tmp_path_factory):
    def get(suite, outer):
        out, inn, ob, ib, r, err = _both_ways(
            lambda: gwlib.Gateway(tmp_path_factory.mktemp("both-%s-v%d" % (suite, outer))),
            suite, outer)
        if err is not None:
            raise err
        gwlib.check_clean_run(r)
        return out, inn, ob, ib, r
    return get


@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_outbound(both_ways, suite, outer):
    out, inn, sent, _, r = both_ways(suite, outer)
    frames = gwlib.data_frames(r.wan_out)
    assert len(frames) == len(sent), \
        "%d data frames on the outer port, expected %d ESP (drops: %s)" % (
            len(frames), len(sent), r.drops)
    dec = gwlib.decrypt_outbound(out, frames)
    seqs = [d.seq for d in dec]
    assert seqs == list(range(1, len(sent) + 1)), "sequence numbers not 1..N in order: %s" % (
        seqs[:40])
    problems = gwlib.match_forwarded(sent, [d.inner for d in dec], what="inner packet")
    assert not problems, "\n".join(problems[:20])
    # DSCP copied, ECN copied (RFC 6040 normal mode) into the outer header
    bad = [(d.seq, gwlib.inner_tos(gwlib.ip_layer(d.frame)), gwlib.inner_tos(d.inner))
           for d in dec if gwlib.inner_tos(gwlib.ip_layer(d.frame)) != gwlib.inner_tos(d.inner)]
    assert not bad, "outer TOS/traffic class differs from inner (seq, outer, inner): %s" % bad[:10]
    ivs = [d.iv for d in dec]
    if SUITES[suite].iv_len:
        assert len(set(ivs)) == len(ivs), "IV reused within one SA"
    if SUITES[suite].kind == "cbc":
        ints = [int.from_bytes(iv, "big") for iv in ivs]
        steps = {b - a for a, b in zip(ints, ints[1:])}
        assert len(steps) > 1, "CBC IVs form an arithmetic progression: predictable (RFC 3602)"
    sa = r.sa(out.name)
    assert _spi(sa["spi"]) == out.spi, sa
    assert sa["packets"] == len(sent), ("out SA packets", sa, len(sent))
    assert sa["bytes"] == sum(len(b) for b in sent), ("out SA bytes (inner packets)", sa,
                                                      sum(len(b) for b in sent))
    check_drops(r)
    gwlib.check_ports(r, lan_rx=N_OUT, wan_rx=N_IN)


@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
@pytest.mark.parametrize("suite", SUITE_NAMES)
def test_inbound(both_ways, suite, outer):
    out, inn, _, sent, r = both_ways(suite, outer)
    frames = gwlib.data_frames(r.lan_out)
    wrong = [(i, f.src, f.dst) for i, f in enumerate(frames)
             if f.src.lower() != gwlib.LAN_MAC or f.dst.lower() != gwlib.HOST_MAC]
    assert not wrong, "inner frames with wrong MACs (index, src, dst): %s" % wrong[:10]
    problems = gwlib.match_forwarded(sent, [gwlib.inner_bytes_of(f) for f in frames],
                                     what="inner packet")
    assert not problems, "\n".join(problems[:20])
    sa = r.sa(inn.name)
    assert _spi(sa["spi"]) == inn.spi, sa
    assert sa["packets"] == len(sent), ("in SA packets", sa, len(sent))
    assert sa["bytes"] == sum(len(b) for b in sent), ("in SA bytes (inner packets)", sa,
                                                      sum(len(b) for b in sent))
    check_drops(r)


def _spi(v):
    return int(v, 0) if isinstance(v, str) else v


# --------------------------------------------------------------------------
# ESN (RFC 4303 2.2.1)

@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes256-cbc-sha256"])
def test_esn(gw, rng, suite):
    """esn = on in both directions. Outbound: GCM decrypts with scapy esn_en=True
    (and not without), HMAC suites verify with the reference ESP (ICV over the
    high sequence bits). Inbound: ESN ESP passes; one packet made without ESN in
    the middle is an ICV failure (auth)."""
    out, inn = gwlib.make_sa_pair(rng, suite, 4, esn=True)
    mx = gwlib.max_inner(SUITES[suite], 4)
    outbound = gwlib.mixed_traffic(rng, 60, mx, INNER_SITE, REMOTE_SITE)
    inbound = gwlib.mixed_traffic(rng, 40, 1400, REMOTE_SITE, HOSTS)
    wan_in = []
    for i, b in enumerate(inbound):
        if SUITES[suite].kind == "gcm":
            wan_in.append(gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng)))
        else:
            wan_in.append(gwlib.esp_frame_ref(inn, b, i + 1))
    # a packet whose ICV was computed without ESN, sequence number never used else
    noesn = gwlib.SA(**{**inn.__dict__, "esn": False})
    bad = gwlib.inner_packet(rng, 4, "10.2.3.4", gwlib.HOST4, 200)
    wan_in.insert(20, gwlib.esp_frame_ref(noesn, bad, 1000))
    r = gw.run([out, inn], [gwlib.lan_frame(b) for b in outbound], wan_in)
    frames = gwlib.data_frames(r.wan_out)
    assert len(frames) == len(outbound), (len(frames), r.drops)
    dec = gwlib.decrypt_outbound(out, frames, esn_hi=0)
    assert [d.seq for d in dec] == list(range(1, len(outbound) + 1))
    assert not gwlib.match_forwarded(outbound, [d.inner for d in dec])
    if SUITES[suite].kind == "gcm":
        plain = gwlib.SA(**{**out.__dict__, "esn": False}).scapy()
        ip = gwlib.ip_layer(frames[0])
        with pytest.raises(Exception):
            plain.decrypt(IP(bytes(ip)))     # the ESN AAD (SPI, seq hi, seq lo) was used
    problems = gwlib.match_forwarded(inbound, [gwlib.inner_bytes_of(f)
                                               for f in gwlib.data_frames(r.lan_out)])
    assert not problems, "\n".join(problems[:20])
    check_drops(r, auth=1)


# --------------------------------------------------------------------------
# GCM nonce never reused across restarts

def test_gcm_restart_no_nonce_reuse(gw, rng, tmp_path):
    state = str(tmp_path / "ab.seq")
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4, state=state)
    mx = gwlib.max_inner(out.suite, 4)

    def one_run(sa, n):
        traffic = gwlib.mixed_traffic(rng, n, mx, INNER_SITE, REMOTE_SITE)
        r = gw.run([sa, inn], [gwlib.lan_frame(b) for b in traffic])
        frames = gwlib.data_frames(r.wan_out)
        assert len(frames) == n, (len(frames), r.drops)
        dec = gwlib.decrypt_outbound(sa, frames)
        assert not gwlib.match_forwarded(traffic, [d.inner for d in dec])
        check_drops(r)
        return dec

    d1 = one_run(out, 40)
    s1 = [d.seq for d in d1]
    assert s1 == list(range(1, 41)), "first run: %s" % s1
    import os
    assert os.path.exists(state), "no state file %s after the first run" % state
    d2 = one_run(out, 40)
    s2 = [d.seq for d in d2]
    assert min(s2) > max(s1), \
        "second run with the same key reused sequence numbers (nonces): first run %d..%d, " \
        "second %d..%d" % (min(s1), max(s1), min(s2), max(s2))
    assert s2 == sorted(s2) and len(set(s2)) == len(s2), "second run: %s" % s2
    nonces1 = {d.iv for d in d1}
    nonces2 = {d.iv for d in d2}
    assert not nonces1 & nonces2, "GCM IVs reused across the restart: %s" % sorted(
        x.hex() for x in nonces1 & nonces2)[:5]
    # a new key starts again at 1
    k, _ = gwlib.make_keys(rng, out.suite)
    out3 = gwlib.SA(**{**out.__dict__, "key": k})
    d3 = one_run(out3, 20)
    assert [d.seq for d in d3] == list(range(1, 21)), \
        "new key: sequence numbers %s, expected 1..20" % [d.seq for d in d3]
    # the first key again (a start with a mistyped key, or a key rotated back):
    # its mark survived the other key's run, so it resumes above its second run
    d4 = one_run(out, 20)
    s4 = [d.seq for d in d4]
    assert min(s4) > max(s2), \
        "the first key after another key's run reused sequence numbers (nonces): second " \
        "run %d..%d, fourth %d..%d" % (min(s2), max(s2), min(s4), max(s4))
    assert not {d.iv for d in d4} & (nonces1 | nonces2), "GCM IVs of the first key reused"
    # the same key under another SPI is the same nonce space (RFC 4106 3.1: the
    # nonce is salt and IV only): it goes on above the key's mark
    out5 = gwlib.SA(**{**out.__dict__, "spi": out.spi + 0x10})
    s5 = [d.seq for d in one_run(out5, 10)]
    assert min(s5) > max(s4), \
        "the first key under a new SPI restarted its sequence numbers: %d..%d after %d..%d" % (
            min(s5), max(s5), min(s4), max(s4))


def test_gcm_state_unwritable_refuses_start(gw, rng, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory\n")
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4, state=str(blocker / "ab.seq"))
    traffic = gwlib.mixed_traffic(rng, 10, 500, INNER_SITE, REMOTE_SITE)
    r = gw.run([out, inn], [gwlib.lan_frame(b) for b in traffic], check=False)
    assert not r.timed_out, r.describe()
    assert "AddressSanitizer" not in r.stderr, r.describe()
    assert r.rc not in (0, None) and r.rc > 0, \
        "hipgw started (or crashed) with an unwritable GCM state file: " + r.describe()
    esp = [f for f in (r.wan_out or []) if gwlib.ip_layer(f) is not None]
    assert not esp, "hipgw sent %d packets anyway" % len(esp)


def test_mbufs_size_and_all_returned(gw, rng):
    """stats "mbufs": the pool holds [gateway] mbufs buffers, and once both
    directions' traffic went through (net_pcap keeps no buffer) and hipgw
    stopped, every mbuf is back in the pool: in_use 0, nothing leaked."""
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    outbound = gwlib.mixed_traffic(rng, N_OUT, 1400, INNER_SITE, REMOTE_SITE)
    inbound = gwlib.mixed_traffic(rng, N_IN, 1400, REMOTE_SITE, HOSTS)
    r = gw.run([out, inn], [gwlib.lan_frame(b) for b in outbound],
               [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
                for i, b in enumerate(inbound)], gateway_extra="mbufs = 4096")
    check_drops(r)
    assert r.sa(out.name)["packets"] == N_OUT and r.sa(inn.name)["packets"] == N_IN, r.stats["sa"]
    assert r.stats["mbufs"] == {"size": 4096, "in_use": 0}, r.stats["mbufs"]
