#!/usr/bin/env bash
# The long mode of the re-route property test (tests/unit/routing/
# test_reroute_property.cpp): 50 deltas per fabric and engine, several
# seeds, each compared with a full run on the same fabric after every delta.
#
# usage: reroute_property.sh TEST_ROUTING_REROUTE [SEEDS]   (default 5)
#   e.g. tests/bench/reroute_property.sh build-test/tests/unit/routing/test_routing_reroute
set -euo pipefail
TEST=$(realpath "$1")
SEEDS=${2:-5}
start=$(date +%s)
IBSM_REROUTE_STEPS=50 IBSM_REROUTE_SEEDS=$SEEDS "$TEST" --durations yes
echo "50 deltas x $SEEDS seed(s) per fabric: passed in $(( $(date +%s) - start )) s"
