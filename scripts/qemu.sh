#!/bin/bash
# Build Debian's QEMU 7.2 with the mrpsim switch linked in from qemu-dev/.
#
#   scripts/qemu.sh [all|build|qtest|path]
#
#   build  fetch (apt-get source qemu), patch, configure and build
#          qemu-system-x86_64 and the mrpsim qtest binary (default, = all)
#   qtest  build, then run the mrpsim device tests under the qtest
#          accelerator; ends with "N passed, N failed"
#   path   print the path of qemu-system-x86_64
#   asan   build qemu-system-x86_64 with ASan and UBSan in build/qemu-asan
#          (for make fuzz); asan-path prints its path
#   prepare  only fetch, unpack, patch and link the source tree
#
# The device sources are never copied: hw/net/mrpsim, the shared register
# header, the devices file and the qtest are symbolic links into the
# repository, so editing one of them rebuilds just that file.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

QROOT=$BUILD/qemu-src
QBUILD=$BUILD/qemu-build
QEMU_BIN=$QBUILD/qemu-system-x86_64
QTEST_BIN=$QBUILD/tests/qtest/mrpsim-test
QASAN=$BUILD/qemu-asan
DEVICES=mrpsim		# qemu-dev/mrpsim.mak
QTEST_TIMEOUT=${QTEST_TIMEOUT:-600}	# seconds for the whole qtest run
FIRMWARE=/usr/share/seabios:/usr/share/qemu
CONFIGURE_ARGS=(
	--target-list=x86_64-softmmu
	--without-default-features
	--without-default-devices
	--with-devices-x86_64="$DEVICES"
	--disable-docs
	--firmwarepath="$FIRMWARE"
)

# The unpacked Debian source tree (any 7.2 version), or nothing.
qemu_srcdir() {
	local d
	for d in "$QROOT"/qemu-7.2*/; do
		[ -f "$d/configure" ] && { echo "${d%/}"; return 0; }
	done
	return 0
}

qemu_dsc() { deb_dsc "$QROOT" 'qemu_7.2*.dsc'; }

fetch() {
	# shellcheck disable=SC2086 # a list of package names
	need_pkgs $PKGS_QEMU
	deb_source qemu "$QROOT" 'qemu_7.2*.dsc' "QEMU 7.2"
}

# Unpack (again) when the tree is missing or the patches changed, then
# apply qemu-dev/*.patch once; the stamp holds their checksum.
prepare() {
	local dsc src want p
	fetch
	dsc=$(qemu_dsc)
	src=$(qemu_srcdir)
	want=$(cd "$TOP/qemu-dev" && sum_files ./*.patch "$dsc")
	if [ -z "$src" ] || [ "$(cat "$src/.mrpsim-stamp" 2>/dev/null)" != "$want" ]; then
		if [ -n "$src" ]; then
			say "qemu-dev patches or the source package changed: unpacking a clean tree"
			rm -rf "$src" "$QBUILD"
		fi
		say "unpacking $(basename "$dsc")"
		(cd "$QROOT" && dpkg-source -x "$dsc") >"$BUILD/qemu-unpack.log" 2>&1 ||
			{ tail -n 30 "$BUILD/qemu-unpack.log" >&2; die "dpkg-source -x failed"; }
		src=$(qemu_srcdir)
		[ -n "$src" ] || die "no qemu-7.2* tree after unpacking $dsc"
		for p in "$TOP"/qemu-dev/*.patch; do
			say "applying qemu-dev/$(basename "$p")"
			patch -d "$src" -p1 -s -N --no-backup-if-mismatch <"$p" ||
				die "qemu-dev/$(basename "$p") does not apply to $(basename "$src")"
		done
		echo "$want" >"$src/.mrpsim-stamp"
	fi
	# Link the device in; nothing of it is copied.
	ln -sfn "$TOP/qemu-dev/hw/net/mrpsim" "$src/hw/net/mrpsim"
	ln -sfn "$TOP/drivers/net/mrpsim/mrpsim_hw.h" "$src/include/hw/net/mrpsim_hw.h"
	ln -sfn "$TOP/tests/qtest/mrpsim-test.c" "$src/tests/qtest/mrpsim-test.c"
	ln -sfn "$TOP/qemu-dev/$DEVICES.mak" \
		"$src/configs/devices/x86_64-softmmu/$DEVICES.mak"
}

# configure [DIR [EXTRA-ARGS...]]: DIR defaults to $QBUILD
configure() {
	local src want dir=${1:-$QBUILD}
	shift || true
	src=$(qemu_srcdir)
	want=$(printf '%s\n' "${CONFIGURE_ARGS[@]}" "$@" \
		"$(cat "$src/.mrpsim-stamp")" \
		"$(cat "$TOP/qemu-dev/$DEVICES.mak")" |
		sha1sum | cut -c1-16)
	if [ -f "$dir/build.ninja" ] &&
	   [ "$(cat "$dir/.mrpsim-config-stamp" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	say "configuring QEMU in $dir (x86_64-softmmu, devices: qemu-dev/$DEVICES.mak)"
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && run_logged "$dir/configure.log" \
		"$src/configure" "${CONFIGURE_ARGS[@]}" "$@")
	echo "$want" >"$dir/.mrpsim-config-stamp"
}

build() {
	prepare
	configure
	say "building qemu-system-x86_64 and the mrpsim qtest (ninja -j$JOBS; a clean tree takes about 10 CPU minutes, 5+ minutes on 2 idle cores)"
	run_logged "$QBUILD/ninja.log" ninja -C "$QBUILD" -j"$JOBS" \
		qemu-system-x86_64 tests/qtest/mrpsim-test
	[ -x "$QEMU_BIN" ] || die "no $QEMU_BIN after the build"
	link_firmware "$QBUILD"
}

# Run from a build tree, QEMU looks for the --firmwarepath directories
# under qemu-bundle/: point them at the Debian packages (seabios,
# qemu-system-data) so that no -L is needed.
link_firmware() {
	local d
	for d in ${FIRMWARE//:/ }; do
		mkdir -p "$1/qemu-bundle$(dirname "$d")"
		ln -sfn "$d" "$1/qemu-bundle$d"
	done
}

# QEMU with AddressSanitizer and UBSan, for the fuzzer only.
asan() {
	prepare
	# 7.2's configure finds no UBSan with gcc 12 (its probe trips
	# -Werror=maybe-uninitialized): ask for it ourselves
	configure "$QASAN" --enable-sanitizers \
		--extra-cflags=-fsanitize=undefined \
		--extra-ldflags=-fsanitize=undefined
	say "building qemu-system-x86_64 with ASan and UBSan in $QASAN (ninja -j$JOBS; 7 to 25 minutes on 2 cores, depending on their load)"
	run_logged "$QASAN/ninja.log" ninja -C "$QASAN" -j"$JOBS" \
		qemu-system-x86_64
	[ -x "$QASAN/qemu-system-x86_64" ] || die "no $QASAN/qemu-system-x86_64 after the build"
	link_firmware "$QASAN"
}

# Run the glib test binary in TAP mode and summarise its results.
qtest() {
	local log=$QBUILD/mrpsim-test.log rc=0 pass fail plan
	say "running the mrpsim device tests (qtest accelerator)"
	# a hung device (say, forwarding looping inside the net layer) must
	# fail the run, not stall it
	QTEST_QEMU_BINARY=$QEMU_BIN timeout --kill-after=10 "$QTEST_TIMEOUT" \
		"$QTEST_BIN" --tap -k >"$log" 2>&1 || rc=$?
	grep -E '^(not )?ok ' "$log" || true
	pass=$(grep -cE '^ok ' "$log" || true)
	fail=$(grep -cE '^not ok ' "$log" || true)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n 1)
	if [ "$rc" != 0 ]; then
		tail -n 20 "$log" >&2
		# an abort ends the run: what did not run has failed too
		[ "$fail" = 0 ] && fail=1
		[ -n "$plan" ] && [ $((pass + fail)) -lt "$plan" ] &&
			fail=$((plan - pass))
	fi
	[ "$fail" = 0 ] || echo "(full log: $log)"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}

case "${1:-all}" in
all|build) build ;;
qtest) build; qtest ;;
path) echo "$QEMU_BIN" ;;
asan) asan ;;
asan-path) echo "$QASAN/qemu-system-x86_64" ;;
prepare) prepare ;;
*) die "usage: $0 [all|build|qtest|path|prepare|asan|asan-path]" ;;
esac
