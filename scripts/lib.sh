# shellcheck shell=bash
# Shared helpers for the mrpsim build scripts.  Source, do not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
JOBS=${JOBS:-2}

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Every Debian package the project uses; need_pkgs installs what is missing.
PKGS_KERNEL="build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils sparse python3 perl"
PKGS_QEMU="dpkg-dev meson ninja-build pkg-config libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev seabios qemu-system-data"
PKGS_GUEST="busybox-static iproute2 ethtool libmnl-dev tshark"
# iproute2.sh: Debian's iproute2 source, patched, for the guest's bridge tool
PKGS_IPROUTE2="build-essential dpkg-dev pkg-config libmnl-dev git"

# The project's own deb-src entry, needed by `apt-get source qemu`.
SRC_LIST=/etc/apt/sources.list.d/mrpsim-src.sources

ensure_deb_src() {
	[ -f "$SRC_LIST" ] && return 0
	say "adding a deb-src entry ($SRC_LIST) for apt-get source"
	cat > "$SRC_LIST" <<'EOS'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	rm -f "$BUILD/.apt-updated"
}

apt_update_once() {
	mkdir -p "$BUILD"
	[ -f "$BUILD/.apt-updated" ] && return 0
	say "apt-get update"
	apt-get update -q >"$BUILD/apt-update.log" 2>&1 ||
		{ cat "$BUILD/apt-update.log" >&2; die "apt-get update failed"; }
	touch "$BUILD/.apt-updated"
}

# deb_dsc DIR GLOB: the source package DIR/GLOB (a .dsc), or nothing
deb_dsc() {
	local f
	for f in "$1"/$2; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 0
}

# deb_source PKG DIR GLOB WHAT: Debian's source package PKG (with its
# patches) into DIR, unless a DIR/GLOB .dsc is there already.  Download
# only: the caller unpacks, so that it alone decides when.
deb_source() {
	local pkg=$1 dir=$2 glob=$3 what=$4
	[ -n "$(deb_dsc "$dir" "$glob")" ] && return 0
	ensure_deb_src
	apt_update_once
	say "apt-get source $pkg ($what, with Debian's patches) into $dir"
	mkdir -p "$dir"
	(cd "$dir" && apt-get source -q --download-only "$pkg") \
		>"$BUILD/$pkg-source.log" 2>&1 ||
		{ tail -n 30 "$BUILD/$pkg-source.log" >&2; die "apt-get source $pkg failed"; }
	[ -n "$(deb_dsc "$dir" "$glob")" ] ||
		die "apt-get source did not give a $what source package"
}

need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
	apt_update_once
	say "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >"$BUILD/apt-install.log" 2>&1 ||
		{ tail -n 30 "$BUILD/apt-install.log" >&2; die "apt-get install failed"; }
}

# Print a checksum of files (sorted, missing ones ignored).
sum_files() {
	local f
	for f in "$@"; do
		if [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 1048576 ]; then
			stat -c '%n %s %Y' "$f"	# large tarballs: name, size, date
		elif [ -e "$f" ]; then
			echo "$f"; cat "$f"
		fi
	done | sha1sum | cut -c1-16
}

# Run a long command with its output in a log; on failure show the tail.
run_logged() {
	local log=$1; shift
	local t0=$SECONDS
	if ! "$@" >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "failed: $* (full log: $log)"
	fi
	say "done in $((SECONDS - t0)) s (log: $log)"
}
