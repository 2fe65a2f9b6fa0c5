# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Helpers shared by the test scripts (source it).

# Open MPI 4.1.4's runtime loses show_help messages on their way to mpirun,
# logging "ORTE_ERROR_LOG: ... in file .../orte/util/show_help.c" instead.
# Measured here with stock components only (btl/tcp's own message for a bad
# btl_tcp_if_include): 6 of 16 runs.  Run the command again, up to 8 times
# in all, only while that happens; a message that never comes still fails.
# (4 were too few: at that rate one check in 50 lost all four, and CI has
# a dozen such checks.)
# Now and then a rank that aborts right after its show_help loses the
# message with no such log line at all.  With RWV_EXPECT set to the
# message's pattern, the command reruns while that message is missing,
# whatever else was lost (two ranks printing at once lose one message or
# another nearly every time).
#   [RWV_EXPECT=PATTERN] run_keeping_help ERRFILE command...   (stdout is the command's)
run_keeping_help () {
    local err=$1 rc attempt
    shift
    for attempt in 1 2 3 4 5 6 7 8; do
        "$@" 2> "$err"
        rc=$?
        if [ -n "${RWV_EXPECT:-}" ]; then
            grep -q -e "$RWV_EXPECT" "$err" && break
        else
            grep -q 'ORTE_ERROR_LOG: .*orte/util/show_help.c' "$err" || break
        fi
    done
    return $rc
}

# Wait up to 120 s for a line matching PATTERN in FILE (a job's output
# written in the background), so a test acts in the middle of the job.
#   wait_for_line FILE PATTERN
wait_for_line () {
    local i
    for ((i = 0; i < 1200; i++)); do
        grep -q -e "$2" "$1" && return 0
        sleep 0.1
    done
    return 1
}

# True when the Open MPI on PATH is of the 5.0 series.
ompi_is_5 () {
    ompi_info --version 2>/dev/null | grep -q '^Open MPI v5\.'
}
