#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/kernel/setup.sh - prepare what the QEMU kernel test needs (idempotent).
#
# Installs the host packages with apt-get when one is missing, then fetches the
# Debian kernel image whose version matches the installed linux-headers (the
# module must be built against exactly the kernel that boots) and unpacks it
# with dpkg -x into the cache directory:
#   ${HIPSVM_KERNEL_CACHE:-<repo>/.cache/kernel}/<kver>/boot/vmlinuz-<kver>
# Usage: tests/kernel/setup.sh [kernel-version]   (default: the newest
# /lib/modules/*/build that has a Makefile, or $HIPSVM_KERNEL_VERSION)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${HIPSVM_KERNEL_CACHE:-$root/.cache/kernel}

pick_kver() {
	if [ -n "${1:-}" ]; then echo "$1"; return; fi
	if [ -n "${HIPSVM_KERNEL_VERSION:-}" ]; then echo "$HIPSVM_KERNEL_VERSION"; return; fi
	for d in /lib/modules/*/build; do
		[ -f "$d/Makefile" ] && basename "$(dirname "$d")"
	done | sort -V | tail -n 1
}

need_pkgs=""
for p in qemu-system-x86 busybox-static linux-headers-amd64 cpio kmod; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		need_pkgs="$need_pkgs $p"
	fi
done
if [ -n "$need_pkgs" ]; then
	echo "setup: installing$need_pkgs"
	apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need_pkgs
fi

kver=$(pick_kver "${1:-}")
if [ -z "$kver" ]; then
	echo "setup: no kernel headers under /lib/modules/*/build" >&2
	exit 1
fi

dest="$cache/$kver"
if [ -f "$dest/boot/vmlinuz-$kver" ]; then
	echo "setup: kernel $kver already in $dest"
	exit 0
fi

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.dl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
download() {
	for pkg in "linux-image-$kver" "linux-image-$kver-unsigned"; do
		if (cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1); then
			echo "$pkg"
			return 0
		fi
	done
	return 1
}
# Stale package lists are the usual reason for a failed download: refresh
# them once and try again.
got=$(download || { apt-get update -q >/dev/null 2>&1 && download; } || true)
if [ -z "$got" ]; then
	echo "setup: neither linux-image-$kver nor linux-image-$kver-unsigned could be" \
	     "downloaded (try: apt-get update)" >&2
	exit 1
fi
rm -rf "$tmp/x"
dpkg -x "$tmp"/*.deb "$tmp/x"
if [ ! -f "$tmp/x/boot/vmlinuz-$kver" ]; then
	echo "setup: $got has no boot/vmlinuz-$kver" >&2
	exit 1
fi
# Keep the image and the modules tree (virtio etc. are not needed: the guest
# only loads our module), drop the rest; install atomically.
rm -rf "$dest.new"
mkdir -p "$dest.new/boot"
cp "$tmp/x/boot/vmlinuz-$kver" "$dest.new/boot/"
[ -f "$tmp/x/boot/config-$kver" ] && cp "$tmp/x/boot/config-$kver" "$dest.new/boot/"
[ -f "$tmp/x/boot/System.map-$kver" ] && cp "$tmp/x/boot/System.map-$kver" "$dest.new/boot/"
echo "$got" >"$dest.new/package"
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "setup: kernel $kver from $got in $dest"
