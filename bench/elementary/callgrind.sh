#!/usr/bin/env bash
# Instructions per call (callgrind's Ir) of expf, logf, tanhf, sqrtf:
# glibc vs repdl vs LLVM libc.  Instruction counts do not depend on the
# machine's load, so they are repeatable where timings on a shared machine
# are not (they are not time: they ignore latency, ports and vector width).
#
#   bash bench/elementary/callgrind.sh [BUILD_DIR [CALLS]]
#       BUILD_DIR  meson build directory (default: build)
#       CALLS      calls per measurement (default: 1000000)
#
# Uses the -O2 binary (build/bench/elementary/bench_elementary): valgrind
# 3.19 cannot run the AVX-512 code of the -march=native one.  Each figure is
# the Ir counted inside the measured loop function (--toggle-collect) divided
# by CALLS: the callee, the call and the loop (load, store, counter) around
# it; the "empty call" line is that loop around a function that returns its
# argument.  glibc runs its FMA ifunc variants under valgrind as natively
# (valgrind reports FMA and AVX2).
set -euo pipefail
build=${1:-build}
calls=${2:-1000000}
bin=$build/bench/elementary/bench_elementary
[ -x "$bin" ] || { echo "callgrind.sh: no $bin (build first: meson setup $build && ninja -C $build)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed (scripts/deps.sh)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# ir FUNC IMPL: Ir per call, or "-" when the implementation is absent
ir() {
    local out=$tmp/cg.$1.$2
    if ! valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*_thr' \
            "$bin" --callgrind "$1" "$2" "$calls" >"$tmp/log" 2>&1; then
        grep -q 'no implementation' "$tmp/log" && { echo "-"; return; }
        cat "$tmp/log" >&2; exit 1
    fi
    awk -v n="$calls" '/^(summary|totals):/ { t = $2 } END { printf "%.1f", t / n }' "$out"
}

echo "callgrind: Ir per call over $calls calls, inputs as in the timed benchmark ($bin)"
printf '%-6s %9s %9s %9s %9s %9s %12s %12s\n' func glibc repdl llvm inlined array repdl/glibc llvm/glibc
for f in expf logf tanhf sqrtf; do
    g=$(ir $f glibc); r=$(ir $f repdl); l=$(ir $f llvm); i=$(ir $f inline); a=$(ir $f array)
    rr=$(awk -v a="$r" -v b="$g" 'BEGIN { printf "%.2fx", a / b }')
    lr=$( [ "$l" = - ] && echo - || awk -v a="$l" -v b="$g" 'BEGIN { printf "%.2fx", a / b }')
    printf '%-6s %9s %9s %9s %9s %9s %12s %12s\n' "$f" "$g" "$r" "$l" "$i" "$a" "$rr" "$lr"
done
echo "empty call (loop + call + return, included above): $(ir expf empty) Ir"
echo "columns: glibc = libm call; repdl = repdl_F through a noinline wrapper; llvm = LLVM libc call;"
echo "inlined = loop with repdl_F inlined; array = repdl_F_array (per element)"
