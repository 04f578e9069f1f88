"""What the smoke tests of mrpd and mrpctl share: TAP-like result lines,
a shell helper, and running the test in a network namespace of its own
(unshare -n), as root."""

import os
import subprocess
import sys

results = []


def report(ok, name, detail=""):
    results.append(bool(ok))
    print(("ok - " if ok else "not ok - ") + name)
    if not ok and detail:
        for line in str(detail).splitlines()[:40]:
            print("  " + line)
    sys.stdout.flush()


def skip(name, why):
    print("skip - %s (%s)" % (name, why))


def summary():
    """Print the summary line; the exit status."""
    print("%d passed, %d failed" % (results.count(True),
                                    results.count(False)))
    return 0 if all(results) else 1


def sh(*cmd, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=30)
    if check and r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr))
    return r


def in_own_netns(name, script, argv):
    """Run script (argv) again in a new network namespace.  Returns None
    inside it (go on with the test), else the exit status to return."""
    marker = "MRP_SMOKE_NETNS"
    if os.environ.get(marker) == os.path.basename(script):
        return None
    if os.geteuid() != 0:
        skip(name, "needs root")
        return 0
    try:
        r = subprocess.run(["unshare", "-n", "true"])
    except FileNotFoundError:
        r = None
    if r is None or r.returncode:
        skip(name, "unshare -n unavailable")
        return 0
    env = dict(os.environ, **{marker: os.path.basename(script)})
    return subprocess.run(["unshare", "-n", sys.executable,
                           os.path.abspath(script)] + list(argv),
                          env=env).returncode
