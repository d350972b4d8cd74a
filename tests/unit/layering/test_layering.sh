#!/usr/bin/env bash
# The layering check (scripts/check_layering.py) on the tree and on copies of
# it with one include too many:
#  - the tree as committed passes;
#  - an include of routing/ from qos/, of the sweep wing from the sm wing and
#    of a daemon header from topology/ each fail, and the message names the
#    file and line, the include, the library it belongs to and the library
#    whose meson.build does not name it;
#  - naming routing_dep in qos/meson.build makes the qos include pass: the
#    build files are the one source of the rules;
#  - a header that belongs to no library fails.
#
# usage: test_layering.sh SOURCE_ROOT
set -uo pipefail
ROOT=$1
CHECK=$ROOT/scripts/check_layering.py
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-layering.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

python3 "$CHECK" "$ROOT" > "$WORK/out" 2>&1 || { cat "$WORK/out" >&2; fail "the tree itself breaks the layering"; }

# A copy of the libraries' sources and build files (no build trees, no tests).
fresh() {
  rm -rf "$WORK/tree" && mkdir "$WORK/tree"
  (cd "$ROOT" && find . \( -path './build*' -o -path './.git' -o -path './tests' \) -prune -o \
      \( -name meson.build -o -name '*.h' -o -name '*.cpp' \) -print0) |
    (cd "$ROOT" && xargs -0 cp --parents -t "$WORK/tree")
}

# expect_failure FILE INCLUDE OWNER USER: the check fails and says so.
expect_failure() {
  local file=$1 include=$2 owner=$3 user=$4
  if python3 "$CHECK" "$WORK/tree" > "$WORK/out" 2>&1; then
    fail "#include \"$include\" in $file passed"
    return
  fi
  local line
  line=$(grep -c '' "$WORK/tree/$file")
  grep -qF "$file:$line: includes \"$include\" of $owner" "$WORK/out" ||
    fail "no message naming $file:$line, \"$include\" and $owner:"$'\n'"$(cat "$WORK/out")"
  grep -qF "but $user" "$WORK/out" || fail "the message does not name $user:"$'\n'"$(cat "$WORK/out")"
  [ "$(grep -c ': includes ' "$WORK/out")" = 1 ] || fail "more than the one wrong include reported:"$'\n'"$(cat "$WORK/out")"
}

fresh
[ -f "$WORK/tree/qos/sl_vl_plan.cpp" ] || fail "the copy has no qos/sl_vl_plan.cpp"
echo '#include "routing/chain.h"' >> "$WORK/tree/qos/sl_vl_plan.cpp"
expect_failure qos/sl_vl_plan.cpp routing/chain.h routing_dep qos_dep
# Named in qos/meson.build, the same include is allowed.
sed -i 's/dependencies : \[config_types_dep, mad_types_dep\])/dependencies : [config_types_dep, mad_types_dep, routing_dep])/' \
  "$WORK/tree/qos/meson.build"
grep -q routing_dep "$WORK/tree/qos/meson.build" || fail "could not name routing_dep in the copy's qos/meson.build"
python3 "$CHECK" "$WORK/tree" > "$WORK/out" 2>&1 || fail "qos naming routing_dep still fails:"$'\n'"$(cat "$WORK/out")"

fresh
echo '#include "daemon/sweep/bringup.h"' >> "$WORK/tree/daemon/sm/sm_state.cpp"
expect_failure daemon/sm/sm_state.cpp daemon/sweep/bringup.h daemon_sweep_dep daemon_sm_dep

fresh
echo '#include "daemon/core/subnet.h"' >> "$WORK/tree/topology/fabric.h"
expect_failure topology/fabric.h daemon/core/subnet.h daemon_core_dep topology_dep

# A header no library owns (a folder of header-only dependencies that do not
# list it) is refused, not left unchecked.
fresh
printf '#pragma once\n' > "$WORK/tree/common/extra.h"
echo "extra_dep = declare_dependency(include_directories : inc)" >> "$WORK/tree/common/meson.build"
if python3 "$CHECK" "$WORK/tree" > "$WORK/out" 2>&1; then
  fail "common/extra.h, listed by no dependency, passed"
else
  grep -qF "common/extra.h: belongs to no library" "$WORK/out" || fail "no message naming common/extra.h:"$'\n'"$(cat "$WORK/out")"
fi

[ "$failures" = 0 ] && echo "layering check: ok"
exit $((failures > 0))
