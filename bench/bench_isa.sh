#!/bin/sh
# bench_isa.sh BUILD [KERNEL...]: the interpreter's exact figures, kernel by
# kernel (saxpy reduce matmul histogram alu tail64 reverse lane1 scale stack), on one
# interpreter thread:
#   host instructions per wave-instruction: callgrind's count of what runs
#     inside isa_dispatch_run, for 2 launches minus 1 launch (so the first
#     launch's preparation and first-touch faults are left out), divided by
#     the wave-instructions of the second launch;
#   system calls per memory instruction: strace -c -f over the whole
#     process, 3 launches minus 1, divided by the global memory instructions
#     (loads, stores, atomics) of the 2 launches between; process_vm_*
#     calls shown apart.
# The CPU time against the C loops is bench_isa's own run:
#   LD_LIBRARY_PATH=BUILD/sim BUILD/sim/bench_isa 7
set -eu
build=${1:-build}
shift || true
kernels=${*:-saxpy reduce matmul histogram alu tail64 reverse lane1 scale stack}
bench=$build/sim/bench_isa
tmp=${BENCH_ISA_KEEP:-$(mktemp -d)}
[ -n "${BENCH_ISA_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH="$build/sim" HIPSVM_SIM_EXEC_THREADS=1

# field N of bench_isa's line: wave-insns (2), mem-insns (4)
field() { awk -v n="$2" '$1 == k { print $n }' k="$1" "$3"; }

ir() {	# total Ir of a callgrind run of K with N launches
	valgrind --tool=callgrind --toggle-collect=isa_dispatch_run \
		--callgrind-out-file="$tmp/cg.$1.$2" "$bench" --only "$1" "$2" >"$tmp/out.$1.$2" 2>/dev/null
	awk '/^totals:/ { print $2 }' "$tmp/cg.$1.$2"
}

calls() {	# system calls of K with N launches: total, process_vm_*
	strace -f -c -o "$tmp/st.$1.$2" "$bench" --only "$1" "$2" >"$tmp/sout.$1.$2" 2>/dev/null
	awk '$NF == "total" { t = $(NF-2) } /process_vm_/ { v += $4 } END { print t + 0, v + 0 }' \
		"$tmp/st.$1.$2"
}

printf '%-10s %14s %16s %16s\n' kernel host/wave-insn syscalls/mem-insn process_vm/mem
for k in $kernels; do
	i1=$(ir "$k" 1)
	i3=$(ir "$k" 2)
	w1=$(field "$k" 2 "$tmp/out.$k.1")
	w3=$(field "$k" 2 "$tmp/out.$k.2")
	set -- $(calls "$k" 1)
	c1=$1 v1=$2
	set -- $(calls "$k" 3)
	c5=$1 v5=$2
	m1=$(field "$k" 4 "$tmp/sout.$k.1")
	m5=$(field "$k" 4 "$tmp/sout.$k.3")
	awk -v k="$k" -v i1="$i1" -v i3="$i3" -v w1="$w1" -v w3="$w3" -v c1="$c1" -v c5="$c5" \
	    -v v1="$v1" -v v5="$v5" -v m1="$m1" -v m5="$m5" 'BEGIN {
		m = m5 - m1
		s = "-"
		v = "-"
		if (m > 0) {
			s = sprintf("%.3f", (c5 - c1) / m)
			v = sprintf("%.3f", (v5 - v1) / m)
		}
		printf "%-10s %14.1f %16s %16s\n", k, (i3 - i1) / (w3 - w1), s, v
	}'
done
