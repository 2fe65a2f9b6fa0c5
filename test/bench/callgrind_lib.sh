# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Reading a callgrind profile of a bench_msgrate rank (source it), shared
# by bench_msgcost.sh (tcp provider, emulated nodes) and
# bench_msgcost_verbs.sh (the native verbs rail in the soft-RoCE guest).

# "all in-MPI_Isend in-copies opal_progress-calls in-the-BTL" of one
# profile (MPI_Isend with what it called; the profile names a function
# once, then by number; the BTL: instructions in mca_btl_BTL.so itself, a
# cost line after a calls= line being the callee's)
callgrind_counts () { # file btl
    local counts calls own
    # the copy routines call nothing: their inclusive count is their own;
    # a share under 10% is printed "( 4.14%)", so fields are not counted
    counts=$(callgrind_annotate --inclusive=yes --threshold=100 "$1" 2> /dev/null |
             awk '{gsub(",", "", $1)} / PROGRAM TOTALS/ {total = $1} / [^ ]*:PMPI_Isend( |$)/ {isend = $1}
                  / [^ ]*:__(memcpy|memmove)/ {copy += $1} END {print total + 0, isend + 0, copy + 0}')
    calls=$(awk '/^c?fn=\(/ {s = $0; sub(/^c?fn=\(/, "", s); id = s; sub(/\).*/, "", id); n = s
                            sub(/^[0-9]+\) ?/, "", n); if (n != "") name[id] = n; if ($0 ~ /^cfn=/) callee = name[id]}
                /^calls=/ && callee == "opal_progress" {split($1, c, "="); calls += c[2]}
                END {print calls + 0}' "$1")
    own=$(awk -v so="mca_btl_$2.so" '
        function ob(s,  id, n) {id = s; sub(/^\(/, "", id); sub(/\).*/, "", id); n = s; sub(/^\([0-9]+\) ?/, "", n)
                                if (n != "") name[id] = n; return name[id]}
        /^ob=/ {s = $0; sub(/^ob=/, "", s); cur = ob(s); next}
        /^cob=/ {s = $0; sub(/^cob=/, "", s); ob(s); next}
        /^calls=/ {skip = 1; next}
        /^[0-9+*-]/ {if (skip) {skip = 0; next} if (cur ~ ("/" so "$")) own += $2}
        END {print own + 0}' "$1")
    echo "$counts $calls $own"
}

# the figures of callgrind_counts over N messages, as the tables print them
callgrind_per_message () { # n
    awk -v n="$1" '{printf "%.0f %.0f %.0f %.2f %.0f\n", $1 / n, $2 / n, $3 / n, $4 / n, $5 / n}'
}

# the N functions of mca_btl_BTL.so with the most instructions of their
# own, per message of M: "count function" lines, costliest first (a
# function's lines from inlined headers name its object on one line only)
callgrind_functions () { # file btl m n
    callgrind_annotate --threshold=100 "$1" 2> /dev/null |
        awk -v so="mca_btl_$2.so" -v m="$3" '
            /^ *[0-9,]+ \( *[0-9.]+%\) / && !/PROGRAM TOTALS/ {
                n = $1; gsub(",", "", n); fn = $0; sub(/^[^)]*\) +[^:]*:/, "", fn); obj = ""
                if (match(fn, / \[.*\]$/)) {obj = substr(fn, RSTART + 2, RLENGTH - 3); fn = substr(fn, 1, RSTART - 1)}
                cost[fn] += n; if (obj != "") owner[fn] = obj}
            END {for (fn in cost) if (owner[fn] ~ ("/" so "$")) printf "%6.1f %s\n", cost[fn] / m, fn}' |
        sort -rn | head -n "$4"
}
