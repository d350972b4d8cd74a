#!/usr/bin/env python3
"""Judges an `ibsm report` page as headless Chromium rendered it.

Inputs: the report file as written, the DOM Chromium dumped after running
its scripts, the screenshot, and per side the `ibsm analyze --json` output
and the topology.net it scored. Checks, independently of the C++ code:
  * the page ran: <body data-ready="1">, no data-error (window.onerror);
  * hovering the first link (the page's #selftest) showed its two ends and
    its cable count in the details box;
  * nothing external: no http(s) URL, no src=/href= in the written file;
  * one <line data-i> per cable bundle in each side's drawing, the bundles
    counted here from topology.net (distinct pairs of cabled nodes);
  * every data-key value equals the analyze JSON at that path, and the keys
    an operator needs first are all there;
  * --credit-loop: the JSON reports a cycle and exactly the bundles the
    cycles run over are drawn as credit-loop links (class "cl");
  * --unreachable: the JSON has unreachable CA pairs and the problems list
    shows them;
  * --compare: a difference drawing with one line per bundle of either side;
  * the screenshot is a real picture (many distinct colours).
usage: report_check.py PAGE DOM PNG [--credit-loop] [--unreachable] [--compare] -- JSON NET [JSON NET]
       report_check.py --cut-switch-cable NET   (removes the first switch-to-switch cable of NET in place)
"""
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

REQUIRED_KEYS = [
    "engine", "fabric.switches", "fabric.hosts", "fabric.links", "lids.lids",
    "pairs.ca_to_ca.pairs", "pairs.ca_to_ca.delivered", "pairs.ca_to_ca.unreachable", "pairs.ca_to_ca.loops",
    "pairs.ca_to_ca.hops.mean", "pairs.ca_to_ca.stretch.mean",
    "credit_loops.ca_traffic.has_loop", "credit_loops.all_traffic.has_loop",
    "ebb.value", "ebb.min", "ebb.max", "shifts.min", "shifts.average",
    "edge_forwarding.all_links.max", "edge_forwarding.all_links.mean",
]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def bundles(net_path):
    """Distinct unordered pairs of nodes joined by at least one cable."""
    pairs = set()
    node = None
    with open(net_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
            if m:
                node = m.group(2)
                continue
            m = re.match(r'^\[(\d+)\][^"]*"([^"]+)"\[(\d+)\]', line)
            if m and node:
                pairs.add(frozenset((node, m.group(2))))
    return pairs


def at_path(doc, key):
    for part in key.split("."):
        if isinstance(doc, list) and part.isdigit():
            doc = doc[int(part)]
        elif isinstance(doc, dict) and part in doc:
            doc = doc[part]
        else:
            raise KeyError(key)
    return doc


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.html_attrs = {}
        self.body_attrs = {}
        self.svgs = []  # (attrs, [line attrs])
        self.current_svg = None
        self.values = []  # attrs of elements with data-key
        self.in_data = False
        self.data = ""
        self.problems_text = ""
        self.problem_depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.html_attrs = a
        elif tag == "body":
            self.body_attrs = a
        elif tag == "svg" and a.get("class") in ("fab", "diff"):
            self.current_svg = (a, [])
            self.svgs.append(self.current_svg)
        elif tag == "line" and self.current_svg is not None and "data-i" in a:
            self.current_svg[1].append(a)
        elif tag == "script" and a.get("id") == "report-data":
            self.in_data = True
        if "data-key" in a:
            self.values.append(a)
        if tag == "div" and a.get("class") == "problems":
            self.problem_depth = 1
        elif tag == "div" and self.problem_depth:
            self.problem_depth += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.current_svg = None
        elif tag == "script":
            self.in_data = False
        elif tag == "div" and self.problem_depth:
            self.problem_depth -= 1

    def handle_data(self, data):
        if self.in_data:
            self.data += data
        if self.problem_depth:
            self.problems_text += data


def png_colours(path):
    """Distinct RGB(A) pixel values of an 8-bit truecolour PNG."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(raw):
        length, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                fail(f"{path}: unexpected PNG depth {depth} colour type {ctype}")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    data = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(height):
        f = data[y * (stride + 1)]
        row = bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = row[i - bpp] if i >= bpp else 0
            up = prev[i]
            ul = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                row[i] = (row[i] + left) & 255
            elif f == 2:
                row[i] = (row[i] + up) & 255
            elif f == 3:
                row[i] = (row[i] + ((left + up) >> 1)) & 255
            elif f == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                row[i] = (row[i] + pred) & 255
        if y % 4 == 0:  # every fourth row is plenty to tell a picture from a blank
            for x in range(0, stride, bpp):
                colours.add(bytes(row[x:x + 3]))
        prev = row
    return colours


def cut_switch_cable(net_path):
    """Removes one switch-to-switch cable (both port lines): the tables
    routed before still send traffic over it, as after a cable failure."""
    with open(net_path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.readlines()
    node, cut = None, None
    for i, line in enumerate(lines):
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
        if m:
            node = m.group(2)
            continue
        m = re.match(r'^\[(\d+)\][^"]*"(S-[^"]+)"\[(\d+)\]', line)
        if m and node and node.startswith("S-"):
            cut = (node, m.group(1), m.group(2), m.group(3))
            break
    if not cut:
        fail(net_path + ": no switch-to-switch cable")
    keep = []
    node = None
    for line in lines:
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
        if m:
            node = m.group(2)
        m = re.match(r'^\[(\d+)\][^"]*"([^"]+)"\[(\d+)\]', line)
        if m and ((node, m.group(1)) == (cut[0], cut[1]) or (node, m.group(1)) == (cut[2], cut[3])):
            continue
        keep.append(line)
    if len(keep) != len(lines) - 2:
        fail(f"{net_path}: cutting {cut} removed {len(lines) - len(keep)} lines")
    with open(net_path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(keep)
    print(f"cut cable {cut[0]}[{cut[1]}] - {cut[2]}[{cut[3]}]")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--cut-switch-cable"]:
        cut_switch_cable(args[1])
        return
    sep = args.index("--")
    flags, files = args[:sep], args[sep + 1:]
    page, dom_path, png = flags[0], flags[1], flags[2]
    opts = set(flags[3:])
    sides = [(json.load(open(files[i])), bundles(files[i + 1])) for i in range(0, len(files), 2)]

    with open(page, "rb") as f:
        text = f.read().decode("utf-8")  # the page itself must be valid UTF-8
    for bad in ("http:", "https:", " src=", " href=", "@import", "url("):
        if bad in text:
            fail(f"{page}: external reference '{bad}' in the report")

    dom = Dom()
    with open(dom_path, encoding="utf-8") as f:
        dom.feed(f.read())
    if dom.html_attrs.get("data-error"):
        fail("script error in the page: " + dom.html_attrs["data-error"])
    if dom.body_attrs.get("data-ready") != "1":
        fail("the page's script did not run to completion (no data-ready on <body>)")
    blob = json.loads(dom.data)

    fabs = [s for s in dom.svgs if s[0].get("class") == "fab"]
    if len(fabs) != len(sides):
        fail(f"{len(fabs)} fabric drawings for {len(sides)} sides")
    for k, (report, pairs) in enumerate(sides):
        attrs, lines = fabs[k]
        if attrs.get("data-side") != str(k):
            fail(f"drawing {k} has data-side {attrs.get('data-side')}")
        if len(lines) != len(pairs):
            fail(f"side {k}: {len(lines)} link elements, topology.net has {len(pairs)} cabled node pairs")
        if sorted(int(l["data-i"]) for l in lines) != list(range(len(pairs))):
            fail(f"side {k}: link indices are not 0..{len(pairs) - 1}")
        names = blob["S"]
        nodes = blob["sides"][k]["nodes"]
        drawn = {frozenset((names[nodes[L[0]][0]], names[nodes[L[1]][0]])) for L in blob["sides"][k]["links"]}
        if len(drawn) != len(pairs):
            fail(f"side {k}: {len(drawn)} distinct node pairs drawn for {len(pairs)} bundles")

        seen = set()
        for v in dom.values:
            if v.get("data-side") != str(k):
                continue
            key = v["data-key"]
            try:
                want = at_path(report, key)
            except KeyError:
                fail(f"side {k}: data-key {key} is not in the analyze JSON")
            got = json.loads(v["data-v"])
            if got != want:
                fail(f"side {k}: {key} shows {got!r}, ibsm analyze --json says {want!r}")
            seen.add(key)
        missing = [key for key in REQUIRED_KEYS if key not in seen]
        if missing:
            fail(f"side {k}: summary lacks {missing}")
        # The page's #selftest hovered link 0 through its own mouse handlers.
        hover = dom.body_attrs.get(f"data-hover-{k}", "")
        first = blob["sides"][k]["links"][0]
        ends = [names[nodes[first[0]][0]], names[nodes[first[1]][0]]]
        cables = len(first[2])
        if not all(e in hover for e in ends) or f"{cables} cable" not in hover:
            fail(f"side {k}: hovering link 0 ({ends[0]} - {ends[1]}, {cables} cables) showed {hover!r}")
        print(f"side {k}: {len(lines)} links drawn = bundles in topology.net; {len(seen)} summary values "
              f"equal ibsm analyze --json")

        if "--credit-loop" in opts and k == 0:
            cycle_pairs = set()
            for traffic in ("ca_traffic", "all_traffic"):
                for vl in report["credit_loops"][traffic].get("vls", []):
                    for l in vl["cycle"]:
                        cycle_pairs.add(frozenset((l["from"]["name"], l["to"]["name"])))
            if not cycle_pairs:
                fail("expected a credit loop, ibsm analyze --json reports none")
            marked = set()
            for l in lines:
                if "cl" in l.get("class", "").split():
                    L = blob["sides"][k]["links"][int(l["data-i"])]
                    marked.add(frozenset((names[nodes[L[0]][0]], names[nodes[L[1]][0]])))
            if marked != cycle_pairs:
                fail(f"credit-loop links drawn {sorted(map(sorted, marked))} != cycle links "
                     f"{sorted(map(sorted, cycle_pairs))}")
            if "Credit loop on VL" not in dom.problems_text:
                fail("the problems list does not print the credit-loop cycle")
            print(f"credit loop: {len(marked)} bundles marked, as the cycles of ibsm analyze --json")

        if "--unreachable" in opts and k == 0:
            n = report["pairs"]["ca_to_ca"]["unreachable"]
            if not n:
                fail("expected unreachable CA pairs, ibsm analyze --json reports none")
            if f"{n} unreachable CA" not in dom.problems_text:
                fail(f"the problems list does not say {n} unreachable CA pairs")
            print(f"unreachable: {n} CA pairs listed")

    diffs = [s for s in dom.svgs if s[0].get("class") == "diff"]
    if "--compare" in opts:
        union = set().union(*(p for _, p in sides))
        if len(diffs) != 1 or len(diffs[0][1]) != len(union):
            fail(f"difference drawing: {len(diffs[0][1]) if diffs else 'none'} links for {len(union)} bundles")
        print(f"compare: difference drawing with {len(union)} links")
    elif diffs:
        fail("a difference drawing without --compare")

    colours = png_colours(png)
    if len(colours) < 16:
        fail(f"{png}: only {len(colours)} distinct colours, the page looks blank")
    print(f"screenshot: {len(colours)} distinct colours")


if __name__ == "__main__":
    main()
