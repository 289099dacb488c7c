# SPDX-License-Identifier: BSD-3-Clause
"""perf/bex-bench's load tool against the real hipgw: one initiator
(build/perf/hipgw-bex-load, lib/hip) completes Base Exchanges with hipgw over a
veth pair between two network namespaces (hgwb-t<pid>-gw / -ini, made and
removed here), each followed by one ESP packet that hipgw must decrypt; the
second exchange comes after the initiator forgot the first (a restarted peer),
so hipgw replaces the SAs. Behaviour only: no timing is asserted."""

import json
import os
import shutil
import signal
import subprocess
import time

import pytest

import gwlib

NS = f"hgwb-t{os.getpid()}"


def sh(*cmd, check=True):
    return subprocess.run(list(cmd), check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def tool_binary():
    return os.path.join(os.path.dirname(os.path.dirname(gwlib.hipgw_binary())), "perf",
                        "hipgw-bex-load")


@pytest.fixture
def netns():
    gw, ini = f"{NS}-gw", f"{NS}-ini"
    for ns in (gw, ini):
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
    try:
        sh("ip", "link", "add", "hgwbt0", "type", "veth", "peer", "name", "hgwbt1")
        sh("ip", "link", "set", "hgwbt0", "netns", gw, "name", "bwan-gw")
        sh("ip", "link", "set", "hgwbt1", "netns", ini, "name", "bwan-ini")
        for ns, dev in ((gw, "bwan-gw"), (ini, "bwan-ini")):
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1")
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "rx", "off", "tx", "off",
               "tso", "off", "gso", "off", "gro", "off", check=False)
        sh("ip", "-n", ini, "addr", "add", "192.0.2.2/24", "dev", "bwan-ini")
        yield gw, ini
    finally:
        for ns in (gw, ini):
            sh("ip", "netns", "del", ns, check=False)


def test_initiator_completes_bex_against_hipgw(netns, tmp_path):
    gw_ns, ini_ns = netns
    tool, hipgw = tool_binary(), gwlib.hipgw_binary()
    assert os.access(tool, os.X_OK), f"{tool} not built (meson option perf)"
    keys = tmp_path / "keys"
    out = sh(tool, "keygen", "--algo", "ecdsa-p256", "--count", "1", "--dir", str(keys)).stdout
    _, ini_hit = out.split()
    rkey = tmp_path / "responder.pem"
    sh(hipgw, "keygen", "--algo", "ecdsa-p256", "--out", str(rkey))
    r_hit = sh(hipgw, "hit", str(rkey)).stdout.split()[-1]
    cfg = tmp_path / "gw.ini"
    cfg.write_text("\n".join([
        "[gateway]", "workers = 1", f"hi = {rkey}", "puzzle-k = 4", "",
        "[port lan]", "device = net_null0,no-rx=1", "role = inner", "address = 10.2.0.1/24",
        "neighbors = 10.2.0.2 02:00:00:00:02:02", "",
        "[port wan]", "device = net_af_packet0,iface=bwan-gw", "role = outer",
        "address = 192.0.2.1/24", "",
        "[peer i000]", f"hit = {ini_hit}", "locator = 192.0.2.2", "prefixes = 10.128.0.0/24", ""]))
    stats = tmp_path / "stats.json"
    prefix = f"hgwbt{os.getpid()}"
    gw = subprocess.Popen(["ip", "netns", "exec", gw_ns, hipgw] + gwlib.eal_args(prefix) +
                          ["--", "--config", str(cfg), "--stats-json", str(stats)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=gwlib.child_env())
    try:
        time.sleep(2.0)   # EAL up, ports started
        assert gw.poll() is None, gw.stdout.read().decode(errors="replace")
        r = subprocess.run(["ip", "netns", "exec", ini_ns, tool, "bex", "--algo", "ecdsa-p256",
                            "--count", "1", "--dir", str(keys), "--responder", "192.0.2.1",
                            "--responder-hit", r_hit, "--local", "192.0.2.2", "--group", "7",
                            "--inner-net", "10.128.0.0", "--inner-dst", "10.2.0.2",
                            "--sequential", "2", "--pause-ms", "100"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        per_bex, summary = lines[:-1], lines[-1]
        assert [x["ok"] for x in per_bex] == [True, True]
        assert all(x["tbe_us"] > 0 and x["r1_to_i2_us"] > 0 for x in per_bex)
        assert summary["bex_ok"] == 2 and summary["bex_failed"] == 0
        assert summary["esp_sent"] == 2 and summary["esp_failed"] == 0
        time.sleep(0.5)   # the last ESP packet through the worker
    finally:
        if gw.poll() is None:
            gw.send_signal(signal.SIGINT)
        log = gw.communicate(timeout=30)[0].decode(errors="replace")
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    assert gw.returncode == 0, log
    st = json.loads(stats.read_text())
    hip = st["hip"]
    assert hip["bex_ok"] == 2 and hip["bex_failed"] == 0, log
    assert hip["i1_rx"] == 2 and hip["r1_tx"] == 2 and hip["i2_rx"] == 2 and hip["r2_tx"] == 2
    assert hip["peers"]["i000"]["bex_ok"] == 2
    assert all(v == 0 for k, v in hip["drops"].items()), hip["drops"]
    # the default R1 rate limit reached the engine; two I1s are far below it
    assert hip["r1_rate"] == 20000 and "r1_ratelimit" in hip["drops"], hip
    # the second exchange's SAs replaced the first's; its ESP packet was decrypted
    assert st["sa"]["i000-in"]["packets"] == 1, st["sa"]
    assert st["sa"]["i000-in"]["spi"] == hip["peers"]["i000"]["in_spi"]
    assert st["drops"]["no_sa"] == 0 and st["drops"]["auth"] == 0
