#!/usr/bin/env python3
"""Boot a guest with mrpsim switches and drive it from the host.

A Topology lists switches (mrpsim devices) and cables between their ports.
Every cable is a pair of `-netdev hubport` backends on a private hub, so one
QEMU process holds the whole network.  The netdev of switch i port j is
called "s<i>p<j>"; `VM.set_link("s0p1", False)` cuts that end of a cable.

Inside the guest, tests/guest/agent runs commands sent over a second serial
port; tests/guest/lib.sh names the port netdevs "s<i>p<j>" too, from their
switch id and port name.

Command line use (for developers):
    tests/vm.py [--ring N | --chain N] [--mrp off] [--load] [CMD...]
boots the topology, loads the driver if asked, runs each CMD in the guest,
prints the output and powers off.  Without CMD it opens an interactive
prompt.
"""

import argparse
import base64
import gzip
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))

# Kernel messages that fail a test run when they appear in the guest log.
SPLAT_PATTERNS = [
    r"BUG: ", r"WARNING: ", r"KASAN: ", r"UBSAN: ", r"kmemleak: \d+ new",
    r"unreferenced object", r"possible circular locking",
    r"possible recursive locking", r"inconsistent lock state",
    r"suspicious RCU usage", r"sleeping function called from invalid",
    r"Oops", r"Kernel panic", r"general protection fault",
    r"INFO: task .* blocked", r"hung_task", r"list_add corruption",
    r"list_del corruption", r"ODEBUG: ",
    # RCU's stall detector ("rcu: INFO: rcu_sched self-detected stall on
    # CPU", "... detected stalls on CPUs/tasks") and its grace-period
    # kthread not getting to run.
    r"rcu: INFO: .*stall", r"rcu: .*kthread (starved|timer wakeup didn't)",
    r"scheduling while atomic", r"refcount_t: ", r"unregister_netdevice: waiting",
    # A transmit queue that stalled (the watchdog's WARNING comes only once
    # per boot; the driver's own message every time).
    r"NETDEV WATCHDOG", r"TX timeout",
]
SPLAT_RE = re.compile("|".join(SPLAT_PATTERNS))


def find_splats(text):
    """Return the lines of a guest log that report a kernel problem."""
    return [line for line in text.splitlines() if SPLAT_RE.search(line)]


KMEMLEAK = "/sys/kernel/debug/kmemleak"


# What the tests left running ends before kmemleak scans: mrpd, pings, the
# namespaces and bridges with their MRP rings.  A ring tested in software
# kept a guest's CPUs half busy in softirqs, and each scan took three
# times as long (23 s against 7 s).  An object the teardown frees was no
# leak; one it leaves behind unreferenced is found as before, and so are
# leaks of the teardown itself.  The namespaces go in a workqueue, while
# the first scan runs: that scan only records what each object holds, the
# second reports.
QUIESCE = (
    "killall -q mrpd ping arping 2>/dev/null\n"
    "{ for n in $(ip netns list | cut -d' ' -f1); do echo \"netns del $n\"; "
    "done\n"
    "  for b in $(ip -o link show type bridge | cut -d: -f2); do "
    "echo \"link del $b\"; done; } | ip -force -batch - >/dev/null 2>&1\n")


def kmemleak_scan(vm, timeout=900):
    """Ask kmemleak for the leaks found so far: (ok, report).

    The guest does not scan on its own (a scan takes a minute under TCG).
    One scan is not enough: kmemleak reports an object only when it is
    older than 5 s and its contents did not change since the previous scan,
    and on the first scan every object counts as changed.  So scan, let
    more than 5 s pass since the first scan began (it takes 10 to 30 s
    itself under TCG: then no more), scan again.  QUIESCE first.  ok is
    False when kmemleak is missing or disabled: then nothing could have
    been found."""
    status, out = vm.run(
        "k=%s\n"
        "[ -w $k ] || { echo \"kmemleak: $k missing\"; exit 2; }\n"
        % KMEMLEAK + QUIESCE +
        "up() { cut -d. -f1 /proc/uptime; }\n"
        "t0=$(up)\n"
        "echo scan >$k || { echo 'kmemleak: scan refused (disabled?)';"
        " exit 3; }\n"
        # kmemleak's minimum object age (MSECS_MIN_AGE, 5 s), in whole
        # seconds of uptime: 6 of them are more than 5 s
        "t=$(($(up) - t0))\n"
        "[ $t -ge 6 ] || sleep $((6 - t))\n"
        "echo scan >$k || exit 3\n"
        "cat $k", timeout=timeout)
    return status == 0, out


class Topology:
    """Switches and the cables between them."""

    def __init__(self):
        self.switches = []   # dicts: ports, mrp, extra device options
        self.cables = []     # ((sw, port), (sw, port))
        self.dumps = []      # (netdev, pcap file, queue)
        self.ring_n = 0      # switches 0..ring_n-1 form a ring (ring())
        self.extra = []      # more QEMU arguments (host-side netdevs)
        self.traces = []     # QEMU trace events logged to trace_file
        self.trace_file = "trace.log"
        self.injectors = []  # host UDP ways in for frames (injector())

    def switch(self, ports=2, mrp=True, **opts):
        self.switches.append({"ports": ports, "mrp": mrp, "opts": opts})
        return len(self.switches) - 1

    def cable(self, a, b):
        for sw, port in (a, b):
            if port >= self.switches[sw]["ports"]:
                raise ValueError("switch %d has no port %d" % (sw, port))
            for c in self.cables:
                if (sw, port) in c:
                    raise ValueError("s%dp%d cabled twice" % (sw, port))
        self.cables.append((a, b))

    def dump(self, netdev, path, queue="all"):
        """Record what crosses netdev (a cable end) into a pcap file
        (a relative path is relative to the VM's work directory).  With
        queue "rx", only what the switch port puts on the cable (the
        hubport receives it); "tx", only what the port receives."""
        self.dumps.append((netdev, path, queue))

    def trace(self, *events):
        """Log these QEMU trace events (patterns) to trace_file in the
        VM's work directory, stamped with the host's clock."""
        self.traces += events

    # Switches 0..15 sit on PCI bus 0 from slot 0x10; the others behind
    # PCI-PCI bridges on bus 0 from slot 0x08, 31 switches per bridge.
    # The guest names ports after the switch's MAC (tests/guest/lib.sh),
    # not after its PCI address.
    SLOT0 = 0x10
    BUS0_SWITCHES = 16
    BRIDGE_SLOT0 = 0x08
    PER_BRIDGE = 31
    MAX_SWITCHES = BUS0_SWITCHES + PER_BRIDGE * (SLOT0 - BRIDGE_SLOT0)

    @classmethod
    def pci_addr(cls, i):
        """(bus id, slot) of switch i: bus None is the root bus."""
        if i < cls.BUS0_SWITCHES:
            return None, cls.SLOT0 + i
        b, k = divmod(i - cls.BUS0_SWITCHES, cls.PER_BRIDGE)
        return "pb%d" % b, 1 + k

    @staticmethod
    def netdev(sw, port):
        return "s%dp%d" % (sw, port)

    @staticmethod
    def mac(sw):
        return "52:54:00:4d:%02x:00" % sw

    @classmethod
    def ring(cls, n, ports=2, mrp=True):
        """n switches, port 1 of each cabled to port 0 of the next."""
        t = cls()
        for _ in range(n):
            t.switch(ports=ports, mrp=mrp)
        for i in range(n):
            t.cable((i, 1), ((i + 1) % n, 0))
        t.ring_n = n
        return t

    @classmethod
    def chain(cls, n, ports=2, mrp=True):
        """n switches in a line, port 1 of each cabled to port 0 of the next."""
        t = cls()
        for _ in range(n):
            t.switch(ports=ports, mrp=mrp)
        for i in range(n - 1):
            t.cable((i, 1), (i + 1, 0))
        return t

    def injector(self, cable=None, port=None):
        """A way in for frames from the host (VM.inject()): a UDP socket
        netdev, each datagram sent to it one Ethernet frame, joined to the
        hub of cable number `cable` (both of its ports receive every
        frame) or plugged into switch port `port`, a (switch, port) with
        no cable.  A cable's hub with a third port has no link-partner
        model (qemu-dev's mrpsim.c): only cut such a cable at both ends.
        Returns the injector's number."""
        if (cable is None) == (port is None):
            raise ValueError("an injector goes on a cable or a port")
        ports = []
        for _ in range(2):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.bind(("127.0.0.1", 0))
                ports.append(s.getsockname()[1])
        self.injectors.append({"cable": cable, "port": port,
                               "qemu": ports[0], "host": ports[1]})
        return len(self.injectors) - 1

    def qemu_args(self, workdir="."):
        if len(self.switches) > self.MAX_SWITCHES:
            raise ValueError("at most %d switches" % self.MAX_SWITCHES)
        args = []
        cabled = {}
        for n, inj in enumerate(self.injectors):
            args += ["-netdev", "socket,id=inj%d,udp=127.0.0.1:%d,"
                     "localaddr=127.0.0.1:%d" % (n, inj["host"], inj["qemu"])]
            if inj["cable"] is not None:
                args += ["-netdev", "hubport,id=inj%dh,hubid=%d,netdev=inj%d"
                         % (n, 100 + inj["cable"], n)]
        for hub, (a, b) in enumerate(self.cables):
            for sw, port in (a, b):
                nd = self.netdev(sw, port)
                args += ["-netdev", "hubport,id=%s,hubid=%d" % (nd, 100 + hub)]
                cabled[(sw, port)] = nd
        bridges = set()
        for i, sw in enumerate(self.switches):
            bus, slot = self.pci_addr(i)
            if bus and bus not in bridges:
                b = len(bridges)
                args += ["-device", "pci-bridge,id=%s,chassis_nr=%d,addr=0x%x"
                         % (bus, b + 1, self.BRIDGE_SLOT0 + b)]
                bridges.add(bus)
            args += ["-device", ",".join(
                ["mrpsim"] + ["%s=%s" % kv
                              for kv in self.device_props(i).items()])]
        for n, (nd, path, queue) in enumerate(self.dumps):
            args += ["-object",
                     "filter-dump,id=dump%d,netdev=%s,queue=%s,file=%s" % (
                         n, nd, queue, os.path.join(workdir, path))]
        for ev in self.traces:
            args += ["-trace", ev]
        if self.traces:
            args += ["-D", os.path.join(workdir, self.trace_file)]
        return args + list(self.extra)

    def device_props(self, i):
        """QEMU properties of switch i's -device (or QMP device_add)."""
        sw = self.switches[i]
        bus, slot = self.pci_addr(i)
        props = {"id": "sw%d" % i, "addr": "0x%x" % slot,
                 "ports": sw["ports"], "mac": self.mac(i),
                 "mrp": "on" if sw["mrp"] else "off"}
        if bus:
            props["bus"] = bus
        props.update(sorted(sw["opts"].items()))
        for a, b in self.cables:
            for end_sw, port in (a, b):
                if end_sw == i:
                    props["netdev%d" % port] = self.netdev(i, port)
        for n, inj in enumerate(self.injectors):
            if inj["port"] is not None and inj["port"][0] == i:
                props["netdev%d" % inj["port"][1]] = "inj%d" % n
        return props

    def guest_memory(self):
        """MiB for a debug guest with these switches: every port keeps 256
        2 KiB receive buffers, and every ring node has a namespace, a
        bridge and an mrpd."""
        ports = sum(sw["ports"] for sw in self.switches)
        return max(512, 384 + 6 * ports + 4 * self.ring_n)


def _run_script(script, *args):
    out = subprocess.run(["bash", os.path.join(TOP, "scripts", script)] +
                         list(args), check=True, capture_output=True,
                         text=True).stdout
    return out.strip().splitlines()[-1]


def default_paths():
    """Paths of QEMU, the kernel and the initramfs the Makefile builds.
    The kernel tree follows KSRC_PKG and DEBUG (scripts/kernel.sh path);
    its initramfs, which carries its mrpsim.ko, lives in the same tree."""
    qemu = os.environ.get("MRPSIM_QEMU") or _run_script("qemu.sh", "path")
    kobj = _run_script("kernel.sh", "path")
    kernel = os.environ.get("MRPSIM_KERNEL") or os.path.join(
        kobj, "arch/x86/boot/bzImage")
    initrd = os.environ.get("MRPSIM_INITRD") or os.path.join(
        kobj, "initramfs.cpio")
    return qemu, kernel, initrd


def kernel_release(bzimage):
    """The release (uname -r) a bzImage says it is, from the version string
    its boot setup header points to; None if it is not a bzImage."""
    try:
        with open(bzimage, "rb") as f:
            head = f.read(0x8000)
    except OSError:
        return None
    if head[0x202:0x206] != b"HdrS":
        return None
    at = 0x200 + int.from_bytes(head[0x20e:0x210], "little")
    version = head[at:at + 256].split(b"\0")[0].decode(errors="replace")
    return version.split(" ")[0] or None


class Skip(Exception):
    """Raised by a test that does not run here; the message says why."""


class GuestError(Exception):
    pass


class BootHang(GuestError):
    """The guest did not come up: its agent stayed silent, or its console
    reported an RCU stall before it answered.  Seen under TCG on a loaded
    host (tests/boots.py): a vCPU halted for good with its local APIC's
    timer vector in service (ISR) that the guest never saw, so that the
    APIC's priority (PPR) holds back every later interrupt.  The guest
    did nothing wrong and a second boot comes up: VM boots again, up to
    BOOT_TRIES times, and says so (boot_hangs)."""


BOOT_TRIES = 2
STALL_RE = re.compile(r"rcu: INFO: rcu_\w+ detected stalls.*")


class QMP:
    def __init__(self, path, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)   # QEMU has not created the socket yet
        self.file = self.sock.makefile("rw")
        self.events = []
        self._recv()          # greeting
        self.cmd("qmp_capabilities")

    def _recv(self):
        while True:
            line = self.file.readline()
            if not line:
                raise GuestError("QMP connection closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg
            self.events.append(msg)

    def wait_event(self, name, timeout, **data):
        """Wait for QMP event name whose data has the given items (events
        seen since the last wait count); return it."""
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev["event"] == name and all(
                        ev.get("data", {}).get(k) == v
                        for k, v in data.items()):
                    del self.events[:i + 1]
                    return ev
            self.events.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise GuestError("no QMP event %s %r in %.0f s" % (
                    name, data, timeout))
            self.sock.settimeout(left)
            try:
                line = self.file.readline()
            except (socket.timeout, TimeoutError):
                continue
            finally:
                self.sock.settimeout(None)
            if not line:
                raise GuestError("QMP connection closed")
            msg = json.loads(line)
            if "event" in msg:
                self.events.append(msg)

    def cmd(self, command, **args):
        self.file.write(json.dumps({"execute": command,
                                    "arguments": args}) + "\n")
        self.file.flush()
        reply = self._recv()
        if "error" in reply:
            raise GuestError("QMP %s: %s" % (command,
                                             reply["error"]["desc"]))
        return reply.get("return")

    def close(self):
        self.sock.close()


class VM:
    """One QEMU process running the guest with a Topology of switches."""

    def __init__(self, topo, workdir=None, memory=None, smp=2, append="",
                 boot_timeout=300, qemu_extra=()):
        self.topo = topo
        self.smp = smp
        self.qemu, self.kernel, self.initrd = default_paths()
        for p in (self.qemu, self.kernel, self.initrd):
            if not os.path.exists(p):
                raise GuestError("%s missing: run make" % p)
        self.own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="mrpsim-vm-")
        os.makedirs(self.workdir, exist_ok=True)
        self.console = os.path.join(self.workdir, "console.log")
        qmp_path = os.path.join(self.workdir, "qmp.sock")
        agent_path = os.path.join(self.workdir, "agent.sock")
        for p in (qmp_path, agent_path):
            if os.path.exists(p):
                os.unlink(p)
        # Under TCG every vCPU reads the host's TSC: it is synchronised
        # and stable, and far cheaper to read than the HPET.
        # no_timer_check: early in boot the kernel wants 10 timer ticks
        # within 40 ms of TSC time and panics ("IO-APIC + timer doesn't
        # work!") when QEMU's timer thread was not scheduled meanwhile, as
        # on a loaded host (tests/boots.py); KVM guests skip it the same way.
        # The lockup detectors measure wall-clock time, and a debug guest
        # under TCG on a loaded host runs many times slower than the
        # hardware their defaults assume: creating the trace event
        # directories at boot kept a CPU 23 s without scheduling (a soft
        # lockup at 20 s, an RCU stall at 21 s).  Report a CPU stuck for
        # 60 s instead; test_nets lowers both to prove they fire.
        cmdline = ("console=ttyS0 panic=-1 oops=panic mrpsim.agent "
                   "tsc=reliable no_timer_check watchdog_thresh=30 "
                   "rcupdate.rcu_cpu_stall_timeout=60 " + append)
        self.argv = [
            self.qemu, "-M", "pc", "-m", str(memory or topo.guest_memory()),
            "-smp", str(smp),
            "-nodefaults", "-no-reboot", "-display", "none",
            "-L", "/usr/share/seabios", "-L", "/usr/share/qemu",
            "-kernel", self.kernel, "-initrd", self.initrd,
            "-append", cmdline,
            "-chardev", "file,id=con,path=%s" % self.console,
            "-serial", "chardev:con",
            "-chardev", "socket,id=agent,path=%s,server=on,wait=off" %
            agent_path,
            "-serial", "chardev:agent",
            "-qmp", "unix:%s,server=on,wait=off" % qmp_path,
        ] + topo.qemu_args(self.workdir) + list(qemu_extra) + shlex.split(
            os.environ.get("MRPSIM_QEMU_ARGS", ""))
        self.stderr = open(os.path.join(self.workdir, "qemu.stderr"), "w+")
        self.seq = 0
        self.exit_status = None
        # Every agent command with its status and duration, for the
        # question "where did the time go" after a slow run.
        self.transcript = open(os.path.join(self.workdir, "agent.log"), "w")
        # A boot that hangs is booted again, once: see BootHang.  What
        # it showed stays beside the console (console-hung1.log,
        # hang-hung1.txt); when the last try hangs too, its logs are
        # console.log and hang.txt as without a retry.
        self.boot_hangs = []
        while True:
            try:
                self._boot(qmp_path, agent_path, boot_timeout)
                break
            except BootHang as e:
                self.boot_hangs.append(str(e))
                n = len(self.boot_hangs)
                if n >= BOOT_TRIES:
                    raise       # the last one's logs as they are
                for f in ("console.log", "hang.txt"):
                    src = os.path.join(self.workdir, f)
                    base, ext = os.path.splitext(f)
                    if os.path.exists(src):
                        os.replace(src, os.path.join(
                            self.workdir, "%s-hung%d%s" % (base, n, ext)))

    def _boot(self, qmp_path, agent_path, timeout):
        for p in (qmp_path, agent_path):
            if os.path.exists(p):
                os.unlink(p)
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                     stdout=self.stderr, stderr=self.stderr)
        try:
            self.qmp = QMP(qmp_path, 10)
            self.agent = socket.socket(socket.AF_UNIX)
            self.agent.connect(agent_path)
            self.buf = b""
            self._wait_ready(timeout)
        except Exception:
            self.dump_cpus()
            self.kill()
            for s in ("agent", "qmp"):
                if hasattr(self, s):
                    getattr(self, s).close()
                    delattr(self, s)
            raise

    def _wait_ready(self, timeout):
        """Wait for the agent's first word; a console that reports an RCU
        stall meanwhile is a hung boot, without waiting out timeout."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._expect(b"@@READY", max(0, min(
                    5, deadline - time.monotonic())))
                return
            except GuestError as e:
                if "did not answer" not in str(e):
                    raise
            try:
                with open(self.console, errors="replace") as f:
                    stall = STALL_RE.search(f.read())
            except OSError:
                stall = None
            if stall:
                raise BootHang("boot hung: %s" % stall.group(0).strip())
            if time.monotonic() >= deadline:
                raise BootHang("guest did not answer in %d s" % timeout)

    # -- agent protocol --------------------------------------------------
    def _readline(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise GuestError("guest did not answer in time")
            if self.proc.poll() is not None:
                raise GuestError("QEMU exited with %d: %s" % (
                    self.proc.returncode, self.qemu_stderr()[-500:]))
            r, _, _ = select.select([self.agent], [], [], min(left, 0.5))
            if r:
                data = self.agent.recv(65536)
                if not data:
                    raise GuestError("agent connection closed")
                self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r")

    def _expect(self, word, timeout):
        deadline = time.monotonic() + timeout
        while self._readline(deadline).strip() != word:
            pass

    def run(self, cmd, timeout=180):
        """Run a shell script in the guest; return (status, output)."""
        self.seq += 1
        sid = str(self.seq)
        if "\n@@" in "\n" + cmd:
            raise ValueError("a guest command line may not start with @@")
        req = "@@CMD %s\n%s\n@@EOC %s\n" % (sid, cmd, sid)
        self.agent.sendall(req.encode())
        t0 = time.monotonic()
        deadline = t0 + timeout
        self.transcript.write("[%s] %s\n" % (sid, cmd))
        self.transcript.flush()
        while self._readline(deadline) != ("@@OUT " + sid).encode():
            pass
        out = []
        while True:
            line = self._readline(deadline)
            if line.startswith(("@@END %s " % sid).encode()):
                status = int(line.split()[2])
                break
            out.append(line)
        if out and out[-1] == b"":
            out.pop()          # the newline the agent puts before @@END
        text = b"\n".join(out).decode(errors="replace")
        self.transcript.write("[%s] status %d after %.1f s\n" % (
            sid, status, time.monotonic() - t0))
        self.transcript.flush()
        return status, text + "\n" if text else text

    def check(self, cmd, timeout=180):
        """Run a guest command that must succeed; return its output."""
        status, out = self.run(cmd, timeout)
        if status != 0:
            raise AssertionError("guest command failed (%d): %s\n%s" %
                                 (status, cmd, out.rstrip()))
        return out

    def fetch(self, cmd, timeout=600):
        """The output of a guest command that must succeed, compressed on
        the way: the agent's serial line moves about 100 bytes a ms, and
        captures and logs run to megabytes."""
        out = self.check("{ %s\n} | gzip -1 | base64" % cmd, timeout)
        return gzip.decompress(base64.b64decode("".join(out.split()))).decode(
            errors="replace")

    def script_results(self, cmd, timeout=1800):
        """Run a guest script printing "ok - NAME" / "not ok - NAME" lines
        and a final "N passed, N failed"; yield (name, ok, detail) for
        each, detail being the indented lines that follow a failure."""
        status, out = self.run(cmd, timeout)
        results, summary, tail = [], None, ""
        for line in out.splitlines():
            m = re.match(r"(not )?ok(?: \d+)? - (.*)", line)
            if m:
                results.append([m.group(2), m.group(1) is None, ""])
                tail = ""
            elif re.match(r"\d+ passed, \d+ failed", line):
                summary = line
            elif results and not results[-1][1]:
                results[-1][2] += line + "\n"
            else:
                tail += line + "\n"
        # what the script printed after its last check (its logs, when a
        # check failed) goes with the first failure
        failed = [r for r in results if not r[1]]
        if failed and tail:
            failed[0][2] += tail
        for r in results:
            yield tuple(r)
        if summary is None or (status != 0 and all(r[1] for r in results)):
            yield ("script completed", False,
                   "exit %d, summary %r\n%s" % (status, summary, out[-3000:]))

    # -- host side ---------------------------------------------------------
    def inject(self, n, frames, gap=0.002):
        """Send frames (bytes) into the guest's switches through injector
        n of the topology (Topology.injector()), gap seconds apart: QEMU's
        socket receive buffer (rmem_default) holds a few hundred frames,
        and drops the rest silently when QEMU's main loop lags."""
        port = self.topo.injectors[n]["qemu"]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for f in frames:
                s.sendto(f, ("127.0.0.1", port))
                time.sleep(gap)

    def set_link(self, netdev, up):
        self.qmp.cmd("set_link", name=netdev, up=bool(up))

    def qemu_stderr(self):
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()

    def log(self):
        try:
            with open(self.console, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def shutdown(self, timeout=60):
        """Power the guest off; return its console log."""
        if self.proc.poll() is None:
            try:
                self.agent.sendall(b"@@QUIT\n")
                self.proc.wait(timeout)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        m = re.findall(r"MRPSIM-EXIT (\d+)", self.log())
        self.exit_status = int(m[-1]) if m else None
        return self.log()

    def stall(self, seconds):
        """Stop the whole QEMU process for seconds, as a busy host does:
        every vCPU, timer and frame in flight waits."""
        os.kill(self.proc.pid, signal.SIGSTOP)
        try:
            time.sleep(seconds)     # the stall itself is the stimulus
        finally:
            os.kill(self.proc.pid, signal.SIGCONT)

    def dump_cpus(self, name="hang.txt", samples=2):
        """What QEMU shows of a guest that does not answer, into
        workdir/name: each vCPU's registers (HLT=1: halted, waiting for an
        interrupt) twice, a second apart, whether it moved, and each
        local APIC (its timer's mode, counts and mask, pending
        interrupts).  A boot that times out leaves it beside the
        console."""
        if self.proc.poll() is not None or not hasattr(self, "qmp"):
            return
        cmds = ["info registers -a"] * samples + [
            "info lapic %d" % i for i in range(self.smp)] + ["info pic"]
        try:
            with open(os.path.join(self.workdir, name), "w") as f:
                for i, c in enumerate(cmds):
                    if i and cmds[i - 1] == c:
                        time.sleep(1)
                    f.write("(qemu) %s\n%s\n" % (
                        c, self.qmp.cmd("human-monitor-command",
                                        **{"command-line": c})))
        except (OSError, GuestError, ValueError) as e:
            print("# %s: no CPU dump: %s" % (self.workdir, e))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        self.kill()
        for s in ("agent", "qmp"):
            if hasattr(self, s):
                getattr(self, s).close()
        self.stderr.close()
        if self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--ring", type=int, metavar="N",
                   help="N switches cabled in a ring (default 3)")
    g.add_argument("--chain", type=int, metavar="N",
                   help="N switches cabled in a line")
    ap.add_argument("--ports", type=int, default=2)
    ap.add_argument("--mrp", choices=("on", "off"), default="on")
    ap.add_argument("--load", action="store_true",
                    help="load mrpsim.ko and name ports s<i>p<j>")
    ap.add_argument("--keep", metavar="DIR", help="keep logs in DIR")
    ap.add_argument("cmd", nargs="*", help="guest shell commands")
    a = ap.parse_args()
    mrp = a.mrp == "on"
    if a.chain:
        topo = Topology.chain(a.chain, a.ports, mrp)
    else:
        topo = Topology.ring(a.ring or 3, a.ports, mrp)
    with VM(topo, workdir=a.keep) as vm:
        if a.load:
            print(vm.check(". /mrpsim/lib.sh && load_driver"), end="")
        cmds = a.cmd
        if not cmds:
            print("guest shell; 'set_link NETDEV on|off' acts on the host; "
                  "EOF ends", file=sys.stderr)
        for cmd in cmds or iter(lambda: input("guest# "), None):
            w = cmd.split()
            if len(w) == 3 and w[0] == "set_link":
                vm.set_link(w[1], w[2] == "on")
                continue
            status, out = vm.run(cmd, timeout=600)
            print(out, end="")
            if status:
                print("[exit %d]" % status)
    splats = find_splats(vm.log())
    if splats:
        print("guest log has kernel splats:\n" + "\n".join(splats))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except EOFError:
        pass
