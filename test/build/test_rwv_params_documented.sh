#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Proves every btl_rwv_ parameter a user can set is documented: it has a
# description in ompi_info and a row in docs/parameters.md, and where its
# values have a range (from btl_rwv_params.c's table), the row gives that
# same range ("Valid: ...", as ompi_info shows it).  Open MPI's standard
# BTL parameters (registered by Open MPI for every BTL) are documented
# together in one row and left out here.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/docs/parameters.md
standard=$(printf ' %s ' exclusivity flags atomic_flags rndv_eager_limit eager_limit get_limit get_alignment \
    put_limit put_alignment max_send_size rdma_pipeline_send_length rdma_pipeline_frag_size min_rdma_pipeline_size \
    latency bandwidth accelerator_max_send_size accelerator_rdma_limit)
listing=$(ompi_info --parsable --param btl rwv --level 9 2>&1)
names=$(echo "$listing" | sed -n 's/^mca:btl:rwv:param:btl_rwv_\([a-z0-9_]*\):value:.*/\1/p')
[ -n "$names" ] || { echo "not ok - ompi_info lists no btl_rwv_ parameter"; echo "$listing" | tail -3; exit 1; }

checked=0 bad=""
for name in $names; do
    case "$standard" in *" $name "*) continue ;; esac
    checked=$((checked + 1))
    help=$(echo "$listing" | sed -n "s/^mca:btl:rwv:param:btl_rwv_$name:help://p")
    # a row naming it, alone or as the second of a pair (`btl_rwv_if_include` / `_exclude`)
    row=$(grep -E "^\| \`btl_rwv_$name\`|^\| \`btl_rwv_[a-z_]+\` / \`_${name#*_}\`" "$doc" | head -n 1)
    range=$(echo "$help" | grep -o 'Valid: .*$')
    if [ ${#help} -lt 20 ]; then
        bad="$bad btl_rwv_$name(no description)"
    elif [ -z "$row" ]; then
        bad="$bad btl_rwv_$name(no row in docs/parameters.md)"
    elif [ -n "$range" ] && [[ "$row" != *"$range"* ]]; then
        bad="$bad btl_rwv_$name(the row does not say '$range')"
    fi
done
if [ -z "$bad" ] && [ "$checked" -ge 20 ]; then
    echo "ok - all $checked of btl/rwv's own parameters have a description and a row in docs/parameters.md giving the range ompi_info gives"
else
    echo "not ok - btl/rwv parameters not documented as registered ($checked checked):$bad"
    exit 1
fi
