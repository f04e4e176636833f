#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cuda/run_all.sh: every GPU test, the GPU training runs, the
# compute-sanitizer runs and the GPU benchmarks, on a machine with a GPU
# (docs/cuda.md, "Runs on a GPU"; the raw outputs are kept in results/).
#
#   run_all.sh [--bin DIR] [--out DIR] [--data DIR] [--gpt-data FILE] PHASE...
#
#   PHASE   info      the device, driver, CUDA version, nvidia-smi
#           tests     the meson suite's GPU tests (math, reduce, linalg, the
#                     NN families, args) and the published training runs
#           exhaustive  math over all 2^32 inputs of every function (map-all),
#                     the reduction at n > 2^32 (reduce-huge), the 2-epoch
#                     training run (train-full); each also a phase alone
#           sanitize  tests/cuda/sanitize.sh: compute-sanitizer memcheck on
#                     every GPU test (--small runs), racecheck, synccheck
#                     and initcheck where they apply
#           bench     bench_cuda_math, bench_cuda_reduce, bench_cuda_linalg,
#                     bench_cuda_nn, bench_cuda_attention (its forward
#                     against a plain flash-style kernel, and the host's bits)
#   --bin   the directory of the executables (test_cuda_*, bench_cuda_*,
#           train_fmnist_cuda, train_gpt_cuda), such as the copy of them that
#           scripts/gpu-bin.sh makes; default: those of the meson build in
#           build/ (build/tests/cuda, build/bench/cuda, build/cuda), linked
#           into build/gpu-bin, which this script builds (meson, nvcc) when
#           test_cuda_math does not exist.
#   --out   where each phase's log goes (default $OUT, else ./gpu-results)
#   --data  the Fashion-MNIST IDX files (default /usr/share/datasets/fashion-mnist)
#   --gpt-data  the GPT example's text (default
#           /usr/share/doc/jargon-text/jargon.txt.gz, Debian's jargon-text)
#
# Each step's output goes to OUT/PHASE.log, and one line per step to
# OUT/summary.txt: "PASS name (seconds)", "FAIL name (rc N)" or
# "SKIP name (why)".  The script exits 1 if any step failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="" out="${OUT:-$root/gpu-results}" data=/usr/share/datasets/fashion-mnist
gpt_data=/usr/share/doc/jargon-text/jargon.txt.gz
phases=()
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --gpt-data) gpt_data=$2; shift 2 ;;
    *) phases+=("$1"); shift ;;
    esac
done
[ ${#phases[@]} -gt 0 ] || phases=(info tests exhaustive sanitize bench)
mkdir -p "$out"
export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"

if [ -z "$bin" ]; then
    if [ ! -x "$root/build/tests/cuda/test_cuda_math" ]; then
        (cd "$root" && { [ -d build ] || meson setup build -Dsm_archs=90 --buildtype=release; } &&
            ninja -C build) > "$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
    fi
    bin=$root/build/gpu-bin
    mkdir -p "$bin"
    for f in "$root"/build/tests/cuda/test_cuda_* "$root"/build/bench/cuda/bench_cuda_* \
             "$root"/build/cuda/train_fmnist_cuda "$root"/build/cuda/train_gpt_cuda; do
        if [ -f "$f" ] && [ -x "$f" ]; then ln -sf "$f" "$bin/"; fi
    done
fi
bin=$(cd "$bin" && pwd)

summary=$out/summary.txt
failed=0
# step PHASE NAME TIMEOUT CMD...: runs CMD, its output appended to PHASE.log
step() {
    local phase=$1 name=$2 limit=$3
    shift 3
    local log=$out/$phase.log t0 t1 rc
    echo "===== $name: $*" >> "$log"
    t0=$(date +%s.%N)
    timeout "$limit" "$@" >> "$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    echo "===== $name: rc $rc, $secs s" >> "$log"
    if [ $rc -eq 0 ]; then
        echo "PASS $name ($secs s)" | tee -a "$summary"
    elif [ $rc -eq 77 ]; then
        echo "SKIP $name (exit 77: $(tail -n 3 "$log" | grep -m1 -i skip))" | tee -a "$summary"
    elif [ $rc -eq 124 ]; then
        echo "FAIL $name (timed out after $limit s)" | tee -a "$summary"; failed=1
    else
        echo "FAIL $name (rc $rc)" | tee -a "$summary"; failed=1
    fi
}

cs=$(command -v compute-sanitizer || true)

for phase in "${phases[@]}"; do
    echo "== phase $phase ($(date -u +%FT%TZ))" | tee -a "$summary"
    case $phase in
    info)
        {
            date -u
            uname -a
            nvidia-smi
            nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
            nvcc --version
            echo "compute-sanitizer: ${cs:-not found}"
            [ -n "$cs" ] && "$cs" --version
            nproc
            git -C "$root" log -1 --format='commit %H %s' 2>/dev/null || true
        } > "$out/info.log" 2>&1
        cat "$out/info.log"
        ;;
    tests)
        step tests cuda-args 300 "$bin/test_cuda_args"
        step tests cuda-math 600 "$bin/test_cuda_math"
        step tests cuda-reduce 900 "$bin/test_cuda_reduce" --seed 20261124
        step tests cuda-linalg 900 "$bin/test_cuda_linalg" --seed 20261124
        step tests cuda-rng-optim 600 "$bin/test_cuda_rng_optim"
        step tests cuda-nn-softmax-norm 900 "$bin/test_cuda_nn_softmax_norm"
        step tests cuda-nn-act-pool 900 "$bin/test_cuda_nn_act_pool"
        step tests cuda-backward 300 "$bin/test_cuda_backward"
        step tests cuda-gemm-cr 600 "$bin/test_cuda_gemm_cr" --seed 20261124
        step tests cuda-transformer 600 "$bin/test_cuda_transformer" --seed 20261124
        for s in tiny short; do
            step tests "train-cuda-$s" 900 bash "$root/tests/train/check.sh" "$bin/train_fmnist_cuda" \
                "$root/tests/train/expected.txt" "$s" --device cuda --data "$data"
        done
        # the GPT example on the GPU (examples/train_gpt_cuda.c): the CPU's
        # published [gpt-short] lines, FMA-chain and --gemm cr products
        for s in gpt-short gpt-short-cr; do
            step tests "train-gpt-cuda-$s" 900 bash "$root/tests/train/check.sh" "$bin/train_gpt_cuda" \
                "$root/tests/train/expected.txt" "$s" --device cuda --data "$gpt_data"
        done
        ;;
    exhaustive | map-all | reduce-huge | train-full)
        case $phase in exhaustive | map-all)
            step exhaustive cuda-math-all 1800 "$bin/test_cuda_math" --all ;; esac
        case $phase in exhaustive | reduce-huge)
            step exhaustive cuda-reduce-huge 1800 "$bin/test_cuda_reduce" --huge --seed 20261124 ;; esac
        case $phase in exhaustive | train-full)
            step exhaustive train-cuda-full 1800 bash "$root/tests/train/check.sh" "$bin/train_fmnist_cuda" \
                "$root/tests/train/expected.txt" full --device cuda --data "$data" ;; esac
        ;;
    sanitize)
        if [ -z "$cs" ]; then
            echo "SKIP sanitize (compute-sanitizer not found)" | tee -a "$summary"
            continue
        fi
        step sanitize compute-sanitizer 3000 bash "$here/sanitize.sh" \
            "$bin"/test_cuda_{math,reduce,linalg,rng_optim,nn_softmax_norm,nn_act_pool,args,gemm_cr,transformer}
        ;;
    bench)
        step bench bench-math 600 "$bin/bench_cuda_math"
        step bench bench-reduce 600 "$bin/bench_cuda_reduce" 30
        step bench bench-linalg 600 "$bin/bench_cuda_linalg"
        if [ -x "$bin/bench_cuda_nn" ]; then
            step bench bench-nn 600 "$bin/bench_cuda_nn"
        else
            echo "SKIP bench-nn (not built)" | tee -a "$summary"
        fi
        if [ -x "$bin/bench_cuda_attention" ]; then
            step bench bench-attention 600 "$bin/bench_cuda_attention"
        else
            echo "SKIP bench-attention (not built)" | tee -a "$summary"
        fi
        ;;
    *) echo "unknown phase $phase"; exit 2 ;;
    esac
done
echo "== $(grep -c '^PASS' "$summary") passed, $(grep -c '^FAIL' "$summary") failed, $(grep -c '^SKIP' "$summary") skipped (all phases so far)" | tee -a "$summary"
exit $failed
