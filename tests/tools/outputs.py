#!/usr/bin/env python3
# outputs.py - output names under MPI and in batch jobs, as a user runs them
# (docs/cli.md, Output names): %p %h %r %e{VAR} in trace and report names, in
# the hipsvm command and in the shim; defaults unique per process; no report
# lost silently under --follow; an output that cannot be written fails the
# run. TAP output.
#
# Environment (tests/tools/meson.build): HIPSVM, EXAMPLE_managed_saxpy,
# HIPSVM_TEST_BUILDDIR. The runs need the real shim and the simulator.
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID")
CLEAN = ("HIPSVM_SHIM_PATH", "HIPSVM_SIM_DIR", "HIPSVM_REPORT", "HIPSVM_TRACE", "LD_PRELOAD",
         "LD_LIBRARY_PATH", "HIPSVM_POLICY") + RANK_VARS


def valid_json(path):
    try:
        with open(path) as f:
            json.load(f)
        return True
    except (OSError, ValueError):
        return False


def main(t):
    hipsvm = os.environ["HIPSVM"]
    ex = os.environ.get("EXAMPLE_managed_saxpy", "")
    build = os.environ["HIPSVM_TEST_BUILDDIR"]
    host = socket.gethostname().split(".")[0]
    w = tempfile.mkdtemp(prefix="hipsvm-outputs.")
    try:
        # Checked before anything runs: no example needed.
        r = t.run(hipsvm, "trace", "-o", f"{w}/x.%e.json", "--", "true", unset=CLEAN)
        t.ok(r.rc == 2 and r.one_error_line() and "%e{" in r.err,
             "trace -o with a %e that names no variable: exit 2 before running")
        if not (ex and os.access(ex, os.X_OK)):
            for d in ("trace -o %r.%h.%p from Open MPI's rank", "two ranks, default trace names",
                      "run --report %e{VAR}.%r from Slurm", "the shim's own names",
                      "--follow --report without %p", "an unsaved report exits 1",
                      "an unwritten trace exits 1", "run --trace FILE twice"):
                t.skip(d, "the examples are not built (hipcc)")
            return t.done()

        r = t.run(hipsvm, "trace", "-q", "-o", f"{w}/t.%r.%h.%p.json", "--", ex,
                  env={"OMPI_COMM_WORLD_RANK": "3"}, unset=CLEAN)
        got = glob.glob(f"{w}/t.3.{host}.*.json")
        t.ok(r.rc == 0 and len(got) == 1 and valid_json(got[0]) and
             got[0].rsplit(".", 2)[-2].isdigit(),
             "trace -o %r.%h.%p: rank from OMPI_COMM_WORLD_RANK, host, program's pid",
             f"{r.describe()}\nfiles: {os.listdir(w)}")

        # mpirun -np 2 in one directory: both ranks start at once, default name.
        d2 = os.path.join(w, "np2")
        os.mkdir(d2)
        env = dict(os.environ)
        for k in CLEAN:
            env.pop(k, None)
        procs = [subprocess.Popen([hipsvm, "trace", "-q", "--", ex], cwd=d2,
                                  env=dict(env, PMI_RANK=str(i)), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for i in range(2)]
        rcs = [p.wait(timeout=240) for p in procs]
        got = sorted(glob.glob(f"{d2}/hipsvm-trace.{host}.*.json"))
        t.ok(rcs == [0, 0] and len(got) == 2 and all(map(valid_json, got)),
             "two ranks at once, default trace name: one whole trace each",
             f"rcs={rcs} files={os.listdir(d2)}")

        r = t.run(hipsvm, "run", "-q", "--report", f"{w}/r.%e{{JOB}}.%r.json", "--", ex,
                  env={"SLURM_PROCID": "2", "JOB": "77"}, unset=CLEAN)
        t.ok(r.rc == 0 and valid_json(f"{w}/r.77.2.json"),
             "run --report r.%e{JOB}.%r.json: variable and Slurm rank",
             f"{r.describe()}\nfiles: {os.listdir(w)}")

        # The shim alone, as a batch script would preload it.
        shim = os.path.join(build, "preload", "libhipsvm.so")
        sim = os.path.join(build, "sim")
        r = t.run(ex, env={"LD_PRELOAD": shim, "LD_LIBRARY_PATH": sim, "PMIX_RANK": "5",
                           "JOB": "j1", "HIPSVM_REPORT": f"{w}/s.%r.%p.json",
                           "HIPSVM_TRACE": f"{w}/s.%e{{JOB}}.%h.jsonl"}, unset=CLEAN)
        reps = glob.glob(f"{w}/s.5.*.json")
        t.ok(r.rc == 0 and len(reps) == 1 and valid_json(reps[0]) and
             os.path.getsize(f"{w}/s.j1.{host}.jsonl") > 0,
             "the shim: HIPSVM_REPORT with %r (PMIx) and %p, HIPSVM_TRACE with %e and %h",
             f"{r.describe()}\nfiles: {os.listdir(w)}")

        # --follow: the program's children report; the name has no %p.
        d3 = os.path.join(w, "follow")
        os.mkdir(d3)
        r = t.run(hipsvm, "run", "--follow", "-q", "--report", f"{d3}/f.json", "--", "sh", "-c",
                  f"'{ex}' >/dev/null; '{ex}' >/dev/null", unset=CLEAN)
        got = sorted(glob.glob(f"{d3}/f.*.json"))
        t.ok(r.rc == 0 and len(got) == 2 and all(map(valid_json, got)) and "has no %p" in r.err,
             "--follow --report FILE without %p: each child's report saved (FILE.<pid>.json), said",
             f"{r.describe()}\nfiles: {os.listdir(d3)}")

        r = t.run(hipsvm, "run", "-q", "--report", f"{w}/no/such/dir/r.json", "--", ex,
                  unset=CLEAN)
        t.ok(r.rc == 1 and "cannot write the report" in r.err,
             "a report that cannot be saved: exit 1 although the program succeeded")
        r = t.run(hipsvm, "trace", "-q", "-o", f"{w}/no/such/dir/t.json", "--", ex, unset=CLEAN)
        t.ok(r.rc == 1 and "no/such/dir" in r.err,
             "a trace that cannot be written: exit 1 although the program succeeded")

        # A second run with the same --trace name: its events are its own,
        # not appended to the first run's.
        ev = f"{w}/events.jsonl"
        counts = []
        for _ in range(2):
            r = t.run(hipsvm, "run", "-q", "--trace", ev, "--", ex, unset=CLEAN)
            with open(ev) as f:
                counts.append(sum('"ev":"alloc"' in line for line in f))
        t.ok(r.rc == 0 and counts[0] > 0 and counts[1] == counts[0],
             "run --trace FILE twice: the second run's events replace the first's",
             f"alloc events after each run: {counts}\n{r.describe()}")
        return t.done()
    finally:
        shutil.rmtree(w, ignore_errors=True)


if __name__ == "__main__":
    tap.main(main)
