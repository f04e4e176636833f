#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/attention/gpt_step.sh: one training step (forward, backward,
# clipping, AdamW) of examples/train_gpt's default model (4 layers,
# d_model 128, 4 heads, context 128, batch 16, vocabulary 256) against the
# same model in PyTorch (bench_gpt_torch.py) in the same run, at 1 and 2
# threads.  One command from the repository root:
#   bench/attention/gpt_step.sh [TRAIN_GPT] [steps] [reps]   (defaults: build, 10, 3)
# Without TRAIN_GPT (or with "build") it compiles examples/train_gpt.c of
# this tree as the meson release build does (gcc -std=c99 -O3) into a
# temporary directory first (about 35 s of CPU).
#
# Each of `reps` rounds runs, one after the other: train_gpt --steps K
# --time at 1 and at 2 threads (each step's wall and process CPU time, all
# threads, from its stderr; step 1 dropped: first touch of the buffers),
# then bench_gpt_torch.py with K steps after 2 warm-up steps, both torch
# attention forms (math: RoPE + baddbmm/softmax/bmm; mha:
# nn.MultiheadAttention, no RoPE) at 1 and 2 threads with the OpenMP
# workers passive (OMP_WAIT_POLICY=passive: they sleep rather than spin,
# so the CPU time is the work), one process per thread count with
# OPENBLAS_NUM_THREADS the same (Debian's torch calls OpenBLAS-pthread,
# whose own pool of nproc threads torch.set_num_threads does not limit:
# without it the "1-thread" torch step ran on 2 cores, 206 ms of CPU in 127
# ms of wall, against 147 ms of CPU with it); with GPT_STEP_ACTIVE=1 also the mha form
# at 2 threads with spinning workers (active: the fastest wall on an idle
# machine; on a loaded one its workers spin while waiting for a core, a
# 0.2 s step then takes seconds).
# The rounds interleave the two libraries, so a change of load hits both.
# Printed: per library and configuration, over all rounds' steps, the
# minimum and median of wall and CPU time (ms); then the ratios repdl /
# torch against the anchor, the torch configuration with the smallest
# median (wall: any policy; CPU: the passive ones, where spinning does not
# count).  On a loaded machine the wall times include waiting for a core:
# the CPU times and the minimum walls are the comparison; on an idle
# machine the medians are.  About 1.5 minutes of CPU at the defaults (35 s
# of it the build), 4 minutes of wall at load 15 on 2 cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
exe=${1:-build}
steps=${2:-10}
reps=${3:-3}
py=${PYTHON:-/usr/bin/python3}
[ "$steps" -ge 2 ] || { echo "gpt_step.sh: steps must be at least 2"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cpus, load $(load)"
grep -m1 'model name' /proc/cpuinfo || true
if [ "$exe" = build ]; then
    rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
    dirty=$(git -C "$root" status --porcelain -- include examples 2>/dev/null | head -1)
    echo "# train_gpt: gcc -std=c99 -O3 examples/train_gpt.c, tree $rev${dirty:+ + uncommitted edits of include/ or examples/}"
    gcc -std=c99 -O3 -I"$root/include" "$root/examples/train_gpt.c" -o "$tmp/train_gpt" \
        -lz -lpthread -lm
    exe=$tmp/train_gpt
fi
"$exe" --help > /dev/null
"$exe" --steps 1 --quiet --time > /dev/null 2> "$tmp/probe" || {
    echo "gpt_step.sh: $exe --steps 1 --time failed:"; cat "$tmp/probe"; exit 1; }
grep -q '^step_time ' "$tmp/probe" || { echo "gpt_step.sh: $exe has no --time"; exit 1; }
for r in $(seq "$reps"); do
    for t in 1 2; do
        "$exe" --steps "$steps" --threads "$t" --quiet --time 2>&1 > /dev/null |
            awk -v t="$t" '$1 == "step_time" && $2 > 1 { print "repdl", t, $3, $4 }' >> "$tmp/steps"
    done
    : > "$tmp/t$r"
    for t in 1 2; do
        OPENBLAS_NUM_THREADS=$t OMP_WAIT_POLICY=passive "$py" "$here/bench_gpt_torch.py" "$steps" "$t" \
            --attn both --raw >> "$tmp/t$r"
    done
    if [ "${GPT_STEP_ACTIVE:-0}" = 1 ]; then
        OPENBLAS_NUM_THREADS=2 OMP_WAIT_POLICY=active "$py" "$here/bench_gpt_torch.py" "$steps" 2 \
            --attn mha --raw >> "$tmp/t$r"
    fi
    grep -m1 '^# torch' "$tmp/t$r" > "$tmp/torchver"
    echo "# round $r done, load $(load)"
done
# stats over the samples of one configuration: n wall_min wall_med cpu_min cpu_med
stats() {
    local w c
    cat > "$tmp/s"
    w=$(awk '{ print $1 }' "$tmp/s" | sort -g | awk '{ a[NR] = $1 }
        END { m = int((NR + 1) / 2); printf "%d %.1f %.1f", NR, a[1], (NR % 2) ? a[m] : (a[m] + a[m + 1]) / 2 }')
    c=$(awk '{ print $2 }' "$tmp/s" | sort -g | awk '{ a[NR] = $1 }
        END { m = int((NR + 1) / 2); printf "%.1f %.1f", a[1], (NR % 2) ? a[m] : (a[m] + a[m + 1]) / 2 }')
    echo "$w $c"
}
echo "# repdl train_gpt: steps 2..$steps of $reps runs of --steps $steps --time (ms)"
echo "# threads n wall_min wall_med cpu_min cpu_med"
for t in 1 2; do
    echo "$t $(awk -v t="$t" '$2 == t { print $3, $4 }' "$tmp/steps" | stats)" | tee -a "$tmp/repdl"
done
cat "$tmp/torchver"
echo "# torch bench_gpt_torch.py: steps 3..$((steps + 2)) (2 warm-up) of $reps runs (ms)"
echo "# attn policy threads n wall_min wall_med cpu_min cpu_med"
cat "$tmp"/t[0-9]* | awk '$1 == "raw" { print $2, $3, $4 }' | sort -u > "$tmp/configs"
while read -r a p t; do
    echo "$a $p $t $(cat "$tmp"/t[0-9]* | awk -v a="$a" -v p="$p" -v t="$t" \
        '$1 == "raw" && $2 == a && $3 == p && $4 == t { print $5, $6 }' | stats)"
done < "$tmp/configs" | tee "$tmp/torch"
echo "# ratios repdl / torch anchor (wall anchor: smallest median wall; cpu anchor: smallest"
echo "# median CPU of the passive runs)"
echo "# threads wall_anchor wall_med_ratio wall_min_ratio cpu_anchor cpu_med_ratio cpu_min_ratio"
for t in 1 2; do
    read -r _ _ rwmin rwmed rcmin rcmed < <(grep "^$t " "$tmp/repdl")
    read -r wa wp _ _ awmin awmed _ _ < <(awk -v t="$t" '$3 == t' "$tmp/torch" | sort -g -k6,6 | head -1)
    read -r ca cp _ _ _ _ acmin acmed < <(awk -v t="$t" '$3 == t && $2 == "passive"' "$tmp/torch" |
                                          sort -g -k8,8 | head -1)
    echo "$t $wa/$wp $(awk -v a="$rwmed" -v b="$awmed" 'BEGIN { printf "%.2f", a / b }') \
$(awk -v a="$rwmin" -v b="$awmin" 'BEGIN { printf "%.2f", a / b }') $ca/$cp \
$(awk -v a="$rcmed" -v b="$acmed" 'BEGIN { printf "%.2f", a / b }') \
$(awk -v a="$rcmin" -v b="$acmin" 'BEGIN { printf "%.2f", a / b }')"
done
echo "# 2 threads / 1 thread, repdl: wall_med $(awk 'NR == 1 { a = $4 } NR == 2 { printf "%.2f", $4 / a }' "$tmp/repdl"), wall_min $(awk 'NR == 1 { a = $3 } NR == 2 { printf "%.2f", $3 / a }' "$tmp/repdl")"
echo "# load after: $(load)"
