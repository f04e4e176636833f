#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a shared library of LLVM libc's binary32 math functions from
# Debian's static archive (libllvmlibc-N-dev), for repdl-oracle's dlopen:
#
#   llvmlibc_so.sh OUT.so [ARCHIVE]
#
# ARCHIVE defaults to the newest /usr/lib/llvm-*/lib/libllvmlibc.a (as
# bench/math/llvmlibc.sh finds it).  Each member F.cpp.o (F = expf logf
# tanhf sqrtf exp2f log2f expm1f log1pf rsqrtf sinf cosf erff, those
# present) is linked in; its plain C symbol F has hidden visibility in the
# archive, so OUT.so exports a wrapper llvmlibc_F that tail-calls it (same
# argument, same result: no arithmetic).  Prints the functions exported.
set -euo pipefail
out=$(readlink -f "${1:?usage: llvmlibc_so.sh OUT.so [ARCHIVE]}")
archive=${2:-$(ls -1 /usr/lib/llvm-*/lib/libllvmlibc.a 2>/dev/null | sort -V | tail -n 1)}
[ -n "$archive" ] && [ -f "$archive" ] || { echo "llvmlibc_so.sh: no libllvmlibc.a" >&2; exit 1; }
archive=$(readlink -f "$archive")
CC=${CC:-cc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
members=$(ar t "$archive")
objs=(); found=()
: > wrap.c
for f in expf logf tanhf sqrtf exp2f log2f expm1f log1pf rsqrtf sinf cosf erff; do
    grep -qx "$f.cpp.o" <<<"$members" || continue
    ar x "$archive" "$f.cpp.o"
    objs+=("$f.cpp.o"); found+=("$f")
    printf 'float %s(float);\nfloat llvmlibc_%s(float x) { return %s(x); }\n' "$f" "$f" "$f" >> wrap.c
done
[ ${#objs[@]} -gt 0 ] || { echo "llvmlibc_so.sh: no math members in $archive" >&2; exit 1; }
"$CC" -O2 -fPIC -fno-builtin -c wrap.c -o wrap.o
"$CC" -shared -o "$out" wrap.o "${objs[@]}"
echo "${found[*]}"
