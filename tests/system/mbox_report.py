#!/usr/bin/python3
"""Middlebox part of the system test and the demo (tests/system/topology_mbox.sh
calls it), on the replies of MB's telemetry /hipgw/mbox (the tracker: counters,
drops, associations), /hipgw/mbox_flows (the flow table) and /hipgw/stats, and
on the gateways' /hipgw/stats. A file may hold several replies one after
another (their objects are merged, the first value of a key wins).

  mbox_report.py get FILE PATH
      print one value, PATH dotted (hip.established, drops.mbox_no_flow);
      exit 1 if absent
  mbox_report.py spis --mbox F --flows F --hit-a HIT --hit-b HIT --wan-a IP
                      --wan-b IP --stats-a F --peer-a NAME --stats-b F --peer-b NAME
      MB's view against the gateways' own: it tracks an association
      (associations.now), each gateway's hip.peers.PEER.in_spi is a flow to
      that gateway's locator that counted packets, both flows of one
      association; when /hipgw/mbox lists associations by HIT, also the pair's,
      established, with those SPIs; PASS / FAIL / INFO lines
  mbox_report.py gone --before-flows F --mbox F --flows F --hit-a HIT --hit-b HIT
                      --wan-a IP --wan-b IP --stats-a F --peer-a NAME --stats-b F --peer-b NAME
      after a CLOSE: the gateways' inbound SPIs (their stats files from
      before) were flows at MB before (--before-flows) and are none now; when
      /hipgw/mbox lists associations by HIT, none of the pair is live
  mbox_report.py show --mbox F --flows F --hit-a HIT --hit-b HIT
      print MB's association of the pair (or, with no listing by HIT, its
      association counts and tracker events) and its flow table, indented
  mbox_report.py figures
      the published hipfw figures of docs/published-figures.json, one line:
      "USERSPACE FAST_PATH REFERENCE" (Mbit/s, Mbit/s, one line of text)
"""
import argparse
import ipaddress
import json
import os
import sys

FIGURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "published-figures.json")
LIVE_STATES = {"ESTABLISHED", "REKEYING"}
ORCHID2 = ipaddress.ip_network("2001:20::/28")   # RFC 7343


# ---------------------------------------------------------------- reading

def replies(path):
    """The JSON objects in the file, one after another; each telemetry reply
    {"/hipgw/cmd": value} unwrapped to value."""
    try:
        text = open(path).read()
    except OSError:
        return []
    dec, pos, out = json.JSONDecoder(), 0, []
    while True:
        pos = text.find("{", pos)
        if pos < 0:
            break
        try:
            o, pos = dec.raw_decode(text, pos)
        except ValueError:
            pos += 1
            continue
        if isinstance(o, dict) and len(o) == 1 and next(iter(o)).startswith("/"):
            o = next(iter(o.values()))
        out.append(o)
    return out


def merge(a, b):
    """b into a (dicts deep; the first value of a key wins)."""
    for k, v in b.items():
        if k not in a:
            a[k] = v
        elif isinstance(a[k], dict) and isinstance(v, dict):
            merge(a[k], v)
    return a


def load(path):
    d = {}
    for o in replies(path):
        if isinstance(o, dict):
            merge(d, o)
    return d


def walk(o):
    """Every dict inside o, o first."""
    if isinstance(o, dict):
        yield o
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return None
    return None


def as_ip(v):
    if not isinstance(v, str):
        return None
    try:
        return ipaddress.ip_address(v.split("/")[0])
    except ValueError:
        return None


def fmt_spi(v):
    return "0x%08x" % v if isinstance(v, int) else str(v)


def lookup(d, name):
    """The value at a dotted path (KeyError if there is none)."""
    v = d
    try:
        for k in name.split("."):
            v = v[k] if isinstance(v, dict) else v[int(k)]
        return v
    except (KeyError, IndexError, ValueError, TypeError):
        raise KeyError(name)


# ---------------------------------------------------------------- associations, flows

def hits_in(d):
    """The HITs (ORCHIDv2 addresses) among d's own string values."""
    out = set()
    for v in d.values():
        ip = as_ip(v)
        if ip is not None and ip.version == 6 and ip in ORCHID2:
            out.add(ip)
    return out


def ints_in(o):
    out = set()
    if isinstance(o, dict):
        for k, v in o.items():
            if k.lower().endswith("spi") or "spi" in k.lower():
                i = as_int(v)
                if i is not None:
                    out.add(i)
            out |= ints_in(v) if isinstance(v, (dict, list)) else set()
    elif isinstance(o, list):
        for v in o:
            out |= ints_in(v)
    return out


def state_of(d):
    for k, v in d.items():
        if "state" in k.lower() and isinstance(v, str):
            return v.upper()
    return "?"


def associations(doc, a, b):
    """Association records (dicts) naming both HITs a and b."""
    want = {ipaddress.ip_address(a), ipaddress.ip_address(b)}
    return [d for d in walk(doc) if want <= hits_in(d)]


def assoc_id(d):
    for k in ("id", "assoc", "assoc_id", "association"):
        if as_int(d.get(k)) is not None:
            return as_int(d[k])
    return None


def flows(doc):
    """(dst address, spi, assoc id or None, packets or None, the record) of
    every flow record: a dict with an SPI and a destination address."""
    out = []
    for d in walk(doc):
        spi = None
        for k in ("spi", "SPI"):
            if k in d:
                spi = as_int(d[k])
        if spi is None:
            continue
        dst = None
        for k in ("dst", "destination", "dest", "daddr", "address", "locator"):
            if as_ip(d.get(k)) is not None:
                dst = as_ip(d[k])
                break
        if dst is None:
            ips = [as_ip(v) for v in d.values() if as_ip(v) is not None]
            dst = ips[0] if len(ips) == 1 else None
        if dst is None:
            continue
        out.append((dst, spi, assoc_id(d), as_int(d.get("packets")), d))
    return out


def gw_in_spi(path, peer):
    for o in replies(path):
        try:
            peers = o["hip"]["peers"]
        except (KeyError, TypeError):
            continue
        p = peers.get(peer) or peers.get("".join(c if c.isalnum() or c == "_" else "_" for c in peer))
        if isinstance(p, dict) and as_int(p.get("in_spi")) is not None:
            return as_int(p["in_spi"])
    return None


class Out:
    def __init__(self):
        self.failed = 0

    def check(self, ok, msg):
        print("%s %s" % ("PASS" if ok else "FAIL", msg))
        self.failed += 0 if ok else 1

    def info(self, msg):
        print("INFO " + msg)


# ---------------------------------------------------------------- commands

def cmd_get(a):
    try:
        v = lookup(load(a.file), a.name)
    except KeyError:
        return 1
    print(json.dumps(v) if isinstance(v, (dict, list)) else v)
    return 0


def gateway_views(a):
    return [("gwA", ipaddress.ip_address(a.wan_a) if a.wan_a else None, gw_in_spi(a.stats_a, a.peer_a)),
            ("gwB", ipaddress.ip_address(a.wan_b) if a.wan_b else None, gw_in_spi(a.stats_b, a.peer_b))]


def listing(o, mb, a):
    """MB's association records of the pair, if its telemetry lists
    associations by HIT; None (and an INFO line) if it has counts only."""
    recs = associations(mb, a.hit_a, a.hit_b)
    if recs or any(len(hits_in(d)) >= 2 for d in walk(mb)):
        return recs
    o.info("/hipgw/mbox lists no association by its HITs (counts only): the HIT pair and the "
           "state are not checked, the flows are")
    return None


def cmd_spis(a):
    o = Out()
    mb, fl = load(a.mbox), load(a.flows)
    now = as_int((mb.get("associations") or {}).get("now"))
    o.check(now is not None and now >= 1, "MB tracks an association (associations.now %s)" % now)
    table = flows(fl)
    o.info("flow table: %s" % (" ".join("%s/%s(assoc %s, %s packets)" % (d, fmt_spi(s), i, p)
                                         for d, s, i, p, _ in table) or "empty"))
    recs = listing(o, mb, a)
    rec = recs[0] if recs else None
    if recs is not None:
        o.check(bool(recs), "MB lists an association of gwA's and gwB's HITs (%d)" % len(recs))
    if rec is not None:
        o.info("association %s: state %s, SPIs %s" % (assoc_id(rec), state_of(rec), " ".join(
            fmt_spi(x) for x in sorted(ints_in(rec))) or "none"))
        o.check(state_of(rec) in LIVE_STATES, "the association is established at MB (state %s)" % state_of(rec))
    owners = set()
    for name, wan, spi in gateway_views(a):
        o.check(bool(spi), "%s reports an inbound SPI (hip.peers in_spi %s)" % (name, fmt_spi(spi)))
        if not spi:
            continue
        mine = [f for f in table if f[0] == wan and f[1] == spi]
        o.check(len(mine) == 1 and mine[0][2] not in (None, 0),
                "MB's flow table holds (%s, %s), %s's inbound flow, of an association (%s)" % (
                    wan, fmt_spi(spi), name, ", ".join("assoc %s" % f[2] for f in mine) or "not there"))
        if not mine:
            continue
        owners.add(mine[0][2])
        o.check(mine[0][3] is not None and mine[0][3] > 0,
                "the flow (%s, %s) counted ESP packets (%s)" % (wan, fmt_spi(spi), mine[0][3]))
        if rec is not None:
            o.check(spi in ints_in(rec) and mine[0][2] == assoc_id(rec),
                    "the listed association has %s's in_spi %s and owns its flow" % (name, fmt_spi(spi)))
    o.check(len(owners) == 1, "both gateways' inbound flows belong to one association (%s)" % (
        ", ".join(str(x) for x in sorted(owners)) or "none"))
    return 0


def cmd_gone(a):
    o = Out()
    before, fl = {(d, s) for d, s, _, _, _ in flows(load(a.before_flows))}, load(a.flows)
    views = [(n, w, s) for n, w, s in gateway_views(a) if s]
    o.check(len(views) == 2 and all((w, s) in before for _, w, s in views),
            "before the CLOSE both gateways' inbound SPIs were flows at MB (%s)" % ", ".join(
                "%s (%s, %s)" % (n, w, fmt_spi(s)) for n, w, s in views))
    if not fl or "entries" not in fl:
        o.check(False, "MB's /hipgw/mbox_flows answered")
        return 0
    table = {(d, s) for d, s, _, _, _ in flows(fl)}
    for name, wan, spi in views:
        o.check((wan, spi) not in table, "%s's flow (%s, %s) of the closed association is gone from MB" % (
            name, wan, fmt_spi(spi)))
    recs = listing(o, load(a.mbox), a)
    if recs is not None:
        live = [r for r in recs if state_of(r) in LIVE_STATES]
        o.check(not live, "MB lists no live association of the pair (%s)" % (
            ", ".join(state_of(r) for r in recs) or "none"))
    return 0


def cmd_show(a):
    mb, fl = load(a.mbox), load(a.flows)
    recs = associations(mb, a.hit_a, a.hit_b)
    for r in recs:
        print("    association: " + json.dumps(r, sort_keys=True))
    if not recs:
        print("    associations: %s; tracker events: %s" % (
            json.dumps(mb.get("associations")), ", ".join(
                "%s %s" % (k, v) for k, v in (mb.get("hip") or {}).items() if v) or "none"))
    for d, s, i, p, _ in flows(fl):
        print("    flow (%s, SPI %s), association %s: %s packets" % (d, fmt_spi(s), i, p))
    return 0


def cmd_figures(_a):
    with open(FIGURES) as f:
        h = json.load(f)["hipfw"]
    r = h["reference"]
    ref = "%s, %s, %s" % (r["authors"], r["title"], r["venue"])
    print("%s %s %s" % (h["mbit_s"]["userspace_lookup"], h["mbit_s"]["fast_path_rules"], ref))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("get")
    g.add_argument("file")
    g.add_argument("name")
    for name in ("spis", "gone"):
        s = sub.add_parser(name)
        if name == "gone":
            s.add_argument("--before-flows", required=True)
        s.add_argument("--mbox", required=True)
        s.add_argument("--flows", required=True)
        s.add_argument("--hit-a", required=True)
        s.add_argument("--hit-b", required=True)
        s.add_argument("--wan-a")
        s.add_argument("--wan-b")
        s.add_argument("--stats-a", required=True)
        s.add_argument("--peer-a", required=True)
        s.add_argument("--stats-b", required=True)
        s.add_argument("--peer-b", required=True)
    s = sub.add_parser("show")
    for o in ("--mbox", "--flows", "--hit-a", "--hit-b"):
        s.add_argument(o, required=True)
    sub.add_parser("figures")
    a = ap.parse_args()
    return {"get": cmd_get, "spis": cmd_spis, "gone": cmd_gone, "show": cmd_show,
            "figures": cmd_figures}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
