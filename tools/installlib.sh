# Shared by the installers (tools/install-deps.sh, install-slurm.sh,
# install-debian13.sh, install-consumers.sh).
# Source it after setting INSTALLER (the name its messages start with) and
# LOG (the file each command's output is appended to).

# run_logged <what> <command...>: the command, its output appended to $LOG;
# on failure, says what failed, shows the log's end and exits 1.
run_logged() {
    local what=$1; shift
    "$@" >>"$LOG" 2>&1 && return 0
    echo "$INSTALLER: $what failed (log: $LOG):" >&2
    tail -n 30 "$LOG" >&2
    exit 1
}

# apt_install <apt-get install command...>: the install, its output appended
# to $LOG; when it fails (a new machine's package lists may not be there
# yet), the lists are updated once and the install tried again, each through
# run_logged.
apt_install() {
    "$@" >>"$LOG" 2>&1 && return 0
    run_logged "apt-get update" apt-get update -q
    run_logged "$*" "$@"
}
