#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The file-level call graph of a component's .c files, and whether it keeps
# the layers docs/layout.md gives it.  A file calls another when it names,
# followed by "(", a function the other defines without static.  Only
# direct calls count: a function whose address goes into a table is how a
# lower layer is handed a hook, not a call upward, and a name after "." or
# "->" is a member, called through a pointer.  Comments and string
# literals are no code; a static inline function in a header is no file of
# the graph, so calls through one count for neither side.
#
#   layers.sh report DIR
#       each arrow "a.c -> b.c  (functions)", then the number of files,
#       arrows, arrows per file, and every circle (strongly connected
#       component) of more than one file
#   layers.sh check DIR DOCFILE KEY
#       the table between DOCFILE's "<!-- layers:KEY begin -->" and
#       "<!-- layers:KEY end -->" lines: rows "| N | name | a.c b.c |",
#       layer 1 lowest, a file calling only its own layer or lower, and
#       its head comment saying " * Layer: name (docs/layout.md)."; and
#       the line "<!-- layers:KEY max-arrows-per-file X -->".  One line per
#       problem and a non-zero status, or one line of summary.
set -eu -o pipefail
max_circle=3

usage () { sed -n "s/^#   //p" "$0" >&2; exit 2; }

# "name file static" for each function the .c files of DIR define: ctags
# marks a static one with a file: field
definitions () { # dir
    (cd "$1" && ctags -f - --languages=C --kinds-C=f --excmd=number ./*.c) |
        awk -F'\t' '{ static = $0 ~ /\tfile:/; sub(/^\.\//, "", $2); print $1, $2, static }' | LC_ALL=C sort -u
}

# "from to function" for each direct call from one .c file of DIR to a
# function another defines, once each
calls () { # dir
    awk '
        FILENAME == ARGV[1] { if ($3) local[$2, $1] = 1; else owner[$1] = $2; next }
        FNR == 1 { file = FILENAME; sub(/.*\//, "", file); incomment = 0; pending = "" }
        { line = strip($0)
          if (pending != "" && line ~ /^[ \t]*\(/) called(pending)
          pending = ""
          while (match(line, /[A-Za-z_][A-Za-z0-9_]*[ \t]*(\(|$)/)) {
              name = substr(line, RSTART, RLENGTH)
              before = substr(line, 1, RSTART - 1)
              line = substr(line, RSTART + RLENGTH)
              member = before ~ /(\.|->)[ \t]*$/
              if (name ~ /\($/) { sub(/[ \t]*\($/, "", name); if (!member) called(name) }
              else if (!member) { sub(/[ \t]*$/, "", name); pending = name }
          } }
        # a static function of this file hides any other of its name
        function called (name) {
            if ((file, name) in local || !(name in owner) || owner[name] == file) return
            print file, owner[name], name
        }
        # the line without comments and string or character literals
        function strip (s,   out, at, tok) {
            out = ""
            while (s != "") {
                if (incomment) {
                    at = index(s, "*/")
                    if (!at) return out
                    s = substr(s, at + 2); incomment = 0; out = out " "
                    continue
                }
                if (!match(s, /\/\*|\/\/|["\047]/)) return out s
                out = out substr(s, 1, RSTART - 1)
                tok = substr(s, RSTART, RLENGTH); s = substr(s, RSTART)
                if (tok == "//") return out
                if (tok == "/*") { incomment = 1; s = substr(s, 3); continue }
                if (tok == "\"" ? match(s, /^"([^"\\]|\\.)*"/) : match(s, /^\047([^\047\\]|\\.)*\047/)) {
                    s = substr(s, RLENGTH + 1); out = out " "
                } else return out
            }
            return out
        }' <(definitions "$1") "$1"/*.c | LC_ALL=C sort -u
}

# "file F" for each .c file, "arrow FROM TO f1,f2", "circle N F1 F2 ...",
# and "total FILES ARROWS"; circles from the transitive closure (a few
# dozen files)
graph () { # dir
    { for f in "$1"/*.c; do echo "file ${f##*/}"; done; calls "$1"; } | awk '
        $1 == "file" { id[$2] = ++n; name[n] = $2; print; next }
        { key = $1 " " $2
          if (!(key in fns)) { order[++arrows] = key; fns[key] = $3; reach[id[$1], id[$2]] = 1 }
          else fns[key] = fns[key] "," $3 }
        END {
            for (i = 1; i <= arrows; i++) print "arrow", order[i], fns[order[i]]
            for (k = 1; k <= n; k++) for (i = 1; i <= n; i++) if ((i, k) in reach)
                for (j = 1; j <= n; j++) if ((k, j) in reach) reach[i, j] = 1
            for (i = 1; i <= n; i++) {
                if (i in placed) continue
                members = name[i]; size = 1
                for (j = i + 1; j <= n; j++) if ((i, j) in reach && (j, i) in reach) {
                    members = members " " name[j]; size++; placed[j] = 1 }
                if (size > 1) print "circle", size, members
            }
            print "total", n, arrows
        }'
}

report () { # dir
    graph "$1" | awk '
        $1 == "arrow" { f = $4; gsub(/,/, ", ", f); printf "%s -> %s  (%s)\n", $2, $3, f }
        $1 == "circle" { circles = circles sprintf("circle of %d files:", $2)
                         for (i = 3; i <= NF; i++) circles = circles " " $i
                         circles = circles "\n" }
        $1 == "total" { printf "files: %d\narrows: %d\narrows per file: %.2f\n%s", $2, $3, $3 / ($2 ? $2 : 1), circles
                        if (circles == "") print "circles: none" }'
}

# "layer N FILE NAME" for each file of KEY's table, "limit X" for its
# limit of arrows per file
layer_table () { # docfile key
    awk -v key="$2" '
        $0 == "<!-- layers:" key " begin -->" { inside = 1; next }
        $0 == "<!-- layers:" key " end -->" { inside = 0 }
        inside && split($0, cell, "|") >= 4 && cell[2] ~ /^ *[0-9]+ *$/ {
            layer = cell[2] + 0; label = cell[3]; gsub(/^ +| +$/, "", label)
            m = split(cell[4], files, /[ `,]+/)
            for (i = 1; i <= m; i++) if (files[i] != "") print "layer", layer, files[i], label
        }
        index($0, "<!-- layers:" key " max-arrows-per-file ") == 1 { print "limit", $4 }' "$1"
}

# "head FILE NAME" for each .c file of DIR whose head comment says
# "Layer: NAME (docs/layout.md)."
heads () { # dir
    local f
    for f in "$1"/*.c; do
        sed -n 's/^ \* Layer: \(.*\) (docs\/layout\.md)\.$/\1/p' "$f" | head -n 1 |
            sed "s|^|head $(basename "$f") |"
    done
}

check () { # dir docfile key
    [ -f "$2" ] || { echo "layers.sh: no file $2" >&2; exit 2; }
    { layer_table "$2" "$3"; graph "$1"; heads "$1"; } | awk -v key="$3" -v doc="$2" -v max_circle="$max_circle" '
        $1 == "limit" { limit = $2 }
        $1 == "layer" { if ($3 in layer) problem($3 " is listed more than once in the table (layers " layer[$3] " and " $2 ")")
                        layer[$3] = $2; label = $4; for (i = 5; i <= NF; i++) label = label " " $i
                        named[$2] = label; listed[++rows] = $3 }
        $1 == "file" { exists[$2] = 1; if (rows && !($2 in layer)) problem($2 " is missing from the layer table") }
        $1 == "arrow" && ($2 in layer) && ($3 in layer) && layer[$2] + 0 < layer[$3] + 0 {
            f = $4; gsub(/,/, ", ", f)
            problem("upward call: " $2 " (layer " layer[$2] ", " named[layer[$2]] ") calls " f \
                    " in " $3 " (layer " layer[$3] ", " named[layer[$3]] ")") }
        $1 == "circle" { if ($2 > largest) largest = $2
                         if ($2 > max_circle) { m = $3; for (i = 4; i <= NF; i++) m = m " " $i
                             problem("circle of " $2 " files (more than " max_circle "): " m) } }
        $1 == "total" { files = $2; arrows = $3 }
        $1 == "head" { h = $3; for (i = 4; i <= NF; i++) h = h " " $i; head[$2] = h }
        END {
            if (!rows) problem("no layer table between <!-- layers:" key " begin/end --> lines in " doc)
            for (i = 1; i <= rows; i++) {
                f = listed[i]
                if (!(f in exists)) problem(f " is in the layer table but not a .c file of the component")
                else if (head[f] != named[layer[f]])
                    problem(f "'"'"'s head comment says \"Layer: " head[f] "\", the table " named[layer[f]])
            }
            per = arrows / (files ? files : 1)
            if (limit == "") problem("no <!-- layers:" key " max-arrows-per-file X --> line in " doc)
            else if (per > limit + 0) problem(sprintf("%d arrows among %d files: %.2f per file, more than %s", arrows, files, per, limit))
            if (bad) exit 1
            printf "%s: %d files, %d arrows, %.2f arrows per file, %s\n", key, files, arrows, per,
                   largest + 0 ? "largest circle " largest " files" : "no circle"
        }
        function problem (text) { print key ": " text; bad = 1 }'
}

# Exuberant Ctags knows no --kinds-C; without ctags every file would seem to call none
ctags --version 2> /dev/null | grep -q '^Universal Ctags' ||
    { echo "layers.sh: needs Universal Ctags (apt-get install universal-ctags)" >&2; exit 2; }
[ -d "${2:-}" ] && compgen -G "$2/*.c" > /dev/null || usage
case "${1:-}" in
    report) [ $# -eq 2 ] || usage; report "$2" ;;
    check) [ $# -eq 4 ] || usage; check "$2" "$3" "$4" ;;
    *) usage ;;
esac
