#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Line coverage of the HIP engine (lib/hip) by the corpus of fuzz_hip_engine,
# and the share of it past verification: the code that runs only once the
# HIP_MAC and signature checks passed (the commit steps of R1 / I2 / R2,
# UPDATE handling, CLOSE / CLOSE_ACK, NOTIFY in).
#
#   tests/fuzz/coverage.sh [INPUT_DIR...]   (default: corpus/ and regress/ of hip_engine)
#
# Builds the harness and lib/hip, lib/hipwire, lib/hipcrypto with clang's
# source-based coverage (-fprofile-instr-generate -fcoverage-mapping, no
# sanitizer) into build-fuzz-cov/, runs every input once, and prints
# llvm-cov's report for lib/hip, then per function past verification the
# lines run / lines (for the R1, I2, R2, UPDATE, CLOSE and CLOSE_ACK checks
# only the lines after their signature check), and the total.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."
REPO=$PWD
OUT=$REPO/build-fuzz-cov
mkdir -p "$OUT"
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(tests/fuzz/corpus/hip_engine tests/fuzz/regress/hip_engine)

srcs=(lib/hip/*.c lib/hipwire/hip_packet.c lib/hipwire/hip_param_bex.c lib/hipwire/hip_param_update.c lib/hipwire/hip_coverage.c
      $(ls lib/hipcrypto/*.c | grep -v hip_cli.c) tests/lib/hip_harness.c tests/fuzz/fuzz_hip_engine.c)
clang -O1 -g -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping \
	-DHIPGW_SOURCE_ROOT="\"$REPO\"" -Ilib/hip -Ilib/hipwire -Ilib/hipcrypto -Ilib/conf -Ilib/core -Itests/lib \
	"${srcs[@]}" -lcrypto -o "$OUT/fuzz_hip_engine"
rm -f "$OUT"/*.profraw
files=$(find "${inputs[@]}" -type f 2>/dev/null | sort)
[ -n "$files" ] || { echo "no inputs" >&2; exit 1; }
# shellcheck disable=SC2086  # a list of files
LLVM_PROFILE_FILE="$OUT/%p.profraw" "$OUT/fuzz_hip_engine" $files >"$OUT/run.log" 2>&1
llvm-profdata merge -sparse "$OUT"/*.profraw -o "$OUT/merged.profdata"
llvm-cov report "$OUT/fuzz_hip_engine" -instr-profile="$OUT/merged.profdata" lib/hip/*.c
llvm-cov export -format=text "$OUT/fuzz_hip_engine" -instr-profile="$OUT/merged.profdata" \
	lib/hip/*.c >"$OUT/export.json"
llvm-cov show "$OUT/fuzz_hip_engine" -instr-profile="$OUT/merged.profdata" -show-line-counts \
	lib/hip/*.c >"$OUT/show.txt"
/usr/bin/python3 - "$OUT/export.json" "$OUT/show.txt" <<'PY'
import json, re, sys
# functions past verification: name -> regex of the line after which they
# count (None: the whole function)
PAST = {
    "r1_verify": r"hip_cover_check_sig", "r1_in": r"rc = r1_verify\(", "r1_choices": None,
    "r1_keys": None, "r1_build_i2": None, "build_i2": None, "r1_commit": None,
    "i2_verify": r"hip_cover_check_sig", "i2_in": r"rc = i2_verify\(", "i2_syntax": None,
    "i2_commit": None, "i2_answer": None,
    "hip_bex_in_r2": r"hip_cover_check_sig", "hip_bex_sa_keys": None,
    "hip_assoc_established": None, "update_verify": r"hip_cover_check_sig",
    "update_process": None, "rekey_answered": None, "rekey_answer": None,
    "rekey_keys": None, "switch_sas": None, "rekey_done": None, "send_update": None,
    "close_verify": r"rc = check\(", "close_ack_verify": r"rc = check\(", "build_close": None,
    "close_answer": None, "hip_notify_in": r"hip_cover_check_sig",
}
d = json.load(open(sys.argv[1]))["data"][0]
# llvm-cov show: per file, "LINE|  COUNT|source" (COUNT blank: no code)
counts, cur = {}, None
for l in open(sys.argv[2]):
    m = re.match(r"^(/\S+\.c):$", l.strip())
    if m:
        cur = counts.setdefault(m.group(1), {})
        continue
    m = re.match(r"^\s*(\d+)\|\s*([0-9.kMG]*)\|(.*)$", l.rstrip("\n"))
    if m and cur is not None:
        cur[int(m.group(1))] = (m.group(2), m.group(3))
tot_run = tot_all = 0
print("\npast verification (lines run / lines with code):")
for fn in sorted(d["functions"], key=lambda f: f["name"]):
    name = fn["name"].split(":")[-1]
    if name not in PAST:
        continue
    c = counts.get(fn["filenames"][0], {})
    own = [r for r in fn["regions"] if r[5] == 0]   # FileID 0: the function's own file
    start = min(r[0] for r in own)
    end = max(r[2] for r in own)
    first = start
    if PAST[name]:
        for n in range(start, end + 1):
            if n in c and re.search(PAST[name], c[n][1]):
                first = n + 1
                break
    code = [c[n][0] for n in range(first, end + 1) if n in c and c[n][0] != ""]
    run = sum(1 for v in code if v != "0")
    print("  %-24s %4d / %4d  %5.1f%%" % (name, run, len(code), 100.0 * run / max(1, len(code))))
    tot_run += run
    tot_all += len(code)
print("  %-24s %4d / %4d  %5.1f%%" % ("total", tot_run, tot_all, 100.0 * tot_run / max(1, tot_all)))
PY
