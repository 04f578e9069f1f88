"""MRP offload, hardware path: a ring of four mrpsim switches with their
MRP engine; the MRM's switch generates and checks the test frames, the
MRCs' switches forward them, and the driver turns loss and regain into the
bridge's ring-open notifications.  tests/mrpring.py has the scenarios,
shared with the software fallback (test_mrp_sw.py).
"""

import json
import os

import mrpcables as C
import mrpring as R
import mrpscale as S

INTERVAL = 1000   # us
PROFILE = 10      # mrpd: MRP_Test every 1 ms


# make check-long: every profile, the flaps (make soak runs more of
# them), the devlink parameter that forces the software path
# (test_mrp_sw.py runs that path), the assist left off, and what
# test_mrp_ring14.py checks in make check at the standard's size: every
# MRP frame once per cable with one manager through every cut
# (cuts_cross_each_cable_once) and with three MRAs (three_mras).
LONG = ("mrpd_every_profile", "mrpd_isolated_flaps", "mrpd_random_flaps",
        "devlink_param_forces_software", "mrpd_assist_off_waits",
        "mrpd_manager_once_per_cable", "mrpd_three_mras_once_per_cable")


def topology():
    t = R.topology(mrp=True)
    C.capture_cables(t, R.N)
    return t


def setup(vm):
    # The switches forward in hardware too: MRP must hold with the data
    # off the CPUs, and the recovery assist needs it.
    R.bring_up(vm, INTERVAL, "l2_offload=1")


def test_roles_are_offloaded(vm):
    # The MRM's switch sends the test frames: its hardware counters move.
    sent = R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx")
    vm.check(R.in_ns(0, "wait_for 5000 stat_gt s0p0 hw_mrp_test_tx %d" %
                     (sent + 10)))
    assert R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_rx") > 0 or \
        R.ethtool_stat(vm, 0, "s0p1", "hw_mrp_test_rx") > 0
    # MRCs forward in hardware.
    assert R.ethtool_stat(vm, 2, "s2p0", "hw_mrp_fwd") > 0


# Before any storm or cut: the capture's first frames are the steady ring.
def test_wire_frames_decode(vm):
    stats = R.check_wire(vm, INTERVAL)
    print("# hw wire interval at %d us: median %.0f us, p95 %.0f us (%d)" % (
        INTERVAL, stats["median"], stats["p95"], stats["n"]))
    # The engine keeps a virtual-clock deadline: late timer callbacks add
    # jitter but the median spacing is the interval.
    assert abs(stats["median"] - INTERVAL) < INTERVAL * 0.1, stats


def test_ring_closed_secondary_blocked(vm):
    assert R.port_state(vm, 0, "s0p1") == "blocking"
    assert R.port_state(vm, 0, "s0p0") == "forwarding"
    for i in range(1, R.nodes(vm)):
        for p in (0, 1):
            assert R.port_state(vm, i, "s%dp%d" % (i, p)) == "forwarding"


def test_no_broadcast_storm(vm):
    R.no_broadcast_storm(vm)
    assert R.ethtool_stat(vm, 0, "s0p1", "hw_rx_drop_blocked") > 0


test_storm_detector_sees_a_loop = R.storm_detector_sees_a_loop


def test_cut_one_end_of_each_cable(vm):
    R.cut_every_cable(vm, both_ends=False)


def test_cut_both_ends_of_each_cable(vm):
    R.cut_every_cable(vm, both_ends=True)


def test_no_test_frame_reaches_mrm_cpu(vm):
    for p in ("s0p0", "s0p1"):
        assert R.ethtool_stat(vm, 0, p, "rx_mrp_test") == 0, p
    assert R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_rx") > 0


def test_period_zero_tests_nothing(vm):
    R.period_zero_tests_nothing(vm, INTERVAL)


def test_fresh_test_clears_a_stale_ring_open(vm):
    """A switch forgets its lost flags when a test stops, here at the end
    of its period with cable 1 cut, and tells no one.  A test started
    afresh on the mended, closed ring gets its frames back without a loss,
    so no regain either: the bridge went on reporting both ports open.
    The driver takes the new test's state and reports them not lost."""
    short = "mrpctl kernel test br0 ring %d interval %d max-miss 3 " \
        "period %%d" % (R.RING, INTERVAL)
    R.arm(vm, True, "true")             # the ring stays closed, blocked
    vm.check(R.in_ns(0, short % 3000000))
    R.cut(vm, 1)
    R.harvest(vm)
    # the test ends with both ports lost
    vm.check(R.in_ns(0, "wait_for 10000 stat_still s0p0 hw_mrp_test_tx"))
    R.cut(vm, 1, up=True)
    out = vm.check(R.in_ns(0, "mrpctl -j monitor --changes --count 2 "
                              "--timeout 10000 -- " + short % R.PERIOD))
    evs = [e for e in map(json.loads, (x for x in out.splitlines()
                                       if x.startswith("{")))
           if "ifname" in e]        # not the line for the command
    assert sorted((e["ifname"], e["ring_open"]) for e in evs) == [
        ("s0p0", False), ("s0p1", False)], out


def test_deleted_ring_leaves_no_ring_open(vm):
    """A ring deleted while open: its ports forward again, and report no
    loss of continuity any more (patches/0012; the bridge kept the flags,
    and a ring made next on the ports began "open")."""
    R.arm(vm, True, "true")
    R.cut(vm, 1)
    R.harvest(vm)
    try:
        out = vm.check(R.in_ns(0, "mrpctl -j monitor --changes --count 2 "
                                  "--timeout 10000 -- mrpctl kernel del "
                                  "br0 ring %d" % R.RING))
        evs = [e for e in map(json.loads, (x for x in out.splitlines()
                                           if x.startswith("{")))
               if "ifname" in e]    # not the line for the command
        assert sorted((e["ifname"], e["ring_open"]) for e in evs) == [
            ("s0p0", False), ("s0p1", False)], out
    finally:
        R.configure_mrp(vm, INTERVAL, only=[0])
        R.cut(vm, 1, up=True)
    vm.check(R.in_ns(0, "wait_for 10000 stat_gt s0p0 hw_mrp_test_rx %d" %
                     R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_rx")))


def test_loss_reported_while_rtnl_held(vm):
    """A loss of continuity reaches user space while something else holds
    RTNL for 3 s (tests/kmod's rtnl trigger), as on a busy system: the
    driver reports it without RTNL, as the bridge's own test does.  It
    used to wait for RTNL."""
    held = "dmesg | grep -c \"provoking 'rtnl'\""
    n = int(vm.check("grep -q '^splat_test ' /proc/modules || insmod "
                     "/lib/modules/splat_test.ko; %s; true" % held) or 0)
    R.arm(vm, True, "true")
    vm.check("rm -f /tmp/rtnl_free; { echo 'rtnl 3000' > "
             "/sys/kernel/debug/splat_test/trigger; cut -d' ' -f1 "
             "/proc/uptime > /tmp/rtnl_free; } >/dev/null 2>&1 &\n"
             ". /mrpsim/lib.sh; wait_for 10000 sh -c '[ $(%s) -gt %d ]'"
             % (held.replace("'", "'\\''"), n))
    R.cut(vm, 1)
    try:
        evs = R.harvest(vm)
        free = float(vm.check(". /mrpsim/lib.sh; wait_for 10000 test -s "
                              "/tmp/rtnl_free; cat /tmp/rtnl_free"))
        last = max(e["time"] for e in evs)
        print("# ring-open reported %.2f s before RTNL was free" % (
            free - last))
        # The free time is read by a process started after the hold:
        # a report that waited for RTNL comes within a few 0.1 s of it.
        assert free - last > 1.0, (last, free, evs)
    finally:
        R.arm(vm, False, "true")
        R.cut(vm, 1, up=True)
    R.harvest(vm)


# With mrpd on every node: each MRP frame crosses each cable once per
# direction, with one manager and every cable cut in turn, then with three
# MRAs (tests/mrpscale.py; test_mrp_ring14.py does the same on 14 nodes).
def test_mrpd_manager_once_per_cable(vm):
    S.mrpd_manager_once_per_cable(vm, PROFILE)


def test_mrpd_three_mras_once_per_cable(vm):
    S.started(vm, PROFILE)
    S.mrpd_three_mras_once_per_cable(vm)



def test_mrpd_closed_while_broken(vm):
    """A ring the manager closed on a client's MRP_LinkUp while it was
    still broken elsewhere opens again (tests/mrpscale.py)."""
    S.started(vm, PROFILE)
    S.closed_while_broken(vm, PROFILE)


def test_mrpd_assist_recovers_alone(vm):
    """The recovery assist (devlink mrp_assist): with the manager's mrpd
    stopped, traffic finds its way round a cut in hardware; the switches'
    counters show the opening, the TopologyChange series and the
    flushes, and mrpd then catches up with one ring-open per cut
    (tests/mrpscale.py)."""
    S.started(vm, PROFILE)
    S.assist_recovers_alone(vm, 1, assist=True)


def test_mrpd_assist_off_waits(vm):
    """The same with the assist off: nothing crosses the cut until mrpd
    runs (what every other test here does, with mrpd running: make
    check-long)."""
    S.started(vm, PROFILE)
    S.assist_recovers_alone(vm, 1, assist=False)


def test_mrpd_assist_short_break(vm):
    """The recovery assist opens the ring on a break that heals before
    the manager's mrpd reads of it: mrpd still opens and closes the ring,
    and the switch blocks its secondary again (tests/mrpscale.py)."""
    S.started(vm, PROFILE)
    S.assist_short_break(vm, 1)


def test_mrpd_assist_lost_event(vm):
    """The same short break with the switch's events lost on it, the
    recovery assist's among them: the driver restarts its event queue,
    finds in the switch's registers that the assist opened the ring, and
    mrpd still opens and closes it (tests/mrpscale.py)."""
    S.started(vm, PROFILE)
    S.assist_short_break(vm, 1, lose_events=True)


# IEC 62439-2's four recovery profiles: (MRP_Test interval us, max-miss)
PROFILES = {10: (1000, 3), 30: (3500, 3), 200: (20000, 3), 500: (50000, 5)}


def test_mrpd_every_profile(vm):
    """Each profile end to end with mrpd: the manager's switch tests at the
    profile's interval, a cut opens the ring once, its restore closes it
    once, the TopologyChange frames go round (tests/mrpscale.py)."""
    S.started(vm, PROFILE)
    for prof, (interval, max_miss) in sorted(PROFILES.items()):
        R.mrpd_rings(vm, profile=prof)
        R.wait_ring(vm, 0, "ring", "closed")
        R.settle(vm, max(2000, 50 * interval // 1000))
        st = R.mrpd_state(vm, [0])[0]
        # react: mrpd's default lets the test decide (mrpd(8))
        assert (st["test_interval"], st["max_miss"], st["react"]) == (
            interval, max_miss, False), (prof, st)
        sent = R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx")
        S.manager_cuts(vm, [1])
        sent = R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx") - sent
        print("# profile %d: interval %d us, %d test frames in hardware "
              "during the cut" % (prof, interval, sent))
        assert sent > 0


def test_mrpd_held_up_past_test_period(vm):
    """The manager's mrpd is stopped (SIGSTOP) with the ring open, for
    longer than the test period it gave the switch, and the cable comes
    back meanwhile: the switch's test ends (TEST_DONE), mrpd starts it
    afresh when it runs again, and the ring must close all the same (the
    engine passes its first own test frame on each port up while the
    ring state is open)."""
    R.mrpd_rings(vm, profile=200, options="period 1000000")
    R.wait_ring(vm, 0, "ring", "closed")
    R.settle(vm, 2000)
    before = R.mrpd_state(vm, [0])[0]["openings"]
    R.cut(vm, 1)
    try:
        R.wait_ring(vm, 0, "ring", "open")
        pid = vm.check("cat /run/mrpd-n0.pid").strip()
        vm.check("kill -STOP %s" % pid)
        try:
            # the test period runs out: the switch stops its test frames
            vm.check(R.in_ns(0, "wait_for 10000 stat_still s0p0 "
                                "hw_mrp_test_tx"))
        finally:
            R.cut(vm, 1, up=True)
            vm.check("kill -CONT %s" % pid)
    finally:
        R.cut(vm, 1, up=True)
    R.wait_ring(vm, 0, "ring", "closed", 20000)
    after = R.mrpd_state(vm, [0])[0]["openings"]
    assert after - before == 1, "ring openings %d -> %d for one cut" % (
        before, after)
    assert R.port_state(vm, 0, "s0p1") == "blocking"


def test_mrpd_random_flaps(vm):
    """200 random flaps of 0-50 ms on random cables (MRPSIM_FLAPS: more,
    as make soak does): the ring converges closed, no storm (issue 11)."""
    S.started(vm, PROFILE)
    S.random_flaps(vm, int(os.environ.get("MRPSIM_FLAPS", "200")))


def test_mrpd_isolated_flaps(vm):
    """20 flaps of 0-50 ms, one at a time (make soak: 100): each opens the
    ring at most once, and once exactly when it broke the ring and the
    ring was still open when the manager's mrpd read of it (issue 11)."""
    S.started(vm, PROFILE)
    S.isolated_flaps(vm, int(os.environ.get("MRPSIM_ISOLATED_FLAPS", "20")))


def test_devlink_param_forces_software(vm):
    # Same hardware, driver told not to offload: the bridge's software
    # path takes over and behaves the same.
    vm.check("killall mrpctl mrpd; for i in $(seq 0 %d); do ip netns del "
             "n$i; done; rmmod mrpsim" % (R.nodes(vm) - 1))
    R.bring_up(vm, 10 * INTERVAL, "mrp_offload=0 l2_offload=1")  # mrp_sw
    vm.check(R.in_ns(0, "wait_for 30000 stat_gt s0p0 rx_mrp_test 10"))
    assert R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx") == 0
    R.cut_and_restore(vm, 1, both_ends=True)
