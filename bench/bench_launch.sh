#!/bin/sh
# bench_launch.sh BUILD [ROW...]: what one launch costs outside the kernel
# (rows: empty empty8 rocsparse; bench/bench_launch.cpp), exact:
#   host instructions per launch: callgrind's total for the whole process
#     (every thread) with 2N launches minus N launches, divided by N (the
#     program's start, the first launch's preparation and loading are the
#     same in both and cancel); "outside" leaves out what runs inside
#     isa_run_wave (the kernel's own instructions), so it is the launch's
#     and the waves' set-up, the threads' hand-over and the synchronize;
#   system calls and clone/clone3 calls per launch: strace -f -c, the same
#     difference.
# A launch here is the call and its hipDeviceSynchronize; the rocsparse row
# counts per rocsparse_sgthr call and says how many dispatches each made.
# HIPSVM_SIM_EXEC_THREADS is left as the caller set it (the default uses
# up to 4 threads per dispatch: helper threads show in the clone column).
set -eu
build=${1:-build}
shift || true
rows=${*:-empty empty8 rocsparse}
bench=$build/sim/bench_launch
n=${BENCH_LAUNCH_N:-50}
tmp=${BENCH_LAUNCH_KEEP:-$(mktemp -d)}
[ -n "${BENCH_LAUNCH_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH="$build/sim" HIPSVM_SIM_QUIET=1

ir() {	# Ir of ROW with N launches: total, inside isa_run_wave
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1.$2" "$bench" "$1" "$2" \
		>"$tmp/out.$1.$2" 2>/dev/null
	t=$(awk '/^totals:/ { print $2 }' "$tmp/cg.$1.$2")
	w=$(callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg.$1.$2" 2>/dev/null |
		awk '/:isa_run_wave( |$)/ { gsub(",", "", $1); if ($1 + 0 > w) w = $1 + 0 } END { print w + 0 }')
	echo "$t $w"
}

calls() {	# system calls of ROW with N launches: total, clone*
	strace -f -c -o "$tmp/st.$1.$2" "$bench" "$1" "$2" >"$tmp/sout.$1.$2" 2>/dev/null
	awk '$NF == "total" { t = $(NF-2) } $NF ~ /^clone/ { c += $4 } END { print t + 0, c + 0 }' \
		"$tmp/st.$1.$2"
}

printf '%-10s %8s %14s %14s %16s %14s\n' row launches host/launch outside/launch syscalls/launch \
	clones/launch
for r in $rows; do
	if ! "$bench" "$r" 1 >"$tmp/probe.$r" 2>&1; then
		printf '%-10s not run: %s\n' "$r" "$(head -1 "$tmp/probe.$r")"
		continue
	fi
	set -- $(ir "$r" "$n")
	i1=$1 w1=$2
	set -- $(ir "$r" $((2 * n)))
	i2=$1 w2=$2
	set -- $(calls "$r" "$n")
	c1=$1 k1=$2
	set -- $(calls "$r" $((2 * n)))
	c2=$1 k2=$2
	d=$(awk '{ print $4 }' "$tmp/out.$r.$n")
	awk -v r="$r" -v n="$n" -v i1="$i1" -v i2="$i2" -v w1="$w1" -v w2="$w2" -v c1="$c1" \
	    -v c2="$c2" -v k1="$k1" -v k2="$k2" -v d="$d" 'BEGIN {
		printf "%-10s %8d %14.0f %14.0f %16.2f %14.2f  (%.2f dispatches per launch)\n", r, n,
		       (i2 - i1) / n, (i2 - w2 - i1 + w1) / n, (c2 - c1) / n, (k2 - k1) / n, d / n
	}'
done
