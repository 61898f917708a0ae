#!/bin/bash
# Tests of the resource-manager setup layer (src/server/setup.rs): network
# backends selected by PMIX_MCA_pnet, PMIx_server_setup_application /
# setup_local_support, environment directives applied by setup_fork.
#
#   tools/setup-tests.sh [BUILD_DIR]        (default: c-tests/build)
#
# Environment:
#   RPMIX_LIBDIR   directory holding libpmix.so.2 (default: target/release of
#                  this repository); also where pmixrun is looked for
#   RPMIX_PMIXRUN  the launcher (default: $RPMIX_LIBDIR/pmixrun)
#   CC             the C compiler (default: cc)
#   RPMIX_CASE     run only the cases whose name matches this extended
#                  regular expression (tools/testlib.sh), e.g. ^pnet-
#   RPMIX_BIN      where the test programs are compiled (default: BUILD_DIR)
#
# Builds rm_simple, client_env, client_basic and setup_badinput against
# include/ (strict C99), and rm_simple + client_env against OpenPMIx 4.2.2's
# headers (*_refh). Cases (every run is wrapped in `timeout`):
#   env-rm_simple            RPMIX_T_UNSET=gone RPMIX_T_LIST=mid
#                            rm_simple -E -n 3 client_env on rpmix: exit 0,
#                            "client_env: N passed, 0 failed"
#   env-rm_simple-refh       the same, both built against OpenPMIx's headers
#   env-rm_simple-modes      the same in the -m imm, -m defer and -s styles
#   env-pnet-env             the same with PMIX_MCA_pnet=env (no transport key)
#   env-openpmix-library     the *_refh pair on OpenPMIx's own library: the
#                            setup calls are accepted and the job runs; the
#                            rpmix-only checks are reported as not provided,
#                            the others must pass
#   rm_simple-regression     rm_simple (no -E) -n 4 client_basic 4 on rpmix in
#                            the direct, imm, defer and -s styles
#   pnet-test-log            PMIX_MCA_pnet=transport,test with
#                            RPMIX_PNET_TEST_LOG: the job passes, and the log
#                            has exactly one "setup_application <ns> 3" and one
#                            "setup_local <ns>" (in that order) before any
#                            child_env, one child_env and one child_finalized
#                            per rank, exactly one app_finalized after every
#                            child_finalized, and nothing else
#   pnet-nosuch              PMIX_MCA_pnet=nosuch: rm_simple's server_init
#                            fails (NOT-FOUND), exit non-zero, nothing started
#   pmixrun-transport-key    pmixrun -n 3 sh -c 'echo $OMPI_MCA_orte_precondition_transports'
#                            prints 3 identical non-empty keys; a second run a
#                            different one
#   resources-vs-openpmix    c-tests/resources_host (OpenPMIx headers):
#                            PMIx_server_register_resources/_deregister_
#                            resources seen in later namespaces' job data, on
#                            rpmix and on OpenPMIx (one known difference)
#   setup_badinput           c-tests/setup_badinput: "N passed, 0 failed"
#
# Prints PASS: <case> / FAIL: <case> (...) per case, then "N passed, M failed";
# exit status 0 only when every case passed.
set -u

. "$(dirname "$0")/testlib.sh"
T=60             # timeout of every run

mkdir -p "$B" "$BIN" || { echo "cannot create $B"; exit 1; }
if [ ! -e "$LIBDIR/libpmix.so.2" ]; then
    echo "no $LIBDIR/libpmix.so.2 (build the library, or set RPMIX_LIBDIR)"; echo "0 passed, 1 failed"; exit 1
fi

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rpmix-setup.XXXXXX") || exit 1
trap 'rm -rf "$SCRATCH"' EXIT
export TMPDIR=$SCRATCH
# a clean slate: the cases set these themselves
unset PMIX_MCA_pnet RPMIX_PNET_TEST_LOG OMPI_MCA_orte_precondition_transports RPMIX_PNET_TEST \
      RPMIX_T_SET RPMIX_T_UNSET RPMIX_T_LIST RPMIX_T_STR

ours() { LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }

# ---- build (c-tests/Makefile: make_progs, tools/testlib.sh) ----
build_log=$B/setup-build.log
: >"$build_log"
built=1
make_progs rm_simple_ours client_env_ours client_basic_ours setup_badinput_ours \
    rm_simple_ref client_env_ref resources_host_ref >>"$build_log" 2>&1 || built=0
if [ $built = 1 ]; then pass build; else fail build "compilation failed" "$build_log"; echo "$passed passed, $failed failed"; exit 1; fi

# client_env summary of a log: "passed failed", or nothing
summary() { sed -n 's/^client_env: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$1" | tail -n 1; }

# run_env <log> <rm_simple> <client_env> [rm_simple options...]: a client_env job
run_env() {
    local log=$1 rm=$2 cl=$3; shift 3
    RPMIX_T_UNSET=gone RPMIX_T_LIST=mid timeout $T "$rm" "$@" -E -n 3 "$cl" >"$log" 2>&1
}
# check_env <log> <exit code>: empty when the job passed, else why not
check_env() {
    local s; s=$(summary "$1")
    [ "$2" = 0 ] || { echo "exit $2"; return; }
    [ -n "$s" ] || { echo "no client_env summary"; return; }
    set -- $s
    [ "$2" = 0 ] && [ "$1" -gt 0 ] || echo "client_env: $1 passed, $2 failed"
}

# ---- env-rm_simple / env-rm_simple-refh ----
for v in _ours _ref; do
    name=env-rm_simple; [ $v = _ref ] && name=env-rm_simple-refh
    selected "$name" || continue
    log=$B/setup-$name.log
    ours run_env "$log" "$MK/rm_simple$v" "$MK/client_env$v"; rc=$?
    why=$(check_env "$log" $rc)
    if [ -z "$why" ]; then pass "$name ($(grep '^client_env: .* passed' "$log"))"; else fail "$name" "$why" "$log"; fi
done

# ---- env-rm_simple-modes ----
if selected env-rm_simple-modes; then
    log=$B/setup-env-rm_simple-modes.log
    : >"$log"; why=""
    for mode in "-m imm" "-m defer" "-m direct -s"; do
        # shellcheck disable=SC2086
        ours run_env "$log.one" "$MK/rm_simple_ours" "$MK/client_env_ours" $mode; rc=$?
        { echo "== rm_simple $mode"; cat "$log.one"; } >>"$log"
        w=$(check_env "$log.one" $rc)
        [ -z "$w" ] || why="$why${why:+; }$mode: $w"
    done
    rm -f "$log.one"
    if [ -z "$why" ]; then pass env-rm_simple-modes; else fail env-rm_simple-modes "$why" "$log"; fi
fi

# ---- env-pnet-env ----
if selected env-pnet-env; then
    log=$B/setup-env-pnet-env.log
    PMIX_MCA_pnet=env ours run_env "$log" "$MK/rm_simple_ours" "$MK/client_env_ours"; rc=$?
    why=$(check_env "$log" $rc)
    if [ -z "$why" ]; then pass "env-pnet-env ($(grep '^client_env: .* passed' "$log"))"; else fail env-pnet-env "$why" "$log"; fi
fi

# ---- env-openpmix-library ----
if selected env-openpmix-library; then
    log=$B/setup-env-openpmix-library.log
    run_env "$log" "$MK/rm_simple_ref" "$MK/client_env_ref"; rc=$?
    why=$(check_env "$log" $rc)
    if [ -z "$why" ] && grep -q 'OpenPMIx' "$log"; then
        pass "env-openpmix-library ($(grep '^client_env: .* passed' "$log"); $(grep -c 'NOT PROVIDED' "$log") rpmix-only results not provided)"
    elif [ -z "$why" ]; then
        fail env-openpmix-library "did not run on OpenPMIx's library" "$log"
    else
        fail env-openpmix-library "$why" "$log"
    fi
fi

# ---- rm_simple-regression ----
if selected rm_simple-regression; then
    log=$B/setup-rm_simple-regression.log
    : >"$log"; why=""
    for mode in "-m direct" "-m imm" "-m defer" "-m direct -s"; do
        # shellcheck disable=SC2086
        ours timeout $T "$MK/rm_simple_ours" $mode -n 4 "$MK/client_basic_ours" 4 >>"$log" 2>&1; rc=$?
        [ $rc = 0 ] || why="$why${why:+; }$mode: exit $rc"
    done
    if [ -z "$why" ]; then pass rm_simple-regression; else fail rm_simple-regression "$why" "$log"; fi
fi

# ---- pnet-test-log ----
if selected pnet-test-log; then
    log=$B/setup-pnet-test-log.log
    plog=$SCRATCH/pnet-test.log
    : >"$plog"
    PMIX_MCA_pnet=transport,test RPMIX_PNET_TEST_LOG=$plog ours run_env "$log" "$MK/rm_simple_ours" "$MK/client_env_ours"; rc=$?
    why=$(check_env "$log" $rc)
    lwhy=$(awk -v n=3 '
        function bad(m) { errs = errs (errs ? "; " : "") m }
        $1 == "setup_application" && NF == 3 { sa++; ns = $2; ninfo = $3; sa_at = NR; next }
        $1 == "setup_local" && NF == 2       { sl++; sl_ns = $2; sl_at = NR; next }
        $1 == "child_env" && NF == 2         { ce[$2]++; nce++; if (!ce_first) ce_first = NR; next }
        $1 == "child_finalized" && NF == 2   { cf[$2]++; ncf++; cf_last = NR; next }
        $1 == "app_finalized" && NF == 2     { af++; af_ns = $2; af_at = NR; next }
        { bad("unexpected line " NR ": " $0) }
        END {
            if (sa != 1) bad(sa + 0 " setup_application lines");
            if (ns !~ /^rm\./) bad("namespace \"" ns "\"");
            if (ninfo != 3) bad("setup_application ninfo " ninfo ", rm_simple passes 3");
            if (sl != 1) bad(sl + 0 " setup_local lines");
            if (sl_ns != ns) bad("setup_local for \"" sl_ns "\"");
            if (sa_at > sl_at) bad("setup_local before setup_application");
            if (!ce_first || sa_at > ce_first || sl_at > ce_first) bad("setup_application/setup_local not before the first child_env");
            if (nce != n) bad(nce + 0 " child_env lines");
            if (ncf != n) bad(ncf + 0 " child_finalized lines");
            for (r = 0; r < n; r++) {
                if (ce[ns ":" r] != 1) bad("child_env " ns ":" r " seen " ce[ns ":" r] + 0 " times");
                if (cf[ns ":" r] != 1) bad("child_finalized " ns ":" r " seen " cf[ns ":" r] + 0 " times");
            }
            if (af != 1) bad(af + 0 " app_finalized lines");
            if (af_ns != ns) bad("app_finalized for \"" af_ns "\"");
            if (af_at < cf_last) bad("app_finalized before the last child_finalized");
            print errs
        }' "$plog")
    { echo "== $plog"; cat "$plog"; } >>"$log"
    if [ -z "$why$lwhy" ]; then pass "pnet-test-log ($(grep '^client_env: .* passed' "$log"); $(wc -l <"$plog") log lines)"
    else fail pnet-test-log "$why${why:+; }$lwhy" "$log"; fi
fi

# ---- pnet-nosuch ----
if selected pnet-nosuch; then
    log=$B/setup-pnet-nosuch.log
    PMIX_MCA_pnet=nosuch ours timeout $T "$MK/rm_simple_ours" -n 2 sh -c 'echo started' >"$log" 2>&1; rc=$?
    if [ $rc != 0 ] && grep -q 'PMIx_server_init: NOT-FOUND' "$log" && ! grep -q started "$log"; then pass pnet-nosuch
    else fail pnet-nosuch "exit $rc; expected a failed server_init with NOT-FOUND" "$log"; fi
fi

# ---- pmixrun-transport-key ----
if selected pmixrun-transport-key; then
    log=$B/setup-pmixrun-transport-key.log
    : >"$log"
    keys() { ours timeout $T "$PMIXRUN" -n 3 sh -c 'echo $OMPI_MCA_orte_precondition_transports' 2>>"$log"; }
    k1=$(keys); rc1=$?
    k2=$(keys); rc2=$?
    { echo "run 1 (exit $rc1):"; echo "$k1"; echo "run 2 (exit $rc2):"; echo "$k2"; } >>"$log"
    one_key() {  # <output>: the key when it is 3 identical non-empty lines
        local n u
        n=$(printf '%s\n' "$1" | grep -c .)
        u=$(printf '%s\n' "$1" | sort -u)
        [ "$n" = 3 ] && [ "$(printf '%s\n' "$u" | wc -l)" = 1 ] && [ -n "$u" ] && echo "$u"
    }
    u1=$(one_key "$k1"); u2=$(one_key "$k2")
    if [ $rc1 != 0 ] || [ $rc2 != 0 ]; then fail pmixrun-transport-key "exit $rc1/$rc2" "$log"
    elif [ -z "$u1" ] || [ -z "$u2" ]; then fail pmixrun-transport-key "not 3 identical non-empty keys per run" "$log"
    elif [ "$u1" = "$u2" ]; then fail pmixrun-transport-key "both runs got the key $u1" "$log"
    else pass "pmixrun-transport-key ($u1, then $u2)"; fi
fi

# ---- resources-vs-openpmix ----
# c-tests/resources_host.c on OpenPMIx and on rpmix: the same values, but
# one. OpenPMIx lets a registered resource replace the value a namespace
# registered for itself (ns1's site.res.b: 7, the resource, over its own 8);
# rpmix keeps the namespace's own value, the more specific one (docs/differences.md).
if selected resources-vs-openpmix; then
    log=$B/setup-resources-vs-openpmix.log why=""
    printf '%s\n' "ns1 site.res.a one" "ns1 site.res.b 8" "ns1 site.res.c three" \
        "ns2 site.res.a not found" "ns2 site.res.b 7" "ns2 site.res.c three" >"$log.want"
    ours timeout $T "$MK/resources_host_ref" >"$log.rpmix" 2>&1; rc=$?
    [ $rc = 0 ] || why="rpmix: exit $rc"
    diff -u "$log.want" "$log.rpmix" >"$log" || why="${why:+$why, }rpmix's values differ"
    timeout $T "$MK/resources_host_ref" >"$log.openpmix" 2>&1; rc=$?
    [ $rc = 0 ] || why="${why:+$why, }OpenPMIx: exit $rc"
    sed 's/^ns1 site.res.b 8$/ns1 site.res.b 7/' "$log.want" | diff -u - "$log.openpmix" >>"$log" || why="${why:+$why, }OpenPMIx's values are not the ones known"
    if [ -z "$why" ]; then pass resources-vs-openpmix; else fail resources-vs-openpmix "$why" "$log"; fi
fi

# ---- setup_badinput ----
if selected setup_badinput; then
    log=$B/setup-setup_badinput.log
    ours timeout $T "$MK/setup_badinput_ours" >"$log" 2>&1; rc=$?
    s=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$log" | tail -n 1)
    if [ $rc = 0 ] && [ -n "$s" ] && [ "${s#* }" = 0 ]; then pass "setup_badinput (${s% *} checks)"
    else fail setup_badinput "exit $rc; $(grep -c '^FAIL' "$log") failing checks" "$log"; grep '^FAIL' "$log" | sed 's/^/    /'; fi
fi

finish
