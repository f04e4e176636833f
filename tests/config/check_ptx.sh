#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/config/check_ptx.sh NVCC INCLUDE_DIR SOURCE.cu [ARCH]
# The PTX nvcc emits for SOURCE (a kernel per repdl function) must be the
# same under --fmad=true and --fmad=false (no contraction anywhere: every
# operation goes through an _rn intrinsic), and contain no .ftz and no
# approx instruction.  ARCH defaults to sm_80.  SKIP (77) without nvcc.
set -u
nvcc=$1 inc=$2 src=$3 arch=${4:-sm_80}
if ! command -v "$nvcc" > /dev/null 2>&1; then echo "SKIP: nvcc not found"; exit 77; fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
for fmad in true false; do
  "$nvcc" -arch="$arch" -std=c++14 --fmad=$fmad -I"$inc" -ptx "$src" -o "$out/fmad_$fmad.ptx" || { echo "FAIL: nvcc --fmad=$fmad"; exit 1; }
done
rc=0
if ! cmp -s "$out/fmad_true.ptx" "$out/fmad_false.ptx"; then
  echo "FAIL: PTX differs between --fmad=true and --fmad=false:"
  diff "$out/fmad_false.ptx" "$out/fmad_true.ptx" | head -40
  rc=1
fi
if grep -nE '\.ftz' "$out/fmad_true.ptx" | head -5 | grep .; then echo "FAIL: .ftz instructions"; rc=1; fi
if grep -nE '\.approx|approx\.' "$out/fmad_true.ptx" | head -5 | grep .; then echo "FAIL: approx instructions"; rc=1; fi
if [ $rc -eq 0 ]; then
  echo "ok: $arch PTX identical under --fmad=true/false ($(grep -c '^\.visible \.entry' "$out/fmad_true.ptx") kernels, $(wc -l < "$out/fmad_true.ptx") lines), no .ftz, no approx"
  if grep -q 'fma\.rn' "$out/fmad_true.ptx"; then echo "note: explicit fma.rn present ($(grep -c 'fma\.rn' "$out/fmad_true.ptx")), as written in the source"; fi
fi
exit $rc
