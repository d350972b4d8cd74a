#!/usr/bin/env python3
"""Checks a per-pair path routing (seed 002) on a live ibsim fabric with
infiniband-diags only, against what the SM and the engine wrote:

  lids      every CA port's LID and LMC in ibnetdiscover output equal its
            guid2lid block (base, last - base + 1 = 2^LMC), every switch has
            LMC 0, and some CA ports have more than one LID;
  portinfo  `smpquery portinfo LID PORT` on CA ports (those with LMC > 0 and
            a few with 0) reports that LMC;
  tracert   for chosen (source, destination) pairs — destinations with
            several configurations, sources using different DLIDs, and some
            switch sources — `ibtracert SLID DLID` with the pair's DLID from
            the path file leaves every switch by the port of the path the
            engine selected (selected-paths.txt) and arrives at the
            destination.

usage: paths_check.py lids GUID2LID IBNETDISCOVER_OUT
       paths_check.py portinfo GUID2LID IBNETDISCOVER_OUT
       paths_check.py tracert GUID2LID PATHS_TXT SELECTED_PATHS MAX_PAIRS
The portinfo and tracert modes run smpquery / ibtracert themselves under
LD_PRELOAD=$SIM_PRELOAD in $WORK (as ibsim_env.sh's `sim` does).
"""
import os
import re
import subprocess
import sys


def read_guid2lid(path):
    blocks = {}
    for line in open(path):
        w = line.split()
        if len(w) == 3:
            base, last = int(w[1], 16), int(w[2], 16)
            blocks[int(w[0], 16)] = (base, last - base + 1)
    return blocks


def read_ibnetdiscover(path):
    """(kind, port GUID, port, lid, lmc) of every CA port and switch (port 0)."""
    out = []
    kind = None
    for line in open(path):
        m = re.match(r'^(Switch|Ca|Hca)\s+\d+\s+"[SH]-([0-9a-f]+)"', line)
        if m:
            kind = 'switch' if m.group(1) == 'Switch' else 'ca'
            if kind == 'switch':
                m2 = re.search(r'base port 0 lid (\d+) lmc (\d+)', line)
                out.append(('switch', int(m.group(2), 16), 0, int(m2.group(1)), int(m2.group(2))))
            continue
        if kind == 'ca':
            m = re.match(r'^\[(\d+)\]\((0x)?([0-9a-f]+)\).*# lid (\d+) lmc (\d+)', line)
            if m:
                out.append(('ca', int(m.group(3), 16), int(m.group(1)), int(m.group(4)), int(m.group(5))))
    return out


def sim(*cmd):
    """Runs a diag under umad2sim; a query the simulator did not answer in
    time (a loaded machine) is asked again, up to three times."""
    env = dict(os.environ)
    env['LD_PRELOAD'] = os.environ['SIM_PRELOAD']
    env['ASAN_OPTIONS'] = os.environ.get('SIM_ASAN_OPTIONS', '')
    for attempt in range(3):
        r = subprocess.run(list(cmd), cwd=os.environ['WORK'], env=env, capture_output=True, text=True)
        if r.returncode == 0:
            break
        print(f"{' '.join(cmd)}: exit {r.returncode} ({r.stderr.strip().splitlines()[-1:] or ''}), attempt {attempt + 1}")
    return r.returncode, r.stdout


def check_lids(g2l_path, disc_path):
    blocks = read_guid2lid(g2l_path)
    ports = read_ibnetdiscover(disc_path)
    bad = multi = 0
    for kind, guid, port, lid, lmc in ports:
        want = blocks.get(guid)
        if want is None or want != (lid, 1 << lmc):
            print(f"{kind} {guid:#018x} port {port}: lid {lid} lmc {lmc}, guid2lid has {want}")
            bad += 1
        if kind == 'switch' and lmc != 0:
            print(f"switch {guid:#018x} has LMC {lmc}")
            bad += 1
        if kind == 'ca' and lmc > 0:
            multi += 1
    cas = sum(1 for p in ports if p[0] == 'ca')
    print(f"{len(ports)} ports ({cas} CA ports, {multi} with LMC > 0) match guid2lid, {bad} problem(s)")
    if multi == 0:
        print("no CA port has more than one LID: the path routing was not exercised")
        bad += 1
    return bad


def check_portinfo(g2l_path, disc_path):
    ports = [p for p in read_ibnetdiscover(disc_path) if p[0] == 'ca']
    chosen = [p for p in ports if p[4] > 0] + [p for p in ports if p[4] == 0][:4]
    bad = 0
    for kind, guid, port, lid, lmc in chosen:
        rc, out = sim('smpquery', 'portinfo', str(lid), str(port))
        m = re.search(r'^LMC:\.*(\d+)', out, re.M)
        if rc != 0 or not m or int(m.group(1)) != lmc:
            print(f"CA port {guid:#018x} (LID {lid}): PortInfo LMC {m.group(1) if m else '?'}, expected {lmc}")
            bad += 1
    print(f"PortInfo LMC of {len(chosen)} CA ports checked, {bad} problem(s)")
    return bad


def read_path_file(path):
    dests, dlid = [], {}
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        if w[0] == 'dst':
            dests.append((int(w[2], 16), int(w[3], 16)))
        elif w[0] == 'src':
            src, offs = int(w[1], 16), w[2] if len(w) > 2 else ''
            for i, (dst, base) in enumerate(dests):
                o = offs[2 * i:2 * i + 2]
                if o != '--':
                    dlid[(src, dst)] = base + int(o, 16)
    return dests, dlid


def read_selected(path):
    sel = {}
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        hops = []
        for h in w[2:]:
            g, p = h.split(':')
            hops.append((int(g, 16), int(p)))
        sel[(int(w[0], 16), int(w[1], 16))] = hops
    return sel


def traced_hops(out):
    """(switch GUID, out port) per switch hop, and whether it reached a CA."""
    hops, node, is_switch, arrived = [], None, False, False
    for line in out.splitlines():
        m = re.match(r'^From (switch|ca|router) \{(0x[0-9a-f]+)\}', line)
        if m:
            node, is_switch = int(m.group(2), 16), m.group(1) == 'switch'
            continue
        m = re.match(r'^\[(\d+)\] -> (switch|ca|router) port \{(0x[0-9a-f]+)\}', line)
        if m:
            if is_switch:
                hops.append((node, int(m.group(1))))
            node, is_switch = int(m.group(3), 16), m.group(2) == 'switch'
            continue
        if line.startswith('To ca') or line.startswith('To router'):
            arrived = True
    return hops, arrived


def check_tracert(g2l_path, paths_path, selected_path, max_pairs):
    blocks = read_guid2lid(g2l_path)
    dests, dlid = read_path_file(paths_path)
    sel = read_selected(selected_path)
    by_dst = {}
    for (src, dst), l in dlid.items():
        by_dst.setdefault(dst, {}).setdefault(l, []).append(src)
    # A switch source's selected path starts at the switch itself.
    switches = {src for (src, dst), hops in sel.items() if hops and hops[0][0] == src}
    pairs = []
    # Destinations with several configurations first: one source per DLID.
    for dst, users in sorted(by_dst.items(), key=lambda kv: -len(kv[1])):
        if len(users) < 2:
            break
        for l, srcs in sorted(users.items()):
            ca_srcs = [s for s in srcs if s not in switches]
            sw_srcs = [s for s in srcs if s in switches]
            if ca_srcs:
                pairs.append((ca_srcs[0], dst))
            if sw_srcs and len(pairs) % 4 == 0:
                pairs.append((sw_srcs[0], dst))
        if len(pairs) >= max_pairs:
            break
    bad = hops_checked = dlids = 0
    for src, dst in pairs[:max_pairs]:
        want = sel.get((src, dst))
        if want is None:
            print(f"pair {src:#018x} -> {dst:#018x} has no selected path")
            bad += 1
            continue
        slid, d = blocks[src][0], dlid[(src, dst)]
        rc, out = sim('ibtracert', str(slid), str(d))
        got, arrived = traced_hops(out)
        hops_checked += len(got)
        if d != blocks[dst][0]:
            dlids += 1
        if rc != 0 or not arrived or got != want:
            print(f"pair {src:#018x} -> {dst:#018x} (SLID {slid}, DLID {d}): ibtracert "
                  f"{[(hex(g), p) for g, p in got]} arrived={arrived}, selected {[(hex(g), p) for g, p in want]}")
            bad += 1
    n = len(pairs[:max_pairs])
    print(f"{n} pairs traced ({dlids} on a DLID other than the base LID, {hops_checked} switch hops): "
          f"{bad} differ from the selected path")
    if n == 0 or dlids == 0:
        print("no pair on a non-base DLID was traced")
        bad += 1
    return bad


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    mode = sys.argv[1]
    if mode == 'lids':
        return 1 if check_lids(sys.argv[2], sys.argv[3]) else 0
    if mode == 'portinfo':
        return 1 if check_portinfo(sys.argv[2], sys.argv[3]) else 0
    if mode == 'tracert' and len(sys.argv) == 6:
        return 1 if check_tracert(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])) else 0
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main())
