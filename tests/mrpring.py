"""A ring of MRP nodes for the offload tests, configured through the
kernel's netlink API with `mrpctl kernel` (no mrpd: the test itself plays
the manager's part, so that it sees exactly what the kernel reports).

Node i is switch i in network namespace n<i>: a bridge br0 over s<i>p0
(primary ring port) and s<i>p1 (secondary).  Node 0 is the MRM, the others
are MRCs.  The ring has vm.topo.ring_n nodes (4 unless a test asks for
more); cable c joins s<c>p1 to s<c+1>p0.  The same scenarios run on the hardware path (mrpsim with its MRP
engine) and the software fallback (mrpsim with mrp=off, or the driver's
devlink parameter mrp_offload false), and on plain veth rings for the
bridge patch.
"""

import json
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import time

from vm import Topology

N = 4                 # nodes in the ring, unless a test asks for more
RING = 1              # MRP ring id
PERIOD = 3600000000   # test period, us: longer than any test run


def nodes(vm):
    """Number of nodes in the ring of a VM."""
    return vm.topo.ring_n or N


def ring_ports(vm):
    """Name patterns of node i's primary and secondary ring ports: the
    switch ports s<i>p0 and s<i>p1, or what a test set in vm.ring_ports
    (veth pairs)."""
    return getattr(vm, "ring_ports", ("s%dp0", "s%dp1"))


def cable_ends(vm, c):
    """Ports at the ends of cable c: node c's secondary (s<c>p1), node
    c+1's primary (s<c+1>p0).  For switch ports these are also the QEMU
    netdevs of the cable."""
    p = ring_ports(vm)
    return p[1] % c, p[0] % ((c + 1) % nodes(vm))


def cut(vm, c, up=False):
    """Cut cable c at both ends (up=True: restore it): the host sets the
    QEMU links of a switch cable, a veth pair is set down in the guest."""
    a, b = cable_ends(vm, c)
    if not hasattr(vm, "ring_ports"):       # switch ports, QEMU cables
        vm.set_link(a, up)
        vm.set_link(b, up)
    else:
        n = nodes(vm)
        vm.check("ip -n %s link set %s %s && ip -n %s link set %s %s" % (
            ns(c), a, "up" if up else "down", ns((c + 1) % n), b,
            "up" if up else "down"))


def topology(mrp=True, dumps=("s0p0", "s2p0"), n=N):
    t = Topology.ring(n, mrp=mrp)
    for nd in dumps:
        t.dump(nd, nd + ".pcap")
    return t


def ns(i):
    return "n%d" % i


def in_ns(i, cmd, sysfs=False):
    """A guest shell command run in node i's namespace with lib.sh.

    nsenter enters the network namespace alone, in 0.15 s; "ip netns exec"
    (0.9 s in a debug guest) also mounts a /sys of the namespace, which
    only a command that reads a port's /sys/class/net needs (sysfs)."""
    if sysfs:
        return "ip netns exec %s sh -c %s" % (
            ns(i), shquote(". /mrpsim/lib.sh; " + cmd))
    return nsx(i, "sh -c %s" % shquote(". /mrpsim/lib.sh; " + cmd))


def build_nodes(vm, ports=("s%dp0", "s%dp1")):
    """Namespaces and bridges; ports already exist in the init namespace.
    One ip -batch per namespace: spawning processes is slow in the guest."""
    n = nodes(vm)
    init = []
    for i in range(n):
        init += ["netns add %s" % ns(i),
                 "link set %s netns %s" % (ports[0] % i, ns(i)),
                 "link set %s netns %s" % (ports[1] % i, ns(i))]
    script = ["set -e", "ip -batch - <<EOF"] + init + ["EOF"]
    for i in range(n):
        script += bridge_script(i, ports)
    vm.check("\n".join(script))


def bridge_script(i, ports=("s%dp0", "s%dp1"), secondary_up=True):
    """Shell lines that give node i (its ports already in its namespace)
    its bridge br0 with address 10.0.0.<i+1>.  With secondary_up False
    the second port stays down: a manager joining a whole ring brings it
    up only once MRP blocks it, or broadcasts loop meanwhile and leave
    the other nodes' FDBs pointing the wrong way."""
    p, s = ports[0] % i, ports[1] % i
    return ["ip -n %s -batch - <<EOF" % ns(i),
            "link add br0 type bridge",
            "link set %s master br0" % p,
            "link set %s master br0" % s,
            "addr add 10.0.0.%d/24 dev br0" % (i + 1),
            "link set %s up" % p,
            "link set %s %s" % (s, "up" if secondary_up else "down"),
            "link set br0 up",
            "EOF"]


def nsx(i, cmd):
    """A guest shell command line run in node i's namespace (nsenter:
    starting ip for "ip netns exec" costs seconds in a debug guest)."""
    return "nsenter --net=/run/netns/%s %s" % (ns(i), cmd)


def kernel_del(vm):
    """Delete the ring configure_mrp() made through the kernel API, on
    every node (the ports go back to forwarding)."""
    vm.check("\n".join(nsx(i, "mrpctl kernel del br0 ring %d || exit 1" %
                            RING) for i in range(nodes(vm))))


def start_mrpd(vm):
    """mrpd in every node (one per network namespace), logging every
    action and MRP control frame (-v) to /tmp/mrpd-n<i>.log for the
    assertions that fail to show; its pid in /run/mrpd-n<i>.pid."""
    vm.check("for i in $(seq 0 %d); do nsenter --net=/run/netns/n$i mrpd "
             "-D -v -l /tmp/mrpd-n$i.log -p /run/mrpd-n$i.pid || exit 1; "
             "done" % (nodes(vm) - 1))


def mrpd_rings(vm, interval=None, profile=200, react=None, roles=None,
               options=""):
    """(Re)create the ring in every node's mrpd: node 0 the manager (or the
    roles given as {node: "mra prio 0x9000", ...}), the other nodes
    clients.  interval overrides the profile's test interval (us), react
    (0 or 1) whether the manager reacts to MRP_LinkChange (mrpd's default
    when None); options go to every node's `mrpctl add` as they are.

    The ring is closed last, as when a ring is commissioned: with one cable
    cut, the nodes are configured, then the cable comes back.  The clients
    go first, all at once, then the manager or MRAs: a node not configured yet
    floods MRP frames like any multicast, in software, and a manager
    started before them sends its test frames across every client still
    waiting, a slow CPU path in a TCG guest.  With 50 switches (25 of them
    on each side of the cut) that held the guest's softirqs back for 5-7 s
    until the last client was configured: NETDEV WATCHDOG timeouts.
    Three MRAs started at the same moment once the clients are up is also
    the case that once left the best of them a client of itself for good
    (ring14's three_mras: mrpd took the loss report behind a closed one
    that was old news for no change; mrp_loc_notify() now passes it on).
    On a closed ring, a client's MRP_LinkUp would also circulate with no
    manager to take it."""
    n = nodes(vm)
    ports = ring_ports(vm)
    extra = " interval %d max-miss 3" % interval if interval else ""
    extra += " " + options if options else ""
    roles = dict(roles or {0: "mrm"})
    if react is not None:
        roles = {i: r + " react %d" % react if r.startswith("mrm") else r
                 for i, r in roles.items()}

    def add(i):
        return "{ %s; %s || echo \"node %d failed\"; } &" % (
            nsx(i, "mrpctl del br0 ring %d >/dev/null 2>&1" % RING),
            nsx(i, "mrpctl add br0 ring %d primary %s secondary %s "
                "role %s profile %d%s" % (RING, ports[0] % i, ports[1] % i,
                                         roles.get(i, "mrc"), profile,
                                         extra)), i)

    managers = [i for i in range(n)
                if not roles.get(i, "mrc").startswith("mrc")]
    rest = [i for i in range(n) if i not in managers]
    cut(vm, n // 2)
    try:
        out = "".join(vm.check("\n".join([add(i) for i in group] +
                                         ["wait"]))
                      for group in (rest, managers) if group)
    finally:
        cut(vm, n // 2, up=True)
    assert "failed" not in out, out


def settle(vm, quiet_ms, tries=10, node=0):
    """Wait until the manager's ports stay quiet (no ring-open report) for
    quiet_ms.  Returns how many windows saw a ring-open report before
    that; fails after tries windows."""
    flaps = 0
    for _ in range(tries):
        status, out = vm.run(nsx(node, "mrpctl -j monitor --open --count 1 "
                                 "--timeout %d" % quiet_ms), timeout=120)
        if status == 3:                 # timed out: nothing reported
            return flaps
        assert status == 0, "mrpctl monitor failed (%d): %s" % (status, out)
        flaps += 1
        wait_ring(vm, node, "ring", "closed")
    raise AssertionError("the ring never stayed closed for %d ms (%d tries)"
                         % (quiet_ms, tries))


def mrpd_state(vm, which=None):
    """{node: mrpd's JSON state of ring RING} for every node (or the nodes
    in which), read with one guest command."""
    which = list(range(nodes(vm))) if which is None else list(which)
    out = vm.check("\n".join(
        "echo \"@@node %d\"; %s" % (i, nsx(i, "mrpctl -j show"))
        for i in which))
    state, node = {}, None
    for line in out.splitlines():
        if line.startswith("@@node "):
            node = int(line.split()[1])
        elif line.startswith("{") and node is not None:
            for r in json.loads(line)["rings"]:
                if r["bridge"] == "br0" and r["ring"] == RING:
                    state[node] = r
    missing = set(which) - set(state)
    assert not missing, "no ring in mrpd on nodes %s:\n%s" % (
        sorted(missing), out)
    return state


def wait_link_heard(vm, c, up, timeout_s=20):
    """Wait until the mrpd at each end of cable c has heard that its port
    there went down (up=False) or up.  The kernel tells userspace of a
    carrier change up to a second late (linkwatch batches those it does
    not find urgent), while the switches' engines see the link at once: a
    cable restored before its ends heard of the cut has their mrpd send
    MRP_LinkDown when the ring is whole again, the manager opens it once
    more, and that is a flap shorter than what the kernel reports in
    time, not the cut the scenario means."""
    ends = list(zip((c, (c + 1) % nodes(vm)), cable_ends(vm, c)))
    want = "up" if up else "down"
    deadline = time.monotonic() + timeout_s
    while True:
        st = mrpd_state(vm, [node for node, _ in ends])
        links = {(node, p["name"]): p["link"] for node, _ in ends
                 for p in st[node]["ports"]}
        if all(links.get(e) == want for e in ends):
            return
        assert time.monotonic() < deadline, (
            "cable %d: mrpd never heard its ends go %s in %d s: %s" % (
                c, want, timeout_s, links))
        time.sleep(0.05)     # polled: mrpd has no wait for a port's link


def wait_ring(vm, node, key, value, timeout_ms=30000):
    """Wait in node's mrpd until its ring gets there (mrpctl wait)."""
    status, out = vm.run(nsx(node, "mrpctl wait br0 ring %d %s %s timeout "
                             "%d" % (RING, key, value, timeout_ms)),
                         timeout=timeout_ms / 1000 + 60)
    assert status == 0, "node %d: ring never got %s %s in %d ms: %s\n%s" % (
        node, key, value, timeout_ms, out, mrpd_log_tail(vm, node))


# mrpd -v lines that a ring's TopologyChange series repeats on every node
ROUTINE_LOG = ("TopologyChange", "send-topo", "flush")


def mrpd_log_tail(vm, node, lines=60, skip=ROUTINE_LOG):
    """The last lines of a node's mrpd -v log (start_mrpd()), and what it
    shows now, to explain an assertion on its ring.  Lines holding any
    of skip are left out: on a big ring the TopologyChange series crowds
    out the lines that explain a failure."""
    grep = "grep -v %s " % " ".join("-e '%s'" % s for s in skip) \
        if skip else "cat "
    _, out = vm.run("%s/tmp/mrpd-n%d.log | tail -n %d; %s" % (
        grep, node, lines, nsx(node, "mrpctl show")))
    return out


def bring_up(vm, interval, driver_args=""):
    """Load the driver, build the nodes, configure the ring."""
    vm.check(". /mrpsim/lib.sh && load_driver " + driver_args)
    build_nodes(vm)
    configure_mrp(vm, interval)


def configure_mrp(vm, interval, max_miss=3, ports=("s%dp0", "s%dp1"),
                  only=None):
    """MRM on node 0 (secondary blocked, ring closed), MRCs elsewhere
    (or only on the nodes listed in only).  The MRCs first, so that the
    ring is whole when the test starts."""
    for i in reversed(range(nodes(vm))):
        if only is not None and i not in only:
            continue
        p, s = ports[0] % i, ports[1] % i
        role = "mrm" if i == 0 else "mrc"
        cmds = ["mrpctl kernel add br0 ring %d primary %s secondary %s" %
                (RING, p, s),
                "mrpctl kernel role br0 ring %d %s" % (RING, role)]
        if i == 0:
            cmds += ["mrpctl kernel port-state %s blocked" % s,
                     "mrpctl kernel state br0 ring %d closed" % RING,
                     "mrpctl kernel test br0 ring %d interval %d max-miss %d "
                     "period %d" % (RING, interval, max_miss, PERIOD)]
        vm.check(in_ns(i, " && ".join(cmds)))


def arm(vm, ring_open, react, ports=("s0p0", "s0p1")):
    """Before the host acts on a cable: listen in the MRM's namespace for
    ring-open notifications with value ring_open on every one of ports,
    then react as a manager would, at once.

    The notifications are read straight from rtnetlink by a monitor that
    stops at the last port: the software path repeats them every test
    interval (or for every test frame) until the manager reacts, more than
    a busy TCG guest can log and read back in time."""
    # The reaction runs on the reading side of the pipe: the monitor only
    # notices that nobody reads when it writes again (or times out).
    vm.check(in_ns(0, "rm -f /tmp/armed /tmp/done /tmp/events.json; "
                   "mrpctl -j monitor --timeout 90000 -- touch /tmp/armed "
                   "2>/dev/null | { await_ports %s %s >/tmp/events.json && "
                   "%s; echo $? >/tmp/done; } >/dev/null 2>&1 & "
                   "wait_for 30000 test -e /tmp/armed" % (
                       "true" if ring_open else "false", " ".join(ports),
                       react)))


def harvest(vm, timeout_ms=60000):
    """Wait for what arm() started; return the notifications it saw."""
    status, out = vm.run(in_ns(0, "wait_for %d test -s /tmp/done; "
                               "cat /tmp/done /tmp/events.json" %
                               timeout_ms), timeout=timeout_ms / 1000 + 60)
    lines = out.splitlines()
    assert status == 0 and lines and lines[0] == "0", (
        "no ring-open notification on every MRM port, or the manager's "
        "reaction failed:\n" + out)
    return [json.loads(x) for x in lines[1:] if x.startswith("{")]


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def port_state(vm, i, port):
    out = vm.check("bridge -n %s -d link show dev %s" % (ns(i), port))
    m = re.search(r"state (\w+)", out)
    return m.group(1) if m else out


def set_param(vm, name, value):
    """Set devlink parameter name (runtime) of every mrpsim switch."""
    vm.check("for d in /sys/bus/pci/drivers/mrpsim/0000:*; do devlink dev "
             "param set pci/${d##*/} name %s value %s cmode runtime || "
             "exit 1; done" % (name, "true" if value else "false"))


def param(vm, i, name):
    """Switch i's devlink parameter name (runtime): True or False."""
    bus = re.search(r"bus-info: (\S+)", vm.check(nsx(
        i, "ethtool -i s%dp0" % i))).group(1)
    out = vm.check("devlink dev param show pci/%s name %s" % (bus, name))
    m = re.search(r"cmode runtime value (\w+)", out)
    assert m, out
    return m.group(1) == "true"


def ethtool_stat(vm, i, port, name):
    return int(vm.check(in_ns(i, "ethtool_stat %s %s" % (port, name))))


def mrm_open_cmd(secondary="s0p1"):
    """What a manager does on ring open: unblock the secondary."""
    return ("mrpctl kernel state br0 ring %d open && "
            "mrpctl kernel port-state %s forwarding" % (RING, secondary))


def mrm_closed_cmd(secondary="s0p1"):
    """What a manager does on ring closed: block the secondary."""
    return ("mrpctl kernel port-state %s blocked && "
            "mrpctl kernel state br0 ring %d closed" % (secondary, RING))


def cut_and_restore(vm, cable, both_ends):
    """Cut a cable (one or both ends): both MRM ports report ring open
    and the manager unblocks its secondary; restore it: both report ring
    closed and the manager blocks it again."""
    a, b = cable_ends(vm, cable)
    ends = [a, b] if both_ends else [a]
    arm(vm, True, mrm_open_cmd())
    for nd in ends:
        vm.set_link(nd, False)
    evs = harvest(vm)
    arm(vm, False, mrm_closed_cmd())
    for nd in ends:
        vm.set_link(nd, True)
    return evs + harvest(vm)


_probe = [99]


def arp_probe(vm, node=1):
    """Broadcast ARP requests from a node for an address nobody has; return
    that address, unique per call so that captures tell the probes apart."""
    _probe[0] -= 1
    target = "10.0.0.%d" % _probe[0]
    vm.check(in_ns(node, "arping -c 2 -w 3 -I br0 %s >/dev/null 2>&1; "
                   "true" % target))
    return target


def broadcast_is_contained(vm, node=1, across=2, pcap="s2p0"):
    """Send broadcasts from a node and count them on a cable's capture
    once a full ring round trip has passed: each crosses a cable at most
    once when the ring is blocked, and forever when it loops."""
    target = arp_probe(vm, node)
    vm.check(in_ns(node, "ping -c 1 -W 5 10.0.0.%d >/dev/null" %
                   (across + 1)))
    return count_arp(pcap_path(vm, pcap), target)


def loop_is_seen(vm, secondary="s0p1", pcap="s2p0", timeout=30):
    """Negative control of broadcast_is_contained(): with the MRM's
    secondary forwarding too, broadcasts circulate and the capture sees
    them again and again.  Blocks the secondary again before returning."""
    vm.check(in_ns(0, "mrpctl kernel port-state %s forwarding" % secondary))
    try:
        target = arp_probe(vm)
        deadline = time.monotonic() + timeout
        while True:
            n = count_arp(pcap_path(vm, pcap), target)
            if n > 100:
                break
            assert time.monotonic() < deadline, (
                "%d copies of 2 broadcasts in %d s on an unblocked ring: "
                "the storm test cannot see a loop" % (n, timeout))
            time.sleep(1)     # polling a capture file: there is no event
    finally:
        vm.check(in_ns(0, "mrpctl kernel port-state %s blocked" % secondary))
        # While the ring looped the bridges learnt addresses on whichever
        # port a copy last came in: node 1 may have node 2 the long way
        # round, through the port now blocked, until the entry ages out
        # (300 s).  A manager that blocks its secondary sends
        # MRP_TopologyChange and every node flushes its FDB; the test
        # plays the manager, so it flushes them.
        vm.check("for i in $(seq 0 %d); do ip -n n$i link set br0 type "
                 "bridge fdb_flush || exit 1; done" % (nodes(vm) - 1))
    # The storm is over once a frame can cross the ring again.
    vm.check(in_ns(1, "wait_for 20000 ping -c 1 -W 1 10.0.0.3"))


# -- scenarios both paths run -----------------------------------------------

def no_broadcast_storm(vm):
    n = broadcast_is_contained(vm)
    assert n <= 2, "%d copies of 2 broadcasts on one cable: a loop" % n


def storm_detector_sees_a_loop(vm):
    """Negative control: with the MRM's secondary forwarding the same
    broadcasts do circulate, so no_broadcast_storm() can fail."""
    loop_is_seen(vm)
    no_broadcast_storm(vm)


def period_zero_tests_nothing(vm, interval):
    """A test period of 0 ends the test at once: the bridge's software
    test sends nothing and checks nothing (its end has passed when its
    first interval expires), and a switch must do the same, although its
    engine reads TEST_PERIOD 0 as "no end".  Node 1's port facing the
    manager sees no more frames; a real period starts the test again."""
    p = cable_ends(vm, 0)[1]
    vm.check(in_ns(0, "mrpctl kernel test br0 ring %d interval %d max-miss 3 "
                      "period 0" % (RING, interval)))
    vm.check(in_ns(1, "wait_for 10000 stat_still %s hw_rx_frames" % p))
    seen = ethtool_stat(vm, 1, p, "hw_rx_frames")
    vm.check(in_ns(0, "mrpctl kernel test br0 ring %d interval %d max-miss 3 "
                      "period %d" % (RING, interval, PERIOD)))
    vm.check(in_ns(1, "wait_for 10000 stat_gt %s hw_rx_frames %d" % (
        p, seen + 10)))


def cut_every_cable(vm, both_ends):
    """Every cable in turn; the MRM sees the same notifications on either
    path: both ports open, then both closed."""
    for c in range(nodes(vm)):
        evs = cut_and_restore(vm, c, both_ends)
        got = [(e["ifname"], e["ring_open"]) for e in evs]
        assert sorted(got[:2]) == [("s0p0", True), ("s0p1", True)] and \
            sorted(got[2:]) == [("s0p0", False), ("s0p1", False)], got


# -- wire captures ---------------------------------------------------------

TSHARK_FIELDS = ["frame.time_epoch", "eth.src", "eth.dst", "pn_mrp.type",
                 "pn_mrp.sequence_id", "pn_mrp.port_role",
                 "pn_mrp.ring_state", "pn_mrp.transition", "pn_mrp.prio",
                 "pn_mrp.sa"]


def pcap_records(pcap):
    """The frames of a capture (pcap format), in order.  Plain Python
    rather than tshark: captures of a 1 ms ring grow by thousands of
    frames a second."""
    with open(pcap, "rb") as f:
        data = f.read()
    end = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from(end + "I", data, off + 8)[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def count_arp(pcap, target):
    """ARP requests for target in a capture."""
    want = socket.inet_aton(target)
    return sum(1 for frame in pcap_records(pcap)
               if frame[12:14] == b"\x08\x06" and frame[38:42] == want)


def decode(pcap, count=20000):
    """MRP frames in the first count frames of a capture (all of them if
    count is None), decoded by tshark's pn_mrp."""
    if not shutil.which("tshark"):
        raise AssertionError("tshark is not installed")
    limit = ["-c", str(count)] if count else []
    cmd = ["tshark", "-r", pcap] + limit + ["-Y", "pn_mrp",
                                            "-T", "fields", "-E",
                                            "separator=\t"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, "tshark failed on %s: %s" % (pcap, p.stderr)
    warn = subprocess.run(["tshark", "-r", pcap] + limit + ["-Y",
                           "pn_mrp && _ws.expert.severity >= warning"],
                          capture_output=True, text=True).stdout.strip()
    assert not warn, "tshark reports malformed MRP frames:\n" + warn[:2000]
    frames = []
    for line in p.stdout.splitlines():
        v = dict(zip(TSHARK_FIELDS, line.split("\t")))
        frames.append(v)
    return frames


def check_wire(vm, interval, pcap="s0p0", lossless=True):
    """Decode the MRM's primary cable and check its MRP_Test frames; the
    capture's first frames are the closed ring before any cable is cut.
    Returns the interval statistics of the primary port's frames.  With
    lossless false (the software path, whose MRCs forward in a guest that
    can fall behind) up to 5% of the secondary's frames may be missing."""
    frames = decode(pcap_path(vm, pcap))
    mac = {}
    for p in ("s0p0", "s0p1"):
        mac[p] = vm.check(in_ns(0, "cat /sys/class/net/%s/address" % p,
                                sysfs=True)).strip()
    own = test_frames(frames, mac["s0p0"])
    back = test_frames(frames, mac["s0p1"])
    assert len(own) > 100, "only %d test frames from s0p0" % len(own)
    # The secondary's frames went round the ring through every MRC.
    assert len(back) > 100, "only %d test frames from s0p1 came round" % (
        len(back))
    for f in own + back:
        assert int(f["pn_mrp.ring_state"], 0) == 1, ("ring not closed", f)
        assert int(f["pn_mrp.prio"], 0) == 0x8000, ("priority", f)
    assert {int(f["pn_mrp.port_role"], 0) for f in own} == {0}, own[0]
    assert {int(f["pn_mrp.port_role"], 0) for f in back} == {1}, back[0]
    # One sequence counter for both ports, as the bridge does: each port
    # sees every other id, and together they miss none.
    seq = [int(f["pn_mrp.sequence_id"], 0) for f in own]
    bad = [(a, b) for a, b in zip(seq, seq[1:]) if (b - a) % 65536 != 2]
    assert not bad, "primary sequence ids do not step by 2: %s" % bad[:5]
    # (The secondary's frames arrive a ring transit later: leave the
    # capture's last ids out.)
    lo, hi = seq[0], seq[-1] - 100
    both = sorted({x for x in seq if x <= hi} |
                  {int(f["pn_mrp.sequence_id"], 0) for f in back} &
                  set(range(lo, hi + 1)))
    gaps = [(a, b) for a, b in zip(both, both[1:]) if b - a != 1]
    lost = sum(b - a - 1 for a, b in gaps)
    if lossless:
        assert not gaps, "sequence ids missing between the ports: %s" % (
            gaps[:5])
    else:
        print("# %d of %d sequence ids missing on %s" % (lost, hi - lo + 1,
                                                         pcap))
        assert lost <= (hi - lo + 1) * 0.05, (
            "%d of %d sequence ids missing: %s" % (lost, hi - lo + 1,
                                                  gaps[:5]))
    return wire_stats(own)


def test_frames(frames, src):
    return [f for f in frames if f["eth.src"] == src and
            f["eth.dst"] == "01:15:4e:00:00:01"]


def intervals_us(frames):
    ts = [float(f["frame.time_epoch"]) for f in frames]
    return [(b - a) * 1e6 for a, b in zip(ts, ts[1:])]


def wire_stats(frames):
    d = intervals_us(frames)
    d.sort()
    return {"n": len(d), "median": statistics.median(d),
            "p95": d[int(len(d) * 0.95)] if d else 0}


def guest_hz(vm):
    """CONFIG_HZ of the guest kernel, from the .config it was built with."""
    cfg = os.path.join(os.path.dirname(vm.kernel), "../../../.config")
    with open(cfg) as f:
        m = re.search(r"^CONFIG_HZ=(\d+)$", f.read(), re.M)
    return int(m.group(1))


def sw_interval_us(vm, interval):
    """The interval the bridge's software path really sends at: it
    schedules its test work in jiffies, rounded up."""
    jiffy = 1000000 // guest_hz(vm)
    return -(-interval // jiffy) * jiffy


def pcap_path(vm, netdev):
    return os.path.join(vm.workdir, netdev + ".pcap")


def vm_ping(vm, a, b, timeout_ms=20000):
    """Node a reaches node b's address (retrying for timeout_ms).  Each
    try waits up to 5 s for its reply: the path can be 12 bridges of a
    debug guest long on a 14-node ring, ARP first, and a reply that comes
    late on a busy host is connectivity all the same."""
    vm.check(nsx(a, "sh -c '. /mrpsim/lib.sh; wait_for %d ping -c 1 -W 5 "
                 "10.0.0.%d'" % (timeout_ms, b + 1)),
             timeout=timeout_ms / 1000 + 60)
