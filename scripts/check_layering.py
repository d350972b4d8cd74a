#!/usr/bin/env python3
"""Fails when a file includes a header of a library its meson.build does not name.

Why: every library gets the repository root as its include path (includes
are written "topology/fabric.h"), so the compiler lets any file include any
header. The meson.build files are the one place the layering is written;
this check holds every file to them, so they cannot drift apart.

Data structures: the libraries are read from the meson.build files
themselves (no second table): every `X_dep = declare_dependency(...)`, the
static library it links (`link_with`) and every executable is a unit with
its sources and the units it names in `dependencies` (its own and its
library's). Plain variables (`x_sources = files(...)`, `x_deps += [...]`,
`a_dep = b_dep`) are followed the way meson evaluates them, in subdir order.

Algorithm: a source file belongs to the unit that compiles it; a header
`d/x.h` to the unit that compiles `d/x.cpp`, else to the unit whose
declare_dependency lists it in `sources` (header-only libraries), else to
the unit of the nearest meson.build above it (the one named after the
folder, daemon/core -> daemon_core_dep, else its first library). Each
`#include "dir/file.h"` of a library's file (or `<dir/file.h>` naming one of
our headers) must name a header of that library or of a unit it names
directly: no transitive use, a wing that includes mad/smp.h names
mad_codecs_dep even though daemon_core_dep links it. Units without a library
(header-only ones, bundles such as daemon_dep) have no link identity, so
they are followed: a bundle stands for what it names, and a header-only unit
a named library names is part of that library's interface (topology_dep ->
mad_types_dep). A library linked whole into another (`link_whole`) is part
of it. A folder of several header-only units has no default owner: a header
none of them lists is an error. Tests, benchmarks and fuzzers are not units.

    scripts/check_layering.py [ROOT]
"""
import os
import re
import sys

SKIP_DIRS = {"tests", "debian", "examples", "docs", "systemd", "scripts"}


def strip_comments(text):
    out = []
    for line in text.splitlines():
        in_str = False
        cut = len(line)
        for i, c in enumerate(line):
            if c == "'":
                in_str = not in_str
            elif c == "#" and not in_str:
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def balanced(text, start):
    """Index just past the bracket group opening at text[start]."""
    depth, i, in_str = 0, start, False
    while i < len(text):
        c = text[i]
        if c == "'":
            in_str = not in_str
        elif not in_str:
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    return i + 1
        i += 1
    raise ValueError("unbalanced brackets")


def statements(text):
    """Top-level statements of a meson file, joined across brackets."""
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\n":
            i += 1
        start = i
        while i < n and text[i] != "\n":
            if text[i] in "([{":
                i = balanced(text, i)
            elif text[i] == "'":
                i = text.index("'", i + 1) + 1
            else:
                i += 1
        if text[start:i].strip():
            yield text[start:i].strip()


def split_args(inner):
    """Top-level comma-separated pieces of a call's argument text."""
    parts, depth, cur, in_str = [], 0, "", False
    for c in inner:
        if c == "'":
            in_str = not in_str
        if not in_str and c in "([{":
            depth += 1
        if not in_str and c in ")]}":
            depth -= 1
        if c == "," and depth == 0 and not in_str:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


class Unit:
    def __init__(self, name, folder):
        self.name = name          # the dependency's or executable's variable
        self.folder = folder      # where its meson.build is
        self.sources = set()      # repository-relative paths
        self.headers = set()      # header-only sources it declares
        self.uses = set()         # unit names it names in `dependencies`
        self.bundle = True        # no library of its own (header-only, or a bundle)


class Build:
    def __init__(self, root):
        self.root = root
        self.vars = {}            # variable -> ("files", set) | ("deps", list) | ("lib", lib) | ("unit", name)
        self.units = {}           # name -> Unit
        self.order = []           # unit names in declaration order
        self.visit("")

    def visit(self, folder):
        path = os.path.join(self.root, folder, "meson.build")
        if folder.split("/")[0] in SKIP_DIRS or not os.path.exists(path):
            return
        with open(path) as f:
            text = strip_comments(f.read())
        for st in statements(text):
            self.statement(folder, st)
        # A dependency this reader did not understand would leave its
        # headers to a neighbour and its includes unchecked: refuse.
        declared = len(re.findall(r"^\s*\w+\s*=\s*(?:declare_dependency|executable)\(", text, re.M))
        read = sum(1 for u in self.units.values() if u.folder == folder)
        if read != declared:
            sys.exit(f"check_layering: {path}: read {read} of {declared} dependencies and executables;"
                     " this script does not understand the file")

    def statement(self, folder, st):
        m = re.match(r"subdir\('([^']+)'\)", st)
        if m:
            self.visit(os.path.normpath(os.path.join(folder, m.group(1))))
            return
        m = re.match(r"if\b.*|endif|else\b.*", st)
        if m:
            return
        m = re.match(r"(\w+)\s*(\+?=)\s*(.*)$", st, re.S)
        if not m:
            return
        name, op, expr = m.group(1), m.group(2), m.group(3).strip()
        value = self.evaluate(folder, name, expr)
        if value is None:
            return
        if op == "+=" and name in self.vars and self.vars[name][0] == value[0]:
            old = self.vars[name][1]
            value = (value[0], old | value[1] if isinstance(old, set) else old + value[1])
        self.vars[name] = value

    def files_in(self, folder, expr):
        """Every file named by files(...) or a file-list variable in expr."""
        out = set()
        for m in re.finditer(r"files\(([^)]*)\)", expr):
            for f in re.findall(r"'([^']+)'", m.group(1)):
                out.add(os.path.normpath(os.path.join(folder, f)))
        for ident in re.findall(r"\b(\w+)\b", re.sub(r"files\([^)]*\)|'[^']*'", "", expr)):
            v = self.vars.get(ident)
            if v and v[0] == "files":
                out |= v[1]
        return out

    def dep_names(self, expr):
        out = []
        for ident in re.findall(r"\b(\w+)\b", re.sub(r"'[^']*'", "", expr)):
            v = self.vars.get(ident)
            if v and v[0] == "deps":
                out += v[1]
            elif v and v[0] == "unit":
                out.append(v[1])
        return out

    def kwargs(self, args):
        kw, pos = {}, []
        for a in args:
            m = re.match(r"(\w+)\s*:\s*(.*)$", a, re.S)
            if m:
                kw[m.group(1)] = m.group(2)
            else:
                pos.append(a)
        return kw, pos

    def evaluate(self, folder, name, expr):
        m = re.match(r"(\w+)\s*\(", expr)
        if not m:
            if expr.startswith("["):
                files = self.files_in(folder, expr)
                if files:
                    return ("files", files)
                return ("deps", self.dep_names(expr))
            v = self.vars.get(expr)
            return v
        call = m.group(1)
        inner = expr[m.end():balanced(expr, m.end() - 1) - 1]
        kw, pos = self.kwargs(split_args(inner))
        if call == "files":
            return ("files", self.files_in(folder, expr))
        if call == "static_library":
            lib = {"sources": self.files_in(folder, ",".join(pos[1:])),
                   "uses": self.dep_names(kw.get("dependencies", "")),
                   "whole": [self.vars[w][1] for w in re.findall(r"\w+", kw.get("link_whole", ""))
                             if w in self.vars and self.vars[w][0] == "lib"]}
            for w in lib["whole"]:
                lib["sources"] |= w["sources"]
                lib["uses"] += w["uses"]
            return ("lib", lib)
        if call in ("declare_dependency", "executable"):
            u = Unit(name, folder)
            u.uses.update(self.dep_names(kw.get("dependencies", "")))
            u.headers = {f for f in self.files_in(folder, kw.get("sources", "")) if f.endswith(".h")}
            if call == "executable":
                u.bundle = False
                u.sources = self.files_in(folder, ",".join(pos[1:]))
                u.sources |= {os.path.normpath(os.path.join(folder, f))
                              for a in pos[1:] for f in re.findall(r"^'([^']+)'$", a)}
            for l in re.findall(r"\w+", kw.get("link_with", "")):
                lib = self.vars.get(l)
                if lib and lib[0] == "lib":
                    u.bundle = False
                    u.sources |= lib[1]["sources"]
                    u.uses.update(lib[1]["uses"])
            self.units[name] = u
            self.order.append(name)
            return ("unit", name)
        return None

    def allowed(self, name):
        """The unit itself, what it names, and the units without a library on
        the way (see the algorithm above)."""
        out, todo = {name}, [name]
        while todo:
            n = todo.pop()
            for m in self.units[n].uses:
                if m not in self.units or m in out:
                    continue
                if n == name or self.units[n].bundle or self.units[m].bundle:
                    out.add(m)
                    todo.append(m)
        return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    b = Build(root)
    owner = {}
    for n in b.order:
        for s in b.units[n].sources:
            owner.setdefault(s, n)
    for n in b.order:
        for h in b.units[n].headers:
            owner.setdefault(h, n)
    # A folder's header-only headers not listed anywhere belong to the unit
    # named after the folder (daemon/core -> daemon_core_dep), else to its
    # first library, else to its only unit. A folder of several header-only
    # units has no default: each header must be listed in one's `sources`.
    folder_unit = {}
    for n in b.order:
        u = b.units[n]
        if n == u.folder.replace("/", "_") + "_dep":
            folder_unit[u.folder] = n
    for n in b.order:
        if b.units[n].sources:
            folder_unit.setdefault(b.units[n].folder, n)
    for n in b.order:
        folder = b.units[n].folder
        if folder not in folder_unit:
            several = sum(1 for u in b.units.values() if u.folder == folder) > 1
            folder_unit[folder] = None if several else n

    def owner_of(path):
        if path in owner:
            return owner[path]
        stem = os.path.splitext(path)[0]
        if stem + ".cpp" in owner:
            return owner[stem + ".cpp"]
        d = os.path.dirname(path)
        while True:
            if d in folder_unit:
                if folder_unit[d] is None:
                    unowned.add(path)
                return folder_unit[d]
            if not d:
                return None
            d = os.path.dirname(d)

    bad = []
    unowned = set()
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        rel = "" if rel == "." else rel
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith((".", "build")) and (rel or d not in SKIP_DIRS))
        files += [os.path.join(rel, f) for f in sorted(filenames) if f.endswith((".h", ".cpp"))]
    for path in files:
        me = owner_of(path)
        if me is None:
            continue
        allowed = b.allowed(me)
        with open(os.path.join(root, path), errors="replace") as f:
            for no, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s*(?:"([^"]+)"|<([^>]+/[^>]+)>)', line)
                if not m:
                    continue
                inc = m.group(1) or m.group(2)
                here = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                quoted = m.group(1) is not None
                target = here if quoted and os.path.exists(os.path.join(root, here)) else os.path.normpath(inc)
                if not os.path.exists(os.path.join(root, target)):
                    continue  # generated (version.h, install_paths.h) or a system header
                lib = owner_of(target)
                if lib is None or lib in allowed:
                    continue
                bad.append(f"{path}:{no}: includes \"{inc}\" of {lib} ({b.units[lib].folder}/meson.build), "
                           f"but {me} ({b.units[me].folder or '.'}/meson.build) does not name it")
    for path in sorted(unowned):
        bad.append(f"{path}: belongs to no library: {os.path.dirname(path)}/meson.build declares only header-only"
                   " dependencies; list the header in the `sources` of one of them")
    for line in bad:
        print(line, file=sys.stderr)
    if bad:
        print(f"layering: {len(bad)} problem(s); a library may include"
              " only itself and what its meson.build names in `dependencies` (docs/design.md, \"Layers\"):"
              " name the library there or drop the include", file=sys.stderr)
        return 1
    print(f"layering: ok ({len(files)} files, {len(b.units)} libraries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
