#!/usr/bin/env python3
"""Run mrpsim's tests and print one summary line: N passed, N failed.

Suites:
  lint    static checks: driver W=1/sparse/checkpatch, QEMU checkpatch,
          kernel patch series checkpatch and application to 6.1/6.12
  qtest   device tests under QEMU's qtest accelerator (scripts/qemu.sh)
  tools   host unit tests of tools/mrp (make -C tools/mrp check)
  fuzz    tests/fuzz.py: the device fuzzer, seed 1 for 60 s (make fuzz
          runs it longer, on an ASan/UBSan QEMU)
  guest   tests/cases/test_*.py: boot guests with mrpsim switches, every
          test but those a module names in LONG
  long    the tests of tests/cases that their modules name in LONG: the
          same checks again on other paths (veth, software), hostile
          frames, many flaps, long races (make check-long, not default:
          about 25 minutes)
  scale   tests/scale/test_*.py: the same at 50 switches (make check-scale,
          not in the default suites: it takes tens of minutes)
  soak    tests/soak/test_*.py: 10 minutes of a 14-switch ring at 500 us
          with traffic, then 1000 link flaps (make soak, not default)

Every guest test module defines topology() (a tests.vm.Topology), and
test_* functions taking the VM; optional setup(vm) runs after boot;
optional LONG names the tests (without test_) that only the long suite
runs.  A test function that yields (name, ok, detail) reports each as a
test (used for guest-side scripts that print TAP-like "ok - name"
lines).  Each module boots one guest; when the guest powers off its log
is scanned for kernel splats (lockdep, KASAN, kmemleak, UBSAN, WARN...),
which is a test of its own.
"""

import argparse
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm as vmlib  # noqa: E402

TOP = vmlib.TOP
SUMMARY_RE = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$")
NOT_OK_RE = re.compile(r"^not ok(?: \d+)? - ")


class Results:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.n = 0

    def report(self, name, ok, secs=None, detail=None, skipped=False):
        self.n += 1
        t = "" if secs is None else " (%.1f s)" % secs
        if skipped:
            self.skipped += 1
            print("ok %d - %s # SKIP %s" % (self.n, name, detail or ""))
        elif ok:
            self.passed += 1
            print("ok %d - %s%s" % (self.n, name, t))
        else:
            self.failed += 1
            self.failures.append(name)
            print("not ok %d - %s%s" % (self.n, name, t))
            if detail:
                for line in detail.rstrip().splitlines():
                    print("#   " + line)
        sys.stdout.flush()

    def add_counts(self, name, p, f, s, names=()):
        self.passed += p
        self.failed += f
        self.skipped += s
        if f:
            self.failures.append("%s (%d failed%s)" % (
                name, f, ": " + ", ".join(names[:3]) if names else ""))


def run_external(res, name, argv, timeout):
    """Run a suite that prints its own 'N passed, N failed' line."""
    print("# suite %s: %s" % (name, " ".join(argv)))
    sys.stdout.flush()
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=TOP, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace"), -1
        out += "\ntimed out after %d s" % timeout
    for line in out.splitlines():
        print("#   " + line)
    counts = None
    for line in reversed(out.splitlines()):
        m = SUMMARY_RE.match(line.strip())
        if m:
            counts = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
            break
    secs = time.monotonic() - t0
    if counts is None:
        res.report("%s: suite ran and reported its results" % name, False,
                   secs, "exit %d, no summary line" % rc)
        return
    if rc != 0 and counts[1] == 0:
        res.report("%s: suite exit status" % name, False, secs, "exit %d" % rc)
    # a suite's own "not ok" lines, numbered or not, name its failures
    names = [NOT_OK_RE.sub("", line.strip()) for line in out.splitlines()
             if NOT_OK_RE.match(line.strip())]
    res.add_counts(name, *counts, names=names)
    print("# suite %s: %d passed, %d failed, %d skipped (%.0f s)" %
          ((name,) + counts + (secs,)))


def load_module(path):
    name = "case_" + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_guest_module(res, path, pattern, keep, long=None):
    """long: None runs every test, False those not in the module's LONG,
    True only those."""
    mod = load_module(path)
    base = os.path.basename(path)[5:-3]
    tests = [(n, f) for n, f in vars(mod).items()
             if n.startswith("test_") and callable(f)]
    marked = set(getattr(mod, "LONG", ()))
    unknown = marked - {n[5:] for n, _ in tests}
    if unknown:
        res.report("%s: LONG names its tests" % base, False, None,
                   "no such test: %s" % ", ".join(sorted(unknown)))
    if long is not None:
        tests = [(n, f) for n, f in tests if (n[5:] in marked) == long]
    tests = [(n, f) for n, f in tests
             if not pattern or pattern in "%s.%s" % (base, n[5:])]
    if not tests:
        return
    print("# guest %s: booting" % base)
    sys.stdout.flush()
    workdir = os.path.join(keep, base) if keep else None
    t0 = time.monotonic()
    try:
        vm = vmlib.VM(mod.topology(), workdir=workdir,
                      **getattr(mod, "VM_OPTIONS", {}))
    except Exception as e:
        res.report("%s: guest boots" % base, False, time.monotonic() - t0,
                   "%s: %s" % (type(e).__name__, e))
        return
    print("# guest %s: booted in %.1f s" % (base, time.monotonic() - t0))
    for why in vm.boot_hangs:
        # a QEMU TCG fault, not the guest's (vm.BootHang)
        print("# guest %s: a boot hung and was booted again: %s" % (
            base, why))
    leaks = ""
    # test_nets provokes splats on purpose and checks them itself.
    expects_splats = getattr(mod, "EXPECTS_SPLATS", False)
    try:
        ok = True
        if hasattr(mod, "setup"):
            t0 = time.monotonic()
            try:
                mod.setup(vm)
            except Exception:
                ok = False
                res.report("%s: setup" % base, False, time.monotonic() - t0,
                           traceback.format_exc())
        for n, f in tests:
            name = "%s.%s" % (base, n[5:])
            if not ok:
                res.report(name, False, None, "setup failed")
                continue
            t0 = time.monotonic()
            try:
                r = f(vm)
                if inspect.isgenerator(r):
                    # a test that reports several results: (name, ok, detail)
                    for sub, sub_ok, detail in r:
                        sub, _, why = sub.partition(" # SKIP ")
                        res.report("%s: %s" % (name, sub), sub_ok, None,
                                   why or detail, skipped=bool(why))
                    # its results have no times of their own
                    print("# %s took %.1f s" % (name,
                                                time.monotonic() - t0))
                else:
                    res.report(name, True, time.monotonic() - t0)
            except vmlib.Skip as e:
                res.report(name, True, None, str(e), skipped=True)
            except Exception as e:
                # A bare assert has no message: show where it failed.
                detail = str(e) if isinstance(
                    e, AssertionError) and str(e) else traceback.format_exc()
                res.report(name, False, time.monotonic() - t0, detail)
                if isinstance(e, vmlib.GuestError):
                    ok = False
        if ok and not expects_splats:
            # Leaks are what the driver left behind after its tests.
            t0 = time.monotonic()
            try:
                scanned, leaks = vmlib.kmemleak_scan(vm)
            except vmlib.GuestError as e:
                scanned, leaks = False, str(e)
            res.report("%s: kmemleak scanned" % base, scanned,
                       time.monotonic() - t0, leaks)
    finally:
        log = vm.shutdown() + leaks
        vm.close()
    if not expects_splats:
        splats = vmlib.find_splats(log)
        res.report("%s: guest log has no kernel splat" % base, not splats,
                   None, "\n".join(splats[:40]))
    if keep:
        if leaks:
            with open(os.path.join(workdir, "kmemleak.txt"), "w") as f:
                f.write(leaks)
        print("# guest %s: logs in %s" % (base, workdir))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("suites", nargs="*",
                    default=["lint", "qtest", "tools", "fuzz", "guest"])
    ap.add_argument("-k", metavar="PATTERN",
                    help="guest tests whose module.name contains PATTERN")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep guest consoles and captures in DIR")
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)   # live progress in CI logs
    res = Results()
    t0 = time.monotonic()
    if a.keep:
        a.keep = os.path.abspath(a.keep)
    for suite in a.suites:
        if suite == "lint":
            run_external(res, "lint", ["bash", "tests/lint.sh"], 1800)
        elif suite == "qtest":
            run_external(res, "qtest", ["bash", "scripts/qemu.sh", "qtest"],
                         1800)
        elif suite == "tools":
            run_external(res, "tools", ["make", "-s", "-C", "tools/mrp",
                                        "check"], 900)
        elif suite == "fuzz":
            run_external(res, "fuzz", ["python3", "tests/fuzz.py",
                                       "--seed", "1", "--seconds", "60"], 900)
        elif suite in ("guest", "long", "scale", "soak"):
            _, kernel, initrd = vmlib.default_paths()
            print("# guest kernel %s: %s, %s" % (
                vmlib.kernel_release(kernel), kernel, initrd))
            cases = os.path.join(TOP, "tests", "cases" if suite in (
                "guest", "long") else suite)
            long = {"guest": False, "long": True}.get(suite)
            if a.k:
                long = None     # -k names the tests to run
            for f in sorted(os.listdir(cases)):
                if f.startswith("test_") and f.endswith(".py"):
                    run_guest_module(res, os.path.join(cases, f), a.k, a.keep,
                                     long)
        else:
            ap.error("unknown suite %s" % suite)
    print("# total time %.0f s" % (time.monotonic() - t0))
    if res.failures:
        print("# failed: " + "; ".join(res.failures))
    print("%d passed, %d failed%s" % (
        res.passed, res.failed,
        ", %d skipped" % res.skipped if res.skipped else ""))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
