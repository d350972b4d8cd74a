#!/usr/bin/env python3
"""Cross-check `ibsm analyze --json` against a brute-force model.

Why: the analyzer is built for speed (per-destination in-trees, byte path
tables, threads); this script recomputes the same numbers the slow, obvious
way -- walking every route hop by hop through the LFTs -- from the same two
files, with its own net-file and dump_fts parsing and its own Mersenne
Twister, so a bug on either side shows up as a mismatch.

Checked: CA-to-CA unreachable and looping pairs, the switch-link
edge-forwarding index (max), every shift's bandwidth fraction (average and
minimum) and the effective bisection bandwidth for a small number of patterns
with a fixed seed (same generator and pattern definition as routing/analysis/
ebb.h: Fisher-Yates from the back with rejection-sampled bounds, pi[2k] sends
to pi[2k+1]).

usage: analyze_crosscheck.py IBSM TOPOLOGY.net LFTS.dump [BISECTIONS SEED]
       analyze_crosscheck.py IBSM --route ENGINE TOPOGEN-ARGS...
The second form generates a fabric with `ibsm topogen`, routes it with
`ibsm route --engine ENGINE` and checks the tables it wrote.
"""
import json
import re
import subprocess
import sys
import tempfile


class MT19937:
    def __init__(self, seed):
        self.mt = [0] * 624
        self.mt[0] = seed & 0xFFFFFFFF
        for i in range(1, 624):
            self.mt[i] = (1812433253 * (self.mt[i - 1] ^ (self.mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
        self.index = 624

    def __call__(self):
        if self.index >= 624:
            for i in range(624):
                y = (self.mt[i] & 0x80000000) | (self.mt[(i + 1) % 624] & 0x7FFFFFFF)
                self.mt[i] = self.mt[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y


def uniform_below(rng, n):
    limit = (1 << 32) - (1 << 32) % n
    while True:
        x = rng()
        if x < limit:
            return x % n


def natural_key(name):
    return [(0, int(t), len(t)) if t.isdigit() else (1, t) for t in re.findall(r"\d+|\D+", name) if t]


def parse_net(path):
    """Returns nodes: id -> {type, desc, lid, ports: {p: (remote_id, rport)}}, ca port lids."""
    nodes = {}
    cur = None
    head = re.compile(r'^(Switch|Ca|Hca)\s+(\d+)\s+"([^"]+)"\s*#\s*"([^"]*)"(.*)$')
    port = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-Fx]+)\))?\s+"([^"]+)"\[(\d+)\](?:\([0-9a-fA-Fx]+\))?\s*(#.*)?$')
    for line in open(path):
        line = line.rstrip("\n")
        m = head.match(line)
        if m:
            kind, _, ident, desc, rest = m.groups()
            lid = re.search(r"\blid (\d+)", rest)
            cur = nodes.setdefault(ident, {"ports": {}, "lids": {}})
            cur.update(type="sw" if kind == "Switch" else "ca", desc=desc, lid=int(lid.group(1)) if lid else None)
            continue
        m = port.match(line)
        if m and cur is not None:
            p, _, rid, rp, comment = m.groups()
            cur["ports"][int(p)] = (rid, int(rp))
            if cur["type"] == "ca" and comment:
                lid = re.match(r"#\s*lid (\d+)", comment)
                if lid:
                    cur["lids"][int(p)] = int(lid.group(1))
            continue
        if not line.strip():
            cur = None
    return nodes


def parse_dump(path):
    lfts = {}
    cur = None
    head = re.compile(r"^Unicast lids .* guid (0x[0-9a-fA-F]+)")
    entry = re.compile(r"^(0x[0-9a-fA-F]+)\s+(\d+)\s+:")
    for line in open(path):
        m = head.match(line)
        if m:
            cur = lfts.setdefault(int(m.group(1), 16), {})
            continue
        m = entry.match(line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return lfts


def main():
    if len(sys.argv) > 3 and sys.argv[2] == "--route":
        ibsm, engine, gen = sys.argv[1], sys.argv[3], sys.argv[4:]
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([ibsm, "topogen", *gen, "--out", f"{tmp}/fabric.net"], check=True, stdout=subprocess.DEVNULL)
            # Exit 2: the tables failed ibsm route's verification gate (e.g.
            # MinHop's credit loop on a torus) but were written: still what
            # this cross-check compares.
            rc = subprocess.run([ibsm, "route", "--topology", f"{tmp}/fabric.net", "--engine", engine, "--out",
                                 f"{tmp}/r"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            if rc not in (0, 2):
                raise SystemExit(f"ibsm route exited {rc}")
            return check(ibsm, f"{tmp}/r/topology.net", f"{tmp}/r/lfts.dump", 20, 4711)
    ibsm, net_path, dump_path = sys.argv[1:4]
    bisections = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 4711
    return check(ibsm, net_path, dump_path, bisections, seed)


def check(ibsm, net_path, dump_path, bisections, seed):
    nodes = parse_net(net_path)
    lfts = parse_dump(dump_path)
    lft_of = {ident: lfts.get(int(ident[2:], 16), {}) for ident, n in nodes.items() if n["type"] == "sw"}

    hosts = []  # (name, node id, port, lid)
    for ident, n in nodes.items():
        if n["type"] != "ca":
            continue
        multi = len(n["lids"]) > 1
        for p, lid in sorted(n["lids"].items()):
            hosts.append((n["desc"] + (f"/{p}" if multi else ""), ident, p, lid))
    hosts.sort(key=lambda h: (natural_key(nodes[h[1]]["desc"]), int(h[1][2:], 16), h[2]))
    P = len(hosts)

    def route(src, dst):
        """Switch-to-switch channels of src -> dst, or None (dropped / loop)."""
        _, sid, sp, _ = src
        _, did, dp, dlid = dst
        sw, _ = nodes[sid]["ports"][sp]
        path, seen = [], set()
        while True:
            if sw in seen:
                return None
            seen.add(sw)
            out = lft_of[sw].get(dlid)
            if out is None or out not in nodes[sw]["ports"]:
                return None
            rid, rp = nodes[sw]["ports"][out]
            if nodes[rid]["type"] == "ca":
                return path if (rid, rp) == (did, dp) else None
            path.append((sw, out))
            sw = rid

    routes = {}
    unreachable = 0
    load = {}
    for a in range(P):
        for b in range(P):
            if a == b:
                continue
            r = route(hosts[a], hosts[b])
            routes[a, b] = r
            if r is None:
                unreachable += 1
                continue
            for c in r:
                load[c] = load.get(c, 0) + 1
    efi_max = max(load.values()) if load else 0

    def pattern_fraction(flows):
        tau = {}
        paths = [routes[f] for f in flows]
        for r in paths:
            for c in r or []:
                tau[c] = tau.get(c, 0) + 1
        total = 0.0
        for r in paths:
            if r is None:
                continue
            total += 1.0 / max([1] + [tau[c] for c in r])
        return total / len(flows)

    shifts = [pattern_fraction([(i, (i + s) % P) for i in range(P)]) for s in range(1, P)]
    rng = MT19937(seed)
    ebb_sum = 0.0
    for _ in range(bisections):
        perm = list(range(P))
        for i in range(P, 1, -1):
            j = uniform_below(rng, i)
            perm[i - 1], perm[j] = perm[j], perm[i - 1]
        ebb_sum += pattern_fraction([(perm[k], perm[k + 1]) for k in range(0, P - 1, 2)])
    ebb = ebb_sum / bisections

    out = subprocess.run([ibsm, "analyze", "--topology", net_path, "--lfts", dump_path, "--json",
                          "--bisections", str(bisections), "--seed", str(seed)],
                         check=True, capture_output=True, text=True).stdout
    rep = json.loads(out)
    got = {
        "ca_to_ca unreachable+loops": rep["pairs"]["ca_to_ca"]["unreachable"] + rep["pairs"]["ca_to_ca"]["loops"],
        "efi switch max": rep["edge_forwarding"]["switch_links"]["max"],
        "shift average": rep["shifts"]["average"],
        "shift min": rep["shifts"]["min"],
        "ebb": rep["ebb"]["value"],
    }
    want = {
        "ca_to_ca unreachable+loops": unreachable,
        "efi switch max": efi_max,
        "shift average": sum(shifts) / len(shifts),
        "shift min": min(shifts),
        "ebb": ebb,
    }
    bad = [k for k in want if abs(got[k] - want[k]) > 1e-9 * max(1.0, abs(want[k]))]
    for k in want:
        print(f"{k:28s} analyzer {got[k]!r:24} brute force {want[k]!r}{'   MISMATCH' if k in bad else ''}")
    if bad:
        print("FAIL: analyzer disagrees with the brute-force model", file=sys.stderr)
        return 1
    print(f"OK: {P} hosts, {bisections} bisections (seed {seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
