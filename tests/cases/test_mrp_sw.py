"""MRP software fallback on the same ring: mrpsim switches without their
MRP engine (-device mrpsim,mrp=off).  The driver declines the full ring
role and the test, accepts the sw_backup role, and the bridge runs MRP in
software; the scenarios and expectations are those of test_mrp_hw.py.
"""

import mrpcables as C
import mrpring as R
import mrpscale as S

# 10 ms, not the hardware tests' 1 ms: each test frame costs the guest's
# CPU an interrupt and a software forward on every node, and a TCG guest
# with a debug kernel cannot keep up with 1 ms (make bench measures it).
INTERVAL = 10000   # us
PROFILE = 200      # mrpd: MRP_Test every 20 ms


# make check-long: what test_mrp_hw.py checks on the hardware path and
# make check need not repeat here: the storm detector, cuts of one end,
# three MRAs, a ring closed while broken; and the kernel-API ring's cuts
# of both ends (mrpd_manager_once_per_cable cuts every cable on this
# path in make check, and checks every frame on the wire).
LONG = ("storm_detector_sees_a_loop", "cut_one_end_of_each_cable",
        "cut_both_ends_of_each_cable", "mrpd_three_mras_once_per_cable",
        "mrpd_closed_while_broken")


def topology():
    t = R.topology(mrp=False)
    C.capture_cables(t, R.N)
    return t


def setup(vm):
    # The switches could forward (test_data_forwarded_in_software).
    R.bring_up(vm, INTERVAL, "l2_offload=1")


def test_software_runs_the_test(vm):
    # The bridge sends the test frames through the driver's TX rings; the
    # hardware engine stays idle.
    vm.check(R.in_ns(0, "wait_for 30000 stat_gt s0p0 rx_mrp_test 10"))
    assert R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx") == 0
    assert R.ethtool_stat(vm, 2, "s2p0", "hw_mrp_fwd") == 0


def test_data_forwarded_in_software(vm):
    """The bridge forwards the test frames in the CPU, so it forwards the
    ring's data there too, although the switches could (l2_offload): else
    a ring opened by test frames held up in a busy CPU would be a loop the
    switches circulate at line rate.  Client 2 forwards node 1's pings to
    node 3 in its CPU, not in hardware."""
    before = [R.ethtool_stat(vm, 2, "s2p%d" % p, k) for p in (0, 1)
              for k in ("hw_l2_fwd", "hw_l2_flood")]
    R.vm_ping(vm, 1, 3)
    after = [R.ethtool_stat(vm, 2, "s2p%d" % p, k) for p in (0, 1)
             for k in ("hw_l2_fwd", "hw_l2_flood")]
    assert after == before, (before, after)
    assert R.param(vm, 2, "l2_offload"), "the switch does not forward"


# Before any storm or cut: the capture's first frames are the steady ring.
def test_wire_frames_decode(vm):
    stats = R.check_wire(vm, INTERVAL, lossless=False)
    want = R.sw_interval_us(vm, INTERVAL)
    print("# sw wire interval at %d us (%d us in jiffies): median %.0f us, "
          "p95 %.0f us (%d)" % (INTERVAL, want, stats["median"],
                                stats["p95"], stats["n"]))
    # Never faster than asked; how much slower depends on how busy the
    # host is (the guest's timers and workqueues run late under TCG: 2.7
    # times the interval with two guests on two cores), so the upper
    # bound only catches a wrong unit.  make bench reports the figures.
    assert want * 0.9 < stats["median"] < want * 5, stats


def test_ring_closed_secondary_blocked(vm):
    assert R.port_state(vm, 0, "s0p1") == "blocking"
    assert R.port_state(vm, 0, "s0p0") == "forwarding"


test_no_broadcast_storm = R.no_broadcast_storm
test_storm_detector_sees_a_loop = R.storm_detector_sees_a_loop


def test_cut_one_end_of_each_cable(vm):
    R.cut_every_cable(vm, both_ends=False)


def test_cut_both_ends_of_each_cable(vm):
    R.cut_every_cable(vm, both_ends=True)


def test_test_frames_reach_mrm_cpu(vm):
    assert R.ethtool_stat(vm, 0, "s0p0", "rx_mrp_test") > 0
    assert R.ethtool_stat(vm, 0, "s0p1", "rx_mrp_test") > 0


def test_period_zero_tests_nothing(vm):
    R.period_zero_tests_nothing(vm, INTERVAL)


# With mrpd on every node: each MRP frame crosses each cable once per
# direction, with one manager and every cable cut in turn, then with three
# MRAs (tests/mrpscale.py; test_mrp_ring14.py does the same on 14 nodes).
def test_mrpd_manager_once_per_cable(vm):
    # The nodes' CPUs forward the test frames here: a guest stall longer
    # than max-miss intervals, seen on the cable captures, opens the ring
    # for real (tests/mrpscale.py manager_cuts()).  Any other extra
    # ring-open is the known bug of this path (tests/cases/test_mrpd.py),
    # reported as a skip once the rest has passed.
    S.mrpd_manager_once_per_cable(vm, PROFILE, cpu_path=True)


def test_mrpd_three_mras_once_per_cable(vm):
    S.started(vm, PROFILE)
    S.mrpd_three_mras_once_per_cable(vm)


def test_mrpd_closed_while_broken(vm):
    """As in test_mrp_hw.py: the bridge's software test, which repeats its
    loss report every interval while the ring state is closed."""
    S.started(vm, PROFILE)
    S.closed_while_broken(vm, PROFILE)
