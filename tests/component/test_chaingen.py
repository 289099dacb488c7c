# SPDX-License-Identifier: BSD-3-Clause
"""perf/chain's tools: chaingen (paced generator and sink) on a memif pair in
one process, and perf/chain's RFC 2544 binary search against a fake chain
whose loss threshold is known. Behaviour only, never a figure of this
machine: counts that add up, loss seen where frames cannot arrive, a search
that lands within its resolution of the threshold."""

import importlib.machinery
import importlib.util
import json
import os
import select
import shutil
import subprocess

import pytest

import gwlib

CHAIN = os.path.join(gwlib.REPO, "perf", "chain")


def chaingen_binary():
    sub = "build-asan" if gwlib.asan_mode() else "build"
    return os.path.join(gwlib.REPO, sub, "perf", "chaingen")


@pytest.fixture
def gen(tmp_path):
    """chaingen with port 0 (memif server) and port 1 (client) on one socket."""
    b = chaingen_binary()
    if not os.path.exists(b):
        pytest.skip(f"{b} not built")
    sock = tmp_path / "straight.sock"
    prefix = f"hgwcg{os.getpid()}"
    cmd = [b] + gwlib.eal_args(prefix) + [
        "--vdev", f"net_memif0,role=server,socket={sock},socket-abstract=no,mac=02:00:00:0f:00:01",
        "--vdev", f"net_memif1,role=client,socket={sock},socket-abstract=no,mac=02:00:00:0f:00:02",
        "--", "--idle", "adaptive"]
    err = open(tmp_path / "chaingen.err", "w")
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                         text=True, start_new_session=True, env=gwlib.child_env())

    def ask(line, timeout=60):
        p.stdin.write(line + "\n")
        p.stdin.flush()
        ready, _, _ = select.select([p.stdout], [], [], timeout)
        out = p.stdout.readline() if ready else ""
        assert out, f"no answer to {line!r}: " + open(tmp_path / "chaingen.err").read()[-2000:]
        return json.loads(out)

    try:
        assert ask("links 20") == {"links": [1, 1]}
        yield ask
    finally:
        try:
            p.stdin.write("quit\n")
            p.stdin.flush()
            rc = p.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            p.kill()
            rc = p.wait()
        err.close()
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    assert rc == 0, open(tmp_path / "chaingen.err").read()[-2000:]


def test_chaingen_paced_trial_counts_add_up(gen):
    gen("trial tx=0 rx=1 rate=10000 secs=0.2 size=64")        # warm-up
    r = gen("trial tx=0 rx=1 rate=20000 secs=0.5 size=128 drain=300")
    # a paced trial offers exactly rate x secs frames (late ones lengthen tx_secs)
    assert r["scheduled"] == 10000
    assert r["tx_secs"] >= 0.5
    assert r["offered"] == r["scheduled"] == r["sent"] + r["refused"]
    assert r["foreign"] == 0
    assert r["received"] <= r["offered"]
    assert r["received"] >= 0.99 * r["offered"]          # nothing in between to lose them
    assert r["loss"] == pytest.approx(1 - r["received"] / r["offered"], abs=1e-6)
    lat = r["lat_us"]
    assert 0 <= lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"]
    assert lat["p999"] <= lat["max"] + 0.01


def test_chaingen_reports_loss_where_frames_cannot_arrive(gen):
    # port 0 receives what port 1 sends, and port 1 sends nothing here
    r = gen("trial tx=0 rx=0 rate=20000 secs=0.2 size=64 drain=50")
    assert r["offered"] > 0
    assert r["received"] == 0
    assert r["loss"] == 1.0
    assert "lat_us" not in r


def test_chaingen_ignores_frames_of_other_trials(gen):
    # sink on port 1 while frames still in flight from an unpaced trial: the
    # next trial counts only its own tag
    gen("trial tx=0 rx=1 rate=0 secs=0.2 size=64 drain=0")
    r = gen("trial tx=0 rx=1 rate=5000 secs=0.2 size=64")
    assert r["received"] <= r["offered"]


@pytest.mark.parametrize("line", [
    "trial tx=0 rx=1 rate=1000 secs=1 size=61",        # below the stamp
    "trial tx=0 rx=1 rate=1000 secs=1 size=1515",
    "trial tx=0 rx=7 rate=1000 secs=1 size=64",        # no port 7
    "trial tx=0 rx=1 rate=-1 secs=1 size=64",
    "trial tx=0 rx=1 rate=1000 size=64",               # no secs
    "trial tx=0 rx=1 rate=1000 secs=1 size=64 dmac=zz",
    "trial tx=0 rx=1 rate=1000 secs=1 size=64 colour=red",
    "trial tx=0 rx=1 rate",
    "launch",
])
def test_chaingen_bad_commands_are_answered_with_an_error(gen, line):
    assert "error" in gen(line)
    assert gen("links 0") == {"links": [1, 1]}        # still serving


# ---------------------------------------------------------------- the search

def load_chain():
    loader = importlib.machinery.SourceFileLoader("perf_chain", CHAIN)
    spec = importlib.util.spec_from_loader("perf_chain", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class FakeChain:
    """Loses 1 % of frames above `threshold` frames/s; the generator offers
    `short` of the asked rate above `gen_max`."""

    def __init__(self, threshold, top=2e6, gen_max=None, short=0.9):
        self.threshold, self.top, self.gen_max, self.short = threshold, top, gen_max, short
        self.rates = []

    def trial(self, path, rate, secs, size):
        self.rates.append(rate)
        offered = self.top if rate == 0 else rate
        if self.gen_max and rate > self.gen_max:
            offered = rate * self.short
        n = int(offered * secs)
        loss = 0.01 if offered > self.threshold or rate == 0 else 0.0
        rcv = int(n * (1 - loss))
        return {"path": path, "rate": rate, "offered": n, "received": rcv, "refused": 0,
                "offered_pps": offered, "sent_pps": offered, "loss": 1 - rcv / n}


@pytest.mark.parametrize("threshold", [1.2e6, 0.37e6, 1.99e6])
def test_search_finds_the_no_loss_rate_within_the_resolution(threshold, capsys):
    chain = load_chain()
    args = chain.parse_args(["--trial-secs", "1"])
    fake = FakeChain(threshold)
    best, top, trials = chain.search(args, fake, 64)
    assert top == 2e6
    assert threshold - 2 * args.resolution * top <= best <= threshold
    assert any(not chain.passes(args, t) for t in trials if t["rate"])      # failures seen
    assert all(chain.passes(args, t) == (t["rate"] <= threshold) for t in trials if t["rate"])
    assert "FAIL (loss)" in capsys.readouterr().out


def test_search_returns_the_top_when_it_passes():
    chain = load_chain()
    args = chain.parse_args([])
    best, top, trials = chain.search(args, FakeChain(threshold=5e6), 64)
    assert best == top == 2e6
    assert [t["label"] for t in trials] == ["unpaced", "max"]


def test_search_counts_a_short_generator_as_failure():
    chain = load_chain()
    args = chain.parse_args([])
    best, _, trials = chain.search(args, FakeChain(threshold=5e6, gen_max=1e6), 64)
    assert best <= 1e6
    assert any(chain.verdict(args, t) == "FAIL (generator short)" for t in trials)


def test_search_goes_below_the_resolution_until_something_passes():
    chain = load_chain()
    args = chain.parse_args([])
    best, top, trials = chain.search(args, FakeChain(threshold=10000), 64)   # 0.5 % of the top
    assert 10000 - args.resolution * top <= best <= 10000
    assert best > 0


def test_search_reports_zero_when_nothing_passes():
    chain = load_chain()
    args = chain.parse_args([])
    best, _, trials = chain.search(args, FakeChain(threshold=1.0), 64)
    assert best == 0
    assert not any(chain.passes(args, t) for t in trials)
