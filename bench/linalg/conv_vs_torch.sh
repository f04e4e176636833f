#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# repdl's conv2d (bench_conv) against PyTorch's CPU conv2d on the same
# shapes, at 1 and 2 threads, ratios printed (docs/bench-linalg.md).
#   bash bench/linalg/conv_vs_torch.sh [BENCH_CONV] [--reps R]
# BENCH_CONV defaults to build/bench/linalg/bench_conv.  The Python is the
# first of $PYTHON, python3, /usr/bin/python3 that imports torch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/bench/linalg/bench_conv}
[ $# -gt 0 ] && shift
py=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c 'import torch' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then echo "conv_vs_torch: no Python with torch: skipped"; exit 77; fi
echo "load before: $(cat /proc/loadavg)"
exec nice -n 5 "$py" "$here/bench_conv_torch.py" --repdl "$bin" --threads 1,2 "$@"
