# SPDX-License-Identifier: BSD-3-Clause
"""Two workers: hipgw with `workers = 2` on
net_pcap ports with two queues each (one rx_pcap / tx_pcap per queue, so each
worker reads its own file and writes its own file).

* one outbound SA that both workers encrypt for at the same time: no sequence
  number twice, and the union over both tx pcaps is exactly 1..n;
* one inbound SA whose packets arrive on both queues (interleaved sequence
  numbers split over the two rx pcaps): all delivered, no replay drop, and the
  per-worker counters show the handoff to the SA's owner worker;
* the same ESP packets on both queues (a genuine replay across queues): each
  is delivered once and every copy is counted as a replay;
* --slow-path (the control lcore looks up every frame's SA): the same
  traffic both ways comes out the same, with one and with two workers."""

import json
import os
import random
import shutil
import time
import zlib

import pytest

import gwlib

N_OUT = 400          # per queue 200
N_IN = 600           # within the 1024-packet window even if one queue runs far ahead
REPLAY_DUP = list(range(40, 80))


def lcores():
    """Main (control) lcore + 2 workers; on a 2-CPU machine two lcores share a CPU."""
    ncpu = os.cpu_count() or 1
    cpus = [0, 1 % ncpu, 2 % ncpu]
    return ",".join("%d@%d" % (i, c) for i, c in enumerate(cpus))


def write_config(d, sas):
    """gwlib's config with workers = 2 and two pcap queues per port."""
    path = gwlib.write_config(d, sas)
    with open(path) as f:
        text = f.read()
    text = text.replace("workers = 1", "workers = 2")
    for port, idx in (("lan", 0), ("wan", 1)):
        old = "device = net_pcap%d,rx_pcap=%s/%s_in.pcap,tx_pcap=%s/%s_out.pcap" % (
            idx, d, port, d, port)
        assert old in text
        new = "device = net_pcap%d,%s" % (idx, ",".join(
            # relative to hipgw's working directory d: the value must stay under 255 bytes
            "rx_pcap=%s_in%d.pcap,tx_pcap=%s_out%d.pcap" % (port, q, port, q)
            for q in (0, 1)))
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)
    return path


def run2(d, sas, lan_in=((), ()), wan_in=((), ()), extra=()):
    """Run hipgw with 2 workers; lan_in / wan_in: frames per queue. Returns
    (rc, stderr, stats, {port: [frames of queue 0, frames of queue 1]})."""
    os.makedirs(d, exist_ok=True)
    cfg = write_config(d, sas)
    for port, qs in (("lan", lan_in), ("wan", wan_in)):
        for q in (0, 1):
            gwlib.write_pcap(os.path.join(d, "%s_in%d.pcap" % (port, q)), list(qs[q]))
    prefix = "hgwwk%d_%d" % (os.getpid(), int(time.monotonic() * 1000) % 100000)
    eal = [a for a in gwlib.eal_args(prefix)]
    i = eal.index("-l")
    eal[i:i + 2] = ["--lcores", lcores()]
    stats_path = os.path.join(d, "stats.json")
    cmd = [gwlib.hipgw_binary()] + eal + ["--", "--config", cfg, "--stats-json", stats_path,
                                          "--idle-exit", str(gwlib.IDLE_EXIT_MS)] + list(extra)
    try:
        rc, out, err, to = gwlib.run_process(cmd, d)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    assert not to, "hipgw did not exit: " + err[-2000:]
    assert "AddressSanitizer" not in err and "runtime error:" not in err, err[-3000:]
    assert rc == 0, "hipgw exited with %s: %s" % (rc, err[-3000:])
    with open(stats_path) as f:
        stats = json.load(f)
    gwlib.check_stats_schema(stats)
    outs = {p: [gwlib.read_pcap(os.path.join(d, "%s_out%d.pcap" % (p, q))) or [] for q in (0, 1)]
            for p in ("lan", "wan")}
    return rc, err, stats, outs


class Drops:
    """What gwlib.check_drops reads."""
    def __init__(self, stats):
        self.drops = stats["drops"]


def worker_sum(stats, key):
    return sum(w[key] for w in stats["workers"])


@pytest.fixture
def gwdir(tmp_path):
    b = gwlib.hipgw_binary()
    if not os.path.exists(b):
        pytest.fail("hipgw binary %s does not exist" % b)
    return str(tmp_path)


def test_outbound_shared_sa_unique_seq(gwdir):
    rng = random.Random(zlib.crc32(b"workers-out"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16")
    sent = gwlib.mixed_traffic(rng, N_OUT, 1000, {4: "10.1.0.0/24", 6: "fd00:1::/64"},
                                {4: "10.2.0.0/16", 6: "fd00:2::/48"})
    frames = [gwlib.lan_frame(b) for b in sent]
    _, _, st, outs = run2(gwdir, [out, inn], lan_in=(frames[0::2], frames[1::2]))
    assert len(st["workers"]) == 2, st["workers"]
    per_q = [gwlib.data_frames(q) for q in outs["wan"]]
    assert all(per_q), "each worker should have sent ESP on its own queue: %s" % (
        [len(q) for q in per_q])
    dec = [gwlib.decrypt_outbound(out, q) for q in per_q]
    seqs = sorted(x.seq for q in dec for x in q)
    assert len(seqs) == len(set(seqs)), "sequence numbers used twice: %s" % (
        sorted({s for s in seqs if seqs.count(s) > 1})[:20])
    assert seqs == list(range(1, N_OUT + 1)), "union of seqs is not 1..%d: %s..." % (
        N_OUT, seqs[:20])
    problems = gwlib.match_forwarded(sent, [x.inner for q in dec for x in q], what="inner packet")
    assert not problems, "\n".join(problems[:10])
    gwlib.check_drops(Drops(st))


def _inbound_frames(rng, inn, n):
    inner = gwlib.mixed_traffic(rng, n, 1200, {4: "10.2.0.0/16", 6: "fd00:2::/48"},
                                 {4: gwlib.HOST4, 6: gwlib.HOST6})
    esp = [gwlib.esp_frame_scapy(inn, b, i + 1, iv=gwlib.scapy_iv(inn, rng))
           for i, b in enumerate(inner)]
    return inner, esp


def test_inbound_split_over_queues_no_false_replay(gwdir):
    rng = random.Random(zlib.crc32(b"workers-in"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16")
    inner, esp = _inbound_frames(rng, inn, N_IN)
    _, _, st, outs = run2(gwdir, [out, inn], wan_in=(esp[0::2], esp[1::2]))
    got = [gwlib.inner_bytes_of(f) for q in outs["lan"] for f in gwlib.data_frames(q)]
    assert st["drops"]["replay"] == 0, "false replay drops: %s" % st["drops"]
    gwlib.check_drops(Drops(st))
    problems = gwlib.match_forwarded(inner, got, what="inner packet")
    assert not problems, "\n".join(problems[:10])
    assert st["sa"][inn.name]["packets"] == N_IN
    # the SA has one owner: the other worker's share went through the handoff ring
    assert worker_sum(st, "handoff_out") > 0 and worker_sum(st, "handoff_in") > 0, st["workers"]
    assert worker_sum(st, "handoff_out") == worker_sum(st, "handoff_in"), st["workers"]
    assert worker_sum(st, "handoff_drops") == 0, st["workers"]
    assert min(w["rx"] for w in st["workers"]) >= N_IN // 2, st["workers"]
    # one worker delivered everything: the owner
    per_q = [len(gwlib.data_frames(q)) for q in outs["lan"]]
    assert sorted(per_q) == [0, N_IN], "inner frames per queue %s: the SA should have one owner" % (
        per_q)


def test_replay_across_queues_caught(gwdir):
    rng = random.Random(zlib.crc32(b"workers-replay"))
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16")
    inner, esp = _inbound_frames(rng, inn, 100)
    dup = [esp[i] for i in REPLAY_DUP]
    _, _, st, outs = run2(gwdir, [out, inn], wan_in=(esp, dup))
    got = [gwlib.inner_bytes_of(f) for q in outs["lan"] for f in gwlib.data_frames(q)]
    problems = gwlib.match_forwarded(inner, got, what="inner packet")
    assert not problems, "each packet once: " + "\n".join(problems[:10])
    gwlib.check_drops(Drops(st), replay=len(REPLAY_DUP))
    assert worker_sum(st, "handoff_in") > 0, st["workers"]


def _both_ways(rng, n_out, n_in):
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16")
    sent = gwlib.mixed_traffic(rng, n_out, 1000, {4: "10.1.0.0/24", 6: "fd00:1::/64"},
                               {4: "10.2.0.0/16", 6: "fd00:2::/48"})
    inner, esp = _inbound_frames(rng, inn, n_in)
    return out, inn, sent, [gwlib.lan_frame(b) for b in sent], inner, esp


def _check_both_ways(st, outs, out, inn, sent, inner):
    dec = [x for q in outs["wan"] for x in gwlib.decrypt_outbound(out, gwlib.data_frames(q))]
    assert sorted(x.seq for x in dec) == list(range(1, len(sent) + 1))
    problems = gwlib.match_forwarded(sent, [x.inner for x in dec], what="outbound packet")
    got = [gwlib.inner_bytes_of(f) for q in outs["lan"] for f in gwlib.data_frames(q)]
    problems += gwlib.match_forwarded(inner, got, what="inbound packet")
    assert not problems, "\n".join(problems[:10])
    gwlib.check_drops(Drops(st))
    # every frame went round the control lcore and came back
    assert worker_sum(st, "slow_sent") == worker_sum(st, "rx") == len(sent) + len(inner), \
        st["workers"]
    assert worker_sum(st, "slow_done") == worker_sum(st, "slow_sent"), st["workers"]


def test_slow_path_one_worker(gwdir):
    rng = random.Random(zlib.crc32(b"slow-1"))
    out, inn, sent, lan, inner, esp = _both_ways(rng, 150, 150)
    d = os.path.join(gwdir, "w1")
    os.makedirs(d)
    cfg = gwlib.write_config(d, [out, inn])
    r = gwlib.run_hipgw(d, cfg, lan, esp, extra_args=["--slow-path"])
    gwlib.check_clean_run(r)
    assert "--slow-path" in r.stderr, "no diagnostic warning: " + r.stderr[-500:]
    assert len(r.stats["workers"]) == 1
    _check_both_ways(r.stats, {"lan": [r.lan_out], "wan": [r.wan_out]}, out, inn, sent, inner)


def test_slow_path_two_workers(gwdir):
    rng = random.Random(zlib.crc32(b"slow-2"))
    out, inn, sent, lan, inner, esp = _both_ways(rng, 200, 200)
    _, _, st, outs = run2(gwdir, [out, inn], lan_in=(lan[0::2], lan[1::2]),
                          wan_in=(esp[0::2], esp[1::2]), extra=["--slow-path"])
    _check_both_ways(st, outs, out, inn, sent, inner)
    assert st["drops"]["replay"] == 0
    # the control lcore sends each in SA's frames to its owner: one worker delivers them all
    assert sorted(len(gwlib.data_frames(q)) for q in outs["lan"]) == [0, len(inner)]
