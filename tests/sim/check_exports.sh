#!/bin/sh
# check_exports.sh SIMLIB REALLIB PENDING: the simulator exports exactly the
# real runtime's functions, each under the version the real runtime gives it,
# plus its own hipsvmSim* under hipsvm_sim_1. PENDING lists names that are
# still expected missing (one per line): each must be absent, and nothing
# else may be. TAP output.
set -u
sim=$1
real=$2
pending=$3
tmp=${TMPDIR:-/tmp}/hipsvm-exports.$$
trap 'rm -f "$tmp".*' EXIT
syms() {
	objdump -T "$1" | awk '$0 !~ /\*UND\*/ && NF >= 7 && ($3 == "DF" || $3 == "DO") && $(NF-1) != $NF { print $NF, $(NF-1) }' | sort -u
}
syms "$sim" > "$tmp.sim"
syms "$real" > "$tmp.real"
grep -v '^[[:space:]]*\(#\|$\)' "$pending" | sort -u > "$tmp.pending"
grep -v '^hipsvmSim' "$tmp.sim" > "$tmp.simhip"
echo "1..5"
n=$(wc -l < "$tmp.real")
if [ "$n" -gt 300 ]; then echo "ok 1 - the real runtime exports $n functions"; else echo "not ok 1 - only $n functions read from $real"; fi
# real name@version pairs the simulator lacks, other than pending names
comm -23 "$tmp.real" "$tmp.simhip" > "$tmp.lack"
bad=$(awk '{ print $1 }' "$tmp.lack" | grep -vxF -f "$tmp.pending" | while read -r name; do
	awk -v n="$name" '$1 == n { print $1 "@" $2 }' "$tmp.lack"
done)
if [ -z "$bad" ]; then echo "ok 2 - every real function is exported with its version ($(wc -l < "$tmp.simhip") HIP names)"; else echo "not ok 2 - missing or with another version: $(echo $bad)"; fi
bad=$(comm -13 "$tmp.real" "$tmp.simhip" | awk '{ print $1 "@" $2 }')
if [ -z "$bad" ]; then echo "ok 3 - nothing exported that the real runtime does not export"; else echo "not ok 3 - not in the real runtime: $(echo $bad)"; fi
bad=$(awk '{ print $1 }' "$tmp.simhip" | sort -u | comm -12 - "$tmp.pending")
if [ -z "$bad" ]; then echo "ok 4 - $(wc -l < "$tmp.pending") names pending, none exported yet"; else echo "not ok 4 - exported but still listed in $pending: $(echo $bad)"; fi
bad=$(grep '^hipsvmSim' "$tmp.sim" | grep -v ' hipsvm_sim_1$')
if [ -z "$bad" ]; then echo "ok 5 - hipsvmSim* under hipsvm_sim_1"; else echo "not ok 5 - $bad"; fi
