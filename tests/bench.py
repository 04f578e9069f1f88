#!/usr/bin/env python3
"""make bench: MRP loss detection latency and wire test interval, for the
hardware path (mrpsim's MRP engine) and the software fallback (the Linux
bridge on mrpsim without the engine), at 1 ms and 10 ms test intervals.

Figures only, no pass/fail: they depend on how busy the machine is.

Ring of four switches, MRM on switch 0 (tests/mrpring.py).  Latency: an
MRC's ring port is set administratively down in the guest ("ip link set
s2p0 down": the switch port stops passing frames); one `mrpctl monitor`
in the MRC's namespace stamps its bridge's notification that the port
went down, another in the MRM's stamps the first ring-open notification,
both on the guest's monotonic clock; the difference is the detection
latency (max-miss to max-miss + 1 intervals, plus reporting).  The
wire interval comes from a capture of the MRM's primary cable (QEMU
filter-dump, virtual-clock timestamps) decoded by tshark.
"""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrpring as R  # noqa: E402
from vm import VM, find_splats  # noqa: E402


def latency(vm, cut_node, port, samples):
    """From the MRC's bridge reporting its port down (in the MRC's
    namespace) to the MRM's first ring-open notification: two monitors,
    one clock (the guest's CLOCK_MONOTONIC), neither counting the time
    the trigger takes to start."""
    res = []
    for _ in range(samples):
        R.arm(vm, True, R.mrm_open_cmd())      # the manager's reaction
        vm.check(R.in_ns(cut_node, "rm -f /tmp/cut.armed; "
                         "mrpctl -j monitor --timeout 30000 -- touch "
                         "/tmp/cut.armed >/tmp/cut.json 2>/dev/null & "
                         "wait_for 30000 test -e /tmp/cut.armed"))
        out = vm.check(R.in_ns(
            0, "mrpctl -j monitor --open --count 1 --timeout 10000"
            " -- ip -n %s link set %s down" % (R.ns(cut_node), port)))
        opened = [json.loads(x) for x in out.splitlines()
                  if x.startswith("{") and "ring_open" in x]
        cut = [json.loads(x) for x in vm.check("cat /tmp/cut.json")
               .splitlines() if '"ifname":"%s"' % port in x]
        if opened and cut:
            res.append((opened[0]["time"] - cut[0]["time"]) * 1e3)
        R.harvest(vm)
        R.arm(vm, False, R.mrm_closed_cmd())
        vm.check("ip -n %s link set %s up" % (R.ns(cut_node), port))
        R.harvest(vm)
    return res


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
    workdir = os.path.join(keep, name) if keep else None
    with VM(R.topology(mrp=mrp, dumps=("s0p0",)), workdir=workdir) as vm:
        vm.check(". /mrpsim/lib.sh && load_driver")
        R.build_nodes(vm)
        mac = vm.check("ip netns exec n0 cat /sys/class/net/s0p0/address")
        mac = mac.strip()
        first = True
        for iv in intervals:
            if first:
                R.configure_mrp(vm, iv)
                first = False
            else:
                vm.check(R.in_ns(0, "mrpctl kernel test br0 ring %d "
                                 "interval %d max-miss 3 period %d" %
                                 (R.RING, iv, R.PERIOD)))
            skip = len(R.test_frames(
                R.decode(R.pcap_path(vm, "s0p0"), None), mac))
            lat = latency(vm, 2, "s2p0", samples)
            stats, n = wire(vm, mac, skip)
            print("interval %5d us: detection %s" % (iv, fmt(lat)))
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
    ap.add_argument("--keep", metavar="DIR")
    a = ap.parse_args()
    intervals = [int(x) for x in a.intervals.split(",")]
    run_path("hardware", True, intervals, a.samples, a.keep)
    run_path("software", False, intervals, a.samples, a.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
