# SPDX-License-Identifier: BSD-3-Clause
"""Telemetry requests while hipgw stops: DPDK's telemetry thread answers them
while the control lcore frees the tables and the HIP state, so each handler
must find them gone, not freed (a fresh tester's crash: SIGSEGV / use after
free in /hipgw/stats, /hipgw/sa_gen and the peers' part)."""

import os
import shutil
import signal
import socket
import subprocess
import threading
import time

import gwlib


def poll(path, stop, replies):
    """Ask /hipgw/stats, /hipgw/sa_gen, /hipgw/hip and /hipgw/hip_peer in a loop
    until stop is set or hipgw goes away."""
    cmds = [b"/hipgw/stats", b"/hipgw/sa_gen", b"/hipgw/hip", b"/hipgw/hip_peer,gwB"]
    s = None
    try:
        for _ in range(200):                      # the socket appears after EAL start
            if os.path.exists(path):
                break
            time.sleep(0.05)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(path)
        s.recv(4096)
        k = 0
        while not stop.is_set():
            s.send(cmds[k % len(cmds)])
            if not s.recv(1 << 16):
                break
            replies.append(k)
            k += 1
    except OSError:
        pass
    finally:
        if s is not None:
            s.close()


def test_stop_while_telemetry_polls(tmp_path):
    hipgw = gwlib.hipgw_binary()
    gwlib.Gateway(str(tmp_path)).require()
    key, _ = gwlib.make_hi(str(tmp_path), "gwA")
    _, peer_hit = gwlib.make_hi(str(tmp_path), "gwB")
    cfg = tmp_path / "gw.ini"
    cfg.write_text("\n".join([
        "[gateway]", "hi = " + key, "idle = adaptive", "",
        "[port lan]", "device = net_null0,no-rx=1", "role = inner", "address = 10.1.0.1/24", "",
        "[port wan]", "device = net_null1,no-rx=1", "role = outer", "address = 192.0.2.1/24", "",
        "[peer gwB]", "hit = " + peer_hit, "locator = 192.0.2.2",
        "prefixes = 10.2.0.0/24", "",
        "[sa-gen g]", "count = 1000", "direction = out", "suite = aes128-gcm16",
        "local = 192.0.2.1", "remote = 192.0.2.2", "prefixes = 16.0.0.0/12", ""]))
    os.chmod(cfg, 0o600)
    for attempt in range(3):
        prefix = "hgtel%d_%d" % (os.getpid(), attempt)
        stats = tmp_path / ("stats%d.json" % attempt)
        gw = subprocess.Popen([hipgw] + gwlib.eal_args(prefix) +
                              ["--", "--config", str(cfg), "--stats-json", str(stats)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=gwlib.child_env(), start_new_session=True)
        stop, replies = threading.Event(), []
        t = threading.Thread(target=poll, args=("/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix,
                                                stop, replies))
        t.start()
        try:
            deadline = time.time() + 30
            while len(replies) < 50 and time.time() < deadline and gw.poll() is None:
                time.sleep(0.05)
            assert gw.poll() is None, gw.communicate()[1].decode(errors="replace")[-3000:]
            assert len(replies) >= 50, "telemetry never answered"
            gw.send_signal(signal.SIGTERM)          # stop while the requests go on
            try:
                _, err = gw.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(gw.pid, signal.SIGKILL)
                _, err = gw.communicate()
                raise AssertionError("hipgw did not stop within 60 s of SIGTERM")
        finally:
            stop.set()
            t.join(10)
            if gw.poll() is None:
                os.killpg(gw.pid, signal.SIGKILL)
                gw.wait()
            shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
        err = err.decode(errors="replace")
        assert "AddressSanitizer" not in err, err[-4000:]
        assert gw.returncode == 0, "exit %s while telemetry polled:\n%s" % (gw.returncode,
                                                                           err[-3000:])
