#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_layers.py SRCDIR [TREE | --planted | --tree ROLE OUT]: the layering is what docs/design.md says.

The table under "Layering" in docs/design.md is the one list of which role
(a folder of src/ or sim/) may include which: this reads it as data and
fails (TAP) when

  1. a quoted #include of a file of src/ or sim/ reaches a role its row does
     not name, climbs with "..", or names a file of its own folder by a path
     that does not exist (every include is either the file's own folder,
     unqualified, or qualified from src/ or sim/: "runtime/state.h", and
     "hipsvm_sim.h", sim/'s public header at its top);
  2. the table has a circle (a role that reaches itself through others);
  3. a folder of src/ or sim/ holding sources has no row, or a row names a
     folder or file that does not exist.

With --tree ROLE OUT it makes the include tree the build gives ROLE's
library (sim/meson.build, src/meson.build): links to the folders and files
the table lets it reach, so that a mistake is a compile error there too.

TREE (default SRCDIR) is the tree whose sources are checked. With
--planted, it checks itself instead: in a copy of src/, sim/ and the design
doc it plants one mistake at a time (a runtime file including the API, the
simulator's core including the shim's hook client, an include that climbs,
an edge that closes a circle, a folder with no row) and fails unless each
is caught.
"""
import os
import re
import shutil
import sys
import tempfile

TOP = sys.argv[1] if len(sys.argv) > 1 else "."
TREE = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else TOP
ROOTS = ("src", "sim")		# where qualified includes start
SOURCES = (".c", ".h", ".def")
GENERATED = {"hipsvm_config.h"}	# build/src, made by src/meson.build
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def table():
    """{role: set of roles or files it may include} from docs/design.md."""
    text = open(os.path.join(TOP, "docs", "design.md"), encoding="utf-8").read()
    m = re.search(r"<!-- layers: begin -->(.*?)<!-- layers: end -->", text, re.S)
    if not m:
        return None
    rows = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        role = cells[0].strip("`")
        rows[role] = {n for n in re.findall(r"`([^`]+)`", cells[1])
                      if re.match(r"(src|sim)(/|$)", n)}
    return rows


def role_of(path):
    """The role a file of the tree belongs to: its folder below src/ or sim/
    (sim/ itself for the few files at its top)."""
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def sources():
    for root in ROOTS:
        for d, _, names in os.walk(os.path.join(TREE, root)):
            for n in sorted(names):
                if n.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(d, n), TREE).replace(os.sep, "/")


def resolve(src, inc):
    """The tree path an include names, or None."""
    here = os.path.dirname(src)
    if "/" not in inc:
        p = here + "/" + inc
        if os.path.exists(os.path.join(TREE, p)):
            return p
    for root in ROOTS:
        p = root + "/" + inc
        if os.path.exists(os.path.join(TREE, p)):
            return p
    return None


def allowed(rows, role, target):
    if role_of(target) == role:
        return True
    may = rows.get(role, set())
    return role_of(target) in may or target in may


def check_includes(rows):
    bad = []
    for src in sources():
        role = role_of(src)
        text = open(os.path.join(TREE, src), encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            if ".." in inc.split("/"):
                bad.append("%s:%d: \"%s\" climbs out of its folder" % (src, line, inc))
                continue
            if inc in GENERATED:
                continue
            target = resolve(src, inc)
            if target is None:
                bad.append("%s:%d: \"%s\" is neither in %s/ nor qualified from src/ or sim/"
                           % (src, line, inc, os.path.dirname(src)))
            elif not allowed(rows, role, target):
                bad.append("%s:%d: %s includes %s, which its row of the table does not name"
                           % (src, line, role, target))
    return bad


def circles(rows):
    """Roles that reach themselves (files named in a row count as their folder)."""
    edges = {r: {role_of(t) if "." in os.path.basename(t) else t for t in may} - {r}
             for r, may in rows.items()}
    found = []
    for start in sorted(edges):
        seen, stack = set(), [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    found.append(" -> ".join(path + [start]))
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return found


def coverage(rows):
    bad = []
    roles = {role_of(s) for s in sources()}
    for r in sorted(roles - set(rows)):
        bad.append("%s has sources but no row in the table" % r)
    for r, may in sorted(rows.items()):
        for name in sorted(may | {r}):
            if not os.path.exists(os.path.join(TOP, name)):
                bad.append("the row of %s names %s, which does not exist" % (r, name))
    return bad


PLANTED = (
    ("sim/runtime/memory.c", None, '#include "api/api.h"\n', 1),
    ("src/simcore/drain.c", None, '#include "shim/hook.h"\n', 1),
    ("src/shim/stats.c", None, '#include "../simcore/ctx_model.h"\n', 1),
    ("sim/gpu/gpu.c", None, '#include "hook/hook.h"\n', 1),
    ("docs/design.md", "| `sim/runtime` | ", "| `sim/runtime` | `sim/api`, ", 2),
    (os.path.join("sim", "planted", "x.c"), None, "", 3),	# a folder that does not exist
)


def planted():
    """Each mistake of PLANTED, planted alone in a copy, fails the check it names."""
    global TOP, TREE
    top, missed = TOP, []
    print("1..%d" % len(PLANTED))
    for i, (path, old, new, check) in enumerate(PLANTED, 1):
        with tempfile.TemporaryDirectory() as tmp:
            for d in ROOTS:
                shutil.copytree(os.path.join(top, d), os.path.join(tmp, d), symlinks=True)
            os.makedirs(os.path.join(tmp, "docs"))
            shutil.copy(os.path.join(top, "docs", "design.md"), os.path.join(tmp, "docs"))
            f = os.path.join(tmp, path)
            os.makedirs(os.path.dirname(f), exist_ok=True)
            text = open(f, encoding="utf-8").read() if os.path.exists(f) else ""
            text = text.replace(old, new, 1) if old else new + text
            open(f, "w", encoding="utf-8").write(text)
            TOP = TREE = tmp
            rows = table()
            bad = {1: check_includes, 2: circles, 3: coverage}[check](rows)
            TOP = TREE = top
        print("%s %d - caught: %s in %s" % ("ok" if bad else "not ok", i,
                                             (new.strip() or "a folder with no row"), path))
        if not bad:
            missed.append(path)
    return 1 if missed else 0


def tree(role, out):
    """The include tree of a role's library: links in out to what its row
    names and, since a header includes what its own row lets it, what those
    rows name in turn. The role's own folder is there too (qualified
    includes of its own headers)."""
    rows = table()
    if rows is None or role not in rows:
        sys.stderr.write("check_layers: no row for %s in docs/design.md\n" % role)
        return 1
    seen, todo = set(), [role]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if os.path.isdir(os.path.join(TOP, name)):
            todo.extend(rows.get(name, ()))
    if os.path.lexists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for name in sorted(seen):
        if name in ROOTS:
            continue		# the top of sim/: only its files are named
        link = os.path.join(out, name.split("/", 1)[1])
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.abspath(os.path.join(TOP, name)), link)
    return 0


def main():
    if len(sys.argv) > 2 and sys.argv[2] == "--planted":
        return planted()
    if len(sys.argv) > 4 and sys.argv[2] == "--tree":
        return tree(sys.argv[3], sys.argv[4])
    rows = table()
    print("1..3")
    if rows is None:
        for i, what in enumerate(("includes", "no circle", "rows"), 1):
            print("not ok %d - %s\n#   docs/design.md has no layers table" % (i, what))
        return 1
    fails = 0
    for i, (what, bad) in enumerate((
            ("every #include of src/ and sim/ follows the layering table", check_includes(rows)),
            ("the layering table has no circle", circles(rows)),
            ("every role has a row, and every row names what exists", coverage(rows))), 1):
        print("%s %d - %s" % ("not ok" if bad else "ok", i, what))
        for b in bad:
            print("#   " + b)
        fails += bool(bad)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
