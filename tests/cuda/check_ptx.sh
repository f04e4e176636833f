#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cuda/check_ptx.sh: the proof that nothing in repdl's CUDA kernels
# is contracted, flushed or approximate (docs/cuda.md).
#
#   check_ptx.sh A.fmad-true.ptx A.fmad-false.ptx [B.true B.false ...]
#       each pair must have the same floating-point instructions (the flag
#       that differs between the two builds changed nothing: --fmad=false,
#       -ftz=true or -use_fast_math against the default; every float
#       operation of repdl is inline PTX without .ftz or an _rn intrinsic),
#       contain kernels (.entry), and contain no .ftz and no approx
#       instruction.  Exit 0 when all pairs pass, 1 otherwise.
#       "The same": byte-identical files, or else the same float skeleton
#       (float_skeleton below: every instruction of a float type, in order,
#       with its operands, the virtual registers renamed by first
#       appearance). nvcc does not always number its virtual registers, or
#       order independent integer address arithmetic, the same way from one
#       build to the next (seen: two selp/add pairs swapped in one kernel,
#       the same data flow), so an integer-only difference is reported, not
#       failed; any difference in a float instruction, its order or its
#       operands fails.
#   check_ptx.sh --canary T.ptx F.ptx FTZ.ptx APPROX.ptx
#       self-test: the check must reject each canary (tests/cuda/
#       ptx_canary.cu): T and F differ, FTZ has .ftz, APPROX has approx.
#
# Prints one line per file pair and a summary; runs without a GPU.
set -u

# 0 when the PTX file is clean: no .ftz modifier, no approx instruction.
clean() {
    ! grep -Eq '\.ftz\b|\.approx\b|approx\.' "$1"
}

# The float instructions of a PTX file (.entry/.func lines as boundaries),
# registers renamed %<class>#<n> by first appearance.
float_skeleton() {
    awk '
    /\.(entry|func) / || /^[ \t]*(@!?%p[0-9]+[ \t]+)?[a-z][a-z0-9_.]*\.(f16|f16x2|bf16|bf16x2|f32|f64)([ \t;,]|$)/ {
        line = $0; out = ""
        while (match(line, /%[a-z]+[0-9]+/)) {
            r = substr(line, RSTART, RLENGTH)
            if (!(r in name)) { c = r; sub(/[0-9]+$/, "", c); name[r] = c "#" (++cnt[c]) }
            out = out substr(line, 1, RSTART - 1) name[r]
            line = substr(line, RSTART + RLENGTH)
        }
        print out line
    }' "$1"
}

if [ "${1:-}" = "--canary" ]; then
    [ $# -eq 5 ] || { echo "usage: $0 --canary T F FTZ APPROX"; exit 2; }
    bad=0
    if cmp -s "$2" "$3"; then echo "FAIL canary: --fmad=true/false PTX identical for a*b+c"; bad=1
    else echo "ok   canary: --fmad changes the PTX of a*b+c"; fi
    if cmp -s <(float_skeleton "$2") <(float_skeleton "$3"); then
        echo "FAIL canary: --fmad=true/false float skeletons identical for a*b+c"; bad=1
    else echo "ok   canary: --fmad changes the float skeleton of a*b+c"; fi
    if ! grep -q 'fma.rn.f32' "$2"; then echo "FAIL canary: no fma.rn.f32 under --fmad=true"; bad=1; fi
    if clean "$4"; then echo "FAIL canary: -ftz=true PTX not flagged"; bad=1
    else echo "ok   canary: -ftz=true PTX flagged"; fi
    if clean "$5"; then echo "FAIL canary: __expf PTX not flagged"; bad=1
    else echo "ok   canary: __expf PTX flagged"; fi
    exit $bad
fi

[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || { echo "usage: $0 T1 F1 [T2 F2 ...]"; exit 2; }
bad=0; pairs=0
while [ $# -gt 0 ]; do
    t=$1; f=$2; shift 2
    pairs=$((pairs + 1))
    name=$(basename "$t")
    entries=$(grep -c '\.entry ' "$t" || true)
    if [ "${entries:-0}" -eq 0 ]; then echo "FAIL $name: no kernel in the PTX"; bad=1; continue; fi
    pb=0 same=identical
    if ! cmp -s "$t" "$f"; then
        nf=$(float_skeleton "$t" | wc -l)
        if [ "${nf:-0}" -gt 0 ] && cmp -s <(float_skeleton "$t") <(float_skeleton "$f"); then
            same="the same $nf float instructions ($(diff "$t" "$f" | grep -c '^<') integer-only lines differ)"
        else
            echo "FAIL $name: the float instructions differ between the two builds (--fmad, -ftz or -use_fast_math changed them):"
            diff <(float_skeleton "$t") <(float_skeleton "$f") | head -20
            pb=1
        fi
    fi
    for p in "$t" "$f"; do
        if ! clean "$p"; then
            echo "FAIL $(basename "$p"): .ftz or approx instruction:"
            grep -En '\.ftz\b|\.approx\b|approx\.' "$p" | head -10
            pb=1
        fi
    done
    [ $pb -ne 0 ] && bad=1
    [ $pb -eq 0 ] && echo "ok   $name vs $(basename "$f"): $entries kernels, $same, no .ftz, no approx"
done
echo "$pairs pairs checked: $([ $bad -eq 0 ] && echo pass || echo FAIL)"
exit $bad
