#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/attention/run.sh: repdl attention (bench_attention.c) against the
# PyTorch CPU anchor (bench_attention_torch.py) in the same run, and the
# ratios repdl / torch (below 1: repdl faster).  Batch 1, H heads,
# head_dim 64, causal (ATTN_CAUSAL=0 in the environment: not), sequences
# 128 .. 1024, threads 1 and 2; repdl's backward recomputes the scores
# (ATTN_SCORES=1: the _scores forms, the forward saving them for the
# backward, as torch's autograd keeps its softmax for its backward).
#   bench/attention/run.sh [reps] [heads] [cflags...]    (defaults 31 4 -O3)
# Takes a few minutes at the defaults on 2 cores.  ATTN_ROUNDS=R in the
# environment (default 1): R rounds, each repdl then torch, and each ratio
# the median of the R rounds' ratios (a shared machine's speed moved by
# 20-40% within minutes, between repdl's run and torch's: paired rounds
# keep a ratio to times measured close together).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${1:-31}
heads=${2:-4}
[ $# -ge 2 ] && shift 2 || shift $#
cflags=${*:--O3}
rounds=${ATTN_ROUNDS:-1}
exe=$(mktemp /tmp/bench_attention.XXXXXX)
trap 'rm -f "$exe" "$exe.r" "$exe.t" "$exe.r2" "$exe.t2" "$exe.all"' EXIT
${CC:-cc} -std=c99 $cflags -I"$root/include" "$here/bench_attention.c" -o "$exe" -lpthread
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg), cflags $cflags, rounds $rounds, ATTN_CAUSAL=${ATTN_CAUSAL:-1} ATTN_SCORES=${ATTN_SCORES:-0}"
grep -m1 'model name' /proc/cpuinfo || true
: > "$exe.all"
i=1
while [ "$i" -le "$rounds" ]; do
    [ "$rounds" -gt 1 ] && echo "# round $i"
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
    grep -v '^#' "$exe.r" | sort -s -k1,1n -k2,2n > "$exe.r2"; grep -v '^#' "$exe.t" | sort -s -k1,1n -k2,2n > "$exe.t2"
    # the round's ratios: seq threads forward backward forward_cpu backward_cpu
    paste -d' ' "$exe.r2" "$exe.t2" | awk '{ printf "%s %s %.4f %.4f %.4f %.4f\n", $1, $2, $3 / $9, $4 / $10, $5 / $11, $6 / $12 }' >> "$exe.all"
    i=$((i + 1))
done
if [ "$rounds" -gt 1 ]; then
    echo "# each round's ratios (seq threads forward backward forward_cpu backward_cpu, round 1 first):"
    sort -s -k1,1n -k2,2n "$exe.all" | sed 's/^/# /'
fi
echo "# seq threads forward_ratio backward_ratio forward_cpu_ratio backward_cpu_ratio (repdl / torch; cpu: 1 thread only)"
[ "$rounds" -gt 1 ] && echo "# each: the median over the $rounds rounds of the round's ratio (repdl and torch timed minutes apart in one round)"
sort -s -k1,1n -k2,2n "$exe.all" | awk -v R="$rounds" '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    function out() { if (!k) return; c = th == 1 ? sprintf(" %.2f %.2f", med(cf, k), med(cb, k)) : " - -"
                     printf "%s %s %.2f %.2f%s\n", sq, th, med(f, k), med(b, k), c; k = 0 }
    { if ($1 != sq || $2 != th) { out(); sq = $1; th = $2 } k++; f[k] = $3; b[k] = $4; cf[k] = $5; cb[k] = $6 }
    END { out() }'
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
