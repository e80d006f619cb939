# joblib.py - what the launcher tests share: running a launcher with a bound
# and a clean end, reading what each rank left, and checking that nothing
# collided or was lost. Standard library only.
import ctypes
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import tap  # noqa: E402,F401  (drops a sanitizer preload, as in tests/tools)

RANKS = 4
# generous: a loaded 2-core machine runs 4 simulated ranks at a time
LAUNCH_TIMEOUT = 240


class Result:
    def __init__(self, argv, rc, out, err, secs):
        self.argv, self.rc, self.out, self.err, self.secs = argv, rc, out, err, secs

    def describe(self):
        lines = [f"command: {' '.join(map(str, self.argv))}", f"rc={self.rc}"]
        lines += ["stdout: " + s for s in self.out.splitlines()[:10]]
        lines += ["stderr: " + s for s in self.err.splitlines()[-14:]]
        return "\n".join(lines)


def note(msg):
    for line in str(msg).splitlines():
        print(f"# {line}", flush=True)


def run(argv, env, cwd, timeout=LAUNCH_TIMEOUT):
    """argv in its own process group; on timeout the whole group is killed,
    so that no rank outlives the test."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, text=True, errors="replace",
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, err = p.communicate()
        err += f"\n[timed out after {timeout} s: process group killed]"
        return Result(argv, -9, out, err, time.monotonic() - t0)
    return Result(argv, p.returncode, out, err, time.monotonic() - t0)


def kill_group(p, grace=10):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _die_with_parent():
    """In a daemon's child before exec: SIGKILL when the test dies, however
    it dies (meson's timeout, a SIGKILL): no daemon outlives it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def stop_on_sigterm():
    """SIGTERM (meson's timeout) ends the test through its finally: blocks."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def free_port():
    """A port nobody listens on now (the kernel's choice): never a fixed one."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env():
    env = {k: v for k, v in os.environ.items() if k not in tap.CLEAN and not k.startswith(
        ("OMPI_", "PMIX_", "SLURM_", "UCX_", "HIP_", "ROCR_", "CUDA_VISIBLE"))}
    env["NO_COLOR"] = "1"
    env["HIPSVM_SIM_QUIET"] = "1"
    return env


load = tap.load_json


def trace_events(path):
    evs = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    evs.append(json.loads(line))
                except ValueError:
                    evs.append({"ev": "BAD LINE"})
    except OSError:
        pass
    return evs


def check_ranks(t, what, d, prog, gpus_per_rank, var, host):
    """Each rank's report and trace, one of each, all there, each its own."""
    reps = sorted(glob.glob(f"{d}/rep.*.json"))
    traces = sorted(glob.glob(f"{d}/trace.*.jsonl"))
    t.ok(len(reps) == RANKS and len(traces) == RANKS,
         f"{what}: one report and one trace per rank ({len(reps)} reports, {len(traces)} traces)")
    docs = {}
    for p in reps:
        r = load(p)
        if r:
            docs[p] = r
    ranks = sorted(int(r.get("rank", "-1")) for r in docs.values() if r.get("rank", "").isdigit())
    t.ok(ranks == list(range(RANKS)), f"{what}: the reports are ranks 0..{RANKS - 1} ({ranks})")
    t.ok(all(os.path.basename(p) == f"rep.{host}.{r.get('rank')}.json" for p, r in docs.items()) and
         len({r.get("pid") for r in docs.values()}) == len(docs),
         f"{what}: %h and %r named each file after its own rank; every pid its own")
    ok_gpu = True
    for r in docs.values():
        k = int(r.get("rank", "0"))
        want = ",".join(str(k * gpus_per_rank + i) for i in range(gpus_per_rank))
        got = r.get("hip_visible_devices" if var == "HIP_VISIBLE_DEVICES" else "rocr_visible_devices")
        if got != want or len(r.get("devices", [])) != gpus_per_rank:
            ok_gpu = False
            note(f"rank {k}: {var}={got!r}, {len(r.get('devices', []))} devices; wanted {want}")
    t.ok(ok_gpu and docs, f"{what}: each rank was given {var} of its node-local rank and saw "
         f"{gpus_per_rank} simulated GPUs")
    good = True
    for p, r in docs.items():
        um = r.get("unmaps", {})
        evs = trace_events(p.replace("/rep.", "/trace.").replace(".json", ".jsonl"))
        un = [e for e in evs if e.get("ev") == "unmap"]
        allocs = [e for e in evs if e.get("ev") == "alloc"]
        n_alloc = sum(dv.get("allocations", 0) for dv in r.get("devices", []))
        # per GPU: hipHostMalloc and hipMallocManaged freed (runtime unmaps);
        # then the program's two unmaps of its registered mapping
        want_min = 2 * gpus_per_rank + 2
        if (r.get("program") != prog or r.get("runtime") != "sim" or
                um.get("uncoordinated", 1) != 0 or um.get("coordinated", 0) < want_min or
                len(un) != um.get("coordinated") or not all(e.get("coordinated") for e in un) or
                len(allocs) != n_alloc or any(e.get("ev") == "BAD LINE" for e in evs)):
            good = False
            note(f"{p}: program {r.get('program')}, unmaps {um}, {len(un)} unmap events, "
                   f"{len(allocs)} alloc events for {n_alloc} allocations")
    t.ok(good and docs, f"{what}: every rank's unmaps of GPU-visible memory coordinated, and its "
         "trace agrees with its report")
    return docs


def check_job_view(t, H, what, d, env):
    r = run([H, "report", d], env, d, timeout=60)
    t.ok(r.rc == 0 and f"hipsvm job report: {RANKS} ranks on 1 host" in r.out and
         "no rank missing or repeated" in r.out,
         f"{what}: hipsvm report DIR shows the job, nothing said against it", r.describe())
    r = run([H, "report", "-f", "json", d], env, d, timeout=60)
    try:
        j = json.loads(r.out)
    except ValueError:
        j = {}
    t.ok(j.get("reports") == RANKS and j.get("warnings") == [] and
         [x.get("rank") for x in j.get("ranks", [])] == [str(i) for i in range(RANKS)] and
         j.get("summary", {}).get("unmaps_uncoordinated", {}).get("total") == 0,
         f"{what}: the job as JSON: {RANKS} rows in rank order, no uncoordinated unmap", r.describe())


# ---- a one-node Slurm cluster (srun.py, bench/bench_jobs.py)

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
SlurmctldTimeout=120
SlurmdTimeout=300
MessageTimeout=60
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
                                                   start_new_session=True,
                                                   preexec_fn=_die_with_parent))
        return self.wait_idle()

    def wait_idle(self):
        """The node registered and idle (the last job's end completed)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < UP_TIMEOUT:
            if any(p.poll() is not None for p in self.procs):
                return False
            r = run(["sinfo", "-h", "-N", "-o", "%T"], self.env, self.d, timeout=60)
            if r.rc == 0 and r.out.strip() == "idle":
                return True
            time.sleep(0.5)
        return False

    def srun(self, argv, cwd, tries=3):
        """srun argv once the node is idle; again (after a wait for idle)
        when Slurm says the node is not ready, which a loaded machine sees
        when slurmd answers late: that is the cluster's state, not the job's."""
        for i in range(tries):
            self.wait_idle()
            r = run(argv, self.env, cwd)
            if r.rc == 0 or not any(m in r.err for m in (
                    "are still not ready", "Something is wrong with the boot", "Unable to contact")):
                return r
            note(f"srun: the node was not ready (try {i + 1} of {tries})")
        return r

    def logs(self):
        out = []
        for name in ("ctld.out", "d.out", "slurmctld.log", "slurmd.log"):
            try:
                with open(f"{self.d}/{name}") as f:
                    out += [f"{name}: {ln}" for ln in f.read().splitlines()[-8:]]
            except OSError:
                pass
        return "\n".join(out)

    def sweep(self):
        """SIGKILL to every other process of this network namespace: all of
        them are this test's (slurmstepd daemonizes out of slurmd's group and
        would wait for a slurmd that is gone). Only inside the namespace of
        in_own_netns(), never in the machine's."""
        if os.environ.get("HIPSVM_JOBS_NETNS") != "1":
            return
        mine = os.readlink("/proc/self/ns/net")
        keep = {os.getpid(), os.getppid()}
        for pid in (int(x) for x in os.listdir("/proc") if x.isdigit()):
            try:
                if pid not in keep and os.readlink(f"/proc/{pid}/ns/net") == mine:
                    os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def stop(self):
        """SIGTERM, then SIGKILL to whatever is left of each daemon's group,
        then to anything else left in the namespace."""
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
        self.sweep()
        return all(p.poll() is not None for p in self.procs)
