#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/gpt_cuda_shim.sh: examples/train_gpt.c with its CUDA side
# (examples/train_gpt_cuda.c) linked against gpt_cuda_shim.c, the host
# stand-in for the CUDA runtime and the launchers, must print the published
# [gpt-short] and [gpt-short-cr] lines with --device cuda: a check of
# train_gpt_cuda.c's sequence of operations without a GPU.
#
#   gpt_cuda_shim.sh ROOT EXPECTED
#
# Needs the CUDA toolkit's headers (cuda_runtime_api.h: $CUDA_HOME/include,
# /usr/local/cuda/include); without them it SKIPs (exit 77), never passes.
set -euo pipefail
root=$1 expected=$2
inc=
for d in "${CUDA_HOME:-/usr/local/cuda}/include" /usr/local/cuda/include /usr/include; do
  if [ -f "$d/cuda_runtime_api.h" ]; then inc=$d; break; fi
done
[ -n "$inc" ] || { echo "gpt_cuda_shim: SKIP: no cuda_runtime_api.h (CUDA toolkit headers)"; exit 77; }
command -v gcc >/dev/null 2>&1 || { echo "gpt_cuda_shim: SKIP: gcc not installed"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-gpt-shim.XXXXXX")
trap 'rm -rf "$dir"' EXIT
nice gcc -std=c99 -O1 -Wall -Wextra -Werror -DTRAIN_HAVE_CUDA -I"$inc" -I"$root/include" \
  "$root/examples/train_gpt.c" "$root/examples/train_gpt_cuda.c" "$root/tests/train/gpt_cuda_shim.c" \
  -o "$dir/train_gpt" -lz -lpthread
for s in gpt-short gpt-short-cr; do
  bash "$root/tests/train/check.sh" "$dir/train_gpt" "$expected" "$s" --device cuda
done
