"""mrpd and mrpctl in the guest (tools/mrp/tests/guest): rings where every
node runs mrpd in its own network namespace; every link is cut and
restored, the MRM reports open and closed, MRCs flush, traffic resumes,
daemons are killed and reclaim their rings, daemons restart under traffic
and take their rings over without a lost frame (restart.sh); with two MRAs the better one
manages and the other takes over when it is cut off or its daemon stops.

One guest, three rings:
  - four mrpsim switches with the MRP engine (the hardware path):
    ring.sh and mra.sh;
  - three mrpsim switches started with mrp=off (the driver declines the
    ring role and the bridge runs MRP in software on the same driver):
    ring.sh;
  - four software bridges joined by veth pairs: ring.sh and mra.sh;
  - two rings of four software bridges joined by an interconnection
    (interconnect.sh).
mrpd runs unchanged on all three.
"""

from vm import Topology

HW = 4          # switches 0..3: mrp=on
SW = 3          # switches 4..6: mrp=off


# make check-long: the scripts on the software path, mrpsim and veth
# (make check runs ring.sh and restart.sh offloaded; test_mrp_sw.py runs
# mrpd on the software path), and mra.sh (test_mrp_ring14.py's three_mras
# elects a manager among three MRAs in make check).
LONG = ("mrpsim_ring_software", "mrpsim_restart_software",
        "mrpsim_mra_offloaded", "veth_ring", "veth_mra", "veth_restart",
        "veth_interconnect")


def ring_ports(first, n):
    return " ".join("s%dp0:s%dp1" % (i, i) for i in range(first, first + n))


def topology():
    t = Topology.ring(HW)
    for _ in range(SW):
        t.switch(mrp=False)
    for i in range(SW):
        t.cable((HW + i, 1), (HW + (i + 1) % SW, 0))
    return t


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver")


def script(vm, name, ports=None, env=""):
    if ports:
        env += "RING_PORTS='%s' " % ports
    yield from vm.script_results("%ssh /mrpsim/mrp/%s" % (env, name))


def test_mrpsim_ring_offloaded(vm):
    yield from script(vm, "ring.sh", ring_ports(0, HW))


def test_mrpsim_mra_offloaded(vm):
    yield from script(vm, "mra.sh", ring_ports(0, HW))


def test_mrpsim_restart_offloaded(vm):
    yield from script(vm, "restart.sh", ring_ports(0, HW))


def test_mrpsim_restart_software(vm):
    yield from script(vm, "restart.sh", ring_ports(HW, SW))


def test_mrpsim_ring_software(vm):
    yield from script(vm, "ring.sh", ring_ports(HW, SW))


def test_veth_interconnect(vm):
    # two veth rings of 4 joined by an interconnection (MIM and 3 MICs)
    yield from script(vm, "interconnect.sh")


def test_veth_ring(vm):
    yield from script(vm, "ring.sh")


def test_veth_mra(vm):
    yield from script(vm, "mra.sh")


def test_veth_restart(vm):
    yield from script(vm, "restart.sh")
