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
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import joblib  # noqa: E402
from joblib import RANKS, check_job_view, check_ranks, free_port, run  # noqa: E402
import tap  # noqa: E402

NODE = "hipsvm0"
UP_TIMEOUT = 90        # slurmctld and slurmd registered, the node idle
STOP_GRACE = 15

CONF = """ClusterName=hipsvmtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SrunPortRange={srun_lo}-{srun_hi}
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName={node} NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=8 RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes={node} Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4
"""


def in_own_netns():
    """Runs this script again inside a new network namespace, once."""
    if os.environ.get("HIPSVM_JOBS_NETNS") == "1":
        # getaddrinfo(AI_ADDRCONFIG), as Slurm calls it, finds no IPv4 with
        # 127.0.0.1 alone: one more address on lo, also in the namespace only
        return all(subprocess.run(c).returncode == 0 for c in (
            ["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", "10.254.254.1/32", "dev", "lo"]))
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    env = dict(os.environ, HIPSVM_JOBS_NETNS="1")
    sys.stdout.flush()
    try:
        os.execvpe("unshare", ["unshare", "--net", sys.executable] + sys.argv, env)
    except OSError:
        return False


class Cluster:
    def __init__(self, d, env):
        self.d, self.env, self.procs = d, env, []
        os.makedirs(f"{d}/state")
        os.makedirs(f"{d}/spool")
        lo = free_port()
        with open(f"{d}/slurm.conf", "w") as f:
            f.write(CONF.format(d=d, node=NODE, ctld_port=free_port(), d_port=free_port(),
                                srun_lo=lo, srun_hi=lo + 20 if lo + 20 < 65536 else 65535))
        self.env["SLURM_CONF"] = f"{d}/slurm.conf"

    def start(self):
        for argv, log in ((["slurmctld", "-D", "-i", "-f", self.env["SLURM_CONF"]], "ctld.out"),
                          (["slurmd", "-D", "-N", NODE, "-f", self.env["SLURM_CONF"]], "d.out")):
            with open(f"{self.d}/{log}", "w") as out:
                self.procs.append(subprocess.Popen(argv, env=self.env, stdout=out,
                                                   stderr=subprocess.STDOUT,
                                                   stdin=subprocess.DEVNULL,
                                                   start_new_session=True))
        t0 = time.monotonic()
        while time.monotonic() - t0 < UP_TIMEOUT:
            if any(p.poll() is not None for p in self.procs):
                return False
            r = run(["sinfo", "-h", "-N", "-o", "%T"], self.env, self.d, timeout=20)
            if r.rc == 0 and r.out.strip() in ("idle", "idle*") and "*" not in r.out:
                return True
            time.sleep(0.5)
        return False

    def logs(self):
        out = []
        for name in ("ctld.out", "d.out", "slurmctld.log", "slurmd.log"):
            try:
                with open(f"{self.d}/{name}") as f:
                    out += [f"{name}: {ln}" for ln in f.read().splitlines()[-8:]]
            except OSError:
                pass
        return "\n".join(out)

    def stop(self):
        """SIGTERM, then SIGKILL to whatever is left of each daemon's group."""
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in self.procs:
            try:
                p.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                pass
        return all(p.poll() is not None for p in self.procs)


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
            r = run(argv, cl.env, w)
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
