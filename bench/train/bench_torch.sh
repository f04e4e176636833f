#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/train/bench_torch.sh: the LeNet-5 Fashion-MNIST job in repdl and in
# PyTorch's own CPU kernels, same run, at 1 and 2 threads (issue 16):
#   repdl C       examples/train_fmnist (--threads N: data parallel over
#                 micro-batches), its "time" line
#   repdl Python  examples/train_fmnist.py (repdl.nn through the extension,
#                 torch.set_num_threads(N)), its "time" line
#   PyTorch       bench/train/torch_lenet.py: the same model, data, batch,
#                 SGD and evaluations with torch.nn (OpenBLAS/oneDNN)
# Each time covers the training loop and its test-set evaluations, after
# the data are loaded (interpreter start-up and imports excluded).  The
# configurations run interleaved, REPS rounds, medians printed with the
# ratio repdl / PyTorch (below 1: repdl faster); every repdl run must
# print the same hashes (else FAIL).  Load (uptime) before and after.
# PyTorch absent: the PyTorch and Python columns are skipped with a message.
#
#   bench_torch.sh EXE [--reps R] [--threads "1 2"] [--steps K | --epochs E]
# meson: ninja -C build bench-train-torch (2 epochs, 5 rounds).  Never run by CI.
set -euo pipefail
exe=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=5 threads="1 2" job=(--epochs 2)
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2;;
    --threads) threads=$2; shift 2;;
    --steps|--epochs) job=("$1" "$2"); shift 2;;
    *) echo "bench_torch: unknown argument $1"; exit 2;;
  esac
done
PY=
for c in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import torch' >/dev/null 2>&1; then PY=$c; break; fi
done
[ -n "$PY" ] || echo "bench_torch: no Python with PyTorch: only the C program is timed"
if [ -n "$PY" ] && ! bash "$root/scripts/python.sh" build >/dev/null; then
  echo "bench_torch: the repdl Python package does not build: Python column skipped"; pyrepdl=0
else pyrepdl=1; fi
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2];
                                              else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
tline() { sed -n 's/^time \([0-9.]*\) s.*/\1/p' | tail -1; }
hashes() { grep -E '^(init_weights|trained_weights|test_logits)_sha256' | md5sum | cut -c1-12; }
declare -A T
ref=
echo "bench_torch: ${job[*]}, $reps rounds, $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
echo "bench_torch: load before: $(uptime | sed 's/.*load average/load average/')"
for ((i = 0; i < reps; i++)); do
  for t in $threads; do
    out=$("$exe" "${job[@]}" --threads "$t")
    T[c$t]+="$(tline <<<"$out") "; h=$(hashes <<<"$out"); ref=${ref:-$h}
    [ "$h" = "$ref" ] || { echo "bench_torch: FAIL: C --threads $t hashes differ"; exit 1; }
    if [ -n "$PY" ]; then
      if [ $pyrepdl = 1 ]; then
        out=$(PYTHONPATH=$root/python "$PY" "$root/examples/train_fmnist.py" "${job[@]}" --threads "$t")
        T[p$t]+="$(tline <<<"$out") "
        [ "$(hashes <<<"$out")" = "$ref" ] || { echo "bench_torch: FAIL: Python --threads $t hashes differ"; exit 1; }
      fi
      T[t$t]+="$("$PY" "$here/torch_lenet.py" "${job[@]}" --threads "$t" | tline) "
    fi
  done
done
printf '%-8s %12s %12s %12s %12s %12s\n' threads "repdl C s" "repdl Py s" "PyTorch s" "C/PyTorch" "Py/PyTorch"
for t in $threads; do
  mc=$(tr ' ' '\n' <<<"${T[c$t]}" | grep . | median)
  mp=$( [ -n "${T[p$t]:-}" ] && tr ' ' '\n' <<<"${T[p$t]}" | grep . | median || echo -)
  mt=$( [ -n "${T[t$t]:-}" ] && tr ' ' '\n' <<<"${T[t$t]}" | grep . | median || echo -)
  rc=-; rp=-
  [ "$mt" = - ] || rc=$(awk -v a="$mc" -v b="$mt" 'BEGIN { printf "%.3f", a / b }')
  [ "$mt" = - ] || [ "$mp" = - ] || rp=$(awk -v a="$mp" -v b="$mt" 'BEGIN { printf "%.3f", a / b }')
  printf '%-8s %12s %12s %12s %12s %12s\n' "$t" "$mc" "$mp" "$mt" "$rc" "$rp"
  echo "  runs: C ${T[c$t]}| Python ${T[p$t]:-} | PyTorch ${T[t$t]:-}"
done
echo "bench_torch: load after: $(uptime | sed 's/.*load average/load average/')"
