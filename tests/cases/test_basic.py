"""Foundation: probe, port naming, traffic across cables and bridges,
link changes from the host, driver unload/reload under traffic.

Topology: a chain of four switches s0 - s1 - s2 - s3 (port 1 of each cabled
to port 0 of the next).  s1 has four ports with a loop cable between p2 and
p3; s3 has eight ports, the rest unconnected.
"""

import vm as vmlib
from vm import Topology

PORTS = [2, 4, 2, 8]


# make check-long: unloading and loading the driver under traffic.
LONG = ("rmmod_insmod_under_traffic",)


def topology():
    t = Topology()
    for n in PORTS:
        t.switch(ports=n)
    for i in range(len(PORTS) - 1):
        t.cable((i, 1), (i + 1, 0))
    t.cable((1, 2), (1, 3))
    return t


# Hosts at both ends of the chain, a bridge on each middle switch, each
# node in its own network namespace.
CHAIN = """
ip -batch - <<EOF
netns add h0
netns add b1
netns add b2
netns add h3
netns add l2
netns add l3
link set s0p1 netns h0
link set s1p0 netns b1
link set s1p1 netns b1
link set s2p0 netns b2
link set s2p1 netns b2
link set s3p0 netns h3
link set s1p2 netns l2
link set s1p3 netns l3
EOF
ip -n h0 -batch - <<EOF
addr add 10.1.0.1/24 dev s0p1
link set s0p1 up
EOF
ip -n h3 -batch - <<EOF
addr add 10.1.0.2/24 dev s3p0
link set s3p0 up
EOF
for n in 1 2; do
    ip -n b$n -batch - <<EOF
link add br0 type bridge
link set s${n}p0 master br0
link set s${n}p1 master br0
link set s${n}p0 up
link set s${n}p1 up
link set br0 up
EOF
done
ip -n l2 -batch - <<EOF
addr add 10.2.0.1/24 dev s1p2
link set s1p2 up
EOF
ip -n l3 -batch - <<EOF
addr add 10.2.0.2/24 dev s1p3
link set s1p3 up
EOF
"""

TEARDOWN = "for n in h0 b1 b2 h3 l2 l3; do ip netns del $n 2>/dev/null; done; true"


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver")


def ports_of(vm, sw):
    out = vm.check("cd /sys/class/net && ls -d s%dp* 2>/dev/null || true" % sw)
    return sorted(out.split(), key=lambda s: int(s.split("p")[1]))


def test_guest_runs_the_chosen_kernel(vm):
    """KSRC_PKG and DEBUG pick the kernel (tests/vm.py default_paths()):
    the guest must run that one, not one left over in the initramfs's
    place, or a 6.12 run would test 6.1."""
    want = vmlib.kernel_release(vm.kernel)
    got = vm.check("uname -r").strip()
    assert got == want, "guest runs %s, %s is %s" % (got, vm.kernel, want)


def test_probe_and_port_names(vm):
    out = vm.check("ls /sys/bus/pci/drivers/mrpsim | grep -c '^0000:'")
    assert int(out) == len(PORTS), "%s devices bound, want %d" % (
        out.strip(), len(PORTS))
    for sw, n in enumerate(PORTS):
        names = ports_of(vm, sw)
        assert names == ["s%dp%d" % (sw, p) for p in range(n)], names


def test_switch_ids(vm):
    ids = {}
    for sw, n in enumerate(PORTS):
        out = vm.check("cat " + " ".join(
            "/sys/class/net/s%dp%d/phys_switch_id" % (sw, p)
            for p in range(n)))
        got = set(out.split())
        assert len(got) == 1, "ports of s%d report ids %s" % (sw, got)
        ids[sw] = got.pop()
    assert len(set(ids.values())) == len(PORTS), ids


def test_ethtool_info(vm):
    out = vm.check("ethtool -i s0p0")
    assert "driver: mrpsim" in out, out
    assert "bus-info: 0000:00:10.0" in out, out
    out = vm.check("ethtool -S s0p0")
    for name in ("hw_rx_frames", "hw_tx_frames", "hw_mrp_test_tx"):
        assert name + ":" in out, "ethtool -S lacks %s:\n%s" % (name, out)


def test_unconnected_ports_have_no_carrier(vm):
    vm.check("ip link set s3p5 up")
    vm.check(". /mrpsim/lib.sh && wait_for 2000 test -e /sys/class/net/s3p5")
    assert vm.check("cat /sys/class/net/s3p5/carrier").strip() == "0"
    vm.check("ip link set s3p5 down")


def test_ping_across_cable(vm):
    vm.check(CHAIN)
    vm.check("nsenter --net=/run/netns/l2 ping -c 3 -W 5 10.2.0.2")
    vm.check("nsenter --net=/run/netns/l3 ping -c 3 -W 5 10.2.0.1")


def test_ping_across_bridged_chain(vm):
    vm.check("nsenter --net=/run/netns/h0 ping -c 3 -W 5 10.1.0.2")
    vm.check("nsenter --net=/run/netns/h3 ping -c 3 -W 5 10.1.0.1")


def test_counters_follow_traffic(vm):
    def stat(ns, dev, name):
        return int(vm.check("nsenter --net=/run/netns/%s sh -c "
                            "'. /mrpsim/lib.sh; ethtool_stat %s %s'" %
                            (ns, dev, name)))
    tx0 = stat("l2", "s1p2", "hw_tx_frames")
    rx0 = stat("l3", "s1p3", "hw_rx_frames")
    vm.check("nsenter --net=/run/netns/l2 ping -c 5 -W 5 10.2.0.2")
    tx1 = stat("l2", "s1p2", "hw_tx_frames")
    rx1 = stat("l3", "s1p3", "hw_rx_frames")
    assert tx1 - tx0 >= 5, (tx0, tx1)
    assert rx1 - rx0 >= 5, (rx0, rx1)
    out = vm.check("ip -n l2 -s link show s1p2")
    assert "RX:" in out and "TX:" in out, out


def test_set_link_changes_carrier(vm):
    wait = ". /mrpsim/lib.sh; ip netns exec %s sh -c " \
           "'. /mrpsim/lib.sh; wait_for 5000 carrier_is %s %d'"
    vm.set_link("s0p1", False)
    vm.check(wait % ("h0", "s0p1", 0))
    # The far end is not told: its carrier stays up.
    vm.check(wait % ("b1", "s1p0", 1))
    status, _ = vm.run("nsenter --net=/run/netns/h0 ping -c 1 -W 1 10.1.0.2")
    assert status != 0, "ping crossed a cable whose end is down"
    vm.set_link("s0p1", True)
    vm.check(wait % ("h0", "s0p1", 1))
    vm.check("nsenter --net=/run/netns/h0 ping -c 3 -W 5 10.1.0.2")


def test_set_link_both_ends(vm):
    wait = ". /mrpsim/lib.sh; ip netns exec %s sh -c " \
           "'. /mrpsim/lib.sh; wait_for 5000 carrier_is %s %d'"
    vm.set_link("s1p2", False)
    vm.set_link("s1p3", False)
    vm.check(wait % ("l2", "s1p2", 0))
    vm.check(wait % ("l3", "s1p3", 0))
    vm.set_link("s1p2", True)
    vm.set_link("s1p3", True)
    vm.check(wait % ("l2", "s1p2", 1))
    vm.check(wait % ("l3", "s1p3", 1))
    vm.check("nsenter --net=/run/netns/l2 ping -c 3 -W 5 10.2.0.2")


def test_event_queue_overflow_resyncs(vm):
    """300 link changes while the guest is stopped overflow the switch's
    event queue (255 entries): the driver counts the lost events and takes
    the carrier from the device, whichever way the last change went.  Both
    rounds start with the link up and make the same changes, so the queue
    keeps the same events, and the last of them contradicts one of the
    two final states: without the resync one round fails."""
    stat = ("nsenter --net=/run/netns/h0 sh -c "
            "'. /mrpsim/lib.sh; ethtool_stat s0p1 %s'")
    wait = ("ip netns exec h0 sh -c '. /mrpsim/lib.sh; wait_for 5000 "
            "carrier_is s0p1 %d'")
    for final in (False, True):
        vm.set_link("s0p1", True)
        vm.check(wait % 1)
        drops = int(vm.check(stat % "sw_evq_drops"))
        full = int(vm.check(stat % "sw_err_evq_full"))
        vm.qmp.cmd("stop")
        try:
            for k in range(300):
                vm.set_link("s0p1", k % 2 == 1)
            vm.set_link("s0p1", final)
        finally:
            vm.qmp.cmd("cont")
        vm.check(wait % int(final))
        assert int(vm.check(stat % "sw_evq_drops")) > drops
        assert int(vm.check(stat % "sw_err_evq_full")) > full
    vm.check("nsenter --net=/run/netns/h0 ping -c 3 -W 5 10.1.0.2")


def test_event_queue_halt_restarts(vm):
    """A DMA error writing an event halts the switch's event queue (the
    driver's debugfs evq_fault points the queue at the switch's own
    registers).  The device signals the event vector all the same, and the
    driver restarts the queue and takes the carrier from the device: the
    link change whose event was lost shows, and later events arrive."""
    stat = ("nsenter --net=/run/netns/h0 sh -c "
            "'. /mrpsim/lib.sh; ethtool_stat s0p1 %s'")
    wait = ("ip netns exec h0 sh -c '. /mrpsim/lib.sh; wait_for 5000 "
            "carrier_is s0p1 %d'")
    pci = vm.check("ip netns exec h0 sh -c 'basename $(readlink "
                   "/sys/class/net/s0p1/device)'").strip()
    vm.set_link("s0p1", True)
    vm.check(wait % 1)
    restarts = int(vm.check(stat % "sw_evq_restarts"))
    dma = int(vm.check(stat % "sw_err_dma"))
    vm.check("echo 1 > /sys/kernel/debug/mrpsim/%s/evq_fault" % pci)
    vm.set_link("s0p1", False)
    vm.check(wait % 0)
    assert int(vm.check(stat % "sw_evq_restarts")) == restarts + 1
    assert int(vm.check(stat % "sw_err_dma")) == dma + 1
    vm.set_link("s0p1", True)
    vm.check(wait % 1)
    vm.check("nsenter --net=/run/netns/h0 ping -c 3 -W 5 10.1.0.2")


def test_rmmod_insmod_under_traffic(vm):
    # the chain test_ping_across_cable built, unless make check-long runs
    # this test alone
    if vm.run("test -e /run/netns/h0")[0]:
        vm.check(CHAIN)
    for _ in range(3):
        vm.check("nsenter --net=/run/netns/h0 ping -i 0.02 10.1.0.2 >/tmp/ping.log 2>&1 &"
                 "nsenter --net=/run/netns/l2 ping -i 0.02 10.2.0.2 >/tmp/ping2.log 2>&1 &"
                 ". /mrpsim/lib.sh; "
                 "wait_for 10000 grep -q 'seq=3 ' /tmp/ping.log && "
                 "wait_for 10000 grep -q 'seq=3 ' /tmp/ping2.log")
        vm.check("rmmod mrpsim")
        out = vm.check("ls /sys/class/net")
        assert "s0p0" not in out and "eth" not in out, out
        vm.check("killall ping; " + TEARDOWN)
        vm.check(". /mrpsim/lib.sh && load_driver")
        for sw, n in enumerate(PORTS):
            assert len(ports_of(vm, sw)) == n
        vm.check(CHAIN)
        vm.check("nsenter --net=/run/netns/h0 ping -c 3 -W 5 10.1.0.2")
