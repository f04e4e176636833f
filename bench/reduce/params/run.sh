#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/reduce/params/run.sh: the leaf-geometry study of
# docs/canonical-order.md, section 12 (V lanes x L vectors, sums in L1, L2
# and DRAM against the -ffast-math loop).  Builds in a temporary directory.
#   bash bench/reduce/params/run.sh [CC]     (default gcc; flags -O3 -march=native)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cc=${1:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cc" -O3 -march=native -ffast-math -c "$here/fastmath_sum.c" -o "$tmp/fm.o"
for V in 32 64 128; do
  for L in 8 16 32; do
    python3 "$here/gen.py" $V $L > "$tmp/p.c"
    "$cc" -O3 -march=native -I"$here/../../.." -DV=$V -DL=$L "$tmp/p.c" "$tmp/fm.o" -o "$tmp/p"
    nice "$tmp/p"
  done
done
