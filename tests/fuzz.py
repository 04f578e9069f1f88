#!/usr/bin/env python3
"""Fuzz the mrpsim device through QEMU's qtest protocol.

    tests/fuzz.py [--seconds N] [--seed S] [--qemu BIN]
    tests/fuzz.py --replay FILE         replay a command log, check oracles

Boots a PC (qtest accelerator, 8 MiB of RAM) with two switches: sw0 (5
ports: 0 and 1 on datagram sockets the fuzzer holds, 2 and 3 cabled to sw1,
4 unconnected) and sw1 (3 ports: 0 and 1 cabled to sw0, 2 on a socket).
The fuzzer programs PCI config space and MSI-X itself and then, from a
seeded random generator, writes registers (random and structured: rings,
descriptors, MRP instances), ring bases and sizes (0, unaligned, near
2^64, unmapped, the switches' own BARs, across the end of RAM), descriptor
contents, MSI-X messages (also aimed at the BARs), steps the virtual clock,
injects random and mutated MRP frames into the socket ports, flaps links
(QMP set_link), resets (system_reset, CTRL.RESET) and unplugs and plugs
the switches (device_del + the ACPI PCI hotplug eject register, then
device_add).

Oracles:
  - QEMU stays alive (no abort, assertion, signal, sanitizer report);
  - every qtest and QMP command answers within a bound (no hang);
  - guest RAM outside the areas the fuzzer gives the device (ring slots,
    buffer pages, MSI-X words, the last 16 KiB of RAM) keeps the canary
    bytes it was filled with: checked every --check-every seconds and at
    the end.  Each ring is placed at the end of its 64 KiB slot and each
    RX buffer at the end of its page, so that writing past either end hits
    a canary.  The fuzzer never names such RAM to the device itself;
  - CTRL.RESET gives every register its power-on value (but the clock and
    the link), read back at random moments.

Every primitive command is logged; a failure prints the seed, writes the
log (build/fuzz/fail-SEED-KIND.jsonl), shrinks it (--shrink-secs) to a log
that still fails the same way, and prints that.  tests/fuzz-cases/*.jsonl are
such logs, replayed before the random run as regression cases.  Ends with
"N passed, N failed" for tests/run.py.
"""

import argparse
import base64
import glob
import json
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- Programming model (drivers/net/mrpsim/mrpsim_hw.h) ----

REG_CTRL = 0x00c
REG_ERR_STATUS = 0x010
REG_IRQ_MASK_SET = 0x020
REG_IRQ_MASK_CLR = 0x024
REG_EVQ_BASE_LO = 0x040
REG_EVQ_HEAD = 0x04c
REG_EVQ_TAIL = 0x050
GLOBAL_REGS = list(range(0, 0x60, 4)) + list(range(0x80, 0xa0, 4))  # + FDB
Q_BASE_LO, Q_BASE_HI, Q_SIZE, Q_HEAD, Q_TAIL, Q_CTRL = 0, 4, 8, 0xc, 0x10, 0x14
PORT_TXQ, PORT_RXQ = 0x000, 0x020
PORT_CTRL, PORT_STATUS, PORT_MAC_LO, PORT_MAC_HI = 0x40, 0x44, 0x48, 0x4c
PORT_FWD_MASK, PORT_FLOOD_LIMIT = 0x50, 0x54
NUM_COUNTERS = 35
CNT_RX_FRAMES = 0


PORT_STRIDE = 0x400


def port_base(p):
    return 0x1000 + p * PORT_STRIDE


def mrp_base(r):
    return 0x4000 + r * 0x100


MRP_ROLE, MRP_RING_ID, MRP_PORTS, MRP_PRIO = 0x00, 0x04, 0x08, 0x0c
MRP_RING_STATE, MRP_TRANSITIONS, MRP_SA_LO, MRP_SA_HI = 0x10, 0x14, 0x18, 0x1c
MRP_INTERVAL, MRP_MAX_MISS, MRP_PERIOD, MRP_TEST_CTRL = 0x30, 0x34, 0x38, 0x3c
MRP_REGS = list(range(0, 0x80, 4))      # + TOPO_*, ASSIST, IN_*
MRP_EDGE = [0x80, 0xfc]                 # just past the registers

PORT_REGS = ([PORT_TXQ + o for o in range(0, 0x18, 4)] +
             [PORT_RXQ + o for o in range(0, 0x18, 4)] +
             [PORT_CTRL, PORT_STATUS, PORT_MAC_LO, PORT_MAC_HI, PORT_FWD_MASK,
              PORT_FLOOD_LIMIT] +
             [0x100 + i * 4 for i in range(NUM_COUNTERS * 2)])
PORT_EDGE = [0x18, 0x38, 0x58, 0xfc, 0x100 + NUM_COUNTERS * 8,
             0x104 + NUM_COUNTERS * 8, PORT_STRIDE - 4]

# ---- Machine, memory map ----

CANARY = 0xa5
RAM = 8 << 20
HOLE = (0xa0000, 0x100000)          # VGA/BIOS hole: not RAM to check
MSI_PAGE = 0x100000                 # MSI-X messages: sw * 0x100 + v * 4
SLOT0, SLOT_STRIDE, SLOT_RING = 0x110000, 0x11000, 0x10000
SLOTS_PER_SW = 17                   # event queue, 8 x (TX, RX)
BUF0, BUF_STRIDE, NBUF = 0x400000, 0x2000, 256    # 4 KiB page + guard
TAIL = RAM - 0x4000                 # for rings/buffers across RAM's end
ACPI_PCIHP_EJ = 0xae08

SWITCHES = [
    {"id": "sw0", "slot": 4, "ports": 5, "rings": 2,
     "bar0": 0xe0000000, "bar1": 0xe0010000,
     "netdevs": {0: "s0", 1: "s1", 2: "a2", 3: "a3"}},
    {"id": "sw1", "slot": 5, "ports": 3, "rings": 4,
     "bar0": 0xe0100000, "bar1": 0xe0110000,
     "netdevs": {0: "b0", 1: "b1", 2: "s2"}},
]
SOCKS = {"s0": (0, 0), "s1": (0, 1), "s2": (1, 2)}   # netdev: (sw, port)
NIC_NAMES = ["%s.p%d" % (sw["id"], p) for sw in SWITCHES
             for p in sw["netdevs"]]
SAS = [bytes([2, 0, 0, 0, 0xaa, i]) for i in range(3)]
MRP_DMAC = [bytes([1, 0x15, 0x4e, 0, 0, i]) for i in (1, 2, 3, 4)]


def slot_base(sw, q):
    """q 0: event queue; 1 + 2p: port p TX; 2 + 2p: port p RX."""
    return SLOT0 + (sw * SLOTS_PER_SW + q) * SLOT_STRIDE


def buf_base(i):
    return BUF0 + i * BUF_STRIDE


def allowed_regions():
    r = [(MSI_PAGE, MSI_PAGE + 0x1000), (TAIL, RAM)]
    for sw in range(len(SWITCHES)):
        for q in range(SLOTS_PER_SW):
            b = slot_base(sw, q)
            r.append((b, b + SLOT_RING))
    for i in range(NBUF):
        r.append((buf_base(i), buf_base(i) + 0x1000))
    return sorted(r)


def canary_regions():
    """RAM the device must never write: all but HOLE and the allowed."""
    out, pos = [], 0
    for a, b in sorted(allowed_regions() + [HOLE]):
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if pos < RAM:
        out.append((pos, RAM))
    return out


ALLOWED = allowed_regions()
CANARIES = canary_regions()


def in_allowed(addr, n):
    return any(a <= addr and addr + n <= b for a, b in ALLOWED)


# ---- Failures ----

class Failure(Exception):
    def __init__(self, kind, detail):
        super().__init__("%s: %s" % (kind, detail))
        self.kind = kind
        self.detail = detail


# ---- QEMU under qtest ----

class Qemu:
    def __init__(self, binary, timeout=15.0, trace=None):
        self.binary = binary
        self.timeout = timeout
        self.dir = tempfile.mkdtemp(prefix="mrpsim-fuzz-")
        self.proc = None
        self.events = []
        self.socks = {}
        self.stderr_path = os.path.join(self.dir, "qemu.log")
        self.trace = trace
        self.start()

    def _listen(self, name):
        path = os.path.join(self.dir, name)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.listen(1)
        return s, path

    def start(self):
        qt_l, qt_path = self._listen("qtest.sock")
        qmp_l, qmp_path = self._listen("qmp.sock")
        args = [self.binary, "-machine", "pc", "-accel", "qtest",
                "-nodefaults", "-display", "none", "-m", "%dM" % (RAM >> 20),
                "-qtest", "unix:" + qt_path, "-qtest-log", "/dev/null",
                "-chardev", "socket,path=%s,id=qmp0" % qmp_path,
                "-mon", "chardev=qmp0,mode=control"]
        for name in SOCKS:
            mine = os.path.join(self.dir, "f-" + name)
            theirs = os.path.join(self.dir, "q-" + name)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(mine)
            s.setblocking(False)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            self.socks[name] = (s, theirs)
            args += ["-netdev", "dgram,id=%s,local.type=unix,local.path=%s,"
                     "remote.type=unix,remote.path=%s" % (name, theirs, mine)]
        args += ["-netdev", "hubport,id=a2,hubid=1",
                 "-netdev", "hubport,id=b0,hubid=1",
                 "-netdev", "hubport,id=a3,hubid=2",
                 "-netdev", "hubport,id=b1,hubid=2"]
        for sw in SWITCHES:
            args += ["-device", device_args(sw)]
        if self.trace:
            args += ["-trace", self.trace]
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
        env.setdefault("UBSAN_OPTIONS",
                       "halt_on_error=1:abort_on_error=1:print_stacktrace=1")
        self.errf = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     stdout=self.errf, stderr=self.errf,
                                     env=env)
        qt_l.settimeout(self.timeout)
        qmp_l.settimeout(self.timeout)
        try:
            self.qt, _ = qt_l.accept()
            self.qmp_s, _ = qmp_l.accept()
        except socket.timeout:
            raise Failure("start", "QEMU did not connect: " + self.log_tail())
        finally:
            qt_l.close()
            qmp_l.close()
        self.qt_buf = b""
        self.qmp_buf = b""
        self.qmp_read()                     # greeting
        self.qmp("qmp_capabilities")

    def log_tail(self, n=40):
        try:
            with open(self.stderr_path, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def dead(self, what):
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            rc = None
        if rc is None:
            return Failure("hang", "%s: no answer in %.0f s" %
                           (what, self.timeout))
        how = ("killed by signal %d" % -rc) if rc < 0 else "exit %d" % rc
        report = self.sanitizer_report()
        if report:
            return Failure("sanitizer", "QEMU %s during %s\n%s" %
                           (how, what, report))
        return Failure("crash", "QEMU %s during %s\n%s" %
                       (how, what, self.log_tail()))

    def sanitizer_report(self):
        """ASan's or UBSan's report in QEMU's output: its first lines."""
        try:
            with open(self.stderr_path, errors="replace") as f:
                lines = f.readlines()
        except OSError:
            return None
        for i, line in enumerate(lines):
            if "ERROR: AddressSanitizer" in line or "runtime error:" in line:
                return "".join(lines[i:i + 30])
        return None

    def _readline(self, sock, attr, what, timeout):
        deadline = time.monotonic() + timeout
        while True:
            buf = getattr(self, attr)
            i = buf.find(b"\n")
            if i >= 0:
                setattr(self, attr, buf[i + 1:])
                return buf[:i].decode(errors="replace")
            left = deadline - time.monotonic()
            if left <= 0:
                raise self.dead(what)
            sock.settimeout(left)
            try:
                data = sock.recv(1 << 20)
            except socket.timeout:
                raise self.dead(what)
            except OSError:
                data = b""
            if not data:
                raise self.dead(what)
            setattr(self, attr, buf + data)

    def cmd(self, line, timeout=None):
        try:
            self.qt.sendall(line.encode() + b"\n")
        except OSError:
            raise self.dead(line[:60])
        while True:
            resp = self._readline(self.qt, "qt_buf", line[:60],
                                  timeout or self.timeout)
            if not resp.startswith("IRQ"):
                break
        if not resp.startswith("OK"):
            raise Failure("qtest", "%s -> %s" % (line[:60], resp[:200]))
        return resp[3:]

    def qmp_read(self, what="QMP", timeout=None):
        return json.loads(self._readline(self.qmp_s, "qmp_buf", what,
                                         timeout or self.timeout))

    def qmp(self, execute, **arguments):
        msg = {"execute": execute}
        if arguments:
            msg["arguments"] = arguments
        try:
            self.qmp_s.sendall(json.dumps(msg).encode() + b"\n")
        except OSError:
            raise self.dead(execute)
        while True:
            r = self.qmp_read(execute)
            if "event" in r:
                self.events.append(r)
                continue
            return r

    def wait_event(self, name, timeout):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e["event"] == name:
                    del self.events[i]
                    return e
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure("hang", "no %s event in %.0f s" %
                              (name, timeout))
            self.events.append(self.qmp_read(name, left))

    def alive(self):
        return self.proc.poll() is None

    def close(self, hung=False):
        """Quit; returns the failure QEMU's exit shows, or None.  A hung
        QEMU (@hung) is killed at once: it would not answer quit."""
        fail = None
        if hung and self.alive():
            self.proc.kill()
            self.proc.wait()
        if self.proc and self.alive():
            try:
                self.qmp("quit")
            except Failure:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                fail = Failure("hang", "QEMU did not quit")
        if self.proc and self.proc.returncode not in (0, None) and \
                not fail and not hung:
            fail = Failure("crash", "QEMU exit %d at quit\n%s" %
                           (self.proc.returncode, self.log_tail()))
        report = self.sanitizer_report()
        if report and not fail:
            fail = Failure("sanitizer", report)
        for s, _ in self.socks.values():
            s.close()
        for s in ("qt", "qmp_s"):
            if hasattr(self, s):
                getattr(self, s).close()
        self.errf.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return fail


def device_args(sw, ports=None, rings=None, extra=""):
    a = "mrpsim,id=%s,addr=%d,ports=%d,rings=%d" % (
        sw["id"], sw["slot"], ports or sw["ports"], rings or sw["rings"])
    for p, nd in sorted(sw["netdevs"].items()):
        a += ",netdev%d=%s" % (p, nd)
    return a + extra


# ---- Executing the command log ----

class Machine:
    """Runs primitive commands on a Qemu and keeps what they imply."""

    def __init__(self, qemu):
        self.q = qemu
        self.plugged = [True] * len(SWITCHES)
        self.mem_on = [False] * len(SWITCHES)
        self.nports = [sw["ports"] for sw in SWITCHES]
        self.msix = [None] * len(SWITCHES)    # (cap, table offset)
        self.ld_netdev = {n: False for n in SOCKS}
        self.ld_nic = {n: False for n in NIC_NAMES}
        self.snap = [None] * len(SWITCHES)    # registers at power-on
        self.ops = 0
        self.kinds = {}
        self.frames_out = 0
        self.undelivered = 0

    # config space through 0xcf8/0xcfc
    def cfg_addr(self, sw, off):
        self.q.cmd("outl 0xcf8 0x%x" % (0x80000000 |
                   (SWITCHES[sw]["slot"] << 11) | (off & 0xfc)))
        return 0xcfc + (off & 3)

    def cfg_read(self, sw, off, size):
        port = self.cfg_addr(sw, off)
        op = {1: "inb", 2: "inw", 4: "inl"}[size]
        return int(self.q.cmd("%s 0x%x" % (op, port)), 16)

    def cfg_write(self, sw, off, size, val):
        port = self.cfg_addr(sw, off)
        op = {1: "outb", 2: "outw", 4: "outl"}[size]
        self.q.cmd("%s 0x%x 0x%x" % (op, port, val))

    def pci_init(self, sw):
        s = SWITCHES[sw]
        if self.cfg_read(sw, 0, 4) == 0xffffffff:
            return
        self.cfg_write(sw, 0x10, 4, s["bar0"])
        self.cfg_write(sw, 0x14, 4, s["bar1"])
        self.cfg_write(sw, 4, 2, 0x6)           # memory, bus master
        self.mem_on[sw] = True
        cap = self.cfg_read(sw, 0x34, 1)
        while cap and self.cfg_read(sw, cap, 1) != 0x11:
            cap = self.cfg_read(sw, cap + 1, 1)
        if not cap:
            self.msix[sw] = None
            return
        nvec = (self.cfg_read(sw, cap + 2, 2) & 0x7ff) + 1
        table = self.cfg_read(sw, cap + 4, 4) & ~7
        self.msix[sw] = (cap, table)
        for v in range(nvec):
            e = s["bar1"] + table + v * 16
            self.q.cmd("writel 0x%x 0x%x" % (e, MSI_PAGE + sw * 0x100 + v * 4))
            self.q.cmd("writel 0x%x 0" % (e + 4))
            self.q.cmd("writel 0x%x 0x%x" % (e + 8, 0x1000 + v))
            self.q.cmd("writel 0x%x 0" % (e + 12))
        self.cfg_write(sw, cap + 2, 2, 0x8000)  # MSI-X enable, unmasked

    def read_regs(self, sw):
        """Every register that power-on and reset define (not the clock,
        not the link), as a dict offset: value."""
        b = SWITCHES[sw]["bar0"]
        offs = [o for o in GLOBAL_REGS if o not in (0x28, 0x2c)]
        for p in range(8):
            offs += [port_base(p) + o for o in PORT_REGS if o != PORT_STATUS]
        for r in range(4):
            offs += [mrp_base(r) + o for o in MRP_REGS]
        return {o: int(self.q.cmd("readl 0x%x" % (b + o)), 16) for o in offs}

    def reset_check(self, sw):
        """CTRL.RESET must give the registers their power-on values."""
        if not (self.plugged[sw] and self.mem_on[sw] and self.snap[sw]):
            return
        self.q.cmd("writel 0x%x 1" % (SWITCHES[sw]["bar0"] + REG_CTRL))
        now = self.read_regs(sw)
        diff = ["0x%04x: 0x%x, power-on 0x%x" % (o, now[o], v)
                for o, v in sorted(self.snap[sw].items()) if now[o] != v]
        if diff:
            raise Failure("reset", "%s after CTRL.RESET differs from power-on:"
                          " %s" % (SWITCHES[sw]["id"], "; ".join(diff[:12])))

    def read_counter_lo(self, sw, port, c):
        return int(self.q.cmd("readl 0x%x" % (SWITCHES[sw]["bar0"] +
                   port_base(port) + 0x100 + c * 8)), 16)

    def deliverable(self, name):
        sw, port = SOCKS[name]
        return (self.plugged[sw] and self.mem_on[sw] and
                port < self.nports[sw] and not self.ld_netdev[name] and
                not self.ld_nic["%s.p%d" % (SWITCHES[sw]["id"], port)])

    def drain(self):
        for s, _ in self.q.socks.values():
            while True:
                try:
                    s.recv(1 << 16)
                    self.frames_out += 1
                except (BlockingIOError, InterruptedError):
                    break

    def frame(self, name, data):
        s, path = self.q.socks[name]
        sync = self.deliverable(name)
        sw, port = SOCKS[name]
        if sync:
            before = self.read_counter_lo(sw, port, CNT_RX_FRAMES)
        try:
            s.sendto(data, path)
        except (BlockingIOError, ConnectionRefusedError, FileNotFoundError):
            return
        if not sync:
            return
        # wait until the device has counted it, so that the frame lands
        # between the same two commands every time (replays are exact)
        for i in range(400):
            if self.read_counter_lo(sw, port, CNT_RX_FRAMES) != before:
                return
            if i > 20:
                time.sleep(0.001)
        self.undelivered += 1

    def check_canaries(self):
        data = base64.b64decode(self.q.cmd("b64read 0 0x%x" % RAM,
                                           timeout=60))
        bad = []
        for a, b in CANARIES:
            if data.count(CANARY, a, b) != b - a:
                stray = [i for i in range(a, b) if data[i] != CANARY]
                bad.append("0x%x..0x%x (%d bytes; first: %s)" % (
                    stray[0], stray[-1], len(stray),
                    data[stray[0]:stray[0] + 16].hex()))
        if bad:
            raise Failure("stray-write", "guest RAM outside the rings and "
                          "buffers was written: " + "; ".join(bad[:8]))

    def run(self, op):
        """Run one primitive command (a list, as logged)."""
        self.ops += 1
        k = op[0]
        self.kinds[k] = self.kinds.get(k, 0) + 1
        q = self.q
        if k == "w":
            q.cmd("writel 0x%x 0x%x" % (op[1], op[2]))
        elif k == "r":
            q.cmd("readl 0x%x" % op[1])
        elif k == "wq":
            q.cmd("writeq 0x%x 0x%x" % (op[1], op[2]))
        elif k == "mem":
            data = bytes.fromhex(op[2])
            assert in_allowed(op[1], len(data)), "fuzzer writes a canary"
            q.cmd("b64write 0x%x 0x%x %s" % (op[1], len(data),
                  base64.b64encode(data).decode()))
        elif k == "cfg":
            sw, off, size, val = op[1:]
            if self.plugged[sw]:
                self.cfg_write(sw, off, size, val)
                if off == 4:
                    self.mem_on[sw] = bool(val & 2)
        elif k == "step":
            q.cmd("clock_step %d" % op[1], timeout=self.q.timeout * 4)
        elif k == "frame":
            self.frame(op[1], bytes.fromhex(op[2]))
        elif k == "link":
            r = q.qmp("set_link", name=op[1], up=op[2])
            if "return" in r:
                if op[1] in self.ld_netdev:
                    self.ld_netdev[op[1]] = not op[2]
                    sw, port = SOCKS[op[1]]
                    nic = "%s.p%d" % (SWITCHES[sw]["id"], port)
                    if self.plugged[sw]:
                        self.ld_nic[nic] = not op[2]
                elif op[1] in self.ld_nic:
                    self.ld_nic[op[1]] = not op[2]
        elif k == "sysreset":
            q.qmp("system_reset")
            q.wait_event("RESET", q.timeout)
            self.mem_on = [False] * len(SWITCHES)
        elif k == "pciinit":
            if self.plugged[op[1]]:
                self.pci_init(op[1])
        elif k == "evqack":
            sw = op[1]
            b = SWITCHES[sw]["bar0"]
            head = int(q.cmd("readl 0x%x" % (b + REG_EVQ_HEAD)), 16)
            q.cmd("writel 0x%x 0x%x" % (b + REG_EVQ_TAIL, head))
        elif k == "unplug":
            sw = op[1]
            if not self.plugged[sw]:
                return
            r = q.qmp("device_del", id=SWITCHES[sw]["id"])
            if "error" in r:
                raise Failure("qmp", "device_del: %s" % r["error"])
            q.cmd("outl 0x%x 0x%x" % (ACPI_PCIHP_EJ,
                                      1 << SWITCHES[sw]["slot"]))
            q.wait_event("DEVICE_DELETED", q.timeout)
            self.plugged[sw] = False
            self.mem_on[sw] = False
            for p in SWITCHES[sw]["netdevs"]:
                self.ld_nic["%s.p%d" % (SWITCHES[sw]["id"], p)] = False
        elif k == "plug":
            sw, props = op[1], op[2]
            if self.plugged[sw]:
                return
            r = q.qmp("device_add", **props)
            if "return" in r:
                self.plugged[sw] = True
                self.mem_on[sw] = False
                self.nports[sw] = int(props.get("ports", 2))
                self.pci_init(sw)
                self.snap[sw] = self.read_regs(sw)
        elif k == "check":
            self.check_canaries()
        elif k == "rcheck":
            self.reset_check(op[1])
        else:
            raise ValueError("unknown command %r" % (op,))
        self.drain()


def boot(binary, timeout, trace=None):
    q = Qemu(binary, timeout, trace)
    m = Machine(q)
    q.cmd("memset 0 0x%x 0x%x" % (RAM, CANARY))
    for sw in range(len(SWITCHES)):
        m.pci_init(sw)
        m.snap[sw] = m.read_regs(sw)
    return m


def replay(binary, ops, timeout, trace=None):
    """Run a command log on a fresh QEMU; the Failure it gives, or None."""
    try:
        m = boot(binary, timeout, trace)
    except Failure as e:
        return e
    fail = None
    try:
        for op in ops:
            m.run(op)
        m.run(["check"])
    except Failure as e:
        fail = e
    end = m.q.close(hung=bool(fail and fail.kind == "hang"))
    if end and end.kind in ("crash", "sanitizer") and \
            (not fail or fail.kind in ("hang", "qtest", "qmp", "crash")):
        return end
    return fail or end


# ---- Generator ----

INTERESTING = [0, 1, 2, 3, 4, 0xf, 0x10, 0x7f, 0x80, 0xff, 0x100, 0x3ff,
               0x400, 0xfff, 0x1000, 0x1001, 0x2000, 0xffff, 0x10000,
               0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 99, 100, 101,
               0xff00, 0xffff00ff, 0x0101, 0x0201, 0x0302]
SIZES = [0, 1, 2, 3, 4, 8, 16, 64, 256, 1024, 4096, 4097, 8192, 0x10000,
         0x80000000, 0xffffffff, 6, 12]


class Gen:
    def __init__(self, rnd):
        self.r = rnd
        # what the fuzzer last programmed, per switch and queue slot
        self.q = [[None] * SLOTS_PER_SW for _ in SWITCHES]
        self.tail = [[0] * SLOTS_PER_SW for _ in SWITCHES]
        self.sa = [[None] * 4 for _ in SWITCHES]
        self.ring_ports = [[None] * 4 for _ in SWITCHES]
        self.next_buf = 0

    def bar(self, sw):
        return SWITCHES[sw]["bar0"]

    def val32(self):
        r = self.r.random()
        if r < 0.5:
            return self.r.choice(INTERESTING)
        if r < 0.6:
            return self.r.choice(INTERESTING) ^ (1 << self.r.randrange(32))
        return self.r.getrandbits(32)

    def bad_addr(self, sw, n, ring=True):
        """An address through which the device must not reach canaries.

        0 only for rings (a ring at 0 is refused; a buffer at 0 is not).
        """
        r = self.r
        c = r.randrange(0 if ring else 1, 9)
        if c == 0:
            return 0
        if c == 1:
            return (1 << 64) - r.choice([16, 32, n * 16 // 2 or 16, 4096])
        if c == 2:
            return (1 << 64) - r.randrange(1, 64)
        if c == 3:
            return 0x100000000 + r.randrange(0, 1 << 20) * 16
        if c == 4:
            return self.bar(sw) + r.randrange(0, 0x8000 // 16) * 16
        if c == 5:
            return SWITCHES[sw]["bar1"] + r.randrange(0, 0x100) * 16
        if c == 6:
            return self.bar(1 - sw) + r.randrange(0, 0x8000 // 16) * 16
        if c == 7:
            return RAM - r.choice([16, 32, 48, 0x100])   # across RAM's end
        return r.getrandbits(64) & ~0xf | 0xfff0000000000000

    def ring_base(self, sw, qs, size):
        r = self.r.random()
        ok = size if 2 <= size <= 4096 and size & (size - 1) == 0 else 16
        good = slot_base(sw, qs) + SLOT_RING - ok * 16
        if r < 0.75:
            return good
        if r < 0.82:
            return good + self.r.choice([1, 4, 8, 12])   # unaligned
        return self.bad_addr(sw, ok)

    def qregs(self, sw, qs):
        if qs == 0:
            return self.bar(sw) + REG_EVQ_BASE_LO
        port, rx = (qs - 1) // 2, (qs - 1) % 2
        return self.bar(sw) + port_base(port) + (PORT_RXQ if rx else PORT_TXQ)

    def pick_q(self, sw):
        nports = SWITCHES[sw]["ports"]
        if self.r.random() < 0.1:
            return self.r.randrange(SLOTS_PER_SW)
        return self.r.randrange(1 + 2 * nports)

    # -- structured operations; each returns a list of primitives --

    def op_setup_q(self, sw):
        qs = self.pick_q(sw)
        r = self.r.random()
        if r < 0.7:
            size = self.r.choice([2, 4, 8, 16, 32, 64, 256, 4096])
        else:
            size = self.r.choice(SIZES)
        base = self.ring_base(sw, qs, size)
        a = self.qregs(sw, qs)
        ops = []
        if self.r.random() < 0.8:
            ops.append(["w", a + Q_CTRL, 0])
        ops += [["w", a + Q_SIZE, size],
                ["w", a + Q_BASE_LO, base & 0xffffffff],
                ["w", a + Q_BASE_HI, base >> 32],
                ["w", a + Q_CTRL, self.r.choice([1, 1, 1, 3, 0xffffffff])]]
        if self.r.random() < 0.2:
            ops.insert(self.r.randrange(len(ops) + 1),
                       ["wq", a + Q_BASE_LO, base])
        self.q[sw][qs] = (base, size)
        self.tail[sw][qs] = 0
        if qs == 0 and self.r.random() < 0.7:
            ops.append(["w", self.bar(sw) + REG_IRQ_MASK_CLR, 1])
        return ops

    def buffer(self, sw, blen):
        r = self.r.random()
        if r < 0.85:
            i = self.next_buf
            self.next_buf = (self.next_buf + 1) % NBUF
            return buf_base(i) + max(0, 0x1000 - min(blen, 0x1000)), i
        return self.bad_addr(sw, 1, ring=False), None

    def op_post(self, sw):
        qs = self.r.randrange(1, 1 + 2 * SWITCHES[sw]["ports"])
        if not self.q[sw][qs]:
            return self.op_setup_q(sw)
        base, size = self.q[sw][qs]
        rx = (qs - 1) % 2
        ops = []
        if not (0 < size <= 4096) or not in_allowed(base, 16):
            # not a ring in RAM: only ring the doorbell
            return [["w", self.qregs(sw, qs) + Q_TAIL,
                     self.r.randrange(max(size, 1) + 2) & 0xffffffff]]
        n = self.r.randrange(1, min(size, 8) + 1)
        t = self.tail[sw][qs]
        for _ in range(n):
            da = base + (t % size) * 16
            if not in_allowed(da, 16):
                break
            if rx:
                blen = self.r.choice([64, 128, 1514, 2048, 2048, 4096, 0xffff,
                                      0, 13, 63, 65, 60, 100])
                addr, _ = self.buffer(sw, blen)
            else:
                frame = self.frame()
                blen = len(frame)
                if self.r.random() < 0.1:
                    blen = self.r.choice([0, 13, 2049, 0xffff, blen + 1])
                addr, i = self.buffer(sw, len(frame))
                if i is not None and frame:
                    ops.append(["mem", addr, frame[:0x1000].hex()])
            status = 0 if self.r.random() < 0.9 else self.r.getrandbits(16)
            desc = struct.pack("<QHHI", addr & (2 ** 64 - 1), blen & 0xffff,
                               status, self.r.getrandbits(32))
            if self.r.random() < 0.05:
                desc = bytes(self.r.getrandbits(8) for _ in range(16))
            ops.append(["mem", da, desc.hex()])
            t += 1
        t %= size
        if self.r.random() < 0.1:
            t = self.r.choice([size, size - 1, size + 1, 0xffffffff, 0])
        self.tail[sw][qs] = t
        ops.append(["w", self.qregs(sw, qs) + Q_TAIL, t & 0xffffffff])
        return ops

    def op_mrp(self, sw):
        r = self.r
        ring = r.randrange(4)
        b = self.bar(sw) + mrp_base(ring)
        nports = SWITCHES[sw]["ports"]
        choices = list(range(nports)) + [0xff]
        prim = r.choice(choices)
        sec = r.choice(choices)
        if r.random() < 0.1:
            prim, sec = r.randrange(256), r.randrange(256)
        sa = r.choice(SAS)
        ops = [["w", b + MRP_TEST_CTRL, 0],
               ["w", b + MRP_ROLE, r.choice([1, 2, 2, 3, 3, 0, 4])],
               ["w", b + MRP_PORTS, prim | sec << 8],
               ["w", b + MRP_PRIO, r.choice([0x8000, 0xa000, 0x1000, 0,
                                             0xffff])],
               ["w", b + MRP_SA_LO, struct.unpack("<I", sa[:4])[0]],
               ["w", b + MRP_SA_HI, struct.unpack("<H", sa[4:])[0]],
               ["w", b + MRP_INTERVAL, r.choice([100, 200, 500, 1000, 99, 0,
                                                 3500, 0xffffffff])],
               ["w", b + MRP_MAX_MISS, r.choice([0, 1, 2, 3, 5,
                                                 0xffffffff])],
               ["w", b + MRP_PERIOD, r.choice([0, 0, 0, 500, 2000, 50000])],
               ["w", b + MRP_RING_STATE, r.choice([0, 1, 1, 2])],
               ["w", b + MRP_TEST_CTRL, r.choice([1, 1, 3, 2, 0xffffffff])]]
        if r.random() < 0.3:
            del ops[r.randrange(1, len(ops))]
        self.sa[sw][ring] = sa
        self.ring_ports[sw][ring] = (prim, sec)
        return ops

    def op_reg(self, sw):
        r = self.r
        c = r.random()
        if c < 0.3:
            off = r.choice(GLOBAL_REGS)
        elif c < 0.65:
            off = port_base(r.randrange(8)) + r.choice(
                PORT_EDGE if r.random() < 0.1 else PORT_REGS)
        elif c < 0.9:
            off = mrp_base(r.randrange(4)) + r.choice(
                MRP_EDGE if r.random() < 0.1 else MRP_REGS)
        elif c < 0.97:
            off = r.randrange(0x8000 // 4) * 4
        else:
            off = r.randrange(0x8010)       # unaligned, past the BAR
        if off == REG_CTRL and r.random() < 0.8:
            return [["r", self.bar(sw) + off]]   # rare resets only
        addr = self.bar(sw) + off
        c = r.random()
        # A ring base is never random: a valid one in RAM outside the
        # fuzzer's slots would let the device write canaries legitimately.
        qs = self.base_reg_slot(sw, off & ~7)
        if qs is not None and c < 0.65:
            base = self.ring_base(sw, qs, r.choice(SIZES))
            if c < 0.55 and off & 4:
                return [["w", addr, base >> 32]]
            if c < 0.55:
                return [["w", addr, base & 0xffffffff]]
            return [["wq", addr & ~7, base]]
        if c < 0.55:
            return [["w", addr, self.val32()]]
        if c < 0.65:
            return [["wq", addr & ~7, r.getrandbits(64)]]
        if c < 0.75:
            return [["w", self.bar(sw) + REG_ERR_STATUS, 0xffffffff]]
        return [["r", addr]]

    def base_reg_slot(self, sw, off):
        """The queue slot whose BASE_LO is at BAR0 offset @off, or None."""
        if off == REG_EVQ_BASE_LO:
            return 0
        if port_base(0) <= off < port_base(8):
            port, o = divmod(off - port_base(0), PORT_STRIDE)
            if o in (PORT_TXQ, PORT_RXQ):
                return 1 + 2 * port + (o == PORT_RXQ)
        return None

    def op_irq(self, sw):
        b = self.bar(sw)
        if self.r.random() < 0.7:
            return [["w", b + REG_IRQ_MASK_CLR, self.val32()]]
        return [["w", b + REG_IRQ_MASK_SET, self.val32()]]

    def op_port_ctrl(self, sw):
        p = self.r.randrange(SWITCHES[sw]["ports"] + 1)
        v = self.r.choice([1, 1, 3, 5, 0, 7, 2, 4, self.val32()])
        return [["w", self.bar(sw) + port_base(p) + PORT_CTRL, v]]

    def op_msix(self, sw):
        """Aim one MSI-X vector somewhere: RAM it owns, the APIC, a BAR."""
        r = self.r
        s = SWITCHES[sw]
        v = r.randrange(1 + s["ports"])
        c = r.randrange(7)
        if c == 0:
            addr, data = MSI_PAGE + sw * 0x100 + v * 4, 0x1000 + v
        elif c == 1:
            addr, data = 0xfee00000, r.getrandbits(8) | 0x4000
        elif c == 2 and r.random() < 0.3:
            addr = s["bar0"] + r.choice([REG_IRQ_MASK_CLR, REG_CTRL,
                                         REG_EVQ_TAIL, REG_ERR_STATUS,
                                         port_base(0) + Q_TAIL,
                                         port_base(1) + PORT_RXQ + Q_CTRL,
                                         mrp_base(0) + MRP_TEST_CTRL,
                                         port_base(0) + PORT_CTRL])
            data = self.val32()
        elif c <= 3:
            addr, data = s["bar1"] + r.randrange(0, 0x100, 4), self.val32()
        elif c == 4:
            addr = SWITCHES[1 - sw]["bar0"] + r.choice([
                REG_IRQ_MASK_CLR, REG_CTRL, port_base(0) + PORT_CTRL])
            data = self.val32()
        elif c == 5:
            addr, data = 0x100000000 + r.getrandbits(20) * 4, 0
        else:
            addr, data = MSI_PAGE + r.randrange(0, 0x1000, 4), self.val32()
        e = s["bar1"] + v * 16          # the table is at offset 0 of BAR1
        ops = [["w", e, addr & 0xffffffff], ["w", e + 4, addr >> 32],
               ["w", e + 8, data]]
        ops.append(["w", e + 12, 0 if r.random() < 0.8 else 1])
        return ops

    def op_cfg(self, sw):
        r = self.r
        c = r.randrange(4)
        if c == 0:
            return [["cfg", sw, 4, 2, r.choice([0x6, 0x6, 0x2, 0x4, 0x0,
                                                0x406])]]
        if c == 1:                      # MSI-X control: 0x40 in mrpsim
            return [["pciinit", sw]] if r.random() < 0.5 else \
                [["cfg", sw, 0x40 + 2, 2, r.choice([0x8000, 0xc000, 0x0,
                                                    0x4000])]]
        if c == 2:
            return [["cfg", sw, r.randrange(0x40, 0x100, 4), 4,
                     self.val32()]]
        return [["pciinit", sw]]

    def mrp_test_frame(self, sa=None, dmac=0):
        r = self.r
        f = bytearray(MRP_DMAC[dmac] +
                      bytes([2, 0, 0, 0, 0x99, r.randrange(8)])
                      + b"\x88\xe3" + b"\x00\x01")
        f += bytes([0x02, 18]) + struct.pack(">H", r.choice([0x8000, 0xa000,
                                                            0x1000, 0xffff]))
        f += sa or r.choice(SAS)
        f += struct.pack(">HHHI", r.randrange(2), r.randrange(2),
                         r.randrange(4), r.getrandbits(32))
        f += bytes([0x01, 18]) + struct.pack(">H", r.getrandbits(16))
        f += b"\xff" * 16
        if r.random() < 0.3:
            f += bytes([0x7f, 10, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0])
        f += b"\x00\x00"
        f += bytes(max(0, 60 - len(f)))
        return bytes(f)

    def mrp_other_frame(self):
        r = self.r
        t = r.choice([0x03, 0x04, 0x05, 0x06, 0x07, 0x7f, 0x01, 0x00])
        body = bytes(r.getrandbits(8) for _ in range(r.choice([0, 4, 10,
                                                                 18, 30])))
        f = (r.choice(MRP_DMAC) + bytes([2, 0, 0, 0, 0x98, 1]) +
             b"\x88\xe3\x00\x01" + bytes([t, len(body)]) + body)
        f += bytes([0x01, 18]) + bytes(18) + b"\x00\x00"
        return f + bytes(max(0, 60 - len(f)))

    def mutate(self, f):
        r = self.r
        f = bytearray(f)
        for _ in range(r.randrange(1, 4)):
            c = r.randrange(8)
            if c == 0 and len(f) > 1:
                del f[r.randrange(1, len(f)):]          # truncate
            elif c == 1 and f:
                f[r.randrange(len(f))] = r.getrandbits(8)
            elif c == 2 and len(f) > 17:
                f[r.choice([16, 17, 36, 37, 56, 57])
                  if len(f) > 57 else 17] = r.choice([0, 1, 2, 17, 18, 19,
                                                      0x7f, 0xff])
            elif c == 3 and len(f) > 15:
                f[14:16] = struct.pack(">H", r.choice([0, 2, 0xffff]))
            elif c == 4:
                f += bytes(r.getrandbits(8)
                           for _ in range(r.randrange(1, 64)))
            elif c == 5:
                f += bytes(r.choice([1500, 1990, 2100, 3000]))
            elif c == 6 and len(f) > 14:
                f[12:14] = r.choice([b"\x81\x00", b"\x08\x00", b"\x88\xe3"])
            elif c == 7 and len(f) > 20:
                i = r.randrange(16, len(f) - 1)
                f[i + 1] = r.choice([0, 1, 0xff, len(f) - i - 2,
                                     len(f) - i - 1]) & 0xff
        return bytes(f)

    def frame(self):
        r = self.r
        c = r.random()
        if c < 0.4:
            f = self.mrp_test_frame()
        elif c < 0.6:
            f = self.mrp_other_frame()
        elif c < 0.7:
            f = (bytes([2, 0, 0, 0, 0, 9]) * 2 + b"\x08\x00" +
                 bytes(r.choice([46, 100, 1486])))
        else:
            f = self.mrp_test_frame() if r.random() < 0.6 else \
                self.mrp_other_frame()
        if c > 0.7 or r.random() < 0.15:
            f = self.mutate(f)
        if r.random() < 0.03:
            f = f[:r.randrange(1, 14)]
        # never empty: an empty datagram stops QEMU's dgram netdev reading
        return f or b"\0"

    def op_frame(self):
        name = self.r.choice(sorted(SOCKS))
        sw, port = SOCKS[name]
        f = None
        # a test frame of an instance's own (SA = its SA) on a ring port
        for ring in self.r.sample(range(4), 4):
            if self.sa[sw][ring] and self.r.random() < 0.5:
                f = self.mrp_test_frame(self.sa[sw][ring])
                if self.r.random() < 0.2:
                    f = self.mutate(f)
                break
        if f is None:
            f = self.frame()
        ops = [["frame", name, f.hex()]]
        if self.r.random() < 0.3:
            ops.append(["step", self.r.choice([1000, 100000, 1000000])])
        return ops

    def op_step(self):
        c = self.r.random()
        if c < 0.6:
            ns = self.r.randrange(1000, 3000000)
        elif c < 0.95:
            ns = self.r.randrange(3000000, 50000000)
        else:
            ns = self.r.randrange(100000000, 1000000000)
        return [["step", ns]]

    def op_link(self):
        name = self.r.choice(sorted(SOCKS) + NIC_NAMES + ["a2", "b1"])
        return [["link", name, self.r.random() < 0.6]]

    def op_reset(self, sw):
        c = self.r.random()
        if c < 0.3:
            return [["w", self.bar(sw) + REG_CTRL, 1]]
        if c < 0.6:
            return [["rcheck", sw]]
        return [["sysreset"], ["pciinit", 0], ["pciinit", 1]]

    def op_hotplug(self, sw):
        s = SWITCHES[sw]
        r = self.r
        props = {"driver": "mrpsim", "id": s["id"], "addr": str(s["slot"])}
        props.update({"netdev%d" % p: nd for p, nd in s["netdevs"].items()})
        c = r.random()
        ports = s["ports"]
        if c < 0.15:
            ports = r.choice([0, 1, 9, ports - 1, 8])
        props["ports"] = str(ports)
        props["rings"] = str(r.choice([1, 2, 4, 0, 5]) if c > 0.85
                             else s["rings"])
        if r.random() < 0.2:
            props["mrp"] = "off"
        ops = [["unplug", sw], ["plug", sw, props]]
        if r.random() < 0.1:
            bad = dict(props, ports=str(s["ports"]))
            bad["rings"] = str(s["rings"])
            ops.append(["plug", sw, bad])       # if the first one failed
        ops.append(["pciinit", sw])
        return ops

    def next(self):
        r = self.r
        sw = 0 if r.random() < 0.65 else 1
        ops = [
            (22, lambda: self.op_post(sw)),
            (8, lambda: self.op_setup_q(sw)),
            (18, lambda: self.op_reg(sw)),
            (6, lambda: self.op_mrp(sw)),
            (16, self.op_frame),
            (10, self.op_step),
            (3, lambda: self.op_irq(sw)),
            (3, lambda: [["evqack", sw]]),
            (3, lambda: self.op_port_ctrl(sw)),
            (2, lambda: self.op_msix(sw)),
            (1.5, lambda: self.op_cfg(sw)),
            (2, self.op_link),
            (0.4, lambda: self.op_reset(sw)),
            (0.25, lambda: self.op_hotplug(sw)),
        ]
        x = r.uniform(0, sum(w for w, _ in ops))
        for w, f in ops:
            x -= w
            if x < 0:
                return f()
        return ops[0][1]()


# ---- Running, shrinking, reporting ----

def shrink(binary, ops, fail, timeout, secs):
    """Remove chunks of commands while the log still fails the same way."""
    deadline = time.monotonic() + secs
    n = 2
    tries = 0
    while len(ops) >= 2 and time.monotonic() < deadline:
        chunk = max(1, len(ops) // n)
        removed = False
        for i in range(0, len(ops), chunk):
            if time.monotonic() >= deadline:
                break
            cand = ops[:i] + ops[i + chunk:]
            tries += 1
            f = replay(binary, cand, timeout)
            if f and f.kind == fail.kind:
                ops = cand
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(n * 2, len(ops))
    return ops, tries


def show(op):
    """A command as in the log, numbers from 256 up in hex."""
    return "[" + ", ".join("0x%x" % x if isinstance(x, int) and
                           not isinstance(x, bool) and x >= 256
                           else json.dumps(x) for x in op) + "]"


def write_log(path, ops, header):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("# " + json.dumps(header) + "\n")
        for op in ops:
            f.write(show(op) + "\n")


def read_log(path):
    """A log as write_log() writes it: JSON lists, "#" comments, and
    numbers may be hex (0x...)."""
    with open(path) as f:
        return [json.loads(re.sub(r"\b0x([0-9a-fA-F]+)\b",
                                  lambda m: str(int(m.group(1), 16)), line))
                for line in f if line.strip() and not line.startswith("#")]


def report_failure(a, seed, ops, fail, outdir):
    print("# FAILED with seed %d after %d commands: %s" %
          (seed, len(ops), fail.kind))
    for line in str(fail.detail).splitlines()[:40]:
        print("#   " + line)
    path = os.path.join(outdir, "fail-%d-%s.jsonl" % (seed, fail.kind))
    write_log(path, ops, {"seed": seed, "kind": fail.kind})
    print("# command log: %s (replay: tests/fuzz.py --replay %s)" %
          (os.path.relpath(path, TOP), os.path.relpath(path, TOP)))
    if a.shrink_secs > 0:
        t0 = time.monotonic()
        small, tries = shrink(a.qemu, ops, fail, a.timeout, a.shrink_secs)
        spath = os.path.join(outdir, "fail-%d-%s-min.jsonl" %
                             (seed, fail.kind))
        write_log(spath, small, {"seed": seed, "kind": fail.kind})
        print("# shrunk to %d commands in %.0f s (%d replays): %s" %
              (len(small), time.monotonic() - t0, tries,
               os.path.relpath(spath, TOP)))
        print("# reproduction (tests/fuzz.py --replay %s):" %
              os.path.relpath(spath, TOP))
        for op in small[:80]:
            print("#   " + show(op))
        if len(small) > 80:
            print("#   ... (%d more)" % (len(small) - 80))


def fuzz(a, seed, seconds, outdir):
    """One seeded run; returns (ok, summary)."""
    rnd = random.Random(seed)
    gen = Gen(rnd)
    ops = []
    t0 = time.monotonic()
    m = None
    fail = None
    checks = 0
    try:
        m = boot(a.qemu, a.timeout, a.trace)
        last_check = time.monotonic()
        while time.monotonic() - t0 < seconds:
            for op in gen.next():
                ops.append(op)
                m.run(op)
            if time.monotonic() - last_check > a.check_every:
                ops.append(["check"])
                m.run(["check"])
                checks += 1
                last_check = time.monotonic()
        ops.append(["check"])
        m.run(["check"])
        checks += 1
    except Failure as e:
        fail = e
    secs = time.monotonic() - t0
    if m:
        end = m.q.close(hung=bool(fail and fail.kind == "hang"))
        if end and end.kind in ("crash", "sanitizer") and \
                (not fail or fail.kind in ("hang", "qtest", "qmp", "crash")):
            fail = end
    nops = m.ops if m else 0
    summary = ("seed %d: %d commands in %.0f s (%.0f/s), %d canary checks, "
               "%d frames in, %d out, %d not delivered" %
               (seed, nops, secs, nops / max(secs, 1e-3), checks,
                sum(1 for o in ops if o[0] == "frame"),
                m.frames_out if m else 0, m.undelivered if m else 0))
    if m:
        print("# commands run: " + ", ".join(
            "%s %d" % kv for kv in sorted(m.kinds.items())))
    if fail:
        report_failure(a, seed, ops, fail, outdir)
        return False, summary
    return True, summary


def default_qemu():
    out = subprocess.run(["bash", os.path.join(TOP, "scripts", "qemu.sh"),
                          "path"], stdout=subprocess.PIPE, text=True)
    return out.stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=None,
                    help="default: a random one (printed)")
    ap.add_argument("--qemu", default=None,
                    help="qemu-system-x86_64 (default: scripts/qemu.sh path)")
    ap.add_argument("--timeout", type=float, default=15,
                    help="seconds a command may take before it is a hang")
    ap.add_argument("--check-every", type=float, default=2.0,
                    help="seconds between canary checks")
    ap.add_argument("--shrink-secs", type=float, default=120,
                    help="time to spend shrinking a failing log")
    ap.add_argument("--replay", metavar="FILE",
                    help="run this command log instead of fuzzing")
    ap.add_argument("--trace", help="QEMU -trace argument, e.g. "
                    "'enable=mrpsim_*,file=/tmp/trace.log'")
    ap.add_argument("--no-cases", action="store_true",
                    help="skip the regression cases in tests/fuzz-cases")
    ap.add_argument("--out", default=os.path.join(TOP, "build", "fuzz"))
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    a.qemu = a.qemu or default_qemu()
    if not os.access(a.qemu, os.X_OK):
        print("not ok 1 - fuzz: no QEMU at %s" % a.qemu)
        print("0 passed, 1 failed")
        return 1

    if a.replay:
        ops = read_log(a.replay)
        f = replay(a.qemu, ops, a.timeout, a.trace)
        if f:
            print("not ok 1 - replay %s: %s" % (a.replay, f.kind))
            for line in str(f.detail).splitlines()[:60]:
                print("#   " + line)
            print("0 passed, 1 failed")
            return 1
        print("ok 1 - replay %s" % a.replay)
        print("1 passed, 0 failed")
        return 0

    passed = failed = n = 0
    if not a.no_cases:
        for path in sorted(glob.glob(os.path.join(TOP, "tests", "fuzz-cases",
                                                  "*.jsonl"))):
            n += 1
            t0 = time.monotonic()
            f = replay(a.qemu, read_log(path), a.timeout)
            name = os.path.basename(path)[:-6]
            if f:
                failed += 1
                print("not ok %d - fuzz case %s (%.1f s)" %
                      (n, name, time.monotonic() - t0))
                for line in str(f).splitlines()[:40]:
                    print("#   " + line)
            else:
                passed += 1
                print("ok %d - fuzz case %s (%.1f s)" %
                      (n, name, time.monotonic() - t0))

    seed = a.seed if a.seed is not None else random.SystemRandom().getrandbits(
        31)
    print("# fuzz seed %d for %.0f s, QEMU %s" % (seed, a.seconds, a.qemu))
    ok, summary = fuzz(a, seed, a.seconds, a.out)
    n += 1
    if ok:
        passed += 1
        print("ok %d - fuzz %s" % (n, summary))
    else:
        failed += 1
        print("not ok %d - fuzz %s" % (n, summary))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
