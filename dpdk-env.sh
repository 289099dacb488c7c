#!/bin/bash
# hipgw environment: one entry point for a fresh Debian 12 machine, as root.
#
#   ./dpdk-env.sh demo        deps + hugepages + build, then the two-site demo,
#                             keyed by HIP, with a published HIP evaluation's
#                             scenarios A, B, C (docs/published-figures.json)
#   ./dpdk-env.sh demo manual the same demo with manually keyed SAs
#   ./dpdk-env.sh demo l2     L2 mode: a laptop's TAP VPN to a site (docs/l2.md),
#                             ping and a 1 MiB curl direct and through hipgw
#   ./dpdk-env.sh demo middlebox  hipgw as a HIP firewall between two gateways
#                             (docs/middlebox.md): iperf3 fast and --slow-path beside hipfw's
#   ./dpdk-env.sh demo mobility  locator events under iperf3 and pings (docs/mobility.md):
#                             outage, pings lost, throughput before/after, the target
#   ./dpdk-env.sh test        deps + hugepages + build, then unit, HIP, fuzz replay,
#                             component and system tests; last line "N passed, N failed"
#   ./dpdk-env.sh fuzz [SECONDS] [NAME...]
#                             build build-fuzz/ (clang, libFuzzer, ASan+UBSan) and fuzz
#                             each harness of tests/fuzz (or the NAMEs) SECONDS (600) long
#   ./dpdk-env.sh deps        install missing Debian packages (apt-get)
#   ./dpdk-env.sh hugepages   reserve 2 MiB hugepages, mount hugetlbfs
#   ./dpdk-env.sh build       meson/ninja: build/ (release) and build-asan/ (ASan)
#   ./dpdk-env.sh clean       remove build dirs and leftover namespaces / DPDK runtime dirs
#
# Idempotent: a second run installs, reserves and rebuilds nothing that is there.
# Knobs: HGW_HUGEPAGES (pages to reserve, default 1024), HGW_NO_HUGE=1 (skip
# hugepages, DPDK runs with --no-huge), HGW_BUILD / HGW_BUILD_ASAN / HGW_BUILD_FUZZ
# (build directories, default build, build-asan and build-fuzz), HGW_FUZZ_JOBS
# (harnesses fuzzed at once, default 2), HGW_FUZZ_LOG (per-run figures, default
# build-fuzz/fuzz-runs.log), HGW_TEST_JOBS (component test files run at once,
# pytest-xdist, default 2; 1 runs them one after another).
set -euo pipefail

cd "$(dirname "$(readlink -f "$0")")"
REPO=$PWD
PY=/usr/bin/python3
BUILD=${HGW_BUILD:-build}
BUILD_ASAN=${HGW_BUILD_ASAN:-build-asan}
BUILD_FUZZ=${HGW_BUILD_FUZZ:-build-fuzz}
FUZZ_LOG=${HGW_FUZZ_LOG:-$BUILD_FUZZ/fuzz-runs.log}
TEST_JOBS=${HGW_TEST_JOBS:-2}
NINJA_TARGETS=   # build_dir: set for one call only

# Debian packages the project needs (build, tests, demo).
PKGS=(
	build-essential pkg-config meson ninja-build
	dpdk dpdk-dev libdpdk-dev libipsec-mb-dev libssl-dev libpcap-dev libcmocka-dev
	python3 python3-scapy python3-cryptography python3-pytest python3-pytest-xdist
	python3-matplotlib python3-numpy
	tshark iperf3 iproute2 iputils-ping ethtool procps kmod util-linux pciutils
	arping curl nftables conntrack dnsmasq-base
	clang libclang-rt-14-dev
)
# Nice to have; a failure to install them is only a warning.
OPT_PKGS=(linux-perf)

say() { printf '[dpdk-env] %s\n' "$*"; }
warn() { printf '[dpdk-env] WARNING: %s\n' "$*" >&2; }
die() { printf '[dpdk-env] ERROR: %s\n' "$*" >&2; exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || die "run as root (namespaces, hugepages, apt-get)"; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" </dev/null
}

cmd_deps() {
	need_root
	local p missing=() opt_missing=()
	for p in "${PKGS[@]}"; do installed "$p" || missing+=("$p"); done
	for p in "${OPT_PKGS[@]}"; do installed "$p" || opt_missing+=("$p"); done
	if [ ${#missing[@]} -eq 0 ] && [ ${#opt_missing[@]} -eq 0 ]; then
		say "deps: all packages installed"
		return 0
	fi
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture: answer no, never prompt
	echo 'wireshark-common wireshark-common/install-setuid boolean false' |
		debconf-set-selections 2>/dev/null || true
	if [ ${#missing[@]} -gt 0 ]; then
		say "deps: installing ${missing[*]}"
		apt-get update -q </dev/null || warn "apt-get update failed"
		apt_install "${missing[@]}" || die "apt-get install failed"
	fi
	if [ ${#opt_missing[@]} -gt 0 ]; then
		if [ ${#missing[@]} -eq 0 ]; then apt-get update -q </dev/null >/dev/null 2>&1 || true; fi
		apt_install "${opt_missing[@]}" >/dev/null 2>&1 || warn "optional packages not installed: ${opt_missing[*]}"
	fi
}

# Sets HGW_NO_HUGE=1 (exported) when hugepages cannot be had.
cmd_hugepages() {
	need_root
	if [ "${HGW_NO_HUGE:-0}" = 1 ]; then
		warn "HGW_NO_HUGE=1: DPDK runs with --no-huge"
		export HGW_NO_HUGE=1
		return 0
	fi
	local want=${HGW_HUGEPAGES:-1024} nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	local cur free
	if [ ! -w "$nr" ] && [ ! -r "$nr" ]; then
		warn "no 2 MiB hugepage support here: DPDK will run with --no-huge"
		export HGW_NO_HUGE=1
		return 0
	fi
	cur=$(cat "$nr")
	if [ "$cur" -lt "$want" ]; then
		echo "$want" >"$nr" 2>/dev/null || true
		cur=$(cat "$nr")
	fi
	if ! grep -q '^[^ ]* [^ ]* hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null ||
			warn "could not mount hugetlbfs on /dev/hugepages"
	fi
	free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -lt 512 ] || ! grep -q '^[^ ]* [^ ]* hugetlbfs ' /proc/mounts; then
		warn "only ${free:-0} free 2 MiB hugepages (wanted $want) or no hugetlbfs: DPDK will run with --no-huge"
		export HGW_NO_HUGE=1
		return 0
	fi
	say "hugepages: $cur x 2 MiB reserved, $free free, hugetlbfs mounted"
}

# NINJA_TARGETS (environment): what to build; everything when unset.
build_dir() {
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		say "build: meson setup $dir${*:+ $*}"
		local log
		log=$(mktemp)
		if ! meson setup "$dir" "$@" >"$log" 2>&1; then
			cat "$log" >&2; rm -f "$log"; rm -rf "$dir"
			return 1
		fi
		rm -f "$log"
	fi
	say "build: ninja -C $dir${NINJA_TARGETS:+ $NINJA_TARGETS}"
	# shellcheck disable=SC2086  # a list of targets
	ninja -C "$dir" ${NINJA_TARGETS:-}
}

build_main() { build_dir "$BUILD"; }
build_asan() { build_dir "$BUILD_ASAN" -Db_sanitize=address -Db_lundef=false -Dbuildtype=debugoptimized; }

# libFuzzer harnesses (tests/fuzz/README.md): clang, only lib/ and tests/fuzz
# configured, and only the libraries the harnesses link built.
build_fuzz() {
	CC=clang NINJA_TARGETS=fuzzers build_dir "$BUILD_FUZZ" -Dfuzz=true -Dbuildtype=debugoptimized \
		-Db_lundef=false -Dperf_tools=false
}

cmd_build() {
	build_main
	build_asan
}

cmd_demo() {   # [manual|l2|middlebox|mobility]
	local mode=${1:-hip} script=demo.sh
	case $mode in
		hip | manual) ;;
		l2) script=demo_l2.sh ;;
		middlebox) script=demo_mbox.sh ;;
		mobility) script=demo_mob.sh ;;
		*) die "demo: unknown variant '$mode' (./dpdk-env.sh demo [manual|l2|middlebox|mobility])" ;;
	esac
	need_root
	cmd_deps
	cmd_hugepages
	build_main || die "build failed"
	HIPGW="$REPO/$BUILD/app/hipgw" exec "$REPO/tests/system/$script" "$mode"
}

# ---------------------------------------------------------------- fuzz

FUZZ_DIR=tests/fuzz
FUZZ_TIMEOUT=10      # s: one input slower than this is a finding (timeout-*)
FUZZ_RSS_MB=2048     # MiB: a harness above this is a finding (oom-*)
FUZZ_MIN_SECS=60     # s spent minimising each finding

# Harness names: the arguments (checked), or every tests/fuzz/fuzz_NAME.c.
fuzz_names() {
	local n f
	if [ $# -gt 0 ]; then
		for n in "$@"; do
			[ -f "$FUZZ_DIR/fuzz_$n.c" ] || die "fuzz: no harness $FUZZ_DIR/fuzz_$n.c"
			echo "$n"
		done
		return
	fi
	for f in "$FUZZ_DIR"/fuzz_*.c; do
		[ -e "$f" ] || continue
		n=${f##*/fuzz_}
		echo "${n%.c}"
	done
}

fuzz_exe() { echo "$REPO/$BUILD_FUZZ/$FUZZ_DIR/fuzz_$1"; }

fuzz_dict_arg() {   # NAME -> "-dict=FILE" or nothing
	if [ -f "$REPO/$FUZZ_DIR/dict/$1.dict" ]; then echo "-dict=$REPO/$FUZZ_DIR/dict/$1.dict"; fi
}

# Crash, leak, timeout and out-of-memory artifacts of libFuzzer in DIR.
fuzz_findings() { find "$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort; }

# Fuzz one harness SECS seconds in WORK/NAME; leaves WORK/NAME/result:
# "seconds execs exec/s cov ft corpus-files corpus-bytes findings".
fuzz_one() {   # NAME SECS WORK
	local n=$1 secs=$2 w=$3/$1 exe corpus dict t0 elapsed execs rate cov ft a min kind
	exe=$(fuzz_exe "$n")
	corpus=$REPO/$FUZZ_DIR/corpus/$n
	dict=$(fuzz_dict_arg "$n")
	mkdir -p "$w/new" "$w/merged" "$w/art" "$w/junk" "$corpus"
	t0=$SECONDS
	# new inputs go to $w/new; the committed corpus is only read
	(cd "$w" && "$exe" ${dict:+"$dict"} -max_total_time="$secs" -timeout=$FUZZ_TIMEOUT \
		-rss_limit_mb=$FUZZ_RSS_MB -print_final_stats=1 -artifact_prefix="$w/art/" \
		"$w/new" "$corpus" >"$w/fuzz.log" 2>&1) || true
	elapsed=$((SECONDS - t0))
	execs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$w/fuzz.log" | tail -n 1)
	rate=$(awk '/^stat::average_exec_per_sec:/ {print $2}' "$w/fuzz.log" | tail -n 1)
	cov=$(grep -oE 'cov: [0-9]+' "$w/fuzz.log" | tail -n 1 | awk '{print $2}')
	ft=$(grep -oE 'ft: [0-9]+' "$w/fuzz.log" | tail -n 1 | awk '{print $2}')
	# corpus minimisation: the smallest set with the same coverage replaces it
	if (cd "$w" && "$exe" -merge=1 -timeout=$FUZZ_TIMEOUT -rss_limit_mb=$FUZZ_RSS_MB \
		-artifact_prefix="$w/junk/" "$w/merged" "$corpus" "$w/new" >"$w/merge.log" 2>&1) &&
		[ -n "$(ls -A "$w/merged")" ]; then
		find "$corpus" -maxdepth 1 -type f -delete
		cp "$w/merged"/* "$corpus"/
	else
		warn "fuzz $n: corpus merge failed (see $w/merge.log); corpus left as it was"
	fi
	# each finding, minimised, becomes a regression input
	for a in $(fuzz_findings "$w/art"); do
		kind=${a##*/}; kind=${kind%%-*}
		min=$w/min-${a##*/}
		(cd "$w" && "$exe" -minimize_crash=1 -max_total_time=$FUZZ_MIN_SECS -timeout=$FUZZ_TIMEOUT \
			-rss_limit_mb=$FUZZ_RSS_MB -exact_artifact_path="$min" -artifact_prefix="$w/junk/" \
			"$a" >"$w/minimize-${a##*/}.log" 2>&1) || true
		[ -s "$min" ] || cp "$a" "$min"
		mkdir -p "$REPO/$FUZZ_DIR/regress/$n"
		cp "$min" "$REPO/$FUZZ_DIR/regress/$n/$kind-$(sha1sum <"$min" | cut -c1-40)"
	done
	echo "$elapsed ${execs:-0} ${rate:-0} ${cov:-0} ${ft:-0}" \
		"$(find "$corpus" -maxdepth 1 -type f | wc -l)" \
		"$(find "$corpus" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')" \
		"$(fuzz_findings "$w/art" | wc -l)" >"$w/result"
}

cmd_fuzz() {   # [SECONDS] [NAME...]
	local secs=600 jobs=${HGW_FUZZ_JOBS:-2} work n running=0 findings=0 commit r
	local names=()
	if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then secs=$1; shift; fi
	need_root
	cmd_deps
	build_fuzz || die "fuzz build failed"
	# the code fuzzed (not the corpora, which the run rewrites): commit, +dirty if changed
	commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo none)
	if [ -n "$(git -C "$REPO" status --porcelain -- lib "$FUZZ_DIR/*.[ch]" "$FUZZ_DIR/meson.build" 2>/dev/null)" ]; then
		commit+=+dirty
	fi
	mapfile -t names < <(fuzz_names "$@")
	[ ${#names[@]} -gt 0 ] || die "fuzz: no harness in $FUZZ_DIR"
	work=$(mktemp -d /tmp/hgw-fuzz.XXXXXX)
	say "fuzz: ${names[*]}, $secs s each, $jobs at a time; work dir $work"
	for n in "${names[@]}"; do
		if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
		fuzz_one "$n" "$secs" "$work" &
		running=$((running + 1))
	done
	wait || true
	mkdir -p "$(dirname "$FUZZ_LOG")"
	printf '%-14s %7s %10s %8s %6s %7s %8s %8s\n' harness seconds execs exec/s cov ft corpus findings
	for n in "${names[@]}"; do
		[ -f "$work/$n/result" ] || { warn "fuzz $n: no result (see $work/$n)"; findings=$((findings + 1)); continue; }
		read -r -a r <"$work/$n/result"
		printf '%-14s %7s %10s %8s %6s %7s %8s %8s\n' "$n" "${r[0]}" "${r[1]}" "${r[2]}" "${r[3]}" "${r[4]}" \
			"${r[5]}" "${r[7]}"
		printf '%s commit=%s harness=%s seconds=%s execs=%s exec_per_s=%s cov=%s ft=%s corpus=%s corpus_bytes=%s findings=%s\n' \
			"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" "$n" "${r[0]}" "${r[1]}" "${r[2]}" "${r[3]}" \
			"${r[4]}" "${r[5]}" "${r[6]}" "${r[7]}" >>"$FUZZ_LOG"
		findings=$((findings + r[7]))
	done
	say "fuzz: figures appended to $FUZZ_LOG; fuzzing time so far per harness:"
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	       t[f["harness"]] += f["seconds"]; runs[f["harness"]]++ }
	     END { for (h in t) printf "  %-14s %8d s in %d runs\n", h, t[h], runs[h] }' "$FUZZ_LOG" | sort
	if [ "$findings" -gt 0 ]; then
		warn "fuzz: $findings finding(s), minimised into $FUZZ_DIR/regress/NAME/ (logs in $work)"
		return 1
	fi
	rm -rf "$work"
	say "fuzz: no findings; corpora minimised in $FUZZ_DIR/corpus/ (commit them)"
}

# Test stage: every corpus and regression input through its harness once, no
# new fuzzing. One pass per harness whose replay is clean, one failure per
# harness that crashes, leaks or times out.
run_fuzz() {
	local n exe p=0 f=0 log inputs art
	if ! build_fuzz; then
		stage_result fuzz 0 1
		return
	fi
	art=$(mktemp -d /tmp/hgw-replay.XXXXXX)
	say "fuzz replay: $FUZZ_DIR/corpus/NAME and $FUZZ_DIR/regress/NAME through $BUILD_FUZZ/$FUZZ_DIR/fuzz_NAME"
	for n in $(fuzz_names); do
		exe=$(fuzz_exe "$n")
		log=$REPO/$BUILD_FUZZ/replay-$n.log
		mapfile -t inputs < <(find "$REPO/$FUZZ_DIR/corpus/$n" "$REPO/$FUZZ_DIR/regress/$n" -maxdepth 1 \
			-type f 2>/dev/null | sort)
		if [ ${#inputs[@]} -eq 0 ]; then
			: >"$REPO/$BUILD_FUZZ/empty-input"
			inputs=("$REPO/$BUILD_FUZZ/empty-input")
		fi
		# file arguments: each is run once, nothing is written (artifacts to a temp dir)
		if (cd "$REPO/$BUILD_FUZZ" && timeout 300 "$exe" -timeout=$FUZZ_TIMEOUT -rss_limit_mb=$FUZZ_RSS_MB \
			-artifact_prefix="$art/" "${inputs[@]}" >"$log" 2>&1); then
			say "  fuzz_$n: ${#inputs[@]} inputs clean"
			p=$((p + 1))
		else
			warn "  fuzz_$n: replay failed (log $log):"
			grep -E '^(==[0-9]+==ERROR|SUMMARY|Running:)|runtime error' "$log" | tail -n 5 >&2 || true
			f=$((f + 1))
		fi
	done
	rm -rf "$art"
	stage_result fuzz "$p" "$f"
}

# ---------------------------------------------------------------- test

TOTAL_PASS=0
TOTAL_FAIL=0
STAGES=()

STAGE_T0=$SECONDS
stage_result() {   # NAME PASSED FAILED: and the seconds since the last stage ended
	TOTAL_PASS=$((TOTAL_PASS + $2))
	TOTAL_FAIL=$((TOTAL_FAIL + $3))
	STAGES+=("$(printf '%-16s %4d passed, %4d failed  %4d s' "$1" "$2" "$3" $((SECONDS - STAGE_T0)))")
	STAGE_T0=$SECONDS
}

# last "N passed, N failed"-ish figures of a log: pytest's and ours
count_from_log() {  # LOG -> "passed failed"
	local line p f
	line=$(grep -E '[0-9]+ (passed|failed)' "$1" | tail -n 1 || true)
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | awk '{print $1}' | tail -n 1)
	f=$(grep -oE '[0-9]+ (failed|error|errors)' <<<"$line" | awk '{s += $1} END {print s + 0}')
	echo "${p:-0} ${f:-0}"
}

run_unit() {
	local log=$BUILD/unit-tests.log rc=0 ok fail
	say "unit tests: meson test -C $BUILD --suite unit"
	timeout 600 meson test -C "$BUILD" --suite unit --print-errorlogs 2>&1 | tee "$log" || rc=$?
	ok=$(awk '/^Ok:/ {print $2}' "$log" | tail -n 1)
	fail=$(awk '/^(Fail|Unexpected Pass|Timeout):/ {s += $2} END {print s + 0}' "$log")
	if ! grep -q '^Ok:' "$log"; then
		if grep -q 'No suitable tests defined' "$log"; then
			warn "no unit tests defined"
			ok=0 fail=0
		else
			ok=0 fail=1
		fi
	elif [ "$rc" -ne 0 ] && [ "${fail:-0}" -eq 0 ]; then
		fail=1
	fi
	stage_result unit "${ok:-0}" "${fail:-0}"
}

run_component() {
	local log=$BUILD/component-tests.log rc=0 p f
	if ! compgen -G "tests/component/test_*.py" >/dev/null && ! compgen -G "tests/component/*_test.py" >/dev/null; then
		say "component tests: none in tests/component yet"
		stage_result component 0 0
		return
	fi
	# most of their time the tests wait for hipgw runs (start, idle exit, ARP,
	# timeouts), so files run TEST_JOBS at once (pytest-xdist, one file per
	# process: a file's tests keep their order and fixtures); every namespace,
	# DPDK file prefix and temporary file of a test is its own
	local jobs=()
	if [ "$TEST_JOBS" -gt 1 ] && "$PY" -c 'import xdist' 2>/dev/null; then
		jobs=(-n "$TEST_JOBS" --dist loadfile)
	fi
	say "component tests: pytest tests/component (ASan build: $BUILD_ASAN/app/hipgw${jobs:+; ${TEST_JOBS} files at once})"
	# tests/component/gwlib.py: HIPGW_ASAN=1 picks build-asan/app/hipgw, HIPGW_BIN wins
	HIPGW_ASAN=1 HIPGW_BIN="${HIPGW_BIN:-$REPO/$BUILD_ASAN/app/hipgw}" timeout 900 "$PY" -m pytest -q -p no:cacheprovider "${jobs[@]}" tests/component 2>&1 | tee "$log" || rc=$?
	read -r p f <<<"$(count_from_log "$log")"
	if [ "$rc" -eq 5 ]; then
		stage_result component 0 0
		return
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	stage_result component "$p" "$f"
}

run_hip() {
	local log=$BUILD/hip-tests.log rc=0 p f
	say "HIP tests: pytest tests/hip (independent Python checks of lib/hip*)"
	HIPCRYPTO_TOOL="$REPO/$BUILD/tests/hipcrypto_tool" HIPGW_BIN="$REPO/$BUILD/app/hipgw" \
		timeout 600 "$PY" -m pytest -q -p no:cacheprovider tests/hip 2>&1 | tee "$log" || rc=$?
	read -r p f <<<"$(count_from_log "$log")"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	stage_result hip "$p" "$f"
}

run_system() {   # STAGE SCRIPT TIMEOUT_S: one tests/system script, its log $BUILD/STAGE-tests.log
	local log=$BUILD/$1-tests.log rc=0 p f
	say "system test: tests/system/$2"
	HIPGW="$REPO/$BUILD/app/hipgw" timeout "$3" "$REPO/tests/system/$2" 2>&1 | tee "$log" || rc=$?
	read -r p f <<<"$(count_from_log "$log")"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	stage_result "$1" "$p" "$f"
}

cmd_test() {
	need_root
	local start=$SECONDS
	cmd_deps
	cmd_hugepages
	if ! build_main; then
		stage_result build 0 1
	else
		say "set-up (deps, hugepages, build): $((SECONDS - start)) s"
		STAGE_T0=$SECONDS
		run_unit
		run_hip
		run_fuzz
		if build_asan; then
			run_component
		else
			stage_result build-asan 0 1
		fi
		run_system system test_system.sh 300
		run_system system-l2 test_l2.sh 180
		run_system system-mbox test_mbox.sh 180
		run_system system-mobility test_mobility.sh 180
		run_system system-nat test_nat.sh 120
		run_system system-multihome test_multihome.sh 150
	fi
	echo
	say "results ($((SECONDS - start)) s):"
	local s
	for s in "${STAGES[@]}"; do say "  $s"; done
	echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
	[ "$TOTAL_FAIL" -eq 0 ]
}

cmd_clean() {
	local ns
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^hgw(t|b|l)?-' || true); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf /var/run/dpdk/hgw-* /var/run/dpdk/hgwt-* /var/run/dpdk/hgwb* 2>/dev/null || true
	rm -rf "$BUILD" "$BUILD_ASAN" "$BUILD_FUZZ"
	say "clean: build dirs and leftover namespaces removed"
}

usage() {
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

case "${1:-}" in
	deps) cmd_deps ;;
	hugepages) cmd_hugepages ;;
	build) cmd_build ;;
	demo) cmd_demo "${2:-}" ;;
	test) cmd_test ;;
	fuzz) shift; cmd_fuzz "$@" ;;
	clean) cmd_clean ;;
	-h | --help | help) usage ;;
	*) usage >&2; exit 2 ;;
esac
