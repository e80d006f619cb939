#!/usr/bin/env python3
# hostile.py - what the hipsvm command writes and reads, tried as a hostile
# neighbour and a careless user would (docs/security.md, "What the hipsvm
# command writes and reads"): links, devices, FIFOs, another user's files, a
# full filesystem, an output that is also the input, names at NAME_MAX,
# non-UTF-8 and terminal escapes in what it reads, inputs that never end.
# TAP output.
#
# Environment (tests/tools/meson.build): HIPSVM, EXAMPLE_managed_saxpy,
# HIPSVM_TEST_SRCDIR. Runs as root in CI: the other user is nobody (65534),
# the full filesystem a 256 KiB tmpfs; where that cannot be had the case says
# SKIP with the reason.
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

CLEAN = ("HIPSVM_SHIM_PATH", "HIPSVM_SIM_DIR", "HIPSVM_REPORT", "HIPSVM_TRACE", "LD_PRELOAD",
         "LD_LIBRARY_PATH", "HIPSVM_POLICY")
NOBODY = 65534


def strict_json(path_or_bytes):
    """Parsed as the strictest reader would: the bytes must be UTF-8."""
    try:
        if isinstance(path_or_bytes, bytes):
            data = path_or_bytes
        else:
            with open(path_or_bytes, "rb") as f:
                data = f.read()
        return json.loads(data.decode("utf-8", errors="strict"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def raw(t, *args, env=None, timeout=60, stdin=subprocess.DEVNULL):
    """Like t.run, but the bytes (terminal output is checked byte by byte)."""
    e = {k: v for k, v in t.base.items() if k not in CLEAN}
    e.update(env or {})
    try:
        p = subprocess.run([str(a) for a in args], env=e, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"", b"(timed out)"
    return p.returncode, p.stdout, p.stderr


def content(path, mode="r"):
    """What the file holds, or None when it is gone."""
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError:
        return None


def is_chr(path):
    try:
        return stat.S_ISCHR(os.lstat(path).st_mode)
    except OSError:
        return False


class Hung:
    rc, out, err = None, "", "(timed out: the command hung)"

    def describe(self):
        return self.err


def run(t, *args, **kw):
    """t.run, where a command that hangs counts as a failure, not a crash."""
    try:
        return t.run(*args, **kw)
    except subprocess.TimeoutExpired:
        t.last = Hung()
        return t.last


def mount_tmpfs(path, size):
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "hipsvm-full", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return r.returncode == 0


def fill(path):
    """Fills the filesystem of path up to the last block."""
    fd = os.open(os.path.join(path, "filler"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while os.write(fd, b"x" * 4096) > 0:
            pass
    except OSError:
        pass
    try:
        while os.write(fd, b"x") > 0:
            pass
    except OSError:
        pass
    os.close(fd)


def main(t):
    hipsvm = os.environ["HIPSVM"]
    ex = os.environ.get("EXAMPLE_managed_saxpy", "")
    src = os.environ.get("HIPSVM_TEST_SRCDIR", ".")
    fixtures = os.path.join(src, "tests", "tools", "fixtures")
    have_ex = bool(ex and os.access(ex, os.X_OK))
    root = os.geteuid() == 0
    w = tempfile.mkdtemp(prefix="hipsvm-hostile.")
    os.chmod(w, 0o755)
    report_fx = os.path.join(fixtures, "report_full.json")
    events_fx = os.path.join(fixtures, "events_basic.jsonl")
    try:
        # ---- 1. outputs of the commands that read saved files ----
        old = os.path.join(w, "old.html")
        with open(old, "w") as f:
            f.write("precious")
        r = run(t, hipsvm, "report", "--html", old, "--events", os.path.join(w, "MISSING"), report_fx)
        t.ok(r.rc == 2 and content(old) == "precious",
             "report --html OLD --events MISSING: OLD left as it was")

        bad = os.path.join(w, "bad.jsonl")
        with open(bad, "w") as f:
            f.write("not json\n")
        oldt = os.path.join(w, "OLD.json")
        with open(oldt, "w") as f:
            f.write("precious")
        r = run(t, hipsvm, "trace", "--from", bad, "-o", oldt)
        t.ok(r.rc != 0 and content(oldt) == "precious",
             "trace --from BAD -o OLD: OLD left as it was")

        ev = os.path.join(w, "ev.jsonl")
        shutil.copy(events_fx, ev)
        before = content(ev, "rb")
        r = run(t, hipsvm, "trace", "--from", ev, "-o", ev)
        t.ok(r.rc == 1 and content(ev, "rb") == before and "input" in r.err,
             "trace --from EV -o EV: refused as the same file, EV intact")

        victim = os.path.join(w, "victim")
        with open(victim, "w") as f:
            f.write("precious")
        link = os.path.join(w, "link.json")
        os.symlink(victim, link)
        r = run(t, hipsvm, "report", "--format", "json", "-o", link, report_fx)
        t.ok(r.rc == 0 and content(victim) == "precious" and not os.path.islink(link) and
             strict_json(link) is not None and stat.S_IMODE(os.stat(link).st_mode) == 0o600,
             "report -o LINK: the link replaced by a 0600 file, its target never written")

        if root:
            dev = os.path.join(w, "full-node")
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
            r = run(t, hipsvm, "report", "-o", dev, report_fx)
            t.ok(r.rc == 1 and is_chr(dev) and "regular" in r.err,
                 "report -o DEVICE (as root): refused, the device node still there")
            r = run(t, hipsvm, "trace", "--from", events_fx, "-o", dev)
            t.ok(r.rc == 1 and is_chr(dev),
                 "trace -o DEVICE (as root): refused, the device node still there")
            # Never the machine's own /dev/full: the old code unlinked it.
            devfull = os.path.join(w, "dev-full")
            os.mknod(devfull, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
            r = run(t, hipsvm, "report", "--format", "json", "-o", devfull, report_fx)
            t.ok(r.rc == 1 and is_chr(devfull), "report -o a /dev/full node: exit 1, the node still there")
        else:
            for d in ("report -o DEVICE", "trace -o DEVICE", "report -o a /dev/full node"):
                t.skip(d, "mknod needs root")

        theirs = os.path.join(w, "theirs.json")
        with open(theirs, "w") as f:
            f.write("theirs")
        os.chown(theirs, NOBODY, NOBODY) if root else None
        if root:
            r = run(t, hipsvm, "report", "-o", theirs, report_fx)
            t.ok(r.rc == 1 and content(theirs) == "theirs" and "another user" in r.err,
                 "report -o ANOTHER-USER'S-FILE: refused, left alone")
        else:
            t.skip("report -o ANOTHER-USER'S-FILE", "chown needs root")

        # ---- 4. readers ----
        r = run(t, hipsvm, "report", "/dev/zero", timeout=60)
        t.ok(r.rc == 2 and "regular" in r.err, "report /dev/zero: refused at once (not read)")
        r = run(t, hipsvm, "trace", "--from", "/dev/zero", "-o", os.path.join(w, "z.json"), timeout=60)
        t.ok(r.rc == 2 and not os.path.exists(os.path.join(w, "z.json")),
             "trace --from /dev/zero: refused at once, nothing written")
        rc, out, err = raw(t, "sh", "-c", f"head -c 40000000 /dev/zero | {hipsvm} report -",
                           timeout=120)
        t.ok(rc == 2 and b"too large" in err, "report - fed 40 MB: stops at the documented limit",
             err.decode(errors="replace"))
        fifo = os.path.join(w, "fifo")
        os.mkfifo(fifo)
        r = run(t, hipsvm, "check", fifo, timeout=60)
        t.ok(r.rc == 2, "check FIFO: returns (exit 2), does not wait for a writer")
        r = run(t, hipsvm, "report", fifo, timeout=60)
        t.ok(r.rc == 2, "report FIFO: returns (exit 2)")
        # a binary whose DT_NEEDED library, found through $ORIGIN, is a FIFO
        cc = shutil.which("cc")
        if cc:
            d = os.path.join(w, "needfifo")
            os.mkdir(d)
            with open(os.path.join(d, "l.c"), "w") as f:
                f.write("int l(void) { return 1; }\n")
            with open(os.path.join(d, "m.c"), "w") as f:
                f.write("int l(void); int main(void) { return l() - 1; }\n")
            ok = subprocess.run([cc, "-shared", "-fPIC", "-o", f"{d}/libl.so", f"{d}/l.c"]).returncode == 0
            ok = ok and subprocess.run([cc, "-o", f"{d}/m", f"{d}/m.c", f"-L{d}", "-ll",
                                        "-Wl,-rpath,$ORIGIN"]).returncode == 0
            if ok:
                os.unlink(f"{d}/libl.so")
                os.mkfifo(f"{d}/libl.so")
                r = run(t, hipsvm, "check", f"{d}/m", timeout=60)
                t.ok(r.rc in (0, 1, 2), "check PROG whose $ORIGIN library is a FIFO: returns")
            else:
                t.skip("check PROG whose $ORIGIN library is a FIFO", "cc failed")
            # RUNPATH with terminal escapes, printed by check
            ok = subprocess.run([cc, "-o", f"{d}/esc", f"{d}/m.c", f"{d}/l.c",
                                 "-Wl,--enable-new-dtags,-rpath,/x\x1b]0;pwned\x07\x1b[2J"]).returncode == 0
            if ok:
                rc, out, err = raw(t, hipsvm, "check", f"{d}/esc")
                t.ok(b"\x1b" not in out + err and b"\x07" not in out + err,
                     "check: a RUNPATH with terminal escapes is printed escaped",
                     (out + err).decode(errors="replace"))
            else:
                t.skip("check: RUNPATH with escapes", "cc failed")
        else:
            for d in ("check PROG whose $ORIGIN library is a FIFO", "check: RUNPATH with escapes"):
                t.skip(d, "no C compiler")

        # ---- 3. strings in what is read and written ----
        with open(report_fx) as f:
            doc = json.load(f)
        doc["program"] = "/x\x1b]0;pwned\x07\x1b[2J\x9b31m/prog"
        doc.setdefault("hook", {})["path"] = "@evil\x1b[1;1H"
        doc["runtime"] = "sim\x1bc"
        evil = os.path.join(w, "evil.json")
        with open(evil, "w") as f:
            json.dump(doc, f)
        rc, out, err = raw(t, hipsvm, "report", evil)
        t.ok(rc == 0 and b"\x1b" not in out and b"\x07" not in out and b"\xc2\x9b" not in out,
             "report: escapes in program, hook.path, runtime never reach the terminal",
             out.decode(errors="replace"))
        rc, out, err = raw(t, hipsvm, "report", "--format", "csv", evil)
        t.ok(rc == 0 and b"\x1b" not in out, "report --format csv: no raw escape either")
        # invalid UTF-8 in a report (a path is bytes): --format json stays UTF-8
        badu = os.path.join(w, "badutf8.json")
        with open(report_fx, "rb") as f:
            data = f.read()
        data = data.replace(b'"program":"', b'"program":"/bad\xff\xfe/\xe2\x82', 1)
        with open(badu, "wb") as f:
            f.write(data)
        rc, out, err = raw(t, hipsvm, "report", "--format", "json", badu)
        got = strict_json(out)
        t.ok(rc == 0 and got is not None and "\ufffd" in got.get("program", ""),
             "report --format json of a non-UTF-8 program: valid UTF-8, bad bytes as U+FFFD",
             out[:300])

        if not have_ex:
            for d in ("run -r LINK", "HIPSVM_REPORT=LINK hipsvm run", "run -r: mode 0600",
                      "run -t ANOTHER-USER'S-FILE", "run -t nodir/t.jsonl", "run -t LINK",
                      "run -r of a program that _exits", "run -r of a program that execs",
                      "run -r NAME_MAX name", "run -r on a full filesystem",
                      "run -t on a full filesystem", "program path of 300 bytes",
                      "a non-UTF-8 program path", "stderr closed"):
                t.skip(d, "the examples are not built (hipcc)")
            return t.done()

        # ---- 1. run's outputs ----
        victim2 = os.path.join(w, "victim2")
        with open(victim2, "w") as f:
            f.write("precious")
        rl = os.path.join(w, "rlink.json")
        os.symlink(victim2, rl)
        r = run(t, hipsvm, "run", "-q", "-r", rl, "--", ex, unset=CLEAN)
        t.ok(r.rc == 0 and content(victim2) == "precious" and not os.path.islink(rl) and
             strict_json(rl) is not None, "run -r LINK: the link replaced, its target never written")
        os.unlink(rl)
        os.symlink(victim2, rl)
        r = run(t, hipsvm, "run", "-q", "--", ex, env={"HIPSVM_REPORT": rl}, unset=CLEAN[:1])
        t.ok(r.rc == 0 and content(victim2) == "precious" and not os.path.islink(rl),
             "HIPSVM_REPORT=LINK hipsvm run: the link replaced, its target never written")
        mode = os.lstat(rl).st_mode if os.path.lexists(rl) else 0
        t.ok(stat.S_ISREG(mode) and stat.S_IMODE(mode) == 0o600, "run -r: the report is mode 0600",
             oct(mode))

        if root:
            tf = os.path.join(w, "their-trace.jsonl")
            with open(tf, "w") as f:
                f.write("theirs\n")
            os.chown(tf, NOBODY, NOBODY)
            r = run(t, hipsvm, "run", "-q", "-t", tf, "--", ex, unset=CLEAN)
            t.ok(r.rc == 1 and content(tf) == "theirs\n" and "another user" in r.err,
                 "run -t ANOTHER-USER'S-FILE: not emptied, exit 1 saying why")
        else:
            t.skip("run -t ANOTHER-USER'S-FILE", "chown needs root")
        r = run(t, hipsvm, "run", "-q", "-t", os.path.join(w, "nodir", "t.jsonl"), "--", ex, unset=CLEAN)
        t.ok(r.rc == 1 and "trace was not written" in r.err, "run -t nodir/t.jsonl: exit 1 saying why")
        tl = os.path.join(w, "tlink.jsonl")
        os.symlink(os.path.join(w, "tvictim"), tl)
        r = run(t, hipsvm, "run", "-q", "-t", tl, "--", ex, unset=CLEAN)
        t.ok(r.rc == 1 and not os.path.exists(os.path.join(w, "tvictim")),
             "run -t LINK: not followed, exit 1 saying why")

        py = shutil.which("python3") or sys.executable
        rx = os.path.join(w, "rx.json")
        r = run(t, hipsvm, "run", "-r", rx, "--", py, "-c", "import os; os._exit(0)", unset=CLEAN)
        t.ok(r.rc == 1 and "exit handlers" in r.err and not os.path.exists(rx),
             "run -r R of a program that _exits: exit 1, says why (no exit handlers ran)")
        if os.environ.get("HIPSVM_TEST_SANITIZED"):
            # the program sh execs is uninstrumented and not followed (the
            # shim took itself out of LD_PRELOAD, and the ASan runtime was
            # never in it): it loads the ASan-built simulator, whose runtime
            # then has no interceptors set, and dies calling through one
            # (SIGSEGV at ip 0; cli_examples' unfollowed child alike). The
            # unsanitized suite runs this case
            t.skip("run -r R of a program that execs another: exit 1, says why",
                   "crashes under the ASan-built shim")
        else:
            r = run(t, hipsvm, "run", "-r", rx, "--", "sh", "-c", f"exec {ex}", unset=CLEAN)
            t.ok(r.rc == 1 and "exit handlers" in r.err,
                 "run -r R of a program that execs another: exit 1, says why")

        long_name = os.path.join(w, "r" * 240 + ".json")   # 245 bytes: legal
        r = run(t, hipsvm, "run", "-q", "-r", long_name, "--", ex, unset=CLEAN)
        t.ok(r.rc == 0 and strict_json(long_name) is not None,
             "run -r NAME of 245 bytes: saved (the temporary name stays short)")

        long_shim = os.path.join(w, "s" * 240 + ".json")   # 245 bytes, relative to w
        r = run(t, ex, env={"HIPSVM_REPORT": os.path.basename(long_shim),
                            "LD_PRELOAD": os.environ["HIPSVM_TEST_SHIM"],
                            "LD_LIBRARY_PATH": os.environ["HIPSVM_TEST_SIMDIR"]}, cwd=w)
        t.ok(r.rc == 0 and strict_json(long_shim) is not None and "EIO" not in r.err,
             "HIPSVM_REPORT=NAME of 245 bytes (the shim alone): saved")

        full = os.path.join(w, "full")
        if root and mount_tmpfs(full, "256k"):
            try:
                prev = os.path.join(full, "r.json")
                with open(prev, "w") as f:
                    f.write('{"previous": true}')
                fill(full)
                r = run(t, hipsvm, "run", "-q", "-r", prev, "--", ex, unset=CLEAN)
                t.ok(r.rc == 1 and "ENOSPC" in r.err and strict_json(prev) == {"previous": True},
                     "run -r on a full filesystem: ENOSPC named, exit 1, the previous report kept")
                # still full: every event of the trace is lost
                fill(full)
                tr = os.path.join(full, "t.jsonl")
                r = run(t, hipsvm, "run", "-q", "-t", tr, "--", ex, env={"HIPSVM_SIM_GPUS": "1"},
                          unset=CLEAN)
                t.ok(r.rc == 1 and "ENOSPC" in r.err,
                     "run -t on a filesystem that fills up: the lost events said, exit 1")
                r = run(t, ex, env={"HIPSVM_TRACE": os.path.join(full, "t2.jsonl"),
                                   "LD_PRELOAD": os.environ["HIPSVM_TEST_SHIM"],
                                   "LD_LIBRARY_PATH": os.environ["HIPSVM_TEST_SIMDIR"]})
                t.ok("could not be written (ENOSPC)" in r.err,
                     "HIPSVM_TRACE without hipsvm on a full filesystem: the shim says what it lost")
            finally:
                subprocess.run(["umount", full])
        else:
            for d in ("run -r on a full filesystem", "run -t on a filling filesystem",
                      "HIPSVM_TRACE on a full filesystem"):
                t.skip(d, "a tmpfs cannot be mounted here (needs root)")

        # ---- 3. strings: program paths ----
        # 300 bytes of path with a 3-byte character across the old 255-byte cut
        deep = w
        while len(deep.encode()) < 230:
            deep = os.path.join(deep, "d" * 20)
        deep = os.path.join(deep, "é€" * 12)
        os.makedirs(deep, exist_ok=True)
        prog = os.path.join(deep, "prog")
        shutil.copy(ex, prog)
        rp = os.path.join(w, "long.json")
        r = run(t, hipsvm, "run", "-q", "-r", rp, "--", prog, unset=CLEAN)
        got = strict_json(rp)
        t.ok(r.rc == 0 and got is not None and got.get("program") == os.path.realpath(prog),
             f"program path of {len(prog.encode())} bytes: kept whole in the report",
             f"{r.describe()}\n{got and got.get('program')}")

        bd = os.path.join(w.encode(), b"bad\xff\xfe")
        os.makedirs(bd, exist_ok=True)
        bprog = os.path.join(bd, b"prog")
        shutil.copy(ex, bprog)
        rb = os.path.join(w, "bad.json")
        tb = os.path.join(w, "bad.trace.json")
        p = subprocess.run([hipsvm.encode(), b"trace", b"-q", b"-o", tb.encode(), b"-r", rb.encode(),
                            b"--", bprog], env={k: v for k, v in t.base.items() if k not in CLEAN},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=240)
        t.ok(p.returncode == 0 and strict_json(rb) is not None and strict_json(tb) is not None,
             "a program under bad\\xff\\xfe/: report and Perfetto trace are valid UTF-8 JSON",
             p.stderr.decode(errors="replace"))

        # ---- 5. a program started with stderr closed ----
        # The shim's warnings (here: a report it cannot write, at exit) must
        # not land in the trace, which would take descriptor 2.
        tc = os.path.join(w, "closed.jsonl")
        p = subprocess.run([ex], env=dict({k: v for k, v in t.base.items() if k not in CLEAN},
                                          HIPSVM_TRACE=tc, HIPSVM_HOOK="none",
                                          HIPSVM_REPORT=os.path.join(w, "nodir", "r.json"),
                                          LD_PRELOAD=os.environ["HIPSVM_TEST_SHIM"],
                                          LD_LIBRARY_PATH=os.environ["HIPSVM_TEST_SIMDIR"]),
                           preexec_fn=lambda: os.close(2), stdout=subprocess.PIPE, timeout=240)
        lines = content(tc, "rb").splitlines() if os.path.exists(tc) else []
        t.ok(lines and all(strict_json(x) is not None for x in lines),
             "stderr closed at start: the trace holds only events, no warning",
             f"rc={p.returncode} lines={[x for x in lines if strict_json(x) is None][:3]}")
    finally:
        subprocess.run(["umount", os.path.join(w, "full")], stderr=subprocess.DEVNULL)
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    tap.main(main)
