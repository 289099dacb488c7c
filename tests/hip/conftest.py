# SPDX-License-Identifier: BSD-3-Clause
"""Independent Python checks of lib/hipcrypto (run from the repo root:
``/usr/bin/python3 -m pytest -q tests/hip``).

They compute everything with hipref.py (hashlib, hmac, python3-cryptography,
scapy for the capture) and compare with the C library through two binaries:
  HIPCRYPTO_TOOL=path   build/tests/hipcrypto_tool by default (tests/unit/hipcrypto_tool.c)
  HIPGW_BIN=path        build/app/hipgw by default (its keygen / hit commands)
A missing binary fails the tests that need it (build first: ninja -C build).
"""

import os
import random
import subprocess
import sys
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def _binary(env, default):
    path = os.environ.get(env) or os.path.join(REPO, default)
    if not os.path.exists(path):
        pytest.fail("%s does not exist (build it: ninja -C build, or set %s)" % (path, env))
    return path


@pytest.fixture
def tool():
    path = _binary("HIPCRYPTO_TOOL", "build/tests/hipcrypto_tool")

    def run(*args, ok=True):
        r = subprocess.run([path] + [str(a) for a in args], capture_output=True, text=True, timeout=120)
        if ok:
            assert r.returncode == 0, "hipcrypto_tool %s: rc %d: %s" % (args[0], r.returncode, r.stderr)
            return r.stdout
        return r
    return run


@pytest.fixture
def hipgw():
    return _binary("HIPGW_BIN", "build/app/hipgw")


@pytest.fixture
def rng(request):
    """A random generator seeded from the test id: reproducible inputs."""
    return random.Random(zlib.crc32(request.node.nodeid.encode()))


def pytest_report_header(config):
    return "hipcrypto_tool: %s; hipgw: %s" % (
        os.environ.get("HIPCRYPTO_TOOL") or os.path.join(REPO, "build/tests/hipcrypto_tool"),
        os.environ.get("HIPGW_BIN") or os.path.join(REPO, "build/app/hipgw"))
