#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: MIT
# tests/kernel/guest-init.sh - /init of the QEMU guest (run-qemu.sh packs it).
# Loads hipsvm.ko, runs every guest test program, unloads the module, checks
# the kernel log, and powers off. The host reads the serial console: each
# program's TAP output, a "HIPSVM-TEST <name> rc=<n>" line per program and a
# final "HIPSVM-DONE failures=<n>".
/bin/busybox --install -s /bin
export PATH=/bin:/t
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
echo
echo "HIPSVM-BOOTED $(uname -r)"

failures=0
# Rounds of kt_stress per load (run-qemu.sh passes hipsvm_stress=N).
rounds=200
for w in $(cat /proc/cmdline); do
	case "$w" in hipsvm_stress=*) rounds=${w#hipsvm_stress=} ;; esac
done
echo "HIPSVM-CPUS $(grep -c ^processor /proc/cpuinfo)"
fail() {
	echo "HIPSVM-FAIL $*"
	failures=$((failures + 1))
}

# run <name> <command...>: one guest test program, its exit status recorded.
run() {
	name=$1
	shift
	echo "HIPSVM-BEGIN $name"
	"$@"
	rc=$?
	echo "HIPSVM-TEST $name rc=$rc"
	[ "$rc" -eq 0 ] || failures=$((failures + 1))
}

load() {
	if ! insmod /hipsvm.ko "$@"; then
		fail "insmod hipsvm.ko $*"
		return 1
	fi
	[ -e /sys/kernel/debug/hipsvm/hook ] || { fail "no /sys/kernel/debug/hipsvm/hook"; return 1; }
	return 0
}

unload() {
	procs=$(grep '^processes=' /sys/kernel/debug/hipsvm/stats | cut -d= -f2)
	[ "$procs" = "0" ] || fail "$procs process states left before rmmod (leak)"
	rmmod hipsvm || fail "rmmod hipsvm"
	[ ! -e /sys/kernel/debug/hipsvm ] || fail "debugfs directory left after rmmod"
	grep -q '^hipsvm ' /proc/modules && fail "module still listed after rmmod"
}

if load ngpus=4; then
	grep -q '^hipsvm ' /proc/modules || fail "module not in /proc/modules"
	run proto /t/kt_proto
	run checkpoint /t/kt_cp
	run concurrency /t/kt_conc
	run processes /t/kt_procs
	run stress /t/kt_stress $((rounds / 2)) 3
	if [ -x /t/guest_e2e ]; then
		run e2e env LD_LIBRARY_PATH=/t/lib LD_PRELOAD=/t/lib/libhipsvm.so HIPSVM_SIM_GPUS=4 \
			HIPSVM_HOOK=/sys/kernel/debug/hipsvm/hook /t/guest_e2e
	else
		echo "HIPSVM-SKIP e2e (libhipsvm.so or the simulated libamdhip64.so.5 not built)"
	fi
	unload
fi

# Retry faults on ih0, passed on to ih_soft: the retry CAM, and an APU (no ih1).
if load ngpus=2 retry_cam=1 ring_bytes=1024; then
	run cam /t/kt_cp cam
	unload
fi
# The drain with the CAM: ih0, then a fresh checkpoint of ih_soft.
if load ngpus=2 retry_cam=1 ring_bytes=65536; then
	run stress-cam /t/kt_stress "$rounds" 3
	unload
fi
if load ngpus=2 apu=1 ring_bytes=1024; then
	run apu /t/kt_cp apu
	unload
fi

# The 2^48 wrap with the GPU clock itself: start it 16 ticks before the wrap.
if load ngpus=2 clock_start=0xfffffffffff0 ring_bytes=1024; then
	run wrap /t/kt_cp wrap
	unload
fi

if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	if grep -q unreferenced /sys/kernel/debug/kmemleak; then
		cat /sys/kernel/debug/kmemleak
		fail "kmemleak reports leaks"
	fi
else
	echo "HIPSVM-NOTE kernel has no kmemleak"
fi

if dmesg | grep -E -q 'WARNING:|BUG:|Oops|general protection|refcount_t|list_del corruption|hipsvm.*(leak|error)'; then
	dmesg
	fail "kernel log has a WARNING/BUG"
fi
dmesg | grep hipsvm

echo "HIPSVM-DONE failures=$failures"
sync
poweroff -f
