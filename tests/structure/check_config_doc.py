#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs/config.md against the config loader's key table, so that the
reference cannot drift from the code.

The table comes from conf_keys (tests/structure/conf_keys.c: one row a line,
section TAB key TAB required TAB default TAB description). In docs/config.md
a section is a heading "## [NAME]" or "## [NAME X]"; each of its keys is a list
item starting "- `KEY = ...`:", and the item runs to the next item or heading.
Checked: the same sections; per section the same keys in the same order; an
item starts with "required" exactly when the row is required; a row with a
default has "default VALUE" in its item (whitespace and line breaks counted
as one space).
Usage: check_config_doc.py CONF_KEYS_BINARY DOCS_CONFIG_MD. Prints each
mismatch as FILE:LINE: text and exits 1 if there is one."""

import re
import subprocess
import sys

SECTION = re.compile(r"^## \[([a-z-]+)(?: [A-Z]+)?\]\s*$")
HEADING = re.compile(r"^#{1,6} ")
ITEM = re.compile(r"^- `([a-z0-9-]+) = [^`]*`: ?(.*)$")


def table(binary):
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        section, key, required, default, _doc = line.split("\t")
        rows.append((section, key, required == "1", None if default == "-" else default))
    return rows


def documented(path):
    """{section: [(key, line number, text of the item)]}, sections with their line."""
    sections, where = {}, {}
    current, item = None, None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = SECTION.match(line)
            if m:
                current, item = m.group(1), None
                sections.setdefault(current, [])
                where[current] = no
                continue
            if HEADING.match(line):
                current, item = None, None
                continue
            if current is None:
                continue
            m = ITEM.match(line)
            if m:
                item = [m.group(1), no, m.group(2)]
                sections[current].append(item)
            elif item is not None and line.startswith("  ") and line.strip():
                item[2] += " " + line.strip()
            elif not line.strip() or line.startswith("- "):
                item = None
    return sections, where


def check(rows, path):
    sections, where = documented(path)
    bad = []
    kinds = []
    for section, _, _, _ in rows:
        if section not in kinds:
            kinds.append(section)
    for s in kinds:
        if s not in sections:
            bad.append(f"{path}:1: section [{s}] of the key table is not documented")
    for s in sections:
        if s not in kinds:
            bad.append(f"{path}:{where[s]}: section [{s}] is not in the key table")
    for s in kinds:
        if s not in sections:
            continue
        want = [r for r in rows if r[0] == s]
        have = {k: (no, text) for k, no, text in sections[s]}
        for _, key, required, default in want:
            if key not in have:
                bad.append(f"{path}:{where[s]}: [{s}] {key} (key table) is not documented")
                continue
            no, text = have[key]
            text = re.sub(r"\s+", " ", text)
            if required != text.startswith("required"):
                bad.append(f"{path}:{no}: [{s}] {key}: the key table says "
                           f"{'required' if required else 'optional'}, the text "
                           f"{'does not start with' if required else 'starts with'} 'required'")
            if default is not None and not re.search(
                    r"default " + re.escape(default) + r"(?![\w-])", text):
                bad.append(f"{path}:{no}: [{s}] {key}: no 'default {default}' (the key "
                           f"table's default)")
        for key, no, _ in sections[s]:
            if key not in [r[1] for r in want]:
                bad.append(f"{path}:{no}: [{s}] {key} is not in the key table")
        order_doc = [k for k, _, _ in sections[s] if k in [r[1] for r in want]]
        order_table = [r[1] for r in want if r[1] in have]
        if order_doc != order_table:
            bad.append(f"{path}:{where[s]}: [{s}] keys in another order than the key table's "
                       f"({', '.join(order_table)})")
        seen = set()
        for key, no, _ in sections[s]:
            if key in seen:
                bad.append(f"{path}:{no}: [{s}] {key} documented twice")
            seen.add(key)
    return bad


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = table(argv[1])
    if not rows:
        print(f"{argv[1]}: no rows", file=sys.stderr)
        return 1
    bad = check(rows, argv[2])
    for b in bad:
        print(b)
    if not bad:
        print(f"{argv[2]}: {len(rows)} keys of the key table, all documented")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
