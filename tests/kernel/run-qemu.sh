#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/kernel/run-qemu.sh - build hipsvm.ko, boot the matching Debian kernel
# in QEMU (software emulation) with a busybox initramfs, run the guest tests.
#
# Usage: tests/kernel/run-qemu.sh <meson-build-dir> [<guest CPUs>]
# The module is always built (kbuild warnings fail the test). Booting needs
# tests/kernel/setup.sh to have run (the kernel image cache); without it the
# test is skipped (exit 77) after the build, or fails when
# HIPSVM_TEST_REQUIRE_KERNEL=1.
# Environment: HIPSVM_KERNEL_CACHE (default <repo>/.cache/kernel),
# HIPSVM_KERNEL_VERSION (default: newest /lib/modules/*/build),
# HIPSVM_QEMU_TIMEOUT (seconds, default 300), HIPSVM_QEMU_CPUS (guest CPUs,
# default 2: the races between a drain and the handler need two),
# HIPSVM_STRESS_ROUNDS (rounds of kt_stress per load, default 200).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run-qemu.sh <meson-build-dir> [cpus]}" && pwd)
cache=${HIPSVM_KERNEL_CACHE:-$root/.cache/kernel}
limit=${HIPSVM_QEMU_TIMEOUT:-300}
cpus=${2:-${HIPSVM_QEMU_CPUS:-2}}
rounds=${HIPSVM_STRESS_ROUNDS:-200}
t0=$(date +%s)

say() { echo "run-qemu: $*"; }
die() { echo "run-qemu: FAIL: $*"; exit 1; }
skip() {
	if [ "${HIPSVM_TEST_REQUIRE_KERNEL:-0}" = 1 ]; then
		die "$* (HIPSVM_TEST_REQUIRE_KERNEL=1)"
	fi
	say "SKIP: $* (run tests/kernel/setup.sh)"
	exit 77
}

kver=${HIPSVM_KERNEL_VERSION:-}
if [ -z "$kver" ]; then
	kver=$(for d in /lib/modules/*/build; do
		[ -f "$d/Makefile" ] && basename "$(dirname "$d")"
	done | sort -V | tail -n 1)
fi
[ -n "$kver" ] || skip "no kernel headers under /lib/modules/*/build"
command -v make >/dev/null 2>&1 || skip "make not installed"

work=$build/tests/kernel/qemu-smp$cpus
tbin=$build/tests/kernel
rm -rf "$work"
mkdir -p "$work/mod" "$work/root"

# 1. The module, from a copy of kernel/ so that the source tree stays clean.
cp "$root"/kernel/*.c "$root"/kernel/*.h "$root"/kernel/Kbuild "$root"/kernel/Makefile "$work/mod/"
if ! make -C "$work/mod" KVER="$kver" HIPSVM_SRC="$root/src" >"$work/kbuild.log" 2>&1; then
	cat "$work/kbuild.log"
	die "kbuild failed"
fi
if grep -E -i 'warning:|error:' "$work/kbuild.log"; then
	die "kbuild printed warnings (see above)"
fi
say "built hipsvm.ko against $kver ($(($(date +%s) - t0)) s)"

# The module builds whenever the headers are there; booting needs more.
vmlinuz=$cache/$kver/boot/vmlinuz-$kver
[ -f "$vmlinuz" ] || skip "no kernel image $vmlinuz"
for tool in qemu-system-x86_64 cpio gzip; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed"
done
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || skip "busybox not installed"
if ldd "$busybox" >/dev/null 2>&1; then
	skip "$busybox is dynamically linked (install busybox-static)"
fi

# 2. The initramfs: busybox, the module, the test programs and their libraries.
r=$work/root
mkdir -p "$r/bin" "$r/t/lib" "$r/proc" "$r/sys" "$r/dev" "$r/tmp"
cp "$busybox" "$r/bin/busybox"
cp "$work/mod/hipsvm.ko" "$r/hipsvm.ko"
cp "$here/guest-init.sh" "$r/init"
chmod 755 "$r/init"

copy_libs() {
	ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	while read -r lib; do
		case "$lib" in
		"$build"/*) continue ;;	# our own libraries go to /t/lib
		esac
		if [ ! -e "$r$lib" ]; then
			mkdir -p "$r$(dirname "$lib")"
			cp -L "$lib" "$r$lib"
		fi
	done
}

for prog in kt_proto kt_cp kt_conc kt_procs kt_stress; do
	[ -x "$tbin/$prog" ] || die "guest program $tbin/$prog not built (ninja -C $build)"
	cp "$tbin/$prog" "$r/t/"
	copy_libs "$tbin/$prog"
done

shim=$build/preload/libhipsvm.so
simlib=$build/sim/libamdhip64.so.5
if [ -x "$tbin/guest_e2e" ] && [ -f "$shim" ] && [ -f "$simlib" ]; then
	cp "$tbin/guest_e2e" "$r/t/"
	cp -L "$shim" "$r/t/lib/libhipsvm.so"
	cp -L "$simlib" "$r/t/lib/libamdhip64.so.5"
	for f in "$tbin/guest_e2e" "$shim" "$simlib"; do
		LD_LIBRARY_PATH=$build/sim copy_libs "$f"
	done
	say "e2e: included ($shim, $simlib)"
else
	say "e2e: NOT included (needs $tbin/guest_e2e, $shim and $simlib)"
fi

(cd "$r" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initrd.gz"
say "initramfs $(du -k "$work/initrd.gz" | cut -f1) KiB ($(($(date +%s) - t0)) s)"

# 3. Boot. Never -enable-kvm (it hangs here); the host-side timeout catches
# a guest that does not boot or does not finish.
log=$work/console.log
set +e
say "booting with $cpus CPU(s), $rounds stress rounds"
timeout --kill-after=10 "$limit" qemu-system-x86_64 -m 512 -smp "$cpus" -nographic -no-reboot \
	-net none -kernel "$vmlinuz" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 hipsvm_stress=$rounds" </dev/null >"$log" 2>&1
qrc=$?
set -e
tr -d '\r' <"$log" >"$log.txt"
cat "$log.txt"
elapsed=$(($(date +%s) - t0))

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	die "guest did not finish within $limit s (qemu killed)"
fi
grep -q 'HIPSVM-BOOTED' "$log.txt" || die "guest did not boot (qemu exit $qrc)"
done_line=$(grep 'HIPSVM-DONE' "$log.txt" || true)
[ -n "$done_line" ] || die "guest did not finish (qemu exit $qrc)"
echo "run-qemu: per program:"
grep -E '^HIPSVM-(TEST|FAIL|SKIP)' "$log.txt" | sed 's/^/  /'
grep -E '^HIPSVM-STRESS' "$log.txt" | sed 's/^/  /' || true
for name in proto checkpoint concurrency processes stress cam stress-cam apu wrap; do
	grep -q "^HIPSVM-TEST $name rc=" "$log.txt" || die "guest test '$name' did not run"
done
case "$done_line" in
*failures=0) say "PASS in $elapsed s" ;;
*) die "guest tests failed: $done_line ($elapsed s); see 'not ok' and HIPSVM-FAIL lines above" ;;
esac
