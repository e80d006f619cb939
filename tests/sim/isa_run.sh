#!/bin/sh
# isa_run.sh SIMDIR SHIM PROG [ARGS...]: runs a hipcc-built program that
# checks its own results (exit 0: right, 2: wrong) on the simulator, alone
# and with the shim preloaded (SHIM empty: alone only). Each run must exit 0
# and must not have fallen back to the buffer-touch model. TAP output.
set -u
simdir=$1
shim=$2
shift 2
n=1
[ -n "$shim" ] && n=2
echo "1..$n"
check() {
	num=$1
	what=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && ! echo "$out" | grep -q "is not interpreted"; then
		echo "ok $num - $what"
	else
		echo "not ok $num - $what: rc=$rc"
	fi
	echo "$out" | sed 's/^/# /'
}
check 1 "simulator" env LD_LIBRARY_PATH="$simdir" "$@"
if [ -n "$shim" ]; then
	check 2 "simulator + shim" env LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$shim" \
		HIPSVM_REPORT= "$@"
fi
