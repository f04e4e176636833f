#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/nn/poolnorm_ab.sh: max_pool2d and layer-norm backward before and
# after a change, on one machine in one session (docs/nn-act-pool.md,
# docs/nn-softmax-norm.md; the run of 2026-11-25:
# results/poolnorm-2026-11-25.txt).
#
#   bench/nn/poolnorm_ab.sh BASE [RUNS]
#
# Builds bench_nn_act_pool, bench_nn (gcc -O3 -march=native) and
# count_poolnorm (gcc -O3 -march=x86-64-v3: valgrind runs no AVX-512) twice,
# against the headers of commit BASE ("before") and of the working tree
# ("after"), with the benchmark sources of the working tree for both; then
# RUNS (default 5) alternating runs of the two timing benchmarks (pooling
# with --cpu), then, when valgrind is installed, the callgrind instruction
# counts of count_poolnorm for each op, repdl and plain loop.  Each ratio
# is repdl / plain measured in the same process.
set -eu
base=${1:?usage: poolnorm_ab.sh BASE [RUNS]}
runs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/before"
git -C "$root" archive "$base" include | tar -x -C "$tmp/before"
nn=$root/bench/nn
for v in before after; do
    inc=$tmp/before/include
    [ "$v" = after ] && inc=$root/include
    gcc -O3 -march=native -I"$inc" "$nn/bench_act_pool.c" "$nn/plain_act_pool.c" -lm \
        -o "$tmp/act_pool.$v"
    gcc -O3 -march=native -DREPDL_BENCH_FLAGS='"-O3 -march=native"' -I"$inc" \
        "$nn/bench_softmax_norm.c" "$nn/naive_softmax_norm.c" -lm -o "$tmp/softmax_norm.$v"
    gcc -O3 -march=x86-64-v3 -I"$inc" "$nn/count_poolnorm.c" "$nn/plain_act_pool.c" \
        "$nn/naive_softmax_norm.c" -lm -o "$tmp/count.$v"
done
echo "# before: $(git -C "$root" rev-parse --short "$base") (headers), after: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- include || echo ' + working tree')"
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //') model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus, $(gcc --version | head -1)"
i=1
while [ "$i" -le "$runs" ]; do
    for v in before after; do
        echo "== $v run $i $(date -u +%H:%M:%S) loadavg: $(cut -d' ' -f1-3 /proc/loadavg)"
        "$tmp/act_pool.$v" --pool --cpu --rounds 21
        "$tmp/softmax_norm.$v" --reps 15 | grep -E '^bench_nn|^op|layer_norm_bwd|ln_'
    done
    i=$((i + 1))
done
if command -v valgrind > /dev/null; then
    echo "== callgrind instruction counts (count_poolnorm, -O3 -march=x86-64-v3)"
    printf '%-20s %15s %15s\n' op before after
    for op in maxfwd22 maxfwd33 maxbwd22 maxbwd33 lnbwd_dx lnbwd_params lnbwd_all; do
        for pre in "" plain_; do
            line=$(printf '%-20s' "$pre$op")
            for v in before after; do
                n=$(valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" --toggle-collect=count_run \
                    "$tmp/count.$v" "$pre$op" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
                line="$line $(printf '%15s' "$n")"
            done
            echo "$line"
        done
    done
fi
