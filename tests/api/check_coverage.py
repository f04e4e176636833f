#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/api/check_coverage.py: every public function of include/repdl/
that takes an array (a pointer parameter) is called by the empty-extents
test (tests/api/test_empty.c), the bad-sizes test (tests/api/test_bad_sizes.c)
or the shape fuzzer (tests/fuzz/fuzz_api.c), or is listed below with the
test that owns its bad input.

    check_coverage.py SOURCE_ROOT

A function counts as called when its name appears in one of them, or when
it is a form that include/repdl/op_table.h's rows promise (both files
expand REPDL_ELEMENTWISE_OPS, _HALF and _BACKWARD over the table).  Exit
status 1, naming each function, when one is in none of these: a new entry
point must be given its empty and NULL cases (test_empty.c) and its
shapes (fuzz_api.c), or a line here saying where they are tested."""
import os
import re
import sys

# name: where its bad input is tested instead (not a shape to fuzz)
ELSEWHERE = {
    "repdl_dp_init": "tests/dp (bad input, refused allocations)",
    "repdl_dp_free": "tests/dp",
    "repdl_dp_for": "tests/dp",
    "repdl_dp_rank_units": "tests/dp",
    "repdl_dp_step_f32": "tests/dp",
    "repdl_dp_step_nodes_f32": "tests/dp",
    "repdl_dp_step_mpi_f32": "tests/dp (mpirun)",
    "repdl_mpi_sum_nodes_f32": "tests/mpi, tests/fpenv/fpenv_mpi.c",
    "repdl_sum_partial_f32": "tests/reduce (block sums; a block is the caller's range)",
    "repdl_sum_combine_f32": "tests/reduce, tests/fpenv/fpenv_refuse.c",
    "repdl_sum_state_init": "tests/reduce, tests/fpenv/fpenv_refuse.c",
    "repdl_sum_state_push": "tests/reduce, tests/fpenv/fpenv_refuse.c",
    "repdl_sum_state_result": "tests/reduce, tests/fpenv/fpenv_refuse.c",
    "repdl_argmax_merge_f32": "tests/reduce (two results merged, no extent)",
    "repdl_argmin_merge_f32": "tests/reduce (two results merged, no extent)",
}


def public_functions(inc):
    """(name, header) of every REPDL_API / REPDL_HOST_API definition with a
    pointer parameter."""
    out = []
    for h in sorted(os.listdir(inc)):
        if not h.endswith(".h") or h == "cuda.h":
            continue
        src = open(os.path.join(inc, h)).read()
        for m in re.finditer(r"REPDL_(?:HOST_)?API\s+[^;{()]*?\b(repdl_\w+)\s*\(([^)]*)\)", src):
            if "*" in m.group(2):
                out.append((m.group(1), h))
    return out


def table_forms(inc):
    """The array forms op_table.h's rows promise."""
    src = open(os.path.join(inc, "op_table.h")).read()
    names = set()
    for m in re.finditer(r"S\(X,\s*(\w+),\s*(\w+),\s*(\w+),\s*(\w+)\)", src):
        name, _cuda, half, bwd = m.groups()
        names.add("repdl_%s_array_f32" % name)
        if half == "HALF":
            names.add("repdl_%s_array_bf16" % name)
            names.add("repdl_%s_array_f16" % name)
        if bwd in ("BX", "BY"):
            names.add("repdl_%s_backward_array_f32" % name)
    return names


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    inc = os.path.join(root, "include", "repdl")
    tests = [os.path.join(root, "tests", "api", "test_empty.c"),
             os.path.join(root, "tests", "api", "test_bad_sizes.c"),
             os.path.join(root, "tests", "fuzz", "fuzz_api.c")]
    text = "\n".join(open(t).read() for t in tests)
    expanded = table_forms(inc)
    if len(expanded) < 20:
        print("FAIL: op_table.h gave %d forms: its row syntax changed" % len(expanded))
        return 1
    funcs = public_functions(inc)
    missing, stale = [], []
    for name, h in funcs:
        if re.search(r"\b%s\b" % name, text) or name in expanded:
            if name in ELSEWHERE:
                stale.append(name)
            continue
        if name not in ELSEWHERE:
            missing.append("%s (%s)" % (name, h))
    known = {n for n, _ in funcs}
    stale += [n for n in ELSEWHERE if n not in known]
    for m in missing:
        print("FAIL: %s takes an array and is in none of test_empty.c, test_bad_sizes.c, fuzz_api.c" % m)
    for s in stale:
        print("FAIL: %s is listed as tested elsewhere but is covered here or gone: drop its line" % s)
    print("%s: %d public functions with an array, %d called by those tests "
          "(%d of them op_table.h forms), %d tested elsewhere (listed), %d missing, %d stale"
          % ("FAIL" if missing or stale else "ok", len(funcs),
             len(funcs) - len(missing) - len([n for n, _ in funcs if n in ELSEWHERE]),
             len([n for n, _ in funcs if n in expanded]), len(ELSEWHERE), len(missing), len(stale)))
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
