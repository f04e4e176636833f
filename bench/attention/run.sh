#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/attention/run.sh: repdl attention (bench_attention.c) against the
# PyTorch CPU anchor (bench_attention_torch.py) in the same run, and the
# ratios repdl / torch (below 1: repdl faster).  Batch 1, H heads,
# head_dim 64, causal (ATTN_CAUSAL=0 in the environment: not), sequences
# 128 .. 1024, threads 1 and 2.
#   bench/attention/run.sh [reps] [heads] [cflags...]    (defaults 31 4 -O3)
# Takes a few minutes at the defaults on 2 cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${1:-31}
heads=${2:-4}
[ $# -ge 2 ] && shift 2 || shift $#
cflags=${*:--O3}
exe=$(mktemp /tmp/bench_attention.XXXXXX)
trap 'rm -f "$exe" "$exe.r" "$exe.t" "$exe.r2" "$exe.t2"' EXIT
${CC:-cc} -std=c99 $cflags -I"$root/include" "$here/bench_attention.c" -o "$exe" -lpthread
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg), cflags $cflags"
grep -m1 'model name' /proc/cpuinfo || true
"$exe" "$reps" "$heads" 1 2 | tee "$exe.r"
# torch: one process per thread count with OpenBLAS's own pool at that
# count (Debian's torch calls OpenBLAS-pthread, whose pool
# torch.set_num_threads does not limit: at "1 thread" its products ran on
# other threads, outside the calling thread's CPU time)
: > "$exe.t"
for t in 1 2; do
    OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t OMP_WAIT_POLICY=passive \
        ${PYTHON:-/usr/bin/python3} "$here/bench_attention_torch.py" "$reps" "$heads" $t | tee -a "$exe.t"
done
echo "# seq threads forward_ratio backward_ratio forward_cpu_ratio backward_cpu_ratio (repdl / torch; cpu: 1 thread only)"
grep -v '^#' "$exe.r" | sort -s -k1,1n -k2,2n > "$exe.r2"; grep -v '^#' "$exe.t" | sort -s -k1,1n -k2,2n > "$exe.t2"
paste -d' ' "$exe.r2" "$exe.t2" | awk '{ if ($2 == 1) c = sprintf(" %.2f %.2f", $5 / $11, $6 / $12); else c = " - -";
    printf "%s %s %.2f %.2f%s\n", $1, $2, $3 / $9, $4 / $10, c }'
rm -f "$exe.r2" "$exe.t2"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
