#!/usr/bin/env bash
# `meson install --destdir` lays out exactly what an operator needs
# (the install layout), and a second install keeps an edited configuration.
#
# usage: install_layout.sh BUILD_DIR PREFIX SBINDIR BINDIR SYSCONFDIR UNITDIR MANDIR COMPLETIONSDIR LIBDIR
# (absolute install paths, as meson.build computed them)
set -euo pipefail
BUILD=$(realpath "$1"); PREFIX=$2; SBINDIR=$3; BINDIR=$4; SYSCONFDIR=$5; UNITDIR=$6; MANDIR=$7; COMPLETIONSDIR=$8; LIBDIR=$9
fail() { echo "FAIL: $*" >&2; exit 1; }
DEST=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-install.XXXXXX")
trap 'rm -rf "$DEST"' EXIT

meson install -C "$BUILD" --no-rebuild --destdir "$DEST" > "$DEST.log" 2>&1 || { cat "$DEST.log" >&2; rm -f "$DEST.log"; fail "meson install failed"; }
expected=$(printf '%s\n' \
    "$SBINDIR/ibsmd" \
    "$BINDIR/ibsm" \
    "$UNITDIR/ibsmd.service" \
    "$UNITDIR/ibsmd@.service" \
    "$SYSCONFDIR/ibsmd/ibsmd.yaml" \
    "$SYSCONFDIR/logrotate.d/ibsmd" \
    "$MANDIR/man8/ibsmd.8" \
    "$MANDIR/man1/ibsm.1" \
    "$MANDIR/man5/ibsmd.yaml.5" \
    "$COMPLETIONSDIR/ibsmd" \
    "$COMPLETIONSDIR/ibsm" \
    "$LIBDIR/ibsmd/libibsim-rmpp.so" | sort)
actual=$(cd "$DEST" && find . -type f -o -type l | sed 's|^\.||' | sort)
if [ "$expected" != "$actual" ]; then
    diff <(echo "$expected") <(echo "$actual") >&2 || true
    fail "installed files differ from the expected layout (< expected, > installed)"
fi
echo "installed under $PREFIX:"; echo "$actual" | sed 's/^/  /'

[ -x "$DEST$SBINDIR/ibsmd" ] && [ -x "$DEST$BINDIR/ibsm" ] || fail "the programs are not executable"
cmp -s "$DEST$SYSCONFDIR/ibsmd/ibsmd.yaml" "$(dirname "$0")/../../systemd/ibsmd.yaml" ||
    fail "the installed configuration is not systemd/ibsmd.yaml"
grep -q "^ExecStart=$SBINDIR/ibsmd\$" "$DEST$UNITDIR/ibsmd.service" || fail "ibsmd.service does not run $SBINDIR/ibsmd"

# An operator edited the file: installing again keeps it.
echo "# edited by the operator" >> "$DEST$SYSCONFDIR/ibsmd/ibsmd.yaml"
meson install -C "$BUILD" --no-rebuild --destdir "$DEST" > "$DEST.log" 2>&1 || { cat "$DEST.log" >&2; rm -f "$DEST.log"; fail "second meson install failed"; }
rm -f "$DEST.log"
tail -n 1 "$DEST$SYSCONFDIR/ibsmd/ibsmd.yaml" | grep -q "edited by the operator" || fail "a second install overwrote the edited configuration"
echo "second install kept the edited $SYSCONFDIR/ibsmd/ibsmd.yaml"
