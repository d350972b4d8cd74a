#!/usr/bin/env python3
"""Checks that ibtracert's path follows ibsmd's forwarding tables: at every
switch on the path, the output port ibtracert reports is the lfts.dump entry
of that switch for the destination LID, and the trace ends at the
destination.

usage: bringup_tracert_check.py LFTS_DUMP DLID IBTRACERT_OUTPUT
"""
import re
import sys


def read_lfts(path):
    lfts = {}
    guid = None
    for line in open(path):
        if line.startswith('Unicast lids'):
            m = re.search(r'guid (0x[0-9a-f]+)', line)
            guid = int(m.group(1), 16)
            continue
        m = re.match(r'^(0x[0-9a-f]+) (\d+) :', line)
        if m and guid is not None:
            lfts[(guid, int(m.group(1), 16))] = int(m.group(2))
    return lfts


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lfts = read_lfts(sys.argv[1])
    dlid = int(sys.argv[2], 0)
    lines = [l.rstrip() for l in open(sys.argv[3]) if not l.startswith('ibwarn')]
    node, is_switch, checked, bad = None, False, 0, 0
    for line in lines:
        m = re.match(r'^From (switch|ca|router) \{(0x[0-9a-f]+)\}', line)
        if m:
            node, is_switch = int(m.group(2), 16), m.group(1) == 'switch'
            continue
        m = re.match(r'^\[(\d+)\] -> (switch|ca|router) port \{(0x[0-9a-f]+)\}', line)
        if m:
            out = int(m.group(1))
            if is_switch:
                want = lfts.get((node, dlid))
                checked += 1
                if want != out:
                    print(f"switch 0x{node:016x}: ibtracert leaves by port {out}, lfts.dump says {want} for LID {dlid}")
                    bad += 1
            node, is_switch = int(m.group(3), 16), m.group(2) == 'switch'
            continue
    if not lines or not lines[-1].startswith('To '):
        print(f"trace to LID {dlid} did not reach its destination: {lines[-1] if lines else '(no output)'}")
        bad += 1
    if checked == 0:
        # Between two CAs there is always a switch: no hop parsed means the
        # output was not understood, and nothing was checked.
        print(f"trace to LID {dlid}: no switch hop found in ibtracert's output")
        bad += 1
    print(f"LID {dlid}: {checked} switch hop(s) checked, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
