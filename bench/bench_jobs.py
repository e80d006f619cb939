#!/usr/bin/env python3
# bench_jobs.py - wall time of the 4-rank jobs of tests/jobs with and without
# the shim, alternated in one run so that the machine's load falls on both.
#
#   python3 bench/bench_jobs.py [--rounds N] [--srun] [--ucx]
#
# Variants, every one the same program (tests/jobs/mpi_gpus: 4 ranks, 2
# simulated GPUs each) on the simulator, through the site wrapper:
#   bare      the simulator only (LD_LIBRARY_PATH), no shim
#   preload   the shim by LD_PRELOAD, report and trace per rank (%r)
#   hipsvm    hipsvm run -q -r ... -t ... (what tests/jobs runs)
# for mpirun (Open MPI, ob1), with --ucx also mpirun with the UCX PML (UCX
# memory events on, its default bistro mode), and with --srun also srun on a
# one-node Slurm cluster started here (as jobs / srun does; root). Prints the
# median, min and max per variant and the median of the paired differences
# against bare (each round runs every variant once, in a rotating order).
import os
import resource
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "tests", "jobs"))
import joblib  # noqa: E402

BUILD = os.environ.get("HIPSVM_BUILD", os.path.join(SRC, "build"))
H = os.path.join(BUILD, "tools", "hipsvm")
PROG = os.path.join(BUILD, "tests", "jobs", "mpi_gpus")
SHIM = os.path.join(BUILD, "preload", "libhipsvm.so")
SIM = os.path.join(BUILD, "sim")
WRAP = os.path.join(SRC, "examples", "gpus_per_rank.sh")
OB1 = ["--mca", "pml", "ob1", "--mca", "btl", "self,vader"]
UCX = ["--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any",
       "--mca", "btl", "^openib,uct", "--mca", "osc", "^ucx", "-x", "UCX_MEM_EVENTS=yes"]


def program(variant, d):
    if variant == "bare":
        return ["env", f"LD_LIBRARY_PATH={SIM}", "HIPSVM_SIM_GPUS=8", PROG, "--gpus", "2"]
    if variant == "preload":
        return ["env", f"LD_LIBRARY_PATH={SIM}", "HIPSVM_SIM_GPUS=8", f"LD_PRELOAD={SHIM}",
                f"HIPSVM_REPORT={d}/rep.%r.json", f"HIPSVM_TRACE={d}/trace.%r.jsonl", PROG,
                "--gpus", "2"]
    return [H, "run", "-q", "-g", "8", "-r", f"{d}/rep.%r.json", "-t", f"{d}/trace.%r.jsonl", "--",
            PROG, "--gpus", "2"]


def launcher(kind):
    n = str(joblib.RANKS)
    if kind == "srun":
        return ["srun", "-n", n, "--mpi=pmix", "-t", "5", "-K",
                "--export=ALL,GPUS_PER_RANK=2,OMPI_MCA_pml=ob1"]
    # in the network namespace of --srun only loopback is there for mpirun's
    # own channel
    oob = ["--mca", "oob_tcp_if_include", "lo"] if os.environ.get("HIPSVM_JOBS_NETNS") else []
    return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", n] + (
        UCX if kind == "mpirun-ucx" else OB1) + oob + ["-x", "GPUS_PER_RANK=2"]


def main():
    rounds = 7
    if "--rounds" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1])
    kinds = ["mpirun"] + (["mpirun-ucx"] if "--ucx" in sys.argv else [])
    if "--srun" in sys.argv:
        if not joblib.in_own_netns():
            sys.exit("bench_jobs: --srun needs unshare --net (root)")
        kinds.append("srun")
    variants = ["bare", "preload", "hipsvm"]
    env = joblib.base_env()
    env["OMPI_MCA_btl"] = "self,vader"
    joblib.stop_on_sigterm()
    w = tempfile.mkdtemp(prefix="hipsvm-bench-jobs.")
    cl = None
    try:
        if "srun" in kinds:
            cl = joblib.Cluster(f"{w}/slurm", env)
            if not cl.start():
                sys.exit("bench_jobs: the Slurm cluster did not come up\n" + cl.logs())
        times = {(k, v): [] for k in kinds for v in variants}
        cpus = {(k, v): [] for k in kinds for v in variants}
        for r in range(rounds + 1):      # round 0 warms the caches, not counted
            for k in kinds:
                order = variants[r % 3:] + variants[:r % 3]
                for v in order:
                    d = f"{w}/{k}.{v}.{r}"
                    os.mkdir(d)
                    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    argv = launcher(k) + [WRAP] + program(v, d)
                    # srun: once the node is idle again (not timed), and again
                    # when Slurm says the node is not ready
                    res = cl.srun(argv, w) if k == "srun" else joblib.run(argv, env, w)
                    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
                    if res.rc != 0:
                        sys.exit(f"bench_jobs: {k} {v} failed:\n{res.describe()}")
                    if r:
                        times[(k, v)].append(res.secs)
                        cpus[(k, v)].append(cpu)
                    shutil.rmtree(d, ignore_errors=True)
        print(f"4-rank jobs, {rounds} rounds, wall time in s (median [min, max]); "
              "difference: median of the paired differences against bare; cpu: user+system s "
              "of the launcher and what it waited for (srun's ranks are slurmstepd's: not in it)")
        for k in kinds:
            base = times[(k, "bare")]
            for v in variants:
                t = times[(k, v)]
                diff = statistics.median(x - y for x, y in zip(t, base))
                c = cpus[(k, v)]
                print(f"  {k:<11} {v:<8} {statistics.median(t):6.3f} [{min(t):.3f}, {max(t):.3f}]"
                      + ("" if v == "bare" else
                         f"  {diff:+.3f} s ({100 * diff / statistics.median(base):+.1f}%)")
                      + f"  cpu {statistics.median(c):.3f}")
    finally:
        if cl:
            cl.stop()
        shutil.rmtree(w, ignore_errors=True)


main()
