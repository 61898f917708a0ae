#!/bin/bash
# Session directories and rendezvous files, each check on a private TMPDIR:
#  - ranks get private PMIX_TMPDIR > PMIX_NSDIR > PMIX_PROCDIR directories,
#    use them as scratch space; after the job the TMPDIR tree is exactly what
#    it was before (pre-existing files untouched), and a symlink a rank
#    planted to a directory outside was not followed;
#  - PMIX_TDIR_RMCLEAN: what was put in the session directory is left to the host;
#  - one system server / scheduler / system controller per node (a second
#    one fails with PMIX_ERR_EXISTS), a stale file of a killed server is
#    replaced, a symlink planted at the rendezvous name is refused and its
#    target left untouched; every rendezvous file is 0600 and gone at exit;
#  - PMIX_LAUNCHER_RENDEZVOUS_FILE: a tool waits (retries) for the launcher it
#    started to write its contact there, and connects;
#  - a root server (the C host as root) with clients running as `nobody`:
#    they connect, get their own NSDIR and PROCDIR (0700, theirs) under the
#    server's 0711 TMPDIR, use them, plant a symlink to a root-owned
#    directory; afterwards nothing is left, and the link's target, its
#    contents and owners are untouched (the CVE-2023-41915 class). Skipped
#    when not root or without a `nobody` user.
#
#   tools/session-tests.sh [BUILD_DIR]        (default: c-tests/build/session)
#
# Prints "ok   <check>" or "FAIL <check>" per check, then "N passed, M
# failed"; exit 0 if all pass.
#
# Environment:
#   RPMIX_LIBDIR   directory holding libpmix.so.2, pmixrun and pmixctl
#                  (default: target/release of this repository)
#   RPMIX_CASE     run only the checks whose name matches this extended
#                  regular expression (tools/testlib.sh), e.g. one_per_node
#   RPMIX_BIN      where the test programs are compiled (default: BUILD_DIR)
#   CC             the C compiler (default: cc)
set -u
BUILD_SUBDIR=session
. "$(dirname "$0")/testlib.sh"
cd "$ROOT"
export LD_LIBRARY_PATH="$LIBDIR"
HOST=$(hostname)
mkdir -p "$B" "$BIN"
check() {
    selected "$1" || return 0
    if "$@"; then echo "ok   $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
tree() { (cd "$1" && find . | sort | tr '\n' ' '); }

for p in server_dirs client_dirs; do
    build_c "$p" "$p" -D_DEFAULT_SOURCE || exit 1
done

root_server_other_user_client() {
    local t="$B/t4" out before after
    if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
        echo "SKIP: needs root and a nobody user"
        return 0
    fi
    build_prog rm_simple || return 1
    rm -rf "$t"; mkdir -p "$t/tmp" "$t/outside/inner" "$t/run"
    echo precious >"$t/outside/inner/file"
    # what nobody runs, and the library, where nobody can read them
    cp "$BIN/client_dirs" "$t/run/" && cp -L "$LIBDIR/libpmix.so.2" "$t/run/" || return 1
    chmod 755 "$B" "$t" "$t/run" "$t/outside" "$t/outside/inner" && chmod 1777 "$t/tmp" || return 1
    before=$(cd "$t" && find outside tmp -printf '%p %u %g %m\n' | sort)
    out=$(TMPDIR="$t/tmp" LD_LIBRARY_PATH="$t/run" timeout 60 "$BIN/rm_simple" -u nobody -n 2 "$t/run/client_dirs" "$t/outside" other-user 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    [ "$(echo "$out" | grep -c 'procdir /')" = 2 ] || { echo "not 2 ranks with their directories"; return 1; }
    after=$(cd "$t" && find outside tmp -printf '%p %u %g %m\n' | sort)
    [ "$before" = "$after" ] || { echo "before: $before"; echo "after:  $after"; return 1; }
    [ "$(cat "$t/outside/inner/file")" = precious ] || { echo "the link's target was touched"; return 1; }
    rm -rf "$t"
}

rank_dirs_and_cleanup() {
    local t="$B/t1" out before after
    rm -rf "$t"; mkdir -p "$t/tmp/keep/inner" "$t/outside"
    echo precious >"$t/tmp/keep/inner/file"; echo precious >"$t/outside/target"
    before=$(tree "$t/tmp")
    out=$(TMPDIR="$t/tmp" timeout 60 "$LIBDIR/pmixrun" -n 3 "$BIN/client_dirs" "$t/outside") || { echo "$out"; return 1; }
    [ "$(echo "$out" | grep -c procdir)" = 3 ] || { echo "$out"; return 1; }
    after=$(tree "$t/tmp")
    [ "$before" = "$after" ] || { echo "before: $before"; echo "after:  $after"; return 1; }
    [ "$(cat "$t/outside/target")" = precious ] && [ "$(cat "$t/tmp/keep/inner/file")" = precious ] || { echo "outside files touched"; return 1; }
    rm -rf "$t"
}

rmclean_leaves_it_to_the_host() {
    local t="$B/t2" pid d
    rm -rf "$t"; mkdir -p "$t"
    TMPDIR="$t" "$BIN/server_dirs" rmclean sleep=2 >/dev/null & pid=$!
    for _ in $(seq 50); do d=$(ls -d "$t"/rpmix.* 2>/dev/null) && break; sleep 0.1; done
    touch "$d/hosts-file"
    wait $pid || return 1
    [ -e "$d/hosts-file" ] || { echo "RMCLEAN: the host's file was removed"; return 1; }
    [ ! -e "$d/server.sock" ] || { echo "socket left"; return 1; }
    TMPDIR="$t" "$BIN/server_dirs" sleep=2 >/dev/null & pid=$!
    for _ in $(seq 50); do d=$(ls -d "$t"/rpmix.*.$pid 2>/dev/null) && break; sleep 0.1; done
    touch "$d/scratch"
    wait $pid || return 1
    [ ! -e "$d" ] || { echo "without RMCLEAN the session directory stays: $(ls -A "$d")"; return 1; }
    rm -rf "$t"
}

one_per_node() {
    local t="$B/t3" kind name a out mode
    rm -rf "$t"; mkdir -p "$t"
    for kind in sys sched ctrl; do
        case $kind in sys) name=pmix.sys.$HOST ;; sched) name=pmix.sched.$HOST ;; ctrl) name=pmix.sysctrlr.$HOST ;; esac
        TMPDIR="$t" "$BIN/server_dirs" $kind sleep=30 >/dev/null & a=$!
        for _ in $(seq 50); do [ -e "$t/$name" ] && break; sleep 0.1; done
        mode=$(stat -c %a "$t/$name" 2>/dev/null)
        [ "$mode" = 600 ] || { echo "$kind: $name mode '$mode'"; kill $a; return 1; }
        out=$(TMPDIR="$t" "$BIN/server_dirs" $kind); rc=$?
        [ $rc = 3 ] && echo "$out" | grep -q EXISTS || { echo "$kind: second server: rc $rc, $out"; kill $a; return 1; }
        # killed without finalize: its file is stale, the next server replaces it
        kill -9 $a; wait $a 2>/dev/null
        [ -e "$t/$name" ] || { echo "$kind: no stale file to replace"; return 1; }
        out=$(TMPDIR="$t" "$BIN/server_dirs" $kind) || { echo "$kind: after a stale file: $out"; return 1; }
        [ ! -e "$t/$name" ] || { echo "$kind: file left after finalize"; return 1; }
        rm -rf "$t"/rpmix.*   # the killed server's session directory
    done
    # a symlink planted at the rendezvous name is refused, its target untouched
    echo precious >"$t/victim"; ln -s "$t/victim" "$t/pmix.sys.$HOST"
    out=$(TMPDIR="$t" "$BIN/server_dirs" sys); rc=$?
    [ $rc = 3 ] && [ "$(cat "$t/victim")" = precious ] && [ -L "$t/pmix.sys.$HOST" ] || { echo "symlink: rc $rc $out"; return 1; }
    rm -rf "$t"
}

tool_support_required() {
    # As OpenPMIx: a server started without tool support accepts a tool that
    # has its URI, but writes no rendezvous file, so a tool finds it by pid
    # only with tool support.
    local pid out uri
    "$BIN/server_dirs" sleep=3 >"$B/tool_support.out" & pid=$!
    sleep 0.5
    uri=$(sed -n 's/^server_dirs: uri //p' "$B/tool_support.out")
    [ -n "$uri" ] || { echo "no uri printed: $(cat "$B/tool_support.out")"; wait $pid; return 1; }
    out=$("$LIBDIR/pmixctl" --uri "$uri" ps 2>&1); rc=$?
    echo "$out" | grep -q "runs no job" || { echo "without tool support, by URI: rc $rc: $out"; wait $pid; return 1; }
    out=$("$LIBDIR/pmixctl" --pid $pid ps 2>&1); rc=$?
    wait $pid
    [ $rc != 0 ] || { echo "without tool support, by pid: found a rendezvous file: $out"; return 1; }
    "$BIN/server_dirs" tool sleep=3 >/dev/null & pid=$!
    sleep 0.5
    out=$("$LIBDIR/pmixctl" --pid $pid ps 2>&1); rc=$?
    wait $pid
    echo "$out" | grep -q "runs no job" || { echo "with tool support: rc $rc: $out"; return 1; }
}

launcher_rendezvous_file() {
    # a tool that starts a launcher names where the launcher writes its
    # contact (PMIX_LAUNCHER_RENDEZVOUS_FILE) and connects once it is there
    local d="$B/lnc" pid out rc mode
    rm -rf "$d"; mkdir -p "$d"
    build_c tool_query tool_query || return 1
    (sleep 1; PMIX_LAUNCHER_RENDEZVOUS_FILE="$d/contact" "$LIBDIR/pmixrun" -n 2 sleep 3 >/dev/null 2>&1) & pid=$!
    out=$(timeout 20 "$BIN/tool_query" "$d/contact" 10 2>&1); rc=$?
    mode=$(stat -c %a "$d/contact" 2>/dev/null)
    wait $pid
    [ $rc = 0 ] && echo "$out" | grep -q 'has 2 ranks' || { echo "tool: rc $rc: $out"; return 1; }
    [ "$mode" = 600 ] || { echo "contact file mode $mode, expected 600"; return 1; }
    [ ! -e "$d/contact" ] || { echo "contact file left behind"; return 1; }
}

check rank_dirs_and_cleanup
check launcher_rendezvous_file
check tool_support_required
check rmclean_leaves_it_to_the_host
check one_per_node
check root_server_other_user_client
finish
