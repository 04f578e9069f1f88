"""make soak: a ring of 14 mrpsim switches on the hardware path, mrpd on
every node testing every 500 us (max-miss 3), traffic crossing the ring,
for 10 minutes (MRPSIM_SOAK_S): not one ring-open, no lost ping.  Then
1000 random link flaps (tests/mrpscale.py random_flaps): the ring closes
again, secondary blocked, no storm, at most one ring-open per flap; and
100 flaps one at a time, each opening the ring exactly when it broke it
(isolated_flaps).  Not part of make check (about 30 minutes); the figures
are printed as '#' lines.
"""

import os
import re
import time

import mrpring as R
import mrpscale as S

N = 14
INTERVAL = 500      # us
SOAK_S = int(os.environ.get("MRPSIM_SOAK_S", "600"))
FLAPS = int(os.environ.get("MRPSIM_FLAPS", "1000"))
# (MRPSIM_ISOLATED_FLAPS: the one-at-a-time flaps, 100)
# ping pairs (from node, to node) whose path crosses half the ring
PINGS = ((1, 8), (4, 11))


# What the switches did, for a ring-open without a cut: everything that
# can break the ring's path or the manager's count, not the ticks (two a
# millisecond).
TRACE = ("mrpsim_link", "mrpsim_mrp_loss", "mrpsim_mrp_regain",
         "mrpsim_port_ctrl", "mrpsim_mrp_role", "mrpsim_mrp_test_start",
         "mrpsim_mrp_test_stop", "mrpsim_mrp_test_skip", "mrpsim_drop",
         "mrpsim_mrp_bad_value", "mrpsim_error")


def topology():
    # one cable captured, for the broadcast storm check after the flaps
    t = R.topology(mrp=True, dumps=("s2p0",), n=N)
    t.trace(*TRACE)
    return t


def trace_around_losses(vm, since, before=30, after=5, most=3):
    """The trace lines around the manager's first loss events since byte
    since of the QEMU trace (what happened just before the ring opened)."""
    with open(S.trace_path(vm), errors="replace") as f:
        f.seek(since)
        lines = f.read().splitlines()
    out, shown = [], 0
    for i, line in enumerate(lines):
        if "mrpsim_mrp_loss sw0 " not in line or shown == most:
            continue
        shown += 1
        out += ["-- loss %d" % shown] + lines[max(0, i - before):i + after]
    return "\n".join(out)


def setup(vm):
    vm.check(". /mrpsim/lib.sh && load_driver", timeout=600)
    R.build_nodes(vm)
    R.start_mrpd(vm)
    R.mrpd_rings(vm, interval=INTERVAL, profile=10)
    R.wait_ring(vm, 0, "ring", "closed")
    R.settle(vm, 3000)


def test_soak_no_ring_open(vm):
    before = R.mrpd_state(vm)
    assert before[0]["test_interval"] == INTERVAL, before[0]
    sent = R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx")
    mark = os.path.getsize(S.trace_path(vm))
    # A count, not a deadline (-w): at its deadline busybox ping exits at
    # once, and a reply still on its way counts as lost; after its last
    # request it waits two round trips.  A TCG guest sends them about a
    # tenth slower than asked (10693 in 600 s).
    vm.check("\n".join(R.in_ns(a, "ping -q -i 0.05 -c %d 10.0.0.%d "
                                  ">/tmp/soak-ping%d.log 2>&1 &" % (
                                      SOAK_S * 20, b + 1, a))
                       for a, b in PINGS))
    t0 = time.monotonic()
    time.sleep(SOAK_S)      # the span of a quiet ring is what is measured
    vm.check("wait_pings() { while pidof ping >/dev/null; do usleep 200000;"
             " done; }; wait_pings", timeout=120 + SOAK_S // 2)
    secs = time.monotonic() - t0
    after = R.mrpd_state(vm)
    sent = R.ethtool_stat(vm, 0, "s0p0", "hw_mrp_test_tx") - sent
    opens = after[0]["openings"] - before[0]["openings"]
    reports = {i: after[i]["counters"]["ring_open"] -
               before[i]["counters"]["ring_open"] for i in range(N)}
    pings = vm.check("cat %s" % " ".join("/tmp/soak-ping%d.log" % a
                                         for a, _ in PINGS))
    losses = [(int(t), int(r)) for t, r in re.findall(
        r"(\d+) packets transmitted, (\d+) (?:packets )?received", pings)]
    print("# soak %.0f s, %d switches, test every %d us: %d test frames "
          "sent by the manager's port 0, %d ring-opens, ring-open reports "
          "%s, pings (sent, received) %s" % (
              secs, N, INTERVAL, sent, opens,
              sum(reports.values()), losses))
    assert opens == 0, "%d ring-opens without a cut; QEMU's trace:\n%s" % (
        opens, trace_around_losses(vm, mark))
    assert not any(reports.values()), reports
    assert len(losses) == len(PINGS), pings
    assert all(t > 0 and t == r for t, r in losses), pings


def test_soak_flaps(vm):
    S.random_flaps(vm, FLAPS, profile=10)


def test_soak_isolated_flaps(vm):
    """100 flaps one at a time (MRPSIM_ISOLATED_FLAPS): each opens the
    ring at most once, and once exactly when it broke the ring and the
    ring was still open when the manager's mrpd read of it."""
    S.isolated_flaps(vm, int(os.environ.get("MRPSIM_ISOLATED_FLAPS", "100")))
