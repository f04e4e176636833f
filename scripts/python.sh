#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package python/repdl (docs/python.md): repdl from PyTorch.
#   scripts/python.sh build     build the extension repdl._C in place
#                               (python/repdl/_C*.so; python3 setup.py
#                               build_ext --inplace, one compile job, nice):
#                               the CPU build, or the CUDA build when torch
#                               has CUDA and nvcc is found ($REPDL_TORCH_CUDA:
#                               1 forces it, 0 forbids it; python/setup.py)
#   scripts/python.sh build-cuda   the CUDA build in place (REPDL_TORCH_CUDA=1,
#                               nvcc needed; architectures $REPDL_CUDA_ARCHS,
#                               default meson's sm_archs).  With a torch that
#                               has no CUDA (Debian's) it compiles and links
#                               but no CUDA tensor can exist: `build` gives
#                               the CPU build back
#   scripts/python.sh check-cuda   the CUDA build's compile check (CI, test
#                               python-cuda-build): builds it in a temporary
#                               directory for sm_80 ($REPDL_CUDA_ARCHS),
#                               imports it, compiles cuda_ops.cpp against
#                               torch's CUDA headers where they are, and runs
#                               the pytest suite against it; no nvcc: exit 77
#   scripts/python.sh install   build, then make `import repdl` work for this
#                               user: a .pth file naming python/ in the user
#                               site-packages ($PYTHONUSERBASE honoured)
#   scripts/python.sh demo      build, then a 3-layer model from repdl.nn:
#                               forward and backward at 1 and 2 threads, the
#                               same hash
#   scripts/python.sh run SCRIPT [ARGS]  build, then SCRIPT with that Python
#                               (e.g. examples/train_fmnist.py)
#   scripts/python.sh bench [ARGS]   build, then bench/python/bench_torch.py:
#                               each repdl.ops op and a LeNet-5 step against
#                               PyTorch's CPU kernels, as ratios
#                               (docs/bench-python.md; --quick, --threads,
#                               --filter)
#   scripts/python.sh test [JUNIT]   build, then pytest python/tests (JUnit
#                               XML to JUNIT if given); the C library for the
#                               ctypes reference is $REPDL_LIB or
#                               build/librepdl.so (else the tests compile one)
# The Python is the first of $PYTHON, python3, /usr/bin/python3 that imports
# torch (Debian's python3-torch lives in /usr/bin/python3's dist-packages).
# Without PyTorch: prints why and exits 77 (the tests are skipped, never
# counted as passed).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=
for c in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import torch' >/dev/null 2>&1; then PY=$c; break; fi
done
if [ -z "$PY" ]; then
  echo "python: SKIPPED: no Python with PyTorch (install python3-torch: scripts/deps.sh); the repdl Python package is not built and its tests do not run"
  exit 77
fi
find_nvcc() {
  local c
  for c in ${NVCC:-} "$(command -v nvcc 2>/dev/null || true)" /usr/local/cuda/bin/nvcc; do
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  return 1
}
need_pytest() {
  if ! "$PY" -c 'import pytest, numpy' >/dev/null 2>&1; then
    echo "python: SKIPPED: pytest or numpy missing (python3-pytest, python3-numpy: scripts/deps.sh)"
    exit 77
  fi
}
build() {
  mkdir -p python/build
  (cd python && MAX_JOBS=1 nice "$PY" setup.py -q build_ext --inplace >build/build.log 2>&1) || {
    tail -30 python/build/build.log
    echo "python: building repdl._C failed (log: python/build/build.log)"; exit 1; }
}
case "${1:-build}" in
  build) build ;;
  build-cuda)
    nvcc=$(find_nvcc) || { echo "python: no nvcc (\$NVCC, PATH, /usr/local/cuda/bin): no CUDA build"; exit 1; }
    REPDL_TORCH_CUDA=1 NVCC=$nvcc build
    "$PY" -c 'import torch; print("python: built repdl._C with CUDA;",
        "torch has CUDA" if torch.version.cuda else
        "this torch has no CUDA: linked only (bash scripts/python.sh build gives the CPU build back)")'
    ;;
  check-cuda)
    nvcc=$(find_nvcc) || {
      echo "python-cuda: SKIPPED: no nvcc (\$NVCC, PATH, /usr/local/cuda/bin): the CUDA build of repdl._C is not compiled"
      exit 77; }
    need_pytest
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/repdl-cuda-ext.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    t0=$SECONDS
    (cd python && REPDL_TORCH_CUDA=1 REPDL_CUDA_ARCHS=${REPDL_CUDA_ARCHS:-80} NVCC=$nvcc \
       MAX_JOBS=${MAX_JOBS:-2} nice "$PY" setup.py -q build --build-base "$tmp/build" \
       >"$tmp/build.log" 2>&1) || {
      tail -30 "$tmp/build.log"; echo "python-cuda: the CUDA build of repdl._C failed"; exit 1; }
    lib=$(echo "$tmp"/build/lib.*)
    echo "python-cuda: CUDA build (REPDL_TORCH_CUDA=1, sm_${REPDL_CUDA_ARCHS:-80}, $nvcc) compiled and linked in $((SECONDS - t0)) s"
    PYTHONPATH=$lib "$PY" - "$lib" <<'PYCHECK'
import sys, torch, repdl
assert repdl.__file__.startswith(sys.argv[1]), repdl.__file__
assert repdl._C.cuda_built is True and repdl.cuda_built is True
n = sum(1 for k in dir(repdl._C) if k.startswith('cuda_') and callable(getattr(repdl._C, k)))
print(f'python-cuda: import repdl: cuda_built True, {n} cuda_* functions; '
      f'torch {torch.__version__}, torch CUDA {torch.version.cuda}, GPU {torch.cuda.is_available()}')
PYCHECK
    # cuda_ops.cpp as a torch with CUDA compiles it (REPDL_TORCH_CUDA_STREAM:
    # torch's current stream and device guard), syntax only: Debian's
    # libtorch-dev ships c10/cuda's headers but not the generated
    # cuda_cmake_macros.h (a stub here) and no libc10_cuda to link
    tinc=$("$PY" -c 'from torch.utils.cpp_extension import include_paths; print(" ".join("-I" + p for p in include_paths()))' 2>/dev/null)
    tdir=$("$PY" -c 'from torch.utils.cpp_extension import include_paths; print(include_paths()[0])' 2>/dev/null)
    if [ -f "$tdir/c10/cuda/CUDAStream.h" ]; then
      mkdir -p "$tmp/stub/c10/cuda/impl"
      [ -f "$tdir/c10/cuda/impl/cuda_cmake_macros.h" ] || printf '#pragma once\n' >"$tmp/stub/c10/cuda/impl/cuda_cmake_macros.h"
      pyinc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
      # the toolkit's headers, from nvcc itself (nvcc in PATH may be a wrapper script)
      cuda_inc=$("$nvcc" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 |
                 sed -n 's/^#\$ INCLUDES="-I\([^"]*\)".*/\1/p' | head -1)
      [ -n "$cuda_inc" ] || cuda_inc=$(dirname "$(dirname "$nvcc")")/include
      # shellcheck disable=SC2086
      nice "${CXX:-c++}" -fsyntax-only -std=c++14 -Wall -DREPDL_WITH_CUDA -DREPDL_TORCH_CUDA_STREAM \
        -DTORCH_EXTENSION_NAME=_C -DTORCH_API_INCLUDE_EXTENSION_H -Iinclude $tinc -I"$tmp/stub" \
        -I"$pyinc" -I"$cuda_inc" python/repdl/csrc/cuda_ops.cpp || {
        echo "python-cuda: cuda_ops.cpp does not compile against torch's CUDA headers"; exit 1; }
      echo "python-cuda: cuda_ops.cpp compiles against torch's CUDA headers (current stream, device guard)"
    else
      echo "python-cuda: no c10/cuda headers in $tdir: the torch-stream branch of cuda_ops.cpp not compiled"
    fi
    [ -n "${REPDL_LIB:-}" ] || { [ -f build/librepdl.so ] && export REPDL_LIB=$PWD/build/librepdl.so; } || true
    # the suite but its two slowest files (40 s of the ~50): test_distributed
    # and test_train run processes and training over the CPU paths, which
    # the CUDA build compiles from the same sources as the CPU build that
    # `scripts/python.sh test` checks with them
    REPDL_EXPECT_CUDA_BUILD=1 PYTHONPATH=$lib nice "$PY" -m pytest -q -p no:cacheprovider \
      -o cache_dir="$tmp/pytest" --ignore=python/tests/test_distributed.py \
      --ignore=python/tests/test_train.py python/tests
    echo "python-cuda: total $((SECONDS - t0)) s; no CUDA op was run (that needs a torch with CUDA and a GPU: python/tests/test_cuda.py)"
    ;;
  install)
    build
    site=$("$PY" -m site --user-site)
    mkdir -p "$site"
    echo "$PWD/python" > "$site/repdl.pth"
    echo "python: import repdl now works for $PY (wrote $site/repdl.pth -> $PWD/python)"
    ;;
  demo)
    build
    PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} "$PY" - <<'PYDEMO'
import hashlib, torch, repdl
repdl.random.manual_seed(1)
model = repdl.nn.Sequential(repdl.nn.Linear(64, 32), repdl.nn.GELU(), repdl.nn.Linear(32, 10))
x = torch.empty(256, 64)
repdl.random.normal_(x, 0.0, 1.0, seed=2, offset=0)
for t in (1, 2):
    torch.set_num_threads(t)
    model.zero_grad()
    y = model(x)
    repdl.ops.cross_entropy(y, torch.arange(256) % 10).backward()
    h = hashlib.sha256(y.detach().numpy().tobytes() + model[0].weight.grad.numpy().tobytes())
    print(f'repdl from PyTorch, {t} thread{"s" if t > 1 else ""}: outputs and gradients sha256 {h.hexdigest()[:16]}')
PYDEMO
    ;;
  run)
    build
    shift
    exec "$PY" "$@"
    ;;
  bench)
    build
    shift
    exec "$PY" bench/python/bench_torch.py "$@"
    ;;
  test)
    build
    need_pytest
    [ -n "${REPDL_LIB:-}" ] || { [ -f build/librepdl.so ] && export REPDL_LIB=$PWD/build/librepdl.so; } || true
    junit=()
    [ -z "${2:-}" ] || junit=(--junitxml "$2")
    PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} nice "$PY" -m pytest -q -p no:cacheprovider \
      "${junit[@]}" python/tests
    ;;
  *) echo "usage: scripts/python.sh [build|build-cuda|check-cuda|install|demo|run SCRIPT [ARGS]|bench [ARGS]|test [JUNIT]]" >&2; exit 2 ;;
esac
