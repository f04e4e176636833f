#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/check.sh: runs examples/train_fmnist in one configuration
# (a section of tests/train/expected.txt) and requires it to print exactly
# the published lines of that section.
#
#   check.sh [--runner CMD] EXE EXPECTED SECTION [extra args...]
#
# A section of expected.txt is a line "[name] args..." followed by the
# lines the program prints with those args and --quiet (the hashes and the
# test accuracy).  Extra args (--threads 2, --data DIR, --resume F, ...)
# must not change them.
set -euo pipefail
runner=()
if [ "${1:-}" = --runner ]; then read -r -a runner <<<"$2"; shift 2; fi
exe=$1 expected=$2 section=$3
shift 3
hdr=$(grep -E "^\[$section\]( |$)" "$expected" || true)
[ -n "$hdr" ] || { echo "check: no section [$section] in $expected"; exit 1; }
read -r -a args <<<"${hdr#\[$section\]}"
want=$(awk -v s="[$section]" '
  $1 == s { on = 1; next }
  /^\[/ { on = 0 }
  on && !/^#/ && NF { print }' "$expected")
[ -n "$want" ] || { echo "check: section [$section] is empty"; exit 1; }
echo "check: ${runner[*]} $exe ${args[*]} --quiet $*"
t0=$(date +%s.%N)
got=$("${runner[@]}" "$exe" "${args[@]}" --quiet "$@") || {
  rc=$?; echo "$got"
  [ $rc -ne 77 ] || { echo "check: SKIPPED (the runner cannot run here)"; exit 77; }
  echo "check: FAIL: exit status $rc"; exit 1; }
t1=$(date +%s.%N)
echo "$got"
if [ "$got" != "$want" ]; then
  echo "check: FAIL: output differs from [$section] of $expected:"
  diff <(echo "$want") <(echo "$got") || true
  exit 1
fi
echo "check: PASS [$section] ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
