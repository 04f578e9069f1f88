#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# MRP ring with one MRM and N-1 MRCs, each node in its own network
# namespace running its own mrpd.  Cuts and restores every link and checks
# that the MRM reports open/closed, the MRCs flush and traffic resumes.
# Then: daemon crash + restart (stale instance reclaimed), an interface
# and a bridge disappearing under the daemon.
#
# Default: a ring of veth pairs between software bridges.  With
# RING_PORTS="a1:b1 a2:b2 ..." the same test runs on existing ports
# (e.g. mrpsim switch ports); see lib.sh.
# Output: "ok - ..." / "not ok - ..." lines, then "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

trap 'ring_teardown' EXIT
ring_setup

daemons_start
# Clients first.  Until a node knows it is a client, its CPU forwards the
# manager's test frames as a plain bridge does; a client configured into a
# closed ring can hold them up past max-miss intervals on a busy guest,
# and the manager rightly opens the ring, which the count of transitions
# per cut below would take for a wrong one.
k=2
while [ "$k" -le "$N" ]; do
	check "MRC added on node $k" ring_add "$k" role mrc
	k=$((k + 1))
done
check "MRM added on node 1" ring_add 1 role mrm

check "MRM reports the ring closed" wait_ring 1 ring closed
# the kernel's view, with names: no interconnection
kernel_names() {
	ctl 1 -j kernel show |
		grep -q '"role":"mrm".*"in_role":"disabled","in_state":"-"'
}
check "mrpctl kernel show -j names the roles" kernel_names
check "MRM blocks its secondary port" \
	show_has 1 'secondary.*blocked'
k=2
while [ "$k" -le "$N" ]; do
	check "MRC $k forwards on both ports" wait_ring "$k" state PT_IDLE
	k=$((k + 1))
done
check "traffic across the ring (1 -> 3)" ping_ok 1 3
check "traffic across the ring (2 -> $N)" ping_ok 2 "$N"

# Cut every link in turn.
l=1
while [ "$l" -le "$N" ]; do
	a=$l
	b=$(ring_next "$l")
	topo0=$(counter 1 topo_tx)
	flush0=""
	m=2
	while [ "$m" -le "$N" ]; do
		flush0="$flush0 $(counter "$m" flushes)"
		m=$((m + 1))
	done

	link_set "$l" down
	check "link $l ($a-$b) cut: MRM reports the ring open" \
		wait_ring 1 ring open
	if [ "$l" -eq 1 ]; then
		# Link 1 ends at the MRM's secondary port, which was blocked:
		# no frame changes its path, so the MRM must not send a
		# TopologyChange (IEC 62439-2 CHK_RC, secondary link down).
		topo1=$(counter 1 topo_tx)
		check "link 1 cut: MRM sends no topology change (topo_tx $topo0 -> $topo1)" \
			test "${topo1:-x}" = "${topo0:-y}"
	else
		topo1=$(counter 1 topo_tx)
		check "link $l cut: MRM sends a topology change (topo_tx $topo0 -> $topo1)" \
			test "${topo1:-0}" -gt "${topo0:-0}"
		m=2
		for f in $flush0; do
			check "link $l cut: MRC $m flushes its FDB" \
				wait_ring "$m" flushes $((f + 1))
			m=$((m + 1))
		done
	fi
	check "link $l cut: traffic $a -> $b resumes the other way round" \
		ping_ok "$a" "$b"

	link_set "$l" up
	check "link $l restored: MRM reports the ring closed" \
		wait_ring 1 ring closed
	check "link $l restored: traffic $a -> $b" ping_ok "$a" "$b"
	l=$((l + 1))
done

t=$(counter 1 openings)
# One ring-open per cut, none that no cut caused.
check "MRM counted one ring opening per cut ($t of $N)" \
	test "${t:-0}" -eq "$N"

# Only root may change a ring (mrpd(8), ACCESS): uid 65534 is refused,
# clearly, and the ring stays as it was.
nobody_del() {
	_out=$(nsx 1 su -s /bin/sh nobody -c "$MRPCTL del br0 ring 1" 2>&1)
	_rc=$?
	printf 'exit %s: %s\n' "$_rc" "$_out"
	[ "$_rc" -eq 1 ] && printf '%s\n' "$_out" | grep -q "permission denied"
}
check "uid 65534: mrpctl del is refused (permission denied)" nobody_del
check "the refused del changed nothing: MRM still manages a closed ring" \
	wait_ring 1 ring closed
denied_counted() { ctl 1 show -j | grep -q '"denied_requests":[1-9]'; }
check "the refusal is counted (denied_requests)" denied_counted

# Daemon crashes and restarts: the kernel instance is reclaimed.
daemon_stop 2 KILL
check "MRC daemon restarted after a crash" daemon_start 2
check "MRC 2 reclaimed its stale ring" \
	show_has 2 reclaimed
check "reclaimed MRC forwards again" wait_ring 2 state PT_IDLE
daemon_stop 1 KILL
check "MRM daemon restarted after a crash" daemon_start 1
check "reclaimed MRM closes the ring" wait_ring 1 ring closed
check "traffic after the restarts" ping_ok 1 3

# The MRM's mrpd is stopped (SIGTERM) on a closed ring: the kernel keeps
# the instance and the secondary stays blocked, so no loop closes; only
# mrpctl del removes a ring.
kernel_keeps_ring() { ctl 1 -j kernel show | grep -q '"ring":1,'; }
# the secondary as mrpd has it: the ports swap roles when the primary's
# link fails, and a restarted mrpd keeps them as the kernel has them
sec=$(ctl 1 show | sed -n 's/^ *secondary  *\([^ ]*\) .*/\1/p')
secondary_blocked() {
	nsx 1 bridge link show dev "${sec:-?}" | grep -q 'state blocking'
}
daemon_stop 1 TERM
check "MRM mrpd stopped: the kernel keeps the ring" kernel_keeps_ring
check "MRM mrpd stopped: its secondary ($sec) stays blocked" secondary_blocked
check "MRM mrpd started again" daemon_start 1
check "it reclaims the ring and keeps it closed" wait_ring 1 ring closed
check "traffic after the MRM's mrpd is back" ping_ok 1 3

# An interface disappears under an MRC (veth ring only: deleting a
# switch port is not possible).  Deleting node 3's pb deletes its veth
# peer, node 4's pa: with fewer than 4 nodes that would be the MRM's.
if [ -z "${RING_PORTS:-}" ] && [ "$N" -ge 4 ]; then
	ipn 3 link del pb
	check "port deleted: MRC 3 drops its ring" wait_ring 3 gone 1
	check "port deleted: mrpd 3 still answers" ctl 3 ping
	check "port deleted: MRM reports the ring open" wait_ring 1 ring open
	ipn 2 link del br0
	check "bridge deleted: mrpd 2 drops its ring" wait_ring 2 gone 1
	check "bridge deleted: mrpd 2 still answers" ctl 2 ping
fi

[ "$FAIL" -eq 0 ] || show_logs
summary
