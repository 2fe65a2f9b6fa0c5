#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves btl/rwv and coll/rdmabar keep the layers docs/layout.md gives
# their .c files (test/build/layers.sh): no file calls a function of a
# higher layer, no circle of calls joins more than 3 files, every file has
# its layer, each file's head comment names the layer the table gives it,
# and the files call each other no more than the table allows.  And that
# the check can fail: on 4 files calling each other in a circle, one of
# them calling up a layer, one head comment naming another layer.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
layers=$top/test/build/layers.sh
command -v ctags > /dev/null || { echo "universal-ctags is not installed (test/deps.sh)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
say () { echo "$1 - $2"; [ "$1" = ok ] || fail=1; }

for key in btl/rwv coll/rdmabar; do
    if out=$("$layers" check "$top/ompi/mca/$key" "$top/docs/layout.md" "$key" 2>&1); then
        say ok "$key keeps its layers in docs/layout.md ($out)"
    else
        say "not ok" "$key breaks its layers in docs/layout.md:"
        echo "$out"
    fi
done

# a.c -> b.c -> c.c -> d.c -> a.c, d.c a layer above the rest whose head
# comment names the lower one; what is not a direct call of another
# file's function must make no arrow
mkdir "$work/dir"
cat > "$work/dir/a.c" <<'EOF'
/*
 * Layer: low (docs/layout.md).
 */
void b_fn (void);
static void d_fn (void) { }            /* a.c's own, not d.c's */
void a_fn (void) { b_fn (); d_fn (); }
EOF
cat > "$work/dir/b.c" <<'EOF'
/*
 * Layer: low (docs/layout.md).
 */
void c_fn (void);
void b_fn (void) { c_fn
    (); /* a_fn () */ const char *s = "d_fn ()"; }
EOF
cat > "$work/dir/c.c" <<'EOF'
/*
 * Layer: low (docs/layout.md).
 */
void d_fn (void);
struct ops { void (*a_fn) (void); } ops = { .a_fn = 0 };
void c_fn (void) { d_fn (); ops.a_fn (); }
EOF
cat > "$work/dir/d.c" <<'EOF'
/*
 * Layer: low (docs/layout.md).
 */
void a_fn (void);
void (*hook) (void) = &b_fn;            // b_fn (): a hook, not a call
void d_fn (void) { a_fn (); }
EOF
cat > "$work/layout.md" <<'EOF'
<!-- layers:t begin -->
| layer | name | files |
|---|---|---|
| 1 | low | a.c b.c c.c |
| 2 | high | d.c |
<!-- layers:t end -->
<!-- layers:t max-arrows-per-file 2 -->
EOF
out=$("$layers" check "$work/dir" "$work/layout.md" t 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && echo "$out" | grep -q '^t: circle of 4 files (more than 3): a.c b.c c.c d.c$' &&
   echo "$out" | grep -q '^t: upward call: c.c (layer 1, low) calls d_fn in d.c (layer 2, high)$' &&
   echo "$out" | grep -q '^t: d.c.s head comment says "Layer: low", the table high$' &&
   [ "$(echo "$out" | wc -l)" -eq 3 ]; then
    say ok "the layer check catches a circle of 4 files, an upward call and a head comment naming another layer"
else
    say "not ok" "the layer check of a circle of 4 files with an upward call: status $rc"
    echo "$out"
fi
arrows=$("$layers" report "$work/dir" | grep ' -> ' | tr '\n' ';')
if [ "$arrows" = "a.c -> b.c  (b_fn);b.c -> c.c  (c_fn);c.c -> d.c  (d_fn);d.c -> a.c  (a_fn);" ]; then
    say ok "the call graph counts direct calls only, not comments, strings, members, addresses taken or a file's own static functions"
else
    say "not ok" "the call graph of the 4 files: $arrows"
fi
exit $fail
