#!/usr/bin/env python3
# md2man.py - a page of docs/ as a man page, so that the manual and the docs
# are one text. Knows the Markdown the docs use: headings, paragraphs, "- "
# lists, fenced code, tables, `code`, **bold**, *italic*, [links](...).
#
#   md2man.py IN.md OUT NAME SECTION "one-line description" [SYNOPSIS...]
import re
import sys


def esc(s):
    s = s.replace("\\", "\\e")
    return s


def inline(s):
    s = esc(s)
    s = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1", s)
    s = re.sub(r"<(https?://[^>]+)>", r"\1", s)
    s = re.sub(r"`([^`]+)`", lambda m: "\\fB" + m.group(1).replace("-", "\\-") + "\\fR", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", s)
    s = re.sub(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])", r"\\fI\1\\fR", s)
    return s


def line_out(s):
    # A line starting with '.' or "'" would be a request.
    return "\\&" + s if s[:1] in (".", "'") else s


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def convert(lines, out):
    para = []
    i = 0

    def flush():
        if para:
            out.append(".PP")
            out.extend(line_out(inline(p)) for p in para)
            para.clear()

    while i < len(lines):
        ln = lines[i].rstrip("\n")
        if ln.startswith("# ") and i == 0:
            i += 1
            continue
        if ln.startswith("```"):
            flush()
            out += [".PP", ".RS 4", ".nf"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_out(esc(lines[i].rstrip("\n"))))
                i += 1
            out += [".fi", ".RE"]
        elif ln.startswith("## "):
            flush()
            out.append(".SH " + inline(ln[3:]).upper())
        elif ln.startswith("### "):
            flush()
            out.append(".SS " + inline(ln[4:]))
        elif ln.startswith("|"):
            flush()
            head = cells(ln)
            i += 2 if i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|-: ") else 1
            while i < len(lines) and lines[i].startswith("|"):
                c = cells(lines[i])
                out.append(".TP")
                out.append(line_out(inline(c[0]) or "\\ "))
                rest = [(h, v) for h, v in zip(head[1:], c[1:]) if v]
                out.append(line_out("; ".join(inline(v) if k == 0 else f"{inline(h)}: {inline(v)}"
                                              for k, (h, v) in enumerate(rest)) or "\\ "))
                i += 1
            continue
        elif ln.startswith("- ") or ln.startswith("  ") and out and para == [] and \
                out[-1:] and out[-1].startswith(".IP"):
            flush()
            item = [ln[2:].strip()]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i].strip())
                i += 1
            out.append(".IP \\(bu 2")
            out.extend(line_out(inline(p)) for p in item)
            continue
        elif not ln.strip():
            flush()
        else:
            para.append(ln.strip())
        i += 1
    flush()


def main():
    src, dst, name, section, desc = sys.argv[1:6]
    synopsis = sys.argv[6:]
    out = [f'.TH {name.upper()} {section} "" "libhipsvm" "libhipsvm"',
           ".SH NAME", f"{name} \\- {esc(desc)}"]
    if synopsis:
        out += [".SH SYNOPSIS", ".nf"] + [line_out(esc(s)) for s in synopsis] + [".fi"]
    out += [".SH DESCRIPTION"]
    with open(src) as f:
        convert(f.readlines(), out)
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
