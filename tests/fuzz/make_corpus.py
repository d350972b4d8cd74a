#!/usr/bin/env python3
"""Seed corpora for the libFuzzer harnesses, made from tests/data.

  make_corpus.py SOURCE_ROOT OUT_DIR

writes OUT_DIR/<harness>/<seed> for every harness built by meson.build:
the SMP data field (bytes 64..127) of each captured MAD in tests/data/mad
for the codec of its attribute, whole MADs as transport records, and the
net files, dump_fts dumps and YAML configurations as they are.
"""
import pathlib
import shutil
import sys

root = pathlib.Path(sys.argv[1])
out = pathlib.Path(sys.argv[2])
data = root / "tests" / "data"

# File name part -> codec harness (see fuzz_codecs in meson.build).
codec_of = {
    "nodeinfo": "node_info",
    "nodedesc": "node_description",
    "portinfo": "port_info",
    "switchinfo": "switch_info",
    "lft": "lft",
    "sl2vl": "sl2vl",
    "vlarb": "vl_arbitration",
    "sminfo": "sm_info",
    "trap": "notice",
}


def seed(harness, name, content):
    d = out / ("fuzz_" + harness)
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(content)


def load_mad(path):
    words = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        words += line.split()
    mad = bytes(int(w, 16) for w in words)
    assert len(mad) == 256, f"{path}: {len(mad)} bytes"
    return mad


def record(mad, flags=0):
    # fuzz_transport.cpp's record: flags, length (0 = 256), the MAD.
    return bytes([flags, 0 if len(mad) == 256 else len(mad)]) + mad


if out.exists():
    shutil.rmtree(out)
mads = {}
for path in sorted((data / "mad").glob("*.hex")):
    mad = load_mad(path)
    mads[path.stem] = mad
    kinds = [h for k, h in codec_of.items() if k in path.stem]
    if not kinds:
        sys.exit(f"{path}: no codec harness for this capture; add it to codec_of")
    seed(kinds[0], path.stem, mad[64:128])
    seed("transport", path.stem, record(mad))
    # The same MAD answering one of the harness's outstanding requests.
    seed("transport", path.stem + "-matched", record(mad, flags=0x02))

# A mixed stream: traps, a kernel-reported failure, matched and unmatched
# answers, a truncated one, and an SMInfo Get (the captured GetResp turned
# back into a request).
sminfo_get = bytearray(mads["hca1_sminfo"])
sminfo_get[3] = 0x01
sminfo_get[4] &= 0x7F
stream = (record(mads["switch1_trap128"]) + record(mads["hca1_trap144"]) + record(bytes(sminfo_get)) +
          record(mads["switch1_nodeinfo"], flags=0x02) + record(mads["hca1_nodeinfo"], flags=0x01 | 0x02 | 0x04) +
          record(mads["switch1_port3_portinfo"][:100]) +
          record(mads["hca1_nodedesc"]))
seed("transport", "mixed-stream", stream)
seed("transport", "sminfo-get", record(bytes(sminfo_get)))

for path in sorted((data / "topology").glob("*.net")) + sorted((data / "routing").glob("*.net")) + \
        sorted((data / "routing").glob("*.ibnetdiscover")) + sorted((data / "analysis").glob("*/topology.net")) + \
        sorted((root / "examples").glob("*.net")):
    if path.stat().st_size <= 64 * 1024:
        seed("netfile", path.parent.name + "-" + path.name, path.read_bytes())

for path in sorted((data / "routing").glob("*.dump_fts")) + sorted((data / "analysis").glob("*/lfts.dump")):
    seed("lft_dump", path.parent.name + "-" + path.name, path.read_bytes())

# SL files over tests/data/routing/2sw2path4hca.net (the fabric the
# harness reads them against): Hca1 is node 0x100000, the switches
# 0x200000 and 0x200001 (ibsim's numbering of named nodes).
seed("sl_file", "hca-and-switch", b"# SL file\nvls 2\nlids 8\n"
     b"0x0000000000100000 1 0101\n0x0000000000200000 0 00011\n")
seed("sl_file", "one-vl", b"vls 1\nlids 3\n0x0000000000200001 0 000\n")

# Path files (per-pair DLIDs): two destinations with LMC 2 and 0, a switch
# and a CA source, a "--" for a source's own port.
seed("path_file", "two-dests", b"# path file\nengine pathsel\ndestinations 2\n"
     b"dst 0 0x0002c90300000001 0x0010 2\ndst 1 0x0002c90300000101 0x0002 0\n"
     b"src 0x0002c902e0000000 0300\nsrc 0x0002c90300000001 --00\n")
seed("path_file", "empty", b"engine x\ndestinations 0\n")

for path in sorted((data / "config").glob("*.yaml")) + [root / "systemd" / "ibsmd.yaml"]:
    seed("config", path.name, path.read_bytes())

# The SA harness: each request sa_client sent for tests/data/sa (rebuilt
# from the capture's query line), OpenSM's answers as they came, and the
# whole set as one stream.
def sa_request(line):
    # "# sa_client query SA_LID ATTR METHOD MASK [FIELDS]" -> a 256-byte MAD.
    words = line.split()[3:]
    methods = {"get": 0x01, "set": 0x02, "gettable": 0x12, "getmulti": 0x14, "delete": 0x15}
    attr, method, mask = int(words[1], 0), methods[words[2]], int(words[3], 0)
    mad = bytearray(256)
    mad[0:4] = bytes([1, 3, 2, method])
    mad[8:16] = (0x1234).to_bytes(8, "big")
    mad[16:18] = attr.to_bytes(2, "big")
    mad[48:56] = mask.to_bytes(8, "big")
    for item in (words[4].split(",") if len(words) > 4 and not words[4].startswith("--") else []):
        at, n, value = item.split(":")
        mad[56 + int(at):56 + int(at) + int(n)] = int(value, 0).to_bytes(int(n), "big")
    return bytes(mad)


sa_stream = b""
for path in sorted((data / "sa").glob("*.txt")):
    lines = path.read_text().splitlines()
    query = [l for l in lines if l.startswith("# sa_client query")]
    if not query:
        continue
    req = sa_request(query[0])
    seed("sa", path.stem, record(req))
    sa_stream += record(req)
    for l in lines:
        if l.startswith("mad "):
            seed("sa", path.stem + "-answer", record(bytes.fromhex(l[4:])))
seed("sa", "all-queries", sa_stream)

# The RMPP harness (fuzz_rmpp.cpp): window 4, up to 32 segments; a whole
# 3-segment transfer, a resend, a gap, an ACK of the endpoint's own
# transfer, and a timeout in the middle of one.
def rmpp_seg(seg, flags, length, tid_bit=0):
    return bytes([1 | tid_bit, seg, flags, length >> 8, length & 0xff])


def rmpp_ack(seg, win):
    return bytes([3, 0, seg >> 8, seg & 0xff, win >> 8, win & 0xff])


seed("rmpp", "whole", bytes([3, 31]) + rmpp_seg(1, 2, 660) + rmpp_seg(2, 0, 0) + rmpp_seg(3, 4, 220))
seed("rmpp", "resend-gap", bytes([1, 31]) + rmpp_seg(1, 2, 500) + rmpp_seg(1, 2, 500) + rmpp_seg(3, 4, 60)
     + rmpp_seg(2, 0, 0) + rmpp_seg(3, 4, 60, 4))
seed("rmpp", "acks-timeout", bytes([7, 7]) + rmpp_ack(1, 3) + rmpp_ack(3, 5) + rmpp_seg(1, 2, 0) + bytes([2])
     + rmpp_ack(5, 5))

# The multicast harness: OpenSM's answers to IPoIB joins (tests/data/mcast)
# as join, Get and leave operations of fuzz_mcast.cpp (63-byte records).
def mcast_op(method, requester, mask, record):
    return bytes([method, requester]) + mask.to_bytes(8, "big") + record[:52].ljust(52, b"\0")


mcast_stream = b""
for path in sorted((data / "mcast").glob("opensm_join_*.txt")):
    for l in path.read_text().splitlines():
        if l.startswith("mad "):
            rec = bytes.fromhex(l[4:])[56:108]
            rec = rec[:24] + (0x11).to_bytes(8, "big") + rec[32:]  # a port the harness knows
            ops = mcast_op(0, 0, 0x10083, rec) + mcast_op(3, 1, 0x1, rec) + mcast_op(1, 0, 0x10003, rec)
            seed("mcast", path.stem, ops)
            mcast_stream += ops
seed("mcast", "all", mcast_stream)

# The control socket: a read size byte, then request lines (valid, invalid,
# split across reads, an overlong one).
control_lines = [
    b'{"id": 1, "cmd": "status"}\n',
    b'{"id": "p", "cmd": "ports", "limit": 10}\n',
    b'{"cmd": "port", "action": "isolate", "node_guid": "0x0002c90201000001", "port": 3}\n',
    b'{"cmd": "resweep", "heavy": true}\r\n{"cmd": "log-level", "level": "debug"}\n',
    b'{"cmd": "events", "follow": true}\n',
    b'{"cmd": "drain", "kind": "switch", "target": "spine-3", "dry_run": true}\n',
    b'{"cmd": "undrain", "kind": "link", "target": "0x0002c90201000001/17"}\n',
    b'{"cmd": "reboot"}\n[1]\nnot json\n{"cmd": "ports", "limit": -1}\n',
]
for i, line in enumerate(control_lines):
    seed("control", f"request-{i}", bytes([i * 7]) + line)
seed("control", "all-split", bytes([2]) + b"".join(control_lines))
seed("control", "overlong", bytes([63]) + b'{"cmd": "status", "x": "' + b"a" * 5000 + b'"}\n')
