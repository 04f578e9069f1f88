"""MRP at the size the standard rates its 10 ms profile for: a ring of 14
mrpsim switches on the hardware path, mrpd on every node, profile 10
(MRP_Test every 1 ms, max-miss 3).

Every cable is captured in both directions (tests/mrpcables.py) and every
MRP frame must cross each cable once per direction: with one manager and
cable cuts, then with three MRAs electing a manager and a cut.  The
device's trace gives the detection of each cut on its virtual clock
(tests/mrptrace.py).
Then mrpd restarts on the manager and a client while end stations on
the host exchange a frame every ms: none may be lost.  The switches'
recovery assist opens the ring with the manager's mrpd stopped.  Last,
every port of the ring floods at once (pktgen): no transmit queue may
stall.
"""

import re

import mrpring as R
import mrpscale as S
import trafgen

N = 14
INTERVAL = 1000     # us: profile 10
MAX_MISS = 3
CUTS = (0, 6, 13)   # next to the manager's secondary, opposite, primary
STEADY_S = 10
MRAS = {0: "mra", 5: "mra prio 0x9000", 9: "mra"}
BEST_MRA = 5
# End stations on the manager's node and node 12: their frames cross the
# manager's primary and client 13 (the manager's secondary, towards node
# 1, is blocked).  Every bridge on the way forwards them in the guest's
# CPU: two hops at a frame every 5 ms each way is what a debug guest
# under TCG carries without queueing (seven hops at 1 ms delayed frames
# by seconds and dropped thousands).
STATIONS = (0, N - 2)
RESTARTED_CLIENT = N - 1
PORTS = []          # the stations' UDP ports, chosen with the topology


# make check-long: the pktgen flood, and the assist (its captures of every
# cable take minutes to check; test_mrp_hw runs it on 4 switches).
LONG = ("flood_every_port", "assist_recovers_alone")


def topology():
    PORTS[:] = trafgen.free_udp_ports(4)
    t = S.hw_ring_topology(N)
    trafgen.add_stations(t, STATIONS, PORTS)
    return t


def setup(vm):
    S.hw_ring_setup(vm, 10)


def test_ring_closed_offloaded(vm):
    S.hw_ring_offloaded(vm, INTERVAL)


def test_steady_state(vm):
    S.steady_state(vm, STEADY_S)


def test_host_stalls_are_no_ring_open(vm):
    """QEMU stopped for 3 ms and run for 0.3 ms, five times in a row, ten
    times: the engine counts late ticks, the ring stays closed."""
    late = S.host_stalls(vm)
    print("# 50 host stalls of 3 ms: %d late ticks, no loss" % late)


def test_cuts_open_and_close_once(vm):
    """Cut and restore three cables (both ends); the manager opens the
    ring once per cut and closes it once per restore, nothing else."""
    S.cuts_open_close(vm, CUTS)


def test_detection_within_bound(vm):
    """Each cut was detected by the manager's engine within
    (max_miss + 1) intervals of its virtual clock, less the time the host
    held its timer back (shown in the trace)."""
    S.detections_within_bound(vm, vm.trace_mark, INTERVAL, MAX_MISS,
                              len(CUTS))


def test_cuts_cross_each_cable_once(vm):
    S.cuts_crossed_once(vm, len(CUTS))


def test_mrpd_restarts_lose_nothing(vm):
    """The manager's mrpd, then that of a client on the stations' path,
    restarted while the stations exchange a frame every ms: each takes
    the kernel's ring over as it is; no frame lost, no port state set,
    no topology change."""
    S.restarts_under_traffic(vm, PORTS, STATIONS, RESTARTED_CLIENT,
                             period_us=5000)


def test_assist_recovers_alone(vm):
    """The recovery assist (devlink mrp_assist) at the standard's size:
    the manager's mrpd stopped, the cable opposite it cut; the manager's
    switch opens the ring, its TopologyChange frames make every client's
    switch flush, and a ping crosses the ring the long way round (13 hops
    in hardware) before mrpd runs; mrpd then catches up with one
    ring-open, and every frame crossed each cable once
    (tests/mrpscale.py; test_mrp_hw shows that nothing crosses without
    the assist)."""
    assert S.assist_recovers_alone(vm, CUTS[1], assist=True)


def test_three_mras(vm):
    """Three MRAs: the best (prio 0x9000) manages, the others monitor and
    forward like clients; a cut next to an MRA opens the ring, its
    restore closes it, and every MRP frame, the MRP_Option frames of the
    election included, crosses each cable once."""
    S.mrpd_three_mras_once_per_cable(vm, MRAS, BEST_MRA, N - 1)


def test_flood_every_port(vm):
    """pktgen floods every port of the ring at once for a while: frames
    queue up, transmit queues stop and wake; none may stall (the guest
    log is checked for NETDEV WATCHDOG and TX timeout)."""
    R.mrpd_rings(vm, profile=10)
    R.wait_ring(vm, 0, "ring", "closed")
    out = vm.check("sh /mrpsim/flood.sh %d 8" % N, timeout=300)
    print("# " + out.strip().replace("\n", "\n# "))
    m = re.search(r"sent (\d+) frames .* filled (\d+) times, .* dropped "
                  r"(\d+)", out)
    assert m, out
    # the flood did fill TX rings and made the driver drop frames
    assert int(m.group(2)) > 0 and int(m.group(3)) > 0, out
    R.wait_ring(vm, 0, "ring", "closed")
    R.vm_ping(vm, 1, N // 2)
