"""mrpd and mrpctl in the guest (tools/mrp/tests/guest): rings where every
node runs mrpd; every link is cut and restored, the MRM reports open and
closed, MRCs flush, traffic resumes, daemons are killed and reclaim their
rings.

make check runs ring.sh on a ring of three mrpsim switches with the MRP
engine.  The rest takes far longer than a CI run allows in a TCG guest with
a debug kernel (the veth ring's ring.sh and mra.sh alone ran over 20
minutes), so it runs only with MRPSIM_LONG=1: both scripts on a veth ring,
the MRA election on the mrpsim ring, and the mrpsim ring again with the
driver's software fallback (mrp_offload=0).
"""

import os

from vm import Skip, Topology

RING = "s0p0:s0p1 s1p0:s1p1 s2p0:s2p1"


def topology():
    return Topology.ring(3)


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver")


def long_only():
    if os.environ.get("MRPSIM_LONG") != "1":
        raise Skip("long: set MRPSIM_LONG=1")


def test_mrpsim_ring_offloaded(vm):
    yield from vm.script_results("RING_PORTS='%s' sh /mrpsim/mrp/ring.sh"
                                 % RING)


def test_mrpsim_mra_offloaded(vm):
    long_only()
    yield from vm.script_results("RING_PORTS='%s' sh /mrpsim/mrp/mra.sh"
                                 % RING)


def test_veth_ring(vm):
    long_only()
    yield from vm.script_results("sh /mrpsim/mrp/run_all.sh")


def test_mrpsim_ring_software(vm):
    long_only()
    vm.check("rmmod mrpsim && . /mrpsim/lib.sh && "
             "load_driver mrp_offload=0")
    yield from vm.script_results("sh /mrpsim/mrp/mrpsim.sh '%s'" % RING)
