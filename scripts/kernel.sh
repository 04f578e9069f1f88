#!/bin/bash
# Build the guest kernel and the mrpsim module from the Debian linux-source
# package, with patches/ applied and drivers/net/mrpsim linked in.
#
#   scripts/kernel.sh [all|prepare|config|module|check]
#
# Environment: KSRC_PKG (linux-source-6.1), DEBUG (1: debug options on).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KSRC_PKG=${KSRC_PKG:-linux-source-6.1}
DEBUG=${DEBUG:-1}
SRC=$BUILD/$KSRC_PKG
OBJ=$BUILD/kobj-$KSRC_PKG$(if [ "$DEBUG" = 1 ]; then echo -debug; fi)
TARBALL=/usr/src/$KSRC_PKG.tar.xz
FRAGS=("$TOP/kernel/mrpsim.config")
if [ "$DEBUG" = 1 ]; then
	FRAGS+=("$TOP/kernel/debug.config")
else
	FRAGS+=("$TOP/kernel/nodebug.config")
fi
KMAKE=(make -C "$SRC" O="$OBJ" -j"$JOBS")

series() {
	[ -f "$TOP/patches/series" ] || return 0
	grep -v '^[[:space:]]*\(#\|$\)' "$TOP/patches/series"
}

prepare() {
	need_pkgs $PKGS_KERNEL "$KSRC_PKG"
	[ -f "$TARBALL" ] || die "$TARBALL missing after installing $KSRC_PKG"
	local want p
	want=$(cd "$TOP/patches" 2>/dev/null && sum_files $(series) "$TARBALL" series)
	if [ "$(cat "$SRC/.mrpsim-stamp" 2>/dev/null)" != "$want" ]; then
		say "unpacking $TARBALL"
		rm -rf "$SRC" "$OBJ"
		mkdir -p "$BUILD"
		tar -C "$BUILD" -xf "$TARBALL"
		[ -d "$SRC" ] || die "$TARBALL did not unpack to $SRC"
		for p in $(series); do
			say "applying patches/$p"
			patch -d "$SRC" -p1 -s -N --no-backup-if-mismatch \
				<"$TOP/patches/$p" || die "patches/$p does not apply to $KSRC_PKG"
		done
		# The driver lives once, in the repository: link it in.
		ln -sfn "$TOP/drivers/net/mrpsim" "$SRC/drivers/net/mrpsim"
		ln -sfn "$TOP/Kconfig.snippet" "$SRC/drivers/net/Kconfig.mrpsim"
		sed -i 's|^endif # NETDEVICES|source "drivers/net/Kconfig.mrpsim"\n\n&|' \
			"$SRC/drivers/net/Kconfig"
		grep -q Kconfig.mrpsim "$SRC/drivers/net/Kconfig" ||
			die "could not hook Kconfig.snippet into drivers/net/Kconfig"
		echo 'obj-$(CONFIG_MRPSIM) += mrpsim/' >>"$SRC/drivers/net/Makefile"
		echo "$want" >"$SRC/.mrpsim-stamp"
	fi
	# The harness self-test's module (tests/cases/test_nets.py).
	ln -sfn "$TOP/tests/kmod" "$SRC/drivers/misc/mrpsim-splat-test"
	grep -q mrpsim-splat-test "$SRC/drivers/misc/Makefile" ||
		echo 'obj-m += mrpsim-splat-test/' >>"$SRC/drivers/misc/Makefile"
}

config() {
	local want
	want=$(sum_files "${FRAGS[@]}" "$SRC/.mrpsim-stamp")
	[ "$(cat "$OBJ/.mrpsim-config-stamp" 2>/dev/null)" = "$want" ] && return 0
	say "configuring $KSRC_PKG (DEBUG=$DEBUG) in $OBJ"
	mkdir -p "$OBJ"
	"${KMAKE[@]}" tinyconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" \
		"${FRAGS[@]}" >"$OBJ/merge.log" 2>&1
	"${KMAKE[@]}" olddefconfig >/dev/null
	# merge_config and olddefconfig drop options whose dependencies are
	# not met: insist on every option the fragments ask for.  An option
	# asked to be off only must not be on: a tree that does not know it
	# (CONFIG_SLUB_TINY on 6.1) leaves it off as well.
	local line bad=0
	while read -r line; do
		case "$line" in
		CONFIG_*=n) grep -q "^${line%=n}=" "$OBJ/.config" && { echo "missing: $line (have: $(grep "^${line%=n}=" "$OBJ/.config"))" >&2; bad=1; } ;;
		CONFIG_*) grep -qx "$line" "$OBJ/.config" || { echo "missing: $line (have: $(grep "^${line%%=*}=" "$OBJ/.config" || echo unset))" >&2; bad=1; } ;;
		esac
	done < <(cat "${FRAGS[@]}")
	[ "$bad" = 0 ] || die "kernel config lacks options the fragments require"
	echo "$want" >"$OBJ/.mrpsim-config-stamp"
}

build_all() {
	say "building $KSRC_PKG kernel and modules (DEBUG=$DEBUG, -j$JOBS; a few minutes on a clean tree)"
	run_logged "$OBJ/build.log" "${KMAKE[@]}" bzImage modules
}

# The driver, and the module that provokes splats for the harness's
# self-test (debug kernels only: it needs their detectors).  Both are
# targets of the tree they are linked into (6.12 resolves M= against the
# object tree).
KMODS=(drivers/net/mrpsim/mrpsim.ko)
[ "$DEBUG" = 1 ] && KMODS+=(drivers/misc/mrpsim-splat-test/splat_test.ko)

build_module() {
	run_logged "$OBJ/module.log" "${KMAKE[@]}" "${KMODS[@]}"
}

# Static checks of the driver: W=1 and sparse on every file, checkpatch.
check_driver() {
	need_pkgs sparse
	local m
	for m in "${KMODS[@]}"; do
		say "W=1 C=2 build of ${m%/*}"
		"${KMAKE[@]}" W=1 C=2 "$m" 2>&1 |
			tee "$OBJ/check-${m##*/}.log" | grep -E 'warning|error' && die "${m%/*} has warnings (see $OBJ/check-${m##*/}.log)"
	done
	say "checkpatch --strict"
	# checkpatch exits non-zero when it finds something: with pipefail a
	# pipeline into grep would hide exactly those findings.
	local found
	found=$(cd "$TOP" && "$SRC/scripts/checkpatch.pl" --no-tree --strict \
		--terse -f drivers/net/mrpsim/*.[ch] tests/kmod/*.c 2>&1) || true
	if grep -E 'ERROR|WARNING|CHECK' <<<"$found"; then
		die "checkpatch findings"
	fi
	say "driver and test module are W=1, sparse and checkpatch clean"
}

# The kernel itself only changes with the config or the patch series (both
# re-stamp the tree); the driver changes often and rebuilds on its own.
kernel_current() {
	[ -f "$OBJ/arch/x86/boot/bzImage" ] &&
		[ "$OBJ/arch/x86/boot/bzImage" -nt "$OBJ/.mrpsim-config-stamp" ]
}

case "${1:-all}" in
all) prepare; config; kernel_current || build_all; build_module ;;
prepare) prepare ;;
config) prepare; config ;;
module) prepare; config; kernel_current || build_all; build_module ;;
check) prepare; config; kernel_current || build_all; check_driver ;;
path) echo "$OBJ" ;;
*) die "usage: $0 [all|prepare|config|module|check|path]" ;;
esac
