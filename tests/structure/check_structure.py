#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tree's structure rules, checked on the sources:
- layers: a file in lib/X includes project headers only from lib/X or from a
  folder that lib/meson.build lists before X (no include circle between
  folders; the order there is the layering);
- sizes (with --sizes, as the unit suite runs it): no file under lib/ or app/ over MAX_FILE_LINES lines,
  no function there over MAX_FUNC_LINES lines (DPDK style: the name at the
  start of a line, the body from a "{" line to a "}" line in column 0).
Usage: check_structure.py SOURCE_ROOT [--sizes]. Prints each violation as
FILE:LINE: text and exits 1 if there is one."""

import os
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNC_LINES = 120

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
FUNC_NAME = re.compile(r'^([A-Za-z_]\w*)\s*\(')


def layers(root):
    """Folders of lib/ in their layer order (lib/meson.build's subdirs)."""
    with open(os.path.join(root, "lib", "meson.build")) as f:
        return re.findall(r"^subdir\('([^']+)'\)", f.read(), re.M)


def sources(root, top):
    for d, _, files in sorted(os.walk(os.path.join(root, top))):
        for n in sorted(files):
            if n.endswith((".c", ".h")):
                yield os.path.join(d, n)


def check_layers(root):
    order = layers(root)
    rank = {name: i for i, name in enumerate(order)}
    home = {}                       # header name -> folder of lib/
    for folder in order:
        for path in sources(root, os.path.join("lib", folder)):
            if path.endswith(".h"):
                home[os.path.basename(path)] = folder
    bad = []
    for folder in order:
        for path in sources(root, os.path.join("lib", folder)):
            with open(path) as f:
                for no, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m or m.group(1) not in home:
                        continue
                    to = home[m.group(1)]
                    if rank[to] > rank[folder]:
                        bad.append(f"{os.path.relpath(path, root)}:{no}: lib/{folder} includes "
                                   f"{m.group(1)} of lib/{to}, a layer above it")
    return bad


def functions(lines):
    """(name, first line number, length in lines) of each function definition."""
    name, first = None, 0
    for no, line in enumerate(lines, 1):
        m = FUNC_NAME.match(line)
        if m and not line.rstrip().endswith(";"):
            name, first = m.group(1), no
        elif line.startswith("}") and name is not None:
            yield name, first, no - first + 1
            name = None


def check_sizes(root):
    bad = []
    for top in ("lib", "app"):
        for path in sources(root, top):
            with open(path) as f:
                lines = f.read().split("\n")
            rel = os.path.relpath(path, root)
            if len(lines) - 1 > MAX_FILE_LINES:
                bad.append(f"{rel}:1: {len(lines) - 1} lines (at most {MAX_FILE_LINES})")
            if path.endswith(".c"):
                for name, first, n in functions(lines):
                    if n > MAX_FUNC_LINES:
                        bad.append(f"{rel}:{first}: {name}() is {n} lines "
                                   f"(at most {MAX_FUNC_LINES})")
    return bad


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    bad = check_layers(root)
    if "--sizes" in argv[2:]:
        bad += check_sizes(root)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
