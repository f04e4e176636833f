#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/attention/gpt_step.sh: one training step of examples/train_gpt's
# default model (4 layers, d_model 128, 4 heads, context 128, batch 16)
# against the same model in PyTorch (bench_gpt_torch.py) in the same run,
# at 1 and 2 threads.
#   bench/attention/gpt_step.sh TRAIN_GPT [steps] [reps]   (defaults 10 3)
# repdl's step: (time of `train_gpt --steps K`) - (time of `--steps 0`,
# which loads the data, initialises, computes the validation logits and
# the 200-byte sample as the K-step run does) divided by K; CPU time is the
# process's user + system time (all threads), wall the elapsed time;
# medians of `reps` runs of each.  torch: the median step of K steps.
# Prints both and the ratios repdl / torch.  About 2 minutes of CPU at the
# defaults.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exe=${1:?usage: gpt_step.sh TRAIN_GPT [steps] [reps]}
steps=${2:-10}
reps=${3:-3}
py=${PYTHON:-/usr/bin/python3}
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -m1 'model name' /proc/cpuinfo || true
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# one run: prints "wall_s cpu_s"
run() {
    local t0 t1 c
    t0=$(date +%s.%N)
    c=$( { TIMEFORMAT='%U %S'; time "$exe" --quiet "$@" > /dev/null; } 2>&1 | tail -1)
    t1=$(date +%s.%N)
    echo "$t0 $t1 $c" | awk '{ print $2 - $1, $3 + $4 }'
}
echo "# repdl train_gpt step: (--steps $steps minus --steps 0) / $steps, median of $reps runs each (ms)"
echo "# threads step_wall_ms step_cpu_ms"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in 1 2; do
    : > "$tmp/w"; : > "$tmp/c"
    for r in $(seq "$reps"); do
        a=$(run --steps 0 --threads "$t")
        b=$(run --steps "$steps" --threads "$t")
        echo "$a $b" | awk -v k="$steps" '{ printf "%.3f\n", 1e3 * ($3 - $1) / k }' >> "$tmp/w"
        echo "$a $b" | awk -v k="$steps" '{ printf "%.3f\n", 1e3 * ($4 - $2) / k }' >> "$tmp/c"
    done
    echo "$t $(median < "$tmp/w") $(median < "$tmp/c")" | tee -a "$tmp/repdl"
done
"$py" "$here/bench_gpt_torch.py" "$steps" 1 2 | tee "$tmp/torch"
echo "# threads wall_ratio cpu_ratio (repdl / torch)"
paste -d' ' "$tmp/repdl" <(grep -v '^#' "$tmp/torch") |
    awk '{ printf "%s %.2f %.2f\n", $1, $2 / $5, $3 / $6 }'
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
