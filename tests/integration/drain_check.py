#!/usr/bin/env python3
"""Checks for the drain test (drain_spine.sh) on a live fabric read back.

usage:
  drain_check.py towards NET FTS GUID
      Prints how many LFT entries of the other switches send towards switch
      GUID (out of a port cabled to it), split into "own" (its own LID) and
      "transit" (any other LID): "own N transit M". NET is ibnetdiscover's
      output, FTS dump_fts's.
  drain_check.py drained NET FTS GUID
      As towards, and fails unless transit is 0 and own is at least 1 (the
      drained switch's LID is still routed, through its one kept link).
"""
import re
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from reroute_check import read_fts  # noqa: E402


def read_links(path):
    """(switch GUID, port) -> GUID of the node at the far end, from ibnetdiscover output."""
    links = {}
    cur = None
    for line in open(path):
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"', line)
        if m:
            cur = int(m.group(2), 16) if m.group(1) == "Switch" else None
            continue
        m = re.match(r'^\[(\d+)\].*?"[SH]-([0-9a-f]+)"\[(\d+)\]', line)
        if m and cur is not None:
            links[(cur, int(m.group(1)))] = int(m.group(2), 16)
    return links


def switch_lid(tables, guid):
    """The switch's own LID: the one its table delivers to port 0."""
    own = [lid for lid, port in tables.get(guid, {}).items() if port == 0]
    if len(own) != 1:
        sys.exit(f"FAIL: switch 0x{guid:016x} has {len(own)} LIDs delivered to its port 0 in the read-back")
    return own[0]


def towards(net, fts, guid_text):
    guid = int(guid_text, 16)
    links, tables = read_links(net), read_fts(fts)
    own_lid = switch_lid(tables, guid)
    own = transit = 0
    examples = []
    for sw, table in tables.items():
        if sw == guid:
            continue
        for lid, port in table.items():
            if links.get((sw, port)) != guid:
                continue
            if lid == own_lid:
                own += 1
            else:
                transit += 1
                if len(examples) < 3:
                    examples.append(f"switch 0x{sw:016x} LID {lid} -> port {port}")
    return own, transit, examples


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("towards", "drained"):
        sys.exit(__doc__)
    own, transit, examples = towards(sys.argv[2], sys.argv[3], sys.argv[4])
    print(f"own {own} transit {transit}")
    if sys.argv[1] == "drained":
        if transit:
            sys.exit(f"FAIL: {transit} LFT entries still send other LIDs towards {sys.argv[4]}, e.g. "
                     + "; ".join(examples))
        if not own:
            sys.exit(f"FAIL: no switch routes {sys.argv[4]}'s own LID towards it: the drained switch is unreachable")


if __name__ == "__main__":
    main()
