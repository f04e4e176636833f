#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/golden/derive.sh: derives tests/golden/hashes.txt from the
# independent sources (derive.c: the MPFR oracle of reference/oracle.h for
# the functions, the reference definitions of reference/reduce_ref.h for
# the reductions), never from the code under test.  Run once; commit the
# result.  hashes.txt records, above each section, the command that made it.
#
#   tests/golden/derive.sh            the sampled tables (strides 256 and 4096, pure
#                                     MPFR, cross-checked with the screened
#                                     oracle) and the reductions; keeps the
#                                     full-table section of the old file
#   tests/golden/derive.sh --full     also the full 2^32 tables (screened
#                                     oracle, 2 threads: about 20 minutes)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
full=0
[ "${1:-}" = --full ] && full=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/repdl-derive.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The oracle is built without contraction, like reference/hardcases.
build=(cc -std=c99 -O2 -ffp-contract=off -Iinclude tests/golden/derive.c -o "$tmp/derive"
       -lmpfr -lgmp -lm -lpthread)
"${build[@]}"
mpfr=$(printf '#include <mpfr.h>\nMPFR_VERSION_STRING\n' | cc -E -P - | tail -1 | tr -d '"')
glibc=$(ldd --version 2>&1 | sed -n '1s/.* //p')

{
  echo "# Golden hashes of repdl (tests/golden/golden_core.h defines them; docs/matrix.md)."
  echo "# Derived by tests/golden/derive.sh on $(date -u +%Y-%m-%d) from the MPFR oracle (MPFR $mpfr,"
  echo "# glibc $glibc for the screen) and reference/reduce_ref.h, never from the code under test."
  echo "# derive built with: ${build[*]/#$tmp\//}"
  echo "# section: sampled tables, stride 256 (2^24 inputs per function) and 4096 (2^20)"
  echo "#   derive --mode mpfr --stride S --no-reductions --threads 2"
  echo "#   (checked equal to: derive --mode screened --stride S --no-reductions)"
} >"$tmp/head"

: >"$tmp/sample"
for s in 256 4096; do
  nice "$tmp/derive" --mode mpfr --stride $s --no-reductions --threads 2 >"$tmp/s1"
  nice "$tmp/derive" --mode screened --stride $s --no-reductions --threads 2 >"$tmp/s2"
  if ! cmp -s "$tmp/s1" "$tmp/s2"; then
    echo "derive: pure MPFR and screened oracle disagree:"; diff "$tmp/s1" "$tmp/s2"; exit 1
  fi
  cat "$tmp/s1" >>"$tmp/sample"
done

{
  echo "# section: reductions and batched rows"
  echo "#   derive --no-tables"
} >"$tmp/redhead"
nice "$tmp/derive" --no-tables >"$tmp/red"

if [ $full = 1 ]; then
  {
    echo "# section: full tables (all 2^32 inputs)"
    echo "#   derive --mode screened --full --no-reductions --threads 2"
  } >"$tmp/fullhead"
  nice "$tmp/derive" --mode screened --full --no-reductions --threads 2 >"$tmp/full"
  cat "$tmp/fullhead" "$tmp/full" >"$tmp/fullsec"
elif [ -f tests/golden/hashes.txt ]; then
  # keep the old full-table section as it is
  sed -n '/^# section: full tables/,$p' tests/golden/hashes.txt >"$tmp/fullsec"
else
  : >"$tmp/fullsec"
fi

cat "$tmp/head" "$tmp/sample" "$tmp/redhead" "$tmp/red" "$tmp/fullsec" >tests/golden/hashes.txt
echo "derive: wrote tests/golden/hashes.txt ($(grep -vc '^#' tests/golden/hashes.txt) hashes)"
