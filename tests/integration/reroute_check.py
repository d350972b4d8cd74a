#!/usr/bin/env python3
"""Checks for the long-running SM's integration tests (sm_events_lib.sh).

usage:
  reroute_check.py analyze JSON HOSTS SWITCHES LINKS
      `ibsm analyze --json` of a live fabric read back after an event: the
      fabric has the expected size, every CA pair is reachable without a
      loop, CA traffic has no credit loop. Prints one summary line.
  reroute_check.py blockdiff BEFORE AFTER
      Two `dump_fts` outputs of the same fabric: prints how many 64-LID LFT
      blocks of the switches in AFTER differ from BEFORE (a switch absent
      from BEFORE counts every block it has).
  reroute_check.py same A B
      Two dump_fts-format files (a live read-back, ibsmd's lfts.dump): the
      same switches with the same LID -> port entries.
  reroute_check.py unused FTS GUID PORT
      No LFT entry of switch GUID in a dump_fts output sends out of PORT
      (an isolated link carries no route). Prints how many entries do.
Exit 1 with every problem named when a check fails.
"""
import json
import re
import sys


def check_analyze(path, hosts, switches, links):
    r = json.load(open(path))
    errors = []
    fab = r["fabric"]
    if (fab["hosts"], fab["switches"], fab["links"]) != (hosts, switches, links):
        errors.append(f"fabric has {fab['hosts']} hosts, {fab['switches']} switches, {fab['links']} links; "
                      f"expected {hosts}, {switches}, {links}")
    cc = r["pairs"]["ca_to_ca"]
    if cc["pairs"] != hosts * (hosts - 1):
        errors.append(f"ca_to_ca counts {cc['pairs']} pairs, expected {hosts * (hosts - 1)}")
    if cc["unreachable"] or cc["loops"]:
        errors.append(f"ca_to_ca: {cc['unreachable']} unreachable, {cc['loops']} looping "
                      f"(e.g. {cc['unreachable_examples'][:3] or cc['loop_examples'][:3]})")
    for cls, c in r["pairs"].items():
        if c["loops"]:
            errors.append(f"{cls}: {c['loops']} forwarding loops")
    if r["credit_loops"]["ca_traffic"]["has_loop"]:
        errors.append("credit loop in CA traffic")
    sw_unreach = r["pairs"]["switch_to_switch"]["unreachable"]
    print(f"analyze: {fab['hosts']} hosts, {fab['switches']} switches, {fab['links']} links; "
          f"ca_to_ca {cc['pairs']} pairs 0 unreachable; switch_to_switch unreachable {sw_unreach}; "
          f"engine '{r['engine']}'")
    if errors:
        print("FAIL: " + "; ".join(errors), file=sys.stderr)
        sys.exit(1)


def read_fts(path):
    """switch GUID -> {lid: port} from dump_fts output."""
    tables = {}
    guid = None
    for line in open(path):
        if line.startswith("Unicast lids"):
            m = re.search(r"guid (0x[0-9a-f]+)", line)
            guid = int(m.group(1), 16) if m else None
            if guid is not None:
                tables.setdefault(guid, {})
            continue
        m = re.match(r"^(0x[0-9a-f]+) (\d+) :", line)
        if m and guid is not None:
            tables[guid][int(m.group(1), 16)] = int(m.group(2))
    return tables


def blockdiff(before_path, after_path):
    before, after = read_fts(before_path), read_fts(after_path)
    if not after:
        sys.exit(f"FAIL: {after_path} has no forwarding table")
    changed = 0
    for guid, table in after.items():
        old = before.get(guid, {})
        blocks = {lid // 64 for lid in set(table) | set(old) if table.get(lid) != old.get(lid)}
        if guid not in before:
            blocks = {lid // 64 for lid in table}
        changed += len(blocks)
    print(changed)


def same(a_path, b_path):
    a, b = read_fts(a_path), read_fts(b_path)
    problems = []
    for guid in sorted(set(a) | set(b)):
        if guid not in a or guid not in b:
            problems.append(f"switch 0x{guid:016x} only in {b_path if guid in b else a_path}")
            continue
        diff = sorted(lid for lid in set(a[guid]) | set(b[guid]) if a[guid].get(lid) != b[guid].get(lid))
        if diff:
            problems.append(f"switch 0x{guid:016x}: {len(diff)} LID(s) differ, e.g. LID {diff[0]}: "
                            f"{a[guid].get(diff[0])} vs {b[guid].get(diff[0])}")
    if not a:
        problems.append(f"{a_path} has no forwarding table")
    if problems:
        print("FAIL: " + "; ".join(problems[:10]), file=sys.stderr)
        sys.exit(1)
    print(f"{len(a)} switches, {sum(len(t) for t in a.values())} LFT entries identical")


def unused(path, guid, port):
    table = read_fts(path).get(int(guid, 16))
    if table is None:
        sys.exit(f"no switch {guid} in {path}")
    n = sum(1 for p in table.values() if p == port)
    print(f"{n} route(s) of {guid} leave by port {port}")
    if n:
        sys.exit(1)


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "analyze":
        check_analyze(sys.argv[2], *map(int, sys.argv[3:6]))
    elif len(sys.argv) == 4 and sys.argv[1] == "blockdiff":
        blockdiff(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "unused":
        unused(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "same":
        same(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
