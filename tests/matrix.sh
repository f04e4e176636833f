#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/matrix.sh: "same bits everywhere", checked.  Builds the golden test
# (tests/golden/golden.c) in every cell of a compiler x flags x architecture
# matrix, runs it, and checks that every cell prints the golden hashes of
# tests/golden/hashes.txt (derived from the MPFR oracle and the reference
# definitions, never from the code under test).  Also checks that builds
# which cannot be reproducible are refused with repdl's own #error.
#
#   tests/matrix.sh --quick     the CI subset (docs/matrix.md): 46 cells
#   tests/matrix.sh --full      every cell, 134 (the default)
#   options: --jobs N (default 2)  --stride S (default 256: 2^24 inputs per
#            function for expf, logf, tanhf, sqrtf; the other binary32
#            functions at 4096, the 16-bit ones on all 2^16 inputs)
#            --filter REGEX (cells whose id matches)  --list
#            --keep DIR (keep binaries and logs there)  --table FILE (also
#            write the markdown table there)  --no-deps
#
# Prints one markdown table row per cell: PASS, FAIL or SKIP (a cell whose
# compiler or emulator is missing: never counted as passing), then
# "matrix: N passed, N failed, N skipped".  Exit status 1 on any FAIL (or
# when nothing passed), 0 otherwise.  Cells run `nice`d, --jobs at a time.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# ---------------------------------------------------------------------------
# Cell definitions.  One line per cell, fields separated by '|':
#   id | kind | compiler | flags | runner | what [| expect]
# kind: golden (build and compare hashes), full (golden on all 2^32 inputs
# of expf, logf, tanhf, sqrtf), refuse (the build must fail with "repdl:
# refusing", and its message must match the extended regex `expect` when
# given: the fix it names), goldenobj (compiled with the flags, linked
# without), fpenv (compiled and linked with the flags, must stop at run
# time with repdl_fpenv_ok's message), fpenvlink (the same, with the flags
# after "@link" given to the link only).
# runner: "-" (native) or the qemu-user binary.
# ---------------------------------------------------------------------------
native_cells() {
  local cc lang std o m c
  for cc in gcc clang g++ clang++; do
    case $cc in g++|clang++) std="-x c++ -std=c++17";; *) std="-std=c99";; esac
    for o in O0 O2 O3; do
      for m in x86-64 x86-64-v3 native; do
        for c in off fast; do
          echo "$cc-$o-$m-$c|golden|$cc|$std -$o -march=$m -ffp-contract=$c|-|x86-64"
        done
      done
    done
  done
}

cross_cells() {
  local a q cc c
  for a in aarch64 powerpc64le riscv64 s390x i686; do
    case $a in
      aarch64) q=qemu-aarch64;; powerpc64le) q=qemu-ppc64le;; riscv64) q=qemu-riscv64;;
      s390x) q=qemu-s390x;;
      i686) q=-;;   # 32-bit x86 binaries run natively
    esac
    for cc in gcc clang; do
      for c in off fast; do
        local comp extra="" o=O2
        [ $c = fast ] && o=O3
        if [ $cc = gcc ]; then comp=$a-linux-gnu-gcc; else comp="clang --target=$a-linux-gnu"; fi
        local std=-std=c99
        [ $a = i686 ] && extra=" -msse2 -mfpmath=sse"
        # s390x: gcc's strict -std=c99 evaluates float in double
        # (FLT_EVAL_METHOD 1, refused: s390x_cells); -std=gnu99 does not
        [ $a = s390x ] && [ $cc = gcc ] && std=-std=gnu99
        echo "$a-$cc-$o-$c|golden|$comp|$std -$o -ffp-contract=$c -static$extra|$q|$a"
      done
    done
  done
}

refuse_cells() {
  local cc
  for cc in gcc clang g++ clang++; do
    local std="-std=c99"; case $cc in g++|clang++) std="-x c++ -std=c++17";; esac
    echo "refuse-$cc-ffast-math|refuse|$cc|$std -O2 -ffast-math|-|__FAST_MATH__"
  done
  echo "refuse-gcc-Ofast|refuse|gcc|-std=c99 -Ofast|-|__FAST_MATH__"
  echo "refuse-gcc-ffinite-math-only|refuse|gcc|-std=c99 -O2 -ffinite-math-only|-|__FINITE_MATH_ONLY__"
  echo "refuse-i686-gcc-x87|refuse|i686-linux-gnu-gcc|-std=c99 -O2 -mfpmath=387|-|FLT_EVAL_METHOD=2|-msse2 -mfpmath=sse"
  echo "refuse-i686-clang-x87|refuse|clang --target=i686-linux-gnu|-std=c99 -O2 -mfpmath=387|-|FLT_EVAL_METHOD=2|-msse2 -mfpmath=sse"
}

# s390x: gcc's strict standards (-std=c99, -std=c11) set FLT_EVAL_METHOD 1
# there (float arithmetic in double): refused, with a message that names
# s390x's own fixes, each of which must then give the golden hashes.
s390x_cells() {
  local std
  for std in c99 c11; do
    echo "s390x-gcc-std-$std|refuse|s390x-linux-gnu-gcc|-std=$std -O2|-|FLT_EVAL_METHOD=1|-std=gnu99 or -std=gnu11.*-fexcess-precision=fast"
  done
  echo "s390x-gcc-std-c99-fexcess-precision-fast|golden|s390x-linux-gnu-gcc|-std=c99 -fexcess-precision=fast -O3 -ffp-contract=fast -static|qemu-s390x|s390x"
}

# qemu-s390x without QEMU commit fed9a4fe0ce0 (8.1, stable 8.0.4; Debian
# 12's qemu-user 7.2 lacks it) computes MDEB/MDEBR, multiply short to long BFP, with
# the first operand read as a long: 1.0f x 3.0f gives
# 0x1.8p-6.  clang folds (double)a * (double)b of two floats into MDEBR
# (gelu's u * u, erf's accurate path); gcc does not.  A cell whose binary
# contains one under such a qemu cannot be judged and SKIPs
# (docs/matrix.md).  s390x_mdeb_ok CC PROBE: 0 when this qemu-s390x
# multiplies 1.0f (the left half of 0x3f80000000000000) by 3.0f as 3.0.
s390x_mdeb_ok() {
  printf '%s\n' '#include <string.h>' \
    'int main(void) {' \
    '    unsigned long long bits = 0x3f80000000000000ull;' \
    '    volatile float vb = 3.0f; float b = vb; double r;' \
    '    memcpy(&r, &bits, 8);' \
    '    __asm__("mdebr %0, %1" : "+f"(r) : "f"(b));' \
    '    return r == 3.0 ? 0 : 1;' \
    '}' >"$2.c"
  # shellcheck disable=SC2086
  nice $1 -O2 -static "$2.c" -o "$2" || return 2
  if qemu-s390x "$2"; then return 0; fi
  echo "matrix: qemu-s390x's MDEBR probe: 1.0f x 3.0f != 3.0 ($(qemu-s390x --version | head -1))"
  return 1
}

# One cell per value-changing flag (docs/flags.md): gcc announces each by a
# macro and repdl refuses it; clang announces none, and repdl's headers are
# immune (float_control pragmas), so the clang cells must give the golden
# hashes.  -funsafe-math-optimizations and -ffast-math also make the
# *link* add crtfastmath.o, which sets flush-to-zero for the whole process:
# no header can undo that, so the clang cell is compiled with the flag and
# linked without it (kind goldenobj), and a second cell links with it and
# must be refused at run time by repdl_fpenv_ok (kind fpenv).
# -fcx-limited-range changes complex arithmetic only (repdl has none);
# clang 14 does not accept it.
flag_cells() {
  local f id
  for f in "-funsafe-math-optimizations" "-fassociative-math -fno-signed-zeros -fno-trapping-math" \
           "-freciprocal-math" "-fno-signed-zeros"; do
    id=${f%% *}; id=${id#-}
    echo "flag-gcc-$id|refuse|gcc|-std=c99 -O3 $f|-|gcc macro"
    if [ "$id" = funsafe-math-optimizations ]; then
      echo "flag-clang-$id|goldenobj|clang|-std=c99 -O3 $f|-|x86-64"
      echo "flag-clang-$id-linked|fpenv|clang|-std=c99 -O3 $f|-|x86-64"
    else
      echo "flag-clang-$id|golden|clang|-std=c99 -O3 $f|-|x86-64"
    fi
  done
  echo "flag-clang++-fassociative-math|golden|clang++|-x c++ -std=c++17 -O3 -march=native -ffp-contract=fast -fassociative-math -fno-signed-zeros -fno-trapping-math -freciprocal-math|-|x86-64"
  echo "flag-gcc-fcx-limited-range|golden|gcc|-std=c99 -O3 -fcx-limited-range|-|x86-64"
  echo "flag-clang-ffinite-math-only|refuse|clang|-std=c99 -O2 -ffinite-math-only|-|__FINITE_MATH_ONLY__"
  echo "flag-clang-Ofast|refuse|clang|-std=c99 -Ofast|-|__FAST_MATH__"
  echo "flag-gcc-std-gnu89|refuse|gcc|-std=gnu89 -O2|-|C89"
  # gcc -fsingle-precision-constant defines no macro of its own (config.h
  # checks sizeof(1.0)); clang 14 ignores the flag (with a warning)
  echo "flag-gcc-fsingle-precision-constant|refuse|gcc|-std=c99 -O2 -fsingle-precision-constant|-|sizeof(1.0)|refusing to build with -fsingle-precision-constant"
  echo "flag-g++-fsingle-precision-constant|refuse|g++|-x c++ -std=c++17 -O2 -fsingle-precision-constant|-|sizeof(1.0)|refusing to build with -fsingle-precision-constant"
  echo "flag-clang-fsingle-precision-constant|golden|clang|-std=c99 -O2 -fsingle-precision-constant|-|x86-64"
  # rounding-mode assumptions: repdl runs in round-to-nearest either way
  echo "flag-gcc-frounding-math|golden|gcc|-std=c99 -O2 -frounding-math|-|x86-64"
  echo "flag-clang-frounding-math|golden|clang|-std=c99 -O2 -frounding-math|-|x86-64"
  echo "flag-gcc-fno-rounding-math|golden|gcc|-std=c99 -O3 -march=native -ffp-contract=fast -fno-rounding-math|-|x86-64"
  echo "flag-clang-fno-rounding-math|golden|clang|-std=c99 -O3 -march=native -ffp-contract=fast -fno-rounding-math|-|x86-64"
  # clang's -ffp-model: fast defines __FAST_MATH__; precise is the default;
  # strict adds -frounding-math and strict exception behaviour
  echo "flag-clang-ffp-model-fast|refuse|clang|-std=c99 -O2 -ffp-model=fast|-|__FAST_MATH__"
  echo "flag-clang-ffp-model-precise|golden|clang|-std=c99 -O2 -ffp-model=precise|-|x86-64"
  echo "flag-clang-ffp-model-strict|golden|clang|-std=c99 -O2 -ffp-model=strict|-|x86-64"
  # -fexcess-precision on i686: with SSE there is no excess precision to
  # treat (golden); on x87 FLT_EVAL_METHOD stays 2 (refused)
  local e
  for e in fast standard; do
    echo "flag-i686-gcc-sse-fexcess-precision-$e|golden|i686-linux-gnu-gcc|-std=c99 -O2 -static -msse2 -mfpmath=sse -fexcess-precision=$e|-|i686"
    echo "flag-i686-gcc-x87-fexcess-precision-$e|refuse|i686-linux-gnu-gcc|-std=c99 -O2 -mfpmath=387 -fexcess-precision=$e|-|FLT_EVAL_METHOD=2|-msse2 -mfpmath=sse"
  done
  # -ffast-math given to the link only (repdl's files compiled without it):
  # gcc adds crtfastmath.o, FTZ/DAZ for the whole process, which gcc 13's
  # -mdaz-ftz also sets (gcc 12 and clang 14 do not have that flag); the
  # golden program must stop with repdl_fpenv_ok's message
  echo "flag-gcc-ffast-math-link-only|fpenvlink|gcc|-std=c99 -O2 @link -ffast-math|-|x86-64"
}

# Full 2^32 tables: a few native cells (docs/matrix.md says why only these).
fulltable_cells() {
  echo "full-gcc-O3-native-fast|full|gcc|-std=c99 -O3 -march=native -ffp-contract=fast|-|x86-64"
  echo "full-clang-O2-x86-64-off|full|clang|-std=c99 -O2 -march=x86-64 -ffp-contract=off|-|x86-64"
}

# The CI subset: at least one qemu architecture, clang, a contracted
# -march=native build, C++, 32-bit, every refusal and every flag cell but
# the slower duplicates of quick_skip (the -fno-rounding-math and clang
# -ffp-model=precise cells repeat the default; the i686
# -fexcess-precision=standard cell the i686 cells).
quick_ids='^(gcc-O2-x86-64-off|gcc-O3-native-fast|gcc-O0-x86-64-fast|clang-O3-native-fast|clang-O0-x86-64-off|clang-O2-x86-64-v3-fast|g[+][+]-O2-x86-64-v3-fast|clang[+][+]-O3-native-fast|aarch64-gcc-O3-fast|aarch64-clang-O2-off|i686-gcc-O3-fast|refuse-.*|flag-.*|s390x-gcc-std-c(99|11))$'
quick_skip='^(flag-(gcc|clang)-fno-rounding-math|flag-clang-ffp-model-precise|flag-i686-gcc-sse-fexcess-precision-standard)$'

# ---------------------------------------------------------------------------
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# One cell: prints "id|status|digest|build_s|run_s|note" on its last line.
# ---------------------------------------------------------------------------
run_cell() {
  local line=$1 dir=$2 stride=$3
  local id kind comp flags runner what
  local expect
  IFS='|' read -r id kind comp flags runner what expect <<<"$line"
  local log="$dir/$id.log" bin="$dir/$id.bin" t0 t1 t2 first
  first=${comp%% *}
  if ! command -v "$first" >/dev/null 2>&1; then
    echo "$id|SKIP|-|-|-|$first not installed"; return
  fi
  if [ "$runner" != - ] && ! command -v "$runner" >/dev/null 2>&1; then
    echo "$id|SKIP|-|-|-|$runner not installed"; return
  fi
  t0=$(date +%s.%N)
  if [ "$kind" = refuse ]; then
    # the control build (same compiler, without the flag) must compile ...
    local ctl=${flags/-ffast-math/}; ctl=${ctl/-Ofast/-O2}; ctl=${ctl/-ffinite-math-only/}
    ctl=${ctl/-mfpmath=387/-msse2 -mfpmath=sse}; ctl=${ctl/-funsafe-math-optimizations/}
    ctl=${ctl/-fassociative-math/}; ctl=${ctl/-fno-signed-zeros/}; ctl=${ctl/-freciprocal-math/}
    ctl=${ctl/-std=gnu89/-std=c99}; ctl=${ctl/-fsingle-precision-constant/}
    ctl=${ctl/-ffp-model=fast/}
    if [[ $comp == s390x* ]]; then ctl=${ctl/-std=c99/-std=gnu99}; ctl=${ctl/-std=c11/-std=gnu11}; fi
    # shellcheck disable=SC2086
    if ! echo '#include <repdl/repdl.h>' | nice $comp $ctl -I"$ROOT/include" -fsyntax-only \
        $( [[ $flags == *c++* ]] || echo "-x c" ) - >"$log" 2>&1; then
      echo "$id|FAIL|-|-|-|control build without the flag failed (see $log)"; return
    fi
    # ... and the flagged one must fail with repdl's message
    # shellcheck disable=SC2086
    if echo '#include <repdl/repdl.h>' | nice $comp $flags -I"$ROOT/include" -fsyntax-only \
        $( [[ $flags == *c++* ]] || echo "-x c" ) - >"$log" 2>&1; then
      echo "$id|FAIL|-|-|-|compiled: no refusal"; return
    fi
    t1=$(date +%s.%N)
    if grep -q 'repdl: refusing' "$log" && { [ -z "$expect" ] || grep 'repdl: refusing' "$log" | grep -Eq -- "$expect"; }; then
      echo "$id|PASS|refused|$(secs "$t0" "$t1")|-|$what: $(grep -o 'repdl: refusing[^:(]*' "$log" | head -1)"
    elif grep -q 'repdl: refusing' "$log"; then
      echo "$id|FAIL|-|-|-|refused, but the message does not match /$expect/ (see $log)"
    else
      echo "$id|FAIL|-|-|-|failed without repdl's message (see $log)"
    fi
    return
  fi
  if [ "$kind" = goldenobj ]; then
    # compiled with the flags, linked without them (no crtfastmath.o)
    # shellcheck disable=SC2086
    if ! { nice $comp $flags -I"$ROOT/include" -I"$ROOT/tests/golden" -c "$ROOT/tests/golden/golden.c" \
             -o "$bin.o" && nice $comp "$bin.o" -o "$bin" -lpthread -lm; } >"$log" 2>&1; then
      echo "$id|FAIL|-|-|-|build failed (see $log)"; return
    fi
  elif [ "$kind" = fpenvlink ]; then
    # compiled without the flags after @link, linked with them
    local cflags=${flags%%@link*} lflags=${flags#*@link}
    # shellcheck disable=SC2086
    if ! { nice $comp $cflags -I"$ROOT/include" -I"$ROOT/tests/golden" -c "$ROOT/tests/golden/golden.c" \
             -o "$bin.o" && nice $comp $lflags "$bin.o" -o "$bin" -lpthread -lm; } >"$log" 2>&1; then
      echo "$id|FAIL|-|-|-|build failed (see $log)"; return
    fi
  # shellcheck disable=SC2086
  elif ! nice $comp $flags -I"$ROOT/include" -I"$ROOT/tests/golden" "$ROOT/tests/golden/golden.c" \
      -o "$bin" -lpthread -lm >"$log" 2>&1; then
    echo "$id|FAIL|-|-|-|build failed (see $log)"; return
  fi
  if [ "$runner" = qemu-s390x ]; then
    local prc=0 users
    s390x_mdeb_ok "$comp" "$dir/$id.probe" >>"$log" 2>&1 || prc=$?
    if [ $prc = 2 ]; then
      echo "$id|FAIL|-|-|-|the qemu-s390x MDEBR probe did not build (see $log)"; return
    elif [ $prc = 1 ]; then
      # no objdump: 0 users, and the cell runs (a wrong hash then FAILs)
      users=$(s390x-linux-gnu-objdump -d "$bin" 2>/dev/null | grep -cE $'\tmdebr?\t') || true
      if [ "${users:-0}" != 0 ]; then
        echo "$id|SKIP|-|-|-|this qemu-s390x miscomputes MDEB/MDEBR (first operand read as long; fixed by QEMU commit fed9a4fe0ce0: 8.1, stable 8.0.4), which this binary uses $users times: not judged here (see $log)"
        return
      fi
    fi
  fi
  if [ "$kind" = fpenv ] || [ "$kind" = fpenvlink ]; then
    # linked with the flag: the process runs with FTZ/DAZ, and the golden
    # program must stop with repdl_fpenv_ok's verdict, not print hashes
    t1=$(date +%s.%N)
    if "$bin" --hashes "$ROOT/tests/golden/hashes.txt" --stride 4096 >>"$log" 2>&1; then
      echo "$id|FAIL|-|-|-|ran under FTZ/DAZ without refusing"; return
    fi
    if grep -q 'flushes subnormals' "$log"; then
      echo "$id|PASS|refused|$(secs "$t0" "$t1")|-|crtfastmath.o sets FTZ/DAZ: refused at run time (repdl_fpenv_ok)"
    else
      echo "$id|FAIL|-|-|-|failed without the fpenv refusal (see $log)"
    fi
    return
  fi
  # i686 cells run natively where the kernel runs 32-bit code; a kernel
  # that refuses it (exec format error: IA32 emulation off, some VM
  # guests) runs them under qemu-i386, as the other cross cells
  local via=""
  if [ "$runner" = - ] && [ "$what" = i686 ] && ! i686_native "$comp" "$dir/$id.probe"; then
    if ! command -v qemu-i386 >/dev/null 2>&1; then
      echo "$id|SKIP|-|-|-|this kernel does not run i686 binaries and qemu-i386 is not installed"; return
    fi
    runner=qemu-i386 via=" (under qemu-i386: this kernel does not run i686 binaries)"
    echo "matrix: this kernel does not run i686 binaries: under qemu-i386" >>"$log"
    # qemu-i386 runs the SSE code several times slower than the other
    # qemu cells run theirs (docs/matrix.md): outside --full, the base
    # tables at stride 4096 as well (2^20 inputs each), hashed against
    # hashes.txt's s4096 lines
    if [ "$kind" != full ] && [ "$stride" -lt 4096 ]; then
      stride=4096 via=" (under qemu-i386, base tables at stride 4096: this kernel does not run i686 binaries)"
    fi
  fi
  t1=$(date +%s.%N)
  local args=(--hashes "$ROOT/tests/golden/hashes.txt")
  # full: the base tables on all 2^32 inputs, the other binary32 functions at
  # stride 256; every other cell: those at stride 4096 (golden.c's default)
  if [ "$kind" = full ]; then args+=(--full --stride-more 256 --threads 2); else args+=(--stride "$stride"); fi
  local rc=0 limit=1800
  [ "$kind" = full ] && limit=7200
  if [ "$runner" = - ]; then timeout $limit nice "$bin" "${args[@]}" >>"$log" 2>&1 || rc=$?
  else timeout $limit nice "$runner" "$bin" "${args[@]}" >>"$log" 2>&1 || rc=$?; fi
  [ $rc -eq 124 ] && echo "matrix: timed out after $limit s" >>"$log"
  t2=$(date +%s.%N)
  local digest summary
  # digest of all "name hash" lines: equal in every cell at the same stride
  digest=$(grep -E '^[a-z0-9_]+/[a-z0-9]+ +[0-9a-f]{64} ' "$log" | awk '{print $1, $2}' | sort |
           sha256sum | cut -c1-12)
  summary=$(grep '^golden:' "$log" | tail -1)
  local st=PASS; [ $rc -eq 0 ] || st=FAIL
  # a cell run at another stride than the matrix's names it in its digest
  [ "$stride" = "$3" ] || digest="s$stride:$digest"
  echo "$id|$st|$digest|$(secs "$t0" "$t1")|$(secs "$t1" "$t2")|${summary:-no summary, rc=$rc (see $log)}$via"
}

# i686_native CC PROBE: 0 when a static i686 program built by CC runs here
i686_native() {
  # shellcheck disable=SC2086
  printf 'int main(void) { return 0; }\n' | $1 -static -x c - -o "$2" >/dev/null 2>&1 && "$2" >/dev/null 2>&1
}

if [ "${1:-}" = --run-cell ]; then
  r=$(run_cell "$2" "$3" "$4")
  echo "$r"
  IFS='|' read -r _id _st _ _bs _rs _note <<<"$r"
  echo "matrix: $_id $_st (build $_bs s, run $_rs s)" >&2
  exit 0
fi

# ---------------------------------------------------------------------------
mode=full jobs=2 stride=256 filter='' keep='' table='' list=0 deps=1
while [ $# -gt 0 ]; do
  case $1 in
    --quick) mode=quick;; --full) mode=full;;
    --jobs) jobs=$2; shift;; --stride) stride=$2; shift;;
    --filter) filter=$2; shift;; --keep) keep=$2; shift;;
    --table) table=$2; shift;; --list) list=1;; --no-deps) deps=0;;
    *) sed -n '2,22p' "$0"; exit 2;;
  esac
  shift
done

cells=$( { native_cells; cross_cells; refuse_cells; s390x_cells; flag_cells; [ $mode = full ] && fulltable_cells; } )
[ $mode = quick ] && cells=$(awk -F'|' -v re="$quick_ids" -v skip="$quick_skip" '$1 ~ re && $1 !~ skip' <<<"$cells")
[ -n "$filter" ] && cells=$(awk -F'|' -v re="$filter" '$1 ~ re' <<<"$cells")
if [ $list = 1 ]; then echo "$cells"; exit 0; fi
[ -n "$cells" ] || { echo "matrix: no cell selected"; exit 1; }

[ $deps = 1 ] && { bash "$ROOT/scripts/deps-matrix.sh" || echo "matrix: deps-matrix.sh failed; missing tools will SKIP"; }

if [ -n "$keep" ]; then dir=$keep; mkdir -p "$dir"
else dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-matrix.XXXXXX"); trap 'rm -rf "$dir"' EXIT; fi

start=$(date +%s)
ncells=$(wc -l <<<"$cells")
echo "matrix: $mode, $ncells cells, $jobs jobs, function tables at stride $stride ($((4294967296 / stride)) inputs each); logs in $dir"
results=$(printf '%s\n' "$cells" |
  xargs -d '\n' -P "$jobs" -I{} bash "$0" --run-cell {} "$dir" "$stride")

# the table, in the order of the cell list
out=$(
  echo "| cell | compiler | flags | runs on | result | hashes digest | build s | run s | note |"
  echo "|---|---|---|---|---|---|---|---|---|"
  while IFS= read -r line; do
    IFS='|' read -r id kind comp flags runner what _ <<<"$line"
    r=$(awk -F'|' -v id="$id" '$1 == id' <<<"$results" | tail -1)
    IFS='|' read -r _ st dg bs rs note <<<"${r:-$id|FAIL|-|-|-|no result}"
    if [ "$kind" = refuse ]; then on=compile-only; elif [ "$kind" = fpenv ] || [ "$kind" = fpenvlink ]; then on="$what (run-time refusal)"; elif [ "$runner" = - ]; then on="$what native"; else on="$runner"; fi
    [[ "$note" == *"(under qemu-i386"* ]] && on=qemu-i386
    echo "| $id | $comp | \`$flags\` | $on | $st | $dg | $bs | $rs | $note |"
  done <<<"$cells"
)
echo "$out"
[ -n "$table" ] && echo "$out" >"$table"

pass=$(grep -c '|PASS|' <<<"$results"); fail=$(grep -c '|FAIL|' <<<"$results")
skip=$(grep -c '|SKIP|' <<<"$results")
missing=$(( ncells - pass - fail - skip )); fail=$(( fail + missing ))
# every passing golden cell at the same stride printed the same hashes (a
# digest "sS:..." is a cell's at stride S)
ndig=$(awk -F'|' '$2 == "PASS" && $3 != "refused" && $1 !~ /^full-/ {print $3}' <<<"$results" | sort -u |
       awk -F: '{print (NF > 1 ? $1 : "-")}' | uniq -d | wc -l)
if [ "$ndig" -gt 0 ]; then echo "matrix: passing cells disagree on the digest of their hashes"; fail=$((fail + 1)); fi
echo "matrix: $pass passed, $fail failed, $skip skipped ($(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
