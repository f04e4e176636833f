#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cuda/sanitize.sh: compute-sanitizer over the CUDA tests' short runs
# (--small).
#   sanitize.sh EXE...      each EXE a tests/cuda test (test_cuda_NAME)
# memcheck on every test (with leak check where nothing comes from the
# stream-ordered pool), racecheck and synccheck on every test that launches
# kernels with shared memory or barriers, initcheck on the reductions and
# softmax/norms (workspace, last-block ticket).  Each run is limited to
# SANITIZE_TIMEOUT seconds (default 900).  Exits 77 ("skipped") when there
# is no GPU or no compute-sanitizer: never a pass without having run.
set -u
[ $# -gt 0 ] || { echo "usage: $0 EXE..."; exit 2; }
limit=${SANITIZE_TIMEOUT:-900}
log=$(mktemp)
trap 'rm -f "$log" "$log.cs"' EXIT

"$1" --small > /dev/null 2>&1
rc=$?
if [ $rc -eq 77 ]; then echo "skipped: no GPU"; exit 77; fi

cs=
for c in "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
         "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/compute-sanitizer" \
         "$(command -v compute-sanitizer 2>/dev/null)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then cs=$c; break; fi
done
if [ -z "$cs" ]; then echo "skipped: compute-sanitizer not found (CUDA_HOME=${CUDA_HOME:-unset})"; exit 77; fi
echo "using $cs ($("$cs" --version | grep -m1 Version))"

bad=0 runs=0
# A run passes only when compute-sanitizer exits 0 and its own log (--log-file)
# holds its clean summary: "ERROR SUMMARY: 0 errors", or for racecheck
# "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" (run with
# --racecheck-report all, so warnings count too).  A run that printed no
# summary did not run.
clean_re='ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)'

run() {
    local t0=$SECONDS r
    echo "== $*"
    timeout "$limit" "$cs" --error-exitcode 99 --log-file "$log.cs" "$@" > "$log" 2>&1
    r=$?
    runs=$((runs + 1))
    echo "   program output (last lines):"
    tail -n 3 "$log" | sed 's/^/   | /'
    echo "   compute-sanitizer:"
    sed 's/^/   | /' "$log.cs" 2>/dev/null | tail -n 5
    if [ $r -eq 0 ] && grep -Eq "$clean_re" "$log.cs" 2>/dev/null; then
        echo "clean ($((SECONDS - t0)) s)"
    else
        echo "FAIL (rc $r$([ $r -eq 124 ] && echo ", timed out after $limit s")$(grep -Eq "ERROR SUMMARY|RACECHECK SUMMARY" "$log.cs" 2>/dev/null || echo ", no summary"))"
        grep -m 40 -E "=========" "$log.cs" 2>/dev/null
        bad=$((bad + 1))
    fi
    rm -f "$log.cs"
}
for exe in "$@"; do
    name=$(basename "$exe")
    name=${name#test_cuda_}
    args=(--small)
    case $name in args) args=() ;; reduce | linalg) args+=(--seed 1) ;; esac
    # the reductions and losses take their workspace from the stream-ordered
    # pool (cudaMallocAsync), which keeps freed memory for reuse: no leak check
    case $name in
    math | args | linalg | nn_act_pool) run --tool memcheck --leak-check full "$exe" "${args[@]}" ;;
    *) run --tool memcheck "$exe" "${args[@]}" ;;
    esac
    case $name in
    math | args) ;;
    *)
        run --tool racecheck --racecheck-report all "$exe" "${args[@]}"
        run --tool synccheck "$exe" "${args[@]}"
        ;;
    esac
    case $name in
    reduce | nn_softmax_norm) run --tool initcheck "$exe" "${args[@]}" ;;
    esac
done
[ $bad -eq 0 ] && echo "compute-sanitizer: $runs runs, clean" ||
    echo "compute-sanitizer: $runs runs, $bad FAILED"
[ $bad -eq 0 ]
