# tap.py - the small TAP harness of the tools' Python tests: ok/skip lines
# numbered in order, the failing command's output shown under a failure,
# the plan at the end. Nothing but the standard library.
import os
import subprocess
import sys


class Tap:
    def __init__(self):
        self.n = 0
        self.fails = 0
        self.last = None     # the Run of the last run()

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
        e = dict(os.environ)
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
