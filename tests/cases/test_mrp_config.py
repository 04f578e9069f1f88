"""Ring configurations the hardware cannot take: each is refused with a
reason the user sees (the kernel's extack, printed by mrpctl), or, where
the bridge can run the ring in software instead, accepted with a warning
and run in software.

Topology: each ring closed by a cable (test frames leave only a port with
link), its ends on one switch or two:
  s0  6 ports, 1 MRP ring instance
  s1  5 ports, an engine without the MRA role (mra=off); s1p4 is only the
      far end of s1p3's cable
and veth pairs.  Bridges:
  br0  s0p0 s0p1 s0p2   ring 1 in the engine (s0's only instance), s0p2
                        its interconnection port (in the engine too)
  br1  s0p3 s0p4        no free instance: software
  br2  s0p5 s1p2        ports on two switches: software
  br3  s1p3 veth0       an mrpsim port and a veth: software, through mrpd
                        (in netns mx, with veth2 veth3)
  br4  s1p0 s1p1        an MRA on an engine without MRA: software
"""

import json
import re

from vm import Topology

# Two ip processes (-batch): starting one takes half a second in a debug
# guest.
SETUP = """
set -e
{
echo "link add veth0 type veth peer name veth1"
for b in br0 br1 br2 br4; do echo "link add $b type bridge"; done
for p in s0p0 s0p1 s0p2; do echo "link set $p master br0"; done
for p in s0p3 s0p4; do echo "link set $p master br1"; done
for p in s0p5 s1p2; do echo "link set $p master br2"; done
for p in s1p0 s1p1; do echo "link set $p master br4"; done
for d in br0 br1 br2 br4 s0p0 s0p1 s0p2 s0p3 s0p4 s0p5 \\
	 s1p0 s1p1 s1p2 s1p4 veth1; do echo "link set $d up"; done
# br3 and its mrpd in a namespace of their own: mrpd takes over the MRP
# instances it finds at start
echo "netns add mx"
echo "link add veth2 type veth peer name veth3"
for p in s1p3 veth0 veth2 veth3; do echo "link set $p netns mx"; done
} | ip -batch -
{
echo "link add br3 type bridge"
for p in s1p3 veth0 veth2 veth3; do echo "link set $p master br3"; done
for d in lo br3 s1p3 veth0 veth2 veth3; do echo "link set $d up"; done
} | ip -n mx -batch -
"""

TEST = "interval 1000 max-miss 3 period 100000000"


def topology():
    t = Topology()
    t.switch(ports=6, rings=1)
    t.switch(ports=5, mra="off")
    # every ring closes on a cable: test frames leave only a port with link
    for a, b in (((0, 0), (0, 1)), ((0, 3), (0, 4)), ((0, 5), (1, 2)),
                 ((1, 0), (1, 1)), ((1, 3), (1, 4))):
        t.cable(a, b)
    return t


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver")
    vm.check(SETUP)


def kernel(vm, args):
    """mrpctl kernel ARGS: (exit status, stdout and stderr)."""
    status, out = vm.run("mrpctl kernel %s 2>&1" % args)
    if out.strip():
        print("# mrpctl kernel %s: %s" % (args, out.strip()))
    return status, out.strip()


def accepted(vm, args, warning=None):
    status, out = kernel(vm, args)
    assert status == 0, "mrpctl kernel %s: %d: %s" % (args, status, out)
    if warning is None:
        assert out == "", "mrpctl kernel %s warned: %s" % (args, out)
    else:
        assert re.search("^mrpctl: warning: .*" + warning, out, re.M), \
            "mrpctl kernel %s: expected a warning '%s', got '%s'" % (
                args, warning, out)


def refused(vm, args, reason):
    status, out = kernel(vm, args)
    assert status == 1, "mrpctl kernel %s: exit %d: %s" % (args, status, out)
    assert re.search(reason, out), \
        "mrpctl kernel %s: expected '%s', got '%s'" % (args, reason, out)


def tx(vm, port, stat="tx_packets", ns=""):
    out = vm.check("%sethtool -S %s | sed -n 's/^ *%s: //p'" % (
        ns, port, stat))
    return int(out.split()[0])


def runs_in_software(vm, port, ns=""):
    """The bridge's software test sends MRP_Test frames through the
    driver's transmit path, not the engine's."""
    sent = tx(vm, port, ns=ns)
    vm.check("%ssh -c '. /mrpsim/lib.sh && wait_for 5000 stat_gt %s "
             "tx_packets %d'" % (ns, port, sent + 20))
    assert tx(vm, port, "hw_mrp_test_tx", ns) == 0


def test_engine_ring_and_its_minimum_interval(vm):
    accepted(vm, "add br0 ring 1 primary s0p0 secondary s0p1")
    accepted(vm, "role br0 ring 1 mrm")
    refused(vm, "test br0 ring 1 interval 50 max-miss 3 period 1000000",
            r"MRP test interval below the device's minimum")
    accepted(vm, "test br0 ring 1 " + TEST)
    sent = tx(vm, "s0p0", "hw_mrp_test_tx")
    vm.check(". /mrpsim/lib.sh && wait_for 5000 stat_gt s0p0 "
             "hw_mrp_test_tx %d" % (sent + 10))


def ring(vm, br, ring_id):
    """The kernel's MRP instance ring_id of bridge br (mrpctl kernel show
    -j)."""
    rings = json.loads(vm.check("mrpctl kernel show -j"))["rings"]
    found = [r for r in rings if r["bridge"] == br and r["ring"] == ring_id]
    assert len(found) == 1, rings
    return found[0]


def bridge_port_state(vm, port):
    return json.loads(vm.check("bridge -j link show dev " + port))[0][
        "state"]


def test_interconnection_in_the_engine(vm):
    """An interconnection (MIM, MIC) of the ring the engine runs, its port
    on the same switch: the engine runs it, a MIM's InTest too (sent on
    the ring ports, its own back through the ring's cable), with the
    engine's minimum interval.  A role the driver refuses leaves no
    half-made interconnection: no port, the port in the state it had
    (disabled: it has no cable; the bridge left it forwarding when the
    role was disabled), and the role can be set again (patches/0002 and
    0015)."""
    ifindex = int(vm.check("cat /sys/class/net/s0p2/ifindex"))
    accepted(vm, "in-role br0 ring 1 in-id 7 port s0p2 mic")
    r = ring(vm, "br0", 1)
    assert r["interconnect_ifindex"] == ifindex and r["in_role"] == "mic", r
    accepted(vm, "in-role br0 ring 1 in-id 7 port s0p2 disabled")
    r = ring(vm, "br0", 1)
    assert r["interconnect_ifindex"] == 0, r
    vm.check("bridge link set dev s0p2 state 0")
    assert bridge_port_state(vm, "s0p2") == "disabled"
    bus = re.search(r"bus-info: (\S+)", vm.check("ethtool -i s0p0")).group(1)
    fault = "/sys/kernel/debug/mrpsim/%s/fail_in_role" % bus
    vm.check("echo 1 > " + fault)
    try:
        refused(vm, "in-role br0 ring 1 in-id 7 port s0p2 mim",
                r"Interconnection refused \(debugfs fail_in_role\)")
        r = ring(vm, "br0", 1)
        assert r["interconnect_ifindex"] == 0 and \
            r["in_role"] == "disabled", r
        assert bridge_port_state(vm, "s0p2") == "disabled"
    finally:
        vm.check("echo 0 > " + fault)
    accepted(vm, "in-role br0 ring 1 in-id 7 port s0p2 mim")
    assert ring(vm, "br0", 1)["in_role"] == "mim"
    refused(vm, "in-test br0 in-id 7 interval 50 max-miss 3 period 1000000",
            r"MRP InTest interval below the device's minimum")
    sent = tx(vm, "s0p0", "hw_mrp_in_test_tx")
    back = tx(vm, "s0p1", "hw_mrp_in_test_rx")
    accepted(vm, "in-test br0 in-id 7 " + TEST)
    vm.check(". /mrpsim/lib.sh && wait_for 5000 stat_gt s0p0 "
             "hw_mrp_in_test_tx %d && wait_for 5000 stat_gt s0p1 "
             "hw_mrp_in_test_rx %d" % (sent + 10, back + 10))
    accepted(vm, "in-state br0 in-id 7 closed")
    assert ring(vm, "br0", 1)["in_state"] == "closed"
    accepted(vm, "in-role br0 ring 1 in-id 7 port s0p2 disabled")


def test_ring_id_and_ports_in_use(vm):
    refused(vm, "add br0 ring 1 primary s0p2 secondary s0p2",
            "MRP ring ID already in use")
    refused(vm, "add br0 ring 2 primary s0p2 secondary s0p0",
            "Port already in an MRP ring")
    refused(vm, "add br0 ring 2 primary s0p2 secondary s0p3",
            "MRP ring port is not a port of the bridge")


def test_no_free_instance_runs_in_software(vm):
    accepted(vm, "add br1 ring 1 primary s0p3 secondary s0p4",
             "runs in software: no free ring instance on the switch")
    accepted(vm, "role br1 ring 1 mrm")
    # the software has no minimum interval
    accepted(vm, "test br1 ring 1 interval 500 max-miss 3 period "
             "100000000")
    runs_in_software(vm, "s0p3")


def test_two_switches_run_in_software(vm):
    accepted(vm, "add br2 ring 1 primary s0p5 secondary s1p2",
             "runs in software: its ports are not on one switch")
    accepted(vm, "role br2 ring 1 mrm")
    accepted(vm, "test br2 ring 1 " + TEST)
    runs_in_software(vm, "s0p5")
    runs_in_software(vm, "s1p2")


def test_mra_without_engine_support_runs_in_software(vm):
    accepted(vm, "add br4 ring 1 primary s1p0 secondary s1p1")
    accepted(vm, "role br4 ring 1 mra",
             "MRP role runs in software: the switch's engine does not "
             "support it")
    accepted(vm, "test br4 ring 1 " + TEST)
    runs_in_software(vm, "s1p0")


def test_mixed_ring_through_mrpd(vm):
    """mrpd passes the kernel's warning on: mrpctl add prints it, and
    mrpctl show keeps it.  A refusal reaches mrpctl with the reason."""
    mx = "nsenter --net=/run/netns/mx "
    vm.check(mx + "mrpd -D -v -l /tmp/mrpd-mx.log -p /run/mrpd-mx.pid")
    status, out = vm.run(mx + "mrpctl add br3 ring 1 primary s1p3 "
                         "secondary veth0 role mrm profile 10 2>&1")
    print("# mrpctl add: %s" % out.strip())
    assert status == 0, out
    assert re.search("^mrpctl: warning: ring: .*runs in software: its "
                     "ports are not on one switch", out, re.M), out
    show = vm.check(mx + "mrpctl show")
    assert "kernel warning: ring: " in show, show
    js = vm.check(mx + "mrpctl show -j")
    assert '"kernel_warning":"ring: ' in js, js
    runs_in_software(vm, "s1p3", mx)
    # a ring mrpd does not know of holds veth2: the kernel refuses
    vm.check(mx + "mrpctl kernel add br3 ring 5 primary veth2 secondary "
             "veth3")
    status, out = vm.run(mx + "mrpctl add br3 ring 6 primary veth2 "
                         "secondary veth3 role mrc 2>&1")
    assert status == 1 and "Port already in an MRP ring" in out, out
    vm.check(mx + "mrpctl del br3 ring 1; kill $(cat /run/mrpd-mx.pid)")
