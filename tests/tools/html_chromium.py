#!/usr/bin/env python3
# html_chromium.py - hipsvm report --html of a real run (unmap_race on the
# simulator, with its raw events), opened in headless Chromium from Debian:
# the page loads with no error and no request, every chart is laid out, and
# its PNG rendering shows the bars and the lines. TAP output; exit 77 (skip)
# when chromium is not installed, or the examples or simulator not built.
#
# Environment (tests/tools/meson.build): HIPSVM, EXAMPLE_unmap_race.
import base64
import os
import shutil
import struct
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
import tap  # noqa: E402

CHARTS = ["drain-hist-gpu0", "drain-hist-gpu1", "faults-gpu0", "faults-gpu1", "live-host",
          "unmaps-timeline"]


def png_pixels(data):
    """(width, height, rows of RGB(A) tuples) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} colour type {ctype}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    stride = w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def count_near(rows, bpp, rgb, tol=24):
    n = 0
    for row in rows:
        for i in range(0, len(row), bpp):
            if all(abs(row[i + k] - rgb[k]) <= tol for k in range(3)):
                n += 1
    return n


def main(t):
    H = os.environ["HIPSVM"]
    ex = os.environ.get("EXAMPLE_unmap_race", "")
    exe = cdp.find_chromium()
    if not exe:
        print("1..0 # SKIP chromium is not installed (apt-get install chromium)")
        return 77
    if not ex or not os.access(ex, os.X_OK):
        print("1..0 # SKIP the examples are not built (hipcc)")
        return 77
    w = tempfile.mkdtemp(prefix="hipsvm-html.")
    try:
        r = t.run(H, "run", "--sim", "-q", "--report", f"{w}/r.json", "--trace", f"{w}/ev.jsonl",
                  "--", ex, timeout=120)
        if not os.path.exists(f"{w}/r.json"):
            print(f"1..0 # SKIP no report from the run (shim or simulator not built): {r.err[-200:]}")
            return 77
        page = f"{w}/page.html"
        r = t.run(H, "report", "--html", page, "--events", f"{w}/ev.jsonl", f"{w}/r.json")
        html = open(page).read() if os.path.exists(page) else ""
        t.ok(r.rc == 0 and html.startswith("<!DOCTYPE html>"), "report --html writes a page")
        low = html.lower()
        t.ok(html and not any(s in low for s in ("<script", "http:", "https:", " src=", "<link",
                                                  "url(", "@import")),
             "the page is self-contained: no script, no URL, nothing to fetch")
        r = t.run(H, "report", "--html", f"{w}/bad.html", "--events", f"{w}/none.jsonl", f"{w}/r.json")
        t.ok(r.rc == 2 and r.one_error_line() and not os.path.exists(f"{w}/bad.html"),
             "report --html with a missing events file: exit 2, no page left")

        b = cdp.Browser(exe, ("--window-size=820,3000", "--hide-scrollbars"))
        try:
            s = b.open_page("about:blank")
            for dom in ("Page", "Runtime", "Log", "Network"):
                b.call(dom + ".enable", {}, s)
            b.events.clear()
            b.call("Page.navigate", {"url": "file://" + page}, s)
            deadline = time.time() + 30
            while time.time() < deadline and b.evaluate(s, "document.readyState") != "complete":
                time.sleep(0.1)
            laid = b.evaluate(s, "JSON.stringify([...document.querySelectorAll('svg')].map("
                                 "e => [e.id, e.getBoundingClientRect().width, e.childElementCount]))")
            title = b.evaluate(s, "document.title")
            shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                          s)
            b.call("Runtime.evaluate", {"expression": "1"}, s)   # drain pending events
            errors = [e for e in b.events if e.get("sessionId") == s and (
                e["method"] in ("Runtime.exceptionThrown", "Network.loadingFailed") or
                (e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] == "error") or
                (e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error"))]
            requests = [e["params"]["request"]["url"] for e in b.events
                        if e.get("sessionId") == s and e["method"] == "Network.requestWillBeSent"]
        finally:
            b.close()
        t.ok(not errors, "chromium loads the page without an error", errors[:5])
        t.ok(requests == ["file://" + page], "chromium makes no request but the page's own", requests)
        import json
        svgs = {i: (wd, n) for i, wd, n in json.loads(laid or "[]")}
        t.ok(title.startswith("hipsvm report: ") and all(c in svgs and svgs[c][0] > 500 and
                                                          svgs[c][1] > 3 for c in CHARTS),
             "every chart is laid out: drain histograms, faults and live bytes over time, unmaps",
             f"{title}\n{svgs}")
        png = base64.b64decode(shot.get("data", ""))
        wd, ht, bpp, rows = png_pixels(png)
        with open(f"{w}/page.png", "wb") as f:
            f.write(png)
        bars = count_near(rows, bpp, (0x4a, 0x7e, 0xbb))
        lines = count_near(rows, bpp, (0x2c, 0xa0, 0x2c))
        t.ok(wd >= 800 and ht > 1000 and bars > 2000 and lines > 100,
             f"the PNG ({wd}x{ht}) shows the histogram bars ({bars} px) and the fault lines "
             f"({lines} px)")
        return t.done()
    finally:
        shutil.rmtree(w, ignore_errors=True)


if __name__ == "__main__":
    tap.main(main)
