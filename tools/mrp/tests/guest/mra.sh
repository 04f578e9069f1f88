#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two MRAs in a ring (nodes 1 and 3, the rest MRCs): the better one
# (node 3, prio 0x9000 against the default 0xA000) becomes manager, node 1
# acts as client; node 1 takes over when node 3 is cut off or its mrpd
# is stopped, and gives way again when node 3 comes back.
# Same environment as ring.sh (lib.sh); needs at least 4 nodes.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# takeovers_are N COUNT: node 1's mrpd counted N; else show when it
# changed mode and what it saw just before
takeovers_are() {
	[ "${2:-0}" -eq "$1" ] && return 0
	echo "node 1 took over $2 times, not $1; its mode changes (all):"
	grep -B4 'now acts as' "$LOGDIR/mrpd-mrp1.log" |
		grep -v 'seq [0-9]* from\|fdb flushed\|flush port'
	return 1
}

trap 'ring_teardown' EXIT
ring_setup
if [ "$N" -lt 4 ]; then
	echo "not ok - mra test needs at least 4 nodes (have $N)"
	echo "0 passed, 1 failed"
	exit 1
fi

daemons_start
check "MRA added on node 1 (prio 0xA000)" ring_add 1 role mra
check "MRA added on node 3 (prio 0x9000)" ring_add 3 role mra prio 0x9000
for k in 2 4; do
	check "MRC added on node $k" ring_add "$k" role mrc
done
k=5
while [ "$k" -le "$N" ]; do
	check "MRC added on node $k" ring_add "$k" role mrc
	k=$((k + 1))
done

check "better MRA (node 3) is the manager" wait_ring 3 mode manager
check "other MRA (node 1) acts as client" wait_ring 1 mode client
check "node 3 reports the ring closed" wait_ring 3 ring closed
check "node 1 knows node 3 as manager" \
	show_has 1 'manager prio 0x9000 mac 02:00:00:00:03:00'
check "traffic across the ring" ping_ok 2 4
# Takeovers count from here.  Until every node has its ring instance,
# nodes without one forward MRP frames in software, in bursts on a TCG
# guest, and the MRA that gave way may miss the manager's test frames
# for three intervals and take over again for a while, as it must.
t0=$(counter 1 takeovers)

# node 3 cut off: both of its links down
link_set 2 down
link_set 3 down
check "node 3 cut off: node 1 takes over" wait_ring 1 mode manager
check "node 1 as manager sees the ring open" wait_ring 1 ring open
check "traffic between the remaining nodes" ping_ok 2 4
link_set 2 up
link_set 3 up
check "node 3 back: node 1 gives way" wait_ring 1 mode client
check "node 3 back: node 3 manages a closed ring" wait_ring 3 ring closed
check "traffic after node 3 is back" ping_ok 1 3

# node 3's ring is deleted: its instance goes, its test frames stop
# (stopping its mrpd would leave the instance testing: mrpd(8))
check "node 3's ring deleted" ctl 3 del br0 ring 1
check "node 3's ring gone: node 1 takes over" wait_ring 1 mode manager
check "node 1 closes the ring through node 3" wait_ring 1 ring closed
check "traffic while node 1 manages" ping_ok 2 4
t=$(($(counter 1 takeovers) - ${t0:-0}))
check "node 1 counted exactly its two takeovers ($t)" takeovers_are 2 "$t"

# node 3 returns and wins again
check "node 3 MRA added again" ring_add 3 role mra prio 0x9000
check "node 3 is manager again" wait_ring 3 mode manager
check "node 1 is client again" wait_ring 1 mode client
check "ring closed under node 3" wait_ring 3 ring closed
check "traffic at the end" ping_ok 1 3

[ "$FAIL" -eq 0 ] || show_logs
summary
