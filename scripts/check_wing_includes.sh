#!/usr/bin/env bash
# Fails when a daemon wing includes a header of a wing its meson.build does
# not name. A wing's allowed wings are itself and every daemon_<wing>_dep its
# daemon/<wing>/meson.build mentions: the build file is the one place the
# layering is written (docs/design.md, "Layers and wings"). The pure core
# (topology, lidassign, routing) may include no daemon header at all.
#   scripts/check_wing_includes.sh [ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
bad=0
for dir in daemon/*/; do
  wing=$(basename "$dir")
  allowed=" $( (echo "$wing"; grep -o 'daemon_[a-z]*_dep' "$dir/meson.build" | sed 's/^daemon_//; s/_dep$//') |
              sort -u | tr '\n' ' ')"
  while IFS=: read -r file line used; do
    case "$allowed" in *" $used "*) ;; *)
      echo "$file:$line: includes daemon/$used/, but $dir""meson.build names only:$allowed" >&2
      bad=1 ;;
    esac
  done < <(grep -Hno '^#include "daemon/[a-z_]*/' "$dir"*.h "$dir"*.cpp 2> /dev/null |
           sed 's|#include "daemon/||; s|/$||')
done
if grep -rn '^#include "daemon/' topology lidassign routing >&2; then
  echo "the pure core (topology, lidassign, routing) includes a daemon header" >&2
  bad=1
fi
[ "$bad" = 0 ] && echo "wing includes: ok"
exit "$bad"
