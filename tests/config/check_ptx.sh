#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/config/check_ptx.sh FMAD_TRUE.ptx FMAD_FALSE.ptx | --skip
# The PTX that nvcc emitted for device_all.cu (a kernel per repdl
# function), built by meson with --fmad=true and --fmad=false as build
# steps, must be byte-identical (no contraction anywhere: every operation
# goes through an _rn intrinsic or inline PTX), and contain no .ftz and no
# approx instruction.  --skip: nvcc not found, SKIP (77).
set -u
if [ "${1:-}" = --skip ]; then echo "SKIP: nvcc not found"; exit 77; fi
[ $# -eq 2 ] || { echo "usage: $0 FMAD_TRUE.ptx FMAD_FALSE.ptx"; exit 2; }
t=$1 f=$2 arch=sm_80
for p in "$t" "$f"; do [ -s "$p" ] || { echo "FAIL: $p missing or empty"; exit 1; }; done
rc=0
if ! cmp -s "$t" "$f"; then
  echo "FAIL: PTX differs between --fmad=true and --fmad=false:"
  diff "$f" "$t" | head -40
  rc=1
fi
if grep -nE '\.ftz' "$t" | head -5 | grep .; then echo "FAIL: .ftz instructions"; rc=1; fi
if grep -nE '\.approx|approx\.' "$t" | head -5 | grep .; then echo "FAIL: approx instructions"; rc=1; fi
if [ $rc -eq 0 ]; then
  echo "ok: $arch PTX identical under --fmad=true/false ($(grep -c '^\.visible \.entry' "$t") kernels, $(wc -l < "$t") lines), no .ftz, no approx"
  if grep -q 'fma\.rn' "$t"; then echo "note: explicit fma.rn present ($(grep -c 'fma\.rn' "$t")), as written in the source"; fi
fi
exit $rc
