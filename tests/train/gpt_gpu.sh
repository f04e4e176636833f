#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/gpt_gpu.sh: the CUDA build of examples/train_gpt (train_gpt_cuda)
# with --device cuda must print the published [gpt-short] and
# [gpt-short-cr] lines of the CPU runs (tests/train/expected.txt), bit for
# bit.  Without a usable GPU the program exits 3 and this test prints
# "skipped: no GPU" and exits 77 (meson: SKIP).
#
#   gpt_gpu.sh EXE EXPECTED [extra args...]
set -uo pipefail
exe=$1 expected=$2
shift 2
here=$(dirname "$0")
# the device is set up before the data is read: a missing data file makes
# a usable GPU answer 4 and no GPU answer 3
"$exe" --device cuda --data /nonexistent-gpt-probe --quiet 2>"${TMPDIR:-/tmp}/gpt-gpu-probe.$$"
rc=$?
msg=$(cat "${TMPDIR:-/tmp}/gpt-gpu-probe.$$"); rm -f "${TMPDIR:-/tmp}/gpt-gpu-probe.$$"
if [ $rc -eq 3 ]; then echo "train-gpt-cuda: skipped: no GPU ($msg)"; exit 77; fi
[ $rc -eq 4 ] || { echo "train-gpt-cuda: FAIL: probe exit status $rc: $msg"; exit 1; }
set -e
bash "$here/check.sh" "$exe" "$expected" gpt-short --device cuda "$@"
bash "$here/check.sh" "$exe" "$expected" gpt-short-cr --device cuda "$@"
