#!/bin/bash
# Assemble the guest initramfs: busybox-static, dash, the host's ethtool,
# ip, bridge and devlink built from Debian's iproute2 with patches/iproute2,
# all with their shared libraries, the mrpsim module, the MRP tools and the
# guest-side test scripts.
#
#   scripts/initramfs.sh [OUTPUT.cpio]
#
# The image carries the module of one kernel tree, so it lives in that
# tree's object directory by default (KOBJ/initramfs.cpio, where tests/vm.py
# looks for it): each kernel (6.1 or 6.12, debug or not) has its own.
#
# The archive is not compressed: decompressing it in a TCG guest costs more
# boot time than reading the larger file.
#
# Environment: KSRC_PKG, DEBUG (select the kernel object tree, as kernel.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_pkgs busybox-static dash iproute2 ethtool cpio
kobj=$(bash "$TOP/scripts/kernel.sh" path)
out=${1:-$kobj/initramfs.cpio}
ko=$kobj/drivers/net/mrpsim/mrpsim.ko
[ -f "$ko" ] || die "$ko not built (run: make kernel)"

root=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,lib/modules,proc,sys,dev,tmp,run,var,etc,root,mrpsim}
# mktemp made it 0700; as / it must let every user in (su nobody)
chmod 0755 "$root"
chmod 1777 "$root/tmp"
ln -s ../run "$root/var/run"


# Host programs and everything they load.
copy_prog() {
	local p=$1 dst=$2 lib
	install -D -m 0755 "$p" "$root$dst"
	for lib in $(ldd "$p" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] || install -D -m 0755 "$lib" "$root$lib"
	done
}
# /bin/sh is dash: busybox's shell runs its own applets (its ip, say) in
# preference to the programs on PATH.  Busybox provides the rest.
copy_prog /bin/dash /bin/sh
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
# ip, bridge (with bridge mrp, patches/iproute2) and devlink: Debian's
# iproute2 built by scripts/iproute2.sh with libmnl and libc only, in
# place of the host's, which start twice as slowly in the guest
ibin=$(bash "$TOP/scripts/iproute2.sh" bindir)
for t in ip bridge devlink; do
	[ -x "$ibin/$t" ] || die "$ibin/$t not built (run: make iproute2)"
	copy_prog "$ibin/$t" "/usr/sbin/$t"
done
copy_prog "$(command -v ethtool)" /usr/sbin/ethtool
for p in "$TOP"/tools/mrp/mrpd "$TOP"/tools/mrp/mrpctl; do
	[ -x "$p" ] && copy_prog "$p" "/usr/sbin/$(basename "$p")"
done

install -m 0644 "$ko" "$root/lib/modules/mrpsim.ko"
splat=$kobj/drivers/misc/mrpsim-splat-test/splat_test.ko
if [ "${DEBUG:-1}" = 1 ]; then
	[ -f "$splat" ] || die "$splat not built (run: make kernel)"
	install -m 0644 "$splat" "$root/lib/modules/splat_test.ko"
fi
install -m 0755 "$TOP/tests/guest/init" "$root/init"
cp -r "$TOP/tests/guest/." "$root/mrpsim/"
[ -d "$TOP/tools/mrp/tests/guest" ] && cp -r "$TOP/tools/mrp/tests/guest" "$root/mrpsim/mrp"
# nobody: the unprivileged caller of mrpd's access tests (su nobody)
printf '%s\n' "root:x:0:0:root:/root:/bin/sh" \
	"nobody:x:65534:65534:nobody:/nonexistent:/bin/sh" >"$root/etc/passwd"
printf '%s\n' "root:x:0:" "nogroup:x:65534:" >"$root/etc/group"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio -o -0 -H newc -R 0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
say "initramfs: $out ($(du -h "$out" | cut -f1))"
