#!/usr/bin/env bash
# Runs every libFuzzer harness of a -Dfuzz=true build for a fixed number of
# inputs each, from the seed corpora make_corpus.py makes out of tests/data,
# and prints one line per harness: inputs run, coverage (libFuzzer's `cov:`
# edges and `ft:` features), corpus size, seconds.
#
#   tests/fuzz/run_fuzzers.sh BUILD_DIR RUNS [HARNESS...]
#
# A crash, leak, UB report or timeout (30 s: generous, as CI machines are
# shared) fails the script; the input is kept
# under BUILD_DIR/fuzz-artifacts/ (turn it into a unit test, see README.md).
# Fixed seed (-seed=1) so a short CI run is repeatable.
set -euo pipefail
build=$(cd "$1" && pwd)
runs=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    harnesses=(node_info node_description port_info switch_info lft sl2vl vl_arbitration sm_info notice
               transport netfile lft_dump sl_file path_file config sa mcast control rmpp)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/tests/fuzz/make_corpus.py" "$root" "$work/seeds"
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

max_len() {
    case $1 in
        notice) echo 96 ;;          # an 80-byte Notice and a little more
        transport|sa) echo 2048 ;;  # several MAD records
        mcast) echo 1024 ;;         # 16 MCMemberRecord operations
        rmpp) echo 1024 ;;          # a few raw MADs or dozens of built segments
        netfile|lft_dump|sl_file|path_file|config|control) echo 8192 ;;
        *) echo 96 ;;               # a 64-byte SMP data field and a little more
    esac
}

printf '%-18s %10s %7s %7s %7s %8s\n' harness inputs cov ft corpus seconds
failed=0
for h in "${harnesses[@]}"; do
    exe="$build/tests/fuzz/fuzz_$h"
    [ -x "$exe" ] || { echo "FAIL: $exe not built (ninja -C $1 fuzzers)" >&2; exit 1; }
    mkdir -p "$work/corpus-$h"
    log="$work/$h.log"
    start=$(date +%s.%N)
    if ! "$exe" -runs="$runs" -seed=1 -max_len="$(max_len "$h")" -timeout=30 -print_final_stats=1 \
            -artifact_prefix="$artifacts/$h-" "$work/corpus-$h" "$work/seeds/fuzz_$h" > "$log" 2>&1; then
        echo "FAIL: fuzz_$h (artifacts in $artifacts):" >&2
        grep -E 'ERROR|SUMMARY|Test unit written|deadly|==[0-9]+==' "$log" | head -n 20 >&2 || tail -n 30 "$log" >&2
        failed=1
        continue
    fi
    end=$(date +%s.%N)
    done_line=$(grep -E '^#[0-9]+\s+DONE' "$log" | tail -n1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$done_line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$done_line")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<< "$done_line")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    printf '%-18s %10s %7s %7s %7s %8.1f\n' "$h" "$execs" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$(awk "BEGIN{print $end - $start}")"
done
exit $failed
