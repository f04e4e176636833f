#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/golden/derive.sh: derives tests/golden/hashes.txt from the
# independent sources (derive.c: the MPFR oracle of reference/oracle.h for
# the functions, the reference definitions of reference/reduce_ref.h for
# the reductions), never from the code under test.  Run once; commit the
# result.  hashes.txt records, above each section, the command that made it.
#
#   tests/golden/derive.sh            the sampled binary32 tables (strides 256
#                                     and 4096, pure MPFR, cross-checked with
#                                     the screened oracle), the 16-bit tables
#                                     (all 2^16 inputs, pure MPFR, cross-checked
#                                     with the screen), the reductions; keeps
#                                     the full-table section of the old file
#                                     (about 3 minutes on 2 cores)
#   tests/golden/derive.sh --full     also the full 2^32 tables of the base
#                                     functions expf, logf, tanhf, sqrtf
#                                     (screened oracle, 2 threads: about 20
#                                     minutes)
# The sets (golden_core.h): base = expf logf tanhf sqrtf; more = the other
# binary32 functions; half = the bf16 and f16 forms; red = the reductions.
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
  echo "#   derive --mode mpfr --stride S --sets base --threads 2"
  echo "#   (checked equal to: derive --mode screened --stride S --sets base)"
} >"$tmp/head"

# Runs derive twice, pure MPFR and screened, with the given arguments;
# appends the output to file $1 when the two agree, stops otherwise.
both_modes() {
  local out=$1; shift
  nice "$tmp/derive" --mode mpfr "$@" >"$tmp/s1"
  nice "$tmp/derive" --mode screened "$@" >"$tmp/s2"
  if ! cmp -s "$tmp/s1" "$tmp/s2"; then
    echo "derive: pure MPFR and screened oracle disagree ($*):"; diff "$tmp/s1" "$tmp/s2"; exit 1
  fi
  cat "$tmp/s1" >>"$out"
}

: >"$tmp/sample"
for s in 256 4096; do both_modes "$tmp/sample" --stride $s --sets base --threads 2; done

{
  echo "# section: the other binary32 functions, sampled tables, stride 4096 (2^20 inputs"
  echo "# per function; every matrix cell) and 256 (2^24; the full-table cells), derived $(date -u +%Y-%m-%d)"
  echo "#   derive --mode mpfr --stride-more S --sets more --threads 2"
  echo "#   (checked equal to: derive --mode screened --stride-more S --sets more)"
} >"$tmp/more"
for s in 4096 256; do both_modes "$tmp/more" --stride-more $s --sets more --threads 2; done

{
  echo "# section: bfloat16 and float16 forms, all 2^16 inputs, F(x) rounded once to the"
  echo "# format (MPFR, reference/half_ref.h's rounding), derived $(date -u +%Y-%m-%d)"
  echo "#   derive --mode mpfr --sets half"
  echo "#   (checked equal to: derive --mode screened --sets half)"
} >"$tmp/half"
both_modes "$tmp/half" --sets half

{
  echo "# section: reductions and batched rows"
  echo "#   derive --no-tables"
} >"$tmp/redhead"
nice "$tmp/derive" --no-tables >"$tmp/red"

if [ $full = 1 ]; then
  {
    echo "# section: full tables (all 2^32 inputs), derived $(date -u +%Y-%m-%d)"
    echo "#   derive --mode screened --full --sets base --threads 2"
  } >"$tmp/fullhead"
  nice "$tmp/derive" --mode screened --full --sets base --threads 2 >"$tmp/full"
  cat "$tmp/fullhead" "$tmp/full" >"$tmp/fullsec"
elif [ -f tests/golden/hashes.txt ]; then
  # keep the old full-table section as it is
  sed -n '/^# section: full tables/,$p' tests/golden/hashes.txt >"$tmp/fullsec"
else
  : >"$tmp/fullsec"
fi

cat "$tmp/head" "$tmp/sample" "$tmp/more" "$tmp/half" "$tmp/redhead" "$tmp/red" "$tmp/fullsec" \
  >tests/golden/hashes.txt
echo "derive: wrote tests/golden/hashes.txt ($(grep -vc '^#' tests/golden/hashes.txt) hashes)"
