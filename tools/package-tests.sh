#!/bin/bash
# The Debian packages (`make deb`: rpmix beside OpenPMIx, and the switch
# rpmix-system) on a fresh Debian 12 machine, as a site would use them:
# install, `module load rpmix` for one user, the whole system switched over,
# switched back, removed and purged -- and every process of every job proved
# to have loaded the library it should.
#
# The machine: the fresh-machine step's cached base root
# (${RPMIX_CACHE:-$HOME/.cache/rpmix}/debian12-base, made by
# tools/fresh-root-tests.sh when missing) under a cached layer holding the
# OpenPMIx consumers a site has, installed with the root's own apt
# (CONSUMER_PKGS below: OpenPMIx 4.2.2, Open MPI 4.1, Slurm 22.05 with munge,
# Environment Modules, python3-pmix, pkg-config; ~/.cache/rpmix/debian12-pkgtest,
# made again when missing or when its package list or the base changes);
# each run starts from a fresh overlay on both, whose writable layer is
# thrown away. Everything runs in a private mount namespace and a PID
# namespace started here; inside, the root is entered with chroot and a
# clean environment. The daemons (munged, slurmctld, slurmd) are started
# there with the one-node set-up of tools/slurm-tests.sh (tools/testlib.sh)
# and ended by PID; whatever is left dies with the PID namespace and is
# reported (nothing-left).
#
# Proofs: each job runs with c-tests/which_pmix.c preloaded (LD_PRELOAD,
# inherited by mpirun, srun, slurmstepd's tasks, the ranks): every process
# that loaded a libpmix.so.2 reports the file it loaded (proof_loaded,
# tools/testlib.sh); each Slurm task also reports the library mapped in its
# parent slurmstepd (/proc/$PPID/maps); Python reports its own maps.
#
# Cases (outside the root):
#   base-root        the fresh-machine step's base root is there (or made)
#   make-deb         `make deb`: two packages; rpmix's files all under
#                    /usr/lib/rpmix but for the links in /usr/bin and
#                    /usr/share/man, the modulefile and its docs; the switch
#                    has its maintainer scripts and triggers
#   consumers-root   the cached layer with the consumers is there (or made)
# Cases inside the fresh root, in this order (each needs the ones before it:
# RPMIX_CASE only selects which of them are reported):
#   before           OpenPMIx is intact (dpkg --verify), Slurm is up, a plain
#                    mpirun job runs on OpenPMIx; the root's listing and
#                    dpkg-divert --list are kept
#   install          apt-get install ./rpmix_*.deb: OpenPMIx's files
#                    untouched, no diversion, every name of libpmix.so.2
#                    still OpenPMIx's, pmixrun and pmixctl on PATH
#   module-pmixrun   module load rpmix; a PMIx client compiled with
#                    `pkg-config pmix` (rpmix's pmix.pc) under pmixrun -n 4:
#                    every rank on rpmix
#   module-mpirun    module load rpmix; mpirun -np 2 (Open MPI): mpirun and
#                    its ranks on rpmix
#   module-python    module load rpmix; python3 -c 'import pmix' on rpmix
#   module-srun      module load rpmix; srun --mpi=pmix -n 2: the tasks on
#                    rpmix, slurmstepd still on OpenPMIx (it opens the
#                    system's library by its path: the guide says so)
#   module-unload    module unload rpmix gives the environment back
#   switch-on        apt-get install ./rpmix-system_*.deb: OpenPMIx's library
#                    file diverted (dpkg-divert --list), every name of libpmix.so.2
#                    (the loader's, pmix2/lib's, Slurm's libpmix.so) resolves
#                    to rpmix, OpenPMIx's file kept intact beside it
#   system-srun      srun --mpi=pmix -n 2 with slurmd NOT restarted:
#                    slurmstepd and its tasks on rpmix (slurmd's own mapping
#                    is shown)
#   system-mpirun    a plain mpirun -np 2 (no module): all on rpmix
#   system-pmixrun   pmixrun (from /usr/bin, no module) -n 2: both ranks on rpmix
#   system-python    python3 -c 'import pmix' on rpmix
#   openpmix-reinstall  dpkg -i of OpenPMIx's own libpmix2 package (what an
#                    upgrade that keeps the file's name does): the switch
#                    stays on, OpenPMIx's new file under the diverted name,
#                    mpirun on rpmix
#   openpmix-upgrade  OpenPMIx's package replaced by one whose library file
#                    has another name (libpmix.so.2.6.99, as a new upstream
#                    version would): rpmix-system's trigger diverts it, every
#                    name is still rpmix, mpirun on rpmix; then the real
#                    package again: still rpmix, the renamed file's diversion
#                    and link gone
#   rpmix-upgrade    a new version of both packages (repacked as <v>-2) in
#                    one apt command with the switch on: the diversion stays,
#                    mpirun on rpmix
#   switch-off       apt-get remove rpmix-system: no diversion, OpenPMIx's
#                    files verify, plain mpirun, python and srun (srun,
#                    slurmstepd and tasks) on OpenPMIx
#   purge            apt-get purge rpmix rpmix-system: the root's listing and
#                    dpkg-divert --list are as before the install
# The same package under Lmod, in a root of its own (Debian's lmod and
# environment-modules conflict; OpenPMIx, Open MPI and lmod: its layer
# ~/.cache/rpmix/debian12-pkgtest-lmod, case lmod-root):
#   lmod-module-mpirun  apt-get install ./rpmix_*.deb; `module avail` lists
#                    rpmix; module load rpmix; mpirun -np 2: all on rpmix
#   lmod-module-unload  load and unload give the environment back (pmixrun
#                    on PATH while loaded)
#   lmod-purge       apt-get purge rpmix: the root's listing as before
# The switch installed before OpenPMIx, in a root with neither (OpenPMIx's
# packages only downloaded: ~/.cache/rpmix/debian12-pkgtest-bare, case
# bare-root):
#   late-openpmix    both packages installed: no diversion; then OpenPMIx:
#                    the trigger diverts its library, every name is rpmix;
#                    purge: no diversion, OpenPMIx's file verifies
# And outside again:
#   nothing-left     no process left in either root's namespaces, none
#                    naming a run's directory, nothing mounted under them,
#                    and they are removed
#
# Environment: RPMIX_CACHE (the cache directory), RPMIX_PKG_DEBS=<dir> (test
# the rpmix_*.deb and rpmix-system_*.deb there instead of building them with
# `make deb`), RPMIX_PKG_KEEP=1 (keep the runs' directories), RPMIX_CASE
# (tools/testlib.sh).
# Time: ~30 s with the caches warm (making the three layers takes a minute
# or a few, with the speed of the archive).
#
# Usage: tools/package-tests.sh [build-dir]    (run as root)
set -u
BUILD_SUBDIR=package
MODE=outer
case ${1:-} in
    --layer) MODE=layer; shift ;;
    --ns) MODE=ns; shift ;;
    --in-root) MODE=inroot; shift ;;
esac
# (the namespace modes take no build directory)
if [ $MODE = outer ] || [ $MODE = inroot ]; then . "$(dirname "$0")/testlib.sh" "$@"; fi

# OpenPMIx's packages kept in the layer (/var/cache/rpmix-pkgtest), to install
# again over the switch
KEPT_DEBS="libpmix2 libpmix-dev"
# the Lmod root (Debian's lmod and environment-modules conflict): the same
# OpenPMIx and Open MPI, Lmod
LMOD_PKGS="libpmix2 openmpi-bin libopenmpi-dev lmod pkg-config"
CONSUMER_PKGS="libpmix2 libpmix-dev openmpi-bin libopenmpi-dev slurmd slurmctld slurm-client munge environment-modules python3-pmix pkg-config"
PREFIX=/usr/lib/rpmix
RLIB=$PREFIX/lib/libpmix.so.2
TRIPLET=x86_64-linux-gnu
# OpenPMIx's library: the names a consumer may use
SYS_LIBS="/usr/lib/$TRIPLET/libpmix.so.2 /usr/lib/$TRIPLET/pmix2/lib/libpmix.so.2 /usr/lib/$TRIPLET/pmix2/lib/libpmix.so"
# root_mounts <root> <lowerdirs> <upper> <work>: the overlay and the
# kernel's file systems of a root, as the fresh-machine step mounts them
root_mounts() {
    local r=$1
    mount -t overlay overlay -o "lowerdir=$2,upperdir=$3,workdir=$4" "$r" || return 1
    mount -t proc proc "$r/proc" || return 1
    mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" || return 1
    mount -t sysfs sysfs "$r/sys" 2>/dev/null || mount --rbind /sys "$r/sys" || return 1
    mount -t tmpfs tmpfs "$r/tmp" || return 1
    # the machine's network settings (its trust store: the layer's installs)
    cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
    cp /etc/hosts "$r/etc/hosts" 2>/dev/null
    return 0
}
in_root() {  # in_root <root> <command...>: as root, a clean environment
    local r=$1; shift
    chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
# ns_procs <proc>: the processes of this PID namespace (<proc>: its proc
# mounted in the root) but its first one (this script) and this subshell
ns_procs() {
    local p
    for p in "$1"/[0-9]*; do
        p=${p##*/}
        [ "$p" = 1 ] || [ "$p" = "$BASHPID" ] && continue
        echo "$p $(tr '\0' ' ' <"$1/$p/cmdline" 2>/dev/null)"
    done
}

# ======================================================================
# --layer <run> <base> <layer> <packages> <kept> [<later>]: <packages>
# installed with the root's apt into the layer, the .debs of <kept>
# downloaded into its /var/cache/rpmix-pkgtest, those of <later> and of
# what they need but the layer lacks into /var/cache/rpmix-pkgtest/later (a
# private mount and PID namespace, started by the outer part)
# ======================================================================
if [ $MODE = layer ]; then
    run=$1 base=$2 layer=$3 pkgs=$4 kept=$5 later=${6:-}
    r=$run/root
    root_mounts "$r" "$base" "$layer" "$run/ovwork" || exit 1
    if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
        cp /usr/local/share/ca-certificates/*.crt "$r/usr/local/share/ca-certificates/" &&
        in_root "$r" update-ca-certificates || exit 1
    fi
    # the packages' maintainer scripts must not start daemons
    printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d" && chmod 755 "$r/usr/sbin/policy-rc.d"
    in_root "$r" apt-get update -q || exit 1
    if [ -n "$pkgs" ]; then
        in_root "$r" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pkgs || exit 1
    fi
    if [ -n "$later" ]; then
        in_root "$r" apt-get clean &&
        in_root "$r" apt-get install -y -q --no-install-recommends --download-only $later &&
        mkdir -p "$r/var/cache/rpmix-pkgtest/later" &&
        mv "$r"/var/cache/apt/archives/*.deb "$r/var/cache/rpmix-pkgtest/later/" || exit 1
    fi
    # OpenPMIx's own packages, to install again over the switch (openpmix-*)
    if [ -n "$kept" ]; then
        mkdir -p "$r/var/cache/rpmix-pkgtest"
        in_root "$r" sh -c "cd /var/cache/rpmix-pkgtest && apt-get download -q $kept" || exit 1
    fi
    in_root "$r" apt-get clean
    rm -f "$r/usr/sbin/policy-rc.d"
    # a daemon a package started anyway is a fault of the layer
    left=$(ns_procs "$r/proc")
    if [ -n "$left" ]; then echo "processes left by the installs: $left"; exit 1; fi
    exit 0
fi

# ======================================================================
# --ns <run> <base> <layer> <flavour>: mounts the fresh root and runs the
# in-root part of <flavour> (main, lmod) in it (a private mount and PID
# namespace, started by the outer part)
# ======================================================================
if [ $MODE = ns ]; then
    run=$1 base=$2 layer=$3 flavour=$4
    r=$run/root
    root_mounts "$r" "$layer:$base" "$run/upper" "$run/ovwork" || exit 1
    mkdir -p "$r/tmp/t" && mount --bind "$run/t" "$r/tmp/t" || exit 1
    in_root "$r" env PKG_FLAVOUR="$flavour" ${RPMIX_CASE:+RPMIX_CASE="$RPMIX_CASE"} /bin/bash /tmp/t/tools/package-tests.sh --in-root /tmp/t/build \
        >"$run/t/in-root.out" 2>&1 </dev/null
    echo $? >"$run/t/in-root.status"
    ns_procs "$r/proc" >"$run/leftover"
    exit 0
fi

# ======================================================================
# --in-root: the cases, inside the fresh root (chroot), as root
# ======================================================================
if [ $MODE = inroot ]; then
    T=60
    TD=/tmp/t
    L=$B/logs
    mkdir -p "$L" "$TD/home" "$TD/proof"
    export HOME=$TD/home PYTHONDONTWRITEBYTECODE=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_mpi_yield_when_idle=1
    OPX=$(readlink -f "/usr/lib/$TRIPLET/libpmix.so.2")
    WHICH=$TD/libwhich_pmix.so
    DAEMONS=""
    stop_daemons() {
        # (unquoted: one pid a word)
        slurm_stop_daemons 50 $DAEMONS
        wait 2>/dev/null
        DAEMONS=""
    }
    trap stop_daemons EXIT
    # report <case>: pass or fail on $why
    report() {
        if ! selected "$1"; then return 0; fi
        if [ -z "$why" ]; then pass "$1"; else fail "$1" "$why" "$L/$1.log"; fi
    }
    # $WM <command...>: the command from a shell that did `module load rpmix`
    # (the module system as a login shell sets it up: /etc/profile.d)
    WM=$TD/with-module
    MODINIT=/etc/profile.d/modules.sh
    [ "${PKG_FLAVOUR:-}" = lmod ] && MODINIT=/etc/profile.d/lmod.sh
    printf '#!/bin/bash\n. %s || exit 1\nmodule load rpmix || exit 1\nexec "$@"\n' "$MODINIT" >"$WM"
    chmod 755 "$WM"
    # job <case> <what> <command...>: the command, which_pmix preloaded, its
    # reports in $TD/proof/<case>.<what>; sets RC; output in the case's log
    job() {
        local c=$1 w=$2; shift 2
        PROOF=$TD/proof/$c.$w
        : >"$PROOF"
        echo "== $w: $*" >>"$L/$c.log"
        run_timed "$L/$c.$w.out" env LD_PRELOAD="$WHICH" WHICH_PMIX_OUT="$PROOF" "$@"
        cat "$L/$c.$w.out" >>"$L/$c.log"
        { echo "-- which_pmix:"; cat "$PROOF"; } >>"$L/$c.log"
    }
    # the MPI hello: 2 ranks, each its greeting line
    # check_hello <n> <want library path> [<processes on it, default n; -: no proof>]
    check_hello() {
        [ $RC = 0 ] || add "exit $RC"
        local g; g=$(grep -c '^hello [0-9]/'"$1"' pmix=' "$L/$c.$w.out")
        [ "$g" = "$1" ] || add "$g of $1 hello lines"
        [ "${3:-}" = - ] || proof_loaded "$PROOF" "$2" "${3:-$1}"
    }
    mpirun_job() {  # mpirun_job <case> <what> [module]: plain or under the module
        c=$1 w=$2
        if [ "${3:-}" = module ]; then job "$c" "$w" "$WM" mpirun -np 2 "$TD/mpi_hello"
        else job "$c" "$w" mpirun -np 2 "$TD/mpi_hello"; fi
    }
    # srun_job <case> <what> [module]: 2 tasks, each also reporting its
    # slurmstepd's libpmix (from /proc/$PPID/maps) to $STEPD; the tasks'
    # which_pmix reports go to $TASKS, srun's own (its mpi/pmix plugin
    # loads the library too) to $PROOF
    srun_job() {
        c=$1 w=$2
        STEPD=$TD/proof/$c.$w.stepd; : >"$STEPD"
        TASKS=$TD/proof/$c.$w.tasks; : >"$TASKS"
        local cmd=(srun --mpi=pmix -N 1 -n 2 -t 2 sh -c 'awk '\''$6 ~ /libpmix/ {print $6; exit}'\'' /proc/$PPID/maps >>"$0"; WHICH_PMIX_OUT=$1 exec "$2"' "$STEPD" "$TASKS" "$TD/mpi_hello")
        if [ "${3:-}" = module ]; then job "$c" "$w" "$WM" "${cmd[@]}"; else job "$c" "$w" "${cmd[@]}"; fi
        { echo "-- the tasks:"; cat "$TASKS"; echo "-- slurmstepd's libpmix:"; cat "$STEPD"; } >>"$L/$c.log"
    }
    # check_srun <tasks' library> <slurmstepd's and srun's library>
    check_srun() {
        check_hello 2 "$1" -
        proof_loaded "$TASKS" "$1" 2
        check_stepd "$2"
        proof_loaded "$PROOF" "$2" 1
    }
    check_stepd() {  # check_stepd <want library path>
        local n=0 other="" p
        while read -r p; do
            if [ "$(readlink -f "$p")" = "$1" ]; then n=$((n + 1)); else other="$other ${p:-none}"; fi
        done <"$STEPD"
        [ -z "$other" ] || add "slurmstepd on another library:$other"
        [ "$n" = 2 ] || add "$n of 2 tasks saw slurmstepd on $1"
    }
    python_libs() {  # python_libs [<wrapper>]: the libpmix files mapped by python3 after `import pmix`
        "$@" python3 -W ignore -c 'import pmix
for l in open("/proc/self/maps"):
    f = l.split()
    if len(f) > 5 and "libpmix" in f[5]: print(f[5])' | sort -u
    }
    # the root's listing: type, mode, path, link target; not the kernel's
    # file systems, /tmp (the test's), the logs and apt's download cache
    listing() {
        find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run -o -path /var/log \
            -o -path /var/cache/apt \) -prune -o -type l -printf '%y %m %p -> %l\n' -o -printf '%y %m %p\n' | sort
    }
    verify_openpmix() {  # dpkg --verify of OpenPMIx's packages: no file changed
        local v; v=$(dpkg --verify libpmix2 libpmix-dev 2>&1)
        [ -z "$v" ] || add "dpkg --verify of OpenPMIx: $v"
    }

    # ---- the switch before OpenPMIx (the bare root) ----
    if [ "${PKG_FLAVOUR:-}" = bare ]; then
        c=late-openpmix; why=""; : >"$L/$c.log"
        dpkg-divert --list | sort >"$TD/diversions.before"
        apt-get install -y -q "$TD"/debs/rpmix_*.deb "$TD"/debs/rpmix-system_*.deb >>"$L/$c.log" 2>&1 ||
            add "apt-get install of both packages failed"
        dpkg-divert --list | sort | diff "$TD/diversions.before" - >>"$L/$c.log" || add "a diversion without OpenPMIx"
        # OpenPMIx comes later (with what it needs): the trigger switches it
        dpkg -i /var/cache/rpmix-pkgtest/later/*.deb >>"$L/$c.log" 2>&1 || add "dpkg -i of OpenPMIx failed"
        grep -q "by rpmix-system\$" <(dpkg-divert --list) || add "the trigger diverted nothing"
        for f in /usr/lib/$TRIPLET/libpmix.so.2 /usr/lib/$TRIPLET/pmix2/lib/libpmix.so.2; do
            [ "$(readlink -f "$f")" = "$RLIB" ] || add "$f is not rpmix"
        done
        dpkg-divert --list '*libpmix*' >>"$L/$c.log"
        apt-get purge -y -q rpmix-system rpmix >>"$L/$c.log" 2>&1 || add "apt-get purge failed"
        dpkg-divert --list | sort | diff "$TD/diversions.before" - >>"$L/$c.log" || add "the diversions are not as before"
        [ "$(readlink -f "/usr/lib/$TRIPLET/libpmix.so.2")" = "/usr/lib/$TRIPLET/pmix2/lib/libpmix.so.2.6.2" ] || add "the loader's libpmix.so.2 is not OpenPMIx's again"
        v=$(dpkg --verify libpmix2 2>&1); [ -z "$v" ] || add "dpkg --verify libpmix2: $v"
        report "$c"
        echo "$passed passed, $failed failed"
        exit 0
    fi

    # ---- Lmod: the package, module load rpmix, purge (the Lmod root) ----
    if [ "${PKG_FLAVOUR:-}" = lmod ]; then
        c=lmod-module-mpirun; why=""; : >"$L/$c.log"
        {
            cc -shared -fPIC -Wall -o "$WHICH" "$TD/c-tests/which_pmix.c" -ldl &&
            mpicc -O1 -I"$TD/c-tests/mpi" -o "$TD/mpi_hello" "$TD/c-tests/mpi/hello.c" -ldl
        } >>"$L/$c.log" 2>&1 || add "the test programs did not build"
        listing >"$TD/listing.before"
        apt-get install -y -q "$TD"/debs/rpmix_*.deb >>"$L/$c.log" 2>&1 || add "apt-get install ./rpmix_*.deb failed"
        # Lmod's own view: module avail lists it
        (set +u; . $MODINIT; module -t avail rpmix) >>"$L/$c.log" 2>&1
        grep -q '^rpmix/' "$L/$c.log" || add "module avail does not list rpmix"
        mpirun_job "$c" mpirun module; check_hello 2 "$RLIB" 3
        report "$c"
        c=lmod-module-unload; why=""
        # (Lmod leaves MANPATH=<its own>:: where it was <its own>: -- one
        # empty element or two, both mean "and the default path" to man)
        (
            set +u; . $MODINIT
            before=$(env | grep -E '^(LD_LIBRARY_PATH|PATH|PKG_CONFIG_PATH|MANPATH)=' | sed 's/::*$/:/' | sort)
            module load rpmix && [ "$(command -v pmixrun)" = "$PREFIX/bin/pmixrun" ] && module unload rpmix
            after=$(env | grep -E '^(LD_LIBRARY_PATH|PATH|PKG_CONFIG_PATH|MANPATH)=' | sed 's/::*$/:/' | sort)
            echo "before: $before"; echo "after: $after"
            [ "$before" = "$after" ]
        ) >"$L/$c.log" 2>&1 || add "module load/unload under Lmod"
        report "$c"
        c=lmod-purge; why=""; : >"$L/$c.log"
        apt-get purge -y -q rpmix >>"$L/$c.log" 2>&1 || add "apt-get purge rpmix failed"
        listing >"$TD/listing.after"
        diff "$TD/listing.before" "$TD/listing.after" >>"$L/$c.log" || add "the root's listing differs"
        report "$c"
        echo "$passed passed, $failed failed"
        exit 0
    fi

    # ---- before ----
    c=before; why=""; : >"$L/$c.log"
    {
        cc -shared -fPIC -Wall -o "$WHICH" "$TD/c-tests/which_pmix.c" -ldl &&
        mpicc -O1 -I"$TD/c-tests/mpi" -o "$TD/mpi_hello" "$TD/c-tests/mpi/hello.c" -ldl
    } >>"$L/$c.log" 2>&1 || add "the test programs did not build"
    for f in $SYS_LIBS; do
        [ "$(readlink -f "$f")" = "$OPX" ] || add "$f is not OpenPMIx's $OPX"
    done
    verify_openpmix
    OPX_MD5=$(md5sum <"$OPX")
    listing >"$TD/listing.before"
    dpkg-divert --list | sort >"$TD/diversions.before"
    # Slurm, one node (tools/testlib.sh), with OpenPMIx
    SD=$TD/slurm
    slurm_munged "$SD"; st=$?
    DAEMONS="$DAEMONS $MUNGED_PID"
    if [ $st != 0 ]; then add "$SLURM_WHY"; cat "$SLURM_LOG" >>"$L/$c.log"
    elif ! slurm_write_conf "$SD"; then add "$SLURM_WHY"
    else
        slurmctld -D -i -f "$CONF" >>"$SD/log/slurmctld.out" 2>&1 &
        DAEMONS="$DAEMONS $!"
        slurmd -D -f "$CONF" >>"$SD/log/slurmd.out" 2>&1 &
        SLURMD_PID=$!
        DAEMONS="$DAEMONS $SLURMD_PID"
        slurm_wait_idle 30 "$SD/log/slurmd.out" || { add "the Slurm node did not become idle"; tail -n 20 "$SD"/log/* >>"$L/$c.log"; }
    fi
    mpirun_job before mpirun; check_hello 2 "$OPX"
    report before

    # ---- install: rpmix beside OpenPMIx ----
    c=install; why=""; : >"$L/$c.log"
    # (as the guide says: apt installs a local package with its dependencies)
    apt-get install -y -q "$TD"/debs/rpmix_*.deb >>"$L/$c.log" 2>&1 || add "apt-get install ./rpmix_*.deb failed"
    [ -f "$RLIB" ] || add "no $RLIB"
    for f in $SYS_LIBS; do
        [ "$(readlink -f "$f")" = "$OPX" ] || add "$f is not OpenPMIx's any more"
    done
    verify_openpmix
    dpkg-divert --list | sort | diff "$TD/diversions.before" - >>"$L/$c.log" || add "the diversions changed"
    [ "$(readlink -f "$(command -v pmixrun)")" = "$PREFIX/bin/pmixrun" ] || add "pmixrun is not on PATH"
    pmixctl --help >>"$L/$c.log" 2>&1 || add "pmixctl --help failed"
    # (the listing sees the package: the check of the purge can fail)
    listing | grep -qx "f 755 $RLIB" || add "the root's listing does not show $RLIB"
    report install

    # ---- module load rpmix: one user's jobs ----
    c=module-pmixrun; why=""; : >"$L/$c.log"
    "$WM" sh -c 'cc -std=c99 -o "$1/demo_job" "$1/c-tests/demo_job.c" $(pkg-config --cflags --libs pmix); echo "cflags/libs: $(pkg-config --cflags --libs pmix)"; command -v pmixrun' sh "$TD" \
        >>"$L/$c.log" 2>&1 || add "the client did not build with pkg-config pmix"
    grep -qx "$PREFIX/bin/pmixrun" "$L/$c.log" || add "pmixrun on PATH is not $PREFIX/bin/pmixrun"
    grep -q "^cflags/libs: -I$PREFIX/include -L$PREFIX/lib -lpmix" "$L/$c.log" || add "pkg-config does not give rpmix's flags"
    w=pmixrun; job "$c" "$w" "$WM" pmixrun -n 4 "$TD/demo_job"
    [ $RC = 0 ] || add "exit $RC"
    g=$(grep -c '^rank [0-3] of 4 .*says "greetings from rank' "$L/$c.$w.out")
    [ "$g" = 4 ] || add "$g of 4 ranks greeted"
    proof_loaded "$PROOF" "$RLIB" 4
    report "$c"

    c=module-mpirun; why=""; : >"$L/$c.log"
    # mpirun itself (its PMIx server) and the 2 ranks
    mpirun_job "$c" mpirun module; check_hello 2 "$RLIB" 3
    report "$c"

    c=module-python; why=""
    got=$(python_libs "$WM" 2>&1 | tee "$L/$c.log")
    [ "$got" = "$RLIB" ] || add "python3's libpmix: ${got:-none}"
    report "$c"

    c=module-srun; why=""; : >"$L/$c.log"
    srun_job "$c" srun module; check_srun "$RLIB" "$OPX"
    report "$c"

    c=module-unload; why=""
    (
        set +u; . $MODINIT
        before=$(env | grep -E '^(LD_LIBRARY_PATH|PATH|PKG_CONFIG_PATH|MANPATH)=' | sort)
        module load rpmix && module unload rpmix
        after=$(env | grep -E '^(LD_LIBRARY_PATH|PATH|PKG_CONFIG_PATH|MANPATH)=' | sort)
        echo "before: $before"; echo "after: $after"
        [ "$before" = "$after" ]
    ) >"$L/$c.log" 2>&1 || add "the environment differs after module unload"
    report "$c"

    # ---- the system switch ----
    c=switch-on; why=""; : >"$L/$c.log"
    apt-get install -y -q "$TD"/debs/rpmix-system_*.deb >>"$L/$c.log" 2>&1 || add "apt-get install ./rpmix-system_*.deb failed"
    dpkg-divert --list | sort >"$TD/diversions.on"
    diff "$TD/diversions.before" "$TD/diversions.on" >>"$L/$c.log"
    grep -qx "diversion of $OPX to $OPX.openpmix by rpmix-system" "$TD/diversions.on" || add "no diversion of $OPX"
    for f in $SYS_LIBS "$OPX"; do
        [ "$(readlink -f "$f")" = "$RLIB" ] || add "$f is not rpmix"
    done
    [ "$(md5sum <"$OPX.openpmix" 2>/dev/null)" = "$OPX_MD5" ] || add "OpenPMIx's file is not kept intact as $OPX.openpmix"
    { echo "-- dpkg --verify libpmix2:"; dpkg --verify libpmix2; echo "-- ldd of Open MPI's PMIx component:"
      ldd /usr/lib/$TRIPLET/openmpi/lib/openmpi3/mca_pmix_ext3x.so | grep pmix; } >>"$L/$c.log" 2>&1
    report "$c"

    c=system-srun; why=""; : >"$L/$c.log"
    srun_job "$c" srun; check_srun "$RLIB" "$RLIB"
    echo "slurmd (not restarted) maps: $(awk '$6 ~ /libpmix/ {print $6}' "/proc/$SLURMD_PID/maps" 2>/dev/null | sort -u | tr '\n' ' ')" >>"$L/$c.log"
    grep '^slurmd (not restarted)' "$L/$c.log"
    report "$c"

    c=system-mpirun; why=""; : >"$L/$c.log"
    mpirun_job "$c" mpirun; check_hello 2 "$RLIB" 3
    report "$c"

    c=system-pmixrun; why=""; : >"$L/$c.log"
    # (pmixrun from /usr/bin, no module: the client finds libpmix.so.2 through the loader)
    w=pmixrun; job "$c" "$w" pmixrun -n 2 "$TD/demo_job"
    [ $RC = 0 ] || add "exit $RC"
    g=$(grep -c '^rank [01] of 2 .*says "greetings from rank' "$L/$c.$w.out")
    [ "$g" = 2 ] || add "$g of 2 ranks greeted"
    proof_loaded "$PROOF" "$RLIB" 2
    report "$c"

    c=system-python; why=""
    got=$(python_libs 2>&1 | tee "$L/$c.log")
    [ "$got" = "$RLIB" ] || add "python3's libpmix: ${got:-none}"
    report "$c"

    c=openpmix-reinstall; why=""; : >"$L/$c.log"
    dpkg -i /var/cache/rpmix-pkgtest/libpmix2_*.deb >>"$L/$c.log" 2>&1 || add "dpkg -i libpmix2 failed"
    dpkg-divert --list | sort | diff "$TD/diversions.on" - >>"$L/$c.log" || add "the diversions changed"
    for f in $SYS_LIBS "$OPX"; do
        [ "$(readlink -f "$f")" = "$RLIB" ] || add "$f is not rpmix after the reinstall"
    done
    [ "$(md5sum <"$OPX.openpmix" 2>/dev/null)" = "$OPX_MD5" ] || add "OpenPMIx's reinstalled file is not $OPX.openpmix"
    mpirun_job "$c" mpirun; check_hello 2 "$RLIB"
    report "$c"

    # OpenPMIx's packages replaced by ones whose library file has another
    # name (as an upgrade to a new library version does): the same packages
    # and version (their dependents stay satisfied), the file and its links
    # renamed 2.6.2 -> 2.6.99 (libpmix2's, and libpmix-dev's libpmix.so);
    # the switch's trigger diverts the new file
    c=openpmix-upgrade; why=""; : >"$L/$c.log"
    NEW=${OPX%.so.2.*}.so.2.6.99
    {
        rm -rf "$TD/fakedev" && dpkg-deb -R /var/cache/rpmix-pkgtest/libpmix-dev_*.deb "$TD/fakedev" &&
        ln -sfn "${NEW##*/}" "$TD/fakedev/usr/lib/$TRIPLET/pmix2/lib/libpmix.so" &&
        dpkg-deb -b "$TD/fakedev" "$TD/libpmix-dev-renamed.deb" &&
        rm -rf "$TD/fake" && dpkg-deb -R /var/cache/rpmix-pkgtest/libpmix2_*.deb "$TD/fake" &&
        d=$TD/fake/usr/lib/$TRIPLET && mv "$TD/fake$OPX" "$TD/fake$NEW" &&
        rm "$d/libpmix.so.2.${OPX##*.so.2.}" "$d/libpmix.so.2" "$d/pmix2/lib/libpmix.so.2" &&
        ln -s "pmix2/lib/${NEW##*/}" "$d/${NEW##*/}" && ln -s "pmix2/lib/${NEW##*/}" "$d/libpmix.so.2" &&
        ln -s "${NEW##*/}" "$d/pmix2/lib/libpmix.so.2" &&
        (cd "$TD/fake" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | xargs md5sum >DEBIAN/md5sums) &&
        dpkg-deb -b "$TD/fake" "$TD/libpmix2-renamed.deb" && dpkg -i "$TD/libpmix2-renamed.deb" "$TD/libpmix-dev-renamed.deb"
    } >>"$L/$c.log" 2>&1 || add "the renamed libpmix2 did not install"
    grep -qx "diversion of $NEW to $NEW.openpmix by rpmix-system" <(dpkg-divert --list) || add "the trigger did not divert $NEW"
    for f in $SYS_LIBS "$NEW"; do
        [ "$(readlink -f "$f")" = "$RLIB" ] || add "$f is not rpmix after the upgrade"
    done
    [ "$(md5sum <"$NEW.openpmix" 2>/dev/null)" = "$OPX_MD5" ] || add "OpenPMIx's new file is not $NEW.openpmix"
    mpirun_job "$c" mpirun; check_hello 2 "$RLIB" 3
    # and back to the real package (the same version again)
    dpkg -i /var/cache/rpmix-pkgtest/libpmix2_*.deb /var/cache/rpmix-pkgtest/libpmix-dev_*.deb >>"$L/$c.log" 2>&1 || add "dpkg -i libpmix2 libpmix-dev (back) failed"
    for f in $SYS_LIBS "$OPX"; do
        [ "$(readlink -f "$f")" = "$RLIB" ] || add "$f is not rpmix after going back"
    done
    # the renamed file's diversion went with it (no package ships it)
    dpkg-divert --list | sort | diff "$TD/diversions.on" - >>"$L/$c.log" || add "the diversions are not those of the switch alone"
    [ -e "$NEW" ] || [ -L "$NEW" ] && add "$NEW is left"
    report "$c"

    # a new version of rpmix (the same files, version <v>-1 -> <v>-2), both
    # packages in one apt command, with the switch on
    c=rpmix-upgrade; why=""; : >"$L/$c.log"
    old=$(dpkg-query -W -f '${Version}' rpmix)
    new=${old%-*}-$(( ${old##*-} + 1 ))
    {
        rm -rf "$TD/up" && mkdir -p "$TD/up" &&
        for p in rpmix rpmix-system; do
            dpkg-deb -R "$TD"/debs/${p}_*.deb "$TD/up/$p" &&
            sed -i -e "s/^Version: .*/Version: $new/" -e "s/(= $old)/(= $new)/" "$TD/up/$p/DEBIAN/control" &&
            dpkg-deb --root-owner-group -b "$TD/up/$p" "$TD/up/${p}_${new}_all-test.deb" || exit 1
        done &&
        apt-get install -y -q "$TD/up/rpmix_${new}_all-test.deb" "$TD/up/rpmix-system_${new}_all-test.deb"
    } >>"$L/$c.log" 2>&1 || add "apt-get install of version $new failed"
    [ "$(dpkg-query -W -f '${Version}' rpmix)" = "$new" ] &&
        [ "$(dpkg-query -W -f '${Version}' rpmix-system)" = "$new" ] || add "not both at version $new"
    dpkg-divert --list | sort | diff "$TD/diversions.on" - >>"$L/$c.log" || add "the diversions changed"
    for f in $SYS_LIBS "$OPX"; do
        [ "$(readlink -f "$f")" = "$RLIB" ] || add "$f is not rpmix after the upgrade"
    done
    mpirun_job "$c" mpirun; check_hello 2 "$RLIB" 3
    report "$c"

    c=switch-off; why=""; : >"$L/$c.log"
    apt-get remove -y -q rpmix-system >>"$L/$c.log" 2>&1 || add "apt-get remove rpmix-system failed"
    dpkg-divert --list | sort | diff "$TD/diversions.before" - >>"$L/$c.log" || add "the diversions are not as before"
    for f in "$OPX" "$NEW"; do
        [ -e "$f.openpmix" ] && add "$f.openpmix is left"
    done
    [ -e "$NEW" ] || [ -L "$NEW" ] && add "$NEW is left"
    for f in $SYS_LIBS; do
        [ "$(readlink -f "$f")" = "$OPX" ] || add "$f is not OpenPMIx's again"
    done
    verify_openpmix
    mpirun_job "$c" mpirun; check_hello 2 "$OPX"
    got=$(python_libs 2>&1); echo "python3: $got" >>"$L/$c.log"
    [ "$got" = "$OPX" ] || add "python3's libpmix: ${got:-none}"
    srun_job "$c" srun; check_srun "$OPX" "$OPX"
    report "$c"

    c=purge; why=""; : >"$L/$c.log"
    stop_daemons
    apt-get purge -y -q rpmix rpmix-system >>"$L/$c.log" 2>&1 || add "apt-get purge rpmix rpmix-system failed"
    dpkg-query -W rpmix rpmix-system >>"$L/$c.log" 2>&1 && add "a package is still known to dpkg"
    dpkg-divert --list | sort | diff "$TD/diversions.before" - >>"$L/$c.log" || add "the diversions are not as before"
    listing >"$TD/listing.after"
    if ! diff "$TD/listing.before" "$TD/listing.after" >"$TD/listing.diff"; then
        add "the root's listing differs: $(grep -c '^[<>]' "$TD/listing.diff") lines"
        cat "$TD/listing.diff" >>"$L/$c.log"
    fi
    echo "listing: $(wc -l <"$TD/listing.before") entries before the install, $(wc -l <"$TD/listing.after") after the purge" | tee -a "$L/$c.log"
    verify_openpmix
    report "$c"
    # (the outer part reads these counts; it checks the case filter)
    echo "$passed passed, $failed failed"
    exit 0
fi

# ======================================================================
# Outside: the caches, the packages, the namespaces.
# ======================================================================
mkdir -p "$B" || { echo "cannot create $B"; echo "0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "package-tests: needs root (chroot, namespaces, dpkg in the root)"; echo "0 passed, 1 failed"; exit 1; }
CACHE=${RPMIX_CACHE:-$HOME/.cache/rpmix}
BASE=$CACHE/debian12-base
LAYER=$CACHE/debian12-pkgtest
LAYER_LMOD=$CACHE/debian12-pkgtest-lmod
LAYER_BARE=$CACHE/debian12-pkgtest-bare
IN_ROOT_CASES="late-openpmix lmod-module-mpirun lmod-module-unload lmod-purge before install module-pmixrun module-mpirun module-python module-srun module-unload switch-on system-srun system-mpirun system-pmixrun system-python openpmix-reinstall openpmix-upgrade rpmix-upgrade switch-off purge"
require_some_case base-root make-deb consumers-root lmod-root bare-root $IN_ROOT_CASES nothing-left
t_start=$(date +%s)

# ---- base-root: the fresh-machine step's (tools/fresh-root-tests.sh makes it) ----
base_ready() { [ -s "$BASE/.rpmix-complete" ] && [ -x "$BASE/usr/bin/gcc" ]; }
log=$B/base-root.log
if base_ready; then echo "cached: $BASE" >"$log"
else
    RPMIX_CACHE=$CACHE RPMIX_CASE='^base-root$' "$ROOT/tools/fresh-root-tests.sh" "$B/fresh-root" >"$log" 2>&1
fi
if base_ready; then selected base-root && pass base-root
else fail base-root "the fresh-machine step's base root could not be made" "$log"; finish; fi

# ---- make-deb (or the packages in RPMIX_PKG_DEBS) ----
log=$B/make-deb.log
why=""
if [ -n "${RPMIX_PKG_DEBS:-}" ]; then
    DEBS=$RPMIX_PKG_DEBS
    echo "the packages in $DEBS (RPMIX_PKG_DEBS)" >"$log"
else
    DEBS=$B/debs
    rm -rf "$DEBS"
    make -s -C "$ROOT" deb DEBDIR="$DEBS" >"$log" 2>&1 || add "make deb failed"
fi
RDEB=$(ls "$DEBS"/rpmix_*.deb 2>/dev/null | head -n1)
SDEB=$(ls "$DEBS"/rpmix-system_*.deb 2>/dev/null | head -n1)
if [ -z "$RDEB" ] || [ -z "$SDEB" ]; then add "not two packages in $DEBS"
else
    dpkg-deb -c "$RDEB" >>"$log"
    for f in "$PREFIX/lib/libpmix.so.2" "$PREFIX/lib/libpmix.so" "$PREFIX/lib/pkgconfig/pmix.pc" "$PREFIX/include/pmix.h" \
             "$PREFIX/bin/pmixrun" "$PREFIX/bin/pmixctl" /usr/bin/pmixrun /usr/bin/pmixctl \
             /usr/share/modules/modulefiles/rpmix/ /etc/lmod/modules/rpmix; do
        dpkg-deb -c "$RDEB" | awk '{print $6}' | grep -q "^\.$f" || add "rpmix lacks $f"
    done
    # nothing of OpenPMIx's names, nothing outside its own places
    stray=$(dpkg-deb -c "$RDEB" | awk '$1 !~ /^d/ {print substr($6, 2)}' |
        grep -vE "^($PREFIX/|/usr/bin/pmix(run|ctl)$|/usr/share/man/|/usr/share/modules/modulefiles/rpmix/|/etc/lmod/modules/rpmix$|/usr/share/doc/rpmix/)" || true)
    [ -z "$stray" ] && echo "every file under $PREFIX, or a link to one, the modulefile, the docs" >>"$log" || add "files outside rpmix's places: $stray"
    # every manual page under the prefix has its link in /usr/share/man
    for m in $(dpkg-deb -c "$RDEB" | awk '$1 !~ /^d/ {print substr($6, 2)}' | grep "^$PREFIX/share/man/man[^/]*/." || true); do
        dpkg-deb -c "$RDEB" | grep -q "^l.* \./usr/share/man/${m#"$PREFIX"/share/man/} -> $m\$" || add "no link to $m in /usr/share/man"
    done
    for s in postinst postrm triggers; do
        dpkg-deb -I "$SDEB" "$s" >/dev/null 2>&1 || add "rpmix-system has no $s"
    done
    dpkg-deb -I "$SDEB" control >>"$log"
fi
if [ -z "$why" ]; then selected make-deb && pass make-deb; else fail make-deb "$why" "$log"; finish; fi

# ---- consumers-root, lmod-root: the cached layers ----
# make_layer <case> <layer dir> <packages> <kept debs> [<later>]: the layer
# (tools/package-tests.sh --layer) is there,
# or is made (the marker holds the package lists and the base's marker
# time: other lists, or a base made again, make the layer again)
make_layer() {
    local c=$1 layer=$2 pkgs=$3 kept=$4 later=${5:-} id log=$B/$1.log lrun t0 st
    id="$pkgs|$kept|$later|$(stat -c %Y "$BASE/.rpmix-complete")"
    if [ "$(cat "$layer/.rpmix-pkgtest-complete" 2>/dev/null)" = "$id" ]; then
        echo "cached: $layer" >"$log"; selected "$c" && pass "$c"; return 0
    fi
    : >"$log"
    if grep -q " $layer" /proc/mounts; then fail "$c" "something is mounted under $layer" "$log"; return 1; fi
    rm -rf "$layer"
    lrun=$(mktemp -d /var/tmp/rpmix-pkglayer.XXXXXX)
    mkdir -p "$lrun/root" "$lrun/ovwork" "$layer"
    echo "installing $pkgs into $layer" >>"$log"
    t0=$(date +%s)
    timeout -k 5 900 unshare -m -p -f --kill-child --propagation private "$ROOT/tools/package-tests.sh" \
        --layer "$lrun" "$BASE" "$layer" "$pkgs" "$kept" "$later" >>"$log" 2>&1
    st=$?
    grep -q " $lrun" /proc/mounts || rm -rf "$lrun"
    if [ $st != 0 ]; then fail "$c" "the layer could not be made (exit $st)" "$log"; return 1; fi
    echo "$id" >"$layer/.rpmix-pkgtest-complete"
    echo "made in $(( $(date +%s) - t0 )) s" >>"$log"
    selected "$c" && pass "$c"
    return 0
}
make_layer consumers-root "$LAYER" "$CONSUMER_PKGS" "$KEPT_DEBS" || finish

# ---- the fresh roots: the in-root cases ----
# run_root <flavour> <layer>: a fresh root on <layer>, the in-root cases of
# <flavour> (main, lmod) in it; their lines and counts become ours; the
# run's directory is $RUN (nothing-left checks it)
RUNS=""
ns_pid=""
cleanup() {
    local run
    [ -n "$ns_pid" ] && kill -KILL "$ns_pid" 2>/dev/null
    for run in $RUNS; do
        if [ -z "${RPMIX_PKG_KEEP:-}" ] && ! grep -q " $run/" /proc/mounts; then rm -rf "$run"; fi
    done
}
trap cleanup EXIT
run_root() {
    local flavour=$1 layer=$2 t0 counts out=$B/$1
    RUN=$(mktemp -d /var/tmp/rpmix-pkg.XXXXXX)
    RUNS="$RUNS $RUN"
    mkdir -p "$RUN"/{upper,ovwork,root} "$RUN/t/tools" "$RUN/t/c-tests/mpi" "$RUN/t/debs" "$out"
    cp "$ROOT/tools/package-tests.sh" "$ROOT/tools/testlib.sh" "$RUN/t/tools/" &&
    cp "$ROOT/c-tests/which_pmix.c" "$ROOT/c-tests/demo_job.c" "$RUN/t/c-tests/" &&
    cp "$ROOT/c-tests/mpi/hello.c" "$ROOT/c-tests/mpi/pmixver.h" "$RUN/t/c-tests/mpi/" &&
    cp "$RDEB" "$SDEB" "$RUN/t/debs/" || { fail "$flavour-setup" "cannot fill $RUN/t"; return 1; }
    t0=$(date +%s)
    timeout -k 5 300 unshare -m -p -f --kill-child --propagation private "$ROOT/tools/package-tests.sh" \
        --ns "$RUN" "$BASE" "$layer" "$flavour" >"$out/namespace.log" 2>&1 &
    ns_pid=$!
    wait "$ns_pid"; NS_STATUS=$?
    ns_pid=""
    echo "(the $flavour root's cases: $(( $(date +%s) - t0 )) s, exit $NS_STATUS)"
    rm -rf "$out/logs"
    cp -r "$RUN/t/build/logs" "$out/logs" 2>/dev/null
    cp "$RUN/t/listing.before" "$RUN/t/listing.after" "$out/" 2>/dev/null
    if [ -f "$RUN/t/in-root.out" ]; then
        sed 's#/tmp/t/build/#'"$out"'/#g' "$RUN/t/in-root.out" | grep -v '^[0-9]* passed, [0-9]* failed$'
        counts=$(tail -n1 "$RUN/t/in-root.out")
        if [[ $counts =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
            passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
        else
            fail "$flavour-root" "the cases in the root did not finish (exit $NS_STATUS)" "$RUN/t/in-root.out"
        fi
    else
        fail "$flavour-root" "the cases in the root did not run (exit $NS_STATUS)" "$out/namespace.log"
    fi
}
# left_behind <run>: adds to why what the run left (processes, mounts)
left_behind() {
    local run=$1 left
    [ "$NS_STATUS" = 0 ] || add "the namespace's first process exited $NS_STATUS"
    if [ -s "$run/leftover" ]; then add "processes left in the root: $(cut -c1-80 "$run/leftover" | tr '\n' ';')"; fi
    [ -e "$run/leftover" ] || add "the namespace did not list its processes"
    left=$(pgrep -f -- "$run" || true)
    [ -z "$left" ] || { add "processes left: $left"; kill -KILL $left 2>/dev/null; }
    if grep -q " $run" /proc/mounts; then add "mounts left under $run"; fi
}
why=""
run_root main "$LAYER"
left_behind "$RUN"
# the same with Lmod (its own root: Debian's lmod and environment-modules conflict)
if make_layer lmod-root "$LAYER_LMOD" "$LMOD_PKGS" ""; then
    w0=$why; run_root lmod "$LAYER_LMOD"; why=$w0
    left_behind "$RUN"
fi
# the switch installed before OpenPMIx (a root with neither: OpenPMIx's
# packages only downloaded into it)
if make_layer bare-root "$LAYER_BARE" "" "" "libpmix2"; then
    w0=$why; run_root bare "$LAYER_BARE"; why=$w0
    left_behind "$RUN"
fi
# every case in the roots counts as selected here (finish's case filter)
for c in $IN_ROOT_CASES; do selected "$c" >/dev/null; done

cleanup; trap - EXIT
for r in $RUNS; do [ -n "${RPMIX_PKG_KEEP:-}" ] || [ ! -e "$r" ] || add "$r not removed"; done
if selected nothing-left; then
    if [ -z "$why" ]; then pass nothing-left; else fail nothing-left "$why" "$B/main/namespace.log"; fi
fi
echo "(package step: $(( $(date +%s) - t_start )) s)"
finish
