#!/usr/bin/python3
"""HIP part of the system test and the demo (tests/system/topology.sh calls it).

  hip_report.py summary STATS.json [--peer NAME]
      print the counters of a --stats-json file or a telemetry reply, with its
      "hip" object; exit 1 when ports, a drop reason or the hip object (and
      with --peer, that peer) are missing
  hip_report.py get STATS.json KEY.KEY...
      print one value (for instance hip.peers.gwB.bex_ok); exit 1 if absent
  hip_report.py bex --init STATS --init-peer NAME --resp STATS --resp-peer NAME
      one Base Exchange's times from the initiator's and the responder's stats:
      prints "i1_to_r1 r1_to_i2 i2_to_r2 r2_to_esp tbe" in ms; exit 1 if absent
  hip_report.py wan PCAP --wan-a IP --wan-b IP --hit-a HIT --hit-b HIT
                [--stats-a FILE]... [--stats-b FILE]... [--peer-a NAME --peer-b NAME]
      checks of a WAN capture of a HIP-keyed run (gwA initiates); prints lines
      "PASS text", "FAIL text" and "INFO text"; with --expect-close also that
      the association ended with CLOSE and CLOSE_ACK (HIP types 18, 19)
  hip_report.py decrypt PCAP --keylog-a FILE --keylog-b FILE --wan-a IP --wan-b IP
                --inner-a IP --inner-b IP --marker HEX
      the --keylog files of both gateways against the capture: every ESP SPI on
      the wire has a line in both files, with the same keys; tshark, given the
      lines as -o uat:esp_sa:..., decrypts the ESP and finds the ICMP echoes
      between the inner addresses with the ping marker in the first SA of each
      direction and in at least one SA after a rekey; PASS/FAIL/INFO lines
  hip_report.py table-a BEX.txt       Scenario A table (one "bex" line per exchange)
  hip_report.py table-b ...           Scenario B table (see --help)
  hip_report.py table-c ...           Scenario C table (see --help)

The paper's figures are those of a published experimental evaluation of HIP's
basic characteristics with HIPL (HIPL on Linux 2.6, a laptop initiator and a PC
responder on Ethernet: columns A1, B1, C1 / "Ethernet"), read from
docs/published-figures.json, which also holds the full reference.
"""
import argparse
import csv
import ipaddress
import json
import os
import statistics
import subprocess
import sys

# ---------------------------------------------------------------- the paper's figures

FIGURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "published-figures.json")


def paper_figures(path=FIGURES):
    """The paper's A1, B1 and C1 figures from the data file: A1 as {step: (ms, %
    of Tbe)}, B1 as {"without", "with"} RTT in ms, C1 as {"tcp", "tcp_hip",
    "udp", "udp_hip"} in Mbit/s."""
    with open(path) as f:
        ev = json.load(f)["hip_evaluation"]
    a1 = {k: (v["ms"], v["pct_of_tbe"]) for k, v in ev["scenario_a1"].items() if k != "what"}
    b1 = {k: ev["scenario_b1"][k] for k in ("without", "with")}
    c1 = {k: ev["scenario_c1"][k] for k in ("tcp", "tcp_hip", "udp", "udp_hip")}
    return a1, b1, c1


def paper_reference(path=FIGURES):
    """One line naming the paper the figures come from."""
    with open(path) as f:
        r = json.load(f)["hip_evaluation"]["reference"]
    return "%s, \"%s\", %s, %s, article %s, doi %s" % (
        r["authors"], r["title"], r["journal"], r["year"], r["article"], r["doi"])


# Scenario A, sub-scenario A1 (laptop -> PC, Ethernet); Scenario B, sub-scenario
# B1 (laptop -> PC, Ethernet); Scenario C, sub-scenario C1 (Ethernet).
PAPER_A1, PAPER_B1, PAPER_C1 = paper_figures()

STEPS = [
    ("i1_to_r1", "I1 -> R1", "responder", "I1 in to R1 out"),
    ("r1_to_i2", "R1 -> I2", "initiator", "R1 in to I2 out: puzzle, DH, signature"),
    ("i2_to_r2", "I2 -> R2", "responder", "I2 in to R2 out"),
    ("r2_to_esp", "R2 -> ESP", "initiator", "R2 in to the first ESP packet out"),
    ("tbe", "Tbe", "initiator", "I1 out to the first ESP packet out"),
]

# tshark's expert notes on correct HIPv2 packets, and why
KNOWN_NOTES = {
    "Unknown algorithm type": "tshark 4.0 reads HOST_ID in the HIPv1 layout and does not know "
                              "HIPv2's ECDSA HI, algorithm 7; the other implementation's capture "
                              "in tests/data gets the same note",
}

HIP_TYPES = {1: "I1", 2: "R1", 3: "I2", 4: "R2", 16: "UPDATE", 17: "NOTIFY", 18: "CLOSE",
             19: "CLOSE_ACK"}
DH_GROUPS = {3: "MODP-1536", 4: "MODP-3072", 7: "NIST P-256", 8: "NIST P-384", 9: "NIST P-521",
             10: "SECP160R1", 11: "Curve25519", 12: "Curve448"}
ESP_TRANSFORMS = {7: "NULL + HMAC-SHA-256", 8: "AES-128-CBC + HMAC-SHA-256",
                  9: "AES-256-CBC + HMAC-SHA-256", 13: "AES-GCM, 16-octet ICV"}
HIP_CIPHERS = {1: "NULL", 2: "AES-128-CBC", 3: "3DES-CBC", 4: "AES-256-CBC"}
REASONS = ["no_sa", "replay", "auth", "pad", "dummy", "malformed", "spoof", "ttl", "mtu",
           "ecn", "seq_overflow", "no_route", "no_neighbor", "ring_full", "no_mbuf", "policy",
           "etherip_version", "etherip_reserved", "l2_runt",
           "l2_link_local", "l2_local", "l2_group_source", "l2_flood_rate",
           "l2_too_long", "frag_no_mbuf", "mbox_no_flow", "mbox_frag", "mbox_hip",
           "udp_bad", "udp_cksum"]
PI_ERROR = 0x00800000   # wireshark expert severity "error" (malformed packets among them)


def load(path):
    with open(path) as f:
        d = json.load(f)
    if isinstance(d, dict) and "/hipgw/stats" in d:
        d = d["/hipgw/stats"]
    return d


def peer_of(d, name):
    """The hip.peers entry NAME (telemetry turns characters other than letters,
    digits and _ into _)."""
    peers = (d.get("hip") or {}).get("peers") or {}
    if name in peers:
        return peers[name]
    alt = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return peers.get(alt)


def fmt_spi(v):
    if isinstance(v, int):
        return "0x%08x" % v
    return str(v)


def as_int(v):
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return None
    return None


# ---------------------------------------------------------------- summary / get

def cmd_summary(a):
    try:
        d = load(a.stats)
    except Exception as e:
        print("    no stats: %s" % e)
        return 1
    ok = True
    for name, p in sorted((d.get("ports") or {}).items()):
        print("    port %-5s mac %s rx %s tx %s imissed %s rx_nombuf %s oerrors %s" % (
            name, p.get("mac"), p.get("rx"), p.get("tx"), p.get("imissed"), p.get("rx_nombuf"),
            p.get("oerrors")))
    for name, s in sorted((d.get("sa") or {}).items()):
        print("    sa   %-12s spi %s packets %s bytes %s" % (
            name, fmt_spi(s.get("spi")), s.get("packets"), s.get("bytes")))
    drops = d.get("drops", {})
    missing = [r for r in REASONS if r not in drops]
    nz = ", ".join("%s %s" % (k, v) for k, v in drops.items() if v)
    print("    drops: %s" % (nz or "none"))
    if missing:
        print("    drop reasons missing: %s" % ", ".join(missing))
        ok = False
    if not d.get("ports"):
        print("    ports missing")
        ok = False
    if a.telemetry and not d.get("sa"):
        print("    no SA in the SA table")
        ok = False
    h = d.get("hip")
    if not isinstance(h, dict):
        if a.telemetry:
            print("    (no \"hip\" object in this reply: the --stats-json file at exit has it)")
            return 0 if ok else 1
        print("    no \"hip\" object")
        return 1
    print("    hip  hit %s puzzle_k %s rx %s tx %s dropped %s bex_ok %s bex_failed %s updates %s" % (
        h.get("hit"), h.get("puzzle_k"), h.get("rx"), h.get("tx"), h.get("dropped"),
        h.get("bex_ok"), h.get("bex_failed"), h.get("updates")))
    extra = {k: v for k, v in h.items() if k not in (
        "hit", "puzzle_k", "rx", "tx", "dropped", "bex_ok", "bex_failed", "updates", "peers")}
    if extra:
        print("         %s" % ", ".join("%s %s" % (k, json.dumps(v)) for k, v in sorted(extra.items())))
    for name, p in sorted((h.get("peers") or {}).items()):
        t = p.get("bex_ms") or {}
        print("    peer %-5s bex_ok %s bex_failed %s rekeys %s in_spi %s" % (
            name, p.get("bex_ok"), p.get("bex_failed"), p.get("rekeys"), fmt_spi(p.get("in_spi"))))
        if t:
            print("         bex_ms %s" % ", ".join(
                "%s %s" % (k, "-" if t.get(k) is None else t.get(k)) for k, _, _, _ in STEPS))
    if a.peer and peer_of(d, a.peer) is None:
        print("    hip.peers.%s missing" % a.peer)
        ok = False
    return 0 if ok else 1


def cmd_get(a):
    try:
        v = load(a.stats)
        for k in a.key.split("."):
            if k == "peers" or not isinstance(v, dict) or k in v:
                v = v[k]
            else:
                v = peer_of({"hip": {"peers": v}}, k)
                if v is None:
                    raise KeyError(k)
    except Exception:
        return 1
    print(json.dumps(v) if isinstance(v, (dict, list)) else v)
    return 0


# ---------------------------------------------------------------- bex

def bex_times(init_stats, init_peer, resp_stats, resp_peer):
    """Times of one BEX in ms: the responder's i1_to_r1, i2_to_r2 and the
    initiator's r1_to_i2, r2_to_esp, tbe. Raises ValueError with the reason."""
    pi = peer_of(load(init_stats), init_peer)
    pr = peer_of(load(resp_stats), resp_peer)
    if pi is None:
        raise ValueError("%s: no hip.peers.%s" % (init_stats, init_peer))
    if pr is None:
        raise ValueError("%s: no hip.peers.%s" % (resp_stats, resp_peer))
    ti, tr = pi.get("bex_ms") or {}, pr.get("bex_ms") or {}
    out = {}
    for key, _, side, _ in STEPS:
        src = tr if side == "responder" else ti
        v = src.get(key)
        if not isinstance(v, (int, float)) or v <= 0:
            raise ValueError("%s: hip.peers.%s.bex_ms.%s is %r" % (
                resp_stats if side == "responder" else init_stats,
                resp_peer if side == "responder" else init_peer, key, v))
        out[key] = float(v)
    return out


def cmd_bex(a):
    try:
        t = bex_times(a.init, a.init_peer, a.resp, a.resp_peer)
    except Exception as e:
        print("no BEX times: %s" % e, file=sys.stderr)
        return 1
    print(" ".join("%.3f" % t[k] for k, _, _, _ in STEPS))
    return 0


# ---------------------------------------------------------------- WAN capture

FIELDS = ["frame.number", "frame.time_relative", "frame.len", "frame.cap_len", "eth.type",
          "ip.src", "ip.dst", "ip.proto", "ipv6.src", "ipv6.dst", "ipv6.nxt", "arp.opcode",
          "icmpv6.type", "esp.spi", "hip.packet_type", "hip.hit_sndr", "hip.hit_rcvr",
          "hip.checksum.status", "hip.tlv_esp_info_old_spi", "hip.tlv_esp_info_new_spi",
          "hip.tlv.dh_group_id", "hip.tlv.trans_id", "hip.tlv.cipher_id",
          "_ws.expert.severity", "_ws.expert.message", "_ws.malformed"]


def tshark_rows(pcap):
    cmd = ["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         universal_newlines=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split("\t")
        parts += [""] * (len(FIELDS) - len(parts))
        rows.append({f: [x for x in v.split("|") if x != ""] for f, v in zip(FIELDS, parts)})
    return rows


def first(r, f):
    v = r.get(f) or []
    return v[0] if v else ""


def hit_hex(h):
    return ipaddress.IPv6Address(h).packed.hex()


class Out:
    def __init__(self):
        self.failed = 0

    def info(self, msg):
        print("INFO %s" % msg)

    def check(self, ok, msg):
        print("%s %s" % ("PASS" if ok else "FAIL", msg))
        if not ok:
            self.failed += 1


def classify(r):
    if r.get("arp.opcode"):
        return "arp"
    proto = first(r, "ip.proto")
    nxt = r.get("ipv6.nxt") or []
    if proto == "139" or "139" in nxt or r.get("hip.packet_type"):
        return "hip"
    if r.get("esp.spi"):
        return "esp"
    t = first(r, "icmpv6.type")
    if t and 133 <= int(t) <= 137 and not first(r, "ip.proto"):
        return "nd"
    return "other"


def stats_docs(paths):
    docs = []
    for p in paths or []:
        try:
            docs.append((p, load(p)))
        except Exception:
            pass
    return docs


def cmd_wan(a):
    o = Out()
    rows = tshark_rows(a.pcap)
    wan_a, wan_b = a.wan_a, a.wan_b
    hit_a, hit_b = hit_hex(a.hit_a), hit_hex(a.hit_b)
    kinds = {}
    for r in rows:
        r["kind"] = classify(r)
        r["src"] = first(r, "ip.src") or first(r, "ipv6.src")
        r["dst"] = first(r, "ip.dst") or first(r, "ipv6.dst")
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    o.info("WAN capture: %d frames: %d HIP, %d ESP, %d ARP, %d ND, %d other" % (
        len(rows), kinds.get("hip", 0), kinds.get("esp", 0), kinds.get("arp", 0),
        kinds.get("nd", 0), kinds.get("other", 0)))
    if not rows:
        o.check(False, "WAN capture holds frames")
        return 1
    others = [r for r in rows if r["kind"] == "other"]
    for r in others[:10]:
        o.info("  not HIP/ESP/ARP/ND: frame %s eth.type %s %s -> %s proto %s" % (
            first(r, "frame.number"), first(r, "eth.type"), r["src"], r["dst"],
            first(r, "ip.proto") or first(r, "ipv6.nxt")))
    o.check(not others, "WAN: only HIP (IP protocol 139), ESP, ARP and ND frames (%d others)" % len(others))

    hips = [r for r in rows if r["kind"] == "hip"]
    o.info("HIP packets on the WAN:")
    for r in hips[:24]:
        t = int(first(r, "hip.packet_type") or 0)
        spi = first(r, "hip.tlv_esp_info_new_spi")
        extra = []
        if spi:
            extra.append("ESP_INFO new SPI %s" % spi)
        if t == 3:
            g, tr, c = first(r, "hip.tlv.dh_group_id"), first(r, "hip.tlv.trans_id"), first(r, "hip.tlv.cipher_id")
            if g:
                extra.append("DH group %s (%s)" % (g, DH_GROUPS.get(int(g), "?")))
            if tr:
                extra.append("ESP transform %s (%s)" % (tr, ESP_TRANSFORMS.get(int(tr), "?")))
            if c:
                extra.append("HIP_CIPHER %s (%s)" % (c, HIP_CIPHERS.get(int(c), "?")))
        if t == 2:
            k = first(r, "hip.tlv.dh_group_id")
            if k:
                extra.append("DH group %s" % k)
        o.info("  %8.3f ms  %-15s -> %-15s %-9s %5s bytes  %s" % (
            float(first(r, "frame.time_relative") or 0) * 1000.0, r["src"], r["dst"],
            HIP_TYPES.get(t, "type %d" % t), first(r, "frame.len"), ", ".join(extra)))
    if len(hips) > 24:
        o.info("  ... %d more" % (len(hips) - 24))

    # the Base Exchange: gwA initiates (hostA sends first)
    want = {1: (wan_a, wan_b, hit_a, hit_b), 2: (wan_b, wan_a, hit_b, hit_a),
            3: (wan_a, wan_b, hit_a, hit_b), 4: (wan_b, wan_a, hit_b, hit_a)}
    for t, (src, dst, hs, hr) in want.items():
        n = [r for r in hips if first(r, "hip.packet_type") == str(t)]
        good = [r for r in n if r["src"] == src and r["dst"] == dst
                and first(r, "hip.hit_sndr") == hs and first(r, "hip.hit_rcvr") in (hr, "0" * 32)]
        o.check(len(good) > 0, "WAN: %s from %s (HIT %s) to %s seen by tshark's HIP dissector (%d of %d)" % (
            HIP_TYPES[t], src, a.hit_a if hs == hit_a else a.hit_b, dst, len(good), len(n)))
    stray = [r for r in hips if {r["src"], r["dst"]} != {wan_a, wan_b}
             or {first(r, "hip.hit_sndr"), first(r, "hip.hit_rcvr")} - {hit_a, hit_b, "0" * 32}]
    o.check(not stray, "WAN: HIP only between %s and %s, only with the two gateways' HITs (%d others)" % (
        wan_a, wan_b, len(stray)))
    cut = [r for r in hips if first(r, "frame.len") != first(r, "frame.cap_len")]
    o.check(hips and not cut, "WAN: every HIP packet captured whole (%d cut short)" % len(cut))
    badck = [r for r in hips if first(r, "hip.checksum.status") != "1"]
    o.check(hips and not badck, "WAN: tshark finds the HIP checksum good in every HIP packet (%d not: %s)" % (
        len(badck), ",".join(first(r, "frame.number") for r in badck[:8])))
    errs = []
    for r in hips:
        sev = [int(x) for x in r.get("_ws.expert.severity") or [] if x.isdigit()]
        if r.get("_ws.malformed") or any(s >= PI_ERROR for s in sev):
            errs.append(r)
    for r in errs[:5]:
        o.info("  frame %s: %s" % (first(r, "frame.number"), "; ".join(r.get("_ws.expert.message") or [])))
    o.check(hips and not errs, "WAN: no Malformed Packet or error in tshark's HIP dissection (%d packets)" % len(errs))
    if a.expect_close:
        # RFC 7401 5.3.7/5.3.8: a CLOSE from one gateway, a CLOSE_ACK back from the other
        closes = [r for r in hips if first(r, "hip.packet_type") == "18"]
        acks = [r for r in hips if first(r, "hip.packet_type") == "19"]
        pairs = [(c, k) for c in closes for k in acks
                 if k["src"] == c["dst"] and k["dst"] == c["src"]
                 and int(first(k, "frame.number")) > int(first(c, "frame.number"))]
        o.check(bool(pairs), "WAN: the association ends with CLOSE and CLOSE_ACK (%d CLOSE, %d CLOSE_ACK%s)" % (
            len(closes), len(acks), ", CLOSE from %s, CLOSE_ACK from %s" % (pairs[0][0]["src"], pairs[0][1]["src"])
            if pairs else ""))
    warns = sorted({m for r in hips for m in r.get("_ws.expert.message") or []})
    if warns:
        o.info("tshark's HIP dissector notes (warnings): %s" % "; ".join(
            m + (" (%s)" % KNOWN_NOTES[m] if m in KNOWN_NOTES else "") for m in warns))

    # SPIs: ESP_INFO in HIP from X announces X's inbound SPI, which the other
    # side puts on its ESP towards X.
    info_from = {wan_a: [], wan_b: []}
    for r in hips:
        for v in r.get("hip.tlv_esp_info_new_spi") or []:
            if r["src"] in info_from:
                info_from[r["src"]].append(int(v, 16))
    esps = [r for r in rows if r["kind"] == "esp"]
    esp_to = {wan_a: {}, wan_b: {}}
    for r in esps:
        if r["dst"] in esp_to:
            spi = int(first(r, "esp.spi"), 16)
            esp_to[r["dst"]][spi] = esp_to[r["dst"]].get(spi, 0) + 1
    o.info("ESP_INFO SPIs announced: by gwA (%s) %s, by gwB (%s) %s" % (
        wan_a, " ".join(fmt_spi(s) for s in info_from[wan_a]) or "none",
        wan_b, " ".join(fmt_spi(s) for s in info_from[wan_b]) or "none"))
    o.info("ESP SPIs on the WAN (frames): to gwB %s; to gwA %s" % (
        " ".join("%s(%d)" % (fmt_spi(s), n) for s, n in sorted(esp_to[wan_b].items())) or "none",
        " ".join("%s(%d)" % (fmt_spi(s), n) for s, n in sorted(esp_to[wan_a].items())) or "none"))
    bad_outer = [r for r in esps if {r["src"], r["dst"]} != {wan_a, wan_b}]
    o.check(esps and not bad_outer, "WAN: ESP seen, only between %s and %s (%d ESP frames, %d others)" % (
        wan_a, wan_b, len(esps), len(bad_outer)))
    for dst, name, owner in ((wan_b, "gwA -> gwB", wan_b), (wan_a, "gwB -> gwA", wan_a)):
        used = set(esp_to[dst])
        negotiated = set(info_from[owner])
        o.check(used and used <= negotiated,
                "WAN: ESP %s carries only SPIs that %s announced in ESP_INFO (%s used, %s announced)" % (
                    name, "gwB" if owner == wan_b else "gwA",
                    ",".join(fmt_spi(s) for s in sorted(used)) or "none",
                    ",".join(fmt_spi(s) for s in sorted(negotiated)) or "none"))
    # the gateways' own view: hip.peers.X.in_spi (this gateway's inbound SPI
    # for the peer) against what the other side put on the wire towards it;
    # and the SPIs in a live SA table (telemetry) against ESP_INFO
    announced = set(info_from[wan_a]) | set(info_from[wan_b])
    # the SPI each side announced last: a rekey that ends after the traffic
    # (or just before the snapshot) leaves SAs that no ESP has used yet
    latest = {x: info_from[x][-1] for x in info_from if info_from[x]}

    def carried(spis, to):
        """Some SPI of spis was on ESP towards `to`, or `to` announced one of
        them last (an SA no packet has needed yet)."""
        return bool(set(spis) & set(esp_to[to])) or latest.get(to) in set(spis)

    n_in_spi = 0
    for side, docs, peer, dst, other in (("gwA", stats_docs(a.stats_a), a.peer_a, wan_a, wan_b),
                                         ("gwB", stats_docs(a.stats_b), a.peer_b, wan_b, wan_a)):
        if not docs:
            o.check(False, "%s stats readable for the SPI cross-check" % side)
            continue
        seen, spi = [], None
        for path, d in docs:
            p = peer_of(d, peer)
            v = as_int(p.get("in_spi")) if p else None
            seen.append("%s: %s" % (path.rsplit("/", 1)[-1], fmt_spi(v) if v is not None else "none"))
            if v:
                spi = v
                break
        closed = [r for r in hips if first(r, "hip.packet_type") == "18" and r["src"] == other]
        if spi or not closed:
            n_in_spi += 1
            ok = bool(spi) and spi in set(info_from[dst]) and carried({spi}, dst)
            o.check(ok, "%s's hip.peers.%s.in_spi (%s) is the SPI %s announced in ESP_INFO and the ESP towards it carries, or its last one (%s)" % (
                side, peer, fmt_spi(spi) if spi else "none", side, "; ".join(seen)))
        else:
            o.info("%s's hip.peers.%s.in_spi is 0 (%s): the association was closed by the peer's CLOSE "
                   "(frame %s) before %s wrote its stats" % (side, peer, "; ".join(seen),
                                                           first(closed[0], "frame.number"), side))
        for path, d in docs:
            # the SA table of a live snapshot (at exit, CLOSE may have emptied it)
            table = d.get("sa") if "telemetry" in path.rsplit("/", 1)[-1] else None
            if not table:
                continue
            spis = {as_int(v.get("spi")) for v in table.values() if isinstance(v, dict)}
            o.check(spis <= announced and carried(spis, dst) and carried(spis, other),
                    "%s's live SA table (%s) holds only ESP_INFO SPIs, in and out (%s)" % (
                        side, path.rsplit("/", 1)[-1], ",".join(fmt_spi(x) for x in sorted(spis))))
    o.check(n_in_spi > 0, "WAN: at least one gateway's in_spi cross-checked against the wire (%d)" % n_in_spi)
    return 1 if o.failed else 0


# ---------------------------------------------------------------- --keylog

KEYLOG_ENC = {"AES-GCM with 16 octet ICV [RFC4106]", "AES-CBC [RFC3602]", "NULL"}
KEYLOG_AUTH = {"NULL", "HMAC-SHA-256-128 [RFC4868]"}


def read_keylog(path):
    """The lines of a --keylog file: [(fields, line)], fields as tshark's esp_sa
    UAT reads them (protocol, src, dst, spi, enc, enc key, auth, auth key)."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                out.append((next(csv.reader([line])), line))
    return out


def cmd_decrypt(a):
    o = Out()
    logs = {}
    for side, path in (("gwA", a.keylog_a), ("gwB", a.keylog_b)):
        try:
            logs[side] = read_keylog(path)
        except OSError as e:
            o.check(False, "%s --keylog %s readable (%s)" % (side, path, e))
            return 1
        bad = [ln for f, ln in logs[side] if len(f) != 8 or f[0] not in ("IPv4", "IPv6")
               or not (f[3].startswith("0x") and len(f[3]) == 10) or f[4] not in KEYLOG_ENC
               or f[6] not in KEYLOG_AUTH]
        o.check(logs[side] and not bad, "%s --keylog: %d lines, each the 8 fields of tshark's esp_sa table "
                "(%d not)" % (side, len(logs[side]), len(bad)))
    # ESP on the wire, in order, per direction
    rows = tshark_rows(a.pcap)
    first_frame, order = {}, {a.wan_b: [], a.wan_a: []}
    for r in rows:
        spi, dst = first(r, "esp.spi"), first(r, "ip.dst")
        if not spi or dst not in order:
            continue
        spi = int(spi, 16)
        if spi not in first_frame:
            first_frame[spi] = int(first(r, "frame.number"))
            order[dst].append(spi)
    spis = sorted(first_frame)
    by_spi = {}
    for side in ("gwA", "gwB"):
        by_spi[side] = {int(f[3], 16): (f, ln) for f, ln in logs[side] if len(f) == 8}
    missing = [s for s in spis if s not in by_spi["gwA"] or s not in by_spi["gwB"]]
    o.check(spis and not missing, "--keylog: every SPI ESP carries on the WAN (%d) has a line in both "
            "gateways' files (%d not: %s)" % (len(spis), len(missing), ",".join(fmt_spi(s) for s in missing)))
    differ = [s for s in spis if s in by_spi["gwA"] and s in by_spi["gwB"]
              and by_spi["gwA"][s][0] != by_spi["gwB"][s][0]]
    o.check(not differ, "--keylog: gwA and gwB wrote the same line (addresses, algorithms, keys) for each "
            "of these SPIs (%d differ)" % len(differ))
    wrongdir = [s for s in spis if s in by_spi["gwA"]
                and (s in order[a.wan_b]) != (by_spi["gwA"][s][0][1:3] == [a.wan_a, a.wan_b])]
    o.check(not wrongdir, "--keylog: source and destination of each line are those of the SPI's ESP on the "
            "wire (%d not)" % len(wrongdir))
    # tshark decrypts with the lines as given (gwA's file, then gwB's lines for other SPIs)
    lines, seen = [], set()
    for side in ("gwA", "gwB"):
        for f, ln in logs[side]:
            if len(f) == 8 and f[3] not in seen:
                seen.add(f[3])
                lines.append(ln)
    cmd = ["tshark", "-n", "-r", a.pcap, "-o", "esp.enable_encryption_decode:TRUE",
           "-o", "esp.enable_authentication_check:TRUE"]
    for ln in lines:
        cmd += ["-o", "uat:esp_sa:" + ln]
    cmd += ["-Y", "esp and (icmp.type == 0 or icmp.type == 8)", "-T", "fields", "-E", "separator=\t",
            "-E", "occurrence=a", "-E", "aggregator=|",
            "-e", "esp.spi", "-e", "ip.src", "-e", "ip.dst", "-e", "icmp.type", "-e", "data.data",
            "-e", "esp.icv_good", "-e", "esp.icv_bad"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        o.info("tshark: %s" % p.stderr.strip().splitlines()[-1:])
    marker = bytes.fromhex(a.marker)[:12].hex()
    inner = {(a.inner_a, a.inner_b): "8", (a.inner_b, a.inner_a): "0"}
    found, icv_good, icv_bad = {}, 0, 0
    for line in p.stdout.splitlines():
        v = (line.split("\t") + [""] * 7)[:7]
        ips = v[1].split("|")
        dsts = v[2].split("|")
        if len(ips) < 2 or len(dsts) < 2 or not v[0]:
            continue
        icv_good += "1" in v[5].split("|") or "True" in v[5].split("|")
        icv_bad += "1" in v[6].split("|") or "True" in v[6].split("|")
        if inner.get((ips[1], dsts[1])) == v[3].split("|")[0] and marker in v[4].replace(":", ""):
            spi = int(v[0].split("|")[0], 16)
            found[spi] = found.get(spi, 0) + 1
    o.info("tshark -o uat:esp_sa:... (%d lines): ICMP echoes %s <-> %s with the marker, per SPI: %s" % (
        len(lines), a.inner_a, a.inner_b,
        " ".join("%s(%d)" % (fmt_spi(s), found[s]) for s in sorted(found, key=first_frame.get)) or "none"))
    o.info("ESP SPIs in order of first use: gwA -> gwB %s; gwB -> gwA %s" % (
        " ".join(fmt_spi(s) for s in order[a.wan_b]) or "none",
        " ".join(fmt_spi(s) for s in order[a.wan_a]) or "none"))
    for dst, name in ((a.wan_b, "gwA -> gwB"), (a.wan_a, "gwB -> gwA")):
        seq = order[dst]
        bex = seq[0] if seq else None
        later = [s for s in seq[1:] if found.get(s)]
        o.check(bex is not None and found.get(bex, 0) > 0,
                "tshark decrypts %s ESP of the BEX's SA %s with the --keylog keys: ICMP echo %s with "
                "the ping marker inside (%d)" % (name, fmt_spi(bex) if bex else "none",
                                                 "request" if dst == a.wan_b else "reply",
                                                 found.get(bex, 0) if bex else 0))
        o.check(bool(later), "tshark decrypts %s ESP of an SA after an UPDATE rekey with the --keylog keys "
                "(%d of %d later SAs: %s)" % (name, len(later), max(len(seq) - 1, 0),
                                              ",".join(fmt_spi(s) for s in later) or "none"))
    o.check(icv_good > 0 and icv_bad == 0, "tshark checks the ESP ICVs with the --keylog keys: %d good, "
            "%d bad" % (icv_good, icv_bad))
    return 1 if o.failed else 0


# ---------------------------------------------------------------- tables

def pct(a, b):
    return 100.0 * a / b if b else float("nan")


def cmd_table_a(a):
    runs = []
    for line in open(a.file):
        parts = line.split()
        if len(parts) == 5:
            runs.append(dict(zip([k for k, _, _, _ in STEPS], map(float, parts))))
    if not runs:
        print("  no Base Exchange completed: no Scenario A figures")
        return 1
    med = {k: statistics.median(r[k] for r in runs) for k, _, _, _ in STEPS}
    mn = {k: min(r[k] for r in runs) for k, _, _, _ in STEPS}
    mx = {k: max(r[k] for r in runs) for k, _, _, _ in STEPS}
    print("  Scenario A: Base Exchange time (ms), median of %d exchanges, each between freshly" % len(runs))
    print("  started gateways (%s); %% of Tbe." % a.what)
    print("  Paper: A1, laptop initiator, PC responder, Ethernet (means of its runs).")
    print("  (%s)" % paper_reference())
    print()
    print("  %-10s %-10s %10s %19s %8s   %12s %8s" % ("step", "measured", "hipgw ms", "min - max", "%",
                                                    "paper A1 ms", "%"))
    print("  %s" % ("-" * 86))
    for key, name, side, _ in STEPS:
        pm, pp = PAPER_A1[key]
        print("  %-10s %-10s %10.3f %19s %7.2f%%   %12.3f %7.2f%%" % (
            name, "at " + side[:4] + "." if key != "tbe" else "at init.", med[key],
            "%.3f - %.3f" % (mn[key], mx[key]), pct(med[key], med["tbe"]), pm, pp))
    print("  %s" % ("-" * 86))
    resp = [r["i1_to_r1"] + r["i2_to_r2"] for r in runs]
    init = [r["r1_to_i2"] + r["r2_to_esp"] for r in runs]
    rest = [r["tbe"] - r["i1_to_r1"] - r["r1_to_i2"] - r["i2_to_r2"] - r["r2_to_esp"] for r in runs]
    p_resp = PAPER_A1["i1_to_r1"][0] + PAPER_A1["i2_to_r2"][0]
    p_init = PAPER_A1["r1_to_i2"][0] + PAPER_A1["r2_to_esp"][0]
    p_tbe = PAPER_A1["tbe"][0]
    for name, vals, pv in (("responder", resp, p_resp), ("initiator", init, p_init),
                           ("rest", rest, p_tbe - p_resp - p_init)):
        m = statistics.median(vals)
        print("  %-21s %10.3f %19s %7.2f%%   %12.3f %7.2f%%" % (
            name, m, "%.3f - %.3f" % (min(vals), max(vals)), pct(m, med["tbe"]), pv, pct(pv, p_tbe)))
    print("  (responder = I1->R1 + I2->R2, initiator = R1->I2 + R2->ESP, rest = Tbe minus the four")
    print("   parts: the packets' way across the links and queues, each exchange's own sum)")
    print()
    print("  each exchange (ms):   %s" % "  ".join("%9s" % n for _, n, _, _ in STEPS))
    for i, r in enumerate(runs, 1):
        print("  %20d   %s" % (i, "  ".join("%9.3f" % r[k] for k, _, _, _ in STEPS)))
    return 0


def split_rtt(s):
    try:
        a, b, c = (float(x) for x in s.split("/"))
        return a, b, c
    except Exception:
        return None


def cmd_table_b(a):
    print("  Scenario B: RTT hostA -> hostB (ms, ping min/avg/max, %s)." % a.what)
    print("  Without HIP: plain Linux routing between the sites on the same veths; with HIP: through")
    print("  the two hipgw gateways (ESP). Paper: B1, laptop -> PC over Ethernet, host to host (means).")
    print()
    print("  %-6s %-26s %-26s %20s   %9s %9s %9s" % ("", "without HIP", "with HIP gateways", "avg added",
                                                    "paper w/o", "paper HIP", "+"))
    print("  %s" % ("-" * 115))
    pw, ph = PAPER_B1["without"], PAPER_B1["with"]
    for fam, wo, w in (("IPv4", a.v4_plain, a.v4_hip), ("IPv6", a.v6_plain, a.v6_hip)):
        x, y = split_rtt(wo), split_rtt(w)
        inc = "%+.2f ms (%+.1f%%)" % (y[1] - x[1], pct(y[1] - x[1], x[1])) if x and y else "-"
        paper = ("%9.3f %9.3f %+8.1f%%" % (pw, ph, pct(ph - pw, pw))) if fam == "IPv6" else \
            "%9s %9s %9s" % ("-", "-", "-")
        print("  %-6s %-26s %-26s %20s   %s" % (fam, wo, w, inc, paper))
    if a.first:
        print("  %-6s %-26s %-26s %20s   %9s %9s %9s" % (
            "first", "-", a.first, "", "-", "-", "-"))
        print("  (first: the RTT of the ping that starts the Base Exchange, median of the Scenario A")
        print("   runs: BEX included; the paper notes the first RTT with HIP as the biggest one)")
    print("  (the paper's table B has one row, IPv6 against HIP, so the IPv4 row has no paper figures)")
    return 0


def mbps(bps):
    try:
        return float(bps) / 1e6
    except Exception:
        return float("nan")


def cmd_table_c(a):
    print("  Scenario C: throughput hostA -> hostB (Mbit/s received, iperf3 %s)." % a.what)
    print("  Paper: C1, Ethernet, a 100 Mb file sent 10 times (means).")
    print()
    print("  %-10s %14s %14s   %12s %9s" % ("", "here", "HIP vs w/o", "paper C1", "HIP vs w/o"))
    print("  %s" % ("-" * 68))
    rows = [("TCP", a.tcp_plain, None, "tcp"), ("TCP + HIP", a.tcp_hip, a.tcp_plain, "tcp_hip"),
            ("UDP", a.udp_plain, None, "udp"), ("UDP + HIP", a.udp_hip, a.udp_plain, "udp_hip")]
    for name, v, base, key in rows:
        m = mbps(v)
        ms = "%14.1f" % m if m > 0 else "%14s" % "-"
        rel = ""
        if base is not None and m > 0 and mbps(base) > 0:
            rel = "%+13.1f%%" % pct(m - mbps(base), mbps(base))
        p = PAPER_C1[key]
        prel = ""
        if key.endswith("_hip"):
            pb = PAPER_C1[key[:-4]]
            prel = "%+8.1f%%" % pct(p - pb, pb)
        print("  %-10s %s %14s   %12.3f %9s" % (name, ms, rel, p, prel))
    if a.udp_loss_plain or a.udp_loss_hip:
        print("  (UDP sent at unlimited rate, %s; receiver-side loss: plain %s%%, HIP %s%%)" % (
            a.udp_note, a.udp_loss_plain, a.udp_loss_hip))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summary")
    s.add_argument("stats")
    s.add_argument("--peer")
    s.add_argument("--telemetry", action="store_true",
                   help="a live telemetry reply: needs SAs, the hip object is optional")
    s = sub.add_parser("get")
    s.add_argument("stats")
    s.add_argument("key")
    s = sub.add_parser("bex")
    s.add_argument("--init", required=True)
    s.add_argument("--init-peer", required=True)
    s.add_argument("--resp", required=True)
    s.add_argument("--resp-peer", required=True)
    s = sub.add_parser("wan")
    s.add_argument("pcap")
    for k in ("--wan-a", "--wan-b", "--hit-a", "--hit-b"):
        s.add_argument(k, required=True)
    s.add_argument("--stats-a", action="append")
    s.add_argument("--stats-b", action="append")
    s.add_argument("--peer-a", default="gwB")
    s.add_argument("--peer-b", default="gwA")
    s.add_argument("--expect-close", action="store_true")
    s = sub.add_parser("decrypt")
    s.add_argument("pcap")
    for k in ("--keylog-a", "--keylog-b", "--wan-a", "--wan-b", "--inner-a", "--inner-b", "--marker"):
        s.add_argument(k, required=True)
    s = sub.add_parser("table-a")
    s.add_argument("file")
    s.add_argument("--what", default="restarted for each")
    s = sub.add_parser("table-b")
    for k in ("--v4-plain", "--v6-plain", "--v4-hip", "--v6-hip"):
        s.add_argument(k, default="-")
    s.add_argument("--first", default="")
    s.add_argument("--what", default="")
    s = sub.add_parser("table-c")
    for k in ("--tcp-plain", "--tcp-hip", "--udp-plain", "--udp-hip"):
        s.add_argument(k, default="0")
    s.add_argument("--udp-loss-plain", default="")
    s.add_argument("--udp-loss-hip", default="")
    s.add_argument("--udp-note", default="")
    s.add_argument("--what", default="")
    a = ap.parse_args()
    return {"summary": cmd_summary, "get": cmd_get, "bex": cmd_bex, "wan": cmd_wan, "decrypt": cmd_decrypt,
            "table-a": cmd_table_a, "table-b": cmd_table_b, "table-c": cmd_table_c}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
