#!/bin/bash
# Install, on Debian 12, what tools/slurm-tests.sh needs, when missing:
# Slurm 22.05 (slurmctld, slurmd, slurm-client; slurmd pulls in
# slurm-wlm-basic-plugins, which holds mpi/pmix: mpi_pmix.so and
# mpi_pmix_v4.so, dlopen()ing /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so),
# munge, OpenPMIx's libpmix-dev (the reference library and headers) and
# Open MPI (mpicc, for the MPI cases).
#
# Idempotent: does nothing when everything is installed. The downloaded
# .deb files are kept in /var/cache/rpmix-slurm/archives (RPMIX_SLURM_CACHE),
# outside the work tree, and reused when the packages must be installed
# again (e.g. after `apt-get purge`); the cache is re-made when missing.
# The packages' maintainer scripts must not start munged/slurmd/slurmctld:
# when there is no /usr/sbin/policy-rc.d, a temporary one (exit 101) is
# installed for the duration of apt-get and removed afterwards; a daemon
# found running afterwards that was not running before is reported and
# stopped.
#
# Exit status 0 when `srun --mpi=list` names pmix afterwards. A failure names
# the command that failed (and shows apt's log when apt failed).
#
# Commands whose failure is normal (pgrep with no match, grep with no line, a
# missing file) are written so that set -e never sees them fail: `|| true`,
# or inside an if.
set -eE
trap 'echo "install-slurm: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
CACHE=${RPMIX_SLURM_CACHE:-/var/cache/rpmix-slurm}
PKGS="slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libpmix-dev libopenmpi-dev openmpi-bin procps util-linux"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $p"
done

check() {
    # mpi/pmix must be listed by srun (which needs some slurm.conf to start)
    local d out
    d=$(mktemp -d)
    printf 'ClusterName=check\nSlurmctldHost=localhost\nNodeName=localhost CPUs=1\nPartitionName=p Nodes=localhost\n' >"$d/slurm.conf"
    out=$(SLURM_CONF=$d/slurm.conf srun --mpi=list 2>&1 || true)
    rm -rf "$d"
    if ! echo "$out" | grep -q 'pmix'; then
        echo "install-slurm: srun --mpi=list does not name pmix:" >&2
        echo "$out" >&2
        return 1
    fi
    [ -e /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so ] || {
        echo "install-slurm: no /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so" >&2; return 1; }
    return 0
}

if [ -z "$missing" ]; then
    check
    exit $?
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-slurm: missing:$missing (run as root, or: apt-get install$missing)" >&2
    exit 1
fi
echo "install-slurm: installing$missing"
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$CACHE/archives/partial"

# (pgrep exits 1 when no such daemon runs, and is absent before procps is installed)
daemon_pids() { local n; for n in munged slurmd slurmctld slurmdbd; do pgrep -x "$n" 2>/dev/null || true; done; }
running_before=$(daemon_pids)
tmp_policy=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# temporary, tools/install-slurm.sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    tmp_policy=1
fi
cleanup() { if [ $tmp_policy = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi; }
trap cleanup EXIT

APT="apt-get -y -q -o Dir::Cache::Archives=$CACHE/archives -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
LOG=$CACHE/install.log
INSTALLER=install-slurm
: >"$LOG"
. "$(dirname "$0")/installlib.sh"
apt_install $APT install --no-install-recommends $missing

# The maintainer scripts must not have left a daemon running.
for pid in $(daemon_pids); do
    case " $(echo "$running_before" | tr '\n' ' ') " in *" $pid "*) continue ;; esac
    echo "install-slurm: note: $(cat /proc/$pid/comm 2>/dev/null) (pid $pid) was started by the packages; stopping it" >&2
    kill "$pid" 2>/dev/null || true
done
check
