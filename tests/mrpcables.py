"""Every cable of a ring captured in both directions, and the check that
every MRP frame crosses each cable once per direction.

Cable c joins node c's secondary port (s<c>p1) to node c+1's primary
(s<c+1>p0).  capture_cables() records, with QEMU's filter-dump on the
hubport of each cable end, only what that switch port puts on the cable
(queue=rx): c<c>.fwd.pcap holds what goes from node c to node c+1,
c<c>.rev.pcap what goes back.  Guest-side captures (`mrpctl capture -j`
on veth rings, whose cables QEMU cannot see) give the same records.

An MRP frame is identified by its source MAC, its first TLV and the
sequence id of its Common TLV; the same identity seen again more than
GAP_S later is another frame (sequence ids wrap every 65536 frames, 32 s
of test frames at 1 ms).  filter-dump stamps frames with the virtual
clock plus the wall-clock second it was created at: captures created in
different seconds are a whole second apart, so GAP_S is larger.
exactly_once() reports every frame that crossed a cable more than once in
one direction, or in both directions: a client that doubles frames, a
frame circulating with no manager to stop it, a frame bounced back.
"""

import collections
import json
import os
import struct

GAP_S = 2.5          # copies of one frame are closer than this

TLV_NAMES = {0x02: "Test", 0x03: "TopologyChange", 0x04: "LinkDown",
             0x05: "LinkUp", 0x06: "InTest", 0x07: "InTopologyChange",
             0x08: "InLinkDown", 0x09: "InLinkUp", 0x0a: "InLinkStatus",
             0x7f: "Option"}

# One crossing of a cable: cable c, direction "fwd" (node c to c+1) or
# "rev", time (s, capture clock), source MAC (hex), last byte of the
# destination, first TLV type, sequence id (None when not found).
Crossing = collections.namedtuple(
    "Crossing", "cable dir ts src dst tlv seq")


def capture_cables(topo, n):
    """Add captures of both directions of cables 0..n-1 to a Topology."""
    for c in range(n):
        topo.dump("s%dp1" % c, "c%d.fwd.pcap" % c, "rx")
        topo.dump("s%dp0" % ((c + 1) % n), "c%d.rev.pcap" % c, "rx")


def pcap_records(path, start=0, end=None):
    """(time s, frame bytes) of a pcap file between byte offsets start
    (0: after the file header) and end; a record cut off by end, or being
    written, is left out."""
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            return
        f.seek(max(start, 24))
        data = f.read(None if end is None else max(0, end - max(start, 24)))
    magic = head[:4]
    little = magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    fmt = ("<" if little else ">") + "IIII"
    off = 0
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from(fmt, data, off)
        if off + 16 + incl > len(data):
            break
        yield sec + frac / (1e9 if nano else 1e6), data[off + 16:
                                                       off + 16 + incl]
        off += 16 + incl


def parse_mrp(frame):
    """(src hex, dst last byte, first TLV, seq or None) of an untagged
    MRP frame, None for anything else.  TLVs start 4-byte aligned in the
    frame (IEC 62439-2 pads MRP_LinkChange and MRP_Option)."""
    if len(frame) < 18 or frame[12:14] != b"\x88\xe3":
        return None
    off, first, seq = 16, frame[16], None
    while off + 2 <= len(frame):
        t, n = frame[off], frame[off + 1]
        if t == 0x01 and off + 4 <= len(frame):
            seq = struct.unpack_from(">H", frame, off + 2)[0]
            break
        if t == 0x00:
            break
        off = (off + 2 + n + 3) & ~3
    return frame[6:12].hex(), frame[5], first, seq


class Cables:
    """The captures of a ring's cables in a VM's work directory."""

    def __init__(self, vm, n):
        self.n = n
        self.paths = {}
        for c in range(n):
            for d in ("fwd", "rev"):
                self.paths[(c, d)] = os.path.join(
                    vm.workdir, "c%d.%s.pcap" % (c, d))

    def mark(self):
        """Where every capture ends now: pass to crossings(since=...)."""
        return {k: (os.path.getsize(p) if os.path.exists(p) else 0)
                for k, p in self.paths.items()}

    def crossings(self, since=None, until=None):
        """Every MRP frame put on a cable between two marks."""
        out = []
        for k, p in self.paths.items():
            if not os.path.exists(p):
                continue
            for ts, frame in pcap_records(
                    p, (since or {}).get(k, 0),
                    (until or {}).get(k)):
                m = parse_mrp(frame)
                if m:
                    out.append(Crossing(k[0], k[1], ts, *m))
        return out


class GuestCables:
    """The same for a ring whose cables QEMU does not see (veth pairs):
    `mrpctl -j capture --out` in every node's namespace (n<i>) writes
    what the node sends on its ring ports (ports: primary and secondary
    name patterns; node i's secondary is cabled to node i+1's
    primary)."""

    def __init__(self, vm, n, ports):
        self.vm, self.n, self.ports = vm, n, ports
        self.where = {}
        for i in range(n):
            self.where[(i, ports[1] % i)] = (i, "fwd")
            self.where[(i, ports[0] % i)] = ((i - 1) % n, "rev")
        cmds = []
        for i in range(n):
            cmds.append(
                "nsenter --net=/run/netns/n%d mrpctl -j capture --out %s %s "
                ">/tmp/cap-n%d.json 2>/tmp/cap-n%d.err & echo $! "
                ">/tmp/cap-n%d.pid" % (i, ports[0] % i, ports[1] % i,
                                      i, i, i))
        # listening once the packet socket (ETH_P_ALL, 0003) is bound
        for i in range(n):
            cmds.append("nsenter --net=/run/netns/n%d sh -c '. /mrpsim/lib.sh;"
                        " wait_for 10000 grep -q \" 0003 \" /proc/net/packet'"
                        " || exit 1" % i)
        vm.check("\n".join(cmds))

    def stop(self):
        """End the captures; fails if one lost frames (kernel drops)."""
        out = self.vm.check(
            ". /mrpsim/lib.sh; for i in $(seq 0 %d); do p=$(cat "
            "/tmp/cap-n$i.pid); kill $p; wait_for 10000 sh -c \"! kill -0 "
            "$p\" || exit 1; done; cat /tmp/cap-n*.err" % (self.n - 1))
        assert "dropped" not in out, out

    def mark(self):
        out = self.vm.check("for i in $(seq 0 %d); do wc -l < "
                            "/tmp/cap-n$i.json; done" % (self.n - 1))
        return {i: int(x) for i, x in enumerate(out.split())}

    def crossings(self, since=None, until=None):
        since, until = since or {}, until or {}
        lines = []
        for i in range(self.n):
            a = since.get(i, 0) + 1
            b = "%d" % until[i] if i in until else "$"
            text = self.vm.fetch("sed -n '%d,%sp' /tmp/cap-n%d.json" %
                                 (a, b, i))
            lines += [(i, x) for x in text.splitlines()]
        return guest_crossings(lines, self.where, self.n)


def guest_crossings(lines, node_ports, n):
    """Crossings from `mrpctl -j capture --out` lines of every node of a
    veth ring: node_ports maps (node, ifname) to (cable, direction)."""
    out = []
    for node, line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        where = node_ports.get((node, r.get("ifname")))
        if where is None or r.get("dir") != "out":
            continue
        dst = int(r["dst"].split(":")[-1], 16)
        out.append(Crossing(where[0], where[1], r["time"],
                            r["src"].replace(":", ""), dst, r["tlv"],
                            r.get("seq")))
    return out


def frames(crossings):
    """Group crossings into frames: {(src, tlv, seq, k): [crossing...]}
    where k numbers the frames that share an identity, GAP_S apart."""
    byid = collections.defaultdict(list)
    for x in crossings:
        byid[(x.src, x.tlv, x.seq)].append(x)
    out = {}
    for ident, xs in byid.items():
        xs.sort(key=lambda x: x.ts)
        k, last = 0, None
        for x in xs:
            if last is not None and x.ts - last > GAP_S:
                k += 1
            out.setdefault(ident + (k,), []).append(x)
            last = x.ts
    return out


def exactly_once(crossings):
    """Check that no MRP frame crossed a cable twice in one direction, or
    in both directions.  Returns (problems, stats): problems lists a line
    per offending frame, stats counts frames and crossings per type."""
    problems = []
    stats = collections.Counter()
    for (src, tlv, seq, _), xs in sorted(frames(crossings).items(),
                                         key=lambda kv: kv[1][0].ts):
        name = TLV_NAMES.get(tlv, "0x%02x" % tlv)
        stats[name + " frames"] += 1
        stats[name + " crossings"] += len(xs)
        per = collections.Counter((x.cable, x.dir) for x in xs)
        dup = sorted(k for k, v in per.items() if v > 1)
        both = sorted({c for c, d in per if (c, "fwd") in per and
                       (c, "rev") in per})
        if seq is None:
            problems.append("%s from %s without a sequence id" % (name, src))
        elif dup or both:
            problems.append(
                "%s from %s seq %s at %.3f: %s" % (
                    name, src, seq, xs[0].ts, ", ".join(
                        ["%d copies on cable %d %s" % (per[k], k[0], k[1])
                         for k in dup[:4]] +
                        ["both directions of cable %d" % c
                         for c in both[:4]])))
    return problems, stats


def coverage(crossings, tlv, n, src=None, margin_s=GAP_S):
    """For frames of one type (and source MAC), how many reached how many
    of the n cables: {cables: frames}.  Frames first seen within margin_s
    of either end of the captured span are left out (still in flight)."""
    if not crossings:
        return {}
    t0 = min(x.ts for x in crossings) + margin_s
    t1 = max(x.ts for x in crossings) - margin_s
    hist = collections.Counter()
    for (s, t, _, _), xs in frames(crossings).items():
        if t != tlv or (src and s != src) or not t0 <= xs[0].ts <= t1:
            continue
        hist[len({x.cable for x in xs})] += 1
    return dict(hist)


def test_loop(crossings, n, tail_s=0.5):
    """How the manager's (node 0's) MRP_Test frames went round the ring
    once it was whole: from the first one back at node 0 (cables n-1 fwd
    and 0 rev), the longest time with none coming back (the bridge's
    software test counts a miss for every interval without one, on
    either port), and how many that left node 0 (cables 0 fwd and n-1
    rev) never came back, the last tail_s of the capture left out (still
    in flight).  Returns (gap seconds, lost)."""
    back = sorted((x.ts, x.seq) for x in crossings if x.tlv == 0x02 and
                  (x.cable, x.dir) in ((n - 1, "fwd"), (0, "rev")))
    if len(back) < 2:
        return 0, 0
    t0, t1 = back[0][0], max(x.ts for x in crossings) - tail_s
    gap = max(b[0] - a[0] for a, b in zip(back, back[1:]))
    out = {x.seq for x in crossings if x.tlv == 0x02 and
           (x.cable, x.dir) in ((0, "fwd"), (n - 1, "rev")) and
           t0 <= x.ts <= t1}
    return gap, len(out - {seq for _, seq in back})


def summary(stats):
    """One line: frames (crossings) per type."""
    names = sorted({k.rsplit(" ", 1)[0] for k in stats})
    return ", ".join("%s %d (%d crossings)" % (
        n, stats[n + " frames"], stats[n + " crossings"]) for n in names)
