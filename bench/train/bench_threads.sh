#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/train/bench_threads.sh: examples/train_fmnist with --threads 1 (the
# whole batch in one call of each operation) against --threads N (data
# parallelism over micro-batches of 16, docs/train.md "Threads and MPI"):
# wall time, median of REPS runs of each, interleaved (1, N, 1, N, ...) so
# that a change in the machine's load hits both alike; checks that every
# run prints the same hashes; prints the load (uptime) before and after.
#
#   bench_threads.sh EXE [--reps R] [--threads N] [--full]
#                        [-- extra train_fmnist args]
#
#   --reps R     runs of each configuration (default 5)
#   --threads N  the threaded configuration (default 2)
#   --full       also the 2-epoch run (--epochs 2; about 30-60 s a run)
# meson: ninja -C build bench-train-threads (the short run, 5 reps each).
set -euo pipefail
exe=$1
shift
reps=5 threads=2 full=0 extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2;;
    --threads) threads=$2; shift 2;;
    --full) full=1; shift;;
    --) shift; extra=("$@"); break;;
    *) echo "bench_threads: unknown argument $1"; exit 2;;
  esac
done
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2];
                                              else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# one run: prints "SECONDS HASHES"
one() {
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@" --quiet "${extra[@]}" | tr '\n' ' ')
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(md5sum <<<"$out" | cut -c1-12)"
}
bench() { # name args...
  local name=$1 i r ref="" t1=() tn=()
  shift
  for ((i = 0; i < reps; i++)); do
    r=$(one "$exe" "$@" --threads 1); t1+=("${r% *}"); ref=${ref:-${r#* }}
    [ "${r#* }" = "$ref" ] || { echo "bench_threads: FAIL: hashes differ"; exit 1; }
    r=$(one "$exe" "$@" --threads "$threads"); tn+=("${r% *}")
    [ "${r#* }" = "$ref" ] || { echo "bench_threads: FAIL: --threads $threads hashes differ"; exit 1; }
  done
  local m1 mn
  m1=$(printf '%s\n' "${t1[@]}" | median)
  mn=$(printf '%s\n' "${tn[@]}" | median)
  printf '%-6s threads 1: %7.2f s  threads %d (pool): %7.2f s  speed-up %.2fx' \
    "$name" "$m1" "$threads" "$mn" "$(awk -v a="$m1" -v b="$mn" 'BEGIN { print a / b }')"
  printf '   (medians of %d; runs 1: %s; %d: %s)\n' "$reps" "${t1[*]}" "$threads" "${tn[*]}"
}
echo "bench_threads: $exe, $(nproc) cores; load before: $(uptime | sed 's/.*load average/load average/')"
bench short --steps 300
[ $full = 1 ] && bench full --epochs 2
echo "bench_threads: load after: $(uptime | sed 's/.*load average/load average/')"
