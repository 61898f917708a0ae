# Shared by the installers (tools/install-deps.sh, tools/install-consumers.sh).
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
