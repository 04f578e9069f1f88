#!/usr/bin/env python3
"""make demo: boot mrpsim switches in QEMU and show traffic crossing them.

Four switches are cabled in a chain; each switch is a node (its own network
namespace) with a Linux bridge over its ports and an address on the
bridge.  The demo pings from one end to the other, shows the hardware
counters, cuts a cable from the host and shows the carrier and the traffic
stop, then restores it.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm import VM, Topology, find_splats  # noqa: E402

N = 4

NODES = """
. /mrpsim/lib.sh
for i in $(seq 0 %(last)d); do
    ip netns add n$i
    for p in 0 1; do
        [ -e /sys/class/net/s${i}p$p ] && ip link set s${i}p$p netns n$i
    done
    ip -n n$i link add br0 type bridge
    for p in 0 1; do
        ip -n n$i link set s${i}p$p master br0 2>/dev/null &&
            ip -n n$i link set s${i}p$p up
    done
    ip -n n$i addr add 10.0.0.$((i + 1))/24 dev br0
    ip -n n$i link set br0 up
done
"""


def step(msg):
    print("\n\033[1m--- %s\033[0m" % msg)
    sys.stdout.flush()


def show(vm, cmd):
    print("guest# " + cmd)
    status, out = vm.run(cmd, timeout=120)
    print(out.rstrip())
    return status


def main():
    topo = Topology.chain(N)
    step("booting a guest with %d mrpsim switches cabled in a chain" % N)
    t0 = time.monotonic()
    with VM(topo) as vm:
        print("booted in %.1f s" % (time.monotonic() - t0))
        step("loading the driver: one netdev per switch port")
        show(vm, ". /mrpsim/lib.sh; load_driver; "
             "ip -br link show | grep '^s'")
        show(vm, "ethtool -i s0p0")
        step("one node per switch: a bridge over its ports, 10.0.0.<n>")
        vm.check(NODES % {"last": N - 1})
        show(vm, "ip -n n1 -br link show master br0")
        step("ping from node 1 to node %d, across every switch" % N)
        show(vm, "ip netns exec n0 ping -c 3 10.0.0.%d" % N)
        step("hardware counters of s1p0")
        show(vm, "ip netns exec n1 ethtool -S s1p0 | grep -v ': 0$'")
        step("host cuts the cable between s1 and s2 (set_link both ends)")
        vm.set_link("s1p1", False)
        vm.set_link("s2p0", False)
        show(vm, ". /mrpsim/lib.sh; ip netns exec n1 sh -c "
             "'. /mrpsim/lib.sh; wait_for 5000 carrier_is s1p1 0'; "
             "ip -n n1 -br link show s1p1")
        show(vm, "ip netns exec n0 ping -c 2 -W 1 10.0.0.%d" % N)
        step("host restores the cable")
        vm.set_link("s1p1", True)
        vm.set_link("s2p0", True)
        show(vm, "ip netns exec n1 sh -c "
             "'. /mrpsim/lib.sh; wait_for 5000 carrier_is s1p1 1'; "
             "ip -n n1 -br link show s1p1")
        vm.check("ip netns exec n0 sh -c '. /mrpsim/lib.sh; "
                 "wait_for 10000 ping -c 1 -W 1 10.0.0.%d'" % N)
        show(vm, "ip netns exec n0 ping -c 3 10.0.0.%d" % N)
    splats = find_splats(vm.log())
    step("done: guest log %s" % ("has kernel splats:" if splats else "clean"))
    for line in splats:
        print(line)
    return 1 if splats else 0


if __name__ == "__main__":
    sys.exit(main())
