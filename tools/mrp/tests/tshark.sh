#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Decode the frames mrpd builds with tshark's pn_mrp dissector (an
# independent implementation) and compare every field with what we meant
# to send.  Usage: tshark.sh MKFRAMES_BINARY OUTDIR
set -u
mk=$1
out=$2
pass=0 fail=0 skip=0

if ! command -v tshark >/dev/null 2>&1; then
	echo "skip - tshark decode (tshark not installed)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
mkdir -p "$out"
"$mk" "$out/frames.pcap" || { echo "not ok - mkframes"; echo "0 passed, 1 failed"; exit 1; }

fields="eth.dst pn_mrp.version pn_mrp.type pn_mrp.sa pn_mrp.prio pn_mrp.interval
pn_mrp.port_role pn_mrp.blocked pn_mrp.sequence_id pn_mrp.domain_uuid
pn_mrp.oui pn_mrp.sub_type pn_mrp.sub_length pn_mrp.other_mrm_prio pn_mrp.other_mrm_sa
pn_mrp.ring_state pn_mrp.transition pn_mrp.time_stamp pn_mrp.length
_ws.expert _ws.expert.group _ws.malformed"
args=""
for f in $fields; do args="$args -e $f"; done
# shellcheck disable=SC2086
tshark -r "$out/frames.pcap" -T fields -E separator='|' -E aggregator=, \
	$args >"$out/decoded.txt" 2>"$out/tshark.err"

U=ffffffff-ffff-ffff-ffff-ffffffffffff
C=0x01,0x01,0x00,0x00	# MRP_Common, MRP_End (each type shows twice)
S=02:00:00:00:01:00
# frame name, then field=value pairs that must decode exactly; every frame
# must also decode without malformed-packet marks, and without expert info
# unless the row names the expert group it expects.
#
# Debian 12's tshark (4.0) knows the interconnection TLVs by type and
# length only: it shows their contents as undecoded data (expert group
# PI_UNDECODED, 0x05000000, and nothing else), and decodes the
# MRP_Common after an MRP_InTest or MRP_InTopologyChange.  It reads an
# MRP_InLinkChange's padding to 32 bits as MRP_End (newer versions take
# it as MRP_LinkInfo), so that frame's MRP_Common is not shown.  mrpd's
# own parser is tested on every field of them (test_frame).
IN=pn_mrp.sequence_id
UNDEC=_ws.expert.group=83886080
cat >"$out/expected.txt" <<EOT
topology-change eth.dst=01:15:4e:00:00:02 pn_mrp.version=1 pn_mrp.type=0x03,0x03,$C pn_mrp.sa=$S pn_mrp.prio=0x8000 pn_mrp.interval=30 pn_mrp.sequence_id=0x0101 pn_mrp.domain_uuid=$U
link-down eth.dst=01:15:4e:00:00:02 pn_mrp.version=1 pn_mrp.type=0x04,0x04,$C pn_mrp.sa=$S pn_mrp.port_role=0x0001 pn_mrp.interval=4 pn_mrp.blocked=0x0001 pn_mrp.sequence_id=0x0102 pn_mrp.domain_uuid=$U
link-up eth.dst=01:15:4e:00:00:02 pn_mrp.version=1 pn_mrp.type=0x05,0x05,$C pn_mrp.sa=$S pn_mrp.port_role=0x0001 pn_mrp.interval=3 pn_mrp.blocked=0x0001 pn_mrp.sequence_id=0x0103 pn_mrp.domain_uuid=$U
test-mgr-nack eth.dst=01:15:4e:00:00:01 pn_mrp.type=0x7f,0x7f,$C pn_mrp.oui=0x080006 pn_mrp.sub_type=0x01 pn_mrp.sub_length=18 pn_mrp.prio=0xa000 pn_mrp.sa=$S pn_mrp.other_mrm_prio=0xb000 pn_mrp.other_mrm_sa=02:00:00:00:02:00 pn_mrp.sequence_id=0x0104 pn_mrp.domain_uuid=$U
test-propagate eth.dst=01:15:4e:00:00:01 pn_mrp.type=0x7f,0x7f,$C pn_mrp.oui=0x080006 pn_mrp.sub_type=0x02 pn_mrp.sub_length=18 pn_mrp.prio=0xa000 pn_mrp.sa=$S pn_mrp.other_mrm_prio=0x9000 pn_mrp.other_mrm_sa=02:00:00:00:02:00 pn_mrp.sequence_id=0x0105
test eth.dst=01:15:4e:00:00:01 pn_mrp.type=0x02,0x02,$C pn_mrp.prio=0xa000 pn_mrp.sa=$S pn_mrp.port_role=0x0001 pn_mrp.ring_state=0x0001 pn_mrp.transition=0x0007 pn_mrp.time_stamp=0x00001000 pn_mrp.sequence_id=0x0106
in-test eth.dst=01:15:4e:00:00:03 pn_mrp.version=1 pn_mrp.type=0x06,0x06,$C pn_mrp.length=18,18,0 $IN=0x0107 pn_mrp.domain_uuid=$U $UNDEC
in-topology-change eth.dst=01:15:4e:00:00:04 pn_mrp.version=1 pn_mrp.type=0x07,0x07,$C pn_mrp.length=10,18,0 $IN=0x0108 pn_mrp.domain_uuid=$U $UNDEC
in-link-down eth.dst=01:15:4e:00:00:04 pn_mrp.version=1 pn_mrp.type=0x08,0x08,0x00,0x00 pn_mrp.length=12,0 $UNDEC
in-link-up eth.dst=01:15:4e:00:00:04 pn_mrp.version=1 pn_mrp.type=0x09,0x09,0x00,0x00 pn_mrp.length=12,0 $UNDEC
EOT

i=0
while read -r name checks; do
	i=$((i + 1))
	row=$(sed -n "${i}p" "$out/decoded.txt")
	case $checks in
	*_ws.expert.group=*) checks="$checks _ws.malformed=" ;;
	*) checks="$checks _ws.expert= _ws.malformed=" ;;
	esac
	bad=$(printf '%s\n' "$row" | awk -F'|' -v fields="$fields" \
		-v checks="$checks" '
		BEGIN { nf = split(fields, name, /[ \n]+/) }
		{
			for (k = 1; k <= nf; k++) val[name[k]] = $k
			nc = split(checks, c, " ")
			for (k = 1; k <= nc; k++) {
				eq = index(c[k], "=")
				f = substr(c[k], 1, eq - 1)
				w = substr(c[k], eq + 1)
				if (val[f] != w)
					printf "%s=%s (want %s) ", f, val[f], w
			}
		}')
	if [ -n "$row" ] && [ -z "$bad" ]; then
		echo "ok - tshark decodes $name"
		pass=$((pass + 1))
	else
		echo "not ok - tshark decodes $name: ${bad:-no frame}"
		fail=$((fail + 1))
	fi
done <"$out/expected.txt"
n=$(wc -l <"$out/decoded.txt")
if [ "$n" -eq "$i" ]; then
	echo "ok - tshark sees exactly $i frames"
	pass=$((pass + 1))
else
	echo "not ok - tshark sees $n frames, expected $i"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
