#!/usr/bin/env python3
"""Checks what tests/integration/sa_queries.sh collected: the SA's answers
(saquery's text, sa_client's hex records) against infiniband-diags' direct
reads of the same simulated fabric (smpquery, dump_fts, ibnetdiscover -p,
sminfo) and ibsmd's own sl.txt for service levels.

  sa_check.py lmc0 OUT SM_LID CA_LID SW_LID SW_PORT CA2_LID
  sa_check.py lmc2 OUT SRC_PORT_GUID DST_PORT_GUID

sa_client prints bytes umad2sim did not deliver as "??"; those are
skipped, every other byte is compared. Exits 1 with every failed check."""
import os
import re
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def read(out, name):
    with open(os.path.join(out, name)) as f:
        return f.read()


def dotted(text):
    """'Key:.....value' / '\\t\\tkey.....value' lines -> {key: value} (first wins)."""
    d = {}
    for line in text.splitlines():
        m = re.match(r"\s*([A-Za-z_0-9/ ]+?)(?::)?\.{2,}(.*)$", line)
        if m:
            d.setdefault(m.group(1).strip(), m.group(2).strip())
    return d


def num(v):
    return int(v.split()[0], 0)


def first_record(text, header):
    """The lines of the first '<header> dump:' block of saquery output."""
    blocks = text.split(header + " dump:")
    return blocks[1] if len(blocks) > 1 else ""


def client_records(out, name):
    lines = read(out, name).splitlines()
    m = re.match(r"status 0x([0-9a-f]+) offset (\d+) records (\d+)", lines[0])
    check(m is not None, f"{name}: no status line")
    status, count = int(m.group(1), 16), int(m.group(3))
    recs = []
    for line in lines[1:]:
        if line.startswith("record "):
            h = line.split()[2]
            recs.append([None if h[i:i + 2] == "??" else int(h[i:i + 2], 16) for i in range(0, len(h), 2)])
    check(status == 0, f"{name}: status 0x{status:04x}")
    check(len(recs) == count, f"{name}: {len(recs)} records printed, {count} counted")
    return recs


def field(rec, at, n):
    """Big-endian integer of rec[at:at+n], or None when a byte is unknown."""
    b = rec[at:at + n]
    if len(b) < n or any(x is None for x in b):
        return None
    v = 0
    for x in b:
        v = v << 8 | x
    return v


def ibnetdiscover_ports(text):
    """ibnetdiscover -p lines -> [(type, lid, port, guid, peer (type, lid, port) or None)]."""
    ports = []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 4 or f[0] not in ("CA", "SW"):
            continue
        peer = None
        if len(f) > 9 and f[6] == "-":
            peer = (f[7], int(f[8]), int(f[9]))
        ports.append((f[0], int(f[1]), int(f[2]), int(f[3], 16), peer))
    return ports


def dump_fts_sections(text):
    """dump_fts -> {switch guid: {lid: port}} (only the LIDs it printed)."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"guid (0x[0-9a-f]+)", line)
        if line.startswith("Unicast lids") and m:
            cur = out.setdefault(int(m.group(1), 16), {})
            continue
        m = re.match(r"0x([0-9a-f]+) (\d+)", line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return out


def sl_of(out, name, src_node_guid, src_port, dlid):
    """The SL ibsmd's sl.txt gives (source port, DLID); 0 without the file."""
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return 0
    for line in open(path):
        f = line.split()
        if len(f) == 3 and not line.startswith("#") and f[0] not in ("vls", "lids"):
            if int(f[0], 16) == src_node_guid and int(f[1]) == src_port:
                return int(f[2][dlid], 16) if dlid < len(f[2]) else 0
    return 0


def lmc0(out, sm_lid, ca_lid, sw_lid, sw_port, ca2_lid):
    ports = ibnetdiscover_ports(read(out, "ibnetdiscover_p.txt"))
    by_lid_port = {(p[1], p[2]): p for p in ports}

    # NodeRecord vs smpquery nodeinfo/nodedesc, a CA and a switch.
    for kind in ("ca", "sw"):
        nr = dotted(first_record(read(out, f"saquery_nr_{kind}.txt"), "NodeRecord"))
        ni = dotted(read(out, f"smpquery_nodeinfo_{kind}.txt"))
        pairs = [("base_version", "BaseVers"), ("class_version", "ClassVers"), ("num_ports", "NumPorts"),
                 ("sys_guid", "SystemGuid"), ("node_guid", "Guid"), ("port_guid", "PortGuid"),
                 ("device_id", "DevId"), ("revision", "Revision"), ("port_num", "LocalPort"),
                 ("vendor_id", "VendorId")]
        for a, b in pairs:
            check(a in nr and b in ni and num(nr[a]) == num(ni[b]),
                  f"NR {kind} {a}: saquery {nr.get(a)} vs smpquery {b} {ni.get(b)}")
        check(num(nr.get("partition_cap", "-1")) == int(ni.get("PartCap", "-2")),
              f"NR {kind} partition_cap {nr.get('partition_cap')} vs {ni.get('PartCap')}")
        check(nr.get("node_type") == ni.get("NodeType"), f"NR {kind} node_type {nr.get('node_type')} vs {ni.get('NodeType')}")
        check(num(nr.get("lid", "0")) == (ca_lid if kind == "ca" else sw_lid), f"NR {kind} lid {nr.get('lid')}")
    nd = dotted(read(out, "smpquery_nodedesc_ca.txt"))
    nr = dotted(first_record(read(out, "saquery_nr_ca.txt"), "NodeRecord"))
    check(nr.get("NodeDescription") == nd.get("Node Description"),
          f"NR description {nr.get('NodeDescription')!r} vs {nd.get('Node Description')!r}")

    # PortInfoRecord: the PortInfo block as smpquery prints it, but for two
    # fields ibsim does not keep (its do_portinfo stores LID, SMLID, LMC,
    # HOQLife, states, OperVLs, GID prefix, speeds and widths of a Set and
    # ignores the rest): SubnetTimeOut (it answers 31) and MasterSMSL (0),
    # where the SA reports what the SM set, as a real port would hold. A
    # switch's external port also differs in LocalPortNum, which names the
    # port a query entered by, not a property of the port.
    ibsim_ignores = {"SubnetTimeout", "SMSL"}
    for kind, skip in (("ca", ibsim_ignores), ("sw", ibsim_ignores | {"LocalPort"})):
        pir = first_record(read(out, f"saquery_pir_{kind}.txt"), "PortInfoRecord")
        block = dotted(pir.split("PortInfo dump:")[1]) if "PortInfo dump:" in pir else {}
        direct = dotted(read(out, f"smpquery_portinfo_{kind}.txt"))
        check(len(block) > 40, f"PIR {kind}: only {len(block)} PortInfo fields printed")
        for k, v in direct.items():
            if k in skip:
                continue
            check(block.get(k) == v, f"PIR {kind} {k}: saquery {block.get(k)!r} vs smpquery {v!r}")
        rid = dotted(pir)
        check(num(rid.get("EndPortLid", "0")) == (ca_lid if kind == "ca" else sw_lid), f"PIR {kind} EndPortLid")
        check(num(rid.get("PortNum", "-1")) == (1 if kind == "ca" else sw_port), f"PIR {kind} PortNum")

    # SwitchInfoRecord vs smpquery switchinfo.
    sw = dotted(first_record(read(out, "saquery_swir.txt"), "SwitchInfoRecord"))
    si = dotted(read(out, "smpquery_switchinfo.txt"))
    for a, b in (("LinearFDBCap", "LinearFdbCap"), ("RandomFDBCap", "RandomFdbCap"),
                 ("MulticastFDBCap", "McastFdbCap"), ("LinearFDBTop", "LinearFdbTop"), ("DefaultPort", "DefPort"),
                 ("DefaultMulticastPrimaryPort", "DefMcastPrimPort"),
                 ("DefaultMulticastNotPrimaryPort", "DefMcastNotPrimPort"), ("LIDsPerPort", "LidsPerPort"),
                 ("PartitionEnforcementCap", "PartEnforceCap")):
        check(a in sw and b in si and num(sw[a]) == num(si[b]), f"SWIR {a}: {sw.get(a)} vs smpquery {si.get(b)}")
    lps = num(sw.get("LifeTimeValue/PortStateChange/OpSL2VL", "0"))
    check(lps >> 3 == int(si["LifeTime"]) and (lps >> 2) & 1 == int(si["StateChange"]) and lps & 3 == int(si["OptSLtoVLMapping"]),
          f"SWIR LifeTime/StateChange/OptSL2VL 0x{lps:x}")
    flags = num(sw.get("flags", "0"))
    for bit, key in ((7, "InboundPartEnf"), (6, "OutboundPartEnf"), (5, "FilterRawInbound"), (4, "FilterRawOutbound"),
                     (3, "EnhancedPort0")):
        check((flags >> bit) & 1 == int(si[key]), f"SWIR flags 0x{flags:x} {key} vs {si[key]}")
    check(num(dotted(first_record(read(out, "saquery_swir.txt"), "SwitchInfoRecord")).get("LID", "0")) == sw_lid,
          "SWIR LID")

    # LFTR block 0 vs dump_fts (the whole-fabric dump, this switch's section).
    fts = dump_fts_sections(read(out, "dump_fts.txt"))
    sw_guid = by_lid_port[(sw_lid, sw_port)][3]
    held = fts.get(sw_guid, {})
    check(held, f"dump_fts has no section for switch {sw_guid:#x}")
    lftr = first_record(read(out, "saquery_lftr.txt"), "LFT Record")
    entries = {int(a): int(b) for a, b in re.findall(r"^\s*(\d+)\s+(\d+)\s*$", lftr, re.M)}
    check(len(entries) == 64, f"LFTR: {len(entries)} entries")
    for lid, port in entries.items():
        want = held.get(lid, 255)
        check(port == want, f"LFTR LID {lid}: port {port}, dump_fts {want}")

    # LinkRecord from the CA: its cable, as ibnetdiscover -p sees it.
    lr = dotted(first_record(read(out, "saquery_lr.txt"), "LinkRecord"))
    peer = by_lid_port[(ca_lid, 1)][4]
    check(peer is not None and num(lr.get("FromLID", "0")) == ca_lid and num(lr.get("FromPort", "0")) == 1
          and num(lr.get("ToLID", "0")) == peer[1] and num(lr.get("ToPort", "0")) == peer[2],
          f"LR {lr} vs ibnetdiscover peer {peer}")

    # SMInfoRecord vs sminfo.
    smir = dotted(first_record(read(out, "saquery_smir.txt"), "SMInfoRecord"))
    m = re.search(r"sm lid (\d+) sm guid (0x[0-9a-f]+), activity count (\d+) priority (\d+) state (\d+)",
                  read(out, "sminfo.txt"))
    check(m is not None, "sminfo output")
    check(num(smir.get("LID", "0")) == int(m.group(1)) == sm_lid, f"SMIR LID {smir.get('LID')}")
    check(num(smir.get("GUID", "0")) == int(m.group(2), 16), f"SMIR GUID {smir.get('GUID')}")
    check(num(smir.get("Priority", "-1")) == int(m.group(4)), f"SMIR Priority {smir.get('Priority')}")
    check(num(smir.get("SMState", "-1")) == int(m.group(5)) == 3, f"SMIR SMState {smir.get('SMState')}")
    check(num(smir.get("ActCount", "0")) >= int(m.group(3)), "SMIR ActCount behind sminfo's")

    # PathRecord CA -> CA2: LIDs and GIDs as ibnetdiscover shows the ports,
    # SL from ibsmd's sl.txt, MTU and rate of the links (4x SDR), packet
    # lifetime 18, reversible, "exactly" selectors.
    pr = dotted(first_record(read(out, "saquery_pr.txt"), "PathRecord"))
    src_guid, dst_guid = by_lid_port[(ca_lid, 1)][3], by_lid_port[(ca2_lid, 1)][3]
    check(num(pr.get("slid", "0")) == ca_lid and num(pr.get("dlid", "0")) == ca2_lid, f"PR LIDs {pr}")

    def gid_guid(g):
        parts = g.split("::")[1].split(":")
        v = 0
        for p in parts:
            v = v << 16 | int(p, 16)
        return v
    check(gid_guid(pr.get("sgid", "::0")) == src_guid and gid_guid(pr.get("dgid", "::0")) == dst_guid,
          f"PR GIDs {pr.get('sgid')} {pr.get('dgid')}")
    sl = sl_of(out, "sl.txt", src_guid - 1, 1, ca2_lid)
    check(num(pr.get("sl", "-1")) == sl, f"PR SL {pr.get('sl')}, sl.txt {sl}")
    mtus = {"256": 1, "512": 2, "1024": 3, "2048": 4, "4096": 5}
    nmtu = mtus[dotted(read(out, "smpquery_portinfo_ca.txt"))["NeighborMTU"]]
    check(num(pr.get("mtu", "0")) == 0x80 | nmtu, f"PR mtu {pr.get('mtu')} vs NeighborMTU enum {nmtu}")
    check(num(pr.get("rate", "0")) == 0x83, f"PR rate {pr.get('rate')} (4x SDR = 0x83)")
    check(num(pr.get("pkt_life", "0")) == 0x92, f"PR pkt_life {pr.get('pkt_life')}")
    check(num(pr.get("num_path_revers", "0")) == 0x80, "PR reversible")
    check(num(pr.get("pkey", "0")) == 0xFFFF, "PR pkey")

    # Multi-record GetTables through the RMPP client.
    cas = [p for p in ports if p[0] == "CA"]
    switches = {p[3]: p[1] for p in ports if p[0] == "SW"}
    nodes = client_records(out, "client_nr_all.txt")
    check(len(nodes) == len(cas) + len(switches), f"NR table: {len(nodes)} records, {len(cas)} CAs + {len(switches)} switches")
    want_nodes = {(p[1], p[3]) for p in cas} | {(lid, g) for g, lid in switches.items()}
    seen = set()
    for r in nodes:
        lid, pg = field(r, 0, 2), field(r, 24, 8)
        if lid is None or pg is None:
            continue
        check((lid, pg) in want_nodes, f"NR table: LID {lid} port GUID {pg:#x} not in ibnetdiscover")
        seen.add((lid, pg))
    check(len(seen) >= len(want_nodes) * 0.6, f"NR table: only {len(seen)} of {len(want_nodes)} records readable")

    pirs = client_records(out, "client_pir_all.txt")
    n_sw_ports = sum(1 for p in ports if p[0] == "SW") + len(switches)  # external ports + port 0
    check(len(pirs) == n_sw_ports + len(cas), f"PIR table: {len(pirs)} records, want {n_sw_ports + len(cas)}")
    for r in pirs:
        lid, port, state = field(r, 0, 2), field(r, 2, 1), field(r, 4 + 32, 1)
        if None in (lid, port, state):
            continue
        if port == 0:
            check(lid in switches.values(), f"PIR table: port 0 of LID {lid}, not a switch")
            continue
        p = by_lid_port.get((lid, port))
        if not check(p is not None, f"PIR table: LID {lid} port {port} not in ibnetdiscover"):
            continue
        want = 4 if p[4] is not None else 1
        check(state & 0xf == want, f"PIR table: LID {lid} port {port} state {state & 0xf}, want {want}")

    links = client_records(out, "client_lr_all.txt")
    want_links = {(p[1], p[2], p[4][2], p[4][1]) for p in ports if p[4] is not None}
    check(len(links) == len(want_links), f"LR table: {len(links)} records, ibnetdiscover {len(want_links)} link ends")
    for r in links:
        t = (field(r, 0, 2), field(r, 2, 1), field(r, 3, 1), field(r, 4, 2))
        if None not in t:
            check(t in want_links, f"LR table: {t} not a cable")

    blocks = client_records(out, "client_lftr_sw.txt")
    top = max(held) if held else 0
    check(len(blocks) == top // 64 + 1, f"LFTR table: {len(blocks)} blocks for top {top}")
    for r in blocks:
        block = field(r, 2, 2)
        for i in range(64):
            port = r[8 + i]
            lid = block * 64 + i if block is not None else None
            if port is None or lid is None or lid == 0:
                continue
            check(port == held.get(lid, 255), f"LFTR table: LID {lid} port {port}, dump_fts {held.get(lid, 255)}")

    check(len(client_records(out, "client_swir_all.txt")) == len(switches), "SWIR table: one per switch")


def lmc2(out, src_guid, dst_guid):
    src_guid, dst_guid = int(src_guid, 16), int(dst_guid, 16)
    ports = ibnetdiscover_ports(read(out, "ibnetdiscover_p2.txt"))
    base = {p[3]: p[1] for p in ports if p[0] == "CA"}
    paths = client_records(out, "client_pr_lmc2.txt")
    check(len(paths) == 4, f"LMC 2 PathRecords: {len(paths)}, want 4")
    dlids, slids = [], []
    for r in paths:
        dlid, slid = field(r, 40, 2), field(r, 42, 2)
        sg, dg = field(r, 32, 8), field(r, 16, 8)
        check(sg == src_guid and dg == dst_guid, f"LMC 2 PathRecord GIDs {sg} {dg}")
        if dlid is None or slid is None:
            continue
        dlids.append(dlid)
        slids.append(slid)
        sl = field(r, 52, 2)
        if sl is not None:
            want = sl_of(out, "sl2.txt", src_guid - 1, 1, dlid)
            check(sl & 0xf == want, f"LMC 2 path DLID {dlid}: SL {sl & 0xf}, sl.txt {want}")
    # Path i runs base+i -> base+i; a record whose LIDs umad2sim cut off is
    # skipped, the others must be distinct LIDs of the two ports' ranges.
    check(len(set(dlids)) == len(dlids) and all(base[dst_guid] <= d < base[dst_guid] + 4 for d in dlids),
          f"LMC 2 DLIDs {dlids}, destination base {base[dst_guid]}")
    check(len(dlids) >= 3, f"only {len(dlids)} DLIDs readable")
    check(all(s - base[src_guid] == d - base[dst_guid] for s, d in zip(slids, dlids)), f"LMC 2 SLIDs {slids}")


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "lmc0":
        lmc0(out, *(int(x) for x in sys.argv[3:8]))
    else:
        lmc2(out, sys.argv[3], sys.argv[4])
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    print(f"sa_check {mode}: {'ok' if not failures else str(len(failures)) + ' failure(s)'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
