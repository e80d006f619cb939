#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/kernel/amdgpu-build.sh - the amdgpu/amdkfd patch series
# (kernel/amdgpu/) applied to Debian's linux-source-6.12 and compiled.
#
# Installs nothing. Needs the packages linux-source-6.12 (the tarball in
# /usr/src) and linux-config-6.12 (Debian's configurations), and gcc-12;
# without them the test is skipped (exit 77), or fails when
# HIPSVM_TEST_REQUIRE_KERNEL=1.
#
#  1. the series' copy of the protocol parser is still src/shared/proto.c's
#  2. the source is unpacked once into the cache (pristine, never written)
#  3. a hard-linked copy of it gets the series, patch by patch, with
#     patch -p1 --dry-run first and no fuzz
#  4. for two configurations, Debian's amd64 one as it is (no
#     CONFIG_HSA_AMD_SVM: Debian leaves CONFIG_DEVICE_PRIVATE off) and the
#     same with DEVICE_PRIVATE and HSA_AMD_SVM on, a build directory is
#     prepared once (olddefconfig, modules_prepare) and kept
#  5. every amdkfd object of the configuration (all include kfd_priv.h,
#     which the series changes) and amdgpu_ih.o, amdgpu_amdkfd.o are
#     compiled with W=1; warnings are compared with those of the same
#     objects unpatched (computed once): a new warning or any error fails
#  6. checkpatch.pl on the hand-written patches: an ERROR fails
#
# Cache: the parent of HIPSVM_KERNEL_CACHE (default <repo>/.cache/kernel),
# subdirectory amdgpu/ (about 1.8 GB).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kcache=${HIPSVM_KERNEL_CACHE:-$root/.cache/kernel}
cache=$(dirname "$kcache")/amdgpu
series_dir=$root/kernel/amdgpu
tarball=/usr/src/linux-source-6.12.tar.xz
t0=$(date +%s)

say() { echo "amdgpu-build: $*"; }
die() { echo "amdgpu-build: FAIL: $*"; exit 1; }
skip() {
	if [ "${HIPSVM_TEST_REQUIRE_KERNEL:-0}" = 1 ]; then
		die "$* (HIPSVM_TEST_REQUIRE_KERNEL=1)"
	fi
	say "SKIP: $* (apt-get install linux-source-6.12 linux-config-6.12)"
	exit 77
}
lap() { say "$1: $(($(date +%s) - t0)) s"; }

# 1. Before anything slow.
"$series_dir/gen-proto.sh" --check || die "the series' parser is stale"

[ -f "$tarball" ] || skip "no $tarball"
config_xz=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
[ -f "$config_xz" ] || skip "no $config_xz"
for tool in make patch xz perl bc flex bison; do
	command -v $tool >/dev/null 2>&1 || skip "$tool not installed"
done
# The compiler Debian built the kernel with, as kernel/Makefile picks it.
kcc=$(xz -dc "$config_xz" | sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p')
command -v "$kcc" >/dev/null 2>&1 || kcc=$(echo "$kcc" | sed 's/^x86_64-linux-gnu-//')
command -v "$kcc" >/dev/null 2>&1 || skip "no compiler $kcc"

mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9 2>/dev/null || true	# one run at a time per cache

# 2. Pristine source, keyed by the tarball.
stamp=$(stat -c '%s %Y' "$tarball")
if [ "$(cat "$cache/src.stamp" 2>/dev/null)" != "$stamp" ]; then
	say "unpacking $tarball"
	rm -rf "$cache/src" "$cache"/build-* "$cache"/baseline-* "$cache/src.stamp"
	mkdir -p "$cache/src"
	nice tar -xJf "$tarball" -C "$cache/src"
	echo "$stamp" >"$cache/src.stamp"
fi
pristine=$(echo "$cache"/src/linux-source-6.12)
[ -f "$pristine/Makefile" ] || die "no $pristine/Makefile"
kver=$(make -s -C "$pristine" kernelversion)
lap "source $kver ready"

# A working tree at a fixed path (the build directories remember it):
# hard links, so that patch(1), which writes new files, leaves the
# pristine tree alone.
tree() {
	rm -rf "$cache/run"
	cp -al "$pristine" "$cache/run"
}

# 3. The series.
apply_series() {
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		[ -f "$series_dir/$p" ] || die "series names a missing $p"
		if ! patch -p1 -F0 --dry-run -s -d "$cache/run" <"$series_dir/$p" >"$cache/patch.log" 2>&1; then
			cat "$cache/patch.log"
			die "$p does not apply to $kver"
		fi
		patch -p1 -F0 -s -d "$cache/run" <"$series_dir/$p" || die "$p failed"
		say "applied $p"
	done <"$series_dir/series"
}

# 4. Build directories.
prepare() { # $1 = variant
	b=$cache/build-$1
	xz -dc "$config_xz" >"$cache/config.$1"
	if [ "$1" = svm ]; then
		"$cache/run/scripts/config" --file "$cache/config.$1" \
			--enable DEVICE_PRIVATE --enable HSA_AMD_SVM
	fi
	want=$(sha256sum <"$cache/config.$1" | cut -c1-16)
	if [ "$(cat "$b/.hipsvm-prepared" 2>/dev/null)" != "$want" ]; then
		say "preparing $1 in $b"
		rm -rf "$b"
		mkdir -p "$b"
		cp "$cache/config.$1" "$b/.config"
		kmake "$1" olddefconfig >"$cache/prepare-$1.log" 2>&1 &&
			kmake "$1" modules_prepare >>"$cache/prepare-$1.log" 2>&1 ||
			{ tail -n 30 "$cache/prepare-$1.log"; die "preparing $1 failed"; }
		echo "$want" >"$b/.hipsvm-prepared"
	fi
	if [ "$1" = svm ]; then
		grep -q '^CONFIG_HSA_AMD_SVM=y' "$b/.config" || die "HSA_AMD_SVM did not stick"
	else
		! grep -q '^CONFIG_HSA_AMD_SVM=y' "$b/.config" || die "Debian's config has SVM now"
	fi
}

kmake() { # $1 = variant, then make arguments
	v=$1
	shift
	nice make -s -C "$cache/run" O="$cache/build-$v" CC="$kcc" -j2 "$@"
}

amd=drivers/gpu/drm/amd/amdgpu
kfd=$amd/../amdkfd
# Every amdkfd object the tree's Makefile builds in that configuration (all
# of them include kfd_priv.h, which the series changes), and the amdgpu
# objects of the IH wait and of its other caller.
objs() { # $1 = variant, $2 = tree
	sed -n 's#.*\$(AMDKFD_PATH)/\([a-z_0-9/]*\)\.o.*#\1#p' \
		"$2/drivers/gpu/drm/amd/amdkfd/Makefile" |
		while read -r o; do
			case "$1:$o" in
			debian:kfd_svm | debian:kfd_migrate | debian:kfd_hipsvm_hook | debian:hipsvm/*) ;;
			*) echo "$kfd/$o.o" ;;
			esac
		done
	echo "$amd/amdgpu_ih.o"
	echo "$amd/amdgpu_amdkfd.o"
}

# "file:line:col: warning: text" without the position, one per line.
warnings() {
	grep -E ': (warning|error):' "$1" |
		sed -E 's/^([^:]*):[0-9]+:([0-9]+:)? /\1: /' | sort -u || true
}

# 5. Compile.
compile() { # $1 = variant, then the objects, which are rebuilt every time
	cv=$1
	shift
	for o in "$@"; do
		rm -f "$cache/build-$cv/$o"
	done
	kmake "$cv" W=1 "$@"
}

# Baseline warnings, once per source and configuration.
for v in debian svm; do
	[ -f "$cache/baseline-$v" ] && [ "$(cat "$cache/baseline-$v.objs" 2>/dev/null)" = "$(objs "$v" "$pristine")" ] &&
		continue
	tree
	prepare "$v"
	say "baseline: unpatched objects of $v"
	# shellcheck disable=SC2046
	compile "$v" $(objs "$v" "$pristine") >"$cache/baseline-$v.log" 2>&1 ||
		{ tail -n 30 "$cache/baseline-$v.log"; die "unpatched $v build failed"; }
	warnings "$cache/baseline-$v.log" >"$cache/baseline-$v"
	objs "$v" "$pristine" >"$cache/baseline-$v.objs"
	lap "baseline $v ($(wc -l <"$cache/baseline-$v") warnings)"
done

tree
apply_series
lap "series applied"
fail=0
for v in debian svm; do
	prepare "$v"
	log=$cache/build-$v.log
	# shellcheck disable=SC2046
	if ! compile "$v" $(objs "$v" "$cache/run") >"$log" 2>&1; then
		cat "$log"
		die "patched $v build failed"
	fi
	for o in $(objs "$v" "$cache/run"); do
		[ -f "$cache/build-$v/$o" ] || die "$o was not built ($v)"
	done
	warnings "$log" | comm -13 "$cache/baseline-$v" - >"$cache/new-$v"
	if [ -s "$cache/new-$v" ]; then
		say "new warnings ($v):"
		cat "$cache/new-$v"
		fail=1
	fi
	lap "compiled $v: $(objs "$v" "$cache/run" | wc -l) objects, $(wc -l <"$cache/new-$v") new warnings"
done
# Without SVM the hook must not be built at all.
[ ! -e "$cache/build-debian/$kfd/kfd_hipsvm_hook.o" ] || die "hook built without SVM"
grep -q 'kfd_hipsvm_hook_init(debugfs_root)' "$cache/run/drivers/gpu/drm/amd/amdkfd/kfd_debugfs.c" ||
	die "kfd_debugfs.c does not create the hook"

# 6. Style of the hand-written patches (the parser copy keeps libhipsvm's).
while read -r p; do
	case "$p" in '' | '#'* | 0004-*) continue ;; esac
	perl "$pristine/scripts/checkpatch.pl" --no-signoff --quiet --show-types \
		--ignore FILE_PATH_CHANGES,COMMIT_LOG_LONG_LINE,GERRIT_CHANGE_ID \
		"$series_dir/$p" 2>/dev/null >"$cache/checkpatch.log" || true
	if grep -q '^ERROR' "$cache/checkpatch.log"; then
		cat "$cache/checkpatch.log"
		say "checkpatch: errors in $p"
		fail=1
	fi
	n=$(grep -c '^WARNING' "$cache/checkpatch.log" || true)
	[ "$n" = 0 ] || { say "checkpatch: $n warnings in $p"; cat "$cache/checkpatch.log"; }
done <"$series_dir/series"

rm -rf "$cache/run"
lap "done"
[ "$fail" = 0 ] || die "see above"
say "OK: series applies to $kver and compiles with W=1, no new warnings"
