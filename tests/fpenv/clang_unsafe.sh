#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fpenv/clang_unsafe.sh CLANG INCLUDE SOURCE: compiles and links
# SOURCE (fpenv_refuse.c) in one command with clang -O3
# -funsafe-math-optimizations, which links crtfastmath.o (flush-to-zero and
# denormals-are-zero for the whole process); clang defines no macro for the
# flag, so the headers compile (their code is immune through
# REPDL_BEGIN_CODE), and every array function must refuse at run time.
# No clang: 77 (skipped).
set -eu
cc=$1 inc=$2 src=$3
if ! command -v "$cc" >/dev/null 2>&1; then echo "SKIP: no clang"; exit 77; fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$cc" -O3 -funsafe-math-optimizations -I"$inc" "$src" -o "$dir/prog" -pthread
exec "$dir/prog" refuse
