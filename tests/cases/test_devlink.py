"""devlink: each switch is a devlink instance, each port a devlink port,
and the parameters mrp_offload and l2_offload choose what the device does
in place of the bridge.

Topology:
  s0  4 ports with the MRP engine; a cable between s0p0 and s0p1 closes a
      ring of one switch (test frames leave only a port with link), s0p2
      and s0p3 are bridged without cables
  s1  2 ports, no MRP engine (mrp=off)
"""

import json
import re

from vm import Topology

PORTS = [4, 2]
MRP = [True, False]

RING = "interval 1000 max-miss 3 period 100000000"
L2_BUSY = "A port of the switch is in a bridge"
MRP_BUSY = "The switch has MRP rings"


def topology():
    t = Topology()
    for n, mrp in zip(PORTS, MRP):
        t.switch(ports=n, mrp=mrp)
    t.cable((0, 0), (0, 1))
    return t


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver")


def handle(sw):
    return "pci/0000:00:%02x.0" % Topology.pci_addr(sw)[1]


def switch_id(sw):
    """phys_switch_id as sysfs prints it: the switch's base MAC."""
    return Topology.mac(sw).replace(":", "")


def params(vm, sw):
    """{name: (value, cmode)} of `devlink dev param show` for switch sw."""
    out = json.loads(vm.check("devlink -j dev param show"))
    res = {}
    for p in out["param"][handle(sw)]:
        for v in p["values"]:
            res[p["name"]] = (v["value"], v["cmode"])
    return res


def param_set(vm, sw, name, value):
    """devlink dev param set; returns (exit status, output)."""
    return vm.run("devlink dev param set %s name %s value %s cmode runtime "
                  "2>&1" % (handle(sw), name, "true" if value else "false"))


def set_ok(vm, sw, name, value):
    status, out = param_set(vm, sw, name, value)
    assert status == 0, "%s %s=%s: %d: %s" % (handle(sw), name, value,
                                             status, out)
    assert params(vm, sw)[name][0] is value, params(vm, sw)


def set_refused(vm, sw, name, value, reason):
    before = params(vm, sw)[name]
    status, out = param_set(vm, sw, name, value)
    assert status != 0, "%s %s=%s accepted: %s" % (handle(sw), name, value,
                                                  out)
    assert reason in out, "%s %s=%s: expected '%s', got '%s'" % (
        handle(sw), name, value, reason, out.strip())
    assert params(vm, sw)[name] == before, params(vm, sw)


def stat(vm, port, name):
    return int(vm.check(". /mrpsim/lib.sh && ethtool_stat %s %s" % (
        port, name)))


def fdb(vm, sw):
    """The device's FDB as debugfs shows it, a line an entry."""
    return vm.check("cat /sys/kernel/debug/mrpsim/%s/fdb" %
                    handle(sw)[4:]).splitlines()


def test_dev_show_lists_each_switch(vm):
    out = vm.check("devlink dev show")
    assert sorted(out.split()) == sorted(handle(sw) for sw in
                                         range(len(PORTS))), out


def test_port_show_physical_ports_and_switch_id(vm):
    text = vm.check("devlink port show")
    ports = json.loads(vm.check("devlink -j port show"))["port"]
    assert len(ports) == sum(PORTS), text
    for sw, n in enumerate(PORTS):
        for p in range(n):
            netdev = "s%dp%d" % (sw, p)
            key = "%s/%d" % (handle(sw), p)
            assert re.search(r"^%s: type eth netdev %s flavour physical "
                             r"port %d\b" % (re.escape(key), netdev, p),
                             text, re.M), text
            assert ports[key]["flavour"] == "physical", ports[key]
            assert ports[key]["port"] == p, ports[key]
            # devlink has no switch id attribute: it gives the netdev its
            # phys_switch_id and phys_port_name
            out = vm.check("cat /sys/class/net/%s/phys_switch_id "
                           "/sys/class/net/%s/phys_port_name" % (
                               netdev, netdev)).split()
            assert out == [switch_id(sw), "p%d" % p], (netdev, out)


def test_dev_info_names_the_switch(vm):
    info = json.loads(vm.check("devlink -j dev info"))["info"]
    assert sorted(info) == sorted(handle(sw) for sw in range(len(PORTS))), \
        info
    for sw in range(len(PORTS)):
        # ethtool -i calls the VERSION register the firmware version
        rev = re.search(r"^firmware-version: (\S+)$", vm.check(
            "ethtool -i s%dp0" % sw), re.M).group(1)
        want = {"driver": "mrpsim", "serial_number": Topology.mac(sw),
                "versions": {"fixed": {"asic.id": "1af4:10f0",
                                       "asic.rev": rev}}}
        assert info[handle(sw)] == want, (sw, info[handle(sw)], want)


def test_param_show_defaults(vm):
    want = {0: {"mrp_offload": (True, "runtime"),
                "l2_offload": (True, "runtime"),
                "mrp_assist": (False, "runtime")},
            # no engine: the rings cannot run in it
            1: {"mrp_offload": (False, "runtime"),
                "l2_offload": (True, "runtime"),
                "mrp_assist": (False, "runtime")}}
    for sw in range(len(PORTS)):
        assert params(vm, sw) == want[sw], (sw, params(vm, sw))
    out = vm.check("dmesg | grep 'L2 forwarding'")
    assert out.count("MRP offloaded, L2 forwarding offloaded") == 1, out
    assert out.count("MRP in software, L2 forwarding offloaded") == 1, out


def test_param_refuses_what_the_device_lacks(vm):
    set_refused(vm, 1, "mrp_offload", True, "The device has no MRP engine")
    set_refused(vm, 1, "mrp_assist", True,
                "The device's MRP engine has no recovery assist")
    # setting what it is already is no change
    set_ok(vm, 1, "mrp_offload", False)
    set_ok(vm, 1, "mrp_assist", False)
    # the assist changes at any time
    set_ok(vm, 0, "mrp_assist", True)
    set_ok(vm, 0, "mrp_assist", False)


def test_l2_offload_busy_while_a_port_is_bridged(vm):
    vm.check("ip link add br0 type bridge && ip link set s0p2 master br0")
    try:
        set_refused(vm, 0, "l2_offload", False, L2_BUSY)
        # a port of another switch in a bridge is no obstacle
        set_ok(vm, 1, "l2_offload", False)
        set_ok(vm, 1, "l2_offload", True)
    finally:
        vm.check("ip link del br0")
    set_ok(vm, 0, "l2_offload", False)
    set_ok(vm, 0, "l2_offload", True)


def bridge_s0(vm):
    vm.check("ip link add br0 type bridge && "
             "ip link set s0p2 master br0 && ip link set s0p3 master br0 && "
             "ip link set br0 up")


def test_l2_offload_takes_effect(vm):
    mac = vm.check("cat /sys/class/net/s0p2/address").strip()
    # on: the bridge's own addresses become CPU entries of the switch
    set_ok(vm, 0, "l2_offload", True)
    try:
        bridge_s0(vm)
        vm.check(". /mrpsim/lib.sh && wait_for 10000 stat_gt s0p2 "
                 "sw_fdb_entries 0")
        assert any(line.split()[1:] == [mac, "cpu", "static"]
                   for line in fdb(vm, 0)), fdb(vm, 0)
    finally:
        vm.check("ip link del br0")
    vm.check(". /mrpsim/lib.sh && none() { [ \"$(ethtool_stat s0p2 "
             "sw_fdb_entries)\" = 0 ]; } && wait_for 10000 none")
    # off: the switch takes no entry, the bridge forwards in software
    set_ok(vm, 0, "l2_offload", False)
    try:
        bridge_s0(vm)
        vm.check("sleep 1")
        assert stat(vm, "s0p2", "sw_fdb_entries") == 0
        assert fdb(vm, 0) == [], fdb(vm, 0)
    finally:
        vm.check("ip link del br0")
        set_ok(vm, 0, "l2_offload", True)


def mrpctl(vm, args):
    vm.check("mrpctl kernel " + args)


def ring_up(vm):
    vm.check("ip link add br1 type bridge && "
             "ip link set s0p0 master br1 && ip link set s0p1 master br1 && "
             "ip link set s0p0 up && ip link set s0p1 up && "
             "ip link set br1 up")
    mrpctl(vm, "add br1 ring 1 primary s0p0 secondary s0p1")
    mrpctl(vm, "role br1 ring 1 mrm")
    mrpctl(vm, "test br1 ring 1 " + RING)


def ring_down(vm):
    vm.check("mrpctl kernel del br1 ring 1; ip link del br1")


def test_mrp_offload_busy_while_a_ring_is_configured(vm):
    ring_up(vm)
    try:
        set_refused(vm, 0, "mrp_offload", False, MRP_BUSY)
    finally:
        ring_down(vm)
    set_ok(vm, 0, "mrp_offload", False)
    set_ok(vm, 0, "mrp_offload", True)


def test_mrp_offload_takes_effect(vm):
    # off: the bridge sends the test frames through the driver's TX ring,
    # the engine sends none
    set_ok(vm, 0, "mrp_offload", False)
    try:
        hw = stat(vm, "s0p0", "hw_mrp_test_tx")
        ring_up(vm)
        sent = stat(vm, "s0p0", "tx_packets")
        vm.check(". /mrpsim/lib.sh && wait_for 10000 stat_gt s0p0 "
                 "tx_packets %d" % (sent + 20))
        assert stat(vm, "s0p0", "hw_mrp_test_tx") == hw
    finally:
        ring_down(vm)
        set_ok(vm, 0, "mrp_offload", True)
    # on again: the engine sends them
    ring_up(vm)
    try:
        vm.check(". /mrpsim/lib.sh && wait_for 10000 stat_gt s0p0 "
                 "hw_mrp_test_tx %d" % (hw + 10))
    finally:
        ring_down(vm)


def test_load_driver_sets_the_params(vm):
    """tests/guest/lib.sh load_driver NAME=0|1 sets devlink parameters."""
    vm.check(". /mrpsim/lib.sh && unload_driver && "
             "load_driver mrp_offload=0 l2_offload=0")
    try:
        assert params(vm, 0) == {"mrp_offload": (False, "runtime"),
                                 "l2_offload": (False, "runtime"),
                                 "mrp_assist": (False, "runtime")}, params(
                                     vm, 0)
        assert params(vm, 1)["l2_offload"][0] is False, params(vm, 1)
        assert vm.check("ls /sys/class/net | grep -c '^s[01]p'").strip() == \
            str(sum(PORTS))
    finally:
        vm.check(". /mrpsim/lib.sh && unload_driver && load_driver")
    assert params(vm, 0)["l2_offload"][0] is True
