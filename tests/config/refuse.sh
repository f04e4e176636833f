#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/config/refuse.sh MODE CC INCLUDE_DIR PROBE
# Checks that repdl refuses, with its own #error message, a build whose
# arithmetic cannot be reproducible.  MODE:
#   fast-math        CC -ffast-math
#   finite-math      CC -ffinite-math-only
#   x87              gcc -m32 -mfpmath=387 (FLT_EVAL_METHOD 2), or an i686
#                    cross gcc; SKIP (77) when neither can build 32-bit code;
#                    the message must name -msse2 -mfpmath=sse
#   single-precision-constant
#                    gcc -fsingle-precision-constant, as C99 (sizeof(1.0)
#                    check), C11, GNU C (also __GCC_IEC_559 == 0) and C++17
#                    (CC's C++ driver: g++ for gcc); SKIP (77) unless CC is gcc
#   s390x-strict     s390x-linux-gnu-gcc -std=c99 and -std=c11
#                    (FLT_EVAL_METHOD 1): the message must name -std=gnu99,
#                    -std=gnu11 and -fexcess-precision=fast, and each of
#                    those must then compile; SKIP (77) without that compiler
# Passes only when the compile fails AND its diagnostics say
# "repdl: refusing" (and name the fix where one is expected); a build that
# compiles, or fails for another reason, fails the test.
set -u
mode=$1 cc=$2 inc=$3 probe=$4
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

std=-std=c99 lang=c want=   # the -std and -x of the compiles; the fix to name
expect_refusal() {   # expect_refusal CC FLAGS...
  if "$@" -x $lang $std -I"$inc" -c "$probe" -o "$out/p.o" > "$out/log" 2>&1; then
    echo "FAIL: '$* $std' compiled: repdl did not refuse it"; return 1
  fi
  if grep -q "repdl: refusing" "$out/log"; then
    if [ -n "$want" ] && ! grep "repdl: refusing" "$out/log" | grep -qF -- "$want"; then
      echo "FAIL: '$* $std' refused, but the message does not name '$want':"
      grep -m1 "repdl: refusing" "$out/log"; return 1
    fi
    echo "ok: '$* $std' refused:"; grep -m1 "repdl: refusing" "$out/log"; return 0
  fi
  echo "FAIL: '$* $std' failed, but not with repdl's refusal:"; cat "$out/log"; return 1
}
expect_build() {   # expect_build CC FLAGS...: the control must compile
  if "$@" -x $lang $std -I"$inc" -c "$probe" -o "$out/p.o" > "$out/log" 2>&1; then
    echo "ok: '$* $std' compiles"; return 0
  fi
  echo "FAIL: control '$* $std' does not compile:"; cat "$out/log"; return 1
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
        want="-msse2 -mfpmath=sse"
        expect_refusal "${argv[@]}" -mfpmath=387
        exit
      fi
    done
    echo "SKIP: no compiler here builds 32-bit x86 code (gcc -m32 needs gcc-multilib; or install gcc-i686-linux-gnu)"
    exit 77 ;;
  single-precision-constant)
    # gcc only: clang ignores the flag (with a warning) and is not refused
    if ! "$cc" -dM -E -x c /dev/null 2>/dev/null | grep -q '__GCC_IEC_559 '; then
      echo "SKIP: $cc is not gcc (clang ignores -fsingle-precision-constant)"; exit 77
    fi
    # the C++ driver of the same gcc: x86_64-linux-gnu-gcc -> x86_64-linux-gnu-g++
    case $cc in *gcc) cxx=${cc%gcc}g++ ;; *) cxx=g++ ;; esac
    rc=0 want=-fsingle-precision-constant
    for s in -std=c99 -std=c11 -std=gnu11; do
      std=$s; expect_build "$cc" -O2 || rc=1
      expect_refusal "$cc" -O2 -fsingle-precision-constant || rc=1
    done
    std=-std=c++17 lang=c++
    expect_build "$cxx" -O2 || rc=1
    expect_refusal "$cxx" -O2 -fsingle-precision-constant || rc=1
    exit $rc ;;
  s390x-strict)
    s390=s390x-linux-gnu-gcc
    command -v $s390 > /dev/null || { echo "SKIP: $s390 not installed (scripts/deps-matrix.sh)"; exit 77; }
    rc=0
    for s in c99 c11; do
      std=-std=$s
      for w in -std=gnu99 -std=gnu11 -fexcess-precision=fast; do
        want=$w; expect_refusal $s390 -O2 || rc=1
      done
      want=
      std=-std=gnu${s#c}; expect_build $s390 -O2 || rc=1
      std=-std=$s; expect_build $s390 -O2 -fexcess-precision=fast || rc=1
    done
    exit $rc ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
