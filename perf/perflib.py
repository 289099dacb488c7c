"""What the perf/ scripts share: their log lines, running commands, the DPDK
telemetry client, CPU figures from /proc, EAL arguments, running hipgw (and
other DPDK programs) with a log and a telemetry socket, and result files.
Nothing here prints figures; each script does.

Result files: a measuring run writes its whole JSON (every trial, sample and
command line) under RAW_DIR, perf/results/raw/ (not committed; .gitignore);
what perf/results/ keeps is the report (Markdown, PNG) and figures(), its
compact JSON of the figures, beside it.
"""

import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.path.join(REPO, "perf", "results")
RAW_DIR = os.path.join(RESULTS_DIR, "raw")
WORKER_THREAD = ("rte-worker", "lcore-worker")   # DPDK 22.11's lcore thread names; older/newer


def load_script(name):
    """perf/NAME, a script without .py (e.g. "esp-bench"), as a module: its
    harness (configs, frames, runs) for another script."""
    import importlib.machinery
    import importlib.util
    mod_name = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(
        mod_name, os.path.join(REPO, "perf", name))
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(mod_name, loader))
    loader.exec_module(mod)
    return mod


class RunError(Exception):
    """Something a benchmark needs could not be run (not a figure: those never fail)."""


def logger(tool):
    """log(msg) for one script: '[TOOL HH:MM:SS] msg' on stderr."""
    def log(msg):
        print(f"[{tool} {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
    return log


def run(cmd, check=True, **kw):
    """subprocess.run with text output captured; RunError on a non-zero exit when check."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if check and r.returncode != 0:
        raise RunError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()[-500:]}")
    return r


# ---------------------------------------------------------------- telemetry

def runtime_dir():
    """DPDK's runtime directory: /var/run/dpdk for root, else under XDG_RUNTIME_DIR."""
    if os.getuid() == 0:
        return "/var/run/dpdk"
    return os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")


def remove_runtime_dir(prefix):
    """Removes the runtime directory of one --file-prefix (what a process left)."""
    d = os.path.join(runtime_dir(), prefix)
    if os.path.isdir(d):
        shutil.rmtree(d, ignore_errors=True)


class Telemetry:
    """DPDK telemetry v2 client (what dpdk-telemetry.py does) on the socket
    RUNTIME/PREFIX/dpdk_telemetry.v2, kept open so that a sample costs one
    round trip. timeout: seconds a reply may take (a loaded machine is slow)."""

    def __init__(self, prefix, timeout=10.0):
        self.path = os.path.join(runtime_dir(), prefix, "dpdk_telemetry.v2")
        self.timeout = timeout
        self.sock = None

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(self.timeout)
        try:
            s.connect(self.path)
            info = json.loads(s.recv(1024).decode())
        except (OSError, ValueError):
            s.close()
            raise
        self.maxlen = int(info.get("max_output_len", 16384))
        self.sock = s

    def query(self, cmd="/hipgw/stats"):
        """The reply of one command (e.g. "/hipgw/stats", "/eal/heap_info,0"):
        its JSON value, None while the command is not registered; connects
        first if needed. OSError or ValueError when the socket fails."""
        if self.sock is None:
            self.connect()
        self.sock.send(cmd.encode())
        data = self.sock.recv(self.maxlen + 1024)
        return json.loads(data.decode())[cmd.split(",")[0]]

    def timed_query(self, cmd="/hipgw/stats"):
        """(time.monotonic() at the middle of the round trip, query(cmd))."""
        t0 = time.monotonic()
        reply = self.query(cmd)
        return (t0 + time.monotonic()) / 2, reply

    def poll(self, cmd="/hipgw/stats", attempts=2):
        """query(cmd), reconnecting after a failure up to `attempts` times in
        all; None when it failed every time (the process is not up, or gone)."""
        for _ in range(attempts):
            try:
                return self.query(cmd)
            except (OSError, ValueError, KeyError):
                self.close()
        return None

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None


# ---------------------------------------------------------------- /proc

def _stat_fields(path):
    """The fields of a /proc stat file after the command name; fields[0] is
    field 3 (state), so utime (14) is fields[11], stime fields[12], processor
    (39) fields[36]."""
    with open(path) as f:
        st = f.read()
    return st[st.rindex(")") + 2:].split()


def cpu_seconds(pid, tid=None):
    """CPU seconds (user + system) of a process (all its threads) or of one
    of its threads so far; None when it is gone."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    try:
        fields = _stat_fields(path)
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def threads(pid):
    """{tid: comm} of a process."""
    out = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    out[int(tid)] = f.read().strip()
            except OSError:
                pass
    except OSError:
        pass
    return out


def worker_tids(pid):
    """[(tid, comm)] of a DPDK process's worker lcore threads, by name."""
    return sorted(((tid, comm) for tid, comm in threads(pid).items()
                   if comm.startswith(WORKER_THREAD)), key=lambda t: t[1])


def thread_times(pid, name_prefix=WORKER_THREAD):
    """{tid: (cpu seconds, last cpu, comm)} of the threads whose name starts so."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    for tid, comm in threads(pid).items():
        if not comm.startswith(name_prefix):
            continue
        try:
            fields = _stat_fields(f"/proc/{pid}/task/{tid}/stat")
        except OSError:
            continue
        out[tid] = ((int(fields[11]) + int(fields[12])) / tick, int(fields[36]), comm)
    return out


def rss_kb(pid):
    """VmRSS of a process, kB; None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


# ---------------------------------------------------------------- EAL, processes

def eal_args(prefix, lcores, mb=None, no_huge=False, mem=None):
    """EAL arguments of one DPDK process: no PCI devices, the --lcores map,
    its own --file-prefix, and its memory: `mem` as given (e.g. from
    tests/system/topology.sh's eal_mem_args), else --in-memory (hugepages,
    no files) or --no-huge, with -m `mb` MB when given."""
    if mem is None:
        mem = ["--no-huge" if no_huge else "--in-memory"] + (["-m", str(mb)] if mb else [])
    return ["--no-pci", "--lcores", lcores, "--file-prefix", prefix] + list(mem)


class Proc:
    """A child process with its output in a log file. header: the command
    line as the log's first line; new_session: in a session of its own (a
    terminal's Ctrl-C then reaches only the script, which stops it in order)."""

    def __init__(self, cmd, logf, stdin=subprocess.DEVNULL, stdout=None, header=False,
                 new_session=False, **popen_kw):
        self.cmd, self.logf = cmd, logf
        self.log = open(logf, "w")
        if header:
            self.log.write(" ".join(cmd) + "\n")
            self.log.flush()
        self.proc = subprocess.Popen(cmd, stdin=stdin, stdout=stdout or self.log, stderr=self.log,
                                     start_new_session=new_session, text=True, **popen_kw)

    def alive(self):
        return self.proc.poll() is None

    def tail(self, n=15):
        """The last n lines of its log."""
        try:
            with open(self.logf) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def stop(self, timeout=20, sig=signal.SIGINT):
        """sig, then a kill after timeout s; closes the log; the exit code."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(sig)
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


class Hipgw:
    """One hipgw process: its config file (written from config_text when
    given), log and --stats-json file (WORK/TAG.ini, .log, .stats.json unless
    named), its EAL arguments (eal_args) and its telemetry client. wrap: a
    command to run it under (e.g. ip netns exec NS); name: how errors call it."""

    def __init__(self, binary, prefix, lcores, work, tag, config_text=None, *, config=None,
                 logf=None, stats=None, mb=512, no_huge=False, mem=None, wrap=(), name=None,
                 tel_timeout=10.0):
        self.binary, self.prefix, self.lcores, self.tag = binary, prefix, lcores, tag
        self.cfg = config or os.path.join(work, f"{tag}.ini")
        self.logf = logf or os.path.join(work, f"{tag}.log")
        self.stats = stats or os.path.join(work, f"{tag}.stats.json")
        self.mb, self.no_huge, self.mem, self.wrap = mb, no_huge, mem, list(wrap)
        self.name = name or f"hipgw ({tag})"
        if config_text is not None:
            with open(self.cfg, "w") as f:
                f.write(config_text)
        self.tel = Telemetry(prefix, tel_timeout)
        self.p = self.proc = None

    def command(self, extra=()):
        return (self.wrap + [self.binary] +
                eal_args(self.prefix, self.lcores, self.mb, self.no_huge, self.mem) +
                ["--", "--config", self.cfg, "--stats-json", self.stats] + list(extra))

    def start(self, extra=(), **proc_kw):
        """Starts it (extra: more hipgw options); Proc's options in proc_kw."""
        self.cmdline = self.command(extra)
        self.tel.close()
        self.p = Proc(self.cmdline, self.logf, **proc_kw)
        self.proc = self.p.proc

    @property
    def pid(self):
        return self.proc.pid

    def log_tail(self, n=15):
        return self.p.tail(n) if self.p else ""

    def wait_ready(self, timeout, cmd="/hipgw/stats", ready=lambda reply: True, what=" did not come up",
                   interval=0.1):
        """Until telemetry answers cmd with a reply for which ready() holds;
        returns the reply. RunError when hipgw exits or after timeout s."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RunError(f"{self.name} exited with {self.proc.returncode}:\n" + self.log_tail())
            reply = self.tel.poll(cmd, attempts=1)
            if reply is not None and ready(reply):
                return reply
            time.sleep(interval)
        raise RunError(f"{self.name}{what}:\n" + self.log_tail())

    def stop(self, timeout=20, sig=signal.SIGINT):
        """sig, a kill after timeout s; removes its runtime directory; the
        exit code (None when it never started)."""
        self.tel.close()
        if self.p is None:
            return None
        rc = self.p.stop(timeout, sig)
        remove_runtime_dir(self.prefix)
        return rc


# ---------------------------------------------------------------- result files

def git_describe(short=False):
    """The checkout's commit: `git describe --always --dirty`, or the short hash."""
    cmd = ["rev-parse", "--short", "HEAD"] if short else ["describe", "--always", "--dirty"]
    return subprocess.run(["git", "-C", REPO] + cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout.strip()


def machine():
    """{"cpu": model name, "ncpu", "kernel"} of this machine."""
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    return {"cpu": cpu, "ncpu": os.cpu_count(), "kernel": os.uname().release}


def loadavg():
    """The 1, 5 and 15 minute load averages, as /proc/loadavg writes them."""
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def stamp(when=None):
    """YYYYmmdd-HHMMSS of a datetime (now by default), for raw file names."""
    return (when or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S")


def write_json(path, doc, compact=False):
    """Writes doc as JSON (values JSON does not know as strings), making the
    directory: indented, or compact: a line per key of the top two levels
    and per element of a list of objects, the rest on that line."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        if compact:
            f.write(_compact(doc, 0))
        else:
            json.dump(doc, f, indent=1, default=str)
        f.write("\n")


def _compact(doc, depth):
    pad = " " * (depth + 1)
    if isinstance(doc, dict) and doc and depth < 2:
        return ("{\n" + ",\n".join(f"{pad}{json.dumps(k)}: {_compact(v, depth + 1)}"
                                    for k, v in doc.items()) + "\n" + pad[1:] + "}")
    if isinstance(doc, list) and any(isinstance(v, (dict, list)) for v in doc) and depth < 3:
        return "[\n" + ",\n".join(pad + _compact(v, 9) for v in doc) + "\n" + pad[1:] + "]"
    return json.dumps(doc, default=str)


def figures(doc, drop=(), keep=None):
    """A copy of doc without the keys in `drop` (at any depth), and a key of
    `keep` holding only the listed keys of its value: a run's figures
    without its raw detail."""
    keep = keep or {}
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k in drop:
                continue
            if k in keep and isinstance(v, dict):
                v = {kk: vv for kk, vv in v.items() if kk in keep[k]}
            out[k] = figures(v, drop, keep)
        return out
    if isinstance(doc, list):
        return [figures(v, drop, keep) for v in doc]
    return doc
