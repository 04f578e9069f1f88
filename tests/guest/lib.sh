# Shell helpers for guest-side tests.  Source: . /mrpsim/lib.sh
# Port netdevs are renamed s<i>p<j>: tests/vm.py gives switch i the base
# MAC 52:54:00:4d:<i>:00, its switch id (phys_switch_id); j comes from the
# driver's phys_port_name.

# Name every mrpsim port s<i>p<j> (one ip process: spawning is slow
# under TCG with a debug kernel).
name_ports() {
	local dev pn id i
	for dev in /sys/class/net/*; do
		[ -e "$dev/device/driver" ] || continue
		case "$(readlink "$dev/device/driver")" in
		*/mrpsim) ;;
		*) continue ;;
		esac
		read -r pn <"$dev/phys_port_name" 2>/dev/null || continue
		read -r id <"$dev/phys_switch_id" 2>/dev/null || continue
		# 5254004dXX00: switch XX
		i=${id#5254004d}
		i=$((0x${i%00}))
		[ "${dev##*/}" = "s${i}${pn}" ] ||
			echo "link set ${dev##*/} name s${i}${pn}"
	done | ip -batch -
}

# load_driver [mrp_offload=0|1] [l2_offload=0|1]: load mrpsim.ko, name its
# ports, and set these devlink parameters on every switch (one devlink
# process: spawning is slow under TCG).
load_driver() {
	local a sets="" dev
	for a in "$@"; do
		case $a in
		*=1 | *=y | *=true) sets="$sets ${a%%=*}=true" ;;
		*=0 | *=n | *=false) sets="$sets ${a%%=*}=false" ;;
		*) echo "load_driver: $a: want NAME=0 or NAME=1" >&2; return 1 ;;
		esac
	done
	insmod /lib/modules/mrpsim.ko || return 1
	name_ports || return 1
	[ -n "$sets" ] || return 0
	for dev in /sys/bus/pci/drivers/mrpsim/0000:*; do
		for a in $sets; do
			echo "dev param set pci/${dev##*/} name ${a%%=*} value ${a#*=} cmode runtime"
		done
	done | devlink -b -
}

unload_driver() {
	rmmod mrpsim
}

# uptime_ms: set $now to the time since boot in ms (10 ms steps), without
# spawning a process.
uptime_ms() {
	local up rest
	read -r up rest </proc/uptime
	now=$((${up%.*} * 1000 + (1${up#*.} - 100) * 10))
}

# wait_for TIMEOUT_MS COMMAND...: poll until COMMAND succeeds.
wait_for() {
	local end
	uptime_ms
	end=$((now + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		uptime_ms
		[ "$now" -gt "$end" ] && return 1
		usleep 20000
	done
	return 0
}

carrier_is() {	# carrier_is DEV 0|1
	local c
	read -r c <"/sys/class/net/$1/carrier" 2>/dev/null
	[ "$c" = "$2" ]
}

# ethtool_stat DEV NAME: print one ethtool -S counter.
ethtool_stat() {
	ethtool -S "$1" | {
		while read -r k v; do
			[ "$k" = "$2:" ] && { echo "$v"; exit 0; }
		done
		exit 1
	}
}

# stat_gt DEV NAME VALUE: true when ethtool -S counter NAME exceeds VALUE
# (for wait_for).
stat_gt() {
	local v
	v=$(ethtool_stat "$1" "$2") || return 1
	[ "$v" -gt "$3" ]
}

# stat_still DEV NAME: true when ethtool -S counter NAME stays the same for
# 300 ms (for wait_for: the device stopped doing what it counts).
stat_still() {
	local v
	v=$(ethtool_stat "$1" "$2") || return 1
	usleep 300000
	[ "$v" = "$(ethtool_stat "$1" "$2")" ]
}

# tx_idle DEV: the driver has no TX descriptor posted and not completed,
# nor posted without a doorbell (for wait_for, once traffic stopped).
tx_idle() {
	[ "$(ethtool_stat "$1" tx_pending)" = 0 ] &&
		[ "$(ethtool_stat "$1" tx_unsignalled)" = 0 ]
}

# await_ports VALUE PORT...: read `mrpctl -j monitor` lines on stdin until
# every PORT has reported "ring_open":VALUE; print those lines.  Fails if
# the monitor ends first.
await_ports() {
	local want=$1 left line p
	shift
	left=" $* "
	while [ "$left" != " " ]; do
		read -r line || return 1
		case $line in
		*"\"ring_open\":$want"*) ;;
		*) continue ;;
		esac
		for p in $left; do
			case $line in
			*"\"ifname\":\"$p\""*)
				echo "$line"
				left="${left%%" $p "*} ${left#*" $p "}"
				;;
			esac
		done
	done
}
