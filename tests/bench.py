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
the ring open and the cut has lasted CUT_HOLD_S (2.5 s).  The times come
from QEMU's trace of the switches, stamped on the host's clock, which the
virtual clock follows under TCG:

  recovery   the cable cut (mrpsim_link) to the manager's switch
             unblocking its secondary port (mrpsim_port_ctrl: port 1
             forwarding).  Whichever comes first opens the ring: loss of
             test frames, reported by the driver (hardware) or the
             bridge's timer (software) to mrpd, or the MRP_LinkChange
             that the client next to the cut sends the manager;
  detection  hardware only: the cut to the MRM engine's loss event
             (mrpsim_mrp_loss);
  reaction   hardware only: recovery minus detection, the loss event
             through the driver, the bridge and mrpd back to the port
             register;
  silence    software only: the last of the manager's own test frames
             to come back before a cut to the bridge's loss report, read
             off the manager's two cables (both captured).  The bridge's
             test work counts a miss in every run that finds none of its
             frames back since the previous run, sends the primary's
             test frame and reports the loss in the run that finds
             max-miss (3) misses: at the 4th primary frame sent after
             the last one back.  The captures are stamped on the
             virtual clock from a whole second, the trace on the host's
             clock, so the cut itself cannot be placed among the
             captured frames: this span stands in for the software
             path's detection.

With --react 0 the manager ignores MRP_LinkChange, so only the loss of
test frames opens the ring: recovery is then the software path's
detection plus a reaction like the hardware path's.

The wire interval comes from a capture of the MRM's primary cable (QEMU
filter-dump, virtual-clock timestamps) decoded by tshark.
"""

import argparse
import os
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrpring as R  # noqa: E402
from vm import VM, GuestError, find_splats  # noqa: E402

CUT = "s2p0"            # the cable end the host cuts (switch 2, port 0)
MAX_MISS = 3            # mrpring.mrpd_rings() gives the manager max-miss 3
CUT_EVENT = "sw2 port 0 link 0"
UNBLOCK_EVENT = "sw0 port 1 en 1 state 0"   # the MRM's secondary forwards
TRACES = ("mrpsim_link", "mrpsim_port_ctrl", "mrpsim_mrp_loss")
# A sample keeps the cable cut at least this long, so that the captures
# show every cut as a gap in the returning test frames (silences()), however
# soon the guest reports the ring open.
CUT_HOLD_S = 2.5
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
    """From the trace written after offset: the cut, the manager's first
    loss event and the first unblocking of its secondary after it."""
    cut = loss = unblock = None
    with open(trace) as f:
        f.seek(offset)
        for line in f:
            m = TRACE_RE.match(line)
            if not m:
                continue
            t, ev, args = float(m.group(1)), m.group(2), m.group(3)
            args = args.split(" vclock ")[0]
            if cut is None:
                if ev == "mrpsim_link" and args == CUT_EVENT:
                    cut = t
            elif (ev == "mrpsim_mrp_loss" and loss is None and
                  args.startswith("sw0 ")):
                loss = t
            elif (ev == "mrpsim_port_ctrl" and unblock is None and
                  args == UNBLOCK_EVENT):
                unblock = t
    return cut, loss, unblock


def sample(vm, trace):
    """One cut and restore; (recovery ms, detection ms or None)."""
    offset = os.path.getsize(trace) if os.path.exists(trace) else 0
    t0 = time.monotonic()
    vm.set_link(CUT, False)
    try:
        wait_ring(vm, "open", 10000)
        # Holding the cut for a span, not waiting for an event.
        time.sleep(max(0.0, CUT_HOLD_S - (time.monotonic() - t0)))
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
    """[(recovery ms, hardware detection ms or None)], spurious
    ring-opens, failures."""
    quiet_ms = max(1000, 50 * interval_us // 1000)
    done, flaps, failed = [], 0, []
    for _ in range(samples):
        try:
            flaps += settle(vm, quiet_ms)
            done.append(sample(vm, trace))
        except (SampleFailed, GuestError) as e:
            failed.append(str(e))
            vm.set_link(CUT, True)
    return done, flaps, failed


def silences(frames0, frames1, mac0, mac1, gap_s=CUT_HOLD_S - 0.5):
    """For every stretch of at least gap_s without any of the manager's
    own test frames coming back (the cuts: a sample keeps the cable cut
    for CUT_HOLD_S at least), the ms from the last frame back to the
    software bridge's loss report: the (MAX_MISS + 1)th test frame the
    primary sent after it."""
    def times(frames, src):
        return [float(f["frame.time_epoch"])
                for f in R.test_frames(frames, src)]
    back = sorted(times(frames0, mac1) + times(frames1, mac0))
    sent = times(frames0, mac0)
    out = []
    for last, nxt in zip(back, back[1:]):
        if nxt - last < gap_s:
            continue
        after = [t for t in sent if last < t < nxt]
        if len(after) > MAX_MISS:
            out.append((after[MAX_MISS] - last) * 1e3)
    return out


def wire(frames, mac, skip):
    frames = R.test_frames(frames, mac)[skip:]
    return R.wire_stats(frames), len(frames)


def fmt(xs):
    if not xs:
        return "n/a"
    return "median %.2f ms, min %.2f, max %.2f (n=%d)" % (
        statistics.median(xs), min(xs), max(xs), len(xs))


def run_path(name, mrp, intervals, samples, keep, react):
    print("\n== %s path (mrpsim mrp=%s), manager react %s ==" % (
        name, "on" if mrp else "off", "1 (default)" if react is None
        else react))
    workdir = (os.path.join(keep, name) if keep else
               tempfile.mkdtemp(prefix="mrpsim-bench-"))
    os.makedirs(workdir, exist_ok=True)
    trace = os.path.join(workdir, "trace.log")
    extra = ["-msg", "timestamp=on", "-D", trace]
    for t in TRACES:
        extra += ["-trace", t]
    with VM(R.topology(mrp=mrp, dumps=("s0p0", "s0p1")), workdir=workdir,
            qemu_extra=extra) as vm:
        vm.check(". /mrpsim/lib.sh && load_driver")
        R.build_nodes(vm)
        R.start_mrpd(vm)
        mac, mac1 = vm.check("ip netns exec n0 cat /sys/class/net/s0p0/"
                             "address /sys/class/net/s0p1/address").split()
        for iv in intervals:
            R.mrpd_rings(vm, iv, react=react)
            wait_ring(vm, "closed", 30000)
            before = R.decode(R.pcap_path(vm, "s0p0"), None)
            skip, skip0 = len(R.test_frames(before, mac)), len(before)
            skip1 = 0 if mrp else len(R.decode(R.pcap_path(vm, "s0p1"),
                                               None))
            done, flaps, failed = latency(vm, trace, samples, iv)
            frames0 = R.decode(R.pcap_path(vm, "s0p0"), None)
            rec = [r for r, _ in done]
            det = [d for _, d in done if d is not None]
            react_ms = [r - d for r, d in done if d is not None]
            quiet = []
            if not mrp:
                frames1 = R.decode(R.pcap_path(vm, "s0p1"), None)
                quiet = silences(frames0[skip0:], frames1[skip1:],
                                 mac, mac1)
            stats, n = wire(frames0, mac, skip)
            print("interval %5d us: recovery %s" % (iv, fmt(rec)))
            if mrp:
                print("                  detection %s" % fmt(det))
                print("                  reaction  %s" % fmt(react_ms))
            else:
                print("                  silence before the loss report "
                      "%s" % fmt(quiet))
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
    ap.add_argument("--react", type=int, choices=(0, 1),
                    help="the manager reacts to MRP_LinkChange (mrpd's "
                    "default: 1)")
    a = ap.parse_args()
    intervals = [int(x) for x in a.intervals.split(",")]
    for path in a.paths.split(","):
        if path not in ("hardware", "software"):
            ap.error("--paths: hardware and/or software, not %r" % path)
        run_path(path, path == "hardware", intervals, a.samples, a.keep,
                 a.react)
    return 0


if __name__ == "__main__":
    sys.exit(main())
