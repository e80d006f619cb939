#!/bin/sh
# run_both.sh PROG SIMDIR: runs a hipcc-built program on the real runtime
# (no GPU here: it must report hipErrorNoDevice, 100) and then on the
# simulator through LD_LIBRARY_PATH alone; both must exit 0. TAP output.
set -u
prog=$1
simdir=$2
echo "1..2"
out=$(env -u LD_LIBRARY_PATH "$prog" 2>&1)
rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q "hipGetDeviceCount=100"; then
	echo "ok 1 - real runtime: hipErrorNoDevice"
else
	echo "not ok 1 - real runtime: rc=$rc"
fi
echo "$out" | sed 's/^/# /'
out=$(LD_LIBRARY_PATH="$simdir" HIPSVM_SIM_QUIET=1 "$prog" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	echo "ok 2 - simulator"
else
	echo "not ok 2 - simulator: rc=$rc"
fi
echo "$out" | sed 's/^/# /'
