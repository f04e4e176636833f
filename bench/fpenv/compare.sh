#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/fpenv/compare.sh REF: instructions per call (callgrind, exact and
# independent of the machine's load) of the cases of fpenv_calls.c, built
# with gcc -O2 against the headers of git REF (before the floating-point
# environment check) and against the working tree's.  Needs valgrind.
# docs/bench-fpenv.md quotes its output.
set -eu
ref=${1:?usage: compare.sh GIT-REF}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/old"
git -C "$root" archive "$ref" include | tar -x -C "$dir/old"
cc=${CC:-gcc}
$cc -std=c99 -O2 -I"$dir/old/include" "$root/bench/fpenv/fpenv_calls.c" -o "$dir/calls_old"
$cc -std=c99 -O2 -I"$root/include" "$root/bench/fpenv/fpenv_calls.c" -o "$dir/calls_new"
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
echo "case            n   instructions/call: $ref  now  added"
for c in "0 1 relu_array" "0 8 relu_array" "0 64 relu_array" "0 4096 relu_array" \
         "1 1 exp_array" "1 64 exp_array" "1 4096 exp_array" "2 1 add" "2 64 add" "2 4096 add" \
         "3 64 sum_rows" "3 4096 sum_rows" "4 1 sum_f32" "4 64 sum_f32" "5 16 gemm4x4x4"; do
  set -- $c
  o0=$(ir "$dir/calls_old" "$1" "$2" 0); o1=$(ir "$dir/calls_old" "$1" "$2" 200)
  n0=$(ir "$dir/calls_new" "$1" "$2" 0); n1=$(ir "$dir/calls_new" "$1" "$2" 200)
  o=$(( (o1 - o0) / 200 )); n=$(( (n1 - n0) / 200 ))
  printf '%-12s %6s %12s %8s %6s\n' "$3" "$2" "$o" "$n" "$((n - o))"
done
