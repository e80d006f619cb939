#!/usr/bin/env python3
# mpirun.py - jobs / mpirun: a 4-rank Open MPI job of a HIP + MPI program
# under hipsvm run on the simulator, each rank given its own GPUs by the site
# wrapper examples/gpus_per_rank.sh; then the job view of its reports.
#
# Environment (tests/jobs/meson.build): HIPSVM, MPI_GPUS (the program),
# GPU_WRAP (the wrapper), HIPSVM_TEST_BUILDDIR.
import os
import shutil
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import joblib  # noqa: E402
from joblib import RANKS, check_job_view, check_ranks, run  # noqa: E402
import tap  # noqa: E402

# Open MPI as root, more ranks than cores, shared memory only (ob1: the UCX
# PML is tests/jobs/ucx.py's)
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "-np", str(RANKS), "--mca", "pml", "ob1", "--mca", "btl", "self,vader"]


def host():
    return socket.gethostname().split(".")[0]


def main(t):
    H, prog, wrap = os.environ["HIPSVM"], os.environ["MPI_GPUS"], os.environ["GPU_WRAP"]
    if not shutil.which("mpirun"):
        t.skip("jobs / mpirun", "mpirun not installed (scripts/packages.txt: openmpi-bin)")
        return t.done()
    env = joblib.base_env()
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    w = tempfile.mkdtemp(prefix="hipsvm-mpirun.")
    try:
        d = f"{w}/job"
        os.mkdir(d)
        argv = MPIRUN + ["-x", "GPUS_PER_RANK=2", "-x", "HIPSVM_SIM_QUIET", wrap, H, "run", "-q",
                         "-g", "8", "-r", f"{d}/rep.%h.%r.json", "-t", f"{d}/trace.%h.%r.jsonl",
                         "--", prog, "--gpus", "2"]
        r = run(argv, env, w)
        oks = [ln for ln in r.out.splitlines() if ln.endswith(" ok")]
        t.ok(r.rc == 0 and len(oks) == RANKS,
             f"mpirun -np {RANKS}: every rank saw its GPUs, exchanged through MPI, checked "
             f"its results ({r.secs:.1f} s)", r.describe())
        check_ranks(t, "mpirun", d, prog, 2, "HIP_VISIBLE_DEVICES", host())
        check_job_view(t, H, "mpirun", d, env)
        r2 = run([H, "report", "--html", f"{w}/job.html", d], env, w, timeout=60)
        page = open(f"{w}/job.html").read() if os.path.exists(f"{w}/job.html") else ""
        t.ok(r2.rc == 0 and page.count("<svg") == 8 and "<script" not in page and
             page.count("<rect class=") == 8 * RANKS,
             "report --html DIR: one chart per measure, a bar per rank, no script", r2.describe())

        # Without the wrapper every rank is given the same GPU: each rank
        # sees another's uuid (the simulator honours the list as ROCm does),
        # and the job view says so.
        d2 = f"{w}/shared"
        os.mkdir(d2)
        argv = MPIRUN + ["-x", "HIP_VISIBLE_DEVICES=3", H, "run", "-q", "-g", "4",
                         "-r", f"{d2}/rep.%h.%r.json", "--", prog, "--gpus", "1"]
        r = run(argv, env, w)
        t.ok(r.rc != 0 and "is also node rank" in r.err,
             "mpirun with one GPU for all: the ranks find their GPU shared and fail", r.describe())
        r = run([H, "report", d2], env, w, timeout=60)
        t.ok(r.rc == 0 and "were both given GPU 3" in r.out,
             "the job view of that run says which ranks shared a GPU", r.describe())
    finally:
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


tap.main(main)
