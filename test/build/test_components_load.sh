#!/usr/bin/env bash
# Proves the three components load through Open MPI's normal component
# path, list every parameter with a description, and claim nothing they
# cannot do yet: rwv offers no module, rdmabar disqualifies itself.
set -u
bin=$RWV_BUILD/test
fail=0
say () { echo "$1 - $2"; [ "$1" = ok ] || fail=1; }

for fc in "btl rwv" "rcache regcache" "coll rdmabar"; do
    set -- $fc
    listing=$(ompi_info --parsable --param "$1" "$2" --level 9 2>&1)
    params=$(echo "$listing" | grep -c ":param:[a-z_]*:value:")
    undocumented=$(echo "$listing" | awk -F: '/:param:[a-z_]*:value:/ {p[$5]=1} /:param:[a-z_]*:help:/ && length($0) > 40 {h[$5]=1} END {for (k in p) if (!(k in h)) print k}')
    if [ "$params" -gt 0 ] && [ -z "$undocumented" ]; then
        say ok "ompi_info lists $1/$2 with $params parameters, each with a description"
    else
        say "not ok" "ompi_info --param $1 $2: $params parameters; undocumented: ${undocumented:-none}"
        echo "$listing" | head -5
    fi
done

pvars=$(ompi_info --parsable --param rcache regcache --level 9 | grep -c ':pvar:')
[ "$pvars" -ge 8 ] && say ok "rcache/regcache publishes its 8 statistics as MPI_T performance variables" ||
    say "not ok" "only $pvars performance variables"

out=$(mpirun -np 2 --mca btl self,vader,tcp,rwv --mca btl_base_verbose 100 \
      "$bin/mpi/test_pingpong_verify" -m 65536 2>&1)
if echo "$out" | grep -q '^ok - ping-pong' && echo "$out" | grep -q 'btl/rwv: data path not built yet'; then
    say ok "with rwv in the BTL list, rwv says it offers no module and the job runs on the other BTLs"
else
    say "not ok" "rwv in the BTL list broke the job or did not explain itself"; echo "$out" | tail -5
fi

out=$(timeout 60 mpirun -np 2 --mca btl self,rwv "$bin/mpi/test_pingpong_verify" -m 1024 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! echo "$out" | grep -q '^ok - ' &&
   echo "$out" | grep -qi 'unreachable\|no btl\|not able to reach\|could not'; then
    say ok "with rwv as the only network BTL the job stops with Open MPI's unreachable-peer error, no hang"
else
    say "not ok" "rwv alone: exit $rc"; echo "$out" | tail -5
fi

out=$(mpirun -np 2 --mca coll rdmabar,tuned,libnbc,basic,self --mca coll_base_verbose 100 \
      "$bin/mpi/test_pingpong_verify" -m 1024 2>&1)
if echo "$out" | grep -q '^ok - ping-pong' && echo "$out" | grep -q 'coll/rdmabar: barrier not built yet'; then
    say ok "coll/rdmabar disqualifies itself with a message and collectives use the other components"
else
    say "not ok" "rdmabar in the coll list"; echo "$out" | tail -5
fi
exit $fail
