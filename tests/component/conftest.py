# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of hipgw's component tests (pytest, run as root from the repo root:
``/usr/bin/python3 -m pytest -q tests/component``).

Environment:
  HIPGW_BIN=path       binary to test (default build/app/hipgw)
  HIPGW_ASAN=1         use build-asan/app/hipgw (the AddressSanitizer build)
  HIPGW_ASAN_OPTIONS   ASAN_OPTIONS for the runs (default detect_leaks=0:...)
  HIPGW_EAL_EXTRA      more EAL arguments
  HIPGW_KEEP=1         keep every run's directory (config, pcaps, stats, stderr)
"""

import os
import random
import sys
import zlib

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import gwlib  # noqa: E402


def pytest_report_header(config):
    b = gwlib.hipgw_binary()
    return "hipgw binary: %s (%s)" % (b, "present" if os.path.exists(b) else "MISSING")


@pytest.fixture
def rng(request):
    """A random generator seeded from the test id: reproducible traffic and keys."""
    return random.Random(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def gw(tmp_path):
    return gwlib.Gateway(tmp_path)
