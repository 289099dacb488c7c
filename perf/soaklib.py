"""Plumbing of perf/soak: the two-site topology of tests/system/topology.sh
(its bash functions, called through bash), HIP-keyed hipgw gateways in it,
ping, iperf3 and tshark captures, and a pcap reader. Nothing here prints
figures; perf/soak does. What every perf script shares is in perflib.

  hostA ---- gwA ========== gwB ---- hostB       (namespaces PREFIX{hostA,gwA,gwB,hostB})
  10.1.0.2   LAN | WAN 192.0.2.1   192.0.2.2 WAN | LAN   10.2.0.2
"""

import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perflib as P  # noqa: E402

TOPOLOGY = os.path.join(P.REPO, "tests", "system", "topology.sh")

# the addresses and names of tests/system/topology.sh
HA4, HB4 = "10.1.0.2", "10.2.0.2"
GA_WAN4, GB_WAN4 = "192.0.2.1", "192.0.2.2"
GB_WAN6 = "2001:db8:ffff::2"
MAC = {"HA": "02:00:00:01:00:02", "GA_LAN": "02:00:00:01:00:01", "GA_WAN": "02:00:00:00:00:01",
       "GB_WAN": "02:00:00:00:00:02", "GB_LAN": "02:00:00:02:00:01", "HB": "02:00:00:02:00:02"}
IFACE = {"HA": "lan0", "GA_LAN": "gwa-lan", "GA_WAN": "gwa-wan", "GB_WAN": "gwb-wan",
         "GB_LAN": "gwb-lan", "HB": "lan0"}
PEER_NAME = {"A": "gwB", "B": "gwA"}        # the [peer] name in gwX's config
MARKER_HEX = "4847572d434c454152544558542d2121"   # "HGW-CLEARTEXT-!!", as topology.sh
LCORES = {"A": "0@0,1@1", "B": "0@1,1@0"}   # topology.sh's gw_start mapping

log = P.logger("soak")
run = P.run


class Site:
    """The topology, its gateways and helper processes; cleans up on exit."""

    def __init__(self, prefix, hipgw, keep=False, mem=None):
        self.prefix = prefix
        self.hipgw = hipgw
        self.keep = keep
        self.work = tempfile.mkdtemp(prefix=f"{prefix}run.")
        os.chmod(self.work, 0o700)
        self.ns = {k: prefix + k for k in ("hostA", "gwA", "gwB", "hostB")}
        self.procs = []          # every process we started, ended by pid at cleanup
        self.gw = {}             # side -> perflib.Hipgw
        self.gw_start_time = {}
        self.hit = {}
        self.env = dict(os.environ, HGW_NS_PREFIX=prefix, WORK=self.work, HIPGW=hipgw)
        if mem:
            self.env["HGW_MEM"] = str(mem)
        self.cleaned = False

    # ---- topology.sh
    def topo(self, *args, env=None):
        e = dict(self.env, **(env or {}))
        return run(["bash", "-c", '. "$0"; "$@"', TOPOLOGY] + list(args), env=e)

    def create(self):
        self.topo("topo_create")

    def cleanup(self):
        if self.cleaned:
            return
        self.cleaned = True
        for gw in self.gw.values():
            gw.tel.close()
        for p in self.procs:
            if p.poll() is None:
                try:
                    p.send_signal(signal.SIGTERM)
                except OSError:
                    pass
        deadline = time.time() + 5
        for p in self.procs:
            try:
                p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        try:
            self.topo("topo_destroy")      # namespaces, /var/run/dpdk/PREFIXgw{A,B}
        except P.RunError as e:
            log(f"cleanup: {e}")
        if self.keep:
            log(f"work directory kept: {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)

    def nsx(self, key, cmd, **kw):
        return ["ip", "netns", "exec", self.ns[key]] + cmd

    def spawn(self, cmd, out=None, **kw):
        f = open(out, "w") if out else subprocess.DEVNULL
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f,
                             stderr=subprocess.STDOUT if out else subprocess.DEVNULL, **kw)
        self.procs.append(p)
        return p

    # ---- gateways
    def keygen(self):
        for s in "AB":
            key = os.path.join(self.work, f"gw{s}.pem")
            out = run([self.hipgw, "keygen", "--algo", "ecdsa-p256", "--out", key]).stdout
            m = re.search(r"^HIT\s+(\S+)", out, re.M)
            if not m:
                raise P.RunError(f"hipgw keygen printed no HIT: {out[:200]}")
            self.hit[s] = m.group(1)

    def write_configs(self, lifetime, extra=None, tag="", workers=None, wan6=None):
        """gwA{tag}.ini / gwB{tag}.ini by topology.sh's write_hip_gw_config, plus
        extra {side: [gateway] lines}; workers {side: N}: N workers instead of
        topology.sh's 1, each af_packet device with qpairs=N (a queue pair per
        worker); wan6 {side: ADDR/LEN}: an IPv6 address on the WAN port too."""
        for s in "AB":
            path = os.path.join(self.work, f"gw{s}{tag}.ini")
            self.topo("write_hip_gw_config", path, s,
                      env={"HIT_A": self.hit["A"], "HIT_B": self.hit["B"],
                           "HGW_SA_LIFETIME": lifetime})
            text = open(path).read()
            lines = (extra or {}).get(s, [])
            if lines:
                text = text.replace("[gateway]\n", "[gateway]\n" + "\n".join(lines) + "\n", 1)
            n = (workers or {}).get(s)
            if n:
                text = re.sub(r"^workers = \d+$", f"workers = {n}", text, count=1, flags=re.M)
                text = re.sub(r"^(device = net_af_packet\d+,iface=\S+)$", rf"\1,qpairs={n}", text,
                              flags=re.M)
            a6 = (wan6 or {}).get(s)
            if a6:
                text = re.sub(r"^(\[port wan\]\n(?:.+\n)*?address = .+)$", rf"\1, {a6}", text,
                              count=1, flags=re.M)
            open(path, "w").write(text)
            os.chmod(path, 0o600)

    def eal_mem_args(self):
        return self.topo("eal_mem_args").stdout.split()

    def gw_start(self, side, tag="", run_tag="", lcores=None, opts=()):
        """hipgw in gw{side}'s namespace; lcores: EAL --lcores (default
        LCORES[side]); opts: more hipgw options, e.g. --slow-path."""
        gw = P.Hipgw(self.hipgw, f"{self.prefix}gw{side}", lcores or LCORES[side], self.work,
                     f"gw{side}", config=os.path.join(self.work, f"gw{side}{tag}.ini"),
                     logf=self.gw_log(side, run_tag),
                     stats=os.path.join(self.work, f"stats{side}{run_tag}.json"), mem=self.mem,
                     wrap=["ip", "netns", "exec", self.ns[f"gw{side}"]], name=f"gw{side}")
        self.gw_start_time[side] = time.time()
        gw.start(opts)
        self.procs.append(gw.proc)
        self.gw[side] = gw

    def gw_log(self, side, run_tag=""):
        return os.path.join(self.work, f"gw{side}{run_tag}.log")

    def gw_wait_running(self, side, timeout, run_tag=""):
        end = time.time() + timeout
        while time.time() < end:
            try:
                if "hipgw running" in open(self.gw_log(side, run_tag)).read():
                    return True
            except OSError:
                pass
            if self.gw[side].proc.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def gw_kill9(self, side):
        gw = self.gw[side]
        gw.proc.send_signal(signal.SIGKILL)
        gw.proc.wait()
        gw.tel.close()

    def gw_stop(self, side, timeout=15):
        gw = self.gw.get(side)
        return gw.stop(timeout, signal.SIGTERM) if gw else None

    def stats(self, side, cmd="/hipgw/stats"):
        return self.gw[side].tel.poll(cmd)

    def control_tid(self, side):
        """The control lcore's thread: lcore 0, the EAL main thread (tid = pid)."""
        return self.gw[side].pid

    def link_rx(self, key, iface):
        """Frames the kernel counted in on iface in namespace key (its
        stats64 rx packets), None when unknown."""
        r = run(self.nsx(key, ["ip", "-j", "-s", "link", "show", "dev", iface]), check=False)
        try:
            return json.loads(r.stdout)[0]["stats64"]["rx"]["packets"]
        except (ValueError, IndexError, KeyError):
            return None

    def worker_tids(self, side):
        """[(tid, comm)] of gw{side}'s worker lcores, by name."""
        return P.worker_tids(self.gw[side].pid)

    def wait_path(self, timeout):
        end = time.time() + timeout
        while time.time() < end:
            if run(self.nsx("hostA", ["ping", "-c1", "-W1", "-q", HB4]), check=False).returncode == 0:
                return True
            time.sleep(0.2)
        return False

    def up(self, lifetime, extra=None, timeout=40, run_tag="", workers=None, wan6=None,
           lcores=None, opts=None):
        """Keys, configs, both gateways, and the path hostA -> hostB (the first
        ping starts the BEX). extra, workers, wan6: as write_configs; lcores,
        opts: {side: ...} for gw_start."""
        self.mem = self.eal_mem_args()
        if not self.hit:
            self.keygen()
        self.write_configs(lifetime, extra, workers=workers, wan6=wan6)
        for s in "AB":
            self.gw_start(s, run_tag=run_tag, lcores=(lcores or {}).get(s),
                          opts=(opts or {}).get(s, ()))
        for s in "AB":
            if not self.gw_wait_running(s, 30, run_tag=run_tag):
                raise P.RunError(f"gw{s} did not start: {open(self.gw_log(s, run_tag)).read()[-800:]}")
        if not self.wait_path(timeout):
            raise P.RunError(f"no path hostA -> hostB through the gateways in {timeout} s")


# ---------------------------------------------------------------- traffic

def interrupt(p, timeout):
    """SIGINT (ping and tshark then print or flush what they have), a kill
    after timeout s."""
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


class Ping:
    """ping -D -O from hostA to hostB at an interval, marked payload; parse()
    gives [(timestamp, seq)] of the replies and the summary line."""

    def __init__(self, site, interval=0.01, count=None, dst=HB4, src="hostA"):
        self.out = os.path.join(site.work, f"ping-{time.time():.0f}-{src}.txt")
        cmd = ["ping", "-D", "-O", "-i", str(interval), "-W", "1", "-p", MARKER_HEX, dst]
        if count:
            cmd[1:1] = ["-c", str(count)]
        self.p = site.spawn(site.nsx(src, cmd), out=self.out)
        self.started = time.time()

    def stop(self):
        interrupt(self.p, 10)
        return self.parse()

    def parse(self):
        replies, sent, recv = [], None, None
        for line in open(self.out, errors="replace"):
            m = re.match(r"\[(\d+\.\d+)\] \d+ bytes from .*icmp_seq=(\d+)", line)
            if m:
                replies.append((float(m.group(1)), int(m.group(2))))
            m = re.match(r"(\d+) packets transmitted, (\d+) received", line)
            if m:
                sent, recv = int(m.group(1)), int(m.group(2))
        return {"replies": replies, "sent": sent, "received": recv,
                "loss_pct": None if not sent else 100.0 * (sent - recv) / sent}


class IperfLoop:
    """iperf3 TCP (or UDP) in consecutive chunks of `chunk` s until stop(),
    from client host to a server in the other; each chunk's receiver figures."""

    def __init__(self, site, client, server_ip, port, chunk=30, rate=None, udp=False, length=None):
        self.site, self.client, self.server_ip, self.port = site, client, server_ip, port
        self.chunk, self.rate, self.udp, self.length = chunk, rate, udp, length
        self.results = []
        self.stopping = False
        self.cur = None
        self.t = threading.Thread(target=self.loop, daemon=True)

    def start(self):
        self.t.start()
        return self

    def one(self, secs):
        cmd = ["iperf3", "-c", self.server_ip, "-p", str(self.port), "-t", str(secs), "-J",
               "--connect-timeout", "3000"]
        if self.udp:
            cmd += ["-u", "-b", self.rate or "0", "-l", str(self.length or 1200)]
        elif self.rate:
            cmd += ["-b", self.rate]
        p = subprocess.Popen(self.site.nsx(self.client, cmd), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
        self.cur = p
        try:
            out, _ = p.communicate(timeout=secs + 20)
        except subprocess.TimeoutExpired:     # a dead path: iperf3 waits for its server
            p.kill()
            out, _ = p.communicate()
        self.cur = None
        try:
            end = json.loads(out).get("end", {})
        except ValueError:
            return {"bps": 0, "bytes": 0, "seconds": 0, "error": "no JSON"}
        if self.udp:
            # "sum" / "sum_sent" are the client's (sender's) figures,
            # "sum_received" the server's (iperf3 3.12). iperf3's own loss
            # counts only up to the highest sequence number that arrived,
            # so it leaves out a tail lost to a dead path: received datagrams
            # here are the bytes received over the datagram length.
            s = end.get("sum_sent", end.get("sum", {}))
            rcv = end.get("sum_received", end.get("sum", {}))
            sent, got = s.get("packets", 0), rcv.get("bytes", 0) // (self.length or 1200)
            return {"bps": rcv.get("bits_per_second", 0), "bytes": rcv.get("bytes", 0),
                    "seconds": rcv.get("seconds", 0), "sent": sent, "received": got,
                    "loss_pct": 100.0 * (sent - got) / sent if sent else 0}
        s = end.get("sum_received", {})
        return {"bps": s.get("bits_per_second", 0), "bytes": s.get("bytes", 0),
                "seconds": s.get("seconds", 0),
                "retransmits": end.get("sum_sent", {}).get("retransmits")}

    def loop(self):
        while not self.stopping:
            t0 = time.time()
            r = self.one(self.chunk)
            r["start"] = t0
            self.results.append(r)

    def stop(self):
        """Ends the running chunk (SIGINT: iperf3 still prints its JSON) and
        returns the chunks that carried data."""
        self.stopping = True
        cur = self.cur
        if cur is not None and cur.poll() is None:
            cur.send_signal(signal.SIGINT)
        self.t.join(30)
        if self.cur is not None and self.cur.poll() is None:
            self.cur.kill()
        return [r for r in self.results if r.get("bytes")]


def iperf_servers(site, specs, once=False):
    """specs: [(host, port)]: iperf3 -s there (once: -1, one test, then it
    exits); waits until they listen."""
    for host, port in specs:
        site.spawn(site.nsx(host, ["iperf3", "-s", "-p", str(port)] + (["-1"] if once else [])))
    for host, port in specs:
        for _ in range(50):
            if f":{port} " in run(site.nsx(host, ["ss", "-ltn"]), check=False).stdout:
                break
            time.sleep(0.1)


class Capture:
    """tshark -w on one interface of one namespace (whole frames by default)."""

    def __init__(self, site, key, iface, name, snap=0):
        self.path = os.path.join(site.work, f"{name}.pcap")
        logf = os.path.join(site.work, f"tshark-{name}.log")
        self.p = site.spawn(site.nsx(key, ["tshark", "-q", "-n", "-i", iface, "-s", str(snap),
                                           "-F", "pcap", "-w", self.path]), out=logf)
        self.logf = logf

    def wait_ready(self, timeout=15):
        end = time.time() + timeout
        while time.time() < end:
            if "Capturing on" in open(self.logf).read():
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        interrupt(self.p, 15)


def read_pcap(path):
    """[(timestamp, frame bytes)] of a classic pcap (microsecond or nanosecond)."""
    out = []
    try:
        data = open(path, "rb").read()
    except OSError:
        return out
    if len(data) < 24:
        return out
    magic = struct.unpack("<I", data[:4])[0]
    endian, scale = {0xa1b2c3d4: ("<", 1e-6), 0xd4c3b2a1: (">", 1e-6),
                     0xa1b23c4d: ("<", 1e-9), 0x4d3cb2a1: (">", 1e-9)}.get(magic, ("<", 1e-6))
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        out.append((sec + frac * scale, data[off:off + incl]))
        off += incl
    return out


def ipv4_of(frame):
    """(proto, src, dst, header+payload bytes) of an Ethernet/IPv4 frame, or None."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    return ip[9], socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20]), ip
