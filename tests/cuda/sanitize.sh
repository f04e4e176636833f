#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cuda/sanitize.sh: compute-sanitizer over the CUDA tests' short runs.
#   sanitize.sh TEST_MAP TEST_REDUCE
# memcheck on both (with leak check on the maps), racecheck, synccheck and
# initcheck on the reductions (shared memory, barriers, the last-block
# ticket, the workspace).  Exits 77
# ("skipped") when there is no GPU or no compute-sanitizer: never a pass
# without having run.
set -u
map=$1; red=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$red" --small > /dev/null
rc=$?
if [ $rc -eq 77 ]; then echo "skipped: no GPU"; exit 77; fi
if [ $rc -ne 0 ]; then echo "FAIL: $red --small failed (rc $rc) before sanitizing"; exit 1; fi

cs=
for c in "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
         "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/compute-sanitizer" \
         "$(command -v compute-sanitizer 2>/dev/null)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then cs=$c; break; fi
done
if [ -z "$cs" ]; then echo "skipped: compute-sanitizer not found (CUDA_HOME=${CUDA_HOME:-unset})"; exit 77; fi
echo "using $cs"

bad=0
run() {
    echo "== $*"
    "$cs" --error-exitcode 99 "$@" > "$log" 2>&1
    local r=$?
    tail -3 "$log"
    if [ $r -ne 0 ]; then echo "FAIL (rc $r)"; grep -m 20 -E "=========" "$log"; bad=1; fi
}
# No leak check on the reductions: their workspace comes from the stream-
# ordered pool (cudaMallocAsync), which keeps freed memory for reuse.
run --tool memcheck "$red" --small --seed 1
run --tool memcheck --leak-check full "$map" --small
run --tool racecheck --racecheck-report all "$red" --small --seed 2
run --tool synccheck "$red" --small --seed 3
run --tool initcheck "$red" --small --seed 4
[ $bad -eq 0 ] && echo "compute-sanitizer: clean" || echo "compute-sanitizer: FAIL"
exit $bad
