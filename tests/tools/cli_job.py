#!/usr/bin/env python3
# cli_job.py - hipsvm report of many reports (the job view) on reports made
# here from the fixture: rows, summary and outlier, the four formats, and
# every mixed or lossy input said, not merged. TAP output.
#
# Environment (tests/tools/meson.build): HIPSVM, HIPSVM_TEST_SRCDIR.
import copy
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402


def make(w, fix, name, rank, host="n1", pid=None, schema="hipsvm-report/4", program=None,
         coord=10, hip=None, rocr=""):
    doc = copy.deepcopy(fix)
    doc["schema"] = schema
    if schema == "hipsvm-report/4":
        doc.update(host=host, rank=str(rank), hip_visible_devices=hip if hip is not None else
                   f"{2 * rank},{2 * rank + 1}" if isinstance(rank, int) else "",
                   rocr_visible_devices=rocr)
    doc["pid"] = pid if pid is not None else 1000 + (rank if isinstance(rank, int) else 0)
    if program:
        doc["program"] = program
    doc["unmaps"]["coordinated"] = coord
    with open(f"{w}/{name}", "w") as f:
        json.dump(doc, f)


def main(t):
    H = os.environ["HIPSVM"]
    fix = json.load(open(os.path.join(os.environ["HIPSVM_TEST_SRCDIR"], "tests", "tools",
                                      "fixtures", "report_full.json")))
    w = tempfile.mkdtemp(prefix="hipsvm-job.")
    try:
        d = f"{w}/job"
        os.mkdir(d)
        # rank 2 unmapped far more than the others: the outlier
        for k, c in enumerate((10, 11, 40, 12)):
            make(d, fix, f"rep.{k}.json", k, coord=c)
        # a Perfetto trace beside them is not a report
        with open(f"{d}/hipsvm-trace.n1.1000.json", "w") as f:
            f.write('{"traceEvents":[]}')
        r = t.run(H, "report", d)
        rows = [ln.split() for ln in r.out.splitlines() if ln.startswith("  ") and ln.split()
                and ln.split()[0].isdigit()]
        t.ok(r.rc == 0 and "hipsvm job report: 4 ranks on 1 host" in r.out and
             [x[0] for x in rows] == ["0", "1", "2", "3"] and [x[1] for x in rows] == ["n1"] * 4,
             "report DIR: one row per rank, in rank order, with its host")
        line = next((ln for ln in r.out.splitlines() if "unmaps coordinated" in ln), "")
        t.ok(line.split()[2:7] == ["73", "10", "11.5", "40", "rank"] or
             (line.split()[2:6] == ["73", "10", "11", "40"] and "rank 2 (40)" in line),
             f"report DIR: total, min, median, max and the outlier rank ({line.strip()})")
        t.ok("passed over" in r.out and "hipsvm-trace.n1.1000.json: not a hipsvm report" in r.out,
             "report DIR: a JSON file that is not a report is passed over and said")
        t.ok("0,1" in r.out and "6,7" in r.out, "report DIR: the GPUs each rank was given")

        r = t.run(H, "report", "-f", "json", d)
        try:
            j = json.loads(r.out)
        except ValueError:
            j = {}
        s = j.get("summary", {}).get("unmaps_coordinated", {})
        t.ok(r.rc == 0 and j.get("schema") == "hipsvm-job/1" and j.get("reports") == 4 and
             s.get("total") == 73 and s.get("min") == 10 and s.get("max") == 40 and
             s.get("median") == 11 and tap.get(s, "outlier.rank") == "2" and
             tap.get(j, "ranks.2.unmaps_coordinated") == 40 and j.get("warnings") == [] and
             len(j.get("skipped", [])) == 1,
             "report --format json DIR: hipsvm-job/1 with the rows and the summary")
        r = t.run(H, "report", "-f", "csv", d)
        t.ok(r.rc == 0 and all(x in r.out.splitlines() for x in (
            "section,id,key,value", "job,,reports,4", "rank,2,unmaps_coordinated,40",
            "summary,unmaps_coordinated,outlier,2", "summary,unmaps_coordinated,total,73",
            'rank,1,gpus,"2,3"')), "report --format csv DIR: one value per row")
        r = t.run(H, "report", "--html", f"{w}/job.html", d)
        page = open(f"{w}/job.html").read() if os.path.exists(f"{w}/job.html") else ""
        t.ok(r.rc == 0 and page.count("<svg") == 8 and page.count('<rect class="outlier"') >= 1 and
             "<script" not in page and 'id="ranks"' in page,
             "report --html DIR: a chart per measure, a bar per rank, the outlier marked, no script")
        files = [f"{d}/rep.{k}.json" for k in (3, 0)]
        r = t.run(H, "report", "-f", "json", *files)
        try:
            j = json.loads(r.out)
        except ValueError:
            j = {}
        t.ok(r.rc == 0 and [x["rank"] for x in j.get("ranks", [])] == ["0", "3"] and
             any("2 ranks below the highest (3) without a report: 1,2" in x
                 for x in j.get("warnings", [])),
             "report FILE FILE: the files named, in rank order; the missing ranks said")

        # mixed inputs: said, never merged silently
        m = f"{w}/mixed"
        os.mkdir(m)
        make(m, fix, "a.json", 0)
        make(m, fix, "b.json", 1, program="/opt/other/prog")
        make(m, fix, "c.json", 1, pid=2001)
        make(m, fix, "old.json", "", schema="hipsvm-report/3", pid=3000)
        make(m, fix, "gpu.json", 2, hip="1")
        with open(f"{m}/cut.json", "w") as f:
            f.write(json.dumps(fix)[:200])
        r = t.run(H, "report", m)
        warn = [ln for ln in r.out.splitlines() if ln.strip().startswith("!")]
        t.ok(r.rc == 0 and any("2 schemas" in x for x in warn) and
             any("2 programs" in x for x in warn) and "[2]" in r.out,
             "report DIR: other schemas and other programs are said, each row names its program")
        t.ok(any("rank 1 is in more than one report" in x for x in warn) and
             any("no host or rank" in x for x in warn) and
             any("ranks 0 and 2 on host n1 were both given GPU 1" in x for x in warn) and
             any("cut.json: not valid JSON" in x for x in warn),
             "report DIR: a repeated rank, reports without rank, a shared GPU and a cut "
             "report are said")
        r = t.run(H, "report", "-f", "csv", m)
        t.ok(r.rc == 0 and sum(1 for ln in r.out.splitlines() if ln.startswith("warning,")) >= 5,
             "report --format csv DIR: the warnings as rows")

        # errors: an explicit non-report, an empty directory, --events
        r = t.run(H, "report", f"{d}/rep.0.json", f"{d}/hipsvm-trace.n1.1000.json")
        t.ok(r.rc == 2 and r.one_error_line() and "not a hipsvm report" in r.err,
             "report FILE FILE: a named file that is not a report is an error, exit 2")
        os.mkdir(f"{w}/empty")
        r = t.run(H, "report", f"{w}/empty")
        t.ok(r.rc == 2 and "no hipsvm report" in r.err, "report of an empty directory: exit 2")
        with open(f"{w}/keep.txt", "w") as f:
            f.write("keep\n")
        r = t.run(H, "report", "-o", f"{w}/keep.txt", f"{w}/empty")
        t.ok(r.rc == 2 and open(f"{w}/keep.txt").read() == "keep\n",
             "report -o FILE of no report: FILE left as it was")
        r = t.run(H, "report", "--html", f"{w}/x.html", "--events", f"{w}/e.jsonl", d)
        t.ok(r.rc == 2 and r.one_error_line() and "--events" in r.err,
             "report --events with a job: usage error")
        # a host name with a terminal escape never reaches the terminal
        e = f"{w}/esc"
        os.mkdir(e)
        make(e, fix, "x.json", 0, host="n\x1b]0;owned\x07")
        r = t.run(H, "report", e)
        t.ok(r.rc == 0 and "\x1b" not in r.out and "\x07" not in r.out,
             "report DIR: control characters of a host name are not written to the terminal")
    finally:
        shutil.rmtree(w, ignore_errors=True)
    return t.done()


tap.main(main)
