#!/usr/bin/env python3
# relocate.py - installs this build into a temporary directory (meson install
# --destdir), moves the prefix somewhere else, and uses the moved install as a
# user would: the files and links a package has, the SONAME, the man pages,
# hipsvm running an example with the shim and the simulator found next to it,
# and a program built with -lhipsvm (pkg-config) that hipsvm check recognises
# and hipsvm run runs. TAP output.
#
#   relocate.py LINKED.c      (environment: tests/install/meson.build)
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["HIPSVM_TEST_SRCDIR"], "tests", "tools"))
import tap  # noqa: E402


def rel(d):
    """An install dir as meson has it: relative to the prefix, or absolute."""
    return d.lstrip("/") if os.path.isabs(d) else d


def main(t):
    linked_c = sys.argv[1]
    build = os.environ["HIPSVM_TEST_BUILDDIR"]
    prefix = os.environ["INSTALL_PREFIX"]
    dirs = {k: os.environ["INSTALL_" + k.upper()] for k in
            ("bindir", "libdir", "mandir", "datadir", "includedir")}
    if any(os.path.isabs(d) and not d.startswith(prefix + "/") for d in dirs.values()):
        print("1..0 # SKIP install dirs outside the prefix cannot move with it")
        return 0
    dirs = {k: os.path.relpath(d, prefix) if os.path.isabs(d) else d for k, d in dirs.items()}
    w = tempfile.mkdtemp(prefix="hipsvm-install.")
    try:
        stage = os.path.join(w, "stage")
        r = t.run("meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", stage)
        t.ok(r.rc == 0, "meson install --destdir into a temporary directory")
        moved = os.path.join(w, "elsewhere", "opt")
        os.makedirs(os.path.dirname(moved))
        os.rename(stage + prefix, moved)
        shutil.rmtree(stage)
        lib = os.path.join(moved, dirs["libdir"])
        H = os.path.join(moved, dirs["bindir"], "hipsvm")

        so = os.path.join(lib, "libhipsvm.so")
        t.ok(os.readlink(so) == "libhipsvm.so.0" and os.readlink(so + ".0").startswith("libhipsvm.so.0.")
             and os.path.isfile(os.path.realpath(so)),
             "libhipsvm.so -> libhipsvm.so.0 -> libhipsvm.so.0.X.Y",
             f"{so} -> {os.path.realpath(so)}")
        r = t.run("readelf", "-d", so + ".0")
        t.ok(r.rc == 0 and "Library soname: [libhipsvm.so.0]" in r.out, "SONAME libhipsvm.so.0")
        sim = os.path.join(lib, "hipsvm", "sim", "libamdhip64.so.5")
        t.ok(os.path.exists(sim) and os.access(H, os.X_OK) and
             os.path.exists(os.path.join(moved, dirs["includedir"], "hipsvm.h")) and
             glob.glob(os.path.join(lib, "pkgconfig", "hipsvm.pc")),
             "bin/hipsvm, the simulator in <libdir>/hipsvm/sim, hipsvm.h and hipsvm.pc installed")

        doc = os.path.join(moved, dirs["datadir"], "doc", "libhipsvm")
        t.ok(all(os.path.exists(os.path.join(doc, f)) for f in
                 ("README.md", "cli.md", "ENVIRONMENT.md", "trace.md", "examples/unmap_race.hip")),
             "the docs and examples in share/doc/libhipsvm", sorted(os.listdir(doc))
             if os.path.isdir(doc) else doc)
        pages = [os.path.join(moved, dirs["mandir"], "man1", "hipsvm.1"),
                 os.path.join(moved, dirs["mandir"], "man7", "hipsvm-environment.7")]
        if shutil.which("groff"):
            r = t.run("groff", "-man", "-ww", "-z", "-Tutf8", *pages)
            t.ok(r.rc == 0 and not r.err.strip() and all(map(os.path.exists, pages)),
                 "man pages hipsvm(1) and hipsvm-environment(7): groff reads them without a warning")
            r = t.run("groff", "-man", "-Tutf8", "-P-cbou", pages[0])
            t.ok(r.rc == 0 and "NAME" in r.out and "hipsvm run" in r.out and "--follow" in r.out,
                 "hipsvm(1) shows the commands and the options")
        else:
            t.skip("man pages", "groff is not installed (groff-base)")
            t.skip("hipsvm(1) shows the commands", "groff is not installed")

        # Not the build tree's: nothing of the environment may point there.
        unset = ("HIPSVM_SHIM_PATH", "HIPSVM_SIM_DIR", "LD_LIBRARY_PATH", "LD_PRELOAD")
        ex = os.environ.get("EXAMPLE_managed_saxpy", "")
        if ex and os.path.exists(sim):
            r = t.run(H, "run", "--sim", "-v", "--report", f"{w}/r.json", "--", ex, unset=unset)
            rep = tap.load_json(f"{w}/r.json")
            t.ok(r.rc == 0 and f"LD_PRELOAD={lib}/libhipsvm.so.0" in r.err and
                 f"LD_LIBRARY_PATH={lib}/hipsvm/sim" in r.err and
                 tap.ctx(rep, "host_context", "allocations") == 2,
                 "the moved hipsvm runs an example with the moved shim and simulator")
        else:
            t.skip("the moved hipsvm runs an example", "examples or simulator not built")

        hip_inc = os.environ.get("HIP_INCLUDE", "/usr/include")
        pc = shutil.which("pkg-config") or shutil.which("pkgconf")
        if pc and os.path.exists(os.path.join(hip_inc, "hip", "hip_runtime_api.h")):
            env = {"PKG_CONFIG_PATH": os.path.join(lib, "pkgconfig")}
            # A build configured with pkgconfig.relocatable (the project's
            # default) writes prefix=${pcfiledir}/...; one configured before
            # that has the prefix written out, and is told the moved one.
            with open(os.path.join(lib, "pkgconfig", "hipsvm.pc")) as f:
                reloc = "${pcfiledir}" in f.read()
            opt = [] if reloc else [f"--define-variable=prefix={moved}"]
            r = t.run(pc, *opt, "--cflags", "--libs", "hipsvm", env=env)
            flags = r.out.split()
            norm = [f[:2] + os.path.normpath(f[2:]) if f[:2] in ("-L", "-I") else f for f in flags]
            t.ok(r.rc == 0 and f"-L{lib}" in norm and
                 f"-I{os.path.join(moved, dirs['includedir'])}" in norm,
                 "pkg-config hipsvm points into the moved prefix" +
                 ("" if reloc else " (prefix given: this build's .pc is not relocatable)"))
            exe = os.path.join(w, "linked")
            r = t.run(*shlex.split(os.environ.get("CC", "cc")), "-D__HIP_PLATFORM_AMD__", "-I" + hip_inc, linked_c,
                      "-o", exe, *flags, f"-Wl,-rpath,{lib}")
            t.ok(r.rc == 0, "a program links with -lhipsvm from the moved prefix")
            r = t.run(H, "check", exe, unset=unset)
            t.ok(r.rc == 0 and "linked with libhipsvm itself" in r.out and "VISIBLE" in r.out,
                 "hipsvm check: the program linked with -lhipsvm is recognised")
            if os.path.exists(sim):
                r = t.run(H, "run", "--sim", "--report", f"{w}/l.json", "--", exe, unset=unset)
                rep = tap.load_json(f"{w}/l.json")
                t.ok(r.rc == 0 and "linked: ok" in r.out and
                     tap.ctx(rep, "host_context", "allocations") == 1,
                     "hipsvm run: the linked program on the moved simulator, one allocation seen")
            else:
                t.skip("hipsvm run of the linked program", "simulator not built")
        else:
            for d in ("pkg-config hipsvm", "a program links with -lhipsvm", "hipsvm check",
                      "hipsvm run of the linked program"):
                t.skip(d, "no pkg-config or no HIP headers")
        return t.done()
    finally:
        shutil.rmtree(w, ignore_errors=True)


if __name__ == "__main__":
    tap.main(main)
