#!/usr/bin/env python3
"""Compares saquery's answers from two SMs on the same fabric, field by field.

usage: sa_compare.py OPENSM_DIR IBSMD_DIR

Each directory holds one file per query (sa_vs_opensm.sh: NAME.txt, saquery's
text output or its error line) plus the direct reads taken under that SM
(dump_fts.txt, smp_sl2vl_*.txt, smp_vlarb_*.txt). A record is the block of
lines under a "... dump:" header; a field is "name....value". Every
difference fails the test unless a rule below names it, with the reason
(docs/operations.md, "ibsmd's SA beside OpenSM's", says the same). Beyond
OpenSM's answers, ibsmd's tables records must equal what the ports hold
under it (smpquery sl2vl / vlarb, dump_fts): OpenSM's are not a judge there
(it answers zeros it never read).
"""
import os
import re
import sys

# ---- the rules: (query type, field regex) -> why the two SMs differ there.
FIELD_RULES = {
    # IBA 14.2.5.13: each SM counts its own SMPs.
    ("smir", r"^ActCount$"): "activity count: each SM counts its own",
    ("smir_key", r"^ActCount$"): "activity count: each SM counts its own",
    # ClassPortInfo: what each SA supports (IBA 15.2.2 table 194).
    ("cpi", r"^Capability mask$"): "capabilities: OpenSM sets IsSubnetOptionalRecordSupported etc., ibsmd what it serves",
    ("cpi", r"^Capability mask 2$"): "capabilities: each SA's own CapabilityMask2 bits",
    # saquery prints SwitchInfo's MulticastFDBTop only when the SA's
    # CapabilityMask2 has IsMulticastFDBTopSupported; ibsmd does not set
    # MulticastFDBTop (its MFTs are sized by the groups), so it does not
    # claim the bit.
    ("swir", r"^MulticastFDBTop$"): "MulticastFDBTop: printed for OpenSM's IsMulticastFDBTopSupported only",
    # OpenSM's SMInfoRecord never carries its SM_Key; ibsmd shows it to a
    # requester that presented it (trusted), IBA 15.2.5.13.
    ("smir_key", r"^SM_Key$"): "SM_Key: OpenSM never shows it, ibsmd to trusted requesters",
}

# Whole fields of a type whose content is compared with the ports instead
# (below), not with OpenSM's answer.
TABLE_CONTENT = {
    # OpenSM without QoS neither reads nor writes VL tables: its SL2VL and
    # VLArb records are zeros whatever the ports hold (osm_qos.c returns
    # early; osm_port.c zeroes the copies). ibsmd names what it wrote.
    "sl2vl": r"^(SL|VL)#?\d*$",
    "vlar": r"^(VL|Weight)#?\d*$",
    # Each SM's own routing (both minhop, ties broken differently).
    "lftr": r"^lft\[\d+\]$",
}

# Not compared record by record: `saquery -p` sees only the first MAD of the
# answer under umad2sim (no RMPP), and the two SAs list pairs in different
# orders (OpenSM walks destinations outermost); sa_vs_opensm.sh checks that
# ibsmd answers it.
# Bytes between records in an answer (AttributeOffset * 8).
RECORD_BYTES = {"lr": 8, "iir": 64, "pir": 72, "gir": 72, "lftr": 72, "pktr": 72, "vlar": 72, "mftr": 72,
                "mcmr": 56, "sl2vl": 16, "nr": 112, "pr": 64, "sr": 176, "swir": 24, "smir": 32, "smir_key": 32}

AUX = re.compile(r"^(ibnetdiscover_p|dump_fts|smp_.*|sr_set|ii_set|pr_all)$")


def parse(path):
    """saquery's text as [records], each a list of (key, value)."""
    records, cur, counts, last_key = [], None, {}, None
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("ERROR") or "returned" in line and "0x" in line:
                records.append([("error", line.strip())])
                cur = None
                continue
            if not line.startswith("\t"):
                cur, counts = [], {}
                records.append(cur)
                continue
            if cur is None:
                cur, counts = [], {}
                records.append(cur)
            s = line.strip()
            if line.startswith("\t\t\t\t"):  # a capability flag under the mask
                key, val = (last_key or "") + ".flag", s
            elif re.match(r"^\d+\s+\d+$", s):  # LFT rows: LID, port
                a, b = s.split()
                key, val = "lft[%s]" % a, b
            elif line.startswith("\t") and not line.startswith("\t\t") and s.endswith(("dump:", "RID")):
                continue  # sub-headers: "\tPortInfo dump:", "\tRID"
            else:
                m = re.match(r"^(.+?)(\.{2,}|:\.+|\s*:\s*)(.*)$", s)
                if m:
                    key, val = m.group(1).strip(), m.group(3).strip()
                    if m.group(2).startswith(":."):  # PortInfo's "Name:....value"
                        key += ":"
                else:
                    key, val = "line", s
                last_key = key
            n = counts.get(key, 0)
            counts[key] = n + 1
            cur.append((key if n == 0 else "%s#%d" % (key, n), val))
    return [r for r in records if r]


def zero_record(rec):
    """Every value of the record is zero (labels and withheld keys aside)."""
    # saquery's renderings of 0 (PortInfo: "undefined (0)", "?(0)", "No
    # change", "NoChange", "Extended speed"...) and its labels.
    zero = re.compile(r"^((0x)?0+|::|RID|.*dump:|<not displayed>|undefined \(0\).*|\?\(0\)|no ?change|"
                      r"(no )?extended speed|LFT:|LID\tPort Number)$", re.I)
    labels = ("SL", "SL#1")  # SL2VL's and VLArb's header rows: "0| 1| 2|..."
    return all(zero.match(v) or re.fullmatch(r"[0x\s|]*", v) or k in labels or v == "PKey Table:" for k, v in rec)


def qtype(name):
    for t in ("smir_key", "sl2vl", "vlar", "pktr", "lftr", "mftr", "swir", "smir", "cpi", "mcmr",
              "gir", "pir", "nr", "lr", "pr", "sr", "iir"):
        if name == t or name.startswith(t + "_"):
            return t
    return None


def rule_for(t, key):
    for (rt, rx), why in FIELD_RULES.items():
        if rt == t and re.match(rx, key):
            return why
    return None


def compare(osm_dir, ib_dir):
    problems, excused, same = [], {}, 0
    names = sorted(n[:-4] for n in os.listdir(osm_dir) if n.endswith(".txt") and not AUX.match(n[:-4]))
    for name in names:
        t = qtype(name)
        if t is None:
            problems.append("%s: unknown query type" % name)
            continue
        p_ib = os.path.join(ib_dir, name + ".txt")
        if not os.path.exists(p_ib):
            problems.append("%s: not asked of ibsmd" % name)
            continue
        a, b = parse(os.path.join(osm_dir, name + ".txt")), parse(p_ib)
        size = RECORD_BYTES.get(t, 200)
        if len(b) > len(a) and all(zero_record(r) or (i * size < 200 and i * size + size > 168)
                                   for i, r in enumerate(b) if i >= len(a)):
            # umad2sim (no RMPP): ibsmd's one-segment GetTableResp is a
            # whole 256-byte MAD, as on the wire, and saquery counts
            # 200 / AttributeOffset records in it, the trailing ones zero
            # (LID 0, GID ::) but for data bytes 168..199, which umad2sim
            # fills with garbage (DEVELOPERS.md); OpenSM writes a datagram
            # only as long as its records. RMPP's PayloadLength says the
            # true count.
            why = "%s: trailing zero records of a 256-byte answer (saquery under umad2sim)" % t
            excused[why] = excused.get(why, 0) + 1
            b = b[:len(a)]
        if len(a) != len(b):
            problems.append("%s: OpenSM %d record(s), ibsmd %d\n  OpenSM: %s\n  ibsmd:  %s" %
                            (name, len(a), len(b), a[:1], b[:1]))
            continue
        for i, (ra, rb) in enumerate(zip(a, b)):
            da, db = dict(ra), dict(rb)
            if t == "pir" and da.get("LinkWidthActive:") == "undefined (0)" and da.get("LocalPort:") == "0":
                # A switch port without a link: OpenSM reads no PortInfo
                # there and answers its zeroed copy; ibsmd the PortInfo
                # discovery read from the port.
                why = "pir: switch ports without a link: OpenSM answers zeros it never read, ibsmd what the port said"
                excused[why] = excused.get(why, 0) + 1
                continue
            for key in sorted(set(da) | set(db)):
                va, vb = da.get(key), db.get(key)
                if va == vb:
                    continue
                if t in TABLE_CONTENT and re.match(TABLE_CONTENT[t], key):
                    excused.setdefault("%s: table content (judged against the ports)" % t, 0)
                    excused["%s: table content (judged against the ports)" % t] += 1
                    continue
                why = rule_for(t, key)
                if why:
                    excused.setdefault("%s %s: %s" % (t, key, why), 0)
                    excused["%s %s: %s" % (t, key, why)] += 1
                    continue
                problems.append("%s record %d field %s: OpenSM %r, ibsmd %r" % (name, i, key, va, vb))
        same += 1
    return names, problems, excused


# ---- ibsmd's tables records against what smpquery reads under it.
def smp_sl2vl(path):
    """{(in, out): [16 VLs]} of smpquery sl2vl's table."""
    out = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|", line)
            if m:
                out[(int(m.group(1)), int(m.group(2)))] = [int(x) for x in m.group(3).split("|")]
            m = re.match(r"^ports: in\s+(\d+), out\s+(\d+):\s*$", line)
    if not out:  # a CA: one row
        with open(path) as f:
            for line in f:
                m = re.match(r"^(ports: )?.*\|\s*(\d+(\|\s*\d+){15})\|\s*$", line)
                if m and "SL" not in line:
                    out[(0, 0)] = [int(x) for x in m.group(2).split("|")]
    return out


def record_sl2vl(rec):
    d = dict(rec)
    vls = [int(x) for x in d.get("VL", "").split("|") if x.strip()]
    return int(d.get("InPort", "0")), int(d.get("OutPort", "0")), vls


def smp_vlarb(path):
    """{'low': [(vl, weight)], 'high': [...]} of smpquery vlarb."""
    out, which, vls = {}, None, None
    with open(path) as f:
        for line in f:
            if "Low priority" in line:
                which = "low"
            elif "High priority" in line:
                which = "high"
            elif line.startswith("VL") and which:
                vls = [int(x, 16) for x in line.split(":", 1)[1].split("|") if x.strip()]
            elif line.startswith("WEIGHT") and which and vls is not None:
                ws = [int(x, 16) for x in line.split(":", 1)[1].split("|") if x.strip()]
                out.setdefault(which, []).extend(zip(vls, ws))
                vls = None
    return out


def record_vlarb(rec):
    d = dict(rec)
    entries = []
    for suffix in ("", "#1"):
        vls = [int(x) for x in d.get("VL" + suffix, "").split("|") if x.strip()]
        ws = [int(x) for x in d.get("Weight" + suffix, "").split("|") if x.strip()]
        entries.extend(zip(vls, ws))
    return int(d.get("Block", "0")), entries


def check_ports(ib_dir):
    problems, checked = [], 0
    for n in sorted(os.listdir(ib_dir)):
        m = re.match(r"^sl2vl_(\d+)(?:_(\d+)_(\d+))?\.txt$", n)
        if m:
            recs = parse(os.path.join(ib_dir, n))
            if not recs or "error" in dict(recs[0]):
                continue
            lid = m.group(1)
            out_port = m.group(3)
            smp = os.path.join(ib_dir, "smp_sl2vl_%s%s.txt" % (lid, "_" + out_port if out_port else ""))
            held = smp_sl2vl(smp) if os.path.exists(smp) else {}
            for rec in recs:
                if dict(rec).get("LID") != lid:
                    continue  # a trailing zero record (see compare())
                i, o, vls = record_sl2vl(rec)
                want = held.get((i, o)) if out_port else next(iter(held.values()), None)
                checked += 1
                if want != vls:
                    problems.append("%s: ibsmd says %s, the port holds %s (%s)" % (n, vls, want, os.path.basename(smp)))
        m = re.match(r"^vlar_(\d+)_(\d+)_(\d)\.txt$", n)
        if m:
            recs = parse(os.path.join(ib_dir, n))
            if not recs or "error" in dict(recs[0]):
                continue
            lid, port = m.group(1), m.group(2)
            smp = os.path.join(ib_dir, "smp_vlarb_%s_%s.txt" % (lid, port))
            if not os.path.exists(smp):
                smp = os.path.join(ib_dir, "smp_vlarb_%s.txt" % lid)
            held = smp_vlarb(smp)
            for rec in recs:
                if dict(rec).get("LID") != lid:
                    continue  # a trailing zero record (see compare())
                block, entries = record_vlarb(rec)
                table = held.get("low" if block in (1, 2) else "high", [])
                part = table[(0 if block in (1, 3) else 32):][:32]
                # smpquery shows the entries the port implements; the rest of
                # the record's 32 must be empty.
                checked += 1
                if entries[:len(part)] != part or any(w for _, w in entries[len(part):]):
                    problems.append("%s: ibsmd says %s, the port holds %s" % (n, entries[:len(part)], part))
    # LFT block 0 against dump_fts under the same SM: a section per switch,
    # named by the LID it routes to port 0 (its own).
    fts, sections = {}, []
    with open(os.path.join(ib_dir, "dump_fts.txt")) as f:
        for line in f:
            if line.startswith("Unicast lids"):
                sections.append({})
                continue
            m = re.match(r"^0x([0-9a-fA-F]+)\s+(\d+)\s", line)
            if m and sections:
                sections[-1][int(m.group(1), 16)] = int(m.group(2))
    for sec in sections:
        for lid, port in sec.items():
            if port == 0:
                fts[lid] = sec
    for n in sorted(os.listdir(ib_dir)):
        m = re.match(r"^lftr_(\d+)\.txt$", n)
        if not m:
            continue
        lid = int(m.group(1))
        for rec in parse(os.path.join(ib_dir, n)):
            if dict(rec).get("LID") != str(lid):
                continue  # a trailing zero record (see compare())
            for key, val in rec:
                k = re.match(r"^lft\[(\d+)\]$", key)
                if not k:
                    continue
                dlid, port = int(k.group(1)), int(val)
                held = fts.get(lid, {}).get(dlid, 255)
                checked += 1
                if port != held:
                    problems.append("%s: LID %d -> port %d, dump_fts says %d" % (n, dlid, port, held))
    return checked, problems


def main():
    osm_dir, ib_dir = sys.argv[1], sys.argv[2]
    names, problems, excused = compare(osm_dir, ib_dir)
    checked, held_problems = check_ports(ib_dir)
    print("%d queries compared; %d table entries of ibsmd checked against the ports" % (len(names), checked))
    for why, n in sorted(excused.items()):
        print("  expected difference (%d): %s" % (n, why))
    for p in problems + held_problems:
        print("DIFF " + p)
    if checked == 0:
        print("DIFF no table of ibsmd's was checked against the ports")
        return 1
    return 1 if problems or held_problems else 0


if __name__ == "__main__":
    sys.exit(main())
