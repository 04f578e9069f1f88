"""QEMU trace of a ring of mrpsim switches: cable cuts, the manager
engine's ticks and loss events, and port state writes, on the device's
virtual clock (the "vclock" of each event, ns); of an interconnection,
the MIM engine's loss of its MRP_InTest.

Topology.trace(*EVENTS) (and *IN_EVENTS) asks QEMU for them; events()
reads them back.

Detection of a cut is the time from the cut (mrpsim_link, up 0) to the
manager engine's loss event.  The engine counts test intervals with a
timer on the virtual clock; under TCG that timer runs in QEMU's main loop
and fires late when the host is busy.  A tick more than half an interval
late counts no miss (no frame could move while the host held QEMU back)
and the next deadline is a whole interval after it
(docs/specs/mrpsim.rst).  host_delay is what the host added: for every
late tick since the cut its lateness plus the interval it did not count,
and the lateness of the detecting tick.  The engine's own figure,
detection minus host_delay, stays within (max_miss + 1) intervals, and
the ticks that counted are at most max_miss + 1.
"""

import collections
import re

EVENTS = ("mrpsim_link", "mrpsim_mrp_loss", "mrpsim_mrp_regain",
          "mrpsim_mrp_tick", "mrpsim_port_ctrl", "mrpsim_mrp_assist_open",
          "mrpsim_mrp_assist_flush", "mrpsim_mrp_ring_state")
# and of an interconnection: the MIM engine's loss of its MRP_InTest
IN_EVENTS = ("mrpsim_mrp_in_loss",)

# "PID@SECONDS:" comes first with -msg timestamp=on
LINE_RE = re.compile(r"^(?:\d+@(\d+\.\d+):)?(mrpsim_\w+) (.*)$")
ARGS_RE = {
    "mrpsim_link": re.compile(
        r"(\S+) port (\d+) link (\d) vclock (\d+)"),
    "mrpsim_mrp_loss": re.compile(
        r"(\S+) ring (\d+) loss of continuity on port (\d+) after (\d+) "
        r"misses vclock (\d+)"),
    "mrpsim_mrp_regain": re.compile(
        r"(\S+) ring (\d+) continuity regained on port (\d+) vclock (\d+)"),
    "mrpsim_mrp_tick": re.compile(
        r"(\S+) ring (\d+) tick at (\d+) ns, deadline (\d+)"),
    "mrpsim_port_ctrl": re.compile(
        r"(\S+) port (\d+) en (\d) state (\d) vclock (\d+)"),
    "mrpsim_mrp_assist_open": re.compile(
        r"(\S+) ring (\d+) assist: ring opened, secondary forwarding "
        r"vclock (\d+)"),
    "mrpsim_mrp_assist_flush": re.compile(
        r"(\S+) ring (\d+) assist: (\d+) learned entries flushed "
        r"vclock (\d+)"),
    "mrpsim_mrp_ring_state": re.compile(
        r"(\S+) ring (\d+) RING_STATE (\d) written vclock (\d+)"),
    "mrpsim_mrp_in_loss": re.compile(
        r"(\S+) ring (\d+) interconnection lost after (\d+) misses "
        r"vclock (\d+)"),
}

# host: the host's clock (s, 0 without -msg timestamp=on); vclock: the
# device clock (ns)
Event = collections.namedtuple("Event", "host name sw args vclock")


def events(path, offset=0):
    """Events of a trace file from byte offset on, in order."""
    out = []
    with open(path, errors="replace") as f:
        f.seek(offset)
        for line in f:
            m = LINE_RE.match(line)
            if not m or m.group(2) not in ARGS_RE:
                continue
            a = ARGS_RE[m.group(2)].match(m.group(3))
            if not a:
                continue
            g = a.groups()
            if m.group(2) == "mrpsim_mrp_tick":
                vclock = int(g[2])
            else:
                vclock = int(g[-1])
            out.append(Event(float(m.group(1) or 0), m.group(2), g[0],
                             tuple(int(x) for x in g[1:]), vclock))
    return out


Detection = collections.namedtuple(
    "Detection", "cut_ns loss_ns detection_ms host_delay_ms engine_ms ticks")


def detections(evs, manager="sw0", interval_us=1000):
    """For every cut (a link going down) followed by a loss event of the
    manager's engine before the next cut: its Detection."""
    iv = interval_us * 1000
    out = []
    cuts = [e for e in evs if e.name == "mrpsim_link" and e.args[1] == 0]
    for k, cut in enumerate(cuts):
        # The first cut of a burst (both ends of a cable) counts.
        if k and cut.vclock - cuts[k - 1].vclock < iv:
            continue
        nxt = [c.vclock for c in cuts[k + 1:] if c.vclock - cut.vclock >= iv]
        end = nxt[0] if nxt else None
        loss = next((e for e in evs if e.name == "mrpsim_mrp_loss" and
                     e.sw == manager and e.vclock >= cut.vclock and
                     (end is None or e.vclock < end)), None)
        if loss is None:
            continue
        ticks = [e for e in evs if e.name == "mrpsim_mrp_tick" and
                 e.sw == manager and e.args[0] == loss.args[0] and
                 cut.vclock < e.vclock <= loss.vclock]
        if not ticks:
            continue
        # A tick more than half an interval late counts nothing and the
        # next deadline is a whole interval after it
        # (docs/specs/mrpsim.rst): each such tick delays the detection
        # by its lateness and an interval.  The tick that declared the
        # loss ran on time; its lateness is the host's too.
        delay, counted = 0, 0
        for e in ticks:
            late = e.vclock - e.args[2]
            if late > iv // 2:
                delay += late + iv
            else:
                counted += 1
        delay += ticks[-1].vclock - ticks[-1].args[2]
        det = loss.vclock - cut.vclock
        out.append(Detection(cut.vclock, loss.vclock, det / 1e6,
                             delay / 1e6, (det - delay) / 1e6, counted))
    return out

