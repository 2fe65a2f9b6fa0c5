# Helpers shared by the test scripts (source it).

# Open MPI 4.1.4's runtime now and then loses a show_help message on its way
# to mpirun, logging "ORTE_ERROR_LOG: Data unpack had inadequate space" in
# orte/util/show_help.c (about 1 run in 12 here).  Run the command again,
# once, only when that happened; a message that never comes still fails.
#   run_keeping_help ERRFILE command...   (stdout is the command's)
run_keeping_help () {
    local err=$1 rc
    shift
    "$@" 2> "$err"
    rc=$?
    if grep -q 'Data unpack had inadequate space' "$err"; then
        "$@" 2> "$err"
        rc=$?
    fi
    return $rc
}
