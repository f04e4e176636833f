#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/gpt_twin.sh: examples/train_gpt.py (the Python twin) against
# examples/train_gpt.c on a configuration outside the published runs: every
# line the C program prints (init hash, each step's loss and gradient norm,
# trained weights, validation logits and loss, sample) must come out of
# the twin unchanged.
#
#   gpt_twin.sh EXE DATA       (DATA: the Jargon File, jargon.txt.gz)
#
# The configuration: one layer, d_model 12, 2 heads (head size 6, whose
# attention scale RN(1 / RN(sqrt 6)) is not RN(1 / sqrt 6)), context 24,
# batch 5 (not a power of two: an uneven buddy tree over the sequences), 30
# steps over a text of the first 3000 bytes (22 steps an epoch: a second
# permutation), seed 7, lr 0.02, weight decay 0.05, clip 0.5, 3 validation
# windows; the twin at 3 threads; with --gemm fma and --gemm cr.  No
# PyTorch: exit 77 (skipped).
set -euo pipefail
exe=$1 data=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpt-twin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# (head closes the pipe early: gzip's SIGPIPE status is expected)
gzip -dc "$data" | head -c 3000 >"$tmp/small.txt" || true
[ "$(wc -c <"$tmp/small.txt")" -eq 3000 ] || { echo "gpt_twin: cannot read 3000 bytes of $data"; exit 1; }
args=(--layers 1 --dmodel 12 --heads 2 --ctx 24 --batch 5 --steps 30 --lr 0.02 --wd 0.05
      --clip 0.5 --seed 7 --val-seqs 3 --data "$tmp/small.txt")
for gemm in fma cr; do
  want=$("$exe" "${args[@]}" --gemm $gemm)
  rc=0
  got=$(bash "$root/scripts/python.sh" run "$root/examples/train_gpt.py" "${args[@]}" --gemm $gemm \
        --threads 3) || rc=$?
  if [ $rc -eq 77 ]; then echo "$got"; echo "gpt_twin: SKIPPED (no PyTorch)"; exit 77; fi
  if [ $rc -ne 0 ]; then echo "$got"; echo "gpt_twin: FAIL: the twin's exit status $rc"; exit 1; fi
  n=$(printf '%s\n' "$want" | wc -l)
  [ "$n" -eq 36 ] || { echo "$want"; echo "gpt_twin: FAIL: the C program printed $n lines, not 36"; exit 1; }
  if [ "$got" != "$want" ]; then
    echo "gpt_twin: FAIL (--gemm $gemm): the twin differs from the C program:"
    diff <(echo "$want") <(echo "$got") || true
    exit 1
  fi
  echo "$got"
  echo "gpt_twin: PASS --gemm $gemm ($n lines the same)"
done
