#!/usr/bin/env python3
# trace_chromium.py - the trace of a 4-thread run read by a real reader of the
# Chrome trace format: the trace engine of Chromium's DevTools (its
# Performance panel), from Debian's chromium, run headless. TAP output; exit
# 77 (skipped) when no chromium is installed.
#
#   trace_chromium.py HIPSVM STRESS_BINARY
#
# The engine builds a tree of slices per thread track and leaves out a slice
# that crosses its parent: so every slice of the file must be in a tree. A
# control trace with a crossing slice shows that the check can fail.
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
import tap  # noqa: E402  (runs without a sanitizer preload)

DEVTOOLS = "devtools://devtools/bundled/devtools_app.html"

# Parses TRACE (a JSON text) with every handler; per thread track: its name,
# the slices the engine took, and how many of them are in its tree.
PARSE_JS = r"""
(async () => {
  const m = await import("./models/trace/trace.js");
  const doc = JSON.parse(TRACE);
  const model = m.TraceModel.Model.createWithAllHandlers();
  await model.parse(doc.traceEvents, {metadata: {}});
  const d = model.parsedTrace(0).data;
  const tracks = [];
  let inTree = 0, entries = 0;
  for (const [pid, p] of d.Renderer.processes) {
    for (const [tid, t] of p.threads) {
      let n = 0;
      for (const e of t.entries) if (d.Renderer.entryToNode.has(e)) n++;
      tracks.push({pid, tid, name: t.name, entries: t.entries.length, inTree: n});
      inTree += n;
      entries += t.entries.length;
    }
  }
  return {tracks, inTree, entries, warnings: [...d.Warnings.perWarning.keys()]};
})()
"""

n = 0
fails = 0


def ok(cond, desc, detail=""):
    global n, fails
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {desc}")
    if not cond:
        fails += 1
        for line in str(detail).splitlines()[:15]:
            print(f"#   {line}")


def parse(browser, session, text):
    return browser.evaluate(session, PARSE_JS.replace("TRACE", json.dumps(text)))


def main():
    hipsvm, stress = sys.argv[1], sys.argv[2]
    exe = cdp.find_chromium()
    if not exe:
        print("1..0 # SKIP chromium is not installed (apt-get install chromium)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stress.json")
        p = subprocess.run([hipsvm, "trace", "-q", "-o", out, "--", stress] + tap.stress_args(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=240)
        ok(p.returncode == 0 and os.path.exists(out), "hipsvm trace of the 4-thread stress run",
           p.stderr.decode(errors="replace")[-1500:])
        text = open(out).read() if os.path.exists(out) else "{}"
    doc = json.loads(text)
    xs = [e for e in doc.get("traceEvents", []) if e.get("ph") == "X"]

    b = cdp.Browser(exe)
    try:
        s = b.open_page(DEVTOOLS)
        try:
            r = parse(b, s, text)
        except RuntimeError as ex:
            r = None
            ok(False, "Chromium's trace engine parses the trace", ex)
        else:
            ok(True, "Chromium's trace engine parses the trace")
        if r:
            ok(r["entries"] == len(xs), f"it takes every slice ({len(xs)}) onto a track",
               f"engine {r['entries']}, file {len(xs)}")
            ok(r["inTree"] == r["entries"] and r["entries"] > 0,
               "every slice is in its track's tree (none crosses another)",
               "\n".join(f"{t['name']}: {t['entries'] - t['inTree']} left out"
                         for t in r["tracks"] if t["inTree"] != t["entries"]))
            names = {t["name"] for t in r["tracks"]}
            ok(any(str(nm).startswith("GPU") and "#" in str(nm) for nm in names),
               "it names the GPU lanes", sorted(map(str, names))[:20])
            ok(not r["warnings"], "no warning from the engine", r["warnings"])
        # Control: a slice that crosses its parent is left out of the tree.
        bad = {"traceEvents": [
            {"ph": "X", "cat": "c", "pid": 1, "tid": 1, "name": "a", "ts": 0, "dur": 10},
            {"ph": "X", "cat": "c", "pid": 1, "tid": 1, "name": "b", "ts": 5, "dur": 10}]}
        r = parse(b, s, json.dumps(bad))
        ok(r and r["entries"] == 2 and r["inTree"] == 1,
           "control: the engine leaves out a crossing slice (the check above can fail)", r)
    finally:
        b.close()
    print(f"1..{n}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
