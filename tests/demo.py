#!/usr/bin/env python3
"""make demo: boot a ring of mrpsim switches in QEMU and run MRP on it.

Four switches are cabled in a ring; each switch is a node (its own network
namespace) with a Linux bridge over its two ports, an address on the
bridge and its own mrpd.  Node 0 is the ring manager (MRM), the others are
clients.  The switches' MRP engine sends and checks the test frames; mrpd
reacts to what the kernel reports.  The demo shows the ring closing,
traffic crossing it, a cable cut from the host (the manager unblocks its
secondary port and traffic takes the other way round), and the ring
closing again when the cable comes back.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrpring as R  # noqa: E402
from vm import VM, Topology, find_splats  # noqa: E402

N = R.N


def step(msg):
    print("\n\033[1m--- %s\033[0m" % msg)
    sys.stdout.flush()


def show(vm, cmd):
    print("guest# " + cmd)
    status, out = vm.run(cmd, timeout=120)
    print(out.rstrip())
    return status


class DemoFailed(Exception):
    pass


def must(vm, cmd, what):
    """show() cmd; a non-zero exit status ends the demo with an error."""
    if show(vm, cmd) != 0:
        raise DemoFailed(what)


def wait_ring(vm, state):
    must(vm, "ip netns exec n0 mrpctl wait br0 ring 1 ring %s timeout 30000"
         " && echo ring %s" % (state, state),
         "the manager did not report the ring %s within 30 s" % state)


def main():
    topo = Topology.ring(N)
    step("booting a guest with %d mrpsim switches cabled in a ring" % N)
    t0 = time.monotonic()
    failed = None
    with VM(topo) as vm:
        try:
            run(vm, t0)
        except DemoFailed as e:
            failed = str(e)
    splats = find_splats(vm.log())
    step("done: guest log %s" % ("has kernel splats:" if splats else "clean"))
    for line in splats:
        print(line)
    if failed:
        print("demo FAILED: %s" % failed)
    return 1 if splats or failed else 0


def run(vm, t0):
    print("booted in %.1f s" % (time.monotonic() - t0))
    step("loading the driver: one netdev per switch port")
    show(vm, ". /mrpsim/lib.sh; load_driver; "
         "ip -br link show | grep '^s'")
    show(vm, "ethtool -i s0p0")
    step("one node per switch: bridge, 10.0.0.<n>, mrpd; "
         "node 0 manages the ring (profile 200 ms)")
    R.build_nodes(vm)
    R.start_mrpd(vm)
    R.mrpd_rings(vm)
    wait_ring(vm, "closed")
    show(vm, "ip netns exec n0 mrpctl show")
    show(vm, "bridge -n n0 link show")
    step("the manager's switch sends and checks the test frames, "
         "the clients' switches forward them")
    show(vm, "ip netns exec n0 ethtool -S s0p0 | grep mrp")
    show(vm, "ip netns exec n2 ethtool -S s2p0 | grep hw_mrp_fwd")
    step("ping from node 1 to node 3")
    must(vm, "ip netns exec n1 ping -c 3 10.0.0.3",
         "no traffic from node 1 to node 3 on the closed ring")
    step("host cuts the cable between switches 1 and 2 "
         "(set_link off, both ends)")
    vm.set_link("s1p1", False)
    vm.set_link("s2p0", False)
    wait_ring(vm, "open")
    show(vm, "bridge -n n0 link show")
    step("traffic from node 1 to node 3 goes the other way round")
    must(vm, "ip netns exec n1 sh -c '. /mrpsim/lib.sh; "
         "wait_for 10000 ping -c 1 -W 1 10.0.0.3' && "
         "ip netns exec n1 ping -c 3 10.0.0.3",
         "no traffic from node 1 to node 3 with the cable cut")
    step("host restores the cable")
    vm.set_link("s1p1", True)
    vm.set_link("s2p0", True)
    wait_ring(vm, "closed")
    show(vm, "ip netns exec n0 mrpctl show")
    show(vm, "bridge -n n0 link show")


if __name__ == "__main__":
    sys.exit(main())
