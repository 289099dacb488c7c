#!/bin/bash
# hipgw environment: one entry point for a fresh Debian 12 machine, as root.
#
#   ./dpdk-env.sh demo        deps + hugepages + build, then the two-site demo,
#                             keyed by HIP, with the seed paper's scenarios A, B, C
#   ./dpdk-env.sh demo manual the same demo with manually keyed SAs
#   ./dpdk-env.sh test        deps + hugepages + build, then unit, component and
#                             system tests; last line "N passed, N failed"
#   ./dpdk-env.sh deps        install missing Debian packages (apt-get)
#   ./dpdk-env.sh hugepages   reserve 2 MiB hugepages, mount hugetlbfs
#   ./dpdk-env.sh build       meson/ninja: build/ (release) and build-asan/ (ASan)
#   ./dpdk-env.sh clean       remove build dirs and leftover namespaces / DPDK runtime dirs
#
# Idempotent: a second run installs, reserves and rebuilds nothing that is there.
# Knobs: HGW_HUGEPAGES (pages to reserve, default 1024), HGW_NO_HUGE=1 (skip
# hugepages, DPDK runs with --no-huge), HGW_BUILD / HGW_BUILD_ASAN (build
# directories, default build and build-asan).
set -euo pipefail

cd "$(dirname "$(readlink -f "$0")")"
REPO=$PWD
PY=/usr/bin/python3
BUILD=${HGW_BUILD:-build}
BUILD_ASAN=${HGW_BUILD_ASAN:-build-asan}

# Debian packages the project needs (build, tests, demo).
PKGS=(
	build-essential pkg-config meson ninja-build
	dpdk dpdk-dev libdpdk-dev libipsec-mb-dev libssl-dev libpcap-dev libcmocka-dev
	python3 python3-scapy python3-cryptography python3-pytest python3-matplotlib python3-numpy
	tshark iperf3 iproute2 iputils-ping ethtool procps kmod util-linux pciutils
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
	say "build: ninja -C $dir"
	ninja -C "$dir"
}

build_main() { build_dir "$BUILD"; }
build_asan() { build_dir "$BUILD_ASAN" -Db_sanitize=address -Db_lundef=false -Dbuildtype=debugoptimized; }

cmd_build() {
	build_main
	build_asan
}

cmd_demo() {   # [manual]
	local mode=${1:-hip}
	case $mode in
		hip | manual) ;;
		*) die "demo: unknown variant '$mode' (./dpdk-env.sh demo [manual])" ;;
	esac
	need_root
	cmd_deps
	cmd_hugepages
	build_main || die "build failed"
	HIPGW="$REPO/$BUILD/app/hipgw" exec "$REPO/tests/system/demo.sh" "$mode"
}

# ---------------------------------------------------------------- test

TOTAL_PASS=0
TOTAL_FAIL=0
STAGES=()

stage_result() {   # NAME PASSED FAILED
	TOTAL_PASS=$((TOTAL_PASS + $2))
	TOTAL_FAIL=$((TOTAL_FAIL + $3))
	STAGES+=("$(printf '%-10s %4d passed, %4d failed' "$1" "$2" "$3")")
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
	say "component tests: pytest tests/component (ASan build: $BUILD_ASAN/app/hipgw)"
	# tests/component/gwlib.py: HIPGW_ASAN=1 picks build-asan/app/hipgw, HIPGW_BIN wins
	HIPGW_ASAN=1 HIPGW_BIN="${HIPGW_BIN:-$REPO/$BUILD_ASAN/app/hipgw}" timeout 900 "$PY" -m pytest -q -p no:cacheprovider tests/component 2>&1 | tee "$log" || rc=$?
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

run_system() {
	local log=$BUILD/system-tests.log rc=0 p f
	say "system test: tests/system/test_system.sh"
	HIPGW="$REPO/$BUILD/app/hipgw" timeout 300 "$REPO/tests/system/test_system.sh" 2>&1 | tee "$log" || rc=$?
	read -r p f <<<"$(count_from_log "$log")"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	stage_result system "$p" "$f"
}

cmd_test() {
	need_root
	local start=$SECONDS
	cmd_deps
	cmd_hugepages
	if ! build_main; then
		stage_result build 0 1
	else
		run_unit
		run_hip
		if build_asan; then
			run_component
		else
			stage_result build-asan 0 1
		fi
		run_system
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
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^hgw(t|b)?-' || true); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf /var/run/dpdk/hgw-* /var/run/dpdk/hgwt-* /var/run/dpdk/hgwb* 2>/dev/null || true
	rm -rf "$BUILD" "$BUILD_ASAN"
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
	clean) cmd_clean ;;
	-h | --help | help) usage ;;
	*) usage >&2; exit 2 ;;
esac
