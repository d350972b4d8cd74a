#!/bin/bash
# `ibsm analyze` on tables that OpenSM programmed into ibsim, read back with
# ibnetdiscover + dump_fts, as an operator would score a live fabric:
#
#  1. OpenSM ftree on the 648-host 2-level tree PGFT(2;18,36;1,18;1,1):
#     every CA pair reachable, shifts non-blocking (min 1.0, hosts in name
#     order = leaf by leaf, port by port, which is how topogen names them),
#     and spine-to-spine pairs unreachable (classic ftree does not route
#     between top switches: all 18*17 ordered spine pairs).
#  2. OpenSM minhop on a ring of 5 switches: the clockwise 2-hop routes close
#     a channel dependency cycle -> a credit loop is reported and printed.
#  3. The analyzer agrees with the brute-force model (analyze_crosscheck.py)
#     on the ring's tables.
#  4. OpenSM's own opensm-lfts.dump of the 648-host tree (-D 0x40 writes it
#     to --dump_files_dir) gives the same report as its tables read back
#     with dump_fts (ibsm analyze detects the format).
#
# usage: opensm_analyze.sh IBSM_BINARY
# Fails (does not skip) when ibsim, umad2sim, opensm or infiniband-diags are
# missing.
set -euo pipefail
IBSM=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/ibsim_env.sh"

for tool in opensm ibnetdiscover dump_fts python3; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool not found (apt-get install opensm infiniband-diags python3)" >&2; exit 1; }
done
# OpenSM's LID cache and dumps stay private to this test.
export OSM_CACHE_DIR="$WORK/osm-cache" OSM_TMP_DIR="$WORK/osm-tmp"
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"


# run_opensm ENGINE TAG: configure the simulated subnet once, then read the
# fabric and tables back.
run_opensm() {
    local engine=$1 tag=$2
    sim timeout 300 opensm -o -R "$engine" -D 0x43 -f "$WORK/opensm-$tag.log" --dump_files_dir "$OSM_TMP_DIR" \
        > "$WORK/opensm-$tag.out" 2>&1 || { tail -n 30 "$WORK/opensm-$tag.log" >&2 || true; fail "opensm -R $engine exited with an error"; }
    grep -q "SUBNET UP" "$WORK/opensm-$tag.log" || { tail -n 30 "$WORK/opensm-$tag.log" >&2; fail "opensm -R $engine did not bring the subnet up"; }
    grep -q "$engine tables configured on all switches" "$WORK/opensm-$tag.log" ||
        fail "opensm did not route with $engine: $(grep -m1 'tables configured' "$WORK/opensm-$tag.log" || echo 'no routing line')"
    sim ibnetdiscover > "$WORK/$tag.net" 2> "$WORK/$tag.ibnetdiscover.err" || fail "ibnetdiscover failed"
    sim dump_fts > "$WORK/$tag.dump" 2> "$WORK/$tag.dump_fts.err" || fail "dump_fts failed"
}

# ---- 1. ftree on the 648-host tree ----------------------------------------
"$IBSM" topogen pgft --m 18,36 --w 1,18 --p 1,1 --out "$WORK/tree648.net" >/dev/null
ibsim_start "$WORK/tree648.net"
run_opensm ftree ftree648
"$IBSM" analyze --topology "$WORK/ftree648.net" --lfts "$WORK/ftree648.dump" --json --bisections 200 \
    --out "$WORK/ftree648.json" 2> "$WORK/ftree648.analyze.err" || { cat "$WORK/ftree648.analyze.err" >&2; fail "ibsm analyze failed on OpenSM ftree tables"; }
[ -s "$OSM_TMP_DIR/opensm-lfts.dump" ] || fail "OpenSM wrote no opensm-lfts.dump to $OSM_TMP_DIR"
cp "$OSM_TMP_DIR/opensm-lfts.dump" "$WORK/ftree648.opensm-lfts.dump"
"$IBSM" analyze --topology "$WORK/ftree648.net" --lfts "$WORK/ftree648.opensm-lfts.dump" --json --bisections 200 \
    --out "$WORK/ftree648.osm.json" 2> "$WORK/ftree648.osm.err" || { cat "$WORK/ftree648.osm.err" >&2; fail "ibsm analyze failed on opensm-lfts.dump"; }
python3 - "$WORK/ftree648.json" "$WORK/ftree648.osm.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert b["engine"] == "opensm-lfts", b["engine"]
diff = [k for k in a if k not in ("engine", "seconds") and a[k] != b[k]]
if diff:
    sys.exit(f"FAIL: opensm-lfts.dump and dump_fts disagree on {diff}")
print("opensm-lfts.dump: same report as dump_fts read back (pairs, credit loops, EBB, shifts)")
EOF
ibsim_stop

python3 - "$WORK/ftree648.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["pairs"]
errors = []
def expect(cond, what):
    if not cond:
        errors.append(what)
expect(r["fabric"]["hosts"] == 648 and r["fabric"]["switches"] == 54, f"fabric {r['fabric']}")
expect(p["ca_to_ca"]["pairs"] == 648 * 647, f"ca_to_ca pairs {p['ca_to_ca']['pairs']}")
expect(p["ca_to_ca"]["unreachable"] == 0 and p["ca_to_ca"]["loops"] == 0, f"ca_to_ca {p['ca_to_ca']}")
expect(r["shifts"]["min"] == 1.0, f"shift min {r['shifts']['min']} (want 1.0)")
expect(r["shifts"]["average"] == 1.0, f"shift average {r['shifts']['average']}")
ss = p["switch_to_switch"]
expect(ss["unreachable"] == 18 * 17, f"switch_to_switch unreachable {ss['unreachable']} (want 306 = 18*17 spine pairs)")
ex = ss["unreachable_examples"]
expect(ex and all(e["source"].startswith("core-") and e["destination"].startswith("core-") for e in ex),
       f"unreachable switch pairs should be spine-to-spine: {ex}")
expect(not r["credit_loops"]["ca_traffic"]["has_loop"], "ftree CA traffic should be free of credit loops")
expect(0 < r["ebb"]["value"] <= 1.0, f"ebb {r['ebb']}")
print(f"ftree 648: shifts avg {r['shifts']['average']} min {r['shifts']['min']}, "
      f"switch_to_switch unreachable {ss['unreachable']}, ebb {r['ebb']['value']:.4f}, "
      f"efi switch max {r['edge_forwarding']['switch_links']['max']}")
if errors:
    print("FAIL: " + "; ".join(errors), file=sys.stderr)
    sys.exit(1)
EOF

# ---- 2. minhop on a ring ----------------------------------------------------
"$IBSM" topogen ring --switches 5 --hosts-per-switch 2 --out "$WORK/ring5.net" >/dev/null
ibsim_start "$WORK/ring5.net"
run_opensm minhop ring5
ibsim_stop
"$IBSM" analyze --topology "$WORK/ring5.net" --lfts "$WORK/ring5.dump" > "$WORK/ring5.txt" 2>&1 ||
    { cat "$WORK/ring5.txt" >&2; fail "ibsm analyze failed on OpenSM minhop ring tables"; }
"$IBSM" analyze --topology "$WORK/ring5.net" --lfts "$WORK/ring5.dump" --json --out "$WORK/ring5.json" 2>/dev/null
python3 - "$WORK/ring5.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["credit_loops"]["ca_traffic"]
cycles = [v["cycle"] for v in c["vls"] if v["cycle"]]
if not c["has_loop"] or not cycles:
    print(f"FAIL: OpenSM minhop on a 5-switch ring should show a credit loop: {c}", file=sys.stderr)
    sys.exit(1)
cyc = cycles[0]
# A printed cycle must be a closed walk of links: each link starts on the
# switch where the previous one ended.
for a, b in zip(cyc, cyc[1:] + cyc[:1]):
    if a["to"]["guid"] != b["from"]["guid"]:
        print(f"FAIL: cycle is not closed at {a} -> {b}", file=sys.stderr)
        sys.exit(1)
if r["pairs"]["ca_to_ca"]["unreachable"] or r["pairs"]["ca_to_ca"]["loops"]:
    print(f"FAIL: minhop ring should reach every CA pair: {r['pairs']['ca_to_ca']}", file=sys.stderr)
    sys.exit(1)
print("minhop ring: credit loop of %d links: %s" % (len(cyc), " ; ".join(
    f"{l['from']['name']}[{l['from']['port']}] -> {l['to']['name']}[{l['to']['port']}]" for l in cyc)))
EOF
grep -q "CREDIT LOOP" "$WORK/ring5.txt" || { cat "$WORK/ring5.txt" >&2; fail "text report does not flag the credit loop"; }

# ---- 3. brute-force cross-check on the ring tables ---------------------------
python3 "$HERE/analyze_crosscheck.py" "$IBSM" "$WORK/ring5.net" "$WORK/ring5.dump" 50 2024 ||
    fail "analyzer and brute-force model disagree on OpenSM's ring tables"
echo "PASS"
