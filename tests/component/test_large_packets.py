# SPDX-License-Identifier: BSD-3-Clause
"""Inbound ESP larger than one mbuf: reassembled from outer fragments to more
than a default mbuf's data room, and jumbo frames on a port with mtu 9000
(net_pcap hands them over as chained mbufs). Each is decrypted and forwarded
as one frame, byte for byte the inner packet that scapy's ESP encrypted."""

import pytest

import gwlib
from test_bad_input import Feed, check_inbound_good, esp_bytes, fragments4, fragments6, sa_pair
from gwlib import check_drops

JUMBO_MTU = 9000


def pieces_of(length, step):
    """Fragment pieces [(offset, end, more)] of `step` bytes (a multiple of 8)."""
    return [(o, min(o + step, length), o + step < length) for o in range(0, length, step)]


@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
def test_fragmented_esp_beyond_one_mbuf(gw, rng, outer):
    """4000-byte inner packets (IPv4 and IPv6) whose ESP comes in outer
    fragments of at most 1500 bytes: reassembled to about 4 KB, twice what
    one default mbuf holds."""
    out, inn = sa_pair(rng, outer=outer)
    feed = Feed(rng, inn).add_good(4)
    frag, step = (fragments4, 1480) if outer == 4 else (fragments6, 1448)
    for i, fam in enumerate((4, 6, 4)):
        b = feed.inner(size=4000, fam=fam)
        f = gwlib.esp_frame_scapy(inn, b, feed.next_seq(), iv=gwlib.scapy_iv(inn, rng))
        _, esp = esp_bytes(f)
        pieces = pieces_of(len(esp), step)
        if i == 1:
            pieces.reverse()                  # last fragment first
        for x in frag(f, pieces, 0x6000 + i):
            feed.add(x)
        feed.good.append(b)
        feed.add_good(2)
    r = gw.run([out, inn], wan_in=feed.frames, lan_mtu=JUMBO_MTU)
    check_inbound_good(r, feed)
    check_drops(r)


@pytest.mark.parametrize("suite", ["aes128-gcm16", "aes256-cbc-sha256", "null-sha256"])
@pytest.mark.parametrize("outer", [4, 6], ids=["outer4", "outer6"])
def test_jumbo_esp_frame(gw, rng, outer, suite):
    """ESP frames of up to 9000 IP bytes on an outer port with mtu 9000."""
    out, inn = sa_pair(rng, suite, outer=outer)
    feed = Feed(rng, inn).add_good(4)
    biggest = gwlib.max_inner(inn.suite, outer, mtu=JUMBO_MTU)
    for fam, size in ((4, biggest), (6, 6000), (6, biggest), (4, 2100)):
        b = feed.inner(size=size, fam=fam)
        f = gwlib.esp_frame_scapy(inn, b, feed.next_seq(), iv=gwlib.scapy_iv(inn, rng))
        assert len(gwlib.ip_layer(f)) <= JUMBO_MTU
        feed.add(f)
        feed.good.append(b)
        feed.add_good(2)
    r = gw.run([out, inn], wan_in=feed.frames, lan_mtu=JUMBO_MTU, wan_mtu=JUMBO_MTU)
    check_inbound_good(r, feed)
    check_drops(r)
