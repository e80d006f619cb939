#!/usr/bin/env python3
"""bench/hiptests/run.py: ROCm's own hip-tests on the simulator, with and
without the shim.

  python3 bench/hiptests/run.py HIPTESTS [--build build] [--work DIR]
      [--files bench/hiptests/files.txt] [--first N] [--only REGEX]
      [--jobs 2] [--timeout 90] [--gpus 4] [--no-shim] [--build-only]

HIPTESTS is a checkout of ROCm/hip-tests (its catch/ directory) or of
ROCm/HIP before 5.4 (HIP/tests/catch/). Each file named in the list is built
alone with hipcc for gfx90a, linked with hip-tests' own main and Catch2;
objects are kept in WORK/obj under a key of the source, the shared headers
and the flags, so a second run compiles only what changed. A line of the
list may add the file's own compile flags (flags:A,B, as its CMakeLists
sets them; with --save-temps the saved assembly goes where the cases read
it) and programs its cases start (run:SOURCE[=PATH], built alone). Compiles run
at nice 10, JOBS at a time. Every case the executable lists then runs on its
own, on the simulator (BUILD/sim through LD_LIBRARY_PATH) and again with
the shim preloaded, each under a timeout. A benchmark, not a test: it needs
a hip-tests checkout and minutes of CPU, so CI does not run it.

Prints the totals: passed, failed, timed out, falling back (a
kernel left to the simulator's touch model), skipped by hip-tests itself
(its config file's DisabledTests, as AMD's CI skips them),
changed by the shim; then each case that did not pass with the last lines
of its output. WORK/results.tsv holds one row per case; WORK/logs/ every
case's output.
"""
import argparse
import concurrent.futures as cf
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FLAGS = ["--offload-arch=gfx90a", "-O2", "-std=c++17", "-w"]
HERE = os.path.dirname(os.path.abspath(__file__))
FALLBACK = "is not interpreted"
SKIPPED = "HIP_SKIP_THIS_TEST"
NOMATCH = "No test cases matched"
CHOOM = shutil.which("choom")


def die(msg):
    sys.stderr.write("run.py: %s\n" % msg)
    sys.exit(2)


def write_atomic(path, text):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def prog_spec(word):
    """run:SOURCE[=PATH]: the program SOURCE builds, at PATH relative to the
    cases' working directory. 5.2.3's SpawnProc looks above that directory
    (the parent of TestContext::currentPath) in the source's own folder, so
    PATH defaults to ../FOLDER/STEM; 5.4's looks in it, for the CMake
    target's name (getDeviceCount from getDeviceCount_exe.cc), which a
    line then gives."""
    src, _, path = word.partition("=")
    if not path:
        path = os.path.join("..", os.path.basename(os.path.dirname(src)),
                            os.path.splitext(os.path.basename(src))[0])
    inside = os.path.normpath(os.path.join("scratch", path))
    if os.path.isabs(path) or inside == ".." or inside.startswith(".." + os.sep):
        die("run:%s: the program's path must stay inside the work directory" % word)
    return src, path


def catch_root(top):
    for sub in ("catch", os.path.join("tests", "catch")):
        root = os.path.join(top, sub)
        if os.path.isfile(os.path.join(root, "hipTestMain", "main.cc")):
            return root
    die("%s: no hipTestMain/main.cc under catch/ (hip-tests) or HIP/tests/catch/ (HIP)" % top)


def headers_digest(root):
    """The headers every test includes: a change to any rebuilds all."""
    h = hashlib.sha256()
    for sub in ("include", "kernels", "external/Catch2", "external/picojson"):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if os.path.isfile(p) and not os.path.islink(p):
                h.update(name.encode())
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def old_catch_flags(root):
    """The Catch2 of hip-tests before 5.4 sizes an array by MINSIGSTKSZ,
    which glibc 2.34 made a call: it builds only without its POSIX signal
    handlers (a crash is then the process's, not reported by Catch)."""
    with open(os.path.join(root, "external", "Catch2", "catch.hpp"), errors="replace") as f:
        old = "32768 >= MINSIGSTKSZ" in f.read()
    return ["-DCATCH_CONFIG_NO_POSIX_SIGNALS"] if old else []


def compat_names():
    with open(os.path.join(HERE, "compat.h")) as f:
        pairs = re.findall(r"#define (\w+)|long long int (\w+)\(", f.read())
    return {n for pair in pairs for n in pair if n and not n.endswith("_H")}


def uses_compat(paths, names):
    for p in paths:
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, errors="replace") as f:
                text = f.read()
            if any(n in text for n in names):
                return True
    return False


def compat_flags(root, src=None):
    """compat.h, for a file that uses what it supplies, itself or through
    hip-tests' shared headers (hip-tests from 5.4 on, built against 5.2's
    headers); the others build as they are."""
    names = compat_names()
    d = os.path.join(root, "include")
    paths = [os.path.join(d, n) for n in sorted(os.listdir(d))] + ([src] if src else [])
    return ["-include", os.path.join(HERE, "compat.h")] if uses_compat(paths, names) else []


def compile_obj(root, src, obj, flags, hdr, temps=None):
    """temps: a directory for hipcc's --save-temps files (its working
    directory while it compiles), made afresh for each compile."""
    compat = compat_flags(root, src)
    if compat:
        flags = flags[:len(FLAGS)] + compat + flags[len(FLAGS):]
        with open(os.path.join(HERE, "compat.h"), "rb") as f:
            hdr += hashlib.sha256(f.read()).hexdigest()
    with open(src, "rb") as f:
        key = hashlib.sha256(f.read() + " ".join(flags).encode() + hdr.encode()).hexdigest()
    keyf = obj + ".key"
    if os.path.exists(obj) and os.path.exists(keyf):
        with open(keyf) as f:
            if f.read().strip() == key:
                return None
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    tmp = os.path.abspath(obj + ".part")
    if temps:
        shutil.rmtree(temps, ignore_errors=True)
        os.makedirs(temps)
    cmd = ["nice", "-n", "10", "hipcc"] + flags + ["-c", src, "-o", tmp]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", cwd=temps)
    if p.returncode != 0:
        if os.path.exists(tmp):
            os.unlink(tmp)
        return p.stdout[-4000:]
    os.replace(tmp, obj)
    write_atomic(keyf, key + "\n")
    return None


def build(args, root, files):
    hdr = headers_digest(root)
    flags = FLAGS + old_catch_flags(root) + ["-I", os.path.join(root, "include"), "-I", os.path.join(root, "kernels"),
                     "-I", os.path.join(root, "external", "Catch2"),
                     "-I", os.path.join(root, "external", "picojson"),
                     '-DKERNELS_PATH="%s/"' % os.path.join(root, "kernels")]
    objdir = os.path.join(args.work, "obj")
    # hip-tests' Main_Object and KERNELS libraries, as far as this version has them
    common = [rel for rel in ("hipTestMain/main.cc", "hipTestMain/hip_test_context.cc",
                              "hipTestMain/hip_test_features.cc", "kernels/Set.cpp")
              if os.path.isfile(os.path.join(root, rel))]
    jobs = [(rel, os.path.join(root, rel), os.path.join(objdir, rel + ".o")) for rel in common]
    helpers = sorted({h for rel in files for h in args.helpers.get(rel, [])})
    jobs += [(rel, os.path.join(root, rel), os.path.join(objdir, rel + ".o"))
             for rel in files + [h for h in helpers if h not in files]]
    progs = sorted({p for rel in files for p in args.progs.get(rel, [])})
    jobs += [(p, os.path.join(root, p), os.path.join(objdir, p + ".o")) for p in progs]
    errors = {}

    def own_flags(rel):
        extra = args.cflags.get(rel, [])
        return flags + extra, (os.path.join(objdir, rel + ".temps")
                               if "--save-temps" in extra else None)

    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(compile_obj, root, src, obj, own_flags(rel)[0], hdr,
                          own_flags(rel)[1]): rel for rel, src, obj in jobs}
        for fut in cf.as_completed(futs):
            rel = futs[fut]
            err = fut.result()
            if err is not None:
                errors[rel] = err
                print("build: %s failed" % rel, flush=True)
    for rel in common:
        if rel in errors:
            die("hip-tests' own %s did not build:\n%s" % (rel, errors[rel]))
    bindir = os.path.join(args.work, "bin")
    os.makedirs(bindir, exist_ok=True)
    # hip_test_context looks for hipTestMain/config up to five levels above
    # the executable: the list of cases AMD disables is honoured as it is there
    cfg = os.path.join(args.work, "hipTestMain", "config")
    if not os.path.isdir(cfg):
        shutil.copytree(os.path.join(root, "hipTestMain", "config"), cfg)
    # hip-tests' CMake compiles these files with --save-temps in its build
    # tree, whose root is the working directory of ctest: the cases read
    # the saved assembly from ./catch/<the file's directory>/
    for rel in files:
        temps = own_flags(rel)[1]
        if temps and rel not in errors and os.path.isdir(temps):
            dest = os.path.join(args.work, "scratch", "catch", os.path.dirname(rel))
            os.makedirs(dest, exist_ok=True)
            for name in os.listdir(temps):
                if name.endswith(".s"):
                    shutil.copyfile(os.path.join(temps, name), os.path.join(dest, name))
    # programs a case starts: built alone, as hip-tests' CMake builds them,
    # without its main, where hip::SpawnProc looks for them: relative to
    # the cases' working directory, WORK/scratch (prog_spec)
    for p in progs:
        if p in errors:
            continue
        exe = os.path.normpath(os.path.join(args.work, "scratch", args.prog_path[p]))
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        obj = os.path.join(objdir, p + ".o")
        if not os.path.exists(exe) or os.path.getmtime(obj) > os.path.getmtime(exe):
            cmd = ["nice", "-n", "10", "hipcc", "--offload-arch=gfx90a", obj, "-o", exe + ".part"]
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace")
            if r.returncode != 0:
                errors[p] = r.stdout[-4000:]
                print("link: %s failed" % p, flush=True)
                continue
            os.replace(exe + ".part", exe)
    exes = {}
    for rel in files:
        if rel in errors:
            continue
        if any(p in errors for p in args.progs.get(rel, [])):
            errors[rel] = "a program it starts did not build: " + ", ".join(args.progs[rel])
            continue
        exe = os.path.join(bindir, rel.replace("/", "_")[:-len(".cc")])
        mine = [rel] + args.helpers.get(rel, [])
        if any(r in errors for r in mine):
            errors.setdefault(rel, "a helper did not build: " + ", ".join(r for r in mine if r in errors))
            continue
        objs = [os.path.join(objdir, r + ".o") for r in common + mine]
        if not os.path.exists(exe) or any(os.path.getmtime(o) > os.path.getmtime(exe) for o in objs):
            cmd = ["nice", "-n", "10", "hipcc", "--offload-arch=gfx90a"] + objs + \
                  ["-o", exe + ".part", "-lstdc++fs", "-ldl", "-lpthread"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace")
            if p.returncode != 0:
                errors[rel] = p.stdout[-4000:]
                print("link: %s failed" % rel, flush=True)
                continue
            os.replace(exe + ".part", exe)
        exes[rel] = exe
    return exes, errors


def spec_escape(name):
    # Catch2's test spec reads , [ ] " ~ * and \ specially
    return re.sub(r'([\\,\[\]"~*])', r"\\\1", name)


def list_cases(exe, env):
    p = subprocess.run([exe, "--list-test-names-only"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, errors="replace", env=env, timeout=60)
    return [l for l in p.stdout.splitlines() if l.strip() and l != SKIPPED]


def run_case(exe, case, env, timeout, cwd):
    start = time.monotonic()
    # the case as the only argument, as CTest passes it: hip-tests' context
    # reads argv[1] alone to skip what its config file disables
    # through choom: a case that asks for more memory than the machine has
    # (Unit_HMM_OverSubscriptionTst's 148 GiB) makes the kernel's OOM
    # killer take its own processes first, not a neighbour's
    cmd = [exe, spec_escape(case)]
    if CHOOM:
        cmd = [CHOOM, "-n", "1000", "--"] + cmd
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=cwd)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        try:
            out, _ = p.communicate(timeout=30)
        except subprocess.TimeoutExpired as e:
            # a process that left the group still holds the pipe: what
            # was read so far is the output
            out = (e.output or b"") + b"\nrun.py: output cut: a process outside the case's group kept it open\n"
        rc = None
    out = out.decode(errors="replace")
    secs = time.monotonic() - start
    if rc is None:
        what = "timeout"
    elif SKIPPED in out:
        what = "skipped"
    elif NOMATCH in out:
        what = "fail"	# the spec missed the case: said, never a pass
        out += "\nrun.py: the test spec matched no case\n"
    elif FALLBACK in out:
        what = "fallback"
    elif rc == 0:
        what = "pass"
    else:
        what = "fail"
    return what, rc, secs, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("hiptests")
    ap.add_argument("--build", default="build")
    ap.add_argument("--work")
    ap.add_argument("--files", default=os.path.join(HERE, "files.txt"))
    ap.add_argument("--first", type=int, default=0, help="only the first N files of the list")
    ap.add_argument("--only", help="only cases whose name matches this regex")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--gpus", default="4")
    ap.add_argument("--no-shim", action="store_true")
    ap.add_argument("--build-only", action="store_true")
    args = ap.parse_args()

    root = os.path.abspath(catch_root(args.hiptests))
    builddir = os.path.abspath(args.build)
    simdir = os.path.join(builddir, "sim")
    shim = os.path.join(builddir, "preload", "libhipsvm.so")
    if not args.build_only and not os.path.exists(os.path.join(simdir, "libamdhip64.so.5")):
        die("%s: no simulator (libamdhip64.so.5); build it first" % simdir)
    if not args.build_only and not args.no_shim and not os.path.exists(shim):
        die("%s: no shim; build it or pass --no-shim" % shim)
    args.work = os.path.abspath(args.work or os.path.join(builddir, "hiptests"))
    os.makedirs(args.work, exist_ok=True)

    # a line: the test file, then any helper sources it is linked with,
    # programs it starts (run:SOURCE[=PATH]) and compile flags of its own, as
    # hip-tests' CMake sets them (flags:A,B)
    files, absent, args.helpers, args.progs, args.cflags = [], [], {}, {}, {}
    args.prog_path = {}
    with open(args.files) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            srcs = [w for w in words if not w.startswith("flags:")]
            flags = [x for w in words if w.startswith("flags:") for x in w[6:].split(",") if x]
            progs = [prog_spec(w[4:]) for w in srcs[1:] if w.startswith("run:")]
            paths = [w for w in srcs if not w.startswith("run:")] + [p for p, _ in progs]
            if all(os.path.isfile(os.path.join(root, w)) for w in paths):
                files.append(srcs[0])
                args.helpers[srcs[0]] = [w for w in srcs[1:] if not w.startswith("run:")]
                args.progs[srcs[0]] = [p for p, _ in progs]
                args.prog_path.update(progs)
                args.cflags[srcs[0]] = flags
            else:
                absent.append(" ".join(words))
    if args.first:
        files = files[:args.first]
    for rel in absent:
        print("absent from this checkout: %s" % rel)

    t0 = time.monotonic()
    exes, errors = build(args, root, files)
    print("built %d of %d files in %.0f s (%d did not build)" %
          (len(exes), len(files), time.monotonic() - t0, len(errors)), flush=True)
    for rel, err in sorted(errors.items()):
        first = [l for l in err.splitlines() if "error" in l][:2]
        print("  did not build: %s: %s" % (rel, " | ".join(first)))
    if args.build_only:
        return 0

    base = dict(os.environ)
    base.pop("LD_PRELOAD", None)
    base.update(LD_LIBRARY_PATH=simdir, HIPSVM_SIM_GPUS=args.gpus)
    envs = {"sim": base}
    if not args.no_shim:
        envs["shim"] = dict(base, LD_PRELOAD=shim, HIPSVM_REPORT="")
    logdir = os.path.join(args.work, "logs")
    os.makedirs(logdir, exist_ok=True)
    # cases write files into their working directory: not the caller's
    scratch = os.path.join(args.work, "scratch")
    os.makedirs(scratch, exist_ok=True)
    only = re.compile(args.only) if args.only else None

    work = []
    for rel in files:
        if rel not in exes:
            continue
        try:
            cases = list_cases(exes[rel], base)
        except subprocess.TimeoutExpired:
            print("listing %s timed out" % rel)
            continue
        work += [(rel, c) for c in cases if not only or only.search(c)]
    print("%d cases" % len(work), flush=True)

    results = {}
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = {}
        for rel, case in work:
            for mode, env in envs.items():
                futs[ex.submit(run_case, exes[rel], case, env, args.timeout, scratch)] = \
                    (rel, case, mode)
        for fut in cf.as_completed(futs):
            rel, case, mode = futs[fut]
            what, rc, secs, out = fut.result()
            results[(rel, case, mode)] = (what, rc, secs, out)
            logname = re.sub(r"[^A-Za-z0-9_.-]", "_", "%s.%s.%s" % (os.path.basename(rel), case, mode))
            write_atomic(os.path.join(logdir, logname[:200] + ".log"), out)

    kinds = ["pass", "fail", "timeout", "fallback", "skipped"]
    total = dict.fromkeys(kinds, 0)
    changed = []
    rows = ["file\tcase\tsim\tshim\tsim_s\tshim_s"]
    notpass = []
    for rel, case in work:
        r = results[(rel, case, "sim")]
        s = results.get((rel, case, "shim"))
        total[r[0]] += 1
        if s and s[0] != r[0]:
            changed.append((rel, case, r[0], s[0]))
        if r[0] not in ("pass", "skipped"):
            notpass.append((rel, case, r))
        rows.append("%s\t%s\t%s\t%s\t%.2f\t%s" % (rel, case, r[0], s[0] if s else "-", r[2],
                                                   "%.2f" % s[2] if s else "-"))
    write_atomic(os.path.join(args.work, "results.tsv"), "\n".join(rows) + "\n")

    for rel, case, r in notpass:
        tail = [l for l in r[3].splitlines() if l.strip()][-6:]
        print("\n%s %s (%s, rc=%s, %.1f s)" % (r[0].upper(), case, rel, r[1], r[2]))
        for l in tail:
            print("    " + l[:200])
    for rel, case, a, b in changed:
        print("CHANGED BY THE SHIM %s (%s): %s -> %s" % (case, rel, a, b))
    print("\n%d files, %d cases: %d passed, %d failed, %d timed out, %d falling back, "
          "%d skipped by hip-tests, %s changed by the shim; %d files did not build" %
          (len(exes), len(work), total["pass"], total["fail"], total["timeout"],
           total["fallback"], total["skipped"], "-" if args.no_shim else len(changed), len(errors)))
    print("(%.0f s; results in %s)" % (time.monotonic() - t0, os.path.join(args.work, "results.tsv")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
