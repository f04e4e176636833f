// SPDX-License-Identifier: MIT
// python/repdl/csrc/unary.h: the elementwise functions of repdl._C
// (unary, unary_backward), one row for each function of
// include/repdl/op_table.h that has a backward pass, for the CPU
// functions (repdl_ext.cpp: the host's _array_f32 forms) and the CUDA ones
// (cuda_ops.cpp: the launchers).  A function added to op_table.h with a
// backward pass is here, in both builds, with no edit of this file.
#ifndef REPDL_PY_UNARY_H
#define REPDL_PY_UNARY_H

#include <torch/extension.h>

#include <string>

#include <repdl/op_table.h>

// name: op_table.h's; fwd: y = f(x); bwd: dx from (in, dy), in the output
// y when reads_y (op_table.h's BY), the input x otherwise (BX).
template <class Fwd, class Bwd>
struct repdl_py_unary_row {
    const char *name;
    Fwd fwd;
    Bwd bwd;
    bool reads_y;
};

// The row named op; an unknown name: a Python error.
template <class Row, size_t N>
const Row &repdl_py_unary_find(const Row (&rows)[N], const std::string &op)
{
    for (const Row &r : rows)
        if (op == r.name) return r;
    TORCH_CHECK(false, "repdl: unknown unary op ", op);
    return rows[0];
}

// Row initialisers: the host's functions and the CUDA launchers.
#define REPDL_PY_UNARY_HOST(name, reads_y) \
    {#name, repdl_##name##_array_f32, repdl_##name##_backward_array_f32, (reads_y) != 0},
#define REPDL_PY_UNARY_CUDA(name, reads_y) \
    {#name, repdl_cuda_##name##_array_f32, repdl_cuda_##name##_backward_array_f32, (reads_y) != 0},

#endif
