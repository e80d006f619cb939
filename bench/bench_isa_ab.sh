#!/bin/sh
# bench_isa_ab.sh ROUNDS SPEC...: the interpreter of several builds (or
# vector widths) against one another, for what callgrind cannot count.
# SPEC is a build directory, or DIR:WIDTH to run it with HIPSVM_SIM_SIMD=WIDTH
# (512, 256, 0). Valgrind runs no AVX-512 (under it the library takes its
# AVX2 paths), and a stall on a store cannot be seen in instructions; so the
# figure is bench_isa's own, on one interpreter thread: the median over 7
# pairs of a kernel's CPU time over its C loop's, the two timed one after
# the other in the same process, which cancels most of a shared machine's
# drift. The SPECs run in turn, ROUNDS times; printed per kernel: each
# SPEC's median of those medians, and how many times faster than the first
# SPEC each is (the first's figure over its own).
#
# A width below the CPU's is not what a CPU without the wider unit runs: the
# loops the compiler vectorised follow the CPU whatever the width says, and
# beside them the narrower hand-written paths pay for mixing store and load
# sizes. To compare against an AVX2-only machine, compare builds.
set -eu
rounds=${1:?usage: bench_isa_ab.sh ROUNDS SPEC...}
shift
[ $# -ge 1 ] || { echo "usage: bench_isa_ab.sh ROUNDS SPEC..." >&2; exit 2; }
kernels=${BENCH_KERNELS:-saxpy reduce matmul histogram alu tail64 reverse lane1 scale stack}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HIPSVM_SIM_EXEC_THREADS=1 HIPSVM_SIM_QUIET=1

printf 'cpu: avx2 %s, avx512f %s; %s rounds\n' \
	"$(grep -qw avx2 /proc/cpuinfo && echo yes || echo no)" \
	"$(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)" "$rounds"
r=0
while [ "$r" -lt "$rounds" ]; do
	i=0
	for spec in "$@"; do
		dir=${spec%%:*}
		width=512
		[ "$dir" = "$spec" ] || width=${spec#*:}
		HIPSVM_SIM_SIMD=$width LD_LIBRARY_PATH="$dir/sim" "$dir/sim/bench_isa" 7 \
			>"$tmp/out" 2>/dev/null
		# "ratio median N.Nx": the field after "median"
		for k in $kernels; do
			awk -v k="$k" '$1 == k { for (i = 1; i < NF; i++) if ($i == "median") {
				sub("x", "", $(i + 1)); print $(i + 1) } }' "$tmp/out" >>"$tmp/$k.$i"
		done
		i=$((i + 1))
	done
	r=$((r + 1))
done
i=0
for spec in "$@"; do
	printf 'spec %d: %s\n' "$i" "$spec"
	i=$((i + 1))
done
printf '%-10s' kernel
i=0
for spec in "$@"; do
	printf ' %9s' "x C ($i)"
	[ "$i" -eq 0 ] || printf ' %8s' "0/$i"
	i=$((i + 1))
done
printf '\n'
med() { sort -n "$tmp/$1" | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
for k in $kernels; do
	printf '%-10s' "$k"
	base=$(med "$k.0")
	i=0
	for spec in "$@"; do
		m=$(med "$k.$i")
		printf ' %9s' "$m"
		[ "$i" -eq 0 ] || awk -v a="$base" -v b="$m" 'BEGIN { printf " %7.2fx", (b > 0 ? a / b : 0) }'
		i=$((i + 1))
	done
	printf '\n'
done
