#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of `mrpctl capture` on a veth pair: both directions, JSON and
text output, interface and direction filters, malformed and non-MRP
frames, --count, --timeout, signals, bursts.

Runs as root in a private network namespace (unshare -n), like
daemon_smoke.py.  The frames are built here, independently of
mrp_frame.c, with the layout of IEC 62439-2 (TLVs 32-bit aligned).
Usage: capture_smoke.py BUILD_DIR
"""
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smoke import in_own_netns, report, sh, summary  # noqa: E402


DST_TEST = bytes.fromhex("01154e000001")
DST_CTRL = bytes.fromhex("01154e000002")
SRC = bytes.fromhex("020000aa0001")
SA = bytes.fromhex("020000aa0000")
OTHER = bytes.fromhex("020000bb0000")
DOMAIN = b"\xff" * 16


def mac(b):
    return ":".join("%02x" % x for x in b)


def tlv(t, v):
    return bytes([t, len(v)]) + v


def common(seq):
    return tlv(0x01, struct.pack("!H", seq) + DOMAIN)


def frame(dst, body):
    f = dst + SRC + struct.pack("!HH", 0x88E3, 1) + body + tlv(0x00, b"")
    return f + bytes(max(0, 60 - len(f)))


def test_frame(seq, auto_mgr=False):
    body = tlv(0x02, struct.pack("!H6sHHHI", 0x8000, SA, 0, 1, 2, 1234))
    body += common(seq)
    if auto_mgr:    # OUI, Ed1Type + data, sub-TLV AutoMgr, padding
        body += tlv(0x7F, bytes(6) + bytes([0x03, 0]) + bytes(2))
    return frame(DST_TEST, body)


def topo_frame(seq):
    body = tlv(0x03, struct.pack("!H6sH", 0x8000, SA, 20)) + common(seq)
    return frame(DST_CTRL, body)


def link_up_frame(seq, pad=b"\0\0"):
    # MRP_LinkChange has length 12: 2 padding bytes align MRP_Common
    body = tlv(0x05, struct.pack("!6sHHH", SA, 0, 20, 1)) + pad
    return frame(DST_CTRL, body + common(seq))


def nack_frame(seq):
    sub = tlv(0x01, struct.pack("!H6sH6s", 0xA000, SA, 0x8000, OTHER))
    body = tlv(0x7F, bytes.fromhex("080006") + bytes(3) + sub + bytes(2))
    return frame(DST_TEST, body + common(seq))


# (frame, expected JSON fields); None: must not be shown
SENT = [
    (test_frame(1), dict(type="Test", tlv=2, seq=1, len=60, sa=mac(SA),
                         dst=mac(DST_TEST))),
    (test_frame(2, True), dict(type="Test", tlv=2, seq=2, len=70,
                               sa=mac(SA), dst=mac(DST_TEST))),
    (topo_frame(3), dict(type="TopologyChange", tlv=3, seq=3, len=60,
                         sa=mac(SA), dst=mac(DST_CTRL))),
    (link_up_frame(4), dict(type="LinkUp", tlv=5, seq=4, len=60, sa=mac(SA),
                            dst=mac(DST_CTRL))),
    (nack_frame(5), dict(type="Option", tlv=127, seq=5, len=66,
                         sub="TestMgrNAck", sa=mac(SA), dst=mac(DST_TEST))),
    # not MRP: local experimental EtherType, else the same frame
    (DST_CTRL + SRC + b"\x88\xb5" + topo_frame(9)[14:], None),
    # malformed: padding that is not zero; the lenient walk finds seq 6
    (link_up_frame(6, b"\xab\xcd"), dict(type="LinkUp", tlv=5, seq=6,
                                         len=60, dst=mac(DST_CTRL),
                                         error="TLV length out of bounds")),
    # malformed: TopologyChange TLV longer than the frame, no seq
    (DST_CTRL + SRC + bytes.fromhex("88e3 0001 03c8") + bytes(42),
     dict(type="TopologyChange", tlv=3, seq=None, len=60, dst=mac(DST_CTRL),
          error="TLV length out of bounds")),
]
EXPECTED = [e for _, e in SENT if e]


def listening(pid):
    """Whether process pid has its ETH_P_ALL packet socket bound."""
    inodes = set()
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    except OSError:
        return False
    with open("/proc/net/packet") as f:
        next(f)
        for line in f:
            # sk RefCnt Type Proto Iface R Rmem User Inode
            w = line.split()
            if len(w) >= 9 and w[8] in inodes and w[3] == "0003" and \
                    w[5] == "1":
                return True
    return False


class Capture:
    def __init__(self, cmd):
        self.out = tempfile.TemporaryFile(mode="w+")
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen(cmd, stdout=self.out, stderr=self.err)
        self.rc = None
        end = time.monotonic() + 5
        while not listening(self.p.pid) and time.monotonic() < end and \
                self.p.poll() is None:
            time.sleep(0.01)

    def finish(self, sig=None, timeout=10):
        if sig is not None:
            self.p.send_signal(sig)
        try:
            self.rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.rc = self.p.wait()
        self.out.seek(0)
        self.err.seek(0)
        self.stdout = self.out.read()
        self.stderr = self.err.read()
        return self

    def lines(self):
        return self.stdout.splitlines()

    def json(self):
        return [json.loads(line) for line in self.lines()]


def key(d):
    return (d.get("seq") if d.get("seq") is not None else -1, d["type"])


def check_json(got, ifname, direction):
    """got: decoded lines; compare with EXPECTED (in any order)."""
    want = [dict(e, ifname=ifname, dir=direction, src=mac(SRC))
            for e in EXPECTED]
    problems = []
    if len(got) != len(want):
        problems.append("%d lines, expected %d" % (len(got), len(want)))
    for g in got:
        if not isinstance(g.get("time"), float):
            problems.append("bad time: %r" % g)
    gs = sorted(({k: v for k, v in g.items() if k != "time"} for g in got),
                key=key)
    for g, w in zip(gs, sorted(want, key=key)):
        if g != w:
            problems.append("got  %s\nwant %s" %
                            (json.dumps(g, sort_keys=True),
                             json.dumps(w, sort_keys=True)))
    return not problems, "\n".join(problems)


TEXT = re.compile(r"^(\d+\.\d{6}) (\S+) (in|out) ([0-9a-f:]{17}) > "
                  r"([0-9a-f:]{17}) (\S+) seq (\d+|-) len (\d+)"
                  r"( sub \S+)?( malformed: .+)?$")


def check_text(lines, ifname, direction):
    want = []
    for e in EXPECTED:
        t = str(e["tlv"]) if "error" in e else e["type"]
        s = "-" if e["seq"] is None else str(e["seq"])
        suffix = (" sub " + e["sub"]) if "sub" in e else ""
        if "error" in e:
            suffix += " malformed: " + e["error"]
        want.append((ifname, direction, mac(SRC), e["dst"], t, s,
                     str(e["len"]), suffix))
    got = []
    for line in lines:
        m = TEXT.match(line)
        if not m:
            return False, "bad line: " + line
        suffix = (m.group(9) or "") + (m.group(10) or "")
        got.append(m.groups()[1:8] + (suffix,))
    return sorted(got) == sorted(want), "\n".join(lines)


def send(sock, frames):
    for f in frames:
        sock.send(f)


def main():
    bdir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    mrpctl = os.path.join(bdir, "mrpctl")
    rc = in_own_netns("capture test", __file__, [bdir])
    if rc is not None:
        return rc

    cap = [mrpctl, "capture"]
    sh("ip", "link", "set", "lo", "up")
    sh("ip", "link", "add", "ca", "type", "veth", "peer", "name", "cb")
    sh("ip", "link", "set", "ca", "up")
    sh("ip", "link", "set", "cb", "up")
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind(("ca", 0))

    # five captures at once; all frames sent on ca, received on cb
    c_in = Capture([mrpctl, "-j", "capture", "cb"])
    c_out = Capture(cap + ["--json", "ca"])
    c_all = Capture(cap + ["-j"])
    c_rx = Capture(cap + ["-j", "--in"])
    c_tx = Capture(cap + ["--out"])
    send(tx, [f for f, _ in SENT])
    time.sleep(0.2)
    for c in (c_in, c_out, c_all, c_rx):
        c.finish(signal.SIGTERM)
    c_tx.finish(signal.SIGINT)
    for c, name in ((c_in, "SIGTERM"), (c_out, "SIGTERM"), (c_all, "SIGTERM"),
                    (c_rx, "SIGTERM"), (c_tx, "SIGINT")):
        report(c.rc == 0 and not c.stderr,
               "%s ends the capture with status 0, nothing on stderr (%s)" %
               (name, " ".join(c.p.args[1:])),
               "rc=%s stderr=%s" % (c.rc, c.stderr))
    try:
        ok, why = check_json(c_in.json(), "cb", "in")
        report(ok, "capture cb: every MRP frame received, type/seq/src/sa/"
               "len, malformed reported, non-MRP absent", why)
        ok, why = check_json(c_out.json(), "ca", "out")
        report(ok, "capture ca: the same frames as sent (dir out)", why)
        got = c_all.json()
        ok_in, why_in = check_json([g for g in got if g["ifname"] == "cb"],
                                   "cb", "in")
        ok_out, why_out = check_json([g for g in got if g["ifname"] == "ca"],
                                     "ca", "out")
        report(ok_in and ok_out and len(got) == 2 * len(EXPECTED),
               "capture without PORT: every interface, both directions",
               c_all.stdout + why_in + why_out)
        ok, why = check_json(c_rx.json(), "cb", "in")
        report(ok, "capture --in: received frames only", why)
    except ValueError as e:
        report(False, "JSON output parses", e)
    ok, why = check_text(c_tx.lines(), "ca", "out")
    report(ok, "capture --out: sent frames only, text format", why)

    # --count: exits as soon as N frames were printed
    t0 = time.monotonic()
    c = Capture(cap + ["-j", "--count", "2", "--timeout", "5000", "cb"])
    send(tx, [test_frame(11), test_frame(12), test_frame(13)])
    c.finish()
    seqs = [g["seq"] for g in c.json()] if c.rc == 0 else []
    report(c.rc == 0 and sorted(seqs) == [11, 12] and
           time.monotonic() - t0 < 4,
           "--count 2 prints 2 frames and exits 0",
           "rc=%s %s %s" % (c.rc, c.stdout, c.stderr))

    # --timeout before --count: status 3, nothing on stdout
    t0 = time.monotonic()
    c = Capture(cap + ["--count", "1", "--timeout", "300", "cb"]).finish()
    report(c.rc == 3 and not c.stdout and "timeout" in c.stderr and
           time.monotonic() - t0 >= 0.3,
           "--timeout expires before --count: status 3",
           "rc=%s %s %s" % (c.rc, c.stdout, c.stderr))
    c = Capture(cap + ["--timeout", "200", "--in", "ca"])
    send(tx, [test_frame(14)])
    c.finish()
    report(c.rc == 3 and not c.stdout,
           "--in on the sending end shows nothing",
           "rc=%s %s %s" % (c.rc, c.stdout, c.stderr))

    # bad arguments: status 2
    r = subprocess.run(cap + ["-j", "cb", "nope0"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=10)
    report(r.returncode == 2 and not r.stdout and
           "mrpctl: capture: no such interface 'nope0'" in r.stderr,
           "unknown interface: status 2 and a message", r.stderr)
    for args in (["--in", "--out"], ["--count"], ["--timeout", "x"],
                 ["--bogus"]):
        r = subprocess.run(cap + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=10)
        report(r.returncode == 2 and not r.stdout,
               "capture %s: status 2" % " ".join(args), r.stderr)

    # a burst larger than the default socket buffer: nothing lost
    n = 3000
    c = Capture(cap + ["-j", "--count", str(n), "--timeout", "20000", "ca"])
    send(tx, [test_frame(i) for i in range(n)])
    c.finish(timeout=30)
    try:
        seqs = sorted(g["seq"] for g in c.json())
    except (ValueError, KeyError, TypeError):
        seqs = []
    report(c.rc == 0 and seqs == list(range(n)),
           "burst of %d frames: every one printed, none dropped" % n,
           "rc=%s lines=%d %s" % (c.rc, len(seqs), c.stderr))

    r = subprocess.run([mrpctl, "--help"], stdout=subprocess.PIPE, text=True)
    report("mrpctl capture" in r.stdout, "mrpctl --help documents capture")
    tx.close()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
