#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/gpt_variant.sh: builds examples/train_gpt.c one way, outside
# meson, and checks that it prints the published lines of a section of
# expected.txt (check.sh).
#
#   gpt_variant.sh ROOT EXPECTED VARIANT SECTION [extra args...]
#
# VARIANT (the builds of variant.sh that need no emulator):
#   gcc-O0              gcc -std=c99 -O0
#   clang-native-fast   clang -std=c99 -O3 -march=native -ffp-contract=fast
#   gxx-O2              g++ -x c++ -std=c++17 -O2 (the source as C++)
#   gcc-x86-64-fast     gcc -O3 -march=x86-64 -ffp-contract=fast
# A missing compiler makes the test SKIP (exit 77), never a pass.
set -euo pipefail
root=$1 expected=$2 variant=$3 section=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-gpt.XXXXXX")
trap 'rm -rf "$dir"' EXIT
need() { command -v "$1" >/dev/null 2>&1 || { echo "gpt_variant: SKIP: $1 not installed"; exit 77; }; }
case $variant in
  gcc-O0) need gcc; cmd=(gcc -std=c99 -O0);;
  clang-native-fast) need clang; cmd=(clang -std=c99 -O3 -march=native -ffp-contract=fast);;
  gxx-O2) need g++; cmd=(g++ -x c++ -std=c++17 -O2);;
  gcc-x86-64-fast) need gcc
    [ "$(uname -m)" = x86_64 ] || { echo "gpt_variant: SKIP: not an x86-64 host"; exit 77; }
    cmd=(gcc -std=c99 -O3 -march=x86-64 -ffp-contract=fast);;
  *) echo "gpt_variant: unknown variant $variant"; exit 2;;
esac
echo "gpt_variant: ${cmd[*]} examples/train_gpt.c"
nice "${cmd[@]}" -I"$root/include" "$root/examples/train_gpt.c" -o "$dir/train_gpt" -lz -lpthread
bash "$root/tests/train/check.sh" "$dir/train_gpt" "$expected" "$section" "$@"
