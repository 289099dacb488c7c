# SPDX-License-Identifier: BSD-3-Clause
"""L2 bridge MAC learning through the real binary, in order: hipgw with both
ports on net_af_packet, on veths into namespaces of this test's
(hgl2-t<pid>-gw / -peer), where test_pmtu's relay hands frames between the
veths and this test, which is both the local segment (lan veth) and the two
remote gateways of a manually keyed bridge (wan veth: scapy's ESP).

The order comes from a barrier: an ICMP echo to the gateway's WAN address.
The control lcore applies a worker's MAC learn requests before it answers a
packet that worker punted after them, so once the echo reply is back, every
frame sent before it has been learned; a second echo makes sure that what
the worker sent before the first reply has arrived too (settle).

* a source learned at remote 1 takes later frames to it to remote 1 alone,
  a move to remote 0 to remote 0, a move to the local segment nowhere
  (l2_local); unknown destinations keep being flooded to both;
* the key is (MAC, outer VLAN ID): learned on VLAN 10, flooded untagged and
  on VLAN 20;
* mac-table-size = 2: of five sources the first two are learned, frames to
  the other three flood;
* mac-age = 10 (the least the config takes): a learned MAC unheard for that
  long is forgotten and frames to it flood again."""

import os
import time

import pytest
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

import gwlib
from gwlib import check_drops
from test_l2 import ETHERIP_HDR, etherip_in, frame, frames_to, two_remotes, bridge_section
from test_pmtu import Gateway, Link, veth

NS = "hgl2-t%d" % os.getpid()
LAN_GW, LAN_PEER, WAN_GW, WAN_PEER = "ll-gw", "ll-peer", "lw-gw", "lw-peer"
AGE_WAIT_S = 40                      # seconds the ageing test waits at most

X = "02:00:00:00:0b:01"              # a host behind a remote
L = "02:00:00:00:0a:01"              # hosts on the local segment
L2 = "02:00:00:00:0a:02"


@pytest.fixture(scope="module")
def netns():
    with gwlib.namespaces(NS + "-gw", NS + "-peer") as (gw, peer):
        veth(gw, LAN_GW, gwlib.LAN_MAC, peer, LAN_PEER)
        veth(gw, WAN_GW, gwlib.WAN_MAC, peer, WAN_PEER)
        yield gw, peer


class Bridge:
    """A gateway with a bridge of two remotes on the namespace's veths, and
    the relay: frames from the segment or from remote r, and what the gateway
    sent to each remote."""

    def __init__(self, netns, d, extra=""):
        self.sas = two_remotes()
        cfg = gwlib.write_config(str(d), self.sas, lan_extra="mode = l2",
                                 lan_device="net_af_packet0,iface=" + LAN_GW,
                                 wan_device="net_af_packet1,iface=" + WAN_GW)
        with open(cfg, "a") as f:
            f.write(bridge_section(self.sas, extra))
        self.gw = Gateway(netns[0], d, cfg)
        self.link = Link(netns[1], lan=LAN_PEER, wan=WAN_PEER)
        self.seq = [0, 0]
        self.n = 0

    def local(self, f):
        self.link.send(self.link.lan, Ether(f))

    def remote(self, r, f):
        self.seq[r] += 1
        inn = self.sas[1 + 2 * r]
        self.link.send(self.link.wan, etherip_in(inn, ETHERIP_HDR + f, self.seq[r]))
        # by its payload: the peer side's packet socket reads a VLAN tag out of
        # band (the kernel untags on receive), so a tagged frame comes without
        self.link.expect(self.link.lan, lambda g: bytes(g).endswith(f[-40:]),
                         "frame from remote %d" % r)
        # the frame is out, but its learn request may still sit in the ring:
        # the barrier returns once the control lcore applied it
        self.link.barrier(4)

    def settle(self):
        """Both barriers; returns the frames sent to remote 0 and to remote 1
        since the last call (bytes)."""
        self.link.barrier(4)
        self.link.barrier(4)
        got, self.link.seen = self.link.seen, []
        esp = [f for n, f in got if n == WAN_PEER and IP in f and f[IP].proto == 50]
        return frames_to(self.sas[0], esp), frames_to(self.sas[2], esp)

    def probe(self, dst, vlan=None, src=L2):
        """A local frame to dst; returns where it went (sorted remote indices)."""
        self.n += 1
        f = frame(src, dst, b"probe-%d" % self.n, vlan=vlan)
        self.local(f)
        to0, to1 = self.settle()
        where = [r for r, got in ((0, to0), (1, to1)) if f in got]
        assert all(len(g) == (1 if f in g else 0) for g in (to0, to1)), (to0, to1)
        return where

    def stop(self):
        self.link.close()
        return self.gw.stop()


@pytest.fixture
def bridge(netns, tmp_path, request):
    b = Bridge(netns, tmp_path, getattr(request, "param", ""))
    yield b
    if b.gw.p.poll() is None:
        b.link.close()
        b.gw.stop()


def test_learn_and_move(bridge):
    b = bridge
    assert b.probe(X) == [0, 1]                  # unknown: flooded
    b.remote(1, frame(X, L, b"hello from 1"))
    assert b.probe(X) == [1]                     # learned at remote 1
    assert b.probe("02:00:00:00:0e:01") == [0, 1]
    b.remote(0, frame(X, L, b"moved to 0"))
    assert b.probe(X) == [0]                     # moved
    b.local(frame(X, "ff:ff:ff:ff:ff:ff", b"moved here"))
    b.settle()
    assert b.probe(X) == []                      # on this segment now: l2_local
    b.local(frame(L, "ff:ff:ff:ff:ff:ff", b"L is here"))
    b.settle()
    assert b.probe(L) == []
    st = b.stop()
    check_drops(gwlib.Result(0, "", "", False, st, [], [], "", 0), l2_local=2)


def test_vlan_keyed(bridge):
    b = bridge
    b.remote(1, frame(X, L, b"on vlan 10", vlan=10))
    assert b.probe(X, vlan=10) == [1]
    assert b.probe(X) == [0, 1]                  # untagged: another key
    assert b.probe(X, vlan=20) == [0, 1]
    b.remote(0, frame(X, L, b"untagged from 0"))
    assert b.probe(X) == [0]
    assert b.probe(X, vlan=10) == [1]            # its own entry, not moved
    b.stop()


@pytest.mark.parametrize("bridge", ["mac-table-size = 2\n"], indirect=True)
def test_table_bound(bridge):
    b = bridge
    srcs = ["02:00:00:00:0b:%02x" % i for i in range(1, 6)]
    for s in srcs:
        b.remote(1, frame(s, L, b"from " + s.encode()))
    assert [b.probe(s) for s in srcs] == [[1], [1], [0, 1], [0, 1], [0, 1]]
    st = b.stop()
    mac = st["bridges"]["site"]
    assert mac["entries"] == 2 and mac["learned"] == 2, mac
    assert mac["full"] >= 3, mac                 # the three sources refused (and the probes')


@pytest.mark.parametrize("bridge", ["mac-age = 10\n"], indirect=True)
def test_ageing(bridge):
    b = bridge
    b.remote(1, frame(X, L, b"hello"))
    assert b.probe(X) == [1]
    end = time.monotonic() + AGE_WAIT_S
    where = [1]
    while where == [1] and time.monotonic() < end:
        time.sleep(1)
        where = b.probe(X)                       # a frame to X does not refresh X
    assert where == [0, 1], "still learned after %d s (mac-age 10)" % AGE_WAIT_S
    b.stop()
