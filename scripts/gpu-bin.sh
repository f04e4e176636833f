#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-bin.sh: builds the GPU executables here (nvcc, no GPU needed)
# for sm_90 (H100/H200) and copies them, with the Fashion-MNIST files, into
# .gpu-bin/ and .gpu-data/ (both git-ignored), for tests/cuda/run_all.sh
# --bin .gpu-bin --data .gpu-data --gpt-data .gpu-data/jargon.txt.gz on a
# machine with a GPU.
#   gpu-bin.sh [ARCHS]     ARCHS: the sm_archs option, default 90
set -euo pipefail
cd "$(dirname "$0")/.."
archs=${1:-90}
[ -d build-gpu ] || meson setup build-gpu -Dsm_archs="$archs" --buildtype=release
meson configure build-gpu -Dsm_archs="$archs"
# the targets, by build directory: tests/cuda, cuda (the training demo), bench/cuda
targets=()
for e in args math reduce linalg rng_optim nn_softmax_norm nn_act_pool backward gemm_cr transformer; do
    targets+=("tests/cuda/test_cuda_$e")
done
targets+=(cuda/train_fmnist_cuda cuda/train_gpt_cuda)
for e in math reduce linalg nn attention; do
    targets+=("bench/cuda/bench_cuda_$e")
done
ninja -C build-gpu "${targets[@]}"
rm -rf .gpu-bin && mkdir -p .gpu-bin .gpu-data
for t in "${targets[@]}"; do cp "build-gpu/$t" .gpu-bin/; done
cp /usr/share/datasets/fashion-mnist/*.gz .gpu-data/
# the GPT example's text (run_all.sh --gpt-data .gpu-data/jargon.txt.gz)
cp /usr/share/doc/jargon-text/jargon.txt.gz .gpu-data/
git rev-parse HEAD > .gpu-bin/COMMIT
git status --short >> .gpu-bin/COMMIT
