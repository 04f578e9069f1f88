# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the guest MRP ring tests.  POSIX sh (busybox ash).
# Needs: ip (iproute2, with "ip netns"), nsenter (util-linux or busybox),
# mrpd, mrpctl, ping.
#
# Starting a program is slow in a debug guest under TCG (iproute2's ip
# takes close to 2 s), so namespaces are entered with nsenter rather than
# "ip netns exec" and ip commands are batched ("ip -batch") where a test
# needs more than one.
#
# A ring of N nodes; node k is network namespace mrpK with bridge br0 and
# ring ports pa (primary) and pb (secondary).  Node k's pb is cabled to
# node k+1's pa ("link k"), node N's pb to node 1's pa ("link N").
#
# Environment:
#   MRPD, MRPCTL     binaries (default: from PATH)
#   IP               iproute2 ip (default "ip"; give a full path when the
#                    shell is busybox with FEATURE_SH_STANDALONE)
#   PROFILE          recovery profile for the rings (default 200)
#   RING_NODES       number of nodes for the veth ring (default 4)
#   RING_PORTS       use existing interfaces instead of veth pairs:
#                    "a1:b1 a2:b2 ..." (node k gets ak as pa, bk as pb;
#                    bk must be cabled to a(k+1), the last b to a1)
#   T                timeout of one wait in ms (default 15000)
#   LOGDIR           where daemon logs go (default /tmp)

MRPD=${MRPD:-mrpd}
# iproute2's ip: a busybox shell built with FEATURE_SH_STANDALONE runs its
# own "ip" applet (no netns support) for a bare "ip": pass a path then.
IP=${IP:-ip}
MRPCTL=${MRPCTL:-mrpctl}
PROFILE=${PROFILE:-200}
T=${T:-15000}
LOGDIR=${LOGDIR:-/tmp}
PASS=0
FAIL=0
N=0

ok() { echo "ok - $*"; PASS=$((PASS + 1)); }
not_ok() { echo "not ok - $*"; FAIL=$((FAIL + 1)); }

# check NAME CMD...: run CMD, report, show its output on failure
check() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		ok "$_name"
	else
		not_ok "$_name"
		printf '%s\n' "$_out" | sed 's/^/    /'
		if [ "$FAIL" -eq 1 ]; then
			first_failure_log
		fi
	fi
}

# At the first failure, what node 1 (the manager in ring.sh) logged up to
# then: show_logs at the end has only what came after.
first_failure_log() {
	echo "# --- node 1: log at the first failure"
	grep -v 'seq [0-9]* from\|fdb flushed\|start-test\|send-' \
		"$LOGDIR/mrpd-mrp1.log" 2>/dev/null | tail -n 80 | sed 's/^/# /'
}

summary() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}

# nsx NODE CMD...: run CMD in node NODE's network namespace
nsx() { _ns=$1; shift; nsenter --net="/run/netns/mrp$_ns" "$@"; }
# ipn NODE ARGS...: iproute2's ip in node NODE's namespace
ipn() { _ns=$1; shift; "$IP" -n "mrp$_ns" "$@"; }
# ipb [NODE]: an ip batch from stdin, in NODE's namespace or the initial
# one; every line runs (-force), the status says whether one failed
ipb() {
	if [ -n "${1:-}" ]; then
		"$IP" -force -n "mrp$1" -batch -
	else
		"$IP" -force -batch -
	fi
}
ctl() { _ns=$1; shift; nsx "$_ns" "$MRPCTL" "$@"; }

# wait_ring NODE KEY VALUE: block in mrpd until the ring gets there
wait_ring() { ctl "$1" wait br0 ring 1 "$2" "$3" timeout "$T"; }

# show_has NODE REGEX: "mrpctl show" of NODE matches REGEX
show_has() { ctl "$1" show | grep -q "$2"; }

# counter NODE NAME: a counter from "mrpctl show -j"
counter() {
	ctl "$1" show -j | tr ',{}' '\n\n\n' | sed -n "s/^\"$2\":\\([0-9]*\\)\$/\\1/p" | head -n 1
}

# ping_ok FROM TO: one answer within the deadline (no fixed sleep)
ping_ok() { nsx "$1" ping -c 1 -w 10 "192.0.2.$2" >/dev/null; }

ring_next() { [ "$1" -eq "$N" ] && echo 1 || echo $(($1 + 1)); }

# link_set K up|down: both ends of link K (node K pb, node K+1 pa)
# Both ends of a cable cannot go down at once: the manager's end goes
# first, or the manager would see its test frames stop, open the ring,
# and then take its own port going down for a second event.
link_set() {
	if [ "$(ring_next "$1")" -eq 1 ]; then
		ipn 1 link set pa "$2"
		ipn "$1" link set pb "$2"
	else
		ipn "$1" link set pb "$2"
		ipn "$(ring_next "$1")" link set pa "$2"
	fi
}

# node_ports K: set _pa and _pb to node K's primary and secondary port as
# they are named outside the node (RING_PORTS, or the veth ring's names)
node_ports() {
	if [ -n "${RING_PORTS:-}" ]; then
		_pair=$(echo "$RING_PORTS" | tr ' ' '\n' | sed -n "${1}p")
		_pa=${_pair%%:*}
		_pb=${_pair#*:}
	else
		_pa=mrpv${1}a
		_pb=mrpv${1}b
	fi
}

ring_setup() {
	if [ -n "${RING_PORTS:-}" ]; then
		# shellcheck disable=SC2086
		set -- $RING_PORTS
		N=$#
	else
		N=${RING_NODES:-4}
	fi
	k=1
	while [ "$k" -le "$N" ]; do
		echo "netns add mrp$k"
		k=$((k + 1))
	done | ipb || return 1
	# Ports into their nodes: node k's pb is cabled to node k+1's pa.
	k=1
	while [ "$k" -le "$N" ]; do
		if [ -n "${RING_PORTS:-}" ]; then
			node_ports "$k"
			echo "link set $_pa netns mrp$k"
			echo "link set $_pb netns mrp$k"
		else
			j=$(ring_next "$k")
			echo "link add mrpv${k}b netns mrp$k type veth" \
				"peer name mrpv${j}a netns mrp$j"
		fi
		k=$((k + 1))
	done | ipb || return 1
	k=1
	while [ "$k" -le "$N" ]; do
		node_ports "$k"
		cat <<-EOT | ipb "$k" || return 1
			link set lo up
			link add br0 address 02:00:00:00:0$k:00 type bridge
			link set $_pa name pa
			link set $_pb name pb
			link set pa master br0
			link set pb master br0
			link set pa up
			link set pb up
			link set br0 up
			addr add 192.0.2.$k/24 dev br0
		EOT
		k=$((k + 1))
	done
}

# daemon_start NODE [MRPD OPTIONS]
daemon_start() {
	_k=$1
	shift
	nsx "$_k" "$MRPD" -D -v -p "$LOGDIR/mrpd-mrp$_k.pid" \
		-l "$LOGDIR/mrpd-mrp$_k.log" "$@"
}

# daemons_start: mrpd in every node, each a check
daemons_start() {
	_k=1
	while [ "$_k" -le "$N" ]; do
		check "mrpd starts in node $_k" daemon_start "$_k"
		_k=$((_k + 1))
	done
}

daemon_pid() { cat "$LOGDIR/mrpd-mrp$1.pid" 2>/dev/null; }

# daemon_stop NODE [SIGNAL]: stop and wait until the process is gone
daemon_stop() {
	_pid=$(daemon_pid "$1")
	[ -n "$_pid" ] || return 0
	kill "-${2:-TERM}" "$_pid" 2>/dev/null
	# the daemon is not our child: watch /proc (bounded)
	_i=0
	while [ -d "/proc/$_pid" ] && [ "$_i" -lt 500 ]; do
		if grep -q '^State:.*Z' "/proc/$_pid/status" 2>/dev/null; then
			break
		fi
		_i=$((_i + 1))
		sleep 0.01 2>/dev/null || sleep 1
	done
	rm -f "$LOGDIR/mrpd-mrp$1.pid"
}

# json_has NODE TEXT: "mrpctl show -j" of NODE contains TEXT
json_has() { ctl "$1" show -j | grep -q "$2"; }
# log_has NODE TEXT: node's mrpd log has TEXT (else show what it has)
log_has() {
	grep -q "$2" "$LOGDIR/mrpd-mrp$1.log" ||
		! grep 'adopted\|configuration from\|reclaimed' \
			"$LOGDIR/mrpd-mrp$1.log"
}
# restart NODE: stop (SIGTERM) and start mrpd again, from a fresh log
restart() {
	daemon_stop "$1" TERM &&
		mv "$LOGDIR/mrpd-mrp$1.log" "$LOGDIR/mrpd-mrp$1.log.old" &&
		daemon_start "$1"
}

ring_add() {
	_k=$1
	shift
	ctl "$_k" add br0 ring 1 primary pa secondary pb profile "$PROFILE" "$@"
}

ring_teardown() {
	k=1
	while [ "$k" -le "${N:-0}" ]; do
		daemon_stop "$k" TERM
		if [ -n "${RING_PORTS:-}" ]; then
			# hand the interfaces back to the initial namespace
			node_ports "$k"
			cat <<-EOT | ipb "$k" 2>/dev/null
				link set pa down
				link set pb down
				link set pa nomaster
				link set pb nomaster
				link set pa name $_pa
				link set pb name $_pb
				link set $_pa netns 1
				link set $_pb netns 1
			EOT
		fi
		k=$((k + 1))
	done
	k=1
	while [ "$k" -le "${N:-0}" ]; do
		echo "netns del mrp$k"
		k=$((k + 1))
	done | ipb 2>/dev/null
}

show_logs() {
	k=1
	while [ "$k" -le "${N:-0}" ]; do
		echo "# --- node $k: mrpctl show"
		ctl "$k" show 2>&1 | sed 's/^/# /'
		echo "# --- node $k: bridge ports"
		for _p in pa pb; do
			ipn "$k" -d link show "$_p" 2>&1 |
				sed -n 's/^ *\(bridge_slave state [a-z]*\).*/# '"$_p"' \1/p;s/^[0-9]*: \([^:]*\):.*state \([A-Z]*\).*/# \1 \2/p'
		done
		echo "# --- node $k: log tail"
		tail -n 30 "$LOGDIR/mrpd-mrp$k.log" 2>/dev/null | sed 's/^/# /'
		k=$((k + 1))
	done
}
