"""The harness's nets catch what they are there for.

Every other guest fails when its log shows a kernel splat (tests/vm.py
SPLAT_PATTERNS) or kmemleak finds a leak (vm.kmemleak_scan).  A net that
cannot fire reads as safety, so this guest, on its own, loads
tests/kmod/splat_test.ko, provokes each kind of report one at a time and
checks that the harness's own code finds it in the log: a WARNING, lockdep,
debugobjects, UBSAN, KASAN, list corruption, a hung task, a soft lockup, an
RCU stall and a leak.  It also checks that a kmemleak that cannot scan
fails the run instead of reporting "no leaks".

The detectors' thresholds are lowered at run time (1 s for hung tasks, 2 s
for soft lockups, 3 s for RCU stalls; vm.py boots every guest with 60 s
for the last two) so that each case takes seconds.
"""

import re
import time

import vm as vmlib
from vm import Topology

# run.py: the splats here are the point; each test checks its own.
EXPECTS_SPLATS = True

TRIGGER = "/sys/kernel/debug/splat_test/trigger"


def topology():
    return Topology()       # no switch: only the kernel is under test


def setup(vm):
    vm.check("insmod /lib/modules/splat_test.ko")


def provoke(vm, what, *expect, timeout=90):
    """Provoke `what`; fail unless the guest prints a line matching each
    regex in `expect` and the harness's splat patterns catch that line."""
    start = len(vm.log())
    vm.check("echo '%s' >%s" % (what, TRIGGER), timeout=timeout)
    deadline = time.monotonic() + timeout
    for exp in expect:
        while not re.search(exp, vm.log()[start:]):
            if time.monotonic() > deadline:
                raise AssertionError("guest printed no %r after '%s':\n%s" % (
                    exp, what, vm.log()[start:][-2000:]))
            time.sleep(0.2)     # polling the console file for the line
        new = vm.log()[start:]
        assert any(re.search(exp, line) for line in vmlib.find_splats(new)), \
            "the harness misses %r in:\n%s" % (exp, new[-2000:])


def test_warning(vm):
    provoke(vm, "warn", r"WARNING: CPU: \d+ PID: \d+ at .*splat_trigger_write")


def test_lockdep(vm):
    provoke(vm, "lockdep", r"possible circular locking dependency")


def test_debugobjects(vm):
    provoke(vm, "odebug", r"ODEBUG: free active .*timer_list")


def test_ubsan(vm):
    provoke(vm, "ubsan", r"UBSAN: array-index-out-of-bounds")


def test_kasan(vm):
    provoke(vm, "kasan", r"BUG: KASAN: slab-out-of-bounds in ")


def test_list_corruption(vm):
    provoke(vm, "list", r"list_add corruption")


def lowered(vm, knobs):
    """Set each file in knobs to its value; return a command that puts
    back what they were."""
    old = vm.check("cat %s" % " ".join(knobs)).split()
    assert len(old) == len(knobs), old
    vm.check("\n".join("echo %s >%s" % (v, f) for f, v in knobs.items()))
    return "\n".join("echo %s >%s" % (v, f) for f, v in zip(knobs, old))


def test_hung_task(vm):
    restore = lowered(vm, {"/proc/sys/kernel/hung_task_timeout_secs": 1})
    try:
        provoke(vm, "hung 6", r"INFO: task \S+ blocked for more than")
    finally:
        vm.check(restore)


def test_soft_lockup_and_rcu_stall(vm):
    # One CPU busy with preemption off for 10 s: past both thresholds.
    restore = lowered(vm, {
        "/proc/sys/kernel/watchdog_thresh": 1,
        "/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout": 3})
    try:
        provoke(vm, "spin 10000", r"BUG: soft lockup - CPU#\d+ stuck",
                r"rcu: INFO: \S+ (self-)?detected stall")
    finally:
        vm.check(restore)


def test_kmemleak_finds_a_leak(vm):
    vm.check("echo leak >%s" % TRIGGER)
    ok, report = vmlib.kmemleak_scan(vm)
    assert ok, "kmemleak did not scan: %s" % report
    hits = vmlib.find_splats(report)
    assert hits, "the harness misses the leak in:\n%s" % report[-2000:]
    assert "[splat_test]" in report, \
        "leaks reported, none from splat_test:\n" + report[-2000:]


def test_kmemleak_off_fails_the_run(vm):
    vm.check("echo off >%s" % vmlib.KMEMLEAK)
    ok, report = vmlib.kmemleak_scan(vm)
    assert not ok, "a disabled kmemleak passed as a scan: %r" % report
