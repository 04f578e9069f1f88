#!/usr/bin/env python3
"""make bench: MRP recovery measured as users measure it, the time traffic
is lost, on rings of 4, 14 and 50 mrpsim switches, for the profiles 10, 30
and 200 ms, and on two rings joined by an interconnection (below), on
three paths: assist (mrpsim's MRP engine with its recovery assist,
devlink mrp_assist: the manager's switch opens the ring on its own),
hardware (the engine without the assist: software opens the ring) and
software (the Linux bridge's fallback, on switches started with
mrp=off).  The switches forward in hardware on every path (l2_offload):
only MRP moves between them.

Figures, not pass/fail: they depend on how busy the machine is.  The bench
still exits non-zero when a sample fails, the ring opens when no cable was
cut, or the guest log has a kernel splat.

One guest per path and ring size, one node (network namespace, bridge,
mrpd) per switch, node 0 the manager.  Two end stations on the host
(tests/trafgen.py) sit behind QEMU dgram (UDP) sockets on a third port of
switches 1 and 1 + N/2, on opposite sides of the ring, and send each other
a sequence-numbered frame every PERIOD_US.  Each sample cuts the cable
halfway between them (both ends, QMP set_link) once the ring has been
closed and quiet, keeps it cut CUT_HOLD_S, restores it and waits until the
ring is closed and quiet again.  Per sample:

  outage      the longest run of lost sequence numbers after the cut,
              times the period, worse of the two directions (restore:
              the same after the restore);
  detection   hardware: the cut to the manager engine's loss event on the
              device's virtual clock (QEMU trace), and the same less the
              time the host held the engine's timer back (engine), which
              must stay within (max_miss + 1) x interval
              (tests/mrptrace.py);
  port write  the cut to the manager's write that sets its secondary port
              forwarding (virtual clock), on the assist path the engine's
              own (its mrpsim_mrp_assist_open); for the engine's paths
              split into detection and reaction (the loss event through
              the driver, the bridge and mrpd to that write; about 0 with
              the assist);
  first frame the port write to the first frame through after the gap
              (host clock, from the trace's timestamps and the stations').

The time line splits each recovery into stages (TIMELINE): the device's
loss event and port write, and with the assist the clients' switches'
flushes (QEMU trace: virtual clock, and the host's clock with -msg
timestamp=on), the driver taking the event (its
mrpsim:mrpsim_event trace event) and reporting it to the bridge
(mrpsim:mrpsim_mrp_report), the manager's mrpd learning that the
ring is open and every client's mrpd receiving the TopologyChange and
flushing (mrpd -v logs), and the stations' first frame after the gap.
The guest's trace clock (mono) and mrpd's log (CLOCK_MONOTONIC) are one
clock; it is tied to the host's by the driver's mrpsim_port_ctrl event
for the manager's port write, the same instant as the device's
(the register write traps into QEMU).

In steady state (stations paused, STEADY_S) per node: MRP frames the CPU
handled per second (driver counter rx_mrp of the ring ports), interrupts
per second of the switches, and guest CPU time (/proc/stat); and the
share of the guest's vCPUs that was busy, again with the stations on
(LOADED_S).  All the switches' CPUs are the guest's two vCPUs: when they
are saturated, the software path's test frames wait behind the other
switches' work on their way round the ring and the ring opens without a
cut.  Such a software-path row (vCPUs at least SATURATED_PCT busy, in
steady state or, for a ring that never closes, while it fails) is
reported under "Beyond this machine" with its failures and false
ring-opens, and does not fail the bench; a row of the engine's paths
always does.  --guest-load keeps the guest's vCPUs busy (a spinning
process per vCPU, nice 0 like mrpd) during the samples: the assist's
outage must not depend on it.

The interconnection (IEC 62439-2 Ed. 2, RC mode): the two rings of four
switches of tests/cases/test_mrp_in.py (ring 1 switches 0-3, ring 2
switches 4-7, their managers on switches 2 and 6, profile 200 ms), joined
by link A (s0p2-s4p2, the MIM on switch 0 blocks it) and link B
(s1p2-s5p2), mrpd's interconnection profile 200 (MRP_InTest every 20 ms,
8 misses).  One guest per path: hardware (the rings and the
interconnection in the switches' engine) and software (switches with
mrp=off).  The stations sit on switches 3 and 7, so their traffic crosses
link B; each sample cuts link B at both ends, keeps it cut CUT_HOLD_S,
restores it and waits until the MIM reports the interconnection closed
and opens nothing for a second.  Per sample the outage and the restore
outage as above, the I-port write (the cut to the MIM's switch setting
its interconnection port forwarding, virtual clock), on the hardware path
detection (the cut to the MIM engine's loss of its InTest, also when a
MIC's MRP_InLinkDown opened the interconnection first), what opened it
(mrpd -v) and each node's first FDB flush after the write.  The MIM
opening more than once per cut, or a ring manager opening its ring, are
false openings; they and a sample that fails fail the bench as the
rings' do, with the same "Beyond this machine" rule.  It runs after the
rings, or alone with --interconnection (--no-interconnection leaves it
out); --sizes, --profiles and --guest-load do not apply to it.

Writes build/bench/report.md, build/bench/bench.json (every sample; the
interconnection's under "interconnection") and build/bench/outage.png
(python3-matplotlib).
"""

import argparse
import importlib.util
import json
import os
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrpring as R  # noqa: E402
import mrptrace as T  # noqa: E402
import trafgen  # noqa: E402
from vm import VM, GuestError, Topology, find_splats, TOP  # noqa: E402

# profile -> (test interval us, max-miss): IEC 62439-2 tables 59-62
PROFILES = {10: (1000, 3), 30: (3500, 3), 200: (20000, 3), 500: (50000, 5)}
HZ = 250                # the guest kernel's (kernel/mrpsim.config)
PERIOD_US = 1000        # the stations' frame period
CUT_HOLD_S = 2.5
STALL_MS = 10           # a sender stalled longer invalidates a sample
IN_FLIGHT_S = 0.5       # the longest a frame is on its way (losses())
STEADY_S = 10
LOADED_S = 5
QUIET_S = 30
# A software-path row that fails while the guest's vCPUs are this busy
# measures the emulation, not MRP: every switch's bridge runs on the same
# two vCPUs, so a test frame's round trip through N - 1 of them waits
# behind the others' work.  Reported under "Beyond this machine".
SATURATED_PCT = 90
OUT = os.path.join(TOP, "build", "bench")
PCI0 = "0000:00:%02x.0" % Topology.SLOT0     # switch 0, the manager's


class SampleFailed(Exception):
    pass


class SenderStalled(SampleFailed):
    """The host-side sender stalled while the ring recovered: the sample
    measured the host, not the ring.  It is taken again, up to as many
    times as the row has samples; after that it counts as failed."""


def progress(ctx, msg):
    print("[%s] %s" % (ctx, msg))
    sys.stdout.flush()


def stations(n):
    """Switches of the two end stations and the cable cut between them
    (the manager blocks cable 0, so the closed ring carries their traffic
    over cables 1 .. n/2)."""
    a, b = 1, 1 + n // 2
    return a, b, (a + b) // 2


def engine(path):
    """Does the switches' MRP engine run the ring on this path?"""
    return path in ("hardware", "assist")


def topology(mrp, n, ports):
    """A ring of n switches; switches 1 and 1 + n/2 have a third port, a
    UDP socket on 127.0.0.1 (ports: station A's host and QEMU port,
    station B's)."""
    t = Topology.ring(n, mrp=mrp)
    trafgen.add_stations(t, stations(n)[:2], ports)
    t.trace(*T.EVENTS)
    return t


def sw_interval_us(us):
    """The software bridge queues its test work usecs_to_jiffies() ahead."""
    tick = 1000000 // HZ
    return -(-us // tick) * tick


def wait_mrpd(vm, node, what, key, value, timeout_ms=30000):
    """Wait in node's mrpd until what ("ring 1", "interconnection 10")
    has key value (mrpctl wait)."""
    status, out = vm.run(R.nsx(node, "mrpctl wait br0 %s %s %s timeout %d"
                               % (what, key, value, timeout_ms)),
                         timeout=timeout_ms / 1000 + 60)
    if status != 0:
        raise SampleFailed("node %d did not report %s %s %s in %d ms: %s"
                           % (node, what, key, value, timeout_ms,
                              out.strip()))


def wait_ring(vm, state, timeout_ms=30000):
    wait_mrpd(vm, 0, "ring %d" % R.RING, "ring", state, timeout_ms)


def ring_opened(vm, ms):
    """mrpctl's exit status: 3 when the manager reported no ring-open in
    ms."""
    return vm.run(R.nsx(0, "mrpctl -j monitor --open --count 1 --timeout "
                        "%d" % ms), timeout=120)[0]


def settle(vm, quiet_ms, tries=10, opened=ring_opened, what="ring",
           closed=lambda vm: wait_ring(vm, "closed")):
    """Wait for quiet_ms without an opening (opened(vm, ms): 3 when there
    was none); returns the openings seen before (false ones: no cable was
    cut), after each of which it waits for closed(vm)."""
    flaps = 0
    for _ in range(tries):
        status = opened(vm, quiet_ms)
        if status == 3:
            return flaps
        if status != 0:
            raise SampleFailed("mrpctl monitor or wait failed (%d)" % status)
        flaps += 1
        closed(vm)
    raise SampleFailed("the %s never stayed closed for %d ms" % (what,
                                                                 quiet_ms))


def steady_cost(vm, n, seconds):
    """Per node, in a closed ring: MRP frames to the CPU per second (mean,
    and the busiest node with how many of its frames were MRP_Test), the
    switches' interrupts per second, guest CPU ms per second; and the share
    of the guest's vCPUs that was busy."""
    snap = ("for i in $(seq 0 %d); do for p in 0 1; do "
            "nsenter --net=/run/netns/n$i ethtool -S s${i}p$p | "
            "sed -n -e \"s/^ *rx_mrp: /mrp $i /p\" "
            "-e \"s/^ *rx_mrp_test: /mrpt $i /p\"; done; done; "
            "awk '/PCI-MSI/ {s = 0; for (i = 2; i <= NF; i++) "
            "if ($i ~ /^[0-9]+$/) s += $i; t += s} END {print \"irq\", t}' "
            "/proc/interrupts; head -1 /proc/stat" % (n - 1))

    def read():
        mrp, test, irq, cpu, total = {}, {}, 0, 0, 0
        for line in vm.check(snap, timeout=300).splitlines():
            f = line.split()
            if f[0] in ("mrp", "mrpt"):
                d = mrp if f[0] == "mrp" else test
                d[int(f[1])] = d.get(int(f[1]), 0) + int(f[2])
            elif f[0] == "irq":
                irq = int(f[1])
            elif f[0] == "cpu":
                # user nice system idle iowait irq softirq (USER_HZ)
                v = [int(x) for x in f[1:8]]
                cpu = v[0] + v[1] + v[2] + v[5] + v[6]
                total = cpu + v[3] + v[4]
        return mrp, test, irq, cpu, total, time.monotonic()

    def control(counts):
        return sum(counts[0].values()) - sum(counts[1].values())

    # Steady means no MRP control frame on its way either: at 50 nodes the
    # TopologyChanges of the ring's commissioning still come back to the
    # manager for seconds after it closed (each client forwards them
    # through its CPU).  Wait until a second passes without one, for at
    # most QUIET_S (a ring that keeps opening is never quiet).
    cur = read()
    quiet, end = False, time.monotonic() + QUIET_S
    while not quiet and time.monotonic() < end:
        time.sleep(1)       # the quiet second is what is checked
        prev, cur = cur, read()
        quiet = control(cur) == control(prev)
    m0, x0, i0, c0, a0, t0 = cur
    time.sleep(seconds)     # a span of steady ring is what is measured
    m1, x1, i1, c1, a1, t1 = read()
    dt = t1 - t0
    per = {k: (m1[k] - m0[k]) / dt for k in m1}
    top = max(per, key=per.get)
    return {"mrp_to_cpu_per_s_mean": sum(per.values()) / n,
            "mrp_to_cpu_per_s_max": per[top],
            "busiest_node": top,
            "busiest_node_test_per_s": (x1[top] - x0[top]) / dt,
            "irq_per_s_per_node": (i1 - i0) / dt / n,
            "cpu_ms_per_s_per_node": (c1 - c0) * 10.0 / dt / n,
            "cpu_busy_pct": 100.0 * (c1 - c0) / max(1, a1 - a0),
            "quiet": quiet,
            "seconds": dt}


GTRACE = "/sys/kernel/tracing"
GTRACE_RE = re.compile(r"\s(\d+\.\d+): "
                       r"(mrpsim_event|mrpsim_mrp_report|mrpsim_port_ctrl): "
                       r"(.*)$")
MRPD_RE = re.compile(r"^(?:\S+ )?\[(\d+\.\d+)\] (.*)$")
# the stages of a recovery, in order: (key, what ends there)
TIMELINE = (("loss", "the manager's switch detects the loss (device)"),
            ("driver", "its driver takes the loss event (interrupt)"),
            ("bridge", "the driver reports it to the bridge (work queue, "
                       "RTNL)"),
            ("mrpd", "the manager's mrpd learns the ring is open (from the "
                     "bridge, or a client's MRP_LinkDown)"),
            ("write", "the manager's switch unblocks its secondary port"),
            ("hwflush", "the last client's switch has flushed its ring "
                        "ports (assist)"),
            ("tc", "the last client has the TopologyChange"),
            ("flush", "the last client has flushed its FDB"),
            ("first", "the first frame after the gap reaches a station"))


def start_guest_trace(vm, n):
    """mrpd -v on every node (a line per action and per MRP control frame,
    on CLOCK_MONOTONIC) and the driver's trace events on the same clock
    (trace_clock mono)."""
    vm.check("[ -e %s/trace ] || mount -t tracefs nodev %s; cd %s && "
             "echo mono > trace_clock && echo 4096 > buffer_size_kb && "
             "echo 1 > events/mrpsim/enable && echo > trace" % (
                 GTRACE, GTRACE, GTRACE))
    vm.check("for i in $(seq 0 %d); do nsenter --net=/run/netns/n$i mrpd "
             "-D -v -l /tmp/mrpd-n$i.log || exit 1; done" % (n - 1))


def guest_mark(vm, n):
    """Sizes of the mrpd logs; clears the guest's trace buffer."""
    out = vm.check("for i in $(seq 0 %d); do wc -c < /tmp/mrpd-n$i.log; "
                   "done; echo > %s/trace" % (n - 1, GTRACE))
    return [int(x) for x in out.split()]


def guest_fetch(vm, marks):
    """The mrpd log lines written since marks and the guest trace:
    ({node: [(mono s, text)]}, [(mono s, event, args)])."""
    cmds = ["echo @@n%d; tail -c +%d /tmp/mrpd-n%d.log" % (i, m + 1, i)
            for i, m in enumerate(marks)]
    text = vm.fetch("%s; echo @@trace; cat %s/trace" % ("; ".join(cmds),
                                                         GTRACE))
    logs, trace, cur = {}, [], None
    for line in text.splitlines():
        if line.startswith("@@n"):
            cur = int(line[3:])
            logs[cur] = []
        elif line == "@@trace":
            cur = "trace"
        elif cur == "trace":
            m = GTRACE_RE.search(line)
            if m:
                trace.append((float(m.group(1)), m.group(2), m.group(3)))
        elif cur is not None:
            m = MRPD_RE.match(line)
            if m:
                logs[cur].append((float(m.group(1)), m.group(2)))
    return logs, trace


def timeline(r, hw, logs, gtrace, write, unblock, hwflush, loss, firsts):
    """Times after the cut (ms, host clock) at which each TIMELINE stage
    ended, from the guest's trace and mrpd logs aligned on the driver's
    write of the manager's secondary port (= the device's, write); unblock
    is the device's event that set it forwarding (write, or the assist's),
    hwflush the clients' switches' assist flushes."""
    gw = next((t for t, ev, a in gtrace if ev == "mrpsim_port_ctrl" and
               a.startswith("s0p1 ") and a.endswith(" state 0")), None)
    if gw is None:
        return
    off = write.host - gw                # guest mono -> host wall clock
    cut = r["_cut_host"]
    tl = {"write": (unblock.host - cut) * 1e3}
    if hwflush:
        tl["hwflush"] = (max(e.host for e in hwflush) - cut) * 1e3
    if hw and loss is not None:
        tl["loss"] = r["detection_ms"]
        ev = next((t for t, e, a in gtrace if e == "mrpsim_event" and
                   a.startswith(PCI0 + " type 2 ")), None)
        if ev is not None:
            tl["driver"] = (ev + off - cut) * 1e3
        rep = next((t for t, e, a in gtrace if e == "mrpsim_mrp_report" and
                    a.startswith("s0p") and a.endswith(" lost 1")), None)
        if rep is not None:
            tl["bridge"] = (rep + off - cut) * 1e3
    # what opened the ring in the manager's mrpd: the bridge's loss
    # report or a client's MRP_LinkDown, whichever came first
    for t, text in logs.get(0, []):
        if text.endswith("MRP ring open") or " LinkDown seq " in text:
            tl["mrpd"] = (t + off - cut) * 1e3
            r["trigger"] = ("loss" if text.endswith("MRP ring open")
                            else "LinkDown")
            break
    tcs, flushes = [], []
    for node, lines in logs.items():
        if node == 0:
            continue
        tc = next((t for t, x in lines if t >= gw and
                   " TopologyChange seq " in x), None)
        fl = next((t for t, x in lines if t >= gw and
                   x.endswith("fdb flushed")), None)
        if tc is not None:
            tcs.append(tc)
        if fl is not None:
            flushes.append(fl)
    if tcs:
        tl["tc"] = (max(tcs) + off - cut) * 1e3
    if flushes:
        tl["flush"] = (max(flushes) + off - cut) * 1e3
    if firsts:
        tl["first"] = (max(firsts) - cut) * 1e3
    r["timeline_ms"] = tl


def losses(st, s0):
    """The stations' losses (trafgen's "losses") of the numbers from s0
    to the last one sent now, asked IN_FLIGHT_S later: a frame still on
    its way when the sample ends is not lost.  Asked at once, the last
    frames sent counted as a run that never ended, and on a busy
    software path (tens of ms from station to station) that run was
    the restore outage."""
    s1 = st.cmd("seq")["seq"]
    time.sleep(IN_FLIGHT_S)     # a span for the frames in flight
    return st.cmd("losses %d %d" % (s0, s1))


def outages(got, cut_host, restore):
    """The stations' figures of a sample from their losses (got) around
    a cut at cut_host and a restore at restore (host clock): a dict with
    the outages, and the host times at which the cut's gap ended (one
    per direction).  Raises SenderStalled if the figures say nothing."""
    runs = got["rx"]
    r = {"lost": runs, "sender_late": got["late"],
         "sender_refused": got["refused"]}
    # A tick that runs late sends its frame late, not never: the count of
    # lost numbers is off by at most the delay.  The report gives the
    # largest delay near the cut and the restore; a sender that stalls for
    # more than STALL_MS there, or a socket that refuses a frame (lost for
    # the wrong reason), leaves the sample saying nothing.
    near = [x for x in got["late"] + got["refused"]
            if any(-0.05 < x[1] - t < 1.0 for t in (cut_host, restore))]
    r["sender_late_ms"] = max([x[2] for x in near if len(x) > 2] or [0])
    if r["sender_late_ms"] > STALL_MS or any(len(x) == 2 for x in near):
        raise SenderStalled("the host-side sender stalled while the ring "
                            "recovered (%s): not a measurement" % near[:3])
    # outage: worst direction, the cut's and the restore's apart (a run
    # belongs to the one it started closer to: frames in flight when the
    # cable comes back are lost too)
    mid = (cut_host + restore) / 2
    firsts = []
    for key, pick in (("outage_ms", lambda x: x[2] < mid),
                      ("restore_outage_ms", lambda x: x[2] >= mid)):
        worst = 0
        for d in runs.values():
            mine = [x for x in d if pick(x)]
            if not mine:
                continue
            w = max(mine, key=lambda x: x[1])
            worst = max(worst, w[1])
            if key == "outage_ms" and w[3] is not None:
                firsts.append(w[3])     # the end of the cut's gap
        r[key] = worst * PERIOD_US / 1000.0
    return r, firsts


def sample(vm, st, cut, trace, iv_us, max_miss, path, n):
    """One cut and restore; a dict of what it measured."""
    off = os.path.getsize(trace)
    marks = guest_mark(vm, n)
    s0 = st.cmd("seq")["seq"]
    t0 = time.monotonic()
    R.cut(vm, cut)
    try:
        wait_ring(vm, "open", 20000)
        # Holding the cut for a span, not waiting for an event.
        time.sleep(max(0.0, CUT_HOLD_S - (time.monotonic() - t0)))
    finally:
        restore = time.time()
        R.cut(vm, cut, up=True)
    wait_ring(vm, "closed")
    flaps = settle(vm, 1000)
    got = losses(st, s0)
    evs = T.events(trace, off)
    cuts = [e for e in evs if e.name == "mrpsim_link" and e.args[1] == 0]
    if not cuts:
        raise SampleFailed("the trace shows no cut")
    cut_ev = cuts[0]
    # the manager's secondary (its port 1: the cut is not next to it)
    # set forwarding
    writes = [e for e in evs if e.name == "mrpsim_port_ctrl" and
              e.sw == "sw0" and e.args[0] == 1 and e.args[2] == 0 and
              e.vclock >= cut_ev.vclock]
    hw = engine(path)
    unblock = writes[0] if writes else None
    hwflush = {}
    if path == "assist":
        unblock = next((e for e in evs if e.name == "mrpsim_mrp_assist_open"
                        and e.sw == "sw0" and e.vclock >= cut_ev.vclock),
                       None)
        if unblock is None:
            raise SampleFailed("the trace shows no assist opening the ring")
        # The device traces the engine's own change as a port write too;
        # the timeline is aligned on the driver's, mrpd's, which follows.
        writes = [w for w in writes if w.vclock > unblock.vclock]
        for e in evs:
            if (e.name == "mrpsim_mrp_assist_flush" and e.sw != "sw0" and
                    e.vclock >= cut_ev.vclock):
                hwflush.setdefault(e.sw, e)
    r, firsts = outages(got, cut_ev.host, restore)
    r.update(flaps=flaps, _cut_host=cut_ev.host)
    if unblock:
        w = unblock
        r["port_write_ms"] = (w.vclock - cut_ev.vclock) / 1e6
        # first frame after the cut's gap, per direction: the station's
        # host time against the trace's (both the host's wall clock)
        if firsts and w.host:
            r["first_frame_ms"] = (max(firsts) - w.host) * 1e3
    if hw:
        dets = T.detections(evs, "sw0", iv_us)
        if dets:
            d = dets[0]
            r["detection_ms"] = d.detection_ms
            r["engine_ms"] = d.engine_ms
            r["host_delay_ms"] = d.host_delay_ms
            r["within_bound"] = d.engine_ms <= (max_miss + 1) * iv_us / 1e3
            if "port_write_ms" in r:
                r["reaction_ms"] = r["port_write_ms"] - d.detection_ms
    if "port_write_ms" not in r or not writes:
        raise SampleFailed("the trace shows no unblocking of the manager's "
                           "secondary after the cut")
    loss = next((e for e in evs if e.name == "mrpsim_mrp_loss" and
                 e.sw == "sw0"), None)
    logs, gtrace = guest_fetch(vm, marks)
    timeline(r, hw, logs, gtrace, writes[0], unblock,
             list(hwflush.values()), loss, firsts)
    del r["_cut_host"]
    return r


def judge(res, mine, failures, pctx):
    """A row's failures fail the bench, unless the row is the software
    path's on a guest whose vCPUs were saturated (res["saturated"]): in
    steady state, with the stations on, or while the ring failed to
    close ("failing")."""
    if not mine:
        return
    busy = max([res[k]["cpu_busy_pct"]
                for k in ("steady", "loaded", "failing") if k in res] or [0])
    if res["path"] == "software" and busy >= SATURATED_PCT:
        res["saturated"] = busy
        progress(pctx, "guest vCPUs %.0f%% busy: beyond this machine, "
                 "not a failure" % busy)
    else:
        failures.extend(mine)


def bench_vm(ctx, topo, keep, name):
    """A booted bench guest (a context manager: shut down on leaving it)
    and its QEMU trace file; its work directory keep/name, or a temporary
    one."""
    workdir = (os.path.join(keep, name) if keep else
               tempfile.mkdtemp(prefix="mrpsim-bench-"))
    os.makedirs(workdir, exist_ok=True)
    progress(ctx, "booting a guest with %d switches" % len(topo.switches))
    t0 = time.monotonic()
    vm = VM(topo, workdir=workdir, qemu_extra=["-msg", "timestamp=on"],
            boot_timeout=900)
    vm.bench_t0 = t0
    return vm, os.path.join(workdir, topo.trace_file)


def load_driver(vm, ctx):
    """In a booted bench_vm(): the driver, forwarding in the switches."""
    progress(ctx, "booted in %.0f s; nodes, stations, mrpd" %
             (time.monotonic() - vm.bench_t0))
    vm.check(". /mrpsim/lib.sh && load_driver l2_offload=1", timeout=900)


def splats_of(vm, ctx):
    """The guest's kernel splats as a failure list."""
    splats = find_splats(vm.log())
    return ["%s: kernel splats: %s" % (ctx, "; ".join(splats[:5]))] \
        if splats else []


def setup_failed(vm, res, e, mine, failures, pctx, n):
    """A row whose setup failed (e): a failure, judged like its samples'."""
    res["failed"].append("setup: %s" % e)
    mine.append("%s: %s" % (pctx, e))
    progress(pctx, "FAILED: %s" % e)
    if res["path"] == "software" and not ("steady" in res or
                                          "loaded" in res):
        # a ring (or interconnection) that never closed has no steady
        # state: how busy the vCPUs are while it fails is what judge()
        # needs
        progress(pctx, "guest CPU while failing, over %d s" % LOADED_S)
        try:
            res["failing"] = steady_cost(vm, n, LOADED_S)
        except (GuestError, AssertionError) as e2:
            progress(pctx, "no load figure: %s" % e2)
    judge(res, mine, failures, pctx)


def take_samples(res, samples, mine, pctx, one, undo):
    """samples samples of one() (a dict, its "flaps" the false openings
    it saw) into res; undo() after one that failed (restore the cable).
    A sample whose sender stalled is taken again, up to samples times."""
    i = 0
    while i < samples:
        try:
            s = one()
            res["false_opens"] += s.pop("flaps")
            res["samples"].append(s)
            i += 1
            progress(pctx, "sample %d of %d: outage %.0f ms (restore %.0f), "
                     "port write %.1f ms%s" % (
                         i, samples, s["outage_ms"], s["restore_outage_ms"],
                         s["port_write_ms"], ", detection %.2f ms" %
                         s["detection_ms"] if "detection_ms" in s else ""))
        except (SampleFailed, GuestError, AssertionError) as e:
            undo()
            if (isinstance(e, SenderStalled) and
                    len(res["discarded"]) < samples):
                res["discarded"].append(str(e))
                progress(pctx, "sample %d discarded, taken again: %s" % (
                    i + 1, e))
                continue
            res["failed"].append(str(e))
            mine.append("%s sample %d: %s" % (pctx, i + 1, e))
            progress(pctx, "sample %d FAILED: %s" % (i + 1, e))
            i += 1


def run_guest(path, n, profiles, samples, keep, results, guest_load=False):
    hw = engine(path)
    ctx = "%s n=%d%s" % (path, n, ", guest loaded" if guest_load else "")
    sa, sb, cut = stations(n)
    ports = trafgen.free_udp_ports(4)
    vm, trace = bench_vm(ctx, topology(hw, n, ports), keep,
                         "%s-%d" % (path, n))
    st = None
    failures = []
    with vm:
        load_driver(vm, ctx)
        if path == "assist":
            R.set_param(vm, "mrp_assist", True)
        R.build_nodes(vm)
        vm.check(trafgen.attach_stations((sa, sb), R.ns))
        start_guest_trace(vm, n)
        st = trafgen.stream(ports, PERIOD_US)
        try:
            for prof in profiles:
                pctx = "%s profile %d" % (ctx, prof)
                iv, mm = PROFILES[prof]
                real = iv if hw else sw_interval_us(iv)
                res = {"path": path, "n": n, "profile": prof,
                       "guest_load": guest_load,
                       "sender": st.scheduling,
                       "interval_us": iv, "real_interval_us": real,
                       "max_miss": mm, "samples": [], "failed": [],
                       "discarded": [], "false_opens": 0}
                results.append(res)
                mine = []
                try:
                    progress(pctx, "commissioning the ring (test interval "
                             "%d us, really %d us)" % (iv, real))
                    st.cmd("pause")
                    R.mrpd_rings(vm, profile=prof)
                    wait_ring(vm, "closed", 60000)
                    res["false_opens"] += settle(vm, max(1000, 50 * real //
                                                         1000))
                    progress(pctx, "steady state: CPU cost over %d s" %
                             STEADY_S)
                    res["steady"] = steady_cost(vm, n, STEADY_S)
                    st.cmd("resume")
                    progress(pctx, "stations on: guest CPU over %d s" %
                             LOADED_S)
                    res["loaded"] = steady_cost(vm, n, LOADED_S)
                    if guest_load:
                        progress(pctx, "a spinning process per vCPU")
                        vm.check("for i in 1 2; do setsid sh -c 'while :; "
                                 "do :; done' </dev/null >/dev/null 2>&1 & "
                                 "echo $!; done > /tmp/spinners")
                except (SampleFailed, GuestError, AssertionError) as e:
                    setup_failed(vm, res, e, mine, failures, pctx, n)
                    continue

                def one():
                    res["false_opens"] += settle(
                        vm, max(1000, 50 * real // 1000))
                    return sample(vm, st, cut, trace, iv, mm, path, n)
                take_samples(res, samples, mine, pctx, one,
                             lambda: R.cut(vm, cut, up=True))
                if guest_load:
                    vm.check("kill $(cat /tmp/spinners)")
                if res["false_opens"]:
                    mine.append("%s: %d false ring-opens" % (
                        pctx, res["false_opens"]))
                judge(res, mine, failures, pctx)
        finally:
            st.close()
    return failures + splats_of(vm, ctx)


# -- the interconnection ------------------------------------------------------

def in_case():
    """tests/cases/test_mrp_in.py, whose topology the bench measures."""
    spec = importlib.util.spec_from_file_location(
        "case_mrp_in", os.path.join(TOP, "tests", "cases", "test_mrp_in.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


IN = in_case()
IN_ID = 10
IN_MIM = 0
# interconnect.sh's ring managers (its nodes 3 and 7): each blocks its
# secondary, the cable to switch 3 (7), so that ring 1 is the line
# 3-0-1-2 and ring 2 the line 7-4-5-6
IN_MRMS = (2, 6)
# On switches 3 and 7 the stations' traffic crosses the MIM's switch and
# the link that is open: link B (s1p2-s5p2) while the MIM blocks link A,
# link A (s0p2-s4p2) once it has opened it.
IN_STATIONS = (3, 7)
LINK_A, LINK_B = [(Topology.netdev(a, 2), Topology.netdev(b, 2))
                  for a, b in sorted(IN.INS.items())]
IN_PORTS = sorted(set(IN.INS) | set(IN.INS.values()))
# Both rings with profile 200 ms (20 ms x 3), the ring profile the
# standard pairs the interconnection's 200 ms profile with; the
# interconnection is mrpd's default, profile 200: MRP_InTest every 20 ms,
# lost after 8 misses (tools/mrp/mrp_in_sm.c).
IN_RING_PROFILE = 200
IN_PROFILE = (200, 20000, 8)


def ring_of(i):
    return 1 if i < 4 else 2


def in_topology(mrp, ports):
    """test_mrp_in's two rings on switches with or without the engine,
    the stations on a third port of switches 3 and 7; every switch a
    node (ring_n: mrpring's namespaces and bridges)."""
    t = IN.topology()
    t.dumps = []        # the test's capture of link A: not for figures
    for sw in t.switches:
        sw["mrp"] = mrp
    t.ring_n = IN.N
    trafgen.add_stations(t, IN_STATIONS, ports)
    t.trace(*(T.EVENTS + T.IN_EVENTS))
    return t


def set_links(vm, ends, up):
    """Cut (or restore) a cable at both ends (QMP set_link)."""
    for nd in ends:
        vm.set_link(nd, up)


def in_commission(vm):
    """The rings as mrpd_rings() commissions one (each cut at its
    manager's secondary meanwhile, the clients first), then the
    interconnection: the MIM on switch 0, MICs on 1, 4 and 5, their
    interconnection ports up once every one has its role (before that
    the links and the rings are a loop)."""
    def add(i, what):
        return "{ %s || echo \"node %d failed\"; } &" % (
            R.nsx(i, "mrpctl add br0 " + what), i)

    def ring(i):
        return add(i, "ring %d primary s%dp0 secondary s%dp1 role %s "
                   "profile %d" % (ring_of(i), i, i, "mrm" if i in IN_MRMS
                                   else "mrc", IN_RING_PROFILE))
    cuts = [R.cable_ends(vm, m) for m in IN_MRMS]
    for ends in cuts:
        set_links(vm, ends, False)
    try:
        out = "".join(vm.check("\n".join([ring(i) for i in group] +
                                          ["wait"]))
                      for group in ([i for i in range(IN.N)
                                     if i not in IN_MRMS], IN_MRMS))
    finally:
        for ends in cuts:
            set_links(vm, ends, True)
    if "failed" in out:
        raise SampleFailed("mrpctl add: " + out.strip())
    for m in IN_MRMS:
        wait_mrpd(vm, m, "ring %d" % ring_of(m), "ring", "closed", 60000)
    out = vm.check("\n".join([add(i, "interconnection %d ring %d port "
                                      "s%dp2 role %s" % (
                                          IN_ID, ring_of(i), i,
                                          "mim" if i == IN_MIM else "mic"))
                              for i in IN_PORTS] + ["wait"]))
    if "failed" in out:
        raise SampleFailed("mrpctl add: " + out.strip())
    vm.check("\n".join("ip -n %s link set s%dp2 up" % (R.ns(i), i)
                       for i in IN_PORTS))
    wait_in(vm, "closed", 60000)


def in_build(vm):
    """Nodes and bridges, the interconnection ports in their bridges
    (down: see in_commission()), the stations."""
    R.build_nodes(vm)
    vm.check("\n".join("ip link set s%dp2 netns %s && ip -n %s link set "
                       "s%dp2 master br0" % (i, R.ns(i), R.ns(i), i)
                       for i in IN_PORTS))
    vm.check(trafgen.attach_stations(IN_STATIONS, R.ns))


def wait_in(vm, state, timeout_ms=30000):
    wait_mrpd(vm, IN_MIM, "interconnection %d" % IN_ID, "in", state,
              timeout_ms)


def in_counts(vm):
    """The MIM's interconnection openings and the ring managers' ring
    openings so far (mrpd's counters)."""
    out = vm.check("\n".join("echo @@%d; %s" % (i, R.nsx(i, "mrpctl -j "
                                                          "show"))
                             for i in (IN_MIM,) + IN_MRMS))
    opens, rings, node = None, 0, None
    for line in out.splitlines():
        if line.startswith("@@"):
            node = int(line[2:])
        elif line.startswith("{"):
            js = json.loads(line)
            if node == IN_MIM:
                opens = next((x["counters"]["opens"] for x in
                              js.get("interconnections", [])
                              if x["in_id"] == IN_ID), None)
            if node in IN_MRMS:
                rings += sum(r["openings"] for r in js["rings"])
    if opens is None:
        raise SampleFailed("the MIM's mrpd has no interconnection %d: %s"
                           % (IN_ID, out.strip()[-500:]))
    return opens, rings


def in_opened(vm, ms):
    """3 (mrpctl wait's timeout) when the MIM opened nothing in ms."""
    opens = in_counts(vm)[0]
    return vm.run(R.nsx(IN_MIM, "mrpctl wait br0 interconnection %d opens "
                        "%d timeout %d" % (IN_ID, opens + 1, ms)),
                  timeout=ms / 1000 + 60)[0]


def in_settle(vm, quiet_ms=1000):
    return settle(vm, quiet_ms, opened=in_opened, what="interconnection",
                  closed=lambda vm: wait_in(vm, "closed"))


def in_sample(vm, st, trace, hw):
    """One cut of link B and its restore; a dict of what it measured.
    Its flaps: openings of the MIM beyond the cut's one, and of a ring
    (no ring cable was cut)."""
    flaps = in_settle(vm)
    off = os.path.getsize(trace)
    marks = guest_mark(vm, IN.N)
    opens0, rings0 = in_counts(vm)
    s0 = st.cmd("seq")["seq"]
    t0 = time.monotonic()
    set_links(vm, LINK_B, False)
    try:
        wait_in(vm, "open", 20000)
        # Holding the cut for a span, not waiting for an event.
        time.sleep(max(0.0, CUT_HOLD_S - (time.monotonic() - t0)))
    finally:
        restore = time.time()
        set_links(vm, LINK_B, True)
    wait_in(vm, "closed")
    in_settle(vm)
    opens1, rings1 = in_counts(vm)
    got = losses(st, s0)
    evs = T.events(trace, off)
    cut_ev = next((e for e in evs if e.name == "mrpsim_link" and
                   e.args[1] == 0), None)
    if cut_ev is None:
        raise SampleFailed("the trace shows no cut")
    r, firsts = outages(got, cut_ev.host, restore)
    # no recovery: a gap of the cut's (begun before halfway to the
    # restore, as outages() splits them) that lasted until the restore
    if any(x[2] < (cut_ev.host + restore) / 2 and
           (x[3] is None or x[3] >= restore)
           for d in got["rx"].values() for x in d):
        raise SampleFailed("no recovery: the stations' traffic did not "
                           "flow again while link B was cut")
    r["flaps"] = flaps + opens1 - opens0 - 1 + rings1 - rings0
    r["opens"] = opens1 - opens0        # 1: the cut's
    r["ring_opens"] = rings1 - rings0
    # the MIM's switch sets its interconnection port forwarding
    write = next((e for e in evs if e.name == "mrpsim_port_ctrl" and
                  e.sw == "sw%d" % IN_MIM and e.args[0] == 2 and
                  e.args[2] == 0 and e.vclock >= cut_ev.vclock), None)
    if write is None:
        raise SampleFailed("the trace shows no unblocking of the MIM's "
                           "interconnection port after the cut")
    r["port_write_ms"] = (write.vclock - cut_ev.vclock) / 1e6
    if firsts and write.host:
        r["first_frame_ms"] = (max(firsts) - write.host) * 1e3
    loss = next((e for e in evs if e.name == "mrpsim_mrp_in_loss" and
                 e.sw == "sw%d" % IN_MIM and e.vclock >= cut_ev.vclock),
                None)
    # also when a MIC's InLinkDown opened it earlier: the InTest's own
    # detection, which a cut the MICs do not see would wait for
    if hw and loss is not None and loss.host < restore:
        r["detection_ms"] = (loss.vclock - cut_ev.vclock) / 1e6
    logs, gtrace = guest_fetch(vm, marks)
    if r["opens"] != 1:
        # what the MIM's mrpd did, to tell why
        r["mim_log"] = ["%.6f %s" % x for x in logs.get(IN_MIM, [])][:80]
    # What opened it: a MIC's MRP_InLinkDown (mrpd -v logs the frames
    # it gets) before the MIM's mrpd set its port, or the lost InTest.
    r["trigger"] = "InTest lost"
    for _, text in logs.get(IN_MIM, []):
        if " InLinkDown seq " in text:
            r["trigger"] = "InLinkDown"
        if "interconnection %d: port-state" % IN_ID in text or \
                " InLinkDown seq " in text:
            break
    # Each node's first FDB flush after the MIM's write (mrpd -v, on the
    # guest's clock, tied to the host's by the driver's trace event of
    # that write, as timeline() does): the stations' frames follow stale
    # entries until the nodes on the new path have flushed.
    gw = next((t for t, ev, a in gtrace if ev == "mrpsim_port_ctrl" and
               a.startswith("s%dp2 " % IN_MIM) and a.endswith(" state 0")),
              None)
    if gw is not None:
        fl = {}
        for node, lines in logs.items():
            t = next((t for t, x in lines if t >= gw and
                      x.endswith("fdb flushed")), None)
            if t is not None:
                fl[node] = round((t + write.host - gw - cut_ev.host) * 1e3,
                                 1)
        r["flush_ms"] = fl
    return r


def run_in_guest(path, samples, keep, results):
    """The interconnection bench on one path; its failures."""
    hw = engine(path)
    ctx = pctx = "interconnection %s" % path
    ports = trafgen.free_udp_ports(4)
    vm, trace = bench_vm(ctx, in_topology(hw, ports), keep,
                         "in-%s" % path)
    failures = []
    with vm:
        load_driver(vm, ctx)
        in_build(vm)
        start_guest_trace(vm, IN.N)
        st = trafgen.stream(ports, PERIOD_US)
        try:
            res = {"path": path, "n": IN.N, "ring_profile": IN_RING_PROFILE,
                   "profile": IN_PROFILE[0], "interval_us": IN_PROFILE[1],
                   "max_miss": IN_PROFILE[2], "sender": st.scheduling,
                   "samples": [], "failed": [], "discarded": [],
                   "false_opens": 0}
            results.append(res)
            mine = []
            try:
                progress(pctx, "commissioning the rings and the "
                         "interconnection")
                st.cmd("pause")
                in_commission(vm)
                res["false_opens"] += in_settle(vm)
                # (the MIM may open once as its interconnection comes up:
                # the MICs block their ports until its InTopologyChange)
                res["commissioning_opens"] = in_counts(vm)[0]
                st.cmd("resume")
                progress(pctx, "stations on: guest CPU over %d s" %
                         LOADED_S)
                res["loaded"] = steady_cost(vm, IN.N, LOADED_S)
            except (SampleFailed, GuestError, AssertionError) as e:
                setup_failed(vm, res, e, mine, failures, pctx, IN.N)
            else:
                take_samples(res, samples, mine, pctx,
                             lambda: in_sample(vm, st, trace, hw),
                             lambda: set_links(vm, LINK_B, True))
                if res["false_opens"]:
                    mine.append("%s: %d false openings" % (
                        pctx, res["false_opens"]))
                judge(res, mine, failures, pctx)
        finally:
            st.close()
    return failures + splats_of(vm, ctx)


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x, unit=" ms", digits=1):
    return "n/a" if x is None else "%.*f%s" % (digits, x, unit)


def summarise(res):
    s = res["samples"]

    def col(k):
        return [x[k] for x in s if k in x]
    out = {}
    for k in ("outage_ms", "restore_outage_ms", "detection_ms", "engine_ms",
              "reaction_ms", "port_write_ms", "first_frame_ms"):
        xs = col(k)
        out[k] = (med(xs), min(xs) if xs else None, max(xs) if xs else None)
    within = col("within_bound")
    out["within"] = (sum(within), len(within))
    return out


def spread(v):
    """A figure of summarise(): median (min-max), or n/a."""
    return "n/a" if v[0] is None else "%.1f (%.1f-%.1f)" % v


def label(r):
    return r["path"] + (", guest loaded" if r.get("guest_load") else "")


def ring_lines(results):
    """The report's sections on the rings."""
    lines = ["| path | nodes | profile | test interval (real) | outage | "
             "restore outage | detection | engine within (max_miss+1) x "
             "interval | reaction | port write | first frame after write | "
             "samples | false opens | sender late |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        m = summarise(r)

        def mm(k):
            return spread(m[k])
        w = m["within"]
        late = [x.get("sender_late_ms", 0) for x in r["samples"]]
        lines.append("| %s | %d | %d ms | %d us (%d us) | %s | %s | %s | %s "
                     "| %s | %s | %s | %d%s | %d | %.1f ms |" % (
                         label(r), r["n"], r["profile"], r["interval_us"],
                         r["real_interval_us"], mm("outage_ms"),
                         mm("restore_outage_ms"), mm("detection_ms"),
                         "%d of %d" % w if w[1] else "n/a",
                         mm("reaction_ms"), mm("port_write_ms"),
                         mm("first_frame_ms"), len(r["samples"]),
                         (" (%d failed)" % len(r["failed"]) if r["failed"]
                          else "") +
                         (", %d discarded" % len(r.get("discarded", []))
                          if r.get("discarded") else ""),
                         r["false_opens"], max(late or [0])))
    lines += ["", "## Where the time goes", "",
              "Median ms after the cut at which each stage ended (host "
              "clock; the guest's trace and mrpd logs aligned on the "
              "driver's write of the manager's port).  A stage's share is "
              "the difference to the column before; opened by: what made "
              "the manager's mrpd open the ring.", "",
              "| path | nodes | profile | opened by | " +
              " | ".join(k for k, _ in TIMELINE) + " | outage |",
              "|---|---|---|---|" + "---|" * (len(TIMELINE) + 1)]
    for r in results:
        tls = [x["timeline_ms"] for x in r["samples"] if "timeline_ms" in x]
        if not tls:
            continue
        trig = {}
        for x in r["samples"]:
            trig[x.get("trigger", "?")] = trig.get(x.get("trigger", "?"),
                                                   0) + 1
        cells = [fmt(med([t[k] for t in tls if k in t]), "")
                 for k, _ in TIMELINE]
        lines.append("| %s | %d | %d ms | %s | %s | %s |" % (
            label(r), r["n"], r["profile"],
            ", ".join("%s %d" % kv for kv in sorted(trig.items())),
            " | ".join(cells), fmt(summarise(r)["outage_ms"][0], "")))
    lines += [""] + ["- %s: %s" % kv for kv in TIMELINE]
    lines += ["", "## MRP's CPU cost per node in steady state",
              "", "Closed ring, stations paused, %d s, from the first second "
              "in which no MRP frame but MRP_Test reached a CPU (at most %d "
              "s later); busiest node: the "
              "node with the most MRP frames to its CPU, and how many of "
              "them were MRP_Test.  vCPUs busy: the share of the guest's "
              "vCPUs (all the switches' CPUs) that was busy, stations "
              "paused and, over %d s, stations on." % (STEADY_S, QUIET_S,
                                                      LOADED_S),
              "",
              "| path | nodes | profile | MRP frames to CPU /s (mean) | "
              "busiest node: MRP /s (Test /s) | switch interrupts /s | "
              "guest CPU ms/s | vCPUs busy (stations on) |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results:
        c = r.get("steady")
        if not c:
            continue
        lo = r.get("loaded")
        lines.append("| %s | %d | %d ms | %.1f | n%d: %.1f (%.1f) | %.1f | "
                     "%.1f | %.0f%% (%s) |" % (
                         label(r) + ("" if c.get("quiet", True) else
                                      " (control frames never stopped)"),
                         r["n"], r["profile"],
                         c["mrp_to_cpu_per_s_mean"], c["busiest_node"],
                         c["mrp_to_cpu_per_s_max"],
                         c["busiest_node_test_per_s"],
                         c["irq_per_s_per_node"], c["cpu_ms_per_s_per_node"],
                         c["cpu_busy_pct"],
                         "%.0f%%" % lo["cpu_busy_pct"] if lo else "n/a"))
    return lines


def in_lines(in_results):
    """The report's section on the interconnection."""
    lines = ["## Interconnection", "",
             "Two rings of %d switches joined by two links through four "
             "interconnection nodes (IEC 62439-2 Ed. 2, RC mode; "
             "tests/cases/test_mrp_in.py): the MIM on switch 0 blocks link "
             "A (s0p2-s4p2), the stations on switches %d (ring 1) and %d "
             "(ring 2) exchange their frames over link B (s1p2-s5p2).  "
             "Each sample cuts link B at both ends for %.1f s, then "
             "restores it and waits until the MIM reports the "
             "interconnection closed and opens nothing for 1 s.  Rings: "
             "profile %d ms (ring managers on switches %s), the switches' "
             "L2 forwarding in hardware on both paths; hardware: the "
             "rings and the interconnection in the switches' MRP engine "
             "(the MIM's switch sends and checks MRP_InTest), software: "
             "switches without the engine (mrp=off), the bridges run "
             "both.  Detection: the cut to the MIM engine's loss of its "
             "InTest (device clock), also where a MIC's MRP_InLinkDown "
             "opened the interconnection first (what a cut that no MIC "
             "sees waits for); I-port write: the cut to the MIM's "
             "switch setting its interconnection port forwarding; opened "
             "by: what made the MIM's mrpd open it (its InTest lost, or a "
             "MIC's MRP_InLinkDown); false opens: openings of the "
             "interconnection beyond one per cut (one that closes again "
             "while the link is cut counts), and of a ring; vCPUs "
             "busy: the guest's, stations on." % (
                 IN.N // 2, IN_STATIONS[0], IN_STATIONS[1], CUT_HOLD_S,
                 IN_RING_PROFILE, " and ".join(map(str, IN_MRMS))), "",
             "| path | interconnection profile (InTest interval x "
             "max-miss) | outage | restore outage | detection | I-port "
             "write | first frame after write | opened by | samples | "
             "false opens | vCPUs busy | sender late |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    per = []
    for r in in_results:
        m = summarise(r)

        def mm(k):
            return spread(m[k])
        trig = {}
        for x in r["samples"]:
            trig[x["trigger"]] = trig.get(x["trigger"], 0) + 1
        late = [x.get("sender_late_ms", 0) for x in r["samples"]]
        lo = r.get("loaded") or r.get("failing")
        lines.append("| %s | %d ms (%d us x %d) | %s | %s | %s | %s | %s | "
                     "%s | %d%s | %d | %s | %.1f ms |" % (
                         r["path"], r["profile"], r["interval_us"],
                         r["max_miss"], mm("outage_ms"),
                         mm("restore_outage_ms"), mm("detection_ms"),
                         mm("port_write_ms"), mm("first_frame_ms"),
                         ", ".join("%s %d" % kv for kv in
                                   sorted(trig.items())) or "n/a",
                         len(r["samples"]),
                         (" (%d failed)" % len(r["failed"]) if r["failed"]
                          else "") +
                         (", %d discarded" % len(r["discarded"])
                          if r["discarded"] else ""),
                         r["false_opens"],
                         "%.0f%%" % lo["cpu_busy_pct"] if lo else "n/a",
                         max(late or [0])))
        per.append("- %s: outage %s ms; restore outage %s ms" % (
            r["path"], ", ".join("%.0f" % x["outage_ms"]
                                 for x in r["samples"]) or "none",
            ", ".join("%.0f" % x["restore_outage_ms"]
                      for x in r["samples"]) or "none"))
    return lines + ["", "Per sample:", ""] + per + [""]


def report(results, failures, args, secs, in_results=()):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "bench.json"), "w") as f:
        json.dump({"args": vars(args), "period_us": PERIOD_US,
                   "cut_hold_s": CUT_HOLD_S, "results": results,
                   "interconnection": list(in_results),
                   "failures": failures, "seconds": secs}, f, indent=1)
    lines = ["# mrpsim bench", "",
             "Traffic outage when a ring cable (or an interconnection link) "
             "is cut: two host-side stations on opposite sides of the ring "
             "(or in the two rings) exchange a frame every "
             "%d us; the outage is the longest run of lost frames (worse "
             "direction); sender late: the longest the host-side sender ran "
             "late near a cut or restore (the outage is good to that); a "
             "sample in which it stalled for more than %d ms is discarded "
             "and taken again.  "
             "Median (min-max) over the samples; every sample "
             "is in bench.json.  Run took %.0f min on a guest kernel with "
             "DEBUG=%s.  See tests/bench.py for what each column measures."
             % (PERIOD_US, STALL_MS, secs / 60, os.environ.get("DEBUG", "1")),
             ""]
    if results:
        lines += ring_lines(results)
    if in_results:
        lines += in_lines(in_results)
    sat = [r for r in list(results) + list(in_results)
           if "saturated" in r]
    if sat:
        lines += ["", "## Beyond this machine", "",
                  "Software-path rows that failed while the guest's vCPUs "
                  "were at least %d%% busy.  Every switch's bridge runs on "
                  "the guest's vCPUs, so a test frame's round trip through "
                  "the N - 1 clients waits behind the other switches' "
                  "work: these rows measure the emulation, not MRP, "
                  "and do not fail the bench." % SATURATED_PCT, ""]
        lines += ["- %s, vCPUs %.0f%% busy: %d false %s; %s" % (
            ("%s interconnection" % r["path"]) if "ring_profile" in r else
            "%s n=%d profile %d ms" % (r["path"], r["n"], r["profile"]),
            r["saturated"], r["false_opens"],
            "openings" if "ring_profile" in r else "ring-opens",
            "; ".join(r["failed"]) or "no failed sample") for r in sat]
    lines += ["", "## Failures", ""] + (["- " + f for f in failures] or
                                        ["none"])
    plot = draw(results) if results else None
    if plot:
        lines += ["", "![outage against ring size](%s)" % plot]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "report.md"), "w") as f:
        f.write(text)
    return text


def draw(results):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# no python3-matplotlib: no plot")
        return None
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    fig, ax = plt.subplots(figsize=(7, 4.5))
    keys = sorted({(label(r), r["profile"]) for r in results})
    colors = {p: "C%d" % i for i, p in enumerate(sorted(PROFILES))}
    for path, prof in keys:
        pts = []
        for r in results:
            if (label(r), r["profile"]) != (path, prof):
                continue
            xs = [s["outage_ms"] for s in r["samples"]]
            if xs:
                pts.append((r["n"], med(xs), min(xs), max(xs)))
        if not pts:
            continue
        pts.sort()
        # the paths a little apart: no overlap
        base = path.split(",")[0]
        shift = {"assist": 0.94, "hardware": 0.97}.get(base, 1.03)
        ax.errorbar([p[0] * shift for p in pts], [p[1] for p in pts],
                    yerr=[[p[1] - p[2] for p in pts],
                          [p[3] - p[1] for p in pts]],
                    marker={"assist": "^", "hardware": "o"}.get(base, "s"),
                    linestyle={"assist": ":", "hardware": "-"}.get(base,
                                                                    "--"),
                    fillstyle="none" if "loaded" in path else "full",
                    color=colors[prof], capsize=3,
                    label="%s, profile %d ms" % (path, prof))
    ax.set_xlabel("switches in the ring")
    ax.set_ylabel("traffic outage (ms)")
    ax.set_yscale("log")
    ax.set_xscale("log")
    ax.set_xticks(sorted({r["n"] for r in results}))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("mrpsim: outage after a cable cut (median, min-max)")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "outage.png"), dpi=100)
    return "outage.png"


def ints(s):
    return [int(x) for x in s.split(",") if x]


def main():
    global OUT
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=ints, default=[4, 14, 50])
    ap.add_argument("--profiles", type=ints, default=[10, 30, 200])
    ap.add_argument("--paths", default="assist,hardware,software")
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--guest-load", action="store_true",
                    help="a spinning process per guest vCPU during the "
                    "samples")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep each guest's logs and trace in DIR")
    ap.add_argument("--out", metavar="DIR", default=OUT,
                    help="where the report goes (default: %(default)s)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite report.md and outage.png from bench.json")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--interconnection", action="store_true",
                       help="only the interconnection (its paths: those "
                       "of --paths\nbut assist; --sizes, --profiles and "
                       "--guest-load do not\napply to it)")
    which.add_argument("--no-interconnection", action="store_true",
                       help="only the rings")
    a = ap.parse_args()
    OUT = os.path.abspath(a.out)
    if a.report_only:
        with open(os.path.join(OUT, "bench.json")) as f:
            saved = json.load(f)
        print(report(saved["results"], saved["failures"],
                     argparse.Namespace(**saved["args"]), saved["seconds"],
                     saved.get("interconnection", [])))
        return 1 if saved["failures"] else 0
    sys.stdout.reconfigure(line_buffering=True)
    for p in a.profiles:
        if p not in PROFILES:
            ap.error("--profiles: one of %s" % sorted(PROFILES))
    paths = a.paths.split(",")
    for p in paths:
        if p not in ("assist", "hardware", "software"):
            ap.error("--paths: assist, hardware and/or software, not %r"
                     % p)
    if a.keep:
        a.keep = os.path.abspath(a.keep)
    t0 = time.monotonic()
    results, failures, in_results = [], [], []
    for n in [] if a.interconnection else a.sizes:
        for p in paths:
            try:
                failures += run_guest(p, n, a.profiles, a.samples, a.keep,
                                      results, a.guest_load)
            except (GuestError, SampleFailed, RuntimeError) as e:
                failures.append("%s n=%d: %s" % (p, n, e))
                print("[%s n=%d] FAILED: %s" % (p, n, e))
            report(results, failures, a, time.monotonic() - t0)
    # the interconnection has no assist: the engine's paths are one
    for p in [] if a.no_interconnection else [
            x for x in ("hardware", "software") if x in paths]:
        try:
            failures += run_in_guest(p, a.samples, a.keep, in_results)
        except (GuestError, SampleFailed, RuntimeError) as e:
            failures.append("interconnection %s: %s" % (p, e))
            print("[interconnection %s] FAILED: %s" % (p, e))
        report(results, failures, a, time.monotonic() - t0, in_results)
    print(report(results, failures, a, time.monotonic() - t0, in_results))
    print("# written: %s/report.md, bench.json, outage.png" % OUT)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
