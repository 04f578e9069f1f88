"""MRP at the largest ring IEC 62439-2 allows: 50 mrpsim switches on the
hardware path in one guest, mrpd on every node, profile 30 (MRP_Test every
3.5 ms, max-miss 3), which the standard rates for rings of up to 50 nodes.

Not part of make check (booting and commissioning 50 switches takes
minutes under TCG): make check-scale runs it.

Every cable is captured in both directions (tests/mrpcables.py): a closed
ring stays closed and quiet, no MRP frame reaches a CPU, and every test
frame crosses all 50 cables once; cuts spread round the ring each open it
once and their restores close it once, every MRP frame crossing each cable
once per direction (no storm); each detection stays within
(max_miss + 1) intervals of the device's virtual clock.  Last, the
driver is removed with every ring live.
"""

import mrpscale as S

N = 50
PROFILE = 30
INTERVAL = 3500     # us: profile 30
MAX_MISS = 3
# next to the manager's secondary, a quarter, opposite, three quarters,
# the manager's primary
CUTS = (0, 12, 25, 37, 49)
STEADY_S = 30


def topology():
    return S.hw_ring_topology(N)


def setup(vm):
    S.hw_ring_setup(vm, PROFILE)


def test_ring_closed_offloaded(vm):
    S.hw_ring_offloaded(vm, INTERVAL)


def test_steady_state(vm):
    S.steady_state(vm, STEADY_S)


def test_cuts_open_and_close_once(vm):
    S.cuts_open_close(vm, CUTS)


def test_detection_within_bound(vm):
    S.detections_within_bound(vm, vm.trace_mark, INTERVAL, MAX_MISS,
                              len(CUTS))


def test_cuts_cross_each_cable_once(vm):
    S.cuts_crossed_once(vm, len(CUTS))


def test_rmmod_with_rings_live(vm):
    """Last: the driver goes with 50 rings configured and mrpd running."""
    S.rmmod_with_rings_live(vm)
