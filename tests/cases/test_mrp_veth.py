"""A pure software MRP ring on veth pairs in a switchdev-enabled kernel.

Mainline's bridge refuses to create an MRP instance when no switchdev
driver handles it (FACTS.md); patches/ makes it fall back to software.
Four namespaces with a bridge each, joined in a ring by veth pairs.
"""

import mrpring as R
import mrpscale as S
from vm import Topology

INTERVAL = 10000   # us, as test_mrp_sw.py
PROFILE = 200      # mrpd, as test_mrp_sw.py
PORTS = ("v%da", "v%db")   # primary, secondary of node i
PORTS_0 = ("v0a", "v0b")   # the MRM's


# The whole module is make check-long's: the software fallback on veth
# pairs, which test_mrp_sw.py covers on mrpsim ports in make check.
LONG = ("ring_closed_secondary_blocked", "traffic_crosses_the_ring",
        "cut_and_restore_each_link", "mrpd_manager_once_per_cable",
        "mrpd_three_mras_once_per_cable", "mrpd_closed_while_broken")


def topology():
    t = Topology()        # no mrpsim switch: veth only
    t.ring_n = R.N
    return t


def setup(vm):
    vm.ring_ports = PORTS
    vm.check("\n".join("ip link add v%db type veth peer name v%da" %
                       (i, (i + 1) % R.N) for i in range(R.N)))
    R.build_nodes(vm, PORTS)
    R.configure_mrp(vm, INTERVAL, ports=PORTS)


def test_ring_closed_secondary_blocked(vm):
    assert R.port_state(vm, 0, "v0b") == "blocking"
    assert R.port_state(vm, 0, "v0a") == "forwarding"


def test_traffic_crosses_the_ring(vm):
    vm.check(R.in_ns(1, "ping -c 3 -W 5 10.0.0.4"))


def test_cut_and_restore_each_link(vm):
    for i in range(R.N):
        a = "v%db" % i
        R.arm(vm, True, R.mrm_open_cmd("v0b"), PORTS_0)
        vm.check("ip -n %s link set %s down" % (R.ns(i), a))
        R.harvest(vm)
        R.arm(vm, False, R.mrm_closed_cmd("v0b"), PORTS_0)
        vm.check("ip -n %s link set %s up" % (R.ns(i), a))
        R.harvest(vm)


# With mrpd on every node: each MRP frame crosses each cable once per
# direction, with one manager and every cable cut in turn, then with three
# MRAs (tests/mrpscale.py; test_mrp_ring14.py does the same on 14 nodes).
def test_mrpd_manager_once_per_cable(vm):
    S.mrpd_manager_once_per_cable(vm, PROFILE)


def test_mrpd_three_mras_once_per_cable(vm):
    S.mrpd_three_mras_once_per_cable(vm)


def test_mrpd_closed_while_broken(vm):
    S.started(vm, PROFILE)
    S.closed_while_broken(vm, PROFILE)
    vm.cables.stop()
