#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/mpi.sh: examples/train_fmnist as the ranks of an mpirun job
# against one process (docs/train.md, "Threads and MPI"):
#   ckpt-r2-bytes     --stop-at 120 --save at R = 2: the file equals the
#                     single-process checkpoint byte for byte
#   resume-r3         that checkpoint resumed at R = 3 (2 threads a rank):
#                     the [short] hashes of the uninterrupted run
#   ranks-gt-units    --batch 32 (2 micro-batches) at R = 3: a rank owns
#                     nothing, joins the allreduce; the single-process hashes
#   batch-50          --batch 50 (micro-batches 16, 16, 16, 2) at R = 2 with
#                     2 threads a rank: the single-process hashes
#   rank-dies         REPDL_TRAIN_DIE_AT=13:1 with --save-every 5 at R = 2:
#                     the job fails, the checkpoint of step 10 is whole (equal
#                     to the single-process one, no temporary file left) and
#                     resumed at R = 3 gives the uninterrupted result
# (The [short] runs at R = 1..4 are the train-mpi-np* tests, check.sh.)
#
#   mpi.sh EXE EXPECTED MPIRUN
set -uo pipefail
exe=$1 expected=$2 mpirun=$3
mpi() { local r=$1; shift; "$mpirun" --oversubscribe --allow-run-as-root -np "$r" "$@"; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-train-mpi.XXXXXX")
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
same() { # name "want" "got"
  if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1: the single-process output"
  else bad "$1: differs:"; diff <(echo "$2") <(echo "$3"); fi
}

hdr=$(grep -E '^\[short\]( |$)' "$expected")
read -r -a short <<<"${hdr#\[short\]}"

# ---- a checkpoint written by 2 ranks, resumed by 3 ----
"$exe" "${short[@]}" --quiet --stop-at 120 --save "$dir/one.ckpt" >/dev/null || bad "single --stop-at 120"
mpi 2 "$exe" "${short[@]}" --quiet --stop-at 120 --save "$dir/two.ckpt" >"$dir/out" || bad "R=2 --stop-at 120"
if cmp -s "$dir/one.ckpt" "$dir/two.ckpt"; then ok "ckpt-r2-bytes: equals the single-process checkpoint"
else bad "ckpt-r2-bytes: the checkpoints differ"; fi
ls "$dir" | grep -q '\.tmp\.' && bad "ckpt-r2: temporary file left behind"
if bash "$(dirname "$0")/check.sh" --runner "$mpirun --oversubscribe --allow-run-as-root -np 3" \
     "$exe" "$expected" short --resume "$dir/two.ckpt" --threads 2; then
  ok "resume-r3: the published [short] hashes"
else bad "resume-r3"; fi

# ---- more ranks than micro-batches; a batch that 16 does not divide ----
small=(--steps 20 --test-limit 500 --quiet)
want=$("$exe" "${small[@]}" --batch 32)
got=$(mpi 3 "$exe" "${small[@]}" --batch 32)
same "ranks-gt-units (--batch 32, 2 micro-batches, 3 ranks)" "$want" "$got"
want=$("$exe" "${small[@]}" --batch 50)
got=$(mpi 2 "$exe" "${small[@]}" --batch 50 --threads 2)
same "batch-50 (2 ranks x 2 threads)" "$want" "$got"

# ---- a rank that dies: the last periodic checkpoint stays whole ----
full=$("$exe" "${small[@]}" --batch 32)
"$exe" "${small[@]}" --batch 32 --stop-at 10 --save "$dir/ten.ckpt" >/dev/null
REPDL_TRAIN_DIE_AT=13:1 mpi 2 "$exe" "${small[@]}" --batch 32 --save "$dir/die.ckpt" \
  --save-every 5 >"$dir/die.out" 2>"$dir/die.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'rank 1 dies after step 13' "$dir/die.err"; then
  ok "rank-dies: the job failed (mpirun exit status $rc)"
else bad "rank-dies: exit status $rc; stderr: $(head -3 "$dir/die.err")"; fi
if cmp -s "$dir/ten.ckpt" "$dir/die.ckpt"; then ok "rank-dies: the checkpoint of step 10 is whole"
else bad "rank-dies: the checkpoint is not that of step 10"; fi
if ls "$dir" | grep -q '\.tmp\.'; then bad "rank-dies: temporary file left: $(ls "$dir")"; fi
got=$(mpi 3 "$exe" "${small[@]}" --batch 32 --resume "$dir/die.ckpt")
same "rank-dies: resumed at R = 3" "$full" "$got"

echo "mpi: $pass passed, $fail failed"
[ $fail -eq 0 ]
