#!/bin/sh
# run_client.sh SIMDIR SHIM PROG: runs a real client program (it checks its
# own results: exit 0 right, 2 wrong) on the simulator alone and with the
# shim preloaded (SHIM empty: alone only). Each run must exit 0 with no
# kernel left to the buffer-touch model, except a kernel refused as wave32
# code: the library's gfx90a code object is not the one chosen (code object
# selection by target ID, not here yet), which is reported as a skip with
# that reason. TAP output; the program's lines (its wall times) as comments.
set -u
simdir=$1
shim=$2
prog=$3
n=1
[ -n "$shim" ] && n=2
echo "1..$n"
check() {
	num=$1
	what=$2
	shift 2
	start=$(date +%s.%N)
	out=$("$@" 2>&1)
	rc=$?
	end=$(date +%s.%N)
	secs=$(echo "$start $end" | awk '{printf "%.2f", $2 - $1}')
	if echo "$out" | grep -q "is not interpreted (wave32 code)"; then
		echo "ok $num - $what # SKIP the library's wave32 code object was chosen, not its gfx90a one"
	elif [ $rc -eq 0 ] && ! echo "$out" | grep -q "is not interpreted"; then
		echo "ok $num - $what (${secs} s)"
	else
		echo "not ok $num - $what: rc=$rc (${secs} s)"
	fi
	echo "$out" | sed 's/^/# /'
}
check 1 "simulator" env LD_LIBRARY_PATH="$simdir" "$prog"
if [ -n "$shim" ]; then
	check 2 "simulator + shim" env LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$shim" \
		HIPSVM_REPORT= "$prog"
fi
