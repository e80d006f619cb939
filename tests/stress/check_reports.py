#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_reports.py REPORT_DIR PROGRAM_OUTPUT - scripts/test-stress's check of a
shim run of hipsvm_stress: the JSON reports that the parent and every forked
child wrote (REPORT_DIR/report.*.json) against each other and against the
counters line the program printed ("stress: allocs=... frees=...").

Every report: each context and device has allocations == frees and
live_bytes == 0, no drain timeout, no uncoordinated unmap, no free of an
unknown pointer, the hook connected. The parent's report (the one with the
most allocations: a child makes two): the allocation and free totals equal
the program's, the drains equal what the simulator served, at least one
coordinated unmap per partial unmap. One report per process (1 + forks).
Prints one summary line and a MISMATCH line per failed check; exit 1 on any.
"""
import glob
import json
import os
import re
import sys


def counters(out):
    line = [l for l in open(out) if l.startswith("stress: allocs=")]
    if not line:
        sys.exit("no counters line in the program's output")
    return dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", line[-1]))


def load_reports(rdir, bad):
    reports = {}
    for f in sorted(glob.glob(os.path.join(rdir, "report.*.json"))):
        try:
            reports[f] = json.load(open(f))
        except ValueError as e:
            bad.append("%s: not JSON (%s)" % (f, e))
    return reports


def check_one(who, r, bad):
    for c in r.get("contexts", []):
        if c.get("allocations") != c.get("frees") or c.get("live_bytes"):
            bad.append("%s: context %s: %s allocations, %s frees, %s live bytes"
                       % (who, c.get("id"), c.get("allocations"), c.get("frees"),
                          c.get("live_bytes")))
    for d in r.get("devices", []):
        if d.get("allocations") != d.get("frees") or d.get("live_bytes"):
            bad.append("%s: device %s: %s allocations, %s frees, %s live bytes"
                       % (who, d.get("index"), d.get("allocations"), d.get("frees"),
                          d.get("live_bytes")))
        if d.get("drain_timeouts"):
            bad.append("%s: device %s: %s drain timeouts"
                       % (who, d.get("index"), d.get("drain_timeouts")))
    u = r.get("unmaps", {})
    if u.get("uncoordinated"):
        bad.append("%s: %s uncoordinated unmaps" % (who, u.get("uncoordinated")))
    e = r.get("errors", {})
    if e.get("unknown_pointer_frees"):
        bad.append("%s: %s frees of unknown pointers" % (who, e.get("unknown_pointer_frees")))
    if r.get("hook", {}).get("state") != "connected":
        bad.append("%s: hook %s (no coordination was tested)" % (who, r.get("hook")))


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: check_reports.py REPORT_DIR PROGRAM_OUTPUT")
    rdir, out = argv[1], argv[2]
    want = counters(out)
    bad = []
    reports = load_reports(rdir, bad)
    if not reports:
        sys.exit("no report written (HIPSVM_REPORT)")
    # The pid does not tell the parent reliably; the most allocations does
    # (children make two).
    parent = max(reports.values(),
                 key=lambda r: sum(c.get("allocations", 0) for c in r.get("contexts", [])))
    for r in reports.values():
        check_one("parent" if r is parent else "child %s" % r.get("pid"), r, bad)
    allocs = sum(c.get("allocations", 0) for c in parent.get("contexts", []))
    frees = sum(c.get("frees", 0) for c in parent.get("contexts", []))
    drains = sum(d.get("drains", 0) for d in parent.get("devices", []))
    if allocs != want["allocs"] or frees != want["frees"]:
        bad.append("parent: report has %d allocations, %d frees; the program made %d, %d"
                   % (allocs, frees, want["allocs"], want["frees"]))
    if drains != want["sim_drains"]:
        bad.append("parent: report has %d drains; the simulator served %d"
                   % (drains, want["sim_drains"]))
    coord = parent.get("unmaps", {}).get("coordinated", 0)
    if coord < want["partial_unmaps"]:
        bad.append("parent: %d coordinated unmaps for %d partial unmaps"
                   % (coord, want["partial_unmaps"]))
    if len(reports) != 1 + want["forks"]:
        bad.append("%d reports for 1 parent and %d children" % (len(reports), want["forks"]))
    print("  reports: %d (parent + %d children); parent: %d allocations, %d frees, %d drains, "
          "%d coordinated unmaps" % (len(reports), len(reports) - 1, allocs, frees, drains, coord))
    for b in bad:
        print("  MISMATCH: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
