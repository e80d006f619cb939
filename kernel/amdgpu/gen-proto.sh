#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# kernel/amdgpu/gen-proto.sh - the hook protocol's parser for the amdkfd patch.
#
# The patched amdkfd speaks the protocol with the project's own parser and
# reply formatter: src/shared/proto.c and the headers it needs, copied unchanged
# except for one line that says where they come from and their includes of
# each other, which name src/shared/ in src/ and the same directory here (and
# no references to papers outside the repository in comments). A kernel tree cannot
# reach outside itself (nor can a DKMS or distribution build), so the copy
# lives in the series, as the patch that adds
# drivers/gpu/drm/amd/amdkfd/hipsvm/. This script writes that copy.
#
#   gen-proto.sh --dir DIR     write compat.h fmt.h proto.h proto.c into DIR
#   gen-proto.sh --patch       rewrite the series' parser patch from src/
#   gen-proto.sh --check       exit 1 if the series' patch is not what
#                              --patch would write (src/ changed since)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../src/shared" && pwd)
files="compat.h fmt.h proto.h proto.c"
patch_name=0004-drm-amdkfd-the-hipsvm-hook-protocol-parser.patch
kdir=drivers/gpu/drm/amd/amdkfd/hipsvm

copy() {
	for f in $files; do
		# Line 1 is the SPDX tag, which must stay first.
		{
			sed -n 1p "$src/$f"
			echo "/* Generated from libhipsvm src/shared/$f by kernel/amdgpu/gen-proto.sh: change it there. */"
			# src/ includes its files qualified from src/
			# ("shared/fmt.h"); in the kernel tree the copies sit
			# side by side in one directory.
			sed -e 1d -e 's|^#include "shared/\([^"/]*\)"|#include "\1"|' "$src/$f"
		} > "$1/$f"
	done
}

# The patch is made with git so that it is in format-patch form; fixed
# names and dates make it the same bytes on every machine.
make_patch() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	GIT_AUTHOR_NAME="libhipsvm dev"
	GIT_AUTHOR_EMAIL="dev@libhipsvm"
	GIT_AUTHOR_DATE="2026-12-01T12:00:00Z"
	GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
	GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
	export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
	git -C "$tmp" init -q
	git -C "$tmp" -c commit.gpgsign=false commit -q --allow-empty -m base
	mkdir -p "$tmp/$kdir"
	copy "$tmp/$kdir"
	git -C "$tmp" add -A
	git -C "$tmp" -c commit.gpgsign=false commit -q -F - <<'MSG'
drm/amdkfd: the hipsvm hook protocol parser

The checkpoint hook file (next patch) speaks the one-line text
protocol of libhipsvm, whose client runs inside every unmap of a HIP
program, and whose other servers are a test module and a simulated
runtime. All of them parse requests and format replies with the same
file, so that the three cannot drift apart.

Add that file and the headers it needs, generated from libhipsvm's
src/ by its kernel/amdgpu/gen-proto.sh: they are not to be edited
here. The parser is bounded (one line of at most 256 bytes), allocates
nothing and has no state; compat.h maps its few atomics and types
onto the kernel's.

Built with the checkpoint hook only (CONFIG_HSA_AMD_SVM and
CONFIG_DEBUG_FS).
MSG
	git -C "$tmp" -c core.abbrev=12 -c diff.noprefix=false format-patch \
		--no-signature --no-stat --stdout --subject-prefix="PATCH 4/5" -1
}

case "${1:-}" in
--dir)
	mkdir -p "$2"
	copy "$2"
	;;
--patch)
	make_patch > "$here/$patch_name.new"
	mv "$here/$patch_name.new" "$here/$patch_name"
	;;
--check)
	make_patch > "${TMPDIR:-/tmp}/hipsvm-proto-check.$$"
	if cmp -s "${TMPDIR:-/tmp}/hipsvm-proto-check.$$" "$here/$patch_name"; then
		rm -f "${TMPDIR:-/tmp}/hipsvm-proto-check.$$"
	else
		rm -f "${TMPDIR:-/tmp}/hipsvm-proto-check.$$"
		echo "kernel/amdgpu/$patch_name is not a copy of src/ any more:" \
		     "run kernel/amdgpu/gen-proto.sh --patch" >&2
		exit 1
	fi
	;;
*)
	echo "usage: $0 --dir DIR | --patch | --check" >&2
	exit 2
	;;
esac
