#!/usr/bin/env python3
# srun.py - jobs / srun: the same 4-rank job under srun -n 4 of a one-node
# Slurm cluster (slurmctld + slurmd) that the test starts and always stops.
#
# The cluster runs in a network namespace of its own (unshare --net: only a
# loopback device), so that its ports, chosen free by the kernel, are on
# 127.0.0.1 and nobody else's: auth/none is then safe, and nothing is left
# listening even if the test is killed (the namespace goes with its last
# process). Everything it writes is in a temporary directory.
#
# Environment (tests/jobs/meson.build): HIPSVM, MPI_GPUS, GPU_WRAP.
import os
import shutil
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import joblib  # noqa: E402
from joblib import RANKS, Cluster, check_job_view, check_ranks, in_own_netns  # noqa: E402
import tap  # noqa: E402

def main(t):
    H, prog, wrap = os.environ["HIPSVM"], os.environ["MPI_GPUS"], os.environ["GPU_WRAP"]
    missing = [b for b in ("slurmctld", "slurmd", "srun", "sinfo") if not shutil.which(b)]
    if missing:
        t.skip("jobs / srun", f"{', '.join(missing)} not installed (scripts/packages.txt: slurm-wlm)")
        return t.done()
    if os.geteuid() != 0:
        t.skip("jobs / srun", "a one-node cluster of slurmd needs root here")
        return t.done()
    if not in_own_netns():
        t.skip("jobs / srun", "no network namespace of its own (unshare --net): the cluster's "
               "ports would be open to the machine")
        return t.done()
    joblib.stop_on_sigterm()
    w = tempfile.mkdtemp(prefix="hipsvm-srun.")
    env = joblib.base_env()
    env["OMPI_MCA_btl"] = "self,vader"     # a comma: not in --export's list
    cl = Cluster(f"{w}/slurm", env)
    try:
        up = cl.start()
        t.ok(up, "a one-node Slurm cluster (slurmctld, slurmd) came up on loopback ports",
             cl.logs())
        if up:
            d = f"{w}/job"
            os.mkdir(d)
            # ROCr's variable this time: the wrapper as a site sets it for srun
            argv = ["srun", "-n", str(RANKS), "--mpi=pmix", "-t", "5", "-K",
                    "--export=ALL,GPUS_PER_RANK=2,GPU_VAR=ROCR_VISIBLE_DEVICES,OMPI_MCA_pml=ob1",
                    wrap, H, "run", "-q", "-g", "8", "-r", f"{d}/rep.%h.%r.json",
                    "-t", f"{d}/trace.%h.%r.jsonl", "--", prog, "--gpus", "2"]
            r = cl.srun(argv, w)
            oks = [ln for ln in r.out.splitlines() if ln.endswith(" ok")]
            t.ok(r.rc == 0 and len(oks) == RANKS,
                 f"srun -n {RANKS}: every rank saw its GPUs, exchanged through MPI, checked its "
                 f"results ({r.secs:.1f} s)", r.describe() + "\n" + cl.logs())
            check_ranks(t, "srun", d, prog, 2, "ROCR_VISIBLE_DEVICES", socket.gethostname().split(".")[0])
            check_job_view(t, H, "srun", d, env)
    finally:
        stopped = cl.stop()
        t.ok(stopped, "the cluster's daemons were stopped")
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


tap.main(main)
