#!/usr/bin/env python3
"""Host-side end stations for make bench: two stations, each behind a QEMU
"-netdev dgram" UDP socket on 127.0.0.1 on a switch port, send each other
a constant stream of sequence-numbered Ethernet frames and record what
arrives.  UDP, not unix datagrams: a unix socket refuses the 11th frame
queued to a QEMU that is busy for a moment, and that would read as an
outage of the ring; UDP queues them.

The stations live on the host, out of the guest's scheduler: under TCG
only the switches and the guest's bridges sit between them, which is
what a user of a real ring measures.  Both directions run so that every
bridge on the way learns both stations (a one-way stream would be
flooded and never show a stale FDB).

Frame: destination the peer's MAC, source the station's, EtherType
0x88B5 (IEEE local experimental), then magic "MRPB", the sequence number
(u64, big endian) and the nominal send time (u64 ns).  Tick k of both
stations sends sequence number k; a tick that runs late still sends, so
every number is sent once.

Run as a child process (Stream below): reads commands from stdin, one per
line, and answers on stdout with one JSON line:
  seq    the next sequence number to be sent and the host time
  pause  stop sending (resume: go on with the next number, on a new
         schedule)
  losses FIRST LAST
         per direction, the runs of numbers in [FIRST, LAST) that never
         arrived: [first lost, count, send time of the first lost, host
         time the next number arrived (null: none did)]; the ticks that
         ran more than two periods late and those whose frame a socket
         refused: [number, send time (, ms late)]

The generator runs SCHED_FIFO (as root): a sender that a loaded host
stalls sends a burst when it catches up, which the sockets drop.
  quit   exits
"""

import gc
import json
import os
import select
import socket
import struct
import subprocess
import sys
import time

ETH_P = 0x88B5
MAGIC = b"MRPB"
HDR = struct.Struct("!6s6sH4sQQ")


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


class Station:
    def __init__(self, name, host_port, qemu_port, mac, peer_mac):
        self.name = name
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind(("127.0.0.1", int(host_port)))
        self.sock.setblocking(False)
        self.qemu_path = ("127.0.0.1", int(qemu_port))
        self.mac, self.peer = mac_bytes(mac), mac_bytes(peer_mac)
        self.rx = []            # (seq, host time)
        self.bad = 0            # frames that are not the peer's stream

    def send(self, seq, t_ns):
        """False if the socket refused the frame."""
        frame = HDR.pack(self.peer, self.mac, ETH_P, MAGIC, seq, t_ns)
        frame += bytes(64 - len(frame))
        try:
            self.sock.sendto(frame, self.qemu_path)
        except OSError:
            return False
        return True

    def receive(self, now):
        while True:
            try:
                data = self.sock.recv(2048)
            except BlockingIOError:
                return
            if len(data) < HDR.size:
                self.bad += 1
                continue
            dst, src, proto, magic, seq, _ = HDR.unpack_from(data)
            if proto != ETH_P or magic != MAGIC:
                continue        # MRP or other traffic flooded to us
            if dst != self.mac or src != self.peer:
                self.bad += 1
                continue
            self.rx.append((seq, now))


def realtime():
    """Run above QEMU's threads: on a loaded host a stalled sender loses
    its own frames (a late tick sends a burst the sockets cannot hold),
    which would read as an outage.  SCHED_FIFO as root, else nice."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        return "SCHED_FIFO"
    except (OSError, AttributeError):
        try:
            os.nice(-15)
            return "nice -15"
        except OSError:
            return "normal"


def serve(period_us, a, b):
    """The child process: run both stations until "quit"."""
    period = period_us / 1e6
    sent = []               # host time of each tick
    late = []               # how late each tick ran (s)
    refused = []            # ticks whose frame a socket refused
    # The receive lists grow by 2000 tuples a second: a collection of the
    # oldest generation would walk them all and hold a tick back.  Nothing
    # here makes reference cycles.
    gc.disable()
    t0 = time.monotonic()
    off = time.time() - t0  # host wall clock = monotonic + off
    seq = base = 0
    paused = False
    inp = sys.stdin.fileno()
    buf = b""
    while True:
        now = time.monotonic()
        due = t0 + (seq - base) * period if not paused else now + 3600
        if now >= due:
            t = now + off
            if not all([st.send(seq, int(t * 1e9)) for st in (a, b)]):
                refused.append(seq)
            sent.append(t)
            late.append(now - due)
            seq += 1
            continue
        r, _, _ = select.select([a.sock, b.sock, inp], [], [], due - now)
        now = time.monotonic() + off
        for st in (a, b):
            if st.sock in r:
                st.receive(now)
        if inp not in r:
            continue
        chunk = os.read(inp, 4096)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            cmd = line.decode().strip()
            if cmd == "seq":
                out = {"seq": seq, "time": now}
            elif cmd in ("pause", "resume"):
                paused = cmd == "pause"
                t0, base = time.monotonic(), seq
                out = {"seq": seq}
            elif cmd.startswith("losses "):
                first, last = (int(x) for x in cmd.split()[1:3])
                out = {"rx": {st.name: lost_runs(st.rx, sent, first, last)
                              for st in (a, b)},
                       "late": [[k, sent[k], late[k] * 1e3]
                                for k in range(first, min(last, len(late)))
                                if late[k] > 2 * period],
                       "refused": [[k, sent[k]] for k in refused
                                   if first <= k < last]}
            elif cmd == "quit":
                return
            else:
                out = {"error": "unknown command %r" % cmd}
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()


class Stream:
    """The stations as a child process (own interpreter: the bench's own
    work never delays a tick).  a and b: (name, host UDP port, QEMU UDP
    port, MAC); a's frames arrive at b, so b.rx holds a->b."""

    def __init__(self, a, b, period_us=1000):
        self.names = (a[0], b[0])
        args = [sys.executable, os.path.abspath(__file__),
                "--period-us", str(period_us)]
        for st in (a, b):
            args += [str(x) for x in st[:4]]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        hello = json.loads(self.p.stdout.readline() or "{}")
        if not hello.get("ready"):
            raise RuntimeError("traffic generator did not start")
        self.scheduling = hello["scheduling"]

    def cmd(self, c):
        self.p.stdin.write(c + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("traffic generator died")
        return json.loads(line)

    def close(self):
        if self.p.poll() is None:
            try:
                self.p.stdin.write("quit\n")
                self.p.stdin.flush()
            except BrokenPipeError:
                pass
            self.p.wait(10)


def lost_runs(rx, sent, first, last):
    """Runs of sequence numbers in [first, last) missing from rx."""
    got = {}
    for s, t in rx:
        if first <= s < last and s not in got:
            got[s] = t
    runs, start = [], None
    for s in range(first, last):
        if s not in got:
            if start is None:
                start = s
        elif start is not None:
            runs.append((start, s - start, sent[start], got[s]))
            start = None
    if start is not None:
        runs.append((start, last - start, sent[start], None))
    return runs


def main():
    if len(sys.argv) != 11 or sys.argv[1] != "--period-us":
        sys.exit("usage: %s --period-us US NAME HOST_PORT QEMU_PORT MAC "
                 "NAME HOST_PORT QEMU_PORT MAC" % sys.argv[0])
    period = int(sys.argv[2])
    a, b = sys.argv[3:7], sys.argv[7:11]
    sa = Station(b[0], a[1], a[2], a[3], b[3])   # receives what b sends
    sb = Station(a[0], b[1], b[2], b[3], a[3])
    # rx of the station at b is what a sent: name it "a->b"
    sa.name = "%s->%s" % (b[0], a[0])
    sb.name = "%s->%s" % (a[0], b[0])
    sys.stdout.write(json.dumps({"ready": True,
                                 "scheduling": realtime()}) + "\n")
    sys.stdout.flush()
    serve(period, sa, sb)


STATION_MAC = ("02:00:00:00:aa:01", "02:00:00:00:aa:02")


def add_stations(t, switches, ports):
    """Give the two switches of a tests.vm.Topology a third port, a QEMU
    "-netdev dgram" UDP socket on 127.0.0.1 for the stations: ports are
    station A's host and QEMU port, then station B's (free_udp_ports(4))."""
    for k, sw in enumerate(switches):
        t.switches[sw]["ports"] = 3
        nd = "st%d" % k
        t.switches[sw]["opts"]["netdev2"] = nd
        t.extra += ["-netdev", "dgram,id=%s,local.type=inet,local.host="
                    "127.0.0.1,local.port=%d,remote.type=inet,remote.host="
                    "127.0.0.1,remote.port=%d" % (nd, ports[2 * k + 1],
                                                   ports[2 * k])]


def attach_stations(switches, ns):
    """Guest shell lines that put each station's port (s<sw>p2) into its
    switch's node (network namespace ns(sw)) and bridge br0."""
    return "\n".join(
        "ip link set s%dp2 netns %s && ip -n %s link set s%dp2 master br0"
        " && ip -n %s link set s%dp2 up" % (s, ns(s), ns(s), s, ns(s), s)
        for s in switches)


def stream(ports, period_us=1000):
    """A Stream between the stations add_stations() set up."""
    return Stream(("A", ports[0], ports[1], STATION_MAC[0]),
                  ("B", ports[2], ports[3], STATION_MAC[1]), period_us)


def free_udp_ports(n):
    """n UDP ports on 127.0.0.1 that are free now (the bench hands them to
    QEMU and the stations)."""
    socks = []
    for _ in range(n):
        x = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        x.bind(("127.0.0.1", 0))
        socks.append(x)
    ports = [x.getsockname()[1] for x in socks]
    for x in socks:
        x.close()
    return ports


if __name__ == "__main__":
    main()
