#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every example config in drivers-cfg/ passes `hipgw --check-config`, so the
# examples the README and docs/config.md point to keep up with the loader.
# A config with a [gateway] hi is checked with hi pointing to a key this
# script makes (`hipgw keygen`), its other lines as they are.
# Usage: check_drivers_cfg.sh HIPGW SOURCE_ROOT. Exits 1 when one fails or
# there is none.
hipgw=$1
n=0
bad=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$hipgw" keygen --algo ecdsa-p256 --out "$tmp/gw.pem" >/dev/null || exit 1
for f in "$2"/drivers-cfg/*.ini; do
	[ -e "$f" ] || break
	n=$((n + 1))
	c=$f
	if grep -q '^hi *=' "$f"; then
		c=$tmp/$(basename "$f")
		sed "s|^hi *=.*|hi = $tmp/gw.pem|" "$f" > "$c"
	fi
	if ! "$hipgw" --check-config "$c"; then
		echo "FAIL: hipgw --check-config $f" >&2
		bad=$((bad + 1))
	fi
done
if [ "$n" -eq 0 ]; then
	echo "no drivers-cfg/*.ini under $2" >&2
	exit 1
fi
echo "$n configs, $bad refused"
[ "$bad" -eq 0 ]
