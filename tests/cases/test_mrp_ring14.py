"""MRP at the size the standard rates its 10 ms profile for: a ring of 14
mrpsim switches on the hardware path, mrpd on every node, profile 10
(MRP_Test every 1 ms, max-miss 3).

Every cable is captured in both directions (tests/mrpcables.py) and every
MRP frame must cross each cable once per direction: with one manager and
cable cuts, then with three MRAs electing a manager and a cut.  The device's trace
gives the detection of each cut on its virtual clock (tests/mrptrace.py).
Last, every port of the ring floods at once (pktgen): no transmit queue
may stall.
"""

import os
import re
import time

import mrpcables as C
import mrpring as R
import mrptrace as T

N = 14
INTERVAL = 1000     # us: profile 10
MAX_MISS = 3
CUTS = (0, 6, 13)   # next to the manager's secondary, opposite, primary
STEADY_S = 10
MRAS = {0: "mra", 5: "mra prio 0x9000", 9: "mra"}
BEST_MRA = 5


def topology():
    t = R.topology(mrp=True, dumps=(), n=N)
    C.capture_cables(t, N)
    t.trace(*T.EVENTS)
    return t


def trace_path(vm):
    return os.path.join(vm.workdir, vm.topo.trace_file)


def setup(vm):
    vm.cables = C.Cables(vm, N)
    vm.check(". /mrpsim/lib.sh && load_driver")
    R.build_nodes(vm)
    R.start_mrpd(vm)
    vm.mark0 = vm.cables.mark()
    R.mrpd_rings(vm, profile=10)
    R.wait_ring(vm, 0, "ring", "closed")
    R.settle(vm, 3000)


def manager_tcs(vm, since, node):
    """How many of the TopologyChange frames node sent after mark since
    reached how many cables: {cables: frames}.  Frames sent while a
    client still blocks a port it just brought up stop there (the bridge
    forwards MRP frames to forwarding ports only), so only the best
    figure is sure to be the whole ring."""
    # port p of switch i has the switch's base MAC (vm.Topology.mac) + p
    macs = ["5254004d%02x%02x" % (node, p) for p in (0, 1)]
    xs = vm.cables.crossings(since, vm.cables.mark())
    out = {}
    for mac in macs:
        for k, v in C.coverage(xs, 0x03, N, src=mac, margin_s=0).items():
            out[k] = out.get(k, 0) + v
    return out


def test_ring_closed_offloaded(vm):
    st = R.mrpd_state(vm)
    assert st[0]["ring_state"] == "closed", st[0]
    assert st[0]["test_interval"] == INTERVAL, st[0]
    assert R.port_state(vm, 0, "s0p1") == "blocking"
    # the manager's switch sends and terminates the test frames
    assert R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx") > 0
    assert R.ethtool_stat(vm, 0, "s0p1", "hw_mrp_test_rx") > 0
    assert R.ethtool_stat(vm, 0, "s0p0", "rx_mrp_test") == 0
    # the farthest client forwards them in hardware
    assert R.ethtool_stat(vm, N // 2, "s%dp0" % (N // 2), "hw_mrp_fwd") > 0


def test_steady_state(vm):
    """STEADY_S seconds of a closed ring: no ring-open report, no topology
    change, and no MRP frame reaches a CPU (the test frames stay in the
    switches)."""
    before = R.mrpd_state(vm)
    mark = vm.cables.mark()
    time.sleep(STEADY_S)     # a span of quiet ring is what is measured
    after = R.mrpd_state(vm)
    xs = vm.cables.crossings(mark, vm.cables.mark())
    for i in range(N):
        b, a = before[i]["counters"], after[i]["counters"]
        assert a["ring_open"] == b["ring_open"], (i, b, a)
        assert a["rx"] == b["rx"], (
            "node %d: %d MRP frames reached mrpd in %d s of a closed ring" %
            (i, a["rx"] - b["rx"], STEADY_S))
    assert after[0]["transitions"] == before[0]["transitions"]
    # Every test frame went round: all 14 cables, once each.
    cov = C.coverage(xs, 0x02, N)
    print("# %d s steady: test frames by cables reached: %s" % (STEADY_S,
                                                               cov))
    assert cov and set(cov) == {N}, cov
    problems, stats = C.exactly_once(xs)
    assert not problems, "\n".join(problems[:20])


def test_cuts_open_and_close_once(vm):
    """Cut and restore three cables (both ends); the manager opens the
    ring once per cut and closes it once per restore, nothing else."""
    t0 = R.mrpd_state(vm, [0])[0]["transitions"]
    vm.trace_mark = os.path.getsize(trace_path(vm))
    try:
        for k, c in enumerate(CUTS):
            a, b = R.cable_ends(vm, c)
            blocked = [p["name"] for p in R.mrpd_state(vm, [0])[0]["ports"]
                       if p["state"] == "blocked"]
            vm.set_link(a, False)
            vm.set_link(b, False)
            R.wait_ring(vm, 0, "ring", "open")
            R.vm_ping(vm, c, (c + 1) % N)
            closing = vm.cables.mark()
            vm.set_link(a, True)
            vm.set_link(b, True)
            R.wait_ring(vm, 0, "ring", "closed")
            flaps = R.settle(vm, 2000, tries=1)
            tc = manager_tcs(vm, closing, 0)
            # A cut at the manager's blocked port moved no traffic: it
            # may close the ring again without a topology change.
            if tc or not (a in blocked or b in blocked):
                assert tc and max(tc) == N, (
                    "cut %d restored: the manager's TopologyChange frames "
                    "by cables reached: %s" % (c, tc))
            st = R.mrpd_state(vm, [0])[0]
            assert st["transitions"] == t0 + k + 1 and not flaps, (
                "cut %d: %d ring transitions, want %d" % (
                    c, st["transitions"] - t0, k + 1))
    finally:
        vm.cut_end = vm.cables.mark()


def test_detection_within_bound(vm):
    """Each cut was detected by the manager's engine within
    (max_miss + 1) intervals of its virtual clock, less the time the host
    held its timer back (shown in the trace)."""
    evs = T.events(trace_path(vm), vm.trace_mark)
    dets = T.detections(evs, "sw0", INTERVAL)
    bound = (MAX_MISS + 1) * INTERVAL / 1000
    for d in dets:
        print("# detection %.3f ms (host delay %.3f ms, engine %.3f ms, "
              "%d ticks), bound %.1f ms" % (d.detection_ms, d.host_delay_ms,
                                           d.engine_ms, d.ticks, bound))
    assert len(dets) == len(CUTS), dets
    for d in dets:
        assert d.engine_ms <= bound, d
        assert d.ticks <= MAX_MISS + 1, d


def test_cuts_cross_each_cable_once(vm):
    xs = vm.cables.crossings(vm.mark0, vm.cut_end)
    problems, stats = C.exactly_once(xs)
    print("# one manager, %d cuts: %s" % (len(CUTS), C.summary(stats)))
    assert stats["TopologyChange frames"] > 0, stats
    assert not problems, "\n".join(problems[:20])


def test_three_mras(vm):
    """Three MRAs: the best (prio 0x9000) manages, the others monitor and
    forward like clients; a cut opens the ring, its restore closes it, and
    every MRP frame, the MRP_Option frames of the election included,
    crosses each cable once."""
    mark = vm.cables.mark()
    R.mrpd_rings(vm, profile=10, roles=MRAS)
    R.wait_ring(vm, BEST_MRA, "mode", "manager")
    R.wait_ring(vm, BEST_MRA, "ring", "closed")
    for i in MRAS:
        if i != BEST_MRA:
            R.wait_ring(vm, i, "mode", "client")
    R.settle(vm, 3000, node=BEST_MRA)
    a, b = R.cable_ends(vm, N - 1)
    vm.set_link(a, False)
    vm.set_link(b, False)
    R.wait_ring(vm, BEST_MRA, "ring", "open")
    closing = vm.cables.mark()
    vm.set_link(a, True)
    vm.set_link(b, True)
    R.wait_ring(vm, BEST_MRA, "ring", "closed")
    R.vm_ping(vm, 1, N - 1)
    R.settle(vm, 2000, node=BEST_MRA)
    # The manager's MRP_TopologyChange frames of a closed ring go all the
    # way round, across the MRAs that monitor (the bridge forwards them
    # there since patches/0005).
    tc = manager_tcs(vm, closing, BEST_MRA)
    assert tc and max(tc) == N, (
        "the manager's TopologyChange frames by cables reached: %s" % tc)
    st = R.mrpd_state(vm, MRAS)
    assert [i for i in MRAS if st[i]["mode"] == "MRA(MRM)"] == [BEST_MRA], st
    xs = vm.cables.crossings(mark, vm.cables.mark())
    problems, stats = C.exactly_once(xs)
    print("# three MRAs: %s" % C.summary(stats))
    assert stats["Option frames"] > 0, stats
    assert stats["TopologyChange frames"] > 0, stats
    assert not problems, "\n".join(problems[:20])


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
