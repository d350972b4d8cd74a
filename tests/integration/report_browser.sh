#!/bin/bash
# `ibsm report` pages opened in a real browser (docs/report.md): headless Chromium
# runs each page's script, dumps the DOM and takes a screenshot, and
# report_check.py compares the DOM with `ibsm analyze --json` and with the
# topology files. Four routings, all from `ibsm topogen` + `ibsm route`
# (no simulator):
#   tree      PGFT(2; 4,8; 1,4; 1,2), ftree: clean, parallel cables bundled
#   degraded  PGFT(3; 4,4,8; 1,4,4) less 6 switch links and a spine, routed,
#             then one more switch cable cut under the same tables (as after
#             a cable failure): unreachable CA pairs, listed as problems
#   torus     4x4 torus, minhop: a credit loop, its cycle marked on the drawing
#   compare   the tree routed by ftree and by minhop side by side (--compare)
#
# usage: report_browser.sh IBSM_BINARY
# Fails (does not skip) when chromium or python3 is missing
# (scripts/install-deps installs both).
set -euo pipefail
IBSM=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="$HERE/report_check.py"
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in chromium python3; do
    command -v "$tool" >/dev/null || fail "$tool not found (scripts/install-deps installs it)"
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/report-browser.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

TUNING=(--bisections 50 --seed 11)

# route NAME NET ENGINE: an `ibsm route` directory; exit 2 (tables that
# failed verification, e.g. minhop's credit loop on the torus) is expected.
route() {
    local rc=0
    "$IBSM" route --topology "$2" --out "$1" --engine "$3" --no-fallback > "$1.route.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || { cat "$1.route.log" >&2; fail "ibsm route $1 exited $rc"; }
}

# render NAME: DOM (with the page's #selftest hover) and screenshot of
# NAME.html; console output of the page (the report never logs) or a crash
# fails.
render() {
    local name=$1 url="file://$WORK/$1.html"
    local chrome=(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
                  --user-data-dir="$WORK/profile-$name" --enable-logging=stderr --v=0)
    local t0=$(date +%s.%N)
    timeout 120 "${chrome[@]}" --dump-dom "$url#selftest" > "$name.dom.html" 2> "$name.dom.log" \
        || { tail -n 20 "$name.dom.log" >&2; fail "chromium --dump-dom $name exited with an error"; }
    local t1=$(date +%s.%N)
    timeout 120 "${chrome[@]}" --screenshot="$WORK/$name.png" --window-size=1600,1200 "$url" > /dev/null 2> "$name.shot.log" \
        || { tail -n 20 "$name.shot.log" >&2; fail "chromium --screenshot $name exited with an error"; }
    if grep -h -E ':CONSOLE|Uncaught' "$name.dom.log" "$name.shot.log" >&2; then
        fail "$name: the page wrote to the browser console (above)"
    fi
    [ -s "$name.dom.html" ] || fail "$name: empty DOM dump"
    echo "$name: $(stat -c %s "$name.html") bytes, DOM dumped in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"
}

# case NAME FLAGS... -- DIR [DIR2]: report, analyze, render, check.
check_case() {
    local name=$1; shift
    local flags=()
    while [ "$1" != "--" ]; do flags+=("$1"); shift; done
    shift
    local dirs=("$@") cmp=() sides=()
    [ "${#dirs[@]}" -eq 2 ] && cmp=(--compare "${dirs[1]}")
    "$IBSM" report "${dirs[0]}" "${cmp[@]}" "${TUNING[@]}" --out "$name.html" 2> "$name.report.log" \
        || { cat "$name.report.log" >&2; fail "ibsm report $name failed"; }
    local i=0
    for d in "${dirs[@]}"; do
        "$IBSM" analyze "$d" --json "${TUNING[@]}" > "$name.$i.json" 2> /dev/null \
            || fail "ibsm analyze $d failed"
        sides+=("$name.$i.json" "$d/topology.net")
        i=$((i + 1))
    done
    render "$name"
    python3 "$CHECK" "$name.html" "$name.dom.html" "$name.png" "${flags[@]}" -- "${sides[@]}" \
        || fail "$name: report_check.py"
    echo "PASS $name"
}

"$IBSM" topogen pgft --m 4,8 --w 1,4 --p 1,2 --out tree.net > /dev/null
route tree-ftree tree.net ftree
route tree-minhop tree.net minhop

"$IBSM" topogen pgft --m 4,4,8 --w 1,4,4 --p 1,1,1 --remove-links 6 --remove-switches 1 --seed 3 \
    --out degraded.net > /dev/null
route degraded degraded.net dfsssp
python3 "$CHECK" --cut-switch-cable degraded/topology.net

"$IBSM" topogen torus --x 4 --y 4 --hosts-per-switch 2 --out torus.net > /dev/null
route torus torus.net minhop

check_case tree -- tree-ftree
check_case degraded --unreachable -- degraded
check_case torus --credit-loop -- torus
check_case compare --compare -- tree-ftree tree-minhop
echo "PASS: report_browser"
