#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed the fuzz corpora of tests/fuzz from real inputs of the repository.

  hip_packet: every HIP packet of tests/data/hip/*.bin, of the cutehip capture
              (tests/data/cutehip-bex-ecdsa384-modp3072.pcapng, via scapy) and of
              the Base Exchange test vectors (tests/vectors/*.json), each behind
              the harness's variant byte and pseudo-header addresses: once with
              the IPv4 addresses it was sent with (its checksum verifies), once
              with IPv6 addresses and the checksum recomputed for them.
  host_id:    the HOST_ID TLVs of those packets and of the vectors' decrypted I2
              ENCRYPTED contents, and the Host Identities of
              tests/data/hip/keys/expected.txt and of the vectors, as HOST_ID TLVs
              (without and with a Domain Identifier), each once alone and once
              followed by bytes the harness uses as a signature.
  config:     tests/data/conf/*.ini, drivers-cfg/*.ini, and configs written by
              tests/component/gwlib.py's write_config (manual SAs of each suite,
              IPv6 outer addresses, bypass, sa-gen and [peer] variants).
  worker:     frames as the component tests send them (tests/component: ARP,
              NS/NA, ICMP and ICMPv6 echo, MLD, inner traffic to each SA, the
              bypass and nowhere, TTL 1, too big with and without DF, TCP SYNs;
              ESP of both in SAs of tests/fuzz/fuzz_worker.ini, made by the
              reference ESP of gwlib with its keys, whole, fragmented, behind
              IPv6 extension headers and in atomic fragments, too big for the
              inner MTU, with TTL 1, unknown SPIs; EtherIP frames, next header
              97, of the L2 bridge's in SA), one input each or a few together,
              in fuzz_worker.c's records.
  icmp_pmtu:  ICMP fragmentation needed / ICMPv6 Packet Too Big (gwlib's
              icmp_too_big, from its IP header on) quoting ESP packets that
              scapy's ESP made for out SAs of each suite, IPv4 and IPv6 outer
              (DF set as hipgw sets it): whole and shortest quotes, MTUs the
              parser takes and refuses, a bad checksum.

  dhcp:       scripted server replies for fuzz_dhcp.c's records (the full
              exchange, T1 renewal, T2 rebinding, expiry, NAKs, a changed
              address, refused offers, DECLINE, INIT-REBOOT) and scapy's DHCP
              OFFER / ACK / NAK as payloads and as frames.
  esp_inbound: ESP packets that tests/component/gwlib.py's reference ESP
              (ref_encrypt, python3-cryptography) builds with the harness's
              keys around inner packets of gwlib.inner_packet, every suite, ESN
              on and off, IPv4 and IPv6 outer: sound ones, bad padding, next
              header 59, TFC bytes, a flipped ICV bit, cut short; as raw inputs
              (one segment and chained) and as structured records near a 2^32
              boundary of the window (fuzz_esp_inbound.c says the format).
  mbox:       fuzz_mbox.c's structure-aware inputs of short scenarios (a Base
              Exchange, rekeys from either side, CLOSE and a new BEX, a host
              restarted, HOST_ID inside ENCRYPTED with and without the
              config's HIs, IPv6, each rule set, the I1 rate limit, changed
              and re-signed packets, losses and replays, HIP over UDP from
              the start or switched to midway), and the cutehip capture's
              HIP packets as raw-mode inputs, plain and over UDP. The harness records
              the raw-mode input and the state file of each scenario itself
              (HIPGW_FUZZ_WRITE_RAW=tests/fuzz/corpus/mbox).
  etherip:    decrypted L2-mode ESP payloads that scapy's EtherIP (RFC 3378)
              builds around Ethernet frames as an inner port sees them: IPv4
              UDP and ICMP, IPv6, ARP, an 802.1Q and an 802.1ad + 802.1Q
              tagged frame, each whole; the shortest frame of each tag count,
              one cut inside its header, a wrong version and a reserved bit.

It also writes the dictionaries tests/fuzz/dict/NAME.dict: the HIP parameter
types of lib/hipwire/hip_wire.h as 2-byte big-endian tokens (hip_packet,
host_id, with the HI algorithm IDs for host_id), the section names, keys
and named values of lib/conf's key table (config), and the
ethertypes, IP protocol numbers, ICMP types, SPIs, MACs and addresses of the
worker's gateway (worker).

Files are named by the SHA-1 of their contents, as libFuzzer names its
corpus, so running this again adds only what is not there yet.
Usage: /usr/bin/python3 tests/fuzz/seeds.py [NAME...]   (default: all)
"""
import glob
import hashlib
import ipaddress
import json
import os
import random
import re
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "component"))

IPPROTO_HIP = 139
HIP_HDR_LEN = 40
PARAM_HOST_ID = 705
PARAM_ENCRYPTED = 641
MODE_IPV6 = 0x01
V6_SRC = ipaddress.IPv6Address("fd00:99::1").packed
V6_DST = ipaddress.IPv6Address("fd00:99::2").packed
# a small [sa-gen] (tests/component/test_sagen.py's shape): local, remote
SAGEN = ("\n[sa-gen bench]\ncount = 16\ndirection = both\nsuite = aes128-gcm16\nlocal = %s\n"
         "remote = %s\nprefixes = 16.0.0.0/12\nprefix-len = 24\nspi-seed = 0x5eed\n"
         "prefix-seed = 77\nkey-seed = 0xc0ffee\nbatch = 100\ninstall = before-start\n"
         "replay-window = 1024\n")
# the fixed Host Identity key files fuzz_config.c writes before the first input
FUZZ_KEY_DIR = "/tmp/hipgw-fuzz-keys"


def put(name, data, seen):
    d = os.path.join(HERE, "corpus", name)
    os.makedirs(d, exist_ok=True)
    h = hashlib.sha1(data).hexdigest()
    seen.add(h)
    path = os.path.join(d, h)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)


# ---- HIP packets -------------------------------------------------------------

def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def with_v6_checksum(pkt, src, dst):
    """The HIP packet with its checksum for the IPv6 pseudo-header (RFC 8200 8.1)."""
    body = pkt[:4] + b"\0\0" + pkt[6:]
    ph = src + dst + struct.pack("!I3xB", len(pkt), IPPROTO_HIP)
    return pkt[:4] + struct.pack("!H", csum(ph + body)) + pkt[6:]


def packets():
    """(HIP packet, IPv4 source, IPv4 destination) of every real packet."""
    out = []
    index = os.path.join(ROOT, "tests", "data", "hip", "cutehip-index.txt")
    with open(index) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, _, src, dst = line.split()[:4]
            with open(os.path.join(ROOT, "tests", "data", "hip", name), "rb") as p:
                out.append((p.read(), src, dst))
    from scapy.all import IP, rdpcap
    for pkt in rdpcap(os.path.join(ROOT, "tests", "data", "cutehip-bex-ecdsa384-modp3072.pcapng")):
        if IP in pkt and pkt[IP].proto == IPPROTO_HIP:
            ip = pkt[IP]
            out.append((bytes(ip.payload)[:ip.len - ip.ihl * 4], ip.src, ip.dst))
    for v in vectors():
        addr = {"initiator": v["initiator"]["address"], "responder": v["responder"]["address"]}
        for p in v["packets"]:
            frm = p["from"]
            to = "responder" if frm == "initiator" else "initiator"
            out.append((bytes.fromhex(p["hex"]), addr[frm], addr[to]))
    return out


def vectors():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "vectors", "*.json"))):
        with open(path) as f:
            yield json.load(f)


def seed_hip_packet(seen):
    for pkt, src, dst in packets():
        s4, d4 = ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst).packed
        put("hip_packet", bytes([0]) + s4 + d4 + pkt, seen)
        put("hip_packet", bytes([MODE_IPV6]) + V6_SRC + V6_DST + with_v6_checksum(pkt, V6_SRC, V6_DST), seen)


# ---- HOST_ID -----------------------------------------------------------------

def tlvs(buf):
    """(type, whole TLV bytes with padding) of buf, a run of HIP parameters."""
    off = 0
    while off + 4 <= len(buf):
        t, n = struct.unpack_from("!HH", buf, off)
        total = (4 + n + 7) & ~7
        yield t, buf[off:off + total]
        off += total


def host_id_tlv(algo, hi, di_type=0, di=b""):
    body = struct.pack("!HHH", len(hi), (di_type << 12) | len(di), algo) + hi + di
    tlv = struct.pack("!HH", PARAM_HOST_ID, len(body)) + body
    return tlv + b"\0" * (-len(tlv) % 8)


def seed_host_id(seen):
    found = []
    for pkt, _, _ in packets():
        found += [b for t, b in tlvs(pkt[HIP_HDR_LEN:]) if t == PARAM_HOST_ID]
    for v in vectors():
        plain = bytes.fromhex(v["i2_encrypted"]["plaintext"])
        found += [b for t, b in tlvs(plain) if t == PARAM_HOST_ID]
        for side in ("initiator", "responder"):
            found.append(host_id_tlv(v["suites"]["hi_algorithm"], bytes.fromhex(v[side]["host_identity"])))
    with open(os.path.join(ROOT, "tests", "data", "hip", "keys", "expected.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            _, algo, _, _, hi = line.split()
            found.append(host_id_tlv(int(algo), bytes.fromhex(hi)))
            found.append(host_id_tlv(int(algo), bytes.fromhex(hi), 1, b"gw.example.org"))
    garbage = bytes(range(256)) * 2
    for tlv in found:
        put("host_id", tlv, seen)
        put("host_id", tlv + garbage[:96], seen)


# ---- config ------------------------------------------------------------------

def seed_config(seen):
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "conf", "*.ini")) +
                       glob.glob(os.path.join(ROOT, "drivers-cfg", "*.ini"))):
        with open(path, "rb") as f:
            put("config", f.read(), seen)
    import gwlib
    rng = random.Random(7401)
    hits = {}
    with open(os.path.join(ROOT, "tests", "data", "hip", "keys", "expected.txt")) as f:
        for line in f:
            if not line.startswith("#") and line.strip():
                name, _, _, hit, _ = line.split()
                hits[name] = hit
    hi = "hi = %s/ecdsa-p256.pem" % FUZZ_KEY_DIR
    peer = ("\n[peer gwb]\nhit = %s\nlocator = %s\nprefixes = 10.2.0.0/24, fd00:2::/64"
            % (hits["ecdsa-p384.pem"], gwlib.PEER4))
    with tempfile.TemporaryDirectory() as d:
        variants = []
        for suite in gwlib.SUITE_NAMES:
            variants.append((gwlib.make_sa_pair(rng, suite), {}))
        variants.append((gwlib.make_sa_pair(rng, "aes128-gcm16", outer=6, esn=True), {"gateway6": True}))
        variants.append((gwlib.make_sa_pair(rng, "aes256-cbc-sha256"),
                         {"bypass": ("10.9.0.0/16", "fd00:9::/48"), "lan_mss": 1300}))
        variants.append(((), {"gateway_extra": hi + "\npuzzle-k = 12\nsa-lifetime = 60s, 1MiB"
                              "\nesp-transforms = aes-gcm16, aes256-cbc-sha256"
                              "\ndh-groups = nist-p256, modp3072\nhip-ciphers = aes256-cbc, aes128-cbc"}))
        variants.append(((), {}))
        tails = {len(variants) - 2: peer, len(variants) - 1: SAGEN % (gwlib.WAN4, gwlib.PEER4)}
        for i, (sas, kw) in enumerate(variants):
            path = gwlib.write_config(d, sas, **kw)
            with open(path, "rb") as f:
                text = f.read()
            text += tails.get(i, "").encode()
            put("config", text.replace(d.encode(), b"/tmp/hipgw-fuzz-state"), seen)


# ---- worker frames ------------------------------------------------------------

WORKER_INI = os.path.join(HERE, "fuzz_worker.ini")
LAN, WAN = 0, 1


def worker_sas():
    """The in SAs of fuzz_worker.ini as gwlib.SA objects: {name: SA}."""
    import configparser
    import gwlib
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",), comment_prefixes=(";",))
    cp.read(WORKER_INI)
    out = {}
    for sec in cp.sections():
        if not sec.startswith("sa "):
            continue
        c = cp[sec]
        if c["direction"] != "in":
            continue
        suite = gwlib.SUITES[c["suite"]]
        key = bytes.fromhex(c["key"][2:])
        auth = bytes.fromhex(c["auth-key"][2:]) if "auth-key" in c else b""
        out[sec[3:]] = gwlib.SA(sec[3:], "in", int(c["spi"], 16), suite, key, auth,
                               c["local"], c["remote"],
                               tuple(x.strip() for x in c["prefixes"].split(",")))
    return out


EXACT = 0x02   # fuzz_worker.c REC_EXACT: the frame in a buffer of its size
CHAIN = 0x04   # fuzz_worker.c REC_CHAIN: the frame in two chained mbufs


def record(port, frame, flags):
    b = bytes(frame)
    return bytes([port | flags]) + struct.pack("!H", len(b)) + b


def worker_frames():
    """Lists of (port, frame): one list per seed."""
    import gwlib
    import test_ipv6_ext as x6
    from scapy.layers.inet import IP, ICMP, TCP, UDP
    from scapy.layers.inet6 import (IPv6, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                                    ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr, IPv6ExtHdrFragment)
    from scapy.layers.l2 import ARP, Dot1Q, Ether
    from scapy.packet import Raw
    rng = random.Random(4303)
    sas = worker_sas()
    ba, ba6 = sas["ba"], sas["ba6"]
    seeds = []

    def lan(ipb):
        return (LAN, gwlib.lan_frame(ipb))

    def raw(mac_src, mac_dst, ipb):
        return Ether(src=mac_src, dst=mac_dst, type=0x86dd if ipb[0] >> 4 == 6 else 0x800) / Raw(ipb)

    def esp(sa, inner, seq, **kw):
        return gwlib.esp_frame_ref(sa, inner, seq, **kw)

    def inner(fam, src, dst, size, **kw):
        return gwlib.inner_packet(rng, fam, src, dst, size, **kw)

    def syn6(dst):
        return bytes(IPv6(src=gwlib.HOST6, dst=dst, hlim=64) /
                     TCP(sport=40001, dport=443, flags="S", options=[("MSS", 1460)]))

    # ARP and ND, both sides
    seeds.append([(LAN, Ether(src=gwlib.HOST_MAC, dst="ff:ff:ff:ff:ff:ff") /
                   ARP(op=1, hwsrc=gwlib.HOST_MAC, psrc=gwlib.HOST4, pdst=gwlib.LAN4))])
    seeds.append([(LAN, Ether(src=gwlib.HOST_MAC, dst=gwlib.LAN_MAC) /
                   ARP(op=2, hwsrc=gwlib.HOST_MAC, psrc="10.1.0.3", hwdst=gwlib.LAN_MAC,
                       pdst=gwlib.LAN4))])
    seeds.append([(WAN, Ether(src=gwlib.GW4_MAC, dst="ff:ff:ff:ff:ff:ff") /
                   ARP(op=1, hwsrc=gwlib.GW4_MAC, psrc=gwlib.GW4, pdst=gwlib.WAN4))])
    seeds.append([(LAN, Ether(src=gwlib.HOST_MAC, dst="33:33:ff:00:00:01") /
                   IPv6(src=gwlib.HOST6, dst="ff02::1:ff00:1", hlim=255) /
                   ICMPv6ND_NS(tgt=gwlib.LAN6) / ICMPv6NDOptSrcLLAddr(lladdr=gwlib.HOST_MAC))])
    seeds.append([(WAN, Ether(src=gwlib.PEER6_MAC, dst=gwlib.WAN_MAC) /
                   IPv6(src=gwlib.PEER6, dst=gwlib.WAN6, hlim=255) /
                   ICMPv6ND_NS(tgt=gwlib.WAN6) / ICMPv6NDOptSrcLLAddr(lladdr=gwlib.PEER6_MAC))])
    seeds.append([(LAN, Ether(src=gwlib.HOST_MAC, dst=gwlib.LAN_MAC) /
                   IPv6(src="fd00:1::3", dst=gwlib.LAN6, hlim=255) /
                   ICMPv6ND_NA(tgt="fd00:1::3", R=0, S=1, O=1) /
                   ICMPv6NDOptDstLLAddr(lladdr=gwlib.HOST_MAC))])
    # echo to the gateway, plain and behind extension headers
    seeds.append([(LAN, gwlib.lan_frame(bytes(IP(src=gwlib.HOST4, dst=gwlib.LAN4) /
                                              ICMP(type=8, id=1, seq=1) / Raw(b"ping"))))])
    seeds.append([(WAN, Ether(src=gwlib.GW4_MAC, dst=gwlib.WAN_MAC) /
                   IP(src=gwlib.PEER4, dst=gwlib.WAN4) / ICMP(type=8, id=2, seq=1) / Raw(b"ping"))])
    e6 = x6.echo6(gwlib.HOST6, gwlib.LAN6, b"ping6")
    seeds.append([lan(e6), lan(x6.insert_ext(e6, [x6.frag()])),
                  lan(x6.insert_ext(e6, [x6.hbh(x6.ROUTER_ALERT_MLD)]))])
    w6 = x6.echo6(gwlib.PEER6, gwlib.WAN6, b"ping6")
    seeds.append([(WAN, raw(gwlib.PEER6_MAC, gwlib.WAN_MAC, x6.insert_ext(w6, c)))
                  for c in ([x6.hbh()], [x6.dst(), x6.frag()], [x6.routing(0)])])
    mld = bytes(IPv6(src=gwlib.HOST6, dst="ff02::16", hlim=1, nh=58) /
                Raw(bytes.fromhex("8f00000000000001" "04000000ff020000000000000000000000000001")))
    seeds.append([(LAN, raw(gwlib.HOST_MAC, "33:33:00:00:00:16",
                            x6.insert_ext(mld, [x6.hbh(x6.ROUTER_ALERT_MLD)])))])
    # inner traffic from the site: each SA, bypass, no SA, TTL 1, too big, SYNs
    out = [inner(4, gwlib.HOST4, "10.2.0.5", 200), inner(6, gwlib.HOST6, "fd00:2::5", 300),
           inner(4, gwlib.HOST4, "10.3.0.5", 120), inner(6, gwlib.HOST6, "fd00:3::5", 120),
           inner(4, gwlib.HOST4, "10.9.0.5", 100), inner(6, gwlib.HOST6, "fd00:9::5", 100),
           inner(4, gwlib.HOST4, "10.4.0.5", 100)]
    seeds.append([lan(b) for b in out])
    seeds.append([lan(inner(4, gwlib.HOST4, "10.2.0.6", 100, ttl=1)),
                  lan(inner(6, gwlib.HOST6, "fd00:2::6", 100, ttl=1))])
    seeds.append([lan(inner(4, gwlib.HOST4, "10.2.0.7", 1480, df=True)),
                  lan(inner(4, gwlib.HOST4, "10.2.0.7", 1480, df=False)),
                  lan(inner(6, gwlib.HOST6, "fd00:2::7", 1480))])
    seeds.append([lan(syn6("fd00:2::8")), lan(x6.insert_ext(syn6("fd00:2::8"), [x6.frag()])),
                  lan(bytes(IP(src=gwlib.HOST4, dst="10.2.0.8", flags="DF") /
                            TCP(sport=40002, dport=443, flags="S", options=[("MSS", 1460)])))])
    # ESP from the peers: both in SAs, into the site
    seq = 1
    esp4 = [esp(ba, inner(4, "10.2.0.9", gwlib.HOST4, 200), 1),
            esp(ba, inner(6, "fd00:2::9", gwlib.HOST6, 300), 2),
            esp(ba6, inner(4, "10.3.0.9", gwlib.HOST4, 150), 1),
            esp(ba6, inner(6, "fd00:3::9", gwlib.HOST6, 150), 2)]
    seeds.append([(WAN, f) for f in esp4])
    seeds.append([(WAN, esp(ba, inner(4, "10.2.0.10", gwlib.HOST4, 1400, df=True), 3)),
                  (WAN, esp(ba, inner(4, "10.2.0.10", gwlib.HOST4, 1400, df=False), 4)),
                  (WAN, esp(ba6, inner(6, "fd00:3::10", gwlib.HOST6, 1400), 3))])
    seeds.append([(WAN, esp(ba, inner(4, "10.2.0.11", gwlib.HOST4, 100, ttl=1), 5)),
                  (WAN, esp(ba, inner(4, "10.7.0.11", gwlib.HOST4, 100), 6)),
                  (WAN, esp(gwlib.SA(**{**ba.__dict__, "spi": 0x9999}),
                            inner(4, "10.2.0.11", gwlib.HOST4, 100), 7))])
    f6 = esp(ba6, inner(6, "fd00:3::12", gwlib.HOST6, 400), 4)
    seeds.append([(WAN, x6.ext_frame(f6, c)) for c in
                  ([x6.hbh()], [x6.dst(x6.TUNNEL_ENCAP_LIMIT)], [x6.frag()],
                   [x6.hbh(), x6.routing(0), x6.frag(), x6.dst()])])
    # ESP fragments: outer IPv4 and IPv6 (behind Hop-by-Hop)
    f4 = esp(ba, inner(4, "10.2.0.13", gwlib.HOST4, 1000), 8)
    ip4 = bytes(f4)[14:]
    body = ip4[20:]
    frs = []
    for off, end, mf in ((0, 512, 1), (512, len(body), 0)):
        frs.append((WAN, Ether(src=gwlib.GW4_MAC, dst=gwlib.WAN_MAC) /
                    IP(src=ba.remote, dst=ba.local, proto=50, id=77, frag=off // 8,
                       flags="MF" if mf else 0) / Raw(body[off:end])))
    seeds.append(frs)
    f6 = esp(ba6, inner(6, "fd00:3::13", gwlib.HOST6, 1000), 5)
    b6 = bytes(f6)[14:]
    frs = []
    for off, end, m in ((0, 512, 1), (512, len(b6) - 40, 0)):
        part = raw(f6.src, f6.dst, b6[:40] + b6[40 + off:40 + end])
        frs.append((WAN, x6.ext_frame(part, [x6.hbh(), x6.frag(off, m, 0x99)])))
    seeds.append(frs)
    # ESP into the site for hosts not yet resolved (ARP, NS), an ICMP error too
    # big for the inner MTU, an outer IPv4 header with options
    seeds.append([(WAN, esp(ba, inner(4, "10.2.0.14", "10.1.0.77", 100), 9)),
                  (WAN, esp(ba, inner(6, "fd00:2::14", "fd00:1::77", 100), 10)),
                  (WAN, esp(ba, bytes(IP(src="10.2.0.14", dst=gwlib.HOST4, flags="DF") /
                                      ICMP(type=3, code=1) / Raw(bytes(1400))), 11))])
    f4 = esp(ba, inner(4, "10.2.0.15", gwlib.HOST4, 100), 12)
    ip4 = IP(bytes(f4)[14:])
    ip4.options = [b"\x01\x01\x01\x00"]
    del ip4.ihl, ip4.len, ip4.chksum
    seeds.append([(WAN, Ether(src=gwlib.GW4_MAC, dst=gwlib.WAN_MAC) / IP(bytes(ip4)))])
    seeds.append([lan(x6.insert_ext(inner(6, gwlib.HOST6, "fd00:2::16", 200), c))
                  for c in ([x6.hbh()], [x6.dst()], [x6.frag(m=1)], [x6.routing(1)])])
    # a packet out through SA ab (sequence number 1), then a fragmentation
    # needed quoting its outer header and ESP header: the path MTU lowered
    out_esp = bytes(IP(src=gwlib.WAN4, dst=gwlib.PEER4, proto=50, flags="DF", len=1400) /
                    Raw(struct.pack("!II", 0x1000, 1)))
    seeds.append([lan(inner(4, gwlib.HOST4, "10.2.0.17", 1300, df=True)),
                  (WAN, gwlib.icmp_too_big(out_esp, 1300)),
                  lan(inner(4, gwlib.HOST4, "10.2.0.17", 1300, df=True))])
    # L2 mode: EtherIP frames (next header 97) out of the bridge's in SA l2i:
    # unicast, broadcast, VLAN-tagged, the same source twice (learned, then
    # known), a group source MAC, a wrong EtherIP version, a runt
    l2i = sas["l2i"]
    eip = b"\x30\x00"

    def l2(src, dst, n, vlan=None, hdr=eip):
        e = Ether(src=src, dst=dst)
        if vlan is not None:
            e = e / Dot1Q(vlan=vlan)
        return hdr + bytes(e / IP(src="10.5.0.1", dst="10.5.0.2") / UDP() / Raw(bytes(n)))

    b1, b2 = "02:00:00:00:0b:01", "02:00:00:00:0b:02"
    seeds.append([(WAN, esp(l2i, l2(b1, "02:00:00:00:0a:01", 40), 1, nh=97)),
                  (WAN, esp(l2i, l2(b1, "ff:ff:ff:ff:ff:ff", 20), 2, nh=97)),
                  (WAN, esp(l2i, l2(b2, "02:00:00:00:0a:01", 30, vlan=10), 3, nh=97))])
    seeds.append([(WAN, esp(l2i, l2("01:00:5e:00:00:01", "02:00:00:00:0a:01", 20), 4, nh=97)),
                  (WAN, esp(l2i, l2(b1, b2, 20, hdr=b"\x40\x00"), 5, nh=97)),
                  (WAN, esp(l2i, eip + bytes(10), 6, nh=97)),
                  (WAN, esp(l2i, l2(b2, b1, 20), 7, nh=97))])
    # a mixture in one input
    seeds.append([seeds[0][0], (WAN, esp4[0]), seeds[6][0], (WAN, esp4[3]), lan(out[0])])
    return seeds


def seed_worker(seen):
    """Each seed three times: in pool mbufs, each frame in a buffer of its size
    (an inner frame that ESP protects then has no room for its trailer), and
    each frame in two chained mbufs."""
    for frames in worker_frames():
        for flags in (0, EXACT, CHAIN):
            put("worker", b"".join(record(p, f, flags) for p, f in frames), seen)


def worker_dict():
    ents = []
    for name, v in (("ipv4", 0x0800), ("ipv6", 0x86dd), ("arp", 0x0806), ("vlan", 0x8100)):
        ents.append(("ethertype_" + name, token(struct.pack("!H", v))))
    with open(os.path.join(ROOT, "lib", "core", "hipgw_wire.h")) as f:
        wire = f.read()
    for n, v in re.findall(r"^#define GW_(IPPROTO_\w+|ICMP6?_\w+|ND_OPT_\w+)\s+(\d+)", wire, re.M):
        if int(v) < 256:
            ents.append((n, token(bytes([int(v)]))))
    for name, sa in sorted(worker_sas().items()):
        ents.append(("spi_" + name, token(struct.pack("!I", sa.spi))))
    import gwlib
    for name in ("LAN_MAC", "WAN_MAC", "HOST_MAC"):
        ents.append((name, token(bytes.fromhex(getattr(gwlib, name).replace(":", "")))))
    for name in ("LAN4", "WAN4", "HOST4", "PEER4", "LAN6", "WAN6", "HOST6", "PEER6"):
        ents.append((name, token(ipaddress.ip_address(getattr(gwlib, name)).packed)))
    ents.append(("mcast6", token(bytes.fromhex("3333"))))
    ents.append(("frag_atomic", token(bytes(4))))
    write_dict("worker", ents)
# ---- ICMP errors about our ESP --------------------------------------------------

def seed_icmp_pmtu(seen):
    import gwlib
    from scapy.layers.inet import IP
    from scapy.layers.inet6 import IPv6
    rng = random.Random(8201)
    for outer in (4, 6):
        for suite in ("aes128-gcm16", "aes128-cbc-sha256", "null-sha256"):
            out, _ = gwlib.make_sa_pair(rng, suite, outer)
            inner = gwlib.inner_packet(rng, 4, gwlib.HOST4, "10.2.0.10", 1400, proto="udp",
                                       df=True)
            esp = out.scapy().encrypt(IP(inner))
            if outer == 4:
                esp.flags = "DF"              # copied from the inner packet, as hipgw does
                del esp.chksum
            esp = bytes(esp)
            hl = 20 if outer == 4 else 40
            for mtu, quote, bad in ((1300 if outer == 4 else 1400, None, False),
                                    (1300 if outer == 4 else 1400, hl + 8, False),
                                    (300 if outer == 4 else 1279, hl + 8, False),
                                    (0, hl + 8, False), (1300 if outer == 4 else 1400, hl + 8, True)):
                f = gwlib.icmp_too_big(esp, mtu, quote=quote, bad_cksum=bad)
                put("icmp_pmtu", bytes(f[IP] if outer == 4 else f[IPv6]), seen)


# ---- dictionaries -------------------------------------------------------------

def wire_defines(prefix):
    with open(os.path.join(ROOT, "lib", "hipwire", "hip_wire.h")) as f:
        return re.findall(r"^#define (%s\w+)\s+(\d+)" % prefix, f.read(), re.M)


def token(b):
    return '"' + "".join("\\x%02x" % c for c in b) + '"'


def write_dict(name, entries):
    os.makedirs(os.path.join(HERE, "dict"), exist_ok=True)
    lines = ["# written by tests/fuzz/seeds.py: do not edit"]
    lines += ["%s=%s" % (k.lower().replace("-", "_"), v) for k, v in entries]
    with open(os.path.join(HERE, "dict", name + ".dict"), "w") as f:
        f.write("\n".join(lines) + "\n")


def hip_dict(name, algos):
    ents = [(n, token(struct.pack("!H", int(v)))) for n, v in wire_defines("HIP_PARAM_")
            if n != "HIP_PARAM_CRITICAL_BIT"]
    if algos:
        ents += [(n, token(struct.pack("!H", int(v)))) for n, v in wire_defines("HIP_HI_")]
    write_dict(name, ents)


def config_dict():
    src = ""
    for path in sorted(glob.glob(os.path.join(ROOT, "lib", "conf", "*.c"))):
        with open(path) as f:
            src += f.read()
    sections = re.findall(r'\[SEC_\w+\] = \{ "([a-z-]+)"', src)
    keys = re.findall(r'\[K_\w+\] = \{ SEC_\w+, "([a-z0-9-]+)"', src)
    values = []
    for table in ("suite_names", "esp_transform_table", "dh_group_table", "hip_cipher_table",
                  "idle_names", "role_names"):
        t = re.search(table + r"\[[^\]]*\] = \{(.*?)\};", src, re.S)
        values += re.findall(r'"([a-z0-9-]+)"', t.group(1))
    ents, seen = [], set()
    for kind, words, fmt in (("section", sections, "[%s"), ("key", keys, "%s = "),
                             ("value", values, "%s")):
        for w in words:
            if (fmt % w) not in seen:
                seen.add(fmt % w)
                ents.append(("%s_%s" % (kind, w), '"%s"' % (fmt % w)))
    write_dict("config", ents)


# ---- ESP inbound -------------------------------------------------------------

# fuzz_esp_inbound.c's suites (index = input byte 0 & 7), keys and SPIs
ESP_SUITES = ["aes128-gcm16", "aes256-gcm16", "aes128-cbc-sha256", "aes256-cbc-sha256",
              "null-sha256"]
ESP_KEY = bytes.fromhex("3f21097a5512e04d881bc6732e9041fa6c05b738d299145ea30f67cb208d4af1"
                        "deadbeef")
ESP_AUTH = bytes.fromhex("712a9304bd56ef188a33c46d0ea759f21b843dc66f08b15ae39c452ed77019a2")


def esp_sa(si, esn, outer):
    import gwlib
    suite = gwlib.SUITES[ESP_SUITES[si]]
    key = ESP_KEY[:suite.key_len + (4 if suite.kind == "gcm" else 0)] if suite.key_len else b""
    local, remote = (gwlib.WAN4, gwlib.PEER4) if outer == 4 else (gwlib.WAN6, gwlib.PEER6)
    return gwlib.SA("fz", "in", 0x5000 + si, suite, key,
                    ESP_AUTH if suite.has_auth_key else b"", local, remote, esn=esn)


def esp_head(mode, win, esn, si, top):
    return bytes([mode << 6 | win << 4 | esn << 3 | si]) + struct.pack("<Q", top)


def esp_record(inner, seq_lo, hid=1, flags=4, tfc=b"", pad=0, padlen=0, first=0, seg=0):
    return (bytes([flags]) + struct.pack("<I", seq_lo) + bytes([hid]) +
            struct.pack(">H", len(inner)) + bytes([len(tfc), pad, padlen, first, seg]) +
            inner + tfc)


def seed_esp_inbound(seen):
    import gwlib
    from scapy.packet import Raw
    rng = random.Random(4303)
    for si in range(len(ESP_SUITES)):
        for esn in (0, 1):
            for outer in (4, 6):
                sa = esp_sa(si, esn, outer)
                top = (5 << 32 | 0xfffffff0) if esn else 0xfffffff0
                for fam, size in ((4, 60), (6, 100), (4, 1400)):
                    src, dst = ("10.2.0.7", "10.1.0.2") if fam == 4 else ("fd00:2::7", "fd00:1::2")
                    b = gwlib.inner_packet(rng, fam, src, dst, size)
                    seq = top + 3
                    npad = len(gwlib.default_padding(sa.suite, len(b))) + sa.suite.align
                    kinds = {"good": {}, "dummy": {"nh": 59}, "badpad": {"padding": bytes(npad)}}
                    for kind, kw in kinds.items():
                        esp = gwlib.ref_encrypt(sa, b, seq, **kw)
                        hdr = gwlib.outer_header(sa)
                        if outer == 4:
                            hdr.proto = 50
                        else:
                            hdr.nh = 50
                        pkt = bytes(hdr / Raw(esp))
                        put("esp_inbound", esp_head(0, 2, esn, si, top) + b"\0" + pkt, seen)
                        if kind == "good":
                            put("esp_inbound", esp_head(0, 1, esn, si, top) + b"\x07" + pkt, seen)
                            put("esp_inbound", esp_head(0, 2, esn, si, top) + b"\0" +
                                pkt[:-5], seen)
                            bad = bytearray(pkt)
                            bad[-3] ^= 1
                            put("esp_inbound", esp_head(0, 2, esn, si, top) + b"\0" + bytes(bad),
                                seen)
                # structured: across the boundary, a forged one, TFC, a dummy, chained
                b4 = gwlib.inner_packet(rng, 4, "10.2.0.7", "10.1.0.2", 80)
                b6 = gwlib.inner_packet(rng, 6, "fd00:2::7", "fd00:1::2", 120)
                fl = 4 | (1 if outer == 6 else 0)
                recs = (esp_record(b4, 0xfffffff5, flags=fl) +
                        esp_record(b6, 3, hid=2, flags=fl) +
                        esp_record(b4, 0xfffffff6, flags=fl | 2) +
                        esp_record(b6, 0xfffffff7, flags=fl, tfc=bytes(range(33))) +
                        esp_record(b4, 4, hid=2, flags=fl | 8) +
                        esp_record(b4, 3, hid=2, flags=fl | 0x80, first=9, seg=40))
                for mode in (1, 2):
                    put("esp_inbound", esp_head(mode, 2, esn, si, top) + recs, seen)


def seed_etherip(seen):
    from scapy.contrib.etherip import EtherIP
    from scapy.layers.inet import IP, ICMP, UDP
    from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest
    from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
    eth = Ether(src="02:00:00:0a:00:01", dst="02:00:00:0b:00:02")
    frames = [eth / IP(src="10.1.0.10", dst="10.2.0.10") / UDP(sport=4000, dport=5000) / (b"x" * 32),
              eth / IP(src="10.1.0.10", dst="10.2.0.10") / ICMP() / (b"p" * 56),
              eth / IPv6(src="fd00:1::10", dst="fd00:2::10") / ICMPv6EchoRequest(data=b"q" * 16),
              Ether(src="02:00:00:0a:00:01", dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.1.0.10", pdst="10.1.0.1"),
              eth / Dot1Q(vlan=100) / IP(src="10.1.0.10", dst="10.2.0.10") / UDP() / (b"v" * 8),
              eth / Dot1AD(vlan=200) / Dot1Q(vlan=100) / IPv6(src="fd00:1::10", dst="fd00:2::10")]
    for fr in frames:
        put("etherip", bytes(EtherIP() / fr), seen)
    for hdr in (14, 18, 22):
        short = bytes(EtherIP() / eth / Dot1AD() / Dot1Q() / Dot1Q())[:2 + hdr]
        put("etherip", short, seen)
        put("etherip", short[:-1], seen)
    whole = bytes(EtherIP() / frames[0])
    put("etherip", bytes(EtherIP(version=4)) + whole[2:], seen)
    put("etherip", bytes(EtherIP(reserved=1)) + whole[2:], seen)


def seed_mbox(seen):
    connect0, connect1, sec = (8, 0, 0), (8, 1, 0), (5, 99, 0)
    rekey0, rekey1, close0, close1, forget1 = (6, 0, 0), (6, 1, 0), (7, 0, 0), (7, 1, 0), (9, 1, 0)
    deliver = (0, 0, 0)
    scenarios = [   # mode byte (fuzz_mbox.c), steps
        (0x01, [connect0]),
        (0x01, [connect0, sec, rekey0, sec, sec, sec, rekey1]),
        (0x01, [connect0, sec, close0, sec] + [sec] * 16 + [connect1]),
        (0x01, [connect0, sec, rekey0, sec, close1]),
        (0x01, [connect0] + [sec] * 12 + [forget1, connect1]),
        (0x07, [connect0, sec, rekey1]),
        (0x03, [connect0]),
        (0x09, [connect0, sec, rekey0]),
        (0x21, [connect0, sec, connect1]),
        (0x41, [connect1]),
        (0x61, [connect0]),
        (0x81, [connect0, (4, 0, 0), (4, 0, 0), (4, 0, 0)]),
        (0x01, [connect0, deliver, (1, 3, 5), deliver, (2, 1, 2), deliver, (2, 2, 9)]),
        (0x01, [connect0, deliver, deliver, deliver, (3, 0, 0), sec, rekey0, deliver, (2, 0, 9),
                (4, 1, 0)]),
        # an UPDATE given a LOCATOR_SET (op 2, x bit 4): type 0 and type 1, preferred, both
        # traffic types, to 10.66.0.1 / 2001:db8:66::1
        (0x01, [connect0, sec, rekey0, (2, 0x10, 0x30), sec, sec]),
        (0x01, [connect0, sec, rekey1, (2, 0x11, 0x32), sec, sec]),
        (0x09, [connect0, sec, rekey0, (2, 0x10, 0x30), sec]),
        # HIP over UDP (op 0, x bit 7: the wire's transport switched; x & 63: the NAT's port)
        (0x01, [(0, 0x85, 0), connect0, sec, rekey0, sec, sec, close0, sec]),
        (0x09, [(0, 0x80, 0), connect0, sec, rekey1, (2, 0x10, 0x30), sec]),
        (0x01, [connect0, sec, (0, 0x81, 0), rekey0, sec, (0, 0x80, 0), rekey1, sec]),
        (0x03, [(0, 0x82, 0), connect0, deliver, (1, 3, 5), deliver, sec]),
    ]
    for mode, steps in scenarios:
        put("mbox", bytes([mode] + [b for st in steps for b in st]), seen)
    # the cutehip capture, raw: flags = 10 ms step, checksum recomputed, from the responder
    raw = bytearray([0x00])
    with open(os.path.join(ROOT, "tests", "data", "hip", "cutehip-index.txt")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            name, _, src = line.split()[:3]
            with open(os.path.join(ROOT, "tests", "data", "hip", name), "rb") as g:
                pkt = g.read()
            raw += struct.pack("!HB", len(pkt), (1 << 2) | 2 | (src == "10.99.0.2")) + pkt
    put("mbox", bytes(raw), seen)
    # the same over UDP: length bit 15, each packet put behind UDP and the marker
    udp = bytearray([0x00])
    off = 1
    while off + 3 <= len(raw):
        n, fl = struct.unpack("!HB", raw[off:off + 3])
        udp += struct.pack("!HB", n | 0x8000, fl) + raw[off + 3:off + 3 + n]
        off += 3 + n
    put("mbox", bytes(udp), seen)


def mbox_dict():
    ents = [(n, token(struct.pack("!H", int(v)))) for n, v in wire_defines("HIP_PARAM_")
            if n != "HIP_PARAM_CRITICAL_BIT"]
    words = ["hipgw-mbox-state 1", "spent ", "assoc ", "host ", "seq ", "close ", "i2 ", "spi ",
             "end", " lo ", " hi ", "current", "new", "old", "R1_SEEN", "I2_SEEN", "ESTABLISHED",
             "REKEYING", "CLOSING", "ENDED", "192.0.2.1", "2001:db8::2"]
    ents += [("state_" + re.sub(r"\W", "_", w.strip()).lower(), token(w.encode())) for w in words]
    write_dict("mbox", ents)


def seed_dhcp(seen):
    from scapy.layers.dhcp import BOOTP, DHCP
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    mac = bytes.fromhex("020000000042")

    def rec(step, kind, payload):
        return struct.pack("!HBH", step, kind, len(payload)) + bytes(payload)

    def reply(mtype, **extra):
        opts = [("message-type", mtype), ("server_id", "192.0.2.1"), ("lease_time", 3600),
                ("subnet_mask", "255.255.255.0"), ("router", "192.0.2.1")]
        opts += list(extra.items()) + ["end"]
        return BOOTP(op=2, xid=0x1234, yiaddr="192.0.2.50", chaddr=mac + bytes(10)) / DHCP(options=opts)

    head = bytes([0, 0x12, 0x34, 0x56, 0x78])
    offer, ack, nak = [0, 0, 2, 0, 0, 0, 0, 2], [1, 0, 2, 0, 0, 0, 0, 2], [2, 0, 2]
    ack_srv2 = [1, 0, 3, 0, 0, 0, 0, 2]
    scenarios = [
        [rec(0, 2, offer), rec(4, 2, ack)],
        [rec(0, 2, offer), rec(4, 2, ack), rec(7200, 2, ack)],                       # T1 renewal
        [rec(0, 2, offer), rec(4, 2, ack), rec(7200, 0, b""), rec(5400, 2, ack_srv2)],  # T2 rebinding
        [rec(0, 2, offer), rec(4, 2, ack), rec(14400, 0, b""), rec(40, 2, offer)],   # expiry
        [rec(0, 2, offer), rec(4, 2, nak), rec(20, 2, offer)],
        [rec(0, 2, offer), rec(4, 2, ack), rec(7200, 2, nak)],
        [rec(0, 2, offer), rec(4, 2, ack), rec(7200, 2, [1, 1, 2, 0, 0, 0, 0, 2])],  # changed
        [rec(0, 2, [0, 0, 2, 3]), rec(0, 2, [0, 4, 2]), rec(0, 2, [0, 0, 2, 0, 0, 0, 5])],
        [rec(0, 2, offer), rec(4, 2, ack), rec(8, 3, b""), rec(60, 2, offer)],       # decline
        [rec(0, 2, [0x30, 0, 2, 0, 5, 6, 0, 2]), rec(4, 2, [0x31, 0, 2, 0, 5, 6, 0, 2])],  # T1, T2
    ]
    for sc in scenarios:
        put("dhcp", head + b"".join(sc), seen)
    put("dhcp", bytes([1, 0, 0, 0, 9]) + rec(0, 2, ack), seen)                      # INIT-REBOOT
    put("dhcp", bytes([2, 0, 0, 0, 7]) + rec(40, 2, offer) + rec(4, 2, ack), seen)  # startup wait
    for msg in (reply("offer"), reply("ack", renewal_time=1000, rebinding_time=2000), reply("nak")):
        raw = bytes(msg)
        put("dhcp", head + rec(0, 0, raw), seen)
        frame = bytes(Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") /
                      IP(src="192.0.2.1", dst="255.255.255.255") / UDP(sport=67, dport=68) / msg)
        put("dhcp", head + rec(0, 1, frame), seen)


SEEDERS = {"etherip": seed_etherip, "hip_packet": seed_hip_packet, "host_id": seed_host_id, "config": seed_config,
           "esp_inbound": seed_esp_inbound, "icmp_pmtu": seed_icmp_pmtu, "worker": seed_worker,
           "mbox": seed_mbox, "dhcp": seed_dhcp}


def main():
    names = sys.argv[1:] or list(SEEDERS)
    for name in names:
        if name not in SEEDERS:
            sys.exit("seeds.py: no seeds for %r (known: %s)" % (name, ", ".join(SEEDERS)))
        seen = set()
        SEEDERS[name](seen)
        if name == "config":
            config_dict()
        elif name == "worker":
            worker_dict()
        elif name == "mbox":
            mbox_dict()
        elif name not in ("esp_inbound", "icmp_pmtu", "etherip"):   # no dictionary: fields are numbers
            hip_dict(name, name == "host_id")
        print("%s: %d seeds" % (name, len(seen)))


if __name__ == "__main__":
    main()
