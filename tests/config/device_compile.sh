#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/config/device_compile.sh NVCC INCLUDE_DIR SOURCE.cu
# Compiles SOURCE (device code calling every repdl function) to an object
# with nvcc -arch=sm_80.  SKIP (77) without nvcc.
set -u
nvcc=$1 inc=$2 src=$3
if ! command -v "$nvcc" > /dev/null 2>&1; then echo "SKIP: nvcc not found"; exit 77; fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
"$nvcc" -arch=sm_80 -std=c++14 -I"$inc" -c "$src" -o "$out/device.o" || exit 1
echo "ok: $src compiles for sm_80"
