#!/usr/bin/env python3
"""Judges a multicast group's forwarding as the switches hold it.

usage: mcast_check.py NET MFTS MLID MEMBERS [SENDERS]

NET: `ibnetdiscover` output; MFTS: `dump_fts -M` output; MLID: e.g. 0xc000;
MEMBERS: the port GUIDs (hex, one per line) that must receive; SENDERS
(optional): more port GUIDs that send but must not receive.

A packet sent by each member (and sender) is flooded the way a switch
forwards multicast: out of every port of the MLID's mask except the one it
came in on. It must reach every other member exactly once, no port that is
not a member, and no switch twice (a loop or a duplicate). Independent of
the C++: only the diagnostics' text is read.
"""
import re
import sys
from collections import deque


def parse_net(path):
    """switch id -> {port: (remote id, remote port)}; ca port guid -> (ca id, port); ca id -> {port: (sw, p)}."""
    nodes = {}
    guid_of = {}
    cur = cur_id = None
    head = re.compile(r'^(Switch|Ca|Hca)\s+(\d+)\s+"([^"]+)"')
    port = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-Fx]+)\))?\s+"([^"]+)"\[(\d+)\]')
    for line in open(path):
        m = head.match(line)
        if m:
            cur_id = m.group(3)
            cur = nodes.setdefault(cur_id, {"sw": m.group(1) == "Switch", "ports": {}})
            continue
        m = port.match(line)
        if m and cur is not None:
            p, pguid, rid, rp = m.groups()
            cur["ports"][int(p)] = (rid, int(rp))
            if not cur["sw"] and pguid:
                guid_of[int(pguid, 16)] = (cur_id, int(p))
            continue
        if not line.strip():
            cur = None
    return nodes, guid_of


def parse_mfts(path, mlid):
    """switch id -> set of ports in `mlid`'s mask."""
    masks = {}
    cur = None
    col0 = None
    for line in open(path):
        m = re.search(r"guid 0x([0-9a-fA-F]+)", line)
        if line.startswith("Multicast mlids") and m:
            cur = "S-%016x" % int(m.group(1), 16)
            continue
        if "Ports:" in line:
            col0 = line.index("Ports:") + len("Ports: ")
            continue
        m = re.match(r"^(0x[0-9a-fA-F]+)\s", line)
        if m and cur and col0 is not None and int(m.group(1), 16) == mlid:
            ports = set()
            for i, ch in enumerate(line.rstrip("\n")):
                if ch == "x" and i >= col0 and (i - col0) % 2 == 0:
                    ports.add((i - col0) // 2)
            masks[cur] = ports
    return masks


def flood(nodes, masks, start):
    """Returns (reached CA ports as (id, port), problem or None)."""
    ca, p = start
    sw, sp = nodes[ca]["ports"][p]
    reached = []
    seen = set()
    queue = deque([(sw, sp)])
    while queue:
        s, inp = queue.popleft()
        if s in seen:
            return reached, "switch %s reached twice (loop or duplicate)" % s
        seen.add(s)
        for out in sorted(masks.get(s, ())):
            if out == inp:
                continue
            if out == 0:
                reached.append((s, 0))
                continue
            if out not in nodes[s]["ports"]:
                return reached, "switch %s forwards on uncabled port %d" % (s, out)
            rid, rp = nodes[s]["ports"][out]
            if nodes[rid]["sw"]:
                queue.append((rid, rp))
            else:
                reached.append((rid, rp))
    return reached, None


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    nodes, guid_of = parse_net(sys.argv[1])
    mlid = int(sys.argv[3], 0)
    masks = parse_mfts(sys.argv[2], mlid)
    read = lambda path: [int(l.strip(), 16) for l in open(path) if l.strip()]
    members = read(sys.argv[4])
    senders = read(sys.argv[5]) if len(sys.argv) == 6 else []
    missing = [g for g in members + senders if g not in guid_of]
    if missing:
        sys.exit("FAIL: port GUID 0x%x not in the topology" % missing[0])
    want_all = {guid_of[g] for g in members}
    problems = 0
    for g in members + senders:
        start = guid_of[g]
        reached, problem = flood(nodes, masks, start)
        want = want_all - {start}
        got = set(reached)
        if problem or len(got) != len(reached) or got != want:
            problems += 1
            if problems <= 5:
                print("FAIL: from 0x%016x: %s; reached %d (%d distinct) of %d, %d not members, %d members missed"
                      % (g, problem or "wrong set", len(reached), len(got), len(want), len(got - want), len(want - got)))
    on_tree = sum(1 for s in masks.values() if s)
    links = sum(1 for s, ports in masks.items() for p in ports if p and nodes[nodes[s]["ports"][p][0]]["sw"]) // 2 \
        if not problems else -1
    if problems:
        sys.exit("FAIL: %d of %d senders" % (problems, len(members) + len(senders)))
    print("MLID 0x%04x: %d members%s each reach the other %d exactly once; tree over %d switches, %d links, no loop"
          % (mlid, len(members), " and %d send-only ports" % len(senders) if senders else "", len(members) - 1,
             on_tree, links))


if __name__ == "__main__":
    main()
