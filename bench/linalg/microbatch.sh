#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/linalg/microbatch.sh: the LeNet-5 backward step
# (bench_microbatch.c) with micro-batches of 4, 8, 16 (repdl's), 32 and 64
# samples, and 65536 (one chain over the whole batch: the order before the
# batch order), each built against a copy of include/ that differs only in
# REPDL_MICROBATCH, run one after another at batch 64 and 256.
#   bash bench/linalg/microbatch.sh [--reps R]        (about a minute)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-gcc}
echo "# $(date -u +%F) $(uname -m), $($cc --version | head -1), -O3; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for mb in 4 8 16 32 64 65536; do
  mkdir -p "$tmp/$mb"
  cp -r "$root/include" "$tmp/$mb/"
  sed -i "s/^#define REPDL_MICROBATCH 16\$/#define REPDL_MICROBATCH $mb/" "$tmp/$mb/include/repdl/detail/accum.h"
  grep -q "^#define REPDL_MICROBATCH $mb\$" "$tmp/$mb/include/repdl/detail/accum.h"
  $cc -std=c99 -O3 -I"$tmp/$mb/include" "$root/bench/linalg/bench_microbatch.c" -o "$tmp/$mb/bench" -lm
done
for B in 64 256; do
  for mb in 4 8 16 32 64 65536; do "$tmp/$mb/bench" --batch "$B" "$@"; done
done
