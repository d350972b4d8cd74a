#!/usr/bin/env bash
# The generated manual pages and bash completion (man/gen_docs):
#  - man -l renders ibsmd(8), ibsm(1) and ibsmd.yaml(5) without warnings;
#  - every flag `--help` lists, for ibsmd and for every ibsm (sub)command,
#    appears in the rendered page, and so does every key of the schema
#    (`ibsmd --print-config` prints all of them) in ibsmd.yaml(5);
#  - the pages name the exit statuses 64, 78, 1 and 2;
#  - the completion scripts parse, and complete flags, subcommands and
#    values (engines, log levels) as declared.
#
# usage: test_man_pages.sh IBSMD IBSM GENERATED_DIR
set -uo pipefail
IBSMD=$1 IBSM=$2 DIR=$3
command -v man > /dev/null || { echo "FAIL: man not found (apt-get install man-db)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-man.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

for page in ibsmd.8 ibsm.1 ibsmd.yaml.5; do
    [ -s "$DIR/$page" ] || { fail "$DIR/$page missing"; continue; }
    LC_ALL=C MANWIDTH=100 man --warnings -l "$DIR/$page" > "$WORK/$page.txt" 2> "$WORK/$page.err" ||
        fail "man -l $page exited $?"
    [ -s "$WORK/$page.err" ] && fail "man -l $page warned: $(head -n 5 "$WORK/$page.err")"
    [ "$(wc -l < "$WORK/$page.txt")" -gt 30 ] || fail "$page rendered to $(wc -l < "$WORK/$page.txt") lines"
    for code in 0 1 2 64; do
        grep -qE "^ {7}$code( |$)" "$WORK/$page.txt" || [ "$page" = ibsmd.yaml.5 ] || fail "$page: no exit status $code"
    done
done
grep -qE "^ {7}78 " "$WORK/ibsmd.8.txt" || fail "ibsmd.8: no exit status 78"

# flags_of HELP_TEXT_FILE: the long flags a help text lists (option lines only).
flags_of() { grep -oE '^ +(-[a-z], ?)?--[a-z0-9-]+' "$1" | grep -oE -- '--[a-z0-9-]+' | sort -u; }
# in_page FLAG PAGE_TEXT: the flag as a whole word.
in_page() { grep -qE -- "(^|[^a-z0-9-])$1([^a-z0-9-]|$)" "$2"; }

checked=0
check_help() {
    local page=$1
    shift
    "$@" --help > "$WORK/help.txt" || fail "$* --help exited $?"
    local flags
    flags=$(flags_of "$WORK/help.txt")
    [ -n "$flags" ] || fail "$* --help lists no flags"
    for f in $flags; do
        in_page "$f" "$WORK/$page.txt" || fail "$* --help lists $f, $page does not"
        checked=$((checked + 1))
    done
}
check_help ibsmd.8 "$IBSMD"
check_help ibsm.1 "$IBSM"
for cmd in route topodiff analyze topogen status; do check_help ibsm.1 "$IBSM" "$cmd"; done
kinds=$("$IBSM" topogen --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ "$(echo "$kinds" | wc -w)" -ge 5 ] || fail "ibsm topogen --help lists kinds: $kinds"
for k in $kinds; do
    check_help ibsm.1 "$IBSM" topogen "$k"
    grep -qE "ibsm topogen $k " "$WORK/ibsm.1.txt" || fail "ibsm.1 has no section for topogen $k"
done
for cmd in route topodiff analyze topogen status; do
    grep -qE "^ +ibsm $cmd " "$WORK/ibsm.1.txt" || fail "ibsm.1 has no section for $cmd"
done
echo "$checked flag occurrences from --help found in the pages"

# Every key of the schema: --print-config prints them all (nested YAML).
"$IBSMD" --print-config --config none > "$WORK/config.yaml" || fail "--print-config exited $?"
keys=$(python3 - "$WORK/config.yaml" <<'PY'
import sys
section = ""
for line in open(sys.argv[1]):
    if not line.strip() or line.lstrip().startswith("#"):
        continue
    key = line.split(":", 1)[0]
    if not line.startswith(" "):
        value = line.split(":", 1)[1].split("#")[0].strip()
        if value:
            print(key)
            section = ""
        else:
            section = key
    else:
        print(section + "." + key.strip())
PY
)
[ "$(echo "$keys" | wc -w)" -ge 25 ] || fail "--print-config gave only these keys: $keys"
for k in $keys; do
    grep -qF -- "$k" "$WORK/ibsmd.yaml.5.txt" || fail "ibsmd.yaml.5 does not document $k"
done

# Completion: simulate bash's completion call.
complete_words() { # SCRIPT PROGRAM WORDS...: the candidates for the last word
    local script=$1
    shift
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "_$1"; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$script" "$@"
}
for prog in ibsmd ibsm; do
    bash -n "$DIR/$prog" || fail "completion script $prog does not parse"
done
complete_words "$DIR/ibsmd" ibsmd "--port-" | grep -x -- "--port-guid" > /dev/null || fail "ibsmd --port-<TAB> misses --port-guid"
complete_words "$DIR/ibsmd" ibsmd --log-level "" | grep -x "critical" > /dev/null || fail "ibsmd --log-level <TAB> misses critical"
complete_words "$DIR/ibsmd" ibsmd --engine "df" | grep -x "dfsssp" > /dev/null || fail "ibsmd --engine df<TAB> misses dfsssp"
complete_words "$DIR/ibsm" ibsm "ro" | grep -x "route" > /dev/null || fail "ibsm ro<TAB> misses route"
complete_words "$DIR/ibsm" ibsm route "--t" | grep -x -- "--topology" > /dev/null || fail "ibsm route --t<TAB> misses --topology"
complete_words "$DIR/ibsm" ibsm topogen "py" | grep . > /dev/null && fail "ibsm topogen py<TAB> offered something"
complete_words "$DIR/ibsm" ibsm topogen pgft "--dual" | grep -x -- "--dual-port" > /dev/null || fail "ibsm topogen pgft --dual<TAB>"
complete_words "$DIR/ibsm" ibsm route --balancing "" | grep -x "local" > /dev/null || fail "ibsm route --balancing <TAB> misses local"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo ok
