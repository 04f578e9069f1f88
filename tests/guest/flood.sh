#!/bin/sh
# flood.sh NODES SECONDS: pktgen sends unknown-unicast frames as fast as it
# can out of both ring ports of every node (namespace n<i>, ports
# s<i>p0 and s<i>p1) for SECONDS; the bridges flood them on round the
# ring up to the manager's blocked port.  Port 1 gets bursts of 8 (the
# driver sees xmit_more and fills its ring).  Port 0 goes through the
# qdisc, which hands the driver batches of frames with xmit_more once the
# queue backs up, one in ten of them too long for the device: the driver
# drops those, and must not leave the frames before them waiting for a
# doorbell.  Then every TX ring must drain.  Prints what pktgen sent and
# how often the rings filled; exits 1 if a ring kept frames.  The harness
# checks the guest log for stalled transmit queues.
set -eu
nodes=$1
secs=$2
. /mrpsim/lib.sh

# in_node NODE SCRIPT: run a shell script in node NODE's namespace
in_node() {
	nsenter --net="/run/netns/n$1" sh -c ". /mrpsim/lib.sh; $2"
}

# pktgen commands for node I's ports, one namespace entry per node:
# spawning processes is what costs in a debug guest.
setup() {
	cat <<-EOF
	pg() { echo "\$2" > /proc/net/pktgen/\$1; }
	pg kpktgend_0 "add_device s${1}p0"
	pg kpktgend_1 "add_device s${1}p1"
	for d in s${1}p0 s${1}p1; do
		pg \$d "count 0"
		pg \$d "delay 0"
		pg \$d "dst_mac 02:00:00:00:ff:ff"
	done
	pg s${1}p0 "xmit_mode queue_xmit"
	pg s${1}p0 "imix_weights 60,9 2100,1"
	pg s${1}p1 "pkt_size 60"
	pg s${1}p1 "burst 8"
	EOF
}

i=0
while [ "$i" -lt "$nodes" ]; do
	in_node "$i" "$(setup "$i")"
	i=$((i + 1))
done

# pktgen's threads spin as long as they have a device to feed, two per
# namespace: at normal priority they would starve ksoftirqd, where the
# ports' NAPI polls run once softirqs pile up, and the queues would wait
# seconds for their completions (a TX timeout with every frame sent).
# The flood takes what the rest of the guest leaves.
for pid in $(grep -l '^kpktgend_' /proc/[0-9]*/comm | cut -d/ -f3); do
	renice -n 19 -p "$pid" >/dev/null
done

i=0
while [ "$i" -lt "$nodes" ]; do
	in_node "$i" 'echo start > /proc/net/pktgen/pgctrl' >/dev/null 2>&1 &
	i=$((i + 1))
done
sleep "$secs"		# the flood lasts this long
i=0
while [ "$i" -lt "$nodes" ]; do
	in_node "$i" 'echo stop > /proc/net/pktgen/pgctrl'
	i=$((i + 1))
done
wait

# Per node: frames sent, rings filled, frames dropped, then whether both
# TX rings drain (a frame posted without a doorbell, tx_unsignalled, or a
# completion the driver never saw, tx_pending, stays for ever).
report() {
	cat <<-EOF
	s=0 f=0 d=0
	for d_ in s${1}p0 s${1}p1; do
		while read -r k v_ rest; do
			[ "\$k" = pkts-sofar: ] && s=\$((s + v_))
		done < /proc/net/pktgen/\$d_
		# shell built-ins only: every process costs in a debug guest
		idle=0
		ethtool -S \$d_ > /tmp/st.\$d_
		while read -r k v_; do
			case \$k in
			tx_ring_full:) f=\$((f + v_)) ;;
			tx_dropped:) d=\$((d + v_)) ;;
			tx_pending:|tx_unsignalled:) idle=\$((idle + v_)) ;;
			esac
		done < /tmp/st.\$d_
		if [ \$idle != 0 ] && ! wait_for 10000 tx_idle \$d_; then
			echo "\$d_: TX ring not drained:" \$(ethtool -S \$d_ | grep -E 'tx_pending|tx_unsignalled')
		fi
	done
	echo "sent \$s full \$f dropped \$d"
	echo 'rem_device_all' > /proc/net/pktgen/kpktgend_0
	echo 'rem_device_all' > /proc/net/pktgen/kpktgend_1
	EOF
}

sent=0 full=0 dropped=0 stuck=0
i=0
while [ "$i" -lt "$nodes" ]; do
	out=$(in_node "$i" "$(report "$i")")
	set -- $(echo "$out" | sed -n 's/^sent \([0-9]*\) full \([0-9]*\) dropped \([0-9]*\)$/\1 \2 \3/p')
	sent=$((sent + $1)) full=$((full + $2)) dropped=$((dropped + $3))
	if echo "$out" | grep 'not drained'; then
		stuck=$((stuck + 1))
	fi
	i=$((i + 1))
done
echo "pktgen sent $sent frames from $((nodes * 2)) ports in $secs s;" \
	"the TX rings filled $full times, the driver dropped $dropped" \
	"frames too long for the device"
[ "$stuck" = 0 ] && echo "every TX ring drained"
[ "$stuck" = 0 ]
