#!/usr/bin/env bash
# The long fuzzing run: every libFuzzer harness for RUNS inputs
# (default 10^6) from the tests/data seeds; prints inputs run, coverage
# (libFuzzer's cov: edges, ft: features), corpus size and time per harness.
# Needs the clang fuzz build (tests/fuzz/README.md):
#   CXX=clang++ meson setup build-fuzz -Dfuzz=true -Dtests=false \
#       -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug -Doptimization=1
#   ninja -C build-fuzz fuzzers
#   tests/bench/fuzz_long.sh build-fuzz [RUNS] [HARNESS...]
set -euo pipefail
build=${1:?usage: fuzz_long.sh BUILD_DIR [RUNS] [HARNESS...]}
runs=${2:-1000000}
shift $(( $# >= 2 ? 2 : 1 ))
exec "$(dirname "$0")/../fuzz/run_fuzzers.sh" "$build" "$runs" "$@"
