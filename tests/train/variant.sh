#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/variant.sh: builds examples/train_fmnist.c one way, outside
# meson, and checks that it prints the published hashes (check.sh).
#
#   variant.sh ROOT EXPECTED VARIANT SECTION [extra args...]
#
# VARIANT:
#   gcc-O0              gcc -std=c99 -O0
#   gcc-O3              gcc -std=c99 -O3
#   clang-native-fast   clang -std=c99 -O3 -march=native -ffp-contract=fast
#   gxx-O2              g++ -x c++ -std=c++17 -O2 (the sources as C++)
#   gcc-x86-64-fast     gcc -O3 -march=x86-64 -ffp-contract=fast (no FMA
#                       hardware in the ISA: repdl__fmaf's software path)
#   aarch64-qemu        aarch64-linux-gnu-gcc -O3 -ffp-contract=fast -static,
#                       run under qemu-aarch64; no arm64 zlib here, so it is
#                       built with -DTRAIN_NO_ZLIB and reads IDX files
#                       decompressed into a temporary directory
#   s390x-qemu          s390x-linux-gnu-gcc -std=gnu99 -O2 -static (big-endian,
#                       FMA contraction on: GNU C's default), run under
#                       qemu-s390x, data as aarch64-qemu; linked without -lm
#                       (config.h's SQEBR/SQDBR square roots)
# A compiler or emulator that is missing makes the test SKIP (exit 77):
# never a pass.
set -euo pipefail
root=$1 expected=$2 variant=$3 section=$4
shift 4
src=$root/examples/train_fmnist.c
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-train.XXXXXX")
trap 'rm -rf "$dir"' EXIT
need() { command -v "$1" >/dev/null 2>&1 || { echo "variant: SKIP: $1 not installed"; exit 77; }; }
runner=() data=()
case $variant in
  gcc-O0) need gcc; cmd=(gcc -std=c99 -O0);;
  gcc-O3) need gcc; cmd=(gcc -std=c99 -O3);;
  clang-native-fast) need clang; cmd=(clang -std=c99 -O3 -march=native -ffp-contract=fast);;
  gxx-O2) need g++; cmd=(g++ -x c++ -std=c++17 -O2);;
  gcc-x86-64-fast) need gcc
    [ "$(uname -m)" = x86_64 ] || { echo "variant: SKIP: not an x86-64 host"; exit 77; }
    cmd=(gcc -std=c99 -O3 -march=x86-64 -ffp-contract=fast);;
  aarch64-qemu|s390x-qemu)
    arch=${variant%-qemu}
    need "$arch-linux-gnu-gcc"; need "qemu-$arch"; need gzip
    if [ "$arch" = aarch64 ]; then
      cmd=(aarch64-linux-gnu-gcc -std=c99 -O3 -ffp-contract=fast -static -DTRAIN_NO_ZLIB)
    else
      # s390x: strict -std=c99 is refused there (FLT_EVAL_METHOD 1)
      cmd=(s390x-linux-gnu-gcc -std=gnu99 -O2 -static -DTRAIN_NO_ZLIB)
    fi
    runner=(--runner "qemu-$arch")
    src_data=/usr/share/datasets/fashion-mnist
    for a in "$@"; do [ "${prev:-}" = --data ] && src_data=$a; prev=$a; done
    mkdir "$dir/data"
    for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte \
             t10k-labels-idx1-ubyte; do
      if [ -f "$src_data/$f.gz" ]; then gzip -dc "$src_data/$f.gz" >"$dir/data/$f"
      else cp "$src_data/$f" "$dir/data/$f"; fi
    done
    data=(--data "$dir/data");;
  *) echo "variant: unknown variant $variant"; exit 2;;
esac
libs=(-lpthread)
case " ${cmd[*]} " in *" -DTRAIN_NO_ZLIB "*) ;; *) libs=(-lz "${libs[@]}");; esac
echo "variant: ${cmd[*]} $src"
t0=$(date +%s.%N)
nice "${cmd[@]}" -I"$root/include" "$src" -o "$dir/train_fmnist" "${libs[@]}"
echo "variant: built in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
bash "$root/tests/train/check.sh" "${runner[@]}" "$dir/train_fmnist" "$expected" "$section" \
  "$@" "${data[@]}"
