#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package python/repdl (docs/python.md): repdl from PyTorch.
#   scripts/python.sh build     build the extension repdl._C in place
#                               (python/repdl/_C*.so; python3 setup.py
#                               build_ext --inplace, one compile job, nice)
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
build() {
  mkdir -p python/build
  (cd python && MAX_JOBS=1 nice "$PY" setup.py -q build_ext --inplace >build/build.log 2>&1) || {
    tail -30 python/build/build.log
    echo "python: building repdl._C failed (log: python/build/build.log)"; exit 1; }
}
case "${1:-build}" in
  build) build ;;
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
    if ! "$PY" -c 'import pytest, numpy' >/dev/null 2>&1; then
      echo "python: SKIPPED: pytest or numpy missing (python3-pytest, python3-numpy: scripts/deps.sh)"
      exit 77
    fi
    [ -n "${REPDL_LIB:-}" ] || { [ -f build/librepdl.so ] && export REPDL_LIB=$PWD/build/librepdl.so; } || true
    junit=()
    [ -z "${2:-}" ] || junit=(--junitxml "$2")
    PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} nice "$PY" -m pytest -q -p no:cacheprovider \
      "${junit[@]}" python/tests
    ;;
  *) echo "usage: scripts/python.sh [build|install|demo|run SCRIPT [ARGS]|bench [ARGS]|test [JUNIT]]" >&2; exit 2 ;;
esac
