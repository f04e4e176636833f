#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the table of docs/oracle.md: repdl-oracle on all 2^32 inputs
# of each binary32 function of glibc (Debian's libm.so.6), LLVM libc
# (Debian's libllvmlibc-N-dev, made a shared library by
# reference/llvmlibc_so.sh) and repdl (librepdl.so), one run at a time.
# Not part of CI: each run takes minutes (docs/testing.md).
#
#   scripts/oracle-table.sh [-b BUILD_DIR] [-t THREADS] [-d DATE] [LIB ...] [-- FUNCTION ...]
#
# LIB: glibc, llvmlibc, repdl (default: glibc llvmlibc, function by
# function, the two runs of a function together).  BUILD_DIR (default
# build) supplies reference/repdl-oracle and librepdl.so; without them the
# tool is compiled here with cc and the repdl rows are skipped.  Each run
# appends the tool's output, its command and its time to
# results/oracle-LIB-DATE.txt (DATE: today, UTC).  Run it under
# `nice -n 19`; the summary lines are what the table quotes.
#   scripts/oracle-table.sh --table DATE
#
# prints docs/oracle.md's table from results/oracle-LIB-DATE.txt (LIB: glibc, llvmlibc, repdl)
# (a run that did not finish: "not run").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --table ]; then
    exec python3 - "$root/results" "${2:?--table DATE}" <<'PY'
import os, re, sys
res, date = sys.argv[1], sys.argv[2]
funcs = ['exp', 'log', 'tanh', 'sqrt', 'exp2', 'log2', 'expm1', 'log1p', 'sin', 'cos', 'erf', 'rsqrt',
         'sigmoid', 'silu', 'softplus', 'gelu', 'gelu_tanh']
cells = {}
for lib in ['glibc', 'llvmlibc', 'repdl']:
    path = os.path.join(res, 'oracle-%s-%s.txt' % (lib, date))
    if not os.path.exists(path):
        continue
    for line in open(path):
        m = re.match(r'(?:OK|FAIL): (\S+) \S+ in \S+: 4294967296 inputs .*?: (\d+) incorrectly rounded '
                     r'\((\d+) of the wrong class\), largest error (\d+) ulps?(?: at x = (\S+))?.*; ([\d.]+) s, ', line)
        if m:
            f, wrong, wc, ulps, at, secs = m.groups()
            cells[(lib, f)] = '%s / %s (%.0f s)' % (format(int(wrong), ','), ulps if int(wrong) > int(wc) else '-',
                                                    float(secs))
have = {'glibc': {'exp', 'log', 'tanh', 'sqrt', 'exp2', 'log2', 'expm1', 'log1p', 'sin', 'cos', 'erf'},
        'llvmlibc': {'exp', 'log', 'tanh', 'sqrt', 'exp2', 'log2', 'expm1', 'log1p', 'sin', 'cos', 'erf', 'rsqrt'}}
print('| function | glibc | LLVM libc | repdl |')
print('|---|---|---|---|')
for f in funcs:
    row = []
    for lib in ['glibc', 'llvmlibc', 'repdl']:
        if lib in have and f not in have[lib]:
            row.append('(none)')
        else:
            row.append(cells.get((lib, f), 'not run'))
    print('| %s | %s |' % (f, ' | '.join(row)))
PY
fi
build=$root/build threads=2 date=$(date -u +%Y-%m-%d)
libs=() funcs=()
while [ $# -gt 0 ]; do
    case "$1" in
    -b) build=$(readlink -f "$2"); shift 2 ;;
    -t) threads=$2; shift 2 ;;
    -d) date=$2; shift 2 ;;
    --) shift; funcs=("$@"); break ;;
    glibc|llvmlibc|repdl) libs+=("$1"); shift ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-t THREADS] [-d DATE] [glibc|llvmlibc|repdl ...] [-- FUNCTION ...]" >&2; exit 2 ;;
    esac
done
[ ${#libs[@]} -gt 0 ] || libs=(glibc llvmlibc)
[ ${#funcs[@]} -gt 0 ] || funcs=(exp log tanh sqrt exp2 log2 expm1 log1p sin cos erf rsqrt
                                 sigmoid silu softplus gelu gelu_tanh)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tool=$build/reference/repdl-oracle
if [ ! -x "$tool" ]; then
    tool=$work/repdl-oracle
    ${CC:-cc} -std=c99 -O2 -I"$root/include" -I"$root/reference" "$root/reference/oracle_tool.c" \
        -o "$tool" -lmpfr -lgmp -lm -pthread -ldl
fi
llvm_have=""
if printf '%s\n' "${libs[@]}" | grep -qx llvmlibc; then
    llvm_have=$("$root/reference/llvmlibc_so.sh" "$work/libllvmlibc_math.so")
fi
librepdl=$(ls "$build"/librepdl.so 2>/dev/null | head -n 1 || true)

header() {   # once per results file
    local out=$1
    [ -s "$out" ] && return 0
    {
        echo "# repdl-oracle on all 2^32 binary32 inputs, $(date -u '+%Y-%m-%d %H:%M UTC') (scripts/oracle-table.sh)"
        echo "# machine: $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs (shared)"
        echo "# glibc: $(ldd --version | head -n 1)"
        echo "# LLVM libc: $(ls -1 /usr/lib/llvm-*/lib/libllvmlibc.a 2>/dev/null | sort -V | tail -n 1) ($(dpkg-query -W -f '${Package} ${Version}' 'libllvmlibc-*-dev' 2>/dev/null | head -n 1 || true))"
        echo "# repdl: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
    } > "$out"
}

run() {   # LIB FUNCTION LIBRARY SYMBOL
    local name=$1 f=$2 lib=$3 sym=$4 out=$root/results/oracle-$1-$date.txt t0 t1 rc
    header "$out"
    t0=$(date +%s)
    echo "\$ repdl-oracle --lib $(basename "$lib") --symbol $sym --function $f --threads $threads --show 10 --quiet   # started $(date -u +%H:%M:%S)" >> "$out"
    set +e
    "$tool" --lib "$lib" --symbol "$sym" --function "$f" --threads "$threads" --show 10 --quiet >> "$out" 2>&1
    rc=$?
    set -e
    t1=$(date +%s)
    echo "# exit $rc, $((t1 - t0)) s wall, ended $(date -u +%H:%M:%S)" >> "$out"
    echo "oracle-table: $name $f: exit $rc, $((t1 - t0)) s" >&2
}

mkdir -p "$root/results"
for f in "${funcs[@]}"; do
    for l in "${libs[@]}"; do
        case "$l" in
        glibc)
            case " exp log tanh sqrt exp2 log2 expm1 log1p sin cos erf " in *" $f "*) run glibc "$f" libm.so.6 "${f}f" ;; esac ;;
        llvmlibc)
            case " $llvm_have " in *" ${f}f "*) run llvmlibc "$f" "$work/libllvmlibc_math.so" "llvmlibc_${f}f" ;; esac ;;
        repdl)
            [ -n "$librepdl" ] && run repdl "$f" "$librepdl" "repdl_${f}_f32" ;;
        esac
    done
done
