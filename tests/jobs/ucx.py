#!/usr/bin/env python3
# ucx.py - jobs / ucx: UCX's memory hooks beside the shim's. A 4-rank Open
# MPI job with the UCX PML and UCX memory events on, in each of UCX's hook
# modes (reloc, bistro), with UCX's malloc hooks on and off, and with the
# shim preloaded before and after UCX's libucm: every unmap of GPU-visible
# memory must still be coordinated by the shim (its report and trace) and
# still reach UCX (the VM_UNMAPPED events each rank's handler was given;
# mpi_gpus.hip --ucx). docs/limits.md says what happens in each mode.
#
# Environment (tests/jobs/meson.build): HIPSVM, MPI_GPUS, GPU_WRAP,
# HIPSVM_TEST_BUILDDIR.
import glob
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import joblib  # noqa: E402
from joblib import RANKS, load, note, run, trace_events  # noqa: E402
import tap  # noqa: E402

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "-np", str(RANKS), "--mca", "pml", "ucx",
          # the PML takes shared memory and TCP too (by default it wants an
          # InfiniBand device and stands aside)
          "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any",
          "--mca", "btl", "^openib,uct", "--mca", "osc", "^ucx"]


def ucx_events(path):
    ev, own = [], []
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 3 and p[0] == "own":
                    own.append((int(p[1], 16), int(p[2], 16)))
                elif len(p) == 2:
                    ev.append((int(p[0], 16), int(p[1], 16)))
    except (OSError, ValueError):
        pass
    return ev, own


def covered(ev, a, n):
    return any(s <= a and a + n <= s + m for s, m in ev)


def check(t, what, d):
    good, lines = True, []
    reps = sorted(glob.glob(f"{d}/rep.*.json"))
    if len(reps) != RANKS:
        good = False
        lines.append(f"{len(reps)} reports")
    for p in reps:
        r = load(p) or {}
        k = r.get("rank", "?")
        um = r.get("unmaps", {})
        un = [e for e in trace_events(p.replace("/rep.", "/trace.").replace(".json", ".jsonl"))
              if e.get("ev") == "unmap"]
        ev, own = ucx_events(f"{d}/ucx.{k}.txt")
        shim = [(int(e["addr"], 16), e["len"]) for e in un]
        missed = [(hex(a), n) for a, n in shim + own if not covered(ev, a, n)]
        if (um.get("coordinated", 0) < 4 or um.get("uncoordinated", 1) != 0 or
                len(un) != um.get("coordinated") or not all(e.get("coordinated") for e in un) or
                len(own) != 2 or missed or not all(covered([(a, n) for a, n in shim], a, n)
                                                   for a, n in own)):
            good = False
            lines.append(f"rank {k}: unmaps {um}, {len(un)} unmap events, {len(ev)} UCX events; "
                         f"not seen by UCX: {missed}")
    return good, "\n".join(lines)


def main(t):
    H, prog, wrap = os.environ["HIPSVM"], os.environ["MPI_GPUS"], os.environ["GPU_WRAP"]
    shim = os.path.join(os.environ["HIPSVM_TEST_BUILDDIR"], "preload", "libhipsvm.so")
    if not shutil.which("mpirun"):
        t.skip("jobs / ucx", "mpirun not installed (scripts/packages.txt: openmpi-bin)")
        return t.done()
    env = joblib.base_env()
    w = tempfile.mkdtemp(prefix="hipsvm-ucx.")
    try:
        n = 0
        for mode in ("reloc", "bistro"):
            for malloc_hooks in ("yes", "no"):
                for order in ("shim first", "UCX first"):
                    n += 1
                    d = f"{w}/{n}"
                    os.mkdir(d)
                    pre = [] if order == "shim first" else ["-e", f"LD_PRELOAD=libucm.so.0:{shim}"]
                    argv = MPIRUN + ["-x", "UCX_MEM_EVENTS=yes", "-x", f"UCX_MEM_MMAP_HOOK_MODE={mode}",
                                     "-x", f"UCX_MEM_MALLOC_HOOKS={malloc_hooks}", "-x",
                                     "GPUS_PER_RANK=1", wrap, H, "run", "-q", "-g", "4"] + pre + [
                        "-r", f"{d}/rep.%h.%r.json", "-t", f"{d}/trace.%h.%r.jsonl", "--", prog,
                        "--gpus", "1", "--ucx", f"{d}/ucx.%r.txt"]
                    what = f"UCX {mode}, malloc hooks {malloc_hooks}, {order}"
                    r = run(argv, env, w)
                    oks = [ln for ln in r.out.splitlines() if ln.endswith(" ok")]
                    if not t.ok(r.rc == 0 and len(oks) == RANKS,
                                f"{what}: the job ran and checked its results ({r.secs:.1f} s)",
                                r.describe()):
                        continue
                    good, why = check(t, what, d)
                    t.ok(good, f"{what}: every unmap of GPU-visible memory coordinated by the "
                         "shim and seen by UCX", why)
                    if not good:
                        note(r.err[-2000:])
    finally:
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


tap.main(main)
