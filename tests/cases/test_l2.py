"""L2 forwarding offload: switches in a bridge forward between their ports
in hardware, learn addresses and tell the bridge, take its static
entries, its ports' STP states and flags and its ageing time.

Topology (cable ends as s<switch>p<port>):

    A s0p1 -- s1p0 [sw1 br0] s1p1 -- s2p0 [sw2 br0] s2p1 -- s3p0 [sw3 br0]
                                                             s3p1 -- s4p0 B
    C s5p0 -- s1p2 [sw1 br1] s1p3 -- s5p1 D               sw3 br0 + veth -- V
       host -- s1p4, s1p5 [sw1 br0]

A, B, C, D are hosts on a switch port each (namespaces ha, hb, hc, hd), V
a host behind a veth in sw3's bridge (namespace hv); the host test sends
frames into sw1's br0 through two more ports.  sw1 and sw3 are
bridged in namespaces b1 and b3, sw2 in the initial namespace, where a
bridge can run STP in user space (the driver's STP states); sw1 has a
second bridge, br1, between C and D.  Nothing else talks on these cables (no IPv6, no STP, no
MRP), so the ports' counters only move with the tests' frames.
"""

import socket
import time

import vm as vmlib
from vm import Topology

# switch: ports
PORTS = {0: 2, 1: 6, 2: 2, 3: 2, 4: 2, 5: 2}
CABLES = [((0, 1), (1, 0)), ((1, 1), (2, 0)), ((2, 1), (3, 0)),
          ((3, 1), (4, 0)), ((1, 2), (5, 0)), ((1, 3), (5, 1))]
# the namespace each port is in
NS = {"s0p1": "ha", "s1p0": "b1", "s1p1": "b1", "s1p2": "b1", "s1p3": "b1",
      "s1p4": "b1", "s1p5": "b1",
      "s2p0": None, "s2p1": None, "s3p0": "b3", "s3p1": "b3",
      "s4p0": "hb", "s5p0": "hc", "s5p1": "hd"}
TRANSIT = ["s1p0", "s1p1", "s2p0", "s2p1", "s3p0", "s3p1"]
A, B, V, BR2 = "10.1.0.1", "10.1.0.2", "10.1.0.9", "10.1.0.102"
C, D = "10.2.0.1", "10.2.0.2"
UNKNOWN = "02:00:00:00:00:98"    # nobody has it
STATIC = "02:00:00:00:00:99"     # a static entry on s2p1, nobody has it
VMAC = "02:00:00:00:00:09"       # V's
TEMP = "02:00:00:00:0a:01"       # A's for one frame


def topology():
    t = Topology()
    for sw in sorted(PORTS):
        t.switch(ports=PORTS[sw])
    for a, b in CABLES:
        t.cable(a, b)
    for port in (4, 5):         # the host's ways into sw1's br0
        t.injector(port=(1, port))
    return t


def mac(sw, port):
    """A port's power-on address: the switch's base plus the port."""
    return "52:54:00:4d:%02x:%02x" % (sw, port)


def pci(sw):
    return "0000:00:%02x.0" % Topology.pci_addr(sw)[1]


def fdb_file(sw):
    return "/sys/kernel/debug/mrpsim/%s/fdb" % pci(sw)


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def nsx(ns, cmd):
    """A shell command in namespace ns (None: the initial one), with lib.sh
    (nsenter: ip netns exec is slow in a debug guest)."""
    # busybox's sh, which nsenter starts, prefers its own ip applet
    cmd = "sh -c %s" % shquote(". /mrpsim/lib.sh; ip() { /usr/sbin/ip "
                               "\"$@\"; }; " + cmd)
    return "nsenter --net=/run/netns/%s %s" % (ns, cmd) if ns else cmd


SETUP = """
set -e
ip -batch - <<EOF
netns add ha
netns add hb
netns add hc
netns add hd
netns add hv
netns add b1
netns add b3
%(moves)s
EOF
host() { ip -n $1 addr add $3/24 dev $2; ip -n $1 link set $2 up; }
host ha s0p1 %(A)s
host hb s4p0 %(B)s
host hc s5p0 %(C)s
host hd s5p1 %(D)s
ip -n b1 -batch - <<EOF
link add br0 type bridge
link add br1 type bridge
link set s1p0 master br0
link set s1p1 master br0
link set s1p4 master br0
link set s1p5 master br0
link set s1p2 master br1
link set s1p3 master br1
link set s1p0 up
link set s1p1 up
link set s1p2 up
link set s1p3 up
link set s1p4 up
link set s1p5 up
link set br0 up
link set br1 up
EOF
ip -batch - <<EOF
link add br0 type bridge
link set s2p0 master br0
link set s2p1 master br0
link set s2p0 up
link set s2p1 up
link set br0 up
addr add %(BR2)s/24 dev br0
EOF
ip -n b3 -batch - <<EOF
link add br0 type bridge
link set s3p0 master br0
link set s3p1 master br0
link add vb3 type veth peer name vh netns hv
link set vb3 master br0
link set s3p0 up
link set s3p1 up
link set vb3 up
link set br0 up
EOF
ip -n hv link set vh address %(VMAC)s
host hv vh %(V)s
""" % {"moves": "\n".join("link set %s netns %s" % kv
                          for kv in NS.items() if kv[1]),
       "A": A, "B": B, "C": C, "D": D, "V": V, "BR2": BR2, "VMAC": VMAC}


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver l2_offload=1")
    out = vm.check("dmesg | grep 'L2 forwarding'")
    assert out.count("L2 forwarding offloaded") == len(PORTS), out
    vm.check(SETUP)
    # every host reaches the others once the ports' links are up
    vm.check(nsx("ha", "wait_for 30000 ping -c 1 -W 1 %s && "
                 "ping -c 1 -W 5 %s && ping -c 1 -W 5 %s" % (B, V, BR2)))
    vm.check(nsx("hc", "wait_for 30000 ping -c 1 -W 1 %s" % D))


def stats(vm, *ports):
    """{port: {counter: value}} of ethtool -S, in one guest command."""
    out = vm.check("\n".join("echo @@%s; %s" % (p, nsx(NS[p], "ethtool -S " + p))
                             for p in ports))
    res, cur = {}, None
    for line in out.splitlines():
        if line.startswith("@@"):
            cur = res.setdefault(line[2:], {})
        elif ":" in line and cur is not None:
            k, v = line.split(":", 1)
            if v.strip().isdigit():
                cur[k.strip()] = int(v)
    return res


def delta(before, after, name):
    return {p: after[p][name] - before[p][name] for p in before}


def ping(vm, ns, dst, count=3, interval="0.1", ok=True):
    status, out = vm.run(nsx(ns, "ping -c %d -i %s -W 2 %s" % (
        count, interval, dst)))
    if ok:
        assert status == 0 and "%d packets received" % count in out, out
    return out


def hw_fdb(vm, sw):
    """The switch's FDB as its debugfs file shows it: {mac: (port, kind)}."""
    out = vm.check("cat %s" % fdb_file(sw))
    return {f[1]: (f[2], f[3]) for f in (line.split()
                                          for line in out.splitlines())}


def bridge_fdb(vm, ns, br="br0"):
    return vm.check(nsx(ns, "bridge fdb show br %s" % br))


def wait_bridge_fdb(vm, ns, pattern, present=True, timeout_ms=10000):
    """Wait until a line of the bridge's FDB matches pattern (an extended
    regular expression), or none does."""
    test = "bridge fdb show br br0 | grep -Eq %s" % shquote(pattern)
    if not present:
        test = "! { %s; }" % test
    status, out = vm.run(nsx(ns, "wait_for %d sh -c %s" % (
        timeout_ms, shquote(test))))
    assert status == 0, "%s: FDB %s %r after %d ms:\n%s" % (
        ns, "lacks" if present else "still has", pattern, timeout_ms,
        bridge_fdb(vm, ns))


def test_known_unicast_stays_in_hardware(vm):
    """Once the switches learned A and B, the frames between them cross
    the three bridged switches without reaching their CPUs."""
    ping(vm, "ha", B)                  # learned by now, both ways
    before = stats(vm, *TRANSIT)
    ping(vm, "ha", B, count=50, interval="0.02")
    after = stats(vm, *TRANSIT)
    cpu = delta(before, after, "hw_rx_cpu")
    fwd = delta(before, after, "hw_l2_fwd")
    assert all(n <= 2 for n in cpu.values()), \
        "transit ports handed frames to the CPU: %s" % cpu
    assert all(n >= 50 for n in fwd.values()), \
        "transit ports did not forward in hardware: %s" % fwd


def test_learned_entries_are_offloaded(vm):
    """The addresses a switch learned are in its bridge as extern_learn
    offload entries, on the ports the switch has them on."""
    a, b = mac(0, 1), mac(4, 0)
    for sw, ns in ((1, "b1"), (2, None), (3, "b3")):
        wait_bridge_fdb(vm, ns, "^%s dev s%dp0 extern_learn offload" %
                        (a, sw))
        wait_bridge_fdb(vm, ns, "^%s dev s%dp1 extern_learn offload" %
                        (b, sw))
        fdb = hw_fdb(vm, sw)
        assert fdb.get(a) == ("p0", "learned") and \
            fdb.get(b) == ("p1", "learned"), fdb


def test_bridge_addresses_go_to_the_cpu_only(vm):
    """The bridge's own addresses are CPU entries: frames to sw2's bridge
    reach its CPU and are not flooded on to sw3."""
    fdb = hw_fdb(vm, 2)
    for p in (0, 1):
        assert fdb.get(mac(2, p)) == ("cpu", "static"), fdb
    ping(vm, "ha", BR2)
    before = stats(vm, "s2p0", "s3p0")
    ping(vm, "ha", BR2, count=10)
    after = stats(vm, "s2p0", "s3p0")
    assert delta(before, after, "hw_rx_frames")["s3p0"] == 0, \
        "frames to the bridge went on to sw3"
    assert delta(before, after, "hw_rx_cpu")["s2p0"] >= 10


def test_flood_flags(vm):
    """Unknown unicast reaches sw3 through sw2, until sw2's port towards
    it has flood off."""
    vm.check(nsx("ha", "ip neigh replace 10.1.0.98 lladdr %s dev s0p1 "
                 "nud permanent" % UNKNOWN))
    try:
        for flood, want in (("on", True), ("off", False)):
            vm.check(nsx(None, "bridge link set dev s2p1 flood %s" % flood))
            before = stats(vm, "s2p0", "s3p0")
            ping(vm, "ha", "10.1.0.98", ok=False)
            after = stats(vm, "s2p0", "s3p0")
            assert delta(before, after, "hw_l2_flood")["s2p0"] >= 3
            got = delta(before, after, "hw_rx_frames")["s3p0"]
            assert got >= 3 if want else got == 0, \
                "flood %s: %d frames reached sw3" % (flood, got)
        # broadcasts still pass: that is another flag
        ping(vm, "ha", B)
    finally:
        vm.check(nsx(None, "bridge link set dev s2p1 flood on"))


def test_static_entry_in_hardware(vm):
    """A static entry goes to the switch and forwards known unicast, even
    to a port that does not take floods; deleted, it is gone."""
    vm.check(nsx("ha", "ip neigh replace 10.1.0.99 lladdr %s dev s0p1 "
                 "nud permanent" % STATIC))
    vm.check(nsx(None, "bridge link set dev s2p1 flood off && bridge fdb "
                 "add %s dev s2p1 master static" % STATIC))
    try:
        wait_bridge_fdb(vm, None, "^%s dev s2p1 .*static.*offload|"
                        "^%s dev s2p1 .*offload.*static" % (STATIC, STATIC))
        assert hw_fdb(vm, 2).get(STATIC) == ("p1", "static")
        for present in (True, False):
            before = stats(vm, "s2p0", "s3p0")
            ping(vm, "ha", "10.1.0.99", ok=False)
            after = stats(vm, "s2p0", "s3p0")
            got = delta(before, after, "hw_rx_frames")["s3p0"]
            if present:
                assert got >= 3, "%d frames through the static entry" % got
                assert delta(before, after, "hw_l2_fwd")["s2p0"] >= 3
                assert delta(before, after, "hw_rx_cpu")["s2p0"] == 0
                vm.check(nsx(None, "bridge fdb del %s dev s2p1 master "
                             "static" % STATIC))
                vm.check(nsx(None, "wait_for 10000 sh -c '! grep -q %s "
                             "%s'" % (STATIC, fdb_file(2))))
            else:
                assert got == 0, "%d frames flooded to a port with flood " \
                    "off" % got
    finally:
        vm.run(nsx(None, "bridge fdb del %s dev s2p1 master static" %
                   STATIC))
        vm.check(nsx(None, "bridge link set dev s2p1 flood on"))


def test_blocking_port_forwards_nothing(vm):
    """sw2's port towards sw3 blocking: A and B are cut off, the switch
    sends nothing out of it and forgets B, which it learned there;
    forwarding again, they talk.  STP runs
    in user space (a /sbin/bridge-stp that accepts) so that the port keeps
    the state the test gives it: the kernel's STP, or none, would make a
    designated port forward again at once."""
    vm.check("printf '#!/bin/sh\\nexit 0\\n' >/sbin/bridge-stp && "
             "chmod 755 /sbin/bridge-stp && "
             "ip link set br0 type bridge stp_state 1")
    try:
        assert "stp_state 2 " in vm.check("ip -d link show br0")
        vm.check("bridge link set dev s2p1 state 4")
        out = vm.check("bridge link show dev s2p1")
        assert "state blocking" in out, out
        before = stats(vm, "s2p0", "s2p1", "s3p0")
        out = ping(vm, "ha", B, ok=False)
        assert " 0 packets received" in out, out
        after = stats(vm, "s2p0", "s2p1", "s3p0")
        assert delta(before, after, "hw_tx_frames")["s2p1"] == 0
        assert delta(before, after, "hw_rx_frames")["s3p0"] == 0
        # what the port learned is gone, from the bridge as well
        assert mac(4, 0) not in hw_fdb(vm, 2)
        wait_bridge_fdb(vm, None, "^%s " % mac(4, 0), present=False)
    finally:
        vm.check("bridge link set dev s2p1 state 3; "
                 "ip link set br0 type bridge stp_state 0; "
                 "rm -f /sbin/bridge-stp")
    ping(vm, "ha", B)


def test_two_bridges_on_one_switch_stay_apart(vm):
    """sw1 forwards for br0 (A's side) and br1 (C and D) in hardware, and
    nothing crosses from one to the other, known unicast included.  (A few
    frames of the hosts' ARP may cross a bridge meanwhile: a leak would be
    every one of the 20 sent.)"""
    ports = ("s1p0", "s1p1", "s1p2", "s1p3")
    ping(vm, "hc", D, count=10)
    vm.check(nsx("hc", "ip neigh replace 10.2.0.77 lladdr %s dev s5p0 "
                 "nud permanent" % UNKNOWN))
    before = stats(vm, *ports)
    ping(vm, "hc", "10.2.0.77", count=20, interval="0.02", ok=False)
    after = stats(vm, *ports)
    assert delta(before, after, "hw_l2_flood")["s1p2"] >= 20
    tx = delta(before, after, "hw_tx_frames")
    assert tx["s1p3"] >= 20, "br1 did not flood it: %s" % tx
    assert tx["s1p0"] <= 2 and tx["s1p1"] <= 2, "br1 leaked: %s" % tx

    # C is known on s1p2: a frame for C in br0 floods br0, never to br1
    assert hw_fdb(vm, 1).get(mac(5, 0)) == ("p2", "learned")
    vm.check(nsx("ha", "ip neigh replace 10.1.0.77 lladdr %s dev s0p1 "
                 "nud permanent" % mac(5, 0)))
    before = stats(vm, *ports)
    ping(vm, "ha", "10.1.0.77", count=20, interval="0.02", ok=False)
    after = stats(vm, *ports)
    tx = delta(before, after, "hw_tx_frames")
    assert tx["s1p1"] >= 20, "br0 did not flood it: %s" % tx
    assert tx["s1p2"] <= 2 and tx["s1p3"] <= 2, "br0 leaked: %s" % tx


def test_veth_port_without_duplicates(vm):
    """V sits behind a veth in sw3's bridge: its frames cross the CPU once,
    none comes twice, and frames for V go to sw3's CPU only (a CPU entry
    for an address behind a foreign port), not on to B."""
    for ns, dst in (("hv", A), ("ha", V), ("hv", B), ("hb", V)):
        out = ping(vm, ns, dst, count=10, interval="0.05")
        assert "DUP" not in out, out
    out = vm.check(nsx("ha", "arping -c 3 -w 5 -I s0p1 %s" % V))
    assert "Received 3 response" in out, out
    assert hw_fdb(vm, 3).get(VMAC) == ("cpu", "static"), hw_fdb(vm, 3)
    before = stats(vm, "s3p0", "s4p0")
    ping(vm, "ha", V, count=10, interval="0.05")
    after = stats(vm, "s3p0", "s4p0")
    assert delta(before, after, "hw_rx_frames")["s4p0"] <= 1, \
        "frames for V flooded on to B"


def test_lost_events_rescan(vm):
    """FDB events the switch could not write (its event queue halted on a
    DMA error): the driver reads every slot, and the bridge learns of the
    entries all the same."""
    fault = "/sys/kernel/debug/mrpsim/%s/evq_fault" % pci(2)
    rescans = stats(vm, "s2p0")["s2p0"]["sw_fdb_rescans"]
    vm.check(nsx(None, "ip link set dev s2p0 type bridge_slave fdb_flush"))
    wait_bridge_fdb(vm, None, "^%s " % mac(0, 1), present=False)
    vm.check("echo 1 > %s" % fault)
    ping(vm, "ha", B)
    wait_bridge_fdb(vm, None, "^%s dev s2p0 extern_learn offload" %
                    mac(0, 1))
    assert stats(vm, "s2p0")["s2p0"]["sw_fdb_rescans"] > rescans


def frame(dst, src, seq):
    """An Ethernet frame of the local experimental EtherType."""
    return (bytes.fromhex(dst.replace(":", "")) +
            bytes.fromhex(src.replace(":", "")) + b"\x88\xb5" +
            seq.to_bytes(4, "big") + bytes(42))


def flood_mac(k):
    return "02:00:00:01:%02x:%02x" % (k >> 8, k & 0xff)


def learned(vm):
    """The flood's addresses in sw1's FDB and in its bridge's, each a
    {mac: port}, read in one guest command."""
    out = vm.fetch("grep ' 02:00:00:01:' %s; echo @@; %s" % (
        fdb_file(1), nsx("b1", "bridge fdb show br br0 | grep "
                         "'^02:00:00:01:.*extern_learn'")))
    hw, _, br = out.partition("@@")
    hw = {f[1]: "s1" + f[2] for f in (x.split() for x in hw.splitlines())
          if f and f[3] == "learned"}
    br = {f[0]: f[2] for f in (x.split() for x in br.splitlines()) if f}
    return hw, br


def test_event_flood(vm):
    """2000 new addresses from the host through two ports of sw1's br0,
    faster than the guest reads events: the switch learns each one and
    raises an event, more at once than its event queue holds.  The driver
    reads the whole FDB again: in the end the bridge has every address the
    switch learned, on its port.  A flush of the two ports takes them all
    away again."""
    before = stats(vm, "s1p4")["s1p4"]
    ports = [vm.topo.injectors[n]["qemu"] for n in (0, 1)]
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
             for _ in ports]
    try:
        for k in range(2000):
            # to itself: a frame to an address on its ingress port goes
            # nowhere
            m = flood_mac(k)
            socks[k % 2].sendto(frame(m, m, k), ("127.0.0.1", ports[k % 2]))
    finally:
        for sk in socks:
            sk.close()
    vm.check(nsx("b1", "wait_for 30000 stat_still s1p4 hw_l2_learned"))
    after = stats(vm, "s1p4")["s1p4"]
    assert after["sw_evq_drops"] > before["sw_evq_drops"], \
        "no event was lost: %s" % after
    assert after["sw_fdb_rescans"] > before["sw_fdb_rescans"], after
    deadline = time.monotonic() + 60
    while True:
        hw, br = learned(vm)
        if hw == br:
            break
        assert time.monotonic() < deadline, \
            "switch and bridge disagree on %d addresses, e.g. %s" % (
                len(set(hw.items()) ^ set(br.items())),
                sorted(set(hw.items()) ^ set(br.items()))[:5])
        time.sleep(1)   # the driver tells the bridge when it gets to it
    assert len(hw) > 500, "the switch learned only %d addresses" % len(hw)

    vm.check(nsx("b1", "ip link set dev s1p4 type bridge_slave fdb_flush && "
                 "ip link set dev s1p5 type bridge_slave fdb_flush && "
                 "wait_for 60000 sh -c '! grep -q \" 02:00:00:01:\" %s'" %
                 fdb_file(1)), timeout=300)
    assert learned(vm) == ({}, {})
    ping(vm, "ha", B)


def test_flush_empties_the_hardware(vm):
    """IFLA_BRPORT_FLUSH (what mrpd does on a topology change) and bridge
    fdb flush reach the switch: the learned entries of the bridge's ports
    go (TEMP, an address A sends from once, cannot come back), the CPU
    entries stay, and so do sw1's other bridge's entries."""
    vm.check(nsx("ha", "ip link set s0p1 address %s && ping -c 1 -W 5 %s; "
                 "st=$?; ip link set s0p1 address %s; exit $st" % (
                     TEMP, B, mac(0, 1))))
    ping(vm, "hc", D)
    for sw, ns, cmd in (
            (2, None, "ip link set dev s2p0 type bridge_slave fdb_flush && "
             "ip link set dev s2p1 type bridge_slave fdb_flush"),
            (1, "b1", "bridge fdb flush dev br0 dynamic")):
        wait_bridge_fdb(vm, ns, "^%s dev s%dp0 extern_learn offload" %
                        (TEMP, sw))
        assert hw_fdb(vm, sw).get(TEMP) == ("p0", "learned")
        vm.check(nsx(ns, cmd))
        vm.check(nsx(ns, "wait_for 10000 sh -c '! grep -q %s %s'" % (
            TEMP, fdb_file(sw))))
        wait_bridge_fdb(vm, ns, "^%s " % TEMP, present=False)
        fdb = hw_fdb(vm, sw)
        assert ("cpu", "static") in fdb.values(), fdb
        # the driver's count of the device's entries agrees with them
        # (read one after the other: a frame learned in between differs
        # for a moment, so they are read until they agree)
        port = "s%dp0" % sw
        out = vm.run(nsx(NS[port], "same() { [ \"$(grep -c . %s)\" = "
                         "\"$(ethtool_stat %s sw_fdb_entries)\" ]; }; "
                         "wait_for 5000 same; grep -c . %s; ethtool_stat %s "
                         "sw_fdb_entries" % (fdb_file(sw), port,
                                             fdb_file(sw), port)))[1]
        lines, count = out.split()
        assert lines == count, out
    fdb = hw_fdb(vm, 1)
    assert fdb.get(mac(5, 0)) == ("p2", "learned") and \
        fdb.get(mac(5, 1)) == ("p3", "learned"), "br1's entries went: %s" % fdb
    ping(vm, "ha", B)


def test_learned_entries_age_out(vm):
    """With a 2 s ageing time the switch forgets A and B once they are
    quiet, and so does its bridge."""
    vm.check(nsx("b3", "ip link set br0 type bridge ageing_time 200"))
    try:
        ping(vm, "ha", B)
        wait_bridge_fdb(vm, "b3", "^%s dev s3p0 extern_learn" % mac(0, 1))
        wait_bridge_fdb(vm, "b3", "extern_learn", present=False,
                        timeout_ms=20000)
        fdb = vm.check("cat %s" % fdb_file(3))
        assert "learned" not in fdb, fdb + bridge_fdb(vm, "b3")
    finally:
        vm.check(nsx("b3", "ip link set br0 type bridge ageing_time 30000"))
    ping(vm, "ha", B)


def test_vlan_filtering_refused(vm):
    """The switches forward without VLANs: a bridge of their ports cannot
    turn VLAN filtering on, and a port cannot join a VLAN-aware bridge."""
    msg = "VLAN filtering is not offloaded"
    status, out = vm.run(nsx(None, "ip link set br0 type bridge "
                             "vlan_filtering 1 2>&1"))
    assert status != 0, out
    assert "vlan_filtering 0" in vm.check(nsx(None, "ip -d link show br0"))
    # a bridge of no switch port tells whether the kernel filters at all
    status, out2 = vm.run(nsx("hc", "ip link add brv type bridge "
                              "vlan_filtering 1 2>&1"))
    if status:
        assert msg not in out
        raise vmlib.Skip("the guest kernel has no VLAN filtering (%s): the "
                         "driver's refusal is never asked for" %
                         out2.strip())
    try:
        assert msg in out, out
        status, out = vm.run(nsx("hc", "ip link set s5p0 master brv 2>&1"))
        assert status != 0 and msg in out, out
    finally:
        vm.run(nsx("hc", "ip link del brv"))
    ping(vm, "hc", D)


def test_counters_named(vm):
    out = stats(vm, "s2p0")["s2p0"]
    for name in ("hw_rx_cpu", "hw_l2_fwd", "hw_l2_flood", "hw_l2_drop",
                 "hw_l2_learned", "hw_l2_learn_full", "hw_l2_queue_drop",
                 "sw_fdb_entries", "sw_fdb_add_full", "sw_fdb_rescans",
                 "sw_fdb_stale_events"):
        assert name in out, sorted(out)
