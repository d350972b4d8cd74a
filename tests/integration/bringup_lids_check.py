#!/usr/bin/env python3
"""Checks that the LIDs a fabric reports (ibnetdiscover output) are those of
ibsmd's guid2lid, and that every one of guid2lid's LIDs is on the fabric.

usage: bringup_lids_check.py GUID2LID IBNETDISCOVER_OUTPUT
Exit 0 when they agree; otherwise prints every difference and exits 1.
"""
import re
import sys


def read_guid2lid(path):
    lids = {}
    for n, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        f = line.split()
        if len(f) != 3:
            sys.exit(f"{path}:{n}: expected 'guid base last', got {line!r}")
        lids[int(f[0], 16)] = int(f[1], 16)
    return lids


def read_fabric_lids(path):
    """port GUID -> LID as ibnetdiscover reports them (switch: node GUID, port 0)."""
    lids = {}
    node_type = None
    for line in open(path):
        m = re.match(r'^(Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-f]+)"', line)
        if m:
            node_type = m.group(1)
            if node_type == 'Switch':
                lm = re.search(r'\blid (\d+)', line)
                if lm:
                    lids[int(m.group(2), 16)] = int(lm.group(1))
            continue
        if node_type in ('Ca', 'Rt'):
            pm = re.match(r'^\[\d+\]\(([0-9a-f]+)\)', line)
            lm = re.search(r'#\s*lid (\d+)', line)
            if pm and lm:
                lids[int(pm.group(1), 16)] = int(lm.group(1))
    return lids


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    want = read_guid2lid(sys.argv[1])
    got = read_fabric_lids(sys.argv[2])
    bad = 0
    for guid, lid in sorted(got.items()):
        if guid not in want:
            print(f"port 0x{guid:016x}: LID {lid} on the fabric, not in guid2lid")
            bad += 1
        elif want[guid] != lid:
            print(f"port 0x{guid:016x}: LID {lid} on the fabric, {want[guid]} in guid2lid")
            bad += 1
    for guid in sorted(set(want) - set(got)):
        print(f"port 0x{guid:016x}: in guid2lid (LID {want[guid]}) but not on the fabric")
        bad += 1
    if any(l == 0 for l in got.values()):
        print("some ports have LID 0")
        bad += 1
    print(f"{len(got)} port LIDs on the fabric, {len(want)} in guid2lid, {bad} difference(s)")
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
