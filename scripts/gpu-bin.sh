#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-bin.sh: builds the GPU executables here (nvcc, no GPU needed)
# for sm_90 (H100/H200) and copies them, with the Fashion-MNIST files, into
# .gpu-bin/ and .gpu-data/ (both git-ignored), for tests/cuda/run_all.sh
# --bin .gpu-bin --data .gpu-data on a machine with a GPU.
#   gpu-bin.sh [ARCHS]     ARCHS: the sm_archs option, default 90
set -euo pipefail
cd "$(dirname "$0")/.."
archs=${1:-90}
[ -d build-gpu ] || meson setup build-gpu -Dsm_archs="$archs" --buildtype=release
meson configure build-gpu -Dsm_archs="$archs"
exes="test_cuda_args test_cuda_map test_cuda_reduce test_cuda_gemm test_cuda_nn_rng_optim
      test_cuda_nn_softmax_norm test_cuda_nn_act_pool train_fmnist_cuda
      bench_cuda_map bench_cuda_reduce bench_cuda_gemm"
[ -f bench/cuda/bench_nn.cu ] && exes="$exes bench_cuda_nn"
targets=()
for e in $exes; do targets+=("cuda/$e"); done
ninja -C build-gpu "${targets[@]}"
rm -rf .gpu-bin && mkdir -p .gpu-bin .gpu-data
for e in $exes; do cp "build-gpu/cuda/$e" .gpu-bin/; done
cp /usr/share/datasets/fashion-mnist/*.gz .gpu-data/
git rev-parse HEAD > .gpu-bin/COMMIT
git status --short >> .gpu-bin/COMMIT
