# tap.py - the small TAP harness of the tools' Python tests: ok/skip lines
# numbered in order, the failing command's output shown under a failure,
# the plan at the end. Nothing but the standard library.
import json
import os
import subprocess
import sys


def _drop_sanitizer_preload():
    """Runs this script again without a sanitizer runtime in LD_PRELOAD.

    scripts/test-sanitizers preloads the runtime into every test process, for
    the programs that are not instrumented but load an instrumented library.
    Python is neither: at its exit LeakSanitizer reports the interpreter's own
    allocations and aborts the test. What the tests run gets its runtime as
    before: instrumented programs link it, and hipsvm composes LD_PRELOAD."""
    pre = os.environ.get("LD_PRELOAD", "")
    if "libclang_rt." not in pre:
        return
    env = dict(os.environ)
    env["HIPSVM_TEST_SANITIZED"] = "1"     # for stress_args()
    rest = ":".join(p for p in pre.split(":") if p and "libclang_rt." not in p)
    if rest:
        env["LD_PRELOAD"] = rest
    else:
        env.pop("LD_PRELOAD")
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


_drop_sanitizer_preload()


def stress_args():
    """The stress program's arguments for a trace of a 4-thread run. Under a
    sanitizer, no forks: LLVM 14's ASan allocator is not fork-safe (a child
    forked while another thread holds the allocator's lock deadlocks in its
    first malloc, seen 3 times in 8 runs), and TSan supports no threads in
    the child of a multi-threaded process; scripts/test-sanitizers runs the
    stress program with --forks 0 for the same reasons."""
    args = ["--ops", "3000", "--threads", "4"]
    if os.environ.get("HIPSVM_TEST_SANITIZED"):
        args += ["--forks", "0"]
    return args


CLEAN = ("HIPSVM_SHIM_PATH", "HIPSVM_SIM_DIR", "HIPSVM_REPORT", "HIPSVM_TRACE", "HIPSVM_POLICY",
         "HIPSVM_HOOK", "HIPSVM_INHERIT", "LD_PRELOAD", "LD_LIBRARY_PATH", "NO_COLOR",
         "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID")


class Tap:
    def __init__(self):
        self.n = 0
        self.fails = 0
        self.last = None     # the Run of the last run()
        # The tests pin their own settings: none of the caller's reaches
        # them (meson puts its build directories in LD_LIBRARY_PATH; a
        # developer may have HIPSVM_KERNEL_CACHE or any option exported).
        # What the tests are given is kept: HIPSVM (the tool), HIPSVM_TEST_*.
        self.base = {k: v for k, v in os.environ.items() if k not in CLEAN and not (
            k.startswith("HIPSVM_") and not k.startswith("HIPSVM_TEST_"))}

    def ok(self, cond, desc, detail=None):
        self.n += 1
        print(("ok" if cond else "not ok") + f" {self.n} - {desc}", flush=True)
        if not cond:
            self.fails += 1
            if detail is None and self.last is not None:
                detail = self.last.describe()
            for line in str(detail or "").splitlines()[:30]:
                print(f"#   {line}")
        return bool(cond)

    def skip(self, desc, why):
        self.n += 1
        print(f"ok {self.n} - {desc} # SKIP {why}", flush=True)

    def run(self, *args, env=None, unset=(), stdin=None, cwd=None, timeout=240):
        """Runs args; keeps rc, out, err (text) in a Run, also as self.last."""
        e = dict(self.base)
        for k in unset:
            e.pop(k, None)
        if env:
            e.update(env)
        p = subprocess.run([str(a) for a in args], env=e, cwd=cwd, timeout=timeout,
                           input=stdin.encode() if isinstance(stdin, str) else stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.last = Run(args, p.returncode, p.stdout.decode(errors="replace"),
                        p.stderr.decode(errors="replace"))
        return self.last

    def done(self):
        print(f"1..{self.n}")
        return 1 if self.fails else 0


class Run:
    def __init__(self, args, rc, out, err):
        self.args, self.rc, self.out, self.err = args, rc, out, err

    def describe(self):
        lines = [f"command: {' '.join(map(str, self.args))}", f"rc={self.rc}"]
        lines += ["stdout: " + s for s in self.out.splitlines()[:12]]
        lines += ["stderr: " + s for s in self.err.splitlines()[:12]]
        return "\n".join(lines)

    def one_error_line(self):
        lines = self.err.splitlines()
        return len(lines) == 1 and lines[0].startswith("hipsvm: ")


def main(fn):
    sys.exit(fn(Tap()))


# ---- JSON helpers: reading reports and traces

def load_json(path):
    """The parsed document, or None when it is missing or not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def get(doc, dotted, default="missing"):
    """doc's value at a dotted path (a.0.b), or default."""
    cur = doc
    for part in dotted.split("."):
        if isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return default
    return cur


def find(items, key, value):
    """The first dict of items whose key is value, or {}."""
    for it in items if isinstance(items, list) else []:
        if isinstance(it, dict) and it.get(key) == value:
            return it
    return {}


def ctx(report, ctx_id, dotted):
    return get(find(get(report, "contexts", []), "id", ctx_id), dotted)


def dev(report, index, dotted):
    return get(find(get(report, "devices", []), "index", index), dotted)


def ge(v, n):
    return isinstance(v, int) and not isinstance(v, bool) and v >= n


def crossing_slices(doc):
    """(track, parent, child) of X slices that cross on one (pid, tid) track;
    also an X without ts or with a negative dur."""
    tracks, bad = {}, []
    for e in get(doc, "traceEvents", []) or []:
        if e.get("ph") != "X":
            continue
        ts, dur = e.get("ts"), e.get("dur")
        if not isinstance(ts, (int, float)) or not isinstance(dur, (int, float)) or dur < 0:
            bad.append(("no ts/dur", e, None))
            continue
        tracks.setdefault((e.get("pid"), e.get("tid")), []).append((ts, ts + dur))
    for key, sl in tracks.items():
        sl.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s in sl:
            while stack and stack[-1][1] <= s[0] + 1e-4:
                stack.pop()
            if stack and s[1] > stack[-1][1] + 1e-4:
                bad.append((key, stack[-1], s))
            stack.append(s)
    return bad


def track_names(doc):
    return {e["args"]["name"] for e in get(doc, "traceEvents", []) or []
            if e.get("ph") == "M" and e.get("name") == "thread_name"}
