#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every guest MRP test (ring.sh, mra.sh, restart.sh) and print one
# summary line.
#   run_all.sh                 veth rings of software bridges
#   RING_PORTS="a1:b1 ..." run_all.sh   the same on existing ports
#                              (e.g. mrpsim switch ports, see lib.sh)
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
log=${LOGDIR:-/tmp}/mrp-guest-$$.log
for t in ring.sh mra.sh restart.sh; do
	echo "# $t"
	sh "$here/$t" >"$log" 2>&1
	rc=$?
	grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$log"
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with $rc"
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
done
rm -f "$log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
