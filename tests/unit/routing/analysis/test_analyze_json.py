"""`ibsm analyze --json`: the real output against docs/analyze.schema.json,
and a node description that is not UTF-8 still gives valid JSON.

  test_analyze_json.py IBSM ANALYSIS_DATA SCHEMA WORKDIR
"""

import copy
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_json_schema import validate  # noqa: E402

ibsm, data, schema_path, work = sys.argv[1:5]
schema = json.load(open(schema_path))
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def analyze(route_dir, *extra):
    extra = extra or ("--bisections", "20")
    out = subprocess.run([ibsm, "analyze", route_dir, "--json", *extra],
                         check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
    text = out.decode("utf-8")  # strict: invalid UTF-8 raises here
    return json.loads(text)


reports = {
    "tree8": analyze(os.path.join(data, "tree8_minhop")),
    "ring5": analyze(os.path.join(data, "ring5_minhop")),
    "ring5-no-extras": analyze(os.path.join(data, "ring5_minhop"), "--bisections", "0", "--no-shifts",
                               "--no-switch-traffic"),
}
for name, rep in reports.items():
    for e in validate(schema, rep):
        check(False, f"{name}: {e}")

# The validator itself must reject what the schema forbids.
rep = copy.deepcopy(reports["ring5"])
rep["pairs"]["ca_to_ca"]["undocumented"] = 1
check(validate(schema, rep), "an undocumented key passed the schema")
rep = copy.deepcopy(reports["ring5"])
del rep["edge_forwarding"]["all_links"]["max_link"]
check(validate(schema, rep), "a missing required key passed the schema")
rep = copy.deepcopy(reports["ring5"])
rep["credit_loops"]["ca_traffic"]["vls"][0]["cycle"][0]["from"]["guid"] = "12"
check(validate(schema, rep), "a malformed GUID passed the schema")

# Node descriptions with bytes that are not UTF-8 (a switch's "ring-0000"
# becomes "ring-\xff\xfe0000", a lone continuation byte on another).
bad_dir = os.path.join(work, "ring5_bad_utf8")
shutil.rmtree(bad_dir, ignore_errors=True)
shutil.copytree(os.path.join(data, "ring5_minhop"), bad_dir)
net = os.path.join(bad_dir, "topology.net")
raw = open(net, "rb").read()
check(b'"ring-0000"' in raw, "fixture no longer names ring-0000")
raw = raw.replace(b'"ring-0000"', b'"ring-\xff\xfe0000"').replace(b'"ring-0001"', b'"ring-\x800001"')
open(net, "wb").write(raw)
rep = analyze(bad_dir)
for e in validate(schema, rep):
    check(False, f"bad UTF-8: {e}")
names = {link[end]["name"] for vl in rep["credit_loops"]["ca_traffic"]["vls"] for link in vl["cycle"]
         for end in ("from", "to")}
check("ring-\ufffd\ufffd0000" in names, f"invalid bytes not replaced by U+FFFD: {sorted(names)}")
check("ring-\ufffd0001" in names, f"lone continuation byte not replaced: {sorted(names)}")

if failures:
    sys.exit(1)
print(f"ok: {len(reports) + 1} reports valid against {os.path.basename(schema_path)}, invalid UTF-8 replaced")
