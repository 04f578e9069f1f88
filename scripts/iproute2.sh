#!/bin/bash
# Build iproute2's bridge tool from Debian's source package with
# patches/iproute2/*.patch applied (bridge mrp), for the guest.
#
#   scripts/iproute2.sh [build|prepare|path]
#
#   build    fetch (apt-get source iproute2), unpack, patch, configure and
#            build the bridge binary only (default); it lands in
#            build/iproute2-src/bin/bridge
#   prepare  only fetch, unpack and patch the source tree
#   path     print the path of the bridge binary
#
# The tree is unpacked again, clean, whenever the patches or the source
# package change.  Each patch must apply with git apply (no fuzz, no
# offset), as it would to a git tree of iproute2.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

IROOT=$BUILD/iproute2-src
PATCHES=$TOP/patches/iproute2
BRIDGE_BIN=$IROOT/bin/bridge

# The unpacked Debian source tree, or nothing.
iproute2_srcdir() {
	local d
	for d in "$IROOT"/iproute2-*/; do
		[ -f "$d/configure" ] && { echo "${d%/}"; return 0; }
	done
	return 0
}

iproute2_dsc() { deb_dsc "$IROOT" 'iproute2_*.dsc'; }

fetch() {
	# shellcheck disable=SC2086 # a list of package names
	need_pkgs $PKGS_IPROUTE2
	deb_source iproute2 "$IROOT" 'iproute2_*.dsc' "iproute2"
}

# git apply, outside any repository: the tree lies inside this one's work
# tree (build/ is ignored), where git would take the patch's paths as
# relative to the top of mrpsim.
git_apply() {
	(cd "$1" && shift && GIT_CEILING_DIRECTORIES=$(dirname "$PWD") \
		git apply "$@")
}

prepare() {
	local dsc src want p
	fetch
	dsc=$(iproute2_dsc)
	src=$(iproute2_srcdir)
	want=$(cd "$PATCHES" && sum_files ./*.patch "$dsc")
	if [ -n "$src" ] && [ "$(cat "$src/.mrpsim-stamp" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	if [ -n "$src" ]; then
		say "patches/iproute2 or the source package changed: unpacking a clean tree"
		rm -rf "$src" "$BRIDGE_BIN"
	fi
	say "unpacking $(basename "$dsc")"
	(cd "$IROOT" && dpkg-source -x "$dsc") >"$BUILD/iproute2-unpack.log" 2>&1 ||
		{ tail -n 30 "$BUILD/iproute2-unpack.log" >&2; die "dpkg-source -x failed"; }
	src=$(iproute2_srcdir)
	[ -n "$src" ] || die "no iproute2-* tree after unpacking $dsc"
	for p in "$PATCHES"/*.patch; do
		[ -f "$p" ] || continue
		say "applying patches/iproute2/$(basename "$p")"
		git_apply "$src" --check "$p" ||
			die "patches/iproute2/$(basename "$p") does not apply to $(basename "$src")"
		git_apply "$src" "$p"
	done
	echo "$want" >"$src/.mrpsim-stamp"
}

build() {
	local src t0=$SECONDS
	prepare
	src=$(iproute2_srcdir)
	if [ ! -f "$src/config.mk" ]; then
		(cd "$src" && run_logged "$IROOT/configure.log" ./configure)
		grep -q '^HAVE_MNL:=y' "$src/config.mk" ||
			die "iproute2's configure found no libmnl: bridge would print no kernel error messages (extack)"
	fi
	# lib and bridge only; --as-needed keeps what configure found for the
	# other tools (SELinux, libelf, libtirpc) out of bridge's libraries
	say "building iproute2's bridge (make -j$JOBS)"
	run_logged "$IROOT/make.log" make -C "$src" -j"$JOBS" \
		SUBDIRS="lib bridge" LDFLAGS="-Wl,--as-needed"
	install -D -m 0755 "$src/bridge/bridge" "$BRIDGE_BIN"
	# help exits 255
	case $("$BRIDGE_BIN" mrp help 2>&1 || true) in
	*"bridge mrp add"*) ;;
	*) die "$BRIDGE_BIN has no mrp command" ;;
	esac
	say "bridge: $BRIDGE_BIN ($((SECONDS - t0)) s)"
}

case "${1:-build}" in
build) build ;;
prepare) prepare ;;
path) echo "$BRIDGE_BIN" ;;
*) die "usage: $0 [build|prepare|path]" ;;
esac
