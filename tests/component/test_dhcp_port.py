# SPDX-License-Identifier: BSD-3-Clause
"""An outer port with `address = dhcp` (lib/ctrl/gw_dhcp_port.c) against a
real DHCP server: dnsmasq in one network namespace, hipgw (outer port
net_af_packet on a veth pair, inner port net_null) in another. Namespaces are
named hgw-dp-PID-... and removed afterwards.

- A good server: the port gets its first address from the lease (telemetry
  /hipgw/dhcp and /hipgw/stats show it) and answers ARP for it.
- A bad server (a router off the offered subnet): every offer is refused
  (reject_router, with the client's reason in the log), and the port keeps
  what it had: no address.
- A server that turns bad under a lease: the renewal's ACK at T1 (dnsmasq's
  shortest lease is 120 s, so this test takes about a minute) is refused, and
  the port keeps its address, still answering ARP for it.
- An address set by command on the port (/hipgw/set_address) is the
  operator's: the answer says DHCP stopped, /hipgw/dhcp reads "stopped", and
  the port has the commanded address, not the lease's."""

import os
import shutil
import subprocess
import time

import pytest

import gwlib

SERVER_IP = "192.0.2.1"
POOL = ("192.0.2.50", "192.0.2.99")
LEASE_S = 120               # dnsmasq's minimum lease time
GW_MAC = "02:00:00:00:d4:01"
WAIT_S = 30                 # bound on each wait for a condition (not a timing check)

# python3 -c ARP IFACE TARGET SENDER: one ARP request from IFACE; exit 0 when
# a reply for TARGET comes within 1 s, printing its sender MAC.
ARP = r"""
import socket, struct, sys, time, select
iface, target, sender = sys.argv[1:4]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0806))
s.bind((iface, 0))
me = s.getsockname()[4]
s.send(b"\xff" * 6 + me + b"\x08\x06" + struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + me +
       socket.inet_aton(sender) + b"\0" * 6 + socket.inet_aton(target))
end = time.monotonic() + 1.0
while time.monotonic() < end:
    if select.select([s], [], [], 0.1)[0]:
        f = s.recv(1500)
        if f[20:22] == b"\x00\x02" and f[28:32] == socket.inet_aton(target):
            print(f[22:28].hex(":"))
            sys.exit(0)
sys.exit(1)
"""


def until(what, cond, bound_s=WAIT_S):
    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError(what)


@pytest.fixture
def net(tmp_path):
    tag = "hgw-dp-%d" % (os.getpid() % 100000)
    srv, gw = tag + "-s", tag + "-g"
    with gwlib.namespaces(srv, gw):
        gwlib.veth(srv, "dpsrv", gw, "dpgw")
        gwlib.sh("ip", "-n", srv, "addr", "add", SERVER_IP + "/24", "dev", "dpsrv")
        yield srv, gw, tmp_path


def dnsmasq(srv, tmp, router):
    exe = shutil.which("dnsmasq") or "/usr/sbin/dnsmasq"
    assert os.path.exists(exe), "dnsmasq missing: ./dpdk-env.sh deps installs dnsmasq-base"
    log = open(tmp / "dnsmasq.log", "w")
    return subprocess.Popen(
        ["ip", "netns", "exec", srv, exe, "--keep-in-foreground", "--no-resolv", "--no-hosts",
         "--port=0", "--bind-interfaces", "--interface=dpsrv", "--except-interface=lo",
         "--dhcp-range=%s,%s,255.255.255.0,%ds" % (POOL + (LEASE_S,)),
         "--dhcp-option=option:router," + router, "--dhcp-authoritative",
         "--dhcp-leasefile=%s" % (tmp / "leases"), "--pid-file=%s" % (tmp / "dnsmasq.pid"),
         "--log-dhcp", "--log-facility=-"], stdout=log, stderr=subprocess.STDOUT)


def config(tmp):
    path = tmp / "gw.ini"
    path.write_text("\n".join([
        "[gateway]", "workers = 1", "idle = adaptive", "",
        "[port lan]", "device = net_null0,no-rx=1", "role = inner", "address = 10.1.0.1/24", "",
        "[port up-link]", "device = net_af_packet0,iface=dpgw", "role = outer",
        "address = dhcp", f"mac = {GW_MAC}", ""]))
    os.chmod(path, 0o600)
    return path


def in_pool(addr):
    last = [int(a.split(".")[3]) for a in POOL]
    return addr.startswith("192.0.2.") and last[0] <= int(addr.split(".")[3]) <= last[1]


def run(net, router, check):
    srv, gw_ns, tmp = net
    server = [dnsmasq(srv, tmp, router)]
    prefix = "hgwdp%d" % os.getpid()
    logf = tmp / "gw.log"
    gw = gwlib.start_gateway(gw_ns, prefix, config(tmp), tmp / "stats.json", logf)
    try:
        gwlib.wait_gateway_running(gw, logf)
        check(prefix, srv, tmp, logf, server)
    finally:
        gwlib.stop_gateway(gw, prefix)
        server[0].terminate()
        server[0].wait(timeout=10)
    return gwlib.check_gateway_log(gw, logf)


def dhcp(prefix):
    return gwlib.telemetry(prefix, "/hipgw/dhcp")["up_link"]   # gw_tel_name


def addresses(prefix):
    return gwlib.telemetry(prefix, "/hipgw/stats")["ports"]["up_link"]["addresses"]


def arp_reply(srv, addr):
    return subprocess.run(["ip", "netns", "exec", srv, "/usr/bin/python3", "-c", ARP, "dpsrv",
                           addr, SERVER_IP], capture_output=True, text=True).stdout.strip()


def bound(prefix, srv, tmp):
    """Waits for the first lease and checks it: its address."""
    assert addresses(prefix) == [] or dhcp(prefix)["state"] == "bound"
    d = until("no lease: %s" % (tmp / "dnsmasq.log").read_text(),
              lambda: (lambda x: x if x["state"] == "bound" else None)(dhcp(prefix)))
    addr = d["address"].split("/")[0]
    assert in_pool(addr) and d["address"].endswith("/24"), d
    assert d["router"] == SERVER_IP and d["lease_s"] == LEASE_S, d
    assert d["rx_ack"] == 1 and d["tx_discover"] >= 1 and d["lease_bound"] == 1, d
    assert d["reject_router"] == 0 and d["last_reject"] == "", d
    assert addresses(prefix) == [d["address"]]
    assert until("no ARP reply for the leased address", lambda: arp_reply(srv, addr)) == GW_MAC
    assert "DHCPACK(dpsrv) %s %s" % (addr, GW_MAC) in (tmp / "dnsmasq.log").read_text()
    return d["address"]


def test_lease_from_dnsmasq(net):
    def check(prefix, srv, tmp, logf, server):
        bound(prefix, srv, tmp)

    log = run(net, SERVER_IP, check)
    assert "port up-link: DHCP lease bound" in log, log


def test_router_off_subnet_refused(net):
    def check(prefix, srv, tmp, logf, server):
        d = until("no offer refused: %s" % (tmp / "dnsmasq.log").read_text(),
                  lambda: (lambda x: x if x["reject_router"] >= 1 else None)(dhcp(prefix)))
        assert d["state"] in ("selecting", "init"), d
        assert d["address"] == "" and d["lease_bound"] == 0, d
        assert d["last_reject"].startswith("reject_router"), d
        assert addresses(prefix) == [], "a refused offer gave the port an address"
        assert "DHCP reply refused, the port keeps its address: reject_router" in \
            logf.read_text()

    log = run(net, "198.51.100.1", check)
    assert "DHCP lease bound" not in log, log


def test_bad_renewal_keeps_address(net):
    def check(prefix, srv, tmp, logf, server):
        addr = bound(prefix, srv, tmp)
        server[0].terminate()
        server[0].wait(timeout=10)
        server[0] = dnsmasq(srv, tmp, "198.51.100.1")    # same lease file, router off-subnet
        d = until("the renewal was not refused: %s" % (tmp / "dnsmasq.log").read_text(),
                  lambda: (lambda x: x if x["reject_router"] >= 1 else None)(dhcp(prefix)),
                  bound_s=LEASE_S)
        assert d["address"] == addr and d["router"] == SERVER_IP, d
        assert d["lease_renewed"] == 0 and d["lease_changed"] == 0, d
        assert d["last_reject"].startswith("reject_router"), d
        assert addresses(prefix) == [addr], "a refused ACK changed the address"
        assert until("the kept address is not answered by ARP",
                     lambda: arp_reply(srv, addr.split("/")[0])) == GW_MAC
        assert "DHCP reply refused, the port keeps its address: reject_router" in \
            logf.read_text()

    log = run(net, SERVER_IP, check)
    assert "DHCP lease changed" not in log, log


def test_set_address_stops_dhcp(net):
    def check(prefix, srv, tmp, logf, server):
        leased = bound(prefix, srv, tmp)
        r = gwlib.telemetry(prefix, "/hipgw/set_address,up-link,192.0.2.200/24," + SERVER_IP)
        assert r is not None and r["result"] == "ok", r
        assert "DHCP stopped on up-link until restart" in r["message"], r
        d = dhcp(prefix)
        assert d["state"] == "stopped", d
        assert "192.0.2.200/24" in addresses(prefix), addresses(prefix)
        assert until("the commanded address is not answered by ARP",
                     lambda: arp_reply(srv, "192.0.2.200")) == GW_MAC
        assert leased != "192.0.2.200/24"
        assert "its DHCP client stops until a restart" in logf.read_text()

    run(net, SERVER_IP, check)
