#!/bin/bash
# Build the guest's iproute2 tools (ip, bridge, devlink) from Debian's
# source package with patches/iproute2/*.patch applied (bridge mrp).
#
#   scripts/iproute2.sh [build|prepare|bindir]
#
#   build    fetch (apt-get source iproute2), unpack, patch, configure and
#            build ip, bridge and devlink (default); they land in
#            build/iproute2-src/bin/
#   prepare  only fetch, unpack and patch the source tree
#   bindir   print the directory of the three binaries
#
# They link libmnl and libc only.  configure also takes up whatever
# optional library the build machine has (libelf for BPF objects, SELinux,
# libtirpc, libcap, libbpf); Debian's own ip loads seven shared libraries,
# and in a debug guest under TCG each one a program loads costs every
# process start time: Debian's ip starts in 0.84 s there, this one in
# 0.33 s, and the tests start ip hundreds of times.
#
# The tree is unpacked again, clean, whenever the patches or the source
# package change.  Each patch must apply with git apply (no fuzz, no
# offset), as it would to a git tree of iproute2.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

IROOT=$BUILD/iproute2-src
PATCHES=$TOP/patches/iproute2
BINDIR=$IROOT/bin
BRIDGE_BIN=$BINDIR/bridge
TOOLS="ip bridge devlink"
# config.mk's last line once the optional libraries are out of it
LEAN="# mrpsim: libmnl and libc only"

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
		rm -rf "$src" "$BINDIR"
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

# configure, then take the optional libraries out of config.mk (see the
# top of this file); a tree configured before that is cleaned first.
configure() {
	local src=$1
	[ "$(tail -n 1 "$src/config.mk" 2>/dev/null)" = "$LEAN" ] && return 0
	if [ -f "$src/config.mk" ]; then
		say "iproute2 was configured with optional libraries: cleaning"
		make -C "$src" clean >/dev/null 2>&1 || true
	fi
	(cd "$src" && run_logged "$IROOT/configure.log" ./configure --libbpf_force off)
	grep -q '^HAVE_MNL:=y' "$src/config.mk" ||
		die "iproute2's configure found no libmnl: ip, bridge and devlink would print no kernel error messages (extack)"
	sed -i -e '/SELINUX\|selinux/d' -e '/HAVE_RPC\|tirpc/d' \
		-e '/HAVE_ELF\|-lelf/d' -e '/HAVE_CAP\|-lcap/d' \
		-e '/LIBBPF\|-lbpf/d' "$src/config.mk"
	echo "$LEAN" >>"$src/config.mk"
}

build() {
	local src t0=$SECONDS t libs
	prepare
	src=$(iproute2_srcdir)
	configure "$src"
	# --as-needed keeps whatever lib/ does not use out of the binaries.
	# From the environment, not the command line, which would override
	# ip/Makefile's -export-dynamic: ip finds its link types ("type
	# veth") by dlsym() in its own symbols.
	say "building iproute2's $TOOLS (make -j$JOBS)"
	LDFLAGS="-Wl,--as-needed" run_logged "$IROOT/make.log" \
		make -C "$src" -j"$JOBS" SUBDIRS="lib $TOOLS"
	for t in $TOOLS; do
		install -D -m 0755 "$src/$t/$t" "$BINDIR/$t"
		libs=$(ldd "$BINDIR/$t" | grep -o 'lib[a-z0-9_+-]*\.so' |
			grep -vx 'libmnl\.so\|libc\.so' || true)
		[ -z "$libs" ] || die "$BINDIR/$t loads more than libmnl and libc:" $libs
	done
	case $("$BINDIR/ip" link help veth 2>&1 || true) in
	*"type veth [peer"*) ;;
	*) die "$BINDIR/ip knows no link types (built without -export-dynamic)" ;;
	esac
	# help exits 255
	case $("$BRIDGE_BIN" mrp help 2>&1 || true) in
	*"bridge mrp add"*) ;;
	*) die "$BRIDGE_BIN has no mrp command" ;;
	esac
	say "$TOOLS: $BINDIR ($((SECONDS - t0)) s)"
}

case "${1:-build}" in
build) build ;;
prepare) prepare ;;
bindir) echo "$BINDIR" ;;
*) die "usage: $0 [build|prepare|bindir]" ;;
esac
