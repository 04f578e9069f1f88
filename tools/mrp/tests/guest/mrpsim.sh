#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest MRP tests on a ring of mrpsim switches.  The harness passes the
# switch ports that form the ring, in ring order, as "primary:secondary"
# pairs, one pair per switch: the secondary of switch k must be cabled to
# the primary of switch k+1, and the last secondary to the first primary.
#   mrpsim.sh "eth0:eth1 eth2:eth3 eth4:eth5 eth6:eth7"
# (or RING_PORTS in the environment).  Each pair goes into its own network
# namespace with its own bridge and mrpd; mrpd never needs to know whether
# the mrpsim driver offloads MRP or the bridge runs it in software.
here=$(cd "$(dirname "$0")" && pwd)
RING_PORTS=${1:-${RING_PORTS:-}}
if [ -z "$RING_PORTS" ]; then
	echo "not ok - mrpsim ring: no ports given (RING_PORTS)"
	echo "0 passed, 1 failed"
	exit 1
fi
export RING_PORTS
exec sh "$here/run_all.sh"
