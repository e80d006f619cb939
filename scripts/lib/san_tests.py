#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""san_tests.py - the decisions of scripts/test-sanitizers that are not
orchestration, as three subcommands:

  suites BUILD SUITE...           print (one line, spaces) the SUITEs that have
                                  tests in BUILD's meson test list
  select BUILD NAME EXCL SUITE... print one test name a line: the tests of the
                                  SUITEs whose program was built; for NAME
                                  "tsan" not those matching a pattern of EXCL
                                  (comma-separated globs) nor the Criterion
                                  runners (they cannot start under TSan). What
                                  is left out is said on stderr.
  check-logs LOGS BUILD ROOT      the sanitizer reports in LOGS: exit 1 when
                                  any report is there, except a leak whose
                                  stack has no frame of code from BUILD or
                                  ROOT (a program we do not build, such as
                                  sort or sh run by a test script with the
                                  runtime preloaded): listed, not counted.
"""
import fnmatch
import json
import os
import re
import subprocess
import sys


def meson_tests(build):
    return json.loads(subprocess.check_output(["meson", "introspect", "--tests", build]))


def suites_of(t):
    return set(s.split(":")[-1] for s in t["suite"])


def cmd_suites(build, *want):
    found = set()
    for t in meson_tests(build):
        found |= suites_of(t)
    print(" ".join(s for s in want if s in found))
    return 0


def is_criterion(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return "libcriterion" in out


def cmd_select(build, name, excl_text, *suites):
    tsan = name == "tsan"
    excl = [e.strip() for e in excl_text.split(",") if e.strip()]
    suites = set(suites)
    keep, missing, skip, crit = [], [], [], []
    for t in meson_tests(build):
        if not suites & suites_of(t):
            continue
        if not os.path.exists(t["cmd"][0]):
            missing.append(t["name"])
        elif tsan and any(fnmatch.fnmatch(t["name"], e) for e in excl):
            skip.append(t["name"])
        elif tsan and is_criterion(t["cmd"][0]):
            crit.append(t["name"])
        else:
            keep.append(t["name"])
    print("\n".join(keep))
    if missing:
        sys.stderr.write("%s: not run (program not built): %s\n" % (name, ", ".join(missing)))
    if tsan:
        sys.stderr.write("tsan: not run (programs not instrumented): %s\n"
                         % (", ".join(skip) or "none"))
        sys.stderr.write("tsan: not run (Criterion runners cannot start under TSan): %s\n"
                         % (", ".join(crit) or "none"))
    return 0


# A forked child of a multi-threaded process: clang-14's registry still lists
# the parent's threads, and LSan warns about each (not a report).
NOT_SUSPENDED = re.compile(
    r"==\d+==Running thread \d+ was not suspended\. False leaks are possible\.$")


def cmd_check_logs(logs, build, root):
    ours = (build.rstrip("/") + "/", root.rstrip("/") + "/")
    bad = 0
    for f in sorted(os.listdir(logs)):
        text = open(os.path.join(logs, f), errors="replace").read()
        text = "\n".join(l for l in text.splitlines() if not NOT_SUSPENDED.match(l))
        if not text.strip():
            continue
        frames = re.findall(r"^\s+#\d+ .*$", text, re.M)
        if "LeakSanitizer" in text and "ERROR: AddressSanitizer" not in text.replace(
                "SUMMARY: AddressSanitizer", "") and not any(
                o in fr for fr in frames for o in ours):
            progs = sorted(set(re.findall(r"\((/[^ +)]+)\+0x", text)) - set(
                p for p in re.findall(r"\((/[^ +)]+)\+0x", text) if "libclang_rt" in p))
            print("  ignored: leak in a program not built here: %s (%s)"
                  % (", ".join(progs) or "?", f))
            continue
        bad += 1
        if bad <= 10:
            print("---- " + os.path.join(logs, f))
            lines = [l for l in text.splitlines() if l.strip()]
            print("\n".join(lines[:30]))
    if bad:
        print("%d sanitizer report(s) in %s" % (bad, logs))
    return 1 if bad else 0


COMMANDS = {"suites": (cmd_suites, 1), "select": (cmd_select, 3),
            "check-logs": (cmd_check_logs, 3)}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS or \
            len(sys.argv) - 2 < COMMANDS[sys.argv[1]][1]:
        sys.exit(__doc__)
    fn, _ = COMMANDS[sys.argv[1]]
    sys.exit(fn(*sys.argv[2:]))
