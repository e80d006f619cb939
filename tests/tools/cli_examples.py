#!/usr/bin/env python3
# cli_examples.py - the examples under the real shim and the simulator, run
# and traced through hipsvm as a user would. TAP output; every check is
# skipped, with the reason, when the shim, the simulator or the examples
# (hipcc) are not built.
#
# Environment (tests/tools/meson.build): HIPSVM, HIPSVM_TEST_BUILDDIR,
# EXAMPLE_<name>, STATIC_BIN.
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402
from tap import crossing_slices, ctx, dev, ge, get, load_json, track_names  # noqa: E402

ALL = ("managed_saxpy under hipsvm run", "multi_gpu_host under hipsvm run",
       "multi_gpu_host on 16 GPUs", "unmap_race under hipsvm run", "oversubscribe under hipsvm run",
       "trace of unmap_race", "trace of unmap_race nests", "run of a script", "run --follow",
       "run of a static binary")


def why_not(t, H, w, build):
    why = []
    shim = f"{build}/preload/libhipsvm.so"
    sim = f"{build}/sim/libamdhip64.so.5"
    if not os.path.exists(shim):
        why.append(f"the shim is not built ({shim})")
    if not os.path.exists(sim):
        why.append(f"the simulator is not built ({sim})")
    if not os.environ.get("EXAMPLE_managed_saxpy"):
        why.append("hipcc not found: examples not built")
    if not why:
        t.run(H, "run", "--sim", "-q", "--report", f"{w}/probe.json", "--",
              os.environ["EXAMPLE_managed_saxpy"], env={"HIPSVM_SIM_QUIET": "1"}, timeout=120)
        if not os.path.exists(f"{w}/probe.json"):
            why.append("the shim wrote no report for managed_saxpy")
    return "; ".join(why)


def main(t):
    H = os.environ["HIPSVM"]
    build = os.environ["HIPSVM_TEST_BUILDDIR"]
    ex = {n: os.environ.get("EXAMPLE_" + n, "") for n in
          ("managed_saxpy", "multi_gpu_host", "unmap_race", "oversubscribe")}
    w = tempfile.mkdtemp(prefix="hipsvm-cli-test.")
    try:
        why = why_not(t, H, w, build)
        if why:
            for d in ALL:
                t.skip(d, why)
            return t.done()

        def e2e(name, rep, *opts):
            r = t.run(H, "run", "--sim", "--report", rep, *opts, "--", ex[name], timeout=120)
            return r, load_json(rep)

        r, rep = e2e("managed_saxpy", f"{w}/saxpy.json")
        t.ok(r.rc == 0 and "hipsvm report for" in r.err and "host_context" in r.err,
             "managed_saxpy: exit 0, report on stderr")
        t.ok(ctx(rep, "host_context", "allocations") == 2 and ctx(rep, "host_context", "frees") == 2,
             "managed_saxpy: 2 allocations and 2 frees in host_context")
        t.ok(ge(dev(rep, 0, "faults.raised"), 1) and ge(dev(rep, 0, "faults.handled"), 1),
             "managed_saxpy: faults raised and handled on GPU 0")
        t.ok(get(rep, "runtime") == "sim" and get(rep, "schema") == "hipsvm-report/4",
             "managed_saxpy: report names the simulator")
        r = t.run(H, "report", "--format", "csv", f"{w}/saxpy.json")
        t.ok(r.rc == 0 and "context,host_context,allocations,2" in r.out.splitlines() and
             "run,,runtime,sim" in r.out.splitlines(), "managed_saxpy: the saved report as CSV")

        r, rep = e2e("multi_gpu_host", f"{w}/multi.json", "--gpus", "4")
        t.ok(r.rc == 0 and ctx(rep, "host_context", "allocations") == 2 and
             "host_context   0-3" in r.err,
             "multi_gpu_host: exit 0, 2 allocations in host_context over GPUs 0-3")
        t.ok(all(ge(dev(rep, g, "faults.raised"), 1) for g in range(4)),
             "multi_gpu_host: every GPU raised faults")

        # 16 GPUs: more than one stats reply holds, so the shim asks in turns.
        r, rep = e2e("multi_gpu_host", f"{w}/multi16.json", "--gpus", "16")
        t.ok(r.rc == 0 and all(ge(dev(rep, g, "faults.raised"), 1) for g in (11, 15, 0)),
             "multi_gpu_host on 16 GPUs: the report has the faults of GPUs 11-15 too")

        r, rep = e2e("unmap_race", f"{w}/race.json")
        t.ok(r.rc == 0 and ge(get(rep, "unmaps.coordinated"), 4) and
             get(rep, "unmaps.live_svm_unmapped") == 4 and
             get(rep, "unmaps.live_svm_unmapped_bytes") == 16777216 and
             "4 unmaps of live SVM memory (16 MiB)" in r.err,
             "unmap_race: exit 0, 4 coordinated unmaps of live SVM memory (16 MiB)")

        # A set on an empty ring records no checkpoint (docs/design.md):
        # whether a GPU had faults in flight at an unmap is up to the
        # scheduler. What holds every time: each GPU of the context drains at
        # each unmap, sets no more checkpoints than it drains, and drops no
        # fault without a checkpoint.
        def cp_consistent(g):
            c, d, x = (dev(rep, g, k) for k in ("checkpoints_set", "drains", "faults.dropped"))
            return ge(d, 4) and ge(c, 0) and d >= c and (x == 0 or ge(c, 1))

        t.ok(cp_consistent(0) and cp_consistent(1),
             "unmap_race: drains on GPUs 0 and 1 at every unmap, checkpoints consistent with the drops")
        t.ok(get(rep, "hook.state") == "connected", "unmap_race: the hook was connected")

        r, rep = e2e("oversubscribe", f"{w}/over.json", "--policy", "oversubscribe",
                     "--sim-mem", "64M")
        d = "oversubscribe --policy oversubscribe: every hipMalloc succeeds, the excess oversubscribed"
        if "hipGetLastError() failed: hipErrorOutOfMemory" in r.err:
            # Known shim bug: the fallback leaves the failed hipMalloc's error
            # for hipGetLastError (ROCm: a successful call must not;
            # docs/hip-edges.md).
            t.n += 1
            print(f"not ok {t.n} - {d} # TODO the shim leaves hipErrorOutOfMemory as the last "
                  "error after an oversubscribed hipMalloc")
        else:
            t.ok(r.rc == 0 and "8 of 8 allocations" in r.out and
                 ge(get(rep, "routing.oversubscribed"), 1) and get(rep, "routing.quota_denied") == 0, d)
        r, rep = e2e("oversubscribe", f"{w}/over0.json", "--sim-mem", "64M")
        t.ok(r.rc == 0 and "4 of 8 allocations" in r.out and get(rep, "routing.oversubscribed") == 0
             and ge(get(rep, "errors.runtime_errors"), 1),
             "oversubscribe without the policy: HIP's out-of-memory, nothing oversubscribed")

        r = t.run(H, "trace", "--sim", "-q", "-t", f"{w}/race.events", "-o", f"{w}/race.trace.json",
                  "--", ex["unmap_race"], timeout=120)
        doc = load_json(f"{w}/race.trace.json")
        ev = get(doc, "traceEvents", []) or []
        t.ok(r.rc == 0 and {"GPU 0", "GPU 1", "host_context"} <= track_names(doc),
             "trace of unmap_race: parses, with GPU 0, GPU 1 and host_context tracks")
        t.ok(doc and not crossing_slices(doc), "trace of unmap_race: slices nest properly on every track",
             crossing_slices(doc)[:5])
        t.ok(any(str(e.get("name", "")).startswith("drain") for e in ev) and
             any(e.get("cat") == "unmap" for e in ev), "trace of unmap_race: drains and the unmaps")
        # Whether a GPU had faults in flight at an unmap (so that its set
        # recorded a checkpoint) is up to the scheduler; what must hold is
        # that every cp_set of the raw events is in exactly one window.
        try:
            nset = sum('"ev":"cp_set"' in line for line in open(f"{w}/race.events"))
        except OSError:
            nset = None
        nwin = sum(get(e, "args.sets", 0) for e in ev if e.get("cat") == "checkpoint")
        t.ok(nset is not None and nset == nwin,
             f"trace of unmap_race: checkpoint windows hold every set ({nset or 0} sets, {nwin} in windows)")

        saxpy = ex["managed_saxpy"]
        # the script ends with true, so its status says nothing of the
        # child's: the child's own status is printed and checked, or a
        # child that crashed would pass as one that was not followed
        r = t.run(H, "run", "--sim", "--", "sh", "-c", f'"{saxpy}"; echo "child=$?" >&2; true',
                  timeout=120)
        t.ok(r.rc == 0 and "hipsvm report for" not in r.err and
             ("no report" in r.err or "use --follow" in r.err),
             "run of a script: the program's children are not followed by default")
        if os.environ.get("HIPSVM_TEST_SANITIZED"):
            # the ASan-built simulator crashes an uninstrumented program
            # that is not followed (hostile.py's exec case says why); the
            # unsanitized suite checks it
            t.skip("run of a script: the child that was not followed exits 0",
                   "the ASan-built simulator in an uninstrumented program")
        else:
            t.ok("child=0" in r.err, "run of a script: the child that was not followed exits 0",
                 r.err[-400:])
        r = t.run(H, "run", "--sim", "--follow", "--", "sh", "-c",
                  f'"{saxpy}"; echo "child=$?" >&2; /bin/true; true', timeout=120)
        t.ok(r.rc == 0 and "managed_saxpy" in r.err and "hipsvm report for" in r.err and
             "did not use HIP" in r.err and "child=0" in r.err,
             "run --follow: the report of the HIP program the script ran, others counted")
        static = os.environ.get("STATIC_BIN", "")
        if static:
            r = t.run(H, "run", "--sim", "--", static)
            t.ok(r.rc == 0 and "no report from the shim" in r.err,
                 "run of a static binary: status kept, the missing report explained")
        else:
            t.skip("run of a static binary", "no static libc")
        return t.done()
    finally:
        shutil.rmtree(w, ignore_errors=True)


if __name__ == "__main__":
    tap.main(main)
