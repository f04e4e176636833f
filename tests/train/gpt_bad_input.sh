#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/gpt_bad_input.sh: examples/train_gpt's answers to bad input,
# each an exit status and a message, and --generate from a checkpoint:
#   missing corpus (exit 4, the message names jargon-text), usage errors
#   (exit 2), a corrupt, truncated or foreign checkpoint and one of another
#   configuration (exit 5); --generate prints the same sample at 1 and 3
#   threads, and the sample of the run that saved the checkpoint.
#
#   gpt_bad_input.sh EXE
set -uo pipefail
exe=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-gpt-bad.XXXXXX")
trap 'rm -rf "$dir"' EXIT
small=(--layers 1 --dmodel 8 --heads 2 --ctx 8 --batch 2 --steps 3 --val-seqs 2)
pass=0 fail=0
expect() { # expect STATUS PATTERN -- args...
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$exe" "$@" 2>&1); rc=$?
  if [ "$rc" = "$want" ] && grep -q -- "$pat" <<<"$out"; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL: $* -> exit $rc (want $want, /$pat/):"; echo "$out" | head -5; fi
}
expect 4 'jargon-text' -- "${small[@]}" --data "$dir/none.gz"
expect 2 'unknown argument' -- --frobnicate
expect 2 'needs a valid value' -- --heads 0
expect 2 'needs a valid value' -- --lr nan
expect 2 'dmodel must be' -- --dmodel 10 --heads 4
expect 2 'dmodel must be' -- --dmodel 6 --heads 2
expect 2 'needs --resume' -- --generate
expect 2 'needs --save' -- "${small[@]}" --stop-at 2
# a tiny corpus: fewer windows than the batch
printf 'abc' > "$dir/tiny.txt"
expect 4 'fewer than --batch' -- "${small[@]}" --data "$dir/tiny.txt"
# a checkpoint, then damaged copies of it
out=$("$exe" "${small[@]}" --quiet --save "$dir/ck") || { echo "FAIL: the run that saves"; exit 1; }
sample=$(grep '^sample_sha256' <<<"$out")
[ -s "$dir/ck" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no checkpoint"; }
ls "$dir" | grep -q '\.tmp\.' && { fail=$((fail + 1)); echo "FAIL: temporary file left"; }
size=$(stat -c %s "$dir/ck")
head -c $((size - 1)) "$dir/ck" > "$dir/trunc"
cp "$dir/ck" "$dir/flip"; printf '\x01' | dd of="$dir/flip" bs=1 seek=200 conv=notrunc status=none
cp "$dir/ck" "$dir/long"; printf 'x' >> "$dir/long"
printf 'RPDLCKPT' > "$dir/foreign"
for f in trunc flip long foreign; do
  expect 5 'corrupt' -- "${small[@]}" --resume "$dir/$f"
done
expect 5 'other options' -- "${small[@]}" --lr 0.5 --resume "$dir/ck"
expect 5 'other options' -- "${small[@]}" --steps 2 --resume "$dir/ck"
expect 5 'No such file' -- "${small[@]}" --resume "$dir/missing"
# --generate: the checkpoint's own sample, at 1 and 3 threads
g1=$("$exe" --generate --resume "$dir/ck" --threads 1 2>&1 | grep '^sample_sha256')
g3=$("$exe" --generate --resume "$dir/ck" --threads 3 2>&1 | grep '^sample_sha256')
if [ -n "$g1" ] && [ "$g1" = "$sample" ] && [ "$g3" = "$g1" ]; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: --generate: '$g1' '$g3', the run printed '$sample'"; fi
expect 0 '^prompt "hello"' -- --generate --resume "$dir/ck" --prompt hello
expect 2 'prompt is empty' -- --generate --resume "$dir/ck" --prompt ''
echo "gpt_bad_input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
