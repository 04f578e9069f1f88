#!/usr/bin/env python3
"""Boot the debug guest again and again, with the host loaded, and count
the boots that answer.

CI and users run on busy machines: a boot that hangs costs a whole suite.
Each boot is the guest every test uses (a ring of 4 mrpsim switches, the
debug kernel); it passes when the agent answers and the guest log has no
RCU stall or other kernel splat.  --load N keeps N CPU-bound processes
running on the host the whole time (the machine has 2 cores; the default
2 makes the guest share them with two busy programs).

    tests/boots.py [--boots 20] [--load 2] [--timeout 300] [--keep DIR]
                   [--append "apic=verbose"]

Prints the boot time of each boot and ends with "N passed, N failed".  A
boot that does not answer leaves, beside its console, hang.txt: what QEMU
shows of each vCPU (registers twice, a second apart; HLT=1 is a halted
CPU) and of each local APIC (the timer's mode, counts and mask, IRR and
ISR).  vm.py boots a guest that hangs once more (BootHang); such a boot
passes when the second answers, and is listed, its first console and
dump kept (console-hung1.log, hang-hung1.txt).
"""

import argparse
import multiprocessing
import os
import shutil
import sys
import time

import vm as vmlib


DEFAULT_DIR = os.path.join(vmlib.BUILD, "boots")  # failed boots' logs


def burn():
    while True:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--boots", type=int, default=20)
    ap.add_argument("--load", type=int, default=2,
                    help="CPU-bound host processes (default 2)")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds a boot may take (vm.py's default)")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep every guest's console log in DIR (default: "
                    "only failed boots', in build/boots)")
    ap.add_argument("--append", default="",
                    help="more kernel command line (e.g. apic=verbose)")
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    burners = [multiprocessing.Process(target=burn, daemon=True)
               for _ in range(a.load)]
    for p in burners:
        p.start()
    passed = failed = hung = 0
    times = []
    try:
        for i in range(a.boots):
            workdir = os.path.join(a.keep or DEFAULT_DIR, "boot%02d" % i)
            shutil.rmtree(workdir, ignore_errors=True)
            t0 = time.monotonic()
            try:
                vm = vmlib.VM(vmlib.Topology.ring(4), workdir=workdir,
                              boot_timeout=a.timeout, append=a.append)
            except vmlib.GuestError as e:
                failed += 1
                with open(os.path.join(workdir, "console.log"),
                          errors="replace") as f:
                    tail = f.read().splitlines()[-25:]
                print("not ok %d boot %d: %s after %.0f s; console (%s, "
                      "CPU dump in hang.txt):\n%s"
                      % (i + 1, i, e, time.monotonic() - t0, workdir,
                         "\n".join("#   " + line for line in tail)))
                continue
            secs = time.monotonic() - t0
            if vm.boot_hangs:
                hung += 1
                print("# boot %d hung and was booted again (console-hung1.log,"
                      " hang-hung1.txt in %s): %s" % (
                          i, workdir, "; ".join(vm.boot_hangs)))
            try:
                vm.check("cat /proc/uptime")
                log = vm.shutdown()
            finally:
                vm.close()
            splats = vmlib.find_splats(log)
            if splats:
                failed += 1
                print("not ok %d boot %d: answered in %.1f s, but:\n%s" % (
                    i + 1, i, secs, "\n".join(splats[:10])))
            else:
                passed += 1
                times.append(secs)
                if not a.keep and not vm.boot_hangs:
                    shutil.rmtree(workdir, ignore_errors=True)
                print("ok %d boot %d: answered in %.1f s" % (i + 1, i, secs))
    finally:
        for p in burners:
            p.terminate()
    if times:
        times.sort()
        print("# boot time: median %.1f s, max %.1f s, host load %d" % (
            times[len(times) // 2], times[-1], a.load))
    print("# boots that hung and answered when booted again: %d" % hung)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
