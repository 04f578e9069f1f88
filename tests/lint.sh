#!/bin/bash
# Static checks, reported as tests: the driver builds W=1 and sparse clean
# and passes checkpatch --strict; the kernel patches pass checkpatch and
# apply to linux-source-6.1 and 6.12, the iproute2 patches pass checkpatch;
# the QEMU device passes QEMU's checkpatch.  Last line: N passed, N failed.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

pass=0 fail=0
result() {	# result NAME STATUS [LOG]
	if [ "$2" = 0 ]; then
		pass=$((pass + 1)); echo "ok - $1"
	else
		fail=$((fail + 1)); echo "not ok - $1"
		[ -n "${3:-}" ] && sed 's/^/#   /' "$3" | head -n 40
	fi
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
ksrc=$BUILD/${KSRC_PKG:-linux-source-6.1}
kcp=$ksrc/scripts/checkpatch.pl

bash "$TOP/scripts/kernel.sh" check >"$log" 2>&1
result "driver: W=1, sparse (C=2) and checkpatch --strict clean" $? "$log"

for p in $(grep -v '^#' "$TOP/patches/series" 2>/dev/null); do
	# From stdin: given a path inside a git work tree, checkpatch checks
	# the file itself rather than the patch it holds.  Commit ids cannot
	# be looked up in a tree unpacked from a tarball (no history): the
	# Fixes: tags were checked against mainline by hand.
	perl "$kcp" --strict --no-tree --ignore UNKNOWN_COMMIT_ID - \
		<"$TOP/patches/$p" >"$log" 2>&1
	result "patches/$p: checkpatch --strict clean" $? "$log"
done

# The iproute2 patches (scripts/iproute2.sh applies them to Debian's
# iproute2, with git apply) by the same checkpatch, as iproute2 takes it:
# its C files open with a /* SPDX */ comment, and the quoted output in a
# commit message is as long as it is.  They carry no Signed-off-by: whoever
# sends them upstream adds theirs.
for p in "$TOP"/patches/iproute2/*.patch; do
	[ -f "$p" ] || continue
	perl "$kcp" --strict --no-tree --ignore \
		SPDX_LICENSE_TAG,FILE_PATH_CHANGES,MISSING_SIGN_OFF,COMMIT_LOG_LONG_LINE \
		- <"$p" >"$log" 2>&1
	st=$?
	result "patches/iproute2/${p##*/}: checkpatch --strict clean" $st "$log"
done

# The series must also apply to the other supported tree (kernel.sh check
# above applied it to KSRC_PKG's).
for pkg in linux-source-6.1 linux-source-6.12; do
	[ "$pkg" = "${KSRC_PKG:-linux-source-6.1}" ] && continue
	need_pkgs "$pkg" >/dev/null
	tmp=$(mktemp -d "$BUILD/apply.XXXXXX")
	tar -C "$tmp" -xf "/usr/src/$pkg.tar.xz" "$pkg/net/bridge" "$pkg/include"
	st=0
	for p in $(grep -v '^#' "$TOP/patches/series" 2>/dev/null); do
		patch -d "$tmp/$pkg" -p1 -s -N --dry-run <"$TOP/patches/$p" >"$log" 2>&1 || st=1
		patch -d "$tmp/$pkg" -p1 -s -N <"$TOP/patches/$p" >/dev/null 2>&1
	done
	rm -rf "$tmp"
	result "patches apply to $pkg" $st "$log"
done

qsrc=$(ls -d "$BUILD"/qemu-src/qemu-*/ 2>/dev/null | head -n 1)
if [ -n "$qsrc" ] && [ -f "$qsrc/scripts/checkpatch.pl" ]; then
	files=$(cd "$TOP" && git ls-files 'qemu-dev/*.[ch]' 'tests/qtest/*.[ch]')
	(cd "$TOP" && perl "$qsrc/scripts/checkpatch.pl" --no-tree -f $files) >"$log" 2>&1
	result "qemu-dev: QEMU checkpatch clean" $? "$log"
	for p in "$TOP"/qemu-dev/*.patch; do
		perl "$qsrc/scripts/checkpatch.pl" --no-tree "$p" >"$log" 2>&1
		result "$(basename "$p"): QEMU checkpatch clean" $? "$log"
	done
else
	result "qemu-dev: QEMU source tree available for checkpatch" 1
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
