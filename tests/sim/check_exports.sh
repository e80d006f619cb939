#!/bin/sh
# check_exports.sh SIMLIB REALLIB: the simulator exports only HIP API symbols
# (each under the version the real runtime gives it) and its own hipsvmSim*
# (under hipsvm_sim_1). TAP output.
set -u
sim=$1
real=$2
tmp=${TMPDIR:-/tmp}/hipsvm-exports.$$
trap 'rm -f "$tmp".*' EXIT
objdump -T "$sim" | awk '$0 !~ /\*UND\*/ && NF >= 7 && ($3 == "DF" || $3 == "DO") && $(NF-1) != $NF { print $NF, $(NF-1) }' | sort > "$tmp.sim"
objdump -T "$real" | awk '$0 !~ /\*UND\*/ && NF >= 7 && ($3 == "DF" || $3 == "DO") && $(NF-1) != $NF { print $NF, $(NF-1) }' | sort > "$tmp.real"
echo "1..3"
n=$(wc -l < "$tmp.sim")
if [ "$n" -gt 50 ]; then echo "ok 1 - $n symbols exported"; else echo "not ok 1 - only $n symbols exported"; fi
bad=$(grep -v '^hipsvmSim' "$tmp.sim" | while read -r sym ver; do
	grep -qx "$sym $ver" "$tmp.real" || echo "$sym@$ver"
done)
if [ -z "$bad" ]; then echo "ok 2 - every HIP symbol has the real runtime's version"; else echo "not ok 2 - not as in the real runtime: $bad"; fi
bad=$(grep '^hipsvmSim' "$tmp.sim" | grep -v ' hipsvm_sim_1$')
if [ -z "$bad" ]; then echo "ok 3 - hipsvmSim* under hipsvm_sim_1"; else echo "not ok 3 - $bad"; fi
