# SPDX-License-Identifier: BSD-3-Clause
"""hipgw --check-config FILE: exit 0 for a good config; for a
bad one exit 2 and print FILE:LINE: message. A normal start with a bad config
fails the same way."""

import os
import random
import re

import pytest

import gwlib


def good_config(d):
    rng = random.Random(7)
    out, inn = gwlib.make_sa_pair(rng, "aes128-gcm16", 4)
    out2, inn2 = gwlib.make_sa_pair(rng, "aes256-cbc-sha256", 6)
    out2.name, inn2.name = "ab6", "ba6"
    out2.spi, inn2.spi = 0x1001, 0x2001
    out2.prefixes = ("10.3.0.0/16", "fd00:3::/48")
    inn2.prefixes = ("10.3.0.0/16", "fd00:3::/48")
    path = gwlib.write_config(d, [out, inn, out2, inn2], bypass=[gwlib.BYPASS4])
    with open(path) as f:
        return path, f.read().split("\n")


def line_of(lines, prefix, nth=1):
    hits = [i + 1 for i, ln in enumerate(lines) if ln.startswith(prefix)]
    return hits[nth - 1]


def check_config(path):
    gw = gwlib.Gateway(os.path.dirname(path))
    gw.require()
    return gwlib.run_process([gwlib.hipgw_binary(), "--check-config", path],
                             os.path.dirname(path), timeout=30)


def test_good_config_passes(tmp_path):
    path, _ = good_config(str(tmp_path))
    rc, out, err, to = check_config(path)
    assert not to and rc == 0, "good config rejected: rc=%s\n%s%s" % (rc, out, err)
    assert "AddressSanitizer" not in err


def _edit(lines, kind, arg):
    """Apply one edit; return (new lines, acceptable error line numbers)."""
    lines = list(lines)
    if kind == "insert-after":        # (prefix of an existing line, new line)
        at = line_of(lines, arg[0])
        lines.insert(at, arg[1])
        return lines, {at + 1}
    if kind == "replace":             # (prefix, new line)
        at = line_of(lines, arg[0])
        lines[at - 1] = arg[1]
        return lines, {at}
    raise ValueError(kind)


def _section_of(lines, lineno):
    for i in range(lineno - 1, -1, -1):
        if lines[i].startswith("["):
            return i + 1
    return 0


BAD = [
    # (id, edit kind, argument, extra acceptable lines: "section" = also its header)
    ("no-equals", "insert-after", ("role = inner", "promiscuous"), None),
    ("unknown-key", "insert-after", ("role = inner", "colour = blue"), None),
    ("duplicate-key", "insert-after", ("role = inner", "role = outer"), None),
    ("duplicate-section", "insert-after", ("idle = adaptive", "[gateway]"), None),
    ("unknown-section", "insert-after", ("idle = adaptive", "[tunnel x]"), None),
    ("long-device", "replace", ("device = net_pcap0", "device = net_pcap0,rx_pcap=/tmp/" +
                                "d" * 300 + ".pcap"), None),
    ("long-state-path", "replace", ("state = ", "state = /tmp/" + "s" * 300), None),
    ("too-many-routes", "insert-after", ("role = inner", "routes = " + ", ".join(
        "10.1.%d.0/24 via 10.1.0.254" % i for i in range(1, 34))), None),
    ("long-line", "insert-after", ("idle = adaptive", "; " + "x" * 1100), None),
    ("long-name", "replace", ("[port lan]", "[port " + "l" * 40 + "]"), None),
    ("bad-suite", "replace", ("suite = aes128-gcm16", "suite = aes128-gcm8"), None),
    ("bad-role", "replace", ("role = inner", "role = middle"), None),
    ("bad-address", "replace", ("address = 10.1.0.1/24", "address = 10.1.0.300/24, fd00:1::1/64"),
     None),
    ("bad-prefix-len", "replace", ("address = 10.1.0.1/24", "address = 10.1.0.1/33, fd00:1::1/64"),
     None),
    ("bad-mac", "replace", ("neighbors = 10.1.0.2", "neighbors = 10.1.0.2 02:00:00:00:01"), None),
    ("spi-zero", "replace", ("spi = 0x1000", "spi = 0"), "section"),
    ("spi-reserved", "replace", ("spi = 0x1000", "spi = 200"), "section"),
    ("bad-spi", "replace", ("spi = 0x1000", "spi = 0x1g"), None),
    ("gcm-key-length", "replace", ("key = 0x", "key = 0x" + "ab" * 16), "section"),
    ("bad-hex-key", "replace", ("key = 0x", "key = 0x" + "zz" * 20), None),
    ("bad-direction", "replace", ("direction = out", "direction = sideways"), None),
    ("bad-esn", "insert-after", ("direction = out", "esn = maybe"), None),
    ("bad-workers", "replace", ("workers = 1", "workers = lots"), None),
    ("bad-mtu", "replace", ("mtu = 1500", "mtu = 70000"), None),
    ("bad-replay-window", "insert-after", ("direction = in", "replay-window = -5"), None),
]


@pytest.mark.parametrize("name,kind,arg,extra", BAD, ids=[b[0] for b in BAD])
def test_bad_config_names_file_and_line(tmp_path, name, kind, arg, extra):
    path, lines = good_config(str(tmp_path))
    new, ok_lines = _edit(lines, kind, arg)
    if extra == "section":
        ok_lines |= {_section_of(new, min(ok_lines))}
    with open(path, "w") as f:
        f.write("\n".join(new))
    rc, out, err, to = check_config(path)
    text = out + err
    assert not to and rc == 2, "rc=%s, expected 2; output:\n%s" % (rc, text)
    assert "AddressSanitizer" not in err
    m = re.search(re.escape(path) + r":(\d+): \S", text)
    assert m, "no '%s:LINE: message' in the output:\n%s" % (path, text)
    assert int(m.group(1)) in ok_lines, "error at line %s, expected line %s:\n%s" % (
        m.group(1), sorted(ok_lines), text)


CROSS = [
    # cross-section errors: any of these lines (or the section headers) is fine
    ("local-not-on-outer-port", "replace", ("local = 192.0.2.1", "local = 192.0.2.99")),
    ("local-remote-families-differ", "replace", ("remote = 198.51.100.1",
                                                 "remote = 2001:db8:5::1")),
    ("duplicate-spi", "replace", ("spi = 0x1001", "spi = 0x1000")),
    ("overlapping-out-prefixes", "replace", ("prefixes = 10.3.0.0/16",
                                             "prefixes = 10.2.5.0/24, fd00:3::/48")),
    # a bypass inside an out SA's prefix would send part of its traffic in clear
    ("bypass-inside-sa-prefix", "replace", ("bypass = ", "bypass = 10.2.7.0/24")),
]


@pytest.mark.parametrize("name,kind,arg", CROSS, ids=[c[0] for c in CROSS])
def test_bad_config_cross_section(tmp_path, name, kind, arg):
    path, lines = good_config(str(tmp_path))
    new, ok_lines = _edit(lines, kind, arg)
    at = min(ok_lines)
    ok = set(ok_lines) | {_section_of(new, at)}
    with open(path, "w") as f:
        f.write("\n".join(new))
    rc, out, err, to = check_config(path)
    text = out + err
    assert not to and rc == 2, "rc=%s, expected 2; output:\n%s" % (rc, text)
    m = re.search(re.escape(path) + r":(\d+): \S", text)
    assert m, "no '%s:LINE: message' in the output:\n%s" % (path, text)
    # the error may name either of the clashing lines: any line of an SA section
    got = int(m.group(1))
    assert got in ok or new[_section_of(new, got) - 1].startswith("[sa "), \
        "error at line %s, expected line %s or a line of an [sa] section:\n%s" % (
            got, sorted(ok), text)


def test_normal_start_with_bad_config_exits_2(tmp_path):
    path, lines = good_config(str(tmp_path))
    new, ok = _edit(lines, "insert-after", ("role = inner", "colour = blue"))
    with open(path, "w") as f:
        f.write("\n".join(new))
    gw = gwlib.Gateway(str(tmp_path))
    gw.require()
    r = gwlib.run_hipgw(str(tmp_path), path)
    assert not r.timed_out and r.rc == 2, r.describe()
    assert re.search(re.escape(path) + r":%d: \S" % min(ok), r.stdout + r.stderr), r.describe()


def test_fifo_config_refused_without_hanging(tmp_path):
    # a FIFO nobody writes to: open() would block for ever without O_NONBLOCK
    path = str(tmp_path / "fifo.ini")
    os.mkfifo(path)
    rc, out, err, to = check_config(path)
    assert not to, "hipgw --check-config hung on a FIFO"
    assert rc == 2 and re.search(re.escape(path) + r":0: not a regular file", out + err), \
        "rc=%s:\n%s%s" % (rc, out, err)


def test_peer_hit_equal_to_our_own_refused(tmp_path):
    gwlib.Gateway(str(tmp_path)).require()
    key, own_hit = gwlib.make_hi(str(tmp_path), "gw")
    path = str(tmp_path / "gw.ini")
    lines = ["[gateway]", "hi = " + key, "",
             "[port lan]", "device = net_null0", "role = inner", "address = 10.2.0.1/24", "",
             "[port wan]", "device = net_null1", "role = outer", "address = 192.0.2.1/24", "",
             "[peer b]", "hit = " + own_hit, "locator = 192.0.2.2",
             "prefixes = 10.128.0.0/24", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    rc, out, err, to = check_config(path)
    peer_line = lines.index("[peer b]") + 1
    assert not to and rc == 2, "peer with our own HIT accepted: rc=%s\n%s%s" % (rc, out, err)
    assert re.search(re.escape(path) + r":%d: \S" % peer_line, out + err), out + err


def test_l2_manual_sa_config_checks_and_starts(tmp_path):
    # a bridge of manually keyed SAs to one remote: --check-config takes it and
    # a start runs it (its traffic: test_l2.py)
    d = str(tmp_path)
    gwlib.Gateway(d).require()
    out, inn = gwlib.make_sa_pair(random.Random(11), "aes128-gcm16", 4)
    path = gwlib.write_config(d, [out, inn], lan_extra="mode = l2")
    with open(path, "a") as f:
        f.write("\n[bridge seg]\nport = lan\nsas = %s, %s\n" % (out.name, inn.name))
    rc, sout, serr, to = check_config(path)
    assert not to and rc == 0, "L2 config rejected: rc=%s\n%s%s" % (rc, sout, serr)
    r = gwlib.run_hipgw(d, path)
    gwlib.check_clean_run(r)
    assert "bridge seg: port lan, 1 remote(s)" in r.stderr + r.stdout, r.describe()
