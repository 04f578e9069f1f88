#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two MRP rings joined by an interconnection (IEC 62439-2 Ed. 2, RC
# mode), every node in its own network namespace running its own mrpd:
#
#   ring 1: nodes 1-4 (MRM 3)        ring 2: nodes 5-8 (MRM 7)
#   node 1 (MIM) pi ---- link A ---- pi node 5 (MIC)
#   node 2 (MIC) pi ---- link B ---- pi node 6 (MIC)
#
# The interconnection closes with the MIM's interconnection port blocked
# (the two links and the rings are a loop), a cut of either link opens
# it and traffic between the rings takes the other link, a restore
# closes it again, and no frame circles meanwhile.  Last, the MIM's and a
# MIC's mrpd restart and take the interconnection over as it is.
#
# Default: veth pairs between software bridges.  With IN_PORTS="a1:b1:i1
# ... a8:b8:i8" the same on existing ports (ak, bk the ring ports of node
# k, bk cabled to a(k+1) within its ring, ik its interconnection port or
# "-"; i1 cabled to i5, i2 to i6).  IN_PROFILE: the interconnection's
# recovery profile (200 or 500; default mrpd's, 200); PROFILE, the rings'.
# Output: "ok - ..." / "not ok - ..." lines, then "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

IN_ID=10
N=8
MIM=1
MRMS="3 7"

ring_of() { [ "$1" -le 4 ] && echo 1 || echo 2; }
# the next node in the node's own ring
in_next() {
	case $1 in
	4) echo 1 ;;
	8) echo 5 ;;
	*) echo $(($1 + 1)) ;;
	esac
}
# the node at the other end of node K's interconnection link, if any
in_peer() {
	case $1 in
	1) echo 5 ;; 5) echo 1 ;; 2) echo 6 ;; 6) echo 2 ;; *) echo "" ;;
	esac
}

in_ports() {
	if [ -n "${IN_PORTS:-}" ]; then
		_t=$(echo "$IN_PORTS" | tr ' ' '\n' | sed -n "${1}p")
		_pa=$(echo "$_t" | cut -d: -f1)
		_pb=$(echo "$_t" | cut -d: -f2)
		_pi=$(echo "$_t" | cut -d: -f3)
		[ "$_pi" = "-" ] && _pi=""
	else
		_pa=mrpv${1}a
		_pb=mrpv${1}b
		_pi=""
		[ -n "$(in_peer "$1")" ] && _pi=mrpv${1}i
	fi
}

in_setup() {
	k=1
	while [ "$k" -le "$N" ]; do
		echo "netns add mrp$k"
		k=$((k + 1))
	done | ipb || return 1
	k=1
	while [ "$k" -le "$N" ]; do
		if [ -n "${IN_PORTS:-}" ]; then
			in_ports "$k"
			for _p in $_pa $_pb $_pi; do
				echo "link set $_p netns mrp$k"
			done
		else
			j=$(in_next "$k")
			echo "link add mrpv${k}b netns mrp$k type veth" \
				"peer name mrpv${j}a netns mrp$j"
			p=$(in_peer "$k")
			if [ -n "$p" ] && [ "$k" -lt "$p" ]; then
				echo "link add mrpv${k}i netns mrp$k type veth" \
					"peer name mrpv${p}i netns mrp$p"
			fi
		fi
		k=$((k + 1))
	done | ipb || return 1
	k=1
	while [ "$k" -le "$N" ]; do
		in_ports "$k"
		{
			echo "link set lo up"
			echo "link add br0 address 02:00:00:00:0$k:00 type bridge"
			echo "link set $_pa name pa"
			echo "link set $_pb name pb"
			[ -n "$_pi" ] && echo "link set $_pi name pi"
			# the interconnection links come up once every
			# node has its role: until the MIM blocks its
			# port they and the rings are a loop
			for _p in pa pb ${_pi:+pi}; do
				echo "link set $_p master br0"
			done
			echo "link set pa up"
			echo "link set pb up"
			echo "link set br0 up"
			echo "addr add 192.0.2.$k/24 dev br0"
		} | ipb "$k" || return 1
		k=$((k + 1))
	done
}

in_teardown() {
	k=1
	while [ "$k" -le "$N" ]; do
		daemon_stop "$k" TERM
		if [ -n "${IN_PORTS:-}" ]; then
			in_ports "$k"
			{
				# a device is renamed only while down
				echo "link set pa down"
				echo "link set pb down"
				echo "link set pa nomaster"
				echo "link set pb nomaster"
				echo "link set pa name $_pa"
				echo "link set pb name $_pb"
				echo "link set $_pa netns 1"
				echo "link set $_pb netns 1"
				if [ -n "$_pi" ]; then
					echo "link set pi down"
					echo "link set pi nomaster"
					echo "link set pi name $_pi"
					echo "link set $_pi netns 1"
				fi
			} | ipb "$k" 2>/dev/null
		fi
		k=$((k + 1))
	done
	k=1
	while [ "$k" -le "$N" ]; do
		echo "netns del mrp$k"
		k=$((k + 1))
	done | ipb 2>/dev/null
}

# wait_in NODE KEY VALUE: block in mrpd until the interconnection gets there
wait_in() { ctl "$1" wait br0 interconnection "$IN_ID" "$2" "$3" timeout "$T"; }
wait_ring_of() {
	ctl "$1" wait br0 ring "$(ring_of "$1")" "$2" "$3" timeout "$T"
}
# port_state NODE PORT STATE: the bridge has PORT in STATE
port_state() { nsx "$1" bridge link show dev "$2" | grep -q "state $3"; }
# wait_port NODE PORT STATE: poll the bridge until PORT is in STATE
# (mrpd has no wait for a MIC's port), at most T ms
wait_port() {
	_i=0
	while [ "$_i" -lt $((T / 100)) ]; do
		port_state "$@" && return 0
		sleep 0.1  # poll interval
		_i=$((_i + 1))
	done
	port_state "$@"
}
# in_counter_of NODE NAME: a counter of NODE's interconnection (show -j)
in_counter_of() {
	ctl "$1" show -j | sed 's/.*"interconnections"://' |
		tr ',{}' '\n\n\n' | sed -n "s/^\"$2\":\\([0-9]*\\)\$/\\1/p" |
		head -n 1
}
# in_counter NAME: the same of the MIM's
in_counter() { in_counter_of "$MIM" "$1"; }
# hw_in_test_rx NODE: the own MRP_InTest frames NODE's switch took back
# (hw_mrp_in_test_rx of its ports, 0 on veth): a MIM in an mrpsim engine
# keeps them from the CPU, where mrpd would count them (test_rx)
hw_in_test_rx() {
	_n=0
	for _p in pa pb pi; do
		_v=$(nsx "$1" ethtool -S "$_p" 2>/dev/null |
			sed -n 's/^ *hw_mrp_in_test_rx: //p')
		_n=$((_n + ${_v:-0}))
	done
	echo "$_n"
}
# intest_back MIN HW0: the MIM's own InTest came back at least MIN times,
# to its mrpd (test_rx) or to its switch's engine (since it counted HW0);
# polled for at most T ms
intest_back() {
	_i=0
	while [ "$_i" -le $((T / 100)) ]; do
		[ "$(in_counter test_rx)" -ge "$1" ] 2>/dev/null && return 0
		[ "$(hw_in_test_rx "$MIM")" -ge $(($2 + $1)) ] && return 0
		sleep 0.1  # poll interval
		_i=$((_i + 1))
	done
	return 1
}
# link_in A|B up|down: an interconnection link, both ends
link_in() {
	if [ "$1" = A ]; then
		ipn 1 link set pi "$2"
		ipn 5 link set pi "$2"
	else
		ipn 2 link set pi "$2"
		ipn 6 link set pi "$2"
	fi
}
# rx_packets NODE PORT (from /proc/net/dev: nsenter leaves /sys alone)
rx_packets() {
	nsx "$1" cat /proc/net/dev | tr ':' ' ' |
		awk -v p="$2" '$1 == p { print $3 }'
}
# cpu_ticks: the ticks the guest's CPUs were busy and idle, from the
# first line of /proc/stat ("busy idle")
cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat
}
# no_storm: over 2 s, no port of an interconnection node receives more
# than STORM_MAX frames (default 1000; the rings' and the
# interconnection's test frames are a few hundred, a loop tens of
# thousands); prints the busiest port and how busy the guest's CPUs were
# (every node's bridge runs on them: test frames wait behind the others'
# work when they are saturated)
STORM_MAX=${STORM_MAX:-1000}
no_storm() {
	_before=""
	for k in 1 2 5 6; do
		for p in pa pb pi; do
			_before="$_before $(rx_packets "$k" "$p")"
		done
	done
	_cpu=$(cpu_ticks)
	sleep 2  # the span over which frames are counted
	_cpu="$_cpu $(cpu_ticks)"
	# shellcheck disable=SC2086
	set -- $_before
	_max=0 _at="(none)"
	for k in 1 2 5 6; do
		for p in pa pb pi; do
			_now=$(rx_packets "$k" "$p")
			_d=$((${_now:-0} - ${1:-0}))
			shift
			if [ "$_d" -gt "$_max" ]; then
				_max=$_d _at="node $k $p"
			fi
		done
	done
	# shellcheck disable=SC2086
	set -- $_cpu
	_busy=$(($3 - $1)) _idle=$(($4 - $2))
	echo "busiest port $_at: $_max frames in 2 s, at most $STORM_MAX;" \
		"CPUs $((100 * _busy / (_busy + _idle + 1)))% busy"
	[ "$_max" -le "$STORM_MAX" ]
}
# storm_check NAME: no_storm as a check whose name shows the figure
storm_check() {
	if _out=$(no_storm 2>&1); then
		ok "$1 ($_out)"
	else
		not_ok "$1 ($_out)"
	fi
}

trap 'in_teardown' EXIT
if ! in_setup; then
	not_ok "eight nodes with their bridges and ports"
	summary
	exit 1
fi

daemons_start
for k in 2 4 1 6 8 5; do
	check "MRC added on node $k (ring $(ring_of "$k"))" \
		ctl "$k" add br0 ring "$(ring_of "$k")" primary pa secondary pb \
		profile "$PROFILE" role mrc
done
for k in $MRMS; do
	check "MRM added on node $k (ring $(ring_of "$k"))" \
		ctl "$k" add br0 ring "$(ring_of "$k")" primary pa secondary pb \
		profile "$PROFILE" role mrm
	check "MRM $k reports its ring closed" wait_ring_of "$k" ring closed
done

check "MIM added on node $MIM" ctl "$MIM" add br0 interconnection "$IN_ID" \
	ring 1 port pi role mim ${IN_PROFILE:+profile "$IN_PROFILE"}
for k in 2 5 6; do
	check "MIC added on node $k" ctl "$k" add br0 interconnection "$IN_ID" \
		ring "$(ring_of "$k")" port pi role mic \
		${IN_PROFILE:+profile "$IN_PROFILE"}
done
link_in A up
link_in B up
check "MIM reports the interconnection closed" wait_in "$MIM" in closed
check "MIM blocks its interconnection port" port_state "$MIM" pi blocking
check "MIC 2 forwards on its interconnection port" \
	wait_port 2 pi forwarding
show_lists() { ctl "$MIM" show -j | grep -q "\"in_id\":$IN_ID"; }
check "mrpctl show -j lists the interconnection" show_lists
storm_check "no storm with the interconnection closed"
check "traffic between the rings (3 -> 7)" ping_ok 3 7
check "traffic between the rings (1 -> 5)" ping_ok 1 5

# Link B: the MIM's test frames stop coming back, it opens.
opens=$(in_counter opens)
link_in B down
check "link B cut: MIM reports the interconnection open" \
	wait_in "$MIM" in open
check "link B cut: the MIM's interconnection port forwards" \
	port_state "$MIM" pi forwarding
check "link B cut: traffic 2 -> 6 takes link A" ping_ok 2 6
link_in B up
check "link B restored: MIM reports the interconnection closed" \
	wait_in "$MIM" in closed
check "link B restored: the MIM's interconnection port blocks" \
	port_state "$MIM" pi blocking
storm_check "link B restored: no storm"
check "link B restored: traffic 3 -> 7" ping_ok 3 7
o=$(in_counter opens)
check "link B: the MIM opened once ($opens -> $o)" \
	test "${o:-0}" -eq $((${opens:-0} + 1))

# Link A, the MIM's own: its I-port is down, the traffic takes link B.
link_in A down
check "link A cut: MIM waits for its interconnection port" \
	wait_in "$MIM" state AC_STAT1
check "link A cut: traffic 1 -> 5 takes link B" ping_ok 1 5
link_in A up
check "link A restored: MIM reports the interconnection closed" \
	wait_in "$MIM" in closed
check "link A restored: the MIM's interconnection port blocks" \
	port_state "$MIM" pi blocking
storm_check "link A restored: no storm"
check "link A restored: traffic 3 -> 7" ping_ok 3 7

# mrpd restarts (SIGTERM leaves the kernel's instances as they are): the
# MIM and MIC 5 take their interconnection over from the state file, as
# it is, and nothing on the wire says that anything changed.
state_has_mim() {
	grep -q "^br0 interconnection $IN_ID ring 1 port pi role mim " \
		/run/mrpd/*
}
check "the state file has the MIM's interconnection" state_has_mim
mics_topo() { echo "$(in_counter_of 2 topo_rx)/$(in_counter_of 6 topo_rx)"; }
topo=$(mics_topo)
hw_back=$(hw_in_test_rx "$MIM")
check "MIM's mrpd restarted" restart "$MIM"
check "it takes the interconnection over (adopted in CHK_IC)" \
	log_has "$MIM" "interconnection $IN_ID: adopted in CHK_IC"
check "with its configuration from the state file" \
	log_has "$MIM" "interconnection $IN_ID: configuration from the state"
check "MIC 5's mrpd restarted" restart 5
check "it takes the interconnection over (adopted in IP_IDLE)" \
	log_has 5 "interconnection $IN_ID: adopted in IP_IDLE"
# the new MIM's own test frames come back: it is checking again
check "the restarted MIM's InTest frames come back" intest_back 10 "$hw_back"
check "the MIM still reports the interconnection closed" \
	wait_in "$MIM" in closed
check "the MIM's interconnection port stayed blocked" \
	port_state "$MIM" pi blocking
check "MIC 5's interconnection port stayed forwarding" \
	port_state 5 pi forwarding
t=$(in_counter opens)
check "the restarted MIM did not open (opens $t)" test "${t:-x}" = 0
t=$(in_counter topo_tx)
check "the restarted MIM sent no InTopologyChange (topo_tx $t)" \
	test "${t:-x}" = 0
check "no InTopologyChange: MICs 2 and 6 topo_rx ($topo) unchanged" \
	test "$topo" = "$(mics_topo)"
# mrpd -v logs every request to the kernel
no_state_request() { ! grep 'port-state\|in-state' "$LOGDIR/mrpd-mrp$1.log"; }
for k in "$MIM" 5; do
	check "node $k's new mrpd set no port or interconnection state" \
		no_state_request "$k"
done
storm_check "after the restarts: no storm"
check "after the restarts: traffic 3 -> 7" ping_ok 3 7

[ "$FAIL" -eq 0 ] || show_logs
summary
