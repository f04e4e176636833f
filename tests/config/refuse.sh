#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/config/refuse.sh MODE CC INCLUDE_DIR PROBE
# Checks that repdl refuses, with its own #error message, a build whose
# arithmetic cannot be reproducible.  MODE:
#   fast-math        CC -ffast-math
#   finite-math      CC -ffinite-math-only
#   x87              gcc -m32 -mfpmath=387 (FLT_EVAL_METHOD 2), or an i686
#                    cross gcc; SKIP (77) when neither can build 32-bit code
# Passes only when the compile fails AND its diagnostics say
# "repdl: refusing"; a build that compiles, or fails for another reason,
# fails the test.
set -u
mode=$1 cc=$2 inc=$3 probe=$4
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

expect_refusal() {   # expect_refusal CC FLAGS...
  if "$@" -std=c99 -I"$inc" -c "$probe" -o "$out/p.o" > "$out/log" 2>&1; then
    echo "FAIL: '$*' compiled: repdl did not refuse it"; return 1
  fi
  if grep -q "repdl: refusing" "$out/log"; then
    echo "ok: '$*' refused:"; grep -m1 "repdl: refusing" "$out/log"; return 0
  fi
  echo "FAIL: '$*' failed, but not with repdl's refusal:"; cat "$out/log"; return 1
}

case $mode in
  fast-math) expect_refusal "$cc" -O2 -ffast-math ;;
  finite-math) expect_refusal "$cc" -O2 -ffinite-math-only ;;
  x87)
    # A 32-bit toolchain must first build the probe normally (SSE), so a
    # refusal cannot be confused with a missing 32-bit libc.
    for c in "gcc -m32" i686-linux-gnu-gcc; do
      read -r -a argv <<< "$c"
      command -v "${argv[0]}" > /dev/null || continue
      if "${argv[@]}" -std=c99 -msse2 -mfpmath=sse -I"$inc" -c "$probe" -o "$out/sse.o" > "$out/log" 2>&1; then
        expect_refusal "${argv[@]}" -mfpmath=387
        exit
      fi
    done
    echo "SKIP: no compiler here builds 32-bit x86 code (gcc -m32 needs gcc-multilib; or install gcc-i686-linux-gnu)"
    exit 77 ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
