#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/scaling.sh: the scaling table of docs/bench-scaling.md, time at 1
# and 2 threads (or 1..T) of the LeNet-5 training step, gemm, conv2d and
# the canonical sum, and (--callgrind) their instruction counts, so that a
# bigger machine can be judged from them.  Never run by CI.
#
#   bench/scaling.sh [BUILD_DIR] [--reps R] [--threads T] [--callgrind]
#
#   train   examples/train_fmnist --steps 300 --threads t (data parallel
#           over micro-batches of 16), its "time" line, R runs interleaved
#           over t, medians; every run's hashes must agree (else FAIL)
#   gemm    bench/linalg/bench_gemm --threads T: repdl against OpenBLAS at
#           1 thread and at T threads (its own medians and ratios)
#   conv    bench/linalg/bench_conv --threads T where it is built
#   sum     bench/reduce/bench_sum_threads --threads T (bits compared)
#   --callgrind  also valgrind --tool=callgrind instruction counts (all
#           threads' instructions together: the work, which a faster
#           machine divides by its speed) of one training step (40 steps
#           minus 20 steps, over 20) and of the 2^20 sum and dot, at 1..T
#           threads
# Prints the load (uptime) before and after: quote ratios only from a run
# whose load stayed below about 0.5 besides this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
b=$root/build
reps=5 T=2 cg=0
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2;;
    --threads) T=$2; shift 2;;
    --callgrind) cg=1; shift;;
    -*) echo "scaling: unknown argument $1"; exit 2;;
    *) b=$(cd "$1" && pwd); shift;;
  esac
done
ninja -C "$b" examples/train_fmnist bench/linalg/bench_gemm bench/reduce/bench_sum_threads >/dev/null
conv=
# (grep reads all of ninja's list: with -q it would stop early, ninja would
# die of SIGPIPE and pipefail would call the target missing)
if ninja -C "$b" -t targets all 2>/dev/null | grep '^bench/linalg/bench_conv:' >/dev/null; then
  ninja -C "$b" bench/linalg/bench_conv >/dev/null && conv=$b/bench/linalg/bench_conv
fi
echo "scaling: $(date -u +%F' '%H:%M) UTC, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
echo "scaling: load before: $(uptime | sed 's/.*load average/load average/')"
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2];
                                              else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo
echo "== train: examples/train_fmnist --steps 300 --threads t, $reps runs each, interleaved"
declare -A tt
ref= fail=0
for ((i = 0; i < reps; i++)); do
  for ((t = 1; t <= T; t++)); do
    out=$("$b/examples/train_fmnist" --steps 300 --threads "$t")
    h=$(grep -E '_sha256' <<<"$out" | md5sum | cut -c1-12)
    [ -z "$ref" ] && ref=$h
    [ "$h" = "$ref" ] || { echo "FAIL: threads $t printed other hashes"; fail=1; }
    tt[$t]+="$(sed -n 's/^time \([0-9.]*\) s.*/\1/p' <<<"$out" | tail -1) "
  done
done
t1=$(tr ' ' '\n' <<<"${tt[1]}" | grep . | median)
for ((t = 1; t <= T; t++)); do
  m=$(tr ' ' '\n' <<<"${tt[$t]}" | grep . | median)
  printf 'train  threads %d  median %s s  speedup %s  (runs: %s)\n' "$t" "$m" \
    "$(awk -v a="$t1" -v b="$m" 'BEGIN { printf "%.2f", a / b }')" "${tt[$t]% }"
done

echo
echo "== gemm: bench/linalg/bench_gemm --threads $T --reps $reps"
"$b/bench/linalg/bench_gemm" --threads "$T" --reps "$reps"

if [ -n "$conv" ]; then
  echo
  echo "== conv: bench/linalg/bench_conv --threads $T"
  "$conv" --threads "$T"
else
  echo
  echo "== conv: bench/linalg/bench_conv is not built here: skipped"
fi

echo
echo "== sum: bench/reduce/bench_sum_threads --threads $T --reps $((2 * reps + 1))"
"$b/bench/reduce/bench_sum_threads" --threads "$T" --reps $((2 * reps + 1)) || fail=1

if [ $cg -eq 1 ]; then
  echo
  echo "== callgrind: instructions executed (Ir), all threads together"
  if ! command -v valgrind >/dev/null; then echo "no valgrind: skipped"; else
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    ir() { valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>"$tmp/err" || true
           sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err" | tail -1; }
    for ((t = 1; t <= T; t++)); do
      # per training step: (Ir of 40 steps - Ir of 20 steps) / 20, so that
      # loading the data and the (64-image) evaluation cancel out
      a=$(ir "$b/examples/train_fmnist" --steps 20 --test-limit 64 --threads "$t")
      c=$(ir "$b/examples/train_fmnist" --steps 40 --test-limit 64 --threads "$t")
      printf 'callgrind  train step (batch 64) --threads %d  Ir %s\n' "$t" "$(( (c - a) / 20 ))"
      printf 'callgrind  sum+dot n=2^20 threads 1..%d  Ir %s\n' "$t" "$(ir "$b/bench/reduce/bench_sum_threads" --n 1048576 --threads "$t" --reps 1 --calls 1)"
    done
  fi
fi
echo
echo "scaling: load after: $(uptime | sed 's/.*load average/load average/')"
exit $fail
