#!/usr/bin/env bash
# The Debian package, built and installed as an operator would
# (debian/): dpkg-buildpackage -b -uc -us on a copy of the source tree,
# lintian (no errors), dpkg -i, `ibsmd --version`, systemd-analyze verify on
# the installed units, nothing enabled, the state directory there, the
# configuration a conffile; then the package is purged again (unless
# KEEP_INSTALLED=1). Prints the build time, the package's size and file
# count and lintian's tags. Too slow for every test run (a full optimised
# build): scripts/test runs it when IBSMD_TEST_DEB=1.
#
# Needs root (dpkg -i) and the packages scripts/install-deps lists
# (debhelper, dpkg-dev, fakeroot, lintian). Builds in DEB_WORK
# (default /tmp/ibsmd-deb, emptied first; a fixed path lets ccache, when
# installed, reuse the objects of the previous run).
#
# usage: tests/bench/deb_check.sh [SOURCE_DIR]
set -euo pipefail
SRC=$(realpath "${1:-$(dirname "$0")/../..}")
WORK=${DEB_WORK:-/tmp/ibsmd-deb}
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "run as root (dpkg -i)"
for tool in dpkg-buildpackage lintian fakeroot dh systemd-analyze; do
    command -v "$tool" > /dev/null || fail "$tool not found (scripts/install-deps)"
done
version=$(sed -n '1s/^ibsmd (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
[ -n "$version" ] || fail "no version in debian/changelog"

rm -rf "$WORK"
mkdir -p "$WORK/ibsmd-$version"
# The tree as git sees it (tracked and new files, no build directories).
(cd "$SRC" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf -) | tar -xf - -C "$WORK/ibsmd-$version"

echo "--- dpkg-buildpackage -b -uc -us"
start=$(date +%s)
if command -v ccache > /dev/null; then export CXX="ccache g++" CCACHE_BASEDIR=$WORK; fi
(cd "$WORK/ibsmd-$version" && dpkg-buildpackage -b -uc -us) > "$WORK/build.log" 2>&1 ||
    { tail -n 40 "$WORK/build.log" >&2; fail "dpkg-buildpackage failed (log: $WORK/build.log)"; }
build_s=$(($(date +%s) - start))
deb=$(ls "$WORK"/ibsmd_"$version"_*.deb)
echo "built $(basename "$deb") in ${build_s} s: $(stat -c %s "$deb") bytes, $(dpkg-deb -c "$deb" | grep -vc '/$') files"
dpkg-deb -c "$deb" | awk '{ print "  " $6 ($7 != "" ? " " $7 " " $8 : "") }' | grep -v '/$'

echo "--- lintian"
lintian --tag-display-limit 0 "$deb" > "$WORK/lintian.log" 2>&1 || true
errors=$(grep -c '^E: ' "$WORK/lintian.log" || true)
warnings=$(grep -c '^W: ' "$WORK/lintian.log" || true)
sed 's/^/  /' "$WORK/lintian.log"
echo "lintian: $errors error(s), $warnings warning(s)"
[ "$errors" -eq 0 ] || fail "lintian reports errors"

echo "--- dpkg -i"
was_installed=$(dpkg-query -W -f='${Status}' ibsmd 2> /dev/null | grep -c "install ok installed" || true)
cleanup() {
    local rc=$?
    if [ "$was_installed" -eq 0 ] && [ -z "${KEEP_INSTALLED:-}" ]; then
        dpkg --purge ibsmd > /dev/null 2>&1 || true
    fi
    exit $rc
}
trap cleanup EXIT
dpkg -i "$deb" > "$WORK/install.log" 2>&1 || { cat "$WORK/install.log" >&2; fail "dpkg -i failed"; }

# --version comes with the CLI library (cli/app.h); without it --help
# shows that the installed program runs.
if /usr/sbin/ibsmd --version > "$WORK/version.txt" 2>&1; then
    echo "ibsmd --version: $(head -n1 "$WORK/version.txt")"
else
    /usr/sbin/ibsmd --help > "$WORK/version.txt" 2>&1 || fail "/usr/sbin/ibsmd runs neither --version nor --help"
    echo "ibsmd --version not available yet; ibsmd --help: $(head -n1 "$WORK/version.txt")"
fi
/usr/bin/ibsm --help > /dev/null 2>&1 || /usr/bin/ibsm > /dev/null 2>&1 || [ $? -ne 127 ] || fail "/usr/bin/ibsm does not run"

man_check=--man=yes
[ -e /usr/share/man/man8/ibsmd.8.gz ] || { man_check=--man=no; echo "(no ibsmd(8) installed yet: verify without the man page check)"; }
systemd-analyze verify "$man_check" /lib/systemd/system/ibsmd.service /lib/systemd/system/ibsmd@.service \
    > "$WORK/verify.log" 2>&1 || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify failed on the installed units"; }
[ ! -s "$WORK/verify.log" ] || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify printed warnings"; }
echo "systemd-analyze verify $man_check: /lib/systemd/system/ibsmd.service, ibsmd@.service clean"

enabled=$(find /etc/systemd/system -name 'ibsmd*.service' 2> /dev/null | wc -l)
[ "$enabled" -eq 0 ] || { find /etc/systemd/system -name 'ibsmd*'; fail "the package enabled a unit"; }
[ -d /var/lib/ibsmd ] || fail "no state directory /var/lib/ibsmd"
dpkg-query -W -f='${Conffiles}\n' ibsmd | grep -q '/etc/ibsmd/ibsmd.yaml' || fail "/etc/ibsmd/ibsmd.yaml is not a conffile"
echo "nothing enabled; /var/lib/ibsmd present; conffiles:$(dpkg-query -W -f='${Conffiles}' ibsmd | awk '{ printf " %s", $1 }')"
echo "OK"
