# SPDX-License-Identifier: BSD-3-Clause
"""lib/dhcp's client against a real DHCP server: dnsmasq (dnsmasq-base, a
dependency in dpdk-env.sh) in one network namespace, the client
(build/tests/dhcp_client_tool: lib/dhcp on an AF_PACKET socket) in another,
joined by a veth pair. The client gets a lease (DISCOVER, OFFER, REQUEST,
ACK), then renews it unicast to the server at T1 (dnsmasq's shortest lease
is 2 minutes, so T1 is 60 s: the renewal test takes about a minute).
Namespaces and links are named hgw-dh-PID-... and removed afterwards."""

import os
import re
import shutil
import subprocess

import pytest

import gwlib

SERVER_IP = "192.0.2.1"
POOL = ("192.0.2.50", "192.0.2.99")
LEASE_S = 120          # dnsmasq's minimum lease time


def tool_binary():
    if os.environ.get("DHCP_CLIENT_TOOL"):
        return os.path.abspath(os.environ["DHCP_CLIENT_TOOL"])
    build = os.path.dirname(os.path.dirname(gwlib.hipgw_binary()))
    return os.path.join(build, "tests", "dhcp_client_tool")


def sh(*args):
    subprocess.run(args, check=True, capture_output=True)


@pytest.fixture
def dhcp_net(tmp_path):
    """Two namespaces, a veth pair, dnsmasq serving 192.0.2.0/24 on the server side."""
    dnsmasq = shutil.which("dnsmasq") or "/usr/sbin/dnsmasq"
    assert os.path.exists(dnsmasq), "dnsmasq missing: ./dpdk-env.sh deps installs dnsmasq-base"
    tag = "hgw-dh-%d" % (os.getpid() % 100000)
    srv_ns, cli_ns = tag + "-s", tag + "-c"
    srv_if, cli_if = tag + "s", tag + "c"       # 15 bytes at most
    sh("ip", "netns", "add", srv_ns)
    sh("ip", "netns", "add", cli_ns)
    proc = None
    try:
        sh("ip", "link", "add", srv_if, "netns", srv_ns, "type", "veth", "peer", "name", cli_if,
           "netns", cli_ns)
        sh("ip", "-n", srv_ns, "addr", "add", SERVER_IP + "/24", "dev", srv_if)
        sh("ip", "-n", srv_ns, "link", "set", srv_if, "up")
        sh("ip", "-n", cli_ns, "link", "set", cli_if, "up")
        # the server's kernel must finish its UDP checksums: the client checks them
        # (on veth with offload they stay partial, as AF_PACKET sees them)
        for ns, dev in ((srv_ns, srv_if), (cli_ns, cli_if)):
            sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, "rx", "off", "tx", "off")
        log = open(tmp_path / "dnsmasq.log", "w")
        proc = subprocess.Popen(
            ["ip", "netns", "exec", srv_ns, dnsmasq, "--keep-in-foreground", "--no-resolv",
             "--no-hosts", "--port=0", "--bind-interfaces", "--interface=" + srv_if,
             "--except-interface=lo", "--dhcp-range=%s,%s,255.255.255.0,%ds" % (POOL + (LEASE_S,)),
             "--dhcp-option=option:router," + SERVER_IP, "--dhcp-authoritative",
             "--dhcp-leasefile=%s" % (tmp_path / "leases"), "--pid-file=%s" % (tmp_path / "pid"),
             "--log-dhcp", "--log-facility=-"],
            stdout=log, stderr=subprocess.STDOUT)
        yield cli_ns, cli_if, tmp_path
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", srv_ns], capture_output=True)
        subprocess.run(["ip", "netns", "del", cli_ns], capture_output=True)


def run_client(dhcp_net, events, timeout_s):
    cli_ns, cli_if, tmp = dhcp_net
    tool = tool_binary()
    assert os.path.exists(tool), "build the tool: ninja -C build tests/dhcp_client_tool"
    r = subprocess.run(["ip", "netns", "exec", cli_ns, tool, cli_if, str(events), str(timeout_s)],
                       capture_output=True, text=True, timeout=timeout_s + 30)
    log = (tmp / "dnsmasq.log").read_text()
    assert r.returncode == 0, "client: %s\n%s\ndnsmasq:\n%s" % (r.stdout, r.stderr, log)
    lines = r.stdout.splitlines()
    counters = dict(l.split() for l in r.stderr.splitlines() if len(l.split()) == 2)
    return lines, counters, log


def parse(line):
    kind, rest = line.split(" ", 1)
    return kind, dict(kv.split("=") for kv in rest.split())


def in_pool(addr):
    last = [int(a.split(".")[3]) for a in POOL]
    return addr.startswith("192.0.2.") and last[0] <= int(addr.split(".")[3]) <= last[1]


def test_lease_from_dnsmasq(dhcp_net):
    lines, counters, log = run_client(dhcp_net, 1, 30)
    kind, lease = parse([l for l in lines if not l.startswith("reject")][0])
    assert kind == "bound"
    assert in_pool(lease["addr"])
    assert lease["prefix"] == "24"
    assert lease["router"] == SERVER_IP and lease["server"] == SERVER_IP
    assert int(lease["lease"]) == LEASE_S
    assert int(lease["t1"]) < int(lease["t2"]) < LEASE_S
    assert int(counters["tx_discover"]) >= 1 and counters["rx_ack"] == "1"
    # dnsmasq's side of the same exchange
    assert re.search(r"DHCPACK\(\S+\) %s " % re.escape(lease["addr"]), log), log
    assert "hgw-dhcp-test" in log     # option 12 reached the server


def test_renewal_at_t1(dhcp_net):
    lines, counters, log = run_client(dhcp_net, 2, LEASE_S)
    events = [parse(l) for l in lines if not l.startswith("reject")]
    assert [k for k, _ in events[:2]] == ["bound", "renewed"], lines
    assert events[0][1]["addr"] == events[1][1]["addr"]
    assert counters["tx_request"] == "2", counters     # one REQUEST each, the renewal unicast
    assert len(re.findall(r"DHCPACK\(\S+\) %s " % re.escape(events[0][1]["addr"]), log)) == 2, log
