#!/bin/bash
# Size and speed figures for `ibsm report`: the fat-trees of
# fabrics.sh (3 456 hosts drawn in full, 11 664 with hosts folded into their
# leaf switches), routed by ftree; for each the time `ibsm report` takes, the
# file size (target: < 5 MB at 3 456 hosts), and how long headless Chromium
# takes to open it (target: < 2 s):
#   load   the report's load event, timed by the page that frames it
#          (parse + layout + the report's script; Chromium's start-up excluded)
#   shot   a full screenshot run minus the same run on an empty page
#
#   tests/bench/report_bench.sh [BUILD_DIR] [HOSTS...]   (default build-rel; 3456 11664)
set -euo pipefail
build=${1:-build-rel}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(3456 11664)
ibsm=$build/tools/ibsm
[ -x "$ibsm" ] || { echo "report_bench: build $ibsm first" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "report_bench: needs chromium (apt-get install chromium)" >&2; exit 1; }
. "$(dirname "$0")/fabrics.sh"
work=$(mktemp -d /tmp/report-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

chrome() { "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" "$@" 2>/dev/null; }
now() { date +%s.%N; }

printf '%-7s %-9s %9s %10s %8s %8s\n' hosts engine report_s size_MB load_s shot_s
for hosts in "${sizes[@]}"; do
    dir=$work/tree-$hosts
    # shellcheck disable=SC2046
    "$ibsm" topogen pgft $(pgft_args "$hosts") --out "$work/tree-$hosts.net" >/dev/null 2>&1
    "$ibsm" route --engine ftree --topology "$work/tree-$hosts.net" --out "$dir" >/dev/null 2>&1
    t0=$(now)
    "$ibsm" report "$dir" --out "$dir/report.html" >/dev/null 2>&1
    t1=$(now)
    size=$(stat -c %s "$dir/report.html")
    # The frame's onload fires after the report's own load event.
    cat > "$dir/frame.html" <<HTML
<!DOCTYPE html><html><body><div id="t">none</div>
<script>const t0 = performance.now();</script>
<iframe src="report.html" width="1600" height="1200"
 onload="document.getElementById('t').textContent = ((performance.now() - t0) / 1000).toFixed(3)"></iframe>
</body></html>
HTML
    load=$(chrome --allow-file-access-from-files --dump-dom "file://$dir/frame.html" | sed -n 's/.*<div id="t">\([0-9.]*\)<.*/\1/p')
    echo '<!DOCTYPE html><html><body>empty</body></html>' > "$work/empty.html"
    b0=$(now); chrome --window-size=1600,1200 --screenshot="$work/empty.png" "file://$work/empty.html" >/dev/null; b1=$(now)
    s0=$(now); chrome --window-size=1600,1200 --screenshot="$dir/shot.png" "file://$dir/report.html" >/dev/null; s1=$(now)
    awk -v h="$hosts" -v r="$(awk "BEGIN { print $t1 - $t0 }")" -v mb="$size" -v l="${load:-?}" \
        -v s="$(awk "BEGIN { print ($s1 - $s0) - ($b1 - $b0) }")" \
        'BEGIN { printf "%-7s %-9s %9.2f %10.2f %8s %8.2f\n", h, "ftree", r, mb / 1048576, l, s }'
done
