#!/usr/bin/env bash
# Inside the rxe guest (test/verbs/rxe_guest.sh): MPI jobs over btl/rwv's
# native verbs rail on soft-RoCE, every byte checked.  Prints ok / not ok
# lines; exits 1 if any failed.
#  - one node (rxe0): ping-pong of 0 B to 4 MiB over RGET (the default) and
#    over RPUT (btl_rwv_flags send,put) at 2 ranks, 4 ranks' ping-pong pairs,
#    and the unexpected-message flood;
#  - 2 nodes as Open MPI sees them (two host names on the one rxe device):
#    ping-pong between the nodes, and coll/rdmabar's barrier checks with 2
#    ranks per node, its node leaders writing their flags over verbs.
set -u
top=${RWV_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$top/_build/test
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$top/_build/inst/lib/openmpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_btl_rwv_backend=verbs OMPI_MCA_mpi_yield_when_idle=1
failed=0
out=$(mktemp)

check () { # label pattern command...
    local label=$1 pattern=$2
    shift 2
    if "$@" > "$out" 2>&1 && grep -q -e "$pattern" "$out" && ! grep -q '^not ok' "$out" &&
       grep -q 'btl/rwv: rail 0: verbs/' "$out"; then
        echo "ok - $label"
    else
        echo "not ok - $label"; tail -12 "$out" | sed 's/^/#   /'
        failed=1
    fi
}

# the verbose line names the rail: proof the verbs backend carried the job
one=(mpirun --timeout 400 --oversubscribe --mca btl self,rwv --mca btl_base_verbose 40)
check "verbs, 1 node, 2 ranks: ping-pong 0 B to 4 MiB (RGET up to 256 KiB, RPUT pipeline above)" \
    '^ok - ping-pong' "${one[@]}" -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304
check "verbs, 1 node, 2 ranks: ping-pong 0 B to 4 MiB with RPUT only (btl_rwv_flags send,put)" \
    '^ok - ping-pong' "${one[@]}" --mca btl_rwv_flags send,put -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304
check "verbs, 1 node, 4 ranks: ping-pong pairs 0 B to 1 MiB" \
    '^ok - ping-pong' "${one[@]}" -np 4 "$bin/mpi/test_pingpong_verify" -m 1048576
check "verbs, 1 node, 2 ranks: 20,000 unexpected messages, probes, Ssend, strided types" \
    '^ok - .*unexpected' "${one[@]}" -np 2 "$bin/mpi/test_mpi_semantics"

# Two "nodes" on the one rxe device: Debian 12's kernel (6.1) runs rxe only
# in the initial network namespace, so the nodes are host names (a UTS
# namespace each, as the emulated cluster's launch agent gives), not
# network namespaces.  For Open MPI they are two nodes: no vader between
# them, and coll/rdmabar's node leaders exchange flags with rwv puts.
agent=$(mktemp)
hosts=$(mktemp)
cat > "$agent" <<'EOA'
#!/bin/sh
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
host=$1
shift
exec unshare --uts sh -c "hostname $host; $*"
EOA
chmod +x "$agent"
printf 'rxnode1 slots=8\nrxnode2 slots=8\n' > "$hosts"
two=(unshare --uts sh -c 'hostname rxnode1; exec "$0" "$@"' mpirun --timeout 400 --hostfile "$hosts"
     --mca plm_rsh_agent "$agent" --map-by node --bind-to none --mca btl self,vader,rwv --mca btl_base_verbose 40)
check "verbs, 2 nodes: ping-pong 0 B to 4 MiB between them" \
    '^ok - ping-pong' "${two[@]}" -np 2 "$bin/mpi/test_pingpong_verify" -m 4194304
check "verbs, 2 nodes x 2 ranks: coll/rdmabar barriers, the node leaders' flags written over verbs" \
    'node leaders exchange flags with btl/rwv puts' "${two[@]}" -np 4 --mca coll_base_verbose 10 \
    "$bin/coll/test_barrier" -n 15 -c 100 -b 1000
rm -f "$agent" "$hosts"
rm -f "$out"
exit $failed
