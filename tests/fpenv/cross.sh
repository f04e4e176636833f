#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fpenv/cross.sh ARCH INCLUDE DIR: fpenv_refuse.c (DIR) cross-compiled
# for ARCH (aarch64, powerpc64le, riscv64, s390x) and run under qemu-user:
#   ok   accepted in the default environment;
#   csr  each mode set alone refused, restored accepted (aarch64: FZ and the
#        rounding modes in FPCR, the FPCR reading; the others: the
#        directed rounding modes through fesetround, the portable probe);
#   refuse (aarch64 only) under an LD_PRELOADed library built with
#        -ffast-math, whose crtfastmath.o sets FPCR.FZ.  gcc links no
#        crtfastmath.o on powerpc64le, riscv64 or s390x (they have no
#        flush-to-zero mode to set), so there a -ffast-math library changes
#        nothing at run time and nothing is refused.
# No cross compiler or no qemu (scripts/deps-matrix.sh installs both): 77.
set -eu
arch=$1 inc=$2 dir=$3
case $arch in
  aarch64) q=qemu-aarch64 ;; powerpc64le) q=qemu-ppc64le ;;
  riscv64) q=qemu-riscv64 ;; s390x) q=qemu-s390x ;;
  *) echo "unknown arch $arch"; exit 2 ;;
esac
cc=$arch-linux-gnu-gcc
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$q" >/dev/null 2>&1; then
  echo "SKIP: no $cc or no $q"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gnu99: s390x's strict -std=c99 evaluates float in double (refused)
"$cc" -std=gnu99 -O2 -I"$inc" "$dir/fpenv_refuse.c" -o "$tmp/prog" -pthread -lm
run() { "$q" -L "/usr/$arch-linux-gnu" "$@"; }
run "$tmp/prog" ok
run "$tmp/prog" csr
if [ "$arch" = aarch64 ]; then
  "$cc" -shared -fPIC -ffast-math "$dir/fastmath_lib.c" -o "$tmp/libfm.so"
  run -E LD_PRELOAD="$tmp/libfm.so" "$tmp/prog" refuse
fi
