#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the host tests of tools/mrp and print one summary line.
# Usage: tests/run.sh [BUILD_DIR]
set -u
O=${1:-.}
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0
log=$(mktemp)

run() {
	"$@" >"$log" 2>&1
	rc=$?
	grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$log"
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	s=$(grep -c '^skip - ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $* exited with $rc"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run "$O/tests/test_sm"
run "$O/tests/test_in_sm"
run "$O/tests/test_frame"
run "$O/tests/test_conf"
run "$O/tests/test_nl"
run sh "$here/tshark.sh" "$O/tests/mkframes" "$O/tests/out"
if command -v python3 >/dev/null 2>&1; then
	run python3 "$here/daemon_smoke.py" "$O"
	run python3 "$here/capture_smoke.py" "$O"
else
	echo "skip - daemon smoke and capture tests (no python3)"
	skip=$((skip + 2))
fi
rm -f "$log"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
