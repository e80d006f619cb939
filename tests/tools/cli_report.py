#!/usr/bin/env python3
# cli_report.py - hipsvm report on saved reports and hipsvm trace --from on
# saved raw events (the fixtures under tests/tools/fixtures). TAP output.
#
# Environment (tests/tools/meson.build): HIPSVM, HIPSVM_TEST_SRCDIR.
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402
from tap import crossing_slices, get, track_names  # noqa: E402


def lines(text):
    return text.splitlines()


def report(t, H, w, fix):
    r = t.run(H, "report", f"{fix}/report_full.json")
    t.ok(r.rc == 0 and all(s in r.out for s in (
        "hipsvm report for /opt/demo/unmap_race", "host_context   0-3",
        "1 unmap of live SVM memory (8.0 MiB)", "1 drain timed out",
        "112 stale faults were dropped")), "report: text of a saved report")
    r = t.run(H, "report", "--format", "json", f"{fix}/report_full.json")
    doc = json.loads(r.out) if r.rc == 0 else {}
    t.ok(r.rc == 0 and get(doc, "devices.1.drain_timeouts") == 1 and
         get(doc, "devices.0.faults.dropped") == 64 and get(doc, "schema") == "hipsvm-report/4",
         "report --format json: parses and keeps the counts")
    r = t.run(H, "report", "--format=json", f"{fix}/report_sparse.json")
    doc = json.loads(r.out) if r.rc == 0 else {}
    t.ok(r.rc == 0 and get(doc, "devices.0.drain_ns.max") == 0 and
         get(doc, "unmaps.partial") == 0 and get(doc, "devices.0.faults.raised") == 7,
         "report --format json: missing fields become 0")
    r = t.run(H, "report", "-f", "csv", f"{fix}/report_full.json")
    t.ok(r.rc == 0 and all(s in lines(r.out) for s in (
        "section,id,key,value", "device,1,drain_timeouts,1", "context,host_context,devices,0-3",
        "unmaps,,live_svm_unmapped_bytes,8388608")), "report --format csv: one value per row")
    r = t.run(H, "report", f"{fix}/report_sparse.json")
    t.ok(r.rc == 0 and "pid -" in r.out and "no unmap races" in r.out,
         "report: a sparse report shows - and zeros")
    r = t.run(H, "report", "-", stdin=open(f"{fix}/report_full.json").read())
    t.ok(r.rc == 0 and "unmap_race" in r.out, "report -: reads standard input")
    for f in ("text", "json", "csv"):
        r = t.run(H, "report", "--format", f, f"{fix}/report_wrong_types.json")
        t.ok(r.rc == 0 and r.out,
             f"report --format {f}: values of the wrong type show as 0 or -, no crash")
    r = t.run(H, "report", "--format", "json", f"{fix}/report_wrong_types.json")
    try:
        doc = json.loads(r.out)
    except ValueError:
        doc = {}
    t.ok(get(doc, "devices.3.allocations") == 1500 and get(doc, "devices.0.faults.raised") == 0,
         "report --format json of a report with wrong types is valid JSON")
    r = t.run(H, "report", f"{fix}/not_a_report.json")
    t.ok(r.rc == 2 and r.one_error_line() and "not a hipsvm report" in r.err,
         "report: another JSON document is refused, exit 2")
    r = t.run(H, "report", f"{fix}/truncated.json")
    t.ok(r.rc == 2 and r.one_error_line() and "line 1 column" in r.err,
         "report: truncated JSON, exit 2 with the position")
    r = t.run(H, "report", f"{w}/missing.json")
    t.ok(r.rc == 2 and r.one_error_line() and "No such file" in r.err,
         "report: missing file, exit 2")
    r = t.run(H, "report", "--format", "xml", f"{fix}/report_full.json")
    t.ok(r.rc == 2 and r.one_error_line(), "report: unknown format, exit 2")

    r = t.run(H, "report", "-o", f"{w}/out.txt", f"{fix}/report_full.json")
    text = open(f"{w}/out.txt").read() if os.path.exists(f"{w}/out.txt") else ""
    t.ok(r.rc == 0 and not r.out and "hipsvm report for /opt/demo/unmap_race" in text,
         "report -o FILE: the report into FILE, nothing on stdout")
    with open(f"{w}/keep.txt", "w") as f:
        f.write("keep\n")
    r = t.run(H, "report", "-o", f"{w}/keep.txt", f"{fix}/not_a_report.json")
    t.ok(r.rc == 2 and open(f"{w}/keep.txt").read() == "keep\n",
         "report -o FILE of a bad input: exit 2, FILE left as it was")
    r = t.run(H, "report", "--events", f"{fix}/events_basic.jsonl", f"{fix}/report_full.json")
    t.ok(r.rc == 2 and r.one_error_line(), "report --events without --html: usage error")
    r = t.run(H, "report", "--html", f"{w}/p.html", f"{fix}/report_sparse.json")
    page = open(f"{w}/p.html").read() if os.path.exists(f"{w}/p.html") else ""
    t.ok(r.rc == 0 and "<svg" not in page and "need the run's events" in page and
         "<table id=\"unmaps\">" in page,
         "report --html of an old report without events: the unmaps, and what is missing said")
    # The median drain time: exact for one or two drains, else the bucket.
    doc = json.load(open(f"{fix}/report_full.json"))
    d0 = doc["devices"][0]
    d0["drain_ns"] = {"count": 2, "median": 1024, "max": 2000, "total": 3000}
    d1 = doc["devices"][1]
    d1["drain_ns"] = {"count": 5, "median": 4096, "max": 9000, "total": 30000, "hist_lo": 12,
                      "hist": [4, 1]}
    doc["schema"] = "hipsvm-report/3"
    with open(f"{w}/med.json", "w") as f:
        json.dump(doc, f)
    r = t.run(H, "report", f"{w}/med.json")
    rows = [ln.split(None, 1) for ln in r.out.splitlines() if " us " in ln]
    t.ok(r.rc == 0 and any(x[0] == "0" and " 1.5 us " in x[1] for x in rows) and
         any(x[0] == "1" and " ~4.1 us " in x[1] for x in rows) and "under twice this" in r.out,
         "report: the median drain time exact for two drains, a labelled bucket for more")
    r = t.run(H, "report", "-f", "csv", f"{w}/med.json")
    t.ok(r.rc == 0 and "device,1,drain_ns.hist.12,4" in r.out.splitlines() and
         "device,1,drain_ns.hist.13,1" in r.out.splitlines(),
         "report --format csv: the drain histogram, one bucket a row")


def trace_from(t, H, w, fix):
    r = t.run(H, "trace", "--from", f"{fix}/events_basic.jsonl", "-o", f"{w}/trace.json")
    doc = tap.load_json(f"{w}/trace.json")
    ev = get(doc, "traceEvents", []) or []
    t.ok(r.rc == 0 and isinstance(get(doc, "traceEvents"), list) and "1 malformed line" in r.err
         and "ui.perfetto.dev" in r.err, "trace --from: writes JSON that parses, warns about the bad line")
    names = track_names(doc)
    t.ok({"GPU 0", "GPU 1", "host_context", "device:0 memory", "unmaps"} <= names,
         "trace: one track per GPU, host_context, device memory and unmaps", sorted(names))
    enames = {e.get("name") for e in ev}
    t.ok({"checkpoint", "drain", "drain (timeout)", "hipMallocManaged 16 MiB"} <= enames,
         "trace: checkpoint windows, drains (timeout named), allocation lifetimes")
    t.ok("GPU 0 faults" in enames and any(get(e, "args.dropped") == 64 for e in ev) and
         "host_context live bytes" in enames, "trace: fault and live-byte counters")
    t.ok(doc and not crossing_slices(doc), "trace: slices nest properly on every track",
         crossing_slices(doc)[:5])
    xs = [e for e in ev if e.get("ph") == "X"]
    cs = [e for e in ev if e.get("ph") == "C"]
    t.ok(len(xs) >= 6 and len(cs) >= 4 and all("dur" in e and "ts" in e for e in xs) and
         all("ts" in e for e in cs), "trace: X events carry ts and dur, C events ts")
    r = t.run(H, "trace", "--from", f"{fix}/events_weird.jsonl", "-o", f"{w}/weird.json")
    t.ok(r.rc == 0 and isinstance(get(tap.load_json(f"{w}/weird.json"), "traceEvents"), list) and
         "malformed line" in r.err,
         "trace --from events of the wrong shape: skipped or tolerated, valid JSON out")
    with open(f"{w}/many.jsonl", "w") as f:
        for i in range(3000):
            f.write('{"ts_ns":%d,"ev":"alloc","api":"hipMalloc","ptr":"0x%x","size":4096,'
                    '"ctx":"device:1","dev":1}\n' % (1000 + i, 65536 + i * 4096))
        for i in range(3000):
            f.write('{"ts_ns":%d,"ev":"free","ptr":"0x%x","ctx":"device:1"}\n'
                    % (10000 + i, 65536 + i * 4096))
    r = t.run(H, "trace", "--from", f"{w}/many.jsonl", "-o", f"{w}/many.json")
    doc = tap.load_json(f"{w}/many.json")
    t.ok(r.rc == 0 and "2936 allocations not drawn" in r.err and doc and
         not crossing_slices(doc) and "device:1 memory #64" in track_names(doc) and
         not any(get(e, "args.freed", True) is False for e in doc["traceEvents"]),
         "trace: 3000 live allocations: 64 lanes, the rest counted, frees paired, slices nest")
    r = t.run(H, "trace", "--from", f"{fix}/events_basic.jsonl", "-o", "-")
    t.ok(r.rc == 0 and "traceEvents" in r.out, "trace -o -: to standard output")
    r = t.run(H, "trace", "--from", f"{w}/none.jsonl", "-o", f"{w}/x.json")
    t.ok(r.rc == 2 and r.one_error_line() and not os.path.exists(f"{w}/x.json"),
         "trace --from a missing file: exit 2, no output left")
    os.makedirs(f"{w}/adir", exist_ok=True)
    with open(f"{w}/kept.json", "w") as f:
        f.write("keep\n")
    r = t.run(H, "trace", "--from", f"{w}/adir", "-o", f"{w}/kept.json")
    t.ok(r.rc == 2 and r.one_error_line() and "directory" in r.err and
         open(f"{w}/kept.json").read() == "keep\n",
         "trace --from a directory: exit 2, the output left as it was")
    r = t.run(H, "trace", "--from", f"{fix}/report_full.json", "-o", f"{w}/x.json")
    t.ok(r.rc == 1 and "no trace event" in r.err, "trace --from a file with no events: exit 1")
    r = t.run(H, "trace", "--from", f"{fix}/events_basic.jsonl", "--", "true")
    t.ok(r.rc == 2 and r.one_error_line(), "trace --from with a program: usage error")


def main(t):
    H = os.environ["HIPSVM"]
    fix = os.path.join(os.environ["HIPSVM_TEST_SRCDIR"], "tests", "tools", "fixtures")
    w = tempfile.mkdtemp(prefix="hipsvm-cli-test.")
    try:
        report(t, H, w, fix)
        trace_from(t, H, w, fix)
    finally:
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    tap.main(main)
