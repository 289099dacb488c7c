#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A slow model of hipgw in Python, for checking the component tests themselves
while (or when) the real binary is not there:

    HIPGW_BIN=tests/component/mockgw.py /usr/bin/python3 -m pytest -q tests/component

It takes the same command line (EAL options are ignored), reads the rx_pcap
files of the net_pcap devices in the config, and behaves as hipgw does, using
the reference ESP of gwlib. It is not a gateway and never will be one.
"""

import hashlib
import ipaddress
import json
import os
import re
import struct
import sys

BUG = os.environ.get("MOCKGW_BUG", "")  # fault injection, to test the tests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwlib  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.utils import rdpcap, wrpcap  # noqa: E402

SUITE_KEYS = {"aes128-gcm16": 20, "aes256-gcm16": 36, "aes128-cbc-sha256": 16,
              "aes256-cbc-sha256": 32, "null-sha256": 0}
KEYS = {
    "gateway": {"workers", "idle"},
    "port": {"device", "role", "address", "neighbors", "routes", "mtu", "tcp-mss-clamp",
             "gateway"},
    "sa": {"direction", "spi", "suite", "key", "auth-key", "local", "remote", "prefixes",
           "local-prefixes", "esn", "state", "replay-window"},
    "policy": {"bypass"},
}


class ConfError(Exception):
    def __init__(self, line, msg):
        super().__init__(msg)
        self.line = line


def parse_config(path):
    try:
        text = open(path).read()
    except OSError as e:
        raise ConfError(0, str(e))
    sections, order = {}, []
    cur = None
    for n, raw in enumerate(text.split("\n"), 1):
        if len(raw) > 1024:
            raise ConfError(n, "line longer than 1024 bytes")
        ln = raw.split(";", 1)[0].strip()
        if not ln:
            continue
        if ln.startswith("["):
            m = re.fullmatch(r"\[(gateway|policy|port|sa)(?: ([A-Za-z0-9_.-]+))?\]", ln)
            if not m:
                raise ConfError(n, "bad section header")
            kind, name = m.group(1), m.group(2)
            if (kind in ("port", "sa")) != (name is not None):
                raise ConfError(n, "bad section name")
            if name and len(name) > 31:
                raise ConfError(n, "name too long")
            key = (kind, name)
            if key in sections:
                raise ConfError(n, "duplicate section")
            cur = {"_line": n, "_kind": kind, "_name": name, "_lines": {}}
            sections[key] = cur
            order.append(key)
            continue
        if "=" not in ln:
            raise ConfError(n, "expected key = value")
        if cur is None:
            raise ConfError(n, "key outside a section")
        k, v = (x.strip() for x in ln.split("=", 1))
        if k not in KEYS[cur["_kind"]]:
            raise ConfError(n, "unknown key %s" % k)
        if k in cur:
            raise ConfError(n, "duplicate key %s" % k)
        cur[k] = v
        cur["_lines"][k] = n
    cfg = {"workers": 1, "ports": [], "sas": [], "bypass": []}
    g = sections.get(("gateway", None), {"_lines": {}})
    if "workers" in g and not g["workers"].isdigit():
        raise ConfError(g["_lines"]["workers"], "bad workers")
    if g.get("idle", "adaptive") not in ("busy", "adaptive"):
        raise ConfError(g["_lines"]["idle"], "bad idle")

    def pfx(sec, key, host=False):
        out = []
        for item in sec[key].split(","):
            item = item.strip()
            try:
                net = ipaddress.ip_interface(item) if host else ipaddress.ip_network(item)
            except ValueError:
                raise ConfError(sec["_lines"][key], "bad prefix %s" % item)
            out.append(net)
        return out

    def addr(sec, key):
        try:
            return ipaddress.ip_address(sec[key])
        except ValueError:
            raise ConfError(sec["_lines"][key], "bad address")

    for kind, name in order:
        s = sections[(kind, name)]
        L = s["_lines"]
        if kind == "port":
            if len(s.get("device", "")) > 255:
                raise ConfError(L["device"], "device too long")
            if s.get("role") not in ("inner", "outer"):
                raise ConfError(L.get("role", s["_line"]), "bad role")
            p = {"name": name, "device": s["device"], "role": s["role"],
                 "addrs": pfx(s, "address", True), "neigh": {}, "mtu": 1500,
                 "mss": s.get("tcp-mss-clamp", "auto"), "gw4": None, "routes": []}
            if "mtu" in s:
                if not s["mtu"].isdigit() or not 68 <= int(s["mtu"]) <= 9000:
                    raise ConfError(L["mtu"], "bad mtu")
                p["mtu"] = int(s["mtu"])
            for item in s.get("neighbors", "").split(","):
                if not item.strip():
                    continue
                parts = item.split()
                if len(parts) != 2 or not re.fullmatch(r"([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}",
                                                       parts[1]):
                    raise ConfError(L["neighbors"], "bad neighbour")
                p["neigh"][str(ipaddress.ip_address(parts[0]))] = parts[1].lower()
            if "routes" in s:
                items = s["routes"].split(",")
                if len(items) > 32:
                    raise ConfError(L["routes"], "too many routes")
            p["gw6"] = None
            for item in s.get("gateway", "").split(","):
                if item.strip():
                    a = ipaddress.ip_address(item.strip())
                    p["gw%d" % a.version] = str(a)
            cfg["ports"].append(p)
        elif kind == "sa":
            d = s.get("direction")
            if d not in ("in", "out"):
                raise ConfError(L.get("direction", s["_line"]), "bad direction")
            try:
                spi = int(s["spi"], 0)
            except ValueError:
                raise ConfError(L["spi"], "bad spi")
            if spi < 256 or spi > 0xffffffff:
                raise ConfError(L["spi"], "spi 0 and 1..255 are reserved")
            suite = s.get("suite")
            if suite not in gwlib.SUITES:
                raise ConfError(L.get("suite", s["_line"]), "bad suite")
            try:
                key = bytes.fromhex(s.get("key", "0x")[2:])
                akey = bytes.fromhex(s.get("auth-key", "0x")[2:])
            except ValueError:
                raise ConfError(L.get("key", L.get("auth-key")), "bad hex")
            if len(key) != SUITE_KEYS[suite]:
                raise ConfError(L.get("key", s["_line"]), "key length does not match suite")
            if s.get("esn", "off") not in ("on", "off"):
                raise ConfError(L["esn"], "bad esn")
            if "replay-window" in s and not s["replay-window"].isdigit():
                raise ConfError(L["replay-window"], "bad replay-window")
            if len(s.get("state", "")) > 255:
                raise ConfError(L["state"], "state path too long")
            local, remote = addr(s, "local"), addr(s, "remote")
            if local.version != remote.version:
                raise ConfError(L["remote"], "local and remote families differ")
            sa = gwlib.SA(name, d, spi, gwlib.SUITES[suite], key, akey, str(local), str(remote),
                          prefixes=tuple(str(x) for x in pfx(s, "prefixes")),
                          esn=s.get("esn") == "on", state=s.get("state", ""))
            sa.line = s["_line"]
            sa.lines = L
            sa.window = int(s.get("replay-window", "1024"))
            cfg["sas"].append(sa)
        elif kind == "policy":
            cfg["bypass"] = pfx(s, "bypass") if "bypass" in s else []
    outer_addrs = {str(a.ip) for p in cfg["ports"] if p["role"] == "outer" for a in p["addrs"]}
    seen = set()
    outs = []
    for sa in cfg["sas"]:
        if sa.local not in outer_addrs:
            raise ConfError(sa.lines["local"], "local address not on an outer port")
        if (sa.direction, sa.spi) in seen:
            raise ConfError(sa.lines["spi"], "duplicate spi")
        seen.add((sa.direction, sa.spi))
        if sa.direction == "out":
            for o in outs:
                for a in sa.prefixes:
                    for b in o.prefixes:
                        na, nb = ipaddress.ip_network(a), ipaddress.ip_network(b)
                        if na.version == nb.version and na.overlaps(nb):
                            raise ConfError(sa.lines["prefixes"], "overlapping prefixes")
            outs.append(sa)
    return cfg


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def v4hdr(src, dst, proto, payload_len, tos=0, ttl=64, ident=0, flags=0):
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + payload_len, ident, flags, ttl,
                              proto, 0, ipaddress.ip_address(src).packed,
                              ipaddress.ip_address(dst).packed))
    h[10:12] = struct.pack("!H", csum(bytes(h)))
    return bytes(h)


def v6hdr(src, dst, nh, payload_len, tc=0, hlim=64):
    return struct.pack("!IHBB16s16s", (6 << 28) | (tc << 20), payload_len, nh, hlim,
                       ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed)


def icmp6_csum(src, dst, body):
    pseudo = ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed + \
        struct.pack("!IxxxB", len(body), 58)
    return csum(pseudo + body)


class Gw:
    def __init__(self, cfg):
        self.cfg = cfg
        self.drops = {k: 0 for k in gwlib.DROP_REASONS}
        self.ports = {}
        n = 0
        for p in cfg["ports"]:
            m = dict(x.split("=", 1) for x in p["device"].split(",")[1:] if "=" in x)
            p["rx"], p["txf"] = m.get("rx_pcap"), m.get("tx_pcap")
            p["mac"] = "02:70:63:61:70:%02x" % n
            n += 1
            p["out"], p["nrx"] = [], 0
            self.ports[p["name"]] = p
        self.inner = [p for p in cfg["ports"] if p["role"] == "inner"][0]
        self.outer = [p for p in cfg["ports"] if p["role"] == "outer"][0]
        self.sa_stats = {sa.name: [0, 0] for sa in cfg["sas"]}
        self.in_sas = {sa.spi: sa for sa in cfg["sas"] if sa.direction == "in"}
        self.out_sas = [sa for sa in cfg["sas"] if sa.direction == "out"]
        self.frags = {}
        for sa in self.out_sas:
            sa.next = 1
            sa.hw = 0
            if sa.suite.kind == "gcm":
                path = sa.state or "/var/lib/hipgw/%s.seq" % sa.name
                tag = hashlib.sha256(sa.key).hexdigest()[:16]
                marks = {}                          # one mark per key, as hipgw keeps
                try:
                    for line in open(path).read().splitlines():
                        t, hw = line.split()
                        marks[t] = int(hw)
                except (OSError, ValueError):
                    pass
                if tag in marks and BUG != "restart":
                    sa.next = marks[tag] + 1
                sa.hw = sa.next - 1 + 4096
                marks[tag] = sa.hw
                with open(path, "w") as f:          # raises when not writable
                    f.write("".join("%s %d\n" % kv for kv in marks.items()))
        for sa in self.in_sas.values():
            sa.top = 0
            sa.seen = set()

    # ---- helpers
    def send(self, port, dst_mac, ipb):
        et = b"\x08\x00" if ipb[0] >> 4 == 4 else b"\x86\xdd"
        port["out"].append(bytes.fromhex(dst_mac.replace(":", "")) +
                           bytes.fromhex(port["mac"].replace(":", "")) + et + ipb)

    def icmp_err(self, orig, typ, code, field=0):
        if orig[0] >> 4 == 4:
            src = str(ipaddress.ip_address(orig[12:16]))
            quote = orig[:548]
            body = bytearray(struct.pack("!BBHI", typ, code, 0, field) + quote)
            body[2:4] = struct.pack("!H", csum(bytes(body)))
            ipb = v4hdr(self.inner_addr(4), src, 1, len(body)) + bytes(body)
        else:
            src = str(ipaddress.ip_address(orig[8:24]))
            quote = orig[:1280 - 48]
            body = bytearray(struct.pack("!BBHI", typ, code, 0, field) + quote)
            body[2:4] = struct.pack("!H", icmp6_csum(self.inner_addr(6), src, bytes(body)))
            ipb = v6hdr(self.inner_addr(6), src, 58, len(body)) + bytes(body)
        self.route(ipb, from_gw=True)

    def inner_addr(self, fam):
        return [str(a.ip) for a in self.inner["addrs"] if a.version == fam][0]

    def route(self, ipb, from_gw=False):
        """Deliver a packet the gateway originates or forwards (TTL already done)."""
        fam = ipb[0] >> 4
        dst = ipaddress.ip_address(ipb[16:20] if fam == 4 else ipb[24:40])
        for a in self.inner["addrs"]:
            if dst in a.network:
                mac = self.inner["neigh"].get(str(dst))
                if mac is None:
                    self.drops["no_neighbor"] += 1
                    return
                self.send(self.inner, mac, ipb)
                return
        sa = self.lookup_out(dst)
        if sa is not None:
            self.encrypt(sa, ipb)
            return
        self.drops["policy"] += 1

    def lookup_out(self, dst):
        for sa in self.out_sas:
            for p in sa.prefixes:
                n = ipaddress.ip_network(p)
                if n.version == dst.version and dst in n:
                    return sa
        return None

    def outer_mac(self, dst):
        d = str(dst)
        if d in self.outer["neigh"]:
            return self.outer["neigh"][d]
        return self.outer["neigh"].get(self.outer["gw%d" % dst.version])

    def encrypt(self, sa, ipb):
        ov = gwlib.esp_overhead(sa.suite, sa.outer_family, len(ipb))
        mtu = self.outer["mtu"]
        if len(ipb) + ov > mtu:
            mx = gwlib.max_inner(sa.suite, sa.outer_family, mtu) - (4 if BUG == "mtu" else 0)
            if ipb[0] >> 4 == 4:
                if struct.unpack("!H", ipb[6:8])[0] & 0x4000:
                    self.drops["mtu"] += 1
                    self.icmp_err(ipb, 3, 4, mx)
                    return
                ihl = (ipb[0] & 15) * 4
                data = ipb[ihl:]
                step = (mx - ihl) & ~7
                ident = ipb[4:6]
                for off in range(0, len(data), step):
                    part = data[off:off + step]
                    more = off + step < len(data)
                    h = bytearray(ipb[:ihl])
                    h[2:4] = struct.pack("!H", ihl + len(part))
                    h[6:8] = struct.pack("!H", (0x2000 if more else 0) | (off // 8))
                    h[10:12] = b"\0\0"
                    h[10:12] = struct.pack("!H", csum(bytes(h)))
                    self.encrypt(sa, bytes(h) + part)
                return
            self.drops["mtu"] += 1
            self.icmp_err(ipb, 2, 0, max(1280, mx))
            return
        seq = sa.next
        if not sa.esn and seq > 0xffffffff:
            self.drops["seq_overflow"] += 1
            return
        sa.next += 1
        iv = struct.pack("!Q", seq) if sa.suite.kind == "gcm" else None
        esp = gwlib.ref_encrypt(sa, ipb, seq, iv=iv, padding=bytes(
            len(gwlib.default_padding(sa.suite, len(ipb)))) if BUG == "padzero" else None)
        tos = ipb[1] if ipb[0] >> 4 == 4 else ((ipb[0] & 15) << 4) | (ipb[1] >> 4)
        if sa.outer_family == 4:
            o = v4hdr(sa.local, sa.remote, 50, len(esp), tos=0 if BUG == "tos" else tos, flags=0x4000)
        else:
            o = v6hdr(sa.local, sa.remote, 50, len(esp), tc=tos)
        self.send(self.outer, self.outer_mac(ipaddress.ip_address(sa.remote)), o + esp)
        self.sa_stats[sa.name][0] += 1
        self.sa_stats[sa.name][1] += len(ipb)

    # ---- parsing
    def ip_of(self, port, fr):
        """The IP packet of a frame to this port, trimmed; None = dropped (counted)."""
        if len(fr) < 14:
            return None
        dst = ":".join("%02x" % x for x in fr[:6])
        if dst != port["mac"] and dst != "ff:ff:ff:ff:ff:ff" and BUG != "mac":
            return None
        et = struct.unpack("!H", fr[12:14])[0]
        ipb = fr[14:]
        if et == 0x800:
            if len(ipb) < 20 or ipb[0] >> 4 != 4:
                self.drops["malformed"] += 1
                return None
            tl = struct.unpack("!H", ipb[2:4])[0]
            if tl > len(ipb) or tl < (ipb[0] & 15) * 4:
                self.drops["malformed"] += 1
                return None
            return ipb[:tl]
        if et == 0x86dd:
            if len(ipb) < 40:
                self.drops["malformed"] += 1
                return None
            pl = struct.unpack("!H", ipb[4:6])[0]
            if 40 + pl > len(ipb):
                self.drops["malformed"] += 1
                return None
            return ipb[:40 + pl]
        return None

    def dec_ttl(self, ipb):
        b = bytearray(ipb)
        if b[0] >> 4 == 4:
            if b[8] <= 1:
                self.drops["ttl"] += 1
                self.icmp_err(ipb, 11, 0)
                return None
            return gwlib.routed(ipb, 0 if BUG == "nottl" else 1)
        if b[7] <= 1:
            self.drops["ttl"] += 1
            self.icmp_err(ipb, 3, 0)
            return None
        return gwlib.routed(ipb)

    def from_inner(self, fr):
        ipb = self.ip_of(self.inner, fr)
        if ipb is None:
            return
        fam = ipb[0] >> 4
        dst = ipaddress.ip_address(ipb[16:20] if fam == 4 else ipb[24:40])
        sa = self.lookup_out(dst)
        bypass = any(dst.version == n.version and dst in n for n in self.cfg["bypass"])
        if sa is None and not bypass:
            self.drops["policy"] += 1
            return
        ipb = self.dec_ttl(ipb)
        if ipb is None:
            return
        if bypass:
            self.send(self.outer, self.outer_mac(dst), ipb)
            return
        ipb = self.clamp(ipb, sa)
        self.encrypt(sa, ipb)

    def clamp(self, ipb, sa):
        mode = self.inner["mss"]
        fam = ipb[0] >> 4
        hl = (ipb[0] & 15) * 4 if fam == 4 else 40
        proto = ipb[9] if fam == 4 else ipb[6]
        if mode == "off" or proto != 6 or not ipb[hl + 13] & 2:
            return ipb
        limit = gwlib.max_inner(sa.suite, sa.outer_family, self.outer["mtu"]) - hl - 20
        b = bytearray(ipb)
        doff = (b[hl + 12] >> 4) * 4
        i = hl + 20
        while i < hl + doff:
            k = b[i]
            if k == 0:
                break
            if k == 1:
                i += 1
                continue
            if k == 2 and struct.unpack("!H", b[i + 2:i + 4])[0] > limit:
                b[i + 2:i + 4] = struct.pack("!H", limit)
            i += b[i + 1]
        b[hl + 16:hl + 18] = b"\0\0"
        seg = bytes(b[hl:])
        if fam == 4:
            pseudo = bytes(b[12:20]) + struct.pack("!xBH", 6, len(seg))
        else:
            pseudo = bytes(b[8:40]) + struct.pack("!IxxxB", len(seg), 6)
        b[hl + 16:hl + 18] = struct.pack("!H", csum(pseudo + seg))
        return bytes(b)

    def reassemble(self, ipb):
        """Outer fragments -> whole packet, None while incomplete or on overlap."""
        fam = ipb[0] >> 4
        if fam == 4:
            fo = struct.unpack("!H", ipb[6:8])[0]
            if not fo & 0x3fff:
                return ipb
            hl = (ipb[0] & 15) * 4
            key = (4, ipb[12:20], ipb[4:6])
            off, more, data, hdr = (fo & 0x1fff) * 8, bool(fo & 0x2000), ipb[hl:], ipb[:hl]
        else:
            if ipb[6] != 44:
                return ipb
            fh = ipb[40:48]
            key = (6, ipb[8:40], fh[4:8])
            offm = struct.unpack("!H", fh[2:4])[0]
            off, more, data = offm & ~7, bool(offm & 1), ipb[48:]
            hdr = bytearray(ipb[:40])
            hdr[6] = fh[0]
            hdr = bytes(hdr)
        st = self.frags.setdefault(key, {"parts": [], "hdr": None, "total": None, "bad": False})
        if st["bad"]:
            return None
        for o, d in st["parts"]:
            if BUG == "overlap":
                break
            if off < o + len(d) and o < off + len(data):
                st["bad"] = True
                self.drops["malformed"] += 1
                return None
        st["parts"].append((off, data))
        if off == 0:
            st["hdr"] = hdr
        if not more:
            st["total"] = off + len(data)
        if st["hdr"] is None or st["total"] is None:
            return None
        if sum(len(d) for _, d in st["parts"]) != st["total"]:
            return None
        body = b"".join(d for _, d in sorted(st["parts"]))
        del self.frags[key]
        h = bytearray(st["hdr"])
        if fam == 4:
            h[2:4] = struct.pack("!H", len(h) + len(body))
            h[6:8] = b"\0\0"
            h[10:12] = b"\0\0"
            h[10:12] = struct.pack("!H", csum(bytes(h)))
        else:
            h[4:6] = struct.pack("!H", len(body))
        return bytes(h) + body

    def from_outer(self, fr):
        ipb = self.ip_of(self.outer, fr)
        if ipb is None:
            return
        ipb = self.reassemble(ipb)
        if ipb is None:
            return
        fam = ipb[0] >> 4
        hl = (ipb[0] & 15) * 4 if fam == 4 else 40
        proto = ipb[9] if fam == 4 else ipb[6]
        if proto != 50:
            self.drops["policy"] += 1
            return
        esp = ipb[hl:]
        if len(esp) < 8:
            self.drops["malformed"] += 1
            return
        spi, seq = struct.unpack("!II", esp[:8])
        sa = self.in_sas.get(spi)
        if sa is None:
            self.drops["no_sa"] += 1
            return
        s = sa.suite
        if len(esp) < 8 + s.iv_len + 4 + s.icv_len:
            self.drops["malformed"] += 1
            return
        if seq == 0 or seq in sa.seen or (sa.window and seq + sa.window <= sa.top):
            self.drops["replay"] += 1
            return
        if BUG == "earlywin":
            sa.seen.add(seq)
        try:
            p = gwlib.ref_decrypt(sa, esp)
        except gwlib.RefAuthError:
            self.drops["auth"] += 1
            return
        except Exception:
            self.drops["auth"] += 1
            return
        body_len = len(p.payload) + len(p.padding)
        if p.padlen > p.ct_len - 2 or p.padding != bytes(range(1, p.padlen + 1)):
            self.drops["pad"] += 1
            if BUG != "pad":
                return
        del body_len
        sa.seen.add(seq)
        sa.top = max(sa.top, seq)
        inner = p.payload
        if p.nh not in (4, 41) or not inner or inner[0] >> 4 != (4 if p.nh == 4 else 6):
            self.drops["malformed"] += 1
            return
        ifam = inner[0] >> 4
        if ifam == 4:
            if len(inner) < 20 or struct.unpack("!H", inner[2:4])[0] != len(inner):
                self.drops["malformed"] += 1
                return
        else:
            if len(inner) < 40 or 40 + struct.unpack("!H", inner[4:6])[0] != len(inner):
                self.drops["malformed"] += 1
                return
        src = ipaddress.ip_address(inner[12:16] if ifam == 4 else inner[8:24])
        dst = ipaddress.ip_address(inner[16:20] if ifam == 4 else inner[24:40])
        if not any(src.version == ipaddress.ip_network(n).version and src in ipaddress.ip_network(n)
                   for n in sa.prefixes):
            self.drops["spoof"] += 1
            if BUG != "spoof":
                return
        if not any(dst in a.network for a in self.inner["addrs"]):
            self.drops["spoof"] += 1
            return
        o_ecn = ipb[1] & 3 if fam == 4 else (ipb[1] >> 4) & 3
        b = bytearray(inner)
        i_ecn = b[1] & 3 if ifam == 4 else (b[1] >> 4) & 3
        if BUG == "ecn":
            o_ecn = 0
        if o_ecn == 3:
            if i_ecn == 0:
                self.drops["ecn"] += 1
                return
            new = 3
        elif o_ecn == 1 and i_ecn == 2:
            new = 1
        else:
            new = i_ecn
        if ifam == 4:
            b[1] = (b[1] & 0xfc) | new
            b[10:12] = b"\0\0"
            b[10:12] = struct.pack("!H", csum(bytes(b[:(b[0] & 15) * 4])))
        else:
            b[1] = (b[1] & 0xcf) | (new << 4)
        self.sa_stats[sa.name][0] += 1
        self.sa_stats[sa.name][1] += len(inner)
        ipb2 = self.dec_ttl(bytes(b))
        if ipb2 is None:
            return
        self.route(ipb2)

    def run(self):
        for p in self.cfg["ports"]:
            frames = [bytes(x) for x in rdpcap(p["rx"])] if p["rx"] and \
                os.path.getsize(p["rx"]) > 24 else []
            p["nrx"] = len(frames)
            for fr in frames:
                if p["role"] == "inner":
                    self.from_inner(fr)
                else:
                    self.from_outer(fr)
        for p in self.cfg["ports"]:
            if p["txf"]:
                if p["out"]:
                    wrpcap(p["txf"], [Ether(x) for x in p["out"]])
                else:
                    with open(p["txf"], "wb") as f:
                        f.write(gwlib.PCAP_HDR)

    def stats(self):
        return {"drops": self.drops,
                "ports": {p["name"]: {"mac": p["mac"], "rx": p["nrx"], "tx": len(p["out"]),
                                      "imissed": 0, "rx_nombuf": 0, "oerrors": 0}
                          for p in self.cfg["ports"]},
                "sa": {sa.name: {"spi": sa.spi, "packets": self.sa_stats[sa.name][0],
                                 "bytes": self.sa_stats[sa.name][1]} for sa in self.cfg["sas"]}}


def main(argv):
    if len(argv) >= 2 and argv[0] == "--check-config":
        try:
            parse_config(argv[1])
        except ConfError as e:
            print("%s:%d: %s" % (argv[1], e.line, e), file=sys.stderr)
            return 2
        return 0
    app = argv[argv.index("--") + 1:] if "--" in argv else argv
    opts = dict(zip(app[::2], app[1::2]))
    path = opts["--config"]
    try:
        cfg = parse_config(path)
    except ConfError as e:
        print("%s:%d: %s" % (path, e.line, e), file=sys.stderr)
        return 2
    try:
        gw = Gw(cfg)
    except OSError as e:
        print("cannot write GCM state file: %s" % e, file=sys.stderr)
        return 1
    gw.run()
    if "--stats-json" in opts:
        with open(opts["--stats-json"], "w") as f:
            json.dump(gw.stats(), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
