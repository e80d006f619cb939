#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_refs.py SRCDIR: the repository stands on its own.

Fails (TAP) when a tracked text file cites the background material the team
was given but the repository does not hold (its specification, behaviour
and interposer notes, the seed documents), or names a repository path that
does not exist: a path-like word (dir/file.ext, with a known top-level
directory or a file at the top) in docs/, README.md, and the comments of
the sources.
"""
import os
import re
import subprocess
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else "."
# (spelt in pieces, so that this file does not name them itself)
BACKGROUND = re.compile(r"\bS" r"PEC(\.md| section| §| [0-9])|HIP-BEHA" r"VIOUR|INTER" r"POSER(\.md)?\b|"
                        r"\bs" r"eed 00[0-9]|shared/s" r"pec")
DIRS = ("src", "sim", "preload", "kernel", "tools", "tests", "docs", "bench", "fuzz",
        "examples", "scripts", "include", "models")
PATH = re.compile(r"(?<![\w./@-])((?:%s)/[\w./+-]*[\w+-])" % "|".join(DIRS))
TEXT = (".c", ".h", ".md", ".sh", ".py", ".build", ".hip", ".pml", ".txt", "")
# paths of the Linux tree that the kernel docs name (not this repository's)
OTHER_TREES = ("include/uapi/", "include/linux/", "scripts/config", "scripts/sign-file",
               "drivers/", "mm/",
               # and of ROCm's hip-tests, which bench/hiptests builds from a checkout
               "tests/catch")


def files():
    out = subprocess.run(["git", "-C", TOP, "ls-files"], capture_output=True, text=True,
                         check=True).stdout.split()
    return [f for f in out if os.path.splitext(f)[1] in TEXT and not f.endswith(".json")
            and not f.startswith("fuzz/corpus")]


def exists(p, tracked, here, include=False):
    p = p.rstrip(".")
    # from the top, or (meson.build, scripts) from the naming file's folder
    if os.path.exists(os.path.join(TOP, p)) or os.path.exists(os.path.join(TOP, here, p)):
        return True
    # an #include of the core is qualified from src/ ("sim/context.h")
    if include and os.path.exists(os.path.join(TOP, "src", p)):
        return True
    if p.startswith(OTHER_TREES):
        return True
    if any(ch in p for ch in "*<>{}%$") or "..." in p:
        return True		# a pattern
    if p.endswith("_"):
        return any(t.startswith(p) for t in tracked)	# a name prefix
    # what the build makes of a source: build/<dir>/<name>, .so, .ko
    stem = re.sub(r"\.(ko|so(\.[0-9]+)*)$", "", p)
    if stem != p and os.path.isdir(os.path.join(TOP, os.path.dirname(p))):
        return True
    return any(os.path.exists(os.path.join(TOP, stem + ext)) for ext in (".c", ".hip", ".sh"))


def main():
    bad_bg, bad_path = [], []
    tracked = files()
    for f in tracked:
        if f.startswith("kernel/amdgpu/") and f.endswith(".patch"):
            continue
        try:
            lines = open(os.path.join(TOP, f), encoding="utf-8", errors="replace").read().splitlines()
        except OSError:
            continue
        for n, line in enumerate(lines, 1):
            if f == "tests/docs/check_refs.py":
                continue
            if BACKGROUND.search(line):
                bad_bg.append("%s:%d: %s" % (f, n, line.strip()[:100]))
            for m in PATH.finditer(line):
                p = m.group(1)
                if not exists(p, tracked, os.path.dirname(f), line.lstrip().startswith("#include")):
                    bad_path.append("%s:%d: %s" % (f, n, p))
    print("1..2")
    for i, (what, bad) in enumerate((("no citation of background files outside the repository", bad_bg),
                                      ("every repository path named exists", bad_path)), 1):
        print(("ok" if not bad else "not ok") + " %d - %s" % (i, what))
        for b in bad:
            print("#   " + b)
    return 0 if not (bad_bg or bad_path) else 1


if __name__ == "__main__":
    sys.exit(main())
