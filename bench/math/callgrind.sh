#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per call (callgrind's Ir) of repdl's binary32 functions:
# glibc vs repdl vs LLVM libc.  Instruction counts do not depend on the
# machine's load, so they are repeatable where timings on a shared machine
# are not (they are not time: they ignore latency, ports and vector width).
#
#   bash bench/math/callgrind.sh [BUILD_DIR [CALLS [BINARY...]]]
#       BUILD_DIR  meson build directory (default: build)
#       CALLS      calls per measurement (default: 1000000)
#       BINARY     benchmark builds to count (default: bench_elementary
#                  bench_elementary_v3 bench_elementary_v3_fast, i.e. repdl
#                  at -O2, at -O3 -march=x86-64-v3, and with FMA contraction)
#
# valgrind 3.19 cannot run AVX-512 code, hence no -march=native build here;
# -march=x86-64-v3 (FMA, AVX2) is the nearest it runs.  Each figure is the Ir
# counted inside the measured loop function (--toggle-collect) divided by
# CALLS: the callee, the call and the loop (load, store, counter) around it;
# the "empty call" line is that loop around a function that returns its
# argument.  glibc runs its FMA ifunc variants under valgrind as natively
# (valgrind reports FMA and AVX2).
set -euo pipefail
build=${1:-build}
calls=${2:-1000000}
shift $(( $# < 2 ? $# : 2 ))
bins=("$@"); [ ${#bins[@]} -gt 0 ] || bins=(bench_elementary bench_elementary_v3 bench_elementary_v3_fast)
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed (scripts/deps.sh)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# ir BIN FUNC IMPL: Ir per call, or "-" when the implementation is absent
ir() {
    local out=$tmp/cg.$2.$3
    if ! valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*_thr' \
            "$1" --callgrind "$2" "$3" "$calls" >"$tmp/log" 2>&1; then
        grep -q 'no implementation' "$tmp/log" && { echo "-"; return; }
        cat "$tmp/log" >&2; exit 1
    fi
    awk -v n="$calls" '/^(summary|totals):/ { t = $2 } END { printf "%.1f", t / n }' "$out"
}

for b in "${bins[@]}"; do
    bin=$build/bench/math/$b
    [ -x "$bin" ] || { echo "callgrind.sh: no $bin (build first: meson setup $build && ninja -C $build)" >&2; exit 1; }
    flags=$("$bin" --flags)
    echo "callgrind: Ir per call over $calls calls, inputs as in the timed benchmark; $b (repdl at $flags)"
    printf '%-6s %9s %9s %9s %9s %9s %12s %12s\n' func glibc repdl llvm inlined array repdl/glibc llvm/glibc
    for f in expf logf tanhf sqrtf exp2f log2f expm1f log1pf rsqrtf sinf cosf erff; do
        g=$(ir "$bin" $f glibc); r=$(ir "$bin" $f repdl); l=$(ir "$bin" $f llvm)
        i=$(ir "$bin" $f inline); a=$(ir "$bin" $f array)
        rr=$(awk -v a="$r" -v b="$g" 'BEGIN { printf "%.2fx", a / b }')
        lr=$( [ "$l" = - ] && echo - || awk -v a="$l" -v b="$g" 'BEGIN { printf "%.2fx", a / b }')
        printf '%-6s %9s %9s %9s %9s %9s %12s %12s\n' "$f" "$g" "$r" "$l" "$i" "$a" "$rr" "$lr"
    done
    echo "empty call (loop + call + return, included above): $(ir "$bin" expf empty) Ir"
    echo
done
echo "columns: glibc = libm call; repdl = repdl_F through a noinline wrapper; llvm = LLVM libc call;"
echo "inlined = loop with repdl_F inlined; array = repdl_F_array (per element)"
