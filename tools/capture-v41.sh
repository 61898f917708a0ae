#!/bin/bash
# Capture OpenPMIx 4.2.2's own requests, as its client library writes them,
# for the byte-for-byte test of rpmix's v41 codec (src/msg/tests.rs reads
# src/msg/captures.txt). Programs linked to the system's OpenPMIx run as
# ranks of pmixrun; pmixrun's server logs every OpenPMIx request's bytes at
# PMIX_DEBUG level 9; the first two of each command (and form) are kept.
#
#   tools/capture-v41.sh [BUILD_DIR]     (default: c-tests/build; the
#                                         openpmix-ranks-under-rpmix step
#                                         builds the *_refh programs there)
#
# Run it again when the programs change; the captures are committed.
set -eEu
trap 'echo "capture-v41: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# (publications carry the requester's uid: the test encodes them with uid 0)
[ "$(id -u)" = 0 ] || { echo "capture-v41: run it as root" >&2; exit 1; }
B=${1:-$ROOT/c-tests/build}
LIB=$ROOT/target/release
OUT=$ROOT/src/msg/captures.txt
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# The ranks run on OpenPMIx (no rpmix on their loader path, no debug output).
run() {
    local n=$1
    shift
    (export LD_LIBRARY_PATH=$LIB PMIX_DEBUG=9 TMPDIR=$W; timeout 60 "$LIB/pmixrun" --timeout 50 -n "$n" \
        env -u PMIX_DEBUG -u LD_LIBRARY_PATH "$@" >>"$W/out" 2>>"$W/err" </dev/null) || true
}
for p in client_basic_refh client_events_refh client_spawn_refh client_semantics_refh; do
    [ -x "$B/$p" ] || { echo "capture-v41: $B/$p is missing (run the openpmix-ranks-under-rpmix step first)" >&2; exit 1; }
done
run 2 "$B/client_basic_refh" 2
run 2 "$B/client_events_refh" 2
run 2 "$B/client_spawn_refh" 2
run 2 "$B/client_semantics_refh" 2
run 2 "$B/monitor_hb_refh"
run 1 "$B/client_abort_refh"
run 2 "$B/client_jctl_signal_refh"

{
    echo "# OpenPMIx 4.2.2 clients' requests (tools/capture-v41.sh): described-form hex"
    grep -o 'OpenPMIx request from .*: described [a-z]* bytes [0-9a-f]*' "$W/err" |
        sed 's/.*described \([a-z]*\) bytes \([0-9a-f]*\)/\1 \2/' |
        awk '{ key = $1 " " substr($2, 1, 4); if (seen[key]++ < 2) print }'
} >"$OUT"
echo "capture-v41: $(grep -vc '^#' "$OUT") requests in $OUT"
awk '!/^#/ { print substr($2, 1, 4) }' "$OUT" | sort | uniq -c
