#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/gpu.sh: the CUDA build of examples/train_fmnist
# (train_fmnist_cuda) with --device cuda must print the published hashes
# of the CPU runs (tests/train/expected.txt), bit for bit.  Without a usable
# GPU the program exits 3 and this test prints "skipped: no GPU" and exits
# 77 (meson: SKIP).
#
#   gpu.sh EXE EXPECTED
set -uo pipefail
exe=$1 expected=$2
here=$(dirname "$0")
# the backend is set up before any data is read: a missing data directory
# makes a usable GPU answer 4 and no GPU answer 3
"$exe" --device cuda --data /nonexistent-train-probe --quiet 2>"${TMPDIR:-/tmp}/train-gpu-probe.$$"
rc=$?
msg=$(cat "${TMPDIR:-/tmp}/train-gpu-probe.$$"); rm -f "${TMPDIR:-/tmp}/train-gpu-probe.$$"
if [ $rc -eq 3 ]; then echo "train-cuda: skipped: no GPU ($msg)"; exit 77; fi
[ $rc -eq 4 ] || { echo "train-cuda: FAIL: probe exit status $rc: $msg"; exit 1; }
set -e
bash "$here/check.sh" "$exe" "$expected" tiny --device cuda
bash "$here/check.sh" "$exe" "$expected" short --device cuda
# the host path of the same executable
bash "$here/check.sh" "$exe" "$expected" tiny --device cpu
