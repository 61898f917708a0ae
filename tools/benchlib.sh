# Shared by the bench scripts that keep one result line per run in a file
# (tools/bench-mixed.sh, tools/bench-opxclients.sh). Source it.

# An awk function, median(list): the median of a space-separated list of
# numbers. Put it before the awk program: awk "$BENCH_AWK_MEDIAN"'{...}'
BENCH_AWK_MEDIAN='
    function median(list,    v, k, i, j, t) {
        k = split(list, v, " ")
        for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
    }'

# run_retried <results file> <command...>: runs the command, which appends
# its result line to the file, and runs it once more if that line says it
# timed out (a stray slow run; a second timeout stays in the results).
run_retried() {
    local results=$1 try
    shift
    for try in 1 2; do
        "$@"
        tail -1 "$results" | grep -q ' fail timed out' || break
    done
}
