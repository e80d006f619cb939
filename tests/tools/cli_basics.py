#!/usr/bin/env python3
# cli_basics.py - the hipsvm command as a user starts it: help, usage errors
# and option parsing, exit codes, and run/trace plumbing under a stand-in
# shim (FAKE_SHIM copies fixture files to HIPSVM_REPORT / HIPSVM_TRACE at
# exit, as the shim writes them). TAP output.
#
# Environment (tests/tools/meson.build): HIPSVM, FAKE_SHIM,
# HIPSVM_TEST_SRCDIR, HIPSVM_TEST_BUILDDIR.
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402
from tap import get, load_json  # noqa: E402


def basics(t, H, w):
    r = t.run(H, "--version")
    t.ok(r.rc == 0 and r.out.startswith("hipsvm ") and r.out[7:8].isdigit(),
         "--version prints the version")
    r = t.run(H, "--help")
    t.ok(r.rc == 0 and all(c in r.out for c in ("run", "trace", "check")), "--help lists the commands")
    for c in ("run", "trace", "report", "check", "options"):
        r = t.run(H, c, "--help")
        t.ok(r.rc == 0 and f"Usage: hipsvm {c}" in r.out, f"{c} --help")
    r = t.run(H, "help", "check")
    t.ok(r.rc == 0 and "Usage: hipsvm check" in r.out, "help COMMAND")
    r = t.run(H)
    t.ok(r.rc == 2 and r.one_error_line(), "no command: usage error, one line")
    r = t.run(H, "frobnicate")
    t.ok(r.rc == 2 and r.one_error_line() and "frobnicate" in r.err,
         "unknown command: exit 2, one line")
    r = t.run(H, "run", "--bogus", "--", "true")
    t.ok(r.rc == 2 and r.one_error_line() and "--bogus" in r.err, "run: unknown option: exit 2, one line")
    r = t.run(H, "run", "--polcy", "default", "--", "true")
    t.ok(r.rc == 2 and r.one_error_line() and "did you mean '--policy'" in r.err,
         "run: a misspelt option gets a suggestion")
    r = t.run(H, "rnu")
    t.ok(r.rc == 2 and r.one_error_line() and "did you mean 'run'" in r.err,
         "a misspelt command gets a suggestion")
    r = t.run(H, "run", "--s", "--", "true")
    t.ok(r.rc == 2 and r.one_error_line() and "ambiguous" in r.err,
         "run: an ambiguous abbreviation is refused")
    r = t.run(H, "run", "--gpus", "0", "--", "true")
    t.ok(r.rc == 2 and r.one_error_line(), "run --gpus 0: exit 2")
    r = t.run(H, "run", "--policy", "nonsense", "--", "true")
    t.ok(r.rc == 2 and r.one_error_line() and "nonsense" in r.err,
         "run --policy with a bad policy: exit 2")
    r = t.run(H, "run", "--env", "NOEQUALS", "--", "true")
    t.ok(r.rc == 2 and r.one_error_line(), "run --env without =: exit 2")
    r = t.run(H, "run")
    t.ok(r.rc == 2 and r.one_error_line(), "run without a program: exit 2")
    r = t.run(H, "run", "--", f"{w}/no/such/program")
    t.ok(r.rc == 127 and r.one_error_line(), "run a missing program: exit 127")
    r = t.run(H, "run", "--", "hipsvm-no-such-command-xyz")
    t.ok(r.rc == 127 and "command not found" in r.err,
         "run an unknown command: exit 127, command not found")
    with open(f"{w}/plain.txt", "w") as f:
        f.write("not a program\n")
    r = t.run(H, "run", "--", f"{w}/plain.txt")
    t.ok(r.rc == 126 and r.one_error_line(), "run a file that is not executable: exit 126")


def plumbing(t, H, w, fix, build):
    fake = {"HIPSVM_SHIM_PATH": os.environ["FAKE_SHIM"]}
    r = t.run(H, "run", "--no-sim", "--", "sh", "-c", "exit 0", env=fake)
    t.ok(r.rc == 0, "run: exit 0 passes through")
    r = t.run(H, "run", "--no-sim", "--", "sh", "-c", "exit 3", env=fake)
    t.ok(r.rc == 3, "run: exit 3 passes through")
    r = t.run(H, "run", "--no-sim", "--", "sh", "-c", "kill -SEGV $$", env=fake)
    t.ok(r.rc == 139 and "signal 11 (SIGSEGV)" in r.err, "run: death by SIGSEGV gives 139 and says so")
    r = t.run(H, "run", "--no-sim", "--", "sh", "-c", "kill -TERM $$", env=fake)
    t.ok(r.rc == 143, "run: death by SIGTERM gives 143")
    p = subprocess.Popen([H, "run", "--no-sim", "--", "sleep", "5"], env=dict(t.base, **fake),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    t.ok(p.returncode == 143 and b"SIGTERM" in err,
         "run: a SIGTERM to hipsvm goes to the program, which dies of it (143)",
         f"rc={p.returncode}\n{err.decode(errors='replace')}")
    show = 'echo "gpus=$HIPSVM_SIM_GPUS policy=$HIPSVM_POLICY"'
    r = t.run(H, "run", "--no-sim", "-q", "--gpus=3", "--pol", "oversubscribe", "--", "sh", "-c",
              show, env=fake)
    t.ok(r.rc == 0 and "gpus=3 policy=oversubscribe" in r.out,
         "run: unambiguous abbreviations and --opt=value, as getopt_long")
    r = t.run(H, "run", "--no-sim", "-q", "--gpu", "3", "--", "true", env=fake)
    t.ok(r.rc == 2 and r.one_error_line() and "did you mean '--gpus'" in r.err,
         "run: --gpu is not taken for --gpus (a plural's singular reads as another option)")
    r = t.run(H, "run", "--no-sim", "-qg2", "-fp", "oversubscribe", "--", "sh", "-c",
              'echo "gpus=$HIPSVM_SIM_GPUS policy=$HIPSVM_POLICY inherit=$HIPSVM_INHERIT"',
              env=fake)
    t.ok(r.rc == 0 and "gpus=2 policy=oversubscribe inherit=1" in r.out,
         "run: bundled short options (-qg2 -fp P), as getopt_long")
    r = t.run(H, "run", "--no-sim", "--quiet=yes", "--", "true", env=fake)
    t.ok(r.rc == 2 and r.one_error_line() and "takes no value" in r.err,
         "run: a value given to a flag is a usage error")
    r = t.run(H, "run", "--no-sim", "-g", env=fake)
    t.ok(r.rc == 2 and r.one_error_line() and "needs a value" in r.err,
         "run -g without its value: exit 2, one line")
    r = t.run(H, "run", "--no-sim", "-q", "--policy", "oversubscribe", "--gpus", "2", "--hook",
              "none", "--env", "FOO=bar", "-e", "HIPSVM_DRAIN_TIMEOUT_MS=5", "--", "sh", "-c",
              'echo "policy=$HIPSVM_POLICY gpus=$HIPSVM_SIM_GPUS hook=$HIPSVM_HOOK foo=$FOO '
              'dt=$HIPSVM_DRAIN_TIMEOUT_MS shimvar=${HIPSVM_SHIM_PATH-unset}"; '
              'echo "preload=$LD_PRELOAD"; echo "report=$HIPSVM_REPORT"; '
              'echo "simquiet=$HIPSVM_SIM_QUIET"', env=fake)
    t.ok(r.rc == 0 and "policy=oversubscribe gpus=2 hook=none foo=bar dt=5 shimvar=unset" in r.out
         and f"preload={fake['HIPSVM_SHIM_PATH']}" in r.out and "/report.%p.json" in r.out,
         "run: options become the shim's environment")
    t.ok("simquiet=1" in r.out, "run -q: the simulator is quiet too (HIPSVM_SIM_QUIET=1)")
    r = t.run(H, "run", "--no-sim", "-q", "--", f"{build}/tools/hipsvm", "options", env=fake)
    t.ok(r.rc == 0 and "unknown variable" not in r.err,
         "run: tool-only variables do not reach the shim's option table")
    os.makedirs(f"{w}/simdir", exist_ok=True)
    open(f"{w}/simdir/libamdhip64.so.5", "w").close()
    r = t.run(H, "run", "--sim", "-q", "--", "sh", "-c", 'echo "llp=$LD_LIBRARY_PATH"',
              env=dict(fake, HIPSVM_SIM_DIR=f"{w}/simdir", LD_LIBRARY_PATH="/old"))
    t.ok(r.rc == 0 and f"llp={w}/simdir:/old" in r.out,
         "run --sim: the simulator's directory goes first in LD_LIBRARY_PATH")
    r = t.run(H, "run", "--sim", "--", "true", env=dict(fake, HIPSVM_SIM_DIR=f"{w}/nosim"))
    t.ok(r.rc == 125 and "simulated runtime" in r.err and "looked for" in r.err,
         "run --sim without a simulator: exit 125, says where it looked")
    r = t.run(H, "run", "--no-sim", "--", "true", env={"HIPSVM_SHIM_PATH": f"{w}/nope.so"})
    t.ok(r.rc == 125 and "cannot find the shim" in r.err and "HIPSVM_SHIM_PATH" in r.err,
         "run without a shim: exit 125, says where it looked")
    # (dash leaves with _exit, so the stand-in shim's destructor would not
    # run in sh: the program here is hipsvm itself, failing with status 2.)
    env = dict(fake, FAKESHIM_REPORT=f"{fix}/report_full.json")
    r = t.run(H, "run", "--no-sim", "--report", f"{w}/saved.%p.json", "--", H, "report",
              f"{w}/nothing.json", env=env)
    saved = glob.glob(f"{w}/saved.*.json")
    t.ok(r.rc == 2 and "exited with status 2" in r.err and
         "hipsvm report for /opt/demo/unmap_race" in r.err and "host_context" in r.err and
         saved and open(saved[0]).read() == open(f"{fix}/report_full.json").read(),
         "run: the report is rendered on stderr, saved with %p, and the status kept")
    r = t.run(H, "run", "--no-sim", "-o", f"{w}/text.txt", "--", H, "report", f"{w}/nothing.json",
              env=env)
    text = open(f"{w}/text.txt").read() if os.path.exists(f"{w}/text.txt") else ""
    t.ok(r.rc == 2 and "hipsvm report for /opt/demo/unmap_race" in text and
         "exited with status 2" in text and "hipsvm report for" not in r.err,
         "run -o FILE: the text report goes to FILE, not stderr")
    r = t.run(H, "run", "--no-sim", "-o", f"{w}/no/dir/text.txt", "--", "sh", "-c",
              f"touch '{w}/ran'", env=env)
    t.ok(r.rc == 1 and r.one_error_line() and not os.path.exists(f"{w}/ran"),
         "run -o into a missing directory: exit 1 before the program runs")
    os.makedirs(f"{w}/bin", exist_ok=True)
    shutil.copy(H, f"{w}/bin/hipsvm")
    r = t.run(f"{w}/bin/hipsvm", "run", "--no-sim", "--", "true")
    t.ok((r.rc == 0 or (r.rc == 125 and "looked for the shim in: $HIPSVM_SHIM_PATH, /" in r.err))
         and "/preload/" not in r.err,
         "run: a copy outside a build tree looks at the install paths")
    r = t.run(H, "run", "--no-sim", "-q", "--", "true", env=env)
    t.ok(r.rc == 0 and "hipsvm report" not in r.err, "run -q: no report on stderr")
    r = t.run(H, "run", "--no-sim", "--", "true", env=fake)
    t.ok(r.rc == 0 and "no report from the shim" in r.err and "hipsvm check" in r.err,
         "run: a program the shim writes no report for is explained")
    env = dict(fake, FAKESHIM_REPORT=f"{fix}/report_full.json",
               FAKESHIM_EVENTS=f"{fix}/events_basic.jsonl")
    r = t.run(H, "trace", "--no-sim", "-q", "-o", f"{w}/t1.json", "--", "true", env=env)
    doc = load_json(f"{w}/t1.json")
    t.ok(r.rc == 0 and isinstance(get(doc, "traceEvents"), list),
         "trace -- PROGRAM: writes a trace that parses")
    t.ok(any(get(e, "args.name") == "hipsvm: /opt/demo/unmap_race"
             for e in get(doc, "traceEvents", []) or []),
         "trace -- PROGRAM: the process is named after the program")
    r = t.run(H, "run", "--no-sim", "-q", "--trace", f"{w}/raw.%p.jsonl", "--", "true",
              env=dict(fake, FAKESHIM_EVENTS=f"{fix}/events_basic.jsonl"))
    raw = glob.glob(f"{w}/raw.*.jsonl")
    t.ok(r.rc == 0 and raw and open(raw[0]).read() == open(f"{fix}/events_basic.jsonl").read(),
         "run --trace FILE: raw events saved (%p expanded)")


def main(t):
    H = os.environ["HIPSVM"]
    fix = os.path.join(os.environ["HIPSVM_TEST_SRCDIR"], "tests", "tools", "fixtures")
    build = os.environ["HIPSVM_TEST_BUILDDIR"]
    w = tempfile.mkdtemp(prefix="hipsvm-cli-test.")
    try:
        basics(t, H, w)
        plumbing(t, H, w, fix, build)
    finally:
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    tap.main(main)
