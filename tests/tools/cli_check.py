#!/usr/bin/env python3
# cli_check.py - hipsvm check on binaries of every kind (a hipcc program, a
# setuid copy, a static one, one with its own hipMalloc, HIP through a
# library, non-ELF files, truncated and corrupt ELF files) and hipsvm
# options. TAP output.
#
# Environment (tests/tools/meson.build): HIPSVM, HIPSVM_TEST_SRCDIR,
# OWN_RUNTIME; when built: EXAMPLE_managed_saxpy, STATIC_BIN, USES_HIPWRAP.
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402


def has_line(text, prefix):
    return any(line.startswith(prefix) for line in text.splitlines())


def check(t, H, w, fix):
    ex = os.environ.get("EXAMPLE_managed_saxpy", "")
    if ex and os.access(ex, os.X_OK):
        r = t.run(H, "check", ex)
        t.ok(r.rc == 0 and "verdict: VISIBLE" in r.out and "libamdhip64.so.5" in r.out and
             "hipMallocManaged" in r.out, "check: a hipcc binary is visible (exit 0)")
        shutil.copy(ex, f"{w}/suid")
        os.chmod(f"{w}/suid", 0o4755)
        r = t.run(H, "check", f"{w}/suid")
        t.ok(r.rc == 1 and "setuid" in r.out and "NOT VISIBLE" in r.out,
             "check: a setuid binary is not visible (exit 1)")
        r = t.run(H, "check", "-q", ex)
        t.ok(r.rc == 0 and len(r.out.splitlines()) == 1, "check -q: only the verdict")
    else:
        t.skip("check: a hipcc binary is visible", "hipcc not found: examples not built")
        t.skip("check: a setuid binary is not visible", "hipcc not found")
        t.skip("check -q: only the verdict", "hipcc not found")
    static = os.environ.get("STATIC_BIN", "")
    if static:
        r = t.run(H, "check", static)
        t.ok(r.rc == 1 and "statically linked" in r.out and "NOT VISIBLE" in r.out,
             "check: a static binary is not visible (exit 1)")
    else:
        t.skip("check: a static binary", "no static libc to link one")
    r = t.run(H, "check", os.environ["OWN_RUNTIME"])
    t.ok(r.rc == 1 and "defines hipMalloc, hipFree itself" in r.out and "NOT VISIBLE" in r.out,
         "check: a program with its own hipMalloc and no libamdhip64 is not visible")
    wrap = os.environ.get("USES_HIPWRAP", "")
    if wrap:
        r = t.run(H, "check", wrap)
        t.ok(r.rc == 0 and "via libhipwrap.so" in r.out and "libhipwrap.so calls hipMalloc" in r.out
             and "RUNPATH" in r.out, "check: HIP reached through a library (RUNPATH) is visible")
    else:
        t.skip("check: HIP through a library", "no HIP headers or libamdhip64")
    r = t.run(H, "check", f"{fix}/report_full.json")
    t.ok(r.rc == 2 and r.one_error_line() and "not an ELF file" in r.err,
         "check: a file that is not ELF is an error (exit 2)")
    with open(f"{w}/script.sh", "w") as f:
        f.write("#!/bin/sh\necho hi\n")
    os.chmod(f"{w}/script.sh", 0o755)
    r = t.run(H, "check", f"{w}/script.sh")
    t.ok(r.rc == 2 and "script" in r.err, "check: a script is named as such (exit 2)")
    r = t.run(H, "check", "sh")
    t.ok(r.rc == 1 and "not a HIP program" in r.out,
         "check: a program without HIP (found in PATH) is not visible")
    r = t.run(H, "check", f"{w}/absent")
    t.ok(r.rc == 2 and r.one_error_line(), "check: a missing file is an error (exit 2)")
    r = t.run(H, "check")
    t.ok(r.rc == 2 and r.one_error_line(), "check without a program: exit 2")
    # A copy cut short, at several places (inside the program headers, inside
    # a segment, before the section headers), and garbage after a valid magic.
    whole = open(H, "rb").read()
    for cut in (100, 600, 3000):
        with open(f"{w}/cut{cut}", "wb") as f:
            f.write(whole[:cut])
        r = t.run(H, "check", f"{w}/cut{cut}")
        t.ok(r.rc == 2 and r.one_error_line() and "truncated" in r.err and
             "statically linked" not in r.out,
             f"check: an ELF file cut at byte {cut} is an input error (exit 2, truncated)")
    with open(f"{w}/corrupt", "wb") as f:
        f.write(b"\177ELF\002\001\001" + b"Z" * 3000)
    r = t.run(H, "check", f"{w}/corrupt")
    t.ok(r.rc == 2 and r.one_error_line() and "corrupt" in r.err,
         "check: an ELF file whose headers do not hold together is an input error (exit 2, corrupt)")


def options(t, H):
    r = t.run(H, "options")
    t.ok(r.rc == 0 and has_line(r.out, "HIPSVM_POLICY=default") and
         has_line(r.out, "HIPSVM_SIM_GPUS=4") and "HIPSVM_SHIM_PATH" in r.out,
         "options: every option with its value")
    r = t.run(H, "options", env={"HIPSVM_POLICY": "oversubscribe", "HIPSVM_SHIM_PATH": "/x"})
    t.ok(r.rc == 0 and has_line(r.out, "HIPSVM_POLICY=oversubscribe") and "unknown" not in r.err,
         "options: the environment's values, tool-only variables not called unknown")
    r = t.run(H, "options", env={"HIPSVM_SIM_GPUS": "100"})
    t.ok(r.rc == 0 and "HIPSVM_SIM_GPUS=100" in r.err and has_line(r.out, "HIPSVM_SIM_GPUS=4"),
         "options: a bad value in the environment is reported")
    r = t.run(H, "options", "SIM_MEM=64M")
    t.ok(r.rc == 0 and has_line(r.out, "HIPSVM_SIM_MEM=64M"), "options NAME=VALUE: previews a value")
    r = t.run(H, "options", "NO_SUCH=1")
    t.ok(r.rc == 2 and r.one_error_line(), "options: unknown name, exit 2")
    r = t.run(H, "options", "POLICY=bogus")
    t.ok(r.rc == 2 and "POLICY=bogus" in r.err, "options POLICY=bogus: refused as the shim would, exit 2")
    r = t.run(H, "options", env={"HIPSVM_POLICY": "bogus"})
    t.ok(r.rc == 0 and "HIPSVM_POLICY=bogus" in r.err,
         "options: a bad policy in the environment is reported")


def main(t):
    H = os.environ["HIPSVM"]
    fix = os.path.join(os.environ["HIPSVM_TEST_SRCDIR"], "tests", "tools", "fixtures")
    w = tempfile.mkdtemp(prefix="hipsvm-cli-test.")
    try:
        check(t, H, w, fix)
        options(t, H)
    finally:
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    tap.main(main)
