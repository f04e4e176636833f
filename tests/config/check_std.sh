#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/config/check_std.sh INCLUDE_DIR [NVCC]
# Every header of repdl must compile without a single warning (-Wall
# -Wextra -pedantic -Werror) as C99 and C11 (gcc, clang) and as C++14 and
# C++17 (g++, clang++): alone under gcc -std=c99 and clang++ -std=c++17,
# all in one unit under every configuration; src/librepdl.c (every
# public function) at -O2 as C99 and C++17, and under nvcc with
# -Werror all-warnings when nvcc is given.  A compiler that is not
# installed is reported and not counted; the test fails when any
# available one fails, or when none is available.
set -u
inc=$1 nvcc=${2:-}
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
# (mpi.h needs MPI's headers: tests/mpi builds it with -Werror instead)
headers=$(cd "$inc/repdl" && ls *.h | grep -v '^cuda\.h$' | grep -v '^mpi\.h$')
fail=0 ran=0
try() {  # try LABEL COMPILER ARGS... (reads the TU from $out/tu)
  local label=$1; shift
  if ! "$@" > "$out/log" 2>&1; then
    echo "FAIL: $label"; head -5 "$out/log"; fail=$((fail + 1))
  fi
  ran=$((ran + 1))
}
# Each header alone (it includes what it needs) under one C and one C++
# configuration of different compilers; every configuration compiles one
# translation unit of all the headers (each header's code is the same
# text alone or with the others: its include guard opens it once).
for cfg in "gcc c99 each" "gcc c11 all" "clang c99 all" "clang c11 all" "g++ c++14 all" \
           "g++ c++17 all" "clang++ c++14 all" "clang++ c++17 each"; do
  read -r cc std how <<<"$cfg"
  command -v "$cc" > /dev/null || { echo "not installed: $cc"; continue; }
  lang=c; ext=c; case $std in c++*) lang=c++; ext=cpp;; esac
  if [ "$how" = each ]; then
    for h in repdl.h $headers; do
      printf '#include <repdl/%s>\nint repdl_std_probe;\n' "$h" > "$out/tu.$ext"
      try "$cc -std=$std $h" "$cc" -x "$lang" -std="$std" -Wall -Wextra -pedantic -Werror \
        -I"$inc" -fsyntax-only "$out/tu.$ext"
    done
    echo "ok: $cc -std=$std, $(wc -w <<<"repdl.h $headers") headers, each alone"
  else
    for h in repdl.h $headers; do printf '#include <repdl/%s>\n' "$h"; done > "$out/tu.$ext"
    printf 'int repdl_std_probe;\n' >> "$out/tu.$ext"
    try "$cc -std=$std (all headers)" "$cc" -x "$lang" -std="$std" -Wall -Wextra -pedantic -Werror \
      -I"$inc" -fsyntax-only "$out/tu.$ext"
    echo "ok: $cc -std=$std, $(wc -w <<<"repdl.h $headers") headers in one unit"
  fi
done
# The same rule with every public function instantiated and optimised
# (-fsyntax-only runs no optimiser, so it never sees -Wmaybe-uninitialized):
# src/librepdl.c, which compiles them all, at -O2 as C99 (gcc) and C++17
# (g++), the compilers whose optimiser warns most.
lib=$inc/../src/librepdl.c
if [ -f "$lib" ]; then
  for cfg in "gcc c c99" "g++ c++ c++17"; do
    read -r cc lang std <<<"$cfg"
    command -v "$cc" > /dev/null || { echo "not installed: $cc"; continue; }
    try "$cc -std=$std -O2 librepdl.c" "$cc" -x "$lang" -std="$std" -O2 -Wall -Wextra -pedantic \
      -Werror -I"$inc" -c "$lib" -o "$out/lib.o"
    echo "ok: $cc -std=$std -O2, src/librepdl.c"
  done
fi
if [ -n "$nvcc" ] && command -v "$nvcc" > /dev/null; then
  printf '#include <repdl/repdl.h>\n__global__ void k(float *y) { *y = repdl_exp_f32(*y); }\n' > "$out/tu.cu"
  try "nvcc -std=c++14" "$nvcc" -std=c++14 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
    -I"$inc" -arch=sm_80 -c "$out/tu.cu" -o "$out/tu.o"
  try "nvcc -std=c++17" "$nvcc" -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
    -I"$inc" -arch=sm_80 -c "$out/tu.cu" -o "$out/tu.o"
  echo "ok: nvcc (c++14, c++17)"
else
  echo "not installed: nvcc"
fi
echo "$ran compilations, $fail failed"
[ $ran -gt 0 ] && [ $fail -eq 0 ]
