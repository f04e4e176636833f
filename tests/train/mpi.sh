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
#   disagree-*        ranks started with different arguments (mpirun's
#                     MPMD form, `-np 1 EXE ARGS : -np 1 EXE OTHER`): a
#                     different --seed; --lr and --momentum; --steps;
#                     --stop-at; --test-limit; --batch (on ranks 1 and 2 of
#                     3); a training-label file with one label changed: the
#                     job stops before training, exit status non-zero,
#                     within 120 s (no hang), rank 0 names each differing
#                     option and rank, and no hash is printed
#   agree-threads-paths  what may differ: --threads, and the data given as
#                     other paths (plain files instead of --data's gzip)
#                     with the same bytes: the single-process output
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

# ---- ranks started with different arguments ----
# MPMD: rank 0 gets "$1", the next $3 ranks get "$2" (words split on spaces:
# $dir has none)
mpmd() {
  timeout 120 "$mpirun" --oversubscribe --allow-run-as-root -np 1 "$exe" $1 : \
    -np "${3:-1}" "$exe" $2
}
disagree() { # name "rank-0 args" "other args" nother regex...
  local name=$1 a0=$2 a1=$3 n=$4 rc re
  shift 4
  mpmd "$a0" "$a1" "$n" >"$dir/dis.out" 2>"$dir/dis.err"
  rc=$?
  if [ $rc -eq 124 ]; then bad "disagree-$name: hung (killed after 120 s)"; return; fi
  if [ $rc -eq 0 ]; then bad "disagree-$name: exit status 0"; return; fi
  if grep -q sha256 "$dir/dis.out"; then
    bad "disagree-$name: printed a hash: $(grep sha256 "$dir/dis.out" | head -1)"; return
  fi
  if ! grep -q 'started with different arguments or data' "$dir/dis.err"; then
    bad "disagree-$name: no message; stderr: $(head -3 "$dir/dis.err")"; return
  fi
  for re in "$@"; do
    if ! grep -Eq -- "$re" "$dir/dis.err"; then
      bad "disagree-$name: stderr does not match /$re/: $(grep '^  --' "$dir/dis.err")"; return
    fi
  done
  ok "disagree-$name: exit status $rc: $(grep '^  --' "$dir/dis.err" | tr '\n' ' ')"
}
base="${small[*]}"
disagree seed "$base" "$base --seed 2" 1 '^  --seed: rank 0 has 1, rank 1 has 2$'
disagree lr-momentum "$base" "$base --lr 0.01 --momentum 0.5" 1 \
  '^  --lr: rank 0 has 0\.0500000007 .*, rank 1 has 0\.00999999978 ' \
  '^  --momentum: rank 0 has 0\.899999976 .*, rank 1 has 0\.5 '
disagree steps "$base" "$base --steps 21" 1 '^  --steps: rank 0 has 20, rank 1 has 21$'
disagree stop-at "$base" "$base --stop-at 10" 1 '^  --stop-at: rank 0 has none, rank 1 has 10$'
disagree test-limit "$base" "$base --test-limit 400" 1 '^  --test-limit: rank 0 has 500, rank 1 has 400$'
disagree batch-rank2 "$base --batch 32" "$base --batch 48" 2 \
  '^  --batch: rank 0 has 32, rank 1 has 48, rank 2 has 48$'
# a training-label file with one label changed (plain IDX, made here); the
# other three files the same bytes as --data's gzip files, as plain files
data=/usr/share/datasets/fashion-mnist
python3 - "$data" "$dir" <<'PY' || bad "could not make the label files"
import gzip, sys
src, d = sys.argv[1], sys.argv[2]
for n in ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte',
          't10k-labels-idx1-ubyte'):
    with gzip.open(src + '/' + n + '.gz') as f: b = f.read()
    with open(d + '/' + n, 'wb') as f: f.write(b)
    if n == 'train-labels-idx1-ubyte':
        b = bytearray(b); b[8 + 12345] = (b[8 + 12345] + 1) % 10
        with open(d + '/other-labels', 'wb') as f: f.write(bytes(b))
PY
files="--train-images $dir/train-images-idx3-ubyte --test-images $dir/t10k-images-idx3-ubyte"
files+=" --test-labels $dir/t10k-labels-idx1-ubyte"
disagree train-labels "$base" "$base $files --train-labels $dir/other-labels" 1 \
  '^  --train-labels \(the file.s contents; --data\): rank 0 has sha256 [0-9a-f]{16}\.\.\., rank 1 has sha256 [0-9a-f]{16}\.\.\.$'
if [ "$(grep -c '^  --' "$dir/dis.err")" = 1 ]; then ok "disagree-train-labels: only that file is named"
else bad "disagree-train-labels: more than that file named: $(grep '^  --' "$dir/dis.err")"; fi
want=$("$exe" "${small[@]}")
got=$(mpmd "$base" "$base --threads 2 $files --train-labels $dir/train-labels-idx1-ubyte")
same "agree-threads-paths (rank 1: --threads 2, the same data as plain files)" "$want" "$got"

echo "mpi: $pass passed, $fail failed"
[ $fail -eq 0 ]
