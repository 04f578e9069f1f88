#!/usr/bin/env python3
"""make bench: MRP recovery and detection latency and the wire test
interval, for the hardware path (mrpsim's MRP engine) and the software
fallback (the Linux bridge on mrpsim switches started with mrp=off), at
1 ms and 10 ms test intervals.

Figures only, no pass/fail: they depend on how busy the machine is.

Ring of four switches (tests/mrpring.py), one network namespace per
switch with a bridge and mrpd; node 0 is the manager.  For each sample
the host cuts one end of the cable between switches 1 and 2 (QMP
set_link) once the ring has been closed and quiet (no ring-open report)
for 50 intervals, at least 1 s, and restores it once the manager reports
the ring open.  The times come from QEMU's trace of the switches, stamped
on the host's clock, which the virtual clock follows under TCG:

  recovery   the cable cut (mrpsim_link) to the manager's switch
             unblocking its secondary port (mrpsim_port_ctrl: port 1
             forwarding).  Whichever comes first opens the ring: loss of
             test frames, reported by the driver (hardware) or the
             bridge's timer (software) to mrpd, or the MRP_LinkChange
             that the client next to the cut sends the manager;
  detection  hardware only: the cut to the MRM engine's loss event
             (mrpsim_mrp_loss).

The wire interval comes from a capture of the MRM's primary cable (QEMU
filter-dump, virtual-clock timestamps) decoded by tshark.
"""

import argparse
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrpring as R  # noqa: E402
from vm import VM, GuestError, find_splats  # noqa: E402

CUT = "s2p0"            # the cable end the host cuts (switch 2, port 0)
TRACES = ("mrpsim_link", "mrpsim_port_ctrl", "mrpsim_mrp_loss")
TRACE_RE = re.compile(r"^\d+@(\d+\.\d+):(mrpsim_\w+) (.*)$")


class SampleFailed(Exception):
    pass


def wait_ring(vm, state, timeout_ms):
    status, out = vm.run(R.in_ns(0, "mrpctl wait br0 ring %d ring %s "
                                 "timeout %d" % (R.RING, state, timeout_ms)),
                         timeout=timeout_ms / 1000 + 60)
    if status != 0:
        raise SampleFailed("the manager did not report the ring %s in "
                           "%d ms" % (state, timeout_ms))


def settle(vm, quiet_ms, tries=10):
    """Wait until the manager's ports stay quiet (no ring-open report) for
    quiet_ms.  Returns how many windows saw a spurious open before that:
    the software path reports loss whenever test frames come back later
    than max-miss intervals, as they do in a busy TCG guest (mrpd then
    opens the ring and closes it again)."""
    flaps = 0
    for _ in range(tries):
        status, _ = vm.run(R.in_ns(0, "mrpctl -j monitor --open --count 1 "
                                   "--timeout %d" % quiet_ms), timeout=120)
        if status == 3:                 # timed out: nothing reported
            return flaps
        if status != 0:
            raise SampleFailed("mrpctl monitor failed (%d)" % status)
        flaps += 1
        wait_ring(vm, "closed", 30000)
    raise SampleFailed("the ring never stayed closed for %d ms "
                       "(%d tries)" % (quiet_ms, tries))


def trace_times(trace, offset):
    """From the trace written after offset: the cut, the MRM engine's
    first loss event and the first unblocking of a port 1 after it."""
    cut = loss = unblock = None
    with open(trace) as f:
        f.seek(offset)
        for line in f:
            m = TRACE_RE.match(line)
            if not m:
                continue
            t, ev, args = float(m.group(1)), m.group(2), m.group(3)
            if cut is None:
                if ev == "mrpsim_link" and args == "port 0 link 0":
                    cut = t
            elif ev == "mrpsim_mrp_loss" and loss is None:
                loss = t
            elif (ev == "mrpsim_port_ctrl" and unblock is None and
                  args == "port 1 en 1 state 0"):
                unblock = t
    return cut, loss, unblock


def sample(vm, trace):
    """One cut and restore; (recovery ms, detection ms or None)."""
    offset = os.path.getsize(trace) if os.path.exists(trace) else 0
    vm.set_link(CUT, False)
    try:
        wait_ring(vm, "open", 10000)
    finally:
        vm.set_link(CUT, True)
    wait_ring(vm, "closed", 30000)
    cut, loss, unblock = trace_times(trace, offset)
    if cut is None or unblock is None:
        raise SampleFailed("trace has no %s" % (
            "cut" if cut is None else "unblocking of the secondary after "
            "the cut (opened before it?)"))
    return ((unblock - cut) * 1e3,
            None if loss is None else (loss - cut) * 1e3)


def latency(vm, trace, samples, interval_us):
    quiet_ms = max(1000, 50 * interval_us // 1000)
    rec, det, flaps, failed = [], [], 0, []
    for _ in range(samples):
        try:
            flaps += settle(vm, quiet_ms)
            r, d = sample(vm, trace)
            rec.append(r)
            if d is not None:
                det.append(d)
        except (SampleFailed, GuestError) as e:
            failed.append(str(e))
            vm.set_link(CUT, True)
    return rec, det, flaps, failed


def wire(vm, mac, skip):
    frames = R.decode(R.pcap_path(vm, "s0p0"), None)
    frames = R.test_frames(frames, mac)[skip:]
    return R.wire_stats(frames), len(frames)


def fmt(xs):
    if not xs:
        return "n/a"
    return "median %.2f ms, min %.2f, max %.2f (n=%d)" % (
        statistics.median(xs), min(xs), max(xs), len(xs))


def run_path(name, mrp, intervals, samples, keep):
    print("\n== %s path (mrpsim mrp=%s) ==" % (name, "on" if mrp else "off"))
    workdir = (os.path.join(keep, name) if keep else
               tempfile.mkdtemp(prefix="mrpsim-bench-"))
    os.makedirs(workdir, exist_ok=True)
    trace = os.path.join(workdir, "trace.log")
    extra = ["-msg", "timestamp=on", "-D", trace]
    for t in TRACES:
        extra += ["-trace", t]
    with VM(R.topology(mrp=mrp, dumps=("s0p0",)), workdir=workdir,
            qemu_extra=extra) as vm:
        vm.check(". /mrpsim/lib.sh && load_driver")
        R.build_nodes(vm)
        R.start_mrpd(vm)
        mac = vm.check("ip netns exec n0 cat /sys/class/net/s0p0/address")
        mac = mac.strip()
        for iv in intervals:
            R.mrpd_rings(vm, iv)
            wait_ring(vm, "closed", 30000)
            skip = len(R.test_frames(
                R.decode(R.pcap_path(vm, "s0p0"), None), mac))
            rec, det, flaps, failed = latency(vm, trace, samples, iv)
            stats, n = wire(vm, mac, skip)
            print("interval %5d us: recovery %s" % (iv, fmt(rec)))
            if mrp:
                print("                  detection %s" % fmt(det))
            print("                  %d spurious ring-open reports while "
                  "waiting for a quiet ring, %d failed samples" %
                  (flaps, len(failed)))
            for f in failed:
                print("                  failed: %s" % f)
            print("                  wire interval median %.0f us, p95 %.0f"
                  " us over %d frames" % (stats["median"], stats["p95"], n))
    splats = find_splats(vm.log())
    if splats:
        print("guest log has kernel splats:\n" + "\n".join(splats))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--intervals", default="1000,10000")
    ap.add_argument("--paths", default="hardware,software")
    ap.add_argument("--keep", metavar="DIR")
    a = ap.parse_args()
    intervals = [int(x) for x in a.intervals.split(",")]
    for path in a.paths.split(","):
        if path not in ("hardware", "software"):
            ap.error("--paths: hardware and/or software, not %r" % path)
        run_path(path, path == "hardware", intervals, a.samples, a.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
